"""Grammar v9 (EXTRACTOR_VERSION 9): a full-width at sign, ``＠`` (U+FF20) or ``﹫`` (U+FE6B),
opens a mention as an "@" that follows no word byte does (red team 113 F01).

Both signs are three non-ASCII bytes, so word bytes: ``请＠张三 看一下这个 PR`` read only ``PR``, and
renaming the person (``请＠李四``, ``cc ＠mallory``) kept every fact and passed a rewrite and a
summary. Scanner cases run on both implementations (``impl``); the gate cases run on the one
provgate loads (the suite runs again with PROVGATE_NO_EXTENSIONS=1). docs/grammar.md ("Full-width
at signs") has the rule and its limits."""

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

WIDE, SMALL = "\uff20", "\ufe6b"


@pytest.fixture(params=IMPLEMENTATIONS, scope="module")
def impl(request):
    return load_implementation("scanner", "_scanner_py", request.param)


def test_extractor_version_is_9():
    # cached fact tables are keyed by it: v9 must not read v8 tables, which lack these mentions
    assert EXTRACTOR_VERSION >= 9


V9_CASES = [
    (f"请{WIDE}张三 看一下这个 PR", [("identifier", "张三"), ("name", "PR")]),
    (f"cc {WIDE}alice please review", [("identifier", "alice")]),
    (f"cc{WIDE}alice please review", [("identifier", "alice")]),
    (f"请{WIDE}alice 看一下", [("identifier", "alice")]),
    (f"请{SMALL}alice 看一下", [("identifier", "alice")]),
    (f"{WIDE}张三", [("identifier", "张三")]),
    (f"x {WIDE}Alice", [("name", "Alice")]),  # (a fact by itself stays what it is)
    (f"{WIDE}{WIDE}bob ok", [("identifier", "bob")]),
    (f"cc {WIDE}oncall-team now", [("identifier", "oncall-team")]),
    (f"{WIDE}alice{WIDE}bob", [("identifier", "alice"), ("identifier", "bob")]),
    (f"\x1b[0m{WIDE}alice", [("identifier", "alice")]),
    (f"step 2{WIDE}alice", [("number", "2"), ("identifier", "alice")]),
    # the mention runs on through a non-ASCII byte after it, as after "@" (v7's limit)
    (f"请{WIDE}alice。", [("identifier", "alice。")]),
    # a trailing sign, and no mention without a word after it
    (f"cc {WIDE}", []),
    (f"cc {WIDE} alice", []),
]


@pytest.mark.parametrize("text, expected", V9_CASES, ids=[t for t, _ in V9_CASES])
def test_a_full_width_at_sign_opens_a_mention(impl, text, expected):
    assert [(kind, literal) for kind, literal, _, _ in spans(impl, text)] == expected


@pytest.mark.parametrize("text, expected", [
    # read as a blank and an "@": no word, address, pin, URL, value or path runs through it
    (f"mail alice{WIDE}acme.io", [("identifier", "acme.io")]),
    (f"npm i lodash{WIDE}4.17.21", [("number", "4.17.21")]),
    (f"https://x.com/{WIDE}alice/repo", [("url", "https://x.com/"), ("identifier", "alice")]),
    (f"key=a{WIDE}b", [("kv", "key=a"), ("identifier", "b")]),
    ("mail alice@acme.io", [("identifier", "alice@acme.io")]),  # (an ASCII "@" as before)
])
def test_the_sign_is_read_as_a_blank_and_an_at(impl, text, expected):
    assert [(k, t) for k, t, _, _ in spans(impl, text) if k != "kv" or t != "alice@acme.io"] == expected


def test_the_text_is_read_in_place(impl):
    # the sign keeps its three bytes: every span's offsets are the text's own
    text = f"请{WIDE}张三 and {SMALL}alice"
    assert [t for _, t, _, _ in spans(impl, text)] == ["张三", "alice"]


def test_many_signs_in_one_word_run(impl):
    # each sign ends the run (a draft that let the matchers read on through the signs scanned
    # the run again from each mention, quadratic in the run's length; docs/grammar.md)
    text = ("a" + WIDE) * 50_000
    assert [t for _, t, _, _ in spans(impl, text)] == ["a"] * 49_999


def test_signs_across_block_boundaries_are_all_read(impl):
    # the native scanner visits a sign from its 64-byte block's masks: every offset, both signs
    for pad in range(70):
        for sign in (WIDE, SMALL):
            text = "x" * pad + f" {sign}alice and 中文{sign}bob"
            found = [t for k, t, _, _ in spans(impl, text) if k == "identifier"]
            assert found == ["alice", "bob"], (pad, sign, found)


def test_many_signs_in_cjk_text(impl):
    text = ("文" + WIDE + "u1 ") * 20_000
    found = [t for k, t, _, _ in spans(impl, text)]
    assert found == ["u1"] * 20_000


