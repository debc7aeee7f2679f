"""The session's read log: where a read new to it goes (by ts, and by where the window shows it
against the reads the log holds), so that a read the window shows before the newer read the
log already holds is not taken as the newest, live, resumed, and when the reads have left the
window (red teams 98, F03/F03b; 101, F01/F02/F06/F07/F08)."""

from __future__ import annotations

import json
import math

import pytest
from compaction_helpers import memory_store
from gate_helpers import assert_accepted, blk, find, store_with, summary, tool
from hypothesis import given, settings
from hypothesis import strategies as st

import provgate.gate as gate_module
from provgate import cli, compact
from provgate.gate import Gate, _one_after_another, log_reads, put_reads, reads_placed
from provgate.store import SourceStore
from provgate.window import Block, Window

R1, R2 = "retries=3\ntimeout=30\n", "retries=5\ntimeout=30\n"  # r1 the older (stale), r2 the newer
TURN = blk("a", "assistant", "ok\n")


def _placed_by_scan(line, known, reads):
    """reads_placed's rule, read for read and pair by pair (quadratic): the executable
    specification the bisections and the running bounds are held to."""
    reads = list(reads)
    window, seen = [], set()
    for h, ts in reads:
        if h not in seen:
            seen.add(h)
            window.append((h, ts))
    unstamped = {h for h, t in line if t is None}
    given = {h: t for h, t in reads if t is not None and h in unstamped}
    logged_ts = dict(line)

    def stamp(h, ts):
        ts = logged_ts.get(h, ts)
        return given.get(h) if ts is None else ts

    n = len(line)
    place = {}
    for k, (h, _) in enumerate(line):
        place.setdefault(h, k)
    gap = {}
    for w in reversed(range(len(window))):
        h, t = window[w]
        if h in known:
            continue
        by_ts = n
        if t is not None and line and stamp(*line[-1]) is not None and stamp(*line[-1]) > t:
            by_ts = min(k for k, r in enumerate(line) if stamp(*r) is not None and stamp(*r) > t)
        at = by_ts
        for g, s in window[w + 1:]:
            if g in known and g not in logged_ts:
                continue  # (filed under another resource)
            s = stamp(g, s) if g in known else s
            if t is not None and s is not None and s < t:
                continue  # (the ts put it before this one)
            at = min(at, place[g] if g in known else gap[g])
        if t is not None and at < by_ts:
            earlier = [k for k, r in enumerate(line) if stamp(*r) is not None and stamp(*r) < t]
            if earlier:
                at = max(at, min(max(earlier) + 1, by_ts))
        gap[h] = at
    order = [(gap[h], w, h, ts) for w, (h, ts) in enumerate(window) if h in gap]
    out = []
    for at in sorted({o[0] for o in order}):
        group = []  # between two logged reads: one after another, a stamped one before the first stamped later
        for _, _, h, ts in (o for o in order if o[0] == at):
            k = len(group)
            if ts is not None and group and group[-1][1] is not None and group[-1][1] > ts:
                k = next(j for j, (_, s) in enumerate(group) if s is not None and s > ts)
            group.insert(k, (h, ts))
        out.extend((h, ts, line[at][0] if at < n else None) for h, ts in group)
    return out


_TS = st.one_of(st.none(), st.integers(0, 5).map(float), st.sampled_from([0.5, 2.5, 1e300]))


@settings(max_examples=600, deadline=None)
@given(logged=st.lists(_TS, max_size=7),
       reads=st.lists(st.tuples(st.sampled_from([f"r{k}" for k in range(6)] + [f"l{k}" for k in range(7)] + ["x"]),
                                _TS), max_size=12))
def test_reads_go_where_the_rule_read_pair_by_pair_puts_them(logged, reads):
    line = [(f"l{k}", ts) for k, ts in enumerate(logged)]
    known = {h for h, _ in line} | {"x"}  # x: a read the log files under another resource
    assert reads_placed(line, known, reads) == _placed_by_scan(line, known, reads)
    # (by ts alone, the rule before the window's places: test_log_reads_puts_reads_where_the_scan_did)


