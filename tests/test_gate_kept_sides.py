"""A gate keeps what it derived from the windows it judged (digests, facts, indexes, the fact
multiset): the next edit of a session starts from the window the last one committed. These
tests hold the kept path to the full one: a gate that has seen the windows must give exactly
the verdict a fresh gate gives, on the corpus edits, on the session's next edits, and where the
kept data could go wrong (a whitespace-matched block, duplicated blocks, windows alive in
several threads)."""

from __future__ import annotations

import gc
import inspect
import re
import sys
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from blake3 import blake3
from hypothesis import example, given, settings
from hypothesis import strategies as st
from gate_helpers import blk, comparable, find, store_with, tool

from provgate.fingerprints import EMPTY, FingerprintSet
from provgate.gate import Gate, _Side
from provgate.handles import block_text_handle
from provgate.window import Edit, Window, parse_edit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import corpus  # noqa: E402

EDITS = {"prune": corpus.prune_edit, "rewrite": corpus.rewrite_edit,
         "summarize": corpus.summarize_edit, "drift": corpus.drift_edit}


# how long a thread waits for the other to reach its switch point: a deadlock guard, not a
# timing (every line of the check is traced, so a loaded machine takes seconds to get there)
_SWITCH_WAIT = 120


def _corpus_case(name: str, seed: int):
    w = corpus.make_window(20_000, seed=seed)
    d = EDITS[name](w, seed=seed)
    store = store_with(d.pop("sources"))
    return store, parse_edit(d)


def _warm_gate(store, edit: Edit) -> Gate:
    """A gate that has just judged the previous cycle, whose post window is ``edit.pre``."""
    prev = Window([*edit.pre, {"id": "zz_prev", "role": "assistant", "text": "an earlier remark\n"}])
    gate = Gate(store, audit=False)
    assert gate.check_edit(Edit("prune", prev, edit.pre, evicted=("zz_prev",))).accepted
    return gate


def _one_block_changed(window: Window, seed: int) -> Window:
    """The window with one block reworded: a cited assistant turn gets a sentence, or a tool
    output a fabricated value (so the next cycle has both accepted and rejected cases)."""
    post = window.to_json()
    kind = ("assistant", "tool")[seed % 2]
    j = [i for i, b in enumerate(post) if b["role"] == kind and not b["pinned"]][seed % 3]
    extra = "Nothing else changed.\n" if kind == "assistant" else "max_retries = 41\n"
    post[j] = dict(post[j], text=post[j]["text"] + extra)
    return Window(post)


def _general(store, shortcut: str = "_in_place") -> Gate:
    """A fresh gate that takes the general path: no in-place shortcut (``_in_place``), or the
    grounding set of every text that grounds a block made up front (``_defer_sets``)."""
    gate = Gate(store, audit=False)
    setattr(gate, shortcut, False)
    return gate


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", list(EDITS))
def test_kept_windows_give_the_fresh_gates_verdict(name, seed):
    store, edit = _corpus_case(name, seed)
    fresh = comparable(_general(store).check_edit(edit))
    gate = _warm_gate(store, edit)
    first = gate.check_edit(edit)  # pre side kept from the previous cycle
    assert comparable(first) == fresh
    assert comparable(gate.check_edit(edit)) == fresh  # both sides kept now
    # the session goes on from the committed window (or the pre window after a rejection)
    committed = first.window if first.accepted else edit.pre
    for k in range(3):
        nxt = Edit("rewrite", committed, _one_block_changed(committed, seed + k))
        assert comparable(gate.check_edit(nxt)) == comparable(_general(store).check_edit(nxt))


NOTE = "backoff_ms: 250\nmax_retries: 3\n"
CONF_H = "tool:call_1"


def test_a_whitespace_matched_block_is_judged_by_its_own_text_in_the_next_cycle():
    # cycle 1 rewrites t1 with blank lines and trailing spaces only (unchanged by the
    # normalisation) and a1 for real (so the facts are loaded); in cycle 2 that window is pre,
    # and the evidence of a dropped fact must point into t1's NEW bytes
    store = store_with({CONF_H: NOTE})
    pre = Window([tool("t1", CONF_H, NOTE), blk("a1", "assistant", "ok\n")])
    spaced = Window([blk("t1", "tool", "\n\nbackoff_ms: 250   \nmax_retries: 3\n", [CONF_H]),
                     blk("a1", "assistant", "ok, noted\n")])
    gate = Gate(store, audit=False)
    v = gate.check_edit(Edit("rewrite", pre, spaced))
    assert v.accepted and v.classification == "lossless", v.summary()
    dropped = Window([blk("t1", "tool", "\n\nbackoff_ms: 250   \n", [CONF_H]), spaced[1]])
    kept = gate.check_edit(Edit("rewrite", spaced, dropped))
    fresh = Gate(store, audit=False).check_edit(Edit("rewrite", spaced, dropped))
    assert comparable(kept) == comparable(fresh)
    v = find(kept, "I2", block="t1", value="3")
    start, end = v.evidence["span"]
    assert spaced[0].text.encode()[start:end] == b"max_retries: 3"


def test_duplicated_blocks_keep_an_exact_fact_multiset_across_cycles():
    # cycle 1 copies t1 (a second post block with the same text) and rewrites a1 (so the fact
    # multisets are built): the kept multiset of that window must count the copy, or cycle 2
    # would report a fact as dropped that the other copy still holds
    store = store_with({CONF_H: NOTE})
    pre = Window([tool("t1", CONF_H, NOTE), blk("a1", "assistant", "ok\n")])
    copied = Window([pre[0], tool("t1_copy", CONF_H, NOTE), blk("a1", "assistant", "ok, noted\n")])
    gate = Gate(store, audit=False)
    v = gate.check_edit(Edit("rewrite", pre, copied))
    assert v.accepted and v.classification == "lossless", v.summary()
    verdicts = []
    for post in ([copied[0], copied[2]], [copied[1], copied[2]], [copied[2]]):
        e = Edit("prune", copied, Window(post))
        verdicts.append(gate.check_edit(e))
        assert comparable(verdicts[-1]) == comparable(Gate(store, audit=False).check_edit(e))
    assert [v.accepted for v in verdicts] == [True, True, False]


