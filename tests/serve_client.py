"""Test helpers for ``memexplorer serve``: start it on a free loopback port (port 0,
read back from what it prints), and talk to a served app as a browser tab would,
over textual-serve's websocket protocol (binary frames: the screen; text frames
from the tab: ``["stdin", keys]``, ``["resize", {...}]``)."""

from __future__ import annotations

import asyncio
import codecs
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
from rich.cells import cell_len

#: Terminal input as xterm.js sends it for keys the tests press.
KEYS = {"delete": "\x1b[3~", "escape": "\x1b", "f6": "\x1b[17~", "ctrl+r": "\x12",
        "home": "\x1b[H", "ctrl+k": "\x0b", "enter": "\r", "down": "\x1b[B"}  # fmt: skip
_ESCAPE = re.compile(r"\x1b(\[([0-?]*)[ -/]*([@-~])|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")


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


def app_processes(served: Served) -> list[tuple[int, dict[str, str]]]:
    """Each app process the server started and its environment (Linux: /proc), found
    among its descendants by their command line (``-m memexplorer`` without serve)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the process ended meanwhile
        parents[int(stat.parent.name)] = int(fields[1])
    found = []
    for pid in parents:
        ancestor = parents.get(pid)
        while ancestor is not None and ancestor != served.process.pid:
            ancestor = parents.get(ancestor)
        if ancestor is None:
            continue
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"memexplorer" in argv and b"serve" not in argv:
            pairs = (item.decode().partition("=") for item in raw if b"=" in item)
            found.append((pid, {key: value for key, _, value in pairs}))
    return found


def app_environments(served: Served) -> list[dict[str, str]]:
    """The environment of each app process the server started."""
    return [environment for _, environment in app_processes(served)]


def app_pids(served: Served) -> list[int]:
    """The process id of each app process the server started."""
    return [pid for pid, _ in app_processes(served)]


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


class Screen:
    """What a terminal shows after the app's output: enough of one for Textual's
    (it places every run of text with a cursor move, and redraws only what changed,
    so a text typed in pieces shows whole only on the screen, not in the stream)."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells = [[" "] * width for _ in range(height)]
        self.row = self.column = 0
        self._pending = ""
        self._decode = codecs.getincrementaldecoder("utf-8")("replace").decode

    def feed(self, data: bytes) -> None:
        text = self._pending + self._decode(data)
        self._pending = ""
        position = 0
        for match in _ESCAPE.finditer(text):
            self._write(text[position : match.start()])
            position = match.end()
            if match.group(3) == "H":  # cursor position, 1-based
                row, _, column = (match.group(2) or "1;1").partition(";")
                self.row, self.column = int(row or 1) - 1, int(column or 1) - 1
            elif match.group(3) == "J" and match.group(2) == "2":
                self.cells = [[" "] * self.width for _ in range(self.height)]
        rest = text[position:]
        cut = rest.find("\x1b")
        if cut >= 0:  # an escape sequence split between frames: wait for its end
            self._pending, rest = rest[cut:], rest[:cut]
        self._write(rest)

    def _write(self, text: str) -> None:
        for character in text:
            if character in "\r\n" or not 0 <= self.row < self.height:
                continue
            if self.column < self.width:
                self.cells[self.row][self.column] = character
            self.column += max(cell_len(character), 1)

    def text(self) -> str:
        return "\n".join("".join(row) for row in self.cells)


class Tab:
    """One browser tab's websocket to a served app: keys in, screen out."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, size: tuple[int, int]) -> None:
        self.ws = ws
        self.screen = Screen(*size)

    async def keys(self, *keys: str) -> None:
        for key in keys:
            await self.ws.send_json(["stdin", KEYS.get(key, key)])

    async def wait_for(self, *texts: str, seconds: float = 30) -> str:
        """Until the screen shows each of ``texts`` more often than when the call
        began (a new notification, say, though an older one with the same words
        still shows); fail at the deadline saying which did not."""
        before = self.screen.text()

        def missing(shown: str) -> list[str]:
            return [t for t in texts if shown.count(t) <= before.count(t)]

        return await self.wait_until(lambda shown: not missing(shown), seconds,
                                     lambda shown: f"never shown: {missing(shown)}")  # fmt: skip

    async def wait_until(
        self,
        done: Callable[[str], bool],
        seconds: float = 30,
        why: Callable[[str], str] = lambda shown: "the screen never got there",
    ) -> str:
        """Read the app's output until ``done(screen text)``; fail at the deadline."""
        deadline = time.monotonic() + seconds
        while True:
            shown = self.screen.text()
            if done(shown):
                return shown
            left = deadline - time.monotonic()
            assert left > 0, f"{why(shown)}\n--- the screen ---\n{shown}"
            try:
                message = await asyncio.wait_for(self.ws.receive(), min(left, 1))
            except TimeoutError:
                continue
            if message.type == aiohttp.WSMsgType.BINARY:
                self.screen.feed(message.data)
            elif message.type != aiohttp.WSMsgType.TEXT:
                raise AssertionError(f"the websocket closed: {message.type}")


@asynccontextmanager
async def open_tab(served: Served, size: tuple[int, int] = (120, 36)) -> AsyncIterator[Tab]:
    """A tab of ``size`` columns and rows on the served app, from the server's own page
    (its Origin) with the token, as the page's script connects."""
    url = f"{served.websocket}?width={size[0]}&height={size[1]}"
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(url, headers={"Origin": served.base}) as ws,
    ):
        yield Tab(ws, size)


async def handshake_status(url: str, headers: dict[str, str]) -> int:
    """The HTTP status a websocket handshake to ``url`` gets (101: switched)."""
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(url, headers=headers):
                return 101
        except aiohttp.WSServerHandshakeError as error:
            return error.status
