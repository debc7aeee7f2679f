"""I2 on a lossless operator: a fact inside a quoted kv value restates no pre fact
(docs/gate.md, I2 — "a quoted kv value"). The pair says the value, so a formatter's quotes add
nothing; nor may the copy of the value inside new quotes stand in for a copy a sentence lost
(red team 107, F02). The suite runs once each way (PROVGATE_NO_EXTENSIONS=1: the reference)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, blk, find, store_with

from provgate.gate import Gate


def _tool(id_, text, handle):
    return blk(id_, "tool", text, [handle])


def _rewrite(before: str, after: str):
    return Gate(store_with({"tool:c1": before})).check(
        [_tool("t", before, "tool:c1")], [_tool("t", after, "tool:c1")], operator="rewrite")


@pytest.mark.parametrize("before, after, value", [
    # the value quoted and the sentence's copy cut in the same rewrite (accepted before)
    ("region: eu-west-1\nFailed over to eu-west-1 at 02:00.\n",
     'region: "eu-west-1"\nFailed over at 02:00.\n', "eu-west-1"),
    ("retries: 3\nGave up after 3 attempts.\n", 'retries: "3"\nGave up after attempts.\n', "3"),
    # the value quoted already: its copy held the sentence's (accepted before)
    ('region: "eu-west-1"\nFailed over to eu-west-1.\n', 'region: "eu-west-1"\nFailed over.\n', "eu-west-1"),
    # the quotes taken off with a sentence's copy cut, one of two or the only one
    ('region: "eu-west-1"\nFailed over to eu-west-1. Back to eu-west-1.\n',
     "region: eu-west-1\nFailed over to eu-west-1. Back.\n", "eu-west-1"),
    ('region: "eu-west-1"\nFailed over to eu-west-1.\n', "region: eu-west-1\nFailed over.\n", "eu-west-1"),
])
def test_a_quoted_value_holds_no_copy_a_sentence_lost(before, after, value):
    find(_rewrite(before, after), "I2", value=value)


def test_a_quoted_value_in_one_block_holds_no_copy_another_lost():
    sources = {"tool:c1": "region: eu-west-1\n", "tool:c2": "Failed over to eu-west-1."}
    pre = [_tool("a", sources["tool:c1"], "tool:c1"), _tool("b", sources["tool:c2"], "tool:c2")]
    post = [_tool("a", 'region: "eu-west-1"\n', "tool:c1"), _tool("b", "Failed over.", "tool:c2")]
    find(Gate(store_with(sources)).check(pre, post, operator="rewrite"), "I2", block="b", value="eu-west-1")


@pytest.mark.parametrize("before, after", [
    # the quotes alone, the sentence kept (and the controls of the refusals above)
    ("region: eu-west-1\nFailed over to eu-west-1 at 02:00.\n",
     'region: "eu-west-1"\nFailed over to eu-west-1 at 02:00.\n'),
    ("retries: 3\nGave up after 3 attempts.\n", 'retries: "3"\nGave up after 3 attempts.\n'),
    ('region: "eu-west-1"\nFailed over to eu-west-1.\n', 'region: "eu-west-1"\nFailed  over to eu-west-1.\n'),
    # the lines reordered as the value is quoted
    ("region: eu-west-1\nFailed over to eu-west-1.\n", 'Failed over to eu-west-1.\nregion: "eu-west-1"\n'),
    # quotes taken off
    ('region: "eu-west-1"\nretries: 3\n', "region: eu-west-1\nretries: 3\n"),
    # and off a value a sentence of the block repeats: the copy inside the quotes counted as an
    # occurrence the block lost (refused before, as fewer occurrences)
    ('region: "eu-west-1"\nFailed over to eu-west-1.\n', "region: eu-west-1\nFailed over to eu-west-1.\n"),
])
def test_quoting_a_value_beside_its_sentence_is_still_lossless(before, after):
    assert_accepted(_rewrite(before, after))


def test_rows_outside_quoted_values_are_read_once_per_block(monkeypatch):
    """The mask reads each changed block's quoted kv values once: n blocks, n reads."""
    from provgate import gate as gate_module

    calls = []
    real = gate_module._quoted_kv_values

    def counting(table):
        calls.append(1)
        return real(table)

    monkeypatch.setattr(gate_module, "_quoted_kv_values", counting)
    for n in (20, 80):
        texts = {f"tool:c{i}": f"region{i}: eu-west-{i}\nFailed over to eu-west-{i}.\n" for i in range(n)}
        pre = [_tool(f"t{i}", texts[f"tool:c{i}"], f"tool:c{i}") for i in range(n)]
        post = [_tool(f"t{i}", f'region{i}: "eu-west-{i}"\nFailed over to eu-west-{i}.\n', f"tool:c{i}")
                for i in range(n)]
        calls.clear()
        assert_accepted(Gate(store_with(texts)).check(pre, post, operator="rewrite"))
        assert len(calls) <= 2 * n + 2
