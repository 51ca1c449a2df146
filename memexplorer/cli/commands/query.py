"""``memexplorer query``: what an agent's retrieval would return for a text, and why."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memexplorer.cli.command_classes import Args, command
from memexplorer.cli.commands.common import EXIT_OK, print_json
from memexplorer.cli.commands.options import agent_argument, argument, json_option, store_options
from memexplorer.operator.terminal_text import terminal_safe
from memexplorer.operator.wording import counted

if TYPE_CHECKING:
    from memexplorer.memory.knowledge import KnowledgeEdge, KnowledgeNode, KnowledgeSubgraph
    from memexplorer.memory.retrieval_explain import Explanation


def describe_reason(reason: dict[str, Any]) -> str:
    """One ``retrieved_because`` entry as a phrase."""
    kind = reason.get("kind", "")
    if kind == "keyword":
        return "keyword match: " + ", ".join(reason.get("terms", []))
    if kind == "entity":
        return f"entity {reason.get('entity', '')}"
    if kind == "similar_to":
        weight = reason.get("weight") or 0.0
        return f"similar to {reason.get('from', '')} (weight {weight:.2f})"
    if kind == "supersedes_context":
        return f"in the SUPERSEDES chain of {reason.get('of', '')}"
    if kind == "transition_context":
        return f"in the TRANSITIONED_TO chain of {reason.get('of', '')}"
    return str(reason)


def _node_dict(node: KnowledgeNode) -> dict[str, Any]:
    return {
        "node_id": node.node_id,
        "concept": node.concept,
        "content": node.content,
        "confidence": node.confidence,
        "category": node.category.value,
        "created_at": node.created_at,
        "chain_position": node.metadata.get("chain_position", ""),
        "superseded": bool(node.metadata.get("superseded")),
        "retrieved_because": node.metadata.get("retrieved_because", []),
        "metadata": node.metadata,
    }


_EDGE_FIELDS = ("source_id", "target_id", "relationship", "weight", "metadata")


def _edge_dict(edge: KnowledgeEdge) -> dict[str, Any]:
    return {name: getattr(edge, name) for name in _EDGE_FIELDS}


def _print_subgraph(agent: str, store: str, subgraph: KnowledgeSubgraph) -> None:
    nodes, edges = counted(len(subgraph.nodes), "node"), counted(len(subgraph.edges), "edge")
    print(f"{agent} in {store}: {nodes}, {edges}")
    print(f"query: {subgraph.query}")
    for number, node in enumerate(subgraph.nodes, 1):
        print()
        print(terminal_safe(f"{number}. [{node.concept}] {node.content}"))
        details = [node.node_id, f"confidence {node.confidence:.2f}"]
        if node.metadata.get("chain_position"):
            details.append(str(node.metadata["chain_position"]))
        print("   " + " · ".join(details))
        for reason in node.metadata.get("retrieved_because", []):
            print(f"   why: {describe_reason(reason)}")
    if subgraph.edges:
        print()
        print("edges:")
        for edge in subgraph.edges:
            extra = edge.metadata.get("reason") or edge.metadata.get("conflicting_values") or ""
            weight = f" {edge.weight:.2f}" if edge.relationship == "SIMILAR_TO" else ""
            line = f"  {edge.source_id} -{edge.relationship}{weight}-> {edge.target_id}"
            print(f"{line}  {extra}".rstrip())


def print_missed(explanation: Explanation) -> None:
    """The facts the profile left out, each with the step that cut it."""
    missed = explanation.missed_as_dicts()
    print()
    print(f"missed ({len(missed)} fact(s) 'ranked' finds that {explanation.profile} left out):")
    for item in missed:
        print(terminal_safe(f"  [{item['concept']}] {item['content']}"))
        print(f"   {item['node_id']} · cut by {item['cut_by']}: {item['reason']}")


@command("query", "run an agent's retrieval on a text: the nodes, edges and why")
@agent_argument("the agent whose memory to search")
@argument("text", "what to retrieve knowledge about")
@store_options()
@click.option("--max-nodes", type=int, default=20, help="at most this many nodes (default 20)")
@click.option("--max-depth", type=int, default=2, help="SIMILAR_TO hops to follow (default 2)")
@click.option(
    "--profile",
    help="whose retrieval to run, one of library, amplihack-rs, ranked: library is "
    "amplihack-memory-lib's (the default; amplihack-rs on an amplihack-rs SQLite "
    "store), ranked memexplorer's own",
)
@click.option("--explain", is_flag=True,
              help="also list the facts 'ranked' finds and the profile left out, "
              "with the step that cut each")  # fmt: skip
@json_option()
def query(args: Args) -> int:
    from memexplorer.memory.retrieval_explain import explain_retrieval
    from memexplorer.memory.retrieval_profiles import DEFAULT_PROFILE, Knobs, check_profile
    from memexplorer.operator.agent_memory import open_agent_memory
    from memexplorer.operator.retrieval_rs_sqlite import rs_query_store
    from memexplorer.storage.exceptions import InvalidInputError

    if args.max_nodes < 1:
        raise InvalidInputError(f"--max-nodes must be at least 1, not {args.max_nodes}")
    if args.max_depth < 0:
        raise InvalidInputError(f"--max-depth must be 0 or more, not {args.max_depth}")
    rs_store = rs_query_store(args.agent, args.store, args.home)
    if rs_store is not None:
        return _run_on_sqlite(args, rs_store)
    profile = check_profile(args.profile or DEFAULT_PROFILE)
    with open_agent_memory(args.agent, args.store, args.home) as memory:
        explanation = (
            explain_retrieval(
                memory.graph,
                memory.agent_name,
                memory.rel_tables(),
                args.text,
                profile=profile,
                knobs=Knobs(max_depth=args.max_depth, max_nodes=args.max_nodes),
            )
            if args.explain
            else None
        )
        if explanation is not None:
            subgraph = explanation.subgraph
        else:
            subgraph = memory.retrieve_subgraph(
                args.text, max_depth=args.max_depth, max_nodes=args.max_nodes, profile=profile
            )
        store = str(memory.db_path)
    if args.json:
        payload: dict[str, Any] = {
            "agent": args.agent,
            "store": store,
            "query": args.text,
            "profile": profile,
            "nodes": [_node_dict(node) for node in subgraph.nodes],
            "edges": [_edge_dict(edge) for edge in subgraph.edges],
            "context": subgraph.to_llm_context(),
        }
        if explanation is not None:
            payload["missed"] = explanation.missed_as_dicts()
        print_json(payload)
    else:
        print(f"profile: {profile}")
        _print_subgraph(args.agent, store, subgraph)
        if explanation is not None:
            print_missed(explanation)
    return EXIT_OK


def _run_on_sqlite(args: Args, store: Path) -> int:
    """A query on amplihack-rs's SQLite store: the agent's own (amplihack-rs) retrieval."""
    from memexplorer.memory.retrieval_profiles import Knobs, check_profile
    from memexplorer.operator.retrieval_rs_sqlite import rs_sqlite_retrieve
    from memexplorer.storage.exceptions import InvalidInputError, StoreNotFoundError

    if args.explain:
        raise InvalidInputError(
            "--explain compares with the ranked profile, which reads graph stores",
            hint="Copy the store with memexplorer migrate and query the copy with --explain.",
        )
    if not store.is_file():
        raise StoreNotFoundError(store, f"No SQLite hierarchical store for agent {args.agent}")
    profile = check_profile(args.profile or "amplihack-rs")
    knobs = Knobs(max_depth=args.max_depth, max_nodes=args.max_nodes)
    subgraph = rs_sqlite_retrieve(store, args.agent, args.text, profile=profile, knobs=knobs)
    if args.json:
        print_json({
            "agent": args.agent, "store": str(store), "query": args.text, "profile": profile,
            "nodes": [_node_dict(node) for node in subgraph.nodes],
            "edges": [_edge_dict(edge) for edge in subgraph.edges],
            "context": subgraph.to_llm_context(),
        })  # fmt: skip
    else:
        print(f"profile: {profile}")
        _print_subgraph(args.agent, str(store), subgraph)
    return EXIT_OK
