"""Red team 132, F01 (I4 across cycles): a summary of the older read made while the newest read
was in the window, then the newest read evicted on the record in the next cycle, left only the
stale value, accepted live and resumed, while the same summary made in the edit that evicts the
read was refused. An eviction record lets a read go; it does not make the older value the
resource's: the kept blocks of a resource are weighed whenever the edit removes one of its reads
or a block that comes from one (derived from it, or citing it), on the record or not. A kept turn
citing the newest read states its value as a summary of it does. Both I4 paths (the
``incremental`` fixture), live and resumed from the audit log."""

from __future__ import annotations

import pytest
from blake3 import blake3
from gate_helpers import assert_accepted, blk, summary, tool

from provgate.gate import Gate
from provgate.handles import block_text_handle
from provgate.store import SourceStore

RES = "file:app.conf"
OLD, NEW = "retries=3\ntimeout=30\n", "retries=4\ntimeout=30\n"
SOURCES = {"tool:r1": OLD, "tool:r2": NEW, "user:u": "Check the retries.\n"}
STORED_SUMMARIES = {"Earlier read of app.conf: retries=3 [src:r1], timeout=30.\n"}
TURN = blk("u", "user", "Check the retries.\n", ["user:u"])
R1 = tool("r1", "tool:r1", OLD, resource=RES, ts=100.0)
R2 = tool("r2", "tool:r2", NEW, resource=RES, ts=200.0)
OLD_SUMMARY = summary("s1", "Earlier read: retries=3 [src:r1], timeout=30.\n", ["tool:r1"])
NEW_SUMMARY = summary("s2", "Now: retries=4, timeout=30.\n", ["tool:r2"])
CITING_NEW = blk("a1", "assistant", "The file now says retries=4 [src:r2].\n")


@pytest.fixture(params=[True, False], ids=["incremental", "rebuilt"])
def incremental(request) -> bool:
    return request.param


def stale(verdict) -> list[tuple[str, str]]:
    return [(v.value, v.evidence["newer_read"]) for v in verdict.violations
            if v.invariant == "I4" and "newer_read" in (v.evidence or {})]


def session(tmp_path, incremental: bool, resumed: bool, *windows: list[dict]) -> Gate:
    """A gate of session S that committed the reads, then each of ``windows`` in turn (each the
    post of a summarize or rewrite of the one before), live or resumed from the audit log."""
    path = str(tmp_path / "s.sqlite3")
    store = SourceStore(path)
    for h, t in SOURCES.items():
        store.put(h, t)
    for text in STORED_SUMMARIES:
        store.put(block_text_handle(blake3(text.encode()).digest()), text, kind="window_summary")
    gate = Gate(store, session="S")
    gate._incremental_left = incremental
    pre = [TURN, R1, R2]
    assert_accepted(gate.check(pre, pre, operator="reorder", commit=True))
    for post in windows:
        operator = "summarize" if any(b.get("derived") for b in post if b not in pre) else "rewrite"
        assert_accepted(gate.check(pre, post, operator=operator, commit=True))
        pre = post
    if resumed:
        gate = Gate(SourceStore(path), session="S")
        gate._incremental_left = incremental
    return gate


RESUMED = pytest.mark.parametrize("resumed", [False, True], ids=["live", "resumed"])


@RESUMED
def test_the_newest_read_evicted_beside_a_summary_of_the_older_one_is_refused(tmp_path, incremental, resumed):
    gate = session(tmp_path, incremental, resumed, [TURN, OLD_SUMMARY, R2])
    verdict = gate.check([TURN, OLD_SUMMARY, R2], [TURN, OLD_SUMMARY], operator="evict", evicted=["tool:r2"])
    assert stale(verdict) == [("3", "tool:r2")]


@RESUMED
def test_the_same_summary_and_eviction_in_one_edit_is_refused_alike(tmp_path, incremental, resumed):
    gate = session(tmp_path, incremental, resumed)
    verdict = gate.check([TURN, R1, R2], [TURN, OLD_SUMMARY], operator="summarize", evicted=["tool:r2"])
    assert not verdict.accepted
    assert [(v.block, v.key, v.value) for v in verdict.violations if v.invariant == "I4"] == [("r1", "resource", RES)]


