"""Reconstruction checks: verify_quote, verify_citations and the logic of ``provgate verify``.

Grades are asserted against what the store holds (pointers are resolved back through the
store, offsets are compared with ``bytes.find`` on the source), on hand-made sources and on
real documents from SummEdits: quotes cut from a document verbatim must be exact, and the same
quotes with the number an inconsistent summary changed must not be.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reconstruct_helpers import (
    assert_callers_find_the_whole_occurrences,
    assert_uncut_spans_are_those_checked_one_by_one,
    cut_one_by_one,
    verify_counting_checks,
)
from store_helpers import raw_query

from provgate import _citations_py, _search_py, reconstruct
from provgate.errors import (
    InvalidArgumentError,
    InvalidContentError,
    InvalidHandleError,
    LimitExceededError,
    ProvenanceResolutionError,
    StoreCorruptionError,
)
from provgate.reconstruct import (
    DIAGNOSTIC_AFTER_A_NEGATION,
    DIAGNOSTIC_UNREADABLE_QUOTATION,
    GRADES,
    SourceCache,
    find_malformed_markers,
    parse_citations,
    run_verify,
    verify_citations,
    verify_quote,
)
from provgate.store import SourceStore

CONFIG = "loaded config\nretries: 3\ntimeout: 30s\nhost = api.internal.example\n"
LOG = (
    "2026-11-12T08:00:01Z INFO worker started\n"
    "2026-11-12T08:00:02Z WARN retry limit reached after 3 attempts\n"
    '2026-11-12T08:00:03Z ERROR msg = "disk  full" on /var/lib/data\n'
    "2026-11-12T08:00:04Z INFO worker started\n"
)
DOC = "The quick brown fox jumps over the lazy dog.\nIt was the best of times,\nit was the worst of times.\n"
UNICODE = "Zoë Martin wrote: naïve café — 😀 emoji and 日本語 text.\n"


@pytest.fixture
def store():
    s = SourceStore(":memory:")
    s.put("tool:call_1", CONFIG)
    s.put("tool:call_2", LOG)
    s.put("doc:doc_7", DOC)
    s.put("user:u3", UNICODE)
    s.put("tool:nul", "a\x00b\x00c")
    s.put("tool:empty", "")
    # two handles named "dup": a marker [src:dup] is ambiguous
    s.put("tool:dup", "shared words here")
    s.put("doc:dup", "other words there")
    yield s
    s.close()


# ---------------------------------------------------------------------------------- verify_quote


def test_exact_quote_has_a_pointer_that_resolves_to_it(store):
    quote = "retry limit reached after 3 attempts"
    check = verify_quote(store, "tool:call_2", quote)
    assert check.ok and check.grade == "exact"
    source = LOG.encode()
    assert (check.start, check.end) == (source.find(quote.encode()), source.find(quote.encode()) + len(quote))
    assert check.occurrences == 1 and check.diagnostic is None
    assert store.resolve(check.pointer) == quote
    assert check.pointer == store.pointer("tool:call_2", check.start, check.end)
    assert check.source_digest == store.digest("tool:call_2")


def test_exact_counts_every_occurrence_and_points_at_the_first(store):
    check = verify_quote(store, "tool:call_2", "INFO worker started")
    assert check.grade == "exact" and check.occurrences == 2
    assert check.start == LOG.encode().find(b"INFO worker started")
    overlapping = verify_quote(store, "tool:call_2", "0")  # every one of them inside a time stamp
    assert overlapping.occurrences == 0 and overlapping.grade == "not_found"
    store.put("tool:aaa", "aaa")
    assert verify_quote(store, "tool:aaa", "aa").occurrences == 0  # (overlapping, but each cuts the word)


@pytest.mark.parametrize("quote, source, ok", [
    # red team 33, 06: an occurrence that cuts a word or number of the source in two quotes
    # nothing ("after 3" of "after 30 attempts" graded exact)
    ("after 3", "retry limit reached after 30 attempts", False),
    ("timeout 2", "timeout 2.5s", False),
    ("limit reach", "limit reached", False),
    ("13 per share", "earned $0.13 per share", False),
    ("after 3", "after 3, then after 30", True),
    ("after 3", "after 30, then after 3", True),
    # a quote's own full stop, comma or colon is no boundary where the source's number goes on
    # (red team 33's note: "after 3." of "after 3.5" graded exact)
    ("after 3.", "after 3.5", False),
    ("at most 3,", "at most 3,000 rows", False),
    ("at 10:", "at 10:30 UTC", False),
    (".5 seconds", "after 3.5 seconds", False),
    ("after 3.", "retries after 3. Then it stops", True),
    ("in 2026.", "released in 2026.\n", True),
    ("v2.", "v2.x", True),  # (a letter after it: no number goes on)
    # red team 36, 03: a dropped sign, leading point or digit group, a range, an exponent, a
    # digit of another script or a number sign after it
    ("5 degrees", "it was -5 degrees", False),
    ("5 seconds", "sleep .5 seconds", False),
    ("timeout = 3", "timeout = 3_000", False),
    ("limit 3", "limit 3'000 rows", False),
    ("costs 3", "costs 3\u202f000 EUR", False),
    ("costs 3", "costs 3\u00a0000 EUR", False),
    ("000 EUR", "costs 3\u00a0000 EUR", False),
    ("retries 3", "retries 3..5", False),
    ("retries 3.", "retries 3..5", False),
    ("count 3", "count 3.e5", False),
    ("after 3", "after 3\u00bd hours", False),
    ("after 3.", "after 3.\u0665", False),
    ("-5 dB", "gain -5 dB", True),
    # red team 36, 02: a quote's own punctuation is its boundary where no number goes on
    (":8080", "listening on 10.0.0.1:8080", True),
    ("/1/items", "GET http://host:8080/1/items", True),
    ("[1,", "[1,2,3]", True),
    ("items: 1,", "items: 1,2,3", True),
    ("line 12:", "file.py line 12:5: error", True),
    ("数据库", "数据库连接", True),  # (no spaces between words: a quote may end anywhere)
    ("10:30", "at 10:30 UTC", True),
    # red team 37, 05: a typeset minus sign (U+2212) and an en-dash range (U+2013) are a
    # number's too, and a quote cannot open on what joins the source's number to its digits
    ("5 degrees", "it was \u22125 degrees", False),
    ("\u22125 degrees", "it was \u22125 degrees", True),
    ("takes 3", "takes 3\u20135 days", False),
    ("5 days", "takes 3\u20135 days", False),
    ("3\u20135 days", "takes 3\u20135 days", True),
    ("takes 3\u2013", "takes 3\u20135 days", False),
    ("takes 3-", "takes 3-5 days", False),
    ("costs 3\u202f", "costs 3\u202f000 EUR", False),
    ("-5 degrees", "a range of 3-5 degrees", False),
    (",000 rows", "read 3,000 rows", False),
    ("_000 rows", "read 3_000 rows", False),
    ("\u20135 days", "takes 3\u20135 days", False),
    (",2,3]", "[1,2,3]", True),  # (a list's comma, not a thousands group)
    ("- do it", "step 2- do it", True),  # (no digit after the hyphen)
    # red team 82, F07: a digit of another script ends or opens a number too ("after ٣" of
    # "after ٣٠ attempts" graded exact)
    ("after \u0663", "after \u0663\u0660 attempts", False),
    ("\u4e0a\u9650\u306f\uff13", "\u4e0a\u9650\u306f\uff13\uff10\u56de", False),
    ("after \u0969", "after \u0969\u0966 attempts", False),
    ("\u0660 attempts", "after \u0663\u0660 attempts", False),
    ("\uff10\u56de", "\u4e0a\u9650\u306f\uff13\uff10\u56de", False),
    ("0 attempts", "after \u06630 attempts", False),
    ("after \u0663\u0660", "after \u0663\u0660 attempts", True),
    ("\uff13\uff10\u56de", "\u4e0a\u9650\u306f\uff13\uff10\u56de", True),
    ("\u6570\u636e\u5e93\uff13", "\u6570\u636e\u5e93\uff13\u4e2a", True),
    # red team 84, F05: a digit of another script joined by a separator ("३,५००", "٣٫٥", "３，５００")
    ("\u096b\u0966\u0966 rupees", "price \u0969,\u096b\u0966\u0966 rupees", False),
    ("retry after \u0663", "retry after \u0663\u066b\u0665 seconds", False),
    ("\u0665 seconds", "retry after \u0663\u066b\u0665 seconds", False),
    ("retry after \u0663.", "retry after \u0663.\u0665 seconds", False),
    ("takes \u0663-", "takes \u0663-\u0665 days", False),
    ("-\u0665 days", "takes \u0663-\u0665 days", False),
    ("\uff15\uff10\uff10\u5186", "\u6599\u91d1\u306f\uff13\uff0c\uff15\uff10\uff10\u5186", False),
    ("\uff13\uff0c\uff15\uff10\uff10\u5186", "\u6599\u91d1\u306f\uff13\uff0c\uff15\uff10\uff10\u5186", True),
])
def test_an_exact_quote_cuts_no_word_or_number(tmp_path, quote, source, ok):
    store = SourceStore(":memory:")
    store.put("tool:s", source)
    check = verify_quote(store, "tool:s", quote)
    assert check.ok is ok
    if not ok:
        assert check.grade == "not_found" and check.diagnostic.kind == "occurs_only_cutting_a_token"
        assert "cuts a word or number" in check.describe()


def test_a_whitespace_match_lists_the_later_occurrences_only_when_the_first_fails(monkeypatch):
    # listing them normalises the whole source again: once per quote, 1,000 quotes of a source
    # that holds each twice took 12 s; the first occurrence, when it is accepted, is the answer
    calls = []
    listing = reconstruct._search.whitespace_spans
    monkeypatch.setattr(reconstruct._search, "whitespace_spans", lambda *a: calls.append(a) or listing(*a))
    store = SourceStore(":memory:")
    store.put("doc:twice", "retries after 30 s\nretries after 3 s\n" * 2)
    report = verify_citations(store, '"after  30 s" [src:twice] and "after  3" [src:twice]')
    assert [c.grade for c in report.citations] == ["whitespace", "whitespace"]
    # only the second quote's first occurrence ("after 3" of "after 30") cuts a token
    assert [a[0] for a in calls] == [b"after  3"]
    assert report.citations[1].best.start == len("retries after 30 s\nretries ")


def test_offsets_are_utf8_bytes(store):
    check = verify_quote(store, "user:u3", "café — 😀")
    assert check.ok
    assert UNICODE.encode()[check.start : check.end] == "café — 😀".encode()
    assert check.start == len("Zoë Martin wrote: naïve ".encode()) and check.start != UNICODE.find("café")
    assert store.resolve(check.pointer) == "café — 😀"


def test_whitespace_variant_is_graded_and_never_a_pass(store):
    check = verify_quote(store, "doc:doc_7", "It was the best of times, it was the worst of times.")
    assert check.grade == "whitespace" and not check.ok
    # the pointer names the ORIGINAL bytes, newline included
    assert store.resolve(check.pointer) == "It was the best of times,\nit was the worst of times."
    assert check.occurrences == 1


def test_whitespace_match_with_different_facts_is_not_found(store):
    # "retries: 3" on its own line is a YAML key/value fact; joined into one line it is not
    check = verify_quote(store, "tool:call_1", "config retries: 3")
    assert check.grade == "not_found" and check.pointer is None
    d = check.diagnostic
    assert d.kind == reconstruct.DIAGNOSTIC_FACTS_DIFFER and d.to_json()["graded"] is False
    assert CONFIG.encode()[d.source_start : d.source_end] == b"config\nretries: 3"
    assert "kv" in d.detail and "facts differ" in check.describe()
    # whitespace inside a quoted string is part of the fact: "disk  full" is not "disk full"
    quoted = verify_quote(store, "tool:call_2", 'msg = "disk full" on')
    assert quoted.grade == "not_found" and quoted.diagnostic.kind == reconstruct.DIAGNOSTIC_FACTS_DIFFER


def test_whitespace_candidates_are_tried_until_the_facts_agree():
    s = SourceStore(":memory:")
    s.put("tool:x", "head\nretries: 3\nand later: head  retries: 3 tail")
    check = verify_quote(s, "tool:x", "head retries: 3")
    # the first normalised occurrence spans a YAML line (a kv fact), the second is prose
    assert check.grade == "whitespace" and check.occurrences == 2
    assert s.resolve(check.pointer) == "head  retries: 3"
    assert check.start == len("head\nretries: 3\nand later: ")


def test_a_whole_whitespace_match_after_many_that_cut_a_token_is_found():
    # the first 16 normalised occurrences were the only ones listed: with all of them inside
    # "30", the quote was refused as one that "occurs only where it cuts a number", though the
    # source says it, whole, on its last line
    s = SourceStore(":memory:")
    text = "".join(f"line {i}: retries  =  30 here\n" for i in range(40)) + "final: retries  =  3 here\n"
    s.put("tool:x", text)
    check = verify_quote(s, "tool:x", "retries = 3")
    assert check.grade == "whitespace" and check.occurrences == 41
    assert check.start == text.index("retries  =  3 here")
    assert s.resolve(check.pointer) == "retries  =  3"
    s.put("tool:y", text.replace("=  3 here", "=  31 here"))
    check = verify_quote(s, "tool:y", "retries = 3")
    assert check.grade == "not_found" and check.diagnostic.kind == "occurs_only_cutting_a_token"
    assert check.diagnostic.source_start == text.index("retries  =  30")


_PIECES = ["a", "ab", "3", "30", " ", "  ", "\n", "\u00a0", "\u2003 ", ".", "-", "x3"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(_PIECES), max_size=40), st.lists(st.sampled_from(_PIECES), min_size=1, max_size=4),
       st.integers(1, 3), st.integers(1, 4))
def test_whole_whitespace_spans_are_the_first_listed_occurrences_that_cut_nothing(monkeypatch, hay, quote, limit, per_call):
    # listed a few at a time, each call resuming after the last occurrence's start (or after
    # the whitespace run it started on), they are exactly what one listing of every
    # occurrence gives once those that cut a token are left out
    haystack, needle = "".join(hay).encode(), "".join(quote).encode()
    monkeypatch.setattr(reconstruct, "_MAX_SPANS_PER_CALL", per_call)
    every = _search_py.whitespace_spans(needle, haystack, 1 << 40).tolist()
    whole = [(s, e) for s, e in every if not reconstruct._cuts_a_token(haystack, s, e)]
    assert reconstruct._whole_whitespace_spans(needle, haystack, limit) == [tuple(x) for x in whole[:limit]]


@pytest.mark.parametrize(("list_after", "list_batch"), [(1, 1), (1, 2), (4, 4096), (64, 4096)])
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(["0", "00", "1", "a", "ab", "aba", " ", ".", "-", "x"]), min_size=1, max_size=60),
       st.lists(st.sampled_from(["0", "00", "a", "ab", "b", "."]), min_size=1, max_size=12))
def test_the_first_whole_occurrence_is_the_first_listed_one_that_cuts_nothing(monkeypatch, list_after, list_batch, hay, quote):
    # the walk through a run of occurrences one period apart, and the jump past its end
    # (red team 82, F02: one search per occurrence was quadratic), and the native listing of
    # the rest, pass over no occurrence
    monkeypatch.setattr(reconstruct, "_LIST_AFTER", list_after)
    monkeypatch.setattr(reconstruct, "_LIST_BATCH", list_batch)
    haystack, needle = "".join(hay).encode(), "".join(quote).encode()
    every = _search_py.occurrences(needle, haystack)
    if not every:
        return
    whole = [at for at in every[1:] if not reconstruct._cuts_a_token(haystack, at, at + len(needle))]
    assert reconstruct._whole_occurrence(needle, haystack, every[0]) == (whole[0] if whole else -1)


# periodic sources: a unit repeated, with what may end or start a number around it (red
# team 84, F08: a short quote at every byte of a long run cost a check per occurrence)
_UNIT_PIECES = ["A", "a", "b", "3", "0", ".", ",", "-", " ", "\u0663", "\uff13", "\u202f", "\u00bd", "\u2013", "e", "+"]
_PERIODIC = st.tuples(
    st.lists(st.sampled_from(_UNIT_PIECES), min_size=1, max_size=4).map("".join),  # the unit
    st.integers(10, 60),  # how many times it repeats
    st.lists(st.sampled_from(_UNIT_PIECES), max_size=3).map("".join),  # before the run
    st.lists(st.sampled_from(_UNIT_PIECES), max_size=3).map("".join),  # after it
    st.integers(0, 12),  # where in the run the quote is taken
    st.integers(1, 24),  # its length in characters
)


def _periodic_case(case):
    unit, times, before, after, offset, length = case
    run = unit * times
    haystack = (before + run + after).encode()
    needle = run[offset % len(unit) :][:length].encode()
    return needle, haystack


@pytest.mark.parametrize(("run_steps", "list_after"), [(1, 64), (2, 64), (8, 64), (8, 1), (2, 3)])
@pytest.mark.parametrize("list_batch", [1, 4096])
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_PERIODIC)
def test_a_run_of_occurrences_checked_in_bulk_gives_the_first_whole_one(monkeypatch, run_steps, list_after, list_batch, case):
    # one check per period for the occurrences whose context lies inside the run, one each near
    # its ends, or the rest listed natively: the same answer as a check of every occurrence
    monkeypatch.setattr(reconstruct, "_RUN_STEPS", run_steps)
    monkeypatch.setattr(reconstruct, "_LIST_AFTER", list_after)
    monkeypatch.setattr(reconstruct, "_LIST_BATCH", list_batch)
    needle, haystack = _periodic_case(case)
    every = _search_py.occurrences(needle, haystack)
    if not every:
        return
    whole = [at for at in every[1:] if not reconstruct._cuts_a_token(haystack, at, at + len(needle))]
    assert reconstruct._whole_occurrence(needle, haystack, every[0]) == (whole[0] if whole else -1)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_PERIODIC, st.integers(1, 3), st.integers(1, 4))
def test_whole_whitespace_spans_of_a_periodic_source(monkeypatch, case, limit, per_call):
    # the spans that surely cut a token (an ASCII letter or digit on both sides of an edge) are
    # left out in bulk; what is left is checked one by one, as every span was
    needle, haystack = _periodic_case(case)
    if not needle.strip():
        return
    monkeypatch.setattr(reconstruct, "_MAX_SPANS_PER_CALL", per_call)
    every = _search_py.whitespace_spans(needle, haystack, 1 << 40).tolist()
    whole = [(s, e) for s, e in every if not reconstruct._cuts_a_token(haystack, s, e)]
    assert reconstruct._whole_whitespace_spans(needle, haystack, limit) == [tuple(x) for x in whole[:limit]]


@settings(max_examples=300, deadline=None)
@given(_PERIODIC)
def test_a_quote_without_whitespace_cutting_a_token_everywhere_is_graded_as_before(case):
    # such a quote's whitespace-normalised occurrences are its exact ones, so they are not
    # listed and checked again: the verdict is what checking them gives
    needle, haystack = _periodic_case(case)
    if _search_py.WHITESPACE_RUN.search(needle) or not needle:
        return
    store = SourceStore(":memory:")
    store.put("tool:run", haystack)
    check = verify_quote(store, "tool:run", needle)
    every = _search_py.occurrences(needle, haystack)
    whole = [at for at in every if not reconstruct._cuts_a_token(haystack, at, at + len(needle))]
    if whole:
        assert check.grade == "exact" and check.start == whole[0]
    elif every:
        assert check.grade == "not_found"
        assert check.diagnostic.kind == "occurs_only_cutting_a_token"
        assert (check.diagnostic.source_start, check.diagnostic.source_end) == (every[0], every[0] + len(needle))
    else:
        assert check.grade == "not_found"


_NEAR_PIECES = ["3", "0", "a", ".", ",", "-", ":", "/", "_", "'", " ", "e", "E", "+", "\u2013", "\u2212", "\u00a0",
                "\u202f", "\u0663", "\u066b", "\uff13", "\uff0c", "\u00bd", "\u00b2", "\U0001d7d1"]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_NEAR_PIECES), min_size=1, max_size=30), st.data())
def test_whether_an_occurrence_cuts_a_token_depends_only_on_its_context(pieces, data):
    # what _whole_in_run relies on: bytes more than _CUT_CONTEXT away from an occurrence never
    # change whether it cuts a token, so the occurrences of a run whose context lies inside it
    # share one answer
    source = "".join(pieces).encode()
    start = data.draw(st.integers(0, len(source) - 1))
    end = data.draw(st.integers(start + 1, len(source)))
    lo, hi = max(0, start - reconstruct._CUT_CONTEXT), min(len(source), end + reconstruct._CUT_CONTEXT)
    fill = data.draw(st.sampled_from([b"\x00", b"7", b"a", b".", b"\xe2", b"\x80", b" "]))
    changed = fill * lo + source[lo:hi] + fill * (len(source) - hi)
    assert reconstruct._cuts_a_token(changed, start, end) == reconstruct._cuts_a_token(source, start, end)


@pytest.mark.parametrize(("source", "start", "end", "far"), [
    ("\U0001d7d1\u202f000".encode(), 7, 10, 0),  # a four-byte digit and a three-byte separator before
    ("000\u202f\U0001d7d1".encode(), 0, 3, 9),  # and after: byte end + 6
])  # fmt: skip
def test_the_farthest_byte_that_decides_a_cut_is_within_the_context(source, start, end, far):
    # the farthest reach of _cuts_a_token (a number joined to the quote's by a separator), which
    # the random contexts above rarely build
    assert reconstruct._cuts_a_token(source, start, end)
    assert not reconstruct._cuts_a_token(source[:far] + b"x" + source[far + 1 :], start, end)
    assert max(start - far, far + 1 - end) <= reconstruct._CUT_CONTEXT


@pytest.mark.parametrize(("source", "quote"), [
    (b"A" * 200_000, b"AAAAAAAA"),
    (b"AAB" * 70_000, b"AABAA"),
    (b"x AB " * 40_000, b"B x AB x A"),
])  # fmt: skip
def test_a_short_quote_at_every_byte_of_a_long_run_is_checked_a_few_times(monkeypatch, source, quote):
    # red team 84, F08: 7.8 / 18 / 52 s for 4 / 8 / 16 MB of A, a check per occurrence twice
    check, calls = verify_counting_checks(monkeypatch, source, quote)
    assert check.grade == "not_found" and check.diagnostic.kind == "occurs_only_cutting_a_token"
    assert check.diagnostic.source_start == source.find(quote)
    assert calls < 200  # against one or two per occurrence: 50,000 to 400,000


# near-runs: a periodic run broken by a few other pieces, at the source's start, its end or
# inside, and quotes taken from it with their whitespace changed (the spans that cut a token
# without an ASCII letter or digit on both sides of an edge: digit groups, signs, other
# scripts' digits and separators)
_RUN_UNITS = ["3\u202f", "3\u00a0", "-3 ", ".5 ", "\u0663", "\u0663\u00a0", "\uff13 ", "3,", "A", "AAB", "x AB ",
              "\u0663" * 9 + "x", "a", "3 ", "\u5b57", "3\u2009", "\u00bd "]
_BREAKS = ["B", " ", "  ", "\u00a0", "3", "x", "\u0663", "\n", "", "\u2013", "."]


@st.composite
def _near_runs(draw):
    unit = draw(st.sampled_from(_RUN_UNITS))
    times = draw(st.integers(4, 150))
    pieces = [unit] * times
    for _ in range(draw(st.integers(0, 3))):  # runs broken by other bytes
        at = draw(st.integers(0, times - 1))
        other = draw(st.sampled_from(_BREAKS))
        pieces[at] = other if draw(st.booleans()) else pieces[at] + other
    before = draw(st.lists(st.sampled_from(_BREAKS), max_size=2).map("".join))  # empty: the run opens the source
    after = draw(st.lists(st.sampled_from(_BREAKS), max_size=2).map("".join))  # empty: it ends it
    text = before + "".join(pieces) + after
    run = unit * 12
    offset = draw(st.integers(0, len(unit) - 1))
    quote = run[offset : offset + draw(st.integers(1, 3 * len(unit) + 2))]
    respace = draw(st.sampled_from([None, " ", "  ", "\u00a0", "\u202f", "\t"]))
    if respace is not None:
        quote = re.sub(r"\s+", respace, quote)
    return text.encode(), quote.encode()


@pytest.mark.parametrize(("run_steps", "per_period"), [(1, 64), (2, 3), (2, 64), (8, 64)])
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_near_runs(), st.integers(1, 20))
def test_spans_of_a_run_checked_in_bulk_are_those_checked_one_by_one(monkeypatch, run_steps, per_period, case, limit):
    # red team 84, F08 (what stop 36 left): the spans _uncut_spans answers for a period at a
    # time are exactly the first `limit` a check of each span keeps, exact and whitespace ones
    monkeypatch.setattr(reconstruct, "_RUN_STEPS", run_steps)
    monkeypatch.setattr(reconstruct, "_MAX_SPANS_PER_PERIOD", per_period)
    source, quote = case
    assert_uncut_spans_are_those_checked_one_by_one(source, quote, limit)


@pytest.mark.parametrize(("run_steps", "list_after"), [(2, 1), (8, 64)])
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_near_runs(), st.integers(1, 4))
def test_first_whole_occurrence_and_spans_of_a_near_run(monkeypatch, run_steps, list_after, case, per_call):
    # the same through the callers: the exact walk (and its native listing after `list_after`
    # occurrences) and the whitespace listing, a few spans a call
    monkeypatch.setattr(reconstruct, "_RUN_STEPS", run_steps)
    monkeypatch.setattr(reconstruct, "_LIST_AFTER", list_after)
    monkeypatch.setattr(reconstruct, "_LIST_BATCH", 3)
    monkeypatch.setattr(reconstruct, "_MAX_SPANS_PER_CALL", per_call * 7)
    source, quote = case
    assert_callers_find_the_whole_occurrences(source, quote)


@pytest.mark.parametrize(("source", "quote"), [
    ("3\u202f".encode() * 50_000, "3\u202f3".encode()),  # a digit group's separator, whitespace too
    ("3\u00a0".encode() * 50_000, b"3 3"),  # graded by the whitespace search
    (b"-3 " * 50_000, b"3  -3"),  # a sign
    (("\u0663" * 9 + "x").encode() * 10_000, "\u0663".encode()),  # nine a period, another script
    ("\u0663\u00a0".encode() * 50_000, "\u0663 \u0663".encode()),
])  # fmt: skip
def test_spans_that_cut_a_token_off_ascii_are_checked_a_few_times(monkeypatch, source, quote):
    # spans that cut a number without an ASCII letter or digit on both sides of an edge are not
    # left out together; they were checked one by one (1.4-6.5 s for 4 MB before)
    check, calls = verify_counting_checks(monkeypatch, source, quote)
    assert check.grade == "not_found" and check.diagnostic.kind == "occurs_only_cutting_a_token"
    assert calls < 2_000  # against one per span: 50,000 to 90,000


def test_spans_that_do_not_repeat_cost_few_looks_for_a_period(monkeypatch):
    # a whitespace span at every group of a table of random digits joined by narrow no-break
    # spaces, each cutting a number: they are checked one by one, and looked at for a period
    # ever more rarely (a look at every span once 1,024 were checked made them 50x slower)
    rng = random.Random(5)
    source = "\u202f".join(str(rng.randint(0, 9)) for _ in range(60_000)).encode()
    looks = 0
    look = reconstruct._span_period

    def counting(recent):
        nonlocal looks
        looks += 1
        return look(recent)

    monkeypatch.setattr(reconstruct, "_span_period", counting)
    every = _search_py.whitespace_spans("\u202f5\u202f".encode(), source, 1 << 40)
    assert reconstruct._uncut_spans(source, every, 16) == cut_one_by_one(source, every.tolist())[:16] == []
    assert len(every) > 5_000 and looks < len(every) // 100


@pytest.mark.parametrize(("list_after", "list_batch"), [(1, 1), (1, 2), (2, 1), (64, 4096)])
@pytest.mark.parametrize(("haystack", "needle", "whole"), [
    (b"xa.axa.axa.a.a ", b"a.a", 11),  # the whole one overlaps the cut one before it
    (b"xa.axa.axa.axa.axa.a.a ", b"a.a", 19),
    (b"x0.0x0.0x0.0.0 ", b"0.0", -1),
])  # fmt: skip
def test_listed_occurrences_resume_right_after_the_last(monkeypatch, list_after, list_batch, haystack, needle, whole):
    monkeypatch.setattr(reconstruct, "_LIST_AFTER", list_after)
    monkeypatch.setattr(reconstruct, "_LIST_BATCH", list_batch)
    assert reconstruct._whole_occurrence(needle, haystack, haystack.find(needle)) == whole


def test_a_long_quote_whose_every_occurrence_cuts_a_number_is_not_found(store):
    # red team 82, F02: 1.4 s for 50 KB of zeros, 65 s for 400 KB of ones (timed in
    # benchmarks/test_bench_reconstruct.py); each occurrence now costs what its edges cost
    store.put("tool:zeros", b"padding " + b"0" * 20_000 + b" end\n")
    check = verify_quote(store, "tool:zeros", b"0" * 5_000)
    assert check.grade == "not_found" and check.diagnostic.kind == "occurs_only_cutting_a_token"
    store.put("tool:zeros_then_whole", b"0" * 20_000 + b" then " + b"0" * 5_000 + b".\n")
    check = verify_quote(store, "tool:zeros_then_whole", b"0" * 5_000)
    assert check.ok and check.start == 20_006


def test_changed_number_is_not_found_with_the_divergence_as_evidence(store):
    check = verify_quote(store, "tool:call_2", "retry limit reached after 5 attempts")
    assert check.grade == "not_found" and not check.ok and check.pointer is None
    d = check.diagnostic
    assert d.kind == "longest_prefix"
    assert d.quote_bytes == len("retry limit reached after ")
    assert LOG.encode()[d.source_start : d.source_end] == b"retry limit reached after "
    assert "only the first 26 of 36 quote bytes" in check.describe()


def test_prefix_diagnostic_never_cuts_a_character(store):
    check = verify_quote(store, "user:u3", "naïve café — 😃")  # a different emoji, same first 3 bytes
    assert check.grade == "not_found"
    assert check.diagnostic.quote_bytes == len("naïve café — ".encode())


def test_unknown_handle_is_a_graded_result(store):
    check = verify_quote(store, "tool:call_404", "anything")
    assert check.grade == "unknown_handle" and not check.ok
    assert check.pointer is None and "does not resolve" in check.describe()


@pytest.mark.parametrize(
    "quote",
    [".*", "(a|b)", "[src:call_1]", "\\d+", "^$", "a{1,3}", "retries: 3\n.*", "?", "|"],
)
def test_regex_metacharacters_are_plain_bytes(store, quote):
    source = "x .* (a|b) [src:call_1] \\d+ ^$ a{1,3} ? |"
    store.put("tool:meta", source)
    check = verify_quote(store, "tool:meta", quote)
    assert check.ok == (quote in source)
    if check.ok:
        assert store.resolve(check.pointer) == quote
    assert verify_quote(store, "tool:call_1", quote).grade in ("not_found", "exact")
    assert verify_quote(store, "tool:call_1", quote).ok == (quote in CONFIG)


def test_quote_longer_than_the_source(store):
    assert verify_quote(store, "tool:empty", "x").grade == "not_found"
    assert verify_quote(store, "doc:doc_7", DOC + "more").grade == "not_found"
    assert verify_quote(store, "doc:doc_7", DOC).ok


def test_nul_bytes_are_content(store):
    check = verify_quote(store, "tool:nul", "b\x00c")
    assert check.ok and store.resolve(check.pointer) == "b\x00c"


def test_bytes_quotes_are_utf8(store):
    assert verify_quote(store, "user:u3", "café".encode()).ok
    with pytest.raises(InvalidContentError, match="not valid UTF-8: byte 0xff at offset 1"):
        verify_quote(store, "user:u3", b"c\xff")


@pytest.mark.parametrize(
    "quote, error, message",
    [
        ("", InvalidArgumentError, "quote is empty"),
        (b"", InvalidArgumentError, "quote is empty"),
        (None, InvalidArgumentError, "quote must be str or UTF-8 bytes, not NoneType"),
        (42, InvalidArgumentError, "not int"),
        (["x"], InvalidArgumentError, "not list"),
        ("a\ud800b", InvalidContentError, "lone surrogate U+D800 at index 1"),
    ],
)
def test_bad_quotes(store, quote, error, message):
    with pytest.raises(error, match=re.escape(message)):
        verify_quote(store, "doc:doc_7", quote)


@pytest.mark.parametrize("handle", [None, "", 7, "a\x00b", "x\udc00"])
def test_bad_handles(store, handle):
    with pytest.raises(InvalidHandleError):
        verify_quote(store, handle, "quick")


@pytest.mark.parametrize("not_a_store, hint", [(None, ""), ("agent.sqlite3", " (open it first"), (Path("a"), " (open it")])
def test_a_store_that_is_not_one_is_named(not_a_store, hint):
    # red team 50: None (or a path) surfaced as an AttributeError from the first read
    for call in (lambda: verify_quote(not_a_store, "doc:doc_7", "quick"),
                 lambda: verify_citations(not_a_store, "quick [src:doc_7]"),
                 lambda: SourceCache(not_a_store)):
        with pytest.raises(InvalidArgumentError, match=re.escape(f"store must be a SourceStore, not {type(not_a_store).__name__}{hint}")) as e:
            call()
        assert e.value.argument == "store"


def test_quote_check_json(store):
    obj = verify_quote(store, "doc:doc_7", "lazy dog").to_json()
    assert json.loads(json.dumps(obj)) == obj
    assert obj["grade"] == "exact" and obj["ok"] is True and obj["pointer"]["handle"] == "doc:doc_7"
    assert set(GRADES) == {"exact", "whitespace", "not_found", "nominal", "unknown_handle"}


# ---------------------------------------------------------------------------------- citations

ANSWER = """\
The config says "retries: 3" [src:call_1] and the log \u201cretry limit reached after 3 attempts\u201d [src:call_2].
It was 'the best of times' [src:doc_7] and `timeout: 30s` [src:tool:call_1][src:doc_7].
The summary claims "retry limit reached after 5 attempts" [src:call_2][src:call_404].
> It was the best of times,
> it was the worst of times.
[src:doc_7]

