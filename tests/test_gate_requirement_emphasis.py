"""Markdown's emphasis or a code span's backticks around a requirement's name alone, or its
specifier set alone (red team 131, F08; docs/gate.md, "Requirements"): the pattern read no
requirement through the marks between the name and the comparison, so ``**requests**>=2.28`` ->
``**requests**<2.28``, ``requests **>=2.28**`` -> ``**<2.28**``, ``__django__<4.2`` -> ``>=4.2`` and
`` `requests`>=2.28 `` -> `` `requests`<2.28 `` were accepted (summary and rewrite), where the plain
form's flip is refused. The marks between a name and a comparison read as blanks, on the source
side and the block side alike; a bold name cell's two-cell row reads as the plain row (its summary
``requests>=2.28,<3.0`` was refused). Run natively and with PROVGATE_NO_EXTENSIONS=1 (the suite runs
once each way)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted
from test_gate_requirement_cost import _Counting
from test_gate_requirement_extras import rewrite, summarize

import provgate.gate as gate_module
from provgate.gate import _name_marks_blanked, _requirement_spans, _requirements

REQ = (b"requests", b"", b">=", b"2.28")


def changed(v) -> list:
    return [x for x in v.violations if (x.evidence or {}).get("change") == "requirement_changed"]


@pytest.mark.parametrize("source, lie, edits", [
    ("Requires **requests**>=2.28\n", "Requires **requests**<2.28\n", (summarize, rewrite)),
    ("Needs requests **>=2.28**\n", "Needs requests **<2.28**\n", (summarize, rewrite)),
    ("Use __django__<4.2 here\n", "Use __django__>=4.2 here\n", (summarize, rewrite)),
    ("Requires `requests`>=2.28\n", "Requires `requests`<2.28\n", (summarize, rewrite)),
    ("Requires *requests* >= 2.28\n", "Requires *requests* < 2.28\n", (summarize, rewrite)),
    ("Requires _requests_>=2.28\n", "Requires _requests_>2.28\n", (summarize, rewrite)),
    ("Requires **requests** **>=2.28,<3**\n", "Requires **requests** **>=2.28,<4**\n", (summarize, rewrite)),
    ("Requires `requests[socks]`>=2.28\n", "Requires `requests[socks]`<2.28\n", (summarize, rewrite)),
    # (marks between a comparison and its version, and around each clause of a set)
    ("Requires **requests**>=**2.28**\n", "Requires **requests**<**2.28**\n", (summarize, rewrite)),
    ("Requires **requests** >= **2.28**\n", "Requires **requests** < **2.28**\n", (summarize, rewrite)),
    ("Requires requests>=`2.28`\n", "Requires requests<`2.28`\n", (summarize, rewrite)),
    ("Requires **requests** **>=2.28**, **<3**\n", "Requires **requests** **>=2.28**, **>3**\n", (summarize, rewrite)),
    # (a lie with marks of a plain source, and a plain lie of a source with marks)
    ("Requires requests>=2.28\n", "Requires **requests**<2.28\n", (summarize,)),
    ("Requires **requests**>=2.28\n", "Requires requests<2.28\n", (summarize,)),
    # (a bold name cell's row: its set changed)
    ("| **requests** | >=2.28,<3.0 |\n", "requests>=2.28,>3.0\n", (summarize,)),
    ("| **requests** | >=2.28,<3.0 |\n", "| **requests** | >=2.28,>3.0 |\n", (summarize, rewrite)),
    ("requests>=2.28,<3.0\n", "| `requests` | **>=2.28,>3.0** |\n", (summarize,)),
])
def test_a_requirement_with_marks_inside_changed_is_refused(source, lie, edits):
    for edit in edits:
        v = edit(source, lie)
        assert not v.accepted, edit.__name__
        assert changed(v), edit.__name__   # (refused as a requirement changed, not by another rule)


@pytest.mark.parametrize("source, text, edits", [
    # (the plain flip, the control: refused, by the kv rule or this one)
    ("Requires requests>=2.28\n", "Requires requests>=2.28, as **requests**>=2.28\n", (summarize,)),
    # (emphasis added or removed around a name or a set, which is kept)
    ("Requires requests>=2.28\n", "Requires **requests**>=2.28\n", (summarize, rewrite)),
    ("Requires requests>=2.28\n", "Requires requests **>=2.28**\n", (summarize, rewrite)),
    ("Requires **requests**>=2.28\n", "Requires requests>=2.28\n", (summarize, rewrite)),
    ("Requires `requests`>=2.28\n", "Requires `requests` >= 2.28\n", (summarize, rewrite)),
    ("Requires requests>=2.28\n", "Requires requests>=**2.28**\n", (summarize, rewrite)),
    ("Requires requests>=2.28\n", "Requires requests >= `2.28`\n", (summarize, rewrite)),
    ("Requires **requests** **>=2.28**, **<3**\n", "Requires requests>=2.28,<3\n", (summarize, rewrite)),
    ("Requires **requests** **>=2.28**, **<3**\n", "Requires **requests** **>=2.28**\n", (summarize,)),  # fewer
    ("**Python**, **>=3.8**\n", "**Python**, **>=3.8**!\n", (summarize, rewrite)),
    ("Use __django__<4.2 here\n", "Use __django__ < 4.2 here\n", (summarize, rewrite)),
    ("Use django<4.2 here\n", "Use *django*<4.2 here\n", (summarize, rewrite)),
    ("| requests | >=2.28,<3.0 |\n", "| **requests** | >=2.28,<3.0 |\n", (summarize, rewrite)),
    ("| **requests** | >=2.28,<3.0 |\n", "requests>=2.28,<3.0\n", (summarize,)),   # the finding's false refusal
    ("| **requests** | >=2.28,<3.0 |\n", "| requests | **>=2.28,<3.0** |\n", (summarize, rewrite)),
    # (prose and code that hold marks and a requirement, or a comparison)
    ("**Note**: requests>=2.28 is needed\n", "Note: requests>=2.28 is needed.\n", (summarize,)),
    ("**Note**: requests>=2.28 is needed\n", "**Note**: requests>=2.28 is needed!\n", (summarize, rewrite)),
    ("assert x**2>=4\n", "assert x**2 >= 4\n", (summarize, rewrite)),
    ("if __init__>= and __init__>=3: pass\n", "if __init__>= and __init__>=3: pass  # ok\n", (summarize, rewrite)),
])
def test_a_requirement_with_marks_inside_kept_is_accepted(source, text, edits):
    for edit in edits:
        assert_accepted(edit(source, text))


def test_the_marks_read_as_blanks():
    for text in (b"**requests**>=2.28", b"requests **>=2.28**", b"`requests`>=2.28", b"_requests_ >= 2.28",
                 b"**requests** **>=2.28**", b"| **requests** | >=2.28 |", b"| `requests` | `>=2.28` |"):
        assert set(_requirements(text)) == {REQ}, text
        assert len(_name_marks_blanked(text)) == len(text)   # (offsets kept)
    assert set(_requirements(b"__django__<4.2")) == {(b"django", b"", b"<", b"4.2")}
    assert set(_requirements(b"requests>=**2.28**")) == {REQ}
    assert set(_requirements(b"**requests** **>=2.28**, **<3**")) == {REQ[:2] + (b"<", b"3") + REQ[2:]}
    assert set(_requirements(b"**Python**, **>=3.8**")) == set()   # (a "," after a name: no requirement)
    # (the span from the name to the last clause, of the text as written)
    assert _requirement_spans(b"x **requests**>=2.28") == [(4, 20, REQ)]
    # (marks after no name, or before no comparison and digit: as written)
    for text in (b"**Note**: requests>=2.28", b"x**2>=4", b"__init__>=", b"* >=2.28", b"** >=2.28", b"a**>=x"):
        assert _name_marks_blanked(text) == text, text
    assert set(_requirements(b"**Note**: requests>=2.28")) == {REQ}
    assert set(_requirements(b"x**2>=4")) == set()


@pytest.mark.parametrize("make", [
    lambda n: b" ".join(b"**a%d**>=1" % i for i in range(n)),                  # one line
    lambda n: b"".join(b"| **a%d** | >=1 |\n" % i for i in range(n)),           # n bold name rows
    lambda n: b"_" * n + b">=1 " + b"*" * n + b">=2",                          # long runs of marks
])
def test_the_marks_read_stay_linear(monkeypatch, make):
    counting = _Counting(gate_module._REQUIREMENT)
    monkeypatch.setattr(gate_module, "_REQUIREMENT", counting)
    for n in (50, 400):
        counting.calls = 0
        _requirements(make(n))
        assert counting.calls <= 3 * n + 1
