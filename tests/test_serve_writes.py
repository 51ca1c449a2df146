"""A served app is read-only for real: keys sent over the websocket, as a browser
tab sends them, reach every write (the writing switch, clean, redaction, import,
a console write) and change no byte of the home; with ``--allow-writes`` the
same console write goes through."""

from __future__ import annotations

from pathlib import Path

import pytest
from serve_client import Tab, app_environments, app_pids, handshake_status, open_tab, serving
from store_helpers import checksums

from memexplorer.storage.graphdb import KuzuStore

WRITE = "MATCH (n:SemanticMemory) DETACH DELETE n"


@pytest.fixture
def home(reference_stores: Path) -> Path:
    return reference_stores / "home" / ".amplihack"


def _running(pid: int) -> bool:
    """Whether process ``pid`` still runs (an ended one not yet reaped is a zombie)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _semantic_facts(home: Path) -> int:
    store = home / "hierarchical_memory" / "ops-agent" / "kuzu_db"
    with KuzuStore(store, read_only=True) as graph:
        return int(graph.rows("MATCH (n:SemanticMemory) RETURN count(n)")[0][0])


async def _console_write(tab: Tab) -> None:
    """In the console (open, its history listed: the editor has the keys by then):
    replace the example query by WRITE and run it."""
    await tab.keys("home", "ctrl+k")
    await tab.wait_until(lambda shown: "LIMIT 20" not in shown)  # typing sooner got lost
    await tab.keys(WRITE)
    await tab.wait_for(WRITE)
    await tab.keys("ctrl+r")


async def test_every_write_is_refused_in_a_served_session(home: Path) -> None:
    before = checksums(home)
    with serving(home) as served:
        async with open_tab(served) as tab:
            await tab.wait_for("served read-only", "106 records", "support-bot")
            [environment] = app_environments(served)  # the tab's own app process
            assert environment["MEMEXPLORER_READ_ONLY"] == "1"  # the engine's gate refuses
            await tab.keys("w")  # the stores tree's cursor is on ops-agent's store
            await tab.wait_for("Switching a store to writing is not", "served session is")
            # Clean: a table's first row, delete, then y would confirm.
            await tab.keys("down", "enter")
            await tab.wait_for("SemanticMemory")
            await tab.keys("down", "enter")
            await tab.wait_for("memory_id")
            await tab.keys("delete", "y")
            await tab.wait_for("Clean is not available")
            # Redaction: the credential audit, every finding selected, d, then y.
            await tab.keys("a")
            await tab.wait_for("secrets in")
            await tab.keys("a", "d", "y")
            await tab.wait_for("Redaction is not available")
            await tab.keys("escape")
            await tab.wait_for("memory_id")
            await tab.keys("i")
            await tab.wait_for("Import is not available")
            await tab.keys("t", ":")  # the console on the tree's store
            await tab.wait_for("served read-only console", "history (")
            await _console_write(tab)
            await tab.wait_for("Writing from the console is not", "refused: this session is served")
            await tab.keys("f6")
            await tab.wait_for("Switching a store to writing is not")
    assert checksums(home) == before
    assert not (home / "backups").exists()


async def test_with_allow_writes_a_console_write_goes_through(home: Path) -> None:
    assert _semantic_facts(home) == 84
    with serving(home, "--allow-writes") as served:
        assert "WRITES ALLOWED" in served.lines[0]
        own = {"Origin": served.base}
        assert await handshake_status(served.websocket[:-3] + "abc", own) == 403  # still
        assert await handshake_status(served.websocket, {"Origin": "http://evil.example"}) == 403
        async with open_tab(served) as tab:
            await tab.wait_for("106 records", "support-bot")
            [environment] = app_environments(served)
            assert "MEMEXPLORER_READ_ONLY" not in environment
            await tab.keys(":")
            await tab.wait_for("read-only console", "history (")
            await tab.keys("f6")
            await tab.wait_for("Switch kuzu_db to writing?")
            await tab.keys("y")
            await tab.wait_for("is open for writing")
            await _console_write(tab)
            await tab.wait_for("Run this write?")
            await tab.keys("y")
            await tab.wait_for("Wrote to kuzu_db")
            apps = app_pids(served)
    # serve ends only once its apps have (an app closes and checkpoints the store
    # it wrote as it quits; a read right after serve once found the store
    # mid-checkpoint, "damaged", before serve waited for them).
    assert apps and not [pid for pid in apps if _running(pid)]
    assert _semantic_facts(home) == 0
    assert list((home / "backups").iterdir())  # the copy taken before the write
