"""Ask before redacting: exactly which values change, and where their backup goes.

The confirm names the stores it writes (the app browses them read-only; the
redaction takes each store's write gate itself) and says that each graph store
is rewritten afterwards, so the old values leave its bytes.

Redaction replaces every secret in a flagged value, so the modal lists each value
once (store, table, row key, column) with every kind the audit found in it, not
only the selected finding's kind. Edge properties are listed but marked: the
engine reports them and leaves them as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, DataTable, Static

from memexplorer.app.screens.modal_dialog import DIALOG_CSS, ModalDialog
from memexplorer.app.screens.redact_commands import REDACT_COMMANDS
from memexplorer.operator.audit import AuditFinding, FindingLocation, iter_locations
from memexplorer.operator.wording import counted


@dataclass(frozen=True)
class PlannedChange:
    """One value a redaction would rewrite (or, for an edge property, leave)."""

    location: FindingLocation
    kinds: tuple[str, ...]
    home: Path

    @property
    def row_key(self) -> str:
        """The key's values (its column names are the table's primary key)."""
        return " -> ".join(str(value) for _, value in self.location.key)

    @property
    def redacted(self) -> bool:
        return self.location.rel_ends is None


def _ident(where: FindingLocation) -> tuple:
    return (where.path, where.table, where.column, where.key, where.rel_ends)


def plan_changes(
    selected: list[AuditFinding], every: list[AuditFinding], homes: dict[Path, Path]
) -> list[PlannedChange]:
    """Each value the selected findings touch, once, with every kind found in it."""
    kinds: dict[tuple, list[str]] = {}
    for finding in every:
        found = kinds.setdefault(_ident(finding.location), [])
        if finding.kind not in found:
            found.append(finding.kind)
    return [
        PlannedChange(where, tuple(kinds.get(_ident(where), ())), homes[where.path])
        for where in iter_locations(selected)
    ]


class RedactModal(ModalDialog[bool]):
    """The values a redaction will change; y backs them up and redacts, esc cancels."""

    HELP = (
        "The values the redaction will change, each once: the store, table, row key and "
        "column, and every kind of secret found in it (the whole value is scrubbed). The "
        "rows are saved to a backup first, and each graph store is then rewritten into a "
        "fresh file so the old values leave its bytes; **u** on the audit screen, or the Backups "
        "screen (**b** on the stores screen), puts them back. **y** redacts, **escape** "
        "cancels and changes nothing."
    )
    SCREEN_COMMANDS = REDACT_COMMANDS
    CSS_PATH = [DIALOG_CSS, "redact_modal.tcss"]

    def __init__(self, changes: list[PlannedChange], labels: dict[str, str]) -> None:
        """``labels`` names each store as the audit screen does (by its path)."""
        super().__init__()
        self.changes = changes
        self.labels = labels

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Redact"
            # What it lists scrolls, so the buttons stay on screen at any size.
            with VerticalScroll(id="body"):
                yield Static(self.summary(), id="summary", markup=False)
                yield DataTable(id="changes", cursor_type="row", zebra_stripes=True)
            with Horizontal(id="buttons"):
                yield Button("Redact (y)", variant="error", id="confirm")
                yield Button("Cancel (esc)", id="cancel")

    def summary(self) -> str:
        values = [c for c in self.changes if c.redacted]
        stores = len({c.location.path for c in values})
        homes = sorted({str(c.home / "backups") for c in values})
        edges = len(self.changes) - len(values)
        kept = f" {edges} edge propert{'y is' if edges == 1 else 'ies are'} listed " \
            "but left as they are." if edges else ""  # fmt: skip
        names = ", ".join(sorted({str(c.location.path) for c in values})) or "-"
        graphs = any(c.location.engine != "sqlite" for c in values)
        rewrite = (
            " Each graph store is then rewritten into a fresh file, so the old values "
            "leave its bytes; the backup keeps them until you delete it." if graphs else ""
        )  # fmt: skip
        return (
            f"Replace every secret in {counted(len(values), 'value')} of "
            f"{counted(stores, 'store')} with "
            f"[REDACTED]? This writes to {names}, though the app browses "
            f"{'it' if stores == 1 else 'them'} read-only. The rows are backed up first, "
            f"under {' and '.join(homes) or '-'}.{rewrite}{kept}"
        )

    def on_mount(self) -> None:
        table = self.query_one("#changes", DataTable)
        table.add_columns("store", "table", "row key", "column", "kind")
        for change in self.changes:
            where = change.location
            key = change.row_key if change.redacted else f"{change.row_key} (edge: kept)"
            store = self.labels.get(str(where.path), str(where.path))
            cells = (store, where.table, key, where.column, ", ".join(change.kinds))
            table.add_row(*(Text(cell) for cell in cells))
        self.query_one("#confirm", Button).disabled = not any(c.redacted for c in self.changes)
        table.focus(scroll_visible=False)  # the question is read first, from its top

    def action_confirm(self) -> None:
        if any(change.redacted for change in self.changes):
            self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
