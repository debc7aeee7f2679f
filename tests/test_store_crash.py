"""Crash safety: writer processes are SIGKILLed mid-run, again and again.

Each writer records a put only after ``put`` returned (an acknowledged put). After every kill,
every acknowledged put must be present and intact (its bytes re-hash to its digest) and
SQLite's integrity check must pass. Half the trials fork while the parent holds the store
open, so the children also have inherited connections to drop."""

from __future__ import annotations

import os
import random
import signal
import threading
import time
import traceback
from pathlib import Path

import pytest

from provgate.store import SourceStore
from store_helpers import content_for, integrity

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() and SIGKILL are POSIX only"),
]

TRIALS = 24
WRITERS = 3
THREADS = 2


def _writer(store_path, inherited, trial: int, writer: int, ack_path) -> None:
    """Child process body: put until killed; never returns."""
    def fail(code: int) -> None:
        # The parent reports this traceback when the writer did not die by SIGKILL.
        Path(f"{ack_path}.err").write_text(traceback.format_exc())
        os._exit(code)

    try:
        store = inherited if inherited is not None else SourceStore(store_path)
        ack = os.open(ack_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)

        def loop(t: int) -> None:
            try:
                i = 0
                while True:
                    handle = f"tool:trial{trial}_w{writer}_t{t}_{i}"
                    digest = store.put(handle, content_for(handle), kind="tool_output")
                    os.write(ack, f"{handle}\t{digest}\n".encode())  # only after put returned
                    i += 1
            except BaseException:  # noqa: BLE001 - an exit code the parent can see
                fail(3)

        threads = [threading.Thread(target=loop, args=(t,), daemon=True) for t in range(THREADS)]
        for th in threads:
            th.start()
        while True:
            time.sleep(1)
    except BaseException:  # noqa: BLE001
        fail(2)
    finally:
        os._exit(2)


def _acknowledged(ack_path) -> list[tuple[str, str]]:
    if not os.path.exists(ack_path):
        return []
    lines = ack_path.read_bytes().decode().split("\n")
    # The last element is "" after a complete line, or a torn line cut by the kill: not acked.
    return [tuple(line.split("\t")) for line in lines[:-1]]


def _wait_for_first_ack(ack_paths, limit_s: float = 20.0) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if any(os.path.exists(p) and os.path.getsize(p) > 0 for p in ack_paths):
            return
        time.sleep(0.002)
    raise AssertionError("no writer acknowledged a put in time")


def test_sigkill_never_loses_an_acknowledged_put(tmp_path):
    path = tmp_path / "crash.sqlite3"
    rng = random.Random(8841)
    acknowledged: dict[str, str] = {}
    for trial in range(TRIALS):
        parent = SourceStore(path) if trial % 2 else None
        ack_paths = [tmp_path / f"ack_{trial}_{w}.txt" for w in range(WRITERS)]
        pids = []
        for w in range(WRITERS):
            pid = os.fork()
            if pid == 0:
                _writer(path, parent, trial, w, ack_paths[w])
            pids.append(pid)
        if trial % 4 == 3:
            time.sleep(rng.uniform(0, 0.03))  # sometimes before anything was acknowledged
        else:
            _wait_for_first_ack(ack_paths)
            time.sleep(rng.uniform(0.02, 0.4))
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        for pid, ack_path in zip(pids, ack_paths):
            _, status = os.waitpid(pid, 0)
            # Killed, not exited: the writers were mid-run and saw no exception.
            err = Path(f"{ack_path}.err")
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (
                f"trial {trial}: writer exited with status {status}:\n"
                + (err.read_text() if err.exists() else "(no traceback)")
            )
        if parent is not None:
            parent.close()

        trial_acks = [a for p in ack_paths for a in _acknowledged(p)]
        with SourceStore(path) as store:
            for handle, digest in trial_acks:
                assert store.digest(handle) == digest
                assert store.get(handle) == content_for(handle)  # get re-hashes the bytes
                acknowledged[handle] = digest
        assert integrity(path) == ["ok"], f"trial {trial}"

    assert len(acknowledged) >= TRIALS  # the writers really did work before being killed
    with SourceStore(path) as store:
        assert store.verify() == []
        assert set(acknowledged) <= set(store)
        # Puts that were in flight at the kill may have landed too; nothing else did.
        assert all(h.startswith("tool:trial") for h in store)
