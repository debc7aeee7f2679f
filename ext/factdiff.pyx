"""Fact-table diffing (hot path 3), native: sort and merge-diff of 128-bit fingerprint arrays.

The specification (results, duplicate rules, errors) is ``provgate._factdiff_py``; this module
must return identical arrays and raise the same exceptions with the same messages.

Sorting: an MSD bucket pass on the top bits of ``hi`` (fingerprints are hashes, so buckets hold
a few rows each), then a stable insertion sort per bucket, or a stable merge sort for a bucket
that grew large (adversarial input such as all-equal ``hi``), so the worst case stays
O(n log n). Diffing: one merge pass over both arrays that also vets their order (plus an
exact order pass when it saw duplicates or equal high words), so an unsorted input is reported
instead of producing wrong indices. All loops run without the GIL, except the run of
pyahocorasick's automaton over a wide group's texts in grounding (``_automaton_pass``), which
holds it as ``matching.collect``'s does.
"""

import ahocorasick
import numpy as np

cimport numpy as cnp
from libc.stdlib cimport free, malloc
from libc.string cimport memchr, memcmp, memcpy

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.unicode cimport PyUnicode_DecodeLatin1, PyUnicode_DecodeUTF8

from _boundaries cimport (GRAM_MAX_BITMAPS, GRAM_MIN_HAYSTACK, MODE_QUOTE, MODE_RELAXED, N_MODES, GramCache, Marks, classify, fill_byte_classes, fill_marks,
                          gram_cache_free, gram_cache_init, group_member_occurring, group_member_occurring_but,
                          occurs_filtered, own_left, own_right, stands_at, write_marked)
from _byte_batches cimport byte_items, lengths_of, pointers_of
from _grouping cimport flat_grouping
from libc.stdint cimport int32_t, uint8_t, uint64_t
from _types cimport byte_t, fp_word_t, offset_t

from provgate._factdiff_py import (REINIT_ERROR, SET_TYPE_ERROR, check_codes, check_column_groups, check_distinct_kinds, check_draw_arguments, check_drawn, check_kinds, check_queries, check_value_columns, value_columns, check_grounding_columns, check_ground_tables, check_groups_per_table,
                                   check_hints, check_multiset, literal_modes, span_error, _check_kind_int)
from provgate.errors import InvalidArgumentError

cdef extern from "Python.h":
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    void* PyUnicode_DATA(object o)

cnp.import_array()

IMPLEMENTATION = "native"
FINGERPRINT_DTYPE = np.dtype(np.uint64)

cdef enum:
    # buckets this small are insertion-sorted; larger ones are merge-sorted
    INSERTION_MAX = 24
    # a SortedFingerprints indexes runs of at most this many top bits of hi
    MAX_RUN_BITS = 20
    # the bucket pass uses at most 2**MAX_BUCKET_BITS buckets
    MAX_BUCKET_BITS = 16
    # a SortedFingerprints' hash slots (SortedFingerprints._slot_table): a row is found within
    # this many slots of its home, or the table is not used
    MAX_PROBES = 32

cdef byte_t BYTE_CLASS[256]  # token boundaries of the literal search (ungrounded_rows)
fill_byte_classes(BYTE_CLASS)

cdef enum DiffStatus:
    DIFF_OK = 0
    A_UNSORTED = 1
    B_UNSORTED = 2


# ---- validation (Python level; messages identical to the reference) ----------------------------

cdef inline object _base_array(object x):
    """An ndarray subclass (or what says it is one) as numpy's own view of its data: checked
    and read through the attributes every array has, never ones a subclass overrides (red team
    39, 05: a dtype or shape that lied about the buffer the loops then read)."""
    return np.asarray(x) if type(x) is not cnp.ndarray and isinstance(x, cnp.ndarray) else x


def check_fingerprints(fp, str name, *, bint contiguous=True):
    """Validate one fingerprint array; return it (an ndarray subclass as numpy's own view of
    its data, which is what the caller must read)."""
    fp = _base_array(fp)
    if not isinstance(fp, cnp.ndarray):
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


def _unsorted_error(fp, str name):
    """Locate the first out-of-order row (error path only, so numpy is fast enough)."""
    n = fp.shape[0]
    hi = fp[:, 0]
    lo = fp[:, 1]
    # explicit stops: this module is compiled with wraparound off
    bad = (hi[1:] < hi[:n - 1]) | ((hi[1:] == hi[:n - 1]) & (lo[1:] < lo[:n - 1]))
    i = int(np.argmax(bad)) + 1
    row = (int(fp[i, 0]), int(fp[i, 1]))
    prev = (int(fp[i - 1, 0]), int(fp[i - 1, 1]))
    return InvalidArgumentError(
        f"{name} is not sorted by (hi, lo): row {i} (hi={row[0]:#x}, lo={row[1]:#x}) sorts before "
        f"row {i - 1} (hi={prev[0]:#x}, lo={prev[1]:#x}); sort it with sort_fingerprints first",
        argument=name,
    )


# ---- C core ------------------------------------------------------------------------------------

cdef inline bint row_less(const fp_word_t* fp, offset_t x, offset_t y) noexcept nogil:
    """Row x sorts strictly before row y."""
    cdef fp_word_t hx = fp[2 * x]
    cdef fp_word_t hy = fp[2 * y]
    if hx != hy:
        return hx < hy
    return fp[2 * x + 1] < fp[2 * y + 1]


cdef void insertion_sort(const fp_word_t* fp, offset_t* idx, offset_t n) noexcept nogil:
    # strict comparison keeps equal rows in their incoming order (stable)
    cdef offset_t i, j, x
    for i in range(1, n):
        x = idx[i]
        j = i - 1
        while j >= 0 and row_less(fp, x, idx[j]):
            idx[j + 1] = idx[j]
            j -= 1
        idx[j + 1] = x


cdef void merge_sort(const fp_word_t* fp, offset_t* idx, offset_t* tmp, offset_t n) noexcept nogil:
    """Stable bottom-up merge sort of idx[0:n] by row; tmp has room for n entries."""
    cdef offset_t start, width, lo, mid, hi, i, j, k
    cdef offset_t* src = idx
    cdef offset_t* dst = tmp
    cdef offset_t* swap
    start = 0
    while start < n:
        insertion_sort(fp, idx + start, min(INSERTION_MAX, n - start))
        start += INSERTION_MAX
    width = INSERTION_MAX
    while width < n:
        lo = 0
        while lo < n:
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i = lo
            j = mid
            k = lo
            while i < mid and j < hi:
                # take from the right only when strictly smaller: stable
                if row_less(fp, src[j], src[i]):
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < hi:
                dst[k] = src[j]
                j += 1
                k += 1
            lo += 2 * width
        swap = src
        src = dst
        dst = swap
        width *= 2
    if src != idx:
        memcpy(idx, src, <size_t>n * sizeof(offset_t))


cdef void bucket_sort(const fp_word_t* fp, offset_t n, offset_t* order, offset_t* tmp,
                      offset_t* starts, int bits) noexcept nogil:
    """Stable sort of rows 0..n-1 into order. starts has room for 2**bits + 1 entries."""
    cdef int shift = 64 - bits
    cdef offset_t nbuckets = (<offset_t>1) << bits
    cdef offset_t i, b, s, e, total, c
    for b in range(nbuckets + 1):
        starts[b] = 0
    for i in range(n):
        starts[(fp[2 * i] >> shift) + 1] += 1
    total = 0
    for b in range(nbuckets + 1):
        c = starts[b]
        starts[b] = total
        total += c
    # starts[b + 1] is now the first slot of bucket b; scattering in index order keeps it stable
    for i in range(n):
        b = (fp[2 * i] >> shift) + 1
        order[starts[b]] = i
        starts[b] += 1
    # bucket b now spans [starts[b], starts[b + 1])
    for b in range(nbuckets):
        s = starts[b]
        e = starts[b + 1]
        if e - s <= 1:
            continue
        if e - s <= INSERTION_MAX:
            insertion_sort(fp, order + s, e - s)
        else:
            merge_sort(fp, order + s, tmp + s, e - s)


cdef inline bint descends(fp_word_t h, fp_word_t l, fp_word_t ph, fp_word_t pl) noexcept nogil:
    """Row (h, l) sorts strictly before the row (ph, pl) that precedes it: order is broken."""
    return (h < ph) | ((h == ph) & (l < pl))


cdef bint is_sorted(const fp_word_t* fp, offset_t n) noexcept nogil:
    cdef offset_t i
    cdef bint bad = False
    for i in range(1, n):
        bad |= descends(fp[2 * i], fp[2 * i + 1], fp[2 * i - 2], fp[2 * i - 1])
    return not bad


cdef inline bint emit_rest(const fp_word_t* fp, offset_t i, offset_t n, fp_word_t prev_high,
                           offset_t* only, offset_t* count) noexcept nogil:
    """Rows ``i..n-1`` of one side, after the other side ran out, all go to ``only``. Returns
    whether their high words strictly increase (from ``prev_high``, the last one consumed)."""
    cdef bint increasing = True
    cdef offset_t k = count[0]
    cdef fp_word_t h
    while i < n:
        h = fp[2 * i]
        increasing &= h > prev_high
        prev_high = h
        only[k] = i
        k += 1
        i += 1
    count[0] = k
    return increasing


cdef bint merge_distinct(const fp_word_t* a, offset_t na, const fp_word_t* b, offset_t nb,
                         offset_t* only_a, offset_t* only_b, offset_t* common_a, offset_t* common_b,
                         offset_t* counts) noexcept nogil:
    """The merge for the case the gate almost always has: both sides' high words strictly
    increase (distinct hashes, deduplicated sets). Returns False as soon as that is not so
    (a repeat, a descent, or two rows sharing a high word); the caller then runs
    :func:`merge_diff`, which handles every input. Without runs to skip, an equal pair costs
    one compare of each word and no look-ahead."""
    cdef offset_t i = 0, j = 0, noa = 0, nob = 0, nc = 0
    cdef fp_word_t ah, bh
    cdef fp_word_t pah = 0, pbh = 0
    # a first row whose high word is 0 would look like a repeat of the initial 0
    if na > 0 and a[0] == 0:
        return False
    if nb > 0 and b[0] == 0:
        return False
    while i < na and j < nb:
        ah = a[2 * i]
        bh = b[2 * j]
        if (ah <= pah) | (bh <= pbh):
            return False
        if ah == bh:
            if a[2 * i + 1] != b[2 * j + 1]:
                return False
            common_a[nc] = i
            common_b[nc] = j
            nc += 1
            i += 1
            j += 1
            pah = ah
            pbh = bh
        elif ah < bh:
            only_a[noa] = i
            noa += 1
            i += 1
            pah = ah
        else:
            only_b[nob] = j
            nob += 1
            j += 1
            pbh = bh
    if not emit_rest(a, i, na, pah, only_a, &noa) or not emit_rest(b, j, nb, pbh, only_b, &nob):
        return False
    counts[0] = noa
    counts[1] = nob
    counts[2] = nc
    return True


cdef int merge_diff(const fp_word_t* a, offset_t na, const fp_word_t* b, offset_t nb,
                    offset_t* only_a, offset_t* only_b, offset_t* common_a, offset_t* common_b,
                    offset_t* counts) noexcept nogil:
    """One merge pass that also vets the order. Returns DIFF_OK, A_UNSORTED or B_UNSORTED.

    counts receives (len(only_a), len(only_b), len(common)). On unsorted input the outputs
    are garbage but stay inside their buffers: each count is bounded by its index.

    Hashes almost never share a high word, so the merge branches on high words first and
    vets the order cheaply: every row's high word is compared with the previous row's, and a
    row that is not strictly greater (a descent, a duplicate, an equal high word) only sets
    a flag. A flagged input gets an exact (hi, lo) order check in a second pass afterwards.
    Measured on 100k vs 100k rows, this is ~20% faster than a full 128-bit check per row, and
    faster than a branch-free merge, whose data-dependent index updates form a long chain.
    """
    cdef offset_t i = 0, j = 0, noa = 0, nob = 0, nc = 0, jfirst
    cdef fp_word_t ah, al, bh, bl
    # high word of the row consumed last on each side; 0 is <= every word (a false alarm
    # for a first row of 0 only costs the second pass)
    cdef fp_word_t pah = 0, pbh = 0
    cdef bint suspect = False
    while i < na and j < nb:
        ah = a[2 * i]
        bh = b[2 * j]
        suspect |= (ah <= pah) | (bh <= pbh)
        if ah == bh:
            al = a[2 * i + 1]
            bl = b[2 * j + 1]
            if al == bl:
                # every a row of this value pairs with the first b row of it
                jfirst = j
                common_a[nc] = i
                common_b[nc] = jfirst
                nc += 1
                i += 1
                j += 1
                if i < na and a[2 * i] == ah:
                    suspect = True
                    while i < na and a[2 * i] == ah and a[2 * i + 1] == al:
                        common_a[nc] = i
                        common_b[nc] = jfirst
                        nc += 1
                        i += 1
                if j < nb and b[2 * j] == ah:
                    suspect = True
                    while j < nb and b[2 * j] == ah and b[2 * j + 1] == al:
                        j += 1
                pah = ah
                pbh = ah
            else:
                suspect = True
                if al < bl:
                    only_a[noa] = i
                    noa += 1
                    i += 1
                    pah = ah
                else:
                    only_b[nob] = j
                    nob += 1
                    j += 1
                    pbh = bh
        elif ah < bh:
            only_a[noa] = i
            noa += 1
            i += 1
            pah = ah
        else:
            only_b[nob] = j
            nob += 1
            j += 1
            pbh = bh
    suspect |= not emit_rest(a, i, na, pah, only_a, &noa)
    suspect |= not emit_rest(b, j, nb, pbh, only_b, &nob)
    counts[0] = noa
    counts[1] = nob
    counts[2] = nc
    if suspect:
        if not is_sorted(a, na):
            return A_UNSORTED
        if not is_sorted(b, nb):
            return B_UNSORTED
    return DIFF_OK


# ---- Python API --------------------------------------------------------------------------------

cdef inline const fp_word_t* rows_ptr(cnp.ndarray fp):
    return <const fp_word_t*>cnp.PyArray_DATA(fp)


cdef inline offset_t* index_ptr(cnp.ndarray arr):
    return <offset_t*>cnp.PyArray_DATA(arr)


cdef cnp.ndarray _shrunk(cnp.ndarray arr, offset_t n):
    # realloc in place: the array was made here, so nothing else refers to its buffer
    arr.resize(n, refcheck=False)
    return arr


cdef inline int _bucket_bits(offset_t n) noexcept nogil:
    """The bucket count _sort_order uses for n rows: 2**bits, bits = bit_length(n) - 2 within
    [1, MAX_BUCKET_BITS]."""
    cdef int length = 0
    while n > 0:
        length += 1
        n >>= 1
    return min(MAX_BUCKET_BITS, max(1, length - 2))


