"""Whitespace-normalised text equality: native agrees with the reference, and the reference
agrees with the gate's documented normalisation (normalize_whitespace)."""

from __future__ import annotations

import importlib
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import IMPLEMENTATIONS, NO_EXTENSIONS, load_implementation
from provgate import _textnorm
from provgate.errors import InvalidArgumentError
from provgate.gate import normalize_whitespace


def documented_normalisation(text: str) -> str:
    """docs/gate.md's rule written a second, independent way (a regex), as the oracle: \r\n
    to \n, trailing spaces and tabs of each line removed, leading and trailing blank lines dropped."""
    text = text.replace("\r\n", "\n")
    text = re.sub(r"[ \t]+(?=\n|\Z)", "", text)
    return text.strip("\n")


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
]


@pytest.mark.parametrize("a, b, equal", CASES)
def test_fixed_cases(impl, a, b, equal):
    assert same(impl, a, b) is equal
    assert same(impl, b, a) is equal
    assert (documented_normalisation(a) == documented_normalisation(b)) is equal


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
ALPHABET = st.sampled_from(["a", "b", " ", "\t", "\n", "\r", "é", "—", "😀", "\x00", "\ud800"])
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


@settings(max_examples=3000, deadline=None)
@given(pair=pairs())
def test_reference_is_the_documented_normalisation(pair):
    a, b = pair
    reference = _load("reference")
    assert same(reference, a, b) == (documented_normalisation(a) == documented_normalisation(b))
    # the gate's normalize_whitespace is that rule, as a string
    assert normalize_whitespace(a) == documented_normalisation(a)


@settings(max_examples=3000, deadline=None)
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
