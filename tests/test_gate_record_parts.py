"""A check's audit record too big for one row of a store configured small: the violations are
told shorter, and what the session keeps (pins, reads, refused summaries) is continued in
records written with it in one transaction, so that the check gives its verdict and a resumed
session holds all of it (red team 98, F01)."""

from __future__ import annotations

import math

import pytest
from gate_helpers import blk, find, summary, tool

from provgate.errors import InvalidArgumentError, LimitExceededError
from provgate.gate import Gate
from provgate.report import session_report
from provgate.store import SourceStore

LIMIT = 20_000


def _pinned_window(store, n):
    turn = "Please deploy build 4471 to staging only, never prod.\n"
    store.put("user:u1", turn)
    window = [blk("b0", "user", turn, handles=["user:u1"], pinned=True)]
    for i in range(n):
        text = f"note {i}: keep exactly as is\n"
        store.put(f"tool:pin_{i:04d}", text)
        window.append(tool(f"p{i}", f"tool:pin_{i:04d}", text, pinned=True))
    return window


def test_a_record_too_big_for_its_pins_is_continued_and_a_resume_holds_every_pin(tmp_path):
    path = str(tmp_path / "s.sqlite3")
    store = SourceStore(path, max_content_bytes=LIMIT)
    window = _pinned_window(store, 300)
    live = Gate(store, session="S")
    assert live.check(window, window, operator="reorder").accepted  # (it raised LimitExceededError)
    records = [r for _, r in store.iter_audit_of_session("S")]
    assert len(records) > 2 and records[0]["cycle"] == 1 and all(r.get("continues") is True for r in records[1:])
    assert all(len(repr(r)) < LIMIT for r in records)
    resumed = Gate(SourceStore(path, max_content_bytes=LIMIT), session="S")
    assert resumed.pins == live.pins and len(live.pins[0]) == 602
    # the pinned turn, its flag lost on a re-render, may not be summarized, live or resumed
    unpinned = dict(window[0], pinned=False)
    post = [summary("s1", "The user asked to deploy build 4471 to staging.\n", ["user:u1"])]
    for gate in (live, resumed):
        find(gate.check([unpinned], post, operator="summarize"), "R", block="b0")
    report = session_report(store, session="S")
    assert report.sessions[0].totals["cycles"] == 3  # (the continuing records are no cycles)


def test_a_record_too_big_for_its_reads_is_continued_in_order(tmp_path):
    path = str(tmp_path / "s.sqlite3")
    store = SourceStore(path, max_content_bytes=LIMIT)
    reads = []
    for i in range(400):
        store.put(f"tool:read_{i:04d}", f"retries={i}\n")
        reads.append(tool(f"r{i}", f"tool:read_{i:04d}", f"retries={i}\n", resource="file:app.ini",
                          ts=None if i % 3 else float(i)))
    live = Gate(store, session="S")
    assert live.check(reads, reads, operator="reorder", commit=True).accepted
    resumed = Gate(SourceStore(path, max_content_bytes=LIMIT), session="S")
    assert resumed._read_log == live._read_log and len(live._read_log["file:app.ini"]) == 400


def test_append_audit_many_writes_all_or_nothing(tmp_path):
    store = SourceStore(str(tmp_path / "s.sqlite3"), max_content_bytes=LIMIT)
    seqs = store.append_audit_many([{"session": "S", "n": 1}, {"session": "S", "part": True}])
    assert seqs == sorted(seqs) and len(seqs) == 2
    before = list(store.iter_audit())
    with pytest.raises(LimitExceededError):
        store.append_audit_many([{"session": "S", "n": 2}, {"session": "S", "x": "y" * LIMIT}])
    with pytest.raises(InvalidArgumentError, match=r"records\[1\]"):
        store.append_audit_many([{"session": "S", "n": 2}, {"session": "S", "x": math.nan}])
    with pytest.raises(InvalidArgumentError, match="records must be a list"):
        store.append_audit_many({"session": "S"})
    assert list(store.iter_audit()) == before
