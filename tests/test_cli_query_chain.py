"""`memexplorer query` and `memexplorer chain` through the CLI, on the reference stores."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest
from store_helpers import checksums, held_by_another_process

from memexplorer.cli.main import main

OPS_FOLDER = "home/.amplihack/hierarchical_memory/ops-agent"
BILL = [
    "6d90ea34-a13d-456d-b85a-68ad63f4478b",
    "b69a9cc5-eadd-48c7-97b7-a4bd347655f2",
    "0df13a7c-5a92-416b-93df-7865ff29e8ac",
    "316e2f5c-f32b-43da-9d82-04647eb51c68",
    "9a42effa-944f-4391-b933-039e63a4a2ea",
]


def test_query_json_is_the_library_profiles_answer(reference_stores, capsys, expected_retrieval):
    """Each ops-agent reference query: the CLI's JSON holds exactly the nodes the
    reference library retrieved, in its order, and its edges (expected_retrieval.json,
    not memexplorer's own engine); each node comes with a reason."""
    home = reference_stores / "home" / ".amplihack"
    before = checksums(reference_stores / "home")
    for case in expected_retrieval["agents"]["ops-agent"]:
        assert main(["query", "ops-agent", case["query"], "--home", str(home), "--json"]) == 0
        answer = json.loads(capsys.readouterr().out)
        assert (answer["agent"], answer["query"], answer["profile"]) == (
            "ops-agent", case["query"], "library"
        )  # fmt: skip
        assert [n["node_id"] for n in answer["nodes"]] == case["node_ids"], case["query"]
        edges = {(e["source_id"], e["target_id"], e["relationship"]) for e in answer["edges"]}
        assert {tuple(edge) for edge in case["edges"]} == edges, case["query"]
        assert "missed" not in answer
    assert main(["query", "ops-agent", "checkout-api replicas", "--home", str(home), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["context"].startswith("Knowledge graph context for: checkout-api replicas\n")
    assert all(node["retrieved_because"] for node in payload["nodes"])
    kinds = {r["kind"] for node in payload["nodes"] for r in node["retrieved_because"]}
    assert "keyword" in kinds
    args = ["query", "ops-agent", "checkout-api replicas", "--home", str(home), "--json"]
    assert main([*args, "--profile", "ranked"]) == 0  # chain positions are ranked's
    ranked = json.loads(capsys.readouterr().out)["nodes"]
    assert any(n["chain_position"].endswith("current") for n in ranked)
    assert checksums(reference_stores / "home") == before


def test_query_plain_output_and_max_nodes(reference_stores, capsys):
    store = reference_stores / OPS_FOLDER / "kuzu_db"
    args = ["query", "ops-agent", "aws bill", "--store", str(store), "--max-nodes", "3"]
    assert main([*args, "--profile", "ranked"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "profile: ranked"
    assert "3 nodes" in out.splitlines()[1]
    assert "why: keyword match: aws, bill" in out
    assert "chain 3/3, current" in out and BILL[-1] in out  # positions among the nodes shown


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["query", "ghost-agent", "x"], "No HierarchicalMemory store for agent ghost-agent"),
        (["query", "ops-agent", "x", "--store", "shared_two_agents"], "has no memories"),
        (["query", "ops-agent", "x", "--store", "cognitive_db"], "not a HierarchicalMemory"),
        (["query", "ops-agent", "x", "--store", "nowhere"], "No such store"),
        (["query", "bad/agent", "x"], "Invalid agent name"),
        (
            ["query", "ops-agent", "x", "--store", "home", "--profile", "python"],
            "Unknown retrieval profile",
        ),
        (["query", "ops-agent", "x", "--store", "home", "--max-nodes", "0"], "--max-nodes"),
        (["chain", "ops-agent", "--store", "home"], "exactly one"),
        (["chain", "ops-agent", BILL[0], "--entity", "aws", "--store", "home"], "exactly one"),
        (["chain", "ops-agent", "no-such-fact", "--store", "home"], "no fact with id"),
        (["chain", "ops-agent", "--entity", "zebra", "--store", "home"], "no facts about"),
        (["chain", "ghost-agent", "--entity", "aws", "--store", "home"], "No HierarchicalMemory"),
    ],
)
def test_bad_input_exits_2(reference_stores, capsys, args, message):
    args = [a if a not in ("shared_two_agents", "cognitive_db", "nowhere", "home") else
            str(reference_stores / a) for a in args]  # fmt: skip
    if "--store" not in args:
        args += ["--home", str(reference_stores / "home" / ".amplihack")]
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_explain_json_names_the_step_that_cut_each_missed_fact(reference_stores, capsys):
    store = reference_stores / OPS_FOLDER
    args = ["query", "ops-agent", "Who owns checkout-api?", "--store", str(store)]
    assert main([*args, "--explain", "--json", "--max-nodes", "5"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["nodes"] == []  # "checkout-api?" keeps its question mark in the library
    assert len(payload["missed"]) == 5
    for missed in payload["missed"]:
        assert missed["cut_by"] == "keywords"
        assert "'checkout-api?' cannot match because of attached punctuation" in missed["reason"]
        assert missed["steps"][0]["step"] == "keywords"


@pytest.mark.parametrize("profile", ["library", "amplihack-rs", "ranked"])
@pytest.mark.parametrize(
    "text",
    ["", "   ", "the of and", "?!.,", "MATCH (n) DETACH DELETE n", "' OR 1=1 --", 'a "b" \\ c',
     "x" * 10000],
)  # fmt: skip
def test_bad_queries_give_the_profiles_answer_not_an_error(reference_stores, capsys, profile, text):
    store = reference_stores / OPS_FOLDER
    args = ["query", "ops-agent", text, "--store", str(store), "--profile", profile]
    assert main([*args, "--json", "--explain"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["query"] == text and payload["profile"] == profile
    if not text.strip():
        assert payload["nodes"] == [] and payload["missed"] == []


def test_locked_store_exits_3(reference_stores):
    store = reference_stores / OPS_FOLDER / "kuzu_db"
    with held_by_another_process(store, "rw"):
        for command in (["query", "ops-agent", "aws"], ["chain", "ops-agent", BILL[0]]):
            result = subprocess.run(
                [sys.executable, "-m", "memexplorer", *command, "--store", str(store)],
                capture_output=True, text=True,
            )  # fmt: skip
            assert result.returncode == 3, result.stderr
            assert "Store is in use" in result.stderr


def test_chain_json_of_a_fact(reference_stores, capsys):
    home = reference_stores / "home"
    assert main(["chain", "ops-agent", BILL[3], "--store", str(home), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    [chain] = payload["chains"]
    assert [s["memory_id"] for s in chain["steps"]] == BILL
    assert chain["length"] == 5 and chain["stored_edges"] == 10
    assert [s["current"] for s in chain["steps"]] == [False, False, False, False, True]
    assert chain["steps"][1]["previous_value"] == "41200" and chain["steps"][1]["value"] == "45500"


def test_chain_plain_output_of_an_entity(reference_stores, capsys):
    store = reference_stores / "home/.amplihack/hierarchical_memory/support-bot"
    assert main(["chain", "support-bot", "--entity", "Acme Corp", "--store", str(store)]) == 0
    out = capsys.readouterr().out
    assert "[Acme Corp seats] 4 facts, oldest first (6 chain edges" in out
    lines = [line for line in out.splitlines() if line.strip().startswith(("1.", "2.", "3.", "4."))]
    assert [line.split()[2:5] for line in lines][1:] == [
        ["50", "->", "75"], ["75", "->", "120"], ["120", "->", "200"],
    ]  # fmt: skip
    assert out.count("· current") == 1


def test_unknown_entity_lists_the_known_ones(reference_stores, capsys):
    """The known names come from the reference library's own export of ops-agent
    (its entity_name fields, most facts first), not from memexplorer."""
    export = json.loads((reference_stores / "exports/ops-agent.export_to_json.json").read_text())
    counts = Counter((node.get("entity_name") or "").lower() for node in export["semantic_nodes"])
    counts.pop("", None)
    store = str(reference_stores / "home")
    assert main(["chain", "ops-agent", "--entity", "zebra", "--store", store]) == 2
    err = capsys.readouterr().err
    assert "Known entities of ops-agent: " in err
    listed = err.split("Known entities of ops-agent: ", 1)[1].split(".")[0]
    names = listed.split(" and ")[0].split(", ")
    # ties are broken by name; the counts shown must be non-increasing and complete
    assert set(names) <= set(counts) and len(names) == min(20, len(counts))
    assert [counts[n] for n in names] == sorted((counts[n] for n in names), reverse=True)
    assert names[:2] == ["aws", "slo"]
    assert f"and {len(counts) - 20} more" in err
