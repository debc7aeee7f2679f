"""Counts told with an outcome (red team 141, F13 and F07). Lie/honest pairs of the commonest
summaries an agent writes of pytest, jest and CI logs.

F13: "120 tests passed." of pytest's ``collected 120 items`` ... ``3 failed, 117 passed`` was
grounded by the collected count; a count told with an outcome word must be one its sources write
with that outcome. F07: honest partial passes of a CI log ending ``exit code 1`` ("23 of 24 tests
passed; X failed") were refused as reversed outcomes; a count or subject the source writes with
that pass is no reversal, "All tests passed." still is one."""

from __future__ import annotations

import pytest
from gate_helpers import PYTEST_VERBOSE, assert_accepted, gate_for, summary, tool

from provgate.gate import _run_counts, _told_counts

# (pytest -q writes no collected count: 120 is the sum of the two)
PYTEST_QUIET = "$ pytest -q\n....F..F\n2 failed, 118 passed, 4 skipped in 3.20s\n"
PYTEST_ALL_PASSED = "$ pytest -q tests/\ncollected 120 items\n\n120 passed in 9.81s\n"
JEST_CI = (
    "Run npm test\n> app@1.4.0 test\n> jest --ci\n\nPASS src/utils/format.test.ts\nFAIL src/api/client.test.ts\n"
    "  ● ApiClient › retries on 503\n\n    expect(received).toBe(expected) // Object.is equality\n\n"
    "    Expected: 3\n    Received: 1\n\n      at Object.<anonymous> (src/api/client.test.ts:58:27)\n\n"
    "Test Suites: 1 failed, 1 passed, 2 total\nTests:       1 failed, 23 passed, 24 total\nTime:        4.812 s\n"
    "Error: Process completed with exit code 1.\n"
)
UNITTEST_FAILED = (
    "$ python -m unittest\n..F.\n======================================================================\n"
    "FAIL: test_parse (tests.test_cfg.CfgTest)\n----------------------------------------------------------------------\n"
    "AssertionError: 4 != 5\n\n----------------------------------------------------------------------\n"
    "Ran 40 tests in 0.312s\n\nFAILED (failures=1)\n"
)
UNITTEST_OK = "$ python -m unittest\n....\nRan 40 tests in 0.301s\n\nOK\n"
MOCHA = "$ npx mocha\n\n  23 passing (2s)\n  1 failing\n\n  1) ApiClient\n       retries on 503:\n"
PYTEST_ERRORS = "$ pytest -q\n..EE.F\n1 failed, 117 passed, 2 errors in 5.02s\n"


def check(sources: dict[str, str], text: str):
    gate = gate_for(sources)
    pre = [tool(f"t{i}", h, t) for i, (h, t) in enumerate(sources.items())]
    return gate.check(pre, [summary("s", text, list(sources))], operator="summarize")


def outcome_violations(verdict, change: str):
    return [v for v in verdict.violations if v.invariant == "I1" and v.evidence.get("change") == change]