def test_kept_sides_follow_the_window_object_not_its_address():
    store = store_with({CONF_H: NOTE})
    gate = Gate(store, audit=False)
    for k in range(12):  # more than the 8 sides kept, each turn a full collection
        # windows die and new ones may reuse their addresses: never another window's side
        w = Window([tool("t1", CONF_H, NOTE), blk("a1", "assistant", f"turn {k} of 12 rows\n")])
        nxt = Window([w[0], blk("a1", "assistant", f"turn {k} of 13 rows\n")])
        v = gate.check_edit(Edit("rewrite", w, nxt))
        assert comparable(v) == comparable(Gate(store, audit=False).check_edit(Edit("rewrite", w, nxt)))
        del w, nxt
        gc.collect()
    assert len(gate._sides) <= 8


def test_threads_sharing_windows_get_the_sequential_verdicts():
    store, edit = _corpus_case("summarize", 0)
    nexts = [Edit("rewrite", edit.pre, _one_block_changed(edit.pre, k)) for k in range(6)]
    jobs = [edit, *nexts] * 3
    expected = [comparable(Gate(store, audit=False).check_edit(e)) for e in jobs]
    gate = Gate(store, audit=False)
    start = threading.Barrier(4)

    def run(i: int) -> dict:
        if i < 4:
            start.wait()
        return comparable(gate.check_edit(jobs[i]))

    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(run, range(len(jobs)))) == expected


@pytest.mark.parametrize("field", ["pinned", "resource", "handles", "derived_from", "id"])
def test_windows_that_differ_only_in_metadata_do_not_share_indexes(field):
    # same texts in the same order, one block's metadata changed: every index built from the
    # metadata must be the post window's own (pins, reads, handles, ids)
    store = store_with({CONF_H: NOTE, "tool:call_2": NOTE + "x\n"})
    blocks = [tool("t1", CONF_H, NOTE, pinned=True, resource="file:a.yaml", ts=1.0),
              tool("t2", "tool:call_2", NOTE + "x\n", resource="file:a.yaml", ts=2.0),
              blk("s1", "summary", "backoff_ms: 250\n", derived_from=[CONF_H])]
    pre = Window(blocks)
    changed = {"pinned": {"pinned": False}, "resource": {"resource": "file:b.yaml"},
               "handles": {"handles": [CONF_H]}, "derived_from": {"derived_from": ["tool:call_2"]},
               "id": {"id": "t1_renamed"}}[field]
    # t2 moved onto t1's handle drops tool:call_2 from the window: only a post side with its own
    # handle union sees that
    k = {"derived_from": 2, "handles": 1}.get(field, 0)
    post = Window([dict(b, **changed) if i == k else b for i, b in enumerate(blocks)])
    edits = [Edit("reorder", Window(blocks[::-1]), pre)]  # after it the gate keeps pre's side
    for operator in ("rewrite", "summarize"):
        edits += [Edit(operator, pre, post), Edit(operator, post, pre)]
    gate = Gate(store, audit=False)
    kept = [comparable(gate.check_edit(e)) for e in edits]
    # the same session (same pins, same history) on copies of the windows: nothing kept
    twin = Gate(store, audit=False)
    assert kept == [comparable(twin.check_edit(_copied(e))) for e in edits]


def _copied(edit: Edit) -> Edit:
    """The edit with new window objects (equal content), which no gate has seen."""
    return Edit(edit.operator, Window(edit.pre.to_json()), Window(edit.post.to_json()), edit.evicted,
                edit.supersedes, edit.pointers)


def test_in_place_edits_that_move_copy_or_retag_texts_match_the_full_path():
    # same ids and metadata in the same order (the in-place path): texts swapped between two
    # blocks, one text copied over another, a whitespace-only rewrite, a derived tag without
    # derived_from: each judged as a gate that keeps nothing judges it
    store = store_with({CONF_H: NOTE, "tool:call_2": "rows: 12\n"})
    pre = Window([tool("t1", CONF_H, NOTE), tool("t2", "tool:call_2", "rows: 12\n"),
                  blk("a1", "assistant", "ok\n"), blk("s1", "summary", "rows: 12\n", derived_from=[])])
    texts = [b.text for b in pre]
    variants = [
        [texts[1], texts[0], texts[2], texts[3]],  # swapped
        [texts[0], texts[0], texts[2], texts[3]],  # copied over
        [texts[0], texts[1], "ok   \n", texts[3]],  # whitespace only
        [texts[0], texts[1], "ok, noted\n", texts[3]],  # a real rewrite
    ]
    edits = [Edit("reorder", Window(pre.blocks[::-1]), pre)]
    for v in variants:
        post = Window([dict(b.to_json(), text=t) for b, t in zip(pre, v)])
        edits += [Edit("rewrite", pre, post), Edit("rewrite", post, pre)]
    gate, twin = Gate(store, audit=False), Gate(store, audit=False)
    twin._in_place = False  # the general path
    kept = [comparable(gate.check_edit(e)) for e in edits]
    assert kept == [comparable(twin.check_edit(_copied(e))) for e in edits]
    # and both are right: a swap or a copy moves a source's text onto another handle
    assert [v["accepted"] for v in kept[1::2]] == [False, False, False, False]  # s1 lacks derived_from
    assert [(v["invariant"], v["block"]) for v in kept[1]["violations"]][:2] == [("I1", "t1"), ("I1", "t2")]


