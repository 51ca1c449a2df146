"""The memory layer: what ``amplihack_memory`` offers agents, over Kuzu, LadybugDB and SQLite.

``memexplorer.memory`` stands in for the reference library's top level: agent
code written against ``amplihack_memory`` runs unchanged against it. A library
first: typed, no printing, no UI imports, one family of errors
(:class:`memexplorer.storage.exceptions.MemoryError`). It imports only the
storage layer below it (docs/architecture.md).

The public names load on first use (PEP 562): ``import memexplorer.storage.stores``
and every CLI command that never touches ``HierarchicalMemory`` then skip networkx
and the memory classes, which took most of ``memexplorer stats``' start.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

#: Each public name and the submodule it comes from, as the reference's top level has it.
#: The package's MemoryCategory is the cognitive one (six memory types);
#: hierarchical_memory.MemoryCategory is the classifier's.
_SOURCES = {
    "CognitiveMemory": "cognitive_memory",
    "MemoryConnector": "connector",
    "detect_contradiction": "contradiction",
    "extract_entity_name": "entity_extraction",
    "ExperienceNotFoundError": "memexplorer.storage.exceptions",
    "InvalidExperienceError": "memexplorer.storage.exceptions",
    "MemoryError": "memexplorer.storage.exceptions",
    "MemoryQuotaExceededError": "memexplorer.storage.exceptions",
    "QueryCostExceededError": "memexplorer.storage.exceptions",
    "SecurityViolationError": "memexplorer.storage.exceptions",
    "Experience": "experience",
    "ExperienceType": "experience",
    "HierarchicalMemory": "hierarchical_memory",
    "KnowledgeEdge": "hierarchical_memory",
    "KnowledgeNode": "hierarchical_memory",
    "KnowledgeSubgraph": "hierarchical_memory",
    "MemoryClassifier": "hierarchical_memory",
    "ConsolidatedEpisode": "memory_types",
    "EpisodicMemory": "memory_types",
    "MemoryCategory": "memory_types",
    "ProceduralMemory": "memory_types",
    "ProspectiveMemory": "memory_types",
    "SemanticFact": "memory_types",
    "SensoryItem": "memory_types",
    "WorkingMemorySlot": "memory_types",
    "AgentCapabilities": "security",
    "CredentialScrubber": "security",
    "QueryValidator": "security",
    "ScopeLevel": "security",
    "SecureMemoryBackend": "security",
    "compute_similarity": "similarity",
    "compute_tag_similarity": "similarity",
    "compute_word_similarity": "similarity",
    "rerank_facts_by_query": "similarity",
    "ExperienceStore": "store",
}

__all__ = [
    "AgentCapabilities",
    "CognitiveMemory",
    "ConsolidatedEpisode",
    "CredentialScrubber",
    "EpisodicMemory",
    "Experience",
    "ExperienceNotFoundError",
    "ExperienceStore",
    "ExperienceType",
    "HierarchicalMemory",
    "InvalidExperienceError",
    "KnowledgeEdge",
    "KnowledgeNode",
    "KnowledgeSubgraph",
    "MemoryCategory",
    "MemoryClassifier",
    "MemoryConnector",
    "MemoryError",
    "MemoryQuotaExceededError",
    "ProceduralMemory",
    "ProspectiveMemory",
    "QueryCostExceededError",
    "QueryValidator",
    "ScopeLevel",
    "SecureMemoryBackend",
    "SecurityViolationError",
    "SemanticFact",
    "SensoryItem",
    "WorkingMemorySlot",
    "compute_similarity",
    "compute_tag_similarity",
    "compute_word_similarity",
    "detect_contradiction",
    "extract_entity_name",
    "rerank_facts_by_query",
]


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = source if source.startswith("memexplorer.") else f"{__name__}.{source}"
    value = getattr(import_module(module), name)
    globals()[name] = value  # the next look-up is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SOURCES))


if TYPE_CHECKING:
    from memexplorer.memory.cognitive_memory import CognitiveMemory
    from memexplorer.memory.connector import MemoryConnector
    from memexplorer.memory.contradiction import detect_contradiction
    from memexplorer.memory.entity_extraction import extract_entity_name
    from memexplorer.memory.experience import Experience, ExperienceType
    from memexplorer.memory.hierarchical_memory import (
        HierarchicalMemory,
        KnowledgeEdge,
        KnowledgeNode,
        KnowledgeSubgraph,
        MemoryClassifier,
    )
    from memexplorer.memory.memory_types import (
        ConsolidatedEpisode,
        EpisodicMemory,
        MemoryCategory,
        ProceduralMemory,
        ProspectiveMemory,
        SemanticFact,
        SensoryItem,
        WorkingMemorySlot,
    )
    from memexplorer.memory.security import (
        AgentCapabilities,
        CredentialScrubber,
        QueryValidator,
        ScopeLevel,
        SecureMemoryBackend,
    )
    from memexplorer.memory.similarity import (
        compute_similarity,
        compute_tag_similarity,
        compute_word_similarity,
        rerank_facts_by_query,
    )
    from memexplorer.memory.store import ExperienceStore
    from memexplorer.storage.exceptions import (
        ExperienceNotFoundError,
        InvalidExperienceError,
        MemoryError,
        MemoryQuotaExceededError,
        QueryCostExceededError,
        SecurityViolationError,
    )