@pytest.mark.parametrize("one_by_one_up_to", [0, 16])
@settings(max_examples=400, deadline=None)
@given(logged=st.lists(_TS, max_size=6),
       placed=st.lists(st.tuples(st.sampled_from([f"r{k}" for k in range(24)]), _TS,
                                 st.one_of(st.none(), st.sampled_from([f"l{k}" for k in range(6)]
                                                                      + [f"r{k}" for k in range(24)] + ["gone"]))),
                       max_size=24, unique_by=lambda p: p[0]))
def test_put_reads_puts_each_read_as_one_insert_after_another_would(one_by_one_up_to, logged, placed):
    # (both ways put_reads works: a few reads inserted one by one, more in one pass)
    line = [(f"l{k}", ts) for k, ts in enumerate(logged)]
    one_by_one = list(line)
    for h, ts, before in placed:
        at = next((k for k, (g, _) in enumerate(one_by_one) if g == before), len(one_by_one))
        if at < len(one_by_one) and one_by_one[at][1] is not None and ts is not None and one_by_one[at][1] < ts:
            at = len(one_by_one)  # (never before a read stamped earlier: red team 102, F01)
        one_by_one.insert(at, (h, ts))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(gate_module, "_PUT_EACH", one_by_one_up_to)
        put_reads(line, placed)
    assert line == one_by_one


def test_a_record_naming_a_read_stamped_earlier_puts_the_read_after_it(tmp_path):
    # red team 102, F01: a record no gate writes, [r1 ts 1, r2 ts 2 before r1], made the older
    # r1 the newest on resume
    path = str(tmp_path / "s.sqlite3")
    store = store_with({"tool:r1": R1, "tool:r2": R2}, path=path)
    store._append_gate_audit([{"session": "S", "cycle": 1, "reads": {"file:app.ini": [["tool:r1", 1.0, None],
                                                                               ["tool:r2", 2.0, "tool:r1"]]}}])
    resumed = Gate(SourceStore(path), session="S")
    assert resumed._read_log["file:app.ini"] == [("tool:r1", 1.0), ("tool:r2", 2.0)]
    find(resumed.check([TURN], [TURN, summary("s", "The config sets retries=3.\n", ["tool:r1"])],
                       operator="summarize"), "I4", key="retries", value="3")


def test_a_resume_puts_many_records_reads_in_one_pass(tmp_path):
    # red team 102, F02: each record's reads put in a pass over the whole line made a resume of
    # N records, each putting a read before the last one, O(N^2); counted by the passes
    path = str(tmp_path / "s.sqlite3")
    store = store_with({}, path=path)
    n = 300
    store._append_gate_audit([{"session": "S", "cycle": k + 1,
                              "reads": {"R": [[f"tool:c{k}", None, f"tool:c{k - 1}" if k else None]]}}
                             for k in range(n)])
    calls = []
    real = gate_module.put_reads
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(gate_module, "put_reads", lambda line, placed: calls.append(1) or real(line, placed))
        resumed = Gate(SourceStore(path), session="S")
    assert len(calls) == 1
    assert [h for h, _ in resumed._read_log["R"]] == [f"tool:c{k}" for k in range(n - 1, -1, -1)]


def test_log_reads_places_a_read_shown_before_a_logged_one_before_it_and_keeps_the_ts_bound():
    log = {"R": [("b", None), ("c", 5.0)]}
    read_of = {"b": "R", "c": "R"}
    # a (ts 7) shown before bare b: b is no bound, for c (ts 5) is older than a by ts and the
    # log holds b before c (red team 101, F06: the place put it before a read stamped earlier)
    assert log_reads(log, read_of, "R", [("a", 7.0), ("b", None)]) == [("a", 7.0, None)]
    assert log["R"] == [("b", None), ("c", 5.0), ("a", 7.0)]
    # a read with no ts shown before b goes just before it
    assert log_reads(log, read_of, "R", [("d", None), ("b", None), ("e", None)]) == [("d", None, "b"), ("e", None, None)]
    assert log["R"] == [("d", None), ("b", None), ("c", 5.0), ("a", 7.0), ("e", None)]
    assert read_of == dict.fromkeys("bcade", "R")


