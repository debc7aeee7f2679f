"""`provgate check` holds the store's write lock only for its commit (red team 124, F04).

The check runs without the lock (on a StagedStore: the edit's inline sources, the fact cache
and the audit record are kept in memory, the sources answered by its reads as stored); the
lock is taken for the commit, which first asks whether what the verdict relied on may have
changed (a source stored since the check began that a question of the check names, the
session's newest record) and makes the check again if so: once more without the lock, then
under it (red team 127, F03: any source stored since, however unrelated, made the check again). A check is made slow here by a hook that holds it until the
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
from provgate.errors import (
    HandleConflictError,
    InvalidArgumentError,
    UnknownHandleError,
)
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
    """Another writer stores, after each check made without the lock, a source the check
    found unstored (an evicted handle): after two of them the check is made under the lock
    (where nothing moves), and one verdict is recorded, the third's (accepted: both stored)."""
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:new", NEW)
    added = []

    def other_writer():
        with SourceStore(str(path)) as other:
            added.append(f"tool:call_{len(added)}")
            other.put(added[-1], "a tool call's result\n")

    seen = checks_counted(monkeypatch, other_writer)
    edit = tmp_path / "e.json"
    pre = [tool("a", "tool:call_0", "a tool call's result\n"), tool("b", "tool:call_1", "a tool call's result\n"),
           tool("n", "tool:new", NEW)]
    edit.write_text(json.dumps({"operator": "evict", "pre": pre, "post": [pre[2]],
                                "evicted": ["tool:call_0", "tool:call_1"], "sources": {"tool:old": OLD}}))
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


# -- red team 127, F03: only a source a question of the check names makes it again -------------

# a `provgate check` whose every check_edit, once it has judged the edit, logs the store it ran
# on, writes SIG<k> and waits for ACK<k> (k = 1, 2, ...) before it returns
COUNTED_HELD_CHECK = """
import json, os, sys, time
import provgate.gate as g
log, sig, ack = sys.argv[1], sys.argv[2], sys.argv[3]
orig = g.Gate.check_edit
n = [0]
def held(self, *a, **k):
    verdict = orig(self, *a, **k)
    n[0] += 1
    with open(log, "a") as f:
        f.write(json.dumps([type(self.store).__name__, verdict.accepted]) + "\\n")
    open(sig + str(n[0]), "w").close()
    deadline = time.monotonic() + 120
    while not os.path.exists(ack + str(n[0])):
        if time.monotonic() > deadline:
            raise SystemExit("never told to go")
        time.sleep(0.01)
    return verdict
g.Gate.check_edit = held
from provgate.cli import main
sys.exit(main(sys.argv[4:]))
"""


