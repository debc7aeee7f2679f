"""`provgate check` holds the store's write lock only for its commit (red team 124, F04).

The check runs without the lock (on a StagedStore: the edit's inline sources, the fact cache
and the audit record are kept in memory, the sources answered by its reads as stored); the
lock is taken for the commit, which first reads again what the verdict relied on that another
writer can change (the newest source, the session's newest record) and makes the check again,
under the lock, if either moved. A check is made slow here by a hook that holds it until the
test says go (files, no timing): on main before the fix, the put below failed with
StoreBusyError (the lock was held from before the session's resume through every rule).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gate_helpers import tool

from provgate import cli
from provgate._staged import StagedStore, store_basis
from provgate.errors import HandleConflictError, UnknownHandleError
from provgate.gate import Gate
from provgate.store import SourceStore

OLD = "retries=3\ntimeout=30\n"
NEW = "workers=8\n"
SRC = str(Path(__file__).resolve().parents[1] / "src")

# a `provgate check` whose first check_edit, once it has judged the edit, writes READY and
# waits for GO before it returns (so the check is still running, whatever store it was given)
HELD_CHECK = """
import os, sys, time
import provgate.gate as g
ready, go = sys.argv[1], sys.argv[2]
orig = g.Gate.check_edit
state = {"held": False}
def held(self, *a, **k):
    verdict = orig(self, *a, **k)
    if not state["held"]:
        state["held"] = True
        open(ready, "w").close()
        deadline = time.monotonic() + 120
        while not os.path.exists(go):
            if time.monotonic() > deadline:
                raise SystemExit("never told to go")
            time.sleep(0.01)
    return verdict
g.Gate.check_edit = held
from provgate.cli import main
sys.exit(main(sys.argv[3:]))
"""


def evict_edit(sources: dict | None = None) -> dict:
    """tool:old evicted: accepted only when tool:old is stored (I3: what leaves must resolve)."""
    edit = {"operator": "evict", "pre": [tool("o", "tool:old", OLD), tool("n", "tool:new", NEW)],
            "post": [tool("n", "tool:new", NEW)], "evicted": ["tool:old"]}
    if sources:
        edit["sources"] = sources
    return edit


def start_held_check(tmp_path: Path, store: Path, edit: dict, session: str, name: str = "a"):
    ready, go = tmp_path / f"{name}.ready", tmp_path / f"{name}.go"
    (tmp_path / f"{name}.json").write_text(json.dumps(edit))
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PROVGATE_STORE", None)
    proc = subprocess.Popen([sys.executable, "-c", HELD_CHECK, str(ready), str(go), "check",
                             str(tmp_path / f"{name}.json"), "--store", str(store), "--session", session],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120  # (a safety net for a broken child, not an assertion on time)
    while not ready.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            _, err = proc.communicate()
            pytest.fail(f"the held check never got to its hook: exit {proc.returncode}, {err[-2000:]}")
        time.sleep(0.01)
    return proc, go


def finish(proc, go: Path) -> tuple[int, dict]:
    go.touch()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode in (0, 1), err
    return proc.returncode, json.loads(out)


def session_cycles(path: Path, session: str) -> list[int]:
    with SourceStore(str(path), read_only=True) as st:
        return [r["cycle"] for _, r in st.iter_audit_of_session(session)]


def handles(path: Path) -> list[str]:
    conn = sqlite3.connect(str(path))
    try:
        return [h for (h,) in conn.execute("SELECT handle FROM sources ORDER BY seq")]
    finally:
        conn.close()


def test_a_put_during_a_check_is_not_blocked(tmp_path):
    """The repro (F04.py) as a test: another process's put while a check is in its rules."""
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:old", OLD)
        st.put("tool:new", NEW)
    proc, go = start_held_check(tmp_path, path, evict_edit({"tool:inline": "inline=1\n"}), "S")
    try:
        # (busy_timeout short: on main this raised StoreBusyError, the lock held by the check)
        with SourceStore(str(path), busy_timeout=0.2) as st:
            st.put("tool:call_2", "a tool call's result, put as it returns")
        # the check's own writes are not made yet: its inline source waits for the commit
        assert handles(path) == ["tool:old", "tool:new", "tool:call_2"]
        assert session_cycles(path, "S") == []
    finally:
        code, verdict = finish(proc, go)
    assert code == 0 and verdict["accepted"] is True and verdict["cycle"] == 1
    assert handles(path) == ["tool:old", "tool:new", "tool:call_2", "tool:inline"]
    assert session_cycles(path, "S") == [1]


