"""`memexplorer audit` on LadybugDB-era stores: secrets inside base64 values are
reported (column marked base64, decoded preview, secret masked) and redacted."""

from __future__ import annotations

import base64
import json
import os
import shutil
from importlib.util import find_spec

import pytest

from memexplorer.cli.main import main
from memexplorer.storage.graph_open import open_graph_store

pytestmark = pytest.mark.skipif(
    find_spec("ladybug") is None and not os.environ.get("CI"),
    reason="needs the ladybug extra: pip install 'memexplorer[ladybug]'",
)

STEPS_SECRET = "ghp_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE2"


def test_audit_json_reports_every_manifest_field(ladybug_stores, ladybug_manifest, capsys):
    assert main(["audit", str(ladybug_stores), "--json"]) == 1
    out, _ = capsys.readouterr()
    findings = json.loads(out)["findings"]
    rows = {(f["store"], f["table"], f["id"], f["column"]) for f in findings}
    expected = set()
    for store, entry in ladybug_manifest["databases"].items():
        for flag in entry["inventory"]["credential_audit"]:
            encoded = flag.get("stored_as", "").startswith("base64")
            column = f"{flag['field']} (base64)" if encoded else flag["field"]
            expected.add((str(ladybug_stores / store), flag["table"], flag["id"], column))
    assert rows == expected
    assert STEPS_SECRET not in out


def test_audit_redact_reencodes_the_steps(ladybug_stores, tmp_path, capsys):
    store = tmp_path / "cognitive" / "cognitive_db"
    store.parent.mkdir()
    shutil.copy2(ladybug_stores / "cognitive_db", store)
    home = tmp_path / "home"
    args = ["audit", str(store), "--redact", "--include-low", "--yes", "--home", str(home)]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert STEPS_SECRET not in out + err
    assert main(["audit", str(store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []
    with open_graph_store(store) as graph:
        stored = [r[0] for r in graph.rows("MATCH (p:ProceduralMemory) RETURN p.steps")]
    steps = [step for value in stored for step in json.loads(base64.b64decode(value))]
    assert "export GITHUB_TOKEN=[REDACTED]" in steps
