"""A requirement written another way that pip reads as the same requirement states no new fact
and drops none (red team 118, F14 and F23; docs/gate.md, "Requirements"): the grammar's kv and
name facts of a requirement keep its case and blanks, so ``django >= 3.2, < 4.2`` ->
``django>=3.2,<4.2``, its clauses reordered, ``Django (>=3.2,<4.2)`` -> ``Django>=3.2,<4.2``,
``Requests[socks]`` -> ``requests[socks]`` and ``requests[SOCKS]`` were refused as rewrites
(I2 introduced/dropped/changed, I1 ungrounded). The gate reads the requirement as pip does; the
grammar is unchanged. A clause, an extra or the name changed stays refused. Run natively and with
PROVGATE_NO_EXTENSIONS=1 (the suite runs once each way)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted
from test_gate_requirement_extras import rewrite, summarize

import provgate.gate as gate_module
from provgate.gate import _in_same_requirement, _requirement_spans

HONEST = [  # (before, after): one requirement, as pip reads it
    ("django >= 3.2, < 4.2\n", "django>=3.2,<4.2\n"),                    # F14: blanks removed
    ("django>=3.2,<4.2\n", "django<4.2,>=3.2\n"),                        # F14: clauses reordered
    ("Django (>=3.2,<4.2)\n", "Django>=3.2,<4.2\n"),                     # F14: metadata form -> pip form
    ("Requests[socks]==2.31.0\n", "requests[socks]==2.31.0\n"),          # F23: PEP 503 case
    ("requests[socks] == 2.31.0\n", "requests[socks]==2.31.0\n"),        # F23: blanks removed
    ("requests[socks]==2.31.0\n", "requests[SOCKS]==2.31.0\n"),          # F23: the extra's case
    ("python_dateutil>=2.8\n", "python-dateutil>=2.8\n"),                # PEP 503: _ and -
    ("Zope.Interface>=5\n", "zope-interface>=5\n"),
    ("Install django >= 3.2, < 4.2 first.\n", "Install django>=3.2,<4.2 first.\n"),
    ("Requests==2.31.0\n", "requests==2.31.0\n"),                     # (red team 115 F09's plain form)
    ("requests==2.31.0\n", "Requests==2.31.0\n"),
]


@pytest.mark.parametrize("before, after", HONEST)
def test_a_requirement_written_another_way_is_accepted(before, after):
    assert_accepted(rewrite(before, after))
    assert_accepted(summarize(before, after))


LIES = [  # (before, after): a clause, an extra or the name changed
    ("django >= 3.2, < 4.2\n", "django>=3.2,<5.2\n"),
    ("django>=3.2,<4.2\n", "django<4.2,>3.2\n"),
    ("Django (>=3.2,<4.2)\n", "Django>=3.2,<=4.2\n"),
    ("Django (>=3.2,<4.2)\n", "Flask>=3.2,<4.2\n"),
    ("Requests[socks]==2.31.0\n", "requests[socks]==2.32.0\n"),
    ("Requests[socks]==2.31.0\n", "requests[security]==2.31.0\n"),
    ("Requests[socks]==2.31.0\n", "httpx[socks]==2.31.0\n"),
    ("requests[socks] == 2.31.0\n", "requests[socks]!=2.31.0\n"),
    ("python_dateutil>=2.8\n", "dateutil>=2.8\n"),
    ("Install django >= 3.2, < 4.2 first.\n", "Install django>=3.2,<4.2 last.\n"),  # (a word outside it)
]


@pytest.mark.parametrize("before, after", LIES)
def test_a_requirement_changed_stays_refused(before, after):
    v = rewrite(before, after)
    assert not v.accepted
    assert any(x.invariant == "I2" for x in v.violations), v.violations
    if "last" not in after:
        v = summarize(before, after)
        assert not v.accepted
        assert any(x.invariant == "I1" for x in v.violations), v.violations


def test_a_summary_naming_fewer_clauses_in_another_case_is_accepted():
    assert_accepted(summarize("django>=3.2,<4.2\n", "Django<4.2\n"))
    v = rewrite("django>=3.2,<4.2\n", "Django<4.2\n")   # (a lossless edit keeps every clause)
    assert not v.accepted


def test_requirement_spans_cover_the_requirement():
    text = b"Use Django (>=3.2,<4.2) and requests[socks]==2.31.0."
    spans = _requirement_spans(text)
    assert [(text[s:e], key) for s, e, key in spans] == [
        (b"Django (>=3.2,<4.2", (b"django", b"", b"<", b"4.2", b">=", b"3.2")),
        # (a version keyed as PEP 440 compares it: the release segment's trailing zeros aside, red team 120 F17)
        (b"requests[socks]==2.31.0", (b"requests", b"socks", b"==", b"2.31")),
    ]
    assert _requirement_spans(b"django \xe2\x89\xa5 3.2") == []   # (Unicode signs: offsets differ, none)


def test_in_same_requirement_reads_the_other_side():
    from provgate.facts import extract

    table = extract(b"requests[SOCKS]==2.31.0")
    rows = list(range(len(table)))
    assert rows
    assert all(_in_same_requirement(table, r, b"Requests[socks] == 2.31.0", {}) for r in rows)
    assert not any(_in_same_requirement(table, r, b"requests[security]==2.31.0", {}) for r in rows)
    assert not any(_in_same_requirement(table, r, None, {}) for r in rows)


def test_the_requirements_of_a_block_are_read_only_for_a_fact_left_over(monkeypatch):
    """A rewrite whose facts are all the pre version's reads no requirement for this rule."""
    calls = []
    real = gate_module._requirement_spans
    monkeypatch.setattr(gate_module, "_requirement_spans", lambda text: calls.append(text) or real(text))
    assert_accepted(rewrite("django>=3.2,<4.2 is pinned.\n", "django>=3.2,<4.2  is pinned.\n"))
    assert calls == []
    assert_accepted(rewrite("django >= 3.2, < 4.2\n", "django>=3.2,<4.2\n"))
    assert calls


