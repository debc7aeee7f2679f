"""The source store's own operations, on a file store (WAL, synchronous=FULL): what schema 3's
row checksum (red team 93, F03) adds to a put, to the reads of a source's kind and ts, and to
verify(), and what the in-place upgrade from schema 2 costs.

Run:

    PYTHONPATH=src:benchmarks python -m pytest benchmarks/test_bench_store.py --benchmark-only

Every operation but ``put`` reads; ``put`` is one durable transaction (one fsync) per call, so it
measures the disk as much as the store; ``put_many`` of 200 sources is one transaction.
"""

from __future__ import annotations

import itertools

import pytest

from provgate.store import SourceStore

N_SOURCES = 2_000
TEXT = "retries=3\ntimeout_s=30\nendpoint=https://api.example.com/v2\n" * 20  # ~1.2 KB


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("store") / "store.sqlite3"
    s = SourceStore(str(path))
    s.put_many([(f"tool:call_{i}", f"{i}\n{TEXT}") for i in range(N_SOURCES)], kind="tool_output", ts=1763000000.5)
    yield s
    s.close()


@pytest.mark.benchmark(group="store-write")
def test_put(benchmark, store):
    counter = itertools.count()
    benchmark.pedantic(lambda: store.put(f"tool:new_{next(counter)}", f"new {next(counter)}\n", kind="tool_output",
                                         ts=1.0), rounds=200, iterations=1)


@pytest.mark.benchmark(group="store-write")
def test_put_many_200(benchmark, store):
    counter = itertools.count()

    def batch():
        k = next(counter)
        return store.put_many([(f"tool:batch_{k}_{i}", f"batch {k} {i}\n") for i in range(200)], kind="tool_output")

    benchmark.pedantic(batch, rounds=30, iterations=1)


@pytest.mark.benchmark(group="store-read")
def test_info(benchmark, store):
    assert benchmark(store.info, "tool:call_777").kind == "tool_output"


@pytest.mark.benchmark(group="store-read")
def test_info_many_500(benchmark, store):
    handles = [f"tool:call_{i}" for i in range(0, N_SOURCES, 4)]
    assert len(benchmark(store.info_many, handles)) == 500


@pytest.mark.benchmark(group="store-read")
def test_digests_many_500(benchmark, store):
    handles = [f"tool:call_{i}" for i in range(0, N_SOURCES, 4)]
    assert len(benchmark(store.digests_many, handles)) == 500


@pytest.mark.benchmark(group="store-read")
def test_get(benchmark, store):
    assert benchmark(store.get, "tool:call_777").startswith("777\n")


@pytest.mark.benchmark(group="store-read")
def test_pointer_and_resolve(benchmark, store):
    def cut_and_resolve():
        return store.resolve(store.pointer("tool:call_777", 4, 13))

    assert benchmark(cut_and_resolve) == "retries=3"


@pytest.mark.benchmark(group="store-verify")
def test_verify(benchmark, store):
    assert benchmark.pedantic(store.verify, rounds=5, iterations=1) == []
