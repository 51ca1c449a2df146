"""Measure which storage version each Kuzu and LadybugDB release writes.

Why: memexplorer picks the engine release that reads a store from the
storage version in the store's header (memexplorer/storage/storage_versions.py).
That table must come from the releases themselves, not from release notes.
For each release this script makes a virtualenv in a temporary folder,
installs the release from the package index, has it write a one-row store,
reads the header of what it wrote (magic and storage version, or the folder
layout older kuzu releases use) and asks the release what it calls its own
storage version. Then memexplorer's pinned release of the same package
(kuzu 0.11.3, ladybug 0.22.0) opens that store read-only: whether it reads
the row, and whether every byte stayed as it was. The results go to
tools/measurements/storage_versions.json.

    python3.11 tools/measure_storage_versions.py            # every release listed below
    python3.11 tools/measure_storage_versions.py ladybug==0.17.1 kuzu==0.10.1

It needs nothing installed besides Python and the network to the index.
"""

from __future__ import annotations

import hashlib
import json
import struct
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

OUT = Path(__file__).resolve().parent / "measurements" / "storage_versions.json"

#: Every release on the index from the first single-file kuzu (0.9) and the
#: first ladybug (0.15.3; 0.0.x were placeholders), and older kuzu minors.
RELEASES = [
    *(f"kuzu=={v}" for v in ("0.4.2", "0.5.0", "0.6.1", "0.7.1", "0.8.2", "0.9.0",
                             "0.10.0", "0.10.1", "0.11.0", "0.11.1", "0.11.2", "0.11.3")),
    *(f"ladybug=={v}" for v in ("0.15.3", "0.15.4", "0.16.0", "0.16.1", "0.17.0", "0.17.1",
                                "0.18.0", "0.18.1", "0.18.2", "0.18.3", "0.19.0", "0.19.1",
                                "0.20.0", "0.20.1", "0.20.2", "0.20.3", "0.20.4", "0.21.0",
                                "0.21.1", "0.21.2", "0.22.0")),
]  # fmt: skip

#: memexplorer's own releases, which open every measured store read-only.
PINNED = {"kuzu": "0.11.3", "ladybug": "0.22.0"}

#: Run by a pinned release: open read-only, count the row, say what happened.
READER = """
import json, sys
module = __import__(sys.argv[1])
try:
    db = module.Database(sys.argv[2], read_only=True)
    conn = module.Connection(db)
    rows = conn.execute("MATCH (p:Probe) RETURN count(*)").get_next()[0]
    conn.close()
    db.close()
    print(json.dumps({"rows": rows}))
except Exception as exc:
    print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}))
"""

#: Run inside the release's virtualenv: write a store with one row, say the version.
WRITER = """
import json, sys
module = __import__(sys.argv[1])
db = module.Database(sys.argv[2])
conn = module.Connection(db)
conn.execute("CREATE NODE TABLE Probe(id INT64, PRIMARY KEY(id))")
conn.execute("CREATE (:Probe {id: 1})")
conn.close()
db.close()
print(json.dumps({"version": str(module.__version__),
                  "reported_storage_version": getattr(module, "storage_version", None)}))
"""


def _header(path: Path) -> dict[str, object]:
    """Magic and storage version of what a release wrote (file, or folder's catalog)."""
    layout = "directory" if path.is_dir() else "file"
    source = path / "catalog.kz" if path.is_dir() else path
    if not source.is_file():
        return {"layout": layout, "magic": None, "storage_version": None}
    head = source.read_bytes()[:12]
    magic = head[:4].decode("ascii", "replace")
    version = struct.unpack_from("<Q", head, 4)[0] if len(head) == 12 else None
    return {"layout": layout, "magic": magic, "storage_version": version}


def _venv(folder: Path, requirement: str) -> Path | str:
    """A virtualenv in ``folder`` with ``requirement``: its Python, or pip's complaint."""
    venv.EnvBuilder(with_pip=True).create(folder)
    python = folder / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
         "--only-binary", ":all:", requirement],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if install.returncode != 0:
        return "install failed: " + install.stderr.strip().splitlines()[-1]
    return python


def _digests(store: Path) -> dict[str, str]:
    files = [p for p in store.parent.rglob("*") if p.is_file()]
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(files)}


def _pinned_read(python: Path, package: str, store: Path) -> dict[str, object]:
    """Open ``store`` read-only with the pinned release: rows read, bytes unchanged."""
    before = _digests(store)
    done = subprocess.run(
        [str(python), "-c", READER, package, str(store)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    answer = (
        json.loads(done.stdout.strip().splitlines()[-1])
        if done.stdout.strip()
        else {"error": (done.stderr.strip().splitlines() or ["no answer"])[-1]}
    )
    return {**answer, "unchanged": _digests(store) == before}


def measure(requirement: str, pinned: dict[str, Path]) -> dict[str, object]:
    package, release = requirement.split("==")
    entry: dict[str, object] = {"package": package, "release": release}
    with tempfile.TemporaryDirectory(prefix="measure-") as folder:
        python = _venv(Path(folder) / "venv", requirement)
        if isinstance(python, str):
            entry["error"] = python
            return entry
        (Path(folder) / "db").mkdir()
        store = Path(folder) / "db" / "store"
        wrote = subprocess.run(
            [str(python), "-c", WRITER, package, str(store)],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        if wrote.returncode != 0:
            entry["error"] = "write failed: " + (wrote.stderr.strip().splitlines() or ["?"])[-1]
            return entry
        entry.update(json.loads(wrote.stdout.strip().splitlines()[-1]))
        entry.update(_header(store))
        entry["pinned_read"] = _pinned_read(pinned[package], package, store)
    return entry


def main(argv: list[str]) -> int:
    wanted = argv or RELEASES
    done = json.loads(OUT.read_text()) if OUT.exists() else {"releases": []}
    results = {f"{e['package']}=={e['release']}": e for e in done["releases"]}
    with tempfile.TemporaryDirectory(prefix="measure-pinned-") as folder:
        pinned = {}
        for package, release in PINNED.items():
            python = _venv(Path(folder) / package, f"{package}=={release}")
            if isinstance(python, str):
                raise SystemExit(f"cannot install {package}=={release}: {python}")
            pinned[package] = python
        for requirement in wanted:
            results[requirement] = measure(requirement, pinned)
            print(json.dumps(results[requirement]), flush=True)
    order = {name: i for i, name in enumerate(RELEASES)}
    rows = sorted(results.values(), key=lambda e: order.get(f"{e['package']}=={e['release']}", 999))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "what": "the header of a one-row store written by each release",
        "by": "tools/measure_storage_versions.py",
        "python": sys.version.split()[0],
        "pinned": PINNED,
        "releases": rows,
    }
    OUT.write_text(json.dumps(payload, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
