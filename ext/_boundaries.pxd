# Token boundaries (provgate._matching_py: start_ok, end_ok, occurs_at_boundaries), shared by the
# modules that search a needle literally at token boundaries (matching, and factdiff's
# grounding). Each module keeps its own 256-byte class table, filled once from the reference's
# byte sets, so the two implementations cannot drift apart.
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcmp

from _types cimport byte_t, offset_t

cdef extern from "string.h" nogil:
    void* memmem(const void* haystack, size_t haystacklen, const void* needle, size_t needlelen)

cdef enum:
    WORD = 1
    JOINER = 2

# literal occurrence modes (provgate._matching_py: RELAXED, TOKEN, NUMBER, URL, QUOTE)
cdef enum:
    MODE_RELAXED = 0
    MODE_TOKEN = 1
    MODE_NUMBER = 2
    MODE_URL = 3
    MODE_QUOTE = 4
    N_MODES = 5


cdef inline void fill_byte_classes(byte_t* classes):
    # imported here: a .pxd's module-level imports do not run in the module that cimports it
    from provgate._matching_py import JOINERS, WORD_BYTES
    for c in range(256):
        classes[c] = (WORD if c in WORD_BYTES else 0) | (JOINER if c in JOINERS else 0)


cdef inline bint starts_ok(const byte_t* classes, const byte_t* d, offset_t s) noexcept nogil:
    if s == 0:
        return True
    if classes[d[s - 1]] & WORD:
        return False
    return not ((classes[d[s - 1]] & JOINER) and s >= 2 and (classes[d[s - 2]] & WORD))


cdef inline bint ends_ok(const byte_t* classes, const byte_t* d, offset_t n, offset_t e) noexcept nogil:
    if e == n:
        return True
    if classes[d[e]] & WORD:
        return False
    return not ((classes[d[e]] & JOINER) and e + 1 < n and (classes[d[e + 1]] & WORD))


cdef inline bint is_sign(byte_t c) noexcept nogil:
    return c == b'+' or c == b'-'


cdef inline bint own_left(const byte_t* classes, const byte_t* nd) noexcept nogil:
    """Does a RELAXED needle bring its own boundary on the left (its first byte neither a word
    byte nor a joiner)?"""
    return not (classes[nd[0]] & (WORD | JOINER))


cdef inline bint own_right(const byte_t* classes, const byte_t* nd, offset_t nn) noexcept nogil:
    """...and on the right (its last byte neither, or sentence punctuation: ``.`` or ``,``)?"""
    return not (classes[nd[nn - 1]] & (WORD | JOINER)) or nd[nn - 1] == b'.' or nd[nn - 1] == b','


cdef inline bint stands_at(const byte_t* classes, const byte_t* h, offset_t hn, offset_t s, const byte_t* nd,
                           offset_t nn, int mode) noexcept nogil:
    """Does the occurrence of needle ``nd`` at ``h[s:s + nn]`` (its bytes already equal) count
    at token boundaries, as strictly as ``mode`` says (provgate._matching_py.occurs_in)?"""
    cdef offset_t e = s + nn
    cdef bint relaxed = mode == MODE_RELAXED or mode == MODE_QUOTE
    return (((relaxed and own_left(classes, nd)) or starts_ok(classes, h, s))
            and ((relaxed and own_right(classes, nd, nn)) or ends_ok(classes, h, hn, e))
            and not (mode == MODE_NUMBER and not is_sign(nd[0]) and s >= 1 and is_sign(h[s - 1])
                     and (s == 1 or not (classes[h[s - 2]] & WORD)))
            and not (mode == MODE_NUMBER and e < hn and h[e] == b'%')
            and not (mode == MODE_URL and e < hn and (h[e] == b'?' or h[e] == b'#'))
            and not (mode == MODE_QUOTE and after_negation(classes, h, hn, s)))


cdef inline bint is_ascii_letter(byte_t c) noexcept nogil:
    return (0x41 <= c <= 0x5A) or (0x61 <= c <= 0x7A)


cdef enum:
    # provgate._matching_py.NEGATION_REACH, NEGATION_ASIDE (test_matching's cases at both bounds
    # hold for both implementations)
    NEGATION_REACH = 256
    NEGATION_ASIDE = 40


cdef inline bint is_blank(byte_t c) noexcept nogil:
    return c == b' ' or c == b'\t' or c == b'\r' or c == b'\n'


cdef inline bint is_emphasis(byte_t c) noexcept nogil:
    return c == b'*' or c == b'_' or c == b'~'


cdef inline bint starts_a_line(const byte_t* h, offset_t at, offset_t low) noexcept nogil:
    """provgate._matching_py._starts_a_line: only spaces and tabs before ``h[at]`` on its line,
    down to ``low``?"""
    while at > low and (h[at - 1] == b' ' or h[at - 1] == b'\t'):
        at -= 1
    return at == 0 or h[at - 1] == b'\r' or h[at - 1] == b'\n'


cdef inline offset_t json_string_before(const byte_t* h, offset_t at, offset_t low) noexcept nogil:
    """provgate._matching_py._json_string_before: past the ``", "`` before the ``"`` at
    ``h[at]`` that opens the quoted words, when a JSON array's string closes there; else ``at``."""
    cdef offset_t k = at
    while k > low and is_blank(h[k - 1]):
        k -= 1
    if k > low and h[k - 1] == b',':
        k -= 1
        while k > low and is_blank(h[k - 1]):
            k -= 1
        if k > low and h[k - 1] == b'"':
            return k - 1
    return at


