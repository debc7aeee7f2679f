"""A pip requirement keeps its comparison however it is written (red team 117, F14 and F10;
docs/gate.md, "Requirements"): with blanks around the comparison, as a kv line's value, in
metadata form, in an environment marker, with its extras after a blank or markdown-escaped. The
grammar reads a requirement's comparison only glued to its name, so inverting these was accepted
as a rewrite and as a summary. Run natively and with PROVGATE_NO_EXTENSIONS=1 (the suite runs once
each way)."""

from __future__ import annotations

import re

import pytest
from gate_helpers import blk, find, store_with, summary
from test_gate_requirement_extras import rewrite, summarize

import provgate.gate as gate_module
from provgate.gate import Gate, _requirements


def changed(v) -> list:
    return [x for x in v.violations if (x.evidence or {}).get("change") == "requirement_changed"]


LIES = [  # (source, lie, the requirement's key)
    ("django >= 3.2\n", "django < 3.2\n", "django"),
    ("django == 4.2.7\n", "django != 4.2.7\n", "django"),
    ("requests >=2.31\n", "requests <2.31\n", "requests"),
    ("install_requires = django>=3.2\n", "install_requires = django<3.2\n", "django"),
    ("install_requires = django>=3.2,<4.2\n", "install_requires = django>=3.2,>4.2\n", "django"),
    ("python_requires = >=3.8\n", "python_requires = <3.8\n", "python-requires"),
    ("Requires-Dist: Django (>=3.2,<4.2)\n", "Requires-Dist: Django (>=3.2,>4.2)\n", "django"),
    ("backports.zoneinfo>=0.2; python_version<'3.9'\n", "backports.zoneinfo>=0.2; python_version>='3.9'\n",
     "python-version"),
    # F10: extras after a blank, or markdown-escaped
    ("requests[socks]==2.31.0\n", "requests [security]==2.31.0\n", "requests"),
    ("requests[socks]==2.31.0\n", "requests [socks]>=2.31.0\n", "requests"),
    ("requests[socks]==2.31.0\n", "requests [socks]!=2.31.0\n", "requests"),
    ("requests[socks]==2.31.0\n", "requests\\[security\\]==2.31.0\n", "requests"),
    ("requests[socks]==2.31.0\n", "requests\\[socks\\]>=2.31.0\n", "requests"),
    ("requests [socks]==2.31.0\n", "requests [socks]>=2.31.0\n", "requests"),
    # a quoted kv value (pyproject, YAML) summarized in prose
    ('requires-python = ">=3.8"\n', "requires-python < 3.8\n", "requires-python"),
    ('python: ">=3.8"\n', "python < 3.8\n", "python"),
    # a spaced summary of a glued source, and the reverse
    ("django>=3.2\n", "django < 3.2\n", "django"),
    ("django >= 3.2\n", "django<3.2\n", "django"),
    # red team 118, F13: comparisons in Unicode signs
    ("django \u2265 3.2\n", "django \u2264 3.2\n", "django"),
    ("django >= 3.2\n", "django \u2264 3.2\n", "django"),
    ("django \u2260 4.0\n", "django == 4.0\n", "django"),
    # red team 119, F12: "≧ ≦" and the full-width signs of a CJK input method
    ("django \u2267 3.2\n", "django \u2266 3.2\n", "django"),
    ("django \uff1e\uff1d 3.2\n", "django \uff1c\uff1d 3.2\n", "django"),
    ("django\uff1d\uff1d3.2\n", "django\uff01\uff1d3.2\n", "django"),
    # red team 118, F02: more extras than the words tried before the comparison
    ("apache-airflow[amazon,celery,cncf.kubernetes,docker,google,http,ldap,mysql,postgres,redis,slack,ssh]==2.7.1\n",
     "apache-airflow[amazon,celery,cncf.kubernetes,docker,google,http,ldap,sqlite,postgres,redis,slack,ssh]==2.7.1\n",
     "apache-airflow"),
]


@pytest.mark.parametrize("source, lie, key", LIES)
def test_a_requirement_inverted_in_any_form_is_refused(source, lie, key):
    v = summarize(source, lie)
    assert not v.accepted
    find(v, "I1", block="s1", key=key, evidence__change="requirement_changed")
    v = rewrite(source, lie)
    assert not v.accepted
    find(v, "I2", block="b1", key=key, evidence__change="requirement_changed")