```
host = api.internal.example
```
[src:call_1]
See [src:call_2] and [src:nowhere]. Someone said "hello" without a source.
"shared words" [src:dup]
"""


def test_citations_presence_accuracy_and_grades(store):
    report = verify_citations(store, ANSWER)
    rows = [
        (c.quotation.form, c.quotation.text, c.marker.name, c.grade, c.present, c.accurate) for c in report.citations
    ]
    assert rows == [
        ("double", "retries: 3", "call_1", "exact", True, True),
        ("curly", "retry limit reached after 3 attempts", "call_2", "exact", True, True),
        ("single", "the best of times", "doc_7", "exact", True, True),
        ("backtick", "timeout: 30s", "tool:call_1", "exact", True, True),
        ("backtick", "timeout: 30s", "doc_7", "not_found", True, False),
        ("double", "retry limit reached after 5 attempts", "call_2", "not_found", True, False),
        ("double", "retry limit reached after 5 attempts", "call_404", "unknown_handle", False, False),
        ("blockquote", "It was the best of times,\nit was the worst of times.", "doc_7", "exact", True, True),
        ("fence", "host = api.internal.example", "call_1", "exact", True, True),
        ("double", "shared words", "dup", "exact", True, True),
    ]
    t = report.totals()
    assert t["citations"] == 10 and t["quotations"] == 8
    assert (t["present"], t["accurate"]) == (9, 7)
    assert t["presence_rate"] == pytest.approx(0.9) and t["accuracy_rate"] == pytest.approx(0.7)
    assert t["by_grade"] == {"exact": 7, "whitespace": 0, "not_found": 2, "nominal": 0, "unknown_handle": 1}
    assert t["ambiguous"] == 1
    assert [(m.name, m.present) for m in report.bare_markers] == [("call_2", True), ("nowhere", False)]
    assert (t["bare_markers"], t["bare_markers_present"]) == (2, 1)
    assert [q.text for q in report.unmarked_quotes] == ["hello"]
    assert not report.ok


def test_citation_offsets_and_pointers_resolve(store):
    report = verify_citations(store, ANSWER)
    data = ANSWER.encode()
    for c in report.citations:
        marker = data[c.marker.start : c.marker.end].decode()
        assert marker == f"[src:{c.marker.name}]"
        if c.quotation.form != "blockquote":
            assert data[c.quotation.start : c.quotation.end].decode() == c.quotation.text
        if c.accurate:
            assert store.resolve(c.best.pointer) == c.quotation.text
    ambiguous = report.citations[-1]
    assert ambiguous.marker.handles == ("tool:dup", "doc:dup") and ambiguous.marker.ambiguous
    assert [ch.grade for ch in ambiguous.checks] == ["exact", "not_found"]
    assert ambiguous.best.handle == "tool:dup"


def test_report_json_is_complete_and_serialisable(store):
    report = verify_citations(store, ANSWER)
    obj = report.to_json()
    assert json.loads(json.dumps(obj, ensure_ascii=False)) == obj
    assert obj["ok"] is False and obj["answer_bytes"] == len(ANSWER.encode())
    assert obj["totals"] == report.totals()
    first = obj["citations"][0]
    assert first["marker"] == "[src:call_1]" and first["handle"] == "tool:call_1" and first["pointer"]["start"] >= 0
    missing = obj["citations"][6]
    assert missing["grade"] == "unknown_handle" and missing["handle"] is None and missing["checks"] == []
    assert obj["bare_markers"][1] == {
        "marker": "[src:nowhere]", "name": "nowhere", "start": ANSWER.encode().find(b"[src:nowhere]"),
        "end": ANSWER.encode().find(b"[src:nowhere]") + len("[src:nowhere]"), "handles": [],
        "present": False, "ambiguous": False,
    }  # fmt: skip


def test_high_presence_low_accuracy_signature(store):
    """The seed's signature: every label survives, the quoted sentences come from a summary."""
    summary_quotes = [
        ('"the worker retried three times before giving up"', "call_2"),
        ('"the configuration sets a thirty second timeout"', "call_1"),
        ('"a fox jumps over a dog"', "doc_7"),
        ('"retry limit reached after 3 attempts"', "call_2"),
    ]
    answer = " ".join(f"{q} [src:{name}]." for q, name in summary_quotes)
    t = verify_citations(store, answer).totals()
    assert t["presence_rate"] == 1.0
    assert t["accuracy_rate"] == 0.25


