"""The amplihack-rs SQLite reference home is what its MANIFEST says: bytes, modes, schema."""

from __future__ import annotations

import hashlib
import sqlite3

#: The table and index names of amplihack-rs's schema.rs, typed here by hand.
RUST_TABLES = {"semantic_memories", "episodic_memories", "similar_to_edges",
               "derives_from_edges", "supersedes_edges", "transitioned_to_edges"}  # fmt: skip
RUST_INDEXES = {
    "idx_semantic_agent", "idx_semantic_concept", "idx_semantic_created", "idx_episodic_agent",
    "idx_episodic_source", "idx_episodic_created", "idx_similar_source", "idx_similar_target",
    "idx_derives_source", "idx_derives_target", "idx_supersedes_source", "idx_supersedes_target",
    "idx_transitioned_source", "idx_transitioned_target",
}  # fmt: skip


def test_files_modes_and_schema_match_the_manifest(rust_sqlite_home, rust_sqlite_manifest):
    folder = rust_sqlite_home / "home/.amplihack/hierarchical_memory"
    assert oct(folder.stat().st_mode & 0o777) == rust_sqlite_manifest["hierarchical_memory_mode"]
    assert rust_sqlite_manifest["hierarchical_memory_mode"] == "0o700"
    assert len(rust_sqlite_manifest["databases"]) == 4
    for name, entry in rust_sqlite_manifest["databases"].items():
        path = rust_sqlite_home / name
        assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"]
        assert oct(path.stat().st_mode & 0o777) == entry["mode"] == "0o600"
        with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True) as conn:
            kinds = dict(conn.execute("SELECT name, type FROM sqlite_master"))
        assert {n for n, t in kinds.items() if t == "table"} >= RUST_TABLES
        assert {n for n, t in kinds.items() if t == "index" and n.startswith("idx_")} == (
            RUST_INDEXES
        )
