"""``memexplorer engines add|list|remove``: other Kuzu and LadybugDB releases, for reading.

A store written by another release than memexplorer's own (kuzu 0.11.3,
ladybug 0.22.0) is read by the release that wrote it, installed into
memexplorer's cache ($XDG_CACHE_HOME/memexplorer/engines, or
$MEMEXPLORER_ENGINE_CACHE), each in a virtualenv of its own, and run in a
worker process. `stats` names the release a store needs and this command.
Exit codes: 0 ok, 1 the install or removal failed (nothing half-installed
is kept), 2 bad input.
"""

from __future__ import annotations

import sys

from memexplorer.cli.command_classes import Args, command, group
from memexplorer.cli.commands.common import EXIT_OK, print_json
from memexplorer.cli.commands.options import argument, json_option

_RELEASE = argument("release", "a release, e.g. ladybug==0.17.1", metavar="PKG==VER")


@command("add", "install a release into the cache, e.g. ladybug==0.17.1")
@_RELEASE
@json_option()
def add(args: Args) -> int:
    from memexplorer.storage.engine_cache import add_engine

    def say(line: str) -> None:
        print(line, file=sys.stderr)

    engine = add_engine(args.release, progress=say)
    if args.json:
        print_json(engine.to_dict())
        return EXIT_OK
    print(f"{engine.name} (storage version {engine.storage_version}) in {engine.folder}")
    return EXIT_OK


@command("list", "the releases in the cache")
@json_option()
def list_(args: Args) -> int:
    from memexplorer.storage.engine_cache import cache_root, list_engines

    engines = list_engines()
    if args.json:
        print_json({"cache": str(cache_root()), "engines": [e.to_dict() for e in engines]})
        return EXIT_OK
    if not engines:
        print(f"No engine releases in {cache_root()}")
        return EXIT_OK
    for engine in engines:
        state = "" if engine.usable else (
            f"  BROKEN: its Python is gone; memexplorer engines remove {engine.name}, then add it"
        )  # fmt: skip
        print(f"{engine.name}  storage version {engine.storage_version}  {engine.folder}{state}")
    return EXIT_OK


@command("remove", "delete a release from the cache")
@_RELEASE
def remove(args: Args) -> int:
    from memexplorer.storage.engine_cache import remove_engine

    engine = remove_engine(args.release)
    print(f"removed {engine.name} ({engine.folder})")
    return EXIT_OK


engines = group("engines", "install other kuzu and ladybug releases to read stores they wrote",
                description=__doc__.split("\n\n", 1)[1] if __doc__ else None)  # fmt: skip
for action in (add, list_, remove):
    engines.add_command(action)
