"""Grammar v13 (EXTRACTOR_VERSION 13): a run of decimal digits written in full-width
(U+FF10-U+FF19), Arabic-Indic (U+0660-U+0669), Extended Arabic-Indic (U+06F0-U+06F9) or
Devanagari (U+0966-U+096F) digits is read as the ASCII digits it stands for (red team 116).

Those digits are non-ASCII bytes, so word bytes: ``Wait ４０ seconds`` held no fact, and a summary
or a rewrite could state any figure that way, grounded by nothing, and be accepted. Now the token
layer reads each such digit as its ASCII digit (the spans keep the text's own byte offsets), and
a number's value (a digest's, an address's) is normalised to ASCII digits, so ``３０`` grounds
``30`` and the reverse, and ``４０`` for ``30`` is refused. Scanner cases run on both
implementations (``impl``); the gate cases run on the one provgate loads (the suite runs again
with PROVGATE_NO_EXTENSIONS=1). docs/grammar.md ("Digits of other scripts") has the rule and its
limits."""

from __future__ import annotations

import pytest
from conftest import IMPLEMENTATIONS, load_implementation
from gate_helpers import assert_accepted, find
from hypothesis import given
from hypothesis import strategies as st
from scanner_helpers import DIFFERENTIAL, assert_same_columns, columns, spans
from test_grammar_v4 import _rewrite, _summarize

from provgate import _scanner_py
from provgate.facts import EXTRACTOR_VERSION, Kind, extract, normalize_value

FW = "０１２３４５６７８９"  # U+FF10..
AR = "٠١٢٣٤٥٦٧٨٩"  # U+0660..
EA = "۰۱۲۳۴۵۶۷۸۹"  # U+06F0..
DV = "०१२३४५६७८९"  # U+0966..
SCRIPTS = {"full-width": FW, "arabic-indic": AR, "extended-arabic-indic": EA, "devanagari": DV}


def digits(script: str, ascii_digits: str) -> str:
    return "".join(SCRIPTS[script][int(c)] if c.isdigit() else c for c in ascii_digits)


@pytest.fixture(params=IMPLEMENTATIONS, scope="module")
def impl(request):
    return load_implementation("scanner", "_scanner_py", request.param)


def test_extractor_version_is_13():
    # cached fact tables are keyed by it: v13 must not read older tables, which lack these numbers
    assert EXTRACTOR_VERSION >= 13


def test_the_digit_tables_are_the_unicode_decimal_digits():
    import unicodedata
    for table in SCRIPTS.values():
        assert [unicodedata.decimal(c) for c in table] == list(range(10))


@pytest.mark.parametrize("script", sorted(SCRIPTS))
@pytest.mark.parametrize("template, expected", [
    ("Wait 30 seconds.", [("number", "30", "30")]),
    ("Retry 3 times.", [("number", "3", "3")]),
    ("Took 1,000 ms", [("number", "1,000", "1000")]),
    ("version 1.2.3 out", [("number", "1.2.3", "1.2.3")]),
    ("now 50% done", [("number", "50%", "50%")]),
    ("-0 and +5", [("number", "-0", "0"), ("number", "+5", "5")]),
    ("wait 30s", [("number", "30s", "30s")]),
    ("at v2.0 now", [("number", "v2.0", "v2.0")]),
    ("retries=3", [("kv", "retries=3", "3")]),
    ("x 12 y 345 z", [("number", "12", "12"), ("number", "345", "345")]),
])
def test_digits_of_other_scripts_are_numbers(impl, script, template, expected):
    text = digits(script, template)
    got = [(kind, literal, value) for kind, literal, _, value in spans(impl, text)]
    assert got == [(k, digits(script, lit), v) for k, lit, v in expected]


@pytest.mark.parametrize("text, expected", [
    ("Wait ３０ seconds", [("number", "３０", "30")]),
    ("انتظر ٣٠ ثانية", [("number", "٣٠", "30")]),
    ("صبر کنید ۳۰ ثانیه", [("number", "۳۰", "30")]),
    ("३० सेकंड रुकें", [("number", "३०", "30")]),
    # mixed forms are one number, read as its ASCII digits
    ("Wait 3０ seconds", [("number", "3０", "30")]),
    ("Wait ３0 seconds", [("number", "３0", "30")]),
    ("Wait ３٠ seconds", [("number", "３٠", "30")]),
    # a digest or an address is lower-cased with its digits read as ASCII
    ("commit ３ab４cd５ef", [("digest", "３ab４cd５ef", "3ab4cd5ef")]),
    ("with the full-width at ＠alice ３", [("identifier", "alice", "alice"), ("number", "３", "3")]),
    # other non-ASCII number signs are not read: the full-width full stop U+FF0E is no "." but a
    # word byte, so the word is an identifier kept as written, as "3．5" is (a false refusal of
    # "3.5" for it is left open; a changed figure is still refused)
    ("Wait ３．５ s", [("identifier", "３．５", "３．５")]),
    ("Wait 3．5 s", [("identifier", "3．5", "3．5")]),
    ("Used ４０％ now", [("identifier", "４０％", "４０％")]),
    ("Wait ① s and ¹²", []),
    # glued to CJK text, as ASCII digits are: one word (an identifier, kept as written)
    ("等待３０秒", [("identifier", "等待３０秒", "等待３０秒")]),
    ("等待30秒", [("identifier", "等待30秒", "等待30秒")]),
])
def test_the_spans_keep_the_texts_own_offsets(impl, text, expected):
    assert [(k, lit, v) for k, lit, _, v in spans(impl, text)] == expected


