"""A correction writes what the store's writer writes for the same store_knowledge call.

Expected values: tests/fixtures/expected_correction_<era>.json, written by
make_correction_oracle.py with amplihack-memory-lib itself (Kuzu era at 4ae0813,
LadybugDB era at b3033f7) and, for amplihack-rs, HierarchicalMemoryLocal's rules
transcribed from the Rust code and written with the Rust import's statements.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memexplorer.operator.correct_read import correction_request, plan_correction
from memexplorer.operator.correct_write import correct_fact

from .store_dump import dump_store, store_diff

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ORACLES = {era: json.loads((FIXTURES / f"expected_correction_{era}.json").read_text())
           for era in ("kuzu", "ladybug", "rust")}  # fmt: skip
CASES = [(era, n) for era, oracle in ORACLES.items() for n in range(len(oracle["cases"]))]


def _sorted(edges: list[dict]) -> list[str]:
    return sorted(json.dumps(e, sort_keys=True) for e in edges)


@pytest.fixture
def era_root(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    era = request.param
    if era == "kuzu":
        return request.getfixturevalue("reference_stores")
    if era == "rust":
        return request.getfixturevalue("rust_sqlite_home")
    target = tmp_path / "ladybug"
    shutil.copytree(request.getfixturevalue("ladybug_stores"), target, symlinks=True)
    return target


@pytest.mark.parametrize(
    ("era_root", "number"), CASES, indirect=["era_root"], ids=[f"{e}-{n}" for e, n in CASES]
)
def test_correction_writes_what_the_writer_writes(
    era_root: Path, number: int, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    era = request.node.callspec.id.split("-")[0]
    case = ORACLES[era]["cases"][number]
    asked = case["request"]
    store = era_root / asked["store"]
    wish = correction_request(asked["agent"], asked["memory_id"], asked["content"],
                              asked["concept"], asked["confidence"])  # fmt: skip
    plan = plan_correction(store, wish)
    assert plan.call == case["call"]
    before = dump_store(store)
    correct_fact(plan, wish, home=tmp_path / "home")
    found = store_diff(before, dump_store(store))
    assert found["node"] == case["node"]
    assert _sorted(found["edges"]) == _sorted(case["edges"])
    assert found["changes"] == case["changes"]


def test_the_oracles_cover_supersession_and_its_absence() -> None:
    """The cases are worth comparing: some correction supersedes, some cannot."""
    for era in ("kuzu", "ladybug"):
        rels = [{e["rel"] for e in c["edges"]} for c in ORACLES[era]["cases"]]
        assert any("SUPERSEDES" in r for r in rels)
        assert any("SUPERSEDES" not in r for r in rels)
    assert all(c["edges"] for c in ORACLES["rust"]["cases"])
