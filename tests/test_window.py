"""The window model and the edit format ``provgate.edit/1``: lossless JSON round trips, strict
reading (every wrong type names its field), and agreement between the JSON Schema file and the
parser, so the two cannot drift apart."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate_helpers import blk, gate_for, pointer_to, store_state, tool
from provgate.errors import EditFormatError
from provgate.gate import Gate
from provgate.window import (
    FORMAT,
    LOSSLESS_OPERATORS,
    LOSSY_OPERATORS,
    MAX_HANDLE_BYTES,
    MAX_ID_CHARS,
    OPERATORS,
    ROLES,
    Block,
    Citation,
    Edit,
    Supersession,
    Window,
    loads_json,
    parse_edit,
)

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "src" / "provgate" / "schema" / "edit-v1.schema.json").read_text(encoding="utf-8"))
sys.path.insert(0, str(ROOT / "benchmarks"))
import corpus  # noqa: E402


def minimal(**top: Any) -> dict[str, Any]:
    edit = {
        "operator": "rewrite",
        "pre": [blk("b1", "tool", "retries=3\n", ["tool:call_1"])],
        "post": [blk("b1", "tool", "retries=3\n", ["tool:call_1"]),
                 blk("b2", "assistant", "ok\n"), blk("b3", "assistant", "ok\n"), blk("b4", "assistant", "ok\n")],
    }
    edit.update(top)
    return edit


def format_error(doc: Any) -> EditFormatError:
    with pytest.raises(EditFormatError) as info:
        parse_edit(doc)
    return info.value


# -- model ------------------------------------------------------------------------------------


def test_block_defaults_and_provenance():
    b = Block.from_json({"id": "b1", "role": "tool", "text": "x", "handles": ["tool:a"]})
    assert (b.handles, b.derived, b.derived_from, b.pinned, b.ts, b.resource) == (("tool:a",), False, (), False, None, None)
    assert b.provenance == ("tool:a",)
    d = Block.from_json({"id": "s", "role": "summary", "text": "x", "derived": True, "derived_from": ["tool:a"],
                         "handles": ["tool:b"]})
    assert d.provenance == ("tool:a",)


def test_python_blocks_get_the_same_checks_as_json():
    with pytest.raises(EditFormatError) as info:
        Block("b1", "robot", "x")
    assert info.value.field == "block.role"
    with pytest.raises(EditFormatError) as info:
        Block("b1", "tool", "x", handles=("tool:a", 5))  # type: ignore[arg-type]
    assert info.value.field == "block.handles[1]"
    b = Block("b1", "tool", "x", handles=["tool:a"], ts=5)  # type: ignore[arg-type]
    assert b.handles == ("tool:a",) and b.ts == 5.0 and isinstance(b.ts, float)
    assert hash(b) == hash(Block("b1", "tool", "x", handles=("tool:a",), ts=5.0))


def test_window_is_an_immutable_sequence_with_lookup_by_id():
    w = Window([blk("a", "user", "1"), blk("b", "user", "2")])
    assert len(w) == 2 and [b.id for b in w] == ["a", "b"] and w[1].id == "b"
    assert w.get("b").text == "2" and w.get("zz") is None and w.index("b") == 1
    assert w == Window(w.to_json()) and hash(w) == hash(Window(w.to_json()))
    assert Window.coerce(w) is w
    for bad in ("text", b"bytes", {"id": "a"}):
        with pytest.raises(EditFormatError):
            Window.coerce(bad, "post")


def test_operator_families_partition_the_operators():
    assert LOSSLESS_OPERATORS == {"prune", "dedupe", "reorder", "rewrite"}
    assert LOSSY_OPERATORS == {"summarize", "abstract", "compress"}
    assert OPERATORS == LOSSLESS_OPERATORS | LOSSY_OPERATORS | {"evict"}
    e = parse_edit(minimal(operator="compress"))
    assert e.lossy and not e.lossless
    assert parse_edit(minimal(operator="evict")).lossless is False


# -- round trips ------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [corpus.prune_edit, corpus.rewrite_edit, corpus.summarize_edit, corpus.drift_edit],
                         ids=["prune", "rewrite", "summarize", "drift"])
def test_corpus_edits_round_trip_exactly(make):
    doc = make(corpus.make_window(20_000, seed=2))
    edit = Edit.from_json(doc)
    assert edit.to_json() == doc
    assert Edit.from_json(edit.to_json()) == edit
    for ensure_ascii in (True, False):
        text = json.dumps(doc, ensure_ascii=ensure_ascii)
        assert parse_edit(text) == edit
        assert parse_edit(text.encode("utf-8")) == edit


def test_to_json_fills_defaults_so_the_output_is_complete():
    doc = {"operator": "prune", "pre": [{"id": "a", "role": "user", "text": "hi"}], "post": []}
    out = parse_edit(doc).to_json()
    assert out["format"] == FORMAT
    assert out["pre"] == [{"id": "a", "role": "user", "text": "hi", "handles": [], "derived": False,
                           "derived_from": [], "pinned": False, "ts": None}]
    assert out["evicted"] == [] and out["supersedes"] == [] and out["pointers"] == []
    assert "sources" not in out


_HANDLE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1,
                  max_size=40).filter(lambda h: len(h.encode("utf-8")) <= MAX_HANDLE_BYTES)
_ID = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=30)
# text: astral characters, NUL and the empty string all included
_TEXT = st.one_of(st.just(""), st.text(st.characters(blacklist_categories=("Cs",)), max_size=80),
                  st.text(st.sampled_from("a\x00\n😀𝄞\U0010ffffé€\u2028\"\\"), max_size=40))
# (within +-2**53: red team 49, F05)
_TS = st.one_of(st.none(), st.floats(-2.0**53, 2.0**53, allow_nan=False), st.integers(-2**53, 2**53))


@st.composite
def blocks(draw, ids):
    return {
        "id": draw(ids),
        "role": draw(st.sampled_from(sorted(ROLES))),
        "text": draw(_TEXT),
        "handles": draw(st.lists(_HANDLE, max_size=3)),
        "derived": draw(st.booleans()),
        "derived_from": draw(st.lists(_HANDLE, max_size=3)),
        "pinned": draw(st.booleans()),
        "ts": draw(_TS),
        **({"resource": draw(_HANDLE)} if draw(st.booleans()) else {}),
    }


def _window(draw):
    return draw(st.lists(blocks(_ID), max_size=5, unique_by=lambda b: b["id"]))


@st.composite
def edits(draw):
    pre, post = _window(draw), _window(draw)
    return {
        "format": FORMAT,
        "operator": draw(st.sampled_from(sorted(OPERATORS))),
        "pre": pre,
        "post": post,
        "evicted": draw(st.lists(_HANDLE, max_size=3)),
        "supersedes": draw(st.lists(st.builds(lambda b, h: {"block": b, "handle": h}, _ID, _HANDLE), max_size=2)),
        "pointers": draw(st.lists(st.builds(
            lambda b, h, s, n, hx: {"block": b, "handle": h, "start": s, "end": s + n, "hash": "blake3:" + hx},
            _ID, _HANDLE, st.integers(0, 2**40), st.integers(0, 2**20),
            st.text("0123456789abcdef", min_size=64, max_size=64)), max_size=2)),
        **({"sources": draw(st.dictionaries(_HANDLE, _TEXT, max_size=3))} if draw(st.booleans()) else {}),
    }


def _normalised(doc: dict) -> dict:
    """What to_json must give back: ts as float, sources only when non-empty."""
    out = copy.deepcopy(doc)
    for side in ("pre", "post"):
        for b in out[side]:
            if b["ts"] is not None:
                b["ts"] = float(b["ts"])
    if not out.get("sources"):
        out.pop("sources", None)
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits())
def test_generated_edits_round_trip_losslessly(doc):
    edit = parse_edit(doc)
    assert edit.to_json() == _normalised(doc)
    for ensure_ascii in (True, False):
        again = parse_edit(json.dumps(edit.to_json(), ensure_ascii=ensure_ascii))
        assert again == edit
        for a, b in zip(again.post, edit.post):
            assert a.text == b.text and type(a.ts) is type(b.ts)
    assert Edit.from_json(edit.to_json()) == edit
    assert schema_errors(edit.to_json()) == []


@settings(max_examples=300, deadline=None)
@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["operator", "pre", "post", "id", "role", "text", "handles", "evicted", "supersedes",
                         "pointers", "sources", "format", "block", "handle", "start", "end", "hash", "x"]),
        inner, max_size=6),
    max_leaves=25))
def test_arbitrary_json_values_are_parsed_or_refused_with_edit_format_error(value):
    try:
        parse_edit(value if isinstance(value, dict) else json.dumps(value))
    except EditFormatError:
        pass


# -- strict reading: every wrong type names its field -----------------------------------------


def test_unknown_fields_are_ignored_everywhere():
    doc = minimal(**{"x-writer": {"v": 2}, "supersedes": [{"block": "b1", "handle": "tool:call_1", "why": "newer"}],
                     "pointers": [{"block": "b1", "handle": "tool:call_1", "start": 0, "end": 1,
                                   "hash": "blake3:" + "0" * 64, "note": 1}]})
    doc["post"][0]["color"] = "red"
    doc["post"][0]["ts_iso"] = "2026-11-12"
    plain = copy.deepcopy(doc)
    del plain["x-writer"], plain["supersedes"][0]["why"], plain["pointers"][0]["note"]
    del plain["post"][0]["color"], plain["post"][0]["ts_iso"]
    assert parse_edit(doc) == parse_edit(plain)


def _set(doc: dict, path: str, value: Any) -> dict:
    """Set ``value`` at a path like ``post[3].handles[0]`` (or delete it for ``...``)."""
    doc = copy.deepcopy(doc)
    parts = re.findall(r"[^.\[\]]+|\[\d+\]", path)
    target: Any = doc
    for part in parts[:-1]:
        target = target[int(part[1:-1])] if part.startswith("[") else target[part]
    last = parts[-1]
    key: Any = int(last[1:-1]) if last.startswith("[") else last
    if value is ...:
        del target[key]
    else:
        target[key] = value
    return doc


POINTER = {"block": "b1", "handle": "tool:call_1", "start": 0, "end": 3, "hash": "blake3:" + "a" * 64}
WRONG = [
    ("operator", 5, "operator"),
    ("operator", "merge", "operator"),
    ("operator", ..., "operator"),
    ("pre", {}, "pre"),
    ("post", "x", "post"),
    ("pre", ..., "pre"),
    ("post[0]", "b1", "post[0]"),
    ("post[3].handles", [7], "post[3].handles[0]"),
    ("post[3].handles", ["tool:a", None], "post[3].handles[1]"),
    ("post[3].handles", "tool:a", "post[3].handles"),
    ("post[3].handles", [""], "post[3].handles[0]"),
    ("post[3].handles", ["tool:\x00a"], "post[3].handles[0]"),
    ("post[3].handles", ["h" * (MAX_HANDLE_BYTES + 1)], "post[3].handles[0]"),
    ("post[3].handles", ["é" * (MAX_HANDLE_BYTES // 2 + 1)], "post[3].handles[0]"),
    ("pre[0].id", 1, "pre[0].id"),
    ("pre[0].id", "", "pre[0].id"),
    ("pre[0].id", "i" * (MAX_ID_CHARS + 1), "pre[0].id"),
    ("pre[0].id", "a\x00b", "pre[0].id"),
    ("pre[0].id", ..., "pre[0].id"),
    ("pre[0].role", "robot", "pre[0].role"),
    ("pre[0].role", 3, "pre[0].role"),
    ("pre[0].role", ..., "pre[0].role"),
    ("pre[0].text", None, "pre[0].text"),
    ("pre[0].text", 5, "pre[0].text"),
    ("pre[0].text", ["a"], "pre[0].text"),
    ("pre[0].text", ..., "pre[0].text"),
    ("pre[0].derived", "true", "pre[0].derived"),
    ("pre[0].derived", 1, "pre[0].derived"),
    ("pre[0].derived_from", [1], "pre[0].derived_from[0]"),
    ("pre[0].derived_from", "tool:a", "pre[0].derived_from"),
    ("pre[0].pinned", 0, "pre[0].pinned"),
    ("pre[0].pinned", None, "pre[0].pinned"),
    ("pre[0].ts", "100", "pre[0].ts"),
    ("pre[0].ts", True, "pre[0].ts"),
    ("pre[0].ts", [1], "pre[0].ts"),
    ("pre[0].resource", 5, "pre[0].resource"),
    ("pre[0].resource", "", "pre[0].resource"),
    ("evicted", "tool:a", "evicted"),
    ("evicted", [5], "evicted[0]"),
    ("evicted", ["tool:a", ""], "evicted[1]"),
    ("supersedes", {}, "supersedes"),
    ("supersedes", [5], "supersedes[0]"),
    ("supersedes", [{"block": "b1"}], "supersedes[0].handle"),
    ("supersedes", [{"handle": "h"}], "supersedes[0].block"),
    ("supersedes", [{"block": 1, "handle": "h"}], "supersedes[0].block"),
    ("supersedes", [{"block": "b1", "handle": ["h"]}], "supersedes[0].handle"),
    ("pointers", "p", "pointers"),
    ("pointers", [POINTER, 1], "pointers[1]"),
    ("pointers", [dict(POINTER, start="0")], "pointers[0].start"),
    ("pointers", [dict(POINTER, start=-1)], "pointers[0].start"),
    ("pointers", [dict(POINTER, start=1.5)], "pointers[0].start"),
    ("pointers", [dict(POINTER, start=True)], "pointers[0].start"),
    ("pointers", [dict(POINTER, end=None)], "pointers[0].end"),
    ("pointers", [dict(POINTER, start=5, end=4)], "pointers[0].end"),
    ("pointers", [dict(POINTER, hash=5)], "pointers[0].hash"),
    ("pointers", [dict(POINTER, hash="")], "pointers[0].hash"),
    ("pointers", [{k: v for k, v in POINTER.items() if k != "hash"}], "pointers[0].hash"),
    ("pointers", [dict(POINTER, block=7)], "pointers[0].block"),
    ("pointers", [dict(POINTER, handle=None)], "pointers[0].handle"),
    ("sources", [], "sources"),
    ("sources", {"tool:a": 5}, "sources['tool:a']"),
    ("sources", {"": "x"}, "sources['']"),
    ("format", 1, "format"),
    ("format", "provgate.edit/2", "format"),
    ("format", "provgate.edit/10.1", "format"),
    ("format", "provgate.edit", "format"),
    ("format", "edit/1", "format"),
]


@pytest.mark.parametrize("path, value, field", WRONG, ids=[f"{p}={v!r}"[:60] for p, v, _ in WRONG])
def test_wrong_values_are_refused_naming_the_field(path, value, field):
    err = format_error(_set(minimal(), path, value))
    assert err.field == field
    assert str(err).startswith(field + ":"), str(err)


# Red team 7, s04: Edit.__post_init__ promises "An Edit built in Python gets the checks a JSON
# edit gets, so nothing unchecked reaches the gate (or its audit log)". Citation and Supersession
# made in Python were not checked at all: Citation(start=-22) sliced the source from its end, was
# accepted and audit-logged, and its to_json() did not parse back; float offsets and a
# Supersession(5, None) reached the gate and raised a raw TypeError.
_PY_WRONG = [
    (Citation, dict(POINTER, start=-1), "start", "must be >= 0"),
    # red team 26, w04: no JSON text carries it; the P check failed formatting it
    (Citation, dict(POINTER, end=10**5000), "end", "must be <= 2**63 - 1"),
    (Citation, dict(POINTER, start=1 << 63, end=1 << 64), "start", "must be <= 2**63 - 1"),
    (Citation, dict(POINTER, start=True), "start", "expected an integer, got boolean"),
    (Citation, dict(POINTER, end=False), "end", "expected an integer, got boolean"),
    (Citation, dict(POINTER, start=0.5), "start", "expected an integer, got number"),
    (Citation, dict(POINTER, end=3.5), "end", "expected an integer, got number"),
    (Citation, dict(POINTER, start=5, end=4), "end", "must be >= start"),
    (Citation, dict(POINTER, end=None), "end", "expected an integer, got null"),
    (Citation, dict(POINTER, block=7), "block", "expected a string"),
    (Citation, dict(POINTER, block=""), "block", "must not be empty"),
    (Citation, dict(POINTER, handle=None), "handle", "expected a string"),
    (Citation, dict(POINTER, handle="tool:\x00"), "handle", "NUL"),
    (Citation, dict(POINTER, handle="tool:\udc80"), "handle", "lone surrogate"),
    (Citation, dict(POINTER, hash=""), "hash", "must not be empty"),
    (Citation, dict(POINTER, hash=b"blake3:"), "hash", "expected a string"),
    (Supersession, {"block": 5, "handle": "tool:a"}, "block", "expected a string"),
    (Supersession, {"block": "b1", "handle": None}, "handle", "expected a string"),
    (Supersession, {"block": "b1", "handle": ""}, "handle", "must not be empty"),
]


@pytest.mark.parametrize("cls, fields, name, words", _PY_WRONG, ids=[f"{c.__name__}-{n}-{w}"[:50] for c, _, n, w in _PY_WRONG])
def test_citations_and_supersessions_made_in_python_get_the_json_checks(cls, fields, name, words):
    kind = "pointers" if cls is Citation else "supersedes"
    with pytest.raises(EditFormatError, match=re.escape(words)) as made:
        cls(**fields)
    assert made.value.field == f"{cls.__name__.lower()}.{name}"
    with pytest.raises(EditFormatError, match=re.escape(words)) as parsed:
        parse_edit(minimal(**{kind: [fields]}))
    assert parsed.value.field == f"{kind}[0].{name}"
    # however it was made, an invalid item does not get into an Edit
    item = object.__new__(cls)
    for key, value in fields.items():
        object.__setattr__(item, key, value)
    with pytest.raises(EditFormatError) as edit:
        Edit("rewrite", Window(), Window(), **{kind: (item,)})
    assert edit.value.field == f"{kind}[0].{name}"


def test_a_python_edits_sources_get_the_checks_parse_edit_gives_them():
    # red team 49, F07: Edit(..., sources={'tool:a': 'x\ud800'}) was built, and only
    # parse_edit(edit.to_json()) refused it; both now raise the same error naming the field
    w = Window([Block("b1", "tool", "x", ("tool:a",))])
    for sources in ({"tool:a": "x\ud800"}, {"tool:a": "é\udfff"}, {"tool:a": 5}, {"": "x"}, {"tool:\x00": "x"}):
        with pytest.raises(EditFormatError) as made:
            Edit("prune", w, w, sources=sources)  # type: ignore[arg-type]
        parsed = format_error({"operator": "prune", "pre": w.to_json(), "post": w.to_json(), "sources": sources})
        assert (made.value.field, str(made.value)) == (parsed.field, str(parsed))
    edit = Edit("prune", w, w, sources={"tool:a": "x", "tool:b": "é€😀"})
    assert parse_edit(edit.to_json()) == edit and parse_edit(json.dumps(edit.to_json())) == edit


def test_a_python_edit_with_pointers_and_edges_round_trips_through_json():
    edit = Edit("rewrite", Window(), Window([blk("b1", "tool", "x", ["tool:a"])]),
                supersedes=(Supersession("b1", "tool:old"),),
                pointers=(Citation("b1", "tool:a", 0, 1, "blake3:" + "0" * 64), Citation("b1", "tool:a", 2, 2, "x")))
    assert parse_edit(json.dumps(edit.to_json())) == edit


def test_the_documented_message_shape():
    err = format_error(_set(minimal(), "post[3].handles", [7]))
    assert str(err) == "post[3].handles[0]: expected a string, got integer"


@pytest.mark.parametrize("fmt", ["provgate.edit/1", "provgate.edit/1.0", "provgate.edit/1.7"])
def test_minor_versions_are_read_as_1(fmt):
    assert parse_edit(minimal(format=fmt)) == parse_edit(minimal())


# Red team 7, s07: docs/format.md and the schema's pattern ^provgate\.edit/1(\.[0-9]+)?$ allow
# ASCII digits only and the major version 1 as written: Unicode digits (read by \d and int())
# and a leading zero were read as format 1 and checked.
@pytest.mark.parametrize("fmt", ["provgate.edit/\u0661", "provgate.edit/\U0001D7D9", "provgate.edit/1.\u0663",
                                 "provgate.edit/01", "provgate.edit/00", "provgate.edit/1.", "provgate.edit/1\n",
                                 "provgate.edit/ 1", "provgate.edit/+1", "provgate.edit/1.0.0"])
def test_a_format_the_schema_refuses_is_refused(fmt):
    assert not re.fullmatch(SCHEMA["properties"]["format"]["pattern"].strip("^$"), fmt, re.ASCII)
    err = format_error(minimal(format=fmt))
    assert err.field == "format"


def test_a_major_version_of_thousands_of_digits_is_an_unsupported_format():
    # red team 83, F04: int() of 5,000 digits raised a bare ValueError (Python's limit on
    # converting long digit strings), and the command line called it an internal error
    err = format_error(minimal(format="provgate.edit/" + "9" * 5000))
    assert err.field == "format" and "unsupported format version" in str(err)


def test_the_schema_refuses_a_format_with_a_final_line_break_under_pythons_re_search_too():
    # red team 83, F08: under Python's re.search (what the jsonschema package runs) "$" also
    # matches before a final "\n", so the schema accepted "provgate.edit/1\n", which the reader refuses
    pattern = SCHEMA["properties"]["format"]["pattern"]
    assert re.search(pattern, "provgate.edit/1") and re.search(pattern, "provgate.edit/1.2")
    assert not re.search(pattern, "provgate.edit/1\n") and not re.search(pattern, "provgate.edit/1.2\n")
    assert schema_errors(minimal(format="provgate.edit/1\n")) != []


@pytest.mark.parametrize("offsets", [(2**63, 2**63), (0, 2**63)])
def test_the_schema_bounds_pointer_offsets_as_the_reader_does(offsets):
    # red team 83, F06: the reader refuses offsets over 2**63 - 1, the schema had no maximum
    doc = minimal(pointers=[{**pointer_to("b", "h", "abc", "b"), "start": offsets[0], "end": offsets[1]}])
    assert schema_errors(doc) != []
    assert format_error(doc).field.startswith("pointers[0].")


@pytest.mark.parametrize("fmt", ["provgate.edit/1.007", "provgate.edit/1.12"])
def test_a_minor_version_may_have_any_ascii_digits(fmt):
    assert re.fullmatch(SCHEMA["properties"]["format"]["pattern"].strip("^$"), fmt, re.ASCII)
    assert parse_edit(minimal(format=fmt)) == parse_edit(minimal())


def test_a_top_level_that_is_not_an_object_is_refused():
    for text in ("[]", "5", '"edit"', "null"):
        assert format_error(text).field == "edit"


def test_duplicate_block_ids_are_refused_naming_the_second():
    doc = minimal()
    doc["post"][2]["id"] = "b1"
    err = format_error(doc)
    assert err.field == "post[2].id"
    assert "post[0]" in str(err) and "'b1'" in str(err)
    # one id in pre and in post is the normal case
    assert parse_edit(minimal()).pre[0].id == parse_edit(minimal()).post[0].id


_BLOCKS = '{"id": "a", "role": "user", "text": "x"}, {"id": "b", "role": "user", "text": "x"}'


# red team 83, F09: the field was the bare key ("text"), which in a window of many blocks does
# not say which object holds it
@pytest.mark.parametrize("text, field, key", [
    ('{"operator": "prune", "operator": "rewrite", "pre": [], "post": []}', "operator", "operator"),
    ('{"operator": "prune", "pre": [{"id": "a", "role": "user", "text": "x", "text": "y"}], "post": []}',
     "pre[0].text", "text"),
    ('{"operator": "prune", "pre": [], "post": [' + _BLOCKS + ', {"id": "c", "role": "user", "text": "x", "text": "y"}]}',
     "post[2].text", "text"),
    ('{"operator": "prune", "pre": [], "post": [], "sources": {"tool:a": "x", "tool:a": "y"}}', "sources['tool:a']",
     "tool:a"),
    (('{"operator": "prune", "pre": [], "post": [], "pointers": [{"block": "a", "handle": "tool:a", "start": 0, '
      '"end": 1, "hash": "h", "end": 2}]}'), "pointers[0].end", "end"),
    # an unknown field is read and ignored, but not when it is ambiguous; the first such object is named
    ('{"operator": "prune", "pre": [], "post": [], "meta": {"a": [1, {"b": 1, "b": 2}]}, "y": {"c": 1, "c": 2}}',
     "meta.a[1].b", "b"),
    # the object of a key given twice is the one named, not one inside the value the repeat replaced
    ('{"operator": "prune", "pre": [{"id": "a", "id": "b"}], "pre": [], "post": []}', "pre", "pre"),
])
def test_duplicate_json_keys_are_refused_naming_the_path_to_the_key(text, field, key):
    err = format_error(text)
    assert err.field == field and str(err).startswith(f"{field}: ")
    assert f"the key {key!r} twice" in str(err)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_refused(constant):
    text = '{"operator": "prune", "pre": [{"id": "a", "role": "user", "text": "x", "ts": %s}], "post": []}' % constant
    err = format_error(text)
    assert constant.lstrip("-") in str(err)


def test_nan_ts_from_python_objects_is_refused():
    doc = _set(minimal(), "pre[0].ts", float("nan"))
    assert format_error(doc).field == "pre[0].ts"
    assert format_error(_set(minimal(), "pre[0].ts", math.inf)).field == "pre[0].ts"


@pytest.mark.parametrize("bad", [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf"],
                         ids=["ff", "truncated", "encoded-surrogate", "overlong"])
def test_invalid_utf8_is_refused_with_the_byte_offset(bad):
    data = b'{"operator": "prune", "pre": [], "post": [], "x": "' + bad + b'"}'
    where = data.index(bad)
    err = format_error(data)
    assert "UTF-8" in str(err) and f"byte {where}" in str(err)


@pytest.mark.parametrize("text", ['{"operator": "prune", "pre": [', "", "{'operator': 'prune'}", "{} x"])
def test_invalid_json_is_refused(text):
    assert "invalid JSON" in str(format_error(text))


def test_deeply_nested_json_is_refused_not_a_crash():
    text = '{"operator": "prune", "pre": [], "post": [], "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    assert "nested too deeply" in str(format_error(text))


def test_loads_json_accepts_bytes_like_objects():
    assert loads_json(memoryview(b'{"a": 1}')) == {"a": 1}
    assert loads_json(bytearray(b'[1]')) == [1]


# -- lone surrogates --------------------------------------------------------------------------

SURROGATE_TEXT = '{"operator": "prune", "pre": [], "post": [{"id": "a", "role": "user", "text": "x\\ud800y"}]}'


def test_a_lone_surrogate_in_an_id_handle_or_source_is_refused_when_parsed():
    for path, field in [("pre[0].id", "pre[0].id"), ("post[3].handles", "post[3].handles[0]")]:
        value = "b\ud800" if path.endswith("id") else ["tool:\udc00"]
        assert format_error(_set(minimal(), path, value)).field == field
    err = format_error(minimal(sources={"tool:a": "x\ud800"}))
    assert err.field == "sources['tool:a']" and "surrogate" in str(err)


def test_a_lone_surrogate_in_block_text_is_refused_when_checked_naming_the_block():
    edit = parse_edit(SURROGATE_TEXT)  # block text is validated where it is encoded: at the check
    gate = Gate(gate_for({}).store)
    before = store_state(gate.store)
    with pytest.raises(EditFormatError) as info:
        gate.check_edit(edit)
    assert info.value.field == "post[0].text"
    assert "surrogate" in str(info.value)
    assert store_state(gate.store) == before


def test_a_lone_surrogate_in_block_text_blocks_the_ingest_of_inline_sources():
    doc = json.loads(SURROGATE_TEXT)
    doc["sources"] = {"tool:call_1": "retries=3\n"}
    gate = Gate(gate_for({}).store)
    with pytest.raises(EditFormatError) as info:
        gate.check_edit(parse_edit(json.dumps(doc)))
    assert info.value.field == "post[0].text"
    assert store_state(gate.store) == ([], 0)


# -- the JSON Schema file and the parser agree ------------------------------------------------


def _resolve(node: dict) -> dict:
    while "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[1]
        node = SCHEMA["$defs"][name]
    return node


def schema_errors(value: Any, node: dict | None = None, path: str = "edit") -> list[str]:
    """A small validator for the JSON Schema subset the edit schema uses, with JSON Schema's
    meanings: a number with a zero fractional part (0.0) is an "integer", minimum and maximum
    bound any number, maxLength counts characters (red team 49, F04: this validator read
    "integer" as Python's int, and so missed that the schema accepts 0.0 where the parser did not)."""
    node = _resolve(SCHEMA if node is None else node)
    errors: list[str] = []
    types = node.get("type")
    if types is not None:
        names = types if isinstance(types, list) else [types]
        checks = {"object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list),
                  "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool),
                  "null": lambda v: v is None,
                  "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)
                                        or isinstance(v, float) and v.is_integer()),
                  "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)}
        if not any(checks[t](value) for t in names):
            return [f"{path}: not {types}"]
    if "enum" in node and value not in node["enum"]:
        errors.append(f"{path}: not in enum")
    if isinstance(value, str):
        if len(value) < node.get("minLength", 0) or len(value) > node.get("maxLength", math.inf):
            errors.append(f"{path}: length")
        if "pattern" in node and not re.search(node["pattern"], value):
            errors.append(f"{path}: pattern")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value < node.get("minimum", -math.inf):
            errors.append(f"{path}: minimum")
        if value > node.get("maximum", math.inf):
            errors.append(f"{path}: maximum")
    if isinstance(value, dict):
        for name in node.get("required", ()):
            if name not in value:
                errors.append(f"{path}.{name}: required")
        for name, sub in node.get("properties", {}).items():
            if name in value:
                errors += schema_errors(value[name], sub, f"{path}.{name}")
        if "propertyNames" in node:
            for name in value:
                errors += schema_errors(name, node["propertyNames"], f"{path}[{name!r}] (name)")
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            for name, item in value.items():
                if name not in node.get("properties", {}):
                    errors += schema_errors(item, extra, f"{path}[{name!r}]")
    if isinstance(value, list) and "items" in node:
        for i, item in enumerate(value):
            errors += schema_errors(item, node["items"], f"{path}[{i}]")
    if "anyOf" in node and all(schema_errors(value, option, path) for option in node["anyOf"]):
        errors.append(f"{path}: anyOf")
    return errors


def _schema_block() -> dict:
    return SCHEMA["$defs"]["block"]


def test_schema_enums_match_the_parser():
    assert set(SCHEMA["properties"]["operator"]["enum"]) == OPERATORS
    assert set(_schema_block()["properties"]["role"]["enum"]) == ROLES


def test_schema_fields_match_the_model():
    assert set(_schema_block()["properties"]) == {f.name for f in dataclasses.fields(Block)}
    supersedes = SCHEMA["properties"]["supersedes"]["items"]
    assert set(supersedes["properties"]) == {f.name for f in dataclasses.fields(Supersession)}
    assert set(supersedes["required"]) == set(supersedes["properties"])
    pointers = SCHEMA["properties"]["pointers"]["items"]
    # (span_digest: a store pointer's name for the hash, read when hash is missing; nominal: a
    # store pointer's flag, refused when true: red team 83, F07)
    assert set(pointers["properties"]) == {f.name for f in dataclasses.fields(Citation)} | {"span_digest", "nominal"}
    assert set(pointers["required"]) == set(pointers["properties"]) - {"hash", "span_digest", "nominal", "source_digest"}
    assert pointers["properties"]["nominal"]["enum"] == [False]
    assert pointers["anyOf"] == [{"required": ["hash"]}, {"required": ["span_digest"]}]
    # (source_kinds: the kinds given inside sources, {"text": ..., "kind": ...}: red team 93, F04)
    assert set(SCHEMA["properties"]) == {f.name for f in dataclasses.fields(Edit)} - {"source_kinds"} | {"format"}


def test_schema_limits_and_patterns_match_the_parser():
    assert SCHEMA["$defs"]["id"]["maxLength"] == MAX_ID_CHARS
    assert str(MAX_HANDLE_BYTES) in SCHEMA["$defs"]["handle"]["description"]
    pattern = re.compile(SCHEMA["properties"]["format"]["pattern"])
    for fmt in ("provgate.edit/1", "provgate.edit/1.0", "provgate.edit/1.12", "provgate.edit/2", "provgate.edit/11",
                "provgate.edit/1.", "xprovgate.edit/1"):
        try:
            parse_edit(minimal(format=fmt))
            parsed = True
        except EditFormatError:
            parsed = False
        assert parsed == bool(pattern.search(fmt)), fmt
    assert SCHEMA["properties"]["format"]["default"] == FORMAT
    digest = re.compile(SCHEMA["$defs"]["digest"]["pattern"])
    p = pointer_to("b", "h", "abc", "b")
    assert digest.search(p["hash"])
    assert digest.search(pointer_to("b", "h", "abc", "b", algo="sha256")["hash"])


@pytest.mark.parametrize("where", ["top", "block"])
def test_schema_required_fields_are_what_the_parser_requires(where):
    node = SCHEMA if where == "top" else _schema_block()
    props = node["properties"]
    for name in props:
        doc = minimal()
        target = doc if where == "top" else doc["pre"][0]
        if name not in target:
            continue
        del target[name]
        required = name in node["required"]
        if required:
            err = format_error(doc)
            assert err.field == (name if where == "top" else f"pre[0].{name}")
        else:
            parse_edit(doc)
        assert (schema_errors(doc) != []) == required, name


def test_schema_defaults_are_the_parser_defaults():
    b = Block.from_json({"id": "a", "role": "user", "text": ""})
    for name, prop in _schema_block()["properties"].items():
        if "default" in prop:
            got = getattr(b, name)
            assert (list(got) if isinstance(got, tuple) else got) == prop["default"], name


_WRONG_FOR_TYPE = {"string": 5, "boolean": "yes", "array": "x", "number": "1", "integer": 1.5, "object": [1]}


@pytest.mark.parametrize("name", sorted(_schema_block()["properties"]))
def test_every_block_field_type_in_the_schema_is_enforced_by_the_parser(name):
    prop = _resolve(_schema_block()["properties"][name])
    types = prop.get("type", "string")
    first = types[0] if isinstance(types, list) else types
    doc = _set(minimal(), f"pre[0].{name}", _WRONG_FOR_TYPE[first])
    assert schema_errors(doc) != []
    assert format_error(doc).field == f"pre[0].{name}"


@pytest.mark.parametrize("path, value, field", [
    ("operator", "merge", "operator"), ("pre[0].role", "robot", "pre[0].role"), ("pre[0].id", "", "pre[0].id"),
    ("pointers", [dict(POINTER, start=-1)], "pointers[0].start"), ("evicted", [""], "evicted[0]"),
    ("format", "provgate.edit/2", "format"), ("sources", {"tool:a": 5}, "sources['tool:a']"),
    ("supersedes", [{"block": "b1"}], "supersedes[0].handle"), ("pre[0].ts", "1", "pre[0].ts"),
    ("post[3].handles", [3], "post[3].handles[0]"),
    # red team 49, F04: each of these the schema accepted and the parser refused
    ("pre[0].resource", "", "pre[0].resource"),
    ("pre[0].resource", "r" * (MAX_HANDLE_BYTES + 1), "pre[0].resource"),
    ("sources", {"": "x"}, "sources['']"),
    ("sources", {"tool:\x00": "x"}, "sources['tool:\\x00']"),
    ("pre[0].ts", math.inf, "pre[0].ts"),  # (the JSON text 1e400)
    ("pre[0].id", "a\x00b", "pre[0].id"),
    ("post[3].handles", ["tool:\x00"], "post[3].handles[0]"),
    ("pointers", [dict(POINTER, start=0.5)], "pointers[0].start"),
    # red team 49, F05: beyond +-2**53 a float64 does not hold every integer
    ("pre[0].ts", 2**53 + 1, "pre[0].ts"), ("pre[0].ts", -(2**53) - 1, "pre[0].ts"),
    ("pre[0].ts", 1763000000123456789, "pre[0].ts"), ("pre[0].ts", 1.7e18, "pre[0].ts"),
])
def test_values_the_schema_refuses_the_parser_refuses(path, value, field):
    doc = _set(minimal(), path, value)
    assert schema_errors(doc) != []
    assert format_error(doc).field == field


@pytest.mark.parametrize("path, value", [
    # red team 49, F04: the schema refused null, which the parser reads as absent
    ("pre[0].resource", None),
    ("pre[0].resource", "é" * (MAX_HANDLE_BYTES // 2)),  # 1024 bytes
    # JSON Schema's "integer" is any number with a zero fractional part
    ("pointers", [dict(POINTER, start=0.0, end=3.0)]), ("pointers", [dict(POINTER, start=-0.0, end=3e0)]),
    ("pre[0].ts", 2**53), ("pre[0].ts", -(2**53)), ("pre[0].ts", float(2**53)),
    ("pre[0].ts", 1763000000123), ("pre[0].ts", 1763000000123456), ("pre[0].ts", 1763000000.123456),
    ("sources", {"tool:call_1": "retries=3\n", "é" * (MAX_HANDLE_BYTES // 2): ""}),
])
def test_values_the_schema_accepts_the_parser_accepts(path, value):
    doc = _set(minimal(), path, value)
    assert schema_errors(doc) == []
    edit = parse_edit(doc)
    assert parse_edit(json.dumps(doc)) == edit
    assert schema_errors(edit.to_json()) == [] and parse_edit(edit.to_json()) == edit


def test_integral_float_offsets_are_read_as_ints():
    # red team 49, F04: 0.0 is an integer to the schema; read as the int, so the edit and its
    # JSON form are those of the same offsets written as 0 and 3
    doc = _set(minimal(), "pointers", [dict(POINTER, start=0.0, end=3.0)])
    as_ints = parse_edit(_set(minimal(), "pointers", [POINTER]))
    edit = parse_edit(json.dumps(doc).replace('"end": 3.0', '"end": 3e0'))
    assert edit == as_ints
    assert type(edit.pointers[0].start) is int and type(edit.pointers[0].end) is int
    assert edit.to_json()["pointers"][0] == POINTER
    assert Citation("b1", "tool:call_1", 0.0, 3.0, POINTER["hash"]) == as_ints.pointers[0]  # type: ignore[arg-type]
    for bad in (0.5, math.inf, math.nan, True):
        with pytest.raises(EditFormatError) as info:
            Citation("b1", "tool:call_1", bad, 3, POINTER["hash"])  # type: ignore[arg-type]
        assert info.value.field == "citation.start"


def test_a_ts_a_float64_cannot_hold_exactly_is_refused_naming_ts():
    # red team 49, F05: two nanosecond stamps 1 ns apart became one float, the JSON form did not
    # round-trip and I4 ordered the two reads by window position; a ts beyond +-2**53 is refused
    # (JSON text, JSON object, Block made in Python), and every ts within it round-trips exactly
    ns = [1763000000123456789, 1763000000123456790]
    pre = [blk("r1", "tool", "retries=3\n", ["tool:a"], ts=ns[0], resource="file:x"),
           blk("r2", "tool", "retries=5\n", ["tool:b"], ts=ns[1], resource="file:x")]
    doc = {"operator": "prune", "pre": pre, "post": []}
    for form in (doc, json.dumps(doc)):
        err = format_error(form)
        assert err.field == "pre[0].ts" and "seconds or milliseconds" in str(err)
    with pytest.raises(EditFormatError) as info:
        Block("r1", "tool", "x", ts=ns[0])  # type: ignore[arg-type]
    assert info.value.field == "block.ts"
    for ts in (2**53, -(2**53), 2**53 - 1, 1763000000123456, 1763000000123, 1763000000):
        text = json.dumps(_set(minimal(), "pre[0].ts", ts))
        edit = parse_edit(text)
        assert edit.pre[0].ts == ts and int(edit.pre[0].ts) == ts
        assert json.loads(json.dumps(edit.to_json()))["pre"][0]["ts"] == ts
        assert parse_edit(json.dumps(edit.to_json())) == edit


def test_a_handles_byte_limit_is_the_one_length_rule_the_schema_only_approximates():
    # JSON Schema counts characters, the limit is UTF-8 bytes: the schema refuses every handle
    # over 1024 characters (over 1024 bytes, so the parser refuses it too), and a non-ASCII one
    # within 1024 characters but over 1024 bytes is refused by the parser alone, naming the field
    # and what it is (red team 49, F04: a resource's error said "handle longer than ...")
    assert SCHEMA["$defs"]["handle"]["maxLength"] == MAX_HANDLE_BYTES
    doc = _set(minimal(), "pre[0].resource", "é" * (MAX_HANDLE_BYTES // 2 + 1))
    assert schema_errors(doc) == []
    err = format_error(doc)
    assert err.field == "pre[0].resource" and f"resource longer than {MAX_HANDLE_BYTES} UTF-8 bytes" in str(err)
    err = format_error(_set(minimal(), "pre[0].resource", "file:\x00"))
    assert err.field == "pre[0].resource" and "resource contains a NUL" in str(err)
    err = format_error(_set(minimal(), "post[3].handles", ["é" * (MAX_HANDLE_BYTES // 2 + 1)]))
    assert err.field == "post[3].handles[0]" and "handle longer than" in str(err)


def test_a_malformed_pointer_hash_is_the_one_schema_rule_left_to_the_gate():
    # the schema pins the digest pattern; the parser reads any non-empty hash so that the gate
    # can report it as a P violation (reason malformed_digest) next to the other pointer faults
    doc = _set(minimal(), "pointers", [dict(POINTER, hash="md5:" + "0" * 64)])
    assert schema_errors(doc) == ["edit.pointers[0].hash: pattern"]
    assert parse_edit(doc).pointers[0].hash == "md5:" + "0" * 64


def test_corpus_edits_and_the_format_md_example_validate_against_the_schema():
    w = corpus.make_window(20_000, seed=3)
    for make in (corpus.prune_edit, corpus.rewrite_edit, corpus.summarize_edit, corpus.drift_edit):
        assert schema_errors(make(w)) == []
    text = (ROOT / "docs" / "format.md").read_text(encoding="utf-8")
    example = json.loads(text.split("```json\n", 1)[1].split("```", 1)[0])
    assert schema_errors(example) == []
    assert schema_errors(parse_edit(example).to_json()) == []


def test_inline_sources_and_a_tool_block_are_both_read():
    doc = minimal(sources={"tool:call_1": "retries=3\n"})
    e = parse_edit(doc)
    assert dict(e.sources) == {"tool:call_1": "retries=3\n"}
    assert e.to_json()["sources"] == {"tool:call_1": "retries=3\n"}
    assert parse_edit({"operator": "prune", "pre": [tool("t", "tool:x", "a")], "post": []}).pre[0].handles == ("tool:x",)


def test_a_pointer_needs_its_hash_or_a_store_pointers_span_digest():
    # red team 11, x08: a store pointer's JSON with a block is a citation
    base = pointer_to("b", "h", "abc", "b")
    for doc_pointer, ok in ((base, True), ({k: v for k, v in base.items() if k != "hash"}, False),
                            ({**{k: v for k, v in base.items() if k != "hash"}, "span_digest": base["hash"]}, True)):
        doc = minimal(pointers=[doc_pointer])
        assert (schema_errors(doc) == []) == ok
        if ok:
            assert parse_edit(doc).pointers[0].hash == base["hash"]
        else:
            assert format_error(doc).field == "pointers[0].hash"
