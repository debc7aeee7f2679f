"""Fact-table diffing (hot path 3), pure-Python reference: the executable specification.

Fingerprints are 128-bit values stored as ``(n, 2)`` uint64 numpy arrays, column 0 the high
word and column 1 the low word (the format of ``provgate.facts.FactTable``). Two rows are equal
when both words are equal; rows are ordered by ``(hi, lo)`` as unsigned integers.

``sort_fingerprints(fp)``
    The int64 permutation that sorts the rows by ``(hi, lo)``, stable: equal rows keep their
    original relative order. ``fp[sort_fingerprints(fp)]`` is sorted.

``diff_sorted(a, b) -> (only_a, only_b, common_a, common_b)``
    ``a`` and ``b`` must already be sorted (duplicates allowed). All four results are int64
    index arrays:

    - ``only_a``: every index ``i`` of ``a`` whose value occurs nowhere in ``b`` (every
      duplicate is reported), ascending;
    - ``only_b``: likewise for ``b``;
    - ``common_a``, ``common_b`` (same length): the matched pairs. Every index ``i`` of ``a``
      whose value occurs in ``b`` appears in ``common_a`` (ascending), paired with the FIRST
      (smallest) index ``j`` of ``b`` with ``b[j] == a[i]``. Later duplicates of that value in
      ``b`` appear in neither ``common_b`` nor ``only_b``: they are matched, and their
      positions follow from ``common_b`` because ``b`` is sorted.

    So ``len(only_a) + len(common_a) == len(a)``, and the indices of ``b`` not in ``only_b``
    are exactly the rows equal to some row of ``a``.

``absent_from_all(queries, sets, *, groups=None, query_group=None)``
    A bool array, one entry per row of ``queries`` (any order, duplicates allowed): True where
    the row occurs in none of the arrays of ``sets`` (a list or tuple of arrays sorted by
    ``(hi, lo)``, duplicates allowed). With ``groups`` (a list of lists of indices into
    ``sets``) and ``query_group`` (an integer array, the group of each query), row ``i`` is
    looked up only in the sets of group ``query_group[i]`` (``provgate._batch``). A set may
    also be a ``SortedFingerprints`` of the same implementation: a private read-only copy
    vetted as sorted once, when made (``SortedFingerprints(fp)`` raises like ``diff_sorted``
    on an unsorted ``fp``, naming it ``fp``), so it is not vetted again per call; it is made
    once (``__init__`` called again raises ``TypeError``, whatever it is given). No sets
    makes every row absent. A set out of order raises like ``diff_sorted`` does, naming it
    ``sets[i]``; the sets are checked in order, each in full, before the grouping and before
    any lookup.

``ungrounded_rows(tables, sets, haystacks, *, groups, haystack_groups, skip_kind, pair_kind, quote_kind, number_kind=None, url_kind=None, hints=None)``
    The rows of several fact tables that occur neither as a fact in their group's sets nor
    literally in their group's haystacks: the gate's grounding (I1) of every changed block of
    a check in one call. ``tables`` is a list or tuple of fact tables (``FactTable``, or any
    object with its columns ``data``, ``kind``, ``fp_fact``, ``fp_value``, ``start``, ``end``,
    ``value_start``, ``value_end``); ``groups[t]`` lists the indices of the sets table ``t`` is
    looked up in, ``haystack_groups[t]`` the indices of the haystacks (``bytes``) it is
    searched in. A row of kind ``skip_kind`` is neither. Any other row is looked up in the sets
    by its ``fp_fact`` row if its kind is ``pair_kind``, else by its ``fp_value`` row (as
    ``absent_from_all``); a row found in none is then searched for literally, at token
    boundaries (as ``occurs_at_boundaries``), by its value bytes
    (``data[value_start:value_end]``) if its kind is ``quote_kind``, else by its span
    (``data[start:end]``), in the mode ``literal_modes`` gives its kind (a quote ``QUOTE``,
    a code span ``RELAXED``: ``row_mode``; ``number_kind`` ``NUMBER``, ``url_kind`` ``URL``,
    anything else ``TOKEN``). Returns ``(table, row)``, two int64 arrays of the rows found
    neither way, ordered by table and then row. ``hints`` maps a citation marker's name (its
    value as written) to an index into both ``sets`` and ``haystacks``: the rows before that
    marker in its table are looked for there first ("fact [src:NAME]": a marker follows what
    it cites). It changes where the search starts, never its answer. Checked in this order,
    the first failure raised: ``tables`` a list or tuple (``TypeError``); the three kinds
    ints (``TypeError``) in 0..255 (``InvalidArgumentError``); per table in order, ``data``
    bytes, ``kind`` a 1-D uint8 array, the fingerprint columns as ``diff`` checks them
    (contiguity not required), the offset columns 1-D int64 arrays (``TypeError``), each
    column with one row per kind (``InvalidArgumentError``), each message naming
    ``tables[t].column``; ``groups`` then ``haystack_groups`` a list or tuple with one group
    per table; ``hints`` None or a dict from str to int (``TypeError``); the sets and the
    groups' members as ``absent_from_all`` checks them; the haystacks and their groups'
    members as ``occurs_at_boundaries`` checks them; then, row by row, that each row's range
    lies in its table's data (``InvalidArgumentError`` naming the table, row and range).
    (The native module searches a table's texts, when there are many, once for all its rows
    that no set holds; the answer is the one defined here.)

``positions(index, queries)``
    Where each row of the fingerprint arrays ``queries`` (a list or tuple, read as one array
    joined in order) sits in ``index``, a ``SortedFingerprints`` of the same implementation
    whose rows are distinct: an int64 array with the row's index in ``index``, or -1 where it
    is absent. ``index`` of another type raises ``TypeError``; ``queries`` that is not a list
    or tuple raises ``TypeError``; each array is checked as ``diff`` checks its inputs
    (contiguity not required), naming itself ``queries[k]``. An ``index`` with a repeated row
    raises ``InvalidArgumentError`` naming ``index`` (a position would be ambiguous).

``draw_rows(index, left, queries, kinds, skip_kind)``
    Draws the rows of ``queries`` (a list or tuple of fingerprint arrays, read in order) from a
    multiset: ``index`` (a ``SortedFingerprints`` with distinct rows) holds its values and
    ``left`` (a writable, C-contiguous 1-D int64 array, one count per row of ``index``) how
    many of each are left. A row whose ``kinds[k]`` entry (a 1-D uint8 array per query array,
    one entry per row) is ``skip_kind`` draws nothing; any other draws its value if one is
    left, and ``left`` is decremented there (in place). Returns ``(drawn, counts)``: a bool per
    row, and per query array how many of its rows drew (int64). The order is first come,
    first served: an earlier row draws before a later row of the same value. Arguments are
    checked as ``positions`` checks its own; ``left`` of another type ``TypeError``, of the
    wrong shape, length or flags ``InvalidArgumentError`` naming ``left``; ``kinds`` as
    ``place_rows`` checks ``codes``, then each array (``TypeError`` for a non-array or a dtype
    that is not uint8, ``InvalidArgumentError`` for a shape that does not match its query
    array), naming ``kinds[k]``; ``skip_kind`` an int in 0..255; and ``left`` must not share
    memory with a query or kinds array (as ``numpy.may_share_memory`` tells: their extents
    overlap; ``InvalidArgumentError`` naming ``left``), since it changes while they are read.

``diff(a, b)``
    The same four arrays for unsorted inputs, with indices into the ORIGINAL arrays and the
    same rules: ``only_a``, ``only_b`` and ``common_a`` ascending, ``common_b[k]`` the smallest
    index of ``b`` whose value equals ``a[common_a[k]]``.

Bad input fails closed: an argument that is not a numpy array, or whose dtype is not native
uint64, raises ``TypeError``; a wrong shape (not ``(n, 2)``), a non-C-contiguous array, or
(for ``diff_sorted``) rows out of order raise ``provgate.errors.InvalidArgumentError`` (a
``ValueError``) naming the argument and, for order, the first offending row. ``diff`` accepts
non-contiguous arrays (it sorts into new arrays anyway); ``sort_fingerprints`` does not.

The native module ``provgate._ext.factdiff`` returns identical arrays and raises the same
exception types with the same messages.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from provgate._batch import check_byte_items, check_grouping
from provgate._matching_py import (
    NUMBER,
    QUOTE,
    RELAXED,
    TOKEN,
    URL,
    occurs_at_boundaries,
)
from provgate.errors import InvalidArgumentError

IMPLEMENTATION = "reference"
FINGERPRINT_DTYPE = np.dtype(np.uint64)


def check_fingerprints(fp: Any, name: str, *, contiguous: bool = True) -> np.ndarray:
    """Validate one fingerprint array; return it unchanged."""
    if not isinstance(fp, np.ndarray):
        raise TypeError(f"{name} must be a numpy array of shape (n, 2) and dtype uint64, not {type(fp).__name__}")
    if fp.dtype != FINGERPRINT_DTYPE:
        raise TypeError(f"{name} must have dtype uint64 (native byte order), not {fp.dtype}")
    if fp.ndim != 2 or fp.shape[1] != 2:
        raise InvalidArgumentError(f"{name} must have shape (n, 2), got {fp.shape}", argument=name)
    if contiguous and not fp.flags.c_contiguous:
        raise InvalidArgumentError(
            f"{name} must be C-contiguous (use numpy.ascontiguousarray)", argument=name
        )
    return fp


def unsorted_error(name: str, i: int, row: tuple[int, int], prev: tuple[int, int]) -> InvalidArgumentError:
    return InvalidArgumentError(
        f"{name} is not sorted by (hi, lo): row {i} (hi={row[0]:#x}, lo={row[1]:#x}) sorts before "
        f"row {i - 1} (hi={prev[0]:#x}, lo={prev[1]:#x}); sort it with sort_fingerprints first",
        argument=name,
    )


def _rows(fp: np.ndarray) -> list[tuple[int, int]]:
    return [(int(hi), int(lo)) for hi, lo in fp.tolist()]


def _check_sorted(rows: list[tuple[int, int]], name: str) -> None:
    for i in range(1, len(rows)):
        if rows[i] < rows[i - 1]:
            raise unsorted_error(name, i, rows[i], rows[i - 1])


def _index_array(values: list[int]) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def sort_fingerprints(fp: Any) -> np.ndarray:
    check_fingerprints(fp, "fp")
    rows = _rows(fp)
    return _index_array(sorted(range(len(rows)), key=rows.__getitem__))  # sorted() is stable


def _diff_rows(ra: list[tuple[int, int]], rb: list[tuple[int, int]]) -> tuple[np.ndarray, ...]:
    first_in_b: dict[tuple[int, int], int] = {}
    for j, row in enumerate(rb):
        first_in_b.setdefault(row, j)
    in_a = set(ra)
    only_a, common_a, common_b = [], [], []
    for i, row in enumerate(ra):
        j = first_in_b.get(row)
        if j is None:
            only_a.append(i)
        else:
            common_a.append(i)
            common_b.append(j)
    only_b = [j for j, row in enumerate(rb) if row not in in_a]
    return _index_array(only_a), _index_array(only_b), _index_array(common_a), _index_array(common_b)


def diff_sorted(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    check_fingerprints(a, "a")
    check_fingerprints(b, "b")
    ra, rb = _rows(a), _rows(b)
    _check_sorted(ra, "a")
    _check_sorted(rb, "b")
    return _diff_rows(ra, rb)  # type: ignore[return-value]


def diff(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    check_fingerprints(a, "a", contiguous=False)
    check_fingerprints(b, "b", contiguous=False)
    return _diff_rows(_rows(a), _rows(b))  # type: ignore[return-value]


def grounding_index(fp_value: Any, fp_fact: Any, fp_key: Any, kind: Any, kv_kind: int) -> SortedFingerprints:
    """The distinct rows of ``fp_value``, ``fp_fact`` and of the ``fp_key`` rows whose
    ``kind`` is ``kv_kind``, sorted, as a :class:`SortedFingerprints` (a text's grounding set:
    its values, its (key, value) facts and its kv keys, each in its own fingerprint frame)."""
    check_grounding_columns(fp_value, fp_fact, fp_key, kind)
    _check_kind_int(kv_kind, "kv_kind")
    return SortedFingerprints(unique_counts(np.concatenate([fp_value, fp_fact, fp_key[kind == kv_kind]]))[0])


def grounding_index_many(columns: Any, kv_kind: int) -> list[SortedFingerprints]:
    """:func:`grounding_index` of each ``(fp_value, fp_fact, fp_key, kind)`` of ``columns`` (a
    list or tuple), in order: the grounding sets of many texts in one call (a summarize makes
    one for every turn it summarizes). A text whose columns :func:`grounding_index` would
    refuse raises its error, with a note naming its index, before any set is made."""
    items = check_column_groups(columns)
    _check_kind_int(kv_kind, "kv_kind")
    for k, item in enumerate(items):
        try:
            check_grounding_columns(*item)
        except (TypeError, InvalidArgumentError) as e:
            e.add_note(f"in columns[{k}]")
            raise
    return [grounding_index(*item, kv_kind) for item in items]


def check_column_groups(columns: Any) -> list[tuple[Any, Any, Any, Any]]:
    """``columns`` as a list of 4-tuples (both implementations refuse the same)."""
    if not isinstance(columns, (list, tuple)):
        raise TypeError(f"columns must be a list or tuple of (fp_value, fp_fact, fp_key, kind), "
                        f"not {type(columns).__name__}")
    for k, item in enumerate(columns):
        if not isinstance(item, tuple) or len(item) != 4:
            raise InvalidArgumentError(f"columns[{k}] must be a tuple (fp_value, fp_fact, fp_key, kind)",
                                       argument="columns")
    return list(columns)


def check_grounding_columns(fp_value: Any, fp_fact: Any, fp_key: Any, kind: Any) -> None:
    """The columns :func:`grounding_index` reads: three C-contiguous fingerprint arrays and a
    C-contiguous uint8 ``kind``, all of one length (both implementations raise the same)."""
    for fp, name in ((fp_value, "fp_value"), (fp_fact, "fp_fact"), (fp_key, "fp_key")):
        check_fingerprints(fp, name)
    n = fp_value.shape[0]
    if fp_fact.shape[0] != n or fp_key.shape[0] != n:
        raise InvalidArgumentError(f"fp_value, fp_fact and fp_key must have as many rows ({n}, {fp_fact.shape[0]}, "
                                   f"{fp_key.shape[0]})", argument="fp_key")
    if not isinstance(kind, np.ndarray) or kind.dtype != np.uint8 or kind.ndim != 1 or kind.shape[0] != n \
            or not kind.flags.c_contiguous:
        raise InvalidArgumentError(f"kind must be a C-contiguous uint8 array of {n} rows", argument="kind")


def unique_counts(fp: Any) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``fp`` sorted by (hi, lo), and how often each occurs."""
    values, counts, _ = unique_inverse(fp)
    return values, counts


