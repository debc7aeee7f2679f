"""Quoted polarity at fenced blocks (docs/gate.md, I1 — "quoted polarity"): red team 133's
finding F07, a negated act whose pointer follows a comma (``Do not run, under any
circumstances, the following:``). Each lie is refused and its honest control accepted; the
suite runs once each way (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted
from test_gate_quoted_polarity_pol20 import FENCE, _refused, _summarize

_WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu", "nu",
          "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega"] * 10


def _w(n: int) -> str:
    return " ".join(_WORDS[:n])


# red team 133, F07: the pointer after a comma or a dash, its clause of no verb of its own, is the
# object of the act before the comma (the walk back stopped at the comma, found no act, and
# nothing was cut short: accepted at b10fb7e and after pol22)
@pytest.mark.parametrize("line", [
    "Do not run, under any circumstances, the following:", "Do not run it on prod, the following:",
    "Do NOT run on Fridays, the following:", "Don't run anything on prod yet, especially the following:",
    "Do not run the deploy by hand, i.e. the following:", "Don't run it, the script below:",
    "Please don't run the old deploy, meaning the following:", "Never run it on prod, what follows:",
    "Do not run it, obviously the following:", "Never execute on a shared host, in particular the following:",
    "Never run this on prod, e.g. the following:", "Don't run it on prod, not even the following:",
    "Do not run it \u2014 the following:", "Do not run it - the following:"])
def test_a_pointer_after_a_comma_is_the_object_of_the_negated_act_before_it(line):
    _refused(line + "\n" + FENCE)


# the regression of pol22 (9cdf4a8): 60 to 190 words between the act and the comma (358 B - 1 KB
# refused at b10fb7e by its 64-word regex, accepted after it): the walk past the comma reads the
# act, or reaches its bound and falls back to the word test; and short words within the 256 bytes
@pytest.mark.parametrize(("head", "n", "tail"), [
    ("Do not run ", 30, ", the following:"), ("Do not run ", 60, ", the following:"),
    ("Do not run ", 64, ", the following:"), ("Do not run ", 150, ", the following:"),
    ("Do not run ", 190, ", the following:"), ("Don't run ", 64, ", what follows:"), ("Don't run ", 100, ", what follows:")])
def test_a_long_clause_before_the_comma_still_denies(head, n, tail):
    _refused(head + _w(n) + tail + "\n" + FENCE)


def test_a_walk_past_a_comma_beyond_its_bound_within_the_line_falls_back_to_the_word_test():
    line = "Do not run " + "a " * 80 + ", the following:"
    assert len(line.encode()) <= 256
    _refused(line + "\n" + FENCE)


@pytest.mark.parametrize("line", [
    # (an act after the comma is the pointer's own)
    "Don't panic, run the following:", "If it fails, run the following:", "Before you deploy, run the following:",
    "Do not skip this step, run the following:", "Don't hesitate, run the following:", "Don't forget, run the following:",
    "If you have not run it yet, run the following:", "Don't run " + _w(100) + ", run what follows:",
    # (a verb or a subject of its own after the comma, the pointer its object)
    "Don't run it yet, read this first.", "Don't run it on prod, check the following:", "Don't deploy on Fridays, see below:",
    "Do not run it blindly, review the script below:", "Never run it as root, you need the following:",
    "Don't stop there, try the following:", "If you can't run make, use the following:",
    # (a word setting the pointer against the act before the comma)
    "Don't run anything else, just the following:", "Don't run the old script, only the following:",
    # (no act before the comma, or one not denied)
    "Don't worry, the following is safe:", "If you don't have make, the following:", "We run this nightly, the following:",
    "No sudo needed, the following:", "Run the tests first, i.e. the following:"])
def test_a_pointer_with_a_clause_of_its_own_or_an_act_not_denied_is_accepted(line):
    assert_accepted(_summarize(line + "\n" + FENCE))


# "e.g." and "i.e." end no sentence in a cut sentence of 257 B - 1 KB either (red team 133, F07:
# "Never run <35 words> e.g. <35 words> this:" was read from "e.g.", its "Never" cut off)
@pytest.mark.parametrize("brk", [" e.g. ", " E.g. ", " i.e. "])
@pytest.mark.parametrize(("head", "tail"), [("Never run ", " this:"), ("Never ", " run this:")])
def test_an_abbreviation_in_a_long_line_ends_no_sentence(brk, head, tail):
    line = head + _w(35) + brk + _w(35) + tail
    assert 256 < len(line.encode()) <= 1024
    _refused(line + "\n" + FENCE)


@pytest.mark.parametrize("line", [
    "Run the tests, e.g. " + _w(60) + ", and it does not touch data, then run this:",
    "Do not use the old tools, e.g. " + _w(60) + ". Run this instead:",
    "Don't worry about warnings, e.g. " + _w(60) + ", just run this:"])
def test_a_long_honest_line_with_an_abbreviation_is_accepted(line):
    assert 256 < len(line.encode()) <= 1024
    assert_accepted(_summarize(line + "\n" + FENCE))
