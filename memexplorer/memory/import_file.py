"""Reading a JSON export for import, refusing what would surprise before any store
is touched: files over the cap, text that is not UTF-8 or not JSON, nesting too
deep to parse, strings no store can hold (lone surrogates), and, for a replace
import, a file that would silently wipe the agent (no nodes) or drop a kind of
edge (a missing list)."""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

from memexplorer.memory.export_schema import EDGE_SPECS
from memexplorer.storage.exceptions import ImportDataError

__all__ = [
    "MAX_IMPORT_BYTES", "check_replace_file", "lone_surrogate", "read_export", "refuse_replace",
]  # fmt: skip

#: Larger JSON files are refused before they are read (seed 002).
MAX_IMPORT_BYTES = 500 * 1024 * 1024
#: A ``\uD800``-``\uDFFF`` escape: only then can a parsed string hold a lone surrogate.
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF][0-9a-fA-F]{2}")
_NODE_KEYS = ("semantic_nodes", "episodic_nodes")


def read_export(source: Path) -> dict[str, Any]:
    """The export object in ``source``, or :class:`ImportDataError` saying what is wrong."""
    size = source.stat().st_size
    if size > MAX_IMPORT_BYTES:
        raise ImportDataError(
            f"{source} is {size / 1024 / 1024:.0f} MB, over the 500 MB import cap; not read",
            hint="Split the export, or use --format raw-db for a whole store.",
        )
    try:
        text = source.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ImportDataError(
            f"{source} is not UTF-8 text (byte {exc.start})",
            hint="Give a JSON export written by memexplorer or the reference library.",
        ) from None
    if text.startswith("\ufeff"):
        raise ImportDataError(
            f"{source} starts with a byte-order mark (BOM), which JSON does not allow",
            hint="Save the file as UTF-8 without a BOM, or export it again.",
        )
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        said = exc.msg.removesuffix(" at")  # "… starting at" + " at line": one "at"
        raise ImportDataError(
            f"{source} is not valid JSON: {said} at line {exc.lineno}, column {exc.colno}",
            hint="The file may be truncated; export it again.",
        ) from None
    except RecursionError:
        raise ImportDataError(
            f"{source} nests arrays or objects too deeply to be read; nothing was written",
            hint="An export nests a few levels deep; this file was not written by an export.",
        ) from None
    if not isinstance(data, dict):
        raise ImportDataError(
            f"{source} holds a JSON {type(data).__name__}, not an export object",
            hint="An export is an object with semantic_nodes, episodic_nodes and edge lists.",
        )
    if SURROGATE_ESCAPE.search(text):
        where = lone_surrogate(data, "$")
        if where is not None:
            raise ImportDataError(
                f"{source} holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape) "
                f"at {where}, which is not text any store can hold; nothing was written",
                hint="Fix or remove that value (the file was not written by an export).",
            )
    return data


def lone_surrogate(value: Any, where: str) -> str | None:
    """The JSON path of the first string (value or key) that is not valid Unicode text."""
    stack: list[tuple[Any, str]] = [(value, where)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if not _encodable(item):
                return path
        elif isinstance(item, dict):
            for key, child in item.items():
                if not _encodable(key):
                    return f"{path} (a key)"
                stack.append((child, f"{path}.{key}"))
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{i}]") for i, child in enumerate(item))
    return None


def _encodable(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_replace_file(data: dict[str, Any], *, allow_empty: bool) -> None:
    """A replace import makes the agent's memory exactly the file's: refuse a file with
    no nodes (it would wipe the agent) or missing one of its format's lists (that
    kind would silently vanish), unless ``allow_empty`` says this is meant."""
    if allow_empty:
        return
    has_nodes = any(isinstance(data.get(key), list) and data.get(key) for key in _NODE_KEYS)
    refuse_replace(data.get("format_version", "1.0"), data, has_nodes)


def refuse_replace(version: str, keys: Collection[str], has_nodes: bool) -> None:
    """A replace import's two refusals, for a file read whole or streamed: one of
    the format's lists is not among ``keys``, or the file holds no nodes."""
    needed = [*_NODE_KEYS, *(s.key for s in EDGE_SPECS if version in s.versions)]
    missing = [key for key in needed if key not in keys]
    if missing:
        raise ImportDataError(
            f"The file has no {', '.join(missing)} list(s); a replace import would remove "
            "the agent's data of that kind without a word, so nothing was written",
            hint="Export the agent again, use --merge to add to its memory, or pass "
            "--allow-empty to replace it anyway.",
        )
    if not has_nodes:
        raise ImportDataError(
            "The file holds no nodes: a replace import would wipe the agent's memory, "
            "so nothing was written",
            hint="Check the file (was the export empty?), or pass --allow-empty to empty "
            "the agent on purpose.",
        )
