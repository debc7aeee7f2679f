"""The quotations a polarity rule asks, and whether a block's words outside its code spans may ask
for one (``asks_outside_code_spans``), native; the specification is ``provgate._quotations_py``.

The batch is checked at C speed, and by the reference's ``check_batch`` when it fails (one set
of messages); then every
text's buffer and columns are gathered with the GIL held (the argument tuples keep them alive),
and the rows are read without the GIL into arrays sized for every row, cut to the rows found.
"""

import numpy as np

cimport numpy as cnp
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memchr

from provgate._quotations_py import check_batch, check_words
from provgate.errors import InvalidArgumentError

cnp.import_array()

IMPLEMENTATION = "native"


cdef inline bint word_byte(uint8_t c) noexcept nogil:
    return (c >= 0x80 or c == 0x27 or c == 0x5F or 0x30 <= c <= 0x39 or 0x41 <= c <= 0x5A
            or 0x61 <= c <= 0x7A)


cdef bint two_words(const uint8_t* data, int64_t start, int64_t end) noexcept nogil:
    cdef int64_t i
    cdef int runs = 0
    cdef bint inside = False
    for i in range(start, end):
        if word_byte(data[i]):
            if not inside:
                runs += 1
                if runs == 2:
                    return True
            inside = True
        else:
            inside = False
    return False


cdef int64_t read_text(const uint8_t* data, int64_t size, const uint8_t* kind, const int64_t* start,
                       const int64_t* end, int64_t n, uint8_t quote_kind, int64_t owner,
                       int64_t* owners, int64_t* rows, int64_t found) noexcept nogil:
    # Returns the new count of rows found, or -1 - r when row r's words lie outside the text
    # (the caller raises: no Python object here).
    cdef int64_t r, s, e
    cdef int64_t code_start = -1, code_end = -1
    for r in range(n):
        if kind[r] != quote_kind:
            continue
        s = start[r]
        e = end[r]
        if s < 0 or e < s or e > size:
            return -1 - r
        if s > 0 and data[s - 1] == 0x60:
            code_start = s
            code_end = e
            continue
        if code_start <= s and e <= code_end:
            continue
        if two_words(data, s, e):
            owners[found] = owner
            rows[found] = r
            found += 1
    return found


cdef bint column_ok(object column, int type_num, Py_ssize_t n) noexcept:
    # (n < 0: any length) the reference's test, at C speed; a column failing it is named by
    # the reference's check_batch, so both implementations answer with one message
    if not isinstance(column, cnp.ndarray):
        return False
    cdef cnp.ndarray a = <cnp.ndarray>column
    return (cnp.PyArray_TYPE(a) == type_num and cnp.PyArray_NDIM(a) == 1 and cnp.PyArray_IS_C_CONTIGUOUS(a)
            and (n < 0 or cnp.PyArray_DIM(a, 0) == n))


cdef bint batch_ok(tuple datas, tuple kinds, tuple starts, tuple ends, object quote_kind) noexcept:
    cdef Py_ssize_t t, n = len(datas), rows
    if len(kinds) != n or len(starts) != n or len(ends) != n:
        return False
    if type(quote_kind) is not int or not 0 <= quote_kind <= 255:
        return False
    for t in range(n):
        if type(datas[t]) is not bytes or not column_ok(kinds[t], cnp.NPY_UINT8, -1):
            return False
        rows = cnp.PyArray_DIM(<cnp.ndarray>kinds[t], 0)
        if not column_ok(starts[t], cnp.NPY_INT64, rows) or not column_ok(ends[t], cnp.NPY_INT64, rows):
            return False
    return True