def test_a_tie_of_ts_is_broken_by_the_window_s_place():
    # red team 101, F08: logged r2 (ts 2), then a window [r1 ts 2, r2 ts 2]: r1 went after r2
    log = {"R": [("r2", 2.0)]}
    assert log_reads(log, {"r2": "R"}, "R", [("r1", 2.0), ("r2", 2.0)]) == [("r1", 2.0, "r2")]
    assert log["R"] == [("r1", 2.0), ("r2", 2.0)]
    # by ts alone (a record written before reads kept where they went) it goes after, as then
    line = [("r2", 2.0)]
    _one_after_another(line, [("r1", 2.0)])
    assert line == [("r2", 2.0), ("r1", 2.0)]


def test_placing_stays_linear_in_reads_shown_before_the_logged_ones():
    # red team 101, F03: a scan per new read made 8,000 new reads shown before 8,000 logged
    # ones cost seconds; the rule's bounds are counted in one pass (asserted by counting the
    # look-ups a quadratic rule would make: the line is walked a fixed number of times)
    n = 4000
    line = [(f"l{k}", None) for k in range(n)]
    reads = [(f"n{k}", None) for k in range(n)] + line

    class Counted(list):
        walks = 0

        def __iter__(self):
            Counted.walks += 1
            return super().__iter__()

    placed = reads_placed(Counted(line), set(dict(line)), reads)
    assert [p[2] for p in placed] == ["l0"] * n and Counted.walks <= 4


def _first_then_both(ts_first, ts_older, ts_newer):
    first = [tool("t2", "tool:r2", R2, resource="file:app.ini", ts=ts_first), TURN]
    both = [tool("t1", "tool:r1", R1, resource="file:app.ini", ts=ts_older),
            tool("t2", "tool:r2", R2, resource="file:app.ini", ts=ts_newer), TURN]
    return first, both


STAMPS = [(None, None, None), (2.0, None, None), (2.0, None, 2.0), (None, None, 2.0), (None, None, 0.5),
          (None, 1.0, None), (2.0, 2.0, 2.0), (None, 2.0, 2.0), (None, 1.0, 2.0), (2.0, 1.0, 2.0)]


def test_the_newer_read_logged_first_stays_the_newest_whatever_the_stamps(tmp_path):
    # red teams 98, F03/F03b and 101, F01/F01b/F08: the newer read r2 committed first, then a
    # window showing the older r1 before it (by the window's rule r2 is the newer: by ts when
    # both have one and they differ, else by place); r1 went after r2 in the log, so the
    # eviction of r2 keeping the stale r1 passed in the session (refused without one) and a
    # summary keeping retries=3 passed once the reads had left, live and resumed
    for k, (ts_first, ts_older, ts_newer) in enumerate(STAMPS):
        path = str(tmp_path / f"s{k}.sqlite3")
        store = store_with({"tool:r1": R1, "tool:r2": R2}, path=path)
        first, both = _first_then_both(ts_first, ts_older, ts_newer)
        live = Gate(store, session="S")
        assert_accepted(live.check(first, first, operator="reorder", commit=True))
        for gate in (live, Gate(store_with({"tool:r1": R1, "tool:r2": R2}))):
            find(gate.check(both, [both[0], TURN], operator="evict", evicted=["tool:r2"]), "I4", block="t1")
            assert_accepted(gate.check(both, [both[1], TURN], operator="evict", evicted=["tool:r1"]))
        assert_accepted(live.check(both, both, operator="reorder", commit=True))
        for gate in (live, Gate(SourceStore(path), session="S")):
            assert [h for h, _ in gate._read_log["file:app.ini"]] == ["tool:r1", "tool:r2"], (ts_first, ts_older, ts_newer)
            stale = [TURN, summary("s", "The config sets retries=3.\n", ["tool:r1"])]
            find(gate.check([TURN], stale, operator="summarize"), "I4", key="retries", value="3")
            honest = [TURN, summary("s", "The config sets retries=5.\n", ["tool:r2"])]
            assert_accepted(gate.check([TURN], honest, operator="summarize"), "lossy")


def test_a_supersession_edge_from_the_older_read_goes_backwards_in_a_session_too():
    # red team 101, F01d: "the stale r1 supersedes the newer r2" passed in the session
    first, both = _first_then_both(None, None, 2.0)
    for session in ("S", None):
        store = store_with({"tool:r1": R1, "tool:r2": R2})
        gate = Gate(store, session=session) if session else Gate(store)
        gate.check(first, first, operator="reorder", commit=True)
        verdict = gate.check(both, [both[0], TURN], operator="prune", supersedes=[("t1", "tool:r2")])
        assert not verdict.accepted
        assert any("goes backwards" in v.message for v in verdict.violations), session


