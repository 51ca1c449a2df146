"""The profiles' follow-up reads by primary key, on stores large enough for the keyword index.

Why: after the keyword step, ``ranked`` reads the edges into its facts and their
episodes' labels, and ``library`` the labels and supersessions, each in one
batched query that names its facts with ``IN $list``. Kuzu answers ``IN`` by
scanning the table (100-350 ms at a million facts); a primary-key lookup per
fact takes about a millisecond. The rows asked for are the same; each caller
consumes them as a set (a dict by id, or a group by fact), so the answer is too:

- episode labels: one row per episode id (the primary key), kept in a dict;
- the library's supersessions: every SUPERSEDES edge into each fact, grouped by
  fact, and a fact with more than one still gets the library's ``LIMIT 1`` query;
- ``ranked``'s edges into its facts: the same edges. Only the order of edges of
  one relationship and equal weight may differ from the scan's, which was the
  order the scan's threads delivered them in.

Used with the index only (the stores where a scan is slow); smaller stores keep
the batched queries.
"""

from __future__ import annotations

from typing import Any

from memexplorer.memory.keyword_index import KeywordIndex
from memexplorer.memory.library_queries import PROVENANCE_QUERY, SUPERSEDED_BATCH_QUERY
from memexplorer.memory.retrieval import Retriever
from memexplorer.memory.retrieval_indexed import ranked_rows
from memexplorer.memory.retrieval_library import LibraryRetriever
from memexplorer.storage.graph_store import GraphStore

__all__ = ["library_retriever", "ranked_retriever"]

#: amplihack-memory-lib's own per-episode provenance query (4ae0813).
_EPISODE = "MATCH (e:EpisodicMemory {memory_id: $eid}) RETURN e.memory_id, e.source_label"
_NEWER = """
    MATCH (newer:SemanticMemory)-[r:SUPERSEDES]->(old:SemanticMemory {memory_id: $nid})
    RETURN old.memory_id, newer.memory_id, r.reason, r.temporal_delta
"""


class _LibraryByKey(LibraryRetriever):
    """The library profile, its two batched follow-up queries asked fact by fact."""

    def _rows(self, cypher: str, params: dict[str, Any]) -> list[list[Any]] | None:
        if cypher not in (PROVENANCE_QUERY, SUPERSEDED_BATCH_QUERY):
            return super()._rows(cypher, params)
        single, key = (_EPISODE, "eid") if cypher == PROVENANCE_QUERY else (_NEWER, "nid")
        rows: list[list[Any]] = []
        for value in params["ids"]:
            found = super()._rows(single, {key: value})
            if found is None:  # a missing table fails every lookup, as the batch did
                return None
            rows += found
        return rows


class _RankedByKey(Retriever):
    """``ranked`` with the keyword index, its follow-up reads by primary key."""

    def __init__(self, graph: GraphStore, agent: str, rel_tables: set[str]) -> None:
        super().__init__(graph, agent, rel_tables)
        self._ids: dict[int, str] = {}

    def _direct(self, keywords: list[str], entities: list[str], limit: int) -> Any:
        found = super()._direct(keywords, entities, limit)
        self._ids.update((c.offset, node_id) for node_id, c in found.items())
        return found

    def _neighbours(self, around: Any, threshold: float | None) -> Any:
        similar, chain = super()._neighbours(around, threshold)
        for group in (similar, chain):
            self._ids.update((c.offset, node_id) for node_id, c in group.items())
        return similar, chain

    def _edges_into(self, offsets: list[int]) -> list[list[Any]]:
        rels, names = self._edge_properties()
        if not rels or not offsets:
            return []
        cypher = f"""MATCH (a:SemanticMemory)-[r:{"|".join(rels)}]->(b:SemanticMemory
                         {{memory_id: $id}})
                     RETURN offset(id(a)), a.memory_id, b.memory_id, label(r), a.metadata,
                            {", ".join(f"r.{name}" for name in names)}"""
        rows: list[list[Any]] = []
        for offset in offsets:
            rows += self.graph.rows(cypher, {"id": self._ids[offset]}, reuse=True)
        return rows

    def _attach_provenance(self, nodes: list[Any]) -> None:
        labels = {}
        for source_id in sorted({n.source_id for n in nodes if n.source_id}):
            for memory_id, label in self.graph.rows(_EPISODE, {"eid": source_id}, reuse=True):
                labels[memory_id] = label
        for node in nodes:
            if labels.get(node.source_id):
                node.metadata["source_label"] = labels[node.source_id]


def ranked_retriever(
    graph: GraphStore, agent: str, rel_tables: set[str], index: KeywordIndex | None
) -> Retriever:
    """A ``ranked`` retriever; with ``index``, its direct matches come from the index."""
    if index is None:
        return Retriever(graph, agent, rel_tables)
    retriever = _RankedByKey(graph, agent, rel_tables)

    def indexed(
        keywords: list[str], entities: list[str], body: str, params: dict[str, Any]
    ) -> list[list[Any]] | None:
        return ranked_rows(graph, index, keywords, entities, body, params)

    retriever.indexed = indexed
    return retriever


def library_retriever(graph: GraphStore, agent: str, index: KeywordIndex | None) -> Any:
    """A ``library`` retriever; with ``index``, its windows come from the index."""
    retriever = _LibraryByKey(graph, agent) if index is not None else LibraryRetriever(graph, agent)
    retriever.index = index
    return retriever
