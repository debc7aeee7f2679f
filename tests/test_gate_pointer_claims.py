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


# red team 115, F06: a marker claims a pointer's source only for a statement grounded there ---------

def _claim(text: str, derived_from=(A,), ptr=None):
    post = [summary("s", text, list(derived_from)), tool("b", B, SB)]
    return gate_for(SOURCES).check(PRE, post, operator="summarize",
                                   pointers=[ptr or pointer_to("s", B, SB, "retries=5")])


def test_a_marker_closing_a_sentence_that_holds_nothing_of_its_source_claims_no_pointer():
    for text in ("Alpha retries 3 times [src:cfgB].\n",
                 "Alpha retries 3 times [src:tool:cfgB].\n",
                 "Alpha retries 3 times. [src:cfgB]\n",
                 "Beta retries=5 [src:cfgA]. Alpha retries 3 times [src:cfgB].\n"):
        v = _claim(text)
        assert not v.accepted, text
        find(v, "P", block="s", handle=B, evidence__reason="unclaimed_handle")


def test_a_bare_marker_on_a_line_of_its_own_claims_no_pointer():
    for text in ("Alpha retries 3 times.\n[src:cfgB]\n", "Alpha retries 3 times\n[src:cfgB]\n",
                 "[src:cfgB]\nAlpha retries 3 times.\n"):
        find(_claim(text), "P", block="s", handle=B, evidence__reason="unclaimed_handle")


def test_a_marker_after_its_sentence_with_the_sources_fact_claims_the_pointer():
    for text in ("Alpha retries 3 times; beta retries=5 [src:cfgB].\n",
                 "Alpha retries 3 times. Beta retries=5. [src:cfgB]\n",
                 "Beta retries=5 [src:cfgA][src:cfgB]. Alpha retries 3 times.\n",
                 "Beta timeout=90s [src:cfgB]. Alpha retries 3 times.\n",
                 "Beta retries 5 times [src:cfgB], alpha 3 times.\n"):
        assert_accepted(_claim(text), "lossy")


def test_a_marker_claims_a_pointer_into_its_source_on_a_rewrite_only_with_a_grounded_statement():
    kept = summary("s", "Alpha retries 3 times.\n", [A])
    p = pointer_to("s", B, SB, "retries=5")
    for text, ok in (("Alpha retries 3 times.\n[src:cfgB]\n", False), ("Alpha retries 3 times. [src:cfgB]\n", False),
                     ("Alpha retries 3 times, beta retries=5 [src:cfgB].\n", True)):
        v = gate_for(SOURCES).check([*PRE, kept], [*PRE, summary("s", text, [A])], operator="rewrite", pointers=[p])
        if ok:
            assert not of(v, "P"), text
        else:
            find(v, "P", block="s", handle=B, evidence__reason="unclaimed_handle")


def test_marker_statements_are_cut_at_the_previous_marker_or_sentence_end():
    from provgate.facts import extract
    from provgate.gate import _KIND_CITATION, _marker_statements

    def cut(text: str) -> list[tuple[str, str]]:
        data = text.encode()
        return [(n, data[a:b].decode()) for n, a, b in _marker_statements(extract(data), _KIND_CITATION)]

    assert cut("One. Two x=1 [src:a], three [src:b]\n") == [("a", " Two x=1 "), ("b", ", three ")]
    assert cut("One x=1. [src:a]\n") == [("a", "One x=1. ")]
    assert cut("One. Two x=2. [src:a]\n") == [("a", " Two x=2. ")]
    assert cut("One x=1.\n[src:a]\n") == [("a", "")]
    assert cut("[src:a] one\n") == [("a", "")]
    assert cut("One x=1 [src:a] [src:b].\n") == [("a", "One x=1 "), ("b", "One x=1 ")]
    assert cut("One x=1 [src:a]\n[src:b]\n") == [("a", "One x=1 "), ("b", "")]


def test_the_marker_claim_is_asked_once_per_block_and_handle(monkeypatch):
    # linear: 200 pointers of one block into one cited source read its statements once (counted)
    import provgate.gate as gate_module

    calls: list[str] = []
    real = gate_module._Check._rows_grounded_in

    def counting(self, t, keep, h):
        calls.append(h)
        return real(self, t, keep, h)

    monkeypatch.setattr(gate_module._Check, "_rows_grounded_in", counting)
    text = "Alpha retries 3 times; beta retries=5 [src:cfgB].\n"
    post = [summary("s", text, [A]), tool("b", B, SB)]
    ptrs = [pointer_to("s", B, SB, "retries=5"), pointer_to("s", B, SB, "timeout=90s")] * 100
    assert_accepted(gate_for(SOURCES).check(PRE, post, operator="summarize", pointers=ptrs), "lossy")
    assert calls == [B]


