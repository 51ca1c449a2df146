"""Graph pages in one stable order and counts without a join, against Python's answer.

The store is written here row by row in a known order (a fresh table keeps rows
in the order they were written, with gaps where rows were deleted), so every
expected page is Python's sort of the rows written: by the sort column (None
after every value), then by the order written, descending the exact reverse.
Every page is checked, the ones past the middle (read from the other end) too.
"""

from __future__ import annotations

import os
from importlib.util import find_spec
from pathlib import Path

import pytest

from memexplorer.operator.browse import PageQuery, open_browser
from memexplorer.storage.graph_counts import agent_counts
from memexplorer.storage.graph_open import open_graph_store

ENGINES = [
    "kuzu",
    pytest.param(
        "ladybug",
        marks=pytest.mark.skipif(
            find_spec("ladybug") is None and not os.environ.get("CI"),
            reason="needs the ladybug extra: pip install 'memexplorer[ladybug]'",
        ),
    ),
]
SCHEMA = [
    "CREATE NODE TABLE Fact(id STRING, agent_id STRING, topic STRING, score DOUBLE, "
    "note STRING, PRIMARY KEY(id))",
    "CREATE REL TABLE LINK(FROM Fact TO Fact, weight DOUBLE)",
]
TOPICS = ["ports", "disk", None, "ports", "Alerts", "disk", "zone"]


def _facts() -> list[dict]:
    """61 facts written in this order; every fifth one is deleted afterwards."""
    facts = []
    for i in range(61):
        facts.append({
            "id": f"k{(i * 37) % 61:02d}",  # keys not in the written order
            "agent_id": "beta" if i % 4 == 3 else "alpha",
            "topic": TOPICS[i % 7],
            "score": None if i % 9 == 4 else float(i % 6),
            "note": f"note {i}" + (" has the NeedLe" if i % 3 == 0 else ""),
            "gone": i % 5 == 2,
        })  # fmt: skip
    return facts


def _links(kept: list[dict]) -> list[dict]:
    """Edges written in this order, between facts that stay."""
    return [
        {"from": a["id"], "to": kept[(i * 7 + 3) % len(kept)]["id"],
         "weight": None if i % 8 == 5 else (i % 4) * 0.5}
        for i, a in enumerate(kept)
    ]  # fmt: skip


def _build(path: Path, engine: str, agents: set[str]) -> tuple[list[dict], list[dict]]:
    facts = [f for f in _facts() if f["agent_id"] in agents]
    with open_graph_store(path, read_only=False, create=engine) as store:  # type: ignore[arg-type]
        for statement in SCHEMA:
            store.execute(statement)
        for fact in facts:
            store.execute(
                "CREATE (:Fact {id: $id, agent_id: $agent_id, topic: $topic, score: $score, "
                "note: $note})",
                {k: v for k, v in fact.items() if k != "gone"},
            )
        for fact in facts:
            if fact["gone"]:
                store.execute("MATCH (f:Fact) WHERE f.id = $id DELETE f", {"id": fact["id"]})
        kept = [f for f in facts if not f["gone"]]
        links = _links(kept)
        for link in links:
            store.execute(
                "MATCH (a:Fact), (b:Fact) WHERE a.id = $from AND b.id = $to "
                "CREATE (a)-[:LINK {weight: $weight}]->(b)",
                link,
            )
    return kept, links


def _sorted(rows: list[dict], column: str | None, descending: bool) -> list[dict]:
    """Python's order: the column with None last, then the order written."""
    ordered = [row for _, row in sorted(
        enumerate(rows),
        key=lambda p: (0, 0, p[0]) if column is None else
        (p[1][column] is None, p[1][column] if p[1][column] is not None else 0, p[0]),
    )]  # fmt: skip
    return ordered[::-1] if descending else ordered


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def store(engine: str, tmp_path: Path) -> tuple[Path, list[dict], list[dict]]:
    path = tmp_path / f"{engine}_db"
    return (path, *_build(path, engine, {"alpha", "beta"}))


SORTS = [(None, False), ("topic", False), ("topic", True), ("score", False), ("score", True)]