def unique_inverse(fp: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Like :func:`unique_counts`, plus ``inverse``: the index in ``values`` of every row."""
    check_fingerprints(fp, "fp", contiguous=False)
    rows = _rows(fp)
    keys = sorted(set(rows))
    position = {key: i for i, key in enumerate(keys)}
    counts = [0] * len(keys)
    for row in rows:
        counts[position[row]] += 1
    values = np.array(keys, dtype=np.uint64).reshape(-1, 2)
    inverse = _index_array([position[row] for row in rows])
    return values, np.array(counts, dtype=np.int64), inverse


def check_multiset(values: np.ndarray, counts: Any, name: str, counts_name: str) -> None:
    """A multiset as :func:`unique_counts` returns it: rows sorted by (hi, lo) and distinct,
    one integer count >= 1 per row; else InvalidArgumentError naming what is wrong."""
    found = np.asarray(counts)
    if found.ndim != 1 or (found.size and found.dtype.kind not in "iu"):
        raise InvalidArgumentError(f"{counts_name} must be a 1-D sequence of integers", argument=counts_name)
    low = np.flatnonzero(found < 1) if found.size else found
    if low.size:
        raise InvalidArgumentError(f"{counts_name}[{int(low[0])}] is {found[low[0]]}; a count is at least 1",
                                   argument=counts_name)
    rows = _rows(values)
    for i in range(1, len(rows)):
        if rows[i - 1] >= rows[i]:
            raise InvalidArgumentError(f"{name} must be sorted by (hi, lo) and distinct: row {i} is not after row {i - 1}",
                                       argument=name)


def apply_delta(values: Any, counts: Any, removed: Any, removed_counts: Any, added: Any,
                added_counts: Any) -> tuple[np.ndarray, np.ndarray]:
    """The multiset ``values``/``counts`` minus ``removed`` plus ``added`` (all sorted and
    distinct, as :func:`unique_counts` returns them)."""
    for arr, name in ((values, "values"), (removed, "removed"), (added, "added")):
        check_fingerprints(arr, name)
    if len(counts) != len(values) or len(removed_counts) != len(removed) or len(added_counts) != len(added):
        raise InvalidArgumentError("every fingerprint array needs one count per row", argument="counts")
    for arr, arr_counts, name, counts_name in ((values, counts, "values", "counts"),
                                               (removed, removed_counts, "removed", "removed_counts"),
                                               (added, added_counts, "added", "added_counts")):
        check_multiset(arr, arr_counts, name, counts_name)
    total: dict[tuple[int, int], int] = {}
    for row, n in zip(_rows(values), np.asarray(counts).tolist()):
        total[row] = total.get(row, 0) + n
    for row, n in zip(_rows(removed), np.asarray(removed_counts).tolist()):
        left = total.get(row, 0) - n
        if left < 0:
            raise InvalidArgumentError("removed holds a value more often than values does", argument="removed")
        total[row] = left
    for row, n in zip(_rows(added), np.asarray(added_counts).tolist()):
        total[row] = total.get(row, 0) + n
    keys = sorted(k for k, n in total.items() if n > 0)
    return (np.array(keys, dtype=np.uint64).reshape(-1, 2),
            np.array([total[k] for k in keys], dtype=np.int64))


SET_TYPE_ERROR = "{name} must be a numpy array or a SortedFingerprints, not {type}"
REINIT_ERROR = "a SortedFingerprints is made once: __init__ cannot be called again on it"


class SortedFingerprints:
    """A private, read-only copy of a fingerprint array, vetted as sorted once, when made."""

    __slots__ = ("_rows", "_members", "_made")

    def __new__(cls, *args: Any, **kwargs: Any) -> SortedFingerprints:
        # made without __init__ (SortedFingerprints.__new__), it is an empty set
        self = super().__new__(cls)
        self._rows = np.empty((0, 2), dtype=np.uint64)
        self._rows.setflags(write=False)
        self._members = frozenset()
        self._made = False
        return self

    def __init__(self, fp: Any) -> None:
        if self._made:  # a set never changes once made (the native one is read without the GIL)
            raise TypeError(REINIT_ERROR)
        check_fingerprints(fp, "fp", contiguous=False)
        rows = _rows(fp)
        _check_sorted(rows, "fp")
        self._rows = np.array(fp, dtype=np.uint64, order="C", copy=True)
        self._rows.setflags(write=False)
        self._members = frozenset(rows)
        self._made = True

    def __len__(self) -> int:
        return len(self._rows)

    def to_array(self) -> np.ndarray:
        """A copy of the rows (the object's own stay private, so they cannot change)."""
        return self._rows.copy()

    def __repr__(self) -> str:
        return f"SortedFingerprints({len(self._rows)} rows)"

    def __reduce__(self) -> tuple[Any, ...]:
        return (SortedFingerprints, (self._rows,))


def absent_from_all(queries: Any, sets: Any, *, groups: Any = None, query_group: Any = None) -> np.ndarray:
    """True for each row of ``queries`` that occurs in none of the sorted arrays ``sets`` (of
    its group, when grouped)."""
    check_fingerprints(queries, "queries")
    if not isinstance(sets, (list, tuple)):
        raise TypeError(f"sets must be a list or tuple of fingerprint arrays, not {type(sets).__name__}")
    members: list[frozenset[tuple[int, int]]] = []
    for s, arr in enumerate(sets):
        if type(arr) is SortedFingerprints:
            members.append(arr._members)
            continue
        name = f"sets[{s}]"
        if not isinstance(arr, np.ndarray):
            raise TypeError(SET_TYPE_ERROR.format(name=name, type=type(arr).__name__))
        check_fingerprints(arr, name)
        rows = _rows(arr)
        _check_sorted(rows, name)
        members.append(frozenset(rows))
    offsets, member_index, query_group = check_grouping(groups, query_group, len(queries), len(sets),
                                                        items="queries", members="sets", group_name="query_group")
    group_sets = [[members[m] for m in member_index[offsets[g]:offsets[g + 1]].tolist()]
                  for g in range(len(offsets) - 1)]
    return np.array([all(row not in m for m in group_sets[g])
                     for row, g in zip(_rows(queries), query_group.tolist())], dtype=np.bool_)


def positions(index: Any, queries: Any) -> np.ndarray:
    """Each query row's index in the distinct sorted rows of ``index``, or -1."""
    if type(index) is not SortedFingerprints:
        raise TypeError(f"index must be a SortedFingerprints, not {type(index).__name__}")
    check_queries(queries)
    rows = _rows(index._rows)
    at = {row: i for i, row in enumerate(rows)}
    if len(at) != len(rows):
        raise InvalidArgumentError("index has a repeated row, so a position would be ambiguous", argument="index")
    return _index_array([at.get(row, -1) for q in queries for row in _rows(q)])


def check_codes(codes: Any, n_queries: int) -> list[int]:
    """``place_rows``' codes: one int in 0..255 per query array (messages shared by both
    implementations)."""
    if not isinstance(codes, (list, tuple)):
        raise TypeError(f"codes must be a list or tuple of ints, not {type(codes).__name__}")
    if len(codes) != n_queries:
        raise InvalidArgumentError(f"codes must have one item per query array, got {len(codes)} for {n_queries}",
                                   argument="codes")
    for k, code in enumerate(codes):
        _check_kind_int(code, f"codes[{k}]")
    return list(codes)


def place_rows(index: Any, queries: Any, codes: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`positions` of the rows of ``queries``, and per distinct row of ``index``: how many
    query rows sit there (int64), and the largest ``codes[k]`` among the query arrays ``k``
    holding one there (uint8; 0 where none does). One pass instead of a bincount and a
    scatter per code over every row (the gate accounts for each fact a prune removes by the
    record of the blocks that held it)."""
    out = positions(index, queries)
    code_list = check_codes(codes, len(queries))
    n = len(index)
    counts = [0] * n
    strongest = [0] * n
    k = 0
    for q, code in zip(queries, code_list):
        for _ in range(q.shape[0]):
            p = int(out[k])
            k += 1
            if p >= 0:
                counts[p] += 1
                strongest[p] = max(strongest[p], code)
    return out, np.array(counts, dtype=np.int64), np.array(strongest, dtype=np.uint8)


def check_kinds(kinds: Any, queries: Any, skip_kind: Any) -> None:
    """One uint8 kind per row of each of ``queries`` (checked already), and the kind to skip
    (messages shared by both implementations of ``draw_rows`` and ``index_counts``)."""
    if not isinstance(kinds, (list, tuple)):
        raise TypeError(f"kinds must be a list or tuple of uint8 arrays, not {type(kinds).__name__}")
    if len(kinds) != len(queries):
        raise InvalidArgumentError(f"kinds must have one array per query array, got {len(kinds)} for {len(queries)}",
                                   argument="kinds")
    for k, (kind, q) in enumerate(zip(kinds, queries)):
        if type(kind) is not np.ndarray or kind.dtype != np.uint8:
            raise TypeError(f"kinds[{k}] must be a numpy uint8 array, not {type(kind).__name__}"
                            + (f" of {kind.dtype}" if isinstance(kind, np.ndarray) else ""))
        if kind.ndim != 1 or kind.shape[0] != q.shape[0]:
            raise InvalidArgumentError(f"kinds[{k}] must have one entry per row of queries[{k}] ({q.shape[0]}), "
                                       f"got shape {kind.shape}", argument=f"kinds[{k}]")
    _check_kind_int(skip_kind, "skip_kind")


def check_queries(queries: Any) -> None:
    """A list or tuple of fingerprint arrays (messages shared by both implementations)."""
    if not isinstance(queries, (list, tuple)):
        raise TypeError(f"queries must be a list or tuple of fingerprint arrays, not {type(queries).__name__}")
    for k, q in enumerate(queries):
        check_fingerprints(q, f"queries[{k}]", contiguous=False)


def index_counts(queries: Any, kinds: Any, skip_kind: Any) -> tuple[SortedFingerprints, np.ndarray]:
    """The distinct rows of the arrays ``queries`` whose kind (``kinds``: a uint8 array per
    query array, one entry per row) is not ``skip_kind``, as a :class:`SortedFingerprints`,
    and how often each occurs (int64, row for row). The gate's I5 pool: the values of the
    facts an edit's new blocks state (their citation markers left out), as a multiset that
    ``draw_rows`` draws on."""
    check_queries(queries)
    check_kinds(kinds, queries, skip_kind)
    rows = (np.concatenate(queries)[np.concatenate(kinds) != skip_kind] if len(queries)
            else np.empty((0, 2), dtype=np.uint64))
    values, counts = unique_counts(rows)
    return SortedFingerprints(values), counts


def check_draw_arguments(left: Any, n_index: int, kinds: Any, queries: Any, skip_kind: Any) -> None:
    """``draw_rows``' checks beyond ``positions``' (messages shared by both implementations)."""
    if type(left) is not np.ndarray or left.dtype != np.int64 or not left.dtype.isnative:
        raise TypeError(f"left must be a numpy int64 array, not {type(left).__name__}"
                        + (f" of {left.dtype}" if isinstance(left, np.ndarray) else ""))
    if left.ndim != 1 or left.shape[0] != n_index or not left.flags.c_contiguous or not left.flags.writeable:
        raise InvalidArgumentError(f"left must be a writable, C-contiguous 1-D array of {n_index} counts, one per "
                                   f"row of index (got shape {left.shape})", argument="left")
    check_kinds(kinds, queries, skip_kind)
    # ``left`` is used up while the queries and kinds are read: one that shares their memory
    # would change rows not read yet (rv21, 02)
    for name, arrays in (("queries", queries), ("kinds", kinds)):
        for k, array in enumerate(arrays):
            if np.may_share_memory(left, array):
                raise InvalidArgumentError(f"left must not share memory with {name}[{k}]: it is used up while they "
                                           "are read", argument="left")


def draw_rows(index: Any, left: Any, queries: Any, kinds: Any, skip_kind: Any) -> tuple[np.ndarray, np.ndarray]:
    """Each row of ``queries`` (not of ``skip_kind``) draws its value from the multiset
    ``index`` x ``left`` if one is left, first come first served; ``left`` is used up in place.
    Returns (drawn per row, rows drawn per query array). The gate's I5 draws each replaced
    cited fact from the values the edit's new blocks state: one new fact restates one old
    fact at most."""
    at = positions(index, queries)
    check_draw_arguments(left, len(index), kinds, queries, skip_kind)
    drawn: list[bool] = []
    counts: list[int] = []
    k = 0
    for kind in kinds:
        n = 0
        for code in kind.tolist():
            p = int(at[k])
            k += 1
            hit = code != skip_kind and p >= 0 and left[p] > 0
            if hit:
                left[p] -= 1
                n += 1
            drawn.append(hit)
        counts.append(n)
    return np.array(drawn, dtype=np.bool_), _index_array(counts)


def _check_row_column(column: Any, name: str, kind: np.ndarray) -> None:
    """A 1-D int64 column with a row per entry of ``kind`` (messages shared by both
    implementations of ``undrawn_values`` and ``ungrounded_rows``)."""
    if not isinstance(column, np.ndarray) or column.dtype != np.int64 or column.ndim != 1:
        what = (type(column).__name__ if not isinstance(column, np.ndarray)
                else f"{column.ndim}-D {column.dtype} array")
        raise TypeError(f"{name} must be a 1-D int64 array, not {what}")
    if column.shape[0] != kind.shape[0]:
        raise InvalidArgumentError(f"{name} has {column.shape[0]} rows for {kind.shape[0]} kinds", argument="tables")


_VALUE_COLUMNS = ("data", "kind", "value_start", "value_end")


def value_columns(tables: Any) -> list[tuple[Any, ...]]:
    """What ``undrawn_values`` reads of each of ``tables``: ``(data, kind, value_start,
    value_end)``, each attribute read once (None when missing). Both implementations check
    and then read these very objects, never a second read of an attribute, which may give
    another array (red team 34, 01)."""
    if not isinstance(tables, (list, tuple)):
        raise TypeError(f"tables must be a list or tuple of fact tables, not {type(tables).__name__}")
    return [tuple(getattr(table, name, None) for name in _VALUE_COLUMNS) for table in tables]


def check_value_columns(columns: list[tuple[Any, ...]]) -> tuple[list[Any], ...]:
    """The columns of :func:`value_columns`, checked table by table (messages shared by both
    implementations): ``(datas, kinds, value_starts, value_ends)``, one list each, the arrays
    as they are (the reference reads them through numpy, the native module makes its own
    contiguous copy of a view)."""
    out: tuple[list[Any], ...] = ([], [], [], [])
    for t, (data, kind, *ranges) in enumerate(columns):
        if type(data) is not bytes:
            raise TypeError(f"tables[{t}].data must be bytes, not {type(data).__name__}")
        out[0].append(data)
        if not isinstance(kind, np.ndarray) or kind.dtype != np.uint8 or kind.ndim != 1:
            what = type(kind).__name__ if not isinstance(kind, np.ndarray) else f"{kind.ndim}-D {kind.dtype} array"
            raise TypeError(f"tables[{t}].kind must be a 1-D uint8 array, not {what}")
        out[1].append(kind)
        for c, (column_name, column) in enumerate(zip(("value_start", "value_end"), ranges), start=2):
            _check_row_column(column, f"tables[{t}].{column_name}", kind)
            out[c].append(column)
    return out


def check_value_tables(tables: Any) -> tuple[list[Any], ...]:
    """:func:`check_value_columns` of :func:`value_columns` of ``tables``."""
    return check_value_columns(value_columns(tables))


def check_drawn(drawn: Any, total: int) -> None:
    """``undrawn_values``' flags: a bool per row of the tables end to end (messages shared by
    both implementations)."""
    if type(drawn) is not np.ndarray or drawn.dtype != np.bool_:
        raise TypeError(f"drawn must be a numpy bool array, not {type(drawn).__name__}"
                        + (f" of {drawn.dtype}" if isinstance(drawn, np.ndarray) else ""))
    if drawn.ndim != 1 or drawn.shape[0] != total:
        raise InvalidArgumentError(f"drawn must be a 1-D array of {total} flags, one per row of the tables, got shape "
                                   f"{drawn.shape}", argument="drawn")


def undrawn_values(tables: Any, drawn: Any, kind: Any) -> tuple[np.ndarray, list[bytes]]:
    """The rows of ``kind`` that ``drawn`` (a flag per row of ``tables`` end to end, as
    ``draw_rows`` returns it for their ``fp_value`` columns) says were not drawn, in order:
    (the table each is in, int64; its value as written, ``data[value_start:value_end]``).
    The gate's I5 looks for a fact no new value restates in pieces (key=value) or in so many
    words (a quote)."""
    return _undrawn(tables, drawn, (kind,), ("kind",))[0]


def undrawn_values_of_kinds(tables: Any, drawn: Any, kinds: Any) -> list[tuple[np.ndarray, list[bytes]]]:
    """:func:`undrawn_values` of each of ``kinds`` (a tuple of distinct kinds), in its order,
    from one read of the tables (I5 asks for its key=value and quote rows together: the second
    call read every table again). A span outside its data is refused at the first such row,
    of whichever of the kinds, as the tables hold them end to end."""
    if type(kinds) is not tuple:
        raise TypeError(f"kinds must be a tuple of ints, not {type(kinds).__name__}")
    return _undrawn(tables, drawn, kinds, tuple(f"kinds[{i}]" for i in range(len(kinds))))


def check_distinct_kinds(kinds: tuple[int, ...]) -> None:
    """``undrawn_values_of_kinds``' kinds, each once (messages shared by both implementations)."""
    if len(set(kinds)) != len(kinds):
        raise InvalidArgumentError(f"kinds must be distinct, got {list(kinds)}", argument="kinds")


def _undrawn(tables: Any, drawn: Any, wanted: tuple[Any, ...], names: tuple[str, ...]) -> list[tuple[np.ndarray, list[bytes]]]:
    datas, kinds, value_starts, value_ends = check_value_tables(tables)
    for kind, name in zip(wanted, names):
        _check_kind_int(kind, name)
    check_distinct_kinds(wanted)
    lengths = [k.shape[0] for k in kinds]
    check_drawn(drawn, sum(lengths))
    out: list[tuple[list[int], list[bytes]]] = [([], []) for _ in wanted]
    if kinds:
        # the rows of the kinds left over, found over all tables end to end, then read one by one
        every = np.concatenate(kinds)
        rows = np.flatnonzero(np.isin(every, np.array(wanted, dtype=np.int64)) & ~drawn)
        owner = np.repeat(np.arange(len(kinds)), lengths)[rows].tolist()
        first = np.cumsum([0, *lengths[:-1]]).tolist()
        slot = {kind: k for k, kind in enumerate(wanted)}
        for k, t, a, b, kind in zip(rows.tolist(), owner, np.concatenate(value_starts)[rows].tolist(),
                                    np.concatenate(value_ends)[rows].tolist(), every[rows].tolist()):
            data = datas[t]
            if not 0 <= a <= b <= len(data):
                raise span_error(t, k - first[t], a, b, len(data))
            owners, values = out[slot[kind]]
            owners.append(t)
            values.append(data[a:b])
    return [(_index_array(owners), values) for owners, values in out]


GROUND_COLUMNS = ("kind", "fp_fact", "fp_value", "start", "end", "value_start", "value_end")


def _check_kind_int(value: Any, name: str) -> None:
    if type(value) is not int:
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if not 0 <= value <= 255:
        raise InvalidArgumentError(f"{name} must be in 0..255, got {value}", argument=name)


def check_ground_tables(tables: Any, skip_kind: Any, pair_kind: Any, quote_kind: Any) -> tuple[list[Any], ...]:
    """The columns of ``ungrounded_rows``' tables, checked (messages shared by both
    implementations): ``(datas, kinds, fp_facts, fp_values, starts, ends, value_starts,
    value_ends)``, one list each, every array made C-contiguous."""
    if not isinstance(tables, (list, tuple)):
        raise TypeError(f"tables must be a list or tuple of fact tables, not {type(tables).__name__}")
    for value, name in ((skip_kind, "skip_kind"), (pair_kind, "pair_kind"), (quote_kind, "quote_kind")):
        _check_kind_int(value, name)
    out: tuple[list[Any], ...] = tuple([] for _ in range(1 + len(GROUND_COLUMNS)))
    for t, table in enumerate(tables):
        data = getattr(table, "data", None)
        if type(data) is not bytes:
            raise TypeError(f"tables[{t}].data must be bytes, not {type(data).__name__}")
        out[0].append(data)
        kind = getattr(table, "kind", None)
        if not isinstance(kind, np.ndarray) or kind.dtype != np.uint8 or kind.ndim != 1:
            what = type(kind).__name__ if not isinstance(kind, np.ndarray) else f"{kind.ndim}-D {kind.dtype} array"
            raise TypeError(f"tables[{t}].kind must be a 1-D uint8 array, not {what}")
        out[1].append(np.ascontiguousarray(kind))
        for c, column_name in enumerate(GROUND_COLUMNS[1:], start=2):
            column = getattr(table, column_name, None)
            name = f"tables[{t}].{column_name}"
            if column_name.startswith("fp_"):
                check_fingerprints(column, name, contiguous=False)
                if column.shape[0] != kind.shape[0]:
                    raise InvalidArgumentError(f"{name} has {column.shape[0]} rows for {kind.shape[0]} kinds",
                                               argument="tables")
            else:
                _check_row_column(column, name, kind)
            out[c].append(np.ascontiguousarray(column))
    return out


def span_error(t: int, r: int, start: int, end: int, size: int) -> InvalidArgumentError:
    return InvalidArgumentError(f"tables[{t}] row {r} spans bytes {start}..{end}, outside its {size} bytes of data",
                                argument="tables")


def check_groups_per_table(groups: Any, n_tables: int, name: str = "groups", members: str = "sets") -> None:
    if not isinstance(groups, (list, tuple)):
        raise TypeError(f"{name} must be a list or tuple of lists of {members} indices, not {type(groups).__name__}")
    if len(groups) != n_tables:
        raise InvalidArgumentError(f"{name} must have one group per table, got {len(groups)} for {n_tables} tables",
                                   argument=name)


def check_hints(hints: Any) -> None:
    """``ungrounded_rows``' hints: None, or a dict from str to int (messages shared by both
    implementations)."""
    if hints is None:
        return
    if not isinstance(hints, dict):
        raise TypeError(f"hints must be a dict from marker names to text indices, not {type(hints).__name__}")
    for name, index in hints.items():
        if not isinstance(name, str):
            raise TypeError(f"hints keys must be str, not {type(name).__name__}")
        if type(index) is not int:
            raise TypeError(f"hints[{name!r}] must be an int, not {type(index).__name__}")


def literal_modes(quote_kind: int, number_kind: Any, url_kind: Any) -> bytes:
    """Kind -> the mode its rows are searched for literally in (``occurs_at_boundaries``): a
    quote ``QUOTE`` (it is searched by what it quotes, and not where its source denies it: red
    team 89, F07), a number ``NUMBER``, a URL ``URL``, any other kind ``TOKEN``. ``number_kind`` and ``url_kind`` are None or ints in 0..255."""
    modes = bytearray([TOKEN]) * 256
    for value, name, mode in ((number_kind, "number_kind", NUMBER), (url_kind, "url_kind", URL)):
        if value is not None:
            _check_kind_int(value, name)
            modes[value] = mode
    modes[quote_kind] = QUOTE
    return bytes(modes)


def row_mode(modes: bytes, kind: int, quote_kind: int, data: bytes, start: int) -> int:
    """The mode a row is searched in: its kind's (:func:`literal_modes`), but a code span's (a
    quote whose text a backtick opens) ``RELAXED``, not ``QUOTE``: a code span names a thing
    and quotes no claim ("do not run `rm -rf /`" denies nothing of the command's name). A
    quotation its own text denies is no exception: a summary's own "No -" before it was taken
    for the source's denial (red team 100, F05)."""
    if kind == quote_kind and start > 0 and data[start - 1] == 0x60:
        return RELAXED
    return modes[kind]


def ungrounded_rows(tables: Any, sets: Any, haystacks: Any, *, groups: Any, haystack_groups: Any, skip_kind: Any,
                    pair_kind: Any, quote_kind: Any, number_kind: Any = None, url_kind: Any = None,
                    hints: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """(table, row) of the rows found in none of their table's sets and, literally, in none of
    their table's haystacks (module docstring). ``hints`` (marker name -> an index into both
    ``sets`` and ``haystacks``) only says where to look first; the answer never depends on it."""
    datas, kinds, pair_fps, value_fps, starts, ends, value_starts, value_ends = check_ground_tables(
        tables, skip_kind, pair_kind, quote_kind)
    modes = literal_modes(quote_kind, number_kind, url_kind)
    check_groups_per_table(groups, len(kinds))
    check_groups_per_table(haystack_groups, len(kinds), "haystack_groups", "haystacks")
    check_hints(hints)
    table_of: list[int] = []
    rows: list[int] = []
    queries: list[tuple[int, int]] = []
    ranges: list[tuple[int, int]] = []
    for t, kind in enumerate(kinds):
        pairs, values = _rows(pair_fps[t]), _rows(value_fps[t])
        spans = zip(starts[t].tolist(), ends[t].tolist(), value_starts[t].tolist(), value_ends[t].tolist())
        for r, (k, (start, end, value_start, value_end)) in enumerate(zip(kind.tolist(), spans)):
            if k != skip_kind:
                table_of.append(t)
                rows.append(r)
                queries.append(pairs[r] if k == pair_kind else values[r])
                # a quote is searched for by what it quotes, anything else by its literal text
                ranges.append((value_start, value_end) if k == quote_kind else (start, end))
    owner = _index_array(table_of)
    absent = absent_from_all(np.array(queries, dtype=np.uint64).reshape(-1, 2), sets, groups=groups, query_group=owner)
    haystacks = check_byte_items(haystacks, "haystacks")
    check_grouping(haystack_groups, owner, len(owner), len(haystacks), items="tables", members="haystacks",
                   group_name="haystack_groups")
    for t, r, (a, b) in zip(table_of, rows, ranges):
        if not 0 <= a <= b <= len(datas[t]):
            raise span_error(t, r, a, b, len(datas[t]))
    needles = [datas[t][a:b] for t, (a, b), is_absent in zip(table_of, ranges, absent.tolist()) if is_absent]
    row_modes = [row_mode(modes, int(kinds[t][r]), quote_kind, datas[t], a)
                 for t, r, (a, _), is_absent in zip(table_of, rows, ranges, absent.tolist()) if is_absent]
    literal = occurs_at_boundaries(needles, haystacks, groups=haystack_groups, needle_group=owner[absent],
                                   modes=row_modes)
    left = np.flatnonzero(absent)[~literal]
    return owner[left], _index_array(rows)[left]
