"""Fact-table diffing (hot path 3): sort and merge-diff of 128-bit fingerprint arrays.

Every test runs on the native module and on the reference. Results are checked against
properties that define them (a partition of the indices, pairs of equal rows, first index of
a run) and numpy's own stable lexsort, and native is compared with reference on generated
arrays full of duplicates, equal high words and extreme values.
"""

from __future__ import annotations

import re
import subprocess
import sys

from functools import partial
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples
from conftest import IMPLEMENTATIONS, NO_EXTENSIONS, load_implementation
from reconstruct_helpers import observed_while_running
from provgate import _factdiff
from provgate.errors import InvalidArgumentError

U64_MAX = 2**64 - 1


def _load(which: str):
    return load_implementation("factdiff", "_factdiff_py", which)


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    return _load(request.param)


def _only_with_native(test):
    return test if "native" in IMPLEMENTATIONS else None


def fp(rows) -> np.ndarray:
    return np.array(rows, dtype=np.uint64).reshape(-1, 2)


def lexsorted(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a[np.lexsort((a[:, 1], a[:, 0]))])


def check_diff_properties(a: np.ndarray, b: np.ndarray, result) -> None:
    """What diff_sorted and diff promise, checked from first principles."""
    only_a, only_b, common_a, common_b = result
    for arr in result:
        assert arr.dtype == np.int64 and arr.ndim == 1
    rows_a = [tuple(r) for r in a.tolist()]
    rows_b = [tuple(r) for r in b.tolist()]
    first_b: dict = {}
    for j, r in enumerate(rows_b):
        first_b.setdefault(r, j)
    set_a = set(rows_a)
    assert only_a.tolist() == [i for i, r in enumerate(rows_a) if r not in first_b]
    assert only_b.tolist() == [j for j, r in enumerate(rows_b) if r not in set_a]
    assert common_a.tolist() == [i for i, r in enumerate(rows_a) if r in first_b]
    assert common_b.tolist() == [first_b[rows_a[i]] for i in common_a.tolist()]
    assert len(only_a) + len(common_a) == len(a)
    if len(common_a):
        assert np.array_equal(a[common_a], b[common_b])


# ---- generated fingerprint arrays ----------------------------------------------------------

WORDS = st.sampled_from([0, 1, 2, 3, 2**63 - 1, 2**63, U64_MAX - 1, U64_MAX])


@st.composite
def fingerprint_arrays(draw, max_rows: int = 40):
    """Arrays drawn from a small pool of rows, so duplicates, shared rows between two arrays
    and rows with equal high words but different low words are frequent."""
    pool_size = draw(st.integers(1, 10))
    hi_pool = draw(st.lists(st.one_of(WORDS, st.integers(0, U64_MAX)), min_size=1, max_size=4))
    pool = [
        (draw(st.sampled_from(hi_pool)), draw(st.one_of(WORDS, st.integers(0, U64_MAX))))
        for _ in range(pool_size)
    ]
    rows_a = draw(st.lists(st.sampled_from(pool), max_size=max_rows))
    rows_b = draw(st.lists(st.sampled_from(pool), max_size=max_rows))
    return fp(rows_a), fp(rows_b)


SETTINGS = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(pair=fingerprint_arrays())
def test_sort_is_stable_lexicographic(impl, pair):
    a, _ = pair
    order = impl.sort_fingerprints(a)
    assert order.dtype == np.int64
    # numpy's lexsort is stable: equal rows keep their original order
    assert order.tolist() == np.lexsort((a[:, 1], a[:, 0])).tolist()


@SETTINGS
@given(pair=fingerprint_arrays())
def test_diff_sorted_properties(impl, pair):
    a, b = lexsorted(pair[0]), lexsorted(pair[1])
    check_diff_properties(a, b, impl.diff_sorted(a, b))


@SETTINGS
@given(pair=fingerprint_arrays())
def test_diff_unsorted_properties(impl, pair):
    a, b = pair
    check_diff_properties(a, b, impl.diff(a, b))


@_only_with_native
@settings(max_examples=examples(500), deadline=None)
@given(pair=fingerprint_arrays(max_rows=80))
def test_native_equals_reference(pair):
    native, reference = _load("native"), _load("reference")
    a, b = pair
    assert np.array_equal(native.sort_fingerprints(a), reference.sort_fingerprints(a))
    for x, y in zip(native.diff(a, b), reference.diff(a, b)):
        assert np.array_equal(x, y)
    sa, sb = lexsorted(a), lexsorted(b)
    for x, y in zip(native.diff_sorted(sa, sb), reference.diff_sorted(sa, sb)):
        assert np.array_equal(x, y)


@st.composite
def distinct_then_anomaly(draw, max_rows: int = 60):
    """Two sorted arrays whose high words strictly increase (the native merge's fast path),
    sharing some rows; sometimes one anomaly at a drawn place makes that path give up late:
    a repeated row, a row sharing its high word with its neighbour, a row of the other array
    with the same high word but another low word, or a high word of 0."""
    his = draw(st.lists(st.integers(1, U64_MAX), unique=True, max_size=2 * max_rows))
    rows = [(h, draw(st.integers(0, U64_MAX))) for h in his]
    in_a = draw(st.lists(st.booleans(), min_size=len(rows), max_size=len(rows)))
    in_b = draw(st.lists(st.booleans(), min_size=len(rows), max_size=len(rows)))
    rows_a = sorted(r for r, x in zip(rows, in_a) if x)
    rows_b = sorted(r for r, x in zip(rows, in_b) if x)
    anomaly = draw(st.sampled_from(["none", "repeat", "shared_high", "cross_low", "zero_high"]))
    target, other = (rows_a, rows_b) if draw(st.booleans()) else (rows_b, rows_a)
    if anomaly != "none" and target:
        k = draw(st.integers(0, len(target) - 1))
        if anomaly == "repeat":
            target.insert(k, target[k])
        elif anomaly == "shared_high":
            h, lo = target[k]
            target.insert(k + 1, (h, lo + 1) if lo < U64_MAX else (h, lo))
        elif anomaly == "cross_low":
            h, lo = target[k]
            other[:] = sorted([r for r in other if r[0] != h] + [(h, lo ^ 1)])
        else:
            target.insert(0, (0, draw(st.integers(0, U64_MAX))))
    return fp(rows_a), fp(rows_b)


@SETTINGS
@given(pair=distinct_then_anomaly())
def test_diff_sorted_distinct_and_late_anomalies(impl, pair):
    a, b = pair
    check_diff_properties(a, b, impl.diff_sorted(a, b))


@_only_with_native
@settings(max_examples=examples(500), deadline=None)
@given(pair=distinct_then_anomaly())
def test_native_fast_merge_equals_reference(pair):
    native, reference = _load("native"), _load("reference")
    a, b = pair
    for x, y in zip(native.diff_sorted(a, b), reference.diff_sorted(a, b)):
        assert np.array_equal(x, y)


# ---- fixed cases ------------------------------------------------------------------------------


def test_empty_inputs(impl):
    empty = fp([])
    some = fp([[1, 2], [3, 4]])
    assert impl.sort_fingerprints(empty).tolist() == []
    only_a, only_b, ca, cb = impl.diff_sorted(empty, empty)
    assert [x.tolist() for x in (only_a, only_b, ca, cb)] == [[], [], [], []]
    only_a, only_b, ca, cb = impl.diff_sorted(some, empty)
    assert (only_a.tolist(), only_b.tolist(), ca.tolist(), cb.tolist()) == ([0, 1], [], [], [])
    only_a, only_b, ca, cb = impl.diff(empty, some)
    assert (only_a.tolist(), only_b.tolist(), ca.tolist(), cb.tolist()) == ([], [0, 1], [], [])


def test_equal_high_words_differ_in_low_word(impl):
    # a changed fact must not hide behind its high word
    a = fp([[7, 1], [7, 2], [7, 3]])
    b = fp([[7, 2], [7, 4]])
    only_a, only_b, ca, cb = impl.diff_sorted(a, b)
    assert only_a.tolist() == [0, 2] and only_b.tolist() == [1]
    assert ca.tolist() == [1] and cb.tolist() == [0]


def test_duplicates_pair_with_the_first_equal_row(impl):
    a = fp([[1, 1], [5, 5], [5, 5], [5, 5], [9, 9]])
    b = fp([[5, 5], [5, 5], [9, 9], [9, 9], [10, 0]])
    only_a, only_b, ca, cb = impl.diff_sorted(a, b)
    assert only_a.tolist() == [0]
    assert only_b.tolist() == [4]  # b's second 5 and second 9 are matched, not "only in b"
    assert ca.tolist() == [1, 2, 3, 4]
    assert cb.tolist() == [0, 0, 0, 2]


def test_all_equal_arrays(impl):
    a = fp([[3, 3]] * 50)
    b = fp([[3, 3]] * 7)
    only_a, only_b, ca, cb = impl.diff_sorted(a, b)
    assert only_a.size == 0 and only_b.size == 0
    assert ca.tolist() == list(range(50)) and cb.tolist() == [0] * 50
    assert impl.sort_fingerprints(a).tolist() == list(range(50))


def test_extreme_words_order_as_unsigned(impl):
    a = fp([[U64_MAX, 0], [0, U64_MAX], [2**63, 1], [2**63 - 1, U64_MAX], [0, 0]])
    assert impl.sort_fingerprints(a).tolist() == [4, 1, 3, 2, 0]


def test_diff_returns_original_indices(impl):
    a = fp([[9, 0], [1, 0], [5, 0], [1, 0], [7, 7]])
    b = fp([[5, 0], [2, 0], [1, 0], [5, 0], [1, 0]])
    only_a, only_b, ca, cb = impl.diff(a, b)
    assert only_a.tolist() == [0, 4]
    assert only_b.tolist() == [1]
    assert ca.tolist() == [1, 2, 3]
    assert cb.tolist() == [2, 0, 2]  # the smallest index of b holding that value