_PAD = "".join(f"line{i}=value{i}\n" for i in range(150))


def test_compact_keeps_the_newer_read_a_session_logged_first():
    # red teams 98, F03 (compact) and 101, F01c/F08c: compact() planned by the log's order, in
    # which the older read, shown first, had gone after the newer one: it evicted the newer
    texts = {k: f"retries={k}\n" + _PAD for k in (3, 5)}
    user = Block("u", "user", "fix the retry loop\n", ("user:u",))

    def read(k, ts):
        return Block(f"f{k}", "tool", texts[k], (f"tool:r{k}",), resource="file:app.ini", ts=ts)

    for ts_first, ts_older, ts_newer in ((2.0, None, 2.0), (2.0, 2.0, 2.0), (None, 1.0, None), (None, None, None)):
        kept = {}
        for session in ("S", None):
            store = memory_store({**{f"tool:r{k}": t for k, t in texts.items()}, "user:u": "fix the retry loop\n"})
            gate = Gate(store, session=session) if session else Gate(store)
            first = Window([user, read(5, ts_first)])
            gate.check(first, first, operator="reorder", commit=True)
            result = compact(Window([user, read(3, ts_older), read(5, ts_newer)]), lambda r: "x", store=store,
                             budget_tokens=1300, gate=gate, on_reject="raise")
            assert result.verdict.accepted
            kept[session] = [b.id for b in result.window]
        assert kept["S"] == kept[None] == ["f5"], (ts_first, ts_older, ts_newer, kept)


def test_a_resume_puts_a_record_s_reads_where_the_live_log_put_them(tmp_path):
    # red team 101, F02: a check whose pre and post windows both added reads of one resource;
    # the record held two windows' placing lists one after the other, and a resume, placing
    # them again by the rule, put the post's read (shown before the logged one) last
    src = {"tool:rY": "retries=1\ntimeout=30\n", "tool:rB": "retries=2\ntimeout=30\n",
           "tool:rX": "retries=3\ntimeout=30\n"}
    path = str(tmp_path / "s.sqlite3")
    live = Gate(store_with(src, path=path), session="S")

    def t(h):
        return tool("t" + h[-1], h, src[h], resource="file:app.ini")

    assert_accepted(live.check([t("tool:rB"), TURN], [t("tool:rB"), TURN], operator="reorder", commit=True))
    pre = [blk("m", "tool", src["tool:rY"], ["tool:rY", "tool:rB"], resource="file:app.ini"), t("tool:rB"),
           t("tool:rX"), TURN]
    post = [blk("m", "tool", src["tool:rY"], ["tool:rY"], resource="file:app.ini"), *pre[1:]]
    assert_accepted(live.check(pre, post, operator="rewrite", commit=True))
    resumed = Gate(SourceStore(path), session="S")
    assert [h for h, _ in live._read_log["file:app.ini"]] == ["tool:rY", "tool:rB", "tool:rX"]
    assert resumed._read_log == live._read_log
    for gate in (live, resumed):
        find(gate.check([TURN], [TURN, summary("s", "The config sets retries=1.\n", ["tool:rY"])],
                        operator="summarize"), "I4", key="retries", value="1")
        assert_accepted(gate.check([TURN], [TURN, summary("s", "The config sets retries=3.\n", ["tool:rX"])],
                                   operator="summarize"), "lossy")