@pytest.mark.parametrize(("column", "descending"), SORTS)
@pytest.mark.parametrize(
    "agents", [{"alpha", "beta"}, {"alpha"}], ids=["shared", "one-agent"]
)  # one agent: the pages are read without testing the agent column
def test_every_node_page_is_pythons_answer(engine, tmp_path, agents, column, descending):
    path = tmp_path / "db"
    kept, _ = _build(path, engine, agents)
    expected = [f["id"] for f in _sorted([f for f in kept if f["agent_id"] == "alpha"],
                                         column, descending)]  # fmt: skip
    browser = open_browser(path)
    try:
        facts = next(t for t in browser.tables("alpha") if t.name == "Fact")
        assert facts.count == len(expected)
        shown = []
        for offset in range(0, len(expected) + 6, 6):
            query = PageQuery(offset=offset, limit=6, sort=column, descending=descending)
            page = browser.page(facts, "alpha", query)
            assert page.total == len(expected)
            keys = page.data.column("id").to_pylist()
            assert keys == expected[offset : offset + 6], offset
            shown += keys
        assert shown == expected
    finally:
        browser.close()


@pytest.mark.parametrize(("column", "descending"), SORTS)
def test_filtered_pages_are_pythons_answer(store, column, descending):
    path, kept, _ = store
    hits = [f for f in kept if f["agent_id"] == "alpha" and "needle" in f["note"].lower()]
    expected = [f["id"] for f in _sorted(hits, column, descending)]
    browser = open_browser(path)
    try:
        facts = next(t for t in browser.tables("alpha") if t.name == "Fact")
        for offset in (0, 4, 8):
            query = PageQuery(offset=offset, limit=4, sort=column, descending=descending,
                              text="nEEDle")  # fmt: skip
            page = browser.page(facts, "alpha", query)
            assert page.total == len(expected)
            assert page.data.column("id").to_pylist() == expected[offset : offset + 4]
            assert page.data.column_names == ["id", "agent_id", "topic", "score", "note"]
    finally:
        browser.close()


@pytest.mark.parametrize("descending", [False, True])
def test_sorted_rel_pages_are_pythons_answer(store, descending):
    path, kept, links = store
    agent_of = {f["id"]: f["agent_id"] for f in kept}
    own = [link for link in links if agent_of[link["from"]] == "alpha"]
    expected = [(x["from"], x["to"], x["weight"]) for x in _sorted(own, "weight", descending)]
    browser = open_browser(path)
    try:
        rel = next(t for t in browser.tables("alpha") if t.name == "LINK")
        assert rel.count == len(expected)
        for offset in range(0, len(expected), 5):
            query = PageQuery(offset=offset, limit=5, sort="weight", descending=descending)
            rows = browser.page(rel, "alpha", query).data.to_pylist()
            assert [(r["_from"], r["_to"], r["weight"]) for r in rows] == expected[
                offset : offset + 5
            ]
    finally:
        browser.close()


@pytest.mark.parametrize("agents", [{"alpha", "beta"}, {"alpha"}])
def test_counts_match_count_star(tmp_path: Path, engine: str, agents: set[str]):
    """Two agents in one table (counted by a join) and one (counted without)."""
    path = tmp_path / "db"
    kept, links = _build(path, engine, agents)
    agent_of = {f["id"]: f["agent_id"] for f in kept}
    with open_graph_store(path) as graph:
        counts = agent_counts(graph)
        for agent in agents:
            scanned = graph.scalar(
                "MATCH (a:Fact)-[r:LINK]->(:Fact) WHERE a.agent_id = $agent RETURN count(*)",
                {"agent": agent},
            )
            nodes = graph.scalar(
                "MATCH (n:Fact) WHERE n.agent_id = $agent RETURN count(*)", {"agent": agent}
            )
            assert counts[agent] == {"Fact": nodes, "LINK": scanned}
            python = sum(1 for link in links if agent_of[link["from"]] == agent)
            assert counts[agent] == {
                "Fact": sum(1 for f in kept if f["agent_id"] == agent),
                "LINK": python,
            }
    assert set(counts) == agents
