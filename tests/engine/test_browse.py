"""Browsing: an agent's tables with counts, lazy pages (order, filter, honest counts),
one node with its edges; every store kind, read-only."""

from __future__ import annotations

import pytest
from store_helpers import checksums

from memexplorer.operator.browse import PageQuery, open_browser
from memexplorer.storage.exceptions import InvalidInputError

OPS = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"


@pytest.fixture
def ops(reference_stores):
    browser = open_browser(reference_stores / OPS)
    yield browser
    browser.close()


def test_tables_count_the_agents_rows(ops, manifest):
    expected = manifest["databases"][OPS]["inventory"]
    tables = {t.name: t for t in ops.tables("ops-agent")}
    for name, info in expected["node_tables"].items():
        assert tables[name].count == info["per_agent"]["ops-agent"]
        assert tables[name].kind == "node" and tables[name].primary_key == "memory_id"
    for name, info in expected["rel_tables"].items():
        assert tables[name].count == info["per_agent_of_source"]["ops-agent"]
        assert tables[name].column_names[:2] == ["_from", "_to"]
    assert ops.agents() == ["ops-agent"]


def test_pages_sort_and_filter(ops):
    facts = next(t for t in ops.tables("ops-agent") if t.name == "SemanticMemory")
    first = ops.page(facts, "ops-agent", PageQuery(limit=10, sort="confidence"))
    assert first.describe() == "1–10 of 84"
    values = first.data.column("confidence").to_pylist()
    assert values == sorted(values)
    last = ops.page(facts, "ops-agent", PageQuery(offset=80, limit=10, sort="confidence"))
    assert last.describe() == "81–84 of 84" and last.data.num_rows == 4
    assert min(last.data.column("confidence").to_pylist()) >= max(values)
    down = ops.page(facts, "ops-agent", PageQuery(limit=84, sort="created_at", descending=True))
    stamps = down.data.column("created_at").to_pylist()
    assert stamps == sorted(stamps, reverse=True)
    hits = ops.page(facts, "ops-agent", PageQuery(limit=100, text="REPLICA"))
    assert hits.total == hits.data.num_rows > 0
    for row in hits.data.to_pylist():
        assert any("replica" in str(v).lower() for v in row.values())
    none = ops.page(facts, "ops-agent", PageQuery(text="no such words anywhere"))
    assert none.describe() == "no rows matching 'no such words anywhere'"
    with pytest.raises(InvalidInputError, match="no column"):
        ops.page(facts, "ops-agent", PageQuery(sort="nope"))


def test_rel_pages_name_both_ends(ops):
    supersedes = next(t for t in ops.tables("ops-agent") if t.name == "SUPERSEDES")
    page = ops.page(supersedes, "ops-agent", PageQuery(limit=50, sort="_from"))
    assert page.total == 21
    row = page.data.to_pylist()[0]
    assert set(row) == {"_from", "_to", "reason", "temporal_delta"}
    detail = ops.node("SemanticMemory", row["_to"])
    assert ("SUPERSEDES", "in") in detail.edges
    assert any(f.startswith("superseded by") for f in detail.flags)


def test_node_detail_groups_edges_and_links_the_source_episode(ops):
    derives = next(t for t in ops.tables("ops-agent") if t.name == "DERIVES_FROM")
    edge = ops.page(derives, "ops-agent", PageQuery(limit=1)).data.to_pylist()[0]
    fact = ops.node("SemanticMemory", edge["_from"])
    episode_edge = fact.edges[("DERIVES_FROM", "out")][0]
    assert episode_edge.neighbour_table == "EpisodicMemory"
    assert episode_edge.neighbour_key == edge["_to"]
    assert episode_edge.properties["extraction_method"]
    episode = ops.node("EpisodicMemory", edge["_to"])
    derived = {e.neighbour_key for e in episode.edges[("DERIVES_FROM", "in")]}
    assert edge["_from"] in derived
    with pytest.raises(InvalidInputError, match="No SemanticMemory node"):
        ops.node("SemanticMemory", "no-such-id")


def test_orphans_are_flagged(ops):
    facts = next(t for t in ops.tables("ops-agent") if t.name == "SemanticMemory")
    rows = ops.page(facts, "ops-agent", PageQuery(limit=100)).data.to_pylist()
    episodes = {
        r["memory_id"]
        for r in ops.page(
            next(t for t in ops.tables("ops-agent") if t.name == "EpisodicMemory"),
            "ops-agent",
            PageQuery(limit=100),
        ).data.to_pylist()
    }
    orphans = [r for r in rows if r["source_id"] and r["source_id"] not in episodes]
    for row in orphans:
        assert any("orphan" in f for f in ops.node("SemanticMemory", row["memory_id"]).flags)
    linked = [r for r in rows if r["source_id"] in episodes]
    assert not any("orphan" in f for f in ops.node("SemanticMemory", linked[0]["memory_id"]).flags)


@pytest.mark.parametrize(
    ("store", "agent", "table"),
    [
        ("cognitive_db", None, "SemanticMemory"),
        ("home/.amplihack/memory/ops-agent/experiences.db", "ops-agent", "experiences"),
        ("home/.amplihack/memory/ops-agent/kuzu_db", "ops-agent", "Experience"),
        ("shared_two_agents/kuzu_db", "triage-bot", "SemanticMemory"),
    ],
)
def test_every_store_kind_browses_read_only(reference_stores, store, agent, table):
    path = reference_stores / store
    before = checksums(path)
    browser = open_browser(path)
    try:
        agent = agent or browser.agents()[0]
        info = next(t for t in browser.tables(agent) if t.name == table)
        page = browser.page(info, agent, PageQuery(limit=5))
        assert page.total == info.count > 0
        assert page.data.num_rows == min(5, info.count)
        if info.primary_key:
            key = page.data.column(info.primary_key)[0].as_py()
            assert browser.node(table, str(key)).properties[info.primary_key] == key
            # The keys a filter shows are those of its pages, all of them at once.
            word = next(str(v).split()[0] for v in page.data.to_pylist()[0].values()
                        if isinstance(v, str) and v.strip())  # fmt: skip
            shown = browser.page(info, agent, PageQuery(limit=info.count, text=word))
            keys = browser.matching_keys(info, agent, word)
            assert sorted(keys) == sorted(str(k) for k in shown.data.column(info.primary_key))
            assert len(keys) == shown.total > 0
            assert len(browser.matching_keys(info, agent, "")) == info.count
    finally:
        browser.close()
    assert checksums(path) == before
