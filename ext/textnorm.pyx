"""Whitespace-normalised text equality, native; the specification is ``provgate._textnorm_py``.

Walks both texts line by line in CPython's own storage (one, two or four bytes per character),
trimming each line as the normalisation does (a line inside a fenced code block is not trimmed:
each text keeps its own fence state as it goes), and stops at the first line that differs, so
no normalised copy is ever built. Pointers, kinds and lengths are gathered with the GIL held from
the argument lists (which keep every text alive); the comparisons run without the GIL into a
preallocated numpy array.
"""

import numpy as np

cimport numpy as cnp
from cpython.unicode cimport PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_KIND
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from libc.stdint cimport uint16_t, uint32_t, uint64_t
from libc.string cimport memchr, memcmp, memcpy

from provgate.errors import InvalidArgumentError

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


cdef struct cursor_t:
    Py_ssize_t pos    # where the next line starts; n + 1 when there is none
    Py_ssize_t start  # the current line, as it is compared: [start, end)
    Py_ssize_t end
    Py_ssize_t fence  # backticks (or tildes) of the open fence's opening line; 0 outside a fence
    Py_UCS4 mark      # the open fence's character: ` or ~
    bint verbatim     # the current line is inside a fence (kept as it is)


cdef Py_ssize_t fence_marks(const text_t* t, Py_ssize_t i, Py_ssize_t e, bint closing,
                                Py_UCS4 mark) noexcept nogil:
    """The backticks (``mark`` 96) or tildes (126) of a fence line ``[i, e)`` (without its \\n,
    with its \\r), else 0: up to three spaces, three or more of them, then anything (but a
    backtick after backticks: an opening line) or only spaces, tabs and \\r (a closing line)
    -- the scanner's _FENCE_OPEN / _FENCE_CLOSE (tildes since red team 126, F05)."""
    cdef Py_ssize_t spaces = 0, ticks = 0
    cdef Py_UCS4 c
    while i < e and spaces < 3 and char_at(t, i) == 32:
        i += 1
        spaces += 1
    while i < e and char_at(t, i) == mark:
        i += 1
        ticks += 1
    if ticks < 3:
        return 0
    while i < e:
        c = char_at(t, i)
        if (c == 96 and mark == 96) or (closing and c != 32 and c != 9 and c != 13):
            return 0
        i += 1
    return ticks


cdef bint tilde_underline(const text_t* t, Py_ssize_t pos, Py_ssize_t i, Py_ssize_t tildes) noexcept nogil:
    """Is the tilde fence line ``[pos, i)`` a heading's underline, no fence: tildes and blanks
    only, right under a line that holds a character other than blanks, backticks and tildes,
    and no shorter than that line without its trailing blanks (``Title`` / ``~~~~~``; red team
    128, F13) -- the scanner's tilde_underline."""
    cdef Py_ssize_t q = pos, s, e
    cdef bint other = False
    cdef Py_UCS4 c
    while q < i and char_at(t, q) == 32:
        q += 1
    q += tildes
    while q < i:
        c = char_at(t, q)
        if c != 32 and c != 9 and c != 13:
            return False
        q += 1
    if pos == 0:
        return False
    e = pos - 1
    s = e
    while s > 0 and char_at(t, s - 1) != 10:
        s -= 1
    while e > s:
        c = char_at(t, e - 1)
        if c != 32 and c != 9 and c != 13:
            break
        e -= 1
    if e > s:
        c = char_at(t, e - 1)
        if c == 58 or c == 46 or c == 33 or c == 63:
            return False  # (a line that ends a sentence or introduces what follows: red team 129, F02)
    for q in range(s, e):
        c = char_at(t, q)
        if c != 32 and c != 9 and c != 13 and c != 96 and c != 126:
            other = True
            break
    return other and tildes >= e - s


