"""Red team 137, F03: one-dot versions swapped between pinned names in forms red team 136's
rule (:meth:`provgate.gate._Check._check_versions_owned`) bound to no name, so ``numpy ~1.26``
of ``numpy==2.1`` / ``pandas==1.26`` was grounded by the verbatim ``1.26``: a range's ``~`` or
``^``, a comma, a dash or an arrow, a possessive, ``ver.``, verbs ("is pinned to", "was bumped
to"), the name after the number ("1.26 of numpy"), lists paired by "respectively", a heading's
name over "Version 1.26", and a table row labelled "pinned". Each lie beside its honest twin;
measures after names, ranges and upgrades the sources write stay accepted. docs/gate.md, I1
short forms."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted
from test_grammar_v4 import _summarize

from provgate import gate

ONE_DOT = "numpy==2.1\npandas==1.26\n"
NPM = "npm i lodash@4.17 react@18.2\n"
THREE = ONE_DOT + "scipy==1.12\n"
PIP = "Successfully installed requests-2.31.0 urllib3-2.0.7\n"
PINS = "numpy==1.26.2\npandas==2.1.3\n"

# (source, honest summary, its lie twin, the value the lie must be refused for)
PAIRS = [
    (ONE_DOT, "numpy ~2.1 and pandas ~1.26\n", "numpy ~1.26 and pandas ~2.1\n", "1.26"),
    (NPM, "lodash ^4.17 and react ^18.2\n", "lodash ^18.2 and react ^4.17\n", "18.2"),
    (ONE_DOT, "numpy, 2.1; pandas, 1.26\n", "numpy, 1.26; pandas, 2.1\n", "1.26"),
    (ONE_DOT, "numpy - 2.1, pandas - 1.26\n", "numpy - 1.26, pandas - 2.1\n", "1.26"),
    (ONE_DOT, "numpy \u2014 2.1; pandas \u2013 1.26\n", "numpy \u2014 1.26\n", "1.26"),
    (ONE_DOT, "numpy -> 2.1, pandas \u2192 1.26\n", "numpy -> 1.26\n", "1.26"),
    (ONE_DOT, "numpy's 2.1 release\n", "numpy's 1.26 release\n", "1.26"),
    (ONE_DOT, "numpy\u2019s 2.1 release\n", "numpy\u2019s 1.26 release\n", "1.26"),
    (ONE_DOT, "numpy ver. 2.1\n", "numpy ver. 1.26\n", "1.26"),
    (ONE_DOT, "numpy is pinned to 2.1 and pandas is locked at 1.26.\n", "numpy is pinned to 1.26\n", "1.26"),
    (ONE_DOT, "numpy was bumped to 2.1.\n", "numpy was upgraded to 1.26.\n", "1.26"),
    (ONE_DOT, "numpy is now pinned at version 2.1.\n", "numpy is now pinned at version 1.26.\n", "1.26"),
    (ONE_DOT, "2.1 of numpy and 1.26 of pandas\n", "1.26 of numpy and 2.1 of pandas\n", "1.26"),
    (ONE_DOT, "Installed version 2.1 of numpy.\n", "Installed version 1.26 of numpy.\n", "1.26"),
    (PIP, "Installed 2.0.7 of urllib3.\n", "Installed 2.31.0 of urllib3.\n", "2.31.0"),
    (ONE_DOT, "numpy and pandas are at 2.1 and 1.26 respectively.\n",
     "numpy and pandas are at 1.26 and 2.1 respectively.\n", "1.26"),
    (THREE, "numpy, pandas and scipy are pinned to 2.1, 1.26 and 1.12, respectively.\n",
     "numpy, pandas and scipy are pinned to 2.1, 1.12 and 1.26, respectively.\n", "1.12"),
    # (a three-part version's nearest glued name was read before: the honest pairing was refused)
    (PINS, "numpy and pandas are at 1.26.2 and 2.1.3 respectively.\n",
     "numpy and pandas are at 2.1.3 and 1.26.2 respectively.\n", "2.1.3"),
    (ONE_DOT, "### numpy\nVersion 2.1\n### pandas\nVersion 1.26\n", "### numpy\nVersion 1.26\n", "1.26"),
    (ONE_DOT, "| | numpy | pandas |\n|---|---|---|\n| pinned | 2.1 | 1.26 |\n",
     "| | numpy | pandas |\n|---|---|---|\n| pinned | 1.26 | 2.1 |\n", "1.26"),
    (ONE_DOT, "| package | pinned | note |\n|---|---|---|\n| numpy | 2.1 | ok |\n",
     "| package | pinned | note |\n|---|---|---|\n| numpy | 1.26 | ok |\n", "1.26"),
]


@pytest.mark.parametrize("source, honest, lie, value", PAIRS)
def test_a_version_bound_to_its_own_name_is_grounded(source, honest, lie, value):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("source, honest, lie, value", PAIRS)
def test_a_version_bound_to_another_name_is_refused(source, honest, lie, value):
    verdict = _summarize(source, lie)
    assert not verdict.accepted
    assert any(v.invariant == "I1" and v.value == value for v in verdict.violations), verdict.summary()


@pytest.mark.parametrize("source, text", [
    # measures after names, by the new binders too
    (ONE_DOT + "numpy 1.26 s\n", "numpy 1.26 s\n"),
    (ONE_DOT + "pandas speedup 2.1 times\n", "pandas: 2.1 times faster\n"),
    (ONE_DOT + "numpy import: 1.26 s\npandas import: 2.1 s\n", "numpy and pandas import in 1.26 and 2.1 s respectively.\n"),
    (ONE_DOT + "numpy speedup 1.26x\n", "numpy's 1.26x speedup, numpy - 1.26 s, 1.26 s of numpy's import\n"),
    (ONE_DOT + "numpy speedup 1.26\n", "Speedups: numpy, 1.26.\n"),
    # ranges and upgrades the sources write
    ("numpy>=1.26\nnumpy==2.1\n", "numpy>=1.26\n"),
    ("numpy>=1.26,<2.2\nnumpy==2.1\n", "numpy (>=1.26) is locked at 2.1\n"),
    ("-numpy==1.26\n+numpy==2.1\n", "Upgraded numpy from 1.26 to 2.1\n"),
    ("Found existing installation: numpy 1.26\nSuccessfully installed numpy-2.1\n", "numpy: 1.26 -> 2.1\n"),
    ("Found existing installation: numpy 1.26\nSuccessfully installed numpy-2.1\n", "numpy 1.26 \u2192 2.1\n"),
    ("FROM python:3.11\nRUN pip install numpy==2.1\n", "numpy 2.1 on python 3.11; numpy, 2.1\n"),
    # a paragraph's end between a heading's name and a number binds none
    (ONE_DOT + "speedup 1.26\n", "### numpy\n\n1.26 is the speedup.\n"),
])
def test_measures_ranges_and_upgrades_stay_grounded(source, text):
    assert_accepted(_summarize(source, text))


def test_the_bound_name_is_read_through_the_new_binders():
    for before in ("numpy ~", "numpy ~= ", "numpy, ", "numpy - ", "numpy \u2014 ", "numpy -> ", "numpy's ",
                   "numpy ver. ", "numpy is pinned to ", "### numpy\nVersion ", "- numpy:\n  version: "):
        data = before.encode()
        assert gate._name_bound_before(data, len(data)) == b"numpy", before
    # (a comparison, a number before an arrow, a blank line: no name bound)
    for before in ("numpy >= ", "numpy 1.26 -> ", "### numpy\n\n", "### numpy\n\nVersion "):
        data = before.encode()
        assert gate._name_bound_before(data, len(data)) in (None, b"Version"), before


def test_respectively_pairs_only_lists_of_as_many_items():
    data = b"numpy and pandas are at 1.26 and 2.1 respectively. numpy, pandas and scipy: 1.26 and 2.1 respectively."
    pairs = gate._paired_respectively(data)
    assert sorted(pairs.values()) == [b"numpy", b"pandas"]
    assert pairs[data.index(b"1.26")] == b"numpy"


def test_respectively_reads_a_long_text_in_linear_time():
    # (each sentence read within a bounded reach: 1 MB of lists and "respectively" read once)
    data = (b"numpy and pandas are at 1.26 and 2.1 respectively; " * 20000) + b"1.2, " * 50000 + b"respectively"
    pairs = gate._paired_respectively(data)
    assert len(pairs) == 40000


# red team 139, F07: everyday forms the word list lacked (an auxiliary or an adverb before the
# verb, "is on", "requires"), more dashes and arrows, ";", a curly possessive, the name after the
# number by "for" or in brackets, lists parted by "/", and "respectively" before the versions.
# ONE_DOT pins numpy==2.1 and pandas==1.26: each lie gives numpy pandas's 1.26.
GRAMMAR_PAIRS = [
    (ONE_DOT, f"numpy {words} 2.1\n", f"numpy {words} 1.26\n", "1.26")
    for words in ("has been bumped to", "has been upgraded to", "got bumped to", "was recently bumped to", "is on",
                  "is now on", "has version", "requires", "will be pinned to", "-->", "\u21d2", "\u2212", "\u2015", "--")
] + [
    (ONE_DOT, "numpy's been bumped to 2.1\n", "numpy's been bumped to 1.26\n", "1.26"),
    (ONE_DOT, "numpy; 2.1\n", "numpy; 1.26\n", "1.26"),
    (ONE_DOT, "numpy\u2019 2.1\n", "numpy\u2019 1.26\n", "1.26"),
    (ONE_DOT, "2.1 for numpy\n", "1.26 for numpy\n", "1.26"),
    (ONE_DOT, "2.1 (numpy)\n", "1.26 (numpy)\n", "1.26"),
    (ONE_DOT, "numpy/pandas at 2.1/1.26\n", "numpy/pandas at 1.26/2.1\n", "1.26"),
    (ONE_DOT, "numpy/pandas: 2.1/1.26\n", "numpy/pandas: 1.26/2.1\n", "1.26"),
    (ONE_DOT, "numpy and pandas are, respectively, at 2.1 and 1.26\n",
     "numpy and pandas are, respectively, at 1.26 and 2.1\n", "1.26"),
]


@pytest.mark.parametrize("source, honest, lie, value", GRAMMAR_PAIRS)
def test_a_version_bound_by_the_grammar_to_its_own_name_is_grounded(source, honest, lie, value):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("source, honest, lie, value", GRAMMAR_PAIRS)
def test_a_version_bound_by_the_grammar_to_another_name_is_refused(source, honest, lie, value):
    verdict = _summarize(source, lie)
    assert not verdict.accepted
    assert any(v.invariant == "I1" and v.value == value for v in verdict.violations), verdict.summary()


@pytest.mark.parametrize("text", [
    # a ";" binds only the number right after it: a version said after it is a new clause's
    "Uses numpy; version 1.26 is the pandas line.\n",
    # the name after "for" or in brackets is not asked where the name before it is a pinned one
    "pandas 1.26 for numpy users\n",
    "pandas 1.26 (numpy)\n",
    # scores and speedups the sources write as no version stay accepted in the new forms
    "Speedup 1.7 for numpy and 0.4 for pandas; numpy has 8.9; numpy got 7.5; numpy -- 0.8\n",
    "numpy/pandas speedups: 1.7/0.4\n",
    "numpy and pandas are, respectively, 1.7 and 0.4 times as fast\n",
])
def test_the_new_forms_leave_scores_and_other_clauses_alone(text):
    results = '[{"library": "numpy", "speedup": 1.7, "score": 8.9, "mean_s": 0.8, "rank": 7.5}, {"library": "pandas", "speedup": 0.4}]'
    assert_accepted(_summarize(ONE_DOT + results, text))


def test_the_paired_lists_are_read_in_linear_time():
    """Many "respectively" and "/" lists, none pairing (and one that does), read in one pass."""
    text = (b"a and b are, respectively, " * 20000) + (b"x/y/z at " * 20000) + b"numpy/pandas at 2.1/1.26"
    pairs = gate._paired_lists(text, [at for at in range(len(text)) if text[at] == 0x2F], True)
    assert sorted(pairs.values()) == [b"numpy", b"pandas"]
