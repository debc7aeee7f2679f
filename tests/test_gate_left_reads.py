"""I4 on reads that have left the window, weighed against the session's read log (docs/gate.md,
"Reads that have left the window"; red team 41, 04).

A gate weighs them against the facts it keeps of the log as it grows (``_Check._left_reads_of``);
a gate with ``_incremental_left`` off rebuilds them from every logged read on every check
(``_Check._left_reads_rebuilt``), the executable specification. Every test here runs on both
paths (the ``incremental`` fixture) and asserts the verdict; the property test at the end holds
the two to each other, and the kept facts to ``stale_basis`` of the whole line, on random
sessions."""

from __future__ import annotations

import json
import random
import threading

import pytest
from gate_helpers import (
    assert_accepted,
    blk,
    comparable,
    find,
    of,
    store_with,
    summary,
    tool,
)
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from provgate.errors import StoreReadOnlyError
from provgate.gate import Gate, _LeftBasis, stale_basis
from provgate.store import SourceStore

RES = "file:a.ini"


@pytest.fixture(params=[True, False], ids=["incremental", "rebuilt"])
def incremental(request) -> bool:
    return request.param


def gate_on(store: SourceStore, incremental: bool, **kw) -> Gate:
    gate = Gate(store, **kw)
    gate._incremental_left = incremental
    return gate


def read(k: int, text: str, ts: float | None = None, resource: str = RES, handle: str | None = None) -> dict:
    return tool(f"r{k}", handle or f"tool:r{k}", text, resource=resource, ts=ts)


def left(verdict) -> list:
    """The I4 violations of reads that have left the window."""
    return [v for v in of(verdict, "I4") if "newer_read" in (v.evidence or {})]


def fold_reads(gate: Gate, store: SourceStore, n: int, text=lambda k: f"retries={k}\ntimeout=30\n") -> list[dict]:
    """The session of red team 41's finding 04: each cycle reads the file again (a new handle)
    and folds the read into one running summary, derived from it and the read before; the read
    before that is evicted on the record. Returns the window after cycle ``n`` (every read has
    left it)."""
    window = [summary("s", "Nothing yet.\n", [])]
    for k in range(1, n + 1):
        store.put(f"tool:r{k}", text(k))
        pre = [*window, read(k, text(k), ts=float(k))]
        post = [summary("s", f"retries={k}\n", [f"tool:r{k}", *([f"tool:r{k - 1}"] if k > 1 else [])])]
        verdict = gate.check(pre, post, operator="summarize", evicted=[f"tool:r{k - 2}"] if k > 2 else [], commit=True)
        assert_accepted(verdict)
        window = post
    return window


def refold(window: list[dict], text: str, more: list[str] = ()) -> list[dict]:
    """The window's running summary rewritten to ``text``, deriving from what it derived from
    and ``more`` (the older read it takes a value from: I1 grounds a summary in its sources)."""
    return [summary("s", text, list(dict.fromkeys([*window[0]["derived_from"], *more])))]


# -- the session of the finding ----------------------------------------------------------------


def test_a_stale_value_restated_after_forty_reads_left_the_window_is_rejected(incremental):
    store = store_with({})
    gate = gate_on(store, incremental, audit=False)
    window = fold_reads(gate, store, 40)
    # every read has left the window; the summary re-summarized to what the 20th read said
    verdict = gate.check(window, refold(window, "retries=20\n", ["tool:r20"]), operator="summarize")
    [v] = left(verdict)
    assert verdict.violations == (v,)
    assert (v.block, v.key, v.value, v.evidence["newer_read"], v.evidence["newer_value"]) == \
           ("s", "retries", "20", "tool:r40", "40")
    # the first of the stale values it states names the violation: the oldest read's first
    [v] = left(gate.check(window, refold(window, "retries=20\nretries=7\n", ["tool:r20", "tool:r7"]),
                          operator="summarize"))
    assert v.value == "7"
    # with the newer value beside it, nothing is stale alone
    assert_accepted(gate.check(window, refold(window, "retries=40, was retries=20\n", ["tool:r20"]),
                               operator="summarize"))
    # and a value no read set is no stale value (I1's to report)
    assert left(gate.check(window, refold(window, "retries=99\n"), operator="summarize")) == []


def test_a_stale_value_restated_in_prose_is_rejected(incremental):
    store = store_with({})
    gate = gate_on(store, incremental, audit=False)
    window = fold_reads(gate, store, 12)
    prose = refold(window, "The client retries 5 times.\n", ["tool:r5"])
    verdict = gate.check(window, prose, operator="summarize")
    assert [(v.key, v.value) for v in left(verdict)] == [("retries", "5")]
    # the timeout, which never changed, is no stale value, in prose or not
    assert_accepted(gate.check(window, refold(window, "retries=12; waits 30 s.\n"), operator="summarize"))


def test_a_resumed_session_weighs_the_reads_its_records_logged(tmp_path, incremental):
    path = tmp_path / "s.sqlite3"
    store = SourceStore(str(path))
    live = gate_on(store, incremental, session="fold")
    window = fold_reads(live, store, 15)
    stale = refold(window, "retries=9\n", ["tool:r9"])
    honest = refold(window, "retries=15\n")
    resumed = gate_on(store, incremental, session="fold")
    verdicts = [g.check(window, stale, operator="summarize") for g in (live, resumed)]
    assert comparable(verdicts[0]) == comparable(verdicts[1])
    assert [(v.value, v.evidence["newer_read"]) for v in left(verdicts[0])] == [("9", "tool:r15")]
    for g in (live, resumed):
        assert_accepted(g.check(window, honest, operator="summarize"))
    store.close()


# -- which reads enter the log, and when ----------------------------------------------------------


def _two_reads_left(store: SourceStore, gate: Gate, first: str = "retries=3\n", second: str = "retries=5\n",
                    said: str = "The config was read twice.\n") -> list[dict]:
    """r1 (``first``, retries=3) then r2 (``second``, retries=5) logged, then both summarized
    away into a summary saying ``said``, by default no value (so that the pre window never
    holds one alone)."""
    store.put_many([("tool:r1", first), ("tool:r2", second), ("tool:r3", "retries=7\n")])
    pre = [read(1, first, ts=1.0), read(2, second, ts=2.0)]
    assert_accepted(gate.check(pre, pre, operator="reorder", commit=True))
    post = [summary("s", said, ["tool:r2", "tool:r1"])]
    assert_accepted(gate.check(pre, post, operator="summarize", evicted=["tool:r1", "tool:r2"], commit=True))
    return post