# F13: (sources, lie, the told count the lie is refused for, honest twin)
COUNT_PAIRS = [
    ({"pytest": PYTEST_VERBOSE}, "120 tests passed.", "120 tests passed", "117 tests passed, 3 failed."),
    ({"pytest": PYTEST_VERBOSE}, "All 120 tests pass.", "120 tests pass", "117 of 120 tests passed."),
    ({"pytest": PYTEST_VERBOSE}, "3 tests passed; 117 failed.", "3 tests passed", "117 passed, 3 failed."),
    ({"pytest": PYTEST_VERBOSE}, "pytest ran 120 tests: 120 passed.", "120 passed", "pytest ran 120 tests: 117 passed."),
    ({"pytest": PYTEST_VERBOSE}, "117 tests failed (test_create_user among them).", "117 tests failed",
     "3 tests failed (test_create_user among them)."),
    ({"pytest": PYTEST_VERBOSE}, "Out of 120, 120 have passed.", "120 have passed", "120 tests ran."),
    ({"pytest": PYTEST_QUIET}, "All 120 tests passed.", "120 tests passed", "118 tests passed, 2 failed, 4 skipped."),
    ({"pytest": PYTEST_QUIET}, "118 passed, 2 failed, 2 skipped.", "2 skipped", "118 passed, 2 failed, 4 skipped."),
    ({"ci": JEST_CI}, "Tests: 24 passed.", "24 passed", "Tests: 23 passed, 1 failed, 24 total."),
    ({"ci": JEST_CI}, "all 24 tests ran; 24 passed.", "24 passed", "all 24 tests ran; 23 passed."),
    ({"unittest": UNITTEST_FAILED}, "All 40 tests passed.", "40 tests passed", "Ran 40 tests: 1 failed (test_parse)."),
    ({"mocha": MOCHA}, "mocha: 24 passing.", "24 passing", "mocha: 23 passing, 1 failing."),
    # (an error count was never read: the stem "rror" was cut two bytes back, "2 errors" read as
    # " errors"; found by eng-counts, stop 62)
    ({"pytest": PYTEST_ERRORS}, "117 passed, 1 failed, 1 error.", "1 error", "117 passed, 1 failed, 2 errors."),
]


@pytest.mark.parametrize(("sources", "lie", "told", "honest"), COUNT_PAIRS, ids=[p[1] for p in COUNT_PAIRS])
def test_a_count_told_with_an_outcome_is_written_with_it(sources, lie, told, honest):
    verdict = check(sources, lie)
    assert not verdict.accepted
    found = outcome_violations(verdict, "outcome_count")
    assert found, verdict.violations
    v = found[0]
    assert v.block == "s" and v.value == told and v.key == "outcome", v
    assert "no source writes" in v.message and "'s'" in v.message and told in v.message, v.message
    assert_accepted(check(sources, honest))


@pytest.mark.parametrize(("sources", "text"), [
    ({"pytest": PYTEST_ALL_PASSED}, "All 120 tests passed."),
    ({"pytest": PYTEST_ALL_PASSED}, "120 tests passed, none failed."),
    ({"unittest": UNITTEST_OK}, "All 40 tests pass."),
    # (a source writing no count of a run: the figure is the number rules')
    ({"log": "$ go test ./...\nok  \texample.com/app/cfg\t0.120s\n"}, "go test: the cfg package passed in 0.120s."),
    # (the figure names a step, a job: no count)
    ({"ci": JEST_CI}, "Step 2 failed: npm test exited with code 1."),
])
def test_counts_of_runs_written_so_stay_accepted(sources, text):
    assert_accepted(check(sources, text))


# F07: (sources, honest partial pass, lie of the whole run or of the failed subject)
PARTIAL_PAIRS = [
    ({"ci": JEST_CI}, "23 of 24 tests passed; ApiClient › retries on 503 failed.", "All tests passed.",
     "All tests passed"),
    ({"ci": JEST_CI}, "The suite src/utils/format.test.ts passed; src/api/client.test.ts failed.",
     "The suite src/api/client.test.ts passed; src/utils/format.test.ts failed.",
     "The suite src/api/client.test.ts passed"),
    ({"ci": JEST_CI}, ("npm test exited with code 1: src/api/client.test.ts fails (retries on 503: expected 3, "
                       "received 1); 23 tests passed."), "CI passed.", "CI passed"),
    ({"ci": JEST_CI}, "format.test.ts passed; client.test.ts failed.", "client.test.ts passed.", "client.test.ts passed"),
    ({"ci": JEST_CI}, "23 tests passed; 1 failed.", "All 23 tests passed.", "All 23 tests passed"),
]


@pytest.mark.parametrize(("sources", "honest", "lie", "claim"), PARTIAL_PAIRS, ids=[p[1] for p in PARTIAL_PAIRS])
def test_a_partial_pass_its_sources_write_is_no_reversal(sources, honest, lie, claim):
    assert_accepted(check(sources, honest))
    verdict = check(sources, lie)
    assert not verdict.accepted
    found = outcome_violations(verdict, "outcome_reversed")
    assert found, verdict.violations
    assert found[0].value == claim and "exit code 1" in found[0].message, found[0]


