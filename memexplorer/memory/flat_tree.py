"""The data behind ``memexplorer tree``: sessions, their live memories, agents.

One function builds it from any flat store, so the CLI and the app show the
same thing; depth and paging are decided here, drawing is left to the caller.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memexplorer.memory.flat_model import FlatMemory, FlatSession
from memexplorer.memory.flat_store_base import FlatMemoryStore
from memexplorer.storage.exceptions import InvalidInputError

__all__ = ["DEFAULT_MEMORIES_PER_SESSION", "FlatTree", "SessionBranch", "build_flat_tree"]

DEFAULT_MEMORIES_PER_SESSION = 100


@dataclass(frozen=True)
class SessionBranch:
    """One session, its memories (one page) and how many match in all."""

    session: FlatSession
    memories: list[FlatMemory]
    matching: int

    def to_dict(self, *, with_content: bool = True) -> dict[str, Any]:
        data = self.session.to_dict()
        data["matching"] = self.matching
        memories = [m.to_dict() for m in self.memories]
        if not with_content:
            for memory in memories:
                memory.pop("content")
        data["memories"] = memories
        return data


@dataclass(frozen=True)
class FlatTree:
    backend: str
    path: str
    sessions: list[SessionBranch]
    agents: dict[str, int] = field(default_factory=dict)
    depth: int = 3

    def to_dict(self) -> dict[str, Any]:
        sessions = []
        for branch in self.sessions:
            data = branch.to_dict(with_content=self.depth >= 3)
            if self.depth < 2:
                data.pop("memories")
            sessions.append(data)
        return {
            "backend": self.backend,
            "path": self.path,
            "depth": self.depth,
            "sessions": sessions,
            "agents": self.agents,
        }


def build_flat_tree(
    store: FlatMemoryStore,
    *,
    session_id: str | None = None,
    memory_type: str | None = None,
    depth: int = 3,
    per_session: int = DEFAULT_MEMORIES_PER_SESSION,
) -> FlatTree:
    """Sessions (one, or all) with up to ``per_session`` live memories each.

    Depth 1 is sessions and counts, 2 adds one line per memory, 3 adds content.
    """
    if depth < 1:
        raise InvalidInputError(f"Depth {depth} is below 1", hint="Use --depth 1, 2 or 3.")
    sessions = store.list_sessions()
    if session_id is not None:
        sessions = [s for s in sessions if s.session_id == session_id]
        if not sessions:
            raise InvalidInputError(
                f"No session {session_id!r} in {store.path}",
                hint="Run memexplorer tree without --session to list the sessions.",
            )
    branches = []
    for session in sessions:
        if memory_type is None:
            matching = session.memory_count
        else:
            matching = store.count_memories(session_id=session.session_id, memory_type=memory_type)
        memories = (
            store.list_memories(
                session_id=session.session_id, memory_type=memory_type, limit=per_session
            )
            if depth >= 2 and matching
            else []
        )
        branches.append(SessionBranch(session, memories, matching))
    return FlatTree(store.backend, str(store.path), branches, store.agent_counts(), depth)
