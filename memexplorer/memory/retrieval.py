"""Graph RAG retrieval over a HierarchicalMemory store (seed 003, "Retrieve Subgraph").

Seven steps: keyword match, entity match, merge, one SIMILAR_TO hop, SUPERSEDES
and TRANSITIONED_TO context, then every edge among the chosen facts. Each
returned node records in ``metadata["retrieved_because"]`` why it is there,
so an operator can see what an agent would be shown and for which reason.

Each step is one query over the whole agent (not one per keyword or per
node), so retrieval costs a small multiple of a single keyword scan. Follow-up
queries name the facts found so far by their offset in the SemanticMemory
table (``offset(id(n))``): kuzu 0.11 tests a list of offsets without reading
any column, where a list of memory_ids meant reading every id (4-5x slower at
100k facts). Offsets only live as long as one retrieval, which holds the store.
A query's keywords and entities come from :mod:`.retrieval_query`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memexplorer.memory.hierarchical_schema import fact_columns, fact_from_row, loads_json
from memexplorer.memory.knowledge import KnowledgeEdge, KnowledgeNode, KnowledgeSubgraph
from memexplorer.memory.retrieval_query import query_entities, query_keywords
from memexplorer.storage.graphdb import GraphStore

__all__ = ["Retriever"]

#: Properties of the rels drawn among the result nodes, by rel table.
_EDGE_PROPERTIES: dict[str, tuple[str, ...]] = {
    "SIMILAR_TO": ("weight", "metadata"),
    "SUPERSEDES": ("reason", "temporal_delta"),
    "TRANSITIONED_TO": ("from_value", "to_value", "turn", "transition_type"),
}
_CHAIN_RELS = (("SUPERSEDES", "supersedes_context"), ("TRANSITIONED_TO", "transition_context"))


def _temporal_index(metadata: Any) -> int | float:
    """A fact's ``temporal_index`` when it is a number, else 0 (absent, text, damaged)."""
    index = metadata.get("temporal_index") if isinstance(metadata, dict) else None
    return index if isinstance(index, int | float) else 0


@dataclass
class _Candidate:
    node: KnowledgeNode
    offset: int
    tier: int
    score: float
    reasons: list[dict[str, Any]] = field(default_factory=list)


