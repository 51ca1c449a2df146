"""Imports pass the store's write gate, with real processes: a second writer is
refused at once (exit 3, naming the first), no work is lost, and a read-only
memexplorer (MEMEXPLORER_READ_ONLY=1) writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gate_helpers import gate_held_elsewhere, run_cli, start_script
from store_helpers import checksums

from memexplorer.operator.transfer import export_agent_store
from memexplorer.operator.transfer_common import agent_counts

HIER = "home/.amplihack/hierarchical_memory"

#: ``memexplorer import ...`` that says "ready" once it holds the gate and has
#: read its file, then waits for a line on stdin before writing anything.
PAUSED_IMPORT = r"""
import sys
from memexplorer.operator import transfer

real = transfer.write_export_file

def paused(*args, **kwargs):
    print("ready", flush=True)
    sys.stdin.readline()
    return real(*args, **kwargs)

transfer.write_export_file = paused
from memexplorer.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _ids(path: Path) -> set[str]:
    data = json.loads(path.read_text())
    return {n["memory_id"] for n in data["semantic_nodes"]}


def test_two_merges_at_once_one_waits_its_turn_and_nothing_is_lost(reference_stores, tmp_path):
    exports = reference_stores / "exports"
    first = exports / "ops-agent.export_to_json.json"
    second = exports / "research-agent.export_to_json.json"
    store = tmp_path / "merged" / "kuzu_db"
    args = ["--storage-path", str(store), "--home", str(tmp_path / "home"), "--merge"]
    holder = start_script(PAUSED_IMPORT, "import", "merged", str(first), *args)
    try:
        refused = run_cli("import", "merged", str(second), *args)
    finally:
        out, err = holder.communicate("go\n")
    assert refused.returncode == 3, refused.stderr
    assert f"PID {holder.pid}" in refused.stderr and "import" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert holder.returncode == 0, err
    again = run_cli("import", "merged", str(second), *args)
    assert again.returncode == 0, again.stderr
    out = tmp_path / "merged.json"
    export_agent_store("merged", out, storage_path=store)
    assert _ids(out) == _ids(first) | _ids(second)  # both files' work is there


@pytest.mark.parametrize("how", ["replace", "merge", "raw-db"])
def test_an_import_is_refused_while_another_process_holds_the_gate(reference_stores, tmp_path, how):
    store = reference_stores / HIER / "ops-agent" / "kuzu_db"
    source = reference_stores / "exports" / "research-agent.export_to_json.json"
    extra = {"replace": [], "merge": ["--merge"], "raw-db": ["--format", "raw-db"]}[how]
    if how == "raw-db":
        source = reference_stores / HIER / "research-agent" / "kuzu_db"
    before = checksums(store.parent)
    counts = agent_counts("ops-agent", store)
    command = ["import", "ops-agent", str(source), "--storage-path", str(store), *extra]
    with gate_held_elsewhere(store, action="clean") as pid:
        refused = run_cli(*command, "--home", str(tmp_path / "home"))
    assert refused.returncode == 3, refused.stderr
    assert f"PID {pid}" in refused.stderr and "clean" in refused.stderr
    assert checksums(store.parent) == before
    assert agent_counts("ops-agent", store) == counts
    assert not (tmp_path / "home" / "backups").exists()
    read_only = run_cli(*command, "--home", str(tmp_path / "home"), read_only=True)
    assert read_only.returncode != 0 and "Writes are disabled" in read_only.stderr
    assert "Traceback" not in read_only.stderr
    assert checksums(store.parent) == before
