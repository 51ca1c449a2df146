"""Items read by forked children come back as if read one after another here
(``memexplorer stats`` reads a home's stores this way, issue 17).

Each case runs in a fresh one-thread Python (a pytest worker has threads of its
own, and a process with more than one thread never forks), which prints what it
saw as JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from memexplorer.storage.parallel_reads import READERS_VARIABLE

SCRIPT = textwrap.dedent(
    """
    import json, os, sys, threading, time
    from memexplorer.storage.parallel_reads import read_in_parallel, workers_here

    case, scratch = sys.argv[1], sys.argv[2]
    here = os.getpid()
    items = list(range(9))
    out = {"here": here, "workers": workers_here(len(items))}

    def plain(i):
        return [i, os.getpid()]

    def failing(i):
        if i % 2:
            error = ValueError(f"item {i} cannot be read")
            error.pid = os.getpid()
            raise error
        return plain(i)

    def child_dies(i):
        if os.getpid() != here:
            os._exit(3)
        return plain(i)

    def unpicklable(i):
        return (lambda: i) if os.getpid() != here else plain(i)

    def ready():
        return [name for name in os.listdir(scratch) if name.isdigit()]

    def stopped(i):
        if os.getpid() != here:
            open(os.path.join(scratch, str(os.getpid())), "w").close()
            time.sleep(60)
        deadline = time.monotonic() + 20
        while len(ready()) < out["workers"] - 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        raise KeyboardInterrupt

    def tidying(i):
        # a child holds something to remove when stopped (a store's private copy)
        if os.getpid() != here:
            held = os.path.join(scratch, "held", str(os.getpid()))
            os.makedirs(held)
            try:
                stopped(i)
            finally:
                time.sleep(2.5)  # removing it takes a while, as closing a store may
                os.rmdir(held)
        stopped(i)

    def shown(results):
        return [r if isinstance(r, list) else
                [type(r).__name__, str(r), getattr(r, "pid", None)] if isinstance(r, Exception)
                else ["callable", r(), None] for r in results]

    if case == "threads":
        release = threading.Event()
        threading.Thread(target=release.wait).start()
        out["workers"] = workers_here(len(items))
        out["results"] = shown(read_in_parallel(plain, items))
        release.set()
    elif case in ("stopped", "tidying"):
        started = time.monotonic()
        try:
            read_in_parallel(stopped if case == "stopped" else tidying, items)
        except KeyboardInterrupt:
            out["stopped"] = True
        out["seconds"] = time.monotonic() - started
        pids = [int(name) for name in ready()]
        out["children"] = pids
        out["alive"] = [p for p in pids if os.path.exists(f"/proc/{p}")]
        held = os.path.join(scratch, "held")
        out["held"] = os.listdir(held) if os.path.exists(held) else []
    else:
        calls = []
        read = {"plain": plain, "failing": failing, "child_dies": child_dies,
                "unpicklable": unpicklable}[case]
        results = read_in_parallel(read, items, weight=lambda i: 9 - i,
                                   meanwhile=lambda: calls.append(os.getpid()))
        out["results"] = shown(results)
        out["meanwhile"] = calls
    print(json.dumps(out))
    """
)


def _run(case: str, scratch: Path, readers: str | None = "3") -> dict:
    """``readers``: MEMEXPLORER_READERS (None: unset, the cores idle now decide)."""
    env = {k: v for k, v in os.environ.items() if k != READERS_VARIABLE}
    if readers is not None:
        env[READERS_VARIABLE] = readers
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, case, str(scratch)],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_item_comes_back_in_order_read_by_as_many_processes_as_asked(tmp_path):
    out = _run("plain", tmp_path)
    assert out["workers"] == 3
    assert [r[0] for r in out["results"]] == list(range(9))
    readers = {r[1] for r in out["results"]}
    assert len(readers) == out["workers"]
    assert out["here"] in readers  # this process reads a share too
    assert out["meanwhile"] == [out["here"]]  # once, here, whatever the children


def test_an_item_a_child_could_not_read_is_read_again_here_so_its_error_is_raised_here(tmp_path):
    out = _run("failing", tmp_path)
    for index, result in enumerate(out["results"]):
        if index % 2:
            assert result == ["ValueError", f"item {index} cannot be read", out["here"]]
        else:
            assert result[0] == index
    if out["workers"] > 1:  # the even items were read by the children too
        assert len({r[1] for r in out["results"] if isinstance(r[0], int)}) > 1


def test_the_share_of_a_child_that_died_is_read_here(tmp_path):
    out = _run("child_dies", tmp_path)
    assert out["results"] == [[i, out["here"]] for i in range(9)]


def test_a_result_that_cannot_be_sent_back_is_read_again_here(tmp_path):
    out = _run("unpicklable", tmp_path)
    assert out["results"] == [[i, out["here"]] for i in range(9)]


def test_a_stop_here_kills_the_children_at_once(tmp_path):
    out = _run("stopped", tmp_path)
    assert out["stopped"]
    assert len(out["children"]) == out["workers"] - 1
    assert out["alive"] == []  # killed and reaped, not left sleeping for a minute
    assert out["seconds"] < 20


def test_a_stop_here_lets_the_children_let_go_of_what_they_hold(tmp_path):
    """A child stopped as a ctrl+c stops it (SIGINT) undoes what it holds, as a
    plain read here does: a store's private copy in the temporary folder is
    removed, not left behind by a SIGKILL."""
    out = _run("tidying", tmp_path)
    assert out["stopped"]
    assert len(out["children"]) == out["workers"] - 1 == 2
    assert out["held"] == []
    assert out["alive"] == []
    # Both stopped at once, not one after the other (2 x 2.5 s): a stop waits for
    # the slowest child, not for their sum.
    assert out["seconds"] < 4.5


def test_without_a_number_asked_the_idle_cores_decide(tmp_path):
    out = _run("plain", tmp_path, readers=None)
    assert 1 <= out["workers"] <= len(os.sched_getaffinity(0))
    assert len({r[1] for r in out["results"]}) == out["workers"]
    assert [r[0] for r in out["results"]] == list(range(9))


def test_one_reader_asked_reads_here_alone(tmp_path):
    out = _run("plain", tmp_path, readers="1")
    assert out["workers"] == 1
    assert out["results"] == [[i, out["here"]] for i in range(9)]


def test_a_process_with_another_thread_never_forks(tmp_path):
    out = _run("threads", tmp_path)
    assert out["workers"] == 1
    assert out["results"] == [[i, out["here"]] for i in range(9)]
