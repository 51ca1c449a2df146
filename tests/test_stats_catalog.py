"""`memexplorer stats` asks each store's catalog once and loads only what its stores
need (issue 17: the whole process under 0.25 s on the demo home).

Expected tables, pairs, columns and counts come from the reference library's
MANIFEST.json (tests/fixtures), not from memexplorer."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from memexplorer.storage.cached_catalog import CachedCatalog
from memexplorer.storage.graph_counts import agent_counts
from memexplorer.storage.graph_open import open_graph_store

OPS = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"


def _counting(store: Any) -> Counter[str]:
    """Count every query the store runs (catalog calls go through ``rows`` too)."""
    asked: Counter[str] = Counter()
    run = store.rows

    def rows(cypher: str, params: dict[str, Any] | None = None, **kw: Any) -> list[list[Any]]:
        asked[cypher] += 1
        return run(cypher, params, **kw)

    store.rows = rows
    return asked


def test_the_catalog_is_the_store_s_and_each_call_reaches_the_engine_once(
    reference_stores: Path, manifest: dict
):
    inventory = manifest["databases"][OPS]["inventory"]
    with open_graph_store(reference_stores / OPS, read_only=True) as store:
        asked = _counting(store)
        graph = CachedCatalog(store)
        for _ in range(2):
            assert graph.node_tables() == sorted(inventory["node_tables"])
            rels = graph.rel_tables()
            assert {n: [list(p) for p in r.pairs] for n, r in rels.items()} == {
                n: rel["from_to"] for n, rel in inventory["rel_tables"].items()
            }
            for table, node in inventory["node_tables"].items():
                assert [list(c) for c in graph.columns(table)] == node["columns"]
            assert graph.has_table("SemanticMemory") and not graph.has_table("Session")
    assert asked["CALL show_tables() RETURN *"] == 1
    catalog = [q for q in asked if q.startswith("CALL")]
    assert len(catalog) == 1 + len(inventory["rel_tables"]) + len(inventory["node_tables"])
    assert all(asked[q] == 1 for q in catalog)


def test_counts_by_agent_ask_no_size_the_counts_by_agent_gave(
    reference_stores: Path, manifest: dict
):
    inventory = manifest["databases"][OPS]["inventory"]
    with open_graph_store(reference_stores / OPS, read_only=True) as store:
        asked = _counting(store)
        counts = agent_counts(CachedCatalog(store))
    expected: dict[str, dict[str, int]] = {}
    for table, node in inventory["node_tables"].items():
        for agent, count in node["per_agent"].items():
            expected.setdefault(agent, {})[table] = count
    for table, rel in inventory["rel_tables"].items():
        for agent, count in rel["per_agent_of_source"].items():
            expected.setdefault(agent, {})[table] = count
    assert counts == expected
    # Both node tables were counted by agent: their sizes are known without count(*).
    assert not [q for q in asked if q.endswith("RETURN count(*)")]


def test_a_store_open_for_writing_keeps_no_catalog(reference_stores: Path):
    with (
        open_graph_store(reference_stores / OPS, read_only=False) as store,
        pytest.raises(ValueError, match="read-only"),
    ):
        CachedCatalog(store)


LOADED = """
import contextlib, io, json, sys
from memexplorer.cli.main import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""

#: What a home of Kuzu and SQLite stores never needs: the LadybugDB driver and its
#: worker process, the stores read from a private copy, and the engine cache
#: (stores the pinned kuzu reads whole need no other release).
NOT_FOR_KUZU = {
    "memexplorer.storage.ladybug_store",
    "memexplorer.storage.ladybug_worker",
    "memexplorer.storage.worker_process",
    "memexplorer.storage.log_copy_stores",
    "memexplorer.storage.engine_cache",
    "importlib.metadata",
    "venv",
}


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_stats_on_kuzu_and_sqlite_stores_loads_no_ladybug_driver(
    reference_stores: Path, json_flag: list[str]
):
    home = reference_stores / "home" / ".amplihack"
    assert list(home.rglob("experiences.db")) and list(home.rglob("kuzu_db"))
    result = subprocess.run(
        [sys.executable, "-c", LOADED, "stats", str(home), *json_flag],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    found = json.loads(result.stdout.strip().splitlines()[-1])
    assert found["code"] == 0
    assert "memexplorer.memory.inspection" in found["modules"]
    assert NOT_FOR_KUZU & set(found["modules"]) == set()
    # Emoji codes stay text (output_console), so rich never loads its emoji table.
    assert "rich._emoji_codes" not in found["modules"]
