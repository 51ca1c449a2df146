"""No two of memexplorer's modules import each other, directly or round a longer
circle, lazily inside a function or not (docs/architecture.md)."""

from __future__ import annotations

from pathlib import Path

from import_graph import find_cycles, import_graph

import memexplorer

PACKAGE = Path(memexplorer.__file__).parent


def test_memexplorer_has_no_import_circle():
    circles = find_cycles(import_graph(PACKAGE, "memexplorer"))
    assert not circles, "import circles:\n" + "\n".join(" -> ".join(c) for c in circles)


def test_the_graph_sees_memexplorer_s_known_imports():
    """A graph that missed imports would find no circle either: check a few edges
    read by hand from the source, one of each kind of import statement."""
    graph = import_graph(PACKAGE, "memexplorer")
    # `from .exceptions import ...` at the top of a module
    assert "memexplorer.storage.exceptions" in graph["memexplorer.storage.sqlite_readonly"]
    # `from memexplorer.app.widgets.node_ref import NodeRef`
    assert "memexplorer.app.widgets.node_ref" in graph["memexplorer.app.screens.graph_screen"]
    # `from .graph_screen import GraphScreen` inside a method
    assert (
        "memexplorer.app.screens.graph_screen"
        in graph["memexplorer.app.screens.node_detail_screen"]
    )
    # `from . import stats`: a submodule named in a from-import
    assert "memexplorer.cli.commands.stats" in graph["memexplorer.cli.commands.demo"]
    # `from memexplorer import __version__`: a name of the package, an edge to it
    assert "memexplorer" in graph["memexplorer.operator.backups"]


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "pkg"


def test_a_planted_circle_is_found_and_named(tmp_path):
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from .b import thing\n",
            "sub/__init__.py": "",
            "b.py": "def thing():\n    from pkg.sub import c\n",
            "sub/c.py": "from ..a import x\n",
            "d.py": "import pkg.a\n",
        },
    )
    assert find_cycles(import_graph(root, "pkg")) == [["pkg.a", "pkg.b", "pkg.sub.c", "pkg.a"]]


def test_imports_only_for_type_checking_make_no_circle(tmp_path):
    """They never run, and naming a type is how a module points back at its caller."""
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from . import b\n",
            "b.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from .a import A\nelse:\n    import json\n"
            ),
        },
    )
    assert find_cycles(import_graph(root, "pkg")) == []
    # The same import outside the guard is a circle.
    (root / "b.py").write_text("from .a import A\n")
    assert find_cycles(import_graph(root, "pkg")) == [["pkg.a", "pkg.b", "pkg.a"]]


def test_two_separate_circles_are_each_named(tmp_path):
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "import pkg.b\n",
            "b.py": "import pkg.a\n",
            "c.py": "from pkg import d\n",
            "d.py": "from pkg.c import name\n",
        },
    )
    assert sorted(find_cycles(import_graph(root, "pkg"))) == [
        ["pkg.a", "pkg.b", "pkg.a"],
        ["pkg.c", "pkg.d", "pkg.c"],
    ]
