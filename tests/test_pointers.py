"""Content-addressed pointers: made and resolved only against the store, failing closed."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import inspect
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from provgate.digests import compute_digest
from provgate.errors import (
    EditFormatError,
    InvalidContentError,
    PointerFormatError,
    ProvenanceResolutionError,
    SpanError,
    StoreCorruptionError,
)
from provgate.pointers import (
    RESOLUTION_REASONS,
    Pointer,
    byte_offset_to_str_index,
    byte_span_to_str_span,
    check_byte_span,
    is_char_boundary,
    str_index_to_byte_offset,
    str_span_to_byte_span,
)
from provgate.store import DERIVED_KIND, SourceStore
from store_helpers import flip_byte_after

DOC_7 = (
    "Deployment notes, revision 12.\n"
    "The client retries failed requests: retries=3, with exponential backoff.\n"
    "Timeouts are 30 s; the endpoint is https://api.example.com/v2.\n"
    "Résumé of the incident: the cache was cold — warm it before load tests.\n"
)
SUMMARY = (
    "Summary of doc_7: deployment uses retries=3 and 30 s timeouts; "
    "warm the cache before load tests. [src:doc_7]"
)


@pytest.fixture()
def store():
    with SourceStore(":memory:") as s:
        s.put("doc:doc_7", DOC_7, kind="document")
        yield s


def _byte_span_of(text: str, needle: str) -> tuple[int, int]:
    data, pattern = text.encode(), needle.encode()
    start = data.index(pattern)
    return start, start + len(pattern)


def _reason(store, pointer) -> str:
    with pytest.raises(ProvenanceResolutionError) as info:
        store.resolve(pointer)
    assert info.value.pointer == pointer
    assert info.value.reason in RESOLUTION_REASONS
    return info.value.reason


# ---------------------------------------------------------------------- round trips


def test_pointer_resolves_to_exactly_its_span(store):
    start, end = _byte_span_of(DOC_7, "retries=3")
    p = store.pointer("doc:doc_7", start, end, label="doc_7#L2")
    assert (p.handle, p.start, p.end, p.label, p.nominal) == ("doc:doc_7", start, end, "doc_7#L2", False)
    assert p.span_digest == compute_digest(b"retries=3")
    assert p.source_digest == store.digest("doc:doc_7")
    assert store.resolve(p) == "retries=3"
    assert store.resolve_bytes(p) == b"retries=3"
    assert p.length == 9


def test_multibyte_text_and_str_indices(store):
    needle = "Résumé of the incident: the cache was cold — warm it"
    i = DOC_7.index(needle)
    p = store.pointer_from_str_indices("doc:doc_7", i, i + len(needle))
    assert store.resolve(p) == needle
    assert (p.start, p.end) == _byte_span_of(DOC_7, needle)
    assert p.end - p.start == len(needle.encode())  # é, é and — take more than one byte
    assert p == store.pointer("doc:doc_7", p.start, p.end)


def test_whole_source_pointer(store):
    p = store.pointer("doc:doc_7", 0, len(DOC_7.encode()))
    assert p.span_digest == p.source_digest
    assert store.resolve(p) == DOC_7


def test_json_round_trip(store):
    p = store.pointer("doc:doc_7", 0, 10, label="doc_7#L1")
    obj = json.loads(json.dumps(p.to_json()))
    assert obj == {
        "handle": "doc:doc_7",
        "start": 0,
        "end": 10,
        "span_digest": p.span_digest,
        "source_digest": p.source_digest,
        "label": "doc_7#L1",
        "nominal": False,
    }
    q = Pointer.from_json(obj)
    assert q == p
    assert store.resolve(q) == DOC_7[:10]
    # label and nominal are optional; unknown fields are ignored
    minimal = {k: obj[k] for k in ("handle", "start", "end", "span_digest", "source_digest")}
    assert Pointer.from_json({**minimal, "x-extra": [1]}) == dataclasses.replace(p, label=None)


# ---------------------------------------------------------------------- failing closed


def test_pointer_reanchored_onto_a_summary_fails_with_span_mismatch(store):
    """The seed's failure: offsets recomputed against the summary, label kept."""
    start, end = _byte_span_of(DOC_7, "retries=3")
    original = store.pointer("doc:doc_7", start, end, label="doc_7#L2")
    s_start, s_end = _byte_span_of(SUMMARY, "retries=3 and 30 s timeouts")
    # (a) the compactor re-derived offsets and re-hashed the summary's bytes
    rehashed = dataclasses.replace(
        original, start=s_start, end=s_end, span_digest=compute_digest(SUMMARY.encode()[s_start:s_end])
    )
    # (b) it re-derived offsets but kept the old span digest
    shifted = dataclasses.replace(original, start=s_start, end=s_start + (end - start))
    for p in (rehashed, shifted):
        assert p.end <= len(DOC_7.encode())  # in range: only the digest can catch it
        assert _reason(store, p) == "span_mismatch"
    # What the unchecked resolver of the seed would have returned instead:
    assert DOC_7.encode()[s_start:s_end] != SUMMARY.encode()[s_start:s_end]