@pytest.mark.parametrize("commit", [False, True])
def test_a_read_only_the_post_window_holds_is_logged_once_committed(incremental, commit):
    # a read of two handles (never logged) rewritten as a read of one: its handle enters the
    # log with the post window, which counts only when committed; a summary restating the
    # value of the read before is then stale (committed) or current (a candidate only weighed)
    store = store_with({})
    gate = gate_on(store, incremental, audit=False)
    window = _two_reads_left(store, gate)
    both = blk("x", "tool", "retries=7\n", ["tool:r3", "tool:r2"], resource=RES, ts=3.0)
    one = blk("x", "tool", "retries=7\n", ["tool:r3"], resource=RES, ts=3.0)
    assert_accepted(gate.check([*window, both], [*window, one], operator="rewrite", commit=commit))
    verdict = gate.check(window, refold(window, "retries=5\n"), operator="summarize")
    if commit:
        assert [(v.value, v.evidence["newer_read"]) for v in left(verdict)] == [("5", "tool:r3")]
    else:
        assert_accepted(verdict)


def test_a_refused_check_logs_its_pre_window_but_not_its_post(incremental):
    store = store_with({})
    gate = gate_on(store, incremental, audit=False)
    window = _two_reads_left(store, gate)
    both = blk("x", "tool", "retries=7\n", ["tool:r3", "tool:r2"], resource=RES, ts=3.0)
    one = blk("x", "tool", "retries=7\n", ["tool:r3"], resource=RES, ts=3.0)
    invented = blk("a", "assistant", "Deployed to eu-west-9.\n")
    verdict = gate.check([*window, both], [*window, one, invented], operator="rewrite", commit=True)
    assert not verdict.accepted
    assert_accepted(gate.check(window, refold(window, "retries=5\n"), operator="summarize"))
    # a refused check's pre window is logged all the same (the agent holds it)
    refused = gate.check([*window, read(3, "retries=7\n", ts=3.0)], [*window, invented], operator="rewrite")
    assert not refused.accepted
    verdict = gate.check(window, refold(window, "retries=5\n"), operator="summarize")
    assert [(v.value, v.evidence["newer_read"]) for v in left(verdict)] == [("5", "tool:r3")]


# -- a read that first appears in the check's pre window ----------------------------------------------
#
# The log takes a pre window's reads after the check, whatever its verdict; the check itself
# weighs them where the log will put them. A block coming only from such a read (and from a
# source that is no read) was not weighed at all: the summary below was accepted once, and the
# very same check, run again once the read was logged, refused.


def _r1_left(store: SourceStore, gate: Gate, r1_text: str = "retries=3\n", ts: float | None = 1.0,
             said: str = "A config file was read.\n") -> list[dict]:
    """r1 read, then summarized away (into ``said``) beside x, an unrelated source holding
    retries=3; r2 (retries=5) stored, not yet seen by the gate. Returns the window."""
    store.put_many([("tool:r1", r1_text), ("tool:x", "retries=3\n"), ("tool:r2", "retries=5\n")])
    x = tool("x", "tool:x", "retries=3\n")
    assert_accepted(gate.check([read(1, r1_text, ts=ts), x], [summary("s", said, ["tool:r1"]), x],
                               operator="summarize", commit=True))
    return [summary("s", said, ["tool:r1"]), x]


def _twice(gate: Gate, pre: list[dict], post: list[dict], **kw) -> list:
    """The same check run twice (the first logs the pre window's reads): its two verdicts."""
    return [gate.check(pre, post, operator="summarize", **kw) for _ in range(2)]


@pytest.mark.parametrize("ts1, ts2", [(1.0, 2.0), (None, None), (1.0, None), (None, 2.0)],
                         ids=["stamped", "unstamped", "r2-unstamped", "r1-unstamped"])
@pytest.mark.parametrize("cites", ["derived_from", "marker"])
def test_a_summary_of_a_read_new_to_the_log_is_weighed_in_the_check_it_arrives(incremental, ts1, ts2, cites):
    store = store_with({})
    gate = gate_on(store, incremental, audit=False)
    window = _r1_left(store, gate, ts=ts1)
    # r2 says 5; the summary of it (and of x) says r1's 3 alone
    t = (summary("t", "Config: retries=3.\n", ["tool:r2", "tool:x"]) if cites == "derived_from"
         else summary("t", "Config: retries=3 [src:r2].\n", ["tool:x"]))
    verdicts = _twice(gate, [*window, read(2, "retries=5\n", ts=ts2)], [*window, t])
    for verdict in verdicts:
        assert [(v.block, v.value, v.evidence["newer_read"], v.evidence["newer_value"]) for v in left(verdict)] == \
               [("t", "3", "tool:r2", "5")]
        assert verdict.violations == tuple(left(verdict))
    assert comparable(verdicts[0]) == comparable(verdicts[1])
    # the same summary saying r2's 5 is current
    honest = dict(t, text=t["text"].replace("3", "5"))
    assert_accepted(gate.check([*window, read(2, "retries=5\n", ts=ts2)], [*window, honest], operator="summarize"))


@pytest.mark.parametrize("ts3", [3.0, None])
def test_two_reads_new_to_the_log_in_one_window_are_weighed_where_the_log_puts_them(incremental, ts3):
    # r2 (5) and r3 (5 again) arrive together and both go (r2 on the record): the summary of the
    # newest, r3, says r1's 3 alone (the window holds no two reads that differ: only the log
    # knows r1)
    store = store_with({})
    gate = gate_on(store, incremental, audit=False)
    window = _r1_left(store, gate)
    store.put("tool:r3", "retries=5\n")
    pre = [*window, read(2, "retries=5\n", ts=2.0), read(3, "retries=5\n", ts=ts3)]
    t = summary("t", "Config: retries=3.\n", ["tool:r3", "tool:x"])
    verdicts = _twice(gate, pre, [*window, t], evicted=["tool:r2"])
    for verdict in verdicts:
        assert [(v.value, v.evidence["newer_read"]) for v in left(verdict)] == [("3", "tool:r3")]
    assert comparable(verdicts[0]) == comparable(verdicts[1])
    assert gate._read_log[RES] == [("tool:r1", 1.0), ("tool:r2", 2.0), ("tool:r3", ts3)]


def test_a_read_new_to_the_log_stamped_before_the_logged_one_is_weighed_as_the_older(incremental):
    # r1 (5, ts 2) left the window summarized as 5; r2 arrives stamped earlier (3, ts 1): the
    # log puts it before r1, which stays the newest. Dropping the summary of r1 for a summary of
    # r2 saying 3 leaves the stale value alone, in this check as in the next
    store = store_with({})
    gate = gate_on(store, incremental, audit=False)
    store.put_many([("tool:r1", "retries=5\n"), ("tool:x", "retries=3\n"), ("tool:r2", "retries=3\n")])
    x = tool("x", "tool:x", "retries=3\n")
    s = summary("s", "Config: retries=5.\n", ["tool:r1"])
    assert_accepted(gate.check([read(1, "retries=5\n", ts=2.0), x], [s, x], operator="summarize", commit=True))
    pre = [s, x, read(2, "retries=3\n", ts=1.0)]
    t = summary("t", "Config: retries=3.\n", ["tool:r2", "tool:x"])
    verdicts = _twice(gate, pre, [x, t], evicted=["tool:r1", "tool:r2"])
    for verdict in verdicts:
        assert [(v.value, v.evidence["newer_read"]) for v in left(verdict)] == [("3", "tool:r1")]
    assert comparable(verdicts[0]) == comparable(verdicts[1])
    assert gate._read_log[RES] == [("tool:r2", 1.0), ("tool:r1", 2.0)]
    # (with the summary of r1 kept, the window still says 5 beside it: nothing is stale alone)
    assert_accepted(gate.check(pre, [s, x, t], operator="summarize", evicted=["tool:r2"]))