@RESUMED
@pytest.mark.parametrize("evicted", [["tool:r2"], ["s2"]], ids=["by-handle", "by-id"])
def test_the_newest_reads_summary_evicted_beside_the_older_ones_is_refused(tmp_path, incremental, resumed, evicted):
    gate = session(tmp_path, incremental, resumed, [TURN, OLD_SUMMARY, R2], [TURN, OLD_SUMMARY, NEW_SUMMARY])
    verdict = gate.check([TURN, OLD_SUMMARY, NEW_SUMMARY], [TURN, OLD_SUMMARY], operator="evict", evicted=evicted)
    assert stale(verdict) == [("3", "tool:r2")]


@RESUMED
def test_a_turn_citing_the_newest_read_evicted_beside_the_older_summary_is_refused(tmp_path, incremental, resumed):
    gate = session(tmp_path, incremental, resumed, [TURN, OLD_SUMMARY, R2], [TURN, OLD_SUMMARY, R2, CITING_NEW])
    pre = [TURN, OLD_SUMMARY, R2, CITING_NEW]
    assert_accepted(gate.check(pre, [TURN, OLD_SUMMARY, CITING_NEW], operator="evict", evicted=["tool:r2"]))
    verdict = gate.check(pre, [TURN, OLD_SUMMARY], operator="evict", evicted=["tool:r2", "a1"])
    assert stale(verdict) == [("3", "tool:r2")]


@RESUMED
def test_honest_evictions_stay_accepted(tmp_path, incremental, resumed):
    gate = session(tmp_path, incremental, resumed, [TURN, OLD_SUMMARY, R2], [TURN, OLD_SUMMARY, NEW_SUMMARY])
    # the older read's summary evicted, the newest's kept; the newest's summary kept with the read
    assert_accepted(gate.check([TURN, OLD_SUMMARY, NEW_SUMMARY], [TURN, NEW_SUMMARY], operator="evict",
                               evicted=["tool:r1"]))
    assert_accepted(gate.check([TURN, OLD_SUMMARY, NEW_SUMMARY], [TURN, NEW_SUMMARY], operator="evict",
                               evicted=["s1"]))
    # both summaries evicted: nothing of the resource is left to be stale
    assert_accepted(gate.check([TURN, OLD_SUMMARY, NEW_SUMMARY], [TURN], operator="evict",
                               evicted=["tool:r1", "tool:r2"]))
    # a turn kept beside the summary that states the newest value keeps the read's value
    assert_accepted(gate.check([TURN, OLD_SUMMARY, NEW_SUMMARY], [TURN, OLD_SUMMARY, NEW_SUMMARY], operator="reorder"))


@RESUMED
def test_the_older_read_evicted_beside_the_newest_is_accepted(tmp_path, incremental, resumed):
    gate = session(tmp_path, incremental, resumed)
    assert_accepted(gate.check([TURN, R1, R2], [TURN, R2], operator="evict", evicted=["tool:r1"]))


# red team 133, F01: the older read's summary re-summarized from its block handle (derived_from a
# block handle no window block stands for once that summary has left) hid where it came from; its
# marker citing the older read says it, as a summary restates what it cites
S1_TEXT = "Earlier read of app.conf: retries=3 [src:r1], timeout=30.\n"
RESUMMARY = summary("ss", "Notes: retries=3 [src:r1], timeout=30.\n",
                    [block_text_handle(blake3(S1_TEXT.encode()).digest())])


def resummarized(tmp_path, incremental: bool, resumed: bool) -> Gate:
    s1 = summary("s1", S1_TEXT, ["tool:r1"])
    return session(tmp_path, incremental, resumed, [TURN, s1, R2], [TURN, RESUMMARY, R2])


