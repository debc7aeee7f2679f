"""docs/gate.md, rule by rule: the structural fast path, classification, I1-I5, P and R, each
with edits it must accept and edits it must reject (naming the violation it must carry)."""

from __future__ import annotations

import sqlite3
from typing import Any

import numpy as np
import pytest
from blake3 import blake3
from hypothesis import given, settings
from hypothesis import strategies as st

import provgate
import provgate.gate as gate_module
from provgate import _factdiff as factdiff_module
from gate_helpers import (
    assert_accepted,
    blake3_of,
    blk,
    find,
    gate_for,
    invariants,
    of,
    pointer_to,
    record_extractions,
    store_with,
    summary,
    tool,
)
from provgate.errors import InvalidArgumentError
from provgate.facts import Kind, extract
from provgate.gate import MAX_VIOLATIONS_PER_CHECK, Gate, normalize_whitespace

CONF_H = "tool:call_1"
CONF = "retries=3\ntimeout=30s\nmax_retries: 5\nendpoint=https://api.internal.example/v2\n"
HTTP_H = "tool:call_2"
HTTP = "GET /v2/orders -> 200 in 250ms; 12 rows; cursor 9f1c2ab\n"
NOTE = "It retries 3 times [src:call_1]; the orders call returned 12 rows [src:call_2].\n"
SOURCES = {CONF_H: CONF, HTTP_H: HTTP}


def window() -> list[dict]:
    return [tool("t1", CONF_H, CONF), blk("a1", "assistant", NOTE), tool("t2", HTTP_H, HTTP)]


@pytest.fixture()
def g() -> Gate:
    return gate_for(SOURCES)


# -- structural fast path and classification --------------------------------------------------


def test_reorder_is_structural(g):
    pre = window()
    v = g.check(pre, [pre[2], pre[0], pre[1]], operator="reorder")
    assert_accepted(v, "structural")
    # judged from digests alone: no fact was extracted, so no fact was counted
    assert v.facts["pre"] is None and v.facts["post"] is None
    assert v.facts["introduced"] == v.facts["dropped"] == 0


def test_identity_edit_is_structural_for_every_lossless_operator(g):
    for op in ("prune", "dedupe", "reorder", "rewrite", "evict"):
        assert_accepted(g.check(window(), window(), operator=op), "structural")


@pytest.mark.parametrize("variant", [
    CONF.replace("\n", "\r\n"),
    CONF.replace("retries=3\n", "retries=3   \t\n"),
    "\n\n" + CONF + "\n\n\n",
], ids=["crlf", "trailing-blanks", "blank-lines-around"])
def test_documented_whitespace_normalisation_is_structural(g, variant):
    pre = window()
    post = [tool("t1", CONF_H, variant), pre[1], pre[2]]
    assert normalize_whitespace(variant) == normalize_whitespace(CONF)
    assert_accepted(g.check(pre, post, operator="rewrite"), "structural")


def test_a_lone_carriage_return_is_not_normalised(g):
    # turning "\r" into a line break could start a "key: value" line, so it is a change
    pre = window()
    variant = CONF.replace("\n", "\r")
    assert normalize_whitespace(variant) != normalize_whitespace(CONF)
    assert g.check(pre, [tool("t1", CONF_H, variant), pre[1], pre[2]], operator="rewrite").classification != "structural"


def test_whitespace_inside_a_line_is_a_change_not_structural(g):
    # "retries = 3" is the same kv fact, so the rewrite is lossless, but not structural
    pre = window()
    post = [tool("t1", CONF_H, CONF.replace("retries=3", "retries = 3")), pre[1], pre[2]]
    assert normalize_whitespace(post[0]["text"]) != normalize_whitespace(CONF)
    assert_accepted(g.check(pre, post, operator="rewrite"), "lossless")


def test_leading_indentation_is_not_part_of_the_normalisation(g):
    pre = window()
    post = [tool("t1", CONF_H, "  " + CONF), pre[1], pre[2]]
    assert_accepted(g.check(pre, post, operator="rewrite"), "lossless")


DIFF_H = "tool:git_diff_3"
DIFF = '```diff\n-API_KEY_SUFFIX="x7"  \t\n+API_KEY_SUFFIX="x7"\n```\n'


def fence_value(text: str) -> str:
    (value,) = [s.value for s in extract(text) if s.kind == Kind.QUOTE and s.text.startswith("```")]
    return value


UNCLOSED = DIFF[: -len("```\n")]  # a fence never closed runs to the end of the text


@pytest.mark.parametrize("pre_text, post_text, in_no_source", [
    (DIFF, DIFF.replace('"x7"  \t\n', '"x7"\n'), True),          # the diff now shows no change
    (DIFF, DIFF.replace('"x7"  \t\n', '"x7"  \t\r\n'), True),    # \r\n inside the fence is text too
    # an unclosed fence's blank lines are inside it; its shorter text occurs in the source (as
    # its start), so only I2 sees the value change
    (UNCLOSED + "\n", UNCLOSED, False),
], ids=["trailing-blanks", "crlf", "unclosed-fence-blank-line"])
def test_whitespace_inside_a_fence_is_a_change_and_is_rejected(pre_text, post_text, in_no_source):
    # red team 11, y06: a fence's value is its lines verbatim, so this rewrite changes a quote
    # fact. It is not whitespace-matched (which would keep the pre block's facts and accept it
    # as structural); judged as a changed block it is rejected: the rewrite introduced a fence
    # value and dropped the pre one (I2), and a value that occurs in no source is ungrounded (I1)
    assert fence_value(post_text) != fence_value(pre_text)
    pre = [tool("d", DIFF_H, pre_text)]
    v = gate_for({DIFF_H: pre_text}).check(pre, [tool("d", DIFF_H, post_text)], operator="rewrite")
    assert not v.accepted and v.classification == "rejected"
    find(v, "I2", block="d", key="quote", value=fence_value(post_text))
    find(v, "I2", block="d", key="quote", value=fence_value(pre_text))
    if in_no_source:
        find(v, "I1", block="d", key="quote", value=fence_value(post_text))


def test_whitespace_around_a_fence_is_still_structural():
    # the fence lines themselves and the lines outside the fence are normalised as before
    text = "diff of the config:  \n" + DIFF
    variant = "\n" + text.replace("```diff\n", "```diff \t\r\n").replace("config:  \n", "config:\n") + "\n\n"
    assert normalize_whitespace(variant) == normalize_whitespace(text)
    pre = [tool("d", DIFF_H, text)]
    assert_accepted(gate_for({DIFF_H: text}).check(pre, [tool("d", DIFF_H, variant)], operator="rewrite"), "structural")


def test_renaming_a_block_id_with_unchanged_text_and_handles_is_structural(g):
    pre = window()
    post = [pre[0] | {"id": "t1-renamed"}, pre[1], pre[2]]
    assert_accepted(g.check(pre, post, operator="reorder"), "structural")


def test_changing_a_blocks_handles_is_not_structural(g):
    pre = window()
    post = [pre[0] | {"handles": [CONF_H, HTTP_H]}, pre[1], pre[2]]
    v = g.check(pre, post, operator="rewrite")
    assert v.classification != "structural"


def test_a_warm_gate_rechecks_a_structural_edit_without_extracting(g, monkeypatch):
    pre = window()
    post = [pre[2], pre[0], pre[1]]
    # a structural check extracts nothing, so warm the gate with a check that reads pre's facts
    g.check(pre, [pre[0], blk("a1", "assistant", NOTE.replace("It retries", "It still retries")), pre[2]],
            operator="rewrite")
    calls = record_extractions(monkeypatch)
    assert_accepted(g.check(pre, post, operator="reorder"), "structural")
    assert calls == []
    # one changed block costs one extraction, not a window's worth
    post2 = [pre[2], pre[0], blk("a1", "assistant", NOTE.replace("; the", ", and the"))]
    assert_accepted(g.check(pre, post2, operator="rewrite"), "lossless")
    assert calls == [post2[2]["text"].encode()]


