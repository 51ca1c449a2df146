"""The Kuzu experience backend: the reference's ``kuzu_db`` (seed 000's Experience
node with SIMILAR_TO and LEADS_TO), and read access to seed 004's layout.

The store is shared with every other memory this process has open on the same
file (:mod:`memexplorer.storage.shared_graph`): an existing file opens read-only
and is reopened read-write, for all of them, on the first write. Kuzu allows
many read-only processes or one writer, so a store a running agent holds fails
at once with :class:`StoreLockedError` and is left untouched.

Search here has no FTS index: every query word (lower-cased, with a plural or
-ing/-ed ending taken off) must occur in context or outcome, which gives the
SQLite backend's results for everyday words ("tutorial" finds "tutorials").
Statistics and retention are in :mod:`.experience_kuzu_upkeep`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memexplorer.memory.experience import Experience, ExperienceType
from memexplorer.memory.experience_backend import (
    ExperienceFilter,
    MemoryBackend,
    Retention,
    check_experience,
    experiences_from_rows,
)
from memexplorer.memory.experience_kuzu_upkeep import kuzu_cleanup, kuzu_statistics
from memexplorer.memory.experience_layouts import Layout, detect_layout
from memexplorer.memory.seed004_record import Seed004Experience
from memexplorer.memory.seed004_store import read_seed004
from memexplorer.storage.exceptions import (
    CorruptStoreError,
    InvalidExperienceError,
    NotAStoreError,
    SchemaMismatchError,
    StoreClosedError,
    UnsupportedEngineError,
)
from memexplorer.storage.graphdb import QueryError
from memexplorer.storage.shared_graph import SharedGraph, acquire_graph, release_graph

__all__ = ["KUZU_BUFFER_POOL", "KuzuExperienceBackend", "search_stem"]

#: Experience stores are small; a modest pool keeps many open stores cheap.
KUZU_BUFFER_POOL = 128 * 1024 * 1024

_SCHEMA = (
    """CREATE NODE TABLE IF NOT EXISTS Experience(
        experience_id STRING, agent_name STRING, experience_type STRING,
        context STRING, outcome STRING, confidence DOUBLE, timestamp INT64,
        metadata STRING, tags STRING, compressed BOOLEAN,
        PRIMARY KEY(experience_id))""",
    """CREATE REL TABLE IF NOT EXISTS SIMILAR_TO(
        FROM Experience TO Experience, similarity_score DOUBLE)""",
    """CREATE REL TABLE IF NOT EXISTS LEADS_TO(
        FROM Experience TO Experience, causal_strength DOUBLE)""",
)
_RETURN = (
    "RETURN e.experience_id, e.experience_type, e.context, e.outcome, e.confidence, "
    "e.timestamp, e.metadata, e.tags"
)
_CREATE = (
    "CREATE (:Experience {experience_id: $id, agent_name: $agent, experience_type: $type, "
    "context: $context, outcome: $outcome, confidence: $confidence, timestamp: $ts, "
    "metadata: $metadata, tags: $tags, compressed: false})"
)
_SUFFIXES = ("ies", "ing", "es", "ed", "s")


def search_stem(word: str) -> str:
    """A word reduced to a prefix its inflections share (plural, -ing, -ed)."""
    word = word.lower().strip(".,;:!?\"'()[]{}")
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: -len(suffix)]
    return word


def _params(agent: str, experience: Experience) -> dict[str, Any]:
    return {
        "id": experience.experience_id,
        "agent": agent,
        "type": experience.experience_type.value,
        "context": experience.context,
        "outcome": experience.outcome,
        "confidence": float(experience.confidence),
        "ts": int(experience.timestamp.timestamp()),
        "metadata": json.dumps(experience.metadata) if experience.metadata else "{}",
        "tags": json.dumps(experience.tags) if experience.tags else "[]",
    }


class KuzuExperienceBackend(MemoryBackend):
    """One agent's experiences in a Kuzu ``kuzu_db`` file (thread-safe)."""

    def __init__(self, db_path: str | Path, agent_name: str) -> None:
        super().__init__(db_path, agent_name)
        if self.db_path.is_dir() and not any(self.db_path.iterdir()):
            self.db_path.rmdir()  # an empty folder left where the store goes
        try:
            self._graph: SharedGraph = acquire_graph(
                self.db_path, create=True, buffer_pool_size=KUZU_BUFFER_POOL
            )
        except (NotAStoreError, CorruptStoreError) as exc:
            raise CorruptStoreError(
                self.db_path, f"Invalid or corrupted Kuzu store ({exc.message})"
            ) from None
        except UnsupportedEngineError as exc:
            raise UnsupportedEngineError(
                self.db_path, f"Invalid store for the kuzu backend ({exc.message})", hint=exc.hint
            ) from None
        try:
            self.layout: Layout | None = self._read_layout()
            if self.layout is None and not self._graph.read_only:
                self._create_schema()
        except BaseException:
            release_graph(self._graph)
            raise

    # -- schema --------------------------------------------------------------------------
    def _read_layout(self) -> Layout | None:
        tables = self._graph.table_names()
        if "Experience" not in tables:
            return None
        columns = {name for name, _ in self._graph.columns("Experience")}
        layout = detect_layout(columns, tables)
        if layout == "unknown":
            raise SchemaMismatchError(
                self.db_path,
                f"The Experience table has neither known layout (columns: {sorted(columns)})",
                hint="Open it with `memexplorer stats` to see what it holds.",
            )
        return layout

    def _create_schema(self) -> None:
        for statement in _SCHEMA:
            self._graph.execute(statement)
        self._graph.forget_catalog()
        self.layout = "amplihack"

    # -- connections ---------------------------------------------------------------------
    @property
    def graph(self) -> SharedGraph:
        if self._closed:
            raise StoreClosedError(self.db_path, "This experience store has been closed")
        return self._graph

    @property
    def read_only(self) -> bool:
        return self.graph.read_only

    def _current_layout(self) -> Layout | None:
        """The layout, looked up again while the store has no Experience table
        (another memory on this file may have created it since)."""
        self.graph  # noqa: B018 - raises once closed
        if self.layout is None:
            self.layout = self._read_layout()
        return self.layout

    def _writable(self) -> SharedGraph:
        graph = self.graph
        if self.layout == "seed-004":
            raise SchemaMismatchError(
                self.db_path,
                "This store holds seed 004's Experience layout (id, action, importance); "
                "ExperienceStore writes only the reference layout",
                hint="Write seed-004 records with seed004_store.add_seed004.",
            )
        graph.make_writable()
        if self._current_layout() is None:
            self._create_schema()
        return graph

    # -- writing -------------------------------------------------------------------------
    def store_experiences(self, experiences: list[Experience]) -> list[str]:
        """Write several experiences in one transaction (all or none)."""
        rows = [_params(self.agent_name, check_experience(e)) for e in experiences]
        with self._lock:
            graph = self._writable()
            try:
                with graph.transaction():
                    for row in rows:
                        graph.execute(_CREATE, row, reuse=True)
            except QueryError as exc:
                if "primary key" in exc.message.lower():
                    raise InvalidExperienceError(
                        "An experience with this experience_id is already stored"
                    ) from None
                raise
        return [row["id"] for row in rows]

    # -- reading -------------------------------------------------------------------------
    def _seed004(self, experience_type: ExperienceType | None, min_confidence: float) -> list:
        records: list[Seed004Experience] = read_seed004(self.graph, self.agent_name)
        out = []
        for record in records:
            experience = record.to_experience()
            if experience.confidence < min_confidence:
                continue
            if experience_type is not None and experience.experience_type != experience_type:
                continue
            out.append(experience)
        return out

    def _query(self, where: str, params: dict[str, Any], limit: int | None) -> list[Experience]:
        cypher = f"MATCH (e:Experience) WHERE {where} {_RETURN} ORDER BY e.timestamp DESC"
        if limit:
            cypher += " LIMIT $limit"
            params["limit"] = limit
        with self._lock:
            rows = self.graph.rows(cypher, params)
        return experiences_from_rows(rows)

    def _filters(self, wanted: ExperienceFilter) -> tuple[str, dict[str, Any]]:
        where = "e.agent_name = $agent AND e.confidence >= $min_confidence"
        params: dict[str, Any] = {
            "agent": self.agent_name, "min_confidence": float(wanted.min_confidence),
        }  # fmt: skip
        if wanted.experience_type is not None:
            where += " AND e.experience_type = $type"
            params["type"] = wanted.experience_type.value
        return where, params

    def retrieve(self, wanted: ExperienceFilter, limit: int | None) -> list[Experience]:
        with self._lock:
            layout = self._current_layout()
            if layout is None:
                return []
            if layout == "seed-004":
                found = self._seed004(wanted.experience_type, wanted.min_confidence)
                return found[:limit] if limit else found
        where, params = self._filters(wanted)
        return self._query(where, params, limit)

    def _search(
        self, words: list[str], wanted: ExperienceFilter, limit: int | None
    ) -> list[Experience]:
        """Every query word's stem in context or outcome (see module notes)."""
        stems = [search_stem(word) for word in words]
        stems = [stem for stem in stems if stem]
        if not stems or limit == 0:
            return []
        with self._lock:
            layout = self._current_layout()
            if layout is None:
                return []
            if layout == "seed-004":
                found = [
                    e
                    for e in self._seed004(wanted.experience_type, wanted.min_confidence)
                    if all(s in f"{e.context} {e.outcome}".lower() for s in stems)
                ]
                return found[:limit]
        where, params = self._filters(wanted)
        for i, stem in enumerate(stems):
            where += f" AND (lower(e.context) CONTAINS $w{i} OR lower(e.outcome) CONTAINS $w{i})"
            params[f"w{i}"] = stem
        return self._query(where, params, limit)

    def get_statistics(self) -> dict[str, Any]:
        """total_experiences, by_type ({ExperienceType: n}), storage_size_kb and
        compressed_experiences, for this agent."""
        with self._lock:
            layout = self._current_layout()
            seed004 = self._seed004(None, 0.0) if layout == "seed-004" else None
            return kuzu_statistics(self.graph, self.agent_name, self.db_path, layout, seed004)

    def cleanup(self, retention: Retention) -> None:
        """Mark old experiences compressed, then apply the age and count limits."""
        with self._lock:
            kuzu_cleanup(self._writable(), self.agent_name, retention)

    # -- lifecycle -----------------------------------------------------------------------
    def _release(self) -> None:
        release_graph(self._graph)