def test_the_incremental_and_the_rebuilt_left_reads_agree_on_the_newest(tmp_path):
    # red team 101, F07: log [r2 (no ts), r0 (ts 1)]; a pre window [t1 (r1, new, no ts), t2
    # (r2)]: the log takes r1 before r2, so r0 stays the newest; _LeftLine.newest() took r1
    r0, r1, r2 = "retries=9\ntimeout=30\n", "retries=3\ntimeout=30\n", "retries=5\ntimeout=30\n"
    sources = {"tool:r0": r0, "tool:r1": r1, "tool:r2": r2}
    t0 = tool("t0", "tool:r0", r0, resource="file:app.ini", ts=1.0)
    t1 = tool("t1", "tool:r1", r1, resource="file:app.ini")
    t2 = tool("t2", "tool:r2", r2, resource="file:app.ini")
    verdicts = {}
    for incremental in (True, False):
        for value, read in (("3", "tool:r1"), ("5", "tool:r2"), ("9", "tool:r0")):
            path = str(tmp_path / f"s{incremental}{value}.sqlite3")
            gate = Gate(store_with(sources, path=path), session="S")
            gate._incremental_left = incremental
            gate.check([t2, TURN], [t2, TURN], operator="reorder", commit=True)
            gate.check([t2, t0, TURN], [t2, t0, TURN], operator="reorder", commit=True)
            post = [TURN, summary("s", f"The config sets retries={value}.\n", [read])]
            pre = [t1, t2, TURN]
            first = gate.check(pre, post, operator="summarize", evicted=["tool:r1", "tool:r2"]).accepted
            again = gate.check(pre, post, operator="summarize", evicted=["tool:r1", "tool:r2"]).accepted
            resumed = Gate(SourceStore(path), session="S")
            resumed._incremental_left = incremental
            later = resumed.check(pre, post, operator="summarize", evicted=["tool:r1", "tool:r2"]).accepted
            assert first == again == later, (incremental, value)
            verdicts[incremental, value] = first
    assert {v: verdicts[True, v] for v in "359"} == {v: verdicts[False, v] for v in "359"}
    # the log holds [r1, r2, r0]: r0's value is the newest, r1's and r2's stale (r2's 5, though
    # the pre window shows r2, is no longer excused by it: red team 122, F12)
    assert verdicts[True, "9"] and not verdicts[True, "5"] and not verdicts[True, "3"]


def test_a_record_written_before_reads_kept_where_they_went_is_replayed_by_ts(tmp_path):
    # a record of two fields per read (handle, ts) was placed by ts alone when it was written;
    # a resume places it so, not by the window rule it cannot see
    path = str(tmp_path / "s.sqlite3")
    store = store_with({"tool:r1": R1, "tool:r2": R2}, path=path)
    store._append_gate_audit([{"session": "S", "cycle": 1, "reads": {"file:app.ini": [["tool:r2", 2.0]]}}])
    store._append_gate_audit([{"session": "S", "cycle": 2, "reads": {"file:app.ini": [["tool:r1", 2.0], ["tool:r3", None]]}}])
    store._append_gate_audit([{"session": "S", "cycle": 3, "reads": {"file:app.ini": [["tool:r4", None, "tool:r2"],
                                                                               ["tool:r5", 1.0, 7], ["tool:r1", 9.0]]}}])
    resumed = Gate(SourceStore(path), session="S")
    assert resumed._read_log["file:app.ini"] == [("tool:r4", None), ("tool:r2", 2.0), ("tool:r1", 2.0),
                                                 ("tool:r3", None), ("tool:r5", 1.0)]
    assert not math.isnan(len(resumed._read_of))


def test_provgate_check_sessions_across_processes_keep_the_newer_read(tmp_path, capsys):
    # red team 98, F03 through the CLI: cycle 1 commits the newer read alone; cycle 2, in another
    # process, evicts it keeping the older read shown before it (stamped): refused with the
    # session as without it
    def read(name, text, **extra):
        return {"id": f"t{name[-1]}", "role": "tool", "text": text, "handles": [name], "resource": "file:app.ini",
                **extra}

    turn = {"id": "a", "role": "assistant", "text": "ok\n"}
    first = [read("tool:r2", R2), turn]
    both = [read("tool:r1", R1, ts=1.0), read("tool:r2", R2), turn]
    edits = {"e1.json": {"operator": "reorder", "pre": first, "post": first,
                         "sources": {"tool:r1": R1, "tool:r2": R2}},
             "e2.json": {"operator": "evict", "pre": both, "post": [both[0], turn], "evicted": ["tool:r2"]}}
    for name, edit in edits.items():
        (tmp_path / name).write_text(json.dumps(edit), encoding="utf-8")
    store = tmp_path / "s.sqlite3"
    assert cli.main(["check", str(tmp_path / "e1.json"), "--store", str(store), "--create", "--session", "S"]) == 0
    for session in (["--session", "S"], []):
        capsys.readouterr()
        assert cli.main(["check", str(tmp_path / "e2.json"), "--store", str(store), *session]) == 1
        verdict = json.loads(capsys.readouterr().out)
        assert [v["invariant"] for v in verdict["violations"]] == ["I4"], session


