"""The quotations a polarity rule asks (provgate._quotations): native agrees with the reference,
on fixed cases, on fact tables the scanner makes of generated texts, and on bad input."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from budget import examples
from conftest import IMPLEMENTATIONS, NO_EXTENSIONS, load_implementation
from hypothesis import given, settings
from hypothesis import strategies as st

from provgate import _quotations
from provgate.errors import InvalidArgumentError
from provgate.facts import extract
from provgate.gate import _KIND_QUOTE


def _load(which: str):
    return load_implementation("quotations", "_quotations_py", which)


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    return _load(request.param)


def _asked(impl, *texts: bytes) -> list[list[bytes]]:
    tables = [extract(t) for t in texts]
    owners, rows = impl.asked_quotations([t.data for t in tables], [t.kind for t in tables],
                                         [t.value_start for t in tables], [t.value_end for t in tables], _KIND_QUOTE)
    out: list[list[bytes]] = [[] for _ in texts]
    for o, r in zip(owners.tolist(), rows.tolist()):
        t = tables[o]
        out[o].append(t.data[int(t.value_start[r]):int(t.value_end[r])])
    return out


@pytest.mark.parametrize("text, asked", [
    (b'Do not run "make deploy" today.', [b"make deploy"]),
    (b'Run "deploy" now.', []),  # (one word)
    (b"Run `make deploy` now.", []),  # (a code span)
    (b'Set `API_URL = "https://metrics.example.org/v1"` first.', []),  # (inside a code span)
    (b"`x` then \"make deploy\" and 'git push --force'", [b"make deploy", b"git push --force"]),
    (b'"/etc/shadow" and "a-b"', [b"/etc/shadow", b"a-b"]),
    (b"it's 'make deploy' here", [b"make deploy"]),
    (b'"caf\xc3\xa9 cr\xc3\xa8me"', [b"caf\xc3\xa9 cr\xc3\xa8me"]),
    (b"", []),
])
def test_fixed_cases(impl, text, asked):
    assert _asked(impl, text) == [asked]


def test_a_batch_keeps_its_owners(impl):
    assert _asked(impl, b'"a b"', b"none", b'"c d" and "e f"') == [[b"a b"], [], [b"c d", b"e f"]]


def test_empty_batch(impl):
    owners, rows = impl.asked_quotations([], [], [], [], _KIND_QUOTE)
    assert owners.dtype == rows.dtype == np.int64 and owners.size == rows.size == 0


_ONE = np.zeros(1, dtype=np.uint8)
_SPAN = np.zeros(1, dtype=np.int64)


@pytest.mark.parametrize("args, exc, message", [
    ((b"x", [_ONE], [_SPAN], [_SPAN], 1), TypeError, "datas must be a list or tuple, not bytes"),
    (([b"x"], None, [_SPAN], [_SPAN], 1), TypeError, "kinds must be a list or tuple, not NoneType"),
    (([b"x"], [_ONE, _ONE], [_SPAN], [_SPAN], 1), InvalidArgumentError, "kinds must have one item a text, got 2 for 1"),
    ((["x"], [_ONE], [_SPAN], [_SPAN], 1), TypeError, r"datas\[0\] must be bytes, not str"),
    (([b"x"], [_SPAN], [_SPAN], [_SPAN], 1), TypeError, r"kinds\[0\] must be a one-dimensional C-contiguous uint8"),
    (([b"x"], [_ONE], [_SPAN.astype(np.int32)], [_SPAN], 1), TypeError, r"starts\[0\] must be a one-dimensional"),
    (([b"x"], [_ONE], [np.zeros(2, dtype=np.int64)], [_SPAN], 1), TypeError, r"starts\[0\] must have the length"),
    (([b"x"], [_ONE], [_SPAN], [np.zeros((1, 1), dtype=np.int64)], 1), TypeError, r"ends\[0\] must be a one-dim"),
    (([b"x"], [_ONE], [_SPAN], [_SPAN], 256), TypeError, "quote_kind must be an int in 0..255"),
    (([b"x"], [_ONE], [_SPAN], [_SPAN], "1"), TypeError, "quote_kind must be an int in 0..255"),
    (([b"x"], [np.ones(1, dtype=np.uint8)], [np.array([0], dtype=np.int64)], [np.array([5], dtype=np.int64)], 1),
     InvalidArgumentError, r"row 0 of text 0: words 0\.\.5 outside its 1 bytes"),
    (([b"xy"], [np.ones(1, dtype=np.uint8)], [np.array([2], dtype=np.int64)], [np.array([1], dtype=np.int64)], 1),
     InvalidArgumentError, r"row 0 of text 0: words 2\.\.1 outside its 2 bytes"),
])
def test_bad_input(impl, args, exc, message):
    with pytest.raises(exc, match=message):
        impl.asked_quotations(*args)


def test_a_list_subclass_is_read_once():
    class Shifty(list):
        calls = 0

        def __iter__(self):
            Shifty.calls += 1
            return super().__iter__() if Shifty.calls == 1 else iter([b"other"])

    t = extract(b'"a b"')
    for which in IMPLEMENTATIONS:
        Shifty.calls = 0
        owners, _ = _load(which).asked_quotations(Shifty([t.data]), [t.kind], [t.value_start], [t.value_end],
                                                  _KIND_QUOTE)
        assert owners.tolist() == [0]


_PIECES = st.sampled_from([b'"', b"'", b"`", b"``", b"\xe2\x80\x9c", b"\xe2\x80\x9d", b" ", b"a", b"bc", b"-",
                           b"/", b"\n", b"\xc3\xa9", b"don't", b"="])


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(st.lists(_PIECES, max_size=30).map(b"".join), max_size=5))
def test_every_implementation_equals_the_reference(texts):
    tables = [extract(t) for t in texts]
    args = ([t.data for t in tables], [t.kind for t in tables], [t.value_start for t in tables],
            [t.value_end for t in tables], _KIND_QUOTE)
    expected = [a.tolist() for a in _load("reference").asked_quotations(*args)]
    for which in IMPLEMENTATIONS:
        assert [a.tolist() for a in _load(which).asked_quotations(*args)] == expected


def test_switch_loaded_the_native_build():
    if NO_EXTENSIONS:
        assert _quotations.IMPLEMENTATION == "reference"
        return
    assert _quotations.IMPLEMENTATION == "native"
    assert _quotations.asked_quotations is importlib.import_module("provgate._ext.quotations").asked_quotations
    assert _quotations.asks_outside_code_spans is importlib.import_module("provgate._ext.quotations").asks_outside_code_spans


# -- asks_outside_code_spans: a word of the set outside a code span ---------------------------------

_WORDS = frozenset((b"run", b"deploy", b"please", b"blocked", b"call_me", b"x1", b"recommendations"))


@pytest.mark.parametrize("text, asks", [
    (b"Run the tests.", True),  # (upper case)
    (b"Noted: `make run`, `deploy ci`.", False),  # (every verb inside a span)
    (b"Noted: `make t1` then run it.", True),
    (b"`run` `deploy`", False),
    (b"`run` deploy", True),
    (b"odd ` line run `x` here", True),  # (an odd count of backticks: the line whole)
    (b"`a`\nrun", True),  # (the next line)
    (b"`run\ndeploy`", True),  # (a line with one backtick each: each whole)
    (b"running and rerun", False),  # (whole words only)
    (b"call_me maybe", True), (b"call me", False),  # ("_" is a word byte)
    (b"x1", True), (b"x12", False),
    (b"caf\xc3\xa9run", True),  # (a non-ASCII byte ends a word)
    (b"RECOMMENDATIONS", True),  # (15 bytes, in the second half of the key)
    (b"recommendationsx", False),
    (b"", False), (b"\n\n", False), (b"``", False),
    # (the backticks of a line counted from its first byte to its last, whatever its neighbours')
    (b"run`", True), (b"`run` `", True), (b"`run` ``", False), (b"`deploy`\n`", False), (b"deploy\n`", True),
    (b"`x`\n`run`\nrun`", True), (b"`x`\n`run`\n`run`", False),
    # (words packed as read: 8, 9 and 16 bytes, capitals in each half of the key)
    (b"deployed run_", False), (b"RecommendationS.", True), (b"recommendationss", False),
])
def test_words_outside_code_spans_fixed_cases(impl, text, asks):
    assert impl.asks_outside_code_spans(text, _WORDS) is asks


@pytest.mark.parametrize("data, words, exc, message", [
    ("run", _WORDS, TypeError, "data must be bytes, not str"),
    (bytearray(b"run"), _WORDS, TypeError, "data must be bytes, not bytearray"),
    (b"run", {b"run"}, TypeError, "words must be a frozenset of bytes, not set"),
    (b"run", frozenset(("run",)), TypeError, "each word must be bytes, not str"),
    (b"run", frozenset((b"Run",)), InvalidArgumentError, "is not 1 to 16 bytes of 0-9 a-z _"),
    (b"run", frozenset((b"",)), InvalidArgumentError, "is not 1 to 16 bytes of 0-9 a-z _"),
    (b"run", frozenset((b"a" * 17,)), InvalidArgumentError, "is not 1 to 16 bytes of 0-9 a-z _"),
    (b"run", frozenset((b"re-run",)), InvalidArgumentError, "is not 1 to 16 bytes of 0-9 a-z _"),
    (b"run", frozenset(b"w%d" % i for i in range(1025)), InvalidArgumentError, "holds 1025 words, more than 1024"),
])
def test_words_outside_code_spans_bad_input(impl, data, words, exc, message):
    with pytest.raises(exc, match=message):
        impl.asks_outside_code_spans(data, words)


_SPAN_PIECES = st.sampled_from([b"run", b"Run", b"RUN", b"runs", b"deploy", b"please", b"noted", b"x", b"x1", b"`",
                                b"``", b"\n", b" ", b", ", b".", b"\xc3\xa9", b"_run", b"run_", b"call_me", b"\t",
                                b"blocked", b"\r"])


@settings(max_examples=examples(800), deadline=None)
@given(st.lists(_SPAN_PIECES, max_size=24).map(b"".join))
def test_words_outside_code_spans_every_implementation_equals_the_reference(text):
    expected = _load("reference").asks_outside_code_spans(text, _WORDS)
    for which in IMPLEMENTATIONS:
        assert _load(which).asks_outside_code_spans(text, _WORDS) is expected


def test_words_outside_code_spans_the_gate_asks_with_every_word_of_its_rule():
    # the gate's set is its verbs of doing and words of request (any one missing, a span after
    # it went unasked)
    import provgate.gate as g

    for word in g._DOING | g._REQUESTING | g._DOING_FORMS | g._SKIPPING | {b"blocked"}:
        assert g._may_ask_code_spans(b"`x` " + word + b" `y`")
        assert not g._may_ask_code_spans(b"`x " + word + b" y`")
