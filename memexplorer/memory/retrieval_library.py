"""The ``library`` retrieval profile: amplihack-memory-lib's retrieve_subgraph, step by step.

Why: the query box answers "why did my agent say that?", which is only true if
the result is what the agent's own library returns. This follows the code of
amplihack-memory-lib at 4ae0813 (Kuzu) and b3033f7 (LadybugDB), which is the
same algorithm in both: ``query.lower().split()``; an entity seed search; per
keyword longer than two characters a ``LIMIT max(3*max_nodes, 60)`` window
WITHOUT ORDER BY, so the rows come in the order the database gives them; then
SIMILAR_TO one and two hops outgoing per seed until ``max_nodes`` ids are seen;
then a stable sort by ``confidence * (0.5 + 0.5 * hits / len(words))`` and a
trim. The window queries are the library's own Cypher text against the same
engine release, so the database hands back the same rows in the same order.

Only two of its queries are batched, where the answer provably cannot change:
the provenance lookups (one row per episode primary key) and the supersession
marks (one batched query; a fact with more than one newer fact still gets the
library's own ``LIMIT 1`` query, since which row comes first is the database's).
The per-step record (:class:`LibraryTrace`) feeds the "what was missed" view.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memexplorer.memory.knowledge import KnowledgeEdge, KnowledgeNode, MemoryCategory
from memexplorer.memory.library_context import LibrarySubgraph
from memexplorer.memory.library_queries import (
    ENTITY_QUERY,
    HOP_QUERY,
    KEYWORD_QUERY,
    PROVENANCE_QUERY,
    SUPERSEDED_BATCH_QUERY,
    SUPERSEDED_QUERY,
)
from memexplorer.memory.library_text import DecodeFailed, decode, library_entity_candidates
from memexplorer.memory.library_two_hop import two_hop_rows
from memexplorer.memory.library_windows import Pattern, prefetch_windows
from memexplorer.memory.retrieval_indexed import KeywordIndex, windows_from
from memexplorer.storage.graph_store import GraphStore, QueryError
from memexplorer.storage.scan_threads import one_scan_thread

__all__ = ["LibraryRetriever", "LibraryTrace", "library_entity_candidates"]


@dataclass
class LibraryTrace:
    """What each step of the library's retrieval did, for explaining a miss."""

    words: list[str] = field(default_factory=list)
    entity_candidates: list[str] = field(default_factory=list)
    window: int = 0
    #: Ids each keyword's window returned, in the database's order, and the new ones.
    windows: dict[str, list[str]] = field(default_factory=dict)
    new_in_window: dict[str, list[str]] = field(default_factory=dict)
    entity_ids: list[str] = field(default_factory=list)
    seeds: list[str] = field(default_factory=list)
    #: Seeds whose SIMILAR_TO neighbours were read before max_nodes stopped it.
    expanded_seeds: list[str] = field(default_factory=list)
    expanded: list[str] = field(default_factory=list)
    #: The seed and edge weight each expanded node was reached from.
    reached_from: dict[str, tuple[str, Any]] = field(default_factory=dict)
    ranked: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


