"""Snapshots are kept per store: two hierarchical stores whose agent has one name (the
home's ops-agent and a copy of it elsewhere) shared one history, so each store's
History listed the other's snapshots. A snapshot kept before (directly under the
agent's folder) is still listed, for every store, as of a store not recorded."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

from memexplorer.operator.snapshots import agent_timeline, list_snapshots, take_snapshot

HOME = "home/.amplihack"
OPS = "hierarchical_memory/ops-agent/kuzu_db"


def test_two_stores_of_one_agent_name_keep_two_histories(reference_stores: Path, tmp_path: Path):
    home = reference_stores / HOME
    mine = home / OPS
    other = tmp_path / "elsewhere" / "kuzu_db"  # the same name, another place
    other.parent.mkdir()
    shutil.copytree(mine, other) if mine.is_dir() else shutil.copy2(mine, other)
    first = take_snapshot("ops-agent", home=home, now=datetime(2026, 11, 20, 8, tzinfo=UTC))
    second = take_snapshot("ops-agent", home=home, storage_path=other,
                           now=datetime(2026, 11, 21, 8, tzinfo=UTC))  # fmt: skip
    assert first.path.parent != second.path.parent
    assert [s.path for s in list_snapshots("ops-agent", home, mine)] == [first.path]
    assert [s.path for s in list_snapshots("ops-agent", home, other)] == [second.path]
    # Without a store: every store's, newest first.
    assert [s.path for s in list_snapshots("ops-agent", home)] == [second.path, first.path]
    timeline = agent_timeline("ops-agent", home, mine)
    assert [e.path for e in timeline if e.kind == "snapshot"] == [first.path]


def test_a_snapshot_kept_before_is_still_listed(reference_stores: Path, tmp_path: Path):
    home = reference_stores / HOME
    taken = take_snapshot("ops-agent", home=home, now=datetime(2026, 11, 20, 8, tzinfo=UTC))
    old = taken.path.parent.parent / "20261101T080000.000000Z.json"  # the former place
    old.write_bytes(taken.path.read_bytes())
    listed = list_snapshots("ops-agent", home, home / OPS)
    assert [(s.path, s.store_unknown) for s in listed] == [(taken.path, False), (old, True)]
    [entry] = [e for e in agent_timeline("ops-agent", home, home / OPS) if e.path == old]
    assert entry.label.endswith("store not recorded")
    elsewhere = list_snapshots("ops-agent", home, tmp_path / "another" / "kuzu_db")
    assert [s.path for s in elsewhere] == [old]
