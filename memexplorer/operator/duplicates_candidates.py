"""Which pairs of one concept's facts can reach a threshold, without scoring every pair.

Within one concept the concept term of the library's similarity is a constant, so a
pair scores ``0.5 x W + 0.2 x T + C`` (W, T the Jaccard coefficients of the content
words and of the tags). A pair reaches the threshold ``t`` only if
``W >= (t - C - 0.2 x T) / 0.5``, and T is known from the two tag sets alone:

* pairs whose tags share nothing (T = 0) need the most words; when that bound is
  above 1, no such pair qualifies and none is looked at;
* facts are put in classes by their tag set; for each two classes whose tags meet
  (an inverted index on tags), T is one number, so the bound is exact for all their
  pairs, and pairs are looked for only where that bound is at most 1.

Pairs with a word bound above 0 are found with an inverted index on words and prefix
filtering (Chaudhuri, Ganti and Kaushik 2006; Bayardo et al. 2007): two word sets
with a Jaccard coefficient of at least ``need`` share a word among the first
``|A| - ceil(need x |A|) + 1`` of each, in one order of all words; the size and
positional filters (Xiao et al. 2008) drop more. Every candidate is then scored
exactly by the caller, so the bounds only decide what is scored, never the answer.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Iterator

from memexplorer.storage.progress import TaskControl, checkpoint

__all__ = ["CLASS_PAIR_LIMIT", "FACTS_PER_CLASS_PAIR", "SLACK", "Tally", "candidate_pairs"]

#: Slack under each bound, so a rounding error never drops a pair that qualifies.
SLACK = 1e-9
#: Beyond this many pairs of tag classes that share a tag (or more than one for
#: every FACTS_PER_CLASS_PAIR facts), one bound for all tagged pairs (T at most 1)
#: is cheaper than a prefix pass per pair of classes.
CLASS_PAIR_LIMIT = 256
FACTS_PER_CLASS_PAIR = 4
#: Facts read or compared between two looks at the cancel token.
CHUNK = 64


class Tally:
    """Progress of one search: facts compared, pairs scored; checks the cancel token."""

    def __init__(self, control: TaskControl | None, facts: int) -> None:
        self.control = control
        self.facts = facts
        self.compared = 0
        self.scored = 0

    def check(self) -> None:
        checkpoint(self.control, f"comparing facts: {self.scored:,} pairs scored",
                   self.compared, self.facts, "facts")  # fmt: skip


def _word_bound(rest: float, tags: float) -> float:
    """The least word Jaccard a pair with tag Jaccard ``tags`` needs (slack taken off)."""
    return (rest - 0.2 * tags) / 0.5 - SLACK


def _prefix_pairs(
    words: list[set[str]], need: float, tally: Tally, split: int | None = None
) -> list[tuple[int, int]]:
    """Pairs of indexes whose word sets may have a Jaccard coefficient >= ``need`` > 0.

    Sets are taken smallest first, so each indexes only the shorter prefix a larger
    or equal set must meet (PPJoin's); with ``split``, sets before it are only
    indexed (whole prefix) and sets from it only probe: pairs across the split."""
    frequency: dict[str, int] = defaultdict(int)
    for found in words:
        for word in found:
            frequency[word] += 1
    seen: dict[str, list[tuple[int, int]]] = defaultdict(list)
    share = need / (1 + need)
    order = range(len(words)) if split is not None else sorted(
        range(len(words)), key=lambda i: len(words[i]))  # fmt: skip
    pairs: list[tuple[int, int]] = []
    for step, index in enumerate(order):
        if step % CHUNK == 0:
            tally.check()
        found = words[index]
        size = len(found)
        if not size:
            continue
        ordered = sorted(found, key=lambda w: (frequency[w], w))
        prefix = max(size - math.ceil(need * size) + 1, 1)
        probe = split is None or index >= split
        indexed = 0 if probe and split is not None else prefix
        if split is None:
            indexed = max(size - math.ceil(2 * share * size - SLACK) + 1, 1)
        overlap: dict[int, int] = {}
        for position, word in enumerate(ordered[:prefix]):
            if probe:
                for other, other_position in seen[word]:
                    count = overlap.get(other, 0)
                    other_size = len(words[other])
                    if count < 0 or min(size, other_size) < need * max(size, other_size):
                        continue
                    least = share * (size + other_size) - SLACK
                    rest = min(size - position - 1, other_size - other_position - 1)
                    overlap[other] = count + 1 if count + 1 + rest >= least else -1
            if position < indexed:
                seen[word].append((index, position))
        pairs += [(other, index) for other, count in overlap.items() if count > 0]
    return pairs


def _every_pair(members: list[int], others: list[int] | None = None) -> Iterator[tuple[int, int]]:
    if others is None:
        return ((a, b) for n, a in enumerate(members) for b in members[n + 1 :])
    return ((a, b) for a in members for b in others)


def _class_pairs(tags: list[set[str]]) -> tuple[list[list[int]], list[tuple[int, int, float]]]:
    """Facts by tag set, and each two classes whose tags meet with their tag Jaccard."""
    classes: dict[frozenset[str], list[int]] = defaultdict(list)
    for index, found in enumerate(tags):
        if found:
            classes[frozenset(found)].append(index)
    keys = list(classes)
    by_tag: dict[str, list[int]] = defaultdict(list)
    for number, key in enumerate(keys):
        for tag in key:
            by_tag[tag].append(number)
    met = {(a, b) for numbers in by_tag.values() for a in numbers for b in numbers if a <= b}
    links = [(a, b, len(keys[a] & keys[b]) / len(keys[a] | keys[b])) for a, b in sorted(met)]
    return [classes[key] for key in keys], links


def _within_classes(
    words: list[set[str]], tags: list[set[str]], rest: float, tally: Tally
) -> Iterable[tuple[int, int]] | None:
    """Candidates among pairs whose tags meet, one exact bound per two classes;
    None when there are too many pairs of classes, or when tags alone let most
    pairs through (scoring every pair once is cheaper then)."""
    members, links = _class_pairs(tags)
    if len(links) > CLASS_PAIR_LIMIT or len(links) * FACTS_PER_CLASS_PAIR > len(words):
        return None  # many small classes: a pass per pair of them costs more than it saves
    size = len(words)
    free = sum(
        len(members[a]) * (len(members[a]) - 1) // 2
        if a == b
        else len(members[a]) * len(members[b])
        for a, b, overlap in links
        if _word_bound(rest, overlap) <= 0
    )
    if free * 2 >= size * (size - 1) // 2:
        return None
    found: list[Iterable[tuple[int, int]]] = []
    for a, b, overlap in links:
        need = _word_bound(rest, overlap)
        if need > 1:
            continue
        left, right = members[a], members[b] if a != b else None
        if need <= 0:
            found.append(_every_pair(left, right))
            continue
        group = left + (right or [])
        split = len(left) if right is not None else None
        local = _prefix_pairs([words[i] for i in group], need, tally, split)
        found.append([(group[i], group[j]) for i, j in local])
    return (pair for pairs in found for pair in pairs)


def candidate_pairs(
    words: list[set[str]], tags: list[set[str]], rest: float, tally: Tally
) -> Iterable[tuple[int, int]]:
    """Pairs of indexes that may score ``0.5 x W + 0.2 x T >= rest`` (a pair may come
    more than once); every other pair scores below."""
    everyone = list(range(len(words)))
    untagged_need = _word_bound(rest, 0.0)
    if untagged_need <= 0:
        return _every_pair(everyone)  # tags and concept alone can reach the threshold
    tagged = _within_classes(words, tags, rest, tally)
    if tagged is None:  # one bound for every pair: tags at most 1
        need = _word_bound(rest, 1.0)
        return _every_pair(everyone) if need <= 0 else _prefix_pairs(words, need, tally)
    if untagged_need > 1:
        return tagged
    untagged = _prefix_pairs(words, untagged_need, tally)
    return (pair for pairs in (untagged, tagged) for pair in pairs)
