"""An edit pointer given as a store pointer's JSON keeps what it says (red team 122, F06): its
``source_digest`` was dropped unread, so P accepted a pointer cut from another content of the
handle that ``SourceStore.resolve`` refuses (``source_changed``); and ``hash`` with a different
``span_digest`` kept one digest and dropped the other unread. P now checks the source digest when
given, and two digests of one span that differ are refused at parse time, naming the field."""

from __future__ import annotations

import hashlib
import json

import pytest

from provgate import Gate, SourceStore
from provgate.errors import EditFormatError, ProvenanceResolutionError
from provgate.pointers import Pointer
from provgate.window import Citation, parse_edit

OLD, NEW = "retries=3\ntimeout=30\n", "retries=9\ntimeout=99\n"
BLK = {"id": "b", "role": "tool", "text": NEW, "handles": ["tool:x"]}


def stores():
    a, b = SourceStore(":memory:"), SourceStore(":memory:")
    a.put("tool:x", OLD)  # the content the lying pointer was cut from
    b.put("tool:x", NEW)  # the store the gate checks against
    return a, b


def reasons(verdict):
    return [(v.invariant, v.evidence.get("reason")) for v in verdict.violations]


@pytest.mark.parametrize("algorithm", ["blake3", "sha256"])
def test_a_pointer_cut_from_another_source_is_refused_by_p_as_resolve_refuses_it(algorithm):
    a, b = stores()
    j = a.pointer("tool:x", 0, 7, algorithm=algorithm).to_json()  # "retries": the same bytes in both
    with pytest.raises(ProvenanceResolutionError) as err:
        b.resolve(Pointer.from_json(j))
    assert err.value.reason == "source_changed"
    for pointer in (dict(j, block="b"), Citation.from_pointer(Pointer.from_json(j), "b")):
        v = Gate(b).check([BLK], [BLK], operator="rewrite", pointers=[pointer])
        assert not v.accepted and reasons(v) == [("P", "source_changed")]
    edit = parse_edit(json.dumps({"operator": "rewrite", "pre": [BLK], "post": [BLK], "pointers": [dict(j, block="b")]}))
    assert edit.pointers[0].source_digest == j["source_digest"]
    assert edit.to_json()["pointers"][0]["source_digest"] == j["source_digest"]
    assert reasons(Gate(b).check_edit(edit)) == [("P", "source_changed")]


@pytest.mark.parametrize("algorithm", ["blake3", "sha256"])
def test_an_honest_store_pointer_and_a_pointer_without_a_source_digest_are_accepted(algorithm):
    _, b = stores()
    j = b.pointer("tool:x", 0, 7, algorithm=algorithm).to_json()
    assert b.resolve(Pointer.from_json(j)) == "retries"
    bare = {"block": "b", "handle": "tool:x", "start": 0, "end": 7, "hash": j["span_digest"]}
    for pointer in (dict(j, block="b"), dict(j, block="b", hash=j["span_digest"]), bare,
                    Citation.from_pointer(Pointer.from_json(j), "b")):
        v = Gate(b).check([BLK], [BLK], operator="rewrite", pointers=[pointer])
        assert v.accepted, reasons(v)
    assert "source_digest" not in Citation.from_json(bare, "p").to_json()


def test_a_malformed_source_digest_is_a_p_violation():
    _, b = stores()
    j = dict(b.pointer("tool:x", 0, 7).to_json(), block="b", source_digest="blake3:zz")
    assert reasons(Gate(b).check([BLK], [BLK], operator="rewrite", pointers=[j])) == [("P", "malformed_digest")]


@pytest.mark.parametrize("bad", [7, "", ["blake3:00"]])
def test_a_source_digest_that_is_no_string_is_refused_naming_it(bad):
    _, b = stores()
    j = dict(b.pointer("tool:x", 0, 7).to_json(), block="b", source_digest=bad)
    with pytest.raises(EditFormatError, match="source_digest") as err:
        parse_edit(json.dumps({"operator": "rewrite", "pre": [BLK], "post": [BLK], "pointers": [j]}))
    assert err.value.field == "pointers[0].source_digest"


def test_hash_and_span_digest_that_differ_are_refused_as_ambiguous():
    _, b = stores()
    j = b.pointer("tool:x", 0, 7).to_json()  # span_digest names "retries"
    two = dict(j, block="b", start=8, end=9, hash=b.pointer("tool:x", 8, 9).span_digest)
    with pytest.raises(EditFormatError, match="differs from hash") as err:
        parse_edit(json.dumps({"operator": "rewrite", "pre": [BLK], "post": [BLK], "pointers": [two]}))
    assert err.value.field == "pointers[0].span_digest"
    with pytest.raises(EditFormatError, match="ambiguous"):
        Gate(b).check([BLK], [BLK], operator="rewrite", pointers=[two])


def test_a_null_span_digest_is_not_given_and_another_algorithm_is_named():
    # red team 124, F08: a span_digest of null, or of another algorithm, was refused as
    # "differs from hash" with no word of why
    _, b = stores()
    j = b.pointer("tool:x", 0, 7).to_json()
    pointer = dict(j, block="b", hash=j["span_digest"], span_digest=None)
    edit = parse_edit(json.dumps({"operator": "rewrite", "pre": [BLK], "post": [BLK], "pointers": [pointer]}))
    assert edit.pointers[0].hash == j["span_digest"]
    sha = "sha256:" + hashlib.sha256(b"retries").hexdigest()
    with pytest.raises(EditFormatError, match="another algorithm") as err:
        parse_edit(json.dumps({"operator": "rewrite", "pre": [BLK], "post": [BLK],
                               "pointers": [dict(j, block="b", hash=sha)]}))
    assert err.value.field == "pointers[0].span_digest"


# -- red team 122, F09: an inline source under a block's text handle must be that text ---------


def test_an_inline_source_under_a_block_text_handle_that_is_another_text_is_refused_naming_it(tmp_path):
    from blake3 import blake3

    from provgate.handles import block_text_handle

    b = {"id": "b", "role": "tool", "text": "x\n", "handles": ["tool:a"]}
    wrong = "block:" + "0" * 32
    edit = {"operator": "rewrite", "pre": [b], "post": [b], "sources": {"tool:a": "x\n", wrong: "not the text it names"}}
    with pytest.raises(EditFormatError) as err:
        parse_edit(json.dumps(edit))
    assert err.value.field == f"sources[{wrong!r}]"
    # the command line refuses it before a store is made
    import provgate.cli as cli

    path, store = tmp_path / "e.json", tmp_path / "s.sqlite3"
    path.write_text(json.dumps(edit))
    assert cli.main(["check", str(path), "--store", str(store), "--create"]) == 2 and not store.exists()
    # the text it names is taken
    text = "the summary's words\n"
    right = block_text_handle(blake3(text.encode()).digest())
    ok = parse_edit(json.dumps(dict(edit, sources={"tool:a": "x\n", right: text})))
    assert ok.sources[right] == text
