"""The requirement rule reads a text in time linear in its length with a small constant (red team
118, F16: ``"x " + "a=>1 " * 4000`` as a summary of itself took 105 ms, 4 ms before the rule
read requirements without extras). Counted, not timed: the requirement pattern is tried at a
word start at most once a text, and a text is read once a check however many blocks and
sources hold it."""

from __future__ import annotations

import re

import pytest
from gate_helpers import blk, store_with, summary

import provgate.gate as gate_module
from provgate.gate import Gate

_WORD_START = re.compile(rb"(?<![A-Za-z0-9._\-\[@/\\])[A-Za-z]")


class _Counting:
    """``_REQUIREMENT`` with its ``match`` calls counted."""

    def __init__(self, real):
        self.real, self.calls = real, 0

    def match(self, *args):
        self.calls += 1
        return self.real.match(*args)

    def __getattr__(self, name):
        return getattr(self.real, name)


@pytest.mark.parametrize("unit, per_unit", [
    (b"a=>1 ", 1),                                   # the repro: one word, one comparison
    (b"pkg" + b"-a" * 70 + b" >=1, ", 1),           # a long name
    (b"a b c d e f g h 1>=1 ", 8),                  # eight words before each comparison, none a name
    (b"a b c d e f g h " + b"1>=1 " * 30, 8),       # thirty comparisons after the same eight words
])
def test_the_pattern_is_tried_at_most_once_a_word(monkeypatch, unit, per_unit):
    counting = _Counting(gate_module._REQUIREMENT)
    monkeypatch.setattr(gate_module, "_REQUIREMENT", counting)
    for n in (50, 400):
        counting.calls = 0
        text = b"x " + unit * n
        found = list(gate_module._requirement_matches(text))
        words = len(_WORD_START.findall(text))
        assert counting.calls <= words
        assert counting.calls <= per_unit * n + 1
        assert len(found) == (n if per_unit == 1 else 0)


def test_a_text_held_by_a_summary_and_its_source_is_read_once(monkeypatch):
    calls = []
    real = gate_module._requirements
    monkeypatch.setattr(gate_module, "_requirements", lambda text: calls.append(len(text)) or real(text))
    text = "x " + "a=>1 " * 200 + "\n"
    st = store_with({"tool:1": text})
    v = Gate(st).check([blk("t1", "tool", text, ["tool:1"])], [summary("s1", text, ["tool:1"])],
                       operator="summarize")
    assert v.accepted, v.violations
    assert calls == [len(text.encode())]


def test_a_requirement_written_again_is_keyed_once(monkeypatch):
    calls = []
    real = gate_module._requirement_key
    monkeypatch.setattr(gate_module, "_requirement_key", lambda m: calls.append(m.group(0)) or real(m))
    got = gate_module._requirements(b"x " + b"a=>1 " * 300 + b"b>=2 a=>1")
    assert got == {(b"a", b"", b">", b"1"): "a=>1", (b"b", b"", b">=", b"2"): "b>=2"}
    assert calls == [b"a=>1", b"b>=2"]


def test_markers_are_read_once_a_marker_and_within_their_line(monkeypatch):
    """Red team 120, F05/F08: a requirement's marker is read whole from its ``;``: its tokens once
    a ``;`` before a marker's word, at most 64 of them, and its requirement looked for within
    the line before it (a bounded window): linear in the text."""
    calls = []
    real = gate_module._marker_tokens
    monkeypatch.setattr(gate_module, "_marker_tokens", lambda text, at, limit: calls.append(limit) or real(text, at, limit))
    n = 2000
    text = b"\n".join(b"p%d==1.%d; sys_platform == 'linux' and python_version < '3.%d'" % (i, i, i % 9) for i in range(n))
    assert len(gate_module._marked_requirements(text)) == n
    assert calls == [64] * n
    calls.clear()
    # one line of many `;`s: each read once, each requirement's window ends at the `;` before it
    line = b"; ".join(b"p%d==1; os_name == 'nt'" % i for i in range(n))
    assert len(gate_module._marked_requirements(line)) == n
    assert len(calls) == n
