"""Values re-paired in tools' outputs that the table-rows and counted-keys rules did not read
(docs/gate.md, I1 "rows of a table re-paired" and "counted keys"; red team 142, F21 and the rest
of F03): git's --stat rows (a file given another file's lines), npm's counted nouns ("added 313
packages" of ``added 312 packages, and audited 313``), a PR's additions and deletions told as
lines added and removed. Each value was grounded somewhere in its source, so the swap kept every
fact. Lie/honest pairs: the lie refused, plain and rounded summaries of the same output accepted."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

from provgate.gate import _diffstat_rows

SHOW = ("$ git show --stat HEAD\ncommit 4f1e2d3c5b6a79808f7e6d5c4b3a29181716151a\nAuthor: Jane Doe <jane@example.com>\n"
        "Date:   Tue Mar 5 14:02:11 2024 +0100\n\n    Fix retry backoff in http client\n\n"
        " src/http/client.py       | 12 ++++++++----\n tests/test_client.py     | 25 +++++++++++++++++++++++++\n"
        " 2 files changed, 33 insertions(+), 4 deletions(-)\n")
DIFF = ("$ git diff --stat\n src/cache.py        | 180 +++++++++++++----\n tests/test_cache.py |  71 +++++++\n"
        " 2 files changed, 214 insertions(+), 37 deletions(-)\n")


@pytest.mark.parametrize(("source", "lie", "figure"), [
    (SHOW, "The commit changes 25 lines in src/http/client.py and 12 in tests/test_client.py.", "25"),
    (SHOW, "client.py gets 25 lines of changes, test_client.py 12.", "25"),
    (SHOW, "The bulk of the change is src/http/client.py (25 lines).", "25"),
    (DIFF, "src/cache.py changes 71 lines, tests/test_cache.py 180.", "71"),
    (DIFF, "tests/test_cache.py: 180 lines changed.", "180"),
])
def test_a_file_given_another_files_stat_count_is_refused(source, lie, figure):
    found = find(_summarize(source, lie), "I1", block="s", value=figure)
    assert found.evidence["change"] == "table_row_repaired" and "another row" in found.message


@pytest.mark.parametrize(("source", "honest"), [
    (SHOW, "The commit changes 12 lines in src/http/client.py and 25 in tests/test_client.py."),
    (SHOW, ('Commit 4f1e2d3 (Jane Doe, Mar 5 2024) "Fix retry backoff in http client" touches 2 files: '
           "src/http/client.py (12 lines) and tests/test_client.py (25 lines), 33 insertions and 4 deletions in total.")),
    (SHOW, ("Most of the change is new tests: tests/test_client.py gains 25 lines, while src/http/client.py has 12 "
           "lines changed.")),
    (SHOW, "2 files changed: client.py +12, test_client.py +25 (33 insertions, 4 deletions)."),
    # (a file's figure beside another file's rounded one: "plus" parts the clause)
    (SHOW, ("The commit fixes retry backoff in the http client: about a dozen lines in client.py plus roughly 25 "
           "lines of new tests.")),
    (SHOW, "Jane Doe's commit changes src/http/client.py and tests/test_client.py (33 insertions, 4 deletions)."),
    (SHOW, "| file | lines |\n|---|---|\n| src/http/client.py | 12 |\n| tests/test_client.py | 25 |\n"),
    (DIFF, "src/cache.py changes 180 lines, tests/test_cache.py 71."),
    (DIFF, ("The diff changes 2 files: src/cache.py (180 lines) and tests/test_cache.py (71 lines), 214 insertions "
           "and 37 deletions.")),
    (DIFF, "Most of the 214 insertions are in src/cache.py (180 lines); the tests add 71."),
])
def test_a_files_own_stat_count_is_accepted(source, honest):
    assert_accepted(_summarize(source, honest))


def test_the_stat_rows_read():
    rows = _diffstat_rows(DIFF.encode())
    assert rows == [(frozenset({b"src/cache.py", b"cache.py"}), frozenset({b"180"})),
                    (frozenset({b"tests/test_cache.py", b"test_cache.py"}), frozenset({b"71"}))]
    # (git's shortened path is its tail; a markdown table's row, a bar first, is no stat row)
    assert _diffstat_rows(b" .../http/client.py | 12 ++++\n| a | 12 ++ |\n")[0][0] == {b"http/client.py", b"client.py"}
    assert len(_diffstat_rows(b" .../http/client.py | 12 ++++\n| a | 12 ++ |\n")) == 1


def test_a_path_two_commits_list_names_no_row():
    log = ("$ git log --stat -2\ncommit 1111111\n\n    a\n\n src/a.py | 12 ++++\n src/b.py | 25 ++++\n"
           " 2 files changed, 37 insertions(+)\n\ncommit 2222222\n\n    b\n\n src/a.py | 25 ++++\n src/c.py | 40 ++++\n"
           " 2 files changed, 65 insertions(+)\n")
    assert_accepted(_summarize(log, "A commit changes 25 lines in src/a.py."))
    find(_summarize(log, "A commit changes 40 lines in src/b.py."), "I1", value="40")


NPM = ("$ npm install\nnpm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory.\n"
       "npm WARN deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported\n\n"
       "added 312 packages, and audited 313 packages in 8s\n\n42 packages are looking for funding\n"
       "  run `npm fund` for details\n\n3 vulnerabilities (1 moderate, 2 high)\n\nTo address all issues, run:\n"
       "  npm audit fix\n")
PR = ('$ curl -s https://api.github.com/repos/acme/api/pulls/87\n{\n  "number": 87,\n  "title": "Add Redis cache layer",\n'
      '  "state": "open",\n  "additions": 214,\n  "deletions": 37,\n  "changed_files": 6\n}\n')
GH_FIELDS = "$ gh pr view 87 --json additions,deletions,changedFiles\nadditions: 214\ndeletions: 37\nchangedFiles: 6\n"
SMALL = " README.md  | 2 ++\n src/app.py | 8 +++++---\n 2 files changed, 7 insertions(+), 3 deletions(-)\n"


@pytest.mark.parametrize(("source", "lie", "value"), [
    (NPM, "npm install added 313 packages.", "313"),
    (NPM, "npm installed 313 packages.", "313"),
    (NPM, "313 packages were added.", "313"),
    (NPM, "npm install added 313 packages and found 3 vulnerabilities.", "313"),
    (NPM, "42 packages have known vulnerabilities.", "42"),
    (NPM, "42 packages are vulnerable.", "42"),
    (NPM, "npm audit found 42 vulnerabilities.", "42"),
    (NPM, "npm reports 2 moderate vulnerabilities.", "2"),
    ("$ npm uninstall lodash\nremoved 12 packages, and audited 301 packages in 2s\n",
     "Uninstalling lodash removed 301 packages.", "301"),
    (PR, "PR #87 adds 37 lines and removes 214.", "37"),
    (PR, "PR #87 removes 214 lines.", "214"),
    (PR, "PR #87: 37 lines added, 214 removed.", "37"),
    (PR, "The PR deletes 214 lines of old code.", "214"),
    (GH_FIELDS, "PR #87 adds 37 lines and removes 214.", "37"),
    (DIFF, "The diff adds 37 lines and deletes 214.", "37"),
    (DIFF, "37 lines were inserted and 214 deleted.", "37"),
    (SMALL, "The commit adds 3 lines and removes 10.", "3"),
])
def test_a_count_told_of_another_counted_thing_is_refused(source, lie, value):
    found = find(_summarize(source, lie), "I1", block="s", value=value)
    assert found.evidence["change"] == "value_of_another_key"


def test_the_refusal_names_the_key_the_count_was_told_of():
    found = find(_summarize(NPM, "42 packages have known vulnerabilities."), "I1", value="42")
    assert "(vulnerable packages)" in found.message
    found = find(_summarize(PR, "PR #87 adds 37 lines."), "I1", value="37")
    assert "(added lines) to ['214']" in found.message


@pytest.mark.parametrize(("source", "honest"), [
    (NPM, "npm install added 312 packages and audited 313."),
    (NPM, "npm install added 312 packages, and audited 313 packages in 8s."),
    (NPM, ("Installed 312 packages (313 audited); 42 packages are looking for funding and there are 3 vulnerabilities "
          "(1 moderate, 2 high).")),
    (NPM, ("npm install succeeded: 312 packages added, 313 audited. It reported 3 vulnerabilities (1 moderate, 2 high) "
          "and 42 packages seeking funding.")),
    (NPM, "Packages were installed; npm flagged 3 vulnerabilities, 2 of them high severity."),
    (NPM, ("The install added 312 packages. 42 packages are looking for funding. npm audit found 3 vulnerabilities: "
          "1 moderate and 2 high.")),
    (NPM, ("Dependencies installed (312 packages) with two deprecation warnings (inflight, glob) and 3 "
          "vulnerabilities; run npm audit fix.")),
    (NPM, "42 packages need funding."),
    (NPM, "npm audited 313 packages and found 3 vulnerabilities (2 high, 1 moderate)."),
    (NPM, "313 packages were audited; 312 were added."),
    (NPM, "3 vulnerable packages were reported."),
    # (npm 6's total by severity counts them all; npm uninstall's removed packages)
    ("$ npm audit\nfound 5 high severity vulnerabilities in 1200 scanned packages\n", "npm audit found 5 vulnerabilities."),
    ("$ npm uninstall lodash\nremoved 12 packages, and audited 301 packages in 2s\n",
     "Uninstalling lodash removed 12 packages; 301 packages remain."),
    (PR, "PR #87 adds 214 lines and removes 37."),
    (PR, "PR #87 adds 214 lines and removes 37 across 6 files."),
    (PR, "PR #87 (Add Redis cache layer) is open, changes 6 files, with 214 lines added and 37 lines removed."),
    (PR, "PR #87: +214/-37 lines in 6 files."),
    (PR, "PR #87 adds 214 lines, deletes 37 lines."),
    (PR, "214 lines were added and 37 lines deleted."),
    (PR, "PR #87 is mostly additions: 214 lines added versus 37 removed."),
    (PR, "The PR is mostly additions, with a few dozen lines removed."),
    (DIFF, "The diff adds 214 lines and removes 37: src/cache.py accounts for 180 lines and tests/test_cache.py for 71."),
    (DIFF, "214 lines inserted, 37 lines deleted, across 2 files."),
    (DIFF, "src/cache.py changes 180 lines; tests add 71 lines."),
    (SHOW, "The commit adds 33 lines and removes 4 lines in 2 files; tests/test_client.py gets 25 new lines."),
    # (a file's stat row counts its lines, whatever other key sets the count)
    (SMALL, "README.md adds 2 lines and src/app.py 8."),
    (SMALL, "2 files changed: README.md gets 2 lines, src/app.py 8 lines."),
])
def test_a_count_told_of_its_own_thing_is_accepted(source, honest):
    assert_accepted(_summarize(source, honest))


BLAME = ("$ git blame -L 10,13 src/http/client.py\n"
         "4f1e2d3c (Jane Doe  2024-03-05 14:02:11 +0100 10) \n"
         "4f1e2d3c (Jane Doe  2024-03-05 14:02:11 +0100 11) BACKOFF_BASE = 0.5\n"
         "9c8b7a6f (Bob Smith 2024-03-04 09:15:42 +0100 12) MAX_RETRIES = 5\n"
         "9c8b7a6f (Bob Smith 2024-03-04 09:15:42 +0100 13) TIMEOUT = 30\n")
BLAME_SHORT = ("$ git blame -C --date=short src/app.py\n"
               "^a1b2c3d src/app.py (Alice Chen 2023-11-02  1) import os\n"
               "e4f5a6b7 src/util.py (Raj Patel  2024-01-15  2) def load_config(path):\n"
               "e4f5a6b7 src/util.py (Raj Patel  2024-01-15  3)     return json.load(open(path))\n"
               "a1b2c3d4 src/app.py (Alice Chen 2023-11-02  4) DEBUG = False\n")


@pytest.mark.parametrize(("source", "lie", "value"), [
    (BLAME, "Jane Doe added TIMEOUT = 30 (line 13).", "Jane Doe"),
    (BLAME, "MAX_RETRIES = 5 was added by Jane Doe on 2024-03-05.", "Jane Doe"),
    (BLAME, "TIMEOUT was added by Jane on 2024-03-05.", "Jane Doe"),
    (BLAME, "BACKOFF_BASE = 0.5 comes from Bob Smith's commit.", "Bob Smith"),
    (BLAME, "MAX_RETRIES was added on 2024-03-05.", "2024-03-05"),
    (BLAME, "BACKOFF_BASE is on line 12.", "line 12"),
    # (lines named by their numbers where no name of their code is)
    (BLAME, "Jane Doe wrote line 13.", "Jane Doe"),
    (BLAME, "Lines 12-13 are Jane Doe's.", "Jane Doe"),
    (BLAME, "Line 11 was added by Bob Smith on 2024-03-04.", "Bob Smith"),
    (BLAME_SHORT, "Alice Chen wrote load_config.", "Alice Chen"),
    (BLAME_SHORT, "DEBUG = False was set by Raj.", "Raj Patel"),
])
def test_a_blamed_line_given_another_lines_author_is_refused(source, lie, value):
    found = find(_summarize(source, lie), "I1", block="s", value=value)
    assert found.evidence["change"] == "blame_line_repaired" and "other lines only" in found.message


@pytest.mark.parametrize(("source", "honest"), [
    (BLAME, "Bob Smith added TIMEOUT = 30 (line 13) in 9c8b7a6f."),
    (BLAME, ("Lines 10-11 (BACKOFF_BASE = 0.5) come from Jane Doe's commit 4f1e2d3c on 2024-03-05; lines 12-13 "
            "(MAX_RETRIES = 5, TIMEOUT = 30) from Bob Smith's 9c8b7a6f on 2024-03-04.")),
    (BLAME, "Bob Smith added MAX_RETRIES and TIMEOUT on 2024-03-04; Jane Doe added BACKOFF_BASE a day later."),
    (BLAME, "MAX_RETRIES and TIMEOUT were both added by Bob Smith."),
    (BLAME, "BACKOFF_BASE and MAX_RETRIES come from different authors: Jane Doe and Bob Smith."),
    # (a clause naming two lines' names, or the line's own author beside another, is left be)
    (BLAME, "Jane Doe's BACKOFF_BASE sits above Bob Smith's TIMEOUT."),
    (BLAME, "TIMEOUT was last touched by Bob Smith, not Jane Doe."),
    (BLAME, "TIMEOUT moved from line 12 to line 13 in Bob Smith's commit."),
    (BLAME, "TIMEOUT was added on 2024-03-04, a day before BACKOFF_BASE."),
    (BLAME, "Bob Smith wrote line 13."),
    (BLAME, "Lines 12-13 are Bob Smith's; lines 10-11 Jane Doe's."),
    (BLAME, "Lines 10 to 13 were written by Jane Doe and Bob Smith."),
    (BLAME, "Line 11 was added by Jane Doe on 2024-03-05."),
    (BLAME, ("Jane Doe wrote BACKOFF_BASE = 0.5 (line 11), while Bob Smith wrote MAX_RETRIES = 5 (line 12) and "
            "TIMEOUT = 30 (line 13).")),
    (BLAME, "The retry settings (MAX_RETRIES, TIMEOUT) are Bob's, from commit 9c8b7a6f."),
    (BLAME, "Jane added the backoff base; Bob added the retry limit and timeout."),
    (BLAME, "git blame shows 4f1e2d3c by Jane Doe (lines 10-11) and 9c8b7a6f by Bob Smith (lines 12-13)."),
    (BLAME_SHORT, "Raj Patel wrote load_config (lines 2-3) on 2024-01-15; Alice Chen the rest."),
    (BLAME_SHORT, "DEBUG = False dates from Alice Chen's commit a1b2c3d4."),
])
def test_a_blamed_lines_own_author_is_accepted(source, honest):
    assert_accepted(_summarize(source, honest))
