"""Multisets of 128-bit fact fingerprints, on top of the native sort and look-ups.

Fingerprints are ``(n, 2)`` uint64 arrays, column 0 the high word and column 1 the low word,
as in :class:`provgate.facts.FactTable`. Equality is always on both words: the high word alone
is a pre-filter, never a verdict, so a changed fact cannot hide behind a 64-bit collision.
"""

from __future__ import annotations

import numpy as np

from provgate._factdiff import SortedFingerprints, unique_counts

EMPTY = np.empty((0, 2), dtype=np.uint64)


def as_fingerprints(fp: np.ndarray) -> np.ndarray:
    fp = np.ascontiguousarray(fp, dtype=np.uint64)
    if fp.ndim != 2 or fp.shape[1] != 2:
        raise ValueError(f"fingerprints must have shape (n, 2), got {fp.shape}")
    return fp


class FingerprintSet:
    """The distinct fingerprints of an array, sorted, with how often each occurred."""

    __slots__ = ("values", "counts", "_index")

    def __init__(self, fp: np.ndarray) -> None:
        self.values, self.counts = unique_counts(as_fingerprints(fp))
        self._index: SortedFingerprints | None = None

    @classmethod
    def of_sorted(cls, values: np.ndarray, counts: np.ndarray) -> FingerprintSet:
        """A set from values already sorted and distinct (a slice of another set)."""
        out = cls.__new__(cls)
        out.values = np.ascontiguousarray(values)
        out.counts = counts
        out._index = None
        return out

    def index(self) -> SortedFingerprints:
        """The values as a vetted, indexed set (made once): :func:`positions` places rows of
        other arrays among them (a fact's distinct value, and so its count)."""
        if self._index is None:
            self._index = SortedFingerprints(self.values)
        return self._index

    def __len__(self) -> int:
        return int(self.values.shape[0])