def test_answers_without_citations(store):
    for text in ("", "plain prose only.", '"quoted" but unmarked'):
        report = verify_citations(store, text)
        assert report.citations == () and report.ok
        assert report.presence_rate is None and report.accuracy_rate is None
        assert report.totals()["citations"] == 0


def test_parse_citations_needs_no_store():
    carried, bare, unmarked = parse_citations('"a" [src:x][src:y] then [src:z]. And "b"')
    assert [(q.text, q.form, [m[0] for m in ms]) for q, ms in carried] == [("a", "double", ["x", "y"])]
    assert [m[0] for m in bare] == ["z"] and [q.text for q in unmarked] == ["b"]


def test_whitespace_grade_in_citations(store):
    report = verify_citations(store, '"It was the best of times, it was the worst" [src:doc_7]')
    (c,) = report.citations
    assert c.grade == "whitespace" and not c.accurate and c.present
    assert report.totals()["by_grade"]["whitespace"] == 1 and not report.ok


def test_crlf_lines_quoted_verbatim_are_exact_in_every_form(store):
    """A CRLF answer quoting CRLF source lines: a blockquote keeps each line's own ending,
    as a fenced or inline quote does (review 3, H10: it joined them with a bare \\n)."""
    store.put("tool:crlf", "retries=3\r\ntimeout=30\r\n")
    answers = {
        "fence": "```\r\nretries=3\r\ntimeout=30\r\n```\r\n[src:crlf]\r\n",
        "double": '"retries=3\r\ntimeout=30" [src:crlf]\r\n',
        "blockquote": "> retries=3\r\n> timeout=30\r\n[src:crlf]\r\n",
    }
    for form, answer in answers.items():
        (c,) = verify_citations(store, answer).citations
        assert (c.quotation.form, c.quotation.text, c.grade) == (form, "retries=3\r\ntimeout=30", "exact")
    # a blockquote mixing line endings keeps each one; an LF blockquote of CRLF lines is not exact
    (mixed,) = verify_citations(store, "> a\r\n> b\n> c\n[src:crlf]\n").citations
    assert mixed.quotation.text == "a\r\nb\nc"
    (lf,) = verify_citations(store, "> retries=3\n> timeout=30\n[src:crlf]\n").citations
    assert lf.quotation.text == "retries=3\ntimeout=30" and lf.grade == "whitespace"


