"""Bulk span hashing (hot path 1): BLAKE3 exactly, every input shape, every bad input.

Every test runs on the reference and on each native build this CPU can run (the baseline
build, and the AVX2 build when the CPU has AVX2). Digests are checked against the official
test vectors and against the ``blake3`` package, never against hard-coded output of our own.
"""

from __future__ import annotations

import array
import importlib
import json
import random
import threading
import time

import numpy as np
import pytest
from blake3 import blake3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import IMPLEMENTATIONS, NO_EXTENSIONS, load_implementation
from reconstruct_helpers import observed_while_running
from provgate import _hashing
from provgate.errors import SpanError

CPU_HAS_AVX2 = False
VARIANTS = list(IMPLEMENTATIONS)
if "native" in VARIANTS:
    # an ImportError here fails the run on purpose: the extension must have been built
    CPU_HAS_AVX2 = importlib.import_module("provgate._ext.hashing").cpu_supports_avx2()
    if CPU_HAS_AVX2:
        VARIANTS.insert(1, "native_avx2")
NATIVE_VARIANTS = [v for v in VARIANTS if v != "reference"]

# lengths around every boundary of the algorithm: block (64), chunk (1024), tree shapes
EDGE_LENGTHS = (0, 1, 63, 64, 65, 127, 128, 1023, 1024, 1025, 2047, 2048, 2049, 3072, 3073,
                4096, 5000, 8191, 8193, 16385, 31744, 65537)


def _load(which: str):
    if which == "native_avx2":
        return importlib.import_module("provgate._ext.hashing_avx2")
    return load_implementation("hashing", "_hashing_py", which)


@pytest.fixture(params=VARIANTS)
def impl(request):
    return _load(request.param)


# With PROVGATE_NO_EXTENSIONS=1 there is no native build: the tests that take this fixture
# (native against reference, GIL release) are then not generated at all rather than skipped.
@pytest.fixture(params=NATIVE_VARIANTS)
def native(request):
    return _load(request.param)


def _only_with_native_builds(test):
    return test if NATIVE_VARIANTS else None


@pytest.fixture(scope="module")
def vectors(testdata):
    return json.loads((testdata / "blake3" / "test_vectors.json").read_text())


def _vector_input(n: int) -> bytes:
    return bytes(i % 251 for i in range(n))


def _expected(chunks, key=None) -> np.ndarray:
    rows = [blake3(bytes(c), key=key).digest() if key is not None else blake3(bytes(c)).digest() for c in chunks]
    return np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(len(rows), 32)