def test_a_read_new_to_the_log_is_weighed_alike_live_resumed_and_by_the_cli(tmp_path, incremental, capsys):
    from provgate import cli

    path = tmp_path / "s.sqlite3"
    store = SourceStore(str(path))
    live = gate_on(store, incremental, session="agent")
    window = _r1_left(store, live)
    pre = [*window, read(2, "retries=5\n", ts=2.0)]
    post = [*window, summary("t", "Config: retries=3.\n", ["tool:r2", "tool:x"])]
    edit = tmp_path / "edit.json"
    edit.write_text(json.dumps({"format": "provgate.edit/1", "operator": "summarize", "pre": pre, "post": post}))
    judged = []
    for _ in range(2):
        judged.append(live.check(pre, post, operator="summarize").to_json())
        judged.append(gate_on(store, incremental, session="agent").check(pre, post, operator="summarize").to_json())
        assert cli.main(["check", str(edit), "--store", str(path), "--session", "agent"]) == 1
        judged.append(json.loads(capsys.readouterr().out))
    for verdict in judged:
        assert not verdict["accepted"]
        assert [(v["invariant"], v["block"], v["value"], v["evidence"].get("newer_read")) for v in verdict["violations"]] \
               == [("I4", "t", "3", "tool:r2")]
    # every refused check logged r2 (its pre window), once, and nothing of its post
    assert live._read_log[RES] == [("tool:r1", 1.0), ("tool:r2", 2.0)]
    assert gate_on(store, incremental, session="agent")._read_log == live._read_log
    store.close()


# -- the order of the reads ------------------------------------------------------------------------


def test_a_read_stamped_before_the_newest_is_not_the_newest_whenever_it_arrives(incremental):
    # r3 is read last but stamped between r1 and r2: the log puts it before r2, in this very
    # check (the window's reads the log takes after it) and in the next; r2's 5 stays current
    store = store_with({})
    gate = gate_on(store, incremental, audit=False)
    window = _two_reads_left(store, gate)
    late = read(3, "retries=7\n", ts=1.5)
    for _ in range(2):  # (r3 new to the log, then logged)
        # beside a summary saying the newest 5, r3's 7 was not alone: a summary of it is stale
        said = [summary("s", "retries=5 now.\n", ["tool:r2", "tool:r1"])]
        seven = [summary("s", "Now retries=7.\n", ["tool:r2", "tool:r1", "tool:r3"])]
        verdict = gate.check([*said, late], seven, operator="summarize")
        assert [(v.value, v.evidence["newer_read"]) for v in left(verdict)] == [("7", "tool:r2")]
        three = summary("t", "Now retries=3.\n", ["tool:r3", "tool:r2", "tool:r1"])
        stale = gate.check([*window, late], [*window, three], operator="summarize", evicted=["tool:r3"])
        assert [(v.value, v.evidence["newer_read"]) for v in left(stale)] == [("3", "tool:r2")]
        assert_accepted(gate.check([*window, late], [*window, summary("t", "Now retries=5.\n", ["tool:r3", "tool:r2"])],
                                   operator="summarize", evicted=["tool:r3"]))
        # r3's own 7, which the pre window held alone in r3 itself, an older read than r2: a
        # summary restating it is stale all the same (red team 122, F12: an older read put back
        # into the window excused a summary of its stale value, refused without the copy)
        late_seven = gate.check([*window, late], [*window, summary("t", "Now retries=7.\n", ["tool:r3", "tool:r2"])],
                                operator="summarize", evicted=["tool:r3"])
        assert [(v.value, v.evidence["newer_read"]) for v in left(late_seven)] == [("7", "tool:r2")]
    assert gate._read_log[RES] == [("tool:r1", 1.0), ("tool:r3", 1.5), ("tool:r2", 2.0)]


def test_a_read_without_ts_goes_last_and_is_the_newest(incremental):
    store = store_with({})
    gate = gate_on(store, incremental, audit=False)
    window = _two_reads_left(store, gate)
    again = read(3, "retries=7\n")
    verdict = gate.check([*window, again], [*window, summary("t", "Now retries=5.\n", ["tool:r3", "tool:r2"])],
                         operator="summarize", evicted=["tool:r3"])
    assert [(v.value, v.evidence["newer_read"]) for v in left(verdict)] == [("5", "tool:r3")]


def test_the_same_bytes_read_again_under_a_new_handle_are_the_newest_read(incremental):
    # 3, then 5, then 3 again: the value went back, and 3 is current, 5 stale
    store = store_with({})
    gate = gate_on(store, incremental, audit=False)
    window = _two_reads_left(store, gate)
    store.put("tool:r4", "retries=3\n")
    back = read(4, "retries=3\n", ts=4.0)
    five = gate.check([*window, back], [*window, summary("t", "Now retries=5.\n", ["tool:r4", "tool:r2"])],
                      operator="summarize", evicted=["tool:r4"])
    assert [(v.value, v.evidence["newer_read"]) for v in left(five)] == [("5", "tool:r4")]
    assert_accepted(gate.check([*window, back], [*window, summary("t", "Now retries=3.\n", ["tool:r4", "tool:r2"])],
                               operator="summarize", evicted=["tool:r4"]))
    assert_accepted(gate.check(window, refold(window, "retries=3\n"), operator="summarize"))


def test_two_values_of_one_key_in_the_newest_read_are_both_current(incremental):
    store = store_with({})
    gate = gate_on(store, incremental, audit=False)
    window = _two_reads_left(store, gate, "retries=4\n", "retries=5\nretries=3\n", "retries=5 and retries=3\n")
    for value in ("3", "5"):
        assert_accepted(gate.check(window, [summary("s", f"retries={value}\n", ["tool:r2", "tool:r1"])],
                                   operator="summarize"))
    verdict = gate.check(window, [summary("s", "retries=4\n", ["tool:r2", "tool:r1"])], operator="summarize")
    assert [(v.value, v.evidence["newer_read"]) for v in left(verdict)] == [("4", "tool:r2")]


