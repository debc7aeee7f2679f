"""The session report: real gate sessions read back from the audit log, and tolerance of
records that older or foreign writers left (missing fields, non-objects, interleaving)."""

from __future__ import annotations

import json
import math
import sqlite3
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from provgate.digests import compute_digest
from provgate.errors import InvalidArgumentError, OptionalDependencyError, StoreCorruptionError
from provgate.gate import DEFAULT_RETENTION_FLOOR, Gate
from provgate.report import (
    DEFAULT_RETENTION_FLOOR as REPORT_DEFAULT_FLOOR,
    NO_SESSION,
    percentile,
    plot_report,
    report_from_records,
    run_report,
    session_report,
)
from provgate.store import SourceStore

ROOT = Path(__file__).resolve().parent.parent

# -- real gate sessions ---------------------------------------------------------------------------

N_SOURCES = 100
# markers kept after each cycle: the seed's 100% (cycle 1) -> 71% (cycle 3) -> 12% (cycle 6)
MARKERS_AFTER = [100, 100, 85, 71, 45, 25, 12]
HANDLES = [f"tool:call_{i}" for i in range(N_SOURCES)]


def _put_sources(store: SourceStore) -> None:
    for i in range(N_SOURCES):
        if f"tool:call_{i}" not in store:
            store.put(f"tool:call_{i}", f"service_{i}.ini\nport={8000 + i}\n")


def _running_summary(markers: int, block_id: str) -> list[dict]:
    """A summary restating one fact per source; the first ``markers`` facts keep their
    ``[src:call_N]`` marker (the prose the seed watched lose its citations)."""
    lines = [f"port={8000 + i}" + (f" [src:call_{i}]" if i < markers else "") for i in range(N_SOURCES)]
    return [{"id": block_id, "role": "summary", "text": "\n".join(lines) + "\n", "derived": True,
             "derived_from": HANDLES}]


def run_decay_session(store: SourceStore, session: str, floor: float) -> Gate:
    """Six summarize cycles whose compactor keeps fewer markers each time; after a rejection
    the agent keeps its window and the compactor proposes the next, shorter summary from it."""
    _put_sources(store)
    gate = Gate(store, retention_floor=floor, session=session)
    current = MARKERS_AFTER[0]
    for cycle in range(1, 7):
        verdict = gate.check(_running_summary(current, f"s{cycle - 1}"),
                             _running_summary(MARKERS_AFTER[cycle], f"s{cycle}"), operator="summarize")
        if verdict.accepted:
            current = MARKERS_AFTER[cycle]
    return gate


OLD_READ = "config/app.ini lines 1-4\nhost=db1\nretries=3\ntimeout_ms=500\n"
NEW_READ = "config/app.ini lines 1-4\nhost=db1\nretries=4\ntimeout_ms=500\n"
SETTINGS = "settings.ini\nretries=3\nbackoff_ms=200\n"


def run_merge_and_drift_session(store: SourceStore, session: str = "merge-and-drift") -> Gate:
    """Cycle 1: two reads of one file, the older kept alone (silent merge). Cycle 2: a rewrite
    turns retries=3 into retries=5. Cycle 3: an honest eviction. Cycle 4: a rewrite that drops a
    fact, reclassified as lossy. Cycle 5: a reorder (structural)."""
    store.put("tool:read_1", OLD_READ)
    store.put("tool:read_2", NEW_READ)
    store.put("tool:settings", SETTINGS)
    reads = [
        {"id": "b1", "role": "tool", "text": OLD_READ, "handles": ["tool:read_1"], "resource": "file:config/app.ini",
         "ts": 1.0},
        {"id": "b2", "role": "tool", "text": NEW_READ, "handles": ["tool:read_2"], "resource": "file:config/app.ini",
         "ts": 2.0},
    ]
    settings = [{"id": "c1", "role": "tool", "text": SETTINGS, "handles": ["tool:settings"]}]
    gate = Gate(store, session=session)
    v1 = gate.check(reads, [reads[0]], operator="prune")
    v2 = gate.check(settings, [dict(settings[0], text=SETTINGS.replace("retries=3", "retries=5"))], operator="rewrite")
    v3 = gate.check(reads + settings, reads, operator="evict", evicted=["tool:settings"])
    v4 = gate.check(settings, [dict(settings[0], text="settings.ini\nretries=3\n")], operator="rewrite",
                    policy="reclassify")
    v5 = gate.check(reads, reads[::-1], operator="reorder")
    # the scenario is what the report is tested against: pin the gate's verdicts first
    assert [v.accepted for v in (v1, v2, v3, v4, v5)] == [False, False, True, True, True]
    assert v4.reclassified and v5.classification == "structural"
    return gate


