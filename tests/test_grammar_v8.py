"""Grammar v8 (EXTRACTOR_VERSION 8): a pin is a kv fact, its name keying its ref (red teams 105
F02 and 107 F05).

v5 to v7 read ``lodash@4.17.21`` as the identifier ``lodash`` and the number ``4.17.21``: two
facts that nothing bound, so versions traded between two pins, a summary pairing one pin's name
with another's version, owners traded between two actions and hosts traded between two
``user@host`` pairs kept every fact and passed. Now the pin is also the kv fact ``lodash =
4.17.21`` (a name of two or more "/" parts keys its ref twice: the whole name and its last
part), checked as any ``key=value`` is. Scanner cases run on both implementations (``impl``);
the gate cases run on the one provgate loads (the suite runs again with
PROVGATE_NO_EXTENSIONS=1). docs/grammar.md ("@ pins and mentions") has the rule and its limits."""

from __future__ import annotations

import pytest
from conftest import IMPLEMENTATIONS, load_implementation
from gate_helpers import assert_accepted, find
from hypothesis import given
from hypothesis import strategies as st
from scanner_helpers import DIFFERENTIAL, assert_same_columns, columns, is_pin_kv, spans
from test_grammar_v4 import _rewrite, _summarize

from provgate import _scanner_py
from provgate.facts import EXTRACTOR_VERSION

C = "[src:tool:c1]"


@pytest.fixture(params=IMPLEMENTATIONS, scope="module")
def impl(request):
    return load_implementation("scanner", "_scanner_py", request.param)


def test_extractor_version_is_8():
    # cached fact tables are keyed by it: v8 must not read v7 tables, which lack the pins' kv facts
    assert EXTRACTOR_VERSION >= 8


def _kv(text, key, value):
    return ("kv", text, key, value)


def _pin_kvs(impl, text):
    return [s for s in spans(impl, text) if s[0] == "kv"]


PIN_KV_CASES = [
    ("Pinned lodash@4.17.21 and react@18.2.0.",
     [_kv("lodash@4.17.21", "lodash", "4.17.21"), _kv("react@18.2.0", "react", "18.2.0")]),
    ("uses actions/checkout@v4 here",
     [_kv("actions/checkout@v4", "actions/checkout", "v4"), _kv("checkout@v4", "checkout", "v4")]),
    ("uses docker/build-push-action@v5",
     [_kv("docker/build-push-action@v5", "docker/build-push-action", "v5"),
      _kv("build-push-action@v5", "build-push-action", "v5")]),
    ("npm i @types/node@^20.11.5",
     [_kv("types/node@^20.11.5", "types/node", "^20.11.5"), _kv("node@^20.11.5", "node", "^20.11.5")]),
    ("npm i react@~18.2.0", [_kv("react@~18.2.0", "react", "~18.2.0")]),
    ("ssh deploy@10.0.0.12: ok", [_kv("deploy@10.0.0.12", "deploy", "10.0.0.12")]),
    ("pull nginx@sha256:0123abcd now", [_kv("nginx@sha256:0123abcd", "nginx", "sha256:0123abcd")]),
    ("npm i lodash@latest", [_kv("lodash@latest", "lodash", "latest")]),
    ("npm i left-pad@1.3.0-rc.1+b.2.", [_kv("left-pad@1.3.0-rc.1+b.2", "left-pad", "1.3.0-rc.1+b.2")]),
    ("npm i react@next, vue@beta", [_kv("react@next", "react", "next"), _kv("vue@beta", "vue", "beta")]),
]


@pytest.mark.parametrize("text, expected", PIN_KV_CASES, ids=[t for t, _ in PIN_KV_CASES])
def test_a_pin_is_a_kv_fact_its_name_keys_its_ref(impl, text, expected):
    assert _pin_kvs(impl, text) == expected


def test_the_pin_keeps_its_v7_facts(impl):
    # the kv fact comes in addition: the name's parts and the version are still facts of their own
    got = spans(impl, "uses actions/checkout@v4 here")
    assert [s for s in got if s[0] != "kv"] == [
        ("identifier", "actions", "identifier", "actions"), ("identifier", "checkout", "identifier", "checkout"),
        ("number", "v4", "number", "v4")]


