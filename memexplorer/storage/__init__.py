"""The storage layer: the database drivers and everything that touches a store's files.

Kuzu, LadybugDB (in a worker process) and SQLite are opened here; stores are
sniffed, their storage versions read, their files written atomically, and
other engine releases installed beside memexplorer. The only layer that
imports a driver; it imports no other memexplorer layer (docs/architecture.md).
"""
