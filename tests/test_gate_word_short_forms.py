"""A short form engineers write for a word a source spells out is that word (docs/gate.md, I1
"word short forms"; stop 66): "Cause: DB migration timeout." of a note saying "the database
migration timed out" was refused for ``DB``. Lie/honest pairs: the short form accepted where a
source writes its word; where none does, and for other capitalized names, still asked."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

INCIDENT = """The deploy failed because the database migration timed out.
Alice restarted the workers and the queue drained.
"""
KUBECTL = "$ kubectl get pods -n prod\nNAME   READY   STATUS\napi-x   1/1   Running\n"

HONEST = [
    (INCIDENT, "Status: deploy FAILED. Cause: DB migration timeout."),
    (INCIDENT, "The DB migration timed out, so the deploy failed."),
    (KUBECTL, "The K8s pod api-x is Running."),
]

LIES = [
    # no source writes the word
    (KUBECTL, "The DB is down and api-x is Running.", "DB"),
    (INCIDENT, "The K8s deploy failed.", "K8s"),
    # only the listed forms: another capitalized short name is asked
    (INCIDENT, "The DBX migration timed out.", "DBX"),
]


@pytest.mark.parametrize("source, honest", HONEST)
def test_a_short_form_of_a_word_a_source_writes_is_that_word(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("source, lie, value", LIES)
def test_a_short_form_no_source_spells_out_is_still_asked(source, lie, value):
    find(_summarize(source, lie), "I1", value=value)
