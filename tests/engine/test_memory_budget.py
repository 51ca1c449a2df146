"""--memory SIZE: what it accepts, and the pool and page sizes that follow (worked by hand)."""

from __future__ import annotations

import pytest

from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.memory_budget import (
    EngineLimits,
    buffer_pool_bytes,
    page_rows,
    parse_memory,
    set_memory_budget,
)

MiB = 1024 * 1024


@pytest.fixture(autouse=True)
def no_budget_after():
    yield
    set_memory_budget(None)


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("512M", 512 * MiB),
        ("1G", 1024 * MiB),
        ("1.5G", 1536 * MiB),
        (" 2g ", 2048 * MiB),
        ("1GB", 1024 * MiB),
        ("1GiB", 1024 * MiB),
        ("65536K", 64 * MiB),
        ("16777216", 16 * MiB),
    ],
)
def test_sizes_accepted(text, size):
    assert parse_memory(text) == size


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("lots", "is not a memory size"),
        ("1T", "is not a memory size"),
        ("-1G", "is not a memory size"),
        ("", "is not a memory size"),
        ("8M", "too small"),
        ("1000K", "too small"),
    ],
)
def test_sizes_refused(text, words):
    with pytest.raises(InvalidInputError, match=words):
        parse_memory(text)


def test_without_a_budget_reading_gets_256_mib_and_writing_the_engine_default():
    assert buffer_pool_bytes(read_only=True) == 256 * MiB
    assert buffer_pool_bytes(read_only=False) == 0
    assert page_rows() == 100_000  # 256 MiB x 400 rows, capped at 100,000


def test_a_budget_gives_half_to_the_pool_for_reading_and_writing():
    set_memory_budget(64 * MiB)
    assert buffer_pool_bytes(read_only=True) == 32 * MiB
    assert buffer_pool_bytes(read_only=False) == 32 * MiB
    assert page_rows() == 32 * 400


def test_pages_never_drop_below_a_thousand_rows():
    assert page_rows(2 * MiB) == 1_000


def test_engine_limits_take_the_pool_given_else_the_budgets():
    assert EngineLimits().pool(read_only=True) == 256 * MiB
    assert EngineLimits().pool(read_only=False) == 0
    assert EngineLimits(48 * MiB).pool(read_only=True) == 48 * MiB
    set_memory_budget(64 * MiB)
    assert EngineLimits().pool(read_only=False) == 32 * MiB
    assert EngineLimits(0).pool(read_only=True) == 0


def test_a_kuzu_store_opens_with_the_limits_it_was_given(tmp_path, kuzu_opens):
    opened = kuzu_opens
    store = tmp_path / "limits.kuzu"
    open_graph_store(store, read_only=False, create="kuzu", max_threads=1).close()
    set_memory_budget(64 * MiB)
    open_graph_store(store, max_db_size=1024 * MiB).close()
    assert opened == [
        {"read_only": False, "buffer_pool_size": 0, "max_num_threads": 1},
        {"read_only": True, "buffer_pool_size": 32 * MiB, "max_db_size": 1024 * MiB},
    ]
