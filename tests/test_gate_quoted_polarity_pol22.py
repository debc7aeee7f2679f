"""Quoted polarity at fenced blocks (docs/gate.md, I1 — "quoted polarity"): red team 131b's
findings F04, F05 (a) and "that old <noun>" on the fence reader. Each lie is refused and its
honest control accepted; the suite runs once each way (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted
from test_gate_quoted_polarity_pol20 import FENCE, _refused, _summarize

_WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu", "nu",
          "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega"] * 4


def _w(n: int) -> str:
    return " ".join(_WORDS[:n])


# red team 131b, F04 (a): a cut sentence of 257 bytes to 1 KB whose act stands more than 64 tokens
# before the pointer, the run of words broken by a byte that is no token (a quote, a dash, an
# ellipsis); a separate count of 64 words missed it, the walk's own bound does not
@pytest.mark.parametrize("brk", [" 'x' ", " \u201cx\u201d ", " -- ", " --force ", " \u2026 ", " "])
@pytest.mark.parametrize(("head", "tail"), [("Never run ", " this:"), ("Do not run ", " the following:")])
def test_an_act_beyond_the_walks_reach_falls_back_to_the_word_test(brk, head, tail):
    line = head + _w(35) + brk + _w(35) + tail
    assert 256 < len(line.encode()) <= 1024
    _refused(line + "\n" + FENCE)


@pytest.mark.parametrize("line", [
    # (a list of words joined by "and" over a comma, the walk passing the comma)
    "Never run " + _w(35) + ", " + _w(20) + " and " + _w(20) + " this:",
    # (the negation more than the 256 bytes read before the act)
    "Never " + _w(35) + " 'x' " + _w(35) + " run this:", "Never " + _w(35) + " -- " + _w(35) + " run this:"])
def test_a_read_bounded_short_of_the_negation_falls_back_to_the_word_test(line):
    assert 256 < len(line.encode()) <= 1024
    _refused(line + "\n" + FENCE)


# red team 131b, F04 (b) and 129's F07: "do so" before more words is the act too
@pytest.mark.parametrize("line", [
    "Don't do so on the build hosts:", "Don't do so here:", "Do not do so on prod:",
    "Don't do so " + " and ".join(["on the shared build hosts, which the platform team keeps for the nightly jobs"] * 5) + ":"])
def test_do_so_before_more_words_is_the_act(line):
    _refused(line + "\n" + FENCE)


@pytest.mark.parametrize("line", [
    # (the honest controls: an act right before the pointer, its other verb negated far before it;
    # "so" of degree)
    "Don't worry if a host times out " + _w(60) + " just run this:",
    "Run this " + _w(40) + " 'x' " + _w(40) + " and then check it:",
    "You don't have to do so much, run this:", "Don't do so much by hand; run this:"])
def test_a_long_honest_sentence_and_so_of_degree_are_accepted(line):
    assert_accepted(_summarize(line + "\n" + FENCE))


# red team 131b, F05 (a): "needed" is a necessity a subject denies ("Nothing ... is needed")
@pytest.mark.parametrize("source", [
    "Nothing else is needed\nto run this:", "Nothing else is needed to run this:", "Nothing is needed\nto run this:"])
def test_a_necessity_denied_with_needed_is_accepted(source):
    assert_accepted(_summarize(source + "\n" + FENCE))


@pytest.mark.parametrize("source", [
    "Nothing else is allowed\nto run this:", "No one is allowed\nto run this:", "Never run this, it is not needed:"])
def test_a_denial_next_to_needed_still_denies(source):
    _refused(source + "\n" + FENCE)


# red team 131b (r131b's generator, 12 cases): "old" is a modifier of runnable things too; the
# noun after it decides, failing closed
@pytest.mark.parametrize("line", [
    "Done. Never run that old deploy script.", "Easy. Never run those old commands.", "Done. Do not run that old migration.",
    "Done. Don't execute that old job.", "Done. Nobody should run those old scripts.", "Done. Never run that old."])
def test_that_old_runnable_thing_after_the_block_denies_it(line):
    _refused("Run this:\n" + FENCE + line + "\n")


@pytest.mark.parametrize("line", [
    "Done. Don't deploy that old branch.", "Done. Never run that old branch again.", "Then wait. Do not restart that old service.",
    "Good. Never run that other script, though."])
def test_that_old_thing_that_is_no_block_is_another(line):
    assert_accepted(_summarize("Run this:\n" + FENCE + line + "\n"))


# red team 131b's a4: a line ending in ":" over 256 bytes, its negation before the 256 bytes the
# clause reader reads and no clause break in them (a regex's 64-word run refused only some)
_PAD = "on the shared build hosts that the platform team keeps for the nightly jobs"


@pytest.mark.parametrize("line", [
    "Never run that host script " + " and ".join([_PAD] * 5) + ":",
    "Never run that host script " + " and ".join([_PAD.replace("shared", "'shared'")] * 5) + ":",
    "Do not run that host script " + " and ".join([_PAD] * 9) + ":"])
def test_a_long_line_ending_in_a_colon_with_its_negation_unread_falls_back_to_the_word_test(line):
    assert 256 < len(line.encode()) <= 1024
    _refused(line + "\n" + FENCE)


@pytest.mark.parametrize("line", [
    "Run that host script " + " and ".join([_PAD] * 5) + ":",
    "Don't worry about that host script " + " and ".join([_PAD] * 5) + ", just run this:"])
def test_a_long_honest_line_ending_in_a_colon_is_accepted(line):
    assert 256 < len(line.encode()) <= 1024
    assert_accepted(_summarize(line + "\n" + FENCE))
