"""A Kuzu store with a hub: one fact with 500 weighted edges, for the graph view's tests."""

from __future__ import annotations

from pathlib import Path

from memexplorer.storage.graphdb import KuzuStore

HUB = "hub"
HUB_EDGES = 500
#: Neighbours of the hub that have edges of their own (to "leaf-<i>-<j>").
BRANCHING = 3


def make_hub_store(path: Path, edges: int = HUB_EDGES) -> Path:
    """Fact "hub" linked to "n000".. by LINKS edges of weight i/1000 (odd ones point at
    the hub); every neighbour also has BRANCHING leaves; "quiet" has five unweighted
    edges to neighbours of ages 1..5 days, so only recency ranks them."""
    store = KuzuStore(path, read_only=False)
    store.execute(
        "CREATE NODE TABLE Fact(id STRING, agent_id STRING, concept STRING, content STRING, "
        "created_at STRING, PRIMARY KEY(id))"
    )
    store.execute("CREATE REL TABLE LINKS(FROM Fact TO Fact, weight DOUBLE)")
    facts = [{"id": HUB, "concept": "hub", "day": 1}, {"id": "quiet", "concept": "quiet", "day": 1}]
    facts += [{"id": f"n{i:03d}", "concept": f"neighbour {i}", "day": 1} for i in range(edges)]
    facts += [{"id": f"leaf-{i:03d}-{j}", "concept": f"leaf {i}.{j}", "day": 1}
              for i in range(edges) for j in range(BRANCHING)]  # fmt: skip
    facts += [{"id": f"q{d}", "concept": f"quiet neighbour {d}", "day": d} for d in range(1, 6)]
    store.execute(
        "UNWIND $facts AS f CREATE (:Fact {id: f.id, agent_id: 'a', concept: f.concept, "
        "content: 'fact ' + f.id, created_at: '2026-01-0' + string(f.day) + 'T00:00:00'})",
        {"facts": facts},
    )
    links = [{"a": HUB, "b": f"n{i:03d}", "w": i / 1000} if i % 2 == 0 else
             {"a": f"n{i:03d}", "b": HUB, "w": i / 1000} for i in range(edges)]  # fmt: skip
    links += [{"a": f"n{i:03d}", "b": f"leaf-{i:03d}-{j}", "w": j / 10}
              for i in range(edges) for j in range(BRANCHING)]  # fmt: skip
    store.execute(
        "UNWIND $links AS l MATCH (a:Fact {id: l.a}), (b:Fact {id: l.b}) "
        "CREATE (a)-[:LINKS {weight: l.w}]->(b)",
        {"links": links},
    )
    store.execute(
        "UNWIND $days AS d MATCH (a:Fact {id: 'quiet'}), (b:Fact {id: 'q' + string(d)}) "
        "CREATE (a)-[:LINKS]->(b)",
        {"days": list(range(1, 6))},
    )
    store.close()
    return path
