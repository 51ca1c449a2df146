"""memexplorer's memory engine: the reference library's public API over Kuzu.

A library first: typed, no printing, no UI imports, one family of errors
(:class:`memexplorer.engine.exceptions.MemoryError`).
"""

from .contradiction import detect_contradiction
from .entity_extraction import extract_entity_name
from .exceptions import (
    ExperienceNotFoundError,
    InvalidExperienceError,
    MemoryError,
    MemoryQuotaExceededError,
    QueryCostExceededError,
    SecurityViolationError,
)
from .hierarchical_memory import (
    HierarchicalMemory,
    KnowledgeEdge,
    KnowledgeNode,
    KnowledgeSubgraph,
    MemoryCategory,
    MemoryClassifier,
)
from .similarity import (
    compute_similarity,
    compute_tag_similarity,
    compute_word_similarity,
    rerank_facts_by_query,
)

__all__ = [
    "ExperienceNotFoundError",
    "HierarchicalMemory",
    "InvalidExperienceError",
    "KnowledgeEdge",
    "KnowledgeNode",
    "KnowledgeSubgraph",
    "MemoryCategory",
    "MemoryClassifier",
    "MemoryError",
    "MemoryQuotaExceededError",
    "QueryCostExceededError",
    "SecurityViolationError",
    "compute_similarity",
    "compute_tag_similarity",
    "compute_word_similarity",
    "detect_contradiction",
    "extract_entity_name",
    "rerank_facts_by_query",
]
