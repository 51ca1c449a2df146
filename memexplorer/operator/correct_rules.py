"""Each writer's store_knowledge rules, as a plan of rows and edges (nothing written).

- amplihack-memory-lib (4ae0813 on Kuzu, b3033f7 on LadybugDB;
  ``hierarchical_memory.py``: ``store_knowledge`` l.361, ``_detect_supersedes``
  l.621, ``_create_similarity_edges`` l.707 at 4ae0813): SUPERSEDES from the new
  fact to each of the first 20 facts whose concept contains the new concept's
  first word (or is contained in it) with a lower, positive temporal_index and
  a number the other lacks; SIMILAR_TO to every fact of the agent scoring above
  0.3. No TRANSITIONED_TO, no confidence change. LadybugDB era: JSON columns
  stored as base64 of the JSON.
- memexplorer's own HierarchicalMemory (stores that have a TRANSITIONED_TO
  table): its :class:`~.temporal.TemporalIndex` plan, SUPERSEDES and
  TRANSITIONED_TO, the older fact's confidence halved; SIMILAR_TO among the 50
  newest facts.
- amplihack-rs (SQLite ``<agent>.db`` and ``graph_db`` stores): its only
  store_knowledge is ``HierarchicalMemoryLocal::store_knowledge``
  (crates/amplihack-agent-core/src/hierarchical_memory_local.rs l.43-82):
  content and concept trimmed, metadata the temporal metadata alone, SIMILAR_TO
  (empty metadata) to every fact whose content's word Jaccard
  (similarity.rs l.43, l.147) is at least 0.3, nothing superseded.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memexplorer.memory.entity_extraction import extract_entity_name
from memexplorer.memory.hierarchical_schema import loads_json
from memexplorer.memory.hierarchical_writing import lowered_confidence, similar_to_edges
from memexplorer.memory.knowledge import MemoryClassifier
from memexplorer.memory.retrieval_rs import rs_split_whitespace
from memexplorer.memory.similarity import STOP_WORDS
from memexplorer.memory.temporal import TemporalFact, TemporalIndex, temporal_index_of
from memexplorer.operator.correct_plan import (
    CorrectionRequest,
    OldFact,
    PlannedEdge,
    PropertyChange,
    Writer,
)
from memexplorer.operator.rs_sqlite_write import serde_text
from memexplorer.storage.stored_json import encode_base64_json

__all__ = ["Fact", "library_writes", "memexplorer_writes", "rs_writes", "store_writer"]

#: A fact of the agent as read: id, concept, content, confidence, tags, metadata, created_at.
Fact = dict[str, Any]

#: amplihack-memory-lib's _SUPERSEDES_CANDIDATE_LIMIT and its candidate query, verbatim.
_LIBRARY_CANDIDATES = """
    MATCH (m:SemanticMemory)
    WHERE m.agent_id = $agent_id
      AND m.memory_id <> $new_id
      AND (LOWER(m.concept) CONTAINS LOWER($concept_key)
           OR LOWER($concept_key) CONTAINS LOWER(m.concept))
    RETURN m.memory_id, m.content, m.concept, m.metadata
    LIMIT 20
