"""LadybugDB in a process of its own, serving one store over pipes.

kuzu and ladybug cannot be loaded into one Python process (their native
modules register the same types), so the engine runs ladybug here and talks
to it through :class:`~.ladybug_store.LadybugStore`. This file is run by path
(``python -P ladybug_worker.py CONTROL_FD [PACKAGE]``) and imports only the
standard library until it loads ``ladybug`` (or, for a cached older release,
``kuzu``: the two Python APIs are the same; see :mod:`.worker_process`):
starting stays fast, and memexplorer (which
imports kuzu) is never loaded next to it. The client imports the framing
helpers below from this same file, so both sides speak one protocol.

Protocol: frames of ``<length u64><kind u8><payload>``. Requests on stdin are
pickled ``(op, args)``; answers on stdout are pickled values (:data:`VALUE`),
Arrow IPC streams (:data:`ARROW`, for big results), or pickled
``(phase, message)`` errors (:data:`ERROR`). The first frame is a
:data:`HELLO` with ladybug's version and storage version. The control pipe
(``CONTROL_FD``) carries 8-byte request numbers to interrupt.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
import threading
import time
from typing import Any, BinaryIO

HEADER = struct.Struct("<QB")
HELLO, VALUE, ARROW, ERROR = 0, 1, 2, 3
#: Results larger than this whose columns are all plain scalars travel as Arrow:
#: ladybug builds Arrow columns about four times faster than Python rows.
ARROW_ROWS_ABOVE = 2_000
_PLAIN_TYPES = {
    "STRING", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32",
    "UINT64", "DOUBLE", "FLOAT", "BOOL", "BOOLEAN", "SERIAL", "DATE",
}  # fmt: skip
#: Internal keys ladybug spells in capitals where kuzu spells them in lower case.
_INTERNAL_KEYS = {"_ID": "_id", "_LABEL": "_label", "_SRC": "_src", "_DST": "_dst",
                  "_NODES": "_nodes", "_RELS": "_rels"}  # fmt: skip
_PICKLE = pickle.HIGHEST_PROTOCOL


def write_frame(stream: BinaryIO, kind: int, payload: bytes | memoryview) -> None:
    stream.write(HEADER.pack(len(payload), kind))
    stream.write(payload)
    stream.flush()


def read_frame(stream: BinaryIO) -> tuple[int, bytes] | None:
    """The next frame, or None when the other side has gone (end of file)."""
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    size, kind = HEADER.unpack(header)
    payload = stream.read(size)
    if len(payload) < size:
        return None
    return kind, payload


def plain_column(kind: str) -> bool:
    """Whether Arrow and Python rows give the same values for this column type."""
    return kind.removesuffix("[]") in _PLAIN_TYPES


def normalize(value: Any) -> Any:
    """Rename node, rel and path keys to kuzu's spelling (``_LABEL`` → ``_label``).

    Only a path's node and rel lists are walked into: property values (lists,
    structs, maps) never hold nodes, and copying them would double the cost.
    """
    kind = type(value)
    if kind is dict:
        if "_LABEL" not in value and "_NODES" not in value:
            return value
        out = {}
        for key, item in value.items():
            key = _INTERNAL_KEYS.get(key, key)
            out[key] = normalize(item) if key in ("_nodes", "_rels") else item
        return out
    if kind is list:
        return [normalize(item) for item in value]
    return value


def normalize_rows(rows: list[list[Any]], types: list[str]) -> list[list[Any]]:
    """Normalise, in place, the columns whose type holds nodes or rels."""
    columns = [i for i, kind in enumerate(types) if "NODE" in kind or "REL" in kind]
    for row in rows if columns else ():
        for i in columns:
            row[i] = normalize(row[i])
    return rows


def take_rows(result: Any, cap: int) -> list[list[Any]]:
    """Up to ``cap`` rows (all when negative). kuzu before 0.11 has neither
    ``get_all`` nor ``get_n``, only ``has_next``/``get_next``."""
    if cap < 0 and hasattr(result, "get_all"):
        return result.get_all()
    if cap >= 0 and hasattr(result, "get_n"):
        return result.get_n(cap)
    rows = []
    while (cap < 0 or len(rows) < cap) and result.has_next():
        rows.append(result.get_next())
    return rows


class Server:
    """One open database and the requests for it, answered in order."""

    def __init__(self, ladybug: Any, out: BinaryIO) -> None:
        self.ladybug = ladybug
        self.out = out
        self.db: Any = None
        self.conn: Any = None
        self.guard = threading.Lock()
        self.running: int | None = None
        self.cancelled = 0

    # -- interrupts (control thread) ---------------------------------------------
    def watch(self, control_fd: int) -> None:
        """Interrupt request N: refused before it starts, or interrupted (again
        every 10 ms: the query may still be planning) until it has finished.
        Both checks happen under ``guard``, so an interrupt can never reach
        the request after N."""
        while True:
            data = os.read(control_fd, 8)
            if len(data) < 8:
                return
            (number,) = struct.unpack("<Q", data)
            with self.guard:
                self.cancelled = max(self.cancelled, number)
            while True:
                with self.guard:
                    if self.running != number or self.conn is None:
                        break
                    self.conn.interrupt()
                time.sleep(0.01)

    # -- requests ----------------------------------------------------------------
    def answer(self, number: int, op: str, args: tuple[Any, ...]) -> None:
        handler = getattr(self, f"op_{op}", None)
        if handler is None:
            self.send_error("protocol", f"unknown request {op!r}")
            return
        with self.guard:
            self.running = number
            refused = self.cancelled == number
        try:
            if refused:
                raise RuntimeError("Interrupted.")
            kind, payload = handler(*args)
        except Exception as exc:  # every failure goes back to the client
            phase = "open" if op == "open" else "query"
            self.send_error(phase, str(exc) or type(exc).__name__)
            return
        finally:
            with self.guard:
                self.running = None
        write_frame(self.out, kind, payload)

    def send_error(self, phase: str, message: str) -> None:
        write_frame(self.out, ERROR, pickle.dumps((phase, message), _PICKLE))

    @staticmethod
    def value(obj: Any) -> tuple[int, bytes]:
        return VALUE, pickle.dumps(obj, _PICKLE)

    def op_open(
        self,
        path: str,
        read_only: bool,
        buffer_pool_size: int,
        max_db_size: int,
        max_threads: int = 0,
    ) -> tuple[int, bytes]:
        self.op_close()
        options: dict[str, Any] = {"read_only": read_only, "buffer_pool_size": buffer_pool_size}
        if max_db_size > 0:
            options["max_db_size"] = max_db_size
        if max_threads > 0:
            options["max_num_threads"] = max_threads
        db = self.ladybug.Database(path, **options)
        try:
            conn = self.ladybug.Connection(db)
        except BaseException:
            db.close()
            raise
        with self.guard:
            self.db, self.conn = db, conn
        return self.value(None)

    def op_close(self) -> tuple[int, bytes]:
        with self.guard:
            conn, db, self.conn, self.db = self.conn, self.db, None, None
        if conn is not None:
            conn.close()
        if db is not None:
            db.close()
        return self.value(None)

    def run(self, cypher: str, params: dict[str, Any] | None) -> Any:
        """Run one statement. ladybug keeps the compiled statement of every
        parameterised query (keyed by its text and parameter types, which
        kuzu's explicit prepare does not check), so repeats are not planned
        again; that is the engine's ``reuse`` here."""
        if self.conn is None:
            raise RuntimeError("No database is open in this worker")
        return self.conn.execute(cypher, params or {})

    def op_execute(self, cypher: str, params: Any) -> tuple[int, bytes]:
        self.run(cypher, params).close()
        return self.value(None)

    def op_rows(self, cypher: str, params: Any) -> tuple[int, bytes | memoryview]:
        result = self.run(cypher, params)
        try:
            types = result.get_column_data_types()
            if result.get_num_tuples() > ARROW_ROWS_ABOVE and all(map(plain_column, types)):
                return ARROW, self.ipc(result.get_as_arrow(chunk_size=100_000))
            return self.value(normalize_rows(take_rows(result, -1), types))
        finally:
            result.close()

    def op_arrow(self, cypher: str, params: Any, chunk_size: int) -> tuple[int, memoryview]:
        result = self.run(cypher, params)
        try:
            return ARROW, self.ipc(result.get_as_arrow(chunk_size=chunk_size))
        finally:
            result.close()

    def op_capped(self, cypher: str, cap: int, timeout_ms: int) -> tuple[int, bytes]:
        if self.conn is None:
            raise RuntimeError("No database is open in this worker")
        self.conn.set_query_timeout(timeout_ms)
        try:
            result = self.run(cypher, None)
            names = list(result.get_column_names())
            types = result.get_column_data_types()
            rows = take_rows(result, cap) if cap > 0 else []
            more = result.has_next()
            result.close()
        finally:
            self.conn.set_query_timeout(0)
        return self.value((names, normalize_rows(rows, types), more))

    def op_copy(self, cypher: str, data: bytes) -> tuple[int, bytes]:
        import pyarrow as pa

        table = pa.ipc.open_stream(pa.py_buffer(data)).read_all()
        self.run(cypher, {"memexplorer_rows": table}).close()
        return self.value(None)

    @staticmethod
    def ipc(table: Any) -> memoryview:
        import pyarrow as pa

        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        return memoryview(sink.getvalue())


def serve(control_fd: int, package: str = "ladybug") -> None:
    # Answers go to a private copy of stdout; fd 1 then points at stderr, so
    # anything the library prints cannot corrupt a frame.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    requests = sys.stdin.buffer
    try:
        ladybug = __import__(package)
        hello = (str(ladybug.__version__), int(ladybug.storage_version))
    except Exception as exc:
        write_frame(out, ERROR, pickle.dumps(("import", f"{type(exc).__name__}: {exc}"), _PICKLE))
        return
    write_frame(out, HELLO, pickle.dumps(hello, _PICKLE))
    server = Server(ladybug, out)
    threading.Thread(target=server.watch, args=(control_fd,), daemon=True).start()
    try:
        while (frame := read_frame(requests)) is not None:
            number, op, args = pickle.loads(frame[1])
            if op == "exit":
                break
            server.answer(number, op, args)
    finally:
        server.op_close()


if __name__ == "__main__":
    # The terminal's Ctrl+C is for the app; the worker stops when its client
    # closes the request pipe (or dies).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    serve(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "ladybug")