cdef inline offset_t separator_start(const byte_t* h, offset_t hn, offset_t s, offset_t low) noexcept nogil:
    """provgate._matching_py._separator_start: where the stretch of blanks, emphasis markers, a
    short bracketed aside and separating dashes before ``h[s]`` begins (not below ``low``)."""
    cdef offset_t i = s, k, d, bottom
    cdef byte_t c, opener
    while i > low:
        c = h[i - 1]
        if is_blank(c):
            i -= 1
        elif is_emphasis(c):
            k = i - 1
            while k > low and is_emphasis(h[k - 1]):
                k -= 1
            if i < hn and is_blank(h[i]) and starts_a_line(h, k, low):
                break  # (a list bullet or a rule begins a new line's text)
            i = k
        elif c == b')' or c == b']':
            opener = b'(' if c == b')' else b'['
            k = i - 2
            bottom = i - 2 - NEGATION_ASIDE
            if bottom < low:
                bottom = low
            while k >= bottom and h[k] != opener and h[k] != c and h[k] != b'\r' and h[k] != b'\n':
                k -= 1
            if k < bottom or h[k] != opener:
                break
            i = k
        elif i == s and (c == b'"' or c == 0x27):
            i = json_string_before(h, i - 1, low) if c == b'"' else i - 1
        elif i == s and i - 3 >= low and h[i - 3] == 0xE2 and h[i - 2] == 0x80 and (h[i - 1] == 0x9C or h[i - 1] == 0x98):
            i -= 3  # (a curly quotation mark opens the words)
        else:
            if c == b'-':
                d = i - 2 if (i - 2 >= low and h[i - 2] == b'-') else i - 1
            elif i - 3 >= low and h[i - 3] == 0xE2 and h[i - 2] == 0x80 and (h[i - 1] == 0x93 or h[i - 1] == 0x94):
                d = i - 3  # (an en or em dash)
            else:
                break
            if not (i < hn and is_blank(h[i]) and d > low and (h[d - 1] == b' ' or h[d - 1] == b'\t')) \
                    or starts_a_line(h, d, low):
                break  # (a list item's dash begins its line; a dash without blanks joins)
            i = d
    return i


cdef inline bint after_negation(const byte_t* classes, const byte_t* h, offset_t hn, offset_t s) noexcept nogil:
    """provgate._matching_py.after_negation: do the words at ``h[s]`` follow a negation (the
    word before them, past blanks, emphasis markers, a short bracketed aside and separating
    dashes), open a quotation listed after one that does, or lie inside such a quotation (red
    team 100, F01, F10)? Reads only ``h[0:hn]``; cannot raise."""
    cdef offset_t low = s - NEGATION_REACH if s > NEGATION_REACH else 0
    cdef offset_t opened
    if quotation_denied(classes, h, hn, s, low):
        return True
    opened = quotation_around(classes, h, hn, s, low)
    return opened >= 0 and quotation_denied(classes, h, hn, opened,
                                            opened - NEGATION_REACH if opened > NEGATION_REACH else 0)


cdef inline bint quotation_denied(const byte_t* classes, const byte_t* h, offset_t hn, offset_t s,
                                  offset_t low) noexcept nogil:
    """provgate._matching_py._quotation_denied: the words at ``h[s]`` follow a negation, or open
    a quotation listed after one that does (each list step moves back, none below ``low``)?"""
    cdef offset_t i, mark, closer, line, t, e = 0
    while True:
        i = separator_start(h, hn, s, low)
        if negation_before(classes, h, i, s):
            return True
        mark = opening_mark_before(h, s, low)
        if mark < 0:
            return False
        closer = listed_after(classes, h, hn, mark, low)
        if closer >= 0:
            s = words_closed_at(classes, h, hn, closer, low)
        else:
            # a list set out one item a line: the item before, or the header line over the list
            line = bullet_line(h, mark, low)
            if line < 0:
                return False
            i = line_before(h, line, low, &e)
            if i < 0:
                return False
            t = bullet_at(h, i, e)
            if t < 0:
                return negation_heads(classes, h, i, e)
            s = item_quotation(h, t, e)
        if s < 0:
            return False


cdef inline (offset_t, offset_t) emphasis_cut(const byte_t* h, offset_t j, offset_t i) noexcept nogil:
    """The word ``h[j:i]`` without the emphasis ``_`` at its ends: (start, end)."""
    while j < i and h[j] == b'_':
        j += 1
    while i > j and h[i - 1] == b'_':
        i -= 1
    return j, i


cdef inline bint negation_word(const byte_t* h, offset_t j, offset_t i) noexcept nogil:
    """provgate._matching_py._negation_word of ``h[j:i]``, emphasis ``_`` cut from its ends."""
    cdef offset_t n
    j, i = emphasis_cut(h, j, i)
    n = i - j
    if n >= 3 and (h[i - 1] | 0x20) == b't':
        if h[i - 2] == 0x27 and (h[i - 3] | 0x20) == b'n':
            return True
        if n >= 5 and h[i - 4] == 0xE2 and h[i - 3] == 0x80 and h[i - 2] == 0x99 and (h[i - 5] | 0x20) == b'n':
            return True
    return ((n == 3 and lower_is(h + j, b"not", 3)) or (n == 2 and lower_is(h + j, b"no", 2))
            or (n == 5 and lower_is(h + j, b"never", 5)) or (n == 3 and lower_is(h + j, b"nor", 3))
            or (n == 7 and lower_is(h + j, b"neither", 7)) or (n == 6 and lower_is(h + j, b"cannot", 6))
            or (n == 7 and lower_is(h + j, b"without", 7)))


cdef inline bint negation_before(const byte_t* classes, const byte_t* h, offset_t i, offset_t s) noexcept nogil:
    """provgate._matching_py._negation_before: is the word that ends at ``h[i]`` a negation on
    its own (NEGATIONS or a word ending in n't or n’t), but "no" quoted alone before
    the closing mark of the stretch ``h[i:s]`` (red team 100, F08)?"""
    cdef offset_t j, k, n
    if i == s or i == 0 or (h[i - 1] | 0x20) not in (b't', b'o', b'r'):
        return False  # (every negation ends in t, o or r; i == 0: the stretch opens the text, h[-1] is not read)
    j = i
    while j > 0:
        if is_ascii_letter(h[j - 1]) or h[j - 1] == 0x27:
            j -= 1
        elif j >= 3 and h[j - 3] == 0xE2 and h[j - 2] == 0x80 and h[j - 1] == 0x99:
            j -= 3
        else:
            break
    if j == i:
        return False
    if j > 0 and (classes[h[j - 1]] & WORD):  # ("_", a word byte, may wrap it: "_not_")
        k = j
        while k > 0 and is_emphasis(h[k - 1]):
            k -= 1
        if k == j or (k > 0 and (classes[h[k - 1]] & WORD)):
            return False
    n = i - j
    if n == 2 and lower_is(h + j, b"no", 2) and j > 0 and h[j - 1] == b'"':
        k = i
        while k < s and is_blank(h[k]):
            k += 1
        if k < s and h[k] == b'"':
            return False  # ("no" of ["yes", "no", "ask every time"]: the string is the answer alone)
    return negation_word(h, j, i)  # (letters and apostrophes: no emphasis to cut)


