"""Whitespace-normalised text equality: native agrees with the reference, the reference agrees
with the gate's documented normalisation (normalize_whitespace), and texts equal under it hold
the same facts (fences included: red team 11, y06)."""

from __future__ import annotations

import importlib
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from conftest import IMPLEMENTATIONS, NO_EXTENSIONS, load_implementation
from provgate import _scanner_py, _textnorm, _textnorm_py
from provgate.errors import InvalidArgumentError
from provgate.facts import extract
from provgate.gate import normalize_whitespace

# a fenced block as docs/grammar.md describes it, found in the whole text at once (the reference
# and the scanner go line by line): the opening line, then either the lines up to the first
# closing line with at least as many backticks (or tildes, of a tilde fence), or (unclosed) the
# rest of the text
FENCED = re.compile(
    r"^( {0,3}(?:(`{3,})[^`\n]*|(~{3,})[^\n]*))"            # 1: opening line, 2: backticks, 3: tildes
    r"(?:\n((?:[^\n]*\n)*?)( {0,3}(?:\2`*|\3~*)[ \t\r]*)(?=\n|\Z)"  # 4: the lines inside, 5: closing line
    r"|\n(.*)"                                             # 6: an unclosed fence's lines
    r"|\Z)",
    re.MULTILINE | re.DOTALL)
INSIDE = "\ue000"  # stands for a fence's inside in the skeleton (no generated text holds it)


def documented_normalisation(text: str) -> tuple[str, list[str]]:
    """docs/gate.md's rule written a second, independent way (regexes), as the oracle: every
    fence's inside is set aside verbatim; in what is left, \r\n to \n, trailing spaces and tabs
    of each line removed, leading and trailing blank lines dropped."""
    insides: list[str] = []

    def set_aside(m: re.Match) -> str:
        if m.group(4) is not None:
            insides.append(m.group(4))
            return f"{m.group(1)}\n{INSIDE}\n{m.group(5)}"
        if m.group(6) is not None:
            insides.append(m.group(6))
            return f"{m.group(1)}\n{INSIDE}"
        return m.group(1)

    text = FENCED.sub(set_aside, text)
    text = text.replace("\r\n", "\n")
    text = re.sub(r"[ \t]+(?=\n|\Z)", "", text)
    return text.strip("\n"), insides


def _load(which: str):
    return load_implementation("textnorm", "_textnorm_py", which)


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    return _load(request.param)


def same(impl, a: str, b: str) -> bool:
    out = impl.same_after_normalisation([a], [b])
    assert out.dtype == np.bool_ and out.shape == (1,)
    return bool(out[0])


