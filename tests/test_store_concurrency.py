"""Several threads and processes writing into one store file at once.

Every put that returned must be present and intact afterwards, and no writer may see an
exception ("database is locked" included)."""

from __future__ import annotations

import multiprocessing
import threading

import pytest

from provgate.store import SourceStore
from store_helpers import SHARED_HANDLES, concurrent_writer, content_for, integrity, set_inherited_store

PROCESSES = 4
THREADS = 2
PER_THREAD = 150


def _check_all_acknowledged(store: SourceStore, acked: list[tuple[str, str]]) -> dict[str, str]:
    expected: dict[str, str] = {}
    for handle, digest in acked:
        assert expected.setdefault(handle, digest) == digest, f"{handle} acknowledged with two digests"
    assert set(store.unresolved(expected)) == set()
    texts = store.get_many(expected)  # verified: every body re-hashed
    for handle, digest in expected.items():
        assert store.digest(handle) == digest
        assert texts[handle] == content_for(handle)
    return expected


@pytest.mark.slow
@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_processes_and_threads_write_at_once_and_lose_nothing(tmp_path, start_method):
    path = tmp_path / "shared.sqlite3"
    ctx = multiprocessing.get_context(start_method)
    # The parent keeps its store open the whole time: with fork, children inherit its
    # connections and must not use them.
    store = SourceStore(path)
    store.put("tool:parent", "opened by the parent before the workers")
    set_inherited_store(store if start_method == "fork" else None)
    results = ctx.Queue()
    try:
        workers = [
            ctx.Process(target=concurrent_writer, args=(str(path), w, THREADS, PER_THREAD, results))
            for w in range(PROCESSES)
        ]
        for proc in workers:
            proc.start()
        reports = [results.get(timeout=300) for _ in workers]  # drain before join
        for proc in workers:
            proc.join(timeout=60)
            assert proc.exitcode == 0
    finally:
        set_inherited_store(None)

    errors = [e for _, _, errs in reports for e in errs]
    assert errors == [], errors[0] if errors else ""
    acked = [a for _, acks, _ in reports for a in acks]
    assert len({w for w, _, _ in reports}) == PROCESSES

    # The parent's own (still open) store sees everything; so does a fresh one.
    expected = _check_all_acknowledged(store, acked)
    unique = PROCESSES * THREADS * PER_THREAD
    assert len(expected) == unique + len(SHARED_HANDLES)
    assert len(store) == unique + len(SHARED_HANDLES) + 1
    audits = list(store.iter_audit())
    assert len(audits) == PROCESSES * THREADS * len(range(0, PER_THREAD, 25))
    assert [seq for seq, _ in audits] == sorted(seq for seq, _ in audits)
    store.close()
    with SourceStore(path) as fresh:
        _check_all_acknowledged(fresh, acked)
        assert fresh.verify() == []
    assert integrity(path) == ["ok"]


def test_many_threads_one_file_store(tmp_path):
    path = tmp_path / "threads.sqlite3"
    errors: list[BaseException] = []
    acked: list[tuple[str, str]] = []
    lock = threading.Lock()
    with SourceStore(path) as store:

        def run(t: int) -> None:
            try:
                for i in range(60):
                    handle = f"tool:t{t}_{i}"
                    digest = store.put(handle, content_for(handle))
                    with lock:
                        acked.append((handle, digest))
                    assert store.get(handle) == content_for(handle)  # read-your-write, per thread
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(t,)) for t in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert errors == []
        assert len(_check_all_acknowledged(store, acked)) == 8 * 60
    assert integrity(path) == ["ok"]


def test_busy_errors_that_escape_sqlites_handler_are_retried(tmp_path, monkeypatch):
    """SQLite does not call its busy handler in some cases (e.g. WAL recovery by another
    connection); those SQLITE_BUSY errors must be retried, not passed to the caller."""
    import sqlite3

    real = SourceStore._transaction
    injected = []

    def flaky(raw, fn):
        if len(injected) < 3:
            injected.append(1)
            raise sqlite3.OperationalError("database is locked")
        return real(raw, fn)

    with SourceStore(tmp_path / "retry.sqlite3") as store:
        monkeypatch.setattr(SourceStore, "_transaction", staticmethod(flaky))
        assert store.put("tool:a", "A") == store.digest("tool:a")
        assert len(injected) == 3
        assert list(store) == ["tool:a"]


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="fork() is POSIX only")
def test_many_processes_create_a_fresh_store_at_once(tmp_path):
    """Opening races creation: whoever loses must see the finished schema, never a half view
    (header read before another process committed, tables read after)."""
    import os

    for attempt in range(30):
        path = tmp_path / f"fresh_{attempt}.sqlite3"
        go_r, go_w = os.pipe()
        pids = []
        for w in range(4):
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    os.read(go_r, 1)  # start together
                    with SourceStore(path) as s:
                        s.put(f"tool:w{w}", f"writer {w}")
                    code = 0
                finally:
                    os._exit(code)
            pids.append(pid)
        os.write(go_w, b"xxxx")
        statuses = [os.waitpid(pid, 0)[1] for pid in pids]
        os.close(go_r)
        os.close(go_w)
        assert statuses == [0, 0, 0, 0], f"attempt {attempt}: {statuses}"
        with SourceStore(path) as s:
            assert sorted(s) == [f"tool:w{w}" for w in range(4)]