def test_the_literal_search_of_a_claim_is_bounded(monkeypatch):
    # thousands of rows before one marker, none of them in the cited source's sets: only the last
    # _CLAIM_LITERAL_ROWS are searched for literally in it (counted, not timed)
    import provgate.gate as gate_module

    sizes: list[int] = []
    real = gate_module.ungrounded_rows

    def counting(tables, *args, **kwargs):
        sizes.extend(len(t.kind) for t in tables)
        return real(tables, *args, **kwargs)

    n = 3000
    sa = "".join(f"k{i}={100000 + 7 * i}\n" for i in range(n))
    text = ", ".join(f"k{i} is {100000 + 7 * i}" for i in range(n)) + " [src:cfgB].\n"
    monkeypatch.setattr(gate_module, "ungrounded_rows", counting)
    g = gate_for({A: sa, B: SB})
    v = g.check([tool("a", A, sa), tool("b", B, SB)], [summary("s", text, [A]), tool("b", B, SB)],
                operator="summarize", pointers=[pointer_to("s", B, SB, "retries=5")])
    find(v, "P", block="s", handle=B, evidence__reason="unclaimed_handle")
    assert gate_module._CLAIM_LITERAL_ROWS in sizes  # the claim's one call


def _summary_pointing_into_b(text: str):
    """The verdict on a summary of cfgA saying ``text``, with a pointer into cfgB's retries=5."""
    post = [summary("s", text, [A]), tool("b", B, SB)]
    return gate_for(SOURCES).check(PRE, post, operator="summarize", pointers=[pointer_to("s", B, SB, "retries=5")])


# red team 117, F24: a marker that leads its statement claims what follows it

def test_a_marker_leading_its_statement_claims_what_follows_it():
    for text in ["Alpha retries 3 times. Per [src:cfgB], beta retries=5.\n",
                 "Alpha retries 3 times. According to [src:cfgB]: beta retries=5.\n",
                 "Alpha retries 3 times. [src:cfgB] Beta retries=5.\n",
                 "[src:cfgB] Beta retries=5.\n"]:
        v = _summary_pointing_into_b(text)
        assert_accepted(v, "lossy")


def test_a_marker_ending_its_sentence_leads_nothing_after_it():
    # what follows the sentence a marker ends is no statement of that marker's (rt115 F06 held)
    for text in ["Alpha retries 3 times [src:cfgB]. Beta retries=5.\n",
                 "Alpha retries 3 times [src:cfgB]\nBeta retries=5.\n",
                 "Per [src:cfgB], alpha retries 3 times. Beta retries=5.\n",
                 "Per [src:cfgA], beta retries=5.\n"]:
        v = _summary_pointing_into_b(text)
        find(v, "P", block="s", handle=B, evidence__reason="unclaimed_handle")


def test_a_marker_whose_own_statement_states_something_leads_nothing():
    # red team 118, F26: the lead was asked beside a statement that states something, so a fact
    # of the cited source after the marker ("in 5 regions") claimed the pointer
    for text in ["Alpha retries 3 times [src:cfgB] in 5 regions.\n",
                 "Alpha retries 3 times [src:cfgB] (5 max).\n"]:
        v = _summary_pointing_into_b(text)
        find(v, "P", block="s", handle=B, evidence__reason="unclaimed_handle")


def test_a_marker_mid_sentence_leads_only_after_a_lead_in():
    # red team 119, F03: a marker closing words that state no fact ("thrice", "a lot") led the
    # sentence's tail, whose "5" claimed the pointer into cfgB's retries=5
    for text in ["Alpha retries thrice [src:cfgB] in 5 regions.\n",
                 "Alpha retries a lot [src:cfgB] in 5 regions.\n",
                 "Alpha retries often [src:cfgB] (5 max).\n",
                 # red team 120, F04: a lead-in after a claim of its own, or no aside closed after it
                 "Alpha retries thrice, per [src:cfgB] in 5 regions.\n",
                 "Alpha retries thrice (see [src:cfgB]) in 5 regions.\n",
                 "Alpha retries thrice in [src:cfgB] 5 regions.\n",
                 "Alpha retries thrice from [src:cfgB]: 5 regions.\n",
                 "Alpha retries thrice via [src:cfgB], 5 regions.\n"]:
        v = _summary_pointing_into_b(text)
        find(v, "P", block="s", handle=B, evidence__reason="unclaimed_handle")
    # a lead-in among the three words before it: the marker leads what follows
    for text in ["Beta, per its config [src:cfgB], has retries=5.\n",
                 "As noted in [src:cfgB], beta retries=5.\n",
                 "Beta (see [src:cfgB]) retries=5.\n",
                 "According to [src:cfgB]: beta retries=5.\n"]:
        v = _summary_pointing_into_b(text)
        assert_accepted(v, "lossy")


