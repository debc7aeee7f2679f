"""The grounded-span scanner: per-kind examples and non-examples, differential tests of the
native scanner against the reference (span for span), invariants, framing, UTF-8 validation
and bad or pathological input. Every test runs against both implementations."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap
from unittest import mock

import numpy as np
import pytest
from budget import examples
from conftest import IMPLEMENTATIONS, NO_EXTENSIONS, load_implementation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scanner_helpers import (
    DIFFERENTIAL,
    all_text,
    any_bytes,
    assert_same_columns,
    backtick_lines,
    backtick_text,
    columns,
    hostile_backtick_runs,
    rows,
    spans,
    unicode_text,
)

from provgate import _scanner_py
from provgate.errors import InvalidArgumentError, LimitExceededError, SpanError


@pytest.fixture(params=IMPLEMENTATIONS, scope="module")
def impl(request):
    return load_implementation("scanner", "_scanner_py", request.param)


def test_native_loaded():
    switch = importlib.import_module("provgate._scanner")
    if NO_EXTENSIONS:
        assert switch.IMPLEMENTATION == "reference"
        assert switch.scan is _scanner_py.scan
    else:
        native = importlib.import_module("provgate._ext.scanner")
        assert switch.IMPLEMENTATION == "native"
        assert switch.scan is native.scan
        assert native.IMPLEMENTATION == "native"


def test_number_words_agree():
    if NO_EXTENSIONS:
        return
    native = importlib.import_module("provgate._ext.scanner")
    assert native.NUMBER_WORDS == _scanner_py.NUMBER_WORDS
    assert {w: b"%d" % v for w, v in native.CARDINALS.items()} == _scanner_py.CARDINALS
    assert native.TITLES == _scanner_py.TITLES
    assert native.KIND_NAMES == _scanner_py.KIND_NAMES


# -- hand-checked examples, one group per kind (expected spans read off docs/grammar.md) -----

EXPECTED = [
    (
        '1 22 333 1,000 1,000,000 12,345.67 1,0000 1,2,3',
        [
            ('number', '1', 'number', '1'),
            ('number', '22', 'number', '22'),
            ('number', '333', 'number', '333'),
            ('number', '1,000', 'number', '1000'),
            ('number', '1,000,000', 'number', '1000000'),
            ('number', '12,345.67', 'number', '12345.67'),
            ('number', '1', 'number', '1'),
            ('number', '0000', 'number', '0000'),
            ('number', '1', 'number', '1'),
            ('number', '2', 'number', '2'),
            ('number', '3', 'number', '3'),
        ],
    ),
    (
        '+5 -5 -0 -0.0 -0% +0x1F -.5 .5',
        [
            ('number', '+5', 'number', '5'),
            ('number', '-5', 'number', '-5'),
            ('number', '-0', 'number', '0'),
            ('number', '-0.0', 'number', '0.0'),
            ('number', '-0%', 'number', '0%'),
            ('number', '+0x1F', 'number', '0x1f'),
            ('number', '-.5', 'number', '-.5'),
            ('number', '.5', 'number', '.5'),
        ],
    ),
    (
        '0xFF 0Xab 3.10 3.1 1.2.3 10.0.0.1 v2 v2.0.0rc1 V8',
        [
            ('number', '0xFF', 'number', '0xff'),
            ('number', '0Xab', 'number', '0xab'),
            ('number', '3.10', 'number', '3.10'),
            ('number', '3.1', 'number', '3.1'),
            ('number', '1.2.3', 'number', '1.2.3'),
            ('number', '10.0.0.1', 'number', '10.0.0.1'),
            ('number', 'v2', 'number', 'v2'),
            ('number', 'v2.0.0rc1', 'number', 'v2.0.0rc1'),
            ('number', 'V8', 'number', 'V8'),
        ],
    ),
    (
        '30s 512MB 2nd 1990s 1e10 1.5e-3 4K 50% 10x',
        [
            ('number', '30s', 'number', '30s'),
            ('number', '512MB', 'number', '512MB'),
            ('number', '2nd', 'number', '2nd'),
            ('number', '1990s', 'number', '1990s'),
            ('number', '1e10', 'number', '1e10'),
            ('number', '1.5e-3', 'number', '1.5e-3'),
            ('number', '4K', 'number', '4K'),
            ('number', '50%', 'number', '50%'),
            ('number', '10x', 'number', '10x'),
        ],
    ),
    (
        'NaN nan inf Infinity',
        [
            ('identifier', 'NaN', 'identifier', 'NaN'),
            ('name', 'Infinity', 'name', 'Infinity'),
        ],
    ),
    (
        'zero one three twenty billion first tenth seventeen',
        [
            ('number', 'zero', 'number', 'zero'),
            ('number', 'one', 'number', 'one'),
            ('number', 'three', 'number', 'three'),
            ('number', 'twenty', 'number', 'twenty'),
            ('number', 'billion', 'number', 'billion'),
            ('number', 'first', 'number', 'first'),
            ('number', 'tenth', 'number', 'tenth'),
            ('number', 'seventeen', 'number', 'seventeen'),
        ],
    ),
    (
        'v3x3 abc3 3abc_d X-5 a.5',
        [
            ('number', 'v3x3', 'number', 'v3x3'),
            ('identifier', 'abc3', 'identifier', 'abc3'),
            ('identifier', '3abc_d', 'identifier', '3abc_d'),
            ('number', '5', 'number', '5'),
        ],
    ),
    (
        'snake_case CONSTANT_CASE maxRetries FactTable iPhone x86_64 Q4 __init__ ___',
        [
            ('identifier', 'snake_case', 'identifier', 'snake_case'),
            ('identifier', 'CONSTANT_CASE', 'identifier', 'CONSTANT_CASE'),
            ('identifier', 'maxRetries', 'identifier', 'maxRetries'),
            ('identifier', 'FactTable', 'identifier', 'FactTable'),
            ('identifier', 'iPhone', 'identifier', 'iPhone'),
            ('identifier', 'x86_64', 'identifier', 'x86_64'),
            ('identifier', 'Q4', 'identifier', 'Q4'),
            ('identifier', '__init__', 'identifier', '__init__'),
        ],
    ),
    (
        'os.path.join example.com e.g. U.S. a.b Node.js',
        [
            ('identifier', 'os.path.join', 'identifier', 'os.path.join'),
            ('identifier', 'example.com', 'identifier', 'example.com'),
            ('identifier', 'Node.js', 'identifier', 'Node.js'),
        ],
    ),
    (
        # hyphenated lower-case IDs: one identifier each, as written
        'region eu-west-1. us-east-2, req-8f3a2 api-server-7d9f utf-8 x86-64 gpt-4o sha-256 k8s-node-3',
        [
            ('identifier', 'eu-west-1', 'identifier', 'eu-west-1'),
            ('identifier', 'us-east-2', 'identifier', 'us-east-2'),
            ('identifier', 'req-8f3a2', 'identifier', 'req-8f3a2'),
            ('identifier', 'api-server-7d9f', 'identifier', 'api-server-7d9f'),
            ('identifier', 'utf-8', 'identifier', 'utf-8'),
            ('identifier', 'x86-64', 'identifier', 'x86-64'),
            ('identifier', 'gpt-4o', 'identifier', 'gpt-4o'),
            ('identifier', 'sha-256', 'identifier', 'sha-256'),
            ('identifier', 'k8s-node-3', 'identifier', 'k8s-node-3'),
        ],
    ),
    (
        # dots join runs too (versions, file names, host names); a trailing - or . is not part
        'gpt-4.5 claude-3.5-sonnet v1.2.3-rc.1 node-3.log eu-west-1.example.com eu-west-1- (b-12)',
        [
            ('identifier', 'gpt-4.5', 'identifier', 'gpt-4.5'),
            ('identifier', 'claude-3.5-sonnet', 'identifier', 'claude-3.5-sonnet'),
            ('identifier', 'v1.2.3-rc.1', 'identifier', 'v1.2.3-rc.1'),
            ('identifier', 'node-3.log', 'identifier', 'node-3.log'),
            ('identifier', 'eu-west-1.example.com', 'identifier', 'eu-west-1.example.com'),
            ('identifier', 'eu-west-1', 'identifier', 'eu-west-1'),
            ('identifier', 'b-12', 'identifier', 'b-12'),
        ],
    ),
    (
        # "--" ends a chain; a chain with a capital, "_" or non-ASCII byte is read as before, and
        # no ID starts right after a "-" that follows a word byte
        'eu--west-1 eu-west-1--x GPT-4 Node-3 eu-west-1A pre-COVID-19 X-eu-west-1 a_b-1 eu-west-1.Then',
        [
            ('identifier', 'west-1', 'identifier', 'west-1'),
            ('identifier', 'eu-west-1', 'identifier', 'eu-west-1'),
            ('name', 'GPT', 'name', 'GPT'),
            ('number', '4', 'number', '4'),
            ('name', 'Node', 'name', 'Node'),
            ('number', '3', 'number', '3'),
            ('number', '1A', 'number', '1A'),
            ('name', 'COVID', 'name', 'COVID'),
            ('number', '19', 'number', '19'),
            ('number', '1', 'number', '1'),
            ('identifier', 'a_b', 'identifier', 'a_b'),
            ('number', '1', 'number', '1'),
            ('number', '1', 'number', '1'),
        ],
    ),
    (
        # digit-led chains stay numbers; other lexemes keep their chains; a digest or UUID wins
        '2024-01-05 1-2 region=eu-west-1 a/eu-west-1/c --zone eu-west-1 cafe123-node-2 deadbee-1',
        [
            ('number', '2024', 'number', '2024'),
            ('number', '01', 'number', '01'),
            ('number', '05', 'number', '05'),
            ('number', '1', 'number', '1'),
            ('number', '2', 'number', '2'),
            ('kv', 'region=eu-west-1', 'region', 'eu-west-1'),
            ('path', 'a/eu-west-1/c', 'path', 'a/eu-west-1/c'),
            ('kv', '--zone eu-west-1', 'zone', 'eu-west-1'),
            ('digest', 'cafe123', 'digest', 'cafe123'),
            ('number', '2', 'number', '2'),
            ('identifier', 'deadbee-1', 'identifier', 'deadbee-1'),
        ],
    ),
    (
        # e-mail addresses: one identifier, the value lower-cased; sentence punctuation after
        # one is not part of it
        'mail oncall@acme.io. Oncall@ACME.io, a.b+c@x.co.uk first_last@x-y.io 12345@qq.com (bob@x.io)',
        [
            ('identifier', 'oncall@acme.io', 'identifier', 'oncall@acme.io'),
            ('identifier', 'Oncall@ACME.io', 'identifier', 'oncall@acme.io'),
            ('identifier', 'a.b+c@x.co.uk', 'identifier', 'a.b+c@x.co.uk'),
            ('identifier', 'first_last@x-y.io', 'identifier', 'first_last@x-y.io'),
            ('identifier', '12345@qq.com', 'identifier', '12345@qq.com'),
            ('identifier', 'bob@x.io', 'identifier', 'bob@x.io'),
        ],
    ),
    (
        # no TLD of two letters, no dot, a digit in the TLD: no address; a URL, a kv value or a
        # path holding one keeps it. What follows the "@" of a text that is no address starts
        # as usual (grammar v4, red team 94 F09: until v4 nothing started after any "@", so
        # 10.0.0.1 and y.io here were no facts); grammar v5: the word before "@" and a
        # version-like start is a pin's name, an identifier ("a" of a@10.0.0.1)
        'a@b.c user@host a@10.0.0.1 x@y.io-z git@github.com:org/repo.git email=Ops@B.io http://u@h.io/x',
        [
            ('identifier', 'a', 'identifier', 'a'),
            ('kv', 'a@10.0.0.1', 'a', '10.0.0.1'),  # grammar v8: a pin's (or user@host's) kv fact
            ('number', '10.0.0.1', 'number', '10.0.0.1'),
            ('identifier', 'y.io', 'identifier', 'y.io'),
            ('identifier', 'git@github.com', 'identifier', 'git@github.com'),
            ('path', 'org/repo.git', 'path', 'org/repo.git'),
            ('kv', 'email=Ops@B.io', 'email', 'ops@b.io'),
            ('url', 'http://u@h.io/x', 'url', 'http://u@h.io/x'),
        ],
    ),
    (
        '--max-retries --verbose -v ---x',
        [
            ('identifier', '--max-retries', 'identifier', '--max-retries'),
            ('identifier', '--verbose', 'identifier', '--verbose'),
            ('identifier', '--x', 'identifier', '--x'),
        ],
    ),
    (
        'Amanda met Bob in Paris. However NASA said no. Then Carol left.',
        [
            ('name', 'Bob', 'name', 'Bob'),
            ('name', 'Paris', 'name', 'Paris'),
            ('name', 'NASA', 'name', 'NASA'),
            ('name', 'Carol', 'name', 'Carol'),
        ],
    ),
    (
        'He met Mr. Smith, Mrs. Jones and Dr. Who. Mister. Brown',
        [
            ('name', 'Mr', 'name', 'Mr'),
            ('name', 'Smith', 'name', 'Smith'),
            ('name', 'Mrs', 'name', 'Mrs'),
            ('name', 'Jones', 'name', 'Jones'),
            ('name', 'Dr', 'name', 'Dr'),
            ('name', 'Who', 'name', 'Who'),
        ],
    ),
    (
        'I saw A and OK and EEG-SSVEP.',
        [
            ('name', 'OK', 'name', 'OK'),
            ('name', 'EEG', 'name', 'EEG'),
            ('name', 'SSVEP', 'name', 'SSVEP'),
        ],
    ),
    (
        'He said "Hello there" to McDonald and O\'Brien.',
        [
            ('quote', '"Hello there"', 'quote', 'Hello there'),
            ('name', 'Hello', 'name', 'Hello'),
            ('identifier', 'McDonald', 'identifier', 'McDonald'),
            ('name', 'Brien', 'name', 'Brien'),
        ],
    ),
    (
        '/etc/hosts /usr/lib/x.py:12:3 src/foo.py ./run.sh ../up ~/notes.txt',
        [
            ('path', '/etc/hosts', 'path', '/etc/hosts'),
            ('path', '/usr/lib/x.py:12:3', 'path', '/usr/lib/x.py:12:3'),
            ('path', 'src/foo.py', 'path', 'src/foo.py'),
            ('path', './run.sh', 'path', './run.sh'),
            ('path', '../up', 'path', '../up'),
            ('path', '~/notes.txt', 'path', '~/notes.txt'),
        ],
    ),
    (
        'C:\\Users\\a.txt C:/x/y \\\\server\\share a/b/c and/or km/h 24/7 src/ a\\nb\\nc',
        [
            ('path', 'C:\\Users\\a.txt', 'path', 'C:\\Users\\a.txt'),
            ('path', 'C:/x/y', 'path', 'C:/x/y'),
            ('path', '\\\\server\\share', 'path', '\\\\server\\share'),
            ('path', 'a/b/c', 'path', 'a/b/c'),
            ('number', '24', 'number', '24'),
            ('number', '7', 'number', '7'),
        ],
    ),
    (
        'see /etc/hosts. done',
        [
            ('path', '/etc/hosts', 'path', '/etc/hosts'),
        ],
    ),
    (
        '</div> <b>/x</b>',
        [
            ('path', '/x', 'path', '/x'),
        ],
    ),
    (
        'https://example.com/a?b=1&c=2#f http://x.io/a_(b)) (see https://x.io/p). ftp://h',
        [
            ('url', 'https://example.com/a?b=1&c=2#f', 'url', 'https://example.com/a?b=1&c=2#f'),
            ('url', 'http://x.io/a_(b)', 'url', 'http://x.io/a_(b)'),
            ('url', 'https://x.io/p', 'url', 'https://x.io/p'),
            ('url', 'ftp://h', 'url', 'ftp://h'),
        ],
    ),
    (
        'git+ssh://host/repo https:// mailto:x',
        [
            ('url', 'git+ssh://host/repo', 'url', 'git+ssh://host/repo'),
        ],
    ),
    (
        'deadbeef cafe1234 1234567 e3b0c44 DEADBEEF12 123e4567-e89b-12d3-a456-426614174000',
        [
            ('digest', 'cafe1234', 'digest', 'cafe1234'),
            ('number', '1234567', 'number', '1234567'),
            ('digest', 'e3b0c44', 'digest', 'e3b0c44'),
            ('digest', 'DEADBEEF12', 'digest', 'deadbeef12'),
            ('digest', '123e4567-e89b-12d3-a456-426614174000', 'digest', '123e4567-e89b-12d3-a456-426614174000'),
        ],
    ),
    (
        'retries=3 timeout = 30s x==5 a=>b f(x=5, y=6) url=https://a.b/c?d=1&e=2',
        [
            ('kv', 'retries=3', 'retries', '3'),
            ('kv', 'timeout = 30s', 'timeout', '30s'),
            ('identifier', 'x', 'identifier', 'x'),  # grammar v8: pip's name==version is a pin
            ('kv', 'x==5', 'x', '5'),
            ('number', '5', 'number', '5'),
            ('kv', 'x=5', 'x', '5'),
            ('kv', 'y=6', 'y', '6'),
            ('kv', 'url=https://a.b/c?d=1&e=2', 'url', 'https://a.b/c?d=1&e=2'),
        ],
    ),
    (
        'retries=1,000 hex=0XAB id=ABCDEF12 name="John Smith" empty="" q=\'a b\' t=`c`',
        [
            ('kv', 'retries=1,000', 'retries', '1000'),
            ('kv', 'hex=0XAB', 'hex', '0xab'),
            ('kv', 'id=ABCDEF12', 'id', 'abcdef12'),
            ('kv', 'name="John Smith"', 'name', 'John Smith'),
            ('quote', '"John Smith"', 'quote', 'John Smith'),
            ('name', 'John', 'name', 'John'),
            ('name', 'Smith', 'name', 'Smith'),
            ('kv', 'empty=""', 'empty', ''),
            ('kv', "q='a b'", 'q', 'a b'),
            ('quote', "'a b'", 'quote', 'a b'),
            ('kv', 't=`c`', 't', 'c'),
            ('quote', '`c`', 'quote', 'c'),
        ],
    ),
    (
        'timeout: 30s\n  - level: debug # c\nNote: the value is 5\nkey: two words\n',
        [
            ('kv', 'timeout: 30s', 'timeout', '30s'),
            ('kv', 'level: debug', 'level', 'debug'),
            ('number', '5', 'number', '5'),
            ('number', 'two', 'number', 'two'),
        ],
    ),
    (
        '{"retries": 3, "name": "x y", "ok": true}',
        [
            ('quote', '"retries"', 'quote', 'retries'),
            ('kv', '"retries": 3', 'retries', '3'),
            ('quote', '"name"', 'quote', 'name'),
            ('kv', '"name": "x y"', 'name', 'x y'),
            ('quote', '"x y"', 'quote', 'x y'),
            ('quote', '"ok"', 'quote', 'ok'),
            ('kv', '"ok": true', 'ok', 'true'),
        ],
    ),
    (
        '--max-retries 5 --out=file.txt --offset -5 --a --b',
        [
            ('kv', '--max-retries 5', 'max-retries', '5'),
            ('kv', '--out=file.txt', 'out', 'file.txt'),
            ('kv', '--offset -5', 'offset', '-5'),
            ('identifier', '--a', 'identifier', '--a'),
            ('identifier', '--b', 'identifier', '--b'),
        ],
    ),
    (
        'export MAX_RETRIES=5\nserver.port=8080\nmax-retries: 3\n',
        [
            ('kv', 'MAX_RETRIES=5', 'MAX_RETRIES', '5'),
            ('kv', 'server.port=8080', 'server.port', '8080'),
            ('kv', 'max-retries: 3', 'max-retries', '3'),
        ],
    ),
    (
        "'quoted' don't it's 'it's fine' the dogs' bowls",
        [
            ('quote', "'quoted'", 'quote', 'quoted'),
            ('quote', "'it's fine'", 'quote', "it's fine"),
        ],
    ),
    (
        '"a \\" b" "" `code` ``a ` b`` ```inline```',
        [
            ('quote', '"a \\" b"', 'quote', 'a \\" b'),
            ('quote', '`code`', 'quote', 'code'),
            ('quote', '``a ` b``', 'quote', 'a ` b'),
            ('quote', '```inline```', 'quote', 'inline'),
        ],
    ),
    (
        '```python\nretries = 3\n```\ntext',
        [
            ('quote', '```python\nretries = 3\n```', 'quote', 'retries = 3'),
            ('kv', 'retries = 3', 'retries', '3'),
        ],
    ),
    (
        '```\nunclosed\nretries=4',
        [
            ('quote', '```\nunclosed\nretries=4', 'quote', 'unclosed\nretries=4'),
            ('kv', 'retries=4', 'retries', '4'),
        ],
    ),
    (
        '````\n```\nx\n````',
        [
            ('quote', '````\n```\nx\n````', 'quote', '```\nx'),
        ],
    ),
    (
        'rose 5%[src:call_8841] and [src:tool:call_1]. [service] [src:] [src:a b]',
        [
            ('number', '5%', 'number', '5%'),
            ('citation', '[src:call_8841]', 'citation', 'call_8841'),
            ('citation', '[src:tool:call_1]', 'citation', 'tool:call_1'),
        ],
    ),
]


@pytest.mark.parametrize("text, expected", EXPECTED, ids=[t[:30] for t, _ in EXPECTED])
def test_examples(impl, text, expected):
    assert spans(impl, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "the value is small and well-known, e.g. in the docs",  # English words
        "db-primary and db-replica are up-to-date, a well-known re-run",  # hyphenated, no digit
        "However, this is fine.",  # a sentence-initial capital
        "I think so. A cat.",  # lone capitals
        "don't won't it's the dogs' bowls",  # apostrophes
        "deadbeef facade",  # hex-looking words without a digit
        "x3 is not 3",  # "3" inside a word
        "and/or km/h I/O src/",  # slashes that are not paths
        "[service] [src:] [src:a b]",  # not citations
        "x == y, a => b, c <= d",  # comparisons are not kv facts
        "Note: this line is prose",  # a mid-prose colon
        "café naïve über",  # lower-case non-ASCII words
        "'' \"\" `",  # empty and unmatched quotes
    ],
)
def test_non_examples(impl, text):
    # only the explicitly listed facts may appear in each of these
    allowed = {"x3 is not 3": [("identifier", "x3", "identifier", "x3"), ("number", "3", "number", "3")]}
    assert spans(impl, text) == allowed.get(text, [])


def test_three_inside_v3_is_not_a_number(impl):
    found = spans(impl, "release v3 and 3")
    assert found == [("number", "v3", "number", "v3"), ("number", "3", "number", "3")]
    # the "3" of "v3" never appears as its own span
    assert [s for s in found if s[1] == "3"] == [("number", "3", "number", "3")]


def test_sentence_initial_capitals_across_citations(impl):
    # a citation between sentences is transparent when deciding where a sentence starts
    assert spans(impl, "It rose. [src:call_1] The end") == [("citation", "[src:call_1]", "citation", "call_1")]
    assert spans(impl, "It rose [src:call_1] The end") == [
        ("citation", "[src:call_1]", "citation", "call_1"),
        ("name", "The", "name", "The"),
    ]


def test_quote_insides_are_scanned(impl):
    found = spans(impl, "```ini\nretries=3\n```\nand \"v2 at /etc/x\"")
    kinds = [(k, t) for k, t, _, _ in found]
    assert ("kv", "retries=3") in kinds
    assert ("number", "v2") in kinds
    assert ("path", "/etc/x") in kinds
    assert [t for k, t in kinds if k == "quote"] == ["```ini\nretries=3\n```", '"v2 at /etc/x"']


def test_kv_absorbs_its_value(impl):
    assert spans(impl, "retries=3") == [("kv", "retries=3", "retries", "3")]
    assert spans(impl, "--max-retries 5") == [("kv", "--max-retries 5", "max-retries", "5")]


def test_crlf_lines(impl):
    text = "timeout: 30s\r\n```\r\nx=1\r\n```\r\n"
    assert spans(impl, text) == [
        ("kv", "timeout: 30s", "timeout", "30s"),
        ("quote", "```\r\nx=1\r\n```", "quote", "x=1"),
        ("kv", "x=1", "x", "1"),
    ]


# -- native == reference ------------------------------------------------------------------


def _reference_columns(data: bytes):
    # without the shortcut: the plain reading of the grammar
    return _scanner_py.scan(data, 10**7, shortcut=False)


@DIFFERENTIAL
@given(all_text)
def test_differential_text(impl, text):
    data = text.encode("utf-8")
    assert_same_columns(columns(impl, data), _reference_columns(data), data)


@DIFFERENTIAL
@given(any_bytes)
def test_differential_arbitrary_bytes(impl, data):
    # invalid UTF-8 has unspecified spans, but the scan still terminates, stays in bounds, and
    # both implementations still agree
    assert_same_columns(columns(impl, data), _reference_columns(data), data)


@settings(DIFFERENTIAL, max_examples=300)
@given(st.lists(all_text, min_size=2, max_size=30).map("\n".join))
def test_differential_documents(impl, text):
    data = text.encode("utf-8")
    assert_same_columns(columns(impl, data), _reference_columns(data), data)


@DIFFERENTIAL
@given(all_text)
def test_framing_agrees(impl, text):
    data = text.encode("utf-8")
    cols = _scanner_py.scan(data, 10**7)
    kind, _, _, ks, ke, vs, ve, vk = cols
    got = impl.frame_facts(data, kind, ks, ke, vs, ve, vk)
    want = _scanner_py.frame_facts(data, kind, ks, ke, vs, ve, vk)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype
        assert np.array_equal(a, b)


@pytest.mark.parametrize("room", [0, 1, 10**6])
def test_framing_into_scratch(impl, room):
    """Writing into caller scratch (big enough or not) gives the same frames as fresh arrays."""
    data = ("retries=1,000 Amanda [src:x] `q` 0xFF --a-b 5 " * 50).encode()
    kind, _, _, ks, ke, vs, ve, vk = _scanner_py.scan(data, 10**7)
    scratch = (np.zeros(room, dtype=np.uint8), np.zeros(room, dtype=np.int64))
    got = impl.frame_facts(data, kind, ks, ke, vs, ve, vk, scratch=scratch)
    want = _scanner_py.frame_facts(data, kind, ks, ke, vs, ve, vk)
    for a, b in zip(got, want):
        assert np.array_equal(a, b)


def test_differential_on_real_text(impl, testdata):
    import json

    with open(testdata / "summedits" / "summedits_evaluation.jsonl", encoding="utf-8") as f:
        docs = [json.loads(line) for line in f]
    data = "\n".join(r["doc"] + "\n" + r["summary"] for r in docs[:200]).encode("utf-8")
    assert_same_columns(columns(impl, data), _reference_columns(data), data)


def test_differential_on_source_code(impl):
    import inspect

    import numpy  # real Python with strings, paths, numbers and docstrings

    data = "\n".join(inspect.getsource(m) for m in (numpy, np.lib.npyio, np.linalg, json_module())).encode()
    assert_same_columns(columns(impl, data), _reference_columns(data), data)


def json_module():
    import json.decoder

    return json.decoder


# -- invariants -----------------------------------------------------------------------------


@settings(DIFFERENTIAL, max_examples=1000)
@given(all_text)
def test_invariants(impl, text):
    data = text.encode("utf-8")
    n = len(data)
    got = rows(columns(impl, data))
    assert got == sorted(got, key=lambda r: (r[1], r[2], r[0]))
    for kind, s, e, ks, ke, vs, ve, vk in got:
        assert kind in _scanner_py.KIND_NAMES
        assert 0 <= s < e <= n
        assert s <= vs <= ve <= e
        if kind == _scanner_py.KV:
            assert s <= ks < ke <= vs
        else:
            assert ks == ke == -1
        # no offset ever cuts a multi-byte character
        for off in (s, e, vs, ve) + ((ks, ke) if ks >= 0 else ()):
            data[:off].decode("utf-8")
        assert vk in (_scanner_py.VALUE_RAW, _scanner_py.VALUE_NUMBER, _scanner_py.VALUE_HEX)


@DIFFERENTIAL
@given(all_text)
def test_reference_shortcut_changes_nothing(text):
    data = text.encode("utf-8")
    assert_same_columns(_scanner_py.scan(data, 10**7), _reference_columns(data), data)


# -- UTF-8 validation -------------------------------------------------------------------------


def _python_utf8_error(data: bytes) -> int:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    return -1


@DIFFERENTIAL
@given(st.one_of(any_bytes, unicode_text.map(lambda t: t.encode("utf-8"))))
def test_utf8_error_offset(impl, data):
    assert impl.utf8_error_offset(data) == _python_utf8_error(data)


@pytest.mark.parametrize(
    "data, offset",
    [
        (b"", -1),
        (b"plain", -1),
        ("h\u00e9\u20ac\U0001f600".encode(), -1),
        (b"ab\x80", 2),  # a lone continuation byte
        (b"a\xc0\xaf", 1),  # overlong "/"
        (b"a\xed\xa0\x80z", 1),  # a UTF-8 encoded surrogate
        (b"\xf4\x90\x80\x80", 0),  # beyond U+10FFFF
        (b"abc\xe2\x82", 3),  # truncated at the end
        (b"\xe2\x28\xa1", 0),
        (b"ok\xff", 2),
    ],
)
def test_utf8_error_offset_cases(impl, data, offset):
    assert impl.utf8_error_offset(data) == offset


# -- bad and pathological input ------------------------------------------------------------


def test_scan_rejects_str_and_bad_limits(impl):
    with pytest.raises(TypeError):
        impl.scan("text", 10)
    with pytest.raises(TypeError):
        impl.utf8_error_offset("text")
    with pytest.raises(ValueError):
        impl.scan(b"text", -1)


def test_span_limit_is_exact(impl):
    data = b"1 2 3 \"q\""  # three numbers and a quote
    assert len(rows(impl.scan(data, 4))) == 4
    with pytest.raises(LimitExceededError):
        impl.scan(data, 3)
    with pytest.raises(LimitExceededError):
        impl.scan(b"1 2 3 4", 3)
    with pytest.raises(LimitExceededError):
        impl.scan(b"```\nx\n```\n'a' 'b'", 2)  # quote spans count too
    assert rows(impl.scan(b"", 0)) == []


def test_frame_facts_rejects_bad_rows(impl):
    data = b"retries=3"
    cols = list(_scanner_py.scan(data, 10))
    kind, _, _, ks, ke, vs, ve, vk = cols
    with pytest.raises(SpanError):
        impl.frame_facts(data, kind, ks, ke, vs, ve + 100, vk)
    with pytest.raises(SpanError):
        impl.frame_facts(data, np.array([42], dtype=np.uint8), ks, ke, vs, ve, vk)
    with pytest.raises(SpanError):
        impl.frame_facts(data, kind, ks, ke + 50, vs, ve, vk)
    with pytest.raises(SpanError):
        impl.frame_facts(data, kind, ks, ke, vs, ve, np.array([7], dtype=np.uint8))
    with pytest.raises(SpanError):
        impl.frame_facts(data, kind, ks[:0], ke, vs, ve, vk)


PATHOLOGICAL = [
    "'x " * 20000,  # quote marks that never close
    '"\\"' * 20000,  # escaped double quotes that never close
    "` `` ``` " * 5000,  # backtick runs of several lengths
    hostile_backtick_runs(200_000).decode(),  # runs of 1, 2, 3, ... backticks (red team 50, f05)
    "[src:" * 20000,  # unterminated citations
    "a-" * 40000,  # a path run without separators, re-entered after each dash
    "a." * 40000,  # a long dotted name
    "1," * 40000,  # thousands separators that never complete
    "--a-" * 20000,
    "x=" * 40000,
    "\x00" * 50000,
    "-" * 80000,
    "é" * 40000,  # one long word of non-ASCII
    "Ab " * 20000,  # capitalised words, each looking back for a sentence start
    "```\n" * 20000,  # fences opening and closing
    "http://" * 10000,
    "/" * 80000 + "a",
    # e-mail local parts and hyphenated IDs that never complete, re-entered after each joiner
    "a+" * 40000,
    "a%" * 40000,
    "1-" * 40000,
    "a-a@" * 20000,
    "a@b-" * 20000,
    "a--" * 30000,
    "a-1." * 20000,
    "a-" * 40000 + "@x.io",
]


@pytest.mark.parametrize("text", PATHOLOGICAL, ids=[repr(t[:8]) for t in PATHOLOGICAL])
def test_pathological_input_agrees(impl, text):
    data = text.encode("utf-8")
    assert_same_columns(columns(impl, data), _scanner_py.scan(data, 10**7), data)


# -- backtick runs (red team 50, f05) ---------------------------------------------------------
#
# A run of k backticks quotes up to the next run of exactly k on its line. Searching to the end of
# the line for each opener without one was O(n^1.5) on runs of 1, 2, 3, ... backticks; both
# implementations now answer from a memo of the line's runs, built at the line's first failed
# search. _brute_inline_quotes is the plain reading of docs/grammar.md that they replaced: every
# opener looks at every later position of its line. The quotes must be the same.


def _brute_inline_quotes(data: bytes, ls: int, le: int, out: list) -> None:
    W, SEP, tick = _scanner_py.W, _scanner_py.SEP, 0x60

    def run(p: int) -> int:
        q = p
        while q < le and data[q] == tick:
            q += 1
        return q - p

    def quote(s: int, e: int, vs: int, ve: int) -> None:
        out.append((_scanner_py.QUOTE, s, e, -1, -1, vs, ve, _scanner_py.VALUE_RAW))

    double_dead = single_dead = False
    i = ls
    while i < le:
        c = data[i]
        if c == tick:
            k = run(i)
            j = next((j for j in range(i + k, le) if data[j - 1] != tick and run(j) == k), None)
            if j is None:
                i += k
                continue
            quote(i, j + k, i + k, j)
            i = j + k
        elif c == ord('"') and not double_dead:
            j = i + 1
            while j < le and data[j] != ord('"'):
                j += 2 if data[j] == ord("\\") else 1
            if j >= le:
                double_dead = True
                i += 1
                continue
            if j > i + 1:
                quote(i, j + 1, i + 1, j)
            i = j + 1
        elif (c == ord("'") and not single_dead and (i == 0 or data[i - 1] not in W) and i + 1 < le
              and data[i + 1] not in SEP and data[i + 1] != ord("'")):
            j = next((j for j in range(i + 2, le) if data[j] == ord("'") and data[j - 1] not in SEP
                      and (j + 1 >= le or data[j + 1] not in W)), None)
            if j is None:
                single_dead = True
                i += 1
                continue
            quote(i, j + 1, i + 1, j)
            i = j + 1
        else:
            i += 1


def _brute_columns(data: bytes):
    with mock.patch.object(_scanner_py, "_inline_quotes", _brute_inline_quotes):
        return _scanner_py.scan(data, 10**7)


@DIFFERENTIAL
@given(backtick_text)
def test_backtick_quotes_are_the_plain_readings(impl, text):
    data = text.encode("utf-8")
    assert_same_columns(columns(impl, data), _brute_columns(data), data)


@settings(DIFFERENTIAL, max_examples=300)
@given(backtick_lines())
def test_backtick_quotes_on_long_lines_are_the_plain_readings(impl, text):
    data = text.encode("utf-8")
    assert_same_columns(columns(impl, data), _brute_columns(data), data)


def _hostile_variants(n: int) -> list[bytes]:
    runs = hostile_backtick_runs(n)
    return [
        runs,
        runs + b"\n" + runs,  # two lines, each with its own memo
        runs + b" " + b" ".join(b"`" * k for k in range(5, 200, 7)),  # some close after the first failure
        b"`" * 70 + b" " + runs + b" " + b"`" * 70 + b" " + runs,  # a long run closed across the line
        b'"' + runs + b' "x" ' + runs,  # the first runs inside a double quote
        runs.replace(b"` `", b"` ' `", 50),  # single quote marks between
    ]


# (the native memo moves from the stack to the heap at a line remainder of 8,192 bytes)
@pytest.mark.parametrize("n", [60, 4100, 8150, 8250, 9000, 20000])
def test_backtick_runs_of_every_length_are_the_plain_readings(impl, n):
    for data in _hostile_variants(n):
        assert_same_columns(columns(impl, data), _brute_columns(data), data)


def test_backtick_searches_read_each_byte_a_bounded_number_of_times():
    """Counted, not timed: the bytes the reference's backtick searches read on runs of 1, 2, 3,
    ... backticks. Each unclosed run searched to the end of its line, O(n^1.5) in all: the code
    before the memo read 1,838,099 bytes of the first text here (20 KB, 92 times its size).
    Now a line's first failed search and its memo read the rest of the line once each, and a
    search that succeeds reads bytes the scan then skips."""
    search_run, runs_after = _scanner_py._backtick_run, _scanner_py._backtick_runs_after
    read = [0]

    class Counted:
        def __init__(self, pattern):
            self.pattern = pattern

        def search(self, data, pos, endpos):
            found = self.pattern.search(data, pos, endpos)
            read[0] += (found.end() if found else endpos) - pos
            return found

    def counted_runs_after(data, p, le):
        read[0] += le - p
        return runs_after(data, p, le)

    with mock.patch.object(_scanner_py, "_backtick_run", lambda k: Counted(search_run(k))), \
            mock.patch.object(_scanner_py, "_backtick_runs_after", counted_runs_after):
        for data in _hostile_variants(20_000):
            read[0] = 0
            _scanner_py.scan(data, 10**7)
            assert read[0] <= 3 * len(data), (data[:40], read[0], len(data))


def test_a_million_one_character_tokens(impl):
    data = b"1 " * 1_000_000
    got = impl.scan(data, 10**7)
    assert got[0].shape == (1_000_000,)
    assert np.array_equal(got[1], np.arange(0, 2_000_000, 2))
    assert impl.scan(b"a " * 1_000_000, 10)[0].shape == (0,)


def test_gil_released_scans_agree_across_threads(impl):
    from concurrent.futures import ThreadPoolExecutor

    texts = [("retries=%d [src:c%d] Amanda /etc/x%d 'q%d' " % (i, i, i, i) * 500).encode() for i in range(8)]
    expected = [rows(impl.scan(t, 10**7)) for t in texts]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda t: rows(impl.scan(t, 10**7)), texts * 3))
    assert got == expected * 3


# -- both ways of computing the native scanner's block masks ---------------------------------


# Why a native-only test skips: under PROVGATE_NO_EXTENSIONS=1 only the references are under
# test; tests/test_api.py proves that a default install (what CI runs) loads the native module.
NATIVE_ABSENT = "PROVGATE_NO_EXTENSIONS=1: only the reference scanner is under test"


@pytest.fixture(params=["baseline", "avx2"])
def block_masks(request):
    """The native scanner with its block masks from the portable SSE2 code or the AVX2 code
    (chosen at import from the CPU; the tests must cover both wherever they can run)."""
    if NO_EXTENSIONS:
        pytest.skip(NATIVE_ABSENT)
    native = importlib.import_module("provgate._ext.scanner")
    if request.param == "avx2" and not native.HAVE_AVX2_MASKS:
        pytest.skip("this CPU has no AVX2, so the AVX2 block masks cannot run here (the portable masks are tested)")
    previous = native._set_block_masks(request.param)
    try:
        yield native
    finally:
        native._set_block_masks(previous)


@settings(
    DIFFERENTIAL,
    max_examples=500,
    # the fixture only selects the mask code; every example may share it
    suppress_health_check=[*DIFFERENTIAL.suppress_health_check, HealthCheck.function_scoped_fixture],
)
@given(st.lists(all_text, min_size=2, max_size=30).map("\n".join))
def test_block_masks_agree_with_reference(block_masks, text):
    data = text.encode("utf-8")
    assert_same_columns(columns(block_masks, data), _reference_columns(data), data)


def test_block_masks_agree_on_real_text(block_masks, testdata):
    import json

    with open(testdata / "summedits" / "summedits_evaluation.jsonl", encoding="utf-8") as f:
        docs = [json.loads(line) for line in f]
    data = "\n".join(r["doc"] + "\n" + r["summary"] for r in docs[:100]).encode("utf-8")
    assert_same_columns(columns(block_masks, data), _reference_columns(data), data)


# Lexemes whose native matchers read the block masks when the lexeme ends inside the 64-byte
# block and walk the bytes otherwise (paths), or read eight bytes at a time with a byte loop for
# the rest (quoted JSON keys): each is placed at every offset across two block edges, after
# text that makes the scan visit the block first, and must come out as the reference says.
BLOCK_EDGE_LEXEMES = [
    "src/provgate/facts.py:120:5",
    "a/b/c",
    "docs\\x.md",
    "C:\\Users\\a.txt",
    "C:/x/y",
    "/etc/hosts.",
    "./run.sh",
    "../up/..",
    "~/x",
    "\\\\server\\share",
    "and/or",
    "x/y.z1",
    "</div>",
    "web/src/tools/digest.js",
    '"k": 5',
    '"retries": "3"',
    '"' + "k" * 20 + '": 1',
    '"' + "k" * 128 + '": 1',
    '"' + "k" * 129 + '": 1',
    '"a[0]": 1',
    '"abcdefgh]ij": 1',
    '"abcdefghij\\"": 1',
    '"abcdefghijk\x1fl": 1',
    '"abcdefghijk\x7fl": 1',
    '"not a key" and more',
    "seven  = 7",
    "api-server-7d9f",
    "eu-west-1.example.com.",
    "oncall@acme.io.",
    "a.b+c@x-y.co.uk",
]


@pytest.mark.parametrize("lexeme", BLOCK_EDGE_LEXEMES)
def test_lexemes_across_block_edges(block_masks, lexeme):
    for offset in range(0, 140):
        data = ("w " * (offset // 2) + "x" * (offset % 2) + " " + lexeme + " end").encode()
        assert_same_columns(columns(block_masks, data), _reference_columns(data), data)


def test_block_mask_choice_is_checked():
    if NO_EXTENSIONS:
        pytest.skip(NATIVE_ABSENT)
    native = importlib.import_module("provgate._ext.scanner")
    with pytest.raises(ValueError):
        native._set_block_masks("sse9")
    assert native._set_block_masks("baseline") in ("baseline", "avx2")
    native._set_block_masks("avx2" if native.HAVE_AVX2_MASKS else "baseline")


# -- extract_columns: scan, frame and fingerprint in one call ---------------------------------

FP_KEY = bytes(range(32))


def assert_same_extraction(a, b, data: bytes) -> None:
    assert len(a) == len(b) == 11
    assert_same_columns(a[:8], b[:8], data)
    for x, y in zip(a[8:], b[8:]):
        assert x.dtype == y.dtype == np.uint64 and x.shape == y.shape == (a[0].shape[0], 2)
        assert np.array_equal(x, y), data[:200]


@DIFFERENTIAL
@given(all_text)
def test_extract_columns_agree(impl, text):
    data = text.encode("utf-8")
    assert_same_extraction(impl.extract_columns(data, 10**7, FP_KEY), _scanner_py.extract_columns(data, 10**7, FP_KEY), data)


@settings(DIFFERENTIAL, max_examples=300)
@given(st.lists(all_text, min_size=2, max_size=30).map("\n".join))
def test_extract_columns_agree_on_documents(impl, text):
    data = text.encode("utf-8")
    assert_same_extraction(impl.extract_columns(data, 10**7, FP_KEY), _scanner_py.extract_columns(data, 10**7, FP_KEY), data)


def test_extract_columns_agree_on_real_text(impl, testdata):
    import json

    with open(testdata / "summedits" / "summedits_evaluation.jsonl", encoding="utf-8") as f:
        docs = [json.loads(line) for line in f]
    data = "\n".join(r["doc"] + "\n" + r["summary"] for r in docs[:150]).encode("utf-8")
    assert_same_extraction(impl.extract_columns(data, 10**7, FP_KEY), _scanner_py.extract_columns(data, 10**7, FP_KEY), data)


def test_extract_columns_are_read_only_views_of_scan(impl):
    data = b"retries=3 [src:call_1] Amanda 0xFF v1.2.3 'quoted' /etc/hosts e3b0c44"
    cols = impl.extract_columns(data, 10**7, FP_KEY)
    assert_same_columns(cols[:8], impl.scan(data, 10**7), data)
    for c in cols:
        assert not c.flags.writeable
        with pytest.raises(ValueError):
            c[...] = 0


def test_repeated_facts_keep_their_own_fingerprints(impl):
    """Rows of one fact share fingerprints (the native code hashes each distinct fact once);
    facts that differ only in their key, their kind or their value's bytes do not, and values
    that normalise alike do."""
    data = (
        b"number=5 5 number=5 five=5 5 retries=1,000 retries=1000 x=0xFF x=0xff 0xFF 0xff "
        b"ABCDEF1 abcdef1 ABCDEF2 'q' \"q\" `q` Q5 q5 " * 40
    )
    cols = impl.extract_columns(data, 10**7, FP_KEY)
    ref = _scanner_py.extract_columns(data, 10**7, FP_KEY)
    assert_same_extraction(cols, ref, data)
    kind, start, end = cols[0], cols[1], cols[2]
    fp_fact = cols[10]
    facts = {}
    for i in range(kind.shape[0]):
        facts.setdefault(data[start[i] : end[i]], set()).add(tuple(fp_fact[i]))
    for text, fps in facts.items():
        assert len(fps) == 1, text  # a repeated fact has one fingerprint
    assert facts[b"retries=1,000"] == facts[b"retries=1000"]
    assert facts[b"x=0xFF"] == facts[b"x=0xff"] and facts[b"0xFF"] == facts[b"0xff"]
    assert facts[b"ABCDEF1"] == facts[b"abcdef1"] != facts[b"ABCDEF2"]
    assert facts[b"number=5"] != facts[b"5"] != facts[b"five=5"]
    assert facts[b"'q'"] == facts[b'"q"'] == facts[b"`q`"]  # a quote is its inside
    assert facts[b"Q5"] != facts[b"q5"]
    distinct = {text: next(iter(fps)) for text, fps in facts.items()}
    # the four normalised pairs and the three quotes of one value, all else apart
    assert len(set(distinct.values())) == len(distinct) - 6


def test_extract_columns_rejects_bad_arguments(impl):
    with pytest.raises(TypeError):
        impl.extract_columns("retries=3", 10, FP_KEY)
    for key in (b"short", FP_KEY + b"x", "x" * 32, None, bytearray(FP_KEY)):
        with pytest.raises(ValueError):
            impl.extract_columns(b"retries=3", 10, key)
    with pytest.raises(ValueError):
        impl.extract_columns(b"retries=3", -1, FP_KEY)
    with pytest.raises(LimitExceededError):
        impl.extract_columns(b"1 2 3", 2, FP_KEY)
    assert impl.extract_columns(b"1 2 3", 3, FP_KEY)[0].shape == (3,)


def test_extract_columns_accepts_bytes_like(impl):
    data = b"retries=3 and 42 [src:a]"
    want = impl.extract_columns(data, 10, FP_KEY)
    for other in (bytearray(data), memoryview(data)):
        assert_same_extraction(impl.extract_columns(other, 10, FP_KEY), want, data)


def test_extract_columns_empty(impl):
    cols = impl.extract_columns(b"", 10, FP_KEY)
    assert [c.shape for c in cols] == [(0,)] * 8 + [(0, 2)] * 3


# -- extract_columns_many: many texts, one call ---------------------------------------------


@settings(DIFFERENTIAL, max_examples=400)
@given(st.lists(all_text, max_size=12))
def test_extract_columns_many_is_extract_columns_of_each(impl, texts):
    """Text for text the columns extract_columns gives, with each text on its own (a text that
    ends mid-token does not run on into the next one), in both implementations."""
    datas = [t.encode("utf-8") for t in texts]
    many = impl.extract_columns_many(datas, 10**7, FP_KEY)
    assert isinstance(many, list) and len(many) == len(datas)
    for data, cols in zip(datas, many):
        assert_same_extraction(cols, _scanner_py.extract_columns(data, 10**7, FP_KEY), data)
        assert not any(c.flags.writeable for c in cols)


def test_extract_columns_many_keeps_texts_apart(impl):
    """Pieces that would make other facts if they were one text (a kv split at "=", a quote
    split in half, a path split at "/") are scanned as the separate texts they are."""
    pieces = [b"retries", b"=3 and '", b"half' /etc", b"/hosts", b"", b"12", b"34 [src:", b"a]"]
    many = impl.extract_columns_many(pieces, 10**7, FP_KEY)
    for data, cols in zip(pieces, many):
        assert_same_extraction(cols, _scanner_py.extract_columns(data, 10**7, FP_KEY), data)
    joined = b"".join(pieces)
    together = _scanner_py.extract_columns(joined, 10**7, FP_KEY)
    assert sum(c[0].shape[0] for c in many) != together[0].shape[0]  # the pieces really differ from the whole


def test_extract_columns_many_facts_sharing_a_value_or_a_key(impl):
    """Distinct facts that share only their value (the number 7 and retries=7) or only their
    config key (retries=1, retries=2, ...), in different texts and far apart (more distinct
    facts than one hashing batch holds): each row has the fingerprints of its own fact, as
    each text alone gets them from the reference."""
    texts = [
        " ".join(f"retries={k} {k} port{t}={k} limit_{k % 7}={t} w{k}" for k in range(150 * t, 150 * t + 300)).encode()
        for t in range(5)
    ]
    many = impl.extract_columns_many(texts, 10**7, FP_KEY)
    for data, cols in zip(texts, many):
        assert_same_extraction(cols, _scanner_py.extract_columns(data, 10**7, FP_KEY), data)
    fp_key, fp_value, fp_fact = many[1][8:]
    kind, ks = many[1][0], many[1][3]
    kv = np.flatnonzero((ks >= 0) & (kind == 6))
    number = np.flatnonzero(kind == 1)
    # what makes it a real test of sharing: values shared across kinds, keys across values
    assert {tuple(v) for v in fp_value[kv]} & {tuple(v) for v in fp_value[number]}
    assert len({tuple(k) for k in fp_key[kv]}) < len({tuple(f) for f in fp_fact[kv]})


def test_extract_columns_many_on_real_text(impl, testdata):
    import json

    with open(testdata / "summedits" / "summedits_evaluation.jsonl", encoding="utf-8") as f:
        docs = [json.loads(line) for line in f][:60]
    datas = [d.encode("utf-8") for r in docs for d in (r["doc"], r["summary"])]
    for data, cols in zip(datas, impl.extract_columns_many(datas, 10**7, FP_KEY)):
        assert_same_extraction(cols, _scanner_py.extract_columns(data, 10**7, FP_KEY), data)


def test_extract_columns_many_limit_is_per_text_and_the_first_one_fails(impl):
    ok = impl.extract_columns_many([b"1 2", b"3 4", b""], 2, FP_KEY)  # 4 spans in all, 2 a text
    assert [c[0].shape[0] for c in ok] == [2, 2, 0]
    with pytest.raises(LimitExceededError, match="more than 2 grounded spans"):
        impl.extract_columns_many([b"1 2", b"1 2 3", b"4"], 2, FP_KEY)
    with pytest.raises(LimitExceededError):
        impl.extract_columns_many([b"1 2 3"], 0, FP_KEY)
    assert impl.extract_columns_many([b"words only"], 0, FP_KEY)[0][0].shape == (0,)


def test_extract_columns_many_rejects_bad_arguments(impl):
    assert impl.extract_columns_many([], 10, FP_KEY) == []
    assert impl.extract_columns_many((), 10, FP_KEY) == []
    with pytest.raises(TypeError, match="datas must be a list or tuple of bytes, not str"):
        impl.extract_columns_many("retries=3", 10, FP_KEY)
    with pytest.raises(TypeError, match="datas must be a list or tuple of bytes, not bytes"):
        impl.extract_columns_many(b"retries=3", 10, FP_KEY)
    for bad in ("x=1", bytearray(b"x=1"), memoryview(b"x=1"), None, 5):
        with pytest.raises(TypeError, match=r"datas\[1\] must be bytes"):
            impl.extract_columns_many([b"ok", bad], 10, FP_KEY)
    for key in (b"short", FP_KEY + b"x", "x" * 32, None, bytearray(FP_KEY)):
        with pytest.raises(ValueError, match="key must be 32 bytes"):
            impl.extract_columns_many([b"retries=3"], 10, key)
    with pytest.raises(ValueError, match="max_spans must be >= 0"):
        impl.extract_columns_many([b"retries=3"], -1, FP_KEY)


def test_extract_columns_many_survives_a_failed_call(impl):
    """A call that fails part-way (a later text over the limit) leaves nothing behind that
    changes the next call's answer (the native scratch space is reused)."""
    datas = [b"retries=3 " * 50, b"x=1 y=2 " * 40, b"1 2 3 4 5 6"]
    want = impl.extract_columns_many(datas, 10**4, FP_KEY)
    with pytest.raises(LimitExceededError):
        impl.extract_columns_many(datas, 5, FP_KEY)
    for got, expected, data in zip(impl.extract_columns_many(datas, 10**4, FP_KEY), want, datas):
        assert_same_extraction(got, expected, data)


