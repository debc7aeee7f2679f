"""The pin-in-context rule reads a pin a source writes as a kv line's value (red team 118, F19;
docs/gate.md, "A pin beside another version's words"): the grammar reads ``prod:
lodash@4.17.20`` as prod's value, not as a pin of lodash, so a summary swapping the pins of two
such lines, stating both, was accepted. Run natively and with PROVGATE_NO_EXTENSIONS=1 (the suite
runs once each way)."""

from __future__ import annotations

import numpy as np
import pytest
from gate_helpers import find, store_with, summary, tool

import provgate.gate as gate_module
from provgate.facts import extract
from provgate.gate import Gate

H = "tool:deps"
LINES = "prod: lodash@4.17.20\ndev: lodash@4.17.21\n"
PIP = "prod: requests==2.31.0\nstaging: requests==2.28.2\n"


def summarize(text: str, source: str = LINES):
    return Gate(store_with({H: source})).check([tool("t", H, source)], [summary("s", text, [H])],
                                               operator="summarize")


@pytest.mark.parametrize("source, text", [
    (LINES, "Prod runs lodash@4.17.21; dev runs lodash@4.17.20.\n"),
    (LINES, "| env | pin |\n| prod | lodash@4.17.21 |\n| dev | lodash@4.17.20 |\n"),
    (LINES, "Prod runs lodash@4.17.21.\n"),                       # one pin moved
    (PIP, "Prod pins requests==2.28.2; staging pins requests==2.31.0.\n"),
])
def test_a_pin_swapped_between_labelled_lines_is_refused(source, text):
    v = summarize(text, source)
    assert not v.accepted
    bad = find(v, "I1", block="s", evidence__change="pinned_elsewhere")
    assert bad.evidence["word"] in ("prod", "dev", "staging")


@pytest.mark.parametrize("source, text", [
    (LINES, "Prod runs lodash@4.17.20; dev runs lodash@4.17.21.\n"),
    (LINES, "| env | pin |\n| prod | lodash@4.17.20 |\n| dev | lodash@4.17.21 |\n"),
    (LINES, "prod: lodash@4.17.20, dev: lodash@4.17.21.\n"),
    (LINES, "Dev is ahead of prod: lodash@4.17.21 in dev.\n"),
    (PIP, "Prod pins requests==2.31.0; staging pins requests==2.28.2.\n"),
    ("lodash@4.17.20\n", "Uses lodash@4.17.20.\n"),            # (one version: nothing to trade)
])
def test_the_labelled_pins_kept_are_accepted(source, text):
    v = summarize(text, source)
    assert not [x for x in v.violations if (x.evidence or {}).get("change") == "pinned_elsewhere"], v.violations


def test_pins_in_values_reads_the_label_and_skips_the_tables_own_pins():
    table = extract(LINES.encode() + b"lodash@4.17.19 in qa\n")
    post = extract(b"lodash@4.17.21")
    pin = next(r for r in range(len(post)) if post.kind[r] == gate_module._KIND_KV)
    keys = {tuple(post.fp_key[pin].tolist())}
    found = np.array([r for r in range(len(table)) if table.kind[r] == gate_module._KIND_KV
                      and tuple(table.fp_key[r].tolist()) in keys], dtype=np.int64)
    assert found.size == 1
    got = gate_module._pins_in_values(table, found, {b"lodash"}, keys)
    assert [words for _, _, words in got] == [{b"prod"}, {b"dev"}]    # (the qa pin is a row of its own)
    assert len({fact for _, fact, _ in got}) == 2
    assert gate_module._pins_in_values(table, found, {b"react"}, keys) == []


# red team 120, F20: a YAML mapping's entry under an indented parent label is labelled by the parent --

NESTED = "prod:\n  lodash: 4.17.20\ndev:\n  lodash: 4.17.21\n"
DEEP = "envs:\n  prod:\n    deps:\n      lodash: 4.17.20\n  dev:\n    deps:\n      lodash: 4.17.21\n"