def test_large_random_overlap(impl):
    rng = np.random.default_rng(5)
    n = 20_000 if impl.IMPLEMENTATION == "native" else 3_000
    base = rng.integers(0, 2**64, size=(n + n // 10, 2), dtype=np.uint64)
    a = base[:n].copy()
    b = np.concatenate([base[: 9 * n // 10], base[n:], base[:50]])  # 50 duplicates in b
    rng.shuffle(b)
    check_diff_properties(a, b, impl.diff(a, b))
    sa, sb = a[impl.sort_fingerprints(a)], b[impl.sort_fingerprints(b)]
    only_a, only_b, ca, cb = impl.diff_sorted(sa, sb)
    assert len(only_a) == n // 10 and len(only_b) == n // 10 and len(ca) == 9 * n // 10


def test_sort_adversarial_equal_high_words(impl):
    # one giant bucket (all high words equal) and many mid-sized buckets: the merge-sort path
    rng = np.random.default_rng(9)
    n = 5_000 if impl.IMPLEMENTATION == "native" else 1_000
    a = np.empty((n, 2), dtype=np.uint64)
    a[:, 0] = 42
    a[:, 1] = rng.integers(0, 50, n, dtype=np.uint64)
    assert impl.sort_fingerprints(a).tolist() == np.lexsort((a[:, 1], a[:, 0])).tolist()
    a[:, 0] = rng.integers(0, 8, n, dtype=np.uint64) << np.uint64(61)
    assert impl.sort_fingerprints(a).tolist() == np.lexsort((a[:, 1], a[:, 0])).tolist()


def test_read_only_inputs(impl):
    a = fp([[1, 1], [2, 2]])
    b = fp([[2, 2], [3, 3]])
    a.flags.writeable = False
    b.flags.writeable = False
    assert impl.diff_sorted(a, b)[0].tolist() == [0]
    assert impl.sort_fingerprints(a).tolist() == [0, 1]


# ---- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad, exc, words",
    [
        ([[1, 2]], TypeError, "numpy array"),
        (np.array([[1, 2]], dtype=np.int64), TypeError, "uint64"),
        (np.array([[1, 2]], dtype=">u8"), TypeError, "uint64"),
        (np.array([[1.0, 2.0]]), TypeError, "uint64"),
        (np.zeros(4, dtype=np.uint64), InvalidArgumentError, "shape"),
        (np.zeros((3, 3), dtype=np.uint64), InvalidArgumentError, "shape"),
        (np.zeros((2, 2, 2), dtype=np.uint64), InvalidArgumentError, "shape"),
        (np.zeros((6, 2), dtype=np.uint64)[::2], InvalidArgumentError, "C-contiguous"),
        (np.asfortranarray(np.zeros((3, 2), dtype=np.uint64)), InvalidArgumentError, "C-contiguous"),
    ],
)
def test_bad_arrays(impl, bad, exc, words):
    good = fp([[1, 1]])
    for call in (lambda: impl.diff_sorted(bad, good), lambda: impl.sort_fingerprints(bad)):
        with pytest.raises(exc, match=words):
            call()
    with pytest.raises(exc, match=words) as info:
        impl.diff_sorted(good, bad)
    assert str(info.value).startswith("b ")


def test_diff_accepts_non_contiguous(impl):
    a = np.array([[5, 5], [0, 0], [1, 1], [0, 0]], dtype=np.uint64)[::2]  # rows (5,5), (1,1)
    b = fp([[1, 1]])
    only_a, only_b, ca, cb = impl.diff(a, b)
    assert only_a.tolist() == [0] and ca.tolist() == [1] and cb.tolist() == [0]
    with pytest.raises(TypeError):
        impl.diff(a.astype(np.int64), b)


UNSORTED_CASES = [
    # (a, b, argument reported, row reported)
    (fp([[2, 0], [1, 0]]), fp([[0, 0]]), "a", 1),
    (fp([[1, 5], [1, 4]]), fp([[1, 5]]), "a", 1),             # equal hi, low word descends
    (fp([[1, 0]]), fp([[3, 0], [2, 0]]), "b", 1),
    (fp([[0, 0], [1, 0], [2, 0], [1, 0]]), fp([[0, 0]]), "a", 3),  # in a's tail, b exhausted
    (fp([[0, 0]]), fp([[0, 0], [5, 0], [4, 0]]), "b", 2),        # in b's tail
    (fp([[1, 1], [1, 1], [0, 9]]), fp([[1, 1]]), "a", 2),        # right after a run of duplicates
    (fp([[0, 0], [9, 9], [1, 1]]), fp([[5, 5], [4, 4]]), "a", 2),  # both unsorted: a first
]


@pytest.mark.parametrize("a, b, name, row", UNSORTED_CASES)
def test_unsorted_input_is_refused(impl, a, b, name, row):
    with pytest.raises(InvalidArgumentError, match=rf"^{name} is not sorted by \(hi, lo\): row {row} ") as info:
        impl.diff_sorted(a, b)
    assert info.value.argument == name
    assert isinstance(info.value, ValueError)
    # diff sorts by itself, so the same arrays are fine there
    check_diff_properties(a, b, impl.diff(a, b))


@_only_with_native
@pytest.mark.parametrize("a, b, name, row", UNSORTED_CASES)
def test_native_errors_match_reference(a, b, name, row):
    messages = []
    for which in ("native", "reference"):
        with pytest.raises(InvalidArgumentError) as info:
            _load(which).diff_sorted(a, b)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


# ---- GIL and switch ----------------------------------------------------------------------------


@_only_with_native
def test_native_releases_the_gil():
    native = _load("native")
    rng = np.random.default_rng(1)
    a = rng.integers(0, 2**64, size=(2_000_000, 2), dtype=np.uint64)
    sa = a[native.sort_fingerprints(a)]
    assert observed_while_running(lambda: sum(range(20_000_000))) == 0
    assert observed_while_running(lambda: [native.diff_sorted(sa, sa) for _ in range(10)]) > 0
    assert observed_while_running(lambda: [native.sort_fingerprints(a) for _ in range(3)]) > 0


def test_switch_loaded_the_native_build():
    if NO_EXTENSIONS:
        assert _factdiff.IMPLEMENTATION == "reference"
        assert _factdiff.diff_sorted is _load("reference").diff_sorted
        return
    assert _factdiff.IMPLEMENTATION == "native"
    native = _load("native")
    assert (_factdiff.diff_sorted, _factdiff.diff, _factdiff.sort_fingerprints) == (
        native.diff_sorted, native.diff, native.sort_fingerprints)


# ---- distinct values, counts and multiset deltas (the gate's window fact multisets) -----------


def _multiset(a: np.ndarray) -> dict:
    out: dict = {}
    for r in a.tolist():
        out[tuple(r)] = out.get(tuple(r), 0) + 1
    return out


@SETTINGS
@given(pair=fingerprint_arrays())
def test_unique_inverse_properties(impl, pair):
    a, _ = pair
    values, counts, inverse = impl.unique_inverse(a)
    expected = _multiset(a)
    assert [tuple(r) for r in values.tolist()] == sorted(expected)  # sorted by (hi, lo), distinct
    assert counts.tolist() == [expected[k] for k in sorted(expected)]
    assert inverse.dtype == np.int64 and inverse.shape == (len(a),)
    assert np.array_equal(values[inverse], a) if len(a) else values.shape == (0, 2)
    v2, c2 = impl.unique_counts(a)
    assert np.array_equal(v2, values) and np.array_equal(c2, counts)


@SETTINGS
@given(pair=fingerprint_arrays(), data=st.data())
def test_apply_delta_is_multiset_arithmetic(impl, pair, data):
    a, b = pair
    keep = np.array(data.draw(st.lists(st.booleans(), min_size=len(a), max_size=len(a))), dtype=bool)
    v, c = impl.unique_counts(a)
    rv, rc = impl.unique_counts(np.ascontiguousarray(a[~keep]) if len(a) else a)
    av, ac = impl.unique_counts(b)
    out_v, out_c = impl.apply_delta(v, c, rv, rc, av, ac)
    expected = _multiset(np.concatenate([a[keep], b]) if len(a) or len(b) else a)
    assert [tuple(r) for r in out_v.tolist()] == sorted(expected)
    assert out_c.tolist() == [expected[k] for k in sorted(expected)]


def test_apply_delta_checks_a_removal_before_the_addition(impl):
    """Native added first, so added rows made up for removing more than values held (review
    5, e09); the reference refused."""
    values, counts = fp([(0, 0), (2, 1)]), np.array([2, 3])
    with pytest.raises(InvalidArgumentError, match="removed holds a value more often"):
        impl.apply_delta(values, counts, fp([(0, 0)]), np.array([3]), fp([(0, 0)]), np.array([2]))
    out_v, out_c = impl.apply_delta(values, counts, fp([(0, 0)]), np.array([2]), fp([(0, 0)]), np.array([2]))
    assert (out_v.tolist(), out_c.tolist()) == ([[0, 0], [2, 1]], [2, 3])


def test_apply_delta_refuses_removing_what_is_not_there(impl):
    v, c = impl.unique_counts(fp([(1, 1), (2, 2)]))
    empty_v, empty_c = impl.unique_counts(fp([]))
    with pytest.raises(InvalidArgumentError, match="removed holds a value more often"):
        impl.apply_delta(v, c, fp([(3, 3)]), np.array([1]), empty_v, empty_c)
    with pytest.raises(InvalidArgumentError, match="removed holds a value more often"):
        impl.apply_delta(v, c, fp([(1, 1)]), np.array([2]), empty_v, empty_c)
    with pytest.raises(InvalidArgumentError, match="one count per row"):
        impl.apply_delta(v, c[:1], empty_v, empty_c, empty_v, empty_c)


@pytest.mark.parametrize("which", ["values", "removed", "added"])
@pytest.mark.parametrize("rows, counts, message", [
    ([(1, 0), (1, 0)], [1, 1], "must be sorted by \\(hi, lo\\) and distinct: row 1"),
    ([(2, 0), (1, 0)], [1, 1], "must be sorted by \\(hi, lo\\) and distinct: row 1"),
    ([(1, 0), (2, 0)], [1, -1], "counts\\[1\\] is -1; a count is at least 1"),
    ([(1, 0), (2, 0)], [1, 0], "counts\\[1\\] is 0; a count is at least 1"),
    ([(1, 0), (2, 0)], [0.5, 1.0], "counts must be a 1-D sequence of integers"),
])
def test_apply_delta_takes_only_multisets_as_unique_counts_makes_them(impl, which, rows, counts, message):
    """Native merged unvetted input: duplicates came out twice, unsorted rows or a negative
    count read as a false 'removed holds a value', float counts were truncated (review 4, a05)."""
    big_v, big_c = impl.unique_counts(fp([(1, 0), (1, 0), (2, 0), (2, 0), (3, 0)]))
    empty_v, empty_c = impl.unique_counts(fp([]))
    args = {"values": (big_v, big_c), "removed": (empty_v, empty_c), "added": (empty_v, empty_c)}
    args[which] = (fp(rows), np.array(counts))
    with pytest.raises(InvalidArgumentError, match=message) as exc:
        impl.apply_delta(*args["values"], *args["removed"], *args["added"])
    assert exc.value.argument == (which if "sorted" in message else {"values": "counts"}.get(which, f"{which}_counts"))


def test_a_sorted_fingerprints_made_without_init_is_an_empty_set(impl):
    """Native dereferenced the arrays __init__ makes (SIGSEGV); pickling restored fields
    without vetting them (review 4, a09)."""
    import pickle

    blank = impl.SortedFingerprints.__new__(impl.SortedFingerprints)
    assert len(blank) == 0 and repr(blank) == "SortedFingerprints(0 rows)"
    assert impl.absent_from_all(fp([(1, 2)]), [blank]).tolist() == [True]
    full = impl.SortedFingerprints(fp([(1, 2), (3, 4)]))
    again = pickle.loads(pickle.dumps(full))
    assert type(again) is impl.SortedFingerprints and again.to_array().tolist() == [[1, 2], [3, 4]]
    assert impl.absent_from_all(fp([(3, 4), (5, 6)]), [again]).tolist() == [False, True]
    assert not hasattr(full, "__setstate_cython__")


def test_unique_and_delta_native_equal_reference():
    # with PROVGATE_NO_EXTENSIONS only the reference exists; the switch test covers that mode
    if "native" not in IMPLEMENTATIONS:
        assert NO_EXTENSIONS
        return
    native, reference = _load("native"), _load("reference")
    rng = np.random.default_rng(7)
    for _ in range(50):
        a = rng.integers(0, 5, size=(rng.integers(0, 60), 2)).astype(np.uint64)
        b = rng.integers(0, 5, size=(rng.integers(0, 60), 2)).astype(np.uint64)
        for x, y in zip(native.unique_inverse(a), reference.unique_inverse(a)):
            assert np.array_equal(x, y) and x.dtype == y.dtype
        v, c = native.unique_counts(a)
        av, ac = native.unique_counts(b)
        half = np.ascontiguousarray(a[: len(a) // 2])
        rv, rc = native.unique_counts(half)
        for x, y in zip(native.apply_delta(v, c, rv, rc, av, ac), reference.apply_delta(v, c, rv, rc, av, ac)):
            assert np.array_equal(x, y)


# ---- absent_from_all: grounding a block's facts against several sources -------------------


@st.composite
def queries_and_sets(draw):
    """Queries and up to five sorted sets drawn from one small pool (so hits, misses, repeats
    and equal high words are all frequent)."""
    a, _ = draw(fingerprint_arrays())
    n_sets = draw(st.integers(0, 5))
    sets = [lexsorted(draw(fingerprint_arrays())[0]) for _ in range(n_sets)]
    if sets and len(a):
        # some queries certainly occur in some set
        extra = a[: draw(st.integers(0, len(a)))]
        sets[0] = lexsorted(np.concatenate([sets[0], extra]))
    return a, sets


@SETTINGS
@given(case=queries_and_sets())
def test_absent_from_all_is_membership_in_no_set(impl, case):
    queries, sets = case
    out = impl.absent_from_all(queries, sets)
    assert out.dtype == np.bool_ and out.shape == (len(queries),)
    present = {r for s in sets for r in map(tuple, s.tolist())}
    assert out.tolist() == [tuple(r) not in present for r in queries.tolist()]


@_only_with_native
@settings(max_examples=examples(300), deadline=None)
@given(case=queries_and_sets())
def test_absent_from_all_native_equals_reference(case):
    queries, sets = case
    native, reference = _load("native"), _load("reference")
    assert np.array_equal(native.absent_from_all(queries, sets), reference.absent_from_all(queries, sets))


def test_absent_from_all_large_sets(impl):
    rng = np.random.default_rng(11)
    n = 20_000 if impl.IMPLEMENTATION == "native" else 2_000
    base = rng.integers(0, 2**64, size=(2 * n, 2), dtype=np.uint64)
    sets = [lexsorted(base[:n]), lexsorted(base[n // 2 : n + n // 4])]
    out = impl.absent_from_all(np.ascontiguousarray(base[::-1]), sets)
    # base reversed: rows 0 .. n + n//4 - 1 of base are in some set, the rest are not
    assert out.tolist() == [i >= n + n // 4 for i in range(2 * n - 1, -1, -1)]


def test_absent_from_all_no_sets_and_no_queries(impl):
    assert impl.absent_from_all(fp([[1, 2], [3, 4]]), []).tolist() == [True, True]
    assert impl.absent_from_all(fp([]), [fp([[1, 2]])]).tolist() == []


@pytest.mark.parametrize("sets, exc, message", [
    (fp([[1, 2]]), TypeError, "sets must be a list or tuple"),
    ([fp([[1, 2]]), [[1, 2]]], TypeError, "sets\\[1\\] must be a numpy array"),
    ([fp([[1, 2]]), np.zeros((2, 2), dtype=np.int64)], TypeError, "sets\\[1\\] must have dtype uint64"),
    ([np.zeros((2, 3), dtype=np.uint64)], InvalidArgumentError, "sets\\[0\\] must have shape"),
    ([fp([[1, 2]]), fp([[5, 0], [4, 0]])], InvalidArgumentError, "sets\\[1\\] is not sorted by \\(hi, lo\\): row 1 "),
    ([fp([[3, 0], [2, 0]]), "x"], InvalidArgumentError, "sets\\[0\\] is not sorted"),  # checked in order
])
def test_absent_from_all_refuses_bad_sets(impl, sets, exc, message):
    with pytest.raises(exc, match=message):
        impl.absent_from_all(fp([[1, 2]]), sets)


def test_absent_from_all_refuses_bad_queries(impl):
    with pytest.raises(TypeError, match="queries must be a numpy array"):
        impl.absent_from_all([[1, 2]], [])
    with pytest.raises(InvalidArgumentError, match="queries must be C-contiguous"):
        impl.absent_from_all(fp([[1, 2], [3, 4], [5, 6]])[::2], [])


@st.composite
def grouped_queries(draw):
    queries, sets = draw(queries_and_sets())
    groups = [draw(st.lists(st.integers(0, len(sets) - 1), max_size=4)) if sets else [] for _ in range(draw(st.integers(1, 4)))]
    query_group = np.array([draw(st.integers(0, len(groups) - 1)) for _ in range(len(queries))], dtype=np.int64)
    return queries, sets, groups, query_group


@SETTINGS
@given(case=grouped_queries())
def test_absent_from_all_grouped_is_the_ungrouped_call_per_group(impl, case):
    queries, sets, groups, query_group = case
    out = impl.absent_from_all(queries, sets, groups=groups, query_group=query_group)
    for i, g in enumerate(query_group.tolist()):
        alone = impl.absent_from_all(np.ascontiguousarray(queries[i:i + 1]), [sets[m] for m in groups[g]])
        assert bool(out[i]) == bool(alone[0])


@_only_with_native
@settings(max_examples=examples(300), deadline=None)
@given(case=grouped_queries())
def test_absent_from_all_grouped_native_equals_reference(case):
    queries, sets, groups, query_group = case
    native, reference = _load("native"), _load("reference")
    assert np.array_equal(native.absent_from_all(queries, sets, groups=groups, query_group=query_group),
                          reference.absent_from_all(queries, sets, groups=groups, query_group=query_group))


@pytest.mark.parametrize("groups, query_group, exc, message", [
    ([[0]], None, TypeError, "groups and query_group go together"),
    (None, np.zeros(2, dtype=np.int64), TypeError, "groups and query_group go together"),
    ((0,), np.zeros(2, dtype=np.int64), TypeError, r"groups\[0\] must be a list or tuple"),
    ([[0, True]], np.zeros(2, dtype=np.int64), TypeError, r"groups\[0\]\[1\] must be an int, not bool"),
    ([[0], [2]], np.zeros(2, dtype=np.int64), InvalidArgumentError, r"groups\[1\]\[0\] = 2 is not an index of sets \(there are 2\)"),
    ([[0], [-1]], np.zeros(2, dtype=np.int64), InvalidArgumentError, r"groups\[1\]\[0\] = -1"),
    ([[0]], [0, 0], TypeError, "query_group must be a 1-D numpy array of integers"),
    ([[0]], np.zeros(2, dtype=np.float64), TypeError, "query_group must be a 1-D numpy array of integers"),
    ([[0]], np.zeros(3, dtype=np.int64), InvalidArgumentError, "one entry per item of queries: 3 for 2"),
    ([[0]], np.array([0, 1]), InvalidArgumentError, r"query_group\[1\] = 1 is not an index of groups \(there are 1\)"),
    ([[0]], np.array([-1, 0]), InvalidArgumentError, r"query_group\[0\] = -1"),
    ([[0, 2**70]], np.zeros(2, dtype=np.int64), InvalidArgumentError, r"groups\[0\]\[1\] = 1180591620717411303424 is not"),
    ([[0], {1}], np.zeros(2, dtype=np.int64), TypeError, r"groups\[1\] must be a list or tuple of sets indices, not set"),
    ([[0]], np.zeros((2, 1), dtype=np.int64), TypeError, "query_group must be a 1-D numpy array of integers"),
])
def test_absent_from_all_refuses_bad_grouping(impl, groups, query_group, exc, message):
    with pytest.raises(exc, match=message):
        impl.absent_from_all(fp([[1, 2], [3, 4]]), [fp([[1, 2]]), fp([[3, 4]])], groups=groups, query_group=query_group)


def test_absent_from_all_takes_every_valid_form_of_grouping(impl):
    # the native module flattens lists of int lists with an int64 C-contiguous query_group in
    # C, and hands every other valid form to the shared Python validation: same answers
    queries = fp([[1, 2], [3, 4], [5, 6]])
    sets = [fp([[1, 2]]), fp([[3, 4], [5, 6]])]
    expected = [False, True, False]
    forms = [
        ([[0], [1]], np.array([0, 0, 1], dtype=np.int64)),
        (([0], (1,)), np.array([0, 0, 1], dtype=np.int64)),
        (([0], [1]), np.array([0, 0, 1], dtype=np.int32)),
        ([[0], [1]], np.array([0, 9, 0, 9, 1, 9], dtype=np.int64)[::2]),  # not contiguous
        ([[0], [1]], np.array([0, 0, 1], dtype=np.uint8)),
    ]
    for groups, query_group in forms:
        assert impl.absent_from_all(queries, sets, groups=groups, query_group=query_group).tolist() == expected


def test_absent_from_all_empty_group_makes_its_queries_absent(impl):
    out = impl.absent_from_all(fp([[1, 2], [1, 2]]), [fp([[1, 2]])], groups=[[], [0]], query_group=np.array([0, 1]))
    assert out.tolist() == [True, False]


# ---- SortedFingerprints: sets vetted once, searched many times ------------------------------


@SETTINGS
@given(case=grouped_queries())
def test_sorted_fingerprints_stand_in_for_their_arrays(impl, case):
    queries, sets, groups, query_group = case
    frozen = [impl.SortedFingerprints(s) for s in sets]
    assert [len(f) for f in frozen] == [len(s) for s in sets]
    assert all(np.array_equal(f.to_array(), s) for f, s in zip(frozen, sets))
    mixed = [f if i % 2 else s for i, (f, s) in enumerate(zip(frozen, sets))]
    expected = impl.absent_from_all(queries, sets, groups=groups, query_group=query_group)
    for variant in (frozen, mixed):
        assert np.array_equal(impl.absent_from_all(queries, variant, groups=groups, query_group=query_group), expected)


def test_sorted_fingerprints_keep_a_private_copy(impl):
    source = fp([[1, 2], [3, 4]])
    frozen = impl.SortedFingerprints(source)
    source[0, 0] = 9  # changing the caller's array afterwards changes nothing
    out = frozen.to_array()
    out[1, 1] = 0     # nor does changing the copy it hands out
    assert frozen.to_array().tolist() == [[1, 2], [3, 4]]
    assert impl.absent_from_all(fp([[1, 2], [9, 2], [3, 4]]), [frozen]).tolist() == [False, True, False]
    assert repr(frozen) == "SortedFingerprints(2 rows)"


def test_sorted_fingerprints_accept_non_contiguous_input(impl):
    rows = fp([[1, 2], [0, 0], [3, 4], [0, 0]])[::2]
    assert impl.SortedFingerprints(rows).to_array().tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize("bad, exc, message", [
    (fp([[3, 0], [2, 0]]), InvalidArgumentError, r"fp is not sorted by \(hi, lo\): row 1 "),
    ([[1, 2]], TypeError, "fp must be a numpy array"),
    (np.zeros((2, 3), dtype=np.uint64), InvalidArgumentError, "fp must have shape"),
])
def test_sorted_fingerprints_refuse_bad_arrays(impl, bad, exc, message):
    with pytest.raises(exc, match=message):
        impl.SortedFingerprints(bad)


@_only_with_native
def test_sorted_fingerprints_do_not_cross_implementations():
    native, reference = _load("native"), _load("reference")
    for mine, other in ((native, reference), (reference, native)):
        with pytest.raises(TypeError, match=r"sets\[0\] must be a numpy array or a SortedFingerprints, not SortedFingerprints"):
            mine.absent_from_all(fp([[1, 2]]), [other.SortedFingerprints(fp([[1, 2]]))])


# ---- ungrounded_rows: rows found neither in their group's sets nor literally in its haystacks --

SKIP, PAIR, QUOTE = 9, 3, 8  # row kinds: a marker (neither), a kv fact (a pair), a quote (its value)
OFFSET_COLUMNS = ("start", "end", "value_start", "value_end")


class Table:
    """The columns ungrounded_rows reads from a fact table, built from plain lists."""

    def __init__(self, data, kinds, pairs, values, spans, value_spans):
        self.data = data
        self.kind = np.array(kinds, dtype=np.uint8)
        self.fp_fact, self.fp_value = fp(pairs), fp(values)
        self.start, self.end = (np.array([s[i] for s in spans], dtype=np.int64).reshape(-1) for i in (0, 1))
        self.value_start, self.value_end = (np.array([s[i] for s in value_spans], dtype=np.int64).reshape(-1)
                                            for i in (0, 1))


TEXT_PIECES = (b"retries", b"=", b"3", b" ", b"x-y", b".", b"\"", b"5", b"ab", b"-", b"?", b"+", b"%", b"/", b"not", b"No",
               b"don't", b"\n", b"`", b"**", b"(", b")")


def _span_from(size, start):
    return st.tuples(st.just(start), st.integers(start, size))


@st.composite
def tables_and_sets(draw):
    """Fact tables drawn against the sets and haystacks, so rows are often present by value,
    by pair, only by the fingerprint of the other column, or only literally (at a boundary or
    inside a word)."""
    _, sets = draw(queries_and_sets())
    pool = [tuple(r) for s in sets for r in s.tolist()] + [(1, 1), (2**63, 5), (U64_MAX, U64_MAX)]
    text = st.lists(st.sampled_from(TEXT_PIECES), max_size=8).map(b"".join)
    haystacks = draw(st.lists(text, max_size=4))
    tables = []
    for _ in range(draw(st.integers(0, 4))):
        data = draw(text)
        n = draw(st.integers(0, 6))
        rows = st.lists(st.sampled_from(pool), min_size=n, max_size=n)
        span = st.integers(0, len(data)).flatmap(partial(_span_from, len(data)))
        tables.append(Table(data, draw(st.lists(st.sampled_from([0, PAIR, SKIP, QUOTE, 4]), min_size=n, max_size=n)),
                            draw(rows), draw(rows), draw(st.lists(span, min_size=n, max_size=n)),
                            draw(st.lists(span, min_size=n, max_size=n))))
    groups = [draw(st.lists(st.integers(0, len(sets) - 1), max_size=3)) if sets else [] for _ in tables]
    haystack_groups = [draw(st.lists(st.integers(0, len(haystacks) - 1), max_size=3)) if haystacks else []
                       for _ in tables]
    modes = draw(st.sampled_from([{}, {"number_kind": 4}, {"url_kind": 0}, {"number_kind": 0, "url_kind": 4}]))
    return tables, sets, haystacks, dict(groups=groups, haystack_groups=haystack_groups, skip_kind=SKIP,
                                         pair_kind=PAIR, quote_kind=QUOTE, **modes)


def denied(haystack, s):
    """From the definition: the words at ``haystack[s]`` follow a negation (:func:`_denied_here`),
    or lie inside a quotation whose opening mark does (red team 100, F10: ``"to prod"`` of ``do
    not "deploy to prod"``): the nearest ``"`` before them (before the mark that opens the words
    at ``s``, if one does), within 256 bytes, opening a quotation (after no word byte). The
    drawn texts hold no other quotation mark (a ``'`` only inside ``don't``)."""
    from provgate._matching_py import WORD_BYTES
    if _denied_here(haystack, s):
        return True
    low, k = max(0, s - 256), s - 1
    if k >= 0 and haystack[k] == 0x22 and not (k > 0 and haystack[k - 1] in WORD_BYTES):
        k -= 1  # (the mark that opens the words at s: the quotation around it is asked)
    while k >= low and haystack[k] != 0x22:
        k -= 1
    if k < low or (k > 0 and haystack[k - 1] in WORD_BYTES):
        return False  # (none, or a mark that closes a quotation)
    return _denied_here(haystack, k + 1)


def _denied_here(haystack, s):
    """From the definition: the word before ``haystack[s]``, past blanks, emphasis, a short
    aside and separating dashes (at most 256 bytes of them), and past the quotation mark that
    opens the words there (or a JSON array's ``", "`` before it), is a negation (a quote's
    mode: red team 89, F07; 94, F08; 96, F10)."""
    from provgate._matching_py import WORD_BYTES
    blanks = (b" ", b"\t", b"\r", b"\n")

    def starts_a_line(at, low):
        at = low + re.search(rb"[ \t]*\Z", haystack[low:at]).start()
        return at == 0 or haystack[at - 1:at] in (b"\r", b"\n")

    low, i = max(0, s - 256), s
    while i > low:
        window = haystack[low:i]
        if window[-1:] in blanks:
            i -= 1
        elif m := re.search(rb"[*_~]+\Z", window):
            if haystack[i:i + 1] in blanks and starts_a_line(low + m.start(), low):
                break  # (a bullet)
            i = low + m.start()
        elif (m := re.search(rb"\([^()\r\n]{0,40}\)\Z|\[[^\[\]\r\n]{0,40}\]\Z", window)) or (
                (m := re.search(rb"(?<=[ \t])(?:--?|\xe2\x80[\x93\x94])\Z", window))
                and haystack[i:i + 1] in blanks and not starts_a_line(low + m.start(), low)):
            i = low + m.start()  # (an aside, or a dash between blanks that begins no line)
        elif i == s and (m := re.search(rb'"[ \t\r\n]*,[ \t\r\n]*"\Z|["\']\Z|\xe2\x80[\x9c\x98]\Z', window)):
            i = low + m.start()  # (the mark that opens the words, or a JSON array's '", "' before it)
        else:
            break
    word = re.search(rb"(?:[A-Za-z']|\xe2\x80\x99)+\Z", haystack[:i]) if i < s else None
    if word is None:
        return False
    own = re.search(rb"[*_~]*\Z", haystack[:word.start()]).start()  # (wrapped in emphasis: "_not_")
    if word.start() and haystack[word.start() - 1] in WORD_BYTES and (
            own == word.start() or (own and haystack[own - 1] in WORD_BYTES)):
        return False
    text = word.group().replace("\u2019".encode(), b"'").lower()
    return text in (b"not", b"no", b"never", b"nor", b"neither", b"cannot", b"without") or text.endswith(b"n't")


def literally_in(needle, haystack, mode="relaxed"):
    """From the definition: some occurrence whose both ends are token boundaries (or, for a
    quote, the needle's own non-word byte at that end); a number not right after a sign that
    starts a token, a URL not followed by ? or #."""
    from provgate._matching_py import JOINERS, WORD_BYTES, end_ok, start_ok
    if not needle:
        return False

    def counts(s):
        e = s + len(needle)
        relaxed = mode in ("relaxed", "quote")
        if mode == "quote" and denied(haystack, s):
            return False
        own = WORD_BYTES | JOINERS  # a quote's edge byte that is neither brings its own boundary
        if not ((relaxed and needle[0] not in own) or start_ok(haystack, s)):
            return False
        if not ((relaxed and (needle[-1] not in own or needle[-1] in b".,")) or end_ok(haystack, e)):
            return False
        if mode == "number" and needle[:1] not in (b"+", b"-") and s and haystack[s - 1:s] in (b"+", b"-") \
                and (s == 1 or haystack[s - 2] not in WORD_BYTES):
            return False
        if mode == "number" and haystack[e:e + 1] == b"%":
            return False
        return not (mode == "url" and haystack[e:e + 1] in (b"?", b"#"))

    return any(haystack[s:s + len(needle)] == needle and counts(s) for s in range(len(haystack) - len(needle) + 1))


def expected_ungrounded_rows(tables, sets, haystacks, args):
    """From the definition: per table, per row not skipped, its query in none of its sets and
    its text (a quote's value) in none of its haystacks."""
    out = []
    for t, table in enumerate(tables):
        members = {r for m in args["groups"][t] for r in map(tuple, sets[m].tolist())}
        for r, k in enumerate(table.kind.tolist()):
            query = tuple((table.fp_fact if k == PAIR else table.fp_value)[r].tolist())
            a, b = ((table.value_start[r], table.value_end[r]) if k == QUOTE else (table.start[r], table.end[r]))
            mode = ("relaxed" if k == QUOTE and a > 0 and table.data[a - 1:a] == b"`"
                    else "quote" if k == QUOTE else "number" if k == args.get("number_kind")
                    else "url" if k == args.get("url_kind") else "token")
            if k != SKIP and query not in members and not any(
                    literally_in(table.data[a:b], haystacks[m], mode) for m in args["haystack_groups"][t]):
                out.append((t, r))
    return out


@SETTINGS
@given(case=tables_and_sets())
def test_ungrounded_rows_are_found_in_no_set_and_no_haystack(impl, case):
    tables, sets, haystacks, args = case
    table, row = impl.ungrounded_rows(tables, sets, haystacks, **args)
    assert table.dtype == np.int64 and row.dtype == np.int64
    assert list(zip(table.tolist(), row.tolist())) == expected_ungrounded_rows(tables, sets, haystacks, args)
    frozen = [impl.SortedFingerprints(s) for s in sets]
    again = impl.ungrounded_rows(tuple(tables), frozen, tuple(haystacks), **dict(
        args, groups=tuple(args["groups"]), haystack_groups=tuple(args["haystack_groups"])))
    assert all(np.array_equal(x, y) for x, y in zip(again, (table, row)))
    # hints only say where to look first: any hint, right, wrong, out of range or for a name
    # no marker has, gives the same answer
    names = {t.data[a:b].decode() for t in tables for k, a, b in zip(t.kind.tolist(), t.value_start.tolist(),
                                                                      t.value_end.tolist())
             if k == SKIP and 0 <= a <= b <= len(t.data)}
    hints = {name: i % (len(sets) + len(haystacks) + 3) - 1 for i, name in enumerate(sorted(names))}
    hinted = impl.ungrounded_rows(tables, sets, haystacks, **dict(args, hints=dict(hints, nowhere=0)))
    assert all(np.array_equal(x, y) for x, y in zip(hinted, (table, row)))


@_only_with_native
@settings(max_examples=examples(300), deadline=None)
@given(case=tables_and_sets())
def test_ungrounded_rows_native_equals_reference(case):
    tables, sets, haystacks, args = case
    native = _load("native").ungrounded_rows(tables, sets, haystacks, **args)
    reference = _load("reference").ungrounded_rows(tables, sets, haystacks, **args)
    assert all(np.array_equal(x, y) for x, y in zip(native, reference))
    # each marker pointing at a text: a quote is then searched in that text before the other
    # sets (native), which must not change the answer either
    names = {t.data[a:b].decode() for t in tables for k, a, b in zip(t.kind.tolist(), t.value_start.tolist(),
                                                                      t.value_end.tolist())
             if k == SKIP and 0 <= a <= b <= len(t.data) and t.data[a:b].isascii()}
    hints = {name: i % max(len(sets), len(haystacks), 1) for i, name in enumerate(sorted(names))}
    hinted = _load("native").ungrounded_rows(tables, sets, haystacks, **dict(args, hints=hints))
    assert all(np.array_equal(x, y) for x, y in zip(hinted, reference))


def test_ungrounded_rows_search_a_quote_by_its_value_and_anything_else_by_its_span(impl):
    data = b'say "retries=3" now'
    # rows: the quote (value 5..14), the same span as a plain fact, and a fact over "now"
    table = Table(data, [QUOTE, 0, 0], [[1, 1]] * 3, [[1, 1]] * 3, [(4, 15), (4, 15), (16, 19)],
                  [(5, 14), (5, 14), (16, 19)])
    args = dict(groups=[[]], haystack_groups=[[0]], skip_kind=SKIP, pair_kind=PAIR, quote_kind=QUOTE)
    table_ix, row = impl.ungrounded_rows([table], [], [b"set retries=3 then"], **args)
    assert (table_ix.tolist(), row.tolist()) == ([0, 0], [1, 2])
    # a set that holds the row's fingerprint grounds it without any text
    _, row = impl.ungrounded_rows([table], [fp([[1, 1]])], [b""], **dict(args, groups=[[0]]))
    assert row.tolist() == []


def test_ungrounded_rows_many_rows_in_one_long_source(impl):
    # a source of 1 KiB or more searched for many rows gets a bitmap of its 4-byte substrings
    # (ext/_boundaries.pxd) that skips rows it cannot hold: rows at its first and last bytes,
    # inside it and nowhere in it, each as the definition says
    words = [f"w{i:04d}".encode() for i in range(300)]
    source = b" ".join(words)
    spans, data = [], b""
    for text in [words[0], words[-1], b" ".join(words[7:9]), b"w9999", b"w0001 w0000", words[150], b"x" * 20] * 4:
        spans.append((len(data), len(data) + len(text)))
        data += text + b"\n"
    n = len(spans)
    table = Table(data, [0] * n, [[9, 9]] * n, [[9, 9]] * n, spans, spans)
    args = dict(groups=[[]], haystack_groups=[[0]], skip_kind=SKIP, pair_kind=PAIR, quote_kind=QUOTE)
    _, row = impl.ungrounded_rows([table], [], [source], **args)
    assert row.tolist() == [r for r in range(n) if r % 7 in (3, 4, 6)]
    assert row.tolist() == [r for _, r in expected_ungrounded_rows([table], [], [source], args)]


def test_ungrounded_rows_read_columns_that_are_not_contiguous(impl):
    # a table's columns may be views: they are read as the values they hold
    table = Table(b"abc", [0, 7, PAIR, 7, 0, 7], [[1, 1], [0, 0], [2, 2], [0, 0], [5, 5], [0, 0]],
                  [[1, 1], [0, 0], [2, 2], [0, 0], [5, 5], [0, 0]], [(0, 1)] * 6, [(0, 1)] * 6)
    for name in ("kind", "fp_fact", "fp_value", *OFFSET_COLUMNS):
        setattr(table, name, getattr(table, name)[::2])
    table_ix, row = impl.ungrounded_rows([table], [fp([[1, 1], [2, 2]])], [], groups=[[0]], haystack_groups=[[]],
                                         skip_kind=SKIP, pair_kind=PAIR, quote_kind=QUOTE)
    assert (table_ix.tolist(), row.tolist()) == ([0], [2])


def _good_table():
    return Table(b"ab", [0], [[1, 2]], [[1, 2]], [(0, 2)], [(0, 1)])


def _with(column, value):
    table = _good_table()
    setattr(table, column, value)
    return [table]


GOOD = dict(tables=None, sets=[fp([[1, 2]])], haystacks=[b"ab"], groups=[[0]], haystack_groups=[[0]],
            skip_kind=SKIP, pair_kind=PAIR, quote_kind=QUOTE)


@pytest.mark.parametrize("change, exc, message", [
    ({"tables": _good_table()}, TypeError, "tables must be a list or tuple of fact tables, not Table"),
    ({"skip_kind": True}, TypeError, "skip_kind must be an int, not bool"),
    ({"pair_kind": 256}, InvalidArgumentError, r"pair_kind must be in 0..255, got 256"),
    ({"quote_kind": -1}, InvalidArgumentError, r"quote_kind must be in 0..255, got -1"),
    ({"tables": _with("data", "ab")}, TypeError, r"tables\[0\].data must be bytes, not str"),
    ({"tables": [object()]}, TypeError, r"tables\[0\].data must be bytes, not NoneType"),
    ({"tables": _with("kind", np.array([0], dtype=np.int64))}, TypeError,
     r"tables\[0\].kind must be a 1-D uint8 array, not 1-D int64 array"),
    ({"tables": _with("kind", [0])}, TypeError, r"tables\[0\].kind must be a 1-D uint8 array, not list"),
    ({"tables": _with("kind", np.zeros((1, 1), dtype=np.uint8))}, TypeError,
     r"tables\[0\].kind must be a 1-D uint8 array, not 2-D uint8"),
    ({"tables": _with("fp_fact", np.zeros((1, 2), dtype=np.int64))}, TypeError,
     r"tables\[0\].fp_fact must have dtype uint64"),
    ({"tables": _with("fp_value", np.zeros((1, 3), dtype=np.uint64))}, InvalidArgumentError,
     r"tables\[0\].fp_value must have shape"),
    ({"tables": _with("fp_value", fp([[1, 2], [3, 4]]))}, InvalidArgumentError,
     r"tables\[0\].fp_value has 2 rows for 1 kinds"),
    ({"tables": _with("start", np.zeros(1, dtype=np.int32))}, TypeError,
     r"tables\[0\].start must be a 1-D int64 array, not 1-D int32 array"),
    ({"tables": _with("value_end", None)}, TypeError, r"tables\[0\].value_end must be a 1-D int64 array, not NoneType"),
    ({"tables": _with("end", np.zeros(2, dtype=np.int64))}, InvalidArgumentError, r"tables\[0\].end has 2 rows for 1 kinds"),
    ({"groups": [[0], [0]]}, InvalidArgumentError, "groups must have one group per table, got 2 for 1 tables"),
    ({"groups": None}, TypeError, "groups must be a list or tuple of lists of sets indices, not NoneType"),
    ({"haystack_groups": []}, InvalidArgumentError, "haystack_groups must have one group per table, got 0 for 1"),
    ({"haystack_groups": {0: 0}}, TypeError, "haystack_groups must be a list or tuple of lists of haystacks indices"),
    ({"hints": [("a", 0)]}, TypeError, "hints must be a dict from marker names to text indices, not list"),
    ({"hints": {"a": "0"}}, TypeError, r"hints\['a'\] must be an int, not str"),
    ({"hints": {"a": True}}, TypeError, r"hints\['a'\] must be an int, not bool"),
    ({"hints": {1: 0}}, TypeError, "hints keys must be str, not int"),
    ({"hints": {"a": 0.5}, "sets": fp([[1, 2]])}, TypeError, r"hints\['a'\] must be an int"),  # before the sets
    ({"sets": fp([[1, 2]])}, TypeError, "sets must be a list or tuple"),
    ({"sets": [fp([[3, 0], [2, 0]])]}, InvalidArgumentError, r"sets\[0\] is not sorted"),
    ({"groups": [[1]]}, InvalidArgumentError, r"groups\[0\]\[0\] = 1 is not an index of sets \(there are 1\)"),
    ({"groups": [[0, "1"]]}, TypeError, r"groups\[0\]\[1\] must be an int, not str"),
    ({"groups": [{0}]}, TypeError, r"groups\[0\] must be a list or tuple of sets indices, not set"),
    ({"haystacks": [b"ab", "cd"]}, TypeError, r"haystacks\[1\] must be bytes, not str"),
    ({"haystacks": b"ab"}, TypeError, "haystacks must be a list or tuple of bytes, not bytes"),
    ({"haystack_groups": [[2]]}, InvalidArgumentError, r"\[0\]\[0\] = 2 is not an index of haystacks \(there are 1\)"),
    ({"tables": _with("end", np.array([3], dtype=np.int64))}, InvalidArgumentError,
     r"tables\[0\] row 0 spans bytes 0..3, outside its 2 bytes of data"),
    ({"tables": _with("start", np.array([-1], dtype=np.int64))}, InvalidArgumentError,
     r"tables\[0\] row 0 spans bytes -1..2, outside its 2 bytes of data"),
    # the first bad range in table order, after every other check
    ({"tables": _with("kind", np.array([QUOTE], dtype=np.uint8)) + _with("start", np.array([3], dtype=np.int64)),
      "groups": [[0], [0]], "haystack_groups": [[0], []]}, InvalidArgumentError,
     r"tables\[1\] row 0 spans bytes 3..2, outside its 2 bytes of data"),
])
def test_ungrounded_rows_refuse_bad_input(impl, change, exc, message):
    args = dict(GOOD, **change)
    if args["tables"] is None:
        args["tables"] = [_good_table()]
    tables, sets, haystacks = args.pop("tables"), args.pop("sets"), args.pop("haystacks")
    with pytest.raises(exc, match=message):
        impl.ungrounded_rows(tables, sets, haystacks, **args)


def test_ungrounded_rows_check_the_range_each_row_is_searched_by(impl):
    # a quote is searched by its value range, so its span may be anything; a skipped row by
    # neither; a plain row by its span, whose value range may be anything
    table = Table(b"abcd", [QUOTE, SKIP, 0], [[1, 2]] * 3, [[1, 2]] * 3, [(-5, 99), (7, 1), (0, 4)],
                  [(1, 3), (9, 2), (-1, 50)])
    args = dict(groups=[[]], haystack_groups=[[0]], skip_kind=SKIP, pair_kind=PAIR, quote_kind=QUOTE)
    _, row = impl.ungrounded_rows([table], [], [b"x abcd"], **args)
    assert row.tolist() == [0]  # "bc" sits inside a word of the haystack; "abcd" is a word of it
    table.value_end = np.array([5, 2, 50], dtype=np.int64)
    with pytest.raises(InvalidArgumentError, match=r"tables\[0\] row 0 spans bytes 1..5, outside its 4 bytes"):
        impl.ungrounded_rows([table], [], [b"x abcd"], **args)


def test_ungrounded_rows_look_first_where_the_next_marker_points(impl):
    # "a [src:second]": with the hint, the row is found in the second haystack; without it,
    # in the second too, after the first was searched in vain: the same answer either way
    data = b"a [src:second] b [src:nosuch]"
    table = Table(data, [0, SKIP, 0, SKIP], [[9, 9]] * 4, [[9, 9]] * 4, [(0, 1), (2, 14), (15, 16), (17, 29)],
                  [(0, 1), (7, 13), (15, 16), (23, 28)])
    args = dict(groups=[[0, 1]], haystack_groups=[[0, 1]], skip_kind=SKIP, pair_kind=PAIR, quote_kind=QUOTE)
    haystacks = [b"x y z", b"a b c"]
    plain = impl.ungrounded_rows([table], [fp([]), fp([])], haystacks, **args)
    hinted = impl.ungrounded_rows([table], [fp([]), fp([])], haystacks, **dict(args, hints={"second": 1}))
    assert [x.tolist() for x in plain] == [x.tolist() for x in hinted] == [[], []]
    # a hint pointing outside the group, or nowhere, changes nothing either
    for hints in ({"second": 5}, {"second": -3}, {}, {"nosuch": 0}):
        got = impl.ungrounded_rows([table], [fp([]), fp([])], [b"x y z", b"a c"], **dict(args, hints=hints))
        assert [x.tolist() for x in got] == [[0], [2]]
    # a marker whose name is not UTF-8, or whose range lies outside the data, gives no hint
    # (skipped rows are never searched, so their ranges are not an error)
    odd = Table(b"a \xff b", [0, SKIP, 0, SKIP], [[9, 9]] * 4, [[9, 9]] * 4, [(0, 1), (2, 3), (4, 5), (0, 1)],
                [(0, 1), (2, 3), (4, 5), (7, 99)])
    got = impl.ungrounded_rows([odd], [fp([]), fp([])], [b"x", b"a b"], **dict(args, hints={"\ufffd": 0, "a": 0}))
    assert [x.tolist() for x in got] == [[], []]


def test_ungrounded_rows_search_a_quote_in_its_cited_text_before_the_other_sets(impl):
    # a quote missing from the set its marker points at is searched in that marker's text
    # before the group's other sets (native: the order of the look-ups, never the answer):
    # a quote held only by another set, only by the cited text, only by another text, by the
    # cited set, and by nothing, each answered as the definition says, with and without hints
    quotes = [b"alpha beta", b"gamma delta", b"eps zeta", b"eta theta", b"iota kappa"]
    data, kinds, spans, value_spans = b"", [], [], []
    for q in quotes:
        start = len(data)
        data += b'"' + q + b'" '
        kinds.append(QUOTE)
        spans.append((start, start + len(q) + 2))
        value_spans.append((start + 1, start + 1 + len(q)))
    marker = len(data)
    data += b"[src:one]"
    kinds.append(SKIP)
    spans.append((marker, len(data)))
    value_spans.append((marker + 5, len(data) - 1))
    values = [[1, 1], [2, 2], [3, 3], [4, 4], [5, 5], [0, 0]]
    table = Table(data, kinds, values, values, spans, value_spans)
    sets = [fp([[4, 4]]), fp([[1, 1]])]  # the cited set holds the fourth quote, the other the first
    haystacks = [b"x gamma delta y", b"z eps zeta w"]  # the cited text the second, the other the third
    args = dict(groups=[[0, 1]], haystack_groups=[[0, 1]], skip_kind=SKIP, pair_kind=PAIR, quote_kind=QUOTE)
    want = [(0, 4)]
    assert expected_ungrounded_rows([table], sets, haystacks, args) == want
    for hints in (None, {"one": 0}, {"one": 1}, {"one": 7}):
        frozen = [impl.SortedFingerprints(s) for s in sets]
        for passed in (sets, frozen):
            got = impl.ungrounded_rows([table], passed, haystacks, **dict(args, hints=hints))
            assert list(zip(*(x.tolist() for x in got))) == want


def test_ungrounded_rows_without_rows_sets_or_haystacks(impl):
    args = dict(skip_kind=SKIP, pair_kind=PAIR, quote_kind=QUOTE)
    empty = impl.ungrounded_rows([], [], [], groups=[], haystack_groups=[], **args)
    assert [x.tolist() for x in empty] == [[], []]
    # nothing in a group: every row not skipped is ungrounded
    table = Table(b"ab", [0, SKIP, PAIR], [[1, 2]] * 3, [[1, 2]] * 3, [(0, 2)] * 3, [(0, 2)] * 3)
    table_ix, row = impl.ungrounded_rows([table], [fp([[1, 2]])], [b"ab"], groups=[[]], haystack_groups=[[]], **args)
    assert (table_ix.tolist(), row.tolist()) == ([0, 0], [0, 2])


# ---- ungrounded_rows over a wide group: its texts searched once for all its rows (native) -------

NUMBER_KIND, URL_KIND = 4, 5
WIDE_ARGS = dict(skip_kind=SKIP, pair_kind=PAIR, quote_kind=QUOTE, number_kind=NUMBER_KIND, url_kind=URL_KIND)


def _passes(impl):
    """(automaton passes made, passes given up) so far: the native module's count; the
    reference searches row by row and makes none."""
    return impl._automaton_passes() if impl.IMPLEMENTATION == "native" else (0, 0)


def _assert_rows_and_passes(impl, tables, haystacks, args, want, *, passes):
    """``ungrounded_rows`` gives ``want``, and the native module made and gave up ``passes``
    automaton passes for it (the reference makes none)."""
    before = _passes(impl)
    got = impl.ungrounded_rows(tables, [], haystacks, **args)
    assert list(zip(*(x.tolist() for x in got))) == want
    if impl.IMPLEMENTATION == "native":
        made, given_up = _passes(impl)
        assert (made - before[0], given_up - before[1]) == passes


def _stating(rows):
    """A table stating each ``(needle, kind)`` of ``rows`` on a line of its own (a quote
    between quotes, searched by its value), every fingerprint one no set holds."""
    data, kinds, spans, value_spans = b"", [], [], []
    for needle, kind in rows:
        start = len(data)
        data += b'"' + needle + b'"' if kind == QUOTE else needle
        spans.append((start, len(data)))
        value_spans.append((start + 1, len(data) - 1) if kind == QUOTE else (start, len(data)))
        kinds.append(kind)
        data += b"\n"
    values = [[1000 + i, i] for i in range(len(rows))]
    return Table(data, kinds, values, values, spans, value_spans)


def _wide_text(i):
    return (f"alpha{i}beta gamma-{i} delta v{i} {i}.5 GPT-{i} -{i}0 {i}0% https://h/{i}?q=1 https://g/{i} "
            f"end{i}. (see {i}) [{i}]").encode()


# (needle, kind, grounded) of text 37 and its neighbours, each as the definition judges it
WIDE_ROWS = [
    (b"gamma-37", 0, True),
    (b"gamma-37 delta", 0, True),  # across a token boundary
    (b"alpha37", 0, False),  # cut from a longer token
    (b"37beta", 0, False),
    (b"370", 0, True),  # a token of "-370"...
    (b"370", NUMBER_KIND, False),  # ...but as a number it is "-370" or "370%"
    (b"-370", NUMBER_KIND, True),
    (b"370%", NUMBER_KIND, True),
    (b"37", NUMBER_KIND, True),  # "(see 37)"
    (b"https://h/37", URL_KIND, False),  # a URL runs on through its query
    (b"https://g/37", URL_KIND, True),
    (b"end37", 0, True),
    (b"see 37)", QUOTE, True),  # a quote that brings its own boundary (the plain pass)
    (b"(see 37", QUOTE, True),
    (b"a37b", QUOTE, False),
    (b"ta v37", QUOTE, False),  # starts inside "delta"
    (b"[37]alpha38", QUOTE, False),  # only across two texts
    (b"[37]alpha38beta", 0, False),
    (b"", 0, False),  # an empty needle occurs nowhere
    (b"gamma-99", 0, True),  # the group's last text
    (b"gamma-110", 0, False),  # a text outside the group
    *[(f"zz{i}".encode(), 0, False) for i in range(8)],
    *[(f"v{i}".encode(), NUMBER_KIND, True) for i in range(0, 100, 9)],
]


def test_ungrounded_rows_search_a_wide_group_once_for_all_its_rows(impl):
    # a table searched in 16 texts or more is searched in its first text row by row, and in
    # the others once for all its rows where that costs less (native: an automaton pass over
    # the group's bytes); every row is judged as the definition judges it, in each mode
    haystacks = [_wide_text(i) for i in range(120)]
    table = _stating([(needle, kind) for needle, kind, _ in WIDE_ROWS])
    other = _stating([(b"gamma-110", 0), (b"gamma-5", 0), (b"[37]", 0)] + [(f"q{i}".encode(), 0) for i in range(30)])
    tables = [table, other, table]  # the first and the last share their texts: one pass for both
    args = dict(WIDE_ARGS, groups=[[], [], []], haystack_groups=[list(range(100)), list(range(20, 120)),
                                                                 list(range(100))])
    want = ([(t, r) for t in (0,) for r, (*_, grounded) in enumerate(WIDE_ROWS) if not grounded]
            + [(1, 1)] + [(1, r) for r in range(3, 33)]
            + [(2, r) for r, (*_, grounded) in enumerate(WIDE_ROWS) if not grounded])
    assert expected_ungrounded_rows(tables, [], haystacks, args) == want
    _assert_rows_and_passes(impl, tables, haystacks, args, want, passes=(2, 0))
    # hints (the first text of each row) never change the answer
    hinted = impl.ungrounded_rows(tables, [], haystacks, **dict(args, hints={"a": 37, "b": 5}))
    assert list(zip(*(x.tolist() for x in hinted))) == want


def test_ungrounded_rows_over_a_wide_group_with_marker_bytes(impl):
    # a text or a needle holding byte 0xF8 or 0xF9 (no UTF-8: the marked automaton's markers)
    # is searched with a plain automaton instead, and still judged as the definition judges it
    haystacks = [_wide_text(i) for i in range(100)]
    haystacks[50] = b"tick \xf8tock \xf9 [50]"
    rows = [(needle, kind) for needle, kind, _ in WIDE_ROWS] + [(b"\xf8tock", 0), (b"tock", 0), (b"\xf9", 0),
                                                                (b"\xf9 [50]", QUOTE), (b"k \xf8", QUOTE)]
    table = _stating(rows)
    args = dict(WIDE_ARGS, groups=[[]], haystack_groups=[list(range(100))])
    want = expected_ungrounded_rows([table], [], haystacks, args)
    # "tock" follows 0xF8, a word byte; "k \xf8" starts inside "tick"
    assert [r for _, r in want if r >= len(rows) - 5] == [len(rows) - 4, len(rows) - 1]
    _assert_rows_and_passes(impl, [table], haystacks, args, want, passes=(1, 0))


def test_ungrounded_rows_give_up_a_pass_whose_hits_outrun_the_group(impl):
    # needles that are suffixes of one another ("x", "x x", "x x x", ...) hit again wherever a
    # longer one does: past about one hit a byte the pass is given up and the rows still
    # pending are searched row by row, with the same answer
    haystacks = [b"x " * 500 for _ in range(40)]
    rows = [(b" ".join([b"x"] * k), 0) for k in range(1, 61)] + [(b"y", 0), (b"x y", 0), (b"x" * 2, 0)]
    table = _stating(rows)
    args = dict(WIDE_ARGS, groups=[[]], haystack_groups=[list(range(40))])
    want = [(0, 60), (0, 61), (0, 62)]
    assert expected_ungrounded_rows([table], [], haystacks, args) == want
    _assert_rows_and_passes(impl, [table], haystacks, args, want, passes=(1, 1))


def _separator_rows():
    """Rows for texts holding byte 0xFA, what the marked pass writes after each text."""
    return [(b"tok", 0), (b"\xfa", 0), (b"\xfa tok", QUOTE), (b"x7", 0), (b"x199", 0), (b"\xfa x3", 0)] + [
        (f"zz{i}".encode(), 0) for i in range(40)]


def test_ungrounded_rows_over_a_wide_group_with_separator_bytes(impl):
    # a text holding byte 0xFA, the byte that ends each text in the marked pass: a hit is
    # found in the text it is in (red team 45, F1: every 0xFA counted as a text's end, so
    # "tok" of text 5 was looked for in a later text and the row refused)
    haystacks = [b"filler %d text" % i for i in range(200)]
    haystacks[5] = b"ab\xfa cd tok"
    haystacks[9] = b"\xfa\xfa\xfa x7 \xfa"
    table = _stating([(b"tok", 0), (b"x7", 0), (b"cd", QUOTE), (b"\xfa", 0)] + [(b"zz%d" % i, 0) for i in range(20)])
    args = dict(WIDE_ARGS, groups=[[]], haystack_groups=[list(range(200))])
    want = expected_ungrounded_rows([table], [], haystacks, args)
    assert want == [(0, r) for r in range(4, 24)]
    _assert_rows_and_passes(impl, [table], haystacks, args, want, passes=(1, 0))


def _separator_case(impl, n, k):
    """Texts full of byte 0xFA, a row grounded only in the last; returns the rows ungrounded."""
    haystacks = [b"\xfa " * k + b"x%d" % i for i in range(n)]
    haystacks[-1] += b" tok \xfa tok"
    table = _stating(_separator_rows())
    args = dict(WIDE_ARGS, groups=[[]], haystack_groups=[list(range(n))])
    got = impl.ungrounded_rows([table], [], haystacks, **args)
    return list(zip(*(x.tolist() for x in got))), expected_ungrounded_rows([table], [], haystacks, args)


@pytest.mark.parametrize("which", IMPLEMENTATIONS)
def test_ungrounded_rows_over_texts_full_of_separator_bytes(which):
    # red team 45, F1: counting every 0xFA as a text's end ran past the group's texts, reading
    # members and text pointers out of bounds (a crash): run in a child process
    code = "\n".join([
        "import sys", f"sys.path[:0] = {[str(Path(__file__).parent)]!r}",
        "from test_factdiff import _load, _separator_case",
        f"got, want = _separator_case(_load({which!r}), 400, 50)",
        "print(got == want, got[:3])"])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, f"{which} exited {done.returncode}: {done.stderr[-600:]}"
    assert done.stdout.split()[0] == "True", done.stdout


def test_ungrounded_rows_search_long_needles_row_by_row(impl):
    # a needle longer than the pass takes (AUTOMATON_MAX_NEEDLE, 64 bytes) is searched row by
    # row after it, with the same answer (red team 45, C1: a long periodic quote in the
    # automaton cost every byte of the group its length)
    haystacks = [b"first"] + [b"ab " * 300 for _ in range(60)]
    haystacks[-1] += b"ab " * 40 + b"yy"
    rows = ([(b"ab " * 100 + b"zz", QUOTE), (b"ab " * 40 + b"yy", QUOTE), (b"ab " * 40 + b"zz", 0),
             (b"ab " * 21 + b"ab", 0), (b"ab " * 22, QUOTE), (b"ab " * 20 + b"ab", 0), (b"ab " * 21 + b"a", 0)]
            + [(b"zz%d" % i, 0) for i in range(30)])
    table = _stating(rows)
    args = dict(WIDE_ARGS, groups=[[]], haystack_groups=[list(range(61))])
    want = expected_ungrounded_rows([table], [], haystacks, args)
    assert want == [(0, 0), (0, 2), (0, 6)] + [(0, r) for r in range(7, 37)]
    _assert_rows_and_passes(impl, [table], haystacks, args, want, passes=(1, 0))


def test_ungrounded_rows_pass_over_a_group_larger_than_a_chunk(impl):
    # a pass takes its texts 4 MiB at a time (PASS_CHUNK): a row is found in the texts on
    # either side of a chunk's end, one that runs across two texts in none
    n = 4400
    haystacks = [b"w%05d " % i + b"." * 990 for i in range(n)]
    haystacks[4205] += b" left"
    haystacks[4206] = b"right " + haystacks[4206]
    haystacks[4207] = b"after " + haystacks[4207]
    haystacks[n - 1] += b" \xfa last"
    assert sum(map(len, haystacks[:4206])) <= 1 << 22 < sum(map(len, haystacks[:4207]))  # texts 0-4205 first
    rows = [(b"w00000", 0), (b"w04206", 0), (b"left", 0), (b"right", 0), (b"after", 0), (b"last", 0),
            (b"\xfa last", QUOTE), (b". left", QUOTE), (b"left right", QUOTE), (b"left\nright", QUOTE)] + [
                (b"zz%d" % i, 0) for i in range(20)]
    table = _stating(rows)
    args = dict(WIDE_ARGS, groups=[[]], haystack_groups=[list(range(n))])
    want = [(0, r) for r in range(8, len(rows))]
    _assert_rows_and_passes(impl, [table], haystacks, args, want, passes=(1, 0))


@st.composite
def wide_tables(draw):
    """Tables searched in 80 texts or so, with enough rows that the native module settles them
    in one pass: texts and rows drawn from one small alphabet, so that rows occur at token
    boundaries, inside longer tokens, across two texts and nowhere."""
    text = st.lists(st.sampled_from(TEXT_PIECES), max_size=8).map(b"".join)
    haystacks = draw(st.lists(text, min_size=80, max_size=90))
    tables = []
    for _ in range(draw(st.integers(1, 3))):
        data = draw(st.lists(st.sampled_from(TEXT_PIECES), min_size=10, max_size=40).map(b"".join))
        n = draw(st.integers(20, 40))
        span = st.integers(0, len(data)).flatmap(partial(_span_from, len(data)))
        kinds = draw(st.lists(st.sampled_from([0, PAIR, SKIP, QUOTE, NUMBER_KIND, URL_KIND]), min_size=n, max_size=n))
        values = [[2000 + i, i] for i in range(n)]
        tables.append(Table(data, kinds, values, values, draw(st.lists(span, min_size=n, max_size=n)),
                            draw(st.lists(span, min_size=n, max_size=n))))
    everything = list(range(len(haystacks)))
    groups = [draw(st.sampled_from([everything, everything[:70], everything[5:]])) for _ in tables]
    return tables, haystacks, dict(WIDE_ARGS, groups=[[] for _ in tables], haystack_groups=groups)


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=wide_tables())
def test_ungrounded_rows_over_wide_groups_are_found_in_no_text(impl, case):
    tables, haystacks, args = case
    got = impl.ungrounded_rows(tables, [], haystacks, **args)
    assert list(zip(*(x.tolist() for x in got))) == expected_ungrounded_rows(tables, [], haystacks, args)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 64, 1000, 20_000])
def test_sorted_fingerprints_find_every_row_of_a_large_set(impl, n):
    # the native set keeps an index of runs of equal top bits of hi: rows at the ends of the
    # range, many rows with one hi, and rows next to every run boundary must all be found,
    # and near misses not
    if impl.IMPLEMENTATION == "reference":
        n = min(n, 1000)
    rng = np.random.default_rng(n)
    rows = rng.integers(0, 2**64, size=(n, 2), dtype=np.uint64)
    edge = fp([[0, 0], [0, 5], [U64_MAX, 0], [U64_MAX, U64_MAX], [2**63, 1], [2**63 - 1, U64_MAX]]
              + [[2**60, k] for k in range(20)])
    data = lexsorted(np.concatenate([rows, edge]))
    frozen = impl.SortedFingerprints(data)
    near = data.copy()
    near[:, 1] ^= np.uint64(1)  # the same hi, another lo: absent unless that row exists too
    queries = np.ascontiguousarray(np.concatenate([data, near, fp([[1, 0], [2**60, 99], [U64_MAX - 1, 0]])]))
    present = {tuple(r) for r in data.tolist()}
    expected = [tuple(r) not in present for r in queries.tolist()]
    assert impl.absent_from_all(queries, [frozen]).tolist() == expected
    assert impl.absent_from_all(queries, [data]).tolist() == expected


# ---- positions: where each query row sits in a set of distinct rows ---------------------------


def _positions_oracle(index_rows: np.ndarray, queries: list[np.ndarray]) -> list[int]:
    at = {tuple(r): i for i, r in enumerate(index_rows.tolist())}
    return [at.get(tuple(r), -1) for q in queries for r in q.tolist()]


@SETTINGS
@given(pair=fingerprint_arrays(), cut=st.integers(0, 40))
def test_positions_find_each_row_or_minus_one(impl, pair, cut):
    a, b = pair
    index_rows = impl.unique_counts(a)[0]
    # the queries split over two arrays (one may be empty): hits, misses and repeats
    queries = [np.ascontiguousarray(b[:cut]), np.ascontiguousarray(b[cut:])]
    out = impl.positions(impl.SortedFingerprints(index_rows), queries)
    assert out.dtype == np.int64 and out.ndim == 1
    assert out.tolist() == _positions_oracle(index_rows, queries)


@_only_with_native
@SETTINGS
@given(pair=fingerprint_arrays())
def test_positions_native_equals_reference(pair):
    a, b = pair
    native, reference = _load("native"), _load("reference")
    rows = reference.unique_counts(a)[0]
    assert np.array_equal(native.positions(native.SortedFingerprints(rows), [b, a]),
                          reference.positions(reference.SortedFingerprints(rows), [b, a]))


@pytest.mark.parametrize("n", [0, 1, 3, 64, 1000, 20_000])
def test_positions_in_a_large_set(impl, n):
    # every row at its own index through the run index, near misses (same hi) at -1
    if impl.IMPLEMENTATION == "reference":
        n = min(n, 1000)
    rng = np.random.default_rng(n + 1)
    rows = rng.integers(0, 2**64, size=(n, 2), dtype=np.uint64)
    edge = fp([[0, 0], [U64_MAX, U64_MAX], [2**63, 1]] + [[2**60, k] for k in range(20)])
    data = impl.unique_counts(np.concatenate([rows, edge]))[0]
    near = data.copy()
    near[:, 1] ^= np.uint64(1)
    out = impl.positions(impl.SortedFingerprints(data), [data[::-1], near])
    assert out.tolist() == _positions_oracle(data, [data[::-1], near])
    assert out[:len(data)].tolist() == list(range(len(data)))[::-1]


@pytest.mark.parametrize("n", [40, 5_000])
def test_positions_through_the_run_index_and_the_hash_slots_agree(impl, n):
    # a few queries go through the run index, as many as the set's rows or more through the
    # native hash slots (made on that first use, then kept): both on one set, in either order
    rng = np.random.default_rng(n)
    data = impl.unique_counts(rng.integers(0, 2**64, size=(n, 2), dtype=np.uint64))[0]
    misses = data.copy()
    misses[:, 0] ^= np.uint64(1 << 40)
    few = [np.ascontiguousarray(data[:3]), np.ascontiguousarray(misses[:3])]
    many = [data[::-1].copy(), misses]
    for order in ((few, many, few), (many, few, many)):
        index = impl.SortedFingerprints(data)
        for queries in order:
            assert impl.positions(index, queries).tolist() == _positions_oracle(data, queries)
            codes = list(range(len(queries)))
            out, counts, strongest = impl.place_rows(index, queries, codes)
            assert out.tolist() == _positions_oracle(data, queries)
            assert (counts.tolist(), strongest.tolist()) == _place_oracle(data, queries, codes)


def test_positions_of_rows_that_share_one_hash_slot(impl):
    # rows whose words mix to one value (l ^ h * C the same) all want one slot: past 32
    # probes the native slots are given up for the run index, with the same answers
    c = 0x9E3779B97F4A7C15
    rows = [[k, (0x1234 ^ (k * c)) % 2**64] for k in range(1, 101)]
    data = impl.unique_counts(fp(rows))[0]
    near = data.copy()
    near[:, 1] ^= np.uint64(2)
    queries = [data, near, data[::-1].copy()]
    index = impl.SortedFingerprints(data)
    assert impl.positions(index, queries).tolist() == _positions_oracle(data, queries)
    out, counts, strongest = impl.place_rows(index, queries, [3, 1, 2])
    assert out.tolist() == _positions_oracle(data, queries)
    assert (counts.tolist(), strongest.tolist()) == _place_oracle(data, queries, [3, 1, 2])


def test_positions_of_rows_in_one_long_run_of_hash_slots(impl):
    # red team 32, 02: rows made to take consecutive home slots fill one run of slots; a miss
    # homed at its head walked all of it (40k rows, 40k misses: 1.1 s). Each row lies within
    # 32 slots of home, so a look-up stops there: present rows found, misses -1
    c2 = 0xBF58476D1CE4E5B9
    inverse = pow(c2, -1, 2**64)
    n = 3000
    bits = (4 * n - 1).bit_length()  # (the slots: at most a quarter full)

    def homed_at(slot: int, extra: int = 0) -> list[int]:
        # h = 0: the slot is (l * c2) >> (64 - bits); the low bits pick rows within a slot
        return [0, ((((slot << (64 - bits)) | extra) * inverse) % 2**64)]

    data = impl.unique_counts(fp([homed_at(k) for k in range(n)]))[0]
    misses = fp([homed_at(k, 1) for k in range(0, n, 3)])
    queries = [data, misses, data[::-1].copy()]
    index = impl.SortedFingerprints(data)
    expected = _positions_oracle(data, queries)
    assert expected[len(data):len(data) + len(misses)] == [-1] * len(misses)
    assert impl.positions(index, queries).tolist() == expected


@pytest.mark.parametrize("rows", [[], [[1, 1], [2, 2]]])
def test_a_sorted_set_is_made_once(impl, rows):
    # red team 32, 01: a native set made again kept its old hash slots (wrong positions, and a
    # read past its rows); a set never changes once made
    index = impl.SortedFingerprints(fp(rows))
    assert impl.positions(index, [fp(rows * 2)]).tolist() == list(range(len(rows))) * 2
    with pytest.raises(TypeError, match="a SortedFingerprints is made once"):
        index.__init__(fp([[1, 1]]))
    with pytest.raises(TypeError, match="a SortedFingerprints is made once"):
        index.__init__(fp(rows))
    assert len(index) == len(rows) and index.to_array().tolist() == rows
    assert impl.positions(index, [fp(rows * 2)]).tolist() == list(range(len(rows))) * 2
    # (one made without __init__ is an empty set that may still be made)
    blank = impl.SortedFingerprints.__new__(impl.SortedFingerprints)
    blank.__init__(fp([[5, 5]]))
    assert blank.to_array().tolist() == [[5, 5]]


def test_positions_read_views_that_are_not_contiguous(impl):
    data = fp([[1, 1], [2, 2], [3, 3]])
    wide = np.ascontiguousarray(np.concatenate([data, data], axis=1))
    view = wide[::-1, 2:]  # every row of data, reversed, as a strided view
    assert not view.flags.c_contiguous
    assert impl.positions(impl.SortedFingerprints(data), (view,)).tolist() == [2, 1, 0]


@pytest.mark.parametrize(
    "call, exc, message",
    [
        (lambda m, s: m.positions(fp([[1, 2]]), [fp([[1, 2]])]), TypeError, "index must be a SortedFingerprints, not ndarray"),
        (lambda m, s: m.positions(s, fp([[1, 2]])), TypeError, "queries must be a list or tuple of fingerprint arrays, not ndarray"),
        (lambda m, s: m.positions(s, [fp([[1, 2]]), [[1, 2]]]), TypeError, r"queries\[1\] must be a numpy array"),
        (lambda m, s: m.positions(s, [np.zeros((2, 2), dtype=np.int64)]), TypeError, r"queries\[0\] must have dtype uint64"),
        (lambda m, s: m.positions(s, [np.zeros((2, 3), dtype=np.uint64)]), InvalidArgumentError, r"queries\[0\] must have shape \(n, 2\)"),
        (lambda m, s: m.positions(m.SortedFingerprints(fp([[1, 2], [1, 2]])), [fp([[1, 2]])]), InvalidArgumentError,
         "index has a repeated row"),
    ],
)
def test_positions_refuse_bad_input(impl, call, exc, message):
    with pytest.raises(exc, match=message):
        call(impl, impl.SortedFingerprints(fp([[1, 2], [3, 4]])))


def _place_oracle(index_rows: np.ndarray, queries: list[np.ndarray], codes: list[int]):
    at = {tuple(r): i for i, r in enumerate(index_rows.tolist())}
    counts, strongest = [0] * len(index_rows), [0] * len(index_rows)
    for q, code in zip(queries, codes):
        for r in q.tolist():
            p = at.get(tuple(r))
            if p is not None:
                counts[p] += 1
                strongest[p] = max(strongest[p], code)
    return counts, strongest


@SETTINGS
@given(pair=fingerprint_arrays(), cuts=st.lists(st.integers(0, 40), max_size=4),
       codes=st.lists(st.integers(0, 255), min_size=5, max_size=5))
def test_place_rows_counts_each_distinct_row_and_keeps_the_strongest_code(impl, pair, cuts, codes):
    a, b = pair
    index_rows = impl.unique_counts(a)[0]
    bounds = [0, *sorted(cuts), len(b)]
    queries = [np.ascontiguousarray(b[x:y]) for x, y in zip(bounds, bounds[1:])]
    codes = codes[:len(queries)]
    out, counts, strongest = impl.place_rows(impl.SortedFingerprints(index_rows), queries, codes)
    assert out.dtype == np.int64 and counts.dtype == np.int64 and strongest.dtype == np.uint8
    assert out.tolist() == _positions_oracle(index_rows, queries)
    assert (counts.tolist(), strongest.tolist()) == _place_oracle(index_rows, queries, codes)


@_only_with_native
@SETTINGS
@given(pair=fingerprint_arrays(), codes=st.lists(st.integers(0, 255), min_size=3, max_size=3))
def test_place_rows_native_equals_reference(pair, codes):
    a, b = pair
    native, reference = _load("native"), _load("reference")
    rows = reference.unique_counts(a)[0]
    queries = [b, a, b[::2]]
    mine = native.place_rows(native.SortedFingerprints(rows), queries, codes)
    theirs = reference.place_rows(reference.SortedFingerprints(rows), queries, tuple(codes))
    assert all(np.array_equal(x, y) and x.dtype == y.dtype for x, y in zip(mine, theirs))


def test_place_rows_keeps_the_largest_code_whatever_the_order(impl):
    index = impl.SortedFingerprints(fp([[1, 1], [2, 2], [3, 3]]))
    queries = [fp([[2, 2], [9, 9]]), fp([[2, 2], [1, 1]]), fp([[2, 2]]), fp([])]
    out, counts, strongest = impl.place_rows(index, queries, [1, 2, 0, 255])
    assert out.tolist() == [1, -1, 1, 0, 1]
    assert counts.tolist() == [1, 3, 0] and strongest.tolist() == [2, 2, 0]
    assert [x.tolist() for x in impl.place_rows(index, [], [])] == [[], [0, 0, 0], [0, 0, 0]]


@pytest.mark.parametrize(
    "call, exc, message",
    [
        (lambda m, s: m.place_rows(fp([[1, 2]]), [fp([[1, 2]])], [0]), TypeError, "index must be a SortedFingerprints"),
        (lambda m, s: m.place_rows(s, fp([[1, 2]]), [0]), TypeError, "queries must be a list or tuple"),
        (lambda m, s: m.place_rows(s, [[[1, 2]]], [0]), TypeError, r"queries\[0\] must be a numpy array"),
        (lambda m, s: m.place_rows(s, [fp([[1, 2]])], np.zeros(1, dtype=np.uint8)), TypeError,
         "codes must be a list or tuple of ints, not ndarray"),
        (lambda m, s: m.place_rows(s, [fp([[1, 2]])], [0, 1]), InvalidArgumentError,
         "codes must have one item per query array, got 2 for 1"),
        (lambda m, s: m.place_rows(s, [fp([[1, 2]])], [256]), InvalidArgumentError, r"codes\[0\] must be in 0..255, got 256"),
        (lambda m, s: m.place_rows(s, [fp([[1, 2]])], [-1]), InvalidArgumentError, r"codes\[0\] must be in 0..255"),
        (lambda m, s: m.place_rows(s, [fp([[1, 2]]), fp([])], [1, True]), TypeError, r"codes\[1\] must be an int, not bool"),
        (lambda m, s: m.place_rows(s, [fp([[1, 2]])], [1.0]), TypeError, r"codes\[0\] must be an int, not float"),
        (lambda m, s: m.place_rows(m.SortedFingerprints(fp([[1, 2], [1, 2]])), [fp([[1, 2]])], [0]), InvalidArgumentError,
         "index has a repeated row"),
    ],
)
def test_place_rows_refuses_bad_input(impl, call, exc, message):
    with pytest.raises(exc, match=message):
        call(impl, impl.SortedFingerprints(fp([[1, 2], [3, 4]])))


def _draw_oracle(index_rows, left, queries, kinds, skip):
    left = list(left)
    where = {tuple(r): i for i, r in enumerate(index_rows.tolist())}
    drawn, counts = [], []
    for q, kind in zip(queries, kinds):
        n = 0
        for row, code in zip(q.tolist(), kind.tolist()):
            p = where.get(tuple(row), -1)
            hit = code != skip and p >= 0 and left[p] > 0
            if hit:
                left[p] -= 1
                n += 1
            drawn.append(hit)
        counts.append(n)
    return drawn, counts, left


@SETTINGS
@given(pair=fingerprint_arrays(), cuts=st.lists(st.integers(0, 40), max_size=4), data=st.data())
def test_draw_rows_draws_first_come_first_served(impl, pair, cuts, data):
    a, b = pair
    index_rows, counts = impl.unique_counts(a)
    left = counts + np.array(data.draw(st.lists(st.integers(-1, 2), min_size=len(counts), max_size=len(counts))),
                             dtype=np.int64)
    bounds = [0, *sorted(cuts), len(b)]
    queries = [np.ascontiguousarray(b[x:y]) for x, y in zip(bounds, bounds[1:])]
    kinds = [np.array(data.draw(st.lists(st.integers(0, 2), min_size=len(q), max_size=len(q))), dtype=np.uint8)
             for q in queries]
    expected = _draw_oracle(index_rows, left.tolist(), queries, kinds, 1)
    drawn, drawn_counts = impl.draw_rows(impl.SortedFingerprints(index_rows), left, queries, kinds, 1)
    assert drawn.dtype == np.bool_ and drawn_counts.dtype == np.int64
    assert (drawn.tolist(), drawn_counts.tolist(), left.tolist()) == expected


def _queries_through_views(queries: list) -> tuple[list, list]:
    """``queries`` (the third a view that is not contiguous) with kind codes 0-3 in turn, the
    third's kinds read through a view too: what both native routines must read as the
    reference does."""
    kinds = [(np.arange(len(q)) % 4).astype(np.uint8) for q in queries]
    kinds[2] = np.repeat(kinds[2], 2)[::2]
    return queries, kinds


@_only_with_native
@SETTINGS
@given(pair=fingerprint_arrays(), skip=st.integers(0, 3))
def test_draw_rows_native_equals_reference(pair, skip):
    a, b = pair
    native, reference = _load("native"), _load("reference")
    rows, counts = reference.unique_counts(a)
    queries, kinds = _queries_through_views([b, a, b[::2]])
    mine_left, their_left = counts.copy(), counts.copy()
    mine = native.draw_rows(native.SortedFingerprints(rows), mine_left, queries, kinds, skip)
    theirs = reference.draw_rows(reference.SortedFingerprints(rows), their_left, tuple(queries), tuple(kinds), skip)
    assert all(np.array_equal(x, y) and x.dtype == y.dtype for x, y in zip(mine, theirs))
    assert np.array_equal(mine_left, their_left)


def test_draw_rows_uses_the_pool_up_in_order(impl):
    index = impl.SortedFingerprints(fp([[1, 1], [2, 2], [3, 3]]))
    left = np.array([1, 2, 0], dtype=np.int64)
    queries = [fp([[2, 2], [1, 1], [1, 1]]), fp([[2, 2], [2, 2], [3, 3], [9, 9]]), fp([])]
    kinds = [np.array([0, 7, 0], dtype=np.uint8), np.zeros(4, dtype=np.uint8), np.zeros(0, dtype=np.uint8)]
    drawn, counts = impl.draw_rows(index, left, queries, kinds, 7)
    # the marker row (kind 7) draws nothing, so the second [1, 1] takes the one left
    assert drawn.tolist() == [True, False, True, True, False, False, False]
    assert counts.tolist() == [2, 1, 0] and left.tolist() == [0, 0, 0]


def test_draw_rows_read_every_kinds_view_from_a_copy(impl):
    # rv21, 01: a second view that is not contiguous was refused natively ("got 2 for 3")
    index = impl.SortedFingerprints(fp([[1, 1], [2, 2]]))
    left = np.array([1, 1], dtype=np.int64)
    queries = [fp([[1, 1], [2, 2]]), fp([[2, 2], [1, 1]]), fp([[1, 1]])]
    kinds = [np.zeros(4, dtype=np.uint8)[::2], np.array([0, 9, 7, 9], dtype=np.uint8)[::2], np.zeros(2, np.uint8)[::2]]
    drawn, counts = impl.draw_rows(index, left, queries, kinds, 7)
    assert drawn.tolist() == [True, True, False, False, False] and counts.tolist() == [2, 0, 0]


def _index_counts_oracle(queries, kinds, skip):
    """The rows not of kind ``skip``, counted with a dict: (sorted distinct rows, their counts)."""
    seen: dict = {}
    for q, kind in zip(queries, kinds):
        for row, code in zip(q.tolist(), kind.tolist()):
            if code != skip:
                seen[tuple(row)] = seen.get(tuple(row), 0) + 1
    rows = sorted(seen)
    return [list(r) for r in rows], [seen[r] for r in rows]


@SETTINGS
@given(pair=fingerprint_arrays(), cuts=st.lists(st.integers(0, 40), max_size=4), data=st.data())
def test_index_counts_counts_the_rows_not_skipped(impl, pair, cuts, data):
    a, _ = pair
    bounds = [0, *sorted(min(c, len(a)) for c in cuts), len(a)]
    queries = [np.ascontiguousarray(a[x:y]) for x, y in pairwise(bounds)]
    kinds = [np.array(data.draw(st.lists(st.integers(0, 2), min_size=len(q), max_size=len(q))), dtype=np.uint8)
             for q in queries]
    index, counts = impl.index_counts(queries, kinds, 1)
    assert type(index) is impl.SortedFingerprints and counts.dtype == np.int64 and counts.ndim == 1
    assert (index.to_array().tolist(), counts.tolist()) == _index_counts_oracle(queries, kinds, 1)
    # the set is one that look-ups accept: every row not skipped is found where it sits
    rows = index.to_array()
    if len(rows):
        assert impl.positions(index, [rows]).tolist() == list(range(len(rows)))


@_only_with_native
@SETTINGS
@given(pair=fingerprint_arrays(), skip=st.integers(0, 3))
def test_index_counts_native_equals_reference(pair, skip):
    a, b = pair
    native, reference = _load("native"), _load("reference")
    queries, kinds = _queries_through_views([b, a, b[::2], a[:0]])  # (and an empty array)
    mine = native.index_counts(queries, kinds, skip)
    theirs = reference.index_counts(tuple(queries), tuple(kinds), skip)
    assert np.array_equal(mine[0].to_array(), theirs[0].to_array())
    assert np.array_equal(mine[1], theirs[1]) and mine[1].dtype == theirs[1].dtype


def test_index_counts_of_nothing_is_an_empty_set(impl):
    for queries, kinds in (([], []), ([fp([])], [np.zeros(0, np.uint8)]), ([fp([[1, 2]] * 3)], [np.full(3, 7, np.uint8)])):
        index, counts = impl.index_counts(queries, kinds, 7)
        assert len(index) == 0 and counts.tolist() == [] and counts.dtype == np.int64
        assert impl.positions(index, [fp([[1, 2]])]).tolist() == [-1]


def test_index_counts_of_many_rows_agrees_with_numpy(impl):
    rng = np.random.default_rng(5)
    n = 200_000 if impl.IMPLEMENTATION == "native" else 20_000  # (the reference reads row by row)
    rows = rng.integers(0, 50, size=(n, 2), dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    kinds = rng.integers(0, 3, size=n, dtype=np.uint8)
    halves = [rows[: n // 3], rows[n // 3:]]
    kind_halves = [kinds[: n // 3], kinds[n // 3:]]
    index, counts = impl.index_counts(halves, kind_halves, 2)
    kept = rows[kinds != 2]
    values, expected = np.unique(kept[np.lexsort((kept[:, 1], kept[:, 0]))], axis=0, return_counts=True)
    assert np.array_equal(index.to_array(), values) and counts.tolist() == expected.tolist()


@pytest.mark.parametrize(
    "change, exc, message",
    [
        ({"queries": fp([[1, 2]])}, TypeError, "queries must be a list or tuple"),
        ({"queries": [[1, 2]]}, TypeError, r"queries\[0\] must be a numpy array"),
        ({"queries": [np.ones((1, 2), dtype=np.int64)]}, TypeError, r"queries\[0\] must have dtype uint64"),
        ({"queries": [np.ones((1, 3), dtype=np.uint64)]}, InvalidArgumentError, r"queries\[0\] must have shape \(n, 2\)"),
        # (every query is checked before any kind, as the reference does)
        ({"queries": [fp([[1, 2]]), [1]], "kinds": [[0], [0]]}, TypeError, r"queries\[1\] must be a numpy array"),
        ({"kinds": np.zeros(1, dtype=np.uint8)}, TypeError, "kinds must be a list or tuple of uint8 arrays, not ndarray"),
        ({"kinds": []}, InvalidArgumentError, "kinds must have one array per query array, got 0 for 1"),
        ({"kinds": [[0]]}, TypeError, r"kinds\[0\] must be a numpy uint8 array, not list"),
        ({"kinds": [np.zeros(1, dtype=np.int64)]}, TypeError, r"kinds\[0\] must be a numpy uint8 array, not ndarray of int64"),
        ({"kinds": [np.zeros(2, dtype=np.uint8)]}, InvalidArgumentError, r"kinds\[0\] must have one entry per row of queries\[0\] \(1\)"),
        ({"kinds": [np.zeros((1, 1), dtype=np.uint8)]}, InvalidArgumentError, r"kinds\[0\] must have one entry per row"),
        ({"skip_kind": 256}, InvalidArgumentError, "skip_kind must be in 0..255"),
        ({"skip_kind": -1}, InvalidArgumentError, "skip_kind must be in 0..255"),
        ({"skip_kind": True}, TypeError, "skip_kind must be an int, not bool"),
        ({"skip_kind": 7.0}, TypeError, "skip_kind must be an int, not float"),
    ],
)
def test_index_counts_refuses_bad_input(impl, change, exc, message):
    args = {"queries": [fp([[1, 2]])], "kinds": [np.zeros(1, dtype=np.uint8)], "skip_kind": 7}
    args.update(change)
    with pytest.raises(exc, match=message):
        impl.index_counts(**args)


class _ValueTable:
    """The columns undrawn_values reads (a FactTable has them, and more)."""

    def __init__(self, data, kind, value_start, value_end):
        self.data = data
        self.kind = kind
        self.value_start = value_start
        self.value_end = value_end


def _value_table(data: bytes, rows) -> _ValueTable:
    """rows: (kind, start, end) each."""
    rows = list(rows)
    return _ValueTable(data, np.array([k for k, _, _ in rows], dtype=np.uint8),
                       np.array([a for _, a, _ in rows], dtype=np.int64), np.array([b for _, _, b in rows], dtype=np.int64))


@st.composite
def value_tables(draw):
    tables = []
    for _ in range(draw(st.integers(0, 4))):
        data = draw(st.binary(max_size=30))
        rows = []
        for _ in range(draw(st.integers(0, 8))):
            a = draw(st.integers(0, len(data)))
            rows.append((draw(st.integers(0, 3)), a, draw(st.integers(a, len(data)))))
        tables.append(_value_table(data, rows))
    total = sum(len(t.kind) for t in tables)
    drawn = np.array(draw(st.lists(st.booleans(), min_size=total, max_size=total)), dtype=np.bool_)
    return tables, drawn


@SETTINGS
@given(case=value_tables(), kind=st.integers(0, 3))
def test_undrawn_values_are_the_rows_of_the_kind_left_over(impl, case, kind):
    tables, drawn = case
    expected_owners, expected_values = [], []
    at = 0
    for t, table in enumerate(tables):
        for k, a, b in zip(table.kind.tolist(), table.value_start.tolist(), table.value_end.tolist()):
            if k == kind and not drawn[at]:
                expected_owners.append(t)
                expected_values.append(table.data[a:b])
            at += 1
    owners, values = impl.undrawn_values(tables, drawn, kind)
    assert owners.dtype == np.int64 and type(values) is list
    assert (owners.tolist(), values) == (expected_owners, expected_values)
    assert all(type(v) is bytes for v in values)


@_only_with_native
@SETTINGS
@given(case=value_tables(), kind=st.integers(0, 3))
def test_undrawn_values_native_equals_reference(case, kind):
    tables, drawn = case
    native, reference = _load("native"), _load("reference")
    # (columns read through views that are not contiguous, and a flag array that is one)
    viewed = [_ValueTable(t.data, np.repeat(t.kind, 2)[::2], np.repeat(t.value_start, 2)[::2],
                          np.repeat(t.value_end, 2)[::2]) for t in tables]
    mine = native.undrawn_values(viewed, np.repeat(drawn, 2)[::2], kind)
    theirs = reference.undrawn_values(tuple(tables), drawn, kind)
    assert np.array_equal(mine[0], theirs[0]) and mine[1] == theirs[1]


def test_undrawn_values_of_a_real_table(impl):
    from provgate.facts import Kind, extract

    table = extract(b'limit=5 and "exact words" then retries=3, "more"\n')
    quote, kv = int(Kind.QUOTE), int(Kind.KV)
    drawn = np.zeros(len(table), dtype=np.bool_)
    owners, values = impl.undrawn_values([table, table], np.concatenate([drawn, ~drawn]), quote)
    assert owners.tolist() == [0, 0] and values == [b"exact words", b"more"]
    owners, values = impl.undrawn_values([table], drawn, kv)
    assert owners.tolist() == [0, 0] and values == [b"5", b"3"]
    assert [v.tolist() for v in impl.undrawn_values([], np.zeros(0, np.bool_), kv)[:1]] == [[]]


def test_undrawn_values_of_many_rows(impl):
    n = 100_000 if impl.IMPLEMENTATION == "native" else 10_000
    data = bytes(range(256)) * 4
    rng = np.random.default_rng(3)
    starts = rng.integers(0, 512, size=n)
    table = _ValueTable(data, rng.integers(0, 2, size=n, dtype=np.uint8), starts, starts + rng.integers(0, 512, size=n))
    drawn = rng.integers(0, 2, size=n).astype(np.bool_)
    owners, values = impl.undrawn_values([table], drawn, 1)
    rows = np.flatnonzero((table.kind == 1) & ~drawn)
    assert owners.tolist() == [0] * len(rows)
    assert values == [data[a:b] for a, b in zip(table.value_start[rows].tolist(), table.value_end[rows].tolist())]


@pytest.mark.parametrize(
    "change, exc, message",
    [
        ({"tables": _value_table(b"ab", [(1, 0, 1)])}, TypeError, "tables must be a list or tuple of fact tables"),
        ({"tables": [object()]}, TypeError, r"tables\[0\].data must be bytes, not NoneType"),
        ({"tables": [_ValueTable(bytearray(b"ab"), np.ones(1, np.uint8), np.zeros(1, np.int64), np.ones(1, np.int64))]},
         TypeError, r"tables\[0\].data must be bytes, not bytearray"),
        ({"tables": [_ValueTable(b"ab", np.ones(1, np.int64), np.zeros(1, np.int64), np.ones(1, np.int64))]},
         TypeError, r"tables\[0\].kind must be a 1-D uint8 array, not 1-D int64 array"),
        ({"tables": [_ValueTable(b"ab", np.ones(1, np.uint8), np.zeros(1, np.int32), np.ones(1, np.int64))]},
         TypeError, r"tables\[0\].value_start must be a 1-D int64 array, not 1-D int32 array"),
        ({"tables": [_ValueTable(b"ab", np.ones(1, np.uint8), np.zeros(1, np.int64), [1])]},
         TypeError, r"tables\[0\].value_end must be a 1-D int64 array, not list"),
        ({"tables": [_ValueTable(b"ab", np.ones(1, np.uint8), np.zeros(2, np.int64), np.ones(1, np.int64))]},
         InvalidArgumentError, r"tables\[0\].value_start has 2 rows for 1 kinds"),
        # (every table is checked before the kind and the flags)
        ({"tables": [_value_table(b"ab", [(1, 0, 1)]), object()], "kind": 999}, TypeError, r"tables\[1\].data"),
        ({"kind": 256}, InvalidArgumentError, "kind must be in 0..255"),
        ({"kind": True}, TypeError, "kind must be an int, not bool"),
        ({"drawn": [False]}, TypeError, "drawn must be a numpy bool array, not list"),
        ({"drawn": np.zeros(1, np.uint8)}, TypeError, "drawn must be a numpy bool array, not ndarray of uint8"),
        ({"drawn": np.zeros(2, np.bool_)}, InvalidArgumentError, "drawn must be a 1-D array of 1 flags"),
        ({"drawn": np.zeros((1, 1), np.bool_)}, InvalidArgumentError, "drawn must be a 1-D array of 1 flags"),
        ({"tables": [_value_table(b"ab", [(1, 1, 3)])]}, InvalidArgumentError,
         r"tables\[0\] row 0 spans bytes 1..3, outside its 2 bytes of data"),
        ({"tables": [_value_table(b"ab", [(0, 9, 9), (1, 2, 1)])]}, InvalidArgumentError,
         r"tables\[0\] row 1 spans bytes 2..1"),
        ({"tables": [_value_table(b"ab", [(0, 9, 9), (1, -1, 1)])]}, InvalidArgumentError,
         r"tables\[0\] row 1 spans bytes -1..1"),
    ],
)
def test_undrawn_values_refuses_bad_input(impl, change, exc, message):
    args = {"tables": [_value_table(b"ab", [(1, 0, 1)])], "drawn": np.zeros(1, np.bool_), "kind": 1}
    if "tables" in change and "drawn" not in change:
        tables = change["tables"]
        total = sum(len(getattr(t, "kind", ())) for t in tables) if isinstance(tables, list) else 1
        args["drawn"] = np.zeros(total, np.bool_)
    args.update(change)
    with pytest.raises(exc, match=message):
        impl.undrawn_values(**args)


def test_undrawn_values_skip_rows_drawn_or_of_another_kind_whatever_their_spans(impl):
    # (a span is checked only where a value is read)
    table = _value_table(b"ab", [(0, 9, 9), (1, 7, 3), (1, 0, 2)])
    owners, values = impl.undrawn_values([table], np.array([False, True, False]), 1)
    assert owners.tolist() == [0] and values == [b"ab"]


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=value_tables(), kinds=st.lists(st.integers(0, 3), min_size=1, max_size=4, unique=True).map(tuple))
def test_undrawn_values_of_kinds_are_each_kinds_undrawn_values(impl, case, kinds):
    # (I5 asks for its key=value and quote rows in one read of the tables)
    tables, drawn = case
    found = impl.undrawn_values_of_kinds(tables, drawn, kinds)
    assert type(found) is list and len(found) == len(kinds)
    reference = _load("reference").undrawn_values_of_kinds(tuple(tables), drawn, kinds)
    for (owners, values), (their_owners, their_values), kind in zip(found, reference, kinds):
        alone = impl.undrawn_values(tables, drawn, kind)
        assert owners.dtype == np.int64 and type(values) is list
        assert owners.tolist() == alone[0].tolist() == their_owners.tolist() and values == alone[1] == their_values


@pytest.mark.parametrize(
    "change, exc, message",
    [
        ({"kinds": [1]}, TypeError, "kinds must be a tuple of ints, not list"),
        ({"kinds": 1}, TypeError, "kinds must be a tuple of ints, not int"),
        ({"kinds": (1, 1)}, InvalidArgumentError, r"kinds must be distinct, got \[1, 1\]"),
        ({"kinds": (1, 256)}, InvalidArgumentError, r"kinds\[1\] must be in 0..255"),
        ({"kinds": (True,)}, TypeError, r"kinds\[0\] must be an int, not bool"),
        ({"kinds": (1, 1, 256)}, InvalidArgumentError, r"kinds\[2\] must be in 0..255"),
        # (every table is checked before the kinds, the kinds before the flags)
        ({"tables": [object()], "kinds": (1, 1)}, TypeError, r"tables\[0\].data"),
        ({"kinds": (1, 1), "drawn": [False]}, InvalidArgumentError, "kinds must be distinct"),
        # a span outside its data: the first such row of any of the kinds, tables end to end
        ({"tables": [_value_table(b"ab", [(1, 0, 1), (0, 9, 9)]), _value_table(b"ab", [(1, 7, 7)])]},
         InvalidArgumentError, r"tables\[0\] row 1 spans bytes 9..9"),
        ({"tables": [_value_table(b"ab", [(2, 9, 9), (0, 0, 1)]), _value_table(b"ab", [(1, 0, 1), (1, 5, 6)])]},
         InvalidArgumentError, r"tables\[1\] row 1 spans bytes 5..6"),
    ],
)
def test_undrawn_values_of_kinds_refuses_bad_input(impl, change, exc, message):
    args = {"tables": [_value_table(b"ab", [(1, 0, 1)])], "drawn": np.zeros(1, np.bool_), "kinds": (1, 0)}
    if "tables" in change:
        tables = change["tables"]
        args["drawn"] = np.zeros(sum(len(getattr(t, "kind", ())) for t in tables), np.bool_)
    args.update(change)
    with pytest.raises(exc, match=message):
        impl.undrawn_values_of_kinds(**args)


def _aliases_of_left():
    # each: (left, queries, kinds, the argument named): a query or kinds array over left's bytes
    left = np.ones(4, dtype=np.int64)
    yield left, [left.view(np.uint64).reshape(-1, 2)], [np.zeros(2, dtype=np.uint8)], "queries[0]"
    left = np.ones(2, dtype=np.int64)
    yield left, [fp([[9, 9]] * 9)], [left.view(np.uint8)[:9]], "kinds[0]"
    left = np.ones(2, dtype=np.int64)
    yield left, [fp([[9, 9]] * 8)], [left.view(np.uint8)[::2]], "kinds[0]"  # (a view, read from a copy)
    left = np.ones(4, dtype=np.int64)
    # (rows read backwards, from a negative stride: the extent still covers left's bytes)
    yield left[:2], [fp([[1, 1]]), left.view(np.uint64).reshape(-1, 2)[::-1]], [np.zeros(1, np.uint8), np.zeros(2, np.uint8)], "queries[1]"


@pytest.mark.parametrize("case", range(4))
def test_draw_rows_refuse_a_left_that_shares_memory_with_what_they_read(impl, case):
    # rv21, 02: left is used up while the rows are read; natively a decrement changed rows (or
    # kinds) not read yet, the reference read them first: both refuse the overlap
    left, queries, kinds, named = list(_aliases_of_left())[case]
    n = len(left)
    index = impl.SortedFingerprints(fp([[0, k] for k in range(n)]))
    before = left.copy()
    with pytest.raises(InvalidArgumentError, match=rf"left must not share memory with {re.escape(named)}"):
        impl.draw_rows(index, left, queries, kinds, 7)
    assert np.array_equal(left, before)
    # arrays next to left, but not over it, are fine
    spare = np.ones(2 * n, dtype=np.int64)
    impl.draw_rows(index, spare[:n], [spare[n:].view(np.uint64).reshape(-1, 2)], [np.zeros(n // 2, np.uint8)], 7)


@pytest.mark.parametrize(
    "change, exc, message",
    [
        (dict(index=fp([[1, 2], [3, 4]])), TypeError, "index must be a SortedFingerprints"),
        (dict(queries=fp([[1, 2]])), TypeError, "queries must be a list or tuple"),
        (dict(left=[1, 1]), TypeError, "left must be a numpy int64 array, not list"),
        (dict(left=np.ones(2, dtype=np.int32)), TypeError, "left must be a numpy int64 array, not ndarray of int32"),
        (dict(left=np.ones(2, dtype=">i8")), TypeError, "left must be a numpy int64 array"),
        (dict(left=np.ones(3, dtype=np.int64)), InvalidArgumentError, r"left must be a writable, C-contiguous 1-D array of 2"),
        (dict(left=np.ones(4, dtype=np.int64)[::2]), InvalidArgumentError, "left must be a writable"),
        (dict(left=np.frombuffer(np.ones(2, dtype=np.int64).tobytes(), dtype=np.int64)), InvalidArgumentError,
         "left must be a writable"),
        (dict(kinds=np.zeros(1, dtype=np.uint8)), TypeError, "kinds must be a list or tuple of uint8 arrays, not ndarray"),
        (dict(kinds=[]), InvalidArgumentError, "kinds must have one array per query array, got 0 for 1"),
        (dict(kinds=[[0]]), TypeError, r"kinds\[0\] must be a numpy uint8 array, not list"),
        (dict(kinds=[np.zeros(1, dtype=np.int64)]), TypeError, r"kinds\[0\] must be a numpy uint8 array, not ndarray of int64"),
        (dict(kinds=[np.zeros(2, dtype=np.uint8)]), InvalidArgumentError, r"kinds\[0\] must have one entry per row of queries\[0\] \(1\)"),
        (dict(kinds=[np.zeros((1, 1), dtype=np.uint8)]), InvalidArgumentError, r"kinds\[0\] must have one entry per row"),
        (dict(skip_kind=256), InvalidArgumentError, "skip_kind must be in 0..255"),
        (dict(skip_kind=True), TypeError, "skip_kind must be an int, not bool"),
    ],
)
def test_draw_rows_refuses_bad_input(impl, change, exc, message):
    args = dict(index=impl.SortedFingerprints(fp([[1, 2], [3, 4]])), left=np.ones(2, dtype=np.int64),
                queries=[fp([[1, 2]])], kinds=[np.zeros(1, dtype=np.uint8)], skip_kind=7)
    args.update(change)
    before = args["left"].copy() if isinstance(args["left"], np.ndarray) else None
    with pytest.raises(exc, match=message):
        impl.draw_rows(**args)
    if before is not None:  # nothing is drawn from a pool by a call that fails
        assert np.array_equal(args["left"], before)


@_only_with_native
def test_positions_do_not_cross_implementations():
    native, reference = _load("native"), _load("reference")
    for mine, other in ((native, reference), (reference, native)):
        with pytest.raises(TypeError, match="index must be a SortedFingerprints, not SortedFingerprints"):
            mine.positions(other.SortedFingerprints(fp([[1, 2]])), [fp([[1, 2]])])


@pytest.mark.parametrize("name, value, error", [("number_kind", "4", TypeError), ("url_kind", 1.0, TypeError),
                                                ("number_kind", 256, InvalidArgumentError),
                                                ("url_kind", -1, InvalidArgumentError)])
def test_ungrounded_rows_refuses_bad_literal_kinds(impl, name, value, error):
    table = Table(b"x -5", [4], [[1, 1]], [[1, 1]], [(3, 4)], [(3, 4)])
    args = dict(groups=[[]], haystack_groups=[[0]], skip_kind=SKIP, pair_kind=PAIR, quote_kind=QUOTE)
    with pytest.raises(error, match=name):
        impl.ungrounded_rows([table], [], [b"x -5"], **args, **{name: value})
    # "5" in "x -5": a plain token there, not a number (its sign starts the source's token)
    assert impl.ungrounded_rows([table], [], [b"x -5"], **args)[1].tolist() == []
    assert impl.ungrounded_rows([table], [], [b"x -5"], **args, number_kind=4)[1].tolist() == [0]


_GROUNDING_ROWS = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3),
                                     st.sampled_from([U64_MAX, 0, 1]), st.integers(0, 4)), max_size=40)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=_GROUNDING_ROWS)
def test_grounding_index_is_the_distinct_values_facts_and_kv_keys(impl, rows):
    # the three fingerprint frames of a text (values, facts, and the keys of kv facts) in one
    # sorted distinct set; native and reference equal, and equal to the definition
    n = len(rows)
    value = np.array([[a, b] for a, b, *_ in rows], dtype=np.uint64).reshape(n, 2)
    fact = np.array([[b, c] for _, b, c, *_ in rows], dtype=np.uint64).reshape(n, 2)
    key = np.array([[d, e] for *_, d, e, _ in rows], dtype=np.uint64).reshape(n, 2)
    kind = np.array([k for *_, k in rows], dtype=np.uint8)
    got = impl.grounding_index(value, fact, key, kind, 3)
    assert type(got) is impl.SortedFingerprints
    expected = sorted({*map(tuple, value.tolist()), *map(tuple, fact.tolist()),
                       *(tuple(r) for r, k in zip(key.tolist(), kind.tolist()) if k == 3)})
    assert [tuple(r) for r in got.to_array().tolist()] == expected
    reference = _load("reference").grounding_index(value, fact, key, kind, 3)
    assert got.to_array().tolist() == reference.to_array().tolist()
    # it is searched as any set is
    if n:
        assert not impl.absent_from_all(value, [got]).any()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(_GROUNDING_ROWS, max_size=6))
def test_grounding_index_many_is_grounding_index_of_each(impl, texts):
    # the batched call (one shared buffer, one sort per text) makes the very sets the call per
    # text makes, empty texts and sets too, in order
    columns = []
    for rows in texts:
        n = len(rows)
        columns.append((np.array([[a, b] for a, b, *_ in rows], dtype=np.uint64).reshape(n, 2),
                        np.array([[b, c] for _, b, c, *_ in rows], dtype=np.uint64).reshape(n, 2),
                        np.array([[d, e] for *_, d, e, _ in rows], dtype=np.uint64).reshape(n, 2),
                        np.array([k for *_, k in rows], dtype=np.uint8)))
    got = impl.grounding_index_many(columns, 3)
    assert [type(x) for x in got] == [impl.SortedFingerprints] * len(columns)
    one_by_one = [_load("reference").grounding_index(*c, 3) for c in columns]
    assert [x.to_array().tolist() for x in got] == [x.to_array().tolist() for x in one_by_one]
    for x, (value, *_) in zip(got, columns):
        assert not impl.absent_from_all(value, [x]).any()  # each searchable as any set is


def test_grounding_index_many_reads_array_subclasses(impl):
    # a column check that falls back to the full check accepts what it accepts
    value = np.arange(8, dtype=np.uint64).reshape(4, 2)
    kind = np.array([3, 0, 3, 1], dtype=np.uint8)
    sub = value.view(type("Fingerprints", (np.ndarray,), {}))
    got = impl.grounding_index_many([(sub, value.copy(), value.copy(), kind)], 3)
    assert got[0].to_array().tolist() == impl.grounding_index(value, value, value, kind, 3).to_array().tolist()


@pytest.mark.parametrize("change, message", [
    (lambda v, f, k, kind: (v, f[:-1], k, kind), "as many rows"),
    (lambda v, f, k, kind: (v, f, k, kind.astype(np.int64)), "uint8"),
    (lambda v, f, k, kind: (v, f, k, list(kind)), "uint8"),
    (lambda v, f, k, kind: (v[:, ::-1], f, k, kind), "C-contiguous"),
    (lambda v, f, k, kind: (v.astype(">u8"), f, k, kind), "native byte order"),
    (lambda v, f, k, kind: (v, f.astype(np.int64), k, kind), "dtype uint64"),
])
def test_grounding_index_many_names_the_text_it_refuses(impl, change, message):
    value = np.arange(8, dtype=np.uint64).reshape(4, 2)
    kind = np.array([3, 0, 3, 1], dtype=np.uint8)
    good = (value, value.copy(), value.copy(), kind)
    with pytest.raises((InvalidArgumentError, TypeError), match=message) as caught:
        impl.grounding_index_many([good, change(value, value.copy(), value.copy(), kind)], 3)
    assert "in columns[1]" in getattr(caught.value, "__notes__", [])


@pytest.mark.parametrize("columns, error, message", [
    ("abc", TypeError, "list or tuple"),
    ([(1, 2, 3)], InvalidArgumentError, r"columns\[0\] must be a tuple"),
    ([[1, 2, 3, 4]], InvalidArgumentError, r"columns\[0\] must be a tuple"),
])
def test_grounding_index_many_refuses_what_is_no_list_of_columns(impl, columns, error, message):
    with pytest.raises(error, match=message):
        impl.grounding_index_many(columns, 3)
    assert impl.grounding_index_many([], 3) == []


@pytest.mark.parametrize("change, message", [
    (lambda v, f, k, kind: (v, f[:-1], k, kind), "as many rows"),
    (lambda v, f, k, kind: (v, f, k, kind.astype(np.int64)), "uint8"),
    (lambda v, f, k, kind: (v, f, k, kind[:-1]), "uint8"),
    (lambda v, f, k, kind: (v, f, k, list(kind)), "uint8"),
    (lambda v, f, k, kind: (v[:, ::-1], f, k, kind), "C-contiguous"),
])
def test_grounding_index_refuses_mismatched_columns(impl, change, message):
    value = np.arange(8, dtype=np.uint64).reshape(4, 2)
    kind = np.array([3, 0, 3, 1], dtype=np.uint8)
    with pytest.raises(InvalidArgumentError, match=message):
        impl.grounding_index(*change(value, value.copy(), value.copy(), kind), 3)


@pytest.mark.parametrize("kv_kind, error", [(256, InvalidArgumentError), (-1, InvalidArgumentError), (259, InvalidArgumentError),
                                            (True, TypeError), (3.0, TypeError)])
def test_grounding_index_refuses_a_kind_that_is_no_byte(impl, kv_kind, error):
    # red team 25, v04: the native call truncated 259 to 3 where the reference matched nothing
    value = np.arange(8, dtype=np.uint64).reshape(4, 2)
    kind = np.array([3, 0, 3, 1], dtype=np.uint8)
    with pytest.raises(error, match="kv_kind"):
        impl.grounding_index(value, value, value, kind, kv_kind)
    with pytest.raises(error, match="kv_kind"):
        impl.grounding_index_many([(value, value, value, kind)], kv_kind)


class _ShiftingColumn:
    """A table whose ``value_start`` is an int8 array the first time it is read and the int64
    column after that (a property, a lazily built column)."""

    def __init__(self, n: int) -> None:
        self.data = b"abcdefgh" * 4
        self.kind = np.zeros(n, dtype=np.uint8)
        self.kind[-1] = 4
        self.value_end = np.full(n, 3, dtype=np.int64)
        self._first = np.full(n, 1, dtype=np.int8)  # n bytes, which an int64 read would overrun
        self._later = np.zeros(n, dtype=np.int64)
        self.reads = 0

    @property
    def value_start(self) -> np.ndarray:
        self.reads += 1
        return self._first if self.reads == 1 else self._later


@pytest.mark.parametrize("n", [2, 1 << 20])
def test_undrawn_values_checks_the_columns_it_reads(impl, n):
    # red team 34, 01: the native routine checked a second read of the attributes and read the
    # first (an int8 column read as int64, past its end): each attribute is read once, and the
    # objects read are the objects checked, as in the reference
    with pytest.raises(TypeError, match=r"tables\[0\].value_start must be a 1-D int64 array, not 1-D int8 array"):
        impl.undrawn_values([_ShiftingColumn(n)], np.zeros(n, dtype=np.bool_), 4)


class _ShiftingList(list):
    """A list whose third iteration gives a 1-D array in place of its rows (the one the
    native routine once read, between checks that saw the rows)."""

    def __init__(self, rows: np.ndarray, flat: np.ndarray) -> None:
        super().__init__([rows])
        self.flat = flat
        self.iterations = 0

    def __iter__(self):
        self.iterations += 1
        return iter([self.flat] if self.iterations == 3 else list.__iter__(self))


@pytest.mark.parametrize("n", [3, 1 << 20])
def test_index_counts_reads_only_what_it_checked(impl, n):
    # red team 34, 02: the native routine copied the list once and checked two more iterations
    # of it; an iteration giving a 1-D array was read as rows, past its end. Whatever a list
    # gives, a 1-D array is refused or never read: never a row from outside an array
    queries = _ShiftingList(np.zeros((n, 2), dtype=np.uint64), np.zeros(n, dtype=np.uint64))
    try:
        index, counts = impl.index_counts(queries, [np.zeros(n, dtype=np.uint8)], 7)
    except (TypeError, InvalidArgumentError):
        return
    assert len(index) == 1 and counts.tolist() == [n]


@st.composite
def tables_of_repeated_rows(draw):
    """Tables whose rows repeat a few (kind, fingerprint, span) choices, some of them the same
    bytes under another fingerprint or kind, searched in a narrow or a wide group: the native
    main pass judges a repeated row once (red team 90, F04)."""
    text = st.lists(st.sampled_from(TEXT_PIECES), max_size=8).map(b"".join)
    haystacks = draw(st.lists(text, min_size=1, max_size=20))
    tables = []
    for _ in range(draw(st.integers(1, 3))):
        data = draw(st.lists(st.sampled_from(TEXT_PIECES), min_size=4, max_size=20).map(b"".join))
        span = st.integers(0, len(data)).flatmap(partial(_span_from, len(data)))
        choices = draw(st.lists(st.tuples(st.sampled_from([0, PAIR, SKIP, QUOTE, NUMBER_KIND, URL_KIND]),
                                          st.sampled_from([[7, 7], [7, 8], [9, 7]]), span),
                                min_size=1, max_size=4))
        rows = draw(st.lists(st.sampled_from(choices), min_size=2, max_size=40))
        tables.append(Table(data, [k for k, _, _ in rows], [v for _, v, _ in rows], [v for _, v, _ in rows],
                            [s for _, _, s in rows], [s for _, _, s in rows]))
    everything = list(range(len(haystacks)))
    groups = [draw(st.sampled_from([everything, everything[:1], everything[1:]])) for _ in tables]
    sets = [fp([[7, 7]])]
    return tables, sets, haystacks, dict(WIDE_ARGS, groups=[draw(st.sampled_from([[], [0]])) for _ in tables],
                                         haystack_groups=groups)


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=tables_of_repeated_rows())
def test_ungrounded_rows_judge_repeated_rows_alike(impl, case):
    tables, sets, haystacks, args = case
    got = impl.ungrounded_rows(tables, sets, haystacks, **args)
    assert list(zip(*(x.tolist() for x in got))) == expected_ungrounded_rows(tables, sets, haystacks, args)