CASES = [
    # (a, b, equal after normalisation)
    ("x", "x", True),
    ("", "", True),
    ("", "\n\n  \t\n", True),                    # only blank lines: nothing left on either side
    ("a = 1\nb = 2\n", "a = 1  \nb = 2\t\n\n", True),
    ("a = 1\r\nb = 2\r\n", "a = 1\nb = 2", True),
    ("\n\n  a\n", "  a", True),                 # leading blank lines go, indentation stays
    ("  a", "a", False),
    ("a\n\nb", "a\nb", False),                  # a blank line inside the text is kept
    ("a\rb", "a\nb", False),                    # a lone \r is text, not a line break
    ("a\r", "a", False),
    ("a \r\n", "a", True),                      # \r\n first, then trailing blanks
    ("a\r \n", "a\r", True),
    ("a\r\r\n", "a\r", True),
    ("a b", "a  b", False),                     # nothing inside a line changes
    ("retries=3", "retries=5", False),
    ("é\n", "é", True),                         # one-byte storage vs ...
    ("é—\n", "é—", True),                       # ... two-byte ...
    ("😀 x  \n", "😀 x", True),                  # ... four-byte
    ("é", "\u0100"[:0] + "é", True),
    ("aé", "a\u0100", False),
    ("a\u0100 ", "a\u0100", True),
    ("\ud800 \n", "\ud800", True),              # lone surrogates are characters here
    ("x\n\ny\n\n", "x\n\ny", True),
    ("x\n \ny", "x\n\ny", True),                # a line of blanks is a blank line
    # inside a fenced block every line is its value, verbatim (red team 11, y06)
    ('```diff\n-K="x7"  \t\n+K="x7"\n```\n', '```diff\n-K="x7"\n+K="x7"\n```\n', False),
    ("```\na \n```", "```\na\n```", False),
    ("```\na\r\n\r\n```", "```\na\n\n```", False),  # \r\n inside is part of the value
    ("```\n\n```", "```\n```", False),           # a blank line inside is kept
    ("```\n \n```", "```\n\n```", False),         # ... and its blanks
    ("```diff  \r\na\n```\t\r\n\n", "```diff\na\n```", True),  # the fence lines themselves are not inside
    ("x \n```\na\n```\ny\t", "x\n```\na\n```\ny", True),  # nor the lines around the fence
    ("```\na\n", "```\na\n\n", False),          # an unclosed fence keeps its blank lines
    ("```\na\n", "```\na", False),              # ... even its last line break
    ("```\na  ", "```\na", False),               # ... and the blanks of its last line
    ("```", "```\n", False),
    ("````\na \n```\n````", "````\na\n```\n````", False),  # ``` does not close ````
    ("````\na\n`````\nb \n", "````\na\n`````\nb", True),  # ````` does
    ("    ```\na \n", "    ```\na", True),       # four spaces: no fence
    ("``` `\na \n", "``` `\na", True),          # a backtick in the info string: no fence
    ("```\na\n```x\nb \n", "```\na\n```x\nb \n", True),  # ```x closes nothing
    ("```\na\n```x\nb \n", "```\na\n```x\nb", False),
    ("```\n```\na \n", "```\n```\na", True),    # closed at once: what follows is outside
    ("a\n```\n😀 \n```", "a\n```\n😀\n```", False),
    ("é\n```\n😀\n```\t", "é\n```\n😀\n```", True),
    # lines of two- and four-byte storage (each kind has its own line search)
    ("—a \n—b\n\n", "—a\n—b", True),
    ("—a\n—b", "—a\n—c", False),
    ("😀a\t\n😀b \n", "😀a\n😀b", True),
    ("😀a\n😀b", "😀a\n😀b\n😀", False),
]


@pytest.mark.parametrize("a, b, equal", CASES)
def test_fixed_cases(impl, a, b, equal):
    assert same(impl, a, b) is equal
    assert same(impl, b, a) is equal
    assert (documented_normalisation(a) == documented_normalisation(b)) is equal


def test_fence_lines_are_the_scanners():
    # the reference spells the scanner's fence patterns over characters: the same patterns
    assert _textnorm_py._FENCE_OPEN.pattern == _scanner_py._FENCE_OPEN.pattern.decode()
    assert _textnorm_py._FENCE_CLOSE.pattern == _scanner_py._FENCE_CLOSE.pattern.decode()


def test_mixed_storage_kinds_in_one_batch(impl):
    a = ["x", "é  ", "— \n", "😀", "plain\r\n"]
    b = ["x\n", "é", "—", "😀\t", "plain"]
    assert impl.same_after_normalisation(a, b).tolist() == [True] * 5
    assert impl.same_after_normalisation(tuple(a), tuple(reversed(b))).tolist() == [False, False, True, False, False]


def test_empty_batch(impl):
    out = impl.same_after_normalisation([], [])
    assert out.dtype == np.bool_ and out.shape == (0,)


def test_long_texts(impl):
    a = "line of text  \n" * 20_000
    assert same(impl, a, a.replace("  \n", "\n"))
    assert not same(impl, a, a[:-5] + "tExt\n")
    assert same(impl, "é" * 70_000 + "\n", "é" * 70_000)
    for wide in ("—", "😀"):
        b = (wide + " line  \n") * 5_000
        assert same(impl, b, b.replace("  \n", "\n"))
        assert not same(impl, b, b[:-4] + "x\n")


def test_str_subclass_is_accepted(impl):
    class Text(str):
        pass

    assert impl.same_after_normalisation([Text("a \n")], ["a"]).tolist() == [True]


@pytest.mark.parametrize("a, b, exc, message", [
    ("ab", ["ab"], TypeError, "a must be a list or tuple of str, not str"),
    (["a"], None, TypeError, "b must be a list or tuple of str, not NoneType"),
    (["a", b"b"], ["a", "b"], TypeError, r"a\[1\] must be str, not bytes"),
    (["a"], [3], TypeError, r"b\[0\] must be str, not int"),
    (["a"], ["a", "b"], InvalidArgumentError, "same length, got 1 and 2"),
])
def test_bad_input(impl, a, b, exc, message):
    with pytest.raises(exc, match=message):
        impl.same_after_normalisation(a, b)


