"""The session's cumulative retention (red team 132, F02 and F02b): capped at 100% (each accepted
cycle's factor at most 1), flagged by the report where it falls below the floor (the per-cycle
floor lets markers decay as floor^n), and held by ``Gate(session_floor=...)`` when asked. Run
natively and with PROVGATE_NO_EXTENSIONS=1 (the suite runs once each way)."""

from __future__ import annotations

import pytest

from provgate.errors import InvalidArgumentError
from provgate.gate import Gate
from provgate.report import report_from_records, session_report
from provgate.store import SourceStore

N = 40


def _record(cycle: int, retention: float, accepted: bool = True, floor: float = 0.95) -> dict:
    return {"accepted": accepted, "classification": "lossless" if accepted else "rejected", "operator": "rewrite",
            "reclassified": False, "cycle": cycle, "violations": [], "violations_by_invariant": {},
            "facts": {"pre": 3, "post": 3, "introduced": 0, "dropped": 0, "superseded": 0, "evicted": 0,
                      "violations_omitted": 0},
            "retention": retention, "retention_floor": floor, "timings_ms": {"total": 1.5}, "session": "s",
            "evicted_handles": 0, "pre_digest": "blake3:" + "0" * 64, "post_digest": "blake3:" + "0" * 64,
            "ts": 1.8e9, "blocks": {"pre": 2, "post": 2}}


def _decaying(tmp_path, **gate_kw):
    """A session of N tool outputs and one turn citing all N facts, each cycle a `rewrite`
    dropping one marker and keeping every fact (red team 132, F02)."""
    store = SourceStore(str(tmp_path / "s.sqlite3"))
    tools = []
    for i in range(N):
        store.put(f"tool:t{i}", f"metric_{i}={100 + i}\n")
        tools.append({"id": f"t{i}", "role": "tool", "text": f"metric_{i}={100 + i}\n", "handles": [f"tool:t{i}"]})

    def turn(k):
        text = " ".join(f"metric_{i} is {100 + i}" + (f" [src:t{i}]" if i < k else "") + "." for i in range(N))
        return {"id": "a1", "role": "assistant", "text": text + "\n", "handles": []}

    gate = Gate(store, session="decay", **gate_kw)

    def strip(k):  # k markers -> k - 1
        return gate.check([*tools, turn(k)], [*tools, turn(k - 1)], operator="rewrite", commit=True)

    return store, gate, strip, tools, turn


def test_the_report_flags_markers_stripped_one_per_cycle_where_the_cumulative_fell_below_the_floor(tmp_path):
    store, gate, strip, _, _ = _decaying(tmp_path)
    verdicts = [strip(k) for k in range(N, N - 4, -1)]
    # each cycle keeps the floor (I5 is per cycle, as the issue pins it) ...
    assert all(v.accepted for v in verdicts) and all(v.retention >= 0.95 for v in verdicts)
    # ... and the session, at 36/40 of its markers, is shown below it from cycle 3 (37/40)
    summary = session_report(store, session="decay").sessions[0]
    assert summary.below_floor is not None and summary.below_floor["cycle"] == 3
    assert summary.below_floor["cumulative"] == pytest.approx(37 / 40) and summary.below_floor["floor"] == 0.95
    assert any("fell below the floor" in n and "after cycle 3" in n for n in summary.notes)
    text = session_report(store, session="decay").format_table()
    assert "below it cumulatively after cycle 3" in text and "floor^n" in text
    assert summary.to_json()["retention"]["cumulative_below_floor"]["cycle"] == 3
    assert gate.history[-1].cumulative_retention == pytest.approx(36 / 40)


def test_a_session_keeping_its_markers_is_not_flagged(tmp_path):
    # honest control: the same session's edits keeping every marker (a reorder of the window)
    store, gate, _, tools, turn = _decaying(tmp_path)
    for _ in range(4):
        assert gate.check([*tools, turn(N)], [turn(N), *tools], operator="reorder", commit=True).accepted
    summary = session_report(store, session="decay").sessions[0]
    assert summary.below_floor is None and not any("below the floor" in n for n in summary.notes)
    assert summary.to_json()["retention"]["cumulative_below_floor"] is None


def test_the_report_cumulative_is_capped_at_one_so_later_decay_shows():
    # F02b: 126% then 50% was 63% (and 271% over a long session hid 60% lost); each factor is
    # at most 1 now, so the session shows 50%, below its floor at cycle 2
    report = report_from_records([(1, _record(1, 1.26)), (2, _record(2, 1.14)), (3, _record(3, 0.5))])
    s = report.sessions[0]
    assert [r.cumulative_retention for r in s.rows] == [1.0, 1.0, 0.5]
    assert s.below_floor["cycle"] == 3
    # a rejected cycle moves nothing; a cycle at 100% is not flagged
    report = report_from_records([(1, _record(1, 1.0)), (2, _record(2, 0.2, accepted=False))])
    assert [r.cumulative_retention for r in report.sessions[0].rows] == [1.0, 1.0]
    assert report.sessions[0].below_floor is None


def test_a_session_floor_refuses_the_edit_taking_the_cumulative_below_it(tmp_path):
    _, gate, strip, tools, turn = _decaying(tmp_path, session_floor=0.92)
    assert [strip(k).accepted for k in (N, N - 1, N - 2)] == [True, True, True]  # 37/40 = 92.5%
    lie = strip(N - 3)  # 36/37 per cycle (97.3%, above the floor), 90% cumulative
    assert not lie.accepted and [v.invariant for v in lie.violations] == ["I5"]
    assert "session floor 0.92" in lie.violations[0].message
    assert lie.violations[0].evidence["cumulative_after"] == pytest.approx(36 / 40)
    # honest control: an edit keeping every marker is accepted on that session
    assert gate.check([*tools, turn(N - 3)], [turn(N - 3), *tools], operator="reorder", commit=True).accepted


def test_without_a_session_floor_the_same_edit_is_accepted(tmp_path):
    # (the default is off: I5 holds each edit to the floor, as the issue pins it)
    _, gate, strip, _, _ = _decaying(tmp_path)
    assert [strip(k).accepted for k in (N, N - 1, N - 2, N - 3)] == [True] * 4
    assert gate.session_floor is None


@pytest.mark.parametrize("bad", [-0.1, 1.5, "0.9", True, float("nan")])
def test_a_session_floor_out_of_range_is_refused(tmp_path, bad):
    with pytest.raises(InvalidArgumentError) as err:
        Gate(SourceStore(str(tmp_path / "s.sqlite3")), session_floor=bad)
    assert err.value.argument == "session_floor"