def _random_bytes(n: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(n)


# --------------------------------------------------------------------------- official vectors


def test_every_official_vector_as_whole_buffers(impl, vectors):
    cases = vectors["cases"]
    assert len(cases) == 35
    key = vectors["key"].encode()
    inputs = [_vector_input(c["input_len"]) for c in cases]
    hashed = impl.hash_buffers(inputs)
    keyed = impl.hash_buffers(inputs, key=key)
    for i, case in enumerate(cases):
        assert hashed[i].tobytes().hex() == case["hash"][:64], case["input_len"]
        assert keyed[i].tobytes().hex() == case["keyed_hash"][:64], case["input_len"]
        # one input per call takes other lane and grouping paths than the whole batch
        assert impl.hash_buffers([inputs[i]])[0].tobytes().hex() == case["hash"][:64]
        assert impl.hash_buffers([inputs[i]], key=key)[0].tobytes().hex() == case["keyed_hash"][:64]


@pytest.mark.parametrize("offset_dtype", [np.int32, np.int64])
def test_every_official_vector_as_spans_at_odd_offsets(impl, vectors, offset_dtype):
    cases = vectors["cases"]
    key = vectors["key"].encode()
    rng = random.Random(251)
    buf = bytearray()
    starts, ends = [], []
    for case in cases:
        buf += rng.randbytes(rng.randrange(1, 200, 2))   # odd-sized junk between inputs
        if len(buf) % 2 == 0:
            buf += b"\xff"
        starts.append(len(buf))
        buf += _vector_input(case["input_len"])
        ends.append(len(buf))
    data = bytes(buf)
    s = np.array(starts, dtype=offset_dtype)
    e = np.array(ends, dtype=offset_dtype)
    hashed = impl.hash_spans(data, s, e)
    keyed = impl.hash_spans(data, s, e, key=key)
    for i, case in enumerate(cases):
        assert starts[i] % 2 == 1
        assert hashed[i].tobytes().hex() == case["hash"][:64], case["input_len"]
        assert keyed[i].tobytes().hex() == case["keyed_hash"][:64], case["input_len"]


# --------------------------------------------------------------------------- against blake3


@st.composite
def buffers_and_spans(draw):
    lengths = draw(st.lists(st.one_of(st.sampled_from(EDGE_LENGTHS), st.integers(0, 3000)),
                            min_size=0, max_size=40))
    size = max([0, *lengths]) + draw(st.integers(0, 3000))
    data = _random_bytes(size, draw(st.integers(0, 2**32)))
    starts, ends = [], []
    for n in lengths:
        # spans anywhere, so they overlap and start at odd offsets
        start = draw(st.integers(0, size - n))
        starts.append(start)
        ends.append(start + n)
    return data, starts, ends


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=buffers_and_spans(), keyed=st.booleans(), key_seed=st.integers(0, 2**32))
def test_spans_match_blake3_package(impl, case, keyed, key_seed):
    data, starts, ends = case
    key = _random_bytes(32, key_seed) if keyed else None
    got = impl.hash_spans(data, np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64), key=key)
    want = _expected([data[s:e] for s, e in zip(starts, ends)], key=key)
    assert got.shape == (len(starts), 32)
    assert np.array_equal(got, want)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lengths=st.lists(st.one_of(st.sampled_from(EDGE_LENGTHS), st.integers(0, 5000)), max_size=30),
       seed=st.integers(0, 2**32), keyed=st.booleans())
def test_buffers_match_blake3_package(impl, lengths, seed, keyed):
    rng = random.Random(seed)
    buffers = [rng.randbytes(n) for n in lengths]
    key = rng.randbytes(32) if keyed else None
    assert np.array_equal(impl.hash_buffers(buffers, key=key), _expected(buffers, key=key))


@pytest.mark.parametrize("length", [0, 64, 65, 1024, 2049, 5 * 1024 + 3])
def test_every_group_size(impl, length):
    # 1..19 inputs of one length: full and partly idle groups of eight lanes
    data = _random_bytes(20 * length + 7, length)
    for n in range(1, 20):
        starts = [7 + i * length for i in range(n)]
        ends = [s + length for s in starts]
        assert np.array_equal(impl.hash_spans(data, starts, ends),
                              _expected([data[s:e] for s, e in zip(starts, ends)])), n


def test_trees_of_every_width_in_one_call(impl):
    # 1..70 chunks, each with a short and a full last chunk: odd nodes carried up at every
    # level, and trees of different depths sharing parent lanes
    data = _random_bytes(71 * 1024, 7)
    lengths = [k * 1024 + r for k in range(70) for r in (1, 1024)]
    starts = [(i * 997) % (len(data) - n + 1) for i, n in enumerate(lengths)]
    ends = [s + n for s, n in zip(starts, lengths)]
    key = bytes(range(32))
    for k in (None, key):
        assert np.array_equal(impl.hash_spans(data, starts, ends, key=k),
                              _expected([data[s:e] for s, e in zip(starts, ends)], key=k))