@pytest.mark.parametrize("text", [
    "mail oncall@acme.io now", "email=a@b.io", "user@host", "a@b.c", "@alice and @bob", "x@mainline",
    "lodash.merge@4.6.2", "github/codeql-action/init@v3", "the latest lodash", "timeout: 30s",
    "if a===1", "x==y", "std::vector", "at 10:30", "see note:here", "x@==1", "x@>=",
])
def test_no_pin_no_pin_kv(impl, text):
    # addresses, mentions, non-pins and what v7 left as limits hold no pin kv fact
    assert [s for s in _pin_kvs(impl, text) if is_pin_kv(s)] == []


def test_a_non_plain_last_part_keys_nothing_of_its_own(impl):
    # the last part keys the ref only when it is a plain word (read as a pin's part, v6)
    assert _pin_kvs(impl, "uses my-org/FooBar@v1") == [_kv("my-org/FooBar@v1", "my-org/FooBar", "v1")]


# -- other notations (red team 107 F03): a range operator after "@", pip's "==", an image tag ":" --------

OTHER_FORMS = [
    ("npm i lodash@>=4.17.21", [_kv("lodash@>=4.17.21", "lodash", ">=4.17.21")]),
    ("npm i lodash@<=4 lodash@>4 lodash@<5 lodash@=4.17.21",
     [_kv("lodash@<=4", "lodash", "<=4"), _kv("lodash@>4", "lodash", ">4"), _kv("lodash@<5", "lodash", "<5"),
      _kv("lodash@=4.17.21", "lodash", "=4.17.21")]),
    ("pip install requests==2.31.0 typing-extensions==4.9.0",
     [_kv("requests==2.31.0", "requests", "2.31.0"), _kv("typing-extensions==4.9.0", "typing-extensions", "4.9.0")]),
    ("docker pull nginx:1.25 and python:3.11-slim, nginx:latest",
     [_kv("nginx:1.25", "nginx", "1.25"), _kv("python:3.11-slim", "python", "3.11-slim"),
      _kv("nginx:latest", "nginx", "latest")]),
    ("FROM library/node:20-alpine",
     [_kv("library/node:20-alpine", "library/node", "20-alpine"), _kv("node:20-alpine", "node", "20-alpine")]),
    ("listening on localhost:8080", [_kv("localhost:8080", "localhost", "8080")]),
]


@pytest.mark.parametrize("text, expected", OTHER_FORMS, ids=[t for t, _ in OTHER_FORMS])
def test_other_pin_notations_are_kv_facts_too(impl, text, expected):
    assert _pin_kvs(impl, text) == expected


def test_other_notations_make_the_name_an_identifier(impl):
    got = [s[1] for s in spans(impl, "pip install requests==2.31.0; docker pull nginx:1.25") if s[0] == "identifier"]
    assert got == ["requests", "nginx"]


@pytest.mark.parametrize("before, after, value", [
    ("Ran npm install lodash@>=4.17.21 in web/.", "Ran npm install underscore@>=4.17.21 in web/.", "underscore"),
    ("Ran npm install lodash@=4.17.21 in web/.", "Ran npm install underscore@=4.17.21 in web/.", "underscore"),
    ("Ran npm install lodash@<5 in web/.", "Ran npm install underscore@<5 in web/.", "underscore"),
    ("pip install requests==2.31.0", "pip install httpx==2.31.0", "httpx"),
    ("requests==2.31.0\nhttpx==0.27.0\n", "requests==0.27.0\nhttpx==2.31.0\n", "0.27.0"),
    ("docker pull nginx:1.25", "docker pull httpd:1.25", "httpd"),
    ("FROM python:3.11-slim", "FROM pypy:3.11-slim", "pypy"),
    ("FROM python:3.11-slim", "FROM python:3.11-bookworm", "3.11-bookworm"),
    ("docker pull nginx:latest", "docker pull nginx:stable", "stable"),
])
def test_rt107_f03_a_renamed_pin_of_another_notation_is_refused(before, after, value):
    find(_rewrite(before, after), "I2", value=value)
    find(_summarize(before, f"{after} {C}"), "I1", block="s", value=value)


