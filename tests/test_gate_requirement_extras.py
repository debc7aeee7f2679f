"""A pip requirement with extras keeps its name, extras, comparison and version (red team 115,
F08; docs/gate.md, "Requirements with extras"). The grammar reads no fact of that form but its
version, so the extras and the comparison could be changed. Run natively and with
PROVGATE_NO_EXTENSIONS=1 (the suite runs once each way)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, blk, find, of, store_with, summary

from provgate.gate import Gate, _requirements

PRE = "Install requests[socks]==2.31.0 now.\n"


def rewrite(before: str, after: str):
    st = store_with({"tool:1": before})
    return Gate(st).check([blk("b1", "tool", before, ["tool:1"])], [blk("b1", "tool", after, ["tool:1"])],
                          operator="rewrite")


def summarize(before: str, after: str):
    st = store_with({"tool:1": before})
    return Gate(st).check([blk("b1", "tool", before, ["tool:1"])], [summary("s1", after, ["tool:1"])],
                          operator="summarize")


@pytest.mark.parametrize("after", [
    "Install requests[security]==2.31.0 now.\n",   # red team 115 F08, extras_change
    "Install requests[socks]>=2.31.0 now.\n",      # the comparison changed
    "Install requests[socks,security]==2.31.0 now.\n",
    "Install requests[socks]!=2.31.0 now.\n",
])
def test_a_requirement_with_extras_changed_is_refused(after):
    v = rewrite(PRE, after)
    assert not v.accepted
    find(v, "I2", block="b1", key="requests", evidence__change="requirement_changed")
    v = summarize(PRE, after)
    assert not v.accepted
    find(v, "I1", block="s1", key="requests", evidence__change="requirement_changed")


@pytest.mark.parametrize("after", [
    PRE,
    "Install Requests[SOCKS]==2.31.0 now.\n",       # pip reads names and extras by PEP 503
    "Install requests[socks] == 2.31.0 now.\n",
    "Done: requests[socks]==2.31.0 installed.\n",
])
def test_a_requirement_read_as_pip_reads_it_is_accepted(after):
    assert not [x for x in of(summarize(PRE, after), "I1") if (x.evidence or {}).get("change") == "requirement_changed"]
    assert not [x for x in of(rewrite(PRE, after), "I2") if (x.evidence or {}).get("change") == "requirement_changed"]


def test_the_honest_rewrites_pass():
    assert_accepted(rewrite(PRE, "Install requests[socks]==2.31.0  now.\n"))
    assert_accepted(summarize(PRE, "Installed requests[socks]==2.31.0.\n"), "lossy")
    two = "Install requests[socks]==2.31.0 and flask[async]==3.0.0.\n"
    assert_accepted(summarize(two, "flask[async]==3.0.0 and requests[socks]==2.31.0 were installed.\n"), "lossy")


def test_requirements_are_read_as_pip_reads_them():
    assert _requirements(b"pip install Flask_SQLAlchemy[Async, pg]>=3.1 ok") == {
        (b"flask-sqlalchemy", b"async,pg", b">=", b"3.1"): "Flask_SQLAlchemy[Async, pg]>=3.1"}
    assert _requirements(b"see [src:a]==x") == {}  # (no name before the bracket)
    # (the list is no extras; since red team 117 F14 a requirement without extras is read too)
    assert _requirements(b"a list [1, 2] and x==1") == {(b"x", b"", b"==", b"1"): "x==1"}
    assert _requirements(b"the list [1, 2] >= 3") == {}
    assert _requirements(b"requests[socks]") == {}
