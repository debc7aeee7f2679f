"""The compaction planner and one compaction pass: policies, the summarizer contract, bad input."""

from __future__ import annotations

import dataclasses
import math
import re
import sys
import types

import pytest

from compaction_helpers import (
    audit_count,
    citation,
    corpus_blocks,
    filler,
    markers_only,
    memory_store,
    small_window,
    store_state,
)
from provgate.compaction import (
    CompactionPlan,
    SummaryRequest,
    approx_tokens,
    block_source_handle,
    compact,
    plan_compaction,
)
from provgate.errors import (
    CompactionBudgetError,
    EditFormatError,
    InvalidArgumentError,
    OptionalDependencyError,
    ProvenanceInvariantError,
    ProvgateError,
    SummarizerError,
)
from provgate.gate import Gate
from provgate.pointers import Pointer
from provgate.window import Block, Window


def tokens_of(window: Window) -> int:
    return sum(approx_tokens(b.text) for b in window)


def partition(plan: CompactionPlan) -> list[str]:
    """Every block id the plan places, in any class (a block must appear exactly once)."""
    out = [*plan.keep, *plan.pinned, *plan.preserve, *plan.evict]
    for g in plan.summarize:
        out.extend(g.blocks)
    return out


# -- token counting -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("é", 1), ("日本語", 3), ("日本語x" * 10, 25), ("x" * 4001, 1001)],
)
def test_approx_tokens_is_utf8_bytes_over_four_rounded_up(text, expected):
    assert approx_tokens(text) == expected == math.ceil(len(text.encode("utf-8")) / 4)


def test_approx_tokens_of_long_non_ascii_text_is_exact():
    text = "ü" * 70_000 + "—"
    assert approx_tokens(text) == (140_000 + 3 + 3) // 4


def test_custom_token_counter_is_used_for_every_block():
    window, _ = small_window()
    words = lambda text: len(text.split())  # noqa: E731
    plan = plan_compaction(window, budget_tokens=10_000, count_tokens=words)
    assert plan.tokens == sum(len(b.text.split()) for b in window)
    assert plan.block_tokens == {b.id: len(b.text.split()) for b in window}
    assert plan.counter.endswith("<lambda>")


@pytest.mark.parametrize("bad", [lambda t: -1, lambda t: "3", lambda t: True, lambda t: 2.5, lambda t: None])
def test_counter_returning_garbage_is_refused(bad):
    window, _ = small_window()
    with pytest.raises(InvalidArgumentError, match="count_tokens") as exc:
        plan_compaction(window, budget_tokens=100, count_tokens=bad)
    assert exc.value.argument == "count_tokens"


def test_counter_that_raises_is_wrapped_with_its_cause():
    window, _ = small_window()

    def broken(text):
        raise RuntimeError("tokenizer offline")

    with pytest.raises(InvalidArgumentError, match="tokenizer offline") as exc:
        plan_compaction(window, budget_tokens=100, count_tokens=broken)
    assert isinstance(exc.value.__cause__, RuntimeError)


@pytest.mark.parametrize("bad", ["bytes/4", "", 5, object(), __import__("numpy").array(["approx"])])
def test_unknown_counter_is_refused(bad):
    window, _ = small_window()
    with pytest.raises(InvalidArgumentError, match="count_tokens"):
        plan_compaction(window, budget_tokens=100, count_tokens=bad)


def test_tiktoken_asked_for_but_not_installed_is_a_clear_error(monkeypatch):
    from provgate import compaction

    monkeypatch.setitem(sys.modules, "tiktoken", None)  # import tiktoken -> ImportError
    monkeypatch.setattr(compaction, "_tiktoken_encodings", {})
    window, _ = small_window()
    with pytest.raises(OptionalDependencyError, match="tiktoken, which is not installed") as exc:
        plan_compaction(window, budget_tokens=100, count_tokens="tiktoken")
    assert isinstance(exc.value, ImportError) and exc.value.package == "tiktoken"


def test_tiktoken_is_used_when_installed_and_asked_for(monkeypatch):
    """The wiring, with a stand-in module (tiktoken is not a dependency and not installed here)."""
    from provgate import compaction

    asked = []

    class Encoding:
        def encode_ordinary(self, text):
            return text.split()

    fake = types.SimpleNamespace(get_encoding=lambda name: asked.append(name) or Encoding())
    monkeypatch.setitem(sys.modules, "tiktoken", fake)
    monkeypatch.setattr(compaction, "_tiktoken_encodings", {})
    window, _ = small_window()
    plan = plan_compaction(window, budget_tokens=10_000, count_tokens="tiktoken")
    assert asked == ["o200k_base"]
    assert plan.counter == "tiktoken:o200k_base"
    assert plan.tokens == sum(len(b.text.split()) for b in window)
    plan = plan_compaction(window, budget_tokens=10_000, count_tokens="tiktoken:cl100k_base")
    assert asked == ["o200k_base", "cl100k_base"] and plan.counter == "tiktoken:cl100k_base"


def test_tiktoken_encoding_that_cannot_load_is_a_clear_error(monkeypatch):
    from provgate import compaction

    def get_encoding(name):
        raise ValueError(f"Unknown encoding {name}")

    monkeypatch.setitem(sys.modules, "tiktoken", types.SimpleNamespace(get_encoding=get_encoding))
    monkeypatch.setattr(compaction, "_tiktoken_encodings", {})
    window, _ = small_window()
    with pytest.raises(InvalidArgumentError, match="could not load the encoding 'nope'"):
        plan_compaction(window, budget_tokens=100, count_tokens="tiktoken:nope")


# -- the plan -----------------------------------------------------------------------------------


def test_below_threshold_nothing_is_done():
    window, _ = small_window()
    total = tokens_of(window)
    plan = plan_compaction(window, budget_tokens=math.ceil(total / 0.84))
    assert not plan.needed
    assert plan.keep == tuple(b.id for b in window)
    assert plan.summarize == () and plan.evict == () and plan.preserve == () and plan.eviction_records == ()
    assert plan.expected_tokens == plan.tokens == total


def test_at_threshold_a_plan_is_made():
    window, _ = small_window()
    total = tokens_of(window)
    plan = plan_compaction(window, budget_tokens=total, threshold=1.0)
    assert plan.needed and plan.fill == 1.0