# generated texts: few distinct characters, so that blanks, line endings and near-equal pairs
# are frequent; characters of every storage width
ALPHABET = st.sampled_from(["a", "b", " ", "\t", "\n", "\r", "é", "—", "😀", "\x00", "\ud800",
                            "`", "```", "\n```", "\n````"])
TEXT = st.lists(ALPHABET, max_size=40).map("".join)
EDITS = st.sampled_from(["", " ", "\t", "\n", "\r\n", "  \n", "\n\n"])


@st.composite
def pairs(draw):
    a = draw(TEXT)
    if draw(st.booleans()):
        # a whitespace-only variant of a: blanks at line ends, line endings, blank lines around
        lines = a.split("\n")
        lines = [line + draw(st.sampled_from(["", " ", "\t ", "  "])) for line in lines]
        b = draw(EDITS) + draw(st.sampled_from(["\n", "\r\n"])).join(lines) + draw(EDITS)
    else:
        b = draw(TEXT)
    return a, b


@settings(max_examples=examples(800), deadline=None)
@given(pair=pairs())
def test_reference_is_the_documented_normalisation(pair):
    a, b = pair
    reference = _load("reference")
    assert same(reference, a, b) == (documented_normalisation(a) == documented_normalisation(b))
    # the gate's normalize_whitespace is that rule, as a string
    assert normalize_whitespace(a) == "\n".join(_textnorm_py.normalised_lines(a))


# texts the scanner reads facts from: fences, quotes, kv lines, numbers, blanks and line endings
FACT_PIECES = st.sampled_from(["```", "```diff", "````", "\n", "\r\n", "\r", " ", "\t", "  ",
                               "a", "k=3", "k: 5", '"q"', "'q'", "`q`", "x7", "-", "+", "é", "😀"])
FACT_TEXT = st.lists(FACT_PIECES, max_size=30).map("".join)


@st.composite
def whitespace_variants(draw):
    a = draw(FACT_TEXT)
    lines = a.split("\n")
    lines = [line + draw(st.sampled_from(["", "", " ", "\t ", "\r"])) for line in lines]
    return a, draw(EDITS) + draw(st.sampled_from(["\n", "\r\n"])).join(lines) + draw(EDITS)


def facts(text: str) -> list[tuple[int, str, str]]:
    return sorted((int(s.kind), s.key, s.value) for s in extract(text))


@settings(max_examples=examples(600), deadline=None)
@given(pair=whitespace_variants())
def test_texts_equal_after_normalisation_hold_the_same_facts(pair):
    # what the structural fast path relies on: a block whitespace-matched to its pre block keeps
    # its pre block's facts, so those must be its own facts too (fence values verbatim)
    a, b = pair
    if same(_load("reference"), a, b):
        assert facts(a) == facts(b)


def test_fence_with_stripped_trailing_blanks_changes_a_fact(impl):
    # red team 11, y06: the diff line's trailing blanks are part of the fence's value
    pre = '```diff\n-API_KEY_SUFFIX="x7"  \t\n+API_KEY_SUFFIX="x7"\n```\n'
    post = '```diff\n-API_KEY_SUFFIX="x7"\n+API_KEY_SUFFIX="x7"\n```\n'
    assert facts(pre) != facts(post)
    assert not same(impl, pre, post)
    assert same(impl, pre, pre.replace("```diff\n", "```diff \t\n").replace("```\n", "```  \n\n\n"))


@settings(max_examples=examples(800), deadline=None)
@given(batch=st.lists(pairs(), max_size=8))
def test_every_implementation_equals_the_reference(batch):
    a = [x for x, _ in batch]
    b = [y for _, y in batch]
    expected = _load("reference").same_after_normalisation(a, b).tolist()
    for which in IMPLEMENTATIONS:
        assert _load(which).same_after_normalisation(a, b).tolist() == expected


def test_switch_loaded_the_native_build():
    if NO_EXTENSIONS:
        assert _textnorm.IMPLEMENTATION == "reference"
        return
    assert _textnorm.IMPLEMENTATION == "native"
    assert _textnorm.same_after_normalisation is importlib.import_module("provgate._ext.textnorm").same_after_normalisation


# same_without_spaces: UTF-8 texts equal once every ASCII space byte is deleted (the gate's
# negation rule passes over a block a rewrite only re-indented or re-wrapped)