cdef inline bint is_curly(const byte_t* h, offset_t at, byte_t last) noexcept nogil:
    """Is the curly mark U+201x ending in byte ``last`` at ``h[at:at + 3]`` (in range)?"""
    return h[at] == 0xE2 and h[at + 1] == 0x80 and h[at + 2] == last


cdef inline offset_t opening_mark_before(const byte_t* h, offset_t s, offset_t low) noexcept nogil:
    """provgate._matching_py._opening_mark_before: where the mark (" ' “ ‘) that opens the words
    at ``h[s]`` begins, or -1."""
    if s > low and (h[s - 1] == b'"' or h[s - 1] == 0x27):
        return s - 1
    if s - 3 >= low and (is_curly(h, s - 3, 0x9C) or is_curly(h, s - 3, 0x98)):
        return s - 3
    return -1


cdef inline offset_t blanks_before(const byte_t* h, offset_t at, offset_t low) noexcept nogil:
    while at > low and is_blank(h[at - 1]):
        at -= 1
    return at


cdef inline offset_t letters_before(const byte_t* h, offset_t at, offset_t low) noexcept nogil:
    while at > low and is_ascii_letter(h[at - 1]):
        at -= 1
    return at


cdef inline offset_t past_separator(const byte_t* h, offset_t hn, offset_t at, offset_t low) noexcept nogil:
    """provgate._matching_py._past_separator: ``at`` moved back over one list separator
    (, ; / ( an em or en dash, a spaced - or --; no dash that begins its line) and the blanks
    before it, or ``at``."""
    cdef offset_t d
    if at > low and (h[at - 1] == b',' or h[at - 1] == b';' or h[at - 1] == b'/' or h[at - 1] == b'('):
        return blanks_before(h, at - 1, low)
    if at - 3 >= low and h[at - 3] == 0xE2 and h[at - 2] == 0x80 and (h[at - 1] == 0x94 or h[at - 1] == 0x93):
        d = at - 3
    elif at > low and h[at - 1] == b'-' and at < hn and is_blank(h[at]):
        d = at - 2 if (at - 2 > low and h[at - 2] == b'-') else at - 1  # (a spaced - or --)
        if not (d > low and (h[d - 1] == b' ' or h[d - 1] == b'\t')):
            return at
    else:
        return at
    if starts_a_line(h, d, low):
        return at  # (a list item's dash begins its line)
    return blanks_before(h, d, low)


cdef inline bint is_list_word(const byte_t* h, offset_t w, offset_t k) noexcept nogil:
    """Is ``h[w:k]`` or, and or nor, in any case (provgate._matching_py._LIST_WORDS)?"""
    return ((k - w == 2 and lower_is(h + w, b"or", 2)) or (k - w == 3 and lower_is(h + w, b"and", 3))
            or (k - w == 3 and lower_is(h + w, b"nor", 3)))


cdef inline offset_t listed_after(const byte_t* classes, const byte_t* h, offset_t hn, offset_t mark,
                                  offset_t low) noexcept nogil:
    """provgate._matching_py._listed_after: where the closing mark (" ' ” ’) of the quotation
    joined to the one ``h[mark]`` opens as a list (or, and, nor, &, and/or, each maybe with a
    filler after it and a separator before it; a comma; a separator alone, the quotation at
    ``mark`` opening no clause of its own where a comma or separator joins) begins; else -1
    (red team 100, F01; red team 103, F03, F05; red team 104, F01, F04)."""
    cdef offset_t k = blanks_before(h, mark, low), w, v, b
    cdef bint tested
    w = letters_before(h, k, low)
    if (w < k and ((k - w == 4 and (lower_is(h + w, b"even", 4) or lower_is(h + w, b"also", 4)
                                    or lower_is(h + w, b"else", 4))))
            and not (w > 0 and (classes[h[w - 1]] & WORD))):
        k = blanks_before(h, w, low)
        w = letters_before(h, k, low)
        if w == k and not (k > low and h[k - 1] == b'&'):
            return -1
    if w < k:
        if not is_list_word(h, w, k):
            return -1
        if w > 0 and (classes[h[w - 1]] & WORD):
            return -1
        if w - 1 > low and h[w - 1] == b'/':  # (and/or, or/and)
            v = letters_before(h, w - 1, low)
            if v < w - 1 and is_list_word(h, v, w - 1) and not (v > 0 and (classes[h[v - 1]] & WORD)):
                w = v
        b = blanks_before(h, w, low)
        k = past_separator(h, hn, b, low)
        tested = k != b
    elif k > low and h[k - 1] == b'&':
        b = blanks_before(h, k - 1, low)
        k = past_separator(h, hn, b, low)
        tested = k != b
    elif k > low and h[k - 1] == b',':
        k = blanks_before(h, k - 1, low)
        tested = True
    else:
        b = past_separator(h, hn, k, low)
        if b == k:
            return -1
        k = b
        tested = True
    if k > low and (h[k - 1] == b'"' or h[k - 1] == 0x27):
        k -= 1
    elif k - 3 >= low and (is_curly(h, k - 3, 0x9D) or is_curly(h, k - 3, 0x99)):
        k -= 3
    else:
        return -1
    return -1 if tested and clause_follows(classes, h, hn, mark) else k