cdef offset_t sort_and_count_distinct(fp_word_t* rows, offset_t m, offset_t* order, offset_t* scratch,
                                       offset_t* starts) noexcept nogil:
    """Sort rows 0..m-1 of ``rows`` (order: their stable order, by (hi, lo)) and return how many
    are distinct, so the caller can make arrays of exactly that size. ``order`` and ``scratch``
    have room for m entries, ``starts`` for 2**_bucket_bits(m) + 1."""
    cdef offset_t i, r, d = 0
    if m > 1:
        bucket_sort(rows, m, order, scratch, starts, _bucket_bits(m))
    elif m == 1:
        order[0] = 0
    for i in range(m):
        r = order[i]
        if i == 0 or rows[2 * r] != rows[2 * order[i - 1]] or rows[2 * r + 1] != rows[2 * order[i - 1] + 1]:
            d += 1
    return d


cdef void write_distinct(const fp_word_t* rows, offset_t m, const offset_t* order, fp_word_t* out,
                         offset_t* counts) noexcept nogil:
    """The distinct rows of ``rows`` in ``order`` (sort_and_count_distinct's) into ``out``, and,
    unless ``counts`` is NULL, how often each occurs."""
    cdef offset_t i, r, d = 0
    for i in range(m):
        r = order[i]
        if d == 0 or rows[2 * r] != out[2 * (d - 1)] or rows[2 * r + 1] != out[2 * (d - 1) + 1]:
            out[2 * d] = rows[2 * r]
            out[2 * d + 1] = rows[2 * r + 1]
            if counts != NULL:
                counts[d] = 1
            d += 1
        elif counts != NULL:
            counts[d - 1] += 1


cdef cnp.ndarray _sort_order(cnp.ndarray fp):
    cdef offset_t n = fp.shape[0]
    cdef cnp.ndarray order = np.empty(n, dtype=np.int64)
    if n <= 1:
        if n == 1:
            index_ptr(order)[0] = 0
        return order
    cdef int bits = _bucket_bits(n)
    cdef cnp.ndarray tmp = np.empty(n, dtype=np.int64)
    cdef cnp.ndarray starts = np.empty(((<offset_t>1) << bits) + 1, dtype=np.int64)
    cdef const fp_word_t* p = rows_ptr(fp)
    cdef offset_t* po = index_ptr(order)
    cdef offset_t* pt = index_ptr(tmp)
    cdef offset_t* ps = index_ptr(starts)
    with nogil:
        bucket_sort(p, n, po, pt, ps, bits)
    return order


def sort_fingerprints(fp):
    return _sort_order(check_fingerprints(fp, "fp"))


cdef tuple _diff_sorted(cnp.ndarray a, cnp.ndarray b):
    cdef offset_t na = a.shape[0]
    cdef offset_t nb = b.shape[0]
    cdef cnp.ndarray only_a = np.empty(na, dtype=np.int64)
    cdef cnp.ndarray only_b = np.empty(nb, dtype=np.int64)
    cdef cnp.ndarray common_a = np.empty(na, dtype=np.int64)
    cdef cnp.ndarray common_b = np.empty(na, dtype=np.int64)
    cdef offset_t counts[3]
    cdef int status
    cdef const fp_word_t* pa = rows_ptr(a)
    cdef const fp_word_t* pb = rows_ptr(b)
    cdef offset_t* p_oa = index_ptr(only_a)
    cdef offset_t* p_ob = index_ptr(only_b)
    cdef offset_t* p_ca = index_ptr(common_a)
    cdef offset_t* p_cb = index_ptr(common_b)
    with nogil:
        if merge_distinct(pa, na, pb, nb, p_oa, p_ob, p_ca, p_cb, counts):
            status = DIFF_OK
        else:
            status = merge_diff(pa, na, pb, nb, p_oa, p_ob, p_ca, p_cb, counts)
    if status == A_UNSORTED:
        raise _unsorted_error(a, "a")
    if status == B_UNSORTED:
        # a may be unsorted further on than the merge got: report a first, like the reference
        _raise_if_unsorted(a, "a")
        raise _unsorted_error(b, "b")
    return (_shrunk(only_a, counts[0]), _shrunk(only_b, counts[1]),
            _shrunk(common_a, counts[2]), _shrunk(common_b, counts[2]))


cdef int _raise_if_unsorted(cnp.ndarray fp, str name) except -1:
    cdef offset_t n = fp.shape[0]
    cdef const fp_word_t* p = rows_ptr(fp)
    cdef bint ok
    with nogil:
        ok = is_sorted(p, n)
    if not ok:
        raise _unsorted_error(fp, name)
    return 0


def diff_sorted(a, b):
    return _diff_sorted(check_fingerprints(a, "a"), check_fingerprints(b, "b"))


cdef cnp.ndarray _gather(cnp.ndarray fp, cnp.ndarray order):
    """fp[order] as a new C-contiguous array (numpy's 2-D fancy indexing is several times
    slower for this shape)."""
    cdef offset_t n = fp.shape[0], k, r
    cdef cnp.ndarray out = np.empty((n, 2), dtype=np.uint64)
    cdef const fp_word_t* src = rows_ptr(fp)
    cdef fp_word_t* dst = <fp_word_t*>cnp.PyArray_DATA(out)
    cdef const offset_t* idx = index_ptr(order)
    with nogil:
        for k in range(n):
            r = idx[k]
            dst[2 * k] = src[2 * r]
            dst[2 * k + 1] = src[2 * r + 1]
    return out


def diff(a, b):
    a = np.ascontiguousarray(check_fingerprints(a, "a", contiguous=False))
    b = np.ascontiguousarray(check_fingerprints(b, "b", contiguous=False))
    cdef cnp.ndarray order_a = _sort_order(a)
    cdef cnp.ndarray order_b = _sort_order(b)
    cdef tuple sorted_result = _diff_sorted(_gather(a, order_a), _gather(b, order_b))
    cdef cnp.ndarray s_oa = sorted_result[0], s_ob = sorted_result[1]
    cdef cnp.ndarray s_ca = sorted_result[2], s_cb = sorted_result[3]
    cdef offset_t na = a.shape[0], nb = b.shape[0]
    cdef offset_t n_oa = s_oa.shape[0], n_ob = s_ob.shape[0], nc = s_ca.shape[0]
    # partner[i] = matched index of b for original row i of a, or -1; then read it back in
    # index order, which sorts every result by original index in O(n) without a sort
    cdef cnp.ndarray partner = np.empty(na, dtype=np.int64)
    cdef cnp.ndarray b_only_mark = np.zeros(nb, dtype=np.uint8)
    cdef cnp.ndarray only_a = np.empty(n_oa, dtype=np.int64)
    cdef cnp.ndarray only_b = np.empty(n_ob, dtype=np.int64)
    cdef cnp.ndarray common_a = np.empty(nc, dtype=np.int64)
    cdef cnp.ndarray common_b = np.empty(nc, dtype=np.int64)
    cdef offset_t* oa = index_ptr(order_a)
    cdef offset_t* ob = index_ptr(order_b)
    cdef offset_t* p_soa = index_ptr(s_oa)
    cdef offset_t* p_sob = index_ptr(s_ob)
    cdef offset_t* p_sca = index_ptr(s_ca)
    cdef offset_t* p_scb = index_ptr(s_cb)
    cdef offset_t* p_partner = index_ptr(partner)
    cdef unsigned char* p_b_only = <unsigned char*>cnp.PyArray_DATA(b_only_mark)
    cdef offset_t* p_oa_out = index_ptr(only_a)
    cdef offset_t* p_ob_out = index_ptr(only_b)
    cdef offset_t* p_ca_out = index_ptr(common_a)
    cdef offset_t* p_cb_out = index_ptr(common_b)
    cdef offset_t i, k, ka, kc
    with nogil:
        for i in range(na):
            p_partner[i] = -1
        for k in range(nc):
            # the first row of a run in sorted b is its smallest original index (stable sort)
            p_partner[oa[p_sca[k]]] = ob[p_scb[k]]
        for k in range(n_ob):
            p_b_only[ob[p_sob[k]]] = 1
        ka = 0
        kc = 0
        for i in range(na):
            if p_partner[i] < 0:
                p_oa_out[ka] = i
                ka += 1
            else:
                p_ca_out[kc] = i
                p_cb_out[kc] = p_partner[i]
                kc += 1
        k = 0
        for i in range(nb):
            if p_b_only[i]:
                p_ob_out[k] = i
                k += 1
    return only_a, only_b, common_a, common_b


def unique_counts(fp):
    """The distinct rows of ``fp`` sorted by (hi, lo), and how often each occurs: one sort,
    one gather and one run-length pass, without the GIL."""
    values, counts, _ = _unique(fp, False)
    return values, counts


def unique_inverse(fp):
    """Like :func:`unique_counts`, plus ``inverse``: the index in ``values`` of every row."""
    return _unique(fp, True)


cdef tuple _unique(object fp, bint with_inverse):
    """(values, counts, inverse or None): the inverse is written only when asked for (every
    source's grounding set is made with unique_counts, which has no use for it)."""
    fp = np.ascontiguousarray(check_fingerprints(fp, "fp", contiguous=False))
    cdef offset_t n = fp.shape[0], k, r, m = 0
    cdef cnp.ndarray order = _sort_order(fp)
    cdef cnp.ndarray values = np.empty((n, 2), dtype=np.uint64)
    cdef cnp.ndarray counts = np.empty(n, dtype=np.int64)
    cdef cnp.ndarray inverse = np.empty(n if with_inverse else 0, dtype=np.int64)
    cdef const fp_word_t* src = rows_ptr(fp)
    cdef fp_word_t* dst = <fp_word_t*>cnp.PyArray_DATA(values)
    cdef offset_t* pc = index_ptr(counts)
    cdef offset_t* pi = index_ptr(inverse)
    cdef const offset_t* po = index_ptr(order)
    with nogil:
        for k in range(n):
            r = po[k]
            if m > 0 and src[2 * r] == dst[2 * (m - 1)] and src[2 * r + 1] == dst[2 * (m - 1) + 1]:
                pc[m - 1] += 1
            else:
                dst[2 * m] = src[2 * r]
                dst[2 * m + 1] = src[2 * r + 1]
                pc[m] = 1
                m += 1
            if with_inverse:
                pi[r] = m - 1
    values.resize((m, 2), refcheck=False)  # made here: nothing else refers to its buffer
    return values, _shrunk(counts, m), (inverse if with_inverse else None)


cdef inline int cmp_rows(const fp_word_t* x, offset_t i, const fp_word_t* y, offset_t j) noexcept nogil:
    if x[2 * i] != y[2 * j]:
        return -1 if x[2 * i] < y[2 * j] else 1
    if x[2 * i + 1] != y[2 * j + 1]:
        return -1 if x[2 * i + 1] < y[2 * j + 1] else 1
    return 0


cdef offset_t merge_delta(const fp_word_t* v, const offset_t* c, offset_t n,
                          const fp_word_t* rv, const offset_t* rc, offset_t rn,
                          const fp_word_t* av, const offset_t* ac, offset_t an,
                          fp_word_t* out_v, offset_t* out_c) noexcept nogil:
    """One pass over three sorted distinct arrays: counts of ``v`` minus ``rv`` plus ``av``.
    Returns the number of rows written, -1 when a removal exceeds what ``v`` holds, or -2
    when an array is not sorted and distinct or a count is below 1 (each row is vetted as
    the pass reaches it)."""
    cdef offset_t i = 0, r = 0, a = 0, m = 0, cnt, base
    cdef int ca
    for r in range(rn):
        if rc[r] < 1 or (r and cmp_rows(rv, r - 1, rv, r) >= 0):
            return -2
    r = 0
    while i < n or a < an:
        if i < n and (c[i] < 1 or (i and cmp_rows(v, i - 1, v, i) >= 0)):
            return -2
        if a < an and (ac[a] < 1 or (a and cmp_rows(av, a - 1, av, a) >= 0)):
            return -2
        if a >= an or (i < n and cmp_rows(v, i, av, a) < 0):
            cnt = c[i]
            while r < rn and cmp_rows(rv, r, v, i) < 0:
                return -1  # a removal of a value the multiset does not hold
            if r < rn and cmp_rows(rv, r, v, i) == 0:
                cnt -= rc[r]
                r += 1
            if cnt < 0:
                return -1
            if cnt > 0:
                out_v[2 * m] = v[2 * i]
                out_v[2 * m + 1] = v[2 * i + 1]
                out_c[m] = cnt
                m += 1
            i += 1
        else:
            ca = 1 if i >= n else cmp_rows(v, i, av, a)
            cnt = ac[a]
            if ca == 0:
                # the removal is checked against values alone, before the addition (as the
                # reference does: added rows cannot make up for removing what is not there)
                base = c[i]
                while r < rn and cmp_rows(rv, r, v, i) < 0:
                    return -1
                if r < rn and cmp_rows(rv, r, v, i) == 0:
                    base -= rc[r]
                    r += 1
                if base < 0:
                    return -1
                cnt += base
                i += 1
            if cnt < 0:
                return -1
            if cnt > 0:
                out_v[2 * m] = av[2 * a]
                out_v[2 * m + 1] = av[2 * a + 1]
                out_c[m] = cnt
                m += 1
            a += 1
    if r < rn:
        return -1
    return m


def apply_delta(values, counts, removed, removed_counts, added, added_counts):
    """The multiset ``values``/``counts`` minus ``removed`` plus ``added`` (all sorted and
    distinct, as :func:`unique_counts` returns them), in one merge pass without the GIL."""
    values = check_fingerprints(values, "values")
    removed = check_fingerprints(removed, "removed")
    added = check_fingerprints(added, "added")
    for arr, name in ((counts, "counts"), (removed_counts, "removed_counts"), (added_counts, "added_counts")):
        if not (type(arr) is cnp.ndarray and cnp.PyArray_TYPE(<cnp.ndarray>arr) == cnp.NPY_INT64):
            # a float count would be truncated by the cast below
            found = np.asarray(arr)
            if found.ndim != 1 or (found.size and found.dtype.kind not in "iu"):
                raise InvalidArgumentError(f"{name} must be a 1-D sequence of integers", argument=name)
    cdef cnp.ndarray c = np.ascontiguousarray(counts, dtype=np.int64)
    cdef cnp.ndarray rc = np.ascontiguousarray(removed_counts, dtype=np.int64)
    cdef cnp.ndarray ac = np.ascontiguousarray(added_counts, dtype=np.int64)
    if c.shape[0] != values.shape[0] or rc.shape[0] != removed.shape[0] or ac.shape[0] != added.shape[0]:
        raise InvalidArgumentError("every fingerprint array needs one count per row", argument="counts")
    cdef offset_t n = values.shape[0], rn = removed.shape[0], an = added.shape[0], m
    cdef cnp.ndarray out_v = np.empty((n + an, 2), dtype=np.uint64)
    cdef cnp.ndarray out_c = np.empty(n + an, dtype=np.int64)
    cdef const fp_word_t* pv = rows_ptr(values)
    cdef const fp_word_t* prv = rows_ptr(removed)
    cdef const fp_word_t* pav = rows_ptr(added)
    cdef const offset_t* pc = index_ptr(c)
    cdef const offset_t* prc = index_ptr(rc)
    cdef const offset_t* pac = index_ptr(ac)
    cdef fp_word_t* pov = <fp_word_t*>cnp.PyArray_DATA(out_v)
    cdef offset_t* poc = index_ptr(out_c)
    with nogil:
        m = merge_delta(pv, pc, n, prv, prc, rn, pav, pac, an, pov, poc)
    if m < 0:
        # the pass stops at the first problem it meets; the reference's checks (every array,
        # in order) name the first one it would have raised
        for arr, arr_counts, name, counts_name in ((values, counts, "values", "counts"),
                                                   (removed, removed_counts, "removed", "removed_counts"),
                                                   (added, added_counts, "added", "added_counts")):
            check_multiset(arr, arr_counts, name, counts_name)
        raise InvalidArgumentError("removed holds a value more often than values does", argument="removed")
    out_v.resize((m, 2), refcheck=False)
    return out_v, _shrunk(out_c, m)


