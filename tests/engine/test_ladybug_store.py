"""LadybugDB through the storage seam: a worker process behind LadybugStore.

ladybug is never imported into this process (kuzu is loaded here, and the two
cannot share one); every LadybugDB store is opened through the engine's worker.
"""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import os
import signal
import struct
import sys
import threading
import time
from importlib.util import find_spec
from pathlib import Path

import pytest

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.storage import worker_process
from memexplorer.storage.exceptions import (
    CorruptStoreError,
    EngineWorkerError,
    ReadOnlyStoreError,
    StoreNotFoundError,
    StoreUpgradeRequired,
    UnsupportedEngineError,
)
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.graph_store import QueryError
from memexplorer.storage.graphdb import KuzuStore
from memexplorer.storage.ladybug_store import LadybugStore
from memexplorer.storage.stores import sniff

# CI installs the extra: there a missing ladybug fails these tests instead of skipping them.
pytestmark = pytest.mark.skipif(
    find_spec("ladybug") is None and not os.environ.get("CI"),
    reason="needs the ladybug extra: pip install 'memexplorer[ladybug]'",
)

DATA = Path(__file__).parent / "data"
SCHEMA = [
    "CREATE NODE TABLE Fact(id STRING, content STRING, n INT64, score DOUBLE, "
    "tags STRING[], at TIMESTAMP, PRIMARY KEY(id))",
    "CREATE REL TABLE LINK(FROM Fact TO Fact, weight DOUBLE)",
    "CREATE NODE TABLE Plain(id STRING, content STRING, n INT64, PRIMARY KEY(id))",
]
FILL = [
    "UNWIND range(0, 2999) AS i CREATE (:Fact {id: 'f' + string(i), content: 'fact ' + "
    "string(i), n: i, score: i * 0.25, tags: ['t' + string(i % 3)], "
    "at: timestamp('2026-04-01 10:00:00') + to_seconds(i)})",
    "MATCH (a:Fact), (b:Fact) WHERE b.n = a.n + 1 AND a.n < 50 "
    "CREATE (a)-[:LINK {weight: a.n * 0.5}]->(b)",
]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _fill(store) -> None:
    for statement in (*SCHEMA, *FILL):
        store.execute(statement)


@pytest.fixture
def lbug(tmp_path: Path) -> Path:
    path = tmp_path / "ladybug_db"
    with open_graph_store(path, read_only=False, create="ladybug") as store:
        _fill(store)
    return path


@pytest.fixture
def kuzu(tmp_path: Path) -> Path:
    path = tmp_path / "kuzu_db"
    with open_graph_store(path, read_only=False, create="kuzu") as store:
        _fill(store)
    return path


def test_create_write_read_with_params(lbug: Path):
    assert sniff(lbug).engine == "ladybug"
    with open_graph_store(lbug) as store:
        assert isinstance(store, LadybugStore)
        assert (store.engine, store.storage_version, store.read_only) == ("ladybug", 49, True)
        assert store.rows("MATCH (f:Fact) WHERE f.n < $k RETURN f.id ORDER BY f.n", {"k": 2}) == [
            ["f0"],
            ["f1"],
        ]
        assert store.scalar("MATCH (f:Fact) RETURN count(f)") == 3000
        assert store.node_tables() == ["Fact", "Plain"]
        assert store.rel_tables()["LINK"].pairs == (("Fact", "Fact"),)
        assert store.columns("Fact")[:2] == [("id", "STRING"), ("content", "STRING")]
        assert store.primary_key("Fact") == "id"
        assert store.has_table("LINK") and not store.has_table("Nope")
        with pytest.raises(ReadOnlyStoreError):
            store.execute("CREATE (:Fact {id: 'x'})")
        with pytest.raises(QueryError, match="LadybugDB refused a query"):
            store.rows("MATCH (q:Nope) RETURN q")
    with open_graph_store(lbug, read_only=False) as store:
        store.execute("CREATE (:Fact {id: $id, n: $n})", {"id": "new", "n": -1}, reuse=True)
        store.execute("CREATE (:Fact {id: $id, n: $n})", {"id": "new2", "n": -2}, reuse=True)
    with open_graph_store(lbug) as store:
        assert store.rows("MATCH (f:Fact) WHERE f.n < 0 RETURN f.id ORDER BY f.n") == [
            ["new2"],
            ["new"],
        ]