"""
_RS_PUNCTUATION = ".,;:!?()[]{}\"'"


def store_writer(path: Path, engine: str, rel_tables: set[str]) -> Writer:
    """Whose code writes this store: amplihack-rs for its SQLite stores and its
    LadybugDB ``graph_db`` (the lbug crate writes it), memexplorer for graph stores
    with its TRANSITIONED_TO table (the demo home's Kuzu ``graph_db`` too), else
    the Python library of the store's engine."""
    if engine == "sqlite" or (path.name == "graph_db" and engine == "ladybug"):
        return "amplihack-rs"
    if "TRANSITIONED_TO" in rel_tables:
        return "memexplorer"
    return "library-ladybug" if engine == "ladybug" else "library-kuzu"


def _utc(now_ns: int) -> datetime:
    seconds, rest = divmod(now_ns, 10**9)
    return datetime.fromtimestamp(seconds, UTC).replace(microsecond=rest // 1000)


def _rfc3339(now_ns: int) -> str:
    """chrono's ``to_rfc3339()``: 0, 3, 6 or 9 fraction digits, whichever is exact."""
    rest = now_ns % 10**9
    base = _utc(now_ns).replace(microsecond=0, tzinfo=None).isoformat()
    digits = next((d for d in (0, 3, 6) if rest % 10 ** (9 - d) == 0), 9)
    fraction = f".{rest // 10 ** (9 - digits):0{digits}d}" if digits else ""
    return f"{base}{fraction}+00:00"


def _node(request: CorrectionRequest, call: dict[str, Any], **stored: Any) -> dict[str, Any]:
    return {"memory_id": request.node_id, "concept": call["concept"], "content": call["content"],
            "confidence": float(call["confidence"]), "source_id": "", "agent_id": request.agent,
            **stored}  # fmt: skip


def library_writes(
    graph: Any, writer: Writer, request: CorrectionRequest, call: dict[str, Any], facts: list[Fact]
) -> tuple[dict[str, Any], list[PlannedEdge]]:
    """The new row and edges amplihack-memory-lib's store_knowledge writes."""

    def encode(value: Any) -> str:
        text = json.dumps(value)
        return encode_base64_json(text) if writer == "library-ladybug" else text

    content, concept, temporal = call["content"], call["concept"], call["temporal_metadata"]
    category = MemoryClassifier().classify(content, concept)
    node = _node(request, call, tags=encode(call["tags"]),
                 metadata=encode({"category": category.value, **temporal}),
                 created_at=_utc(request.now_ns).replace(tzinfo=None).isoformat(),
                 entity_name=extract_entity_name(content, concept))  # fmt: skip
    edges = []
    new_index = temporal["temporal_index"]
    # The library takes concept.split()[0]: a concept of blanks raises IndexError
    # there, and its handler ends the supersession step with nothing superseded.
    blank = bool(concept) and not concept.split()
    rows = [] if blank else graph.rows(_LIBRARY_CANDIDATES, {
        "agent_id": request.agent, "new_id": request.node_id,
        "concept_key": concept.split()[0] if concept else "",
    })  # fmt: skip
    for old_id, old_content, old_concept, old_meta in rows:
        old_index = loads_json(old_meta, {}).get("temporal_index", 0)
        if not isinstance(old_index, int | float):
            break  # the library's comparison raises, and its handler ends the loop
        if old_index <= 0 or old_index >= new_index:
            continue
        found = _library_contradiction(content, old_content, concept, old_concept)
        if found:
            edges.append(PlannedEdge("SUPERSEDES", request.node_id, old_id, {
                "reason": f"Updated values: {found}",
                "temporal_delta": f"index {old_index} -> {new_index}",
            }))  # fmt: skip
    newest_first = sorted(facts, key=lambda f: f["created_at"] or "", reverse=True)
    for other, score, meta in similar_to_edges(content, concept, call["tags"], newest_first):
        stored = encode(meta) if meta else ""
        edges.append(PlannedEdge("SIMILAR_TO", request.node_id, other,
                                 {"weight": score, "metadata": stored}))  # fmt: skip
    return node, edges


def _library_contradiction(content: str, other: str, concept: str, other_concept: str) -> str:
    from memexplorer.memory.contradiction import detect_contradiction

    found = detect_contradiction(content, other or "", concept, other_concept or "")
    return str(found.get("conflicting_values", "")) if found.get("contradiction") else ""


def memexplorer_writes(
    graph: Any, request: CorrectionRequest, call: dict[str, Any], recent: list[Fact]
) -> tuple[dict[str, Any], list[PlannedEdge], list[PropertyChange]]:
    """The row, edges and lowered confidences memexplorer's store_knowledge writes."""
    content, concept, tags = call["content"], call["concept"], call["tags"]
    metadata = {"category": MemoryClassifier().classify(content, concept).value,
                **call["temporal_metadata"]}  # fmt: skip
    entity = extract_entity_name(content, concept)
    node = _node(request, call, tags=json.dumps(tags), metadata=json.dumps(metadata),
                 created_at=_utc(request.now_ns).replace(tzinfo=None)
                 .isoformat(timespec="microseconds"), entity_name=entity)  # fmt: skip
    edges: list[PlannedEdge] = []
    changes: list[PropertyChange] = []
    index = temporal_index_of(call["temporal_metadata"])
    fact = TemporalFact(request.node_id, concept, content, entity, index)
    for step in TemporalIndex(graph, request.agent).plan(fact) if index > 0 else []:
        newer, older = step.newer.memory_id, step.older.memory_id
        edges.append(
            PlannedEdge(
                "SUPERSEDES", newer, older, {"reason": step.reason, "temporal_delta": step.delta}
            )
        )
        edges.append(PlannedEdge("TRANSITIONED_TO", newer, older, {
            "from_value": step.new_value, "to_value": step.old_value,
            "turn": step.newer.temporal_index, "transition_type": "update",
        }))  # fmt: skip
        if older == request.node_id:
            lowered = lowered_confidence(node["confidence"], metadata)
            if lowered is not None:
                node["confidence"], node["metadata"] = lowered[0], json.dumps(lowered[1])
            continue
        row = graph.rows("MATCH (o:SemanticMemory {memory_id: $old}) "
                         "RETURN o.confidence, o.metadata", {"old": older})  # fmt: skip
        lowered = lowered_confidence(row[0][0], loads_json(row[0][1], {}))
        if lowered is not None:
            changes.append(PropertyChange(older, "confidence", row[0][0], lowered[0]))
            changes.append(PropertyChange(older, "metadata", row[0][1], json.dumps(lowered[1])))
    for other, score, meta in similar_to_edges(content, concept, tags, recent):
        stored = json.dumps(meta) if meta else ""
        edges.append(PlannedEdge("SIMILAR_TO", request.node_id, other,
                                 {"weight": score, "metadata": stored}))  # fmt: skip
    return node, edges, changes


def _rs_tokens(text: str) -> set[str]:
    """similarity.rs ``tokenize``: lowercase, split on whitespace, trim punctuation,
    keep words longer than two bytes that are not stop words."""
    words = (w.strip(_RS_PUNCTUATION) for w in rs_split_whitespace(text.lower()))
    return {w for w in words if len(w.encode("utf-8")) > 2 and w not in STOP_WORDS}


def _rs_similarity(a: str, b: str) -> float:
    tokens_a, tokens_b = _rs_tokens(a), _rs_tokens(b)
    if not tokens_a or not tokens_b:
        return 0.0
    return len(tokens_a & tokens_b) / len(tokens_a | tokens_b)


def rs_writes(
    request: CorrectionRequest, call: dict[str, Any], facts: list[Fact]
) -> tuple[dict[str, Any], list[PlannedEdge]]:
    """HierarchicalMemoryLocal::store_knowledge's node and SIMILAR_TO edges, in the
    order the facts were stored (its Vec), written as amplihack-rs's import writes them."""
    call = {**call, "content": call["content"].strip(), "concept": call["concept"].strip()}
    node = _node(request, call, tags=serde_text(call["tags"]),
                 metadata=serde_text(call["temporal_metadata"]),
                 created_at=_rfc3339(request.now_ns), entity_name="")  # fmt: skip
    edges = []
    for other in facts:
        score = _rs_similarity(call["content"], other["content"] or "")
        if score >= 0.3:
            edges.append(PlannedEdge("SIMILAR_TO", request.node_id, other["id"],
                                     {"weight": score, "metadata": "{}"}))  # fmt: skip
    return node, edges


def old_fact(fact: Fact) -> OldFact:
    return OldFact(fact["id"], fact["concept"] or "", fact["content"] or "",
                   float(fact["confidence"] or 0.0), fact["tags"], fact["metadata"])  # fmt: skip