def test_a_citation_moved_into_a_tool_output_is_lost_on_every_path():
    # a turn's text (with its marker) traded with a tool output's: in the tool block the
    # marker is data, so the citation is lost, however the gate gets to the verdict (in place,
    # on the general path, or because another block was renamed); it used to count as kept
    # (retention 1.0) off the in-place path (red team 35, 02)
    store = store_with({CONF_H: "retries: 3\n", "tool:call_2": "port: 8080\n"})
    pre = Window([tool("t1", CONF_H, "retries: 3\n"), blk("a1", "assistant", "It retries 3 times [src:call_1].\n"),
                  blk("a2", "assistant", "Port 8080 [src:call_2].\n"), blk("z", "assistant", "ok\n")])
    swapped = _rewritten(pre, t1=pre[1].text, a1=pre[0].text)
    renamed = Window([*swapped.blocks[:3], dict(pre[3].to_json(), id="z2")])
    back = Edit("rewrite", swapped, pre)  # the marker back in a turn: a citation again
    retentions = []
    for edit in (Edit("rewrite", pre, swapped), Edit("rewrite", pre, renamed, evicted=("z",)), back):
        for in_place in (True, False):
            gate = Gate(store, audit=False, retention_floor=0.0)
            gate._in_place = in_place
            retentions.append(gate.check_edit(_copied(edit)).retention)
    assert retentions == [0.5, 0.5, 0.5, 0.5, 2.0, 2.0]
    # the moved citation counts as lost handle by handle too: with a2's marker dropped as well,
    # post cites nothing (it counted as 0.5 while another handle's loss was counted alone)
    dropped = _rewritten(swapped, a2="Port 8080.\n")
    relabelled = Window([pre[0], dict(pre[1].to_json(), role="user"), dropped[2], pre[3]])
    for post in (dropped, relabelled):
        for in_place in (True, False):
            gate = Gate(store, audit=False, retention_floor=0.0)
            gate._in_place = in_place
            assert gate.check_edit(Edit("rewrite", pre, post)).retention == 0.0


def _session(gate: Gate, twin: Gate, edits: list[Edit]) -> list[dict]:
    """Each edit through a gate that keeps the windows and, on copies of the windows, through a
    twin gate of the same session that can keep nothing and takes no in-place shortcut: the
    verdicts must be equal."""
    twin._in_place = False
    kept = [comparable(gate.check_edit(e)) for e in edits]
    assert kept == [comparable(twin.check_edit(_copied(e))) for e in edits]
    return kept


def _rewritten(window: Window, **texts: str) -> Window:
    """``window`` with the named blocks' texts replaced (same ids and metadata: in place)."""
    return Window([dict(b.to_json(), text=texts.get(b.id, b.text)) for b in window])


def test_marker_names_carried_across_in_place_edits_match_the_full_path():
    # in-place rewrites start from the pre window's marker names; every way a name can come or
    # go must give the full path's verdict: a marker dropped while another block still cites
    # it, one that names nothing, one kept after it failed, one that resolves once its source
    # is stored, one that becomes ambiguous
    store = store_with({CONF_H: NOTE, "doc:guide": "retry guide\n"})
    w0 = Window([tool("t1", CONF_H, NOTE), blk("a1", "assistant", "per [src:call_1], backoff_ms is 250.\n"),
                 blk("a2", "assistant", "again [src:call_1]: max_retries 3.\n")])
    w1 = _rewritten(w0, a1="backoff_ms is 250.\n")  # call_1 still cited by a2
    w2 = _rewritten(w1, a2="again [src:call_1] and [src:nosuch]: max_retries 3.\n")
    w3 = _rewritten(w2, a1="backoff_ms is 250 [src:guide].\n")  # a2 still cites nosuch
    w4 = _rewritten(w3, a2="again [src:call_1]: max_retries 3.\n")  # nosuch gone
    w5 = _rewritten(w4, a1="backoff_ms is 250 [src:later].\n")
    # markers come and go here on purpose: I5 is not under test
    gate, twin = Gate(store, audit=False, retention_floor=0.0), Gate(store, audit=False, retention_floor=0.0)
    v = _session(gate, twin, [Edit("rewrite", w0, w1), Edit("rewrite", w1, w2), Edit("rewrite", w2, w3),
                              Edit("rewrite", w3, w4), Edit("rewrite", w4, w5)])
    assert [x["accepted"] for x in v] == [True, False, False, True, False]
    assert [(x["invariant"], x["value"]) for x in v[1]["violations"] if x["invariant"] == "I3"] == [("I3", "nosuch")]
    assert [(x["invariant"], x["value"]) for x in v[2]["violations"] if x["invariant"] == "I3"] == [("I3", "nosuch")]
    assert [x["value"] for x in v[4]["violations"] if x["invariant"] == "I3"] == ["later"]
    # the name resolves once its source is stored (a failed look-up is never kept)
    store.put("doc:later", "backoff_ms is 250\n")
    assert _session(gate, twin, [Edit("rewrite", w4, w5)])[0]["accepted"]
    # and the same session on: a marker dropped from the only block citing it drops the handle
    w6 = _rewritten(w5, a2="again: max_retries 3.\n")
    assert _session(gate, twin, [Edit("rewrite", w5, w6)])[0]["accepted"]  # t1 still holds call_1
    w7 = _rewritten(w6, a2="again [src:later]: max_retries 3.\n")
    w8 = _rewritten(w7, a1="backoff_ms is 250.\n")  # a2 still cites later
    assert [x["accepted"] for x in _session(gate, twin, [Edit("rewrite", w6, w7), Edit("rewrite", w7, w8)])] == [True, True]
    # what the gate kept of each window names exactly the markers its texts hold
    for w in (w1, w2, w3, w4, w5, w6, w7, w8):
        side = gate._sides.get(id(w))
        if side is not None and side._names is not None:
            assert side._names == set(re.findall(r"\[src:([^\]]+)\]", "".join(b.text for b in w))), w


def test_a_window_not_edited_in_place_looks_up_the_handles_of_its_new_and_retagged_blocks():
    # once pre's handles all resolved, a prune or summary looks up only the handles of blocks
    # that are new or whose handles changed: an unknown handle there is still found, wherever
    # it is named, and the verdicts are the general path's
    store = store_with({CONF_H: NOTE, "doc:guide": "retry guide\n", "user:u1": "hi\n"})
    pre = Window([tool("t1", CONF_H, NOTE), tool("g", "doc:guide", "retry guide\n"),
                  blk("u1", "user", "hi\n", ["user:u1"]), blk("a1", "assistant", "ok [src:call_1].\n")])
    retagged = dict(pre[1].to_json(), handles=["doc:guide", "doc:nosuch"])
    reordered = dict(pre[1].to_json(), handles=["doc:guide"])
    cases = {
        "summary of a missing source": (
            [pre[0], pre[1], blk("s1", "summary", "hi\n", derived_from=["user:u1", "user:gone"])], ["user:gone"]),
        "kept text, a new unknown handle": ([pre[0], retagged, pre[3]], ["doc:nosuch"]),
        "kept text, its own handles": ([pre[0], reordered, pre[3]], []),
    }
    for name, (post, unknown) in cases.items():
        gate, twin = _warm_gate(store, Edit("prune", pre, pre)), Gate(store, audit=False)
        assert gate._sides[id(pre)].ix.resolved, name
        operator = "summarize" if "summary" in name else "prune"
        evicted = ("user:u1",) if operator == "prune" else ("a1",)
        v = _session(gate, twin, [Edit(operator, pre, Window(post), evicted=evicted)])[0]
        found = sorted(x["handle"] for x in v["violations"] if x["invariant"] == "I3")
        assert found == unknown, name


