"""--memory SIZE: what it accepts, and the pool and page sizes that follow (worked by hand)."""

from __future__ import annotations

import pytest

from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.memory_budget import (
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
