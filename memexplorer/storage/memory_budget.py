"""The memory a long operation may use (``--memory 1G``), and what follows from it.

Half the budget is the graph engine's buffer pool, where kuzu and LadybugDB keep
pages of the store and every query's intermediate results; the other half is
for memexplorer itself (a page of rows, the file being written). Exports read
a page of rows per query sized from the pool (:func:`page_rows`), so no query
needs more than a slice of it. Without a budget, a store opened read-only gets
a 256 MiB pool (:data:`~.graph_store.DEFAULT_BUFFER_POOL`) and one opened for
writing the engine's own default (most of the machine's memory, taken only as
it is used): what an import of a million facts needs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.graph_store import DEFAULT_BUFFER_POOL

__all__ = [
    "DEFAULT_LIMITS",
    "EngineLimits",
    "ImportSizes",
    "buffer_pool_bytes",
    "default_import_budget",
    "give_back_freed_memory",
    "import_sizes",
    "memory_budget",
    "page_rows",
    "parse_memory",
    "set_memory_budget",
]

_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([KMG]?)(?:I?B)?", re.IGNORECASE)
#: The smallest budget accepted: kuzu needs a few MiB of pool to open a store at all.
MIN_BUDGET = 16 * 1024**2
#: Rows a page holds per MiB of buffer pool, and the bounds: a page of 100,000 facts
#: sorts in about 50 MiB of kuzu's pool and takes some 120 MB of Python objects.
_ROWS_PER_MIB = 400
_PAGE_BOUNDS = (1_000, 100_000)

_budget: int | None = None


def parse_memory(text: str) -> int:
    """Bytes in a size such as ``512M``, ``1G``, ``1.5G`` or ``800000K`` (K/M/G are
    powers of 1024; a plain number is bytes); anything else is refused."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        raise InvalidInputError(
            f"{text!r} is not a memory size",
            hint="Give a number with K, M or G, for example --memory 512M or --memory 1G.",
        )
    size = int(float(match.group(1)) * _UNITS[match.group(2).upper()])
    if size < MIN_BUDGET:
        raise InvalidInputError(
            f"A memory budget of {text.strip()} is too small",
            hint=f"Give at least {MIN_BUDGET // 1024**2}M.",
        )
    return size


def set_memory_budget(size: int | None) -> None:
    """Set the budget (bytes) every store opened from now on in this process keeps
    to; None goes back to the defaults."""
    global _budget
    if size is not None and size < MIN_BUDGET:
        raise InvalidInputError(f"A memory budget of {size} bytes is too small")
    _budget = size


def memory_budget() -> int | None:
    return _budget


def buffer_pool_bytes(read_only: bool) -> int:
    """The buffer pool a store opens with: half the budget, else the defaults
    (0 means the engine's own default)."""
    if _budget is not None:
        return _budget // 2
    return DEFAULT_BUFFER_POOL if read_only else 0


@dataclass(frozen=True)
class EngineLimits:
    """What the engine of one open store may take, as every opener passes it on:
    a buffer pool of ``buffer_pool_size`` bytes (None: :func:`buffer_pool_bytes`),
    ``max_db_size`` bytes of address space (0: the engine's 8 TB) and
    ``max_threads`` threads (0: one per core)."""

    buffer_pool_size: int | None = None
    max_db_size: int = 0
    max_threads: int = 0

    def pool(self, read_only: bool) -> int:
        """The buffer pool to open with (0: the engine's own default)."""
        if self.buffer_pool_size is None:
            return buffer_pool_bytes(read_only)
        return self.buffer_pool_size


#: The budget's pool, the engine's address space and one thread per core.
DEFAULT_LIMITS = EngineLimits()


