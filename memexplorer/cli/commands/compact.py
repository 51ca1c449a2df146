"""``memexplorer compact STORE``: rewrite a store so deleted and redacted values leave its bytes.

Kuzu and LadybugDB keep a deleted row's or an overwritten value's old bytes in
the file; compaction copies every row into a fresh file, checks the copy
holds the same rows, and swaps it in, inside the store's write gate.
'clean --compact' and 'audit --redact' do the same after they write.
Exit codes: 0 ok, 1 refused (nothing changed), 2 bad input, 3 the store is in
use by another writer.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from memexplorer.cli.command_classes import Args, command
from memexplorer.cli.commands.common import EXIT_OK, print_json, progress
from memexplorer.cli.commands.options import argument, json_option, memory_option
from memexplorer.operator.wording import counted

if TYPE_CHECKING:
    from memexplorer.operator.compaction import CompactionResult

_ENGINES = {"kuzu": "Kuzu", "ladybug": "LadybugDB", "sqlite": "SQLite"}


def compaction_line(result: CompactionResult) -> str:
    """One line saying what the rewrite did, for every command that compacts."""
    engine = _ENGINES.get(result.engine, result.engine)
    version = f" storage version {result.storage_version}" if result.storage_version else ""
    rows = sum(result.tables.values())
    return (
        f"rewritten into a fresh {engine}{version} file, old bytes removed: "
        f"{result.bytes_before:,} -> {result.bytes_after:,} bytes; "
        f"{counted(rows, 'row')} in {counted(len(result.tables), 'table')}, "
        "the same before and after"
    )


@command("compact", "rewrite a store into a fresh file so deleted and redacted values leave "
         "its bytes", description=__doc__.split("\n\n", 1)[1] if __doc__ else None)  # fmt: skip
@argument("stores", "a Kuzu, LadybugDB or SQLite store file, or an agent folder holding one",
          nargs=-1, required=True, metavar="STORE...")  # fmt: skip
@json_option()
@memory_option()
def compact(args: Args) -> int:
    from memexplorer.operator.store_compaction import compact_store

    results = []
    for store in args.stores:
        with progress(f"Compacting {store}"):
            results.append(compact_store(Path(store)))
    if args.json:
        print_json([result.to_dict() for result in results])
        return EXIT_OK
    for result in results:
        print(f"{result.store}: {compaction_line(result)}")
    return EXIT_OK
