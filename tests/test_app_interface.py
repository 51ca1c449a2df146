"""Screens and widgets work through the operator session they are given, never by
reaching into the App for attributes Textual's App does not have.

The session (memexplorer/app/operator_session.py) is made once by the App and passed
to each screen's constructor; an ``self.app.browsers`` (or any name the App class of
Textual lacks), a ``getattr`` on the app or a ``type: ignore[attr-defined]`` in the
app layer is a way round it, and fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

from textual.app import App

import memexplorer.app
from memexplorer.app.explorer_app import MemExplorerApp

APP_LAYER = Path(memexplorer.app.__file__).parent
#: ``self.app.x``, ``screen.app.x``, ``node.app.x``: whatever comes after ``.app.``.
APP_REACH = re.compile(r"(?<!memexplorer)\.app\.([A-Za-z_]\w*)")
APP_GETATTR = re.compile(r"getattr\(\s*(?:self\.|screen\.|\w+\.)?app\b")


def _app_sources() -> list[Path]:
    return sorted(APP_LAYER.rglob("*.py"))


def _lines(paths: list[Path]) -> list[tuple[str, int, str]]:
    return [
        (str(path.relative_to(APP_LAYER)), number, line)
        for path in paths
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
    ]


def test_no_attr_defined_ignores_in_the_app_layer():
    found = [
        f"{name}:{n}" for name, n, line in _lines(_app_sources())
        if "type: ignore[attr-defined]" in line
    ]  # fmt: skip
    assert found == []


def test_screens_reach_only_textuals_app():
    """Every ``.app.<name>`` names something Textual's App has; what is memexplorer's own
    (browsers, store watch, open_node, show_error…) comes through the session."""
    textual_names = set(dir(App))
    ours = [
        f"{name}:{n}: .app.{m.group(1)}"
        for name, n, line in _lines(_app_sources())
        for m in APP_REACH.finditer(line)
        if m.group(1) not in textual_names
    ]
    assert ours == []


def test_no_getattr_on_the_app():
    found = [f"{name}:{n}" for name, n, line in _lines(_app_sources()) if APP_GETATTR.search(line)]
    assert found == []


def test_the_reach_check_knows_the_apps_own_names():
    """The check above is only as good as its idea of "ours": the names the screens
    used to reach for are the App's or the session's, never Textual's."""
    textual_names = set(dir(App))
    for name in ("browsers", "store_watch", "writes_under_way", "memories", "open_node",
                 "close_nodes", "show_error", "changed_stores", "session"):  # fmt: skip
        assert name not in textual_names
    assert {"open_node", "close_nodes", "show_error"} <= set(dir(MemExplorerApp))
    assert APP_REACH.findall("self.app.browsers.get(store)") == ["browsers"]
    assert APP_REACH.findall("from memexplorer.app.screens import x") == []
    assert APP_GETATTR.search('getattr(self.app, "browsers")')
