"""`memexplorer correct` with the input an operator gets wrong: a concept of blanks
or another concept, escape sequences in the content, an undo record that is
damaged, a backup folder given from another working folder or for a store that
is gone. Each ends in a clear message (never a traceback) and writes nothing it
should not.

Expected values are worked out from amplihack-memory-lib's code (4ae0813,
``hierarchical_memory.py``): ``_detect_supersedes`` takes ``concept.split()[0]``
inside its ``try`` (l.655), so a concept of blanks raises IndexError there and
the handler (l.704) ends the step with nothing superseded, while the node and
its SIMILAR_TO edges are still written; its candidate query keeps only facts
whose concept contains the new concept's first word (or is contained in it).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from memexplorer.cli.main import main

from .store_dump import dump_store

OPS = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
HOME = "home/.amplihack"
#: checkout-api runs 7 replicas in production (temporal_index 3 of 4).
SEVEN = "9972a55b-1911-4f43-95c3-0e10251a1335"
EIGHT = "checkout-api runs 8 replicas in production"


def _correct(root: Path, *more: str) -> list[str]:
    return ["correct", "ops-agent", SEVEN, "--content", EIGHT, "--home", str(root / HOME), *more]


def _plan(root: Path, capsys, *more: str) -> dict:
    assert main(_correct(root, "--json", *more)) == 0
    return json.loads(capsys.readouterr().out)["plan"]


def test_a_concept_of_blanks_supersedes_nothing_as_in_the_library(reference_stores, capsys):
    before = dump_store(reference_stores / OPS)
    plan = _plan(reference_stores, capsys, "--concept", "   ")
    assert plan["node"]["concept"] == "   "
    assert [e["rel"] for e in plan["edges"] if e["rel"] != "SIMILAR_TO"] == []
    assert plan["supersedes_old"] is False and "only blanks" in plan["note"]
    assert dump_store(reference_stores / OPS) == before


def test_another_concept_says_why_the_old_fact_stays_current(reference_stores, capsys):
    # "billing" is in no concept of the four replica facts: no candidate, no SUPERSEDES.
    plan = _plan(reference_stores, capsys, "--concept", "billing totals")
    assert not any(e["rel"] == "SUPERSEDES" for e in plan["edges"])
    assert "concept changed" in plan["note"] and "'billing totals'" in plan["note"]
    # "checkout-api" is in the old concept, so the replica facts are candidates; but
    # the new concept has no indexed fact, so the correction gets temporal_index 1,
    # not above the old fact's 3, and the library skips it (l.673: old >= new).
    plan = _plan(reference_stores, capsys, "--concept", "checkout-api sizing")
    assert plan["call"]["temporal_metadata"] == {"temporal_index": 1}
    assert not any(e["rel"] == "SUPERSEDES" for e in plan["edges"])
    assert (
        "temporal_index (1, the next of its concept) is not above the old fact's (3)"
        in (plan["note"])
    )


def test_escape_sequences_in_content_never_reach_the_terminal(reference_stores, capsys):
    content = "runs \x1b[2J8\x1b]0;title\x07 replicas \u202eRTL"
    args = _correct(reference_stores, "--yes", "--concept", "ops \x1b[31mred")
    args[args.index(EIGHT)] = content
    assert main(args) == 0
    out = capsys.readouterr().out
    for raw in ("\x1b", "\x07", "\u202e"):
        assert raw not in out
    assert "runs \\x1b[2J8\\x1b]0;title\\x07 replicas \\u202eRTL" in out
    assert "[ops \\x1b[31mred]" in out
    # The store keeps what the operator typed, byte for byte.
    nodes, _ = dump_store(reference_stores / OPS)
    assert [n["concept"] for n in nodes.values() if n["content"] == content] == ["ops \x1b[31mred"]


def _written_backup(root: Path, capsys) -> Path:
    assert main(_correct(root, "--yes", "--json")) == 0
    return Path(json.loads(capsys.readouterr().out)["backup"])


def test_undo_from_another_working_folder(reference_stores, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(reference_stores)
    relative = ["correct", "ops-agent", SEVEN, "--content", EIGHT, "--home", HOME]
    before = dump_store(reference_stores / OPS)
    assert main([*relative, "--yes", "--json"]) == 0
    backup = Path(json.loads(capsys.readouterr().out)["backup"])
    assert backup.is_absolute()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["correct", "--undo", str(backup)]) == 0
    nodes, edges = dump_store(reference_stores / OPS)
    assert nodes == before[0] and sorted(edges) == sorted(before[1])


@pytest.mark.parametrize(
    "record",
    ["{bad", "{}", "[]", '{"plan": {"store": 1, "engine": "kuzu"}}', ""],
)
def test_a_damaged_undo_record_is_refused_clearly(reference_stores, capsys, record):
    backup = _written_backup(reference_stores, capsys)
    written = dump_store(reference_stores / OPS)
    (backup / "correction.json").write_text(record, encoding="utf-8")
    assert main(["correct", "--undo", str(backup)]) == 2
    err = capsys.readouterr().err
    assert "Cannot read the correction record" in err and "nothing was changed" in err
    assert "Traceback" not in err
    assert dump_store(reference_stores / OPS) == written


def test_undo_of_a_missing_folder_or_store(reference_stores, capsys, tmp_path):
    assert main(["correct", "--undo", str(tmp_path / "gone")]) == 2
    assert "No backup folder" in capsys.readouterr().err
    backup = _written_backup(reference_stores, capsys)
    shutil.move(reference_stores / OPS, tmp_path / "moved_kuzu_db")
    assert main(["correct", "--undo", str(backup)]) == 2
    err = capsys.readouterr().err
    assert "not there any more" in err and str(reference_stores / OPS) in err


def test_the_undo_record_is_never_left_half_written(reference_stores, capsys):
    backup = _written_backup(reference_stores, capsys)
    assert sorted(p.name for p in backup.iterdir() if p.name.startswith(".")) == []
    record = json.loads((backup / "correction.json").read_text(encoding="utf-8"))
    assert Path(record["plan"]["store"]).is_absolute()
    assert os.stat(backup / "correction.json").st_mode & 0o777 == 0o600


def test_a_crash_while_the_record_is_written_leaves_no_half_record(
    reference_stores, capsys, monkeypatch
):
    from memexplorer.operator import correct_write

    def dies_halfway(record, handle, **kwargs):
        handle.write(json.dumps(record)[:50])
        raise KeyboardInterrupt  # the process stopped while writing

    before = dump_store(reference_stores / OPS)
    monkeypatch.setattr(correct_write.json, "dump", dies_halfway)
    assert main(_correct(reference_stores, "--yes")) == 130  # stopped, as by ctrl+c
    monkeypatch.undo()
    capsys.readouterr()
    [backup] = (reference_stores / HOME / "backups").iterdir()
    assert not (backup / "correction.json").exists()
    assert dump_store(reference_stores / OPS) == before
    assert main(["correct", "--undo", str(backup)]) == 2
    assert "not the backup of a correction" in capsys.readouterr().err


def test_an_error_quoting_an_escape_sequence_shows_it_as_text(reference_stores, capsys):
    args = _correct(reference_stores)
    args[args.index(SEVEN)] = "no-such\x1b]0;title\x07-id"
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err
    assert "No fact no-such\\x1b]0;title\\x07-id" in err
    assert "\n" in err.rstrip("\n")  # the hint keeps its own line


def test_a_cognitive_memory_store_is_refused_clearly(reference_stores, capsys):
    """cognitive_db has a SemanticMemory table too, of other columns (node_id, no
    memory_id): correct names what is wrong instead of passing on the engine's error."""
    store = reference_stores / "cognitive_db"
    args = ["correct", "ops-agent", SEVEN, "--content", EIGHT, "--store", str(store)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: Not a memory store: This store is not a HierarchicalMemory")
    assert "memory_id" in err and "Binder" not in err


def test_the_fact_is_stamped_when_it_is_written_not_when_it_was_previewed(reference_stores):
    """The library stamps created_at = datetime.utcnow() inside store_knowledge (l.400):
    a preview left open for a while must not date the fact back to the preview."""
    import dataclasses
    from datetime import datetime

    from memexplorer.operator.correct_read import correction_request, plan_correction
    from memexplorer.operator.correct_write import correct_fact

    store = reference_stores / OPS
    wish = dataclasses.replace(
        correction_request("ops-agent", SEVEN, EIGHT), now_ns=1_600_000_000_000_000_000
    )  # 2020-09-13, long ago
    plan = plan_correction(store, wish)
    assert plan.node["created_at"].startswith("2020-09-13")
    started = datetime.utcnow().replace(microsecond=0)
    result = correct_fact(plan, wish, home=reference_stores / HOME)
    nodes, _ = dump_store(store)
    stored = datetime.fromisoformat(nodes[result.plan.node_id]["created_at"])
    assert started <= stored <= datetime.utcnow()
    record = json.loads((result.backup.path / "correction.json").read_text(encoding="utf-8"))
    assert record["plan"]["node"]["created_at"] == nodes[result.plan.node_id]["created_at"]


def test_the_old_value_again_says_it_only_stores_a_copy(reference_stores, capsys):
    owner = "0b62aff1-f0a3-417a-aa8f-f4e9e1482dc5"  # no number, no temporal_index
    args = ["correct", "ops-agent", owner, "--content",
            "Service checkout-api is owned by the Payments team", "--json",
            "--home", str(reference_stores / HOME)]  # fmt: skip
    assert main(args) == 0
    plan = json.loads(capsys.readouterr().out)["plan"]
    assert not any(e["rel"] == "SUPERSEDES" for e in plan["edges"])
    assert "only store a copy" in plan["note"]
    # The old value of a superseded fact again does supersede the newer values: the
    # note then names them (7 replicas over 3, 5 and 6; not over itself).
    args = _correct(reference_stores, "--json")
    args[args.index(EIGHT)] = "checkout-api runs 7 replicas in production"
    assert main(args) == 0
    plan = json.loads(capsys.readouterr().out)["plan"]
    assert sum(e["rel"] == "SUPERSEDES" for e in plan["edges"]) == 3
    assert plan["note"].startswith("The writer supersedes ") and "instead" in plan["note"]


def test_query_and_chain_print_a_corrected_escape_sequence_as_text(reference_stores, capsys):
    args = _correct(reference_stores, "--yes", "--json")
    args[args.index(EIGHT)] = "checkout-api runs \x1b[2J8\x1b]0;t\x07 replicas"
    assert main(args) == 0
    new = json.loads(capsys.readouterr().out)["plan"]["node"]["memory_id"]
    home = str(reference_stores / HOME)
    assert main(["query", "ops-agent", "replicas", "--home", home]) == 0
    assert main(["chain", "ops-agent", new, "--home", home]) == 0
    out = capsys.readouterr().out
    assert out.count("checkout-api runs \\x1b[2J8\\x1b]0;t\\x07 replicas") == 2
    assert "\x1b" not in out and "\x07" not in out
