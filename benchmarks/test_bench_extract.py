"""Grounded-span extraction (hot path 2) on the standard 200k-token window (~800 KB).

Run:  cd /work/main && PYTHONPATH=src:benchmarks python -m pytest benchmarks/test_bench_extract.py --benchmark-autosave

Targets (issue 3): the native scanner >= 300 MB/s on the window (moonshot 1 GB/s), against
the reference (compiled ``re``). Scanning alone (group "scan") and extraction with
fingerprints (group "extract") are measured apart. Group "fingerprint" shows what the
fingerprints cost: native ``extract_columns`` (scan + dedup + framing + hashing in one call)
against the scan alone, and the old unfused steps (frame every row, hash every frame) for
comparison. Group "blocks" is how the gate uses extract(): once per changed block of ~1.4 KB,
where the fixed cost per call matters as much as MB/s, and extract_many, how the gate now
scans a check's changed blocks (group "changed blocks": the 49 new summaries of the corpus's
summarize edit, one call each against one call for all). Each result records ``MB/s`` (bytes /
median time) in its extra info.
"""

from __future__ import annotations

import importlib
import threading

import numpy as np
import pytest
from corpus import backtick_runs, make_window

from provgate import _hashing, _scanner, _scanner_py
from provgate.facts import FINGERPRINT_KEY, extract, extract_many

WINDOW_TOKENS = 200_000
MAX_SPANS = 10**7

native = importlib.import_module("provgate._ext.scanner")


@pytest.fixture(scope="module")
def window() -> bytes:
    data = make_window(WINDOW_TOKENS, seed=0).data
    assert 700_000 < len(data) < 900_000
    return data


@pytest.fixture(scope="module")
def scanned(window):
    return native.scan(window, MAX_SPANS)


def _record(benchmark, nbytes: int, **info) -> None:
    median = benchmark.stats.stats.median
    benchmark.extra_info["bytes"] = nbytes
    benchmark.extra_info["MB/s"] = round(nbytes / median / 1e6, 1)
    benchmark.extra_info.update(info)


def _same_rows(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b))


# --------------------------------------------------------------------------- scanning alone


@pytest.mark.benchmark(group="scan")
def test_scan_native(benchmark, window):
    cols = benchmark(native.scan, window, MAX_SPANS)
    _record(benchmark, len(window), spans=int(cols[0].shape[0]))


@pytest.mark.benchmark(group="scan")
def test_scan_reference(benchmark, window, scanned):
    cols = benchmark.pedantic(_scanner_py.scan, args=(window, MAX_SPANS), rounds=3, iterations=1)
    assert _same_rows(cols, scanned)
    _record(benchmark, len(window), spans=int(cols[0].shape[0]))


@pytest.mark.benchmark(group="scan")
def test_utf8_validation_native(benchmark, window):
    """A plain byte loop over the window, for scale: every extract() pays it once."""
    assert benchmark(native.utf8_error_offset, window) == -1
    _record(benchmark, len(window))


