"""Real writers paused inside the write gate, each in its own process.

Each script does a real write through the same code the CLI and the app use,
says "ready" at a point where it holds the gate, and goes on when its stdin
closes: so a test runs a second writer exactly while the first one writes.
"""

from __future__ import annotations

#: A clean that stops after its backup is written, before it deletes (argv: store, home, table).
PAUSED_CLEAN = """
import sys
import memexplorer.operator.clean as clean
from memexplorer.operator.clean_selection import Selection

store, home, table = sys.argv[1:4]
real_backup = clean.write_backup

def backup_then_wait(*args, **kwargs):
    record = real_backup(*args, **kwargs)
    print("ready", flush=True)
    sys.stdin.read()
    return record

clean.write_backup = backup_then_wait
result = clean.clean_store(clean.clean_target(store), Selection(table=table), home=home)
print("deleted", result.preview.rows, flush=True)
"""

#: The app's writing mode: the store switched to writing in a BrowserPool (argv: store).
WRITING_MODE = """
import sys
from pathlib import Path
from memexplorer.operator.browsers import BrowserPool

pool = BrowserPool()
pool.set_writing(Path(sys.argv[1]), True)
print("ready", flush=True)
sys.stdin.read()
pool.shutdown()
"""

#: The app's console write: backup and statement under one hold of the gate; waits
#: after the statement ran, still holding it (argv: store, home, statement).
CONSOLE_WRITE = """
import sys
from pathlib import Path
from memexplorer.operator.browse import open_browser
from memexplorer.operator.console import run_console_query
from memexplorer.operator.store_backup import write_store_backup
from memexplorer.operator.write_gate import write_gate

store, home, statement = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
browser = open_browser(store, writable=True)
with write_gate(store, action="console write"):
    write_store_backup(home, browser, action="console-write", kind="hierarchical")
    run_console_query(browser, statement, allow_write=True)
    print("ready", flush=True)
    sys.stdin.read()
browser.close()
"""
