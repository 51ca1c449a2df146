"""A clean killed after its transaction committed, before kuzu checkpointed it.

kuzu 0.11.3 replays such a transaction from its log on the next open, and its
replay of DETACH DELETE leaves the edges of the deleted nodes behind, pointing at
nodes that are gone (measured: 999 edges among 666 nodes where 668 are right).
So the store must come back with exactly the edges the reference library's own
export says survive: every edge with neither end among the cleaned facts.
"""

from __future__ import annotations

import json
import subprocess
import sys

import kuzu

HIER = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
EXPORT = "exports/ops-agent.export_to_json.json"
RELS = {"similar_to_edges": "SIMILAR_TO", "supersedes_edges": "SUPERSEDES",
        "derives_from_edges": "DERIVES_FROM"}  # fmt: skip
#: Its three facts have six SIMILAR_TO edges coming in from facts left in place.
CONCEPT = "cluster versions"

#: The CLI, ended the moment clean's delete has committed: no close, no checkpoint.
KILLED_AFTER_COMMIT = r"""
import os, sys
import memexplorer.operator.clean as clean

delete = clean.delete_graph_plan

def delete_then_die(graph, plan):
    delete(graph, plan)
    os._exit(9)

clean.delete_graph_plan = delete_then_die
from memexplorer.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _surviving_edges(export: dict) -> dict[str, int]:
    chosen = {n["memory_id"] for n in export["semantic_nodes"] if n["concept"] == CONCEPT}
    return {
        rel: sum(1 for e in export[key] if not {e["source_id"], e["target_id"]} & chosen)
        for key, rel in RELS.items()
    }


def test_a_clean_killed_after_its_commit_leaves_no_edge_of_a_deleted_fact(reference_stores):
    store = reference_stores / HIER
    expected = _surviving_edges(json.loads((reference_stores / EXPORT).read_text()))
    home = reference_stores / "home/.amplihack"
    run = subprocess.run(
        [sys.executable, "-c", KILLED_AFTER_COMMIT, "clean", CONCEPT, "--store", str(store),
         "--home", str(home), "--no-dry-run", "--yes"],
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert run.returncode == 9, run.stderr
    assert store.with_name(store.name + ".wal").exists()  # the commit is only in the log
    db = kuzu.Database(str(store), read_only=True)
    try:
        conn = kuzu.Connection(db)
        facts = conn.execute("MATCH (n:SemanticMemory {concept: $c}) RETURN count(n)",
                             {"c": CONCEPT}).get_next()[0]  # fmt: skip
        found = {
            rel: conn.execute(f"MATCH ()-[r:{rel}]->() RETURN count(r)").get_next()[0]
            for rel in RELS.values()
        }
    finally:
        db.close()
    assert facts == 0
    assert found == expected
