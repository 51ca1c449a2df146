"""HierarchicalMemory: Graph RAG over SemanticMemory and EpisodicMemory (seed 003).

The public API is the reference library's, so agent code runs unchanged. Two
things differ on purpose: an existing store opens read-only and switches to
writing only when the caller first writes (a running agent's store is never
locked or changed by reading it), and stores follow the spec where the
reference did not (TRANSITIONED_TO edges, lowered confidence of superseded
facts).
"""

from __future__ import annotations

import json
import uuid
from collections import deque
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from memexplorer.memory.contradiction import detect_contradiction
from memexplorer.memory.entity_extraction import extract_entity_name
from memexplorer.memory.hierarchical_schema import (
    create_schema,
    fact_columns,
    fact_from_row,
    loads_json,
)
from memexplorer.memory.inspection import open_graph
from memexplorer.memory.knowledge import (
    KnowledgeEdge,
    KnowledgeNode,
    KnowledgeSubgraph,
    MemoryCategory,
    MemoryClassifier,
)
from memexplorer.memory.retrieval_profiles import DEFAULT_PROFILE, retrieve_with_profile
from memexplorer.memory.similarity import compute_similarity
from memexplorer.memory.temporal import Supersession, TemporalFact, TemporalIndex, temporal_index_of
from memexplorer.storage.exceptions import (
    InvalidInputError,
    ReadOnlyStoreError,
    SchemaMismatchError,
)
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.graph_shape import (
    GRAPH_SHAPE,
    from_graph_shape,
    is_graph_shape,
    to_graph_shape,
)
from memexplorer.storage.graph_store import GraphStore
from memexplorer.storage.names import validate_agent_name
from memexplorer.storage.private_dirs import enforce_private_store, make_private_dirs
from memexplorer.storage.progress import TaskControl
from memexplorer.storage.stores import resolve_hierarchical_path

__all__ = [
    "SIMILARITY_EDGE_THRESHOLD",
    "SIMILARITY_WINDOW",
    "GraphEngine",
    "HierarchicalMemory",
    "KnowledgeEdge",
    "KnowledgeNode",
    "KnowledgeSubgraph",
    "MemoryCategory",
    "MemoryClassifier",
    "lowered_confidence",
    "similar_to_edges",
]

#: New facts are compared with this many of the agent's most recent facts.
SIMILARITY_WINDOW = 50
#: A SIMILAR_TO edge is written for scores above this.
SIMILARITY_EDGE_THRESHOLD = 0.3
#: Above this score the edge also records a numeric contradiction, if any.
CONTRADICTION_CHECK_THRESHOLD = 0.5

Mode = Literal["auto", "read", "write"]
#: The graph engines a new store can be created with.
GraphEngine = Literal["kuzu", "ladybug"]


def _now() -> str:
    """UTC, naive ISO with microseconds: the reference's format, so ordering holds."""
    return datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="microseconds")


def similar_to_edges(
    content: str, concept: str, tags: list[str], others: Iterable[dict[str, Any]]
) -> list[tuple[str, float, dict[str, Any]]]:
    """(other id, score, contradiction metadata) of the SIMILAR_TO edges a new fact
    gets: scores above 0.3, contradictions checked above 0.5 (both libraries' rule)."""
    new_node = {"content": content, "concept": concept, "tags": tags}
    edges = []
    for other in others:
        score = compute_similarity(new_node, other)
        if score <= SIMILARITY_EDGE_THRESHOLD:
            continue
        meta: dict[str, Any] = {}
        if score > CONTRADICTION_CHECK_THRESHOLD:
            meta = detect_contradiction(content, other["content"], concept, other["concept"])
        edges.append((other["id"], score, meta))
    return edges


def lowered_confidence(
    confidence: float | None, metadata: dict[str, Any]
) -> tuple[float, dict[str, Any]] | None:
    """A superseded fact's new (confidence, metadata): halved, at least 0.1, the old
    value kept in the metadata; None when an earlier supersession lowered it already."""
    if "confidence_before_supersede" in metadata:
        return None
    return max(0.1, (confidence or 0.0) * 0.5), {
        **metadata,
        "confidence_before_supersede": confidence,
    }


