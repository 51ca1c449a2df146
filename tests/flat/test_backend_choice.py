"""Backend choice (seed 002): exact tokens, flag > env var > auto-detect, visible warnings."""

from __future__ import annotations

import pytest

from memexplorer.engine.backend_choice import (
    BackendChoiceError,
    HomeUnavailableError,
    parse_backend,
    resolve_backend,
)
from memexplorer.engine.exceptions import InvalidInputError


def test_tokens_are_exact():
    assert parse_backend("sqlite") == "sqlite"
    assert parse_backend("graph-db") == "graph-db"
    assert parse_backend("kuzu") == "graph-db"
    for bad in ("KUZU", "Graph-DB", "SQLite", "sqlite ", "ladybug", ""):
        with pytest.raises(BackendChoiceError) as raised:
            parse_backend(bad)
        assert isinstance(raised.value, InvalidInputError)
    with pytest.raises(BackendChoiceError, match="casing is exact"):
        parse_backend("KUZU")


@pytest.mark.parametrize(
    ("token", "backend", "name"),
    [("sqlite", "sqlite", "memory.db"), ("graph-db", "graph-db", "memory_graph.db"),
     ("kuzu", "graph-db", "memory_graph.db")],
)  # fmt: skip
def test_flag_names_the_store(tmp_path, token, backend, name):
    chosen = resolve_backend(token, home=tmp_path, environ={})
    assert (chosen.backend, chosen.path, chosen.source) == (backend, tmp_path / name, "flag")


def test_flag_wins_over_the_variable(tmp_path):
    env = {"AMPLIHACK_MEMORY_BACKEND": "sqlite", "HOME": str(tmp_path)}
    assert resolve_backend("graph-db", environ=env).backend == "graph-db"
    from_env = resolve_backend(None, environ=env)
    assert (from_env.backend, from_env.source) == ("sqlite", "env")
    assert from_env.path == tmp_path / ".amplihack" / "memory.db"
    bad_env = {"AMPLIHACK_MEMORY_BACKEND": "nonsense", "HOME": str(tmp_path)}
    assert resolve_backend("sqlite", environ=bad_env).warnings == ()


@pytest.mark.parametrize("value", ["KUZU", "Graph-DB", "sqllite"])
def test_unknown_variable_warns_and_falls_back(tmp_path, value):
    (tmp_path / "memory.db").write_bytes(b"")
    chosen = resolve_backend(None, home=tmp_path, environ={"AMPLIHACK_MEMORY_BACKEND": value})
    assert (chosen.backend, chosen.source) == ("graph-db", "fallback")
    assert len(chosen.warnings) == 1 and repr(value) in chosen.warnings[0]


@pytest.mark.parametrize(
    ("present", "backend"),
    [((), "sqlite"), (("memory.db",), "sqlite"), (("memory_graph.db",), "graph-db"),
     (("memory.db", "memory_graph.db"), "graph-db"),
     (("memory.db", "hierarchical_memory/ops/graph_db"), "graph-db"),
     (("memory.db", "hierarchical_memory/ops/kuzu_db"), "sqlite")],
)  # fmt: skip
def test_auto_detect(tmp_path, present, backend):
    for name in present:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x")
    chosen = resolve_backend(None, home=tmp_path, environ={})
    assert (chosen.backend, chosen.source) == (backend, "auto-detect")
    if not present:
        assert "default" in chosen.reason


def test_probe_does_not_follow_symlinks(tmp_path):
    real = tmp_path / "elsewhere.db"
    real.write_bytes(b"x")
    home = tmp_path / "home"
    home.mkdir()
    (home / "memory_graph.db").symlink_to(real)
    (home / "hierarchical_memory").mkdir()
    (home / "hierarchical_memory" / "agent").symlink_to(tmp_path)
    (tmp_path / "graph_db").mkdir()
    chosen = resolve_backend(None, home=home, environ={})
    assert chosen.backend == "sqlite"
    assert len(chosen.warnings) == 2 and all("symlink" in w for w in chosen.warnings)


def test_no_home_is_a_clear_error():
    with pytest.raises(HomeUnavailableError, match="HOME is not set"):
        resolve_backend(None, environ={})
    with pytest.raises(HomeUnavailableError):
        resolve_backend("sqlite", environ={"HOME": ""})


def test_graph_path_variables(tmp_path):
    home = {"HOME": str(tmp_path)}
    custom = tmp_path / "custom.db"
    chosen = resolve_backend("kuzu", environ={**home, "AMPLIHACK_GRAPH_DB_PATH": str(custom)})
    assert chosen.path == custom and chosen.warnings == ()
    alias = resolve_backend("graph-db", environ={**home, "AMPLIHACK_KUZU_DB_PATH": str(custom)})
    assert alias.path == custom and "deprecated" in alias.warnings[0]
    custom.write_bytes(b"x")
    detected = resolve_backend(None, environ={**home, "AMPLIHACK_GRAPH_DB_PATH": str(custom)})
    assert (detected.backend, detected.path) == ("graph-db", custom)
    for bad in ("relative/graph.db", "/tmp/../etc/graph.db", "/proc/self/graph.db"):
        with pytest.raises(InvalidInputError):
            resolve_backend("graph-db", environ={**home, "AMPLIHACK_GRAPH_DB_PATH": bad})
    named = resolve_backend(
        "graph-db", home=tmp_path / "h", environ={"AMPLIHACK_GRAPH_DB_PATH": str(custom)}
    )
    assert named.path == tmp_path / "h" / "memory_graph.db" and "ignored" in named.warnings[0]


def test_legacy_graph_file_is_used_when_the_new_one_is_absent(tmp_path):
    (tmp_path / "memory_kuzu.db").write_bytes(b"x")
    chosen = resolve_backend(None, home=tmp_path, environ={})
    assert (chosen.backend, chosen.path.name) == ("graph-db", "memory_kuzu.db")
    assert "legacy" in chosen.warnings[0]
