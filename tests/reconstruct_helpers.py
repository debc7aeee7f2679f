"""Helpers shared by the tests of the native modules: the GIL observer, and a count of the
Python checks a quote costs."""

from __future__ import annotations

import sys
import threading
import time


def observed_while_running(fn, min_seconds: float = 0.3) -> int:
    """How many times another thread got to run while ``fn`` ran. With a 10 s switch
    interval the counter thread runs during ``fn`` only if ``fn`` releases the GIL.

    ``fn`` is called again until ``min_seconds`` have passed: a native call whose GIL-free
    stretch lasts a few milliseconds may end, once, before the OS wakes the counter thread
    (it did on CI, where one 3 ms search was never observed). Between calls this thread runs
    Python and holds the GIL, so repeating adds chances only inside ``fn``."""
    ticks = 0
    stop = threading.Event()

    def counter():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0)

    t = threading.Thread(target=counter)
    switch = sys.getswitchinterval()
    sys.setswitchinterval(10.0)
    try:
        t.start()
        time.sleep(0.05)
        before = ticks
        deadline = time.perf_counter() + min_seconds
        fn()
        while time.perf_counter() < deadline:
            fn()
        observed = ticks - before
    finally:
        stop.set()
        sys.setswitchinterval(switch)
        t.join()
    return observed


def verify_counting_checks(monkeypatch, source: bytes, quote: bytes):
    """``(check, calls)``: ``verify_quote`` of ``quote`` in ``source`` (stored under
    ``tool:run``), and how many times it called ``reconstruct._cuts_a_token``, the Python
    check of one occurrence that the bulk paths are there to spare."""
    from provgate import reconstruct
    from provgate.reconstruct import verify_quote
    from provgate.store import SourceStore

    calls = 0
    checked = reconstruct._cuts_a_token

    def counting(*args):
        nonlocal calls
        calls += 1
        return checked(*args)

    monkeypatch.setattr(reconstruct, "_cuts_a_token", counting)
    store = SourceStore(":memory:")
    try:
        store.put("tool:run", source)
        return verify_quote(store, "tool:run", quote), calls
    finally:
        store.close()


def cut_one_by_one(source: bytes, spans, quote: bytes | None = None) -> list[tuple[int, int]]:
    """The spans of ``spans`` that cut no token, each asked of ``reconstruct._cuts_a_token``:
    what the bulk paths must answer."""
    from provgate import reconstruct

    return [(s, e) for s, e in spans if not reconstruct._cuts_a_token(source, s, e, quote)]


def assert_callers_find_the_whole_occurrences(source: bytes, quote: bytes) -> None:
    """The exact walk (``_whole_occurrence``) and the whitespace listing
    (``_whole_whitespace_spans``) find what a check of every occurrence one by one finds."""
    from provgate import _search_py, reconstruct

    every = _search_py.occurrences(quote, source)
    if every:
        whole = [at for at in every[1:] if not reconstruct._cuts_a_token(source, at, at + len(quote))]
        assert reconstruct._whole_occurrence(quote, source, every[0]) == (whole[0] if whole else -1)
    if quote.strip():
        spans = _search_py.whitespace_spans(quote, source, 1 << 40).tolist()
        assert reconstruct._whole_whitespace_spans(quote, source, 16) == cut_one_by_one(source, spans)[:16]


def assert_uncut_spans_are_those_checked_one_by_one(source: bytes, quote: bytes, limit: int, *,
                                                    whitespace: bool = True) -> None:
    """``_uncut_spans`` keeps the first ``limit`` of the quote's exact spans (and, with
    ``whitespace``, of its whitespace spans) that a check of each span keeps."""
    import numpy as np

    from provgate import _search_py, reconstruct

    if whitespace:
        every = _search_py.whitespace_spans(quote, source, 1 << 40)
        assert reconstruct._uncut_spans(source, every, limit) == cut_one_by_one(source, every.tolist())[:limit]
    starts = _search_py.occurrences(quote, source)
    exact = np.array([(s, s + len(quote)) for s in starts], dtype=np.int64).reshape(-1, 2)
    whole = cut_one_by_one(source, exact.tolist(), quote)
    assert reconstruct._uncut_spans(source, exact, limit, quote) == whole[:limit]