@pytest.mark.parametrize("source, summary_text", [
    ("requests==2.31.0\nhttpx==0.27.0\n", f"requests is pinned at 2.31.0 {C}."),
    ("requests==2.31.0\nhttpx==0.27.0\n", f"It pins requests==2.31.0 {C}."),
    ("requests==2.31.0\nhttpx==0.27.0\n", f"It installs requests@2.31.0 {C}."),
    ("docker pull nginx:1.25", f"It pulled nginx:1.25 {C}."),
    ("docker pull nginx:1.25", f"It pulled nginx 1.25 {C}."),
    ("listening on localhost:8080", f"It listens on port 8080 of localhost {C}."),
])
def test_an_honest_summary_of_other_notations_is_accepted(source, summary_text):
    assert_accepted(_summarize(source, summary_text), "lossy")


# -- colour codes around the "@" (red team 105 F06) --------------------------------------------------

E = "\x1b"
COLOURED = [
    (f"installed {E}[1mlodash{E}[0m{E}[2m@4.17.21{E}[0m\n", "installed lodash@4.17.21\n"),
    (f"+ lodash@{E}[2m4.17.21{E}[22m\n", "+ lodash@4.17.21\n"),
    (f"pulled {E}[1mnginx{E}[0m:{E}[2m1.25{E}[0m\n", "pulled nginx:1.25\n"),
]


@pytest.mark.parametrize("coloured, plain", COLOURED)
def test_a_colour_code_around_the_at_keeps_the_pin(impl, coloured, plain):
    def facts(text):
        return sorted((k, key, v) for k, _, key, v in spans(impl, text))

    assert facts(coloured) == facts(plain)
    assert ("identifier", "identifier", "lodash" if "lodash" in plain else "nginx") in facts(coloured)


@pytest.mark.parametrize("coloured, plain", COLOURED)
def test_rt105_f06_a_coloured_pin_renamed_is_refused_and_stripping_the_codes_accepted(coloured, plain):
    new = "underscore" if "lodash" in plain else "httpd"
    find(_rewrite(coloured, coloured.replace("lodash", new).replace("nginx", new)), "I2", value=new)
    assert_accepted(_rewrite(coloured, plain))


def test_control_a_colour_code_after_a_plain_word_changes_nothing(impl):
    # the shortcut no longer skips a lower-case word before an ESC; what it reads is the same
    data = f"the {E}[1mword{E}[0m and more {E}[2m3 passed{E}[0m".encode()
    assert [s[1] for s in spans(impl, data)] == ["3"]
    assert_same_columns(_scanner_py.scan(data, 100, shortcut=True), _scanner_py.scan(data, 100, shortcut=False), data)


# -- the gate: red team 105 F02, red team 107 F05 ----------------------------------------------------

SRC = "Pinned lodash@4.17.21 and react@18.2.0 in the lockfile."
ACTIONS = "uses actions/checkout@v4 and evilcorp/setup-node@v1"
HOSTS = "ssh deploy@10.0.0.12: ok\nssh admin@10.0.0.13: Permission denied\n"


@pytest.mark.parametrize("before, after, value", [
    (SRC, "Pinned lodash@18.2.0 and react@4.17.21 in the lockfile.", "18.2.0"),
    (ACTIONS, "uses evilcorp/checkout@v4 and actions/setup-node@v1", "v4"),
    ("uses actions/checkout@v4 and evilcorp/setup-node@v4", "uses evilcorp/checkout@v4 and actions/setup-node@v4", "v4"),
    (HOSTS, "ssh deploy@10.0.0.13: ok\nssh admin@10.0.0.12: Permission denied\n", "10.0.0.13"),
    ("npm i lodash@^4.17.21", "npm i lodash@~4.17.21", "~4.17.21"),
])
def test_parts_traded_between_pins_are_refused_on_a_rewrite(before, after, value):
    find(_rewrite(before, after), "I2", value=value)


