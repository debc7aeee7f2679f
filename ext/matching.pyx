"""Matching source facts at token boundaries, native helpers.

The specification, including why the text is rewritten with boundary markers, is
``provgate._matching_py``; ``collect`` here must return identical arrays and raise the same
errors. The automaton is pyahocorasick's (built by the reference's ``build_automaton``), which
holds the GIL while it runs. What this module does natively: classify every byte position and
write the marked haystack straight into a new latin-1 ``str`` without the GIL, consume the
automaton's iterator with C-level ``tp_iternext`` calls (no Python loop), recover byte offsets
by counting non-marker bytes with a pointer that only moves forward (hits arrive by end), and
collect hits in C buffers that grow geometrically and become numpy arrays at the end.
"""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

from _boundaries cimport (GramCache, Marks, after_negation, classify, fill_byte_classes, fill_marks, gram_cache_expect,
                          gram_cache_free, gram_cache_init, group_member_occurring, write_marked)
from _byte_batches cimport byte_data, byte_items, lengths_of, pointers_of
from _grouping cimport flat_grouping
from _types cimport byte_t, offset_t

from provgate._matching_py import check_max_matches, check_modes, check_quote_columns, too_many_matches, starts_error
from provgate.errors import InvalidContentError

cdef extern from "Python.h":
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    void* PyUnicode_DATA(object o)

cnp.import_array()

IMPLEMENTATION = "native"

cdef enum:
    INITIAL_CAPACITY = 4096

cdef byte_t BYTE_CLASS[256]
cdef Marks MARKS


fill_byte_classes(BYTE_CLASS)
fill_marks(&MARKS)


cdef struct HitBuffer:
    offset_t* start
    offset_t* end
    offset_t* pattern
    offset_t size
    offset_t capacity


cdef int grow(HitBuffer* buf, offset_t limit) except -1:
    """Double the capacity (never beyond limit, the most hits there can be)."""
    cdef offset_t capacity = min(max(buf.capacity * 2, <offset_t>INITIAL_CAPACITY), max(limit, <offset_t>1))
    cdef size_t nbytes = <size_t>capacity * sizeof(offset_t)
    cdef offset_t* p
    p = <offset_t*>realloc(buf.start, nbytes)
    if p == NULL:
        raise MemoryError()
    buf.start = p
    p = <offset_t*>realloc(buf.end, nbytes)
    if p == NULL:
        raise MemoryError()
    buf.end = p
    p = <offset_t*>realloc(buf.pattern, nbytes)
    if p == NULL:
        raise MemoryError()
    buf.pattern = p
    buf.capacity = capacity
    return 0


cdef cnp.ndarray to_array(const offset_t* values, offset_t n):
    cdef cnp.ndarray out = np.empty(n, dtype=np.int64)
    if n:
        memcpy(cnp.PyArray_DATA(out), values, <size_t>n * sizeof(offset_t))
    return out


def collect(automaton, data, const int64_t[::1] pattern_bytes, const byte_t[::1] edges,
            offset_t max_matches):
    cdef const byte_t[::1] view = byte_data(data)
    cdef offset_t n = view.shape[0]
    cdef offset_t npatterns = pattern_bytes.shape[0]
    cdef const byte_t* d = &view[0] if n else NULL
    cdef byte_t* flags = NULL
    cdef byte_t* hay = NULL
    cdef offset_t markers, total, last, index, e
    cdef offset_t scan_k = 0, scan_bytes = 0  # haystack index reached, data bytes before it
    cdef HitBuffer buf
    cdef object haystack, item
    if edges.shape[0] != 256:
        raise ValueError(f"edges must have 256 entries, not {edges.shape[0]}")
    if max_matches < 0:
        # the hit buffer grows up to max_matches: a negative limit would never let it grow
        check_max_matches(max_matches)  # raises
    buf.start = NULL
    buf.end = NULL
    buf.pattern = NULL
    buf.size = 0
    buf.capacity = 0
    try:
        flags = <byte_t*>malloc(<size_t>(n + 1))
        if flags == NULL:
            raise MemoryError()
        with nogil:
            markers = classify(BYTE_CLASS, &MARKS, d, n, &edges[0], flags)
        if markers < 0:
            raise InvalidContentError("data contains byte 0xF8 or 0xF9, so it is not valid UTF-8")
        empty = (to_array(NULL, 0), to_array(NULL, 0), to_array(NULL, 0))
        if len(automaton) == 0:
            return empty
        total = n + markers
        # a fresh latin-1 str, filled in place before anyone else can see it; it always holds
        # a START marker (> 127), so its latin-1 representation is the canonical one
        haystack = PyUnicode_New(total, 255)
        hay = <byte_t*>PyUnicode_DATA(haystack)
        with nogil:
            write_marked(&MARKS, d, n, flags, hay)
        free(flags)
        flags = NULL
        for item in automaton.iter(haystack):
            if buf.size == max_matches:
                raise too_many_matches(max_matches)
            # unpacked as Python does (a tuple's fast path): an automaton is the caller's, and
            # its hits are read, never assumed to be 2-tuples (red team 39, 03)
            last, index = item
            if index < 0 or index >= npatterns or last < scan_k or last >= total:
                raise ValueError(f"automaton hit ({last}, {index}) does not belong to this matcher's patterns")
            # `last` is the pattern's END marker, which sits right before byte `e` of data
            while scan_k < last:
                scan_bytes += hay[scan_k] != MARKS.start and hay[scan_k] != MARKS.end
                scan_k += 1
            e = scan_bytes
            if e < pattern_bytes[index]:
                raise ValueError(f"automaton hit ({last}, {index}) does not belong to this matcher's patterns")
            if buf.size == buf.capacity:
                grow(&buf, max_matches)
            buf.start[buf.size] = e - pattern_bytes[index]
            buf.end[buf.size] = e
            buf.pattern[buf.size] = index
            buf.size += 1
        return (to_array(buf.start, buf.size), to_array(buf.end, buf.size), to_array(buf.pattern, buf.size))
    finally:
        free(flags)
        free(buf.start)
        free(buf.end)
        free(buf.pattern)