def test_a_quotation_that_cannot_be_read_fails_every_citation_of_it(store):
    """A marker right after a closing delimiter claims a quotation. When its delimiters do not
    pair up, or it holds no text, the citation is not_found, never a tail checked alone or a
    bare marker that passes (red team 82, F01: all four answers below exited 0)."""
    store.put("tool:nested", 'error: file "app.ini" not found\nThe limit is \u201c30\u201d per hour\n'
                             "retry limit reached after 3 attempts\n")
    drifted = [
        'The tool said "error: file "db.ini" not found" [src:nested].',
        "It said \u201cThe limit is \u201c50\u201d per hour\u201d [src:nested].",
        'It said \u201cretry limit reached after 5 attempts" [src:nested].',
        'It said "retry limit reached after 5 attempts\u201d [src:nested].',
        # the same words as the source, but with the quotes mixed: still not readable
        'It said "retry limit reached after 3 attempts\u201d [src:nested].',
        'It said "   " [src:nested].',
    ]
    for answer in drifted:
        obj, code = run_verify(store, answer.encode())
        assert code == 1 and obj["totals"]["bare_markers"] == 0, answer
        (c,) = verify_citations(store, answer).citations
        assert c.grade == "not_found" and not c.accurate and c.present
    (c,) = verify_citations(store, drifted[3]).citations
    assert (c.quotation.form, c.quotation.text) == ("unreadable", "retry limit reached after 5 attempts")
    (check,) = c.checks
    assert check.diagnostic.kind == DIAGNOSTIC_UNREADABLE_QUOTATION and check.start is None
    assert check.describe().startswith("not checked against tool:nested: the quotation before the marker")
    assert c.to_json()["checks"][0]["diagnostic"]["kind"] == "unreadable_quotation"
    # an unreadable quotation whose marker names nothing stored is an unknown handle
    (c,) = verify_citations(store, 'It said "x\u201d [src:gone]').citations
    assert c.grade == "unknown_handle"
    # an unreadable quotation never shares a check with a readable one of the same text
    report = verify_citations(store, '"not found" [src:nested] and \u201cnot found" [src:nested]')
    assert [(c.quotation.text, c.grade) for c in report.citations] == [("not found", "exact"), ("not found", "not_found")]
    # nested curly quotes are read whole, and a quotation of the other style inside is text
    for answer in ("It said \u201cThe limit is \u201c30\u201d per hour\u201d [src:nested].",
                   '\u201cerror: file "app.ini" not found\u201d [src:nested]'):
        obj, code = run_verify(store, answer.encode())
        assert code == 0 and obj["totals"]["accurate"] == 1, answer


