"""The patterns several rules share, each written once (review of stop 61): the exact values
identifiers re-paired reads (``_PAIRED_VALUE``) also keep a rounded figure from its rounding on a
line naming a record; a citation marker is read as the citation grammar reads it; the number
words are the grammar's cardinals; a count's number word is found a letter at a time."""

from __future__ import annotations

import random
import re

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

from provgate._scanner_py import CARDINAL_DIGITS
from provgate.gate import (
    _CARDINAL_TENS,
    _CARDINAL_UNITS,
    _CITATION_MARKER,
    _DIGITS_OF_CARDINAL,
    _NUMBER_WORD,
    _PAIRED_MARKER,
    _PAIRED_RECORD_KINDS,
    _VALUE_THEN_KEY,
    _holds_paired_value,
    _words_trie,
)

BUILDS = ("commit 9f8e7d6 build 1328ms\ncommit a1b2c3d build 412ms\n"
          "issue #1240 build 1328ms\nissue #1241 build 412ms\n"
          "ticket PROJ-12 build 1328ms\nticket PROJ-13 build 412ms\n")


@pytest.mark.parametrize("lie", [
    pytest.param("Commit 9f8e7d6 built in ~0.4s.\n", id="a digest"),
    pytest.param("Issue #1240 built in ~0.4s.\n", id="an issue"),
    pytest.param("Ticket PROJ-12 built in ~0.4s.\n", id="a ticket"),
])
def test_a_rounded_figure_beside_a_record_is_not_rounded(lie):
    # (red team 140, F03's rule, now asked of the re-pairing rule's values: a digest, an issue,
    # a ticket name one record, whose figure another record's rounding may not ground)
    find(_summarize(BUILDS, lie), "I1", value="0.4s")


@pytest.mark.parametrize(("source", "honest"), [
    pytest.param("2024-05-01T10:00:00Z build 1328ms\n", "At 2024-05-01T10:00:00Z the build took ~1.3s.\n",
                 id="a timestamp"),
    pytest.param("E501 check 1328ms\n", "The E501 check took ~1.3s.\n", id="a lint code"),
    pytest.param("GET /api/users 500 120ms\n", "/api/users failed after 0.12 s.\n", id="a route"),
])
def test_a_rounded_figure_beside_a_value_naming_no_record_is_rounded(source, honest):
    # (a timestamp, a lint code, a route stand on many lines alike: the kinds the rounding asks
    # are fewer than re-pairing reads, _PAIRED_RECORD_KINDS)
    assert_accepted(_summarize(source, honest))


def test_the_record_kinds_are_groups_of_the_paired_value():
    line = b"Commit 9f8e7d6 took 0.4s"
    assert _holds_paired_value(line, kinds=_PAIRED_RECORD_KINDS)
    assert _holds_paired_value(b"GET /api/users took 0.4s")
    assert not _holds_paired_value(b"GET /api/users took 0.4s", kinds=_PAIRED_RECORD_KINDS)
    assert not _holds_paired_value(b"at 2024-05-01T10:00:00Z E501 took 0.4s", kinds=_PAIRED_RECORD_KINDS)
    # (a value past the bounds is not read)
    assert not _holds_paired_value(line, 15, kinds=_PAIRED_RECORD_KINDS)


def test_a_citation_marker_is_the_citation_grammars():
    assert _PAIRED_MARKER is _CITATION_MARKER
    assert [m.group(1) for m in _CITATION_MARKER.finditer(b"a [src:tool:c5] b [src:x y] [src:f.py]")] == [
        b"tool:c5", b"f.py"]


def test_the_number_words_are_the_grammars_cardinals():
    assert {w.lower() for w in _DIGITS_OF_CARDINAL} == set(CARDINAL_DIGITS)
    assert _CARDINAL_TENS == {b"twenty", b"thirty", b"forty", b"fifty", b"sixty", b"seventy", b"eighty", b"ninety"}
    assert _CARDINAL_UNITS == {b"one", b"two", b"three", b"four", b"five", b"six", b"seven", b"eight", b"nine"}
    for word in CARDINAL_DIGITS:
        assert bool(_NUMBER_WORD.search(word)) == (word not in (b"zero", b"one")), word
    for word in (b"(12)", b"~12", b"a dozen"[2:], b"Canteen", b"hundred", b"Billion"):
        assert _NUMBER_WORD.search(word), word
    for word in (b"one", b"tenth", b"often", b"none"):
        assert not _NUMBER_WORD.search(word), word


def test_a_words_trie_matches_as_the_words_longest_first():
    # (the counted values' scan was an alternation of ~100 words longest first; the trie asks a
    # branch a letter, and must find the same matches, same spans, same groups)
    words = list(_DIGITS_OF_CARDINAL)
    alternation = re.compile(rb"([0-9]+(?:\.[0-9]+)?|(?:" + b"|".join(sorted(words, key=len, reverse=True))
                             + rb"))[ \t]+([A-Za-z_][\w-]*)(?![\w.-])")
    # (every branch of the value opens on a literal byte, a figure's one per digit, so that re
    # skips the bytes no match starts with; the trie's first letters ungrouped among them)
    assert _VALUE_THEN_KEY.pattern == alternation.pattern.replace(
        rb"[0-9]+(?:\.[0-9]+)?|(?:" + b"|".join(sorted(words, key=len, reverse=True)) + b")",
        b"|".join([rb"%d[0-9]*(?:\.[0-9]+)?" % d for d in range(10)] + [_words_trie(words, bare=True)]))
    assert _words_trie(words) == b"(?:" + _words_trie(words, bare=True) + b")"
    tokens = [*words, b"retries", b"workers", b"often", b"alone", b"teen", b"sevent", b"twenty-", b"5", b"3.5", b"x",
              b"-", b".", b"seventeenth", b"ninety-ninety", b"Fifty-Five"]
    seps = [b" ", b"  ", b"\t", b"-", b".", b"", b"\n", b",", b"="]
    rng = random.Random(61)
    for _ in range(20000):
        text = b"".join(rng.choice(tokens) + rng.choice(seps) for _ in range(rng.randint(1, 8)))
        assert [(m.span(), m.groups()) for m in _VALUE_THEN_KEY.finditer(text)] == [
            (m.span(), m.groups()) for m in alternation.finditer(text)], text


def test_a_words_trie_tries_a_longer_word_first():
    trie = re.compile(_words_trie([b"seven", b"seventeen", b"six"]) + rb"\b")
    assert trie.match(b"seventeen").group() == b"seventeen"
    assert trie.match(b"seven teen").group() == b"seven"
    assert trie.match(b"sixteen") is None
