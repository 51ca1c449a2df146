"""What changed in one agent's memory between two exports (format 1.0 or 1.1).

Facts and episodes are matched by ``memory_id``; a fact left over on each side
is then matched by its concept (the key the agent's code builds a chain on:
a newer fact about the same concept supersedes the older) when the concept has
exactly one left-over fact on each side, so a fact rewritten under a new id
reads as changed, not as one removed and one added. Edges are matched by their
two ends. A chain (facts joined by SUPERSEDES or TRANSITIONED_TO) has moved on
when its current value (the facts nothing newer replaced) is another in B
("back" when B's current value is one A had replaced: a step was undone).
Sides are plain export dicts (:mod:`.diff_sides` reads them), so this module
never touches a store.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from memexplorer.memory.export_schema import EDGE_SPECS, EPISODIC_FIELDS, SEMANTIC_FIELDS
from memexplorer.operator.record_dicts import field_dict, values_of

__all__ = ["ChainMove", "FactChange", "MemoryDiff", "TableDiff", "diff_exports"]

_NODE_TABLES = (
    ("SemanticMemory", "semantic_nodes", SEMANTIC_FIELDS),
    ("EpisodicMemory", "episodic_nodes", EPISODIC_FIELDS),
)
_CHAIN_KEYS = ("supersedes_edges", "transitioned_to_edges")


@dataclass(frozen=True)
class FactChange:
    """One record on both sides whose values differ: ``fields`` maps a field to (A, B)."""

    key: str
    old_key: str
    matched_by: str  # "memory_id", "concept" or "ends" (an edge)
    fields: dict[str, tuple[Any, Any]]

    def to_dict(self) -> dict[str, Any]:
        pairs = {name: {"a": a, "b": b} for name, (a, b) in self.fields.items()}
        return field_dict(self, fields=pairs)


@dataclass(frozen=True)
class TableDiff:
    """One table: records only in B (added), only in A (removed), on both but changed."""

    table: str
    kind: str  # "node" or "rel"
    added: list[dict[str, Any]] = field(default_factory=list)
    removed: list[dict[str, Any]] = field(default_factory=list)
    changed: list[FactChange] = field(default_factory=list)
    #: Why the table was not compared (one side's format has no such list), else "".
    skipped: str = ""

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def to_dict(self) -> dict[str, Any]:
        return field_dict(self, changed=[change.to_dict() for change in self.changed])


@dataclass(frozen=True)
class ChainMove:
    """A chain whose current value in B is not its current value in A."""

    concept: str
    before: list[dict[str, str]]
    after: list[dict[str, str]]
    new_steps: int
    #: "on", or "back" when every current fact in B was one A had replaced.
    direction: str = "on"

    def to_dict(self) -> dict[str, Any]:
        return values_of(self, ("concept", "direction", "before", "after", "new_steps"))


@dataclass(frozen=True)
class MemoryDiff:
    """Every table's differences from A to B, and the chains that moved on."""

    tables: list[TableDiff]
    chains: list[ChainMove]

    @property
    def empty(self) -> bool:
        return not self.chains and all(table.empty for table in self.tables)

    def table(self, name: str) -> TableDiff:
        return next(table for table in self.tables if table.table == name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tables": [table.to_dict() for table in self.tables],
            "chains": [chain.to_dict() for chain in self.chains],
        }


def _value(record: dict[str, Any], name: str, default: Any) -> Any:
    value = record.get(name, default)
    return default if value is None and default is not None else value


def _differences(
    a: dict[str, Any], b: dict[str, Any], fields: tuple[tuple[str, type, Any], ...]
) -> dict[str, tuple[Any, Any]]:
    found: dict[str, tuple[Any, Any]] = {}
    if a == b:  # most records are unchanged: one comparison in C instead of one per field
        return found
    for name, _kind, default in fields:
        old, new = _value(a, name, default), _value(b, name, default)
        if old != new:
            found[name] = (old, new)
    return found


def _concept(record: dict[str, Any]) -> str:
    return str(record.get("concept") or "").strip().casefold()


def _node_diff(table: str, fields: Any, old: list[dict], new: list[dict]) -> TableDiff:
    before = {str(n["memory_id"]): n for n in old}
    after = {str(n["memory_id"]): n for n in new}
    changed = []
    for key in sorted(before.keys() & after.keys()):
        found = _differences(before[key], after[key], fields)
        if found:
            changed.append(FactChange(key, key, "memory_id", found))
    removed = [before[k] for k in sorted(before.keys() - after.keys())]
    added = [after[k] for k in sorted(after.keys() - before.keys())]
    if table == "SemanticMemory":
        gone_by: dict[str, list[dict]] = defaultdict(list)
        new_by: dict[str, list[dict]] = defaultdict(list)
        for node in removed:
            gone_by[_concept(node)].append(node)
        for node in added:
            new_by[_concept(node)].append(node)
        paired: set[str] = set()
        for concept in sorted(gone_by.keys() & new_by.keys()):
            if not concept or len(gone_by[concept]) != 1 or len(new_by[concept]) != 1:
                continue
            old_node, new_node = gone_by[concept][0], new_by[concept][0]
            found = _differences(old_node, new_node, fields)
            old_id, new_id = str(old_node["memory_id"]), str(new_node["memory_id"])
            changed.append(FactChange(new_id, old_id, "concept", found))
            paired.update((old_id, new_id))
        removed = [n for n in removed if str(n["memory_id"]) not in paired]
        added = [n for n in added if str(n["memory_id"]) not in paired]
    return TableDiff(table, "node", added, removed, changed)