def asked_quotations(datas, kinds, starts, ends, quote_kind):
    for value in (datas, kinds, starts, ends):
        if not isinstance(value, (list, tuple)):
            check_batch(datas, kinds, starts, ends, quote_kind)  # (raises, naming the argument)
    # the snapshots are what is checked and read (a list subclass may iterate other items the
    # second time), and they keep every buffer alive while it is read without the GIL
    cdef tuple keep_data = tuple(datas), keep_kind = tuple(kinds), keep_start = tuple(starts), keep_end = tuple(ends)
    if not batch_ok(keep_data, keep_kind, keep_start, keep_end, quote_kind):
        check_batch(keep_data, keep_kind, keep_start, keep_end, quote_kind)
        # (check_batch names what is wrong; an array whose dtype attribute lies passes it)
        raise TypeError("asked_quotations: a malformed batch")
    cdef Py_ssize_t t, n_texts = len(keep_data)
    cdef int64_t total = 0
    cdef cnp.ndarray pointers = np.empty(4 * n_texts, dtype=np.uintp)
    cdef cnp.ndarray sizes = np.empty(2 * n_texts, dtype=np.int64)
    cdef size_t* p = <size_t*>cnp.PyArray_DATA(pointers)
    cdef int64_t* size = <int64_t*>cnp.PyArray_DATA(sizes)
    cdef cnp.ndarray column
    for t in range(n_texts):
        p[4 * t] = <size_t>PyBytes_AS_STRING(keep_data[t])
        size[2 * t] = PyBytes_GET_SIZE(keep_data[t])
        column = keep_kind[t]
        p[4 * t + 1] = <size_t>cnp.PyArray_DATA(column)
        size[2 * t + 1] = cnp.PyArray_DIM(column, 0)
        column = keep_start[t]
        p[4 * t + 2] = <size_t>cnp.PyArray_DATA(column)
        column = keep_end[t]
        p[4 * t + 3] = <size_t>cnp.PyArray_DATA(column)
        total += size[2 * t + 1]
    cdef cnp.ndarray owners = np.empty(total, dtype=np.int64)
    cdef cnp.ndarray rows = np.empty(total, dtype=np.int64)
    cdef int64_t* p_owner = <int64_t*>cnp.PyArray_DATA(owners)
    cdef int64_t* p_row = <int64_t*>cnp.PyArray_DATA(rows)
    cdef int64_t found = 0, bad_text = -1
    cdef uint8_t kind_wanted = <uint8_t>quote_kind
    with nogil:
        for t in range(n_texts):
            found = read_text(<const uint8_t*>p[4 * t], size[2 * t], <const uint8_t*>p[4 * t + 1],
                              <const int64_t*>p[4 * t + 2], <const int64_t*>p[4 * t + 3], size[2 * t + 1],
                              kind_wanted, t, p_owner, p_row, found)
            if found < 0:
                bad_text = t
                break
    if bad_text >= 0:
        r = -1 - found
        raise InvalidArgumentError(
            f"row {r} of text {bad_text}: words {keep_start[bad_text][r]}..{keep_end[bad_text][r]} "
            f"outside its {size[2 * bad_text]} bytes", argument="starts")
    return owners[:found].copy(), rows[:found].copy()


# -- asks_outside_code_spans ----------------------------------------------------------------------
# A word (1 to 16 bytes of 0-9 a-z _, none of them 0) is its bytes packed little-endian into two
# uint64, zero-padded: the pair is the word. The words sit in an open-addressing table of twice
# a power of two their count; a slot of (0, 0) is empty.

cdef inline bint ascii_word_byte(uint8_t c) noexcept nogil:
    return c == 0x5F or 0x30 <= c <= 0x39 or 0x41 <= c <= 0x5A or 0x61 <= c <= 0x7A


cdef inline uint64_t slot_of(uint64_t lo, uint64_t hi, uint64_t mask) noexcept nogil:
    return ((lo * <uint64_t>0x9E3779B97F4A7C15) ^ (hi * <uint64_t>0xC2B2AE3D27D4EB4F)) >> 17 & mask