def test_pointer_to_changed_source_fails_with_source_changed(tmp_path):
    with SourceStore(":memory:") as old, SourceStore(tmp_path / "new.sqlite3") as new:
        old.put("tool:call_8841", "retries=3\ntimeout=30\n")
        new.put("tool:call_8841", "retries=3\ntimeout=60\n")  # same handle, other content
        p = old.pointer("tool:call_8841", 0, 9)
        assert new.get("tool:call_8841")[:9] == "retries=3"  # the span itself still matches
        assert _reason(new, p) == "source_changed"
        assert old.resolve(p) == "retries=3"


def test_pointer_with_summary_as_source_digest_fails_with_source_changed(store):
    p = store.pointer("doc:doc_7", 0, 10)
    forged = dataclasses.replace(p, source_digest=compute_digest(SUMMARY.encode()))
    assert _reason(store, forged) == "source_changed"


def test_out_of_range(store):
    size = len(DOC_7.encode())
    p = store.pointer("doc:doc_7", size - 5, size)
    assert _reason(store, dataclasses.replace(p, end=size + 1)) == "out_of_range"
    assert _reason(store, dataclasses.replace(p, start=size + 10, end=size + 20)) == "out_of_range"


def test_unknown_handle(store):
    p = store.pointer("doc:doc_7", 0, 10)
    assert _reason(store, dataclasses.replace(p, handle="doc:doc_8")) == "unknown_handle"


def test_nominal_pointer_never_resolves(store):
    p = store.pointer("doc:doc_7", 0, 10)
    nominal = dataclasses.replace(p, nominal=True)
    assert _reason(store, nominal) == "nominal"
    with pytest.raises(ProvenanceResolutionError) as info:
        store.resolve_bytes(nominal)
    assert info.value.reason == "nominal"
    assert Pointer.from_json(nominal.to_json()).nominal is True
    assert store.resolve(p) == DOC_7[:10]  # the same pointer, not nominal, is fine


def test_a_pointer_into_a_derived_text_is_nominal(store):
    """A source stored with kind DERIVED_KIND holds a summary's words (compact() stores them as
    it evicts the summary): a pointer made into it is nominal, and one that says it is not is
    refused as nominal all the same (red team 89, F03: it resolved to the summary's words)."""
    store.put("block:summary", "The client retries 3 times.", kind=DERIVED_KIND)
    made = store.pointer("block:summary", 4, 10)
    assert made.nominal and _reason(store, made) == "nominal"
    assert store.pointer_from_str_indices("block:summary", 4, 10).nominal
    claimed = dataclasses.replace(made, nominal=False)
    with pytest.raises(ProvenanceResolutionError, match="derived text") as info:
        store.resolve(claimed)
    assert info.value.reason == "nominal"
    # the same words stored as an original source resolve
    store.put("block:turn", "The client retries 3 times.", kind="window_block")
    assert store.resolve(store.pointer("block:turn", 4, 10)) == "client"


def test_reasons_are_checked_in_the_documented_order(store):
    p = store.pointer("doc:doc_7", 0, 10)
    # every defect at once: nominal wins, then unknown handle, then source, range, span
    bad = dataclasses.replace(p, handle="doc:nope", source_digest=compute_digest(b"x"), end=10**6, nominal=True)
    assert _reason(store, bad) == "nominal"
    assert _reason(store, dataclasses.replace(bad, nominal=False)) == "unknown_handle"
    assert _reason(store, dataclasses.replace(bad, nominal=False, handle="doc:doc_7")) == "source_changed"
    assert _reason(store, dataclasses.replace(p, end=10**6)) == "out_of_range"


def test_corrupted_source_raises_corruption_not_a_plausible_span(tmp_path):
    path = tmp_path / "s.sqlite3"
    with SourceStore(path) as s:
        s.put("doc:doc_7", "MARKER-P-" + DOC_7)
        p = s.pointer("doc:doc_7", 9, 30)
    flip_byte_after(path, b"MARKER-P-", skip=12)
    with SourceStore(path) as s:
        with pytest.raises(StoreCorruptionError):
            s.resolve(p)


