"""The shared graph: the limits it opens with, and its reopen for writing.

A shared graph being reopened read-write is waited for, not reported closed:
``make_writable`` closes the read-only store and opens it again for writing;
until the new store is open the handle holds none. Another thread asking the
handle meanwhile (a memory checking ``read_only`` before it writes) must wait
for the swap, as queries do, and then see the writable store.
"""

from __future__ import annotations

import threading

from memexplorer.storage import shared_graph
from memexplorer.storage.shared_graph import acquire_graph, release_graph

MiB = 1024 * 1024


def test_every_open_of_a_shared_graph_keeps_the_first_openers_limits(tmp_path, kuzu_opens):
    opened = kuzu_opens
    path = tmp_path / "limits.kuzu"
    release_graph(acquire_graph(path, create=True))  # 0: the engine's pool, its size
    shared = acquire_graph(path, create=False, buffer_pool_size=48 * MiB, max_db_size=1024 * MiB)
    shared.make_writable()
    release_graph(shared)
    assert opened == [
        {"read_only": False, "buffer_pool_size": 0},
        {"read_only": True, "buffer_pool_size": 48 * MiB, "max_db_size": 1024 * MiB},
        {"read_only": False, "buffer_pool_size": 48 * MiB, "max_db_size": 1024 * MiB},
    ]


def test_read_only_waits_for_the_reopen_for_writing(tmp_path, monkeypatch):
    path = tmp_path / "shared.kuzu"
    release_graph(acquire_graph(path, create=True))  # a new store, closed again
    shared = acquire_graph(path, create=False)  # an existing store opens read-only
    assert shared.read_only

    reopening, go_on = threading.Event(), threading.Event()
    real_open = shared_graph._open

    def slow_open(where, *, read_only, **options):
        if not read_only:
            reopening.set()
            assert go_on.wait(10)
        return real_open(where, read_only=read_only, **options)

    monkeypatch.setattr(shared_graph, "_open", slow_open)
    writer = threading.Thread(target=shared.make_writable)
    writer.start()
    try:
        assert reopening.wait(10)
        seen: list[object] = []
        asking, asked = threading.Event(), threading.Event()

        def ask() -> None:
            asking.set()
            try:
                seen.append(shared.read_only)
            except Exception as exc:  # what a reader met before the swap was waited for
                seen.append(exc)
            asked.set()

        reader = threading.Thread(target=ask)
        reader.start()
        assert asking.wait(10)
        assert not asked.wait(0.5), f"answered during the swap: {seen}"
    finally:
        go_on.set()
        writer.join(10)
    reader.join(10)
    assert seen == [False]
    release_graph(shared)
