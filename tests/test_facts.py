"""Fact tables: the public API of provgate.facts, value normalisation, the documented
fingerprint framing, the durable cache form, and bad input failing closed."""

from __future__ import annotations

import struct
import threading

import numpy as np
import pytest
from blake3 import blake3
from hypothesis import given, settings
from hypothesis import strategies as st

from provgate import facts
from provgate.errors import InvalidContentError, LimitExceededError, StoreCorruptionError
from provgate.facts import (
    EXTRACTOR_VERSION,
    FactTable,
    Kind,
    Span,
    extract,
    fingerprint_fact,
    fingerprint_key,
    fingerprint_kv_keys,
    fingerprint_value,
    fingerprint_values,
    normalize_value,
)
from scanner_helpers import all_text

SAMPLE = (
    "retries=3 and the value 1,000 in /etc/hosts by Amanda [src:call_1] `x=1`\n"
    "```yaml\ntimeout: 30s\n```\nSee https://example.com/a and e3b0c44 (NASA).\n"
)


def fp(x) -> tuple[int, int]:
    return int(x[0]), int(x[1])


def find(table: FactTable, text: str) -> int:
    hits = [i for i in range(len(table)) if table.span(i).text == text]
    assert len(hits) == 1, (text, list(table))
    return hits[0]


# -- shape of the table ---------------------------------------------------------------------


def test_columns_and_dtypes():
    t = extract(SAMPLE)
    n = len(t)
    assert n == 12
    assert t.kind.dtype == np.uint8 and t.kind.shape == (n,)
    for name in ("start", "end", "key_start", "key_end", "value_start", "value_end"):
        col = getattr(t, name)
        assert col.dtype == np.int64 and col.shape == (n,)
    for name in ("fp_key", "fp_value", "fp_fact"):
        col = getattr(t, name)
        assert col.dtype == np.uint64 and col.shape == (n, 2) and col.flags.c_contiguous
    order = sorted(range(n), key=lambda i: (t.start[i], t.end[i], t.kind[i]))
    assert order == list(range(n))


def test_columns_are_read_only():
    t = extract("retries=3")
    for name in ("kind", "start", "end", "fp_key", "fp_value", "fp_fact", "value_kind"):
        with pytest.raises(ValueError):
            getattr(t, name)[0] = 0


def test_spans_and_accessors():
    t = extract(SAMPLE)
    assert t.span(0) == Span(Kind.KV, 0, 9, "retries=3", "retries", "3")
    assert isinstance(t.span(0).kind, Kind)
    assert t[find(t, "1,000")] == Span(Kind.NUMBER, 24, 29, "1,000", "number", "1000")
    assert t.span(-1) == t.span(len(t) - 1)
    assert list(t) == [t.span(i) for i in range(len(t))]
    assert list(t.keys()) == [s.key for s in t]
    assert list(t.values()) == [s.value for s in t]
    assert t.text == SAMPLE
    assert t.data == SAMPLE.encode()
    assert {s.kind for s in t} == set(Kind) - {Kind.IDENTIFIER}
    with pytest.raises(IndexError):
        t.span(len(t))
    with pytest.raises(IndexError):
        t.span(-len(t) - 1)
    with pytest.raises(TypeError):
        t.span("0")
    with pytest.raises(TypeError):
        t.span(True)


def test_offsets_are_utf8_byte_offsets():
    text = "Zoë paid $1,500 to Jürgen"
    t = extract(text)
    data = text.encode()
    for s in t:
        assert data[s.start : s.end].decode() == s.text
    i = find(t, "1,500")
    assert (t.start[i], t.end[i]) == (len("Zoë paid $".encode()), len("Zoë paid $1,500".encode()))
    assert [s.text for s in t if s.kind == Kind.NAME] == ["Jürgen"]


def test_input_types_give_the_same_table():
    a = extract(SAMPLE)
    for variant in (SAMPLE.encode(), bytearray(SAMPLE.encode()), memoryview(SAMPLE.encode())):
        b = extract(variant)
        assert list(b) == list(a)
        assert np.array_equal(b.fp_fact, a.fp_fact)
        assert isinstance(b.data, bytes)


def test_bytearray_input_is_copied():
    buf = bytearray(b"retries=3")
    t = extract(buf)
    buf[8:9] = b"5"
    assert t.span(0).value == "3"


def test_empty_text():
    t = extract("")
    assert len(t) == 0
    assert t.fp_fact.shape == (0, 2) and t.fp_fact.dtype == np.uint64
    assert list(t) == []