def test_marker_names_a_check_has_not_met_are_resolved_in_one_store_read():
    sources = {f"tool:call_{k}": f"value_{k} = {k}\n" for k in range(40)}
    sources["doc:call_7"] = "another source of the same name\n"
    store = store_with(sources)
    calls: list[list[str]] = []
    real_many = store.handles_cited_as_many
    store.handles_cited_as = lambda name: pytest.fail(f"{name!r} was looked up on its own")  # type: ignore[method-assign]
    store.handles_cited_as_many = lambda names: calls.append(list(names)) or real_many(names)  # type: ignore[method-assign]
    pre = Window([tool(f"t{k}", f"tool:call_{k}", sources[f"tool:call_{k}"]) for k in range(40)])
    text = " ".join(f"value_{k} = {k} [src:call_{k}]." for k in range(40)) + " See [src:nowhere].\n"
    post = Window([blk("s", "summary", text, derived_from=[f"tool:call_{k}" for k in range(40)])])
    v = Gate(store, audit=False).check_edit(Edit("summarize", pre, post))
    assert len(calls) == 1 and sorted(calls[0]) == sorted([*(f"call_{k}" for k in range(40)), "nowhere"])
    # each name still resolves on its own terms: the ambiguous one and the unknown one fail I3
    assert sorted(x.value for x in v.violations if x.invariant == "I3") == ["call_7", "nowhere"]


def test_edits_that_are_not_in_place_look_up_only_names_pre_did_not_resolve():
    # a prune or summary is not an edit in place, but its pre window's names that resolved
    # still do: only the others are looked up in the store (and every failure is still found)
    store = store_with({CONF_H: NOTE, "doc:guide": "retry guide\n"})
    cited = [blk(f"a{k}", "assistant", f"turn {k} [src:call_1] [src:guide].\n") for k in range(3)]
    good = Window([tool("t1", CONF_H, NOTE), *cited])
    bad = Window([tool("t1", CONF_H, NOTE), *cited, blk("x", "assistant", "see [src:nosuch].\n")])
    asked: list[str] = []
    real, real_many = store.handles_cited_as, store.handles_cited_as_many
    store.handles_cited_as = lambda name: asked.append(name) or real(name)  # type: ignore[method-assign]
    store.handles_cited_as_many = lambda names: asked.extend(names) or real_many(names)  # type: ignore[method-assign]
    gate, twin = Gate(store, audit=False), _general(store)
    first = _session(gate, twin, [Edit("prune", Window([*good, blk("z", "user", "hi\n")]), good)])
    assert first[0]["accepted"]
    asked.clear()
    pruned = Window([b for b in good if b.id != "a0"])
    added = Window([*pruned, blk("s1", "summary", "turn 0 [src:call_1] [src:later].\n",
                                 derived_from=[CONF_H])])
    v = _session(gate, twin, [Edit("prune", good, pruned, evicted=("a0",)), Edit("summarize", good, added)])
    assert v[0]["accepted"] and not v[1]["accepted"]
    assert [x["value"] for x in v[1]["violations"] if x["invariant"] == "I3"] == ["later"]
    assert sorted(set(asked)) == ["later"] and asked.count("later") == 2  # gate and twin
    # a name pre could not resolve is looked up again, and still fails
    assert not _session(gate, twin, [Edit("prune", Window([*bad, blk("z", "user", "hi\n")]), bad)])[0]["accepted"]
    v = _session(gate, twin, [Edit("prune", bad, Window([b for b in bad if b.id != "a0"]))])
    assert [x["value"] for x in v[0]["violations"] if x["invariant"] == "I3"] == ["nosuch"]


def test_a_window_whose_handles_did_not_resolve_is_looked_up_again():
    # the "every handle resolves" finding is kept per window shape only when it is true
    store = store_with({CONF_H: NOTE})
    w0 = Window([tool("t1", CONF_H, NOTE), tool("t2", "tool:call_9", "rows: 12\n")])
    w1 = _rewritten(w0, t2="rows: 12\n\n")
    gate = Gate(store, audit=False)
    for _ in range(2):  # the second time both sides are kept
        find(gate.check_edit(Edit("rewrite", w0, w1)), "I3", handle="tool:call_9")
    store.put("tool:call_9", "rows: 12\n")
    again = gate.check_edit(Edit("rewrite", w0, w1))
    assert again.accepted, again.summary()


def test_in_place_windows_share_one_set_of_metadata_indexes():
    # an index built for either window after they were found alike serves both
    store, edit = _corpus_case("rewrite", 0)
    gate = _warm_gate(store, edit)
    committed = gate.check_edit(edit).window
    nxt = Edit("rewrite", committed, _one_block_changed(committed, 0))
    gate.check_edit(nxt)
    pre_side, post_side = gate._sides[id(nxt.pre)], gate._sides[id(nxt.post)]
    assert pre_side._ix is post_side._ix
    assert post_side.derived_union() is pre_side.derived_union()


def test_the_session_window_keeps_its_side_while_many_next_edits_are_checked():
    # sides are dropped least recently used first: the committed window every next edit starts
    # from is used each time, so it stays however many post windows come and go
    store, edit = _corpus_case("prune", 1)
    gate = _warm_gate(store, edit)
    committed = gate.check_edit(edit).window
    kept = gate._sides[id(committed)]
    for k in range(12):
        gate.check_edit(Edit("rewrite", committed, _one_block_changed(committed, k)))
        assert gate._sides.get(id(committed)) is kept
    assert len(gate._sides) <= 8


