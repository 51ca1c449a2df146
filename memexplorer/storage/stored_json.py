"""JSON columns as the reference library stores them: JSON text, or base64 of it.

Since it moved to LadybugDB the library writes ``tags``, ``metadata``,
``steps`` and ``prerequisites`` as base64 of the JSON text (``W10=`` for
``[]``) and reads both forms. Whatever reads, scans or rewrites such a value
(the loaders, the credential audit, redaction, the app) decodes it here, so
all of them agree on which values are base64.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

__all__ = [
    "BASE64_JSON_REGEX",
    "decode_stored_json",
    "encode_base64_json",
    "might_be_base64_json",
    "stored_json_text",
]

#: A value shaped like base64 of a JSON object, array or string: base64 of
#: ``{`` starts with ``e``, of ``[`` with ``W``, of ``"`` with ``I``. Databases
#: test it (with a length that is a multiple of 4) to pick rows worth decoding.
BASE64_JSON_REGEX = r"^[eWI][A-Za-z0-9+/]*={0,2}$"
_OPENERS = frozenset("eWI")
_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


def might_be_base64_json(value: str) -> bool:
    """The cheap shape test of :data:`BASE64_JSON_REGEX`, in Python."""
    return (
        len(value) >= 4
        and len(value) % 4 == 0
        and value[0] in _OPENERS
        and _ALPHABET.issuperset(value)
        and "=" not in value.rstrip("=")
    )


def stored_json_text(value: Any) -> str | None:
    """The JSON text a base64 value encodes, or None when the value is not
    base64 of JSON (plain JSON, plain text, or not a string)."""
    if not isinstance(value, str) or not might_be_base64_json(value):
        return None
    try:
        text = base64.b64decode(value, validate=True).decode("utf-8")
        json.loads(text)
    except (binascii.Error, ValueError):
        return None
    return text


def decode_stored_json(value: Any) -> tuple[Any | None, bool]:
    """(the JSON value, whether it was stored as base64) for a JSON column's
    value; (None, False) when it is neither JSON nor base64 of JSON."""
    text = stored_json_text(value)
    if text is not None:
        return json.loads(text), True
    if isinstance(value, str) and value.strip():
        try:
            return json.loads(value), False
        except ValueError:
            pass
    return None, False


def encode_base64_json(text: str) -> str:
    """Base64 of ``text`` (JSON), the way the library stores it."""
    return base64.b64encode(text.encode("utf-8")).decode("ascii")