def test_two_checks_of_one_session_take_consecutive_cycles(tmp_path):
    """A check of the session committed while another was judging: the second is made again
    under the lock, and takes the next cycle (its own verdict said cycle 1, stale)."""
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:old", OLD)
        st.put("tool:new", NEW)
    proc, go = start_held_check(tmp_path, path, evict_edit(), "S")
    try:
        edit = tmp_path / "b.json"
        edit.write_text(json.dumps(evict_edit()))
        assert cli.main(["check", str(edit), "--store", str(path), "--session", "S"]) == 0
        assert session_cycles(path, "S") == [1]
    finally:
        code, verdict = finish(proc, go)
    assert code == 0 and verdict["cycle"] == 2
    assert session_cycles(path, "S") == [1, 2]


def test_another_session_committing_does_not_make_a_check_again(tmp_path, monkeypatch):
    """Control: a check of another session is no change to this one's basis."""
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:old", OLD)
        st.put("tool:new", NEW)
    before = store_basis(SourceStore(str(path)), "S")
    edit = tmp_path / "b.json"
    edit.write_text(json.dumps(evict_edit()))
    assert cli.main(["check", str(edit), "--store", str(path), "--session", "T"]) == 0
    assert store_basis(SourceStore(str(path)), "S") == before
    assert store_basis(SourceStore(str(path)), "T") != store_basis(SourceStore(str(path)), "S")


def checks_counted(monkeypatch, between=None) -> list[str]:
    """Gate.check_edit counted by the kind of store it ran on; ``between`` runs after the staged
    check (before its commit), as another process's write would."""
    seen: list[str] = []
    orig = Gate.check_edit

    def counted(self, *a, **k):
        verdict = orig(self, *a, **k)
        seen.append(type(self.store).__name__)
        if between is not None and isinstance(self.store, StagedStore):
            between()
        return verdict

    monkeypatch.setattr(Gate, "check_edit", counted)
    return seen


def test_a_source_stored_between_check_and_commit_makes_the_check_again(tmp_path, monkeypatch, capsys):
    """Lie: the staged check found tool:old unstored (rejected, I3); another writer stores it
    before the commit: the verdict committed is the check made again (without the lock: the
    basis held still under it), accepted."""
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:new", NEW)

    def other_writer():
        with SourceStore(str(path)) as other:
            other.put("tool:old", OLD)

    seen = checks_counted(monkeypatch, other_writer)
    edit = tmp_path / "e.json"
    edit.write_text(json.dumps(evict_edit()))
    code = cli.main(["check", str(edit), "--store", str(path), "--session", "S"])
    verdict = json.loads(capsys.readouterr().out)
    assert seen == ["StagedStore", "StagedStore"]
    assert code == 0 and verdict["accepted"] is True
    with SourceStore(str(path)) as st:
        records = [r for _, r in st.iter_audit_of_session("S")]
    assert [r["accepted"] for r in records] == [True]


def test_a_basis_moved_under_every_unlocked_check_is_checked_under_the_lock(tmp_path, monkeypatch, capsys):
    """Another writer adds a source after each check made without the lock: after two of them
    the check is made under the lock (where nothing moves), and one verdict is recorded."""
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:new", NEW)
    added = []

    def other_writer():
        with SourceStore(str(path)) as other:
            added.append(f"tool:call_{len(added)}")
            other.put(added[-1], "a tool call's result")

    seen = checks_counted(monkeypatch, other_writer)
    edit = tmp_path / "e.json"
    edit.write_text(json.dumps(evict_edit({"tool:old": OLD})))
    code = cli.main(["check", str(edit), "--store", str(path), "--session", "S"])
    verdict = json.loads(capsys.readouterr().out)
    assert seen == ["StagedStore", "StagedStore", "SourceStore"]
    assert code == 0 and verdict["accepted"] is True and verdict["cycle"] == 1
    assert handles(path) == ["tool:new", "tool:call_0", "tool:call_1", "tool:old"]
    assert session_cycles(path, "S") == [1]