def test_a_resume_meeting_a_two_field_record_keeps_the_marker_names_of_the_reads_before_it(tmp_path):
    # red team 104, F03: the reads pending before a record of an older writer were put in the
    # line but their marker names forgotten, so "[src:r1]" no longer reached the read log and
    # a summary keeping the stale retries=1 passed
    path = str(tmp_path / "s.sqlite3")
    store = store_with({"tool:r1": "retries=1\n", "tool:r2": "retries=2\n", "user:u1": "summarize the config\n"},
                       path=path)
    store._append_gate_audit([{"session": "S", "cycle": 1, "reads": {"file:app.ini": [["tool:r1", 1.0, None]]}}])
    store._append_gate_audit([{"session": "S", "cycle": 2, "reads": {"file:app.ini": [["tool:r2", 2.0]]}}])
    resumed = Gate(SourceStore(path), session="S")
    assert "r1" in resumed._read_names and "r2" in resumed._read_names
    user = blk("u", "user", "summarize the config\n", ["user:u1"])
    post = [user, summary("s", "It sets retries=1 [src:r1].\n", ["user:u1"])]
    find(resumed.check([user, TURN], post, operator="summarize", evicted=["a"]), "I4", key="retries", value="1")


@pytest.mark.parametrize("stamps", ["ascending", "descending", "first later"])
def test_a_resume_of_many_two_field_records_puts_them_in_one_pass(tmp_path, stamps):
    # red team 104, F02: each record of an older writer placed by ts copied the whole line
    # (8,000 records: 6 s); red team 106, F01: so did each whose read went before the line's
    # last (descending ts: 4,000 records 5-6 s). A run of such records is put one after
    # another in one pass of the line (asserted by counting the passes)
    path = str(tmp_path / "s.sqlite3")
    store = store_with({}, path=path)
    n = 400
    ts_of = {"ascending": float, "descending": lambda k: float(n - k), "first later": lambda k: 1.0 if k else 2.0}[stamps]
    store._append_gate_audit([{"session": "S", "cycle": k + 1, "reads": {"R": [[f"tool:c{k}", ts_of(k)]]}}
                              for k in range(n)])
    passes = []
    real = gate_module._one_after_another
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(gate_module, "_one_after_another", lambda out, reads: passes.append(1) or real(out, reads))
        resumed = Gate(SourceStore(path), session="S")
    # where one record after another put them, as the log placed them when they were written
    expected: list = []
    real(expected, [(f"tool:c{k}", ts_of(k)) for k in range(n)])
    assert len(passes) == 1 and resumed._read_log["R"] == expected
    if stamps == "descending":
        assert [h for h, _ in expected] == [f"tool:c{k}" for k in reversed(range(n))]


def test_a_resume_of_two_field_records_between_three_field_ones_keeps_their_order(tmp_path):
    # the reads pending of one kind go in before a record of the other kind is put
    path = str(tmp_path / "s.sqlite3")
    store = store_with({}, path=path)
    store._append_gate_audit([
        {"session": "S", "cycle": 1, "reads": {"R": [["tool:a", 5.0, None]]}},
        {"session": "S", "cycle": 2, "reads": {"R": [["tool:b", 3.0]]}},  # an older writer: by ts, before a
        {"session": "S", "cycle": 3, "reads": {"R": [["tool:c", None]]}},
        {"session": "S", "cycle": 4, "reads": {"R": [["tool:d", 4.0, "tool:a"]]}},
        {"session": "S", "cycle": 5, "reads": {"R": [["tool:e", 1.0]]}},
    ])
    resumed = Gate(SourceStore(path), session="S")
    assert [h for h, _ in resumed._read_log["R"]] == ["tool:b", "tool:d", "tool:a", "tool:c", "tool:e"]
    assert {"b", "e", "tool:b"} <= resumed._read_names


