"""Grammar v6 (EXTRACTOR_VERSION 6): a pin's whole name is read, and mentions are handles.

- every "/" part of a pin's name is an identifier (the owner of ``actions/checkout@v4``, the
  scope of ``@types/node@20.11.5``), a part joined by "-" is one identifier (``left-pad`` of
  ``left-pad@1.3.0``), a version may carry a range sign (``lodash@^4.17.21``), and a ref word
  pins a name too and is an identifier itself (``lodash@latest``, ``actions/checkout@main``): v5
  read only the word right before the "@", so renaming the owner, the scope, the ``left`` or a
  name pinned to a word ref was accepted;
- a mention, a plain word right after an "@" that follows no word byte, is an identifier
  (``@alice``, ``@oncall-team``, ``@property``): ``@alice`` -> ``@bob`` was accepted.

Scanner cases run on both implementations (the ``impl`` fixture); the gate cases run on the one
provgate loads (the suite runs again with PROVGATE_NO_EXTENSIONS=1 for the reference).
docs/grammar.md ("@ pins and mentions") has the rule and its limits."""

from __future__ import annotations

import re

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


def test_extractor_version_is_at_least_6():
    # cached fact tables are keyed by it: grammar v6 must not read v5 tables, whose pins lack
    # the owner and the scope, and whose mentions are no facts (v7: tests/test_grammar_v7.py)
    assert EXTRACTOR_VERSION >= 6


def _id(word):
    return ("identifier", word, "identifier", word)


def _num(value):
    return ("number", value, "number", value)


V6_CASES = [
    # the owner and the scope of a pin
    ("uses actions/checkout@v4 here", [_id("actions"), _id("checkout"), _num("v4")]),
    ("uses evilcorp/checkout@v4 here", [_id("evilcorp"), _id("checkout"), _num("v4")]),
    ("npm i @types/node@20.11.5", [_id("types"), _id("node"), _num("20.11.5")]),
    ("npm i @babel/plugin-transform-runtime@7.24.0",
     [_id("babel"), _id("plugin-transform-runtime"), _num("7.24.0")]),
    ("uses docker/build-push-action@v5", [_id("docker"), _id("build-push-action"), _num("v5")]),
    ("pull library/nginx@sha256:0123abcd",
     [_id("library"), _id("nginx"), _id("sha256"), ("digest", "0123abcd", "digest", "0123abcd")]),
    # a name joined by "-" is one identifier
    ("npm i left-pad@1.3.0", [_id("left-pad"), _num("1.3.0")]),
    ("Left-pad@1.3.0 is pinned", [_id("Left-pad"), _num("1.3.0")]),  # (a sentence start: plain)
    ("npm i Left-Pad@1.3.0", [("name", "Left", "name", "Left"), ("name", "Pad", "name", "Pad"), _num("1.3.0")]),
    ("pip install typing-extensions@4.9.0", [_id("typing-extensions"), _num("4.9.0")]),
    ("uses my-org/some-pkg@1", [_id("my-org"), _id("some-pkg"), _num("1")]),
    # a range sign before the version
    ("npm i lodash@^4.17.21", [_id("lodash"), _num("4.17.21")]),
    ("npm i react@~18.2.0", [_id("react"), _num("18.2.0")]),
    # a ref word pins the name, and is an identifier
    ("npm i lodash@latest", [_id("lodash"), _id("latest")]),
    ("uses actions/checkout@main", [_id("actions"), _id("checkout"), _id("main")]),
    ("uses org/tool@HEAD.", [_id("org"), _id("tool"), ("name", "HEAD", "name", "HEAD")]),  # (an acronym)
    ("npm i react@next, vue@beta", [_id("react"), _id("next"), _id("vue"), _id("beta")]),
    # a word that is no ref word, or a ref word that goes on, pins nothing
    ("npm i lodash@mybranch", []),
    ("npm i lodash@mainline", []),
    ("npm i lodash@main-2", [_id("main-2")]),
    ("see x@main/y", []),
    # a name part that is a fact by itself stays what it is
    ("Azure/login@v1 is used", [_id("Azure"), _id("login"), _num("v1")]),
    ("It uses Azure/login@v1", [("name", "Azure", "name", "Azure"), _id("login"), _num("v1")]),
    ("uses k8s/tool@v1", [_id("k8s"), _id("tool"), _num("v1")]),
    # three parts are a path, as before
    ("uses github/codeql-action/init@v3", [("path", "github/codeql-action/init@v3", "path",
                                            "github/codeql-action/init@v3")]),
    # mentions
    ("cc @alice please", [_id("alice")]),
    ("cc @alice, @bob and (@carol)", [_id("alice"), _id("bob"), _id("carol")]),
    ("@here the build is red", [_id("here")]),
    ("page @oncall-team now", [_id("oncall-team")]),
    ("page @oncall-team-7 now", [_id("oncall-team-7")]),
    ("@alice's review", [_id("alice")]),
    ("@property\ndef size(self): ...", [_id("property")]),
    ("cc @Alice", [("name", "Alice", "name", "Alice")]),
    ("npm i @types/node", [_id("types")]),
    ("email me @ alice", []),
    ("\x1b[0m@alice", [_id("alice")]),  # a CSI sequence before the "@" is control bytes
    ("\x1b[5@alice", []),  # the "@" is the final byte of a CSI sequence: no mention
    # user@host: the host is what it is alone; the user is a pin's name only before a version
    ("ssh deploy@prod now", []),
    ("ssh deploy@10.0.0.12", [_id("deploy"), _num("10.0.0.12")]),
    ("ssh deploy@web-3", [_id("web-3")]),
    # e-mail addresses are one identifier, as in grammar v3
    ("mail first-last@1password.com", [("identifier", "first-last@1password.com", "identifier",
                                        "first-last@1password.com")]),
    ("mail ops@latest.io", [("identifier", "ops@latest.io", "identifier", "ops@latest.io")]),
]