def occurs_at_boundaries(needles, haystacks, *, groups=None, needle_group=None, modes=None):
    # private tuples: every bytes object stays alive while the loop reads it without the GIL
    cdef tuple keep_n = byte_items(needles, "needles", False)
    cdef tuple keep_h = byte_items(haystacks, "haystacks", False)
    cdef Py_ssize_t n = len(keep_n), k = len(keep_h), i
    offsets_a, members_a, group_a = flat_grouping(groups, needle_group, n, k, "needles", "haystacks", "needle_group")
    cdef cnp.ndarray offsets_arr = offsets_a, members_arr = members_a, group_arr = group_a
    cdef cnp.ndarray modes_arr = check_modes(modes, n)
    cdef const unsigned char* p_modes = <const unsigned char*>cnp.PyArray_DATA(modes_arr)
    cdef const offset_t* p_offsets = <const offset_t*>cnp.PyArray_DATA(offsets_arr)
    cdef const offset_t* p_members = <const offset_t*>cnp.PyArray_DATA(members_arr)
    cdef const offset_t* p_group = <const offset_t*>cnp.PyArray_DATA(group_arr)
    cdef cnp.ndarray out = np.zeros(n, dtype=np.bool_)
    if n == 0 or k == 0:
        return out
    cdef cnp.ndarray n_ptr = pointers_of(keep_n), h_ptr = pointers_of(keep_h)
    cdef cnp.ndarray n_len = lengths_of(keep_n), h_len = lengths_of(keep_h)
    cdef const size_t* np_ = <const size_t*>cnp.PyArray_DATA(n_ptr)
    cdef const size_t* hp = <const size_t*>cnp.PyArray_DATA(h_ptr)
    cdef const offset_t* nl = <const offset_t*>cnp.PyArray_DATA(n_len)
    cdef const offset_t* hl = <const offset_t*>cnp.PyArray_DATA(h_len)
    cdef unsigned char* o = <unsigned char*>cnp.PyArray_DATA(out)
    cdef offset_t g
    cdef GramCache grams
    gram_cache_init(&grams, k)
    try:
        gram_cache_expect(&grams, n, nl, p_group, offsets_arr.shape[0] - 1, p_offsets, p_members)
        with nogil:
            for i in range(n):
                g = p_group[i]
                o[i] = group_member_occurring(BYTE_CLASS, hp, hl, p_members, p_offsets[g], p_offsets[g + 1], -1,
                                              <const byte_t*>np_[i], nl[i], p_modes[i], &grams) >= 0
    finally:
        gram_cache_free(&grams)
    return out


def denied_quotes(data, kind, starts, quote_kind):  # (checked as the reference checks it, then taken as a byte: red team 103, F09)
    cdef bytes keep = byte_data(data)
    check_quote_columns(kind, starts, quote_kind)
    cdef const unsigned char* p_kind = <const unsigned char*>cnp.PyArray_DATA(kind)
    cdef const int64_t* p_at = <const int64_t*>cnp.PyArray_DATA(starts)
    cdef const byte_t* h = <const byte_t*><const char*>keep
    cdef Py_ssize_t n = kind.shape[0], i, found = 0, bad = -1
    cdef offset_t hn = len(keep)
    cdef unsigned char q = <unsigned char>quote_kind
    cdef cnp.ndarray out = np.empty(n, dtype=np.int64)
    cdef int64_t* o = <int64_t*>cnp.PyArray_DATA(out)
    with nogil:
        for i in range(n):
            if p_kind[i] != q:
                continue
            if p_at[i] < 0 or p_at[i] > hn:
                bad = i
                break
            if after_negation(BYTE_CLASS, h, hn, p_at[i]):
                o[found] = i
                found += 1
    if bad >= 0:
        raise starts_error(hn)
    return out[:found].copy()
