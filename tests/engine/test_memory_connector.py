"""MemoryConnector on both backends: API §3 and §7, read-only opening, bad input."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from memexplorer.memory.connector import MemoryConnector
from memexplorer.memory.experience import Experience, ExperienceType
from memexplorer.storage.exceptions import (
    CorruptStoreError,
    InvalidExperienceError,
    MemoryError,
    StoreClosedError,
    StoreLockedError,
    StorePermissionError,
)
from tests.store_helpers import checksums, held_by_another_process

BACKENDS = ("sqlite", "kuzu")
FILES = {"sqlite": "experiences.db", "kuzu": "kuzu_db"}


def exp(context: str, outcome: str = "Result", confidence: float = 0.8, **kw) -> Experience:
    kind = kw.pop("experience_type", ExperienceType.SUCCESS)
    return Experience(kind, context, outcome, confidence, **kw)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path / "home"


# -- construction and attributes -------------------------------------------------------------


def test_default_path_and_backend(home: Path) -> None:
    with MemoryConnector("agent-a") as connector:
        assert connector.backend_type == "sqlite"
        assert connector.storage_path == home / ".amplihack" / "memory" / "agent-a"
        assert connector.db_path == connector.storage_path / "experiences.db"
        assert connector.db_path.is_file()
        assert connector.max_memory_mb == 100
        assert connector.enable_compression is True
        header = connector.db_path.read_bytes()[:20]
        assert header[18] == header[19] == 2  # WAL mode


def test_attributes_and_kuzu_path(tmp_path: Path, backend: str) -> None:
    folder = tmp_path / "deep" / "store"
    with MemoryConnector(
        "agent-a", storage_path=folder, max_memory_mb=5, enable_compression=False, backend=backend
    ) as connector:
        assert connector.agent_name == "agent-a"
        assert connector.storage_path == folder
        assert connector.max_memory_mb == 5
        assert connector.enable_compression is False
        assert connector.backend_type == backend
        assert connector.db_path == folder / FILES[backend]
        assert connector.db_path.exists()


def test_new_sqlite_store_has_reference_schema(tmp_path: Path) -> None:
    with MemoryConnector("a", storage_path=tmp_path) as connector:
        conn = connector._connection
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        for name in ("experiences", "experiences_fts", "idx_agent_name", "idx_experience_type",
                     "idx_timestamp", "idx_confidence", "idx_agent_type"):  # fmt: skip
            assert name in names
        fts = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'experiences_fts'")
        assert "tokenize='porter'" in fts.fetchone()[0]
        table = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'experiences'")
        assert "experience_id TEXT PRIMARY KEY" in table.fetchone()[0]


@pytest.mark.parametrize("name", ["", " ", None])
def test_blank_agent_name(tmp_path: Path, name: object) -> None:
    with pytest.raises(ValueError, match="empty"):
        MemoryConnector(name, storage_path=tmp_path / "x")  # type: ignore[arg-type]
    assert not (tmp_path / "x").exists()


def test_default_path_refuses_a_name_that_climbs(home: Path) -> None:
    with pytest.raises(ValueError):
        MemoryConnector("../escape")
    assert not home.exists()


@pytest.mark.parametrize("size", [0, -100])
def test_max_memory_must_be_positive(tmp_path: Path, size: int) -> None:
    with pytest.raises(ValueError, match="max_memory_mb"):
        MemoryConnector("a", storage_path=tmp_path / "x", max_memory_mb=size)
    assert not (tmp_path / "x").exists()


def test_unknown_backend(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="Unknown backend") as info:
        MemoryConnector("a", storage_path=tmp_path / "x", backend="graph-db")
    assert isinstance(info.value, MemoryError)
    assert not (tmp_path / "x").exists()


def _unwritable(tmp_path: Path) -> Path:
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        return locked / "agent"
    candidate = Path("/sys/memexplorer-test/agent")
    try:
        candidate.mkdir(parents=True)
    except PermissionError:
        return candidate
    except OSError:
        pass
    pytest.skip("no path here refuses root")


def test_unwritable_path(tmp_path: Path, backend: str) -> None:
    path = _unwritable(tmp_path)
    with pytest.raises(PermissionError) as info:
        MemoryConnector("a", storage_path=path, backend=backend)
    assert isinstance(info.value, StorePermissionError)
    assert not path.exists()


@pytest.mark.parametrize(
    "content",
    [b"This is not a valid SQLite database", b"SQLite format 3\x00" + b"\xff" * 200],
    ids=["text", "damaged-header"],
)
def test_not_a_database(tmp_path: Path, backend: str, content: bytes) -> None:
    db = tmp_path / FILES[backend]
    db.write_bytes(content)
    before = checksums(tmp_path)
    with pytest.raises(MemoryError) as info:
        MemoryConnector("a", storage_path=tmp_path, backend=backend)
    text = str(info.value).lower()
    assert "corrupted" in text or "invalid" in text
    assert checksums(tmp_path) == before


def test_sqlite_corrupt_is_corrupt_store_error(tmp_path: Path) -> None:
    (tmp_path / "experiences.db").write_text("This is not a valid SQLite database")
    with pytest.raises(CorruptStoreError):
        MemoryConnector("a", storage_path=tmp_path)


def test_construction_is_fast(tmp_path: Path) -> None:
    MemoryConnector("warm", storage_path=tmp_path / "warm").close()
    start = time.perf_counter()
    connector = MemoryConnector("perf", storage_path=tmp_path / "perf")
    elapsed = time.perf_counter() - start
    connector.close()
    assert elapsed < 0.5  # the benchmark holds the 100 ms target; this guards regressions


# -- storing and reading ---------------------------------------------------------------------


def test_store_retrieve_filters(tmp_path: Path, backend: str) -> None:
    now = datetime.now()
    with MemoryConnector("a", storage_path=tmp_path, backend=backend) as connector:
        ids = [
            connector.store_experience(exp("old", confidence=0.5, timestamp=now - timedelta(1))),
            connector.store_experience(
                exp(
                    "new",
                    confidence=0.9,
                    timestamp=now,
                    experience_type=ExperienceType.PATTERN,
                    metadata={"k": [1, 2]},
                    tags=["x", "y"],
                )
            ),
        ]
        assert all(i.startswith("exp_") for i in ids)
        got = connector.retrieve_experiences()
        assert [e.context for e in got] == ["new", "old"]  # newest first
        assert got[0].metadata == {"k": [1, 2]} and got[0].tags == ["x", "y"]
        assert got[0].experience_id == ids[1]
        assert got[0].experience_type is ExperienceType.PATTERN
        assert [e.context for e in connector.retrieve_experiences(limit=1)] == ["new"]
        pattern = connector.retrieve_experiences(experience_type=ExperienceType.PATTERN)
        assert [e.context for e in pattern] == ["new"]
        assert [e.context for e in connector.retrieve_experiences(min_confidence=0.6)] == ["new"]


def test_duplicate_id_is_refused(tmp_path: Path, backend: str) -> None:
    with MemoryConnector("a", storage_path=tmp_path, backend=backend) as connector:
        one = exp("same")
        connector.store_experience(one)
        with pytest.raises(InvalidExperienceError, match="already stored"):
            connector.store_experience(one)
        assert len(connector.retrieve_experiences()) == 1


def test_data_persists_across_instances(tmp_path: Path, backend: str) -> None:
    with MemoryConnector("a", storage_path=tmp_path, backend=backend) as connector:
        stored = connector.store_experience(exp("kept"))
    with MemoryConnector("a", storage_path=tmp_path, backend=backend) as again:
        assert [e.experience_id for e in again.retrieve_experiences()] == [stored]


RESTART = """
import sys
from datetime import datetime
from pathlib import Path
from memexplorer.memory.connector import MemoryConnector
from memexplorer.memory.experience import Experience, ExperienceType
with MemoryConnector("a", storage_path=Path(sys.argv[1]), backend=sys.argv[2]) as c:
    if sys.argv[3] == "write":
        c.store_experience(Experience(ExperienceType.INSIGHT, "from another process", "ok", 0.7,
                                      timestamp=datetime(2026, 1, 2, 3, 4, 5)))
    print(",".join(e.experience_id for e in c.retrieve_experiences()))