def test_a_logged_read_the_store_does_not_hold_is_not_the_newest_until_it_is_stored(incremental):
    # a refused check's pre window logged tool:r3, which the store does not hold (red team 13,
    # q02): r2 stays the newest read; once r3 is stored, it is
    store = store_with({})
    gate = gate_on(store, incremental, audit=False)
    window = _two_reads_left(store, gate)
    ghost = read(9, "retries=9\n", ts=9.0, handle="tool:r9")
    assert not gate.check([*window, ghost], [*window, ghost], operator="reorder").accepted  # I3
    assert gate._read_log[RES][-1] == ("tool:r9", 9.0)
    three = gate.check(window, refold(window, "retries=3\n"), operator="summarize")
    assert [(v.value, v.evidence["newer_read"]) for v in left(three)] == [("3", "tool:r2")]
    assert_accepted(gate.check(window, refold(window, "retries=5\n"), operator="summarize"))
    store.put("tool:r9", "retries=9\n")
    five = gate.check(window, refold(window, "retries=5\n"), operator="summarize")
    assert [(v.value, v.evidence["newer_read"]) for v in left(five)] == [("5", "tool:r9")]


# -- reads new to the log, ordered where the log puts them ------------------------------------------
#
# d is stamped 2, before a (8) and c (5), but comes after b (no ts) in the window: the log puts
# it before a, so it is the oldest read. Ordered by the window alone in the check where the
# reads arrived (the log held none of them), d was newer than b there, and older in the same
# check run again.

ORDER_TEXTS = {"a": "retries=3\n", "b": "retries=5\n", "c": "retries=7\n", "d": "retries=9\n"}
ORDER_TS = {"a": 8.0, "b": None, "c": 5.0, "d": 2.0}


def _unordered(k: str) -> dict:
    return tool(k, f"tool:{k}", ORDER_TEXTS[k], resource=RES, ts=ORDER_TS[k])


@pytest.mark.parametrize("left", [False, True], ids=["first-reads", "after-reads-that-left"])
@pytest.mark.parametrize("keep, accepted", [("abc", True), ("abdc", False)], ids=["d-evicted", "c-d-swapped"])
def test_reads_new_to_the_log_are_ordered_where_the_log_puts_them_in_the_check_they_arrive(tmp_path, left, keep,
                                                                                           accepted):
    store = SourceStore(str(tmp_path / "s.sqlite3"))
    store.put_many([(f"tool:{k}", t) for k, t in ORDER_TEXTS.items()] + [("tool:r0", "retries=1\n")])
    gate = Gate(store, session="order")
    window = []
    if left:  # a read stamped 10 logged and summarized away: it orders none of the four
        window = [summary("s", "The file was read.\n", ["tool:r0"])]
        assert_accepted(gate.check([read(0, "retries=1\n", ts=10.0)], window, operator="summarize", commit=True))
    pre = [*window, *map(_unordered, "abcd")]
    post = [*window, *map(_unordered, keep)]
    kw = dict(operator="prune" if len(keep) < 4 else "reorder", evicted=[f"tool:{k}" for k in "abcd" if k not in keep])
    # the check, the same check again (the reads logged), and a gate resuming the session
    verdicts = [gate.check(pre, post, **kw) for _ in range(2)] + [Gate(store, session="order").check(pre, post, **kw)]
    assert [v.accepted for v in verdicts] == [accepted] * 3
    if not accepted:  # (d after b: newer than b by place, which the log says it is not)
        assert "'d' is now newer than 'b'" in find(verdicts[0], "I4", key="resource", value=RES).message
    assert comparable(verdicts[0]) == comparable(verdicts[1]) == comparable(verdicts[2])
    # (b, shown before c, goes before it, and c, stamped 5, before r0, stamped 10: red team 101,
    # F01; b went after r0, as every read new to the log did, and c after it against their ts)
    logged = ["tool:d", "tool:a", "tool:b", "tool:c", "tool:r0"] if left else ["tool:d", "tool:a", "tool:b", "tool:c"]
    assert [h for h, _ in gate._read_log[RES]] == logged
    store.close()


@settings(max_examples=300, deadline=None)
@given(data=st.data(), n=st.integers(2, 5), left=st.booleans())
def test_a_window_of_reads_new_to_the_log_gets_one_verdict_checked_twice(data, n, left):
    # reads of one file with a ts on some, all new to the log (after a read that left the
    # window, or none), kept, dropped on the record, reordered or summarized at random
    store = store_with({"tool:x": "retries=3\n", "tool:r0": "retries=1\n"})
    gate = Gate(store, audit=False)
    window = [tool("x", "tool:x", "retries=3\n")]
    if left:
        s = summary("s", "The file was read.\n", ["tool:r0"])
        assert_accepted(gate.check([*window, read(0, "retries=1\n", ts=5.0)], [*window, s], operator="summarize",
                                   commit=True))
        window = [*window, s]
    reads = []
    for k in range(1, n + 1):
        text = f"retries={data.draw(st.sampled_from(['3', '5', '7']))}\n"
        store.put(f"tool:r{k}", text)
        reads.append(read(k, text, ts=data.draw(st.one_of(st.none(), st.integers(1, 9).map(float)))))
    kept = data.draw(st.permutations(reads))[:data.draw(st.integers(0, n))]
    post = [*window, *kept]
    if data.draw(st.booleans()):
        src = data.draw(st.lists(st.sampled_from(reads), min_size=1, max_size=2, unique_by=lambda b: b["id"]))
        said = data.draw(st.sampled_from(["3", "5", "7"]))
        post.append(summary("t", f"Config: retries={said}.\n", [b["handles"][0] for b in src] + ["tool:x"]))
    operator = "summarize" if post[-1]["id"] == "t" else "prune" if len(kept) < n else "reorder"
    evicted = [b["handles"][0] for b in reads if b not in kept]
    pre = [*window, *reads]
    verdicts = [comparable(gate.check(pre, post, operator=operator, evicted=evicted)) for _ in range(2)]
    assert verdicts[0] == verdicts[1]


# -- what the edit may keep ----------------------------------------------------------------------


def test_a_stale_value_the_pre_window_already_held_alone_is_not_the_edits(incremental):
    store = store_with({})
    gate = gate_on(store, incremental, audit=False)
    _two_reads_left(store, gate)
    old = blk("o", "assistant", "The first read said retries=3 [src:r1].\n")
    notes = summary("n", "Notes on the config.\n", ["tool:r2"])
    pre = [old, notes]
    post = [old, summary("n", "Notes on the config, reread.\n", ["tool:r2"])]
    assert_accepted(gate.check(pre, post, operator="summarize"))
    # the same stale turn made by this edit is its own
    verdict = gate.check([notes], post, operator="summarize")
    assert [(v.value, v.evidence["newer_read"]) for v in left(verdict)] == [("3", "tool:r2")]


