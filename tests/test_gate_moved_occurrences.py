"""I2's "fewer occurrences" rule (docs/gate.md, I2 — lossless-operator purity): a lost
occurrence is excused only by a true move, the losing block having cut it with its statement
and another changed block having gained it. The gate runs on whichever implementation is
loaded (the suite runs once each way: PROVGATE_NO_EXTENSIONS=1 for the reference)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, blk, find, store_with

import provgate.gate as gate_module
from provgate.gate import Gate


def _turn(id_: str, text: str, handles=(), **kw):
    return blk(id_, "assistant", text, handles, **kw)


def _check(pre, post, sources=None, **kw):
    return Gate(store_with(sources or {})).check(pre, post, operator="rewrite", **kw)


def _refused_for_occurrences(verdict, block: str, value: str):
    v = find(verdict, "I2", block=block, value=value)
    assert v.evidence["change"] == "fewer_occurrences", v
    return v


# red team 103, F02: a derived copy of the old statement excused the change

_OLD = {"turn:a": "Imported 1 000 000 rows.\n", "turn:b": "Summary: imported 1 000 000 rows.\n"}


@pytest.mark.parametrize("post", [
    # the old statement kept as a new derived block, the block under its id saying the new one
    [_turn("a", "Imported 1 000 rows.\n", ["turn:a"]), _turn("s", _OLD["turn:a"], derived_from=["turn:a"])],
    # a summary that held the old statement already, re-issued under a new id
    [_turn("a", "Imported 1 000 rows.\n", ["turn:a"]),
     _turn("b2", "Summary:  imported 1 000 000 rows.\n", derived_from=["turn:b"])],
    # a new copy of the summary, the summary kept
    [_turn("a", "Imported 1 000 rows.\n", ["turn:a"]), _turn("b", _OLD["turn:b"], ["turn:b"]),
     _turn("c", "Imported 1 000 000 rows!\n", derived_from=["turn:b"])],
])
def test_a_copy_of_the_old_statement_excuses_no_changed_figure(post):
    pre = [_turn("a", _OLD["turn:a"], ["turn:a"]), _turn("b", _OLD["turn:b"], ["turn:b"])]
    _refused_for_occurrences(_check(pre, post, _OLD), "a", "000")


_SPLIT = {"turn:a": "Sleep 10 then 10 more seconds.\n", "turn:b": "Then 10 more seconds.\n"}


@pytest.mark.parametrize("other, accepted", [
    (_turn("a2", "Then 10 more seconds, then stop.\n", derived_from=["turn:a"]), True),  # moved out of a
    (_turn("b2", "Then  10 more seconds.\n", derived_from=["turn:b"]), False),  # b's own, re-issued
])
def test_a_statement_cut_is_excused_only_by_a_block_that_gained_it(other, accepted):
    # the other side of F02: the occurrence must be new to the block that holds it; a block
    # re-issuing what its pre version (here b, under another id) held already moved nothing
    pre = [_turn("a", _SPLIT["turn:a"], ["turn:a"]), _turn("b", _SPLIT["turn:b"], ["turn:b"])]
    post = [_turn("a", "Sleep 10 seconds.\n", ["turn:a"]), other]
    if other.get("id") == "a2":
        post.insert(1, pre[1])
    verdict = _check(pre, post, _SPLIT)
    if accepted:
        assert_accepted(verdict, "lossless")
    else:
        _refused_for_occurrences(verdict, "a", "10")


def test_a_copy_of_a_kept_holder_excuses_no_cut_statement():
    pre = [_turn("a", _SPLIT["turn:a"], ["turn:a"]), _turn("b", _SPLIT["turn:b"], ["turn:b"])]
    post = [_turn("a", "Sleep 10 seconds.\n", ["turn:a"]), pre[1],
            _turn("c", "Then 10 more seconds!\n", derived_from=["turn:b"])]
    _refused_for_occurrences(_check(pre, post, _SPLIT), "a", "10")


# red team 103, F01: figures traded between statements whose neighbouring words are equal

@pytest.mark.parametrize("pre_texts, post_texts", [
    (("Imported 1 000 000 rows today.\n", "Imported 1 000 rows yesterday.\n"),
     ("Imported 1 000 rows today.\n", "Imported 1 000 000 rows yesterday.\n")),
    (("Imported 1 000 000 rows.\n", "Imported 1 000 rows.\n"), ("Imported 1 000 rows!\n", "Imported 1 000 000 rows!\n")),
    (("timeout 30 s, limit 60 s, timeout 30 s.\n", "timeout 60 s, limit 30 s.\n"),
     ("timeout 30 s, limit 60 s, timeout 60 s.\n", "timeout 30 s, limit 30 s.\n")),
    # the statement moved within the block, its figure changed: its words stayed in the block
    (("Retry after 30 s. Then stop after 30 s.\n", "Log: stop after 60 s.\n"),
     ("Then stop after 60 s. Retry after 30 s.\n", "Log: stop after 30 s.\n")),
])
def test_figures_traded_between_statements_are_no_move(pre_texts, post_texts):
    pre = [_turn("a", pre_texts[0]), _turn("b", pre_texts[1])]
    post = [_turn("a", post_texts[0]), _turn("b", post_texts[1])]
    verdict = _check(pre, post)
    assert any(v.invariant == "I2" and v.block == "a" and v.evidence.get("change") == "fewer_occurrences"
               for v in verdict.violations), verdict.violations


def test_a_figure_changed_in_place_is_no_move_even_when_the_block_drops_its_words_elsewhere():
    # the words beside the lost figure must leave with it: dropping other copies of them
    # elsewhere in the block ("rows", "imported") is no cut of the statement
    src = {"turn:a": "Imported 1 000 000 rows. The rows were imported.\n"}
    pre = [_turn("a", src["turn:a"], ["turn:a"])]
    post = [_turn("a", "Imported 1 000 rows. The were.\n", ["turn:a"]),
            _turn("s", "Imported 1 000 000 rows.\n", derived_from=["turn:a"])]
    _refused_for_occurrences(_check(pre, post, src), "a", "000")


@pytest.mark.parametrize("before, kept, moved", [
    ("Sleep 10 then 10 more seconds.\n", "Sleep 10 seconds.\n", "Then 10 more seconds.\n"),
    ("Retry in 5 s. Give up after 5 tries.\n", "Give up after 5 tries.\n", "Retry in 5 s.\n"),
    # red team 103, F07: the moved sentence starts with the figure (no word before it moved)
    ("Sleep 10 seconds. 10 more seconds later, retry.\n", "Sleep 10 seconds.\n", "10 more seconds later, retry.\n"),
    ("Wait 5 s. 5 retries max.\n", "Wait 5 s.\n", "5 retries max.\n"),
])
def test_a_statement_moved_to_a_new_block_keeps_its_occurrences(before, kept, moved):
    src = {"turn:a": before}
    pre = [_turn("a", before, ["turn:a"])]
    post = [_turn("a", kept, ["turn:a"]), _turn("a2", moved, derived_from=["turn:a"])]
    assert_accepted(_check(pre, post, src), "lossless")


@pytest.mark.parametrize("before, kept, moved", [
    ("Sleep 10 seconds. 10 more seconds later, retry.\n", "Sleep 10 seconds.\n", "10 fewer seconds later, retry.\n"),
    ("Sleep 10 seconds. 10 more seconds later, retry.\n", "Sleep 10 seconds.\n", "Then 10 seconds later, retry.\n"),
    ("Wait 5 s. 5 retries max.\n", "Wait 5 s.\n", "5 s max.\n"),
])
def test_a_statement_moved_with_its_words_changed_is_refused(before, kept, moved):
    src = {"turn:a": before}
    pre = [_turn("a", before, ["turn:a"])]
    post = [_turn("a", kept, ["turn:a"]), _turn("a2", moved, derived_from=["turn:a"])]
    find(_check(pre, post, src), "I2", block="a")


# red team 101, F05 / red team 100, F09: a quotation dropped whole, or only its marks removed,
# while another block holds it; red team 103, F04: its words changed is still refused

@pytest.mark.parametrize("before, after, accepted", [
    ('Reminder: "deploy only on Tuesdays". Next step: run the tests.\n', "Next step: run the tests.\n", True),
    ("Edit `src/app.py` now.\n", "Edit src/app.py now.\n", True),
    ('Step 1: "drain the node first", then upgrade.\n', "Step 1: drain the node first, then upgrade.\n", True),
    ('Step 1: "drain the node first", then upgrade.\n', "Step 1: then upgrade.\n", True),
    ('Step 1: "drain the node first", then upgrade.\n', "Step 1: never drain the node, then upgrade.\n", False),
    ('Step 1: "drain the node first", then upgrade.\n', "Step 1: drain the node, then upgrade first.\n", False),
    ('Step 1: "drain the node first", then upgrade.\n', "Step 1: Drain the node first, then upgrade.\n", False),
    # the words moved elsewhere in the block (not cut: still held as often)
    ('Step 1: "drain the node first", then upgrade.\n', "Step 1: then upgrade. Drain the node first.\n", False),
    ("Edit `src/app.py` now.\n", "Edit src app.py now.\n", False),
    ("Edit `src/app.py` now.\n", "Edit src/app2.py now.\n", False),
])
def test_a_quotation_another_block_holds_dropped_or_unmarked(before, after, accepted):
    quoted = before[before.index(next(c for c in before if c in '"`')):]
    other = _turn("b", "The runbook says " + quoted)
    pre = [_turn("a", before), other]
    verdict = _check(pre, [_turn("a", after), other])
    if accepted:
        assert_accepted(verdict, "lossless")
    else:
        find(verdict, "I2", block="a")


def test_a_middle_too_long_to_align_cuts_nothing(monkeypatch):
    # the alignment's bound fails closed: past it no word counts as cut, so the split is refused
    src = {"turn:a": "Sleep 10 then 10 more seconds.\n"}
    pre = [_turn("a", src["turn:a"], ["turn:a"])]
    post = [_turn("a", "Sleep for 10 seconds.\n", ["turn:a"]),
            _turn("a2", "Then 10 more seconds.\n", derived_from=["turn:a"])]
    assert_accepted(_check(pre, post, src), "lossless")
    monkeypatch.setattr(gate_module, "_ALIGN_PAIRS", 0)
    _refused_for_occurrences(_check(pre, post, src), "a", "10")


def test_kept_words():
    words = str.split
    assert gate_module._kept_words(words("sleep 10 then 10 more seconds"), words("sleep 10 seconds")) == [0, 1, -1, -1, -1, 2]
    assert gate_module._kept_words(words("a b c"), words("a b c")) == [0, 1, 2]
    assert gate_module._kept_words(words("x a b y"), words("a b z")) == [-1, 0, 1, -1]
    assert gate_module._kept_words([], words("a")) == []


@pytest.mark.parametrize("n", [50, 200])
def test_each_losing_block_is_aligned_once(monkeypatch, n):
    # linear: one alignment per rewritten block that lost an occurrence, and the words of each
    # other block read at most once a side, whatever N; a block holding the lost fact as often as
    # before is not read at all (red team 100, F14)
    calls, bounds = [], []
    real, real_bounds = gate_module._kept_words, gate_module._word_bounds
    monkeypatch.setattr(gate_module, "_kept_words", lambda a, b: calls.append(1) or real(a, b))
    monkeypatch.setattr(gate_module, "_word_bounds", lambda t: bounds.append(1) or real_bounds(t))
    pre = [_turn(f"a{k}", f"Step {k}: sleep 10 then 10 more seconds.\n") for k in range(n)]
    post = [_turn(f"a{k}", f"Step {k}: sleep 10 then 10 more seconds, 10 s.\n" if k % 2 else
                  f"Step {k}: sleep 10 seconds; then 10 more seconds.\n" if k else f"Step {k}: sleep 10 seconds.\n")
            for k in range(n)]
    verdict = _check(pre, post)
    find(verdict, "I2", block="a0")
    assert len(calls) == 1
    # (every block's words at most once a side: a block whose figures kept their order, with a
    # unit after one, is read for its units too, red team 115 F07)
    assert len(bounds) <= 2 * n + 2


def test_a_block_holding_the_fact_as_often_as_before_gained_none_of_it():
    # the receiver traded its own "10 minutes" for the moved "10 more rounds": it holds "10"
    # once, as before, so it took no occurrence the losing block lost ("rounds": a figure moved
    # to another block with a unit is grounded by that block's sources only, docs/gate.md units)
    pre = [_turn("a", "Sleep 10 then 10 more rounds.\n"), _turn("b", "Then wait 10 minutes.\n")]
    moved = [_turn("a", "Sleep 10 rounds.\n"), _turn("b", "Then 10 more rounds; wait 10 minutes.\n")]
    assert_accepted(_check(pre, moved), "lossless")
    traded = [_turn("a", "Sleep 10 rounds.\n"), _turn("b", "Then 10 more rounds; wait minutes.\n")]
    _refused_for_occurrences(_check(pre, traded), "a", "10")


def test_a_long_middle_of_a_repeated_word_is_not_aligned(monkeypatch):
    # red team 108, F02: the alignment is cubic in the words of a middle where one word repeats
    # and the matches are short ('x x x ...' -> 'y x y x ...': one check of 800 words took 10 s);
    # a middle past the bound is not aligned at all (counted: no matcher made), failing closed
    made = []
    real = gate_module.difflib.SequenceMatcher
    monkeypatch.setattr(gate_module.difflib, "SequenceMatcher", lambda *a, **k: made.append(1) or real(*a, **k))
    src = {"turn:a": "x\n"}
    moved = "The db listens on port 5432 today."
    for n, aligned in ((20, True), (800, False)):
        made.clear()
        pre = [_turn("a", f"Port 5432 is open. {moved} Data: {'x ' * n}end.\n", ["turn:a"]),
               _turn("b", "Cache warm.\n", ["turn:a"])]
        post = [_turn("a", f"Port 5432 is open. Data: {'y x ' * (n // 2)}end.\n", ["turn:a"]),
                _turn("b", f"Cache warm. {moved}\n", ["turn:a"])]
        verdict = _check(pre, post, src)
        assert bool(made) is aligned
        if not aligned:
            _refused_for_occurrences(verdict, "a", "5432")


_RT108_LOG = "web: 3 pods\napi: 3 pods\ndb: 3 pods\nquota: 5 pods\n"
_RT108_A = "The web tier runs 3 pods [src:c1]. The api tier runs 3 pods [src:c1].\n"
_RT108_B = "The db tier is up [src:c1].\n"


@pytest.mark.parametrize(("lie", "gained"), [
    (("api tier runs 3", "api tier has 5"), "The db tier is up and runs 3 pods [src:c1].\n"),
    (("api tier runs 3 pods", "api tier runs 5 replicas"), "The db tier is up with 3 pods [src:c1].\n"),
])
def test_a_figure_changed_in_place_with_a_word_beside_it_reworded_moved_nothing(lie, gained):
    # red team 108, F01: one side of the figure reworded counted as the statement cut out, and
    # another block gaining the figure beside the same word took it; a figure standing where
    # the lost one stood says the value changed in place
    def rewrite(a, b):
        g = Gate(store_with({"tool:c1": _RT108_LOG}))
        base = [blk("t1", "tool", _RT108_LOG, ["tool:c1"])]
        return g.check([*base, blk("a", "assistant", _RT108_A), blk("b", "assistant", _RT108_B)],
                       [*base, blk("a", "assistant", a), blk("b", "assistant", b)], operator="rewrite")

    find(rewrite(_RT108_A.replace(*lie), gained), "I2", block="a", value="3")
    assert_accepted(rewrite(_RT108_A, gained), "lossless")  # (the gain alone is honest)


def test_a_sentence_ending_with_its_figure_moved_after_a_cited_one_is_still_a_move():
    # a number beside the kept word, not any word holding a digit ("c1" of a marker): the
    # sentence before the moved one ends in a marker, and the move stays honest
    log = "db: listening on port 5432\ncache: warm\n"
    cited, moved, warm = "Port 5432 is open [src:c1].", "The db listens on port 5432.", "Cache is warm [src:c1]."
    g = Gate(store_with({"tool:c1": log}))
    base = [blk("t1", "tool", log, ["tool:c1"])]
    pre = [*base, blk("a", "assistant", f"{cited} {moved} {warm}\n"), blk("b", "assistant", "Next, deploy [src:c1].\n")]
    post = [*base, blk("a", "assistant", f"{cited} {warm}\n"), blk("b", "assistant", f"Next, deploy [src:c1]. {moved}\n")]
    assert_accepted(g.check(pre, post, operator="rewrite"), "lossless")


_RT106_LOG = "db: listening on port 5432\ncache: warm, 3 nodes\n"
_RT106_P, _RT106_C = "Port 5432 is open [src:c1].", "The cache is warm [src:c1]."
_RT106_M, _RT106_N = "The db listens on port 5432.", "Next, deploy [src:c1]."


def _rt106(pre_turns, post_turns):
    g = Gate(store_with({"tool:c1": _RT106_LOG}))
    base = [blk("t1", "tool", _RT106_LOG, ["tool:c1"])]
    mk = lambda t: blk(t[0], "assistant", t[1], derived_from=t[2] if len(t) > 2 else None)
    return g.check([*base, *map(mk, pre_turns)], [*base, *map(mk, post_turns)], operator="rewrite")


@pytest.mark.parametrize("pre_a, post", [
    # to the other turn's end, its start, a turn of its own; one sentence a line
    (f"{_RT106_P} {_RT106_M} {_RT106_C}\n", [("a", f"{_RT106_P} {_RT106_C}\n"), ("b", f"{_RT106_N} {_RT106_M}\n")]),
    (f"{_RT106_P} {_RT106_M} {_RT106_C}\n", [("a", f"{_RT106_P} {_RT106_C}\n"), ("b", f"{_RT106_M} {_RT106_N}\n")]),
    (f"{_RT106_P} {_RT106_M} {_RT106_C}\n", [("a", f"{_RT106_P} {_RT106_C}\n"), ("a2", f"{_RT106_M}\n", ["tool:c1"]),
                                             ("b", f"{_RT106_N}\n")]),
    (f"{_RT106_P}\n{_RT106_M}\n{_RT106_C}\n", [("a", f"{_RT106_P}\n{_RT106_C}\n"), ("b", f"{_RT106_N}\n{_RT106_M}\n")]),
])
def test_a_sentence_ending_with_its_figure_moved_before_one_starting_with_the_same_word(pre_a, post):
    # red team 106, F03 / 108, F03: "The db … port 5432. The cache …" lost its middle sentence;
    # the alignment cut it up to the second "The", so the word after 5432 counted as moved
    # with it and the receiver, holding 5432 at its end, took nothing. Either anchoring of the
    # cut is asked (the cut slid to the first "The" is the sentence)
    assert_accepted(_rt106([("a", pre_a), ("b", f"{_RT106_N}\n")], post), "lossless")


@pytest.mark.parametrize("changed", [
    "The db listens on port 6543.",  # the figure changed in place, the next sentence alike
    "The db listens on 6543.",  # and a word beside it reworded
])
def test_a_figure_changed_before_a_sentence_starting_with_the_same_word_is_still_refused(changed):
    # the other anchoring does not excuse a value changed in place: another turn gaining the
    # old sentence whole still takes none of it (it did not leave block a; a figure stands there)
    pre = [("a", f"{_RT106_P} {_RT106_M} {_RT106_C}\n"), ("b", f"{_RT106_N}\n")]
    post = [("a", f"Port 5432 is open. {changed} {_RT106_C}\n"), ("b", f"{_RT106_N} {_RT106_M}\n")]
    find(_rt106(pre, post), "I2", block="a", value="5432")


def test_slid_cuts():
    words = str.split
    pre = words("open the db port 5432 the cache")
    kept = gate_module._kept_words(pre, words("open the cache"))
    assert kept == [0, 1, -1, -1, -1, -1, 2]  # (the common start and end trimmed: the second "the" cut)
    assert gate_module._slid_cuts(pre, kept, -1) == [0, -1, -1, -1, -1, 1, 2]  # the sentence cut
    assert gate_module._slid_cuts(pre, kept, 1) == kept
    # a run slides as far as equal words let it, stopping at the next cut run
    pre = words("port 5432 the db port 5432 the cache")
    kept = [0, 1, 2, -1, -1, -1, -1, 3]
    assert gate_module._slid_cuts(pre, kept, -1) == [-1, -1, -1, -1, 0, 1, 2, 3]
    assert gate_module._slid_cuts(words("a x b x c"), [0, -1, 1, -1, 2], -1) == [0, -1, 1, -1, 2]
    assert gate_module._slid_cuts(words("a b c"), [0, -1, 1], -1) == [0, -1, 1]  # nothing equal: stays
    assert gate_module._slid_cuts(words("x a x"), [0, -1, -2], -1) == [0, -1, -2]  # (a long middle: untouched)


@pytest.mark.parametrize("n", [20, 200])
def test_either_anchoring_costs_no_second_alignment(monkeypatch, n):
    # one matcher per losing block, whatever the anchorings (red team 108, F02: count matchers)
    made = []
    real = gate_module.difflib.SequenceMatcher
    monkeypatch.setattr(gate_module.difflib, "SequenceMatcher", lambda *a, **k: made.append(1) or real(*a, **k))
    pre = [("a", f"{_RT106_P} {_RT106_M} {_RT106_C}\n"), ("b", f"{_RT106_N}\n")]
    pre += [(f"k{i}", f"Step {i} done [src:c1].\n") for i in range(n)]
    post = [("a", f"{_RT106_P} {_RT106_C}\n"), ("b", f"{_RT106_N} {_RT106_M}\n")]
    post += [(f"k{i}", f"Step {i}  done [src:c1].\n") for i in range(n)]
    assert_accepted(_rt106(pre, post), "lossless")
    assert len(made) <= 1


_TIMEOUT_LOG = "timeout: 30\nmax_wait: 60\n"


def _timeouts(pre_turns, post_turns):
    g = Gate(store_with({"tool:c1": _TIMEOUT_LOG}))
    base = [blk("t1", "tool", _TIMEOUT_LOG, ["tool:c1"])]
    return g.check([*base, *(blk(i, "assistant", t) for i, t in pre_turns)],
                   [*base, *(blk(i, "assistant", t) for i, t in post_turns)], operator="rewrite")


_T_A, _T_B = "The timeout is 30 seconds [src:c1]. Done.\n", "Retry after 30 s, at most 60 s [src:c1].\n"


@pytest.mark.parametrize("after", [
    "The timeout is 60 seconds [src:c1]. Done.\n",
    "The timeout is 60 000 seconds [src:c1]. Done.\n",  # (a number of two words)
])
def test_a_figure_replaced_in_place_is_refused_when_other_blocks_hold_both(after):
    # the old figure is held by b (not gone from the window), the new one too (not introduced),
    # and the block keeps no occurrence of 30 to count: accepted as lossless before
    v = find(_timeouts([("a", _T_A), ("b", _T_B)], [("a", after), ("b", _T_B)]), "I2", block="a", value="30")
    assert v.evidence["change"] == "replaced_in_place"


@pytest.mark.parametrize("post", [
    [("a", "Done.\n"), ("b", _T_B)],  # the sentence dropped, b still saying 30: a dedupe
    [("a", "Timeout: 30 s [src:c1]. Done.\n"), ("b", _T_B)],  # reworded, the figure kept
    [("a", "Done.\n"), ("b", "Retry after 30 s, at most 60 s [src:c1]. The timeout is 30 seconds [src:c1].\n")],
    [("a", "The timeout is 30 seconds [src:c1]. Done.\n"), ("b", "Retry after 30 s, at most 60 s [src:c1]!\n")],
])
def test_a_figure_dropped_moved_or_kept_is_not_replaced_in_place(post):
    assert_accepted(_timeouts([("a", _T_A), ("b", _T_B)], post), "lossless")


@pytest.mark.parametrize("n", [20, 200])
def test_replaced_in_place_aligns_each_block_once(monkeypatch, n):
    # linear: one alignment a rewritten block that lost a figure wholly, whatever N
    calls = []
    real = gate_module._kept_words
    monkeypatch.setattr(gate_module, "_kept_words", lambda a, b: calls.append(1) or real(a, b))
    pre = [("b", _T_B)] + [(f"a{k}", f"Step {k}: the timeout is 30 seconds [src:c1]. Done.\n") for k in range(n)]
    post = [("b", _T_B)] + [(f"a{k}", f"Step {k}: the timeout is 60 seconds [src:c1]. Done.\n") for k in range(n)]
    verdict = _timeouts(pre, post)
    find(verdict, "I2", block="a0", value="30")
    assert len(calls) <= n


def test_a_block_two_rules_read_is_aligned_once(monkeypatch):
    # the figure replaced in place and the quotation dropped from one block: both rules read
    # the one alignment of the block's texts (two matchers before they shared it)
    made = []
    real = gate_module.difflib.SequenceMatcher
    monkeypatch.setattr(gate_module.difflib, "SequenceMatcher", lambda *a, **k: made.append(1) or real(*a, **k))
    quoted = 'Run "make test" first [src:c1].\n'
    verdict = _timeouts([("a", 'The timeout is 30 seconds [src:c1]. Run "make test" first. Done.\n'), ("b", _T_B), ("c", quoted)],
                        [("a", "The timeout is 60 seconds [src:c1]. Done.\n"), ("b", _T_B), ("c", quoted)])
    assert find(verdict, "I2", block="a", value="30").evidence["change"] == "replaced_in_place"
    assert len(made) == 1


@pytest.mark.parametrize("after", [
    "The timeout is 1 minute [src:c1]. Done.\n",  # (the unit reworded with the figure)
    "The timeout is 60 s [src:c1]. Done.\n",
    "The timeout was 60 seconds [src:c1]. Done.\n",  # (the word before reworded)
    "The limit is 60 minutes [src:c1]. Done.\n",
    # a word added beside the new figure (red team 113, F05)
    "The timeout is now 60 seconds [src:c1]. Done.\n",
    "The timeout is about 60 seconds [src:c1]. Done.\n",
    "The timeout is 60 total seconds [src:c1]. Done.\n",
])
def test_a_figure_replaced_with_a_reworded_neighbour_is_refused(after):
    g = Gate(store_with({"tool:c1": _TIMEOUT_LOG + "window: 1 minute\n"}))
    base = [blk("t1", "tool", _TIMEOUT_LOG + "window: 1 minute\n", ["tool:c1"])]
    v = g.check([*base, blk("a", "assistant", _T_A), blk("b", "assistant", _T_B)],
                [*base, blk("a", "assistant", after), blk("b", "assistant", _T_B)], operator="rewrite")
    assert find(v, "I2", block="a", value="30").evidence["change"] == "replaced_in_place"


@pytest.mark.parametrize("after", [
    "The timeout is half a minute [src:c1]. Done.\n",  # (no figure in its place: a number in words)
    "The timeout is 30 s [src:c1]. Done.\n",  # (the figure kept)
    "The timeout is now 30 seconds [src:c1]. Done.\n",  # (a word added, the figure kept)
    "Done.\n",  # (the sentence dropped, b still saying 30)
])
def test_a_figure_reworded_without_another_figure_in_its_place_is_not_replaced_in_place(after):
    assert_accepted(_timeouts([("a", _T_A), ("b", _T_B)], [("a", after), ("b", _T_B)]), "lossless")


_TRADE = "The timeout is 30 seconds and the retry limit is 60 seconds [src:c1].\n"


@pytest.mark.parametrize("pre, post", [
    (_TRADE, "The timeout is 60 seconds and the retry limit is 30 seconds [src:c1].\n"),
    ("The timeout is 30 seconds [src:c1]. The retry limit is 60 seconds.\n",
     "The timeout is 60 seconds [src:c1]. The retry limit is 30 seconds.\n"),
    ("replicas: 3 of 5 ready [src:c1]\n", "replicas: 5 of 3 ready [src:c1]\n"),
])
def test_figures_traded_inside_one_block_are_refused(pre, post):
    # every figure's count kept, both still in the block (red team 113, F04: accepted as lossless)
    v = find(_timeouts([("a", pre)], [("a", post)]), "I2", block="a")
    assert v.evidence["change"] == "traded_in_place"


@pytest.mark.parametrize("pre, post", [
    ("The timeout is 30 seconds [src:c1]. The retry limit is 60 seconds.\n",
     "The retry limit is 60 seconds. The timeout is 30 seconds [src:c1].\n"),  # (sentences moved whole)
    ("1. drain node-3 [src:c1]\n2. upgrade node-7\n", "2. upgrade node-7\n1. drain node-3 [src:c1]\n"),
    ("1. drain node-3 [src:c1]\n2. upgrade node-7\n", "1. upgrade node-7\n2. drain node-3 [src:c1]\n"),
])
def test_figures_moved_with_their_statements_are_no_trade(pre, post):
    assert_accepted(_timeouts([("a", pre)], [("a", post)]), "lossless")


def test_only_a_block_whose_figures_were_reordered_is_aligned(monkeypatch):
    calls = []
    real = gate_module._kept_words
    monkeypatch.setattr(gate_module, "_kept_words", lambda a, b: calls.append(1) or real(a, b))
    pre = [(f"a{k}", f"Step {k}: wait 30 s then 60 s [src:c1].\n") for k in range(50)]
    post = [(f"a{k}", f"Step {k}:  wait 30 s then 60 s [src:c1].\n") for k in range(50)]
    assert_accepted(_timeouts(pre, post), "lossless")
    assert calls == []
