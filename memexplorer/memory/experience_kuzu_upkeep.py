"""A Kuzu experience store's statistics and retention, for one agent.

Statistics count either layout (the reference's, or seed 004's records the
caller has read); retention marks old experiences compressed and applies the
age and count limits, keeping confident patterns and the newest experiences.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memexplorer.memory.experience import Experience, ExperienceType
from memexplorer.memory.experience_backend import (
    COMPRESS_AFTER_DAYS,
    KEEP_PATTERN_CONFIDENCE,
    Retention,
    cutoff_seconds,
    storage_bytes,
)
from memexplorer.memory.experience_layouts import Layout
from memexplorer.storage.shared_graph import SharedGraph

__all__ = ["kuzu_cleanup", "kuzu_statistics"]


def kuzu_statistics(
    graph: SharedGraph,
    agent: str,
    db_path: Path,
    layout: Layout | None,
    seed004: list[Experience] | None,
) -> dict[str, Any]:
    """total_experiences, by_type ({ExperienceType: n}), storage_size_kb and
    compressed_experiences; ``seed004``: the agent's records when that is the layout."""
    total = compressed = 0
    by_type: dict[ExperienceType, int] = {}
    if layout == "seed-004":
        for experience in seed004 or []:
            total += 1
            kind = experience.experience_type
            by_type[kind] = by_type.get(kind, 0) + 1
    elif layout == "amplihack":
        # Grouped by (type, compressed): kuzu 0.11 mixes up the groups
        # of sum(CASE ...) next to count() in one aggregation.
        rows = graph.rows(
            "MATCH (e:Experience) WHERE e.agent_name = $agent "
            "RETURN e.experience_type, e.compressed, count(*)",
            {"agent": agent},
        )
        for kind, packed, count in rows:
            total += int(count)
            compressed += int(count) if packed else 0
            if kind in ExperienceType._value2member_map_:
                key = ExperienceType(kind)
                by_type[key] = by_type.get(key, 0) + int(count)
    return {
        "total_experiences": total,
        "by_type": by_type,
        "storage_size_kb": storage_bytes(db_path) / 1024,
        "compressed_experiences": compressed,
    }


def kuzu_cleanup(graph: SharedGraph, agent_name: str, retention: Retention) -> None:
    """Mark old experiences compressed, then apply the age and count limits, in one
    transaction on a store already open for writing."""
    agent = {"agent": agent_name}
    with graph.transaction():
        if retention.auto_compress:
            graph.execute(
                "MATCH (e:Experience) WHERE e.agent_name = $agent "
                "AND e.timestamp < $cutoff AND e.compressed = false "
                "SET e.compressed = true",
                {**agent, "cutoff": cutoff_seconds(COMPRESS_AFTER_DAYS)},
            )
        if retention.max_age_days:
            graph.execute(
                "MATCH (e:Experience) WHERE e.agent_name = $agent "
                "AND e.timestamp < $cutoff DETACH DELETE e",
                {**agent, "cutoff": cutoff_seconds(retention.max_age_days)},
            )
        if retention.max_experiences:
            _limit_count(graph, agent_name, retention.max_experiences)


def _limit_count(graph: SharedGraph, agent_name: str, keep: int) -> None:
    agent = {"agent": agent_name}
    count = graph.scalar("MATCH (e:Experience) WHERE e.agent_name = $agent RETURN count(e)", agent)
    if int(count or 0) <= keep:
        return
    recent = [
        row[0]
        for row in graph.rows(
            "MATCH (e:Experience) WHERE e.agent_name = $agent RETURN e.experience_id "
            "ORDER BY e.timestamp DESC, e.experience_id DESC LIMIT $keep",
            {**agent, "keep": keep},
        )
    ]
    graph.execute(
        "MATCH (e:Experience) WHERE e.agent_name = $agent "
        "AND NOT (e.experience_type = 'pattern' AND e.confidence >= $confidence) "
        "AND NOT list_contains($recent, e.experience_id) DETACH DELETE e",
        {**agent, "confidence": KEEP_PATTERN_CONFIDENCE, "recent": recent},
    )