"""


def test_store_reads_back_in_a_new_process(tmp_path: Path, backend: str) -> None:
    def run(mode: str) -> str:
        result = subprocess.run(
            [sys.executable, "-c", RESTART, str(tmp_path), backend, mode],
            capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2],
        )  # fmt: skip
        return result.stdout.strip()

    written = run("write")
    with MemoryConnector("a", storage_path=tmp_path, backend=backend) as connector:
        mine = connector.store_experience(exp("from this process"))
        found = connector.retrieve_experiences()
        assert [e.experience_id for e in found] == [mine, written]
        assert found[1].timestamp == datetime(2026, 1, 2, 3, 4, 5)
    assert run("read") == f"{mine},{written}"


def test_agents_are_isolated_under_one_path(tmp_path: Path, backend: str) -> None:
    one = MemoryConnector("agent-1", storage_path=tmp_path, backend=backend)
    two = MemoryConnector("agent-2", storage_path=tmp_path, backend=backend)
    try:
        one.store_experience(exp("Secure data of agent one", "Sensitive result"))
        two.store_experience(exp("Agent two's note"))
        assert [e.context for e in one.retrieve_experiences()] == ["Secure data of agent one"]
        assert [e.context for e in two.retrieve_experiences()] == ["Agent two's note"]
        assert two.search("secure") == []
        assert [e.context for e in two.search("")] == ["Agent two's note"]
        assert two.get_statistics()["total_experiences"] == 1
        intruder = MemoryConnector("intruder", storage_path=tmp_path, backend=backend)
        assert intruder.retrieve_experiences() == []
        assert intruder.search("Sensitive") == []
        assert intruder.get_statistics()["total_experiences"] == 0
        intruder.close()
    finally:
        one.close()
        two.close()


def test_four_threads_ten_stores_each(tmp_path: Path, backend: str) -> None:
    connector = MemoryConnector("busy", storage_path=tmp_path, backend=backend)
    errors: list[BaseException] = []

    def work(thread: int) -> None:
        try:
            for i in range(10):
                connector.store_experience(exp(f"Thread {thread} experience {i}"))
                connector.search(f"thread {thread}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(connector.retrieve_experiences()) == 40
    assert connector.get_statistics()["total_experiences"] == 40
    connector.close()


def test_close_then_any_call_raises(tmp_path: Path, backend: str) -> None:
    connector = MemoryConnector("a", storage_path=tmp_path, backend=backend)
    connector.close()
    connector.close()  # twice is fine
    calls = [
        lambda: connector.retrieve_experiences(),
        lambda: connector.search("x"),
        lambda: connector.store_experience(exp("late")),
        lambda: connector.get_statistics(),
    ]
    for call in calls:
        with pytest.raises(StoreClosedError, match="closed"):
            call()


def test_context_manager_closes(tmp_path: Path, backend: str) -> None:
    with MemoryConnector("a", storage_path=tmp_path, backend=backend) as connector:
        connector.store_experience(exp("inside"))
    assert connector.closed
    with pytest.raises(StoreClosedError):
        connector.retrieve_experiences()


# -- existing stores: read-only until the first write ----------------------------------------


def _make_store(folder: Path, backend: str, n: int = 5) -> None:
    with MemoryConnector("a", storage_path=folder, backend=backend) as connector:
        for i in range(n):
            connector.store_experience(exp(f"deploy number {i}", "rolled out fine"))


def test_reading_changes_nothing(tmp_path: Path, backend: str) -> None:
    _make_store(tmp_path, backend)
    if backend == "sqlite":
        header = (tmp_path / "experiences.db").read_bytes()[:20]
        assert header[18] == header[19] == 2  # a WAL-mode file
    before = checksums(tmp_path)
    with MemoryConnector("a", storage_path=tmp_path, backend=backend) as connector:
        assert connector.read_only
        assert len(connector.retrieve_experiences()) == 5
        assert len(connector.search("deploys")) == 5
        assert connector.get_statistics()["total_experiences"] == 5
        assert connector.read_only
    assert checksums(tmp_path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [FILES[backend]]


def test_first_write_switches_to_writing(tmp_path: Path, backend: str) -> None:
    _make_store(tmp_path, backend, n=1)
    with MemoryConnector("a", storage_path=tmp_path, backend=backend) as connector:
        assert connector.read_only
        connector.store_experience(exp("after reopening"))
        assert not connector.read_only
        assert len(connector.retrieve_experiences()) == 2


def test_sqlite_reader_sees_another_writer(tmp_path: Path) -> None:
    _make_store(tmp_path, "sqlite", n=1)
    with MemoryConnector("a", storage_path=tmp_path) as reader:
        assert len(reader.retrieve_experiences()) == 1
        with MemoryConnector("a", storage_path=tmp_path) as writer:
            writer.store_experience(exp("written meanwhile"))
            assert len(reader.retrieve_experiences()) == 2
        assert reader.read_only


def test_kuzu_store_held_for_writing_elsewhere(tmp_path: Path) -> None:
    _make_store(tmp_path, "kuzu", n=1)
    with held_by_another_process(tmp_path / "kuzu_db", "rw"):
        before = checksums(tmp_path)  # the holder's own open may rewrite the file
        with pytest.raises(StoreLockedError) as info:
            MemoryConnector("a", storage_path=tmp_path, backend="kuzu")
        assert "another process" in info.value.hint.lower()
        assert checksums(tmp_path) == before


def test_kuzu_store_read_elsewhere_refuses_writes(tmp_path: Path) -> None:
    _make_store(tmp_path, "kuzu", n=1)
    before = checksums(tmp_path)
    with (
        held_by_another_process(tmp_path / "kuzu_db", "ro"),
        MemoryConnector("a", storage_path=tmp_path, backend="kuzu") as connector,
    ):
        assert len(connector.retrieve_experiences()) == 1
        with pytest.raises(StoreLockedError):
            connector.store_experience(exp("refused"))
        assert connector.read_only
        assert len(connector.retrieve_experiences()) == 1
    assert checksums(tmp_path) == before


# -- the reference stores ---------------------------------------------------------------------

REFERENCE = "home/.amplihack/memory/ops-agent"


def test_reference_stores_read_only(reference_stores: Path, manifest: dict, backend: str) -> None:
    folder = reference_stores / REFERENCE
    before = checksums(folder)
    entry = manifest["databases"][f"{REFERENCE}/{FILES[backend]}"]
    expected = entry["generation"]["statistics"]
    with MemoryConnector("ops-agent", storage_path=folder, backend=backend) as connector:
        assert connector.read_only
        stats = connector.get_statistics()
        assert stats["total_experiences"] == expected["total_experiences"] == 122
        assert {k.value: v for k, v in stats["by_type"].items()} == expected["by_type"]
        assert stats["compressed_experiences"] == expected["compressed_experiences"]
        everything = connector.retrieve_experiences()
        assert len(everything) == 122
        assert [e.timestamp for e in everything] == sorted(
            (e.timestamp for e in everything), reverse=True
        )
        audited = {a["id"] for a in entry["inventory"]["credential_audit"]}
        assert audited <= {e.experience_id for e in everything}
        leaked = connector.search("leaked tokens")
        assert [e.experience_id for e in leaked] == ["exp_20261119_120000_1fdbe7"]
    with MemoryConnector("someone-else", storage_path=folder, backend=backend) as other:
        assert other.retrieve_experiences() == []
    assert checksums(folder) == before
