"""A plan's direction in the forms other than terraform's text plan (docs/gate.md, I1 "a diff's
direction"; red team 142, F05): ``terraform show -json``'s ``before``/``after`` and pulumi
preview's ``~ attr: old => new``. The text plan's ``~ attr = old -> new`` was read; these were
not, so "changes instance_type from t3.small to t3.micro" of ``t3.micro`` -> ``t3.small`` was
accepted. Lie/honest pairs; honest summaries as agents write them stay accepted."""

from __future__ import annotations

import json

import pytest
from gate_helpers import assert_accepted, find
from test_gate_diff_direction import summarize

from provgate.gate import _plan_changes_of

RESOURCE_CHANGES = [
    {"address": "aws_instance.web", "type": "aws_instance", "name": "web",
     "change": {"actions": ["update"],
                "before": {"ami": "ami-0c55b159cbfafe1f0", "instance_type": "t3.micro", "tags": {"Name": "web-1"}},
                "after": {"ami": "ami-0c55b159cbfafe1f0", "instance_type": "t3.small", "tags": {"Name": "web-2"}}}},
    {"address": "aws_s3_bucket.logs", "type": "aws_s3_bucket", "name": "logs",
     "change": {"actions": ["create"], "before": None, "after": {"bucket": "acme-logs-prod"}}},
]
# jq's pretty form after its command, and terraform's own one-line form
TF_JSON = "$ terraform show -json plan.out | jq .resource_changes\n" + json.dumps(RESOURCE_CHANGES, indent=2) + "\n"
TF_JSON_LINE = json.dumps({"format_version": "1.2", "terraform_version": "1.7.5",
                           "resource_changes": RESOURCE_CHANGES}) + "\n"
PULUMI = """$ pulumi preview
Previewing update (prod)

     Type                 Name       Plan       Info
     pulumi:pulumi:Stack  app-prod
 ~   └─ aws:ec2:Instance  web        update     [diff: ~instanceType]
    ~ instanceType: "t3.micro" => "t3.small"
 +   └─ aws:s3:Bucket     logs       create

Resources:
    + 1 to create
    ~ 1 to update
"""

# (lie, honest twin, the plan, the value refused)
PAIRS = [
    ("aws_instance.web changes instance_type from t3.small to t3.micro.",
     "aws_instance.web changes instance_type from t3.micro to t3.small.", TF_JSON, "t3.small"),
    ("The plan downsizes aws_instance.web to t3.micro.", "The plan upsizes aws_instance.web to t3.small.",
     TF_JSON, "t3.micro"),
    ("instance_type t3.small -> t3.micro.", "instance_type t3.micro -> t3.small.", TF_JSON_LINE, "t3.small"),
    ("The web instance goes from t3.small to t3.micro.", "The web instance goes from t3.micro to t3.small.",
     TF_JSON_LINE, "t3.small"),
    ("web changes instanceType from t3.small to t3.micro.", "web changes instanceType from t3.micro to t3.small.",
     PULUMI, "t3.small"),
    ('web: "t3.small" => "t3.micro"', 'web: "t3.micro" => "t3.small"', PULUMI, '"t3.small"'),
    ("The web instance is now t3.micro after the update.", "The web instance is now t3.small after the update.",
     PULUMI, "t3.micro"),
]


@pytest.mark.parametrize(("lie", "honest", "plan", "value"), PAIRS)
def test_a_json_or_pulumi_plan_told_reversed_is_refused_and_its_twin_accepted(lie, honest, plan, value):
    found = find(summarize(lie, p=plan), "I1", block="s", key="diff", value=value)
    assert found.evidence["change"] in ("diff_removed_told_current", "diff_added_told_old")
    assert_accepted(summarize(honest, p=plan))


@pytest.mark.parametrize("plan", [TF_JSON, TF_JSON_LINE, PULUMI])
@pytest.mark.parametrize("text", [
    "The plan updates the web instance from t3.micro to t3.small and creates the acme-logs-prod bucket.",
    "web is upsized to t3.small (currently t3.micro).",
    "web goes t3.micro -> t3.small.",
    "The web instance is currently t3.micro; it will become t3.small.",
    "Only the instance type changes (t3.micro to t3.small).",
])
def test_honest_tellings_of_a_json_or_pulumi_plan_are_accepted(plan, text):
    assert_accepted(summarize(text, p=plan))


def test_pulumis_counts_stay_grounded():
    assert_accepted(summarize("1 to create, 1 to update: web goes t3.micro -> t3.small.", p=PULUMI))


def test_the_sides_of_a_json_plan():
    diff = _plan_changes_of(TF_JSON.encode())
    assert [(line[0], line[-2]) for line in diff.lines][:2] == [("instance_type", "t3.micro"), ("instance_type", "t3.small")]
    assert diff.sides[:2] == [0, 1]
    # (an attribute alike on both sides is neutral, the created resource's no change)
    assert "0c55b159cbfafe1f0" in diff.neutral
    assert not any("acme-logs-prod" in " ".join(line) for line in diff.lines)
    assert _plan_changes_of(b'$ terraform show -json\n{"before": {"a": 1}, "after": ') == ()


def test_a_megabyte_one_line_json_plan_is_read_in_one_pass():
    changes = [{"address": f"aws_instance.w{k}", "change": {"before": {"instance_type": "t3.micro", "n": k},
                                                              "after": {"instance_type": "t3.small", "n": k}}}
               for k in range(12_000)]
    data = json.dumps({"resource_changes": changes}).encode()
    assert len(data) > 1_000_000
    # (one C pass of the JSON and one of its changes: a quadratic read would not finish)
    assert len(_plan_changes_of(data).lines) == 24_000