def test_summarize_is_lossy_and_rejected_edits_are_classified_rejected(g):
    pre = window()
    post = [summary("s1", "Retries 3, timeout 30s; 12 rows in 250ms.\n", [CONF_H, HTTP_H]), pre[1]]
    assert_accepted(g.check(pre, post, operator="summarize"), "lossy")
    bad = [summary("s1", "Retries 4.\n", [CONF_H, HTTP_H]), pre[1]]
    v = g.check(pre, bad, operator="summarize")
    assert not v.accepted and v.classification == "rejected"


@pytest.mark.parametrize("op", ["summarize", "abstract", "compress"])
def test_every_lossy_operator_accepts_a_grounded_derived_summary(g, op):
    pre = window()
    post = [summary("s1", "Retries 3, timeout 30s [src:call_1].\n", [CONF_H]), pre[1], pre[2]]
    assert_accepted(g.check(pre, post, operator=op), "lossy")


# -- I1: provenance monotonicity -------------------------------------------------------------


def test_a_new_block_with_no_handle_no_marker_and_no_pre_version_is_rejected(g):
    pre = window()
    post = pre + [blk("a9", "assistant", "All done.\n")]
    find(g.check(pre, post, operator="rewrite"), "I1", block="a9")


def test_a_new_block_justified_by_its_marker_is_accepted(g):
    pre = window()
    post = pre + [blk("a9", "assistant", "The orders call returned 12 rows [src:call_2].\n")]
    assert_accepted(g.check(pre, post, operator="rewrite"), "lossless")


def test_an_unchanged_block_that_lost_its_last_handle_is_rejected(g):
    pre = window()
    post = [pre[0] | {"handles": []}, pre[1], pre[2]]
    v = g.check(pre, post, operator="rewrite", evicted=[CONF_H])
    lost = find(v, "I1", block="t1")
    assert lost.evidence == {"pre_handles": [CONF_H]}


def test_an_unchanged_assistant_turn_needs_no_handle(g):
    pre = [blk("a0", "assistant", "Looking at the config next.\n"), *window()]
    assert_accepted(g.check(pre, pre[::-1], operator="reorder"), "structural")


def test_a_derived_block_with_empty_derived_from_is_rejected(g):
    pre = window()
    post = [blk("s1", "summary", "Retries 3.\n", derived_from=[]), pre[1], pre[2]]
    find(g.check(pre, post, operator="summarize", evicted=[CONF_H]), "I1", block="s1")


def test_new_output_of_a_lossy_operator_must_be_tagged_derived(g):
    pre = window()
    post = [blk("s1", "summary", "Retries 3 [src:call_1].\n", [CONF_H]), pre[1], pre[2]]
    v = g.check(pre, post, operator="summarize")
    tag = find(v, "I1", block="s1")
    assert "not tagged derived" in tag.message


def test_a_fabricated_number_in_a_summary_is_ungrounded(g):
    pre = window()
    post = [summary("s1", "The orders call returned 13 rows in 250ms.\n", [HTTP_H]), pre[0], pre[1]]
    v = g.check(pre, post, operator="summarize")
    bad = find(v, "I1", block="s1", key="number", value="13")
    assert bad.evidence["searched"] == [HTTP_H]
    assert bad.evidence["text"] == "13"
    assert invariants(v) == {"I1"}


@pytest.mark.parametrize("sources", [15, 16, 40])
def test_a_summary_of_many_sources_is_grounded_in_each_of_them(sources):
    # from 16 sources on a summary's facts are looked up in the union of their sets
    # (gate._group_unions); on either side of that line a fact is grounded exactly when one of
    # the sources holds it, as a pair, and a pair no source holds is ungrounded
    src = {f"tool:c{i}": f"v{i}: {i * 7}\nport{i}: 80{i}\n" for i in range(sources)}
    pre = [tool(f"t{i}", h, text) for i, (h, text) in enumerate(src.items())]
    g = gate_for(src)
    last = sources - 1
    honest = summary("s", "".join(f"v{i}={i * 7}\n" for i in range(sources)) + f"port{last}=80{last}\n", list(src))
    assert_accepted(g.check(pre, [honest], operator="summarize"), "lossy")
    # each value is a value of some source, but not under this key: v0 holds 0, not 7
    swapped = summary("s", f"v0={7}\nv{last}={last * 7}\n", list(src))
    bad = find(g.check(pre, [swapped], operator="summarize"), "I1", block="s", key="v0", value="7")
    assert sorted(bad.evidence["searched"]) == sorted(src)
    # and a summary of two of them is grounded in those two alone
    two = summary("s", f"v0=0\nv{last}={last * 7}\n", ["tool:c0", "tool:c1"])
    find(g.check(pre, [two], operator="summarize"), "I1", block="s", key=f"v{last}")


def _searched_fifteen_texts_at_a_time(monkeypatch):
    """Make the gate ground with its groups of texts cut into pieces of 15 (the grounding's
    answer for each piece, a row ungrounded where no piece holds it): below 16 texts a row is
    searched one text at a time, as every group was before a wide one was searched once for
    all its rows."""
    one_pass = gate_module.ungrounded_rows

    def piecewise(tables, sets, haystacks, *, haystack_groups, **kw):
        left = None
        for k in range(0, max(map(len, haystack_groups), default=0) or 1, 15):
            owner, row = one_pass(tables, sets, haystacks, haystack_groups=[g[k:k + 15] for g in haystack_groups],
                                  **kw)
            found = set(zip(owner.tolist(), row.tolist()))
            left = found if left is None else left & found
        rows = sorted(left)
        return np.array([t for t, _ in rows], dtype=np.int64), np.array([r for _, r in rows], dtype=np.int64)

    monkeypatch.setattr(gate_module, "ungrounded_rows", piecewise)


def test_a_summary_of_many_sources_grounds_literally_as_one_source_at_a_time_would(monkeypatch):
    # a summary of 200 sources whose facts no source's set holds: its sources are searched once
    # for all those facts (red team 41, "v1 is 1": one at a time, 16,000 sources took 3.7 s),
    # and each fact is grounded exactly where it occurs at token boundaries in one of them, in
    # the form its kind reads (a number without the sign or the % its source gives it, a URL
    # without its query), whichever the source, as searching one source at a time grounds it
    src = {f"tool:c{i}": (f"v{i}: {i * 7}\nnote alpha{i}beta gamma-{i} delta -{i}00 {i}00% https://h/{i}?q=1 "
                          f"(see {i}) /srv/etc/{i}\n") for i in range(200)}
    pre = [tool(f"t{i}", h, text) for i, (h, text) in enumerate(src.items())]
    text = "".join(f'v{i} and "gamma-{i} delta" and "see {i})" and "ta -{i}00", alpha{i} and {i}00 and https://h/{i}, '
                   f"zz_{i} at {10 ** 9 + i}, /etc/{i}\n" for i in range(5, 200, 5))
    post = [summary("s", text, list(src))]
    passes = getattr(factdiff_module._impl, "_automaton_passes", lambda: (0, 0))
    before = passes()
    verdict = gate_for(src).check(pre, post, operator="summarize")
    made = passes()[0] - before[0]
    ungrounded = {(v.key, v.value) for v in of(verdict, "I1")}
    assert ungrounded == {(key, value) for i in range(5, 200, 5) for key, value in [
        ("quote", f"ta -{i}00"), ("identifier", f"alpha{i}"), ("number", f"{i}00"), ("url", f"https://h/{i}"),
        ("identifier", f"zz_{i}"), ("number", f"{10 ** 9 + i}"), ("path", f"/etc/{i}")]}
    assert factdiff_module.IMPLEMENTATION == "reference" or made == 1
    _searched_fifteen_texts_at_a_time(monkeypatch)
    one_at_a_time = gate_for(src).check(pre, post, operator="summarize")
    assert passes()[0] - before[0] == made  # (no pass: every piece is narrower than 16 texts)
    assert [(v.block, v.key, v.value, v.evidence) for v in verdict.violations] == [
        (v.block, v.key, v.value, v.evidence) for v in one_at_a_time.violations]