def test_many_spans_across_internal_windows(impl):
    # thousands of spans are hashed in several windows of consecutive spans; one span of
    # more than 4096 chunks gets a window of its own in the middle of the others
    data = _random_bytes(4 * 1024 * 1024 + 3 * 1024 + 5, 17)
    lengths = [EDGE_LENGTHS[i % len(EDGE_LENGTHS)] for i in range(2500)]
    lengths[1300] = len(data) - 2
    starts = [(i * 7919) % (len(data) - n + 1) for i, n in enumerate(lengths)]
    ends = [s + n for s, n in zip(starts, lengths)]
    want = _expected([data[s:e] for s, e in zip(starts, ends)])
    assert np.array_equal(impl.hash_spans(data, starts, ends), want)
    assert np.array_equal(impl.hash_buffers([data[s:e] for s, e in zip(starts, ends)]), want)


def test_one_large_span(impl):
    data = _random_bytes(3 * 1024 * 1024 + 1, 3)
    got = impl.hash_spans(data, [0, 1, 5], [len(data), len(data) - 1, 5 + 1024 * 1024])
    assert np.array_equal(got, _expected([data, data[1:-1], data[5:5 + 1024 * 1024]]))


@_only_with_native_builds
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=buffers_and_spans(), keyed=st.booleans())
def test_native_equals_reference(native, case, keyed):
    reference = _load("reference")
    data, starts, ends = case
    key = bytes(range(100, 132)) if keyed else None
    s = np.array(starts, dtype=np.int32)
    e = np.array(ends, dtype=np.int32)
    assert np.array_equal(native.hash_spans(data, s, e, key=key), reference.hash_spans(data, s, e, key=key))
    pieces = [data[a:b] for a, b in zip(starts, ends)]
    assert np.array_equal(native.hash_buffers(pieces, key=key), reference.hash_buffers(pieces, key=key))


def test_keyed_mode_depends_on_the_key(impl):
    data = _random_bytes(3000, 1)
    spans = ([0, 10, 0], [0, 2000, 3000])
    plain = impl.hash_spans(data, *spans)
    k1 = impl.hash_spans(data, *spans, key=b"k" * 32)
    k2 = impl.hash_spans(data, *spans, key=b"j" * 32)
    assert not np.any(np.all(plain == k1, axis=1))
    assert not np.any(np.all(k1 == k2, axis=1))
    assert np.array_equal(k1, _expected([b"", data[10:2000], data], key=b"k" * 32))


# --------------------------------------------------------------------------- accepted inputs


def test_bytes_bytearray_memoryview_and_other_buffers(impl):
    raw = _random_bytes(5000, 11)
    starts, ends = [0, 3, 100], [5000, 1030, 100]
    want = _expected([raw[0:5000], raw[3:1030], b""])
    padded = b"...." + raw + b"...."
    words = array.array("I", raw[:4000])   # a non-byte format is hashed as its raw bytes
    for data in (raw, bytearray(raw), memoryview(raw), memoryview(bytearray(raw)),
                 memoryview(padded)[4:-4], np.frombuffer(raw, dtype=np.uint8)):
        assert np.array_equal(impl.hash_spans(data, starts, ends), want), type(data)
    assert np.array_equal(impl.hash_spans(words, [0], [4000]), _expected([raw[:4000]]))
    assert np.array_equal(
        impl.hash_buffers([raw, bytearray(raw), memoryview(raw)[3:1030], memoryview(padded)[4:-4], words]),
        _expected([raw, raw, raw[3:1030], raw, raw[:4000]]),
    )


def test_key_as_bytearray_or_memoryview(impl):
    key = bytes(range(32))
    want = _expected([b"abc"], key=key)
    for k in (key, bytearray(key), memoryview(key)):
        assert np.array_equal(impl.hash_spans(b"abc", [0], [3], key=k), want)
        assert np.array_equal(impl.hash_buffers([b"abc"], key=k), want)