@pytest.mark.parametrize("text, expected", V6_CASES, ids=[t for t, _ in V6_CASES])
def test_v6_pins_and_mentions(impl, text, expected):
    assert [s for s in without_pin_kv(spans(impl, text)) if s[0] != "quote"] == expected


@pytest.mark.parametrize("text", [
    "a/b@1", "a-b@1", "a/b-c@v2", "a-/b@1", "a/-b@1", "a//b@1", "a--b@1", "-a@1", "/a@1", "@a", "@", "@@a", "a@@1",
    "a@^", "a@^1", "a@~v1", "a@^sha1:a", "a@latest", "a@latestx", "a@latest.x", "a@latest-", "a@latest-x", "a@HEAD",
    "a@Head", "@a-b", "@a-", "@a-b/c@1", "x@a-b", "é@1", "é-é@main", "@é", "a@b@1", "a/b@c/d@1", "a-b-c-d",
    "\x1b[@a", "\x1b[0m@a", "x\x1b[0m@a", "\x1b[1m1@a", "a@\x1b[0m1",
])
def test_v6_edges_agree(impl, text):
    data = text.encode()
    assert_same_columns(columns(impl, data), _scanner_py.scan(data, 10**7, shortcut=False), data)


def test_the_shortcut_keeps_mentions(impl):
    # the reference's skip of plain lower-case words stops after an "@"
    data = b"cc @alice, then @bob and x@latest now"
    cols, plain = _scanner_py.scan(data, 100, shortcut=True), _scanner_py.scan(data, 100, shortcut=False)
    assert_same_columns(cols, plain, data)
    assert [s[1] for s in without_pin_kv(spans(impl, data))] == ["alice", "bob", "x", "latest"]


_V6_PIECES = st.sampled_from([
    "@", "@@", "/", "-", "--", ".", "lodash", "left", "pad", "a", "é", "X", "Foo", "my-Org", "1", "a1",
    "@4.17.21", "@v4", "@^4", "@~1", "@^", "@sha256:", "@sha1:f", "@latest", "@main", "@HEAD", "@dev",
    "@develop", "@rc", "@mainly", "latest", "main", "@alice", "@alice-bob", "@here", "deploy@10.0.0.12",
    "user@host", "oncall@acme.io", "\x1b[0m", "\x1b[5@", " ", "\n", ":", "=", "'", "(", "x/", "/x", "-x",
])
v6_text = st.lists(_V6_PIECES, max_size=30).map("".join)


@DIFFERENTIAL
@given(v6_text)
def test_differential_v6_pieces(impl, text):
    data = text.encode()
    assert_same_columns(columns(impl, data), _scanner_py.scan(data, 10**7, shortcut=False), data)


class _CountingPattern:
    """A compiled pattern that adds up the bytes its matches cover."""

    def __init__(self, pattern: re.Pattern) -> None:
        self.pattern = pattern
        self.calls = 0
        self.covered = 0

    def match(self, data, pos=0, *rest):
        self.calls += 1
        m = self.pattern.match(data, pos, *rest)
        if m is not None:
            self.covered += m.end() - m.start()
        return m