def test_resolution_compares_digests_in_constant_time(store, monkeypatch):
    calls = []
    real = hmac.compare_digest
    monkeypatch.setattr(hmac, "compare_digest", lambda a, b: calls.append(1) or real(a, b))
    p = store.pointer("doc:doc_7", 0, 10)
    store.resolve(p)
    assert len(calls) >= 3  # stored body, source digest, span digest


def test_there_is_no_way_to_resolve_against_a_caller_buffer():
    for method in (SourceStore.resolve, SourceStore.resolve_bytes):
        assert list(inspect.signature(method).parameters) == ["self", "pointer"]


# ---------------------------------------------------------------------- sha256 interop


def test_sha256_pointer(store):
    start, end = _byte_span_of(DOC_7, "https://api.example.com/v2")
    p = store.pointer("doc:doc_7", start, end, algorithm="sha256")
    assert p.span_digest == "sha256:" + hashlib.sha256(b"https://api.example.com/v2").hexdigest()
    assert p.source_digest == "sha256:" + hashlib.sha256(DOC_7.encode()).hexdigest()
    assert store.resolve(p) == "https://api.example.com/v2"
    assert _reason(store, dataclasses.replace(p, start=start + 1, end=end + 1)) == "span_mismatch"
    assert _reason(store, dataclasses.replace(p, source_digest="sha256:" + "0" * 64)) == "source_changed"


def test_pointer_built_by_another_tool_with_hashlib_resolves(store):
    """A seed-style pointer: sha256 of the span bytes, sha256 of the source, byte offsets."""
    data = DOC_7.encode()
    start, end = _byte_span_of(DOC_7, "retries=3")
    obj = {
        "handle": "doc:doc_7",
        "start": start,
        "end": end,
        "span_digest": "sha256:" + hashlib.sha256(data[start:end]).hexdigest(),
        "source_digest": "sha256:" + hashlib.sha256(data).hexdigest(),
        "label": "doc_7#L2",
    }
    assert store.resolve(Pointer.from_json(obj)) == "retries=3"
    mixed = {**obj, "source_digest": compute_digest(data)}  # blake3 source, sha256 span
    assert store.resolve(Pointer.from_json(mixed)) == "retries=3"


def test_algorithm_must_be_supported(store):
    with pytest.raises(Exception) as info:
        store.pointer("doc:doc_7", 0, 5, algorithm="md5")
    assert "unsupported" in str(info.value)


# ---------------------------------------------------------------------- bad spans


@pytest.mark.parametrize(
    ("start", "end", "complaint"),
    [
        (-1, 5, "negative"),
        (5, 5, "empty"),
        (6, 5, "empty or inverted"),
        (0, 10**6, "beyond the source"),
        (1.0, 5, "must be an int"),
        (0, "5", "must be an int"),
        (True, 5, "must be an int"),
        (None, 5, "must be an int"),
        pytest.param(0, 10**5000, "larger than 2", id="5000-digits"),  # red team 26, w04: a bare ValueError
    ],
)
def test_bad_offsets_raise_span_error(store, start, end, complaint):
    with pytest.raises(SpanError, match=complaint):
        store.pointer("doc:doc_7", start, end)


def test_offsets_inside_a_character_are_refused(store):
    data = DOC_7.encode()
    e_acute = data.index("é".encode())
    with pytest.raises(SpanError, match="start .* inside a UTF-8 character"):
        store.pointer("doc:doc_7", e_acute + 1, e_acute + 5)
    with pytest.raises(SpanError, match="end .* inside a UTF-8 character"):
        store.pointer("doc:doc_7", e_acute - 3, e_acute + 1)


def test_str_indices_out_of_range(store):
    with pytest.raises(SpanError, match="str span"):
        store.pointer_from_str_indices("doc:doc_7", 0, len(DOC_7) + 1)
    with pytest.raises(SpanError):
        store.pointer_from_str_indices("doc:doc_7", 3, 3)


def test_numpy_integer_offsets_are_accepted(store):
    import numpy as np  # a run-time dependency: always there
    p = store.pointer("doc:doc_7", np.int64(0), np.uint32(10))
    assert type(p.start) is int and type(p.end) is int
    assert store.resolve(p) == DOC_7[:10]


def test_verified_span_cut_inside_a_character(store):
    """A foreign tool hashed bytes cut inside a character: the bytes are verified, but they
    are not text; resolve_bytes returns them and resolve() says why it cannot."""
    data = DOC_7.encode()
    e_acute = data.index("é".encode())
    p = Pointer(
        handle="doc:doc_7",
        start=e_acute - 2,
        end=e_acute + 1,
        span_digest=compute_digest(data[e_acute - 2 : e_acute + 1]),
        source_digest=compute_digest(data),
    )
    assert store.resolve_bytes(p) == data[e_acute - 2 : e_acute + 1]
    with pytest.raises(SpanError, match="resolve_bytes"):
        store.resolve(p)


