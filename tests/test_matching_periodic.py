"""A needle's occurrences at no token boundary, read in time linear in the text (red team 116,
F10): a periodic needle (``1.1.1…``) occurs at every period of a periodic text, and a search
from each occurrence's next byte was quadratic (200 KB of summary took 96 s, native). Both
implementations; the reference's searches are counted."""

from __future__ import annotations

import random

import pytest
from conftest import IMPLEMENTATIONS, load_implementation
from hypothesis import given, settings
from hypothesis import strategies as st

from provgate import _matching_py as reference
from provgate._matching_py import NUMBER, QUOTE, RELAXED


def _load(which: str):
    return load_implementation("matching", "_matching_py", which)


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    return _load(request.param)


@pytest.mark.parametrize("needle, period", [
    (b"a", 1), (b"aaaa", 1), (b"abab", 2), (b"ababa", 2), (b"abc", 3), (b"1.1.1", 2), (b"abaab", 3),
    ("请a.请a.".encode(), 5),
])
def test_smallest_period(needle, period):
    assert reference.smallest_period(needle) == period


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=1, max_size=12).filter(bool), st.binary(max_size=60), st.integers(1, 6))
def test_next_occurrence_walks_every_occurrence_in_order(piece, filler, repeats):
    needle = piece * repeats
    hay = filler + piece * (repeats * 3) + filler + needle
    period = reference.smallest_period(needle)
    expected, at = [], hay.find(needle)
    while at >= 0:
        expected.append(at)
        at = hay.find(needle, at + 1)
    walked, at = [], hay.find(needle)
    while at >= 0:
        walked.append(at)
        at = reference.next_occurrence(hay, needle, at, period)
    assert walked == expected


def test_a_periodic_needle_is_searched_for_a_bounded_number_of_times(monkeypatch):
    calls = []

    class Counted(bytes):
        def find(self, *args):
            calls.append(args)
            return bytes.find(self, *args)

    n = 20_000
    hay = Counted(b"1." * n + b"1 ms")
    assert not reference.occurs_in(hay, b"1." * (n // 2) + b"1", NUMBER)
    # (the first few searched for, then the run read off the period, one search past its end)
    assert len(calls) <= reference.PERIOD_AFTER_MISSES + 3


@pytest.mark.parametrize("mode", [RELAXED, NUMBER, QUOTE])
def test_a_periodic_needle_found_at_a_boundary_past_a_long_run(impl, mode):
    needle = b"1.1.1"
    run = b"x1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1"
    assert impl.occurs_at_boundaries([needle], [run + b" and 1.1.1 ok"], modes=[mode]).tolist() == [True]
    assert impl.occurs_at_boundaries([needle], [run + b" and 1.1.1.2"], modes=[mode]).tolist() == [False]


@pytest.mark.skipif("native" not in IMPLEMENTATIONS, reason="no native module built")
def test_native_agrees_with_the_reference_on_periodic_texts():
    native = _load("native")
    rng = random.Random(116)
    pieces = [b"1.", b"1", b".", b"a", b"ab", b" ", b"-", b"\xe8\xaf\xb7a.", b"x", b"(", b")"]
    for _ in range(3000):
        hay = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 60)))
        start = rng.randint(0, max(len(hay) - 1, 0))
        needle = hay[start:start + rng.randint(1, 20)] or b"1"
        mode = rng.choice([RELAXED, NUMBER, QUOTE])
        assert (native.occurs_at_boundaries([needle], [hay], modes=[mode]).tolist()
                == reference.occurs_at_boundaries([needle], [hay], modes=[mode]).tolist()), (needle, hay, mode)