def test_a_lead_in_opening_its_sentence_or_after_a_subject_of_function_words_leads():
    # red team 121, F05: honest leads refused once the lead-in needed at most two words before
    # it and an aside closed after the marker
    for text in ["Per [src:cfgB] beta retries=5.\n",
                 "The beta service, per [src:cfgB], retries=5.\n",
                 "For the beta service, per [src:cfgB], retries=5.\n",
                 "Beta, as noted in its config [src:cfgB], retries=5.\n",
                 "Alpha retries 3 times. According to [src:cfgB] beta retries=5.\n",
                 # a sentence wrapped after a subject alone
                 "The beta service,\nper [src:cfgB], retries=5.\n"]:
        v = _summary_pointing_into_b(text)
        assert_accepted(v, "lossy")
    # still a claim of its own before the lead-in: three words that are no function word, or
    # (red team 121, F04) a sentence wrapped before its lead-in, read as one sentence
    for text in ["Alpha retries thrice, per [src:cfgB], in 5 regions.\n",
                 "The alpha service retries thrice, per [src:cfgB], in 5 regions.\n",
                 "Alpha retries thrice\nper [src:cfgB], 5 regions.\n",
                 "Note. Alpha retries thrice\nper [src:cfgB], 5 regions.\n"]:
        v = _summary_pointing_into_b(text)
        find(v, "P", block="s", handle=B, evidence__reason="unclaimed_handle")


def test_a_lead_in_opening_its_clause_or_its_sentence_leads():
    # red team 123, F19/F18: a lead-in opening a clause after ';' or ', and', one opening its
    # sentence a few words before the marker, and a wrapped line ending in a comma
    for text in ["Alpha retries 3 times; per [src:cfgB], beta retries=5.\n",
                 "Alpha retries 3 times, and per [src:cfgB], beta retries=5.\n",
                 "Alpha retries 3 times, while per [src:cfgB] beta retries=5.\n",
                 "Per the beta config [src:cfgB], retries=5.\n",
                 "According to the beta service config [src:cfgB], retries=5.\n",
                 "Alpha keeps its defaults, and for beta,\nper [src:cfgB], retries=5.\n"]:
        assert_accepted(_summary_pointing_into_b(text), "lossy")
    # a claim in the clause before its lead-in still leads nothing
    for text in ["Alpha retries 3 times; alpha retries thrice, per [src:cfgB], in 5 regions.\n",
                 "Alpha keeps its defaults, and alpha retries thrice\nper [src:cfgB], 5 regions.\n"]:
        find(_summary_pointing_into_b(text), "P", block="s", handle=B, evidence__reason="unclaimed_handle")


def test_unwrapped_reads_the_line_a_lower_case_statement_continues():
    from provgate.gate import _unwrapped

    data = b"Intro. Alpha retries thrice\nper [src:b], 5.\n"
    assert _unwrapped(data, data.index(b"per")) == b" Alpha retries thrice "
    for data in (b"Alpha retries thrice.\nper [src:b], 5.\n", b"Alpha retries thrice\nPer [src:b], 5.\n",
                 b"\nper [src:b], 5.\n", b"Alpha: x\n  - per [src:b]: 5\n"):
        at = data.find(b"per")
        at = data.find(b"Per") if at < 0 else at
        at = data.rfind(b"\n", 0, at) + 1
        assert _unwrapped(data, at) == b"", data


def test_marker_leads_run_to_the_sentence_end_or_the_next_marker():
    from provgate.facts import extract
    from provgate.gate import _KIND_CITATION, _marker_leads

    def led(text: str) -> list[str]:
        data = text.encode()
        return [data[a:b].decode() for a, b in _marker_leads(extract(data), _KIND_CITATION)]

    assert led("Per [src:a], x=1. Two.\n") == [", x=1"]
    assert led("One x=1 [src:a].\n") == [""]
    assert led("[src:a] x=1 [src:b] y=2\n") == [" x=1 ", " y=2"]
    assert led("[src:a][src:b] x=1.\n") == [" x=1", " x=1"]
    assert led("One [src:a]\nx=1\n") == [""]
