"""Red team 124, F03 (I4 across edits, red team 122 F12's family): a summary of an OLD read put
back into the window after the newest read left it excused restating the stale value, which the
same summary made with nothing in pre was refused for. It was a documented limit while the same
pre window was reached honestly, by keeping the summary through an eviction of the newest read
on the record (red team 20, n01). Red team 132 F01 found that eviction itself a silent merge (the
summary made in the same edit as the eviction was refused): refused now, so no accepted edit
reaches that window, and a summary deriving from older reads only excuses nothing, as a put-back
read does not. Both I4 paths (the ``incremental`` fixture), live and resumed from the audit log."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, blk, of, summary, tool

from provgate.gate import Gate
from provgate.store import SourceStore

RES = "file:a.ini"
OLD, NEW = "retries=3\ntimeout=30\n", "retries=5\ntimeout=30\n"
SOURCES = {"tool:r1": OLD, "tool:r2": NEW, "user:u": "Fix retries.\n"}
TURN = blk("u", "user", "Fix retries.\n", ["user:u"])
R1 = tool("r1", "tool:r1", OLD, resource=RES, ts=1.0)
R2 = tool("r2", "tool:r2", NEW, resource=RES, ts=2.0)
OLD_SUMMARY = summary("s0", "The config sets retries=3 and timeout=30.\n", ["tool:r1"])


@pytest.fixture(params=[True, False], ids=["incremental", "rebuilt"])
def incremental(request) -> bool:
    return request.param


def left(verdict) -> list:
    return [v for v in of(verdict, "I4") if "newer_read" in (v.evidence or {})]


def _new_gate(tmp_path, incremental: bool) -> Gate:
    """A gate of session S on a file store holding the sources, on the I4 path asked."""
    store = SourceStore(str(tmp_path / "s.sqlite3"))
    for h, t in SOURCES.items():
        store.put(h, t)
    gate = Gate(store, session="S")
    gate._incremental_left = incremental
    return gate


def session(tmp_path, incremental: bool, resumed: bool):
    """Red team 122 F12's first edits (both reads seen, then both evicted on the record); the
    gate to check the next edit with, the same one or one resumed from the audit log."""
    gate = _new_gate(tmp_path, incremental)
    assert_accepted(gate.check([TURN, R1, R2], [TURN, R1, R2], operator="reorder", commit=True))
    assert_accepted(gate.check([TURN, R1, R2], [TURN], operator="evict", evicted=["tool:r1", "tool:r2"],
                               commit=True))
    if resumed:
        gate = Gate(SourceStore(str(tmp_path / "s.sqlite3")), session="S")
        gate._incremental_left = incremental
    return gate


LIES = {
    # the finding's two edits, and the same words kept under the put-back summary's own id
    "rewritten": ([TURN, OLD_SUMMARY],
                  [TURN, summary("s", "Config: retries=3, timeout=30.\n", ["tool:r1"])], "rewrite"),
    "rewritten-own-id": ([TURN, OLD_SUMMARY],
                         [TURN, dict(OLD_SUMMARY, text="Config: retries=3, timeout=30.\n")], "rewrite"),
    "summarized-again": ([TURN, OLD_SUMMARY],
                         [TURN, summary("s2", "Retries: 3; timeout 30.\n", ["tool:r1"])], "summarize"),
    # beside a put-back read rewritten under its own id (which alone stays the window's own)
    "rewritten-beside-the-read": ([TURN, R1, OLD_SUMMARY],
                                  [TURN, dict(R1, text=OLD.replace("=", " = ")),
                                   dict(OLD_SUMMARY, text="Config: retries=3, timeout=30.\n")], "rewrite"),
    # kept as it was beside a new summary restating its stale value (as the put-back read kept
    # beside it, red team 124 F01: the next edit evicts the copy and leaves the new one alone)
    "kept-beside-a-new-stale-summary": ([TURN, OLD_SUMMARY],
                                        [TURN, OLD_SUMMARY, summary("s", "Retries: 3.\n", ["tool:r1"])],
                                        "summarize"),
    # the control the finding compares with: the summary made with nothing in pre (refused before)
    "made-from-nothing": ([TURN], [TURN, summary("s", "Config: retries=3, timeout=30.\n", ["tool:r1"])],
                          "summarize"),
}


@pytest.mark.parametrize("resumed", [False, True], ids=["live", "resumed"])
def test_a_summary_of_an_older_read_made_with_nothing_in_pre_is_refused(tmp_path, incremental, resumed):
    gate = session(tmp_path, incremental, resumed)
    pre, post, operator = LIES["made-from-nothing"]
    verdict = gate.check(pre, post, operator=operator)
    assert not verdict.accepted
    assert [(v.value, v.evidence["newer_read"]) for v in left(verdict)] == [("3", "tool:r2")]


@pytest.mark.parametrize("resumed", [False, True], ids=["live", "resumed"])
@pytest.mark.parametrize("name", [n for n in LIES if n != "made-from-nothing"])
def test_a_summary_of_an_older_read_put_back_excuses_nothing(tmp_path, incremental, resumed, name):
    """Refused as the control above is, naming the stale value and the newest read."""
    gate = session(tmp_path, incremental, resumed)
    pre, post, operator = LIES[name]
    verdict = gate.check(pre, post, operator=operator)
    assert not verdict.accepted
    assert ("3", "tool:r2") in [(v.value, v.evidence["newer_read"]) for v in left(verdict)]


NEWEST_SUMMARY = summary("sn", "The config sets retries=5 and timeout=30.\n", ["tool:r2"])
BOTH_SUMMARY = summary("sc", "retries went from retries=3 to retries=5; timeout=30.\n", ["tool:r1", "tool:r2"])
HONEST = {
    "kept-as-it-was": ([TURN, OLD_SUMMARY], [TURN, OLD_SUMMARY], "rewrite"),
    "kept-beside-a-rewritten-turn": ([TURN, OLD_SUMMARY], [dict(TURN, text="Fix the retries.\n"), OLD_SUMMARY],
                                     "rewrite"),
    "newest-summary-rewritten": ([TURN, NEWEST_SUMMARY],
                                 [TURN, summary("sn2", "Config: retries=5, timeout=30.\n", ["tool:r2"])], "rewrite"),
    "comparison-rewritten": ([TURN, BOTH_SUMMARY],
                             [TURN, summary("sc2", "Retries: was retries=3, now retries=5. timeout=30.\n",
                                            ["tool:r1", "tool:r2"])], "rewrite"),
    # kept as it was beside a summary of the newest read rewritten (the session of
    # test_gate_left_reads's test_a_stale_value_the_pre_window_already_held_alone_is_not_the_edits)
    "kept-beside-a-newest-summary-rewritten": ([TURN, OLD_SUMMARY, NEWEST_SUMMARY],
                                               [TURN, OLD_SUMMARY, dict(NEWEST_SUMMARY, text="Notes: retries=5.\n")],
                                               "rewrite"),
    # (a put-back read rewritten under its own id is still the window's own, red team 122 F12;
    # a put-back summary beside it changes nothing of that)
    "read-rewritten-beside-the-summary": ([TURN, R1, OLD_SUMMARY],
                                          [TURN, dict(R1, text=OLD.replace("=", " = ")), OLD_SUMMARY], "rewrite"),
}


@pytest.mark.parametrize("resumed", [False, True], ids=["live", "resumed"])
@pytest.mark.parametrize("name", list(HONEST))
def test_honest_edits_of_a_put_back_summary_stay_accepted(tmp_path, incremental, resumed, name):
    gate = session(tmp_path, incremental, resumed)
    pre, post, operator = HONEST[name]
    verdict = gate.check(pre, post, operator=operator)
    assert not left(verdict), verdict.summary()
    assert_accepted(verdict)


@pytest.mark.parametrize("resumed", [False, True], ids=["live", "resumed"])
def test_the_window_the_limit_stood_for_is_reached_by_no_accepted_edit(tmp_path, incremental, resumed):
    """What was the honest twin of the "rewritten-own-id" lie: the summary of the old read made
    while the newest read was in the window, then kept through the newest read's eviction on the
    record (red team 20 n01's session), or through the eviction of the newest read's summary:
    each eviction is refused (red team 132, F01), so the window that made the put-back copy look
    honest is never committed; a summary of the newest read kept beside it stays accepted."""
    gate = _new_gate(tmp_path, incremental)
    assert_accepted(gate.check([TURN, R1, R2], [TURN, R1, R2], operator="reorder", commit=True))
    assert_accepted(gate.check([TURN, R1, R2], [TURN, OLD_SUMMARY, R2], operator="summarize", commit=True))
    if resumed:
        gate = Gate(SourceStore(str(tmp_path / "s.sqlite3")), session="S")
        gate._incremental_left = incremental
    verdict = gate.check([TURN, OLD_SUMMARY, R2], [TURN, OLD_SUMMARY], operator="evict", evicted=["tool:r2"])
    assert [(v.value, v.evidence["newer_read"]) for v in left(verdict)] == [("3", "tool:r2")]
    assert_accepted(gate.check([TURN, OLD_SUMMARY, R2], [TURN, OLD_SUMMARY, NEWEST_SUMMARY], operator="summarize",
                               commit=True), "lossy")
    for evicted in (["tool:r2"], ["sn"]):
        verdict = gate.check([TURN, OLD_SUMMARY, NEWEST_SUMMARY], [TURN, OLD_SUMMARY], operator="evict",
                             evicted=evicted)
        assert [(v.value, v.evidence["newer_read"]) for v in left(verdict)] == [("3", "tool:r2")]
    assert_accepted(gate.check([TURN, OLD_SUMMARY, NEWEST_SUMMARY], [TURN, NEWEST_SUMMARY], operator="evict",
                               evicted=["tool:r1"]))
