"""Quoted polarity at fenced blocks (docs/gate.md, I1 — "quoted polarity"): red team 133's
findings F10 (a word opening a new act, ``and then``, ``but``, ``so``, ``if``, read as no clause
break, so a 257 B - 1 KB line negating another verb fell back to the word test) and F07's
leftovers (a pause, `` ; ``, `` ! ``, `` ? ``, `` ... ``, an ``i.e.,`` or a URL read as a
sentence end or a clause break, so the negation before it was lost). Each lie is refused and
its honest control accepted; the suite runs once each way (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted
from test_gate_quoted_polarity_pol20 import FENCE, _refused, _summarize

_WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu", "nu",
          "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega"] * 10


def _w(n: int) -> str:
    return " ".join(_WORDS[:n])


_PAUSES = [" ; ", " ! ", " ? ", " ... ", " e.g. ", " i.e. ", " i.e., ", " https://example.com/docs/deploy.html ",
           " http://a.b/c ", " https://example.com/a?b=c "]


# red team 133, F07's leftovers: the act and the pointer, or the negation and the act, 35 words
# each side of a pause or a URL (accepted at main 0d4c54d: the pause read as a sentence end, the
# URL's "https:" as a clause break, the comma of "i.e.," as one)
@pytest.mark.parametrize("brk", _PAUSES)
@pytest.mark.parametrize(("head", "tail"), [("Never run ", " this:"), ("Do not run ", " the following:"),
                                            ("Never ", " run this:")])
def test_a_pause_or_a_url_between_the_negation_and_the_pointer_is_no_sentence_end(brk, head, tail):
    line = head + _w(35) + brk + _w(35) + tail
    assert 256 < len(line.encode()) <= 1024
    _refused(line + "\n" + FENCE)


# and within the 256 bytes read: a pause with a blank before it is read as a comma
def test_a_short_pause_is_read_as_a_comma():
    _refused("Never run it on prod ; this:\n" + FENCE)


# honest: an act of its own after the pause, a sentence end glued to its word, a URL in a clause
# of its own
@pytest.mark.parametrize("line", [
    "Never run the old script ; use this:", "Don't panic ! Just run this:", "Never run the old script. Use this:",
    "See https://example.com/docs/deploy.html first, then run this:"])
def test_an_act_of_its_own_after_a_pause_is_asked(line):
    assert_accepted(_summarize(line + "\n" + FENCE))


# red team 133, F10 (a regression of pol22, 9cdf4a8): a negation of another verb, then a word that
# opens a new act ("and then", "but", "instead", "so", "if") more than 256 bytes after it: refused
# at main 0d4c54d (the bounded read's fallback), accepted at b10fb7e up to 64 words, and at 247 B
@pytest.mark.parametrize("line", [
    "Never skip the tests " + _w(45) + " and then run this:", "Never skip the tests " + _w(60) + " and then run this:",
    "Never skip the tests " + _w(100) + " and then run this:", "Never skip the tests " + _w(150) + " and then run this:",
    "Don't edit the config by hand " + _w(45) + " but run this:",
    "Don't edit the config by hand " + _w(70) + " -- instead run this:",
    "We didn't " + _w(60) + " so run the following:", "Nothing " + _w(70) + " breaks if you run this:"])
def test_a_word_opening_a_new_act_ends_what_the_negation_governs(line):
    assert 256 < len(line.encode()) <= 1024
    assert_accepted(_summarize(line + "\n" + FENCE))


# the lies beside them: the new act negated itself, "so much as" no new act, no break at all, no
# act at all (the fallback fails closed)
@pytest.mark.parametrize("line", [
    "Never skip the tests " + _w(45) + " and then never run this:", "Never skip the tests " + _w(45) + " but do not run this:",
    "Do not " + _w(50) + " so much as run this:", "Never " + _w(50) + " run this:", "Never " + _w(60) + " this:"])
def test_a_negation_the_new_act_does_not_end_still_denies(line):
    assert 256 < len(line.encode()) <= 1024
    _refused(line + "\n" + FENCE)


# red team 133, F10's "refused on both trees": a harm denied of the act over a fence, as the
# sentence ending in "." is read (accepted); a harm forbidden is still a denial
@pytest.mark.parametrize("line", ["It won't hurt to run this:", "It doesn't hurt to run the following:"])
def test_a_harm_denied_over_a_fence_encourages_the_act(line):
    assert_accepted(_summarize(line + "\n" + FENCE))


def test_a_harm_forbidden_by_the_act_over_a_fence_denies_it():
    _refused("Don't hurt prod by running this:\n" + FENCE)


# red team 135, F05 (a regression of the fix above): the word opening a new act ends the
# negation's reach only where the negation governed a verb of its own before it; "so that" and
# "if" (a condition on the act, not after a harm) open no new act: accepted at pol24's b94f8b5
@pytest.mark.parametrize("line", [
    "Never " + _w(45) + " and then run this:", "Do not " + _w(45) + " so that you run this:",
    "Nothing good " + _w(45) + " comes if you run this:", "Do not " + _w(45) + " if at all run this:",
    "Never " + _w(45) + " if you are on prod run this:", "Don't " + _w(50) + " but run this:",
    "Never " + _w(50) + " instead run this:", "Do not " + _w(45) + " so as to run this:",
    "Never skip the tests " + _w(45) + " if you run this:", "Never " + _w(45) + " breaks if you run this:",
    "Don't " + _w(45) + " breaks if you run this:"])
def test_a_new_act_word_after_a_negation_with_no_verb_of_its_own_still_denies(line):
    assert 256 < len(line.encode()) <= 1024
    _refused(line + "\n" + FENCE)


# the honest twins: the negation's own verb before the word (one the gate knows), a past
# negation, a harm denied before "if"
@pytest.mark.parametrize("line", [
    "Never edit the config " + _w(45) + " and then run this:", "Do not touch prod " + _w(45) + " so run this:",
    "Don't commit secrets " + _w(45) + " instead run this:", "We did not " + _w(60) + " so run the following:",
    "Nothing " + _w(45) + " breaks if you run this:", "It won't " + _w(45) + " break if you run this:"])
def test_a_new_act_word_after_a_negation_of_its_own_verb_is_asked(line):
    assert 256 < len(line.encode()) <= 1024
    assert_accepted(_summarize(line + "\n" + FENCE))