def _check_set(fp, str name):
    if not isinstance(fp, cnp.ndarray):
        raise TypeError(SET_TYPE_ERROR.format(name=name, type=type(fp).__name__))
    return check_fingerprints(fp, name)


cdef inline bint _is_fingerprint_array(object fp):
    """The cheap yes of check_fingerprints (which is called for its message when this says no)."""
    if type(fp) is not cnp.ndarray:
        return False
    cdef cnp.ndarray a = <cnp.ndarray>fp
    return (a.ndim == 2 and a.shape[1] == 2 and cnp.PyArray_TYPE(a) == cnp.NPY_UINT64
            and cnp.PyArray_ISNOTSWAPPED(a) and cnp.PyArray_IS_C_CONTIGUOUS(a))


cdef inline bint contains_row(const fp_word_t* fp, offset_t n, fp_word_t h, fp_word_t l) noexcept nogil:
    """Binary search for (h, l) in ``n`` rows sorted by (hi, lo)."""
    return find_between(fp, 0, n, h, l) >= 0


cdef inline uint64_t slot_of(fp_word_t h, fp_word_t l, int bits) noexcept nogil:
    """A row's home slot: both words mixed (a fingerprint's words are hashes, but a set made
    from any array must not pile its rows into a few slots)."""
    return ((l ^ (h * <uint64_t>0x9E3779B97F4A7C15)) * <uint64_t>0xBF58476D1CE4E5B9) >> (64 - bits)


cdef bint fill_slots(const fp_word_t* rows, offset_t n, int32_t* slots, int bits) noexcept nogil:
    """Put each row's position in the first empty slot from its home; False when a row lands
    more than MAX_PROBES slots away (then look-ups would be slow: the table is not used)."""
    cdef uint64_t mask = (<uint64_t>1 << bits) - 1, k
    cdef offset_t i
    cdef int probes
    for i in range(n):
        k = slot_of(rows[2 * i], rows[2 * i + 1], bits)
        probes = 0
        while slots[k] >= 0:
            k = (k + 1) & mask
            probes += 1
            if probes > MAX_PROBES:
                return False
        slots[k] = <int32_t>i
    return True


cdef inline offset_t find_slotted(const fp_word_t* rows, const int32_t* slots, int bits, fp_word_t h,
                                  fp_word_t l) noexcept nogil:
    """The row of (h, l) found through the hash slots (fill_slots), or -1: probed from its
    home slot to an empty one, and no further than MAX_PROBES slots past home, where every row
    lies (fill_slots refuses a table otherwise). Rows made to share home slots form one long
    cluster, which a miss would otherwise walk end to end (red team 32, 02: 40k crafted rows,
    40k misses, 1.1 s)."""
    cdef uint64_t mask = (<uint64_t>1 << bits) - 1
    cdef uint64_t k = slot_of(h, l, bits)
    cdef int32_t e
    cdef int probes
    for probes in range(MAX_PROBES + 1):
        e = slots[k]
        if e < 0:
            return -1
        if rows[2 * e] == h and rows[2 * e + 1] == l:
            return e
        k = (k + 1) & mask
    return -1


cdef inline offset_t find_indexed(const fp_word_t* fp, const offset_t* starts, int shift, fp_word_t h,
                                  fp_word_t l) noexcept nogil:
    """The row of (h, l) in a SortedFingerprints' rows ``fp``, found through its run index
    (``starts``, ``shift``): only the rows of h's run are searched; -1 when absent."""
    cdef offset_t b = <offset_t>(h >> shift)
    return find_between(fp, starts[b], starts[b + 1], h, l)


cdef inline offset_t find_between(const fp_word_t* fp, offset_t lo, offset_t hi, fp_word_t h, fp_word_t l) noexcept nogil:
    """The first row of ``lo .. hi - 1`` (sorted by (hi, lo)) equal to (h, l), or -1."""
    cdef offset_t n = hi, mid
    while lo < hi:
        mid = lo + (hi - lo) // 2
        if fp[2 * mid] < h or (fp[2 * mid] == h and fp[2 * mid + 1] < l):
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < n and fp[2 * lo] == h and fp[2 * lo + 1] == l else -1


cdef inline bint _fingerprint_column(object fp, offset_t n) noexcept:
    """``fp`` is what check_grounding_columns accepts as a fingerprint column of n rows."""
    if type(fp) is not cnp.ndarray:
        return False
    cdef cnp.ndarray a = <cnp.ndarray>fp
    return (cnp.PyArray_TYPE(a) == cnp.NPY_UINT64 and cnp.PyArray_ISNOTSWAPPED(a) and a.ndim == 2
            and a.shape[0] == n and a.shape[1] == 2 and cnp.PyArray_IS_C_CONTIGUOUS(a))


cdef inline bint _grounding_columns_ok(object fp_value, object fp_fact, object fp_key, object kind) noexcept:
    """The common case of check_grounding_columns, without a Python call: every column right."""
    if type(kind) is not cnp.ndarray:
        return False
    cdef cnp.ndarray k = <cnp.ndarray>kind
    if cnp.PyArray_TYPE(k) != cnp.NPY_UINT8 or k.ndim != 1 or not cnp.PyArray_IS_C_CONTIGUOUS(k):
        return False
    cdef offset_t n = k.shape[0]
    return _fingerprint_column(fp_value, n) and _fingerprint_column(fp_fact, n) and _fingerprint_column(fp_key, n)


def grounding_index_many(columns, kv_kind):
    """:func:`grounding_index` of each ``(fp_value, fp_fact, fp_key, kind)`` of ``columns``:
    the columns checked without a Python call each, every text gathered and sorted in one
    shared buffer, and each set left with two arrays of its own (its rows and its run
    index) instead of the six a call per text allocated."""
    cdef list items = check_column_groups(columns)
    _check_kind_int(kv_kind, "kv_kind")
    cdef Py_ssize_t k
    for k in range(len(items)):
        fp_value, fp_fact, fp_key, kind = items[k]
        if not _grounding_columns_ok(fp_value, fp_fact, fp_key, kind):
            try:
                check_grounding_columns(fp_value, fp_fact, fp_key, kind)
            except (TypeError, InvalidArgumentError) as e:
                e.add_note(f"in columns[{k}]")
                raise
    return _grounding_sets(items, <uint8_t>kv_kind)


cdef list _grounding_sets(list items, uint8_t want):
    """The grounding sets of ``items``, (fp_value, fp_fact, fp_key, kind) columns already
    checked: each text's values, facts and kv keys gathered into one shared buffer, sorted
    there, and its distinct rows copied into an array of exactly their number."""
    cdef Py_ssize_t n_texts = len(items), k
    cdef offset_t total = 0, most = 0, m, i, r, d, n
    cdef const uint8_t* pk
    cdef cnp.ndarray counts = np.empty(n_texts, dtype=np.int64)
    cdef offset_t* pm = index_ptr(counts)
    for k in range(n_texts):
        kind = items[k][3]
        n = (<cnp.ndarray>kind).shape[0]
        pk = <const uint8_t*>cnp.PyArray_DATA(kind)
        m = 2 * n
        with nogil:
            for i in range(n):
                m += pk[i] == want
        pm[k] = m
        total += m
        if m > most:
            most = m
    cdef cnp.ndarray gathered = np.empty((max(total, 1), 2), dtype=np.uint64)
    cdef fp_word_t* pg = <fp_word_t*>cnp.PyArray_DATA(gathered)
    cdef cnp.ndarray order = np.empty(max(most, 1), dtype=np.int64)
    cdef cnp.ndarray tmp = np.empty(max(most, 1), dtype=np.int64)
    cdef int bits_most = _bucket_bits(most)
    cdef cnp.ndarray starts = np.empty(((<offset_t>1) << bits_most) + 1, dtype=np.int64)
    cdef offset_t* po = index_ptr(order)
    cdef offset_t* pt = index_ptr(tmp)
    cdef offset_t* ps = index_ptr(starts)
    cdef const fp_word_t* pv
    cdef const fp_word_t* pf
    cdef const fp_word_t* pkey
    cdef fp_word_t* base
    cdef fp_word_t* pr
    cdef cnp.ndarray rows
    cdef SortedFingerprints ix
    cdef list out = []
    cdef offset_t at = 0
    cdef cnp.npy_intp dims[2]
    dims[1] = 2
    for k in range(n_texts):
        fp_value, fp_fact, fp_key, kind = items[k]
        n = (<cnp.ndarray>kind).shape[0]
        m = pm[k]
        pk = <const uint8_t*>cnp.PyArray_DATA(kind)
        pv = rows_ptr(fp_value)
        pf = rows_ptr(fp_fact)
        pkey = rows_ptr(fp_key)
        base = pg + 2 * at
        d = 0
        with nogil:
            memcpy(base, pv, 2 * n * sizeof(fp_word_t))
            memcpy(base + 2 * n, pf, 2 * n * sizeof(fp_word_t))
            r = 2 * n
            for i in range(n):
                if pk[i] == want:
                    base[2 * r] = pkey[2 * i]
                    base[2 * r + 1] = pkey[2 * i + 1]
                    r += 1
            # distinct rows, counted first: each set gets an array of exactly its size
            d = sort_and_count_distinct(base, m, po, pt, ps)
        dims[0] = d
        rows = cnp.PyArray_EMPTY(2, dims, cnp.NPY_UINT64, 0)
        pr = <fp_word_t*>cnp.PyArray_DATA(rows)
        with nogil:
            write_distinct(base, m, po, pr, NULL)
        ix = SortedFingerprints.__new__(SortedFingerprints)
        ix._adopt(rows)
        out.append(ix)
        at += m
    return out


cdef cnp.ndarray _NO_ROWS = np.empty((0, 2), dtype=np.uint64)
_NO_ROWS.setflags(write=False)
cdef cnp.ndarray _NO_RUNS = np.zeros(3, dtype=np.int64)
_NO_RUNS.setflags(write=False)


cdef class SortedFingerprints:
    """A private, read-only copy of a fingerprint array, vetted as sorted by (hi, lo) once, when
    it is made: :func:`absent_from_all` then looks rows up in it without checking the order
    again. For sets that are searched many times (a source's facts, against every block that
    cites it).

    It also keeps where each run of equal top bits of ``hi`` starts (fingerprints are hashes,
    so about two rows share a run): a look-up reads one entry of that index and searches a
    couple of rows, touching two or three cache lines instead of the ~log2(n) of a binary
    search over the whole set. A set is searched once per fact of a changed block, usually
    from memory the check has not touched yet, so the lines touched are the cost.

    A bulk :func:`positions` or :func:`place_rows` (as many query rows as the set has rows,
    or more) looks rows up in hash slots instead, made on that first use and kept
    (``_slot_table``)."""

    cdef cnp.ndarray _rows
    cdef cnp.ndarray _starts  # run starts, int64, 2**bits + 1 entries
    cdef int _shift  # 64 - bits: hi >> _shift is a row's run
    cdef bint _distinct  # no row repeated: a row's position is well defined (positions)
    # made on first use by a bulk positions / place_rows (_slot_table): int32 slots of a linear
    # probing table of the rows' positions (-1 empty), 2**_slot_bits of them; False: not made
    # (no place for it, or a row too far from its home slot)
    cdef object _slots
    cdef int _slot_bits
    cdef bint _made  # rows adopted: the set never changes after that

    def __cinit__(self):
        # an object made without __init__ (SortedFingerprints.__new__) is a valid empty set,
        # never one whose arrays a look-up would read through a NULL pointer
        # (shared read-only arrays: every set made by _adopt starts here too)
        self._rows = _NO_ROWS
        self._starts = _NO_RUNS
        self._shift = 63
        self._distinct = True
        self._slots = None
        self._slot_bits = 0
        self._made = False

    def __reduce__(self):
        # rebuilt (and vetted) by __init__, never from a state written field by field
        return (SortedFingerprints, (self._rows,))

    def __init__(self, fp):
        if self._made:
            # its rows, run index and hash slots are read without the GIL by look-ups that may
            # be running; made again, they would be read half old, half new (red team 32, 01)
            raise TypeError(REINIT_ERROR)
        fp = check_fingerprints(fp, "fp", contiguous=False)
        cdef cnp.ndarray rows = np.array(fp, dtype=np.uint64, order="C", copy=True)
        _raise_if_unsorted(rows, "fp")
        self._adopt(rows)

    cdef int _adopt(self, cnp.ndarray rows) except -1:
        """Take ``rows`` (C-ordered uint64 (n, 2), sorted, nobody else's) and index them."""
        # (through the C API: a summarize makes a set for each turn it summarizes, and the
        # Python calls were most of a small set's cost)
        cnp.PyArray_CLEARFLAGS(rows, cnp.NPY_ARRAY_WRITEABLE)
        self._rows = rows
        self._made = True
        cdef offset_t n = rows.shape[0], i, b, n_runs
        cdef int bits = 1
        while bits < MAX_RUN_BITS and ((<offset_t>1) << (bits + 1)) <= n:
            bits += 1
        n_runs = (<offset_t>1) << bits
        self._shift = 64 - bits
        cdef cnp.npy_intp size = n_runs + 1
        self._starts = cnp.PyArray_ZEROS(1, &size, cnp.NPY_INT64, 0)
        cdef offset_t* starts = index_ptr(self._starts)
        cdef const fp_word_t* p = rows_ptr(rows)
        cdef int shift = self._shift
        cdef bint repeated = False
        with nogil:
            # a count per run, then a running sum: the run starts without a data-dependent
            # branch per row (a while loop over runs mispredicted about once a row, 4x slower)
            for i in range(n):
                starts[(p[2 * i] >> shift) + 1] += 1
            for i in range(1, n):
                repeated |= (p[2 * i] == p[2 * i - 2]) & (p[2 * i + 1] == p[2 * i - 1])
            for b in range(n_runs):
                starts[b + 1] += starts[b]
        self._distinct = not repeated
        return 0

    cdef object _slot_table(self):
        """The hash slots of the rows (made once; None when there are none to make): a row is
        looked up in one slot, usually, where the run index takes a search of its run whose
        data-dependent branches mispredict about once a look-up (3x the time of a probe, on the
        tens of thousands of rows a prune places). Rows are distinct (positions asks no
        other), so a row's slot holds its position alone."""
        if self._slots is not None:
            return self._slots if self._slots is not False else None
        cdef offset_t n = self._rows.shape[0]
        if n == 0 or n >= (<offset_t>1 << 30) or not self._distinct:
            self._slots = False
            return None
        cdef int bits = 1
        while (<offset_t>1 << bits) < 4 * n:  # at most a quarter full: most look-ups probe one slot
            bits += 1
        cdef cnp.ndarray slots = np.full(<offset_t>1 << bits, -1, dtype=np.int32)
        cdef int32_t* p_slots = <int32_t*>cnp.PyArray_DATA(slots)
        cdef const fp_word_t* rows = rows_ptr(self._rows)
        cdef bint ok
        with nogil:
            ok = fill_slots(rows, n, p_slots, bits)
        # (the bits first: a thread that finds the slots reads them next; two threads that
        # both made a table made the same one)
        self._slot_bits = bits
        self._slots = slots if ok else False
        return slots if ok else None

    def __len__(self):
        return self._rows.shape[0]

    def to_array(self):
        """A copy of the rows (the object's own stay private, so they cannot change)."""
        return self._rows.copy()

    def __repr__(self):
        return f"SortedFingerprints({self._rows.shape[0]} rows)"


