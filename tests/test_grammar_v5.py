"""Grammar v5 (EXTRACTOR_VERSION 5): the plain word right before "@" and a version or a digest
is an identifier, so renaming the package of a pin (lodash@4.17.21 -> underscore@4.17.21) is
refused; e-mail addresses stay one identifier each, as in grammar v4. Scanner cases run on both
implementations (the ``impl`` fixture); the gate cases run on the one provgate loads (the suite
runs again with PROVGATE_NO_EXTENSIONS=1 for the reference). docs/grammar.md has the rule."""

from __future__ import annotations

import pytest
from conftest import IMPLEMENTATIONS, load_implementation
from gate_helpers import assert_accepted, find
from hypothesis import given
from hypothesis import strategies as st
from scanner_helpers import (
    DIFFERENTIAL,
    assert_same_columns,
    columns,
    spans,
    without_pin_kv,
)
from test_grammar_v4 import _rewrite, _summarize

from provgate import _scanner_py
from provgate.facts import EXTRACTOR_VERSION


@pytest.fixture(params=IMPLEMENTATIONS, scope="module")
def impl(request):
    return load_implementation("scanner", "_scanner_py", request.param)


def test_extractor_version_is_at_least_5():
    # cached fact tables are keyed by it: grammar v5 must not read v4 tables, whose pins lack
    # the package name (v6: test_grammar_v6)
    assert EXTRACTOR_VERSION >= 5


def _ident(word):
    return ("identifier", word, "identifier", word)


PIN_CASES = [
    ("pin lodash@4.17.21 now", [_ident("lodash"), ("number", "4.17.21", "number", "4.17.21")]),
    # (grammar v6: the owner and the scope are identifiers too)
    ("uses actions/checkout@v4 here", [_ident("actions"), _ident("checkout"), ("number", "v4", "number", "v4")]),
    ("uses actions/checkout@V4 here", [_ident("actions"), _ident("checkout"), ("number", "V4", "number", "V4")]),
    ("npm i @scope/pkg@1.0.0", [_ident("scope"), _ident("pkg"), ("number", "1.0.0", "number", "1.0.0")]),
    ("Lodash@4.17.21 is pinned", [_ident("Lodash"), ("number", "4.17.21", "number", "4.17.21")]),
    ("pull nginx@sha256:0123abcd ok",
     [_ident("nginx"), _ident("sha256"), ("digest", "0123abcd", "digest", "0123abcd")]),
    # not a version, digest or (grammar v6) ref word after "@": the word stays a word
    ("pin lodash@latest now", [_ident("lodash"), _ident("latest")]),
    ("pin lodash@ now", []),
    ("pin lodash@v now", []),
    ("pull nginx@sha256:xyz", [_ident("sha256")]),
    ("pull nginx@sha255:0123", [_ident("sha255"), ("number", "0123", "number", "0123")]),
]


@pytest.mark.parametrize("text, expected", PIN_CASES, ids=[t for t, _ in PIN_CASES])
def test_the_name_before_a_pin_is_an_identifier(impl, text, expected):
    assert without_pin_kv(spans(impl, text)) == expected


@pytest.mark.parametrize("address", [
    "oncall@acme.io", "v1@v2.io", "a.b+c@x.co.uk", "deploy@db-3.internal", "x1@x2.io", "ops@4lab.com",
])
def test_email_addresses_stay_one_identifier(impl, address):
    text = f"Write to {address} now"
    assert [s for s in spans(impl, text) if s[0] != "quote"] == [("identifier", address, "identifier", address.lower())]


@pytest.mark.parametrize("text", [
    "a@1", "x@v1", "x@sha1:a", "x@sha256:", "x@sha256:g", "x@sha384:f", "x@sha512:F", "x@sha51", "x@s", "x@sh",
    "x@sha", "x@sha1", "x@sha1:", "@1", "a@@1", "a@b@1.0", "é@1", "a-b@1", "a.b@1", "a_b@1", "AB@1", "a@1.io",
])
def test_pin_edges_agree(impl, text):
    data = text.encode()
    assert_same_columns(columns(impl, data), _scanner_py.scan(data, 10**7, shortcut=False), data)


_V5_PIECES = st.sampled_from([
    "@", "@@", "lodash", "@4.17.21", "@v4", "@V", "@v", "@sha256:", "@sha1:", "@sha384:", "@sha512:", "@sha",
    "sha256", "abc123", "0123abcd", "f", "g", "@types/node@20.11.5", "actions/checkout@v4", "oncall@acme.io",
    "a.b+c@x.co.uk", "user@host", "Ab", "a", "1", "-", ".", "/", " ", "\n", ":", "=", "é", "x86_64",
])
v5_text = st.lists(_V5_PIECES, max_size=30).map("".join)


@DIFFERENTIAL
@given(v5_text)
def test_differential_v5_pieces(impl, text):
    data = text.encode()
    assert_same_columns(columns(impl, data), _scanner_py.scan(data, 10**7, shortcut=False), data)


# -- the gate --------------------------------------------------------------------------------------


RENAMED_PINS = [
    ("lodash@4.17.21", "underscore@4.17.21", "underscore"),
    ("actions/checkout@v4", "actions/setup@v4", "setup"),
    ("@scope/pkg@1.0.0", "@scope/evil@1.0.0", "evil"),
    ("nginx@sha256:0123abcd", "httpd@sha256:0123abcd", "httpd"),
]


@pytest.mark.parametrize("old, new, value", RENAMED_PINS)
def test_a_renamed_pin_is_refused(old, new, value):
    src = f"Pinned {old} in the lockfile."
    find(_rewrite(src, f"Pinned {new} in the lockfile."), "I2", value=value)
    find(_summarize(src, f"The lockfile pins {new} [src:tool:c1]."), "I1", block="s", value=value)


@pytest.mark.parametrize("old, summary_text", [
    ("lodash@4.17.21", "The lockfile pins lodash@4.17.21 [src:tool:c1]."),
    ("lodash@4.17.21", "The lockfile pins lodash 4.17.21 [src:tool:c1]."),
    ("actions/checkout@v4", "The workflow uses actions/checkout@v4 [src:tool:c1]."),
    ("nginx@sha256:0123abcd", "The image is nginx@sha256:0123abcd [src:tool:c1]."),
])
def test_an_honest_pin_is_accepted(old, summary_text):
    src = f"Pinned {old} in the lockfile."
    assert_accepted(_rewrite(src, f"Pinned  {old}  in the lockfile.\n"))
    assert_accepted(_summarize(src, summary_text), "lossy")
