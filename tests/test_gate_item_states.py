"""An item keeps its own state, action or error (docs/gate.md, I1 "item states re-paired"; red
team 142, F19). git status pairs each path with its section and tag, terraform each resource
with its action, pytest each test with its outcome and error; the item and the state word were
each grounded wherever they stood, so a summary giving one item another's state ("src/cache.py
is untracked", "the plan destroys aws_s3_bucket.logs", two tests' errors swapped) was accepted.
Lie/honest pairs on each, and honest summaries as agents write them (other word orders, lists,
items whose state the source does not give) stay accepted."""

from __future__ import annotations

import json

import pytest
from gate_helpers import assert_accepted, find, gate_for, summary, tool
from test_gate_counted_rows import (
    GIT_STATUS,  # (red team 142's git status, F06 and F19)
)
from test_grammar_v4 import _summarize

from provgate.gate import _item_states

GIT_STAGED = """$ git status
On branch main
Changes to be committed:
  (use "git restore --staged <file>..." to unstage)
\tnew file:   src/api/routes.py
\tdeleted:    src/api/legacy.py

Changes not staged for commit:
  (use "git add <file>..." to update what will be committed)
\tmodified:   README.md
"""
TERRAFORM = """$ terraform plan
Terraform will perform the following actions:

  # aws_instance.web will be updated in-place
  ~ resource "aws_instance" "web" {
        id            = "i-0abc123def4567890"
      ~ instance_type = "t3.micro" -> "t3.small"
        tags          = {
            "Name" = "web"
        }
    }

  # aws_s3_bucket.logs will be created
  + resource "aws_s3_bucket" "logs" {
      + bucket = "acme-logs-prod"
    }

Plan: 1 to add, 1 to change, 0 to destroy.
"""
PYTEST = """$ pytest -v tests/
============================= test session starts ==============================
collected 120 items

tests/test_api.py::test_list_users PASSED                                [  0%]
tests/test_api.py::test_create_user FAILED                               [  1%]
tests/test_api.py::test_delete_user FAILED                               [  2%]
tests/test_models.py::test_user_repr PASSED                              [  3%]
tests/test_api.py::test_update_user FAILED                               [  4%]

=================================== FAILURES ===================================
_______________________________ test_create_user _______________________________

    def test_create_user(client):
        resp = client.post("/users", json={"name": "bob"})
>       assert resp.status_code == 201
E       assert 500 == 201
E        +  where 500 = <Response [500]>.status_code

tests/test_api.py:42: AssertionError
=========================== short test summary info ============================
FAILED tests/test_api.py::test_create_user - assert 500 == 201
FAILED tests/test_api.py::test_delete_user - KeyError: 'id'
FAILED tests/test_api.py::test_update_user - AttributeError: 'NoneType' object has no attribute 'name'
======================== 3 failed, 117 passed in 12.34s ========================
"""
PYTEST_CAUSE = """=================================== FAILURES ===================================
__________________________________ test_fetch __________________________________
    def test_fetch():
>       resp = requests.get("http://localhost:8000/items")
E       ConnectionRefusedError: [Errno 111] Connection refused
E   requests.exceptions.ConnectionError: HTTPConnectionPool(host='localhost', port=8000)
=========================== short test summary info ============================
FAILED tests/test_client.py::test_fetch - requests.exceptions.ConnectionError: HTTPConnectionPool(host='localhost', port=8000)
FAILED tests/test_client.py::test_parse - ValueError: bad json
"""
GREP = """$ grep -rn "MAX_RETRIES" src/
src/http/client.py:12:MAX_RETRIES = 5
src/http/client.py:48:    for attempt in range(MAX_RETRIES):
src/worker/jobs.py:7:from http.client import MAX_RETRIES
"""

