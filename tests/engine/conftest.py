"""Fixtures of the engine tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def kuzu_opens(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, object]]:
    """The options of every ``kuzu.Database`` opened from now on, in order (each
    open still happens, with those options)."""
    import kuzu

    opened: list[dict[str, object]] = []
    real = kuzu.Database

    def spy(path: str, **options: object) -> object:
        opened.append(options)
        return real(path, **options)

    monkeypatch.setattr(kuzu, "Database", spy)
    return opened
