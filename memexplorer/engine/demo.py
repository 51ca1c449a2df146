"""A small demo home written with memexplorer's own engine, to try the tools on."""

from __future__ import annotations

import shutil
from pathlib import Path

from .hierarchical_memory import HierarchicalMemory

__all__ = ["write_demo_home"]

_SERVICE_FACTS = (
    ("service ownership", "Service checkout-api is owned by the Payments team", ["catalog"]),
    ("service language", "checkout-api is written in Go", ["catalog", "go"]),
    ("service ports", "checkout-api listens on port 8443", ["catalog", "networking"]),
    ("alert thresholds", "Page when checkout-api p99 latency exceeds 800 ms", ["alerts"]),
)
_REPLICAS = (3, 4, 6, 8, 12)


def _write_ops_agent(home: Path) -> None:
    with HierarchicalMemory("ops-agent", home / "hierarchical_memory" / "ops-agent") as memory:
        runbook = memory.store_episode(
            "Runbook review: checkout-api ownership, ports and alerting", "confluence:OPS-12"
        )
        for concept, content, tags in _SERVICE_FACTS:
            memory.store_knowledge(content, concept, 0.9, source_id=runbook, tags=tags)
        for turn, replicas in enumerate(_REPLICAS, 1):
            change = memory.store_episode(
                f"Change CHG-{900 + turn}: scaled checkout-api to {replicas} replicas",
                f"servicenow:CHG-{900 + turn}",
            )
            memory.store_knowledge(
                f"checkout-api runs {replicas} replicas in production",
                "checkout-api replicas",
                0.9,
                source_id=change,
                tags=["capacity"],
                temporal_metadata={"temporal_index": turn, "source_date": f"2026-0{turn}-01"},
            )


def _write_research_agent(home: Path) -> None:
    with HierarchicalMemory(
        "research-agent", home / "hierarchical_memory" / "research-agent"
    ) as memory:
        article = memory.store_episode(
            "Profile: Sarah Chen joined Contoso as a senior engineer", "web:contoso-newsroom"
        )
        for turn, grade in enumerate((63, 65, 67), 1):
            title = ("Senior Engineer", "Staff Engineer", "Principal Engineer")[turn - 1]
            memory.store_knowledge(
                f"Sarah Chen is {title} at Contoso, pay grade {grade}",
                "Sarah Chen job",
                source_id=article,
                temporal_metadata={"temporal_index": turn},
            )
        memory.store_knowledge(
            "Copper traded at 9100 USD per tonne", "copper price", 0.8, tags=["markets"]
        )


def write_demo_home(home: str | Path) -> Path:
    """Write a demo ``.amplihack`` home at ``home`` (which must not exist yet).

    It is built in a sibling folder and renamed into place, so an interrupted
    run never leaves a half-written home that later runs would take as ready.
    """
    home = Path(home)
    if home.exists():
        raise FileExistsError(f"{home} exists already")
    staging = home.with_name(f"{home.name}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    _write_ops_agent(staging)
    _write_research_agent(staging)
    staging.rename(home)
    return home
