"""One fact walked through a profile's steps: what each step did with it.

Why: the step that cut a fact is the answer to "why did my agent not see
this?". Each function returns ``(step, outcome, cut)`` triples in the order the
profile runs its steps; the first triple with ``cut`` set is the step that lost
the fact. ``edges`` are the fact's SIMILAR_TO edges as ``(other id, weight,
fact is the edge's source)``, read only when a step needs them; with ``full``
false the walk stops at the first step that cut the fact.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memexplorer.memory.knowledge import KnowledgeNode
from memexplorer.memory.retrieval_library import LibraryTrace
from memexplorer.memory.retrieval_rs import RsTrace

__all__ = ["library_steps", "rs_steps"]

_PUNCTUATION = ".,;:!?()[]{}\"'`"
Triple = tuple[str, str, bool]
Edges = Callable[[], list[list[Any]]]


def _cut(steps: list[Triple]) -> bool:
    return any(cut for _, _, cut in steps)


def _text(fact: KnowledgeNode) -> tuple[str, str]:
    return (fact.content or "").lower(), (fact.concept or "").lower()


def _keyword_step(
    fact: KnowledgeNode, words: list[str], too_short: Any
) -> tuple[list[str], Triple]:
    """Which words match the fact; else whether length or punctuation stopped one."""
    content, concept = _text(fact)

    def has(word: str) -> bool:
        return bool(word) and (word in content or word in concept)

    usable = [w for w in dict.fromkeys(words) if not too_short(w)]
    matching = [w for w in usable if has(w.lower())]
    if matching:
        return matching, ("keywords", f"matches keyword(s) {', '.join(matching)}", False)
    for word in usable:
        bare = word.strip(_PUNCTUATION).lower()
        if bare != word.lower() and not too_short(bare) and has(bare):
            return [], (
                "keywords",
                f"keyword {word!r} cannot match because of attached punctuation ({bare!r} would)",
                True,
            )
    for word in dict.fromkeys(words):
        bare = word.strip(_PUNCTUATION).lower()
        if too_short(word) and has(bare):
            return [], ("keywords", f"keyword {word!r} dropped for its length", True)
    return [], ("keywords", "no keyword of the query occurs in its content or concept", False)


def _rank_step(fact: KnowledgeNode, ranked: list[str], kept: list[str], max_nodes: int) -> Triple:
    if fact.node_id not in ranked:
        return ("rank and trim", "never a candidate", False)
    position = ranked.index(fact.node_id) + 1
    if fact.node_id in kept:
        return ("rank and trim", f"ranked {position} of {len(ranked)}: kept", False)
    return (
        "rank and trim",
        f"ranked {position} of {len(ranked)}, below max_nodes {max_nodes}: trimmed",
        True,
    )


def _closing(steps: list[Triple], fact: KnowledgeNode, kept: list[str], profile: str) -> None:
    if fact.node_id in kept or any(cut for _, _, cut in steps):
        return
    reasons = (fact.metadata or {}).get("retrieved_because", [])
    hop = next((r for r in reasons if r.get("kind") == "similar_to"), None)
    if hop is not None:
        origin = str(hop.get("from", ""))[:8]
        what = f"ranked reached it over SIMILAR_TO from {origin}, a fact {profile} never had"
        steps.append(("similarity expansion", what, True))
        return
    found_by = [r.get("kind", "") for r in reasons]
    how = f" (ranked found it by: {', '.join(found_by)})" if found_by else ""
    steps.append(("result", f"no step of {profile} reaches this fact{how}", True))


def library_steps(
    fact: KnowledgeNode, trace: LibraryTrace, edges: Edges, ctx: dict[str, Any], full: bool
) -> list[Triple]:
    """The library's steps: keywords, entity seeds, windows, expansion, rank and trim."""
    steps: list[Triple] = []
    matching, keyword = _keyword_step(fact, trace.words, lambda w: len(w) <= 2)
    steps.append(keyword)
    entity = (fact.entity_name or "").lower()
    if fact.node_id in trace.entity_ids:
        steps.append(("entity search", f"found by its entity name {entity!r}", False))
    elif entity and any(c in entity for c in trace.entity_candidates):
        steps.append(
            ("entity search", f"its entity matches, beyond the {trace.window}-row window", True)
        )
    elif entity and any(e in entity for e in ctx["entities"]):
        seen = ", ".join(trace.entity_candidates) or "nothing"
        steps.append(
            (
                "entity search",
                f"a name the entity extraction did not see: {entity!r} (it looked up {seen})",
                True,
            )
        )
    else:
        steps.append(("entity search", "no name of the query matches its entity", False))
    if matching:
        held = [k for k in matching if fact.node_id in trace.windows.get(k, [])]
        if held:
            steps.append(("keyword windows", f"in the window of {held[0]!r}", False))
        elif fact.node_id not in trace.seeds:
            steps.append(
                (
                    "keyword windows",
                    f"beyond keyword {matching[0]!r}'s unordered window: LIMIT {trace.window} "
                    "without ORDER BY, and the database gave other rows first",
                    True,
                )
            )
    if not full and _cut(steps):
        return steps
    if fact.node_id not in trace.seeds:
        steps.append(_library_expansion(fact, trace, edges(), ctx))
    steps.append(_rank_step(fact, trace.ranked, trace.kept, ctx["max_nodes"]))
    _closing(steps, fact, trace.kept, "the library")
    return steps


