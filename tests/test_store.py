"""The durable source store: put/get, immutability, verified reads, schema, audit log,
fact cache, and bad input that must raise a specific error and change nothing."""

from __future__ import annotations

import json
import math
import os
import re
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from provgate.digests import compute_digest
from provgate.errors import (
    HandleConflictError,
    InvalidArgumentError,
    InvalidContentError,
    InvalidDigestError,
    InvalidHandleError,
    LimitExceededError,
    ProvgateError,
    StoreBusyError,
    StoreClosedError,
    StoreCorruptionError,
    StoreIOError,
    StoreReadOnlyError,
    StoreSchemaError,
    UnknownHandleError,
)
from provgate.handles import MAX_HANDLE_BYTES
from provgate.store import (
    APPLICATION_ID,
    DEFAULT_MAX_CONTENT_BYTES,
    SCHEMA_VERSION,
    SourceInfo,
    SourceStore,
    default_store_path,
)
from conftest import IMPLEMENTATIONS, load_implementation
from store_helpers import (
    PERMISSIONS_DO_NOT_BIND,
    change_index_key,
    failing_commit_connections,
    flip_byte_after,
    full_disk_connections,
    integrity,
    length_limited_connections,
    modes,
    permissions_bind_argv,
    raw_query,
    read_only_connections,
    read_only_directory_connections,
    repoint_index_entry,
    row_counts,
    run_where_permissions_bind,
    snapshot,
    version_1_store,
)

CONFIG = "# service.conf\nretries=3\ntimeout_s=30\nendpoint=https://api.example.com/v2\n"


@pytest.fixture()
def mem():
    with SourceStore(":memory:") as store:
        yield store


@pytest.fixture()
def store_path(tmp_path) -> Path:
    return tmp_path / "store.sqlite3"


@pytest.fixture()
def fstore(store_path):
    with SourceStore(store_path) as store:
        yield store


@pytest.fixture(params=["memory", "file"])
def store(request, tmp_path):
    path = ":memory:" if request.param == "memory" else tmp_path / "s.sqlite3"
    with SourceStore(path) as s:
        yield s


# ---------------------------------------------------------------------- put / get


def test_put_returns_blake3_of_the_utf8_bytes_and_get_returns_the_text(store):
    digest = store.put("tool:call_8841", CONFIG)
    assert digest == compute_digest(CONFIG.encode("utf-8"))
    assert digest.startswith("blake3:") and len(digest) == 7 + 64
    assert store.get("tool:call_8841") == CONFIG
    assert store.get_bytes("tool:call_8841") == CONFIG.encode("utf-8")
    assert store.digest("tool:call_8841") == digest


def test_bytes_bytearray_and_memoryview_content_store_the_same_source(store):
    text = "naïve café — 𝄞"
    d1 = store.put("doc:a", text)
    d2 = store.put("doc:b", text.encode("utf-8"))
    d3 = store.put("doc:c", bytearray(text.encode("utf-8")))
    d4 = store.put("doc:d", memoryview(b"##" + text.encode("utf-8"))[2:])
    assert d1 == d2 == d3 == d4
    assert {store.get(h) for h in "doc:a doc:b doc:c doc:d".split()} == {text}


class _Bytes(bytes):
    """A bytes subclass whose own methods lie about its bytes."""

    def __bytes__(self):
        return b"lie"

    def __eq__(self, other):
        return True

    __hash__ = bytes.__hash__


# Red team 7, s06: docs/store.md says bytes are valid content, and utf8_bytes copies bytes-like
# input into bytes. A bytes subclass went through uncopied: the native UTF-8 check raised a raw
# TypeError, the reference stored it. Both implementations now store its exact bytes.
@pytest.mark.parametrize("which", IMPLEMENTATIONS)
def test_a_bytes_subclass_is_copied_to_exact_bytes_natively_and_in_the_reference(mem, monkeypatch, which):
    from provgate import _scanner
    from provgate.text import utf8_bytes

    impl = load_implementation("scanner", "_scanner_py", which)
    monkeypatch.setattr(_scanner, "utf8_error_offset", impl.utf8_error_offset)
    data = utf8_bytes(_Bytes(b"hi \xc3\xa9"))
    assert type(data) is bytes and bytes.__eq__(data, b"hi \xc3\xa9")
    assert impl.utf8_error_offset(_Bytes(b"ok")) == -1
    assert impl.utf8_error_offset(_Bytes(b"ok\xff")) == 2
    assert mem.put("tool:b", _Bytes(b"hi\n")) == compute_digest(b"hi\n")
    assert mem.get_bytes("tool:b") == b"hi\n"
    with pytest.raises(InvalidContentError, match="offset 2"):
        mem.put("tool:bad", _Bytes(b"hi\xff"))
    assert "tool:bad" not in mem


def test_content_is_stored_once_per_digest(fstore, store_path):
    for i in range(5):
        fstore.put(f"tool:call_{i}", CONFIG)
    fstore.put("tool:other", "different")
    assert raw_query(store_path, "SELECT count(*) FROM content") == [(2,)]
    assert raw_query(store_path, "SELECT count(*) FROM sources") == [(6,)]


def test_same_content_again_is_a_no_op_keeping_the_first_metadata(store):
    d = store.put("tool:call_1", CONFIG, kind="tool_output", ts=1700000000.5)
    before = snapshot(store)
    assert store.put("tool:call_1", CONFIG) == d
    assert store.put("tool:call_1", CONFIG.encode(), kind="other", ts=1) == d
    assert snapshot(store) == before
    info = store.info("tool:call_1")
    assert (info.kind, info.ts) == ("tool_output", 1700000000.5)


def test_different_content_under_a_handle_conflicts_and_names_both_digests(store):
    d3 = store.put("tool:call_8841", "retries=3")
    before = snapshot(store)
    with pytest.raises(HandleConflictError) as err:
        store.put("tool:call_8841", "retries=5")
    assert d3 in str(err.value)
    assert compute_digest(b"retries=5") in str(err.value)
    assert snapshot(store) == before
    assert store.get("tool:call_8841") == "retries=3"


def test_nul_bytes_in_content_are_stored_faithfully(store):
    text = "before\x00after\x00\x00"
    d = store.put("tool:bin", text)
    assert d == compute_digest(text.encode())
    assert store.get("tool:bin") == text
    assert store.get_bytes("tool:bin") == b"before\x00after\x00\x00"
    assert store.info("tool:bin").size == len(text)


def test_empty_content_is_allowed(store):
    d = store.put("tool:empty", "")
    assert d == compute_digest(b"")
    assert store.get("tool:empty") == ""
    assert store.info("tool:empty").size == 0


def test_info_iteration_len_and_contains(store):
    handles = ["user:u3", "tool:call_8841", "doc:doc_7", "tool:call_1"]
    for i, h in enumerate(handles):
        store.put(h, f"content {i}", kind=h.split(":")[0], ts=i)
    assert list(store) == handles  # insertion order, not sorted
    assert len(store) == 4
    assert "doc:doc_7" in store and "doc:doc_8" not in store
    assert 42 not in store and "" not in store and "a\x00b" not in store
    info = store.info("doc:doc_7")
    assert info == SourceInfo(
        handle="doc:doc_7",
        digest=compute_digest(b"content 2"),
        size=9,
        kind="doc",
        ts=2.0,
        seq=info.seq,
    )
    assert [store.info(h).seq for h in handles] == sorted(store.info(h).seq for h in handles)


def test_handles_named_finds_handles_by_the_name_after_their_kind(store):
    for h in ["tool:call_8841", "doc:call_8841", "tool:call_88", "call_8841", "doc:a:b", "user:u3"]:
        store.put(h, h)
    assert store.handles_named("call_8841") == ["tool:call_8841", "doc:call_8841"]
    assert store.handles_named("a:b") == ["doc:a:b"]
    assert store.handles_named("b") == []
    assert store.handles_named("u3") == ["user:u3"]
    assert store.handles_named("call_88") == ["tool:call_88"]
    assert store.handles_named("tool:call_8841") == []  # exact handles are not names
    with pytest.raises(InvalidHandleError):
        store.handles_named("")


def test_handles_cited_as_is_the_exact_handle_else_the_handles_of_that_name(store):
    for h in ["tool:call_8841", "doc:call_8841", "tool:call_88", "call_88", "doc:a:b"]:
        store.put(h, h)
    assert store.handles_cited_as("tool:call_8841") == ["tool:call_8841"]  # a handle: itself
    assert store.handles_cited_as("call_88") == ["call_88"]  # a handle wins over a name
    assert store.handles_cited_as("call_8841") == ["tool:call_8841", "doc:call_8841"]  # ambiguous
    assert store.handles_cited_as("a:b") == ["doc:a:b"]
    assert store.handles_cited_as("nothing") == []
    for name in ["tool:call_8841", "call_88", "call_8841", "a:b", "nothing", "b"]:
        expected = [name] if store.resolves(name) else store.handles_named(name)
        assert store.handles_cited_as(name) == expected
    with pytest.raises(InvalidHandleError):
        store.handles_cited_as("")
    with pytest.raises(InvalidHandleError):
        store.handles_cited_as("bad\x00name")


def test_handles_cited_as_many_answers_each_name_as_handles_cited_as_does(store):
    for h in ["tool:call_8841", "doc:call_8841", "tool:call_88", "call_88", "doc:a:b", "user:u3", "b"]:
        store.put(h, h)
    names = ["call_8841", "tool:call_8841", "call_88", "a:b", "nothing", "b", "u3", "call_8841", "doc:a:b"]
    got = store.handles_cited_as_many(names)
    assert list(got) == list(dict.fromkeys(names))  # each distinct name once, in the order given
    assert got == {name: store.handles_cited_as(name) for name in names}
    assert got["call_8841"] == ["tool:call_8841", "doc:call_8841"]  # ambiguous: both, stored order
    assert store.handles_cited_as_many([]) == {}
    assert store.handles_cited_as_many(iter(["u3"])) == {"u3": ["user:u3"]}


def test_handles_cited_as_many_reads_names_beyond_one_query_in_one_snapshot(store):
    # more names than one statement takes: answered across queries, none lost at a boundary
    for k in range(0, 1203, 7):
        store.put(f"tool:call_{k}", "x")
    store.put("doc:call_700", "x")  # ambiguous, in a later query's range
    names = [f"call_{k}" for k in range(1203)]
    got = store.handles_cited_as_many(names)
    assert len(got) == 1203
    assert got == {f"call_{k}": store.handles_cited_as(f"call_{k}") for k in range(1203)}
    assert got["call_700"] == ["tool:call_700", "doc:call_700"] and got["call_1202"] == []


def test_handles_cited_as_many_rejects_bad_names_with_the_name_s_error(store):
    with pytest.raises(InvalidArgumentError, match="single str"):
        store.handles_cited_as_many("call_1")
    with pytest.raises(InvalidArgumentError, match="iterable"):
        store.handles_cited_as_many(42)
    for bad in ["", "bad\x00name", "x" * (MAX_HANDLE_BYTES + 1), "\ud800", 7]:
        with pytest.raises(InvalidHandleError):
            store.handles_cited_as_many(["call_1", bad])


def test_handles_added_since_gives_the_newest_sequence_number_and_the_newer_handles(store):
    assert store.handles_added_since(None) == (0, [])  # an empty store
    assert store.handles_added_since(0) == (0, [])
    store.put("tool:a", "x")
    store.put("tool:b", "y")
    latest, added = store.handles_added_since(None)
    assert added == [] and latest == store.info("tool:b").seq
    store.put("doc:a", "x")  # the same content under a new handle is a new source
    store.put("tool:a", "x")  # an existing handle with its own content is no new source
    assert store.handles_added_since(latest) == (store.info("doc:a").seq, ["doc:a"])
    assert store.handles_added_since(0) == (store.info("doc:a").seq, ["tool:a", "tool:b", "doc:a"])
    assert store.handles_added_since(10**6) == (10**6, [])
    assert store.handles_added_since(2**63 - 1) == (2**63 - 1, [])
    for bad in (-1, 1.5, True, "3", 2**63, 10**30):  # red team 50, f06: 2**63 raised OverflowError
        with pytest.raises(InvalidArgumentError, match="seq must be"):
            store.handles_added_since(bad)


def test_handles_named_uses_its_index(fstore):
    conn = fstore._connection().raw
    from provgate.store import _NAMED  # the clause handles_named and handles_cited_as run

    plan = conn.execute(f"EXPLAIN QUERY PLAN SELECT handle {_NAMED} ORDER BY seq", ("x",)).fetchall()
    assert any("sources_by_name" in str(row) for row in plan)


def test_iteration_pages_through_many_handles(mem):
    handles = [f"tool:call_{i}" for i in range(2503)]
    for h in handles:
        mem.put(h, "x")
    assert list(mem) == handles


def test_unknown_handles(store):
    store.put("tool:known", "x")
    for op in (store.get, store.get_bytes, store.digest, store.info):
        with pytest.raises(UnknownHandleError, match="tool:missing"):
            op("tool:missing")
    assert not store.resolves("tool:missing")
    assert store.resolves("tool:known")


def test_get_many_returns_verified_texts_in_request_order(store):
    handles = [f"tool:call_{i}" for i in range(1200)]  # several IN chunks
    for i, h in enumerate(handles):
        store.put(h, f"output {i}")
    wanted = handles[::-1] + handles[:3]
    got = store.get_many(wanted)
    assert list(got) == handles[::-1]
    assert all(got[h] == f"output {int(h.split('_')[1])}" for h in handles)
    assert store.get_many([]) == {}


