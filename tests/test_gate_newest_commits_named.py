"""A count of a log's newest commits under its whole is grounded, and the commits it names are
the log's first (docs/gate.md, I1 "counted rows told"): "The 2 most recent commits are 4f1e2d3
and 9c8b7a6." of ``git log -3`` was refused as a number no source holds (the count grounded
only when it was the log's whole), the answer an agent asked for "the last two commits"
writes. A count of the newest commits that names others than the log's first, or more of them
than it counts, or names its own list out of the log's order, is refused; more commits than
the log shows stay refused."""

from __future__ import annotations

import pytest
from gate_helpers import GIT_LOG_THREE_COMMITS as GIT_LOG
from gate_helpers import assert_accepted, find
from test_gate_counted_rows import GIT_STATUS, ONELINE
from test_grammar_v4 import _summarize

HONEST = [
    (GIT_LOG, "The 2 most recent commits are 4f1e2d3 and 9c8b7a6."),
    (GIT_LOG, "Last 2 commits: 4f1e2d3 (Jane Doe), 9c8b7a6 (Bob Smith)."),
    (GIT_LOG, "The two most recent commits are 4f1e2d3 and 9c8b7a6."),
    (GIT_LOG, "The last two commits: 4f1e2d3 (Jane Doe) and 9c8b7a6 (Bob Smith)."),
    (GIT_LOG, "The latest 2 commits are 4f1e2d3 by Jane Doe and 9c8b7a6 by Bob Smith."),
    (GIT_LOG, "The 2 newest commits: 4f1e2d3, 9c8b7a6."),
    (GIT_LOG, "The last 2 commits were by Jane Doe and Bob Smith."),
    (GIT_LOG, "The 2 most recent commits fix the retry backoff and add a Redis cache layer."),
    (GIT_LOG, ("Last 2 commits:\n- 4f1e2d3 Fix retry backoff in http client (Jane Doe)\n"
               "- 9c8b7a6 Add Redis cache layer (Bob Smith)\n")),
    (GIT_LOG, ("The last 2 commits are:\n* `4f1e2d3` - Fix retry backoff in http client\n"
               "* `9c8b7a6` - Add Redis cache layer\n")),
    (GIT_LOG, "The most recent commit is 4f1e2d3 by Jane Doe."),
    (GIT_LOG, "The last commit is 4f1e2d3 (Jane Doe)."),
    (GIT_LOG, "The latest commit, 4f1e2d3, fixes the retry backoff."),
    (GIT_LOG, "The latest commit hash is 4f1e2d3."),
    (GIT_LOG, "Bob Smith's latest commit is 9c8b7a6."),
    (GIT_LOG, "The latest commit by Bob Smith is 9c8b7a6."),
    (GIT_LOG, "Before the latest commit, 9c8b7a6 added the Redis cache layer."),
    # ("last" of one commit may be a list's bottom: not asked)
    (GIT_LOG, "The last commit in the log, 1a2b3c4, bumps numpy."),
    (GIT_LOG, "The last 2 commits (4f1e2d3, 9c8b7a6) came after 1a2b3c4."),
    (GIT_LOG, "The 2 most recent commits are 4f1e2d3 and 9c8b7a6; before them 1a2b3c4 bumped numpy."),
    (GIT_LOG, "The latest commit, 4f1e2d3, fixes the retry backoff; 9c8b7a6 and 1a2b3c4 came before it."),
    # (named by author, not as the count's own list: their order is not asked)
    (GIT_LOG, "The 3 most recent commits, by author: Jane Doe's 4f1e2d3 and 1a2b3c4, Bob Smith's 9c8b7a6."),
    (GIT_LOG, "The 3 most recent commits are 4f1e2d3, 9c8b7a6 and 1a2b3c4."),
    (GIT_LOG, "Before the last 2 commits, 1a2b3c4 bumped numpy to 1.26.4."),
    (ONELINE, "The last 2 commits are 4f1e2d3 and 9c8b7a6."),
    (ONELINE, "The 3 latest commits: 4f1e2d3, 9c8b7a6, 1a2b3c4."),
    (GIT_LOG + GIT_STATUS, "The last 2 commits are 4f1e2d3 and 9c8b7a6; the branch is 2 commits ahead of origin."),
]

# (source, lie, the value refused)
LIES = [
    (GIT_LOG, "The 2 most recent commits are 4f1e2d3 and 1a2b3c4.", "2"),
    (GIT_LOG, "The 2 most recent commits are 4f1e2d3, 9c8b7a6 and 1a2b3c4.", "2"),
    (GIT_LOG, "The latest 2 commits: 9c8b7a6, 1a2b3c4.", "2"),
    (GIT_LOG, "The last two commits: 4f1e2d3 (Jane Doe) and 1a2b3c4 (Jane Doe).", "two"),
    (GIT_LOG, "Last 2 commits: 9c8b7a6 (Bob Smith), 4f1e2d3 (Jane Doe).", "2"),
    (GIT_LOG, "Last 2 commits:\n- 4f1e2d3 Fix retry backoff in http client\n- 1a2b3c4 Bump numpy to 1.26.4\n", "2"),
    (GIT_LOG, "The last 4 commits: 4f1e2d3, 9c8b7a6, 1a2b3c4.", "4"),
    (ONELINE, "The last 2 commits are 9c8b7a6 and 1a2b3c4.", "2"),
    (GIT_LOG, "The most recent commit is 9c8b7a6.", "most recent"),
    (GIT_LOG, "The newest commit (9c8b7a6) adds a Redis cache layer.", "newest"),
]


@pytest.mark.parametrize("source, honest", HONEST)
def test_a_count_of_a_log_s_newest_commits_naming_its_first_is_accepted(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("source, lie, value", LIES)
def test_a_count_of_a_log_s_newest_commits_naming_others_is_refused(source, lie, value):
    find(_summarize(source, lie), "I1", value=value)


@pytest.mark.parametrize("lie, value", [
    # a part of the log's commits is no part from its top: stays a number to ground
    ("The last 2 commits by Bob Smith are 9c8b7a6 and 1a2b3c4.", "2"),
    ("Bob Smith's last 2 commits are 9c8b7a6 and 1a2b3c4.", "2"),
])
def test_a_count_of_a_part_of_the_log_is_not_grounded_as_its_newest(lie, value):
    find(_summarize(GIT_LOG, lie), "I1", value=value)
