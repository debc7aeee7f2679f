"""Grammar v12 (EXTRACTOR_VERSION 12): an e-mail address glued to a no-break space or to Latin-1
punctuation or symbols is an address (red team 116 F08, a fail-open and a false refusal).

Grammar v10 started an address glued to a non-ASCII run only after a character at U+0380 or above,
to keep Latin letters out (``josé@x.io``). But U+0080..U+037F also holds the no-break space U+00A0
(what ``&nbsp;`` becomes) and Latin-1 punctuation (« » ¿ ¡ · §, × ÷): ``Contact:\\u00a0alice@acme.io``
held only ``acme.io``, so renaming the person passed a rewrite and a summary, and an English summary
quoting the address was refused. Now a character of U+0080..U+037F that is no letter and no
combining mark is a boundary before the local part and after the domain, and the ASCII run that
ends a word is tried whatever the word begins with (``Owner·alice@acme.io``). Scanner cases run on
both implementations (``impl``); the gate cases run on the one provgate loads (the suite runs again
with PROVGATE_NO_EXTENSIONS=1). docs/grammar.md ("Addresses glued to non-Latin text") has the rule."""

from __future__ import annotations

import unicodedata

import pytest
from conftest import IMPLEMENTATIONS, load_implementation
from gate_helpers import assert_accepted, find
from hypothesis import given
from hypothesis import strategies as st
from scanner_helpers import DIFFERENTIAL, assert_same_columns, columns, spans
from test_grammar_v4 import _rewrite, _summarize

from provgate import _scanner_py
from provgate.facts import EXTRACTOR_VERSION

NBSP = "\u00a0"


@pytest.fixture(params=IMPLEMENTATIONS, scope="module")
def impl(request):
    return load_implementation("scanner", "_scanner_py", request.param)


def _ids(impl, text):
    return [(k, t) for k, t, _, _ in spans(impl, text) if k == "identifier"]


def test_extractor_version_is_12():
    # cached fact tables are keyed by it: v12 must not read v11 tables, which lack these addresses
    assert EXTRACTOR_VERSION >= 12


V12_CASES = [
    (f"Contact:{NBSP}alice@acme.io for access.", [("identifier", "alice@acme.io")]),
    (f"Contact: alice@acme.io{NBSP}for access.", [("identifier", "alice@acme.io")]),
    (f"Contact:{NBSP}alice@acme.io{NBSP}for", [("identifier", "alice@acme.io")]),
    ("Écrivez à «alice@acme.io» pour l'accès.", [("identifier", "alice@acme.io")]),
    (f"«{NBSP}alice@acme.io{NBSP}»", [("identifier", "alice@acme.io")]),
    ("¿Dudas? ¿alice@acme.io?", [("identifier", "alice@acme.io")]),
    ("¡alice@acme.io!", [("identifier", "alice@acme.io")]),
    ("Owner·alice@acme.io", [("identifier", "alice@acme.io")]),
    ("§alice@acme.io", [("identifier", "alice@acme.io")]),
    ("2×alice@acme.io", [("identifier", "alice@acme.io")]),
    ("a÷bob.smith+ci@mail.example.com", [("identifier", "bob.smith+ci@mail.example.com")]),
    ("x\u0085alice@acme.io", [("identifier", "alice@acme.io")]),  # (a C1 control: NEL)
    # the ASCII run that ends the word is tried, whatever the word begins with
    ("请联系alice或bob@x.io", [("identifier", "bob@x.io")]),
    ("x请alice@acme.io", [("identifier", "alice@acme.io")]),
    # a letter or a combining mark glues as before: no address
    ("josé@x.io", [("identifier", "x.io")]),
    ("naïve_bayes@x.io", [("identifier", "naïve_bayes"), ("identifier", "x.io")]),
    ("µalice@x.io", [("identifier", "x.io")]),
    ("ªalice@x.io", [("identifier", "x.io")]),
    ("e\u0301alice@x.io", [("identifier", "x.io")]),
    ("in\u00adfo@x.io", [("identifier", "x.io")]),  # (the soft hyphen stands inside words)
    ("mail a@b.cafés now", [("identifier", "b.cafés")]),
    ("mail a@b.io\u00b5 now", [("identifier", "b.io\u00b5")]),
]


