"""A command run twice is two reads of one resource whose outcomes differ (red team 138, F09; docs/gate.md,
I4 "runs of one command"), and a lossless rewrite keeps the outcome word after each figure (F15; I2
"outcome words kept"). Lie/honest pairs: the lie is refused, its honest twin accepted."""

from __future__ import annotations

import pytest
from budget import examples
from gate_helpers import assert_accepted, blk, find, gate_for, summary, tool
from hypothesis import given, settings
from hypothesis import strategies as st

PYTEST_FAILS = ("$ pytest -q\n..........F.\nFAILED tests/test_retry.py::test_backoff - assert 1.0 == 0.5\n"
                "1 failed, 11 passed in 0.84s\n")
PYTEST_PASSES = "$ pytest -q\n............\n12 passed in 0.79s\n"
BUILD_FAILS = ("$ npm run build\nsrc/api.ts(12,5): error TS2345: Argument of type 'string' is not assignable to "
               "parameter of type 'number'.\nFound 1 error.\n")
BUILD_PASSES = "$ npm run build\nBuild completed in 4.2s\n"
MYPY_FAILS = "$ make check\nsrc/app.py:3: error: Name 'x' is not defined\n[exit code: 1]\n"
MYPY_PASSES = "$ make check\nSuccess: no issues found in 4 source files\n[exit code: 0]\n"


def _summarize_runs(older: str, newer: str, text: str, resource: str | None = None, *, keep_newer: bool = False,
                    stamped: bool = True):
    """Two runs (at ts 1 and 2, an assistant turn between), summarized into ``text``."""
    g = gate_for({"tool:r1": older, "tool:r2": newer})
    pre = [tool("t1", "tool:r1", older, ts=1 if stamped else None, resource=resource),
           blk("x", "assistant", "Fixing it now."),
           tool("t2", "tool:r2", newer, ts=2 if stamped else None, resource=resource)]
    post = [summary("s", text, ["tool:r1", "tool:r2"]), pre[1]]
    if keep_newer:
        post.append(pre[2])
    return g.check(pre, post, operator="summarize")


RESOURCES = [pytest.param(None, id="echoed command"), pytest.param("cmd:run", id="shared resource")]

# (older run, newer run, a summary keeping the older outcome alone, the value refused)
STALE = [
    pytest.param(PYTEST_FAILS, PYTEST_PASSES, "pytest: 1 failed, 11 passed; test_backoff fails (assert 1.0 == 0.5).",
                 "1 failed", id="stale failing run"),
    pytest.param(PYTEST_PASSES, PYTEST_FAILS, "pytest: 12 passed in 0.79s.", "12 passed", id="stale passing run"),
    pytest.param(PYTEST_PASSES, PYTEST_FAILS, "pytest: 12 tests passed.", "12 passed", id="stale passing run, tests"),
    pytest.param(BUILD_FAILS, BUILD_PASSES, "npm run build fails: src/api.ts(12,5) error TS2345 (string not "
                 "assignable to number).", "error TS2345", id="stale build error"),
    pytest.param(BUILD_FAILS, BUILD_PASSES, "npm run build: Found 1 error.", "1 error", id="stale error count"),
    pytest.param(MYPY_PASSES, MYPY_FAILS, "make check succeeds in 4 source files ([exit code: 0]).",
                 "exit code 0", id="stale exit code"),
]

# (older run, newer run, an honest summary of both)
HONEST = [
    pytest.param(PYTEST_FAILS, PYTEST_PASSES, "pytest: test_backoff failed (1 failed, 11 passed), then 12 passed "
                 "after the fix.", id="both runs, in order"),
    pytest.param(PYTEST_FAILS, PYTEST_PASSES, "pytest: 12 passed in 0.79s.", id="the newer run alone"),
    pytest.param(PYTEST_PASSES, PYTEST_FAILS, "pytest: 1 failed, 11 passed (test_backoff: assert 1.0 == 0.5).",
                 id="the newer failing run alone"),
    pytest.param(BUILD_FAILS, BUILD_PASSES, "npm run build failed with error TS2345 in src/api.ts(12,5), then "
                 "completed in 4.2s after the fix.", id="build error, then completed"),
    pytest.param(BUILD_FAILS, BUILD_PASSES, "npm run build: Build completed in 4.2s.", id="the newer build alone"),
    pytest.param(MYPY_PASSES, MYPY_FAILS, "make check: src/app.py:3 error, Name 'x' is not defined "
                 "([exit code: 1]).", id="the newer check alone"),
]


