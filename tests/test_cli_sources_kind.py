"""An edit's inline source with a kind: ``sources: {HANDLE: {"text": ..., "kind": "window_summary"}}``
(red team 93, F04: through ``provgate check`` an evicted summary's words could only be stored as a
plain source, and P then accepted a pointer into them). The reader, the Python ``Edit``, the JSON
Schema, ``SourceStore.put_many(kinds=...)``, and ``provgate check`` exiting 0, 1 and 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from blake3 import blake3
from gate_helpers import blk, tool
from store_helpers import row_counts
from test_cli_check import error_of, run_main, run_sub, write
from test_window import schema_errors

from provgate.errors import EditFormatError, InvalidArgumentError, InvalidHandleError
from provgate.handles import block_text_handle
from provgate.store import DERIVED_KIND, SourceStore
from provgate.window import SOURCE_KINDS, Block, Edit, Window, parse_edit

CFG_H, CFG = "tool:c1", "retries=3\ntimeout=30s\n"
WORDS = "The client retries 3 times and times out after 30s. " * 5
H = block_text_handle(blake3(WORDS.encode()).digest())
QUOTE = "retries 3 times and times out after 30s"


def _edit(sources) -> dict:
    w = [tool("t", CFG_H, CFG)]
    return {"operator": "reorder", "pre": w, "post": w, "sources": sources}


def test_the_kinds_are_the_ones_compact_stores():
    from provgate.compaction import BLOCK_SOURCE_KIND

    assert set(SOURCE_KINDS) == {DERIVED_KIND, BLOCK_SOURCE_KIND}


# ---------------------------------------------------------------------- the reader and Edit


def test_a_source_with_a_kind_is_read_and_written_back_as_given():
    edit = parse_edit(_edit({CFG_H: CFG, H: {"text": WORDS, "kind": "window_summary"}}))
    assert dict(edit.sources) == {CFG_H: CFG, H: WORDS}  # sources stay texts, as the Python API has them
    assert dict(edit.source_kinds) == {H: "window_summary"}
    out = edit.to_json()
    assert out["sources"] == {CFG_H: CFG, H: {"text": WORDS, "kind": "window_summary"}}
    assert parse_edit(out) == edit and parse_edit(json.dumps(out)) == edit
    # an object without a kind is a plain source, written back as a string
    plain = parse_edit(_edit({H: {"text": WORDS, "note": "unknown members are ignored"}}))
    assert dict(plain.source_kinds) == {} and plain.to_json()["sources"] == {H: WORDS}
    # and an Edit made in Python says the same
    made = Edit("reorder", edit.pre, edit.post, sources={CFG_H: CFG, H: WORDS}, source_kinds={H: "window_summary"})
    assert made == edit


OTHER_BLOCK = "block:" + "0" * 32


@pytest.mark.parametrize("value,field,message", [
    ({"text": WORDS, "kind": "tool_output"}, f"sources[{H!r}].kind", "unknown kind 'tool_output'; expected one of"),
    ({"text": WORDS, "kind": "Window_Summary"}, f"sources[{H!r}].kind", "unknown kind"),
    ({"text": WORDS, "kind": 5}, f"sources[{H!r}].kind", "expected a string, got integer"),
    ({"text": WORDS, "kind": None}, f"sources[{H!r}].kind", "expected a string, got null"),
    ({"text": WORDS, "kind": ""}, f"sources[{H!r}].kind", ""),
    ({"text": WORDS, "kind": ["window_summary"]}, f"sources[{H!r}].kind", "expected a string, got array"),
    ({"kind": "window_summary"}, f"sources[{H!r}].text", "required field is missing"),
    ({"text": 5, "kind": "window_summary"}, f"sources[{H!r}].text", "expected a string, got integer"),
    ({"text": "x\ud800", "kind": "window_summary"}, f"sources[{H!r}].text", "surrogate"),
    (["window_summary", WORDS], f"sources[{H!r}]", "expected a string, got array"),
    (5, f"sources[{H!r}]", "expected a string, got integer"),
])
def test_a_bad_source_entry_is_refused_naming_its_field(value, field, message):
    with pytest.raises(EditFormatError) as caught:
        parse_edit(_edit({H: value}))
    assert caught.value.field == field and message in str(caught.value), str(caught.value)


@pytest.mark.parametrize("handle", ["tool:summary", "block:s1", "block:" + "A" * 32,
                                    "block:" + "0" * 31, "block:" + "0" * 33])
def test_a_kind_is_given_only_under_a_block_text_handle(handle):
    # P asks the kind only of block: handles, where compact() stores window texts: a summary's
    # words marked under another handle would still be taken for a source's there
    with pytest.raises(EditFormatError) as caught:
        parse_edit(_edit({handle: {"text": WORDS, "kind": "window_summary"}}))
    assert caught.value.field == f"sources[{handle!r}].kind"
    assert "given only to a block's text handle" in str(caught.value)
    parse_edit(_edit({handle: {"text": WORDS}}))  # without a kind it is a plain source, as before


@pytest.mark.parametrize("kinds,field", [
    ({"tool:other": "window_summary"}, "source_kinds['tool:other']"),
    ({H: "tool_output"}, f"sources[{H!r}].kind"),
    ({H: 5}, f"sources[{H!r}].kind"),
    ({CFG_H: "window_summary"}, f"sources[{CFG_H!r}].kind"),
    ([("x", "y")], "source_kinds"),
])
def test_a_python_edit_s_kinds_get_the_same_checks(kinds, field):
    w = Window([Block("t", "tool", CFG, (CFG_H,))])
    with pytest.raises(EditFormatError) as caught:
        Edit("reorder", w, w, sources={CFG_H: CFG, H: WORDS}, source_kinds=kinds)
    assert caught.value.field == field, str(caught.value)


def test_the_schema_and_the_reader_agree_on_sources_with_a_kind():
    cases = [
        ({H: {"text": WORDS, "kind": "window_summary"}}, True),
        ({H: {"text": WORDS, "kind": "window_block"}}, True),
        ({H: {"text": WORDS}}, True),
        ({H: WORDS}, True),
        ({H: {"text": WORDS, "kind": "tool_output"}}, False),
        ({H: {"kind": "window_summary"}}, False),
        ({H: {"text": 5}}, False),
        ({H: 5}, False),
    ]
    for sources, valid in cases:
        doc = _edit(sources)
        assert (schema_errors(doc) == []) == valid, sources
        try:
            parse_edit(doc)
            parsed = True
        except EditFormatError:
            parsed = False
        assert parsed == valid, sources
    # the rule the reader alone enforces (two fields together): a kind only under a block handle
    doc = _edit({"tool:x": {"text": WORDS, "kind": "window_summary"}})
    assert schema_errors(doc) == []
    with pytest.raises(EditFormatError):
        parse_edit(doc)


# ---------------------------------------------------------------------- the store


def test_put_many_gives_each_source_its_own_kind_in_one_transaction():
    with SourceStore(":memory:") as s:
        s.put_many({CFG_H: CFG, H: WORDS}, kind="tool_output", kinds={H: DERIVED_KIND})
        assert (s.info(CFG_H).kind, s.info(H).kind) == ("tool_output", DERIVED_KIND)
        assert s.pointer(H, 0, 3).nominal and not s.pointer(CFG_H, 0, 3).nominal
        s.put_many([("tool:n", "n\n")], kinds={"tool:n": None})
        assert s.info("tool:n").kind is None


@pytest.mark.parametrize("kinds,message", [
    ({"tool:absent": "k"}, "names no source of the batch"),
    ({H: 5}, "kind must be a str or None"),
    ({H: ""}, "must not be empty"),
    ([(H, "k")], "kinds must be a mapping"),
])
def test_put_many_refuses_bad_kinds_and_writes_nothing(kinds, message):
    with SourceStore(":memory:") as s:
        with pytest.raises(InvalidArgumentError, match=message) as caught:
            s.put_many({CFG_H: CFG, H: WORDS}, kinds=kinds)
        assert caught.value.argument == "kinds" and len(s) == 0
        with pytest.raises(InvalidHandleError):
            s.put_many({CFG_H: CFG}, kinds={"": "k"})
        assert len(s) == 0


# ---------------------------------------------------------------------- provgate check


def _store(tmp_path) -> Path:
    path = tmp_path / "store.sqlite3"
    with SourceStore(path) as s:
        s.put(CFG_H, CFG)
    return path


def _summary_cycles(tmp_path, store: Path, capsys, stored_source) -> tuple[int, dict]:
    """Red team 93, F04's three cycles of one session, each a provgate check: a window with a
    summary s1; s1 evicted, its words stored as ``stored_source``; a turn quoting the words with
    a pointer into them. Returns the last check's exit code and verdict."""
    s1 = blk("s1", "summary", WORDS, derived_from=[CFG_H])
    s1["derived"] = True
    w0 = [tool("t", CFG_H, CFG), s1, blk("u", "user", "go on\n")]
    w1 = [w0[0], w0[2]]
    argv = ["check", None, "--store", store, "--session", "S"]
    for k, edit in enumerate([
        {"operator": "reorder", "pre": w0, "post": w0},
        {"operator": "evict", "pre": w0, "post": w1, "evicted": ["s1", H], "sources": {H: stored_source}},
    ]):
        argv[1] = write(tmp_path, edit, f"c{k}.json")
        code, out, err = run_main(argv, capsys)
        assert code == 0, (k, out, err)
    start = WORDS.encode().index(QUOTE.encode())
    w2 = [*w1, blk("a2", "assistant", f'Per the config: "{QUOTE}" [src:{H}].\n')]
    ptr = [{"block": "a2", "handle": H, "start": start, "end": start + len(QUOTE),
            "hash": "blake3:" + blake3(QUOTE.encode()).hexdigest()}]
    argv[1] = write(tmp_path, {"operator": "reorder", "pre": w2, "post": w2, "pointers": ptr}, "c2.json")
    code, out, err = run_main(argv, capsys)
    return code, json.loads(out) if out else {"err": err}