@pytest.fixture
def store(tmp_path: Path):
    s = SourceStore(tmp_path / "store.sqlite3")
    yield s
    s.close()


@pytest.fixture
def three_sessions(store: SourceStore) -> dict[str, Gate]:
    gates = {
        "decay-no-floor": run_decay_session(store, "decay-no-floor", 0.0),
        "held-floor": run_decay_session(store, "held-floor", DEFAULT_RETENTION_FLOOR),
    }
    gates["merge-and-drift"] = run_merge_and_drift_session(store)
    return gates


def test_decaying_session_reports_the_seeds_curve(store):
    gate = run_decay_session(store, "decay", 0.0)
    report = session_report(store)
    assert report.selection == "latest" and [s.session for s in report.sessions] == ["decay"]
    s = report.sessions[0]
    cumulative = [r.cumulative_retention for r in s.rows]
    assert cumulative == pytest.approx([1.0, 0.85, 0.71, 0.45, 0.25, 0.12])
    per_cycle = [r.retention for r in s.rows]
    assert per_cycle == pytest.approx([MARKERS_AFTER[c] / MARKERS_AFTER[c - 1] for c in range(1, 7)])
    # the report, read from the audit log alone, agrees with the gate's own session state
    assert cumulative == pytest.approx([h.cumulative_retention for h in gate.history])
    assert [r.cycle for r in s.rows] == [1, 2, 3, 4, 5, 6]
    assert s.totals["accepted"] == 6 and s.totals["rejected"] == 0
    assert s.totals["rejected_by_invariant"] == {}
    assert all(r.classification == "lossy" and r.operator == "summarize" for r in s.rows)
    table = report.format_table()
    assert "session decay" in table and "the most recent session" in table
    assert "100.0% at first, 12.0% cumulative after 6 cycles" in table
    row3 = next(line for line in table.splitlines() if line.strip().startswith("3  summarize"))
    assert "71.0%" in row3


def test_default_floor_session_rejects_the_decay_and_stays_flat(store):
    run_decay_session(store, "held", DEFAULT_RETENTION_FLOOR)
    s = session_report(store, session="held").sessions[0]
    assert [r.accepted for r in s.rows] == [True, False, False, False, False, False]
    assert [r.cumulative_retention for r in s.rows] == pytest.approx([1.0] * 6)
    # a rejected row shows the retention the edit proposed, the cumulative what was committed
    assert [r.retention for r in s.rows[1:]] == pytest.approx([0.85, 0.71, 0.45, 0.25, 0.12])
    assert s.totals["rejected_by_invariant"] == {"I5": 5}
    assert s.totals["violations_by_invariant"] == {"I5": 5}
    assert s.retention_floor == pytest.approx(0.95)  # read from the I5 evidence
    assert "floor 95.0%" in session_report(store).format_table()


def test_silent_merge_and_fact_drift_are_counted(store):
    run_merge_and_drift_session(store)
    s = session_report(store).sessions[0]
    rows = s.rows
    assert rows[0].merges == 1 and rows[0].silent_merges == 1
    assert all(r.merges == 0 for r in rows[1:])
    assert s.totals["silent_merges"]["caught"] == 1
    assert s.totals["silent_merges"]["edits"] == 1
    assert s.totals["silent_merges"]["rate"] == pytest.approx(1 / 5)
    changes = s.totals["fact_drift"]["value_changes"]
    assert [(c["key"], c["old"], c["new"], c["cycle"]) for c in changes] == [("retries", ["3"], ["5"], 2)]
    assert (rows[1].facts_introduced, rows[1].facts_dropped, rows[1].ungrounded) == (1, 1, 1)
    # drift caught: the merge dropped retries=4, the rewrite changed retries, the reclassified
    # rewrite dropped backoff_ms; the eviction and the reorder lost nothing
    assert [r.drift for r in rows] == [True, True, False, True, False]
    assert s.totals["fact_drift"]["edits"] == 3
    assert s.totals["fact_drift"]["ungrounded"] == 1
    assert s.totals["rejected_by_invariant"] == {"I1": 1, "I2": 2, "I4": 1}
    assert s.totals["accepted_with_violations_by_invariant"] == {"I2": 1}
    assert s.totals["reclassified"] == 1 and rows[3].reclassified and rows[3].classification == "lossy"
    assert rows[2].evicted_handles == 1 and rows[2].evicted_facts == 2
    assert s.totals["evictions"]["records"] == 1
    # no citation markers anywhere: retention is undefined, not 0 and not 100
    assert all(r.retention is None and r.cumulative_retention is None for r in rows)
    assert not any(r.unknown for r in rows)
    table = session_report(store).format_table()
    assert "silent merge: the older read of 'file:config/app.ini' is kept" in table
    assert "retries 3 -> 5" in table
    assert "lossy*" in table and "I2×2 I4" in table
    assert "retention      n/a" in table


