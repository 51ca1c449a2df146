"""`--layout rust` puts a new store where amplihack-rs looks for it, and a legacy
``kuzu_db`` that ``graph_db`` replaced is never written: a write names the
migrate command, and that command (through the write gate) keeps the old store."""

from __future__ import annotations

import os
import shlex
from importlib.util import find_spec

import pytest
from store_helpers import checksums

from memexplorer.cli.main import main
from memexplorer.operator.write_gate import write_gate
from memexplorer.storage.backend_autodetect import autodetect_backend
from memexplorer.storage.exceptions import LegacyStoreError
from memexplorer.storage.store_layout import rust_resolved_graph_db
from memexplorer.storage.stores import sniff

pytestmark = pytest.mark.skipif(
    find_spec("ladybug") is None and not os.environ.get("CI"),
    reason="needs the ladybug extra: pip install 'memexplorer[ladybug]'",
)

HOME = "home/.amplihack"


def test_import_with_the_rust_layout_is_found_by_amplihack_rs(reference_stores, tmp_path):
    export = reference_stores / "exports" / "support-bot.export_to_json.json"
    home = tmp_path / "fresh"
    assert autodetect_backend(home)[0] == "sqlite"
    args = ["import", "rs-agent", str(export), "--home", str(home)]
    assert main([*args, "--layout", "rust"]) == 0
    store = home / "hierarchical_memory" / "rs-agent" / "graph_db"
    assert sniff(store).engine == "ladybug"  # lbug is all amplihack-rs reads
    assert rust_resolved_graph_db(home / "hierarchical_memory" / "rs-agent") == store
    assert autodetect_backend(home)[0] == "graph-db"
    # The default for the next new store is now the layout the home holds.
    assert main(["import", "second", str(export), "--home", str(home)]) == 0
    assert (home / "hierarchical_memory" / "second" / "graph_db").is_file()


def test_import_with_the_python_layout_writes_the_agent_file(reference_stores, tmp_path):
    export = reference_stores / "exports" / "support-bot.export_to_json.json"
    home = tmp_path / "fresh"
    assert main(["import", "py-agent", str(export), "--home", str(home), "--layout", "python"]) == 0
    assert (home / "hierarchical_memory" / "py-agent").is_file()
    assert autodetect_backend(home)[0] == "sqlite"


def test_a_python_era_kuzu_db_stays_writable(reference_stores):
    store = reference_stores / HOME / "hierarchical_memory" / "ops-agent" / "kuzu_db"
    with write_gate(store, action="test write"):
        pass  # the Kuzu-era library wrote kuzu_db itself: no graph_db anywhere


def test_a_replaced_kuzu_db_is_never_written_and_migrate_keeps_it(
    reference_stores, tmp_path, capsys
):
    home = reference_stores / HOME
    export = reference_stores / "exports" / "support-bot.export_to_json.json"
    assert main(["import", "rs-agent", str(export), "--home", str(home), "--layout", "rust"]) == 0
    legacy = home / "hierarchical_memory" / "ops-agent" / "kuzu_db"
    before = checksums(legacy.parent)
    capsys.readouterr()
    assert main(["import", "ops-agent", str(export), "--home", str(home)]) == 1
    err = capsys.readouterr().err
    assert "Legacy store is read-only" in err and "graph_db stores" in err
    assert checksums(legacy.parent) == before
    with pytest.raises(LegacyStoreError) as raised, write_gate(legacy.parent, action="t"):
        pass
    command = raised.value.hint.split(": ", 1)[1]
    argv = shlex.split(command)
    assert argv[:2] == ["memexplorer", "migrate"] and argv[-2:] == ["--engine", "ladybug"]
    assert main(argv[1:]) == 0
    assert checksums(legacy.parent.parent / "ops-agent") != before  # graph_db added
    assert {p.name for p in legacy.parent.iterdir()} >= {"kuzu_db", "graph_db"}
    assert legacy.read_bytes()[:4] == b"KUZU"
    kept = {k: v for k, v in checksums(legacy.parent).items() if "kuzu_db" in k}
    assert kept == {k: v for k, v in before.items() if "kuzu_db" in k}
    assert sniff(legacy.with_name("graph_db")).engine == "ladybug"
    # Writes now go to graph_db; kuzu_db still refuses them, naming graph_db.
    assert main(["import", "ops-agent", str(export), "--home", str(home)]) == 0
    with pytest.raises(LegacyStoreError, match="exists beside it"), write_gate(legacy, action="t"):
        pass
    assert {k: v for k, v in checksums(legacy.parent).items() if "kuzu_db" in k} == kept
