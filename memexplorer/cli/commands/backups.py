"""``memexplorer backups``: the backups under a home, newest last."""

from __future__ import annotations

from memexplorer.cli.command_classes import Args, command
from memexplorer.cli.commands.common import EXIT_OK, literal, output_console, print_json
from memexplorer.cli.commands.options import home_option, json_option, wide_option


@command("backups", "list the backups clean and redaction wrote")
@home_option()
@json_option()
@wide_option()
def backups(args: Args) -> int:
    from memexplorer.operator.backup_records import backups_folder, list_backups
    from memexplorer.storage.backend_choice import amplihack_home

    home = amplihack_home(args.home)
    if not home.is_dir():  # a mistyped --home, not a home without backups yet
        from memexplorer.storage.exceptions import InvalidInputError

        raise InvalidInputError(
            f"No amplihack home at {home}",
            hint="Check --home (default ~/.amplihack): backups live in its backups folder.",
        )
    records = list_backups(home)
    if args.json:
        print_json([record.to_dict() for record in records])
        return EXIT_OK
    if not records:
        print(f"no backups in {backups_folder(home)}")
        return EXIT_OK
    from rich.table import Table

    table = Table(show_edge=False)
    for column in ("when (UTC)", "action", "kind", "store", "rows", "restored", "backup"):
        table.add_column(column, overflow="fold")
    for record in records:
        table.add_row(
            f"{record.created_at:%Y-%m-%d %H:%M:%S}",
            literal(record.action),
            literal(record.kind),
            literal(record.store),
            f"{sum(record.counts.values()):,}",
            "yes" if record.restored else "no",
            literal(record.path.name),
        )
    output_console(wide=args.wide).print(table)
    return EXIT_OK
