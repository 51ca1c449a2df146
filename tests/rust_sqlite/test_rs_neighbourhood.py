"""The graph view's neighbourhoods in amplihack-rs's SQLite store, worked out by hand
from the fixture's content (rust_sqlite_content.py, ops-agent)."""

from __future__ import annotations

from memexplorer.operator.browse import open_browser
from memexplorer.operator.neighbourhood import View
from memexplorer.operator.rs_sqlite_neighbourhood import RsNeighbourhoodReader

from .rust_reference import FOLDER

S, E = "semantic_memories:", "episodic_memories:"


def test_an_episode_two_hops_out(rust_sqlite_home):
    browser = open_browser(rust_sqlite_home / FOLDER / "ops-agent.db")
    try:
        reader = RsNeighbourhoodReader(browser)
        near = reader.read("episodic_memories", "ops-ep-2", View(depth=1))
        # ops-f-2 and ops-rep-3 were derived from the disk-pressure episode.
        assert set(near.nodes) == {E + "ops-ep-2", S + "ops-f-2", S + "ops-rep-3"}
        assert {(e.rel, e.source, e.target, e.weight) for e in near.edges.values()} == {
            ("DERIVES_FROM", S + "ops-f-2", E + "ops-ep-2", 0.9),
            ("DERIVES_FROM", S + "ops-rep-3", E + "ops-ep-2", 0.75),
        }  # fmt: skip
        far = reader.read("episodic_memories", "ops-ep-2", View(depth=2))
        # Second hop: ops-rep-3 -SIMILAR_TO 0.55-> ops-f-2, and it replaced ops-rep-2
        # (SUPERSEDES and TRANSITIONED_TO).
        assert set(far.nodes) == set(near.nodes) | {S + "ops-rep-2"}
        assert sorted(e.rel for e in far.edges.values()) == [
            "DERIVES_FROM", "DERIVES_FROM", "SIMILAR_TO", "SUPERSEDES", "TRANSITIONED_TO"
        ]  # fmt: skip
        assert far.nodes[E + "ops-ep-2"].degree == 2
        assert far.nodes[S + "ops-rep-3"].degree == 4  # 2 chain edges, similar, derives: all out
    finally:
        browser.close()