def test_extract_columns_with_hashing_in_python():
    """A partial build (native scanner, reference hashing) frames natively and hashes through
    provgate._hashing: the same columns."""
    if NO_EXTENSIONS:
        pytest.skip(NATIVE_ABSENT)
    native = importlib.import_module("provgate._ext.scanner")
    data = (b"retries=3 5 5 [src:x] 'q' Amanda --max-retries=2 v1.0 " * 30) + "naïve €500".encode()
    assert_same_extraction(
        native._extract_columns_with_python_hashing(data, 10**7, FP_KEY),
        _scanner_py.extract_columns(data, 10**7, FP_KEY),
        data,
    )


def test_extract_columns_many_with_hashing_in_python_reads_every_byte():
    """A partial build's extract_columns_many (native scanner, reference hashing: here the
    switch set to the reference in a child process) gives each text's columns as
    extract_columns does, a text holding NUL bytes included (red team 58: the texts went to
    the hashing in Python through a C pointer, cut at their first NUL byte, and a text over
    max_spans passed as one span)."""
    if NO_EXTENSIONS:
        pytest.skip(NATIVE_ABSENT)
    child = textwrap.dedent("""
        from provgate import _hashing, _scanner_py
        from provgate._ext import scanner
        from provgate.errors import LimitExceededError
        assert _hashing.C_API is None  # (the reference hashing: the partial build's path)
        key = b"k" * 32
        texts = [b"retries=3\\x00port=80 [src:a]\\x00v1.2 'q' 42\\n", b"", b"\\x00\\x00x=1"]
        for got, want in zip(scanner.extract_columns_many(texts, 10**6, key),
                             _scanner_py.extract_columns_many(texts, 10**6, key)):
            assert [c.tolist() for c in got] == [c.tolist() for c in want], (got, want)
        try:
            scanner.extract_columns_many([texts[0]], 2, key)
        except LimitExceededError:
            print("ok")
    """)
    env = {**os.environ, "PROVGATE_NO_EXTENSIONS": "1"}
    done = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_extract_columns_releases_the_gil():
    if NO_EXTENSIONS:
        pytest.skip(NATIVE_ABSENT)
    from reconstruct_helpers import observed_while_running

    native = importlib.import_module("provgate._ext.scanner")
    data = ("retries=%d Amanda /etc/x.conf 'q' e3b0c44 " * 40000).encode()
    native.extract_columns(data, 10**7, FP_KEY)  # warm: imports, scratch
    assert observed_while_running(lambda: sum(range(5_000_000))) == 0
    assert observed_while_running(lambda: native.extract_columns(data, 10**7, FP_KEY)) > 0
    pieces = [data[k : k + 40_000] for k in range(0, len(data), 40_000)]  # extract_columns_many too
    assert observed_while_running(lambda: native.extract_columns_many(pieces, 10**7, FP_KEY)) > 0


