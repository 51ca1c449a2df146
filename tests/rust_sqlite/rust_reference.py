"""Reading a SQLite hierarchical store the way amplihack-rs does, for expected values:
the fixture's own reproduction of the Rust SQL (tests/fixtures/rust_sqlite_statements.py),
never memexplorer's engine."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))

import rust_sqlite_statements as rust

EDGE_KEYS = tuple(rust.INSERT_EDGES)
FOLDER = "home/.amplihack/hierarchical_memory"


def canonical(export: dict) -> dict:
    """An export with its node lists keyed by id and its edge lists as sorted
    multisets (the Rust loaders give no edge order), exported_at left out."""
    out = {key: {n["memory_id"]: n for n in export[key]}
           for key in ("semantic_nodes", "episodic_nodes")}  # fmt: skip
    for key in EDGE_KEYS:
        out[key] = sorted(json.dumps(e, sort_keys=True) for e in export[key])
    return out


def rust_export(db: Path, agent: str) -> dict:
    """What `amplihack memory export <agent>` returns for ``db`` (read-only copy of
    the Rust loaders; the file must already have the schema)."""
    uri = f"{db.as_uri()}?mode=ro"
    conn = sqlite3.connect(uri, uri=True)
    try:
        semantic = [dict(zip(("memory_id", "concept", "content", "confidence", "source_id",
                              "tags", "metadata", "created_at", "entity_name"), r, strict=True))
                    for r in conn.execute(rust.LOAD_SEMANTIC, (agent,))]  # fmt: skip
        episodic = [dict(zip(("memory_id", "content", "source_label", "tags", "metadata",
                              "created_at"), r, strict=True))
                    for r in conn.execute(rust.LOAD_EPISODIC, (agent,))]  # fmt: skip
        for node in semantic + episodic:
            node["tags"], node["metadata"] = rust._tags(node["tags"]), rust._meta(node["metadata"])
        data = {"semantic_nodes": semantic, "episodic_nodes": episodic}
        for key, sql in rust.LOAD_EDGES.items():
            names = ("source_id", "target_id", *rust.EDGE_FIELDS[key])
            rows = [dict(zip(names, r, strict=True)) for r in conn.execute(sql, (agent,))]
            for row in rows:
                if "metadata" in row:
                    row["metadata"] = rust._meta(row["metadata"])
            data[key] = rows
    finally:
        conn.close()
    return data


def raw_rows(db: Path, table: str, skip: tuple[str, ...] = ()) -> list[tuple]:
    """Every row of a table as stored, sorted, without the columns named in ``skip``."""
    conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    try:
        names = [c[1] for c in conn.execute(f"PRAGMA table_info({table})") if c[1] not in skip]
        return sorted(conn.execute(f"SELECT {', '.join(names)} FROM {table}").fetchall())
    finally:
        conn.close()
