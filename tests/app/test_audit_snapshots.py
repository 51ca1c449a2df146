"""Snapshots at 120x36 of the credential audit and of its redaction confirm, on a copy
of the reference stores at a fixed path (nothing is redacted: no backup, no clock)."""

from __future__ import annotations

from conftest import SIZE, keys

from memexplorer.app.explorer_app import create_app


def test_audit_screen(snap_compare, snapshot_home):
    # a on the stores screen: every finding under the home, grouped by store.
    app = create_app(snapshot_home)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys("a"))


def test_redact_confirm(snap_compare, snapshot_home):
    # A value holding two secrets selected (its findings go together), then d: the confirm.
    app = create_app(snapshot_home)
    steps = keys("a", *["down"] * 6, "space", "d")
    assert snap_compare(app, terminal_size=SIZE, run_before=steps)