def _ends(edge: dict[str, Any]) -> tuple[str, str]:
    return str(edge["source_id"]), str(edge["target_id"])


def _edge_diff(spec: Any, a: dict[str, Any], b: dict[str, Any]) -> TableDiff:
    missing = [side for side, data in (("A", a), ("B", b)) if spec.key not in data]
    if missing:
        return TableDiff(
            spec.rel, "rel", skipped=f"{' and '.join(missing)} has no {spec.key} (format 1.0)"
        )
    before = {_ends(e): e for e in a[spec.key]}
    after = {_ends(e): e for e in b[spec.key]}
    changed = []
    for ends in sorted(before.keys() & after.keys()):
        found = _differences(before[ends], after[ends], spec.fields)
        if found:
            key = f"{ends[0]}->{ends[1]}"
            changed.append(FactChange(key, key, "ends", found))
    return TableDiff(
        spec.rel,
        "rel",
        added=[after[e] for e in sorted(after.keys() - before.keys())],
        removed=[before[e] for e in sorted(before.keys() - after.keys())],
        changed=changed,
    )


def _chains(data: dict[str, Any], facts: set[str]) -> tuple[dict[str, str], dict[str, set[str]]]:
    """The chain (its smallest member id) of each fact a chain edge touches, and each
    such chain's current facts; a fact no chain edge touches is a chain of its own."""
    parent: dict[str, str] = {}

    def root(item: str) -> str:
        parent.setdefault(item, item)
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    replaced: set[str] = set()
    for key in _CHAIN_KEYS:
        for edge in data.get(key, []):
            newer, older = _ends(edge)
            if newer not in facts or older not in facts or newer == older:
                continue
            replaced.add(older)
            first, second = root(newer), root(older)
            if first != second:
                parent[max(first, second)] = min(first, second)
    chain_of = {item: root(item) for item in list(parent)}
    heads: dict[str, set[str]] = defaultdict(set)
    for item, chain in chain_of.items():
        if item not in replaced:
            heads[chain].add(item)
    return chain_of, heads


def _chain_moves(a: dict[str, Any], b: dict[str, Any]) -> list[ChainMove]:
    old_nodes = {str(n["memory_id"]): n for n in a.get("semantic_nodes", [])}
    new_nodes = {str(n["memory_id"]): n for n in b.get("semantic_nodes", [])}
    old_chain, old_heads = _chains(a, set(old_nodes))
    new_chain, new_heads = _chains(b, set(new_nodes))
    members: dict[str, list[str]] = defaultdict(list)
    for item, chain in new_chain.items():
        members[chain].append(item)
    moves = []
    for chain, items in sorted(members.items()):
        earlier = {old_chain.get(i, i) for i in items if i in old_nodes}
        if not earlier:
            continue
        before = set().union(*(old_heads.get(c, {c}) for c in earlier))
        after = new_heads[chain]
        if before == after:
            continue
        heads = sorted(after)
        old_members = {i for i in old_nodes.keys() & set(items)} | {
            i for i, c in old_chain.items() if c in earlier
        }
        back = all(h in old_members and h not in before for h in heads)
        moves.append(
            ChainMove(
                concept=str(new_nodes[heads[0]].get("concept", "")) if heads else "",
                before=[_brief(old_nodes[i]) for i in sorted(before)],
                after=[_brief(new_nodes[i]) for i in heads],
                new_steps=sum(1 for i in items if i not in old_nodes),
                direction="back" if back and heads else "on",
            )
        )
    return moves


def _brief(node: dict[str, Any]) -> dict[str, str]:
    return {"memory_id": str(node["memory_id"]), "content": str(node.get("content", ""))}


def diff_exports(a: dict[str, Any], b: dict[str, Any]) -> MemoryDiff:
    """What changed from export ``a`` (the earlier) to export ``b``, per table."""
    tables = [
        _node_diff(table, fields, a.get(key, []), b.get(key, []))
        for table, key, fields in _NODE_TABLES
    ]
    tables += [_edge_diff(spec, a, b) for spec in EDGE_SPECS]
    return MemoryDiff(tables, _chain_moves(a, b))
