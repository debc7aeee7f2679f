"""A session with many sticky pins (red team 64, F05): a check reads the session's pins without
copying or filtering them, and asks only the handles its blocks and markers name whether they
are pinned and gone. These tests hold that the shortcuts of a large pin set give the verdicts
the pins give one by one."""

from __future__ import annotations

import pytest
from blake3 import blake3
from gate_helpers import assert_accepted, blk, comparable, find, gate_for, tool
from hypothesis import given, settings
from hypothesis import strategies as st

from provgate.gate import _StickyPins, _text_key
from provgate.handles import BLOCK_HANDLE_PREFIX, block_text_handle
from provgate.window import Window

_TEXTS = [f"text number {k}\n" for k in range(12)]


def _text_handle(text: str) -> str:
    return block_text_handle(blake3(text.encode()).digest())


_HANDLES = st.one_of(
    st.sampled_from([_text_handle(t) for t in _TEXTS]),  # a text's handle
    st.sampled_from(["block:u3", "block:" + "AB" * 16, "block:" + "ab" * 15]),  # block: names of no text
    st.from_regex(r"(user|tool|msg):[a-z0-9]{1,6}", fullmatch=True),
)


@settings(max_examples=200, deadline=None)
@given(steps=st.lists(st.tuples(st.booleans(), st.lists(_HANDLES, max_size=6)), max_size=12))
def test_sticky_pins_hold_their_texts_and_the_keys_those_name(steps):
    pins, model = _StickyPins(), set()
    for add, handles in steps:
        before = pins
        if add:
            pins, model = pins.adding(handles), model | set(handles)
            if set(handles) <= before.handles:
                assert pins is before  # nothing new: the same object, no copy
        else:
            pins, model = pins.without(set(handles)), model - set(handles)
        assert pins.handles == model
        assert pins.texts == {h for h in model if h.startswith(BLOCK_HANDLE_PREFIX)}
        assert pins.keys == {k for h in model if (k := _text_key(h)) is not None}
        assert before.handles == (model if pins is before else before.handles)  # never changed in place


@settings(max_examples=150, deadline=None)
@given(window=st.lists(st.sampled_from(_TEXTS), min_size=1, max_size=20),
       pinned=st.lists(st.sampled_from(range(len(_TEXTS))), max_size=12),
       others=st.integers(0, 60))
def test_a_large_pin_set_finds_the_blocks_holding_its_texts_as_a_small_one_does(window, pinned, others):
    # past a few pinned texts each block's digest prefix is looked up; below, each text searched
    g = gate_for({})
    side = g.side(Window([blk(f"b{i}", "user", text) for i, text in enumerate(window)]), "pre", {})
    texts = [_text_handle(_TEXTS[k]) for k in pinned]
    texts += [block_text_handle(blake3(f"never shown {k}".encode()).digest()) for k in range(others)]
    pins = _StickyPins().adding(texts)
    assert sorted(side.holding_pinned_texts(pins)) == sorted(side.holding_text(pins.texts))
    assert sorted(side.holding_pinned_texts(pins)) == [i for i, text in enumerate(window)
                                                      if _text_handle(text) in pins.texts]


_TURN = "Never deploy on Fridays; retries=3 stays.\n"
_NOTES = "notes: mode=safe retries=3\n"


def _filler(n: int) -> dict[str, str]:
    return {f"user:f{j}": f"Filler requirement {j} holds.\n" for j in range(n)}


def _pin_and_evict(g, n: int) -> None:
    """``n`` pinned turns no later window holds or cites, pinned and evicted on the record: the
    session's pins outnumber any window's blocks."""
    for k in range(0, n, 5):
        turns = [blk(f"f{j}", "user", f"Filler requirement {j} holds.\n", [f"user:f{j}"], pinned=True)
                 for j in range(k, min(k + 5, n))]
        assert_accepted(g.check(turns, [], operator="evict", evicted=[b["handles"][0] for b in turns], commit=True))


def _session(n: int, sources: dict[str, str]):
    g = gate_for({**sources, **_filler(n)})
    _pin_and_evict(g, n)
    return g


