"""Observation masking (red team 132, F05; docs/format.md "Masked observations"): an agent framework
replaces an old tool output in place by a placeholder (SWE-agent: "Old environment output: (N lines
omitted)"). The gate accepts a post block that keeps the masked block's id and role, carries no
handle, holds one line of the documented shape (masking words, the masked block's own handles, and
counts of its lines / bytes / characters, each the masked text's own), with every handle of the
masked block evicted on the record, under prune, evict and rewrite. The masking is judged as the
fact-free placeholder in its place, so the other invariants stand as they are: a made-up count is
refused (I1), a pinned block masked is refused (R), the newest read masked beside an older one is
refused (I4). Each form on the path the run selects (PROVGATE_NO_EXTENSIONS), live and resumed from
the audit log, and a 30-cycle session masking old outputs."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, blk, of, store_with, tool

from provgate.gate import Gate, _mask_shape
from provgate.store import SourceStore

OUT = "$ pytest -q\n....F\nFAILED tests/test_retry.py::test_budget - assert 4 == 3\n1 failed, 4 passed in 0.31s\n"
assert OUT.count("\n") == 4 and len(OUT.encode()) == 102 == len(OUT)
SOURCES = {"tool:t1": OUT, "user:u1": "run the tests\n"}
U = blk("u1", "user", "run the tests\n", ["user:u1"])
T = tool("t1", "tool:t1", OUT, ts=1.0)
A = blk("a1", "assistant", "1 failed, 4 passed [src:t1]; test_budget asserts 4 == 3.\n")

HONEST = [
    "[old tool output elided]\n",
    "Old environment output: (4 lines omitted)\n",
    "[old tool output elided; fetch tool:t1 to see it]\n",
    "(output of `tool:t1` hidden: 102 bytes, 4 lines)\n",
    "Observation masked (102 characters)",
]
OPERATORS = ["prune", "evict", "rewrite"]


def masked(text: str, **kw) -> dict:
    return blk("t1", "tool", text, [], ts=kw.pop("ts", 1.0), **kw)


def check(gate: Gate, pre: list, post: list, operator: str = "prune", evicted=("tool:t1",), **kw):
    return gate.check(pre, post, operator=operator, evicted=list(evicted), **kw)


@pytest.mark.parametrize("operator", OPERATORS)
@pytest.mark.parametrize("text", HONEST)
def test_a_placeholder_of_the_documented_shape_is_accepted(text, operator):
    v = check(Gate(store_with(SOURCES)), [U, T, A], [U, masked(text), A], operator)
    assert_accepted(v)
    # the verdict's window is the caller's, placeholder and all (not the stand-in it was checked as)
    assert [b.text for b in v.window] == [U["text"], text, A["text"]]


@pytest.mark.parametrize("text", HONEST[1:])
def test_the_same_placeholder_without_the_eviction_record_is_refused(text):
    v = check(Gate(store_with(SOURCES)), [U, T, A], [U, masked(text), A], evicted=())
    assert not v.accepted


LIES = {
    # a made-up count: the output has 4 lines, 102 bytes
    "five lines of four": ("Old environment output: (5 lines omitted)\n", "I1"),
    "bytes miscounted": ("(output of tool:t1 hidden: 112 bytes, 4 lines)\n", "I1"),
    # another handle named: no placeholder of this block, and t2 asserts an identifier
    "another handle": ("[old tool output elided; fetch tool:t2 to see it]\n", "I1"),
    # a count of something else: no placeholder shape, the number is the usual claim
    "a count of failures": ("[old tool output elided: 7 failed]\n", "I1"),
}


@pytest.mark.parametrize("operator", OPERATORS)
@pytest.mark.parametrize("name", sorted(LIES))
def test_a_lying_placeholder_is_refused(name, operator):
    text, invariant = LIES[name]
    v = check(Gate(store_with(SOURCES)), [U, T, A], [U, masked(text), A], operator)
    assert not v.accepted
    assert of(v, invariant), v.violations


def test_a_made_up_count_is_refused_with_the_true_count():
    v = check(Gate(store_with(SOURCES)), [U, T, A], [U, masked("Old environment output: (5 lines omitted)\n"), A])
    [lie] = [x for x in of(v, "I1") if "masks an output" in x.message]
    assert lie.block == "t1" and lie.evidence == {"stated": 5, "unit": "lines", "masked_count": 4}


def test_a_placeholder_that_keeps_a_value_of_the_source_is_no_placeholder():
    # judged by the usual rules: under evict a changed block is refused, as without masking
    text = "[old tool output elided: FAILED tests/test_retry.py]\n"
    assert _mask_shape(text, OUT, ("tool:t1",)) is None
    v = check(Gate(store_with(SOURCES)), [U, T, A], [U, masked(text), A], "evict")
    assert not v.accepted and of(v, "I2")
    control = check(Gate(store_with(SOURCES)), [U, T, A], [U, masked("[old tool output elided]\n"), A], "evict")
    assert_accepted(control)


@pytest.mark.parametrize("form", ["handles kept", "new id tagged", "derived", "pinned flag on the placeholder",
                                  "role changed"])
def test_a_placeholder_out_of_the_documented_form_is_not_taken_for_one(form):
    text = "Old environment output: (4 lines omitted)\n"
    post = {
        "handles kept": blk("t1", "tool", text, ["tool:t1"], ts=1.0),
        # (a new id is a placeholder only of a block that left: red team 132 F05's review, below)
        "new id tagged": blk("t1x", "tool", text, [], resource="file:t1.log"),
        "derived": blk("t1", "tool", text, derived_from=["tool:t1"], ts=1.0),
        "pinned flag on the placeholder": blk("t1", "tool", text, [], ts=1.0, pinned=True),
        "role changed": blk("t1", "system", text, [], ts=1.0),
    }[form]
    v = check(Gate(store_with(SOURCES)), [U, T, A], [U, post, A])
    assert not v.accepted


def test_a_placeholder_under_another_blocks_id_is_refused():
    # the assistant's turn (no handle) replaced by a placeholder, the tool output kept
    v = check(Gate(store_with(SOURCES)), [U, T, A], [U, T, blk("a1", "assistant", "[old tool output elided]\n")])
    assert not v.accepted


def test_a_pinned_block_masked_is_refused_and_evicted_whole_is_accepted():
    pinned = dict(T, pinned=True)
    v = check(Gate(store_with(SOURCES)), [U, pinned, A], [U, masked("[old tool output elided]\n"), A])
    assert not v.accepted and of(v, "R")
    assert_accepted(check(Gate(store_with(SOURCES)), [U, pinned, A], [U, A]))


def test_a_block_pinned_earlier_in_the_session_masked_is_refused(tmp_path):
    store = store_with(SOURCES, str(tmp_path / "s.sqlite3"))
    gate = Gate(store, session="S")
    assert_accepted(gate.check([U, dict(T, pinned=True), A], [U, dict(T, pinned=True), A], operator="reorder",
                               commit=True))
    for g in (gate, Gate(SourceStore(str(tmp_path / "s.sqlite3")), session="S")):
        v = check(g, [U, T, A], [U, masked("Old environment output: (4 lines omitted)\n"), A])
        assert not v.accepted and of(v, "R")


RES = "file:cfg.ini"
READS = {"file:cfg@1": "retries = 3\n", "file:cfg@2": "retries = 4\n"}
R1 = tool("r1", "file:cfg@1", READS["file:cfg@1"], ts=1.0, resource=RES)
R2 = tool("r2", "file:cfg@2", READS["file:cfg@2"], ts=2.0, resource=RES)


def test_the_newest_read_masked_beside_an_older_one_is_refused_as_its_eviction_is():
    gate = Gate(store_with({**SOURCES, **READS}))
    ph = blk("r2", "tool", "Old environment output: (1 lines omitted)\n", [], ts=2.0, resource=RES)
    v = check(gate, [U, R1, R2], [U, R1, ph], evicted=["file:cfg@2"])
    assert not v.accepted and of(v, "I4")
    whole = check(gate, [U, R1, R2], [U, R1], evicted=["file:cfg@2"])
    assert not whole.accepted and of(whole, "I4")
    # the older read masked, the newest kept: accepted
    old = blk("r1", "tool", "Old environment output: (1 lines omitted)\n", [], ts=1.0, resource=RES)
    assert_accepted(check(gate, [U, R1, R2], [U, old, R2], evicted=["file:cfg@1"]))


@pytest.mark.parametrize("operator", OPERATORS)
def test_masking_is_judged_as_evicting_the_block_whole(operator):
    # citations of the masked output by other blocks (I3/I5) stand as they do for its eviction
    cited = blk("a2", "assistant", "test_budget fails [src:t1].\n")
    for pre in ([U, T, A], [U, T, A, cited]):
        post = [b if b is not T else masked("[old tool output elided; fetch tool:t1 to see it]\n") for b in pre]
        v = check(Gate(store_with(SOURCES)), pre, post, operator)
        whole = check(Gate(store_with(SOURCES)), pre, [b for b in pre if b is not T], "prune")
        assert (v.accepted, sorted({x.invariant for x in v.violations})) == (
            whole.accepted, sorted({x.invariant for x in whole.violations}))


@pytest.mark.parametrize("resumed", [False, True], ids=["live", "resumed"])
def test_later_cycles_keep_the_placeholder_live_and_resumed(tmp_path, resumed):
    store = store_with(SOURCES, str(tmp_path / "s.sqlite3"))
    gate = Gate(store, session="S")
    ph = masked("Old environment output: (4 lines omitted)\n")
    first = gate.check([U, T, A], [U, ph, A], operator="evict", evicted=["tool:t1"], commit=True)
    window = first.window
    if resumed:
        gate = Gate(SourceStore(str(tmp_path / "s.sqlite3")), session="S")
    gate.store.put("user:u2", "thanks\n")
    u2 = blk("u2", "user", "thanks\n", ["user:u2"])
    again = gate.check(window, window, operator="reorder")
    assert_accepted(again)
    # the audit record's post digest is the caller's window's, the next check's pre
    assert first.post_digest == again.pre_digest
    assert_accepted(gate.check([*window, u2], [*window, u2], operator="reorder"))
    assert_accepted(gate.check([*window, u2], [U, *window[1:], u2], operator="rewrite"))
    # the placeholder evicted by its id later on
    assert_accepted(gate.check(window, [U, A], operator="evict", evicted=["t1"]))


def _id(b) -> str:
    return b["id"] if isinstance(b, dict) else b.id


def _cycle_output(n: int) -> str:
    return "".join(f"line {k} of run {n}\n" for k in range(1, 2 + n % 4))


@pytest.mark.parametrize("resumed", [False, True], ids=["live", "resumed"])
def test_a_30_cycle_session_masking_outputs_older_than_3_cycles_is_accepted_throughout(tmp_path, resumed):
    path = str(tmp_path / "s.sqlite3")
    store = SourceStore(path)
    gate = Gate(store, session="S")
    window: list = []
    texts: dict[str, str] = {}
    for n in range(1, 31):
        out = _cycle_output(n)
        store.put(f"tool:t{n}", out)
        store.put(f"user:u{n}", f"run step {n}\n")
        texts[f"t{n}"] = out
        # the cycle's new turns come in the agent's window (the next check's pre)
        window = [*window, blk(f"u{n}", "user", f"run step {n}\n", [f"user:u{n}"]), tool(f"t{n}", f"tool:t{n}", out),
                  blk(f"a{n}", "assistant", f"done [src:t{n}].\n")]
        old = f"t{n - 3}"
        if n <= 3:
            window = list(gate.commit(window, window, operator="reorder"))
        else:
            lines = texts[old].count("\n")
            form = (f"Old environment output: ({lines} lines omitted)\n" if n % 2 else
                    f"[old tool output elided; fetch tool:{old} to see it]\n")
            post = [blk(old, "tool", form, []) if _id(b) == old else b for b in window]
            v = gate.check(window, post, operator="prune" if n % 3 else "evict", evicted=[f"tool:{old}"], commit=True)
            assert_accepted(v)
            window = list(v.window)
            assert [b.text for b in window if _id(b) == old] == [form]
        if resumed and n % 10 == 0:
            gate = Gate(SourceStore(path), session="S")
            assert_accepted(gate.check(window, window, operator="reorder"))


@pytest.mark.parametrize(("text", "shape"), [
    ("Old environment output: (4 lines omitted)\n", []),
    ("Old environment output: (3 lines omitted)\n", [(3, "lines", 4)]),
    ("[old tool output elided]", []),
    ("Output hidden; fetch tool:t1.\n", []),
    ("Output hidden; fetch tool:t2.\n", None),  # another block's handle
    ("(output of `pytest -q` hidden)\n", None),  # a command named: no handle of the block
    ("[old tool output]\n", None),  # no masking word
    ("elided\nsecond line\n", None),  # more than one line
    ("Old environment output: (4 omitted)\n", None),  # a number without its unit
    ("[output elided; retries=3]\n", None),
    ("[output elided, not run]\n", None),
])
def test_the_placeholder_shape(text, shape):
    assert _mask_shape(text, OUT, ("tool:t1",)) == shape


def test_the_compaction_doc_example_masks_and_commits(tmp_path):
    # docs/compaction.md, "Observation masking"
    gate = Gate(store_with(SOURCES, str(tmp_path / "s.sqlite3")), session="S")
    window = gate.commit([U, T, A], [U, T, A], operator="reorder")
    old = window[1]
    lines = old.text.count("\n") + (old.text != "" and not old.text.endswith("\n"))
    masked_block = {"id": old.id, "role": old.role, "handles": [], "ts": old.ts, "resource": old.resource,
                    "text": f"Old environment output: ({lines} lines omitted)\n"}
    post = [masked_block if b.id == old.id else b for b in window]
    window = gate.commit(window, post, operator="prune", evicted=list(old.handles))
    assert window[1].text == "Old environment output: (4 lines omitted)\n"


def test_the_doc_example_masks_the_older_of_two_tagged_reads(tmp_path):
    # red team 133, F02: the example dropped the block's resource, and a read's placeholder that
    # drops it is the read retagged (I4): the example keeps it, and masking the older read passes
    old_text, new_text = "retries=3\ntimeout=30\n", "retries=5\ntimeout=30\n"
    store = store_with({**SOURCES, "tool:r1": old_text, "tool:r2": new_text}, str(tmp_path / "s.sqlite3"))
    gate = Gate(store, session="S")
    r1 = tool("r1", "tool:r1", old_text, resource="file:app.conf", ts=100.0)
    r2 = tool("r2", "tool:r2", new_text, resource="file:app.conf", ts=200.0)
    window = gate.commit([U, r1, r2], [U, r1, r2], operator="reorder")
    old = window[1]
    masked_block = {"id": old.id, "role": old.role, "handles": [], "ts": old.ts, "resource": old.resource,
                    "text": "Old environment output: (2 lines omitted)\n"}
    post = [masked_block if b.id == old.id else b for b in window]
    assert_accepted(gate.check(window, post, operator="prune", evicted=list(old.handles)))
    dropped = [dict(masked_block, resource=None) if b.id == old.id else b for b in window]
    assert of(gate.check(window, dropped, operator="prune", evicted=list(old.handles)), "I4")


def test_a_placeholder_whose_stand_in_is_another_blocks_text_and_two_at_once():
    # t1 masked by the stand-in's own text first; t2's placeholder is then checked as a copy of it
    gate = Gate(store_with(SOURCES), session="S")
    o2 = "one\ntwo\nthree\n"
    gate.store.put("tool:t2", o2)
    t2 = tool("t2", "tool:t2", o2)
    window = gate.commit([U, T, t2], [U, masked("[old tool output elided]\n"), t2], operator="prune",
                         evicted=["tool:t1"])
    ph2 = blk("t2", "tool", "Old environment output: (3 lines omitted)\n")
    v = gate.check(window, [U, window[1], ph2], operator="evict", evicted=["tool:t2"])
    assert_accepted(v)
    assert [b.text for b in v.window][1:] == ["[old tool output elided]\n", ph2["text"]]
    lie = gate.check(window, [U, window[1], dict(ph2, text="Old environment output: (4 lines omitted)\n")],
                     operator="evict", evicted=["tool:t2"])
    assert not lie.accepted and of(lie, "I1")
    # two outputs masked in one edit by the same text
    same = "Output masked.\n"
    assert_accepted(Gate(store_with({**SOURCES, "tool:t2": o2})).check(
        [U, T, t2], [U, masked(same), blk("t2", "tool", same)], operator="prune", evicted=["tool:t1", "tool:t2"]))


def test_a_reclassified_window_holds_the_callers_placeholder():
    sources = {**SOURCES, "user:u2": "please run it with retries=3\n"}
    u2 = blk("u2", "user", "please run it with retries=3\n", ["user:u2"])
    text = "Old environment output: (4 lines omitted)\n"
    v = Gate(store_with(sources)).check([u2, T], [blk("u2", "user", "please run it\n", ["user:u2"]), masked(text)],
                                        operator="rewrite", evicted=["tool:t1"], policy="reclassify")
    assert v.accepted and v.reclassified
    assert [b.text for b in v.window] == ["please run it\n", text]


# -- a placeholder under a new id (red team 132, F05's review at stop 57) ---------------------------
O2 = "one\ntwo\nthree\n"
T2 = tool("t2", "tool:t2", O2, ts=2.0)
BOTH = {**SOURCES, "tool:t2": O2}


def _new(text: str, id: str = "x", **kw) -> dict:
    return blk(id, "tool", text, [], **kw)


@pytest.mark.parametrize("operator", OPERATORS)
@pytest.mark.parametrize("text", HONEST)
def test_a_placeholder_under_a_new_id_of_the_block_that_left_is_accepted(text, operator):
    # the masked block is gone from post, every handle evicted: the placeholder masks it (the
    # only block of its role that left so, or the one whose handle it names)
    v = check(Gate(store_with(SOURCES)), [U, T, A], [U, _new(text), A], operator)
    assert_accepted(v)
    assert [b.text for b in v.window] == [U["text"], text, A["text"]]


def test_a_placeholder_under_a_new_id_names_the_block_when_several_left():
    pre = [U, T, T2, A]
    ev = ["tool:t1", "tool:t2"]
    # ambiguous: no placeholder (I1, it resolves to no handle)
    v = check(Gate(store_with(BOTH)), pre, [U, _new("[old tool output elided]\n"), A], evicted=ev)
    assert not v.accepted and of(v, "I1")
    # named: each masks its own, its counts checked against that block
    assert_accepted(check(Gate(store_with(BOTH)), pre, [U, _new("[output of tool:t1 elided: 4 lines]\n"),
                                                          _new("[output of tool:t2 elided: 3 lines]\n", "y"), A],
                          evicted=ev))
    lie = check(Gate(store_with(BOTH)), pre, [U, _new("[output of tool:t1 elided]\n"),
                                              _new("[output of tool:t2 elided: 4 lines]\n", "y"), A], evicted=ev)
    assert not lie.accepted
    assert any("masks an output of 3 lines as 4 lines" in x.message for x in of(lie, "I1"))


@pytest.mark.parametrize("lie", ["no record", "the block kept", "another handle named", "a made-up count",
                                 "a value kept", "role changed", "pinned", "a summary derives from it"])
def test_a_placeholder_under_a_new_id_that_masks_no_block_that_left_is_refused(lie):
    ph = _new("[old tool output elided]\n")
    pre, post, kw = [U, T, A], [U, ph, A], {}
    if lie == "no record":
        kw = {"evicted": ()}
    elif lie == "the block kept":
        post = [U, T, ph, A]
    elif lie == "another handle named":
        post = [U, _new("[old tool output elided; fetch tool:t2 to see it]\n"), A]
    elif lie == "a made-up count":
        post = [U, _new("Old environment output: (5 lines omitted)\n"), A]
    elif lie == "a value kept":
        post = [U, _new("[old tool output elided: FAILED tests/test_retry.py]\n"), A]
    elif lie == "role changed":
        post = [U, blk("x", "system", "[old tool output elided]\n"), A]
    elif lie == "pinned":
        pre = [U, dict(T, pinned=True), A]
    elif lie == "a summary derives from it":
        post = [U, ph, blk("s", "summary", "1 failed [src:t1].\n", derived_from=["tool:t1"]), A]
        kw = {"operator": "summarize"}
    v = check(Gate(store_with(SOURCES)), pre, post, **kw)
    assert not v.accepted and of(v, "I1"), v.violations


def test_a_placeholder_under_a_new_id_of_a_block_pinned_earlier_is_refused(tmp_path):
    store = store_with(SOURCES, str(tmp_path / "s.sqlite3"))
    gate = Gate(store, session="S")
    assert_accepted(gate.check([U, dict(T, pinned=True), A], [U, dict(T, pinned=True), A], operator="reorder",
                               commit=True))
    for g in (gate, Gate(SourceStore(str(tmp_path / "s.sqlite3")), session="S")):
        v = check(g, [U, T, A], [U, _new("[old tool output elided]\n"), A])
        assert not v.accepted and of(v, "I1")
        assert_accepted(check(g, [U, T, A], [U, A]))  # (evicted whole: R lets it go on the record)


def test_the_newest_read_masked_under_a_new_id_is_refused_the_older_accepted():
    gate = Gate(store_with({**SOURCES, **READS}))
    ph = _new("Old environment output: (1 lines omitted)\n")
    for post in ([U, R1, ph], [U, R1, dict(ph, resource=RES, ts=2.0)]):
        v = check(gate, [U, R1, R2], post, evicted=["file:cfg@2"])
        assert not v.accepted and of(v, "I4")
    assert_accepted(check(gate, [U, R1, R2], [U, ph, R2], evicted=["file:cfg@1"]))
    # a placeholder under a new id tagged as a read is refused (it is no read: leave resource out)
    assert of(check(gate, [U, R1, R2], [U, dict(ph, resource=RES, ts=1.0), R2], evicted=["file:cfg@1"]), "I4")


@pytest.mark.parametrize("resumed", [False, True], ids=["live", "resumed"])
def test_a_placeholder_under_a_new_id_in_later_cycles(tmp_path, resumed):
    path = str(tmp_path / "s.sqlite3")
    gate = Gate(store_with(SOURCES, path), session="S")
    ph = _new("Old environment output: (4 lines omitted)\n")
    window = list(gate.commit([U, T, A], [U, ph, A], operator="prune", evicted=["tool:t1"]))
    if resumed:
        gate = Gate(SourceStore(path), session="S")
    assert_accepted(gate.check(window, window, operator="reorder"))
    rewritten = gate.check(window, [U, _new("[old tool output elided: 7 failed]\n"), A], operator="rewrite")
    assert not rewritten.accepted and of(rewritten, "I1")
    assert_accepted(gate.check(window, [U, A], operator="evict", evicted=["x"]))
