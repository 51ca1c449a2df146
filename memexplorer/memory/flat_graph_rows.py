"""Reading a flat graph store's memory nodes: which tables it has, what is live,
and a node as the :class:`.flat_model.FlatMemory` both backends return.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memexplorer.memory.flat_graph_schema import MEMORY_TABLES, MemoryTable
from memexplorer.memory.flat_model import FlatMemory, iso, json_list, json_object, utc_now
from memexplorer.storage.graphdb import GraphStore, identifier

__all__ = ["FlatCatalog", "graph_memory", "live_agent_counts", "naive_utc"]

_NUMBER = (int, float)


def naive_utc(moment: datetime) -> datetime:
    """Kuzu TIMESTAMPs are UTC without a zone."""
    return moment.astimezone(UTC).replace(tzinfo=None)


class FlatCatalog:
    """Which memory tables (and which of their columns) a store has."""

    def __init__(self, graph: GraphStore) -> None:
        names = set(graph.node_tables())
        rels = set(graph.rel_tables())
        self.has_session = "Session" in names
        self.has_agent = "Agent" in names
        self.tables: list[MemoryTable] = [
            t for t in MEMORY_TABLES if t.label in names and t.rel in rels and self.has_session
        ]
        self.columns = {t.label: {c for c, _ in graph.columns(t.label)} for t in self.tables}

    def live(self, table: MemoryTable, params: dict[str, Any]) -> str:
        """The not-expired condition for one table (adding ``$now`` when it needs it)."""
        if "expires_at" not in self.columns[table.label]:
            return "true"
        params["now"] = naive_utc(utc_now())
        return "(m.expires_at IS NULL OR m.expires_at > $now)"


def live_agent_counts(graph: GraphStore) -> dict[str, dict[str, int]]:
    """Live memories per agent and memory table, as inspection's summaries report them,
    agents sorted by name: Kuzu returns its groups in no fixed order (it changed between
    two runs on one store), and every other kind of store lists its agents sorted."""
    catalog = FlatCatalog(graph)
    counts: dict[str, dict[str, int]] = {}
    for table in catalog.tables:
        params: dict[str, Any] = {}
        live = catalog.live(table, params)
        rows = graph.rows(
            f"MATCH (m:{identifier(table.label)}) WHERE {live} RETURN m.agent_id, count(m)",
            params,
        )
        for agent, count in rows:
            counts.setdefault(agent or "", {})[table.label] = count
    return dict(sorted(counts.items()))


def _importance(props: dict[str, Any], metadata: dict[str, Any]) -> int | None:
    """The node's own importance column, else the one kept in its metadata."""
    for value in (
        props.get("importance"), props.get("importance_score"), props.get("priority"),
        metadata.get("importance"),
    ):  # fmt: skip
        if isinstance(value, _NUMBER) and not isinstance(value, bool):
            return max(0, min(10, int(value)))
    return None


def graph_memory(table: MemoryTable, session_id: str | None, props: dict[str, Any]) -> FlatMemory:
    confidence = props.get("confidence_score")
    usage = props.get("usage_count")
    title = props.get("title") or props.get("concept") or props.get("procedure_name") or ""
    content = props.get("content") or props.get("description") or props.get("intention") or ""
    metadata = json_object(props.get("metadata"))
    return FlatMemory(
        memory_id=props["memory_id"],
        session_id=session_id or "",
        agent_id=props.get("agent_id") or "",
        memory_type=table.memory_type,
        title=title,
        content=content,
        importance=_importance(props, metadata),
        confidence=float(confidence) if isinstance(confidence, _NUMBER) else None,
        usage_count=usage if isinstance(usage, int) else None,
        created_at=iso(props.get("created_at")),
        accessed_at=iso(props.get("accessed_at")),
        expires_at=iso(props["expires_at"]) if props.get("expires_at") is not None else None,
        tags=json_list(props.get("tags")),
        metadata=metadata,
    )
