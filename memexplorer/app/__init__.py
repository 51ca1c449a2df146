"""The terminal app: screens, widgets, their stylesheets and the command table.

Built on Textual; asks the operator layer for everything it shows or does
(docs/architecture.md). :func:`memexplorer.app.explorer_app.create_app` makes one.
"""