def test_an_inline_quotation_over_blockquote_lines_is_their_text(store):
    """The ``> `` prefixes of the lines an inline quotation spans are markup, not quoted text
    (red team 82, F08: it was graded not_found)."""
    store.put("tool:lines", "retry limit reached\nafter 3 attempts\n")
    for answer in ('> "retry limit reached\n> after 3 attempts" [src:lines]\n',
                   "> \u201cretry limit reached\r\n>after 3 attempts\u201d [src:lines]\n"):
        (c,) = verify_citations(store, answer).citations
        assert c.quotation.text.replace("\r\n", "\n") == "retry limit reached\nafter 3 attempts"
        assert c.grade == ("exact" if "\r" not in answer else "whitespace")
    # a drifted line is still caught
    (c,) = verify_citations(store, '> "retry limit reached\n> after 5 attempts" [src:lines]\n').citations
    assert c.grade == "not_found"


def test_nested_blockquotes_and_lazy_lines_quote_their_text(store):
    """Nested ``> >`` prefixes and a lazy continuation line are markup, not quoted text (red
    team 84, F07: honest quotes were graded not_found); a drifted one is still caught, and
    so is a mail quoting a mail whose source has no ``>``."""
    store.put("tool:lines", "retry limit reached\nafter 3 attempts\n")
    store.put("tool:mail", "retry limit reached\n> after 3 attempts\n")
    store.put("tool:three", "retry limit reached\nafter 3 attempts\nin a row\n")
    honest = (
        "> > retry limit reached\n> > after 3 attempts [src:lines]\n",
        ">> retry limit reached\n>> after 3 attempts\n>> [src:lines]\n",
        '> > "retry limit reached\n> > after 3 attempts" [src:lines]\n',
        '> "retry limit reached\nafter 3 attempts" [src:lines]\n',
        '> "retry limit reached\n> after 3 attempts\nin a row" [src:three]\n',
        "> retry limit reached\n> > after 3 attempts [src:mail]\n",
    )
    for answer in honest:
        report = verify_citations(store, answer)
        assert report.ok and [c.grade for c in report.citations] == ["exact"], answer
    for answer in ("> > retry limit reached\n> > after 5 attempts [src:lines]\n",
                   '> "retry limit reached\nafter 5 attempts" [src:lines]\n',
                   "> retry limit reached\n> > after 3 attempts [src:lines]\n"):
        report = verify_citations(store, answer)
        assert not report.ok and [c.grade for c in report.citations] == ["not_found"], answer


_QUOTE_STYLES = [('"', '"'), ("\u201c", "\u201d"), ("\u00ab ", " \u00bb"), ("\u00bb", "\u00ab"), ("\u300c", "\u300d"),
                 ("'", "'"), ("\u2018", "\u2019"), ("\u201e", "\u201c"), ("\u201a", "\u2019"), ("`", "`"),
                 ("\u2039", "\u203a"), ("\u201d", "\u201d")]
_GAPS = [" ", "", ". ", ", ", "; ", ": ", "\u00a0", "\u200b", " (", "! ", "\n", "*", "\u3002", "\uff0c", "\u200f", " \u2014 ", "\u2026 ", " [src:other], ", " [src:other]; "]
_PROSE = ["the", "retry", "limit", "is", "per", "hour", "after", "attempts", "worker", "started", "disk", "full", "on",
          "data", "timeout", "seconds"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_PROSE), st.integers(0, 999).map(str)), min_size=3, max_size=30),
       st.data())
def test_a_quotation_in_any_style_is_exact_and_its_drift_is_caught(words, data):
    # whatever the quotation marks, the gap before the marker or the nesting of a blockquote,
    # an honest quote is exact and one with a digit changed or a word added is not: stop 35's
    # scanner left a bare marker (which passes) or checked the wrong text for most of these
    source = " ".join(words)
    a = data.draw(st.integers(0, len(words) - 1))
    quote = " ".join(words[a : a + data.draw(st.integers(1, 5))])
    shape = data.draw(st.sampled_from(["inline", "blockquote", "fence"]))
    if shape == "inline":
        (o, c), gap = data.draw(st.sampled_from(_QUOTE_STYLES)), data.draw(st.sampled_from(_GAPS))
        lead = data.draw(st.sampled_from(["", "He said ", "It's the users' log: ", "(", "\u201cSee\u201d [src:other] and "]))
        make = lambda q: f"{lead}{o}{q}{c}{gap}[src:doc]"
    elif shape == "blockquote":
        prefix = data.draw(st.sampled_from(["> ", "> > ", ">> ", ">  > "]))
        make = lambda q: f"{prefix}{q} [src:doc]"
    else:
        make = lambda q: f"```\n{q}\n```\n[src:doc]"
    digits = [k for k, ch in enumerate(quote) if ch.isdigit()]
    if digits:
        k = data.draw(st.sampled_from(digits))
        drifted = quote[:k] + str((int(quote[k]) + 1) % 10) + quote[k + 1 :]
    else:
        drifted = quote + " x"
    store = SourceStore(":memory:")
    store.put("tool:doc", source)
    (honest,) = [c for c in verify_citations(store, make(quote)).citations if c.marker.name == "doc"]
    assert honest.grade == "exact", make(quote)
    if drifted not in source:
        report = verify_citations(store, make(drifted))
        assert not [m for m in report.bare_markers if m.name == "doc"], make(drifted)
        (check,) = [c for c in report.citations if c.marker.name == "doc"]
        assert check.grade != "exact", make(drifted)


def test_what_stands_between_a_quotation_and_its_marker_never_leaves_the_quotation_unchecked(store):
    """Clause punctuation of other scripts, bidi marks, dashes, marker lists and words between
    a quotation and its marker: the honest quotation is exact, the drifted one fails (red team
    86, F05-F07: each drifted one was a bare marker, which passes, or only the first marker of
    a list was checked)."""
    store.put("tool:a", "The retry limit is 3 per hour. \u518d\u8a66\u884c\u306f3\u56de\u307e\u3067")
    store.put("tool:b", "Another source altogether.")
    shapes = (
        "\u300c{q}\u300d\u3002[src:a]", "\u4ed6\u8bf4\u201c{q}\u201d\uff0c[src:a]", '"{q}"\u200f [src:a]',
        '"{q}" \u2014 [src:a]', '"{q}" (see [src:a])', '"{q}", the docs say [src:a].', '"{q}" [[src:a]]',
        '"{q}" [src:a], [src:a]', "\u201c{q}\u201d\u2026 [src:a]",
    )
    for quote in ("The retry limit is 3 per hour.", "\u518d\u8a66\u884c\u306f3\u56de\u307e\u3067"):
        for shape in shapes:
            honest = verify_citations(store, shape.format(q=quote))
            assert honest.ok and honest.citations and {c.grade for c in honest.citations} == {"exact"}, shape
            drifted = verify_citations(store, shape.format(q=quote.replace("3", "9")))
            assert not drifted.ok and not drifted.bare_markers, shape
    listed = verify_citations(store, '"The retry limit is 3 per hour." [src:a], [src:b]')
    assert [c.grade for c in listed.citations] == ["exact", "not_found"] and not listed.ok


