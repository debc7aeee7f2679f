"""Grammar v7 (EXTRACTOR_VERSION 7): an "@" after a non-ASCII byte, or after a run of digits no
ASCII letter or "_" precedes, opens a mention (red team 107 F01).

v6 read a mention only after an "@" that followed no word byte; every non-ASCII byte is a word
byte, so ``请@张三``, ``“@alice”``, ``—@alice`` and ``step 2@alice`` held no mention and a rename
passed a rewrite and a summary. Scanner cases run on both implementations (``impl``); the gate
cases run on the one provgate loads (the suite runs again with PROVGATE_NO_EXTENSIONS=1).
docs/grammar.md ("@ pins and mentions") has the rule and its limits."""

from __future__ import annotations

import pytest
from conftest import IMPLEMENTATIONS, load_implementation
from gate_helpers import assert_accepted, find
from hypothesis import given
from hypothesis import strategies as st
from scanner_helpers import DIFFERENTIAL, assert_same_columns, columns, spans
from test_grammar_v4 import _rewrite, _summarize

from provgate import _scanner_py
from provgate.facts import EXTRACTOR_VERSION


@pytest.fixture(params=IMPLEMENTATIONS, scope="module")
def impl(request):
    return load_implementation("scanner", "_scanner_py", request.param)


def test_extractor_version_is_7():
    # cached fact tables are keyed by it: v7 must not read v6 tables, which lack these mentions
    assert EXTRACTOR_VERSION >= 7


def _id(word):
    return ("identifier", word, "identifier", word)


V7_CASES = [
    ("请@张三 看一下这个 PR", ["张三"]),
    ("请@alice 看一下这个 PR", ["alice"]),
    ("Approved by “@alice”.", ["alice”"]),  # (a non-ASCII byte is a word byte: it ends the word)
    ("cc\u00a0@alice please", ["alice"]),
    ("Ping the owner —@alice— first", ["alice—"]),
    ("Reviewers:\n•@alice\n•@bob", ["alice", "bob"]),
    ("escalate →@oncall-team", ["oncall-team"]),
    ("step 2@alice approves", ["alice"]),
    ("第2@alice", ["第2", "alice"]),
    ("12@main", ["main"]),
]


@pytest.mark.parametrize("text, words", V7_CASES)
def test_a_mention_after_a_non_ascii_byte_or_a_number(impl, text, words):
    got = [s for s in spans(impl, text) if s[0] == "identifier"]
    assert [s[1] for s in got] == words
    assert all(s == _id(s[1]) for s in got)


@pytest.mark.parametrize("text", ["user@host", "user2@host", "x_1@host", "a9@bob", "user_@host"])
def test_an_ascii_word_before_the_at_still_opens_no_mention(impl, text):
    # user@host, a word with a letter before the digit: an address-like pair, as in v6
    assert "host" not in [s[1] for s in spans(impl, text)]
    assert "bob" not in [s[1] for s in spans(impl, text)]


RENAMED = [
    ("请@张三 看一下这个 PR", "请@李四 看一下这个 PR", "李四"),
    ("请@alice 看一下这个 PR", "请@mallory 看一下这个 PR", "mallory"),
    ("Approved by “@alice”.", "Approved by “@mallory”.", "mallory”"),
    ("cc\u00a0@alice please", "cc\u00a0@mallory please", "mallory"),
    ("Ping the owner —@alice— first", "Ping the owner —@mallory— first", "mallory—"),
    ("Reviewers:\n•@alice\n•@bob", "Reviewers:\n•@mallory\n•@bob", "mallory"),
    ("escalate →@oncall-team", "escalate →@infra-team", "infra-team"),
    ("step 2@alice approves", "step 2@mallory approves", "mallory"),
]


@pytest.mark.parametrize("old, new, value", RENAMED)
def test_rt107_f01_a_renamed_mention_is_refused(old, new, value):
    find(_rewrite(old, new), "I2", value=value)
    find(_summarize(old, f"{new} [src:tool:c1]"), "I1", block="s", value=value)


@pytest.mark.parametrize("src, summary_text", [
    ("请@张三 看一下这个 PR", "请@张三 看一下 [src:tool:c1]"),
    ("Approved by “@alice”.", "Approved by “@alice” [src:tool:c1]."),
    # (not tested: a summary's bare @alice for a source's “@alice” is refused, on v6 as on v7:
    # the literal search finds no whole word alice in alice”; docs/grammar.md, limits)
    ("step 2@alice approves", "alice approves step 2 [src:tool:c1]."),
])
def test_an_honest_mention_is_accepted(src, summary_text):
    assert_accepted(_rewrite(src, src + "\n"))
    assert_accepted(_summarize(src, summary_text), "lossy")


_V7_PIECES = st.sampled_from([
    "@", "@@", "请", "张三", "“", "”", "—", "•", "\u00a0", "é", "1", "12", "a1", "_", "x", "X",
    "@alice", "@main", "@latest", "@4.17.21", "@v4", "-", "/", "user@host", "\x1b[0m", "\x1b[5@",
    " ", "\n", ".", ":", "=",
])
v7_text = st.lists(_V7_PIECES, max_size=30).map("".join)


@DIFFERENTIAL
@given(v7_text)
def test_differential_v7_pieces(impl, text):
    data = text.encode()
    assert_same_columns(columns(impl, data), _scanner_py.scan(data, 10**7, shortcut=False), data)


def test_the_digit_look_back_is_linear(monkeypatch):
    # each "@" looks back over one run of digits that ends at it: n "1@a" pieces, O(n) reads
    calls = 0
    real = _scanner_py._mention_lead

    def counting(data, j):
        nonlocal calls
        calls += 1
        return real(data, j)

    monkeypatch.setattr(_scanner_py, "_mention_lead", counting)
    for n in (100, 1000):
        calls = 0
        data = b"1" * n + b"@a" + b" 1@a" * n
        _scanner_py.scan(data, 10**7)
        assert calls <= n + 2


class _CountingBytes(bytes):
    reads = 0

    def __getitem__(self, i):
        type(self).reads += 1
        return super().__getitem__(i)


def test_the_digit_look_back_reads_each_byte_a_bounded_number_of_times():
    # every "@" of n runs "123…@" looks back over its own run only: reads grow with n, not n^2
    for n in (100, 1000):
        data = _CountingBytes(b"1234567@" * n)
        _CountingBytes.reads = 0
        for j in range(6, len(data), 8):
            assert _scanner_py._mention_lead(data, j)
        assert _CountingBytes.reads <= 3 * len(data)