cdef inline bint clause_word(const byte_t* h, offset_t k, offset_t j) noexcept nogil:
    """Is ``h[k:j]`` one of provgate._matching_py._CLAUSE_WORDS, in any case?"""
    cdef offset_t n = j - k
    if n == 2:
        return lower_is(h + k, b"is", 2)
    if n == 3:
        return (lower_is(h + k, b"are", 3) or lower_is(h + k, b"was", 3) or lower_is(h + k, b"can", 3)
                or lower_is(h + k, b"may", 3) or lower_is(h + k, b"did", 3) or lower_is(h + k, b"has", 3)
                or lower_is(h + k, b"had", 3))
    if n == 4:
        return (lower_is(h + k, b"were", 4) or lower_is(h + k, b"will", 4) or lower_is(h + k, b"must", 4)
                or lower_is(h + k, b"does", 4) or lower_is(h + k, b"have", 4))
    if n == 5:
        return (lower_is(h + k, b"would", 5) or lower_is(h + k, b"shall", 5) or lower_is(h + k, b"could", 5)
                or lower_is(h + k, b"might", 5) or lower_is(h + k, b"works", 5))
    if n == 6:
        return lower_is(h + k, b"should", 6) or lower_is(h + k, b"worked", 6)
    if n == 7:
        return lower_is(h + k, b"instead", 7) or lower_is(h + k, b"remains", 7)
    if n == 8:
        return lower_is(h + k, b"replaces", 8) or lower_is(h + k, b"replaced", 8)
    return False


cdef inline bint clause_follows(const byte_t* classes, const byte_t* h, offset_t hn, offset_t mark) noexcept nogil:
    """provgate._matching_py._clause_follows: does the quotation ``h[mark]`` opens stand before
    a clause word, spaces and tabs between (the subject of a clause of its own)?"""
    cdef offset_t k = closing_mark_after(classes, h, hn, mark), j
    if k < 0:
        return False
    while k < hn and (h[k] == b' ' or h[k] == b'\t'):
        k += 1
    j = k
    while j < hn and 0x61 <= (h[j] | 0x20) <= 0x7A:
        j += 1
    return j > k and clause_word(h, k, j) and not (j < hn and (classes[h[j]] & WORD))


cdef inline offset_t closing_mark_after(const byte_t* classes, const byte_t* h, offset_t hn,
                                        offset_t mark) noexcept nogil:
    """provgate._matching_py._closing_mark_after: just past the closing mark of the quotation
    ``h[mark]`` opens, looked for within NEGATION_REACH bytes; or -1."""
    cdef byte_t c = h[mark], last
    cdef offset_t high = mark + 1 + NEGATION_REACH
    cdef offset_t k
    if high > hn:
        high = hn
    if c == b'"' or c == 0x27:
        k = mark + 1
        while k < high:
            if h[k] == c and not (c == 0x27 and apostrophe(classes, h, hn, k)):
                return k + 1
            k += 1
        return -1
    last = 0x9D if h[mark + 2] == 0x9C else 0x99
    k = mark + 3
    while k + 3 <= high:
        if is_curly(h, k, last) and not (last == 0x99 and apostrophe(classes, h, hn, k + 2)):
            return k + 3
        k += 1
    return -1


cdef inline bint is_bullet(byte_t c) noexcept nogil:
    return c == b'-' or c == b'*' or c == b'+'


cdef inline bint is_digit(byte_t c) noexcept nogil:
    return 0x30 <= c <= 0x39


cdef enum:
    MAX_ORDINAL_DIGITS = 9  # provgate._matching_py._MAX_ORDINAL_DIGITS
    HEADER_WORDS = 3  # provgate._matching_py._HEADER_WORDS


cdef inline offset_t bullet_line(const byte_t* h, offset_t mark, offset_t low) noexcept nogil:
    """provgate._matching_py._bullet_line: where the line starts when the quotation ``h[mark]``
    opens is a list item's text (blanks, a bullet, one blank at least, the mark); else -1."""
    cdef offset_t k = mark, d
    while k > low and (h[k - 1] == b' ' or h[k - 1] == b'\t'):
        k -= 1
    if k == mark:
        return -1
    if k > low and is_bullet(h[k - 1]):
        k -= 1
    elif k - 3 >= low and is_curly(h, k - 3, 0xA2):
        k -= 3
    elif k > low and (h[k - 1] == b'.' or h[k - 1] == b')'):
        d = k - 1
        while d > low and is_digit(h[d - 1]):
            d -= 1
        if d == k - 1 or k - 1 - d > MAX_ORDINAL_DIGITS:
            return -1
        k = d
    else:
        return -1
    while k > low and (h[k - 1] == b' ' or h[k - 1] == b'\t'):
        k -= 1
    if k == 0 or (k > low and (h[k - 1] == b'\r' or h[k - 1] == b'\n')):
        return k
    return -1


cdef inline offset_t line_before(const byte_t* h, offset_t line, offset_t low, offset_t* end) noexcept nogil:
    """provgate._matching_py._line_before: the start of the last line with text before the
    line at ``h[line]`` (its text's end in ``end``), or -1."""
    cdef offset_t e = blanks_before(h, line, low), s
    if e == line or e <= low:
        return -1
    s = e
    while s > low and h[s - 1] != b'\r' and h[s - 1] != b'\n':
        s -= 1
    if not (s == 0 or (s > low and (h[s - 1] == b'\r' or h[s - 1] == b'\n'))):
        return -1
    end[0] = e
    return s


cdef inline offset_t bullet_at(const byte_t* h, offset_t s, offset_t e) noexcept nogil:
    """provgate._matching_py._bullet_at: where a list item's text starts on the line
    ``h[s:e]``, or -1."""
    cdef offset_t k = s, d, t
    while k < e and (h[k] == b' ' or h[k] == b'\t'):
        k += 1
    if k < e and is_bullet(h[k]):
        k += 1
    elif k + 3 <= e and is_curly(h, k, 0xA2):
        k += 3
    else:
        d = k
        while d < e and is_digit(h[d]):
            d += 1
        if d == k or d - k > MAX_ORDINAL_DIGITS or d == e or not (h[d] == b'.' or h[d] == b')'):
            return -1
        k = d + 1
    t = k
    while t < e and (h[t] == b' ' or h[t] == b'\t'):
        t += 1
    return t if t > k else -1


