"""Backend choice (seed 002): exact tokens, flag > env var > auto-detect, visible warnings."""

from __future__ import annotations

import pytest

from memexplorer.storage.backend_autodetect import BackendProbeError, autodetect_backend
from memexplorer.storage.backend_choice import (
    BackendChoiceError,
    HomeUnavailableError,
    parse_backend,
    resolve_backend,
)
from memexplorer.storage.exceptions import InvalidInputError


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
    assert resolve_backend("sqlite", environ=bad_env).warnings == ()  # the flag wins


@pytest.mark.parametrize("value", ["KUZU", "Graph-DB", "sqllite", ""])
def test_unknown_variable_is_an_error_that_echoes_it(tmp_path, value):
    # resolve.rs resolve_memory_backend_preference: a typo is a hard error.
    with pytest.raises(BackendChoiceError) as raised:
        resolve_backend(None, home=tmp_path, environ={"AMPLIHACK_MEMORY_BACKEND": value})
    assert repr(value) in raised.value.message
    assert "Valid values: sqlite, graph-db" in raised.value.message


def test_variable_is_honoured_before_any_probe(tmp_path):
    # autodetect_uses_env_var_first: a probe would fail on the link; none is made.
    (tmp_path / "hierarchical_memory").mkdir()
    (tmp_path / "hierarchical_memory" / "link").symlink_to(tmp_path)
    chosen = resolve_backend(None, home=tmp_path, environ={"AMPLIHACK_MEMORY_BACKEND": "sqlite"})
    assert (chosen.backend, chosen.source) == ("sqlite", "env")


@pytest.mark.parametrize(
    ("present", "backend"),
    [((), "sqlite"), (("memory.db",), "sqlite"), (("memory_graph.db",), "graph-db"),
     (("memory.db", "memory_graph.db"), "sqlite"),
     (("memory.db", "hierarchical_memory/ops/graph_db"), "graph-db"),
     (("hierarchical_memory/ops/graph_db/data",), "graph-db"),
     (("memory.db", "hierarchical_memory/ops/kuzu_db"), "sqlite"),
     (("hierarchical_memory/ops.db", "hierarchical_memory/fresh"), "sqlite")],
)  # fmt: skip
def test_auto_detect(tmp_path, present, backend):
    for name in present:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x")
    chosen = resolve_backend(None, home=tmp_path, environ={})
    assert (chosen.backend, chosen.source) == (backend, "auto-detect")
    if not present:
        assert "default" in chosen.reason


@pytest.mark.parametrize(
    ("present", "backend"),
    [((), "sqlite"), (("memory_graph.db",), "sqlite"), (("memory_kuzu.db",), "sqlite"),
     (("hierarchical_memory/a/graph_db",), "graph-db"),
     (("hierarchical_memory/b/kuzu_db", "hierarchical_memory/a/x"), "sqlite")],
)  # fmt: skip
def test_the_probe_alone_follows_resolve_rs(tmp_path, present, backend):
    # resolve_backend_with_autodetect step 2 looks at hierarchical_memory/ only.
    for name in present:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x")
    assert autodetect_backend(tmp_path)[0] == backend


def test_probe_refuses_a_symlink_among_the_agents(tmp_path):
    # autodetect_rejects_symlinks_in_probe: an error, not a warning.
    home = tmp_path / "home"
    (home / "hierarchical_memory").mkdir(parents=True)
    (home / "hierarchical_memory" / "agent").symlink_to(tmp_path)
    (tmp_path / "graph_db").mkdir()
    with pytest.raises(BackendProbeError, match="symlink detected"):
        resolve_backend(None, home=home, environ={})
    assert resolve_backend("sqlite", home=home, environ={}).backend == "sqlite"


def test_probe_counts_a_graph_db_link_inside_an_agent_folder(tmp_path):
    # graph_db.symlink_metadata().is_ok(): the marker may itself be a link.
    (tmp_path / "hierarchical_memory" / "ops").mkdir(parents=True)
    (tmp_path / "hierarchical_memory" / "ops" / "graph_db").symlink_to(tmp_path / "missing")
    assert resolve_backend(None, home=tmp_path, environ={}).backend == "graph-db"


def test_unreadable_probe_folder_is_an_error(tmp_path):
    (tmp_path / "hierarchical_memory").write_bytes(b"not a folder")
    with pytest.raises(BackendProbeError, match="failed to read directory"):
        resolve_backend(None, home=tmp_path, environ={})


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
    # The probe says sqlite; memory.db is absent and the named graph store exists.
    assert (detected.backend, detected.path) == ("graph-db", custom)
    assert "memory tree and clean open by default" in detected.reason
    for bad in ("relative/graph.db", "/tmp/../etc/graph.db", "/proc/self/graph.db"):
        with pytest.raises(InvalidInputError):
            resolve_backend("graph-db", environ={**home, "AMPLIHACK_GRAPH_DB_PATH": bad})
    named = resolve_backend(
        "graph-db", home=tmp_path / "h", environ={"AMPLIHACK_GRAPH_DB_PATH": str(custom)}
    )
    assert named.path == tmp_path / "h" / "memory_graph.db" and "ignored" in named.warnings[0]


def test_legacy_graph_file_is_used_when_the_new_one_is_absent(tmp_path):
    (tmp_path / "memory_kuzu.db").write_bytes(b"x")
    chosen = resolve_backend("graph-db", home=tmp_path, environ={})
    assert (chosen.backend, chosen.path.name) == ("graph-db", "memory_kuzu.db")
    assert "legacy" in chosen.warnings[0]
