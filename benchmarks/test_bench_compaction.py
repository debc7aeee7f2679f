"""The compaction planner on the standard 200k-token window.

Run:  cd /work/main && PYTHONPATH=src:benchmarks python -m pytest benchmarks/test_bench_compaction.py \\
          --benchmark-autosave

Target (issue 5): ``plan_compaction`` on the 200k-token window <= 1 ms (group "plan-200k",
median). The plan counts every block's tokens (UTF-8 sizes, natively), classifies the blocks and
chooses groups and evictions; it never scans a source for facts. "reference textsize" is the same
plan with the pure-Python UTF-8 sizes, for comparison. Group "compact-200k" is a whole pass
(plan, a summarizer that keeps the markers, the gate, the audit write), for scale only.
"""

from __future__ import annotations

import re

import pytest
from corpus import make_window

from provgate import _textsize, _textsize_py, compaction
from provgate.compaction import compact, plan_compaction
from provgate.gate import Gate
from provgate.store import SourceStore
from provgate.window import Window

WINDOW_TOKENS = 200_000
MARKER = re.compile(r"\[src:[^\]\s\[]+\]")


@pytest.fixture(scope="module")
def corpus_window():
    w = make_window(WINDOW_TOKENS, seed=0)
    window = Window(w.blocks)
    assert 200_000 <= sum(compaction.approx_tokens(b.text) for b in window) < 201_000
    return w, window


@pytest.mark.benchmark(group="plan-200k")
@pytest.mark.parametrize("task", [None, "recall"])
def test_plan_over_threshold(benchmark, corpus_window, task):
    _, window = corpus_window
    plan = benchmark(plan_compaction, window, budget_tokens=WINDOW_TOKENS, task=task)
    assert _textsize.IMPLEMENTATION == "native"
    assert plan.needed and plan.meets_target and plan.summarize
    assert plan.expected_fill <= plan.target


@pytest.mark.benchmark(group="plan-200k")
def test_plan_below_threshold(benchmark, corpus_window):
    _, window = corpus_window
    plan = benchmark(plan_compaction, window, budget_tokens=2 * WINDOW_TOKENS)
    assert not plan.needed


@pytest.mark.benchmark(group="plan-200k")
def test_plan_with_reference_textsize(benchmark, corpus_window, monkeypatch):
    _, window = corpus_window
    monkeypatch.setattr(compaction, "utf8_lengths", _textsize_py.utf8_lengths)
    plan = benchmark(plan_compaction, window, budget_tokens=WINDOW_TOKENS)
    assert plan.needed


@pytest.mark.benchmark(group="textsize-200k")
@pytest.mark.parametrize("which", ["native", "reference"])
def test_utf8_lengths(benchmark, corpus_window, which):
    _, window = corpus_window
    texts = [b.text for b in window]
    fn = _textsize.utf8_lengths if which == "native" else _textsize_py.utf8_lengths
    sizes = benchmark(fn, texts)
    assert int(sizes.sum()) == sum(len(t.encode("utf-8")) for t in texts)


def _keep_markers(request):
    return "summary of earlier turns: " + " ".join(MARKER.findall(request.text)) + "\n"


@pytest.mark.benchmark(group="compact-200k")
def test_compact_pass(benchmark, corpus_window):
    w, window = corpus_window
    store = SourceStore(":memory:")
    for handle, text in w.sources.items():
        store.put(handle, text)

    def one_pass():
        return compact(window, _keep_markers, store=store, budget_tokens=WINDOW_TOKENS, gate=Gate(store))

    result = benchmark.pedantic(one_pass, rounds=5, iterations=1, warmup_rounds=1)
    assert result.verdict.accepted