@pytest.mark.parametrize("tail", [b"\xff", b"\xc3", b"\xe2\x82", "é".encode(), "€".encode(), "😀".encode(), b"\xed\xa0\x80"])
def test_utf8_error_offset_after_long_ascii(impl, tail):
    """The native check skips ASCII 64 and 16 bytes at a time: errors right after, inside and
    across those blocks are still found at their first byte."""
    for k in list(range(0, 140)) + [1000, 4095, 4096, 4097, 70000]:
        data = b"a" * k + tail + b"b" * (k % 70)
        assert impl.utf8_error_offset(data) == _scanner_py.utf8_error_offset(data), (k, tail)


# -- span_values: the distinct value texts of one kind of row (the gate's marker names) ------

def _marker_table(text: str):
    from provgate.facts import extract
    return extract(text)


def test_span_values_are_the_distinct_markers_in_order(impl):
    t = _marker_table("per [src:call_8] and [src:doc:guide], again [src:call_8]; [src:ünï] x=1\n")
    from provgate.facts import Kind
    cit = int(Kind.CITATION)
    got = impl.span_values(t.data, t.kind, t.value_start, t.value_end, cit)
    assert got == ("call_8", "doc:guide", "ünï")
    assert impl.span_values(t.data, t.kind, t.value_start, t.value_end, 255) == ()
    # views: every other row of the columns, read through their strides
    rows = slice(None, None, 2)
    expected = _scanner_py.span_values(t.data, t.kind[rows].copy(), t.value_start[rows].copy(),
                                       t.value_end[rows].copy(), cit)
    assert impl.span_values(t.data, t.kind[rows], t.value_start[rows], t.value_end[rows], cit) == expected


