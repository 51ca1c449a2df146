"""Write ladybug_v47.lbug.gz: a small LadybugDB store in storage version 47.

Run with ladybug 0.21.2 (storage version 47) in its own virtualenv:
    python -m venv /tmp/lb47 && /tmp/lb47/bin/pip install ladybug==0.21.2
    /tmp/lb47/bin/python tests/engine/data/make_old_ladybug_store.py
The upgrade tests open it with the pinned ladybug, which writes version 49.
"""

import gzip
import shutil
import sys
import tempfile
from pathlib import Path

import ladybug

HERE = Path(__file__).parent

with tempfile.TemporaryDirectory() as folder:
    path = Path(folder) / "store"
    db = ladybug.Database(str(path), read_only=False)
    conn = ladybug.Connection(db)
    conn.execute("CREATE NODE TABLE P(id STRING, n INT64, PRIMARY KEY(id))")
    conn.execute("CREATE (:P {id: 'a', n: 1})")
    conn.execute("CREATE (:P {id: 'b', n: 2})")
    conn.close()
    db.close()
    with path.open("rb") as source, gzip.open(HERE / "ladybug_v47.lbug.gz", "wb") as target:
        shutil.copyfileobj(source, target)
print(ladybug.__version__, ladybug.storage_version, file=sys.stderr)