def test_a_gate_and_the_windows_it_keeps_are_freed_by_reference_counting():
    # a reference cycle through the kept sides would leave every gate (and the windows, fact
    # tables and caches it holds) to the cycle collector, whose full passes then land inside
    # some later check
    store, edit = _corpus_case("summarize", 0)
    gc.disable()
    try:
        gate = _warm_gate(store, edit)
        committed = gate.check_edit(edit).window
        gate.check_edit(Edit("rewrite", committed, _one_block_changed(committed, 0)))
        alive = weakref.ref(gate)
        del gate
        assert alive() is None
    finally:
        gc.enable()


def test_the_gate_holds_the_callers_windows_only_until_its_next_check():
    # a window outlives its caller's reference only until the gate's next check has been judged
    # (the gate keeps its last check's windows, for a caller that passes one again as a new
    # object); a new window at a dead window's address is never judged by the dead one's side
    store, edit = _corpus_case("rewrite", 0)
    fresh = [comparable(Gate(store, audit=False).check_edit(_copied(edit))) for _ in range(2)]
    gc.disable()
    try:
        gate = Gate(store, audit=False)
        earlier: list[weakref.ref] = []
        for k in range(12):
            pre, post = _copied(edit).pre, _copied(edit).post
            verdict = gate.check_edit(Edit("rewrite", pre, post))
            assert comparable(verdict) == fresh[0]
            assert [w() for w in earlier] == [None, None][: len(earlier)], k  # the last check's: freed
            earlier = [weakref.ref(pre), weakref.ref(post)]
            del pre, post, verdict
            assert None not in [w() for w in earlier]  # kept until the next check
        assert len(gate._sides) <= 8
        gate.check_edit(_copied(edit))
        assert [w() for w in earlier] == [None, None]
    finally:
        gc.enable()


def test_a_committed_edit_leaves_its_pre_window_to_its_caller():
    # an accepted edit the agent committed is followed by an edit from its window: the gate
    # keeps that window (a copy rebuilt from JSON shares its side), and the pre window dies
    # where its caller drops it, not in the gate's next check; a check not committed, or
    # rejected, keeps its pre window until the next check (a caller may pass it again)
    store, edit = _corpus_case("summarize", 0)
    gate = _warm_gate(store, edit)
    drift_store, drift = _corpus_case("drift", 0)
    drift_gate = _warm_gate(drift_store, drift)
    gc.disable()
    try:
        committed = _copied(edit)
        left = weakref.ref(committed.pre)
        verdict = gate.check_edit(committed, commit=True)
        assert verdict.accepted
        del committed
        assert left() is None
        pre = Window(verdict.window.to_json())
        nxt = gate.check_edit(Edit("rewrite", pre, _one_block_changed(pre, 0)))
        assert gate._sides[id(pre)]._ix is gate._sides[id(verdict.window)]._ix  # shared, not rebuilt
        assert comparable(nxt) == comparable(Gate(store, audit=False).check_edit(
            Edit("rewrite", pre, _one_block_changed(pre, 0))))
        for g, e, commit in ((gate, edit, False), (drift_gate, drift, True)):
            e = _copied(e)
            kept = weakref.ref(e.pre)
            assert g.check_edit(e, commit=commit).accepted is (g is gate)
            del e
            assert kept() is not None, commit
    finally:
        gc.enable()


def test_a_pre_window_rebuilt_from_json_starts_from_the_committed_windows_side(monkeypatch):
    """An agent that holds its window as plain JSON blocks passes the window the gate committed
    as a new object, equal block for block: the gate shares what it derived from the committed
    window (one native comparison), and gives the verdict of a gate that kept nothing."""
    from gate_helpers import record_extractions

    store, edit = _corpus_case("summarize", 0)
    gate = _warm_gate(store, edit)
    committed = gate.check_edit(edit).window
    for k in range(3):
        pre = Window(committed.to_json())  # new Block objects, the same strings
        post = _one_block_changed(pre, k)
        calls = record_extractions(monkeypatch)
        verdict = gate.check_edit(Edit("rewrite", pre, post))
        # only the changed block is scanned, not the whole pre window (a rejected rewrite also
        # reads its source's kv values as prose, I1: that is no block)
        texts = {b.text.encode("utf-8") for w in (pre, post) for b in w}
        assert len([c for c in calls if c in texts]) <= 1
        monkeypatch.undo()
        assert gate._sides[id(pre)]._ix is gate._sides[id(committed)]._ix  # shared, not rebuilt
        assert comparable(verdict) == comparable(Gate(store, audit=False).check_edit(Edit("rewrite", pre, post)))


@pytest.mark.parametrize("change", ["role", "ts", "pinned", "text", "handles", "id", "order"])
def test_a_pre_window_that_differs_in_anything_gets_a_side_of_its_own(change):
    store, edit = _corpus_case("rewrite", 1)
    gate = _warm_gate(store, edit)
    committed = gate.check_edit(edit).window
    blocks = committed.to_json()
    j = next(i for i, b in enumerate(blocks) if b["role"] == "tool" and b["handles"])
    if change == "role":
        blocks[j]["role"] = "user"
    elif change == "ts":
        blocks[j]["ts"] = 12345.0
    elif change == "pinned":
        blocks[j]["pinned"] = True
    elif change == "text":
        blocks[j]["text"] += "retries=9\n"
    elif change == "handles":
        blocks[j]["handles"] = blocks[j]["handles"] + ["tool:not_stored"]
    elif change == "id":
        blocks[j]["id"] += "_renamed"
    else:
        blocks[j], blocks[j + 1] = blocks[j + 1], blocks[j]
    pre = Window(blocks)
    post = _one_block_changed(pre, 0)
    verdict = gate.check_edit(Edit("rewrite", pre, post))
    assert gate._sides[id(pre)].ix is not gate._sides[id(committed)].ix
    assert comparable(verdict) == comparable(Gate(store, audit=False).check_edit(Edit("rewrite", pre, post)))


