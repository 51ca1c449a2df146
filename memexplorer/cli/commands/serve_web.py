"""The web server behind ``memexplorer serve``: textual-serve's app streaming, with
a token and an Origin check in front of it and nothing loaded from other sites.

textual-serve's own page links a Google Fonts stylesheet; everything else it
needs (its bundled ``textual.js`` with xterm.js inside, ``xterm.css`` and the
Roboto Mono font files) ships in the textual_serve package. So the page here is
our own, its ``@font-face`` points at those font files, and all of it is served
from the package's static folder: a served session needs no network.
"""

from __future__ import annotations

import asyncio
import html
import signal
import socket
from collections.abc import Callable

from aiohttp import web
from textual_serve.server import Server

from memexplorer.cli.commands.serve_access import Access
from memexplorer.cli.commands.serve_children import wait_for_children

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<meta name="referrer" content="no-referrer">
<link rel="stylesheet" href="static/css/xterm.css">
<style>
@font-face {{ font-family: "Roboto Mono"; font-style: normal;
  src: url("static/fonts/RobotoMono-VariableFont_wght.ttf") format("truetype"); }}
@font-face {{ font-family: "Roboto Mono"; font-style: italic;
  src: url("static/fonts/RobotoMono-Italic-VariableFont_wght.ttf") format("truetype"); }}
html, body {{ margin: 0; height: 100%; background: #0c181f; }}
.textual-terminal {{ width: 100vw; height: 100vh; opacity: 0; }}
body.-first-byte .textual-terminal {{ opacity: 1; }}
#note {{ position: absolute; inset: 0; display: flex; align-items: center;
  justify-content: center; color: #ddd; font: 16px "Roboto Mono", monospace; }}
body.-first-byte #note {{ display: none; }}
#ended {{ display: none; }}
body.-closed #ended {{ display: flex; }}
</style>
<script src="static/js/textual.js"></script>
</head>
<body>
<div id="note">{title}: starting…</div>
<div id="ended" class="note">Session ended. Reload the page to start again.</div>
<div id="terminal" class="textual-terminal" data-session-websocket-url="{websocket}"
     data-font-size="{font_size}"></div>
</body>
</html>
"""


class GuardedServer(Server):
    """textual-serve's Server, with every route but its static files behind the token
    and the Origin check (no download route: the app delivers no files)."""

    def __init__(self, command: str, access: Access, public_url: str, title: str) -> None:
        super().__init__(command, title=title, public_url=public_url.rstrip("/"))
        self.access = access
        #: The handlers of open tabs (one app process each).
        self.sessions: set[asyncio.Task[object]] = set()

    async def _make_app(self) -> web.Application:
        app = web.Application()
        app.add_routes(
            [
                web.get("/", self.handle_index),
                web.get("/ws", self.handle_websocket),
                web.get("/ws/{token}", self.handle_websocket),
                web.static("/static", self.statics_path),
            ]
        )
        app.on_shutdown.append(self.end_sessions)
        return app

    def websocket_url(self) -> str:
        scheme = "wss" if self.public_url.startswith("https") else "ws"
        return f"{scheme}:{self.public_url.split(':', 1)[1]}/ws/{self.access.token}"

    async def handle_index(self, request: web.Request) -> web.Response:  # type: ignore[override]
        refusal = self.access.refusal(request.headers, request.query.get("token"),
                                      websocket=False)  # fmt: skip
        if refusal is not None:
            raise web.HTTPForbidden(text=refusal)
        try:
            font_size = max(6, min(int(request.query.get("fontsize", "16")), 48))
        except ValueError:
            font_size = 16
        page = _PAGE.format(
            title=html.escape(self.title),
            websocket=html.escape(self.websocket_url()),
            font_size=font_size,
        )
        headers = {
            "Cache-Control": "no-store",
            "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; "
            "frame-ancestors 'none'; "
            f"connect-src 'self' {self.websocket_url().rsplit('/ws/', 1)[0]}",
        }
        return web.Response(text=page, content_type="text/html", headers=headers)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        refusal = self.access.refusal(request.headers, request.match_info.get("token"),
                                      websocket=True)  # fmt: skip
        if refusal is not None:
            raise web.HTTPForbidden(text=refusal)
        task = asyncio.current_task()
        if task is not None:
            self.sessions.add(task)
        try:
            return await super().handle_websocket(request)
        finally:
            self.sessions.discard(task)  # type: ignore[arg-type]

    async def end_sessions(self, app: web.Application) -> None:
        """On shutdown: each open tab's app is told to quit (textual-serve does that
        when its handler is cancelled), rather than waiting for the tabs to close."""
        for task in list(self.sessions):
            task.cancel()


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port``; port 0 lets the system choose one."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host.strip("[]"), port, type=socket.SOCK_STREAM
    )[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


async def serve_until_stopped(
    server: GuardedServer, sock: socket.socket, ready: Callable[[], None]
) -> None:
    """Serve on ``sock`` until SIGINT or SIGTERM; ``ready`` runs once it listens."""
    runner = web.AppRunner(await server._make_app(), access_log=None)
    await runner.setup()
    await web.SockSite(runner, sock, shutdown_timeout=5).start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    ready()
    try:
        await stop.wait()
    finally:
        await runner.cleanup()
        await wait_for_children()
