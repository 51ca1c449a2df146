"""The committed oracle of amplihack-memory-lib's retrieval, and the stores it was asked on."""

from __future__ import annotations

import gzip
import json
import tarfile
from functools import cache
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ERAS = ("kuzu", "ladybug")
REFERENCE_TARBALL = {"kuzu": "reference-stores.tar.gz", "ladybug": "ladybug-stores.tar.gz"}


@cache
def oracle(era: str) -> dict[str, Any]:
    """The era's recorded cases (stable in three runs) and the unstable ones."""
    with gzip.open(FIXTURES / f"retrieval-oracle-{era}.json.gz", "rt", encoding="utf-8") as fh:
        return json.load(fh)


def unpack_era(era: str, target: Path) -> Path:
    """Both tarballs the era's cases name, unpacked under ``target``."""
    for part, name in (
        ("reference", REFERENCE_TARBALL[era]),
        ("generated", f"retrieval-stores-{era}.tar.gz"),
    ):
        with tarfile.open(FIXTURES / name) as archive:
            archive.extractall(target / part, filter="data")
    return target


def store_path(root: Path, key: str) -> Path:
    """Where a case's store (``reference:<path>`` / ``generated:<path>``) is under ``root``."""
    part, rel = key.split(":", 1)
    return root / part / rel


def answer(subgraph: Any) -> dict[str, Any]:
    """A subgraph in the oracle's shape."""
    return {
        "node_ids": [n.node_id for n in subgraph.nodes],
        "edges": [[e.source_id, e.target_id, e.relationship, e.weight] for e in subgraph.edges],
        "context": subgraph.to_llm_context(),
        "context_chronological": subgraph.to_llm_context(chronological=True),
    }
