"""Pages of a graph store's table in one stable order, each read from its nearer end.

Why: at a million facts, ``SKIP 999900`` made Kuzu read and throw away 999,900 rows
with every column, and a sort read every column of every row into its heap; with
more than one thread the unsorted order was not even the same twice.

The order of a page is the sort column (if any), then the row's place in storage
(``offset(id(n))``), both in the page's direction: descending is exactly ascending
turned round (Kuzu sorts NULL last ascending, first descending), so a page past the
middle is read from the other end with a short ``SKIP`` and turned round. A node
page first picks its rows' keys, reading only the sort column, and then reads
those rows by their primary key (an index lookup each); a rel page reads its rows
in one query. A filtered node page picks the keys of every match at once, which
also counts them: one scan of the text columns instead of two.

An unsorted page of a rel table keeps Kuzu's own order, as before: ordering two
million edges by their place took a traversal of all of them (1.2 s, against
0.5 s for a first page that stops early), and an edge has no key to read it by.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyarrow as pa

from memexplorer.operator.browse_types import Page, PageQuery, TableInfo
from memexplorer.storage.graph_store import identifier

if TYPE_CHECKING:
    from memexplorer.operator.graph_browse import GraphBrowser

__all__ = ["graph_page", "page_window"]

#: The column a selection names the row's place in storage by (``offset(id(n))``):
#: the tie-break of every order.
PLACE = "_place"


def page_window(offset: int, limit: int, total: int) -> tuple[int, int, bool]:
    """SKIP and LIMIT of the page's rows, and whether they are read from the other
    end (then in the reverse order, to be turned round)."""
    if offset > 0 and offset + limit / 2 > total / 2:
        limit = max(0, min(limit, total - offset))
        return max(0, total - offset - limit), limit, True
    return offset, limit, False


def _order(sort: str | None, descending: bool, place: str = "offset(id(n))") -> str:
    """``ORDER BY``'s keys: the sort expression, then the row's place in storage."""
    way = "DESC" if descending else "ASC"
    keys = [f"{sort} {way}"] if sort else []
    return ", ".join([*keys, f"{place} {way}"])


def _node_rows(browser: GraphBrowser, table: TableInfo, keys: list[Any]) -> pa.Table:
    """The rows of ``keys``, in that order, each found by its primary key."""
    pk = identifier(table.primary_key or "")
    names = table.column_names
    projection = ", ".join(f"n.{identifier(c)} AS {identifier(c)}" for c in names)
    match = f"MATCH (n:{identifier(table.name)})"
    found: list[list[Any]] = []
    for key in keys:
        rows = browser.graph.rows(
            f"{match} WHERE n.{pk} = $key RETURN {projection}", {"key": key}, reuse=True
        )
        found.extend(rows[:1])  # a row deleted since its key was read is left out
    schema = browser.page_schema(table)
    try:
        return pa.Table.from_pylist([dict(zip(names, r, strict=True)) for r in found], schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError):
        # A column type whose Python value Arrow does not take back as Kuzu gave it
        # (a MAP, a UNION): ask for each row as Arrow instead.
        parts = [
            browser.graph.arrow(f"{match} WHERE n.{pk} = $key RETURN {projection}", {"key": k})
            for k in keys
        ]
        return pa.concat_tables(parts) if parts else schema.empty_table()


def _node_selection(
    browser: GraphBrowser, table: TableInfo, agent: str, text: str
) -> tuple[str, dict[str, Any]]:
    """``MATCH … WHERE …`` of a node page's rows, naming the columns on ``n``: a
    ``WITH`` of every column made Kuzu read each of them for every row."""
    match, params = browser._node_match(table.name, agent)
    if not text:
        return match, params
    tests = " OR ".join(
        f"lower(n.{identifier(c.name)}) CONTAINS $text" for c in table.columns if c.is_text
    )
    joint = " AND " if " WHERE " in match else " WHERE "
    return f"{match}{joint}({tests or 'false'})", {**params, "text": text.lower()}


def _node_page(browser: GraphBrowser, table: TableInfo, agent: str, query: PageQuery) -> Page:
    graph = browser.graph
    match, params = _node_selection(browser, table, agent, query.text)
    key = f"n.{identifier(table.primary_key or '')}"
    sort = f"n.{identifier(query.sort)}" if query.sort else None
    if query.text:
        # Every match's key in page order: the count and the page from one scan.
        order = _order(sort, query.descending)
        matches = graph.arrow(f"{match} RETURN {key} ORDER BY {order}", params)
        picked = matches.column(0).slice(query.offset, query.limit).to_pylist()
        return Page(table.name, query, _node_rows(browser, table, picked), matches.num_rows)
    total = int(graph.scalar(f"{match} RETURN count(*)", params) or 0)
    whole = f"MATCH (n:{identifier(table.name)})"
    if params and total == graph.scalar(f"{whole} RETURN count(*)"):
        # Every row is the agent's (Kuzu counts a whole table from its statistics):
        # the window needs no test of the agent column, a fifth of its cost.
        match, params = whole, {}
    skip, limit, backwards = page_window(query.offset, query.limit, total)
    order = _order(sort, query.descending != backwards)
    params = {**params, "skip": skip, "limit": limit}
    found = graph.rows(f"{match} RETURN {key} ORDER BY {order} SKIP $skip LIMIT $limit", params)
    keys = [row[0] for row in (found[::-1] if backwards else found)]
    return Page(table.name, query, _node_rows(browser, table, keys), total)


def graph_page(browser: GraphBrowser, table: TableInfo, agent: str, query: PageQuery) -> Page:
    """One page of ``table`` for ``agent``, in the order the module docstring gives."""
    if table.kind == "node" and table.primary_key is not None:
        return _node_page(browser, table, agent, query)
    graph = browser.graph
    place = PLACE if query.sort else None
    rows, counted, params = browser._selection(table, agent, query.text, place=place)
    total = int(graph.scalar(f"{counted} RETURN count(*)", params) or 0)
    skip, limit, backwards = query.offset, query.limit, False
    window = "SKIP $skip LIMIT $limit"
    if query.sort:
        skip, limit, backwards = page_window(query.offset, query.limit, total)
        order = _order(identifier(query.sort), query.descending != backwards, PLACE)
        window = f"ORDER BY {order} {window}"
    params = {**params, "skip": skip, "limit": limit}
    found = graph.arrow(f"{rows} RETURN * {window}", params)
    found = found.rename_columns([n.split(".", 1)[-1] for n in found.column_names])
    if place is not None:
        found = found.drop_columns([place])
    data = found.take(list(range(found.num_rows - 1, -1, -1))) if backwards else found
    return Page(table.name, query, data, total)