# -- the gate -------------------------------------------------------------------------------------

RT113_F01 = [
    (f"请{WIDE}张三 看一下这个 PR", f"请{WIDE}李四 看一下这个 PR", "李四"),
    (f"cc {WIDE}alice please review", f"cc {WIDE}mallory please review", "mallory"),
    (f"请{WIDE}alice 看一下", f"请{WIDE}mallory 看一下", "mallory"),
    (f"请{SMALL}alice 看一下", f"请{SMALL}mallory 看一下", "mallory"),
    (f"请{WIDE}alice 看一下", "请@mallory 看一下", "mallory"),
]


@pytest.mark.parametrize("source, lie, value", RT113_F01, ids=[s for s, _, _ in RT113_F01])
def test_rt113_f01_a_person_renamed_after_a_full_width_at_is_refused(source, lie, value):
    find(_rewrite(source, lie), "I2", value=value)
    find(_summarize(source, lie), "I1", block="s", value=value)


@pytest.mark.parametrize("source, honest", [
    (f"cc {WIDE}alice please review", "cc @alice please review"),
    ("cc @alice please review", f"cc {WIDE}alice please review"),
    (f"请{WIDE}张三 看一下这个 PR", "请@张三 看一下这个 PR"),
])
def test_the_sign_written_either_way_keeps_every_fact(source, honest):
    assert_accepted(_rewrite(source, honest), "lossless")


@pytest.mark.parametrize("source, text", [
    (f"cc {WIDE}alice please review", "Asked @alice to review."),
    (f"cc {WIDE}alice please review", "Asked alice to review."),
    (f"请{WIDE}张三 看一下这个 PR", "Ask @张三 to look at the PR."),
    ("cc @alice please review", f"Asked {WIDE}alice to review."),
])
def test_an_honest_summary_of_a_mention_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


# -- parity ---------------------------------------------------------------------------------------

_V9_PIECES = st.sampled_from([
    WIDE, SMALL, "@", "请", "张三", "，", "。", "\uff41", "\uef00", "\xef", "alice", "Alice", "bob-x", "-", "/", ".", " ",
    "\n", "4.17.21", "lodash", "2", "a1", "v4", "cc", "@main", "oncall@acme.io", "\x1b[0m", "\x1b[", "[src:x]", "_",
    "é", "“", "http://a.b/c", "key=", ":", '"', "'", "`", "eu-west-1", "0123abcd", "AB", "+",
])
v9_text = st.lists(_V9_PIECES, max_size=30).map("".join)


@DIFFERENTIAL
@given(v9_text)
def test_differential_v9_pieces(impl, text):
    data = text.encode()
    assert_same_columns(columns(impl, data), _scanner_py.scan(data, 10**7, shortcut=False), data)


@DIFFERENTIAL
@given(v9_text)
def test_the_shortcut_agrees_on_v9_pieces(text):
    data = text.encode()
    assert_same_columns(_scanner_py.scan(data, 10**7, shortcut=True), _scanner_py.scan(data, 10**7, shortcut=False), data)


# -- a requirement's comparison is part of the pin's value (red team 115 F01) ---------------------

@pytest.mark.parametrize("text, key, value", [
    ("Need django<4.2 here.", "django", "<4.2"),
    ("Need django>=4.2 here.", "django", ">=4.2"),
    ("Pinned requests!=2.31.0 here.", "requests", "!=2.31.0"),
    ("x requests~=2.31 y", "requests", "~=2.31"),
    ("use django>4.2 now", "django", ">4.2"),
    ("Pinned requests==2.31.0 here.", "requests", "2.31.0"),  # (== is the pin itself, as in v8)
])
def test_a_comparison_is_the_pins_value(impl, text, key, value):
    assert [(k, v) for kind, _, k, v in spans(impl, text) if kind == "kv"] == [(key, value)]


@pytest.mark.parametrize("before, after, value", [
    ("Need django<4.2 here.", "Need django>=4.2 here.", ">=4.2"),
    ("Need django<4.2 here.", "Need django>4.2 here.", ">4.2"),
    ("Pinned requests==2.31.0 here.", "Pinned requests!=2.31.0 here.", "!=2.31.0"),
    ("Pinned requests==2.31.0 here.", "Pinned requests>=2.31.0 here.", ">=2.31.0"),
])
def test_rt115_f01_a_comparison_changed_is_refused(before, after, value):
    find(_rewrite(before, after), "I2", value=value)
    find(_summarize(before, after.replace("Need", "The build needs").replace("Pinned", "It pins")), "I1", block="s",
         value=value)


def test_an_honest_summary_of_a_requirement_is_accepted():
    assert_accepted(_summarize("Need django<4.2 here.", "The build needs django<4.2."))
    assert_accepted(_rewrite("Need django<4.2 here.", "Need  django<4.2  here."))
