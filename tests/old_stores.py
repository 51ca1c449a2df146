"""A store written by kuzu 0.10.1 itself (storage version 38, a folder), for the tests
of reading stores through the release that wrote them. The expected rows are the
ones these statements write: three facts of two agents, one SIMILAR_TO edge."""

from __future__ import annotations

import subprocess
from pathlib import Path

WRITE = """
import sys, kuzu
db = kuzu.Database(sys.argv[1]); conn = kuzu.Connection(db)
conn.execute("CREATE NODE TABLE SemanticMemory(memory_id STRING, agent_id STRING, "
             "content STRING, PRIMARY KEY(memory_id))")
conn.execute("CREATE REL TABLE SIMILAR_TO(FROM SemanticMemory TO SemanticMemory, weight DOUBLE)")
for i, agent in enumerate(["old-agent", "old-agent", "other-agent"]):
    conn.execute("CREATE (:SemanticMemory {memory_id: $m, agent_id: $a, content: $c})",
                 {"m": f"fact-{i}", "a": agent, "c": f"content {i}"})
conn.execute("MATCH (a:SemanticMemory {memory_id: 'fact-0'}), (b:SemanticMemory "
             "{memory_id: 'fact-1'}) CREATE (a)-[:SIMILAR_TO {weight: 0.5}]->(b)")
conn.close(); db.close()
"""


def write_kuzu_0101_store(cache: Path, path: Path) -> Path:
    """Write the store at ``path`` with the kuzu 0.10.1 installed in ``cache``."""
    python = cache / "kuzu-0.10.1" / "venv" / "bin" / "python"
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(python), "-c", WRITE, str(path)], check=True, timeout=120)
    return path
