"""Closing what holds a store open, exactly once.

Graph stores and experience backends are closed from several places (a
``with`` block, the app's shutdown, a failed open's clean-up); the first close
lets go of the store and every later one does nothing.
"""

from __future__ import annotations

import threading

__all__ = ["ClosesOnce"]


class ClosesOnce:
    """``close()`` under ``_lock``, once; the holder supplies :meth:`_release`."""

    _lock: threading.RLock
    _closed: bool

    def close(self) -> None:
        """Let go of the store, once: later calls do nothing."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._release()

    def _release(self) -> None:
        """Close the engine's connection (called once, under the lock)."""
        raise NotImplementedError
