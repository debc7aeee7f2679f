"""Helpers for the grounded-span scanner tests: readable span tuples and input generators."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from budget import examples
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from provgate import _scanner_py

if str(Path(__file__).resolve().parent.parent / "benchmarks") not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import corpus

# the differential (native against reference) examples a scanner test draws; more with
# PROVGATE_EXAMPLES_SCALE (tests/budget.py; a stop's parity run uses 5 or more)
DIFFERENTIAL = settings(
    max_examples=examples(800),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# red team 50, f05's input, shared with the scanner's benchmark
hostile_backtick_runs = corpus.backtick_runs

KIND_NAME = {k: v.decode() for k, v in _scanner_py.KIND_NAMES.items()}


def columns(impl, data: bytes, max_spans: int = 10**7) -> tuple[np.ndarray, ...]:
    return impl.scan(data, max_spans)


def rows(cols: tuple[np.ndarray, ...]) -> list[tuple[int, ...]]:
    return list(zip(*(c.tolist() for c in cols)))


def spans(impl, text: str | bytes) -> list[tuple[str, str, str, str]]:
    """``(kind, literal text, key, normalised value)`` of every span, in output order."""
    data = text.encode() if isinstance(text, str) else text
    out = []
    for k, s, e, ks, ke, vs, ve, vk in rows(columns(impl, data)):
        key = data[ks:ke] if ks >= 0 else _scanner_py.KIND_NAMES[k]
        value = _scanner_py.normalize_value(vk, data[vs:ve])
        out.append((KIND_NAME[k], data[s:e].decode(), key.decode(), value.decode()))
    return out


def without_pin_kv(found: list[tuple[str, str, str, str]]) -> list[tuple[str, str, str, str]]:
    """``spans`` without the kv facts of pins (grammar v8: ``lodash@4.17.21``, ``nginx:1.25``
    and ``requests==2.31.0`` are also kv facts, lodash = 4.17.21): what the tests of grammars 4
    to 7 list. Only kv spans whose text is their key, then "@", "==" or ":" and no blank, and
    the rest are dropped (``email=a@b.io`` and ``timeout: 30s`` stay)."""
    return [s for s in found if not (s[0] == "kv" and is_pin_kv(s))]


def is_pin_kv(span: tuple[str, str, str, str]) -> bool:
    """Is this kv span (``spans``' tuple) a pin's (grammar v8)?"""
    rest = span[1][len(span[2]):] if span[1].startswith(span[2]) else ""
    return rest[:1] == "@" or rest[:2] == "==" or (rest[:1] == ":" and rest[1:2] not in ("", " ", "\t"))


def assert_same_columns(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...], data: bytes) -> None:
    assert len(a) == len(b) == 8
    for x, y in zip(a, b):
        assert x.dtype == y.dtype
    ra, rb = rows(a), rows(b)
    if ra != rb:
        only_a = sorted(set(ra) - set(rb))[:5]
        only_b = sorted(set(rb) - set(ra))[:5]
        raise AssertionError(
            f"implementations disagree on {data[:200]!r}...:\n"
            f"  only in first:  {[(r, data[r[1]:r[2]]) for r in only_a]}\n"
            f"  only in second: {[(r, data[r[1]:r[2]]) for r in only_b]}"
        )


# Fragments built from the grammar's special characters, so generated text hits the edges of
# every lexeme: quotes and fences, citations, separators, signs, dots, commas, slashes,
# backslashes, hex, units, case changes, non-ASCII and astral characters, NUL.
FRAGMENTS = [
    "[src:", "[src:call_1]", "]", "[", '"', "'", "`", "``", "```", "```py", "\n", "\r\n", " ", "  ",
    "\t", "\x00", "=", "==", "=>", ":", ": ", "--", "-", "+", ".", "..", ",", ";", "/", "//",
    "\\", "\\\\", "~", "@", "%", "#", "$", "(", ")", "{", "}", "<", ">", "*", "&", "|", "?",
    "!", "_", "0", "1", "12", "123", "1,000", ",000", "0x", "0xFF", "3.10", "1.2.3", "e5",
    "v2", "V8", "rc1", "30s", "MB", "a", "e", "x", "abc", "deadbeef", "cafe1234", "Abc",
    "Amanda", "ABC", "NASA", "aB", "a_b", "__", "key", "retries", "http", "://", "https://x.io/",
    "C:", "src/", "foo.py", ".md", "one", "three", "billion", "é", "ü", "€", "😀", "\u2019",
    "\ud7ff", "日本", "- ", "   - ", "# ", "'s", "don't", "src", "Mr", "Mrs. ", "Dr.", "xMr",
    # hyphenated IDs and e-mail addresses, whole and in pieces
    "eu-west-1", "req-8f3a2", "gpt-4.5", "x86-64", "k8s-node-3", "-1", "-a", "a-", "-x1",
    "oncall@acme.io", "a.b+c", "@acme", ".io", ".co.uk", "io-z", "@x-y.io", "%", "+tag",
    # stop 39 (red team 94): digit parts after a dot, .post/.dev suffixes, dot-files, URL queries
    "python3.11", "No.5512", ".1", ".12", "a.1", "rc.1", "+build.5", ".post3", ".dev1", ".el9",
    ".env", ".Env.2", "^", "?q=", "#f", "[a]", "{x}", "[src", "src:", "?a=[1]&b={2}|3",
    # grammar v4 (stop 40): "@" pins and mentions (red team 94 F09), ANSI CSI sequences whole and
    # broken (red team 95 F09)
    "lodash@4.17.21", "@v4", "@10.0.0.1", "@AliceChen", "\x1b", "\x1b[", "\x1b[0m", "\x1b[1;32m", "\x1b[2K",
    "\x1b[?25l", "\x1b[1~", "\x1b[s", "\x1b[[", "\x1b[1", "1m1",
]

fragment_text = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join)

# any Unicode text (astral characters, controls, NUL), but valid UTF-8 when encoded
unicode_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=200)

# arbitrary bytes: the scanner must not crash and both implementations still agree
any_bytes = st.binary(max_size=300)


@st.composite
def long_tokens(draw) -> str:
    """A few very long runs of one fragment, with other fragments around them."""
    parts = draw(st.lists(st.tuples(st.sampled_from(FRAGMENTS), st.integers(1, 400)), min_size=1, max_size=4))
    glue = draw(st.lists(st.sampled_from(FRAGMENTS), min_size=len(parts), max_size=len(parts)))
    return "".join(f * k + g for (f, k), g in zip(parts, glue))


# pieces of hyphenated IDs and e-mail addresses: letter and digit runs of either case, joined
# by the bytes that join or end them (- . @ _ + %), so that every edge of both lexemes is hit
_ID_RUN = st.sampled_from(["a", "eu", "west", "x86", "8f3a2", "1", "42", "0", "A", "Node", "io", "com",
                           "e89b", "cafe123", "v1", "é", "_", "k8s"])
_ID_JOINER = st.sampled_from(["-", "-", ".", "--", "@", "_", "+", "%", "-.", ".-", ""])


@st.composite
def id_chains(draw) -> str:
    """Chains like ``eu-west-1``, ``api-server-7d9f``, ``oncall@acme.io`` and near misses, after
    and before something that may or may not end a token."""
    runs = draw(st.lists(_ID_RUN, min_size=1, max_size=6))
    joiners = draw(st.lists(_ID_JOINER, min_size=len(runs) - 1, max_size=len(runs) - 1))
    chain = runs[0] + "".join(j + r for j, r in zip(joiners, runs[1:]))
    before = draw(st.sampled_from(["", " ", "-", "x-", "(", "=", ":", "--", "/", "Z-", "@", "."]))
    after = draw(st.sampled_from(["", " ", ".", ". ", ",", "-", "-A", ".A", "_", "/b/c", "=1", ": 2", "@x.io"]))
    return before + chain + after


id_text = st.lists(st.one_of(id_chains(), st.sampled_from(FRAGMENTS)), max_size=12).map("".join)

all_text = st.one_of(fragment_text, unicode_text, long_tokens(), id_text)


# Red team 50, f05: lines rich in backtick runs of many lengths (below, at and above 64, where
# the native scanner's memo of run lengths keeps long lengths apart), between the other quote
# marks, blanks, words, line breaks and fence lines.
_TICK_GLUE = ["", " ", "  ", "a", "x=1", "\n", "\r\n", '"', '\\"', "'", "x'", "'x", "\\", "```py\n",
              "   ```\n", "\n```\n", "\n````\n", "\n    ```\n"]
_TICKS = st.one_of(st.integers(1, 9), st.sampled_from([62, 63, 64, 65, 66, 127, 128, 129, 200])).map(lambda k: "`" * k)
backtick_text = st.lists(st.one_of(_TICKS, st.sampled_from(_TICK_GLUE)), max_size=60).map("".join)


@st.composite
def backtick_lines(draw) -> str:
    """Long lines of runs of random lengths, one blank or quote mark between runs, now and
    then a line break: past 4 KB of a line the native memo leaves the stack for the heap."""
    lengths = draw(st.lists(st.one_of(st.integers(1, 12), st.integers(1, 300)), min_size=1, max_size=90))
    glue = draw(st.lists(st.sampled_from([" ", " ", " ", "a", '"', "'", " '", "\n"]),
                         min_size=len(lengths), max_size=len(lengths)))
    return "".join("`" * k + g for k, g in zip(lengths, glue))
