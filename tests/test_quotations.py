"""The quotations a polarity rule asks (provgate._quotations): native agrees with the reference,
on fixed cases, on fact tables the scanner makes of generated texts, and on bad input."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
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


@settings(max_examples=1500, deadline=None)
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