def test_a_summary_of_older_reads_alone_after_the_newest_left_was_put_back(incremental):
    # no accepted edit leaves a summary deriving from older reads only alone with a value the
    # newest read changed (made so, or kept through the newest read's eviction: red team 132,
    # F01), so a pre window holding one was put back from the store, and it excuses nothing, as
    # a put-back read does not (red team 124, F03)
    store = store_with({})
    gate = gate_on(store, incremental, audit=False)
    _two_reads_left(store, gate)
    old = summary("o", "retries=3\n", ["tool:r1"])
    notes = summary("n", "Notes on the config.\n", ["tool:r2"])
    post = [old, summary("n", "Notes on the config, reread.\n", ["tool:r2"])]
    for pre in ([old, notes], [notes]):
        verdict = gate.check(pre, post, operator="summarize")
        assert [(v.value, v.evidence["newer_read"]) for v in left(verdict)] == [("3", "tool:r2")]


def test_a_dotted_path_restated_stale_after_the_reads_left_is_rejected(incremental):
    # red team 17, h03: compared where the path sits, against the older reads' facts, which
    # the incremental path reads only for such a path
    store = store_with({})
    gate = gate_on(store, incremental, audit=False)
    window = _two_reads_left(store, gate, "[server]\nretries=3\n", "[server]\nretries=5\n", "server.retries=5\n")
    verdict = gate.check(window, [summary("s", "server.retries=3\n", ["tool:r2", "tool:r1"])], operator="summarize")
    [v] = of(verdict, "I4")
    assert (v.key, v.value, v.evidence["newer"]) == ("server.retries", "3", "tool:r2")


def test_a_fresh_read_in_post_switches_the_rule_off_and_an_older_source_does_not(incremental):
    # a read in post stored after every logged read says what the file holds now (post is
    # refused for another reason here: a fresh read is no summarize's output)
    store = store_with({"tool:r0": "retries=3\n"})  # stored before the reads below
    gate = gate_on(store, incremental, audit=False)
    window = _two_reads_left(store, gate)
    store.put("tool:r8", "retries=8\n")
    [stale] = refold(window, "retries=3\n")
    fresh = gate.check(window, [stale, read(8, "retries=8\n")], operator="summarize")
    assert not fresh.accepted and left(fresh) == []
    older = gate.check(window, [stale, read(0, "retries=3\n", handle="tool:r0")], operator="summarize")
    assert [(v.value, v.evidence["newer_read"]) for v in left(older)] == [("3", "tool:r2")]


def test_a_summary_citing_a_logged_read_is_held_to_the_newest(incremental):
    store = store_with({})
    gate = gate_on(store, incremental, audit=False)
    window = _two_reads_left(store, gate)
    turn = blk("a", "assistant", "It retries=3 times [src:r1].\n")
    verdict = gate.check(window, [*window, turn], operator="rewrite", policy="reclassify")
    assert [(v.block, v.value, v.evidence["newer_read"]) for v in left(verdict)] == [("a", "3", "tool:r2")]


# -- session state: undo, threads ------------------------------------------------------------------


def test_a_check_whose_audit_record_fails_leaves_the_kept_facts_as_the_log(tmp_path, monkeypatch, incremental):
    stores = [SourceStore(str(tmp_path / f"{name}.sqlite3")) for name in ("failing", "twin")]
    gates = [gate_on(s, incremental, session="s") for s in stores]
    windows = [fold_reads(g, s, 6) for g, s in zip(gates, stores)]
    for s in stores:
        s.put("tool:r7", "retries=7\ntimeout=30\n")
    pre = [*windows[0], read(7, "retries=7\ntimeout=30\n", ts=7.0)]
    post = [summary("s", "retries=7\n", ["tool:r7", "tool:r6"])]
    failing = gates[0]
    with monkeypatch.context() as m:
        m.setattr(stores[0], "_append_gate_audit", lambda *a, **k: (_ for _ in ()).throw(
            StoreReadOnlyError("read-only", path=stores[0].path)))
        with pytest.raises(StoreReadOnlyError):
            failing.check(pre, post, operator="summarize", evicted=["tool:r5"], commit=True)
    assert ("tool:r7", 7.0) not in failing._read_log[RES]
    # r7 was never logged: the newest read is r6, 6 is current, and 7 no read's value
    stale_six = refold(windows[0], "retries=6\n")
    assert_accepted(failing.check(windows[0], stale_six, operator="summarize"))
    assert_accepted(failing.check(windows[0], refold(windows[0], "retries=7\n", ["tool:r7"]), operator="summarize"))
    if incremental:  # (and the facts kept of the log are the log's: no 7, which would cost a rebuild per check)
        assert _kept_stale(failing, RES) == _rebuilt_stale(failing, RES)
    # the same check again: as on the gate that never failed, and a summary of r6 is stale now
    verdicts = [g.check(pre, post, operator="summarize", evicted=["tool:r5"], commit=True) for g in gates]
    assert comparable(verdicts[0]) == comparable(verdicts[1]) and verdicts[0].accepted
    for g in gates:
        assert [(v.value, v.evidence["newer_read"]) for v in left(g.check(post, refold(post, "retries=6\n"),
                                                                           operator="summarize"))] == [("6", "tool:r7")]
    for s in stores:
        s.close()


