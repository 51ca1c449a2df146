"""``memexplorer serve``: the same app in a web browser, through textual-serve.

Each browser tab gets its own ``memexplorer PATH`` process (textual-serve runs
the command per connection and streams its screen over a websocket), so the
app is exactly the terminal one: read-only as always. Anyone who can reach the
port can read every store under PATH, so it listens on loopback unless
``--public`` says otherwise.
"""

from __future__ import annotations

import argparse
import ipaddress
import shlex
import sys
from pathlib import Path

from .common import EXIT_OK, EXIT_USAGE

DEFAULT_PORT = 8000


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses (127.0.0.0/8, ::1); a name other
    than localhost may resolve anywhere, so it counts as public."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def app_command(path: str | None) -> str:
    """The shell command textual-serve runs for each browser tab."""
    argv = [sys.executable, "-m", "memexplorer"]
    if path:
        argv.append(str(Path(path).expanduser().resolve()))
    return shlex.join(argv)


def run(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        print(f"error: port {args.port} is not between 1 and 65535", file=sys.stderr)
        return EXIT_USAGE
    if not is_loopback(args.host):
        if not args.public:
            print(
                f"error: {args.host} is not a loopback address: anyone who reaches it could "
                "read every store under the path. Add --public if that is what you want.",
                file=sys.stderr,
            )
            return EXIT_USAGE
        print(
            f"warning: serving on {args.host}:{args.port} without authentication: anyone "
            "who reaches it can read every store under the path (read-only).",
            file=sys.stderr,
        )
    from textual_serve.server import Server

    server = Server(
        app_command(args.path),
        host=args.host,
        port=args.port,
        title="memexplorer",
        public_url=args.public_url,
    )
    server.serve()
    return EXIT_OK


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="the app in a web browser (textual-serve), on loopback unless --public",
        description="Serve the memexplorer app to web browsers through textual-serve: each "
        "tab runs its own read-only app on PATH. Listens on 127.0.0.1 unless --public.",
    )
    parser.add_argument(
        "path",
        nargs="?",
        metavar="PATH",
        help="a store, an agent folder or a home (default: as the app)",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; others need --public)",
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--public",
        action="store_true",
        help="allow a non-loopback --host: no authentication, anyone who "
        "reaches it can read the stores",
    )
    parser.add_argument(
        "--public-url",
        metavar="URL",
        help="the URL browsers use to reach this server, when it differs "
        "from http://HOST:PORT (behind a proxy, or listening on 0.0.0.0)",
    )
    parser.set_defaults(handler=run)