cdef inline offset_t item_quotation(const byte_t* h, offset_t t, offset_t e) noexcept nogil:
    """provgate._matching_py._item_quotation: where the words start of the quotation that
    opens a list item's text at ``h[t]``, or -1."""
    if h[t] == b'"' or h[t] == 0x27:
        return t + 1
    if t + 3 <= e and (is_curly(h, t, 0x9C) or is_curly(h, t, 0x98)):
        return t + 3
    return -1


cdef inline bint negation_heads(const byte_t* classes, const byte_t* h, offset_t s, offset_t e) noexcept nogil:
    """provgate._matching_py._negation_heads: is the line ``h[s:e]``, no list item, a header a
    negation governs (``Do not run:``, ``Do not``; not ``Don't forget:``)?"""
    cdef offset_t t, k, j, words = 0, report = 0
    cdef bint colon_end, negated_early = False, last_negated = False, pending = False, plain = True, asks = False
    cdef bint said_no = False
    cdef byte_t c
    t = e
    while t > s and is_emphasis(h[t - 1]):
        t -= 1
    colon_end = t > s and h[t - 1] == b':'
    k = s
    while k < e:
        c = h[k]
        if (classes[c] & WORD) or c == 0x27:
            j = k
            while j < e and ((classes[h[j]] & WORD) or h[j] == 0x27):
                j += 1
            words += 1
            # (the word sets are provgate._matching_py's _CONDITIONS, _FINDINGS, _STRESS, _OMISSIONS)
            if words == 1 and word_in(h, k, j, b"if when unless whenever "):
                return False
            if report:
                # ("No issues found in:": a report of none found, no prohibition)
                if word_in(h, k, j, b"found detected reported seen flagged "):
                    report = 0
                elif report < 3:
                    report += 1
                else:
                    report = 0
                    negated_early = True
            if pending and word_in(h, k, j, b"ever even just really "):
                k = j
                continue
            if pending and not word_in(h, k, j, b"forget skip miss omit neglect fail ignore overlook hesitate leave "):
                if said_no and not word_in(h, k, j, b"found detected reported seen flagged "):
                    report = 1
                else:
                    negated_early = True
            last_negated = negation_word(h, k, j)
            said_no = last_negated and word_in(h, k, j, b"no ")
            pending = words <= HEADER_WORDS and last_negated
            k = j
        else:
            if c == 0x3F:
                asks = True
            if not is_blank(c) and not is_emphasis(c):
                plain = False
            k += 1
    if asks:
        return False
    negated_early = negated_early or report > 0
    return (colon_end and (negated_early or pending)) or (plain and words <= HEADER_WORDS and last_negated)


cdef inline bint word_in(const byte_t* h, offset_t j, offset_t i, const char* words) noexcept nogil:
    """Is ``h[j:i]``, emphasis ``_`` cut from its ends, one of ``words`` (lower-case words, each
    followed by a space), in any case? The header rule's word sets (provgate._matching_py's
    ``_CONDITIONS``, ``_FINDINGS``, ``_STRESS``, ``_OMISSIONS``) as one matcher."""
    cdef offset_t n, a = 0, b
    j, i = emphasis_cut(h, j, i)
    n = i - j
    while words[a] != 0:
        b = a
        while words[b] != 32:
            b += 1
        if b - a == n and lower_is(h + j, words + a, n):
            return True
        a = b + 1
    return False


cdef inline bint apostrophe(const byte_t* classes, const byte_t* h, offset_t hn, offset_t k) noexcept nogil:
    """provgate._matching_py._apostrophe: is the ' at ``h[k]`` (or the ’ that ends there) between
    word bytes?"""
    cdef offset_t a = k - 2 if h[k] == 0x99 else k
    return a > 0 and (classes[h[a - 1]] & WORD) and k + 1 < hn and (classes[h[k + 1]] & WORD)


cdef inline offset_t words_closed_at(const byte_t* classes, const byte_t* h, offset_t hn, offset_t closer,
                                     offset_t low) noexcept nogil:
    """provgate._matching_py._words_closed_at: where the words of the quotation whose closing
    mark begins at ``h[closer]`` start (past the nearest opening mark before it, not below
    ``low``), or -1."""
    cdef byte_t c = h[closer], last
    cdef offset_t k = closer - 1
    if c == b'"' or c == 0x27:
        while k >= low:
            if h[k] == c and not (c == 0x27 and apostrophe(classes, h, hn, k)):
                return k + 1
            k -= 1
        return -1
    last = 0x9C if h[closer + 2] == 0x9D else 0x98
    k = closer - 3
    while k >= low:
        if is_curly(h, k, last):
            return k + 3
        k -= 1
    return -1


cdef inline offset_t quotation_around(const byte_t* classes, const byte_t* h, offset_t hn, offset_t s,
                                      offset_t low) noexcept nogil:
    """provgate._matching_py._quotation_around: where the words of the quotation ``h[s]`` lies
    inside, past its first byte, start (past the nearest opening mark before ``s``, or before
    the mark that opens the words at ``s``: a quotation inside a denied one is denied with it);
    -1 when the nearest mark closes one or none is within reach (red team 100, F10). A ' or ’
    after a word byte is passed with the single quotation it closes, or alone (a plural
    possessive): red team 103, F06."""
    cdef offset_t own = opening_mark_before(h, s, low)
    cdef offset_t k = (own if own >= 0 else s) - 1
    cdef byte_t c
    while k >= low:
        c = h[k]
        if c == b'"':
            return -1 if k > 0 and (classes[h[k - 1]] & WORD) else k + 1
        if c == 0x27 and not apostrophe(classes, h, hn, k):
            if not (k > 0 and (classes[h[k - 1]] & WORD)):
                return k + 1
            k = single_opened(classes, h, hn, k, low) - 1
            continue
        if k - 2 >= low and h[k - 2] == 0xE2 and h[k - 1] == 0x80:
            if c == 0x9C or c == 0x98:
                return k + 1
            if c == 0x9D:
                return -1
            if c == 0x99 and not apostrophe(classes, h, hn, k):
                if not (k - 2 > 0 and (classes[h[k - 3]] & WORD)):
                    return -1
                k = single_opened(classes, h, hn, k - 2, low) - 1
                continue
        k -= 1
    return -1