@pytest.mark.parametrize("source, summary_text, value", [
    (SRC, f"The lockfile pins lodash@18.2.0 and react@4.17.21 {C}.", "18.2.0"),
    ("removed moment@2.29.4\nadded dayjs@1.11.10\n", f"The diff added moment@1.11.10 {C}.", "1.11.10"),
    (ACTIONS, f"The workflow runs evilcorp/checkout@v4 {C}.", "v4"),
    (HOSTS, f"It logged in as admin@10.0.0.12 {C}.", "10.0.0.12"),
])
def test_a_summary_pairing_one_pins_name_with_anothers_ref_is_refused(source, summary_text, value):
    find(_summarize(source, summary_text), "I1", block="s", value=value)


def test_control_a_kv_swap_was_refused_before_as_now():
    find(_rewrite("Use retries=3 and workers=5.", "Use retries=5 and workers=3."), "I2", value="5")


@pytest.mark.parametrize("source, summary_text", [
    (SRC, f"The lockfile pins lodash@4.17.21 and react@18.2.0 {C}."),
    (SRC, f"The lockfile pins react@18.2.0 {C}."),
    (ACTIONS, f"The workflow runs checkout@v4 and setup-node@v1 {C}."),
    (ACTIONS, f"The workflow runs actions/checkout@v4 {C}."),
    (HOSTS, f"deploy@10.0.0.12 got in, admin@10.0.0.13 did not {C}."),
    (SRC, f"lodash is pinned to 4.17.21 {C}."),
    ('{"dependencies": {"lodash": "4.17.21"}}', f"It depends on lodash@4.17.21 {C}."),
    ("remote: ssh://deploy@10.0.0.12:22/srv/app", f"The remote is deploy@10.0.0.12 {C}."),
])
def test_an_honest_summary_of_pins_is_accepted(source, summary_text):
    assert_accepted(_summarize(source, summary_text), "lossy")


@pytest.mark.parametrize("before, after", [
    (SRC, "Pinned react@18.2.0 and lodash@4.17.21 in the lockfile."),
    (SRC, SRC.replace(" ", "  ")),
    (ACTIONS, "uses evilcorp/setup-node@v1 and actions/checkout@v4"),
])
def test_an_honest_rewrite_of_pins_is_accepted(before, after):
    assert_accepted(_rewrite(before, after))


@pytest.mark.parametrize("source, summary_text", [
    ("Accepted publickey for deploy from 10.0.0.12 port 51234", f"deploy@10.0.0.12 logged in {C}."),
    ("lodash 4.17.21 is installed", f"It has lodash@4.17.21 {C}."),
    ("lodash is pinned to 4.17.21", f"It has lodash@4.17.21 {C}."),
    ("FROM nginx version 1.25", f"The image is nginx:1.25 {C}."),
    ("Server listening on localhost port 8080", f"It listens on localhost:8080 {C}."),
    ("  Local:   http://localhost:5173/\n", f"The dev server runs at localhost:5173 {C}."),
])
def test_a_pin_a_source_says_in_words_is_grounded(source, summary_text):
    # rt105 F07's control: no source keys the name, and the name is followed, past words of
    # letters, by the ref
    assert_accepted(_summarize(source, summary_text), "lossy")


@pytest.mark.parametrize("source, summary_text, value", [
    ("deploy 10.0.0.12 admin 10.0.0.13", f"deploy@10.0.0.13 got in {C}.", "10.0.0.13"),
    ("deploy from 10.0.0.12; admin from 10.0.0.13", f"admin@10.0.0.12 got in {C}.", "10.0.0.12"),
    ("lodash and react 18.2.0", f"It has lodash@18.2.0 {C}.", "18.2.0"),
    # a source that keys the name decides by its pairs alone
    ("Pinned lodash@4.17.21; the docs say lodash 18.2.0 is next", f"It has lodash@18.2.0 {C}.", "18.2.0"),
])
def test_a_pin_in_words_is_not_grounded_by_anothers_ref(source, summary_text, value):
    find(_summarize(source, summary_text), "I1", block="s", value=value)