def test_an_unrelated_put_during_a_check_commits_it_after_one_run(tmp_path):
    """The repro (rt127 F03.py) as a test: another process puts a source no question of the
    check names (no marker, handle or evicted handle of the edit) while the check is in its
    rules. Before the fix each such put made the check again, and the third check held the
    lock, so a put with a short busy timeout failed (StoreBusyError). Now: one check, committed;
    the put stored; no second check to wait for."""
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:old", OLD)
        st.put("tool:new", NEW)
    (tmp_path / "e.json").write_text(json.dumps(evict_edit({"tool:inline": "inline=1\n"})))
    log, sig, ack = (str(tmp_path / x) for x in ("log", "sig", "ack"))
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PROVGATE_STORE", None)
    proc = subprocess.Popen([sys.executable, "-c", COUNTED_HELD_CHECK, log, sig, ack, "check",
                             str(tmp_path / "e.json"), "--store", str(path), "--session", "S"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    k, deadline = 0, time.monotonic() + 120  # (a safety net for a broken child, not an assertion on time)
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            if os.path.exists(sig + str(k + 1)):
                k += 1
                # an agent storing a tool call's result meanwhile (busy timeout short)
                with SourceStore(str(path), busy_timeout=0.5) as other:
                    other.put(f"tool:unrelated_{k}", f"unrelated output {k}\n")
                open(ack + str(k), "w").close()
            time.sleep(0.01)
    finally:
        if proc.poll() is None:
            proc.kill()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert [json.loads(line) for line in Path(log).read_text().splitlines()] == [["StagedStore", True]]
    verdict = json.loads(out)
    assert verdict["accepted"] is True and verdict["cycle"] == 1
    assert handles(path) == ["tool:old", "tool:new", "tool:unrelated_1", "tool:inline"]
    assert session_cycles(path, "S") == [1]


def verdicts_counted(monkeypatch, between) -> list[tuple[str, bool]]:
    """checks_counted, with each check's verdict; ``between`` runs after the first staged check."""
    seen: list[tuple[str, bool]] = []
    orig = Gate.check_edit

    def counted(self, *a, **k):
        verdict = orig(self, *a, **k)
        seen.append((type(self.store).__name__, verdict.accepted))
        if len(seen) == 1:
            between()
        return verdict

    monkeypatch.setattr(Gate, "check_edit", counted)
    return seen


def put_between(path: Path, handle: str, text: str):
    def other_writer():
        with SourceStore(str(path), busy_timeout=0.5) as other:
            other.put(handle, text)
    return other_writer


def run_check(tmp_path: Path, path: Path, edit: dict, capsys) -> tuple[int, dict]:
    f = tmp_path / "e.json"
    f.write_text(json.dumps(edit))
    code = cli.main(["check", str(f), "--store", str(path), "--session", "S"])
    return code, json.loads(capsys.readouterr().out)


# a summary citing [src:call_9]: accepted only when call_9 names exactly one stored source
MARKED = {"operator": "summarize", "pre": [tool("o", "tool:old", OLD), tool("n", "tool:new", NEW)],
          "post": [{"id": "s1", "role": "summary", "text": "Retries 3 [src:call_9].\n", "handles": [],
                    "derived": True, "derived_from": ["tool:old"]}, tool("n", "tool:new", NEW)],
          "evicted": ["tool:old"]}
# a summary derived from tool:cfg, a handle the window does not hold
CITED = {"operator": "summarize", "pre": [tool("n", "tool:new", NEW)],
         "post": [tool("n", "tool:new", NEW), {"id": "s1", "role": "summary", "text": "Retries 3.\n", "handles": [],
                                               "derived": True, "derived_from": ["tool:cfg"]}]}


@pytest.mark.parametrize("edit, stored", [(MARKED, {"tool:call_9": "retries=3\n"}), (CITED, {"tool:cfg": OLD}),
                                          (evict_edit(), {"tool:old": OLD})],
                         ids=["marker", "cited-handle", "evicted-handle"])
def test_an_unrelated_put_is_no_change_to_the_verdict(tmp_path, monkeypatch, capsys, edit, stored):
    """Honest control: each edit accepted, and a put of a source none of its questions names
    (not its markers' names, not its handles, not its evicted handles, not their contents)
    between the check and its commit: committed after one check."""
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:new", NEW)
        st.put("tool:old", OLD)
        for handle, text in stored.items():
            if not st.resolves(handle):
                st.put(handle, text)
    seen = verdicts_counted(monkeypatch, put_between(path, "tool:call_10", "unrelated output\n"))
    code, verdict = run_check(tmp_path, path, edit, capsys)
    assert seen == [("StagedStore", True)]
    assert code == 0 and verdict["accepted"] is True and verdict["cycle"] == 1
    assert handles(path)[-1] == "tool:call_10" and session_cycles(path, "S") == [1]


@pytest.mark.parametrize("edit, handle, text", [(MARKED, "tool:call_9", "retries=3\n"), (CITED, "tool:cfg", OLD),
                                               (evict_edit(), "tool:old", OLD)],
                         ids=["marker", "cited-handle", "evicted-handle"])
def test_a_related_put_makes_the_check_again(tmp_path, monkeypatch, capsys, edit, handle, text):
    """Lie: the staged check found a source unstored (a marker's name, a handle a summary
    cites, an evicted handle: rejected, I3); another writer stores it before the commit: the
    check is made again, and the verdict committed is the new one (accepted)."""
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:new", NEW)
        if handle != "tool:old":
            st.put("tool:old", OLD)
    seen = verdicts_counted(monkeypatch, put_between(path, handle, text))
    code, verdict = run_check(tmp_path, path, edit, capsys)
    assert seen == [("StagedStore", False), ("StagedStore", True)]
    assert code == 0 and verdict["accepted"] is True and verdict["cycle"] == 1
    with SourceStore(str(path)) as st:
        assert [r["accepted"] for _, r in st.iter_audit_of_session("S")] == [True]


def test_a_put_that_makes_a_marker_ambiguous_makes_the_check_again(tmp_path, monkeypatch, capsys):
    """Lie the other way: [src:call_9] named tool:call_9 alone (accepted); another writer
    stores doc:call_9 (the same name after its kind): the marker is ambiguous now, the check is
    made again, and the verdict committed is rejected (I3)."""
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        for handle, text in (("tool:new", NEW), ("tool:old", OLD), ("tool:call_9", "retries=3\n")):
            st.put(handle, text)
    seen = verdicts_counted(monkeypatch, put_between(path, "doc:call_9", "retries=4\n"))
    code, verdict = run_check(tmp_path, path, MARKED, capsys)
    assert seen == [("StagedStore", True), ("StagedStore", False)]
    assert code == 1 and verdict["accepted"] is False
    assert any(v["invariant"] == "I3" and "ambiguous" in v["message"] for v in verdict["violations"])
    assert session_cycles(path, "S") == [1]


def staged_after_check(path: Path, edit: dict) -> tuple[SourceStore, StagedStore, tuple[int, int, int]]:
    from provgate.window import parse_edit

    st = SourceStore(str(path))
    basis = store_basis(st, "S")
    staged = StagedStore(st, basis[0])
    Gate(staged, session="S").check_edit(parse_edit(json.dumps(edit).encode()), commit=True)
    return st, staged, basis


def holds(st: SourceStore, staged: StagedStore, basis) -> bool:
    with st._one_transaction():
        return staged.answers_hold(st, "S", basis)


def test_answers_hold_asks_only_what_the_check_asked(tmp_path):
    """StagedStore.answers_hold, source by source: a new source that is a handle the check
    asked, has a name a marker was looked up by (as a handle, or after its kind), or holds a
    content the check compared, is a change; any other is none."""
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:new", NEW)
        st.put("tool:old", OLD)
    cases = [("tool:unrelated", "other\n", True), ("call_9", "x\n", False), ("doc:call_9", "x\n", False),
             ("tool:old2", OLD, False),  # (the content of tool:old, which the check compared)
             ("tool:call_90", "retries=3\n", True), ("tool:tool:new", "x\n", True)]
    for i, (handle, text, unchanged) in enumerate(cases):
        store = tmp_path / f"c{i}.sqlite3"
        store.write_bytes(path.read_bytes())
        st, staged, basis = staged_after_check(store, MARKED)
        try:
            assert "call_9" in staged._names_asked and "tool:old" in staged._asked
            with SourceStore(str(store)) as other:
                other.put(handle, text)
            assert holds(st, staged, basis) is unchanged, handle
        finally:
            st.close()


def test_answers_hold_fails_closed(tmp_path):
    """When it cannot tell, the check is made again: a staged store made without a basis, one
    whose check asked for the whole store's handles, a session's head moved."""
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:new", NEW)
        st.put("tool:old", OLD)
    st, staged, basis = staged_after_check(path, evict_edit())
    try:
        with SourceStore(str(path)) as other:
            other.put("tool:unrelated", "other\n")
        assert holds(st, staged, basis) is True
        assert holds(st, staged, (basis[0], basis[1] + 1, basis[2])) is False  # (another check of the session)
        blind = StagedStore(st)  # (no basis)
        assert holds(st, blind, basis) is False
        assert len(staged) == 3 and holds(st, staged, basis) is False  # (a question of the whole store)
    finally:
        st.close()


def test_a_staged_store_reads_handles_added_as_of_its_basis(tmp_path):
    """handles_added_since answers as of the basis: a source another writer stored since is
    seen by the questions that name it, and found by the commit."""
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:a", "a=1\n")
        st.put("tool:b", "b=1\n")
        staged = StagedStore(st, store_basis(st, None)[0])
        staged.put_many({"tool:s": "s=1\n"})
        with SourceStore(str(path)) as other:
            other.put("tool:later", "later\n")
        assert staged.handles_added_since(None) == (3, [])
        assert staged.handles_added_since(0) == (3, ["tool:a", "tool:b", "tool:s"])
        assert staged.handles_added_since(2) == (3, ["tool:s"])
        assert staged.info("tool:s").seq == 3
        assert StagedStore(st).handles_added_since(1) == (3, ["tool:b", "tool:later"])  # (no basis: as it is)
        with pytest.raises(InvalidArgumentError):
            staged.handles_added_since(-1)


def test_every_read_of_the_store_records_what_it_asked(tmp_path):
    """Each read a check may make on a StagedStore records its question (so answers_hold can
    tell whether a new source changes its answer): the overridden ones and those that go
    through one. A public method of SourceStore not classified here fails this test until it
    is (a read that records nothing would commit a verdict a new source changed)."""
    from provgate.pointers import Pointer  # noqa: F401  (pointer/resolve below)

    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:a", "a=1\n")
        digest = st.digest("tool:a")
        reads = {
            "get": lambda s: s.get("tool:a"), "get_bytes": lambda s: s.get_bytes("tool:a"),
            "get_many": lambda s: s.get_many(["tool:a"]), "get_bytes_many": lambda s: s.get_bytes_many(["tool:a"]),
            "resolves": lambda s: s.resolves("tool:a"), "unresolved": lambda s: s.unresolved(["tool:a"]),
            "__contains__": lambda s: "tool:a" in s, "digest": lambda s: s.digest("tool:a"),
            "info": lambda s: s.info("tool:a"), "info_many": lambda s: s.info_many(["tool:a"]),
            "digests_many": lambda s: s.digests_many(["tool:a"]),
            "pointer": lambda s: s.pointer("tool:a", 0, 1),
            "pointer_from_str_indices": lambda s: s.pointer_from_str_indices("tool:a", 0, 1),
            "resolve": lambda s: s.resolve(st.pointer("tool:a", 0, 1)),
            "resolve_bytes": lambda s: s.resolve_bytes(st.pointer("tool:a", 0, 1)),
        }
        by_name = {"handles_named": lambda s: s.handles_named("a"),
                   "handles_cited_as": lambda s: s.handles_cited_as("a"),
                   "handles_cited_as_many": lambda s: s.handles_cited_as_many(["a"])}
        whole = {"__iter__": lambda s: list(s), "__len__": lambda s: len(s)}
        for name, read in reads.items():
            staged = StagedStore(st, 1)
            read(staged)
            assert staged._asked == {"tool:a"}, name
        for name, read in by_name.items():
            staged = StagedStore(st, 1)
            read(staged)
            assert staged._names_asked == {"a"}, name
        staged = StagedStore(st, 1)
        staged.unmatched_contents({digest: b"a=1\n"})
        assert staged._contents_asked == {digest}
        for name, read in whole.items():
            staged = StagedStore(st, 1)
            read(staged)
            assert staged._opaque, name
        # answered as of the basis (no question to record), or no question of a source: the
        # fact cache (a function of a content's digest), the session's records (its head is
        # compared), the whole audit log and verify (no check reads them), the writes (staged)
        # and the object's own state
        other = {"handles_added_since", "unmatched_contents", "get_cached_facts", "get_cached_facts_many",
                 "iter_audit_of_session", "iter_audit", "verify", "put", "put_many", "put_cached_facts",
                 "put_cached_facts_many", "append_audit", "append_audit_many", "close", "closed",
                 "max_content_bytes", "path", "read_only"}
        public = {n for n in dir(SourceStore) if not n.startswith("_")} | {"__iter__", "__len__", "__contains__"}
        assert public == set(reads) | set(by_name) | set(whole) | other