@settings(max_examples=200, deadline=None)
@given(text=st.lists(st.sampled_from(["[src:", "a", "]", "b:c", " ", "é", "😀", "\n", "x=1"]), max_size=30).map("".join))
def test_span_values_native_agree_with_the_reference(text):
    from provgate.facts import Kind
    t = _marker_table(text)
    for wanted in (int(Kind.CITATION), int(Kind.IDENTIFIER), int(Kind.KV)):
        expected = _scanner_py.span_values(t.data, t.kind, t.value_start, t.value_end, wanted)
        for which in IMPLEMENTATIONS:
            got = load_implementation("scanner", "_scanner_py", which).span_values(
                t.data, t.kind, t.value_start, t.value_end, wanted)
            assert got == expected


def test_span_values_refuse_bad_input(impl):
    kind = np.array([3, 3], dtype=np.uint8)
    vs, ve = np.array([0, 1], dtype=np.int64), np.array([1, 9], dtype=np.int64)
    with pytest.raises(TypeError, match="data must be bytes, not str"):
        impl.span_values("ab", kind, vs, ve, 3)
    with pytest.raises(TypeError, match="kind must be a 1-D uint8 array"):
        impl.span_values(b"ab", kind.astype(np.int64), vs, ve, 3)
    with pytest.raises(TypeError, match="value_end must be a 1-D int64 array"):
        impl.span_values(b"ab", kind, vs, ve.astype(np.int32), 3)
    with pytest.raises(InvalidArgumentError, match="value_start has 1 rows for 2 kinds"):
        impl.span_values(b"ab", kind, vs[:1], ve, 3)
    with pytest.raises(TypeError, match="wanted must be an int, not bool"):
        impl.span_values(b"ab", kind, vs, ve, True)
    with pytest.raises(InvalidArgumentError, match="wanted must be in 0..255, got 300"):
        impl.span_values(b"ab", kind, vs, ve, 300)
    with pytest.raises(InvalidArgumentError, match=r"the value span of row 1, \[1, 9\), is outside the 2 bytes"):
        impl.span_values(b"ab", kind, vs, ve, 3)
    with pytest.raises(UnicodeDecodeError):
        impl.span_values(b"\xff\xfe", kind, vs, np.array([1, 2], dtype=np.int64), 3)


