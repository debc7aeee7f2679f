"""P: a pointer's source must be one its block accounts for (docs/gate.md, "P — pointers").

Lead 5 of red team 110's leads: a pointer was checked only against the store, so a summary of
one source could carry a pointer re-anchored onto another stored source (its hash recomputed
there) and the edit was accepted. Run natively and with PROVGATE_NO_EXTENSIONS=1."""

from __future__ import annotations

from gate_helpers import (
    assert_accepted,
    blk,
    find,
    gate_for,
    of,
    pointer_to,
    summary,
    tool,
)

A, B = "tool:cfgA", "tool:cfgB"
SA = "service alpha: retries=3\ntimeout=30s\n"
SB = "service beta: retries=5\ntimeout=90s\n"
SOURCES = {A: SA, B: SB}
PRE = [tool("a", A, SA), tool("b", B, SB)]


def test_a_summary_pointing_into_a_source_it_does_not_derive_from_is_refused():
    post = [summary("s", "Alpha retries 3 times, timeout 30s.\n", [A]), tool("b", B, SB)]
    v = gate_for(SOURCES).check(PRE, post, operator="summarize", pointers=[pointer_to("s", B, SB, "retries=5")])
    assert not v.accepted
    bad = find(v, "P", block="s", handle=B, evidence__reason="unclaimed_handle")
    assert bad.evidence["start"] == SB.index("retries=5")
    assert len(of(v, "P")) == 1


def test_a_summary_pointing_into_a_source_it_derives_from_is_accepted():
    post = [summary("s", "Alpha retries 3 times, timeout 30s.\n", [A]), tool("b", B, SB)]
    v = gate_for(SOURCES).check(PRE, post, operator="summarize", pointers=[pointer_to("s", A, SA, "retries=3")])
    assert_accepted(v, "lossy")


def test_a_summary_citing_the_source_by_marker_may_point_into_it():
    # a marker is a citation the gate grounds against: the pointer's source is accounted for
    post = [summary("s", "Alpha retries 3 times; beta retries=5 [src:cfgB].\n", [A]), tool("b", B, SB)]
    v = gate_for(SOURCES).check(PRE, post, operator="summarize", pointers=[pointer_to("s", B, SB, "retries=5")])
    assert_accepted(v, "lossy")


def test_a_marker_citing_yet_another_source_does_not_account_for_the_pointer():
    post = [summary("s", "Alpha retries 3 times [src:cfgA].\n", [A]), tool("b", B, SB)]
    v = gate_for(SOURCES).check(PRE, post, operator="summarize", pointers=[pointer_to("s", B, SB, "retries=5")])
    find(v, "P", block="s", handle=B, evidence__reason="unclaimed_handle")


def test_a_primary_block_pointing_into_another_source_is_refused_in_a_structural_edit():
    v = gate_for(SOURCES).check(PRE, PRE, operator="prune", pointers=[pointer_to("a", B, SB, "retries=5")])
    assert v.classification == "rejected"
    find(v, "P", block="a", handle=B, evidence__reason="unclaimed_handle")
    assert_accepted(gate_for(SOURCES).check(PRE, PRE, operator="prune", pointers=[pointer_to("a", A, SA, "retries=3")]),
                    "structural")


def test_a_kept_summary_citing_by_marker_in_a_structural_edit_is_accepted():
    window = [summary("s", "Beta retries=5 [src:cfgB].\n", [A]), tool("b", B, SB)]
    v = gate_for(SOURCES).check(window, window, operator="prune", pointers=[pointer_to("s", B, SB, "retries=5")])
    assert_accepted(v, "structural")
    # a tool output's marker is data, not a citation: it accounts for nothing
    window = [blk("a", "tool", SA + "see [src:cfgB]\n", [A]), tool("b", B, SB)]
    v = gate_for({**SOURCES, A: SA + "see [src:cfgB]\n"}).check(
        window, window, operator="prune", pointers=[pointer_to("a", B, SB, "retries=5")])
    find(v, "P", block="a", handle=B, evidence__reason="unclaimed_handle")


def test_a_block_declaring_no_provenance_keeps_its_pointer_unchecked_against_it():
    # limit: an assistant turn without handles has only its pointers to say where its words come from
    window = [*PRE, blk("t", "assistant", "Alpha retries 3 times.\n")]
    v = gate_for(SOURCES).check(window, window, operator="prune", pointers=[pointer_to("t", A, SA, "retries=3")])
    assert_accepted(v, "structural")


def test_byte_failures_are_reported_before_the_claim():
    # one violation per pointer: a span that does not resolve is reported as such
    post = [summary("s", "Alpha retries 3 times, timeout 30s.\n", [A]), tool("b", B, SB)]
    p = pointer_to("s", B, SB, "retries=5")
    p = p | {"start": p["start"] + 1, "end": p["end"] + 1}
    v = gate_for(SOURCES).check(PRE, post, operator="summarize", pointers=[p])
    assert [x.evidence["reason"] for x in of(v, "P")] == ["span_mismatch"]


def test_the_claim_costs_one_marker_look_up_per_pointer_outside_the_blocks_handles(monkeypatch):
    # linear: a pointer into the block's own sources never reads its markers; one outside them
    # reads them once (counted, not timed)
    import provgate.gate as gate_module

    calls: list[int] = []
    real = gate_module._Check.cited

    def counting(self, j, facts=None):
        calls.append(j)
        return real(self, j, facts)

    monkeypatch.setattr(gate_module._Check, "cited", counting)
    text = "Alpha retries 3 times; beta retries=5 [src:cfgB].\n"
    post = [summary("s", text, [A]), tool("b", B, SB)]
    own = [pointer_to("s", A, SA, "retries=3")] * 300
    v = gate_for(SOURCES).check(PRE, post, operator="summarize", pointers=own)
    assert_accepted(v, "lossy")
    before = len(calls)
    # (grounding reads the markers too: only the calls P adds are counted)
    v = gate_for(SOURCES).check(PRE, post, operator="summarize", pointers=own + [pointer_to("s", B, SB, "retries=5")] * 200)
    assert_accepted(v, "lossy")
    assert len(calls) - 2 * before == 200