# -- normalisation --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "a, b",
    [
        ("1,000", "1000"),
        ("1,000,000.5", "1000000.5"),
        ("+5", "5"),
        ("-0", "0"),
        ("-0.0", "0.0"),
        ("0xFF", "0xff"),
        ("0XAB", "0xab"),
        ("DEADBEEF12", "deadbeef12"),
        ("123E4567-E89B-12D3-A456-426614174000", "123e4567-e89b-12d3-a456-426614174000"),
        ("retries=1,000", "retries=1000"),
        ("retries=+3", "retries=3"),
        ("--retries 3", "--retries=3"),
    ],
)
def test_equal_after_normalisation(a, b):
    ta, tb = extract(a), extract(b)
    assert len(ta) == len(tb) == 1
    assert ta.span(0).value == tb.span(0).value
    assert fp(ta.fp_value[0]) == fp(tb.fp_value[0])
    assert fp(ta.fp_fact[0]) == fp(tb.fp_fact[0])


@pytest.mark.parametrize(
    "a, b",
    [
        ("3.10", "3.1"),  # versions keep their digits
        ("007", "7"),
        ("v2", "2"),
        ("three", "3"),
        ("-5", "5"),
        ("'a  b'", "'a b'"),  # whitespace inside quotes is kept
        ("retries=3", "retries=5"),
        ("retries=3", "Retries=3"),  # keys keep their case
        ("Amanda", "AMANDA"),
    ],
)
def test_different_facts(a, b):
    ta, tb = extract("x " + a), extract("x " + b)
    assert fp(ta.fp_fact[-1]) != fp(tb.fp_fact[-1])


def test_nan_and_inf_are_not_numbers():
    assert [s.kind for s in extract("x NaN inf nan -inf")] == [Kind.IDENTIFIER]


def test_key_and_value_fingerprints():
    t = extract("number=5 and 5 and Five and retries=5")
    kv1, num, kv2 = find(t, "number=5"), find(t, "5"), find(t, "retries=5")
    # the value fingerprint ignores the kind
    assert fp(t.fp_value[kv1]) == fp(t.fp_value[num]) == fp(t.fp_value[kv2])
    # a kv key named "number" is not the kind "number"
    assert fp(t.fp_key[kv1]) != fp(t.fp_key[num])
    assert fp(t.fp_fact[kv1]) != fp(t.fp_fact[num])
    assert fp(t.fp_key[kv1]) != fp(t.fp_key[kv2])
    assert fp(t.fp_fact[kv1]) != fp(t.fp_fact[kv2])


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(st.one_of(st.text(max_size=12), st.binary(max_size=12)), max_size=8))
def test_kv_keys_are_fingerprinted_in_bulk_exactly_as_one_by_one(keys):
    # the bulk path checks all bytes keys with one UTF-8 check of their newline-joined bytes;
    # any invalid key (alone, or only invalid with its neighbour) must still be refused
    one_by_one = []
    try:
        for k in keys:
            one_by_one.append(fingerprint_key(Kind.KV, k))
    except InvalidContentError as exc:
        with pytest.raises(InvalidContentError, match=str(exc).split(":")[0]):
            fingerprint_kv_keys(keys)
        return
    assert np.array_equal(fingerprint_kv_keys(keys), np.array(one_by_one, dtype=np.uint64).reshape(-1, 2))


@pytest.mark.parametrize("keys", [[b"\xc3", b"\xa9"], [b"ok", b"\xff"], [b"\xe2\x82", b"\xac"], ["\ud800"], [3]])
def test_kv_keys_in_bulk_refuse_what_one_key_would(keys):
    with pytest.raises(InvalidContentError):
        fingerprint_kv_keys(keys)


def test_helpers_match_the_table():
    t = extract(SAMPLE)
    for i, s in enumerate(t):
        key = s.key if s.kind == Kind.KV else None
        assert fp(fingerprint_value(s.value)) == fp(t.fp_value[i])
        assert fp(fingerprint_key(s.kind, key)) == fp(t.fp_key[i])
        assert fp(fingerprint_fact(s.kind, s.value, key)) == fp(t.fp_fact[i])
    assert np.array_equal(fingerprint_values(list(t.values())), t.fp_value)
    kv = [i for i, s in enumerate(t) if s.kind == Kind.KV]
    assert kv and np.array_equal(fingerprint_kv_keys([t.span(i).key for i in kv]), t.fp_key[kv])
    assert fingerprint_kv_keys([]).shape == (0, 2)
    with pytest.raises(InvalidContentError):
        fingerprint_key(Kind.KV)
    with pytest.raises(InvalidContentError):
        fingerprint_key(Kind.NUMBER, "retries")


