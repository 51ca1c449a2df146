"""Export from the Rust-era graph-db stores, import into the other engine and back:
every node and edge the Rust import wrote survives, compared with the JSON payloads
that import consumed (tests/fixtures/rust_graphdb_content.py) and the MANIFEST's edges."""

from __future__ import annotations

import json
import os
from importlib.util import find_spec
from pathlib import Path

import pytest

from memexplorer.cli.main import main

pytestmark = pytest.mark.skipif(
    find_spec("ladybug") is None and not os.environ.get("CI"),
    reason="needs the ladybug extra: pip install 'memexplorer[ladybug]'",
)

HM = "home/.amplihack/hierarchical_memory"
LISTS = ("semantic_nodes", "episodic_nodes", "similar_to_edges", "derives_from_edges",
         "supersedes_edges", "transitioned_to_edges")  # fmt: skip
RELS = {"similar_to_edges": "SIMILAR_TO", "derives_from_edges": "DERIVES_FROM",
        "supersedes_edges": "SUPERSEDES", "transitioned_to_edges": "TRANSITIONED_TO"}  # fmt: skip


def canonical(data: dict) -> dict[str, list[str]]:
    return {key: sorted(json.dumps(item, sort_keys=True) for item in data[key]) for key in LISTS}


def _payload(root: Path, name: str) -> dict:
    return json.loads((root / "imports" / name).read_text())


def _billing(root: Path) -> dict:
    """The replace import, then the merge by hand: new ids only, and only the edges
    whose two ends exist (the Rust MATCH ... CREATE makes no edge otherwise)."""
    data, merge = _payload(root, "billing-first.json"), _payload(root, "billing-merge.json")
    ids = {n["memory_id"] for key in LISTS[:2] for n in data[key]}
    for key in LISTS[:2]:
        new = [n for n in merge[key] if n["memory_id"] and n["memory_id"] not in ids]
        data[key] += new
        ids |= {n["memory_id"] for n in new}
    for key in LISTS[2:]:
        data[key] += [e for e in merge[key] if {e["source_id"], e["target_id"]} <= ids]
    return data


CASES = [
    ("deploy-agent", "graph_db", lambda root: _payload(root, "deploy-second.json"), "kuzu"),
    ("billing-agent", "graph_db", _billing, "kuzu"),
    ("docs-agent", "graph_db", lambda root: _payload(root, "docs.json"), "kuzu"),
    ("legacy-agent", "kuzu_db", lambda root: _payload(root, "legacy-agent.json"), "ladybug"),
]  # fmt: skip


def _export(agent: str, store: Path, out: Path) -> dict:
    assert main(["export", agent, str(out), "--storage-path", str(store)]) == 0
    return json.loads(out.read_text())


def _import(agent: str, source: Path, store: Path, engine: str) -> None:
    args = ["import", agent, str(source), "--storage-path", str(store), "--engine", engine]
    assert main(args) == 0


@pytest.mark.parametrize(("agent", "name", "expected", "other"), CASES)
def test_export_other_engine_and_back_keeps_every_node_and_edge(
    rust_graphdb_home, rust_graphdb_manifest, tmp_path, agent, name, expected, other
):
    store = rust_graphdb_home / HM / agent / name
    want = canonical(expected(rust_graphdb_home))
    first = _export(agent, store, tmp_path / "first.json")
    assert canonical(first) == want
    inventory = rust_graphdb_manifest["databases"][f"{HM}/{agent}/{name}"]["inventory"]
    for key, rel in RELS.items():
        pairs = sorted([e["source_id"], e["target_id"]] for e in first[key])
        assert pairs == inventory["edges"][rel], rel
    there = tmp_path / "there" / agent
    _import(agent, tmp_path / "first.json", there, other)
    assert canonical(_export(agent, there, tmp_path / "there.json")) == want
    back = tmp_path / "back" / agent / name
    back.parent.mkdir(parents=True)
    engine = "ladybug" if name == "graph_db" else "kuzu"
    _import(agent, tmp_path / "there.json", back, engine)
    assert canonical(_export(agent, back, tmp_path / "back.json")) == want
