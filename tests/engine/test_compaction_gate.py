"""Redaction and compaction go through the write gate: refused while another writer holds
it or writes are disabled, the lock held through rewrite and swap, and no swap over a
store that changed meanwhile."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from gate_helpers import gate_held_elsewhere
from store_helpers import checksums

import memexplorer.operator.compaction as compaction
from memexplorer.cli.main import main
from memexplorer.operator.audit import audit_store
from memexplorer.operator.redaction import redact_findings
from memexplorer.operator.store_compaction import compact_store
from memexplorer.operator.write_gate import READ_ONLY_ENV, gate_held
from memexplorer.storage.exceptions import StoreChangedError, WritesDisabledError

OPS = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"


def test_another_writer_holding_the_gate_means_exit_3(reference_stores, tmp_path, capsys):
    store = reference_stores / OPS
    before = checksums(store.parent)
    with gate_held_elsewhere(store, "clean"):
        assert main(["compact", str(store)]) == 3
        assert "Store is busy" in capsys.readouterr().err
        args = ["audit", str(store), "--redact", "--yes", "--home", str(tmp_path)]
        assert main(args) == 3
        assert "Store is busy" in capsys.readouterr().err
    assert checksums(store.parent) == before
    assert not (tmp_path / "backups").exists()


def test_writes_disabled_refuses_both(reference_stores, tmp_path, monkeypatch):
    store = reference_stores / OPS
    findings = audit_store(store)
    before = checksums(store.parent)
    monkeypatch.setenv(READ_ONLY_ENV, "1")
    with pytest.raises(WritesDisabledError):
        compact_store(store)
    with pytest.raises(WritesDisabledError):
        redact_findings(findings, home=tmp_path)
    assert checksums(store.parent) == before


def test_the_gate_is_held_through_the_swap(reference_stores, tmp_path, monkeypatch):
    store = reference_stores / OPS
    seen = []
    real = compaction._swap

    def swap(path, new):
        seen.append(gate_held(path))
        real(path, new)

    monkeypatch.setattr(compaction, "_swap", swap)
    [result] = redact_findings(audit_store(store), home=tmp_path)
    assert result.compaction is not None and seen == [True]
    assert not gate_held(store)


def test_no_swap_over_a_store_that_changed_meanwhile(reference_stores, monkeypatch):
    store = reference_stores / OPS
    real = compaction._verify

    def verify_then_the_agent_writes(path, new, expected, catalog):
        real(path, new, expected, catalog)
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))

    monkeypatch.setattr(compaction, "_verify", verify_then_the_agent_writes)
    before = store.read_bytes()
    with pytest.raises(StoreChangedError):
        compact_store(store)
    assert store.read_bytes() == before  # the store, not the copy
    assert [p.name for p in store.parent.iterdir()] == ["kuzu_db"]


OPEN_FOR_WRITING = "import kuzu, sys; kuzu.Database(sys.argv[1]); print('opened')"


def test_an_agent_opening_for_writing_during_the_swap_is_refused(reference_stores, monkeypatch):
    """From the last check to the rename the old file is locked: the agent's engine
    refuses its open instead of letting it write into a file about to be replaced."""
    store = reference_stores / OPS
    attempts = []
    real = compaction._swap

    def swap(path, new):
        attempts.append(
            subprocess.run(
                [sys.executable, "-c", OPEN_FOR_WRITING, str(path)], capture_output=True, text=True
            )
        )
        real(path, new)

    monkeypatch.setattr(compaction, "_swap", swap)
    compact_store(store)
    [attempt] = attempts
    assert attempt.returncode != 0 and "Could not set lock" in attempt.stderr
    after = subprocess.run(
        [sys.executable, "-c", OPEN_FOR_WRITING, str(store)], capture_output=True, text=True
    )
    assert after.stdout.strip() == "opened"  # the lock went with the swap


def test_a_busy_store_among_several_is_reported_and_the_others_redacted(
    reference_stores, tmp_path, capsys
):
    store = reference_stores / OPS
    before = checksums(store.parent)
    args = ["audit", str(reference_stores), "--redact", "--yes", "--home", str(tmp_path), "--json"]
    with gate_held_elsewhere(store, "clean"):
        assert main(args) == 1
    out, err = capsys.readouterr()
    results = {r["store"]: r for r in json.loads(out)["redacted"]}
    assert results[str(store)]["refused"].startswith("Store is busy")
    assert results[str(store)]["values"] == {} and results[str(store)]["backup"] is None
    assert f"not redacted in {store}: Store is busy" in err
    done = [r for path, r in results.items() if path != str(store)]
    assert done and all(r["values"] and r["refused"] is None for r in done)
    assert checksums(store.parent) == before
