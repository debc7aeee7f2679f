"""One session shared by several writers (red team 132, F06): a long-lived ``Gate(store,
session=S)`` brings the session up to date from the audit log before it checks when another
writer (a process of a worker pool, another Gate of the store) recorded checks of it since it
last looked, so it judges as a freshly resumed gate does; cycle numbers stay unique per session;
a resumed gate's ``history`` holds the session's rows. Run natively and with
PROVGATE_NO_EXTENSIONS=1 (the suite runs once each way; the child processes inherit it)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from provgate.gate import Gate
from provgate.report import session_report
from provgate.store import SourceStore

SRC = Path(__file__).resolve().parent.parent / "src"
INS = "Never push to main. Keep retries at 3.\n"
F1 = "# app.conf\nretries=3\ntimeout=30\n"
F2 = "# app.conf\nretries=4\ntimeout=30\n"


def B(id, role, text, handles=(), **kw):
    return {"id": id, "role": role, "text": text, "handles": list(handles), **kw}


U0 = B("u0", "user", INS, ["user:u0"], pinned=True)
U0_UNFLAGGED = B("u0", "user", INS, ["user:u0"])
R1 = B("r1", "tool", F1, ["tool:r1"], ts=100.0, resource="file:app.conf")
R2 = B("r2", "tool", F2, ["tool:r2"], ts=200.0, resource="file:app.conf")
A = B("a1", "assistant", "Looked at the config; nothing to change yet.\n")
S_PIN = B("s", "summary", "The user said never push to main and keep retries at 3.\n", derived=True,
          derived_from=["user:u0"])
S_OLD = B("s2", "summary", "app.conf: retries=3, timeout=30.\n", derived=True, derived_from=["tool:r1"])
# what the other writer commits: the user's instruction pinned, then both reads with r1 superseded
SETUP = f"""
U0, R1, R2, A = {U0!r}, {R1!r}, {R2!r}, {A!r}
supersedes = [dict(block="r2", handle="tool:r1")]
for pre, post, kw in (([U0, A], [U0, A], dict(operator="reorder")),
                      ([U0, R1, R2, A], [U0, R2, A], dict(operator="prune", supersedes=supersedes))):
    assert gate.check(pre, post, commit=True, **kw).accepted
"""
CHILD = textwrap.dedent("""
    import sys
    from provgate.gate import Gate
    from provgate.store import SourceStore
    store = SourceStore(sys.argv[1])
    gate = Gate(store, session=sys.argv[2])
    exec(sys.argv[3])
""")


def _spawn(path: str, session: str, code: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen([sys.executable, "-c", CHILD, path, session, code], env=env)


def _in_child(path: str, session: str, code: str) -> None:
    assert _spawn(path, session, code).wait(timeout=300) == 0


def _store(tmp_path) -> tuple[SourceStore, str]:
    path = str(tmp_path / "s.sqlite3")
    store = SourceStore(path)
    for h, t in (("user:u0", INS), ("tool:r1", F1), ("tool:r2", F2)):
        store.put(h, t)
    return store, path


def _violated(verdict) -> set[str]:
    return {v.invariant for v in verdict.violations}


def test_a_gate_made_before_another_process_committed_judges_with_its_pins_and_reads(tmp_path):
    store, path = _store(tmp_path)
    live = Gate(store, session="shared")  # a worker's gate, made before the other worker's checks
    idle = Gate(store, session="other")  # (a session the other worker never wrote)
    _in_child(path, "shared", SETUP)
    # lie: the pinned turn summarized with its flag lost in a re-render; the older read shown
    # again alone after the newer superseded it, summarized with its stale value
    pin = live.check([U0_UNFLAGGED, A], [S_PIN, A], operator="summarize")
    stale = live.check([R1, A], [S_OLD, A], operator="summarize")
    assert not pin.accepted and _violated(pin) == {"R"}
    assert not stale.accepted and _violated(stale) == {"I4"}
    # as a gate resumed now judges them
    fresh = Gate(store, session="shared", audit=False)
    for verdict, (pre, post) in ((pin, ([U0_UNFLAGGED, A], [S_PIN, A])), (stale, ([R1, A], [S_OLD, A]))):
        again = fresh.check(pre, post, operator="summarize")
        assert (again.accepted, _violated(again)) == (verdict.accepted, _violated(verdict))
    # honest control: the same edits in a session the other process never wrote are accepted
    assert idle.check([U0_UNFLAGGED, A], [S_PIN, A], operator="summarize").accepted
    assert idle.check([R1, A], [S_OLD, A], operator="summarize").accepted
    # the live gate's cycles follow the other process's, and its history holds them all
    assert [r.cycle for r in live.history] == [1, 2, 3, 4]
    assert [r.accepted for r in live.history] == [True, True, False, False]


PROC = """
import os, time
tag, go = sys.argv[4], sys.argv[5]
open(go + "." + tag, "w").close()  # (its gate is made: both are made before either checks)
while not os.path.exists(go):
    time.sleep(0.01)
