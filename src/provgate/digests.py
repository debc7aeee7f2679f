"""Algorithm-prefixed content digests: ``"blake3:<64 hex>"`` and ``"sha256:<64 hex>"``.

BLAKE3 is provgate's native algorithm; SHA-256 is accepted so that pointers made by other
tools (the seed's guard uses ``hashlib.sha256``) can be checked too. The textual form is
canonical: the algorithm name in lower case, one colon, exactly 64 lower-case hex digits.
Anything else is rejected by :func:`parse_digest` rather than normalised, so two digest strings
are equal exactly when the digests are.

Comparisons go through :func:`hmac.compare_digest` on the raw 32 bytes, so the time they take
does not reveal how long a prefix of a guessed digest was right.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import Any

from blake3 import blake3

from provgate.errors import InvalidDigestError

BLAKE3 = "blake3"
SHA256 = "sha256"
NATIVE_ALGORITHM = BLAKE3
ALGORITHMS: tuple[str, ...] = (BLAKE3, SHA256)
DIGEST_SIZE = 32
HEX_LENGTH = 2 * DIGEST_SIZE

# re.ASCII and fullmatch: \d-style Unicode digits and a trailing newline must not slip through.
_HEX64 = re.compile(r"[0-9a-f]{64}", re.ASCII)


def parse_digest(digest: Any) -> tuple[str, bytes]:
    """Split a digest string into ``(algorithm, raw 32 bytes)``; strict.

    Raises :class:`InvalidDigestError` saying what is wrong: not a ``str``, no ``:``, an
    unsupported algorithm, wrong length, upper-case or non-hex digits.
    """
    if not isinstance(digest, str):
        raise InvalidDigestError(f"a digest must be a str like 'blake3:<64 hex>', not {type(digest).__name__}")
    algorithm, sep, hexpart = digest.partition(":")
    if not sep:
        raise InvalidDigestError(f"digest {_shorten(digest)!r} lacks the algorithm prefix ('blake3:' or 'sha256:')")
    if algorithm not in ALGORITHMS:
        raise InvalidDigestError(
            f"digest {_shorten(digest)!r} names unsupported algorithm {_shorten(algorithm)!r}; "
            f"supported: {', '.join(ALGORITHMS)}"
        )
    if len(hexpart) != HEX_LENGTH:
        raise InvalidDigestError(
            f"digest {_shorten(digest)!r} has {len(hexpart)} hex digits after '{algorithm}:', expected {HEX_LENGTH}"
        )
    # fromhex then hex is the canonical round trip (a pointer per cited span is parsed on every
    # check, and this is several times faster than the regex, which now only names the error)
    try:
        raw = bytes.fromhex(hexpart)
    except ValueError:
        raw = b""
    if raw.hex() != hexpart:  # also refuses upper case and the whitespace fromhex skips
        if _HEX64.fullmatch(hexpart.lower()) is not None:
            raise InvalidDigestError(f"digest {_shorten(digest)!r} must use lower-case hex digits")
        raise InvalidDigestError(f"digest {_shorten(digest)!r} contains a character that is not a hex digit")
    return algorithm, raw


def format_digest(algorithm: str, raw: bytes) -> str:
    """The canonical string of a raw 32-byte digest."""
    _check_algorithm(algorithm)
    if not isinstance(raw, (bytes, bytearray, memoryview)):
        raise InvalidDigestError(f"a raw digest must be bytes, not {type(raw).__name__}")
    raw = bytes(raw)
    if len(raw) != DIGEST_SIZE:
        raise InvalidDigestError(f"a raw digest must be {DIGEST_SIZE} bytes, got {len(raw)}")
    return f"{algorithm}:{raw.hex()}"


def compute_raw(data: Any, algorithm: str = NATIVE_ALGORITHM) -> bytes:
    """The raw 32-byte digest of a bytes-like object."""
    _check_algorithm(algorithm)
    if isinstance(data, str) or not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(
            f"data must be bytes, bytearray or memoryview, not {type(data).__name__}"
            + (" (encode it as UTF-8 first)" if isinstance(data, str) else "")
        )
    if algorithm == BLAKE3:
        return blake3(data).digest()
    return hashlib.sha256(data).digest()


def compute_digest(data: Any, algorithm: str = NATIVE_ALGORITHM) -> str:
    """The canonical digest string of a bytes-like object, e.g. ``"blake3:af13…"``."""
    return f"{algorithm}:{compute_raw(data, algorithm).hex()}"


def digests_equal(a: str, b: str) -> bool:
    """Whether two digest strings name the same digest; constant time in the digest bytes.

    Both must be well formed (else :class:`InvalidDigestError`). Digests of different
    algorithms are never equal.
    """
    alg_a, raw_a = parse_digest(a)
    alg_b, raw_b = parse_digest(b)
    same_bytes = hmac.compare_digest(raw_a, raw_b)
    return same_bytes and alg_a == alg_b


def digest_matches(data: Any, expected: str) -> bool:
    """Whether ``data`` hashes to ``expected`` under ``expected``'s algorithm; constant time."""
    algorithm, raw = parse_digest(expected)
    return hmac.compare_digest(compute_raw(data, algorithm), raw)


def _check_algorithm(algorithm: Any) -> None:
    if not isinstance(algorithm, str) or algorithm not in ALGORITHMS:
        raise InvalidDigestError(f"unsupported digest algorithm {algorithm!r}; supported: {', '.join(ALGORITHMS)}")


def _shorten(text: str, limit: int = 90) -> str:
    # Error messages quote the offending value, but a multi-megabyte "digest" must not be echoed whole.
    return text if len(text) <= limit else text[:limit] + "…"


__all__ = [
    "ALGORITHMS",
    "BLAKE3",
    "DIGEST_SIZE",
    "NATIVE_ALGORITHM",
    "SHA256",
    "compute_digest",
    "compute_raw",
    "digest_matches",
    "digests_equal",
    "format_digest",
    "parse_digest",
]