@pytest.mark.parametrize("text, expected", V12_CASES, ids=[t for t, _ in V12_CASES])
def test_an_address_after_a_latin_boundary(impl, text, expected):
    assert _ids(impl, text) == expected


def test_the_boundary_table_is_the_non_letters_of_latin():
    # the table is fixed (not the running Python's Unicode data), and it is what it says: every
    # character of U+0080..U+037F that is no letter and no combining mark, but the soft hyphen
    table = _scanner_py._LATIN_BOUNDARY
    for cp in range(0x80, 0x380):
        category = unicodedata.category(chr(cp))
        if cp in (0x378, 0x379):  # (unassigned)
            assert cp in table
        elif cp == 0xAD:
            assert cp not in table
        else:
            assert (cp in table) == (category[0] not in "LM"), (hex(cp), category)


def test_each_boundary_character_before_and_after(impl):
    for cp in sorted(_scanner_py._LATIN_BOUNDARY):
        ch = chr(cp)
        assert _ids(impl, f"w{ch}alice@acme.io{ch}x") == [("identifier", "alice@acme.io")], hex(cp)


def test_many_glued_words_are_read_once(impl):
    # one try per word, at the ASCII run that ends it: linear
    text = ("a" * 50 + NBSP) * 20_000 + "b@c.io"
    assert _ids(impl, text) == [("identifier", "b@c.io")]
    text = f"x{NBSP}a@b.io " * 20_000
    assert _ids(impl, text) == [("identifier", "a@b.io")] * 20_000


def test_across_block_boundaries(impl):
    for pad in range(70):
        text = "x" * pad + f" Contact:{NBSP}alice@acme.io{NBSP}and «bob@x.org»"
        assert [t for _, t in _ids(impl, text)] == ["alice@acme.io", "bob@x.org"], pad


# -- the gate: red team 116 F08 -------------------------------------------------------------------

RT116_F08 = [
    f"Contact:{NBSP}alice@acme.io for access.",
    "Écrivez à «alice@acme.io» pour l'accès.",
    "¿Dudas? ¿alice@acme.io?",
    "Owner·alice@acme.io",
]


@pytest.mark.parametrize("source", RT116_F08)
def test_rt116_f08_a_renamed_address_is_refused(source):
    find(_rewrite(source, source.replace("alice", "mallory")), "I2", value="mallory@acme.io")
    find(_summarize(source, "Access requests go to mallory@acme.io [src:tool:c1]."), "I1", block="s",
         value="mallory@acme.io")


@pytest.mark.parametrize("source", RT116_F08)
def test_rt116_f08_an_honest_summary_is_accepted(source):
    assert_accepted(_summarize(source, "Access requests go to alice@acme.io [src:tool:c1]."))


def test_a_space_for_a_no_break_space_is_lossless():
    assert_accepted(_rewrite(f"Contact:{NBSP}alice@acme.io for access.", "Contact: alice@acme.io for access."),
                    "lossless")


# -- parity ---------------------------------------------------------------------------------------

_V12_PIECES = st.sampled_from([
    NBSP, "«", "»", "¿", "¡", "·", "§", "×", "÷", "µ", "ª", "é", "\u0301", "\u00ad", "\u0085", "\u02c6", "\u037e",
    "\u0375", "Ϳ", "ж", "请", "。", "@", "alice", "Alice", "a.b", "+ci", "%", "-", "_", ".", "io", "acme.io",
    "@acme.io", "x@y.org", " ", "\n", "2", "v4", "\x1b[0m", "[src:x]", "key=", ":", "/", "\uff20",
])
v12_text = st.lists(_V12_PIECES, max_size=30).map("".join)


@DIFFERENTIAL
@given(v12_text)
def test_differential_v12_pieces(impl, text):
    data = text.encode()
    assert_same_columns(columns(impl, data), _scanner_py.scan(data, 10**7, shortcut=False), data)


@DIFFERENTIAL
@given(v12_text)
def test_the_shortcut_agrees_on_v12_pieces(text):
    data = text.encode()
    assert_same_columns(_scanner_py.scan(data, 10**7, shortcut=True), _scanner_py.scan(data, 10**7, shortcut=False), data)