def test_a_near_marker_fails_the_report(store):
    """Text that looks like a marker but is not one is reported and fails the report: the
    quotation its author attributed would go unchecked while ``verify`` passed (red team 86,
    F08). Inside fenced code it is code, and a well-formed marker is not near one."""
    store.put("tool:a", "The retry limit is 3 per hour.")
    for marker in ("[src: a]", "[SRC:a]", "[Src:a]", "[src:a ]", "[src:a, b]", "[src:a; src:b]", "[src:]",
                   "\uff3bsrc:a\uff3d", "\u3010src:a\u3011", "[src\uff1aa]", "[\u200bsrc:a]", "[ src :a]"):
        answer = f'"The retry limit is 3 per hour." {marker} and more'
        report = verify_citations(store, answer)
        assert not report.ok and len(report.malformed_markers) == 1, marker
        (m,) = report.malformed_markers
        data = answer.encode()
        assert data[m.start : m.end].decode() == m.text and m.text.startswith(marker[:2]), marker
        obj = report.to_json()
        assert obj["totals"]["malformed_markers"] == 1 and obj["malformed_markers"] == [m.to_json()]
        code = run_verify(store, data)[1]
        assert code == 1, marker
    for answer in ('"The retry limit is 3 per hour." [src:a]', "```\n[src: a]\n```\n", "[[src:a]]", "[source: b]",
                   "The tail is `rom[src:]`.", "Slice with `data[src : dst]`.", "f(x)[src:]"):
        report = verify_citations(store, answer)
        assert report.malformed_markers == (), answer
    # a span ends at its closing bracket, or before another bracket opens: never over a valid
    # marker, and one inside another's span is not reported twice (red team 87, F10)
    answer = '[SRC: see "The retry limit is 3 per hour." [src:a]'
    report = verify_citations(store, answer)
    assert [m.text for m in report.malformed_markers] == ['[SRC: see "The retry limit is 3 per hour." ']
    assert [c.grade for c in report.citations] == ["exact"]
    report = verify_citations(store, '"The retry limit is 3 per hour." [SRC:[SRC:b]]')
    assert [m.text for m in report.malformed_markers] == ["[SRC:", "[SRC:b]"]
    # inside an inline code span a near-marker is code (red team 88, F09)
    for answer in ("Index with `data[src: n]` here.", "Run `x = m[SRC: 4]` [src:a]"):
        assert verify_citations(store, answer).malformed_markers == (), answer
    assert len(verify_citations(store, "`a` then [src: a]").malformed_markers) == 1


def test_near_markers_that_name_a_stored_source_fail_the_report(store):
    """A parenthesis (``(src:a)``) or the word "source" (``[source: a]``, ``[Sources: b, a]``)
    makes a malformed marker when a name it holds cites a stored source: verify passed the
    drifted quotation before it with no citation at all (red team 87, F05). The same forms
    citing what is not stored (a web page, a census) are how answers cite the world, and pass;
    a link's text is not a marker. The ``src`` forms fail whatever they name."""
    store.put("tool:a", "The retry limit is 3 per hour.")
    drifted = '"The retry limit is 9 per hour." {}'
    for marker in ("(src:a)", "(src: a)", "(Source: a)", "[source: a]", "[Source:a]", "[Sources: b, a]", "[sources: a; b]",
                   "[source\u202f: a]", "\u3010source: a\u3011", "[^src:a]", "[src=a]", "[src\u2236a]", "[src\u3000:a]",
                   "\u3014src:a\u3015", "[^src:nope]", "[src=nope]"):
        report = verify_citations(store, drifted.format(marker))
        assert not report.ok and [m.text for m in report.malformed_markers] == [marker], marker
        assert run_verify(store, drifted.format(marker).encode())[1] == 1, marker
    for marker in ("(src: nope)", "[Source: https://example.com/limits]", "(source: census 2020)", "[Sources: b, c]",
                   "[Source: a](https://example.com)", "copy(src: a)", "(src: a", "{src:a}", "Source: a"):
        report = verify_citations(store, drifted.format(marker))
        assert report.ok and report.malformed_markers == (), marker
    # parse has no store: it reports the src forms only (red team 87, F14)
    answer = '"x" [src: a] and (src:a) and [source: a]'
    assert [m.text for m in find_malformed_markers(answer)] == ["[src: a]"]
    assert [m.text for m in find_malformed_markers(answer, store)] == ["[src: a]", "(src:a)", "[source: a]"]
    assert find_malformed_markers(answer, store) == verify_citations(store, answer).malformed_markers


def test_a_group_past_code_spans_never_claims_a_quotation_before_them(store):
    """Code spans before a group are not read past (red team 88, F06; red team 87, F07): a
    drifted quotation before them fails as ``unreadable`` (it passed when a term the source
    holds, or a string in the code, was claimed instead), and a string inside the code is code,
    not a quotation (its check against the source was a false alarm)."""
    store.put("tool:a", "The retry limit is 3 per hour. Set retries to 3 in the config.")
    drifted = (
        'The "retry limit": `The retry limit is 9 per hour`, the docs say [src:a].',
        'The docs say "The retry limit is 9 per hour". Set `retries="3"` in the config [src:a].',
    )
    for answer in drifted:
        report = verify_citations(store, answer)
        assert not report.ok and [c.quotation.form for c in report.citations] == ["unreadable"], answer
    honest = (
        'Call `client.fetch("users")`; the retry limit is 3 per hour [src:a].',
        'Run `app --mode="safe"` first. Retries are limited to 3 per hour [src:a].',
    )
    for answer in honest:
        report = verify_citations(store, answer)
        assert report.ok and not report.citations and [m.name for m in report.bare_markers] == ["a"], answer
    # with no code span between, the quotation is read back to as before
    assert not verify_citations(store, 'The docs say "The retry limit is 9 per hour", see [src:a].').ok
    assert verify_citations(store, 'The docs say "The retry limit is 3 per hour", see [src:a].').ok


def test_markers_swallowed_by_a_fence_never_closed_fail_the_report(store):
    """A fence that is never closed makes the rest of the answer code, every later quotation and
    marker with it: those markers are reported as malformed, or a report of no citation would
    pass however drifted the quotations were (red team 88, F10)."""
    store.put("tool:a", "The retry limit is 3 per hour.")
    answer = 'Run:\n```\npip install x\n\nThe docs say "The retry limit is 9 per hour" [src:a].'
    report = verify_citations(store, answer)
    assert not report.ok and not report.citations
    assert [(m.text, m.start) for m in report.malformed_markers] == [("[src:a]", answer.encode().find(b"[src:a]"))]
    closed = answer.replace("pip install x\n", "pip install x\n```\n")
    report = verify_citations(store, closed)
    assert report.malformed_markers == () and [c.grade for c in report.citations] == ["not_found"]
    honest = 'The docs say "The retry limit is 3 per hour" [src:a].\n```\ncode\n```'
    assert verify_citations(store, honest).ok
    assert verify_citations(store, "```\n```").ok
    # a group carrying two quotations gives its marker two rows: the swallowed marker still counts
    both = '"The retry" and "limit" [src:a]\n```\n"x" [src:a]'
    assert [m.text for m in verify_citations(store, both).malformed_markers] == ["[src:a]"]
    assert verify_citations(store, '"The retry limit is 3 per hour." [src:a]').ok


def test_lazy_lines_of_a_blockquote_are_quoted(store):
    """A line without ``>`` after a ``>`` line of its paragraph is the blockquote's
    (CommonMark laziness): a group ending it, or standing alone below it, checks the whole
    run, the lazy lines included (red team 84, F07: the group was a bare marker, which
    passes, or the run stopped at the lazy line and the lines above it went unchecked)."""
    store.put("tool:lines", "retry limit reached\nafter 3 attempts\nin a row\n")
    store.put("tool:crlf", "retry limit reached\r\nafter 3 attempts\r\nin a row\r\n")
    honest = (
        ("> retry limit reached\nafter 3 attempts [src:lines]\n", "lines"),
        ("> > retry limit reached\nafter 3 attempts [src:lines]\n", "lines"),
        (">> retry limit reached\nafter 3 attempts\n>> in a row [src:lines]\n", "lines"),
        ("> retry limit reached\nafter 3 attempts\n[src:lines]\n", "lines"),
        ("Prose first.\n> retry limit reached\nafter 3 attempts [src:lines]\n", "lines"),
        ("> retry limit reached\r\nafter 3 attempts\r\n> in a row [src:crlf]\r\n", "crlf"),
        ("> > retry limit reached\r\n> > after 3 attempts\r\nin a row [src:crlf]\r\n", "crlf"),
    )
    for answer, name in honest:
        report = verify_citations(store, answer)
        assert report.ok and [c.grade for c in report.citations] == ["exact"], answer
        cited = report.citations[0].to_json()
        assert cited["handle"] == f"tool:{name}" and ("\r\n" in cited["quote"]) == (name == "crlf"), answer
    drifted = (
        "> retry limit reached\nafter 5 attempts [src:lines]\n",
        "> > retry limit reached\nafter 5 attempts [src:lines]\n",
        "> retry limit reached\nafter 5 attempts\n> in a row [src:lines]\n",
        "> retry limit reached\nafter 5 attempts\n[src:lines]\n",
        "> retry limit reached\r\nafter 5 attempts\r\n> in a row [src:crlf]\r\n",
        # (a mail quoting a mail: the inner `> ` is quoted, and the source has none)
        "> retry limit reached\n> > after 3 attempts\nin a row [src:lines]\n",
    )
    for answer in drifted:
        report = verify_citations(store, answer)
        assert not report.ok and [c.grade for c in report.citations] == ["not_found"], answer
        assert report.totals()["bare_markers"] == 0, answer
    # a blank line ends the paragraph: the marker below it is prose, as before
    report = verify_citations(store, "> retry limit reached\n\nafter 5 attempts [src:lines]\n")
    assert not report.citations and report.totals()["bare_markers"] == 1


def test_diagnose_off_keeps_grades(store):
    a = verify_citations(store, ANSWER)
    b = verify_citations(store, ANSWER, diagnose=False)
    assert [c.grade for c in a.citations] == [c.grade for c in b.citations]
    assert any(ch.diagnostic is not None for c in a.citations for ch in c.checks)
    assert all(ch.diagnostic is None for c in b.citations for ch in c.checks)