def test_a_kv_fact_is_grounded_only_by_the_same_key_value_pair(g):
    # 250ms occurs in a source, but not as timeout=250ms
    pre = window()
    post = [summary("s1", "timeout=250ms\n", [CONF_H, HTTP_H]), pre[1]]
    find(g.check(pre, post, operator="summarize"), "I1", block="s1", key="timeout", value="250ms")
    ok = [summary("s1", "timeout=30s\n", [CONF_H, HTTP_H]), pre[1]]
    assert_accepted(g.check(pre, ok, operator="summarize"))


def test_a_plain_value_is_grounded_by_a_kv_value_and_an_identifier_by_a_config_key(g):
    # `3` by retries=3, `max_retries` by `max_retries: 5`
    pre = window()
    post = [summary("s1", "It uses max_retries and retries 3 times.\n", [CONF_H]), pre[1], pre[2]]
    assert_accepted(g.check(pre, post, operator="summarize"), "lossy")


# the last: a key that does not stand at a token boundary, so only the key grounds it
@pytest.mark.parametrize("config", ["run --max_retries 5\n", "run --max_retries=5\n", '{"max_retries": 5}\n',
                                    "max_retries: 5\n", "max_retries = 5\n", "opts:max_retries=5\n"])
def test_an_identifier_naming_a_config_key_is_grounded_in_every_key_form(config):
    src = {"tool:call_9": config}
    pre = [tool("t9", "tool:call_9", config)]
    ok = [summary("s1", "It tunes max_retries.\n", ["tool:call_9"])]
    verdict = gate_for(src).check(pre, ok, operator="summarize")
    assert verdict.facts["post"] == 1  # the identifier is a fact, and it is grounded
    assert_accepted(verdict, "lossy")
    # a key the config does not set is not grounded by one spelt alike
    bad = [summary("s1", "It tunes max_retry.\n", ["tool:call_9"])]
    find(gate_for(src).check(pre, bad, operator="summarize"), "I1", block="s1", value="max_retry")


def test_literal_occurrence_must_be_at_token_boundaries():
    # 3 occurs inside 30 and v3, never as a token of its own
    src = {"tool:call_7": "timeout=30 version=v3 build 2031\n"}
    pre = [tool("t7", "tool:call_7", src["tool:call_7"])]
    bad = [summary("s1", "It retried 3 times.\n", ["tool:call_7"])]
    find(gate_for(src).check(pre, bad, operator="summarize"), "I1", block="s1", key="number", value="3")


def test_a_fact_whose_literal_text_occurs_in_the_source_is_grounded():
    # "Amanda" starts a sentence in the source, so it is no fact there, but the bytes are there
    src = {"user:u3": "Amanda asked to move the review. It starts at 5pm.\n"}
    pre = [blk("u3", "user", src["user:u3"], ["user:u3"])]
    post = [summary("s1", "The review with Amanda starts at 5pm.\n", ["user:u3"])]
    assert_accepted(gate_for(src).check(pre, post, operator="summarize"), "lossy")


def test_a_quote_must_occur_byte_exactly_in_a_source():
    src = {"doc:doc_7": "Restores must be tested every 90 days.\n"}
    pre = [tool("d7", "doc:doc_7", src["doc:doc_7"])]
    ok = [summary("s1", 'The runbook says "must be tested every 90 days".\n', ["doc:doc_7"])]
    assert_accepted(gate_for(src).check(pre, ok, operator="summarize"))
    bad = [summary("s1", 'The runbook says "must be checked every 90 days".\n', ["doc:doc_7"])]
    q = find(gate_for(src).check(pre, bad, operator="summarize"), "I1", block="s1", key="quote")
    assert q.value == "must be checked every 90 days"


def test_a_rewritten_assistant_turn_may_restate_its_pre_version(g):
    pre = window()
    post = [pre[0], blk("a1", "assistant", "The orders call returned 12 rows [src:call_2]; it retries 3 times "
                                          "[src:call_1].\n"), pre[2]]
    assert_accepted(g.check(pre, post, operator="rewrite"), "lossless")


def test_a_derived_block_is_not_grounded_by_the_pre_text_it_replaces(g):
    # a summary (same id as the assistant turn it replaces) grounds in derived_from only
    pre = [blk("a1", "assistant", "Cursor 77aa10f came back [src:call_2].\n"), tool("t2", HTTP_H, HTTP)]
    post = [blk("a1", "summary", "Cursor 77aa10f came back.\n", derived_from=[HTTP_H]), pre[1]]
    find(gate_for(SOURCES).check(pre, post, operator="summarize"), "I1", block="a1", key="digest", value="77aa10f")


def test_a_lossy_edit_that_drops_a_handle_without_record_loses_the_way_back(g):
    pre = window()
    post = [summary("s1", "Retries 3 [src:call_1].\n", [CONF_H]), pre[1]]
    # t2 is gone but a1 still cites call_2: reachable
    assert_accepted(g.check(pre, post, operator="summarize"))
    post = [summary("s1", "Retries 3 [src:call_1].\n", [CONF_H])]
    v = g.check(pre, post, operator="summarize")
    gone = find(v, "I1", handle=HTTP_H)
    assert gone.evidence == {"change": "handle dropped"}
    assert_accepted(g.check(pre, post, operator="summarize", evicted=[HTTP_H, "a1"]))


# -- I2: lossless-operator purity -------------------------------------------------------------


def test_a_rewrite_may_not_introduce_a_fact_even_a_grounded_one():
    # the pre block shows an excerpt of its source; the rewrite adds a line of the same source
    src = {CONF_H: CONF}
    pre = [blk("t1", "tool", "retries=3\n", [CONF_H])]
    post = [blk("t1", "tool", "retries=3\ntimeout=30s\n", [CONF_H])]
    g = gate_for(src)
    v = g.check(pre, post, operator="rewrite")
    find(v, "I2", block="t1", key="timeout", value="30s", evidence__change="introduced")
    assert invariants(v) == {"I2"}
    again = g.check(pre, post, operator="rewrite", policy="reclassify")
    assert again.accepted and again.reclassified and again.classification == "lossy"
    assert again.window.get("t1").derived_from == (CONF_H,)
    assert again.window.get("t1").derived is True and again.window.get("t1").handles == ()


def test_introduced_facts_are_counted_once_each_with_their_first_row_as_evidence():
    # the same new fact twice in one block and once in another is one introduced fact; two
    # different new facts are two, each reported once, at its first occurrence
    pre = [blk("t1", "tool", "retries=3\n", [CONF_H]), blk("t2", "tool", "timeout=30s\n", [CONF_H])]
    post = [blk("t1", "tool", "retries=3\nport=8080\nport=8080\n", [CONF_H]),
            blk("t2", "tool", "timeout=30s\nport=8080\nhost=db1\n", [CONF_H])]
    v = gate_for({CONF_H: CONF}).check(pre, post, operator="rewrite")
    assert v.facts["introduced"] == 2
    introduced = [x for x in of(v, "I2") if x.evidence.get("change") == "introduced"]
    assert sorted((x.block, x.key, x.value) for x in introduced) == [("t1", "port", "8080"), ("t2", "host", "db1")]
    port = find(v, "I2", key="port", evidence__change="introduced")
    assert port.evidence["span"][0] == len("retries=3\n")  # the first of the three rows


def _fact_counts(blocks: list[dict]) -> tuple[int, int]:
    """(facts, citation markers) of blocks' texts, from extraction directly."""
    tables = [extract(b["text"]) for b in blocks]
    markers = sum(int((t.kind == Kind.CITATION).sum()) for t in tables)
    return sum(len(t) for t in tables) - markers, markers


