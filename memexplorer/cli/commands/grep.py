"""``memexplorer grep TEXT``: facts, episodes, experiences and flat memories that
contain a text, in every store and agent under a home, grouped by store and agent."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from memexplorer.cli.command_classes import Args, command
from memexplorer.cli.commands.common import EXIT_FAILED, EXIT_OK, default_home, print_json, warn
from memexplorer.cli.commands.options import argument, json_option

if TYPE_CHECKING:
    from memexplorer.operator.find import FindGroup

_PLURAL = {"fact": "facts", "episode": "episodes", "experience": "experiences",
           "memory": "memories"}  # fmt: skip


def _every_hit(group: FindGroup, text: str) -> None:
    """Read the group's later pages into it (--all)."""
    from memexplorer.operator.browse import open_browser
    from memexplorer.operator.find import find_page

    browser = open_browser(group.store)
    try:
        while len(group.hits) < group.total:
            more = find_page(browser, group, text, len(group.hits), 1000)
            if not more:
                break
            group.hits.extend(more)
    finally:
        browser.close()


def _print(group: FindGroup, text: str, last: tuple[Path, str] | None) -> None:
    if last != (group.store, group.agent):
        print(f"{group.store} · {group.agent or '(no agent)'}")
    noun = group.item if group.total == 1 else _PLURAL[group.item]
    print(f"  {group.total} {noun} in {group.table.name}")
    width = max(len(hit.key) for hit in group.hits) if group.hits else 0
    for hit in group.hits:
        print(f"    {hit.key.ljust(width)}  {hit.column}: {hit.snippet}")
    if group.total > len(group.hits):
        print(f"    … {group.total - len(group.hits)} more (--all shows every one)")


@command("grep", "find a text in every store and agent under a home (facts, episodes, "
         "experiences, flat memories)")  # fmt: skip
@argument("text", "the text to find (case-insensitive)")
@argument("path", "the home or store to search (default ~/.amplihack)", required=False)
@click.option("--limit", type=int, default=20,
              help="hits shown per store, agent and table (default 20)")  # fmt: skip
@click.option("--all", "all", is_flag=True, help="show every hit")
@json_option()
def grep(args: Args) -> int:
    from memexplorer.operator.find import FindSkipped, find_text

    root = Path(args.path).expanduser() if args.path else default_home()
    skipped: list[FindSkipped] = []
    groups = []
    last: tuple[Path, str] | None = None
    for group in find_text(root, args.text, page=args.limit, skipped=skipped):
        if args.all:
            _every_hit(group, args.text)
        if args.json:
            groups.append(group)
            continue
        _print(group, args.text, last)
        last = (group.store, group.agent)
    for store in skipped:
        warn(f"{store.store} was not searched: {store.reason}")
    total = sum(g.total for g in groups)
    if args.json:
        print_json({"text": args.text, "root": str(root), "total": total,
                    "groups": [g.to_dict() for g in groups],
                    "skipped": [s.to_dict() for s in skipped]})  # fmt: skip
    elif last is None:
        print(f"No facts, episodes, experiences or memories under {root} contain {args.text!r}.")
    return EXIT_FAILED if skipped and not groups and last is None else EXIT_OK