HONEST_SUMMARIES = [
    ("django >= 3.2\n", "Django >= 3.2\n"),
    ("django >= 3.2\n", "The project requires django >= 3.2.\n"),
    ("install_requires = django>=3.2,<4.2\n", "django>=3.2,<4.2\n"),
    ("install_requires = django>=3.2,<4.2\n", "django >= 3.2, < 4.2\n"),
    ("install_requires = django>=3.2,<4.2\n", "django>=3.2\n"),           # fewer clauses: an omission
    ("install_requires = django>=3.2,<4.2\n", "Needs django <4.2.\n"),
    ("Requires-Dist: Django (>=3.2,<4.2)\n", "Django (>=3.2, <4.2)\n"),
    ("Requires-Dist: Django (>=3.2,<4.2)\n", "Requires Django >= 3.2.\n"),
    ("python_requires = >=3.8\n", "python_requires: >= 3.8\n"),
    ("requests [socks]==2.31.0\n", "requests [socks] == 2.31.0\n"),
    ("requests [socks]==2.31.0\n", "requests\\[socks\\]==2.31.0\n"),
    ("backports.zoneinfo>=0.2; python_version<'3.9'\n", "backports.zoneinfo>=0.2; python_version < \"3.9\"\n"),
    ("numpy>=1.24,!=1.25.0\n", "numpy >= 1.24\n"),
    ("numpy>=1.24,!=1.25.0\n", "numpy != 1.25.0\n"),
    ("requests[socks,security]==2.31.0\n", "requests[security,socks]==2.31.0\n"),
    ("We saw p99 > 30 ms and errors >= 5.\n", "p99 > 30 ms, errors >= 5\n"),
    ('requires-python = ">=3.8"\n', "requires-python >= 3.8\n"),
    ("Needs django \u2265 3.2.\n", "django \u2265 3.2\n"),
    ("Needs django \u2267 3.2.\n", "django \u2267 3.2\n"),
    ("django \uff1e\uff1d 3.2\n", "Needs django \uff1e\uff1d 3.2.\n"),
]


@pytest.mark.parametrize("source, text", HONEST_SUMMARIES)
def test_an_honest_summary_of_a_requirement_is_accepted(source, text):
    v = summarize(source, text)
    assert v.accepted, v.violations


@pytest.mark.parametrize("source, text", [
    ("requests [socks]==2.31.0\n", "requests[socks]==2.31.0\n"),   # (the grammar's own refusals aside)
    ("requests[socks]==2.31.0\n", "requests==2.31.0\n"),           # extras left out: an omission
    ("Errors: 7 on node-a.\n", "errors > 5 on node-a\n"),          # no source states an errors requirement
    ("django \u2265 3.2\n", "django >= 3.2\n"),                      # the same comparison in ASCII
])
def test_this_rule_refuses_no_honest_requirement(source, text):
    assert not changed(summarize(source, text))


@pytest.mark.parametrize("before, after", [
    ("django >= 3.2\n", "django  >=  3.2\n"),
    ("Requires-Dist: Django (>=3.2,<4.2)\n", "Requires-Dist: Django (>=3.2, <4.2)\n"),
    ("django >= 3.2, < 4.2\n", "django < 4.2, >= 3.2\n"),           # a specifier set is a set
])
def test_a_lossless_rewrite_keeping_the_requirement_is_accepted(before, after):
    assert not changed(rewrite(before, after))


def test_a_lossless_rewrite_may_not_drop_a_clause():
    v = rewrite("install_requires = django>=3.2,<4.2\n", "install_requires = django>=3.2\n")
    assert not v.accepted
    find(v, "I2", block="b1", key="django", evidence__change="requirement_changed")


def test_a_summary_may_not_add_a_clause_or_extras():
    assert changed(summarize("django >= 3.2\n", "django >= 3.2, < 5.0\n"))
    assert changed(summarize("requests[socks]==2.31.0\n", "requests[socks,security]==2.31.0\n"))


def test_requirement_forms_are_read_as_pip_reads_them():
    assert _requirements(b"django >= 3.2, < 4.2") == {(b"django", b"", b"<", b"4.2", b">=", b"3.2"): "django >= 3.2, < 4.2"}
    assert _requirements(b"install_requires = django>=3.2") == {(b"django", b"", b">=", b"3.2"): "django>=3.2"}
    assert _requirements(b"python_requires = >=3.8") == {
        (b"python-requires", b"", b">=", b"3.8"): "python_requires = >=3.8"}
    assert _requirements(b"Requires-Dist: Django (>=3.2,<4.2)") == {
        (b"django", b"", b"<", b"4.2", b">=", b"3.2"): "Django (>=3.2,<4.2"}
    assert _requirements(b"x; python_version<'3.9'") == {(b"python-version", b"", b"<", b"3.9"): "python_version<'3.9'"}
    assert _requirements(b"requests [Socks]==2.31.0") == {(b"requests", b"socks", b"==", b"2.31"): "requests [Socks]==2.31.0"}  # (2.31.0 keyed 2.31: PEP 440 pads, red team 120 F17)
    assert _requirements(b"requests\\[socks\\] >= 2.31") == {(b"requests", b"socks", b">=", b"2.31"): "requests\\[socks\\] >= 2.31"}
    assert _requirements(b"the list [1, 2] >= 3") == {}      # (extras after a blank start with a letter)
    assert _requirements(b"3 < 5 and x < y") == {}           # (a name starts the requirement, a digit the version)
    assert _requirements(b"django >= 3.2.") == {(b"django", b"", b">=", b"3.2"): "django >= 3.2"}