def page_rows(pool: int | None = None) -> int:
    """Rows an export reads per query with a buffer pool of ``pool`` bytes
    (default: the read-only pool this process opens stores with)."""
    pool = buffer_pool_bytes(read_only=True) if pool is None else pool
    low, high = _PAGE_BOUNDS
    return max(low, min(high, pool // 1024**2 * _ROWS_PER_MIB))


#: An import without ``--memory`` keeps to at most this budget (a million facts fit in it).
DEFAULT_IMPORT_BUDGET = 512 * 1024**2
#: ... and to this much per record of the file, at least _SMALLEST_DEFAULT: the
#: sizes that keep a million facts in 512 MiB took a file of 100k facts (412k
#: records) to 296 MB, where 256 MiB's (and one thread) keep it near 210 MB.
_BUDGET_PER_RECORD = 640
_SMALLEST_DEFAULT = 128 * 1024**2
#: A kuzu node group: nodes per COPY at most (a COPY fills whole node groups).
_NODE_GROUP = 131_072
#: The smallest pool an import gets: with 16 MiB kuzu 0.11.3 refused the first COPY
#: of 5,000 nodes into a new store ("the buffer pool is full") when the file held
#: 100k facts; 32 MiB was enough.
_IMPORT_MIN_POOL = 64 * 1024**2


@dataclass(frozen=True)
class ImportSizes:
    """How an import's writing step uses its budget (see :func:`import_sizes`)."""

    pool: int  # bytes of buffer pool for the staged store
    node_rows: int  # nodes per COPY
    edge_rows: int  # edges per COPY
    rows_per_open: int  # rows copied before the staged store is closed and opened again
    threads: int = 0  # the engine's threads while copying (0: one per core)


def default_import_budget(records: int | None) -> int:
    """The budget of an import without ``--memory`` of a file of ``records`` records
    (None: not known): 640 bytes a record, from 128 MiB up to 512 MiB."""
    if records is None:
        return DEFAULT_IMPORT_BUDGET
    return max(_SMALLEST_DEFAULT, min(DEFAULT_IMPORT_BUDGET, records * _BUDGET_PER_RECORD))


def import_sizes(budget: int | None = None, *, records: int | None = None) -> ImportSizes:
    """The buffer pool, COPY batches, reopening interval and threads an import keeps
    to within ``budget`` bytes (default: ``--memory``, else
    :func:`default_import_budget` of the file's ``records``).

    Measured at a million facts (kuzu 0.11.3): the pool is not where an import's
    memory goes. Each open database keeps structures that grow with the rows
    COPY puts in (some 200 MB for a million nodes, 100 MB more for each table
    of a million edges) and gives them back only when it is closed, so the
    writing step closes and reopens the store between tables and every
    ``rows_per_open`` rows. The pool gets a quarter of the budget, not half,
    and at least 64 MiB (a budget that small cannot be kept). A COPY costs
    about as much CPU whatever its size (1M nodes: 4 s in one, 10 s in 25k
    batches), so batches are as large as the budget allows. Each of kuzu's
    threads keeps memory of its own through a COPY (65k facts into an open
    store: some 90 MB on two threads, 70 MB on one, the same CPU; ``CALL
    threads=1`` on the connection saved nothing), so a store written within a
    budget under 512 MiB is opened with one thread.
    """
    budget = budget or _budget or default_import_budget(records)
    mib = budget // 1024**2
    return ImportSizes(
        pool=max(_IMPORT_MIN_POOL, budget // 4),
        node_rows=max(5_000, min(_NODE_GROUP, mib * 256)),
        edge_rows=max(20_000, min(4 * _NODE_GROUP, mib * 1024)),
        rows_per_open=max(20_000, min(4_000_000, mib * 256)),
        threads=1 if budget < DEFAULT_IMPORT_BUDGET else 0,
    )


def give_back_freed_memory() -> None:
    """Return the allocators' free pages to the system: glibc's (``malloc_trim``;
    nothing elsewhere) and, when pyarrow is loaded, its own pool's (mimalloc keeps
    what Arrow batches freed: some 15 MB after an import's check at 100k facts).
    Kuzu frees what a closed database held, but glibc keeps it: 458 MB stayed
    after a close at 1M facts, 139 MB after a trim."""
    import ctypes
    import sys

    arrow = sys.modules.get("pyarrow")
    if arrow is not None:
        arrow.default_memory_pool().release_unused()
    try:
        trim = ctypes.CDLL(None).malloc_trim  # the C library the process runs on
    except (OSError, AttributeError):
        return
    trim(0)
