"""The command line: ``memexplorer`` and one module per command in :mod:`.commands`.

Asks the operator layer for everything; opens the app (:mod:`.commands.open_app`)
when asked to (docs/architecture.md).
"""
