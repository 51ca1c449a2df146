"""Sorted pages merged through run files give the order one sort of everything gives."""

from __future__ import annotations

import json
import random

from memexplorer.memory.export_merge import merged, spill

AWKWARD = ["plain", "tab\there", "new\nline", "é-accent", "", 'quote"d', "back\\slash", "\x00"]


def _pages(items: list[tuple[str, str]], size: int) -> list[list[tuple[str, str]]]:
    """Pages in the order given, each sorted, as the store's offset ranges come."""
    return [sorted(items[i : i + size]) for i in range(0, len(items), size)]


def _items(count: int, words: list[str]) -> list[tuple[str, str]]:
    rng = random.Random(7)
    items = [(rng.choice(words) + str(rng.randrange(50)), f"id-{i}") for i in range(count)]
    rng.shuffle(items)
    return items


def test_overlapping_pages_come_out_in_one_order(tmp_path):
    items = _items(500, ["a", "b", "c"])
    runs = spill(_pages(items, 64), tuple, json.dumps, tmp_path)
    assert len(runs) == 500
    assert [tuple(json.loads(text)) for text in runs] == sorted(items)


def test_keys_that_are_not_printable_keep_their_order(tmp_path):
    items = _items(300, AWKWARD)
    runs = spill(_pages(items, 50), tuple, json.dumps, tmp_path)
    assert [tuple(json.loads(text)) for text in runs] == sorted(items)


def test_pages_already_in_order_are_read_one_after_another(tmp_path):
    items = sorted(_items(200, ["x", "y"]))
    runs = spill(_pages(items, 30), tuple, json.dumps, tmp_path)
    assert [tuple(json.loads(text)) for text in runs] == items


def test_pages_in_memory_merge_the_same_way():
    items = _items(400, AWKWARD)
    assert list(merged(_pages(items, 70), tuple)) == sorted(items)


def test_run_files_are_private(tmp_path):
    spill(_pages(_items(40, ["a"]), 10), tuple, json.dumps, tmp_path)
    modes = {path.stat().st_mode & 0o777 for path in tmp_path.iterdir()}
    assert modes == {0o600}


def test_record_text_is_what_json_dumps_writes():
    """export_text assembles each record's text from the row; json.dumps of the record
    written out by hand here is the answer."""
    from memexplorer.memory.export_schema import EDGE_SPECS
    from memexplorer.memory.export_text import StoredText, edge_text, semantic_text

    tags, metadata = StoredText([]), StoredText({})
    row = ["f-\u00e9\"1", None, "tab\tand \U0001f600", None, "", '["a", "b"]', "not json",
           None, "Ent"]  # fmt: skip
    expected = {"memory_id": "f-\u00e9\"1", "concept": "", "content": "tab\tand \U0001f600",
                "confidence": None, "source_id": "", "tags": ["a", "b"], "metadata": {},
                "created_at": "", "entity_name": "Ent"}  # fmt: skip
    assert semantic_text(tags, metadata)(row) == json.dumps(expected)
    row[3], row[5], row[6] = 0.1 + 0.2, "W10=", '{"k": [1, 2.5]}'
    expected.update(confidence=0.1 + 0.2, tags=[], metadata={"k": [1, 2.5]})
    assert semantic_text(tags, metadata)(row) == json.dumps(expected)
    similar = next(spec for spec in EDGE_SPECS if spec.rel == "SIMILAR_TO")
    edge = {"source_id": "a", "target_id": "b", "weight": 1.0, "metadata": {"x": "y"}}
    assert edge_text(similar, metadata)(["a", "b", None, '{"x": "y"}']) == json.dumps(edge)