def test_a_windows_positions_by_id_are_its_own_and_read_only():
    w = Window([blk("a", "user", "x\n"), blk("b", "assistant", "y\n")])
    index = w.positions_by_id()
    assert dict(index) == {"a": 0, "b": 1} and index["b"] == w.index("b")
    with pytest.raises(TypeError):
        index["c"] = 2  # type: ignore[index]


# -- random sessions: the kept path against a gate that keeps nothing -------------------------

_SOURCES = {
    CONF_H: NOTE,
    "tool:call_2": "backoff_ms: 500\nmax_retries: 3\n",
    "doc:guide": "The retry guide says backoff_ms is 250 and max_retries is 3.\n",
}
_TEXTS = [
    "per [src:call_1], backoff_ms is 250.\n",
    "per [src:call_1] and [src:guide], max_retries is 3.\n",
    "backoff_ms is 250.\n",
    "per [src:nosuch], backoff_ms is 250.\n",
    "per [src:call_1],  backoff_ms   is 250.\n",  # a whitespace variant of the first
    "per [src:call_2], backoff_ms is 500 and max_retries is 7.\n",
    NOTE,
]


def _base_window() -> Window:
    return Window([
        tool("t1", CONF_H, NOTE, resource="file:conf.yaml", ts=1.0),
        tool("t2", "tool:call_2", _SOURCES["tool:call_2"], resource="file:conf.yaml", ts=2.0),
        blk("a1", "assistant", _TEXTS[0]),
        blk("a2", "assistant", _TEXTS[1]),
        blk("s1", "summary", "The guide: backoff_ms is 250.\n", derived_from=["doc:guide"]),
        blk("u1", "user", "keep retries low\n", pinned=True),
    ])


def _apply(window: Window, op: tuple) -> tuple[str, Window, tuple[str, ...]]:
    """One random edit of ``window``: (operator, post window, evicted)."""
    blocks = [b.to_json() for b in window]
    kind, k, x = op
    k %= len(blocks)
    if kind == "text":
        blocks[k]["text"] = _TEXTS[x % len(_TEXTS)]
        return "rewrite", Window(blocks), ()
    if kind == "copy":
        blocks[k]["text"] = blocks[x % len(blocks)]["text"]
        return "rewrite", Window(blocks), ()
    if kind == "drop" and len(blocks) > 2:
        gone = blocks.pop(k)
        return "prune", Window(blocks), ((gone["handles"] or [gone["id"]])[0],) if x % 2 else ()
    if kind == "swap":
        j = x % len(blocks)
        blocks[k], blocks[j] = blocks[j], blocks[k]
        return "reorder", Window(blocks), ()
    if kind == "swaptext":  # the texts trade blocks, the blocks keep their roles (red team 35, 02)
        j = x % len(blocks)
        blocks[k]["text"], blocks[j]["text"] = blocks[j]["text"], blocks[k]["text"]
        return "rewrite", Window(blocks), ()
    if kind == "pin":
        blocks[k]["pinned"] = not blocks[k]["pinned"]
        return "rewrite", Window(blocks), ()
    return "rewrite", Window(blocks), ()


_OPS = st.tuples(st.sampled_from(["text", "copy", "drop", "swap", "swaptext", "pin", "same"]),
                 st.integers(0, 7), st.integers(0, 7))


@settings(max_examples=150, deadline=None)
@given(ops=st.lists(_OPS, min_size=1, max_size=6), follow_rejected=st.booleans())
# a pinned output overwritten with a copy of another block's text: the shortcut still held the
# pin in place (retention 1.0 against None, found at stop 45)
@example(ops=[("drop", 3, 0), ("pin", 0, 0), ("text", 4, 0), ("text", 0, 0)], follow_rejected=True)
def test_random_sessions_get_the_verdicts_of_a_gate_that_keeps_nothing(ops, follow_rejected):
    # every kept index, carried marker name, counted text, shared shape and in-place shortcut
    # must give the verdict of the general path, whatever sequence of edits a session makes
    store = store_with(_SOURCES)
    gate = Gate(store, audit=False, retention_floor=0.0)
    twin = Gate(store, audit=False, retention_floor=0.0)  # the same session, on copies
    twin._in_place = False  # and without the shortcuts of edits in place
    window = _base_window()
    for op in ops:
        operator, post, evicted = _apply(window, op)
        edit = Edit(operator, window, post, evicted=evicted)
        kept = comparable(gate.check_edit(edit))
        assert kept == comparable(twin.check_edit(_copied(edit))), (op, kept)
        if kept["accepted"] or follow_rejected:
            window = post


def test_a_window_compared_again_and_again_shares_indexes_only_with_its_equals():
    # a window is compared with the pre window block by block, field by field: each field
    # must tell windows apart
    store = store_with({CONF_H: NOTE, "tool:call_2": NOTE + "x\n"})
    blocks = [tool("t1", CONF_H, NOTE, pinned=True, resource="file:a.yaml", ts=1.0),
              tool("t2", "tool:call_2", NOTE + "x\n", resource="file:a.yaml", ts=2.0),
              blk("s1", "summary", "backoff_ms: 250\n", derived_from=[CONF_H])]
    pre = Window(blocks)
    changes = [{}, {"pinned": False}, {"resource": "file:b.yaml"}, {"handles": [CONF_H]},
               {"derived_from": ["tool:call_2"]}, {"id": "t1_renamed"}, {"text": NOTE + "\n"}, {}]
    edits = []
    for k, change in enumerate(changes * 2):
        i = {"derived_from": 2, "handles": 1}.get(next(iter(change), ""), 0)
        edits.append(Edit("rewrite", pre, Window([dict(b, **change) if j == i else b for j, b in enumerate(blocks)])))
    gate, twin = Gate(store, audit=False), Gate(store, audit=False)
    twin._in_place = False
    kept = [comparable(gate.check_edit(e)) for e in edits]
    assert kept == [comparable(twin.check_edit(_copied(e))) for e in edits]
    assert [v["accepted"] for v in kept].count(False) >= 4
    # and directly: indexes are shared exactly with the windows whose metadata is equal
    for e, change in zip(edits, changes * 2):
        gate.check_edit(e)
        shared = gate._sides[id(e.post)]._ix is gate._sides[id(pre)]._ix
        assert shared == (set(change) <= {"text"}), change


