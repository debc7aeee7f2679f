"""Red team 141's rest (docs/gate.md): a git log summary whose second statement after "and" was
read as the first's clause and refused (identifiers re-paired, a false refusal of the stop's own
git log records), and counts spelled out after their key swapped between files (F06: "config/a.yaml
retries five times" accepted where "retries 5 times" was refused). Each lie has an honest twin
that stays accepted."""

from __future__ import annotations

import pytest
from gate_helpers import GIT_LOG_THREE_COMMITS as GIT_LOG
from gate_helpers import assert_accepted, find, store_with, summary, tool
from test_grammar_v4 import _summarize

from provgate.gate import Gate

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


# -- values per file: a count spelled out after its key (F06) ------------------------------------

A = "retries: 3\nworkers: 4\ntimeout: 30s\n"
B = "retries: 5\nworkers: 8\ntimeout: 45s\n"


def summarize_files(text: str):
    sources = {"tool:a": A, "tool:b": B}
    reads = [tool("a", "tool:a", A, resource="file:config/a.yaml"),
             tool("b", "tool:b", B, resource="file:config/b.yaml")]
    return Gate(store_with(sources)).check(reads, [summary("s", text, list(sources))], operator="summarize")


# (the lie, the key and value refused, its honest twin)
SPELLED = [
    ("config/a.yaml retries five times; config/b.yaml retries three times.", "retries", "5",
     "config/a.yaml retries three times; config/b.yaml retries five times."),
    ("config/a.yaml sets retries to five and config/b.yaml sets it to three.", "retries", "5",
     "config/a.yaml sets retries to three and config/b.yaml sets it to five."),
    ("config/a.yaml has retries: five; config/b.yaml has retries: three.", "retries", "5",
     "config/a.yaml has retries: three; config/b.yaml has retries: five."),
    ("config/a.yaml: workers eight, retries five.", "workers", "8",
     "config/a.yaml: workers four, retries three."),
    ("In config/b.yaml, workers is four.", "workers", "4", "In config/b.yaml, workers is eight."),
]


@pytest.mark.parametrize(("lie", "key", "value", "honest"), SPELLED)
def test_a_count_spelled_after_its_key_is_the_files(lie, key, value, honest):
    find(summarize_files(lie), "I1", block="s", key=key, value=value, evidence__change="value_of_another_file")
    assert_accepted(summarize_files(honest))


@pytest.mark.parametrize("honest", [
    "config/a.yaml retries three times with four workers; config/b.yaml retries five times with eight workers.",
    "config/b.yaml: retries five, workers eight, timeout 45s.",
    "config/a.yaml sets workers to four and retries to three.",
])
def test_each_file_given_its_own_spelled_values_stays_accepted(honest):
    assert_accepted(summarize_files(honest))


# -- booleans told reversed (F19) -----------------------------------------------------------------

PR_JSON = """$ curl -s https://api.github.com/repos/acme/api/pulls/87
{
  "number": 87,
  "title": "Add Redis cache layer",
  "state": "open",
  "user": {"login": "bobsmith", "site_admin": false},
  "draft": true,
  "mergeable": false,
  "additions": 214,
  "deletions": 37,
  "changed_files": 6
}
"""
APP_YAML = "cache:\n  enabled: false\n  ttl: 300\ndebug: true\nworkers: 4\n"


# (source, the lie, the word refused, its honest twin)
BOOLEANS = [
    (PR_JSON, "PR #87 by bobsmith is open and mergeable; it changes 6 files.", "mergeable",
     "PR #87 by bobsmith is open but not mergeable; it changes 6 files."),
    (PR_JSON, "PR #87 is mergeable.", "mergeable", "PR #87 isn't mergeable."),
    (PR_JSON, "PR #87 is open; mergeable: true.", "mergeable", "PR #87 is open; mergeable: false."),
    (PR_JSON, "PR #87 is not a draft.", "draft", "PR #87 is still a draft."),
    (PR_JSON, "PR #87 is open, no longer a draft.", "draft", "PR #87 is open, a draft."),
    ('{"name": "api", "private": true, "archived": false}', "The api repo is public and archived.", "archived",
     "The api repo is private and not archived."),
    (APP_YAML, "The app runs 4 workers and debug is not enabled; debug is false.", "debug",
     "The app runs 4 workers; debug is true."),
]


@pytest.mark.parametrize(("source", "lie", "word", "honest"), BOOLEANS)
def test_a_boolean_key_told_reversed_is_refused(source, lie, word, honest):
    found = find(_summarize(source, lie), "I1", block="s", evidence__change="boolean_reversed")
    assert found.key == word
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize(("source", "honest"), [
    # a condition states no state
    (PR_JSON, "Once PR #87 is mergeable, bobsmith can merge it."),
    (PR_JSON, "If the PR were mergeable it could be merged now."),
    # a nested object's key is another thing's (the user's site_admin, the cache's enabled)
    (PR_JSON, "bobsmith is an admin of the site."),
    (APP_YAML, "The app runs 4 workers with debug on."),
    # the word said of no record (no copula before it)
    (PR_JSON, "The api reports mergeable as false for PR #87."),
])
def test_a_boolean_key_not_told_as_a_state_stays_accepted(source, honest):
    assert_accepted(_summarize(source, honest))
