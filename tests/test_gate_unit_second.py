""""second" after "per", "per-" or "/" is the unit of a rate, not the ordinal: an honest summary
of ``100 req/s`` as "100 requests per second" was refused for the number "second" no source
holds (found by eng-units16). Elsewhere "second" stays a number to ground, and a rate's number
or unit changed is still refused."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, gate_for, of, summary, tool


def _check(source: str, text: str):
    gate = gate_for({"tool:a": source})
    pre = [tool("a", "tool:a", source)]
    return gate.check(pre, [*pre, summary("s", text, ["tool:a"])], operator="summarize")


@pytest.mark.parametrize(("source", "text"), [
    ("Rate: 100 req/s\n", "The rate is 100 requests per second.\n"),
    ("Link: 30 Mb/s\n", "The link runs at 30 megabits per second.\n"),
    ("Rate: 100 req/s\n", "The rate is 100 requests per-second.\n"),
    ("Rate: 100 req/s\n", "The rate is 100 requests/second.\n"),
    ("Throughput: 5 MB per second\n", "Throughput was 5 MB per  second.\n"),
])
def test_the_unit_second_of_a_rate_is_no_number(source, text):
    assert_accepted(_check(source, text))


@pytest.mark.parametrize(("source", "text", "value"), [
    ("Rate: 100 req/s\n", "The rate is 100 requests a second.\n", "second"),  # ("a second" may be a count)
    ("The first attempt failed.\n", "The second attempt failed.\n", "second"),
    ("Rate: 100 req/s\n", "The upper second is 100.\n", "second"),  # ("upper" is no "per")
    ("Rate: 100 req/s\n", "The rate is 200 requests per second.\n", "200"),
    ("Rate: 100 req/min\n", "The rate is 100 requests per second.\n", None),
])
def test_elsewhere_second_and_the_rate_are_still_read(source, text, value):
    verdict = _check(source, text)
    assert not verdict.accepted
    if value is not None:
        assert value in [v.value for v in of(verdict, "I1")]
