"""Citation scanner, native: the quotations, citation markers and unmarked quotes of an answer
in one pass over its bytes, without the GIL.

The specification is ``provgate._citations_py`` (the rules of ``docs/reconstruction.md`` as
code); this module must return identical arrays for every input. Each function below is the
function of the same name there, over a byte pointer instead of a ``bytes`` object; every
backwards search is bounded as there (by the paragraph and by the previous marker group), so
the whole scan is linear in the answer. Rows grow in C vectors (freed in ``finally``) and are
copied into numpy arrays at the end.
"""

import numpy as np

cimport numpy as cnp
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from libc.stdlib cimport free, realloc
from libc.string cimport memchr, memcmp, memcpy, memset

from _types cimport byte_t, offset_t
from _whitespace cimport whitespace_length

from provgate._citations_py import (
    _FORWARD_MARKS, _GAP_BYTES, _GAP_CHARS_2, _GAP_CHARS_3, _PLAIN_GAP_BYTES, _PLAIN_GAP_CHARS, FORMS,
    MAX_NAME_BYTES,
)

cnp.import_array()

IMPLEMENTATION = "native"

cdef enum Form:
    DOUBLE = 0
    CURLY = 1
    SINGLE = 2
    CURLY_SINGLE = 3
    BACKTICK = 4
    BLOCKQUOTE = 5
    FENCE = 6
    UNREADABLE = 7
    GUILLEMET = 8
    CORNER = 9

cdef enum:
    NAME_LIMIT = 256   # MAX_NAME_BYTES; checked against the reference at import
    QUOTE_WIDTH = 5    # start, end, form, seg_lo, seg_hi
    FORWARD_MARKS = 4  # _FORWARD_MARKS; checked likewise

if NAME_LIMIT != MAX_NAME_BYTES or FORWARD_MARKS != _FORWARD_MARKS:  # pragma: no cover - a changed reference
    raise ImportError("provgate._ext.citations was built for another MAX_NAME_BYTES or _FORWARD_MARKS")

# byte classes
cdef bint IS_ASCII_WS[256]  # space \t \n \r \v \f
cdef bint IS_NAME[256]      # bytes of a marker name: not 0x00-0x20, 0x7F, "[" or "]"
cdef bint IS_ASCII_ALNUM[256]  # ASCII letters and digits
cdef bint IS_GAP[256]       # what may stand between a closing delimiter and its group: _GAP_BYTES
cdef bint IS_GAP3_LEAD[256]  # the first bytes of _GAP_CHARS_3
cdef bint IS_PLAIN_GAP[256]  # _PLAIN_GAP
cdef bint IS_COMPARED[256]  # after a `>`, what makes it a comparison: _COMPARED
cdef bint IS_KEPT[256]      # gap bytes quoted at the end of a line's text: _KEPT_BYTES
cdef int _b
for _b in range(256):
    IS_ASCII_WS[_b] = _b in (0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C)
    IS_NAME[_b] = not (_b <= 0x20 or _b == 0x7F or _b == 0x5B or _b == 0x5D)
    IS_ASCII_ALNUM[_b] = (0x30 <= _b <= 0x39) or (0x41 <= _b <= 0x5A) or (0x61 <= _b <= 0x7A)
    IS_GAP[_b] = _b in _GAP_BYTES
    IS_GAP3_LEAD[_b] = any(c[0] == _b for c in _GAP_CHARS_3)
    IS_PLAIN_GAP[_b] = _b in _PLAIN_GAP_BYTES
    IS_COMPARED[_b] = _b in b"=<+-.0123456789"
    IS_KEPT[_b] = _b in b".,;:!?)*_"


# the characters of _GAP_CHARS_2 and _GAP_CHARS_3 as codes (see code_at), taken from the
# reference so that the two lists cannot drift apart
cdef enum:
    GAP_CODES_MAX = 64
cdef int GAP2[GAP_CODES_MAX]
cdef int GAP3[GAP_CODES_MAX]
cdef int GAP2_COUNT = 0, GAP3_COUNT = 0
cdef int PLAIN3[GAP_CODES_MAX]  # the three-byte characters of _PLAIN_GAP_CHARS
cdef int PLAIN3_COUNT = 0
if len(_GAP_CHARS_2) > GAP_CODES_MAX or len(_GAP_CHARS_3) > GAP_CODES_MAX:  # pragma: no cover
    raise ImportError("provgate._ext.citations: more gap characters than GAP_CODES_MAX")
for _c in sorted(_GAP_CHARS_2):
    GAP2[GAP2_COUNT] = (_c[0] << 8) | _c[1]
    GAP2_COUNT += 1
for _c in sorted(_GAP_CHARS_3):
    GAP3[GAP3_COUNT] = (_c[0] << 16) | (_c[1] << 8) | _c[2]
    GAP3_COUNT += 1
if sorted(len(_c) for _c in _PLAIN_GAP_CHARS)[:1] != [2] or sum(len(_c) == 2 for _c in _PLAIN_GAP_CHARS) != 1:
    raise ImportError("provgate._ext.citations reads one two-byte plain gap character, U+00A0")  # pragma: no cover
for _c in sorted(_PLAIN_GAP_CHARS):
    if len(_c) == 3:
        PLAIN3[PLAIN3_COUNT] = (_c[0] << 16) | (_c[1] << 8) | _c[2]
        PLAIN3_COUNT += 1


# Quotation marks as codes: the UTF-8 bytes of one character, big-endian in an int.
cdef enum:
    LEFT_GUILLEMET = 0xC2AB        # «
    RIGHT_GUILLEMET = 0xC2BB       # »
    LEFT_SINGLE = 0xE28098         # ‘
    RIGHT_SINGLE = 0xE28099        # ’
    LOW_SINGLE = 0xE2809A          # ‚
    LEFT_DOUBLE = 0xE2809C         # “
    RIGHT_DOUBLE = 0xE2809D        # ”
    LOW_DOUBLE = 0xE2809E          # „
    LEFT_SINGLE_GUILLEMET = 0xE280B9   # ‹
    RIGHT_SINGLE_GUILLEMET = 0xE280BA  # ›
    LEFT_CORNER = 0xE3808C         # 「
    RIGHT_CORNER = 0xE3808D        # 」
    LEFT_WHITE_CORNER = 0xE3808E   # 『
    RIGHT_WHITE_CORNER = 0xE3808F  # 』


cdef struct Pair:  # a row of _citations_py._PAIRS
    int width
    int closer
    int opener
    int other_opener  # 0: none
    bint same         # the closing mark opens too when no opener is there
    int form

cdef enum:
    PAIR_COUNT = 9

cdef Pair PAIRS[PAIR_COUNT]
PAIRS[0] = Pair(3, RIGHT_DOUBLE, LEFT_DOUBLE, LOW_DOUBLE, True, CURLY)
PAIRS[1] = Pair(3, LEFT_DOUBLE, LOW_DOUBLE, 0, False, CURLY)
PAIRS[2] = Pair(3, LEFT_SINGLE, LOW_SINGLE, 0, False, CURLY_SINGLE)
PAIRS[3] = Pair(2, RIGHT_GUILLEMET, LEFT_GUILLEMET, 0, True, GUILLEMET)
PAIRS[4] = Pair(2, LEFT_GUILLEMET, RIGHT_GUILLEMET, 0, False, GUILLEMET)
PAIRS[5] = Pair(3, RIGHT_SINGLE_GUILLEMET, LEFT_SINGLE_GUILLEMET, 0, True, GUILLEMET)
PAIRS[6] = Pair(3, LEFT_SINGLE_GUILLEMET, RIGHT_SINGLE_GUILLEMET, 0, False, GUILLEMET)
PAIRS[7] = Pair(3, RIGHT_CORNER, LEFT_CORNER, 0, False, CORNER)
PAIRS[8] = Pair(3, RIGHT_WHITE_CORNER, LEFT_WHITE_CORNER, 0, False, CORNER)


# ---- growable vectors of offsets ---------------------------------------------------------------

cdef struct Vec:
    offset_t* v
    offset_t n
    offset_t cap


cdef bint vec_grow(Vec* a, offset_t need) noexcept nogil:
    """Room for ``need`` more values; False when memory ran out."""
    cdef offset_t cap
    cdef offset_t* grown
    if a.n + need <= a.cap:
        return True
    cap = max(a.cap * 2, a.n + need, 64)
    grown = <offset_t*>realloc(a.v, <size_t>cap * sizeof(offset_t))
    if grown == NULL:
        return False
    a.v = grown
    a.cap = cap
    return True


cdef inline bint push2(Vec* a, offset_t x, offset_t y) noexcept nogil:
    if not vec_grow(a, 2):
        return False
    a.v[a.n] = x
    a.v[a.n + 1] = y
    a.n += 2
    return True


cdef inline bint push3(Vec* a, offset_t x, offset_t y, offset_t z) noexcept nogil:
    if not vec_grow(a, 3):
        return False
    a.v[a.n] = x
    a.v[a.n + 1] = y
    a.v[a.n + 2] = z
    a.n += 3
    return True


cdef inline bint push4(Vec* a, offset_t w, offset_t x, offset_t y, offset_t z) noexcept nogil:
    if not vec_grow(a, 4):
        return False
    a.v[a.n] = w
    a.v[a.n + 1] = x
    a.v[a.n + 2] = y
    a.v[a.n + 3] = z
    a.n += 4
    return True


cdef inline bint push5(Vec* a, offset_t s, offset_t e, offset_t f, offset_t lo, offset_t hi) noexcept nogil:
    if not vec_grow(a, 5):
        return False
    a.v[a.n] = s
    a.v[a.n + 1] = e
    a.v[a.n + 2] = f
    a.v[a.n + 3] = lo
    a.v[a.n + 4] = hi
    a.n += 5
    return True


# ---- the scanner state -------------------------------------------------------------------------

cdef struct Scan:
    const byte_t* p
    offset_t n
    Vec fences     # open_line, content_start, content_end, close_end
    Vec bounds     # paragraph boundaries, ascending
    Vec groups     # start, end, first marker row, marker count
    Vec marks      # start, end of every marker (in groups)
    Vec quotes     # QUOTE_WIDTH per carried quotation
    Vec markers    # quote row, start, end
    Vec segments   # start, end
    Vec pairs      # start, end, form, match start, match end of each paragraph's double and curly pairs
    Vec unmarked   # QUOTE_WIDTH per unmarked quotation (inline ones)
    Vec unmarked_bq  # QUOTE_WIDTH per unmarked blockquote
    Vec claimed    # quotation start, group end
    Vec lines      # scratch: (start, end) of blockquote lines, bottom up
    Vec bq_lines   # the start of every `>` line, ascending
    offset_t tally_pos  # open_before: the quotation marks before tally_pos are counted
    offset_t tally[6]
    bint oom
    offset_t pair_cursor  # pairs before it open before every bound asked since (first_pair_from)


cdef offset_t rfind_byte(const byte_t* p, offset_t lo, offset_t hi, byte_t b) noexcept nogil:
    """Last i in [lo, hi) with p[i] == b, or -1 (bytes.rfind)."""
    cdef offset_t i = hi - 1
    while i >= lo:
        if p[i] == b:
            return i
        i -= 1
    return -1


cdef offset_t find_byte(const byte_t* p, offset_t lo, offset_t hi, byte_t b) noexcept nogil:
    cdef const byte_t* hit
    if hi <= lo:
        return -1
    hit = <const byte_t*>memchr(p + lo, b, <size_t>(hi - lo))
    return -1 if hit == NULL else hit - p


cdef offset_t find3(const byte_t* p, offset_t lo, offset_t hi, byte_t a, byte_t b, byte_t c) noexcept nogil:
    """First i in [lo, hi - 3] where the three bytes a b c start, or -1."""
    cdef offset_t i = find_byte(p, lo, hi - 2, a)
    while i >= 0:
        if p[i + 1] == b and p[i + 2] == c:
            return i
        i = find_byte(p, i + 1, hi - 2, a)
    return -1


cdef inline int code_at(const byte_t* p, offset_t i, int width) noexcept nogil:
    """The character of ``width`` bytes at ``i`` as a code (the caller keeps it in bounds)."""
    if width == 2:
        return (p[i] << 8) | p[i + 1]
    return (p[i] << 16) | (p[i + 1] << 8) | p[i + 2]