@pytest.mark.parametrize("unit", [b"a-", b"a/", b"a-b/", b"a/b-c-", b"@a-"])
def test_a_pin_name_run_is_read_once(monkeypatch, unit):
    """Each run of words joined by "/" or "-" is read for a pin once, from its first plain word,
    not again from each of its words (that would be quadratic in a long run)."""
    counter = _CountingPattern(_scanner_py._NAME_RUN)
    monkeypatch.setattr(_scanner_py, "_NAME_RUN", counter)
    for n in (1000, 4000):
        counter.calls = counter.covered = 0
        data = unit * n + b"x y"
        _scanner_py.scan(data, 10**7, shortcut=False)
        assert counter.covered <= len(data)


# -- the gate --------------------------------------------------------------------------------------


RENAMED = [
    # v5's limits: the owner, the scope, the left of left-pad, a name pinned to a word ref
    ("actions/checkout@v4", "evilcorp/checkout@v4", "evilcorp"),
    ("@types/node@20.11.5", "@typez/node@20.11.5", "typez"),
    ("left-pad@1.3.0", "right-pad@1.3.0", "right-pad"),
    ("left-pad@1.3.0", "left-pod@1.3.0", "left-pod"),
    ("lodash@latest", "underscore@latest", "underscore"),
    ("lodash@latest", "lodash@next", "next"),
    ("actions/checkout@main", "evilcorp/checkout@main", "evilcorp"),
    ("lodash@^4.17.21", "underscore@^4.17.21", "underscore"),
    # mentions
    ("@alice", "@bob", "bob"),
    ("@oncall-team", "@infra-team", "infra-team"),
]


@pytest.mark.parametrize("old, new, value", RENAMED)
def test_a_renamed_pin_or_mention_is_refused(old, new, value):
    src = f"Pinned {old} in the lockfile."
    find(_rewrite(src, f"Pinned {new} in the lockfile."), "I2", value=value)
    find(_summarize(src, f"The lockfile pins {new} [src:tool:c1]."), "I1", block="s", value=value)


@pytest.mark.parametrize("old, summary_text", [
    ("actions/checkout@v4", "The workflow uses actions/checkout@v4 [src:tool:c1]."),
    ("actions/checkout@v4", "The workflow pins checkout to v4 [src:tool:c1]."),
    ("actions/checkout@v4", "The workflow uses checkout@v4 [src:tool:c1]."),
    ("actions/checkout@v4", "The workflow uses actions/checkout v4 [src:tool:c1]."),
    ("@types/node@20.11.5", "It installs @types/node 20.11.5 [src:tool:c1]."),
    ("@types/node@20.11.5", "It installs node@20.11.5 types [src:tool:c1]."),
    ("left-pad@1.3.0", "It uses left-pad@1.3.0 [src:tool:c1]."),
    ("left-pad@1.3.0", "It uses left-pad 1.3.0 [src:tool:c1]."),
    ("lodash@latest", "It tracks lodash@latest [src:tool:c1]."),
    ("lodash@latest", "It tracks the latest lodash [src:tool:c1]."),
    ("lodash@^4.17.21", "It uses lodash 4.17.21 [src:tool:c1]."),
    ("@alice", "@alice approved it [src:tool:c1]."),
    ("@alice", "alice approved it [src:tool:c1]."),
])
def test_an_honest_pin_or_mention_is_accepted(old, summary_text):
    src = f"Pinned {old} in the lockfile."
    assert_accepted(_rewrite(src, f"Pinned  {old}  in the lockfile.\n"))
    assert_accepted(_summarize(src, summary_text), "lossy")


def test_decorators_survive_a_reflow_and_a_summary():
    src = "class Box:\n    @property\n    def size(self):\n        return 3\n"
    assert_accepted(_rewrite(src, src.replace("    ", "  ")))
    assert_accepted(_summarize(src, "size is a @property of Box that returns 3 [src:tool:c1]."), "lossy")
    find(_rewrite(src, src.replace("@property", "@cached_property")), "I2", value="cached_property")


# -- red team 100, F11: the user and host of a URL in a summary ---------------------------------------

URL_SOURCES = {
    "ssh": "remote: ssh://deploy@10.0.0.12:22/srv/app",
    "postgres": "DATABASE_URL=postgres://app:s3cret@10.0.0.5:5432/db",
    "git": "git clone ssh://git@git.corp.io:2222/org/repo.git",
    "json": '{"stdout": "remote: ssh://deploy@10.0.0.12:22/srv/app\\n"}',
}


