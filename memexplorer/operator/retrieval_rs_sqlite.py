"""The ``amplihack-rs`` retrieval profile on amplihack-rs's own SQLite store.

amplihack-rs's GraphRagRetriever walks the agent's facts and edges as vectors
in memory, in the order they were loaded; on the SQLite store that order is
the rows' (``rowid``: the order the import wrote them). This runs the same
steps as :class:`~.retrieval_rs.RsRetriever` (keywords, each keyword's most
confident facts, SIMILAR_TO both ways by weight, a stable sort by confidence,
the trim), with SQL instead of Cypher. Lower-casing is Python's
(``str.lower``, as Rust's ``to_lowercase``), not SQLite's ASCII-only ``lower``.
The ``library`` and ``ranked`` profiles read graph stores only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memexplorer.memory.hierarchical_schema import fact_from_row
from memexplorer.memory.knowledge import KnowledgeNode, KnowledgeSubgraph
from memexplorer.memory.library_context import LibrarySubgraph
from memexplorer.memory.retrieval_profiles import DEFAULT_KNOBS, Knobs, check_profile
from memexplorer.memory.retrieval_rs import RsRetriever, rs_keywords
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.sqlite_db import SqliteConnection
from memexplorer.storage.sqlite_readonly import open_sqlite_readonly

__all__ = ["RsSqliteRetriever", "rs_query_store", "rs_sqlite_retrieve"]

_FACT = (
    "memory_id, concept, content, confidence, source_id, tags, metadata, created_at, entity_name"
)
#: The only characters outside ASCII that Python lower-cases to ASCII letters ("İ" to
#: "i̇", the Kelvin sign to "k"): a row holding none of them matches an ASCII word
#: exactly where SQLite's ASCII-only case-insensitive LIKE says it does.
_TO_ASCII = ("\u0130", "\u212a")
#: Words matched in one scan: each is a bit of a mask SQLite holds in 64 bits.
_WORDS_PER_SCAN = 60


def _like_pattern(word: str) -> str:
    escaped = word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _hits_sql(words: list[str]) -> tuple[str, str, list[str]]:
    """SQL for a bit mask of which ``words`` (already lower-cased) a row's content or
    concept holds once lower-cased as Python (and Rust) do, SQL for a cheap test every
    row with a hit passes, and their parameters, which follow the agent's (``?1``).
    ASCII words are matched by SQLite's LIKE in C, except in rows holding a character
    Python lower-cases to ASCII; other words, and those rows, go through Python."""
    count = len(words)
    names = ", ".join(f"?{i + 2}" for i in range(count))
    python = f"py_hits(content, concept, {names})"
    if not all(word.isascii() for word in words):
        return python, "1", list(words)
    special = " OR ".join(
        f"instr({column}, '{char}') > 0"
        for column in ("coalesce(content, '')", "coalesce(concept, '')")
        for char in _TO_ASCII
    )
    likes = [
        (f"content LIKE ?{count + i + 2} ESCAPE '\\'", f"concept LIKE ?{count + i + 2} ESCAPE '\\'")
        for i in range(count)
    ]
    mask = " + ".join(
        f"(((typeof(content) = 'text' AND {content}) OR (typeof(concept) = 'text' AND {concept}))"
        f" * {1 << i})"
        for i, (content, concept) in enumerate(likes)
    )
    candidate = " OR ".join(f"{content} OR {concept}" for content, concept in likes)
    sql = f"CASE WHEN {special} THEN {python} ELSE {mask} END"
    return sql, f"{candidate} OR {special}", [*words, *(_like_pattern(word) for word in words)]


_NEIGHBOURS = """
    SELECT e.weight, e.id, {columns} FROM similar_to_edges e
    JOIN semantic_memories b ON b.memory_id = e.{far}
    WHERE e.{near} = ? AND b.agent_id = ? AND e.weight >= ?