def test_normalize_value():
    assert normalize_value(Kind.NUMBER, "-0.0") == "0.0"
    assert normalize_value(Kind.NUMBER, "+1,000") == "1000"
    assert normalize_value(Kind.DIGEST, "ABCDEF1") == "abcdef1"
    assert normalize_value(Kind.KV, "1,000") == "1000"
    assert normalize_value(Kind.KV, "Debug") == "Debug"
    assert normalize_value(Kind.QUOTE, " A  b ") == " A  b "


def test_documented_fingerprint_framing():
    """Recompute fingerprints from docs/grammar.md alone, with the blake3 package."""
    key = blake3(b"extractor %d" % EXTRACTOR_VERSION, derive_key_context="provgate 2026-11 fact fingerprints").digest()
    assert key == facts.FINGERPRINT_KEY

    def f(message: bytes) -> tuple[int, int]:
        d = blake3(message, key=key).digest()
        return struct.unpack(">QQ", d[:16])

    def u64(n: int) -> bytes:
        return struct.pack("<Q", n)

    t = extract("retries=1,000 and 42")
    kv, num = find(t, "retries=1,000"), find(t, "42")
    assert fp(t.fp_value[kv]) == f(b"V" + u64(4) + b"1000")
    assert fp(t.fp_key[kv]) == f(b"K\x01" + u64(7) + b"retries")
    assert fp(t.fp_fact[kv]) == f(b"F\x01" + u64(7) + b"retries" + u64(4) + b"1000")
    assert fp(t.fp_key[num]) == f(b"K\x00" + u64(6) + b"number")
    assert fp(t.fp_fact[num]) == f(b"F\x00" + u64(6) + b"number" + u64(2) + b"42")


def test_extractor_version_is_an_int():
    assert isinstance(EXTRACTOR_VERSION, int) and EXTRACTOR_VERSION >= 1


@settings(max_examples=400, deadline=None)
@given(all_text)
def test_fingerprints_follow_the_spans(text):
    t = extract(text)
    for i, s in enumerate(t):
        key = s.key if s.kind == Kind.KV else None
        assert fp(fingerprint_fact(s.kind, s.value, key)) == fp(t.fp_fact[i])
    # deterministic
    assert np.array_equal(extract(text).fp_fact, t.fp_fact)


# -- the durable cache form -------------------------------------------------------------------


def test_round_trip():
    t = extract(SAMPLE)
    blob = t.to_bytes()
    u = FactTable.from_bytes(blob, SAMPLE)
    assert list(u) == list(t)
    for name in FactTable.__slots__[1:-1]:
        assert np.array_equal(getattr(u, name), getattr(t, name)), name
        assert getattr(u, name).dtype == getattr(t, name).dtype
    assert FactTable.from_bytes(bytearray(blob), SAMPLE.encode()).span(0) == t.span(0)
    empty = extract("")
    assert len(FactTable.from_bytes(empty.to_bytes(), "")) == 0


@settings(max_examples=200, deadline=None)
@given(all_text)
def test_round_trip_generated(text):
    t = extract(text)
    u = FactTable.from_bytes(t.to_bytes(), t.data)
    assert list(u) == list(t)
    assert np.array_equal(u.fp_fact, t.fp_fact)


def test_every_flipped_byte_is_detected():
    t = extract("retries=3 and 42 [src:x]")
    blob = t.to_bytes()
    for i in range(len(blob)):
        bad = bytearray(blob)
        bad[i] ^= 0x01
        with pytest.raises(StoreCorruptionError):
            FactTable.from_bytes(bytes(bad), t.data)