def grounding_index(fp_value, fp_fact, fp_key, kind, kv_kind):
    """The distinct rows of ``fp_value``, ``fp_fact`` and of the ``fp_key`` rows whose ``kind``
    is ``kv_kind``, sorted, as a :class:`SortedFingerprints`: a text's grounding set, gathered,
    sorted and deduplicated in one call (the reference: ``unique_counts`` of the three
    concatenated); the work of :func:`grounding_index_many` for one text."""
    check_grounding_columns(fp_value, fp_fact, fp_key, kind)
    _check_kind_int(kv_kind, "kv_kind")  # (a kind out of 0..255 is refused, never truncated)
    return _grounding_sets([(fp_value, fp_fact, fp_key, kind)], <uint8_t>kv_kind)[0]


cdef SortedFingerprints _index_of(object index):
    if type(index) is not SortedFingerprints:
        raise TypeError(f"index must be a SortedFingerprints, not {type(index).__name__}")
    return <SortedFingerprints>index


cdef tuple _gather_queries(SortedFingerprints ix, object queries, list owners):
    """(row pointers, row counts, total rows, the query arrays as given) of the query arrays,
    each made C-contiguous if it is not (kept alive in ``owners`` while it is read)."""
    if not isinstance(queries, (list, tuple)):
        raise TypeError(f"queries must be a list or tuple of fingerprint arrays, not {type(queries).__name__}")
    # each item read once, from a private copy: a list subclass may answer another array the
    # second time it is asked (red team 39, 07)
    cdef tuple given = tuple(queries)
    cdef Py_ssize_t k, n_arrays = len(given)
    cdef offset_t total = 0
    cdef cnp.ndarray ptrs = np.empty(n_arrays, dtype=np.uintp)
    cdef cnp.ndarray lens = np.empty(n_arrays, dtype=np.int64)
    cdef size_t* p_ptrs = <size_t*>cnp.PyArray_DATA(ptrs)
    cdef offset_t* p_lens = index_ptr(lens)
    cdef cnp.ndarray q
    for k in range(n_arrays):
        item = given[k]
        q = item if _is_fingerprint_array(item) else np.ascontiguousarray(
            check_fingerprints(item, f"queries[{k}]", contiguous=False))
        owners.append(q)
        p_ptrs[k] = <size_t>cnp.PyArray_DATA(q)
        p_lens[k] = q.shape[0]
        total += q.shape[0]
    if not ix._distinct:
        raise InvalidArgumentError("index has a repeated row, so a position would be ambiguous", argument="index")
    return ptrs, lens, total, given


cdef void place_all(const size_t* p_ptrs, const offset_t* p_lens, Py_ssize_t n_arrays, const fp_word_t* rows,
                    const offset_t* starts, int shift, const int32_t* slots, int slot_bits, const uint8_t* codes,
                    offset_t* out, offset_t* counts, uint8_t* strongest) noexcept nogil:
    """Each query row's position (through the hash ``slots`` when not NULL, else the run
    index); with ``counts`` (not NULL), also the rows per position and the strongest of the
    arrays' ``codes`` per position."""
    cdef Py_ssize_t k
    cdef offset_t r, p, at = 0
    cdef const fp_word_t* qp
    for k in range(n_arrays):
        qp = <const fp_word_t*>p_ptrs[k]
        for r in range(p_lens[k]):
            if slots != NULL:
                p = find_slotted(rows, slots, slot_bits, qp[2 * r], qp[2 * r + 1])
            else:
                p = find_indexed(rows, starts, shift, qp[2 * r], qp[2 * r + 1])
            out[at] = p
            at += 1
            if counts != NULL and p >= 0:
                counts[p] += 1
                if codes[k] > strongest[p]:
                    strongest[p] = codes[k]


cdef tuple _placed(object index, object queries, object codes):
    """(positions, counts, strongest) of ``place_rows``; only the positions when ``codes`` is
    None (``positions``). Arguments checked in the reference's order."""
    cdef list owners = []
    cdef SortedFingerprints ix = _index_of(index)
    ptrs, lens, total_obj, _ = _gather_queries(ix, queries, owners)
    cdef Py_ssize_t k, n_arrays = len(owners)
    # positions alone (every check, several times) allocates nothing but its answer
    cdef cnp.ndarray code_array = None, counts = None, strongest = None
    cdef uint8_t* p_codes = NULL
    cdef offset_t* p_counts = NULL
    cdef uint8_t* p_strongest = NULL
    if codes is not None:
        if not (type(codes) is list or type(codes) is tuple) or len(codes) != n_arrays:
            check_codes(codes, n_arrays)  # raises
        code_array = np.empty(n_arrays, dtype=np.uint8)
        p_codes = <uint8_t*>cnp.PyArray_DATA(code_array)
        for k in range(n_arrays):
            code = codes[k]
            if type(code) is not int or not 0 <= <object>code <= 255:
                check_codes(codes, n_arrays)  # raises, naming the entry
            p_codes[k] = <uint8_t>code
        counts = np.zeros(ix._rows.shape[0], dtype=np.int64)
        strongest = np.zeros(ix._rows.shape[0], dtype=np.uint8)
        p_counts = index_ptr(counts)
        p_strongest = <uint8_t*>cnp.PyArray_DATA(strongest)
    cdef offset_t total = total_obj
    cdef cnp.ndarray out = np.empty(total, dtype=np.int64)
    cdef const size_t* p_ptrs = <const size_t*>cnp.PyArray_DATA(<cnp.ndarray>ptrs)
    cdef const offset_t* p_lens = index_ptr(<cnp.ndarray>lens)
    cdef const fp_word_t* rows = rows_ptr(ix._rows)
    cdef const offset_t* starts = index_ptr(ix._starts)
    cdef offset_t* p_out = index_ptr(out)
    cdef int shift = ix._shift
    # as many look-ups as rows, or more (a prune places every fact of the blocks it drops):
    # worth the hash slots, made once per set; fewer go through the run index
    cdef object slots = ix._slot_table() if total >= ix._rows.shape[0] else None
    cdef const int32_t* p_slots = NULL
    if slots is not None:
        p_slots = <const int32_t*>cnp.PyArray_DATA(<cnp.ndarray>slots)
    cdef int slot_bits = ix._slot_bits
    with nogil:
        place_all(p_ptrs, p_lens, n_arrays, rows, starts, shift, p_slots, slot_bits, p_codes, p_out, p_counts,
                  p_strongest)
    return out, counts, strongest


def positions(index, queries):
    """Each row of the arrays ``queries``: its index in ``index`` (distinct rows), or -1; the
    specification is ``provgate._factdiff_py.positions``. One run-index look-up per row (a
    hash slot probe in bulk: see SortedFingerprints), over the query arrays in place (no
    joined copy), without the GIL."""
    return _placed(index, queries, None)[0]


def place_rows(index, queries, codes):
    """:func:`positions` of the rows of ``queries``, with per distinct row of ``index`` how
    many query rows sit there and the largest code of the arrays holding one there; the
    specification is ``provgate._factdiff_py.place_rows``. One pass without the GIL."""
    return _placed(index, queries, codes)


cdef bint _shares_extent(cnp.ndarray a, const char* lo, const char* hi) noexcept:
    """Do ``a``'s bytes, from its lowest to its highest element, overlap ``[lo, hi)``? (What
    ``numpy.may_share_memory`` answers: the reference's check of ``left``.)"""
    cdef int d, nd = cnp.PyArray_NDIM(a)
    cdef cnp.npy_intp* shape = cnp.PyArray_DIMS(a)
    cdef cnp.npy_intp* strides = cnp.PyArray_STRIDES(a)
    cdef const char* a_lo = <const char*>cnp.PyArray_DATA(a)
    cdef const char* a_hi = a_lo
    if lo == hi:
        return False
    for d in range(nd):
        if shape[d] == 0:
            return False
        if strides[d] < 0:
            a_lo += (shape[d] - 1) * strides[d]
        else:
            a_hi += (shape[d] - 1) * strides[d]
    a_hi += cnp.PyArray_ITEMSIZE(a)
    return a_lo < hi and lo < a_hi


def draw_rows(index, left, queries, kinds, skip_kind):
    """Each row of ``queries`` (not of ``skip_kind``) draws its value from the multiset
    ``index`` x ``left`` if one is left, first come first served, ``left`` used up in place;
    the specification is ``provgate._factdiff_py.draw_rows``. One pass over the query arrays
    in place, without the GIL: a run-index look-up and a decrement per row."""
    cdef list owners = []
    cdef SortedFingerprints ix = _index_of(index)
    # (given: the arrays as given, one private copy of the list read once; a copy made of a
    # view is nobody's alias, and a second list(queries) may not be these: red team 39, 08)
    ptrs, lens, total_obj, given = _gather_queries(ix, queries, owners)
    cdef Py_ssize_t k, n_arrays = len(owners)
    # the cheap yes for what the gate passes (its tables' columns); anything else is checked,
    # and refused, by the reference's own checks
    if not (_is_column(left, cnp.NPY_INT64, ix._rows.shape[0]) and cnp.PyArray_ISWRITEABLE(<cnp.ndarray>left)
            and (type(kinds) is list or type(kinds) is tuple) and len(kinds) == n_arrays
            and type(skip_kind) is int and 0 <= skip_kind <= 255):
        check_draw_arguments(left, ix._rows.shape[0], kinds, given, skip_kind)  # raises
    cdef cnp.ndarray kind_ptrs = np.empty(n_arrays, dtype=np.uintp)
    cdef size_t* p_kinds = <size_t*>cnp.PyArray_DATA(kind_ptrs)
    cdef list copies = []  # (kinds read from a copy, kept alive while the loop reads them)
    cdef const char* left_lo = <const char*>cnp.PyArray_DATA(<cnp.ndarray>left)
    cdef const char* left_hi = left_lo + cnp.PyArray_NBYTES(<cnp.ndarray>left)
    cdef bint column
    for k in range(n_arrays):
        kind = kinds[k]
        column = _is_column(kind, cnp.NPY_UINT8, (<cnp.ndarray>owners[k]).shape[0])
        if not column:
            check_draw_arguments(left, ix._rows.shape[0], kinds, given, skip_kind)  # raises, or it is a view
        # (owners[k] is given[k] or numpy's contiguous copy of the array it is, not what a
        # subclass says it is; a kinds column is an exact ndarray by now)
        if ((cnp.PyArray_Check(given[k]) and _shares_extent(<cnp.ndarray>given[k], left_lo, left_hi))
                or _shares_extent(<cnp.ndarray>owners[k], left_lo, left_hi)
                or _shares_extent(<cnp.ndarray>kind, left_lo, left_hi)):
            check_draw_arguments(left, ix._rows.shape[0], kinds, given, skip_kind)  # raises
        if not column:
            kind = np.ascontiguousarray(kind)  # a view that is not contiguous is read from a copy
            copies.append(kind)
            if (<cnp.ndarray>kind).shape[0] != (<cnp.ndarray>owners[k]).shape[0]:
                # (the checks read the shape the query says it has; the loop reads the rows it has)
                raise InvalidArgumentError(f"kinds[{k}] must have one entry per row of queries[{k}] "
                                           f"({(<cnp.ndarray>owners[k]).shape[0]}), got shape {kind.shape}",
                                           argument=f"kinds[{k}]")
        p_kinds[k] = <size_t>cnp.PyArray_DATA(<cnp.ndarray>kind)
    cdef offset_t total = total_obj, r, p, at = 0
    cdef cnp.ndarray drawn = np.zeros(total, dtype=np.bool_)
    cdef cnp.ndarray counts = np.zeros(n_arrays, dtype=np.int64)
    cdef unsigned char* p_drawn = <unsigned char*>cnp.PyArray_DATA(drawn)
    cdef offset_t* p_counts = index_ptr(counts)
    cdef offset_t* p_left = index_ptr(<cnp.ndarray>left)
    cdef const size_t* p_ptrs = <const size_t*>cnp.PyArray_DATA(<cnp.ndarray>ptrs)
    cdef const offset_t* p_lens = index_ptr(<cnp.ndarray>lens)
    cdef const fp_word_t* rows = rows_ptr(ix._rows)
    cdef const offset_t* starts = index_ptr(ix._starts)
    cdef int shift = ix._shift
    cdef uint8_t skip = <uint8_t>skip_kind
    cdef const fp_word_t* qp
    cdef const uint8_t* kp
    with nogil:
        for k in range(n_arrays):
            qp = <const fp_word_t*>p_ptrs[k]
            kp = <const uint8_t*>p_kinds[k]
            for r in range(p_lens[k]):
                if kp[r] != skip:
                    p = find_indexed(rows, starts, shift, qp[2 * r], qp[2 * r + 1])
                    if p >= 0 and p_left[p] > 0:
                        p_left[p] -= 1
                        p_drawn[at] = True
                        p_counts[k] += 1
                at += 1
    return drawn, counts