def test_reconstruction_never_summarizes_a_linked_block_and_pins_what_it_keeps():
    window, _ = small_window()
    plan = plan_compaction(window, budget_tokens=tokens_of(window))
    assert plan.task == "reconstruction" and plan.task_given is None
    assert sorted(partition(plan)) == sorted(b.id for b in window)
    summarized = {bid for g in plan.summarize for bid in g.blocks}
    assert summarized and not any(window.get(bid).handles for bid in summarized)
    assert plan.pinned == ("b0", "b1")
    linked = {b.id for b in window if b.handles and not b.pinned}
    assert set(plan.preserve) | set(plan.evict) == linked
    # evicted oldest first: every evicted linked block is older than every preserved one
    assert max(window.index(b) for b in plan.evict) < min(window.index(b) for b in plan.preserve)
    assert plan.eviction_records == tuple(h for bid in plan.evict for h in window.get(bid).handles)


def test_expected_fill_counts_kept_blocks_and_summary_allowances():
    window, _ = small_window()
    budget = tokens_of(window)
    plan = plan_compaction(window, budget_tokens=budget)
    kept = sum(plan.block_tokens[b] for b in (*plan.keep, *plan.pinned, *plan.preserve))
    assert plan.expected_tokens == kept + sum(g.max_tokens for g in plan.summarize)
    assert plan.expected_fill == plan.expected_tokens / budget
    assert plan.meets_target and plan.expected_fill <= plan.target == pytest.approx(0.85 * 0.7)
    for g in plan.summarize:
        assert g.tokens == sum(plan.block_tokens[b] for b in g.blocks)
        # the group's citation markers kept whole, the rest shrunk by the ratio (red team 37),
        # in the allowance the expected fill counts
        names = [m for b in g.blocks for m in re.findall(r"\[src:([^\]]+)\]", window.get(b).text)]
        marks = approx_tokens(" ".join(f"[src:{m}]" for m in names))
        assert names and g.max_tokens == max(64, math.ceil(0.25 * g.tokens), marks + math.ceil(0.25 * (g.tokens - marks)))
        assert max(64, math.ceil(0.25 * g.tokens)) < g.max_tokens < g.tokens


def test_unknown_task_is_reconstruction():
    window, _ = small_window()
    a = plan_compaction(window, budget_tokens=400).to_json()
    b = plan_compaction(window, budget_tokens=400, task="reconstruction").to_json()
    assert a.pop("task_given") is None and b.pop("task_given") == "reconstruction"
    assert a == b


def test_recall_may_summarize_linked_blocks():
    window, _ = small_window()
    plan = plan_compaction(window, budget_tokens=tokens_of(window), task="recall")
    linked_in_groups = {bid for g in plan.summarize for bid in g.linked}
    assert linked_in_groups and all(window.get(b).handles for b in linked_in_groups)
    assert plan.preserve == ()
    for g in plan.summarize:
        assert set(g.linked) == {b for b in g.blocks if window.get(b).handles}
        assert not any(window.get(b).pinned for b in g.blocks)


def test_plan_is_deterministic():
    window, _ = small_window()
    plans = [plan_compaction(window, budget_tokens=500, task=t).to_json() for t in (None, None, "recall", "recall")]
    assert plans[0] == plans[1] and plans[2] == plans[3]


def test_summary_ids_are_unique_and_new():
    blocks = [Block(f"b{i}", "assistant", filler(200), ts=float(i)) for i in range(12)]
    blocks.append(Block("summary-x", "assistant", filler(10)))
    window = Window(blocks)
    plan = plan_compaction(window, budget_tokens=tokens_of(window), max_group_tokens=300, target=0.2)
    ids = [g.id for g in plan.summarize]
    assert len(ids) >= 3 and len(set(ids)) == len(ids)
    assert not set(ids) & {b.id for b in window}


def test_groups_respect_max_group_tokens():
    blocks = [Block(f"b{i}", "assistant", filler(100 + 10 * i), ts=float(i)) for i in range(20)]
    window = Window(blocks)
    plan = plan_compaction(window, budget_tokens=tokens_of(window), max_group_tokens=500, target=0.1)
    assert len(plan.summarize) > 1
    for g in plan.summarize:
        assert g.tokens <= 500 or len(g.blocks) == 1


def test_only_as_much_is_summarized_as_the_target_needs_oldest_first():
    blocks = [Block(f"b{i}", "assistant", filler(200), ts=float(i)) for i in range(20)]
    window = Window(blocks)
    total = tokens_of(window)
    plan = plan_compaction(window, budget_tokens=total, threshold=0.9, target=0.8)
    summarized = [b for g in plan.summarize for b in g.blocks]
    assert summarized == [f"b{i}" for i in range(len(summarized))]  # a prefix: the oldest
    assert 0 < len(summarized) < 20 and plan.keep == tuple(f"b{i}" for i in range(len(summarized), 20))
    assert plan.expected_fill <= 0.8


def test_pointers_make_a_handleless_block_linked():
    window, sources = small_window()
    cite = citation("b3", "tool:call_1", sources["tool:call_1"], "retries=3")
    plan = plan_compaction(window, budget_tokens=tokens_of(window), pointers=[cite])
    assert "b3" not in {b for g in plan.summarize for b in g.blocks}
    assert "b3" in plan.preserve or "b3" in plan.evict
    as_json = plan_compaction(window, budget_tokens=tokens_of(window), pointers=[cite.to_json()])
    assert as_json == plan


def test_sticky_pins_given_to_the_planner_are_honoured():
    window, _ = small_window()
    plan = plan_compaction(window, budget_tokens=tokens_of(window), pinned_handles={"tool:call_2"},
                           pinned_ids={"b6"}, task="recall")
    assert {"b4", "b6", "b0", "b1"} <= set(plan.pinned)
    assert not {"b4", "b6"} & {b for g in plan.summarize for b in g.blocks}


def test_pinned_blocks_larger_than_the_budget_are_an_error_listing_them():
    window, _ = small_window()
    pinned_tokens = approx_tokens(window[0].text) + approx_tokens(window[1].text)
    with pytest.raises(CompactionBudgetError) as exc:
        plan_compaction(window, budget_tokens=pinned_tokens - 1)
    err = exc.value
    assert err.pinned == (("b0", approx_tokens(window[0].text)), ("b1", approx_tokens(window[1].text)))
    assert err.pinned_tokens == pinned_tokens and err.budget_tokens == pinned_tokens - 1
    assert "b0" in str(err) and "b1" in str(err) and "evict_pinned=True" in str(err)
    # exactly the pinned size fits: the plan evicts everything else and keeps the pins
    plan = plan_compaction(window, budget_tokens=pinned_tokens)
    assert plan.pinned == ("b0", "b1") and not plan.meets_target


