"""Matching source facts at token boundaries (Aho-Corasick), native and reference.

Results are checked against a brute-force oracle written here from the rule alone (every
occurrence found with bytes.find, kept by the boundary rule, sorted by end then start), and
native against reference on generated text with non-ASCII and astral characters, NUL,
overlapping facts and facts made of several tokens.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples
from conftest import IMPLEMENTATIONS, NO_EXTENSIONS, load_implementation
from provgate import _matching
from provgate.errors import InvalidArgumentError, InvalidContentError, InvalidHandleError, LimitExceededError
from provgate.matching import GroundedMatches, SourceMatcher

ROOT = Path(__file__).resolve().parent.parent

WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") | frozenset(range(0x80, 0x100))
JOIN = frozenset(b".,-:/@")


def _load(which: str):
    return load_implementation("matching", "_matching_py", which)


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    return _load(request.param)


def _only_with_native(test):
    return test if "native" in IMPLEMENTATIONS else None


def find(matcher: SourceMatcher, text, impl) -> GroundedMatches:
    return matcher._find(text, impl.collect)


def oracle(patterns: list[str], text: str) -> list[tuple[int, int, str]]:
    """Every occurrence at token boundaries, from the rule as written in the issue."""
    data = text.encode("utf-8")
    n = len(data)
    out = []
    for p in dict.fromkeys(patterns):
        needle = p.encode("utf-8")
        if not needle:
            continue
        i = data.find(needle)
        while i >= 0:
            s, e = i, i + len(needle)
            left = s == 0 or (data[s - 1] not in WORD and not (data[s - 1] in JOIN and s >= 2 and data[s - 2] in WORD))
            right = e == n or (data[e] not in WORD and not (data[e] in JOIN and e + 1 < n and data[e + 1] in WORD))
            if left and right:
                out.append((s, e, p))
            i = data.find(needle, i + 1)
    return sorted(out, key=lambda m: (m[1], m[0]))


def triples(matches: GroundedMatches) -> list[tuple[int, int, str]]:
    return [(s, e, t) for s, e, t, _ in matches.to_list()]


# ---- the boundary rule, by the examples -------------------------------------------------


@pytest.mark.parametrize("text", ["30", "v3", "1.3", "3.5", "a3", "3a", "_3", "é3", "3é", "x.3", "3/x", "3-x", "x@3"])
def test_three_is_not_a_token_here(impl, text):
    assert len(find(SourceMatcher({"tool:c1": ["3"]}), text, impl)) == 0


@pytest.mark.parametrize(
    "text, start",
    [("retries=3", 8), ("(3)", 1), ("is 3.", 3), ("-3", 1), ("3", 0), ("x 3", 2), ("3\n", 0),
     ("a\x003", 2), ("[3]", 1), ("3.", 0), ("3, 4", 0), ("'3'", 1), ("..3", 2), ("é 3", 3)],
)
def test_three_is_a_token_here(impl, text, start):
    m = find(SourceMatcher({"tool:c1": ["3"]}), text, impl)
    assert (m.start.tolist(), m.end.tolist()) == ([start], [start + 1])


def test_multi_token_facts_and_overlaps(impl):
    matcher = SourceMatcher({"tool:a": ["retries", "retries=3", "3", "MAX_RETRIES = 3", "src/app/x.py:12", "x.py"]})
    text = "MAX_RETRIES = 3; retries=3 at src/app/x.py:12 and x.py"
    got = triples(find(matcher, text, impl))
    assert got == oracle(list(matcher.patterns), text)
    assert ("retries" in {t for _, _, t in got}) and ("retries=3" in {t for _, _, t in got})
    # x.py inside src/app/x.py:12 is glued to its neighbours by joiners: not a token there
    assert [t for _, _, t in got].count("x.py") == 1


def test_facts_at_both_ends_of_the_text(impl):
    matcher = SourceMatcher({"doc:d": ["alpha", "omega", "alpha beta omega"]})
    text = "alpha beta omega"
    got = triples(find(matcher, text, impl))
    assert got == [(0, 5, "alpha"), (0, 16, "alpha beta omega"), (11, 16, "omega")]


def test_offsets_are_utf8_bytes(impl):
    matcher = SourceMatcher({"doc:d": ["café", "😀", "日本"]})
    text = "au café 😀 日本"
    m = find(matcher, text, impl)
    data = text.encode("utf-8")
    for s, e, t, _ in m.to_list():
        assert data[s:e] == t.encode("utf-8")
    assert [t for _, _, t, _ in m.to_list()] == ["café", "😀", "日本"]


def test_order_is_end_then_start(impl):
    matcher = SourceMatcher({"tool:a": ["a b c", "b c", "c", "a", "a b"]})
    m = find(matcher, "a b c", impl)
    pairs = list(zip(m.end.tolist(), m.start.tolist()))
    assert pairs == sorted(pairs)
    assert len(pairs) == 5


# ---- sources ---------------------------------------------------------------------------------


def test_sources_of_each_match():
    matcher = SourceMatcher({"tool:call_1": ["retries=3", "timeout=30s"], "doc:doc_2": ["retries=3", "x"],
                             "user:u1": []})
    m = matcher.find_grounded("retries=3 timeout=30s x")
    rows = m.to_list()
    assert [(t, src) for _, _, t, src in rows] == [
        ("retries=3", ("tool:call_1", "doc:doc_2")), ("timeout=30s", ("tool:call_1",)), ("x", ("doc:doc_2",))]
    assert m.sources(0) == ("tool:call_1", "doc:doc_2")
    assert m.source_ids(1).tolist() == [0]
    assert m.text(2) == "x"
    assert m.from_source("doc:doc_2").tolist() == [True, False, True]
    assert m.from_source("user:u1").tolist() == [False, False, False]
    with pytest.raises(KeyError):
        m.from_source("tool:nope")
    assert matcher.sources == ("tool:call_1", "doc:doc_2", "user:u1")
    assert len(matcher) == 3


def test_repeats_and_empty_facts():
    matcher = SourceMatcher({"tool:a": ["x", "x", "", "y"], "tool:b": ["x", ""]})
    assert matcher.patterns == ("x", "y")
    assert matcher.sources_of(0) == ("tool:a", "tool:b")
    assert matcher.source_ptr.tolist() == [0, 2, 3]
    assert len(matcher.find_grounded("")) == 0


def test_empty_vocabulary(impl):
    matcher = SourceMatcher({})
    assert len(find(matcher, "anything 3", impl)) == 0
    assert len(find(SourceMatcher({"tool:a": [""]}), "anything", impl)) == 0


def test_text_forms_agree():
    matcher = SourceMatcher({"doc:d": ["naïve", "3"]})
    text = "a naïve 3"
    expected = triples(matcher.find_grounded(text))
    for form in (text.encode(), bytearray(text.encode()), memoryview(text.encode())):
        assert triples(matcher.find_grounded(form)) == expected
    assert len(expected) == 2


def test_from_fact_tables():
    class Span:
        def __init__(self, text):
            self.text = text

    class Table:
        def __init__(self, texts):
            self.texts = texts

        def __len__(self):
            return len(self.texts)

        def span(self, i):
            return Span(self.texts[i])

    matcher = SourceMatcher.from_fact_tables({"tool:a": Table(["retries=3", "x.py"]), "doc:b": Table([])})
    assert matcher.patterns == ("retries=3", "x.py")
    assert matcher.find_grounded("see x.py").to_list() == [(4, 8, "x.py", ("tool:a",))]
    with pytest.raises(TypeError):
        SourceMatcher.from_fact_tables([("tool:a", Table([]))])


# ---- generated text: native == reference == oracle --------------------------------------------

ALPHABET = st.sampled_from(list("ab3_Z9 .,-:/@=()\n\x00") + ["é", "日", "😀", "\u00a0"])
TEXTS = st.text(alphabet=ALPHABET, max_size=60)


@st.composite
def vocab_and_text(draw):
    text = draw(TEXTS)
    patterns = draw(st.lists(TEXTS.filter(lambda p: 0 < len(p) <= 6), max_size=6))
    # substrings of the text, so that matches (and near misses) are frequent
    for _ in range(draw(st.integers(0, 6))):
        if text:
            i = draw(st.integers(0, len(text) - 1))
            j = draw(st.integers(i + 1, min(len(text), i + 8)))
            patterns.append(text[i:j])
    # facts never contain NUL (the matcher refuses them); the text may
    return [p for p in patterns if "\x00" not in p], text


GEN = settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@GEN
@given(case=vocab_and_text())
def test_matches_equal_the_oracle(impl, case):
    patterns, text = case
    matcher = SourceMatcher({"tool:c": patterns})
    assert triples(find(matcher, text, impl)) == oracle(patterns, text)


@_only_with_native
@settings(max_examples=examples(600), deadline=None)
@given(case=vocab_and_text())
def test_native_equals_reference(case):
    patterns, text = case
    matcher = SourceMatcher({"tool:c": patterns[::2], "doc:d": patterns[1::2]})
    native, reference = find(matcher, text, _load("native")), find(matcher, text, _load("reference"))
    for column in ("start", "end", "pattern"):
        assert np.array_equal(getattr(native, column), getattr(reference, column))


def test_corpus_window_native_equals_oracle(impl):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import corpus

    w = corpus.make_window(50_000 if impl.IMPLEMENTATION == "native" else 10_000, seed=3)
    matcher = SourceMatcher(w.facts)
    text = w.data.decode("utf-8")
    got = triples(find(matcher, text, impl))
    assert got == oracle(list(matcher.patterns), text)
    assert len(got) > 100


# ---- limits ----------------------------------------------------------------------------------


def test_pattern_limits():
    with pytest.raises(LimitExceededError, match="max_patterns=2"):
        SourceMatcher({"tool:a": ["x", "y"], "tool:b": ["x", "z"]}, max_patterns=2)
    assert len(SourceMatcher({"tool:a": ["x", "y"], "tool:b": ["x", "y"]}, max_patterns=2)) == 2
    with pytest.raises(LimitExceededError, match="max_pattern_bytes is 4"):
        SourceMatcher({"tool:a": ["ééé"]}, max_pattern_bytes=4)  # 3 characters, 6 bytes
    assert len(SourceMatcher({"tool:a": ["éé"]}, max_pattern_bytes=4)) == 1
    with pytest.raises(LimitExceededError, match="max_total_pattern_bytes=5"):
        SourceMatcher({"tool:a": ["abc", "def"]}, max_total_pattern_bytes=5)


def test_text_limit():
    matcher = SourceMatcher({"tool:a": ["x"]}, max_text_bytes=10)
    assert len(matcher.find_grounded("x" * 3 + " x")) == 1
    with pytest.raises(LimitExceededError, match="max_text_bytes is 10"):
        matcher.find_grounded("é" * 6)  # 6 characters, 12 bytes


def test_match_limit_is_exact(impl):
    matcher = SourceMatcher({"tool:a": ["x"]}, max_matches=3)
    assert len(find(matcher, "x x x", impl)) == 3
    with pytest.raises(LimitExceededError, match="max_matches=3"):
        find(matcher, "x x x x", impl)


def test_pathological_repetition_is_cheap_or_capped(impl):
    ladder = ["a" * k for k in range(1, 41)] + [" ".join("a" * k) for k in range(2, 41)]
    matcher = SourceMatcher({"tool:a": ladder}, max_matches=50_000)
    size = 1_000_000 if impl.IMPLEMENTATION == "native" else 20_000
    # inside one huge token nothing is at a boundary, and no hit is even examined
    assert len(find(matcher, "a" * size, impl)) == 0
    # separate tokens: every rung "a a … a" matches at every word, so the cap stops the search
    with pytest.raises(LimitExceededError):
        find(matcher, "a " * (size // 2), impl)


@pytest.mark.parametrize("name", ["max_patterns", "max_pattern_bytes", "max_total_pattern_bytes",
                                  "max_matches", "max_text_bytes"])
@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "10"])
def test_limits_must_be_positive_ints(name, bad):
    with pytest.raises(ValueError, match=name):
        SourceMatcher({"tool:a": ["x"]}, **{name: bad})


# ---- bad input ---------------------------------------------------------------------------------


def test_bad_vocabularies():
    with pytest.raises(TypeError):
        SourceMatcher([("tool:a", ["x"])])
    with pytest.raises(TypeError):
        SourceMatcher({"tool:a": "retries=3"})  # a str is not a list of facts
    with pytest.raises(TypeError):
        SourceMatcher({"tool:a": 3})
    with pytest.raises(InvalidContentError, match="must be str"):
        SourceMatcher({"tool:a": [b"x"]})
    with pytest.raises(InvalidContentError, match="lone surrogate"):
        SourceMatcher({"tool:a": ["x\ud800"]})
    with pytest.raises(InvalidContentError, match="NUL"):
        SourceMatcher({"tool:a": ["x\x00y"]})
    for handle in ("", 3, "a\x00b", "x\udc00"):
        with pytest.raises(InvalidHandleError):
            SourceMatcher({handle: ["x"]})


@pytest.mark.parametrize("text", [b"\xff abc", b"abc \xc3", b"\xf8", b"\xed\xa0\x80", "x\ud83d y", 3, None, ["x"]])
def test_bad_texts(impl, text):
    matcher = SourceMatcher({"tool:a": ["x"]})
    with pytest.raises(InvalidContentError):
        find(matcher, text, impl)


def test_nul_and_controls_in_text_are_boundaries(impl):
    matcher = SourceMatcher({"tool:a": ["x", "3"]})
    m = find(matcher, "\x00x\x003\x01", impl)
    assert triples(m) == [(1, 2, "x"), (3, 4, "3")]


def test_collect_refuses_foreign_automaton(impl):
    from provgate._matching_py import build_automaton

    automaton, edges = build_automaton([b"x", b"yy"])
    with pytest.raises((ValueError, IndexError)):
        impl.collect(automaton, b"a yy b", np.array([1], dtype=np.int64), edges, 10)  # no length for pattern 1
    with pytest.raises(InvalidContentError):
        impl.collect(automaton, b"x \xf9", np.array([1, 2], dtype=np.int64), edges, 10)


# ---- threads and switch ----------------------------------------------------------------------


def test_one_matcher_from_many_threads():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import corpus

    w = corpus.make_window(20_000, seed=1)
    matcher = SourceMatcher(w.facts)
    texts = [b["text"] for b in w.blocks[:40]]
    expected = [triples(matcher.find_grounded(t)) for t in texts]
    results: dict[int, list] = {}
    errors = []

    def work(k):
        try:
            for _ in range(5):
                for i in range(k % 4, len(texts), 4):
                    got = triples(matcher.find_grounded(texts[i]))
                    assert got == expected[i]
                    results[i] = got
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(results) == len(texts)
    assert sum(len(r) for r in results.values()) > 0


def test_switch_loaded_the_native_build():
    if NO_EXTENSIONS:
        assert _matching.IMPLEMENTATION == "reference"
        assert _matching.collect is _load("reference").collect
        return
    assert _matching.IMPLEMENTATION == "native"
    assert _matching.collect is _load("native").collect


# ---- occurs_at_boundaries: literal search of a block's unmatched facts in its sources --------

OCCURS_CASES = [
    # (needle, haystacks, occurs)
    (b"3", [b"retries=3\n"], True),
    (b"3", [b"retries=30\n"], False),            # inside a longer number
    (b"3", [b"v3 x"], False),                    # inside a word
    (b"3", [b"v3 x", b"a 3"], True),             # the second source has it
    (b"3", [b"1.3"], False),                     # a joiner after a word byte continues the token
    (b"3", [b"3.x"], False),
    (b"3", [b"3. x"], True),                     # a joiner before a non-word byte ends it
    (b"3", [b"x :3"], True),
    (b"3", [b"33 3"], True),                     # the second occurrence counts
    (b'"retries=3"', [b'set"retries=3"now'], True),  # non-word edges bring their own boundary
    (b"=3", [b"retries=3"], True),
    (b"=3", [b"retries=30"], False),             # ... on that side only
    (b"", [b"anything"], False),                 # an empty needle occurs nowhere
    (b"abc", [], False),
    (b"abc", [b"ab", b"c"], False),              # no occurrence straddles two sources
    (b"ab\n", [b"ab", b"\n"], False),
    ("é".encode(), ["caf\u00e9".encode()], False),  # a byte >= 0x80 is a word byte
    ("é".encode(), ["(é)".encode()], True),
    (b"x\x00y", [b"a x\x00y b"], True),           # NUL is an ordinary byte
    (b"long" * 100, [b"long" * 100], True),
    (b"long" * 100, [b"long" * 99], False),      # needle longer than the haystack
]


@pytest.mark.parametrize("needle, haystacks, occurs", OCCURS_CASES)
def test_occurs_at_boundaries_cases(impl, needle, haystacks, occurs):
    out = impl.occurs_at_boundaries([needle], haystacks)
    assert out.dtype == np.bool_ and out.shape == (1,)
    assert bool(out[0]) is occurs


def test_occurs_at_boundaries_batch_and_empty(impl):
    assert impl.occurs_at_boundaries([], [b"x"]).tolist() == []
    assert impl.occurs_at_boundaries((b"a", b"b", b"c"), (b"a b", b"xc")).tolist() == [True, True, False]


@pytest.mark.parametrize("needles, haystacks, message", [
    (b"x", [b"x"], "needles must be a list or tuple of bytes, not bytes"),
    ([b"x"], "x", "haystacks must be a list or tuple of bytes, not str"),
    ([b"x", "y"], [b"x"], r"needles\[1\] must be bytes, not str"),
    ([b"x"], [b"x", bytearray(b"y")], r"haystacks\[1\] must be bytes, not bytearray"),
    ([b"x"], [memoryview(b"x")], r"haystacks\[0\] must be bytes, not memoryview"),
])
def test_occurs_at_boundaries_refuses_wrong_types(impl, needles, haystacks, message):
    with pytest.raises(TypeError, match=message):
        impl.occurs_at_boundaries(needles, haystacks)


_OCCURS_BYTES = st.sampled_from([b"a", b"3", b"_", b".", b"-", b"@", b" ", b"\n", b"=", b'"', "é".encode(), b"\x00"])
_OCCURS_TEXT = st.lists(_OCCURS_BYTES, max_size=30).map(b"".join)


@settings(max_examples=examples(600), deadline=None)
@given(needles=st.lists(st.lists(_OCCURS_BYTES, max_size=4).map(b"".join), max_size=6),
       haystacks=st.lists(_OCCURS_TEXT, max_size=4))
def test_occurs_at_boundaries_every_implementation_equals_the_reference(needles, haystacks):
    expected = _load("reference").occurs_at_boundaries(needles, haystacks).tolist()
    # the spec restated from the matcher's own boundary rule
    ref = _load("reference")
    for n, hit in zip(needles, expected):
        assert hit == any(
            n and h[s:s + len(n)] == n
            and ((n[0] not in ref.WORD_BYTES and n[0] not in ref.JOINERS) or ref.start_ok(h, s))
            and ((n[-1] not in ref.WORD_BYTES and (n[-1] not in ref.JOINERS or n[-1] in b".,"))
                 or ref.end_ok(h, s + len(n)))
            for h in haystacks for s in range(len(h))
        )
    for which in IMPLEMENTATIONS:
        assert _load(which).occurs_at_boundaries(needles, haystacks).tolist() == expected


# A haystack of 1 KiB or more searched by several needles gets a bitmap of its 4-byte substrings
# (ext/_boundaries.pxd), and a needle with a 4-gram it lacks is not searched for: exact only if
# no needle that occurs is ever skipped, at the haystack's first and last bytes included.
_LONG_WORDS = st.sampled_from([b"alpha", b"beta", b"x", b"5", b"-5", b"10%", b"a.b", b"2026-12-01", "\u00e9t\u00e9".encode(),
                               b"retries=3", b"\"q\"", b" ", b"\n", b".", b"not", b"No", b"don't",
                               "won\u2019t".encode(), b"knot", b"NEVER"])


def draw_needles(data, haystacks: list[bytes], words) -> list[bytes]:
    """8-40 needles: slices of the haystacks (a head, a tail, or inside) and runs of ``words``."""
    needles = []
    for _ in range(data.draw(st.integers(8, 40))):
        h = data.draw(st.sampled_from(haystacks))
        if data.draw(st.booleans()):  # a slice of a haystack: its head, its tail, or inside
            a = data.draw(st.sampled_from([0, max(len(h) - 12, 0), data.draw(st.integers(0, len(h)))]))
            needles.append(h[a:a + data.draw(st.integers(0, 12))])
        else:
            needles.append(b" ".join(data.draw(st.lists(words, min_size=1, max_size=4))))
    return needles


@settings(max_examples=300, deadline=None)
@given(haystacks=st.lists(st.lists(_LONG_WORDS, min_size=200, max_size=400).map(b" ".join), min_size=1, max_size=3),
       data=st.data())
def test_occurs_at_boundaries_in_long_haystacks_equals_the_reference(haystacks, data):
    needles = draw_needles(data, haystacks, _LONG_WORDS)
    modes = [data.draw(st.integers(0, 4)) for _ in needles]  # (4: QUOTE, red team 89, F07)
    expected = _load("reference").occurs_at_boundaries(needles, haystacks, modes=modes).tolist()
    for which in IMPLEMENTATIONS:
        assert _load(which).occurs_at_boundaries(needles, haystacks, modes=modes).tolist() == expected


def test_occurs_at_boundaries_past_the_bitmaps_a_call_may_make(impl):
    # a call makes at most 256 bitmaps (2 MiB; review rv21, 03: one per 1 KiB haystack took 8x
    # the haystacks' size): the haystacks searched past that are searched as before
    n = 300
    haystacks = [b" ".join(b"h%04d-w%03d" % (h, w) for w in range(110)) for h in range(n)]
    needles, group, expected = [], [], []
    for h in range(n):
        for w in (0, 50, 109, 7, 8, 9, 10, 11):
            hit = w < 110 and (h + w) % 3 > 0
            needles.append(b"h%04d-w%03d" % (h, w) if hit else b"h%04d-x%03d" % (h, w))
            group.append(h)
            expected.append(hit)
    found = impl.occurs_at_boundaries(needles, haystacks, groups=[[h] for h in range(n)],
                                      needle_group=np.array(group, dtype=np.int64))
    assert found.tolist() == expected


def test_occurs_at_boundaries_many_needles_in_one_long_haystack(impl):
    words = [f"w{i:04d}".encode() for i in range(400)]
    haystack = b" ".join(words)  # 2 KiB, every needle below searched in it
    present = [words[0], words[-1], b" ".join(words[10:13]), words[0] + b" " + words[1], haystack]
    absent = [b"w9999", b"w0001 w0000", b"x" * 50, haystack + b" w0400", b"w000", words[5][:4]]
    found = impl.occurs_at_boundaries([*present, *absent] * 3, [haystack]).tolist()
    assert found == ([True] * len(present) + [False] * len(absent)) * 3


@settings(max_examples=examples(300), deadline=None)
@given(needles=st.lists(st.lists(_OCCURS_BYTES, max_size=4).map(b"".join), max_size=6),
       haystacks=st.lists(_OCCURS_TEXT, max_size=4), data=st.data())
def test_occurs_at_boundaries_grouped_is_the_ungrouped_call_per_group(needles, haystacks, data):
    n_groups = data.draw(st.integers(1, 3))
    groups = [data.draw(st.lists(st.integers(0, len(haystacks) - 1), max_size=3)) if haystacks else []
              for _ in range(n_groups)]
    needle_group = np.array([data.draw(st.integers(0, n_groups - 1)) for _ in needles], dtype=np.int64)
    for which in IMPLEMENTATIONS:
        impl = _load(which)
        out = impl.occurs_at_boundaries(needles, haystacks, groups=groups, needle_group=needle_group).tolist()
        alone = [bool(impl.occurs_at_boundaries([n], [haystacks[m] for m in groups[g]])[0])
                 for n, g in zip(needles, needle_group.tolist())]
        assert out == alone


@pytest.mark.parametrize("groups, needle_group, exc, message", [
    ([[0]], None, TypeError, "groups and needle_group go together"),
    ([[1]], np.zeros(1, dtype=np.int64), InvalidArgumentError, r"groups\[0\]\[0\] = 1 is not an index of haystacks \(there are 1\)"),
    ([[0]], np.array([1]), InvalidArgumentError, r"needle_group\[0\] = 1 is not an index of groups"),
    ([[0]], np.zeros(2, dtype=np.int64), InvalidArgumentError, "one entry per item of needles: 2 for 1"),
])
def test_occurs_at_boundaries_refuses_bad_grouping(impl, groups, needle_group, exc, message):
    with pytest.raises(exc, match=message):
        impl.occurs_at_boundaries([b"x"], [b"x"], groups=groups, needle_group=needle_group)


# -- review 4 (native vs reference): limits changed after __init__, and odd data ------------------


def test_a_negative_max_matches_is_refused_not_overflowed(impl):
    """The native hit buffer grows up to max_matches: a negative one (set on the public
    attribute after __init__ checked it) once made it write past its end (review 4, a01)."""
    automaton, edges = _load("reference").build_automaton([b"x"])
    text = b" ".join([b"x"] * 2000)
    with pytest.raises(ValueError, match="max_matches must be in 0"):
        impl.collect(automaton, text, np.array([1], dtype=np.int64), edges, -1)
    matcher = SourceMatcher({"tool:a": ["x"]})
    matcher.max_matches = -1
    with pytest.raises(ValueError, match="max_matches must be a positive int"):
        find(matcher, text, impl)
    matcher.max_matches = 2**64  # beyond int64: the same as no limit a text can reach (a08)
    assert len(find(matcher, text, impl).start) == 2000


@pytest.mark.parametrize("data", [None, "x", 7, np.frombuffer(b"x y", dtype=np.uint8)])
def test_collect_refuses_what_is_not_bytes_like(impl, data):
    automaton, edges = _load("reference").build_automaton([b"x"])
    with pytest.raises(TypeError, match="data must be bytes-like"):
        impl.collect(automaton, data, np.array([1], dtype=np.int64), edges, 10)


def test_collect_reads_any_bytes_like_as_its_bytes(impl):
    automaton, edges = _load("reference").build_automaton([b"x"])
    lengths = np.array([1], dtype=np.int64)
    want = [a.tolist() for a in impl.collect(automaton, b"x y x", lengths, edges, 10)]
    for data in (bytearray(b"x y x"), memoryview(b"x y x"), memoryview(b"xx  yy  xx")[::2]):
        assert [a.tolist() for a in impl.collect(automaton, data, lengths, edges, 10)] == want


def test_a_byte_swapped_group_index_is_read_as_its_value(impl):
    """Native read a big-endian needle_group as a native one: a needle was searched in a group
    that does not exist (review 4, a04)."""
    with pytest.raises(InvalidArgumentError, match="is not an index of groups"):
        impl.occurs_at_boundaries([b"x"], [b"a", b"x"], groups=[[0], [1]], needle_group=np.array([1]).view(">i8"))
    found = impl.occurs_at_boundaries([b"x"], [b"a", b"x"], groups=[[0], [1]], needle_group=np.array([1]).astype(">i8"))
    assert found.tolist() == [True]


# (needle, haystack, found in RELAXED, TOKEN, NUMBER, URL mode)
MODE_CASES = [
    (b"/etc/passwd", b"reads /srv/app/etc/passwd now", (False, False, False, False)),
    (b"/etc/passwd", b"reads /etc/passwd now", (True, True, True, True)),
    (b".5", b"rate 10.5%", (False, False, False, False)),
    (b"-5", b"GPT-4 and GPT-5.", (False, False, False, False)),
    (b"500", b"fees: -500 EUR", (True, True, False, True)),
    (b"500", b"-500", (True, True, False, True)),
    (b"-500", b"fees: -500 EUR", (True, True, True, True)),
    (b"500", b"fees: 500 EUR", (True, True, True, True)),
    (b"https://x.io/deploy", b"curl https://x.io/deploy?dry_run=true", (True, True, True, False)),
    (b"https://x.io/deploy", b"see https://x.io/deploy#top", (True, True, True, False)),
    (b"https://x.io/deploy", b"see https://x.io/deploy.", (True, True, True, True)),
    (b"(see above)", b"as noted(see above)", (True, False, False, False)),
    # review 5: a number keeps its %, a quote's joiner edge does not bring its own boundary
    (b"10", b"reached 10% of hosts", (True, True, False, True)),
    (b"rm -rf /", b"ran rm -rf /tmp/build/cache", (False, False, False, False)),
    (b"rm -rf /", b"ran rm -rf / by mistake", (True, True, True, True)),
    (b"Building...", b"Building...OK", (True, False, False, False)),  # review 6, g05
    (b"db,", b"host db,replica", (True, False, False, False)),
    # hyphenated IDs and e-mail addresses (grammar, EXTRACTOR_VERSION 2): "-", "." and "@" are
    # joiners, so an ID stands as a whole token only when neither side continues the chain
    (b"eu-west-1", b"zone eu-west-1a is up", (False, False, False, False)),
    (b"eu-west-1", b"zone xeu-west-1 is up", (False, False, False, False)),
    (b"eu-west-1", b"zone us-eu-west-1 is up", (False, False, False, False)),
    (b"eu-west-1", b"zone eu-west-1-b is up", (False, False, False, False)),
    (b"eu-west-1", b"zone eu-west-10", (False, False, False, False)),
    (b"eu-west-1", b"host eu-west-1.example.com", (False, False, False, False)),
    (b"eu-west-1", b"region eu-west-1.", (True, True, True, True)),
    (b"eu-west-1", b"(eu-west-1), then", (True, True, True, True)),
    (b"eu-west-1", b"region=eu-west-1\n", (True, True, True, True)),
    (b"eu-west-1", b"em dash--eu-west-1--here", (True, True, False, True)),  # NUMBER: read as signed
    (b"oncall@acme.io", b"mail team-oncall@acme.io", (False, False, False, False)),
    (b"oncall@acme.io", b"mail a.oncall@acme.io", (False, False, False, False)),
    (b"oncall@acme.io", b"mail oncall@acme.io.uk", (False, False, False, False)),
    (b"oncall@acme.io", b"mail oncall@acme.io.", (True, True, True, True)),
    (b"oncall@acme.io", b"<oncall@acme.io>", (True, True, True, True)),
]


@pytest.mark.parametrize("needle, haystack, expected", MODE_CASES)
def test_literal_occurrence_modes(impl, needle, haystack, expected):
    """A quote brings its own boundaries; any other fact must stand as a token of the source,
    a number with its sign, a URL with its query (review 4, C01 and C02)."""
    found = impl.occurs_at_boundaries([needle] * 4, [haystack], groups=[[0]], needle_group=np.zeros(4, dtype=np.int64),
                                      modes=[0, 1, 2, 3])
    assert tuple(found.tolist()) == expected
    assert impl.occurs_at_boundaries([needle], [haystack]).tolist() == [expected[0]]  # default: relaxed


# (needle, haystack, found in QUOTE mode, found in RELAXED mode): red team 89, F07
QUOTE_CASES = [
    (b"deploy to prod on Friday", b"Please do not deploy to prod on Friday.", False, True),
    (b"deploy to prod", b"Please DO NOT\n  deploy to prod.", False, True),
    (b"retries are attempted", b"No retries are attempted", False, True),
    (b"retry", b"We don't retry. We never retry", False, True),
    (b"retry", "We don\u2019t retry.".encode(), False, True),
    (b"retry", b"They cannot retry, or without retry", False, True),
    (b"retry", b"We don't retry. You retry.", True, True),  # (one occurrence stands)
    (b"deploy to prod", b"do not deploy to prod; then deploy to prod.", True, True),
    (b"deploy", b"knot deploy", True, True),  # (not a word of its own: "knot")
    (b"deploy", b"no-deploy", False, False),  # (a token joined to "no": no occurrence at all)
    (b"deploy", b"3no deploy", True, True),  # (a word byte before "no")
    (b"deploy", b"Notes: deploy", True, True),
    (b"not deploy", b"do not deploy", True, True),  # (the negation quoted with it)
    (b"deploy", "\u00e9no deploy".encode(), True, True),
    (b"deploy", b"isn't deploy ain'T deploy", False, True),
    # red team 94, F08: emphasis, a short aside or a dash between the negation and the quote
    (b"deploy to prod on Friday", b"Please do **not** deploy to prod on Friday.", False, True),
    (b"deploy to prod on Friday", b"Please do _not_ deploy to prod on Friday.", False, True),
    (b"deploy to prod on Friday", b"Please *never* deploy to prod on Friday.", False, True),
    (b"deploy to prod on Friday", b"Please do not (ever) deploy to prod on Friday.", False, True),
    (b"deploy to prod on Friday", b"Please do not - deploy to prod on Friday.", False, True),
    (b"deploy", b"do ~~not~~ deploy", False, True),
    (b"deploy", b"do not [ever] deploy", False, True),
    (b"deploy", b"do NOT -- deploy", False, True),
    (b"deploy", "do not \u2013 deploy".encode(), False, True),  # (en dash)
    (b"deploy", "do not \u2014 deploy".encode(), False, True),  # (em dash)
    (b"deploy", b"don't **deploy**", False, True),  # (the quote's own emphasis)
    (b"deploy", b"do**not** deploy", False, True),  # (emphasis inside a word: * is no word byte)
    (b"deploy", "do**n\u2019t** deploy".encode(), False, True),
    (b"deploy", b"**Do not** (ever, for any reason) - **deploy**", False, True),
    (b"deploy", b"do not\n**deploy**", False, True),  # (wrapped, the emphasis opening the line)
    (b"deploy", b"do not (x) (y) deploy", False, True),  # (two asides)
    # ... and what still stops the look-back: no false refusal of an honest quote
    (b"deploy", b"**Note:** deploy", True, True),
    (b"deploy", b"not. **Note:** deploy", True, True),
    (b"deploy", b"(see below) deploy", True, True),
    (b"deploy", b"Option B (see below) deploy", True, True),
    (b"deploy", b"Options:\n- no\n- deploy", True, True),  # (a list item's dash begins its line)
    (b"deploy", b"Options:\n* no\n  * deploy", True, True),  # (so does its star)
    (b"deploy", "No\n  \u2013 deploy".encode(), True, True),
    (b"deploy", b"not\n***\ndeploy", True, True),  # (a rule)
    (b"deploy", b"snake_no deploy", True, True),  # (no word of its own, past "_")
    (b"deploy", b"x_not_ deploy", True, True),  # (nor past "_" wrapping it)
    (b"deploy", b" **deploy** or not", True, True),  # (the stretch opens the text: nothing before it is read)
    (b"deploy", b"not -deploy", True, True),  # (no blank after the dash: no separator)
    (b"deploy", b"not---deploy ---deploy", True, True),
    (b"deploy", b"not ((ever)) deploy", True, True),  # (no nesting)
    (b"deploy", b"not (see\nabove) deploy", True, True),  # (an aside on one line only)
    (b"deploy", b"not (" + b"e" * 40 + b") deploy", False, True),  # (an aside of 40 bytes...
    (b"deploy", b"not (" + b"e" * 41 + b") deploy", True, True),  # ... not of 41)
    (b"deploy", b"not" + b" " * 256 + b"deploy", False, True),  # (a reach of 256 bytes...
    (b"deploy", b"not" + b" " * 257 + b"deploy", True, True),  # ... not of 257)
    (b"deploy", b"not" + b" *" * 128 + b"deploy", False, True),
    (b"deploy", b"not" + b" *" * 128 + b" deploy", True, True),
    # red team 96, F10 (stop 40): the quotation mark that opens the words, and a JSON array's
    # string that ends in the negation
    (b"deploy", b'do not "deploy"', False, True),
    (b"deploy", b"do not 'deploy'", False, True),
    (b"deploy", "do not \u201cdeploy\u201d".encode(), False, False),  # (no token boundary after \u201c)
    (b"deploy", b'["Do not", "deploy"]', False, True),
    (b"deploy", b'["Do not",\n  "deploy"]', False, True),
    (b"deploy", b'["Do **not**", "deploy"]', False, True),
    (b"deploy", b'["Yes", "deploy"]', True, True),
    (b"deploy", b'say "no" deploy', True, True),  # (a closing mark is not passed)
    (b"deploy", b'"no", deploy', True, True),  # (nor a comma without the string after it)
    (b"deploy", b'not ""deploy', False, True),  # (the outer mark opens a denied quotation the words lie in: red team 100, F10)
    (b"deploy", b'not, "deploy"', True, True),  # (a comma is passed only between two strings)
]


@pytest.mark.parametrize("needle, haystack, quote, relaxed", QUOTE_CASES)
def test_a_quotation_does_not_follow_a_negation(impl, needle, haystack, quote, relaxed):
    """QUOTE: RELAXED, and the occurrence does not follow "not", "no", "never", "nor",
    "neither", "cannot", "without" or a word ending in n't, past blanks, in any case: a quote
    that cuts a negation off its source says what the source denies (red team 89, F07)."""
    found = impl.occurs_at_boundaries([needle, needle], [haystack], groups=[[0]],
                                      needle_group=np.zeros(2, dtype=np.int64), modes=[4, 0])
    assert found.tolist() == [quote, relaxed]


def test_denied_quotes_says_where_a_quote_fact_denies_its_words(impl):
    # the starts of a source's quote facts whose words it denies (red team 96, F10): the gate
    # keeps them out of the source's grounding set; "ship it", listed after a denied quotation
    # by "and", is denied with it (red team 100, F01)
    data = 'do not "deploy now" and "ship it"; ["Never", "rm -rf"] `x` never `y` not \u201cgo\u201d'.encode()
    starts = np.array([data.index(w) for w in (b"deploy", b"ship", b"rm -rf", b"x`", b"y`", b"go")] + [0, len(data)],
                      dtype=np.int64)
    assert impl.denied_quotes(data, np.full(8, 7, np.uint8), starts, 7).tolist() == [0, 1, 2, 5]


@pytest.mark.parametrize("starts, error", [([0], TypeError), (np.zeros(1, dtype=np.int32), TypeError),
                                           (np.zeros((1, 1), dtype=np.int64), TypeError),
                                           (np.array([-1], dtype=np.int64), InvalidArgumentError),
                                           (np.array([4], dtype=np.int64), InvalidArgumentError)])
def test_denied_quotes_refuses_bad_starts(impl, starts, error):
    with pytest.raises(error, match="starts"):
        impl.denied_quotes(b"abc", np.full(1, 7, np.uint8), starts, 7)


def test_denied_quotes_are_the_quote_rows_that_follow_a_negation(impl):
    # what a grounding set leaves out (stop 40): the rows of quote kind whose words follow a
    # negation, in one call (after_negation at each; "ship it" is listed after one: red team
    # 100, F01)
    data = 'do not "deploy now" and "ship it"; ["Never", "rm -rf"] never `y` not \u201cgo\u201d'.encode()
    starts = np.array([data.index(w) for w in (b"deploy", b"ship", b"rm -rf", b"y`", b"go", b"and")], dtype=np.int64)
    kind = np.array([7, 7, 7, 7, 7, 3], dtype=np.uint8)
    assert impl.denied_quotes(data, kind, starts, 7).tolist() == [0, 1, 2, 4]
    assert impl.denied_quotes(data, kind, starts, 3).tolist() == []
    assert impl.denied_quotes(data, np.zeros(0, np.uint8), np.zeros(0, np.int64), 7).tolist() == []


@pytest.mark.parametrize("kind, starts, quote_kind, error", [
    (np.zeros(1, np.int64), np.zeros(1, np.int64), 7, TypeError),
    (np.zeros(1, np.uint8), np.zeros(1, np.int32), 7, TypeError),
    (np.zeros(2, np.uint8), np.zeros(1, np.int64), 7, InvalidArgumentError),
    (np.zeros(1, np.uint8), np.zeros(1, np.int64), 256, InvalidArgumentError),
    (np.full(1, 7, np.uint8), np.full(1, 9, np.int64), 7, InvalidArgumentError),
])
def test_denied_quotes_refuse_bad_columns(impl, kind, starts, quote_kind, error):
    with pytest.raises(error):
        impl.denied_quotes(b"abc", kind, starts, quote_kind)
