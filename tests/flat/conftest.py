"""The flat session stores (both backends) for the tests in this folder."""

from flat_stores import _pristine_flat, flat_store  # noqa: F401