QUERIES = [
    ("MATCH (f:Fact) WHERE f.n < 3 RETURN f ORDER BY f.n", None),
    ("MATCH (a:Fact)-[r:LINK]->(b:Fact) WHERE a.n < 3 RETURN a.id, r, b.id ORDER BY a.n", None),
    (
        "MATCH p = (a:Fact)-[:LINK*1..2]->(b:Fact) WHERE a.n = 0 "
        "RETURN p, length(p) ORDER BY length(p)",
        None,
    ),
    (
        "MATCH (f:Fact) WHERE f.n IN $ns RETURN f.id, f.tags, f.at, f.score ORDER BY f.n",
        {"ns": [1, 7, 9]},
    ),
    ("MATCH (f:Fact) RETURN f.id, f.content, f.n, f.score ORDER BY f.n", None),
    ("MATCH (f:Fact) RETURN f.tags, f.at ORDER BY f.n", None),
    # collect() gathers in scan order, which parallel scans change from run to run:
    # sorted, its first element is the same in both engines every time.
    ("MATCH (f:Fact) RETURN sum(f.n), avg(f.score), list_sort(collect(f.id))[1]", None),
]


@pytest.mark.parametrize(("query", "params"), QUERIES)
def test_rows_and_arrow_equal_kuzu(lbug: Path, kuzu: Path, query: str, params):
    with open_graph_store(kuzu) as theirs, open_graph_store(lbug) as ours:
        assert isinstance(theirs, KuzuStore)
        expected = theirs.rows(query, params)
        assert ours.rows(query, params) == expected
        if "RETURN f.id, f.content" in query:
            assert ours.arrow(query).to_pylist() == theirs.arrow(query).to_pylist()


def test_aggregates_equal_hand_computed_values(lbug: Path):
    """The same aggregates against sums worked out from FILL, not from another engine."""
    query = QUERIES[-1][0]
    with open_graph_store(lbug) as store:
        for _ in range(3):  # parallel scans reorder collect(): the answer must not move
            assert store.rows(query) == [[sum(range(3000)), 0.25 * 2999 / 2, "f0"]]


def test_large_results_stream_as_arrow_with_the_same_values(lbug: Path):
    with open_graph_store(lbug) as store:
        rows = store.rows("MATCH (f:Fact) RETURN f.id, f.n, f.score, f.tags ORDER BY f.n")
        assert len(rows) == 3000
        assert rows[2999] == ["f2999", 2999, 2999 * 0.25, ["t2"]]
        timestamps = store.rows("MATCH (f:Fact) RETURN f.at ORDER BY f.n")
        assert timestamps[1] == [dt.datetime(2026, 4, 1, 10, 0, 1)]
        table = store.arrow("MATCH (f:Fact) RETURN f.id, f.n ORDER BY f.n")
        assert table.num_rows == 3000 and table.column(1).to_pylist()[:3] == [0, 1, 2]


def test_transaction_rolls_back_and_commits(lbug: Path):
    with open_graph_store(lbug, read_only=False) as store:
        with pytest.raises(RuntimeError, match="boom"), store.transaction():
            store.execute("CREATE (:Fact {id: 'gone', n: -1})")
            store.execute("MATCH (f:Fact) WHERE f.n = 5 DETACH DELETE f")
            raise RuntimeError("boom")
        assert store.scalar("MATCH (f:Fact) WHERE f.id = 'gone' OR f.n = 5 RETURN count(f)") == 1
        with store.transaction(), store.transaction():
            store.execute("CREATE (:Fact {id: 'kept', n: -1})")
        assert store.scalar("MATCH (f:Fact) WHERE f.id = 'kept' RETURN count(f)") == 1


def test_copy_rows_and_capped_rows(lbug: Path):
    with open_graph_store(lbug, read_only=False) as store:
        columns = [("id", "STRING"), ("content", "STRING"), ("n", "INT64")]
        rows = [{"id": f"c{i}", "content": f"copied {i}", "n": 10_000 + i} for i in range(500)]
        assert store.copy_rows("Plain", columns, rows)
        assert store.scalar("MATCH (p:Plain) WHERE p.n >= 10000 RETURN count(p)") == 500
        assert not store.copy_rows("Fact", store.columns("Fact"), [])  # TIMESTAMP, STRING[]
        with pytest.raises(QueryError, match="LadybugDB refused a bulk insert into Plain: "):
            store.copy_rows("Plain", columns, rows)  # the same primary keys again
        names, first, more = store.rows_capped("MATCH (f:Fact) RETURN f.id", 3, timeout_ms=5000)
        assert (names, len(first), more) == (["f.id"], 3, True)
        names, everything, more = store.rows_capped(
            "MATCH (f:Fact) WHERE f.n < 2 RETURN f.n ORDER BY f.n", 10, timeout_ms=5000
        )
        assert (everything, more) == ([[0], [1]], False)