class LibraryRetriever:
    """Runs the library's retrieve_subgraph for one agent on one open store."""

    def __init__(self, graph: GraphStore, agent_id: str) -> None:
        self.graph = graph
        self.agent_id = agent_id
        self.ladybug = getattr(graph, "engine", "kuzu") == "ladybug"
        self.trace = LibraryTrace()
        self._last_window: list[str] = []
        self._windows: dict[Pattern, list[list[Any]]] = {}
        self.index: KeywordIndex | None = None  # where the windows come from, if set

    def _rows(self, cypher: str, params: dict[str, Any]) -> list[list[Any]] | None:
        """Rows of one of the library's queries; None where the library's try/except
        would swallow the failure (a missing table or column)."""
        try:
            return self.graph.rows(cypher, params, reuse=True)
        except QueryError as exc:
            if "cancelled" in str(exc):
                raise
            return None

    def _node(self, row: list[Any], tags_at: int, meta_at: int, created_at: int) -> KnowledgeNode:
        return KnowledgeNode(
            node_id=row[0],
            category=MemoryCategory.SEMANTIC,
            content=row[2],
            concept=row[1],
            confidence=row[3],
            source_id=row[4] or "",
            created_at=row[created_at] or "",
            tags=decode(row[tags_at], [], self.ladybug),
            metadata=decode(row[meta_at], {}, self.ladybug),
        )

    def _window(
        self, pattern: Pattern, cypher: str, params: dict[str, Any], seen: set[str]
    ) -> list[KnowledgeNode]:
        """New nodes of one LIMIT window, in the database's order; a row whose
        JSON the library cannot decode ends the window there (its id stays seen)."""
        rows = self._windows.get(pattern)
        if rows is None:
            rows = self._rows(cypher, params) or []
        self._last_window = [row[0] for row in rows]
        nodes = []
        for row in rows:
            if row[0] in seen:
                continue
            seen.add(row[0])
            try:
                nodes.append(self._node(row, 5, 6, 7))
            except DecodeFailed:
                break
        return nodes

    def _entity_seeds(self) -> list[KnowledgeNode]:
        seen: set[str] = set()
        nodes: list[KnowledgeNode] = []
        limit = self.trace.window
        for candidate in self.trace.entity_candidates:
            params = {"agent_id": self.agent_id, "entity": candidate, "limit": limit}
            nodes.extend(self._window(("entity", candidate), ENTITY_QUERY, params, seen))
        return nodes[:limit]

    def _hop_rows(self, seed_id: str, max_depth: int) -> list[list[Any]]:
        """The library's one-hop UNION ALL two-hop rows for a seed.

        The database appends a UNION ALL's two branches in whichever order its
        threads finish them, so the library's own edge order changes now and
        then between runs. The branches are asked one after the other here,
        which is the order the library gets in nearly every run: its answer,
        made repeatable. A failing branch fails the whole query, as in the library.
        The second branch (:data:`TWO_HOP_QUERY`) is read by :func:`two_hop_rows`,
        the same rows in the same order without its scan of every edge.
        """
        params = {"sid": seed_id, "agent_id": self.agent_id}
        one_hop = self._rows(HOP_QUERY, params)
        if one_hop is None or max_depth < 2:
            return one_hop or []
        two_hop = two_hop_rows(self._rows, seed_id, self.agent_id, ladybug=self.ladybug)
        return [] if two_hop is None else one_hop + two_hop

    def _expand(
        self, seeds: list[KnowledgeNode], seen: set[str], max_depth: int, max_nodes: int
    ) -> tuple[list[KnowledgeNode], list[KnowledgeEdge]]:
        expanded: list[KnowledgeNode] = []
        edges: list[KnowledgeEdge] = []
        for seed in seeds:
            if len(seen) >= max_nodes:
                break
            self.trace.expanded_seeds.append(seed.node_id)
            rows = self._hop_rows(seed.node_id, max_depth)
            for row in rows:
                if row[0] not in seen and len(seen) < max_nodes:
                    seen.add(row[0])
                    try:
                        expanded.append(self._node(row, 5, 8, 6))
                    except DecodeFailed:
                        break
                    self.trace.reached_from[row[0]] = (seed.node_id, row[7])
                try:
                    meta = decode(row[9], {}, self.ladybug) if row[9] else {}
                except DecodeFailed:
                    meta = {}
                edges.append(KnowledgeEdge(seed.node_id, row[0], "SIMILAR_TO", row[7], meta))
        return expanded, edges

    def _attach_provenance(self, nodes: list[KnowledgeNode]) -> None:
        source_ids = sorted({n.source_id for n in nodes if n.source_id})
        if not source_ids:
            return
        rows = self._rows(PROVENANCE_QUERY, {"ids": source_ids})
        labels = {memory_id: label for memory_id, label in rows or [] if label}
        for node in nodes:
            if node.source_id in labels:
                if node.metadata is None:
                    node.metadata = {}
                node.metadata["source_label"] = labels[node.source_id]

    def _mark_superseded(self, nodes: list[KnowledgeNode]) -> None:
        if not nodes:
            return
        rows = self._rows(SUPERSEDED_BATCH_QUERY, {"ids": [n.node_id for n in nodes]})
        if rows is None:
            return
        newer: dict[str, list[list[Any]]] = {}
        for old_id, *rest in rows:
            newer.setdefault(old_id, []).append(rest)
        for node in nodes:
            found = newer.get(node.node_id)
            if not found:
                continue
            if len(found) > 1:
                # Which newer fact LIMIT 1 returns is the database's choice: ask as it does.
                found = self._rows(SUPERSEDED_QUERY, {"nid": node.node_id}) or found[:1]
            newer_id, reason, _ = found[0]
            if node.metadata is None:
                node.metadata = {}
            node.metadata.update(superseded=True, superseded_by=newer_id)
            node.metadata["supersede_reason"] = reason or ""
            node.confidence = max(0.1, node.confidence * 0.5)

    def _annotate(self, nodes: list[KnowledgeNode]) -> None:
        """``retrieved_because`` for the app and CLI (not part of the library's text)."""
        trace = self.trace
        entity_ids = set(trace.entity_ids)
        for node in nodes:
            reasons: list[dict[str, Any]] = []
            if node.node_id in entity_ids:
                names = ", ".join(dict.fromkeys(trace.entity_candidates))
                reasons.append(
                    {"kind": "entity", "entity": names, "query": trace.entity_candidates}
                )
            terms = [k for k, ids in trace.windows.items() if node.node_id in ids]
            if terms:
                reasons.append({"kind": "keyword", "terms": terms})
            if node.node_id in trace.reached_from:
                seed, weight = trace.reached_from[node.node_id]
                reasons.append({"kind": "similar_to", "from": seed, "weight": weight})
            if node.metadata is None:
                node.metadata = {}
            if isinstance(node.metadata, dict):
                node.metadata["retrieved_because"] = reasons

    def retrieve(self, query: str, max_depth: int, max_nodes: int) -> LibrarySubgraph:
        if not query.strip():
            return LibrarySubgraph(query=query)
        trace = self.trace
        trace.words = query.lower().split()
        trace.window = max(max_nodes * 3, 60)
        trace.entity_candidates = library_entity_candidates(query)
        # The library asks each keyword longer than two characters; a repeat asks
        # the same window again and every row of it is already seen.
        keywords = list(dict.fromkeys(w for w in trace.words if len(w) > 2))
        self._prefetch(keywords)
        with one_scan_thread(self.graph):
            seeds, seen = self._seeds(keywords)
        return self._finish(query, seeds, seen, max_depth, max_nodes)

    def _prefetch(self, keywords: list[str]) -> None:
        """Every window from one scan where that decides them all; else the entity
        windows alone (common words fill the cap, names rarely do). A window not
        prefetched is asked with the library's own query."""
        entities: list[Pattern] = [("entity", c) for c in self.trace.entity_candidates]
        patterns = entities + [("keyword", k) for k in keywords]
        window = self.trace.window
        windows = windows_from(self.index, self.graph, self.agent_id, patterns, window)
        if windows is None:
            windows = prefetch_windows(self.graph, self.agent_id, entities, window)
        self._windows = windows or {}

    def _seeds(self, keywords: list[str]) -> tuple[list[KnowledgeNode], set[str]]:
        """Entity seeds, then each keyword's window: the steps a LIMIT decides."""
        trace = self.trace
        seeds = self._entity_seeds()
        seen = {n.node_id for n in seeds}
        trace.entity_ids = [n.node_id for n in seeds]
        for keyword in keywords:
            params = {"agent_id": self.agent_id, "keyword": keyword, "limit": trace.window}
            before = len(seeds)
            seeds.extend(self._window(("keyword", keyword), KEYWORD_QUERY, params, seen))
            trace.windows[keyword] = self._last_window
            trace.new_in_window[keyword] = [n.node_id for n in seeds[before:]]
        trace.seeds = [n.node_id for n in seeds]
        return seeds, seen

    def _finish(
        self,
        query: str,
        seeds: list[KnowledgeNode],
        seen: set[str],
        max_depth: int,
        max_nodes: int,
    ) -> LibrarySubgraph:
        """Expansion, rank and trim, provenance and supersession marks."""
        trace = self.trace
        words = trace.words
        expanded, edges = self._expand(seeds, seen, max_depth, max_nodes)
        trace.expanded = [n.node_id for n in expanded]

        def rank_score(node: KnowledgeNode) -> float:
            content = node.content.lower()
            hits = sum(1 for kw in words if len(kw) > 2 and kw in content)
            # The library divides by max(len(words), 1): a blank query never gets here.
            return node.confidence * (0.5 + 0.5 * hits / len(words))

        ranked = sorted(seeds + expanded, key=rank_score, reverse=True)
        trace.ranked = [n.node_id for n in ranked]
        nodes = ranked[:max_nodes]
        trace.kept = [n.node_id for n in nodes]
        self._attach_provenance(nodes)
        self._mark_superseded(nodes)
        self._annotate(nodes)
        return LibrarySubgraph(nodes=nodes, edges=edges, query=query)