def test_each_source_is_read_once_a_check(monkeypatch):
    """Linear: N summaries of one source read that source's requirements once, and each block
    once; each text once, however many blocks hold it (red team 118, F16)."""
    calls = []
    real = gate_module._requirements

    def counting(text):
        calls.append(len(text))
        return real(text)

    monkeypatch.setattr(gate_module, "_requirements", counting)
    source = "install_requires = django>=3.2,<4.2\n"
    for n in (4, 16):
        calls.clear()
        st = store_with({"tool:1": source})
        post = [blk("b1", "tool", source, ["tool:1"])] + [summary(f"s{i}", f"django >= 3.2 ({i})\n", ["tool:1"])
                                                           for i in range(n)]
        v = Gate(st).check([blk("b1", "tool", source, ["tool:1"])], post, operator="summarize")
        assert not changed(v)
        assert len(calls) == n + 1  # (each summary once, the source once)
        calls.clear()
        post = [blk("b1", "tool", source, ["tool:1"])] + [summary(f"s{i}", "django >= 3.2\n", ["tool:1"])
                                                           for i in range(n)]
        v = Gate(st).check([blk("b1", "tool", source, ["tool:1"])], post, operator="summarize")
        assert not changed(v)
        assert len(calls) == 2  # (the summaries' one text once, the source once)


# a comparison before a digit, written as an alternation of the operators (the gate's hint is
# the same set written for speed): the oracle of the test below
_ANY_COMPARISON = re.compile(rb"""(?:[=!~<>]=|[<>])[ \t(]*['"]?v?[0-9]""")


def test_requirements_are_found_from_their_comparisons_as_a_search_of_every_byte_finds_them():
    # _requirement_matches tries the pattern only at the words before each comparison (the
    # pattern tried at every byte of a tool output cost the rewrite benchmark 8 ms): the same
    # matches as the pattern's own search of the text, on texts mixing the grammar's pieces
    import random

    from provgate import gate as g

    parts = [b"django", b"Django", b"requests", b"[socks]", b" [socks]", b"\\[socks\\]", b">=", b"<", b">", b"==", b"!=",
             b"~=", b"===", b"3.2", b"4.2.7", b" ", b"  ", b",", b"(", b")", b"'", b'"', b"=", b" = ", b":", b"\n",
             b"install_requires", b"x", b"res.status", b"502", b"v1", b"a" * 30, b"[a, b, c, d, e]", b";", b"_", b"-",
             b"[a,b,c,d,e,f,g,h,i,j,k]", b"]", b"[", b"[src:x]"]
    rng = random.Random(117)
    for _ in range(3000):
        text = b"".join(rng.choice(parts) for _ in range(rng.randint(0, 30)))
        whole = [m.span() for m in g._REQUIREMENT.finditer(text)] if _ANY_COMPARISON.search(text) else []
        assert sorted(m.span() for m in g._requirement_matches(text)) == whole, text


def test_a_block_only_re_spaced_is_not_read_for_requirements_again(monkeypatch):
    from provgate import gate as g

    calls = []
    real = g._requirements
    monkeypatch.setattr(g, "_requirements", lambda text: calls.append(text) or real(text))
    text = "Requires django >= 3.2 and\nrequests[socks]==2.31.0.\n"
    v = rewrite(text, text.replace(" ", "  ").replace("\n", "\n\n"))
    assert v.accepted, v.violations
    assert calls == []
    assert changed(rewrite(text, text.replace(">=", "<")))
    assert calls


@pytest.mark.parametrize("seed", range(4))
def test_the_byte_tests_before_a_requirement_search_pass_every_text_it_would_match(seed):
    # the requirement rule asks the blocks joined for a comparison's bytes before it searches
    # each (_may_hold_requirement), and a text for a Unicode sign's lead bytes before it
    # rewrites them (_has_unicode_comparison): neither may say no where the search finds one
    import random

    rng = random.Random(seed)
    pieces = [b"django", b" ", b"=", b"==", b"!", b"~", b"<", b">", b"3.2", b"v", b"'", b'"', b"(", b"\t", b"\n",
              b"\xe2\x89\xa5", b"\xef\xbc\x9e", b"\xef\xbc\x81\xef\xbc\x9d", b"\xef\xbd\x9e", b"\xe2\xa9\xbd", b"x"]
    seen = set()
    for _ in range(4000):
        text = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        matched = gate_module._REQUIREMENT_HINT.search(gate_module._ascii_comparisons(text)) is not None
        if matched:
            assert gate_module._may_hold_requirement(gate_module._ascii_comparisons(text)), text
        rewritten = any(sign in text for sign, _ in gate_module._UNICODE_COMPARISONS)
        if rewritten:
            assert gate_module._has_unicode_comparison(text), text
        seen.add((matched, rewritten))
    assert {(True, True), (True, False), (False, True), (False, False)} <= seen
