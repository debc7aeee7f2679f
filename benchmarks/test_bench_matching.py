"""Matching source facts (``SourceMatcher.find_grounded``) over the 200k-token corpus window.

Vocabulary: 15k distinct facts of the window's own sources (the corpus's recorded facts, then
the tokens, joiner-separated sub-tokens and two-token phrases of each source, taken
round-robin over the sources, first seen first), so the text is
dense with matches, near misses (``3`` inside ``30``) and facts found in several sources.

Compared (MB/s and matches/s are in each row's extra_info, from the median):
- ``native``: ``find_grounded`` as shipped (boundary-marked text built in C, the automaton's
  iterator consumed at C level);
- ``plain_iter``: the issue's baseline, ``for end, value in automaton.iter(s)`` in Python over
  an automaton of the plain patterns, with the boundary check in Python;
- ``bare_iter``: the same loop doing nothing per hit: the floor of any approach that runs the
  plain automaton over the raw text;
- ``reference``: the pure-Python reference (marked text built in Python).

    cd /work/main && PYTHONPATH=src python -m pytest benchmarks/test_bench_matching.py \
        --benchmark-columns=min,median,mean,rounds --benchmark-sort=name
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import ahocorasick
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402

from provgate import _matching_py as reference  # noqa: E402
from provgate._matching import IMPLEMENTATION  # noqa: E402
from provgate.matching import SourceMatcher  # noqa: E402

VOCABULARY_SIZE = 15_000
TOKEN = re.compile(r"[0-9A-Za-z_\u0080-\U0010ffff]+(?:[.,:/@-][0-9A-Za-z_\u0080-\U0010ffff]+)*")
SUBTOKEN = re.compile(r"[0-9A-Za-z_\u0080-\U0010ffff]+")


def phrases(src: str) -> list[str]:
    """Two tokens separated by one space (``22 replicas``, ``took 231ms``)."""
    tokens = list(TOKEN.finditer(src))
    return [src[a.start() : b.end()] for a, b in zip(tokens, tokens[1:]) if src[a.end() : b.start()] == " "]


def build_vocabulary(window: corpus.CorpusWindow, size: int) -> dict[str, list[str]]:
    per_source = {h: list(window.facts[h]) + TOKEN.findall(src) + SUBTOKEN.findall(src) + phrases(src)
                  for h, src in window.sources.items()}
    seen: set[str] = set()
    vocabulary: dict[str, list[str]] = {h: [] for h in per_source}
    # round-robin over sources so every source contributes until the budget is spent
    cursors = dict.fromkeys(per_source, 0)
    while len(seen) < size and any(cursors[h] < len(f) for h, f in per_source.items()):
        for h, facts in per_source.items():
            while cursors[h] < len(facts):
                fact = facts[cursors[h]]
                cursors[h] += 1
                if fact in seen:
                    vocabulary[h].append(fact)  # shared fact: one more source for it
                    continue
                if len(seen) < size:
                    seen.add(fact)
                    vocabulary[h].append(fact)
                break
    return vocabulary


@pytest.fixture(scope="module")
def setup():
    window = corpus.make_window(corpus.STANDARD_SIZES["200k"], seed=0)
    vocabulary = build_vocabulary(window, VOCABULARY_SIZE)
    matcher = SourceMatcher(vocabulary)
    return window, matcher


def _record(benchmark, nbytes: int, matches: int) -> None:
    median = benchmark.stats.stats.median
    benchmark.extra_info.update({
        "bytes": nbytes, "matches": matches,
        "MB/s": round(nbytes / median / 1e6, 1), "matches/s": round(matches / median),
    })


def test_native(benchmark, setup):
    window, matcher = setup
    assert IMPLEMENTATION == "native"
    assert len(matcher) == VOCABULARY_SIZE
    result = benchmark(matcher.find_grounded, window.data)
    _record(benchmark, len(window.data), len(result))


def _plain_automaton(matcher: SourceMatcher):
    automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
    for index, fact in enumerate(matcher.patterns):
        automaton.add_word(fact.encode("utf-8").decode("latin-1"), index)
    automaton.make_automaton()
    return automaton


def test_plain_iter(benchmark, setup):
    window, matcher = setup
    automaton = _plain_automaton(matcher)
    lengths = matcher.pattern_bytes.tolist()
    data = window.data
    ok = reference.at_token_boundaries

    def plain():
        found = []
        for last, index in automaton.iter(data.decode("latin-1")):
            end = last + 1
            start = end - lengths[index]
            if ok(data, start, end):
                found.append((start, end, index))
        return found

    found = benchmark.pedantic(plain, rounds=5)
    expected = matcher.find_grounded(data)
    assert sorted(found, key=lambda m: (m[1], m[0])) == list(
        zip(expected.start.tolist(), expected.end.tolist(), expected.pattern.tolist()))
    _record(benchmark, len(data), len(found))


def test_bare_iter(benchmark, setup):
    window, matcher = setup
    automaton = _plain_automaton(matcher)
    haystack = window.data.decode("latin-1")

    def bare():
        hits = 0
        for _ in automaton.iter(haystack):
            hits += 1
        return hits

    hits = benchmark.pedantic(bare, rounds=5)
    benchmark.extra_info["automaton hits (before the boundary filter)"] = hits
    _record(benchmark, len(window.data), len(matcher.find_grounded(window.data)))


def test_reference(benchmark, setup):
    window, matcher = setup
    result = benchmark.pedantic(matcher._find, args=(window.data, reference.collect), rounds=2)
    _record(benchmark, len(window.data), len(result))
