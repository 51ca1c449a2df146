"""``memexplorer serve``: loopback unless --public; the page loads, and the app it
streams starts and shows the stores (read over the websocket as a browser would)."""

from __future__ import annotations

import asyncio
import base64
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from memexplorer.cli import main
from memexplorer.commands.serve import app_command, is_loopback

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_loopback_addresses() -> None:
    assert all(map(is_loopback, ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"]))
    assert not any(map(is_loopback, ["0.0.0.0", "192.168.1.20", "::", "example.com"]))


def test_a_public_host_is_refused_without_public(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--host", "0.0.0.0", "--port", str(_free_port())]) == 2
    err = capsys.readouterr().err
    assert "0.0.0.0 is not a loopback address" in err and "--public" in err
    assert main(["serve", "--port", "70000"]) == 2


def test_each_tab_runs_the_app_on_the_resolved_path(tmp_path: Path) -> None:
    command = app_command(str(tmp_path / "home" / ".." / "home"))
    assert command.endswith(f"-m memexplorer {tmp_path / 'home'}")
    assert command.startswith(sys.executable)


@pytest.fixture
def served(reference_stores: Path) -> Iterator[str]:
    """``memexplorer serve HOME`` on a free loopback port; its base URL."""
    home = reference_stores / "home" / ".amplihack"
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "memexplorer", "serve", str(home), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()[0].decode()
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        output = process.communicate(timeout=20)[0].decode()
    assert "Traceback" not in output, output


async def _stream(url: str, until: tuple[bytes, ...], seconds: float = 30) -> bytes:
    """What the app draws for a 120x36 browser tab, until every one of ``until`` shows
    (the screen arrives in pieces, so one marker says nothing of the others)."""
    received = b""
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(f"{url.replace('http', 'ws')}/ws?width=120&height=36") as ws,
    ):
        deadline = time.monotonic() + seconds
        while not all(t in received for t in until) and time.monotonic() < deadline:
            try:
                message = await asyncio.wait_for(ws.receive(), 1)
            except TimeoutError:
                continue
            if message.type == aiohttp.WSMsgType.BINARY:
                received += message.data
            elif message.type == aiohttp.WSMsgType.TEXT:
                received += message.data.encode()
            else:
                break
    return received


async def test_the_page_loads_and_the_app_shows_the_agents(served: str) -> None:
    async with aiohttp.ClientSession() as session, session.get(served) as response:
        assert response.status == 200
        page = await response.text()
    assert "<div>memexplorer</div>" in page and "xterm.css" in page  # textual-serve's page
    assert f"{served.replace('http', 'ws')}/ws" in page  # the websocket the page opens
    wanted = (b"ops-agent", b"106 records", b"research-agent", b"support-bot", b"read-only")
    screen = await _stream(served, wanted)
    for text in wanted:
        assert text in screen


@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium for a headless browser tab")
async def test_a_headless_chromium_tab_draws_the_app(served: str, tmp_path: Path) -> None:
    """Chromium opens the page, which starts the app over the websocket and draws it
    in a terminal canvas; the screenshot is kept in tmp_path for a person to look at."""
    port = _free_port()
    browser = subprocess.Popen(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1500,950",
         f"--remote-debugging-port={port}", f"--user-data-dir={tmp_path / 'profile'}",
         "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        async with aiohttp.ClientSession() as session:
            targets: list[dict] = []
            for _ in range(100):
                try:
                    async with session.get(f"http://127.0.0.1:{port}/json/list") as response:
                        targets = await response.json()
                    break
                except aiohttp.ClientError:
                    await asyncio.sleep(0.1)
            page = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
            async with session.ws_connect(page, max_msg_size=0) as ws:
                calls = 0

                async def call(method: str, **params: object) -> dict:
                    nonlocal calls
                    calls += 1
                    await ws.send_json({"id": calls, "method": method, "params": params})
                    while True:
                        reply = await ws.receive_json()
                        if reply.get("id") == calls:
                            return dict(reply.get("result", {}))

                await call("Page.navigate", url=served)
                found = False
                for _ in range(160):
                    # textual-serve marks the page once the app's first bytes arrive.
                    probe = "!!document.querySelector('.-first-byte .xterm-screen')"
                    result = await call("Runtime.evaluate", expression=probe)
                    found = bool(result["result"].get("value"))
                    if found:
                        break
                    await asyncio.sleep(0.25)
                assert found, "the app never drew in the page"
                await asyncio.sleep(3)  # the stores listed (the app's workers, real time)
                shot = await call("Page.captureScreenshot", format="png")
    finally:
        browser.terminate()
        browser.wait(timeout=20)
    png = base64.b64decode(shot["data"])
    assert png.startswith(b"\x89PNG")
    (tmp_path / "serve.png").write_bytes(png)
