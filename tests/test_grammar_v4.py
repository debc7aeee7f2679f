"""Grammar v4 (EXTRACTOR_VERSION 4, stop 40): what follows an "@" that is no e-mail address
starts a token as usual (red team 94 F09), and an ANSI CSI escape sequence is read as control
bytes (red team 95 F09). Scanner cases run on both implementations (the ``impl`` fixture, as in
test_scanner.py); the gate cases run on the one provgate loads (the suite runs again with
PROVGATE_NO_EXTENSIONS=1 for the reference). docs/grammar.md has the rules."""

from __future__ import annotations

import re

import pytest
from conftest import IMPLEMENTATIONS, load_implementation
from gate_helpers import assert_accepted, find, gate_for, tool
from hypothesis import given
from hypothesis import strategies as st
from scanner_helpers import (
    DIFFERENTIAL,
    assert_same_columns,
    columns,
    spans,
    without_pin_kv,
)

from provgate import _scanner_py
from provgate.facts import EXTRACTOR_VERSION
from provgate.gate import Gate
from provgate.store import SourceStore


@pytest.fixture(params=IMPLEMENTATIONS, scope="module")
def impl(request):
    return load_implementation("scanner", "_scanner_py", request.param)


def test_extractor_version_is_at_least_4():
    # cached fact tables are keyed by it: grammar v4 must not read v3 tables (v5: test_grammar_v5)
    assert EXTRACTOR_VERSION >= 4


# -- "@" (red team 94 F09) ----------------------------------------------------------------------

AT_CASES = [
    # package pins: the version after "@" is a number (and, since grammar v5, the name before
    # it an identifier; since grammar v6 every "/" part of the name: the owner, the scope)
    ("Pinned lodash@4.17.21 in the lockfile.",
     [("identifier", "lodash", "identifier", "lodash"), ("number", "4.17.21", "number", "4.17.21")]),
    ("npm i react@18.2.0", [("identifier", "react", "identifier", "react"), ("number", "18.2.0", "number", "18.2.0")]),
    ("@types/node@20.11.5", [("identifier", "types", "identifier", "types"), ("identifier", "node", "identifier", "node"),
                             ("number", "20.11.5", "number", "20.11.5")]),
    ("uses actions/checkout@v4 here", [("identifier", "actions", "identifier", "actions"),
                                       ("identifier", "checkout", "identifier", "checkout"), ("number", "v4", "number", "v4")]),
    ("ssh deploy@10.0.0.12", [("identifier", "deploy", "identifier", "deploy"), ("number", "10.0.0.12", "number", "10.0.0.12")]),
    ("golang.org/x/net@v0.17.0", [("path", "golang.org/x/net@v0.17.0", "path", "golang.org/x/net@v0.17.0")]),
    # mentions: the handle is read as the word it is
    ("cc @AliceChen", [("identifier", "AliceChen", "identifier", "AliceChen")]),
    ("cc @alice42", [("identifier", "alice42", "identifier", "alice42")]),
    ("cc @Alice", [("name", "Alice", "name", "Alice")]),
    ("@Alice please look", [("name", "Alice", "name", "Alice")]),
    ("cc @ALICE", [("name", "ALICE", "name", "ALICE")]),
    # lower-case mentions were no facts until grammar v6 (test_grammar_v6): a handle now
    ("cc @alice and @bob", [("identifier", "alice", "identifier", "alice"), ("identifier", "bob", "identifier", "bob")]),
    ("page @oncall-team-7", [("identifier", "oncall-team-7", "identifier", "oncall-team-7")]),
    # what is no address: the part after "@" starts as usual
    ("a@10.0.0.1 user@host a@b.c", [("identifier", "a", "identifier", "a"), ("number", "10.0.0.1", "number", "10.0.0.1")]),
    ("x@y.io-z", [("identifier", "y.io", "identifier", "y.io")]),
]


