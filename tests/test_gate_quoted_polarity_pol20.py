"""Quoted polarity at fenced blocks (docs/gate.md, I1 — "quoted polarity"): red team 129's
findings on the fence reader, F03 F15 F11 F12 F13 F09 F01 F07. Each lie is refused and its honest
control accepted; the suite runs once each way (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, blk, find, store_with, summary

from provgate import gate as gate_module
from provgate.gate import Gate

FENCE = "```\nmake deploy\n```\n"
RUN = "Run `make deploy` now."


def _summarize(source: str, text: str = RUN):
    store = store_with({"src:1": source})
    pre = [blk("b1", "user", source, ["src:1"])]
    return Gate(store).check(pre, [summary("s1", text, ["src:1"])], operator="summarize")


def _refused(source: str, text: str = RUN, value: str = "make deploy") -> None:
    find(_summarize(source, text), "I1", block="s1", value=value, evidence__change="negation_dropped")


# red team 129, F03: the line over a fence is read in its last 256 bytes (red team 128, F08), so a
# denying sentence longer than that was read from its middle, its "Never" cut off; the sentence
# the read starts inside of is read back to its start
_LONG = ("on any of the shared production or staging clusters that the platform team operates for the payments, "
         "search, billing, notifications and analytics groups, or on any laptop that holds credentials for them, "
         "whatever the ticket or the person asking says")
_EXPLAINED = ("It is a long explanation of what happens to the shared clusters of the company when someone runs it, "
              "which is nothing good and nothing that anyone wants to see happen on a Friday afternoon at all.")


@pytest.mark.parametrize("line", [
    "Never run this " + _LONG + ".", "Never run the following " + _LONG + ":", "Do not run this " + _LONG + "!",
    "It is fine. Never run this " + _LONG + ".", "Never run this " + _LONG + ". Here it is:",
    "Never run this " + " ".join([_LONG] * 3) + ".", "Never run this " + _LONG[:150] + ". " + _EXPLAINED,
    "Note " * 14000 + "never run this.", "x" * 70000 + " never run this " + _LONG + "."])
def test_a_denying_sentence_longer_than_the_read_denies_the_block(line):
    assert len(line) > 256
    _refused(line + "\n" + FENCE)


@pytest.mark.parametrize("line", [
    "Run this " + _LONG + ".", "Run the following " + _LONG + ":", "It is safe. Run this " + _LONG + ".",
    "Never deploy on Fridays. Run this " + _LONG + ".",
    "Never deploy on Fridays. " + "Some background text about the clusters that matters. " * 6 + "Run this:",
    "Never deploy on Fridays. " + "Some background text about the clusters that matters. " * 6 + "To build, run this.",
    "x" * 70000])
def test_a_long_line_that_asks_for_the_block_is_accepted(line):
    assert len(line) > 256
    assert_accepted(_summarize(line + "\n" + FENCE))


def test_a_cut_sentence_is_read_in_bounded_work(monkeypatch):
    read: list[int] = []
    real = gate_module._fence_instruction_negated

    def counting(sentence, pointer, depth, **options):
        read.append(len(sentence))
        return real(sentence, pointer, depth, **options)

    monkeypatch.setattr(gate_module, "_fence_instruction_negated", counting)
    _refused("Never run this " + " ".join([_LONG] * 40) + ".\n" + FENCE)
    _refused("Note. Never run this " + _LONG[:200] + ". " + _EXPLAINED + "\n" + FENCE)
    assert read and max(read) <= 256, max(read)
