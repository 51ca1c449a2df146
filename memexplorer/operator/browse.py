"""Read-only browsing of any store, for the app: an agent's tables, pages of rows,
one node with its edges.

Pages come from the database a page at a time (never every row in memory), as
Arrow tables the app's table widget draws directly. Kuzu and LadybugDB graph
stores (graph_browse) and SQLite stores (sqlite_browse, rs_sqlite_browse for
amplihack-rs's) answer the same calls, :class:`StoreBrowser`; :func:`open_browser`
chooses the browser for a store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from memexplorer.memory.inspection import open_graph
from memexplorer.operator.browse_types import EdgeInfo, NodeDetail, Page, PageQuery, TableInfo
from memexplorer.operator.graph_browse import GraphBrowser
from memexplorer.operator.sqlite_browse import SqliteBrowser
from memexplorer.operator.write_gate import refuse_if_read_only
from memexplorer.storage.exceptions import StoreError
from memexplorer.storage.sqlite_db import SqliteDatabaseError
from memexplorer.storage.stores import StoreFormat, sniff

__all__ = [
    "EdgeInfo",
    "GraphBrowser",
    "NodeDetail",
    "Page",
    "PageQuery",
    "SqliteBrowser",
    "StoreBrowser",
    "TableInfo",
    "open_browser",
]


class StoreBrowser(Protocol):
    path: Path

    def agents(self) -> list[str]: ...

    def tables(self, agent: str) -> list[TableInfo]: ...

    def page(self, table: TableInfo, agent: str, query: PageQuery) -> Page: ...

    def matching_keys(self, table: TableInfo, agent: str, text: str) -> list[str]: ...

    def node(self, table: str, key: str) -> NodeDetail: ...

    def interrupt(self) -> None: ...

    def close(self) -> None: ...


def _sqlite_browser(path: Path, writable: bool) -> SqliteBrowser:
    """The browser for an SQLite store: amplihack-rs's hierarchical schema gets its
    edge tables and node edges, any other schema the generic browser."""
    from memexplorer.memory.rs_sqlite_schema import is_rs_hierarchical
    from memexplorer.operator.rs_sqlite_browse import RsSqliteBrowser

    browser = SqliteBrowser(path, writable=writable)
    if not is_rs_hierarchical(browser._tables):
        return browser
    browser.close()
    return RsSqliteBrowser(path, writable=writable)


def open_browser(
    path: str | Path | StoreFormat, *, writable: bool = False, allow_upgrade: bool = False
) -> StoreBrowser:
    """Open any store the engine can read for browsing: read-only, unless ``writable``
    (refused with StoreLockedError while another process holds the store, and with
    StoreUpgradeRequired when writing would rewrite an older LadybugDB store, unless
    ``allow_upgrade``). Under MEMEXPLORER_READ_ONLY=1 ``writable`` is refused with
    WritesDisabledError: an engine opened for writing may rewrite its header on
    close even when nothing was written."""
    fmt = path if isinstance(path, StoreFormat) else sniff(path)
    if writable:
        refuse_if_read_only(fmt.path, "the store was not opened for writing")
    if fmt.engine == "sqlite":
        try:
            return _sqlite_browser(fmt.path, writable)
        except SqliteDatabaseError as exc:
            raise StoreError(fmt.path, f"SQLite could not read the store ({exc})") from None
    # A writable browser stays open while the operator works (writing mode): this
    # process's other reads of the store share its database rather than open another.
    graph = open_graph(fmt.path, read_only=not writable, allow_upgrade=allow_upgrade,
                       lend=writable)  # fmt: skip
    return GraphBrowser(graph)