def test_threads_weighing_their_own_resources_on_one_gate_agree_with_one_at_a_time(incremental):
    # each thread's session re-reads its own file; their checks interleave on one gate
    def session(gate: Gate, store: SourceStore, name: str, out: list) -> None:
        resource = f"file:{name}.ini"
        base = 10 * (ord(name) - ord("a"))  # (each file's own values)
        window = [summary(f"s{name}", "Nothing yet.\n", [])]
        for k in range(1, 16):
            h = f"tool:{name}{k}"
            text = f"retries={base + k % 4}\n"
            store.put(h, text)
            pre = [*window, tool(f"{name}{k}", h, text, resource=resource, ts=float(k))]
            said = base + ((k - 2) % 4 if k % 5 == 0 else k % 4)  # every fifth a stale value
            derived = [h, *([f"tool:{name}{k - 1}"] if k > 1 else [])]
            post = [summary(f"s{name}", f"retries={said}\n", derived)]
            verdict = gate.check(pre, post, operator="summarize",
                                 evicted=[f"tool:{name}{k - 2}"] if k > 2 else [], commit=True)
            out.append(comparable(verdict))
            if verdict.accepted:
                window = post

    names = ["a", "b", "c", "d"]
    store = store_with({})
    shared = gate_on(store, incremental, audit=False)
    results: dict[str, list] = {n: [] for n in names}
    threads = [threading.Thread(target=session, args=(shared, store, n, results[n])) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for n in names:
        alone: list = []
        own = store_with({})
        session(gate_on(own, incremental, audit=False), own, n, alone)
        assert results[n] == alone
        assert any(not v["accepted"] for v in alone)  # (the stale ones were caught)
        if incremental:  # (and the facts kept of each file's reads are its log's alone)
            assert _kept_stale(shared, f"file:{n}.ini") == _rebuilt_stale(shared, f"file:{n}.ini")


# -- the kept facts against the whole line, and the two paths against each other --------------------


def _rebuilt_stale(gate: Gate, resource: str) -> dict | None:
    """The stale values of the whole logged line, by ``stale_basis`` (the specification)."""
    stored = [h for h, _ in gate._read_log.get(resource, ()) if gate.handle_digest(h) is not None]
    if len(stored) < 2:
        return None
    basis = stale_basis(gate.source_facts(stored[-1]), [(h, gate.source_facts(h)) for h in stored[:-1]])
    return None if basis is None else {k: set(vs) for k, vs in basis.older_kv.items()}


def _kept_stale(gate: Gate, resource: str) -> dict | None:
    """The same from the facts the gate keeps of its log (as a check weighs them)."""
    log = gate._log_facts[resource]
    log.look(gate)
    stored = [h for h, _ in gate._read_log.get(resource, ()) if h not in log.unstored]
    if len(stored) < 2:
        return None
    log.read(gate)
    basis = _LeftBasis.of(log, [], gate.source_facts(stored[-1]))
    if basis is None:
        return None
    return {k: {v for v in (*basis.values.get(k, ()), *basis.extra.get(k, ())) if v not in basis.newest_values[k]}
            for k in basis.stale_keys}


KEYS = ["retries", "timeout", "workers"]
VALUES = ["3", "5", "7", "30s"]
RESOURCES = ["file:a.ini", "file:b.ini"]

# one step of a session: (what, a, b, c, flag), read by _Session.step
steps = st.lists(st.tuples(st.integers(0, 9), st.integers(0, 63), st.integers(0, 63), st.integers(0, 63),
                           st.booleans()), min_size=4, max_size=28)


class _Session:
    """One random session, its edits judged by a gate on the incremental path and by a twin on
    the rebuilt path (separate stores, the same puts), and by a gate resumed from the first's
    audit log part way through. Reads of two files, stamped in order, out of order or not at
    all; the same bytes read again; reads put back; sources never stored; summaries deriving
    from or citing reads, restating current or stale values as key=value facts, in prose or as
    dotted paths; evictions and supersessions; checks committed or only weighed."""

    def __init__(self, tmp_path, name: str, *, twice: bool = False) -> None:
        self.twice = twice  # every edit weighed once (not committed) before it is checked
        self.stores = [SourceStore(str(tmp_path / f"{name}-{i}.sqlite3")) for i in range(2)]
        self.gates = [Gate(self.stores[0], session=name), Gate(self.stores[1], session=name, audit=False)]
        self.gates[1]._incremental_left = False
        self.name = name
        self.window: list[dict] = []
        self.sources: dict[str, str] = {}  # every read made: handle -> text
        self.reads: list[tuple[str, str, str, float | None]] = []  # (handle, resource, text, ts)
        self.n = 0
        self.ts = 0.0
        self.verdicts: list[tuple[dict, ...]] = []

    def put(self, handle: str, text: str) -> None:
        for s in self.stores:
            s.put(handle, text)

    def new_read(self, a: int, b: int, c: int, flag: bool) -> dict:
        self.n += 1
        handle = f"tool:r{self.n}"
        resource = RESOURCES[a % 2]
        same = [r for r in self.reads if r[1] == resource]
        if same and b % 4 == 0:
            text = same[c % len(same)][2]  # the same bytes again
        else:
            keys = [KEYS[(a + i) % 3] for i in range(1 + b % 3)]
            lines = [f"{k}={VALUES[(b + c * i) % 4]}" for i, k in enumerate(dict.fromkeys(keys))]
            if c % 5 == 0:
                lines = ["[server]", *lines]
            text = "\n".join(lines) + "\n"
        self.ts += 1.0
        ts = None if c % 7 == 0 else self.ts - 2.5 if c % 7 == 1 else self.ts
        if not (flag and b % 9 == 0):  # else a source never stored
            self.put(handle, text)
        self.sources[handle] = text
        self.reads.append((handle, resource, text, ts))
        return tool(f"r{self.n}", handle, text, resource=resource, ts=ts)

    def old_read(self, c: int) -> dict:
        handle, resource, text, ts = self.reads[c % len(self.reads)]
        self.n += 1
        return tool(f"back{self.n}", handle, text, resource=resource, ts=ts if c % 2 else None)

    def restatement(self, a: int, b: int, c: int) -> str:
        handle, _, text, _ = self.reads[(a + b) % len(self.reads)]
        pairs = [line.split("=", 1) for line in text.splitlines() if "=" in line]
        if not pairs:
            return "Nothing to say.\n"
        key, value = pairs[c % len(pairs)]
        form = c % 4
        if form == 0:
            return f"{key}={value}\n"
        if form == 1:
            return f"The {key} is {value} now.\n"
        if form == 2:
            return f"server.{key}={value}\n"
        return f"{key}={value} [src:{handle.partition(':')[2]}]\n"

    def step(self, what: int, a: int, b: int, c: int, flag: bool) -> None:
        pre = self.window
        evicted: list[str] = []
        supersedes: list[dict] = []
        operator = "summarize"
        if what <= 2 or not self.reads:
            pre = [*pre, self.new_read(a, b, c, flag)]
            post = list(pre)
            operator = "reorder"
        elif what == 3:
            pre = [*pre, self.old_read(c)]
            post = list(pre)
            operator = "reorder"
        elif what <= 7:
            # summarize: some reads of the window (or handles of reads that left it) into one
            # summary restating a value; the window may have just read the file again (a read
            # the log takes after this check) or had an older read put back
            if b % 3 == 0:
                pre = [*pre, self.new_read(a + b, c, a, flag)]
            elif b % 3 == 1 and self.reads:
                pre = [*pre, self.old_read(a + c)]
            reads = [b_ for b_ in pre if b_.get("resource")]
            handles = sorted({h for b_ in reads for h in b_["handles"]})
            if not handles or (flag and self.reads):
                handles = sorted({self.reads[(a + i) % len(self.reads)][0] for i in range(1 + c % 3)})
            text = self.restatement(a, b, c)
            keep = [b_ for b_ in pre if not b_.get("resource")] if b % 2 else [b_ for b_ in pre if b_ not in reads[:1]]
            gone = {h for b_ in pre if b_ not in keep for h in b_["handles"]}
            self.n += 1
            sid = f"s{self.n}"
            post = [*keep, summary(sid, text, handles)]
            if a % 3 == 0 and gone:
                supersedes = [{"block": sid, "handle": h} for h in sorted(gone)]
            else:
                evicted = sorted(gone)
        elif what == 8:
            # a summary of the window rewritten to another restatement, under its id
            summaries = [b_ for b_ in pre if b_.get("derived")]
            if not summaries:
                return
            target = summaries[c % len(summaries)]
            post = [dict(b_, text=self.restatement(a, b, c)) if b_ is target else b_ for b_ in pre]
        else:
            # prune: drop some reads on the record
            post = [b_ for i, b_ in enumerate(pre) if (i + a) % 3]
            evicted = sorted({h for b_ in pre if b_ not in post for h in b_["handles"]})
            operator = "prune"
        commit = flag or what % 2 == 0
        if self.twice:  # (the first check logs the pre window's reads; the verdict stays)
            weighed = tuple(comparable(g.check(pre, post, operator=operator, evicted=evicted, supersedes=supersedes))
                            for g in self.gates[:2])
        verdicts = tuple(g.check(pre, post, operator=operator, evicted=evicted, supersedes=supersedes,
                                 commit=commit) for g in self.gates[:2])
        judged = tuple(comparable(v) for v in verdicts)
        assert judged[0] == judged[1], (pre, post, operator, evicted, supersedes)
        if self.twice:
            assert weighed == judged, (pre, post, operator, evicted, supersedes)
        for g in self.gates[2:]:
            assert comparable(g.check(pre, post, operator=operator, evicted=evicted, supersedes=supersedes,
                                      commit=commit)) == judged[0]
        self.verdicts.append(judged)
        if verdicts[0].accepted and commit:
            self.window = [b_.to_json() for b_ in verdicts[0].window]
        elif what <= 3:
            self.window = pre  # (a read the agent made stays in its window)
        gate = self.gates[0]
        for resource in list(gate._log_facts):
            assert _kept_stale(gate, resource) == _rebuilt_stale(gate, resource)

    def resume(self) -> None:
        self.gates.append(Gate(self.stores[0], session=self.name))

    def close(self) -> None:
        for s in self.stores:
            s.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=steps, resume_at=st.integers(0, 30))