"""


def _lower(text: Any) -> str:
    return text.lower() if isinstance(text, str) else ""


def _py_hits(content: Any, concept: Any, *words: str) -> int:
    text, name = _lower(content), _lower(concept)
    return sum(1 << i for i, word in enumerate(words) if word in text or word in name)


class RsSqliteRetriever(RsRetriever):
    """amplihack-rs's retrieve_subgraph for one agent of an open ``<agent>.db``."""

    def __init__(self, connection: SqliteConnection, agent_id: str) -> None:
        super().__init__(None, agent_id, {"SIMILAR_TO"})  # type: ignore[arg-type]
        self.connection = connection
        connection.create_function("py_hits", -1, _py_hits, deterministic=True)

    def retrieve(self, query: str, max_depth: int = 2, max_nodes: int = 20,
                 min_similarity: float = 0.3) -> LibrarySubgraph:  # fmt: skip
        self._tops = self._all_tops(rs_keywords(query), max_nodes)
        return super().retrieve(query, max_depth, max_nodes, min_similarity)

    def _all_tops(self, keywords: list[str], limit: int) -> dict[str, list[int]]:
        """Every keyword's ``limit`` most confident facts (row ids, ties in row order),
        from one scan of the agent's facts per 60 words (a bit each in a 64-bit mask)."""
        words = list(dict.fromkeys(k.strip().lower() for k in keywords if k.strip()))
        tops: dict[str, list[int]] = {}
        for start in range(0, len(words) if limit > 0 else 0, _WORDS_PER_SCAN):
            tops.update(self._scan(words[start : start + _WORDS_PER_SCAN], limit))
        return tops

    def _scan(self, words: list[str], limit: int) -> dict[str, list[int]]:
        """The words' tops from one pass: the rows with a hit are kept aside by SQLite
        (a materialised CTE), and each word's most confident are sorted out of them in C."""
        hits, candidate, params = _hits_sql(words)
        at = len(params) + 2  # the limit's parameter
        branches = " UNION ALL ".join(
            f"SELECT * FROM (SELECT {i} AS w, r, row_number() OVER (ORDER BY c DESC, r) AS k "
            f"FROM m WHERE (h & {1 << i}) != 0 ORDER BY c DESC, r LIMIT ?{at})"
            for i in range(len(words))
        )
        rows = self.connection.execute(
            f"WITH m AS MATERIALIZED (SELECT rowid AS r, confidence AS c, {hits} AS h "
            f"FROM semantic_memories WHERE agent_id = ?1 AND ({candidate})) {branches}",
            (self.agent_id, *params, limit),
        ).fetchall()
        tops: dict[str, list[int]] = {word: [] for word in words}
        for index, rowid, _ in sorted(rows, key=lambda row: (row[0], row[2])):  # SQL's order
            tops[words[index]].append(rowid)
        return tops

    def keyword_search(self, keyword: str, limit: int) -> list[KnowledgeNode]:
        lower = keyword.strip().lower()
        if not lower or limit <= 0:
            return []
        tops = getattr(self, "_tops", {})
        if lower not in tops:
            tops = self._all_tops([lower], limit)
        ids = tops[lower][:limit]
        found = {
            row[0]: row[1:]
            for row in self.connection.execute(
                f"SELECT rowid, {_FACT} FROM semantic_memories "
                f"WHERE rowid IN ({', '.join('?' * len(ids))})",
                ids,
            )
        }
        return [fact_from_row(list(found[i])) for i in ids if i in found]

    def similar_to_expand(self, node_id: str, min_similarity: float) -> list[tuple[Any, float]]:
        """Neighbours over SIMILAR_TO either way, heaviest first, ties by edge row."""
        columns = ", ".join(f"b.{name}" for name in _FACT.split(", "))
        found = []
        for near, far in (("source_id", "target_id"), ("target_id", "source_id")):
            sql = _NEIGHBOURS.format(columns=columns, near=near, far=far)
            found += self.connection.execute(sql, (node_id, self.agent_id, float(min_similarity)))
        found.sort(key=lambda row: (-row[0], row[1]))
        return [(fact_from_row(list(row[2:])), row[0]) for row in found]


def rs_sqlite_retrieve(
    store: Path,
    agent: str,
    query: str,
    *,
    profile: str = "amplihack-rs",
    knobs: Knobs = DEFAULT_KNOBS,
) -> KnowledgeSubgraph:
    """Run the amplihack-rs profile with ``knobs`` on the agent's SQLite store, read-only."""
    if check_profile(profile) != "amplihack-rs":
        raise InvalidInputError(
            f"The {profile} profile reads graph stores; {store} is amplihack-rs's SQLite store",
            hint="Use --profile amplihack-rs (the agent's own retrieval), or copy the store "
            "with memexplorer migrate and query the copy.",
        )
    connection = open_sqlite_readonly(store)
    try:
        retriever = RsSqliteRetriever(connection, agent)
        return retriever.retrieve(query, *knobs)
    finally:
        connection.close()


def rs_query_store(agent: str, store: str | Path | None, home: str | Path | None) -> Path | None:
    """amplihack-rs's SQLite store a query means, or None for a graph store: ``store``
    naming such a file, or with ``AMPLIHACK_MEMORY_BACKEND=sqlite`` the agent's
    ``<agent>.db`` in the home ``store`` or ``home`` names (default ``~/.amplihack``)."""
    from memexplorer.operator.rs_sqlite_transfer import is_rs_store, rs_store_path
    from memexplorer.operator.transfer_common import transfer_wants_sqlite
    from memexplorer.storage.backend_choice import amplihack_home

    given = Path(store).expanduser() if store is not None else None
    if given is not None and given.is_file():
        return given if is_rs_store(given) else None
    if not transfer_wants_sqlite():
        return None
    if given is not None:
        home = given / ".amplihack" if (given / ".amplihack").is_dir() else given
    return rs_store_path(agent, storage_path=None, home=amplihack_home(home))