def test_an_evicted_summary_s_words_stored_with_their_kind_are_no_source_for_p(tmp_path, capsys):
    store = _store(tmp_path)
    code, verdict = _summary_cycles(tmp_path, store, capsys, {"text": WORDS, "kind": "window_summary"})
    assert code == 1 and not verdict["accepted"]
    assert [(v["invariant"], v["evidence"]["reason"]) for v in verdict["violations"]] == [("P", "nominal")]
    with SourceStore(store, read_only=True) as s:
        assert s.info(H).kind == DERIVED_KIND and s.verify() == []


def test_stored_as_a_plain_source_they_still_resolve_as_one(tmp_path, capsys):
    # the documented limit, unchanged: a summary's words a caller stores without their kind are
    # not known as a summary's (the string form is a plain source)
    store = _store(tmp_path)
    code, verdict = _summary_cycles(tmp_path, store, capsys, WORDS)
    assert code == 0 and verdict["accepted"]


@pytest.mark.parametrize("runner", ["main", "subprocess"])
def test_check_exits_0_and_stores_each_source_with_its_kind(tmp_path, capsys, runner):
    store = _store(tmp_path)
    argv = ["check", write(tmp_path, _edit({"tool:plain": "plain\n", H: {"text": WORDS, "kind": "window_summary"}})),
            "--store", store]
    code, _, err = run_main(argv, capsys) if runner == "main" else run_sub(argv)
    assert code == 0, err
    with SourceStore(store, read_only=True) as s:
        assert (s.info("tool:plain").kind, s.info(H).kind) == (None, DERIVED_KIND)
    # the same source with the same kind again: nothing to write, accepted
    code, _, err = run_main(argv, capsys) if runner == "main" else run_sub(argv)
    assert code == 0, err


