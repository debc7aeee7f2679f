"""Algorithm-prefixed digests: strict parsing, computing, constant-time comparison."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest
from blake3 import blake3
from hypothesis import given
from hypothesis import strategies as st

from provgate import digests
from provgate.digests import (
    compute_digest,
    compute_raw,
    digest_matches,
    digests_equal,
    format_digest,
    parse_digest,
)
from provgate.errors import InvalidDigestError

HEX_A = "a" * 64


def test_blake3_matches_every_official_vector(testdata):
    cases = json.loads((testdata / "blake3" / "test_vectors.json").read_text())["cases"]
    assert len(cases) == 35
    for case in cases:
        data = bytes(i % 251 for i in range(case["input_len"]))
        assert compute_digest(data) == "blake3:" + case["hash"][:64], case["input_len"]


def test_sha256_known_answers():
    # FIPS 180-2 example "abc" and the empty message.
    assert compute_digest(b"abc", "sha256") == (
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
    assert compute_digest(b"", "sha256") == (
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )


def test_compute_accepts_every_bytes_like():
    expected = compute_digest(b"retries=3")
    assert compute_digest(bytearray(b"retries=3")) == expected
    assert compute_digest(memoryview(b"xretries=3x")[1:-1]) == expected
    assert compute_raw(b"retries=3") == bytes.fromhex(expected.split(":")[1])


@pytest.mark.parametrize("bad", ["retries=3", 42, None, [1, 2]])
def test_compute_rejects_non_bytes(bad):
    with pytest.raises(TypeError, match="bytes"):
        compute_digest(bad)


@pytest.mark.parametrize("algorithm", ["md5", "BLAKE3", "sha-256", "", None, 3])
def test_compute_rejects_unknown_algorithms(algorithm):
    with pytest.raises(InvalidDigestError, match="unsupported digest algorithm"):
        compute_digest(b"x", algorithm)


def test_parse_and_format_round_trip():
    raw = bytes(range(32))
    for algorithm in digests.ALGORITHMS:
        text = format_digest(algorithm, raw)
        assert text == f"{algorithm}:{raw.hex()}"
        assert parse_digest(text) == (algorithm, raw)


@pytest.mark.parametrize(
    ("bad", "complaint"),
    [
        (None, "must be a str"),
        (b"blake3:" + b"a" * 64, "must be a str"),
        ("", "lacks the algorithm prefix"),
        (HEX_A, "lacks the algorithm prefix"),
        ("md5:" + HEX_A, "unsupported algorithm"),
        ("BLAKE3:" + HEX_A, "unsupported algorithm"),
        (" blake3:" + HEX_A, "unsupported algorithm"),
        ("blake3:" + "a" * 63, "has 63 hex digits"),
        ("blake3:" + "a" * 65, "has 65 hex digits"),
        ("blake3:" + HEX_A + "\n", "has 65 hex digits"),
        ("blake3:", "has 0 hex digits"),
        ("blake3:" + "A" * 64, "lower-case"),
        ("sha256:" + "g" * 64, "not a hex digit"),
        ("blake3:" + "a" * 62 + " a", "not a hex digit"),
        ("blake3:" + "\u0661" * 64, "not a hex digit"),  # Arabic-Indic digit one
        ("blake3::" + "a" * 63, "not a hex digit"),
    ],
)
def test_parse_rejects_malformed_digests_saying_why(bad, complaint):
    with pytest.raises(InvalidDigestError, match=complaint):
        parse_digest(bad)


def test_parse_error_does_not_echo_huge_input():
    with pytest.raises(InvalidDigestError) as info:
        parse_digest("blake3:" + "a" * 100_000)
    assert len(str(info.value)) < 400


@pytest.mark.parametrize(("algorithm", "raw"), [("blake3", b"\x00" * 31), ("blake3", "00" * 32), ("crc32", b"\x00" * 32)])
def test_format_rejects_bad_parts(algorithm, raw):
    with pytest.raises(InvalidDigestError):
        format_digest(algorithm, raw)


def test_digests_equal():
    a = compute_digest(b"retries=3")
    b = compute_digest(b"retries=5")
    assert digests_equal(a, a)
    assert not digests_equal(a, b)
    # Same 32 bytes under another algorithm name is a different digest.
    assert not digests_equal(a, "sha256:" + a.split(":")[1])
    with pytest.raises(InvalidDigestError):
        digests_equal(a, "blake3:xyz")


def test_digest_matches_uses_the_expected_digests_algorithm():
    assert digest_matches(b"abc", compute_digest(b"abc", "sha256"))
    assert digest_matches(b"abc", compute_digest(b"abc"))
    assert not digest_matches(b"abd", compute_digest(b"abc", "sha256"))
    assert not digest_matches(b"abd", compute_digest(b"abc"))


def test_comparisons_go_through_compare_digest(monkeypatch):
    calls = []
    real = hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    d = compute_digest(b"x")
    assert digests_equal(d, d)
    assert digest_matches(b"x", d)
    assert len(calls) == 2
    assert all(isinstance(a, bytes) and len(a) == 32 for a, _ in calls)


@given(st.binary(max_size=4096))
def test_compute_agrees_with_the_libraries(data):
    assert compute_digest(data) == "blake3:" + blake3(data).hexdigest()
    assert compute_digest(data, "sha256") == "sha256:" + hashlib.sha256(data).hexdigest()
    algorithm, raw = parse_digest(compute_digest(data))
    assert (algorithm, raw) == ("blake3", blake3(data).digest())
