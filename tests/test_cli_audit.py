"""`memexplorer audit` through the CLI: JSON shape, plain output, no secret anywhere."""

from __future__ import annotations

import json
import subprocess
import sys

import kuzu
from store_helpers import checksums, held_by_another_process

from memexplorer.cli.main import main
from memexplorer.memory.security import find_secrets

OPS = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"


def _fixture_secrets(reference_stores, manifest) -> set[str]:
    """Every secret in a field MANIFEST flags, read straight from the stores."""
    secrets: set[str] = set()
    for store, entry in manifest["databases"].items():
        flagged = entry["inventory"]["credential_audit"]
        if not flagged or entry["kind"].startswith("ExperienceStore(backend='sqlite')"):
            continue  # the sqlite experiences hold the same rows as the kuzu ones
        database = kuzu.Database(str(reference_stores / store), read_only=True)
        connection = kuzu.Connection(database)
        try:
            for field in flagged:
                key = _key(field["table"], entry["kind"])
                result = connection.execute(
                    f"MATCH (n:{field['table']}) WHERE n.{key} = $id RETURN n.{field['field']}",
                    {"id": field["id"]},
                )
                value = result.get_next()[0]
                secrets |= {value[f.start : f.end] for f in find_secrets(value)}
        finally:
            connection.close()
            database.close()
    # Plain words ("is", "store") are the reference patterns' prose false positives:
    # they occur in any English text, so only real credentials are checked.
    return {secret for secret in secrets if not secret.isalpha()}


def _key(table: str, kind: str) -> str:
    if table == "Experience":
        return "experience_id"
    return "node_id" if kind == "CognitiveMemory" else "memory_id"


def test_json_lists_every_flagged_field_and_no_secret(reference_stores, manifest, capsys):
    secrets = _fixture_secrets(reference_stores, manifest)
    assert {"AKIAFAKE0TEST1KEY2XQ", "hunter2", "Gl4cier!Admin2026", "P4ssw0rd123"} <= secrets
    assert main(["audit", str(reference_stores), "--json"]) == 1
    out, err = capsys.readouterr()
    findings = json.loads(out)["findings"]
    assert set(json.loads(out)) == {"findings"}
    assert all(
        set(f) == {"store", "agent", "table", "id", "column", "kind", "confidence", "preview"}
        for f in findings
    )
    rows = {(f["store"], f["table"], f["id"], f["column"]) for f in findings}
    for store, entry in manifest["databases"].items():
        for flagged in entry["inventory"]["credential_audit"]:
            where = (str(reference_stores / store), flagged["table"], flagged["id"])
            assert (*where, flagged["field"]) in rows
    for secret in secrets:
        assert secret not in out and secret not in err, secret


def test_plain_output_names_rows_and_hides_secrets(reference_stores, manifest, capsys):
    secrets = _fixture_secrets(reference_stores, manifest)
    assert (
        main(["audit", str(reference_stores / "home"), str(reference_stores / "cognitive_db")]) == 1
    )
    out, err = capsys.readouterr()
    assert "0022c49b-0882-49c7-877a-ddf43f0ef08e" in out and "wrk_76c5d2283116" in out
    assert "[aws_key:AKIA***]" in out
    assert "store(s) audited" in out.splitlines()[-1]
    for secret in secrets:
        assert secret not in out and secret not in err, secret


