"""The import preview on amplihack-rs's SQLite store counts the file's edges the store
holds already: the Rust tool's own export of the store holds only edges that are in it
(rust_exports/, written by the fixture script), but one edge given a new target."""

from __future__ import annotations

import json

from memexplorer.operator.browse import open_browser
from memexplorer.operator.import_preview import read_preview

HOME = "home/.amplihack"


def test_edges_already_there_in_an_rs_store(rust_sqlite_home, tmp_path):
    export = json.loads((rust_sqlite_home / "rust_exports/ops-agent.json").read_text())
    edges = {name: len(rows) for name, rows in export.items() if name.endswith("_edges")}
    assert edges["similar_to_edges"] > 1
    fresh = {**export["semantic_nodes"][0], "memory_id": "not-in-the-store"}
    export["semantic_nodes"].append(fresh)
    export["similar_to_edges"][0]["target_id"] = fresh["memory_id"]
    source = tmp_path / "ops.json"
    source.write_text(json.dumps(export), encoding="utf-8")
    browser = open_browser(rust_sqlite_home / f"{HOME}/hierarchical_memory/ops-agent.db")
    try:
        preview = read_preview(source, browser, "ops-agent")
    finally:
        browser.close()
    assert preview.edges_there == {**edges, "similar_to_edges": edges["similar_to_edges"] - 1}
