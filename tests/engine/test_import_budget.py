"""An import keeps to its memory budget (--memory, else one that grows with the file):
the staged store's buffer pool, the rows per COPY and per open store and the
engine's threads follow from it (worked by hand), a store is
closed and opened again on schedule, the smallest budget still imports every
record exactly, and a large file's check runs in a child with the same answers."""

from __future__ import annotations

import json

import pytest

from memexplorer.cli.main import main
from memexplorer.memory import import_check_child, import_spill, import_stream_write
from memexplorer.operator.transfer import import_agent_store
from memexplorer.operator.transfer_common import agent_counts
from memexplorer.storage.exceptions import ImportDataError
from memexplorer.storage.memory_budget import (
    ImportSizes,
    default_import_budget,
    import_sizes,
    set_memory_budget,
)

MiB = 1024 * 1024
AGENT = "budget-agent"
KEYS = ("semantic_nodes", "episodic_nodes", "similar_to_edges", "derives_from_edges",
        "supersedes_edges")  # fmt: skip


@pytest.fixture(autouse=True)
def no_budget_after():
    yield
    set_memory_budget(None)


def _export(facts: int) -> dict:
    return {
        "agent_name": AGENT,
        "format_version": "1.0",
        "semantic_nodes": [
            {
                "memory_id": f"f-{i}",
                "concept": f"c{i % 7}",
                "content": f"fact {i} é",
                "confidence": round(0.01 * (i % 100), 2),
                "source_id": f"e-{i // 10}",
                "tags": ["t", str(i % 3)],
                "metadata": {"i": i},
                "created_at": f"2026-01-01T{i % 24:02d}",
                "entity_name": "x" if i % 5 else "",
            }
            for i in range(facts)
        ],
        "episodic_nodes": [
            {
                "memory_id": f"e-{i}",
                "content": f"episode {i}",
                "source_label": "s",
                "tags": [],
                "metadata": {"n": i},
                "created_at": "2026-01-01T00:00:00",
            }
            for i in range(facts // 10)
        ],
        "similar_to_edges": [
            {
                "source_id": f"f-{i}",
                "target_id": f"f-{i + 1}",
                "weight": 0.5,
                "metadata": {} if i % 2 else {"k": i},
            }
            for i in range(facts - 1)
        ],
        "derives_from_edges": [
            {
                "source_id": f"f-{i}",
                "target_id": f"e-{i // 10}",
                "extraction_method": "llm",
                "confidence": 0.9,
            }
            for i in range(facts)
        ],
        "supersedes_edges": [
            {
                "source_id": f"f-{i + 1}",
                "target_id": f"f-{i}",
                "reason": "newer",
                "temporal_delta": "1d",
            }
            for i in range(0, facts - 1, 100)
        ],
    }


def _records(data: dict) -> dict[str, list[str]]:
    return {key: sorted(json.dumps(item, sort_keys=True) for item in data[key]) for key in KEYS}


@pytest.mark.parametrize(
    ("budget", "sizes"),
    [
        # pool: a quarter, at least 64 MiB; nodes: 256 per MiB in [5,000, 131,072];
        # edges: 1,024 per MiB in [20,000, 524,288]; rows per open store: 256 per MiB
        # in [20,000, 4,000,000]; one thread under 512 MiB, else the engine's default (0).
        (16 * MiB, ImportSizes(64 * MiB, 5_000, 20_000, 20_000, 1)),
        (64 * MiB, ImportSizes(64 * MiB, 16_384, 65_536, 20_000, 1)),
        (400 * MiB, ImportSizes(100 * MiB, 102_400, 409_600, 102_400, 1)),
        (None, ImportSizes(128 * MiB, 131_072, 524_288, 131_072, 0)),  # 512 MiB
        (4096 * MiB, ImportSizes(1024 * MiB, 131_072, 524_288, 1_048_576, 0)),
    ],
)
def test_import_sizes_follow_the_budget(budget, sizes):
    assert import_sizes(budget) == sizes
    set_memory_budget(budget)
    assert import_sizes() == sizes
    if budget is not None:
        assert import_sizes(records=10) == sizes  # --memory wins over the file's size


@pytest.mark.parametrize(
    ("records", "budget"),
    [
        (None, 512 * MiB),  # not known: the most
        (10_000, 128 * MiB),  # 6.4 MB: the least, 128 MiB
        (412_000, 263_680_000),  # 100k facts' file: 640 bytes a record
        (800_000, 512_000_000),  # just under 512 MiB (536,870,912)
        (4_120_000, 512 * MiB),  # a million facts' file: capped
    ],
)
def test_without_memory_the_budget_grows_with_the_file(records, budget):
    assert default_import_budget(records) == budget


def test_a_file_of_100k_facts_gets_smaller_batches_and_one_thread():
    # 263,680,000 bytes = 251 MiB (rounded down): pool 65,920,000 < 64 MiB, so 64 MiB;
    # 251 * 256 = 64,256 nodes a COPY and rows per open store; 251 * 1,024 edges.
    assert import_sizes(records=412_000) == ImportSizes(64 * MiB, 64_256, 257_024, 64_256, 1)
    assert import_sizes(records=4_120_000) == import_sizes(512 * MiB)


def _spy(monkeypatch) -> tuple[list[tuple[int, int]], list[tuple[str, int]]]:
    """Each store the writing step opens, as (buffer pool, the engine's threads as the
    store itself reports them), and each COPY, as (table, rows)."""
    pools: list[tuple[int, int]] = []
    copies: list[tuple[str, int]] = []
    real_open, real_insert = import_stream_write.open_graph_store, import_stream_write._insert

    def opened(path, **options):
        store = real_open(path, **options)
        threads = store.scalar("CALL current_setting('threads') RETURN *")
        pools.append((options.get("buffer_pool_size"), int(threads)))
        return store

    def inserted(graph, table, order, rows):
        copies.append((table, rows.num_rows))
        real_insert(graph, table, order, rows)

    monkeypatch.setattr(import_stream_write, "open_graph_store", opened)
    monkeypatch.setattr(import_stream_write, "_insert", inserted)
    return pools, copies


def test_the_smallest_budget_imports_every_record_exactly(tmp_path, monkeypatch):
    monkeypatch.setattr(import_spill, "NODE_BATCH_ROWS", 1_000)
    monkeypatch.setattr(import_spill, "BATCH_ROWS", 1_000)
    pools, copies = _spy(monkeypatch)
    source, out = tmp_path / "in.json", tmp_path / "out.json"
    data = _export(12_000)
    source.write_text(json.dumps(data))
    store = tmp_path / "store"
    args = ["--storage-path", str(store), "--memory", "16M"]
    assert main(["import", AGENT, str(source), *args]) == 0
    # 16M: a 64 MiB pool (the least) and one thread for every open store; 5,000 nodes per
    # COPY (file batches of 1,000 put together), 20,000 edges; each table in a store of its own.
    assert pools == [(64 * MiB, 1)] * 5
    assert copies == [
        ("SemanticMemory", 5_000), ("SemanticMemory", 5_000), ("SemanticMemory", 2_000),
        ("EpisodicMemory", 1_200), ("SIMILAR_TO", 11_999), ("DERIVES_FROM", 12_000),
        ("SUPERSEDES", 120),
    ]  # fmt: skip
    assert main(["export", AGENT, str(out), *args]) == 0
    assert _records(json.loads(out.read_text())) == _records(data)


def test_a_store_is_opened_again_every_rows_per_open_rows(tmp_path, monkeypatch):
    monkeypatch.setattr(import_spill, "NODE_BATCH_ROWS", 1_000)
    monkeypatch.setattr(import_spill, "BATCH_ROWS", 1_000)
    sizes = ImportSizes(pool=32 * MiB, node_rows=1_000, edge_rows=2_000, rows_per_open=1_500)
    monkeypatch.setattr(import_stream_write, "import_sizes", lambda **_: sizes)
    pools, copies = _spy(monkeypatch)
    source = tmp_path / "in.json"
    source.write_text(json.dumps(_export(3_000)))
    store = tmp_path / "store"
    import_agent_store(AGENT, source, storage_path=store)
    # SemanticMemory 1,000 + 1,000 (closed at 2,000), 1,000; EpisodicMemory 300;
    # SIMILAR_TO 2,000 (closed), 999; DERIVES_FROM 2,000 (closed), 1,000; SUPERSEDES 30.
    assert copies == [
        ("SemanticMemory", 1_000), ("SemanticMemory", 1_000), ("SemanticMemory", 1_000),
        ("EpisodicMemory", 300), ("SIMILAR_TO", 2_000), ("SIMILAR_TO", 999),
        ("DERIVES_FROM", 2_000), ("DERIVES_FROM", 1_000), ("SUPERSEDES", 30),
    ]  # fmt: skip
    assert [pool for pool, _ in pools] == [32 * MiB] * 8
    assert agent_counts(AGENT, store)["SIMILAR_TO"] == 2_999


def test_a_large_files_check_runs_in_a_child_with_the_same_answers(tmp_path, monkeypatch):
    monkeypatch.setattr(import_check_child, "CHILD_BYTES", 0)
    children = []
    real = import_check_child.check_in_child

    def in_child(*args, **kwargs):
        children.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(import_check_child, "check_in_child", in_child)
    data = _export(2_000)
    source = tmp_path / "in.json"
    source.write_text(json.dumps(data))
    store = tmp_path / "store"
    result = import_agent_store(AGENT, source, storage_path=store)
    assert len(children) == 1
    assert result.counts == {
        "SemanticMemory": 2_000, "EpisodicMemory": 200, "SIMILAR_TO": 1_999,
        "DERIVES_FROM": 2_000, "SUPERSEDES": 20, "TRANSITIONED_TO": 0,
    }  # fmt: skip
    data["supersedes_edges"][19]["target_id"] = "nobody"
    data["semantic_nodes"][7]["confidence"] = "high"
    source.write_text(json.dumps(data))
    with pytest.raises(ImportDataError) as caught:
        import_agent_store(AGENT, source, storage_path=tmp_path / "other")
    assert "semantic_nodes[7].confidence" in str(caught.value)
    assert "supersedes_edges[19].target_id: names no SemanticMemory node ('nobody')" in str(
        caught.value
    )
    assert caught.value.hint == ImportDataError.hint
    assert len(children) == 2 and not (tmp_path / "other").exists()


def test_a_new_stage_opens_with_the_imports_pool_and_a_copy_with_the_default(tmp_path, monkeypatch):
    from memexplorer.operator import transfer_import

    pools: list[int | None] = []
    real = transfer_import.HierarchicalMemory

    def memory(*args, **options):
        pools.append(options.get("buffer_pool_size"))
        return real(*args, **options)

    monkeypatch.setattr(transfer_import, "HierarchicalMemory", memory)
    source = tmp_path / "in.json"
    source.write_text(json.dumps(_export(2_000)))
    store = tmp_path / "store"
    import_agent_store(AGENT, source, storage_path=store)
    import_agent_store(AGENT, source, storage_path=store, merge=True)
    # 6,219 records: 128 MiB (the least default budget), a quarter of it under 64 MiB,
    # so 64 MiB; the merge writes into a copy of the store: the engine's default (None).
    assert pools == [64 * MiB, None]


@pytest.mark.parametrize("engine", ["kuzu", "ladybug"])
def test_each_engine_writes_with_the_budgets_threads(tmp_path, monkeypatch, engine):
    if engine == "ladybug":
        pytest.importorskip("ladybug")
    pools, _ = _spy(monkeypatch)
    set_memory_budget(16 * MiB)
    source = tmp_path / "in.json"
    source.write_text(json.dumps(_export(300)))
    result = import_agent_store(AGENT, source, storage_path=tmp_path / "store", engine=engine)
    assert result.counts["SemanticMemory"] == 300
    assert pools == [(64 * MiB, 1)] * 5