cdef inline int code_at1(const byte_t* p, offset_t i, int width) noexcept nogil:
    """The character of ``width`` bytes (1, 2 or 3) at ``i`` as a code."""
    if width == 1:
        return p[i]
    return code_at(p, i, width)


cdef offset_t find_code(const byte_t* p, offset_t lo, offset_t hi, int width, int code) noexcept nogil:
    """First i in [lo, hi - width] where the character ``code`` starts, or -1."""
    cdef offset_t i = find_byte(p, lo, hi - width + 1, <byte_t>(code >> (8 * (width - 1))))
    while i >= 0:
        if code_at(p, i, width) == code:
            return i
        i = find_byte(p, i + 1, hi - width + 1, <byte_t>(code >> (8 * (width - 1))))
    return -1


cdef offset_t count_code(const byte_t* p, offset_t lo, offset_t hi, int width, int code) noexcept nogil:
    cdef offset_t count = 0, i = find_code(p, lo, hi, width, code)
    while i >= 0:
        count += 1
        i = find_code(p, i + width, hi, width, code)
    return count


cdef inline bint has_text(const byte_t* p, offset_t start, offset_t end) noexcept nogil:
    """Does ``p[start:end]`` hold a character that is not whitespace (Unicode White_Space:
    a quotation of no-break spaces holds no text; red team 33, 01)?"""
    cdef offset_t i = start, w
    while i < end:
        w = whitespace_length(p + i, end - i)
        if w == 0:
            return True
        i += w
    return False


cdef offset_t marker_end(const byte_t* p, offset_t j, offset_t limit) noexcept nogil:
    """End of the marker ``[src:NAME]`` starting at j and ending by ``limit``, or -1."""
    cdef offset_t k = 0
    if j + 7 > limit or memcmp(p + j, b"[src:", 5) != 0:
        return -1
    while j + 5 + k < limit and k <= NAME_LIMIT and IS_NAME[p[j + 5 + k]]:
        k += 1
    if k < 1 or k > NAME_LIMIT or j + 5 + k >= limit or p[j + 5 + k] != 0x5D:
        return -1
    return j + 6 + k


cdef bint has_marker(const byte_t* p, offset_t start, offset_t end) noexcept nogil:
    """A whole marker inside [start, end) (re.search on the range)."""
    cdef offset_t j = find_byte(p, start, end, 0x5B)
    while j >= 0:
        if marker_end(p, j, end) >= 0:
            return True
        j = find_byte(p, j + 1, end, 0x5B)
    return False


cdef inline offset_t line_start(const byte_t* p, offset_t pos) noexcept nogil:
    return rfind_byte(p, 0, pos, 0x0A) + 1


cdef inline offset_t line_end(const byte_t* p, offset_t n, offset_t pos) noexcept nogil:
    cdef offset_t e = find_byte(p, pos, n, 0x0A)
    return n if e < 0 else e


cdef offset_t blockquote_prefix(const byte_t* p, offset_t start, offset_t limit) noexcept nogil:
    """Length of `` {0,3}> ?`` matched at start within [start, limit), or -1."""
    cdef offset_t i = start
    while i < limit and i - start < 3 and p[i] == 0x20:
        i += 1
    if i >= limit or p[i] != 0x3E:
        return -1
    i += 1
    if i < limit and p[i] == 0x20:
        i += 1
    return i - start


cdef offset_t prefix_end(const byte_t* p, offset_t start, offset_t limit, bint* kept) noexcept nogil:
    """_citations_py._prefix_end: where the blockquote prefix at ``start`` ends within
    [start, limit), or -1; ``kept``: its ``>`` stays in the text, a comparison (``>= 5``)."""
    cdef offset_t m = blockquote_prefix(p, start, limit), end
    kept[0] = False
    if m < 0:
        return -1
    end = start + m
    if p[end - 1] == 0x20 or end >= limit or not IS_COMPARED[p[end]]:
        return end
    kept[0] = True
    return end - 1


cdef offset_t prefixes(const byte_t* p, offset_t start, offset_t limit, offset_t* end) noexcept nogil:
    """_citations_py._prefixes: how many blockquote prefixes follow one another from ``start``
    within [start, limit); ``end``: where the last one ends (``start`` when there is none)."""
    cdef offset_t depth = 0, at = start, e
    cdef bint kept = False
    while not kept:
        e = prefix_end(p, at, limit, &kept)
        if e < 0:
            break
        depth += 1
        at = e
    end[0] = at
    return depth


cdef offset_t strip_prefixes(const byte_t* p, offset_t start, offset_t limit, offset_t levels) noexcept nogil:
    """Where the first ``levels`` blockquote prefixes from ``start`` end (all when fewer)."""
    cdef offset_t at = start, e, k
    cdef bint kept = False
    for k in range(levels):
        e = prefix_end(p, at, limit, &kept)
        if e < 0:
            break
        at = e
        if kept:
            break
    return at


cdef offset_t shared_depth_step(const byte_t* p, offset_t start, offset_t end, offset_t depth) noexcept nogil:
    """_citations_py._shared_depth over one more line [start, end): the least depth of the
    lines that hold text after all their prefixes, 0 while there is none."""
    cdef offset_t text, d = prefixes(p, start, end, &text)
    if d > 0 and has_text(p, text, end) and (depth == 0 or d < depth):
        return d
    return depth


# ---- structure ---------------------------------------------------------------------------------

cdef void find_fences(Scan* s) noexcept nogil:
    cdef const byte_t* p = s.p
    cdef offset_t n = s.n, ls = 0, le, i, r, k
    cdef offset_t open_line = -1, content_start = 0, open_len = 0, content_end
    cdef byte_t open_char = 0, c
    cdef bint rest_has_backtick, rest_blank_
    while ls <= n:
        le = line_end(p, n, ls)
        i = ls
        while i < le and i - ls < 3 and p[i] == 0x20:
            i += 1
        if i < le and (p[i] == 0x60 or p[i] == 0x7E):
            c = p[i]
            r = 0
            while i + r < le and p[i + r] == c:
                r += 1
            if r >= 3:
                rest_has_backtick = find_byte(p, i + r, le, 0x60) >= 0
                rest_blank_ = True
                for k in range(i + r, le):
                    if not (p[k] == 0x20 or p[k] == 0x09 or p[k] == 0x0D):
                        rest_blank_ = False
                        break
                if open_line < 0:
                    if not (c == 0x60 and rest_has_backtick):
                        open_line = ls
                        content_start = min(le + 1, n)
                        open_char = c
                        open_len = r
                elif c == open_char and r >= open_len and rest_blank_:
                    content_end = max(ls - 1, content_start)
                    if content_end > content_start and p[content_end - 1] == 0x0D:
                        content_end -= 1
                    if not push4(&s.fences, open_line, content_start, content_end, le):
                        s.oom = True
                        return
                    open_line = -1
        if le >= n:
            break
        ls = le + 1
    if open_line >= 0:
        if not push4(&s.fences, open_line, content_start, content_start, n):
            s.oom = True