def _cited_fact_counts(blocks: list[dict]) -> tuple[int, int]:
    """(facts, citation markers) of the blocks that cite (I5's measure), from extraction."""
    return _fact_counts([b for b in blocks if b["role"] in ("assistant", "summary") and "[src:" in b["text"]])


@pytest.mark.parametrize("edit", ["prune", "copy", "copy-twice", "summary", "reorder-and-change"])
def test_fact_counts_are_the_windows_own(edit):
    # the post count is derived from pre's (removed, reused and changed blocks only): it must
    # equal a count of the post window's blocks from scratch, whatever the edit keeps twice
    pre = window() + [blk("a2", "assistant", "Quota 64 now [src:call_2].\n")]
    new = blk("n1", "assistant", "Next: 7 items [src:call_2] [src:call_1].\n")
    post = {
        "prune": [pre[1], pre[2], new],
        "copy": [pre[0], pre[1], dict(pre[1], id="a1-copy"), pre[2], pre[3], new],
        "copy-twice": [dict(pre[3], id="x1"), pre[0], dict(pre[3], id="x2"), pre[3], pre[1], pre[2], new],
        "summary": [pre[0], summary("s1", "Retries 3, 12 rows [src:call_1] [src:call_2].\n", [CONF_H, HTTP_H])],
        "reorder-and-change": [pre[3], blk("a1", "assistant", NOTE + "Also 250ms [src:call_2].\n"), pre[2], pre[0]],
    }[edit]
    operator = "summarize" if edit == "summary" else "rewrite"
    v = gate_for(SOURCES).check(pre, post, operator=operator)
    (pre_facts, pre_markers), (post_facts, post_markers) = _fact_counts(pre), _fact_counts(post)
    assert (v.facts["pre"], v.facts["post"]) == (pre_facts, post_facts)
    # I5: the markers post keeps over those pre's cited facts that survive held; here every
    # cited fact survives (a1 rewritten restates its two), so it is post's markers over pre's
    (_, pre_markers), (_, post_markers) = _cited_fact_counts(pre), _cited_fact_counts(post)
    if edit not in ("prune", "summary"):
        assert v.retention == pytest.approx(post_markers / pre_markers)


def test_a_dropped_fact_needs_an_eviction_record_or_a_supersession_edge(g):
    pre = window()
    post = [pre[1], pre[2]]
    v = g.check(pre, post, operator="prune")
    find(v, "I2", block="t1", handle=CONF_H, key="endpoint", evidence__change="dropped")
    # a1 still cites [src:call_1], so the handle itself has not left the window
    assert not any(x.evidence.get("change") == "handle dropped" for x in of(v, "I2"))
    ev = g.check(pre, post, operator="prune", evicted=[CONF_H])
    assert_accepted(ev, "lossless")
    assert ev.facts["evicted"] > 0 and ev.facts["dropped"] == 0


def test_a_fact_that_survives_elsewhere_is_not_dropped(g):
    pre = window() + [blk("a2", "assistant", "Again: 12 rows.\n")]
    v = g.check(pre, pre[:3], operator="prune")  # a2 has no handle and no fact of its own left
    assert_accepted(v, "lossless")
    assert v.facts["dropped"] == 0


def test_a_handle_less_block_with_a_unique_fact_is_recorded_by_its_id(g):
    pre = window() + [blk("a2", "assistant", "I will raise the quota to 64 next.\n")]
    v = g.check(pre, pre[:3], operator="prune")
    find(v, "I2", block="a2", key="number", value="64", evidence__change="dropped")
    assert_accepted(g.check(pre, pre[:3], operator="prune", evicted=["a2"]), "lossless")


def test_dropped_facts_are_counted_per_fact_as_a_multiset(g):
    # 64 is held by two handle-less turns: removing one copy drops nothing, removing both does
    pre = window() + [blk("a2", "assistant", "Quota 64 now.\n"), blk("a3", "assistant", "Quota 64, again.\n")]
    assert_accepted(g.check(pre, pre[:3] + [pre[4]], operator="prune"))
    assert_accepted(g.check(pre, pre[:4], operator="prune"))
    v = g.check(pre, pre[:3], operator="prune")
    find(v, "I2", key="number", value="64", evidence__change="dropped")
    assert v.facts["dropped"] == 1
    assert_accepted(g.check(pre, pre[:3], operator="prune", evicted=["a3"]))


I2_EDITS = {
    "dropped": lambda pre: ([pre[1], pre[2]], {}),
    "evicted": lambda pre: ([pre[1], pre[2]], {"evicted": [CONF_H]}),
    "superseded": lambda pre: ([pre[1], pre[2]], {"supersedes": [{"block": "t2", "handle": CONF_H}]}),
    "one-copy-left": lambda pre: (pre[:3] + [pre[4]], {}),
    "both-copies": lambda pre: (pre[:3], {}),
    # a fact held by two removed blocks is covered when either was evicted, whichever comes first
    "first-copy-evicted": lambda pre: (pre[:3], {"evicted": ["a2"]}),
    "last-copy-evicted": lambda pre: (pre[:3], {"evicted": ["a3"]}),
    "restated": lambda pre: ([blk("a1", "assistant", NOTE + "Quota 64.\n"), pre[0], pre[2]], {}),
    "changed-value": lambda pre: ([pre[2], tool("t1", CONF_H, CONF.replace("timeout=30s", "timeout=60s")), pre[1]], {}),
}


@pytest.mark.parametrize("edit", list(I2_EDITS))
def test_i2_counts_the_same_a_few_removed_facts_or_many(monkeypatch, edit):
    # a few removed facts are counted one by one, many with one pass over pre's distinct
    # facts: the verdicts must be the same either way
    pre = window() + [blk("a2", "assistant", "Quota 64 now.\n"), blk("a3", "assistant", "Quota 64, again.\n")]
    post, kw = I2_EDITS[edit](pre)
    operator = "reorder" if edit == "changed-value" else "rewrite" if edit == "restated" else "prune"

    def verdict() -> dict:
        out = gate_for(SOURCES).check(pre, post, operator=operator, **kw).to_json()
        out.pop("timings_ms")
        return out

    few = verdict()
    monkeypatch.setattr(gate_module, "_FEW_FACTS", 0)
    assert verdict() == few
    gone = few["facts"]["dropped"] + few["facts"]["evicted"] + few["facts"]["superseded"]
    assert (gone == 0) is (edit in ("one-copy-left", "restated"))
    if edit.endswith("-copy-evicted"):
        assert few["accepted"] and few["facts"]["dropped"] == 0 and few["facts"]["evicted"] >= 1


def test_evict_may_only_remove_whole_blocks(g):
    pre = window()
    post = [pre[0], blk("a1", "assistant", "It retries 3 times [src:call_1].\n")]
    v = g.check(pre, post, operator="evict", evicted=[HTTP_H])
    bad = find(v, "I2", block="a1")
    assert bad.evidence == {"operator": "evict"}
    assert_accepted(g.check(pre, [pre[0], pre[1]], operator="evict", evicted=[HTTP_H]), "lossless")


def test_a_reorder_that_changes_a_value_is_caught(g):
    pre = window()
    post = [pre[2], tool("t1", CONF_H, CONF.replace("timeout=30s", "timeout=60s")), pre[1]]
    v = g.check(pre, post, operator="reorder")
    find(v, "I2", key="timeout", value="60s", evidence__change="introduced")
    find(v, "I2", key="timeout", value="30s", evidence__change="dropped")


def test_a_supersession_edge_covers_a_dropped_fact(g):
    pre = window()
    post = [pre[1], pre[2]]
    v = g.check(pre, post, operator="prune", supersedes=[{"block": "t2", "handle": CONF_H}])
    assert_accepted(v, "lossless")
    assert v.facts["superseded"] > 0


# -- I3: handle durability --------------------------------------------------------------------


