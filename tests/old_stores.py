"""A store written by kuzu 0.10.1 itself (storage version 38, a folder), for the tests
of reading stores through the release that wrote them. The expected rows are the
ones these statements write: three facts of two agents, one SIMILAR_TO edge."""

from __future__ import annotations

import subprocess
from pathlib import Path

#: The reference library's HierarchicalMemory schema (as in
#: tests/fixtures/make_crashed_ladybug_store.py), then three facts and one edge.
WRITE = """
import sys, kuzu
db = kuzu.Database(sys.argv[1]); conn = kuzu.Connection(db)
for statement in [
    "CREATE NODE TABLE EpisodicMemory (memory_id STRING, content STRING, source_label STRING, "
    "agent_id STRING, tags STRING, metadata STRING, created_at STRING, PRIMARY KEY(memory_id))",
    "CREATE NODE TABLE SemanticMemory (memory_id STRING, concept STRING, content STRING, "
    "confidence DOUBLE, source_id STRING, agent_id STRING, tags STRING, metadata STRING, "
    "created_at STRING, entity_name STRING DEFAULT '', PRIMARY KEY(memory_id))",
    "CREATE REL TABLE DERIVES_FROM (FROM SemanticMemory TO EpisodicMemory, "
    "extraction_method STRING, confidence DOUBLE, MANY_MANY)",
    "CREATE REL TABLE SIMILAR_TO (FROM SemanticMemory TO SemanticMemory, weight DOUBLE, "
    "metadata STRING, MANY_MANY)",
    "CREATE REL TABLE SUPERSEDES (FROM SemanticMemory TO SemanticMemory, reason STRING, "
    "temporal_delta STRING, MANY_MANY)",
]:
    conn.execute(statement)
for i, agent in enumerate(["old-agent", "old-agent", "other-agent"]):
    conn.execute("CREATE (:SemanticMemory {memory_id: $m, concept: $k, content: $c, "
                 "confidence: 0.9, source_id: '', agent_id: $a, tags: '', metadata: '', "
                 "created_at: '2026-01-01T00:00:00'})",
                 {"m": f"fact-{i}", "k": f"concept {i}", "a": agent, "c": f"content {i}"})
conn.execute("MATCH (a:SemanticMemory {memory_id: 'fact-0'}), (b:SemanticMemory "
             "{memory_id: 'fact-1'}) CREATE (a)-[:SIMILAR_TO {weight: 0.5, metadata: ''}]->(b)")
conn.close(); db.close()
"""


def write_kuzu_0101_store(cache: Path, path: Path) -> Path:
    """Write the store at ``path`` with the kuzu 0.10.1 installed in ``cache``."""
    python = cache / "kuzu-0.10.1" / "venv" / "bin" / "python"
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(python), "-c", WRITE, str(path)], check=True, timeout=120)
    return path
