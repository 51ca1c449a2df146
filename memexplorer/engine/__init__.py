"""The public API's earlier name: ``memexplorer.engine`` is :mod:`memexplorer.memory`.

Agent code and scripts written when the library lived in one ``engine``
package import its public names from here; they come from the memory layer.
"""

from __future__ import annotations

from typing import Any

import memexplorer.memory as _memory

__all__ = list(_memory.__all__)


def __getattr__(name: str) -> Any:
    return getattr(_memory, name)


def __dir__() -> list[str]:
    return sorted(__all__)