cdef inline offset_t single_opened(const byte_t* classes, const byte_t* h, offset_t hn, offset_t closer,
                                   offset_t low) noexcept nogil:
    """provgate._matching_py._single_opened: where the opening mark begins of the single
    quotation closed at ``h[closer]``, or ``closer`` (a plural possessive)."""
    cdef bint curly = h[closer] != 0x27
    cdef offset_t k = closer - 1
    cdef byte_t c
    while k >= low:
        c = h[k]
        if c == b'"':
            return closer
        if c == 0x27 and not apostrophe(classes, h, hn, k):
            if curly or (k > 0 and (classes[h[k - 1]] & WORD)):
                return closer
            return k
        if k - 2 >= low and h[k - 2] == 0xE2 and h[k - 1] == 0x80:
            if c == 0x9C or c == 0x9D:
                return closer
            if c == 0x98:
                return k - 2 if curly else closer
            if c == 0x99 and not apostrophe(classes, h, hn, k):
                return closer
        k -= 1
    return closer


cdef inline bint lower_is(const byte_t* a, const char* word, offset_t n) noexcept nogil:
    """Are the ``n`` ASCII letters at ``a``, in lower case, ``word``?"""
    cdef offset_t k
    for k in range(n):
        if (a[k] | 0x20) != <byte_t>word[k]:
            return False
    return True


cdef enum:
    PERIOD_AFTER_MISSES = 8  # provgate._matching_py.PERIOD_AFTER_MISSES


cdef inline offset_t smallest_period(const byte_t* nd, offset_t nn) noexcept nogil:
    """provgate._matching_py.smallest_period, or 0 when its table cannot be had (the search
    then goes on from each occurrence's next byte, as it did)."""
    cdef offset_t* border = <offset_t*>malloc(<size_t>nn * sizeof(offset_t))
    if border == NULL:
        return 0
    cdef offset_t i, k = 0, p
    border[0] = 0
    for i in range(1, nn):
        while k and nd[i] != nd[k]:
            k = border[k - 1]
        if nd[i] == nd[k]:
            k += 1
        border[i] = k
    p = nn - border[nn - 1]
    free(border)
    return p


cdef inline bint occurs(const byte_t* classes, const byte_t* h, offset_t hn, const byte_t* nd,
                        offset_t nn, int mode) noexcept nogil:
    """Does needle ``nd`` occur in ``h`` at token boundaries, as strictly as ``mode`` says
    (provgate._matching_py.occurs_in)?"""
    if nn == 0 or nn > hn:
        return False
    cdef offset_t s = 0, after, misses = 0, period = 0
    cdef const byte_t* hit = <const byte_t*>memmem(h, <size_t>hn, nd, <size_t>nn)
    if hit == NULL:
        return False
    s = hit - h
    while True:
        if stands_at(classes, h, hn, s, nd, nn, mode):
            return True
        # the next occurrence (provgate._matching_py.next_occurrence: a periodic needle's are
        # read in linear time, where a search from each one's next byte was quadratic)
        if 0 < period < nn:
            if s + nn + period <= hn and memcmp(h + s + nn, nd + nn - period, <size_t>period) == 0:
                s += period
                continue
            after = s + nn - period + 1
        else:
            after = s + 1
        if after + nn > hn:
            return False
        hit = <const byte_t*>memmem(h + after, <size_t>(hn - after), nd, <size_t>nn)
        if hit == NULL:
            return False
        s = hit - h
        misses += 1
        if misses == PERIOD_AFTER_MISSES:
            period = smallest_period(nd, nn)



# Boundary markers (provgate._matching_py: marked, marked_pattern): a text rewritten with END
# before each byte where a pattern may end and START where one may begin, so that a marked
# pattern occurs in a marked text exactly where the pattern occurs at token boundaries. Shared
# by matching's collect and factdiff's search of a wide group's sources in one pass.
cdef struct Marks:
    byte_t start  # provgate._matching_py.START
    byte_t end    # provgate._matching_py.END
    byte_t first  # edges[b] & first: some pattern begins with byte b
    byte_t last   # edges[b] & last: some pattern ends with byte b

cdef enum:
    CAN_END = 1
    CAN_START = 2


cdef inline void fill_marks(Marks* marks):
    # imported here: a .pxd's module-level imports do not run in the module that cimports it
    from provgate._matching_py import END, FIRST, LAST, START
    marks.start = START
    marks.end = END
    marks.first = FIRST
    marks.last = LAST


cdef inline offset_t classify(const byte_t* classes, const Marks* marks, const byte_t* d, offset_t n,
                              const byte_t* edges, byte_t* flags) noexcept nogil:
    """flags[p] for p in 0..n: CAN_END if a match may end at p, CAN_START if one may begin.

    Returns the number of markers, or -1 if the data holds a marker byte (not UTF-8).
    """
    cdef offset_t p, markers = 0
    cdef byte_t f, c
    for p in range(n + 1):
        f = 0
        if p < n:
            c = d[p]
            if c == marks.start or c == marks.end:
                return -1
        if p > 0 and (edges[d[p - 1]] & marks.last):
            f = CAN_END
            if p < n:
                c = classes[d[p]]
                if (c & WORD) or ((c & JOINER) and p + 1 < n and (classes[d[p + 1]] & WORD)):
                    f = 0
        if p < n and (edges[d[p]] & marks.first):
            f |= CAN_START
            if p > 0:
                c = classes[d[p - 1]]
                if (c & WORD) or ((c & JOINER) and p >= 2 and (classes[d[p - 2]] & WORD)):
                    f &= ~CAN_START
        flags[p] = f
        markers += (f & CAN_END) != 0
        markers += (f & CAN_START) != 0
    return markers


