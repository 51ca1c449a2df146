"""``memexplorer chain``: how a fact's value changed over time, oldest to newest."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from memexplorer.cli.command_classes import Args, command
from memexplorer.cli.commands.common import EXIT_OK, print_json
from memexplorer.cli.commands.options import agent_argument, argument, json_option, store_options
from memexplorer.operator.terminal_text import terminal_safe
from memexplorer.operator.wording import counted

if TYPE_CHECKING:
    from memexplorer.operator.chains import ChainStep, TemporalChain


def _step_value(step: ChainStep) -> str:
    if step.previous_value:
        return f"{step.previous_value} -> {step.value}"
    return step.value


def _print_chain(chain: TemporalChain) -> None:
    concept = chain.steps[0].concept if chain.steps else ""
    print(
        terminal_safe(f"[{concept}] {counted(len(chain.steps), 'fact')}, oldest first ")
        + f"({counted(chain.stored_edges, 'chain edge')} stored among them)"
    )
    width = max((len(_step_value(step)) for step in chain.steps), default=0)
    for step in chain.steps:
        state = "current" if step.current else f"superseded by {step.superseded_by}"
        if not step.current and not step.superseded_by:
            state = "superseded"
        print(terminal_safe(
            f"  {step.position}. t={step.temporal_index}  {_step_value(step).ljust(width)}  "
            f"{step.content}"
        ))  # fmt: skip
        print(f"     {step.memory_id} · {step.created_at} · {state}")


def _sqlite_chains(args: Args, store: Path) -> list[TemporalChain]:
    """The chains asked for, from amplihack-rs's SQLite store (read-only)."""
    from memexplorer.operator.rs_sqlite_chains import rs_entity_chains, rs_fact_chain
    from memexplorer.storage.exceptions import StoreNotFoundError
    from memexplorer.storage.sqlite_readonly import open_sqlite_readonly

    if not store.is_file():
        raise StoreNotFoundError(store, f"No SQLite hierarchical store for agent {args.agent}")
    connection = open_sqlite_readonly(store)
    try:
        if args.entity is not None:
            return rs_entity_chains(connection, args.agent, args.entity)
        return [rs_fact_chain(connection, args.agent, args.memory_id)]
    finally:
        connection.close()


@command("chain", "the temporal chain of a fact, or of every fact about an entity")
@agent_argument("the agent whose memory to read")
@argument("memory_id", "a fact's memory_id", required=False)
@click.option("--entity", metavar="NAME", help="every chain about this entity")
@store_options()
@json_option()
def chain(args: Args) -> int:
    from memexplorer.operator.agent_memory import open_agent_memory
    from memexplorer.operator.chains import entity_chains, fact_chain
    from memexplorer.operator.retrieval_rs_sqlite import rs_query_store
    from memexplorer.storage.exceptions import InvalidInputError

    if (args.memory_id is None) == (args.entity is None):
        raise InvalidInputError(
            "Give either a MEMORY_ID or --entity NAME (exactly one)",
            hint="e.g. memexplorer chain ops-agent --entity aws",
        )
    rs_store = rs_query_store(args.agent, args.store, args.home)
    if rs_store is not None:
        chains, store = _sqlite_chains(args, rs_store), str(rs_store)
    else:
        with open_agent_memory(args.agent, args.store, args.home) as memory:
            if args.entity is not None:
                chains = entity_chains(memory.graph, args.agent, args.entity)
            else:
                chains = [fact_chain(memory.graph, args.agent, args.memory_id)]
            store = str(memory.db_path)
    if args.json:
        print_json({"agent": args.agent, "store": store, "chains": [c.to_dict() for c in chains]})
        return EXIT_OK
    print(f"{args.agent} in {store}")
    for chain in chains:
        print()
        _print_chain(chain)
    return EXIT_OK
