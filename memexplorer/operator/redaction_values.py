"""Scrub one stored value: plain text, or base64 of JSON that must stay decodable.

A LadybugDB-era store keeps tags, metadata and steps as base64 of JSON; the
library decodes them on read, so a redacted value must still decode to JSON
of the same shape, or the agent could no longer load its own memory.
"""

from __future__ import annotations

import json
from contextvars import ContextVar
from typing import Any

from memexplorer.memory.security import CredentialScrubber
from memexplorer.storage.stored_json import encode_base64_json, stored_json_text

__all__ = ["INCLUDE_LOW", "scrubbed_value"]

_SCRUB = CredentialScrubber()
#: Whether the redaction under way takes low-confidence secrets too (a keyword in
#: prose); a context variable so the helpers deep in the row walk need no argument.
INCLUDE_LOW: ContextVar[bool] = ContextVar("include_low", default=True)


def scrubbed_value(value: str) -> str | None:
    """The value with its secrets redacted, or None when it holds none; base64
    of JSON comes back as base64 of JSON, or unchanged when no secret can be
    taken out of it without breaking the JSON."""
    text = stored_json_text(value)
    if text is None:
        scrubbed, changed = _SCRUB.scrub_text(value, include_low=INCLUDE_LOW.get())
        return scrubbed if changed else None
    scrubbed, changed = _SCRUB.scrub_text(text, include_low=INCLUDE_LOW.get())
    if not changed:
        return None
    decoded = json.loads(text)
    try:
        kept = _shape(json.loads(scrubbed)) == _shape(decoded)
    except ValueError:
        kept = False
    if not kept:
        # A secret ran across JSON syntax (a quote, a comma): scrub each string instead.
        strings = _scrub_strings(decoded)
        if strings == decoded:
            return value
        scrubbed = json.dumps(strings)
    return encode_base64_json(scrubbed)


def _shape(value: Any) -> Any:
    """A JSON value with every scalar replaced by its type: equal shapes have the
    same keys, lengths and types, whatever their strings say."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(item) for item in value]
    return type(value).__name__


def _scrub_strings(value: Any) -> Any:
    """A JSON value with the secrets in each of its strings (keys too) redacted."""
    if isinstance(value, str):
        return _SCRUB.scrub_text(value, include_low=INCLUDE_LOW.get())[0]
    if isinstance(value, list):
        return [_scrub_strings(item) for item in value]
    if isinstance(value, dict):
        return {_scrub_strings(k): _scrub_strings(v) for k, v in value.items()}
    return value
