"""``memexplorer tree``: flat session memory as a tree of sessions, memories and agents."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from memexplorer.cli.command_classes import Args, command
from memexplorer.cli.commands.common import EXIT_OK, output_console, print_json, warn
from memexplorer.cli.commands.options import POSITIVE, home_option, json_option
from memexplorer.memory.flat_tree import DEFAULT_MEMORIES_PER_SESSION

if TYPE_CHECKING:
    from memexplorer.memory.flat_model import FlatMemory
    from memexplorer.memory.flat_tree import FlatTree, SessionBranch
    from memexplorer.storage.backend_choice import BackendResolution

if TYPE_CHECKING:
    from rich.text import Text
    from rich.tree import Tree

_PREVIEW = 160


def stars(importance: int | None) -> str:
    """Importance 0-10 as five stars (two points a star, halves rounded up)."""
    if importance is None:
        return ""
    filled = (max(0, min(10, importance)) + 1) // 2
    return "★" * filled + "☆" * (5 - filled)


def _memory_line(memory: FlatMemory) -> Text:
    from rich.text import Text

    line = Text()
    line.append(f"[{memory.memory_type}] ", style="cyan")
    line.append(memory.title or "(untitled)", style="bold")
    if memory.importance is not None:
        line.append(f"  {stars(memory.importance)}", style="yellow")
    details = [f"agent {memory.agent_id}"]
    if memory.confidence is not None:
        details.append(f"confidence {memory.confidence:.2f}")
    if memory.usage_count is not None:
        details.append(f"used {memory.usage_count}×")
    if memory.accessed_at:
        details.append(f"accessed {memory.accessed_at}")
    line.append("  " + " · ".join(details), style="dim")
    return line


def _session_branch(parent: Tree, branch: SessionBranch, depth: int) -> None:
    from rich.text import Text

    session = branch.session
    label = Text(f"session {session.session_id}", style="bold green")
    noun = "memory" if branch.matching == 1 else "memories"
    label.append(f"  {branch.matching} {noun}", style="")
    if session.last_accessed:
        label.append(f" · last used {session.last_accessed}", style="dim")
    node = parent.add(label)
    if session.agents:
        agents = ", ".join(f"{agent} ({count})" for agent, count in session.agents.items())
        node.add(Text(f"agents: {agents}", style="magenta"))
    if depth < 2:
        return
    for memory in branch.memories:
        child = node.add(_memory_line(memory))
        if depth >= 3 and memory.content:
            text = " ".join(memory.content.split())
            preview = text if len(text) <= _PREVIEW else text[: _PREVIEW - 1] + "…"
            child.add(Text(preview, style="italic"))
    hidden = branch.matching - len(branch.memories)
    if hidden > 0:
        node.add(
            Text(f"… {hidden} more (showing {len(branch.memories)} of {branch.matching})", "dim")
        )


def _print_tree(tree: FlatTree, resolution: BackendResolution) -> None:
    from rich.text import Text
    from rich.tree import Tree

    title = Text(f"{tree.path}", style="bold")
    title.append(f"  {tree.backend} · {resolution.source}: {resolution.reason}", style="dim")
    root = Tree(title)
    if not tree.sessions:
        root.add(Text("no sessions", style="dim"))
    for branch in tree.sessions:
        _session_branch(root, branch, tree.depth)
    agents = root.add(Text("agents", style="bold magenta"))
    if not tree.agents:
        agents.add(Text("none", style="dim"))
    for agent, count in tree.agents.items():
        agents.add(Text(f"{agent}: {count}"))
    output_console().print(root)


@command("tree", "flat session memory: sessions, their memories and agents")
@click.option("--backend",
              help="sqlite, graph-db or kuzu (wins over AMPLIHACK_MEMORY_BACKEND; default: "
              "auto-detect)")  # fmt: skip
@click.option("--session", metavar="ID", help="show only this session")
@click.option("--type", "type", metavar="T", help="show only memories of this type")
@click.option("--depth", type=POSITIVE, default=3, metavar="N",
              help="1 sessions, 2 + memories, 3 + content (default 3)")  # fmt: skip
@click.option(
    "--limit",
    type=POSITIVE,
    default=DEFAULT_MEMORIES_PER_SESSION,
    metavar="N",
    help=f"memories shown per session (default {DEFAULT_MEMORIES_PER_SESSION})",
)
@home_option()
@json_option()
def tree(args: Args) -> int:
    from memexplorer.memory.flat_store import open_flat_store
    from memexplorer.memory.flat_tree import build_flat_tree
    from memexplorer.storage.backend_choice import resolve_backend

    resolution = resolve_backend(args.backend, home=args.home)
    for message in resolution.warnings:
        warn(message)
    with open_flat_store(resolution) as store:
        tree = build_flat_tree(
            store,
            session_id=args.session,
            memory_type=args.type,
            depth=args.depth,
            per_session=args.limit,
        )
    if args.json:
        print_json({"resolution": resolution.to_dict(), **tree.to_dict()})
    else:
        _print_tree(tree, resolution)
    return EXIT_OK
