# Unicode whitespace (the White_Space property, provgate._search_py.WHITESPACE) as UTF-8 byte
# sequences: shared by the whitespace-normalised search and the citation scanner, which must
# agree on what a run of whitespace is (a quotation of only no-break spaces holds no text).
from _types cimport byte_t, offset_t


cdef inline offset_t whitespace_length(const byte_t* p, offset_t avail) noexcept nogil:
    """Length of the whitespace sequence at p (``avail`` bytes readable, at least 1), or 0."""
    cdef byte_t b = p[0]
    if b == 0x20 or (b >= 0x09 and b <= 0x0D):
        return 1
    if b < 0xC2 or b > 0xE3:
        return 0
    if b == 0xC2:
        return 2 if avail >= 2 and (p[1] == 0x85 or p[1] == 0xA0) else 0
    if avail < 3:
        return 0
    if b == 0xE1:
        return 3 if p[1] == 0x9A and p[2] == 0x80 else 0
    if b == 0xE2:
        if p[1] == 0x80:
            # U+2000..U+200A, U+2028, U+2029, U+202F
            return 3 if (0x80 <= p[2] <= 0x8A) or p[2] == 0xA8 or p[2] == 0xA9 or p[2] == 0xAF else 0
        return 3 if p[1] == 0x81 and p[2] == 0x9F else 0
    if b == 0xE3:
        return 3 if p[1] == 0x80 and p[2] == 0x80 else 0
    return 0