def test_latency_percentiles_are_the_gates_totals(store):
    run_decay_session(store, "lat", 0.0)
    totals = [rec["timings_ms"]["total"] for _, rec in store.iter_audit()]
    lat = session_report(store).sessions[0].totals["latency_ms"]
    assert lat["n"] == 6
    assert lat["max"] == max(totals)
    assert lat["p50"] == sorted(totals)[2]  # nearest rank: ceil(0.5 * 6) = 3rd smallest
    assert lat["p90"] == lat["p99"] == max(totals)


def test_percentile_is_nearest_rank():
    values = [float(v) for v in range(100, 0, -1)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 90) == 90.0
    assert percentile(values, 99) == 99.0
    assert percentile(values, 100) == 100.0
    assert percentile([7.0], 50) == 7.0
    assert percentile([], 50) is None
    assert percentile([1.0, 2.0], 50) == 1.0


def test_session_selection(store, three_sessions):
    latest = session_report(store)
    assert [s.session for s in latest.sessions] == ["merge-and-drift"]
    assert "the most recent session of 3" in latest.format_table()
    every = session_report(store, session="all")
    assert [s.session for s in every.sessions] == ["decay-no-floor", "held-floor", "merge-and-drift"]
    assert every.overall is not None and every.overall["cycles"] == 17
    assert every.overall["rejected_by_invariant"] == {"I1": 1, "I2": 2, "I4": 1, "I5": 5}
    table = every.format_table()
    for name in ("decay-no-floor", "held-floor", "merge-and-drift"):
        assert f"session {name}" in table
    picked = session_report(store, session=["held-floor", "decay-no-floor"])
    assert [s.session for s in picked.sessions] == ["held-floor", "decay-no-floor"]
    assert [k["session"] for k in picked.known_sessions] == ["decay-no-floor", "held-floor", "merge-and-drift"]


def test_unknown_session_lists_the_known_ones(store, three_sessions):
    with pytest.raises(InvalidArgumentError, match="unknown session 'nope'.*merge-and-drift, held-floor, "
                       "decay-no-floor") as info:
        session_report(store, session="nope")
    assert info.value.argument == "session"
    text, code = run_report(store, session="nope")
    assert code == 2
    err = json.loads(text)["error"]
    assert err["type"] == "unknown_session"
    assert err["known_sessions"] == ["merge-and-drift", "held-floor", "decay-no-floor"]


@pytest.mark.parametrize("bad", ["", 3, [], ["ok", ""], ("a", 1), {"a": 1}, b"s"])
def test_bad_session_argument_is_refused_before_reading(store, bad):
    with pytest.raises(InvalidArgumentError):
        session_report(store, session=bad)
    text, code = run_report(store, session=bad)
    assert code == 2 and json.loads(text)["error"]["type"] == "usage"


def test_empty_audit_log(store):
    report = session_report(store)
    assert report.empty and report.sessions == () and report.records == 0
    assert "no usable audit records" in report.format_table()
    text, code = run_report(store)
    assert code == 2
    err = json.loads(text)["error"]
    assert err["type"] == "no_audit_records" and "no audit records" in err["message"]
    text, code = run_report(store, session="anything")
    assert code == 2 and json.loads(text)["error"]["type"] == "unknown_session"


def test_run_report_text_and_json(store, three_sessions):
    text, code = run_report(store)
    assert code == 0 and text.startswith("provgate session report")
    out, code = run_report(store, session="all", as_json=True)
    assert code == 0
    obj = json.loads(out)
    assert obj["format"] == "provgate.report/1" and obj["selection"]["mode"] == "all"
    assert [s["session"] for s in obj["sessions"]] == ["decay-no-floor", "held-floor", "merge-and-drift"]
    decay = obj["sessions"][0]
    assert [c["cumulative_retention"] for c in decay["per_cycle"]] == pytest.approx([1, 0.85, 0.71, 0.45, 0.25, 0.12])
    assert decay["retention"]["final_cumulative"] == pytest.approx(0.12)
    # strict JSON: no NaN or infinity anywhere
    json.dumps(obj, allow_nan=False)