def _as_dict(node: KnowledgeNode) -> dict[str, Any]:
    return {
        "content": node.content,
        "concept": node.concept,
        "confidence": node.confidence,
        "node_id": node.node_id,
        "source_id": node.source_id,
        "tags": node.tags,
        "metadata": node.metadata,
        "created_at": node.created_at,
    }


class HierarchicalMemory:
    """One agent's knowledge graph in a Kuzu store.

    ``mode``: "auto" (default) opens an existing store read-only and reopens it
    for writing on the first write, creating a new store when none exists;
    "read" never writes; "write" takes the write lock at once. ``engine``
    ("kuzu" or "ladybug") is the one a NEW store is created with (an agent
    folder gets its ``kuzu_db`` or ``ladybug_db``); an existing store keeps its own.
    ``buffer_pool_size`` (bytes) is the pool a writing open gets (default: the
    engine's, most of the machine's memory; kuzu keeps state for every page of
    it, some 40 MB for 19 GiB): an import's staged store opens with its own.
    """

    def __init__(
        self,
        agent_name: str,
        db_path: str | Path | None = None,
        *,
        mode: Mode = "auto",
        engine: GraphEngine = "kuzu",
        buffer_pool_size: int | None = None,
    ) -> None:
        self.agent_name = validate_agent_name(agent_name)
        if db_path is None:
            db_path = Path.home() / ".amplihack" / "hierarchical_memory" / self.agent_name
        self.db_path = resolve_hierarchical_path(
            Path(db_path).expanduser(), new_name=f"{engine}_db"
        )
        self.mode = mode
        self.engine = engine
        self._write_pool = buffer_pool_size
        self._classifier = MemoryClassifier()
        self._graph: GraphStore | None = None
        self._recent: deque[dict[str, Any]] | None = None
        self._temporal: TemporalIndex | None = None
        self._rel_tables: set[str] | None = None
        if mode == "read" or (mode == "auto" and self.db_path.exists()):
            self._graph = open_graph(self.db_path, read_only=True)
        else:
            self._open_for_writing()

    # -- connection management -----------------------------------------------------
    @property
    def graph(self) -> GraphStore:
        if self._graph is None:
            raise ReadOnlyStoreError(self.db_path, "This memory is closed")
        return self._graph

    @property
    def read_only(self) -> bool:
        return self.graph.read_only

    def _open_for_writing(self) -> None:
        if self.db_path.exists():
            graph = open_graph(self.db_path, read_only=False, buffer_pool_size=self._write_pool)
        else:
            make_private_dirs(self.db_path.parent)
            graph = open_graph_store(self.db_path, read_only=False, create=self.engine,
                                     buffer_pool_size=self._write_pool)  # fmt: skip
        enforce_private_store(self.db_path)
        create_schema(graph)
        columns = [name for name, _ in graph.columns("SIMILAR_TO")]
        if columns != ["weight", "metadata"]:
            graph.close()
            raise SchemaMismatchError(
                self.db_path, f"SIMILAR_TO has columns {columns}, not the spec's (weight, metadata)"
            )
        self._graph = graph
        self._rel_tables = None
        self._recent = None
        self._temporal = TemporalIndex(graph, self.agent_name)

    def _writable(self) -> GraphStore:
        graph = self.graph
        if not graph.read_only:
            return graph
        if self.mode == "read":
            raise ReadOnlyStoreError(self.db_path, "This memory was opened read-only")
        graph.close()
        self._graph = None
        try:
            self._open_for_writing()
        except Exception:
            self._graph = open_graph(self.db_path, read_only=True)
            raise
        return self.graph

    def rel_tables(self) -> set[str]:
        """The rel tables present (cached: only our own writes change the schema)."""
        if self._rel_tables is None:
            self._rel_tables = set(self.graph.rel_tables())
        return self._rel_tables

    # -- storing ---------------------------------------------------------------------
    def _recent_facts(self, graph: GraphStore) -> deque[dict[str, Any]]:
        if self._recent is None:
            rows = graph.rows(
                """MATCH (m:SemanticMemory) WHERE m.agent_id = $agent
                   RETURN m.memory_id, m.content, m.concept, m.tags
                   ORDER BY m.created_at DESC LIMIT $limit""",
                {"agent": self.agent_name, "limit": SIMILARITY_WINDOW},
            )
            self._recent = deque(
                (
                    {"id": r[0], "content": r[1] or "", "concept": r[2] or "",
                     "tags": loads_json(r[3], [])}
                    for r in reversed(rows)
                ),
                maxlen=SIMILARITY_WINDOW,
            )  # fmt: skip
        return self._recent

    def store_knowledge(
        self,
        content: str,
        concept: str = "",
        confidence: float = 0.8,
        category: MemoryCategory | None = None,
        source_id: str = "",
        tags: list[str] | None = None,
        temporal_metadata: dict[str, Any] | None = None,
    ) -> str:
        """Store a fact with its provenance, temporal and similarity edges; return its id."""
        if not isinstance(content, str) or not content.strip():
            raise InvalidInputError("content cannot be empty")
        if not 0.0 <= float(confidence) <= 1.0:
            raise InvalidInputError(f"confidence must be in [0, 1], got {confidence}")
        graph = self._writable()
        category = category or self._classifier.classify(content, concept)
        node_id = str(uuid.uuid4())
        tags = list(tags or [])
        metadata: dict[str, Any] = {"category": MemoryCategory(category).value}
        metadata.update(temporal_metadata or {})
        fact = {
            "memory_id": node_id, "concept": concept, "content": content.strip(),
            "confidence": float(confidence), "source_id": source_id or "",
            "agent_id": self.agent_name, "tags": json.dumps(tags),
            "metadata": json.dumps(metadata), "created_at": _now(),
            "entity_name": extract_entity_name(content, concept),
        }  # fmt: skip
        recent = self._recent_facts(graph)
        similar = [
            {"id": other, "w": score, "m": json.dumps(meta) if meta else ""}
            for other, score, meta in similar_to_edges(content, concept, tags, recent)
        ]
        index = temporal_index_of(temporal_metadata)
        temporal = TemporalFact(node_id, concept, fact["content"], fact["entity_name"], index)
        assert self._temporal is not None
        plan = self._temporal.plan(temporal) if index > 0 else []
        with graph.transaction():
            graph.execute(
                """CREATE (:SemanticMemory {memory_id: $memory_id, concept: $concept,
                     content: $content, confidence: $confidence, source_id: $source_id,
                     agent_id: $agent_id, tags: $tags, metadata: $metadata,
                     created_at: $created_at, entity_name: $entity_name})""",
                fact,
                reuse=True,
            )
            if source_id:
                graph.execute(
                    """MATCH (s:SemanticMemory {memory_id: $sid}),
                             (e:EpisodicMemory {memory_id: $eid})
                       WHERE e.agent_id = $agent
                       CREATE (s)-[:DERIVES_FROM {extraction_method: 'llm_extraction',
                                                  confidence: 1.0}]->(e)""",
                    {"sid": node_id, "eid": source_id, "agent": self.agent_name},
                    reuse=True,
                )
            for step in plan:
                self._write_supersession(graph, step)
            # One compiled statement per edge: kuzu looks both ends up by
            # primary key, where an UNWIND over the edges joins against a scan
            # of the whole table (27 ms at 100k facts against ~0.5 ms an edge).
            for edge in similar:
                graph.execute(
                    """MATCH (a:SemanticMemory {memory_id: $sid}),
                             (b:SemanticMemory {memory_id: $bid})
                       CREATE (a)-[:SIMILAR_TO {weight: $w, metadata: $m}]->(b)""",
                    {"sid": node_id, "bid": edge["id"], "w": edge["w"], "m": edge["m"]},
                    reuse=True,
                )
        recent.append({"id": node_id, "content": content, "concept": concept, "tags": tags})
        if index > 0:
            self._temporal.add(temporal)
        return node_id

    @staticmethod
    def _write_supersession(graph: GraphStore, step: Supersession) -> None:
        """Seed 003's supersession: SUPERSEDES and TRANSITIONED_TO, the older fact's
        confidence halved (at least 0.1) once, its first value kept in metadata."""
        ids = {"new": step.newer.memory_id, "old": step.older.memory_id}
        graph.execute(
            """MATCH (n:SemanticMemory {memory_id: $new}), (o:SemanticMemory {memory_id: $old})
               CREATE (n)-[:SUPERSEDES {reason: $reason, temporal_delta: $delta}]->(o)
               CREATE (n)-[:TRANSITIONED_TO {from_value: $new_value, to_value: $old_value,
                                            turn: $turn, transition_type: 'update'}]->(o)""",
            {
                **ids,
                "reason": step.reason,
                "delta": step.delta,
                "new_value": step.new_value,
                "old_value": step.old_value,
                "turn": step.newer.temporal_index,
            },
            reuse=True,
        )
        rows = graph.rows(
            "MATCH (o:SemanticMemory {memory_id: $old}) RETURN o.confidence, o.metadata",
            {"old": step.older.memory_id},
            reuse=True,
        )
        lowered = lowered_confidence(rows[0][0], loads_json(rows[0][1], {}))
        if lowered is None:
            return
        graph.execute(
            "MATCH (o:SemanticMemory {memory_id: $old}) SET o.confidence = $c, o.metadata = $m",
            {"old": step.older.memory_id, "c": lowered[0], "m": json.dumps(lowered[1])},
            reuse=True,
        )

    def store_episode(self, content: str, source_label: str = "") -> str:
        """Store raw source content (an episode); return its id."""
        if not isinstance(content, str) or not content.strip():
            raise InvalidInputError("content cannot be empty")
        graph = self._writable()
        episode_id = str(uuid.uuid4())
        graph.execute(
            """CREATE (:EpisodicMemory {memory_id: $id, content: $content,
                 source_label: $label, agent_id: $agent, tags: '[]', metadata: '{}',
                 created_at: $created_at})""",
            {"id": episode_id, "content": content.strip(), "label": source_label or "",
             "agent": self.agent_name, "created_at": _now()},
        )  # fmt: skip
        return episode_id

    # -- protocol aliases --------------------------------------------------------------
    def store_fact(
        self, content: str, concept: str = "", confidence: float = 0.8, **kwargs: Any
    ) -> str:
        """Alias of :meth:`store_knowledge` (argument order: content, concept)."""
        return self.store_knowledge(content, concept, confidence, **kwargs)

    def search_facts(self, query: str, max_nodes: int = 20, **kwargs: Any) -> list[dict[str, Any]]:
        """:meth:`retrieve_subgraph` as plain dicts."""
        subgraph = self.retrieve_subgraph(query, max_nodes=max_nodes, **kwargs)
        return [_as_dict(node) for node in subgraph.nodes]

    def get_all_facts(self, limit: int = 50) -> list[dict[str, Any]]:
        return [_as_dict(node) for node in self.get_all_knowledge(limit)]

    # -- reading -------------------------------------------------------------------------
    def retrieve_subgraph(
        self,
        query: str,
        max_depth: int = 2,
        max_nodes: int = 20,
        similarity_threshold: float = 0.3,
        profile: str = DEFAULT_PROFILE,
    ) -> KnowledgeSubgraph:
        """Graph RAG retrieval as the agent's library does it (``profile``: see
        :mod:`memexplorer.memory.retrieval_profiles`).

        ``library`` (the default) is amplihack-memory-lib's algorithm, node for
        node and byte for byte in ``to_llm_context()``; ``amplihack-rs`` the
        Rust agent's; ``ranked`` memexplorer's seed-003 ranking, where
        ``max_depth`` 0 keeps only direct matches and their temporal context.
        """
        if not isinstance(query, str):
            return KnowledgeSubgraph(query="")
        return retrieve_with_profile(
            self.graph,
            self.agent_name,
            self.rel_tables(),
            query,
            profile=profile,
            max_depth=max_depth,
            max_nodes=max_nodes,
            similarity_threshold=similarity_threshold,
        )

    def _facts(
        self, where: str, params: dict[str, Any], order: str, limit: int
    ) -> list[KnowledgeNode]:
        rows = self.graph.rows(
            f"""MATCH (m:SemanticMemory) WHERE m.agent_id = $agent AND {where}
                RETURN {fact_columns("m")} ORDER BY {order} LIMIT $limit""",
            {"agent": self.agent_name, "limit": max(int(limit), 0), **params},
        )
        return [fact_from_row(row) for row in rows]

    def get_all_knowledge(self, limit: int = 50) -> list[KnowledgeNode]:
        """The agent's facts, newest first, at most ``limit``."""
        return self._facts("true", {}, "m.created_at DESC", limit)

    def retrieve_by_entity(self, entity_name: str, limit: int = 50) -> list[KnowledgeNode]:
        """Facts whose extracted entity contains the name; falls back to a text match."""
        if not entity_name or not entity_name.strip():
            return []
        params = {"entity": entity_name.strip().lower()}
        found = self._facts(
            "lower(m.entity_name) CONTAINS $entity", params, "m.created_at DESC", limit
        )
        if found:
            return found
        return self._facts(
            "(lower(m.content) CONTAINS $entity OR lower(m.concept) CONTAINS $entity)",
            params, "m.created_at DESC", limit,
        )  # fmt: skip

    def search_by_concept(self, keywords: list[str], limit: int = 30) -> list[KnowledgeNode]:
        """Facts whose concept or content contains any keyword (longer than two letters)."""
        words = [k.strip().lower() for k in keywords or [] if len(k.strip()) > 2]
        if not words:
            return []
        found: dict[str, KnowledgeNode] = {}
        for word in words:
            for node in self._facts(
                "(lower(m.concept) CONTAINS $kw OR lower(m.content) CONTAINS $kw)",
                {"kw": word}, "m.created_at DESC", limit,
            ):  # fmt: skip
                found.setdefault(node.node_id, node)
        return list(found.values())

    def execute_aggregation(self, query_type: str, entity_filter: str = "") -> dict[str, Any]:
        """Counts and lists over the agent's facts, for meta-questions about memory."""
        from memexplorer.memory.hierarchical_aggregation import aggregate

        return aggregate(self.graph, self.agent_name, query_type, entity_filter)

    def get_statistics(self) -> dict[str, Any]:
        graph, agent = self.graph, {"agent": self.agent_name}
        semantic = graph.scalar(
            "MATCH (m:SemanticMemory) WHERE m.agent_id = $agent RETURN count(m)", agent
        )
        episodic = graph.scalar(
            "MATCH (e:EpisodicMemory) WHERE e.agent_id = $agent RETURN count(e)", agent
        )
        stats: dict[str, Any] = {
            "agent_name": self.agent_name,
            "semantic_nodes": semantic,
            "episodic_nodes": episodic,
            "total_experiences": semantic + episodic,
        }
        tables = self.rel_tables()
        for rel in ("SIMILAR_TO", "DERIVES_FROM", "SUPERSEDES", "TRANSITIONED_TO"):
            key = f"{rel.lower()}_edges"
            if rel not in tables:
                stats[key] = 0
                continue
            stats[key] = graph.scalar(
                f"MATCH (a:SemanticMemory)-[r:{rel}]->() WHERE a.agent_id = $agent RETURN count(r)",
                agent,
            )
        return stats

    # -- transfer --------------------------------------------------------------------------
    def export_to_json(self) -> dict[str, Any]:
        """The agent's graph in the reference's format "1.0"."""
        from memexplorer.memory.hierarchical_export import export_agent

        return export_agent(self.graph, self.agent_name, "1.0")

    def export_graph(
        self, format_version: str = GRAPH_SHAPE, *, control: TaskControl | None = None
    ) -> dict[str, Any]:
        """The agent's graph as seed 003 gives it, ``{"nodes", "edges", "agent_name",
        "exported_at"}`` (:mod:`.graph_shape`); ``"1.1"`` (or ``"1.0"``) gives the
        transfer format of seed 002 instead, with TRANSITIONED_TO in 1.1.

        ``control`` (memexplorer's addition) hears of each table read and can cancel.
        """
        from memexplorer.memory.hierarchical_export import export_agent

        if format_version == GRAPH_SHAPE:
            return to_graph_shape(export_agent(self.graph, self.agent_name, "1.1", control))
        return export_agent(self.graph, self.agent_name, format_version, control)

    def import_from_json(
        self, data: dict[str, Any], merge: bool = False, *, control: TaskControl | None = None
    ) -> dict[str, Any]:
        """Import a format 1.0 or 1.1 export into this agent, atomically.

        The caller's agent name is the only partition key; the file's
        ``agent_name`` is informational. Without ``merge`` the agent's current
        data is replaced; with it, ids that exist already are skipped and counted.
        One kuzu transaction: a failed import changes nothing. A process killed
        while kuzu commits may still lose the import's rows (kuzu 0.11 writes
        COPY data outside its log); ``transfer.import_agent_store`` is safe
        against that too, and is what the CLI uses. ``control`` (memexplorer's
        addition) reports progress and can cancel before the commit.
        """
        from memexplorer.memory.hierarchical_transfer import import_agent, precheck_import

        precheck_import(data, merge=merge)
        graph = self._writable()
        result = import_agent(graph, self.agent_name, data, merge=merge, control=control)
        self._recent = None
        self._temporal = TemporalIndex(graph, self.agent_name)
        return result

    def import_graph(self, data: dict[str, Any], merge: bool = False) -> None:
        """Import what :meth:`export_graph` returns, in seed 003's shape or in transfer
        format 1.0/1.1, as :meth:`import_from_json` does (returns nothing)."""
        self.import_from_json(from_graph_shape(data) if is_graph_shape(data) else data, merge=merge)

    # -- discoveries (the spec's static helpers) ------------------------------------------
    @staticmethod
    def store_discovery(
        db_path: str | Path | None, agent_name: str, discovery: dict[str, Any]
    ) -> str:
        """Store a discovery dict as a fact tagged "discovery"; return its id."""
        if not isinstance(discovery, dict) or not discovery:
            raise InvalidInputError("discovery must be a non-empty dict")
        kind = str(discovery.get("type") or "discovery")
        content = str(
            discovery.get("content") or discovery.get("description") or json.dumps(discovery)
        )
        memory = HierarchicalMemory(agent_name, db_path)
        try:
            return memory.store_knowledge(
                content,
                concept=kind,
                confidence=float(discovery.get("confidence", 0.8)),
                tags=["discovery", kind],
                temporal_metadata={"discovery": discovery},
            )
        finally:
            memory.close()

    @staticmethod
    def get_recent_discoveries(
        db_path: str | Path | None, agent_name: str, limit: int = 10
    ) -> list[dict[str, Any]]:
        """The newest discoveries stored with :meth:`store_discovery`, newest first."""
        memory = HierarchicalMemory(agent_name, db_path, mode="read")
        try:
            nodes = memory._facts("m.tags CONTAINS '\"discovery\"'", {}, "m.created_at DESC", limit)
        finally:
            memory.close()
        return [
            {**node.metadata.get("discovery", {}), "node_id": node.node_id,
             "created_at": node.created_at}
            for node in nodes
        ]  # fmt: skip

    def close(self) -> None:
        if self._graph is not None:
            self._graph.close()
            self._graph = None

    def __enter__(self) -> HierarchicalMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