def test_nothing_changed_commits_the_staged_check(tmp_path, monkeypatch, capsys):
    """Honest control: no other writer, one check, its verdict (rejected: tool:old unstored)
    and its inline source committed."""
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:new", NEW)
    seen = checks_counted(monkeypatch)
    edit = tmp_path / "e.json"
    edit.write_text(json.dumps(evict_edit({"tool:inline": "inline=1\n"})))
    code = cli.main(["check", str(edit), "--store", str(path), "--session", "S"])
    verdict = json.loads(capsys.readouterr().out)
    assert seen == ["StagedStore"]
    assert code == 1 and verdict["accepted"] is False and verdict["cycle"] == 1
    assert handles(path) == ["tool:new", "tool:inline"]
    assert session_cycles(path, "S") == [1]


def test_a_commit_that_fails_writes_nothing(tmp_path, monkeypatch, capsys):
    """The commit's writes in one transaction: one refused (here the audit record) leaves
    none of them, the inline source included; exit 2."""
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:new", NEW)

    def refused(self, records):
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(SourceStore, "_append_gate_audit", refused)
    edit = tmp_path / "e.json"
    edit.write_text(json.dumps(evict_edit({"tool:inline": "inline=1\n"})))
    assert cli.main(["check", str(edit), "--store", str(path), "--session", "S"]) == 2
    capsys.readouterr()
    assert handles(path) == ["tool:new"]
    assert session_cycles(path, "S") == []


def test_staged_store_reads_its_sources_and_writes_them_only_at_commit(tmp_path):
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:a", "a=1\n")
        staged = StagedStore(st)
        digest = staged.put_many({"tool:b": "b=2\n"}, kinds={"tool:b": "note"})["tool:b"]
        assert staged.get("tool:b") == "b=2\n" and staged.resolves("tool:b")
        assert staged.digests_many(["tool:a", "tool:b", "tool:c"]) == {"tool:a": st.digest("tool:a"), "tool:b": digest}
        info = staged.info("tool:b")
        assert (info.kind, info.size, info.seq) == ("note", 4, 2)
        assert staged.handles_added_since(1) == (2, ["tool:b"])
        assert staged.handles_cited_as_many(["b", "a"]) == {"b": ["tool:b"], "a": ["tool:a"]}
        assert staged.unmatched_contents({digest: b"b=2\n"}) == []
        assert staged.unresolved(["tool:b", "tool:c"]) == ["tool:c"]
        assert staged.resolve(staged.pointer("tool:b", 0, 3)) == "b=2"
        with pytest.raises(UnknownHandleError):
            staged.get_bytes_many(["tool:c"])
        with pytest.raises(HandleConflictError):
            staged.put_many({"tool:b": "other"})
        # the store itself holds none of it
        assert not st.resolves("tool:b") and st.handles_added_since(None) == (1, [])
        with st._one_transaction():
            staged.commit(st)
        assert st.get("tool:b") == "b=2\n" and st.info("tool:b").kind == "note"
        # a write the staged store does not keep is an error, never a write
        with pytest.raises(AssertionError):
            staged.append_audit({"x": 1})


def _without_times(obj):
    if isinstance(obj, dict):
        return {k: _without_times(v) for k, v in obj.items() if k not in ("timings_ms", "ts_recorded", "check_ms")}
    if isinstance(obj, list):
        return [_without_times(v) for v in obj]
    return obj


