"""Reading a JSON export one record at a time, so an import's memory does not grow
with the file: the top-level object's lists are yielded element by element, every
other value whole. At most one record (plus one chunk) of text is held at a time.

Each element is decoded by the standard library's C scanner (``raw_decode``) from a
text buffer refilled in chunks; what is wrong is named by its place (the list and
the record's position, the character offset): text that is not UTF-8 or not JSON,
a cut file, nesting too deep to parse, strings no store can hold (lone surrogates).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from memexplorer.memory.import_file import SURROGATE_ESCAPE, lone_surrogate
from memexplorer.storage.exceptions import ImportDataError

__all__ = ["CHUNK_CHARS", "MAX_RECORD_CHARS", "iter_export"]

#: Text read from the file at a time.
CHUNK_CHARS = 1024 * 1024
#: A single record (or top-level value) larger than this is refused, not buffered.
MAX_RECORD_CHARS = 256 * 1024 * 1024
_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
_SCAN = _DECODER.scan_once
_AFTER = re.compile(r"[ \t\n\r]*([,\]])[ \t\n\r]*")
_TRUNCATED = ("Unterminated string", "Invalid \\escape", "Invalid \\uXXXX escape")


class _Text:
    """A window of the file's text: ``buf[pos:]`` is what is not yet consumed."""

    def __init__(self, handle: BinaryIO, source: Path) -> None:
        self.handle = handle
        self.source = source
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.buf = ""
        self.pos = 0
        self.base = 0  # characters dropped from the front of buf so far
        self.bytes_read = 0
        self.eof = False

    def fill(self, size: int = CHUNK_CHARS) -> bool:
        """Append about ``size`` more characters; False at the end of the file."""
        if self.eof:
            return False
        raw = self.handle.read(size)
        if not self.bytes_read and raw.startswith(codecs.BOM_UTF8):
            raise ImportDataError(
                f"{self.source} starts with a byte-order mark (BOM), which JSON does not allow",
                hint="Save the file as UTF-8 without a BOM, or export it again.",
            )
        try:
            text = self.decoder.decode(raw, final=not raw)
        except UnicodeDecodeError as exc:
            raise ImportDataError(
                f"{self.source} is not UTF-8 text (byte {self.bytes_read + exc.start})",
                hint="Give a JSON export written by memexplorer or the reference library.",
            ) from None
        self.bytes_read += len(raw)
        self.eof = not raw
        self.base += self.pos
        self.buf = self.buf[self.pos :] + text
        self.pos = 0
        return True

    def peek(self) -> str:
        """The next non-space character ('' at the end of the file)."""
        while True:
            self.pos = _SPACE.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.fill():
                return ""

    def expect(self, chars: str, where: str) -> str:
        found = self.peek()
        if not found or found not in chars:
            self.fail(f"expected {' or '.join(repr(c) for c in chars)} {where}")
        self.pos += 1
        return found

    def value(self, where: str) -> Any:
        """Decode the next JSON value whole, reading more text while it is cut off."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                cut = exc.pos >= len(self.buf) - 6 or exc.msg.startswith(_TRUNCATED)
                if cut and self._grow(where):
                    continue
                # json's "… starting at" waits for a place; fail() gives it apart.
                self.fail(f"{exc.msg.removesuffix(' at')} in {where}", self.base + exc.pos)
            except RecursionError:
                raise ImportDataError(
                    f"{self.source} nests arrays or objects too deeply to be read ({where}); "
                    "nothing was written",
                    hint="An export nests a few levels deep; this file was not written by "
                    "an export.",
                ) from None
            if end == len(self.buf) and self._grow(where):
                continue  # a number may go on in the next chunk
            if SURROGATE_ESCAPE.search(self.buf, self.pos, end):
                _refuse_lone_surrogate(self.source, value, where)
            self.pos = end
            return value

    def _grow(self, where: str) -> bool:
        held = len(self.buf) - self.pos
        if held > MAX_RECORD_CHARS:
            raise ImportDataError(
                f"{self.source}: {where} is over {MAX_RECORD_CHARS // 1024 // 1024} M "
                "characters long; not read",
                hint="An export's records are small; this file was not written by an export.",
            )
        return self.fill(max(CHUNK_CHARS, held))

    def fail(self, what: str, offset: int | None = None) -> None:
        at = self.base + self.pos if offset is None else offset
        raise ImportDataError(
            f"{self.source} is not valid JSON: {what} (character {at})",
            hint="The file may be truncated; export it again.",
        )


def iter_export(source: Path) -> Iterator[tuple[str, int | None, Any]]:
    """Yield ``(key, position, record)`` for each element of the top-level object's
    non-empty lists and ``(key, None, value)`` for its other values (an empty list
    among them), in file order; raise
    :class:`ImportDataError` at the first thing wrong."""
    with open(source, "rb") as handle:
        text = _Text(handle, source)
        first = text.peek()
        if first != "{":
            if not first:
                text.fail("the file is empty")
            kind = type(text.value("the file")).__name__
            raise ImportDataError(
                f"{source} holds a JSON {kind}, not an export object",
                hint="An export is an object with semantic_nodes, episodic_nodes and edge lists.",
            )
        text.pos += 1
        if text.peek() == "}":
            text.pos += 1
        else:
            while True:
                key = text.value("a key of the export object")
                if not isinstance(key, str):
                    text.fail("expected a string key in the export object")
                text.expect(":", f"after the key {key!r}")
                if text.peek() == "[":
                    text.pos += 1
                    yield from _elements(text, key)
                else:
                    yield key, None, text.value(key)
                if text.expect(",}", f"after {key!r}") == "}":
                    break
        if text.peek():
            text.fail("text after the export object")


def _elements(text: _Text, key: str) -> Iterator[tuple[str, int | None, Any]]:
    if text.peek() == "]":
        text.pos += 1
        yield key, None, []  # so an empty list is seen to be there
        return
    position = 0
    while True:
        fast = _whole_element(text)
        if fast is None:
            where = f"{key}[{position}]"
            record = text.value(where)
            closed = text.expect(",]", f"after {where}") == "]"
        else:
            record, start, closed = fast
            if SURROGATE_ESCAPE.search(text.buf, start, text.pos):
                _refuse_lone_surrogate(text.source, record, f"{key}[{position}]")
        yield key, position, record
        if closed:
            return
        position += 1


def _whole_element(text: _Text) -> tuple[Any, int, bool] | None:
    """The next element, where it began, and whether a ']' followed it: one call of
    the C scanner when the element and its separator lie whole in the buffer (almost
    always); None when not, or when it is wrong, for :meth:`_Text.value` to say why."""
    buf, start = text.buf, text.pos
    try:
        record, end = _SCAN(buf, start)
    except (StopIteration, ValueError, RecursionError):
        return None
    after = _AFTER.match(buf, end)
    if after is None or after.end() >= len(buf):
        return None
    text.pos = after.end()
    return record, start, after.group(1) == "]"


def _refuse_lone_surrogate(source: Path, value: Any, where: str) -> None:
    found = lone_surrogate(value, where)
    if found is not None:
        raise ImportDataError(
            f"{source} holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape) "
            f"at {found}, which is not text any store can hold; nothing was written",
            hint="Fix or remove that value (the file was not written by an export).",
        )
