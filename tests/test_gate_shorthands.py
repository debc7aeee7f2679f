"""Shorthands a coding summary writes for what its tool outputs say (red team 138, F05; docs/gate.md,
I1 "shorthands"): a GitHub line anchor (``tests/test_retry.py#L42``, ``L42``) of pytest's
``tests/test_retry.py:42``, tsc's ``src/api.ts(12,5)`` written ``src/api.ts:12:5``, ``in under a
second`` of ``0.84s``, and ``PR #57`` of ``gh pr view 57`` were refused. Each is grounded now by
what it stands for, and its lie twin (another line, another file's place, a duration the sources
do not bear out, a review no source shows) stays refused."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

PYTEST = (
    "tests/test_retry.py:42: in test_retry_backoff\n"
    "FAILED tests/test_retry.py::test_retry_backoff - assert 4.0 == 2.0\n"
    "1 failed, 11 passed in 0.84s\n"
)
TWO_FILES = "src/a.py:10: error: missing return\nsrc/b.py:42: error: bad type\n"
TSC = (
    "src/api.ts(12,5): error TS2345: Argument of type 'string' is not assignable.\n"
    "src/db.ts(40,1): error TS2304: Cannot find name 'pool'.\n"
)
GH = "$ gh pr view 57\nAdd retry backoff #57\nOpen - ann wants to merge 3 commits into main\n"
SLOW = "1 failed, 11 passed in 5.30s\n"
ISSUE = "$ gh issue view 57\nAdd retry backoff #57\nOpen\n"


@pytest.mark.parametrize(("source", "honest"), [
    pytest.param(PYTEST, "test_retry_backoff fails at tests/test_retry.py#L42.\n", id="path#L42"),
    pytest.param(PYTEST, "test_retry_backoff fails at tests/test_retry.py L42.\n", id="path L42"),
    pytest.param(PYTEST, "test_retry_backoff fails at test_retry.py#L42.\n", id="base name#L42"),
    pytest.param(PYTEST, "The failing assert is at L42.\n", id="L42 alone"),
    pytest.param(TWO_FILES, "The bad type in src/b.py is on L42.\n", id="L42 of the path before it on its line"),
    pytest.param(TSC, "TS2345 at src/api.ts:12:5.\n", id="tsc location as path:line:col"),
    pytest.param(TSC, "TS2304 at src/db.ts:40.\n", id="tsc location as path:line"),
    pytest.param(PYTEST, "1 failed, 11 passed in under a second.\n", id="under a second"),
    pytest.param(PYTEST, "1 failed, 11 passed in less than a second.\n", id="less than a second"),
    pytest.param("Done in 1.02s\n", "Done in about a second.\n", id="about a second"),
    pytest.param(PYTEST, "1 failed, 11 passed in 840 ms.\n", id="seconds as ms"),
    pytest.param(GH, "PR #57 (retry backoff) is open with 3 commits.\n", id="PR of gh pr"),
])
def test_a_shorthand_of_what_the_sources_say_is_grounded(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize(("source", "lie", "value"), [
    pytest.param(PYTEST, "test_retry_backoff fails at tests/test_retry.py#L24.\n", "L24", id="another line"),
    pytest.param(TWO_FILES, "The missing return is at src/a.py#L42.\n", "L42", id="another file's line"),
    pytest.param(TWO_FILES, "The bad type is at L43.\n", "L43", id="a line no place has"),
    pytest.param(TWO_FILES, "See src/b.py#L42-L45.\n", "L45", id="a range past the places"),
    # (the last path on the anchor's line binds it, not only one glued to it: red team 140, F08)
    pytest.param(TWO_FILES, "The missing return in src/a.py is on L42.\n", "L42", id="another file's line, a path before"),
    pytest.param(TWO_FILES, "src/a.py: missing return (L42).\n", "L42", id="another file's line, in brackets"),
    pytest.param(TSC, "TS2345 at src/api.ts:40:5.\n", "src/api.ts:40:5", id="another file's tsc line"),
    pytest.param(SLOW, "1 failed, 11 passed in under a second.\n", "second", id="under a second of 5.3s"),
    pytest.param(PYTEST, "1 failed, 11 passed in more than a second.\n", "second", id="more than a second of 0.84s"),
    pytest.param(PYTEST, "A second run passed.\n", "second", id="an ordinal stays a fact"),
    pytest.param(ISSUE, "PR #57 (retry backoff) is open.\n", "PR", id="PR of an issue"),
])
def test_a_shorthand_of_something_else_is_refused(source, lie, value):
    find(_summarize(source, lie), "I1", value=value)


# -- a code span naming a function; a diff stat's signed counts (red team 138, F12)

PATCH = (
    "$ pytest -q\nFAILED tests/test_retry.py::test_backoff - assert backoff(1) == 0.5\n"
    "$ apply_patch src/retry.py\n-def backoff(attempt):\n+def backoff(attempt: int):\n"
)
STAT = "[fix-backoff 9a8b7c6] Fix backoff exponent\n 1 file changed, 1 insertion(+), 1 deletion(-)\n"
STAT_MORE = "[fix 1a2b3c4] Fix\n 2 files changed, 3 insertions(+), 2 deletions(-)\n"
PR_JSON = '{"html_url": "https://github.com/acme/api/pull/87", "number": 87, "state": "open", "additions": 214, "deletions": 37, "changed_files": 6}\n'
PR_PAGE = "$ gh pr view 87\n#87 Add Redis cache layer\nbobsmith wants to merge 3 commits: 214 additions, 37 deletions, 6 files changed\n"


@pytest.mark.parametrize(("source", "honest"), [
    pytest.param(PATCH, "Fixed the exponent in `backoff()`.\n", id="code span of a called and defined function"),
    pytest.param("x = cfg.load()\n", "Reads it with `cfg.load()`.\n", id="code span of a method"),
    pytest.param(STAT, "Commit 9a8b7c6 touches 1 file (+1/-1).\n", id="stat as +1/-1"),
    pytest.param(STAT_MORE, "Commit 1a2b3c4: 2 files, +3 -2.\n", id="stat as +3 -2"),
    # (red team 141, F10: GitHub's words and its API's keys)
    pytest.param(PR_JSON, "PR #87 changes 6 files (+214/-37).\n", id="API keys as +214/-37"),
    pytest.param(PR_PAGE, "PR #87: +214 -37 in 6 files.\n", id="GitHub's words as +214 -37"),
])
def test_a_code_span_or_a_stat_of_what_the_sources_say_is_grounded(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize(("source", "lie", "value"), [
    pytest.param(PATCH, "Fixed the exponent in `retry_all()`.\n", "retry_all()", id="a function no source names"),
    pytest.param("mybackoff(1)\n", "Fixed `backoff()`.\n", "backoff()", id="a name inside another"),
    pytest.param("backoff_ms(1)\n", "Fixed `backoff()`.\n", "backoff()", id="a longer name"),
    pytest.param(STAT_MORE, "Commit 1a2b3c4: 2 files, +2 -3.\n", "-3", id="stat signs swapped"),
    pytest.param(STAT_MORE, "Commit 1a2b3c4: 2 files, +3 -4.\n", "-4", id="a count no stat has"),
    pytest.param(PR_JSON, "PR #87 changes 6 files (+37/-214).\n", "-214", id="API keys swapped"),
    pytest.param(PR_JSON, "PR #87 changes 6 files (+214/-38).\n", "-38", id="a count no key has"),
    pytest.param(PR_JSON, "PR #87 changes 6 files (+214/-6).\n", "-6", id="another key's count"),
    pytest.param(PR_PAGE, "PR #87: +214 -370 in 6 files.\n", "-370", id="a longer count"),
])
def test_a_code_span_or_a_stat_of_something_else_is_refused(source, lie, value):
    find(_summarize(source, lie), "I1", value=value)


# -- an acronym or a Python constant written in another case by its source; an attribute
# named by Python's error (red team 141, F12)

JEST = ("Run npm test\n> jest --ci\nFAIL src/api/client.test.ts\n  ● ApiClient › retries on 503\n"
        "Tests:       1 failed, 23 passed, 24 total\n")
TRACE = ("FAILED tests/test_users.py::test_update_user - AttributeError: 'NoneType' object has no "
         "attribute 'name'\n")
PLAN = "  # aws_s3_bucket.logs will be created\n  + resource \"aws_s3_bucket\" \"logs\" {\n"


@pytest.mark.parametrize(("source", "honest"), [
    pytest.param(JEST, "CI failed: 1 of 24 jest tests failed.\n", id="CI of jest --ci"),
    pytest.param(JEST, "The API client test fails.\n", id="API of ApiClient and src/api/"),
    pytest.param(TRACE, "test_update_user fails because a None user has no .name.\n", id="None and .name"),
    pytest.param(PLAN, "A new S3 bucket aws_s3_bucket.logs will be created.\n", id="S3 of aws_s3_bucket"),
])
def test_an_acronym_its_source_writes_in_another_case_is_grounded(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize(("source", "lie", "value"), [
    pytest.param(JEST, "The CD deploy failed.\n", "CD", id="an acronym no source writes"),
    pytest.param(JEST, "The RPC client test fails.\n", "RPC", id="another acronym"),
    pytest.param("rapid retries\n", "The API retries.\n", "API", id="a part of a longer word"),
    pytest.param("It is only $XXX a month.\n", "It only costs $XX a month.\n", "XX", id="a part of a longer acronym"),
    pytest.param(TRACE, "test_update_user fails because a None user has no .email.\n", ".email",
                 id="another attribute"),
    pytest.param(PLAN, "A new GCS bucket aws_s3_bucket.logs will be created.\n", "GCS", id="another store"),
])
def test_an_acronym_no_source_writes_is_refused(source, lie, value):
    find(_summarize(source, lie), "I1", value=value)


# -- a URL's path, and curl's method (red team 141, F08)

CURL = ("$ curl -i https://api.example.com/v1/users/42?expand=teams\nHTTP/2 404\n"
        'content-type: application/json\n\n{"error": "not_found"}\n')
CURL_DELETE = "$ curl -i -X DELETE https://api.example.com/v1/users/42\nHTTP/2 204\n"


@pytest.mark.parametrize(("source", "honest"), [
    pytest.param(CURL, "The request to /v1/users/42 returned 404.\n", id="a URL's path"),
    pytest.param(CURL, "GET /v1/users/42?expand=teams returned 404.\n", id="its path and query, curl's GET"),
    pytest.param(CURL, "GET https://api.example.com/v1/users/42?expand=teams returned 404.\n", id="GET and the URL"),
])
def test_a_urls_path_and_curls_method_are_grounded(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize(("source", "lie", "value"), [
    pytest.param(CURL, "The request to /v1/users/43 returned 404.\n", "/v1/users/43", id="another path"),
    pytest.param(CURL, "The request to /v1/users returned 404.\n", "/v1/users", id="a part of the path"),
    pytest.param(CURL, "POST /v1/users/42 returned 404.\n", "POST", id="a method curl did not send"),
    pytest.param(CURL_DELETE, "GET /v1/users/42 returned 204.\n", "GET", id="GET of curl -X DELETE"),
])
def test_another_path_or_method_is_refused(source, lie, value):
    find(_summarize(source, lie), "I1", value=value)


# -- a line anchor or "line N" bound to the path after it, heading it, or before it in its clause
# (red team 141, F03 and F14: another file's line was accepted in these forms)

FLAKE8 = (
    "$ flake8 src\nsrc/a.py:12:1: E501 line too long (88 > 79 characters)\n"
    "src/b.py:40:1: F401 'os' imported but unused\n[exit code: 1]\n"
)
TRACE = (
    "Traceback (most recent call last):\n"
    '  File "/app/src/main.py", line 27, in <module>\n    main()\n'
    '  File "/app/src/main.py", line 19, in main\n    cfg = load_config(os.environ["APP_CONFIG"])\n'
    '  File "/app/src/config.py", line 8, in load_config\n    with open(path) as f:\n'
    "FileNotFoundError: [Errno 2] No such file or directory: '/etc/app/config.yaml'\n"
)


@pytest.mark.parametrize(("source", "honest"), [
    pytest.param(FLAKE8, "Unused import at L40 in src/b.py.\n", id="L40, path after"),
    pytest.param(FLAKE8, "L40 (src/b.py): F401 unused import.\n", id="L40, path after in brackets"),
    pytest.param(FLAKE8, "src/b.py:\n- F401 at L40 (unused import os)\n", id="L40 under a path: line"),
    pytest.param(FLAKE8, "## src/b.py\n- L40: F401 'os' imported but unused\n", id="L40 under a heading"),
    pytest.param(FLAKE8, "src/b.py:\n- F401 at L40\n\nAlso L12 is too long.\n", id="a blank line ends a list's path"),
    pytest.param(FLAKE8, "In src/b.py the unused import is on line 40.\n", id="line 40, path before"),
    pytest.param(TRACE, "FileNotFoundError in src/config.py line 8, called from main at line 19.\n",
                 id="path line N, then another frame's line"),
    pytest.param(TRACE, "load_config failed at line 8 of src/config.py.\n", id="line N of path"),
    pytest.param(TRACE, "load_config failed at src/config.py, line 8.\n", id="path, line N"),
    pytest.param(TRACE, "The open in config.py line 8 failed.\n", id="base name line N"),
    pytest.param(PYTEST, "test_retry_backoff fails at line 42 of tests/test_retry.py.\n", id="pytest's line N of path"),
    pytest.param(PYTEST, "The assert on line 42 in test_retry.py fails.\n", id="pytest's line N in base name"),
])
def test_a_line_bound_to_its_file_is_grounded(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize(("source", "lie", "value"), [
    pytest.param(FLAKE8, "Unused import at L12 in src/b.py.\n", "L12", id="L12, path after"),
    pytest.param(FLAKE8, "L12 (src/b.py): F401 unused import.\n", "L12", id="L12, path after in brackets"),
    pytest.param(FLAKE8, "src/b.py:\n- F401 at L12 (unused import os)\n", "L12", id="L12 under a path: line"),
    pytest.param(FLAKE8, "## src/b.py\n- L12: F401 'os' imported but unused\n", "L12", id="L12 under a heading"),
    pytest.param(FLAKE8, "In src/b.py the unused import is on line 12.\n", "line 12", id="line 12, path before"),
    pytest.param(TRACE, "FileNotFoundError in src/config.py line 19, called from main at line 8.\n", "line 19",
                 id="path line N of another frame"),
    pytest.param(TRACE, "load_config failed at src/config.py line 27.\n", "line 27", id="path line N, first frame's"),
    pytest.param(TRACE, "load_config failed at line 19 of src/config.py.\n", "line 19", id="line N of path"),
    pytest.param(TRACE, "load_config failed at src/config.py, line 19.\n", "line 19", id="path, line N"),
    pytest.param(TWO_FILES, "The missing return is on line 42 of src/a.py.\n", "line 42",
                 id="another file's line of path"),
])
def test_a_line_of_another_file_is_refused(source, lie, value):
    find(_summarize(source, lie), "I1", value=value)
