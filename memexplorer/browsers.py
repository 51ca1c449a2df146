"""The app's open stores: one read-only browser per store, opened on first use.

Opening runs in worker threads; the lock makes two workers asking for the same
store share one browser (kuzu allows one database object per file per process).
"""

from __future__ import annotations

import threading
from pathlib import Path

from memexplorer.engine.browse import StoreBrowser, open_browser


class BrowserPool:
    def __init__(self) -> None:
        self._browsers: dict[Path, StoreBrowser] = {}
        self._lock = threading.Lock()

    def get(self, path: Path) -> StoreBrowser:
        with self._lock:
            browser = self._browsers.get(path)
            if browser is None:
                browser = open_browser(path)
                self._browsers[path] = browser
            return browser

    def interrupt(self, path: Path) -> None:
        browser = self._browsers.get(path)
        if browser is not None:
            browser.interrupt()

    def forget(self, path: Path) -> None:
        """Close one store (to reopen it fresh, say after it changed on disk)."""
        with self._lock:
            browser = self._browsers.pop(path, None)
        if browser is not None:
            browser.close()

    def close_all(self) -> None:
        with self._lock:
            browsers, self._browsers = list(self._browsers.values()), {}
        for browser in browsers:
            browser.close()
