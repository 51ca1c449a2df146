"""Flat stores of both backends for the clean tests (built by the engine's writers)."""

from flat_stores import _pristine_flat, flat_store  # noqa: F401
