"""Which tables a home-wide search reads, and how one store's rows are searched.

Facts, episodes, experiences and flat memories: the tables agents keep what they
know in, by name in every store kind memexplorer reads (the Python library's
graph stores, amplihack-rs's SQLite and graph stores, experience stores, the flat
session stores). Every text column but the key and the agent is searched, case
insensitive; the text is always a parameter and the names come from the store's
own catalog, checked as identifiers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memexplorer.memory.inspection import detect_kind
from memexplorer.operator.browse import GraphBrowser, SqliteBrowser, StoreBrowser
from memexplorer.storage.graph_counts import agent_column
from memexplorer.storage.graph_store import identifier

__all__ = ["SEARCHED", "FindHit", "SearchTable", "count_matches", "page_matches",
           "searched_tables"]  # fmt: skip

#: Table name -> what its rows are (flat stores' tables are all "memory").
SEARCHED = {
    "SemanticMemory": "fact", "semantic_memories": "fact",
    "EpisodicMemory": "episode", "episodic_memories": "episode",
    "Experience": "experience", "experiences": "experience",
    "memory_entries": "memory", "ProceduralMemory": "memory",
}  # fmt: skip
_TEXT_TYPES = ("STRING", "TEXT", "VARCHAR", "CHAR", "CLOB")
#: Columns shown first in a hit, when a table has them.
_LABELS = ("content", "context", "title", "outcome", "value", "concept", "name")
#: Characters of context shown on either side of a match.
WINDOW = 48


@dataclass(frozen=True)
class SearchTable:
    """One searched table of a store: its key, agent and text columns."""

    name: str
    item: str  # "fact", "episode", "experience" or "memory"
    key: str
    agent_column: str | None
    text_columns: tuple[str, ...]


@dataclass(frozen=True)
class FindHit:
    """One row containing the text: its key, the column it was found in, and where."""

    key: str
    column: str
    snippet: str

    def to_dict(self) -> dict[str, str]:
        return {"key": self.key, "column": self.column, "snippet": self.snippet}


def _quoted(name: str) -> str:
    """A catalog name as an SQL identifier (checked, then double-quoted)."""
    identifier(name)
    return '"' + name + '"'


def _is_text(kind: str) -> bool:
    return any(kind.upper().startswith(t) for t in _TEXT_TYPES)


def _table(name: str, item: str, columns: list[tuple[str, str]], key: str | None) -> SearchTable:
    names = [n for n, _ in columns]
    agent = agent_column(names)
    key = key or ("rowid" if not names else names[0])
    texts = [n for n, k in columns if _is_text(k) and n not in (key, agent)]
    texts.sort(key=lambda n: _LABELS.index(n) if n in _LABELS else len(_LABELS))
    return SearchTable(name, item, key, agent, tuple(texts))


def searched_tables(browser: StoreBrowser) -> tuple[str, list[SearchTable]]:
    """The store's kind and the tables a search reads (a flat store's are memories
    whatever their name; a cognitive store's procedures are not searched)."""
    found = []
    kind = "sqlite"
    if isinstance(browser, GraphBrowser):
        graph = browser.graph
        tables = graph.node_tables()
        columns = {name: graph.columns(name) for name in tables}
        kind = detect_kind(set(tables), {t: {n for n, _ in c} for t, c in columns.items()})
        for name in tables:
            if name in SEARCHED and (name != "ProceduralMemory" or kind == "flat"):
                item = "memory" if kind == "flat" else SEARCHED[name]
                found.append(_table(name, item, columns[name], graph.primary_key(name)))
    elif isinstance(browser, SqliteBrowser):
        rows = browser.connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        ).fetchall()
        for (name,) in rows:
            if name in SEARCHED:
                info = browser.connection.execute(
                    "SELECT name, type, pk FROM pragma_table_info(?)", (name,)
                ).fetchall()
                keys = [n for n, _, pk in info if pk]
                key = keys[0] if len(keys) == 1 else "rowid"
                found.append(_table(name, SEARCHED[name], [(n, t) for n, t, _ in info], key))
        items = {t.item for t in found}
        kind = ("flat" if "memory" in items else "experience" if "experience" in items
                else "hierarchical" if items else "sqlite")  # fmt: skip
    return kind, [table for table in found if table.text_columns]


