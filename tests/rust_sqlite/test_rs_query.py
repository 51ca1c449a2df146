"""`memexplorer query` on amplihack-rs's SQLite store: the agent's own (amplihack-rs)
retrieval, checked against answers worked out by hand from the fixture's content."""

from __future__ import annotations

import json

from memexplorer.cli.main import main

from .rust_reference import FOLDER


def test_query_on_a_sqlite_store_runs_the_rust_retrieval(rust_sqlite_home, capsys):
    store = rust_sqlite_home / FOLDER / "research-agent.db"
    before = store.read_bytes()
    assert main(["query", "research-agent", "RAG-Bench questions", "--store", str(store),
                 "--json"]) == 0  # fmt: skip
    answer = json.loads(capsys.readouterr().out)
    assert answer["profile"] == "amplihack-rs"
    # Keywords "RAG-Bench" (every fact holds it) and "questions" (res-f-1 only);
    # confidence first, ties in the order the import wrote the rows
    # (res-sota-1..4, then res-f-1..3): 0.9 sota-4, f-1, f-2; 0.7 f-3; 0.6 sota-1..3.
    assert [n["node_id"] for n in answer["nodes"]] == [
        "res-sota-4", "res-f-1", "res-f-2", "res-f-3", "res-sota-1", "res-sota-2", "res-sota-3",
    ]  # fmt: skip
    # Each seed's SIMILAR_TO neighbours either way at weight >= 0.3, heaviest first.
    assert [(e["source_id"], e["target_id"], e["weight"]) for e in answer["edges"]] == [
        ("res-f-1", "res-f-2", 0.6), ("res-f-2", "res-f-1", 0.6),
        ("res-f-2", "res-f-3", 0.3), ("res-f-3", "res-f-2", 0.3),
    ]  # fmt: skip
    assert store.read_bytes() == before


def test_similar_to_hops_bring_in_facts_no_keyword_found(rust_sqlite_home, capsys):
    store = rust_sqlite_home / FOLDER / "ops-agent.db"
    assert main(["query", "ops-agent", "cache", "--store", str(store), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    # "cache" is in ops-f-7 only; its SIMILAR_TO edge (0.37) reaches ops-f-6, whose
    # edges reach ops-f-1 (0.82) at the second hop.
    assert [n["node_id"] for n in answer["nodes"]] == ["ops-f-7", "ops-f-1", "ops-f-6"]
    reasons = {n["node_id"]: n["retrieved_because"][0]["kind"] for n in answer["nodes"]}
    assert reasons == {"ops-f-7": "keyword", "ops-f-6": "similar_to", "ops-f-1": "similar_to"}


def test_other_profiles_and_explain_say_what_to_do(rust_sqlite_home, capsys):
    store = str(rust_sqlite_home / FOLDER / "ops-agent.db")
    assert main(["query", "ops-agent", "cache", "--store", store, "--profile", "library"]) == 2
    assert "reads graph stores" in capsys.readouterr().err
    assert main(["query", "ops-agent", "cache", "--store", store, "--explain"]) == 2
    assert "memexplorer migrate" in capsys.readouterr().err