cdef inline Py_ssize_t newline_at_or_after(const text_t* t, Py_ssize_t i) noexcept nogil:
    """The index of the first \\n at or after ``i``, else ``t.n``: a loop per storage kind (one
    byte: memchr), where reading every character through PyUnicode_READ decides the kind
    again for each one (the line search is most of the work: a text is compared whole when
    it is equal)."""
    cdef const void* hit
    cdef const uint16_t* p2
    cdef const uint32_t* p4
    if i >= t.n:
        return t.n
    if t.kind == 1:
        hit = memchr(t.data + i, 10, t.n - i)
        return t.n if hit == NULL else <const char*>hit - t.data
    if t.kind == 2:
        p2 = <const uint16_t*>t.data
        while i < t.n and p2[i] != 10:
            i += 1
        return i
    p4 = <const uint32_t*>t.data
    while i < t.n and p4[i] != 10:
        i += 1
    return i


cdef bint next_line(const text_t* t, cursor_t* c) noexcept nogil:
    """Read the line at ``c.pos`` into ``c`` (trimmed, unless it is inside a fence) and move
    on; False when there is no line left."""
    cdef Py_ssize_t pos = c.pos, i, e, ticks
    cdef Py_UCS4 ch
    if pos > t.n:
        return False
    i = newline_at_or_after(t, pos)
    c.pos = i + 1
    c.start = pos
    c.end = i
    c.verbatim = False
    if c.fence:
        ticks = fence_marks(t, pos, i, True, c.mark)
        if ticks < c.fence:
            c.verbatim = True  # part of the fence's value: \r and trailing blanks are text
            return True
        c.fence = 0
    else:
        c.mark = 96
        c.fence = fence_marks(t, pos, i, False, 96)
        if not c.fence:
            c.mark = 126
            c.fence = fence_marks(t, pos, i, False, 126)
            if c.fence and tilde_underline(t, pos, i, c.fence):
                c.fence = 0  # (a heading's underline: red team 128, F13)
    e = i
    if i < t.n and e > pos and char_at(t, e - 1) == 13:
        e -= 1  # the \r of a \r\n line ending
    while e > pos:
        ch = char_at(t, e - 1)
        if ch != 32 and ch != 9:
            break
        e -= 1
    c.end = e
    return True


cdef inline bint droppable(const cursor_t* c) noexcept nogil:
    """A blank line outside any fence (a line inside one is never dropped)."""
    return c.end == c.start and not c.verbatim


cdef bint first_line(const text_t* t, cursor_t* c) noexcept nogil:
    """Skip leading blank lines (no fence is open before the first line that is not blank);
    False when there is no other line."""
    c.pos = 0
    c.fence = 0
    while next_line(t, c):
        if not droppable(c):
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


cdef bint only_droppable_lines_left(const text_t* t, cursor_t* c, bint has_line) noexcept nogil:
    """Trailing blank lines are dropped, but not those of an unclosed fence (they are inside it)."""
    while has_line:
        if not droppable(c):
            return False
        has_line = next_line(t, c)
    return True


cdef bint same_lines(const text_t* a, const text_t* b) noexcept nogil:
    cdef cursor_t ca, cb
    cdef bint has_a = first_line(a, &ca)
    cdef bint has_b = first_line(b, &cb)
    while has_a and has_b:
        if not same_range(a, ca.start, ca.end, b, cb.start, cb.end):
            return False
        has_a = next_line(a, &ca)
        has_b = next_line(b, &cb)
    # whatever is left on either side must be dropped as trailing blank lines
    return only_droppable_lines_left(a, &ca, has_a) and only_droppable_lines_left(b, &cb, has_b)


cdef int check_pair_lists(object a, object b, str of) except -1:
    """``a`` and ``b`` as ``_textnorm_py.check_pairs`` / ``check_byte_pairs`` take them, but
    their items (checked on the snapshots, :func:`check_items`): the same errors, in the same
    order, without two Python calls and loops per call (a session's next edit makes two)."""
    if not isinstance(a, (list, tuple)):
        raise TypeError(f"a must be a list or tuple of {of}, not {type(a).__name__}")
    if not isinstance(b, (list, tuple)):
        raise TypeError(f"b must be a list or tuple of {of}, not {type(b).__name__}")
    if len(a) != len(b):
        raise InvalidArgumentError(f"a and b must have the same length, got {len(a)} and {len(b)}", argument="b")
    return 0


