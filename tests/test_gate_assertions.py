"""Assertion lines (pytest's ``assert 4.0 == 2.0``, unittest's ``404 != 200``), red team 138.

F10: both operands of a comparison stand between the same words (no word is read in ``==``),
so a lossless rewrite that swapped them kept every context of the in-place trade rule and was
accepted, though which side is the actual value is the whole content of the line. A figure's
side of a comparison operator standing between two figures is now part of its context
(docs/gate.md, I2 "figures traded inside a block", **Operands kept**). The rule is pure
Python; run the file once each way (PROVGATE_NO_EXTENSIONS=1) for both paths."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _rewrite, _summarize

from provgate.facts import extract
from provgate.gate import _comparison_sides

_PYTEST = ("tests/test_retry.py:42: in test_retry_backoff\n"
           "    assert delay == 2.0\n"
           "E   assert 4.0 == 2.0\n"
           "E    +  where 4.0 = compute_delay(3)\n"
           "1 failed, 11 passed in 0.84s\n")


@pytest.mark.parametrize("before, after", [
    ("E   assert 4.0 == 2.0\n", "E   assert 2.0 == 4.0\n"),
    ("E   assert 4 == 2\n", "E   assert 2 == 4\n"),
    ("AssertionError: 404 != 200\n", "AssertionError: 200 != 404\n"),
    (_PYTEST, _PYTEST.replace("4.0 == 2.0", "2.0 == 4.0")),
    ("E   assert 4 > 2\n", "E   assert 2 > 4\n"),
    ("E   assert 120 <= 100\n", "E   assert 100 <= 120\n"),
    # brackets, quotes and signs around the operands
    ("assert f(3) == 4\n", "assert f(4) == 3\n"),
    ("assert -1 == 2\n", "assert 2 == -1\n"),
    ("E   AssertionError: '1.2.3' != '1.2.4'\n", "E   AssertionError: '1.2.4' != '1.2.3'\n"),
    ("E   assert [1, 2] == [2, 1]\n", "E   assert [2, 1] == [1, 2]\n"),
    ("E   assert 4.0==2.0\n", "E   assert 2.0==4.0\n"),
])
def test_operands_swapped_in_a_rewrite_are_refused(before, after):
    found = find(_rewrite(before, after), "I2", evidence__change="traded_in_place")
    assert found.value in before


@pytest.mark.parametrize("before, after", [
    # re-spaced, re-indented, trimmed: every operand on its side
    ("E   assert 4.0==2.0\n", "E   assert 4.0 == 2.0\n"),
    ("E   assert 4.0 == 2.0\n", "E   assert 4.0==2.0\n"),
    ("E   assert 4.0 == 2.0\n", "E assert 4.0 == 2.0\n"),
    (_PYTEST, _PYTEST.replace("E    +  where", "E    + where")),
    (_PYTEST, _PYTEST.replace("    assert delay", "assert delay")),
    # the comparison turned round with its operator: each operand keeps its meaning
    ("E   assert 4 > 2\n", "E   assert 2 < 4\n"),
    ("ratio 4 <= 5 ok\n", "ratio 5 >= 4 ok\n"),
    # lines reordered whole, each comparison with its line
    ("test_retry: assert 4 == 2\ntest_backoff: assert 7 == 9\n",
     "test_backoff: assert 7 == 9\ntest_retry: assert 4 == 2\n"),
    ("1 failed, 11 passed in 0.84s\nE   assert 4.0 == 2.0\n", "E   assert 4.0 == 2.0\n1 failed, 11 passed in 0.84s\n"),
    # an arrow or a shift is no comparison: no sides
    ("shift 1 << 4 and 2 >> 1\n", "shift 1 << 4 and 2 >> 1\n"),
])
def test_operands_kept_on_their_sides_are_accepted(before, after):
    assert_accepted(_rewrite(before, after))


def test_a_comparisons_sides_are_read_only_between_two_figures():
    data = b"assert delay == 2.0; assert 4.0 == -2.0 < 3; 1 -> 2; 5 => 6; x <- 7; 8 >> 9"
    table = extract(data)
    rows = list(range(len(table.start)))
    values = [table.span(r).value for r in rows]
    sides = dict(zip(values, _comparison_sides(data, table.start.tolist(), table.end.tolist())))
    assert sides["2.0"] == b""  # (one operand a name: no figure stands on the other side)
    assert sides["4.0"] == b"<==" and sides["-2.0"] == b">==<<" and sides["3"] == b"><"
    assert all(sides[v] == b"" for v in ("1", "2", "5", "6", "7", "8", "9"))
    assert _comparison_sides(b"no operator 1 2", [12, 14], [13, 15]) is None


# F04: pytest's source line "assert delay == 2.0" was read as the requirement pin delay==2.0, so
# a summary stating the test's actual value beside the variable ("delay is 4.0", of "E   assert
# 4.0 == 2.0") was refused as a version of another name (docs/gate.md, I1 "versions owned")
_FAILED = ("tests/test_retry.py:42: in test_retry_backoff\n"
           "    assert delay == 2.0\n"
           "E   assert 4.0 == 2.0\n"
           "1 failed, 11 passed in 0.84s\n")
_FAILED_LONG = ("tests/test_retry.py:42: in test_retry_backoff\n"
                ">       assert delay == 2.0\n"
                "E       assert 4.0 == 2.0\n")


@pytest.mark.parametrize("source, text", [
    (_FAILED, "test_retry_backoff fails: delay is 4.0, expected 2.0."),
    (_FAILED, "test_retry_backoff fails (delay 4.0, expected 2.0)."),
    (_FAILED, "test_retry_backoff fails: delay: 4.0 (expected 2.0)."),
    (_FAILED, "test_retry_backoff fails: delay was 4.0, expected 2.0."),
    (_FAILED_LONG, "test_retry_backoff fails: delay is 4.0, expected 2.0."),
    (_FAILED.replace("delay == 2.0", "delay==2.0"), "test_retry_backoff fails: delay is 4.0, expected 2.0."),
    (_FAILED.replace("    assert delay", "E   AssertionError: assert delay"), "delay is 4.0, expected 2.0."),
    # a condition or a comparison in code, blanks around its "=="
    ("    if delay == 2.0 and retries == 3:\n        raise Backoff()\nBackoff: got 4.0\n",
     "The check failed because delay is 4.0."),
    ("    ok = delay == 2.0\nBackoff: got 4.0\n", "The check failed because delay is 4.0."),
    ("    return delay == 2.0\nBackoff: got 4.0\n", "The check failed because delay is 4.0."),
    ("    print(delay == 2.0, retries)\nBackoff: got 4.0\n", "The check failed because delay is 4.0."),
])
def test_a_variable_an_assertion_compares_is_no_pinned_name(source, text):
    assert_accepted(_summarize(source, text))


_PINS = "numpy==1.26.2\npandas==2.1.3\n"


@pytest.mark.parametrize("source, text", [
    # the versions swapped between pinned names stay refused, however the pins are written
    (_PINS, "Pinned: numpy 2.1.3 and pandas 1.26.2."),
    (_PINS.replace("==", " == "), "Pinned: numpy 2.1.3 and pandas 1.26.2."),
    ('dependencies = ["numpy == 1.26.2", "pandas == 2.1.3"]\n', "Pinned: numpy 2.1.3 and pandas 1.26.2."),
    ('numpy == 1.26.2 ; python_version >= "3.9"\npandas == 2.1.3 ; python_version >= "3.9"\n',
     "Pinned: numpy 2.1.3 and pandas 1.26.2."),
    ("numpy == 1.26.2  # (pinned for the CUDA build)\npandas == 2.1.3\n", "Pinned: numpy 2.1.3 and pandas 1.26.2."),
    ("$ pip install numpy == 1.26.2 pandas == 2.1.3\n", "Installed numpy 2.1.3 and pandas 1.26.2."),
    # (each pin of the line: the one after the first has another pin's "==" before it)
    # a pin quoted in a pytest line is a requirement string
    ("E   pkg_resources.VersionConflict: Requirement.parse('numpy==1.25.0')\npandas==2.1.3\n",
     "numpy 2.1.3 is required."),
])
def test_pins_outside_assertions_still_own_their_versions(source, text):
    found = find(_summarize(source, text), "I1", key="number")
    assert found.value == "2.1.3"


def test_each_pin_of_a_line_of_pins_owns_its_version():
    # (the pin after the first has another pin's "==" before it, which is no assignment)
    verdict = _summarize("$ pip install pandas == 1.26.2 numpy == 2.1.3\n", "Installed numpy 1.26.2.")
    assert find(verdict, "I1", key="number").value == "1.26.2"


def test_a_long_line_of_comparisons_reads_each_line_start_once():
    # (the line's start is found once for all its matches: a 1 MB line of "x == 1.0" reads linearly)
    line = "assert " + " and ".join(f"v{k} == 1.{k}" for k in range(20_000)) + "\n"
    assert_accepted(_summarize(line + "v7 = 3.5\n", "v7 is 3.5."))


# F04's fifth case: the endpoint's actual version, compared in the assertion with the version the
# test expects, was refused as a measure written as a version (I1 "versions said")
_VERSION_FAILED = "    assert resp.json()['version'] == 1.5\nE   AssertionError: assert 1.4 == 1.5\n"
_DUNDER_FAILED = '    assert pkg.__version__ == "2.1"\nE   AssertionError: assert \'2.0\' == \'2.1\'\n'


@pytest.mark.parametrize("source, text", [
    (_VERSION_FAILED, "The endpoint reports version 1.4, the test expects 1.5."),
    (_DUNDER_FAILED, "The package is at version 2.0; the test expects 2.1."),
])
def test_the_value_an_assertion_compares_with_a_version_is_a_version(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("source, text, value", [
    (_VERSION_FAILED, "The endpoint reports version 1.6, the test expects 1.5.", "1.6"),
    # a number compared with no version, or with a measure, reads as no version
    ("    assert ratio == 1.5\nE   assert 1.4 == 1.5\n", "Ratio is version 1.4.", "1.4"),
    ("The build took 1.4 seconds.\nE   assert 1.4 == 2.0\n", "Built version 1.4.", "1.4"),
])
def test_a_number_compared_with_no_version_is_still_none(source, text, value):
    assert find(_summarize(source, text), "I1").value == value
