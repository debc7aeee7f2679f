"""A merge told with "to" or an arrow is read as "merged into" is (red team 142, F13): the branch
merged to must be one the sources' git output names, and a merge still to come is no claim."""
from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find, store_with, summary, tool

from provgate.gate import Gate

PUSH = ("$ git commit -am 'Fix port'\n[fix-port 9a8b7c6] Fix port\n 1 file changed, 1 insertion(+), 1 deletion(-)\n"
        "$ git push origin fix-port\nTo github.com:acme/api.git\n * [new branch]      fix-port -> fix-port\n")
MERGE = ("$ git checkout main\nSwitched to branch 'main'\n$ git merge fix-port\nUpdating 1a2b3c4..9a8b7c6\n"
         "Fast-forward\n src/app.py | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n$ git push origin main\n"
         "To github.com:acme/api.git\n   1a2b3c4..9a8b7c6  main -> main\n")

MERGED_TO = ["I merged fix-port to main.", "fix-port was merged to main.", "Merged fix-port → main.",
             "Merged fix-port -> main; pushed main to origin.", "With no conflicts, I merged fix-port to main.",
             "fix-port has been merged to main; nothing else pending."]


def summarize(text: str, source: str):
    reads = [tool("t0", "tool:g", source)]
    return Gate(store_with({"tool:g": source})).check(reads, [summary("s", text, ["tool:g"])], operator="summarize")


@pytest.mark.parametrize("text", MERGED_TO)
def test_a_merge_told_with_to_that_git_never_did_is_refused(text):
    found = find(summarize(text, PUSH), "I1", block="s", key="branch", value="main")
    assert found.evidence["change"] == "branch_not_named"


@pytest.mark.parametrize("text", MERGED_TO)
def test_a_merge_told_with_to_that_git_did_is_accepted(text):
    assert_accepted(summarize(text, MERGE))


def test_a_merge_to_a_branch_the_merge_log_does_not_name_is_refused():
    find(summarize("Merged fix-port to develop.", MERGE), "I1", block="s", key="branch", value="develop")


@pytest.mark.parametrize("text", [
    "fix-port is pushed but not yet merged to main.",
    "fix-port is pushed; it still needs to be merged to main.",
    "Pushed fix-port; ready to be merged to main after review.",
    "fix-port -> fix-port pushed; not merged to main.",
    "I merged the fixes to make the build pass and pushed fix-port.",
    "Committed 9a8b7c6 on fix-port and pushed it to origin.",
])
def test_honest_tellings_of_a_push_only_log_are_accepted(text):
    assert_accepted(summarize(text, PUSH))