cdef inline void write_marked(const Marks* marks, const byte_t* d, offset_t n, const byte_t* flags,
                              byte_t* out) noexcept nogil:
    """``d`` with the markers ``classify`` placed (``out`` holds n + markers bytes)."""
    cdef offset_t p, k = 0
    for p in range(n + 1):
        if flags[p] & CAN_END:
            out[k] = marks.end
            k += 1
        if flags[p] & CAN_START:
            out[k] = marks.start
            k += 1
        if p < n:
            out[k] = d[p]
            k += 1


# A haystack's 4-byte substrings, hashed into a bitmap: a needle with one 4-gram whose bit is
# clear occurs nowhere in that haystack, so the memmem scan is skipped. Exact (no needle that
# occurs is ever skipped); it pays where many needles are searched in one long haystack, the
# quotes of an edit's cited blocks in its new blocks (I5) - most occur nowhere.
# The bitmap grows with its haystack (8 to 16 bits a byte, at least 2**16 bits): a fixed 2**16
# bits is nearly full past ~1 MB and then filters nothing, so each of N quotations no source
# holds read a 2 MB log whole (gate shapes, summary_of_invented_quotations: 2,000 took ~1 s).
cdef enum:
    GRAM_MIN_BITS_LOG2 = 16  # the smallest bitmap, 65536 bits (8 KiB): every haystack below 8 KiB
    GRAM_BITS_PER_BYTE = 8  # at least this many bits a haystack byte (under 12% of the bits set)
    GRAM_MIN_HAYSTACK = 1024  # shorter haystacks are scanned as fast as their bitmap is made
    # memmem skims a haystack several times faster than its bitmap is filled, so the bitmap
    # pays only after several searches (gate benchmark, summarize: made on a haystack's second
    # search, grounding's sources, each searched a few times, took 250 -> 370 us; made on the
    # eighth, grounding is unchanged and I5's 89 quotes in one 17 KB text take 231 -> 72 us).
    # A call that knows a haystack will be searched this often has it made on its first
    # search (gram_cache_expect)
    GRAM_BUILD_AT = 8
    # at most this many bitmaps per call: many haystacks of ~1 KiB each, each searched a few
    # times, would otherwise take 8x their size (review rv21, 03: 20 MiB of haystacks,
    # +162 MiB); the rest are searched as before
    GRAM_MAX_BITMAPS = 256
    # bytes of bitmaps above the smallest size one call may hold (a 64 MiB haystack's bitmap,
    # or 32 of 2 MB haystacks); past it a bitmap gets what is left, or the smallest size
    GRAM_BUDGET_BYTES = 64 << 20


cdef inline int gram_bits_log2(offset_t hn) noexcept nogil:
    """log2 of the bits of the bitmap sized for a haystack of ``hn`` bytes (a power of two of
    GRAM_BITS_PER_BYTE to twice that a byte, at least 2**GRAM_MIN_BITS_LOG2)."""
    cdef int log2 = GRAM_MIN_BITS_LOG2
    while log2 < 62 and (<uint64_t>1 << log2) < <uint64_t>hn * GRAM_BITS_PER_BYTE:
        log2 += 1
    return log2


cdef inline uint64_t gram_bit(const byte_t* p, int shift) noexcept nogil:
    """The bit of the 4-gram at ``p`` in a bitmap of 2**(64 - shift) bits: the top bits of a
    64-bit multiplicative (Fibonacci) hash, so each bitmap size hashes the same 4-gram alike."""
    cdef uint64_t g = p[0] | (<uint64_t>p[1] << 8) | (<uint64_t>p[2] << 16) | (<uint64_t>p[3] << 24)
    return (g * <uint64_t>0x9E3779B97F4A7C15u) >> shift


cdef inline void fill_grams(const byte_t* h, offset_t hn, uint64_t* bits, int shift) noexcept nogil:
    """Set the bit of each 4-gram of ``h`` in ``bits`` (2**(64 - shift) bits, zeroed)."""
    cdef offset_t p
    cdef uint64_t b
    for p in range(hn - 3):
        b = gram_bit(h + p, shift)
        bits[b >> 6] |= (<uint64_t>1) << (b & 63)


cdef inline bint grams_absent(const uint64_t* bits, int shift, const byte_t* nd, offset_t nn) noexcept nogil:
    """Does some 4-gram of the needle have its bit clear (so it cannot occur)?"""
    cdef offset_t p
    cdef uint64_t b
    for p in range(nn - 3):
        b = gram_bit(nd + p, shift)
        if not (bits[b >> 6] >> (b & 63)) & 1:
            return True
    return False


cdef struct GramCache:
    # per haystack: its bitmap (NULL until made), its hash shift (64 - log2 of its bits) and
    # how often it was searched before it was made
    uint64_t** bits
    byte_t* shift
    offset_t* searched
    offset_t n
    offset_t made  # bitmaps made so far (at most GRAM_MAX_BITMAPS)
    size_t budget  # bytes left for bitmaps above the smallest size (GRAM_BUDGET_BYTES)


cdef inline int gram_cache_init(GramCache* cache, offset_t n) except -1:
    cache.n = n
    cache.made = 0
    cache.budget = GRAM_BUDGET_BYTES
    cache.bits = <uint64_t**>calloc(max(n, 1), sizeof(uint64_t*))
    cache.shift = <byte_t*>calloc(max(n, 1), sizeof(byte_t))
    cache.searched = <offset_t*>calloc(max(n, 1), sizeof(offset_t))
    if cache.bits == NULL or cache.shift == NULL or cache.searched == NULL:
        gram_cache_free(cache)
        raise MemoryError()
    return 0


