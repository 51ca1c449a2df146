"""Which facts the profiles' keyword scans would return, decided from the keyword index.

Why: the scans test ``lower(text) CONTAINS word`` on every fact. The index
(:mod:`.keyword_index`) holds each fact's texts exactly as the store's own
``lower()`` returns them, so ``word in text`` here is the same test, and its
trigram FTS5 table names a superset of the facts that can pass it. A test with
few candidates ("rare") has them all read and decided; the facts passing only
common tests are met by walking the facts in the order the scan's ORDER BY (or
its table order) uses, stopping as soon as no fact further on can change the
answer. The argument for each is in docs/keyword-index.md. None means "cannot
decide here: let the store scan".
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from typing import Any

from memexplorer.memory.keyword_index import KeywordIndex
from memexplorer.storage.sqlite_db import SqliteError

__all__ = ["Test", "first_matches", "ranked_top", "stored_values", "top_by_confidence"]

#: A test: the index column ("content", "concept", "entity") and the text it must hold.
Test = tuple[str, str]
#: Row layout: 0 pos, 1-3 lowered content/concept/entity, 4 confidence, 5 created_at, 6 memory_id.
Row = tuple[Any, ...]

#: A test with more candidates than this is "common": met by walking, not read whole.
CANDIDATE_CAP = 5_000
#: Facts walked before giving up and letting the store scan.
WALK_CAP = 250_000
_CHUNK = 1_024
_COLUMNS = "pos, content, concept, entity, confidence, created_at, memory_id"
_FIELD = {"content": 1, "concept": 2, "entity": 3}


class _Undecided(Exception):
    """The index cannot decide this (a text under three characters, a walk too long)."""


def _phrase(column: str, text: str) -> str:
    return f'{column} : "{text.replace(chr(34), chr(34) * 2)}"'


def _rarest_gram(index: KeywordIndex, column: str, text: str) -> tuple[int, str]:
    """The trigram of ``text`` the fewest facts hold in ``column``, and how many hold it."""
    grams = {text[i : i + 3] for i in range(len(text) - 2)}
    counts = []
    for gram in grams:
        found = index.rows("SELECT docs FROM gram_docs WHERE term = ? AND col = ?", (gram, column))
        counts.append((found[0][0] if found else 0, gram))
    return min(counts)


def _split(index: KeywordIndex, tests: list[Test]) -> tuple[dict[int, Row], list[Test]]:
    """The rare tests' candidates (a superset of their matches), and the common tests.

    A fact holding a text holds each of its trigrams, so the facts holding its
    rarest trigram are a superset of its matches; a test is rare when they are
    at most CANDIDATE_CAP.
    """
    rare: set[int] = set()
    common: list[Test] = []
    for column, text in dict.fromkeys(tests):
        if len(text) < 3:  # the trigram table cannot name its candidates
            raise _Undecided
        docs, gram = _rarest_gram(index, column, text)
        if docs > CANDIDATE_CAP:
            common.append((column, text))
        elif docs:
            try:
                found = index.rows(
                    "SELECT rowid FROM grams WHERE grams MATCH ?", (_phrase(column, gram),)
                )
            except SqliteError:
                raise _Undecided from None
            rare.update(pos for (pos,) in found)
    rows: dict[int, Row] = {}
    positions = sorted(rare)
    for start in range(0, len(positions), 500):
        part = positions[start : start + 500]
        marks = ", ".join("?" * len(part))
        for row in index.rows(f"SELECT {_COLUMNS} FROM facts WHERE pos IN ({marks})", tuple(part)):
            rows[row[0]] = row
    return rows, common


def _walk(
    index: KeywordIndex, order: str, tests: list[Test], go_on: Any = None, floor: Any = None
) -> Iterator[Row]:
    """The facts that pass any test, in ``order`` ("pos", or "rank": confidence
    descending then offset), scanning at most WALK_CAP facts.

    SQLite's ``instr`` on the same lowered texts picks them (callers decide each
    again); ``go_on(confidence)``, given, is asked before each further chunk
    with the confidence the chunk starts at; ``floor()``, given, returns an SQL
    condition and its parameters that every fact still worth reading meets.
    """
    where = " OR ".join(f"instr({column}, ?) > 0" for column, _ in tests)
    texts = tuple(text for _, text in tests)
    end = index.rows(f"SELECT max({order}) FROM facts")[0][0]
    low, chunk = 0, _CHUNK
    while end is not None and low <= end:
        if low >= WALK_CAP:
            raise _Undecided
        if go_on is not None and low:
            first = index.rows("SELECT confidence FROM facts WHERE rank = ?", (low,))
            if first and not go_on(first[0][0]):
                return
        condition, values = floor() if floor is not None else ("1", ())
        yield from index.rows(
            f"""SELECT {_COLUMNS} FROM facts WHERE {order} >= ? AND {order} < ?
                AND {condition} AND ({where}) ORDER BY {order}""",
            (low, low + chunk, *values, *texts),
        )
        # Dense matches end a walk early; sparse ones are read in ever longer strides.
        low, chunk = low + chunk, min(chunk * 2, 32_768)


def _passes(row: Row, tests: list[Test]) -> bool:
    for column, text in tests:
        value = row[_FIELD[column]]
        if value is not None and text in value:
            return True
    return False


def _in_order(
    index: KeywordIndex, tests: list[Test], limit: int, order: str, key: Any
) -> list[Row] | None:
    """The first ``limit`` facts passing any test, in ``order`` (whose sort key is ``key``).

    All tests rare: their candidates, decided and sorted. Any test common: the
    facts walked in that order, each decided, up to the limit-th match.
    """
    try:
        rare, common = _split(index, tests)
        if not common:
            return sorted((r for r in rare.values() if _passes(r, tests)), key=key)[:limit]
        found: list[Row] = []
        for row in _walk(index, order, tests):
            if len(found) >= limit:
                break
            if _passes(row, tests):
                found.append(row[:7])
    except _Undecided:
        return None
    return found


def first_matches(index: KeywordIndex, tests: list[Test], limit: int) -> list[Row] | None:
    """The first ``limit`` facts in table order passing any test: a LIMIT window
    without ORDER BY read on one scan thread (the ``library`` profile)."""
    return _in_order(index, tests, limit, "pos", lambda row: row[0])


def top_by_confidence(index: KeywordIndex, tests: list[Test], limit: int) -> list[Row] | None:
    """The ``limit`` facts passing any test by confidence descending, then table
    order: ``ORDER BY m.confidence DESC, offset(id(m)) LIMIT`` (``amplihack-rs``)."""
    if not index.orderable:
        return None
    return _in_order(index, tests, limit, "rank", lambda row: (-row[4], row[0]))


def stored_values(index: KeywordIndex, rows: list[Row]) -> dict[int, Row]:
    """The stored concept, content, source_id, tags and metadata of ``rows``, by position."""
    found: dict[int, Row] = {}
    positions = [row[0] for row in rows]
    for start in range(0, len(positions), 500):
        part = positions[start : start + 500]
        marks = ", ".join("?" * len(part))
        found.update(
            (row[0], row[1:])
            for row in index.rows(
                f"""SELECT pos, raw_concept, raw_content, source_id, tags, metadata
                    FROM stored WHERE pos IN ({marks})""",
                tuple(part),
            )
        )
    return found


def _ranked_order(scored: list[tuple[float, Row]], limit: int) -> list[tuple[float, Row]]:
    """``ORDER BY rank DESC, m.created_at DESC, offset(id(m))`` then LIMIT (stable passes)."""
    ordered = sorted(scored, key=lambda item: item[1][0])
    ordered.sort(key=lambda item: item[1][5], reverse=True)
    ordered.sort(key=lambda item: item[0], reverse=True)
    return ordered[:limit]


def ranked_top(
    index: KeywordIndex, keywords: list[str], entities: list[str], limit: int
) -> list[tuple[float, Row]] | None:
    """The ``ranked`` profile's direct matches: (rank, fact) of the ``limit`` best.

    The rank is the scan's expression, ``confidence * (0.5 + 0.5 * hits / K)``,
    with hits the keywords in the content, in the same floating-point steps.
    """
    if not index.orderable:
        return None
    tests = [(col, k) for k in keywords for col in ("content", "concept")]
    tests += [("entity", e) for e in entities]
    words = float(max(len(keywords), 1))

    def rank(row: Row) -> float:
        hits = sum(1 for k in keywords if row[1] is not None and k in row[1])
        return row[4] * (0.5 + 0.5 * hits / words)

    try:
        rare, common = _split(index, tests)
        scored = [(rank(row), row) for row in rare.values() if _passes(row, tests)]
        # A fact outside the rare candidates holds only the common keywords in its
        # content: its rank is at most its confidence times this (half when negative).
        most = 0.5 + 0.5 * sum(1 for column, _ in common if column == "content") / words
        best = heapq.nlargest(limit, (score for score, _ in scored))
        heapq.heapify(best)

        def go_on(confidence: float) -> bool:
            bound = confidence * most if confidence >= 0 else confidence * 0.5
            return len(best) < limit or bound >= best[0]

        # The scan's rank, computed by SQLite, to skip facts that cannot reach the
        # current last place (kept with a margin; each is ranked again here).
        hits = " + ".join("(ifnull(instr(content, ?), 0) > 0)" for _ in keywords) or "0"
        reach = f"confidence * (0.5 + 0.5 * ({hits}) / ?) >= ?"

        def floor() -> tuple[str, tuple[Any, ...]]:
            if len(best) < limit:
                return "1", ()
            margin = 1e-9 * max(1.0, abs(best[0]))
            return reach, (*keywords, words, best[0] - margin)

        if common:
            for row in _walk(index, "rank", common, go_on, floor):
                if not go_on(row[4]):
                    break
                if row[0] not in rare and _passes(row, common):
                    scored.append((rank(row), row[:7]))
                    if len(best) < limit:
                        heapq.heappush(best, scored[-1][0])
                    else:
                        heapq.heappushpop(best, scored[-1][0])
    except _Undecided:
        return None
    return _ranked_order(scored, limit)
