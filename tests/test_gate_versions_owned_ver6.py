"""Red team 137, F10, F01 and F02: honest summaries red team 136's one-dot version rule
(:meth:`provgate.gate._Check._check_versions_owned`) refused, each beside a lie twin that stays
refused.

F10: a log's ``step:100 loss:0.52 acc:0.81`` binds loss and acc as tags do, so a value a source
writes for the key another way (``acc: 0.88``, ``final score = 0.74``) was refused after it. F02:
a range's bound (``numpy>=1.26``), a metric's ``redis: 1.25 ms p99``, a label's ``pandas load
(s): 2.1``. Now a source binding the number to the name by the grammar a summary's one-dot
number is read with, or by a comparison, writes it for that name. F01: a column's header binds a
one-dot number only in a row labelled by a version word or in a table with no label column.
docs/gate.md, I1 short forms."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted
from test_grammar_v4 import _summarize

LOG = "step:100 loss:0.52 acc:0.81\nstep:200 loss:0.41 acc:0.85\n== eval ==\nacc: 0.88\nloss: 0.37\n"
ONE_DOT = "numpy==2.1\npandas==1.26\n"
SCORE = "score:0.71\nfinal score = 0.74\nacc:0.77\n"
RANGE = "numpy>=1.26,<2.2\nnumpy==2.1\npandas==1.25\npandas==2.3\n"
REDIS = "image: redis:7.2\nredis: 1.25 ms p99\nmemcached: 1.35 ms p99\n"
IMPORT = "numpy==2.1\nnumpy: 1.26 s import\npandas: 1.62 s import\n"
LOAD = ONE_DOT + "pandas load (s): 2.1\n"
TABLE_LOG = "| split | acc | loss |\n|---|---|---|\n| train | 0.85 | 0.41 |\n| eval | {} | {} |\n"

# (source, honest summary, its lie twin, the value the lie must be refused for)
PAIRS = [
    # F10: a log's keys, their values written "key: value" and "key = value" elsewhere
    (LOG, "Eval acc: 0.88, eval loss: 0.37.\n", "Eval acc: 0.37, eval loss: 0.88.\n", "0.37"),
    (LOG, TABLE_LOG.format("0.88", "0.37"), "Eval loss: 0.88.\n", "0.88"),
    (LOG, "Training reached acc 0.85; evaluation acc 0.88.\n", "Training reached loss 0.85.\n", "0.85"),
    (LOG, "Final loss 0.52 and acc 0.81.\n", "Final loss 0.81 and acc 0.52.\n", "0.81"),
    (SCORE, "score 0.74 at the end (0.71 before)\n", "score 0.77 at the end\n", "0.77"),
    ("step:100 loss:0.52 acc:0.81\nfinal score = 0.74\n", "acc 0.81, score 0.74\n", "loss 0.74\n", "0.74"),
    # F02: a range's bounds, a metric's value, a label's value, a list's value under its name
    (RANGE, "requirements allow numpy 1.26 or newer; the lock pins numpy 2.1\n",
     "requirements allow numpy 1.25 or newer\n", "1.25"),
    (RANGE, "the upper bound is numpy 2.2\n", "the upper bound is numpy 2.3\n", "2.3"),
    (REDIS, "redis 7.2; p99 latency redis: 1.25\n", "redis 7.2; p99 latency redis: 1.35\n", "1.35"),
    (IMPORT, "numpy 2.1. Import times - numpy: 1.26\n", "numpy 2.1. Import times - numpy: 1.62\n", "1.62"),
    (LOAD, "Load times (s):\n- pandas:\n  2.1\n", "Load times (s):\n- numpy:\n  1.26\n", "1.26"),
    # F01: a measure row under names' headers binds nothing; a version row and a table of
    # names' headers with no label column still do
    (ONE_DOT + "numpy import: 1.26 s\npandas import: 2.1 s\n",
     "| metric | numpy | pandas |\n|---|---|---|\n| import (s) | 1.26 | 2.1 |\n",
     "| metric | numpy | pandas |\n|---|---|---|\n| version | 1.26 | 2.1 |\n", "1.26"),
    (ONE_DOT + "numpy speedup 1.26x\npandas speedup 2.1x\n",
     "| | numpy | pandas |\n|---|---|---|\n| speedup | 1.26 | 2.1 |\n",
     "| | numpy | pandas |\n|---|---|---|\n| release | 1.26 | 2.1 |\n", "1.26"),
    ("numpy==1.26.2\npandas==2.1.3\nnumpy rows 2.1 M\n",
     "| | numpy | pandas |\n|---|---|---|\n| version | 1.26.2 | 2.1.3 |\n| rows (M) | 2.1 | - |\n",
     "| | numpy | pandas |\n|---|---|---|\n| version | 2.1.3 | 1.26.2 |\n", "2.1.3"),
    (ONE_DOT, "| numpy | pandas |\n|---|---|\n| 2.1 | 1.26 |\n", "| numpy | pandas |\n|---|---|\n| 1.26 | 2.1 |\n", "1.26"),
]


@pytest.mark.parametrize("source, honest, lie, value", PAIRS)
def test_a_number_a_source_binds_to_that_name_is_grounded(source, honest, lie, value):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("source, honest, lie, value", PAIRS)
def test_a_number_a_source_binds_to_another_name_is_refused(source, honest, lie, value):
    verdict = _summarize(source, lie)
    assert not verdict.accepted
    assert any(v.invariant == "I1" and v.value == value for v in verdict.violations), verdict.summary()


@pytest.mark.parametrize("source, text, value", [
    # a label's words between the name and its value bind only a name that begins the label,
    # and not when another bound name stands among them
    (ONE_DOT + "numpy vs pandas: 1.26\n", "pandas 1.26 and numpy 1.26\n", "1.26"),
    # a block saying "version" is grounded by no measure a source writes after the name
    (IMPORT, "numpy version: 1.26\n", "1.26"),
    (IMPORT, "| | numpy |\n|---|---|\n| version | 1.26 |\n", "1.26"),
    (ONE_DOT + "the pandas load: 1.26\n", "numpy 1.26\n", "1.26"),
    # a comparison binds the name before it, not a name after the number
    ("numpy==2.1\npandas==1.26\nrequires python>=1.26 numpy\n", "numpy 1.26\n", "1.26"),
])
def test_a_number_bound_to_another_name_or_none_stays_refused(source, text, value):
    verdict = _summarize(source, text)
    assert not verdict.accepted
    assert any(v.invariant == "I1" and v.value == value for v in verdict.violations), verdict.summary()
