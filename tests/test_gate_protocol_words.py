"""A word of the protocol or platform a source shows is grounded by the marks it leaves (docs/gate.md,
I1 "protocol words"; red team 142, F14): "HTTP 503" of jest's "retries on 503", "GitHub Actions"
of the Actions runner's "Error: Process completed with exit code 1.", "The PR cannot merge",
"404 Not Found" of ``HTTP/2 404``, "The REST API" of a curl exchange were refused as names no
source holds. The word of another protocol or platform, a reason phrase of another code, and a
made-up name stay refused."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

from provgate.gate import _protocol_marks, _reason_phrase_code

ACTIONS = ("Run npm test\n> app@1.4.0 test\n> jest --ci\n\nFAIL src/api/client.test.ts\n"
           "  \u25cf ApiClient \u203a retries on 503\n\n    Expected: 3\n    Received: 1\n\n"
           "Tests:       1 failed, 23 passed, 24 total\nError: Process completed with exit code 1.\n")
GITLAB = ("Running with gitlab-runner 16.5.0\n$ npm test\nTests: 1 failed, 23 passed, 24 total\n"
          "ERROR: Job failed: exit code 1\n")
PLAIN = "$ npm test\nTests: 1 failed, 23 passed, 24 total\n"
CURL = ("$ curl -i https://api.example.com/v1/users/42\nHTTP/2 404\ncontent-type: application/json\n\n"
        '{"error": "not_found", "message": "User 42 not found"}\n')
CURL_500 = CURL.replace("HTTP/2 404", "HTTP/2 500")
ISSUE = "$ gh issue view 57\nAdd retry backoff #57\nOpen\n"


@pytest.mark.parametrize(("source", "honest"), [
    pytest.param(ACTIONS, "The CI run failed: ApiClient retries on HTTP 503 only once (expected 3).\n", id="HTTP 503"),
    pytest.param(ACTIONS, "The npm test job in GitHub Actions exited with code 1.\n", id="GitHub Actions"),
    pytest.param(ACTIONS, "GitHub Actions reports exit code 1 for the npm test step.\n", id="GitHub Actions first"),
    pytest.param(ACTIONS, "The PR cannot merge until the CI failure in src/api/client.test.ts is fixed.\n", id="the PR"),
    pytest.param(ACTIONS, "This PR is blocked by the failing ApiClient test.\n", id="this PR"),
    pytest.param(GITLAB, "The GitLab CI job failed with exit code 1.\n", id="GitLab CI"),
    pytest.param(CURL, "curl https://api.example.com/v1/users/42 -> 404 Not Found.\n", id="404 Not Found"),
    pytest.param(CURL, "The API returned 404 Not Found for user 42.\n", id="404 Not Found, words after"),
    pytest.param(CURL, "The HTTP response was 404 (Not Found).\n", id="HTTP, 404 (Not Found)"),
    pytest.param(CURL, "The REST API answers 404 with a JSON error body (not_found).\n", id="REST"),
])
def test_a_protocol_or_platform_word_its_source_shows_is_grounded(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize(("source", "lie", "value"), [
    pytest.param(ACTIONS, "The job in GitLab CI exited with code 1.\n", "GitLab", id="GitLab of GitHub Actions"),
    pytest.param(GITLAB, "The GitHub Actions job failed with exit code 1.\n", "GitHub", id="GitHub of GitLab"),
    pytest.param(PLAIN, "The npm test job in GitHub Actions failed.\n", "GitHub", id="GitHub of no runner"),
    pytest.param(PLAIN, "The tests failed on HTTP 503.\n", "HTTP", id="HTTP of no exchange"),
    pytest.param(PLAIN, "The REST API failed.\n", "REST", id="REST of no exchange"),
    pytest.param(CURL_500, "curl https://api.example.com/v1/users/42 -> 500 Not Found.\n", "Not",
                 id="another code's phrase"),
    pytest.param(CURL, "curl https://api.example.com/v1/users/42 -> 404 Forbidden.\n", "Forbidden",
                 id="another phrase of the code"),
    pytest.param(CURL, "It returned 404 Not Found Here.\n", "Here", id="a word past the phrase"),
    pytest.param(CURL, "The PaymentsGateway service answered 404.\n", "PaymentsGateway", id="a made-up service"),
    pytest.param(CURL, "The GraphQL API answers 404.\n", "GraphQL", id="another protocol"),
    pytest.param(ISSUE, "The PR #57 is open.\n", "PR", id="a numbered PR of an issue"),
    pytest.param(ACTIONS, "The RPC client test fails.\n", "RPC", id="an acronym of none"),
])
def test_the_word_of_another_protocol_or_platform_is_refused(source, lie, value):
    find(_summarize(source, lie), "I1", value=value)


def test_the_marks_a_source_shows():
    assert {b"github", b"actions", b"ci runner", b"status 503"} <= _protocol_marks(ACTIONS.encode())
    assert {b"http", b"https", b"bare status 404"} <= _protocol_marks(CURL.encode())
    assert b"github" not in _protocol_marks(GITLAB.encode())
    # (a status line with its phrase is no bare code: the phrase is the source's to ground)
    assert b"bare status 404" not in _protocol_marks(b"HTTP/1.1 404 Not Found\n")


def test_only_the_standard_phrase_of_the_code_before_it():
    text = b"got 503 Service Unavailable and 404 (Not Found)"
    assert _reason_phrase_code(text, text.index(b"Unavailable"), text.index(b"Unavailable") + 11) == b"503"
    assert _reason_phrase_code(text, text.index(b"Found"), text.index(b"Found") + 5) == b"404"
    text = b"got 502 Service Unavailable"
    assert _reason_phrase_code(text, text.index(b"Service"), text.index(b"Service") + 7) is None


def test_a_megabyte_of_protocol_words_is_read_in_one_pass():
    text = "The PR got 404 Not Found over HTTP 503 in GitHub Actions. " * 18_000
    verdict = _summarize(ACTIONS + CURL, text)
    assert verdict.accepted


def test_a_json_wrapped_status_line_is_bare_too():
    wrapped = '{"stdout": "HTTP/2 404\\ncontent-type: application/json\\n", "exit_code": 0}\n'
    assert b"bare status 404" in _protocol_marks(wrapped.encode())
    assert_accepted(_summarize(wrapped, "The request got 404 Not Found.\n"))
