"""A count of the rows a listing shows is grounded by the listing (docs/gate.md, I1 "counted
rows"; red team 141, F09): "Last 3 commits" of ``git log -3``, "3 pods" of kubectl's three rows,
"3 times in 2 files" of three grep hits in two files, "3 files" of ``ls -la``, "one untracked
file" of git status were refused as numbers no source holds. A wrong count of the same rows
stays refused."""

from __future__ import annotations

import pytest
from gate_helpers import GIT_LOG_THREE_COMMITS as GIT_LOG
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

from provgate.gate import _listed_row_counts

ONELINE = """$ git log --oneline -4
4f1e2d3 Fix retry backoff in http client
9c8b7a6 Add Redis cache layer
1a2b3c4 Bump numpy
77aa0b1 Initial import
"""

KUBECTL = """$ kubectl get pods -n prod
NAME                       READY   STATUS             RESTARTS       AGE
api-7d9f8b6c5-x2k4p        1/1     Running            0              3d
api-7d9f8b6c5-z9m1q        0/1     CrashLoopBackOff   14 (2m ago)    3d
worker-5c6b7d8e9-abcde     1/1     Running            2 (1d ago)     5d
"""

GREP = """$ grep -rn "MAX_RETRIES" src/
src/http/client.py:12:MAX_RETRIES = 5
src/http/client.py:48:    for attempt in range(MAX_RETRIES):
src/worker/jobs.py:7:from http.client import MAX_RETRIES
"""

LS = """$ ls -la
total 48
drwxr-xr-x  6 user user 4096 Mar  5 14:02 .
drwxr-xr-x 12 user user 4096 Mar  1 09:00 ..
-rw-r--r--  1 user user  220 Mar  1 09:00 .env
drwxr-xr-x  8 user user 4096 Mar  5 14:02 .git
-rw-r--r--  1 user user 1067 Mar  1 09:00 README.md
-rw-r--r--  1 user user  512 Mar  4 11:20 pyproject.toml
drwxr-xr-x  4 user user 4096 Mar  5 13:58 src
drwxr-xr-x  2 user user 4096 Mar  5 13:58 tests
"""

GIT_STATUS = """$ git status
On branch feature/cache
Your branch is ahead of 'origin/feature/cache' by 2 commits.
  (use "git push" to publish your local commits)

Changes not staged for commit:
  (use "git add <file>..." to update what will be committed)
  (use "git restore <file>..." to discard changes in working directory)
\tmodified:   src/cache.py
\tmodified:   tests/test_cache.py

Untracked files:
  (use "git add <file>..." to include in what will be committed)
\tnotes.txt

no changes added to commit (use "git add" and/or "git commit -a")
"""

# (source, honest summary, its lie: the same sentence with a wrong count, the value refused)
PAIRS = [
    (GIT_LOG, "Last 3 commits: 4f1e2d3 (retry backoff fix), 9c8b7a6 (Redis cache), 1a2b3c4 (numpy bump).",
     "Last 7 commits: 4f1e2d3 (retry backoff fix), 9c8b7a6 (Redis cache), 1a2b3c4 (numpy bump).", "7"),
    (GIT_LOG, "The last three commits fix the retry backoff, add a Redis cache layer and bump numpy.",
     "The last seven commits fix the retry backoff, add a Redis cache layer and bump numpy.", "seven"),
    (ONELINE, "The log shows 4 commits, the latest fixing the retry backoff.",
     "The log shows 6 commits, the latest fixing the retry backoff.", "6"),
    (KUBECTL, "Of the 3 pods, api-7d9f8b6c5-z9m1q is in CrashLoopBackOff.",
     "Of the 4 pods, api-7d9f8b6c5-z9m1q is in CrashLoopBackOff.", "4"),
    (GREP, "MAX_RETRIES appears 3 times in 2 files.", "MAX_RETRIES appears 4 times in 2 files.", "4"),
    (GREP, "MAX_RETRIES appears 3 times in 2 files.", "MAX_RETRIES appears 3 times in 3 files.", "3"),
    (LS, "The directory holds 3 files: .env, README.md and pyproject.toml.",
     "The directory holds 7 files: .env, README.md and pyproject.toml.", "7"),
    (GIT_STATUS, "Working tree has one untracked file (notes.txt).",
     "Working tree has three untracked files (notes.txt).", "three"),
]


@pytest.mark.parametrize("source, honest, lie, value", PAIRS)
def test_a_count_of_the_rows_a_listing_shows_is_grounded_and_a_wrong_one_refused(source, honest, lie, value):
    assert_accepted(_summarize(source, honest))
    find(_summarize(source, lie), "I1", value=value)


@pytest.mark.parametrize("source, lie, value", [
    # a part of the rows is no count of them all: two pods run, not three
    (KUBECTL, "Of the pods, 3 running pods serve traffic.", "3"),
    # "Last 2 commits" of three naming the third (the first two are grounded as the log's newest,
    # test_gate_newest_commits_named.py)
    (GIT_LOG, "Last 2 commits: 4f1e2d3 (retry backoff fix) and 1a2b3c4 (numpy bump).", "2"),
    # a noun no listing there counts
    (GREP, "The fix took 3 days.", "3"),
])
def test_a_count_the_listing_does_not_show_stays_refused(source, lie, value):
    find(_summarize(source, lie), "I1", value=value)


def test_the_row_counts_a_source_shows_by_shape():
    assert _listed_row_counts(GIT_LOG.encode())[b"commit"] == {3}
    assert _listed_row_counts(ONELINE.encode())[b"commit"] == {4}
    assert _listed_row_counts(KUBECTL.encode())[b"row"] == {3}
    assert _listed_row_counts(GREP.encode())[b"hit"] == {3}
    assert _listed_row_counts(GREP.encode())[b"file"] == {2}
    ls = _listed_row_counts(LS.encode())
    assert (ls[b"file"], ls[b"directory"], ls[b"entry"]) == ({3}, {3}, {6})
    status = _listed_row_counts(GIT_STATUS.encode())
    assert (status[b"untracked file"], status[b"modified file"], status[b"file"]) == ({1}, {2}, {3})
    # a log's time stamps are no grep hits
    assert b"hit" not in _listed_row_counts(b"12:30:45 INFO start\n12:30:46 INFO stop\n")


def test_a_megabyte_listing_is_read_in_one_pass():
    rows = _listed_row_counts(("NAME   READY\n" + "pod-a   1/1\n" * 80_000).encode())
    assert rows[b"row"] == {80_000}


def test_ls_entries_count_links_by_their_name_and_not_dot_entries():
    ls = _listed_row_counts(b"drwxr-xr-x 2 u u 4096 Mar 5 .\nlrwxrwxrwx 1 u u 7 Mar 5 cur -> v2\n"
                            b"-rw-r--r-- 1 u u 10 Mar 5 my notes.txt\n")
    assert (ls[b"entry"], ls[b"file"]) == ({2}, {1})


def test_counts_past_the_bound_stay_numbers_to_ground():
    text = " ".join(["The table lists 3 pods."] * 70)
    found = find(_summarize(KUBECTL, text), "I1", value="3")
    assert found.value == "3"