def test_evict_pinned_allows_evicting_pinned_blocks_oldest_first_with_records():
    window, _ = small_window()
    plan = plan_compaction(window, budget_tokens=15, evict_pinned=True)
    assert "b0" in plan.evict and "doc:sys" in plan.eviction_records
    assert plan.expected_tokens <= math.floor(plan.target * 15)


def test_evictions_without_handles_are_recorded_by_id():
    blocks = [Block(f"b{i}", "assistant", filler(20), ts=float(i)) for i in range(10)]
    window = Window(blocks)
    # one-block groups (max_group_tokens) are below the minimum allowance: summaries save nothing
    plan = plan_compaction(window, budget_tokens=tokens_of(window), target=0.3, max_group_tokens=30)
    assert plan.summarize == ()
    assert plan.evict and plan.eviction_records == plan.evict


def test_the_newest_of_two_differing_reads_is_kept_while_the_older_survives():
    """Summarizing or evicting the newer read alone would leave only the stale value (I4)."""
    old = Block("r1", "tool", "retries=3\n" + filler(200), ("tool:read_1",), ts=1.0, resource="file:app.ini",
                pinned=True)
    new = Block("r2", "tool", "retries=5\n" + filler(200), ("tool:read_2",), ts=9.0, resource="file:app.ini")
    rest = [Block(f"a{i}", "assistant", filler(150), ts=2.0 + i) for i in range(4)]
    window = Window([old, *rest, new])
    recall = plan_compaction(window, budget_tokens=tokens_of(window), task="recall", target=0.1)
    assert "r2" not in {b for g in recall.summarize for b in g.blocks}
    assert "r2" not in recall.evict and "r2" in recall.keep
    # once the older read may go too, the newer one may follow it
    freed = plan_compaction(window, budget_tokens=tokens_of(window), task="recall", target=0.05, evict_pinned=True)
    assert "r1" in freed.evict
    # identical reads are not a conflict: nothing protects the newer copy
    same = Window([old, *rest, Block("r2", "tool", old.text, ("tool:read_2",), ts=9.0, resource="file:app.ini")])
    plan = plan_compaction(same, budget_tokens=tokens_of(same), task="recall", target=0.1)
    assert "r2" in {b for g in plan.summarize for b in g.blocks} | set(plan.evict)


def test_blocks_without_markers_are_evicted_before_cited_ones():
    blocks = []
    for i in range(6):
        blocks.append(Block(f"t{i}", "tool", filler(5), (f"tool:call_{i}",), ts=float(2 * i)))
        blocks.append(Block(f"a{i}", "assistant", f"see [src:call_{i}] " + filler(150), ts=float(2 * i + 1)))
    window = Window(blocks)
    total = tokens_of(window)
    # no summary would save anything here (min_summary_tokens): the plan can only evict
    plan = plan_compaction(window, budget_tokens=total, target=0.1, min_summary_tokens=10_000)
    assert plan.summarize == ()
    marked = {f"a{i}" for i in range(6)}
    evicted = set(plan.evict)
    assert {f"t{i}" for i in range(6)} <= evicted  # every uncited block went first
    # cited blocks are evicted only as far as needed to get below the threshold
    assert evicted & marked == {"a0"}  # oldest first
    assert plan.expected_tokens < 0.85 * total and not plan.meets_target
    assert plan.expected_tokens + min(plan.block_tokens[b] for b in evicted & marked) >= math.ceil(0.85 * total) - 1


# -- bad arguments ------------------------------------------------------------------------------


@pytest.mark.parametrize("budget", ["100", 1.5, True, None, 0, -5, 1 << 41])
def test_invalid_budget_is_refused(budget):
    window, _ = small_window()
    with pytest.raises(InvalidArgumentError, match="budget_tokens") as exc:
        plan_compaction(window, budget_tokens=budget)
    assert exc.value.argument == "budget_tokens"


@pytest.mark.parametrize("threshold", [0, 0.0, -0.5, 1.01, float("nan"), float("inf"), "0.8", True, None])
def test_invalid_threshold_is_refused(threshold):
    window, _ = small_window()
    with pytest.raises(InvalidArgumentError, match="threshold"):
        plan_compaction(window, budget_tokens=100, threshold=threshold)


@pytest.mark.parametrize("target", [0, 0.9, "0.5", float("nan")])
def test_invalid_target_is_refused(target):
    window, _ = small_window()
    with pytest.raises(InvalidArgumentError, match="target"):
        plan_compaction(window, budget_tokens=100, threshold=0.85, target=target)


@pytest.mark.parametrize("task", ["summary", "RECALL", 1, ""])
def test_invalid_task_is_refused(task):
    window, _ = small_window()
    with pytest.raises(InvalidArgumentError, match="task"):
        plan_compaction(window, budget_tokens=100, task=task)


@pytest.mark.parametrize(
    "name, value",
    [("summary_ratio", 0), ("summary_ratio", 1), ("summary_ratio", "0.2"), ("min_summary_tokens", 0),
     ("max_group_tokens", -1), ("max_group_tokens", 2.0), ("evict_pinned", 1), ("pinned_handles", "tool:x"),
     ("pinned_ids", [1])],
)
def test_invalid_tuning_arguments_are_refused(name, value):
    window, _ = small_window()
    with pytest.raises(InvalidArgumentError) as exc:
        plan_compaction(window, budget_tokens=100, **{name: value})
    assert exc.value.argument == name


@pytest.mark.parametrize("window", ["b0 b1", 5, None, {"id": "b0"}, b"blocks"])
def test_a_window_that_is_not_a_window_is_refused(window):
    with pytest.raises(InvalidArgumentError, match="window must be a provgate Window"):
        plan_compaction(window, budget_tokens=100)