def test_interleaved_sessions_are_separated(store):
    _put_sources(store)
    a = Gate(store, retention_floor=0.0, session="A")
    b = Gate(store, session="B")
    window = _running_summary(100, "s0")
    for k in range(1, 5):
        a.check(window, _running_summary(100 - 10 * k, "a"), operator="summarize")
        b.check(window, window, operator="prune")  # nothing changes: structural
    report = session_report(store, session="all")
    sa, sb = report.session("A"), report.session("B")
    assert [r.cycle for r in sa.rows] == [1, 2, 3, 4] and [r.cycle for r in sb.rows] == [1, 2, 3, 4]
    assert [r.seq for r in sa.rows] == [1, 3, 5, 7] and [r.seq for r in sb.rows] == [2, 4, 6, 8]
    assert all(r.classification == "structural" for r in sb.rows)
    assert [r.retention for r in sb.rows] == pytest.approx([1.0] * 4)
    assert [r.retention for r in sa.rows] == pytest.approx([0.9, 0.8, 0.7, 0.6])
    assert sa.notes == () and sb.notes == ()
    assert session_report(store).sessions[0].session == "B"  # wrote the last record


def test_a_second_gate_with_the_same_session_id_continues_it(store):
    run_decay_session(store, "reused", 0.0)
    run_decay_session(store, "reused", 0.0)
    s = session_report(store).sessions[0]
    # the second gate resumed the session from the audit log: numbering runs on
    assert [r.cycle for r in s.rows] == list(range(1, 13))
    assert [r.index for r in s.rows] == list(range(1, 13))
    assert not any("cycle numbers are not 1..N" in n for n in s.notes)
    # the cumulative runs on over the whole session, in log order
    assert s.rows[-1].cumulative_retention == pytest.approx(0.12 * 0.12)


# -- synthetic records: tolerance -------------------------------------------------------------------


def _record(session: str = "s", cycle: int = 1, **over):
    rec = {
        "accepted": True, "classification": "lossless", "operator": "prune", "reclassified": False,
        "cycle": cycle, "violations": [], "violations_by_invariant": {},
        "facts": {"pre": 3, "post": 3, "introduced": 0, "dropped": 0, "superseded": 0, "evicted": 0,
                  "violations_omitted": 0},
        "retention": 1.0, "timings_ms": {"total": 1.5}, "session": session, "evicted_handles": 0,
        "pre_digest": "blake3:" + "0" * 64, "post_digest": "blake3:" + "0" * 64, "ts": 1.8e9,
        "blocks": {"pre": 2, "post": 2},
    }
    rec.update(over)
    return rec


def test_old_records_missing_fields_are_unknown_not_zero():
    bare = {"accepted": False, "cycle": 2, "session": "old"}  # what an early writer might leave
    report = report_from_records([(1, _record("old", 1, retention=0.5)), (2, bare)])
    s = report.sessions[0]
    row = s.rows[1]
    for name in ("retention", "violations", "facts.introduced", "timings_ms.total", "operator", "ts"):
        assert name in row.unknown
    assert row.accepted is False and row.cycle == 2
    assert row.merges is None and row.ungrounded is None and row.total_ms is None
    # a rejected edit does not move the committed window, even with its retention unknown
    assert row.cumulative_retention == pytest.approx(0.5) and "cumulative_retention" not in row.unknown
    assert s.totals["latency_ms"]["n"] == 1
    assert s.totals["silent_merges"]["records_unknown"] == 1
    table = report.format_table()
    line = next(x for x in table.splitlines() if x.strip().startswith("2  ?"))
    assert line.split()[2:5] == ["rejected", "?", "50.0%"]
    assert any("lack or have malformed fields" in n for n in s.notes)


def test_unknown_verdict_makes_the_cumulative_unknown_from_there_on():
    recs = [_record(cycle=1, retention=0.5), _record(cycle=2, accepted="yes", retention=0.5),
            _record(cycle=3, retention=0.5)]
    rows = report_from_records(recs).sessions[0].rows
    assert rows[0].cumulative_retention == pytest.approx(0.5)
    assert rows[1].accepted is None and rows[1].cumulative_retention is None
    assert "cumulative_retention" in rows[1].unknown and "cumulative_retention" in rows[2].unknown
    table = report_from_records(recs).format_table()
    assert "cumulative unknown" in table


def test_undefined_retention_is_na_and_keeps_the_cumulative():
    recs = [_record(cycle=1, retention=0.8), _record(cycle=2, retention=None), _record(cycle=3, retention=0.5)]
    rows = report_from_records(recs).sessions[0].rows
    assert [r.cumulative_retention for r in rows] == pytest.approx([0.8, 0.8, 0.4])
    assert rows[1].retention is None and "retention" not in rows[1].unknown
    line = next(x for x in report_from_records(recs).format_table().splitlines() if x.strip().startswith("2  prune"))
    assert line.split()[3:5] == ["n/a", "80.0%"]


