"""`memexplorer grep` and the engine's find_text on the reference stores: every
matching fact, episode, experience and flat memory, counted independently from the
reference library's own exports and from the SQLite files read here with sqlite3."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from store_helpers import held_by_another_process

from memexplorer.cli.main import main
from memexplorer.operator import find as engine_find
from memexplorer.operator.find import find_text
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.progress import OperationCancelled, TaskControl

HOME = "home/.amplihack"


def _library_matches(reference: Path, agent: str, key: str, text: str) -> list[str]:
    """The memory ids of the library's export whose text fields contain ``text``."""
    data = json.loads((reference / f"exports/{agent}.export_to_json.json").read_text())
    found = []
    for node in data[key]:
        fields = [v if isinstance(v, str) else json.dumps(v) for k, v in node.items()
                  if k not in ("memory_id", "confidence")]  # fmt: skip
        if any(text in value.lower() for value in fields):
            found.append(node["memory_id"])
    return sorted(found)


def _digests(folder: Path) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}  # fmt: skip


@pytest.mark.parametrize("text", ["replica", "AWS", "payments"])
def test_grep_json_counts_every_fact_and_episode(reference_stores: Path, capsys, text) -> None:
    home = reference_stores / HOME
    before = _digests(reference_stores)
    assert main(["grep", text, str(home), "--json", "--all"]) == 0
    answer = json.loads(capsys.readouterr().out)
    groups = {(Path(g["store"]).relative_to(home).parts[1], g["agent"], g["table"]): g
              for g in answer["groups"] if "hierarchical_memory" in g["store"]}  # fmt: skip
    for agent in ("ops-agent", "research-agent", "support-bot"):
        for table, key in (("SemanticMemory", "semantic_nodes"),
                           ("EpisodicMemory", "episodic_nodes")):  # fmt: skip
            expected = _library_matches(reference_stores, agent, key, text.lower())
            group = groups.get((agent, agent, table))
            found = sorted(h["key"] for h in group["hits"]) if group else []
            assert found == expected, (agent, table)
            if group:
                assert group["total"] == len(expected)
                assert group["item"] == ("fact" if table == "SemanticMemory" else "episode")
    assert _digests(reference_stores) == before  # reading never changes a byte


def test_grep_finds_experiences_in_sqlite(reference_stores: Path, capsys) -> None:
    db = reference_stores / HOME / "memory/ops-agent/experiences.db"
    connection = sqlite3.connect(db)
    expected = sorted(row[0] for row in connection.execute(
        "SELECT experience_id FROM experiences WHERE lower(context) LIKE '%deploy%' "
        "OR lower(outcome) LIKE '%deploy%' OR lower(experience_type) LIKE '%deploy%' "
        "OR lower(tags) LIKE '%deploy%' OR lower(metadata) LIKE '%deploy%'"))  # fmt: skip
    connection.close()
    assert expected
    assert main(["grep", "Deploy", str(db), "--json", "--all"]) == 0
    [group] = json.loads(capsys.readouterr().out)["groups"]
    assert (group["item"], group["table"], group["agent"]) == ("experience", "experiences",
                                                               "ops-agent")  # fmt: skip
    assert sorted(h["key"] for h in group["hits"]) == expected


def test_grep_text_output_and_paging(reference_stores: Path, capsys) -> None:
    home = reference_stores / HOME
    expected = _library_matches(reference_stores, "ops-agent", "semantic_nodes", "service")
    assert len(expected) > 3
    assert main(["grep", "service", str(home / "hierarchical_memory/ops-agent"),
                 "--limit", "3"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert f"  {len(expected)} facts in SemanticMemory" in out
    assert f"    … {len(expected) - 3} more (--all shows every one)" in out
    assert sum(1 for line in out.splitlines() if line.startswith("    ") and
               line.strip().split()[0] in expected) == 3  # fmt: skip


def test_grep_errors_and_nothing_found(tmp_path: Path, capsys) -> None:
    assert main(["grep", "  ", str(tmp_path)]) == 2
    assert "no text to search for" in capsys.readouterr().err
    assert main(["grep", "x", str(tmp_path / "missing")]) == 2
    assert "Traceback" not in capsys.readouterr().err
    assert main(["grep", "nothing-like-this", str(tmp_path)]) == 0
    assert "No facts, episodes, experiences or memories" in capsys.readouterr().out


def test_a_cancel_stops_the_search(reference_stores: Path) -> None:
    control = TaskControl()
    found = []
    with pytest.raises(OperationCancelled):
        for group in find_text(reference_stores / HOME, "a", control=control):
            found.append(group)
            control.cancel()
    assert len(found) == 1


def test_text_is_a_parameter_never_query_text(reference_stores: Path) -> None:
    """Quotes and Cypher/SQL syntax are searched for as text, not run."""
    home = reference_stores / HOME
    for text in ("' OR 1=1 --", '") RETURN n //', "%_"):
        assert list(find_text(home, text)) == []


def test_a_locked_store_is_skipped_and_said(reference_stores: Path, capsys) -> None:
    """A store another process holds for writing cannot be read: grep says which and
    why on stderr (and in --json), and searches the other stores."""
    home = reference_stores / HOME
    locked = home / "hierarchical_memory/research-agent/kuzu_db"
    with held_by_another_process(locked, "rw"):
        assert main(["grep", "replicas", str(home), "--json"]) == 0
    captured = capsys.readouterr()
    answer = json.loads(captured.out)
    assert [s["store"] for s in answer["skipped"]] == [str(locked)]
    assert f"warning: {locked} was not searched: " in captured.err
    assert any("ops-agent" in g["store"] for g in answer["groups"])


def test_a_store_failing_mid_search_costs_only_its_results(reference_stores: Path,
                                                           monkeypatch) -> None:  # fmt: skip
    real = engine_find.count_matches

    def failing(browser, table, text):
        if "research-agent" in str(browser.path):
            raise InvalidInputError("this table cannot be read")
        return real(browser, table, text)

    monkeypatch.setattr(engine_find, "count_matches", failing)
    skipped: list = []
    groups = list(find_text(reference_stores / HOME, "replicas", skipped=skipped))
    assert [s.reason for s in skipped] == ["this table cannot be read"]
    assert "research-agent" in str(skipped[0].store)
    assert any("ops-agent" in str(g.store) for g in groups)
    with pytest.raises(InvalidInputError):  # without a list to say it in, it is raised
        list(find_text(reference_stores / HOME, "replicas"))


def test_ctrl_c_stops_grep_with_one_line_and_the_shells_code(
    reference_stores: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = engine_find.find_text

    def stopped_after_one_group(*args, **kwargs):
        for group in real(*args, **kwargs):
            yield group
            raise KeyboardInterrupt  # the operator's ctrl+c, while the next store is read

    monkeypatch.setattr(engine_find, "find_text", stopped_after_one_group)
    code = main(["grep", "checkout", str(reference_stores / HOME)])
    out, err = capsys.readouterr()
    assert code == 130
    assert err == "stopped (ctrl+c): memexplorer grep did not finish\n"
    assert "Traceback" not in out + err
    assert out.count(" in ") >= 1  # the group found before the stop was printed
