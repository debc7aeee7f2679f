"""Rounded and re-scaled figures in summaries (red team 138, F13; docs/gate.md, I1 "rounded
figures"). LLM summaries round durations, percentages and sizes: ``in 1.02s`` -> ``in ~1s``,
``87.43%`` -> ``87.4%``, ``120ms`` -> ``0.12 s``, ``734003200 bytes`` -> ``700 MiB``. Each was
refused as a fabricated figure. A figure that rounds a source figure of the same measure, at its
own decimals and within a tenth of it, is grounded now; one that rounds to another value, rounds
coarser than its own decimals, or makes a zero or a whole 100% of something else is not."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find, gate_for, tool
from test_grammar_v4 import _summarize

PYTEST = "2 failed, 10 passed in 1.02s\n"
COVERAGE = "TOTAL    1250    157    87.43%\n"
LATENCY = "GET /api/users 500 120ms\n"
BUILD = "Build finished in 456s\n"
IMAGE = "Image size: 734003200 bytes\n"
LOSS = "packet loss 0.4%, uptime 99.6%\n"


@pytest.mark.parametrize(("source", "honest"), [
    pytest.param(PYTEST, "2 failed, 10 passed in ~1s.\n", id="seconds to a whole"),
    pytest.param(PYTEST, "2 failed, 10 passed in about 1 second.\n", id="about one second"),
    pytest.param(PYTEST, "2 failed, 10 passed in 1.0s.\n", id="one decimal"),
    pytest.param(COVERAGE, "Coverage is 87.4%.\n", id="percent one decimal"),
    pytest.param(COVERAGE, "Coverage is ~87%.\n", id="percent approximate"),
    pytest.param(COVERAGE, "Coverage is 87%.\n", id="percent whole"),
    pytest.param(LATENCY, "/api/users failed after 0.12 s.\n", id="ms as seconds"),
    pytest.param(BUILD, "The build took 7.6 minutes.\n", id="seconds as minutes"),
    pytest.param(BUILD, "The build took about 8 minutes.\n", id="seconds as whole minutes"),
    pytest.param(IMAGE, "The image is 700 MiB.\n", id="bytes as MiB"),
    pytest.param(IMAGE, "The image is 734 MB.\n", id="bytes as MB"),
    pytest.param(IMAGE, "The image is 0.73 GB.\n", id="bytes as GB"),
])
def test_a_figure_rounding_a_source_figure_is_grounded(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize(("source", "lie", "value"), [
    pytest.param(COVERAGE, "Coverage is 88%.\n", "88%", id="rounded the wrong way"),
    pytest.param(COVERAGE, "Coverage is ~90%.\n", "90%", id="rounded to tens"),
    pytest.param(COVERAGE, "Coverage is 87.5%.\n", "87.5%", id="a decimal off"),
    pytest.param(PYTEST, "2 failed, 10 passed in ~2s.\n", "2s", id="seconds off"),
    pytest.param(IMAGE, "The image is 1 GB.\n", "1", id="a coarse rounding, 36% off"),
    pytest.param(LOSS, "No packet loss: 0%.\n", "0%", id="a zero made of 0.4%"),
    pytest.param(LOSS, "Uptime was 100%.\n", "100%", id="a whole 100% made of 99.6%"),
    pytest.param(BUILD, "The build took about 8 hours.\n", "8", id="another unit of time"),
    pytest.param(BUILD, "The build took 7.6%.\n", "7.6%", id="another measure"),
    pytest.param(LATENCY, "/api/users failed after 0.12 GB.\n", "0.12", id="time as size"),
    pytest.param("Found 11 issues in 3.2s\n", "Found about 10 issues.\n", "10", id="a count is no measure"),
])
def test_a_figure_rounding_no_source_figure_is_refused(source, lie, value):
    find(_summarize(source, lie), "I1", value=value)


def test_a_lossless_rewrite_that_rounds_a_figure_is_refused():
    g = gate_for({"tool:c1": PYTEST})
    pre = [tool("t", "tool:c1", PYTEST)]
    post = [tool("t", "tool:c1", "2 failed, 10 passed in 1.0s\n")]
    verdict = g.check(pre, post, operator="rewrite")
    assert not verdict.accepted


def test_an_ordinal_second_is_still_a_fact():
    # (only "second" right after a figure is its unit: "a second attempt" stays a count)
    find(_summarize("Retried 2 times in 3s.\n", "A second attempt ran in 3s.\n"), "I1", value="second")


JOBS = ("job=3f2b1c9e-1a2b-4c3d-8e9f-0123456789ab status=failed duration=1328ms\n"
        "job=7a7b7c7d-1111-4222-8333-444455556666 status=succeeded duration=412ms\n")


def test_a_figure_on_a_line_naming_an_exact_value_rounds_only_that_lines_figures():
    # (red team 140, F03: rounded, two jobs' latencies swapped passed; a figure said of a record
    # rounds only the figures of the source lines naming that record)
    lie = ("Job 3f2b1c9e-1a2b-4c3d-8e9f-0123456789ab took ~0.4s; "
           "job 7a7b7c7d-1111-4222-8333-444455556666 took ~1.3s.\n")
    find(_summarize(JOBS, lie), "I1", value="0.4s")
    assert_accepted(_summarize(JOBS, "The jobs took ~1.3s and ~0.4s.\n"))


GIT_LOG = "a1b2c3d Fix retry backoff (took 1328ms in CI)\n9f8e7d6 Add cache layer (took 412ms in CI)\n"
ROUTES = "GET /api/users 200 1328ms\nGET /api/orders 200 412ms\n"


@pytest.mark.parametrize(("source", "honest"), [
    pytest.param(JOBS, "Job 3f2b1c9e-1a2b-4c3d-8e9f-0123456789ab failed after ~1.3s.\n", id="a job's own"),
    pytest.param(JOBS, "Job 3f2b1c9e-1a2b-4c3d-8e9f-0123456789ab took 1.3 seconds; "
                       "job 7a7b7c7d-1111-4222-8333-444455556666 took 0.4 seconds.\n", id="two jobs in seconds"),
    pytest.param(GIT_LOG, "a1b2c3d (retry backoff) took ~1.3s in CI; 9f8e7d6 (cache layer) ~0.4s.\n",
                 id="two commits"),
    pytest.param(ROUTES, "/api/users is slow (~1.3 s); /api/orders is fast (~0.4 s).\n", id="two routes"),
    pytest.param(ROUTES, "It takes ~1.3 s for /api/users and ~0.4 s for /api/orders.\n", id="a route after its figure"),
    pytest.param(ROUTES, "/api/users ~1.3 s, /api/orders ~0.4 s.\n", id="two routes in a list"),
    pytest.param("$ /app/run.sh --fast\nDone in 1328ms\n", "Ran /app/run.sh; it finished in ~1.3s.\n",
                 id="a path whose line has no figure of its own"),
])
def test_a_rounded_figure_beside_a_record_or_route_rounds_its_own_line(source, honest):
    # (red team 141, F05: every rounded figure on a line naming a record was refused)
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize(("source", "lie", "value"), [
    pytest.param(JOBS, "Job 3f2b1c9e-1a2b-4c3d-8e9f-0123456789ab failed after ~0.4s.\n", "0.4s",
                 id="another job's"),
    pytest.param(GIT_LOG, "a1b2c3d (retry backoff) took ~0.4s in CI; 9f8e7d6 (cache layer) ~1.3s.\n", "0.4s",
                 id="two commits swapped"),
    pytest.param(ROUTES, "/api/users ~0.4 s, /api/orders ~1.3 s.\n", "0.4", id="two routes swapped"),
    pytest.param(ROUTES, "/api/users is fast (~0.4 s).\n", "0.4", id="another route's"),
    pytest.param(ROUTES, "It takes ~0.4 s for /api/users and ~1.3 s for /api/orders.\n", "0.4",
                 id="a route after its figure, swapped"),
    pytest.param("job=3f2b1c9e-1a2b-4c3d-8e9f-0123456789ab took 3.1s\n"
                 "job=7a7b7c7d-1111-4222-8333-444455556666 took 0.7s\n",
                 "Job 3f2b1c9e-1a2b-4c3d-8e9f-0123456789ab finished in about a second.\n", "second",
                 id="about a second of another job's"),
])
def test_a_rounded_figure_beside_a_record_or_route_of_another_line_is_refused(source, lie, value):
    # (red team 141, F04: rounded, two routes' latencies swapped passed)
    find(_summarize(source, lie), "I1", value=value)


def test_many_figures_are_rounded_in_one_pass():
    # (red team 140, F10: each figure was compared with every source figure; now looked up in
    # the sorted sizes. 4,000 figures, each grounded)
    source = "".join(f"step {i} took {1000 + (i * 37) % 9000}ms\n" for i in range(4000))
    summary = " ".join(f"~{(1000 + (i * 37) % 9000) / 1000:.1f}s" for i in range(4000)) + "\n"
    assert_accepted(_summarize(source, summary))
