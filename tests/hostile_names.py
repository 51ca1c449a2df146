"""A home whose path, agent folder, agent names, sessions and memories read as rich
and Textual markup (``[bold]``, ``[/]``, ``[link=…]``) or as an emoji code
(``:fire:``): every one must be shown as it is, and none may crash a screen.

Agent names of the hierarchical library are checked (letters, digits, ``-``, ``_``)
and cannot hold these, but its flat session stores take any agent id, and a shared
store's rows are whatever its writers put there: the hierarchical copy gets its
agent column rewritten with Kuzu's own statements.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from memexplorer.memory.flat_store import open_flat_store
from memexplorer.storage.graph_open import open_graph_store

#: Folders that join into a path reading ``[bold]x[/bold] [/] [link=file:/x]l[/link] :fire:``.
HOSTILE_FOLDERS = ("[bold]x[", "bold] [", "] [link=file:", "x]l[", "link] :fire:")
HOSTILE_PATH_TEXT = "[bold]x[/bold] [/] [link=file:/x]l[/link] :fire:"
#: An agent folder's name (a folder name cannot hold ``/``).
HOSTILE_AGENT_FOLDER = "[red]a[link=file:x]:fire:"
#: Agent ids in the flat stores; the last ends in a backslash, which escape() doubles.
HOSTILE_AGENTS = ("[bold]x[/bold]", "[/]", "[link=https://example.com]l[/link]", ":fire:", "b\\")
#: The hierarchical store's one agent, after the rewrite.
HOSTILE_OWNER = "[bold]own[/bold][/]:fire:"
HOSTILE_SESSION = "[red]s[/red][/]"
HOSTILE_CONTENT = "[bold]fact[/bold] [/] :fire: [link=https://example.com]l[/link]"


def hostile_root(base: Path) -> Path:
    root = base.joinpath(*HOSTILE_FOLDERS)
    assert HOSTILE_PATH_TEXT in str(root)
    return root


def build_hostile_home(base: Path, reference_stores: Path) -> Path:
    """``<hostile path>/.amplihack`` with a flat graph store, a flat SQLite store and a
    hierarchical Kuzu store in a hostile agent folder, owned by a hostile agent."""
    home = hostile_root(base) / ".amplihack"
    home.mkdir(parents=True)
    for backend, name, kinds in (
        ("graph-db", "memory_graph.db", ("semantic", "episodic")),
        ("sqlite", "memory.db", ("learning", "context")),
    ):
        with open_flat_store((backend, home / name), read_only=False) as store:
            for number, agent in enumerate(HOSTILE_AGENTS):
                store.store_session_learning(
                    HOSTILE_SESSION, agent, f"{HOSTILE_CONTENT} {number}",
                    title=HOSTILE_CONTENT[:20], memory_type=kinds[number % 2],
                )  # fmt: skip
    folder = home / "hierarchical_memory" / HOSTILE_AGENT_FOLDER
    folder.mkdir(parents=True)
    source = reference_stores / "home" / ".amplihack" / "hierarchical_memory" / "ops-agent"
    shutil.copy2(source / "kuzu_db", folder / "kuzu_db")
    with open_graph_store(folder / "kuzu_db", read_only=False) as graph:
        for table in ("SemanticMemory", "EpisodicMemory"):
            graph.execute(f"MATCH (n:{table}) SET n.agent_id = $owner", {"owner": HOSTILE_OWNER})
    return home