for i in range(15):
    h = f"tool:{tag}{i}"; t = f"out_{tag}_{i}={i}\\n"; store.put(h, t)
    pre = [{"id": "x", "role": "tool", "text": t, "handles": [h]},
           {"id": "a", "role": "assistant", "text": f"out_{tag}_{i} is {i} [src:{tag}{i}].\\n", "handles": []}]
    assert gate.check(pre, pre[1:], operator="prune", evicted=[h], commit=True).accepted
"""


def test_two_processes_of_one_session_write_cycle_numbers_once_each(tmp_path):
    store, path = _store(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    go = str(tmp_path / "go")
    children = [subprocess.Popen([sys.executable, "-c", CHILD, path, "shared", PROC, tag, go], env=env) for tag in "pq"]
    while not all(os.path.exists(f"{go}.{tag}") for tag in "pq"):
        assert all(c.poll() is None for c in children)
        time.sleep(0.01)
    open(go, "w").close()
    assert [c.wait(timeout=300) for c in children] == [0, 0]
    cycles = [r["cycle"] for _, r in store.iter_audit_of_session("shared")]
    assert cycles == list(range(1, 31))
    summary = session_report(store, session="shared").sessions[0]
    assert summary.notes == () and summary.totals["cycles"] == 30


def test_a_check_judged_while_another_writer_recorded_one_is_judged_again(tmp_path):
    # the other writer records its check after this one brought the session up to date and
    # before this one's record: nothing of this judgement is written, it is judged again with
    # the other's pin, under the next cycle number
    store, path = _store(tmp_path)
    gate = Gate(store, session="shared")
    other = Gate(SourceStore(path), session="shared")  # (another connection, as another process)
    real = store._append_gate_audit
    calls = []

    def racing(records, **kw):
        if not calls:
            assert other.check([U0, A], [U0, A], operator="reorder", commit=True).accepted
        calls.append(kw)
        return real(records, **kw)

    store._append_gate_audit = racing
    lie = gate.check([U0_UNFLAGGED, A], [S_PIN, A], operator="summarize")
    assert len(calls) == 2 and not lie.accepted and _violated(lie) == {"R"}
    assert [(r["cycle"], r["accepted"]) for _, r in store.iter_audit_of_session("shared")] == [(1, True), (2, False)]
    # honest control: with no other writer the same summary, in a session that pinned nothing,
    # is written at once and accepted
    calls.clear()
    honest = Gate(store, session="alone").check([U0_UNFLAGGED, A], [S_PIN, A], operator="summarize")
    assert honest.accepted and [r["cycle"] for _, r in store.iter_audit_of_session("alone")] == [1]


def test_the_store_token_moves_only_when_a_record_may_have_been_added(tmp_path):
    store, path = _store(tmp_path)
    token = store._session_token()
    assert store._session_token()[1:] == token[1:]  # nothing written
    reader = SourceStore(path)
    list(reader.iter_audit())
    assert store._session_token()[1:] == token[1:]  # another connection only read
    reader.append_audit({"note": "another connection"})
    moved = store._session_token()
    assert moved[1] != token[1] and moved[2] == token[2]  # PRAGMA data_version: another connection committed
    store.append_audit({"note": "this object"})
    own = store._session_token()
    assert own[1] == moved[1] and own[2] == moved[2] + 1  # its own writes: the object's count


def test_with_no_other_writer_a_check_reads_no_head(tmp_path, monkeypatch):
    # the common case costs a PRAGMA: the session's head is read once, at the first check
    store, _ = _store(tmp_path)
    gate = Gate(store, session="alone")
    heads = []
    real = store._session_head
    monkeypatch.setattr(store, "_session_head", lambda s: heads.append(s) or real(s))
    for k in range(3):
        assert gate.check([U0, A], [U0, A], operator="reorder", commit=True).accepted
    assert heads == [] and [r.cycle for r in gate.history] == [1, 2, 3]
    # another writer of the session: the next check reads the head and the new record
    Gate(SourceStore(str(tmp_path / "s.sqlite3")), session="alone").check([U0, A], [U0, A], operator="reorder")
    assert gate.check([U0, A], [U0, A], operator="reorder").cycle == 5
    assert heads == ["alone"] and [r.cycle for r in gate.history] == [1, 2, 3, 4, 5]


def test_a_resumed_gate_history_holds_the_session_rows_as_the_report_shows_them(tmp_path):
    store, _ = _store(tmp_path)
    live = Gate(store, session="s", retention_floor=0.5)
    tools = [B(f"t{i}", "tool", f"metric_{i}={100 + i}\n", [f"tool:t{i}"]) for i in range(4)]
    for i in range(4):
        store.put(f"tool:t{i}", f"metric_{i}={100 + i}\n")

    def turn(k):
        return B("a1", "assistant", " ".join(f"metric_{i} is {100 + i}" + (f" [src:t{i}]" if i < k else "") + "."
                                             for i in range(4)) + "\n")

    for k in (4, 3, 2):
        live.check([*tools, turn(k)], [*tools, turn(k - 1)], operator="rewrite", commit=True)
    resumed = Gate(store, session="s", audit=False).history
    rows = session_report(store, session="s").sessions[0].rows
    key = lambda r: (r.cycle, r.accepted, r.classification, r.retention, r.cumulative_retention)
    assert [key(r) for r in resumed] == [key(r) for r in live.history]
    assert [(r.cycle, r.retention, r.cumulative_retention) for r in resumed] == \
        [(r.cycle, r.retention, r.cumulative_retention) for r in rows]
    assert [r.accepted for r in resumed] == [True] * 3 and resumed[-1].cumulative_retention == 0.25


def test_the_cumulative_retention_never_passes_one(tmp_path):
    # F02b: a cycle adding markers (retention above 1) does not make up for one that dropped
    # some: each accepted cycle's factor is at most 1, in the gate and in the report alike
    store, _ = _store(tmp_path)
    for i in range(4):
        store.put(f"tool:t{i}", f"metric_{i}={100 + i}\n")
    tools = [B(f"t{i}", "tool", f"metric_{i}={100 + i}\n", [f"tool:t{i}"]) for i in range(4)]

    def turn(k):
        return B("a1", "assistant", " ".join(f"metric_{i} is {100 + i}" + (f" [src:t{i}]" if i < k else "") + "."
                                             for i in range(4)) + "\n")

    gate = Gate(store, session="s", retention_floor=0.5)
    grow = gate.check([*tools, turn(2)], [*tools, turn(4)], operator="rewrite", commit=True)
    drop = gate.check([*tools, turn(4)], [*tools, turn(3)], operator="rewrite", commit=True)
    assert grow.accepted and drop.accepted and grow.retention > 1
    assert [r.cumulative_retention for r in gate.history] == [1.0, 0.75]
    rows = session_report(store, session="s").sessions[0].rows
    assert [r.cumulative_retention for r in rows] == [1.0, 0.75]
    assert [r.cumulative_retention for r in Gate(store, session="s", audit=False).history] == [1.0, 0.75]


def test_after_three_races_the_check_is_judged_under_the_write_lock(tmp_path):
    # another writer records a check before each of this one's first three records: the fourth
    # judgement is made and written inside the store's write transaction, where nothing moves
    store, path = _store(tmp_path)
    gate = Gate(store, session="shared")
    other = Gate(SourceStore(path), session="shared")
    real = store._append_gate_audit
    locked = []

    def racing(records, **kw):
        if len(locked) < 3:
            assert other.check([U0, A], [U0, A], operator="reorder", commit=True).accepted
        locked.append(store._outer_transaction is not None)
        return real(records, **kw)

    store._append_gate_audit = racing
    verdict = gate.check([U0_UNFLAGGED, A], [S_PIN, A], operator="summarize")
    assert locked == [False, False, False, True]
    assert verdict.cycle == 4 and not verdict.accepted and _violated(verdict) == {"R"}
    assert [r["cycle"] for _, r in store.iter_audit_of_session("shared")] == [1, 2, 3, 4]
    assert [r.cycle for r in gate.history] == [1, 2, 3, 4]
