"""``memexplorer serve``: loopback unless --public, port 0 read back, the token and
the Origin check in front of the page and the websocket, a page that loads
nothing from other sites, and the app it streams showing the stores."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import aiohttp
import pytest
from serve_client import handshake_status, open_tab, serving

from memexplorer.cli.commands.serve import app_command, is_loopback
from memexplorer.cli.commands.serve_access import Access, origin_of
from memexplorer.cli.main import main


@pytest.fixture
def home(reference_stores: Path) -> Path:
    return reference_stores / "home" / ".amplihack"


def test_loopback_addresses() -> None:
    assert all(map(is_loopback, ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"]))
    assert not any(map(is_loopback, ["0.0.0.0", "192.168.1.20", "::", "example.com"]))


def test_a_public_host_is_refused_without_public(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--host", "0.0.0.0", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "0.0.0.0 is not a loopback address" in err and "--public" in err
    assert main(["serve", "--port", "70000"]) == 2


def test_each_tab_runs_the_app_read_only_on_the_resolved_path(tmp_path: Path) -> None:
    command = app_command(str(tmp_path / "home" / ".." / "home"))
    assert command == f"MEMEXPLORER_READ_ONLY=1 {sys.executable} -m memexplorer {tmp_path / 'home'}"
    writable = app_command(str(tmp_path / "home"), allow_writes=True)
    assert writable == f"{sys.executable} -m memexplorer {tmp_path / 'home'}"


def test_the_token_and_the_origins_a_server_accepts() -> None:
    access = Access.for_server("127.0.0.1", 8123, None)
    other = Access.for_server("127.0.0.1", 8123, None)
    assert len(access.token) >= 40 and access.token != other.token
    assert access.origins == {"http://127.0.0.1:8123", "http://localhost:8123",
                              "http://[::1]:8123"}  # fmt: skip
    good = {"Origin": "http://localhost:8123"}
    assert access.refusal(good, access.token, websocket=True) is None
    assert access.refusal({}, access.token, websocket=False) is None  # typed in the address bar
    assert "Origin" in str(access.refusal({}, access.token, websocket=True))
    for origin in (
        "http://evil.example",
        "http://127.0.0.1:8124",
        "null",
        "https://127.0.0.1:8123",
    ):
        assert "Origin" in str(access.refusal({"Origin": origin}, access.token, websocket=False))
    assert "token" in str(access.refusal(good, other.token, websocket=True))
    assert "token" in str(access.refusal(good, None, websocket=True))
    public = Access.for_server("0.0.0.0", 8123, "https://memory.example.org/")
    assert public.origins == {"https://memory.example.org"}
    assert origin_of("HTTP://LOCALHOST:80/x?y") == "http://localhost"


async def test_the_websocket_and_page_refuse_without_token_or_from_another_site(
    home: Path,
) -> None:
    with serving(home) as served:
        own = {"Origin": served.base}
        assert await handshake_status(served.websocket, {"Origin": "http://evil.example"}) == 403
        assert await handshake_status(served.websocket, {}) == 403  # no Origin at all
        assert await handshake_status(f"{served.base}/ws", own) == 403  # no token
        assert await handshake_status(served.websocket[:-3] + "abc", own) == 403  # a wrong token
        assert await handshake_status(served.websocket, own) == 101
        async with aiohttp.ClientSession() as session:
            for url, headers in [
                (served.base + "/", {}),
                (served.base + "/?token=wrong", {}),
                (served.page, {"Origin": "http://evil.example"}),
            ]:
                async with session.get(url, headers=headers) as response:
                    assert response.status == 403, url
                    assert "refused" in await response.text()


async def test_port_zero_the_page_and_the_app_showing_the_agents(home: Path) -> None:
    with serving(home) as served:
        assert int(served.base.rsplit(":", 1)[1]) > 0
        assert "read-only" in served.lines[0]
        async with aiohttp.ClientSession() as session:
            async with session.get(served.page) as response:
                assert response.status == 200
                page = await response.text()
            assert f'data-session-websocket-url="{served.websocket}"' in page
            # Nothing from another site: every link, script and font is the server's own.
            assert not re.search(r"(href|src)=\"(https?:)?//", page) and 'url("http' not in page
            for asset in re.findall(r"(?:href|src|url\()=?\"(static/[^\"]+)\"", page):
                async with session.get(f"{served.base}/{asset}") as response:
                    assert response.status == 200, asset
        async with open_tab(served) as tab:
            await tab.wait_for("served read-only", "ops-agent", "106 records",
                               "research-agent", "support-bot")  # fmt: skip
