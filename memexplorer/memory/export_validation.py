"""Checking an export document before anything is written: every field's type, ids
present and unique, edges naming nodes that exist. Problems are reported together
(up to ten), each with its JSON path, in one :class:`~.exceptions.ImportDataError`."""

from __future__ import annotations

from typing import Any

from memexplorer.memory.export_schema import (
    EDGE_SPECS,
    EPISODIC_FIELDS,
    FORMAT_VERSIONS,
    SEMANTIC_FIELDS,
    EdgeSpec,
)
from memexplorer.storage.exceptions import ImportDataError

__all__ = ["NODE_FIELDS", "Problems", "check_edge", "check_endpoints", "check_node", "file_ids",
           "parse_export", "precheck_import", "validate_export"]  # fmt: skip

NODE_FIELDS = {"semantic_nodes": SEMANTIC_FIELDS, "episodic_nodes": EPISODIC_FIELDS}


class Problems:
    """Collects what is wrong with a document, with its JSON path."""

    def __init__(self) -> None:
        self.items: list[str] = []  # the first ten: a file may hold millions
        self.count = 0

    def add(self, where: str, what: str) -> None:
        self.count += 1
        if len(self.items) < 10:
            self.items.append(f"{where}: {what}")

    def raise_if_any(self) -> None:
        if not self.count:
            return
        shown = "\n".join(f"  - {item}" for item in self.items)
        more = f"\n  ... and {self.count - 10} more" if self.count > 10 else ""
        raise ImportDataError(
            f"The import data has {self.count} problem(s); nothing was written:\n{shown}{more}"
        )


def _check_fields(
    item: Any,
    where: str | tuple[str, int],
    fields: tuple[tuple[str, type, Any], ...],
    problems: Problems,
) -> dict[str, Any] | None:
    """The record's fields with defaults filled, or None; ``where`` (or the list and
    position it is made of, formatted only for a problem) names it in problems."""
    if type(item) is not dict:
        problems.add(_place(where), f"expected an object, got {type(item).__name__}")
        return None
    clean: dict[str, Any] = {}
    for name, kind, default in fields:
        value = item.get(name, default)
        if type(value) is kind:  # what an export holds: no conversion, no checks
            clean[name] = value
            continue
        if value is None:
            value = default
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if kind is str and isinstance(value, int | float) and not isinstance(value, bool):
            value = str(value)  # created_at may be Unix seconds (seed 002)
        if not isinstance(value, kind) or isinstance(value, bool):
            problems.add(f"{_place(where)}.{name}",
                         f"expected {kind.__name__}, got {type(value).__name__}")  # fmt: skip
            continue
        clean[name] = value
    return clean


def _place(where: str | tuple[str, int]) -> str:
    return where if isinstance(where, str) else f"{where[0]}[{where[1]}]"


def check_node(
    key: str, position: int, item: Any, seen: set[str], problems: Problems
) -> dict[str, Any] | None:
    """One node record of list ``key`` with defaults filled, or None (problems added);
    ``seen`` holds the list's ids so far and gains this one."""
    clean = _check_fields(item, (key, position), NODE_FIELDS[key], problems)
    if clean is None:
        return None
    memory_id = item.get("memory_id")
    if type(memory_id) is not str or not memory_id.strip():
        problems.add(f"{key}[{position}].memory_id", "missing or empty")
        return None
    if memory_id in seen:
        problems.add(f"{key}[{position}].memory_id", f"duplicate id {memory_id!r}")
        return None
    seen.add(memory_id)
    if key == "semantic_nodes" and not (0.0 <= clean.get("confidence", 0.0) <= 1.0):
        problems.add(f"{key}[{position}].confidence", "must be between 0 and 1")
    clean["memory_id"] = memory_id
    return clean


def check_edge(
    spec: EdgeSpec, position: int, item: Any, problems: Problems
) -> dict[str, Any] | None:
    """One edge record with defaults filled and its endpoints, or None (problems added)."""
    edge = _check_fields(item, (spec.key, position), spec.fields, problems)
    if edge is None:
        return None
    for end in ("source_id", "target_id"):
        value = item.get(end)
        if type(value) is not str or not value:
            problems.add(f"{spec.key}[{position}].{end}", "missing or empty")
            return None
        edge[end] = value
    return edge


def _check_nodes(data: dict[str, Any], key: str, problems: Problems) -> list[dict[str, Any]]:
    items = data.get(key, [])
    if not isinstance(items, list):
        problems.add(key, f"expected a list, got {type(items).__name__}")
        return []
    seen: set[str] = set()
    checked = (check_node(key, i, item, seen, problems) for i, item in enumerate(items))
    return [node for node in checked if node is not None]


def parse_export(data: Any, problems: Problems) -> dict[str, list[dict[str, Any]]]:
    """Check the document's shape and fields; endpoints are checked separately."""
    if not isinstance(data, dict):
        problems.add("$", f"expected a JSON object, got {type(data).__name__}")
        problems.raise_if_any()
    version = data.get("format_version", "1.0")
    if version not in FORMAT_VERSIONS:
        problems.add("format_version", f"unknown version {version!r} (expected 1.0 or 1.1)")
    if not any(k in data for k in ("semantic_nodes", "episodic_nodes")):
        problems.add("$", "no semantic_nodes or episodic_nodes: not a memory export")
    doc: dict[str, list[dict[str, Any]]] = {
        "semantic_nodes": _check_nodes(data, "semantic_nodes", problems),
        "episodic_nodes": _check_nodes(data, "episodic_nodes", problems),
    }
    for spec in EDGE_SPECS:
        items = data.get(spec.key, [])
        doc[spec.key] = []
        if not isinstance(items, list):
            problems.add(spec.key, f"expected a list, got {type(items).__name__}")
            continue
        for position, item in enumerate(items):
            edge = check_edge(spec, position, item, problems)
            if edge is not None:
                edge["_where"] = f"{spec.key}[{position}]"
                doc[spec.key].append(edge)
    return doc


def check_endpoints(
    doc: dict[str, list[dict[str, Any]]], known: dict[str, set[str]], problems: Problems
) -> None:
    for spec in EDGE_SPECS:
        for edge in doc[spec.key]:
            where = edge.pop("_where")
            if edge["source_id"] not in known["SemanticMemory"]:
                problems.add(f"{where}.source_id", f"names no SemanticMemory node "
                             f"({edge['source_id']!r})")  # fmt: skip
            elif edge["target_id"] not in known[spec.target_table]:
                problems.add(f"{where}.target_id", f"names no {spec.target_table} node "
                             f"({edge['target_id']!r})")  # fmt: skip


def file_ids(doc: dict[str, list[dict[str, Any]]]) -> dict[str, set[str]]:
    return {
        "SemanticMemory": {n["memory_id"] for n in doc["semantic_nodes"]},
        "EpisodicMemory": {n["memory_id"] for n in doc["episodic_nodes"]},
    }


def precheck_import(data: Any, *, merge: bool) -> None:
    """Every check that needs no store, so bad files fail before a store is locked."""
    if merge:
        problems = Problems()
        parse_export(data, problems)
        problems.raise_if_any()
    else:
        validate_export(data)


def validate_export(data: Any) -> dict[str, list[dict[str, Any]]]:
    """Check a whole export document on its own; return nodes and edges with defaults.

    Raises :class:`ImportDataError` naming every problem (up to ten) with its
    JSON path: wrong types, missing or duplicate ids, edges naming missing nodes.
    """
    problems = Problems()
    doc = parse_export(data, problems)
    check_endpoints(doc, file_ids(doc), problems)
    problems.raise_if_any()
    return doc
