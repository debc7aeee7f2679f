"""UTF-8 text sizes: the native module agrees with the reference (len of the UTF-8 encoding)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import IMPLEMENTATIONS, NO_EXTENSIONS, load_implementation
from provgate import _textsize
from provgate.errors import InvalidContentError

ROOT_BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
if str(ROOT_BENCH) not in sys.path:
    sys.path.insert(0, str(ROOT_BENCH))


def _load(which: str):
    return load_implementation("textsize", "_textsize_py", which)


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    return _load(request.param)


def expected(texts) -> list[int]:
    return [len(t.encode("utf-8")) for t in texts]


# one text of each storage kind CPython uses, and every UTF-8 width boundary
EDGES = [
    "", "a", "\x00", "\x7f", "\x80", "\xff", "é", "\u0100", "\u07ff", "\u0800", "\ud7ff", "\ue000", "\uffff",
    "\U00010000", "\U0010ffff", "naïve café", "retries=3 — timeout=30s", "日本語のテキスト", "emoji 😀 mix é —",
]


def test_sizes_of_every_width_and_storage_kind(impl):
    out = impl.utf8_lengths(EDGES)
    assert out.dtype == np.int64 and out.shape == (len(EDGES),)
    assert out.tolist() == expected(EDGES)


def test_long_texts_cross_the_partial_sum_chunks(impl):
    texts = ["é" * 70_000, "—" * 50_000 + "x", "\U0001F600" * 20_000, "a" * 100_000 + "\u0800"]
    assert impl.utf8_lengths(texts).tolist() == expected(texts)


def test_tuple_and_str_subclass_are_accepted(impl):
    class Text(str):
        pass

    assert impl.utf8_lengths((Text("é"), "ab")).tolist() == [2, 2]


def test_empty_input(impl):
    out = impl.utf8_lengths([])
    assert out.dtype == np.int64 and out.shape == (0,)


def test_an_earlier_lone_surrogate_fails_before_a_later_wrong_type(impl):
    """Text by text, as the reference: native checked every type first (review 4, a06)."""
    with pytest.raises(InvalidContentError, match="texts\\[0\\] contains a lone surrogate"):
        impl.utf8_lengths(["\ud800", 5])
    with pytest.raises(TypeError, match="texts\\[1\\] must be a str"):
        impl.utf8_lengths(["fine", 5, "\ud800"])


@pytest.mark.parametrize(
    "texts, i, index",
    [(["ok", "ab\udc80"], 1, 2), (["x" * 10 + "\U0001F600\ud800"], 0, 11), (["\ud83d"], 0, 0),
     (["é" * 5, "—\udfff"], 1, 1), (["fine", "\udc80 first", "\ud800 second"], 1, 0)],
)
def test_lone_surrogates_are_refused_naming_text_and_index(impl, texts, i, index):
    with pytest.raises(InvalidContentError) as exc:
        impl.utf8_lengths(texts)
    assert str(exc.value) == f"texts[{i}] contains a lone surrogate at index {index}; it has no UTF-8 encoding"


@pytest.mark.parametrize("texts, message", [("abc", "texts must be a list or tuple of str, not str"),
                                            (None, "texts must be a list or tuple of str, not NoneType"),
                                            (["a", b"b"], "texts[1] must be a str, not bytes"),
                                            (["a", None], "texts[1] must be a str, not NoneType")])
def test_wrong_types_are_refused(impl, texts, message):
    with pytest.raises(TypeError) as exc:
        impl.utf8_lengths(texts)
    assert str(exc.value) == message


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=200), max_size=20))
def test_native_equals_reference_on_generated_text(texts):
    for which in IMPLEMENTATIONS:
        assert _load(which).utf8_lengths(texts).tolist() == expected(texts)


def test_native_equals_reference_on_the_corpus():
    import corpus

    texts = [b["text"] for b in corpus.make_window(50_000, seed=11).blocks]
    assert any(not t.isascii() for t in texts)
    results = [_load(which).utf8_lengths(texts).tolist() for which in IMPLEMENTATIONS]
    assert all(r == expected(texts) for r in results)


def test_switch_loaded_the_native_build():
    if NO_EXTENSIONS:
        assert _textsize.IMPLEMENTATION == "reference"
        return
    assert _textsize.IMPLEMENTATION == "native"
    assert _textsize.utf8_lengths is _load("native").utf8_lengths
