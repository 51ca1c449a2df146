"""One console query in a process of its own, so that stopping it is real.

Kuzu and LadybugDB check for an interrupt between batches of rows, but some
work has no such point: ``UNWIND range(1, 2000000000)`` builds its whole list
first, so an interrupt waits for it (and it grew the app to 8.6 GB). A process
can always be ended. The console runs read-only queries here: the parent
(:mod:`memexplorer.operator.console_run`) kills this process on escape, past the time limit or
above the memory ceiling, and the app's own memory never holds the work.

Run by path (``python -P console_child.py ENGINE STORE``); only the standard
library is imported before the engine's own module, so a LadybugDB query never
loads kuzu. The store is opened (read-only) before the query is read, so a child
started ahead of time answers at once. Request on stdin: one pickled dict
(query, cap, timeout_ms); end of input without one ends the child quietly.
Answer on stdout: one pickled ``("rows", names, rows, more)`` or
``("error", message)``.
"""

from __future__ import annotations

import importlib
import os
import pickle
import sys
from pathlib import Path
from typing import Any


def _normalizer() -> Any:
    """LadybugDB spells node keys in capitals; the worker's helper renames them. It
    is loaded by path, as this file is: the folder is never put on sys.path, where
    its modules could shadow the standard library's."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "memexplorer_ladybug_worker", Path(__file__).with_name("ladybug_worker.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.normalize


def _open(engine_name: str, path: str) -> Any:
    engine = importlib.import_module(engine_name)
    database = engine.Database(path, read_only=True)
    connection = engine.Connection(database)
    # The first query of a connection loads the catalog: do it now, while the
    # operator types, not when the query comes.
    connection.execute("CALL show_tables() RETURN count(*)")
    return database, connection


def _run(engine_name: str, connection: Any, request: dict[str, Any]) -> tuple[Any, ...]:
    connection.set_query_timeout(request["timeout_ms"])
    result = connection.execute(request["query"])
    names = list(result.get_column_names())
    rows: list[list[Any]] = []
    while result.has_next() and len(rows) < request["cap"]:
        rows.append(result.get_next())
    more = result.has_next()
    if engine_name == "ladybug":
        normalize = _normalizer()
        rows = [[normalize(value) for value in row] for row in rows]
    return ("rows", names, rows, more)


def main() -> int:
    engine_name, path = sys.argv[1], sys.argv[2]
    opened, failure = None, ""
    try:
        opened = _open(engine_name, path)
    except Exception as exc:  # said when the query comes, as the engine's own text
        failure = str(exc)
    try:
        request = pickle.load(sys.stdin.buffer)
    except EOFError:
        return 0  # a child started ahead of time and never needed
    try:
        if opened is None:
            raise RuntimeError(failure)
        answer = _run(engine_name, opened[1], request)
    except Exception as exc:  # every engine error goes back as text, to be translated
        answer = ("error", str(exc))
    pickle.dump(answer, sys.stdout.buffer, protocol=pickle.HIGHEST_PROTOCOL)
    sys.stdout.buffer.flush()
    # Nothing to keep: a read-only handle has nothing to write back, and closing the
    # database at exit only delays the next query's start.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