cdef int check_items(tuple a, tuple b, bint as_bytes) except -1:
    """The snapshots of ``a`` and ``b``: the same length, and every item of ``a``, then of
    ``b``, a str (``isinstance``) or exactly bytes, as the reference checks them."""
    cdef Py_ssize_t i
    if len(a) != len(b):
        raise InvalidArgumentError(f"a and b must have the same length, got {len(a)} and {len(b)}", argument="b")
    for texts, name in ((a, "a"), (b, "b")):
        for i in range(len(<tuple>texts)):
            text = (<tuple>texts)[i]
            if as_bytes:
                if type(text) is not bytes:
                    raise TypeError(f"{name}[{i}] must be bytes, not {type(text).__name__}")
            elif not isinstance(text, str):
                raise TypeError(f"{name}[{i}] must be str, not {type(text).__name__}")
    return 0


cdef int load_text(text_t* t, object s, str side, Py_ssize_t i) except -1:
    # the C-level test: an object whose __class__ says str passes isinstance (red team 39, 01)
    if not isinstance(s, str):
        raise TypeError(f"{side}[{i}] must be str, not {type(s).__name__}")
    PyUnicode_READY(s)
    t.kind = PyUnicode_KIND(s)
    t.data = <const char*>PyUnicode_DATA(s)
    t.n = PyUnicode_GET_LENGTH(s)
    return 0


def same_after_normalisation(a, b):
    check_pair_lists(a, b, "str")
    # every text stays alive while we read it; the snapshots are what is checked and read: a
    # list subclass may iterate other items, or fewer, the second time (red team 39, 02)
    cdef tuple keep_a = tuple(a), keep_b = tuple(b)
    check_items(keep_a, keep_b, False)
    cdef Py_ssize_t n = len(keep_a), i
    cdef cnp.ndarray out = np.empty(n, dtype=np.bool_)
    if n == 0:
        return out
    # one buffer of text_t, owned by a numpy array (freed with it, also on an error path)
    cdef cnp.ndarray texts = np.empty(2 * n * sizeof(text_t), dtype=np.uint8)
    cdef text_t* t = <text_t*>cnp.PyArray_DATA(texts)
    cdef unsigned char* p_out = <unsigned char*>cnp.PyArray_DATA(out)
    for i in range(n):
        load_text(&t[2 * i], keep_a[i], "a", i)
        load_text(&t[2 * i + 1], keep_b[i], "b", i)
    with nogil:
        for i in range(n):
            p_out[i] = same_lines(&t[2 * i], &t[2 * i + 1])
    return out


cdef inline bint is_space(unsigned char c) noexcept nogil:
    return c == 32 or 9 <= c <= 13


cdef inline bint is_word(unsigned char c) noexcept nogil:
    return (0x30 <= c <= 0x39) or (0x61 <= (c | 0x20) <= 0x7A) or c == 0x5F or c >= 0x80


cdef bint same_after_spaces(const unsigned char* a, Py_ssize_t na,
                            const unsigned char* b, Py_ssize_t nb, bint words) noexcept nogil:
    # Equal bytes are taken in pairs, eight at a time while they last (a re-indented text is
    # equal runs between its lines' starts); where they differ, spaces either side are passed
    # and the next bytes must be equal. Taking an equal pair is always right: after equal
    # prefixes with their spaces deleted, the next byte that is no space on each side is that
    # pair's, or both are spaces.
    # ``words``: and at each pair of word bytes after a word byte (spaces between aside) a
    # space right before it on both sides or on neither. An equal block (and the byte after
    # one) has the same byte before it on both sides, so only a pair taken after spaces were
    # passed on one side can split or join a word: read there alone, by looking back for the
    # last byte that is no space.
    cdef Py_ssize_t i = 0, j = 0, k
    cdef uint64_t x, y
    cdef unsigned char c
    while True:
        while i + 8 <= na and j + 8 <= nb:
            memcpy(&x, a + i, 8)
            memcpy(&y, b + j, 8)
            if x != y:
                break
            i += 8
            j += 8
        while i < na and is_space(a[i]):
            i += 1
        while j < nb and is_space(b[j]):
            j += 1
        if i == na or j == nb:
            return i == na and j == nb
        c = a[i]
        if c != b[j]:
            return False
        if (words and is_word(c) and (i > 0 and is_space(a[i - 1])) != (j > 0 and is_space(b[j - 1]))):
            k = i - 1
            while k >= 0 and is_space(a[k]):
                k -= 1
            if k >= 0 and is_word(a[k]):
                return False
        i += 1
        j += 1