# ---------------------------------------------------------------------- malformed pointers


def _valid_json(store) -> dict:
    return store.pointer("doc:doc_7", 0, 10, label="L").to_json()


@pytest.mark.parametrize("field", ["handle", "start", "end", "span_digest", "source_digest"])
def test_from_json_missing_field(store, field):
    obj = _valid_json(store)
    del obj[field]
    with pytest.raises(PointerFormatError, match=f"'{field}' is missing") as info:
        Pointer.from_json(obj)
    assert info.value.field == field
    assert isinstance(info.value, EditFormatError)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("handle", 7),
        ("handle", ""),
        ("handle", "doc:\x00"),
        ("start", "0"),
        ("start", 0.0),
        ("start", None),
        ("start", -1),
        ("end", 0),
        ("end", False),
        pytest.param("end", 10**5000, id="end-5000-digits"),  # red team 26, w04: resolve() raised a bare ValueError
        ("start", 1 << 63),
        ("span_digest", "blake3:zz"),
        ("span_digest", None),
        ("source_digest", "md5:" + "0" * 32),
        ("source_digest", "sha256:" + "A" * 64),
        ("label", 3),
        ("label", "x" * 2000),
        ("nominal", "false"),
        ("nominal", None),
        ("nominal", 0),
    ],
)
def test_from_json_wrong_field(store, field, value):
    obj = {**_valid_json(store), field: value}
    with pytest.raises(PointerFormatError) as info:
        Pointer.from_json(obj)
    assert info.value.field == field
    assert field in str(info.value)


@pytest.mark.parametrize("obj", [None, [], "pointer", 3, b"{}"])
def test_from_json_not_an_object(obj):
    with pytest.raises(PointerFormatError, match="JSON object"):
        Pointer.from_json(obj)


def test_direct_construction_is_validated_too():
    d = compute_digest(b"x")
    with pytest.raises(PointerFormatError) as info:
        Pointer(handle="doc:a", start=0, end=1, span_digest="nope", source_digest=d)
    assert info.value.field == "span_digest"


def test_resolve_takes_only_pointers(store):
    with pytest.raises(PointerFormatError, match="Pointer.from_json"):
        store.resolve(_valid_json(store))


# ---------------------------------------------------------------------- offset helpers


def test_offset_helpers_on_a_known_text():
    text = "a€b𝄞c"  # 1 + 3 + 1 + 4 + 1 bytes
    data = text.encode()
    assert [str_index_to_byte_offset(text, i) for i in range(len(text) + 1)] == [0, 1, 4, 5, 9, 10]
    assert [byte_offset_to_str_index(data, b) for b in (0, 1, 4, 5, 9, 10)] == [0, 1, 2, 3, 4, 5]
    assert [is_char_boundary(data, b) for b in range(len(data) + 1)] == [
        True, True, False, False, True, True, False, False, False, True, True,
    ]
    with pytest.raises(SpanError, match="inside a UTF-8 character"):
        byte_offset_to_str_index(data, 2)
    with pytest.raises(SpanError):
        str_index_to_byte_offset(text, 6)
    with pytest.raises(SpanError):
        byte_offset_to_str_index(data, -1)
    with pytest.raises(InvalidContentError):
        str_span_to_byte_span("a\ud800b", 0, 3)
    with pytest.raises(SpanError):
        check_byte_span(data, 0, 11)


@given(st.text(min_size=1, max_size=200), st.data())
def test_span_conversions_round_trip(text, data):
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    encoded = text.encode()
    b_start, b_end = str_span_to_byte_span(text, start, end)
    assert encoded[b_start:b_end] == text[start:end].encode()
    check_byte_span(encoded, b_start, b_end)
    assert byte_span_to_str_span(encoded, b_start, b_end) == (start, end)
    assert str_index_to_byte_offset(text, start) == b_start
    assert byte_offset_to_str_index(encoded, b_end) == end


@given(st.text(min_size=1, max_size=120), st.data())
def test_store_pointers_resolve_for_any_text(text, data):
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    with SourceStore(":memory:") as s:
        s.put("doc:any", text)
        p = s.pointer_from_str_indices("doc:any", start, end, algorithm=data.draw(st.sampled_from(["blake3", "sha256"])))
        assert s.resolve(p) == text[start:end]
        assert s.resolve(Pointer.from_json(json.loads(json.dumps(p.to_json())))) == text[start:end]