def test_offsets_are_the_texts_bytes(impl):
    text = "a ３ b ٤٤ c १२३ d 7"
    data = text.encode()
    _kind, start, end = columns(impl, data)[:3]
    got = [data[s:e].decode() for s, e in zip(start.tolist(), end.tolist())]
    assert got == ["３", "٤٤", "१२३", "7"]


def test_the_value_is_the_ascii_number():
    assert normalize_value(Kind.NUMBER, "１,０００") == "1000"
    assert normalize_value(Kind.NUMBER, "-٠") == "0"
    assert normalize_value(Kind.KV, "３") == "3"
    assert normalize_value(Kind.DIGEST, "ＡB３") != "ab3"  # (a full-width letter is no hex digit)
    assert normalize_value(Kind.IDENTIFIER, "eu-west-１") == "eu-west-１"  # raw values as written
    assert _scanner_py.fold_digits("x१२３".encode()) == b"x123"


def test_the_fingerprints_agree_with_ascii_digits():
    # the native and reference fingerprinting both normalise (facts.extract uses the one loaded)
    a, b = extract("Wait ３０ seconds"), extract("Wait 30 seconds")
    assert a.fp_value.tolist() == b.fp_value.tolist()
    assert a.fp_fact.tolist() == b.fp_fact.tolist()
    c = extract("retries=٣ and id ３abcdef")
    d = extract("retries=3 and id 3abcdef")
    assert c.fp_fact.tolist() == d.fp_fact.tolist()
    assert extract("Wait ４０ seconds").fp_value.tolist() != b.fp_value.tolist()


def test_a_long_run_is_one_number_and_many_runs_each_one(impl):
    # linear: the digits are folded in one pass and every row's offsets mapped by a binary
    # search (counted below on the reference); a 1 MB text of digits is scanned whole
    run = "３" * 350_000
    got = [(k, len(lit)) for k, lit, _, _ in spans(impl, run)]
    assert got == [("number", 350_000)]
    many = "٣٤ " * 250_000
    cols = columns(impl, many.encode())
    assert len(cols[0]) == 250_000
    assert cols[1][-1] == len(many.encode()) - 5


def test_the_reference_folds_each_digit_once(monkeypatch):
    calls = {"fold": 0, "map": 0}
    real_fold, real_bisect = _scanner_py._ascii_digit, _scanner_py.bisect_left

    def fold(m):
        calls["fold"] += 1
        return real_fold(m)

    def bisect(a, x):
        calls["map"] += 1
        return real_bisect(a, x)

    monkeypatch.setattr(_scanner_py, "_ascii_digit", fold)
    monkeypatch.setattr(_scanner_py, "bisect_left", bisect)
    for n in (1_000, 20_000):
        calls.update(fold=0, map=0)
        cols = _scanner_py.scan(("x ٣٤ " * n).encode(), 10**7)
        assert calls["fold"] == 2 * n  # one call per digit
        assert calls["map"] == 4 * len(cols[0])  # start, end, value start and end of each row


# -- the gate -------------------------------------------------------------------------------------

RT116 = [
    ("Wait 30 seconds.", "Wait ４０ seconds [src:tool:c1].", "40"),
    ("Wait 30 seconds.", "Wait ٤٠ seconds [src:tool:c1].", "40"),
    ("Wait 30 seconds.", "Wait ۴۰ seconds [src:tool:c1].", "40"),
    ("Wait 30 seconds.", "Wait ४० seconds [src:tool:c1].", "40"),
    ("Retry 3 times.", "Retry ５ times [src:tool:c1].", "5"),
    ("Wait ３０ seconds.", "Wait 40 seconds [src:tool:c1].", "40"),
    ("Wait ３０ seconds.", "Wait ４０ seconds [src:tool:c1].", "40"),
    ("Set retries=3 now.", "Set retries=５ [src:tool:c1].", "5"),
]


@pytest.mark.parametrize("source, lie, value", RT116, ids=[t for _, t, _ in RT116])
def test_rt116_a_figure_in_other_digits_is_refused_in_a_summary(source, lie, value):
    find(_summarize(source, lie), "I1", block="s", value=value)


@pytest.mark.parametrize("source, lie, value", RT116, ids=[t for _, t, _ in RT116])
def test_rt116_a_figure_in_other_digits_is_refused_in_a_rewrite(source, lie, value):
    find(_rewrite(source, lie.replace(" [src:tool:c1]", "")), "I2", value=value)


