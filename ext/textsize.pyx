"""UTF-8 sizes of many texts, native; the specification is ``provgate._textsize_py``.

Reads each ``str``'s own storage (one, two or four bytes per character, as CPython keeps it)
and adds up the UTF-8 width of every character, so no encoded copy is made. The pointers and
lengths are gathered with the GIL held, from a tuple that keeps every text alive; the counting
runs without the GIL into a preallocated numpy array. Results and errors equal the reference.
"""

import numpy as np

cimport numpy as cnp
from cpython.unicode cimport PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_KIND
from libc.stdint cimport uint8_t, uint16_t, uint32_t

from _types cimport offset_t

from provgate._textsize_py import check_texts, surrogate_error
from provgate._textsize_py import utf8_lengths as _utf8_lengths_py

cnp.import_array()

IMPLEMENTATION = "native"

cdef enum:
    # characters per 16-bit partial sum (each adds at most 2, so 2 * CHUNK < 65536)
    CHUNK = 16384

cdef extern from "Python.h":
    int PyUnicode_READY(object o) except -1
    bint PyUnicode_IS_ASCII(object o)


cdef offset_t ucs1_size(const uint8_t* s, Py_ssize_t n) noexcept nogil:
    cdef offset_t size = n
    cdef uint16_t extra
    cdef Py_ssize_t i = 0, j, end
    while i < n:
        end = i + CHUNK if n - i > CHUNK else n
        extra = 0
        for j in range(i, end):
            extra += s[j] >> 7  # U+0080..U+00FF take two bytes
        size += extra
        i = end
    return size


# Branch-free sums so the compiler can vectorize: the width of a character is 1 plus one per
# threshold it reaches. Surrogates are only flagged in the sum loop and located afterwards,
# on the error path.

cdef Py_ssize_t first_surrogate2(const uint16_t* s, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if <uint16_t>(s[i] - 0xD800) < 0x800:
            return i
    return -1


cdef Py_ssize_t first_surrogate4(const uint32_t* s, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if <uint32_t>(s[i] - 0xD800) < 0x800:
            return i
    return -1


cdef offset_t ucs2_size(const uint16_t* s, Py_ssize_t n, Py_ssize_t* bad) noexcept nogil:
    """Size in bytes, or -1 with ``bad[0]`` = index of the first lone surrogate."""
    cdef offset_t size = n
    cdef uint16_t surrogates = 0
    cdef uint16_t extra
    cdef Py_ssize_t i, j, end
    cdef uint16_t c
    # 16-bit lane sums vectorize widest; a block of CHUNK characters adds at most 2 * CHUNK
    i = 0
    while i < n:
        end = i + CHUNK if n - i > CHUNK else n
        extra = 0
        for j in range(i, end):
            c = s[j]
            extra += (c >= 0x80) + (c >= 0x800)
            surrogates |= <uint16_t>(c - 0xD800) < 0x800
        size += extra
        i = end
    if surrogates:
        bad[0] = first_surrogate2(s, n)
        return -1
    return size


cdef offset_t ucs4_size(const uint32_t* s, Py_ssize_t n, Py_ssize_t* bad) noexcept nogil:
    cdef offset_t size = n
    cdef uint32_t surrogates = 0
    cdef Py_ssize_t i
    cdef uint32_t c
    for i in range(n):
        c = s[i]
        size += (c >= 0x80) + (c >= 0x800) + (c >= 0x10000)
        surrogates |= (c - 0xD800) < 0x800
    if surrogates:
        bad[0] = first_surrogate4(s, n)
        return -1
    return size


def utf8_lengths(texts):
    check_texts(texts)
    cdef tuple owned = tuple(texts)  # keeps every text alive while the GIL is released
    cdef Py_ssize_t n = len(owned)
    cdef cnp.ndarray[offset_t, ndim=1] out = np.empty(n, dtype=np.int64)
    cdef offset_t[::1] sizes = out
    # per text: its data, its length in characters, its kind (0 = ASCII, size already known)
    cdef cnp.ndarray data_arr = np.empty(n, dtype=np.uintp)
    cdef cnp.ndarray len_arr = np.empty(n, dtype=np.intp)
    cdef cnp.ndarray kind_arr = np.empty(n, dtype=np.uint8)
    cdef size_t[::1] data = data_arr
    cdef Py_ssize_t[::1] lengths = len_arr
    cdef uint8_t[::1] kinds = kind_arr
    cdef Py_ssize_t i
    cdef object text
    for i in range(n):
        text = owned[i]
        if not isinstance(text, str):
            # the reference goes text by text: an earlier text that cannot be encoded fails first
            _utf8_lengths_py(owned[:i])
            raise TypeError(f"texts[{i}] must be a str, not {type(text).__name__}")
        PyUnicode_READY(text)
        lengths[i] = PyUnicode_GET_LENGTH(text)
        if PyUnicode_IS_ASCII(text):
            kinds[i] = 0
            sizes[i] = lengths[i]
        else:
            kinds[i] = <uint8_t>PyUnicode_KIND(text)
            data[i] = <size_t>PyUnicode_DATA(text)
    cdef Py_ssize_t failed = -1
    cdef Py_ssize_t bad = 0
    cdef offset_t size
    with nogil:
        for i in range(n):
            if kinds[i] == 0:
                continue
            if kinds[i] == 1:
                size = ucs1_size(<const uint8_t*>data[i], lengths[i])
            elif kinds[i] == 2:
                size = ucs2_size(<const uint16_t*>data[i], lengths[i], &bad)
            else:
                size = ucs4_size(<const uint32_t*>data[i], lengths[i], &bad)
            if size < 0:
                failed = i
                break
            sizes[i] = size
    if failed >= 0:
        raise surrogate_error(failed, bad)
    return out
