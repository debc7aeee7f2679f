"""The pin-in-context rule (red team 115 F02) reads a markdown table's row, a parenthesis, and
a sentence that lists its pins after as many words (red team 117, F11 and F19; docs/gate.md, "A
pin beside another version's words"). Run natively and with PROVGATE_NO_EXTENSIONS=1 (the suite
runs once each way)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find, store_with, summary, tool

import provgate.gate as gate_module
from provgate.gate import Gate

H = "tool:deps"
SRC = "We run lodash@4.17.21 in prod and lodash@4.17.20 in dev.\n"
TABLE = "| env | pin |\n|---|---|\n| prod | lodash@4.17.21 |\n| dev | lodash@4.17.20 |\n"


def summarize(text: str, source: str = SRC):
    return Gate(store_with({H: source})).check([tool("t", H, source)], [summary("s", text, [H])],
                                               operator="summarize")


@pytest.mark.parametrize("source, text", [
    (SRC, "| env | pin |\n|---|---|\n| prod | lodash@4.17.20 |\n| dev | lodash@4.17.21 |\n"),  # F11 table
    (SRC, "prod (lodash@4.17.20) and dev (lodash@4.17.21).\n"),                                 # F11 parentheses
    (TABLE, "lodash@4.17.20 in prod.\n"),                                                        # F11 table source
    (TABLE, "Prod runs lodash@4.17.20, dev runs lodash@4.17.21.\n"),
    (SRC, "| lodash@4.17.20 prod | lodash@4.17.21 dev |\n"),         # one row naming both: its cells
    (SRC, "Prod and dev run lodash@4.17.20 and lodash@4.17.21 respectively.\n"),   # F19's forms, swapped
    (SRC, "Dev lags prod: lodash@4.17.21 vs lodash@4.17.20.\n"),
    (SRC, "Prod and dev: lodash@4.17.20 in prod and lodash@4.17.21 in dev.\n"),    # words after: the window
])
def test_a_swapped_pin_in_a_table_parenthesis_or_list_is_refused(source, text):
    v = summarize(text, source)
    assert not v.accepted
    bad = find(v, "I1", block="s", key="lodash", evidence__change="pinned_elsewhere")
    assert bad.evidence["word"] in ("prod", "dev")


@pytest.mark.parametrize("source, text", [
    (SRC, "| env | pin |\n|---|---|\n| prod | lodash@4.17.21 |\n| dev | lodash@4.17.20 |\n"),
    (SRC, "prod (lodash@4.17.21) and dev (lodash@4.17.20).\n"),
    (SRC, "lodash@4.17.21 (prod), lodash@4.17.20 (dev).\n"),
    (TABLE, "lodash@4.17.21 in prod.\n"),
    (TABLE, "Prod runs lodash@4.17.21, dev runs lodash@4.17.20.\n"),
    (TABLE, "| env | pin |\n|---|---|\n| prod | lodash@4.17.21 |\n"),
    (SRC, "Prod and dev run lodash@4.17.21 and lodash@4.17.20 respectively.\n"),   # F19
    (SRC, "Dev lags prod: lodash@4.17.20 vs lodash@4.17.21.\n"),                   # F19
    (SRC, "Versions differ: dev has lodash@4.17.20 while prod has lodash@4.17.21.\n"),
    (SRC, "Dev should move from lodash@4.17.20 to lodash@4.17.21 like prod.\n"),
])
def test_an_honest_pin_in_a_table_parenthesis_or_list_is_accepted(source, text):
    assert_accepted(summarize(text, source), "lossy")


class _CountingWords:
    """``_PIN_CONTEXT_WORD`` counting its ``finditer`` reads."""

    def __init__(self, real):
        self.real = real
        self.calls: list[int] = []

    def finditer(self, data, *args):
        self.calls.append(len(data))
        return self.real.finditer(data, *args)

    def __getattr__(self, name):
        return getattr(self.real, name)


def test_pairing_reads_each_sentence_once(monkeypatch):
    """Linear: n sentences of two pins each are grouped by sentence once; the words of each read once."""
    counting = _CountingWords(gate_module._PIN_CONTEXT_WORD)
    monkeypatch.setattr(gate_module, "_PIN_CONTEXT_WORD", counting)
    for n in (5, 20):
        counting.calls.clear()
        text = "".join("Prod and dev run lodash@4.17.21 and lodash@4.17.20 respectively.\n" for _ in range(n))
        assert_accepted(summarize(text), "lossy")
        assert len(counting.calls) == n  # (one read of each sentence's words)
