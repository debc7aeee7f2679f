"""A diff's direction and the branch git names, in summaries (red team 138, F07; docs/gate.md, I1
"a diff's direction").

Of an apply_patch ``-    return BASE * 2 ** attempt`` / ``+    return BASE * 2 ** (attempt - 1)``
and a git diff ``-port: 6432`` / ``+port: 5432``, summaries telling the removed side as the
current state, or the change reversed, were grounded by the removed line and accepted; so was
"pushed it to main" of ``git push origin fix-backoff``. Each lie has an honest twin that stays
accepted."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find, store_with, summary, tool

from provgate.gate import Gate

PATCH = ("$ apply_patch src/app/retry.py\n@@ -5,2 +5,2 @@\n def backoff(attempt):\n"
         "-    return BASE * 2 ** attempt\n+    return BASE * 2 ** (attempt - 1)\nPatch applied.\n")
V4A_PATCH = ("*** Begin Patch\n*** Update File: src/app/retry.py\n@@ def backoff(attempt):\n"
             "-    return BASE * 2 ** attempt\n+    return BASE * 2 ** (attempt - 1)\n*** End Patch\n"
             "Success. Updated the following files:\nM src/app/retry.py\n")
DIFF = ("$ git diff config/db.yaml\n--- a/config/db.yaml\n+++ b/config/db.yaml\n@@ -1,2 +1,2 @@\n"
        "-port: 6432\n+port: 5432\n host: db.internal\n")
GIT = ("$ git commit -am 'Fix backoff exponent'\n[fix-backoff 9a8b7c6] Fix backoff exponent\n"
       " 1 file changed, 1 insertion(+), 1 deletion(-)\n$ git push origin fix-backoff\n"
       " * [new branch]      fix-backoff -> fix-backoff\n")
PYPROJECT = ("diff --git a/pyproject.toml b/pyproject.toml\nindex 1a2b3c4..5d6e7f8 100644\n--- a/pyproject.toml\n"
             "+++ b/pyproject.toml\n@@ -3,7 +3,7 @@\n name = \"app\"\n-version = \"1.2.3\"\n+version = \"1.2.4\"\n"
             " dependencies = [\n-    \"requests==2.31.0\",\n+    \"requests==2.32.3\",\n     \"pydantic>=2\",\n ]\n")
STATUS = "$ git status\nOn branch main\nYour branch is up to date with 'origin/main'.\n\nnothing to commit, working tree clean\n"


def summarize(text: str, **sources: str):
    reads = [tool(f"t{k}", f"tool:{h}", t) for k, (h, t) in enumerate(sources.items())]
    store = store_with({f"tool:{h}": t for h, t in sources.items()})
    return Gate(store).check(reads, [summary("s", text, [f"tool:{h}" for h in sources])], operator="summarize")


# (lie, honest twin, the diff, the value refused)
PAIRS = {
    "from_to_reversed": ("config/db.yaml: port changed from 5432 to 6432.",
                         "config/db.yaml: port changed from 6432 to 5432.", DIFF, "5432"),
    "now_sets_removed": ("config/db.yaml now sets port: 6432.", "config/db.yaml now sets port: 5432.", DIFF,
                         "port: 6432"),
    "is_now_removed": ("The port is now 6432.", "The port is now 5432.", DIFF, "6432"),
    "present_tense_removed": ("config/db.yaml sets port: 6432.", "config/db.yaml sets port: 5432.", DIFF,
                              "port: 6432"),
    "was_added": ("Port is now 6432 (was 5432).", "Port is now 5432 (was 6432).", DIFF, "6432"),
    "arrow_reversed": ("config/db.yaml: port 5432 -> 6432.", "config/db.yaml: port 6432 -> 5432.", DIFF, "5432"),
    "unicode_arrow_reversed": ("port `5432` → `6432`", "port `6432` → `5432`", DIFF, "5432"),
    "changed_x_to_y_reversed": ("Changed port 5432 to 6432 in config/db.yaml.",
                                "Changed port 6432 to 5432 in config/db.yaml.", DIFF, "5432"),
    "old_value_added": ("The old value 5432 was replaced.", "The old value 6432 was replaced.", DIFF, "5432"),
    "expression_reversed": ("Changed backoff() from BASE * 2 ** (attempt - 1) to BASE * 2 ** attempt.",
                            "Changed backoff() from BASE * 2 ** attempt to BASE * 2 ** (attempt - 1).", PATCH,
                            "BASE * 2 ** (attempt - 1)"),
    "now_returns_removed": ("Patched src/app/retry.py: backoff now returns BASE * 2 ** attempt.",
                            "Patched src/app/retry.py: backoff now returns BASE * 2 ** (attempt - 1).", PATCH,
                            "BASE * 2 ** attempt"),
    "v4a_now_returns_removed": ("backoff() now returns `BASE * 2 ** attempt`.",
                                "backoff() now returns `BASE * 2 ** (attempt - 1)`.", V4A_PATCH,
                                "BASE * 2 ** attempt"),
    "instead_of_reversed": ("backoff now returns BASE * 2 ** attempt instead of BASE * 2 ** (attempt - 1).",
                            "backoff now returns BASE * 2 ** (attempt - 1) instead of BASE * 2 ** attempt.", PATCH,
                            "BASE * 2 ** attempt"),
    "version_bump_reversed": ("Bumped version from 1.2.4 to 1.2.3.", "Bumped version from 1.2.3 to 1.2.4.", PYPROJECT,
                              "1.2.4"),
    "pin_removed_told_current": ("pyproject.toml pins requests==2.31.0.", "pyproject.toml pins requests==2.32.3.",
                                 PYPROJECT, "requests==2.31.0"),
}


@pytest.mark.parametrize("case", sorted(PAIRS))
def test_a_diff_told_in_its_direction_is_accepted(case):
    _, honest, diff, _ = PAIRS[case]
    assert_accepted(summarize(honest, d=diff))


@pytest.mark.parametrize("case", sorted(PAIRS))
def test_a_diff_told_against_its_direction_is_refused(case):
    lie, _, diff, value = PAIRS[case]
    found = find(summarize(lie, d=diff), "I1", block="s", key="diff", value=value)
    assert found.evidence["source"] == "tool:d"
    assert found.evidence["change"] in ("diff_removed_told_current", "diff_added_told_old")
    assert "tool:d" in found.message and value in found.message


HONEST = [
    "the old value 6432 was replaced",
    "config/db.yaml: port `6432` → `5432`.",
    "6432 was replaced by 5432.",
    "Replaced port: 6432 with port: 5432 in config/db.yaml.",
    "Switched the database port to 5432; it used to be 6432.",
    "The diff changes port: 6432 into port: 5432.",
    "Port 5432 instead of 6432.",
    "config/db.yaml sets port: 5432, previously 6432.",
    "- config/db.yaml: port 6432 → 5432",
    "Moved the db port off 6432 (now 5432).",
    "Updated config/db.yaml (lines 1-2): port 5432.",
    "```diff\n-port: 6432\n+port: 5432\n```",
    "The hard-coded 6432 is gone; config/db.yaml uses 5432.",
    "config/db.yaml no longer uses port 6432; it uses 5432.",
]


@pytest.mark.parametrize("text", HONEST)
def test_honest_tellings_of_a_port_change_are_accepted(text):
    assert_accepted(summarize(text, d=DIFF))


@pytest.mark.parametrize("text", [
    "Removed the line `return BASE * 2 ** attempt` and added `return BASE * 2 ** (attempt - 1)`.",
    "Fixed backoff: `BASE * 2 ** attempt` became `BASE * 2 ** (attempt - 1)`.",
    "Patched src/app/retry.py line 5: backoff returns BASE * 2 ** (attempt - 1).",
])
def test_honest_tellings_of_a_patch_are_accepted(text):
    assert_accepted(summarize(text, e=PATCH))


def test_a_removed_value_another_source_still_holds_is_no_diffs_alone():
    # (the replica's config keeps 6432: a value another source holds is not the diff's removed side only)
    replica = "$ cat config/replica.yaml\nport: 6432\n"
    assert_accepted(summarize("config/replica.yaml sets port: 6432; config/db.yaml now sets port: 5432.",
                              d=DIFF, r=replica))


def test_a_value_only_added_may_follow_from_where_no_line_was_removed():
    added = "$ git diff\n--- a/app.yaml\n+++ b/app.yaml\n@@ -1,1 +1,2 @@\n host: db\n+timeout: 30\n"
    assert_accepted(summarize("Added timeout: 30, up from the default.", d=added))


def test_a_removed_value_kept_on_a_context_line_is_no_diffs_alone():
    moved = ("$ git diff\n@@ -1,3 +1,3 @@\n-retries: 3\n+retries: 5\n replica_retries: 3\n")
    assert_accepted(summarize("retries is now 5; replica_retries: 3.", d=moved))


# -- branches named where git names one

BRANCH_PAIRS = {
    "pushed_to": ("Committed 9a8b7c6 and pushed it to main.", "Committed 9a8b7c6 and pushed it to fix-backoff.",
                  "main"),
    "committed_on": ("Committed 9a8b7c6 on main.", "Committed 9a8b7c6 on fix-backoff.", "main"),
    "on_branch": ("Committed 9a8b7c6 on branch develop.", "Committed 9a8b7c6 on branch fix-backoff.", "develop"),
    "merged_into": ("Merged fix-backoff into main.", "Pushed fix-backoff to origin.", "main"),
    "the_x_branch": ("Pushed it to the main branch.", "Pushed it to the fix-backoff branch.", "main"),
}


@pytest.mark.parametrize("case", sorted(BRANCH_PAIRS))
def test_a_branch_the_git_output_names_is_accepted(case):
    assert_accepted(summarize(BRANCH_PAIRS[case][1], g=GIT))


@pytest.mark.parametrize("case", sorted(BRANCH_PAIRS))
def test_a_branch_the_git_output_does_not_name_is_refused(case):
    lie, _, name = BRANCH_PAIRS[case]
    found = find(summarize(lie, g=GIT), "I1", block="s", key="branch", value=name)
    assert found.evidence["change"] == "branch_not_named"
    assert "fix-backoff" in found.evidence["branches"]


@pytest.mark.parametrize("text", [
    "Pushed the branch to the remote.",
    "Committed 9a8b7c6 on branch fix-backoff; pushed to origin/fix-backoff.",
    "pushed fix-backoff to origin",
    "Committed 9a8b7c6 (1 file changed) and pushed it.",
])
def test_honest_tellings_of_a_push_are_accepted(text):
    assert_accepted(summarize(text, g=GIT))


def test_a_branch_git_status_names_grounds_it():
    assert_accepted(summarize("Working tree clean on main; nothing to commit.", s=STATUS))
    find(summarize("Working tree clean on branch develop; nothing to commit.", s=STATUS), "I1", key="branch",
         value="develop")


def test_a_push_shown_without_its_command_names_its_branch():
    # (an agent framework shows git push's output alone: its ref line names the branch)
    pushed = "To github.com:org/app.git\n   9a8b7c6..1b2c3d4  fix-backoff -> fix-backoff\n"
    assert_accepted(summarize("Pushed 1b2c3d4 to fix-backoff.", p=pushed))
    find(summarize("Pushed 1b2c3d4 to main.", p=pushed), "I1", key="branch", value="main")


# -- the old value as the subject of its change, "not X", a change table (red team 140, F01)

# (honest, lie twin, the value refused in the lie)
OLD_SUBJECT_PAIRS = {
    "is_now": ("Port 6432 is now 5432 in config/db.yaml.", "Port 5432 is now 6432 in config/db.yaml.", "5432"),
    "set_off_by_commas": ("The port, 6432, is now 5432.", "The port, 5432, is now 6432.", "6432"),
    "colon_is_now": ("Changed the port: 6432 is now 5432.", "Changed the port: 5432 is now 6432.", "port: 5432"),
    "changes_to": ("Port 6432 changes to 5432.", "Port 5432 changes to 6432.", "5432"),
    "not_x": ("The port is 5432, not 6432.", "The port is 6432, not 5432.", "6432"),
    "used_instead": ("Port 6432 is gone; 5432 is used instead.", "Port 5432 is gone; 6432 is used instead.", "5432"),
    "before_after_labels": ("6432 (before) / 5432 (after).", "5432 (before) / 6432 (after).", "5432"),
    "after_x_broke": ("Reverted the port to 5432 after 6432 broke pgbouncer.",
                      "Reverted the port to 6432 after 5432 broke pgbouncer.", "6432"),
    "change_table": ("| key | old | new |\n|-----|-----|-----|\n| port | 6432 | 5432 |",
                     "| key | old | new |\n|-----|-----|-----|\n| port | 5432 | 6432 |", "5432"),
    "before_after_table": ("| setting | before | after |\n|---|---|---|\n| port | 6432 | 5432 |",
                           "| setting | before | after |\n|---|---|---|\n| port | 5432 | 6432 |", "5432"),
}


@pytest.mark.parametrize("case", sorted(OLD_SUBJECT_PAIRS))
def test_the_old_value_as_the_subject_of_its_change_is_accepted(case):
    assert_accepted(summarize(OLD_SUBJECT_PAIRS[case][0], d=DIFF))


@pytest.mark.parametrize("case", sorted(OLD_SUBJECT_PAIRS))
def test_the_new_value_as_the_subject_of_its_change_is_refused(case):
    _, lie, value = OLD_SUBJECT_PAIRS[case]
    found = find(summarize(lie, d=DIFF), "I1", block="s", key="diff")
    assert found.evidence["change"] in ("diff_removed_told_current", "diff_added_told_old")
    assert found.value in (value, "6432", "5432", "port: 6432", "port: 5432")


def test_a_removed_value_said_not_changed_is_refused():
    # ("not" reads a value as not current only where it stands before the value)
    find(summarize("Port 6432 is not changed.", d=DIFF), "I1", block="s", key="diff", value="6432")


# -- a branch in a negated or future clause; a pull's or fetch's branch (red team 140, F02)

PUSH = ("$ git commit -am 'fix port'\n[fix-port 9a8b7c6] fix port\n 1 file changed, 1 insertion(+), 1 deletion(-)\n"
        "$ git push origin fix-port\nTo github.com:acme/app.git\n * [new branch]      fix-port -> fix-port\n")
PULL = ("$ git checkout fix-port\nSwitched to branch 'fix-port'\n$ git pull --rebase origin main\n"
        "From github.com:acme/app\n * branch            main       -> FETCH_HEAD\n"
        "Successfully rebased and updated refs/heads/fix-port.\n")

# (honest, lie twin, the branch refused in the lie)
NOT_DONE_PAIRS = {
    "not_merged_yet": ("Pushed 9a8b7c6 to origin/fix-port; it is not merged into main yet.",
                       "Pushed 9a8b7c6 to origin/fix-port; it is merged into main.", "main"),
    "next_step": ("Pushed fix-port; next step is to merge it into main.", "Pushed fix-port; then merged it into main.",
                  "main"),
    "will_need": ("Pushed fix-port; it will need a rebase onto main before merging.",
                  "Pushed fix-port; it was rebased onto main before merging.", "main"),
    "isnt_merged": ("Pushed fix-port, which isn't merged into main.", "Pushed fix-port, which is merged into main.",
                    "main"),
    # (red team 141, F02: a not-done word of a clause of its own, then a subject telling what git did)
    "as_planned": ("As planned I pushed fix-port; it is not merged into main.", "As planned I merged fix-port into main.",
                   "main"),
    "did_not_fail": ("Since the tests did not fail I pushed fix-port; I have not merged it into main.",
                     "Since the tests did not fail I merged fix-port into main.", "main"),
    "could_break": ("Because nothing could break I pushed fix-port; we need to merge it into main.",
                    "Because nothing could break we merged fix-port into main.", "main"),
    "need_for_review": ("Without any need for review I pushed fix-port, not yet merged into main.",
                        "Without any need for review I merged fix-port into main.", "main"),
}


@pytest.mark.parametrize("case", sorted(NOT_DONE_PAIRS))
def test_a_branch_in_a_negated_or_future_clause_is_accepted(case):
    assert_accepted(summarize(NOT_DONE_PAIRS[case][0], g=PUSH))


@pytest.mark.parametrize("case", sorted(NOT_DONE_PAIRS))
def test_a_branch_told_as_done_that_git_does_not_name_is_refused(case):
    _, lie, name = NOT_DONE_PAIRS[case]
    found = find(summarize(lie, g=PUSH), "I1", block="s", key="branch", value=name)
    assert found.evidence["change"] == "branch_not_named"


def test_a_pulls_branch_grounds_it():
    assert_accepted(summarize("Rebased fix-port onto main (git pull --rebase origin main).", p=PULL))
    find(summarize("Rebased fix-port onto develop.", p=PULL), "I1", block="s", key="branch", value="develop")


def test_a_fetch_line_and_an_updated_ref_ground_their_branches():
    fetched = "From github.com:acme/app\n * branch            main       -> FETCH_HEAD\n"
    assert_accepted(summarize("Fetched main and rebased onto main.", f=fetched))
    find(summarize("Rebased onto develop.", f=fetched), "I1", block="s", key="branch", value="develop")
    updated = "Successfully rebased and updated refs/heads/fix-port.\n"
    assert_accepted(summarize("Rebased branch fix-port.", u=updated))
    find(summarize("Rebased branch develop.", u=updated), "I1", block="s", key="branch", value="develop")


def test_a_removed_value_before_is_now_with_no_value_after_is_refused():
    # ("is now" reads its subject as the old value only where the new one follows)
    find(summarize("Port 6432 is now active.", d=DIFF), "I1", block="s", key="diff", value="6432")
    find(summarize("Port 6432 changes to the default.", d=DIFF), "I1", block="s", key="diff", value="6432")


@pytest.mark.parametrize("text", ["Not only did the patch keep 6432.", "After the patch: port 6432."])
def test_not_and_after_read_a_value_as_old_only_right_before_it(text):
    find(summarize(text, d=DIFF), "I1", block="s", key="diff")


@pytest.mark.parametrize("text", ["Before lunch I merged fix-port into main.", "Next I merged fix-port into main.",
                                  "Per the plan I merged fix-port into main."])
def test_a_clause_opened_by_a_time_word_still_tells_what_git_did(text):
    find(summarize(text, g=PUSH), "I1", block="s", key="branch", value="main")


# -- a purpose clause after the new value (red team 141, F20: "Port 6432 changes to 5432 to
# bypass pgbouncer" read 5432 as the old side of another "X to Y")

@pytest.mark.parametrize("text", ["Port 6432 changes to 5432 to bypass pgbouncer.",
                                  "The port moves from 6432 to 5432 to bypass pgbouncer.",
                                  "Changed the port 6432 to 5432 to skip the pooler."])
def test_a_purpose_clause_after_the_new_value_is_no_change_arrow(text):
    assert_accepted(summarize(text, d=DIFF))


@pytest.mark.parametrize("text, value", [("Port 5432 changes to 6432 to bypass pgbouncer.", "5432"),
                                         ("The port moves from 5432 to 6432 to bypass pgbouncer.", "5432"),
                                         ("Changed the port 5432 to the old 6432.", "5432")])
def test_a_change_told_backwards_before_a_purpose_clause_is_refused(text, value):
    find(summarize(text, d=DIFF), "I1", block="s", key="diff", value=value)


# -- a terraform plan's `~ attr = old -> new` is a change record too (red team 141, F15: the
# change told reversed was accepted, the plan read in neither direction)

PLAN = ("$ terraform plan\nTerraform will perform the following actions:\n\n"
        "  # aws_instance.web will be updated in-place\n  ~ resource \"aws_instance\" \"web\" {\n"
        "        id            = \"i-0abc123def4567890\"\n      ~ instance_type = \"t3.micro\" -> \"t3.small\"\n"
        "        tags          = {\n            \"Name\" = \"web\"\n        }\n    }\n\n"
        "  # aws_s3_bucket.logs will be created\n  + resource \"aws_s3_bucket\" \"logs\" {\n"
        "      + bucket = \"acme-logs-prod\"\n    }\n\nPlan: 1 to add, 1 to change, 0 to destroy.\n")
SCALE = ("$ terraform plan\n  # aws_ecs_service.api will be updated in-place\n  ~ resource \"aws_ecs_service\" \"api\" {\n"
         "      ~ desired_count = 2 -> 4\n      ~ task_definition = \"api:17\" -> \"api:18\" # forces replacement\n"
         "      ~ id = \"svc-1\" -> (known after apply)\n    }\n\nPlan: 0 to add, 1 to change, 0 to destroy.\n")

# (lie, honest twin, the plan, the value refused)
PLAN_PAIRS = {
    "from_to_reversed": ("aws_instance.web changes instance_type from t3.small to t3.micro.",
                         "aws_instance.web changes instance_type from t3.micro to t3.small.", PLAN, "t3.small"),
    "downsized_reversed": ("The web instance is downsized from t3.small to t3.micro.",
                           "The web instance is upsized from t3.micro to t3.small.", PLAN, "t3.small"),
    "arrow_reversed": ("aws_instance.web: instance_type t3.small -> t3.micro.",
                       "aws_instance.web: instance_type t3.micro -> t3.small.", PLAN, "t3.small"),
    "is_now_reversed": ("instance_type t3.small is now t3.micro.", "instance_type t3.micro is now t3.small.", PLAN,
                        "t3.small"),
    "upsized_to_old": ("The web instance is upsized to t3.micro.", "The web instance is upsized to t3.small.", PLAN,
                       "t3.micro"),
    "count_reversed": ("desired_count goes from 4 to 2.", "desired_count goes from 2 to 4.", SCALE, "4"),
    "will_be_reversed": ("The web instance t3.small will be downgraded to t3.micro.",
                         "The web instance t3.micro will be upgraded to t3.small.", PLAN, "t3.small"),
    "currently_reversed": ("aws_instance.web is currently t3.micro; the plan moves it to t3.micro.",
                           "aws_instance.web is currently t3.micro; the plan moves it to t3.small.", PLAN, "t3.micro"),
    "forces_replacement_reversed": ("task_definition api:18 -> api:17 (forces replacement).",
                                    "task_definition api:17 -> api:18 (forces replacement).", SCALE, "api:18"),
}


@pytest.mark.parametrize("case", sorted(PLAN_PAIRS))
def test_a_plan_change_told_in_its_direction_is_accepted(case):
    _, honest, plan, _ = PLAN_PAIRS[case]
    assert_accepted(summarize(honest, p=plan))


@pytest.mark.parametrize("case", sorted(PLAN_PAIRS))
def test_a_plan_change_told_reversed_is_refused(case):
    lie, _, plan, value = PLAN_PAIRS[case]
    found = find(summarize(lie, p=plan), "I1", block="s", key="diff", value=value)
    assert found.evidence["source"] == "tool:p"
    assert found.evidence["change"] in ("diff_removed_told_current", "diff_added_told_old")


@pytest.mark.parametrize("text", [
    "Plan: 1 to add, 1 to change, 0 to destroy; aws_instance.web goes t3.micro -> t3.small.",
    "The plan creates the acme-logs-prod bucket and upsizes web to t3.small (was t3.micro).",
    "Instance i-0abc123def4567890 will be updated in-place.",
])
def test_honest_tellings_of_a_plan_are_accepted(text):
    assert_accepted(summarize(text, p=PLAN))


def test_a_plan_value_computed_at_apply_is_no_change_record():
    # (`-> (known after apply)` tells no new value: the id stays told as it is)
    assert_accepted(summarize("Service svc-1 scales from 2 to 4 tasks.", p=SCALE))


# -- helm diff's resource sections: unified `-`/`+` lines with no `@@` line (red team 141, F15)

HELM = ("$ helm diff upgrade web ./chart\ndefault, web, Deployment (apps) has changed:\n"
        "  # Source: web/templates/deployment.yaml\n  apiVersion: apps/v1\n  kind: Deployment\n  spec:\n"
        "-   replicas: 2\n+   replicas: 3\n    template:\n      spec:\n        containers:\n"
        "-         image: \"acme/web:1.4.2\"\n+         image: \"acme/web:1.5.0\"\n")

HELM_PAIRS = {
    "replicas_reversed": ("The web Deployment goes from 3 replicas to 2.",
                          "The web Deployment goes from 2 replicas to 3.", "3"),
    "image_removed_told_current": ("web now runs acme/web:1.4.2.", "web now runs acme/web:1.5.0.", "acme/web:1.4.2"),
    "arrow_reversed": ("image acme/web:1.5.0 -> acme/web:1.4.2", "image acme/web:1.4.2 -> acme/web:1.5.0",
                       "acme/web:1.5.0"),
}


@pytest.mark.parametrize("case", sorted(HELM_PAIRS))
def test_a_helm_diff_told_in_its_direction_is_accepted(case):
    assert_accepted(summarize(HELM_PAIRS[case][1], h=HELM))


@pytest.mark.parametrize("case", sorted(HELM_PAIRS))
def test_a_helm_diff_told_reversed_is_refused(case):
    lie, _, value = HELM_PAIRS[case]
    found = find(summarize(lie, h=HELM), "I1", block="s", key="diff")
    assert found.evidence["source"] == "tool:h"
    assert value in found.value


def test_a_kubectl_diff_is_read_as_the_unified_diff_it_prints():
    # (kubectl diff runs `diff -u -N` over the live and the merged objects: its `@@` lines open the hunks)
    kubectl = ("$ kubectl diff -f deploy.yaml\ndiff -u -N /tmp/LIVE-123/apps.v1.Deployment.default.web "
               "/tmp/MERGED-456/apps.v1.Deployment.default.web\n--- /tmp/LIVE-123/apps.v1.Deployment.default.web\n"
               "+++ /tmp/MERGED-456/apps.v1.Deployment.default.web\n@@ -6,7 +6,7 @@\n   uid: 5d1f\n spec:\n"
               "-  replicas: 2\n+  replicas: 5\n   selector:\n")
    assert_accepted(summarize("kubectl diff: web scales from 2 to 5 replicas.", k=kubectl))
    find(summarize("kubectl diff: web scales from 5 to 2 replicas.", k=kubectl), "I1", block="s", key="diff", value="5")
