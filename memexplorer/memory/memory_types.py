"""The six cognitive memory types and the records CognitiveMemory returns.

Field names and order are the reference library's, so agent code that builds or
unpacks these records runs unchanged. Timestamps read from a store are naive
local datetimes, as the reference gives them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any

__all__ = [
    "ConsolidatedEpisode",
    "EpisodicMemory",
    "MemoryCategory",
    "ProceduralMemory",
    "ProspectiveMemory",
    "SemanticFact",
    "SensoryItem",
    "WorkingMemorySlot",
]


class MemoryCategory(Enum):
    """One value per cognitive memory type (and per node table)."""

    SENSORY = "sensory"
    WORKING = "working"
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"
    PROSPECTIVE = "prospective"


@dataclass
class SensoryItem:
    """A raw observation that lives until ``expires_at`` (epoch seconds)."""

    node_id: str
    modality: str
    raw_data: str
    observation_order: int
    expires_at: float
    created_at: datetime = field(default_factory=datetime.now)


@dataclass
class WorkingMemorySlot:
    """One slot of a task's bounded working context; higher relevance survives longer."""

    node_id: str
    slot_type: str
    content: str
    relevance: float
    task_id: str
    created_at: datetime = field(default_factory=datetime.now)


@dataclass
class EpisodicMemory:
    """An event in the agent's history; ``compressed`` once consolidated."""

    node_id: str
    content: str
    source_label: str
    temporal_index: int
    compressed: bool = False
    created_at: datetime = field(default_factory=datetime.now)
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class SemanticFact:
    """A distilled fact about a concept, with a confidence in [0, 1]."""

    node_id: str
    concept: str
    content: str
    confidence: float
    source_id: str = ""
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: datetime = field(default_factory=datetime.now)


@dataclass
class ProceduralMemory:
    """A named procedure; ``usage_count`` counts how often it was recalled."""

    node_id: str
    name: str
    steps: list[str] = field(default_factory=list)
    prerequisites: list[str] = field(default_factory=list)
    usage_count: int = 0
    created_at: datetime = field(default_factory=datetime.now)


@dataclass
class ProspectiveMemory:
    """An intention: when the trigger shows up, do the action (pending/triggered/resolved)."""

    node_id: str
    description: str
    trigger_condition: str
    action_on_trigger: str
    status: str = "pending"
    priority: int = 1
    created_at: datetime = field(default_factory=datetime.now)


@dataclass
class ConsolidatedEpisode:
    """The summary that replaced ``original_count`` episodes."""

    node_id: str
    summary: str
    original_count: int
    created_at: datetime = field(default_factory=datetime.now)