cdef class _WordTable:
    """The words of one frozenset, as a table the scan reads without the GIL."""
    cdef uint64_t* keys  # 2 * (mask + 1): lo, hi of each slot
    cdef uint64_t mask

    def __cinit__(self, words):
        cdef uint64_t size = 16, lo, hi, k
        cdef bytes word
        cdef Py_ssize_t i
        while size < 2 * <uint64_t>len(words):
            size *= 2
        self.mask = size - 1
        self.keys = <uint64_t*>calloc(2 * size, sizeof(uint64_t))
        if self.keys == NULL:
            raise MemoryError()
        for word in words:
            lo = hi = 0
            for i in range(len(word)):
                if i < 8:
                    lo |= (<uint64_t>word[i]) << (8 * i)
                else:
                    hi |= (<uint64_t>word[i]) << (8 * (i - 8))
            k = slot_of(lo, hi, self.mask)
            while self.keys[2 * k] != 0 and not (self.keys[2 * k] == lo and self.keys[2 * k + 1] == hi):
                k = (k + 1) & self.mask
            self.keys[2 * k] = lo
            self.keys[2 * k + 1] = hi

    def __dealloc__(self):
        free(self.keys)


cdef bint table_has(const uint64_t* keys, uint64_t mask, uint64_t lo, uint64_t hi) noexcept nogil:
    cdef uint64_t k = slot_of(lo, hi, mask)
    while keys[2 * k] != 0:
        if keys[2 * k] == lo and keys[2 * k + 1] == hi:
            return True
        k = (k + 1) & mask
    return False


# (each byte's class for the scan below: 1 for a word byte (ascii_word_byte); and each byte
# lower-cased (an ASCII capital's small letter): a table look-up a byte, where four range tests,
# and a second read of each word's bytes to pack it, cost a next edit's changed turn ~30
# instructions a byte)
cdef uint8_t _WORD_BYTE[256]
cdef uint8_t _LOWER_BYTE[256]
cdef int _c
for _c in range(256):
    _WORD_BYTE[_c] = ascii_word_byte(<uint8_t>_c)
    _LOWER_BYTE[_c] = <uint8_t>(_c | 0x20) if 0x41 <= _c <= 0x5A else <uint8_t>_c


cdef bint scan_outside_spans(const uint8_t* d, Py_ssize_t n, const uint64_t* keys, uint64_t mask) noexcept nogil:
    # line by line: the backticks counted, then each word outside
    # the spans (or anywhere, on a line with an odd count) looked up, packed as it is read (its
    # first 8 bytes lower-cased into lo, the next 8 into hi: _WordTable's key; a word of more
    # than 16 is none of the table's); a word never holds a backtick or crosses a line
    cdef Py_ssize_t pos = 0, line_end, i, j, ticks
    cdef const uint8_t* nl
    cdef bint whole, outside
    cdef uint64_t lo, hi
    cdef uint8_t c
    while True:
        nl = <const uint8_t*>memchr(d + pos, 0x0A, <size_t>(n - pos)) if pos < n else NULL
        line_end = n if nl == NULL else nl - d
        ticks = 0
        for i in range(pos, line_end):  # (a count the compiler vectorises)
            ticks += d[i] == 0x60
        whole = ticks & 1
        outside = True
        i = pos
        while i < line_end:
            c = d[i]
            if c == 0x60:
                outside = not outside
                i += 1
            elif _WORD_BYTE[c]:
                lo = hi = 0
                j = i
                while j < line_end and _WORD_BYTE[d[j]]:
                    if j - i < 8:
                        lo |= (<uint64_t>_LOWER_BYTE[d[j]]) << (8 * (j - i))
                    elif j - i < 16:
                        hi |= (<uint64_t>_LOWER_BYTE[d[j]]) << (8 * (j - i - 8))
                    j += 1
                if (whole or outside) and j - i <= 16 and table_has(keys, mask, lo, hi):
                    return True
                i = j
            else:
                i += 1
        if nl == NULL:
            return False
        pos = line_end + 1


# the tables made, by their frozenset (a few: the gate asks with one)
_tables = {}


def asks_outside_code_spans(data, words):
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    cdef _WordTable table = _tables.get(words) if type(words) is frozenset else None
    if table is None:
        check_words(words)  # (raises as the reference does)
        if len(_tables) >= 8:
            _tables.clear()
        table = _tables[words] = _WordTable(words)
    cdef const uint8_t* d = <const uint8_t*>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef bint found
    with nogil:
        found = scan_outside_spans(d, n, table.keys, table.mask)
    return found