@pytest.mark.parametrize("field,value", [
    ("retention", "high"), ("retention", -0.1), ("retention", float("nan")), ("retention", True),
    ("cycle", "1"), ("cycle", -1), ("accepted", 1), ("timings_ms", {"total": float("inf")}),
    ("timings_ms", [1]), ("violations", "I2"), ("violations", [{"no": "invariant"}]),
    ("violations_by_invariant", {"I2": "two"}), ("facts", None), ("evicted_handles", 1.5), ("ts", "now"),
    ("retention", 10**400), ("timings_ms", {"total": 10**400}),  # ints beyond any float (red team 3, H02)
])
def test_malformed_fields_are_unknown(field, value):
    rec = _record(**{field: value})
    if field == "violations_by_invariant":
        rec["violations"] = None
    report = report_from_records([rec])
    row = report.sessions[0].rows[0]
    assert row.unknown, f"{field}={value!r} should be reported as unknown"
    report.format_table()
    json.dumps(report.to_json(), allow_nan=False)


def test_a_string_utf8_cannot_hold_is_unknown(tmp_path):
    # red team 82, F05: an intact record whose operator was "prune\ud800" (a lone surrogate,
    # escaped in valid JSON) crashed `provgate report` with an internal error when printed
    merge = {"invariant": "I4", "key": "resource", "evidence": {"kept": ["b1"], "newest": "b2"},
             "message": "silent merge of \udc80"}
    path = tmp_path / "s.sqlite3"
    store = SourceStore(path)
    try:
        store._append_gate_audit([_record("s1", 1)])
        for body in (json.dumps(_record("s1", 2, operator="prune\ud800", classification="x\udfff",
                                        accepted=False, violations=[merge],
                                        violations_by_invariant={"I4": 1})).encode(),
                     json.dumps(_record("s\ud800", 1)).encode()):
            conn = sqlite3.connect(str(path))
            with conn:
                conn.execute("INSERT INTO audit (record, digest, session) VALUES (?, ?, 's1')",
                             (body, compute_digest(body)))
            conn.close()
        report = session_report(store, session="all")
        row = report.session("s1").rows[1]
        assert row.operator is None and row.classification is None
        assert {"operator", "classification"} <= set(row.unknown)
        assert row.merges == 1 and row.caught[0].message == "?"
        # a session id no UTF-8 can hold is malformed too: grouped with the records that have none
        assert [s.session for s in report.sessions] == ["s1", None]
        for as_json in (False, True):
            text, code = run_report(store, session="all", as_json=as_json)
            assert code == 0
            text.encode("utf-8")
        assert json.loads(text)["sessions"][0]["per_cycle"][1]["operator"] is None
    finally:
        store.close()


def test_a_time_no_calendar_has_and_an_overflowing_cumulative_are_unknown(tmp_path):
    # red team 3, H02: a finite ts past year 9999 crashed the table; two retentions of 1e200
    # made the cumulative infinite (printed as Infinity in strict JSON); Gate(session=...) over
    # an int retention beyond any float crashed
    recs = [_record(cycle=1, retention=1e200, ts=1e20), _record(cycle=2, retention=1e200, ts=1e20)]
    report = report_from_records(recs)
    assert "?" in report.format_table()
    rows = report.sessions[0].rows
    # (each cycle's factor is capped at 1 now, red team 132 F02b: 1e200 twice is 100%, which
    # cannot overflow; the product is never "Infinity")
    assert rows[1].cumulative_retention == 1.0 and "cumulative_retention" not in rows[1].unknown
    json.dumps(report.to_json(), allow_nan=False)
    store = SourceStore(str(tmp_path / "s.sqlite3"))
    store._append_gate_audit([_record("odd", 1, retention=10**400)])
    store._append_gate_audit([_record("odd", 2, retention=1e300)])
    # (a resumed gate's history holds the session's rows, red team 132, F06: the int beyond
    # any float is no retention there, and crashes nothing)
    history = Gate(store, session="odd").history
    assert [r.cycle for r in history] == [1, 2] and history[0].retention is None


def test_partial_violation_list_is_not_counted_as_exact():
    rec = _record(accepted=False, classification="rejected",
                  violations=[{"invariant": "I4", "key": "resource", "evidence": {"kept": ["b1"], "newest": "b2"},
                               "message": "silent merge"}, "garbage"],
                  violations_by_invariant={"I4": 1})
    row = report_from_records([rec]).sessions[0].rows[0]
    assert row.violations == {"I4": 1}  # the record's own counts
    assert row.merges is None and "violations" in row.unknown


def test_non_object_records_are_reported_not_fatal():
    records = [(1, _record("s", 1)), (2, [1, 2]), (3, "text"), (4, None), (5, _record("s", 2))]
    report = report_from_records(records)
    assert [(k["seq"], k["reason"]) for k in report.skipped] == [
        (2, "not a JSON object but an array"), (3, "not a JSON object but a string"), (4, "not a JSON object but null")]
    assert report.records == 5 and len(report.sessions[0].rows) == 2
    assert "skipped 3 record(s) that are not JSON objects: seq 2, 3, 4" in report.format_table()