def _dump(path: Path) -> tuple[list, list]:
    conn = sqlite3.connect(str(path))
    try:
        sources = conn.execute("SELECT seq, handle, digest, kind, ts, row_digest FROM sources ORDER BY seq").fetchall()
        audit = [json.loads(r) for (r,) in conn.execute("SELECT record FROM audit ORDER BY seq")]
    finally:
        conn.close()
    # (a record's own ts is the time it was made)
    return sources, [_without_times({k: v for k, v in r.items() if k != "ts"}) for r in audit]


def test_a_staged_check_commits_what_a_check_under_the_lock_commits(tmp_path, capsys):
    """StagedStore held to the store itself: the corpus's edits, every source inline, checked in
    turn in one session through `provgate check` (staged, then committed) and by a Gate on the
    store under the lock (the command before the fix): the same verdicts, the same rows."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import corpus

    window = corpus.make_window(20_000, seed=0)
    edits = [corpus.prune_edit(window), corpus.summarize_edit(window), corpus.rewrite_edit(window),
             corpus.drift_edit(window)]
    staged_path, locked_path = tmp_path / "staged.sqlite3", tmp_path / "locked.sqlite3"
    SourceStore(str(staged_path)).close()
    from provgate.window import parse_edit

    verdicts = []
    for i, obj in enumerate(edits):
        f = tmp_path / f"e{i}.json"
        f.write_text(json.dumps(obj))
        code = cli.main(["check", str(f), "--store", str(staged_path), "--session", "S"])
        staged = json.loads(capsys.readouterr().out)
        with SourceStore(str(locked_path)) as st, st._one_transaction():
            locked = Gate(st, session="S").check_edit(parse_edit(json.dumps(obj).encode()), commit=True).to_json()
        assert code == (0 if locked["accepted"] else 1)
        assert _without_times(staged) == _without_times(locked)
        verdicts.append(locked["accepted"])
    assert True in verdicts  # (and the rows of accepted edits' commits compared too)
    staged_rows, locked_rows = _dump(staged_path), _dump(locked_path)
    assert len(staged_rows[1]) == len(edits)
    assert [row[:5] for row in staged_rows[0]] == [row[:5] for row in locked_rows[0]]
    assert staged_rows[1] == locked_rows[1]


def test_a_check_killed_before_its_commit_leaves_nothing(tmp_path):
    """Killed while judging (its writes held in memory): no source, no record of it, and the
    store takes writes at once (no lock left behind)."""
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:old", OLD)
        st.put("tool:new", NEW)
    proc, _ = start_held_check(tmp_path, path, evict_edit({"tool:inline": "inline=1\n"}), "S")
    proc.kill()
    proc.communicate(timeout=120)
    assert handles(path) == ["tool:old", "tool:new"]
    assert session_cycles(path, "S") == []
    with SourceStore(str(path), busy_timeout=0.2) as st:
        st.put("tool:after", "after=1\n")


def test_a_fact_table_the_store_refuses_is_left_uncached_at_the_commit(tmp_path, monkeypatch, capsys):
    """As the gate does (red team 93, F09): a fact table past a row's limit is not cached, and
    the check is committed all the same, not failed at its commit (exit 2)."""
    from provgate.errors import LimitExceededError

    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:old", OLD)
        st.put("tool:new", NEW)
    cached = []
    orig = SourceStore.put_cached_facts_many

    def refuses_big(self, entries):
        entries = list(entries)
        if len(entries) > 1:
            raise LimitExceededError("fact blob is too big (simulated)")
        cached.append(entries[0][0])
        return orig(self, entries)

    monkeypatch.setattr(SourceStore, "put_cached_facts_many", refuses_big)
    edit = tmp_path / "e.json"
    edit.write_text(json.dumps(evict_edit({"tool:inline": "inline=1\n"})))
    assert cli.main(["check", str(edit), "--store", str(path), "--session", "S"]) == 0
    capsys.readouterr()
    assert len(cached) > 1  # (each cached alone)
    assert session_cycles(path, "S") == [1]
    assert handles(path)[-1] == "tool:inline"
