"""occurs_at_boundaries' 4-gram prefilter (ext/_boundaries.pxd) with bitmaps sized with their
haystack: native against the reference (which has no prefilter) and against the expected
answer, at haystack sizes on each side of the thresholds.

The prefilter is made on a haystack's GRAM_BUILD_AT-th (8th) search of a needle of 4 bytes or
more (on its first when the call's groups give it 8 such needles or more), for haystacks of GRAM_MIN_HAYSTACK (1,024) bytes or more; its bitmap has 8 to 16 bits a
haystack byte, at least 65,536 bits (so haystacks above 8,192 bytes get a bigger one), and the
bitmaps of one call above that size share a 64 MiB budget. It must stay exact: a haystack is
skipped only when a 4-gram of the needle truly is not in it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import IMPLEMENTATIONS, load_implementation
from test_matching import draw_needles


def _load(which: str):
    return load_implementation("matching", "_matching_py", which)


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    return _load(request.param)


# needles no haystack below holds, searched first so that the bitmap is made before the
# needles of each case are searched
_WARM_UP = [b"zq%02dzq" % k for k in range(8)]


def _haystack(size: int) -> bytes:
    """``size`` bytes of numbered words, opened by "first-word" and closed by "last word"."""
    head, tail = b"first-word ", b" last word"
    room = size - len(head) - len(tail)
    body = bytearray()
    k = 0
    while len(body) + 9 <= room:
        body += b"w%07d " % k
        k += 1
    body = bytes(body).replace(b" ", b"x", 1).ljust(room, b" ")  # (no space after head; whole words)
    out = head + body + tail
    assert len(out) == size
    return out


def _cases(haystack: bytes) -> list[tuple[bytes, bool]]:
    return [
        (b"first-word", True), (b"first", False),  # (first: then "-word", a joiner then a word byte)
        (b"last word", True), (b"word", True), (b"last wor", False),
        (b"w0000003", True), (b"w0000003 w0000004", True), (b"w0000003 w0000005", False),
        (b"0000003", False), (b"000000", False),  # present only inside a word
        (b"w9999999", False), (b"absent phrase", False), (b"zebra1 apple", False),
        (b"w", False), (b"la", False), (b"wor", False), (b"x", False), (b"q", False),  # 1-3 bytes
        (b"last", True), (b"lastx", False),
        (haystack[haystack.index(b" ", len(haystack) - 200) + 1:], True),  # (whole words: its tail, its head)
        (haystack[:haystack.index(b" ", 300)], True), (haystack[:haystack.index(b" ", 300) - 1], False),
    ]


# 1,023 and 1,024: GRAM_MIN_HAYSTACK; 8,192: the largest haystack with the smallest bitmap;
# 8,193: the smallest with a bigger one; 16,384 and 16,385: 2**17 and 2**18 bits
@pytest.mark.parametrize("size", [1023, 1024, 8191, 8192, 8193, 16384, 16385, 100_000, 2_100_000])
def test_occurs_at_boundaries_at_each_bitmap_size(impl, size):
    haystack = _haystack(size)
    cases = _cases(haystack)
    needles = [*_WARM_UP, *(n for n, _ in cases)] * 2
    expected = ([False] * len(_WARM_UP) + [hit for _, hit in cases]) * 2
    assert impl.occurs_at_boundaries(needles, [haystack]).tolist() == expected


def test_occurs_at_boundaries_with_bitmaps_past_the_budget(impl):
    # five haystacks of 9 MB want 16 MiB of bitmap each, 80 MiB, past the call's 64 MiB: the
    # fifth gets the smallest size; every answer stays the same
    common = _haystack(9_000_000)[:-10]
    haystacks = [common + b" hay%d end." % j for j in range(5)]
    needles, group, expected = [], [], []
    for j in range(5):
        for needle, hit in [*((w, False) for w in _WARM_UP), (b"hay%d end" % j, True), (b"hay%d" % ((j + 1) % 5), False),
                            (b"w0000042 w0000043", True), (b"w0000043 w0000042", False), (b"x", False)]:
            needles.append(needle)
            group.append(j)
            expected.append(hit)
    found = impl.occurs_at_boundaries(needles, haystacks, groups=[[j] for j in range(5)],
                                      needle_group=np.array(group, dtype=np.int64))
    assert found.tolist() == expected


_WORDS = st.sampled_from([b"alpha", b"beta", b"x", b"5", b"-5", b"10%", b"a.b", b"2026-12-01", "\u00e9t\u00e9".encode(),
                          b"retries=3", b"\"q\"", b" ", b"\n", b".", b"not", b"No", b"don't", b"knot", b"NEVER"])


@settings(max_examples=60, deadline=None)
@given(pieces=st.lists(st.tuples(st.lists(_WORDS, min_size=200, max_size=400).map(b" ".join), st.integers(3, 12),
                                 st.sampled_from([b" ", b"\n", b". ", b"-"])), min_size=1, max_size=2),
       data=st.data())
def test_occurs_at_boundaries_in_haystacks_with_sized_bitmaps_equals_the_reference(pieces, data):
    # haystacks of ~3-50 KB (a drawn text repeated, joined by a drawn separator): bitmaps of
    # 2**16 to 2**19 bits
    haystacks = [separator.join([text] * times) for text, times, separator in pieces]
    needles = [*_WARM_UP, *draw_needles(data, haystacks, _WORDS)]
    modes = [data.draw(st.integers(0, 4)) for _ in needles]
    expected = _load("reference").occurs_at_boundaries(needles, haystacks, modes=modes).tolist()
    for which in IMPLEMENTATIONS:
        assert _load(which).occurs_at_boundaries(needles, haystacks, modes=modes).tolist() == expected


def test_occurs_at_boundaries_makes_a_bitmap_first_where_a_haystack_is_searched_eight_times(impl):
    # a haystack that eight needles of 4 bytes or more will search (across the groups it is a
    # member of) has its bitmap made on its first search, not its eighth: every needle, the
    # first ones too, is then filtered, and every answer stays the same. Haystack 0 is in both
    # groups (4 + 4 needles: made first), haystack 1 in one (4: made never), haystack 2 gets 7
    # long needles and two short ones (never)
    haystacks = [_haystack(20_000), _haystack(20_000).replace(b"first-word", b"first word"), _haystack(5_000)]
    cases = [(b"first-word", True, 0), (b"w0000003 w0000004", True, 0), (b"w9999999", False, 0), (b"last", True, 0),
             (b"first word", True, 1), (b"w0000003 w0000005", False, 1), (b"0000003", False, 1), (b"lastx", False, 1),
             *((b"w000000%d" % k, True, 2) for k in range(2, 9)), (b"wor", False, 2), (b"w", False, 2)]
    groups = [[0], [0, 1], [2]]
    needles = [needle for needle, _, _ in cases]
    expected = [hit for _, hit, _ in cases]
    found = impl.occurs_at_boundaries(needles, haystacks, groups=groups,
                                      needle_group=np.array([g for _, _, g in cases], dtype=np.int64))
    assert found.tolist() == expected