def test_pins_in_words_read_each_source_once(monkeypatch):
    # n summary pins left ungrounded, one source of n lines: the source is split once, not n times
    import provgate.gate as gate_module

    class _Counting:
        def __init__(self, real):
            self.real, self.calls = real, 0

        def split(self, line):
            self.calls += 1
            return self.real.split(line)

    for n in (20, 200):
        counting = _Counting(gate_module._PIN_PROSE_SPLIT)
        monkeypatch.setattr(gate_module, "_PIN_PROSE_SPLIT", counting)
        source = "".join(f"pkg{i} is at {i}.0.1\n" for i in range(n))
        text = " ".join(f"pkg{i}@{i}.0.2" for i in range(n))
        find(_summarize(source, f"{text} {C}."), "I1", block="s")
        assert counting.calls <= n + 1


@pytest.mark.parametrize("before, after", [
    ("name: api\nimage: nginx:1.25\n", "name: api\nimage: 'nginx:1.25'\n"),
    ("image: \"nginx:1.25\"\n", "image: nginx:1.25\n"),
])
def test_a_pin_inside_a_quoted_kv_value_restates_nothing(before, after):
    assert_accepted(_rewrite(before, after))


def test_control_a_pin_inside_a_quoted_kv_value_renamed_is_refused():
    find(_rewrite("image: 'nginx:1.25'\n", "image: 'httpd:1.25'\n"), "I2")


def test_a_user_and_host_of_two_urls_do_not_ground_the_pair():
    # the pair is grounded by one URL whose user and host they are, not by pieces of two
    src = "a: ssh://deploy@10.0.0.12:22/x\nb: ssh://admin@10.0.0.13:22/y\n"
    assert_accepted(_summarize(src, f"The remote is admin@10.0.0.13 {C}."), "lossy")
    find(_summarize(src, f"The remote is admin@10.0.0.12 {C}."), "I1", block="s")


# -- parity and linearity ---------------------------------------------------------------------------

_V8_PIECES = st.sampled_from([
    "@", "/", "-", ".", "+", "_", "lodash", "left", "pad", "a", "X", "Foo", "my-org", "1", "a1",
    "@4.17.21", "@v4", "@^4", "@~1.2", "@^", "@sha256:", "@sha1:f", "@sha512:0a", "@sha256", "@latest", "@main",
    "@1.3.0-rc.1", "+b.2", "@alice", "==", "==1.2", ":", ":1.25", ":latest", "@>=1", "@<=2", "@>", "@<3",
    "@=4", "=", "<", ">", "v", "main", "\x1b[2m", "\x1b[", "\x1b", "\x1b[22m@", "deploy@10.0.0.12", "user@host", "oncall@acme.io", "\x1b[0m",
    " ", "\n", ":", "=", "'", "(", "x/", "/x", "-x", "é",
])
v8_text = st.lists(_V8_PIECES, max_size=30).map("".join)


@DIFFERENTIAL
@given(v8_text)
def test_differential_v8_pieces(impl, text):
    data = text.encode()
    assert_same_columns(columns(impl, data), _scanner_py.scan(data, 10**7, shortcut=False), data)


def test_the_shortcut_keeps_pin_kv_facts():
    data = b"npm i lodash@4.17.21 then actions/checkout@v4, deploy@10.0.0.12 ok"
    assert_same_columns(_scanner_py.scan(data, 100, shortcut=True), _scanner_py.scan(data, 100, shortcut=False), data)


class _CountingPattern:
    """A compiled pattern that counts its matches and the bytes they cover."""

    def __init__(self, real):
        self.real, self.calls, self.covered = real, 0, 0

    def match(self, data, pos=0):
        m = self.real.match(data, pos)
        self.calls += 1
        self.covered += (m.end() - pos) if m is not None else 0
        return m


def test_each_pins_ref_is_read_once(monkeypatch):
    # one read of the ref per pin, over the ref's own bytes: n pins, O(n) calls and bytes
    for n in (100, 1000):
        counting = _CountingPattern(_scanner_py._PIN_VALUE)
        monkeypatch.setattr(_scanner_py, "_PIN_VALUE", counting)
        data = b" ".join(b"my-org/pkg@1.2.%d" % i for i in range(n))
        _scanner_py.scan(data, 10**7)
        assert counting.calls == n
        assert counting.covered <= 8 * n
