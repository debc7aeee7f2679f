"""Grammar v18 (EXTRACTOR_VERSION 18): a cardinal number word is the number it spells (red team
138 F06, HIGH lies / MEDIUM honest refusals).

A lower-case number word was a ``number`` fact whose value was the word (``three``), so no
tool's ``3`` grounded it, and a capitalised one starting a sentence was no fact at all, so "Five
attempts are made" of ``attempts=3`` passed. Now ``Zero`` .. ``Twenty`` and ``Thirty`` ..
``Ninety`` capitalised at the start of a sentence are numbers whose value is the lower-case word
(``Three`` there is ``three``; elsewhere a capitalised word is a name, as before), and a tens
word, ``-`` and a unit word ending the chain is one number (``twenty-one``); the gate grounds a
cardinal by the digits it spells (``CARDINAL_DIGITS``, test_gate_number_words.py).
Ordinals and scale words stay the words they are (``first``, ``billion``; ``First,`` starting a
sentence is no fact). Scanner cases run on both implementations (``impl``); the gate's
lie/honest pairs are in test_gate_number_words.py. docs/grammar.md ("word", "Normalisation") has
the rule."""

from __future__ import annotations

import pytest
from conftest import IMPLEMENTATIONS, load_implementation
from hypothesis import given
from hypothesis import strategies as st
from scanner_helpers import DIFFERENTIAL, assert_same_columns, columns, spans
from test_scanner import FP_KEY, assert_same_extraction

from provgate import _scanner_py
from provgate.facts import EXTRACTOR_VERSION, Kind, extract, normalize_value


@pytest.fixture(params=IMPLEMENTATIONS, scope="module")
def impl(request):
    return load_implementation("scanner", "_scanner_py", request.param)


def test_extractor_version_is_18():
    # cached fact tables are keyed by it: v18 must not read older tables, whose number words
    # hold the words and whose sentence-initial cardinals are no facts
    assert EXTRACTOR_VERSION >= 18


def _facts(impl, text):
    return [(kind, literal, value) for kind, literal, _, value in spans(impl, text)]


@pytest.mark.parametrize("text, expected", [
    ("one file changed", [("number", "one", "one")]),
    ("makes three attempts; the other ten pass", [("number", "three", "three"), ("number", "ten", "ten")]),
    ("zero errors, twelve warnings, twenty skipped",
     [("number", "zero", "zero"), ("number", "twelve", "twelve"), ("number", "twenty", "twenty")]),
    ("thirty seconds, ninety days", [("number", "thirty", "thirty"), ("number", "ninety", "ninety")]),
    # capitalised at a sentence start: at the text's start, after . ! ? : and a line break,
    # after a list mark or an opening bracket
    ("Three tests fail.", [("number", "Three", "three")]),
    ("Done. Five attempts! Eleven passed? Note: Two left", [
        ("number", "Five", "five"), ("number", "Eleven", "eleven"), ("number", "Two", "two")]),
    ("- Ten passed\n(Zero failed)", [("number", "Ten", "ten"), ("number", "Zero", "zero")]),
    # a compound, lower case or capitalised tens, is one number
    ("twenty-one tests", [("number", "twenty-one", "twenty-one")]),
    ("Forty-two passed, ninety-nine left.", [("number", "Forty-two", "forty-two"), ("number", "ninety-nine", "ninety-nine")]),
    ("twenty-one.", [("number", "twenty-one", "twenty-one")]),
])
def test_a_cardinal_is_the_number_it_spells(impl, text, expected):
    assert _facts(impl, text) == expected


@pytest.mark.parametrize("text, expected", [
    # ordinals and scale words keep their words; capitalised they are no fact at a sentence start
    ("the first run, a second try, 25 billion",
     [("number", "first", "first"), ("number", "second", "second"), ("number", "25", "25"),
      ("number", "billion", "billion")]),
    ("First, run it. Hundred.", []),
    # a capitalised cardinal that starts no sentence is a name, as any capitalised word
    ("see Chapter Three", [("name", "Chapter", "Chapter"), ("name", "Three", "Three")]),
    # upper case is an acronym, mixed case an identifier; a word with a digit an identifier
    ("THREE tHree three3", [("name", "THREE", "THREE"), ("identifier", "tHree", "tHree"),
                            ("identifier", "three3", "three3")]),
    # no compound: a unit word that is no 1..9, a longer chain, a file name, a capital unit
    ("thirty-seventeen", [("number", "thirty", "thirty"), ("number", "seventeen", "seventeen")]),
    ("twenty-one-year-old", [("number", "twenty", "twenty"), ("number", "one", "one")]),
    ("twenty-one.py", [("number", "twenty", "twenty"), ("identifier", "one.py", "one.py")]),
    ("ten-one twenty--one", [("number", "ten", "ten"), ("number", "one", "one"), ("number", "twenty", "twenty"),
                             ("number", "one", "one")]),
    ("twenty-One", [("number", "twenty", "twenty"), ("name", "One", "One")]),
    # versions stay versions
    ("v2 V3", [("number", "v2", "v2"), ("number", "V3", "V3")]),
])
def test_what_stays_as_it_was(impl, text, expected):
    assert _facts(impl, text) == expected


def test_a_capitalised_cardinal_is_the_lower_case_word():
    # one fingerprint: "Three" starting a sentence is the fact "three" (what digits it spells is
    # the gate's to ask: CARDINAL_DIGITS)
    t = extract("three. Three apples")
    assert [s.value for s in t] == ["three", "three"]
    assert len({tuple(t.fp_value[i].tolist()) for i in range(len(t))}) == 1
    assert normalize_value(Kind.NUMBER, "Twenty-one") == "twenty-one"
    assert normalize_value(Kind.NUMBER, "First") == "First"
    assert _scanner_py.CARDINAL_DIGITS[b"twenty-one"] == b"21" and _scanner_py.CARDINAL_DIGITS[b"zero"] == b"0"
    assert b"first" not in _scanner_py.CARDINAL_DIGITS


_V18_PIECES = st.sampled_from([
    "one", "One", "three", "Three", "twenty", "Twenty", "forty", "Forty", "seventy", "nine", "seventeen",
    "first", "First", "billion", "ONE", "tHree", "-", "--", ".", ". ", "! ", "\n", " ", "(", "- ", ":", "3",
    "v2", "py", "year", "old", "@", "=", "[src:x]", "\x1b[0m", "_", "é", "a",
])
v18_text = st.lists(_V18_PIECES, max_size=40).map("".join)


@DIFFERENTIAL
@given(v18_text, st.integers(0, 70))
def test_differential_v18_pieces(impl, text, pad):
    data = (" " * pad + text).encode()
    assert_same_columns(columns(impl, data), _scanner_py.scan(data, 10**7, shortcut=False), data)
    assert_same_extraction(impl.extract_columns(data, 10**7, FP_KEY), _scanner_py.extract_columns(data, 10**7, FP_KEY),
                           data)


@DIFFERENTIAL
@given(v18_text)
def test_the_shortcut_agrees_on_v18_pieces(text):
    data = text.encode()
    assert_same_columns(_scanner_py.scan(data, 10**7, shortcut=True), _scanner_py.scan(data, 10**7, shortcut=False), data)