@pytest.mark.parametrize("where", ["handles", "derived_from", "supersedes", "pointers", "evicted"])
def test_every_kind_of_reference_must_resolve_in_the_store(g, where):
    pre = window()
    ghost = "tool:call_404"
    kw: dict = {}
    post = list(pre)
    op = "rewrite"
    if where == "handles":
        post = [pre[0] | {"handles": [CONF_H, ghost]}, pre[1], pre[2]]
    elif where == "derived_from":
        post = [summary("s1", "Retries 3.\n", [CONF_H, ghost]), pre[1], pre[2]]
        op = "summarize"
    elif where == "supersedes":
        kw["supersedes"] = [{"block": "t1", "handle": ghost}]
    elif where == "pointers":
        kw["pointers"] = [{"block": "t1", "handle": ghost, "start": 0, "end": 1, "hash": blake3_of(b"r")}]
    else:
        kw["evicted"] = [ghost]
    v = g.check(pre, post, operator=op, **kw)
    find(v, "I3", handle=ghost, evidence__field=where)


def test_a_handle_held_only_by_the_window_does_not_resolve():
    pre = [tool("t1", CONF_H, CONF)]
    v = Gate(store_with({})).check(pre, pre, operator="reorder")
    find(v, "I3", block="t1", handle=CONF_H, evidence__field="handles")


def test_an_ambiguous_marker_is_rejected_and_a_full_handle_marker_is_not():
    src = {"tool:call_5": "rows=12\n", "doc:call_5": "rows=12\n"}
    amb = [tool("t5", "tool:call_5", "rows=12\n"), blk("a1", "assistant", "Twelve rows [src:call_5].\n")]
    v = gate_for(src).check(amb, amb[::-1], operator="reorder")
    bad = find(v, "I3", block="a1", handle="call_5", key="citation", value="call_5")
    assert sorted(bad.evidence["candidates"]) == ["doc:call_5", "tool:call_5"]
    full = [amb[0], blk("a1", "assistant", "Twelve rows [src:tool:call_5].\n")]
    assert_accepted(gate_for(src).check(full, full[::-1], operator="reorder"), "structural")


def test_an_eviction_record_naming_an_unknown_handle_is_rejected(g):
    pre = window()
    v = g.check(pre, pre[:2], operator="prune", evicted=[HTTP_H, "tool:call_9999"])
    i3 = find(v, "I3", handle="tool:call_9999", evidence__field="evicted")
    assert i3.block is None


def test_an_eviction_record_by_id_of_a_handle_less_block_is_not_a_handle(g):
    pre = window() + [blk("a2", "assistant", "Quota goes to 64.\n")]
    assert_accepted(g.check(pre, pre[:3], operator="prune", evicted=["a2"]))


# -- I4: freshness ordering (the refinement and the rules not covered by the seed file) --------

A_H, B_H = "tool:call_21", "tool:call_22"
READ_A = "retries=3\ntimeout=30s\n"
READ_B = "retries=5\ntimeout=30s\n"
R_SRC = {A_H: READ_A, B_H: READ_B}


def reads(resource: str | None = "file:conf/app.ini") -> list[dict]:
    return [tool("ra", A_H, READ_A, ts=1.0, resource=resource), tool("rb", B_H, READ_B, ts=2.0, resource=resource)]


def test_a_summary_restating_the_stale_value_of_a_re_read_file_is_rejected():
    pre = reads()
    post = [summary("s1", "The config sets retries=3 and timeout=30s.\n", [A_H, B_H])]
    v = gate_for(R_SRC).check(pre, post, operator="summarize")
    stale = find(v, "I4", block="ra", key="retries", value="3")
    assert stale.evidence["newer_value"] == "5" and stale.evidence["newer_block"] == "rb"
    assert stale.evidence["resource"] == "file:conf/app.ini"
    assert "I1" not in invariants(v)  # retries=3 is grounded: the older read says it


def test_a_stale_value_two_older_reads_share_is_reported_from_the_first_with_its_own_span():
    # the stale retries=3 sits at another row in each older read: the evidence must be the
    # first read's own span (a row of one read looked up in the other's table is wrong or
    # out of range)
    older = {"tool:call_20": "retries=3\n", A_H: "mode=fast\nname=app\nretries=3\ntimeout=30s\n"}
    pre = [tool("r0", "tool:call_20", older["tool:call_20"], ts=0.5, resource="file:conf/app.ini"),
           tool("ra", A_H, older[A_H], ts=1.0, resource="file:conf/app.ini"),
           tool("rb", B_H, READ_B, ts=2.0, resource="file:conf/app.ini")]
    post = [summary("s1", "The config sets retries=3.\n", ["tool:call_20", A_H, B_H])]
    v = gate_for({**older, B_H: READ_B}).check(pre, post, operator="summarize")
    stale = find(v, "I4", block="r0", key="retries", value="3")
    assert stale.evidence["newer_value"] == "5" and stale.evidence["newer_block"] == "rb"
    assert len([x for x in v.violations if x.invariant == "I4"]) == 1


@pytest.mark.parametrize("text", ["The config sets retries=5 and timeout=30s.\n",
                                  "retries=3 until the edit, now retries=5.\n"], ids=["newer", "both"])
def test_a_summary_restating_the_newer_value_or_both_is_accepted(text):
    post = [summary("s1", text, [A_H, B_H])]
    assert_accepted(gate_for(R_SRC).check(reads(), post, operator="summarize"), "lossy")


def test_different_values_of_one_key_in_unrelated_outputs_are_not_a_conflict():
    # docs/gate.md refinement: without a resource the gate cannot tell a stale read
    pre = reads(resource=None)
    v = gate_for(R_SRC).check(pre, [pre[0]], operator="prune", evicted=[B_H])
    assert_accepted(v, "lossless")


def test_two_reads_of_one_resource_with_equal_content_are_not_a_conflict():
    src = {A_H: READ_A, B_H: READ_A}
    pre = [tool("ra", A_H, READ_A, ts=1.0, resource="file:conf/app.ini"),
           tool("rb", B_H, READ_A, ts=2.0, resource="file:conf/app.ini")]
    assert_accepted(gate_for(src).check(pre, [pre[0]], operator="dedupe", evicted=[B_H]))


def test_an_older_read_may_leave_through_a_derived_block_that_derives_from_it():
    pre = reads()
    post = [summary("s0", "Earlier read: timeout=30s.\n", [A_H]), pre[1]]
    assert_accepted(gate_for(R_SRC).check(pre, post, operator="summarize"))


def test_a_supersession_edge_must_name_a_post_block():
    pre = reads()
    v = gate_for(R_SRC).check(pre, [pre[1]], operator="prune", supersedes=[{"block": "zz", "handle": A_H}])
    find(v, "I4", block="zz", handle=A_H)


def test_with_three_reads_each_dropped_older_read_needs_its_own_record():
    c_h = "tool:call_23"
    src = dict(R_SRC, **{c_h: "retries=6\ntimeout=30s\n"})
    pre = reads() + [tool("rc", c_h, src[c_h], ts=3.0, resource="file:conf/app.ini")]
    g = gate_for(src)
    v = g.check(pre, [pre[2]], operator="prune", supersedes=[{"block": "rc", "handle": B_H}])
    find(v, "I4", block="ra", handle=A_H)
    assert not any(x.block == "rb" for x in of(v, "I4"))
    assert_accepted(g.check(pre, [pre[2]], operator="prune",
                            supersedes=[{"block": "rc", "handle": B_H}, {"block": "rc", "handle": A_H}]))


def test_the_newest_read_rewritten_in_place_counts_as_kept_and_is_checked_by_i1_i2():
    pre = reads()
    rewritten = READ_B.replace("timeout=30s", "timeout=30s\n# reviewed")
    post = [tool("rb", B_H, rewritten, ts=2.0, resource="file:conf/app.ini")]
    v = gate_for(R_SRC).check(pre, post, operator="rewrite", supersedes=[{"block": "rb", "handle": A_H}])
    assert "I4" not in invariants(v)
    assert_accepted(v, "lossless")
    # rewritten in place, it is still a read of its resource (red team 8, t02: one that dropped
    # the tag left one read of the file, and the next edit evicted the newest)
    v = gate_for(R_SRC).check(pre, [tool("rb", B_H, rewritten)], operator="rewrite",
                              supersedes=[{"block": "rb", "handle": A_H}])
    assert "changes its resource" in find(v, "I4", block="rb", key="resource").message


