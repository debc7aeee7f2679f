"""A markdown table's header row labels its columns and asserts nothing of the sources
(docs/gate.md, I1 "table header names"; stop 65): ``| SHA | Author | Message |`` over
``|---|---|---|`` summarizing ``git log -3`` was refused for ``SHA`` and ``Message`` as names
none of its sources holds. Lie/honest pairs over the same output: the honest tables accepted;
a name in a data row, a header-shaped row with no delimiter row under it, and a number in a
header cell still asked."""

from __future__ import annotations

import pytest
from gate_helpers import GIT_LOG_THREE_COMMITS as GIT_LOG
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

HONEST = [
    ("| SHA | Author | Message |\n|---|---|---|\n| 4f1e2d3 | Jane Doe | Fix retry backoff in http client |\n"
     "| 9c8b7a6 | Bob Smith | Add Redis cache layer |"),
    "| Commit | Author | Subject |\n|---|---|---|\n| 4f1e2d3 | Jane Doe | Fix retry backoff in http client |",
    "| Commit | Author | Date | Message |\n|---|---|---|---|\n| 4f1e2d3 | Jane Doe | Mar 5 | Fix retry backoff in http client |",
    "| Hash | Author | Description |\n|---|---|---|\n| 9c8b7a6 | Bob Smith | Add Redis cache layer |",
    # (aligned delimiter cells, no outer pipes, a lead-in line and a blank line before the table)
    ("The last three commits:\n\n| SHA | Author | Message |\n| :-- | :-- | --: |\n"
     "| 4f1e2d3 | Jane Doe | Fix retry backoff in http client |\n"
     "| 9c8b7a6 | Bob Smith | Add Redis cache layer |\n| 1a2b3c4 | Jane Doe | Bump numpy to 1.26.4 |"),
    "SHA | Author | Message\n--- | --- | ---\n4f1e2d3 | Jane Doe | Fix retry backoff in http client",
]

# (lie, the value refused)
LIES = [
    # a header-shaped first row with no delimiter row under it is a row of data
    ("| SHA | Author | Message |\n| 4f1e2d3 | Jane Doe | Fix retry backoff in http client |", "SHA"),
    # a data row's name is asked as anywhere
    ("| SHA | Author | Message |\n|---|---|---|\n| 4f1e2d3 | Jane Doe | Fix retry in Frobnicator |", "Frobnicator"),
    # a date no source holds (Mar 6: the log's commits are of Mar 5, 4 and 1)
    ("| Commit | Author | Date | Message |\n|---|---|---|---|\n| 4f1e2d3 | Jane Doe | Mar 6 | Fix retry backoff in http client |",
     "6"),
    # a number in a header cell is asked: names only are labels
    ("| SHA | Author | Message (7 commits) |\n|---|---|---|\n| 4f1e2d3 | Jane Doe | Fix retry backoff in http client |",
     "7"),
    # a delimiter-shaped line under a data row makes no new header: the row above stays data
    (("| SHA | Author | Message |\n|---|---|---|\n| 4f1e2d3 | Jane Doe | Frobnicator |\n|---|---|---|\n"
      "| 9c8b7a6 | Bob Smith | Add Redis cache layer |"), "Frobnicator"),
    # a delimiter row of other cells than the header's is none
    ("| SHA | Author | Frobnicator |\n|---|---|\n| 4f1e2d3 | Jane Doe | Fix retry backoff in http client |",
     "Frobnicator"),
]


@pytest.mark.parametrize("honest", HONEST)
def test_a_markdown_table_s_header_names_label_its_columns(honest):
    assert_accepted(_summarize(GIT_LOG, honest))


@pytest.mark.parametrize("lie, value", LIES)
def test_a_name_outside_a_header_row_and_a_number_in_one_are_still_asked(lie, value):
    find(_summarize(GIT_LOG, lie), "I1", value=value)