SLOW = "MATCH (a:Fact), (b:Fact), (c:Fact) WHERE a.n + b.n + c.n = -7 RETURN count(*)"


def test_interrupt_stops_a_running_query(lbug: Path):
    with open_graph_store(lbug) as store:
        timer = threading.Timer(0.3, store.interrupt)
        timer.start()
        started = time.perf_counter()
        with pytest.raises(QueryError, match="cancelled"):
            store.rows(SLOW)
        assert time.perf_counter() - started < 5
        store.interrupt()  # nothing running: the next query is not affected
        assert store.scalar("RETURN 41 + 1") == 42
        with pytest.raises(QueryError, match="cancelled"):
            store.rows_capped(SLOW, 10, timeout_ms=200)


def test_worker_killed_mid_query_is_a_clear_error(lbug: Path):
    store = open_graph_store(lbug)
    pid = store._worker.process.pid
    threading.Timer(0.3, os.kill, (pid, signal.SIGKILL)).start()
    with pytest.raises(EngineWorkerError, match="killed by signal 9") as raised:
        store.rows(SLOW)
    assert raised.value.path == lbug and "open the store again" in raised.value.hint
    with pytest.raises(EngineWorkerError):
        store.rows("RETURN 1")
    store.close()
    with open_graph_store(lbug) as again:
        assert again.scalar("MATCH (f:Fact) RETURN count(f)") == 3000


def test_locked_store_names_the_other_process(lbug: Path):
    with open_graph_store(lbug, read_only=False):
        import subprocess

        code = (
            "from memexplorer.storage.graph_open import open_graph_store as o\n"
            f"o({str(lbug)!r}, read_only=False)"
        )
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert "StoreLockedError" in result.stderr


def test_missing_ladybug_names_package_version_and_install(lbug: Path, monkeypatch):
    before = _digest(lbug)
    monkeypatch.setitem(sys.modules, "ladybug", None)  # as when it is not installed
    with pytest.raises(UnsupportedEngineError) as raised:
        open_graph_store(lbug)
    assert "storage version 49" in str(raised.value)
    assert "ladybug 0.22.0" in raised.value.hint
    assert "pip install 'memexplorer[ladybug]'" in raised.value.hint
    assert _digest(lbug) == before


def test_ladybug_that_cannot_load_in_the_worker(lbug: Path, tmp_path: Path, monkeypatch):
    stub = tmp_path / "stub" / "ladybug"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("raise ImportError('libstdc++ too old (stub)')\n")
    monkeypatch.setenv("PYTHONPATH", str(stub.parent))
    worker_process.stop_idle_workers()  # idle workers already loaded the real one
    with pytest.raises(UnsupportedEngineError, match="cannot be loaded") as raised:
        open_graph_store(lbug)
    assert "too old (stub)" in str(raised.value)
    assert "pip install 'memexplorer[ladybug]'" in raised.value.hint


def _old_store(tmp_path: Path) -> Path:
    path = tmp_path / "old_db"
    path.write_bytes(gzip.decompress((DATA / "ladybug_v47.lbug.gz").read_bytes()))
    return path


def test_older_store_reads_without_change_and_refuses_a_silent_upgrade(tmp_path: Path):
    old = _old_store(tmp_path)
    before = _digest(old)
    with open_graph_store(old) as store:
        assert store.storage_version == 47
        assert store.rows("MATCH (p:P) RETURN p.id ORDER BY p.id") == [["a"], ["b"]]
    with pytest.raises(StoreUpgradeRequired) as raised:
        open_graph_store(old, read_only=False)
    assert (raised.value.found, raised.value.installed) == (47, 49)
    assert "ladybug 0.20.0 to 0.21.2" in str(raised.value)
    assert _digest(old) == before
    with open_graph_store(old, read_only=False, allow_upgrade=True) as store:
        store.execute("CREATE (:P {id: 'c', n: 3})")
        assert store.storage_version == 49
    assert sniff(old).storage_version == 49