def test_a_kept_fact_set_out_of_step_with_its_window_stops_the_check():
    # a kept side's fact multiset is derived from earlier checks; were it ever to lack a fact
    # of one of its blocks, I2's counts would be wrong, so the check raises instead of judging
    store = store_with({CONF_H: NOTE, "tool:call_2": NOTE + "x\n"})
    pre = Window([tool("t1", CONF_H, NOTE), tool("t2", "tool:call_2", NOTE + "x\n")])
    gate = Gate(store, audit=False)
    assert gate.check_edit(Edit("rewrite", pre, pre)).accepted  # keeps pre's side
    gate._sides[id(pre)]._fact_set = FingerprintSet(EMPTY)
    with pytest.raises(RuntimeError, match="lacks a fact of one of its blocks"):
        gate.check_edit(Edit("prune", pre, Window([pre[0]]), evicted=("tool:call_2",)))
    # a gate whose kept set is whole judges the same edit
    assert Gate(store, audit=False).check_edit(Edit("prune", pre, Window([pre[0]]), evicted=("tool:call_2",))).accepted


# -- grounding sets made only when a row is left without them (_Check._ground) -----------------


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", list(EDITS))
def test_deferred_grounding_sets_give_the_verdict_of_every_set_made(name, seed):
    store, edit = _corpus_case(name, seed)
    gate = _warm_gate(store, edit)
    first = gate.check_edit(edit)
    assert comparable(first) == comparable(_general(store, "_defer_sets").check_edit(edit))
    committed = first.window if first.accepted else edit.pre
    nxt = Edit("rewrite", committed, _one_block_changed(committed, seed))
    assert comparable(gate.check_edit(nxt)) == comparable(_general(store, "_defer_sets").check_edit(nxt))


TURN = "Set max_retries = 3 and timeout_s = 40 for the client.\n"


def _summarized_turn(summary_text: str, defer: bool):
    """A turn summarized into ``summary_text``, derived from the turn's block handle only: the
    turn's text is a window block's (its grounding set not made) and the summary's kv facts
    are written without its spaces, so no literal search finds them, only the turn's set."""
    handle = block_text_handle(blake3(TURN.encode("utf-8")).digest())
    store = store_with({handle: TURN})
    pre = Window([blk("a1", "assistant", TURN)])
    post = Window([blk("s1", "summary", summary_text, derived_from=[handle])])
    gate = Gate(store, audit=False)
    gate._defer_sets = defer
    return gate.check_edit(Edit("summarize", pre, post))


@pytest.mark.parametrize("defer", [True, False])
def test_a_fact_only_the_deferred_set_holds_is_grounded(defer):
    # left over without the turn's set, and found in it once it is made: grounded
    v = _summarized_turn("The client uses max_retries=3 and timeout_s=40.\n", defer)
    assert v.accepted, v.summary()
    assert not [x for x in v.violations if x.invariant == "I1"]


@pytest.mark.parametrize("defer", [True, False])
@pytest.mark.parametrize(("text", "ungrounded"), [
    ("The client uses max_retries=3 and timeout_s=45.\n", ("timeout_s", "45")),
    # a kv fact is looked up as its (key, value) pair: 40 is a value of the turn, not of max_retries
    ("The client uses max_retries=40.\n", ("max_retries", "40")),
])
def test_a_fact_no_set_holds_is_reported_with_sets_deferred(defer, text, ungrounded):
    v = _summarized_turn(text, defer)
    assert not v.accepted
    assert [(x.key, x.value) for x in v.violations if x.invariant == "I1"] == [ungrounded], v.summary()


# a block rewritten in place is grounded by its sources and by its own pre version's set; that
# set is made only for a row its sources leave over (a session's next edit rewrites a turn its
# markers' sources ground whole: its pre version, new each turn, was made a set for nothing)
OWN = "Set max_retries=3 for the client [src:tool:cfg].\n"


def _checked_recording_sets(gate: Gate, edit: Edit, made: list[bytes] | None):
    """``gate.check_edit(edit)``, appending to ``made`` the text of every grounding set made."""
    if made is None:
        return gate.check_edit(edit)
    from provgate.gate import _Facts

    real = _Facts.grounding_sets

    def recording(texts):
        made.extend(x.table.data for x in texts if x._grounding_set is None)
        return real(texts)

    _Facts.grounding_sets = staticmethod(recording)
    try:
        return gate.check_edit(edit)
    finally:
        _Facts.grounding_sets = staticmethod(real)


def _own_rewritten(text: str, source: str, defer: bool, made: list[bytes] | None = None):
    gate = Gate(store_with({"tool:cfg": source}), audit=False)
    gate._defer_sets = defer
    pre, post = Window([blk("a1", "assistant", OWN)]), Window([blk("a1", "assistant", text)])
    return _checked_recording_sets(gate, Edit("rewrite", pre, post), made)


@pytest.mark.parametrize("defer", [True, False])
def test_a_fact_only_the_own_pre_version_holds_is_grounded(defer):
    v = _own_rewritten("Set max_retries=3 for the client now [src:tool:cfg].\n", "client config loaded\n", defer)
    assert v.accepted, v.summary()


@pytest.mark.parametrize("defer", [True, False])
def test_a_fact_neither_the_sources_nor_the_own_pre_version_holds_is_refused(defer):
    v = _own_rewritten("Set max_retries=5 for the client now [src:tool:cfg].\n", "client config loaded\n", defer)
    assert not v.accepted
    assert ("max_retries", "5") in [(x.key, x.value) for x in v.violations if x.invariant == "I1"], v.summary()


def test_the_own_pre_versions_set_is_made_only_for_a_row_left_over():
    made: list[bytes] = []
    v = _own_rewritten("Set max_retries=3 for the client now [src:tool:cfg].\n", "max_retries=3\n", True, made)
    assert v.accepted, v.summary()
    assert OWN.encode() not in made  # its sources ground it: the pre version's set is not made
    made.clear()
    v = _own_rewritten("Set max_retries=3 for the client now [src:tool:cfg].\n", "client config loaded\n", True, made)
    assert v.accepted, v.summary()
    assert OWN.encode() in made


