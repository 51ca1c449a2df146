"""`audit --redact` leaves no redacted value in any store file's bytes (the `grep -a` check).

Kuzu and LadybugDB keep an overwritten value in the file's old pages, so
redaction rewrites each graph store it changed; SQLite zeroes freed bytes.
The values searched for are the originals the backups kept: the whole old
value, and each secret found in it (decoded first when stored as base64).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memexplorer.cli.main import main
from memexplorer.memory.security import find_secrets
from memexplorer.operator.backup_records import read_backup
from memexplorer.storage.stored_json import stored_json_text


def _store_files(root: Path) -> list[Path]:
    """Every file of every store under ``root`` (the JSON exports are not stores)."""
    return [p for p in sorted(root.rglob("*")) if p.is_file() and "exports" not in p.parts]


def _old_values(payload: dict) -> set[str]:
    """The redacted values as they were, and each secret in them, from the backups."""
    values: set[str] = set()
    for redaction in payload["redacted"]:
        changed = set(redaction["values"])
        _, tables = read_backup(redaction["backup"])
        for table in tables:
            if table.name not in changed:
                continue
            for row in table.rows:
                for value in row.values():
                    if not isinstance(value, str) or not (text := stored_json_text(value) or value):
                        continue
                    secrets = {text[f.start : f.end] for f in find_secrets(text)}
                    secrets = {s for s in secrets if not s.isalpha() and len(s) >= 6}
                    if secrets:
                        values |= {value, *secrets}
    return values


@pytest.mark.parametrize("era", ["kuzu", "ladybug"])
def test_no_redacted_value_is_left_in_any_store_file(
    era, reference_stores, ladybug_stores, tmp_path, capsys
):
    if era == "kuzu":
        root = reference_stores
    else:
        root = tmp_path / "ladybug"
        shutil.copytree(ladybug_stores, root, symlinks=True)
    files = _store_files(root)
    args = ["audit", str(root), "--redact", "--include-low", "--yes", "--json"]
    assert main([*args, "--home", str(tmp_path / "home")]) == 0  # every secret taken
    payload = json.loads(capsys.readouterr().out)
    old = _old_values(payload)
    assert len(old) >= 10, old
    graph_stores = [r for r in payload["redacted"] if r["values"] and r["compacted"]]
    assert graph_stores and all(r["not_compacted"] is None for r in payload["redacted"])
    assert all(r["backup_holds_old_values"] and r["delete_backup"] for r in graph_stores)
    assert _store_files(root) == files  # the same files, no leftover rewrite beside them
    for path in files:
        data = path.read_bytes()
        found = sorted(value[:24] for value in old if value.encode() in data)
        assert not found, f"{path.relative_to(root)} still holds {found}"
    assert main(["audit", str(root), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"findings": []}


def test_plain_output_says_the_bytes_went_and_how_to_delete_the_backup(
    reference_stores, tmp_path, capsys
):
    store = reference_stores / "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
    args = ["audit", str(store), "--redact", "--include-low", "--yes", "--home", str(tmp_path)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "rewritten into a fresh Kuzu storage version 39 file, old bytes removed" in out
    assert "the backup keeps the old values" in out and "delete it: rm -r -- " in out