@pytest.mark.benchmark(group="scan")
def test_byte_loop_calibration(benchmark, window):
    """A plain one-byte-at-a-time loop (UTF-8 validation of two-byte characters, which takes
    the validator's per-byte path) over as many bytes as the window: the machine's speed for
    the simplest byte-classifying loop right now, to read the scan figures against."""
    text = ("\u00e9" * (len(window) // 2)).encode("utf-8")
    assert benchmark(native.utf8_error_offset, text) == -1
    _record(benchmark, len(text))


@pytest.mark.benchmark(group="scan")
def test_scan_native_two_threads(benchmark, window):
    """Two threads scanning the window at once: the scan runs without the GIL, so on two
    idle cores this takes about as long as one scan, not two."""
    results = [None, None]

    def work(k: int) -> None:
        results[k] = native.scan(window, MAX_SPANS)

    def both() -> None:
        threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    benchmark(both)
    assert _same_rows(results[0], results[1])
    _record(benchmark, 2 * len(window))


@pytest.mark.benchmark(group="scan backtick runs")
@pytest.mark.parametrize("size", [1_600_000, 3_200_000])
def test_scan_backtick_runs_native(benchmark, size):
    """Should take about twice as long at 2N as at N: each run once searched to the end of its
    line, O(n^1.5) (red team 50, f05: 0.35-0.64 s at 1.6 MB, 0.87-1.27 s at 3.2 MB, where
    the window's 800 KB of ordinary text takes a few ms); the line's runs are now noted at its
    first failed search."""
    data = backtick_runs(size)
    cols = benchmark(native.scan, data, MAX_SPANS)
    _record(benchmark, len(data), spans=int(cols[0].shape[0]))


@pytest.mark.benchmark(group="scan runs that never complete")
@pytest.mark.parametrize("size", [50_000, 400_000])
@pytest.mark.parametrize("unit", ["a-", "a+", "a%", "1-", "a-a@", "a.b-", "a/", "a-b/", "@a-"])
def test_scan_runs_that_never_complete_native(benchmark, unit, size):
    """Should take about 8x as long at 400 KB as at 50 KB: an e-mail address starts only at the
    start of its local part, a hyphenated ID only at the start of its chain; each was searched
    again from every piece before (quadratic: over a second for 80 KB). This was a timed
    assertion in tests/test_scanner.py; speed lives here. (Grammar v6: a run of words joined by
    "/" or "-" is read for a pin's "@" once, from its first plain word: "a/", "a-b/", "@a-".)"""
    data = (unit * (size // len(unit))).encode()
    cols = benchmark(native.scan, data, MAX_SPANS)
    _record(benchmark, len(data), spans=int(cols[0].shape[0]))


# --------------------------------------------------------------------------- with fingerprints


def _extract_reference(data: bytes):
    """extract() with every hot path in its pure-Python reference."""
    assert _scanner_py.utf8_error_offset(data) == -1
    return _scanner_py.extract_columns(data, MAX_SPANS, FINGERPRINT_KEY)


@pytest.mark.benchmark(group="extract")
def test_extract_native(benchmark, window):
    table = benchmark(extract, window)
    _record(
        benchmark,
        len(window),
        spans=len(table),
        scanner=_scanner.IMPLEMENTATION,
        hashing=f"{_hashing.IMPLEMENTATION}/{_hashing.INSTRUCTION_SET}",
    )


@pytest.mark.benchmark(group="extract")
def test_extract_reference(benchmark, window, scanned):
    cols = benchmark.pedantic(_extract_reference, args=(window,), rounds=3, iterations=1)
    assert np.array_equal(cols[10], extract(window).fp_fact)
    _record(benchmark, len(window))


# --------------------------------------------------------------------------- the fingerprint steps


@pytest.mark.benchmark(group="fingerprint")
def test_extract_columns_native(benchmark, window, scanned):
    """The scan and the fingerprints in one native call (what extract() runs): compare with
    test_scan_native for what the fingerprints add."""
    cols = benchmark(native.extract_columns, window, MAX_SPANS, FINGERPRINT_KEY)
    distinct = len({tuple(row) for row in cols[10].tolist()})
    _record(benchmark, len(window), spans=int(cols[0].shape[0]), distinct_facts=distinct)


@pytest.mark.benchmark(group="fingerprint")
def test_frame_every_row_native(benchmark, window, scanned):
    """The unfused framing of every row (no dedup), as extract() did before."""
    kind, _, _, ks, ke, vs, ve, vk = scanned
    buf, starts, _ = benchmark(native.frame_facts, window, kind, ks, ke, vs, ve, vk)
    _record(benchmark, len(window), frames=int(starts.shape[0]), frame_bytes=int(buf.shape[0]))


@pytest.mark.benchmark(group="fingerprint")
def test_hash_every_frame_native(benchmark, window, scanned):
    """Hashing every row's frames (no dedup) through the public hash_spans."""
    kind, _, _, ks, ke, vs, ve, vk = scanned
    buf, starts, ends = native.frame_facts(window, kind, ks, ke, vs, ve, vk)
    benchmark(_hashing.hash_spans, buf, starts, ends, key=FINGERPRINT_KEY)
    _record(benchmark, len(window), frames=int(starts.shape[0]))


# --------------------------------------------------------------------------- block by block


@pytest.fixture(scope="module")
def blocks() -> list[bytes]:
    """The window's blocks as the gate extracts them: UTF-8 bytes, one call each."""
    return [b["text"].encode("utf-8") for b in make_window(WINDOW_TOKENS, seed=0).blocks]


def _extract_all(blocks: list[bytes]) -> int:
    return sum(len(extract(b)) for b in blocks)


@pytest.mark.benchmark(group="blocks")
def test_extract_blocks_native(benchmark, blocks):
    spans = benchmark(_extract_all, blocks)
    median = benchmark.stats.stats.median
    _record(
        benchmark,
        sum(map(len, blocks)),
        blocks=len(blocks),
        spans=spans,
        us_per_block=round(median / len(blocks) * 1e6, 2),
    )


@pytest.mark.benchmark(group="blocks")
def test_extract_tiny_text(benchmark):
    """The fixed cost of one call: two facts in 16 bytes."""
    table = benchmark(extract, b"retries=3 and 42")
    assert len(table) == 2
    _record(benchmark, 16)


@pytest.mark.benchmark(group="blocks")
def test_extract_many_blocks_native(benchmark, blocks):
    """The window's blocks in extract_many's batches, against test_extract_blocks_native."""
    tables = benchmark(extract_many, blocks)
    median = benchmark.stats.stats.median
    _record(benchmark, sum(map(len, blocks)), blocks=len(blocks), spans=sum(map(len, tables)),
            us_per_block=round(median / len(blocks) * 1e6, 2))


@pytest.fixture(scope="module")
def summaries() -> list[bytes]:
    """The texts a gate check of the corpus's summarize edit scans: its new summaries."""
    from corpus import summarize_edit

    window = make_window(WINDOW_TOKENS, seed=0)
    edit = summarize_edit(window)
    seen = {b["text"] for b in edit["pre"]}
    return [b["text"].encode("utf-8") for b in edit["post"] if b["text"] not in seen]


@pytest.mark.benchmark(group="changed blocks")
def test_extract_summaries_one_by_one(benchmark, summaries):
    benchmark(lambda: [extract(b) for b in summaries])
    _record(benchmark, sum(map(len, summaries)), blocks=len(summaries))


@pytest.mark.benchmark(group="changed blocks")
def test_extract_summaries_together(benchmark, summaries):
    tables = benchmark(extract_many, summaries)
    assert [t.fp_fact.tolist() for t in tables] == [extract(b).fp_fact.tolist() for b in summaries]
    _record(benchmark, sum(map(len, summaries)), blocks=len(summaries))


@pytest.fixture(scope="module")
def summarized_turns() -> list:
    """The fact tables of the turns the corpus's summarize edit summarizes (a check makes a
    grounding set of each: its summaries name them by block handle)."""
    from corpus import summarize_edit

    window = make_window(WINDOW_TOKENS, seed=0)
    edit = summarize_edit(window)
    kept = {b["text"] for b in edit["post"]}
    return [extract(b["text"].encode("utf-8")) for b in edit["pre"]
            if b["role"] == "assistant" and b["text"] not in kept]


def _columns(tables: list) -> list:
    return [(t.fp_value, t.fp_fact, t.fp_key, t.kind) for t in tables]


@pytest.mark.benchmark(group="grounding sets")
def test_grounding_sets_one_by_one(benchmark, summarized_turns):
    from provgate._factdiff import grounding_index
    from provgate.gate import _KIND_KV

    columns = _columns(summarized_turns)
    benchmark(lambda: [grounding_index(*c, _KIND_KV) for c in columns])
    _record(benchmark, sum(len(t.data) for t in summarized_turns), blocks=len(columns))


@pytest.mark.benchmark(group="grounding sets")
def test_grounding_sets_together(benchmark, summarized_turns):
    from provgate._factdiff import grounding_index, grounding_index_many
    from provgate.gate import _KIND_KV

    columns = _columns(summarized_turns)
    sets = benchmark(grounding_index_many, columns, _KIND_KV)
    assert [s.to_array().tolist() for s in sets] == [grounding_index(*c, _KIND_KV).to_array().tolist()
                                                     for c in columns]
    _record(benchmark, sum(len(t.data) for t in summarized_turns), blocks=len(columns))
