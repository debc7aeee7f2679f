"""Near forms of a count told with a key's noun are held to that key's value too (docs/gate.md, I1
"counted keys"; red team 142, F03): "PR #87 touches 37 files" of ``"changed_files": 6,
"deletions": 37`` ("touches", no word of the key), a count after its label ("**Files changed:**
37", "| files changed | 37 |"), gh's camel-case ``changedFiles: 6`` and git's own stat line
("2 files changed, 37 insertions, 214 deletions" of ``214 insertions(+), 37 deletions(-)``)
were accepted, 37 being grounded by another key. The key's own value stays accepted."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

from provgate.gate import _git_stat_counts

PR = ('$ curl -s https://api.github.com/repos/acme/api/pulls/87\n{\n  "number": 87,\n  "title": "Add Redis cache layer",\n  "state": "open",\n  "additions": 214,\n'
      '  "deletions": 37,\n  "changed_files": 6\n}\n')
GH_FIELDS = "$ gh pr view 87 --json additions,deletions,changedFiles\nadditions: 214\ndeletions: 37\nchangedFiles: 6\n"
STAT = ("$ git diff --stat\n src/cache.py        | 180 +++++++++++++----\n tests/test_cache.py |  71 +++++++\n"
        " 2 files changed, 214 insertions(+), 37 deletions(-)\n")


@pytest.mark.parametrize(("source", "honest", "lie", "value"), [
    pytest.param(PR, "PR #87 touches 6 files.\n", "PR #87 touches 37 files.\n", "37", id="touches"),
    pytest.param(PR, "PR #87 modifies 6 files: +214/-37.\n", "PR #87 modifies 214 files.\n", "214", id="modifies"),
    pytest.param(PR, "**Files changed:** 6\n", "**Files changed:** 37\n", "37", id="markdown label"),
    pytest.param(PR, "| files changed | 6 |\n", "| files changed | 37 |\n", "37", id="table row"),
    pytest.param(PR, "| deletions | 37 |\n", "| deletions | 214 |\n", "214", id="one-word label"),
    pytest.param(GH_FIELDS, "PR #87 touches 6 files (+214/-37).\n", "PR #87 touches 37 files.\n", "37",
                 id="camel-case key"),
    pytest.param(GH_FIELDS, "PR #87 changes 6 files.\n", "PR #87 changes 214 files.\n", "214", id="camel-case key, changes"),
    pytest.param(STAT, "2 files changed, 214 insertions and 37 deletions.\n",
                 "2 files changed, 37 insertions, 214 deletions.\n", "37", id="git stat swapped"),
    pytest.param(STAT, "The diff touches 2 files: 214 insertions, 37 deletions.\n", "The diff touches 37 files.\n", "37",
                 id="git stat files"),
    pytest.param(STAT, "2 files changed.\n", "214 files changed.\n", "214", id="git stat files changed"),
])
def test_a_near_form_of_a_keys_count_is_that_keys_value(source, honest, lie, value):
    assert_accepted(_summarize(source, honest))
    found = find(_summarize(source, lie), "I1", value=value)
    assert found.evidence.get("change") == "value_of_another_key"


@pytest.mark.parametrize(("source", "text"), [
    # a count of lines (a per-file stat) is no key's count
    (STAT, "src/cache.py has 180 changed lines; 2 files in all.\n"),
    # a table whose header is the label, its count in the next row, is not read as a label
    (PR, "| files | changed |\n|---|---|\n| 6 | yes |\n"),
    # a label of another word is no count of the key ("files reviewed: 2" of no such key)
    (PR + "reviewed: 2\n", "Files reviewed: 2. Files changed: 6.\n"),
])
def test_a_count_the_keys_bear_out_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


def test_git_stat_lines_are_read_as_keys():
    assert _git_stat_counts(STAT.encode()) == {b"changed_files": {b"2"}, b"insertions": {b"214"}, b"deletions": {b"37"}}
    assert _git_stat_counts(b" 1 file changed, 1 insertion(+)\n") == {b"changed_files": {b"1"}, b"insertions": {b"1"}}


def test_a_megabyte_of_labels_is_read_in_one_pass():
    text = "| files changed | 6 | **deletions:** 37 | " * 25_000
    assert_accepted(_summarize(PR, text))
