"""Grammar v11 (EXTRACTOR_VERSION 11): a requirement's comparison is part of its pin whatever the
name's words are, and a specifier set is one value (red team 116 F07, a fail-open).

Grammar v9 read ``django<4.2`` as the pin ``django = <4.2``, but only after a plain word: a name
with inner capitals (``SQLAlchemy``, ``PyYAML``), a digit (``Jinja2``), a ``.`` (``zope.interface``)
or a ``_`` (``python_dateutil``) held no pin, so ``SQLAlchemy==2.0.25`` -> ``SQLAlchemy!=2.0.25``
kept every fact; nor did the second clause of ``django>=3.2,<4.2``, the comparison after extras
(``requests[socks]>=2.31``) or an npm range's second clause (``lodash@>=4.17.0 <5``). Scanner cases
run on both implementations (``impl``); the gate cases run on the one provgate loads (the suite
runs again with PROVGATE_NO_EXTENSIONS=1). docs/grammar.md ("A requirement's name and specifier
set") has the rule and its limits."""

from __future__ import annotations

import pytest
from conftest import IMPLEMENTATIONS, load_implementation
from gate_helpers import assert_accepted, find
from hypothesis import given
from hypothesis import strategies as st
from scanner_helpers import DIFFERENTIAL, assert_same_columns, columns, spans
from test_grammar_v4 import _rewrite, _summarize

from provgate import _scanner_py
from provgate.facts import EXTRACTOR_VERSION


@pytest.fixture(params=IMPLEMENTATIONS, scope="module")
def impl(request):
    return load_implementation("scanner", "_scanner_py", request.param)


def _kvs(impl, text):
    return [(literal, key, value) for kind, literal, key, value in spans(impl, text) if kind == "kv"]


def test_extractor_version_is_11():
    # cached fact tables are keyed by it: v11 must not read v10 tables, which lack these pins
    assert EXTRACTOR_VERSION >= 11


V11_CASES = [
    ("SQLAlchemy==2.0.25", [("SQLAlchemy==2.0.25", "SQLAlchemy", "2.0.25")]),
    ("SQLAlchemy!=2.0.25", [("SQLAlchemy!=2.0.25", "SQLAlchemy", "!=2.0.25")]),
    ("Jinja2>=3.1", [("Jinja2>=3.1", "Jinja2", ">=3.1")]),
    ("PyYAML<6.0", [("PyYAML<6.0", "PyYAML", "<6.0")]),
    ("MarkupSafe~=2.1.3", [("MarkupSafe~=2.1.3", "MarkupSafe", "~=2.1.3")]),
    ("zope.interface>=5.0", [("zope.interface>=5.0", "zope.interface", ">=5.0")]),
    ("python_dateutil<=2.8", [("python_dateutil<=2.8", "python_dateutil", "<=2.8")]),
    ("Flask-SQLAlchemy>3.0", [("Flask-SQLAlchemy>3.0", "Flask-SQLAlchemy", ">3.0")]),
    ("It uses Django==4.2", [("Django==4.2", "Django", "4.2")]),
    ("ruamel.yaml.clib==0.2.8", [("ruamel.yaml.clib==0.2.8", "ruamel.yaml.clib", "0.2.8")]),
    # a specifier set is one value: its clauses after "," (and blanks)
    ("django>=3.2,<4.2", [("django>=3.2,<4.2", "django", ">=3.2,<4.2")]),
    ("Django>=3.2, <4.2, !=4.0.1", [("Django>=3.2, <4.2, !=4.0.1", "Django", ">=3.2, <4.2, !=4.0.1")]),
    ("requests==2.31.0,!=2.31.1", [("requests==2.31.0,!=2.31.1", "requests", "2.31.0,!=2.31.1")]),
    # extras are not part of the key
    ("requests[socks]>=2.31", [("requests[socks]>=2.31", "requests", ">=2.31")]),
    ("celery[redis, sqs]==5.3.6", [("celery[redis, sqs]==5.3.6", "celery", "5.3.6")]),
    # an npm range's clauses after blanks
    ("lodash@>=4.17.0 <5", [("lodash@>=4.17.0 <5", "lodash", ">=4.17.0 <5")]),
    ("npm i react@>=18 <19 now", [("react@>=18 <19", "react", ">=18 <19")]),
    # in a requirements file, one pin a line
    ("SQLAlchemy==2.0.25\nJinja2>=3.1\n", [("SQLAlchemy==2.0.25", "SQLAlchemy", "2.0.25"),
                                          ("Jinja2>=3.1", "Jinja2", ">=3.1")]),
]


@pytest.mark.parametrize("text, expected", V11_CASES, ids=[t for t, _ in V11_CASES])
def test_a_requirement_is_a_pin_whatever_its_name(impl, text, expected):
    assert _kvs(impl, text) == expected