@RESUMED
def test_a_summary_of_a_summary_of_the_older_read_left_alone_is_refused(tmp_path, incremental, resumed):
    gate = resummarized(tmp_path, incremental, resumed)
    pre = [TURN, RESUMMARY, R2]
    verdict = gate.check(pre, [TURN, RESUMMARY], operator="evict", evicted=["tool:r2"])
    assert stale(verdict) == [("3", "tool:r2")]
    without = summary("s2", "app.conf read again: timeout=30 [src:r2].\n", ["tool:r2"])
    verdict = gate.check(pre, [TURN, RESUMMARY, without], operator="summarize")
    assert stale(verdict) == [("3", "tool:r2")]
    # honest: the newest read's summary says its value
    with_value = summary("s2", "app.conf read again: retries=4 [src:r2], timeout=30.\n", ["tool:r2"])
    assert_accepted(gate.check(pre, [TURN, RESUMMARY, with_value], operator="summarize"), "lossy")


def _many_files_session(n: int, turns_kept, texts: bool = False) -> tuple[Gate, list[dict], list[dict], list[str]]:
    """A gate that read n files twice each (the timeout changed), with a turn citing each newest
    read, then summarized every older read into ONE summary (each line citing its read); the
    windows before and after a prune of the newest reads on the record, keeping the turns
    ``turns_kept`` says (by file number)."""
    store = SourceStore(":memory:")
    store.put("user:u", "Audit the service configs.\n")
    user = blk("u", "user", "Audit the service configs.\n", ["user:u"])
    older, newest, turns = [], [], []
    for i in range(n):
        old = f"# svc{i}.conf\nname=svc{i}\ntimeout={30 + i}\nworkers=4\n"
        new = old.replace(f"timeout={30 + i}", f"timeout={1000 + i}")
        store.put(f"tool:f{i}a", old)
        store.put(f"tool:f{i}b", new)
        older.append(tool(f"f{i}a", f"tool:f{i}a", old, resource=f"file:svc{i}.conf", ts=100.0 + i))
        newest.append(tool(f"f{i}b", f"tool:f{i}b", new, resource=f"file:svc{i}.conf", ts=5000.0 + i))
        turns.append(blk(f"a{i}", "assistant", f"svc{i}: timeout is now {1000 + i} [src:f{i}b].\n"))
    gate = Gate(store, session="S")
    sources = [f"tool:f{i}a" for i in range(n)]
    if texts:  # (derived from the older reads' text handles)
        sources = [block_text_handle(blake3(b["text"].encode()).digest()) for b in older]
        for h, b in zip(sources, older):
            store.put(h, b["text"], kind="window_block")
    one = summary("s", "".join(f"svc{i} had timeout={30 + i} [src:f{i}a].\n" for i in range(n)), sources)
    pre = [user, *older, *(x for pair in zip(newest, turns) for x in pair)]
    window = [user, one, *(x for pair in zip(newest, turns) for x in pair)]
    assert_accepted(gate.check(pre, window, operator="summarize", commit=True,
                               evicted=[f"tool:f{i}a" for i in range(n)] if texts else ()), "lossy")
    return gate, window, [user, one, *(t for i, t in enumerate(turns) if i in turns_kept)], \
        [f"tool:f{i}b" for i in range(n)]


def test_one_summary_of_many_files_older_reads_is_weighed_once_per_check(monkeypatch):
    # red team 133, F08: the newest reads of N files pruned on the record beside the turns citing
    # them, one summary of all the older reads kept: each file's weighing read every line's
    # value of the shared key `timeout` from the summary (quadratic: 1.2 s at N = 640). The
    # summary's kv facts are now looked up natively once and indexed; counted, not timed
    import provgate.gate as gate_module

    n = 60
    gate, pre, post, newest = _many_files_session(n, range(n))
    big_asks = [0]
    real = gate_module._Check._kv_values

    def counted(facts, keys, names=None):
        if facts.kv_rows()[0].size >= n:
            big_asks[0] += 1
        return real(facts, keys, names)

    monkeypatch.setattr(gate_module._Check, "_kv_values", staticmethod(counted))
    assert_accepted(gate.check(pre, post, operator="prune", evicted=newest))
    assert big_asks[0] <= 2, big_asks