@pytest.mark.parametrize("source, text", [
    ("Wait 30 seconds.", "Wait ３０ seconds [src:tool:c1]."),
    ("Wait 30 seconds.", "Wait ٣٠ seconds [src:tool:c1]."),
    ("Wait ３０ seconds.", "Wait 30 seconds [src:tool:c1]."),
    ("Wait ۳۰ seconds.", "Wait 30 seconds [src:tool:c1]."),
    ("Wait ३० seconds.", "Wait 30 seconds [src:tool:c1]."),
    ("Retry ３ times.", "Retry 3 times [src:tool:c1]."),
])
def test_the_same_figure_in_either_digits_is_grounded(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("before, after", [
    ("Wait 30 seconds.", "Wait ３０ seconds."),
    ("Wait ３０ seconds.", "Wait 30 seconds."),
    ("Retry ٣ times.", "Retry 3 times."),
])
def test_the_same_figure_in_either_digits_keeps_every_fact(before, after):
    assert_accepted(_rewrite(before, after))


def test_a_figure_in_other_digits_dropped_is_refused():
    find(_rewrite("Wait ３０ seconds. Then go.", "Then go."), "I2", value="30")


# the unit rules read a figure in other digits as the number it is (its rows keep the text's
# offsets; the look for a digit with a unit after it reads the digits folded)
@pytest.mark.parametrize("before, after", [
    ("Wait ３０ seconds.", "Wait ３０ minutes."),
    ("Wait 30 seconds.", "Wait ３０ minutes."),
    ("Wait ٣٠ seconds.", "Wait 30 minutes."),
    ("Disk ١٢ GB free.", "Disk ١٢ TB free."),
])
def test_a_unit_changed_beside_a_figure_in_other_digits_is_refused(before, after):
    find(_rewrite(before, after), "I2", evidence__change="unit_changed")


@pytest.mark.parametrize("source, text, value", [
    ("Wait 30 seconds.", "Wait ３０ minutes [src:tool:c1].", "30"),
    ("Wait ３０ seconds.", "Wait 30 minutes [src:tool:c1].", "30"),
    ("Wait ３０ seconds.", "Wait ३० minutes [src:tool:c1].", "30"),
])
def test_a_summary_changing_the_unit_of_a_figure_in_other_digits_is_refused(source, text, value):
    find(_summarize(source, text), "I1", block="s", value=value, evidence__change="unit_changed")


@pytest.mark.parametrize("source, text", [
    ("Wait 30 seconds.", "Wait ３０ s [src:tool:c1]."),
    ("Wait ३० seconds.", "Wait 30 s [src:tool:c1]."),
])
def test_a_unit_written_another_way_beside_other_digits_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


def test_figures_in_other_digits_traded_are_refused():
    find(_rewrite("timeout ３０ s, limit ６０ s.", "timeout ６０ s, limit ３０ s."), "I2",
         evidence__change="traded_in_place")


def test_fold_digits_agrees(impl):
    for data in (b"", b"abc", "x ３٤۵६ y ＠ z".encode(), "（）".encode(), "३".encode() * 100, b"\xef\xbc",
                 b"\xef\xbc\x93", "Wait ３０ s".encode() * 1000):
        assert impl.fold_digits(data) == _scanner_py.fold_digits(data)
    plain = b"no digits of other scripts here: 30 s"
    assert impl.fold_digits(plain) is plain
    with pytest.raises(TypeError):
        impl.fold_digits("text")


# -- parity ---------------------------------------------------------------------------------------

_V13_PIECES = st.sampled_from([
    *FW[:3], *AR[:3], *EA[:3], *DV[:3], "０", "٩", "۹", "९", "１２", "٣٤", "\uff0e", "．", "\uff20", "＠", "\ufe6b",
    "\xef", "\xd9", "\xdb", "\xe0", "\u0669", "\u066b", "\u06f9", "\u096f", "\u0965", "\u0970", "\uff1a",
    "1", "0", "42", ".", ",", "-", "+", "%", "e", "x", "0x", "v", "s", "ms", " ", "\n", "=", ":", '"', "'", "`",
    "retries", "Wait", "请", "秒", "@", "alice", "acme.io", "/", "[src:x]", "\x1b[0m", "_", "abc", "é",
])
v13_text = st.lists(_V13_PIECES, max_size=30).map("".join)


@DIFFERENTIAL
@given(v13_text)
def test_differential_v13_pieces(impl, text):
    data = text.encode()
    assert_same_columns(columns(impl, data), _scanner_py.scan(data, 10**7, shortcut=False), data)


@DIFFERENTIAL
@given(v13_text)
def test_the_shortcut_agrees_on_v13_pieces(text):
    data = text.encode()
    assert_same_columns(_scanner_py.scan(data, 10**7, shortcut=True), _scanner_py.scan(data, 10**7, shortcut=False), data)


@DIFFERENTIAL
@given(v13_text)
def test_fingerprints_agree_on_v13_pieces(impl, text):
    data = text.encode()
    key = bytes(range(32))
    a = impl.extract_columns(data, 10**7, key)
    b = _scanner_py.extract_columns(data, 10**7, key)
    for x, y in zip(a, b):
        assert x.tolist() == y.tolist()