@pytest.mark.parametrize("text, expected", AT_CASES, ids=[t for t, _ in AT_CASES])
def test_what_follows_an_at_sign_starts_as_usual(impl, text, expected):
    assert without_pin_kv(spans(impl, text)) == expected


# Every address here is matched as one identifier, as in grammar v3: nothing inside it is a fact.
ADDRESSES = [
    "oncall@acme.io", "Oncall@ACME.io", "a.b+c@x.co.uk", "first_last@x-y.io", "12345@qq.com",
    "x-oncall@acme.io", "team-2@acme.io", "ops+alerts@eu-west-1.example.com", "a@10-0-0-1.example.com",
    "deploy@db-3.internal", "user%tag@mail.example.org", "v1@v2.io", "root@host1.prod.example.net",
]
CONTEXTS = ["{}", "mail {}.", "({})", "<{}>", "to: {},", "Write to {} now", "- {}\n", "**{}**", "'{}'"]


@pytest.mark.parametrize("address", ADDRESSES)
@pytest.mark.parametrize("context", CONTEXTS)
def test_an_email_address_is_one_identifier_and_nothing_inside(impl, address, context):
    text = context.format(address)
    got = [s for s in spans(impl, text) if s[0] != "quote"]
    assert got == [("identifier", address, "identifier", address.lower())]


@pytest.mark.parametrize("text, expected", [
    ("email=Ops@B.io", [("kv", "email=Ops@B.io", "email", "ops@b.io")]),
    ("git@github.com:org/repo.git", [("identifier", "git@github.com", "identifier", "git@github.com"),
                                      ("path", "org/repo.git", "path", "org/repo.git")]),
    ("http://u@h.io/x", [("url", "http://u@h.io/x", "url", "http://u@h.io/x")]),
    ("a@b.io/x/y", [("path", "a@b.io/x/y", "path", "a@b.io/x/y")]),
])
def test_lexemes_holding_an_at_sign_are_as_before(impl, text, expected):
    assert spans(impl, text) == expected


# -- ANSI CSI sequences (red team 95 F09) --------------------------------------------------------

PYTEST_COLOURED = (
    "collected 25 items\n"
    "\x1b[31mFAILED\x1b[0m tests/test_retry.py::test_retry_on_503 - AssertionError: assert 3 == 5\n"
    "\x1b[31m==== \x1b[1m1 failed\x1b[0m, \x1b[32m24 passed\x1b[0m\x1b[31m in 2.31s\x1b[0m\x1b[31m ====\x1b[0m\n"
)
_CSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def _strip(text: str) -> str:
    return _CSI.sub("", text)


def _facts(impl, text: str) -> list[tuple[str, str, str]]:
    return sorted((k, key, v) for k, _, key, v in spans(impl, text))


def test_a_csi_sequence_is_no_fact_and_separates(impl):
    got = spans(impl, "\x1b[1m1 failed\x1b[0m, \x1b[32m24 passed\x1b[0m")
    assert got == [("number", "1", "number", "1"), ("number", "24", "number", "24")]
    assert spans(impl, "\x1b[38;5;196m\x1b[0;1;31m\x1b[2K\x1b[?25l\x1b[0m") == []
    assert spans(impl, "\x1b[31mFAILED\x1b[0m") == [("name", "FAILED", "name", "FAILED")]


@pytest.mark.parametrize("coloured", [
    PYTEST_COLOURED,
    "\x1b[1mWarning:\x1b[0m Something broke. \x1b[1mMr. Smith\x1b[0m saw it \x1b[32mPassed\x1b[0m",
    "\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[31mF\x1b[0m [ 42%]\n\x1b[1m-eu-west-1\x1b[0m \x1b[0m./run.sh \x1b[1~/etc/hosts",
    "\x1b[1;34mdrwxr-xr-x\x1b[0m 2 root root 4096 \x1b[01;34msrc\x1b[0m\n\x1b[36mretries=3\x1b[0m",
])
def test_coloured_output_has_the_facts_of_the_stripped_text(impl, coloured):
    assert _facts(impl, coloured) == _facts(impl, _strip(coloured))


