"""A commit given another commit's date by its month and a one-digit day is refused by the
identifier re-pairing rule (docs/gate.md, I1 "identifiers re-paired"; red team 142, F09):
"1a2b3c4 (Mar 4) bumps numpy." of ``git log -3`` was accepted, Mar 4 being 9c8b7a6's date: a
one-byte token pairs nothing, so the day was never a partner, and the month is every commit's.
The day is read with its month as one token, of the commit's ``Date:`` line and of the
summary's clause. Lie/honest pairs of the default ``git log -3``."""

from __future__ import annotations

import pytest
from gate_helpers import GIT_LOG_THREE_COMMITS as GIT_LOG
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

from provgate.gate import _paired_index

# (the lie, the value refused, the date as the lie writes it, its honest twin)
PAIRS = [
    ("1a2b3c4 (Mar 4) bumps numpy.", "1a2b3c4", "Mar 4", "1a2b3c4 (Mar 1) bumps numpy."),
    ("1a2b3c4 (Mar 5) bumps numpy.", "1a2b3c4", "Mar 5", "1a2b3c4 (Fri Mar 1) bumps numpy to 1.26.4."),
    ("9c8b7a6 (Mar 1) adds a Redis cache layer.", "9c8b7a6", "Mar 1", "9c8b7a6 (Mar 4) adds a Redis cache layer."),
    ("4f1e2d3 (March 4) fixes the retry backoff.", "4f1e2d3", "March 4", "4f1e2d3 (March 5) fixes the retry backoff."),
    ("9c8b7a6 was committed on Mar 1.", "9c8b7a6", "Mar 1", "9c8b7a6 was committed on Mar 4."),
    ("| Commit | Author | Date | Message |\n|---|---|---|---|\n| 1a2b3c4 | Jane Doe | Mar 4 | Bump numpy |",
     "1a2b3c4", "Mar 4",
     "| Commit | Author | Date | Message |\n|---|---|---|---|\n| 1a2b3c4 | Jane Doe | Mar 1 | Bump numpy |"),
]


@pytest.mark.parametrize(("lie", "value", "date", "honest"), PAIRS)
def test_a_commit_given_another_commits_date_is_refused(lie, value, date, honest):
    found = find(_summarize(GIT_LOG, lie), "I1", block="s", value=value)
    assert found.evidence["change"] == "identifier_repaired"
    assert found.evidence["partner"] == date
    assert_accepted(_summarize(GIT_LOG, honest))


@pytest.mark.parametrize("honest", [
    "1a2b3c4 bumps numpy.",
    "1a2b3c4 (March 1, 2024) bumps numpy.",
    "On Mar 4, Bob Smith added a Redis cache layer (9c8b7a6).",
    "Commits: 4f1e2d3 (Mar 5, Jane Doe), 9c8b7a6 (Mar 4, Bob Smith), 1a2b3c4 (Mar 1, Jane Doe).",
    ("| Commit | Author | Date | Message |\n|---|---|---|---|\n"
     "| 4f1e2d3 | Jane Doe | Mar 5 | Fix retry backoff in http client |\n"
     "| 9c8b7a6 | Bob Smith | Mar 4 | Add Redis cache layer |\n| 1a2b3c4 | Jane Doe | Mar 1 | Bump numpy to 1.26.4 |"),
    "- 9c8b7a6 (Bob Smith, Mar 4): Add Redis cache layer",
    "4f1e2d3 on 5 Mar fixes retry backoff.",
    "9c8b7a6 and 1a2b3c4 were made between Mar 1 and Mar 4.",
    "Jane Doe fixed the retry backoff on Mar 5 (4f1e2d3), after Bob Smith added the Redis cache on Mar 4 (9c8b7a6).",
    "The log spans Mar 1 to Mar 5: 4f1e2d3 fixes retry backoff, 9c8b7a6 adds Redis caching, 1a2b3c4 bumps numpy.",
    ("- 4f1e2d3 (Tue Mar 5) Fix retry backoff in http client\n- 9c8b7a6 (Mon Mar 4) Add Redis cache layer\n"
     "- 1a2b3c4 (Fri Mar 1) Bump numpy to 1.26.4"),
    "4f1e2d3 (Mar 5) fixes the retry backoff; 9c8b7a6 (Mar 4) adds a Redis cache layer.",
])
def test_honest_dates_of_a_git_log_s_commits_stay_accepted(honest):
    assert_accepted(_summarize(GIT_LOG, honest))


def test_a_commit_s_date_is_one_token_of_its_record():
    index = _paired_index(GIT_LOG.encode())
    value_tokens = index.token_lines[1]
    assert len(value_tokens[b"mar 4"]) == len(value_tokens[b"mar 1"]) == 1
    assert value_tokens[b"mar 4"] != value_tokens[b"mar 1"]