def test_a_list_of_blocks_is_read_as_a_window_and_malformed_blocks_name_their_field():
    window, _ = small_window()
    assert plan_compaction(list(window), budget_tokens=500) == plan_compaction(window, budget_tokens=500)
    with pytest.raises(EditFormatError) as exc:
        plan_compaction([{"id": "b0", "role": "tool"}], budget_tokens=100)
    assert exc.value.field == "window[0].text"


@pytest.mark.parametrize("counter", [{}, {"count_tokens": len}, {"count_tokens": len, "pinned_handles": ["block:" + "0" * 32]}])
def test_a_lone_surrogate_in_a_block_is_refused_naming_the_block(counter):
    # whatever counts the tokens (red team 37, 06: with a tokenizer the window was planned, or,
    # with a sticky text pin, a bare UnicodeEncodeError came out of hashing the texts)
    window = Window([Block("b0", "assistant", "ok\n", pinned=True), Block("b1", "assistant", "bad \udc80 text\n")])
    with pytest.raises(EditFormatError, match="lone surrogate") as exc:
        plan_compaction(window, budget_tokens=2, **counter)
    assert exc.value.field == "window[1].text"


def test_pointers_must_be_citations_of_blocks_in_the_window():
    window, sources = small_window()
    with pytest.raises(InvalidArgumentError, match="not in the window"):
        plan_compaction(window, budget_tokens=100, pointers=[citation("zz", "tool:call_1", sources["tool:call_1"], "retries")])
    store = memory_store(sources)
    p = store.pointer("tool:call_1", 0, 9)
    with pytest.raises(InvalidArgumentError, match="names no block"):
        plan_compaction(window, budget_tokens=100, pointers=[p])
    with pytest.raises(InvalidArgumentError, match="pointers must be a list"):
        plan_compaction(window, budget_tokens=100, pointers={"block": "b3"})
    with pytest.raises(EditFormatError):
        plan_compaction(window, budget_tokens=100, pointers=[{"block": "b3", "handle": "tool:call_1"}])


# -- one compaction pass --------------------------------------------------------------------------


def test_compact_commits_a_gated_window_with_summaries_pins_and_records():
    window, sources = small_window()
    store = memory_store(sources)
    gate = Gate(store)
    seen: list[SummaryRequest] = []

    def summarize(request):
        seen.append(request)
        return markers_only(request)

    result = compact(window, summarize, store=store, budget_tokens=tokens_of(window), gate=gate)
    plan = result.plan
    assert result.verdict.accepted and result.verdicts == (result.verdict,)
    assert result.verdict.classification == "lossy" and result.verdict.operator == "summarize"
    assert gate.history[-1].accepted and audit_count(store) == 1
    assert [r.group for r in seen] == [g.id for g in plan.summarize]
    for req, g in zip(seen, plan.summarize):
        assert tuple(b.id for b in req.blocks) == g.blocks
        # the allowance the plan counted, room for the group's citation markers included
        marks = approx_tokens(" ".join(f"[src:{m}]" for m in req.markers))
        assert req.max_tokens == g.max_tokens == marks + math.ceil(0.25 * (g.tokens - marks)) > max(64, math.ceil(0.25 * g.tokens))
        assert req.task == "reconstruction" and req.linked == ()
        assert req.text == "\n".join(b.text if b.text.endswith("\n") else b.text + "\n" for b in req.blocks)
        assert req.markers == ("call_1", "call_2", "call_3")
    post = result.window
    ids = [b.id for b in post]
    # the summary takes the place of its first member; kept blocks keep their order
    assert ids == ["b0", "b1", plan.summarize[0].id, "b4", "b7"]
    summary = post.get(plan.summarize[0].id)
    assert summary.derived and summary.role == "summary" and not summary.handles
    # handle-less members are derived from their own stored texts
    assert summary.derived_from == tuple(block_source_handle(window.get(b)) for b in plan.summarize[0].blocks)
    for h, bid in zip(summary.derived_from, plan.summarize[0].blocks):
        assert store.get(h) == window.get(bid).text
    assert summary.ts == max(window.get(b).ts for b in plan.summarize[0].blocks)
    for bid in ("b0", "b1", "b4", "b7"):
        assert post.get(bid).pinned and post.get(bid).text == window.get(bid).text
    assert result.evicted == plan.eviction_records == ("tool:call_1",)
    assert store.get("tool:call_1") == sources["tool:call_1"]
    assert result.tokens == tokens_of(post) and result.fill == result.tokens / plan.budget_tokens
    assert result.fill <= plan.expected_fill


def test_compact_below_threshold_returns_the_window_without_a_verdict():
    window, sources = small_window()
    store = memory_store(sources)
    calls = []
    result = compact(window, lambda r: calls.append(r) or "x", store=store, budget_tokens=10 * tokens_of(window))
    assert result.window is window and result.verdict is None and result.evicted == () and calls == []
    assert audit_count(store) == 0


def test_evicted_blocks_without_handles_stay_retrievable_in_the_store():
    blocks = [Block("b0", "assistant", "first remark " + filler(20), ts=1.0),
              Block("b1", "assistant", "second remark " + filler(20), ts=2.0),
              Block("b2", "assistant", "third remark " + filler(20), ts=3.0)]
    window = Window(blocks)
    store = memory_store({})
    result = compact(window, markers_only, store=store, budget_tokens=tokens_of(window), target=0.4)
    assert result.verdict.accepted and result.verdict.operator == "evict"
    assert result.plan.evict
    for bid in result.plan.evict:
        h = block_source_handle(window.get(bid))
        assert bid in result.evicted and h in result.evicted
        assert store.get(h) == window.get(bid).text


def test_gate_rejection_raises_with_the_verdict_and_is_audited():
    window, sources = small_window()
    store = memory_store(sources)
    gate = Gate(store)

    def drifting(request):
        return "the client sets retries=5 [src:call_1] [src:call_2] [src:call_3]\n"

    with pytest.raises(ProvenanceInvariantError, match="rejected") as exc:
        compact(window, drifting, store=store, budget_tokens=tokens_of(window), gate=gate)
    verdict = exc.value.verdict
    assert not verdict.accepted and "I1" in verdict.by_invariant()
    assert any(v.value == "5" or "retries=5" in v.message for v in verdict.violations)
    assert audit_count(store) == 1 and not gate.history[-1].accepted