def _turn_evicted_beside_a_citation_dropped(g, cites: str):
    # the pinned turn (no handle) leaves on the record; the turn citing a source of its bytes,
    # or the turn's own logged handle, drops that marker and keeps its other one
    x, t1 = tool("x", "tool:x", _NOTES), blk("t1", "user", _TURN, pinned=True)
    a1 = blk("a1", "assistant", f"Per the notes retries=3 [src:{cites}] and mode=safe [src:x].\n")
    assert_accepted(g.check([t1, x, a1], [t1, x, a1], operator="reorder", commit=True))
    kept = blk("a1", "assistant", "Per the notes retries=3 and mode=safe [src:x].\n")
    return g.check([t1, x, a1], [x, kept], operator="rewrite", evicted=["t1"])


@pytest.mark.parametrize("cites", ["m0", "u3"])
def test_a_marker_of_a_gone_pinned_text_leaves_the_count_in_a_session_of_many_pins(cites):
    # I5 leaves out a marker of a pinned source gone from the window, here msg:m0 holding the
    # pinned turn's bytes (red team 63, F02) or user:u3, the turn's logged handle: with 60 pins
    # that no window holds the gate knows a pin is gone without listing them, and must still
    # find these among them
    sources = {"user:u3": _TURN, "msg:m0": _TURN, "tool:x": _NOTES}
    verdicts = [_turn_evicted_beside_a_citation_dropped(_session(n, sources), cites) for n in (0, 60)]
    for v in verdicts:
        assert_accepted(v, "lossless")
        assert v.retention == 1.0
    assert comparable(verdicts[0]) == comparable(verdicts[1])


def test_a_marker_of_a_source_that_is_no_pinned_text_still_counts_in_a_session_of_many_pins():
    # the control: msg:m0 holds other bytes, so dropping its marker is a lost citation
    sources = {"user:u3": _TURN, "msg:m0": "other words entirely\n", "tool:x": _NOTES}
    for n in (0, 60):
        v = _turn_evicted_beside_a_citation_dropped(_session(n, sources), "m0")
        find(v, "I5")
        assert v.retention == 0.5


@pytest.mark.parametrize("n", [0, 60])
def test_a_gone_pinned_text_cited_back_is_refused_in_a_session_of_many_pins(n):
    # R: once the pinned turn left, a new turn citing a source of its bytes restates it
    g = _session(n, {"user:u3": _TURN, "tool:x": _NOTES})
    x, other = tool("x", "tool:x", _NOTES), blk("z", "user", "go on")
    pinned = blk("t1", "user", _TURN, pinned=True)
    assert_accepted(g.check([pinned, x, other], [pinned, x, other], operator="reorder", commit=True))
    assert_accepted(g.check([pinned, x, other], [x, other], operator="evict", evicted=["t1"], commit=True))
    restated = blk("a", "assistant", "Per the user, retries=3 [src:u3].\n")
    find(g.check([x, other], [x, restated, other], operator="rewrite"), "R", block="a", handle="user:u3")
    # and one of the session's 60 other pins, gone long ago, too
    if n:
        again = blk("a", "assistant", "As required, filler 7 holds [src:f7].\n")
        find(g.check([x, other], [x, again, other], operator="rewrite"), "R", block="a", handle="user:f7")


@pytest.mark.parametrize("n", [0, 60])
def test_a_pinned_text_a_kept_block_still_holds_is_not_gone(n):
    # the pinned turn's copy under a tool's handle stays: its text is in the window, so the
    # marker of its logged source that a rewrite drops is a lost citation, as without the pins
    g = _session(n, {"user:u3": _TURN, "msg:m0": _TURN, "tool:x": _NOTES})
    x, t1, copy = tool("x", "tool:x", _NOTES), blk("t1", "user", _TURN, pinned=True), tool("c", "msg:m0", _TURN)
    a1 = blk("a1", "assistant", "Per the notes retries=3 [src:m0] and mode=safe [src:x].\n")
    assert_accepted(g.check([t1, copy, x, a1], [t1, copy, x, a1], operator="reorder", commit=True))
    kept = blk("a1", "assistant", "Per the notes retries=3 and mode=safe [src:x].\n")
    v = g.check([t1, copy, x, a1], [copy, x, kept], operator="rewrite", evicted=["t1"])
    find(v, "I5")