def test_agent_option_and_read_only(reference_stores, capsys):
    before = checksums(reference_stores)
    assert main(["audit", str(reference_stores), "--agent", "support-bot", "--json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert len({f["id"] for f in findings}) == 8
    assert {f["agent"] for f in findings} == {"support-bot"}
    assert checksums(reference_stores) == before


def test_bad_input_exits_2(reference_stores, tmp_path, capsys):
    assert main(["audit", str(tmp_path / "missing")]) == 2
    assert "No such store" in capsys.readouterr().err
    assert main(["audit", str(reference_stores), "--agent", "no such agent"]) == 2
    assert "Invalid agent name" in capsys.readouterr().err


def test_locked_store(reference_stores):
    store = reference_stores / OPS
    other = reference_stores / "shared_two_agents"
    with held_by_another_process(store, "rw"):
        alone = subprocess.run(
            [sys.executable, "-m", "memexplorer", "audit", str(store)],
            capture_output=True, text=True,
        )  # fmt: skip
        several = subprocess.run(
            [sys.executable, "-m", "memexplorer", "audit", str(store), str(other), "--json"],
            capture_output=True, text=True,
        )  # fmt: skip
    assert alone.returncode == 3, alone.stderr
    assert "Store is in use" in alone.stderr
    assert several.returncode == 1
    assert len(json.loads(several.stdout)["findings"]) == 1
    assert "not audited: Store is in use" in several.stderr


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memexplorer", *args], capture_output=True, text=True, input=stdin
    )


def test_redact_asks_and_refuses_without_a_terminal(reference_stores, tmp_path):
    before = checksums(reference_stores)
    result = _cli("audit", str(reference_stores), "--redact", "--home", str(tmp_path), stdin="y\n")
    assert result.returncode == 2
    assert "refusing to redact without --yes" in result.stderr
    assert checksums(reference_stores) == before
    assert not (tmp_path / "backups").exists()
    assert main(["audit", str(reference_stores), "--yes"]) == 2  # --yes alone means nothing


def test_redact_yes_then_audit_finds_nothing_and_restore_brings_all_back(
    reference_stores, manifest, tmp_path, capsys
):
    secrets = _fixture_secrets(reference_stores, manifest)
    home = tmp_path / "home"
    assert main(["audit", str(reference_stores), "--json"]) == 1  # secrets are stored
    before = json.loads(capsys.readouterr().out)["findings"]
    args = ["audit", str(reference_stores), "--redact", "--include-low", "--yes"]
    assert main([*args, "--home", str(home), "--json"]) == 0  # nothing left unredacted
    out, err = capsys.readouterr()
    payload = json.loads(out)
    assert payload["findings"] == before
    assert sum(sum(r["values"].values()) for r in payload["redacted"]) == 30
    for secret in secrets:
        assert secret not in out and secret not in err, secret
    assert main(["audit", str(reference_stores), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"findings": []}
    for redaction in payload["redacted"]:
        assert main(["restore", redaction["backup"], "--yes"]) == 0
    capsys.readouterr()
    assert main(["audit", str(reference_stores), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["findings"] == before


def test_redact_plain_output_and_a_store_held_by_a_reader(reference_stores, tmp_path):
    store = reference_stores / OPS
    with held_by_another_process(store, "ro"):
        result = _cli("audit", str(store), "--redact", "--yes", "--home", str(tmp_path))
    assert result.returncode == 3, result.stderr
    assert not any((tmp_path / "backups").glob("*"))  # locked before any backup was written
    result = _cli("audit", str(store), "--redact", "--yes", "--home", str(tmp_path))
    assert result.returncode == 1, result.stderr  # its prose finding is left, so 1
    assert "redacted in" in result.stdout and "undo with: memexplorer restore" in result.stdout


def test_redact_takes_high_confidence_findings_unless_include_low(reference_stores, tmp_path):
    """Default --redact leaves prose ("the database password ... value") alone and
    exits 1 because those findings remain; --include-low takes them and exits 0."""
    store = reference_stores / "cognitive_db"
    first = _cli("audit", str(store), "--json")
    found = json.loads(first.stdout)["findings"]
    assert first.returncode == 1
    low = [f for f in found if f["confidence"] == "low"]
    assert low and all(f["kind"] in {"password", "token", "secret", "api_key"} for f in low)
    assert all(f["confidence"] == "high" for f in found if f["kind"] in {"aws_key", "github_token"})
    home = tmp_path / "home"
    redact = _cli("audit", str(store), "--redact", "--yes", "--home", str(home), "--json")
    assert redact.returncode == 1, redact.stderr
    after = json.loads(_cli("audit", str(store), "--json").stdout)["findings"]
    assert after and all(f["confidence"] == "low" for f in after)
    assert {(f["table"], f["id"]) for f in after} == {(f["table"], f["id"]) for f in low}
    full = _cli("audit", str(store), "--redact", "--include-low", "--yes", "--home", str(home))
    assert full.returncode == 0, full.stderr
    assert _cli("audit", str(store), "--json").returncode == 0
