"""Temporal chains in amplihack-rs's SQLite store. Expected values come from the
fixture's content (rust_sqlite_content.py's chains, read here as the Rust export)."""

from __future__ import annotations

import json

from memexplorer.operator.browse import open_browser
from memexplorer.operator.rs_sqlite_chains import rs_agent_chains, rs_fact_chain

from .rust_reference import FOLDER


def _chains_in_export(export: dict) -> list[list[str]]:
    """The export's TRANSITIONED_TO pairs joined into chains, oldest first (by hand:
    every chain in the fixture is a line, newer -> older)."""
    older = {e["source_id"]: e["target_id"] for e in export["transitioned_to_edges"]}
    newest = set(older) - set(older.values())
    chains = []
    for head in newest:
        line = [head]
        while line[-1] in older:
            line.append(older[line[-1]])
        chains.append(line[::-1])
    return sorted(chains, key=len, reverse=True)


def test_every_chain_of_every_agent(rust_sqlite_home):
    for agent in ("ops-agent", "research-agent", "support-bot"):
        export = json.loads((rust_sqlite_home / f"rust_exports/{agent}.json").read_text())
        expected = _chains_in_export(export)
        values = {e["source_id"]: e["from_value"] for e in export["transitioned_to_edges"]}
        values |= {e["target_id"]: e["to_value"] for e in export["transitioned_to_edges"]}
        browser = open_browser(rust_sqlite_home / FOLDER / f"{agent}.db")
        try:
            chains = rs_agent_chains(browser.connection, agent)
            assert [[s.memory_id for s in c.steps] for c in chains] == expected
            for chain in chains:
                assert [s.value for s in chain.steps] == [values[s.memory_id] for s in chain.steps]
                assert [s.current for s in chain.steps] == [False] * (len(chain.steps) - 1) + [True]
                assert chain.stored_edges == 2 * (len(chain.steps) - 1)
            lone = rs_fact_chain(
                browser.connection, agent, export["semantic_nodes"][0]["memory_id"]
            )
            assert len(lone.steps) >= 1
        finally:
            browser.close()


def test_a_facts_chain_and_a_fact_in_none(rust_sqlite_home):
    browser = open_browser(rust_sqlite_home / FOLDER / "research-agent.db")
    try:
        chain = rs_fact_chain(browser.connection, "research-agent", "res-sota-2")
        assert [s.value for s in chain.steps] == ["model A", "model B", "model C", "model D"]
        assert [s.memory_id for s in rs_fact_chain(browser.connection, "research-agent",
                                                   "res-f-1").steps] == ["res-f-1"]  # fmt: skip
    finally:
        browser.close()


def test_the_chain_command_on_a_sqlite_store(rust_sqlite_home, capsys, monkeypatch):
    from memexplorer.cli.main import main

    monkeypatch.setenv("HOME", str(rust_sqlite_home / "home"))
    monkeypatch.setenv("AMPLIHACK_MEMORY_BACKEND", "sqlite")
    assert main(["chain", "support-bot", "--entity", "PREMIUM plan", "--json"]) == 0
    (chain,) = json.loads(capsys.readouterr().out)["chains"]
    # rust_sqlite_content.py: the premium plan's response target went 4 hours -> 2 hours.
    assert [s["value"] for s in chain["steps"]] == ["4 hours", "2 hours"]
    assert chain["steps"][1]["reason"].startswith("contract renewal")
    assert main(["chain", "support-bot", "--entity", "nothing-here"]) == 2
    assert "premium plan" in capsys.readouterr().err
