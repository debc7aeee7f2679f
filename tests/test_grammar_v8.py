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
from scanner_helpers import DIFFERENTIAL, assert_same_columns, columns, spans
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
    "lodash.merge@4.6.2", "github/codeql-action/init@v3", "the latest lodash",
])
def test_no_pin_no_pin_kv(impl, text):
    # addresses, mentions, non-pins and what v7 left as limits hold no pin kv fact
    assert [s for s in _pin_kvs(impl, text) if s[1].startswith(s[2] + "@")] == []


def test_a_non_plain_last_part_keys_nothing_of_its_own(impl):
    # the last part keys the ref only when it is a plain word (read as a pin's part, v6)
    assert _pin_kvs(impl, "uses my-org/FooBar@v1") == [_kv("my-org/FooBar@v1", "my-org/FooBar", "v1")]


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


def test_a_user_and_host_of_two_urls_do_not_ground_the_pair():
    # the pair is grounded by one URL whose user and host they are, not by pieces of two
    src = "a: ssh://deploy@10.0.0.12:22/x\nb: ssh://admin@10.0.0.13:22/y\n"
    assert_accepted(_summarize(src, f"The remote is admin@10.0.0.13 {C}."), "lossy")
    find(_summarize(src, f"The remote is admin@10.0.0.12 {C}."), "I1", block="s")


# -- parity and linearity ---------------------------------------------------------------------------

_V8_PIECES = st.sampled_from([
    "@", "/", "-", ".", "+", "_", "lodash", "left", "pad", "a", "X", "Foo", "my-org", "1", "a1",
    "@4.17.21", "@v4", "@^4", "@~1.2", "@^", "@sha256:", "@sha1:f", "@sha512:0a", "@sha256", "@latest", "@main",
    "@1.3.0-rc.1", "+b.2", "@alice", "deploy@10.0.0.12", "user@host", "oncall@acme.io", "\x1b[0m",
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
