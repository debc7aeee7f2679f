"""Quoted polarity at fenced blocks (docs/gate.md, I1 — "quoted polarity"): red team 130b's
findings on the fence reader, F01 F02 F06 F03. Each lie is refused and its honest control
accepted; the suite runs once each way (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, blk, find, store_with, summary

from provgate.gate import Gate

FENCE = "```\nmake deploy\n```\n"
RUN = "Run `make deploy` now."
_ASKED = "Run this:\n" + FENCE


def _summarize(source: str, text: str = RUN):
    store = store_with({"src:1": source})
    pre = [blk("b1", "user", source, ["src:1"])]
    return Gate(store).check(pre, [summary("s1", text, ["src:1"])], operator="summarize")


def _refused(source: str, text: str = RUN, value: str = "make deploy") -> None:
    find(_summarize(source, text), "I1", block="s1", value=value, evidence__change="negation_dropped")


# red team 130b, F01: after a block, in a sentence apart from it, any word after "that" outside
# the block's nouns was read as another thing; after an act of running it is the block's word
@pytest.mark.parametrize("line", [
    "Done. Never run that deploy script.", "Warning: it wipes prod. Never run that deploy script.",
    "OK. Never run that sudo command.", "Easy. Do not run that make target.", "Then wait. Don't execute that terraform apply.",
    "Careful! Never run that rm command!", "Note; Nobody should run that helm upgrade.",
    "It wipes prod; never run that deploy script.", "Done. Never run this deploy script.",
    "Done. Never run these make commands.", "Done. Never run the above deploy script.", "Done. Never run that raw.",
    "Done. Never run that unreviewed.", "Done. Never run that live.", "Done. Never run that outside CI.",
    "Done. Never run that unattended.", "Done. Never paste that curl pipe.", "OK. You must never run those kubectl things."])
def test_a_word_after_the_pointer_after_an_act_of_running_is_the_block(line):
    _refused(_ASKED + line + "\n")


@pytest.mark.parametrize("line", [
    "Then wait. Do not restart that service.", "Good. Never run that other script, though.",
    "Done. Never run that old deploy script.", "Easy. Never run those old commands.",
    "OK. Never run that database by hand.", "Done. Do not rerun that other job."])
def test_another_thing_after_the_pointer_after_an_act_of_running_is_accepted(line):
    assert_accepted(_summarize(_ASKED + line + "\n"))
