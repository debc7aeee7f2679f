"""verify_citations over a 20 KB answer citing 50 sources of the 200k-token corpus window.

The answer (``make_answer``, deterministic) quotes 2 passages of each of 50 sources of the
window: 100 citations, each a run of whole words cut from one line of its source, in prose
sentences, padded with uncited prose to 20,000 bytes. It is decided here, once, what a
plausible agent answer looks like; the mix is not tuned to any result:

- 80 citations quote their source verbatim (exact);
- 5 join two words with a double space or a line break (whitespace grade, fact-checked);
- 8 change one digit (or one letter when the passage has no digit): drifted, not found;
- 7 name another of the 50 sources (misattributed): not found there;
- plus 5 bare markers and 3 quotes without a marker.

``low_accuracy`` is the seed's signature instead: the same answer with half of the quotes
replaced by paraphrases that are in no source (presence stays 1.0, accuracy drops).

The store is a file store (SQLite, WAL) holding all 214 sources of the window. Compared:

- ``native_warm``: sources and marker resolutions already in memory (a :class:`SourceCache`
  filled from the store beforehand) - the target, <= 1 ms;
- ``reference_warm``: the same with the pure-Python scanner and search (the specs);
- ``cold``: a fresh cache per call, so every source is read (and re-hashed) from SQLite and
  every marker resolved in SQLite, as a one-shot ``provgate verify`` does;
- ``store_fetch``: only that store part (50 sources and 50 marker names);
- ``to_json``: native_warm plus the full JSON report (every pointer made);
- ``search_*``: only the exact search of the 100 (quote, source) pairs;
- ``many_quotes_*``: a long report quoting one large source: 1,000 distinct 3-word quotes of a
  1.1 MB source (``found``), or the same quotes each with a word that is not there
  (``missing``: every quote also takes the whitespace search and the longest-prefix
  diagnostic). Item by item this cost (quotes) x (source); the native search does each
  step in one pass over the source. ``spaced``: the quotes with two spaces between their
  words, of a source that holds its text twice (every quote a ``whitespace`` match that
  occurs twice: the source was normalised again for each, 12 s for 1,000 quotes).
- ``search_keys_everywhere``: 1,000 needles ``'a' * 16 + 'b' + i`` in ``'a' * 1 MB``
  (``one_byte``: no ``b`` and no digit in the haystack) or in the same with a ``b`` every
  100 KB and needles ``'a' * 16 + 'bb' + 'a' * (i % 97)`` (``rare_byte``): every needle's
  key occurs at every offset, its rarest byte rarely or never (red team 36, finding 01:
  the one pass cost 16-61x item by item there).

    cd /work/main && PYTHONPATH=src:benchmarks python -m pytest benchmarks/test_bench_reconstruct.py \\
        --benchmark-columns=min,median,mean,rounds --benchmark-sort=name
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402

from provgate import _citations, _citations_py, _search, _search_py, reconstruct  # noqa: E402
from provgate.reconstruct import SourceCache, verify_citations, verify_quote  # noqa: E402
from provgate.store import SourceStore  # noqa: E402

ANSWER_BYTES = 20_000
SOURCES = 50
QUOTES_PER_SOURCE = 2
MIX = {"exact": 80, "whitespace": 5, "drift": 8, "misattributed": 7}
BARE_MARKERS = 5
UNMARKED_QUOTES = 3

_PROSE = (
    "the service then reports that this value is used by the worker when it retries a request "
    "and the operator confirmed that the change was deployed to every region after review"
).split()
_WORDS = re.compile(r"\S+")


def _prose(rng: random.Random, lo: int, hi: int) -> str:
    return " ".join(rng.choice(_PROSE) for _ in range(rng.randint(lo, hi)))


def _passage(rng: random.Random, source: str) -> str:
    """6 to 20 whole words from one line of the source, verbatim."""
    lines = [line for line in source.split("\n") if len(_WORDS.findall(line)) >= 6 and "[src:" not in line]
    if not lines:
        lines = [line for line in source.split("\n") if line.strip()]
    words = list(_WORDS.finditer(rng.choice(lines)))
    a = rng.randrange(0, max(1, len(words) - 6))
    b = min(len(words), a + rng.randint(6, 20))
    line = words[0].string
    return line[words[a].start() : words[b - 1].end()]


def _drift(rng: random.Random, text: str) -> str:
    digits = [i for i, ch in enumerate(text) if ch.isdigit()]
    if digits:
        i = rng.choice(digits)
        return text[:i] + str((int(text[i]) + 1) % 10) + text[i + 1 :]
    letters = [i for i, ch in enumerate(text) if ch.isalpha() and ch.isascii()]
    i = rng.choice(letters)
    return text[:i] + ("x" if text[i] != "x" else "y") + text[i + 1 :]


def _quoted(text: str) -> str:
    if '"' not in text:
        return f'"{text}"'
    if "\u201c" not in text and "\u201d" not in text:
        return f"\u201c{text}\u201d"
    return f"`` {text} ``"


def make_answer(window: corpus.CorpusWindow, *, low_accuracy: bool = False, seed: int = 0) -> tuple[str, list[str]]:
    rng = random.Random(seed)
    handles = rng.sample(sorted(window.sources), SOURCES)
    kinds = [k for k, n in MIX.items() for _ in range(n)]
    rng.shuffle(kinds)
    sentences = []
    for i in range(SOURCES * QUOTES_PER_SOURCE):
        handle = handles[i % SOURCES]
        text = _passage(rng, window.sources[handle])
        name = corpus.marker_name(handle)
        kind = "paraphrase" if low_accuracy and i % 2 else kinds[i]
        if kind == "whitespace":
            text = text.replace(" ", rng.choice(["  ", "\n"]), 1) if " " in text else text
        elif kind == "drift":
            text = _drift(rng, text)
        elif kind == "misattributed":
            name = corpus.marker_name(handles[(i + 1 + rng.randrange(SOURCES - 1)) % SOURCES])
        elif kind == "paraphrase":
            text = _prose(rng, 8, 14)
        sentences.append(f"{_prose(rng, 5, 12).capitalize()}: {_quoted(text)} [src:{name}].")
        if i % 20 == 19:
            sentences.append(f"See also [src:{corpus.marker_name(rng.choice(handles))}].")
        if i % 33 == 32:
            sentences.append(f'Someone wrote "{_prose(rng, 3, 6)}" without a source.')
    paragraphs = [" ".join(sentences[k : k + 6]) for k in range(0, len(sentences), 6)]
    answer = "\n\n".join(paragraphs)
    while len(answer.encode()) < ANSWER_BYTES:
        answer += "\n\n" + _prose(rng, 10, 20).capitalize() + "."
    return answer, handles


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    window = corpus.make_window(corpus.STANDARD_SIZES["200k"], seed=0)
    path = tmp_path_factory.mktemp("reconstruct") / "store.sqlite3"
    store = SourceStore(path)
    for handle, text in window.sources.items():
        store.put(handle, text)
    answer, handles = make_answer(window)
    low, _ = make_answer(window, low_accuracy=True)
    cache = SourceCache(store)
    verify_citations(store, answer, cache=cache)
    verify_citations(store, low, cache=cache)
    yield store, window, answer, low, handles, cache
    store.close()


def _record(benchmark, report) -> None:
    t = report.totals()
    benchmark.extra_info.update(
        answer_bytes=report.answer_bytes,
        citations=t["citations"],
        accurate=t["accurate"],
        presence_rate=t["presence_rate"],
        accuracy_rate=t["accuracy_rate"],
        by_grade=t["by_grade"],
        search=_search.IMPLEMENTATION,
    )


def test_answer_is_what_the_docstring_says(setup):
    store, window, answer, low, handles, cache = setup
    report = verify_citations(store, answer, cache=cache)
    t = report.totals()
    assert len(answer.encode()) >= ANSWER_BYTES and len(set(handles)) == SOURCES
    assert t["citations"] == SOURCES * QUOTES_PER_SOURCE and t["presence_rate"] == 1.0
    assert t["bare_markers"] == BARE_MARKERS and t["unmarked_quotes"] == UNMARKED_QUOTES
    assert t["accurate"] <= MIX["exact"] and t["by_grade"]["whitespace"] <= MIX["whitespace"]
    assert verify_citations(store, low, cache=cache).totals()["accuracy_rate"] < 0.5


def test_native_warm(benchmark, setup):
    store, _, answer, _, _, cache = setup
    report = benchmark(verify_citations, store, answer, cache=cache)
    _record(benchmark, report)


def test_native_warm_low_accuracy(benchmark, setup):
    store, _, _, low, _, cache = setup
    report = benchmark(verify_citations, store, low, cache=cache)
    _record(benchmark, report)


def test_reference_warm(benchmark, setup, monkeypatch):
    store, _, answer, _, _, cache = setup
    monkeypatch.setattr(reconstruct, "_search", _search_py)
    monkeypatch.setattr(reconstruct, "_citations", _citations_py)
    report = benchmark(verify_citations, store, answer, cache=cache)
    _record(benchmark, report)
    benchmark.extra_info["search"] = "reference"


def test_cold(benchmark, setup):
    store, _, answer, _, _, _ = setup
    report = benchmark(lambda: verify_citations(store, answer, cache=SourceCache(store)))
    _record(benchmark, report)


def test_store_fetch(benchmark, setup):
    store, _, _, _, handles, _ = setup
    names = [corpus.marker_name(h) for h in handles]

    def fetch():
        cache = SourceCache(store)
        for name in names:
            cache.marker_handles(name)
        return cache.preload(handles)

    assert benchmark(fetch) == SOURCES


def test_to_json(benchmark, setup):
    store, _, answer, _, _, cache = setup
    obj = benchmark(lambda: verify_citations(store, answer, cache=cache).to_json())
    assert len(obj["citations"]) == SOURCES * QUOTES_PER_SOURCE


def _pairs(setup):
    store, _, answer, _, _, cache = setup
    report = verify_citations(store, answer, cache=cache)
    needles = [c.quotation.text.encode() for c in report.citations]
    haystacks = [cache.source(c.marker.handles[0]).data for c in report.citations]
    return needles, haystacks


def test_search_native(benchmark, setup):
    needles, haystacks = _pairs(setup)
    benchmark(_search.find_exact, needles, haystacks)
    benchmark.extra_info.update(
        pairs=len(needles), haystack_bytes=sum(map(len, haystacks)), search=_search.IMPLEMENTATION
    )


def test_search_reference(benchmark, setup):
    needles, haystacks = _pairs(setup)
    benchmark(_search_py.find_exact, needles, haystacks)
    benchmark.extra_info.update(pairs=len(needles), haystack_bytes=sum(map(len, haystacks)), search="reference")


MANY_QUOTES = 1_000
MANY_QUOTES_SOURCE_WORDS = 100_000


@pytest.fixture(scope="module")
def many_quotes():
    rng = random.Random(0)
    words = ["alpha", "beta", "gamma", "delta", "port", "retries", "timeout", "config", "server", "value"]
    source = " ".join(f"{rng.choice(words)}{rng.randrange(100_000)}" for _ in range(MANY_QUOTES_SOURCE_WORDS))
    store = SourceStore(":memory:")
    store.put("doc:big", source)
    store.put("doc:twice", source + "\n" + source)
    tokens = source.split()
    quotes = []
    for _ in range(MANY_QUOTES):
        i = rng.randrange(len(tokens) - 3)
        quotes.append(" ".join(tokens[i : i + 3]))
    found = "\n".join(f'"{q}" [src:big]' for q in quotes)
    missing = "\n".join(f'"{q} zz{k}" [src:big]' for k, q in enumerate(quotes))
    spaced = "\n".join(f'"{q.replace(" ", "  ")}" [src:twice]' for q in quotes)
    cache = SourceCache(store)
    verify_citations(store, found, cache=cache)
    verify_citations(store, spaced[:100], cache=cache)  # (both sources in the cache)
    yield store, {"found": found, "missing": missing, "spaced": spaced}, cache
    store.close()


@pytest.mark.parametrize("kind", ["found", "missing", "spaced"])
def test_many_quotes(benchmark, many_quotes, kind):
    store, answers, cache = many_quotes
    report = benchmark(verify_citations, store, answers[kind], cache=cache)
    t = report.totals()
    assert t["citations"] == MANY_QUOTES
    assert t["accurate"] == (MANY_QUOTES if kind == "found" else 0)
    if kind == "spaced":
        assert {c.grade for c in report.citations} == {"whitespace"}
    _record(benchmark, report)


def _keys_everywhere(shape):
    n = 1 << 20
    if shape == "one_byte":
        return b"a" * n, [b"a" * 16 + b"b" + str(i).encode() for i in range(1000)]
    hay = bytearray(b"a" * n)
    hay[::100_000] = b"b" * len(hay[::100_000])
    return bytes(hay), [b"a" * 16 + b"bb" + b"a" * (i % 97) for i in range(1000)]


@pytest.mark.parametrize("search", ["find_exact", "find_whitespace", "longest_prefix"])
@pytest.mark.parametrize("shape", ["one_byte", "rare_byte"])
def test_search_keys_everywhere(benchmark, shape, search):
    hay, needles = _keys_everywhere(shape)
    args = (needles, [hay] * len(needles))
    if shape == "rare_byte" and search == "longest_prefix":
        # (about 2 s a call, group or item by item: the prefix scan walks the whole run of
        # one byte for each needle; three rounds say what it costs)
        benchmark.pedantic(_search.longest_prefix, args=args, rounds=3, iterations=1)
    else:
        benchmark(getattr(_search, search), *args)
    benchmark.extra_info.update(needles=len(needles), haystack_bytes=len(hay), search=_search.IMPLEMENTATION)


def test_whitespace_match_after_occurrences_that_cut_a_number(benchmark):
    # a whitespace variant of "a 3" in a 1 MB source where it occurs 170,000 times inside "30"
    # before its one whole occurrence: every occurrence that cuts a number is passed over
    store = SourceStore(":memory:")
    store.put("doc:cut", "a  30 " * 170_000 + "a  3 end")
    check = benchmark(verify_quote, store, "doc:cut", "a 3")
    assert check.grade == "whitespace" and check.occurrences == 170_001
    benchmark.extra_info.update(source_bytes=1_020_008, search=_search.IMPLEMENTATION)
    store.close()


@pytest.mark.parametrize("run", [50_000, 100_000])
def test_long_quote_whose_every_occurrence_cuts_a_number(benchmark, run):
    # red team 82, F02: a quarter of a run of zeros occurs (run * 3/4) times, each cutting
    # the run; one search per occurrence took 1.4 s / 5.1 s (quadratic)
    store = SourceStore(":memory:")
    store.put("tool:zeros", b"padding " + b"0" * run + b" end\n")
    check = benchmark.pedantic(verify_quote, args=(store, "tool:zeros", b"0" * (run // 4)), rounds=5, iterations=1)
    assert check.grade == "not_found"
    benchmark.extra_info.update(source_bytes=run + 13, quote_bytes=run // 4, search=_search.IMPLEMENTATION)
    store.close()


def _numbers(size: int) -> bytes:
    rng = random.Random(2)
    return ",".join(str(rng.randint(10, 99999)) for _ in range(size // 6)).encode()[:size]


@pytest.mark.parametrize("shape", ["run", "spaced", "uneven", "two_a_period", "digit_in_numbers", "digit_group",
                                   "respaced_digit_group", "signed", "nine_a_period"])  # fmt: skip
def test_short_quote_at_every_byte_of_a_long_run(benchmark, shape):
    # red team 84, F08: AAAAAAAA in 4 MB of A (every occurrence cuts the run), and a quote with
    # spaces at every fifth byte of `x AB ` repeated, and AABAA every third byte of AAB: a
    # Python check per occurrence, twice, took 7.8 s for the run before stop 36. Two
    # occurrences a period (A in AAB), and a digit in 4 MB of numbers (not evenly spaced).
    # Spans that cut a number off ASCII letters and digits, which stop 36 still checked one by
    # one (1.4-6.5 s): joined by a narrow no-break space (whitespace too), the same quoted with
    # a space (graded by the whitespace search), after a sign, and an Arabic digit nine times a
    # period of "٣٣٣٣٣٣٣٣٣x"
    source, quote = {
        "run": (b"A" * (4 << 20), b"AAAAAAAA"),
        "spaced": (b"x AB " * ((4 << 20) // 5), b"B x AB x A"),
        "uneven": (b"AAB" * ((4 << 20) // 3), b"AABAA"),
        "two_a_period": (b"AAB" * ((4 << 20) // 3), b"A"),
        "digit_in_numbers": (_numbers(4 << 20), b"3"),
        "digit_group": ("3\u202f".encode() * ((4 << 20) // 4), "3\u202f3".encode()),
        "respaced_digit_group": ("3\u00a0".encode() * ((4 << 20) // 3), b"3 3"),
        "signed": (b"-3 " * ((4 << 20) // 3), b"3  -3"),
        "nine_a_period": (("\u0663" * 9 + "x").encode() * ((4 << 20) // 19), "\u0663".encode()),
    }[shape]
    _time_a_quote_that_only_cuts(benchmark, source, quote)


def _time_a_quote_that_only_cuts(benchmark, source: bytes, quote: bytes) -> None:
    """Time ``verify_quote`` of ``quote`` in ``source``, every occurrence of which cuts a token
    (so it is ``not_found``, ``occurs_only_cutting_a_token``), five rounds."""
    store = SourceStore(":memory:")
    store.put("tool:run", source)
    check = benchmark.pedantic(verify_quote, args=(store, "tool:run", quote), rounds=5, iterations=1)
    assert check.grade == "not_found" and check.diagnostic.kind == "occurs_only_cutting_a_token"
    benchmark.extra_info.update(source_bytes=len(source), quote_bytes=len(quote), search=_search.IMPLEMENTATION)
    store.close()


def _unevenly_spaced(unit: str, size: int) -> bytes:
    rng = random.Random(3)
    out, n = [], 0
    while n < size:  # whole units only: the source ends on a whole number
        out.append(unit + " " * rng.randint(1, 6))
        n += len(out[-1])
    return "".join(out).encode()


@pytest.mark.parametrize("shape", ["point", "ends_on_point", "opens_on_point", "after_point", "digit_group",
                                   "ends_on_separator", "signed", "arabic_point", "whitespace"])  # fmt: skip
def test_uneven_spans_that_cut_a_number(benchmark, shape):
    # red team 86: spans that cut a number but not between two ASCII letters or digits, spaced
    # by random runs of one to six spaces (no period to check them by), cost a Python check
    # each: "3" in 4 MB of "3.5" took 1.8-2.3 s. Ending before a point and a digit, ending on
    # the number's point, opening on it, opening after it, before a narrow no-break space in a
    # digit group, ending on a no-break space before one (a whitespace quote), after a sign,
    # before an Arabic decimal separator, and a whitespace quote ending before a point
    unit, quote = {
        "point": ("3.5", b"3"),
        "ends_on_point": ("3.5", b"3."),
        "opens_on_point": ("3.5", b".5"),
        "after_point": ("3.5", b"5"),
        "digit_group": ("3\u202f000", b"3"),
        "ends_on_separator": ("3\u00a0000", "3\u00a0".encode()),
        "signed": ("-3", b"3"),
        "arabic_point": ("\u0663\u066b\u0665", "\u0663".encode()),
        "whitespace": ("x 3.5", b"x  3"),
    }[shape]
    source = _unevenly_spaced(unit, 4 << 20)
    _time_a_quote_that_only_cuts(benchmark, source, quote)


@pytest.mark.parametrize("shape", ["long_line", "many_groups_on_a_lazy_line", "many_groups_below_a_fence",
                                   "long_gap_and_dashes", "many_groups_after_words", "many_groups_past_code_spans"])  # fmt: skip
def test_scan_blocks_of_adversarial_shapes(benchmark, shape):
    # red team 86, F09: the blockquote and fence forms read the gap around a group; each shape
    # of about 4 MB must scan in linear time (tests/test_citations_blocks.py holds native equal
    # to the reference on the same shapes, a hundredth of the size). The last two: one line of
    # groups after words, each of which looked for a colon at the line's end (the form below a
    # line, stop 37): 15 s at 4 MB before stop 38, 1.5 s at 2 MB
    answer = {
        "long_line": "> " + "x" * 4_000_000 + " [src:a]\n",
        "many_groups_on_a_lazy_line": "> x\n" + "x" * 2_000_000 + " [src:a]," * 200_000,
        "many_groups_below_a_fence": "```\nx\n```\n" + "Source " * 400_000 + "[src:a] " * 200_000,
        "long_gap_and_dashes": "> x\n" + "-." * 2_000_000 + "[src:a]",
        "many_groups_after_words": "w w [src:a] " * 333_333,
        "many_groups_past_code_spans": "`x` `y` w [src:a] " * 222_222,
    }[shape].encode()
    _, markers, _, _ = benchmark(_citations.scan, answer)
    assert len(markers) >= 1
    benchmark.extra_info.update(answer_bytes=len(answer), scanner=_citations.IMPLEMENTATION)


def _keys_of_many_lengths():
    # red team 37, 04: keys of eight lengths (2-8 and 16 bytes), all opening with a byte found
    # at every other offset, their rarest byte every 64 bytes: the one pass looked each offset
    # up eight times (7-11x item by item); priced by its look-ups, the group is searched item
    # by item
    n = 1 << 20
    unit = b"ab" * 31 + b"aZ"
    hay = (unit * (n // len(unit) + 1))[:n]
    needles = [(b"ab" * 8)[: k - 1] + b"Z" for k in range(2, 9)] + [b"ab" * 8 + b"Zab"]
    return hay, needles


@pytest.mark.parametrize("search", ["find_exact", "find_whitespace"])
@pytest.mark.parametrize("batch", ["together", "one_by_one"])
def test_search_keys_of_many_lengths(benchmark, search, batch):
    hay, needles = _keys_of_many_lengths()
    find = getattr(_search, search)
    if batch == "together":
        benchmark(find, needles, [hay] * len(needles))
    else:
        benchmark(lambda: [find([x], [hay]) for x in needles])
    benchmark.extra_info.update(needles=len(needles), haystack_bytes=len(hay), search=_search.IMPLEMENTATION)
