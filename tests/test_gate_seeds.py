"""The seeds' own scenarios, one by one, through the gate.

pruner-provenance-invariants.md, "What Was Observed": (1) a silent merge of two overlapping reads
of one file around a concurrent edit, (2) `retries=3` drifting to `retries=5` in a rewrite,
(3) citation markers decaying 100% -> 71% -> 12% over cycles, (4) a summary whose
`derived_from` handle was pruned and never persisted. compaction-provenance-loss.md: a
pointer re-anchored onto the summary, and a preservation guarantee that held for one pass only.
Every rejection is asserted on the violation it must carry, not just on `accepted`.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from gate_helpers import (
    assert_accepted,
    blake3_of,
    blk,
    byte_span,
    find,
    gate_for,
    invariants,
    of,
    pointer_to,
    store_with,
    summary,
    tool,
)
from provgate.gate import Gate
from provgate.window import parse_edit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import corpus  # noqa: E402

# -- (1) two overlapping reads of one file, a concurrent edit in between ------------------------

RESOURCE = "file:src/app/client.py"
# lines 1-12, read first
READ_OLD = (
    "# src/app/client.py lines 1-12\n"
    "import time\n"
    "MAX_RETRIES = 3\n"
    "BACKOFF_MS = 250\n"
    "USER_AGENT = 'atlas-client/1.4'\n"
    "def fetch(url):\n"
    "    for attempt in range(MAX_RETRIES):\n"
)
# lines 10-24, read after a concurrent edit changed BACKOFF_MS in the overlap
READ_NEW = (
    "# src/app/client.py lines 10-24\n"
    "BACKOFF_MS = 400\n"
    "USER_AGENT = 'atlas-client/1.4'\n"
    "def fetch(url):\n"
    "    for attempt in range(MAX_RETRIES):\n"
    "        time.sleep(BACKOFF_MS / 1000)\n"
)
REMARK = "Both reads are in; next I look at the retry loop.\n"
OLD_H, NEW_H = "tool:call_8801", "tool:call_8802"
READ_SOURCES = {OLD_H: READ_OLD, NEW_H: READ_NEW}


def _reads(old_ts: float | None = 100.0, new_ts: float | None = 200.0) -> list[dict]:
    return [
        tool("r1", OLD_H, READ_OLD, ts=old_ts, resource=RESOURCE),
        blk("a1", "assistant", REMARK),
        tool("r2", NEW_H, READ_NEW, ts=new_ts, resource=RESOURCE),
    ]


def test_pruner_keeps_the_earlier_read_and_drops_the_newer_is_a_silent_merge():
    pre = _reads()
    post = [pre[0], pre[1]]
    v = gate_for(READ_SOURCES).check(pre, post, operator="prune")
    merge = find(v, "I4", block="r1", handle=NEW_H, key="resource", value=RESOURCE)
    assert merge.evidence == {"kept": ["r1"], "newest": "r2"}
    assert "silent merge" in merge.message
    # the newer read's handle left the window without a record, and its facts with it
    find(v, "I2", handle=NEW_H, evidence__change="handle dropped")
    find(v, "I2", key="BACKOFF_MS", value="400", evidence__change="dropped")


@pytest.mark.parametrize(
    "claimed",
    [[NEW_H], [OLD_H, NEW_H]],
    ids=["claims-the-newer-handle", "claims-both-handles"],
)
def test_kept_earlier_read_carrying_a_valid_looking_handle_is_still_a_silent_merge(claimed):
    # the seed: "the surviving block still carried a valid-looking tool_call_id"
    pre = _reads()
    post = [tool("r1", OLD_H, READ_OLD, ts=100.0, resource=RESOURCE) | {"handles": claimed}, pre[1]]
    v = gate_for(READ_SOURCES).check(pre, post, operator="prune")
    merge = find(v, "I4", block="r1", key="resource", value=RESOURCE)
    assert merge.evidence["newest"] == "r2"
    assert "carries the newer read's handle" in merge.message


def test_kept_earlier_read_is_a_silent_merge_even_when_the_newer_is_evicted_with_a_record():
    pre = _reads()
    post = [pre[0], pre[1]]
    v = gate_for(READ_SOURCES).check(pre, post, operator="prune", evicted=[NEW_H])
    find(v, "I4", block="r1", key="resource", value=RESOURCE)
    assert of(v, "I2") == []  # the record covers the drop itself; the merge is what is wrong


def test_keeping_both_reads_is_accepted():
    pre = _reads()
    post = [pre[0], pre[2]]  # the remark goes, recorded by its id
    v = gate_for(READ_SOURCES).check(pre, post, operator="prune", evicted=["a1"])
    assert_accepted(v, "lossless")


def test_keeping_the_newer_read_with_a_supersession_edge_is_accepted():
    pre = _reads()
    post = [pre[1], pre[2]]
    v = gate_for(READ_SOURCES).check(pre, post, operator="prune", supersedes=[{"block": "r2", "handle": OLD_H}])
    assert_accepted(v, "lossless")
    assert v.facts["superseded"] > 0
    assert v.facts["dropped"] == 0


def test_keeping_the_newer_read_with_an_eviction_record_for_the_older_is_accepted():
    pre = _reads()
    v = gate_for(READ_SOURCES).check(pre, [pre[1], pre[2]], operator="prune", evicted=[OLD_H])
    assert_accepted(v, "lossless")
    assert v.facts["evicted"] > 0


def test_keeping_the_newer_read_without_any_record_is_rejected():
    pre = _reads()
    v = gate_for(READ_SOURCES).check(pre, [pre[1], pre[2]], operator="prune")
    drop = find(v, "I4", block="r1", handle=OLD_H, key="resource", value=RESOURCE)
    assert "supersession edge or an eviction record" in drop.message
    find(v, "I2", handle=OLD_H, evidence__change="handle dropped")


def test_a_backwards_supersession_edge_is_rejected():
    # both reads kept, but the edge claims the OLDER read replaces the newer one
    pre = _reads()
    v = gate_for(READ_SOURCES).check(pre, [pre[0], pre[2]], operator="prune", evicted=["a1"],
                                     supersedes=[{"block": "r1", "handle": NEW_H}])
    back = find(v, "I4", block="r1", handle=NEW_H)
    assert "backwards" in back.message


def test_the_newer_read_kept_with_whitespace_normalised_is_kept():
    # not an edit in place (a1 goes): the newer read survives only as a whitespace variant,
    # which is still its text, so keeping the older read beside it is no silent merge
    pre = _reads()
    spaced = dict(pre[2], text=READ_NEW.replace("\n", "  \n", 1))
    v = gate_for(READ_SOURCES).check(pre, [pre[0], spaced], operator="prune", evicted=["a1"])
    assert_accepted(v, "lossless")
    v = gate_for(READ_SOURCES).check(pre, [pre[0]], operator="prune", evicted=["a1", NEW_H])
    find(v, "I4", block="r1", key="resource", value=RESOURCE, evidence__newest="r2")


def test_a_supersession_edge_is_judged_against_the_last_block_naming_its_handle():
    # the old read's handle is named again by a later block (ts 300, a copy of its output that
    # is no read of the file): an edge from r2 (ts 200) over that handle points backwards; one
    # over the handle of a block that only came earlier does not, and each edge is judged on
    # its own handle
    pre = [*_reads(), tool("r1_again", OLD_H, READ_OLD, ts=300.0), tool("n1", "tool:note", "note 1\n", ts=50.0)]
    post = [pre[0], pre[2], pre[3], pre[4]]
    edges = [{"block": "r2", "handle": OLD_H}, {"block": "r2", "handle": "tool:note"}]
    g = gate_for({**READ_SOURCES, "tool:note": "note 1\n"})
    for _ in range(2):  # (and the same once the check logged its reads)
        v = g.check(pre, post, operator="prune", evicted=["a1"], supersedes=edges)
        back = [x for x in of(v, "I4") if "backwards" in x.message]
        assert [(x.block, x.handle) for x in back] == [("r2", OLD_H)]
        assert back[0].evidence == {"older": "r2", "newer": "r1_again"}
    # A copy tagged as a read of the file is that read again, one observation: the log holds it
    # where the window's line puts it first (ts 100), in this check as in the next, so the edge
    # points forwards. (The window's order alone made it the newest in the first check only,
    # and the same check run again was accepted.)
    tagged = [*pre[:3], dict(pre[3], resource=RESOURCE), pre[4]]
    g = gate_for({**READ_SOURCES, "tool:note": "note 1\n"})
    for _ in range(2):
        assert_accepted(g.check(tagged, [tagged[0], *tagged[2:]], operator="prune", evicted=["a1"],
                                supersedes=edges))


def test_the_older_read_is_kept_alone_and_claims_to_supersede_the_newer():
    pre = _reads()
    v = gate_for(READ_SOURCES).check(pre, [pre[0], pre[1]], operator="prune",
                                     supersedes=[{"block": "r1", "handle": NEW_H}])
    assert any("backwards" in x.message for x in of(v, "I4"))
    find(v, "I4", block="r1", key="resource", value=RESOURCE, evidence__newest="r2")


def test_timestamps_order_the_reads_not_window_position():
    # the newer read (by ts) comes FIRST in the window: keeping the second block alone keeps the
    # older content
    pre = [
        tool("r2", NEW_H, READ_NEW, ts=200.0, resource=RESOURCE),
        blk("a1", "assistant", REMARK),
        tool("r1", OLD_H, READ_OLD, ts=100.0, resource=RESOURCE),
    ]
    g = gate_for(READ_SOURCES)
    v = g.check(pre, [pre[1], pre[2]], operator="prune", evicted=[NEW_H])
    find(v, "I4", block="r1", key="resource", value=RESOURCE, evidence__newest="r2")
    ok = g.check(pre, [pre[0], pre[1]], operator="prune", supersedes=[{"block": "r2", "handle": OLD_H}])
    assert_accepted(ok)


def test_without_timestamps_window_order_decides():
    pre = _reads(old_ts=None, new_ts=None)
    g = gate_for(READ_SOURCES)
    find(g.check(pre, [pre[0], pre[1]], operator="prune", evicted=[NEW_H]), "I4", block="r1",
         evidence__newest="r2")
    assert_accepted(g.check(pre, [pre[1], pre[2]], operator="prune", supersedes=[{"block": "r2", "handle": OLD_H}]))


def test_collapsing_the_two_reads_into_one_merged_block_keeping_the_stale_value():
    # the pruner "collapsed" the overlap into one block: the earlier read's lines plus the newer
    # read's tail, but the overlap with the OLD value. It claims both handles.
    merged = READ_OLD + "        time.sleep(BACKOFF_MS / 1000)\n"
    pre = _reads()
    post = [blk("r1", "tool", merged, [OLD_H, NEW_H], ts=200.0, resource=RESOURCE), pre[1]]
    v = gate_for(READ_SOURCES).check(pre, post, operator="rewrite")
    stale = find(v, "I4", key="BACKOFF_MS", value="250")
    assert stale.evidence["newer_value"] == "400"
    assert stale.block == "r1"


def test_corpus_reread_pair_pruned_to_the_older_read_is_rejected():
    w = corpus.make_window(20_000, seed=0)
    older, newer = w.rereads[0]
    edit = corpus.prune_edit(w, keep=1.0)
    assert_accepted(Gate(store_with({})).check_edit(parse_edit(edit)))
    newer_id = next(b["id"] for b in w.blocks if newer in b["handles"])
    older_id = next(b["id"] for b in w.blocks if older in b["handles"])
    edit["post"] = [b for b in edit["post"] if b["id"] != newer_id]
    edit["evicted"] = [newer]
    v = Gate(store_with({})).check_edit(parse_edit(edit))
    find(v, "I4", block=older_id, key="resource", evidence__newest=newer_id)


# -- (2) rewrite-induced fact drift: retries=3 -> retries=5 ------------------------------------

CONFIG = "retries=3\ntimeout=30s\nendpoint=https://api.internal.example/v2\n"
CONFIG_H = "tool:call_8841"


def _drift():
    pre = [tool("b1", CONFIG_H, CONFIG), blk("b2", "assistant", "The client retries 3 times [src:call_8841].\n")]
    post = [tool("b1", CONFIG_H, CONFIG.replace("retries=3", "retries=5")), pre[1]]
    return pre, post


def test_rewrite_that_changes_retries_3_to_5_is_rejected_naming_both_values():
    pre, post = _drift()
    v = gate_for({CONFIG_H: CONFIG}).check(pre, post, operator="rewrite")
    intro = find(v, "I2", block="b1", key="retries", value="5", evidence__change="introduced")
    assert intro.evidence["text"] == "retries=5"
    find(v, "I2", block="b1", key="retries", value="3", handle=CONFIG_H, evidence__change="dropped")
    ungrounded = find(v, "I1", block="b1", key="retries", value="5")
    assert ungrounded.evidence["searched"] == [CONFIG_H]
    assert v.facts["introduced"] == 1 and v.facts["dropped"] == 1


def test_format_md_example_is_rejected_as_documented():
    text = (Path(__file__).resolve().parent.parent / "docs" / "format.md").read_text(encoding="utf-8")
    example = text.split("```json\n", 1)[1].split("```", 1)[0]
    edit = parse_edit(example)
    v = Gate(store_with({})).check_edit(edit)
    find(v, "I2", key="retries", value="5", evidence__change="introduced")
    find(v, "I2", key="retries", value="3", evidence__change="dropped")
    find(v, "I1", block="b1", key="retries", value="5")


def test_reclassify_does_not_apply_when_the_drift_is_also_ungrounded():
    # retries=5 occurs in no source: I1 fails too, and the seed forbids reclassifying then
    pre, post = _drift()
    v = gate_for({CONFIG_H: CONFIG}).check(pre, post, operator="rewrite", policy="reclassify")
    assert v.reclassified is False
    find(v, "I1", key="retries", value="5")
    assert all(not b.derived for b in v.window)


def test_reclassify_turns_a_grounded_semantic_rewrite_into_a_derived_block():
    # the rewrite "fixed" the value from a second config output: every fact is grounded in the
    # block's (new) handles, but a lossless rewrite may not change a value (I2). Reclassified,
    # it is a lossy edit with the block tagged derived from its handles.
    later = "retries=5\nbackoff=2s\n"
    sources = {CONFIG_H: CONFIG, "tool:call_8850": later}
    pre = [tool("b1", CONFIG_H, CONFIG), tool("b3", "tool:call_8850", later)]
    post = [blk("b1", "tool", CONFIG.replace("retries=3", "retries=5"), [CONFIG_H, "tool:call_8850"]), pre[1]]
    g = gate_for(sources)
    rejected = g.check(pre, post, operator="rewrite")
    find(rejected, "I2", block="b1", key="retries", value="3", evidence__change="dropped")
    assert invariants(rejected) == {"I2"}

    v = g.check(pre, post, operator="rewrite", policy="reclassify")
    assert v.accepted and v.reclassified, v.to_json()
    assert v.classification == "lossy"
    b1 = v.window.get("b1")
    assert b1.derived is True
    assert b1.derived_from == (CONFIG_H, "tool:call_8850")
    assert b1.text == post[0]["text"]
    assert v.window.get("b3") == parse_edit({"operator": "prune", "pre": [], "post": [pre[1]]}).post[0]


def test_reclassify_does_not_apply_when_i3_also_fails():
    # a rewrite that drops a fact (I2 only, on its own) and cites a tool call never persisted
    pre = [tool("b1", CONFIG_H, CONFIG)]
    post = [blk("b1", "tool", "retries=3\ntimeout=30s\nsee [src:call_9999]\n", [CONFIG_H])]
    g = gate_for({CONFIG_H: CONFIG})
    v = g.check(pre, post, operator="rewrite", policy="reclassify")
    assert not v.accepted and v.reclassified is False
    find(v, "I3", block="b1", handle="call_9999")
    find(v, "I2", block="b1", key="endpoint", evidence__change="dropped")


def test_reclassify_does_not_apply_when_i4_also_fails():
    # the rewrite restates the older read's value over the newer read (I2 and I4)
    pre = _reads()
    post = [pre[0], pre[1], tool("r2", NEW_H, READ_NEW.replace("BACKOFF_MS = 400", "BACKOFF_MS = 250"),
                                 ts=200.0, resource=RESOURCE) | {"handles": [NEW_H, OLD_H]}]
    v = gate_for(READ_SOURCES).check(pre, post, operator="rewrite", policy="reclassify")
    assert not v.accepted and not v.reclassified
    assert "I4" in invariants(v)


def test_whitespace_only_normalize_formatting_rewrite_is_accepted():
    pre, _ = _drift()
    post = [tool("b1", CONFIG_H, "retries=3   \r\ntimeout=30s\t\r\nendpoint=https://api.internal.example/v2\n\n"),
            pre[1]]
    v = gate_for({CONFIG_H: CONFIG}).check(pre, post, operator="rewrite")
    assert_accepted(v, "structural")


def test_corpus_drift_edit_is_rejected_and_not_reclassified():
    w = corpus.make_window(20_000, seed=1)
    edit = parse_edit(corpus.drift_edit(w))
    v = Gate(store_with({}), policy="reclassify").check_edit(edit)
    assert not v.accepted and not v.reclassified
    find(v, "I2", key="retries", value=corpus.DRIFTED_RETRIES, evidence__change="introduced")
    find(v, "I1", key="retries", value=corpus.DRIFTED_RETRIES)


@pytest.mark.parametrize("make, classification", [
    (lambda w: corpus.prune_edit(w), "lossless"),
    (lambda w: corpus.rewrite_edit(w), "lossless"),
], ids=["prune", "rewrite"])
@pytest.mark.parametrize("seed", [0, 3])
def test_corpus_edits_meant_to_be_accepted_are_accepted(make, classification, seed):
    w = corpus.make_window(20_000, seed=seed)
    v = Gate(store_with({})).check_edit(parse_edit(make(w)))
    assert_accepted(v, classification)


# -- (3) citation-marker erosion over summarize cycles -----------------------------------------

N_FACTS = 34
LOG_H = "tool:call_8841"
LOG = "".join(f"param_{i:02d}={100 + i}\n" for i in range(N_FACTS))
# markers left after cycles 1..6: 100% after cycle 1, 71% after cycle 3, 12% after cycle 6
MARKERS_AFTER = [34, 29, 24, 17, 10, 4]


def _summary_with_markers(sid: str, n_markers: int) -> dict:
    parts = []
    for i in range(N_FACTS):
        parts.append(f"param_{i:02d}={100 + i}" + (" [src:call_8841]" if i < n_markers else "") + ".")
    return summary(sid, " ".join(parts) + "\n", [LOG_H])


def _decay_cycles(gate: Gate, counts: list[int]):
    verdicts = []
    pre = [_summary_with_markers("s0", N_FACTS)]
    for cycle, n in enumerate(counts, start=1):
        post = [_summary_with_markers(f"s{cycle}", n)]
        verdicts.append(gate.check(pre, post, operator="summarize"))
        pre = post  # the (ungated) compactor carries on from its own output
    return verdicts


def test_marker_decay_is_rejected_cycle_by_cycle_and_history_holds_the_curve():
    g = gate_for({LOG_H: LOG})
    verdicts = _decay_cycles(g, MARKERS_AFTER)
    previous = N_FACTS
    for v, n in zip(verdicts, MARKERS_AFTER):
        expected = n / previous
        assert v.retention == pytest.approx(expected)
        if expected >= 0.95:
            assert_accepted(v, "lossy")
        else:
            i5 = find(v, "I5")
            assert i5.evidence["pre_markers"] == previous and i5.evidence["post_markers"] == n
            assert i5.evidence["floor"] == 0.95
            assert invariants(v) == {"I5"}
        previous = n
    history = g.history
    assert [h.cycle for h in history] == [1, 2, 3, 4, 5, 6]
    assert [h.accepted for h in history] == [True, False, False, False, False, False]
    assert [h.retention for h in history] == pytest.approx([1.0, 29 / 34, 24 / 29, 17 / 24, 10 / 17, 4 / 10])
    assert all(h.operator == "summarize" for h in history)
    assert [h.violations.get("I5", 0) for h in history] == [0, 1, 1, 1, 1, 1]


def test_marker_decay_curve_falls_from_100_to_71_to_12_percent_when_only_observed():
    g = gate_for({LOG_H: LOG}, retention_floor=0.0)
    verdicts = _decay_cycles(g, MARKERS_AFTER)
    assert all(v.accepted for v in verdicts)
    curve = [h.cumulative_retention for h in g.history]
    assert curve[0] == pytest.approx(1.0)
    assert curve[2] == pytest.approx(0.71, abs=0.01)
    assert curve[5] == pytest.approx(0.12, abs=0.01)
    assert curve == sorted(curve, reverse=True)
    assert curve[5] == pytest.approx(math.prod(h.retention for h in g.history))
    assert [h.to_json()["cumulative_retention"] for h in g.history] == curve


def test_a_flat_retention_line_at_or_above_the_floor_is_accepted_every_cycle():
    g = gate_for({LOG_H: LOG})
    verdicts = _decay_cycles(g, [N_FACTS] * 6)
    assert all(v.accepted for v in verdicts)
    assert [h.retention for h in g.history] == pytest.approx([1.0] * 6)
    assert g.history[-1].cumulative_retention == pytest.approx(1.0)


def test_retention_exactly_at_the_floor_passes_and_just_below_fails():
    g = gate_for({LOG_H: LOG})
    pre = [_summary_with_markers("s0", 20)]
    # markers per fact 20/34 -> 19/34 is 0.95 exactly
    at = g.check(pre, [_summary_with_markers("s1", 19)], operator="summarize")
    assert at.retention == pytest.approx(0.95)
    assert_accepted(at)
    below = g.check(pre, [_summary_with_markers("s1", 18)], operator="summarize")
    assert below.retention == pytest.approx(0.9)
    find(below, "I5")


# -- (4) handle invalidation: a summary of a pruned, never persisted tool output --------------

TOOL_OUT = "GET /v2/orders -> 200 in 250ms; 12 rows; cursor=9f1c2ab\n"


def test_summary_derived_from_a_pruned_never_persisted_handle_is_rejected_by_i3():
    pre = [tool("t1", "tool:call_8841", TOOL_OUT),
           summary("s1", "The orders call returned 12 rows in 250ms.\n", ["tool:call_8841"])]
    post = [pre[1]]
    g = Gate(store_with({}))  # the tool output lived only in the window
    v = g.check(pre, post, operator="prune", evicted=["tool:call_8841"])
    i3 = find(v, "I3", block="s1", handle="tool:call_8841", evidence__field="derived_from")
    assert "durable store" in i3.message


def test_summary_derived_from_a_persisted_handle_survives_the_prune():
    pre = [tool("t1", "tool:call_8841", TOOL_OUT),
           summary("s1", "The orders call returned 12 rows in 250ms.\n", ["tool:call_8841"])]
    v = gate_for({"tool:call_8841": TOOL_OUT}).check(pre, [pre[1]], operator="prune", evicted=["tool:call_8841"])
    assert_accepted(v, "lossless")


def test_a_marker_citing_a_never_persisted_tool_call_is_rejected_by_i3():
    pre = [blk("a1", "assistant", "It returned 12 rows [src:call_8841].\n")]
    post = [blk("a1", "assistant", "It returned 12 rows [src:call_8841].\n")]
    v = Gate(store_with({})).check(pre, post, operator="reorder")
    find(v, "I3", block="a1", handle="call_8841", key="citation", value="call_8841")


# -- compaction seed: pointers are positional, not nominal ------------------------------------

DOC_H = "doc:doc_7"
DOC = (
    "Section 4. Retention.\n"
    "Backups are kept for 35 days in region eu-west-1.\n"
    "Restores must be tested every 90 days by the on-call engineer.\n"
)
SUMMARY = "Backups: 35 days, restores tested every 90 days.\n"


def _pointer_edit(pointer: dict) -> tuple[list, list]:
    pre = [tool("d7", DOC_H, DOC)]
    post = [summary("s1", SUMMARY, [DOC_H])]
    return pre, post


@pytest.mark.parametrize("algo", ["blake3", "sha256"])
def test_a_pointer_into_the_original_bytes_is_accepted(algo):
    p = pointer_to("s1", DOC_H, DOC, "Restores must be tested every 90 days", algo=algo)
    pre, post = _pointer_edit(p)
    v = gate_for({DOC_H: DOC}).check(pre, post, operator="summarize", pointers=[p])
    assert_accepted(v, "lossy")


def test_a_pointer_re_anchored_onto_the_summary_fails_closed_with_span_mismatch():
    # the summarizer recomputed the range against its own buffer: label kept, offsets of the
    # summary, hash of the summary's bytes
    start, end = byte_span(SUMMARY, "restores tested every 90 days")
    p = {"block": "s1", "handle": DOC_H, "start": start, "end": end,
         "hash": blake3_of(SUMMARY.encode()[start:end])}
    pre, post = _pointer_edit(p)
    v = gate_for({DOC_H: DOC}).check(pre, post, operator="summarize", pointers=[p])
    bad = find(v, "P", block="s1", handle=DOC_H, evidence__reason="span_mismatch")
    assert bad.evidence["start"] == start and bad.evidence["end"] == end
    assert invariants(v) == {"P"}


def test_a_pointer_naming_the_summary_instead_of_the_source_does_not_resolve():
    p = {"block": "s1", "handle": "summary:s1", "start": 0, "end": 8, "hash": blake3_of(SUMMARY.encode()[:8])}
    pre, post = _pointer_edit(p)
    v = gate_for({DOC_H: DOC}).check(pre, post, operator="summarize", pointers=[p])
    find(v, "P", block="s1", handle="summary:s1", evidence__reason="unknown_handle")
    find(v, "I3", handle="summary:s1", evidence__field="pointers")


# -- compaction seed: preserve-or-evict, and a guarantee that must hold on the second pass -----

PIN_H = "doc:doc_7"


def test_a_pinned_retrieval_linked_block_summarized_in_this_pass_is_rejected():
    pre = [tool("d7", PIN_H, DOC, pinned=True), blk("a1", "assistant", REMARK)]
    post = [summary("s1", SUMMARY, [PIN_H]), pre[1]]
    v = gate_for({PIN_H: DOC}).check(pre, post, operator="summarize")
    find(v, "R", block="s1", handle=PIN_H)
    find(v, "R", block="d7")  # and the pinned block itself is neither kept nor evicted


def test_a_pinned_block_evicted_wholesale_with_a_record_is_accepted():
    pre = [tool("d7", PIN_H, DOC, pinned=True), blk("a1", "assistant", REMARK)]
    v = gate_for({PIN_H: DOC}).check(pre, [pre[1]], operator="evict", evicted=[PIN_H])
    assert_accepted(v, "lossless")


def test_pins_are_sticky_a_second_pass_may_not_summarize_what_the_first_preserved():
    g = gate_for({PIN_H: DOC, "tool:call_1": TOOL_OUT})
    first_pre = [tool("d7", PIN_H, DOC, pinned=True), tool("t1", "tool:call_1", TOOL_OUT)]
    first = g.check(first_pre, [first_pre[0]], operator="prune", evicted=["tool:call_1"])
    assert_accepted(first)
    # the secondary compaction cascade: the compactor lost the pin flag and summarizes the span
    second_pre = [tool("d7", PIN_H, DOC, pinned=False)]
    second_post = [summary("s1", SUMMARY, [PIN_H])]
    second = g.check(second_pre, second_post, operator="summarize")
    find(second, "R", block="s1", handle=PIN_H)
    # a gate without that session's memory cannot know: the pin lives in the session
    fresh = gate_for({PIN_H: DOC}).check(second_pre, second_post, operator="summarize")
    assert_accepted(fresh, "lossy")


def test_a_kept_pinned_block_may_not_lose_its_pin():
    pre = [tool("d7", PIN_H, DOC, pinned=True)]
    post = [tool("d7", PIN_H, DOC, pinned=False)]
    v = gate_for({PIN_H: DOC}).check(pre, post, operator="reorder")
    pin = find(v, "R", block="d7")
    assert "pin was removed" in pin.message


# -- dedupe: byte-identical duplicates are structural; dropping a duplicate's handle is not -----

LISTING = "total 3\n-rw-r--r-- 1 dev dev 2048 src/app/client.py\n-rw-r--r-- 1 dev dev 512 setup.cfg\n"


def test_dedupe_of_byte_identical_duplicates_with_one_handle_is_structural():
    pre = [tool("t1", "tool:call_1", LISTING), blk("a1", "assistant", REMARK), tool("t2", "tool:call_1", LISTING)]
    v = gate_for({"tool:call_1": LISTING}).check(pre, [pre[0], pre[1]], operator="dedupe")
    assert_accepted(v, "structural")


def test_dedupe_where_the_kept_copy_already_carries_the_duplicates_handle_is_structural():
    pre = [blk("t1", "tool", LISTING, ["tool:call_1", "tool:call_2"]), tool("t2", "tool:call_2", LISTING)]
    v = gate_for({"tool:call_1": LISTING, "tool:call_2": LISTING}).check(pre, [pre[0]], operator="dedupe")
    assert_accepted(v, "structural")


def test_dedupe_that_moves_the_duplicates_handle_onto_the_kept_copy_is_lossless():
    # docs/gate.md: structural needs "no block's handles changed"; t1 gained tool:call_2
    pre = [tool("t1", "tool:call_1", LISTING), tool("t2", "tool:call_2", LISTING)]
    post = [blk("t1", "tool", LISTING, ["tool:call_1", "tool:call_2"])]
    v = gate_for({"tool:call_1": LISTING, "tool:call_2": LISTING}).check(pre, post, operator="dedupe")
    assert_accepted(v, "lossless")


def test_dedupe_that_drops_a_duplicates_handle_is_rejected():
    pre = [tool("t1", "tool:call_1", LISTING), tool("t2", "tool:call_2", LISTING)]
    v = gate_for({"tool:call_1": LISTING, "tool:call_2": LISTING}).check(pre, [pre[0]], operator="dedupe")
    find(v, "I2", block="t2", handle="tool:call_2", evidence__change="handle dropped")
    assert v.facts["dropped"] == 0  # the text survives; only the way back to call_2 is lost


def test_dedupe_that_records_the_dropped_duplicates_handle_is_accepted_but_not_structural():
    pre = [tool("t1", "tool:call_1", LISTING), tool("t2", "tool:call_2", LISTING)]
    v = gate_for({"tool:call_1": LISTING, "tool:call_2": LISTING}).check(pre, [pre[0]], operator="dedupe",
                                                                        evicted=["tool:call_2"])
    assert_accepted(v, "lossless")


def test_dedupe_of_near_duplicates_is_not_structural_and_loses_facts():
    # the seed's "collapsing two near-duplicate tool outputs into one"
    other = LISTING.replace("512 setup.cfg", "640 setup.cfg")
    pre = [tool("t1", "tool:call_1", LISTING), tool("t2", "tool:call_2", other)]
    post = [blk("t1", "tool", LISTING, ["tool:call_1", "tool:call_2"])]
    v = gate_for({"tool:call_1": LISTING, "tool:call_2": other}).check(pre, post, operator="dedupe")
    find(v, "I2", block="t2", key="number", value="640", evidence__change="dropped")