class Retriever:
    """Runs retrieve_subgraph for one agent on one open store."""

    def __init__(self, graph: GraphStore, agent_id: str, rel_tables: set[str]) -> None:
        self.graph = graph
        self.agent_id = agent_id
        self.rel_tables = rel_tables
        self.indexed: Any = None  # the direct matches from the keyword index, if set

    # -- step 1-3: direct matches -------------------------------------------------
    def _direct(
        self, keywords: list[str], entities: list[str], limit: int
    ) -> dict[str, _Candidate]:
        # One parameter per word: the query's shape depends only on how many
        # words there are, never on their text. Plain CONTAINS tests run several
        # times faster in kuzu than list predicates over a list parameter.
        params: dict[str, Any] = {"agent": self.agent_id, "limit": limit}
        content_hits, tests = [], []
        for number, word in enumerate(keywords):
            params[f"k{number}"] = word
            tests.append(f"body CONTAINS $k{number}")
            tests.append(f"topic CONTAINS $k{number}")
            content_hits.append(f"CASE WHEN body CONTAINS $k{number} THEN 1 ELSE 0 END")
        for number, entity in enumerate(entities):
            params[f"e{number}"] = entity
            tests.append(f"entity CONTAINS $e{number}")
        hits = " + ".join(content_hits) or "0"
        body = f"""
            WITH m, lower(m.content) AS body, lower(m.concept) AS topic,
                 lower(m.entity_name) AS entity
            WHERE {" OR ".join(tests)}
            RETURN offset(id(m)), {fact_columns("m")},
                   m.confidence * (0.5 + 0.5 * ({hits}) / {float(max(len(keywords), 1))}) AS rank"""
        rows = self.indexed(keywords, entities, body, params) if self.indexed else None
        if rows is None:
            rows = self.graph.rows(
                f"""MATCH (m:SemanticMemory) WHERE m.agent_id = $agent {body}
                    ORDER BY rank DESC, m.created_at DESC, offset(id(m)) LIMIT $limit""",
                params,
            )
        found: dict[str, _Candidate] = {}
        for offset, *row in rows:
            node = fact_from_row(row)
            reasons: list[dict[str, Any]] = []
            content, concept = node.content.lower(), node.concept.lower()
            terms = [k for k in keywords if k in content or k in concept]
            if terms:
                reasons.append({"kind": "keyword", "terms": terms})
            entity = node.entity_name.lower()
            matched = [e for e in entities if entity and e in entity]
            if matched:
                reasons.append({"kind": "entity", "entity": node.entity_name, "query": matched})
            found[node.node_id] = _Candidate(node, offset, 0, float(row[-1]), reasons)
        return found

    # -- steps 4 and 5: one SIMILAR_TO hop, the matched facts' temporal chains ------
    def _neighbours(
        self, around: dict[str, _Candidate], threshold: float | None
    ) -> tuple[dict[str, _Candidate], dict[str, _Candidate]]:
        """Similar-to neighbours (when ``threshold`` is set) and chain neighbours, in one query."""
        wanted = [r for r, _ in _CHAIN_RELS] + (["SIMILAR_TO"] if threshold is not None else [])
        rels = [rel for rel in wanted if rel in self.rel_tables]
        similar: dict[str, _Candidate] = {}
        chain: dict[str, _Candidate] = {}
        if not rels or not around:
            return similar, chain
        weight = "r.weight" if "SIMILAR_TO" in rels else "0.0"
        rows = self.graph.rows(
            f"""
            MATCH (a:SemanticMemory)-[r:{"|".join(rels)}]-(n:SemanticMemory)
            WHERE offset(id(a)) IN $offsets AND n.agent_id = $agent
            RETURN a.memory_id, label(r), {weight}, offset(id(n)), {fact_columns("n")}
            """,
            {"offsets": [c.offset for c in around.values()], "agent": self.agent_id},
        )
        kinds = dict(_CHAIN_RELS)
        for origin, rel, edge_weight, offset, *fact in sorted(rows, key=lambda r: -(r[2] or 0.0)):
            node = fact_from_row(fact)
            if node.node_id in around:
                continue
            if rel == "SIMILAR_TO":
                if (edge_weight or 0.0) < (threshold or 0.0):
                    continue
                found, tier, score = similar, 2, (edge_weight or 0.0) * node.confidence
                reason = {"kind": "similar_to", "from": origin, "weight": edge_weight}
            else:
                found, tier, score = chain, 1, node.confidence
                reason = {"kind": kinds[rel], "of": origin}
            if node.node_id in found:
                found[node.node_id].reasons.append(reason)
            else:
                found[node.node_id] = _Candidate(node, offset, tier, score, [reason])
        return similar, chain

    # -- step 6 and supersession marks: one query over edges into the result ---------
    def _edge_properties(self) -> tuple[list[str], list[str]]:
        """The rel tables of step 6 this store has, and their property columns."""
        rels = [rel for rel in _EDGE_PROPERTIES if rel in self.rel_tables]
        return rels, [name for rel in rels for name in _EDGE_PROPERTIES[rel]]

    def _edges_into(self, offsets: list[int]) -> list[list[Any]]:
        """Every temporal or similarity edge that ends at a result fact.

        Edges among the result are the ones that also start there; SUPERSEDES
        edges from anywhere mark their target as replaced.
        """
        rels, names = self._edge_properties()
        if not rels or not offsets:
            return []
        return self.graph.rows(
            f"""MATCH (a:SemanticMemory)-[r:{"|".join(rels)}]->(b:SemanticMemory)
                WHERE offset(id(b)) IN $offsets
                RETURN offset(id(a)), a.memory_id, b.memory_id, label(r), a.metadata,
                       {", ".join(f"r.{name}" for name in names)}""",
            {"offsets": offsets},
        )

    def _edges_among(self, rows: list[list[Any]], offsets: set[int]) -> list[KnowledgeEdge]:
        _, names = self._edge_properties()
        edges: list[KnowledgeEdge] = []
        for source_offset, source, target, rel, _, *values in rows:
            if source_offset not in offsets:
                continue
            props = dict(zip(names, values, strict=True))
            if rel == "SIMILAR_TO":
                meta = loads_json(props["metadata"], {})
                edges.append(KnowledgeEdge(source, target, rel, props["weight"] or 0.0, meta))
            else:
                meta = {name: props[name] for name in _EDGE_PROPERTIES[rel]}
                if rel == "SUPERSEDES":
                    meta = {name: value or "" for name, value in meta.items()}
                edges.append(KnowledgeEdge(source, target, rel, 1.0, meta))
        order = {rel: position for position, rel in enumerate(_EDGE_PROPERTIES)}
        edges.sort(key=lambda e: (order[e.relationship], -e.weight))
        return edges

    # -- provenance and supersession marks ----------------------------------------
    def _attach_provenance(self, nodes: list[KnowledgeNode]) -> None:
        source_ids = sorted({n.source_id for n in nodes if n.source_id})
        if not source_ids:
            return
        labels = dict(
            self.graph.rows(
                """MATCH (e:EpisodicMemory) WHERE e.memory_id IN $ids
                   RETURN e.memory_id, e.source_label""",
                {"ids": source_ids},
            )
        )
        for node in nodes:
            if labels.get(node.source_id):
                node.metadata["source_label"] = labels[node.source_id]

    def _mark_superseded(self, nodes: list[KnowledgeNode], rows: list[list[Any]]) -> None:
        """Flag facts a newer fact replaced; their confidence counts half, once."""
        _, names = self._edge_properties()
        newest: dict[str, tuple[float, str, str]] = {}
        for _, newer_id, old_id, rel, newer_meta, *values in rows:
            if rel != "SUPERSEDES":
                continue
            reason = dict(zip(names, values, strict=True))["reason"]
            index = _temporal_index(loads_json(newer_meta, {}))
            if old_id not in newest or index > newest[old_id][0]:
                newest[old_id] = (index, newer_id, reason or "")
        for node in nodes:
            if node.node_id not in newest:
                continue
            _, newer_id, reason = newest[node.node_id]
            node.metadata.update(superseded=True, superseded_by=newer_id, supersede_reason=reason)
            if "confidence_before_supersede" not in node.metadata:
                node.confidence = max(0.1, node.confidence * 0.5)

    @staticmethod
    def _mark_chain_positions(nodes: list[KnowledgeNode], edges: list[KnowledgeEdge]) -> None:
        import networkx as nx  # imported here: it costs 0.13 s of every start

        chain = nx.Graph()
        chain.add_edges_from(
            (e.source_id, e.target_id)
            for e in edges
            if e.relationship in ("SUPERSEDES", "TRANSITIONED_TO")
        )
        by_id = {n.node_id: n for n in nodes}
        for component in nx.connected_components(chain):
            members = sorted(
                (by_id[i] for i in component if i in by_id),
                key=lambda n: (_temporal_index(n.metadata), n.created_at),
            )
            for position, node in enumerate(members, 1):
                state = "superseded" if node.metadata.get("superseded") else "current"
                node.metadata["chain_position"] = f"chain {position}/{len(members)}, {state}"

    # -- the whole retrieval --------------------------------------------------------
    def retrieve(
        self, query: str, max_nodes: int, similarity_threshold: float, hops: bool
    ) -> KnowledgeSubgraph:
        subgraph = KnowledgeSubgraph(query=query)
        keywords = query_keywords(query)
        entities = query_entities(query)
        if max_nodes <= 0 or not (keywords or entities):
            return subgraph
        # Direct matches rank first and the query already orders them, so the
        # best max_nodes of them are all that can be returned; when they fill
        # the budget, neighbours could not make the cut and are not fetched.
        direct = self._direct(keywords, entities, max_nodes)
        chosen: dict[str, _Candidate] = dict(direct)
        if len(direct) < max_nodes:
            similar, chain = self._neighbours(direct, similarity_threshold if hops else None)
            chosen.update(chain)
            chosen.update({k: v for k, v in similar.items() if k not in chosen})
        ranked = sorted(chosen.values(), key=lambda c: (c.tier, -c.score))[:max_nodes]
        nodes = []
        for candidate in ranked:
            candidate.node.metadata["retrieved_because"] = candidate.reasons
            nodes.append(candidate.node)
        self._attach_provenance(nodes)
        offsets = [candidate.offset for candidate in ranked]
        incoming = self._edges_into(offsets)
        self._mark_superseded(nodes, incoming)
        subgraph.nodes = nodes
        subgraph.edges = self._edges_among(incoming, set(offsets))
        self._mark_chain_positions(nodes, subgraph.edges)
        return subgraph