@pytest.mark.parametrize("sources,field,message", [
    ({H: {"text": WORDS, "kind": "tool_output"}}, f"sources[{H!r}].kind", "unknown kind"),
    ({H: {"text": WORDS, "kind": 5}}, f"sources[{H!r}].kind", "expected a string"),
    ({"tool:s": {"text": WORDS, "kind": "window_summary"}}, "sources['tool:s'].kind", "block's text handle"),
    ({H: {"kind": "window_summary"}}, f"sources[{H!r}].text", "required field is missing"),
])
@pytest.mark.parametrize("runner", ["main", "subprocess"])
def test_check_exits_2_on_a_bad_kind_and_writes_nothing(tmp_path, capsys, runner, sources, field, message):
    store = _store(tmp_path)
    before = row_counts(store)
    argv = ["check", write(tmp_path, _edit({"tool:new": "new\n", **sources})), "--store", store]
    code, out, err = run_main(argv, capsys) if runner == "main" else run_sub(argv)
    assert code == 2 and out == ""
    error = error_of(err)
    assert error["type"] == "EditFormatError" and error["field"] == field and message in error["message"], error
    assert row_counts(store) == before


def test_check_exits_2_when_the_store_holds_the_source_with_another_kind(tmp_path, capsys):
    # a source's kind is its first put's: marking words already stored as a plain source would be
    # dropped silently, and the words taken for a source's; refused, naming the field
    store = _store(tmp_path)
    with SourceStore(store) as s:
        s.put(H, WORDS)  # a plain source
    before = row_counts(store)
    argv = ["check", write(tmp_path, _edit({"tool:new": "new\n", H: {"text": WORDS, "kind": "window_summary"}})),
            "--store", store]
    code, out, err = run_main(argv, capsys)
    assert code == 2 and out == ""
    error = error_of(err)
    assert error["field"] == f"sources[{H!r}].kind" and "already holds this source with kind None" in error["message"]
    assert row_counts(store) == before


def test_check_exits_2_for_a_block_handle_that_is_not_its_text_s(tmp_path, capsys):
    store = _store(tmp_path)
    before = row_counts(store)
    argv = ["check", write(tmp_path, _edit({OTHER_BLOCK: {"text": WORDS, "kind": "window_summary"}})), "--store", store]
    code, out, err = run_main(argv, capsys)
    assert code == 2 and out == "", err
    assert "names a block's text by its BLAKE3" in error_of(err)["message"]
    assert row_counts(store) == before
