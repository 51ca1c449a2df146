"""Agent-name validation shared by every memory class and the transfer code.

Agent names become folder names under an amplihack home, so a name that could
climb out of its folder (``/``, ``\\``, ``..``) must never reach a path.
"""

from __future__ import annotations

import re

from memexplorer.storage.exceptions import AgentNameError

__all__ = ["AGENT_NAME_PATTERN", "validate_agent_name"]

AGENT_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9_\-]{0,63}$")


def validate_agent_name(agent_name: object) -> str:
    """Return the one normalised form of the name (surrounding spaces stripped), used
    for both the partition key and the folder name, or raise :class:`AgentNameError`
    (a ValueError): control characters, path separators and ``..`` are refused."""
    if agent_name is None or not isinstance(agent_name, str) or not agent_name.strip():
        raise AgentNameError("agent_name cannot be empty")
    if any(ord(char) < 32 or ord(char) == 127 for char in agent_name):
        raise AgentNameError(
            f"agent_name may not contain control characters (a newline, a tab...), "
            f"got: {agent_name!r}"
        )
    cleaned = agent_name.strip()
    if "/" in cleaned or "\\" in cleaned or ".." in cleaned:
        raise AgentNameError(
            f"agent_name must be alphanumeric with hyphens/underscores and may not contain "
            f"'/', '\\\\' or '..', got: {cleaned!r}"
        )
    if not AGENT_NAME_PATTERN.match(cleaned):
        raise AgentNameError(
            f"agent_name must be alphanumeric with hyphens/underscores, 1-64 chars, "
            f"got: {cleaned!r}"
        )
    return cleaned