def test_non_object_records_in_a_real_store(tmp_path):
    path = tmp_path / "s.sqlite3"
    store = SourceStore(path)
    try:
        run_decay_session(store, "real", 0.0)
        conn = sqlite3.connect(str(path))
        with conn:
            for body in (b"[1,2,3]", b'"a string"'):
                conn.execute("INSERT INTO audit (record, digest, session) VALUES (?, ?, '')", (body, compute_digest(body)))
        conn.close()
        report = session_report(store)
        assert [k["seq"] for k in report.skipped] == [7, 8]
        assert len(report.sessions[0].rows) == 6
        text, code = run_report(store)
        assert code == 0 and "skipped 2 record(s)" in text
    finally:
        store.close()


def test_only_non_object_records_is_unusable():
    report = report_from_records([(1, [1]), (2, 3)])
    assert report.empty and len(report.skipped) == 2
    assert "no usable audit records" in report.format_table()


def test_corrupted_audit_record_fails_closed(tmp_path):
    path = tmp_path / "s.sqlite3"
    store = SourceStore(path)
    try:
        run_decay_session(store, "real", 0.0)
        body = json.dumps(_record("real", 7)).encode()
        conn = sqlite3.connect(str(path))
        with conn:
            conn.execute("INSERT INTO audit (record, digest, session) VALUES (?, ?, 'real')",
                         (body, compute_digest(body + b" ")))
        conn.close()
        with pytest.raises(StoreCorruptionError):
            session_report(store)
        text, code = run_report(store)
        assert code == 2
        err = json.loads(text)["error"]
        assert err["type"] == "StoreCorruptionError" and "audit record 7" in err["message"]
    finally:
        store.close()


def test_records_without_a_session_are_grouped_and_selectable():
    recs = [(1, _record(cycle=1, session=None)), (2, _record("named", 1)), (3, _record(cycle=2, session=""))]
    report = report_from_records(recs, session="all")
    assert [s.session for s in report.sessions] == ["named", None]
    none = report.session(None)
    assert [r.seq for r in none.rows] == [1, 3] and all("session" in r.unknown for r in none.rows)
    assert report_from_records(recs).sessions[0].session is None  # the last record has none
    assert report_from_records(recs, session=[None]).sessions[0].rows[0].seq == 1
    assert f"session {NO_SESSION} (no session id)" in report.format_table()
    assert report.to_json()["selection"]["sessions"] == ["named", None]


def test_a_session_named_none_is_not_the_records_without_a_session():
    # red team 82, F06: Gate(store, session="(none)") is a valid id; its records were merged
    # with an older gate's records that have no session id (one session, a rejection it never made)
    recs = [(1, _record(cycle=1, session=None, accepted=False)), (2, _record(NO_SESSION, 1))]
    report = report_from_records(recs, session="all")
    assert [(s.session, s.totals["cycles"]) for s in report.sessions] == [(None, 1), (NO_SESSION, 1)]
    own = report_from_records(recs, session=NO_SESSION).sessions[0]
    assert [r.seq for r in own.rows] == [2] and own.totals["rejected"] == 0 and not own.notes
    assert [r.seq for r in report_from_records(recs, session=[None]).sessions[0].rows] == [1]
    with pytest.raises(InvalidArgumentError, match=r"most recent first: \(none\), \(none\) \(no session id\)$"):
        report_from_records(recs, session="other")


def test_a_session_named_all_is_selectable_as_a_list():
    recs = [(1, _record("all", 1)), (2, _record("other", 1))]
    assert [s.session for s in report_from_records(recs, session="all").sessions] == ["all", "other"]
    assert [s.session for s in report_from_records(recs, session=["all"]).sessions] == ["all"]


def test_omitted_violations_and_recorded_floor_are_shown():
    rec = _record(accepted=False, classification="rejected", retention_floor=0.9,
                  violations=[{"invariant": "I2", "key": "k", "value": "1", "evidence": {"change": "dropped"},
                               "message": "dropped"}],
                  violations_by_invariant={"I2": 1},
                  facts={"pre": 5000, "post": 0, "introduced": 0, "dropped": 4000, "superseded": 0, "evicted": 0,
                         "violations_omitted": 3999})
    s = report_from_records([rec]).sessions[0]
    assert s.rows[0].facts_dropped == 4000  # the exact count, not the stored violations
    assert s.retention_floor == pytest.approx(0.9)
    assert any("3999 violation(s) were not stored" in n for n in s.notes)
    assert "floor 90.0%" in report_from_records([rec]).format_table()


