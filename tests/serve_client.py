"""Test helpers for ``memexplorer serve``: start it on a free loopback port (port 0,
read back from what it prints), and talk to a served app as a browser tab would,
over textual-serve's websocket protocol (binary frames: the screen; text frames
from the tab: ``["stdin", keys]``, ``["resize", {...}]``)."""

from __future__ import annotations

import asyncio
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

#: Terminal input as xterm.js sends it for keys the tests press.
KEYS = {"delete": "\x1b[3~", "escape": "\x1b", "f6": "\x1b[17~", "ctrl+r": "\x12",
        "home": "\x01", "ctrl+k": "\x0b", "enter": "\r", "down": "\x1b[B"}  # fmt: skip
_ESCAPES = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")


@dataclass
class Served:
    """A running ``memexplorer serve``: its base URL, token and printed lines."""

    process: subprocess.Popen[str]
    base: str
    token: str
    lines: list[str] = field(default_factory=list)

    @property
    def page(self) -> str:
        return f"{self.base}/?token={self.token}"

    @property
    def websocket(self) -> str:
        return f"{self.base.replace('http', 'ws', 1)}/ws/{self.token}"


def _read_lines(stream: object, into: queue.Queue[str]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        into.put(line)


@contextmanager
def serving(path: Path, *extra: str, seconds: float = 30) -> Iterator[Served]:
    """``memexplorer serve PATH --port 0 [extra]`` until the block ends; it must print
    its URL within ``seconds`` and stop cleanly (no traceback) when terminated."""
    env = {k: v for k, v in os.environ.items() if k != "MEMEXPLORER_READ_ONLY"}
    process = subprocess.Popen(
        [sys.executable, "-m", "memexplorer", "serve", str(path), "--port", "0", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_read_lines, args=(process.stdout, lines), daemon=True).start()
    seen: list[str] = []
    try:
        deadline = time.monotonic() + seconds
        found = None
        while found is None:
            left = deadline - time.monotonic()
            assert left > 0 and process.poll() is None, "serve never printed its URL:\n" + (
                "".join(seen)
            )
            try:
                seen.append(lines.get(timeout=min(left, 1)))
            except queue.Empty:
                continue
            found = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=([\w-]+)", seen[-1])
        yield Served(process, found.group(1), found.group(2), seen)
    finally:
        process.terminate()
        process.wait(timeout=30)
        while not lines.empty():
            seen.append(lines.get())
    output = "".join(seen)
    assert "Traceback" not in output, output


def screen_text(received: bytes) -> str:
    """What the app wrote, with terminal escape sequences taken out."""
    return _ESCAPES.sub(b"", received).decode("utf-8", "replace")


class Tab:
    """One browser tab's websocket to a served app: keys in, screen out."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.received = b""

    async def keys(self, *keys: str) -> None:
        for key in keys:
            await self.ws.send_json(["stdin", KEYS.get(key, key)])

    async def wait_for(self, *texts: str, seconds: float = 30) -> str:
        """Read the screen until every text in ``texts`` showed since the last call;
        fail at the deadline saying which did not."""
        start = len(self.received)
        deadline = time.monotonic() + seconds
        while True:
            shown = screen_text(self.received[start:])
            missing = [t for t in texts if t not in shown]
            if not missing:
                return shown
            left = deadline - time.monotonic()
            assert left > 0, f"never shown: {missing}\n--- screen text ---\n{shown[-3000:]}"
            try:
                message = await asyncio.wait_for(self.ws.receive(), min(left, 1))
            except TimeoutError:
                continue
            if message.type == aiohttp.WSMsgType.BINARY:
                self.received += message.data
            elif message.type != aiohttp.WSMsgType.TEXT:
                raise AssertionError(f"the websocket closed: {message.type}; {missing} not shown")
