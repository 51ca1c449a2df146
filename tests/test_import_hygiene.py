"""The engine is a library: importing it loads neither Textual nor Rich."""

import subprocess
import sys

CHECK = """
import importlib, pkgutil, sys
import memexplorer.memory
for module in pkgutil.iter_modules(memexplorer.memory.__path__):
    importlib.import_module("memexplorer.memory." + module.name)
bad = sorted(m for m in sys.modules if m.split('.')[0] in {'textual', 'rich'})
print(','.join(bad))
"""


def test_engine_imports_no_ui_library():
    result = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""
