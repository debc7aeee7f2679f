"""Honest counts an agent writes of a listing are grounded (docs/gate.md, I1 "counted rows" and
the pronoun "one"; red team 142, F08): "the slow one", "the previous one passed" (the pronoun read
as the number 1), "one file is untracked" (a count whose qualifier follows its noun), "on 3 lines
across 2 files" of three grep hits, "2 of 3 packages pass" of go test's package rows were
refused as numbers no source holds. A wrong count of the same rows stays refused."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_gate_counted_rows import GIT_STATUS, GREP
from test_grammar_v4 import _summarize

from provgate.gate import _listed_row_counts

LATENCY = "$ ab-report\nroute          p50      p99\n/api/users     412ms    1.9s\n/api/orders    1328ms   4.2s\n"
RUNS = ("$ gh run list\nSTATUS  TITLE                 WORKFLOW  BRANCH         EVENT  ID          ELAPSED  AGE\n"
        "X       Fix retry backoff     CI        feature/cache  push   8123456789  5m13s    5m\n"
        "\u2713       Add Redis cache layer CI        feature/cache  push   8123450000  5m40s    1h\n")
GO_TEST = ("$ go test ./...\nok  \tgithub.com/acme/api/internal/cache\t0.012s\n--- FAIL: TestRetry (0.00s)\n"
           "    client_test.go:58: retry count mismatch\nFAIL\nFAIL\tgithub.com/acme/api/internal/http\t0.020s\n"
           "ok  \tgithub.com/acme/api/internal/store\t0.031s\n")
# (no "2" elsewhere in it: "Two files are modified" is grounded by the two modified rows alone)
STATUS = GIT_STATUS.replace("by 2 commits", "by 5 commits")
NODES = "nodes=12\ndown=3\nfirst_down=db-7\n"


@pytest.mark.parametrize(("source", "honest"), [
    pytest.param(LATENCY, "/api/orders is the slow one: about 1.3 s median and 4.2 s p99.\n", id="the slow one:"),
    pytest.param(LATENCY, "The slow one is /api/orders (p50 1328ms).\n", id="the slow one is"),
    pytest.param(LATENCY, "/api/orders is the slower one, at 4.2s p99.\n", id="the slower one,"),
    pytest.param(RUNS, "The latest CI run (8123456789) failed; the previous one passed.\n", id="the previous one passed"),
    pytest.param(RUNS, "Run 8123456789 failed, but the earlier one succeeded.\n", id="the earlier one succeeded"),
    pytest.param(RUNS, "The newest one failed after 5m13s.\n", id="the newest one failed"),
])
def test_the_pronoun_one_of_a_noun_phrase_is_no_count(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize(("source", "lie", "value"), [
    pytest.param(RUNS, "The latest run failed; the previous two passed.\n", "two", id="two of one run"),
    pytest.param(NODES, "The one node down is db-7.\n", "one", id="the one node"),
    pytest.param(NODES, "That one lagging replica is db-7.\n", "one", id="that one lagging replica"),
    pytest.param(NODES, "The remaining one node is down.\n", "one", id="the remaining one node"),
    pytest.param(RUNS, "Only one run failed, the latest one.\n", "one", id="only one run"),
])
def test_one_before_its_noun_stays_a_count(source, lie, value):
    find(_summarize(source, lie), "I1", value=value)


# (source, honest summary, its lie: the same sentence with a wrong count, the value refused)
PAIRS = [
    (STATUS, "Two files are modified and one file is untracked.\n",
     "Two files are modified and two files are untracked.\n", "two"),
    (STATUS, "Two files are modified and one file is untracked.\n", "One file is modified.\n", "one"),
    (STATUS, "2 files are modified, 1 file is untracked (notes.txt).\n", "Three files are modified.\n", "three"),
    (GREP, "grep finds MAX_RETRIES on 3 lines across 2 files.\n", "grep finds MAX_RETRIES on 4 lines across 2 files.\n",
     "4"),
    (GREP, "MAX_RETRIES is on 3 lines in 2 files.\n", "MAX_RETRIES is on 3 lines in 3 files.\n", "3"),
    (GO_TEST, "2 of 3 packages pass; internal/http fails (TestRetry).\n", "3 of 3 packages pass.\n", "3"),
    (GO_TEST, "2 of 3 packages pass; internal/http fails (TestRetry).\n", "2 of 2 packages pass.\n", "2"),
    (GO_TEST, "1 of 3 packages fails: internal/http.\n", "1 of 3 packages passes.\n", "1"),
    (GO_TEST, "Two packages pass and one package fails (internal/http).\n", "Two packages fail.\n", "two"),
    (GO_TEST, "3 packages tested; 2 passing packages.\n", "3 packages pass.\n", "3"),
]


@pytest.mark.parametrize(("source", "honest", "lie", "value"), PAIRS)
def test_a_count_named_by_its_predicate_is_grounded_and_a_wrong_one_refused(source, honest, lie, value):
    assert_accepted(_summarize(source, honest))
    find(_summarize(source, lie), "I1", value=value)


def test_go_test_package_rows_are_counted_by_their_tag():
    rows = _listed_row_counts(GO_TEST.encode())
    assert (rows[b"package"], rows[b"passed package"], rows[b"failed package"]) == ({3}, {2}, {1})
    # (a package with no test files is a row of all, no pass)
    rows = _listed_row_counts((GO_TEST + "?   \tgithub.com/acme/api/cmd\t[no test files]\n").encode())
    assert (rows[b"package"], rows[b"passed package"]) == ({3, 4}, {2})


def test_a_megabyte_of_counts_is_read_in_one_pass():
    text = "the slow one is /api/orders; " * 30_000 + "2 of 3 packages pass " * 7_500
    verdict = _summarize(GO_TEST + LATENCY, text)
    assert verdict is not None