def test_a_csi_sequence_comes_before_a_citation_marker(impl):
    # an ESC "[" is a CSI (here "\x1b[s"), never a marker; a marker after a CSI is one
    assert [s[0] for s in spans(impl, "\x1b[src:call_1]")] == ["identifier"]
    assert spans(impl, "\x1b[0m[src:call_1]") == [("citation", "[src:call_1]", "citation", "call_1")]


@pytest.mark.parametrize("text, expected", [
    ("\x1b[1", [("number", "1", "number", "1")]),  # no final byte: no CSI
    ("\x1b[12;\n", [("number", "12", "number", "12")]),  # "\n" is no final byte
    ("\x1b[31mx\x1b[", []),
    ("x \x1b\x1b[1mAb", [("name", "Ab", "name", "Ab")]),
])
def test_a_broken_csi_is_ordinary_bytes(impl, text, expected):
    assert spans(impl, text) == expected


@pytest.mark.parametrize("text", [
    "\x1b[" + "1;" * 40000,  # a CSI that never ends
    "\x1b[1m" * 30000 + "Ab",
    ("\x1b[1mAb" * 20000),  # every capitalised word looks back over a CSI
    "\x1b[" * 40000,
    ("x\x1b[" + "0" * 50 + "m.") * 3000,
])
def test_hostile_csi_input_agrees(impl, text):
    data = text.encode()
    assert_same_columns(columns(impl, data), _scanner_py.scan(data, 10**7, shortcut=False), data)


_V4_PIECES = st.sampled_from([
    "@", "@@", "lodash@4.17.21", "@types/node@20.11.5", "actions/checkout@v4", "deploy@10.0.0.12", "@AliceChen",
    "@alice", "@oncall-team-7", "oncall@acme.io", "a.b+c@x.co.uk", "user@host", "-x@a.io", "é@x.io", "@v3",
    "\x1b", "\x1b[", "\x1b[0m", "\x1b[1;32m", "\x1b[2K", "\x1b[?25l", "\x1b[ q", "\x1b[1~", "\x1b[@", "\x1b[[",
    "\x1b[]", "\x1b[s", "\x1b[src:c]", "\x1b[1", "m", "1m1", "\x1b[{", "\x1b[\\", "\x1b[<>m", "[src:c]",
    "Mr.", " Ab", "Ab", "a", "1", "-", ".", "/", " ", "\n", ":", "=", "[", "]", '"', "'", "eu-west-1", "x86_64",
])
v4_text = st.lists(_V4_PIECES, max_size=30).map("".join)


@DIFFERENTIAL
@given(v4_text)
def test_differential_v4_pieces(impl, text):
    data = text.encode()
    assert_same_columns(columns(impl, data), _scanner_py.scan(data, 10**7, shortcut=False), data)


# -- the gate --------------------------------------------------------------------------------------


def _rewrite(before: str, after: str):
    store = SourceStore(":memory:")
    store.put("tool:c1", before)
    return Gate(store).check([tool("t", "tool:c1", before)], [tool("t", "tool:c1", after)], operator="rewrite")


def _summarize(source: str, text: str):
    g = gate_for({"tool:c1": source})
    s = {"id": "s", "role": "summary", "text": text, "derived": True, "derived_from": ["tool:c1"]}
    return g.check([tool("t", "tool:c1", source)], [s], operator="summarize")


RT94_F09 = [
    ("lodash@4.17.21", "lodash@4.17.20", "4.17.20"),
    ("react@18.2.0", "react@17.0.2", "17.0.2"),
    ("@types/node@20.11.5", "@types/node@18.19.3", "18.19.3"),
    ("actions/checkout@v4", "actions/checkout@v3", "v3"),
    ("deploy@10.0.0.12", "deploy@10.0.0.21", "10.0.0.21"),
    ("@AliceChen", "@BobSmith", "BobSmith"),
    ("@oncall-team-7", "@oncall-team-9", "oncall-team-9"),
]


