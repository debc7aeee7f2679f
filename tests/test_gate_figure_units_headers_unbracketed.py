"""A summary's table header naming its column's unit without brackets, or with emphasis inside
them, and a note under the table naming its figures' unit (red team 139, F09; docs/gate.md,
"figures and their units"): "| runtime, h |", "| runtime / h |", "| runtime (**h**) |" and
"(all times in hours)" over "| 5 |" of a source's "runtime 5 minutes" were accepted while
"| runtime (h) |" was refused. Each gives its column its unit now, checked as brackets are."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

JOB = "Results\njob-a: runtime 5 minutes\njob-b: runtime 7 minutes\n"


def _table(header: str, note: str = "") -> str:
    return f"| job | {header} |\n|---|---|\n| job-a | 5 |\n| job-b | 7 |\n" + (f"\n{note}\n" if note else "")


@pytest.mark.parametrize(("honest", "lie"), [
    pytest.param(_table("runtime, min"), _table("runtime, h"), id="after a comma"),
    pytest.param(_table("runtime / min"), _table("runtime / h"), id="after a slash"),
    pytest.param(_table("runtime (**min**)"), _table("runtime (**h**)"), id="emphasis in brackets"),
    pytest.param(_table("runtime (`minutes`)"), _table("runtime (`hours`)"), id="code in brackets"),
    pytest.param(_table("runtime", "(all times in minutes)"), _table("runtime", "(all times in hours)"),
                 id="note under the table"),
    pytest.param(_table("runtime", "*All durations are in minutes.*"), _table("runtime", "*All durations are in hours.*"),
                 id="note in emphasis"),
    pytest.param(_table("runtime") + "(all values in minutes)\n", _table("runtime") + "(all values in hours)\n",
                 id="note right under the table"),
])
def test_a_header_or_note_unit_is_read(honest, lie):
    assert_accepted(_summarize(JOB, honest))
    find(_summarize(JOB, lie), "I1", value="5", evidence__change="unit_changed")


@pytest.mark.parametrize(("source", "summary"), [
    # a rate's period after a slash is no duration of the column
    ("api: 50 requests per second\nweb: 70 requests per second\n",
     "| service | requests / s |\n|---|---|\n| api | 50 |\n| web | 70 |\n"),
    # a comma in a header that names no unit
    (JOB, "| job, name | runtime (minutes) |\n|---|---|\n| job-a | 5 |\n"),
    # "times" names the duration columns only: a count beside them keeps none
    ("job-a: runtime 5 minutes, 3 retries\n",
     "| job | runtime | retries |\n|---|---|---|\n| job-a | 5 | 3 |\n\n(all times in minutes)\n"),
    # a note away from any table names nothing
    (JOB, "| job | runtime (min) |\n|---|---|\n| job-a | 5 |\n\nSome text.\n\n(all times in hours)\n"),
])
def test_honest_headers_and_notes_stay_accepted(source, summary):
    assert_accepted(_summarize(source, summary))