@pytest.mark.parametrize(
    "text, error, message",
    [
        (b"ok \xff", InvalidContentError, "byte 0xff at offset 3"),
        ("bad \udc80", InvalidContentError, "lone surrogate U+DC80 at index 4"),
        (12, InvalidArgumentError, "answer must be str or UTF-8 bytes, not int"),
        (None, InvalidArgumentError, "not NoneType"),
    ],
)
def test_bad_answers(store, text, error, message):
    with pytest.raises(error, match=re.escape(message)):
        verify_citations(store, text)


def test_answer_size_limit(store, monkeypatch):
    monkeypatch.setattr(reconstruct, "MAX_ANSWER_BYTES", 100)
    verify_citations(store, "x" * 100)
    with pytest.raises(LimitExceededError, match="101 bytes; the limit is 100"):
        verify_citations(store, "x" * 101)


# ---------------------------------------------------------------------------------- run_verify


def test_run_verify_exit_codes(store):
    good = '"retries: 3" [src:call_1] and "lazy dog" [src:doc_7]'.encode()
    obj, code = run_verify(store, good)
    assert code == 0 and obj["ok"] is True and obj["totals"]["accurate"] == 2
    obj, code = run_verify(store, ANSWER.encode())
    assert code == 1 and obj["ok"] is False
    # a bare marker that names nothing fails too, even when every quote is exact
    _, code = run_verify(store, b'"lazy dog" [src:doc_7] see [src:gone]')
    assert code == 1
    _, code = run_verify(store, b'"lazy dog" [src:doc_7] see [src:doc_7]')
    assert code == 0
    obj, code = run_verify(store, b"no citations at all")
    assert code == 0 and obj["totals"]["presence_rate"] is None


def test_run_verify_unusable_input(store):
    with pytest.raises(InvalidContentError, match="not valid UTF-8: byte 0xc3 at offset 2"):
        run_verify(store, b"ab\xc3(")
    with pytest.raises(InvalidArgumentError, match="answer must be the file's bytes, not str"):
        run_verify(store, "text")


# ---------------------------------------------------------------------------------- no writes, cache


def _disk_state(path: Path) -> tuple:
    tables = {t: raw_query(path, f"SELECT * FROM {t}") for t in ("sources", "content", "audit", "fact_cache")}
    files = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(path.parent.glob(path.name + "*"))}
    return tables, files


def test_checks_never_write_to_the_store(tmp_path):
    path = tmp_path / "store.sqlite3"
    with SourceStore(path) as s:
        s.put("tool:call_1", CONFIG)
        s.put("doc:doc_7", DOC)
        s.append_audit({"event": "setup"})
    before = _disk_state(path)
    with SourceStore(path) as s:
        verify_quote(s, "tool:call_1", "retries: 3")
        verify_quote(s, "doc:doc_7", "It was the best of times, it was the worst of times.")
        verify_quote(s, "tool:call_1", "config retries: 3")  # extracts facts: no cached tables written
        verify_quote(s, "tool:none", "x")
        verify_citations(s, ANSWER).to_json()
        run_verify(s, ANSWER.encode())
        with pytest.raises(InvalidArgumentError):
            verify_quote(s, "doc:doc_7", "")
    assert _disk_state(path) == before


def test_cache_serves_sources_and_markers_without_the_store(store, monkeypatch):
    cache = SourceCache(store)
    first = verify_citations(store, ANSWER, cache=cache).to_json()
    assert len(cache) >= 3

    def refuse(*args, **kwargs):
        raise AssertionError("the store was read although the cache holds everything")

    # everything the answer names is cached, except the markers that name nothing
    monkeypatch.setattr(store, "get_bytes", refuse)
    monkeypatch.setattr(store, "handles_cited_as", lambda name: [])
    assert verify_citations(store, ANSWER, cache=cache).to_json() == first


def test_cache_belongs_to_one_store(store):
    other = SourceStore(":memory:")
    with pytest.raises(InvalidArgumentError, match="different store"):
        verify_citations(store, ANSWER, cache=SourceCache(other))
    with pytest.raises(InvalidArgumentError, match="cache must be a SourceCache"):
        verify_quote(store, "doc:doc_7", "dog", cache={})
    with pytest.raises(InvalidArgumentError):
        SourceCache(store, max_bytes=-1)
    other.close()


def test_cache_drops_old_sources_beyond_its_budget(store):
    assert len(DOC) > len(CONFIG)
    cache = SourceCache(store, max_bytes=len(LOG) + len(DOC))
    assert cache.preload(["tool:call_1", "tool:call_2", "doc:doc_7", "tool:nope"]) == 3
    assert len(cache) == 2  # call_1, the oldest, was dropped when doc_7 came in
    assert verify_quote(store, "tool:call_1", "retries: 3", cache=cache).ok  # read again


def test_cached_pointer_still_fails_closed_when_re_anchored(store):
    check = verify_quote(store, "doc:doc_7", "lazy dog", cache=SourceCache(store))
    moved = type(check.pointer)(
        handle=check.pointer.handle,
        start=check.pointer.start + 1,
        end=check.pointer.end + 1,
        span_digest=check.pointer.span_digest,
        source_digest=check.pointer.source_digest,
    )
    with pytest.raises(ProvenanceResolutionError) as info:
        store.resolve(moved)
    assert info.value.reason == "span_mismatch"


# ---------------------------------------------------------------------------------- native == reference

ANSWER_PIECES = [
    '"retries: 3"', '"retries: 5"', "\u201clazy dog\u201d", "'the best of times'", "`timeout: 30s`",
    '"It was the best of times, it was"', '"INFO worker started"', " ", "\n", "\n\n", "> ", "```\n",
    "[src:call_1]", "[src:call_2]", "[src:doc_7]", "[src:dup]", "[src:none]", "prose", "(",
    '"', "\u201d", "\n> ",
]  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(ANSWER_PIECES), max_size=30))
def test_reports_agree_with_the_reference_implementations(store, monkeypatch, parts):
    answer = "".join(parts)
    native = verify_citations(store, answer).to_json()
    with monkeypatch.context() as m:
        m.setattr(reconstruct, "_search", _search_py)
        m.setattr(reconstruct, "_citations", _citations_py)
        reference = verify_citations(store, answer).to_json()
    assert native == reference


# ---------------------------------------------------------------------------------- real text

NUMBER = re.compile(r"\d[\d,.]*\d|\d")
# (a "." between digits is no sentence end: "$0.13 per share" is one sentence, whose second
# half alone would cut the number, and quote nothing: red team 33, 06)
SENTENCE = re.compile(r"(?:[^\n.!?]|(?<=\d)\.(?=\d)){20,}[.!?]")


@pytest.fixture(scope="module")
def summedits(testdata):
    rows = [json.loads(line) for line in (testdata / "summedits" / "summedits_evaluation.jsonl").open()]
    docs = {}
    for row in rows:
        docs.setdefault(row["doc"], f"doc:se_{len(docs)}")
    s = SourceStore(":memory:")
    for text, handle in docs.items():
        s.put(handle, text)
    yield rows, docs, s
    s.close()


def test_verbatim_sentences_of_real_documents_are_exact(summedits):
    rows, docs, s = summedits
    cache = SourceCache(s)
    checked = 0
    for text, handle in docs.items():
        for m in SENTENCE.finditer(text):
            sentence = m.group().strip()
            check = verify_quote(s, handle, sentence, cache=cache)
            assert check.ok, (handle, sentence)
            assert s.resolve(check.pointer) == sentence
            assert check.start == text.encode().find(sentence.encode())
            checked += 1
    assert checked > 100


def _whole_in(quote: bytes, source: bytes) -> bool:
    """Does ``quote`` occur in ``source`` without cutting an ASCII word or number in two (a
    digit next to ".,:-/" and another digit is inside a number)?"""
    word = re.compile(rb"[A-Za-z0-9]")
    digit = re.compile(rb"[0-9]")
    at = source.find(quote)
    while at >= 0:
        end = at + len(quote)
        head, tail = quote[:1], quote[-1:]
        cut = (at > 0 and word.match(head) and (word.match(source[at - 1:at]) or (
            digit.match(head) and source[at - 1:at] in (b".", b",", b":", b"-", b"/") and digit.match(source[at - 2:at - 1]))))
        cut = cut or (end < len(source) and word.match(tail) and (word.match(source[end:end + 1]) or (
            digit.match(tail) and source[end:end + 1] in (b".", b",", b":", b"-", b"/") and digit.match(source[end + 1:end + 2]))))
        if not cut:
            return True
        at = source.find(quote, at + 1)
    return False


def _changed_number_quotes(rows, docs):
    """For inconsistent summaries that changed a number: the document sentence holding the
    original number, and the same sentence with the summary's number instead."""
    out = []
    for row in rows:
        if row["label"] != 0:
            continue
        old = set(NUMBER.findall(row["original_summary"]))
        new = set(NUMBER.findall(row["summary"]))
        if not (old - new and new - old):
            continue
        before, after = sorted(old - new)[0], sorted(new - old)[0]
        pattern = re.compile(r"(?<![\d.,])" + re.escape(before) + r"(?!\d)")
        for m in SENTENCE.finditer(row["doc"]):
            hit = pattern.search(m.group())
            if hit:
                sentence = m.group().strip()
                changed = pattern.sub(after, sentence, count=1)
                out.append((docs[row["doc"]], row["doc"], sentence, changed))
                break
    return out


def test_a_changed_number_from_a_real_summary_is_not_found(summedits):
    rows, docs, s = summedits
    cases = _changed_number_quotes(rows, docs)
    assert len(cases) > 20
    for handle, doc, sentence, changed in cases:
        assert verify_quote(s, handle, sentence).ok
        check = verify_quote(s, handle, changed)
        in_doc = _whole_in(changed.encode(), doc.encode())
        assert check.ok == in_doc
        if not in_doc:
            assert check.grade == "not_found"
            # the diagnostic stops where the number was changed, or earlier
            first_diff = next(i for i, (a, b) in enumerate(zip(sentence.encode(), changed.encode())) if a != b)
            assert check.diagnostic.quote_bytes <= first_diff