@pytest.mark.parametrize("a, b, equal", [
    (b"", b"", True),
    (b"", b" \t\n\x0b\x0c\r", True),
    (b"do not run", b"do  not\nrun", True),
    (b"do not run", b"donotrun", True),
    (b"do not run", b"do run", False),
    (b"    indented line one\n    indented line two\n", b"  indented line one\n  indented line two\n", True),
    (b"abcdefgh12345678", b"abcdefgh1234567", False),  # (one byte past eight equal ones)
    (b"abcdefgh 12345678", b"abcdefgh12345678 ", True),
    (b"x\xc2\xa0y", b"x y", False),  # (a no-break space is text here)
    (b"a\x00b", b"a b", False),
    (b"a\x1cb", b"ab", False),  # (bytes.split's whitespace is ASCII's six)
])
def test_same_without_spaces_fixed_cases(impl, a, b, equal):
    assert impl.same_without_spaces([a], [b]).tolist() == [equal]
    assert impl.same_without_spaces([b], [a]).tolist() == [equal]


def test_same_without_spaces_empty_batch(impl):
    out = impl.same_without_spaces([], ())
    assert out.dtype == np.bool_ and out.shape == (0,)


def test_same_without_spaces_long_texts(impl):
    line = b"copied shard to /srv/data ok; not restarted\n"
    a = b"".join(b"    " + line for _ in range(5000))
    b = b"".join(b"  " + line for _ in range(5000))
    assert impl.same_without_spaces([a, a, a], [b, b.replace(b"not ", b"", 1), b[:-2]]).tolist() == [True, False, False]


@pytest.mark.parametrize("a, b, exc, message", [
    (b"ab", [b"ab"], TypeError, "a must be a list or tuple of bytes, not bytes"),
    ([b"a"], None, TypeError, "b must be a list or tuple of bytes, not NoneType"),
    ([b"a", "b"], [b"a", b"b"], TypeError, r"a\[1\] must be bytes, not str"),
    ([b"a"], [bytearray(b"a")], TypeError, r"b\[0\] must be bytes, not bytearray"),
    ([b"a"], [b"a", b"b"], InvalidArgumentError, "same length, got 1 and 2"),
])
def test_same_without_spaces_bad_input(impl, a, b, exc, message):
    with pytest.raises(exc, match=message):
        impl.same_without_spaces(a, b)


BYTE_PIECES = st.sampled_from([b"a", b"b", b" ", b"\t", b"\n", b"\r", b"\x0b", b"\x0c", b"\x00", b"\xc3\xa9",
                               b"abcdefgh", b"        ", b"not "])


@st.composite
def byte_pairs(draw):
    a = b"".join(draw(st.lists(BYTE_PIECES, max_size=40)))
    if draw(st.booleans()):
        # a spaces-only variant of a: each space run widened, narrowed or moved by a byte
        out = bytearray()
        for c in a:
            if c in b" \t\n\r\x0b\x0c":
                out += draw(st.sampled_from([b"", b" ", b"\t\t", b"\n "]))
            else:
                out.append(c)
                if draw(st.integers(0, 9)) == 0:
                    out += b" "
        b = bytes(out)
    else:
        b = b"".join(draw(st.lists(BYTE_PIECES, max_size=40)))
    return a, b


@settings(max_examples=examples(800), deadline=None)
@given(batch=st.lists(byte_pairs(), max_size=8))
def test_same_without_spaces_every_implementation_equals_the_reference(batch):
    a = [x for x, _ in batch]
    b = [y for _, y in batch]
    expected = _load("reference").same_without_spaces(a, b).tolist()
    # (the spec written a second way: bytes.split splits at the same six bytes)
    assert expected == [b"".join(x.split()) == b"".join(y.split()) for x, y in batch]
    for which in IMPLEMENTATIONS:
        assert _load(which).same_without_spaces(a, b).tolist() == expected


def test_switch_loaded_the_native_same_without_spaces():
    if NO_EXTENSIONS:
        assert _textnorm.IMPLEMENTATION == "reference"
        return
    assert _textnorm.same_without_spaces is importlib.import_module("provgate._ext.textnorm").same_without_spaces


# same_words: same_without_spaces, and the same words (red team 118, F17: "nowhere" -> "now
# here" passed the gate's negation rule as only re-spaced)