def index_counts(queries, kinds, skip_kind):
    """The distinct rows of ``queries`` whose kind is not ``skip_kind``, as a
    :class:`SortedFingerprints`, and how often each occurs; the specification is
    ``provgate._factdiff_py.index_counts``. The rows are gathered from the arrays in place
    into one buffer, sorted and counted there, and the set adopts its distinct rows: no joined
    copy of the columns, no mask, no second copy of the rows to vet them as sorted."""
    # the cheap yes for what the gate passes (its tables' columns); anything else is checked
    # by the reference's own checks, in its order (every query before any kind), which raise
    # or find a view, read from a contiguous copy
    if not isinstance(queries, (list, tuple)) or not isinstance(kinds, (list, tuple)):
        check_queries(queries)  # raises
        check_kinds(kinds, queries, skip_kind)
    # one snapshot of each list, and every check below made of the snapshot, which alone is
    # read: a list whose iteration gives other arrays each time must not pass the checks with
    # arrays the read never sees (red team 34, 02: a 1-D array read as rows, past its end)
    cdef list rows_of = list(queries), kinds_of = list(kinds)  # (private: every array stays alive)
    cdef Py_ssize_t k, n_arrays = len(rows_of)
    cdef bint vetted = False
    if len(kinds_of) != n_arrays or type(skip_kind) is not int or not 0 <= skip_kind <= 255:
        check_queries(rows_of)
        check_kinds(kinds_of, rows_of, skip_kind)
        vetted = True
    for k in range(n_arrays):
        if not _is_fingerprint_array(rows_of[k]):
            if not vetted:
                check_queries(rows_of)
                check_kinds(kinds_of, rows_of, skip_kind)
                vetted = True
            rows_of[k] = np.ascontiguousarray(rows_of[k])
            if not _is_fingerprint_array(rows_of[k]):  # (the checks passed: not expected)
                raise InvalidArgumentError(f"queries[{k}] cannot be read as fingerprint rows", argument="queries")
    for k in range(n_arrays):
        if not _is_column(kinds_of[k], cnp.NPY_UINT8, (<cnp.ndarray>rows_of[k]).shape[0]):
            if not vetted:
                check_queries(rows_of)
                check_kinds(kinds_of, rows_of, skip_kind)
                vetted = True
            kinds_of[k] = np.ascontiguousarray(kinds_of[k])
            if not _is_column(kinds_of[k], cnp.NPY_UINT8, (<cnp.ndarray>rows_of[k]).shape[0]):
                raise InvalidArgumentError(f"kinds[{k}] cannot be read as one uint8 kind per row", argument="kinds")
    cdef uint8_t skip = <uint8_t>skip_kind
    cdef offset_t total = 0, n, r, at = 0, i, d = 0
    cdef const uint8_t* kp
    cdef const fp_word_t* qp
    for k in range(n_arrays):
        n = (<cnp.ndarray>kinds_of[k]).shape[0]
        kp = <const uint8_t*>cnp.PyArray_DATA(<cnp.ndarray>kinds_of[k])
        with nogil:
            for r in range(n):
                total += kp[r] != skip
    # (arrays made through the C API: a Python call each cost more than this call's work on a
    # summarize's thousand rows; the rows gathered, their stable sort order and its scratch)
    cdef cnp.npy_intp dims[2]
    dims[0] = total
    dims[1] = 2
    cdef cnp.ndarray gathered = cnp.PyArray_EMPTY(2, dims, cnp.NPY_UINT64, 0)
    cdef fp_word_t* pg = <fp_word_t*>cnp.PyArray_DATA(gathered)
    for k in range(n_arrays):
        n = (<cnp.ndarray>kinds_of[k]).shape[0]
        kp = <const uint8_t*>cnp.PyArray_DATA(<cnp.ndarray>kinds_of[k])
        qp = rows_ptr(<cnp.ndarray>rows_of[k])
        with nogil:
            for r in range(n):
                # (the kinds may be a caller's arrays, changed by another thread between the two
                # passes: never more rows than the buffer was made for)
                if kp[r] != skip and at < total:
                    pg[2 * at] = qp[2 * r]
                    pg[2 * at + 1] = qp[2 * r + 1]
                    at += 1
    if at != total:
        raise InvalidArgumentError("kinds changed while index_counts read them", argument="kinds")
    cdef int bits = _bucket_bits(total)
    cdef cnp.npy_intp n_order = max(total, 1), n_starts = ((<offset_t>1) << bits) + 1
    cdef cnp.ndarray order = cnp.PyArray_EMPTY(1, &n_order, cnp.NPY_INT64, 0)
    cdef cnp.ndarray tmp = cnp.PyArray_EMPTY(1, &n_order, cnp.NPY_INT64, 0)
    cdef cnp.ndarray starts = cnp.PyArray_EMPTY(1, &n_starts, cnp.NPY_INT64, 0)
    cdef offset_t* po = index_ptr(order)
    cdef offset_t* pt = index_ptr(tmp)
    cdef offset_t* ps = index_ptr(starts)
    with nogil:
        # distinct rows, counted first: the set and the counts get arrays of exactly their size
        d = sort_and_count_distinct(pg, total, po, pt, ps)
    dims[0] = d
    cdef cnp.ndarray values = cnp.PyArray_EMPTY(2, dims, cnp.NPY_UINT64, 0)
    cdef cnp.ndarray counts = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT64, 0)
    cdef fp_word_t* pv = <fp_word_t*>cnp.PyArray_DATA(values)
    cdef offset_t* pc = index_ptr(counts)
    with nogil:
        write_distinct(pg, total, po, pv, pc)
    cdef SortedFingerprints ix = SortedFingerprints.__new__(SortedFingerprints)
    ix._adopt(values)  # (sorted and distinct as made here, and nobody else's)
    return ix, counts


def undrawn_values(tables, drawn, kind):
    """The rows of ``kind`` that ``drawn`` says were not drawn: (their tables, their values as
    written); the specification is ``provgate._factdiff_py.undrawn_values``. One pass over
    the kind columns in place, without the GIL, then a bytes object per row found (a few of
    a summarize's hundreds), where the gate joined four columns of every table and sliced
    each row's bytes by numpy scalars."""
    return _undrawn(tables, drawn, (kind,), False)[0]


def undrawn_values_of_kinds(tables, drawn, kinds):
    """``undrawn_values`` of each of ``kinds`` from one read of the tables; the specification
    is ``provgate._factdiff_py.undrawn_values_of_kinds``."""
    if type(kinds) is not tuple:
        raise TypeError(f"kinds must be a tuple of ints, not {type(kinds).__name__}")
    return _undrawn(tables, drawn, kinds, True)


cdef list _undrawn(tables, drawn, tuple wanted, bint many):
    # each attribute read once, and the objects read are the objects checked (red team 34,
    # 01: a property giving an int8 column to the read and an int64 one to a second look)
    if not isinstance(tables, (list, tuple)):
        value_columns(tables)  # raises
    cdef list items = list(tables), read = []
    cdef Py_ssize_t t, n_tables = len(items), w, n_wanted = len(wanted)
    cdef list datas = [], kinds = [], starts = [], ends = []  # (private: every object stays alive)
    cdef offset_t n, total = 0
    cdef bint clean = True
    for t in range(n_tables):
        table = items[t]
        data = getattr(table, "data", None)
        codes = getattr(table, "kind", None)
        first = getattr(table, "value_start", None)
        last = getattr(table, "value_end", None)
        read.append((data, codes, first, last))
        if not clean:
            continue  # (every table is read before the checks, as the reference reads them)
        n = (<cnp.ndarray>codes).shape[0] if type(codes) is cnp.ndarray else -1
        if not (type(data) is bytes and n >= 0 and _is_column(codes, cnp.NPY_UINT8, n)
                and _is_column(first, cnp.NPY_INT64, n) and _is_column(last, cnp.NPY_INT64, n)):
            clean = False
            continue
        datas.append(data)
        kinds.append(codes)
        starts.append(first)
        ends.append(last)
        total += n
    if not clean:
        # the reference's checks, of the very objects read: they raise, or a column is a view,
        # read from a contiguous copy (checked again: only a column of the right type is read)
        datas, kinds, starts, ends = check_value_columns(read)
        kinds = [np.ascontiguousarray(c) for c in kinds]
        starts = [np.ascontiguousarray(c) for c in starts]
        ends = [np.ascontiguousarray(c) for c in ends]
        total = 0
        if len(datas) != n_tables:  # (the checks return a column list per table read: not expected)
            raise InvalidArgumentError("tables changed while undrawn_values read them", argument="tables")
        for t in range(n_tables):
            n = (<cnp.ndarray>kinds[t]).shape[0]
            if not (type(datas[t]) is bytes and _is_column(kinds[t], cnp.NPY_UINT8, n)
                    and _is_column(starts[t], cnp.NPY_INT64, n) and _is_column(ends[t], cnp.NPY_INT64, n)):
                raise InvalidArgumentError(f"tables[{t}] cannot be read as a fact table's columns", argument="tables")
            total += n
    # each kind's place in ``wanted`` (-1: not asked for); a kind's name is made only for an
    # error (an f-string a call cost the next edit's check more than this stop's cut saved it)
    cdef int slot_of[256]
    for w in range(256):
        slot_of[w] = -1
    for w in range(n_wanted):  # (every kind checked before their distinctness, as the reference does)
        kind = wanted[w]
        if type(kind) is not int or not 0 <= kind <= 255:
            _check_kind_int(kind, f"kinds[{w}]" if many else "kind")  # raises
    for w in range(n_wanted):
        if slot_of[<uint8_t>wanted[w]] >= 0:
            check_distinct_kinds(wanted)  # raises
        slot_of[<uint8_t>wanted[w]] = <int>w
    if not _is_column(drawn, cnp.NPY_BOOL, total):
        check_drawn(drawn, total)  # raises, or it is a view
        drawn = np.ascontiguousarray(drawn)
    cdef const unsigned char* flags = <const unsigned char*>cnp.PyArray_DATA(<cnp.ndarray>drawn)
    # rows found: (table, start, end, slot) each; at most every row
    cdef cnp.ndarray found = np.empty((max(total, 1), 4), dtype=np.int64)
    cdef offset_t* pf = index_ptr(found)
    cdef offset_t m = 0, at = 0, r, a = 0, b = 0, size
    cdef int s
    cdef const uint8_t* kp
    cdef const offset_t* sp
    cdef const offset_t* ep
    cdef offset_t bad_row = -1
    # every table's columns and size, then one pass over them all without the GIL (released
    # per table, it cost ~250 instructions a table: I5's 38 tables a summarize)
    cdef cnp.ndarray columns = np.empty((max(n_tables, 1), 5), dtype=np.int64)
    cdef offset_t* pc = index_ptr(columns)
    for t in range(n_tables):
        pc[5 * t] = (<cnp.ndarray>kinds[t]).shape[0]
        pc[5 * t + 1] = <offset_t><size_t>cnp.PyArray_DATA(<cnp.ndarray>kinds[t])
        pc[5 * t + 2] = <offset_t><size_t>index_ptr(<cnp.ndarray>starts[t])
        pc[5 * t + 3] = <offset_t><size_t>index_ptr(<cnp.ndarray>ends[t])
        pc[5 * t + 4] = PyBytes_GET_SIZE(datas[t])
    with nogil:
        for t in range(n_tables):
            n = pc[5 * t]
            kp = <const uint8_t*><size_t>pc[5 * t + 1]
            sp = <const offset_t*><size_t>pc[5 * t + 2]
            ep = <const offset_t*><size_t>pc[5 * t + 3]
            size = pc[5 * t + 4]
            for r in range(n):
                s = slot_of[kp[r]]
                if s >= 0 and not flags[at + r]:
                    a = sp[r]
                    b = ep[r]
                    if a < 0 or a > b or b > size:
                        bad_row = r
                        break
                    pf[4 * m] = t
                    pf[4 * m + 1] = a
                    pf[4 * m + 2] = b
                    pf[4 * m + 3] = s
                    m += 1
            if bad_row >= 0:
                break
            at += n
    if bad_row >= 0:
        raise span_error(t, bad_row, a, b, size)
    # per kind: its rows' tables and values, in table order
    cdef list counts = [0] * n_wanted, out = [], values
    for r in range(m):
        counts[pf[4 * r + 3]] += 1
    cdef cnp.ndarray owners
    cdef offset_t* po
    cdef offset_t k
    cdef const char* base
    for w in range(n_wanted):
        owners = np.empty(counts[w], dtype=np.int64)
        po = index_ptr(owners)
        values = []
        k = 0
        for r in range(m):
            if pf[4 * r + 3] == w:
                po[k] = pf[4 * r]
                k += 1
                base = PyBytes_AS_STRING(datas[pf[4 * r]])
                values.append(PyBytes_FromStringAndSize(base + pf[4 * r + 1], pf[4 * r + 2] - pf[4 * r + 1]))
        out.append((owners, values))
    return out


cdef tuple _set_pointers(object sets):
    """``(owners, ptrs, lens)``: ``ptrs`` (k, 2) holds each set's rows and run index (0: none),
    ``lens`` (k, 2) its row count and run shift; the order of any set that is not a
    SortedFingerprints is vetted; ``owners`` keeps every array alive while they are read."""
    if not isinstance(sets, (list, tuple)):
        raise TypeError(f"sets must be a list or tuple of fingerprint arrays, not {type(sets).__name__}")
    cdef list owners = list(sets)
    cdef Py_ssize_t k = len(owners), s  # (the copy's: a list subclass's __len__ may say more, red team 39, 09)
    cdef cnp.ndarray ptrs = np.empty((k, 2), dtype=np.uintp)
    cdef cnp.ndarray lens = np.empty((k, 2), dtype=np.int64)
    cdef size_t* p_ptrs = <size_t*>cnp.PyArray_DATA(ptrs)
    cdef offset_t* p_lens = index_ptr(lens)
    cdef cnp.ndarray arr
    cdef SortedFingerprints known
    cdef bint ok
    for s in range(k):
        if type(owners[s]) is SortedFingerprints:
            known = <SortedFingerprints>owners[s]
            arr = known._rows  # vetted when it was made
            p_ptrs[2 * s] = <size_t>cnp.PyArray_DATA(arr)
            p_ptrs[2 * s + 1] = <size_t>cnp.PyArray_DATA(known._starts)
            p_lens[2 * s] = arr.shape[0]
            p_lens[2 * s + 1] = known._shift
            continue
        if not _is_fingerprint_array(owners[s]):
            owners[s] = _check_set(owners[s], f"sets[{s}]")  # raises, naming what is wrong
        arr = owners[s]
        p_ptrs[2 * s] = <size_t>cnp.PyArray_DATA(arr)
        p_ptrs[2 * s + 1] = 0
        p_lens[2 * s] = arr.shape[0]
        p_lens[2 * s + 1] = 0
        with nogil:
            ok = is_sorted(<const fp_word_t*>p_ptrs[2 * s], p_lens[2 * s])
        if not ok:
            raise _unsorted_error(arr, f"sets[{s}]")
    return owners, ptrs, lens


cdef inline bint in_set(const size_t* p_ptrs, const offset_t* p_lens, offset_t s, fp_word_t h,
                        fp_word_t l) noexcept nogil:
    if p_ptrs[2 * s + 1]:
        return find_indexed(<const fp_word_t*>p_ptrs[2 * s], <const offset_t*>p_ptrs[2 * s + 1],
                            <int>p_lens[2 * s + 1], h, l) >= 0
    return contains_row(<const fp_word_t*>p_ptrs[2 * s], p_lens[2 * s], h, l)


cdef inline offset_t group_member_holding(const size_t* p_ptrs, const offset_t* p_lens, const offset_t* p_members,
                                          offset_t first, offset_t last, offset_t hint, fp_word_t h,
                                          fp_word_t l) noexcept nogil:
    """The position (first .. last - 1) of a member of the group whose set holds (h, l), or -1.
    The member at ``hint`` (if in range) is asked first: consecutive rows of a block usually
    come from one source, and each set asked is memory the check may not have touched yet."""
    if first <= hint < last and in_set(p_ptrs, p_lens, p_members[hint], h, l):
        return hint
    return group_member_holding_but(p_ptrs, p_lens, p_members, first, last, hint, h, l)


