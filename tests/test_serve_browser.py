"""A real browser tab on ``memexplorer serve``: headless Chromium opens the printed
URL, the page starts the app over the websocket and draws it, and the terminal
it draws holds the home's stores; the page asked nothing of any other site.

xterm.js paints the terminal on a canvas, so the DOM holds no text: the test
reads xterm's own screen buffer, the cells the canvas is painted from, through
the DevTools protocol (a breakpoint whose condition stores textual.js's terminal
object on ``window`` and never pauses). CI installs Chromium (.ci/run); there a
missing browser fails the test instead of skipping it.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import pytest
import textual_serve
from serve_client import serving

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
TEXTUAL_JS = Path(textual_serve.__file__).parent / "static" / "js" / "textual.js"
#: Where textual.js writes the app's output into its xterm terminal (``this`` is its
#: session object there).
WRITE_CALL = "this.terminal.write("
#: The breakpoint's condition: keep the terminal object, never pause.
KEEP_TERMINAL = "(window.__memexplorerTerminal = this.terminal, false)"
READ_BUFFER = """(() => {
  const term = window.__memexplorerTerminal;
  if (!term) return "";
  const buffer = term.buffer.active, lines = [];
  for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i).translateToString(true));
  return lines.join("\\n");
})()"""


@pytest.fixture
def chromium() -> str:
    if CHROMIUM is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is missing: CI must run the browser test (.ci/run installs it)")
        pytest.skip("needs chromium for a headless browser tab")
    return CHROMIUM


class DevTools:
    """Calls over one page's DevTools websocket; events seen meanwhile are kept."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.events: list[dict] = []

    async def call(self, method: str, seconds: float = 30, **params: object) -> dict:
        number = next(self.ids)
        await self.ws.send_json({"id": number, "method": method, "params": params})
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no answer to {method}"
            reply = await asyncio.wait_for(self.ws.receive_json(), left)
            if reply.get("id") == number:
                assert "error" not in reply, reply
                return dict(reply.get("result", {}))
            self.events.append(reply)


def _write_call_location() -> tuple[int, int]:
    """Line and column (0-based) of the terminal write in textual.js."""
    source = TEXTUAL_JS.read_text()
    at = source.find(WRITE_CALL)
    assert at >= 0, f"textual-serve changed: {WRITE_CALL!r} is not in {TEXTUAL_JS}"
    line_start = source.rfind("\n", 0, at) + 1
    return source.count("\n", 0, at), at - line_start


@asynccontextmanager
async def browser_tab(chromium: str, profile: Path) -> AsyncIterator[DevTools]:
    """A headless Chromium (DevTools on a loopback port it picks) and its blank tab."""
    process = subprocess.Popen(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--window-size=1500,950",
         "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
         f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            assert process.poll() is None, "chromium exited at start"
            assert time.monotonic() < deadline, "chromium never opened its DevTools port"
            await asyncio.sleep(0.1)
        port = port_file.read_text().split()[0]
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/json/list") as response:
                targets = await response.json()
            page = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
            async with session.ws_connect(page, max_msg_size=0) as ws:
                yield DevTools(ws)
    finally:
        process.terminate()
        process.wait(timeout=30)


async def test_a_headless_chromium_tab_draws_the_stores(
    chromium: str, reference_stores: Path, tmp_path: Path
) -> None:
    home = reference_stores / "home" / ".amplihack"
    wanted = ["served read-only", "ops-agent", "106 records", "research-agent", "support-bot"]
    with serving(home) as served:
        async with browser_tab(chromium, tmp_path / "profile") as tab:
            await tab.call("Network.enable")
            await tab.call("Debugger.enable")
            line, column = _write_call_location()
            await tab.call("Debugger.setBreakpointByUrl", urlRegex=r"/static/js/textual\.js$",
                           lineNumber=line, columnNumber=column,
                           condition=KEEP_TERMINAL)  # fmt: skip
            await tab.call("Page.navigate", url=served.page)
            deadline = time.monotonic() + 60
            drawn = ""
            while not all(text in drawn for text in wanted):
                assert time.monotonic() < deadline, f"the tab never drew {wanted}:\n{drawn}"
                await asyncio.sleep(0.2)
                reply = await tab.call("Runtime.evaluate", expression=READ_BUFFER,
                                       returnByValue=True)  # fmt: skip
                drawn = str(reply["result"].get("value", ""))
            requests = [e["params"]["request"]["url"] for e in tab.events
                        if e.get("method") == "Network.requestWillBeSent"]  # fmt: skip
    (tmp_path / "drawn.txt").write_text(drawn)  # for a person to look at
    assert served.page in requests and f"{served.base}/static/js/textual.js" in requests
    assert any(url.endswith(".ttf") for url in requests)  # the font, from this server
    foreign = [url for url in requests if not url.startswith(served.base + "/")]
    assert not foreign, f"the page loaded from elsewhere: {foreign}"