# -- first_invalid_row: could a scan have made these columns? ------------------------------------

from provgate.facts import Kind

_MAX_KIND, _MAX_VALUE_KIND, _KV = int(max(Kind)), _scanner_py.VALUE_HEX, int(Kind.KV)


@st.composite
def _table_columns(draw):
    """Columns a scan could have made (sorted rows, spans in the text, keys only on kv rows),
    then a few values bent anywhere, or rows swapped: every check gets to be the first to fail."""
    n = draw(st.integers(0, 12))
    size = draw(st.integers(1, 40))
    rows = []
    for _ in range(n):
        s = draw(st.integers(0, size - 1))
        e = draw(st.integers(s + 1, size))
        k = draw(st.integers(1, _MAX_KIND))
        ks, ke = (s, draw(st.integers(s, e))) if k == _KV else (-1, -1)
        rows.append((k, s, e, ks, ke, s, e, draw(st.integers(0, _MAX_VALUE_KIND))))
    rows.sort(key=lambda r: (r[1], r[2], r[0]))
    cols = [np.array([r[c] for r in rows], dtype=np.uint8 if c in (0, 7) else np.int64) for c in range(8)]
    for _ in range(draw(st.integers(0, 2)) if n else 0):
        i = draw(st.integers(0, n - 1))
        if draw(st.integers(0, 4)) == 0:
            j = draw(st.integers(0, n - 1))
            for column in cols:
                column[[i, j]] = column[[j, i]]
        else:
            c = draw(st.integers(0, 7))
            cols[c][i] = draw(st.integers(0, 12) if c in (0, 7) else st.integers(-2, size + 2))
    return (size, *cols)


