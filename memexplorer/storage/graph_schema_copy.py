"""A graph store's schema, as the statements that build it again in an empty file.

Compaction rebuilds a store table by table. Each table's statement is written
from the catalog (``table_info``: column names, types, defaults, primary key;
``show_connection``: a rel's FROM/TO pairs), with each rel's multiplicity
taken from the engine's own schema export (the catalog calls do not show it;
the export alone is not enough: kuzu 0.11 leaves column defaults out of it).
The indexes a store adds (HNSW, full text) come from ``CALL show_indexes()``,
whose last column is the statement that made each. Names, types and defaults
come from the store, not from the operator, but are still checked against
the shapes expected here; anything else is refused. The catalog snapshot
lets the caller check the rebuilt schema is the same.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memexplorer.storage.exceptions import CompactionError
from memexplorer.storage.graph_store import GraphStore, identifier, literal

__all__ = ["SchemaScript", "catalog_snapshot", "schema_script"]

_MULTIPLICITY = re.compile(
    r"^CREATE REL TABLE `([A-Za-z_][A-Za-z0-9_]*)` \(.*,\s*((?:ONE|MANY)_(?:ONE|MANY))\)"
)
_TYPE = re.compile(r"^[A-Za-z0-9_\[\]\(\), ]+$")
_DEFAULT = re.compile(
    r"^(?:'[^'\\]*'|-?[0-9]+(?:\.[0-9]+)?|TRUE|FALSE|[a-z_]+\(\))$", re.IGNORECASE
)
_INDEX = re.compile(r"^CALL CREATE_(VECTOR|FTS)_INDEX\('[A-Za-z_][A-Za-z0-9_]*', .*\);$")
_SAFE_FOLDER = re.compile(r"^[A-Za-z0-9_./-]+$")


@dataclass(frozen=True)
class SchemaScript:
    """The statements that create the tables, and those that add the indexes after
    the rows are in (an index built over loaded rows is built once)."""

    tables: list[str]
    indexes: list[str]


def _export_schema(graph: GraphStore) -> list[str]:
    folder = Path(tempfile.mkdtemp(prefix="memexplorer-schema-"))  # 0700
    try:
        target = folder / "schema"
        if not _SAFE_FOLDER.match(str(target)):
            raise CompactionError(graph.path, f"The temporary folder {folder} has an odd name")
        # EXPORT takes no parameter for its folder; this one is ours and checked above.
        graph.execute(f"EXPORT DATABASE '{target}' (schema_only=true)")
        extra = sorted(p.name for p in target.iterdir()) if target.is_dir() else []
        unknown = [name for name in extra if name not in ("schema.cypher", "index.cypher")]
        if unknown:
            raise CompactionError(
                graph.path,
                "The store holds schema objects compaction does not rebuild "
                f"({', '.join(unknown)})",
            )
        text = (target / "schema.cypher").read_text(encoding="utf-8")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return [line.strip() for line in text.splitlines() if line.strip()]


def _multiplicities(graph: GraphStore) -> dict[str, str]:
    """Rel table -> ONE_ONE / ONE_MANY / MANY_ONE / MANY_MANY, from the engine's export."""
    found = {}
    for line in _export_schema(graph):
        if match := _MULTIPLICITY.match(line):
            found[match.group(1)] = match.group(2)
    return found


def _column(graph: GraphStore, table: str, row: list[Any]) -> str:
    name, kind, default = row[1], row[2], row[3]
    if not isinstance(kind, str) or not _TYPE.match(kind):
        raise CompactionError(
            graph.path, f"Column {table}.{name} has a type compaction cannot copy"
        )
    text = f"{identifier(name)} {kind}"
    if isinstance(default, str) and default.upper() != "NULL":
        if not _DEFAULT.match(default):
            raise CompactionError(
                graph.path, f"Column {table}.{name} has a default compaction cannot copy"
            )
        text += f" DEFAULT {default}"
    return text


def _table_statements(graph: GraphStore) -> list[str]:
    statements = []
    for table in graph.node_tables():
        info = graph.rows(f"CALL table_info({literal(table)}) RETURN *")
        key = next((row[1] for row in info if row[4] is True), None)
        if key is None:
            raise CompactionError(graph.path, f"Node table {table} has no primary key")
        parts = [_column(graph, table, row) for row in info]
        parts.append(f"PRIMARY KEY({identifier(key)})")
        statements.append(f"CREATE NODE TABLE {identifier(table)} ({', '.join(parts)})")
    multiplicity = _multiplicities(graph) if graph.rel_tables() else {}
    for table, rel in graph.rel_tables().items():
        parts = [f"FROM {identifier(a)} TO {identifier(b)}" for a, b in rel.pairs]
        info = graph.rows(f"CALL table_info({literal(table)}) RETURN *")
        parts += [_column(graph, table, row) for row in info]
        parts.append(multiplicity.get(table, "MANY_MANY"))
        statements.append(f"CREATE REL TABLE {identifier(table)} ({', '.join(parts)})")
    return statements


def _index_statements(graph: GraphStore) -> list[str]:
    statements = []
    for row in graph.rows("CALL show_indexes() RETURN *"):
        table, name, kind, columns, definition = row[0], row[1], row[2], row[3], row[-1]
        if kind == "HASH" and name == "_PK" and not definition:
            continue  # the primary key's own index (listed by ladybug): made with the table
        if not isinstance(definition, str) or not _INDEX.match(definition.strip()):
            raise CompactionError(
                graph.path,
                f"Index {name} ({kind} on {table}.{columns}) cannot be rebuilt by compaction",
            )
        statements.append(definition.strip())
    return statements


def schema_script(graph: GraphStore) -> SchemaScript:
    """The statements that rebuild ``graph``'s schema in an empty store."""
    return SchemaScript(_table_statements(graph), _index_statements(graph))


def catalog_snapshot(graph: GraphStore) -> dict[str, Any]:
    """Tables, their columns (name, type, default, key), rel pairs and indexes, in a
    form two stores can be compared by (catalog ids left out: a rebuild renumbers)."""
    tables: dict[str, Any] = {}
    for row in graph.rows("CALL show_tables() RETURN *"):
        name, kind = row[1], row[2]
        info = graph.rows(f"CALL table_info({literal(name)}) RETURN *")
        # kuzu spells a missing default "NULL" or "null" depending on the type.
        columns = [
            [r[1], r[2], "NULL" if str(r[3]).upper() == "NULL" else r[3], *r[4:]] for r in info
        ]
        entry: dict[str, Any] = {"kind": kind, "columns": columns}
        if kind == "REL":
            connection = graph.rows(f"CALL show_connection({literal(name)}) RETURN *")
            entry["pairs"] = sorted(tuple(r) for r in connection)
        tables[name] = entry
    indexes = sorted(
        (str(row[0]), str(row[1]), str(row[2]), str(row[3]), str(row[-1]))
        for row in graph.rows("CALL show_indexes() RETURN *")
    )
    return {"tables": dict(sorted(tables.items())), "indexes": indexes}
