"""An ordered list's item markers number its items and assert nothing of the sources
(docs/gate.md, I1 "list ordinals"; stop 66): ``1. The deploy failed.`` / ``2. The cache layer
was disabled.`` summarizing an incident note without a digit was refused for ``1`` and ``2``.
Lie/honest pairs over the same sources: numbered lists in the forms agents write accepted; a
number ending a sentence wrapped onto the next line, a wrong figure inside an item and a lone
marker that opens no list still asked."""

from __future__ import annotations

import pytest
from gate_helpers import GIT_LOG_THREE_COMMITS as GIT_LOG
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

INCIDENT = """The deploy failed because the database migration timed out.
The cache layer was disabled during the incident.
Alice restarted the workers five times and the queue drained.
The connection pool size is eight.
"""

HONEST = [
    (INCIDENT, "1. The deploy failed.\n2. The cache layer was disabled.\n3. Alice restarted the workers."),
    (INCIDENT, ("Summary:\n1. The deploy failed because the database migration timed out.\n"
                "2. The cache layer was disabled.")),
    (INCIDENT, "Key points:\n1) The deploy failed.\n2) The cache was disabled.\n3) Alice restarted the workers."),
    (INCIDENT, "What happened\n(1) The deploy failed.\n(2) Alice restarted the workers."),
    # (a lone first item under a lead-in line, a blank line or a heading)
    (INCIDENT, "Root cause:\n1. The database migration timed out."),
    (INCIDENT, "## Incident\n1. The database migration timed out."),
    (INCIDENT, "The incident, in short.\n\n1. The database migration timed out."),
    # (a nested list restarting at 1, indented under its item)
    (INCIDENT, ("1. The deploy failed.\n   1. The migration timed out.\n   2. The cache was disabled.\n"
                "2. Alice restarted the workers.")),
    # (a list whose first item is not shown: numbering goes on from 3)
    (INCIDENT, "Continuing:\n3. Alice restarted the workers.\n4. The queue drained."),
    (GIT_LOG, ("The last 3 commits are:\n1. 4f1e2d3 Fix retry backoff in http client\n2. 9c8b7a6 Add Redis cache layer\n"
               "3. 1a2b3c4 Bump numpy")),
]

# (lie, the value refused)
LIES = [
    # a sentence's figure wrapped onto the next line is no marker: its neighbours do not count with it
    (INCIDENT, "The connection pool size is\n1. Then the deploy failed.", "1"),
    (INCIDENT, "Alice restarted the workers\n9. Then the queue drained.\nThe cache was disabled.", "9"),
    # a figure inside an item is asked as any figure is
    (INCIDENT, "1. The deploy failed.\n2. Alice restarted the workers 7 times.", "7"),
    # a lone marker other than 1, under a line of prose, opens no list
    (INCIDENT, "The pool size is\n12. The deploy failed.", "12"),
    # two markers of one number are no list
    (INCIDENT, "The pool size is\n4. The deploy failed.\nThe restarts were\n4. The queue drained.", "4"),
    # a marker's figure that is not the marker whole ("1.5") is a figure
    (INCIDENT, "1.5 The deploy failed.\n2. The cache layer was disabled.", "1.5"),
]


@pytest.mark.parametrize("source, honest", HONEST)
def test_an_ordered_list_s_markers_number_its_items(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("source, lie, value", LIES)
def test_a_figure_that_numbers_no_list_item_is_still_asked(source, lie, value):
    find(_summarize(source, lie), "I1", value=value)


# a block's own numbered steps ("Step 1: ... Step 2: ..."), the same idea inline (stop 66)
STEP_HONEST = [
    "Step 1: the database migration timed out. Step 2: the deploy failed.",
    "**Step 1:** the migration timed out\n**Step 2:** Alice restarted the workers",
    "Phase 1 - the migration timed out.\nPhase 2 - the deploy failed.\nPhase 3 - the queue drained.",
    "Step 1 \u2014 the migration timed out. Step 2 \u2014 the deploy failed.",
]

STEP_LIES = [
    # a lone label names a step of the sources: asked
    ("Phase 3: the deploy failed.", "3"),
    # a sequence broken: 4 follows no 3
    ("Step 1: the migration timed out. Step 2: the deploy failed. Step 4: the queue drained.", "4"),
    # two words do not make one sequence
    ("Step 1: the migration timed out. Phase 2: the deploy failed.", "2"),
    # a step's own figure is asked as any figure is
    ("Step 1: Alice restarted the workers 6 times. Step 2: the queue drained.", "6"),
    # no label without its colon or dash: "in step 2" tells which step of the sources
    ("The deploy failed in step 2. Step 1: the migration timed out.", "2"),
]


@pytest.mark.parametrize("honest", STEP_HONEST)
def test_a_block_s_own_numbered_steps_number_its_steps(honest):
    assert_accepted(_summarize(INCIDENT, honest))


@pytest.mark.parametrize("lie, value", STEP_LIES)
def test_a_step_number_outside_the_block_s_own_sequence_is_still_asked(lie, value):
    find(_summarize(INCIDENT, lie), "I1", value=value)