def _library_expansion(
    fact: KnowledgeNode, trace: LibraryTrace, edges: list[list[Any]], ctx: dict[str, Any]
) -> Triple:
    if fact.node_id in trace.reached_from:
        seed, weight = trace.reached_from[fact.node_id]
        return ("similarity expansion", f"reached from {seed[:8]} (weight {weight})", False)
    seeds = set(trace.seeds)
    into = [other for other, _, outgoing in edges if not outgoing and other in seeds]
    waiting = [other for other in into if other not in trace.expanded_seeds]
    if into and len(waiting) == len(into):
        return (
            "similarity expansion",
            f"expansion stopped at max_nodes ({ctx['max_nodes']}) "
            f"before seed {waiting[0][:8]} was expanded",
            True,
        )
    if into:
        return (
            "similarity expansion",
            f"max_nodes ({ctx['max_nodes']}) ids were seen before its row came",
            True,
        )
    reached = seeds | set(trace.expanded)
    back = [other for other, _, outgoing in edges if outgoing and other in reached]
    if back:
        return (
            "similarity expansion",
            f"a hop in the other direction: its SIMILAR_TO edge points to {back[0][:8]}, "
            "and the library follows edges outgoing from a seed only",
            True,
        )
    return ("similarity expansion", "no SIMILAR_TO edge from a seed", False)


def rs_steps(
    fact: KnowledgeNode, trace: RsTrace, edges: Edges, ctx: dict[str, Any], full: bool
) -> list[Triple]:
    """amplihack-rs's steps: keywords, each keyword's top max_nodes, expansion, rank and trim."""
    steps: list[Triple] = []
    matching, keyword = _keyword_step(fact, trace.keywords, lambda w: len(w.encode()) <= 2)
    steps.append(keyword)
    if matching:
        held = [k for k in matching if fact.node_id in trace.tops.get(k, [])]
        if held:
            steps.append(("keyword top", f"in the top {ctx['max_nodes']} of {held[0]!r}", False))
        else:
            steps.append(
                (
                    "keyword top",
                    f"beyond keyword {matching[0]!r}'s top {ctx['max_nodes']} by confidence",
                    True,
                )
            )
    if not full and _cut(steps):
        return steps
    if fact.node_id not in trace.seeds:
        reached = set(trace.seeds) | set(trace.expanded)
        near = [(other, weight) for other, weight, _ in edges() if other in reached]
        strong = [other for other, weight in near if (weight or 0.0) >= ctx["threshold"]]
        if fact.node_id in trace.expanded:
            steps.append(("similarity expansion", "reached over SIMILAR_TO", False))
        elif strong:
            steps.append(
                (
                    "similarity expansion",
                    f"expansion stopped at max_nodes ({ctx['max_nodes']})",
                    True,
                )
            )
        elif near:
            steps.append(
                ("similarity expansion", f"its SIMILAR_TO weight is below {ctx['threshold']}", True)
            )
        else:
            steps.append(("similarity expansion", "no SIMILAR_TO edge to a retrieved fact", False))
    steps.append(_rank_step(fact, trace.ranked, trace.kept, ctx["max_nodes"]))
    _closing(steps, fact, trace.kept, "amplihack-rs")
    return steps