cdef bint same_without_space_bytes(const unsigned char* a, Py_ssize_t na,
                                   const unsigned char* b, Py_ssize_t nb) noexcept nogil:
    return same_after_spaces(a, na, b, nb, False)


cdef bint same_words_bytes(const unsigned char* a, Py_ssize_t na,
                           const unsigned char* b, Py_ssize_t nb) noexcept nogil:
    return same_after_spaces(a, na, b, nb, True)


# a test of one pair of texts, read without the GIL
ctypedef bint (*pair_test)(const unsigned char*, Py_ssize_t, const unsigned char*, Py_ssize_t) noexcept nogil


cdef cnp.ndarray each_pair(a, b, pair_test test):
    """``test`` of each pair of ``a`` and ``b`` (lists of bytes), into a bool array."""
    check_pair_lists(a, b, "bytes")
    # the snapshots keep every text alive while it is read without the GIL, and are what is
    # checked (a list subclass may iterate other items the second time)
    cdef tuple keep_a = tuple(a), keep_b = tuple(b)
    check_items(keep_a, keep_b, True)
    cdef Py_ssize_t n = len(keep_a), i
    cdef cnp.ndarray out = np.empty(n, dtype=np.bool_)
    if n == 0:
        return out
    cdef cnp.ndarray pointers = np.empty(2 * n, dtype=np.uintp)
    cdef cnp.ndarray lengths = np.empty(2 * n, dtype=np.intp)
    cdef size_t* p = <size_t*>cnp.PyArray_DATA(pointers)
    cdef Py_ssize_t* length = <Py_ssize_t*>cnp.PyArray_DATA(lengths)
    cdef unsigned char* p_out = <unsigned char*>cnp.PyArray_DATA(out)
    for i in range(n):
        p[2 * i] = <size_t>PyBytes_AS_STRING(keep_a[i])
        length[2 * i] = PyBytes_GET_SIZE(keep_a[i])
        p[2 * i + 1] = <size_t>PyBytes_AS_STRING(keep_b[i])
        length[2 * i + 1] = PyBytes_GET_SIZE(keep_b[i])
    with nogil:
        for i in range(n):
            p_out[i] = test(<const unsigned char*>p[2 * i], length[2 * i],
                            <const unsigned char*>p[2 * i + 1], length[2 * i + 1])
    return out


def same_without_spaces(a, b):
    return each_pair(a, b, same_without_space_bytes)


def same_words(a, b):
    return each_pair(a, b, same_words_bytes)


cdef bint blank_before_break(const text_t* t) noexcept nogil:
    # each line break found (memchr over one-byte storage, which most texts are), the
    # character before it read
    cdef Py_ssize_t i
    cdef const char* at
    cdef const char* p
    cdef Py_UCS4 c
    if t.kind == 1:
        p = t.data
        while True:
            at = <const char*>memchr(p, 0x0A, <size_t>(t.data + t.n - p))
            if at == NULL:
                return False
            if at > t.data:
                c = <unsigned char>(at - 1)[0]
                if c == 0x20 or c == 0x09 or c == 0x0D:
                    return True
            p = at + 1
    for i in range(1, t.n):
        if char_at(t, i) == 0x0A:
            c = char_at(t, i - 1)
            if c == 0x20 or c == 0x09 or c == 0x0D:
                return True
    return False


def blank_before_line_break(text):
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    cdef text_t t
    PyUnicode_READY(text)
    t.kind = PyUnicode_KIND(text)
    t.data = <const char*>PyUnicode_DATA(text)
    t.n = PyUnicode_GET_LENGTH(text)
    cdef bint found
    with nogil:
        found = blank_before_break(&t)
    return found
