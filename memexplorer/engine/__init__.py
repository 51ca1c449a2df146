"""memexplorer's memory engine: the reference library's public API over Kuzu.

A library first: typed, no printing, no UI imports, one family of errors
(:class:`memexplorer.engine.exceptions.MemoryError`).
"""

from .cognitive_memory import CognitiveMemory
from .connector import MemoryConnector
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
from .experience import Experience, ExperienceType
from .hierarchical_memory import (
    HierarchicalMemory,
    KnowledgeEdge,
    KnowledgeNode,
    KnowledgeSubgraph,
    MemoryClassifier,
)

# The package's MemoryCategory is the cognitive one (six memory types), as the
# reference's top level has it; hierarchical_memory.MemoryCategory is the
# classifier's.
from .memory_types import (
    ConsolidatedEpisode,
    EpisodicMemory,
    MemoryCategory,
    ProceduralMemory,
    ProspectiveMemory,
    SemanticFact,
    SensoryItem,
    WorkingMemorySlot,
)
from .security import (
    AgentCapabilities,
    CredentialScrubber,
    QueryValidator,
    ScopeLevel,
    SecureMemoryBackend,
)
from .similarity import (
    compute_similarity,
    compute_tag_similarity,
    compute_word_similarity,
    rerank_facts_by_query,
)
from .store import ExperienceStore

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
