"""The spans passed over together as cutting a number (``reconstruct._cut_off_a_number``, read
by ``_uncut_spans`` a block at a time): each must be one ``_cuts_a_token`` cuts, so that leaving them out never changes a grade, a pointer or a
diagnostic (red team 86: spans cutting a number in ways the ASCII-letter test did not see,
unevenly spaced, cost a Python check each: ``3`` in 4 MB of ``3.5`` joined by random runs of
spaces took 1.8-2.3 s)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reconstruct_helpers import (
    assert_callers_find_the_whole_occurrences,
    assert_uncut_spans_are_those_checked_one_by_one,
    verify_counting_checks,
)

from provgate import reconstruct

# digits (ASCII, Arabic-Indic, Devanagari, fullwidth, and the number signs ½ ²), what joins or
# opens a number (point, comma, colon, slash, sign, digit-group separators, en dash, minus sign,
# the Arabic and fullwidth separators, an exponent's e), spaces, ASCII letters, and letters that
# are not ASCII (their continuation bytes on either side of a span)
_PIECES = ["3", "0", "5", "9", ".", ",", ":", "/", "-", "+", "_", "'", " ", "  ", "a", "x", "e", "E",
           "\u202f", "\u00a0", "\u2009", "\u2007", "\u2013", "\u2212", "\u066b", "\u066c", "\uff0e", "\uff0c",
           "\u0663", "\u0660", "\u0969", "\uff13", "\u00bd", "\u00b2", "\u00e9", "\u0436", "\u4e2d",
           "\U0001d7d1", "\U0001f600"]  # fmt: skip (a digit and a sign of four bytes)

_SOURCES = st.lists(st.sampled_from(_PIECES), min_size=1, max_size=16).map("".join).map(str.encode)


def _every_span(source: bytes, longest: int = 12) -> np.ndarray:
    spans = [(s, e) for s in range(len(source)) for e in range(s + 1, min(len(source), s + longest) + 1)]
    return np.array(spans, dtype=np.int64).reshape(-1, 2)


@settings(max_examples=examples(500), deadline=None)
@given(_SOURCES, st.one_of(st.none(), st.tuples(st.integers(0, 200), st.integers(0, 255))))
def test_a_span_left_out_as_cut_is_one_the_check_cuts(source, damage):
    # every span of up to 12 bytes of a number-like source (and of the same with one byte
    # replaced, which may leave bytes that are no character): _cut_off_a_number (with the
    # ASCII tests of _surely_cut) says cut only where _cuts_a_token does, for a span read from
    # the source and for an exact quote's span (the quote at hand); and it says so wherever
    # the check cuts one, so none of these is left to a check one by one
    if damage is not None:
        at, byte = damage
        source = bytearray(source)
        source[at % len(source)] = byte
        source = bytes(source)
    spans = _every_span(source)
    a = np.frombuffer(source, dtype=np.uint8)
    surely = reconstruct._surely_cut(source, spans) | reconstruct._cut_off_a_number(a, spans[:, 0], spans[:, 1])
    for (s, e), left_out in zip(spans.tolist(), surely.tolist()):
        cuts = reconstruct._cuts_a_token(source, s, e)
        assert cuts == reconstruct._cuts_a_token(source, s, e, source[s:e])
        assert left_out == cuts, (source, s, e, left_out)


def test_tables_of_wide_characters_say_what_the_tests_say():
    # the code points of two and three bytes are told digits (or decimals) by a table made
    # from unicodedata, not by _digit_at / _decimal_at: the same answer for every one
    for test in (reconstruct._digit_at, reconstruct._decimal_at):
        two, three = reconstruct._wide_tables(test)
        for cp in range(0x80, 0x10000):
            if not 0xD800 <= cp < 0xE000:
                assert (two if cp < 0x800 else three)[cp] == test(chr(cp).encode(), 0), (test, hex(cp))


_NUMBER_UNITS = ["3.5", "3,5", "3,500", "-3", "+3", "\u22123", "3\u202f000", "3\u00a0000", "3\u20135", "3.e5",
                 "\u0663\u066b\u0665", "\u0663\u0660", "3\u0660", "\uff13\uff0c\uff15\uff10\uff10", "10:30", "3..5",
                 "3", "x3", "\u00e93\u00e9", "3\u00bd", "a.3", ".5",
                 # and what only looks like one: a number ending a sentence or a list, a sign alone
                 "3.", "3,", "3:", "3-", "- 3", "3\u202f", "\u0663.", "3.x", "3,50"]  # fmt: skip


@st.composite
def _numbers_unevenly_spaced(draw):
    units = draw(st.lists(st.sampled_from(_NUMBER_UNITS), min_size=1, max_size=4))
    gaps = st.sampled_from([" ", "  ", "   ", "\n", " x ", "\u00a0", "\t "])
    text = "".join(draw(st.sampled_from(units)) + draw(gaps) for _ in range(draw(st.integers(1, 120))))
    unit = draw(st.sampled_from(units))
    lo = draw(st.integers(0, len(unit) - 1))
    quote = unit[lo : draw(st.integers(lo + 1, len(unit)))]
    if draw(st.booleans()):
        quote = draw(st.sampled_from(["", "x ", " ", "  "])) + quote + draw(st.sampled_from(["", " x", " ", "  "]))
    return text.encode(), quote.encode()


@pytest.mark.parametrize(("list_after", "per_call", "block"), [(1, 5, 1), (2, 7, 3), (64, 1 << 20, 1024)])
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_numbers_unevenly_spaced())
def test_first_whole_occurrence_among_numbers_is_the_one_checked_one_by_one(monkeypatch, list_after, per_call, block,
                                                                            case):  # fmt: skip
    # the callers: the exact walk (listing natively after `list_after` occurrences, a few a
    # batch) and the whitespace listing find what a check of every occurrence finds, the
    # number rules read a few spans a block or many
    monkeypatch.setattr(reconstruct, "_NUMBER_BLOCK", block)
    monkeypatch.setattr(reconstruct, "_LIST_AFTER", list_after)
    monkeypatch.setattr(reconstruct, "_LIST_BATCH", 3)
    monkeypatch.setattr(reconstruct, "_MAX_SPANS_PER_CALL", per_call)
    source, quote = case
    assert_callers_find_the_whole_occurrences(source, quote)


@pytest.mark.parametrize(("run_steps", "per_period", "block"), [(1, 64, 1), (2, 3, 2), (8, 64, 5), (8, 64, 1024)])
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_numbers_unevenly_spaced(), st.integers(1, 20), st.booleans())
def test_uncut_spans_among_numbers_are_those_checked_one_by_one(monkeypatch, run_steps, per_period, block, case, limit,
                                                                 repeat):  # fmt: skip
    # _uncut_spans passing over runs of spans the number rules cut, looking for periods among
    # them and checking stretches that repeat in bulk: the first `limit` whole spans are those a
    # check of each keeps (a source repeated, or not)
    monkeypatch.setattr(reconstruct, "_RUN_STEPS", run_steps)
    monkeypatch.setattr(reconstruct, "_MAX_SPANS_PER_PERIOD", per_period)
    monkeypatch.setattr(reconstruct, "_NUMBER_BLOCK", block)
    source, quote = case
    if repeat:
        source = source * 20 + b" 3 end"
    assert_uncut_spans_are_those_checked_one_by_one(source, quote, limit, whitespace=bool(quote.strip()))


def _spaced(unit: str, size: int) -> bytes:
    rng = random.Random(3)
    out, n = [], 0
    while n < size:
        out.append(unit + " " * rng.randint(1, 6))
        n += len(out[-1])
    return "".join(out).encode()


@pytest.mark.parametrize(("unit", "quote"), [
    ("3.5", b"3"),  # a point after it, then a digit
    ("3.5", b"5"),  # a point before it, after a digit
    ("3,5", b"5"),
    ("3.5", b"3."),  # the quote's point is the number's
    ("3.5", b".5"),  # it opens on the point
    ("3\u202f000", b"3"),  # a digit group's separator
    ("3\u202f000", b"000"),
    ("3\u00a0000", "3\u00a0".encode()),  # it ends on the separator (a whitespace quote too)
    ("-3", b"3"), ("+3", b"3"), ("\u22123", b"3"),  # signs
    ("3.e5", b"3"),  # an exponent
    ("\u0663\u066b\u0665", "\u0663".encode()),  # another script's digits and point
    ("\u0663\u0660", "\u0663".encode()), ("\u0663\u0660", "\u0660".encode()),
    ("x 3.5", b"x 3"),  # a whitespace quote
])  # fmt: skip
def test_uneven_spans_that_cut_a_number_are_checked_a_few_times(monkeypatch, unit, quote):
    # red team 86: 20,000 to 40,000 occurrences, each cutting a number, spaced by random runs
    # of spaces (no period): each cost a Python check (1.8 s for 4 MB of "3.5")
    check, calls = verify_counting_checks(monkeypatch, _spaced(unit, 150_000) + b"end", quote)
    assert check.grade == "not_found" and check.diagnostic.kind == "occurs_only_cutting_a_token"
    assert calls < 500  # against one per occurrence