def test_on_reject_evict_replaces_the_blamed_summary_by_evictions():
    blocks, sources, _ = corpus_blocks(30000)
    window = Window(blocks)
    store = memory_store(sources)
    gate = Gate(store)
    calls = []

    def drifts_once(request):
        calls.append(request.group)
        if len(calls) == 1:  # an invented value, with the markers kept
            return "the limit was raised to 987654 " + markers_only(request)
        return markers_only(request)

    result = compact(window, drifts_once, store=store, budget_tokens=tokens_of(window), gate=gate,
                     on_reject="evict", max_group_tokens=400)
    assert len(result.plan.summarize) > 2
    assert [v.accepted for v in result.verdicts] == [False, True]
    first = result.verdicts[0]
    assert {v.block for v in first.violations} == {calls[0]} and "987654" in first.violations[0].message
    assert result.fallback == (calls[0],)
    blamed = result.plan.summarize[0]
    assert blamed.id == calls[0] and result.window.get(blamed.id) is None
    for bid in blamed.blocks:
        assert result.window.get(bid) is None and bid in result.evicted
        assert store.get(block_source_handle(window.get(bid))) == window.get(bid).text
    survivors = [g.id for g in result.plan.summarize[1:]]
    assert all(result.window.get(sid).derived for sid in survivors)
    assert audit_count(store) == 2 and [c.accepted for c in gate.history] == [False, True]


@pytest.mark.parametrize("on_reject", ["keep", "evict"])
def test_a_violation_no_summary_explains_drops_every_summary_then_raises(on_reject):
    """A citation into a kept block that does not resolve (P) is not the summaries' fault: all
    of them are dropped, the edit is gated once more, and its second rejection is raised."""
    window, sources = small_window()
    store = memory_store(sources)
    good = citation("b4", "tool:call_2", sources["tool:call_2"], "backoff_ms=250")
    bad = dataclasses.replace(good, hash="blake3:" + "0" * 64)
    with pytest.raises(ProvenanceInvariantError, match="after dropping the rejected summaries") as exc:
        compact(window, markers_only, store=store, budget_tokens=tokens_of(window), pointers=[bad],
                on_reject=on_reject)
    verdict = exc.value.verdict
    assert verdict.by_invariant()["P"] == 1 and verdict.operator == "evict"
    (p,) = [v for v in verdict.violations if v.invariant == "P"]
    assert p.block == "b4" and p.evidence["reason"] == "span_mismatch"
    assert audit_count(store) == 2


def test_citations_survive_with_their_blocks_and_drop_with_evicted_ones():
    window, sources = small_window()
    store = memory_store(sources)
    cites = [citation("b3", "tool:call_1", sources["tool:call_1"], "retries=3"),
             citation("b4", "tool:call_2", sources["tool:call_2"], "backoff_ms=250"),
             citation("b2", "tool:call_1", sources["tool:call_1"], "timeout=30s")]
    result = compact(window, markers_only, store=store, budget_tokens=tokens_of(window), pointers=cites)
    assert result.verdict.accepted
    survivors = {c.block for c in result.pointers}
    dropped = {c.block for c in result.dropped_pointers}
    assert survivors | dropped == {"b2", "b3", "b4"} and not survivors & dropped
    assert "b3" not in {b for g in result.plan.summarize for b in g.blocks}  # cited: linked
    for c in result.pointers:
        assert result.window.get(c.block).pinned
    for c in result.dropped_pointers:
        assert c.block in result.plan.evict


# -- the summarizer contract: bad output ----------------------------------------------------------


def run_compact(summarize, **kw):
    window, sources = small_window()
    store = memory_store(sources)
    before = store_state(store)
    with pytest.raises(SummarizerError) as exc:
        compact(window, summarize, store=store, budget_tokens=tokens_of(window), **kw)
    assert store_state(store) == before, "a failed summary must leave the store untouched (no audit either)"
    return exc.value


def test_summarizer_that_raises_is_wrapped_naming_it_with_the_cause_chained():
    def flaky_llm(request):
        raise TimeoutError("model endpoint timed out")

    err = run_compact(flaky_llm)
    assert err.reason == "raised" and "flaky_llm" in err.summarizer and "flaky_llm" in str(err)
    assert "model endpoint timed out" in str(err) and isinstance(err.__cause__, TimeoutError)
    assert err.group.startswith("summary-")


@pytest.mark.parametrize("value", [None, b"bytes summary", 42, ["a list"], {"text": "x"}])
def test_summarizer_returning_non_text_is_refused(value):
    err = run_compact(lambda r: value)
    assert err.reason == "not_text" and type(value).__name__ in str(err)


@pytest.mark.parametrize("value", ["", "   \n\t"])
def test_summarizer_returning_nothing_is_refused(value):
    assert run_compact(lambda r: value).reason == "empty"


@pytest.mark.parametrize("value", ["ok \udc80 not ok", "nul\x00inside"])
def test_summarizer_returning_invalid_text_is_refused(value):
    assert run_compact(lambda r: value).reason == "invalid_text"


@pytest.mark.parametrize("join", ["".join, "\n".join, lambda texts: "".join(texts) + "\n\n  "])
def test_summarizer_returning_its_input_unchanged_is_refused(join):
    err = run_compact(lambda r: join([b.text for b in r.blocks]))
    assert err.reason == "unchanged" and "no reduction" in str(err)


def test_summarizer_returning_something_huge_is_refused_and_nothing_commits():
    err = run_compact(lambda r: "word " * 100_000)
    assert err.reason == "over_allowance" and "the plan allows" in str(err)


def test_summary_one_token_over_its_allowance_is_refused():
    def exactly(n):
        return lambda r: "x" * (4 * (r.max_tokens + n))

    assert run_compact(exactly(1)).reason == "over_allowance"
    window, sources = small_window()
    store = memory_store(sources)
    # at the allowance it is accepted as far as the summary contract goes (the gate still judges:
    # these summaries dropped the markers, which the gate's citation retention refuses)
    with pytest.raises(ProvenanceInvariantError):
        compact(window, exactly(0), store=store, budget_tokens=tokens_of(window))


def test_summarizer_is_not_called_for_a_budget_below_the_pinned_blocks():
    window, sources = small_window()
    store = memory_store(sources)
    calls = []
    before = store_state(store)
    with pytest.raises(CompactionBudgetError, match="b0.*b1"):
        compact(window, lambda r: calls.append(r) or "x", store=store, budget_tokens=5)
    assert calls == [] and store_state(store) == before


