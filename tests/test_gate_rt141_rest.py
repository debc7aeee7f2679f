"""Red team 141's rest (docs/gate.md): a git log summary whose second statement after "and" was
read as the first's clause and refused (identifiers re-paired, a false refusal of the stop's own
git log records), and counts spelled out after their key swapped between files (F06: "config/a.yaml
retries five times" accepted where "retries 5 times" was refused). Each lie has an honest twin
that stays accepted."""

from __future__ import annotations

import pytest
from gate_helpers import GIT_LOG_THREE_COMMITS as GIT_LOG
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

# -- identifiers re-paired: a statement of its own after "and" is its own record's clause ----------

GIT_LOG_HONEST = [
    ("The most recent commit is 4f1e2d3 by Jane Doe on 2024-03-05, fixing the retry backoff; before it "
     "Bob added the Redis cache (9c8b7a6) and Jane bumped numpy to 1.26.4."),
    "Bob added the Redis cache (9c8b7a6) and Jane bumped numpy to 1.26.4.",
    "Jane bumped numpy to 1.26.4 and Bob Smith added the Redis cache in 9c8b7a6.",
    "Bob Smith added the Redis cache in 9c8b7a6, but Jane Doe fixed the retry backoff.",
]


@pytest.mark.parametrize("honest", GIT_LOG_HONEST)
def test_a_second_statement_after_and_is_its_own_records(honest):
    assert_accepted(_summarize(GIT_LOG, honest))


# (the lie, the value refused, the partner it is paired with)
GIT_LOG_LIES = [
    # each half's own swap is still read in its half
    ("Jane added the Redis cache (9c8b7a6) and Bob bumped numpy to 1.26.4.", "9c8b7a6", "Jane"),
    ("Bob added the Redis cache (1a2b3c4) and Jane bumped numpy to 1.26.4.", "1a2b3c4", "Bob"),
    ("Jane bumped numpy to 1.26.4 and Bob Smith added the Redis cache in 4f1e2d3.", "4f1e2d3", "Bob"),
    # no subject of its own: the first statement's
    ("Bob added the Redis cache (9c8b7a6) and bumped numpy to 1.26.4.", "9c8b7a6", "1.26.4"),
    # a statement referring back to the first is the first's
    ("9c8b7a6 is the newest commit and Jane Doe wrote it.", "9c8b7a6", "Jane"),
]


@pytest.mark.parametrize(("lie", "value", "partner"), GIT_LOG_LIES)
def test_a_records_value_paired_across_and_is_still_refused(lie, value, partner):
    found = find(_summarize(GIT_LOG, lie), "I1", block="s", value=value)
    assert found.evidence["change"] == "identifier_repaired"
    assert found.evidence["partner"] == partner