# -- I5: decay budget (undefined cases and the floor parameter) --------------------------------


def test_retention_is_undefined_when_pre_has_no_markers():
    pre = reads(resource=None)
    v = gate_for(R_SRC).check(pre, pre[::-1], operator="reorder")
    assert v.retention is None
    assert_accepted(v)


def test_retention_is_undefined_when_nothing_is_left_to_cite(g):
    pre = window()
    v = g.check(pre, [], operator="evict", evicted=[CONF_H, HTTP_H, "a1"])
    assert v.retention is None
    assert_accepted(v)


def test_a_rewrite_that_drops_markers_is_rejected_by_i5(g):
    pre = window()
    post = [pre[0], blk("a1", "assistant", "It retries 3 times; the orders call returned 12 rows.\n"), pre[2]]
    v = g.check(pre, post, operator="rewrite")
    i5 = find(v, "I5")
    assert i5.evidence["pre_markers"] == 2 and i5.evidence["post_markers"] == 0
    assert v.retention == pytest.approx(0.0)


def test_the_floor_is_a_parameter_and_validated(g):
    pre = [blk("a1", "assistant", "A 3 [src:call_1]. B 12 [src:call_2]. C 250ms [src:call_2].\n"),
           tool("t1", CONF_H, CONF), tool("t2", HTTP_H, HTTP)]
    post = [blk("a1", "assistant", "A 3 [src:call_1]. B 12 [src:call_2]. C 250ms.\n"), pre[1], pre[2]]
    low = g.check(pre, post, operator="rewrite", retention_floor=0.5)
    assert_accepted(low)
    assert low.retention == pytest.approx(2 / 3)
    find(g.check(pre, post, operator="rewrite"), "I5")
    for bad in (-0.1, 1.5, "0.9", True, float("nan")):
        with pytest.raises(InvalidArgumentError, match="retention_floor") as caught:
            g.check(pre, post, operator="rewrite", retention_floor=bad)
        assert caught.value.argument == "retention_floor"


# red team 26, w06: a path passed for the store failed at the first check with an AttributeError
# from inside it; a bad policy, floor or cache budget raised a bare ValueError or TypeError
@pytest.mark.parametrize("kwargs,argument", [
    ({"store": "agent.sqlite3"}, "store"),
    ({"store": None}, "store"),
    ({"policy": "strict"}, "policy"),
    ({"policy": ["reject"]}, "policy"),
    ({"retention_floor": 2}, "retention_floor"),
    ({"cache_bytes": "256M"}, "cache_bytes"),
    ({"cache_bytes": -1}, "cache_bytes"),
    ({"cache_bytes": True}, "cache_bytes"),
    ({"audit": "no"}, "audit"),
])
def test_a_gate_refuses_bad_arguments_when_it_is_made(g, kwargs, argument):
    args = {"store": g.store, **kwargs}
    with pytest.raises(InvalidArgumentError) as caught:
        Gate(args.pop("store"), **args)
    assert caught.value.argument == argument
    if argument in ("store", "policy", "retention_floor"):
        # the module-level calls check them too, before any work
        with pytest.raises(InvalidArgumentError) as caught:
            provgate.check(window(), window(), operator="prune", **{"store": g.store, **kwargs})
        assert caught.value.argument == argument
    with pytest.raises(InvalidArgumentError, match="Gate\\(SourceStore\\(path\\)\\)"):
        Gate("agent.sqlite3")


# red team 11, y03: counting marker tokens, every citation of one source could be stripped and
# paid for by repeating another marker (or citing any other stored source). Once a handle is
# cited fewer times than in pre, post is credited with the markers it kept, handle by handle.
CITED_SOURCES = {**SOURCES, "tool:call_3": "unrelated: build 7 passed\n"}
CITING = [tool("t1", CONF_H, CONF), tool("t2", HTTP_H, HTTP), tool("t3", "tool:call_3", CITED_SOURCES["tool:call_3"]),
          blk("a1", "assistant", "Config sets retries=3 [src:call_1].\n"),
          blk("a2", "assistant", "The orders call returned 12 rows [src:call_2].\n")]
UNCITED_A2 = blk("a2", "assistant", "The orders call returned 12 rows.\n")


@pytest.mark.parametrize("a1_text", [
    "Config sets retries=3 [src:call_1][src:call_1].\n",            # the kept handle's marker repeated
    "Config sets retries=3 [src:tool:call_1] [src:call_1].\n",       # ... spelled two ways
    "Config sets retries=3 [src:call_1][src:call_3].\n",             # a stored source pre did not cite
], ids=["repeated", "two-spellings", "new-handle"])
def test_lost_citations_are_not_paid_for_by_other_markers(a1_text):
    post = [*CITING[:3], blk("a1", "assistant", a1_text), UNCITED_A2]
    v = gate_for(CITED_SOURCES).check(CITING, post, operator="rewrite")
    i5 = find(v, "I5")
    assert i5.evidence["pre_markers"] == i5.evidence["post_markers"] == 2
    assert i5.evidence["lost_markers"] == 1 and i5.evidence["counted_post_markers"] == 1
    assert v.retention == pytest.approx(0.5)  # as if the marker had only been stripped
    stripped = gate_for(CITED_SOURCES).check(CITING, [*CITING[:4], UNCITED_A2], operator="rewrite")
    assert stripped.retention == pytest.approx(0.5) and "lost_markers" in find(stripped, "I5").evidence


def test_markers_added_with_nothing_lost_count_as_the_documented_formula():
    # honest rewrites: facts restated with another marker of a handle pre cited, and with a
    # marker of a source pre held but did not cite; nothing lost, so every marker counts
    post = [*CITING[:3],
            blk("a1", "assistant", "Config sets retries=3 [src:call_1] and timeout=30s [src:call_1].\n"),
            blk("a2", "assistant", "The orders call returned 12 rows [src:call_2]; build 7 passed [src:call_3].\n")]
    v = gate_for(CITED_SOURCES).check(CITING, post, operator="rewrite")
    assert_accepted(v, "lossless")
    # markers per fact of the blocks that cite: pre's two turns hold a fact each; post's restate
    # those two (timeout=30s and build 7 are new facts: no decayed citation)
    pre_m, pre_f = 2, sum(len(extract(b["text"])) for b in CITING[3:]) - 2
    post_m, post_f = 4, 2
    assert pre_f == 2
    assert v.retention == pytest.approx((post_m / post_f) / (pre_m / pre_f)) and v.retention > 1
    # a marker moved to another block still cites its handle as often as pre did: not lost
    # (whether it stands by the right fact is citation accuracy, docs/reconstruction.md)
    moved = [*CITING[:3], blk("a1", "assistant", "Config sets retries=3 [src:call_1] (see [src:call_2]).\n"), UNCITED_A2]
    assert_accepted(gate_for(CITED_SOURCES).check(CITING, moved, operator="rewrite"), "lossless")


# -- P: pointers ------------------------------------------------------------------------------

DOC_H = "doc:doc_7"
DOC = "Backups are kept for 35 days.\nRestores are tested every 90 days — “always”.\n"


def _p_edit():
    return [tool("d7", DOC_H, DOC)], [summary("s1", "Backups 35 days, restores every 90 days.\n", [DOC_H])]


@pytest.mark.parametrize("needle", ["Backups are kept for 35 days.", "“always”", DOC])
@pytest.mark.parametrize("algo", ["blake3", "sha256"])
def test_pointers_resolving_byte_exactly_are_accepted(needle, algo):
    pre, post = _p_edit()
    p = pointer_to("s1", DOC_H, DOC, needle, algo=algo)
    assert_accepted(gate_for({DOC_H: DOC}).check(pre, post, operator="summarize", pointers=[p]))


