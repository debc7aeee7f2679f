"""Grammar v10 (EXTRACTOR_VERSION 10): an e-mail address glued to CJK (or other non-Latin) text
is an address (red team 113 F02 fail-open, F03 false refusal).

A non-ASCII byte is a word byte, so in ``请联系alice@acme.io处理`` the word began at ``请`` and no
address was tried at ``alice``; only ``acme.io`` was a fact, so renaming the local part
(``mallory@acme.io``) passed a rewrite and a summary, and an English summary's
``ops@acme.io`` was refused. Now the first ASCII byte after the non-ASCII run a word begins with
starts an address when the character before it is at U+0380 or above, and an address ends before
such a character. Scanner cases run on both implementations (``impl``); the gate cases run on the
one provgate loads (the suite runs again with PROVGATE_NO_EXTENSIONS=1). docs/grammar.md
("Addresses glued to non-Latin text") has the rule and its limits."""

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


def test_extractor_version_is_10():
    # cached fact tables are keyed by it: v10 must not read v9 tables, which lack these addresses
    assert EXTRACTOR_VERSION >= 10


V10_CASES = [
    ("请联系alice@acme.io处理", [("identifier", "alice@acme.io")]),
    ("详情请发邮件至oncall@acme.io。", [("identifier", "oncall@acme.io")]),
    ("请联系ops@acme.io处理故障。", [("identifier", "ops@acme.io")]),
    ("请联系alice@acme.io 处理", [("identifier", "alice@acme.io")]),
    ("请联系 alice@acme.io处理", [("identifier", "alice@acme.io")]),
    ("“ops@acme.io”", [("identifier", "ops@acme.io")]),
    ("メールはbob.smith+ci@mail.example.com。", [("identifier", "bob.smith+ci@mail.example.com")]),
    ("пишите:ivan@mail.ru", [("identifier", "ivan@mail.ru")]),
    ("Почтаivan@mail.ru", [("identifier", "ivan@mail.ru")]),
    ("请联系Alice@ACME.io处理", [("identifier", "Alice@ACME.io")]),  # (the value is lower-cased)
    # not addresses, as before: a Latin letter before the local part, a one-label domain
    ("josé@x.io", [("identifier", "x.io")]),
    ("请联系alice@host处理", []),
    ("请联系alice处理", []),
]


@pytest.mark.parametrize("text, expected", V10_CASES, ids=[t for t, _ in V10_CASES])
def test_an_address_glued_to_non_latin_text(impl, text, expected):
    assert [(kind, literal) for kind, literal, _, _ in spans(impl, text)] == expected


@pytest.mark.parametrize("text, expected", [
    # an address ends before a non-Latin character, or a Latin letter still goes on the word
    ("mail alice@acme.io处理", [("identifier", "alice@acme.io")]),
    ("mail alice@acme.io。", [("identifier", "alice@acme.io")]),
    ("mail a@b.cafés now", [("identifier", "b.cafés")]),
    ("mail a@b.ioé now", [("identifier", "b.ioé")]),
])
def test_where_an_address_ends(impl, text, expected):
    assert [(k, t) for k, t, _, _ in spans(impl, text)] == expected


def test_many_glued_runs_are_read_once(impl):
    # each word tries one address at its first ASCII run: the scan stays linear in the text
    text = "文a.b" * 50_000
    assert spans(impl, text) == [] or all(k != "identifier" or "@" not in t for k, t, _, _ in spans(impl, text))
    text = "文a@b.io " * 20_000
    found = [t for k, t, _, _ in spans(impl, text) if k == "identifier"]
    assert found == ["a@b.io"] * 20_000


def test_glued_addresses_across_block_boundaries(impl):
    for pad in range(70):
        text = "x" * pad + " 请联系alice@acme.io处理 和 至bob@x.org。"
        found = [t for k, t, _, _ in spans(impl, text) if k == "identifier"]
        assert found == ["alice@acme.io", "bob@x.org"], (pad, found)


# -- the gate -------------------------------------------------------------------------------------

RT113_F02 = [
    ("请联系alice@acme.io处理", "请联系mallory@acme.io处理", "mallory@acme.io"),
    ("详情请发邮件至oncall@acme.io。", "详情请发邮件至attacker@acme.io。", "attacker@acme.io"),
    ("请联系alice@acme.io处理", "请联系alice@evil.io处理", "alice@evil.io"),
    ("“ops@acme.io”", "“mallory@acme.io”", "mallory@acme.io"),
]


@pytest.mark.parametrize("source, lie, value", RT113_F02, ids=[s for s, _, _ in RT113_F02])
def test_rt113_f02_a_glued_address_renamed_is_refused(source, lie, value):
    find(_rewrite(source, lie), "I2", value=value)
    find(_summarize(source, lie), "I1", block="s", value=value)


@pytest.mark.parametrize("source, text", [
    ("请联系ops@acme.io处理故障。", "Contact ops@acme.io about the outage."),
    ("请联系ops@acme.io处理故障。", "请联系ops@acme.io"),
    ("详情请发邮件至oncall@acme.io。", "Mail oncall@acme.io for details."),
    ("Mail oncall@acme.io for details.", "详情请发邮件至oncall@acme.io。"),
])
def test_rt113_f03_an_honest_summary_of_a_glued_address_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


def test_a_glued_address_kept_in_a_rewrite_is_accepted():
    assert_accepted(_rewrite("请联系alice@acme.io处理", "请联系 alice@acme.io 处理"), "lossless")


# -- parity ---------------------------------------------------------------------------------------

_V10_PIECES = st.sampled_from([
    WIDE, SMALL, "@", "请", "联系", "张三", "，", "。", "“", "”", "é", "ж", "\xce", "\xcd", "\uff41", "alice", "Alice",
    "ops", "a.b", "+ci", "%", "-", "_", ".", "io", "acme", "acme.io", "oncall@acme.io", "@acme.io", "x@y.org", " ",
    "\n", "2", "a1", "v4", "lodash", "4.17.21", "\x1b[0m", "[src:x]", "http://a.b/c", "key=", ":", '"', "/", "AB",
])
v10_text = st.lists(_V10_PIECES, max_size=30).map("".join)


@DIFFERENTIAL
@given(v10_text)
def test_differential_v10_pieces(impl, text):
    data = text.encode()
    assert_same_columns(columns(impl, data), _scanner_py.scan(data, 10**7, shortcut=False), data)


@DIFFERENTIAL
@given(v10_text)
def test_the_shortcut_agrees_on_v10_pieces(text):
    data = text.encode()
    assert_same_columns(_scanner_py.scan(data, 10**7, shortcut=True), _scanner_py.scan(data, 10**7, shortcut=False), data)
