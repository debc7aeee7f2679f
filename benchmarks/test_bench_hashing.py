"""Bulk span hashing (hot path 1) on the standard 200k-token window.

Run:  PYTHONPATH=src:benchmarks python -m pytest benchmarks/test_bench_hashing.py --benchmark-autosave

Targets (issue 2), compare the medians within and across groups:
  (a) the window's blocks: native <= 2.5x one ``blake3`` call over the whole buffer
      (group "window-blocks"; the baseline is ``whole buffer, one blake3 call``);
  (b) 20,000 spans of 40 bytes: native <= 2 ms and >= 3.5x faster than the reference
      (group "spans-40B").
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from blake3 import blake3
from corpus import make_window

from provgate import _hashing, _hashing_py

WINDOW_TOKENS = 200_000
SMALL_SPANS = 20_000
SMALL_SPAN_LEN = 40
FINGERPRINT_KEY = bytes(range(32))

_baseline = importlib.import_module("provgate._ext.hashing")
NATIVE_BUILDS = {"baseline": _baseline}
if _baseline.cpu_supports_avx2():
    NATIVE_BUILDS["avx2"] = importlib.import_module("provgate._ext.hashing_avx2")


@pytest.fixture(scope="module")
def window():
    w = make_window(WINDOW_TOKENS, seed=0)
    data = w.data
    starts = np.asarray(w.block_starts, dtype=np.int64)
    ends = np.asarray(w.block_ends, dtype=np.int64)
    assert len(data) > 700_000 and 400 <= len(starts) <= 800
    return data, starts, ends


@pytest.fixture(scope="module")
def small_spans(window):
    data = window[0]
    # spread evenly over the whole window, like the grounded spans of a window's facts
    starts = np.linspace(0, len(data) - SMALL_SPAN_LEN, SMALL_SPANS).astype(np.int64)
    return data, starts, starts + SMALL_SPAN_LEN


def _run(benchmark, fn, check):
    result = benchmark(fn)
    assert np.array_equal(result, check)


# --------------------------------------------------------------------------- (a) blocks


@pytest.mark.benchmark(group="window-blocks")
def test_whole_buffer_one_blake3_call(benchmark, window):
    data = window[0]
    benchmark(lambda: blake3(data).digest())


@pytest.mark.benchmark(group="window-blocks")
@pytest.mark.parametrize("build", list(NATIVE_BUILDS))
def test_blocks_native(benchmark, window, build):
    data, starts, ends = window
    hash_spans = NATIVE_BUILDS[build].hash_spans
    benchmark.extra_info["blocks"] = len(starts)
    benchmark.extra_info["bytes"] = len(data)
    _run(benchmark, lambda: hash_spans(data, starts, ends), _hashing_py.hash_spans(data, starts, ends))


@pytest.mark.benchmark(group="window-blocks")
def test_blocks_switch(benchmark, window):
    """What ``provgate.hash_spans`` does on this machine (the build the switch chose)."""
    data, starts, ends = window
    benchmark.extra_info["instruction_set"] = _hashing.INSTRUCTION_SET
    _run(benchmark, lambda: _hashing.hash_spans(data, starts, ends), _hashing_py.hash_spans(data, starts, ends))


@pytest.mark.benchmark(group="window-blocks")
def test_blocks_reference(benchmark, window):
    data, starts, ends = window
    _run(benchmark, lambda: _hashing_py.hash_spans(data, starts, ends), _hashing_py.hash_spans(data, starts, ends))


@pytest.mark.benchmark(group="window-blocks")
def test_block_texts_as_buffers_native(benchmark, window):
    """The gate's shape: block texts as separate bytes objects, not concatenated."""
    data, starts, ends = window
    texts = [data[s:e] for s, e in zip(starts, ends)]
    _run(benchmark, lambda: _hashing.hash_buffers(texts), _hashing_py.hash_buffers(texts))


@pytest.mark.benchmark(group="window-blocks")
def test_block_texts_as_buffers_reference(benchmark, window):
    data, starts, ends = window
    texts = [data[s:e] for s, e in zip(starts, ends)]
    _run(benchmark, lambda: _hashing_py.hash_buffers(texts), _hashing_py.hash_buffers(texts))


# --------------------------------------------------------------------------- (b) 40-byte spans


@pytest.mark.benchmark(group="spans-40B")
@pytest.mark.parametrize("build", list(NATIVE_BUILDS))
def test_small_spans_native(benchmark, small_spans, build):
    data, starts, ends = small_spans
    hash_spans = NATIVE_BUILDS[build].hash_spans
    _run(benchmark, lambda: hash_spans(data, starts, ends), _hashing_py.hash_spans(data, starts, ends))


@pytest.mark.benchmark(group="spans-40B")
def test_small_spans_native_keyed(benchmark, small_spans):
    """Keyed mode, as used for fact fingerprints."""
    data, starts, ends = small_spans
    _run(
        benchmark,
        lambda: _hashing.hash_spans(data, starts, ends, key=FINGERPRINT_KEY),
        _hashing_py.hash_spans(data, starts, ends, key=FINGERPRINT_KEY),
    )


@pytest.mark.benchmark(group="spans-40B")
def test_small_spans_reference(benchmark, small_spans):
    data, starts, ends = small_spans
    _run(benchmark, lambda: _hashing_py.hash_spans(data, starts, ends), _hashing_py.hash_spans(data, starts, ends))


@pytest.mark.benchmark(group="spans-40B")
def test_small_spans_plain_python_loop(benchmark, small_spans):
    """The cheapest pure-Python alternative: a loop over ``blake3`` keeping digests as bytes."""
    data, starts, ends = small_spans
    view = memoryview(data)
    pairs = list(zip(starts.tolist(), ends.tolist()))

    def loop():
        return [blake3(view[s:e]).digest() for s, e in pairs]

    result = benchmark(loop)
    assert b"".join(result) == _hashing_py.hash_spans(data, starts, ends).tobytes()
