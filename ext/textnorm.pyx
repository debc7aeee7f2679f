"""Whitespace-normalised text equality, native; the specification is ``provgate._textnorm_py``.

Walks both texts line by line in CPython's own storage (one, two or four bytes per character),
trimming each line as the normalisation does, and stops at the first line that differs, so no
normalised copy is ever built. Pointers, kinds and lengths are gathered with the GIL held from
the argument lists (which keep every text alive); the comparisons run without the GIL into a
preallocated numpy array.
"""

import numpy as np

cimport numpy as cnp
from cpython.unicode cimport PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_KIND
from libc.string cimport memcmp

from provgate._textnorm_py import check_pairs

cnp.import_array()

IMPLEMENTATION = "native"

cdef extern from "Python.h":
    int PyUnicode_READY(object o) except -1
    # a macro over the string's storage: no Python state, safe without the GIL
    Py_UCS4 PyUnicode_READ(int kind, const void* data, Py_ssize_t index) nogil


cdef struct text_t:
    int kind
    const char* data
    Py_ssize_t n


cdef inline Py_UCS4 char_at(const text_t* t, Py_ssize_t i) noexcept nogil:
    return PyUnicode_READ(t.kind, t.data, i)


cdef Py_ssize_t next_line(const text_t* t, Py_ssize_t pos, Py_ssize_t* start, Py_ssize_t* end) noexcept nogil:
    """The line that starts at ``pos`` (``pos <= n``), trimmed: ``[start, end)``. Returns where
    the next line starts, or ``n + 1`` when this line was the last."""
    cdef Py_ssize_t i = pos, e
    cdef Py_UCS4 c
    while i < t.n and char_at(t, i) != 10:
        i += 1
    e = i
    if i < t.n and e > pos and char_at(t, e - 1) == 13:
        e -= 1  # the \r of a \r\n line ending
    while e > pos:
        c = char_at(t, e - 1)
        if c != 32 and c != 9:
            break
        e -= 1
    start[0] = pos
    end[0] = e
    return i + 1


cdef bint first_nonblank(const text_t* t, Py_ssize_t* pos, Py_ssize_t* start, Py_ssize_t* end) noexcept nogil:
    """Skip leading blank lines; False when there is no non-blank line."""
    while pos[0] <= t.n:
        pos[0] = next_line(t, pos[0], start, end)
        if end[0] > start[0]:
            return True
    return False


cdef bint same_range(const text_t* a, Py_ssize_t sa, Py_ssize_t ea,
                     const text_t* b, Py_ssize_t sb, Py_ssize_t eb) noexcept nogil:
    cdef Py_ssize_t k, n = ea - sa
    if n != eb - sb:
        return False
    if a.kind == b.kind:
        return memcmp(a.data + sa * a.kind, b.data + sb * b.kind, n * a.kind) == 0
    for k in range(n):
        if char_at(a, sa + k) != char_at(b, sb + k):
            return False
    return True


cdef bint only_blank_lines_left(const text_t* t, bint has_line, Py_ssize_t pos,
                                Py_ssize_t start, Py_ssize_t end) noexcept nogil:
    while has_line:
        if end > start:
            return False
        has_line = pos <= t.n
        if has_line:
            pos = next_line(t, pos, &start, &end)
    return True


cdef bint same_lines(const text_t* a, const text_t* b) noexcept nogil:
    cdef Py_ssize_t pa = 0, pb = 0, sa = 0, ea = 0, sb = 0, eb = 0
    cdef bint has_a = first_nonblank(a, &pa, &sa, &ea)
    cdef bint has_b = first_nonblank(b, &pb, &sb, &eb)
    while has_a and has_b:
        if not same_range(a, sa, ea, b, sb, eb):
            return False
        has_a = pa <= a.n
        if has_a:
            pa = next_line(a, pa, &sa, &ea)
        has_b = pb <= b.n
        if has_b:
            pb = next_line(b, pb, &sb, &eb)
    # trailing blank lines are dropped: whatever is left on either side must be blank
    return only_blank_lines_left(a, has_a, pa, sa, ea) and only_blank_lines_left(b, has_b, pb, sb, eb)


cdef int load_text(text_t* t, object s) except -1:
    PyUnicode_READY(s)
    t.kind = PyUnicode_KIND(s)
    t.data = <const char*>PyUnicode_DATA(s)
    t.n = PyUnicode_GET_LENGTH(s)
    return 0


def same_after_normalisation(a, b):
    check_pairs(a, b)
    cdef tuple keep_a = tuple(a), keep_b = tuple(b)  # every text stays alive while we read it
    cdef Py_ssize_t n = len(keep_a), i
    cdef cnp.ndarray out = np.empty(n, dtype=np.bool_)
    if n == 0:
        return out
    # one buffer of text_t, owned by a numpy array (freed with it, also on an error path)
    cdef cnp.ndarray texts = np.empty(2 * n * sizeof(text_t), dtype=np.uint8)
    cdef text_t* t = <text_t*>cnp.PyArray_DATA(texts)
    cdef unsigned char* p_out = <unsigned char*>cnp.PyArray_DATA(out)
    for i in range(n):
        load_text(&t[2 * i], keep_a[i])
        load_text(&t[2 * i + 1], keep_b[i])
    with nogil:
        for i in range(n):
            p_out[i] = same_lines(&t[2 * i], &t[2 * i + 1])
    return out
