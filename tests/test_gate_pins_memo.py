"""The pins phase carried from one window to the next (_PinsMemo, _Check._pass_pins_on).

A session's next edit rewrites a turn of the window the last check committed: which of its
blocks R holds pinned is what the last check found of that window, unless the edit changed a
block that can be pinned, or the session's pins changed since. Each test is a lie that a
stale answer would accept beside its honest twin; each lie was accepted with the memo carried
whatever the edit changed, or taken whatever the session's pins (checked by hand).
"""

from __future__ import annotations

import pytest
from budget import examples
from gate_helpers import assert_accepted, blk, find, store_with
from hypothesis import given, settings
from hypothesis import strategies as st

from provgate.gate import Gate, _pin_normalised
from provgate.window import Window

RULE = "Please be brief and polite.\n"
# the rule as a framework re-renders it: the pinned turn for R (Gate._respaced)
RULE_RENDERED = {"bytes": RULE, "trailing blanks": RULE.replace("\n", "  \n"), "crlf": RULE.replace("\n", "\r\n")}


def turns(a_text: str, u_text: str = "go on\n", u_pinned: bool = False) -> Window:
    return Window([blk("u", "user", u_text, pinned=u_pinned), blk("a", "assistant", a_text)])


def session() -> tuple[Gate, Window]:
    """A gate whose last check committed a reworded turn, in place: the pins phase's answer for
    that window was carried over from the window before it."""
    g = Gate(store_with({}))
    w0 = turns("Noted.\n")
    assert_accepted(g.check(w0, w0, operator="reorder", commit=True))
    w1 = turns("Noted, noted.\n")
    assert_accepted(g.check(w0, w1, operator="rewrite", commit=True))
    assert g._sides[id(w1)]._pins_memo is not None  # (carried: a plain next edit pins nothing)
    return g, w1


def pin_text(g: Gate, text: str) -> None:
    """Pin ``text`` in the session: a pre window's flagged blocks pin their texts, whatever
    the verdict (Gate._record)."""
    flagged = [blk("r", "user", text, pinned=True)]
    g.check(flagged, flagged, operator="reorder")


@pytest.mark.parametrize("said", list(RULE_RENDERED.values()), ids=list(RULE_RENDERED))
def test_a_turn_rewritten_into_a_pinned_text_is_no_longer_carried_as_unpinned(said):
    # the pinned rule's turn left the session's windows; the agent's turn becomes the rule
    # (its bytes, or re-rendered): from then on it is the pinned turn, and the next edit that
    # rewrites it away is refused, as a gate that carries nothing refuses it
    g, w = session()
    pin_text(g, RULE)
    became = turns(said)
    assert_accepted(g.check(w, became, operator="rewrite", commit=True))
    find(g.check(became, turns("Noted again.\n"), operator="rewrite"), "R", block="a")
    assert g._sides[id(became)]._pins_memo is None  # (worked out whole, and held by its text alone)
    # honest: the pinned turn kept as it is, and flagged
    assert_accepted(g.check(became, Window([became.blocks[0], blk("a", "assistant", said, pinned=True)]),
                            operator="rewrite"))


def test_a_turn_rewritten_into_a_pinned_text_is_found_pinned_at_once_after_a_carried_edit():
    # one step further: carried into the window the turn becomes the rule, the answer stays
    # the last window's only for blocks the edit did not change
    g, w = session()
    pin_text(g, RULE)
    w2 = turns("Noted, noted, noted.\n")
    assert_accepted(g.check(w, w2, operator="rewrite", commit=True))
    assert g._sides[id(w2)]._pins_memo is not None
    w3 = turns(RULE)
    assert_accepted(g.check(w2, w3, operator="rewrite", commit=True))
    find(g.check(w3, turns("Fine.\n"), operator="rewrite"), "R", block="a")


def test_the_carried_pins_are_not_taken_once_the_session_pinned_more():
    # the session pins the text of turn `u` after the window's pins were carried: `u` is the
    # pinned text now, rewritten it is refused, and kept it must be flagged (R)
    g, w = session()
    pin_text(g, "go on\n")
    find(g.check(w, turns("Noted, noted.\n", u_text="continue\n"), operator="rewrite"), "R", block="u")
    find(g.check(w, turns("Noted thrice.\n"), operator="rewrite"), "R", block="u")
    # honest: kept and flagged
    assert_accepted(g.check(w, turns("Noted thrice.\n", u_pinned=True), operator="rewrite"))


def _toggling(keep_sides: bool) -> list[tuple[bool, list[tuple[str, str | None]]]]:
    """A session whose agent turn turns, edit by edit, into the pinned rule (as it is, or
    re-rendered) and back, each edit in place from the window the last one committed (refused
    ones are not committed); ``keep_sides`` False forgets every window's side before each
    check, so nothing is carried."""
    g, w = session()
    pin_text(g, RULE)
    out = []
    for k, said in enumerate(["Noted.\n", RULE_RENDERED["crlf"], "Noted.\n", "Fine.\n", RULE, RULE,
                              "Noted, fine.\n", "Fine, fine.\n"]):
        if not keep_sides:
            g._sides.clear()
        nxt = turns(said)
        v = g.check(w, nxt, operator="rewrite", commit=True)
        out.append((v.accepted, sorted((x.invariant, x.block) for x in v.violations)))
        if v.accepted:
            w = nxt
    return out


def test_the_pins_carried_are_those_a_gate_that_carries_nothing_finds():
    carried = _toggling(True)
    assert carried == _toggling(False)
    # (the turn that became the rule is held to R from the next edit on: kept unflagged or
    # rewritten, it is refused, and the session stays at the rule)
    assert [accepted for accepted, _ in carried[:3]] == [True, True, False]
    assert all(("R", "a") in found for _, found in carried[2:])


def _normalised_line_by_line(text: str) -> str:
    lines = [line.rstrip(" \t\r") for line in text.split("\n")]
    start, end = 0, len(lines)
    while start < end and not lines[start]:
        start += 1
    while end > start and not lines[end - 1]:
        end -= 1
    return "\n".join(lines[start:end])


@given(st.text(alphabet=st.sampled_from(["a", "b", " ", "\t", "\r", "\n", "\u00a0", "\x0b", "\u2028"]), max_size=24))
@settings(max_examples=examples(800), deadline=None)
def test_the_pinned_text_normalisation_strips_as_the_line_by_line_reading_does(text):
    # (_pin_normalised's shortcut for a text no inner line of which ends in a blank: a next
    # edit normalises the turn it changed on every check)
    assert _pin_normalised(text) == _normalised_line_by_line(text)


def test_the_normalisation_shortcut_keeps_every_line_inside_the_text():
    assert _pin_normalised("\n\n  a\tb\r\n\nc \t") == "  a\tb\n\nc"
    assert _pin_normalised("\n\na\nb\n\n") == "a\nb"
    assert _pin_normalised("a\rb\n") == "a\rb"
    assert _pin_normalised(" \n\t\n") == ""