@pytest.mark.parametrize(
    "kwargs, argument",
    [({"summarize": "not callable"}, "summarize"), ({"store": None}, "store"), ({"store": {}}, "store"),
     ({"gate": object()}, "gate"), ({"on_reject": "ignore"}, "on_reject"), ({"budget_tokens": "big"}, "budget_tokens"),
     ({"threshold": 2}, "threshold"), ({"window": "text"}, "window"),
     # red team 93, F08: an int too large for a float raised a bare OverflowError
     ({"threshold": 10**400}, "threshold"), ({"target": 10**400}, "target"),
     ({"summary_ratio": 10**400}, "summary_ratio"), ({"summary_ratio": 10**5000}, "summary_ratio")],
)
def test_compact_refuses_bad_arguments_before_anything_happens(kwargs, argument):
    window, sources = small_window()
    store = memory_store(sources)
    calls = []
    args = {"window": window, "summarize": lambda r: calls.append(r) or "x", "store": store,
            "budget_tokens": tokens_of(window)}
    args.update(kwargs)
    before = store_state(store)
    with pytest.raises(InvalidArgumentError) as exc:
        compact(args.pop("window"), args.pop("summarize"), **args)
    assert exc.value.argument == argument and calls == [] and store_state(store) == before


def test_compact_refuses_a_gate_of_another_store():
    window, sources = small_window()
    store = memory_store(sources)
    with pytest.raises(InvalidArgumentError, match="another store"):
        compact(window, markers_only, store=store, budget_tokens=100, gate=Gate(memory_store(sources)))


def test_nominal_pointer_refuses_reconstruction():
    """The recall path's pointers (see test_compaction_passes for the full run)."""
    blocks, sources, cw = corpus_blocks(3000)
    window = Window(blocks)
    store = memory_store(sources)
    result = compact(window, markers_only, store=store, budget_tokens=tokens_of(window), task="recall")
    assert result.nominal
    for sid, pointers in result.nominal.items():
        assert result.window.get(sid).derived
        for p in pointers:
            assert isinstance(p, Pointer) and p.nominal
            with pytest.raises(ProvgateError) as exc:
                store.resolve(p)
            assert exc.value.reason == "nominal" and "nominal" in str(exc.value)


# red team 3, H08: the gate protects a pinned turn without handles through the handle of its
# text (block:...), so a copy of that text is pinned for the planner too; summarizing the copy
# made every pass of an honest compaction fail R
def test_a_copy_of_a_pinned_turn_is_pinned_too():
    big = "lorem ipsum dolor sit amet " * 60 + "\n"
    store = memory_store({"tool:t1": big})
    window = Window([Block("a1", "assistant", "OK, noted.\n", pinned=True), Block("u1", "user", "please go on\n" * 30),
                     Block("a2", "assistant", "OK, noted.\n"), Block("u2", "user", "and the next file\n" * 30),
                     Block("t1", "tool", big, handles=("tool:t1",), pinned=True)])
    plan = plan_compaction(window, budget_tokens=600)
    assert "a2" in plan.pinned and "a2" not in {b for g in plan.summarize for b in g.blocks}
    seen = []

    def honest(request: SummaryRequest) -> str:
        seen.extend(b.id for b in request.blocks)
        return "summary of earlier turns.\n"

    result = compact(window, honest, store=store, budget_tokens=600, gate=Gate(store))
    assert result.verdict.accepted and "a2" not in seen
    # a sticky pin of the text handle pins a later copy without the flag
    later = Window([Block("a3", "assistant", "OK, noted.\n"), Block("u3", "user", "more\n" * 200)])
    text_pin = block_source_handle(later[0])
    assert "a3" in plan_compaction(later, budget_tokens=100, pinned_handles=[text_pin]).pinned


