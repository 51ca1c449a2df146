"""``memexplorer serve``: the same app in a web browser, through textual-serve.

Each browser tab gets its own ``memexplorer PATH`` process (textual-serve runs
the command per connection and streams its screen over a websocket). Served
sessions are read-only for real: the command sets ``MEMEXPLORER_READ_ONLY=1``,
so the engine's writing gate refuses every write and the app says so, unless
``--allow-writes`` opts in. Only the holder of the printed URL (it carries a
random token) gets the page and the websocket, and only from the served site's
own page (Origin). It listens on loopback unless ``--public`` says otherwise.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from memexplorer.cli.command_classes import Args, command
from memexplorer.cli.commands.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from memexplorer.cli.commands.options import argument
from memexplorer.cli.commands.serve_access import Access, is_loopback, url_host

__all__ = ["app_command", "is_loopback", "serve"]

DEFAULT_PORT = 8000


def app_command(path: str | None, *, allow_writes: bool = False) -> str:
    """The shell command textual-serve runs for each browser tab: the app on the
    resolved path, with writes switched off unless ``allow_writes``."""
    from memexplorer.operator.write_gate import READ_ONLY_ENV

    argv = [sys.executable, "-m", "memexplorer"]
    if path:
        argv.append(str(Path(path).expanduser().resolve()))
    command = shlex.join(argv)
    return command if allow_writes else f"{READ_ONLY_ENV}=1 {command}"


def _refused_host(args: Args) -> str | None:
    if not 0 <= args.port < 65536:
        return f"error: port {args.port} is not between 0 and 65535 (0: any free port)"
    if not is_loopback(args.host) and not args.public:
        return (
            f"error: {args.host} is not a loopback address: anyone who reaches it and "
            "gets the URL could read every store under the path. Add --public if that "
            "is what you want."
        )
    return None


@command(
    "serve", "the app in a web browser (textual-serve): read-only, behind a token",
    description="Serve the memexplorer app to web browsers through textual-serve: each "
    "tab runs its own app on PATH, with every write refused unless --allow-writes. "
    "The printed URL carries a random token; without it (or from another site's "
    "page) the server refuses. Listens on 127.0.0.1 unless --public.",
)  # fmt: skip
@argument("path", "a store, an agent folder or a home (default: as the app)", required=False)
@click.option("--host", default="127.0.0.1",
              help="address to listen on (default 127.0.0.1; others need --public)")  # fmt: skip
@click.option(
    "--port",
    type=int,
    default=DEFAULT_PORT,
    help=f"port to listen on (default {DEFAULT_PORT}; 0 picks a free one, printed)",
)
@click.option("--allow-writes", is_flag=True,
              help="let the served app write (the writing switch, clean, redact, import, "
              "console writes); the token is still required")  # fmt: skip
@click.option("--public", is_flag=True,
              help="allow a non-loopback --host: anyone who reaches it and has the URL "
              "with its token can read the stores")  # fmt: skip
@click.option("--public-url", metavar="URL",
              help="the URL browsers use to reach this server, when it differs "
              "from http://HOST:PORT (behind a proxy, or listening on 0.0.0.0); "
              "its origin is the one the server accepts")  # fmt: skip
def serve(args: Args) -> int:
    refusal = _refused_host(args)
    if refusal is not None:
        print(refusal, file=sys.stderr)
        return EXIT_USAGE
    from memexplorer.cli.commands.serve_web import GuardedServer, bind, serve_until_stopped

    try:
        sock = bind(args.host, args.port)
    except OSError as error:
        print(f"error: cannot listen on {args.host}:{args.port}: {error.strerror or error}. "
              "Choose another --port (0 picks a free one).", file=sys.stderr)  # fmt: skip
        return EXIT_FAILED
    port = int(sock.getsockname()[1])
    public_url = (args.public_url or f"http://{url_host(args.host)}:{port}").rstrip("/")
    access = Access.for_server(args.host, port, args.public_url)
    command = app_command(args.path, allow_writes=args.allow_writes)
    server = GuardedServer(command, access, public_url, title="memexplorer")
    server.initialize_logging()

    def ready() -> None:
        mode = "WRITES ALLOWED (--allow-writes)" if args.allow_writes else "read-only"
        print(f"memexplorer serve: {mode}, on {args.host}:{port}\n"
              f"Open {public_url}/?token={access.token}\n"
              "Anyone with this URL can read every store under the path. Ctrl+C stops.",
              flush=True)  # fmt: skip
        if not is_loopback(args.host):
            print(f"warning: listening on {args.host}, beyond this machine: the token in "
                  "the URL is all that keeps others out", file=sys.stderr, flush=True)  # fmt: skip

    import asyncio  # 60 ms to import: only a served session needs it

    asyncio.run(serve_until_stopped(server, sock, ready))
    return EXIT_OK
