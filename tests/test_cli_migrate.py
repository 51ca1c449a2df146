"""`memexplorer migrate`: a hierarchical store copied to a new store of the other engine
(Kuzu to LadybugDB and back) with every count checked; refusals write nothing."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest
from store_helpers import checksums

from memexplorer.cli.main import main
from memexplorer.memory.inspection import summarize_store
from memexplorer.operator.migrate import AgentCounts, migrate_store
from memexplorer.storage.exceptions import InvalidInputError, StoreNotFoundError
from memexplorer.storage.stores import sniff

pytestmark = pytest.mark.skipif(
    find_spec("ladybug") is None and not os.environ.get("CI"),
    reason="needs the ladybug extra: pip install 'memexplorer[ladybug]'",
)

HIERARCHICAL = "home/.amplihack/hierarchical_memory"


def _export(agent: str, store: Path, output: Path) -> list:
    assert main(["export", agent, str(output), "--storage-path", str(store)]) == 0
    data = json.loads(output.read_text())
    keys = ("semantic_nodes", "episodic_nodes", "similar_to_edges", "derives_from_edges",
            "supersedes_edges", "transitioned_to_edges")  # fmt: skip
    return [sorted(json.dumps(item, sort_keys=True) for item in data[key]) for key in keys]


def test_kuzu_agent_to_ladybug_through_the_cli(reference_stores, tmp_path, capsys):
    source = reference_stores / HIERARCHICAL / "ops-agent"  # the agent's folder
    before = checksums(source)
    target = tmp_path / "new" / "ops-agent" / "ladybug_db"
    assert main(["migrate", str(source), str(target)]) == 0
    out = capsys.readouterr().out
    assert f"to {target} (ladybug storage 49)" in out.replace("\n", "")
    assert "SemanticMemory" in out and "164" in out and "differs" not in out
    assert checksums(source) == before
    fmt = sniff(target)
    assert (fmt.engine, fmt.storage_version) == ("ladybug", 49)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert stat.S_IMODE(target.parent.stat().st_mode) == 0o700
    assert summarize_store(target).agents["ops-agent"] == {
        "SemanticMemory": 84, "EpisodicMemory": 22, "SIMILAR_TO": 164, "DERIVES_FROM": 27,
        "SUPERSEDES": 21, "TRANSITIONED_TO": 0,
    }  # fmt: skip
    # every node and edge, with its properties, made it across
    capsys.readouterr()
    assert _export("ops-agent", source, tmp_path / "a.json") == _export(
        "ops-agent", target, tmp_path / "b.json"
    )
    assert sorted(p.name for p in target.parent.iterdir()) == ["ladybug_db"]  # no leftovers


def test_ladybug_agent_to_kuzu_as_json(ladybug_stores, tmp_path, capsys):
    source = ladybug_stores / HIERARCHICAL / "research-agent" / "ladybug_db"
    before = checksums(source)
    target = tmp_path / "research.kuzu"
    assert main(["migrate", str(source), str(target), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["source_engine"], result["target_engine"]) == ("ladybug", "kuzu")
    assert result["target_storage_version"] == 39 and result["counts_match"] is True
    counts = result["agents"]["research-agent"]
    assert counts["differing"] == []
    assert counts["target"] == {**counts["source"], "TRANSITIONED_TO": 0}
    assert counts["source"]["SIMILAR_TO"] == 195
    assert checksums(source) == before


def test_shared_store_both_agents_and_one_agent(ladybug_stores, tmp_path):
    source = ladybug_stores / "shared_two_agents" / "ladybug_db"
    before = checksums(source)
    both = migrate_store(source, tmp_path / "both")
    assert both.counts_match and [a.agent for a in both.agents] == [
        "escalation-bot", "triage-bot",
    ]  # fmt: skip
    assert summarize_store(tmp_path / "both").agents.keys() == {"escalation-bot", "triage-bot"}
    one = migrate_store(source, tmp_path / "one", agents=["triage-bot"])
    assert [a.agent for a in one.agents] == ["triage-bot"] and one.counts_match
    assert set(summarize_store(tmp_path / "one").agents) == {"triage-bot"}
    # and back again, to the engine of the source
    back = migrate_store(tmp_path / "both", tmp_path / "back", engine="ladybug")
    assert (back.source_engine, back.target_engine) == ("kuzu", "ladybug")
    assert back.counts_match
    assert checksums(source) == before


def test_refusals_write_nothing(reference_stores, ladybug_stores, tmp_path, capsys):
    source = reference_stores / "shared_two_agents" / "kuzu_db"
    before = checksums(reference_stores)
    existing = tmp_path / "existing"
    existing.write_bytes(b"keep me")
    assert main(["migrate", str(source), str(existing)]) == 2
    assert "already exists; migrate writes a NEW store" in capsys.readouterr().err
    assert existing.read_bytes() == b"keep me"
    with pytest.raises(InvalidInputError, match="holds no agent nobody"):
        migrate_store(source, tmp_path / "x", agents=["nobody"])
    with pytest.raises(InvalidInputError, match="cognitive_db holds cognitive memory"):
        migrate_store(ladybug_stores / "cognitive_db", tmp_path / "x")
    sqlite = ladybug_stores / "home/.amplihack/memory/ops-agent/experiences.db"
    with pytest.raises(InvalidInputError, match="migrate copies Kuzu and LadybugDB stores"):
        migrate_store(sqlite, tmp_path / "x")
    with pytest.raises(StoreNotFoundError):
        migrate_store(tmp_path / "missing", tmp_path / "x")
    assert not (tmp_path / "x").exists() and not list(tmp_path.glob(".*migrate*"))
    assert checksums(reference_stores) == before


def test_differing_counts_exit_1(reference_stores, tmp_path, capsys, monkeypatch):
    """A table the new store lacks rows of is named, and the command fails."""
    import memexplorer.operator.migrate as migrate

    real = migrate.AgentCounts

    def short(agent: str, source: dict, target: dict) -> AgentCounts:
        return real(agent, source, {**target, "SIMILAR_TO": target["SIMILAR_TO"] - 1})

    monkeypatch.setattr(migrate, "AgentCounts", short)
    source = reference_stores / HIERARCHICAL / "support-bot" / "kuzu_db"
    assert main(["migrate", str(source), str(tmp_path / "new"), "--json"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["agents"]["support-bot"]["differing"] == ["SIMILAR_TO"]
    assert "support-bot: counts differ in SIMILAR_TO" in captured.err


def test_a_killed_migration_leaves_a_stage_the_next_one_removes(reference_stores, tmp_path):
    """A migration killed while it builds its stage leaves ``.<name>.migrate-PID``
    behind (possibly as big as the store); the next migration beside it removes it."""
    source = reference_stores / HIERARCHICAL / "ops-agent"
    folder = tmp_path / "new" / "ops-agent"
    folder.mkdir(parents=True, mode=0o700)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    stage = folder / f".ladybug_db.migrate-{dead}"
    stage.write_bytes(b"\0" * 20480)  # what a migration killed at its start leaves
    target = folder / "ladybug_db"
    assert main(["migrate", str(source), str(target)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["ladybug_db"]