def test_truncated_and_extended_blobs():
    t = extract("retries=3 and 42")
    blob = t.to_bytes()
    for cut in (0, 10, len(blob) // 2, len(blob) - 1):
        with pytest.raises(StoreCorruptionError):
            FactTable.from_bytes(blob[:cut], t.data)
    with pytest.raises(StoreCorruptionError):
        FactTable.from_bytes(blob + b"\x00", t.data)
    with pytest.raises(StoreCorruptionError):
        FactTable.from_bytes("not bytes", t.data)


def test_blob_for_other_text():
    t = extract("retries=3 and 42")
    with pytest.raises(StoreCorruptionError, match="different text"):
        FactTable.from_bytes(t.to_bytes(), "retries=3 and 43")


def _reseal(body: bytes) -> bytes:
    return body + blake3(body).digest()


def test_other_extractor_version_is_refused():
    t = extract("retries=3")
    body = bytearray(t.to_bytes()[:-32])
    struct.pack_into("<I", body, 12, EXTRACTOR_VERSION + 1)
    with pytest.raises(StoreCorruptionError, match="extractor version"):
        FactTable.from_bytes(_reseal(bytes(body)), t.data)


def test_impossible_rows_are_refused_even_with_a_valid_checksum():
    t = extract("retries=3 and 42")
    header = struct.calcsize("<8sIIQQ32s")
    n = len(t)
    body = bytearray(t.to_bytes()[:-32])
    # a kind that does not exist
    bad = bytearray(body)
    bad[header] = 200
    with pytest.raises(StoreCorruptionError, match="unknown kind"):
        FactTable.from_bytes(_reseal(bytes(bad)), t.data)
    # an end beyond the text (the "end" column follows kind, value_kind and start)
    bad = bytearray(body)
    struct.pack_into("<q", bad, header + 2 * n + 8 * n, 10_000)
    with pytest.raises(StoreCorruptionError, match="outside the text"):
        FactTable.from_bytes(_reseal(bytes(bad)), t.data)
    # rows out of order: swap the two rows' kinds and offsets
    bad = bytearray(body)
    start_col = header + 2 * n
    s0, s1 = struct.unpack_from("<qq", bad, start_col)
    struct.pack_into("<qq", bad, start_col, s1, s0)
    with pytest.raises(StoreCorruptionError):
        FactTable.from_bytes(_reseal(bytes(bad)), t.data)


# -- bad input --------------------------------------------------------------------------------


def test_invalid_utf8_names_the_offset():
    with pytest.raises(InvalidContentError, match="offset 6"):
        extract(b"abc de\xff fg")
    with pytest.raises(InvalidContentError, match="offset 0"):
        extract(b"\xed\xa0\x80")  # an encoded surrogate
    with pytest.raises(InvalidContentError):
        extract(bytearray(b"ok \xc0\xaf"))


def test_lone_surrogate():
    # the message names the code point and its index in the str
    with pytest.raises(InvalidContentError, match=r"surrogate U\+D800 at \w+ 4\b"):
        extract("abc \ud800 def")


@pytest.mark.parametrize("bad", [None, 42, 4.2, ["retries=3"], {"a": 1}, object()])
def test_wrong_types(bad):
    # the message says what is accepted and names the type that was given
    with pytest.raises(InvalidContentError, match=rf"must be str\b.*\b{type(bad).__name__}$"):
        extract(bad)


def test_non_contiguous_memoryview():
    view = memoryview(b"retries=3 retries=4")[::2]
    with pytest.raises(InvalidContentError, match="contiguous"):
        extract(view)


def test_nul_bytes_are_separators():
    t = extract("retries=3\x00\x0042\x00Amanda\x00[src:a]\x00")
    assert [(s.kind, s.text) for s in t] == [
        (Kind.KV, "retries=3"),
        (Kind.NUMBER, "42"),
        (Kind.NAME, "Amanda"),
        (Kind.CITATION, "[src:a]"),
    ]


def test_text_over_the_size_cap():
    with pytest.raises(LimitExceededError, match="max_bytes"):
        extract("x" * (100 * 1024 * 1024))  # refused before it is even encoded
    with pytest.raises(LimitExceededError, match="max_bytes"):
        extract(b"1 " * (50 * 1024 * 1024 + 1))
    with pytest.raises(LimitExceededError):
        extract("é" * 40, max_bytes=50)  # 80 bytes
    assert len(extract("é 1" * 10, max_bytes=50)) == 10


def test_span_cap():
    with pytest.raises(LimitExceededError, match="max_spans"):
        extract("1 " * 101, max_spans=100)
    assert len(extract("1 " * 100, max_spans=100)) == 100
    for bad in (-1, "10", 1.5, True):
        with pytest.raises(LimitExceededError):
            extract("x", max_spans=bad)
        with pytest.raises(LimitExceededError):
            extract("x", max_bytes=bad)


def test_a_million_one_character_tokens():
    t = extract("1 " * 1_000_000)
    assert len(t) == 1_000_000
    assert np.array_equal(t.start, np.arange(0, 2_000_000, 2))
    # one value: every row has the same fingerprints
    assert (t.fp_fact == t.fp_fact[0]).all()
    assert len(extract("a " * 1_000_000)) == 0


def test_concurrent_extraction_is_consistent():
    texts = [(SAMPLE + f"retries={i}\n") * 200 for i in range(6)]
    expected = [extract(t).fp_fact for t in texts]
    results: dict[int, np.ndarray] = {}

    def work(k: int) -> None:
        results[k] = extract(texts[k % len(texts)]).fp_fact

    threads = [threading.Thread(target=work, args=(k,)) for k in range(12)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for k, got in results.items():
        assert np.array_equal(got, expected[k % len(texts)])



# -- extract_many: many texts in one call -----------------------------------------------------

_COLUMNS = ("kind", "start", "end", "key_start", "key_end", "value_start", "value_end", "value_kind",
            "fp_key", "fp_value", "fp_fact")


def assert_same_table(a: FactTable, b: FactTable) -> None:
    assert a.data == b.data
    for name in _COLUMNS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y), name
        assert not x.flags.writeable


@settings(max_examples=150, deadline=None)
@given(st.lists(all_text, max_size=10))
def test_extract_many_is_extract_of_each(texts):
    for got, text in zip(facts.extract_many(texts), texts, strict=True):
        assert_same_table(got, extract(text))


def test_extract_many_takes_what_extract_takes():
    texts = [SAMPLE, SAMPLE.encode(), bytearray(b"retries=3"), memoryview(b"x 42"), "", "naïve €500", ("a", "b")[0]]
    got = facts.extract_many(texts)
    assert len(got) == len(texts)
    for table, text in zip(got, texts):
        assert_same_table(table, extract(text))
    assert facts.extract_many(tuple(texts[:2]))[1].data == SAMPLE.encode()
    assert facts.extract_many([]) == []


def test_extract_many_across_batches(monkeypatch):
    """Texts past the batch size go to another native call (tables of one call share one
    buffer, so a call is kept small): the same tables, and a text larger than a batch alone."""
    monkeypatch.setattr(facts, "_BATCH_BYTES", 100)
    texts = [SAMPLE * k for k in (0, 1, 3, 1, 1, 1)] + ["retries=5"] * 30
    for table, text in zip(facts.extract_many(texts), texts, strict=True):
        assert_same_table(table, extract(text))


def test_extract_many_fails_on_the_first_bad_text_and_names_it(monkeypatch):
    with pytest.raises(InvalidContentError, match="offset 2") as e:
        facts.extract_many(["fine 1", b"ok", b"ab\xff", "\ud800"])
    assert e.value.__notes__ == ["in texts[2]"]
    with pytest.raises(InvalidContentError, match="surrogate") as e:
        facts.extract_many(["fine 1", "x \ud800"])
    assert e.value.__notes__ == ["in texts[1]"]
    with pytest.raises(InvalidContentError, match="must be str") as e:
        facts.extract_many(["fine", None])
    assert e.value.__notes__ == ["in texts[1]"]
    with pytest.raises(LimitExceededError, match="max_bytes") as e:
        facts.extract_many(["ok", "x" * 60], max_bytes=50)
    assert e.value.__notes__ == ["in texts[1]"]
    # a text over max_spans before an invalid one is the error, as extract in order would find it
    for batch_bytes in (1 << 16, 4):
        monkeypatch.setattr(facts, "_BATCH_BYTES", batch_bytes)
        with pytest.raises(LimitExceededError, match="max_spans") as e:
            facts.extract_many(["1", "1 2 3", "4", b"\xff"], max_spans=2)
        assert e.value.__notes__ == ["in texts[1]"]
        with pytest.raises(LimitExceededError, match="max_spans") as e:
            facts.extract_many(["1", "2", "3 4 5"], max_spans=2)
        assert e.value.__notes__ == ["in texts[2]"]


def test_extract_many_rejects_bad_arguments():
    for bad in ("retries=3", b"retries=3", None, {"a": 1}, iter(["x"])):
        with pytest.raises(TypeError, match="texts must be a list or tuple"):
            facts.extract_many(bad)
    for bad in (-1, "10", 1.5, True):
        with pytest.raises(LimitExceededError):
            facts.extract_many(["x"], max_spans=bad)
        with pytest.raises(LimitExceededError):
            facts.extract_many(["x"], max_bytes=bad)