def test_the_name_keeps_its_facts(impl):
    # the kv fact comes in addition: the name's and the version's own facts are as before
    assert [(k, t) for k, t, _, _ in spans(impl, "uses SQLAlchemy==2.0.25 now")] == [
        ("identifier", "SQLAlchemy"), ("kv", "SQLAlchemy==2.0.25"), ("number", "2.0.25")]
    assert [(k, t) for k, t, _, _ in spans(impl, "django>=3.2,<4.2")] == [
        ("identifier", "django"), ("kv", "django>=3.2,<4.2"), ("number", "3.2"), ("number", "4.2")]


@pytest.mark.parametrize("text", [
    # no version after the comparison, blanks around it, a name that starts with a digit
    "x<y", "a>=b", "if a===1", "x==y", "Django == 4.2", "django <= 4.2", "x< 3", "3<5", "1>=0.5",
    "2to3>=1", "requests[socks", "_x>=1", "x_>=1", "x.>=1", "foo~1", "foo=>1",
])
def test_no_requirement_no_kv(impl, text):
    assert _kvs(impl, text) == []


def test_a_clause_needs_a_version(impl):
    assert _kvs(impl, "django>=3.2,<x") == [("django>=3.2", "django", ">=3.2")]
    assert _kvs(impl, "django>=3.2 and <4") == [("django>=3.2", "django", ">=3.2")]
    assert _kvs(impl, "django>=3.2, then") == [("django>=3.2", "django", ">=3.2")]


def test_long_names_and_sets_are_read_once(impl):
    # the name is read once (no requirement is tried inside it), a set's clauses once
    text = ("a." * 20000 + "b>=1" + ",<2" * 20000 + " " + "x-" * 20000 + "\n").encode()
    got = columns(impl, text)
    assert (got[0] == _scanner_py.KV).sum() == 1
    assert_same_columns(got, _scanner_py.scan(text, 10**7, shortcut=False), text)


# -- the gate: red team 116 F07 -------------------------------------------------------------------

RT116_F07 = [
    ("SQLAlchemy==2.0.25", "SQLAlchemy!=2.0.25", "!=2.0.25"),
    ("Jinja2>=3.1", "Jinja2<3.1", "<3.1"),
    ("PyYAML>=6.0", "PyYAML<6.0", "<6.0"),
    ("MarkupSafe==2.1.3", "MarkupSafe!=2.1.3", "!=2.1.3"),
    ("zope.interface>=5.0", "zope.interface<5.0", "<5.0"),
    ("python_dateutil>=2.8", "python_dateutil<2.8", "<2.8"),
    ("django>=3.2,<4.2", "django>=3.2,>4.2", ">=3.2,>4.2"),
    ("requests[socks]>=2.31", "requests[socks]<2.31", "<2.31"),
    ("lodash@>=4.17.0 <5", "lodash@>=4.17.0 >5", ">=4.17.0 >5"),
]


@pytest.mark.parametrize("source, lie, value", RT116_F07, ids=[s for s, _, _ in RT116_F07])
def test_rt116_f07_a_comparison_inverted_is_refused(source, lie, value):
    find(_rewrite(f"requirements.txt:\n{source}\n", f"requirements.txt:\n{lie}\n"), "I2", value=value)
    find(_summarize(f"requirements.txt:\n{source}\n", f"The project requires {lie} [src:tool:c1]."), "I1",
         block="s", value=value)


@pytest.mark.parametrize("source", [s for s, _, _ in RT116_F07] + ["Django>=3.2, <4.2"])
def test_rt116_f07_an_honest_summary_is_accepted(source):
    assert_accepted(_summarize(f"requirements.txt:\n{source}\n", f"The project requires {source} [src:tool:c1]."))


def test_a_requirement_kept_in_a_rewrite_is_accepted():
    text = "requirements.txt:\nSQLAlchemy==2.0.25\ndjango>=3.2,<4.2\n"
    assert_accepted(_rewrite(text, text.replace("requirements.txt:", "requirements.txt (pinned):")), "lossless")


# -- parity ---------------------------------------------------------------------------------------

_V11_PIECES = st.sampled_from([
    "SQLAlchemy", "Jinja2", "zope", ".", "interface", "_", "-", "django", "Django", "x", "[", "]", "socks", ",",
    " ", "\t", "\n", "==", "!=", "~=", ">=", "<=", ">", "<", "=", "!", "~", "2", "3.2", "4.17.0", "v4", "latest",
    "@", ":", "/", "a", "\x1b[0m", "é", "请", "[src:x]", '"', "key=", "1e5", "sha256:ab12", "^", "2.*",
])
v11_text = st.lists(_V11_PIECES, max_size=30).map("".join)


@DIFFERENTIAL
@given(v11_text)
def test_differential_v11_pieces(impl, text):
    data = text.encode()
    assert_same_columns(columns(impl, data), _scanner_py.scan(data, 10**7, shortcut=False), data)


@DIFFERENTIAL
@given(v11_text)
def test_the_shortcut_agrees_on_v11_pieces(text):
    data = text.encode()
    assert_same_columns(_scanner_py.scan(data, 10**7, shortcut=True), _scanner_py.scan(data, 10**7, shortcut=False), data)