@pytest.mark.parametrize("incremental_left", [True, False], ids=["incremental", "rebuilt"])
def test_one_summary_of_many_files_older_reads_left_alone_for_one_file_is_refused(incremental_left):
    # the same prune with one file's turn evicted too: that file's older timeout is left alone in
    # the summary, as it would be in a summary of that file only
    n = 12
    gate, pre, post, newest = _many_files_session(n, set(range(n)) - {7})
    gate._incremental_left = incremental_left
    verdict = gate.check(pre, post, operator="prune", evicted=[*newest, "a7"])
    assert stale(verdict) == [("37", "tool:f7b")]


# red team 133, F01 (one edit and two cycles): a summary derived from the older read's own text
# handle (block:<BLAKE3 of its bytes>, the handle compact() gives a member without one) comes
# from that read as much as one deriving from tool:r1; the read is found by the bytes the handle
# names, among the pre window's reads and the logged ones
def _text_handle(gate: Gate, text: str) -> str:
    handle = block_text_handle(blake3(text.encode()).digest())
    gate.store.put(handle, text, kind="window_block")
    return handle


@RESUMED
def test_a_summary_from_the_older_reads_text_handle_with_both_reads_evicted_is_refused(tmp_path, incremental, resumed):
    gate = session(tmp_path, incremental, resumed)
    st = summary("st", "Earlier read: retries=3, timeout=30.\n", [_text_handle(gate, OLD)])
    verdict = gate.check([TURN, R1, R2], [TURN, st], operator="summarize", evicted=["tool:r1", "tool:r2"])
    assert [(v.key, v.value) for v in verdict.violations if v.invariant == "I4"] == [("retries", "3")]


@RESUMED
def test_the_newest_read_evicted_beside_a_summary_from_the_older_reads_text_handle_is_refused(
        tmp_path, incremental, resumed):
    gate = session(tmp_path, incremental, False)
    st = summary("st", "Earlier read: retries=3, timeout=30.\n", [_text_handle(gate, OLD)])
    assert_accepted(gate.check([TURN, R1, R2], [TURN, st, R2], operator="summarize", evicted=["tool:r1"],
                               commit=True), "lossy")
    if resumed:
        gate = Gate(gate.store, session="S")
        gate._incremental_left = incremental
    verdict = gate.check([TURN, st, R2], [TURN, st], operator="evict", evicted=["tool:r2"])
    assert stale(verdict) == [("3", "tool:r2")]


def test_summaries_from_reads_text_handles_that_keep_the_newest_value_are_accepted(tmp_path, incremental):
    gate = session(tmp_path, incremental, False)
    older, newest = _text_handle(gate, OLD), _text_handle(gate, NEW)
    # from the newest read's text handle, both reads evicted
    now = summary("sn", "Now: retries=4, timeout=30.\n", [newest])
    assert_accepted(gate.check([TURN, R1, R2], [TURN, now], operator="summarize",
                               evicted=["tool:r1", "tool:r2"]), "lossy")
    # from the older read's text handle, the newest read kept beside it
    then = summary("st", "Earlier read: retries=3, timeout=30.\n", [older])
    assert_accepted(gate.check([TURN, R1, R2], [TURN, then, R2], operator="summarize", evicted=["tool:r1"]),
                    "lossy")
    # from both text handles, stating both values
    both = summary("sb", "The retries went from 3 to 4; timeout=30.\n", [older, newest])
    assert_accepted(gate.check([TURN, R1, R2], [TURN, both], operator="summarize",
                               evicted=["tool:r1", "tool:r2"]), "lossy")


# red team 135: the read's text handle in other forms. F01: the text handle of the read's window
# text, which differs from its stored bytes (a header the framework adds), once the reads are
# logged and across cycles; F02: cited by a marker rather than derived from; F12: two hops, a
# summary of the read's text handle re-summarized from its own text handle
SHOWN_OLD = "# read at 12:00\n" + OLD


def _shown_read(gate: Gate) -> dict:
    return tool("r1", "tool:r1", SHOWN_OLD, resource=RES, ts=100.0)


