"""Compaction across passes: pass n+1 respects pass n's preservation (the seed's single-pass
guarantee that broke on the secondary compactions), under a shrinking budget and a summarizer
that tries to rewrite everything it is given."""

from __future__ import annotations

import dataclasses
import math
import re

import pytest

from compaction_helpers import (
    MARKER,
    audit_count,
    corpus_blocks,
    corpus_citations,
    markers_only,
    memory_store,
    resolve_citation,
    store_state,
)
from provgate.compaction import approx_tokens, block_source_handle, compact, plan_compaction
from provgate.errors import CompactionBudgetError, ProvenanceInvariantError, ProvenanceResolutionError, SummarizerError
from provgate.gate import Gate
from provgate.window import Block, Window

PASSES = 10


def fit(text: str, max_tokens: int) -> str:
    """Cut ``text`` at a space so that it stays within ``max_tokens`` (the approximate count)."""
    while approx_tokens(text) > max_tokens:
        cut = text.rfind(" ", 0, max(1, len(text) - max(8, len(text) // 8)))
        text = text[:cut] if cut > 0 else text[: len(text) // 2]
    return text or "x"


class Adversary:
    """Tries to rewrite everything it is given, a different way on each call."""

    STRATEGIES = ("sneak_linked", "change_numbers", "drop_markers", "rewrite_all", "honest")

    def __init__(self, state: dict) -> None:
        self.state = state
        self.calls = 0
        self.requests: list = []
        self.used: list[str] = []

    def __call__(self, request) -> str:
        self.requests.append(request)
        strategy = self.STRATEGIES[self.calls % len(self.STRATEGIES)]
        self.calls += 1
        self.used.append(strategy)
        budget = request.max_tokens
        markers = " ".join(MARKER.findall(request.text))
        if strategy == "sneak_linked":
            # paste the text of a pinned, retrieval-linked block it was NOT given, with the markers
            linked = [b for b in self.state["window"] if b.handles and b.pinned]
            stolen = linked[self.calls % len(linked)].text if linked else request.text
            return fit(markers + " " + stolen, budget)
        if strategy == "change_numbers":
            drifted = re.sub(r"\d", lambda m: str((int(m.group()) + 1) % 10), request.text)
            return fit(markers + " " + drifted, budget)
        if strategy == "drop_markers":
            return fit(MARKER.sub("", request.text), budget)
        if strategy == "rewrite_all":
            return fit(markers + " " + request.text.upper(), budget)
        # (an allowance too small for every marker makes it drop some: I5 then refuses the pass)
        return fit(markers_only(request), budget)


def pins_of(gate: Gate) -> tuple[frozenset[str], frozenset[str]]:
    """The gate's sticky pins, as compact() reads them."""
    from provgate.compaction import _sticky_pins

    return _sticky_pins(gate)


def is_pinned(block: Block, pins: tuple[frozenset[str], frozenset[str]]) -> bool:
    handles, ids = pins
    return block.pinned or bool(set(block.handles) & handles) or (not block.handles and block.id in ids)


def check_pass(pre: Window, result, pins_before, requests, cited_before: set[str], store) -> None:
    """Everything the seed's failure would break, checked on one committed pass."""
    post = result.window
    pinned_pre = [b for b in pre if is_pinned(b, pins_before)]
    pinned_handles = {h for b in pinned_pre for h in b.handles} | set(pins_before[0])
    # 1. the summarizer was never given a pinned or a retrieval-linked block
    for req in requests:
        for b in req.blocks:
            assert not is_pinned(b, pins_before), f"pinned block {b.id} was given to the summarizer"
            assert not b.handles and b.id not in cited_before, f"linked block {b.id} given under reconstruction"
    # 2. pinned blocks are kept byte-identical and still pinned, or evicted with a record
    for b in pinned_pre:
        kept = post.get(b.id)
        if kept is not None:
            assert kept.text == b.text and kept.pinned and kept.handles == b.handles
        else:
            assert b.handles and all(h in result.evicted for h in b.handles) or b.id in result.evicted
    # 3. no summary derives from a pinned source
    for b in post:
        if b.derived and pre.get(b.id) is None:
            assert not set(b.derived_from) & pinned_handles
            assert not set(b.derived_from) & {h for p in post if p.pinned for h in p.handles}
    # 4. every block that left was evicted with a record (its source still in the store) or summarized
    summarized = {bid: g for g in result.plan.summarize if post.get(g.id) is not None for bid in g.blocks}
    for b in pre:
        if post.get(b.id) is not None:
            continue
        if b.id in summarized:
            summary = post.get(summarized[b.id].id)
            assert set(b.handles or (block_source_handle(b),)) <= set(summary.derived_from) or b.derived
            continue
        if b.handles:
            assert all(h in result.evicted for h in b.handles)
            for h in b.handles:
                assert store.resolves(h)
                if b.role != "summary":
                    assert store.get(h) == b.text
        else:
            h = block_source_handle(b)
            assert b.id in result.evicted and h in result.evicted and store.get(h) == b.text
    # 5. every surviving pointer resolves byte-exactly in the store, from an unchanged block
    for c in result.pointers:
        assert post.get(c.block) is not None and post.get(c.block).text == pre.get(c.block).text
        span = resolve_citation(store, c)
        assert len(span) == c.end - c.start > 0
    assert result.nominal == {}  # reconstruction never relabels


def run_passes(*, evict_pinned: bool, budget0: int = 14_000, shrink: float = 0.88, seed: int = 3):
    blocks, sources, cw = corpus_blocks(60_000, seed=seed)
    store = memory_store(sources)
    all_cites = corpus_citations(cw, blocks)[::3]  # some turns carry pointers, most do not
    gate = Gate(store)
    state: dict = {}
    adversary = Adversary(state)
    # the agent works on: each pass appends what it read and said since the last one
    cursor = 0

    def take(tokens: int) -> list[Block]:
        nonlocal cursor
        out, n = [], 0
        while cursor < len(blocks) and n < tokens:
            out.append(blocks[cursor])
            n += approx_tokens(blocks[cursor].text)
            cursor += 1
        return out

    window = Window(take(12_000))
    cites = [c for c in all_cites if window.get(c.block) is not None]
    log = []
    for k in range(PASSES):
        budget = int(budget0 * shrink**k)
        pins_before = pins_of(gate)
        cited_before = {c.block for c in cites}
        state["window"] = window
        n_req = len(adversary.requests)
        history = len(gate.history)
        audits = audit_count(store)
        try:
            result = compact(window, adversary, store=store, budget_tokens=budget, gate=gate, pointers=cites,
                             evict_pinned=evict_pinned, on_reject="keep", max_group_tokens=600)
        except ProvenanceInvariantError as exc:
            # rejected (after the fallback, when there were summaries to evict instead): nothing
            # is committed, the verdicts are on record
            assert not exc.verdict.accepted
            checks = len(gate.history) - history
            assert checks in (1, 2) and audit_count(store) == audits + checks
            assert not any(c.accepted for c in gate.history[history:])
            log.append(("rejected", budget, exc.verdict, checks))
        except CompactionBudgetError as exc:
            assert not evict_pinned
            assert len(gate.history) == history and audit_count(store) == audits
            log.append(("budget", budget, exc))
            return log, adversary, gate, store
        else:
            requests = adversary.requests[n_req:]
            check_pass(window, result, pins_before, requests, cited_before, store)
            if result.verdict is None:
                assert len(gate.history) == history and audit_count(store) == audits
            else:
                assert result.verdict.accepted and result.verdict is result.verdicts[-1]
                assert [c.accepted for c in gate.history[history:]] == [v.accepted for v in result.verdicts]
                assert audit_count(store) == audits + len(result.verdicts)
                if result.fallback:  # rejected summaries kept their blocks: less saved than planned
                    assert result.fill <= result.plan.fill
                else:
                    assert result.fill <= result.plan.expected_fill + 1e-12
                # pass n's preservation is pinned in the window pass n+1 starts from
                for bid in (*result.plan.preserve, *result.plan.pinned):
                    assert result.window.get(bid).pinned
            log.append(("committed", budget, result))
            window = result.window
            cites = list(result.pointers)
        new = take(2_500)
        window = Window([*window, *new])
        cites += [c for c in all_cites if any(c.block == b.id for b in new)]
    return log, adversary, gate, store


def test_ten_passes_under_a_shrinking_budget_never_summarize_a_pinned_block():
    log, adversary, gate, store = run_passes(evict_pinned=True)
    assert len(log) == PASSES
    committed = [entry[2] for entry in log if entry[0] == "committed"]
    assert len(committed) >= 6
    # the adversary was really exercised: every strategy was tried, the gate refused some
    # summaries, and some summaries and evictions still went through
    assert set(adversary.used) == set(Adversary.STRATEGIES)
    verdicts = [v for r in committed for v in r.verdicts]
    assert any(not v.accepted for v in verdicts)
    assert any(r.fallback for r in committed)
    assert any(b.derived and b.id in {g.id for g in r.plan.summarize} for r in committed for b in r.window)
    assert sum(len(r.plan.evict) for r in committed) > 0
    # every gate check of the session is in its history and in the audit log
    assert len(gate.history) == audit_count(store) == sum(
        len(e[2].verdicts) if e[0] == "committed" else e[3] for e in log)
    # no block that was ever pinned was handed to the summarizer, in any pass
    ever_pinned = {b.id for r in committed for b in r.window if b.pinned}
    assert ever_pinned
    assert not {b.id for req in adversary.requests for b in req.blocks} & ever_pinned


def test_without_evict_pinned_the_cascade_ends_in_a_clear_budget_error():
    log, _, gate, store = run_passes(evict_pinned=False, shrink=0.8)
    kind, budget, exc = log[-1]
    assert kind == "budget", [e[0] for e in log]
    assert exc.pinned_tokens > budget == exc.budget_tokens
    assert exc.pinned and all(bid in str(exc) for bid, _ in exc.pinned)
    committed = [e[2] for e in log if e[0] == "committed"]
    assert committed
    last = committed[-1].window
    pinned_ids = {b.id for b in last if b.pinned}
    assert pinned_ids <= {bid for bid, _ in exc.pinned}


def _two_windows(seed: int):
    """The first ~20k tokens of a session, and what the agent adds after the first pass."""
    blocks, sources, _ = corpus_blocks(30_000, seed=seed)
    n = 0
    for cut, b in enumerate(blocks):
        n += approx_tokens(b.text)
        if n >= 20_000:
            break
    return blocks[: cut + 1], blocks[cut + 1 :], sources


def test_pins_are_sticky_when_a_caller_strips_the_flags_between_passes():
    first_blocks, later, sources = _two_windows(seed=5)
    store = memory_store(sources)
    gate = Gate(store)
    window = Window(first_blocks)
    first = compact(window, markers_only, store=store, budget_tokens=sum(approx_tokens(b.text) for b in window),
                    gate=gate)
    preserved = set(first.plan.preserve) | set(first.plan.pinned)
    assert first.plan.preserve
    # a forgetful agent rebuilds its window without the pinned flags, works on, and now asks for
    # recall, where retrieval-linked blocks would be summarizable
    stripped = Window([dataclasses.replace(b, pinned=False) for b in first.window] + later)
    assert not any(b.pinned for b in stripped)
    seen = []

    def summarize(request):
        seen.extend(b.id for b in request.blocks)
        return markers_only(request)

    budget = int(sum(approx_tokens(b.text) for b in stripped) / 0.9)
    second = compact(stripped, summarize, store=store, budget_tokens=budget, gate=gate, task="recall")
    assert second.verdict.accepted and seen
    assert any(window.get(b) is None for b in seen)  # it did summarize, linked blocks of later turns too
    assert not set(seen) & preserved
    for bid in preserved:
        b = second.window.get(bid)
        if b is None:
            assert bid in second.plan.evict
        else:
            assert b.pinned and b.text == window.get(bid).text  # the flag is restored
    # the same stripped window with a fresh gate has no memory: nothing protects those blocks
    fresh = plan_compaction(stripped, budget_tokens=budget, task="recall")
    assert {bid for g in fresh.summarize for bid in g.blocks} & preserved


def test_window_flags_alone_carry_preservation_to_a_fresh_gate():
    first_blocks, later, sources = _two_windows(seed=6)
    store = memory_store(sources)
    window = Window(first_blocks)
    first = compact(window, markers_only, store=store, budget_tokens=sum(approx_tokens(b.text) for b in window))
    preserved = set(first.plan.preserve)
    assert preserved
    seen = []

    def summarize(request):
        seen.extend(b.id for b in request.blocks)
        return markers_only(request)

    w2 = Window([*first.window, *later])
    budget = int(sum(approx_tokens(b.text) for b in w2) / 0.9)
    second = compact(w2, summarize, store=store, budget_tokens=budget, task="recall")
    assert second.verdict.accepted and seen and not set(seen) & preserved


def test_recall_rewrites_and_relabels_and_its_pointers_refuse_reconstruction():
    blocks, sources, cw = corpus_blocks(30_000, seed=4)
    store = memory_store(sources)
    gate = Gate(store)
    window = Window(blocks)
    cites = corpus_citations(cw, blocks)
    requests = []

    def summarize(request):
        requests.append(request)
        return markers_only(request)

    total = sum(approx_tokens(b.text) for b in window)
    result = compact(window, summarize, store=store, budget_tokens=total, gate=gate, task="recall", pointers=cites)
    assert result.verdict.accepted and result.plan.task == "recall"
    relabeled = [g for g in result.plan.summarize if g.linked]
    assert relabeled, "recall should have summarized retrieval-linked blocks"
    assert any(req.linked for req in requests) and all(req.task == "recall" for req in requests)
    for g in result.plan.summarize:
        summary = result.window.get(g.id)
        assert summary.derived and not summary.pinned
        linked_handles = {h for bid in g.linked for h in window.get(bid).handles}
        assert linked_handles <= set(summary.derived_from)
        moved = {c.handle for c in cites if c.block in g.blocks}
        nominal = result.nominal.get(g.id, ())
        assert {p.handle for p in nominal} == linked_handles | moved
        for p in nominal:
            assert p.nominal and g.id in p.label
            with pytest.raises(ProvenanceResolutionError) as exc:
                store.resolve(p)
            assert exc.value.reason == "nominal" and "cannot be resolved for reconstruction" in str(exc.value)
            # even with the flag stripped it names the summary's bytes, not the source's
            with pytest.raises(ProvenanceResolutionError) as exc:
                store.resolve(dataclasses.replace(p, nominal=False))
            assert exc.value.reason == "source_changed"
    # citations from summarized blocks are relabeled, never carried as if still byte-valid
    summarized = {bid for g in result.plan.summarize for bid in g.blocks}
    assert all(c.block not in summarized for c in result.pointers)
    assert {c.block for c in cites} - summarized - set(result.plan.evict) == {c.block for c in result.pointers}
    for c in result.pointers:
        assert resolve_citation(store, c) == store.get_bytes(c.handle)[c.start:c.end]
    # a pinned block is not summarized under recall either
    assert not {bid for g in result.plan.summarize for bid in g.blocks} & {b.id for b in window if b.pinned}


def test_a_failed_pass_changes_nothing_and_the_next_pass_proceeds():
    blocks, sources, _ = corpus_blocks(20_000, seed=7)
    store = memory_store(sources)
    gate = Gate(store)
    window = Window(blocks)
    total = sum(approx_tokens(b.text) for b in window)
    before = store_state(store)

    def echo(request):
        return request.text

    with pytest.raises(SummarizerError) as exc:
        compact(window, echo, store=store, budget_tokens=total, gate=gate)
    assert exc.value.reason == "unchanged"
    assert store_state(store) == before and gate.history == []
    result = compact(window, markers_only, store=store, budget_tokens=total, gate=gate)
    assert result.verdict.accepted and len(gate.history) == 1


# red team 37: ordinary sessions in which a summary derives from a text that the session
# pins in the same pass or later, or from a copy of a pinned text that a pass may evict. Each
# pass was refused (R, or I1 when the next summary dropped the pinned text's handle) from then
# on, edits that touched no summary included: compaction could not go on.
def _short(request) -> str:
    return "Earlier turns were summarized here."


def test_an_echo_of_a_turn_preserved_in_the_same_pass_is_not_summarized():
    # 01: u6 is preserved (pinned) by the pass that would have summarized a5, its echo
    store = memory_store({"user:u6": "the answer is in the log"})
    gate = Gate(store)
    window = Window([Block("a5", "assistant", "the answer is in the log"),
                     Block("u6", "user", "the answer is in the log", handles=("user:u6",)),
                     Block("a7", "assistant", "filler words " * 120)])
    first = compact(window, _short, store=store, budget_tokens=400, gate=gate)
    assert first.verdict.accepted
    summaries = [b for b in first.window if b.derived]
    assert summaries and all(block_source_handle(window.get("a5")) not in b.derived_from for b in summaries)
    grown = Window([*first.window, Block("a8", "assistant", "more filler text " * 100)])
    assert compact(grown, _short, store=store, budget_tokens=400, gate=gate).verdict.accepted
    assert gate.check(grown, [b for b in grown if b.id != "a8"], operator="evict", evicted=["a8"]).accepted


def test_a_summary_made_before_its_text_was_pinned_stays_and_compaction_goes_on():
    # 03: the same words said again later and pinned; the old summary of the first turn is no
    # summary of the pinned block, and is neither refused nor summarized again
    store = memory_store({})
    gate = Gate(store)
    said = "Please use port 8080."
    first = compact(Window([Block("a1", "assistant", said), Block("a2", "assistant", "filler words " * 120)]),
                    _short, store=store, budget_tokens=300, gate=gate)
    summary = next(b for b in first.window if b.derived)
    assert block_source_handle(Block("a1", "assistant", said)) in summary.derived_from
    pinned = Window([*first.window, Block("p", "assistant", said, pinned=True), Block("a3", "assistant", "more words " * 20)])
    assert gate.check(pinned, [b for b in pinned if b.id != "a3"], operator="evict", evicted=["a3"]).accepted
    grown = Window([*pinned, Block("a4", "assistant", "lots more text " * 80)])
    second = compact(grown, _short, store=store, budget_tokens=300, gate=gate)
    assert second.verdict.accepted
    assert summary.id in second.plan.keep + second.plan.evict
    # a summary made now, from the pinned text, is refused as before
    made = Block("s2", "summary", "Port 8080 was asked for.", derived=True,
                 derived_from=(block_source_handle(Block("p", "assistant", said)),))
    v = gate.check(second.window, [*second.window, made], operator="summarize")
    assert not v.accepted and any(x.invariant == "R" and x.block == "s2" for x in v.violations)


@pytest.mark.parametrize("budget", [120, 150])
def test_evict_pinned_never_summarizes_a_copy_of_a_pinned_text(budget):
    # 02: u23 pinned (no marker: evicted first), u24 the same words under a handle of its own
    said = "the answer is in the log"
    store = memory_store({"user:u23": said, "user:u24": said, "tool:c1": "port=8080 retries=3\n"})
    window = Window([Block("u23", "user", said, handles=("user:u23",), pinned=True),
                     Block("u24", "assistant", said, handles=("user:u24",)),
                     Block("a25", "assistant", "Done. [src:tool:c1] " + "filler words " * 120)])

    def keeps_markers(request) -> str:
        return "Earlier turns were summarized here " + " ".join(f"[src:{m}]" for m in request.markers)

    result = compact(window, keeps_markers, store=store, budget_tokens=budget, evict_pinned=True, task="recall",
                     gate=Gate(store))
    assert result.verdict.accepted
    assert "u23" in result.plan.evict
    assert all("u24" not in g.blocks for g in result.plan.summarize)


def test_a_summarizer_keeping_the_requests_markers_keeps_every_citation():
    # two turns cite tool:c1; SummaryRequest.markers named it once, so a summarizer that kept
    # "the markers" cited it once where its input did twice: I5 refused the pass (red team 37)
    store = memory_store({"tool:c1": "port=8080 retries=3\n"})
    turn = "Done. [src:tool:c1] " + "filler words " * 60
    window = Window([Block("a1", "assistant", turn), Block("a2", "assistant", "ok " + turn),
                     Block("a3", "assistant", "more words " * 40)])
    requests = []

    def keeps_markers(request) -> str:
        requests.append(request)
        return "Earlier turns were summarized here " + " ".join(f"[src:{m}]" for m in request.markers)

    result = compact(window, keeps_markers, store=store, budget_tokens=200, gate=Gate(store))
    assert result.verdict.accepted
    assert requests and requests[0].markers == ("tool:c1", "tool:c1")


def test_evict_pinned_never_summarizes_again_a_summary_of_a_source_holding_a_pinned_text():
    # a turn logged as user:u2 with the words of a pinned turn was summarized in an earlier
    # pass; once a pass evicts the pinned turn (no marker: it goes before the turns that cite),
    # a new summary of that summary derives from the pinned bytes (R), so it is kept or
    # evicted (red team 37)
    said = "the answer is in the log"
    store = memory_store({"user:u1": said, "user:u2": said, "tool:x": "output 7: " + "lorem ipsum " * 40})
    old = Block("s0", "summary", "Summary zero [src:tool:x]", derived=True, derived_from=("user:u2", "tool:x"))
    window = Window([Block("u1", "user", said, handles=("user:u1",), pinned=True), old,
                     *(Block(f"a{k}", "assistant", f"turn {k} [src:tool:x] " + "filler words " * 30) for k in range(4))])
    result = compact(window, markers_only, store=store, budget_tokens=150, evict_pinned=True, task="recall",
                     gate=Gate(store))
    assert result.verdict.accepted
    assert "u1" in result.plan.evict and result.plan.summarize
    assert all("s0" not in g.blocks for g in result.plan.summarize)


def test_a_summary_request_lists_only_citation_markers_not_the_data_of_a_tool_output():
    # a tool output quoting "[src:zz]" holds data, which I5 does not count; listed among the
    # markers to keep, a summary keeping it cited a source the store never had (I3)
    log = "grep found: see [src:zz] in the old notes\n" + "lorem ipsum " * 60
    store = memory_store({"tool:c1": "port=8080 retries=3\n", "tool:log": log})
    turn = "Done. [src:tool:c1] " + "filler words " * 60
    window = Window([Block("t1", "tool", log, handles=("tool:log",)), Block("a1", "assistant", turn),
                     Block("a2", "assistant", "more words " * 40)])
    requests = []

    def keeps_markers(request) -> str:
        requests.append(request)
        return "Earlier turns were summarized here " + " ".join(f"[src:{m}]" for m in request.markers)

    result = compact(window, keeps_markers, store=store, budget_tokens=200, task="recall", gate=Gate(store))
    assert result.verdict.accepted, result.verdict.summary()
    assert [g.blocks for g in result.plan.summarize] == [("t1", "a1", "a2")]
    assert requests[0].markers == ("tool:c1",)
    # its allowance holds room for that one marker, not for the data
    g = result.plan.summarize[0]
    room = {m: m + math.ceil(0.25 * (g.tokens - m)) for m in (approx_tokens("[src:tool:c1]"),
                                                                  approx_tokens("[src:zz] [src:tool:c1]"))}
    assert len(set(room.values())) == 2
    assert g.max_tokens == room[approx_tokens("[src:tool:c1]")] > max(64, math.ceil(0.25 * g.tokens))


@pytest.mark.parametrize("task", ["reconstruction", "recall"])
def test_a_page_of_an_output_whose_handle_a_kept_block_carries_is_not_evicted_alone(task):
    # the gate takes no eviction record for a handle a post block still carries: a page of a
    # pinned output evicted beside it was refused (I2, red team 40's compaction fuzz)
    store = memory_store({"tool:a": "port=8080\nworkers=48\n"})
    window = Window([Block("p", "tool", "port=8080\n", handles=("tool:a",), pinned=True),
                     Block("s", "tool", "workers=48\n" + "lorem ipsum " * 40, handles=("tool:a",)),
                     Block("a1", "assistant", "words " * 60), Block("u", "user", "go on\n")])
    result = compact(window, markers_only, store=store, budget_tokens=100, task=task, gate=Gate(store))
    assert result.verdict.accepted, result.verdict.summary()
    assert "s" not in result.plan.evict
    # with evict_pinned the pages go together
    plan = plan_compaction(window, budget_tokens=20, task=task, evict_pinned=True)
    assert {"p", "s"} <= set(plan.evict) or not {"p", "s"} & set(plan.evict)


def test_a_summary_is_told_not_to_keep_the_marker_of_an_evicted_copy_of_a_pinned_text():
    # a copy of a pinned text under a handle of its own is held to R as the pinned block: once
    # evicted (evict_pinned), a summary keeping its marker restates it (R), and dropping the
    # marker must cost no retention (I5) (red team 40's compaction fuzz)
    text = "status: green\nworkers=4\n" + "log line filler\n" * 30
    store = memory_store({"tool:p": text, "tool:c": text})
    window = Window([Block("p", "tool", text, handles=("tool:p",), pinned=True), Block("c", "tool", text, handles=("tool:c",)),
                     Block("a1", "assistant", "the copy says workers=4 [src:c] " + "filler words " * 40),
                     Block("a2", "assistant", "more words " * 40), Block("u", "user", "go on\n")])
    requests = []

    def keeps_markers(request) -> str:
        requests.append(request)
        return "Earlier: " + " ".join(f"[src:{m}]" for m in request.markers) + " S."

    result = compact(window, keeps_markers, store=store, budget_tokens=100, evict_pinned=True, task="recall",
                     gate=Gate(store))
    assert result.verdict.accepted, result.verdict.summary()
    assert {"p", "c"} <= set(result.plan.evict)
    assert requests and all("c" not in r.markers and "c" in r.withheld for r in requests if "a1" in [b.id for b in r.blocks])


_R40_WORDS = "alpha beta gamma delta talk about the plan and weather then lunch again "


def _keeps_exactly_the_markers(request) -> str:
    """Red team 40's honest summarizer: the markers of ``request.markers``, nothing else."""
    return " ".join(f"[src:{m}]" for m in request.markers) or "S."


def _drops_a_marker(request) -> str:
    """A dishonest one: loses the first citation it was asked to keep."""
    return " ".join(f"[src:{m}]" for m in request.markers[1:]) or "S."


def _r40_784():
    # a turn citing c4 and c5 (evicted), a pinned user turn, a summary of tool:c5 (summarized)
    store = memory_store({"tool:c4": "workers=9\n" + _R40_WORDS, "tool:c5": "retries=3\n" + _R40_WORDS})
    window = Window([Block("b12", "assistant", _R40_WORDS * 2 + "[src:c4] [src:c5]\n"),
                     Block("u", "user", _R40_WORDS + "\n", pinned=True),
                     Block("b13", "summary", "Earlier: " + _R40_WORDS + "[src:c5]\n", derived=True,
                           derived_from=("tool:c5",))])
    return store, window, {"budget_tokens": 33}, ("b12",), ("b13",)


def _r40_704():
    # a marker-only summary of tool:c3 and tool:c13 (evicted), a pinned user turn, a tool output
    # and a summary of tool:c3 (summarized together)
    store = memory_store({"tool:c3": "port=4\n" + _R40_WORDS, "tool:c13": "workers=2\n",
                          "tool:c19": "port=40\n" + _R40_WORDS})
    window = Window([Block("s_old", "summary", "[src:c3] " * 8, derived=True, derived_from=("tool:c3", "tool:c13")),
                     Block("u", "user", _R40_WORDS + "\n", pinned=True),
                     Block("b19", "tool", "port=40\n" + _R40_WORDS, handles=("tool:c19",)),
                     Block("b20", "summary", "Earlier: " + _R40_WORDS + "[src:c3]\n", derived=True,
                           derived_from=("tool:c3",))])
    return store, window, {"budget_tokens": 32, "task": "recall"}, ("s_old",), ("b20",)


@pytest.mark.parametrize("case", [_r40_784, _r40_704], ids=["seed784", "seed704"])
def test_an_honest_pass_evicting_a_cited_block_beside_a_summary_of_a_source_it_shares_is_accepted(case):
    # red team 40's compaction fuzz with copies, seeds 784 and 704: the planner evicts one cited
    # block and summarizes another of a source the first cites (784) or derives from (704); a
    # summarizer keeping exactly request.markers was refused by I5 (retention 0), the new
    # summary taken for the evicted block's successor
    store, window, kw, evicted, summarized = case()
    result = compact(window, _keeps_exactly_the_markers, store=store, gate=Gate(store), min_summary_tokens=8,
                     max_group_tokens=60, **kw)
    assert set(evicted) <= set(result.plan.evict)
    assert set(summarized) <= {b for g in result.plan.summarize for b in g.blocks}
    assert result.verdict.accepted, result.verdict.summary()


@pytest.mark.parametrize("case", [_r40_784, _r40_704], ids=["seed784", "seed704"])
def test_a_pass_whose_summary_loses_a_marker_it_was_asked_to_keep_beside_such_an_eviction_is_refused(case):
    store, window, kw, _, _ = case()
    with pytest.raises(ProvenanceInvariantError) as e:
        compact(window, _drops_a_marker, store=store, gate=Gate(store), min_summary_tokens=8, max_group_tokens=60, **kw)
    assert {v.invariant for v in e.value.verdict.violations} == {"I5"}


def _copy_of_a_kept_pinned_text():
    # a copy (tool:c) of a pinned output's text (tool:p), evicted with evict_pinned, while the
    # pinned output stays; a turn citing the copy is summarized
    words = _R40_WORDS
    text = "status: green\n" + words * 3 + "\n"
    store = memory_store({"tool:c": text, "tool:p": text, "tool:x": "port=1\n"})
    window = Window([Block("c", "tool", text, handles=("tool:c",)), Block("p", "tool", text, handles=("tool:p",), pinned=True),
                     Block("a", "assistant", words * 2 + "[src:c] [src:x]\n"), Block("u", "user", words + "\n", pinned=True)])
    return store, window


def test_a_copy_of_a_pinned_text_the_window_keeps_flagged_is_no_withheld_marker():
    # red team 40's compaction fuzz with copies, seeds 2584 and 2853: the planner withheld the
    # marker of an evicted copy of a pinned text although the pinned block with that text stayed
    # (the gate lets such a copy go as any block, docs/gate.md R, so its marker is an ordinary
    # citation); the honest summary dropped it and I5 refused the pass, retention 0
    store, window = _copy_of_a_kept_pinned_text()
    requests = []

    def keeps_markers(request) -> str:
        requests.append(request)
        return _keeps_exactly_the_markers(request)

    result = compact(window, keeps_markers, store=store, budget_tokens=160, evict_pinned=True, task="recall",
                     min_summary_tokens=8, gate=Gate(store))
    assert result.verdict.accepted, result.verdict.summary()
    assert "c" in result.plan.evict and "p" not in result.plan.evict
    assert [r.markers for r in requests] == [("c", "x")] and requests[0].withheld == ()
    # a summary that drops that marker is refused
    store, window = _copy_of_a_kept_pinned_text()
    with pytest.raises(ProvenanceInvariantError) as e:
        compact(window, _drops_a_marker, store=store, budget_tokens=160, evict_pinned=True, task="recall",
                min_summary_tokens=8, gate=Gate(store))
    assert {v.invariant for v in e.value.verdict.violations} == {"I5"}
