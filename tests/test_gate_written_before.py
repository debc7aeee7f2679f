"""``_AbbreviationSources.written_before`` answers from (name, version) pairs gathered in one pass
over the sources (eng-ver6's finding: a regular expression made and searched per question took
9 s for 1,000 questions over a 79 KB log). The oracle is that per-question expression: the index
must answer every question as it does."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from provgate.facts import extract
from provgate.gate import _AbbreviationSources, _Facts


def _oracle(datas: list[bytes], name: bytes, value: bytes) -> bool:
    bare = value[1:] if value[:1] in b"vV" else value
    pattern = re.compile(rb"(?<![0-9A-Za-z_.-])" + re.escape(name) + rb"(?:[ \t]++(?:[Vv]ersion[ \t]++)?|==|@|:)"
                         rb"[vV]?" + re.escape(bare) + rb"(?![0-9A-Za-z+]|[.-][0-9])", re.IGNORECASE)
    return any(pattern.search(data) is not None for data in datas)


def _sources(*texts: bytes) -> _AbbreviationSources:
    return _AbbreviationSources([_Facts(extract(t)) for t in texts])


NAMES = [b"numpy", b"NumPy", b"node", b"a.b", b"foo-bar", b"foo", b"bar", b"version", b"x"]
VALUES = [b"1.26", b"1.26.2", b"v1.26", b"2.1", b"1.26rc1", b"1.26-beta", b"18.17.0", b"1", b"1.2.3-rc.1", b"0.5"]
PIECES = [b"numpy", b"NumPy", b"node", b"a.b", b"foo-bar", b"foo", b"bar", b"version", b"Version", b"x",
          b" ", b"\t", b"  ", b"==", b"@", b":", b"v", b"V", b"1.26", b"1.26.2", b"2.1", b".", b"-", b"+",
          b"rc1", b"beta", b"18.17.0", b"\n", b"0.5", b"_", b"1", b"(", b")", b","]


@settings(max_examples=400)
@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=14).map(b"".join), min_size=1, max_size=3))
def test_the_index_answers_as_the_expression_per_question(datas):
    found = _AbbreviationSources([_Facts(extract(d)) for d in datas])
    for name in NAMES:
        for value in VALUES:
            assert found.written_before(name, value) == _oracle(datas, name, value), (datas, name, value)


def test_examples():
    found = _sources(b"deps: numpy 1.26.\nnode@v18.17.0 and Foo-Bar==2.1 x:1.26-beta\n")
    assert found.written_before(b"numpy", b"1.26")
    assert found.written_before(b"NUMPY", b"v1.26")
    assert found.written_before(b"node", b"18.17.0")
    assert found.written_before(b"foo-bar", b"2.1")
    assert found.written_before(b"x", b"1.26-beta") and found.written_before(b"x", b"1.26")
    assert not found.written_before(b"bar", b"2.1")  # (a name's tail is no name)
    assert not found.written_before(b"numpy", b"1.2")


def test_many_questions_over_a_large_source_read_it_once():
    """1,000 distinct questions over a 300 KB source are answered from one pass over it (the
    per-question search took seconds): the pairs are gathered on the first question and every
    later answer is a look-up in them."""
    data = b"".join(b"key%d:0.%d " % (i, i) for i in range(20_000))
    found = _sources(data)
    assert found.written_before(b"key0", b"0.0")
    pairs = found._written
    assert pairs is not None and len(pairs) >= 20_000
    assert all(found.written_before(b"key%d" % i, b"0.%d" % i) for i in range(1, 1000))
    assert not found.written_before(b"key1", b"0.2")
    assert found._written is pairs  # (not gathered again)
