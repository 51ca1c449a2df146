"""The import map of API.md §0: every public name at the path agent code imports it from."""

from __future__ import annotations

import importlib

import pytest

IMPORT_MAP = {
    "memexplorer.memory": [
        "CognitiveMemory", "Experience", "ExperienceType", "ExperienceStore", "MemoryConnector",
        "HierarchicalMemory", "KnowledgeNode", "KnowledgeEdge", "KnowledgeSubgraph",
        "MemoryClassifier", "MemoryCategory", "SensoryItem", "WorkingMemorySlot",
        "EpisodicMemory", "SemanticFact", "ProceduralMemory", "ProspectiveMemory",
        "ConsolidatedEpisode", "AgentCapabilities", "ScopeLevel", "CredentialScrubber",
        "QueryValidator", "SecureMemoryBackend", "MemoryError", "ExperienceNotFoundError",
        "InvalidExperienceError", "MemoryQuotaExceededError", "SecurityViolationError",
        "QueryCostExceededError", "compute_similarity", "compute_word_similarity",
        "compute_tag_similarity", "rerank_facts_by_query", "detect_contradiction",
        "extract_entity_name",
    ],
    "memexplorer.memory.hierarchical_memory": [
        "HierarchicalMemory", "KnowledgeNode", "KnowledgeEdge", "KnowledgeSubgraph",
        "MemoryClassifier", "MemoryCategory",
    ],
    "memexplorer.memory.memory_types": [
        "MemoryCategory", "SensoryItem", "WorkingMemorySlot", "EpisodicMemory", "SemanticFact",
        "ProceduralMemory", "ProspectiveMemory", "ConsolidatedEpisode",
    ],
    "memexplorer.memory.cognitive_memory": [
        "CognitiveMemory", "WORKING_MEMORY_CAPACITY", "SIMILARITY_THRESHOLD",
        "SIMILARITY_CANDIDATE_LIMIT", "MAX_SEARCH_KEYWORDS", "GRAPH_FETCH_MULTIPLIER",
        "MIN_TOKEN_LENGTH", "PROSPECTIVE_STATUS_PENDING", "PROSPECTIVE_STATUS_TRIGGERED",
        "PROSPECTIVE_STATUS_RESOLVED",
    ],
    "memexplorer.memory.experience": ["Experience", "ExperienceType"],
    "memexplorer.memory.store": ["ExperienceStore"],
    "memexplorer.memory.connector": ["MemoryConnector"],
    "memexplorer.storage.exceptions": ["MemoryQuotaExceededError", "MemoryError"],
    "memexplorer.memory.similarity": [
        "compute_similarity", "compute_word_similarity", "compute_tag_similarity",
        "rerank_facts_by_query",
    ],
    "memexplorer.memory.contradiction": ["detect_contradiction"],
    "memexplorer.memory.entity_extraction": ["extract_entity_name"],
    "memexplorer.memory.pattern_recognition": [
        "PatternDetector", "extract_pattern_key", "calculate_pattern_confidence",
        "recognize_patterns",
    ],
    "memexplorer.memory.semantic_search": [
        "calculate_relevance", "TFIDFSimilarity", "retrieve_relevant_experiences",
        "SemanticSearchEngine",
    ],
    "memexplorer.memory.security": [
        "AgentCapabilities", "ScopeLevel", "CredentialScrubber", "QueryValidator",
        "SecureMemoryBackend", "SecurityViolationError", "QueryCostExceededError",
    ],
}  # fmt: skip


@pytest.mark.parametrize("module", IMPORT_MAP)
def test_import_map(module):
    loaded = importlib.import_module(module)
    missing = [name for name in IMPORT_MAP[module] if not hasattr(loaded, name)]
    assert missing == []


def test_package_memory_category_is_the_cognitive_one():
    import memexplorer.memory as engine
    from memexplorer.memory import memory_types

    assert engine.MemoryCategory is memory_types.MemoryCategory
    assert len(engine.MemoryCategory) == 6


def test_errors_are_one_family():
    import memexplorer.memory as engine

    for name in ("ExperienceNotFoundError", "InvalidExperienceError", "MemoryQuotaExceededError",
                 "SecurityViolationError", "QueryCostExceededError"):  # fmt: skip
        assert issubclass(getattr(engine, name), engine.MemoryError)