@pytest.mark.parametrize("source, summary_text", [
    ("ssh", "The remote is deploy@10.0.0.12 [src:tool:c1]."),
    ("ssh", "The remote host is 10.0.0.12, port 22 [src:tool:c1]."),
    ("postgres", "The app connects as app@10.0.0.5 [src:tool:c1]."),
    ("postgres", "It connects to 10.0.0.5 on port 5432 [src:tool:c1]."),
    ("git", "Cloned from git.corp.io port 2222 [src:tool:c1]."),
    ("json", "The remote is deploy@10.0.0.12 [src:tool:c1]."),
])
def test_the_user_host_and_port_of_a_source_url_ground_a_summary(source, summary_text):
    # red team 100, F11: the host after "@" is a fact (grammar v4), and so is the user before a
    # version-like host (v5); glued to the URL's other bytes, the literal search found neither
    assert_accepted(_summarize(URL_SOURCES[source], summary_text), "lossy")


@pytest.mark.parametrize("source, summary_text, value", [
    ("ssh", "The remote is root@10.0.0.12 [src:tool:c1].", "root"),
    ("ssh", "The remote host is 10.0.0.13 [src:tool:c1].", "10.0.0.13"),
    ("ssh", "The remote listens on port 2222 [src:tool:c1].", "2222"),
    ("postgres", "It connects as app@10.0.0.5 with s3cret [src:tool:c1].", "s3cret"),
    ("git", "Cloned from git.corp.com [src:tool:c1].", "git.corp.com"),
])
def test_a_changed_piece_of_a_source_url_is_still_refused(source, summary_text, value):
    find(_summarize(URL_SOURCES[source], summary_text), "I1", block="s", value=value)


# -- red team 94, F07: a formatter quoting a YAML or kv value ------------------------------------------


@pytest.mark.parametrize("before, after", [
    ("region: eu-west-1\nretries: 3\n", 'region: "eu-west-1"\nretries: 3\n'),
    ("name: api\nimage: nginx:1.25\n", "name: 'api'\nimage: 'nginx:1.25'\n"),
    ("url: https://x.io/a?b=1\n", 'url: "https://x.io/a?b=1"\n'),
    ("region=eu-west-1\n", 'region="eu-west-1"\n'),
    # and the quotes taken off again
    ('region: "eu-west-1"\nretries: 3\n', "region: eu-west-1\nretries: 3\n"),
    ("image: 'nginx:1.25'\n", "image: nginx:1.25\n"),
])
def test_quoting_a_kv_value_is_lossless(before, after):
    # the pair says the value; the quotation and the facts inside it add no claim (before: the
    # quotation and eu-west-1 were refused as introduced, or as dropped the other way)
    assert_accepted(_rewrite(before, after))


@pytest.mark.parametrize("before, after, value", [
    # the value changed as it was quoted
    ("region: eu-west-1\n", 'region: "eu-west-2"\n', "eu-west-2"),
    ("region: eu-west-1\n", 'region: "eu-west-1 or 2"\n', "2"),
    ('region: "eu-west-1"\n', "region: eu-west-2\n", "eu-west-2"),
    # a fact pre held elsewhere is held by its copy inside the new quotes: the sentence that said
    # it dropped is still a drop, failing closed (the quoted value is refused with it)
    ("image: nginx:1.25\nnote: pinned 1.25\n", 'image: "nginx:1.25"\n', "nginx:1.25"),
    # every copy of a dropped fact must have stood inside quotes whose pair post holds
    ("image: 'nginx:1.25'\nnote: pinned 1.25\n", "image: nginx:1.25\n", "1.25"),
    # a pair inside the quoted value is a pair of its own
    ('cmd: "retries=5"\n', "cmd: retries=5\n", "5"),
])
def test_a_changed_value_or_a_drop_beside_the_quotes_is_still_refused(before, after, value):
    find(_rewrite(before, after), "I2", value=value)


def test_a_quoted_value_holding_many_facts_is_read_once(monkeypatch):
    """Each introduced fact inside a newly quoted value asks whether all of the value's facts
    are new; the answer is kept per value, so m facts cost O(m) look-ups, not O(m^2)."""
    from provgate import gate as gate_module

    calls = []
    index_of = gate_module._RowMap.index_of

    def counting(self, block, row):
        calls.append(1)
        return index_of(self, block, row)

    monkeypatch.setattr(gate_module._RowMap, "index_of", counting)
    for m in (200, 800):
        value = ":".join(f"x{i}" for i in range(m))  # a bare value; quoted, m identifiers inside
        calls.clear()
        assert_accepted(_rewrite(f"a: {value}\n", f'a: "{value}"\n'))
        assert len(calls) <= 3 * m + 10