def test_the_own_pre_versions_sets_are_made_first_for_many_rows():
    # (past _OWN_SETS_DEFERRED_UP_TO rows the pre versions' sets ground most rows of a rewrite
    # more cheaply than the literal search of the sources; the verdict is the same either way)
    from provgate.gate import _OWN_SETS_DEFERRED_UP_TO

    lines = "".join(f"key_{k}={k}\n" for k in range(_OWN_SETS_DEFERRED_UP_TO + 8))
    own = lines + "[src:tool:cfg]\n"
    made: list[bytes] = []
    edit = Edit("rewrite", Window([blk("a1", "assistant", own)]), Window([blk("a1", "assistant", own + "Done.\n")]))
    v = _checked_recording_sets(Gate(store_with({"tool:cfg": lines}), audit=False), edit, made)
    assert v.accepted, v.summary()
    assert own.encode() in made


def test_text_holders_carried_to_a_window_rewritten_in_place_are_those_found_anew():
    # (_Side.inherit: a pinned text's holders carried from the window a next edit rewrote in
    # place are the holders a search of the new window finds: the positions whose texts
    # changed asked again, a text that came or left there included)
    import random

    from provgate.gate import _Side

    pool = ["alpha\n", "beta\n", "gamma\n", "retries=3\nmode=safe\n"]
    handles = [block_text_handle(blake3(t.encode()).digest()) for t in pool]
    rng = random.Random(54)
    for _ in range(300):
        before = [rng.choice(pool) for _ in range(rng.randint(1, 9))]
        after = [rng.choice(pool) if rng.random() < 0.4 else t for t in before]
        differing = [j for j, (a, b) in enumerate(zip(before, after)) if a != b]
        gate = Gate(store_with({}), audit=False)
        windows = (Window([blk(f"b{k}", "tool", t) for k, t in enumerate(before)]),
                   Window([blk(f"b{k}", "tool", t) for k, t in enumerate(after)]))  # (held: a side holds its window weakly)
        pre, post = gate.side(windows[0], "pre", {}), gate.side(windows[1], "post", {})
        asked = rng.sample(handles, rng.randint(1, len(handles)))
        for h in asked:
            pre.holding_text((h,))
        post.inherit(pre, differing)
        fresh = _Side(post.window, post.texts, post.digests)
        for h in handles:
            assert post.holding_text((h,)) == fresh.holding_text((h,)) == [
                k for k, t in enumerate(after) if block_text_handle(blake3(t.encode()).digest()) == h]
        assert post._text_holders is not None and set(post._text_holders) >= {h_key for h_key in pre._text_holders}


# -- a side's fact list and its completeness, set by two threads at once (red team 35, 01) -----


def _interleaved_known_facts(gate: Gate, first: Edit, second: Edit) -> None:
    """Judge two edits with the same post window in two threads, switching between them inside
    ``_Side.known_facts`` (where a GIL switch may fall): ``first`` stores its fact list, then
    ``second`` (which also found the side without one) stores its own and leaves, then ``first``
    finishes. A trace hook only chooses where the switches fall."""
    code = _Side.known_facts.__code__
    store_at = next(code.co_firstlineno + k for k, line in enumerate(inspect.getsourcelines(code)[0])
                    if line.strip() == "self._facts = facts")
    ev = {k: threading.Event() for k in ("a_before_store", "b_before_store", "a_go", "a_stored", "b_left", "a_done")}

    def tracer(name):
        def local(frame, event, arg):
            if name == "a" and event == "line" and frame.f_lineno == store_at:
                ev["a_before_store"].set()
                ev["a_go"].wait(_SWITCH_WAIT)
            elif name == "a" and event == "line" and frame.f_lineno > store_at:
                ev["a_stored"].set()  # (stored; now wait until the other thread has left)
                ev["b_left"].wait(_SWITCH_WAIT)
            elif name == "b" and event == "line" and frame.f_lineno == store_at:
                ev["b_before_store"].set()
                ev["a_stored"].wait(_SWITCH_WAIT)
            elif name == "b" and event == "return":
                ev["b_left"].set()
                ev["a_done"].wait(_SWITCH_WAIT)
            return local
        return lambda frame, event, arg: local if event == "call" and frame.f_code is code else None

    def run(name, edit):
        sys.settrace(tracer(name))
        try:
            gate.check_edit(edit)
        finally:
            sys.settrace(None)
            if name == "a":
                ev["a_done"].set()

    ta = threading.Thread(target=run, args=("a", first))
    tb = threading.Thread(target=run, args=("b", second))
    ta.start()
    assert ev["a_before_store"].wait(_SWITCH_WAIT)
    tb.start()
    assert ev["b_before_store"].wait(_SWITCH_WAIT)
    ev["a_go"].set()
    ta.join(10)
    tb.join(10)


def test_a_post_side_stored_by_two_threads_never_takes_a_fact_list_with_a_gap_for_complete():
    # one check stores the post window's facts complete, another (with a whitespace-matched
    # block, whose own facts it leaves unknown) stores a list with a gap: the side must not end
    # up with the gap AND the mark of a complete list, or the next check from that window reads
    # None for the block's facts (an AttributeError from every later check of the session)
    store = store_with({CONF_H: NOTE})
    turn = "The client retries 3 times.\n"
    post = Window([tool("t1", CONF_H, NOTE), blk("a1", "assistant", turn), blk("a2", "assistant", "Done.\n")])
    rewritten = Window([tool("t1", CONF_H, NOTE), blk("a1", "assistant", "The client retries 3 times, backoff 250.\n"),
                        blk("a2", "assistant", "Done.\n")])
    respaced = Window([tool("t1", CONF_H, NOTE), blk("a1", "assistant", "The client retries 3 times.   \n"),
                       blk("a2", "assistant", "Done after 2 tries.\n")])
    gate = Gate(store, audit=False)
    _interleaved_known_facts(gate, Edit("rewrite", rewritten, post), Edit("rewrite", respaced, post))
    nxt = Window([post[0], blk("a1", "assistant", "The client retries 3 times (backoff_ms 250).\n"), post[2]])
    assert comparable(gate.check_edit(Edit("rewrite", post, nxt))) == comparable(
        Gate(store, audit=False).check_edit(Edit("rewrite", post, nxt)))