def snippet(value: str, text: str) -> str:
    """The part of ``value`` around the first match of ``text``, on one line."""
    flat = " ".join(value.split())
    at = flat.lower().find(text.lower())
    if at < 0:
        return flat[: 2 * WINDOW]
    start, end = max(0, at - WINDOW), min(len(flat), at + len(text) + WINDOW)
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")


def _graph_where(table: SearchTable) -> str:
    tests = " OR ".join(f"lower(n.{identifier(c)}) CONTAINS $text" for c in table.text_columns)
    return f"MATCH (n:{identifier(table.name)}) WHERE ({tests})"


def _sql_where(table: SearchTable) -> tuple[str, int]:
    tests = " OR ".join(f"instr(lower({_quoted(c)}), ?) > 0" for c in table.text_columns)
    return f"FROM {_quoted(table.name)} WHERE ({tests})", len(table.text_columns)


def count_matches(browser: StoreBrowser, table: SearchTable, text: str) -> dict[str, int]:
    """How many rows of each agent contain ``text`` (one scan of the table)."""
    needle = text.lower()
    if isinstance(browser, GraphBrowser):
        agent = f"n.{identifier(table.agent_column)}" if table.agent_column else "''"
        rows = browser.graph.rows(
            f"{_graph_where(table)} RETURN {agent}, count(*)", {"text": needle}
        )
    else:
        assert isinstance(browser, SqliteBrowser)
        source, n = _sql_where(table)
        agent = _quoted(table.agent_column) if table.agent_column else "''"
        rows = browser.connection.execute(
            f"SELECT {agent}, count(*) {source} GROUP BY 1", [needle] * n
        ).fetchall()
    return {str(row[0] or ""): int(row[1]) for row in rows if row[1]}


def _hit(key: Any, values: list[Any], table: SearchTable, text: str) -> FindHit:
    for column, value in zip(table.text_columns, values, strict=True):
        if isinstance(value, str) and text.lower() in value.lower():
            return FindHit(str(key), column, snippet(value, text))
    return FindHit(str(key), table.text_columns[0], snippet(str(values[0] or ""), text))


def page_matches(
    browser: StoreBrowser, table: SearchTable, agent: str, text: str, offset: int, limit: int
) -> list[FindHit]:
    """One page of the agent's rows containing ``text``, in key order."""
    needle = text.lower()
    if isinstance(browser, GraphBrowser):
        where = _graph_where(table)
        params: dict[str, Any] = {"text": needle, "skip": offset, "limit": limit}
        if table.agent_column:
            where += f" AND n.{identifier(table.agent_column)} = $agent"
            params["agent"] = agent
        key = f"n.{identifier(table.key)}"
        columns = ", ".join(f"n.{identifier(c)}" for c in table.text_columns)
        rows = browser.graph.rows(
            f"{where} RETURN {key}, {columns} ORDER BY {key} SKIP $skip LIMIT $limit", params
        )
    else:
        assert isinstance(browser, SqliteBrowser)
        source, n = _sql_where(table)
        args: list[Any] = [needle] * n
        if table.agent_column:
            source += f" AND {_quoted(table.agent_column)} = ?"
            args.append(agent)
        key = "rowid" if table.key == "rowid" else _quoted(table.key)
        columns = ", ".join(_quoted(c) for c in table.text_columns)
        rows = browser.connection.execute(
            f"SELECT {key}, {columns} {source} ORDER BY 1 LIMIT ? OFFSET ?", [*args, limit, offset]
        ).fetchall()
    return [_hit(row[0], list(row[1:]), table, text) for row in rows]