def test_get_many_missing_handles(store):
    store.put("tool:a", "A")
    with pytest.raises(UnknownHandleError, match="'tool:b'"):
        store.get_many(["tool:a", "tool:b"])
    assert store.get_many(["tool:b", "tool:a"], missing="skip") == {"tool:a": "A"}
    assert store.unresolved(["tool:b", "tool:a", "tool:c", "tool:b"]) == ["tool:b", "tool:c"]
    with pytest.raises(InvalidArgumentError, match="missing"):
        store.get_many(["tool:a"], missing="ignore")
    with pytest.raises(InvalidArgumentError, match="single str"):
        store.get_many("tool:a")
    with pytest.raises(InvalidHandleError):
        store.get_many(["tool:a", ""])


def test_info_many_is_info_of_each_handle_that_resolves(store):
    handles = [f"tool:call_{i}" for i in range(1100)]  # several IN chunks
    for i, h in enumerate(handles):
        store.put(h, f"output {i % 7}", kind="tool_output", ts=float(i))
    wanted = ["tool:missing", *handles[::-1], handles[0]]
    got = store.info_many(wanted)
    assert list(got) == handles[::-1]  # the order given, each once, the unknown left out
    assert all(got[h] == store.info(h) for h in handles[:50])
    assert store.info_many([]) == {}
    with pytest.raises(InvalidArgumentError, match="single str"):
        store.info_many("tool:call_1")
    with pytest.raises(InvalidArgumentError, match="iterable"):
        store.info_many(5)
    with pytest.raises(InvalidHandleError):
        store.info_many(["tool:call_1", ""])


def test_digests_many_is_the_digest_info_many_gives(store):
    handles = [f"tool:call_{i}" for i in range(1100)]  # several IN chunks
    for i, h in enumerate(handles):
        store.put(h, f"output {i % 7}")
    wanted = ["tool:missing", *handles[::-1], handles[0]]
    got = store.digests_many(wanted)
    assert list(got) == handles[::-1]  # the order given, each once, the unknown left out
    assert got == {h: info.digest for h, info in store.info_many(wanted).items()}
    assert store.digests_many([]) == {}
    with pytest.raises(InvalidArgumentError, match="single str"):
        store.digests_many("tool:call_1")
    with pytest.raises(InvalidHandleError):
        store.digests_many(["tool:call_1", "bad\x00handle"])


def _count_reads(store) -> list[list[str]]:
    """The handles each of ``store``'s batched reads asks (digests_many reads through it)."""
    asked: list[list[str]] = []
    read = store._read_chunks

    def counting(sql, handles, params=()):
        asked.append(list(handles))
        return read(sql, handles, params)

    store._read_chunks = counting
    return asked


def test_digests_many_answers_the_sources_this_store_put_without_a_read(store):
    # a summarize check asks the digests of the turns its caller has just put (stop 49: a third
    # of a millisecond of SQLite); a store remembers what it wrote, as a row never changes
    put_one = store.put("tool:a", "A")
    put_batch = store.put_many({"tool:b": "B", "tool:c": "C"})
    store.put("tool:a", "A")  # an idempotent put again: still the same row
    asked = _count_reads(store)
    got = store.digests_many(["tool:c", "tool:missing", "tool:a", "tool:b"])
    assert got == {"tool:c": put_batch["tool:c"], "tool:a": put_one, "tool:b": put_batch["tool:b"]}
    assert list(got) == ["tool:c", "tool:a", "tool:b"]  # the order given, the unknown left out
    assert asked == [["tool:missing"]]  # only the handle it never wrote was read
    assert got == {h: i.digest for h, i in store.info_many(["tool:c", "tool:missing", "tool:a", "tool:b"]).items()}
    asked.clear()
    assert store.digests_many(["tool:a"]) == {"tool:a": put_one} and asked == [[]]


def test_digests_many_reads_what_another_store_object_wrote(store_path):
    with SourceStore(store_path) as writer, SourceStore(store_path) as reader:
        digest = writer.put("tool:a", "A")
        asked = _count_reads(reader)
        assert reader.digests_many(["tool:a"]) == {"tool:a": digest}
        assert asked == [["tool:a"]]


def test_a_batch_rolled_back_is_not_remembered_as_written(store):
    store.put("tool:a", "A")
    with pytest.raises(HandleConflictError):
        store.put_many({"tool:new": "N", "tool:a": "not A"})  # the conflict rolls tool:new back
    assert store.digests_many(["tool:new", "tool:a"]) == {"tool:a": compute_digest(b"A")}
    assert not store.resolves("tool:new")


def test_a_closed_store_answers_no_digest_it_remembers(store_path):
    s = SourceStore(store_path)
    s.put("tool:a", "A")
    s.close()
    with pytest.raises(StoreClosedError):
        s.digests_many(["tool:a"])


def test_the_memory_of_written_sources_is_bounded(store, monkeypatch):
    import provgate.store as store_module

    monkeypatch.setattr(store_module, "_WRITTEN_MEMORY", 4)
    digests = store.put_many({f"tool:{i}": str(i) for i in range(3)})
    store.put_many({f"tool:{i}": str(i) for i in range(3, 6)})  # past the bound: starts over
    assert len(store._written) == 3
    store.put_many({f"tool:{i}": str(i) for i in range(6, 11)})  # one batch past it: not kept
    assert len(store._written) == 0
    asked = _count_reads(store)
    assert store.digests_many(["tool:0", "tool:1"]) == {h: digests[h] for h in ["tool:0", "tool:1"]}
    assert asked == [["tool:0", "tool:1"]]  # forgotten, so read (and still found)


@pytest.mark.parametrize("damage", [compute_digest(b"other"), "blake3:" + "G" * 64, "md5:00"])
def test_digests_many_reports_a_damaged_row_as_info_does(store_path, damage):
    _with_damaged_digests(store_path, {"tool:b": damage})
    with SourceStore(store_path) as s:
        assert s.digests_many(["tool:a"]) == {"tool:a": s.info("tool:a").digest}
        with pytest.raises(StoreCorruptionError) as many:
            s.digests_many(["tool:a", "tool:b"])
        with pytest.raises(StoreCorruptionError) as one:
            s.info("tool:b")
        assert str(many.value) == str(one.value)


def _with_damaged_digests(store_path, digests: dict[str, str]) -> None:
    """Store tool:a = "A" and tool:b = "B", then overwrite the recorded digests of ``digests``."""
    with SourceStore(store_path) as s:
        s.put("tool:a", "A")
        s.put("tool:b", "B")
    conn = sqlite3.connect(store_path)
    conn.execute("DROP TRIGGER sources_no_update")  # simulate damage the triggers cannot stop
    for handle, digest in digests.items():
        conn.execute("UPDATE sources SET digest = ? WHERE handle = ?", (digest, handle))
    conn.commit()
    conn.close()


# red team 26, w05: verify() re-hashed content, audit and cache rows but never read the source
# rows' own columns, so it called a store healthy whose info(), iteration and gate checks raised
@pytest.mark.parametrize("column,value,read,complaint", [
    ("kind", b"\x00\xff", lambda s: s.info("tool:b"), "holds values of the wrong type"),
    ("ts", "abc", lambda s: s.info("tool:b"), "holds a timestamp of the wrong type"),
    ("handle", b"tool:b", lambda s: list(s), "source row 2 holds a handle that is not text"),
    # red team 81, F05: handles_added_since returned it, and the gate raised a raw TypeError
    ("handle", b"tool:b", lambda s: s.handles_added_since(1), "source row 2 holds a handle that is not text"),
    ("digest", 7, lambda s: s.info("tool:b"), "tool:b"),
])
def test_verify_reports_a_source_row_its_reads_refuse(store_path, column, value, read, complaint):
    with SourceStore(store_path) as s:
        s.put_many({"tool:a": "A", "tool:b": "B", "tool:c": "C"}, kind="tool_output", ts=1.0)
        assert s.verify() == []
    conn = sqlite3.connect(store_path)
    conn.execute("DROP TRIGGER sources_no_update")
    conn.execute(f"UPDATE sources SET {column} = ? WHERE handle = 'tool:b'", (value,))
    conn.commit()
    conn.close()
    with SourceStore(store_path) as s:
        with pytest.raises(StoreCorruptionError, match=re.escape(complaint)):
            read(s)
        problems = s.verify()
        assert len(problems) == 1 and complaint in problems[0], problems


def test_info_many_reports_a_damaged_row_as_info_does(store_path):
    _with_damaged_digests(store_path, {"tool:b": compute_digest(b"other")})
    with SourceStore(store_path) as s:
        assert s.info_many(["tool:a"])["tool:a"] == s.info("tool:a")
        with pytest.raises(StoreCorruptionError, match="not in the store") as many:
            s.info_many(["tool:a", "tool:b"])
        with pytest.raises(StoreCorruptionError) as one:
            s.info("tool:b")
        assert str(many.value) == str(one.value)


def test_get_cached_facts_many(store):
    digests = [store.put(f"tool:call_{i}", f"output {i}") for i in range(1100)]
    store.put_cached_facts_many([(d, "v1", f"facts {i}".encode()) for i, d in enumerate(digests) if i % 3])
    store.put_cached_facts(digests[0], "v2", b"other version")
    absent = compute_digest(b"never stored")
    got = store.get_cached_facts_many([absent, *digests[::-1], digests[1]], "v1")
    assert list(got) == [d for d in digests[::-1] if digests.index(d) % 3]
    assert all(got[d] == store.get_cached_facts(d, "v1") for d in digests[:60] if d in got)
    assert store.get_cached_facts_many(digests[:1], "v2") == {digests[0]: b"other version"}
    assert store.get_cached_facts_many([], "v1") == {}
    with pytest.raises(InvalidArgumentError, match="single str"):
        store.get_cached_facts_many(digests[0], "v1")
    with pytest.raises(InvalidArgumentError, match="iterable"):
        store.get_cached_facts_many(None, "v1")
    with pytest.raises(InvalidDigestError):
        store.get_cached_facts_many([digests[0], "blake3:zz"], "v1")
    with pytest.raises(InvalidArgumentError):
        store.get_cached_facts_many(digests[:1], "")


# red team 81, F03: bad entries raised a raw TypeError or ValueError (from unpacking), where
# put_many and get_cached_facts_many raise InvalidArgumentError for the same mistakes
@pytest.mark.parametrize("entries", [
    None, 5, "abc", b"abc", {compute_digest(b"x"): ("v1", b"f")},
    [(compute_digest(b"x"), "v1")], [(compute_digest(b"x"), "v1", b"f", 1)], ["abc"],
])
def test_put_cached_facts_many_refuses_bad_entries(store, entries):
    with pytest.raises(InvalidArgumentError, match="entries") as err:
        store.put_cached_facts_many(entries)
    assert err.value.argument == "entries"


def test_get_cached_facts_many_leaves_out_a_damaged_entry(store_path):
    x, y = compute_digest(b"x"), compute_digest(b"y")
    with SourceStore(store_path) as s:
        s.put_cached_facts(x, "v1", b"MARKER-FACTS-0123456789")
        s.put_cached_facts(y, "v1", b"intact")
    flip_byte_after(store_path, b"MARKER-FACTS-", skip=15)
    with SourceStore(store_path) as s:
        assert s.get_cached_facts_many([x, y], "v1") == {y: b"intact"}  # read as never cached
        with pytest.raises(StoreCorruptionError):
            s.get_cached_facts(x, "v1")


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=300))
def test_any_text_round_trips(mem, text):
    handle = f"doc:{compute_digest(text.encode())}"
    digest = mem.put(handle, text)
    assert mem.get(handle) == text
    assert mem.put(handle, text.encode("utf-8")) == digest


# ---------------------------------------------------------------------- durability and files


def test_sources_survive_reopening_the_file(store_path):
    with SourceStore(store_path) as s:
        d = s.put("tool:call_8841", CONFIG, kind="tool_output", ts=12.5)
        s.append_audit({"verdict": "accepted"})
    with SourceStore(store_path) as s:
        assert s.get("tool:call_8841") == CONFIG
        assert s.digest("tool:call_8841") == d
        assert s.info("tool:call_8841").ts == 12.5
        assert list(s.iter_audit()) == [(1, {"verdict": "accepted"})]