@pytest.mark.parametrize("resource", RESOURCES)
@pytest.mark.parametrize("older,newer,text,value", STALE)
def test_a_summary_keeping_the_older_runs_outcome_alone_is_refused(older, newer, text, value, resource):
    found = find(_summarize_runs(older, newer, text, resource), "I4", block="s", key="outcome", value=value,
                 evidence__change="stale_run")
    assert found.evidence["older"] == "t1" and found.evidence["newer"] == "t2"
    assert "t1" in found.message and "t2" in found.message


@pytest.mark.parametrize("resource", RESOURCES)
@pytest.mark.parametrize("older,newer,text", HONEST)
def test_a_summary_telling_the_newer_run_is_accepted(older, newer, text, resource):
    assert_accepted(_summarize_runs(older, newer, text, resource))


def test_runs_without_ts_are_ordered_by_the_window():
    find(_summarize_runs(PYTEST_PASSES, PYTEST_FAILS, "pytest: 12 passed in 0.79s.", stamped=False), "I4",
         value="12 passed", evidence__change="stale_run")
    assert_accepted(_summarize_runs(PYTEST_FAILS, PYTEST_PASSES, "pytest: 12 passed in 0.79s.", stamped=False))


def test_the_older_runs_summary_beside_the_newer_run_kept_is_accepted():
    # the newer run is still in the window: nothing stale is kept alone
    assert_accepted(_summarize_runs(PYTEST_PASSES, PYTEST_FAILS, "pytest: 12 passed in 0.79s.", keep_newer=True))


def test_runs_of_two_commands_are_not_one_resource():
    other = "$ pytest -q tests/test_cli.py\n3 passed in 0.10s\n"
    assert_accepted(_summarize_runs(PYTEST_FAILS, other, "pytest: 1 failed, 11 passed; tests/test_cli.py: 3 passed."))


def test_a_tagged_and_an_untagged_run_of_one_command_are_one_line_of_runs():
    g = gate_for({"tool:r1": PYTEST_PASSES, "tool:r2": PYTEST_FAILS})
    pre = [tool("t1", "tool:r1", PYTEST_PASSES, ts=1, resource="cmd:pytest -q"),
           tool("t2", "tool:r2", PYTEST_FAILS, ts=2)]
    v = g.check(pre, [summary("s", "pytest: 12 passed in 0.79s.", ["tool:r1", "tool:r2"])], operator="summarize")
    find(v, "I4", value="12 passed", evidence__change="stale_run")


# F15: (pre text, a rewrite changing the word after a kept figure, the figure)
REWORDED = [
    pytest.param("$ pytest -q\n............\n12 passed in 0.79s\n", "$ pytest -q\n............\n12 failed in 0.79s\n",
                 "12", id="passed to failed"),
    pytest.param("Build finished: 3 errors\n", "Build finished: 3 warnings\n", "3", id="errors to warnings"),
    pytest.param("=== 4 skipped, 2 xfailed in 1.2s ===\n", "=== 4 passed, 2 xfailed in 1.2s ===\n", "4",
                 id="skipped to passed"),
    pytest.param("Ran 12 tests: 12 passed\n", "Ran 12 tests: 12 broken\n", "12", id="passed to another word"),
    # (more figures than _FEW_REACHES: their reaches compared in arrays)
    pytest.param("".join(f"suite {k}: {k} passed\n" for k in range(1, 13)),
                 "".join(f"suite {k}: {k} {'failed' if k == 12 else 'passed'}\n" for k in range(1, 13)), "12",
                 id="many figures, the last passed to failed"),
]

# (pre text, an honest format rewrite)
REFORMATTED = [
    pytest.param("$ pytest -q\n12 passed in 0.79s\n", "$ pytest -q\n12 passed  in 0.79s\n", id="re-spaced"),
    pytest.param("Build finished: 3 errors\n", "Build finished:\t3 errors\n", id="a tab"),
    pytest.param("1 failed, 11 passed in 0.84s\n", "1 failed, 11 passed in 0.84s", id="final line break dropped"),
    pytest.param("Found 1 error.\n", "Found 1 errors.\n", id="plural"),
    pytest.param("".join(f"suite {k}: {k} passed\n" for k in range(1, 13)),
                 "".join(f"suite {k}:  {k} passed\n" for k in range(1, 13)), id="many figures, re-spaced"),
]


def _rewrite(pre_text: str, post_text: str):
    g = gate_for({"tool:a": pre_text})
    return g.check([tool("a", "tool:a", pre_text)], [tool("a", "tool:a", post_text)], operator="rewrite")


