"""Counts read right for one and many; restores say what they put back."""

from pathlib import Path

from memexplorer.operator.wording import counted, distinct_places, restored_summary


def test_counts_agree_with_their_noun():
    assert counted(1, "row") == "1 row"
    assert counted(0, "row") == "0 rows"
    assert counted(12_345, "edge") == "12,345 edges"
    assert counted(2, "entry", "entries") == "2 entries"


def test_restores_name_what_came_back():
    # A clean said "Deleted 1 row and 2 edges": its undo says the same, not "3 rows".
    assert restored_summary(3, 0, "kuzu_db", False, edges=2) == (
        "Restored 1 row and 2 edges into kuzu_db"
    )
    assert restored_summary(1, 2, "kuzu_db", False) == (
        "Restored 1 row and 0 edges into kuzu_db (2 rows already there)"
    )
    assert restored_summary(0, 0, "kuzu_db", True).startswith("Put back the whole of kuzu_db")


def test_distinct_places_tell_two_agents_stores_apart():
    root = Path("/h")
    paths = [
        root / "hierarchical_memory/ops-agent/ladybug_db",
        root / "backups_copy/ops-agent/ladybug_db",
        root / "hierarchical_memory/support-bot/kuzu_db",
        root / "memory.db",
    ]
    assert distinct_places(paths, root) == [
        "hierarchical_memory/ops-agent/ladybug_db",
        "backups_copy/ops-agent/ladybug_db",
        "support-bot/kuzu_db",
        "memory.db",
    ]
    assert distinct_places([Path("/elsewhere/a/b")], root) == ["a/b"]
