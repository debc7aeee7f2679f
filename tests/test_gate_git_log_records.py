"""A value and its partner apart by a markdown table's cell border or a dash are paired by the
identifier re-pairing rule (docs/gate.md, I1 "identifiers re-paired"; red team 142, F09). The
rule's lead read only a blank between a value and its word, so "| 9c8b7a6 | Jane Doe | Add Redis
cache layer |" (another commit's author) and "9c8b7a6 — Fix retry backoff in http client"
(another commit's message, verbatim) were never asked, while the prose forms were refused.
Lie/honest pairs of the default ``git log -3``."""

from __future__ import annotations

import pytest
from gate_helpers import GIT_LOG_THREE_COMMITS as GIT_LOG
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

# (the lie, the value refused, the partner named, its honest twin)
PAIRS = [
    ("9c8b7a6 \u2014 Fix retry backoff in http client", "9c8b7a6", "Fix",
     "4f1e2d3 \u2014 Fix retry backoff in http client"),
    ("9c8b7a6 \u2013 Fix retry backoff in http client", "9c8b7a6", "Fix",
     "9c8b7a6 \u2013 Add Redis cache layer"),
    ("- `1a2b3c4` \u2014 Add Redis cache layer", "1a2b3c4", "Add", "- `1a2b3c4` \u2014 Bump numpy to 1.26.4"),
    ("| 9c8b7a6 | Jane Doe | Add Redis cache layer |", "9c8b7a6", "Jane",
     "| 9c8b7a6 | Bob Smith | Add Redis cache layer |"),
    ("| 1a2b3c4 | Jane Doe | Fix retry backoff in http client |", "1a2b3c4", "Fix",
     "| 1a2b3c4 | Jane Doe | Bump numpy to 1.26.4 |"),
    ("| **4f1e2d3** | Bob Smith | Fix retry backoff |", "4f1e2d3", "Bob", "| **4f1e2d3** | Jane Doe | Fix retry backoff |"),
]


@pytest.mark.parametrize(("lie", "value", "partner", "honest"), PAIRS)
def test_a_commit_given_another_commits_partner_across_a_cell_border_or_dash_is_refused(lie, value, partner, honest):
    found = find(_summarize(GIT_LOG, lie), "I1", block="s", value=value)
    assert found.evidence["change"] == "identifier_repaired"
    assert found.evidence["partner"] == partner
    assert_accepted(_summarize(GIT_LOG, honest))


@pytest.mark.parametrize("honest", [
    "| 4f1e2d3 | Jane Doe | Fix retry backoff in http client |\n| 9c8b7a6 | Bob Smith | Add Redis cache layer |",
    ("| 4f1e2d3 | Jane Doe | Fix retry backoff in http client |\n| 9c8b7a6 | Bob Smith | Add Redis cache layer |\n"
     "| 1a2b3c4 | Jane Doe | Bump numpy to 1.26.4 |"),
    ("- 4f1e2d3 \u2014 Fix retry backoff in http client (Jane Doe)\n- 9c8b7a6 \u2014 Add Redis cache layer (Bob Smith)\n"
     "- 1a2b3c4 \u2014 Bump numpy to 1.26.4 (Jane Doe)"),
    "Last three commits: 4f1e2d3 \u2014 retry backoff fix; 9c8b7a6 \u2014 Redis cache layer; 1a2b3c4 \u2014 numpy bump.",
    "`4f1e2d3` | Jane Doe | Fix retry backoff in http client",
    "4f1e2d3 \u2014 Jane Doe \u2014 Fix retry backoff in http client",
])
def test_honest_tables_and_dashed_lists_of_a_git_log_stay_accepted(honest):
    assert_accepted(_summarize(GIT_LOG, honest))
