"""A summary keeps each exact value with its own source line's partners (docs/gate.md, I1
"identifiers re-paired"; red team 138, F02). A git digest, a UUID, ``#1234``, ``PROJ-12``, a
lint code, an ISO timestamp or a route is grounded wherever its source writes it, and so are the
words and figures beside it, so a summary swapping two commits' messages, two routes' statuses
or latencies, two jobs' statuses or two issues' titles kept every fact and was accepted. A clause
pairing the value with a partner written only on another line of its kind, and with none of its
own line's, is refused; a clause naming both lines, or the value with its own partners, is not.
Lie/honest pairs; the suite runs once each way (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import re

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

from provgate.gate import _holds_paired_value, _paired_clauses, _paired_index

GIT = "$ git log --oneline -3\na1b2c3d Fix retry loop\n9f8e7d6 Add cache layer\n4c5d6e7 Initial commit\n"
FLAKE8 = ("$ flake8 src\nsrc/app/server.py:17:80: E501 line too long (92 > 79 characters)\n"
          "src/app/client.py:88:1: F401 'os' imported but unused\n")
SERVER = ("$ python -m app.server\nINFO Starting server pid=48213 on port 8080\nINFO GET /health 200 3ms\n"
          "ERROR GET /api/users 500 120ms\nINFO GET /api/items 404 4ms\n")
ISSUES = "$ gh issue list\n#1234  Crash on empty config   bug\n#1240  Add retry option       enhancement\n"
JIRA = "PROJ-12 Login fails with SSO (status: Open)\nPROJ-19 Dark mode (status: Done)\n"
JOBS = ("job 3f2b1c9e-8a7d-4e6f-9b0a-1c2d3e4f5a6b status=failed\n"
        "job 7c8d9e0f-1a2b-4c3d-8e5f-6a7b8c9d0e1f status=succeeded\n")
DEPLOY = ("2024-03-05T14:02:11+01:00 deploy started (pid 48213)\n"
          "2024-03-05T14:09:47+01:00 deploy finished: status=ok duration=456s\n")
U1, U2 = "3f2b1c9e-8a7d-4e6f-9b0a-1c2d3e4f5a6b", "7c8d9e0f-1a2b-4c3d-8e5f-6a7b8c9d0e1f"
T1, T2 = "2024-03-05T14:02:11+01:00", "2024-03-05T14:09:47+01:00"
TOOK = f"09:33:31 WARN job={U1} took 1902ms\n09:34:25 DEBUG job={U2} took 1328ms\n"

# (source, the lie, the value refused, the partner named, its honest twin)
PAIRS = [
    (GIT, "Commit 9f8e7d6 fixed the retry loop; a1b2c3d added the cache layer.", "9f8e7d6", "fixed",
     "Commit a1b2c3d fixed the retry loop; 9f8e7d6 added the cache layer."),
    (GIT, "9f8e7d6 fixed the retry loop and a1b2c3d added the cache layer.", "9f8e7d6", "fixed",
     "a1b2c3d fixed the retry loop and 9f8e7d6 added the cache layer."),
    (GIT, "- a1b2c3d: add the cache layer\n- 9f8e7d6: fix the retry loop\n", "a1b2c3d", "add",
     "- a1b2c3d: fix the retry loop\n- 9f8e7d6: add the cache layer\n"),
    (FLAKE8, "flake8: server.py:17 F401 (unused import); client.py:88 E501 (line too long).", "F401", "17",
     "flake8: server.py:17 E501 (line too long); client.py:88 F401 (unused import)."),
    (SERVER, "GET /api/users returned 404 and GET /api/items returned 500.", "/api/users", "404",
     "GET /api/users returned 500 and GET /api/items returned 404."),
    (SERVER, "/api/users failed after 3ms; /health took 120ms.", "/api/users", "3ms",
     "/api/users failed after 120ms; /health took 3ms."),
    (ISSUES, "#1240 is the crash on empty config; #1234 adds a retry option.", "#1240", "crash",
     "#1234 is the crash on empty config; #1240 adds a retry option."),
    (JIRA, "PROJ-12 (SSO login) is done; PROJ-19 (dark mode) is open.", "PROJ-12", "done",
     "PROJ-12 (SSO login) is open; PROJ-19 (dark mode) is done."),
    (JOBS, f"Job {U1} succeeded; job {U2} failed.", U1, "succeeded", f"Job {U1} failed; job {U2} succeeded."),
    (JOBS, f"job {U1} status=succeeded", U1, "succeeded", f"job {U1} status=failed"),
    (DEPLOY, f"Deploy started {T2} and finished {T1}.", T2, "started", f"Deploy started {T1} and finished {T2}."),
    (TOOK, f"Job {U1} took 1328ms.", U1, "1328ms", f"Job {U1} took 1902ms."),
]


@pytest.mark.parametrize("source, lie, value, partner, honest", PAIRS)
def test_an_identifier_paired_with_another_lines_partner_is_refused_and_its_twin_accepted(
        source, lie, value, partner, honest):
    found = find(_summarize(source, lie), "I1", block="s", value=value)
    assert "tool:c1" in found.message and "another line" in found.message
    assert found.evidence["partner"] == partner
    # (both source lines named: the value's own and the one its partner is written on)
    assert value in found.evidence["own_line"] and found.evidence["other_line"] != found.evidence["own_line"]
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("source, honest", [
    # (two lines' values in one clause: the partners may be either's)
    (GIT, "Commits a1b2c3d and 9f8e7d6 touch the retry loop and the cache layer."),
    (GIT, "commits a1b2c3d and 9f8e7d6 touch the retry loop"),
    (GIT, "The retry loop was fixed in a1b2c3d and the cache layer added in 9f8e7d6."),
    (GIT, "Commits a1b2c3d, 9f8e7d6 and 4c5d6e7 are on the branch."),
    (GIT, "Commit a1b2c3d is the fix."),
    (GIT, "Commit a1b2c3d landed earlier."),
    (GIT, "The last commits: a1b2c3d (retry loop), 9f8e7d6 (cache layer), 4c5d6e7 (initial)."),
    (SERVER, "/api/users returned 500 in 120ms, slower than /health (3ms)."),
    (SERVER, "The server (pid 48213, port 8080) served /health, /api/users and /api/items."),
    (ISSUES, "Open issues: #1234 (crash on empty config, bug) and #1240 (retry option)."),
    (JIRA, "PROJ-12 is still open while PROJ-19 is done."),
    (JOBS, f"A job failed ({U1}) and another succeeded ({U2})."),
    (DEPLOY, f"Deploy ran from {T1} to {T2} (456s)."),
    (FLAKE8, "flake8 reports E501 and F401 in server.py:17 and client.py:88."),
    # (a list's items, each a value the source writes, on any of its lines: the session
    # benchmark's summaries; a lead-in labels the list, not its first item)
    (TOOK, f"Key values: `job={U2}`, `1902ms` [src:tool:c1]."),
    (GIT, "It records: `9f8e7d6`, `a1b2c3d` [src:tool:c1]."),
])
def test_a_clause_naming_both_lines_or_its_own_partners_is_accepted(source, honest):
    assert_accepted(_summarize(source, honest))


def test_a_value_without_a_sibling_line_of_its_kind_is_not_asked():
    # (one commit: no other line's partner to take; the words are the facts' to judge)
    source = "$ git log --oneline -1\na1b2c3d Fix retry loop\nnothing else to add to the cache layer\n"
    assert_accepted(_summarize(source, "a1b2c3d added the cache layer."))


def test_the_clauses_split_at_a_conjunction_only_between_two_lines_statements():
    text = b"commits a1b2c3d and 9f8e7d6 touch retry.py; 9f8e7d6 fixed X and a1b2c3d added Y"
    assert [[v for _, _, v, _ in held] for _, _, held in _paired_clauses(text)] == [
        [b"a1b2c3d", b"9f8e7d6"], [b"9f8e7d6"], [b"a1b2c3d"]]


def test_a_large_source_is_indexed_linearly():
    # (a 1 MB log of 25,000 commit lines: one pass of the value pattern and of the lines' tokens)
    lines = "".join(f"{i:07x}a fix issue {10_000 + i} in the retry loop\n" for i in range(1, 25_001))
    index = _paired_index(lines.encode())
    assert len(index.value_lines) == 25_000 and len(index.line_spans) == 25_000
    verdict = _summarize(lines, "0000001a fixed issue 10002 in the retry loop.")
    find(verdict, "I1", block="s", value="0000001a")


# -- a git range's ends (red team 140, F04) -----------------------------------------------------
RANGE_LOG = "$ git log --oneline -3\na1b2c3d Fix retry loop off-by-one\n9f8e7d6 Add cache layer\n1234abc Bump numpy to 1.26.2\n"


@pytest.mark.parametrize("honest", [
    # (the words after a range are the commits' between: neither end's alone)
    "Range 1234abc..a1b2c3d holds the cache layer (9f8e7d6) and the retry fix.",
    "Between 1234abc and a1b2c3d came the cache layer, 9f8e7d6.",
    "1234abc...a1b2c3d: the retry loop fix and the cache layer.",
    "between `1234abc` and `a1b2c3d`: the retry fix and the cache layer.",
])
def test_a_ranges_words_pair_with_neither_end(honest):
    assert_accepted(_summarize(RANGE_LOG, honest))


@pytest.mark.parametrize("lie, value, partner", [
    # (a value beside a range keeps its own line's partners; the range's ends name no line for it)
    ("Range 1234abc..a1b2c3d: 9f8e7d6 bumped numpy.", "9f8e7d6", "bumped"),
    ("a1b2c3d bumped numpy (range 1234abc..a1b2c3d).", "a1b2c3d", "bumped"),
    ("Between 1234abc and a1b2c3d, 9f8e7d6 fixed the retry loop.", "9f8e7d6", "fixed"),
])
def test_a_value_beside_a_range_keeps_its_own_partners(lie, value, partner):
    found = find(_summarize(RANGE_LOG, lie), "I1", block="s", value=value)
    assert found.evidence["partner"] == partner and found.evidence["change"] == "identifier_repaired"


def test_a_ranges_ends_are_no_clause_values():
    text = b"Range 1234abc..a1b2c3d holds X (9f8e7d6); between 1234abc and a1b2c3d; commits 1234abc and a1b2c3d"
    assert [[v for _, _, v, _ in held] for _, _, held in _paired_clauses(text)] == [
        [b"9f8e7d6"], [b"1234abc", b"a1b2c3d"]]


def test_a_line_holding_an_exact_value_is_told():
    log = b"job=3f2b1c9e-8a7d-4e6f-9b0a-1c2d3e4f5a6b status=failed duration=1328ms\nGET /health 200 3ms\nfinished in 412ms\n"
    lines = [(m.start(), m.end()) for m in re.finditer(rb"[^\n]+", log)]
    assert [_holds_paired_value(log, s, e) for s, e in lines] == [True, True, False]
    assert _holds_paired_value(b"Commit a1b2c3d took 0.4s") and not _holds_paired_value(b"took ~0.4s in 3 retries")