# (source, the lie, the item it re-pairs, its honest twin)
PAIRS = [
    (GIT_STATUS, "src/cache.py is untracked and notes.txt is modified.", "src/cache.py",
     "src/cache.py is modified and notes.txt is untracked."),
    (GIT_STATUS, "src/cache.py is staged; tests/test_cache.py is modified.", "src/cache.py",
     "src/cache.py is not staged; tests/test_cache.py is modified."),
    (GIT_STATUS, "Untracked: src/cache.py, notes.txt.", "src/cache.py",
     "Untracked: notes.txt. Modified: src/cache.py, tests/test_cache.py."),
    (GIT_STATUS, "notes.txt and tests/test_cache.py are untracked.", "tests/test_cache.py",
     "notes.txt is untracked, and tests/test_cache.py is modified."),
    (GIT_STATUS, "There is one untracked file, src/cache.py, and a modified one, notes.txt.", "src/cache.py",
     "There is one untracked file, notes.txt, and a modified one, src/cache.py."),
    (GIT_STAGED, "README.md is staged for commit.", "README.md", "src/api/routes.py is staged for commit."),
    (GIT_STAGED, "README.md is staged; src/api/legacy.py is unstaged.", "README.md",
     "README.md is unstaged; src/api/legacy.py is staged."),
    (TERRAFORM, "terraform plan will create aws_instance.web and update the S3 bucket acme-logs-prod.",
     "aws_instance.web", "terraform plan will update aws_instance.web and create the S3 bucket acme-logs-prod."),
    (TERRAFORM, "The plan destroys aws_s3_bucket.logs.", "aws_s3_bucket.logs", "The plan creates aws_s3_bucket.logs."),
    (TERRAFORM, "The plan destroys aws_instance.web (t3.micro -> t3.small).", "aws_instance.web",
     "The plan updates aws_instance.web in place (t3.micro -> t3.small)."),
    (TERRAFORM, "The S3 bucket acme-logs-prod is updated in place.", "acme-logs-prod",
     "The S3 bucket acme-logs-prod is created."),
    (PYTEST, "test_delete_user fails with AttributeError; test_update_user with KeyError.", "test_delete_user",
     "test_delete_user fails with KeyError; test_update_user with AttributeError."),
    (PYTEST, "`test_update_user` raised a KeyError: 'id'.", "test_update_user",
     "`test_delete_user` raised a KeyError: 'id'."),
    (PYTEST, ("3 failures: test_create_user (assert 500 == 201), test_delete_user (AttributeError) and "
             "test_update_user (KeyError)."), "test_delete_user",
     ("3 failures: test_create_user (assert 500 == 201), test_delete_user (KeyError) and "
     "test_update_user (AttributeError).")),
    (PYTEST_CAUSE, "test_parse fails with a ConnectionRefusedError.", "test_parse",
     "test_fetch fails with a ConnectionRefusedError."),
    (GREP, "MAX_RETRIES = 5 lives in src/worker/jobs.py.", "src/worker/jobs.py",
     "MAX_RETRIES = 5 lives in src/http/client.py."),
    (GREP, "MAX_RETRIES is defined in src/worker/jobs.py and imported by src/http/client.py.", "src/http/client.py",
     "MAX_RETRIES is defined in src/http/client.py and imported by src/worker/jobs.py."),
    (GREP, "src/http/client.py:12 imports MAX_RETRIES.", "src/http/client.py",
     "src/worker/jobs.py:7 imports MAX_RETRIES."),
]


@pytest.mark.parametrize(("source", "lie", "item", "honest"), PAIRS)
def test_a_state_told_of_another_item_is_refused_and_its_twin_accepted(source, lie, item, honest):
    found = find(_summarize(source, lie), "I1", block="s")
    assert found.evidence["change"] == "item_state_repaired"
    assert found.evidence["item"] == item
    assert_accepted(_summarize(source, honest))


HONEST = [
    (GIT_STATUS, "src/cache.py and tests/test_cache.py are modified; notes.txt is untracked."),
    (GIT_STATUS, "Two files have unstaged changes (src/cache.py, tests/test_cache.py) and notes.txt is untracked."),
    (GIT_STATUS, ("On branch feature/cache, 2 commits ahead of origin. Modified (not staged): src/cache.py, "
                 "tests/test_cache.py. Untracked: notes.txt.")),
    (GIT_STATUS, "- **Modified:** `src/cache.py`, `tests/test_cache.py`\n- **Untracked:** `notes.txt`"),
    (GIT_STATUS, ("The working tree has two modified files, src/cache.py and tests/test_cache.py, and one "
                 "untracked file, notes.txt.")),
    (GIT_STATUS, "notes.txt is untracked, while src/cache.py and tests/test_cache.py are modified but not staged."),
    (GIT_STATUS, "Nothing is staged yet; src/cache.py needs to be staged before committing."),
    (GIT_STATUS, "notes.txt is not staged (it is untracked); src/cache.py has unstaged modifications."),
    (GIT_STATUS, "src/cache.py and notes.txt are modified and untracked respectively."),
    (GIT_STATUS, "Only notes.txt is untracked; no file is staged."),
    (GIT_STATUS, "Changes not staged for commit: src/cache.py, tests/test_cache.py. Untracked files: notes.txt."),
    (GIT_STAGED, ("Staged: new file src/api/routes.py and the deletion of src/api/legacy.py; README.md is modified "
                 "but not staged.")),
    (GIT_STAGED, "src/api/routes.py was added, src/api/legacy.py deleted (both staged), README.md modified."),
    (TERRAFORM, "The plan updates aws_instance.web in place and creates aws_s3_bucket.logs."),
    (TERRAFORM, "Plan: 1 to add (aws_s3_bucket.logs), 1 to change (aws_instance.web), 0 to destroy."),
    (TERRAFORM, ("aws_instance.web's instance_type changes from t3.micro to t3.small (in-place update), and a new "
                "bucket aws_s3_bucket.logs (acme-logs-prod) will be created. Nothing is destroyed.")),
    (TERRAFORM, "aws_instance.web will be updated in-place rather than replaced; no resources are destroyed."),
    (TERRAFORM, "Creates: aws_s3_bucket.logs. Updates in place: aws_instance.web."),
    (TERRAFORM, "The plan: it creates aws_s3_bucket.logs and modifies aws_instance.web."),
    (TERRAFORM, "aws_instance.web and aws_s3_bucket.logs are updated and created."),
    (PYTEST, ("3 of 120 tests failed: test_create_user (assert 500 == 201), test_delete_user (KeyError: 'id') and "
             "test_update_user (AttributeError on None).")),
    (PYTEST, "test_delete_user and test_update_user fail with a KeyError and an AttributeError."),
    (PYTEST, "test_create_user fails with AssertionError (500 != 201); test_list_users and test_user_repr pass."),
    (PYTEST, ("KeyError: 'id' in test_delete_user; AttributeError: 'NoneType' object has no attribute 'name' in "
             "test_update_user.")),
    (PYTEST, "test_update_user fails with AttributeError, not KeyError."),
    (PYTEST, ("Failures: `tests/test_api.py::test_delete_user` (KeyError) and `tests/test_api.py::test_update_user` "
             "(AttributeError).")),
    (PYTEST, "117 passed, 3 failed. test_create_user got a 500 instead of 201."),
    (GREP, ("MAX_RETRIES (5) is defined in src/http/client.py:12, used in its retry loop at line 48, and imported in "
           "src/worker/jobs.py:7.")),
    (PYTEST_CAUSE, "test_fetch fails with requests.exceptions.ConnectionError; test_parse with ValueError."),
    (PYTEST_CAUSE, "test_fetch: ConnectionError (the server on port 8000 refused the connection); test_parse: ValueError."),
    (GREP, "MAX_RETRIES is used in src/http/client.py and src/worker/jobs.py."),
    (GREP, "src/worker/jobs.py imports MAX_RETRIES from http.client; src/http/client.py defines it and uses it."),
    (GREP, ("Three hits: the definition in src/http/client.py, a use in the same file, and an import in "
           "src/worker/jobs.py.")),
]