cdef void find_bounds(Scan* s) noexcept nogil:
    """Blank lines (``\\n[ \\t\\r]*\\n``, non-overlapping, left to right) and fence lines,
    merged into one ascending list."""
    cdef const byte_t* p = s.p
    cdef offset_t n = s.n, i = 0, j, f = 0, nf = s.fences.n // 4, blank
    cdef Vec blanks
    blanks.v = NULL
    blanks.n = 0
    blanks.cap = 0
    while i < n:
        i = find_byte(p, i, n, 0x0A)
        if i < 0:
            break
        j = i + 1
        while j < n and (p[j] == 0x20 or p[j] == 0x09 or p[j] == 0x0D):
            j += 1
        if j < n and p[j] == 0x0A:
            if not push2(&blanks, i + 1, 0):
                s.oom = True
                free(blanks.v)
                return
            i = j + 1
        else:
            i += 1
    # merge: blank bounds ascend, fence bounds (open_line, close_end) ascend
    cdef offset_t a = 0, na = blanks.n // 2, fb
    cdef offset_t fk = 0, nfb = 2 * nf
    while a < na or fk < nfb:
        fb = s.fences.v[4 * (fk // 2) + (0 if fk % 2 == 0 else 3)] if fk < nfb else -1
        if fk >= nfb or (a < na and blanks.v[2 * a] <= fb):
            blank = blanks.v[2 * a]
            a += 1
        else:
            blank = fb
            fk += 1
        if not vec_grow(&s.bounds, 1):
            s.oom = True
            break
        s.bounds.v[s.bounds.n] = blank
        s.bounds.n += 1
    free(blanks.v)


cdef void find_blockquote_lines(Scan* s) noexcept nogil:
    """The start of every ``>`` line (_citations_py's ``blockquote_lines``) into
    ``s.bq_lines``; sets ``s.oom`` on failure to grow."""
    cdef const byte_t* p = s.p
    cdef offset_t n = s.n, ls = 0, le
    while ls <= n:
        le = line_end(p, n, ls)
        if blockquote_prefix(p, ls, le) >= 0:
            if not vec_grow(&s.bq_lines, 1):
                s.oom = True
                return
            s.bq_lines.v[s.bq_lines.n] = ls
            s.bq_lines.n += 1
        if le >= n:
            break
        ls = le + 1


cdef void find_groups(Scan* s) noexcept nogil:
    cdef const byte_t* p = s.p
    cdef offset_t n = s.n, i = 0, j, e, g_end = -1, k, last
    cdef bint gap_blank, listed
    while i < n:
        j = find_byte(p, i, n, 0x5B)
        if j < 0:
            break
        e = marker_end(p, j, n)
        if e < 0:
            i = j + 1
            continue
        gap_blank = False  # (blanks, and one comma or semicolon: _GROUP)
        if s.groups.n and g_end >= 0:
            gap_blank = True
            listed = False
            for k in range(g_end, j):
                if (p[k] == 0x2C or p[k] == 0x3B) and not listed:
                    listed = True
                elif not (p[k] == 0x20 or p[k] == 0x09):
                    gap_blank = False
                    break
        if not push2(&s.marks, j, e):
            s.oom = True
            return
        if gap_blank:
            last = s.groups.n - 4
            s.groups.v[last + 1] = e
            s.groups.v[last + 3] += 1
        else:
            if not push4(&s.groups, j, e, s.marks.n // 2 - 1, 1):
                s.oom = True
                return
        g_end = e
        i = e


cdef offset_t first_ending_after(const offset_t* v, offset_t count, int width, int end_col,
                                 offset_t pos) noexcept nogil:
    """Index of the first of ``count`` records (``width`` offsets each, in order, their ends at
    ``end_col`` sorted) whose end is > pos (bisect_right on the ends)."""
    cdef offset_t lo = 0, hi = count, mid
    while lo < hi:
        mid = (lo + hi) // 2
        if v[width * mid + end_col] <= pos:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef offset_t fence_after(const Scan* s, offset_t pos) noexcept nogil:
    """Index of the first fence whose close_end is > pos."""
    return first_ending_after(s.fences.v, s.fences.n // 4, 4, 3, pos)


cdef bint in_fence(const Scan* s, offset_t pos) noexcept nogil:
    cdef offset_t k = fence_after(s, pos)
    return k < s.fences.n // 4 and s.fences.v[4 * k] <= pos


cdef bint touches_fence(const Scan* s, offset_t start, offset_t end) noexcept nogil:
    cdef offset_t k = fence_after(s, start)
    return k < s.fences.n // 4 and s.fences.v[4 * k] < end


cdef offset_t lower_bound(const Scan* s, offset_t pos) noexcept nogil:
    """The greatest paragraph boundary <= pos, or 0."""
    cdef offset_t lo = 0, hi = s.bounds.n, mid
    while lo < hi:
        mid = (lo + hi) // 2
        if s.bounds.v[mid] <= pos:
            lo = mid + 1
        else:
            hi = mid
    return s.bounds.v[lo - 1] if lo > 0 else 0


cdef offset_t first_blockquote_line(const Scan* s, offset_t ls) noexcept nogil:
    """_citations_py's ``first_blockquote_line``: the start of the first ``>`` line of the
    paragraph of the line at ``ls`` if it is that line or one above it, else -1."""
    cdef offset_t lo = 0, hi = s.bq_lines.n, mid, bound = lower_bound(s, ls)
    while lo < hi:  # bisect_left of the paragraph's bound
        mid = (lo + hi) // 2
        if s.bq_lines.v[mid] < bound:
            lo = mid + 1
        else:
            hi = mid
    if lo < s.bq_lines.n and s.bq_lines.v[lo] <= ls:
        return s.bq_lines.v[lo]
    return -1


# ---- the quotation a group carries --------------------------------------------------------------

cdef bint lines_have_text(const Scan* s, offset_t first) noexcept nogil:
    """Does one of the lines ``s.lines[first:]`` (start, end pairs) hold text?"""
    cdef offset_t k
    for k in range(first, s.lines.n // 2):
        if has_text(s.p, s.lines.v[2 * k], s.lines.v[2 * k + 1]):
            return True
    return False


cdef bint blockquote_lines(Scan* s, offset_t start, offset_t end) noexcept nogil:
    """Into ``s.lines``, top down: the text of each line of ``[start, end)`` without its
    blockquote prefixes (_citations_py._blockquote_lines), when the span crosses a line break
    and its first line is a ``>`` line; else False (``s.oom`` on failure to grow)."""
    cdef const byte_t* p = s.p
    cdef offset_t brk = find_byte(p, start, end, 0x0A), e, at = start, depth, b, row, text
    if brk < 0:
        return False
    depth = prefixes(p, line_start(p, start), start, &text)
    if depth == 0:
        return False
    b = brk
    while b >= 0:
        row = b + 1
        depth = shared_depth_step(p, row, min(line_end(p, s.n, row), end), depth)
        b = find_byte(p, row, end, 0x0A)
    s.lines.n = 0
    b = brk
    while b >= 0:
        e = b - 1 if b > at and p[b - 1] == 0x0D else b
        if not push2(&s.lines, at, e):
            s.oom = True
            return False
        row = b + 1
        at = strip_prefixes(p, row, line_end(p, s.n, row), depth)
        b = find_byte(p, row, end, 0x0A)
    if not push2(&s.lines, at if at < end else end, end):
        s.oom = True
        return False
    return True


cdef bint quoted(Scan* s, offset_t start, offset_t end, offset_t form, offset_t* out) noexcept nogil:
    cdef offset_t k, lo = 0, hi = 0
    if blockquote_lines(s, start, end):
        if not lines_have_text(s, 0):
            return False
        lo = s.segments.n // 2
        for k in range(s.lines.n // 2):
            if not push2(&s.segments, s.lines.v[2 * k], s.lines.v[2 * k + 1]):
                s.oom = True
                return False
        hi = s.segments.n // 2
    elif s.oom or not has_text(s.p, start, end):
        return False
    out[0] = start
    out[1] = end
    out[2] = form
    out[3] = lo
    out[4] = hi
    return True


cdef offset_t padding_length(const byte_t* p, offset_t i, offset_t end) noexcept nogil:
    """Length of a _GUILLEMET_PADDING character starting at ``i`` within ``[i, end)``, or 0."""
    if i < end and (p[i] == 0x20 or p[i] == 0x09):
        return 1
    if i + 2 <= end and p[i] == 0xC2 and p[i + 1] == 0xA0:
        return 2
    if i + 3 <= end and p[i] == 0xE2 and p[i + 1] == 0x80 and (p[i + 2] == 0xAF or p[i + 2] == 0x89):
        return 3
    return 0


cdef offset_t padding_before(const byte_t* p, offset_t start, offset_t end) noexcept nogil:
    """Length of a _GUILLEMET_PADDING character ending at ``end`` within ``[start, end)``, or 0."""
    if end > start and (p[end - 1] == 0x20 or p[end - 1] == 0x09):
        return 1
    if end - 2 >= start and p[end - 2] == 0xC2 and p[end - 1] == 0xA0:
        return 2
    if end - 3 >= start and p[end - 3] == 0xE2 and p[end - 2] == 0x80 and (p[end - 1] == 0xAF or p[end - 1] == 0x89):
        return 3
    return 0


cdef bint between(Scan* s, offset_t opener, offset_t opener_len, offset_t close, offset_t form,
                  offset_t* out) noexcept nogil:
    cdef offset_t start, w
    if opener < 0:
        return False
    start = opener + opener_len
    if form == GUILLEMET:
        w = padding_length(s.p, start, close)
        while w > 0:
            start += w
            w = padding_length(s.p, start, close)
        w = padding_before(s.p, start, close)
        while w > 0:
            close -= w
            w = padding_before(s.p, start, close)
    return quoted(s, start, close, form, out)


cdef bint can_open(const byte_t* p, offset_t at) noexcept nogil:
    return not IS_ASCII_WS[p[at + 1]] and not (at > 0 and IS_ASCII_ALNUM[p[at - 1]])


cdef bint any_quote_mark(const byte_t* p, offset_t lo, offset_t hi) noexcept nogil:
    """Whether a character of _ANY_QUOTE_MARK stands in [lo, hi): every quotation mark, a
    ' or ’ only when no ASCII letter or digit comes right before it."""
    cdef offset_t i
    cdef byte_t b, c
    for i in range(lo, hi):
        b = p[i]
        if b == 0x22 or b == 0x60:
            return True
        if b == 0x27:
            if not (i > 0 and IS_ASCII_ALNUM[p[i - 1]]):
                return True
        elif b == 0xC2:
            if i + 2 <= hi and (p[i + 1] == 0xAB or p[i + 1] == 0xBB):
                return True
        elif b == 0xE2:
            if i + 3 <= hi and p[i + 1] == 0x80:
                c = p[i + 2]
                if c == 0x98 or 0x9A <= c <= 0x9F or c == 0xB9 or c == 0xBA:
                    return True
                if c == 0x99 and not (i > 0 and IS_ASCII_ALNUM[p[i - 1]]):
                    return True
        elif b == 0xE3:
            if i + 3 <= hi and p[i + 1] == 0x80 and (0x8C <= p[i + 2] <= 0x8F or 0x9D <= p[i + 2] <= 0x9F):
                return True
        elif b == 0xEF:
            if i + 3 <= hi and p[i + 1] == 0xBC and (p[i + 2] == 0x82 or p[i + 2] == 0x87):
                return True
    return False


cdef bint is_measure(const byte_t* p, offset_t lo, offset_t close) noexcept nogil:
    return close > lo and 0x30 <= p[close - 1] <= 0x39 and not any_quote_mark(p, lo, close)


cdef bint open_before(Scan* s, offset_t lo) noexcept nogil:
    """Whether a quotation is left open before lo (_Scanner._open_before): the marks are
    counted from where the last call stopped, the bounds of successive groups never going
    back (recounted from 0 if one did)."""
    cdef const byte_t* p = s.p
    cdef offset_t i
    cdef int code
    if lo < s.tally_pos:
        s.tally_pos = 0
        memset(s.tally, 0, sizeof(s.tally))
    i = s.tally_pos
    while i < lo:
        if p[i] == 0x22:
            s.tally[0] += 1
        elif p[i] == 0xC2 and i + 2 <= lo:
            code = code_at(p, i, 2)
            if code == LEFT_GUILLEMET or code == RIGHT_GUILLEMET:
                s.tally[2] += 1
        elif (p[i] == 0xE2 or p[i] == 0xE3) and i + 3 <= lo:
            code = code_at(p, i, 3)
            if code == LEFT_DOUBLE or code == RIGHT_DOUBLE or code == LOW_DOUBLE:
                s.tally[1] += 1
            elif code == LEFT_SINGLE_GUILLEMET or code == RIGHT_SINGLE_GUILLEMET:
                s.tally[3] += 1
            elif code == LEFT_CORNER:
                s.tally[4] += 1
            elif code == RIGHT_CORNER:
                s.tally[4] -= 1
            elif code == LEFT_WHITE_CORNER:
                s.tally[5] += 1
            elif code == RIGHT_WHITE_CORNER:
                s.tally[5] -= 1
        i += 1
    s.tally_pos = lo
    return (s.tally[0] % 2 != 0 or s.tally[1] % 2 != 0 or s.tally[2] % 2 != 0 or s.tally[3] % 2 != 0
            or s.tally[4] > 0 or s.tally[5] > 0)


cdef offset_t nested_opener(const byte_t* p, offset_t lo, offset_t close, const Pair* pair) noexcept nogil:
    """The opener that the closing mark at ``close`` closes, the pair nesting: back from
    ``close`` to the opener that brings the depth to zero, or -1."""
    cdef offset_t depth = 1, i = close - pair.width
    cdef int code
    while i >= lo:
        code = code_at(p, i, pair.width)
        if code == pair.closer:
            depth += 1
        elif code == pair.opener or (pair.other_opener != 0 and code == pair.other_opener):
            depth -= 1
            if depth == 0:
                return i
        i -= 1
    return -1


cdef offset_t same_mark_opener(const byte_t* p, offset_t lo, offset_t close, const Pair* pair) noexcept nogil:
    """The same mark that opens the quotation the closer at ``close`` ends, the marks since
    ``lo`` paired left to right (_Scanner._same_mark_opener), or -1."""
    cdef offset_t depth = 0, opener = -1, i = lo
    cdef int w = pair.width, code
    while i + w <= close:
        code = code_at(p, i, w)
        if code == pair.opener or (pair.other_opener != 0 and code == pair.other_opener):
            depth += 1
        elif code == pair.closer:
            if depth > 0:
                depth -= 1
            elif opener < 0:
                if IS_ASCII_WS[p[i + w]] or (i > 0 and IS_ASCII_ALNUM[p[i - 1]]):
                    return -1
                opener = i
            elif i > 0 and IS_ASCII_WS[p[i - 1]]:
                return -1
            else:
                opener = -1
        else:
            i += 1
            continue
        i += w
    return opener


cdef bint pair_quote(Scan* s, offset_t lo, offset_t close, const Pair* pair, offset_t* out) noexcept nogil:
    cdef const byte_t* p = s.p
    cdef offset_t opener = nested_opener(p, lo, close, pair)
    if opener < 0 and pair.same:
        opener = same_mark_opener(p, lo, close, pair)  # Swedish ”…”, Finnish »…»
    if between(s, opener, pair.width, close, pair.form, out):
        return True
    return not s.oom and unreadable(p, lo, close, out)


cdef bint unreadable(const byte_t* p, offset_t lo, offset_t close, offset_t* out) noexcept nogil:
    cdef offset_t start = close, at
    at = find_byte(p, lo, close, 0x22)
    if at >= 0 and at + 1 < start:
        start = at + 1
    at = find3(p, lo, close, 0xE2, 0x80, 0x9C)
    if at >= 0 and at + 3 < start:
        start = at + 3
    at = find_byte(p, lo, close, 0x60)
    if at >= 0 and at + 1 < start:
        start = at + 1
    out[0] = start
    out[1] = close
    out[2] = UNREADABLE
    out[3] = 0
    out[4] = 0
    return True


cdef bint unclosed_other(Scan* s, offset_t lo, offset_t close, offset_t* out) noexcept nogil:
    """A closing single quote without an opener: unreadable when a quotation of another style
    is open before it (_unclosed_other), else an apostrophe (False)."""
    cdef const byte_t* p = s.p
    cdef offset_t straight = 0, i = find_byte(p, lo, close, 0x22)
    while i >= 0:
        straight += 1
        i = find_byte(p, i + 1, close, 0x22)
    if (straight % 2
            or (count_code(p, lo, close, 2, LEFT_GUILLEMET) + count_code(p, lo, close, 2, RIGHT_GUILLEMET)) % 2
            or (count_code(p, lo, close, 3, LEFT_SINGLE_GUILLEMET)
                + count_code(p, lo, close, 3, RIGHT_SINGLE_GUILLEMET)) % 2
            or (count_code(p, lo, close, 3, LEFT_DOUBLE) + count_code(p, lo, close, 3, LOW_DOUBLE)
                > count_code(p, lo, close, 3, RIGHT_DOUBLE))
            or (count_code(p, lo, close, 3, LEFT_DOUBLE) + count_code(p, lo, close, 3, LOW_DOUBLE) == 0
                and count_code(p, lo, close, 3, RIGHT_DOUBLE) % 2)
            or count_code(p, lo, close, 3, LEFT_CORNER) > count_code(p, lo, close, 3, RIGHT_CORNER)
            or count_code(p, lo, close, 3, LEFT_WHITE_CORNER) > count_code(p, lo, close, 3, RIGHT_WHITE_CORNER)):
        return unreadable(p, lo, close, out)
    return False


# roles of a single quotation mark in a pairing (_citations_py._single_opener)
cdef enum:
    NOT_A_MARK = -1  # an apostrophe, or a ’ where a mark opens: pairs with nothing
    OPENS = 0
    MAY_OPEN = 1     # an opener, or a word-initial apostrophe ('90s)
    CLOSES = 2
    MAY_CLOSE = 3    # a closer, or a possessive (users')


cdef bint word_starting(const byte_t* p, offset_t n, offset_t i) noexcept nogil:
    """_word_starting: an ASCII letter or digit, or a character of U+00C0-U+1FFF but × and ÷
    (red team 86, F01). The bytes end with a NUL, so a continuation byte is never read past
    it."""
    cdef byte_t x
    if i >= n:
        return False
    x = p[i]
    if x < 0x80:
        return IS_ASCII_ALNUM[x]
    if 0xC3 <= x <= 0xDF:
        return 0x80 <= p[i + 1] <= 0xBF and not (x == 0xC3 and (p[i + 1] == 0x97 or p[i + 1] == 0xB7))
    if x == 0xE0 or x == 0xE1:
        return (0xA0 if x == 0xE0 else 0x80) <= p[i + 1] <= 0xBF and 0x80 <= p[i + 2] <= 0xBF
    return False


cdef bint word_ending(const byte_t* p, offset_t end) noexcept nogil:
    """_word_ending: whether the character that ends at ``end`` is a word character."""
    cdef byte_t x, y, z
    if end <= 0:
        return False
    x = p[end - 1]
    if x < 0x80:
        return IS_ASCII_ALNUM[x]
    if x > 0xBF or end < 2:
        return False
    y = p[end - 2]
    if 0xC3 <= y <= 0xDF:
        return not (y == 0xC3 and (x == 0x97 or x == 0xB7))
    if end < 3 or not (0x80 <= y <= 0xBF):
        return False
    z = p[end - 3]
    return (z == 0xE0 and y >= 0xA0) or z == 0xE1


cdef bint elided(const byte_t* p, offset_t n, offset_t i) noexcept nogil:
    """_elided: a digit, or a word of _ELISIONS (any case) ending the word, at ``i``."""
    if i < n and 0x30 <= p[i] <= 0x39:
        return True
    return (elision_is(p, n, i, b"em", 2) or elision_is(p, n, i, b"til", 3) or elision_is(p, n, i, b"tis", 3)
            or elision_is(p, n, i, b"twas", 4) or elision_is(p, n, i, b"cause", 5)
            or elision_is(p, n, i, b"cos", 3) or elision_is(p, n, i, b"cuz", 3)
            or elision_is(p, n, i, b"bout", 4) or elision_is(p, n, i, b"n", 1))


cdef bint elision_is(const byte_t* p, offset_t n, offset_t i, const char* word, int length) noexcept nogil:
    cdef int k
    cdef byte_t b
    if i + length > n:
        return False
    for k in range(length):
        b = p[i + k]
        if 0x41 <= b <= 0x5A:
            b += 0x20
        if b != <byte_t>word[k]:
            return False
    return not word_starting(p, n, i + length)


cdef int mark_role(const byte_t* p, offset_t n, offset_t at, offset_t width) noexcept nogil:
    """_Scanner._mark_role: the role of a ' or ’ (``width`` bytes) at ``at``, NOT_A_MARK
    inside a word."""
    cdef bint after_word = word_ending(p, at)
    if after_word and word_starting(p, n, at + width):
        return NOT_A_MARK
    if after_word or (at > 0 and not IS_ASCII_WS[p[at - 1]] and IS_ASCII_WS[p[at + width]]):
        if (p[at - 1] == 0x73 or p[at - 1] == 0x53
                or ((p[at - 1] == 0x6E or p[at - 1] == 0x4E) and at > 1 and IS_ASCII_ALNUM[p[at - 2]])):
            return MAY_CLOSE
        return CLOSES
    return MAY_OPEN if elided(p, n, at + width) else OPENS


cdef inline bint non_ascii_apostrophe(const byte_t* p, offset_t at, offset_t width) noexcept nogil:
    return p[at - 1] >= 0x80 or p[at + width] >= 0x80


cdef offset_t next_mark(const byte_t* p, offset_t i, offset_t close, bint curly) noexcept nogil:
    """The first ' (or, ``curly``, ‘ ’ ‚) at or after ``i`` that ends by ``close``, or -1."""
    if not curly:
        return find_byte(p, i, close, 0x27)
    while i + 3 <= close:
        if p[i] == 0xE2 and p[i + 1] == 0x80 and 0x98 <= p[i + 2] <= 0x9A:
            return i
        i += 1
    return -1


cdef offset_t previous_mark(const byte_t* p, offset_t lo, offset_t i, bint curly) noexcept nogil:
    """The last ' (or, ``curly``, ‘ ’ ‚) that starts in ``[lo, i)``, or -1."""
    if not curly:
        return rfind_byte(p, lo, i, 0x27)
    i -= 1
    while i >= lo:
        if p[i] == 0xE2 and p[i + 1] == 0x80 and 0x98 <= p[i + 2] <= 0x9A:
            return i
        i -= 1
    return -1


cdef int pairing_role(const byte_t* p, offset_t n, offset_t at, bint curly) noexcept nogil:
    """The role the mark at ``at`` takes in the pairing (the roles _single and _curly_single
    list), or NOT_A_MARK."""
    cdef int role
    if not curly:
        return mark_role(p, n, at, 1)
    if p[at + 2] == 0x98:
        return MAY_OPEN if elided(p, n, at + 3) else OPENS
    if p[at + 2] == 0x9A:
        return OPENS
    role = mark_role(p, n, at, 3)
    return role if role == CLOSES or role == MAY_CLOSE else NOT_A_MARK


cdef int single_opener(Scan* s, offset_t lo, offset_t close, bint curly, offset_t* opener) noexcept nogil:
    """_single_opener over the marks of ``[lo, close)``, their roles computed as _single and
    _curly_single compute them. Returns 0 with ``opener`` set, 1 when the quotation is
    unreadable (readings disagree, none pairs, or the fail-safes of _single/_curly_single
    hold), 2 when the closing mark is an apostrophe, -1 when memory ran out. ``s.lines``
    (scratch) holds the openers the marks before them allow, ascending."""
    cdef const byte_t* p = s.p
    cdef offset_t n = s.n, at, low = 0, high = 0, count = 0, k
    cdef int role
    cdef bint dead = False, openers = False, guessed = False
    s.lines.n = 0
    at = next_mark(p, lo, close, curly)
    while at >= 0:
        role = pairing_role(p, n, at, curly)
        if role == NOT_A_MARK:
            if curly and p[at + 2] == 0x99 and mark_role(p, n, at, 3) != NOT_A_MARK:
                guessed = True  # a ’ where a mark opens: Swedish ’…’, or ’90s
            elif non_ascii_apostrophe(p, at, 3 if curly else 1):
                guessed = True
        else:
            if role <= MAY_OPEN:
                openers = True
            if not dead:
                if role <= MAY_OPEN and low == 0:
                    if not push2(&s.lines, at, 0):
                        s.oom = True
                        return -1
                if role == OPENS:
                    low += 1
                    high += 1
                elif role == MAY_OPEN:
                    high += 1
                elif role == CLOSES:
                    if high == 0:
                        dead = True
                    else:
                        low = low - 1 if low > 0 else 0
                        high -= 1
                else:
                    low = low - 1 if low > 0 else 0
        at = next_mark(p, at + 1, close, curly)
    low = 0
    high = 0
    k = s.lines.n
    at = previous_mark(p, lo, close, curly)
    while at >= 0:
        role = pairing_role(p, n, at, curly)
        if role != NOT_A_MARK:
            if role <= MAY_OPEN and low == 0:
                while k > 0 and s.lines.v[k - 2] > at:
                    k -= 2
                if k > 0 and s.lines.v[k - 2] == at:
                    opener[0] = at
                    count += 1
                    if count > 1:
                        break
            if role == CLOSES:
                low += 1
                high += 1
            elif role == MAY_CLOSE:
                high += 1
            elif role == OPENS:
                if high == 0:
                    break
                low = low - 1 if low > 0 else 0
                high -= 1
            else:
                low = low - 1 if low > 0 else 0
        at = previous_mark(p, lo, at, curly)
    if count == 1:
        return 0
    if openers or guessed:
        return 1
    return 1 if other_single_opens(p, n, lo, close, curly) else 2


cdef bint other_single_opens(const byte_t* p, offset_t n, offset_t lo, offset_t close, bint curly) noexcept nogil:
    """For a ' (not ``curly``): _curly_single_opens, a ‘ or ‚, or a ’ where a mark opens; for
    a ’: _straight_opens, a ' where a mark opens (red team 86, F03)."""
    cdef offset_t at = next_mark(p, lo, close, not curly)
    cdef int role
    while at >= 0:
        if not curly:
            if p[at + 2] != 0x99:
                return True
            role = mark_role(p, n, at, 3)
        else:
            role = mark_role(p, n, at, 1)
        if role == OPENS or role == MAY_OPEN:
            return True
        at = next_mark(p, at + 1, close, not curly)
    return False


cdef bint single_quote(Scan* s, offset_t lo, offset_t c, offset_t* out) noexcept nogil:
    cdef const byte_t* p = s.p
    cdef offset_t close = c - 1, opener = -1
    cdef int found
    if close == 0 or IS_ASCII_WS[p[close - 1]]:
        return False
    found = single_opener(s, lo, close, False, &opener)
    if found == 0:
        return between(s, opener, 1, close, SINGLE, out)
    if found == 1:
        return unreadable(p, lo, close, out)
    return found == 2 and unclosed_other(s, lo, close, out)


cdef bint curly_single_quote(Scan* s, offset_t lo, offset_t close, offset_t* out) noexcept nogil:
    cdef const byte_t* p = s.p
    cdef offset_t opener = -1
    cdef int found = single_opener(s, lo, close, True, &opener)
    if found == 0:
        return between(s, opener, 3, close, CURLY_SINGLE, out)
    if found == 1:
        return unreadable(p, lo, close, out)
    return found == 2 and unclosed_other(s, lo, close, out)


cdef bint backtick_quote(Scan* s, offset_t lo, offset_t c, offset_t* out) noexcept nogil:
    cdef const byte_t* p = s.p
    cdef offset_t run_start = c, n, i, e, start, end, j, k
    cdef bint odd = False
    while run_start > lo and p[run_start - 1] == 0x60:
        run_start -= 1
    n = c - run_start
    # walk the backtick runs to the left (clipped at lo): the nearest of exactly n opens
    i = run_start
    while True:
        while i > lo and p[i - 1] != 0x60:
            i -= 1
        if i <= lo:
            return False
        e = i
        while i > lo and p[i - 1] == 0x60:
            i -= 1
        if e - i == n:
            break
    # paired left to right, that run closes an earlier code span when the runs of exactly n
    # backticks before it are odd in number
    k = lo
    while k < i:
        if p[k] != 0x60:
            k += 1
            continue
        j = k
        while k < i and p[k] == 0x60:
            k += 1
        if k - j == n:
            odd = not odd
    if odd:
        return False
    start = e
    end = run_start
    if end - start >= 2 and p[start] == 0x20 and p[end - 1] == 0x20:
        for i in range(start, end):
            if p[i] != 0x20:
                start += 1  # CommonMark strips one space from each end
                end -= 1
                break
    return quoted(s, start, end, BACKTICK, out)


cdef bint is_gap_char2(const byte_t* p) noexcept nogil:
    """A two-byte character of _GAP_CHARS_2."""
    cdef int code = (p[0] << 8) | p[1], k
    for k in range(GAP2_COUNT):
        if GAP2[k] == code:
            return True
    return False


cdef bint is_gap_char3(const byte_t* p) noexcept nogil:
    """A three-byte character of _GAP_CHARS_3."""
    cdef int code, k
    if not IS_GAP3_LEAD[p[0]]:
        return False
    code = (p[0] << 16) | (p[1] << 8) | p[2]
    for k in range(GAP3_COUNT):
        if GAP3[k] == code:
            return True
    return False


cdef offset_t gap_start(const Scan* s, offset_t group_start) noexcept nogil:
    cdef const byte_t* p = s.p
    cdef offset_t c = group_start, above
    cdef bint crossed = False
    while c > 0:
        if IS_GAP[p[c - 1]]:
            c -= 1
        elif c >= 2 and is_gap_char2(p + c - 2):
            c -= 2
        elif c >= 3 and is_gap_char3(p + c - 3):
            c -= 3
        elif p[c - 1] == 0x0A and not crossed:
            above = line_start(p, c - 1)
            if blockquote_prefix(p, above, c - 1) >= 0 or in_fence(s, above):
                break
            crossed = True
            c -= 1
        else:
            break
    return c


cdef bint is_plain_gap(const byte_t* p, offset_t c, offset_t end) noexcept nogil:
    """Whether [c, end) holds only _PLAIN_GAP_BYTES and _PLAIN_GAP_CHARS."""
    cdef offset_t i = c
    cdef int code, k
    cdef bint found
    while i < end:
        if IS_PLAIN_GAP[p[i]]:
            i += 1
        elif i + 2 <= end and p[i] == 0xC2 and p[i + 1] == 0xA0:
            i += 2
        elif i + 3 <= end:
            code = code_at(p, i, 3)
            found = False
            for k in range(PLAIN3_COUNT):
                if PLAIN3[k] == code:
                    found = True
                    break
            if not found:
                return False
            i += 3
        else:
            return False
    return True


cdef bint inline_quote(Scan* s, offset_t group_start, offset_t previous_end, offset_t* out) noexcept nogil:
    """_Scanner._inline."""
    cdef const byte_t* p = s.p
    cdef offset_t c = gap_start(s, group_start), first, kept, lo, opener, text
    if is_plain_gap(p, c, group_start):
        return inline_at(s, c, previous_end, out)
    first = first_blockquote_line(s, group_start)
    if first < 0:
        return inline_at(s, c, previous_end, out)
    kept = s.segments.n
    if not inline_at(s, c, previous_end, out):
        return False
    if out[2] == UNREADABLE:
        return True
    lo = max(first, previous_end)
    opener = out[0]
    while out[2] == GUILLEMET and padding_before(p, lo, opener) > 0:
        opener -= padding_before(p, lo, opener)  # (the spaces French sets inside « »)
    opener = before_opener(p, lo, opener)
    text = lo
    if lo == first:
        prefixes(p, lo, opener, &text)
    if has_text(p, text, opener):
        s.segments.n = kept
        return False
    return True


cdef bint inline_at(Scan* s, offset_t c, offset_t previous_end, offset_t* out) noexcept nogil:
    """The inline quotation whose closing delimiter ends at ``c`` (_inline_at)."""
    cdef const byte_t* p = s.p
    cdef offset_t lo, close, opener
    cdef byte_t last
    cdef int k, width
    if c == 0:
        return False
    lo = max(lower_bound(s, c), previous_end)
    if c <= lo:
        return False
    last = p[c - 1]
    if last == 0x22:
        close = c - 1
        opener = rfind_byte(p, lo, close, 0x22)
        if opener < 0 and is_measure(p, lo, close) and not open_before(s, lo):
            s.tally[0] -= 1  # (an inch mark, not counted as a quotation mark by later groups)
            return False
        if opener >= 0 and can_open(p, opener) and between(s, opener, 1, close, DOUBLE, out):
            return True
        return not s.oom and unreadable(p, lo, close, out)
    if last == 0x60:
        return backtick_quote(s, lo, c, out) or (not s.oom and unreadable(p, lo, c - 1, out))
    if last == 0x27:
        return single_quote(s, lo, c, out)
    if c >= 3 and code_at(p, c - 3, 3) == RIGHT_SINGLE:
        return curly_single_quote(s, lo, c - 3, out)
    for k in range(PAIR_COUNT):
        width = PAIRS[k].width
        if c >= width and code_at(p, c - width, width) == PAIRS[k].closer:
            return pair_quote(s, lo, c - width, &PAIRS[k], out)
    return False


cdef offset_t gap_width_before(const byte_t* p, offset_t lo, offset_t c) noexcept nogil:
    """_gap_width_before: the length of the gap character that ends at c and starts at lo or
    after, or 0."""
    if c - 1 >= lo and IS_GAP[p[c - 1]]:
        return 1
    if c - 2 >= lo and is_gap_char2(p + c - 2):
        return 2
    if c - 3 >= lo and is_gap_char3(p + c - 3):
        return 3
    return 0


cdef offset_t gap_back(const byte_t* p, offset_t lo, offset_t c) noexcept nogil:
    cdef offset_t w = gap_width_before(p, lo, c)
    while w > 0:
        c -= w
        w = gap_width_before(p, lo, c)
    return c


cdef offset_t lead_back(const byte_t* p, offset_t lo, offset_t c) noexcept nogil:
    """_lead_back: back over a wrapper (`(`, `*`, `_`) right before the group at c, then over
    the gap characters that are not IS_KEPT."""
    cdef offset_t w
    while c > lo and (p[c - 1] == 0x28 or p[c - 1] == 0x2A or p[c - 1] == 0x5F):
        c -= 1
    w = gap_width_before(p, lo, c)
    while w > 0 and not (w == 1 and IS_KEPT[p[c - 1]]):
        c -= w
        w = gap_width_before(p, lo, c)
    return c


cdef offset_t own_end(const byte_t* p, offset_t text, offset_t c) noexcept nogil:
    """_own_end: where the text (from `text`) of the line of a group at c ends: without what
    wraps the group or sets it off, nor an attribution dash (red team 86, F09)."""
    cdef offset_t d = -1
    c = lead_back(p, text, c)
    if c - 3 >= text and p[c - 3] == 0xE2 and p[c - 2] == 0x80 and (p[c - 1] == 0x94 or p[c - 1] == 0x93):
        d = c - 3  # an em or en dash
    elif c - 2 >= text and p[c - 2] == 0x2D and p[c - 1] == 0x2D:
        d = c - 2
    elif c - 1 >= text and p[c - 1] == 0x2D:
        d = c - 1
    if d >= 0 and (d == text or gap_width_before(p, text, d) > 0):
        c = lead_back(p, text, d)
    if gap_back(p, text, c) == text:
        return text
    return c


cdef offset_t line_start_after(const byte_t* p, offset_t group_start, offset_t previous_end) noexcept nogil:
    """_line_start_after: the start of the group's line, or -1 when the group before it is on
    that line; searched back to previous_end only (linear over a line of many groups)."""
    cdef offset_t nl = rfind_byte(p, previous_end, group_start, 0x0A)
    if nl < 0 and previous_end > 0:
        return -1
    return nl + 1


cdef bint has_double_mark(const byte_t* p, offset_t lo, offset_t hi) noexcept nogil:
    """A mark of _DOUBLE_MARK in [lo, hi): ", “ ” „ « » ‹ › 「 」 『 』."""
    cdef offset_t i
    cdef int code
    for i in range(lo, hi):
        if p[i] == 0x22:
            return True
        if p[i] == 0xC2 and i + 2 <= hi and (p[i + 1] == 0xAB or p[i + 1] == 0xBB):
            return True
        if (p[i] == 0xE2 or p[i] == 0xE3) and i + 3 <= hi:
            code = code_at(p, i, 3)
            if (code == LEFT_DOUBLE or code == RIGHT_DOUBLE or code == LOW_DOUBLE or code == LEFT_SINGLE_GUILLEMET
                    or code == RIGHT_SINGLE_GUILLEMET or code == LEFT_CORNER or code == RIGHT_CORNER
                    or code == LEFT_WHITE_CORNER or code == RIGHT_WHITE_CORNER):
                return True
    return False


cdef bint blockquote_quote(Scan* s, offset_t group_start, offset_t group_end, offset_t previous_end,
                           offset_t* out) noexcept nogil:
    """_blockquote: whatever follows the group on its line is not read (red team 86, F09)."""
    cdef const byte_t* p = s.p
    cdef offset_t ls, own, pos, prev_start, m, end, k, lo, text, first, depth = 0
    ls = line_start_after(p, group_start, previous_end)
    if ls < 0:
        return False  # another marker before the group on its line
    first = first_blockquote_line(s, ls)
    if first < 0:
        return False  # no `>` line in the paragraph up to the group's line: prose
    s.lines.n = 0  # each line's start (prefixes included) and end, bottom up
    prefixes(p, ls, group_start, &text)
    own = own_end(p, text, group_start)
    # (a line of only prefixes, gap, a dash and the group attributes the lines above)
    if has_text(p, text, own):
        if not push2(&s.lines, ls, own):
            s.oom = True
            return False
    # up to the paragraph's first `>` line: `>` lines and lazy lines (CommonMark laziness)
    pos = ls
    while pos > first:
        prev_start = line_start(p, pos - 1)
        if has_marker(p, prev_start, pos - 1):
            break
        m = max(blockquote_prefix(p, prev_start, pos - 1), 0)
        end = pos - 1
        if end > prev_start + m and p[end - 1] == 0x0D:
            end -= 1
        if not push2(&s.lines, prev_start, end):
            s.oom = True
            return False
        pos = prev_start
    for k in range(s.lines.n // 2):
        depth = shared_depth_step(p, s.lines.v[2 * k], s.lines.v[2 * k + 1], depth)
    if depth == 0:
        depth = 1
    for k in range(s.lines.n // 2):
        s.lines.v[2 * k] = strip_prefixes(p, s.lines.v[2 * k], s.lines.v[2 * k + 1], depth)
    if not lines_have_text(s, 0):
        return False
    lo = s.segments.n // 2
    k = s.lines.n // 2 - 1
    while k >= 0:  # the lines were collected bottom up
        if not push2(&s.segments, s.lines.v[2 * k], s.lines.v[2 * k + 1]):
            s.oom = True
            return False
        k -= 1
    out[0] = s.lines.v[s.lines.n - 2]
    out[1] = s.lines.v[1]
    out[2] = BLOCKQUOTE
    out[3] = lo
    out[4] = s.segments.n // 2
    return True


cdef bint fenced_quote(Scan* s, offset_t group_start, offset_t group_end, offset_t previous_end,
                       offset_t* out) noexcept nogil:
    """_fenced: the block right above the group's line, whatever else the line holds; an
    unreadable quotation when the words before the group hold a double quotation mark."""
    cdef const byte_t* p = s.p
    cdef offset_t ls, k
    ls = line_start_after(p, group_start, previous_end)
    if ls <= 0:
        return False  # another marker before the group on its line, or no line above
    k = fence_after(s, ls - 2)  # the first fence with close_end >= ls - 1
    if k >= s.fences.n // 4 or s.fences.v[4 * k + 3] != ls - 1:
        return False
    if has_double_mark(p, ls, group_start):
        return unreadable(p, ls, gap_back(p, ls, group_start), out)
    if not has_text(p, s.fences.v[4 * k + 1], s.fences.v[4 * k + 2]):
        return False
    out[0] = s.fences.v[4 * k + 1]
    out[1] = s.fences.v[4 * k + 2]
    out[2] = FENCE
    out[3] = 0
    out[4] = 0
    return True


cdef bint is_sentence_end(const byte_t* p, offset_t lo, offset_t hi) noexcept nogil:
    """Whether [lo, hi) holds . ! ? before whitespace, or 。 ！ ？ (_SENTENCE_END)."""
    cdef offset_t i
    for i in range(lo, hi):
        if (p[i] == 0x2E or p[i] == 0x21 or p[i] == 0x3F) and i + 1 < hi and IS_ASCII_WS[p[i + 1]]:
            return True
        if i + 3 <= hi and ((p[i] == 0xE3 and p[i + 1] == 0x80 and p[i + 2] == 0x82)
                            or (p[i] == 0xEF and p[i + 1] == 0xBC and (p[i + 2] == 0x81 or p[i + 2] == 0x9F))):
            return True
    return False


cdef offset_t next_mark_end(const Scan* s, offset_t lo, offset_t hi) noexcept nogil:
    """_Scanner._next_mark_end: the end of the first closing mark starting at lo or after and
    ending by hi, or -1."""
    cdef const byte_t* p = s.p
    cdef offset_t i = lo
    cdef int code
    while i < hi:
        if p[i] == 0x22:
            return i + 1
        if p[i] == 0x27:
            if not (word_ending(p, i) and word_starting(p, s.n, i + 1)):
                return i + 1
        elif i + 3 <= hi and is_closing3(code_at(p, i, 3)):
            code = code_at(p, i, 3)
            if not is_single3(code) or not (word_ending(p, i) and word_starting(p, s.n, i + 3)):
                return i + 3
            i += 3
            continue
        elif i + 2 <= hi and (code_at(p, i, 2) == RIGHT_GUILLEMET or code_at(p, i, 2) == LEFT_GUILLEMET):
            return i + 2
        i += 1
    return -1


cdef offset_t forward_quote(Scan* s, offset_t group_end, offset_t limit, offset_t* out) noexcept nogil:
    """_Scanner.forward: the quotation that opens after a group carrying nothing, in its
    sentence; the end of its closing mark, or -1. What reading leaves behind (segments, the
    marks read as units) is undone unless a quotation is claimed."""
    cdef offset_t b_lo = 0, b_hi = s.bounds.n, mid, hi, e = group_end, opener, k
    cdef offset_t kept = s.segments.n, tally_pos = s.tally_pos
    cdef offset_t tally[6]
    memcpy(tally, s.tally, sizeof(tally))
    while b_lo < b_hi:  # the first bound after group_end
        mid = (b_lo + b_hi) // 2
        if s.bounds.v[mid] <= group_end:
            b_lo = mid + 1
        else:
            b_hi = mid
    hi = s.bounds.v[b_lo] if b_lo < s.bounds.n else s.n
    if limit >= 0 and limit < hi:
        hi = limit
    for k in range(FORWARD_MARKS):
        e = next_mark_end(s, e, hi)
        if e < 0:
            break
        if not inline_at(s, e, group_end, out):
            if s.oom:
                return -1
            continue
        if out[2] == UNREADABLE:
            continue
        opener = before_opener(s.p, group_end, out[0])
        if not is_sentence_end(s.p, group_end, opener) and not (limit >= 0 and gap_start(s, limit) == e):
            return e
        break
    s.segments.n = kept
    s.tally_pos = tally_pos
    memcpy(s.tally, tally, sizeof(tally))
    return -1


cdef offset_t quote_run_end(const byte_t* p, offset_t n, offset_t le) noexcept nogil:
    """_Scanner._quote_run: the end of the run of ``>`` lines whose first line ends at ``le``."""
    cdef offset_t end = le
    while end < n and blockquote_prefix(p, end + 1, line_end(p, n, end + 1)) >= 0:
        end = line_end(p, n, end + 1)
    return end


cdef offset_t row_text(const byte_t* p, offset_t n, offset_t row, offset_t depth, offset_t* text_end) noexcept nogil:
    """_Scanner._row_text: where the text of the ``>`` line at ``row`` starts, past ``depth``
    prefixes; its end, before a ``\\r``, in ``*text_end``."""
    cdef offset_t e = line_end(p, n, row)
    cdef offset_t start = strip_prefixes(p, row, e, depth)
    if e > start and p[e - 1] == 0x0D:
        e -= 1
    text_end[0] = e
    return start


cdef offset_t run_depth(const byte_t* p, offset_t n, offset_t first, offset_t end) noexcept nogil:
    """The prefixes the run of ``>`` lines from the line at ``first`` to ``end`` shares, at
    least one (_shared_depth)."""
    cdef offset_t depth = 0, row = first
    while True:
        depth = shared_depth_step(p, row, line_end(p, n, row), depth)
        if line_end(p, n, row) >= end:
            break
        row = line_end(p, n, row) + 1
    return depth if depth > 0 else 1


cdef offset_t below_quote(Scan* s, offset_t group_end, offset_t limit, offset_t* out) noexcept nogil:
    """_Scanner.below: the blockquote or fenced block that starts on the first line that is
    not blank below a line of prose that a group ends but for gap; where the block ends, or -1."""
    cdef const byte_t* p = s.p
    cdef offset_t n = s.n, i = group_end, pos, le, k, end, row, depth = 0, text_start, text_end, lo
    cdef offset_t last
    while i < n and (p[i] == 0x20 or p[i] == 0x09 or p[i] == 0x0D or p[i] == 0x3A or p[i] == 0x2E
                     or p[i] == 0x2C or p[i] == 0x3B or p[i] == 0x21 or p[i] == 0x3F or p[i] == 0x29
                     or p[i] == 0x2A or p[i] == 0x5F or p[i] == 0x2D):
        i += 1
    if i < n and p[i] != 0x0A:  # (words: the line must end in a colon, `[src:a] says:`)
        # (before the next group, or the block is past it: a line of many groups read once)
        i = find_byte(p, i, limit if limit >= 0 else n, 0x0A)
        if i < 0:
            if limit >= 0:
                return -1
            i = n
        last = i
        while last > group_end and (p[last - 1] == 0x20 or p[last - 1] == 0x09 or p[last - 1] == 0x0D):
            last -= 1
        if not (last > group_end and p[last - 1] == 0x3A) and not (
                last - 3 >= group_end and p[last - 3] == 0xEF and p[last - 2] == 0xBC and p[last - 1] == 0x9A):
            return -1
    if i >= n or p[i] != 0x0A or first_blockquote_line(s, group_end) >= 0:
        return -1
    pos = i + 1
    while True:  # (past blank lines)
        le = line_end(p, n, pos)
        if has_nonblank(p, pos, le):
            break
        if le >= n:
            return -1
        pos = le + 1
    k = fence_after(s, pos)
    if k < s.fences.n // 4 and s.fences.v[4 * k] == pos:
        if (limit >= 0 and s.fences.v[4 * k + 3] > limit) or not has_text(p, s.fences.v[4 * k + 1], s.fences.v[4 * k + 2]):
            return -1
        out[0] = s.fences.v[4 * k + 1]
        out[1] = s.fences.v[4 * k + 2]
        out[2] = FENCE
        out[3] = 0
        out[4] = 0
        return s.fences.v[4 * k + 3]
    if blockquote_prefix(p, pos, le) < 0 or in_fence(s, pos):
        return -1
    end = quote_run_end(p, n, le)
    if (limit >= 0 and end > limit) or has_marker(p, pos, end):
        return -1
    depth = run_depth(p, n, pos, end)
    s.lines.n = 0
    row = pos
    while True:
        text_start = row_text(p, n, row, depth, &text_end)
        if not push2(&s.lines, text_start, text_end):
            s.oom = True
            return -1
        if line_end(p, n, row) >= end:
            break
        row = line_end(p, n, row) + 1
    if not lines_have_text(s, 0):
        return -1
    lo = s.segments.n // 2
    for k in range(s.lines.n // 2):
        if not push2(&s.segments, s.lines.v[2 * k], s.lines.v[2 * k + 1]):
            s.oom = True
            return -1
    out[0] = s.lines.v[0]
    out[1] = s.lines.v[s.lines.n - 1]
    out[2] = BLOCKQUOTE
    out[3] = lo
    out[4] = s.segments.n // 2
    return end


cdef bint has_nonblank(const byte_t* p, offset_t start, offset_t end) noexcept nogil:
    """Whether [start, end) holds a byte other than a space, a tab or a \\r."""
    cdef offset_t i
    for i in range(start, end):
        if not (p[i] == 0x20 or p[i] == 0x09 or p[i] == 0x0D):
            return True
    return False


cdef offset_t first_pair_from(Scan* s, offset_t pos) noexcept nogil:
    """The first pair opening at or after ``pos`` (bisect_left on the pairs' openings): the
    groups ask with positions that never go back, so a cursor walks the pairs once."""
    cdef offset_t n = s.pairs.n // QUOTE_WIDTH
    while s.pair_cursor > 0 and s.pairs.v[QUOTE_WIDTH * (s.pair_cursor - 1) + 3] >= pos:
        s.pair_cursor -= 1  # (never taken while the positions do not go back)
    while s.pair_cursor < n and s.pairs.v[QUOTE_WIDTH * s.pair_cursor + 3] < pos:
        s.pair_cursor += 1
    return s.pair_cursor


cdef offset_t last_sentence_end(const byte_t* p, offset_t lo, offset_t hi) noexcept nogil:
    """The start of the last sentence end (_SENTENCE_END) that lies in [lo, hi), or -1."""
    cdef offset_t i = hi - 1
    while i >= lo:
        if (p[i] == 0x2E or p[i] == 0x21 or p[i] == 0x3F) and i + 1 < hi and IS_ASCII_WS[p[i + 1]]:
            return i
        if i + 3 <= hi and ((p[i] == 0xE3 and p[i + 1] == 0x80 and p[i + 2] == 0x82)
                            or (p[i] == 0xEF and p[i + 1] == 0xBC and (p[i + 2] == 0x81 or p[i + 2] == 0x9F))):
            return i
        i -= 1
    return -1


cdef bint push_carried(Scan* s, const offset_t* q, offset_t first, offset_t count) noexcept nogil:
    """A quotation the group (markers ``first`` to ``first + count``) carries, and a row of
    each of its markers citing it; False when out of memory."""
    cdef offset_t m, row = s.quotes.n // QUOTE_WIDTH
    if not push5(&s.quotes, q[0], q[1], q[2], q[3], q[4]):
        return False
    for m in range(first, first + count):
        if not push3(&s.markers, row, s.marks.v[2 * m], s.marks.v[2 * m + 1]):
            return False
    return True


cdef offset_t earlier_quotes(Scan* s, const offset_t* q, offset_t previous_end, offset_t first,
                             offset_t count) noexcept nogil:
    """_Scanner.earlier: push the quotations of the group's sentence before ``q`` that it
    carries too; the start of the first quotation it carries (of these or ``q``)."""
    cdef const byte_t* p = s.p
    cdef offset_t lo, opener, k, n = s.pairs.n // QUOTE_WIDTH, j, last_end, claim = q[0]
    cdef offset_t got[QUOTE_WIDTH]
    cdef const offset_t* pair
    if q[2] == BLOCKQUOTE or q[2] == FENCE or q[2] == UNREADABLE:
        return claim
    lo = max(lower_bound(s, q[0]), previous_end)
    opener = before_opener(p, lo, q[0])
    k = first_pair_from(s, lo)
    j = k
    while j < n and s.pairs.v[QUOTE_WIDTH * j + 4] <= opener:
        j += 1
    if j == k:
        return claim  # (no pair: the sentence's end is not looked for)
    last_end = last_sentence_end(p, lo, opener)
    for k in range(k, j):
        pair = s.pairs.v + QUOTE_WIDTH * k
        if pair[4] <= last_end:
            continue  # (a quotation of an earlier sentence)
        if p[pair[3]] == 0x22 and not can_open(p, pair[3]):
            continue
        if quoted(s, pair[0], pair[1], pair[2], got):
            if got[0] < claim:
                claim = got[0]
            if not push_carried(s, got, first, count):
                s.oom = True
                return claim
        elif s.oom:
            return claim
    return claim


cdef void scan_groups(Scan* s) noexcept nogil:
    cdef offset_t g, ng = s.groups.n // 4, gs, ge, first, count, m, closed, claim_start, claim_end, before
    cdef offset_t previous_end = 0
    cdef offset_t q[QUOTE_WIDTH]
    cdef offset_t q_other[QUOTE_WIDTH]
    cdef bint found
    for g in range(ng):
        gs = s.groups.v[4 * g]
        ge = s.groups.v[4 * g + 1]
        first = s.groups.v[4 * g + 2]
        count = s.groups.v[4 * g + 3]
        if in_fence(s, gs):
            continue
        found = inline_quote(s, gs, previous_end, q)
        if (not found or q[2] == UNREADABLE) and not s.oom:
            # an unreadable inline quotation yields to a blockquote or fence the group ends
            if blockquote_quote(s, gs, ge, previous_end, q_other):
                found = True
                memcpy(q, q_other, sizeof(q))
            elif not s.oom and not found and fenced_quote(s, gs, ge, previous_end, q_other):
                # (an unreadable inline quotation is not left for the block: the words before the
                # group are not checked with it; red team 86, F09)
                found = True
                memcpy(q, q_other, sizeof(q))
        if not found and not s.oom:
            found = loose_quote(s, gs, previous_end, q)
        if s.oom:
            return
        before = previous_end
        previous_end = ge
        claim_start, claim_end = q[0], ge  # (the quotation's start to the group's end)
        if not found:
            closed = forward_quote(s, ge, s.groups.v[4 * (g + 1)] if g + 1 < ng else -1, q)
            if closed < 0 and not s.oom:
                closed = below_quote(s, ge, s.groups.v[4 * (g + 1)] if g + 1 < ng else -1, q)
            if s.oom:
                return
            if closed >= 0:
                found = True
                previous_end = closed
                claim_start, claim_end = gs, closed  # (the group's start to the quotation's end)
        if not found:
            for m in range(first, first + count):
                if not push3(&s.markers, -1, s.marks.v[2 * m], s.marks.v[2 * m + 1]):
                    s.oom = True
                    return
            continue
        if claim_start != gs:  # (read backwards: the quotations of its sentence before it too)
            claim_start = earlier_quotes(s, q, before, first, count)
            if s.oom:
                return
        if not push_carried(s, q, first, count) or not push2(&s.claimed, claim_start, claim_end):
            s.oom = True
            return


# ---- quotations without a marker -----------------------------------------------------------------

cdef bint is_carried(const Scan* s, offset_t start, offset_t end) noexcept nogil:
    """Whether a carried quotation spans exactly [start, end) (their starts ascend)."""
    cdef offset_t lo = 0, hi = s.quotes.n // QUOTE_WIDTH, mid
    while lo < hi:
        mid = (lo + hi) // 2
        if s.quotes.v[QUOTE_WIDTH * mid] < start:
            lo = mid + 1
        else:
            hi = mid
    while lo < s.quotes.n // QUOTE_WIDTH and s.quotes.v[QUOTE_WIDTH * lo] == start:
        if s.quotes.v[QUOTE_WIDTH * lo + 1] == end:
            return True
        lo += 1
    return False


cdef bint is_free(const Scan* s, offset_t start, offset_t end) noexcept nogil:
    """[start, end) touches no fence and overlaps no claimed span (start, group end)."""
    cdef offset_t lo = 0, hi = s.claimed.n // 2, mid
    if touches_fence(s, start, end):
        return False
    while lo < hi:  # the number of claims starting before end
        mid = (lo + hi) // 2
        if s.claimed.v[2 * mid] < end:
            lo = mid + 1
        else:
            hi = mid
    return not (lo > 0 and s.claimed.v[2 * (lo - 1) + 1] > start)


cdef offset_t find_either3(const byte_t* p, offset_t lo, offset_t hi, byte_t a, byte_t b, byte_t c1,
                           byte_t c2) noexcept nogil:
    """First i in [lo, hi - 3] where the bytes a, b and c1 or c2 start, or -1."""
    cdef offset_t i = find_byte(p, lo, hi - 2, a)
    while i >= 0:
        if p[i + 1] == b and (p[i + 2] == c1 or p[i + 2] == c2):
            return i
        i = find_byte(p, i + 1, hi - 2, a)
    return -1


cdef offset_t next_of_three(const byte_t* p, offset_t i, offset_t end, byte_t first, byte_t second,
                           byte_t third, offset_t* next_second, offset_t* next_third) noexcept nogil:
    """The first offset in [i, end) of the byte ``first``, ``second`` or ``third``, or -1. Where
    the next ``second`` and ``third`` are is kept in ``*next_second`` and ``*next_third`` (-1:
    none left; -2: not looked for yet), so that each is searched for once per occurrence, not
    once per call."""
    cdef offset_t j
    cdef const byte_t* hit
    if next_second[0] != -1 and next_second[0] < i:
        next_second[0] = find_byte(p, i, end, second)
    if next_third[0] != -1 and next_third[0] < i:
        next_third[0] = find_byte(p, i, end, third)
    j = next_second[0]
    if next_third[0] >= 0 and (j < 0 or next_third[0] < j):
        j = next_third[0]
    hit = <const byte_t*>memchr(p + i, first, <size_t>((j if j >= 0 else end) - i))
    if hit != NULL:
        j = hit - p
    return j


cdef struct UnmarkedOpener:  # a row of _citations_py._UNMARKED_CLOSERS
    int opener         # its code (code_at), of width 1 for '"' and 3 for the others
    int width
    int closer         # the code of the mark that closes it, of the same width
    int other_closer   # another one (0: none)
    int form

cdef enum:
    UNMARKED_OPENERS = 5

cdef UnmarkedOpener UNMARKED[UNMARKED_OPENERS]
UNMARKED[0] = UnmarkedOpener(0x22, 1, 0x22, 0, DOUBLE)
UNMARKED[1] = UnmarkedOpener(LEFT_DOUBLE, 3, RIGHT_DOUBLE, 0, CURLY)
UNMARKED[2] = UnmarkedOpener(LOW_DOUBLE, 3, LEFT_DOUBLE, RIGHT_DOUBLE, CURLY)  # „…“ „…”
UNMARKED[3] = UnmarkedOpener(LEFT_CORNER, 3, RIGHT_CORNER, 0, CORNER)
UNMARKED[4] = UnmarkedOpener(LEFT_WHITE_CORNER, 3, RIGHT_WHITE_CORNER, 0, CORNER)


cdef offset_t find_closer(const byte_t* p, offset_t lo, offset_t hi, const UnmarkedOpener* u) noexcept nogil:
    """The first mark in [lo, hi) that closes what ``u`` opens, or -1."""
    if u.width == 1:
        return find_byte(p, lo, hi, <byte_t>u.closer)
    if u.other_closer == 0:
        return find_code(p, lo, hi, 3, u.closer)
    return find_either3(p, lo, hi, <byte_t>(u.closer >> 16), <byte_t>(u.closer >> 8),
                        <byte_t>u.closer, <byte_t>u.other_closer)


cdef void find_pairs(Scan* s, offset_t a, offset_t b) noexcept nogil:
    """The quotations of the paragraph [a, b) that pair without doubt, paired left to right
    (_unmarked_pairs): " with ", “ with ”, „ with “ or ”, 「 with 」, 『 with 』. Where the
    next '"' and the next 0xE3 are, and that no closer of a kind is left, are remembered: an
    answer of unclosed openers is read once, not once per opener (red team 33, 04: 40,000
    unclosed curly openers took 6 s)."""
    cdef const byte_t* p = s.p
    cdef offset_t i = a, j, k
    cdef offset_t next_double = -2, next_e3 = -2  # the next '"' / 0xE3 at or after i (-1: none; -2: not looked for)
    cdef bint unclosed[UNMARKED_OPENERS]  # no closer of that opener is left in the paragraph
    cdef const byte_t* hit
    cdef const UnmarkedOpener* u
    memset(unclosed, 0, sizeof(unclosed))
    while i < b:
        j = next_of_three(p, i, b, 0xE2, 0x22, 0xE3, &next_double, &next_e3)
        if j < 0:
            return
        i = j
        u = NULL
        for k in range(UNMARKED_OPENERS):
            if i + UNMARKED[k].width <= b and code_at1(p, i, UNMARKED[k].width) == UNMARKED[k].opener:
                u = &UNMARKED[k]
                break
        if u == NULL:
            i += 1
            continue
        j = -1 if unclosed[k] else find_closer(p, i + u.width, b, u)
        if j < 0:
            unclosed[k] = True
            i += 1
            continue
        if not push5(&s.pairs, i + u.width, j, u.form, i, j + u.width):
            s.oom = True
            return
        i = j + u.width


cdef inline bint is_single3(int code) noexcept nogil:
    return code == RIGHT_SINGLE or code == LEFT_SINGLE


cdef inline bint is_closing3(int code) noexcept nogil:
    """A three-byte mark of _CLOSING_MARKS."""
    return (code == RIGHT_DOUBLE or code == LEFT_DOUBLE or code == RIGHT_SINGLE or code == LEFT_SINGLE
            or code == RIGHT_SINGLE_GUILLEMET or code == LEFT_SINGLE_GUILLEMET or code == RIGHT_CORNER
            or code == RIGHT_WHITE_CORNER)


cdef inline bint is_opening3(int code) noexcept nogil:
    """A mark of _OPENING_MARKS."""
    return code == LOW_DOUBLE or code == LOW_SINGLE or code == LEFT_CORNER or code == LEFT_WHITE_CORNER


cdef offset_t closing_mark_end(const Scan* s, offset_t lo, offset_t hi, bint singles) noexcept nogil:
    """_Scanner._closing_mark_end."""
    cdef const byte_t* p = s.p
    cdef offset_t e = hi
    cdef int code
    while e > lo:
        if p[e - 1] == 0x22:
            return e
        if p[e - 1] == 0x27:
            if singles and not (word_ending(p, e - 1) and word_starting(p, s.n, e)):
                return e
        elif e - 3 >= lo and is_opening3(code_at(p, e - 3, 3)):
            return e
        elif e - 3 >= lo and is_closing3(code_at(p, e - 3, 3)):
            if not is_single3(code_at(p, e - 3, 3)):
                return e
            if singles and not (word_ending(p, e - 3) and word_starting(p, s.n, e)):
                return e
        elif e - 2 >= lo and (code_at(p, e - 2, 2) == RIGHT_GUILLEMET or code_at(p, e - 2, 2) == LEFT_GUILLEMET):
            return e
        e -= 1
    return -1


cdef offset_t mark_width(const byte_t* p, offset_t end) noexcept nogil:
    """_mark_width: 1, 2 or 3."""
    if p[end - 1] == 0x22 or p[end - 1] == 0x27:
        return 1
    if end >= 2 and (code_at(p, end - 2, 2) == LEFT_GUILLEMET or code_at(p, end - 2, 2) == RIGHT_GUILLEMET):
        return 2
    return 3


cdef bint loose_quote(Scan* s, offset_t group_start, offset_t previous_end, offset_t* out) noexcept nogil:
    """_Scanner._loose: the quotation the last closing mark before the group ends."""
    cdef const byte_t* p = s.p
    cdef offset_t c = gap_start(s, group_start), lo, k, ticks = 0, first_tick = -1, last_tick = -1, kept
    lo = max(lower_bound(s, c), previous_end)
    # code spans before the group are not read past (red team 88, F06)
    for k in range(lo, c):
        if p[k] == 0x60:
            ticks += 1
            last_tick = k
            if first_tick < 0:
                first_tick = k
    if ticks >= 2 and ticks % 2 == 0:
        if read_back(s, last_tick + 1, c - 1, previous_end, out) or s.oom:
            return not s.oom
        kept = s.segments.n
        if not read_back(s, lo, first_tick, previous_end, out):
            return False
        s.segments.n = kept  # (what the refused reading left)
        return unreadable(p, lo, c, out)
    # a mark that ends at c ended the gap, and the inline form read it already
    return read_back(s, lo, c - 1, previous_end, out)


cdef bint read_back(Scan* s, offset_t lo, offset_t hi, offset_t previous_end, offset_t* out) noexcept nogil:
    """_Scanner._read_back: loose_quote's read of the closing marks that end in (lo, hi]."""
    cdef const byte_t* p = s.p
    cdef offset_t end, k, read
    cdef bint got
    end = closing_mark_end(s, lo, hi, True)
    if end < 0:
        return False
    if end >= 3 and is_opening3(code_at(p, end - 3, 3)):  # the group stands inside a quotation
        return unreadable(p, lo, end - 3, out)
    got = inline_at(s, end, previous_end, out)
    read = end  # (the lowest mark read: none is read twice)
    for k in range(FORWARD_MARKS - 1):
        if got or s.oom:
            break
        # the mark read as nothing (an apostrophe, a unit): the one before it is read
        end = closing_mark_end(s, lo, read - mark_width(p, read), True)
        if end < 0:
            break
        if end >= 3 and is_opening3(code_at(p, end - 3, 3)):
            return unreadable(p, lo, end - 3, out)
        got = inline_at(s, end, previous_end, out)
        read = end
    if not got and not s.oom:  # (past every single mark: the last other closing mark, if not read)
        end = closing_mark_end(s, lo, hi, False)
        if 0 <= end < read:
            got = inline_at(s, end, previous_end, out)
    return got


cdef void unmarked_inline(Scan* s) noexcept nogil:
    """The pairs no group carries, that hold text and overlap no claim."""
    cdef offset_t k
    cdef const offset_t* pair
    for k in range(s.pairs.n // QUOTE_WIDTH):
        pair = s.pairs.v + QUOTE_WIDTH * k
        if is_carried(s, pair[0], pair[1]) or not has_text(s.p, pair[0], pair[1]) or not is_free(s, pair[3], pair[4]):
            continue
        if not push5(&s.unmarked, pair[0], pair[1], pair[2], 0, 0):
            s.oom = True
            return


cdef offset_t before_opener(const byte_t* p, offset_t line_start, offset_t start) noexcept nogil:
    """Where the opening delimiter of the quotation starting at ``start`` begins: before a
    quotation mark of _OPENERS_3 or _OPENERS_2, a run of backticks, or one straight quote;
    never before ``line_start``."""
    cdef int code
    if start - 3 >= line_start:
        code = code_at(p, start - 3, 3)
        if (code == LEFT_DOUBLE or code == RIGHT_DOUBLE or code == LOW_DOUBLE or code == LEFT_SINGLE
                or code == LOW_SINGLE or code == LEFT_SINGLE_GUILLEMET or code == RIGHT_SINGLE_GUILLEMET
                or code == LEFT_CORNER or code == LEFT_WHITE_CORNER):
            return start - 3
    if start - 2 >= line_start:
        code = code_at(p, start - 2, 2)
        if code == LEFT_GUILLEMET or code == RIGHT_GUILLEMET:
            return start - 2
    if start - 1 >= line_start and p[start - 1] == 0x60:
        while start - 1 >= line_start and p[start - 1] == 0x60:
            start -= 1
        return start
    if start - 1 >= line_start and (p[start - 1] == 0x22 or p[start - 1] == 0x27):
        return start - 1
    return start if start > line_start else line_start


cdef offset_t claim_ending_after(const Scan* s, offset_t pos) noexcept nogil:
    """The index of the first claimed span (start, group end) ending after ``pos``, or the
    number of claims (they are disjoint and in order, so their ends are sorted too)."""
    return first_ending_after(s.claimed.v, s.claimed.n // 2, 2, 1, pos)


cdef bint flush_unmarked_blockquote(Scan* s, offset_t lo_line) noexcept nogil:
    """Report the lines ``s.lines[lo_line:]`` (gathered pairs) as one unmarked blockquote if
    any holds text; False when out of memory."""
    cdef offset_t lo, k
    if not lines_have_text(s, lo_line):
        return True
    lo = s.segments.n // 2
    for k in range(lo_line, s.lines.n // 2):
        if not push2(&s.segments, s.lines.v[2 * k], s.lines.v[2 * k + 1]):
            return False
    return push5(&s.unmarked_bq, s.lines.v[2 * lo_line], s.lines.v[s.lines.n - 1], BLOCKQUOTE, lo, s.segments.n // 2)


cdef void unmarked_blockquotes(Scan* s) noexcept nogil:
    cdef const byte_t* p = s.p
    cdef offset_t n = s.n, ls = 0, le, first, end, row, text_start, text_end, part, k, cut, depth
    cdef bint whole
    while ls <= n:
        le = line_end(p, n, ls)
        if blockquote_prefix(p, ls, le) < 0:
            if le >= n:
                break
            ls = le + 1
            continue
        first = ls
        end = quote_run_end(p, n, le)
        # the run is the lines first .. end. The text no citation claims is quoted (red team
        # 33, 05: a drifted line above `> "per hour" [src:a]`, or before `per hour` on its
        # line, was neither checked nor reported): each run of it is an unmarked blockquote of
        # its own, a line that holds a citation ending the run with its text before the citation
        depth = run_depth(p, n, first, end)
        whole = is_free(s, first, end)
        s.lines.n = 0
        part = 0  # (the first line, in s.lines, of the part being gathered)
        row = first
        while True:
            text_start = row_text(p, n, row, depth, &text_end)
            if whole or is_free(s, row, line_end(p, n, row)):
                if not push2(&s.lines, text_start, text_end):
                    s.oom = True
                    return
            else:
                k = claim_ending_after(s, row)
                cut = (before_opener(p, text_start, s.claimed.v[2 * k])
                       if k < s.claimed.n // 2 and s.claimed.v[2 * k] < text_end else text_start)
                if cut > text_start and not touches_fence(s, row, cut):
                    if not push2(&s.lines, text_start, cut):
                        s.oom = True
                        return
                if not flush_unmarked_blockquote(s, part):
                    s.oom = True
                    return
                part = s.lines.n // 2
            if line_end(p, n, row) >= end:
                break
            row = line_end(p, n, row) + 1
        if not flush_unmarked_blockquote(s, part):
            s.oom = True
            return
        if end >= n:
            break
        ls = end + 1


cdef void scan_pairs(Scan* s) noexcept nogil:
    cdef offset_t k, a = 0, b
    for k in range(s.bounds.n + 1):
        b = s.bounds.v[k] if k < s.bounds.n else s.n
        if b > a:
            find_pairs(s, a, b)
        if s.oom:
            return
        a = max(a, b)


cdef void scan_unmarked(Scan* s) noexcept nogil:
    unmarked_inline(s)
    if not s.oom:
        unmarked_blockquotes(s)


cdef void scan_all(Scan* s) noexcept nogil:
    find_fences(s)
    if not s.oom:
        find_bounds(s)
    if not s.oom:
        find_blockquote_lines(s)
    if not s.oom:
        find_groups(s)
    if not s.oom:
        scan_pairs(s)
    if not s.oom:
        scan_groups(s)
    if not s.oom:
        scan_unmarked(s)


# ---- near-markers -------------------------------------------------------------------------------

cdef offset_t near_blanks(const byte_t* p, offset_t n, offset_t i) noexcept nogil:
    """Past the blanks, no-break, zero-width and ideographic spaces at ``i`` (_NEAR_BLANKS)."""
    while i < n:
        if p[i] == 0x20 or p[i] == 0x09:
            i += 1
        elif i + 2 <= n and p[i] == 0xC2 and p[i + 1] == 0xA0:
            i += 2
        elif i + 3 <= n and p[i] == 0xE2 and p[i + 1] == 0x80 and (0x8B <= p[i + 2] <= 0x8F or p[i + 2] == 0xAF):
            i += 3
        elif i + 3 <= n and ((p[i] == 0xE2 and p[i + 1] == 0x81 and p[i + 2] == 0xA0)
                             or (p[i] == 0xEF and p[i + 1] == 0xBB and p[i + 2] == 0xBF)
                             or (p[i] == 0xE3 and p[i + 1] == 0x80 and p[i + 2] == 0x80)):
            i += 3
        else:
            break
    return i


cdef offset_t near_tail(const byte_t* p, offset_t n, offset_t i) noexcept nogil:
    """From ``i``, right after an opening bracket: blanks, "src", "source" or "sources" in any
    case, blanks again, and a separator (_NEAR_SEPARATOR: a colon, a fullwidth colon, the ratio
    sign or "="); the end of that, or -1 (_NEAR_MARKER)."""
    i = near_blanks(p, n, i)
    if i + 3 > n or (p[i] | 0x20) != 0x73:
        return -1
    if (p[i + 1] | 0x20) == 0x72 and (p[i + 2] | 0x20) == 0x63:
        i += 3
    elif (i + 6 <= n and (p[i + 1] | 0x20) == 0x6F and (p[i + 2] | 0x20) == 0x75
          and (p[i + 3] | 0x20) == 0x72 and (p[i + 4] | 0x20) == 0x63 and (p[i + 5] | 0x20) == 0x65):
        i += 6
        if i < n and (p[i] | 0x20) == 0x73:
            i += 1
    else:
        return -1
    i = near_blanks(p, n, i)
    if i < n and (p[i] == 0x3A or p[i] == 0x3D):
        return i + 1
    if i + 3 <= n and ((p[i] == 0xEF and p[i + 1] == 0xBC and p[i + 2] == 0x9A)
                       or (p[i] == 0xE2 and p[i + 1] == 0x88 and p[i + 2] == 0xB6)):
        return i + 3
    return -1


cdef bint find_near_markers(const byte_t* p, offset_t n, Vec* out) noexcept nogil:
    """Every near-marker, in order (near_markers); False when out of memory."""
    cdef offset_t i = 0, e
    cdef offset_t next_ef = -2, next_e3 = -2, next_paren = -2, j
    while i < n:
        j = next_of_three(p, i, n, 0x5B, 0xEF, 0xE3, &next_ef, &next_e3)
        # a parenthesis too ("(src:a)"), searched for once per occurrence as the other two
        if next_paren != -1 and next_paren < i:
            next_paren = find_byte(p, i, n, 0x28)
        if next_paren >= 0 and (j < 0 or next_paren < j):
            j = next_paren
        if j < 0:
            return True
        e = -1
        if p[j] == 0x5B:
            if j + 5 <= n and memcmp(p + j, b"[src:", 5) == 0:
                if marker_end(p, j, n) < 0:
                    e = j + 5
            else:
                e = near_tail(p, n, j + 2 if j + 1 < n and p[j + 1] == 0x5E else j + 1)
        elif p[j] == 0x28:
            e = near_tail(p, n, j + 1)
        elif j + 3 <= n and ((p[j] == 0xEF and p[j + 1] == 0xBC and p[j + 2] == 0xBB)
                             or (p[j] == 0xE3 and p[j + 1] == 0x80 and (p[j + 2] == 0x90 or p[j + 2] == 0x94))):
            e = near_tail(p, n, j + 3)
        if e >= 0:
            if not push2(out, j, e):
                return False
            i = e
        else:
            i = j + 1
    return True


def near_markers(data):
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    cdef bytes keep = data
    cdef const byte_t* p = <const byte_t*>PyBytes_AS_STRING(keep)
    cdef offset_t n = PyBytes_GET_SIZE(keep)
    cdef Vec out
    cdef bint ok
    memset(&out, 0, sizeof(Vec))
    try:
        with nogil:
            ok = find_near_markers(p, n, &out)
        if not ok:
            raise MemoryError("out of memory while looking for near-markers")
        return rows_of(&out, 2)
    finally:
        free(out.v)


# ---- Python API --------------------------------------------------------------------------------

cdef cnp.ndarray rows_of(const Vec* a, offset_t width):
    cdef offset_t rows = a.n // width
    cdef cnp.ndarray out = np.empty((rows, width), dtype=np.int64)
    if a.n:
        memcpy(cnp.PyArray_DATA(out), a.v, <size_t>a.n * sizeof(offset_t))
    return out


cdef cnp.ndarray merged_unmarked(const Vec* inline, const Vec* bq):
    """Both lists ascend by (start, end, form); merge them (the reference sorts)."""
    cdef offset_t ni = inline.n // QUOTE_WIDTH, nb = bq.n // QUOTE_WIDTH, i = 0, j = 0, k = 0
    cdef cnp.ndarray out = np.empty((ni + nb, QUOTE_WIDTH), dtype=np.int64)
    cdef offset_t* o = <offset_t*>cnp.PyArray_DATA(out)
    cdef const offset_t* x
    cdef bint take_inline
    while i < ni or j < nb:
        if j >= nb:
            take_inline = True
        elif i >= ni:
            take_inline = False
        else:
            x = inline.v + QUOTE_WIDTH * i
            take_inline = (x[0], x[1], x[2]) <= (bq.v[QUOTE_WIDTH * j], bq.v[QUOTE_WIDTH * j + 1], bq.v[QUOTE_WIDTH * j + 2])
        if take_inline:
            memcpy(o + QUOTE_WIDTH * k, inline.v + QUOTE_WIDTH * i, QUOTE_WIDTH * sizeof(offset_t))
            i += 1
        else:
            memcpy(o + QUOTE_WIDTH * k, bq.v + QUOTE_WIDTH * j, QUOTE_WIDTH * sizeof(offset_t))
            j += 1
        k += 1
    return out


def scan(data):
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    cdef bytes keep = data
    cdef Scan s
    memset(&s, 0, sizeof(Scan))
    s.p = <const byte_t*>PyBytes_AS_STRING(keep)
    s.n = PyBytes_GET_SIZE(keep)
    try:
        with nogil:
            scan_all(&s)
        if s.oom:
            raise MemoryError("out of memory while scanning an answer for citations")
        return (
            rows_of(&s.quotes, QUOTE_WIDTH),
            rows_of(&s.markers, 3),
            rows_of(&s.segments, 2),
            merged_unmarked(&s.unmarked, &s.unmarked_bq),
        )
    finally:
        free(s.fences.v)
        free(s.bounds.v)
        free(s.groups.v)
        free(s.marks.v)
        free(s.quotes.v)
        free(s.markers.v)
        free(s.segments.v)
        free(s.pairs.v)
        free(s.unmarked.v)
        free(s.unmarked_bq.v)
        free(s.claimed.v)
        free(s.lines.v)
        free(s.bq_lines.v)