@pytest.mark.parametrize("before,after,figure", REWORDED)
def test_a_lossless_rewrite_changing_a_counts_outcome_word_is_refused(before, after, figure):
    found = find(_rewrite(before, after), "I2", block="a", value=figure, evidence__change="outcome_changed")
    assert found.evidence["pre_word"] != found.evidence["post_word"]


@pytest.mark.parametrize("before,after", REFORMATTED)
def test_a_format_rewrite_keeping_the_outcome_words_is_accepted(before, after):
    assert_accepted(_rewrite(before, after))


@pytest.mark.parametrize("few", [0, 64])
def test_the_reaches_after_figures_compare_alike_one_by_one_and_in_arrays(monkeypatch, few):
    # (a figure at a text's end reads NULs after it, as one whose text holds them)
    from provgate import gate as gate_module

    monkeypatch.setattr(gate_module, "_FEW_REACHES", few)
    pre, post = b"3 passed, 4 failed\x00\x00", b"3 passed; 4 failed"
    ends_pre, ends_post = [1, 11, 18, 20, 2], [1, 11, 18, 18, 0]
    assert gate_module._reaches_differing(pre, ends_pre, post, ends_post) == [0, 4]
    assert gate_module._reaches_differing(pre, [], post, []) == []


def _counts_by_pattern(text: str) -> set[tuple[str, str]]:
    from provgate.gate import _OUTCOME_COUNT, _WORD_BYTE, _outcome_word

    return {(_outcome_word(m.group(2)), m.group(1)) for m in _OUTCOME_COUNT.finditer(text)
            if m.start() == 0 or text[m.start() - 1] not in _WORD_BYTE}


_PIECES = ["1", "12", "007", "4550", " ", "\t", "\n", "tests ", "test ", "Tests ", "passed", "PASSED", "failed",
           "xfailed", "xpassed", "failure", "failures", "error", "errors", "Errors", "warning", "warnings",
           "skipped", "x", "_", ".", ",", "a", "s", "İ", "é", "٣", "passedx", "in 0.79s", "=" * 3]


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30))
def test_outcome_counts_found_from_the_words_are_the_patterns(pieces):
    # (_outcome_counts finds _OUTCOME_COUNT's marks from the words back, for speed; the
    # pattern is the specification)
    from provgate.gate import _outcome_counts

    text = "".join(pieces)
    assert _outcome_counts(text, text.lower()) == _counts_by_pattern(text)


def test_outcome_counts_of_a_figure_longer_than_the_look_back():
    from provgate.gate import _COUNT_LOOK_BACK, _outcome_counts

    text = "run " + "9" * (_COUNT_LOOK_BACK + 10) + " passed; 3 tests failed, 2 errors"
    assert _outcome_counts(text, text.lower()) == _counts_by_pattern(text) == {
        ("passed", "9" * (_COUNT_LOOK_BACK + 10)), ("failed", "3"), ("error", "2")}


@pytest.mark.parametrize("text", [
    "3 xpassed, 2 xfailed", "1 failure", "4 failures", "2 Errors and 1 warning", "7 warningsx", "12 tests passed",
    "12 test failed", "x12 passed", "1.5 passed", "3\tpassed", "3 passedx", "3 skipped_", "İ 3 passed",
    "3  tests  failed", "3 tests\tErrors", "٣ passed", "== 1 failed, 11 passed in 0.84s ==", "passed 3", "3\npassed",
])
def test_outcome_counts_of_the_forms_are_the_patterns(text):
    from provgate.gate import _outcome_counts

    assert _outcome_counts(text, text.lower()) == _counts_by_pattern(text)


# (the blocks a run's outcome is read of are found by one native pass, summary_leads: a summary
# that is not ASCII is read as before, whatever the pass finds in its bytes)
@pytest.mark.parametrize("text, value", [
    pytest.param("pytest — 12 passed in 0.79s.", "12 passed", id="a dash"),
    pytest.param("pytest: 12 PASSED, 0 S\u212aIPPED.", "12 passed", id="a Kelvin sign"),
])
def test_a_summary_not_in_ascii_keeping_the_older_runs_outcome_alone_is_refused(text, value):
    v = _summarize_runs(PYTEST_PASSES, PYTEST_FAILS, text)
    assert find(v, "I4", value=value), v.violations


def test_a_summary_not_in_ascii_telling_the_newer_run_is_accepted():
    assert_accepted(_summarize_runs(PYTEST_FAILS, PYTEST_PASSES, "pytest — 12 passed in 0.79s."))
