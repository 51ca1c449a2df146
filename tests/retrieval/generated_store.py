"""A seeded store of some thousands of facts and 200 seeded queries of the kinds people type.

The texts mix common and rare words, names, mixed case, punctuation, repeated
confidences and timestamps (ties the ORDER BYs must break), empty entity names
and characters whose lower case differs between engines and Python (the Kelvin
sign, dotted capital I, sharp s), so both the index's walks and its candidate
reads are exercised.
"""

from __future__ import annotations

import random
from pathlib import Path

from memexplorer.memory.hierarchical_memory import HierarchicalMemory

AGENT = "gen-agent"
COMMON = ["deploy", "cache", "ledger", "refund", "queue", "region", "token", "alert"]
RARE = ["Klaebo", "O'Brien", "Straße", "İstanbul", "5\u212aV", "zeta-9", "quorum", "fjord"]
NAMES = ["Sarah Chen", "Fatima", "Bjorn", "Lee"]
STOP = ["the", "what", "is", "for", "and", "who"]


def _sentence(rng: random.Random, number: int) -> str:
    words = rng.sample(COMMON, 3) + ([rng.choice(RARE)] if rng.random() < 0.08 else [])
    name = rng.choice(NAMES) + " " if rng.random() < 0.2 else ""
    return f"{name}The {' '.join(words)} uses {number % 97}, {rng.choice(STOP)} ok."


def make_data(n: int, seed: int = 11) -> dict:
    rng = random.Random(seed)
    facts = []
    for i in range(n):
        facts.append(
            {
                "memory_id": f"g-{i}",
                "concept": " ".join(rng.sample(COMMON, 2)).title(),
                "content": _sentence(rng, i),
                "confidence": rng.choice([0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0, 0.0]),
                "source_id": "",
                "tags": [],
                "metadata": {},
                # Ten facts share each second: ties on rank and time are common.
                "created_at": f"2026-03-01T00:{i // 600 % 60:02d}:{i // 10 % 60:02d}",
                "entity_name": rng.choice(NAMES + [""] * 4),
            }
        )
    similar = [
        {"source_id": f"g-{i}", "target_id": f"g-{i - 3}", "weight": 0.5, "metadata": {}}
        for i in range(3, n, 5)
    ]
    return {
        "agent_name": AGENT,
        "format_version": "1.0",
        "semantic_nodes": facts,
        "episodic_nodes": [],
        "similar_to_edges": similar,
        "derives_from_edges": [],
        "supersedes_edges": [],
    }


def build_store(path: Path, n: int = 3000) -> Path:
    with HierarchicalMemory(AGENT, path) as memory:
        memory.import_from_json(make_data(n))
    return path


def make_queries(count: int = 200, seed: int = 5) -> list[tuple[str, int]]:
    """(query, max_nodes) pairs: single words, questions, names, numbers, punctuation."""
    rng = random.Random(seed)
    pool = COMMON + RARE + STOP + ["uses", "ok", "9", "42,", "chen?", "REFUND", "Deploy"]
    queries = []
    for _ in range(count):
        words = rng.sample(pool, rng.randint(1, 5))
        if rng.random() < 0.2:
            words.insert(0, rng.choice(NAMES))
        text = " ".join(words)
        if rng.random() < 0.3:
            text = f"What about {text}?"
        queries.append((text, rng.choice([3, 5, 10, 20, 50])))
    return queries
