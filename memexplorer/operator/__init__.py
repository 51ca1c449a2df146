"""The operator layer: everything an operator does to agents' stores.

Browsing, chains and neighbourhoods, the query box's retrieval, clean, correct,
merge, backups and undo, transfer and migrate, audit and redaction, the
console, and the one writing gate every write goes through. Used by the app and
the CLI alike; imports the memory and storage layers, never textual or rich
(docs/architecture.md).
"""