cdef inline offset_t group_member_holding_but(const size_t* p_ptrs, const offset_t* p_lens, const offset_t* p_members,
                                              offset_t first, offset_t last, offset_t asked, fp_word_t h,
                                              fp_word_t l) noexcept nogil:
    """The position (first .. last - 1) of a member of the group whose set holds (h, l), or -1,
    the member at ``asked`` left out (asked already; -1: none)."""
    cdef offset_t m
    for m in range(first, last):
        if m != asked and in_set(p_ptrs, p_lens, p_members[m], h, l):
            return m
    return -1


cdef inline bint absent_in_group(const size_t* p_ptrs, const offset_t* p_lens, const offset_t* p_members,
                                 offset_t first, offset_t last, fp_word_t h, fp_word_t l) noexcept nogil:
    return group_member_holding(p_ptrs, p_lens, p_members, first, last, -1, h, l) < 0


def absent_from_all(queries, sets, *, groups=None, query_group=None):
    """For each row of ``queries``: does it occur in none of the sorted arrays ``sets`` (of its
    group)? One binary search per query per set, without the GIL; the sets' order is vetted
    first."""
    check_fingerprints(queries, "queries")
    owners, ptrs_a, lens_a = _set_pointers(sets)
    cdef Py_ssize_t k = len(owners)
    cdef cnp.ndarray ptrs = ptrs_a, lens = lens_a
    cdef const size_t* p_ptrs = <const size_t*>cnp.PyArray_DATA(ptrs)
    cdef const offset_t* p_lens = index_ptr(lens)
    cdef offset_t n = queries.shape[0], i, g
    offsets_a, members_a, group_a = flat_grouping(groups, query_group, n, k, "queries", "sets", "query_group")
    cdef cnp.ndarray offsets_arr = offsets_a, members_arr = members_a, group_arr = group_a
    cdef const offset_t* p_offsets = index_ptr(offsets_arr)
    cdef const offset_t* p_members = index_ptr(members_arr)
    cdef const offset_t* p_group = index_ptr(group_arr)
    cdef cnp.ndarray out = np.empty(n, dtype=np.bool_)
    cdef unsigned char* p_out = <unsigned char*>cnp.PyArray_DATA(out)
    cdef const fp_word_t* q = rows_ptr(queries)
    with nogil:
        for i in range(n):
            g = p_group[i]
            p_out[i] = absent_in_group(p_ptrs, p_lens, p_members, p_offsets[g], p_offsets[g + 1],
                                       q[2 * i], q[2 * i + 1])
    return out


cdef inline bint _is_column(object column, int type_num, offset_t n):
    """A 1-D C-contiguous array of ``type_num`` with ``n`` rows: the cheap yes of
    check_ground_tables (which is called for its message, or to convert, when this says no)."""
    if type(column) is not cnp.ndarray:
        return False
    cdef cnp.ndarray a = <cnp.ndarray>column
    return (a.ndim == 1 and cnp.PyArray_TYPE(a) == type_num and cnp.PyArray_IS_C_CONTIGUOUS(a)
            and cnp.PyArray_ISNOTSWAPPED(a) and a.shape[0] == n)


cdef tuple _ground_columns(object tables, object skip_kind, object pair_kind, object quote_kind):
    """The columns of ``tables`` as check_ground_tables returns them, gathered without a
    numpy call when they are already what the loop reads (every table the gate passes)."""
    cdef Py_ssize_t t
    cdef offset_t n
    cdef list datas = [], kinds = [], pairs = [], values = [], starts = [], ends = [], v_starts = [], v_ends = []
    if not ((type(tables) is list or type(tables) is tuple)
            and type(skip_kind) is int and type(pair_kind) is int and type(quote_kind) is int
            and 0 <= skip_kind <= 255 and 0 <= pair_kind <= 255 and 0 <= quote_kind <= 255):
        return check_ground_tables(tables, skip_kind, pair_kind, quote_kind)  # raises
    for table in tables:
        data = getattr(table, "data", None)
        kind = getattr(table, "kind", None)
        if type(data) is not bytes or type(kind) is not cnp.ndarray or (<cnp.ndarray>kind).ndim != 1:
            return check_ground_tables(tables, skip_kind, pair_kind, quote_kind)
        n = (<cnp.ndarray>kind).shape[0]
        pair = getattr(table, "fp_fact", None)
        value = getattr(table, "fp_value", None)
        start = getattr(table, "start", None)
        end = getattr(table, "end", None)
        v_start = getattr(table, "value_start", None)
        v_end = getattr(table, "value_end", None)
        if not (_is_column(kind, cnp.NPY_UINT8, n)
                and _is_fingerprint_array(pair) and (<cnp.ndarray>pair).shape[0] == n
                and _is_fingerprint_array(value) and (<cnp.ndarray>value).shape[0] == n
                and _is_column(start, cnp.NPY_INT64, n) and _is_column(end, cnp.NPY_INT64, n)
                and _is_column(v_start, cnp.NPY_INT64, n) and _is_column(v_end, cnp.NPY_INT64, n)):
            return check_ground_tables(tables, skip_kind, pair_kind, quote_kind)  # raises, or converts
        datas.append(data)
        kinds.append(kind)
        pairs.append(pair)
        values.append(value)
        starts.append(start)
        ends.append(end)
        v_starts.append(v_start)
        v_ends.append(v_end)
    return datas, kinds, pairs, values, starts, ends, v_starts, v_ends


cdef enum:
    # a table's columns, as addresses, in ungrounded_rows' pointer table
    COL_KIND, COL_PAIR, COL_VALUE, COL_START, COL_END, COL_VALUE_START, COL_VALUE_END, COL_DATA, N_COLS


cdef inline offset_t member_position(const offset_t* members, offset_t first, offset_t last, offset_t index) noexcept nogil:
    """The position (first .. last - 1) of ``index`` among a group's members, or -1."""
    cdef offset_t m
    for m in range(first, last):
        if members[m] == index:
            return m
    return -1


cdef cnp.ndarray _row_hints(tuple columns, dict hints, unsigned char skip, offset_t total):
    """Per row of every table (joined in order), the text index ``hints`` gives the name of the
    next citation marker after it in its table, or -1. Names are decoded with the GIL held; a
    marker range outside its data or bytes that are not UTF-8 give no hint (the main pass
    reports bad ranges; a hint never changes an answer)."""
    cdef cnp.ndarray out = np.full(total, -1, dtype=np.int64)
    cdef offset_t* p = index_ptr(out)
    cdef offset_t base = 0, r, n, a, b, carry, size
    cdef Py_ssize_t t
    cdef const unsigned char* kp
    cdef const offset_t* vs
    cdef const offset_t* ve
    cdef const char* d
    for t in range(len(columns[1])):
        kp = <const unsigned char*>cnp.PyArray_DATA(<cnp.ndarray>columns[1][t])
        vs = <const offset_t*>cnp.PyArray_DATA(<cnp.ndarray>columns[6][t])
        ve = <const offset_t*>cnp.PyArray_DATA(<cnp.ndarray>columns[7][t])
        data = columns[0][t]
        d = PyBytes_AS_STRING(data)
        size = PyBytes_GET_SIZE(data)
        n = (<cnp.ndarray>columns[1][t]).shape[0]
        carry = -1
        for r in range(n - 1, -1, -1):
            if kp[r] != skip:
                p[base + r] = carry
                continue
            carry = -1
            a = vs[r]
            b = ve[r]
            if 0 <= a <= b <= size:
                try:
                    name = PyUnicode_DecodeUTF8(d + a, b - a, NULL)
                except UnicodeDecodeError:
                    continue
                found = hints.get(name)
                if found is not None and <object>found >= 0:
                    carry = found
        base += n
    return out


# ---- a wide group's texts searched once for all its rows (ungrounded_rows) ---------------------

cdef enum:
    # A row of a table searched literally in this many texts or more is searched in its first
    # text (the one its marker cites, else where the table's last row was found) in the main
    # pass; the rest of the group is searched afterwards, for every such row of the group at
    # once (_ground_pending). Row by row, a summary of 16,000 sources stating facts none of
    # them holds cost its rows times its sources (red team 41, "v1 is 1": 3.7 s in I1).
    WIDE_GROUP = 16
    # a row's state in ungrounded_rows' output, where the main pass leaves a wide group's rows
    SETTLED = 0  # found in no set and no text (or never deferred)
    PENDING = 1  # not in its first text; the rest of its group is still to be searched
    GROUNDED = 2  # some text of its group holds it
    # after each marked text of a group: no UTF-8 byte and no marker, so no marked needle holds
    # it and no hit runs from one text into the next
    SEPARATOR = 0xFA
    # A needle longer than this is searched row by row, not in the pass: pyahocorasick looks
    # for an output up the failure chain at every byte, so a long periodic needle ("ab ab ...
    # ab zz") against texts of its period cost the group's bytes times its length (red team
    # 45, C1: 400 texts of 5 KB, a 2,000-byte quote: 4.6 s).
    AUTOMATON_MAX_NEEDLE = 64
    # A pass takes its group's texts this many bytes at a time: it copies them a few times
    # (flags, the marked str, pyahocorasick's own copy of it), about 7 times their bytes at once
    # (red team 45, M1: +724 MB for a group of 105 MB).
    PASS_CHUNK = 1 << 22
    # (a row of _automaton_pass's whose needle is longer than AUTOMATON_MAX_NEEDLE)
    NOT_IN_PASS = -2

# What settling a group's deferred rows costs, in ns (only the ratios matter). Row by row (as
# the main pass searches), a row costs per text about COST_MEMBER plus COST_SCANNED a byte
# memmem reads, or COST_FILTERED for a text with a 4-gram bitmap (_boundaries.occurs_filtered:
# a text of GRAM_MIN_HAYSTACK bytes or more, while there are bitmaps to make), which skips most
# needles it does not hold. One automaton pass costs COST_PASS, plus COST_TEXT a text and
# COST_AUTOMATON a byte of the group (marking it, and the automaton's run), plus COST_PATTERN
# a row (its needle and its key). Measured with ungrounded_rows alone, on rows no text holds:
# 10,000 texts of 10 bytes, 1 row: 0.62 ms row by row, 0.42 ms in a pass; 20 texts of 60 KB,
# 20,000 rows: 3.4-4.1 ms row by row (bitmaps), 15.5 ms in a pass.
cdef double COST_MEMBER = 30.0
cdef double COST_SCANNED = 0.3
cdef double COST_FILTERED = 15.0
cdef double COST_PASS = 50000.0
cdef double COST_TEXT = 10.0
cdef double COST_AUTOMATON = 4.0
cdef double COST_PATTERN = 500.0

cdef Marks MARKS
fill_marks(&MARKS)

# automaton passes made, and of those given up for too many hits (_automaton_passes())
cdef offset_t PASSES_MADE = 0
cdef offset_t PASSES_GIVEN_UP = 0


def _automaton_passes():
    """(passes made, passes given up) by ungrounded_rows since the module was loaded, so that
    tests can tell that their wide groups took the one-pass search, and its fallback."""
    return PASSES_MADE, PASSES_GIVEN_UP


cdef inline unsigned char row_range(const size_t* p_tp, offset_t t, offset_t r, unsigned char quote, offset_t* a,
                                    offset_t* b) noexcept nogil:
    """Row ``r`` of table ``t``: its kind, and in ``a``, ``b`` the range searched literally (a
    quote by what it quotes, anything else by its span)."""
    cdef const size_t* cols = p_tp + N_COLS * t
    cdef unsigned char kind = (<const unsigned char*>cols[COL_KIND])[r]
    if kind == quote:
        a[0] = (<const offset_t*>cols[COL_VALUE_START])[r]
        b[0] = (<const offset_t*>cols[COL_VALUE_END])[r]
    else:
        a[0] = (<const offset_t*>cols[COL_START])[r]
        b[0] = (<const offset_t*>cols[COL_END])[r]
    return kind


cdef inline int row_mode(const unsigned char* modes, unsigned char kind, unsigned char quote, const byte_t* text,
                         offset_t a, offset_t b) noexcept nogil:
    """The mode a row (``text[a:b]``) is searched in (_factdiff_py.row_mode): its kind's, but a
    code span's (a quote whose text a backtick opens) RELAXED, not QUOTE: a code span names a
    thing and quotes no claim ("do not run `rm -rf /`" denies nothing of the command's name)."""
    if kind == quote and a > 0 and text[a - 1] == 0x60:
        return MODE_RELAXED
    return modes[kind]


cdef inline offset_t judge_hit(const byte_t* h, offset_t hn, offset_t s, const byte_t* nd, offset_t nn,
                               byte_t* want, byte_t* got) noexcept nogil:
    """A hit of needle ``nd`` at ``h[s:s + nn]``: adds to ``got`` the modes wanted of it (bit
    ``mode`` of ``want``) in which this occurrence counts, as ``occurs`` judges one
    (``stands_at``), and returns how many it added. The bytes are compared again, so a hit
    counts exactly where ``occurs`` would find one, whatever the automaton said."""
    cdef int mode
    cdef offset_t added = 0
    if s < 0 or s + nn > hn or memcmp(h + s, nd, <size_t>nn) != 0:
        return 0
    for mode in range(N_MODES):
        if (want[0] >> mode) & 1 and not (got[0] >> mode) & 1 and stands_at(BYTE_CLASS, h, hn, s, nd, nn, mode):
            got[0] |= 1 << mode
            added += 1
    return added


cdef int _marked_chunk(object automaton, list needles, byte_t* want, byte_t* got, offset_t* remaining,
                       offset_t* hits, offset_t budget, const byte_t* edges, const offset_t* members, offset_t n,
                       const size_t* hp, const offset_t* hl, offset_t chunk_bytes) except -1:
    """The marked pass (_marked_pass) over the texts ``members[:n]`` of a group, ``chunk_bytes``
    bytes: each text marked on its own and followed by SEPARATOR, end to end. A hit is mapped
    to its text by the offsets where each marked text starts (kept while marking), never by a
    byte value: a text may hold SEPARATOR itself (red team 45, F1: counting every 0xFA as a text
    end ran past the group's texts). Returns 1, or 0 if the hits outran ``budget``."""
    cdef Py_ssize_t n_needles = len(needles)
    cdef offset_t m, j, p, nn, markers, total = 0, at = 0, k, last, member = 0, scanned = -1, scan = 0, e = 0
    cdef const byte_t* nd
    # flags of every text end to end (n + 1 for a text of n bytes)
    cdef cnp.ndarray flags_arr = np.empty(chunk_bytes + n + 1, dtype=np.uint8)
    cdef byte_t* flags = <byte_t*>cnp.PyArray_DATA(flags_arr)
    cdef cnp.ndarray starts_arr = np.empty(n + 1, dtype=np.int64)  # where each marked text starts
    cdef offset_t* starts = index_ptr(starts_arr)
    with nogil:
        for m in range(n):
            j = members[m]
            markers = classify(BYTE_CLASS, &MARKS, <const byte_t*>hp[j], hl[j], edges, flags + at)
            starts[m] = total
            total += hl[j] + markers + 1
            at += hl[j] + 1
        starts[n] = total
    # a latin-1 str, canonical: it holds SEPARATOR (> 127)
    haystack = PyUnicode_New(total, 255)
    cdef byte_t* hay = <byte_t*>PyUnicode_DATA(haystack)
    with nogil:
        at = 0
        for m in range(n):
            j = members[m]
            write_marked(&MARKS, <const byte_t*>hp[j], hl[j], flags + at, hay + starts[m])
            hay[starts[m + 1] - 1] = SEPARATOR
            at += hl[j] + 1
    # (pyahocorasick holds the GIL while it runs; its iterator is consumed at C level)
    for item in automaton.iter(haystack):
        last, p = item
        hits[0] += 1
        if hits[0] > budget:
            return 0
        if p < 0 or p >= n_needles or last < 0 or last >= total:
            continue  # (no such hit: every key is a needle's index, every end in the haystack)
        # hits arrive by their end: the text holding ``last`` is found walking forward
        while member < n and starts[member + 1] <= last:
            member += 1
        if member >= n:
            continue
        if member != scanned:
            scanned = member
            scan = starts[member]
            e = 0
        # ``last`` is the needle's END marker, which stands right before byte ``e`` of its text
        # (a text holding a marker byte takes the plain pass, so every other byte is the text's)
        while scan < last:
            if hay[scan] != MARKS.start and hay[scan] != MARKS.end:
                e += 1
            scan += 1
        j = members[member]
        nd = <const byte_t*>PyBytes_AS_STRING(needles[p])
        nn = PyBytes_GET_SIZE(needles[p])
        remaining[0] -= judge_hit(<const byte_t*>hp[j], hl[j], e - nn, nd, nn, want + p, got + p)
        if remaining[0] == 0:
            break
    return 1