def test_compact_finds_a_session_pinned_turn_by_its_text_not_its_id():
    # red team 27, x04: the gate pins a block without handles by its text; compact() passed the
    # planner the session's pinned ids too, so a renumbered window's block that took a pinned
    # turn's old id was preserved (and flagged pinned for good), while the turn itself, under a
    # new id, was found by its text
    store = memory_store({})
    gate = Gate(store)
    rule = Block("u1", "user", "Never deploy to eu-west-1 before the freeze ends.\n", pinned=True)
    filler_turns = [Block(f"a{i}", "assistant", f"Step {i}: " + "nothing new to report. " * 30 + "\n") for i in range(6)]
    first = Window([rule, *filler_turns])
    assert gate.check(first, first, operator="rewrite", commit=True).accepted
    assert gate.pins[1] == frozenset({"u1"})
    # renumbered by position, flags forgotten: the rule is m3, and m0 is another turn
    renumbered = [dataclasses.replace(b, id=f"m{k}", pinned=False) for k, b in enumerate([*filler_turns[:3], rule,
                                                                                          *filler_turns[3:]])]
    other = dataclasses.replace(renumbered[0], id="u1")
    window = Window([other, *renumbered[1:]])
    seen: list[str] = []

    def honest(request: SummaryRequest) -> str:
        seen.extend(b.id for b in request.blocks)
        return "summary of earlier turns.\n"

    result = compact(window, honest, store=store, budget_tokens=tokens_of(window) // 2, gate=gate)
    assert "m3" in result.plan.pinned and "m3" not in seen and result.window.get("m3").text == rule.text
    assert "u1" not in result.plan.pinned


@pytest.mark.parametrize("task", ["reconstruction", "recall"])
def test_compact_keeps_a_session_pinned_text_whatever_handles_it_carries_later(task):
    # red team 28, y04: the gate pins a block by its text whatever its handles; the planner
    # pinned a block holding a sticky pinned text only when it had no handles, so a pinned turn
    # the framework later logged as user:u3 was handed to the summarizer (and the gate
    # rejected the pass; under recall a linked block is summarizable)
    rule_text = "Never deploy to eu-west-1 before the freeze ends.\n"
    store = memory_store({"user:u3": rule_text})
    gate = Gate(store)
    rule = Block("u1", "user", rule_text, pinned=True)
    filler_turns = [Block(f"a{i}", "assistant", f"Step {i}: " + "nothing new to report. " * 30 + "\n") for i in range(6)]
    first = Window([rule, *filler_turns])
    assert gate.check(first, first, operator="rewrite", commit=True).accepted
    logged = Block("m3", "user", rule_text, ("user:u3",))
    window = Window([*filler_turns[:3], logged, *filler_turns[3:]])
    seen: list[str] = []

    def honest(request: SummaryRequest) -> str:
        seen.extend(b.id for b in request.blocks)
        return "summary of earlier turns.\n"

    result = compact(window, honest, store=store, budget_tokens=tokens_of(window) // 2, gate=gate, task=task)
    assert result.verdict.accepted
    assert "m3" in result.plan.pinned and "m3" not in seen
    assert result.window.get("m3").text == rule_text and result.window.get("m3").pinned


def test_the_summarizer_reads_each_block_apart():
    # red team 11, x12: the request's text was the block texts joined bare, so the last token of
    # one block and the first of the next fused ("count=12" + "3 retries" -> "count=123
    # retries") and a summarizer keeping what it read made compact()'s own pass drift a value
    from provgate import Gate, SourceStore, compact

    store = SourceStore(":memory:")
    texts = {"tool:status_1": "status: count=12", "tool:status_2": "3 retries left on the payments queue",
             "user:u1": "Keep an eye on the payments queue."}
    for h, t in texts.items():
        store.put(h, t)
    window = [
        {"id": "sys", "role": "system", "text": "You are a support agent.", "pinned": True},
        {"id": "t1", "role": "tool", "text": texts["tool:status_1"], "handles": ["tool:status_1"]},
        {"id": "t2", "role": "tool", "text": texts["tool:status_2"], "handles": ["tool:status_2"]},
        {"id": "u1", "role": "user", "text": texts["user:u1"], "handles": ["user:u1"]},
        {"id": "a1", "role": "assistant", "text": "Watching it. " + "Nothing else to report. " * 40},
    ]
    seen = []

    def first_lines(request):  # extractive: keeps what it reads
        seen.append(request.text)
        return " ".join(request.text.splitlines()[:3]) + "".join(f" [src:{m}]" for m in request.markers)

    result = compact(window, first_lines, store=store, budget_tokens=240, gate=Gate(store), task="recall")
    assert result.verdict.accepted
    assert seen and all("count=123" not in t for t in seen)
    assert any("count=12\n" in t for t in seen)


@pytest.mark.parametrize("when", ["this pass", "an earlier pass"])
def test_a_summary_is_told_not_to_keep_markers_of_pinned_sources_that_leave(when):
    # red team 13, q04: a summary keeping the marker of a pinned source the window no longer
    # holds restates it (R), so the request withholds it and its markers leave it out
    from provgate import Gate, SourceStore, compact
    from provgate.window import Block as B

    tool_text = "port=8001\nhost=db-1\n" + "log line of the tool output\n" * 20
    turn = "The service listens on port=8001 [src:c1] and host=db-1 [src:c2].\n" + "I will continue. " * 80
    store = SourceStore(":memory:")
    store.put("tool:c1", tool_text)
    store.put("tool:c2", "host=db-1\n")
    gate = Gate(store)
    window = [B("t1", "tool", tool_text, ("tool:c1",), False, (), True, None, None),
              B("a1", "assistant", turn, (), False, (), False, None, None),
              B("u1", "user", "Thanks. " + "Please go on carefully. " * 40, (), False, (), False, None, None)]
    if when == "an earlier pass":
        assert gate.check(window, window[1:], operator="evict", evicted=["tool:c1"], commit=True).accepted
        window = window[1:]
    seen = []

    def keeps_what_it_is_told(request):
        seen.append(request)
        return "Service port=8001, host=db-1 " + " ".join(f"[src:{m}]" for m in request.markers) + "\n"

    result = compact(Window(window), keeps_what_it_is_told, store=store, budget_tokens=200, gate=gate,
                     evict_pinned=(when == "this pass"))
    assert result.verdict.accepted
    a1_request = next(r for r in seen if any(b.id == "a1" for b in r.blocks))
    assert a1_request.withheld == ("c1",) and "c1" not in a1_request.markers and "c2" in a1_request.markers


def test_an_echo_without_handles_of_a_pinned_text_with_handles_is_not_summarized():
    # red team 31, b04: the planner took pinned texts only from pinned blocks without handles;
    # an assistant turn echoing a pinned user turn (user:u3) was summarized from the text's
    # block: handle, which the gate refuses (R), and compact() raised on an honest pass
    text = "Approved: deploy v2.4.1 to eu-west-1 with a budget of 4500 EUR. " + "Notes follow. " * 60 + "\n"
    logs = {f"tool:c{i}": f"log line {i}: " + "x " * 200 + "\n" for i in range(6)}
    store = memory_store({"user:u3": text, **logs})
    window = Window([Block("u3", "user", text, ("user:u3",), pinned=True), Block("a1", "assistant", text),
                     *(Block(f"t{i}", "tool", logs[f"tool:c{i}"], (f"tool:c{i}",)) for i in range(6))])
    result = compact(window, lambda request: "A short summary of the logs.\n", store=store, budget_tokens=900,
                     gate=Gate(store), task="recall")
    assert result.verdict.accepted and "a1" in result.plan.pinned
    # a copy with a handle of its own is free while the pinned block stays
    copy = Window([window[0], Block("r2", "tool", text, ("tool:copy",)), *window[2:]])
    plan = plan_compaction(copy, budget_tokens=900, task="recall")
    assert "r2" not in plan.pinned


def test_block_source_handles_are_block_source_handle_of_each_block():
    # (the planner finds sticky pinned texts through them: one native hash of every text)
    from provgate.compaction import block_source_handle, block_source_handles
    window = Window([{"id": f"b{i}", "role": "assistant", "text": text} for i, text in
                     enumerate(["", "ok\n", "café — 😀\n", "x" * 70_000, "ok\n"])])
    assert block_source_handles(list(window)) == [block_source_handle(b) for b in window]


@pytest.mark.parametrize("budget", [20, 30])
def test_an_evicted_logged_turn_hands_a_summary_of_its_handle_summarized_beside_it_nothing(budget):
    # red team 59, F03: docs above, "a block it evicts is recorded (its handles, or its id and
    # text handle) and hands the summary nothing". The planner evicts an assistant turn logged
    # under msg:m13 (recorded by that handle) and summarizes a summary deriving from msg:m13 with
    # a user turn; the gate took the new summary for the turn's successor, asked for the turn's
    # [src:c9], and compact() raised on its own honest pass
    turn = "I checked the retry loop and will keep the defaults, see [src:c9]\n"
    store = memory_store({"tool:c9": "timeout=74\nretry loop\n", "msg:m13": turn})
    window = Window([
        Block("s17", "summary", "Earlier the agent discussed the retry loop [src:m13]\n", derived=True,
              derived_from=("msg:m13",)),
        Block("b13", "assistant", turn, handles=("msg:m13",)),
        Block("u20", "user", "ok, go on with the tests please and report back when done\n"),
    ])
    result = compact(window, markers_only, store=store, budget_tokens=budget, gate=Gate(store), min_summary_tokens=4)
    assert result.verdict.accepted
    assert result.plan.evict == ("b13",) and result.evicted == ("msg:m13",)
    assert [g.blocks for g in result.plan.summarize] == [("s17", "u20")]
    assert "[src:m13]" in result.window[0].text and "[src:c9]" not in result.window[0].text


def test_a_summary_compact_evicts_is_stored_as_a_derived_text():
    """compact() stores the words of every block it evicts without handles, so that the record of
    the eviction resolves (I3). A summary's words so stored are a derived text: a pointer into
    them is refused by P and by the store (red team 89, F03: a turn quoting the evicted
    summary with a pointer into its stored text was accepted, and store.resolve returned the
    summary's words as a source's)."""
    from blake3 import blake3

    from provgate.handles import block_text_handle
    from provgate.store import DERIVED_KIND

    store = memory_store({"tool:c1": "retries=3\ntimeout=30s\n"})
    gate = Gate(store)
    words = "The client retries 3 times and times out after 30s. " * 20
    window = Window([Block("s1", "assistant", words, derived=True, derived_from=("tool:c1",)),
                     Block("u1", "user", "Please continue with the deploy now. " * 10),
                     Block("a1", "assistant", "Working on it. " * 10)])
    handle = block_text_handle(blake3(words.encode()).digest())
    result = compact(window, lambda request: "It retries 9999 times.", store=store, budget_tokens=200, gate=gate,
                     on_reject="evict")
    assert "s1" in result.evicted and store.info(handle).kind == DERIVED_KIND
    assert store.info(block_text_handle(blake3(("Working on it. " * 10).encode()).digest())).kind != DERIVED_KIND
    quote = "retries 3 times and times out after 30s"
    start = words.encode().index(quote.encode())
    pointer = store.pointer(handle, start, start + len(quote))
    assert pointer.nominal
    turn = Block("a2", "assistant", f'Per the config: "{quote}" [src:{handle}].')
    pre = Window([*result.window.blocks, turn])
    hash_ = "blake3:" + blake3(quote.encode()).hexdigest()
    verdict = gate.check(pre, pre, operator="reorder",
                         pointers=[{"block": "a2", "handle": handle, "start": start, "end": start + len(quote),
                                    "hash": hash_}])
    assert not verdict.accepted
    (violation,) = [v for v in verdict.violations if v.invariant == "P"]
    assert violation.evidence["reason"] == "nominal" and "summary's text" in violation.message


@pytest.mark.parametrize("on_reject", ["raise", "keep", "evict"])
def test_compact_orders_reads_as_the_sessions_read_log_does(on_reject):
    # red team 93, F07 (stop 39): the planner ordered a resource's reads by the window, the gate
    # by the session's read log; an older read put back after the newer one was planned as the
    # newest, preserved, and the newer evicted, and the gate refused our own pass as a silent
    # merge under every on_reject
    pad = "".join(f"line{i}=value{i}\n" for i in range(150))
    r1, r2 = "retries=3\n" + pad, "retries=5\n" + pad
    store = memory_store({"tool:r1": r1, "tool:r2": r2, "user:u": "fix the retry loop\n"})
    user = Block("u", "user", "fix the retry loop\n", ("user:u",))

    def read(handle, text, bid):
        return Block(bid, "tool", text, (handle,), resource="file:app.ini")

    first = [user, read("tool:r1", r1, "t1"), read("tool:r2", r2, "t2")]
    Gate(store, session="S").check(first, first, operator="reorder", commit=True)  # the log: r1, then r2
    window = Window([user, read("tool:r2", r2, "t2"), read("tool:r1", r1, "t1again")])  # r1 put back after r2
    result = compact(window, lambda request: "x", store=store, budget_tokens=1059, gate=Gate(store, session="S"),
                     on_reject=on_reject)
    assert result.verdict.accepted
    assert "t2" in [b.id for b in result.window] and "tool:r1" in result.evicted


@pytest.mark.parametrize("on_reject", ["raise", "keep", "evict"])
def test_compact_keeps_every_read_that_has_no_order(on_reject):
    # red team 98, F06 (stop 40): reads stamped on some only, against their window order, have
    # no order (each may be the newest, and the gate refuses a pass that drops any); the planner
    # still took one as the newest and evicted the rest, so compact() raised under every
    # on_reject. It keeps them all now; reads in one order are planned as before
    pad = "".join(f"line{i}=value{i}\n" for i in range(150))
    texts = {k: f"retries={k}\n" + pad for k in (1, 2, 3)}
    store = memory_store({**{f"tool:r{k}": t for k, t in texts.items()}, "user:u": "fix the retry loop\n"})
    user = Block("u", "user", "fix the retry loop\n", ("user:u",))

    def read(k, ts):
        return Block(f"f{k}", "tool", texts[k], (f"tool:r{k}",), resource="file:app.ini", ts=ts)

    circle = Window([user, read(3, 3.0), read(2, None), read(1, 1.0)])
    result = compact(circle, lambda request: "x", store=store, budget_tokens=1059, gate=Gate(store),
                     on_reject=on_reject)
    assert result.verdict.accepted
    assert {"f1", "f2", "f3"} <= {b.id for b in result.window}
    line = Window([user, read(1, 1.0), read(2, None), read(3, 3.0)])
    result = compact(line, lambda request: "x", store=store, budget_tokens=1059, gate=Gate(store), on_reject=on_reject)
    assert result.verdict.accepted and "f3" in [b.id for b in result.window]
    assert {"tool:r1", "tool:r2"} <= set(result.evicted)
