"""Schema 3: every source row carries a checksum of its kind and ts (and seq, handle, digest),
checked where they are read (red team 93, F03: one flipped bit of a stored kind turned an evicted
summary's words back into a source, P accepted a pointer into them, and verify() said nothing).

Also the in-place upgrade from schemas 1 and 2 (tests/data/store_schema2.sqlite3 was written by
the schema 2 code, see tests/data/make_schema2_store.py), a store of an older schema opened
read-only, and a newer one refused."""

from __future__ import annotations

import importlib.util
import math
import re
import shutil
import sqlite3
import struct
from pathlib import Path

import pytest
from blake3 import blake3
from store_helpers import flip_byte_after, integrity, raw_query, version_1_store

from provgate.errors import StoreCorruptionError, StoreReadOnlyError, StoreSchemaError
from provgate.handles import block_text_handle
from provgate.store import DERIVED_KIND, SCHEMA_VERSION, SourceStore
from provgate.window import Block, Window

DATA = Path(__file__).parent / "data"
FIXTURE = DATA / "store_schema2.sqlite3"
WORDS = "The client retries 3 times and times out after 30s. " * 4
QUOTE = "retries 3 times and times out after 30s"
SUMMARY_HANDLE = block_text_handle(blake3(WORDS.encode()).digest())
ODD_TS = 1763000000.123456  # its 8 bytes are once in the file