cdef inline offset_t chunk_end(const offset_t* members, offset_t lo, offset_t n_members, const offset_t* hl,
                               offset_t* chunk_bytes) noexcept nogil:
    """The texts ``members[lo:end]`` searched together: PASS_CHUNK bytes at most (at least one
    text), so that a pass's copies of the texts stay a few times PASS_CHUNK."""
    cdef offset_t hi = lo, size = 0
    while hi < n_members and (hi == lo or size + hl[members[hi]] <= PASS_CHUNK):
        size += hl[members[hi]]
        hi += 1
    chunk_bytes[0] = size
    return hi


cdef int _marked_pass(list needles, list patterns, byte_t* want, byte_t* got, offset_t* remaining, offset_t* hits,
                      offset_t budget, const offset_t* members, offset_t n_members, const size_t* hp,
                      const offset_t* hl) except -1:
    """Search the needles ``patterns`` (indices into ``needles``) in every text of the group
    with matching's marked automaton (provgate._matching_py: marked, marked_pattern): each text
    is marked on its own and followed by SEPARATOR, so a hit is an occurrence at token
    boundaries inside one text, and only those are reported (a plain automaton would report
    every hit inside a longer token too). The texts are taken PASS_CHUNK bytes at a time
    (_marked_chunk). Returns 1, or 0 if the hits outran ``budget``."""
    cdef Py_ssize_t k
    cdef offset_t p, nn, markers, longest = 0, lo = 0, hi, chunk_bytes = 0
    cdef const byte_t* nd
    cdef cnp.ndarray edges_arr = np.zeros(256, dtype=np.uint8)
    cdef byte_t* edges = <byte_t*>cnp.PyArray_DATA(edges_arr)
    for k in range(len(patterns)):
        p = patterns[k]
        nd = <const byte_t*>PyBytes_AS_STRING(needles[p])
        nn = PyBytes_GET_SIZE(needles[p])
        edges[nd[0]] |= MARKS.first
        edges[nd[nn - 1]] |= MARKS.last
        longest = max(longest, nn)
    cdef cnp.ndarray flags_arr = np.empty(longest + 1, dtype=np.uint8)  # a needle's flags
    cdef byte_t* flags = <byte_t*>cnp.PyArray_DATA(flags_arr)
    automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
    for k in range(len(patterns)):
        p = patterns[k]
        nd = <const byte_t*>PyBytes_AS_STRING(needles[p])
        nn = PyBytes_GET_SIZE(needles[p])
        markers = classify(BYTE_CLASS, &MARKS, nd, nn, edges, flags)  # (no marker byte in it: checked)
        # a latin-1 str, canonical: a marked needle always holds START (> 127)
        key = PyUnicode_New(nn + markers, 255)
        write_marked(&MARKS, nd, nn, flags, <byte_t*>PyUnicode_DATA(key))
        automaton.add_word(key, p)
    automaton.make_automaton()
    while lo < n_members and remaining[0] > 0:
        hi = chunk_end(members, lo, n_members, hl, &chunk_bytes)
        if not _marked_chunk(automaton, needles, want, got, remaining, hits, budget, edges, members + lo, hi - lo,
                             hp, hl, chunk_bytes):
            return 0
        lo = hi
    return 1


cdef int _plain_pass(list needles, list patterns, byte_t* want, byte_t* got, offset_t* remaining, offset_t* hits,
                     offset_t budget, const offset_t* members, offset_t n_members, tuple haystacks,
                     const size_t* hp, const offset_t* hl) except -1:
    """Search the needles ``patterns`` in every text of the group with a plain automaton over
    the texts end to end, PASS_CHUNK bytes at a time: for the needles the marked one cannot
    take (a quote that brings its own boundary on a side, which may touch a word there; a needle
    or text holding a marker byte). A hit that runs from one text into the next is no
    occurrence. Returns 1, or 0 if the hits outran ``budget``."""
    cdef Py_ssize_t k, n_needles = len(needles)
    cdef offset_t p, nn, m, j, s, last, member, lo = 0, hi, n, chunk_bytes = 0
    cdef const byte_t* nd
    cdef cnp.ndarray starts_arr
    cdef offset_t* starts
    automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
    for k in range(len(patterns)):
        p = patterns[k]
        automaton.add_word(PyUnicode_DecodeLatin1(PyBytes_AS_STRING(needles[p]), PyBytes_GET_SIZE(needles[p]), NULL), p)
    automaton.make_automaton()
    while lo < n_members and remaining[0] > 0:
        hi = chunk_end(members, lo, n_members, hl, &chunk_bytes)
        n = hi - lo
        starts_arr = np.empty(n + 1, dtype=np.int64)  # each text's first byte, end to end
        starts = index_ptr(starts_arr)
        starts[0] = 0
        for m in range(n):
            starts[m + 1] = starts[m] + hl[members[lo + m]]
        joined = b"".join([haystacks[members[lo + m]] for m in range(n)])
        if PyBytes_GET_SIZE(joined) != starts[n]:
            raise RuntimeError("ungrounded_rows: a text changed size during the search")
        member = 0
        for item in automaton.iter(PyUnicode_DecodeLatin1(PyBytes_AS_STRING(joined), PyBytes_GET_SIZE(joined), NULL)):
            last, p = item
            hits[0] += 1
            if hits[0] > budget:
                return 0
            if p < 0 or p >= n_needles or last < 0 or last >= starts[n]:
                continue  # (no such hit: every key is a needle's index, every end in the texts)
            while member < n and starts[member + 1] <= last:
                member += 1
            if member >= n:
                continue
            nn = PyBytes_GET_SIZE(needles[p])
            s = last + 1 - nn
            if s < starts[member]:
                continue  # (it straddles two texts)
            j = members[lo + member]
            nd = <const byte_t*>PyBytes_AS_STRING(needles[p])
            remaining[0] -= judge_hit(<const byte_t*>hp[j], hl[j], s - starts[member], nd, nn, want + p, got + p)
            if remaining[0] == 0:
                break
        lo = hi
    return 1


cdef int _automaton_pass(const offset_t* slots, offset_t n, byte_t* state, const offset_t* slot_table,
                         const offset_t* slot_row, const size_t* p_tp, const unsigned char* modes, unsigned char quote,
                         const offset_t* members, offset_t n_members, tuple haystacks, const size_t* hp,
                         const offset_t* hl, offset_t group_bytes) except -1:
    """Settle the deferred rows ``slots`` of one group (state PENDING) by searching their
    distinct needles in each of its texts once, an automaton pass over the group's bytes
    instead of a search per row and text. A row is GROUNDED where some text holds it as
    ``occurs`` finds it (in its mode), SETTLED where none does; a row whose needle is longer
    than AUTOMATON_MAX_NEEDLE is left PENDING, for the caller to search row by row. Returns 1;
    or 0, the rows found
    so far GROUNDED and the others left PENDING, when the hits outran a budget of about one a
    byte (many needles that are suffixes of one another, each hit again at every place a longer
    one is): the caller then searches those row by row, as it would have."""
    global PASSES_MADE, PASSES_GIVEN_UP
    PASSES_MADE += 1
    cdef offset_t k, i, a = 0, b = 0, nn, m, j, p, remaining = 0, hits = 0
    cdef offset_t budget = group_bytes + 16 * n + 4096
    cdef unsigned char kind, mode
    cdef const byte_t* nd
    cdef bint marker_in_texts = False, plain, complete
    with nogil:
        for m in range(n_members):
            j = members[m]
            if hl[j] and (memchr(<const void*>hp[j], MARKS.start, <size_t>hl[j]) != NULL
                          or memchr(<const void*>hp[j], MARKS.end, <size_t>hl[j]) != NULL):
                marker_in_texts = True
                break
    # each distinct needle once, in the pass that can take it, with the modes its rows want
    cdef dict marked_index = {}, plain_index = {}
    cdef list needles = [], marked = [], plain_list = []
    cdef cnp.ndarray slot_pattern_arr = np.full(n, -1, dtype=np.int64)
    cdef offset_t* slot_pattern = index_ptr(slot_pattern_arr)
    cdef cnp.ndarray want_arr = np.zeros(n, dtype=np.uint8), got_arr = np.zeros(n, dtype=np.uint8)
    cdef byte_t* want = <byte_t*>cnp.PyArray_DATA(want_arr)
    cdef byte_t* got = <byte_t*>cnp.PyArray_DATA(got_arr)
    for k in range(n):
        i = slots[k]
        kind = row_range(p_tp, slot_table[i], slot_row[i], quote, &a, &b)
        nn = b - a
        if nn <= 0:
            continue  # (an empty needle occurs nowhere)
        if nn > AUTOMATON_MAX_NEEDLE:
            slot_pattern[k] = NOT_IN_PASS
            continue
        nd = <const byte_t*>(p_tp[N_COLS * slot_table[i] + COL_DATA]) + a
        mode = row_mode(modes, kind, quote, nd - a, a, b)
        plain = (marker_in_texts or memchr(nd, MARKS.start, <size_t>nn) != NULL
                 or memchr(nd, MARKS.end, <size_t>nn) != NULL
                 or ((mode == MODE_RELAXED or mode == MODE_QUOTE)
                     and (own_left(BYTE_CLASS, nd) or own_right(BYTE_CLASS, nd, nn))))
        needle = PyBytes_FromStringAndSize(<const char*>nd, nn)
        index = plain_index if plain else marked_index
        found = index.get(needle)
        if found is None:
            p = len(needles)
            index[needle] = p
            needles.append(needle)
            (plain_list if plain else marked).append(p)
        else:
            p = found
        slot_pattern[k] = p
        if not (want[p] >> mode) & 1:
            want[p] |= 1 << mode
            remaining += 1
    complete = ((not marked or remaining == 0
                 or _marked_pass(needles, marked, want, got, &remaining, &hits, budget, members, n_members, hp, hl))
                and (not plain_list or remaining == 0
                     or _plain_pass(needles, plain_list, want, got, &remaining, &hits, budget, members, n_members,
                                    haystacks, hp, hl)))
    if not complete:
        PASSES_GIVEN_UP += 1
    for k in range(n):
        i = slots[k]
        p = slot_pattern[k]
        if p == NOT_IN_PASS:
            continue  # (left PENDING)
        if p < 0:
            state[i] = SETTLED
            continue
        kind = row_range(p_tp, slot_table[i], slot_row[i], quote, &a, &b)
        if (got[p] >> row_mode(modes, kind, quote, <const byte_t*>p_tp[N_COLS * slot_table[i] + COL_DATA], a, b)) & 1:
            state[i] = GROUNDED
        elif complete:
            state[i] = SETTLED
    return complete


cdef int _ground_pending(offset_t n_slots, const offset_t* slot_table, const offset_t* slot_row, byte_t* state,
                         const size_t* p_tp, const unsigned char* modes, unsigned char quote,
                         const offset_t* h_offsets, const offset_t* h_members, tuple haystacks, const size_t* hp,
                         const offset_t* hl, GramCache* grams) except -1:
    """Settle every row ungrounded_rows' main pass left PENDING (``n_slots`` rows of its
    output, ``state`` one per row): GROUNDED if a text of its group holds it, else SETTLED.
    The tables searched in the same texts are taken together. A group is searched in one
    automaton pass where that costs less than searching each row in each text
    (``_automaton_pass``), else row by row, as the main pass searches; so are the rows the
    pass leaves (a needle longer than AUTOMATON_MAX_NEEDLE, or a pass given up)."""
    cdef dict by_texts = {}  # a group's texts (its members as bytes) -> [a table of it, its rows]
    cdef offset_t i, k, t, previous = -1, first, last, m, n, n_short, group_bytes, a = 0, b = 0, size, filtered
    cdef double per_row
    cdef unsigned char kind
    cdef list rows = None
    cdef cnp.ndarray slots_arr
    cdef const offset_t* slots
    cdef const byte_t* text
    for i in range(n_slots):
        if state[i] != PENDING:
            continue
        t = slot_table[i]
        if t != previous:
            previous = t
            key = PyBytes_FromStringAndSize(<const char*>(h_members + h_offsets[t]),
                                            (h_offsets[t + 1] - h_offsets[t]) * <offset_t>sizeof(offset_t))
            entry = by_texts.get(key)
            if entry is None:
                entry = by_texts[key] = (t, [])
            rows = entry[1]
        rows.append(i)
    for t, found_rows in by_texts.values():
        slots_arr = np.array(found_rows, dtype=np.int64)
        slots = index_ptr(slots_arr)
        n = slots_arr.shape[0]
        first = h_offsets[t]
        last = h_offsets[t + 1]
        group_bytes = 0
        per_row = 0.0
        filtered = 0
        for m in range(first, last):
            size = hl[h_members[m]]
            group_bytes += size
            if size >= GRAM_MIN_HAYSTACK and filtered < GRAM_MAX_BITMAPS:
                filtered += 1
                per_row += COST_FILTERED
            else:
                per_row += COST_MEMBER + size * COST_SCANNED
        n_short = 0  # rows the pass would take
        for k in range(n):
            i = slots[k]
            row_range(p_tp, slot_table[i], slot_row[i], quote, &a, &b)
            if b - a <= AUTOMATON_MAX_NEEDLE:
                n_short += 1
        if n_short * per_row > (COST_PASS + (last - first) * COST_TEXT + group_bytes * COST_AUTOMATON
                                + n_short * COST_PATTERN):
            _automaton_pass(slots, n, state, slot_table, slot_row, p_tp, modes, quote, h_members + first,
                            last - first, haystacks, hp, hl, group_bytes)
        with nogil:
            for k in range(n):
                i = slots[k]
                if state[i] != PENDING:
                    continue
                kind = row_range(p_tp, slot_table[i], slot_row[i], quote, &a, &b)
                text = <const byte_t*>p_tp[N_COLS * slot_table[i] + COL_DATA]
                if group_member_occurring(BYTE_CLASS, hp, hl, h_members, first, last, -1, text + a, b - a,
                                          row_mode(modes, kind, quote, text, a, b), grams) >= 0:
                    state[i] = GROUNDED
                else:
                    state[i] = SETTLED
    return 0


