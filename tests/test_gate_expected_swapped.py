"""A failing assertion's expected and actual values are told on their sides (red team 142, F18):
jest's Expected/Received, pytest's ``assert A == B`` with the ``where`` line naming the actual side."""
from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find, store_with, summary, tool

from provgate.gate import Gate

JEST = ("Run npm test\n> jest --ci\n\nPASS src/utils/format.test.ts\nFAIL src/api/client.test.ts\n"
        "  \u25cf ApiClient \u203a retries on 503\n\n    expect(received).toBe(expected) // Object.is equality\n\n"
        "    Expected: 3\n    Received: 1\n\n      at Object.<anonymous> (src/api/client.test.ts:58:27)\n\n"
        "Tests:       1 failed, 23 passed, 24 total\nError: Process completed with exit code 1.\n")
PYTEST = ("_______________________________ test_create_user _______________________________\n\n"
          "    def test_create_user(client):\n        resp = client.post(\"/users\", json={\"name\": \"bob\"})\n"
          ">       assert resp.status_code == 201\nE       assert 500 == 201\n"
          "E        +  where 500 = <Response [500]>.status_code\n\ntests/test_api.py:42: AssertionError\n"
          "FAILED tests/test_api.py::test_create_user - assert 500 == 201\n")
# (the actual value on the right: the `where` line says which side was computed)
PYTEST_REVERSED = PYTEST.replace("assert resp.status_code == 201", "assert 201 == resp.status_code").replace(
    "assert 500 == 201", "assert 201 == 500")

# (lie, honest twin, source, the value told as expected in the lie)
PAIRS = {
    "jest_expected_but_received": ("ApiClient \u203a retries on 503 expected 1 but received 3.",
                                   "ApiClient \u203a retries on 503 expected 3 but received 1.", JEST, "1"),
    "jest_where_expected": ("The retry test got 3 attempts where 1 was expected.",
                            "The retry test got 1 attempt where 3 were expected.", JEST, "1"),
    "jest_paren_expected": ("ApiClient got 3 attempts (expected 1).", "ApiClient got 1 attempt (expected 3).", JEST, "1"),
    "jest_comma_got": ("expected 1, got 3", "expected 3, got 1", JEST, "1"),
    "pytest_expected_but_got": ("test_create_user expected 500 but got 201.",
                                "test_create_user expected 201 but got 500.", PYTEST, "500"),
    "pytest_instead_of": ("POST /users returned 201 instead of 500.", "POST /users returned 500 instead of 201.",
                          PYTEST, "500"),
    "pytest_status_noun": ("test_create_user expected status 500 but got 201.",
                           "test_create_user expected status 201 but got 500.", PYTEST, "500"),
    "pytest_articles": ("The API returned a 201 where a 500 was expected.",
                        "The API returned a 500 where a 201 was expected.", PYTEST, "500"),
    "pytest_actual_on_the_right": ("POST /users returned 201 instead of 500.",
                                   "POST /users returned 500 instead of 201.", PYTEST_REVERSED, "500"),
}


def summarize(text: str, source: str):
    reads = [tool("t0", "tool:t", source)]
    return Gate(store_with({"tool:t": source})).check(reads, [summary("s", text, ["tool:t"])], operator="summarize")


@pytest.mark.parametrize("case", sorted(PAIRS))
def test_an_assertion_told_with_its_sides_swapped_is_refused(case):
    lie, _, source, value = PAIRS[case]
    found = find(summarize(lie, source), "I1", block="s", key="assertion", value=value)
    assert found.evidence["change"] == "expected_actual_swapped"


@pytest.mark.parametrize("case", sorted(PAIRS))
def test_an_assertion_told_on_its_sides_is_accepted(case):
    assert_accepted(summarize(PAIRS[case][1], PAIRS[case][2]))


@pytest.mark.parametrize("text", [
    "ApiClient \u203a retries on 503 failed: expected 3 calls, received 1.",
    "retries on 503 got 1 attempt instead of 3.",
    "Expected 3, received 1 in ApiClient \u203a retries on 503.",
    "The test got 1 (expected 3).",
    "The test expected 3 retries but the client made only 1.",
    "1 failed, 23 passed; exit code 1.",
])
def test_honest_tellings_of_a_jest_failure_are_accepted(text):
    assert_accepted(summarize(text, JEST))


@pytest.mark.parametrize("text", [
    "test_create_user failed: expected 201 but got 500.",
    "test_create_user got status 500 (expected 201).",
    "test_create_user expected 201, got 500.",
    "The endpoint returns 500 instead of 201 for POST /users.",
])
def test_honest_tellings_of_a_pytest_failure_are_accepted(text):
    assert_accepted(summarize(text, PYTEST))


def test_an_assertion_with_no_side_named_is_not_read():
    # (`assert x == 5` with no `where` line: either side may be the expected one)
    bare = "FAILED tests/test_math.py::test_add\nE       assert 4 == 5\n\ntests/test_math.py:3: AssertionError\n"
    assert_accepted(summarize("test_add expected 4 but got 5.", bare))
    assert_accepted(summarize("test_add expected 5 but got 4.", bare))
