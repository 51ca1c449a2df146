"""Write ladybug_v47_hierarchical.lbug.gz: a hierarchical store (the spec's tables)
holding one agent, ``old-agent``, in LadybugDB storage version 47.

Run with ladybug 0.21.2 (storage version 47) in its own virtualenv:
    python -m venv /tmp/lb47 && /tmp/lb47/bin/pip install ladybug==0.21.2
    /tmp/lb47/bin/python tests/engine/data/make_old_hierarchical_store.py
Import tests use it: a replace import of an older store's only agent must not
rewrite the store in the installed ladybug's version.
"""

import gzip
import re
import shutil
import sys
import tempfile
from pathlib import Path

import ladybug

HERE = Path(__file__).parent
SCHEMA_FILE = HERE.parent.parent.parent / "memexplorer" / "engine" / "hierarchical_schema.py"

# The DDL is read from the schema module's text (this virtualenv has no memexplorer).
DDL = re.findall(r'"""\s*(CREATE (?:NODE|REL) TABLE.*?)"""', SCHEMA_FILE.read_text(), re.S)
assert len(DDL) == 6, DDL

with tempfile.TemporaryDirectory() as folder:
    path = Path(folder) / "store"
    db = ladybug.Database(str(path), read_only=False)
    conn = ladybug.Connection(db)
    for statement in DDL:
        conn.execute(statement)
    for number in range(3):
        conn.execute(
            "CREATE (:SemanticMemory {memory_id: $id, concept: 'c', content: $content, "
            "confidence: 0.9, source_id: '', agent_id: 'old-agent', tags: '[]', "
            "metadata: '{}', created_at: '1741872000', entity_name: ''})",
            {"id": f"old-{number}", "content": f"an old fact {number}"},
        )
    conn.close()
    db.close()
    target = HERE / "ladybug_v47_hierarchical.lbug.gz"
    with path.open("rb") as source, gzip.open(target, "wb") as out:
        shutil.copyfileobj(source, out)
print(ladybug.__version__, ladybug.storage_version, file=sys.stderr)
