"""What the copy commands put on the clipboard: JSON an operator can paste anywhere."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["as_json"]


def as_json(values: Mapping[str, Any]) -> str:
    """Columns or properties as indented JSON; values JSON lacks (timestamps, UUIDs,
    bytes) become their text, so a copy never fails on an odd column type."""
    return json.dumps(dict(values), indent=2, ensure_ascii=False, default=str)