@pytest.mark.parametrize("offsets", [
    lambda s, e: (np.array(s, dtype=np.int32), np.array(e, dtype=np.int32)),
    lambda s, e: (np.array(s, dtype=np.int64), np.array(e, dtype=np.int64)),
    lambda s, e: (np.array(s, dtype=np.int32), np.array(e, dtype=np.int64)),
    lambda s, e: (np.array(s, dtype=np.uint16), np.array(e, dtype=np.uint64)),
    lambda s, e: (list(s), tuple(e)),
    lambda s, e: (np.array(s, dtype=np.int64)[::-1][::-1], np.repeat(np.array(e, dtype=np.int64), 2)[::2]),
    lambda s, e: (np.array(s, dtype=">i8"), np.array(e, dtype=">i4")),
], ids=["int32", "int64", "mixed", "unsigned", "sequences", "strided", "big-endian"])
def test_offset_types(impl, offsets):
    data = _random_bytes(4000, 5)
    s, e = [0, 1, 2000, 3999], [4000, 64, 3025, 3999]
    got = impl.hash_spans(data, *offsets(s, e))
    assert np.array_equal(got, _expected([data[a:b] for a, b in zip(s, e)]))


def test_empty_inputs(impl):
    for starts, ends in (([], []), (np.array([], dtype=np.int32), np.array([], dtype=np.int32)),
                         (np.array([]), np.array([]))):
        out = impl.hash_spans(b"abc", starts, ends)
        assert out.shape == (0, 32) and out.dtype == np.uint8
    out = impl.hash_buffers([])
    assert out.shape == (0, 32) and out.dtype == np.uint8
    assert np.array_equal(impl.hash_spans(b"", [0], [0]), _expected([b""]))
    assert np.array_equal(impl.hash_buffers(iter([b"", b"x"])), _expected([b"", b"x"]))


def test_output_is_a_fresh_writable_array(impl):
    data = _random_bytes(100, 9)
    a = impl.hash_spans(data, [0, 1], [100, 2])
    b = impl.hash_spans(data, [0, 1], [100, 2])
    assert a.dtype == np.uint8 and a.shape == (2, 32) and a.flags.c_contiguous and a.flags.writeable
    a[:] = 0
    assert np.array_equal(b, _expected([data, data[1:2]]))


def test_buffers_are_released_after_success_and_error(impl):
    # a bytearray that is still exported cannot be resized (BufferError): a leak shows here
    held = bytearray(b"x" * 2000)
    impl.hash_spans(held, [0], [2000])
    impl.hash_buffers([held, held])
    with pytest.raises(SpanError):
        impl.hash_spans(held, [0, 5], [10, 1])
    with pytest.raises(TypeError):
        impl.hash_buffers([held, bytearray(b"y"), "not bytes"])
    with pytest.raises(ValueError):
        impl.hash_spans(held, [0], [1], key=b"short")
    held.extend(b"more")
    other = bytearray(b"y")
    with pytest.raises(TypeError):
        impl.hash_buffers([other, memoryview(b"abcd")[::2]])
    other.extend(b"z")
    assert len(held) == 2004 and other == b"yz"


# --------------------------------------------------------------------------- bad inputs

_NONCONTIG = memoryview(b"abcdefgh")[::2]

