"""Find and open one agent's HierarchicalMemory for reading, from what an operator types.

An operator names a store in whichever form is at hand: the store file, the
agent's folder, an amplihack home, or nothing (the default home). Whatever the
form, a missing store, a store of another kind and an agent the store does not
hold each get their own clear error before any query runs.
"""

from __future__ import annotations

from pathlib import Path

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.operator.transfer import hierarchical_store_path
from memexplorer.storage.exceptions import InvalidInputError, NotAStoreError, StoreNotFoundError
from memexplorer.storage.names import validate_agent_name
from memexplorer.storage.stores import resolve_hierarchical_path

__all__ = ["agent_store_path", "open_agent_memory"]


def _home_of(folder: Path) -> Path | None:
    """The amplihack home a folder is or holds (``~`` or ``~/.amplihack``)."""
    for home in (folder, folder / ".amplihack"):
        if (home / "hierarchical_memory").is_dir():
            return home
    return None


def agent_store_path(
    agent: str, store: str | Path | None = None, home: str | Path | None = None
) -> Path:
    """The store file for ``agent``: ``store`` as a file, agent folder or home; else
    ``<home>/hierarchical_memory/<agent>`` (home defaults to ``~/.amplihack``)."""
    validate_agent_name(agent)
    if store is None:
        return hierarchical_store_path(agent, home=home)
    path = Path(store).expanduser()
    if path.is_dir():
        found_home = _home_of(path)
        if found_home is not None:
            return hierarchical_store_path(agent, home=found_home)
    return resolve_hierarchical_path(path)


def open_agent_memory(
    agent: str, store: str | Path | None = None, home: str | Path | None = None
) -> HierarchicalMemory:
    """The agent's memory opened read-only, after checking the store holds the agent."""
    path = agent_store_path(agent, store, home)
    if not path.exists():
        raise StoreNotFoundError(
            path,
            f"No HierarchicalMemory store for agent {agent}",
            hint="Check the agent name (`memexplorer stats` lists agents) or give --store.",
        )
    memory = HierarchicalMemory(agent, path, mode="read")
    try:
        _require_agent(memory, path)
    except Exception:
        memory.close()
        raise
    return memory


def _require_agent(memory: HierarchicalMemory, path: Path) -> None:
    graph = memory.graph
    columns = (
        {name for name, _ in graph.columns("SemanticMemory")}
        if graph.has_table("SemanticMemory")
        else set()
    )
    if "memory_id" not in columns or not graph.has_table("EpisodicMemory"):
        raise NotAStoreError(
            path,
            "This store is not a HierarchicalMemory store",
            hint="`memexplorer stats PATH` says what each store holds.",
        )
    agents = sorted(
        {
            row[0]
            for table in ("SemanticMemory", "EpisodicMemory")
            for row in graph.rows(f"MATCH (n:{table}) RETURN DISTINCT n.agent_id")
            if row[0]
        }
    )
    if memory.agent_name not in agents:
        raise InvalidInputError(
            f"Agent {memory.agent_name} has no memories in {path}",
            hint=f"Agents in this store: {', '.join(agents) or 'none'}.",
        )