def test_a_summary_from_the_older_reads_window_text_handle_is_refused_once_the_reads_are_logged(tmp_path, incremental):
    gate = session(tmp_path, incremental, False)
    shown = _shown_read(gate)
    handle = _text_handle(gate, SHOWN_OLD)
    assert_accepted(gate.check([TURN, shown, R2], [TURN, shown, R2], operator="reorder", commit=True))
    st = summary("st", "Earlier read: retries=3, timeout=30.\n", [handle])
    verdict = gate.check([TURN, shown, R2], [TURN, st], operator="summarize", evicted=["tool:r1", "tool:r2"])
    assert [(v.key, v.value) for v in verdict.violations if v.invariant == "I4"] == [("retries", "3")]
    # the next cycle: made with the newest read kept (honest), then the newest read evicted
    gate = session(tmp_path / "b", incremental, False) if (tmp_path / "b").mkdir() is None else None
    shown = _shown_read(gate)
    handle = _text_handle(gate, SHOWN_OLD)
    st = summary("st", "Earlier read: retries=3, timeout=30.\n", [handle])
    assert_accepted(gate.check([TURN, shown, R2], [TURN, st, R2], operator="summarize", evicted=["tool:r1"],
                               commit=True), "lossy")
    assert stale(gate.check([TURN, st, R2], [TURN, st], operator="evict", evicted=["tool:r2"])) == [("3", "tool:r2")]


@pytest.mark.parametrize("name", ["block:", ""], ids=["block-name", "bare-hex"])
def test_the_older_reads_text_handle_cited_by_a_marker_is_refused(tmp_path, incremental, name):
    gate = session(tmp_path, incremental, False)
    handle = _text_handle(gate, OLD)
    cite = name + handle.removeprefix("block:")
    st = summary("st", f"Earlier read: retries=3, timeout=30 [src:{cite}].\n", ["user:u"])
    verdict = gate.check([TURN, R1, R2], [TURN, st], operator="summarize", evicted=["tool:r1", "tool:r2"])
    assert ("retries", "3") in [(v.key, v.value) for v in verdict.violations if v.invariant == "I4"]


@RESUMED
@pytest.mark.parametrize("cited", [False, True], ids=["derived", "cited"])
def test_a_summary_of_the_reads_text_handle_re_summarized_from_its_own_is_refused(tmp_path, incremental, resumed,
                                                                                  cited):
    # (in the edit that evicts the newest read, the first summary in its pre window: a summary of
    # a summary no longer in the window is the documented limit)
    gate = session(tmp_path, incremental, False)
    s1 = summary("s1", "Earlier read: retries=3, timeout=30.\n", [_text_handle(gate, OLD)])
    assert_accepted(gate.check([TURN, R1, R2], [TURN, s1, R2], operator="summarize", evicted=["tool:r1"],
                               commit=True), "lossy")
    if resumed:
        gate = Gate(gate.store, session="S")
        gate._incremental_left = incremental
    own = _text_handle(gate, s1["text"])
    ss = (summary("ss", f"Notes: retries=3 [src:{own}].\n", ["user:u"]) if cited
          else summary("ss", "Notes: retries=3.\n", [own]))
    verdict = gate.check([TURN, s1, R2], [TURN, ss], operator="summarize",
                         evicted=["tool:r2", own, *s1["derived_from"]])
    assert ("retries", "3") in [(v.key, v.value) for v in verdict.violations if v.invariant == "I4"]


def test_one_summary_of_many_files_text_handles_is_weighed_in_linear_time(monkeypatch):
    # red team 135, F03: with the summary deriving from the older reads' text handles, each
    # file's weighing asked every text handle of post (410,240 look-ups at 640 files); the text
    # handles are now found from the reads. Counted, not timed
    import provgate.gate as gate_module

    def run(n: int) -> tuple[bool, int]:
        gate, pre, post, newest = _many_files_session(n, range(n), texts=True)
        calls = [0]
        real = gate_module._LeftLine.isdisjoint

        def counted(self, other):
            calls[0] += 1
            return real(self, other)

        monkeypatch.setattr(gate_module._LeftLine, "isdisjoint", counted)
        verdict = gate.check(pre, post, operator="prune", evicted=newest)
        monkeypatch.undo()
        return verdict.accepted, calls[0]

    (small_ok, small), (large_ok, large) = run(10), run(40)
    assert small_ok and large_ok
    assert large <= 4 * small + 40, (small, large)