BAD_CALLS = {
    "str data": (lambda m: m.hash_spans("text", [0], [1]), TypeError),
    "int data": (lambda m: m.hash_spans(12, [0], [1]), TypeError),
    "None data": (lambda m: m.hash_spans(None, [0], [1]), TypeError),
    "non-contiguous data": (lambda m: m.hash_spans(_NONCONTIG, [0], [1]), TypeError),
    "fortran-order data": (lambda m: m.hash_spans(np.zeros((4, 4), dtype=np.uint8, order="F"), [0], [1]), TypeError),
    "str in buffers": (lambda m: m.hash_buffers([b"ok", "text"]), TypeError),
    "int in buffers": (lambda m: m.hash_buffers([b"ok", 5]), TypeError),
    "non-contiguous in buffers": (lambda m: m.hash_buffers([b"ok", _NONCONTIG]), TypeError),
    "single bytes as buffers": (lambda m: m.hash_buffers(b"abc"), TypeError),
    "single str as buffers": (lambda m: m.hash_buffers("abc"), TypeError),
    "buffers not iterable": (lambda m: m.hash_buffers(7), TypeError),
    "short key": (lambda m: m.hash_spans(b"abc", [0], [1], key=b"k" * 31), ValueError),
    "long key": (lambda m: m.hash_spans(b"abc", [0], [1], key=b"k" * 33), ValueError),
    "str key": (lambda m: m.hash_spans(b"abc", [0], [1], key="k" * 32), TypeError),
    "int key": (lambda m: m.hash_spans(b"abc", [0], [1], key=5), TypeError),
    "short key, buffers": (lambda m: m.hash_buffers([b"abc"], key=b""), ValueError),
    "str key, buffers": (lambda m: m.hash_buffers([b"abc"], key="k" * 32), TypeError),
    "negative start": (lambda m: m.hash_spans(b"abcdef", [0, -1], [1, 2]), SpanError),
    "end before start": (lambda m: m.hash_spans(b"abcdef", [0, 4], [1, 3]), SpanError),
    "end beyond buffer": (lambda m: m.hash_spans(b"abcdef", [0, 2], [1, 7]), SpanError),
    "start beyond buffer": (lambda m: m.hash_spans(b"abcdef", [7], [7]), SpanError),
    "int32 negative": (lambda m: m.hash_spans(b"abcdef", np.array([-5], np.int32), np.array([1], np.int32)), SpanError),
    "huge end": (lambda m: m.hash_spans(b"abcdef", [0], [2**62]), SpanError),
    "uint64 beyond int64": (lambda m: m.hash_spans(b"abcdef", np.array([2**63], np.uint64), np.array([2**63], np.uint64)), SpanError),
    "int beyond int64": (lambda m: m.hash_spans(b"abcdef", [2**70], [2**70]), SpanError),
    "mismatched lengths": (lambda m: m.hash_spans(b"abcdef", [0, 1], [1]), SpanError),
    "empty starts, one end": (lambda m: m.hash_spans(b"abcdef", [], [1]), SpanError),
    "2-D offsets": (lambda m: m.hash_spans(b"abcdef", [[0, 1]], [[1, 2]]), SpanError),
    "0-D offsets": (lambda m: m.hash_spans(b"abcdef", 0, 1), SpanError),
    "float offsets": (lambda m: m.hash_spans(b"abcdef", [0.0, 1.0], [1.0, 2.0]), SpanError),
    "float ends": (lambda m: m.hash_spans(b"abcdef", [0], np.array([1.5])), SpanError),
    "bool offsets": (lambda m: m.hash_spans(b"abcdef", [False], [True]), SpanError),
    "str offsets": (lambda m: m.hash_spans(b"abcdef", ["0"], ["1"]), SpanError),
    "None offsets": (lambda m: m.hash_spans(b"abcdef", None, None), SpanError),
}


@pytest.mark.parametrize("name", list(BAD_CALLS))
def test_bad_input_raises_the_same_specific_error(impl, name):
    call, expected = BAD_CALLS[name]
    with pytest.raises(expected) as info:
        call(impl)
    # identical type on every implementation, not merely a subclass of the expected one
    reference_type = type(_capture(lambda: call(_load("reference"))))
    assert type(info.value) is reference_type