@pytest.mark.parametrize("source, text", [
    (NESTED, "Prod runs lodash@4.17.21; dev runs lodash@4.17.20.\n"),
    (NESTED, "Prod runs lodash==4.17.21.\n"),                       # one pin moved, pip's form
    ("prod:\n  # pinned\n  lodash: 4.17.20\n\ndev:\n  lodash: 4.17.21  # newer\n",
     "Prod runs lodash@4.17.21; dev runs lodash@4.17.20.\n"),     # (comments and a blank line between)
    (DEEP, "Prod runs lodash@4.17.21; dev runs lodash@4.17.20.\n"),   # (the parent's parent)
])
def test_a_pin_swapped_between_nested_yaml_labels_is_refused(source, text):
    v = summarize(text, source)
    assert not v.accepted
    bad = find(v, "I1", block="s", evidence__change="pinned_elsewhere")
    assert bad.evidence["word"] in ("prod", "dev")


@pytest.mark.parametrize("source, text", [
    (NESTED, "Prod runs lodash@4.17.20; dev runs lodash@4.17.21.\n"),
    (NESTED, "Dev runs lodash@4.17.21; prod runs lodash@4.17.20.\n"),    # the environments reordered
    ("dev:\n  lodash: 4.17.21\nprod:\n  lodash: 4.17.20\n", "Prod runs lodash@4.17.20; dev runs lodash@4.17.21.\n"),
    (DEEP, "Dev runs lodash@4.17.21; prod runs lodash@4.17.20.\n"),
    (NESTED, "Prod runs lodash@4.17.20.\n"),
])
def test_the_nested_yaml_pins_kept_are_accepted(source, text):
    v = summarize(text, source)
    assert v.accepted, v.violations


def test_yaml_parents_reads_the_labels_above_an_entry():
    from provgate.gate import _yaml_parents
    data = DEEP.encode()
    line = data.index(b"      lodash: 4.17.21")
    assert _yaml_parents(data, line, 6) == [b"deps", b"dev", b"envs"]
    data = b"prod:\n  lodash: 4.17.20\n"
    assert _yaml_parents(data, data.index(b"  lodash"), 2) == [b"prod"]
    # a line of less indent that is no label ends the look; an entry not indented has no parent
    data = b"prod:\nx = 1\n  lodash: 4.17.20\n"
    assert _yaml_parents(data, data.index(b"  lodash"), 2) == []
    assert _yaml_parents(b"prod:\nlodash: 4.17.20\n", 6, 0) == []


@pytest.mark.parametrize("source", [NESTED, LINES])
def test_a_pin_written_in_prose_swapped_is_refused(source):
    # red team 120, F20's lie: "lodash 4.17.21", a name, a blank and a version, is read as the pin
    v = summarize("Prod runs lodash 4.17.21; dev runs lodash 4.17.20.\n", source)
    assert not v.accepted
    bad = find(v, "I1", block="s", evidence__change="pinned_elsewhere")
    assert bad.evidence["word"] in ("prod", "dev") and bad.evidence["text"] in ("lodash 4.17.21", "lodash 4.17.20")
    assert not summarize("Prod: lodash 4.17.21.\n", source).accepted


@pytest.mark.parametrize("source", [NESTED, LINES])
@pytest.mark.parametrize("text", [
    "Prod runs lodash 4.17.20; dev runs lodash 4.17.21.\n",
    "Dev runs lodash 4.17.21, prod lodash 4.17.20.\n",
    "Prod runs lodash 4.17.20.\n",
])
def test_a_pin_written_in_prose_kept_is_accepted(source, text):
    v = summarize(text, source)
    assert v.accepted, v.violations


def test_prose_pins_are_glued_at_the_same_offsets():
    from provgate.gate import _prose_pins_glued
    assert _prose_pins_glued(b"Prod runs lodash 4.17.21; dev lodash v4.17.20.") == \
        b"Prod runs lodash@4.17.21; dev lodash@v4.17.20."
    # two parts are no pin read in prose; nor a figure after a figure
    assert _prose_pins_glued(b"Python 3.11 and section 3.2, 1 2.3.4") == b"Python 3.11 and section 3.2, 1 2.3.4"