@pytest.mark.parametrize("change, reason", [
    (lambda p: p | {"block": "nope"}, "unknown_block"),
    (lambda p: p | {"hash": "md5:" + "0" * 32}, "malformed_digest"),
    (lambda p: p | {"hash": "blake3:" + "Z" * 64}, "malformed_digest"),
    (lambda p: p | {"hash": "blake3:abc"}, "malformed_digest"),
    (lambda p: p | {"handle": "doc:doc_8"}, "unknown_handle"),
    (lambda p: p | {"end": len(DOC.encode()) + 1}, "out_of_range"),
    (lambda p: p | {"start": p["start"] + 1, "end": p["end"] + 1}, "span_mismatch"),
], ids=["unknown_block", "md5", "bad-hex", "short", "unknown_handle", "out_of_range", "shifted"])
def test_pointer_failures_name_their_reason(change, reason):
    pre, post = _p_edit()
    p = change(pointer_to("s1", DOC_H, DOC, "Backups are kept for 35 days."))
    v = gate_for({DOC_H: DOC}).check(pre, post, operator="summarize", pointers=[p])
    bad = find(v, "P", evidence__reason=reason)
    assert bad.block == p["block"] and bad.handle == p["handle"]


def test_many_pointers_mixing_algorithms_and_failures_are_reported_in_order():
    # the blake3 spans are hashed together and the sha256 ones one by one: each digest must be
    # compared with its own pointer's span, and each failure reported at its pointer
    pre, post = _p_edit()
    needles = ["Backups are kept for 35 days.", "“always”", DOC]
    good_b3 = [pointer_to("s1", DOC_H, DOC, n) for n in needles]
    good_sha = [pointer_to("s1", DOC_H, DOC, n, algo="sha256") for n in needles]
    shifted = good_b3[0] | {"start": good_b3[0]["start"] + 1, "end": good_b3[0]["end"] + 1}
    shifted_sha = good_sha[0] | {"start": good_sha[0]["start"] + 1, "end": good_sha[0]["end"] + 1}
    pointers = [good_b3[0], shifted_sha, good_sha[1], good_b3[0] | {"block": "nope"}, good_b3[1], shifted,
                good_sha[2], good_b3[2] | {"end": len(DOC.encode()) + 1}, good_b3[2]]
    v = gate_for({DOC_H: DOC}).check(pre, post, operator="summarize", pointers=pointers)
    got = [(x.block, x.evidence["reason"], x.evidence["start"], x.evidence["hash"][:6]) for x in v.violations]
    assert got == [
        ("s1", "span_mismatch", shifted_sha["start"], "sha256"),
        ("nope", "unknown_block", good_b3[0]["start"], "blake3"),
        ("s1", "span_mismatch", shifted["start"], "blake3"),
        ("s1", "out_of_range", good_b3[2]["start"], "blake3"),
    ]


def _span_pointer(block, handle, data, start, end, algo):
    import hashlib

    span = memoryview(data)[start:end]
    digest = blake3(span).hexdigest() if algo == "blake3" else hashlib.sha256(span).hexdigest()
    return {"block": block, "handle": handle, "start": start, "end": end, "hash": f"{algo}:{digest}"}


def test_identical_pointers_are_hashed_once_and_each_still_reported(monkeypatch):
    # red team 49, F06: every pointer's span was copied and hashed, identical ones too; each
    # distinct span is now hashed once, in place (a view of the source), and the verdict still
    # names every pointer that fails, in order
    pre, post = _p_edit()
    good = pointer_to("s1", DOC_H, DOC, "Backups are kept for 35 days.")
    good_sha = pointer_to("s1", DOC_H, DOC, "“always”", algo="sha256")
    wrong = good | {"hash": good_sha["hash"].replace("sha256", "blake3")}  # same span, other digest
    shifted = good | {"start": good["start"] + 1, "end": good["end"] + 1}
    hashed: list[Any] = []
    real = gate_module.hash_buffers

    def counting(buffers, **kw):
        hashed.extend(buffers)
        return real(buffers, **kw)

    monkeypatch.setattr(gate_module, "hash_buffers", counting)
    pointers = [good, shifted, good, wrong, good_sha, shifted, good_sha, good, wrong]
    v = gate_for({DOC_H: DOC}).check(pre, post, operator="summarize", pointers=pointers)
    got = [(x.evidence["reason"], x.evidence["start"], x.evidence["hash"]) for x in v.violations]
    assert got == [("span_mismatch", shifted["start"], shifted["hash"]),
                   ("span_mismatch", wrong["start"], wrong["hash"]),
                   ("span_mismatch", shifted["start"], shifted["hash"]),
                   ("span_mismatch", wrong["start"], wrong["hash"])]
    raw = DOC.encode()
    spans = {raw[p["start"]:p["end"]] for p in (good, shifted)}
    pointer_spans = [b for b in hashed if bytes(b) in spans]  # (the gate hashes block texts too)
    assert len(pointer_spans) == 2 and all(isinstance(b, memoryview) for b in pointer_spans)