@settings(DIFFERENTIAL, max_examples=examples(500))
@given(_table_columns())
def test_first_invalid_row_native_agrees_with_the_reference(impl, columns):
    assert (impl.first_invalid_row(*columns, _MAX_KIND, _MAX_VALUE_KIND, _KV)
            == _scanner_py.first_invalid_row(*columns, _MAX_KIND, _MAX_VALUE_KIND, _KV))


def test_first_invalid_row_reports_the_first_failing_check_and_row(impl):
    data = b"retries=3 and 42 [src:a] 'q' v1.2"
    cols = impl.extract_columns(data, 10**6, FP_KEY)[:8]
    kind, start, end, ks, ke, vs, ve, vk = (np.array(c) for c in cols)

    def args():
        return len(data), kind, start, end, ks, ke, vs, ve, vk, _MAX_KIND, _MAX_VALUE_KIND, _KV

    assert impl.first_invalid_row(*args()) is None
    end[3] = len(data) + 1
    kind[4] = 0
    assert impl.first_invalid_row(*args()) == (4, "unknown kind")  # an earlier check wins over an earlier row
    kind[4] = cols[0][4]
    assert impl.first_invalid_row(*args()) == (3, "span outside the text")
    end[3] = cols[2][3]
    for column in (kind, start, end, ks, ke, vs, ve, vk):  # rows 1 and 2 swapped, whole
        column[[1, 2]] = column[[2, 1]]
    assert impl.first_invalid_row(*args()) == (1, "rows out of order")
    # a copy of the last row first: a stable sort moves position 0
    rows = [np.concatenate([c[-1:], c]) for c in (np.array(x) for x in cols)]
    assert impl.first_invalid_row(len(data), *rows, _MAX_KIND, _MAX_VALUE_KIND, _KV) == (0, "rows out of order")
    # columns of another dtype or layout: checked all the same
    strided = [np.repeat(np.array(c), 2)[::2] for c in cols]
    assert impl.first_invalid_row(len(data), *strided, _MAX_KIND, _MAX_VALUE_KIND, _KV) is None