@pytest.mark.parametrize(("source", "honest"), HONEST)
def test_honest_summaries_of_item_states_stay_accepted(source, honest):
    assert_accepted(_summarize(source, honest))


def test_the_records_read_by_item():
    git = _item_states(GIT_STATUS.encode()).states
    assert git[b"src/cache.py"] == {b"git-section": {b"unstaged"}, b"git-tag": {b"modified"}}
    assert git[b"cache.py"] == git[b"src/cache.py"]
    assert git[b"notes.txt"] == {b"git-section": {b"untracked"}, b"git-tag": {b"untracked"}}
    tf = _item_states(TERRAFORM.encode()).states
    assert tf[b"aws_instance.web"] == {b"tf-action": {b"update"}}
    assert tf[b"acme-logs-prod"] == {b"tf-action": {b"create"}}
    tests = _item_states(PYTEST.encode()).states
    assert tests[b"test_delete_user"][b"test-error"] == {b"KeyError"}
    assert tests[b"test_create_user"][b"test-error"] == {b"AssertionError"}
    assert tests[b"test_list_users"] == {b"test-outcome": {b"passed"}}
    grep = _item_states(GREP.encode()).states
    assert grep[b"src/http/client.py"] == {b"grep-role": {b"define", b"use"}}
    assert grep[b"jobs.py"] == {b"grep-role": {b"import"}}
    # (hits sharing no name, two searches' or a regex's, give no file a role)
    assert not _item_states(b"src/a.py:3:alpha = 1\nsrc/b.py:9:beta = 2\n").states


# (git status's and terraform's words are read only where a source of the summaries may show
# that tool's records, each source looked at once a store: a plan its JSON wraps with escaped
# blanks, and a plan source a later check of the same store brings, are still read)
def test_a_plan_wrapped_in_json_with_escaped_blanks_is_read():
    wrapped = json.dumps({"stdout": TERRAFORM}).replace(" will be ", "\\u0020will\\u0020be ")
    assert " will be " not in wrapped
    found = find(_summarize(wrapped, "The plan destroys aws_s3_bucket.logs."), "I1", block="s")
    assert found.evidence["change"] == "item_state_repaired"
    assert_accepted(_summarize(wrapped, "The plan creates aws_s3_bucket.logs."))


@pytest.mark.parametrize(("source", "lie", "honest"), [
    (TERRAFORM, "The plan destroys aws_s3_bucket.logs.", "The plan creates aws_s3_bucket.logs."),
    (GIT_STATUS, "src/cache.py is untracked.", "notes.txt is untracked."),
])
def test_a_later_check_of_the_store_reads_its_new_sources(source, lie, honest):
    g = gate_for({"tool:c1": GREP, "tool:c2": source})
    grep, other = tool("t1", "tool:c1", GREP), tool("t2", "tool:c2", source)
    assert_accepted(g.check([grep], [grep, summary("s1", "MAX_RETRIES = 5 lives in src/http/client.py.", ["tool:c1"])],
                            operator="summarize"))
    for text in (lie, honest):
        verdict = g.check([grep, other], [grep, other, summary("s", text, ["tool:c2"])], operator="summarize")
        if text == lie:
            assert find(verdict, "I1", block="s").evidence["change"] == "item_state_repaired"
        else:
            assert_accepted(verdict)