def test_random_sessions_get_the_same_verdicts_on_both_paths_and_from_a_resumed_gate(tmp_path_factory, steps,
                                                                                         resume_at):
    session = _Session(tmp_path_factory.mktemp("left"), "rs")
    try:
        for k, step in enumerate(steps):
            if k == resume_at:
                session.resume()
            session.step(*step)
    finally:
        session.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=steps)
# (a summary superseding a read new in its pre window, which the edge's log check passed over
# until the first check had logged it: the retry was refused for one more edge; found by this
# test in a run of stop 30)
@example(steps=[(0, 0, 0, 0, False), (0, 0, 0, 0, False), (0, 0, 0, 0, False), (0, 0, 0, 2, False),
                (3, 0, 0, 0, False), (0, 0, 0, 0, False), (4, 15, 57, 0, True)])
def test_random_sessions_give_an_edit_checked_twice_one_verdict(tmp_path_factory, steps):
    # a candidate weighed and then checked (or a check retried) is one edit: the first check
    # logs the pre window's reads, and the second must not judge otherwise for it
    session = _Session(tmp_path_factory.mktemp("twice"), "tw", twice=True)
    try:
        for step in steps:
            session.step(*step)
    finally:
        session.close()


def test_random_sessions_exercise_the_rule(tmp_path):
    # the sessions above are refused by the rule, not only let through: a fixed sample of them
    # (both paths agreeing on every check) holds refusals by reads that left the window
    refused = 0
    for seed in range(12):
        rnd = random.Random(seed)
        session = _Session(tmp_path, f"seed{seed}")
        try:
            for _ in range(24):
                session.step(rnd.randint(0, 9), rnd.randint(0, 63), rnd.randint(0, 63), rnd.randint(0, 63),
                             rnd.random() < 0.5)
        finally:
            session.close()
        refused += sum(any("newer_read" in (x.get("evidence") or {}) for x in v["violations"])
                       for v, _ in session.verdicts)
    assert refused >= 3


@pytest.mark.parametrize("cite", ["full", "short"])
def test_a_marker_citing_the_block_handle_of_a_summary_of_the_reads_is_weighed_as_deriving_from_it(incremental, cite):
    # red team 47, F1: derived from the summary's block handle, a stale value was refused; cited
    # by a marker, the handle was never resolved, and the same value passed
    from blake3 import blake3

    from provgate.handles import block_text_handle

    store = store_with({"tool:r1": "retries=3\n", "tool:r2": "retries=5\n", "tool:x": "retries=3\n"})
    g = gate_on(store, incremental)
    r1, r2 = read(1, "retries=3\n", ts=1.0), read(2, "retries=5\n", ts=2.0)
    x = tool("x", "tool:x", "retries=3\n")
    folded = summary("S", "The config file was read twice.\n", [r1["handles"][0], r2["handles"][0]])
    assert_accepted(g.check([r1, r2, x], [folded, x], operator="summarize",
                            evicted=[*r1["handles"], *r2["handles"]], commit=True))
    bh = block_text_handle(blake3(folded["text"].encode()).digest())
    store.put(bh, folded["text"])
    name = bh if cite == "full" else bh.partition(":")[2]
    for made, operator in ((summary("T", f"Config: retries=3 [src:x] [src:{name}].\n", ["tool:x"]), "summarize"),
                           (blk("T", "assistant", f"Config: retries=3 [src:x] [src:{name}].\n"), "rewrite")):
        find(g.check([folded, x], [folded, x, made], operator=operator), "I4")
    # stating the newer value is no stale merge
    assert_accepted(g.check([folded, x], [folded, x, summary("T", f"Config: retries=5 [src:{name}].\n", ["tool:r2"])],
                            operator="summarize"))


