"""A count a summary tells with a key's noun is a value its sources set that key to (red team
141, F19: "PR #87 changes 37 files with 214 additions" of ``"changed_files": 6, "deletions":
37`` was accepted, 37 being grounded by another key). docs/gate.md, I1 "counted keys"."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

PR = '{"number": 87, "additions": 214, "deletions": 37, "changed_files": 6, "renamed": 2}\n'
CONFIG = "retries: 3\nworkers: 5\nmax_replicas: 4\n"


@pytest.mark.parametrize(("source", "honest", "lie", "value"), [
    pytest.param(PR, "It changes 6 files with 214 additions.\n", "It changes 37 files with 214 additions.\n", "37",
                 id="a count moved to a compound key"),
    pytest.param(PR, "214 additions and 37 deletions.\n", "37 additions and 214 deletions.\n", "37",
                 id="two keys' counts swapped"),
    pytest.param(PR, "6 files changed, 2 files renamed.\n", "2 files changed.\n", "2", id="count, noun, other word"),
    pytest.param(PR, "It has 6 changed files.\n", "It has 2 changed files.\n", "2", id="count, other word, noun"),
    pytest.param(CONFIG, "It makes 3 retries with 5 workers.\n", "It makes 5 retries with 3 workers.\n", "5",
                 id="a config's counts swapped"),
])
def test_a_count_told_with_a_keys_noun_is_that_keys_value(source, honest, lie, value):
    assert_accepted(_summarize(source, honest))
    found = find(_summarize(source, lie), "I1", value=value)
    assert found.evidence.get("change") == "value_of_another_key"


@pytest.mark.parametrize(("source", "text"), [
    # a count no key holds is left to grounding, which finds it in the prose that says it
    (CONFIG + "after 5 retries the job failed\n", "After 5 retries the job failed.\n"),
    # a noun no key of the sources ends in, or a singular one
    (CONFIG, "3 retries per job; 5 workers; 4 replicas at most.\n"),
    # two sources setting the key to two values: either is the key's
    (CONFIG + "---\nretries: 5\n", "It makes 5 retries.\n"),
    # the other word of a compound key across a clause mark counts nothing
    (PR, "6 files changed, 2 files renamed, 214 additions.\n"),
])
def test_a_count_the_sources_bear_out_is_accepted(source, text):
    assert_accepted(_summarize(source, text))