def test_i4_violations_are_told_apart():
    violations = [
        {"invariant": "I4", "key": "resource", "value": "file:a", "evidence": {"kept": ["b1"], "newest": "b2"},
         "message": "silent merge"},
        {"invariant": "I4", "key": "retries", "value": "3", "evidence": {"resource": "file:a", "newer_value": "4"},
         "message": "stale value kept alone"},
        {"invariant": "I4", "key": "resource", "value": "file:a", "evidence": {}, "message": "older read dropped"},
        {"invariant": "I4", "block": "x", "handle": "h", "evidence": {}, "message": "edge goes backwards"},
    ]
    rec = _record(accepted=False, classification="rejected", violations=violations, violations_by_invariant={"I4": 4})
    row = report_from_records([rec]).sessions[0].rows[0]
    assert (row.silent_merges, row.stale_values, row.merges) == (1, 1, 2)
    assert [c.kind for c in row.caught] == ["silent_merge", "stale_value"]


def test_a_stale_dotted_path_the_gate_caught_is_a_merge(store):
    # red team 82, F03: the gate's dotted-path rule names the newer read ("newer") and the
    # span, not the newer value ("newer_value"); its violation was counted as a supersession
    # problem: merges 0, nothing under "caught"
    old, new = "server:\n  retries: 3\n  port: 8080\n", "server:\n  retries: 5\n  port: 8080\n"
    store.put("tool:a", old)
    store.put("tool:b", new)
    pre = [
        {"id": "r1", "role": "tool", "text": old, "handles": ["tool:a"], "resource": "file:app.yaml", "ts": 1.0},
        {"id": "r2", "role": "tool", "text": new, "handles": ["tool:b"], "resource": "file:app.yaml", "ts": 2.0},
    ]
    summary = {"id": "s", "role": "summary", "text": "The server has server.retries=3 and server.port=8080.\n",
               "derived": True, "derived_from": ["tool:a", "tool:b"], "resource": "file:app.yaml"}
    verdict = Gate(store, session="stale-path").check(pre, [summary], operator="summarize")
    stale = [v for v in verdict.violations if v.invariant == "I4" and v.message.startswith("stale value kept alone")]
    assert stale and all("newer_value" not in v.evidence for v in stale)  # the shape this test is about
    s = session_report(store).sessions[0]
    row = s.rows[0]
    assert (row.silent_merges, row.stale_values, row.merges) == (0, len(stale), len(stale))
    assert [(c.kind, c.message) for c in row.caught] == [("stale_value", v.message) for v in stale]
    assert s.totals["silent_merges"]["caught"] == len(stale) and s.totals["silent_merges"]["edits"] == 1
    assert "stale value kept alone: server.retries='3'" in session_report(store).format_table()


def test_every_i4_evidence_shape_of_the_gate_is_told_apart():
    # the shapes the gate writes (gate.py): a spread read's silent merge names the handle of
    # the newest read it held ("newest_held"), not a block ("newest"); a backwards edge names
    # "older" and "newer" blocks, which is not a stale value
    violations = [
        {"invariant": "I4", "key": "resource", "value": "file:a", "evidence": {"kept": ["b1"], "newest_held": "tool:c"},
         "message": "block 'b2' holds reads of 'file:a' that the session's read log orders apart"},
        {"invariant": "I4", "key": "server.retries", "value": "3",
         "evidence": {"resource": "file:a", "newer": "b2", "span": [15, 31]}, "message": "stale value kept alone"},
        {"invariant": "I4", "block": "x", "handle": "tool:c", "evidence": {"older": "b1", "newer": "tool:c"},
         "message": "supersession edge goes backwards"},
        {"invariant": "I4", "block": "x", "handle": "tool:c",
         "evidence": {"older": "b1", "newer": "tool:c", "named_by": "tool:d"}, "message": "supersession edge goes backwards"},
        {"invariant": "I4", "key": "resource", "value": "file:a", "evidence": {"candidates": ["b1", "b2"], "gone": ["b2"]},
         "message": "the reads of 'file:a' have no order"},
    ]
    rec = _record(accepted=False, classification="rejected", violations=violations, violations_by_invariant={"I4": 5})
    row = report_from_records([rec]).sessions[0].rows[0]
    assert (row.silent_merges, row.stale_values, row.merges) == (1, 1, 2)
    assert [c.kind for c in row.caught] == ["silent_merge", "stale_value"]


def test_table_columns_are_aligned(store, three_sessions):
    table = session_report(store, session="all").format_table()
    lines = table.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip().startswith("cycle  operator")]
    assert len(starts) == 3
    for i in starts:
        header, rule = lines[i], lines[i + 1]
        rows = []
        for line in lines[i + 2:]:
            if not line.strip():
                break
            rows.append(line)
        # right-aligned last column: every line of the table ends at the same column
        assert {len(header), len(rule)} | {len(r) for r in rows} == {len(header)}
        # every column starts where its rule does
        cols = [k for k in range(len(rule)) if rule[k] == "-" and (k == 0 or rule[k - 1] == " ")]
        assert len(cols) == 12


