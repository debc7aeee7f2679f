"""Real text: SummEdits rows as `summarize` edits. The document is the source (doc:N in the
store, one tool block in pre), the summary is one derived block in post. A handful of rows with
hand-checked expectations; scripts/summedits_gate_report.py runs the whole split (no threshold
test here: the gate is lexical, its blind spots are reported, not asserted)."""

from __future__ import annotations

import json
from functools import lru_cache

import pytest

from gate_helpers import assert_accepted, blake3_of, byte_span, find, invariants, pointer_to, summary, tool
from provgate.gate import Gate
from provgate.store import SourceStore


@lru_cache(maxsize=1)
def _rows(path: str) -> dict[str, dict]:
    with open(path, encoding="utf-8") as fh:
        return {row["id"]: row for row in map(json.loads, fh)}


@pytest.fixture(scope="module")
def rows(testdata):
    return _rows(str(testdata / "summedits" / "summedits_evaluation.jsonl"))


def check_summary(row: dict, text: str, handle: str = "doc:1", **kw):
    store = SourceStore(":memory:")
    store.put(handle, row["doc"])
    pre = [tool("doc", handle, row["doc"])]
    post = [summary("summary", text, [handle])]
    return Gate(store).check(pre, post, operator="summarize", **kw)


def test_the_split_is_what_the_report_expects(rows):
    assert len(rows) == 986
    assert {r["label"] for r in rows.values()} == {0, 1}


@pytest.mark.parametrize("row_id", [
    "ectsum_OXY_q4_2021_og",   # $0.13 per share, $25 billion: every number is in the call
    "ectsum_OXY_q4_2021_7",    # paraphrase ("raising", "total debt"), same numbers
    "ectsum_OXY_q4_2021_5",
])
def test_consistent_summaries_whose_facts_occur_in_the_document_are_accepted(rows, row_id):
    row = rows[row_id]
    assert row["label"] == 1
    assert_accepted(check_summary(row, row["summary"]), "lossy")


@pytest.mark.parametrize("row_id, fact", [
    ("ectsum_OXY_q4_2021_8", ("number", "0.14")),            # dividend $0.13 -> $0.14
    ("ectsum_OXY_q4_2021_16", ("number", "0.10")),           # dividend $0.13 -> $0.10
    ("63f9455b8d931ba6e664fb84_7", ("name", "Moscow")),      # the London embassy -> Moscow
    ("spotify_podcast_7_0", ("name", "Falcons")),            # the Rams -> the Falcons
    ("samsum_train_13820270_4", ("name", "Spain")),          # his trip to Israel -> Spain
])
def test_a_changed_number_or_entity_is_rejected_by_i1_naming_it(rows, row_id, fact):
    row = rows[row_id]
    assert row["label"] == 0 and "entity_modification" in row["edit_types"]
    v = check_summary(row, row["summary"])
    key, value = fact
    bad = find(v, "I1", block="summary", key=key, value=value)
    assert bad.evidence["searched"] == ["doc:1"]
    assert bad.evidence["text"] in row["summary"] and bad.evidence["text"] not in row["original_summary"]
    assert invariants(v) == {"I1"}
    # the unedited summary of the same document passes
    assert_accepted(check_summary(row, row["original_summary"]))


def test_every_changed_number_is_named(rows):
    row = rows["ectsum_OXY_q4_2021_1"]  # $0.13 -> $0.12 and $25 billion -> $30 billion
    v = check_summary(row, row["summary"])
    assert {(x.key, x.value) for x in v.violations} == {("number", "0.12"), ("number", "30")}


def test_the_summary_must_derive_from_the_document_that_grounds_it(rows):
    # the consistent OXY summary, derived from another document, is ungrounded there
    row, other = rows["ectsum_OXY_q4_2021_og"], rows["63f9455b8d931ba6e664fb84_7"]
    store = SourceStore(":memory:")
    store.put("doc:oxy", row["doc"])
    store.put("doc:news", other["doc"])
    pre = [tool("d1", "doc:oxy", row["doc"]), tool("d2", "doc:news", other["doc"])]
    post = [summary("s", row["summary"], ["doc:news"])]
    v = Gate(store).check(pre, post, operator="summarize", evicted=["doc:oxy"])
    find(v, "I1", block="s", key="number", value="0.13")


def test_a_pointer_into_the_real_document_and_one_re_anchored_onto_the_summary(rows):
    row = rows["ectsum_OXY_q4_2021_og"]
    sentence = "we intend to purchase approximately $3 billion of outstanding shares of common stock"
    good = pointer_to("summary", "doc:1", row["doc"], sentence)
    assert_accepted(check_summary(row, row["summary"], pointers=[good]))
    start, end = byte_span(row["summary"], "$25 billion")
    reanchored = {"block": "summary", "handle": "doc:1", "start": start, "end": end,
                  "hash": blake3_of(row["summary"].encode()[start:end])}
    v = check_summary(row, row["summary"], pointers=[reanchored])
    find(v, "P", block="summary", handle="doc:1", evidence__reason="span_mismatch")


def test_a_non_ascii_document_round_trips_byte_offsets(rows):
    row = next(r for r in rows.values() if r["label"] == 1 and any(ord(c) > 127 for c in r["doc"]))
    line = next(ln for ln in row["doc"].splitlines() if any(ord(c) > 127 for c in ln))
    p = pointer_to("summary", "doc:1", row["doc"], line)
    v = check_summary(row, row["original_summary"], pointers=[p])
    assert not [x for x in v.violations if x.invariant == "P"]
