"""Text from a store on a terminal: shown as text, never obeyed as a command.

A fact's content is whatever an agent stored, operator input included. C0 and
C1 controls (ESC starts every escape sequence), DEL and the bidirectional
controls could clear the screen, move the cursor, retitle the terminal or show
text in another order than it is stored. The CLI writes them as escapes
(``\\x1b``); the app drops them from what it draws (:mod:`.control_filter`):
each takes no cell, and the layout was measured without them.
"""

from __future__ import annotations

__all__ = ["UNSAFE_CODES", "terminal_safe"]

UNSAFE_CODES = frozenset({*range(0x20), 0x7F, *range(0x80, 0xA0), 0x61C, 0x200E, 0x200F,
                          *range(0x202A, 0x202F), *range(0x2066, 0x206A)})  # fmt: skip
_SHOWN = {code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" for code in UNSAFE_CODES}


def terminal_safe(text: object) -> str:
    """``text`` with every unsafe character written as its escape, ``\\x1b``."""
    return str(text).translate(_SHOWN)