def _fixture_module():
    spec = importlib.util.spec_from_file_location("make_schema2_store", DATA / "make_schema2_store.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FIXTURE_MODULE = _fixture_module()


def _expected_fixture_sources() -> dict[str, tuple[str, str | None, float | None]]:
    out = {}
    for handle, (text, kind, ts) in FIXTURE_MODULE.SOURCES.items():
        if handle == "block:SUMMARY":
            handle = FIXTURE_MODULE.block_handle(text)
        out[handle] = (text, kind, None if ts is None else ts + 0.0)  # SQLite keeps -0.0 as 0
    return out


@pytest.fixture()
def store_path(tmp_path) -> Path:
    return tmp_path / "store.sqlite3"


@pytest.fixture()
def v2_path(tmp_path) -> Path:
    path = tmp_path / "v2.sqlite3"
    shutil.copyfile(FIXTURE, path)
    return path


def _summary_store(path) -> None:
    """A store holding a tool output and an evicted summary's words, as compact() stores them."""
    with SourceStore(path) as s:
        s.put("tool:c1", "retries=3\ntimeout=30s\n", kind="tool_output", ts=1.0)
        s.put(SUMMARY_HANDLE, WORDS, kind=DERIVED_KIND, ts=ODD_TS)
        assert s.verify() == []


def _flip_kind(path) -> None:
    """One bit of the stored kind: window_summary -> window_summarx (red team 93, F03)."""
    flip_byte_after(path, DERIVED_KIND.encode(), skip=len(DERIVED_KIND) - 1)


def _flip_ts(path) -> None:
    """The lowest bit of the stored stamp's mantissa: a stamp 2**-22 s away."""
    flip_byte_after(path, struct.pack(">d", ODD_TS), skip=7)


def _pointer(store: SourceStore):
    from provgate.pointers import Pointer

    start = WORDS.encode().index(QUOTE.encode())
    return Pointer(handle=SUMMARY_HANDLE, start=start, end=start + len(QUOTE),
                   span_digest="blake3:" + blake3(QUOTE.encode()).hexdigest(),
                   source_digest="blake3:" + blake3(WORDS.encode()).hexdigest())


def _damage_message(handle: str) -> str:
    return f"source {handle!r} (source row 2): the row no longer matches its checksum"


# ---------------------------------------------------------------------- a flipped bit


@pytest.mark.parametrize("flip", [_flip_kind, _flip_ts], ids=["kind", "ts"])
def test_a_flipped_bit_of_kind_or_ts_fails_every_read_of_them_closed(store_path, flip):
    _summary_store(store_path)
    flip(store_path)
    assert integrity(store_path) == ["ok"]  # SQLite does not notice it
    message = _damage_message(SUMMARY_HANDLE)
    with SourceStore(store_path) as s:
        for name, read in [
            ("info", lambda: s.info(SUMMARY_HANDLE)),
            ("info_many", lambda: s.info_many(["tool:c1", SUMMARY_HANDLE])),
            ("digest", lambda: s.digest(SUMMARY_HANDLE)),
            ("pointer", lambda: s.pointer(SUMMARY_HANDLE, 0, 3)),
            ("pointer_from_str_indices", lambda: s.pointer_from_str_indices(SUMMARY_HANDLE, 0, 3)),
            ("resolve", lambda: s.resolve(_pointer(s))),
            ("resolve_bytes", lambda: s.resolve_bytes(_pointer(s))),
            # a repeated put is acknowledged by the row that keeps the first put's kind and ts
            ("put again", lambda: s.put(SUMMARY_HANDLE, WORDS, kind=DERIVED_KIND)),
            ("put_many again", lambda: s.put_many({"tool:new": "new\n", SUMMARY_HANDLE: WORDS})),
        ]:
            with pytest.raises(StoreCorruptionError) as caught:
                read()
            assert str(caught.value).startswith(message), name
        assert "tool:new" not in s  # the batch was rolled back whole
        problems = s.verify()
        assert len(problems) == 1 and problems[0].startswith(message), problems
        # what does not read the row's kind or ts still works: the content has its own checksum
        assert s.get(SUMMARY_HANDLE) == WORDS and s.get_many([SUMMARY_HANDLE]) == {SUMMARY_HANDLE: WORDS}
        assert s.info("tool:c1").kind == "tool_output" and s.resolves(SUMMARY_HANDLE)
    with SourceStore(store_path, read_only=True) as s:  # opened read-only, the same
        with pytest.raises(StoreCorruptionError, match="no longer matches its checksum"):
            s.info(SUMMARY_HANDLE)
        assert len(s.verify()) == 1


def test_an_intact_store_resolves_the_summary_as_nominal_and_verifies(store_path):
    from provgate.errors import ProvenanceResolutionError

    _summary_store(store_path)
    with SourceStore(store_path) as s:
        assert s.info(SUMMARY_HANDLE).kind == DERIVED_KIND and s.info(SUMMARY_HANDLE).ts == ODD_TS
        with pytest.raises(ProvenanceResolutionError) as caught:
            s.resolve(_pointer(s))
        assert caught.value.reason == "nominal"
        assert s.pointer(SUMMARY_HANDLE, 0, 3).nominal


def test_a_flipped_bit_of_a_plain_kind_is_caught_too(store_path):
    with SourceStore(store_path) as s:
        s.put("tool:a", "A\n", kind="tool_output_MARK")
    flip_byte_after(store_path, b"tool_output_MARK", skip=0)  # 't' -> 'u'
    with SourceStore(store_path) as s, pytest.raises(
            StoreCorruptionError, match=r"source 'tool:a' \(source row 1\): the row no longer matches"):
        s.info("tool:a")


def test_a_row_without_a_checksum_is_refused_naming_the_row(store_path):
    with SourceStore(store_path) as s:
        s.put_many({"tool:a": "A\n", "tool:b": "B\n"}, kind="tool_output", ts=3.0)
    conn = sqlite3.connect(store_path)
    conn.execute("DROP TRIGGER sources_no_update")  # damage the triggers cannot stop
    conn.execute("UPDATE sources SET row_digest = NULL WHERE handle = 'tool:b'")
    conn.commit()
    conn.close()
    with SourceStore(store_path) as s:
        with pytest.raises(StoreCorruptionError, match=r"source 'tool:b' \(source row 2\): its row has no checksum"):
            s.info("tool:b")
        problems = s.verify()
        assert len(problems) == 1 and "'tool:b' (source row 2): its row has no checksum" in problems[0]


@pytest.mark.parametrize("column,value", [
    ("kind", "tool_outpus"),  # another valid kind
    ("kind", None),  # the kind lost
    ("ts", 4.0),
    ("ts", None),
    ("row_digest", b"\x00" * 32),
    ("row_digest", "not bytes"),
])
def test_a_row_edited_around_its_checksum_is_refused(store_path, column, value):
    with SourceStore(store_path) as s:
        s.put_many({"tool:a": "A\n", "tool:b": "B\n"}, kind="tool_output", ts=3.0)
    conn = sqlite3.connect(store_path)
    conn.execute("DROP TRIGGER sources_no_update")
    conn.execute(f"UPDATE sources SET {column} = ? WHERE handle = 'tool:b'", (value,))
    conn.commit()
    conn.close()
    with SourceStore(store_path) as s:
        with pytest.raises(StoreCorruptionError, match=r"'tool:b' \(source row 2\): the row no longer matches"):
            s.info("tool:b")
        assert s.info("tool:a").ts == 3.0
        assert len(s.verify()) == 1


def test_rows_swapping_their_kinds_are_refused(store_path):
    # the checksum binds a kind to its row: each row's kind, intact in itself, moved to another
    with SourceStore(store_path) as s:
        s.put("tool:a", "A\n", kind="tool_output")
        s.put(SUMMARY_HANDLE, WORDS, kind=DERIVED_KIND)
    conn = sqlite3.connect(store_path)
    conn.execute("DROP TRIGGER sources_no_update")
    conn.execute("UPDATE sources SET kind = CASE kind WHEN 'tool_output' THEN ? ELSE 'tool_output' END", (DERIVED_KIND,))
    conn.commit()
    conn.close()
    with SourceStore(store_path) as s:
        assert len(s.verify()) == 2
        with pytest.raises(StoreCorruptionError):
            s.info(SUMMARY_HANDLE)


@pytest.mark.parametrize("ts", [None, 0.0, -0.0, 5e-324, -1.7976931348623157e308, 1.7976931348623157e308,
                                2.0**53, 2.0**63, -(2.0**63), 1763000000, 1763000000123.5, 0.1, -2.5])
def test_every_stamp_round_trips_through_its_checksum(store_path, ts, monkeypatch):
    # what a put hashes is what a read of the stored row hashes (SQLite keeps -0.0 as 0, and an
    # integral REAL as an integer it reads back as a float)
    if ts is not None and abs(ts) > 2**53:
        # a put refuses these now (red team 134, F09); rows an older version wrote hold them
        import provgate.store as store_mod

        monkeypatch.setattr(store_mod, "_MAX_TS", math.inf)
    with SourceStore(store_path) as s:
        s.put("tool:a", "A\n", kind="k ü 𝄞", ts=ts)
        s.put_many({"tool:b": "B\n", "tool:c": "C\n"}, ts=ts)
    with SourceStore(store_path) as s:
        info = s.info("tool:a")
        assert info.ts == (None if ts is None else float(ts)) and (ts is None or math.copysign(1, info.ts) > 0
                                                                   or ts < 0)
        assert s.info_many(["tool:b", "tool:c"])["tool:c"].ts == info.ts
        assert s.verify() == []


def test_the_row_checksum_is_the_documented_blake3():
    # docs/store.md states the input: a reader in another language can check a row
    from provgate.store import _row_digest, _row_digest_input

    data = _row_digest_input(7, "tool:call_8841", "blake3:" + "ab" * 32, DERIVED_KIND, 1.5)
    assert data == (b"provgate.source-row/3\x007\x00tool:call_8841\x00blake3:" + b"ab" * 32
                    + b"\x00+window_summary\x000x1.8000000000000p+0")
    assert _row_digest_input(7, "h:x", "d", None, None).endswith(b"\x00h:x\x00d\x00-\x00-")
    assert _row_digest(7, "tool:call_8841", "blake3:" + "ab" * 32, DERIVED_KIND, 1.5) == blake3(data).digest()


# ---------------------------------------------------------------------- the gate


def _gate_check(store: SourceStore, *, carry_handle: bool):
    from provgate.gate import Gate

    turn = Block("a2", "assistant", f'Per the config: "{QUOTE}" [src:{SUMMARY_HANDLE}].',
                 handles=(SUMMARY_HANDLE,) if carry_handle else ())
    start = WORDS.encode().index(QUOTE.encode())
    window = Window([Block("t1", "tool", "retries=3\ntimeout=30s\n", handles=("tool:c1",)), turn])
    pointers = [{"block": "a2", "handle": SUMMARY_HANDLE, "start": start, "end": start + len(QUOTE),
                 "hash": "blake3:" + blake3(QUOTE.encode()).hexdigest()}]
    return Gate(store, audit=False).check(window, window, operator="reorder", pointers=pointers)


@pytest.mark.parametrize("carry_handle", [False, True], ids=["cited", "carried"])
def test_the_gate_refuses_a_pointer_into_a_summary_whose_kind_was_damaged(store_path, carry_handle):
    _summary_store(store_path)
    with SourceStore(store_path) as s:
        verdict = _gate_check(s, carry_handle=carry_handle)
        assert not verdict.accepted and [(v.invariant, v.evidence.get("reason")) for v in verdict.violations
                                         if v.invariant == "P"] == [("P", "nominal")]
    _flip_kind(store_path)
    with SourceStore(store_path) as s:
        if carry_handle:
            # the block carries the handle: the gate reads its digest through info(), which
            # refuses the damaged row, so the check raises (no verdict, nothing accepted)
            with pytest.raises(StoreCorruptionError, match=re.escape(_damage_message(SUMMARY_HANDLE))):
                _gate_check(s, carry_handle=True)
        else:
            # a marker cites it: its digest was read without the row's kind (digests_many), and P
            # refuses the pointer, into a source the store cannot vouch for, instead of taking the
            # summary's words for a source's (red team 93, F03)
            verdict = _gate_check(s, carry_handle=False)
            assert not verdict.accepted
            p = [v for v in verdict.violations if v.invariant == "P"]
            assert [v.evidence.get("reason") for v in p] == ["source_corrupted"]
            assert _damage_message(SUMMARY_HANDLE) in p[0].message


def test_the_gate_refuses_the_red_team_93_f03_sequence(store_path):
    # compact() evicts a summary and stores its words with kind window_summary; one flipped bit of
    # that kind; a turn quoting the words with a pointer into them is not accepted
    from provgate import Gate, compact

    words = "The client retries 3 times and times out after 30s. " * 20
    handle = block_text_handle(blake3(words.encode()).digest())
    with SourceStore(store_path) as s:
        s.put("tool:c1", "retries=3\ntimeout=30s\n")
        window = Window([Block("s1", "assistant", words, derived=True, derived_from=("tool:c1",)),
                         Block("u1", "user", "Please continue with the deploy now. " * 10),
                         Block("a1", "assistant", "Working on it. " * 10)])
        result = compact(window, lambda r: "It retries 9999 times.", store=s, budget_tokens=200, gate=Gate(s),
                         on_reject="evict")
        assert s.info(handle).kind == DERIVED_KIND
        committed = list(result.window.blocks)
    data = bytearray(store_path.read_bytes())
    at = [m.end() - len(DERIVED_KIND) for m in re.finditer(rb"[0-9a-f]{8}" + DERIVED_KIND.encode(), data)]
    assert len(at) == 1  # the sources row (the audit records name the kind after other text)
    data[at[0] + len(DERIVED_KIND) - 1] ^= 0x01
    store_path.write_bytes(bytes(data))
    start = words.encode().index(QUOTE.encode())
    turn = Block("a2", "assistant", f'Per the config: "{QUOTE}" [src:{handle}].')
    pre = Window([*committed, turn])
    cit = [{"block": "a2", "handle": handle, "start": start, "end": start + len(QUOTE),
            "hash": "blake3:" + blake3(QUOTE.encode()).hexdigest()}]
    with SourceStore(store_path) as s:
        assert any("no longer matches its checksum" in p for p in s.verify())
        try:
            verdict = Gate(s).check(pre, pre, operator="reorder", pointers=cit)
        except StoreCorruptionError as exc:
            assert "no longer matches its checksum" in str(exc)
        else:
            assert not verdict.accepted


# ---------------------------------------------------------------------- upgrade


def test_a_schema_2_store_written_by_the_schema_2_code_is_upgraded_in_place(v2_path):
    assert raw_query(v2_path, "PRAGMA user_version") == [(2,)]
    expected = _expected_fixture_sources()
    before = raw_query(v2_path, "SELECT seq, handle, digest, kind, ts FROM sources ORDER BY seq")
    with SourceStore(v2_path) as s:
        assert raw_query(v2_path, "PRAGMA user_version") == [(SCHEMA_VERSION,)] == [(3,)]
        assert list(s) == list(expected)
        infos = s.info_many(list(expected))
        for handle, (text, kind, ts) in expected.items():
            assert s.get(handle) == text
            assert (infos[handle].kind, infos[handle].ts) == (kind, ts), handle
            assert s.info(handle) == infos[handle]
        assert s.verify() == []
        # the audit log and its session index came through
        assert [r for _, r in s.iter_audit_of_session("S")] == [r for r in FIXTURE_MODULE.RECORDS if r.get("session")]
        assert s.get_cached_facts(s.digest("tool:call_1"), FIXTURE_MODULE.FACTS[0]) == FIXTURE_MODULE.FACTS[1]
        # the summary's words are still no source
        summary = FIXTURE_MODULE.block_handle(FIXTURE_MODULE.SUMMARY)
        assert s.pointer(summary, 0, 3).nominal
        # and the store takes new sources, with their checksums
        s.put("tool:after", "after\n", kind="tool_output", ts=9.5)
        assert s.info("tool:after").seq == len(expected) + 1
        assert s.verify() == []
    # nothing but the new column changed in the rows
    after = raw_query(v2_path, "SELECT seq, handle, digest, kind, ts FROM sources WHERE handle != 'tool:after' "
                      "ORDER BY seq")
    assert after == before
    assert all(type(d) is bytes and len(d) == 32 for (d,) in raw_query(v2_path, "SELECT row_digest FROM sources"))
    # the sources are immutable again after the one update the upgrade made
    with pytest.raises(sqlite3.IntegrityError, match="immutable"):
        raw_query(v2_path, "UPDATE sources SET kind = 'x'")
    assert integrity(v2_path) == ["ok"]


def test_an_upgraded_store_catches_a_flipped_kind(v2_path):
    with SourceStore(v2_path):
        pass
    flip_byte_after(v2_path, b"window_summary", skip=len("window_summary") - 1)
    summary = FIXTURE_MODULE.block_handle(FIXTURE_MODULE.SUMMARY)
    with SourceStore(v2_path) as s:
        with pytest.raises(StoreCorruptionError, match=re.escape(f"source {summary!r} (source row 3): the row no")):
            s.info(summary)
        assert len(s.verify()) == 1


def test_a_version_1_store_is_upgraded_to_3_with_its_rows_checksummed(store_path):
    version_1_store(store_path, [b'{"session":"S"}'])
    with SourceStore(store_path) as s:
        assert raw_query(store_path, "PRAGMA user_version") == [(3,)]
        assert s.info("tool:a").kind is None and s.verify() == []
        assert [r for _, r in s.iter_audit_of_session("S")] == [{"session": "S"}]


def test_a_failed_upgrade_leaves_the_version_2_store_as_it_was(v2_path, monkeypatch):
    from provgate import store as store_module

    before = v2_path.read_bytes()
    calls = []

    def broken(*row):
        calls.append(row)
        if len(calls) == 3:
            raise sqlite3.OperationalError("disk I/O error")
        return store_module._row_digest(*row)

    monkeypatch.setattr(store_module, "_upgraded_row_digest", broken)
    with pytest.raises(Exception, match="disk I/O"):
        SourceStore(v2_path)
    assert raw_query(v2_path, "PRAGMA user_version") == [(2,)]
    assert "row_digest" not in [row[1] for row in raw_query(v2_path, "PRAGMA table_info(sources)")]
    assert raw_query(v2_path, "SELECT name FROM sqlite_master WHERE name = 'sources_no_update'") != []
    monkeypatch.undo()
    with SourceStore(v2_path) as s:
        assert s.verify() == [] and raw_query(v2_path, "PRAGMA user_version") == [(3,)]
    assert before


def test_the_upgrade_gives_a_row_of_the_wrong_types_no_checksum(v2_path):
    conn = sqlite3.connect(v2_path)
    conn.execute("DROP TRIGGER sources_no_update")
    conn.execute("UPDATE sources SET ts = 'abc' WHERE handle = 'tool:call_2'")
    conn.execute(raw_query(FIXTURE, "SELECT sql FROM sqlite_master WHERE name = 'sources_no_update'")[0][0])
    conn.commit()
    conn.close()
    with SourceStore(v2_path) as s:  # the upgrade does not fail on it
        assert raw_query(v2_path, "SELECT row_digest FROM sources WHERE handle = 'tool:call_2'") == [(None,)]
        with pytest.raises(StoreCorruptionError, match="'tool:call_2' holds a timestamp of the wrong type"):
            s.info("tool:call_2")
        problems = s.verify()
        assert len(problems) == 1 and "tool:call_2" in problems[0]
        assert s.info("tool:call_1").kind == "tool_output"


def test_a_version_2_file_with_version_3_s_column_is_refused_and_left_as_it_was(v2_path):
    conn = sqlite3.connect(v2_path)
    conn.execute("ALTER TABLE sources ADD COLUMN row_digest BLOB")
    conn.commit()
    conn.close()
    before = v2_path.read_bytes()
    with pytest.raises(StoreSchemaError):
        SourceStore(v2_path)
    assert v2_path.read_bytes() == before and raw_query(v2_path, "PRAGMA user_version") == [(2,)]


def test_a_version_2_writer_cannot_add_unchecksummed_sources_after_an_upgrade(v2_path):
    # a process that opened the file as version 2 keeps its connection across another process's
    # upgrade: its next put (version 2's statement) must fail, not leave a row every read refuses
    old = sqlite3.connect(str(v2_path), isolation_level=None)
    try:
        old.execute("SELECT count(*) FROM sources").fetchone()
        with SourceStore(v2_path) as s:
            s.put("tool:new", "new\n")
        digest = raw_query(v2_path, "SELECT digest FROM sources WHERE handle = 'tool:new'")[0][0]
        with pytest.raises(sqlite3.IntegrityError, match="upgraded to schema 3"):
            old.execute("INSERT INTO sources (handle, digest, kind, ts) VALUES ('tool:old', ?, NULL, NULL)", (digest,))
    finally:
        old.close()
    with SourceStore(v2_path) as s:
        assert "tool:old" not in s and s.verify() == []


# ---------------------------------------------------------------------- read-only and newer


def test_a_schema_2_store_opened_read_only_is_read_as_it_is_and_left_as_it_was(v2_path):
    before = v2_path.read_bytes()
    expected = _expected_fixture_sources()
    with SourceStore(v2_path, read_only=True) as s:
        for handle, (text, kind, ts) in expected.items():
            info = s.info(handle)
            assert (s.get(handle), info.kind, info.ts) == (text, kind, ts)
        assert s.info_many(list(expected)).keys() == expected.keys()
        assert s.verify() == []
        assert [r for _, r in s.iter_audit_of_session("S")] == [r for r in FIXTURE_MODULE.RECORDS if r.get("session")]
        summary = FIXTURE_MODULE.block_handle(FIXTURE_MODULE.SUMMARY)
        assert s.pointer(summary, 0, 3).nominal
        with pytest.raises(StoreReadOnlyError, match="opened read-only"):
            s.put("tool:x", "x\n")
    assert v2_path.read_bytes() == before  # not upgraded (the -wal and -shm beside it are SQLite's)
    assert raw_query(v2_path, "PRAGMA user_version") == [(2,)]


def test_a_schema_2_store_read_only_reads_kind_unchecked_as_before(v2_path):
    # schema 2 has no checksum to check against: a damaged kind reads as it is, as it did (open it
    # once with write access to upgrade it; from then on it is checked)
    flip_byte_after(v2_path, b"window_summary", skip=len("window_summary") - 1)
    summary = FIXTURE_MODULE.block_handle(FIXTURE_MODULE.SUMMARY)
    with SourceStore(v2_path, read_only=True) as s:
        assert s.info(summary).kind == "window_summarx"


def test_a_version_1_store_opened_read_only_reads_its_rows(store_path):
    version_1_store(store_path, [b'{"session":"S"}'])
    before = store_path.read_bytes()
    with SourceStore(store_path, read_only=True) as s:
        assert s.info("tool:a").kind is None and s.info_many(["tool:a"])["tool:a"].seq == 1
        assert s.pointer("tool:a", 0, 3).nominal is False and s.verify() == []
    assert store_path.read_bytes() == before


@pytest.mark.parametrize("read_only", [False, True])
def test_a_store_of_a_newer_schema_is_refused_untouched(store_path, read_only):
    with SourceStore(store_path) as s:
        s.put("tool:a", "A\n", kind="tool_output")
    raw_query(store_path, f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    before = store_path.read_bytes()
    with pytest.raises(StoreSchemaError, match=f"schema version {SCHEMA_VERSION + 1}, written by a newer provgate.*"
                                               f"up to {SCHEMA_VERSION}. Upgrade provgate"):
        SourceStore(store_path, read_only=read_only)
    assert store_path.read_bytes() == before


def test_a_schema_3_store_read_only_is_checked(store_path):
    _summary_store(store_path)
    with SourceStore(store_path, read_only=True) as s:
        assert s.info(SUMMARY_HANDLE).kind == DERIVED_KIND and s.verify() == []