def test_a_read_the_log_files_under_another_resource_is_weighed_alike_in_a_check_and_its_retry(incremental):
    # red team 47, F3: tool:hb, logged as a read of file:b, shown again tagged file:a beside a
    # new read of file:a: the first check counted it as file:a's newest read (its 3 current),
    # the log never filed it there, and the same check run again was refused
    store = store_with({"tool:r1": "retries=3\n", "tool:x": "retries=3\n", "tool:hb": "retries=3\n"})
    gate = gate_on(store, incremental, audit=False)
    r1 = read(1, "retries=3\n", ts=1.0, resource="file:a")
    hb = tool("hb", "tool:hb", "retries=3\n", resource="file:b")
    x = tool("x", "tool:x", "retries=3\n")
    s = summary("s", "Config files were read.\n", ["tool:r1", "tool:hb"])
    assert_accepted(gate.check([r1, hb, x], [s, x], operator="summarize", commit=True))
    store.put("tool:r2", "retries=5\n")
    r2 = read(2, "retries=5\n", ts=2.0, resource="file:a")
    pre = [s, x, r2, dict(hb, id="ha", resource="file:a")]
    post = [s, x, summary("t", "Config: retries=3.\n", ["tool:r2", "tool:x"])]
    verdicts = [gate.check(pre, post, operator="summarize", evicted=["tool:r2", "tool:hb"]) for _ in range(2)]
    # (lead 5, L4b: a read the log files under another resource is refused as retagged, and the
    # rules that group the window's reads by their tags leave that resource alone)
    retagged = [v for v in verdicts[0].violations if v.invariant == "I4" and v.evidence.get("filed")]
    assert [(v.block, v.handle, v.value, v.evidence["filed"]) for v in retagged] == [("ha", "tool:hb", "file:a", "file:b")]
    assert comparable(verdicts[0]) == comparable(verdicts[1])
    # shown under the resource the log files it under, the same window is weighed by the left reads
    pre = [s, x, r2, hb]
    verdicts = [gate.check(pre, post, operator="summarize", evicted=["tool:r2", "tool:hb"]) for _ in range(2)]
    assert not [v for v in verdicts[0].violations if v.evidence.get("filed")]
    assert [(v.value, v.evidence["newer_read"]) for v in left(verdicts[0])] == [("3", "tool:r2")]
    assert comparable(verdicts[0]) == comparable(verdicts[1])


def test_a_new_read_tagged_as_two_resources_in_one_window_is_weighed_where_the_log_files_it(incremental):
    # red team 48: tool:hb, new to the log, shown tagged file:b and then file:a in one window;
    # the log files it under file:b (the first resource reading it), yet the first check
    # counted it as file:a's newest read too, and the same check run again was refused
    store = store_with({"tool:r1": "retries=3\n", "tool:x": "retries=3\n"})
    gate = gate_on(store, incremental, audit=False)
    r1 = read(1, "retries=3\n", ts=1.0, resource="file:a")
    x = tool("x", "tool:x", "retries=3\n")
    s = summary("s", "Config files were read.\n", ["tool:r1"])
    assert_accepted(gate.check([r1, x], [s, x], operator="summarize", commit=True))
    store.put_many([("tool:r2", "retries=5\n"), ("tool:hb", "retries=3\n")])
    hb = tool("hb", "tool:hb", "retries=3\n", resource="file:b", ts=3.0)
    pre = [s, hb, x, read(2, "retries=5\n", ts=2.0, resource="file:a"), dict(hb, id="ha", resource="file:a")]
    post = [s, x, summary("t", "Config: retries=3.\n", ["tool:r2", "tool:x"])]
    verdicts = [gate.check(pre, post, operator="summarize", evicted=["tool:r2", "tool:hb"]) for _ in range(2)]
    assert [(v.value, v.evidence["newer_read"]) for v in left(verdicts[0])] == [("3", "tool:r2")]
    assert comparable(verdicts[0]) == comparable(verdicts[1])


# red team 122, F12: an older read put back into the window (re-fetched from the store after the
# newest read left it) excused a summary restating its stale value alone, which the same summary
# without the copy was refused for

_OLD_READ, _NEW_READ = "retries=3\ntimeout=30\n", "retries=5\ntimeout=30\n"


def _both_reads_evicted(incremental):
    """A gate whose session saw the older and the newer read of one file, then evicted both on
    the record: (gate, the user's turn, the older read, the newer read)."""
    store = store_with({"tool:r1": _OLD_READ, "tool:r2": _NEW_READ, "user:u": "Fix retries.\n"})
    gate = gate_on(store, incremental, audit=False)
    turn = blk("u", "user", "Fix retries.\n", ["user:u"])
    r1, r2 = read(1, _OLD_READ, ts=1.0), read(2, _NEW_READ, ts=2.0)
    assert_accepted(gate.check([turn, r1, r2], [turn, r1, r2], operator="reorder", commit=True))
    assert_accepted(gate.check([turn, r1, r2], [turn], operator="evict", evicted=["tool:r1", "tool:r2"], commit=True))
    return gate, turn, r1, r2


def test_an_older_read_put_back_excuses_no_summary_of_its_stale_value(incremental):
    gate, turn, r1, r2 = _both_reads_evicted(incremental)
    stale = summary("s", "The config sets retries=3 and timeout=30.\n", ["tool:r1"])
    for pre in ([turn], [turn, r1]):  # (without the copy, and with the older read put back)
        verdict = gate.check(pre, [turn, stale], operator="summarize")
        assert [(v.value, v.evidence["newer_read"]) for v in left(verdict)] == [("3", "tool:r2")], pre
    # the copy kept, or rewritten under its id, is still the pre window's own
    assert_accepted(gate.check([turn, r1], [r1], operator="prune", evicted=["user:u"]))
    respaced = dict(r1, text=r1["text"].replace("=", " = "))
    assert not left(gate.check([turn, r1], [turn, respaced], operator="rewrite"))
    # and a summary of the newest read, put back beside it, is fine
    assert_accepted(gate.check([turn, r1, r2], [turn, summary("s", "The config sets retries=5 (was 3).\n",
                                                                  ["tool:r2", "tool:r1"])], operator="summarize"))


def test_an_older_read_put_back_untagged_or_restamped_excuses_nothing(incremental):
    old = _OLD_READ
    for copy in (tool("r1", "tool:r1", old), read(1, old, ts=3.0)):  # (no resource nor ts; stamped after r2)
        gate, turn, _, _ = _both_reads_evicted(incremental)
        stale = summary("s", "The config sets retries=3 and timeout=30.\n", ["tool:r1"])
        verdict = gate.check([turn, copy], [turn, stale], operator="summarize")
        assert [(v.value, v.evidence["newer_read"]) for v in left(verdict)] == [("3", "tool:r2")], copy


def test_an_older_read_kept_beside_a_summary_of_its_stale_value_excuses_nothing(incremental):
    # red team 124, F01: kept in post beside the new summary, the put-back read excused it, and
    # the next edit evicted the read and left the stale summary alone; F02: the copy untagged
    # with one more handle was not taken for the read
    old = _OLD_READ
    gate, turn, r1, _ = _both_reads_evicted(incremental)
    stale = summary("s", "The config sets retries=3 and timeout=30.\n", ["tool:r1"])
    verdict = gate.check([turn, r1], [turn, r1, stale], operator="summarize")
    assert [(v.value, v.evidence["newer_read"]) for v in left(verdict)] == [("3", "tool:r2")]
    two_handles = blk("r1", "tool", old, ["tool:r1", "user:u"])
    verdict = gate.check([two_handles], [stale], operator="summarize")
    assert [(v.value, v.evidence["newer_read"]) for v in left(verdict)] == [("3", "tool:r2")]
    # the read rewritten under its id alone is still the window's own
    assert not left(gate.check([turn, r1], [turn, dict(r1, text=old.replace("=", " = "))], operator="rewrite"))