def _capture(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the test compares whatever was raised
        return exc
    raise AssertionError("the reference accepted bad input")


def test_span_errors_name_the_first_bad_span(impl):
    data = b"0123456789"
    cases = [
        ([0, 1, -3, 2], [1, 2, 4, 20], "span 2 [-3, 4)", "negative start"),
        ([0, 5, 1], [1, 4, 20], "span 1 [5, 4)", "end before start"),
        ([0, 1, 2], [10, 11, 3], "span 1 [1, 11)", "end beyond the buffer of 10 bytes"),
    ]
    for starts, ends, where, why in cases:
        for dtype in (np.int32, np.int64):
            with pytest.raises(SpanError) as info:
                impl.hash_spans(data, np.array(starts, dtype), np.array(ends, dtype))
            assert where in str(info.value) and why in str(info.value)


def test_str_data_error_says_to_encode(impl):
    with pytest.raises(TypeError, match="UTF-8"):
        impl.hash_spans("abc", [0], [1])
    with pytest.raises(TypeError, match=r"buffers\[1\]"):
        impl.hash_buffers([b"a", "abc"])


# --------------------------------------------------------------------------- GIL and switch


@_only_with_native_builds
def test_hashing_releases_the_gil(native):
    big = _random_bytes(8 * 1024 * 1024, 2)
    spans = np.arange(0, len(big) - 40 + 1, 40, dtype=np.int64)
    # the harness can tell: a call that holds the GIL is never observed from outside
    assert observed_while_running(lambda: sum(range(30_000_000))) == 0
    assert observed_while_running(lambda: native.hash_buffers([big] * 24)) > 0
    assert observed_while_running(lambda: [native.hash_spans(big, spans, spans + 40) for _ in range(5)]) > 0


def test_offsets_changed_by_another_thread_never_crash(impl):
    # The native code releases the GIL between checking the spans and hashing them; a thread
    # that rewrites the caller's offset arrays meanwhile must get a SpanError or digests,
    # never a read outside the buffer (which would end the whole test run with a crash).
    data = _random_bytes(1 << 20, 4)
    n = 50_000
    starts = np.arange(n, dtype=np.int64) * 16
    ends = starts + 40
    good_starts, good_ends = starts.copy(), ends.copy()
    stop = threading.Event()

    def vandal():
        while not stop.is_set():
            ends[::97] = 1 << 40
            starts[1::89] = -(1 << 40)
            ends[:] = good_ends
            starts[:] = good_starts

    outcomes = {"digests": 0, "SpanError": 0}
    t = threading.Thread(target=vandal)
    t.start()
    try:
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            try:
                out = impl.hash_spans(data, starts, ends)
            except SpanError:
                outcomes["SpanError"] += 1
            else:
                assert out.shape == (n, 32)
                outcomes["digests"] += 1
    finally:
        stop.set()
        t.join()
    assert sum(outcomes.values()) > 0
    assert np.array_equal(impl.hash_spans(data, good_starts[:100], good_ends[:100]),
                          _expected([data[a:b] for a, b in zip(good_starts[:100], good_ends[:100])]))


def test_switch_loaded_the_native_build():
    if NO_EXTENSIONS:
        assert _hashing.IMPLEMENTATION == "reference"
        assert _hashing.hash_spans is _load("reference").hash_spans
        return
    assert _hashing.IMPLEMENTATION == "native"
    expected = "native_avx2" if CPU_HAS_AVX2 else "native"
    assert _hashing.INSTRUCTION_SET == ("avx2" if CPU_HAS_AVX2 else "baseline")
    assert _hashing.hash_spans is _load(expected).hash_spans
    assert _hashing.hash_buffers is _load(expected).hash_buffers


def test_c_api_is_the_chosen_builds_hash_many():
    """provgate._hashing.C_API: the capsule other native modules hash through (the scanner's
    extract_columns; that its digests equal the reference's is tested in test_scanner)."""
    if NO_EXTENSIONS:
        assert _hashing.C_API is None
        return
    import ctypes

    expected = "native_avx2" if CPU_HAS_AVX2 else "native"
    assert _hashing.C_API is _load(expected).C_API
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    for build in {"native", expected}:
        module = _load(build)
        assert get_name(module.C_API).decode() == module.HASH_MANY_CAPSULE_NAME == "provgate._ext.hashing.hash_many"