@pytest.mark.parametrize("a, b, equal", [
    (b"", b"", True),
    (b"do not run", b"do  not\nrun", True),
    (b"do not run", b"donotrun", False),  # (words joined)
    (b"The key is nowhere.", b"The key is now here.", False),  # (a word split)
    (b"a, b", b"a , b", True), (b"a,b", b"a, b", True), (b"(x)", b"( x )", True),  # (beside punctuation)
    (b"    indented line one\n    indented line two\n", b"  indented line one\n  indented line two\n", True),
    (b"abcdefgh 12345678", b"abcdefgh12345678 ", False),  # (the split after an equal block)
    (b"abcdefgh 12345678", b"abcdefgh\n12345678", True),
    (b"abcdefg 12345678x", b"abcdefg 1234567 8x", False),
    (b"caf\xc3\xa9 ok", b"caf\xc3\xa9\nok", True), (b"caf\xc3\xa9 ok", b"caf \xc3\xa9ok", False),
    (b"snake_case x", b"snake _case x", False),
    (b"do not run", b"do run", False),
])
def test_same_words_fixed_cases(impl, a, b, equal):
    assert impl.same_words([a], [b]).tolist() == [equal]
    assert impl.same_words([b], [a]).tolist() == [equal]


def test_same_words_empty_batch_and_bad_input(impl):
    out = impl.same_words([], ())
    assert out.dtype == np.bool_ and out.shape == (0,)
    with pytest.raises(TypeError, match="a must be a list or tuple of bytes"):
        impl.same_words(b"ab", [b"ab"])


@settings(max_examples=examples(800), deadline=None)
@given(batch=st.lists(byte_pairs(), max_size=8))
def test_same_words_every_implementation_equals_the_reference(batch):
    a = [x for x, _ in batch]
    b = [y for _, y in batch]
    expected = _load("reference").same_words(a, b).tolist()
    # (the spec written a second way: the words as the runs of word bytes)
    word = re.compile(rb"[0-9A-Za-z_\x80-\xff]+")
    assert expected == [b"".join(x.split()) == b"".join(y.split()) and word.findall(x) == word.findall(y)
                        for x, y in batch]
    for name in IMPLEMENTATIONS:
        assert _load(name).same_words(a, b).tolist() == expected


# (text, a line of it ends in a blank or a carriage return before its line break)
BLANK_BEFORE_BREAK = [
    ("", False), ("\n", False), ("\n\n", False), ("a", False), ("a \t\r", False),  # (no break after them)
    ("a\nb", False), (" a\n\tb", False), ("a \n", True), ("a\t\nb", True), ("a\r\n", True),
    ("a\n\r", False), ("a\rb\n", False), (" \n", True), ("\r\n", True), ("x\n \n", True),
    ("é \n", True), ("é\n", False), ("—\t\n", True), ("—a\n—b", False), ("😀\r\n", True),
    ("😀\n😀", False), ("\ud800 \n", True), ("\ud800\n", False), ("a\u2003\n", False),  # (an em space is none)
    ("a" * 70 + "\n" + "b" * 70 + " \n", True),
]


@pytest.mark.parametrize("text, found", BLANK_BEFORE_BREAK)
def test_blank_before_line_break_fixed_cases(impl, text, found):
    assert impl.blank_before_line_break(text) is found


@pytest.mark.parametrize("bad", [b"a \n", None, 3, ["a \n"]])
def test_blank_before_line_break_bad_input(impl, bad):
    with pytest.raises(TypeError, match=f"text must be str, not {type(bad).__name__}"):
        impl.blank_before_line_break(bad)


def test_blank_before_line_break_reads_a_str_subclass_as_its_characters(impl):
    class Lying(str):
        def __contains__(self, other):
            return False

    assert impl.blank_before_line_break(Lying("a \nb")) is True


def test_blank_before_line_break_long_texts(impl):
    # (a run of 40,000 blanks, red team 46 F2, and many short lines: one pass either way)
    assert impl.blank_before_line_break(" " * 40_000 + "x") is False
    assert impl.blank_before_line_break("\n" * 100_000 + " ") is False
    assert impl.blank_before_line_break("a\n" * 50_000 + " \n") is True
    assert impl.blank_before_line_break("—\n" * 50_000 + "\t\n") is True


@settings(max_examples=examples(100), deadline=None)
@given(text=TEXT)
def test_blank_before_line_break_every_implementation_equals_the_reference(text):
    expected = _load("reference").blank_before_line_break(text)
    assert expected is any(pair in text for pair in (" \n", "\t\n", "\r\n"))
    for which in IMPLEMENTATIONS:
        assert _load(which).blank_before_line_break(text) is expected
