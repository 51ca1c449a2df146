"""The CLI's commands, one module each (a few hold two related commands).

A command parses its arguments, calls engine functions and prints the result.
It holds no logic of its own, so the TUI can call the same engine functions.
:data:`COMMANDS` names where each lives, so a command's module is imported only
when that command runs (or ``--help`` lists them all).
"""

from __future__ import annotations

_PACKAGE = "memexplorer.cli.commands"

#: Command name -> ``module:attribute`` of its click command, in the order help lists them.
COMMANDS = {
    name: f"{_PACKAGE}.{target}"
    for name, target in (
        ("stats", "stats:stats"), ("demo", "demo:demo"), ("export", "transfer:export"),
        ("import", "transfer:import_"), ("tree", "tree:tree"), ("audit", "audit:audit"),
        ("query", "query:query"), ("chain", "chain:chain"), ("correct", "correct:correct"),
        ("clean", "clean:clean"), ("compact", "compact:compact"),
        ("restore", "restore:restore"), ("backups", "backups:backups"), ("diff", "diff:diff"),
        ("snapshot", "diff:snapshot"), ("grep", "grep:grep"),
        ("duplicates", "duplicates:duplicates"), ("merge", "duplicates:merge"),
        ("serve", "serve:serve"), ("migrate", "migrate:migrate"),
        ("engines", "engines:engines"),
    )
}  # fmt: skip