cdef struct RowMemo:
    # a row already judged in ungrounded_rows' main pass: the same kind, fingerprint and bytes
    # in the same table get the same answer (the same sets and texts are asked of them)
    offset_t table  # whose entry it is (another table's is a free slot)
    offset_t row
    byte_t outcome  # MEMO_GROUNDED, MEMO_UNGROUNDED or MEMO_PENDING

cdef enum:
    MEMO_GROUNDED = 0
    MEMO_UNGROUNDED = 1
    MEMO_PENDING = 2
    # the memo's most slots (16 bytes each): a table of more distinct rows is judged row by row
    # past three quarters of it
    MEMO_MAX_SLOTS = 1 << 17


cdef offset_t memo_slot(const RowMemo* memo, offset_t cap, offset_t t, offset_t r, unsigned char kind,
                        const fp_word_t* fp, const size_t* p_tp, unsigned char quote, const byte_t* text, offset_t a,
                        offset_t b, const unsigned char* modes) noexcept nogil:
    """The slot of row ``r`` of table ``t`` in ``memo`` (``cap`` slots, a power of two): the one
    that holds a row of the same kind, fingerprint, bytes and search mode, or the free one where
    it goes (a code span and a quotation of the same words are searched apart: the one a code
    span grounds, a quotation after a negation may not be)."""
    cdef uint64_t h = (<uint64_t>fp[2 * r] ^ (<uint64_t>fp[2 * r + 1] * <uint64_t>0x9E3779B97F4A7C15ULL)
                       ^ (<uint64_t>kind << 56))
    cdef offset_t i = <offset_t>((h ^ (h >> 29)) & <uint64_t>(cap - 1)), other, oa, ob
    while True:
        if memo[i].table != t:
            return i
        other = memo[i].row
        if (row_range(p_tp, t, other, quote, &oa, &ob) == kind and fp[2 * other] == fp[2 * r]
                and fp[2 * other + 1] == fp[2 * r + 1] and ob - oa == b - a
                and memcmp(text + oa, text + a, <size_t>(b - a)) == 0
                and row_mode(modes, kind, quote, text, oa, ob) == row_mode(modes, kind, quote, text, a, b)):
            return i
        i = (i + 1) & (cap - 1)


def ungrounded_rows(tables, sets, haystacks, *, groups, haystack_groups, skip_kind, pair_kind, quote_kind,
                    number_kind=None, url_kind=None, hints=None):
    """(table, row) of the rows of several fact tables found neither in their table's sets nor
    literally in their table's haystacks; the specification is
    ``provgate._factdiff_py.ungrounded_rows``. One pass over every row, reading the tables'
    columns in place, without the GIL: a set look-up per row, a literal search per row no set
    holds, each starting where the row's next citation marker points (``hints``), else where
    the table's last row was found. A row of a table searched in WIDE_GROUP texts or more that
    its first text does not hold is searched in the others after that pass, with every such
    row of those texts (``_ground_pending``)."""
    columns = _ground_columns(tables, skip_kind, pair_kind, quote_kind)
    cdef bytes modes_owner = literal_modes(quote_kind, number_kind, url_kind)
    cdef const unsigned char* modes = <const unsigned char*>PyBytes_AS_STRING(modes_owner)
    cdef Py_ssize_t n_tables = len(columns[1]), t, c
    if type(groups) is not list and type(groups) is not tuple or len(groups) != n_tables:
        check_groups_per_table(groups, n_tables)  # raises
    if type(haystack_groups) is not list and type(haystack_groups) is not tuple or len(haystack_groups) != n_tables:
        check_groups_per_table(haystack_groups, n_tables, "haystack_groups", "haystacks")  # raises
    if hints is not None:
        if type(hints) is not dict:
            check_hints(hints)  # raises (or accepts a dict subclass, read as a dict below)
        for name, index in (<dict>hints).items():
            if type(name) is not str or type(index) is not int:
                check_hints(hints)  # raises, naming the entry
    owners, ptrs_a, lens_a = _set_pointers(sets)
    cdef Py_ssize_t k = len(owners)
    cdef cnp.ndarray ptrs = ptrs_a, lens = lens_a
    table_index = np.arange(n_tables, dtype=np.int64)
    offsets_a, members_a, _ = flat_grouping(groups, table_index, n_tables, k, "tables", "sets", "query_group")
    cdef cnp.ndarray offsets_arr = offsets_a, members_arr = members_a
    # a private tuple: every haystack stays alive while the loop reads it without the GIL
    cdef tuple keep_h = byte_items(haystacks, "haystacks", False)
    h_offsets_a, h_members_a, _ = flat_grouping(haystack_groups, table_index, n_tables, len(keep_h), "tables",
                                                "haystacks", "haystack_groups")
    cdef cnp.ndarray h_offsets_arr = h_offsets_a, h_members_arr = h_members_a
    cdef cnp.ndarray h_ptr = pointers_of(keep_h), h_len = lengths_of(keep_h)
    # per table: its columns' addresses, row count and data size, gathered with the GIL held
    # (``columns`` keeps every array alive)
    cdef cnp.ndarray table_ptrs = np.empty((n_tables, N_COLS), dtype=np.uintp)
    cdef cnp.ndarray table_sizes = np.empty((n_tables, 2), dtype=np.int64)
    cdef size_t* p_tp = <size_t*>cnp.PyArray_DATA(table_ptrs)
    cdef offset_t* p_ts = index_ptr(table_sizes)
    cdef offset_t total = 0
    cdef object data
    for t in range(n_tables):
        for c in range(COL_DATA):
            p_tp[N_COLS * t + c] = <size_t>cnp.PyArray_DATA(<cnp.ndarray>columns[1 + c][t])
        data = columns[0][t]
        p_tp[N_COLS * t + COL_DATA] = <size_t>PyBytes_AS_STRING(data)
        p_ts[2 * t] = (<cnp.ndarray>columns[1][t]).shape[0]
        p_ts[2 * t + 1] = PyBytes_GET_SIZE(data)
        total += p_ts[2 * t]
    cdef cnp.ndarray row_hint = _row_hints(columns, hints, skip_kind, total) if hints else None
    cdef const offset_t* p_hint = index_ptr(row_hint) if row_hint is not None else NULL
    cdef cnp.ndarray out_table = np.empty(total, dtype=np.int64)
    cdef cnp.ndarray out_row = np.empty(total, dtype=np.int64)
    cdef offset_t* p_ot = index_ptr(out_table)
    cdef offset_t* p_or = index_ptr(out_row)
    cdef const size_t* p_ptrs = <const size_t*>cnp.PyArray_DATA(ptrs)
    cdef const offset_t* p_lens = index_ptr(lens)
    cdef const offset_t* p_offsets = index_ptr(offsets_arr)
    cdef const offset_t* p_members = index_ptr(members_arr)
    cdef const offset_t* p_h_offsets = index_ptr(h_offsets_arr)
    cdef const offset_t* p_h_members = index_ptr(h_members_arr)
    cdef const size_t* hp = <const size_t*>cnp.PyArray_DATA(h_ptr)
    cdef const offset_t* hl = index_ptr(h_len)
    cdef unsigned char skip = skip_kind, pair = pair_kind, quote = quote_kind, kind
    cdef const size_t* cols
    cdef const fp_word_t* fp
    cdef const byte_t* text
    cdef offset_t r, m, a = 0, b = 0, found = 0, bad_table = -1, bad_row = -1, set_hint, text_hint, searched, row_base = 0
    cdef offset_t cited, set_first, text_first, hj, n_pending = 0, kept
    # per row of the output: PENDING while a wide group's other texts are still to be searched
    cdef cnp.ndarray state = np.zeros(total, dtype=np.uint8)
    cdef byte_t* p_state = <byte_t*>cnp.PyArray_DATA(state)
    # each haystack's 4-gram prefilter, made once it is searched often (_boundaries.occurs_filtered)
    cdef GramCache grams
    gram_cache_init(&grams, len(keep_h))
    # the rows judged so far in a table (RowMemo): a summary that states one fact N times, which
    # its source holds at a boundary once and many times inside longer tokens, was searched N
    # times over the same occurrences, quadratic (red team 90, F04: an accepted 832 KB edit took
    # 18 s in I1)
    cdef offset_t memo_cap = 0, most_rows = 0, slot = -1, memo_used = 0, memo_limit = 0
    for t in range(n_tables):
        most_rows = max(most_rows, p_ts[2 * t])
    if most_rows >= 2:
        memo_cap = 16
        while memo_cap < 2 * most_rows and memo_cap < MEMO_MAX_SLOTS:
            memo_cap *= 2
        memo_limit = memo_cap * 3 // 4
    cdef RowMemo* memo = <RowMemo*>malloc(<size_t>memo_cap * sizeof(RowMemo)) if memo_cap else NULL
    if memo_cap and memo == NULL:
        gram_cache_free(&grams)
        raise MemoryError("out of memory for the grounding memo")
    for r in range(memo_cap):
        memo[r].table = -1
    try:
        with nogil:
            for t in range(n_tables):
                cols = p_tp + N_COLS * t
                text = <const byte_t*>cols[COL_DATA]
                set_hint = -1
                text_hint = -1
                memo_used = 0
                for r in range(p_ts[2 * t]):
                    kind = (<const unsigned char*>cols[COL_KIND])[r]
                    if kind == skip:
                        continue
                    # first where the row's citation points, else where the last row was found
                    set_first = set_hint
                    text_first = text_hint
                    if p_hint != NULL:
                        cited = p_hint[row_base + r]
                        if cited >= 0:
                            m = member_position(p_members, p_offsets[t], p_offsets[t + 1], cited)
                            if m >= 0:
                                set_first = m
                            m = member_position(p_h_members, p_h_offsets[t], p_h_offsets[t + 1], cited)
                            if m >= 0:
                                text_first = m
                    # a quote is searched for by what it quotes, anything else by its literal text
                    if kind == quote:
                        a = (<const offset_t*>cols[COL_VALUE_START])[r]
                        b = (<const offset_t*>cols[COL_VALUE_END])[r]
                    else:
                        a = (<const offset_t*>cols[COL_START])[r]
                        b = (<const offset_t*>cols[COL_END])[r]
                    if a < 0 or a > b or b > p_ts[2 * t + 1]:
                        bad_table = t
                        bad_row = r
                        break
                    fp = <const fp_word_t*>(cols[COL_PAIR] if kind == pair else cols[COL_VALUE])
                    slot = -1
                    if memo_cap:
                        slot = memo_slot(memo, memo_cap, t, r, kind, fp, p_tp, quote, text, a, b, modes)
                        if memo[slot].table == t:
                            if memo[slot].outcome != MEMO_GROUNDED:
                                if memo[slot].outcome == MEMO_PENDING:
                                    p_state[found] = PENDING
                                    n_pending += 1
                                p_ot[found] = t
                                p_or[found] = r
                                found += 1
                            continue
                        if memo_used < memo_limit:
                            memo_used += 1
                            memo[slot].table = t
                            memo[slot].row = r
                            memo[slot].outcome = MEMO_GROUNDED  # (until the row is judged otherwise below)
                        else:
                            slot = -1
                    m = set_first if p_offsets[t] <= set_first < p_offsets[t + 1] else -1
                    if m >= 0 and in_set(p_ptrs, p_lens, p_members[m], fp[2 * r], fp[2 * r + 1]):
                        set_hint = m
                        continue
                    searched = -1
                    if kind == quote and p_h_offsets[t] <= text_first < p_h_offsets[t + 1]:
                        # a quote is grounded by the text it quotes far more often than by a fact
                        # of its sources (gate benchmark, summarize: 172 of 435 quotes missed the
                        # first set asked, and every one was in the first text searched): after
                        # the first set, the first text, then the other sets and texts. A row is
                        # grounded if some set holds it or some text does, so the order only
                        # saves the look-ups in sets the summary's memory has not touched.
                        hj = p_h_members[text_first]
                        if occurs_filtered(BYTE_CLASS, <const byte_t*>hp[hj], hl[hj], hj, text + a, b - a, row_mode(modes, kind, quote, text, a, b),
                                           &grams):
                            text_hint = text_first
                            continue
                        searched = text_first
                    m = group_member_holding_but(p_ptrs, p_lens, p_members, p_offsets[t], p_offsets[t + 1], m,
                                                 fp[2 * r], fp[2 * r + 1])
                    if m >= 0:
                        set_hint = m
                        continue
                    if p_h_offsets[t + 1] - p_h_offsets[t] >= WIDE_GROUP:
                        # a wide group: its first text here, the others once this pass is over,
                        # with every row of the group that needs them (_ground_pending)
                        if searched < 0 and p_h_offsets[t] <= text_first < p_h_offsets[t + 1]:
                            hj = p_h_members[text_first]
                            if occurs_filtered(BYTE_CLASS, <const byte_t*>hp[hj], hl[hj], hj, text + a, b - a,
                                               row_mode(modes, kind, quote, text, a, b), &grams):
                                text_hint = text_first
                                continue
                        p_state[found] = PENDING
                        n_pending += 1
                        if slot >= 0:
                            memo[slot].outcome = MEMO_PENDING
                        m = -1
                    elif searched >= 0:
                        m = group_member_occurring_but(BYTE_CLASS, hp, hl, p_h_members, p_h_offsets[t],
                                                       p_h_offsets[t + 1], searched, text + a, b - a, row_mode(modes, kind, quote, text, a, b),
                                                       &grams)
                    else:
                        m = group_member_occurring(BYTE_CLASS, hp, hl, p_h_members, p_h_offsets[t],
                                                   p_h_offsets[t + 1], text_first, text + a, b - a, row_mode(modes, kind, quote, text, a, b),
                                                   &grams)
                    if m >= 0:
                        text_hint = m
                    else:
                        if slot >= 0 and memo[slot].outcome == MEMO_GROUNDED:
                            memo[slot].outcome = MEMO_UNGROUNDED
                        p_ot[found] = t
                        p_or[found] = r
                        found += 1
                if bad_table >= 0:
                    break
                row_base += p_ts[2 * t]
        if n_pending and bad_table < 0:
            _ground_pending(found, p_ot, p_or, p_state, p_tp, modes, quote, p_h_offsets, p_h_members, keep_h, hp, hl,
                            &grams)
    finally:
        gram_cache_free(&grams)
        free(memo)
    if bad_table >= 0:
        raise span_error(bad_table, bad_row, a, b, p_ts[2 * bad_table + 1])
    if n_pending:
        with nogil:
            kept = 0
            for r in range(found):
                if p_state[r] != GROUNDED:
                    p_ot[kept] = p_ot[r]
                    p_or[kept] = p_or[r]
                    kept += 1
            found = kept
    return _shrunk(out_table, found), _shrunk(out_row, found)