def test_real_answer_with_drifted_quotes(summedits):
    rows, docs, s = summedits
    cases = _changed_number_quotes(rows, docs)[:12]
    parts = []
    for handle, _, sentence, changed in cases:
        name = handle.split(":", 1)[1]
        parts.append(f"As reported, \u201c{sentence}\u201d [src:{name}]. Later: \u201c{changed}\u201d [src:{name}].")
    report = verify_citations(s, "\n".join(parts))
    t = report.totals()
    assert t["citations"] == 2 * len(cases) and t["presence_rate"] == 1.0
    expected_accurate = len(cases) + sum(_whole_in(changed.encode(), s.get_bytes(h)) for h, _, _, changed in cases)
    assert t["accurate"] == expected_accurate
    for k, c in enumerate(report.citations):
        assert c.accurate == (k % 2 == 0 or _whole_in(c.quotation.text.encode(), s.get_bytes(c.best.handle)))


@pytest.mark.parametrize("other_kind", [True, False])
def test_a_marker_naming_a_damaged_source_fails_closed(tmp_path, other_kind):
    # red team 33, 02: with call_1's bytes gone, [src:call_1] was checked against tool:call_1
    # (the kind-prefix rule: graded exact, exit 0), or read as "not stored" (exit 1); the
    # handle is stored, so reading it must fail closed (exit 2)
    import sqlite3
    import subprocess
    import sys

    path = tmp_path / "store.sqlite3"
    store = SourceStore(path)
    store.put("call_1", "the limit is 5 attempts")
    if other_kind:
        store.put("tool:call_1", "the limit is 9 attempts")
    store.close()
    con = sqlite3.connect(path)
    digest = con.execute("SELECT digest FROM sources WHERE handle = 'call_1'").fetchone()[0]
    con.execute("DROP TRIGGER content_no_delete")
    con.execute("DELETE FROM content WHERE digest = ?", (digest,))
    con.commit()
    con.close()
    answer = '"the limit is 9 attempts" [src:call_1]\n'
    store = SourceStore(path)
    try:
        with pytest.raises(StoreCorruptionError):
            verify_citations(store, answer)
    finally:
        store.close()
    (tmp_path / "answer.txt").write_text(answer)
    run = subprocess.run([sys.executable, "-m", "provgate", "verify", "--store", str(path), str(tmp_path / "answer.txt")],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 2, run.stdout + run.stderr
    assert json.loads(run.stderr)["error"]["type"] == "StoreCorruptionError"


def test_a_cache_forgets_marker_names_a_later_source_changes():
    # red team 33, 03: a cached [src:call_1] kept citing tool:call_1 after call_1 itself was
    # stored (a fresh check: not_found), and a name made ambiguous by a later source kept its
    # one handle; every call given a cache first asks the store what is new
    store = SourceStore(":memory:")
    store.put("tool:call_1", "retry limit reached after 3 attempts")
    store.put("tool:call_2", "disk full")
    cache = SourceCache(store)
    answer = '"retry limit reached after 3 attempts" [src:call_1] and "disk full" [src:call_2]'
    assert verify_citations(store, answer, cache=cache).ok
    store.put("call_1", "retry limit reached after 5 attempts")  # the exact handle wins
    store.put("doc:call_2", "disk full")  # a second kind: [src:call_2] is ambiguous
    fresh = verify_citations(store, answer).to_json()
    cached = verify_citations(store, answer, cache=cache).to_json()
    assert cached == fresh
    assert [c["grade"] for c in cached["citations"]] != ["exact", "exact"]
    # a name resolved by the cache before any call is vetted from then on too
    other = SourceCache(store)
    assert other.marker_handles("call_3") == ()
    store.put("tool:call_3", "x")
    assert other.marker_handles("call_3") == ("tool:call_3",)  # (names that cite nothing are not kept)
    assert other.marker_handles("call_1") == ("call_1",)
    store.put("tool:call_1b", "y")
    assert verify_citations(store, '"x" [src:call_3]', cache=other).ok


def test_report_json_lists_at_most_limit_entries_of_each_kind(store):
    """``to_json(limit=N)`` lists the first N citations, bare markers, unmarked quotes and
    malformed markers each, and ``omitted`` counts the rest per list (red team 90, F07); the
    totals and ``ok`` are of everything."""
    store.put("tool:a", "The retry limit is 3 per hour.")
    answer = ('"The retry limit" [src:a] "limit is 3" [src:a] [src:a]\n\nSee [src:a].\n\n"x" and "y" here.\n\n'
              "[src: a] [src: b]")
    report = verify_citations(store, answer)
    full = report.to_json()
    assert "omitted" not in full and full == report.to_json(limit=None) == report.to_json(limit=100)
    assert [len(full[k]) for k in ("citations", "bare_markers", "unmarked_quotes", "malformed_markers")] == [3, 1, 2, 2]
    one = report.to_json(limit=1)
    assert one["totals"] == full["totals"] and one["ok"] == full["ok"] is False
    assert one["citations"] == full["citations"][:1] and one["unmarked_quotes"] == full["unmarked_quotes"][:1]
    assert one["bare_markers"] == full["bare_markers"] and one["malformed_markers"] == full["malformed_markers"][:1]
    assert one["omitted"] == {"citations": 2, "unmarked_quotes": 1, "malformed_markers": 1}
    none = report.to_json(limit=0)
    assert none["citations"] == [] and none["omitted"]["citations"] == 3 and none["omitted"]["bare_markers"] == 1
    for bad in (-1, True, "3", 2.0):
        with pytest.raises(InvalidArgumentError, match="limit"):
            report.to_json(limit=bad)


def _found_only_after_not(check, source: bytes, occurrence: bytes) -> int:
    """Assert ``check`` is not_found with the negation diagnostic naming ``occurrence`` right
    after "not " in ``source``; returns the occurrence's end."""
    assert check.grade == "not_found" and check.diagnostic.kind == DIAGNOSTIC_AFTER_A_NEGATION
    start, end = check.diagnostic.source_start, check.diagnostic.source_end
    assert source[start:end] == occurrence and source[:start].endswith(b"not ")
    return end


def test_a_quote_found_only_after_a_negation_is_not_found(store):
    """A quote whose every whole occurrence follows a negation ("deploy on Friday" of "Please
    do not deploy on Friday.") says what its source denies: ``not_found``, with the diagnostic
    ``occurs_only_after_a_negation``, as the gate's I1 refuses it (red team 89, F07: graded
    exact). An occurrence elsewhere that stands is found. A code span names a thing and is
    not held to it."""
    store.put("user:u1", "Please do not deploy on Friday. Staging: deploy on Monday. We do not `rollback`.")
    source = store.get("user:u1").encode()
    check = verify_quote(store, "user:u1", "deploy on Friday")
    end = _found_only_after_not(check, source, b"deploy on Friday")
    assert verify_quote(store, "user:u1", "do not deploy on Friday").grade == "exact"
    found = verify_quote(store, "user:u1", "deploy on")  # (its first occurrence follows "not"; the second stands)
    assert found.grade == "exact" and source[found.start : found.end] == b"deploy on" and found.start > end
    report = verify_citations(store, 'The user said "deploy on Friday" [src:u1]; we won\'t `rollback` [src:u1].')
    assert [(c.quotation.form, c.grade) for c in report.citations] == [("double", "not_found"), ("backtick", "exact")]
    assert not report.ok


@pytest.mark.parametrize("source", [
    "Please do **not** deploy to prod on Friday.",
    "Please do _not_ deploy to prod on Friday.",
    "Please *never* deploy to prod on Friday.",
    "Please do not (ever) deploy to prod on Friday.",
    "Please do not - deploy to prod on Friday.",
    "Please do not \u2014 deploy to prod\non Friday.",  # (and a whitespace match)
])
def test_a_quote_after_an_emphasised_or_set_off_negation_is_not_found(store, source):
    """Emphasis around the negation, an aside or a dash between it and the quote hid it from
    the look-back, and verify graded the quote exact (red team 94, F08): ``not_found`` with
    the negation diagnostic now, as the gate's I1 refuses it."""
    store.put("user:u1", source)
    data = store.get("user:u1").encode()
    check = verify_quote(store, "user:u1", "deploy to prod on Friday")
    assert check.grade == "not_found" and check.diagnostic.kind == DIAGNOSTIC_AFTER_A_NEGATION
    assert data[check.diagnostic.source_start:].startswith(b"deploy to prod")
    assert verify_quote(store, "user:u1", source.split("Please ")[1].rstrip(".")).grade in ("exact", "whitespace")


@pytest.mark.parametrize("source", [
    "**Note:** deploy to prod on Friday.",
    "Not now. (See below) deploy to prod on Friday.",
    "Options:\n- no\n- deploy to prod on Friday",
    "Options:\n* no\n* deploy to prod on Friday",
])
def test_a_quote_after_emphasis_or_an_aside_but_no_negation_is_found(store, source):
    # what the look-back now skips does not make a negation of what comes before it: a bold
    # label, an aside, a list item's bullet after a "no" item (red team 94, F08)
    store.put("user:u1", source)
    assert verify_quote(store, "user:u1", "deploy to prod on Friday").grade == "exact"


def test_a_whitespace_match_after_a_negation_is_not_found(store):
    """A source that wraps a line inside the quoted words is matched only after whitespace
    normalisation, and that match was graded ``whitespace`` right after "not": the negation
    rule held only for exact occurrences. A whitespace match after a negation is ``not_found``
    now, with the negation named in the diagnostic and the sentence; a later one that stands is
    still graded, and a code span is not held to the rule."""
    store.put("user:u1", "Please do not deploy to prod\non Friday. Then deploy to prod\non Monday; never run\nmigrate.")
    source = store.get("user:u1").encode()
    check = verify_quote(store, "user:u1", "deploy to prod on Friday")
    end = _found_only_after_not(check, source, b"deploy to prod\non Friday")
    assert "only right after a negation" in check.describe()
    later = verify_quote(store, "user:u1", "deploy to prod on")  # (the first follows "not", the second stands)
    assert later.grade == "whitespace" and later.start > end
    report = verify_citations(store, 'Never "deploy to prod on Friday" [src:u1]; `run migrate` [src:u1] '
                                     'is named, not "run migrate" [src:u1].')
    assert [(c.quotation.form, c.grade) for c in report.citations] == [
        ("double", "not_found"), ("backtick", "whitespace"), ("double", "not_found")]
