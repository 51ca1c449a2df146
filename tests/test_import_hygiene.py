"""The engine is a library: importing it loads neither Textual nor Rich."""

import subprocess
import sys

CHECK = """
import sys
import memexplorer.engine
import memexplorer.engine.hierarchical_memory, memexplorer.engine.inspection
import memexplorer.engine.hierarchical_transfer, memexplorer.engine.demo
bad = sorted(m for m in sys.modules if m.split('.')[0] in {'textual', 'rich'})
print(','.join(bad))
"""


def test_engine_imports_no_ui_library():
    result = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""