# red team 120, F17: a version as PEP 440 compares it, the release segment padded with zeros --------

@pytest.mark.parametrize("before, after", [
    ("django==3.2\n", "django==3.2.0\n"),
    ("django==3.2.0\n", "django==3.2\n"),
    ("django>=3.2,<4\n", "django>=3.2.0,<4.0\n"),
    ("django!=3.2\n", "django!=3.2.0\n"),
    ("Install django==3.2 first.\n", "Install django==3.2.0 first.\n"),
])
def test_a_version_padded_with_zeros_is_the_same_requirement(before, after):
    assert_accepted(rewrite(before, after))
    assert_accepted(summarize(before, after))


@pytest.mark.parametrize("before, after", [
    ("django==3.2\n", "django==3.2.1\n"),
    ("django==3.2\n", "django==3.20\n"),
    ("django==3.2.*\n", "django==3.2.0\n"),       # a prefix match, not the version 3.2.0
    ("django==3.2.*\n", "django==3.2.0.*\n"),     # (3.2.* holds 3.2.1; 3.2.0.* does not)
    ("django~=3.2\n", "django~=3.2.0\n"),         # (>=3.2,==3.* is not >=3.2.0,==3.2.*)
    ("django===3.2\n", "django===3.2.0\n"),       # arbitrary equality compares strings
])
def test_a_version_changed_by_padding_where_pep_440_does_not_pad_stays_refused(before, after):
    v = rewrite(before, after)
    assert not v.accepted
    assert any(x.invariant == "I2" for x in v.violations), v.violations
    v = summarize(before, after)
    assert not v.accepted
    assert any(x.invariant == "I1" for x in v.violations), v.violations


def test_padded_version_follows_pep_440():
    from provgate.gate import _padded_version
    assert _padded_version(b"==", b"3.2.0") == _padded_version(b"==", b"3.2") == b"3.2"
    assert _padded_version(b"==", b"3.0.0") == b"3" and _padded_version(b"==", b"03.02") == b"3.2"
    assert _padded_version(b"==", b"3.2.0rc1") == b"3.2rc1" and _padded_version(b"==", b"0!3.2.0") == b"3.2"
    assert _padded_version(b"==", b"1!3.2.0") == b"1!3.2"
    assert _padded_version(b"==", b"3.2.*") == b"3.2.*" and _padded_version(b"==", b"3.2.0.*") == b"3.2.0.*"
    assert _padded_version(b"~=", b"3.2.0") == b"3.2.0" and _padded_version(b"===", b"3.2.0") == b"3.2.0"
    # (`===` is read as itself, not as `==` after a kv line's `=`)
    from provgate.gate import _requirements
    assert list(_requirements(b"django===3.2")) == [(b"django", b"", b"===", b"3.2")]
    assert list(_requirements(b"python_requires = >=3.8")) == [(b"python-requires", b"", b">=", b"3.8")]
