"""A window from its plain JSON blocks, as an agent that holds its context as JSON objects
passes it to ``gate.check`` (both the pre and the post window, on every edit).

Run:  cd /work/main && PYTHONPATH=src:benchmarks python -m pytest benchmarks/test_bench_window.py \\
          --benchmark-autosave

``Window(blocks)`` on the 200k-token window's 562 blocks: the native pass
(``provgate._ext.blockscan.window_blocks``, which makes the usual JSON object's Block without
the per-field checks' Python calls) against the reference (``provgate._blockscan_py``, every
field through ``Block.from_json``). No target in an issue: it is reported because the gate's
next-edit target means little if making its arguments costs ten times the check.
"""

from __future__ import annotations

import pytest
from corpus import make_window

from provgate import _blockscan, _blockscan_py
from provgate.window import Window

WINDOW_TOKENS = 200_000


@pytest.fixture(scope="module")
def blocks() -> list[dict]:
    """The window's blocks as JSON objects with every field written out (as to_json gives)."""
    return Window(make_window(WINDOW_TOKENS, seed=0).blocks).to_json()


@pytest.mark.benchmark(group="window-from-json")
def test_window_from_json_native(benchmark, blocks):
    window = benchmark(Window, blocks)
    assert len(window) == len(blocks)
    benchmark.extra_info.update(implementation=_blockscan.IMPLEMENTATION, blocks=len(blocks))


@pytest.mark.benchmark(group="window-from-json")
def test_window_from_json_reference(benchmark, blocks):
    made, _ = benchmark(_blockscan_py.window_blocks, blocks, "window")
    assert made == Window(blocks).blocks
    benchmark.extra_info.update(implementation="reference", blocks=len(blocks))
