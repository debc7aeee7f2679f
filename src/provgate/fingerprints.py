"""Sets and multisets of 128-bit fact fingerprints, on top of the native sort and merge-diff.

Fingerprints are ``(n, 2)`` uint64 arrays, column 0 the high word and column 1 the low word,
as in :class:`provgate.facts.FactTable`. Equality is always on both words: the high word alone
is a pre-filter, never a verdict, so a changed fact cannot hide behind a 64-bit collision.
"""

from __future__ import annotations

import numpy as np

from provgate._factdiff import SortedFingerprints, diff_sorted, sort_fingerprints, unique_counts

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

    def lookup(self, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each query row: whether it is in the set, and its count (0 when absent)."""
        queries = as_fingerprints(queries)
        n = queries.shape[0]
        present = np.zeros(n, dtype=bool)
        counts = np.zeros(n, dtype=np.int64)
        if n == 0 or len(self) == 0:
            return present, counts
        order = sort_fingerprints(queries)
        _, _, common_q, common_s = diff_sorted(np.ascontiguousarray(queries[order]), self.values)
        hit = order[common_q]
        present[hit] = True
        counts[hit] = self.counts[common_s]
        return present, counts

    def contains(self, queries: np.ndarray) -> np.ndarray:
        return self.lookup(queries)[0]

    def match(self, other: FingerprintSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Against another set, by value index: (only here, common here, common there)."""
        only, _, common_here, common_there = diff_sorted(self.values, other.values)
        return only, common_here, common_there


def union(sets: list[FingerprintSet]) -> FingerprintSet:
    if not sets:
        return FingerprintSet(EMPTY)
    if len(sets) == 1:
        return sets[0]
    return FingerprintSet(np.concatenate([s.values for s in sets]))