def test_report_default_floor_is_the_gates():
    assert REPORT_DEFAULT_FLOOR == DEFAULT_RETENTION_FLOOR


# -- plot ----------------------------------------------------------------------------------------------


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_plot_writes_a_png(store, three_sessions, tmp_path):
    import matplotlib  # noqa: F401  (the test extra installs it: the plot path is tested, never skipped)
    out = tmp_path / "retention.png"
    text, code = run_report(store, session="all", plot=out)
    assert code == 0 and f"plot written to {out}" in text
    width, height = _png_size(out)
    assert width > 600 and height > 400
    single = tmp_path / "one.png"
    assert plot_report(session_report(store, session="decay-no-floor"), single) == single
    _png_size(single)
    as_json, code = run_report(store, as_json=True, plot=tmp_path / "j.png")
    assert code == 0 and json.loads(as_json)["plot"] == str(tmp_path / "j.png")


def test_plot_without_matplotlib_names_the_extra(store, tmp_path, monkeypatch):
    run_decay_session(store, "p", 0.0)
    # simulate an environment without matplotlib: None in sys.modules makes every import fail
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = tmp_path / "r.png"
    with pytest.raises(OptionalDependencyError, match=r'pip install "provgate\[plot\]"') as info:
        plot_report(session_report(store), out)
    assert info.value.extra == "plot" and info.value.package == "matplotlib"
    assert isinstance(info.value, ImportError)
    text, code = run_report(store, plot=out)
    assert code == 2
    err = json.loads(text)["error"]
    assert err["type"] == "missing_extra" and 'pip install "provgate[plot]"' in err["message"]
    assert not out.exists()


def test_plot_refuses_other_formats(store, tmp_path):
    run_decay_session(store, "p", 0.0)
    text, code = run_report(store, plot=tmp_path / "r.pdf")
    assert code == 2 and "ending in .png" in json.loads(text)["error"]["message"]
    assert not (tmp_path / "r.pdf").exists()


def test_plot_into_a_missing_directory_is_unusable(store, tmp_path):
    import matplotlib  # noqa: F401  (the test extra installs it: the plot path is tested, never skipped)
    run_decay_session(store, "p", 0.0)
    text, code = run_report(store, plot=tmp_path / "no" / "such" / "dir.png")
    assert code == 2 and json.loads(text)["error"]["type"] == "os_error"


def test_plot_never_writes_over_the_store(tmp_path):
    # red team 122, F11: "report --store s.png --plot s.png", or a link to the store, wrote the
    # PNG over the store (exit 0, every source and audit record lost); the library's plot too
    import os

    path = tmp_path / "s.png"
    store = SourceStore(str(path))
    run_decay_session(store, "p", 0.0)
    store.close()
    before = path.read_bytes()
    os.symlink(path, tmp_path / "alias.png")
    os.link(path, tmp_path / "hard.png")
    for target in (path, tmp_path / "alias.png", tmp_path / "hard.png", tmp_path / "." / "s.png"):
        reader = SourceStore(str(path), read_only=True)
        try:
            text, code = run_report(reader, plot=target)
        finally:
            reader.close()
        err = json.loads(text)["error"]
        assert code == 2 and err["field"] == "--plot" and "store" in err["message"], target
        assert path.read_bytes() == before
    # (the command line refuses it before it opens the store: tests/test_cli_report_plot_store.py)
    # another file name still gets its plot
    import matplotlib  # noqa: F401
    reader = SourceStore(str(path), read_only=True)
    text, code = run_report(reader, plot=tmp_path / "other.png")
    reader.close()
    assert code == 0 and _png_size(tmp_path / "other.png")


def test_importing_the_report_does_not_import_matplotlib():
    code = "import sys, provgate.report; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_cumulative_matches_gate_history_under_mixed_verdicts(store):
    """Accepted and rejected cycles mixed: the report's cumulative equals the gate's."""
    _put_sources(store)
    gate = Gate(store, retention_floor=0.8, session="mixed")
    current = 100
    for proposal in (90, 60, 75, 70, 40, 65):
        v = gate.check(_running_summary(current, "a"), _running_summary(proposal, "b"), operator="summarize")
        if v.accepted:
            current = proposal
    rows = session_report(store).sessions[0].rows
    assert [r.accepted for r in rows] == [h.accepted for h in gate.history]
    assert [r.cumulative_retention for r in rows] == pytest.approx([h.cumulative_retention for h in gate.history])
    assert not all(r.accepted for r in rows) and any(r.accepted for r in rows[1:])
    assert math.isclose(rows[-1].cumulative_retention, current / 100)
