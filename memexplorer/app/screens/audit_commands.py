"""The commands of the credential audit (audit_screen.py)."""

from memexplorer.app.command import Commands

__all__ = ["AUDIT_COMMANDS"]

AUDIT_COMMANDS = Commands.table("Credential audit", """
    audit_open    enter,o   screen.open_finding     Open
        Open the node (or SQLite row) of the finding under the cursor
    audit_toggle  space     screen.toggle_selected  Select
        Select the finding under the cursor, or unselect it
    audit_all     a         screen.select_all       All/none
        Select every finding (again: none)
    audit_redact  d,ctrl+s  screen.redact           Redact
        Replace the selected secrets with [REDACTED], after a confirm and a backup
    audit_undo    u         screen.undo             Undo
        Restore what the last redaction changed, while its notification is up
    audit_sort    s         screen.sort             Sort
        Sort by store, kind, agent or table, in turn
    audit_again   ctrl+r    screen.audit_again      Audit again  [no footer]
        Scan the stores again
    audit_close   escape    screen.close            Close
        Back to the stores
""")  # fmt: skip
