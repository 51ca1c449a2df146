"""How the audit screen shows findings: short store names, previews cut around their
marker, the node each finding opens."""

from __future__ import annotations

import re
from pathlib import Path

from memexplorer.app.widgets.node_ref import NodeRef
from memexplorer.operator.audit import AuditFinding, FindingLocation
from memexplorer.operator.wording import distinct_places

#: What s sorts by, in turn; each keeps the findings of one store together after it.
SORTS = ("store", "kind", "agent", "table")
#: Widths of the store and preview cells; the line under the table shows both whole.
_STORE, _PREVIEW = 26, 29
_MARKER = re.compile(r"\[[a-z0-9_]+:[^\]]*\]")


def trimmed(preview: str, kind: str, width: int = _PREVIEW) -> str:
    """The preview cut to ``width`` around the finding's own masked marker."""
    if len(preview) <= width:
        return preview
    markers = list(_MARKER.finditer(preview))
    found = next((m for m in markers if m.group().startswith(f"[{kind}:")), None)
    found = found or (markers[0] if markers else None)
    middle = (found.start() + found.end()) // 2 if found else 0
    start = max(0, min(middle - width // 2, len(preview) - width))
    text = list(preview[start : start + width])
    if start:
        text[0] = "…"
    if start + width < len(preview):
        text[-1] = "…"
    return "".join(text)


def store_labels(stores: set[str], root: Path) -> dict[str, str]:
    """Each store named as the stores tree does (its last two parts, more where two
    would clash), cut from the left to fit the column."""
    ordered = sorted(stores)
    places = distinct_places([Path(store) for store in ordered], root)
    return {store: _fitted(place) for store, place in zip(ordered, places, strict=True)}


def _fitted(label: str) -> str:
    """A label cut to the column: its first folder shortened, else its left end."""
    if len(label) <= _STORE:
        return label
    first, _, rest = label.partition("/")
    room = _STORE - len(rest) - 2
    if rest and room >= 3:
        return f"{first[:room]}…/{rest}"
    return "…" + label[1 - _STORE :]


def node_ref(finding: AuditFinding) -> tuple[NodeRef | None, str]:
    """The node (or SQLite row) a finding opens, and a note when that is not its own."""
    where = finding.location
    if where.rel_ends is not None:
        ref = NodeRef(where.path, where.rel_ends[0], str(where.key[0][1]))
        return ref, "an edge property: enter opens the node it leaves"
    if len(where.key) != 1 or where.key[0][0] == "rowid":
        return None, "this table has no one-column key: no node to open"
    return NodeRef(where.path, where.table, str(where.key[0][1])), "enter opens it"


def same_value(a: FindingLocation, b: FindingLocation) -> bool:
    return (a.path, a.table, a.column, a.key, a.rel_ends) == (b.path, b.table, b.column,
                                                               b.key, b.rel_ends)  # fmt: skip