@pytest.mark.parametrize("old, new, value", RT94_F09)
def test_rt94_f09_changed_pins_are_refused(old, new, value):
    src = f"Pinned {old} in the lockfile."
    find(_rewrite(src, f"Pinned {new} in the lockfile."), "I2", value=value)
    find(_summarize(src, f"The lockfile pins {new} [src:tool:c1]."), "I1", block="s", value=value)


@pytest.mark.parametrize("old, summary_text", [
    ("lodash@4.17.21", "The lockfile pins lodash 4.17.21 [src:tool:c1]."),
    ("lodash@4.17.21", "The lockfile pins lodash@4.17.21 [src:tool:c1]."),
    ("actions/checkout@v4", "The lockfile uses checkout v4 [src:tool:c1]."),
    ("deploy@10.0.0.12", "Deploys go to 10.0.0.12 [src:tool:c1]."),
    ("@AliceChen", "AliceChen is pinned [src:tool:c1]."),
])
def test_rt94_f09_honest_neighbours_are_accepted(old, summary_text):
    src = f"Pinned {old} in the lockfile."
    assert_accepted(_rewrite(src, f"Pinned  {old}  in the lockfile.\n"))
    assert_accepted(_summarize(src, summary_text), "lossy")


@pytest.mark.parametrize("address", ["oncall@acme.io", "Ops+alerts@eu-west-1.example.com", "x-oncall@acme.io"])
def test_email_addresses_are_checked_as_before(address):
    src = f"Page {address} on failure."
    assert_accepted(_summarize(src, f"Failures page {address.upper()} [src:tool:c1]."), "lossy")
    changed = address.replace("acme", "acne").replace("example", "exemple")
    find(_summarize(src, f"Failures page {changed} [src:tool:c1]."), "I1", block="s", key="identifier")
    # the domain alone is no fact of the source: a summary naming it is not grounded by it
    domain = address.split("@", 1)[1]
    find(_summarize(src, f"Failures go to {domain} [src:tool:c1]."), "I1", block="s", value=domain)


def test_rt95_f09_summary_of_coloured_pytest_output_is_accepted():
    s = "pytest: 1 failed, 24 passed in 2.31s; test_retry_on_503 fails [src:tool:c1]."
    assert_accepted(_summarize(PYTEST_COLOURED, s), "lossy")
    assert_accepted(_rewrite(PYTEST_COLOURED, _strip(PYTEST_COLOURED)))


@pytest.mark.parametrize("wrong, value", [("2 failed, 24 passed", "2"), ("1 failed, 23 passed", "23")])
def test_rt95_f09_a_changed_count_in_coloured_output_is_refused(wrong, value):
    s = f"pytest: {wrong} in 2.31s [src:tool:c1]."
    find(_summarize(PYTEST_COLOURED, s), "I1", block="s", value=value)
    changed = PYTEST_COLOURED.replace("\x1b[1m1 failed", "\x1b[1m2 failed").replace("24 passed", "23 passed")
    v = _rewrite(PYTEST_COLOURED, changed)
    assert not v.accepted


def test_rt95_f09_json_wrapped_coloured_output():
    # the grammar reads the JSON text ("\u001b[1m1" is text there), but the gate's look-up in
    # the strings a JSON source encodes (stop 39) sees the real ESC: the counts are grounded
    import json

    src = json.dumps({"exit_code": 1, "stdout": PYTEST_COLOURED})
    assert "\\u001b[" in src
    assert_accepted(_summarize(src, "pytest: 1 failed, 24 passed in 2.31s [src:tool:c1]."), "lossy")
    find(_summarize(src, "pytest: 2 failed, 24 passed in 2.31s [src:tool:c1]."), "I1", block="s", value="2")