def test_reads_stamped_in_seconds_after_a_read_the_log_holds_in_milliseconds_are_refused(tmp_path):
    # red team 106, F02: two units are refused in one window (red team 89, F06), but the log
    # compared raw stamps across checks: a re-read 100 s later stamped in seconds went before a
    # read stamped in ms, and a summary keeping the stale value passed, live and resumed
    path = str(tmp_path / "s.sqlite3")
    sources = {"tool:old": R1, "tool:new": R2, "user:u1": "Fix the retry loop.\n"}
    user = blk("u", "user", "Fix the retry loop.\n", ["user:u1"])
    ms, later_in_s = 1_764_000_000_000.0, 1_764_000_100.0
    for first, second, refused in ((ms, later_in_s, True), (ms / 1000, later_in_s, False),
                                   (ms, ms + 100_000, False)):
        store = store_with(sources, path=path if refused else ":memory:")
        g = Gate(store, session="S")
        old = tool("t_old", "tool:old", R1, resource="file:app.ini", ts=first)
        new = tool("t_new", "tool:new", R2, resource="file:app.ini", ts=second)
        assert g.check([user, old, TURN], [user, TURN], operator="evict", evicted=["tool:old"], commit=True).accepted
        post = [user, TURN, summary("s", "The config sets retries=3.\n", ["tool:old", "tool:new"])]
        verdicts = [g.check([user, TURN, new], post, operator="summarize")]
        if refused:
            verdicts.append(Gate(SourceStore(path), session="S").check([user, TURN, new], post, operator="summarize"))
        for v in verdicts:
            if refused:
                bad = find(v, "I4", key="ts", block="t_new")
                assert bad.evidence == {"resource": "file:app.ini", "logged": "tool:old", "logged_ts": ms}
                assert "two units" in bad.message and "stamp a resource's reads in one unit" in bad.message
            else:
                find(v, "I4", key="retries", value="3")  # one unit: the stale value, as ever
        # the honest summary is refused alike while the units differ (they cannot be ordered)
        honest = [user, TURN, summary("s", "The config sets retries=5.\n", ["tool:old", "tool:new"])]
        assert g.check([user, TURN, new], honest, operator="summarize").accepted is not refused


def test_resources_stamped_in_different_units_are_each_ordered_in_their_own():
    # one tool stamps ms for one file, another seconds for another: no resource mixes units
    sources = {"tool:x1": R1, "tool:x2": R2, "tool:y1": "port=80\n", "tool:y2": "port=81\n"}
    g = Gate(store_with(sources), session="S")
    x1 = tool("x1", "tool:x1", R1, resource="file:x", ts=1_764_000_000_000.0)
    y1 = tool("y1", "tool:y1", "port=80\n", resource="file:y", ts=1_764_000_000.0)
    assert g.check([x1, y1, TURN], [x1, y1, TURN], operator="reorder", commit=True).accepted
    x2 = tool("x2", "tool:x2", R2, resource="file:x", ts=1_764_000_100_000.0)
    y2 = tool("y2", "tool:y2", "port=81\n", resource="file:y", ts=1_764_000_100.0)
    post = [summary("s", "retries=5 and port=81\n", ["tool:x1", "tool:x2", "tool:y1", "tool:y2"]), TURN]
    assert_accepted(g.check([x1, y1, x2, y2, TURN], post, operator="summarize"))
    stale = [summary("s", "retries=3 and port=81\n", ["tool:x1", "tool:x2", "tool:y1", "tool:y2"]), TURN]
    find(g.check([x1, y1, x2, y2, TURN], stale, operator="summarize"), "I4", key="retries", value="3")
    # and a read of file:y stamped in ms after the log holds it in seconds is refused, naming it
    g.store.put("tool:y3", "port=82\n")
    y3 = tool("y3", "tool:y3", "port=82\n", resource="file:y", ts=1_764_000_200_000.0)
    mixed = [summary("s", "retries=5 and port=82\n", ["tool:x2", "tool:y3"]), TURN]
    bad = find(g.check([x2, y3, TURN], mixed, operator="summarize"), "I4", key="ts", block="y3")
    assert bad.evidence["resource"] == "file:y" and bad.evidence["logged"] in {"tool:y1", "tool:y2"}