def test_file_store_uses_wal_full_sync_and_marks_the_file(fstore, store_path):
    assert raw_query(store_path, "PRAGMA journal_mode") == [("wal",)]
    assert raw_query(store_path, "PRAGMA application_id") == [(APPLICATION_ID,)]
    assert raw_query(store_path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    conn = fstore._connection().raw
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_default_path_order(monkeypatch, tmp_path):
    monkeypatch.setenv("PROVGATE_STORE", str(tmp_path / "explicit.sqlite3"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_store_path() == tmp_path / "explicit.sqlite3"
    monkeypatch.delenv("PROVGATE_STORE")
    assert default_store_path() == tmp_path / "xdg" / "provgate" / "store.sqlite3"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/dir")  # the XDG spec says: ignore it
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_store_path() == tmp_path / "home" / ".local" / "share" / "provgate" / "store.sqlite3"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_store_path() == tmp_path / "home" / ".local" / "share" / "provgate" / "store.sqlite3"


def test_store_without_path_creates_the_default_file(monkeypatch, tmp_path):
    monkeypatch.delenv("PROVGATE_STORE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    with SourceStore() as s:
        s.put("user:u3", "please keep retries=3")
        assert s.path == str(tmp_path / "data" / "provgate" / "store.sqlite3")
    assert (tmp_path / "data" / "provgate" / "store.sqlite3").is_file()


# red team 81, F10: the default path skipped the checks an explicit path gets, so a FIFO named
# by $PROVGATE_STORE raised a raw sqlite3.OperationalError
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="os.mkfifo is POSIX only: this platform has no FIFOs to test")
def test_the_default_path_gets_the_checks_an_explicit_path_gets(monkeypatch, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    monkeypatch.setenv("PROVGATE_STORE", str(fifo))
    with pytest.raises(InvalidArgumentError, match="not a regular file") as info:
        SourceStore()
    assert info.value.argument == "path"
    assert list(tmp_path.iterdir()) == [fifo]


def test_missing_directory_is_an_error_not_a_surprise_mkdir(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        SourceStore(tmp_path / "no" / "such" / "dir" / "s.sqlite3")
    assert not (tmp_path / "no").exists()


# Red team 7, s08: every error provgate raises derives from ProvgateError (docs/store.md: an
# explicit path names a store file). A directory raised a raw sqlite3.OperationalError, and
# /dev/null a "disk I/O error" after SQLite had tried to write a schema into it.
@pytest.mark.parametrize("what", ["directory", "device", "fifo"])
def test_a_path_that_cannot_hold_a_store_is_an_invalid_argument(tmp_path, what):
    if what == "directory":
        path = tmp_path / "adir"
        path.mkdir()
    elif what == "device":
        path = Path(os.devnull)
    else:
        if not hasattr(os, "mkfifo"):
            pytest.skip("os.mkfifo is POSIX only: this platform has no FIFOs to test")
        path = tmp_path / "fifo"
        os.mkfifo(path)
    with pytest.raises(InvalidArgumentError, match="directory|not a regular file") as info:
        SourceStore(path)
    assert info.value.argument == "path"
    assert list(tmp_path.iterdir()) == ([path] if what != "device" else [])


# red team 81, F07: "x.sqlite3/" passed the checks (stat of a missing "x/" is FileNotFoundError,
# read as a new store), SQLite created x.sqlite3, and the same path could not reopen it
@pytest.mark.parametrize("tail", [os.sep, os.sep + os.curdir])
def test_a_path_that_can_only_name_a_directory_is_an_invalid_argument(tmp_path, tail):
    with pytest.raises(InvalidArgumentError, match="directory") as info:
        SourceStore(str(tmp_path / "store.sqlite3") + tail)
    assert info.value.argument == "path"
    assert list(tmp_path.iterdir()) == []


# Red team 7, s02: an edit's inline sources went in one put (one transaction) each, so a source
# refused later left the earlier ones stored. put_many checks every source first and writes
# them in one transaction: all of them, or (whatever refuses one) none.
def test_put_many_stores_every_source_in_one_transaction(fstore, store_path):
    fstore.put("tool:old", "old\n")
    digests = fstore.put_many({"tool:a": "A\n", "tool:b": b"B\n", "tool:old": "old\n", "tool:a2": "A\n"}, kind="doc")
    assert digests == {h: compute_digest(t) for h, t in
                       (("tool:a", b"A\n"), ("tool:b", b"B\n"), ("tool:old", b"old\n"), ("tool:a2", b"A\n"))}
    assert fstore.get_many(["tool:a", "tool:b", "tool:a2"]) == {"tool:a": "A\n", "tool:b": "B\n", "tool:a2": "A\n"}
    assert fstore.info("tool:b").kind == "doc" and fstore.info("tool:old").kind is None
    assert fstore.put_many([("tool:c", "C")]) == {"tool:c": compute_digest(b"C")}
    assert fstore.put_many({}) == {}
    assert row_counts(store_path)["content"] == 4


def _put_many_refusals(store_path):
    yield "over-the-limit", {"tool:a": "A", "tool:big": "x" * 65}, LimitExceededError, "content of 'tool:big'"
    yield "not-utf8", {"tool:a": "A", "tool:bad": b"\xff"}, InvalidContentError, "content of 'tool:bad'"
    yield "surrogate", {"tool:a": "A", "tool:bad": "\udc80"}, InvalidContentError, "content of 'tool:bad'"
    yield "bad-handle", {"tool:a": "A", "tool:\x00": "x"}, InvalidHandleError, "NUL"
    yield "not-content", {"tool:a": "A", "tool:bad": 5}, InvalidContentError, "content of 'tool:bad'"
    yield "twice-in-the-batch", [("tool:a", "A"), ("tool:a", "B")], HandleConflictError, "given twice"
    yield "stored-conflict", {"tool:a": "A", "tool:kept": "other"}, HandleConflictError, "'tool:kept' already holds"
    yield "not-pairs", [("tool:a", "A", "x")], InvalidArgumentError, "pair"
    yield "a-str", "tool:a", InvalidArgumentError, "mapping"
    # red team 26, w01: two-character strings "unpacked" to (handle, content)
    yield "strs-as-pairs", [("tool:a", "A"), "ab", "cd"], InvalidArgumentError, "sources[1] must be a (handle, content) pair"
    yield "bytes-as-pair", [b"ab"], InvalidArgumentError, "not bytes"
    yield "not-a-pair", [("tool:a", "A"), 5], InvalidArgumentError, "sources[1]"


@pytest.mark.parametrize("name", [n for n, *_ in _put_many_refusals(None)])
def test_put_many_refused_for_one_source_writes_none(store_path, name):
    _, sources, exc, words = next(r for r in _put_many_refusals(store_path) if r[0] == name)
    with SourceStore(store_path, max_content_bytes=64) as s:
        s.put("tool:kept", "kept\n")
        before = row_counts(store_path)
        with pytest.raises(exc, match=re.escape(words)):
            s.put_many(sources)
        assert row_counts(store_path) == before and list(s) == ["tool:kept"]


def test_put_many_onto_damaged_content_writes_none(store_path):
    # the last source deduplicates onto a stored row whose bytes are damaged: found inside the
    # transaction, after the first source was inserted, and rolled back with it
    marker = b"DAMAGED-ROW-"
    text = marker.decode() + "retries=3\n"
    with SourceStore(store_path) as s:
        s.put("tool:kept", text)
    flip_byte_after(store_path, marker, skip=len(marker) + 8)
    before = row_counts(store_path)
    with SourceStore(store_path) as s:
        with pytest.raises(StoreCorruptionError, match="tool:copy"):  # noqa: SIM117 - the store is read after
            s.put_many({"tool:new": "fresh\n", "tool:copy": text})
        assert list(s) == ["tool:kept"]
    assert row_counts(store_path) == before


# Red team 7, s03: the gate confirms the sources an edit evicts or supersedes with one verified
# read of many (get_bytes_many: get_many's bytes, re-hashed, a damaged one named).
def test_get_bytes_many_reads_verified_bytes_and_names_a_damaged_one(store_path):
    marker = b"BYTES-MANY-"
    with SourceStore(store_path) as s:
        s.put("tool:a", marker.decode() + "retries=3\n")
        s.put("tool:b", "caf\u00e9\n")
        assert s.get_bytes_many(["tool:b", "tool:a"]) == {"tool:b": "caf\u00e9\n".encode(),
                                                         "tool:a": marker + b"retries=3\n"}
        assert s.get_bytes_many(["tool:b", "tool:x"], missing="skip") == {"tool:b": "caf\u00e9\n".encode()}
        with pytest.raises(UnknownHandleError, match="tool:x"):
            s.get_bytes_many(["tool:x"])
    flip_byte_after(store_path, marker, skip=len(marker) + 8)
    with SourceStore(store_path) as s:
        with pytest.raises(StoreCorruptionError, match="'tool:a'"):
            s.get_bytes_many(["tool:b", "tool:a"])


# red team 50, f01: one byte of the handle index made get() and every other read by handle
# return another source's bytes (intact under their own digest) under the handle asked, and the
# gate accepted a summary grounded in the wrong source; each read now checks the row it found
# is the handle asked
@pytest.mark.parametrize("read", [
    lambda s: s.get("tool:b"),
    lambda s: s.get_bytes("tool:b"),
    lambda s: s.get_many(["tool:a", "tool:b"]),
    lambda s: s.get_bytes_many(["tool:b"], missing="skip"),
    lambda s: s.digest("tool:b"),
    lambda s: s.info("tool:b"),
    lambda s: s.info_many(["tool:b"]),
    lambda s: s.digests_many(["tool:a", "tool:b"]),
    lambda s: s.resolves("tool:b"),
    lambda s: "tool:b" in s,
    lambda s: s.unresolved(["tool:b"]),
    lambda s: s.handles_cited_as("tool:b"),
    lambda s: s.pointer("tool:b", 0, 1),
    lambda s: s.pointer_from_str_indices("tool:b", 0, 1),
    lambda s: s.put("tool:b", "A retries=0\n"),  # would be acknowledged as already stored
    lambda s: s.put_many({"tool:b": "A retries=0\n"}),
])
def test_a_damaged_handle_index_never_serves_another_sources_row(store_path, read):
    with SourceStore(store_path) as s:
        s.put("tool:a", "A retries=0\n")
        s.put("tool:b", "B retries=2\n")
        s.put("tool:c", "C retries=4\n")
    repoint_index_entry(store_path, "sqlite_autoindex_sources_1", b"tool:b", 1)  # tool:b's entry leads to row 1
    with SourceStore(store_path) as s:
        assert s.get("tool:a") == "A retries=0\n" and s.get("tool:c") == "C retries=4\n"
        with pytest.raises(StoreCorruptionError, match="'tool:b'.*index of handles leads to the row of 'tool:a'"):
            read(s)
        assert any("sqlite_autoindex_sources_1" in p for p in s.verify())


def test_a_pointer_into_a_source_whose_index_entry_is_damaged_does_not_resolve(store_path):
    with SourceStore(store_path) as s:
        s.put("tool:a", "retries=3\n")
        s.put("tool:b", "retries=3\n owner=bob")  # the same first bytes: the span would match
        p = s.pointer("tool:b", 0, 9)
    repoint_index_entry(store_path, "sqlite_autoindex_sources_1", b"tool:b", 1)
    with SourceStore(store_path) as s:
        with pytest.raises(StoreCorruptionError, match="'tool:b'"):
            s.resolve(p)


def test_a_damaged_name_index_never_names_another_handle(store_path):
    with SourceStore(store_path) as s:
        s.put("tool:call_a", "A")
        s.put("tool:call_b", "B")
    repoint_index_entry(store_path, "sources_by_name", b"call_b", 1)
    with SourceStore(store_path) as s:
        assert s.handles_named("call_a") == ["tool:call_a"]
        with pytest.raises(StoreCorruptionError, match="'call_b'.*'tool:call_a'"):
            s.handles_named("call_b")
        with pytest.raises(StoreCorruptionError, match="'call_b'.*'tool:call_a'"):
            s.handles_cited_as("call_b")


# red team 81, F08: a damaged byte in an index key reached two batch reads as a name or digest
# not asked, which they looked up in their own dicts: a raw KeyError
def test_a_damaged_index_key_is_corruption_in_the_batch_reads(store_path, tmp_path):
    sources = {f"tool:call_{i}": f"line {i} retries={i}\n" * (1 + i % 7) for i in range(12)}
    with SourceStore(store_path) as s:
        s.put_many(sources)
    target = compute_digest(sources["tool:call_4"].encode())
    change_index_key(store_path, "sqlite_autoindex_content_1", target.encode(), 0, b"r")  # 'blake3:' -> 'rlake3:'
    with SourceStore(store_path) as s, pytest.raises(StoreCorruptionError, match="rlake3:"):
        s.unmatched_contents({compute_digest(v.encode()): v.encode() for v in sources.values()})
    named = tmp_path / "named.sqlite3"
    with SourceStore(named) as s:
        s.put_many({f"tool:call_{i}": f"x{i}\n" for i in range(40)})
    change_index_key(named, "sources_by_name", b"call_10", 3, b",")  # 'call_10' -> 'cal,_10'
    with SourceStore(named) as s, pytest.raises(StoreCorruptionError, match="'cal,_10'"):
        s.handles_cited_as_many(["call_1", "tool:call_2", "big_1"])


def test_a_damaged_fact_cache_index_never_serves_another_contents_facts(store_path):
    x, y = compute_digest(b"x"), compute_digest(b"y")
    with SourceStore(store_path) as s:
        s.put_cached_facts(x, "v1", b"facts of x")
        s.put_cached_facts(y, "v1", b"facts of y")
    repoint_index_entry(store_path, "sqlite_autoindex_fact_cache_1", (y + "v1").encode(), 1)
    with SourceStore(store_path) as s:
        assert s.get_cached_facts(x, "v1") == b"facts of x"
        with pytest.raises(StoreCorruptionError, match=f"cached facts of {y}.*leads to the entry of '{x}'"):
            s.get_cached_facts(y, "v1")
        assert s.get_cached_facts_many([x, y], "v1") == {x: b"facts of x"}  # y's read as never cached


def test_schema_tables_refuse_update_and_delete(fstore, store_path):
    fstore.put("tool:a", "A")
    fstore.append_audit({"x": 1})
    for sql in (
        "UPDATE content SET body = x'00'",
        "DELETE FROM content",
        "UPDATE sources SET handle = 'tool:b'",
        "DELETE FROM sources",
        "UPDATE audit SET record = x'7b7d'",
        "DELETE FROM audit",
    ):
        with pytest.raises(sqlite3.IntegrityError, match="immutable"):
            raw_query(store_path, sql)
    assert fstore.get("tool:a") == "A"


# ---------------------------------------------------------------------- corruption


def test_flipped_byte_on_disk_is_detected_on_read(store_path):
    marker = b"MARKER-8841-"
    with SourceStore(store_path) as s:
        s.put("tool:call_8841", marker.decode() + "retries=3 " * 20)
        s.put("tool:clean", "unrelated")
    assert not Path(str(store_path) + "-wal").exists()  # checkpointed into the main file
    flip_byte_after(store_path, marker, skip=len(marker) + 8)  # '3' -> '2'
    assert integrity(store_path) == ["ok"]  # SQLite itself sees nothing wrong
    with SourceStore(store_path) as s:
        with pytest.raises(StoreCorruptionError, match="no longer hash"):
            s.get("tool:call_8841")
        with pytest.raises(StoreCorruptionError):
            s.get_many(["tool:clean", "tool:call_8841"])
        with pytest.raises(StoreCorruptionError):
            s.pointer("tool:call_8841", 0, 5)
        assert s.get("tool:clean") == "unrelated"
        problems = s.verify()
        assert len(problems) == 1 and "no longer hash" in problems[0]


def test_dedup_onto_a_corrupted_row_is_refused(store_path):
    marker = b"MARKER-DEDUP-"
    text = marker.decode() + "x" * 100
    with SourceStore(store_path) as s:
        s.put("tool:first", text)
    flip_byte_after(store_path, marker, skip=len(marker) + 5)
    with SourceStore(store_path) as s:
        before = snapshot(s)
        with pytest.raises(StoreCorruptionError):
            s.put("tool:second", text)  # would be served from the damaged bytes
        assert snapshot(s) == before


# red team 81, F01: a put of the content a handle already holds returned at once, without
# reading the stored copy, so it was acknowledged onto damaged or missing bytes
@pytest.mark.parametrize("put", [
    lambda s, h, text: s.put(h, text),
    lambda s, h, text: s.put_many({h: text}),
])
def test_a_repeated_put_onto_damaged_or_missing_content_is_refused(store_path, put):
    marker = b"MARKER-REPUT-"
    text = marker.decode() + "retries=3\n"
    with SourceStore(store_path) as s:
        s.put("tool:a", text)
        s.put("tool:b", "B")
    flip_byte_after(store_path, marker, skip=len(marker) + 8)
    conn = sqlite3.connect(store_path)
    conn.execute("DROP TRIGGER content_no_delete")  # simulate a lost row the triggers cannot stop
    conn.execute("DELETE FROM content WHERE digest = ?", (compute_digest(b"B"),))
    conn.commit()
    conn.close()
    before = row_counts(store_path)
    with SourceStore(store_path) as s:
        with pytest.raises(StoreCorruptionError, match="'tool:a'.*no longer hash"):
            put(s, "tool:a", text)
        with pytest.raises(StoreCorruptionError, match="'tool:b'.*not in the store"):
            put(s, "tool:b", "B")
    assert row_counts(store_path) == before


def test_damaged_digest_column_is_detected(store_path):
    _with_damaged_digests(store_path, {"tool:a": "blake3:zz", "tool:b": compute_digest(b"other")})
    with SourceStore(store_path) as s:
        with pytest.raises(StoreCorruptionError, match="recorded digest is damaged"):
            s.get("tool:a")
        with pytest.raises(StoreCorruptionError, match="not in the store"):
            s.get("tool:b")
        assert not s.resolves("tool:b")
        assert len(s.verify()) >= 2


# red team 81, F02: a put compared the damaged digest column with its own and called the
# difference a HandleConflictError; the caller's content is right, the stored row is damaged
@pytest.mark.parametrize("damage", ["blake3:zz", 7, b"\x00\xff", "BLAKE3:" + "A" * 64])
def test_a_put_onto_a_damaged_digest_column_is_corruption_not_a_conflict(store_path, damage):
    _with_damaged_digests(store_path, {"tool:a": damage})
    with SourceStore(store_path) as s:
        with pytest.raises(StoreCorruptionError, match="'tool:a'.*recorded digest is damaged"):
            s.put("tool:a", "A")
        with pytest.raises(StoreCorruptionError, match="'tool:a'.*recorded digest is damaged"):
            s.put_many({"tool:b": "B", "tool:a": "A"})


def test_non_sqlite_file_is_reported_as_damaged_or_wrong(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("these are not the bytes of a database\n" * 200)
    before = path.read_bytes()
    with pytest.raises(StoreCorruptionError, match="not a SQLite database"):
        SourceStore(path)
    assert path.read_bytes() == before


def test_foreign_sqlite_database_is_not_adopted(tmp_path):
    path = tmp_path / "app.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE users (id INTEGER)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreSchemaError, match="another application"):
        SourceStore(path)
    assert path.read_bytes() == before  # not even switched to WAL
    assert raw_query(path, "PRAGMA journal_mode") == [("delete",)]
    raw_query(path, "PRAGMA application_id = 1234")
    before = path.read_bytes()
    with pytest.raises(StoreSchemaError, match="not a provgate store"):
        SourceStore(path)
    assert path.read_bytes() == before


def test_newer_schema_is_refused_clearly(store_path):
    with SourceStore(store_path) as s:
        s.put("tool:a", "A")
    raw_query(store_path, f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    before = store_path.read_bytes()
    with pytest.raises(StoreSchemaError, match="newer provgate"):
        SourceStore(store_path)
    assert store_path.read_bytes() == before


# ---------------------------------------------------------------------- audit log


def test_audit_log_appends_in_order_and_reads_since(store):
    seqs = [store.append_audit({"cycle": i, "verdict": "accepted", "why": []}) for i in range(5)]
    assert seqs == sorted(seqs) and len(set(seqs)) == 5
    records = list(store.iter_audit())
    assert [r for _, r in records] == [{"cycle": i, "verdict": "accepted", "why": []} for i in range(5)]
    assert [s for s, _ in store.iter_audit(since=seqs[2])] == seqs[3:]
    assert list(store.iter_audit(since=2**63 - 1)) == []  # the largest since there is
    rec = {"t": (1, 2), "text": "retries=3 — ü\x00", "n": None, "f": 0.5, "b": True, "nested": {"a": [{}]}}
    seq = store.append_audit(rec)
    assert dict(store.iter_audit(since=seq - 1))[seq] == {**rec, "t": [1, 2]}


def test_audit_log_pages(mem):
    for i in range(2100):
        mem.append_audit({"i": i})
    assert [r["i"] for _, r in mem.iter_audit()] == list(range(2100))


def test_audit_log_of_one_session_is_read_by_its_index(store):
    odd = 'naïve "quoted" \\ name\x00𝄞'
    written = []
    for i in range(7):
        for session in ("a", odd, "b"):
            written.append((store.append_audit({"session": session, "i": i}), session))
    store.append_audit({"i": 99})  # no session
    store.append_audit({"session": 7, "i": 98})  # not a session name
    store.append_audit({"nested": {"session": "a"}, "session": "c"})  # the name under another key
    store.append_audit({"session": "", "i": 97})
    for session in ("a", odd, "b"):
        got = list(store.iter_audit_of_session(session))
        assert [seq for seq, _ in got] == [seq for seq, s in written if s == session]
        assert [r["i"] for _, r in got] == list(range(7))
    assert list(store.iter_audit_of_session("A")) == []
    plan = store._read(lambda conn: conn.execute(
        "EXPLAIN QUERY PLAN SELECT seq FROM audit INDEXED BY audit_by_session WHERE session = 'a' AND seq > 0").fetchall())
    assert "audit_by_session" in str(plan)


def test_audit_log_of_one_session_pages(mem):
    for i in range(2100):
        mem.append_audit({"session": "s", "i": i})
        mem.append_audit({"session": "t", "i": i})
    assert [r["i"] for _, r in mem.iter_audit_of_session("s")] == list(range(2100))


@pytest.mark.parametrize("record", [
    b'{"session":"R","pins":["tool:p"]}',  # "S" rotted to "R": the digest no longer matches
    b'{"session":"S"#"pins":["tool:p"]}',  # rotted JSON syntax
    b"[" * 100_000 + b"]" * 100_000,  # intact, but too deep to read
])
def test_an_upgrade_never_files_an_unreadable_record_under_a_session(store_path, record):
    # red team 8, u01/u02: the upgrade filed a damaged version 1 record under the session its
    # rotted bytes named (or none), head and index agreeing, so the session resumed without the
    # record's pins; an odd intact record made the upgrade, and so every open, fail
    from provgate.digests import compute_digest

    original = b'{"session":"S","pins":["tool:p"]}'
    digest = compute_digest(original if record[:1] == b"{" else record)
    version_1_store(store_path, [b'{"session":"S","cycle":1}', record], [compute_digest(b'{"session":"S","cycle":1}'), digest])
    with SourceStore(store_path) as s:
        assert s.get("tool:a") == "retries=3\n"  # the store opens
        with pytest.raises(StoreCorruptionError, match="audit record 2 was damaged or unreadable"):
            list(s.iter_audit_of_session("S"))
        with pytest.raises(StoreCorruptionError, match="audit record 2 was damaged or unreadable"):
            list(s.iter_audit_of_session("other"))
        assert any("audit record 2: its session is unknown" in p for p in s.verify())


def test_iter_audit_refuses_an_intact_record_too_deep_to_read(store_path):
    # red team 81, F09: iter_audit let the RecursionError of such a record out raw, and
    # provgate report called it an internal error
    from provgate.digests import compute_digest

    record = b"[" * 100_000 + b"]" * 100_000
    version_1_store(store_path, [b'{"session":"S","cycle":1}', record],
                     [compute_digest(b'{"session":"S","cycle":1}'), compute_digest(record)])
    with SourceStore(store_path) as s, pytest.raises(StoreCorruptionError, match="audit record 2 is not valid JSON"):
        list(s.iter_audit())


def test_an_upgrade_reads_an_escaped_lone_surrogate_session_as_none(store_path):
    version_1_store(store_path, [b'{"session":"\\ud800","i":1}', b'{"session":"S","i":2}'])
    with SourceStore(store_path) as s:
        assert [r["i"] for _, r in s.iter_audit_of_session("S")] == [2]


def test_verify_reports_a_session_index_that_disagrees_with_the_log(store_path):
    # red team 8, u03: verify() called the store healthy while a resume of the session failed
    with SourceStore(store_path) as s:
        for i in range(3):
            s.append_audit({"session": "mine", "i": i})
        assert s.verify() == []
    conn = sqlite3.connect(str(store_path))
    try:
        with conn:
            conn.execute("UPDATE audit_session_heads SET records = 4 WHERE session = 'mine'")
    finally:
        conn.close()
    with SourceStore(store_path) as s:
        assert s.verify() == ["audit session 'mine': its head counts 4 record(s) up to seq 3, the log holds 3 up to seq 3"]


@pytest.mark.parametrize("edit", [
    "PRAGMA user_version = 1",  # a version 2 file that says 1
    "DROP TABLE audit_session_heads",
    "DROP INDEX audit_by_session",
])
def test_a_schema_that_disagrees_with_its_version_is_refused_naming_it(store_path, edit):
    # red team 8, u04: raw sqlite3 errors ("duplicate column name", "no such table") on a later
    # open, append or resume
    with SourceStore(store_path) as s:
        s.append_audit({"session": "mine"})
    raw_query(store_path, edit)
    with pytest.raises(StoreSchemaError, match="edited by hand"):
        SourceStore(store_path)


# red team 50, f02/f03: only the schema's names were compared, so one flipped bit of a
# definition opened: PRIMARY -> PSIMARY made the audit log read as empty while appends were
# acknowledged and lost; a damaged column name failed later with a raw sqlite3 error; a byte of
# the schema that is no longer UTF-8 raised a raw UnicodeDecodeError
@pytest.mark.parametrize("marker,skip,what", [
    (b"seq INTEGER PRIMARY KEY,\n        record", len("seq INTEGER P"), "table 'audit'"),  # PRIMARY -> PSIMARY
    (b"body BLOB NOT NULL", 3, "table 'content'"),  # body -> bodx
    (b"record BLOB NOT NULL", 0, "table 'audit'"),  # record -> secord
    (b"DELETE ON audit\n            BEGIN SELECT RAISE(ABORT, 'provgate: audit rows",
     len("DELETE ON audit\n            BEGIN SELECT RAISE(ABORT, 'provgate: audit "), "trigger 'audit_no_delete'"),
    (b"WHEN NEW.session != ''", len("WHEN NEW.session "), "trigger 'audit_counts_session'"),  # != -> ' =': no heads
])
def test_a_schema_definition_that_is_not_ours_is_refused_naming_it(store_path, marker, skip, what):
    with SourceStore(store_path) as s:
        s.put("tool:a", "retries=3\n")
        for i in range(3):
            s.append_audit({"session": "s1", "n": i + 1})
    flip_byte_after(store_path, marker, skip=skip)
    before = store_path.read_bytes()
    with pytest.raises(StoreSchemaError, match=f"{what}.*edited by hand or damaged"):
        SourceStore(store_path)
    assert store_path.read_bytes() == before


def test_a_schema_text_that_is_not_utf8_is_store_corruption(store_path):
    with SourceStore(store_path) as s:
        s.put("tool:a", "retries=3\n")
    data = bytearray(store_path.read_bytes())
    data[data.index(b"CREATE TABLE content (") + 3] ^= 0xC0  # 'A' -> 0x81, no UTF-8 lead byte
    store_path.write_bytes(bytes(data))
    with pytest.raises(StoreCorruptionError, match="cannot read its schema"):
        SourceStore(store_path)


def test_a_schema_object_provgate_does_not_create_is_refused(store_path):
    with SourceStore(store_path) as s:
        s.put("tool:a", "retries=3\n")
    raw_query(store_path, "CREATE TRIGGER audit_no_updatf BEFORE UPDATE ON audit BEGIN SELECT 1; END")
    with pytest.raises(StoreSchemaError, match="'audit_no_updatf' that provgate does not create"):
        SourceStore(store_path)


def test_a_damaged_version_1_schema_is_not_upgraded(store_path):
    version_1_store(store_path, [b'{"session":"S"}'])
    flip_byte_after(store_path, b"body BLOB NOT NULL", skip=3)
    with pytest.raises(StoreSchemaError, match="table 'content'"):
        SourceStore(store_path)
    assert raw_query(store_path, "PRAGMA user_version") == [(1,)]  # the upgrade was rolled back


def test_a_schema_changed_under_an_open_store_is_a_schema_error(store_path):
    with SourceStore(store_path) as s:
        d = s.put("tool:a", "retries=3\n")
        s.put_cached_facts(d, "v1", b"facts")
        raw_query(store_path, "ALTER TABLE fact_cache RENAME COLUMN blob TO blobx")
        with pytest.raises(StoreSchemaError, match="no such column"):
            s.get_cached_facts(d, "v1")


@pytest.mark.parametrize("damage", ["head", "column"])
def test_a_damaged_session_index_fails_closed_instead_of_losing_records(store_path, damage):
    # red team 7, s05: a resumed session that silently missed one of its records lost the
    # pins it held; the log's index and the session's head are kept apart, and must agree
    with SourceStore(store_path) as s:
        for i in range(3):
            s.append_audit({"session": "mine", "i": i})
            s.append_audit({"session": "other", "i": i})
    conn = sqlite3.connect(str(store_path))
    try:
        with conn:
            if damage == "head":
                conn.execute("UPDATE audit_session_heads SET records = 2 WHERE session = 'mine'")
            else:  # the record's session column (and so its index entry) says another session
                (trigger,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'audit_no_update'").fetchone()
                conn.execute("DROP TRIGGER audit_no_update")
                conn.execute("UPDATE audit SET session = 'other' WHERE seq = 3")
                conn.execute(trigger)
    finally:
        conn.close()
    with SourceStore(store_path) as s:
        with pytest.raises(StoreCorruptionError, match="session 'mine'"):
            list(s.iter_audit_of_session("mine"))


def test_a_version_1_store_is_upgraded_in_place_with_its_records_indexed(store_path):
    records = [json.dumps({"session": s, "i": i}, ensure_ascii=False, separators=(",", ":")).encode()
               for i in range(1500) for s in ("mine", "théirs")]
    records += [b'{"i":-1}', b'{"session":["mine"]}']
    version_1_store(store_path, records)
    with SourceStore(store_path) as s:
        assert raw_query(store_path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
        assert s.get("tool:a") == "retries=3\n"
        assert [r["i"] for _, r in s.iter_audit_of_session("mine")] == list(range(1500))
        assert [r["i"] for _, r in s.iter_audit_of_session("théirs")] == list(range(1500))
        s.append_audit({"session": "mine", "i": 1500})
        assert [r["i"] for _, r in s.iter_audit_of_session("mine")][-2:] == [1499, 1500]
        assert s.verify() == []
    # the log is immutable again after the one update the upgrade made
    with pytest.raises(sqlite3.DatabaseError, match="immutable"):
        raw_query(store_path, "UPDATE audit SET session = 'x' WHERE seq = 1")
    assert raw_query(store_path, "SELECT count(*) FROM audit WHERE session IS NULL") == [(0,)]
    with SourceStore(store_path) as s:  # a second open finds version 2 and changes nothing
        assert len(list(s.iter_audit_of_session("mine"))) == 1501


def test_a_failed_upgrade_leaves_the_version_1_store_as_it_was(store_path, monkeypatch):
    from provgate import store as store_module

    version_1_store(store_path, [b'{"session":"mine"}'])
    before = store_path.read_bytes()

    def broken(conn):
        conn.execute(store_module._UPGRADE_TO_V2[0])
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(store_module, "_upgrade_to_v2", broken)
    with pytest.raises(Exception, match="disk I/O"):
        SourceStore(store_path)
    assert raw_query(store_path, "PRAGMA user_version") == [(1,)]
    assert "session" not in [row[1] for row in raw_query(store_path, "PRAGMA table_info(audit)")]
    monkeypatch.undo()
    with SourceStore(store_path) as s:
        assert [r for _, r in s.iter_audit_of_session("mine")] == [{"session": "mine"}]
    assert before  # the file was a store before, and is one after


def test_a_version_1_writer_cannot_append_unindexed_records_after_an_upgrade(store_path):
    # a process that opened the file as version 1 keeps its connection across another
    # process's upgrade: its next append (version 1's statement) must fail, not go unindexed
    version_1_store(store_path, [])
    old = sqlite3.connect(str(store_path), isolation_level=None)
    try:
        old.execute("SELECT count(*) FROM audit").fetchone()
        with SourceStore(store_path) as s:
            s.append_audit({"session": "mine", "i": 0})
        with pytest.raises(sqlite3.IntegrityError, match="upgraded to schema 2"):
            old.execute("INSERT INTO audit (record, digest) VALUES (?, 'blake3:00')", (b'{"session":"mine"}',))
    finally:
        old.close()
    with SourceStore(store_path) as s:
        assert [r["i"] for _, r in s.iter_audit_of_session("mine")] == [0]


def _with_a_read_budget(store: SourceStore, reads: int) -> None:
    """Fail the test, instead of hanging it, once ``store`` has read ``reads`` times: a paging
    loop that never advances reads forever (red team 50, f08)."""
    read = store._read
    left = [reads]

    def counted(fn):
        left[0] -= 1
        assert left[0] >= 0, f"more than {reads} reads: a paging loop does not advance"
        return read(fn)

    store._read = counted


def _damage_the_cell_count_of_a_page(store_path, page_query: str) -> None:
    """Red team 50's damage: one byte of the header of the page ``page_query`` names (the low
    byte of its count of cells, made 254), so SQLite reads cells that are not there."""
    conn = sqlite3.connect(str(store_path))
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (page_size,) = conn.execute("PRAGMA page_size").fetchone()
        (page,) = conn.execute(page_query).fetchone()
    finally:
        conn.close()
    data = bytearray(store_path.read_bytes())
    data[(page - 1) * page_size + 4] = 0xFE
    store_path.write_bytes(bytes(data))


def test_verify_reports_an_audit_page_that_does_not_read_in_order_instead_of_spinning(store_path):
    # red team 50, f08: verify() paged 'WHERE rowid > ? LIMIT 100' and took the last row's
    # rowid as the next bound; the damaged page gave rows that did not advance it, forever
    with SourceStore(store_path) as s:
        for i in range(40):
            s.append_audit({"session": "s", "n": i, "note": "x" * 300})
    _damage_the_cell_count_of_a_page(  # (the audit table's last leaf page)
        store_path, "SELECT max(pageno) FROM dbstat WHERE name = 'audit' AND pagetype = 'leaf'")
    with SourceStore(store_path) as s:
        with pytest.raises(StoreCorruptionError):
            list(s.iter_audit())
        _with_a_read_budget(s, 200)
        problems = s.verify()
    assert any(p.startswith("integrity_check") for p in problems), problems
    assert any("the audit table: reading in order" in p for p in problems), problems


def test_verify_reports_a_damaged_session_heads_page_instead_of_crashing(store_path):
    # red team 50, f04: a damaged page of audit_session_heads gave a session of None, and
    # verify() raised TypeError sorting it with the others instead of returning the problems
    with SourceStore(store_path) as s:
        s.put("tool:a", "retries=3\n")
        for i in range(3):
            s.append_audit({"session": "sess", "n": i + 1})
    # (the heads table's one page: its cell count 1 -> 254)
    _damage_the_cell_count_of_a_page(store_path, "SELECT rootpage FROM sqlite_master WHERE name = 'audit_session_heads'")
    with SourceStore(store_path) as s:
        with pytest.raises(StoreCorruptionError):
            list(s.iter_audit_of_session("sess"))
        problems = s.verify()
    assert any(p.startswith("integrity_check") for p in problems), problems
    assert any(p.startswith("audit session None") for p in problems), problems


@pytest.mark.parametrize("read", ["iter", "iter_audit", "iter_audit_of_session"])
def test_a_page_that_does_not_advance_raises_instead_of_spinning(mem, read):
    # red team 50, f08: every paging loop requires its keys to strictly increase; a page whose
    # keys do not (read here from a damaged b-tree, given as such) raises, naming the key
    from provgate.store import _PAGE

    blob = b'{"session":"s"}'
    digest = compute_digest(blob)
    row = (lambda k: (k, f"tool:{k}")) if read == "iter" else (lambda k: (k, blob, digest))
    mem.append_audit({"session": "s"})  # the session's head, for iter_audit_of_session
    page = [row(k) for k in range(1, _PAGE + 1)]
    real = mem._read

    def read_a_page_again_and_again(fn):
        got = real(fn)
        return page if isinstance(got, list) else got  # each page read (a session's head is a tuple)

    mem._read = read_a_page_again_and_again
    _with_a_read_budget(mem, 50)
    run = {"iter": lambda: list(mem), "iter_audit": lambda: list(mem.iter_audit()),
           "iter_audit_of_session": lambda: list(mem.iter_audit_of_session("s"))}[read]
    with pytest.raises(StoreCorruptionError, match=f"reading in order, key 1 came after {_PAGE}"):
        run()


def test_damaged_audit_record_is_detected(store_path):
    with SourceStore(store_path) as s:
        s.append_audit({"note": "MARKER-AUDIT-retries=3"})
    flip_byte_after(store_path, b"MARKER-AUDIT-", skip=20)
    with SourceStore(store_path) as s:
        with pytest.raises(StoreCorruptionError, match="audit record 1"):
            list(s.iter_audit())


# ---------------------------------------------------------------------- fact cache


def test_fact_cache_round_trip_and_replace(store):
    d = store.put("tool:call_8841", CONFIG)
    assert store.get_cached_facts(d, "extract-1") is None
    store.put_cached_facts(d, "extract-1", b"\x00\x01facts")
    assert store.get_cached_facts(d, "extract-1") == b"\x00\x01facts"
    assert store.get_cached_facts(d, "extract-2") is None
    store.put_cached_facts(d, "extract-1", bytearray(b"fixed"))
    assert store.get_cached_facts(d, "extract-1") == b"fixed"
    sha = compute_digest(b"x", "sha256")
    store.put_cached_facts(sha, "v", b"")
    assert store.get_cached_facts(sha, "v") == b""


def test_damaged_fact_cache_entry_is_detected(store_path):
    with SourceStore(store_path) as s:
        s.put_cached_facts(compute_digest(b"x"), "v1", b"MARKER-FACTS-0123456789")
    flip_byte_after(store_path, b"MARKER-FACTS-", skip=15)
    with SourceStore(store_path) as s:
        with pytest.raises(StoreCorruptionError):
            s.get_cached_facts(compute_digest(b"x"), "v1")


# ---------------------------------------------------------------------- life cycle, threads


def test_closed_store_refuses_work(store_path):
    s = SourceStore(store_path)
    s.put("tool:a", "A")
    s.close()
    s.close()  # idempotent
    assert s.closed
    for op in (lambda: s.put("tool:b", "B"), lambda: s.get("tool:a"), lambda: len(s), lambda: "tool:a" in s):
        with pytest.raises(StoreClosedError):
            op()


# red team 81, F12: an empty batch answered a closed store as an open one
@pytest.mark.parametrize("op", [
    lambda s: s.put_many({}),
    lambda s: s.put_cached_facts_many([]),
    lambda s: s.get_many([]),
    lambda s: s.get_bytes_many([]),
    lambda s: s.info_many([]),
    lambda s: s.digests_many([]),
    lambda s: s.unmatched_contents({}),
    lambda s: s.get_cached_facts_many([], "v1"),
    lambda s: s.handles_cited_as_many([]),
])
def test_closed_store_refuses_an_empty_batch(op):
    s = SourceStore(":memory:")
    s.close()
    with pytest.raises(StoreClosedError):
        op(s)


def test_threads_share_a_memory_store(mem):
    errors = []

    def run(t):
        try:
            for i in range(100):
                mem.put(f"tool:t{t}_{i}", f"{t}/{i}")
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(t,)) for t in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    assert len(mem) == 600
    assert all(mem.get(f"tool:t{t}_{i}") == f"{t}/{i}" for t in range(6) for i in range(100))


def test_each_thread_gets_its_own_connection_and_dead_threads_are_reaped(fstore):
    seen = []

    def run():
        fstore.put(f"tool:{threading.get_ident()}_{len(seen)}", "x")
        seen.append(fstore._connection())

    for _ in range(5):
        th = threading.Thread(target=run)
        th.start()
        th.join()
    assert len({id(c) for c in seen}) == 5
    # A new thread's connection reaps those of the five finished threads.
    th = threading.Thread(target=lambda: fstore.put("tool:last", "x"))
    th.start()
    th.join()
    assert all(not c.thread.is_alive() for c in seen)
    assert len(fstore._conns) <= 2  # the main thread's and at most the last one's


def test_busy_beyond_the_budget_is_a_store_busy_error(store_path):
    with SourceStore(store_path, busy_timeout=0.3) as s:
        s.put("tool:a", "A")
        blocker = sqlite3.connect(store_path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(StoreBusyError, match="locked"):
                s.put("tool:b", "B")
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        assert s.put("tool:b", "B") == compute_digest(b"B")
        assert list(s) == ["tool:a", "tool:b"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() is POSIX only")
def test_memory_store_refuses_use_after_fork(mem):
    mem.put("tool:a", "A")
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        try:
            mem.get("tool:a")
            os.write(w, b"used")
        except StoreClosedError:
            os.write(w, b"refused")
        except BaseException:  # noqa: BLE001
            os.write(w, b"other")
        os._exit(0)
    os.close(w)
    _, status = os.waitpid(pid, 0)
    assert os.read(r, 100) == b"refused"
    assert mem.get("tool:a") == "A"  # the parent's store is untouched


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() is POSIX only")
def test_child_reconnects_after_fork_and_its_writes_survive_the_parent_closing(store_path):
    """The hazard this guards against: a child that keeps the inherited connection open gets
    SQLite's in-process lock bookkeeping, holds no real lock, and the parent's close() then
    checkpoints and deletes the WAL under it, losing the child's later acknowledged write."""
    parent = SourceStore(store_path)
    parent.put("tool:parent", "P")
    to_parent_r, to_parent_w = os.pipe()
    to_child_r, to_child_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: uses the very same store object
        try:
            parent.put("tool:child_1", "C1")
            os.write(to_parent_w, b"1")
            os.read(to_child_r, 1)  # wait until the parent has closed its store
            parent.put("tool:child_2", "C2")
            parent.close()
            os.write(to_parent_w, b"2")
        except BaseException:  # noqa: BLE001
            os.write(to_parent_w, b"E")
        os._exit(0)
    assert os.read(to_parent_r, 1) == b"1"
    parent.close()
    os.write(to_child_w, b"go")
    assert os.read(to_parent_r, 1) == b"2"
    os.waitpid(pid, 0)
    with SourceStore(store_path) as s:
        assert s.get("tool:child_1") == "C1"
        assert s.get("tool:child_2") == "C2"
        assert s.verify() == []


# ---------------------------------------------------------------------- bad input


LONG_OK = "h" * MAX_HANDLE_BYTES


def _bad_inputs(limit: int):
    d = compute_digest(b"x")
    return [
        # handles
        ("handle int", lambda s: s.put(42, "x"), InvalidHandleError),
        ("handle bytes", lambda s: s.put(b"tool:a", "x"), InvalidHandleError),
        ("handle None", lambda s: s.get(None), InvalidHandleError),
        ("handle empty", lambda s: s.put("", "x"), InvalidHandleError),
        ("handle NUL", lambda s: s.put("tool:a\x00b", "x"), InvalidHandleError),
        ("handle surrogate", lambda s: s.put("tool:\ud800", "x"), InvalidHandleError),
        ("handle too long", lambda s: s.put(LONG_OK + "h", "x"), InvalidHandleError),
        ("handle too many bytes", lambda s: s.put("€" * 342, "x"), InvalidHandleError),  # 1026 bytes
        ("handle NUL on read", lambda s: s.resolves("a\x00"), InvalidHandleError),
        ("handle wrong type on info", lambda s: s.info(["tool:a"]), InvalidHandleError),
        # content
        ("content None", lambda s: s.put("tool:n", None), InvalidContentError),
        ("content int", lambda s: s.put("tool:n", 3), InvalidContentError),
        ("content list", lambda s: s.put("tool:n", ["a"]), InvalidContentError),
        ("lone surrogate", lambda s: s.put("tool:n", "ok \udc80 bad"), InvalidContentError),
        ("invalid utf-8", lambda s: s.put("tool:n", b"ok \xff bad"), InvalidContentError),
        ("truncated utf-8", lambda s: s.put("tool:n", "€".encode()[:2]), InvalidContentError),
        ("overlong utf-8", lambda s: s.put("tool:n", b"\xc0\xaf"), InvalidContentError),
        ("encoded surrogate", lambda s: s.put("tool:n", b"\xed\xa0\x80"), InvalidContentError),
        ("huge str", lambda s: s.put("tool:n", "x" * (limit + 1)), LimitExceededError),
        ("huge bytes", lambda s: s.put("tool:n", b"x" * (limit + 1)), LimitExceededError),
        ("huge once encoded", lambda s: s.put("tool:n", "€" * (limit // 3 + 1)), LimitExceededError),
        # metadata
        ("kind int", lambda s: s.put("tool:n", "x", kind=1), InvalidArgumentError),
        ("kind empty", lambda s: s.put("tool:n", "x", kind=""), InvalidArgumentError),
        ("kind NUL", lambda s: s.put("tool:n", "x", kind="a\x00"), InvalidArgumentError),
        ("kind long", lambda s: s.put("tool:n", "x", kind="k" * 129), InvalidArgumentError),
        ("ts str", lambda s: s.put("tool:n", "x", ts="1700000000"), InvalidArgumentError),
        ("ts bool", lambda s: s.put("tool:n", "x", ts=True), InvalidArgumentError),
        ("ts nan", lambda s: s.put("tool:n", "x", ts=math.nan), InvalidArgumentError),
        ("ts inf", lambda s: s.put("tool:n", "x", ts=math.inf), InvalidArgumentError),
        ("ts huge int", lambda s: s.put("tool:n", "x", ts=10**400), InvalidArgumentError),
        # conflicts and unknowns
        ("conflict", lambda s: s.put("tool:a", "not A"), HandleConflictError),
        ("unknown get", lambda s: s.get("tool:zzz"), UnknownHandleError),
        ("unknown many", lambda s: s.get_many(["tool:a", "tool:zzz"]), UnknownHandleError),
        # audit
        ("audit list", lambda s: s.append_audit(["x"]), InvalidArgumentError),
        ("audit int key", lambda s: s.append_audit({1: "x"}), InvalidArgumentError),
        ("audit nan", lambda s: s.append_audit({"x": math.nan}), InvalidArgumentError),
        ("audit huge int", lambda s: s.append_audit({"x": [-(10**5000)]}), InvalidArgumentError),  # red team 26, w04
        ("audit set", lambda s: s.append_audit({"x": {1}}), InvalidArgumentError),
        ("audit bytes", lambda s: s.append_audit({"x": b"1"}), InvalidArgumentError),
        ("audit surrogate", lambda s: s.append_audit({"x": "\ud800"}), InvalidArgumentError),
        ("audit deep", lambda s: s.append_audit(_deep(200)), InvalidArgumentError),
        ("audit huge", lambda s: s.append_audit({"x": "y" * limit}), LimitExceededError),
        ("audit since", lambda s: list(s.iter_audit(since=-1)), InvalidArgumentError),
        ("audit since type", lambda s: list(s.iter_audit(since="0")), InvalidArgumentError),
        # red team 50, f06: beyond SQLite's integers, a raw OverflowError
        ("audit since huge", lambda s: list(s.iter_audit(since=2**63)), InvalidArgumentError),
        ("audit session empty", lambda s: list(s.iter_audit_of_session("")), InvalidArgumentError),
        ("audit session type", lambda s: list(s.iter_audit_of_session(None)), InvalidArgumentError),
        ("audit session surrogate", lambda s: list(s.iter_audit_of_session("a\ud800")), InvalidArgumentError),
        # fact cache and digests
        ("facts bad digest", lambda s: s.put_cached_facts("blake3:xyz", "v", b""), InvalidDigestError),
        ("facts upper digest", lambda s: s.get_cached_facts(d.upper(), "v"), InvalidDigestError),
        ("facts digest type", lambda s: s.get_cached_facts(None, "v"), InvalidDigestError),
        ("facts version type", lambda s: s.put_cached_facts(d, 1, b""), InvalidArgumentError),
        ("facts version empty", lambda s: s.get_cached_facts(d, ""), InvalidArgumentError),
        ("facts blob str", lambda s: s.put_cached_facts(d, "v", "facts"), InvalidArgumentError),
        ("facts blob huge", lambda s: s.put_cached_facts(d, "v", b"x" * (limit + 1)), LimitExceededError),
        # collections
        ("many not iterable", lambda s: s.get_many(7), InvalidArgumentError),
        ("unresolved bad handle", lambda s: s.unresolved(["tool:a", 3]), InvalidHandleError),
    ]


def _deep(n):
    obj: dict = {}
    for _ in range(n):
        obj = {"x": obj}
    return obj


LIMIT = 4096
BAD_INPUTS = _bad_inputs(LIMIT)


@pytest.mark.parametrize(("what", "op", "exc"), BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_input_raises_a_specific_error_and_changes_nothing(tmp_path, what, op, exc):
    path = tmp_path / "bad.sqlite3"
    with SourceStore(path, max_content_bytes=LIMIT) as s:
        s.put("tool:a", "A", kind="tool_output", ts=1.0)
        s.put("doc:b", "retries=3\x00")
        s.append_audit({"cycle": 1})
        before = snapshot(s)
        audit_before = list(s.iter_audit())
        with pytest.raises(exc) as info:
            op(s)
        assert str(info.value)  # a message, not a bare exception
        assert snapshot(s) == before
        assert list(s.iter_audit()) == audit_before
        assert s.verify() == []
    assert integrity(path) == ["ok"]


def test_error_messages_locate_the_problem(mem):
    with pytest.raises(InvalidContentError, match=r"byte 0xff at offset 3"):
        mem.put("tool:n", b"abc\xffdef")
    with pytest.raises(InvalidContentError, match=r"U\+DC80 at index 3"):
        mem.put("tool:n", "abc\udc80")
    with pytest.raises(InvalidHandleError, match="NUL character at index 4"):
        mem.put("tool\x00x", "x")


def test_content_exactly_at_the_limit_is_accepted(tmp_path):
    with SourceStore(":memory:", max_content_bytes=30) as s:
        s.put("tool:a", "x" * 30)
        s.put("tool:b", "€" * 10)  # 30 bytes
        with pytest.raises(LimitExceededError):
            s.put("tool:c", "€" * 10 + "x")
        assert len(s) == 2


# Red team 81, F06: content, an audit record or a fact blob within max_content_bytes but near
# SQLite's limit on a row (10^9 bytes by default) raised a raw sqlite3.DataError ("string or blob
# too big"): its row adds digests, a size, a session. The limit is lowered to 100 kB here, so
# rows near it cost kilobytes, not a gigabyte.
ROW_LIMIT = 100_000
NEAR_THE_ROW_LIMIT = [
    ("put", lambda s: s.put("tool:big", b"a" * (ROW_LIMIT - 10)), "content"),
    ("put_many", lambda s: s.put_many({"tool:n1": "one\n", "tool:big": "a" * (ROW_LIMIT - 10)}),
     "content of 'tool:big': content"),
    # the row holds the record's session a second time
    ("append_audit", lambda s: s.append_audit({"session": "s" * (ROW_LIMIT // 2), "x": "y" * (ROW_LIMIT // 3)}),
     "audit record"),
    ("put_cached_facts", lambda s: s.put_cached_facts(compute_digest(b"x"), "v", b"b" * (ROW_LIMIT - 10)), "fact blob"),
]


@pytest.mark.parametrize(("name", "write", "what"), NEAR_THE_ROW_LIMIT, ids=[w[0] for w in NEAR_THE_ROW_LIMIT])
def test_a_row_over_sqlites_limit_is_limit_exceeded_before_anything_is_written(store_path, monkeypatch, name, write,
                                                                              what):
    with SourceStore(store_path) as s:
        s.put("tool:a", "A")
    before = row_counts(store_path)
    length_limited_connections(monkeypatch, ROW_LIMIT)
    with SourceStore(store_path) as s:
        assert s.max_content_bytes > ROW_LIMIT  # within the store's own limit
        with pytest.raises(LimitExceededError) as caught:
            write(s)
        message = str(caught.value)
        assert message.startswith(what) and f"SQLite's limit of {ROW_LIMIT} bytes a row" in message, message
        assert "SQLITE_LIMIT_LENGTH" in message and "bytes of it fit" in message
    monkeypatch.undo()
    assert row_counts(store_path) == before and integrity(store_path) == ["ok"]


def test_the_largest_content_that_fits_a_row_is_stored_and_one_byte_more_is_not(monkeypatch):
    # the bound is a row's most bytes, so all it accepts SQLite stores: no DataError below it
    length_limited_connections(monkeypatch, ROW_LIMIT)
    with SourceStore(":memory:") as s:
        with pytest.raises(LimitExceededError) as caught:
            s.put("tool:big", "a" * ROW_LIMIT)
        fits = int(re.search(r"at most (\d+) bytes of it fit", str(caught.value)).group(1))
        assert ROW_LIMIT - 200 < fits < ROW_LIMIT
        assert s.put("tool:fits", "a" * fits) and s.get("tool:fits") == "a" * fits
        with pytest.raises(LimitExceededError):
            s.put("tool:over", "a" * (fits + 1))
        s.put_cached_facts(compute_digest(b"x"), "v" * 128, b"b" * (fits - 200))
        s.append_audit({"session": "s" * 1000, "x": "y" * (fits - 3000)})
        assert len(s) == 1 and s.verify() == []


def test_default_limit_is_64_mib():
    assert DEFAULT_MAX_CONTENT_BYTES == 64 * 1024 * 1024
    with SourceStore(":memory:") as s:
        assert s.max_content_bytes == DEFAULT_MAX_CONTENT_BYTES


@pytest.mark.parametrize(
    "kwargs",
    [
        {"path": b"/tmp/x.sqlite3"},
        {"path": 3},
        {"path": ""},
        {"path": ":memory:", "max_content_bytes": 0},
        {"path": ":memory:", "max_content_bytes": True},
        {"path": ":memory:", "max_content_bytes": 2 * 10**9},
        {"path": ":memory:", "busy_timeout": 0},
        {"path": ":memory:", "busy_timeout": math.inf},
        {"path": ":memory:", "busy_timeout": "5"},
        {"path": ":memory:", "busy_timeout": 10**400},  # red team 81, F11: a raw OverflowError
    ],
)
def test_bad_constructor_arguments(kwargs):
    with pytest.raises(InvalidArgumentError):
        SourceStore(**kwargs)


def test_unmatched_contents_compares_stored_bytes(store_path):
    with SourceStore(store_path) as s:
        a = s.put("tool:a", "MARKER-BODY-aaaa retries=3\n")
        b = s.put("tool:b", "intact\n")
        absent = compute_digest(b"never stored")
        assert s.unmatched_contents({a: b"MARKER-BODY-aaaa retries=3\n", b: b"intact\n"}) == []
        assert s.unmatched_contents({b: b"other\n", absent: b"never stored", a: b"MARKER-BODY-aaaa retries=3\n"}) == [b, absent]
        assert s.unmatched_contents({}) == []
        with pytest.raises(InvalidArgumentError, match="mapping"):
            s.unmatched_contents([a])
        with pytest.raises(InvalidArgumentError, match="bytes"):
            s.unmatched_contents({a: "text"})
        with pytest.raises(InvalidDigestError):
            s.unmatched_contents({"blake3:zz": b""})
    flip_byte_after(store_path, b"MARKER-BODY-", skip=13)
    with SourceStore(store_path) as s:
        assert s.unmatched_contents({a: b"MARKER-BODY-aaaa retries=3\n", b: b"intact\n"}) == [a]


@pytest.mark.parametrize("sql", [
    # (the row keeps its checksum column, which the trigger of schema 3 requires of every new row)
    "INSERT OR REPLACE INTO sources (seq, handle, digest, kind, ts, row_digest) SELECT seq, handle, ?, NULL, NULL, "
    "row_digest FROM sources WHERE handle = 'tool:a'",
    "REPLACE INTO audit (seq, record, digest, session) SELECT seq, record, ?, session FROM audit WHERE seq = 1",
    "INSERT OR REPLACE INTO content (digest, size, body) SELECT digest, 1, ? FROM content LIMIT 1",
])
def test_replace_cannot_rewrite_history_through_the_store_connection(store, sql):
    # red team 3, H09: REPLACE deletes the conflicting row without firing DELETE triggers unless
    # recursive_triggers is on; the store's connections turn it on
    store.put("tool:a", "retries=3\n")
    store.put("tool:b", "retries=5\n")
    store.append_audit({"accepted": False})
    before = (store.get("tool:a"), list(store.iter_audit()))
    other = store.digest("tool:b")
    with pytest.raises(Exception, match="immutable"):
        store._write(lambda conn: conn.execute(sql, (other,)))
    assert (store.get("tool:a"), list(store.iter_audit())) == before
    assert store.verify() == []


@settings(max_examples=300, deadline=None)
@given(digest=st.one_of(
    st.text(max_size=80),
    st.builds(lambda algo, hexpart: f"{algo}:{hexpart}", st.sampled_from(["blake3", "sha256", "BLAKE3", "md5", ""]),
              st.text(alphabet="0123456789abcdefABCDEF \n", min_size=62, max_size=66)),
))
def test_a_stored_digest_passes_the_quick_check_only_if_parse_digest_accepts_it(digest):
    # the canonical-form match that spares parse_digest per handle accepts exactly what
    # parse_digest does: everything else still raises StoreCorruptionError, naming the fault
    from provgate.digests import parse_digest
    from provgate.errors import InvalidDigestError
    from provgate.store import _check_stored_digest

    try:
        parse_digest(digest)
        valid = True
    except InvalidDigestError:
        valid = False
    if valid:
        _check_stored_digest("source 'x'", digest)
    else:
        with pytest.raises(StoreCorruptionError, match="recorded digest is damaged"):
            _check_stored_digest("source 'x'", digest)


# -- a read-only store (red team 26, w03) -------------------------------------------------------
#
# A store this process may not write raised a raw sqlite3.OperationalError ("attempt to write a
# readonly database") from every write, and a store in a read-only directory from SourceStore()
# itself. See store_helpers for the two ways these tests make a store read-only, as root too.

_FACTS_DIGEST = compute_digest(b"retries=3\n")
READ_ONLY_WRITES = [
    ("put", lambda s: s.put("tool:new", "new\n")),
    ("put of stored content under a new handle", lambda s: s.put("tool:twin", CONFIG)),
    ("put_many", lambda s: s.put_many({"tool:n1": "one\n", "tool:n2": "two\n"})),
    ("append_audit", lambda s: s.append_audit({"session": "s", "n": 2})),
    ("put_cached_facts", lambda s: s.put_cached_facts(_FACTS_DIGEST, "v9", b"blob")),
    ("put_cached_facts_many", lambda s: s.put_cached_facts_many([(_FACTS_DIGEST, "v8", b"a"), (_FACTS_DIGEST, "v9", b"b")])),
    ("a gate's check", lambda s: _gate_check(s)),
]


def _gate_check(store: SourceStore):
    from provgate.gate import Gate

    gate = Gate(store, session="ro")
    block = {"id": "t", "role": "tool", "text": CONFIG, "handles": ["tool:conf"]}
    try:
        return gate.check([block], [block], operator="reorder")
    finally:
        assert gate.history == [] and gate.pins == (frozenset(), frozenset())  # a failed check leaves no cycle


def _a_store_to_make_read_only(path) -> None:
    with SourceStore(path) as s:
        s.put("tool:conf", CONFIG)
        s.append_audit({"session": "s", "n": 1})
        s.put_cached_facts(_FACTS_DIGEST, "v1", b"facts")


def _assert_read_only_error(exc: BaseException, path, *, directory: bool = False) -> None:
    assert isinstance(exc, StoreReadOnlyError) and isinstance(exc, InvalidArgumentError), repr(exc)
    assert isinstance(exc, ProvgateError) and exc.argument == "path" and exc.path == str(path)
    assert exc.directory is directory and str(path) in str(exc) and "read-only" in str(exc)
    assert "write access" in str(exc)
    if directory:
        assert os.path.dirname(str(path)) in str(exc)


@pytest.mark.parametrize(("name", "write"), READ_ONLY_WRITES, ids=[w[0] for w in READ_ONLY_WRITES])
def test_every_write_to_a_read_only_store_raises_store_read_only_error_and_writes_nothing(
        store_path, monkeypatch, name, write):
    _a_store_to_make_read_only(store_path)
    before = row_counts(store_path)
    read_only_connections(monkeypatch)  # SQLite refuses the writes, as for a chmod 0444 file
    with SourceStore(store_path) as s:
        with pytest.raises(StoreReadOnlyError) as caught:
            write(s)
        _assert_read_only_error(caught.value, store_path)
        assert "reads work" in str(caught.value)
        # reads still work, on the same connection, after the refused write
        assert s.get("tool:conf") == CONFIG and s.get_cached_facts(_FACTS_DIGEST, "v1") == b"facts"
        assert [r for _, r in s.iter_audit()] == [{"session": "s", "n": 1}] and s.verify() == []
    monkeypatch.undo()
    assert row_counts(store_path) == before and integrity(store_path) == ["ok"]


def test_a_read_only_store_acknowledges_a_put_it_already_holds(store_path, monkeypatch):
    # nothing to write: the content is durable under that handle already
    _a_store_to_make_read_only(store_path)
    read_only_connections(monkeypatch)
    with SourceStore(store_path) as s:
        assert s.put("tool:conf", CONFIG) == compute_digest(CONFIG.encode())
        assert s.put_many([("tool:conf", CONFIG)]) == {"tool:conf": compute_digest(CONFIG.encode())}


def test_bad_input_to_a_read_only_store_is_still_named_as_bad_input(store_path, monkeypatch):
    _a_store_to_make_read_only(store_path)
    read_only_connections(monkeypatch)
    with SourceStore(store_path) as s:
        with pytest.raises(InvalidHandleError):
            s.put("", "x")
        with pytest.raises(HandleConflictError):
            s.put("tool:conf", "other\n")


@pytest.mark.parametrize("made", ["empty file", "version 1"])
def test_a_read_only_store_that_opening_would_write_is_refused_at_open(store_path, monkeypatch, made):
    # a new or empty file, or one of an older schema, is made a WAL store of the current schema
    # on its first open: read-only, that fails at once, naming the file, and leaves it as it was
    if made == "empty file":
        store_path.write_bytes(b"")
    else:
        version_1_store(store_path, [b'{"session":"S"}'])
    before = store_path.read_bytes()
    read_only_connections(monkeypatch)
    with pytest.raises(StoreReadOnlyError) as caught:
        SourceStore(store_path)
    _assert_read_only_error(caught.value, store_path)
    assert "first time" in str(caught.value)
    monkeypatch.undo()
    assert store_path.read_bytes() == before


@pytest.mark.parametrize(("code", "name"), [(1544, "SQLITE_READONLY_DIRECTORY"), (1288, "SQLITE_READONLY_CANTINIT")])
def test_a_store_whose_directory_is_read_only_is_refused_at_open_naming_the_directory(store_path, monkeypatch,
                                                                                      code, name):
    # what SQLite raises for a WAL store whose directory this process cannot write (it must
    # create the -wal and -shm files to read at all), injected as SQLite raises it, so this
    # variant runs as root too; test_a_read_only_store_under_real_file_permissions chmods
    _a_store_to_make_read_only(store_path)
    read_only_directory_connections(monkeypatch, code, name)
    with pytest.raises(StoreReadOnlyError) as caught:
        SourceStore(store_path)
    _assert_read_only_error(caught.value, store_path, directory=True)
    assert "-wal and -shm" in str(caught.value) and "even to read it" in str(caught.value)


def test_a_read_only_store_whose_wal_must_be_recovered_says_so(store_path, monkeypatch):
    # SQLITE_READONLY_RECOVERY: a writer stopped without closing the store, and a read-only
    # connection cannot recover its WAL (injected as SQLite raises it)
    _a_store_to_make_read_only(store_path)
    read_only_directory_connections(monkeypatch, 264, "SQLITE_READONLY_RECOVERY")
    with pytest.raises(StoreReadOnlyError) as caught:
        SourceStore(store_path)
    _assert_read_only_error(caught.value, store_path)
    assert "recovered" in str(caught.value)


# -- opened read-only (read_only=True) -------------------------------------------------------------
#
# What provgate verify and provgate report open: nothing is created, upgraded or written, so a
# store of an older schema stays as it was (red team 82, F04: they upgraded it in place).


def _files_beside(path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in Path(path).parent.iterdir()}


def test_a_version_1_store_opened_read_only_is_read_as_it_is_and_left_byte_identical(store_path):
    records = [json.dumps({"session": s, "i": i}, separators=(",", ":")).encode() for i in range(3) for s in "ST"]
    version_1_store(store_path, [*records, b'{"i":-1}'])
    before = _files_beside(store_path)
    with SourceStore(store_path, read_only=True) as s:
        assert s.read_only and "read-only" in repr(s)
        assert s.get("tool:a") == "retries=3\n" and s.handles_named("a") == ["tool:a"]
        assert [seq for seq, _ in s.iter_audit()] == list(range(1, 8))
        # no index by session before schema 2: the log is read whole, as the upgrade reads it
        assert [r["i"] for _, r in s.iter_audit_of_session("S")] == [0, 1, 2]
        assert list(s.iter_audit_of_session("nobody")) == []
        assert s.verify() == []
        for name, write in READ_ONLY_WRITES[:-1]:
            with pytest.raises(StoreReadOnlyError, match="opened read-only") as caught:
                write(s)
            assert caught.value.path == str(store_path) and caught.value.argument == "path", name
    assert _files_beside(store_path) == before  # the file, byte for byte, and no -journal, -wal or -shm
    assert raw_query(store_path, "PRAGMA user_version") == [(1,)]
    with SourceStore(store_path) as s:  # a writing open still upgrades it
        assert raw_query(store_path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
        assert [r["i"] for _, r in s.iter_audit_of_session("S")] == [0, 1, 2]


@pytest.mark.parametrize(("name", "write"), READ_ONLY_WRITES, ids=[w[0] for w in READ_ONLY_WRITES])
def test_every_write_to_a_store_opened_read_only_raises_and_the_file_is_left_as_it_was(store_path, name, write):
    _a_store_to_make_read_only(store_path)
    before = store_path.read_bytes()  # (closed: the WAL was checkpointed into it)
    with SourceStore(store_path, read_only=True) as s:
        with pytest.raises(StoreReadOnlyError) as caught:
            write(s)
        assert caught.value.path == str(store_path) and not caught.value.directory
        assert "opened read-only" in str(caught.value) and "without read_only" in str(caught.value)
        assert s.get("tool:conf") == CONFIG and s.get_cached_facts(_FACTS_DIGEST, "v1") == b"facts"
        assert [r for _, r in s.iter_audit_of_session("s")] == [{"session": "s", "n": 1}] and s.verify() == []
    assert store_path.read_bytes() == before


def test_a_store_opened_read_only_refuses_even_a_put_it_already_holds(store_path):
    # (a read-only file acknowledges one: there SQLite refuses writes, not the store)
    _a_store_to_make_read_only(store_path)
    with SourceStore(store_path, read_only=True) as s, pytest.raises(StoreReadOnlyError, match="opened read-only"):
        s.put("tool:conf", CONFIG)


def test_a_closed_store_opened_read_only_says_it_is_closed(store_path):
    _a_store_to_make_read_only(store_path)
    s = SourceStore(store_path, read_only=True)
    s.close()
    with pytest.raises(StoreClosedError):
        s.put("tool:new", "new\n")


def test_opening_read_only_never_creates_a_store(tmp_path, monkeypatch):
    missing = tmp_path / "missing.sqlite3"
    with pytest.raises(FileNotFoundError, match="never created"):
        SourceStore(missing, read_only=True)
    # the default path: its directory is not made either
    monkeypatch.delenv("PROVGATE_STORE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    with pytest.raises(FileNotFoundError):
        SourceStore(read_only=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_opening_read_only_refuses_an_empty_or_foreign_file_untouched(store_path):
    store_path.write_bytes(b"")
    with pytest.raises(StoreSchemaError, match="empty database, not a provgate store"):
        SourceStore(store_path, read_only=True)
    assert store_path.read_bytes() == b""
    raw_query(store_path, "CREATE TABLE notes (x)")
    before = store_path.read_bytes()
    with pytest.raises(StoreSchemaError, match="another application"):
        SourceStore(store_path, read_only=True)
    assert store_path.read_bytes() == before


@pytest.mark.parametrize("edit", [
    "DROP TABLE fact_cache",
    "CREATE TABLE extra (x)",
    "ALTER TABLE audit ADD COLUMN session TEXT",  # version 2's column in a file that says 1
])
def test_a_version_1_schema_that_is_not_provgates_is_refused_read_only(store_path, edit):
    version_1_store(store_path, [b'{"session":"S"}'])
    raw_query(store_path, edit)
    before = store_path.read_bytes()
    with pytest.raises(StoreSchemaError, match="edited by hand"):
        SourceStore(store_path, read_only=True)
    assert store_path.read_bytes() == before


def test_a_version_1_store_with_a_journal_to_roll_back_opened_read_only_says_so(store_path, tmp_path):
    # a writer of a version 1 store (rollback journal) stopped mid-write: the journal must be
    # rolled back before the file is read, which a read-only open cannot do, and it must say so
    version_1_store(store_path, [b'{"session":"S"}'])
    writer = sqlite3.connect(str(store_path), isolation_level=None)
    try:
        writer.execute("PRAGMA cache_size = 1")  # (the write spills into the file)
        writer.execute("BEGIN IMMEDIATE")
        writer.executemany("INSERT INTO fact_cache VALUES (?, 'v', zeroblob(100000), 'x')", [("a",), ("b",)])
        crashed = tmp_path / "crashed"
        crashed.mkdir()
        for name in (store_path.name, store_path.name + "-journal"):  # the files as the crash left them
            (crashed / name).write_bytes((store_path.parent / name).read_bytes())
        writer.execute("ROLLBACK")
    finally:
        writer.close()
    crashed_store = crashed / store_path.name
    before = _files_beside(crashed_store)
    with pytest.raises(StoreReadOnlyError) as caught:
        SourceStore(crashed_store, read_only=True)
    assert caught.value.path == str(crashed_store)
    assert "journal, which must be rolled back first" in str(caught.value) and "write access" in str(caught.value)
    assert _files_beside(crashed_store) == before
    with SourceStore(crashed_store) as s:  # a writing open rolls it back
        assert [r for _, r in s.iter_audit()] == [{"session": "S"}] and s.verify() == []


def test_an_in_memory_store_opened_read_only_is_empty_and_refuses_writes():
    with SourceStore(":memory:", read_only=True) as s:
        assert s.read_only and len(s) == 0 and list(s.iter_audit()) == [] and s.verify() == []
        with pytest.raises(StoreReadOnlyError, match="opened read-only"):
            s.append_audit({"session": "s"})


@pytest.mark.parametrize("value", [1, "yes", None])
def test_read_only_must_be_a_bool(store_path, value):
    with pytest.raises(InvalidArgumentError) as caught:
        SourceStore(store_path, read_only=value)
    assert caught.value.argument == "read_only"
    assert not store_path.exists()


_READ_ONLY_PROBE = r'''
import json, os, sys
from provgate.errors import ProvgateError
from provgate.gate import Gate
from provgate.store import SourceStore

rofile, rodir_store, new_in_rodir, empty_ro = sys.argv[1:5]
out = {}


def error(fn):
    try:
        fn()
    except ProvgateError as e:
        return {"type": type(e).__name__, "message": str(e), "argument": getattr(e, "argument", None),
                "path": getattr(e, "path", None), "directory": getattr(e, "directory", None)}
    except Exception as e:  # noqa: BLE001 - what the test must never see
        return {"type": "raw " + type(e).__name__, "message": str(e)}
    return None


try:
    open(rofile, "ab").close()
    out["binds"] = False
except PermissionError:
    out["binds"] = True
s = SourceStore(rofile)
out["read"] = s.get("tool:conf")
out["verify"] = s.verify()
out["same put"] = s.put("tool:conf", s.get("tool:conf"))
out["writes"] = {
    "put": error(lambda: s.put("tool:new", "new\n")),
    "put_many": error(lambda: s.put_many({"tool:n1": "1", "tool:n2": "2"})),
    "append_audit": error(lambda: s.append_audit({"session": "s"})),
    "put_cached_facts": error(lambda: s.put_cached_facts(s.digest("tool:conf"), "v9", b"b")),
}
gate = Gate(s, session="ro")
block = {"id": "t", "role": "tool", "text": out["read"], "handles": ["tool:conf"]}
out["writes"]["gate check"] = error(lambda: gate.check([block], [block], operator="reorder"))
out["history"] = len(gate.history)
out["counts"] = [len(s), len(list(s.iter_audit()))]
s.close()
out["rodir"] = error(lambda: SourceStore(rodir_store).close())
out["new in rodir"] = error(lambda: SourceStore(new_in_rodir).close())
out["new created"] = os.path.exists(new_in_rodir)
out["empty"] = error(lambda: SourceStore(empty_ro).close())
print(json.dumps(out))
'''


def test_a_read_only_store_under_real_file_permissions(tmp_path):
    # the real thing: a 0444 store file, and a store in a 0555 directory, in a process that
    # permissions bind (as root: under capsh, the DAC capabilities dropped)
    if permissions_bind_argv() is None:
        pytest.skip(PERMISSIONS_DO_NOT_BIND)
    rofile, rodir, empty = tmp_path / "ro.sqlite3", tmp_path / "rodir", tmp_path / "empty.sqlite3"
    _a_store_to_make_read_only(rofile)
    rodir.mkdir()
    _a_store_to_make_read_only(rodir / "s.sqlite3")
    empty.write_bytes(b"")
    probe = tmp_path / "probe.py"
    probe.write_text(_READ_ONLY_PROBE, encoding="utf-8")
    before = row_counts(rofile), row_counts(rodir / "s.sqlite3")
    with modes((rofile, 0o444), (empty, 0o444), (rodir, 0o555)):
        r = run_where_permissions_bind([sys.executable, str(probe), str(rofile), str(rodir / "s.sqlite3"),
                                        str(rodir / "new.sqlite3"), str(empty)], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["binds"], "the probe could write a 0444 file: permissions did not bind"
    assert out["read"] == CONFIG and out["verify"] == [] and out["same put"] == compute_digest(CONFIG.encode())
    for name, exc in out["writes"].items():
        assert exc is not None and exc["type"] == "StoreReadOnlyError", (name, exc)
        assert exc["argument"] == "path" and exc["path"] == str(rofile) and not exc["directory"], (name, exc)
        assert str(rofile) in exc["message"] and "read-only" in exc["message"] and "reads work" in exc["message"]
    assert out["history"] == 0 and out["counts"] == [1, 1]
    for name, path in (("rodir", rodir / "s.sqlite3"), ("new in rodir", rodir / "new.sqlite3")):
        exc = out[name]
        assert exc is not None and exc["type"] == "StoreReadOnlyError" and exc["directory"], (name, exc)
        assert exc["path"] == str(path) and str(rodir) in exc["message"] and "read-only" in exc["message"]
    assert not out["new created"] and not (rodir / "new.sqlite3").exists()
    assert out["empty"]["type"] == "StoreReadOnlyError" and not out["empty"]["directory"], out["empty"]
    assert empty.read_bytes() == b""
    assert (row_counts(rofile), row_counts(rodir / "s.sqlite3")) == before
    assert integrity(rofile) == ["ok"] and integrity(rodir / "s.sqlite3") == ["ok"]


# -- a write the disk refuses (red team 81, F04) -------------------------------------------------
#
# A full disk (SQLITE_FULL) or a failed write (SQLITE_IOERR) escaped every write as a raw
# sqlite3.OperationalError, and `provgate check` called it an internal_error.

_BIG = "".join(f"key{i}=value{i}\n" for i in range(2000))  # ~30 KB: every write of it needs new pages


def _gate_check_with_a_big_source(store: SourceStore):
    from provgate.gate import Gate
    from provgate.window import parse_edit

    gate = Gate(store, session="full")
    block = {"id": "t", "role": "tool", "text": _BIG, "handles": ["tool:big"]}
    try:
        return gate.check_edit(parse_edit({"operator": "reorder", "pre": [block], "post": [block],
                                           "sources": {"tool:big": _BIG}}))
    finally:
        assert gate.history == []


WRITES_THAT_GROW_THE_FILE = [
    ("put", lambda s: s.put("tool:big", _BIG)),
    ("put_many", lambda s: s.put_many({"tool:n1": "one\n", "tool:big": _BIG})),
    ("append_audit", lambda s: s.append_audit({"session": "s", "n": 2, "note": _BIG})),
    ("put_cached_facts", lambda s: s.put_cached_facts(_FACTS_DIGEST, "v9", _BIG.encode())),
    ("put_cached_facts_many", lambda s: s.put_cached_facts_many([(_FACTS_DIGEST, "v8", b"a"),
                                                                 (_FACTS_DIGEST, "v9", _BIG.encode())])),
    ("a gate's check", _gate_check_with_a_big_source),
]


def _assert_disk_error(exc: BaseException, path, code: str) -> None:
    assert isinstance(exc, StoreIOError) and isinstance(exc, ProvgateError) and isinstance(exc, OSError), repr(exc)
    assert exc.path == str(path) and exc.code == code and str(path) in str(exc) and code in str(exc)
    assert "rolled back" in str(exc) and "nothing of it was stored" in str(exc)


@pytest.mark.parametrize(("name", "write"), WRITES_THAT_GROW_THE_FILE, ids=[w[0] for w in WRITES_THAT_GROW_THE_FILE])
def test_every_write_onto_a_full_disk_raises_store_io_error_and_writes_nothing(store_path, monkeypatch, name, write):
    _a_store_to_make_read_only(store_path)
    before = row_counts(store_path)
    full_disk_connections(monkeypatch)  # SQLite's own SQLITE_FULL, as on a full disk
    with SourceStore(store_path) as s:
        with pytest.raises(StoreIOError) as caught:
            write(s)
        _assert_disk_error(caught.value, store_path, "SQLITE_FULL")
        assert "database or disk is full" in str(caught.value)
        assert s.get("tool:conf") == CONFIG and row_counts(store_path) == before
        # once the disk takes writes again, the same store writes
        s._connection().raw.execute("PRAGMA max_page_count = 1073741823")
        assert s.put("tool:after", _BIG) == compute_digest(_BIG.encode())
    monkeypatch.undo()
    assert integrity(store_path) == ["ok"]
    with SourceStore(store_path) as s:
        assert s.verify() == [] and s.get("tool:after") == _BIG and "tool:big" not in s


@pytest.mark.parametrize(("code", "errorname"), [(778, "SQLITE_IOERR_WRITE"), (1034, "SQLITE_IOERR_FSYNC"),
                                                 (13, "SQLITE_FULL")])
@pytest.mark.parametrize(("name", "write"), READ_ONLY_WRITES, ids=[w[0] for w in READ_ONLY_WRITES])
def test_a_commit_the_disk_refuses_raises_store_io_error_and_writes_nothing(store_path, monkeypatch, name, write,
                                                                           code, errorname):
    # the failure at the worst moment: every row of the write inserted, the commit refused
    _a_store_to_make_read_only(store_path)
    before = row_counts(store_path)
    failing_commit_connections(monkeypatch, code, errorname)
    with SourceStore(store_path) as s:
        with pytest.raises(StoreIOError) as caught:
            write(s)
        _assert_disk_error(caught.value, store_path, errorname)
        assert s.get("tool:conf") == CONFIG and s.verify() == []
    monkeypatch.undo()
    assert row_counts(store_path) == before and integrity(store_path) == ["ok"]


def test_a_read_the_disk_fails_raises_store_io_error_that_says_nothing_was_written(mem, monkeypatch):
    mem.put("tool:conf", CONFIG)

    def failing_read(conn):
        exc = sqlite3.OperationalError("disk I/O error")
        exc.sqlite_errorcode, exc.sqlite_errorname = 266, "SQLITE_IOERR_READ"
        raise exc

    with pytest.raises(StoreIOError) as caught:
        mem._read(failing_read)
    assert caught.value.code == "SQLITE_IOERR_READ" and "failed a read" in str(caught.value)
    assert "nothing was written" in str(caught.value)


_FILE_SIZE_LIMIT_PROBE = r'''
import json, resource, signal, sys
from provgate.store import SourceStore

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
s = SourceStore(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
out = {}
for name, write in (("put", lambda: s.put("tool:big", "x" * 300_000)),
                    ("append_audit", lambda: s.append_audit({"session": "s", "x": "y" * 300_000})),
                    ("put_cached_facts", lambda: s.put_cached_facts("blake3:" + "0" * 64, "v", b"z" * 300_000))):
    try:
        write()
        out[name] = "stored"
    except Exception as e:  # noqa: BLE001 - the test names what it got
        out[name] = [type(e).__name__, getattr(e, "code", None), str(e)]
out["after"] = s.get("tool:conf")
print(json.dumps(out))
'''


def test_writes_past_a_real_file_size_limit_raise_store_io_error_and_write_nothing(tmp_path, store_path):
    # the disk refusing for real: RLIMIT_FSIZE makes the kernel fail the write (EFBIG), in a child
    _a_store_to_make_read_only(store_path)
    before = row_counts(store_path)
    probe = tmp_path / "probe.py"
    probe.write_text(_FILE_SIZE_LIMIT_PROBE, encoding="utf-8")
    import provgate

    here = os.path.dirname(os.path.dirname(os.path.abspath(provgate.__file__)))  # the provgate under test
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])))
    r = subprocess.run([sys.executable, str(probe), str(store_path)], capture_output=True, text=True, timeout=120,
                       env=env, check=False)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out.pop("after") == CONFIG
    for name, (kind, code, message) in out.items():
        assert kind == "StoreIOError" and code.startswith("SQLITE_IOERR"), (name, kind, code, message)
        assert str(store_path) in message and "rolled back" in message, (name, message)
    assert row_counts(store_path) == before and integrity(store_path) == ["ok"]
