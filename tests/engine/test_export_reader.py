"""The streaming reader of JSON exports: the records it yields are the standard
library's own ``json.loads`` of the file, it never holds more than a chunk and
one record of text whatever the file's length, and every cut of a file is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memexplorer.memory import export_reader
from memexplorer.memory.export_reader import iter_export
from memexplorer.memory.import_file import read_export
from memexplorer.storage.exceptions import ImportDataError


def _export(facts: int) -> dict:
    """A small export in the reference library's layout (nodes first, then edges)."""
    return {
        "agent_name": "reader-agent",
        "format_version": "1.1",
        "semantic_nodes": [
            {
                "memory_id": f"f-{i}",
                "concept": "c\u00e9 \U0001f600",
                "content": "x" * (i % 50),
                "confidence": 0.5,
                "tags": ["a", "b"],
                "metadata": {"n": i, "deep": [[i]]},
            }
            for i in range(facts)
        ],
        "episodic_nodes": [],
        "similar_to_edges": [
            {"source_id": f"f-{i}", "target_id": f"f-{i + 1}", "weight": 1e-3, "metadata": {}}
            for i in range(facts - 1)
        ],
        "statistics": {"semantic_node_count": facts, "nested": {"k": [1, 2.5, None, True]}},
    }


def _as_loaded(path: Path) -> dict:
    """What the reader yields, put back together as one document."""
    data: dict = {}
    for key, position, value in iter_export(path):
        if position is None:
            data[key] = value
        else:
            assert position == len(data.setdefault(key, []))
            data[key].append(value)
    return data


@pytest.mark.parametrize("chunk", [1, 7, 4096])
@pytest.mark.parametrize("indent", [None, 2])
def test_records_are_what_json_loads_reads_across_any_chunking(
    tmp_path, monkeypatch, chunk, indent
):
    monkeypatch.setattr(export_reader, "CHUNK_CHARS", chunk)
    path = tmp_path / "export.json"
    path.write_text(json.dumps(_export(120), indent=indent, ensure_ascii=chunk == 7))
    assert _as_loaded(path) == json.loads(path.read_text())


def _largest_buffer(path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    largest = 0
    fill = export_reader._Text.fill

    def watched(self, size=export_reader.CHUNK_CHARS):
        nonlocal largest
        grew = fill(self, size)
        largest = max(largest, len(self.buf))
        return grew

    monkeypatch.setattr(export_reader._Text, "fill", watched)
    for _ in iter_export(path):
        pass
    return largest


def test_the_text_held_does_not_grow_with_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(export_reader, "CHUNK_CHARS", 2048)
    small, large = tmp_path / "small.json", tmp_path / "large.json"
    small.write_text(json.dumps(_export(500)))
    large.write_text(json.dumps(_export(8000)))  # 16 times the records
    assert large.stat().st_size > 16 * small.stat().st_size > 16 * 20_000
    record = max(len(json.dumps(n)) for n in _export(8000)["semantic_nodes"])
    # A chunk, the unread rest of the one before, and at most one record.
    bound = 2 * 2048 + record
    assert _largest_buffer(small, monkeypatch) <= bound
    assert _largest_buffer(large, monkeypatch) <= bound


def test_a_record_larger_than_a_chunk_is_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(export_reader, "CHUNK_CHARS", 64)
    path = tmp_path / "export.json"
    big = {"memory_id": "big", "content": "y" * 10_000}
    path.write_text(json.dumps({"semantic_nodes": [big, {"memory_id": "after"}]}))
    assert list(iter_export(path)) == [
        ("semantic_nodes", 0, big), ("semantic_nodes", 1, {"memory_id": "after"})
    ]  # fmt: skip


def test_every_cut_of_a_file_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(export_reader, "CHUNK_CHARS", 16)
    text = json.dumps(_export(3))
    path = tmp_path / "cut.json"
    for end in range(len(text)):
        path.write_text(text[:end])
        with pytest.raises(ImportDataError, match="not valid JSON"):
            for _ in iter_export(path):
                pass


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"semantic_nodes": [{"memory_id": "a"} {"memory_id": "b"}]}', "after semantic_nodes[0]"),
        ('{"semantic_nodes": [{"memory_id": "a"}, {"memory_id": }]}', "in semantic_nodes[1]"),
        ('{"semantic_nodes": []} []', "text after the export object"),
        ('{"a": 1,}', "a key of the export object"),
        # json says "Unterminated string starting at" and gives the place apart:
        # the record's name may not land after the "at" ("starting at in …").
        (
            '{"semantic_nodes": [{"memory_id": "a',
            "string starting in semantic_nodes[0] (character 34)",
        ),
    ],
)
def test_wrong_json_is_named_by_its_record(tmp_path, text, words):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ImportDataError, match="not valid JSON") as caught:
        list(iter_export(path))
    assert words in str(caught.value)


def test_bytes_that_are_not_utf8_are_named_by_offset(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"semantic_nodes": [{"content": "caf\xe9"}]}')
    with pytest.raises(ImportDataError, match=r"not UTF-8 text \(byte 36\)"):
        list(iter_export(path))


def test_a_lone_surrogate_is_refused_with_its_path(tmp_path):
    path = tmp_path / "surrogate.json"
    path.write_text(
        '{"semantic_nodes": [{"memory_id": "a"}, {"memory_id": "b", "tags": ["\\udc00"]}]}'
    )
    with pytest.raises(ImportDataError, match=r"semantic_nodes\[1\]\.tags\[0\]"):
        list(iter_export(path))


def test_a_cut_string_is_placed_in_words_by_the_whole_file_reader(tmp_path):
    """read_export (the import preview, diffs) says where a cut string starts in plain
    words: it said "Unterminated string starting at at line 1, column 35"."""
    path = tmp_path / "cut.json"
    path.write_text('{"semantic_nodes": [{"memory_id": "a')  # its last quote: column 35
    with pytest.raises(ImportDataError) as caught:
        read_export(path)
    assert "not valid JSON: Unterminated string starting at line 1, column 35" in str(caught.value)