def test_a_count_opening_a_summary_is_read_whatever_the_summary_before_ends_with():
    # (the summaries are read joined: the word before "120" was the other summary's last one,
    # "step", which reads "Step 2 failed" as a step's number, and the lie went unread)
    sources = {"pytest": PYTEST_VERBOSE}
    gate = gate_for(sources)
    pre = [tool("t0", "pytest", PYTEST_VERBOSE)]

    def two(second: str):
        return gate.check(pre, [summary("s1", "pytest ran the tests as the last step", ["pytest"]),
                                summary("s2", second, ["pytest"])], operator="summarize")

    verdict = two("120 tests passed.")
    assert not verdict.accepted
    found = outcome_violations(verdict, "outcome_count")
    assert found and found[0].block == "s2" and found[0].value == "120 tests passed", verdict.violations
    assert_accepted(two("117 tests passed, 3 failed."))


def test_the_counts_read():
    assert _told_counts(b"117 of 120 tests passed, 3 failed; Step 2 failed; all 1,024 tests pass") == [
        ("passed", "117", 0, 23), ("passed", "1024", 54, 70), ("failed", "3", 25, 33)]
    assert _run_counts(JEST_CI.encode()) == {("failed", "1"), ("passed", "1"), ("passed", "23")}
    assert _run_counts(UNITTEST_FAILED.encode()) == {("failed", "1")}
    assert _run_counts(UNITTEST_OK.encode()) == {("passed", "40")}
    assert _run_counts(MOCHA.encode()) == {("passed", "23"), ("failed", "1")}
    assert _told_counts(b"2 errors, 1 error") == [("error", "2", 0, 8), ("error", "1", 10, 17)]


def test_a_long_adversarial_summary_is_read_in_one_pass():
    # (1 MB of counts and outcome words: each word looked back at within a bounded window)
    text = ("3 " * 40 + "tests passed and Step 9 failed; ") * 4000
    told = _told_counts(text.encode()[: 1 << 20])
    assert told and all(word in ("passed", "failed") for word, *_ in told)


def _writes_count_by_pattern(data: bytes, word: str, figure: str) -> bool:
    """_writes_count as one search of the pattern over the whole text (before stop 66)."""
    from provgate.gate import _written_count_pattern

    if data.find(figure.encode()) < 0:
        return False
    return any(m.start() == 0 or not (data[m.start() - 1:m.start()].isalnum() or data[m.start() - 1] in b"_.,")
               for m in _written_count_pattern(word, figure).finditer(data))


@pytest.mark.parametrize("data, word, figure", [
    (b"117 passed", "passed", "117"),
    (b"===== 3 failed, 117 passed in 2.1s =====", "passed", "117"),
    (b"v117 passed; x_117 passed; 1.117 passed", "passed", "117"),  # (glued: none)
    (b"v117 passed; then 117 Tests PASSING", "passed", "117"),
    (b"111 passed", "passed", "11"),  # (the figure's digits inside a longer figure's)
    (b"11 11 11 11 11 11 11 11 11 11 1111 passed", "passed", "11"),  # (past the places matched first)
    (b"11 11 11 11 11 11 11 11 11 11 x11 passed 11 failures", "failed", "11"),
    (b"11, " * 10 + b"11 passed", "passed", "11"),
    (b"12 items, 12 skipped, 12 errors" * 5, "error", "12"),
    (b"1 error, 1x5 passed, 1.5 passed", "passed", "1.5"),  # (a figure of other bytes: as the pattern reads it)
    (b"1x5 passed", "passed", "1.5"),
    (b"no count here", "passed", "3"),
])
def test_writes_count_finds_what_the_pattern_over_the_text_finds(data, word, figure):
    from provgate.gate import _writes_count

    assert _writes_count(data, word, figure) == _writes_count_by_pattern(data, word, figure)