cdef inline void gram_cache_free(GramCache* cache) noexcept nogil:
    """Free what ``gram_cache_init`` and the searches allocated (safe on a half-made cache)."""
    cdef offset_t j
    if cache.bits != NULL:
        for j in range(cache.n):
            free(cache.bits[j])
    free(cache.bits)
    free(cache.shift)
    free(cache.searched)
    cache.bits = NULL
    cache.shift = NULL
    cache.searched = NULL


cdef inline int gram_cache_expect(GramCache* cache, offset_t n_needles, const offset_t* needle_lens,
                                  const offset_t* needle_group, offset_t n_groups, const offset_t* offsets,
                                  const offset_t* members) except -1:
    """Mark the haystacks that the needles' groups will search ``GRAM_BUILD_AT`` times or more
    (at most: a needle found in one member skips the rest) to have their bitmap made on their
    first search: the scans before the ``GRAM_BUILD_AT``-th are then filtered too (I5's ~88
    quotes in one 17 KB text: 7 memmem scans of it, ~0.28 M instructions a summarize check).
    Only when the bitmap is made changes, not what is found."""
    if n_needles < GRAM_BUILD_AT:
        return 0  # (no haystack can be searched so often: most calls, at no cost)
    cdef offset_t* per_group = <offset_t*>calloc(max(n_groups, 1), sizeof(offset_t))
    cdef offset_t* per_haystack = <offset_t*>calloc(max(cache.n, 1), sizeof(offset_t))
    cdef offset_t i, g, m
    if per_group == NULL or per_haystack == NULL:
        free(per_group)
        free(per_haystack)
        raise MemoryError()
    for i in range(n_needles):
        if needle_lens[i] >= 4:  # (a shorter needle never reads a bitmap)
            per_group[needle_group[i]] += 1
    for g in range(n_groups):
        if per_group[g]:
            for m in range(offsets[g], offsets[g + 1]):
                per_haystack[members[m]] += per_group[g]
    for i in range(cache.n):
        if per_haystack[i] >= GRAM_BUILD_AT:
            cache.searched[i] = GRAM_BUILD_AT - 1
    free(per_group)
    free(per_haystack)
    return 0


cdef inline uint64_t* make_grams(const byte_t* h, offset_t hn, offset_t j, GramCache* grams) noexcept nogil:
    """Haystack ``j``'s bitmap, sized with it (``gram_bits_log2``) as far as the call's budget
    lasts, at least of the smallest size; NULL if it cannot be allocated (the haystack is then
    scanned as before)."""
    cdef int log2 = gram_bits_log2(hn)
    cdef size_t size = (<size_t>1) << (log2 - 3)
    cdef uint64_t* bits
    while log2 > GRAM_MIN_BITS_LOG2 and size > grams.budget:
        log2 -= 1
        size >>= 1
    bits = <uint64_t*>calloc(size // sizeof(uint64_t), sizeof(uint64_t))  # (zeroed pages, untouched until set)
    if bits == NULL:
        return NULL
    if log2 > GRAM_MIN_BITS_LOG2:
        grams.budget -= size
    grams.shift[j] = <byte_t>(64 - log2)
    fill_grams(h, hn, bits, grams.shift[j])
    grams.bits[j] = bits
    grams.made += 1
    return bits


cdef inline bint occurs_filtered(const byte_t* classes, const byte_t* h, offset_t hn, offset_t j, const byte_t* nd,
                                 offset_t nn, int mode, GramCache* grams) noexcept nogil:
    """``occurs`` in haystack ``j``, the scan skipped where the haystack's 4-gram bitmap
    (``grams.bits[j]``) says the needle cannot be there. The bitmap is made on a long haystack's
    ``GRAM_BUILD_AT``-th search, while fewer than ``GRAM_MAX_BITMAPS`` are made; one that
    cannot be allocated is simply not used. The caller frees them (``gram_cache_free``)."""
    cdef uint64_t* bits = grams.bits[j]
    if bits == NULL and nn >= 4 and hn >= GRAM_MIN_HAYSTACK and grams.made < GRAM_MAX_BITMAPS:
        grams.searched[j] += 1
        if grams.searched[j] == GRAM_BUILD_AT:
            bits = make_grams(h, hn, j, grams)
    if bits != NULL and nn >= 4 and grams_absent(bits, grams.shift[j], nd, nn):
        return False
    return occurs(classes, h, hn, nd, nn, mode)


cdef inline offset_t group_member_occurring_but(const byte_t* classes, const size_t* hay_ptrs,
                                                const offset_t* hay_lens, const offset_t* members, offset_t first,
                                                offset_t last, offset_t searched, const byte_t* nd, offset_t nn,
                                                int mode, GramCache* grams) noexcept nogil:
    """The position (first .. last - 1) of a member whose haystack holds the needle at token
    boundaries, or -1, the member at ``searched`` left out (searched already; -1: none).
    Each haystack is searched through its 4-gram prefilter (``occurs_filtered``)."""
    cdef offset_t m, j
    for m in range(first, last):
        j = members[m]
        if m != searched and occurs_filtered(classes, <const byte_t*>hay_ptrs[j], hay_lens[j], j, nd, nn, mode,
                                             grams):
            return m
    return -1


cdef inline offset_t group_member_occurring(const byte_t* classes, const size_t* hay_ptrs, const offset_t* hay_lens,
                                            const offset_t* members, offset_t first, offset_t last, offset_t hint,
                                            const byte_t* nd, offset_t nn, int mode, GramCache* grams) noexcept nogil:
    """The position (first .. last - 1) of a member whose haystack holds the needle at token
    boundaries, or -1. The member at ``hint`` (if in range) is searched first: a block's
    next quote usually comes from the source its last one came from."""
    cdef offset_t j
    if first <= hint < last:
        j = members[hint]
        if occurs_filtered(classes, <const byte_t*>hay_ptrs[j], hay_lens[j], j, nd, nn, mode, grams):
            return hint
    return group_member_occurring_but(classes, hay_ptrs, hay_lens, members, first, last, hint, nd, nn, mode, grams)