# -- review 4 (native vs reference): odd arguments get the reference's answer or error ----------


@pytest.mark.parametrize("data", [None, "text", 7, np.frombuffer(b"x=1", dtype=np.uint8)])
def test_data_that_is_not_bytes_like_is_refused_everywhere(impl, data):
    """Native read None as an empty (so valid) text and took numpy buffers (review 4, a02)."""
    for call in (lambda: impl.scan(data, 100), lambda: impl.utf8_error_offset(data),
                 lambda: impl.extract_columns(data, 100, FP_KEY)):
        with pytest.raises(TypeError, match="data must be bytes-like"):
            call()


def test_bytes_like_data_of_any_shape_is_read_as_its_bytes(impl):
    text = b"retries=3 at /etc/app.conf"
    want = [c.tolist() for c in impl.scan(text, 100)]
    spread = bytes(b for c in text for b in (c, 0))
    for data in (bytearray(text), memoryview(text), memoryview(spread)[::2],
                 memoryview(bytearray(text)).cast("B", (2, len(text) // 2))):
        assert [c.tolist() for c in impl.scan(data, 100)] == want
    assert impl.utf8_error_offset(memoryview(b"ok \xff")[::1]) == 3
    assert impl.utf8_error_offset(bytearray(b"\xff")) == 0


@pytest.mark.parametrize("max_spans", [sys.maxsize, 2**63, 2**64])
def test_a_limit_beyond_any_text_is_no_limit(impl, max_spans):
    """max_spans + 1 (room for a fence placeholder) wrapped for sys.maxsize, and 2**63 did not
    fit the native count (review 4, a07 and a08)."""
    for text in (b'the flag is "on"', b"```\nretries=3\n```", b"retries=3"):
        assert [c.tolist() for c in impl.scan(text, max_spans)] == [c.tolist() for c in impl.scan(text, 100)]
        assert len(impl.extract_columns(text, max_spans, FP_KEY)[0]) == len(impl.scan(text, 100)[0])
        assert len(impl.extract_columns_many([text], max_spans, FP_KEY)[0][0]) == len(impl.scan(text, 100)[0])


@pytest.mark.parametrize("max_spans, error", [(-1, ValueError), (1.5, TypeError), (True, TypeError), ("9", TypeError)])
def test_a_bad_limit_is_the_same_error_in_both(impl, max_spans, error):
    for call in (lambda: impl.scan(b"x=1", max_spans), lambda: impl.extract_columns(b"x=1", max_spans, FP_KEY),
                 lambda: impl.extract_columns_many([b"x=1"], max_spans, FP_KEY)):
        with pytest.raises(error, match="max_spans"):
            call()


@pytest.mark.parametrize("column, value", [("kind", 257), ("kind", -255), ("value_kind", 256)])
def test_frame_facts_names_a_kind_beyond_a_byte(impl, column, value):
    """A uint8 cast wrapped a kind of 257 round to 1 (raw) natively (review 4, a03)."""
    data = b"retries=3 x"
    cols = {"kind": [1], "key_start": [-1], "key_end": [-1], "value_start": [8], "value_end": [9], "value_kind": [0]}
    cols[column] = [value]
    arrays = {k: np.array(v, dtype=np.int64) for k, v in cols.items()}
    with pytest.raises(SpanError, match=f"unknown {column.replace('_', ' ')} {value}"):
        impl.frame_facts(data, **arrays)


def test_byte_swapped_columns_are_read_as_their_values(impl):
    """Native read big-endian int64 columns byte by byte as native ones (review 4, a04)."""
    data = b"Paris and NASA"
    cols = [np.array(c) for c in impl.extract_columns(data, 100, FP_KEY)[:8]]
    swapped = [c.astype(c.dtype.newbyteorder(">")) if c.dtype == np.int64 else c for c in cols]
    assert impl.first_invalid_row(len(data), *swapped, _MAX_KIND, _MAX_VALUE_KIND, _KV) is None
    start = cols[1].copy()
    start[0] = 10 * 2**56
    bent = [*cols[:1], start.astype(">i8"), *cols[2:]]
    assert impl.first_invalid_row(len(data), *bent, _MAX_KIND, _MAX_VALUE_KIND, _KV) == (0, "span outside the text")


def test_first_invalid_row_of_a_size_beyond_int64(impl):
    data = b"retries=3"
    cols = impl.extract_columns(data, 100, FP_KEY)[:8]
    for size in (2**63, 2**64):  # every span is inside such a text (natively: OverflowError, a06)
        assert impl.first_invalid_row(size, *cols, _MAX_KIND, _MAX_VALUE_KIND, _KV) is None


def test_span_values_of_byte_swapped_columns_is_a_type_error(impl):
    t = _marker_table("per [src:call_8]\n")
    from provgate.facts import Kind
    with pytest.raises(TypeError):
        impl.span_values(t.data, t.kind, t.value_start.astype(">i8"), t.value_end.astype(">i8"), int(Kind.CITATION))


# -- stop 39 (red team 94, F01/F03/F04): tokens whose digits or names were no fact ---------------

# F01: a digit run after "<word>." now belongs to a fact: a dotted identifier whose later parts
# may start with a digit, and a number or version going on with ".post3"-like parts.
# F04: a dot-file name. F03: a URL goes on over [ ] { } ^ | in its query or fragment.
STOP39_CASES = [
    ("Deployed 2.0.0-rc.1 to", [("number", "2.0.0"), ("identifier", "rc.1")]),
    ("1.2.3-beta.2 1.24.3-eksbuild.1", [("number", "1.2.3"), ("identifier", "beta.2"),
                                        ("number", "1.24.3"), ("identifier", "eksbuild.1")]),
    ("1.2.3+build.5", [("number", "1.2.3"), ("identifier", "build.5")]),
    ("4.2.1.post3 2.0.0.dev1 v4.2.1.post3", [("number", "4.2.1.post3"), ("number", "2.0.0.dev1"),
                                            ("number", "v4.2.1.post3")]),
    ("python3.11 py3.12 jdk1.8 ubuntu22.04 alpine3.18 TLSv1.3 go1.21.5",
     [("identifier", t) for t in ["python3.11", "py3.12", "jdk1.8", "ubuntu22.04", "alpine3.18", "TLSv1.3",
                                  "go1.21.5"]]),
    ("libssl.so.1.1 libc.so.6 c6g.2xlarge shard.12", [("identifier", t) for t in
                                                      ["libssl.so.1.1", "libc.so.6", "c6g.2xlarge", "shard.12"]]),
    ("see No.5512 and Fig.3, p.12 ch.7 vol.2 sec.4.2 rev.4",
     [("identifier", t) for t in ["No.5512", "Fig.3", "p.12", "ch.7", "vol.2", "sec.4.2", "rev.4"]]),
    # (grammar v8: an image tag pins its name, an identifier, as lodash@4.17.21 does)
    ("nginx:1.25.3-alpine3.18", [("identifier", "nginx"), ("number", "1.25.3"), ("identifier", "alpine3.18")]),
    ("openssl-3.0.7-24.el9.x86_64", [("number", "3.0.7"), ("number", "24.el9")]),
    ("from .env.production and .eslintrc.json, ~ .bashrc (.github) *.log build/*.o",
     [("identifier", t) for t in [".env.production", ".eslintrc.json", ".bashrc", ".github", ".log", ".o"]]),
    ("https://api.example.com/issues?filter[status]=open now",
     [("url", "https://api.example.com/issues?filter[status]=open")]),
    ("https://g.example.com/d/x?var-env={prod}&q=x|prod^2#a[1]",
     [("url", "https://g.example.com/d/x?var-env={prod}&q=x|prod^2#a[1]")]),
]

# honest text that reads as before
STOP39_UNCHANGED = [
    ("version 3. and 3.5, v1.2.3 v2.0.0rc1 10.0.0.1", [("number", "3"), ("number", "3.5"), ("number", "v1.2.3"),
                                                    ("number", "v2.0.0rc1"), ("number", "10.0.0.1")]),
    ("./run.sh ../x/y.py ... .5 wait..no", [("path", "./run.sh"), ("path", "../x/y.py"), ("number", ".5")]),
    ("[docs](https://x.io/a?b=1) [https://x.io/?q=2] {u: https://x.io/?c=3} <https://x.io/?d=4>",
     [("url", "https://x.io/a?b=1"), ("url", "https://x.io/?q=2"), ("url", "https://x.io/?c=3"),
      ("url", "https://x.io/?d=4")]),
    ("(see https://x.io/a_(b)?q=[1]). at https://x.io/?q=1[src:tool:call_1]",
     [("url", "https://x.io/a_(b)?q=[1]"), ("url", "https://x.io/?q=1"), ("citation", "[src:tool:call_1]")]),
    ("https://x.io/a[b]?q=1 https://x.io/p\\q?r", [("url", "https://x.io/a"), ("url", "https://x.io/p")]),
]


@pytest.mark.parametrize("text,expected", STOP39_CASES + STOP39_UNCHANGED)
def test_stop39_red_team_94(impl, text, expected):
    got = [(kind, literal) for kind, literal, _key, _value in spans(impl, text)
           if kind in {"number", "identifier", "url", "path", "citation"}]
    assert got == expected


def test_stop39_honest_dots_unchanged(impl):
    got = [(k, t) for k, t, _, _ in spans(impl, "setup.py app.ini os.path.join e.g. U.S. a.1 eu-west-1.Then 3.Then")]
    assert got == [("identifier", "setup.py"), ("identifier", "app.ini"), ("identifier", "os.path.join"),
                   ("number", "1"), ("number", "3")]


@pytest.mark.parametrize("old,new", [
    ("2.0.0-rc.1", "2.0.0-rc.2"), ("1.2.3+build.5", "1.2.3+build.6"), ("4.2.1.post3", "4.2.1.post4"),
    ("2.0.0.dev1", "2.0.0.dev2"), ("python3.11", "python3.12"), ("py3.12", "py3.13"), ("jdk1.8", "jdk1.9"),
    ("ubuntu22.04", "ubuntu22.05"), ("alpine3.18", "alpine3.19"), ("nginx:1.25.3-alpine3.18", "nginx:1.25.3-alpine3.19"),
    ("libssl.so.1.1", "libssl.so.1.0"), ("libc.so.6", "libc.so.7"), ("No.5512", "No.5521"), ("Fig.3", "Fig.4"),
    ("p.12", "p.13"), ("ch.7", "ch.8"), ("vol.2", "vol.3"), ("sec.4.2", "sec.4.3"), ("rev.4", "rev.5"),
    ("\u20ac1.500,00", "\u20ac1.600,00"), ("TLSv1.3", "TLSv1.4"), ("c6g.2xlarge", "c6g.8xlarge"),
    (".env.production", ".env.staging"), (".eslintrc.json", ".prettierrc.json"), (".bashrc", ".zshrc"),
    ("*.log", "*.tmp"), ("build/*.o", "build/*.c"),
    ("https://api.example.com/issues?filter[status]=open", "https://api.example.com/issues?filter[status]=closed"),
    ("https://grafana.example.com/d/x?var-env={prod}", "https://grafana.example.com/d/x?var-env={dev}"),
    ("https://example.com/a?q=x|prod", "https://example.com/a?q=x|dev"),
])
def test_stop39_changed_value_is_a_changed_fact(impl, old, new):
    """red team 94 F01/F03/F04 (matrix/digitfuzz.py's 21 tokens among them): the change is seen."""
    def facts(t):
        return sorted((k, key, v) for k, _lit, key, v in spans(impl, f"The value is {t} today."))
    assert facts(old) != facts(new)
