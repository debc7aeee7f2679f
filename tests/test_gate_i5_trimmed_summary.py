"""I5 on a running summary cut to its newest lines (red team 138, F14; docs/gate.md, I5 "a summary
cut to some of its lines"). A one-block running summary, one line per tool step ending in its
``[src:tool:cN]`` marker, cut to its last K lines byte for byte, the dropped steps' handles
evicted: I5 owed the cut summary its average markers per fact, so a cut whose kept lines were
denser in facts than the dropped ones was refused (retention 0.935 for 30 -> 10 lines) though it
lost no marker of anything it kept. The lines kept now owe exactly the markers they hold; a kept
line that lost its marker is no line kept, and the cut is weighed as before."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find

from provgate.gate import Gate
from provgate.store import SourceStore


def _step(i: int) -> tuple[str, str]:
    """(a tool output, the running summary's line for it), in six kinds of coding step."""
    kind = i % 6
    marker = f"[src:tool:c{i}]"
    if kind == 0:
        output = (f"$ pytest -q tests/test_mod{i}.py\nFAILED tests/test_mod{i}.py::test_case{i} - "
                  f"assert {i} == {i + 1}\n1 failed, {i % 5 + 3} passed in 0.{10 + i}s\n")
        line = (f"test_case{i} in tests/test_mod{i}.py failed (assert {i} == {i + 1}); 1 failed, "
                f"{i % 5 + 3} passed {marker}.")
    elif kind == 1:
        output = (f"$ apply_patch src/app/mod{i - 1}.py\n@@ -{i},1 +{i},1 @@\n-    return x + {i}\n"
                  f"+    return x + {i + 1}\nPatch applied.\n")
        line = f"Patched src/app/mod{i - 1}.py: x + {i} -> x + {i + 1} {marker}."
    elif kind == 2:
        output = f"$ pytest -q tests/test_mod{i - 2}.py\n{(i - 2) % 5 + 4} passed in 0.{20 + i}s\n"
        line = f"tests/test_mod{i - 2}.py: {(i - 2) % 5 + 4} passed {marker}."
    elif kind == 3:
        output = (f"$ git commit -am 'Fix mod{i - 3}'\n[fix-{i} {i:07x}a] Fix mod{i - 3}\n"
                  " 1 file changed, 1 insertion(+), 1 deletion(-)\n")
        line = f"Committed {i:07x}a (Fix mod{i - 3}) on fix-{i} {marker}."
    elif kind == 4:
        output = f"$ cat config/app.yaml\nretries: {i % 4 + 2}\ntimeout: {30 + i}\n"
        line = f"config/app.yaml: retries: {i % 4 + 2}, timeout: {30 + i} {marker}."
    else:
        output = (f"$ flake8 src\nsrc/app/mod{i}.py:{i + 10}:80: E501 line too long ({80 + i} > 79 characters)\n"
                  "[exit code: 1]\n")
        line = f"flake8: E501 at src/app/mod{i}.py:{i + 10} ({80 + i} > 79) {marker}."
    return output, line


def _running_summary(steps: int) -> tuple[Gate, list[str], list[str]]:
    store = SourceStore(":memory:")
    lines, handles = [], []
    for i in range(1, steps + 1):
        output, line = _step(i)
        store.put(f"tool:c{i}", output)
        lines.append(line)
        handles.append(f"tool:c{i}")
    return Gate(store), lines, handles


def _cut(gate: Gate, lines: list[str], handles: list[str], kept: list[str], keep: int, *, evict: bool = True,
         derived_from: list[str] | None = None):
    pre = [{"id": "sum", "role": "summary", "text": "\n".join(lines), "derived": True, "derived_from": handles}]
    post = [{"id": "sum2", "role": "summary", "text": "\n".join(kept), "derived": True,
             "derived_from": handles[-keep:] if derived_from is None else derived_from}]
    return gate.check(pre, post, operator="summarize", evicted=handles[:-keep] if evict else [])


@pytest.mark.parametrize(("steps", "keep"), [(30, 10), (12, 6), (8, 4), (30, 1), (7, 6)])
def test_a_running_summary_cut_to_its_newest_lines_keeps_its_retention(steps, keep):
    gate, lines, handles = _running_summary(steps)
    verdict = _cut(gate, lines, handles, lines[-keep:], keep)
    assert_accepted(verdict)
    assert verdict.retention == 1.0


@pytest.mark.parametrize(("steps", "keep"), [(30, 10), (8, 4)])
def test_a_cut_that_strips_a_kept_lines_marker_is_refused(steps, keep):
    gate, lines, handles = _running_summary(steps)
    kept = lines[-keep:]
    kept[0] = kept[0].replace(f" [src:{handles[-keep]}]", "")
    find(_cut(gate, lines, handles, kept, keep), "I5")


def test_a_cut_that_keeps_lines_out_of_order_is_weighed_as_before():
    # (not the lines as written: the density rule weighs it, and it loses no marker either)
    gate, lines, handles = _running_summary(8)
    kept = lines[-4:][::-1]
    verdict = _cut(gate, lines, handles, kept, 4)
    assert verdict.retention is not None and verdict.retention < 1.0


def test_a_cut_that_drops_cited_lines_off_the_record_is_weighed_as_before():
    # (red team 140, F07: the dropped steps' sources neither evicted nor left: the cut is no
    # trim on the record, and the density rule weighs it, as it did before the trim rule)
    gate, lines, handles = _running_summary(30)
    find(_cut(gate, lines, handles, lines[-10:], 10, evict=False, derived_from=handles), "I5")