def _with_version(lbug: Path, version: int) -> Path:
    """A copy of ``lbug`` whose header claims another storage version."""
    copy = lbug.with_name(f"version_{version}_db")
    data = bytearray(lbug.read_bytes())
    data[4:12] = struct.pack("<Q", version)
    copy.write_bytes(bytes(data))
    return copy


@pytest.mark.parametrize("version", [50, 60, 2**32])
def test_newer_store_than_installed_is_refused(lbug: Path, version: int):
    newer = _with_version(lbug, version)
    before = newer.read_bytes()
    with pytest.raises(UnsupportedEngineError, match=f"version {version}; .* up to 49"):
        open_graph_store(newer)
    assert newer.read_bytes() == before


@pytest.mark.parametrize("version", [48, 49])
def test_versions_up_to_the_installed_one_open_read_only(lbug: Path, version: int):
    store_path = _with_version(lbug, version)
    before = store_path.read_bytes()
    with open_graph_store(store_path) as store:  # the header is all that differs
        assert store.storage_version == version
        assert store.scalar("MATCH (f:Fact) RETURN count(f)") == 3000
    assert store_path.read_bytes() == before


@pytest.mark.parametrize("version", [1, 39])
def test_older_store_than_any_known_release_is_refused(lbug: Path, version: int):
    older = _with_version(lbug, version)
    with pytest.raises(UnsupportedEngineError, match=f"version {version}, older than any"):
        open_graph_store(older)


def test_the_oldest_known_version_is_left_to_ladybug(lbug: Path):
    # 40 is the oldest version ladybug reads: memexplorer lets ladybug open it, which
    # finds a version-49 body behind the version-40 header damaged.
    with pytest.raises(CorruptStoreError):
        open_graph_store(_with_version(lbug, 40))


def test_factory_picks_the_engine_from_the_header(tmp_path: Path, lbug: Path, kuzu: Path):
    with open_graph_store(kuzu) as store:
        assert (type(store), store.engine, store.storage_version) == (KuzuStore, "kuzu", 39)
    with open_graph_store(lbug) as store:
        assert (type(store), store.engine) == (LadybugStore, "ladybug")
    with pytest.raises(StoreNotFoundError):
        open_graph_store(tmp_path / "missing", read_only=False)
    sqlite = tmp_path / "x.db"
    sqlite.write_bytes(b"SQLite format 3\x00" + b"\0" * 100)
    with pytest.raises(UnsupportedEngineError):
        open_graph_store(sqlite)


def test_hierarchical_memory_on_a_ladybug_store(tmp_path: Path):
    path = tmp_path / "hier" / "ladybug_db"
    path.parent.mkdir()
    open_graph_store(path, read_only=False, create="ladybug").close()
    with HierarchicalMemory("lb-agent", path) as memory:
        first = memory.store_knowledge("Mercury is the closest planet to the Sun", "Mercury")
        memory.store_knowledge("Mercury has no moons at all", "Mercury")
        memory.store_knowledge("Bread needs flour water and yeast", "baking")
        assert memory.graph.engine == "ladybug"
        subgraph = memory.retrieve_subgraph("Mercury planet")
        assert first in {node.node_id for node in subgraph.nodes}
        assert any(edge.relationship == "SIMILAR_TO" for edge in subgraph.edges)
        assert "Mercury" in subgraph.to_llm_context()
        assert memory.get_statistics()["semantic_nodes"] == 3
    assert sniff(path).engine == "ladybug"
    with HierarchicalMemory("lb-agent", path, mode="read") as memory:
        assert len(memory.get_all_facts()) == 3


def test_reference_ladybug_stores_open_read_only_unchanged(ladybug_stores, ladybug_manifest):
    for name, entry in ladybug_manifest["databases"].items():
        path = ladybug_stores / name
        if sniff(path).engine != "ladybug":
            continue
        before = _digest(path)
        with open_graph_store(path) as store:
            for table, info in entry["inventory"]["node_tables"].items():
                count = store.scalar(f"MATCH (n:`{table}`) RETURN count(n)")
                assert count == info["count"], (name, table)
        assert _digest(path) == before, name