def test_pointer_spans_are_not_copied_before_hashing():
    # red team 49, F06: a few KiB of pointers into one large source held a copy of every span
    # until all were hashed (25 pointers into 16 MiB: +385 MiB). Here 48 pointers of about
    # 1 MiB each, some identical, some distinct, both algorithms: copied, they would need some
    # 48 MiB at once (40 distinct); hashed in place, the check needs about one copy of the
    # source (the store's read), so a bound of 8 MiB leaves a wide margin either way
    import tracemalloc

    size = 1 << 20
    text = "lorem ipsum " * (size // 12)
    data = text.encode()
    handle = "tool:big"
    g = gate_for({handle: text})
    window = [summary("s", "See the page.\n", [handle])]
    pointers = [_span_pointer("s", handle, data, 0, len(data), "blake3")] * 8
    pointers += [_span_pointer("s", handle, data, 0, len(data) - 1 - i, "blake3") for i in range(20)]
    pointers += [_span_pointer("s", handle, data, i, len(data), "sha256") for i in range(20)]
    tracemalloc.start()
    try:
        v = g.check(window, window, operator="prune", pointers=pointers)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert_accepted(v)
    assert peak < 8 * size, f"the pointer check peaked at {peak / size:.1f} MiB for a 1 MiB source"


def test_a_pointer_into_a_corrupted_source_fails_closed(tmp_path):
    path = tmp_path / "store.sqlite3"
    store = store_with({DOC_H: DOC, "doc:other": "unrelated text\n"}, path)
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER content_no_update")
    conn.execute("UPDATE content SET body = ? WHERE body = ?",
                 (DOC.replace("35", "36").encode(), DOC.encode()))
    conn.commit()
    conn.close()
    pre = [blk("a1", "assistant", "Backups: see the retention doc.\n")]
    post = [summary("s1", "Backups: see the retention doc.\n", ["doc:other"])]
    p = pointer_to("s1", DOC_H, DOC, "Backups are kept for 35 days.")
    from provgate.store import SourceStore

    v = Gate(SourceStore(path)).check(pre, post, operator="summarize", pointers=[p])
    find(v, "P", block="s1", handle=DOC_H, evidence__reason="source_corrupted")


# -- R: preservation of pinned blocks ---------------------------------------------------------

SYS = "You are a coding agent. Never push to main.\n"


def test_a_pinned_block_kept_byte_identical_and_pinned_is_accepted(g):
    pre = [blk("sys", "system", SYS, pinned=True), *window()]
    assert_accepted(g.check(pre, [pre[0], pre[1], pre[2]], operator="prune", evicted=[HTTP_H]))


def test_whitespace_normalisation_does_not_preserve_a_pinned_block(g):
    pre = [blk("sys", "system", SYS, pinned=True), *window()]
    post = [blk("sys", "system", SYS.rstrip("\n") + "  \n", pinned=True), *pre[1:]]
    v = g.check(pre, post, operator="rewrite")
    r = find(v, "R", block="sys")
    assert "rewritten as 'sys'" in r.message


def test_a_pinned_block_rewritten_in_place_is_rejected(g):
    pre = [tool("t1", CONF_H, CONF, pinned=True), pre_a := blk("a1", "assistant", NOTE)]
    post = [tool("t1", CONF_H, CONF.replace("timeout=30s\n", ""), pinned=True), pre_a]
    v = g.check(pre, post, operator="rewrite", policy="reclassify")
    find(v, "R", block="t1", handle=CONF_H)
    assert not v.reclassified  # R is not an I2 violation: no reclassification


def test_a_pinned_block_dropped_without_a_record_is_rejected(g):
    pre = [blk("sys", "system", SYS, pinned=True), *window()]
    v = g.check(pre, pre[1:], operator="prune")
    find(v, "R", block="sys", evidence__preserve_or_evict=True)
    assert_accepted(g.check(pre, pre[1:], operator="evict", evicted=["sys"]))


def test_a_pin_on_a_handle_less_block_is_sticky_by_id(g):
    pre = [blk("sys", "system", SYS, pinned=True), *window()]
    assert_accepted(g.check(pre, pre, operator="reorder"))
    # the next compactor forgot the flag and rewrites the prompt
    pre2 = [blk("sys", "system", SYS), *window()]
    post2 = [blk("sys", "system", "You are a coding agent.\n"), *window()]
    find(g.check(pre2, post2, operator="rewrite", evicted=[]), "R", block="sys")


# -- verdict size cap --------------------------------------------------------------------------


def test_violations_are_capped_and_the_rest_counted():
    src = {"tool:call_1": "nothing numeric here\n"}
    pre = [tool("t1", "tool:call_1", src["tool:call_1"])]
    n = MAX_VIOLATIONS_PER_CHECK + 150
    text = " ".join(str(10_000 + i) for i in range(n)) + "\n"
    v = gate_for(src).check(pre, [summary("s1", text, ["tool:call_1"])], operator="summarize")
    assert len(v.violations) == MAX_VIOLATIONS_PER_CHECK
    assert v.facts["violations_omitted"] == 150
    assert all(x.invariant == "I1" for x in v.violations)


def test_introduced_facts_beyond_the_cap_are_counted_not_reported():
    # (no negation in the source: a rewrite dropping its "nothing" is refused for that too)
    src = {"tool:call_1": "only words here\n"}
    pre = [tool("t1", "tool:call_1", src["tool:call_1"])]
    n = MAX_VIOLATIONS_PER_CHECK + 150
    text = " ".join(str(10_000 + i) for i in range(n)) + "\n"
    v = gate_for(src).check(pre, [tool("t1", "tool:call_1", text)], operator="rewrite")
    assert v.facts["introduced"] == n
    assert len(v.violations) == MAX_VIOLATIONS_PER_CHECK
    # each number is ungrounded (I1) and introduced (I2): every one is reported or counted
    assert len(v.violations) + v.facts["violations_omitted"] == 2 * n


def test_dropped_facts_beyond_the_cap_are_counted_not_reported():
    n = MAX_VIOLATIONS_PER_CHECK + 150
    src = {"tool:call_1": " ".join(str(10_000 + i) for i in range(n)) + "\n", "tool:call_2": "see 10000\n"}
    pre = [tool("t1", "tool:call_1", src["tool:call_1"]), tool("t2", "tool:call_2", src["tool:call_2"])]
    # both blocks go; t2 is evicted, t1 is not: every number but 10000 (t2 holds it too, and
    # an eviction record covers it) is dropped without a record, and so is t1's handle
    v = gate_for(src).check(pre, [], operator="prune", evicted=["tool:call_2"])
    assert v.facts["dropped"] == n - 1
    assert len(v.violations) == MAX_VIOLATIONS_PER_CHECK
    assert len(v.violations) + v.facts["violations_omitted"] == (n - 1) + 1
    reported = [x for x in v.violations if x.evidence.get("change") == "dropped"]
    assert len(reported) == MAX_VIOLATIONS_PER_CHECK and "10000" not in {x.value for x in reported}
    # each names the row that holds it
    assert all(src["tool:call_1"][x.evidence["span"][0]:x.evidence["span"][1]] == x.value for x in reported)


def test_a_dropped_fact_is_reported_at_its_first_row():
    src = {"tool:call_1": "port 8080 then 8080 again\n"}
    pre = [tool("t1", "tool:call_1", src["tool:call_1"])]
    v = gate_for(src).check(pre, [], operator="prune")
    assert find(v, "I2", block="t1", value="8080").evidence["span"] == [5, 9]


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=" \t\r\nab=3", max_size=40), st.text(alphabet=" \t\r\nab=3", max_size=40))
def test_the_fast_whitespace_comparison_is_the_documented_normalisation(a, b):
    from provgate._textnorm import same_after_normalisation  # what the gate's fast path calls

    assert same_after_normalisation([a, a], [b, a]).tolist() == [normalize_whitespace(a) == normalize_whitespace(b), True]


def test_an_ungrounded_fact_of_a_wide_summary_names_its_first_sources_and_counts_the_rest(tmp_path):
    # naming all of them in each violation made the audit record of a summary of 16,000 sources
    # stating 1,000 facts none holds larger than the store takes: the check raised instead
    from provgate.gate import MAX_SEARCHED_NAMED

    sources = MAX_SEARCHED_NAMED + 36
    src = {f"tool:c{i}": f"v{i}: {i}\n" for i in range(sources)}
    store = store_with(src, tmp_path / "s.sqlite3")
    g = Gate(store)
    pre = [tool(f"t{i}", h, text) for i, (h, text) in enumerate(src.items())]
    made = summary("s", "".join(f"w{i}={i + 1000}\n" for i in range(300)), list(src))
    v = g.check(pre, [made], operator="summarize")
    bad = find(v, "I1", block="s", key="w0", value="1000")
    assert bad.evidence["searched"] == list(src)[:MAX_SEARCHED_NAMED]
    assert bad.evidence["searched_omitted"] == 36
    assert bad.message.endswith(f"{list(src)[:MAX_SEARCHED_NAMED]} and 36 more")
    # a block grounded in fewer names them all, with no count
    few = summary("s", "w0=1000\n", list(src)[:3])
    bad = find(g.check(pre[:3], [few], operator="summarize"), "I1", block="s", key="w0")
    assert bad.evidence["searched"] == list(src)[:3] and "searched_omitted" not in bad.evidence


def test_the_sources_an_ungrounded_fact_names_are_bounded_in_characters_too(tmp_path):
    # red team 83, F01: 64 handles of 1 KiB, named twice in each of 1,000 violations, made an
    # audit record of 131 MB, over the store's 64 MiB: the check raised after its writes
    from provgate.gate import MAX_SEARCHED_NAMED_CHARS, MAX_VIOLATIONS_PER_CHECK

    src = {f"tool:{i:04d}" + "x" * 1010: f"v{i}: {i}\n" for i in range(64)}
    store = store_with(src, tmp_path / "s.sqlite3")
    pre = [tool(f"t{i}", h, text) for i, (h, text) in enumerate(src.items())]
    made = summary("s", "".join(f"k{i}={i + 7000}\n" for i in range(MAX_VIOLATIONS_PER_CHECK + 100)), list(src))
    v = Gate(store).check(pre, [made], operator="summarize")  # (raised LimitExceededError)
    bad = find(v, "I1", block="s", key="k0", value="7000")
    named = bad.evidence["searched"]
    assert named == list(src)[:len(named)] and 1 <= len(named) and sum(map(len, named)) <= MAX_SEARCHED_NAMED_CHARS
    assert bad.evidence["searched_omitted"] == 64 - len(named)
    assert [rec["accepted"] for _, rec in store.iter_audit()][-1] is False
