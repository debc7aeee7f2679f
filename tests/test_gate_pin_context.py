"""I1: a summary's pin keeps the version its source pins the name to in that context (red team
115, F02; docs/gate.md, "A pin beside another version's words"). A pin's key is its name, so a
source pinning one name to two versions grounded either version anywhere in a summary. Run
natively and with PROVGATE_NO_EXTENSIONS=1 (the suite runs once each way)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find, of, store_with, summary, tool

from provgate.facts import extract
from provgate.gate import Gate

H = "tool:deps"
SRC = "Use lodash@4.17.21 in prod and lodash@4.17.20 in dev.\n"


def summarize(text: str, source: str = SRC):
    return Gate(store_with({H: source})).check([tool("t", H, source)], [summary("s", text, [H])],
                                               operator="summarize")


@pytest.mark.parametrize("text", [
    "Use lodash@4.17.20 in prod and lodash@4.17.20 in dev.\n",   # red team 115 F02, prod_dev
    "Use lodash@4.17.20 in prod and lodash@4.17.21 in dev.\n",   # prod_dev_swap
    "In short: lodash@4.17.20 in prod.\n",
    "Deps: lodash@4.17.21 in dev.\n",
])
def test_a_pin_beside_another_versions_words_is_refused(text):
    v = summarize(text)
    assert not v.accepted
    bad = find(v, "I1", block="s", key="lodash", evidence__change="pinned_elsewhere")
    assert bad.evidence["word"] in ("prod", "dev")


@pytest.mark.parametrize("text", [
    "Use lodash@4.17.21 in prod and lodash@4.17.20 in dev.\n",
    "Dev runs lodash@4.17.20 and prod runs lodash@4.17.21.\n",
    "lodash@4.17.20 in dev, lodash@4.17.21 in prod.\n",
    "Use lodash@4.17.20 in dev.\n",
    # (no words beside the pins; "Two versions:" is a count since grammar v18, held to the source
    # as "two versions" always was: test_gate_number_words.py)
    "Versions: lodash@4.17.21 and lodash@4.17.20.\n",
    "lodash@4.17.21 (prod), lodash@4.17.20 (dev).\n",
])
def test_a_pin_beside_its_own_versions_words_or_none_is_accepted(text):
    assert_accepted(summarize(text), "lossy")


def test_label_and_pip_forms():
    src = "Staging has requests==2.31.0; canary has requests==2.32.0\n"
    find(summarize("The canary has requests==2.31.0\n", src), "I1", key="requests",
         evidence__change="pinned_elsewhere", evidence__word="canary")
    assert_accepted(summarize("The canary has requests==2.32.0\n", src), "lossy")
    assert_accepted(summarize("Staging pins requests==2.31.0.\n", src), "lossy")
    # (a YAML line's label is a kv key already: "dev: requests==2.31.0" sets dev, grounded or not)


def test_a_name_pinned_once_is_not_asked():
    # one version in the source: nothing to trade, whatever words stand beside it
    src = "Use lodash@4.17.21 in prod.\n"
    assert_accepted(summarize("lodash@4.17.21 in dev.\n", src), "lossy")
    assert not of(summarize("lodash@4.17.21 in dev.\n", src), "I1")


def test_a_rewrite_is_left_to_the_lossless_rules():
    # (the rewrite was already refused, by I2: the pair dropped)
    g = Gate(store_with({H: SRC}))
    v = g.check([tool("t", H, SRC)], [tool("t", H, "Use lodash@4.17.20 in prod and lodash@4.17.21 in dev.\n")],
                operator="rewrite")
    assert not v.accepted
    assert not [x for x in of(v, "I1") if (x.evidence or {}).get("change") == "pinned_elsewhere"]


def test_context_words():
    from provgate.gate import _pin_context

    def ctx(text: str) -> list[set[str]]:
        t = extract(text.encode())
        return [{w.decode() for w in _pin_context(t, r)} for r in range(len(t.kind)) if int(t.kind[r]) == 6]

    assert ctx(SRC) == [{"prod"}, {"dev"}]
    assert ctx("prod: lodash@4.17.21; dev: lodash@4.17.20\n") == [{"prod"}, {"dev"}]
    assert ctx("Staging uses lodash@4.17.21, it is fine.\n") == [{"staging"}]
    assert ctx("lodash@4.17.21 and lodash@4.17.20\n") == [set(), set()]


def test_reading_is_bounded_and_linear(monkeypatch):
    # a name pinned more than _PIN_CONTEXT_ROWS times in a source is not read for contexts; below
    # that each occurrence is read once (counted, not timed)
    import provgate.gate as gate_module

    calls: list[int] = []
    real = gate_module._pin_context

    def counting(table, r):
        calls.append(r)
        return real(table, r)

    monkeypatch.setattr(gate_module, "_pin_context", counting)
    n = gate_module._PIN_CONTEXT_ROWS
    src = "".join(f"host{i} pins lodash@4.17.{i}\n" for i in range(n + 1))
    assert_accepted(summarize("host1 pins lodash@4.17.2\n" * 3, src), "lossy")
    assert calls == []
    src = "".join(f"host{i} pins lodash@4.17.{i}\n" for i in range(n))
    v = summarize("host1 pins lodash@4.17.2\nhost1 pins lodash@4.17.2\n", src)
    find(v, "I1", key="lodash", evidence__change="pinned_elsewhere", evidence__word="host1")
    assert len(calls) == n + 2  # each source occurrence once, then each of the two summary pins


@pytest.mark.parametrize("sign", ["==", "~=", ">=", "<=", "!=", ">", "<"])
def test_a_pin_of_every_comparison_is_asked(sign):
    # the rule reads only a block that may hold a pin (_may_hold_pin, its bytes asked first):
    # a comparison of two-part versions was never asked but for == (red team 127, F07)
    source = f"requests{sign}2.31 in prod and requests{sign}2.30 in dev"
    find(summarize(f"requests{sign}2.30 in prod", source), "I1", block="s")
    assert_accepted(summarize(f"requests{sign}2.31 in prod", source))
