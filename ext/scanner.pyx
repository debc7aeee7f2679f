"""Grounded-span scanner (hot path 2), native: one pass over UTF-8 bytes per layer.

The grammar is ``docs/grammar.md``; the executable specification is ``provgate._scanner_py``.
This module must return exactly the same columns for every input, span for span. Each
``m_*`` matcher below mirrors one pattern of the reference (which uses atomic groups and
possessive quantifiers precisely so that a greedy loop like these is equivalent), and the
token loop tries them in the reference's order.

Bytes are classified through one 256-entry table of flags, and per 64-byte block through bit
masks (SSE2, or AVX2 where the CPU has it) that tell the token loop where anything can start.
The scan runs without the GIL and appends rows to malloc'ed vectors that grow by doubling; a
row cap (``max_spans``) bounds the memory. The rows are copied into numpy columns at the end.

``extract_columns`` (what ``provgate.extract`` runs) does the scan and the fingerprints of
``provgate.facts`` in one call: see "extraction" at the end of this file.
"""

import numpy as np

cimport numpy as cnp
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.pyport cimport PY_SSIZE_T_MAX
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memchr, memcmp, memcpy, memmove, memset

from _byte_batches cimport byte_data, byte_items, lengths_of, pointers_of
from _types cimport byte_t, offset_t

from provgate._scanner_py import check_span_columns, span_limit
from provgate._scanner_py import first_invalid_row as _first_invalid_row_py
from provgate._scanner_py import frame_facts as _frame_facts_py
from provgate.errors import InvalidArgumentError, LimitExceededError, SpanError

cnp.import_array()

IMPLEMENTATION = "native"

# ---- kinds and value classes (identical numbering to the reference) ----------------------------

cdef enum:
    K_NUMBER = 1
    K_IDENTIFIER = 2
    K_PATH = 3
    K_URL = 4
    K_DIGEST = 5
    K_KV = 6
    K_QUOTE = 7
    K_CITATION = 8
    K_NAME = 9

cdef enum:
    V_RAW = 0
    V_NUMBER = 1
    V_HEX = 2

cdef enum:
    MAX_HANDLE_BYTES = 256
    MAX_JSON_KEY_BYTES = 128
    MAX_EXTENSION_BYTES = 16

# ---- byte classes ------------------------------------------------------------------------------

cdef enum:
    F_W = 1 << 0            # word byte: 0-9 A-Z a-z _ and >= 0x80
    F_SEP = 1 << 1          # 0x00-0x20, 0x7f
    F_DIGIT = 1 << 2
    F_UPPER = 1 << 3
    F_LOWER = 1 << 4
    F_HEX = 1 << 5
    F_PATH = 1 << 6         # W and . - ~ @ + % / \
    F_PATH_PUNCT = 1 << 7   # . - ~ @ + % / \
    F_NO_START = 1 << 8     # a lexeme never starts right after: W . \ (not @: grammar v4; but after .. grammar v17)
    F_OPENER = 1 << 9       # transparent when looking back for a sentence start
    F_TERM = 1 << 10        # . ! ? :
    F_URL = 1 << 11         # URL bytes after the scheme
    F_URL_TRIM = 1 << 12    # . , : ; ! ? ' *
    F_BARE = 1 << 13        # unquoted kv value bytes (a comma is handled apart)
    F_BARE_TRIM = 1 << 14   # . : ! ? *
    F_HANDLE = 1 << 15      # citation handle bytes
    F_SCHEME = 1 << 16      # A-Z a-z 0-9 + . -
    F_KEY = 1 << 17         # 0-9 A-Z a-z _
    F_JSON_KEY = 1 << 18    # bytes of a quoted JSON key
    F_SAFE_AFTER = 1 << 19  # after a lower-case word, this byte rules out every lexeme
    F_QUOTE_DELIM = 1 << 20 # " ' `
    F_BLANK = 1 << 21       # space, tab
    F_IDSTART = 1 << 22     # A-Z a-z _ and >= 0x80
    F_UNDERSCORE = 1 << 23
    F_PSEP = 1 << 25        # / and \\
    F_QUOTE_EVENT = 1 << 27 # " ' `
    F_NO_START_PUNCT = 1 << 28  # . \\
    F_STARTER = 1 << 26     # [ " - + . / ~ \\ : the punctuation at which a lexeme can start
    F_INERT = 1 << 24       # punctuation at which no lexeme starts: ! # $ % & ' ( ) * , : ; < = > ? @ ] ^ ` { | }
    F_ALNUM = 1 << 29       # 0-9 A-Z a-z
    F_LOCAL = 1 << 30       # bytes of an e-mail address's local part: 0-9 A-Z a-z _ . % + -

cdef uint32_t CLS[256]

cdef extern from *:
    """
    #define PG_ONES 0x0101010101010101ULL
    #define PG_HIGHS 0x8080808080808080ULL
    #define PG_NW_MUL1 0x9E3779B97F4A7C15ULL
    #define PG_NW_MUL2 0xBF58476D1CE4E5B9ULL
    #define PG_ONE 1ULL
    """
    # compile-time constants, so masks like ONES * 0x5F fold away
    const uint64_t ONES "PG_ONES"
    const uint64_t HIGHS "PG_HIGHS"
    const uint64_t NW_MUL1 "PG_NW_MUL1"
    const uint64_t NW_MUL2 "PG_NW_MUL2"
    const uint64_t ONE "PG_ONE"


cdef extern from *:
    """
    static inline int pg_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    static inline int pg_clz64(unsigned long long x) { return __builtin_clzll(x); }
    """
    int pg_ctz64(uint64_t x) noexcept nogil
    int pg_clz64(uint64_t x) noexcept nogil


cdef inline uint64_t load8(const byte_t* p) noexcept nogil:
    cdef uint64_t x
    memcpy(&x, p, 8)
    return x


cdef inline uint64_t has_zero_byte(uint64_t v) noexcept nogil:
    return (v - ONES) & ~v & HIGHS


cdef inline uint64_t bytes_in(uint64_t x, uint64_t lo, uint64_t hi) noexcept nogil:
    """High bit of each byte of x set iff that byte is in [lo, hi] (1 <= lo <= hi < 0x80).
    Bytes >= 0x80 are masked to 7 bits first, so no addition carries into the next byte."""
    cdef uint64_t y = x & ~HIGHS
    return (y + ONES * (0x80 - lo)) & ~(y + ONES * (0x7F - hi)) & ~x & HIGHS


cdef void _set(const char* chars, uint32_t flag) noexcept:
    cdef Py_ssize_t i = 0
    while chars[i] != 0:
        CLS[<uint8_t>chars[i]] |= flag
        i += 1


cdef void _init_classes() noexcept:
    cdef int b
    for b in range(256):
        CLS[b] = 0
    for b in range(0x30, 0x3A):
        CLS[b] |= F_W | F_DIGIT | F_HEX | F_KEY | F_SCHEME | F_ALNUM | F_LOCAL
    for b in range(0x41, 0x5B):
        CLS[b] |= F_W | F_UPPER | F_KEY | F_SCHEME | F_IDSTART | F_ALNUM | F_LOCAL
    for b in range(0x61, 0x7B):
        CLS[b] |= F_W | F_LOWER | F_KEY | F_SCHEME | F_IDSTART | F_ALNUM | F_LOCAL
    for b in range(0x41, 0x47):
        CLS[b] |= F_HEX
    for b in range(0x61, 0x67):
        CLS[b] |= F_HEX
    CLS[0x5F] |= F_W | F_KEY | F_IDSTART | F_UNDERSCORE
    for b in range(0x80, 0x100):
        CLS[b] |= F_W | F_IDSTART
    for b in range(0x00, 0x21):
        CLS[b] |= F_SEP
    CLS[0x7F] |= F_SEP
    CLS[0x20] |= F_BLANK
    CLS[0x09] |= F_BLANK
    _set(b".-~@+%/\\", F_PATH_PUNCT | F_PATH)
    _set(b".\\", F_NO_START)
    _set(b"\"'([{<*#>-|`", F_OPENER)
    _set(b".!?:", F_TERM)
    _set(b".,:;!?'*", F_URL_TRIM)
    _set(b".:!?*", F_BARE_TRIM)
    _set(b"+.-", F_SCHEME)
    _set(b"\"'`", F_QUOTE_DELIM)
    _set(b"!#$%&'()*,:;<=>?@]^`{|}", F_INERT)
    _set(b"/\\", F_PSEP)
    _set(b"[\"-+./~\\", F_STARTER)
    _set(b"\"'`", F_QUOTE_EVENT)
    _set(b".\\", F_NO_START_PUNCT)
    _set(b"_.%+-", F_LOCAL)
    # control bytes (other than tab and newline, which are SEP anyway) and these punctuation
    # bytes: after a lower-case word none of them can continue a URL, path, key or name
    # (not < > !: a requirement's comparison after a pin's name, grammar v9)
    # (not [ either: a requirement's extras, requests[socks]>=2.31, grammar v11)
    _set(b"(){};,*&|?^#$'`\"]", F_SAFE_AFTER)
    for b in range(256):
        if CLS[b] & (F_W | F_PATH):
            CLS[b] |= F_PATH
        if CLS[b] & F_W:
            CLS[b] |= F_NO_START
        if not (CLS[b] & F_SEP) and b not in (0x22, 0x3C, 0x3E, 0x5B, 0x5D, 0x5C, 0x5E, 0x60, 0x7B, 0x7C, 0x7D):
            CLS[b] |= F_URL
        if not (CLS[b] & F_SEP) and b not in (0x22, 0x27, 0x60, 0x2C, 0x3B, 0x26, 0x7C, 0x28, 0x29, 0x5B, 0x5D, 0x7B, 0x7D, 0x3C, 0x3E):
            CLS[b] |= F_BARE
        if not (CLS[b] & F_SEP) and b not in (0x5B, 0x5D):
            CLS[b] |= F_HANDLE
        if b >= 0x20 and b not in (0x22, 0x5C, 0x5B, 0x5D):
            CLS[b] |= F_JSON_KEY
        if CLS[b] & F_SEP and b != 0x1B:  # (not ESC: a colour code before a pin's "@", grammar v8)
            CLS[b] |= F_SAFE_AFTER


_init_classes()

# grammar v12 (red team 116 F08): the characters of U+0080..U+037F that are no letter and no
# combining mark (the no-break space, Latin-1 punctuation and symbols, spacing modifier symbols, C1
# controls; not the soft hyphen): an address may stand right after or before one inside a run of
# word bytes. The reference's _LATIN_BOUNDARY_RANGES; LATIN_BOUNDARY[cp - 0x80] is 1 for them.
LATIN_BOUNDARY_RANGES = (
    (0x0080, 0x00A9), (0x00AB, 0x00AC), (0x00AE, 0x00B4), (0x00B6, 0x00B9), (0x00BB, 0x00BF),
    (0x00D7, 0x00D7), (0x00F7, 0x00F7), (0x02C2, 0x02C5), (0x02D2, 0x02DF), (0x02E5, 0x02EB),
    (0x02ED, 0x02ED), (0x02EF, 0x02FF), (0x0375, 0x0375), (0x0378, 0x0379), (0x037E, 0x037E),
)
cdef uint8_t LATIN_BOUNDARY[0x300]
memset(LATIN_BOUNDARY, 0, 0x300)
for _lo, _hi in LATIN_BOUNDARY_RANGES:
    for _cp in range(_lo, _hi + 1):
        LATIN_BOUNDARY[_cp - 0x80] = 1

# number words, lower case: the reference's NUMBER_WORDS, kept alive here and indexed from C
TITLES = frozenset(b"Mr Mrs Ms Dr Prof".split())  # must match title_before()
NUMBER_WORDS = frozenset(
    b"zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    b"fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    b"eighty ninety hundred thousand million billion trillion "
    b"first second third fourth fifth sixth seventh eighth ninth tenth".split()
)
# Looked up in a small open-addressing table keyed by the word packed into two integers (the
# longest number word has 9 bytes), so the hot loop never calls memcmp.
cdef enum:
    NW_SLOTS = 128  # a power of two, more than twice the number of words

cdef uint64_t NW_LO[NW_SLOTS]
cdef uint64_t NW_HI[NW_SLOTS]   # the 9th byte and the length; 0 marks an empty slot
cdef uint16_t NW_PAIR[26 * 32]  # by first two letters: bit k set if a number word has k bytes
# grammar v18: the value of a slot's word when it is a cardinal (the reference's CARDINALS),
# 0xFF for an ordinal or a scale word (no number at a sentence start)
cdef uint8_t NW_VALUE[NW_SLOTS]
# (the tests check they are the reference's CARDINALS)
CARDINALS = {w: v for v, w in enumerate(
    b"zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    b"seventeen eighteen nineteen twenty".split())} | {
    w: 10 * v for v, w in enumerate(b"twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}


cdef inline void pack_word(const byte_t* w, Py_ssize_t n, uint64_t* lo, uint64_t* hi) noexcept nogil:
    cdef Py_ssize_t k
    cdef uint64_t v = 0
    for k in range(n if n < 8 else 8):
        v |= (<uint64_t>w[k]) << (8 * k)
    lo[0] = v
    hi[0] = (<uint64_t>n << 8) | (<uint64_t>w[8] if n > 8 else 0)




cdef inline Py_ssize_t nw_slot(uint64_t lo, uint64_t hi) noexcept nogil:
    return <Py_ssize_t>(((lo ^ (hi * NW_MUL1)) * NW_MUL2) >> 57) & (NW_SLOTS - 1)


cdef void _init_number_words() except *:
    cdef uint64_t lo, hi
    cdef Py_ssize_t slot
    cdef bytes word
    for slot in range(NW_SLOTS):
        NW_LO[slot] = 0
        NW_HI[slot] = 0
        NW_VALUE[slot] = 0xFF
    for slot in range(26 * 32):
        NW_PAIR[slot] = 0
    for word in sorted(NUMBER_WORDS):
        NW_PAIR[(word[0] - 0x61) * 32 + word[1] - 0x61] |= 1 << len(word)
        if not 3 <= len(word) <= 9:
            raise AssertionError("number words must have 3 to 9 bytes")
        pack_word(word, len(word), &lo, &hi)
        slot = nw_slot(lo, hi)
        while NW_HI[slot] != 0:
            slot = (slot + 1) & (NW_SLOTS - 1)
        NW_LO[slot] = lo
        NW_HI[slot] = hi
        NW_VALUE[slot] = CARDINALS.get(word, 0xFF)
    if not set(CARDINALS) <= NUMBER_WORDS:
        raise AssertionError("every cardinal must be a number word")


_init_number_words()

cdef Py_ssize_t UUID_GROUPS[5]
UUID_GROUPS[0] = 8
UUID_GROUPS[1] = 4
UUID_GROUPS[2] = 4
UUID_GROUPS[3] = 4
UUID_GROUPS[4] = 12


cdef inline bint has(byte_t c, uint32_t flag) noexcept nogil:
    return (CLS[c] & flag) != 0


cdef inline bint is_number_word(const byte_t* d, Py_ssize_t p, Py_ssize_t e) noexcept nogil:
    """d[p:e], a word starting with a lower-case letter, is a number word. Most words are
    ruled out by their first two letters and length alone, in one table look-up without a
    branch (a second byte that is no letter may alias a letter's entry: the lookup decides)."""
    cdef Py_ssize_t n = e - p
    cdef unsigned int c0 = <unsigned int>d[p] - 0x61
    cdef unsigned int c1 = (<unsigned int>d[p + (n > 1)] - 0x61) & 31
    if not ((NW_PAIR[c0 * 32 + c1] >> (n & 15)) & (n < 16)):
        return False
    return in_number_words(d + p, n)


cdef int cardinal_value(const byte_t* w, Py_ssize_t n) noexcept nogil:
    """The value of the cardinal w[:n], lower case or capitalised (``three``, ``Three``: 3,
    grammar v18), else -1 (any other word, an ordinal or a scale word: ``first``, ``billion``)."""
    cdef byte_t word[9]
    cdef uint64_t lo, hi
    cdef Py_ssize_t slot, k
    if not 3 <= n <= 9:
        return -1
    for k in range(n):
        word[k] = w[k]
    if has(word[0], F_UPPER):
        word[0] += 32
    pack_word(word, n, &lo, &hi)
    slot = nw_slot(lo, hi)
    while NW_HI[slot] != 0:
        if NW_LO[slot] == lo and NW_HI[slot] == hi:
            return -1 if NW_VALUE[slot] == 0xFF else NW_VALUE[slot]
        slot = (slot + 1) & (NW_SLOTS - 1)
    return -1


cdef bint is_cardinal(const byte_t* s, Py_ssize_t n) noexcept nogil:
    """Is s[:n] a cardinal (the reference's CARDINAL_DIGITS, or a capitalised one): a cardinal
    word, or a compound ``twenty-one`` whose unit word is lower case?"""
    cdef int v, u
    cdef Py_ssize_t k
    if cardinal_value(s, n) >= 0:
        return True
    for k in range(5, 8):  # "forty" .. "seventy": the tens word, then "-"
        if k + 4 <= n and s[k] == b'-':
            v = cardinal_value(s, k)
            u = cardinal_value(s + k + 1, n - k - 1) if has(s[k + 1], F_LOWER) else -1
            if v >= 20 and v % 10 == 0 and 1 <= u <= 9:
                return True
    return False


cdef Py_ssize_t compound_cardinal_end(const byte_t* d, Py_ssize_t n, Py_ssize_t p, Py_ssize_t e) noexcept nogil:
    """The reference's _compound_cardinal_end: the end of ``twenty-one`` when the number word
    d[p:e] is a tens word that "-" and a lower-case unit word one..nine follow, ending the
    chain (no word byte, nor "-" or "." and a word byte, after it); else e."""
    cdef int v = cardinal_value(d + p, e - p), u
    cdef Py_ssize_t q
    if v < 20 or v % 10 or e + 4 > n or d[e] != b'-' or not has(d[e + 1], F_LOWER):
        return e
    q = word_end(d, n, e + 1)
    u = cardinal_value(d + e + 1, q - e - 1)
    if not 1 <= u <= 9:
        return e
    if q + 1 < n and (d[q] == b'-' or d[q] == b'.') and has(d[q + 1], F_W):
        return e
    return q


cdef bint in_number_words(const byte_t* w, Py_ssize_t n) noexcept nogil:
    cdef uint64_t lo, hi
    cdef Py_ssize_t slot
    pack_word(w, n, &lo, &hi)
    slot = nw_slot(lo, hi)
    while NW_HI[slot] != 0:
        if NW_LO[slot] == lo and NW_HI[slot] == hi:
            return True
        slot = (slot + 1) & (NW_SLOTS - 1)
    return False


# ---- growable row vectors (C memory, no GIL needed) -------------------------------------------

cdef struct Row:
    offset_t start
    offset_t end
    offset_t key_start
    offset_t key_end
    offset_t value_start
    offset_t value_end
    uint8_t kind
    uint8_t value_kind

cdef struct Rows:
    Row* rows
    Py_ssize_t n
    Py_ssize_t cap
    Py_ssize_t limit      # more rows than this is an error (max_spans)
    Py_ssize_t room       # min(cap, limit): below it a row is added without further checks
    bint over_limit
    bint no_memory


cdef inline int rows_reserve(Rows* v, Py_ssize_t need) noexcept nogil:
    """Room for ``need`` rows (the capacity doubled, or ``need`` if more); -1 (and the
    vector's flag) when out of memory. The caller tells errors by the return value."""
    cdef Py_ssize_t cap
    cdef Row* grown
    if need <= v.cap:
        return 0
    cap = v.cap * 2 if v.cap else 256
    if cap < need:
        cap = need
    grown = <Row*>realloc(v.rows, cap * sizeof(Row))
    if grown == NULL:
        v.no_memory = True
        return -1
    v.rows = grown
    v.cap = cap
    return 0


cdef inline int rows_push(Rows* v, uint8_t kind, offset_t s, offset_t e, offset_t ks, offset_t ke,
                   offset_t vs, offset_t ve, uint8_t vk) noexcept nogil:
    """Append a row; returns -1 (and sets a flag) when over the limit or out of memory."""
    if v.n >= v.room:
        if v.n >= v.limit:
            v.over_limit = True
            return -1
        if rows_reserve(v, v.n + 1) < 0:
            return -1
        v.room = v.cap if v.cap < v.limit else v.limit
    v.rows[v.n].kind = kind
    v.rows[v.n].start = s
    v.rows[v.n].end = e
    v.rows[v.n].key_start = ks
    v.rows[v.n].key_end = ke
    v.rows[v.n].value_start = vs
    v.rows[v.n].value_end = ve
    v.rows[v.n].value_kind = vk
    v.n += 1
    return 0


# ---- lexemes of the token layer ----------------------------------------------------------------
# Every matcher takes the text (d, n) and a start p, and returns the end of its match or -1.
# None of them can fail otherwise, so they are noexcept.

cdef Py_ssize_t m_citation(const byte_t* d, Py_ssize_t n, Py_ssize_t p,
                           Py_ssize_t* hs, Py_ssize_t* he) noexcept nogil:
    cdef Py_ssize_t q, lim
    if p + 5 > n or memcmp(d + p, b"[src:", 5) != 0:
        return -1
    q = p + 5
    lim = q + MAX_HANDLE_BYTES
    if lim > n:
        lim = n
    while q < lim and has(d[q], F_HANDLE):
        q += 1
    if q == p + 5 or q >= n or d[q] != b']':
        return -1
    hs[0] = p + 5
    he[0] = q
    return q + 1


cdef Py_ssize_t m_url(const byte_t* d, Py_ssize_t n, Py_ssize_t p) noexcept nogil:
    """scheme://rest, then trailing punctuation trimmed (a ")" only while unbalanced). In the
    query or fragment (after the first "?" or "#") the URL goes on over ^ | and [ ] { } while
    those brackets balance, but not into a citation marker "[src:" (stop 39, red team 94 F03)."""
    cdef Py_ssize_t q = p + 1, body, e, opens = 0, closes = 0, square = 0, curly = 0
    cdef byte_t c
    cdef bint query = False
    while q < n and has(d[q], F_SCHEME):
        q += 1
    if q + 3 > n or d[q] != b':' or d[q + 1] != b'/' or d[q + 2] != b'/':
        return -1
    body = q + 3
    e = body
    while e < n and has(d[e], F_URL):
        e += 1
    # only a stop at ^ | [ ] { } may go on, and only when a "?" or "#" came before it
    query = e < n and (d[e] == b'^' or d[e] == b'|' or d[e] == b'[' or d[e] == b']' or d[e] == b'{'
                       or d[e] == b'}') and (memchr(d + body, b'?', e - body) != NULL
                                             or memchr(d + body, b'#', e - body) != NULL)
    while query and e < n:
        c = d[e]
        if has(c, F_URL) or c == b'^' or c == b'|':
            pass
        elif c == b'[':
            if (e + 4 < n and d[e + 1] == b's' and d[e + 2] == b'r' and d[e + 3] == b'c'
                    and d[e + 4] == b':'):
                break
            square += 1
        elif c == b']' and square > 0:
            square -= 1
        elif c == b'{':
            curly += 1
        elif c == b'}' and curly > 0:
            curly -= 1
        else:
            break
        e += 1
    if e == body:
        return -1
    for q in range(p, e):
        if d[q] == b'(':
            opens += 1
        elif d[q] == b')':
            closes += 1
    while e > body:
        c = d[e - 1]
        if has(c, F_URL_TRIM):
            e -= 1
        elif c == b')' and closes > opens:
            e -= 1
            closes -= 1
        else:
            break
    return e if e > body else -1


cdef bint has_extension(const byte_t* d, Py_ssize_t s, Py_ssize_t e) noexcept nogil:
    """The segment d[s:e] is "stem.ext": a stem of >= 1 byte, an alphanumeric extension of
    1..MAX_EXTENSION_BYTES bytes with at least one letter."""
    cdef Py_ssize_t dot = e - 1, q
    cdef bint letter = False
    while dot >= s and d[dot] != b'.':
        dot -= 1
    if dot < s + 1 or e - (dot + 1) < 1 or e - (dot + 1) > MAX_EXTENSION_BYTES:
        return False
    for q in range(dot + 1, e):
        if not has(d[q], F_KEY) or d[q] == b'_':
            return False
        if has(d[q], F_UPPER | F_LOWER):
            letter = True
    return letter


cdef Py_ssize_t m_path(const byte_t* d, Py_ssize_t n, Py_ssize_t p, Cursor* cur) noexcept nogil:
    """p is in the token loop's current block (cur)."""
    cdef bint drive, ok, any_word, seg_has_non_dot = False
    cdef Py_ssize_t run_start, r, q, last_sep = -1, slashes = -1, suffix_end = -1
    cdef Py_ssize_t seg, o
    cdef uint32_t f, seen = 0
    cdef uint64_t run, in_run, seps = 0
    cdef int length
    cdef byte_t c
    drive = (p + 2 < n and has(d[p], F_UPPER | F_LOWER) and d[p + 1] == b':'
             and (d[p + 2] == b'/' or d[p + 2] == b'\\'))
    run_start = p + 2 if drive else p
    o = run_start - cur.base
    run = ~(cur.path >> o) if o < 64 else 0
    length = pg_ctz64(run) if run else 64
    if o + length < 64:
        # the run ends inside the block: its end, separators and word bytes from the block's
        # masks, without a pass over its bytes
        r = run_start + length
        in_run = ((ONE << length) - 1) << o
        seps = cur.sep & in_run
        if not seps:
            return -1  # every path has a separator
        last_sep = cur.base + 63 - pg_clz64(seps)
        any_word = (cur.w & in_run) != 0
    else:
        r = run_start
        slashes = 0
        # one pass: the run of path bytes, its "/" count and its last separator (without
        # branches on the separators, which would be mispredicted)
        while r < n:
            c = d[r]
            f = CLS[c]
            if not (f & F_PATH):
                break
            seen |= f
            slashes += c == b'/'
            last_sep = r if f & F_PSEP else last_sep
            r += 1
        if not (seen & F_PSEP):
            return -1  # every path has a separator
        any_word = (seen & F_W) != 0
    # :line[:col]
    if r + 1 < n and d[r] == b':' and has(d[r + 1], F_DIGIT):
        q = r + 1
        while q < n and has(d[q], F_DIGIT):
            q += 1
        if q + 1 < n and d[q] == b':' and has(d[q + 1], F_DIGIT):
            q += 1
            while q < n and has(d[q], F_DIGIT):
                q += 1
        if q >= n or not has(d[q], F_W):
            suffix_end = q
    seg = last_sep + 1
    if seg < run_start:
        seg = run_start
    if suffix_end < 0:
        for q in range(seg, r):
            if d[q] != b'.':
                seg_has_non_dot = True
                break
        if seg_has_non_dot:
            while r > run_start and d[r - 1] == b'.':
                r -= 1
    if not any_word:
        return -1
    if drive:
        ok = True
    elif d[p] == b'/':
        ok = not (p > 0 and d[p - 1] == b'<')
    elif r - p >= 2 and ((d[p] == b'~' and (d[p + 1] == b'/' or d[p + 1] == b'\\'))
                         or (d[p] == b'\\' and d[p + 1] == b'\\')
                         or (d[p] == b'.' and (d[p + 1] == b'/' or d[p + 1] == b'\\'))):
        ok = True
    elif r - p >= 3 and d[p] == b'.' and d[p + 1] == b'.' and (d[p + 2] == b'/' or d[p + 2] == b'\\'):
        ok = True
    else:
        if slashes < 0:
            # the "/" among the run's separators (from the masks, before trailing dots were
            # trimmed: a dot is no separator, so the count is the same)
            slashes = 0
            while seps:
                slashes += d[cur.base + pg_ctz64(seps)] == b'/'
                seps &= seps - 1
        ok = slashes >= 2 or has_extension(d, seg, r)
    if not ok:
        return -1
    return suffix_end if suffix_end >= 0 else r


cdef inline Py_ssize_t dot_suffixes(const byte_t* d, Py_ssize_t n, Py_ssize_t q) noexcept nogil:
    """The end of the run of ".post3" ".dev1" ".el9" parts (a-z then 0-9, then no word byte) at
    q that a number or version goes on with (stop 39, red team 94 F01)."""
    cdef Py_ssize_t t
    while q + 2 < n and d[q] == b'.' and has(d[q + 1], F_LOWER):
        t = q + 2
        while t < n and has(d[t], F_LOWER):
            t += 1
        if t >= n or not has(d[t], F_DIGIT):
            break
        while t < n and has(d[t], F_DIGIT):
            t += 1
        if t < n and has(d[t], F_W):
            break
        q = t
    return q


cdef Py_ssize_t m_number(const byte_t* d, Py_ssize_t n, Py_ssize_t p) noexcept nogil:
    """[+-]? (hex | thousands | digits(.digits)* | .digits) (% | exponent | unit)? then a
    non-word byte; every part possessive, the alternatives atomic (see _scanner_py._NUMBER)."""
    cdef Py_ssize_t q = p, r, g, t, groups
    if q < n and (d[q] == b'+' or d[q] == b'-'):
        q += 1
    if q >= n:
        return -1
    if d[q] == b'0' and q + 2 < n and (d[q + 1] == b'x' or d[q + 1] == b'X') and has(d[q + 2], F_HEX):
        q += 3
        while q < n and has(d[q], F_HEX):
            q += 1
    else:
        r = q
        while r < n and r - q < 3 and has(d[r], F_DIGIT):
            r += 1
        groups = 0
        g = r
        if r > q:
            while (g + 3 < n and d[g] == b',' and has(d[g + 1], F_DIGIT) and has(d[g + 2], F_DIGIT)
                   and has(d[g + 3], F_DIGIT) and not (g + 4 < n and has(d[g + 4], F_DIGIT))):
                g += 4
                groups += 1
        if groups:
            q = g
            if q + 1 < n and d[q] == b'.' and has(d[q + 1], F_DIGIT):
                q += 1
                while q < n and has(d[q], F_DIGIT):
                    q += 1
        elif has(d[q], F_DIGIT):
            while q < n and has(d[q], F_DIGIT):
                q += 1
            while q + 1 < n and d[q] == b'.' and has(d[q + 1], F_DIGIT):
                q += 1
                while q < n and has(d[q], F_DIGIT):
                    q += 1
        elif d[q] == b'.' and q + 1 < n and has(d[q + 1], F_DIGIT):
            q += 1
            while q < n and has(d[q], F_DIGIT):
                q += 1
        else:
            return -1
    # suffix
    if q < n:
        if d[q] == b'%':
            q += 1
        else:
            t = -1
            if d[q] == b'e' or d[q] == b'E':
                t = q + 1
                if t < n and (d[t] == b'+' or d[t] == b'-'):
                    t += 1
                if t < n and has(d[t], F_DIGIT):
                    while t < n and has(d[t], F_DIGIT):
                        t += 1
                else:
                    t = -1
            if t >= 0:
                q = t
            elif has(d[q], F_UPPER | F_LOWER):
                while q < n and has(d[q], F_UPPER | F_LOWER):
                    q += 1
                while q < n and has(d[q], F_DIGIT):
                    q += 1
    q = dot_suffixes(d, n, q)
    if q < n and has(d[q], F_W):
        return -1
    return q


cdef Py_ssize_t m_version(const byte_t* d, Py_ssize_t n, Py_ssize_t p) noexcept nogil:
    cdef Py_ssize_t q = p + 1
    if q >= n or not has(d[q], F_DIGIT):
        return -1
    while q < n and has(d[q], F_DIGIT):
        q += 1
    while q + 1 < n and d[q] == b'.' and has(d[q + 1], F_DIGIT):
        q += 1
        while q < n and has(d[q], F_DIGIT):
            q += 1
    if q < n and has(d[q], F_UPPER | F_LOWER):
        while q < n and has(d[q], F_UPPER | F_LOWER):
            q += 1
        while q < n and has(d[q], F_DIGIT):
            q += 1
    q = dot_suffixes(d, n, q)
    if q < n and has(d[q], F_W):
        return -1
    return q


cdef Py_ssize_t m_uuid(const byte_t* d, Py_ssize_t n, Py_ssize_t p) noexcept nogil:
    cdef Py_ssize_t q = p, k, g
    for g in range(5):
        if g:
            if q >= n or d[q] != b'-':
                return -1
            q += 1
        for k in range(UUID_GROUPS[g]):
            if q >= n or not has(d[q], F_HEX):
                return -1
            q += 1
    if q < n and has(d[q], F_W):
        return -1
    return q


cdef Py_ssize_t m_digest(const byte_t* d, Py_ssize_t n, Py_ssize_t p) noexcept nogil:
    """7+ hex digits with at least one digit and one letter, ending at a word boundary."""
    cdef Py_ssize_t q = p
    cdef bint digit = False, letter = False
    while q < n and has(d[q], F_HEX):
        if has(d[q], F_DIGIT):
            digit = True
        else:
            letter = True
        q += 1
    if q < n and has(d[q], F_W):
        return -1
    if q - p < 7 or not digit or not letter:
        return -1
    return q


cdef Py_ssize_t word_end(const byte_t* d, Py_ssize_t n, Py_ssize_t p) noexcept nogil:
    """End of the run of word bytes (0-9 A-Z a-z _ >= 0x80) at p, eight bytes at a time."""
    cdef uint64_t x, rest
    while p + 8 <= n:
        x = load8(d + p)
        rest = ~(bytes_in(x | (ONES * 0x20), 0x61, 0x7A) | bytes_in(x, 0x30, 0x39)
                 | bytes_in(x, 0x5F, 0x5F) | (x & HIGHS)) & HIGHS
        if rest:
            return p + (pg_ctz64(rest) >> 3)
        p += 8
    while p < n and has(d[p], F_W):
        p += 1
    return p


cdef Py_ssize_t m_dotted(const byte_t* d, Py_ssize_t n, Py_ssize_t p) noexcept nogil:
    """name.name(.name)*, at least one part of two or more bytes; parts after the first may
    start with a digit (stop 39, red team 94 F01: python3.11, libssl.so.1.1)."""
    cdef Py_ssize_t q = word_end(d, n, p), parts = 1, longest = q - p, s
    while q + 1 < n and d[q] == b'.' and has(d[q + 1], F_W):
        s = q + 1
        q = word_end(d, n, s)
        parts += 1
        if q - s > longest:
            longest = q - s
    if parts < 2 or longest < 2:
        return -1
    return q


cdef inline Py_ssize_t email_label_end(const byte_t* d, Py_ssize_t n, Py_ssize_t q) noexcept nogil:
    """End of a domain label at q (runs of letters and digits joined by single "-"); q holds
    a letter or digit."""
    while True:
        while q < n and has(d[q], F_ALNUM):
            q += 1
        if q + 1 < n and d[q] == b'-' and has(d[q + 1], F_ALNUM):
            q += 1
        else:
            return q


cdef inline bint is_boundary_char(const byte_t* d, Py_ssize_t n, Py_ssize_t k) noexcept nogil:
    """The character whose lead byte is d[k] is at U+0380 or above (grammar v10) or is one of
    LATIN_BOUNDARY (grammar v12); the reference's _is_boundary_char."""
    cdef byte_t lead = d[k]
    if lead >= 0xCE:
        return True
    if 0xC2 <= lead <= 0xCD and k + 1 < n:
        return LATIN_BOUNDARY[((<Py_ssize_t>(lead & 0x1F) << 6) | (d[k + 1] & 0x3F)) - 0x80] != 0
    return False


cdef inline Py_ssize_t glued_email_start(const byte_t* d, Py_ssize_t n, Py_ssize_t p, Py_ssize_t we) noexcept nogil:
    """Where the local part of an address glued to a non-ASCII character in the word d[p:we] (it
    holds one) may start: the ASCII run (letters, digits, _) that ends the word, right after a
    boundary character (is_boundary_char); else -1 (see _scanner_py._match_glued_email)."""
    cdef Py_ssize_t s = we, k
    while s > p and has(d[s - 1], F_KEY):
        s -= 1
    if s == we or s == p:
        return -1
    k = s - 1
    while k > p and 0x80 <= d[k] < 0xC0:
        k -= 1
    return s if is_boundary_char(d, n, k) else -1


cdef Py_ssize_t m_email(const byte_t* d, Py_ssize_t n, Py_ssize_t p, Py_ssize_t q) noexcept nogil:
    """local@label(.label)+ at p, ending at a non-word byte, the last label two or more
    letters (see _scanner_py._EMAIL). d[p:q] is already known to be local-part bytes."""
    cdef Py_ssize_t tld, k
    while q < n and has(d[q], F_LOCAL):
        q += 1
    if q + 1 >= n or d[q] != b'@' or not has(d[q + 1], F_ALNUM):
        return -1
    q = email_label_end(d, n, q + 1)
    tld = -1
    while q + 1 < n and d[q] == b'.' and has(d[q + 1], F_ALNUM):
        tld = q + 1
        q = email_label_end(d, n, tld)
    # grammar v10: the address ends before a character at U+0380 or above (lead byte 0xCE..0xFF),
    # grammar v12: or before one of U+0080..U+037F that is no letter and no mark
    if tld < 0 or (q < n and has(d[q], F_W) and not is_boundary_char(d, n, q)) or q - tld < 2:
        return -1
    for k in range(tld, q):
        if not has(d[k], F_UPPER | F_LOWER):
            return -1
    return q


cdef Py_ssize_t m_hyphen_id(const byte_t* d, Py_ssize_t n, Py_ssize_t p, Py_ssize_t we,
                            bint digit) noexcept nogil:
    """eu-west-1: runs of a-z 0-9 joined by single - or ., with a - and a digit, that are the
    whole chain (see _scanner_py._HYPHEN_ID). d[p:we] is the first run, a lower-case letter
    then a-z 0-9 (digit: it holds a digit)."""
    cdef Py_ssize_t q = we
    cdef bint hyphen = False
    while q + 1 < n and (d[q] == b'-' or d[q] == b'.') and has(d[q + 1], F_LOWER | F_DIGIT):
        hyphen = hyphen or d[q] == b'-'
        q += 1
        while q < n and has(d[q], F_LOWER | F_DIGIT):
            digit = digit or has(d[q], F_DIGIT)
            q += 1
    if q < n and has(d[q], F_W):
        return -1
    if q + 1 < n and (d[q] == b'-' or d[q] == b'.') and has(d[q + 1], F_W):
        return -1
    return q if hyphen and digit else -1


cdef Py_ssize_t skip_blanks(const byte_t* d, Py_ssize_t n, Py_ssize_t q) noexcept nogil:
    while q < n and has(d[q], F_BLANK):
        q += 1
    return q


cdef int bare_value_kind(const byte_t* d, Py_ssize_t s, Py_ssize_t e) noexcept nogil:
    # each matcher runs only if the value's length and first byte allow a whole match
    cdef byte_t c = d[s]
    if has(c, F_HEX):
        if (e - s == 36 and m_uuid(d, e, s) == e) or (e - s >= 7 and m_digest(d, e, s) == e):
            return V_HEX
    if (has(c, F_DIGIT) or c == b'+' or c == b'-' or c == b'.') and m_number(d, e, s) == e:
        return V_NUMBER
    if has(c, F_KEY) and m_email(d, e, s, s) == e:
        return V_HEX  # an e-mail address (never also a number), lower-cased
    return V_RAW


cdef struct Value:
    Py_ssize_t end
    Py_ssize_t start     # of the value itself (inside the quotes for a quoted value)
    Py_ssize_t stop
    int kind
    bint quoted


cdef bint m_value(const byte_t* d, Py_ssize_t n, Py_ssize_t v, Value* out) noexcept nogil:
    """A kv value: a quoted string (verbatim), a URL, or a bare run (see _match_value)."""
    cdef Py_ssize_t q, e
    cdef byte_t c, quote
    if v >= n:
        return False
    c = d[v]
    if c == b'"':
        q = v + 1
        while True:
            if q >= n or d[q] == b'\n':
                return False
            if d[q] == b'"':
                break
            if d[q] == b'\\':
                if q + 1 < n and d[q + 1] != b'\n':
                    q += 2
                    continue
                return False
            q += 1
        out.end = q + 1
        out.start = v + 1
        out.stop = q
        out.kind = V_RAW
        out.quoted = True
        return True
    if c == b'\'' or c == b'`':
        quote = c
        q = v + 1
        while q < n and d[q] != quote and d[q] != b'\n':
            q += 1
        if q >= n or d[q] != quote:
            return False
        out.end = q + 1
        out.start = v + 1
        out.stop = q
        out.kind = V_RAW
        out.quoted = True
        return True
    q = v
    if has(c, F_UPPER | F_LOWER):
        # a URL's scheme; its bytes are bare value bytes too, so without "://" after it the
        # bare run goes on from where the scheme ended
        q = v + 1
        while q < n and has(d[q], F_SCHEME):
            q += 1
        if q + 2 < n and d[q] == b':' and d[q + 1] == b'/' and d[q + 2] == b'/':
            e = m_url(d, n, v)
            if e >= 0:
                out.end = e
                out.start = v
                out.stop = e
                out.kind = V_RAW
                out.quoted = False
                return True
    while q < n:
        if has(d[q], F_BARE):
            q += 1
        elif (d[q] == b',' and q + 3 < n and has(d[q + 1], F_DIGIT) and has(d[q + 2], F_DIGIT)
              and has(d[q + 3], F_DIGIT) and not (q + 4 < n and has(d[q + 4], F_DIGIT))):
            q += 1
        else:
            break
    e = q
    while e > v and has(d[e - 1], F_BARE_TRIM):
        e -= 1
    if e == v:
        return False
    out.end = e
    out.start = v
    out.stop = e
    out.kind = bare_value_kind(d, v, e)
    out.quoted = False
    return True


cdef bint at_line_start(const byte_t* d, Py_ssize_t p) noexcept nogil:
    cdef Py_ssize_t j = p - 1, blanks = 0
    while j >= 0 and has(d[j], F_BLANK):
        j -= 1
        blanks += 1
    if j >= 0 and d[j] == b'-' and blanks:
        j -= 1
        while j >= 0 and has(d[j], F_BLANK):
            j -= 1
    return j < 0 or d[j] == b'\n'


cdef struct KeyValue:
    Py_ssize_t end
    Py_ssize_t key_start
    Py_ssize_t key_end
    Py_ssize_t resume
    Value value


cdef inline void kv_finish(KeyValue* kv, Py_ssize_t ks, Py_ssize_t ke) noexcept nogil:
    kv.end = kv.value.end
    kv.key_start = ks
    kv.key_end = ke
    # the inside of a quoted value is scanned too; an unquoted value is absorbed
    kv.resume = kv.value.start if kv.value.quoted else kv.value.end


cdef bint m_key_value(const byte_t* d, Py_ssize_t n, Py_ssize_t p, Py_ssize_t first_end,
                      KeyValue* kv) noexcept nogil:
    """key=value anywhere; key: value as a whole YAML line. d[p:first_end] is the key's first
    part: an ASCII word (its bytes are key bytes, and the byte at first_end is not)."""
    cdef Py_ssize_t q = first_end, ke, s, v, t
    cdef bint yaml = False
    while q + 1 < n and (d[q] == b'.' or d[q] == b'-') and has(d[q + 1], F_KEY):
        q += 2
        while q < n and has(d[q], F_KEY):
            q += 1
    ke = q
    s = skip_blanks(d, n, ke)
    if s < n and d[s] == b'=' and not (s + 1 < n and (d[s + 1] == b'=' or d[s + 1] == b'>')):
        v = skip_blanks(d, n, s + 1)
    elif ke + 1 < n and d[ke] == b':' and has(d[ke + 1], F_BLANK):
        if not at_line_start(d, p):
            return False
        v = skip_blanks(d, n, ke + 1)
        yaml = True
    else:
        return False
    if not m_value(d, n, v, &kv.value):
        return False
    if yaml:
        t = kv.value.end
        while t < n and (has(d[t], F_BLANK) or d[t] == b'\r'):
            t += 1
        if t < n and d[t] != b'\n' and d[t] != b'#':
            return False
    kv_finish(kv, p, ke)
    return True


cdef Py_ssize_t m_flag(const byte_t* d, Py_ssize_t n, Py_ssize_t p) noexcept nogil:
    """--name(-part)*, ending at a word boundary; returns the end of the name."""
    cdef Py_ssize_t q
    if p + 2 >= n or d[p + 1] != b'-' or not has(d[p + 2], F_UPPER | F_LOWER):
        return -1
    q = p + 3
    while q < n and has(d[q], F_KEY):
        q += 1
    while q + 1 < n and d[q] == b'-' and has(d[q + 1], F_KEY):
        q += 2
        while q < n and has(d[q], F_KEY):
            q += 1
    if q < n and has(d[q], F_W):
        return -1
    return q


cdef bint m_flag_value(const byte_t* d, Py_ssize_t n, Py_ssize_t p, KeyValue* kv) noexcept nogil:
    cdef Py_ssize_t fe = m_flag(d, n, p), v
    if fe < 0:
        return False
    if fe < n and d[fe] == b'=':
        v = fe + 1
    else:
        if fe >= n or not has(d[fe], F_BLANK):
            return False
        v = skip_blanks(d, n, fe)
        if v < n and d[v] == b'-':
            # a value never looks like another flag; a negative number is fine
            if not ((v + 1 < n and has(d[v + 1], F_DIGIT))
                    or (v + 2 < n and d[v + 1] == b'.' and has(d[v + 2], F_DIGIT))):
                return False
    if not m_value(d, n, v, &kv.value):
        return False
    kv_finish(kv, p + 2, fe)
    return True


cdef inline Py_ssize_t json_key_end(const byte_t* d, Py_ssize_t q, Py_ssize_t lim) noexcept nogil:
    """The first position in [q, lim) whose byte cannot be in a quoted JSON key (" \\ [ ] or
    a control byte), or lim; eight bytes at a time (every '"' visits this, and most of them
    open a string that is no key, so the whole string is read)."""
    cdef uint64_t x, hit
    while q + 8 <= lim:
        x = load8(d + q)
        # the lowest byte flagged by has_zero_byte and by the "below 0x20" test is exact
        hit = (has_zero_byte(x ^ (ONES * 0x22)) | has_zero_byte(x ^ (ONES * 0x5C))
               | has_zero_byte(x ^ (ONES * 0x5B)) | has_zero_byte(x ^ (ONES * 0x5D))
               | ((x - ONES * 0x20) & ~x & HIGHS))
        if hit:
            return q + (pg_ctz64(hit) >> 3)
        q += 8
    while q < lim and has(d[q], F_JSON_KEY):
        q += 1
    return q


cdef bint m_json_key_value(const byte_t* d, Py_ssize_t n, Py_ssize_t p, KeyValue* kv) noexcept nogil:
    cdef Py_ssize_t q, lim = p + 1 + MAX_JSON_KEY_BYTES, ke
    if lim > n:
        lim = n
    q = json_key_end(d, p + 1, lim)
    if q == p + 1 or q >= n or d[q] != b'"':
        return False
    ke = q
    q = skip_blanks(d, n, q + 1)
    if q >= n or d[q] != b':':
        return False
    q = skip_blanks(d, n, q + 1)
    if not m_value(d, n, q, &kv.value):
        return False
    kv_finish(kv, p + 1, ke)
    return True


cdef Py_ssize_t m_csi(const byte_t* d, Py_ssize_t n, Py_ssize_t p) noexcept nogil:
    """End of the ANSI CSI sequence at p (an ESC followed by "["), or -1: parameter bytes
    0x30-0x3F, intermediate bytes 0x20-0x2F, a final byte 0x40-0x7E (_scanner_py._CSI)."""
    cdef Py_ssize_t q = p + 2
    while q < n and 0x30 <= d[q] <= 0x3F:
        q += 1
    while q < n and 0x20 <= d[q] <= 0x2F:
        q += 1
    if q < n and 0x40 <= d[q] <= 0x7E:
        return q + 1
    return -1


cdef Py_ssize_t csi_start(const byte_t* d, Py_ssize_t j) noexcept nogil:
    """Start of the CSI sequence whose final byte is d[j], or -1 (_scanner_py._csi_start)."""
    cdef Py_ssize_t k
    if d[j] < 0x40 or d[j] > 0x7E:
        return -1
    k = j - 1
    while k >= 0 and 0x20 <= d[k] <= 0x2F:
        k -= 1
    while k >= 0 and 0x30 <= d[k] <= 0x3F:
        k -= 1
    if k >= 1 and d[k] == b'[' and d[k - 1] == 0x1B:
        return k - 1
    return -1


cdef Py_ssize_t citation_start_ending_at(const byte_t* d, Py_ssize_t j) noexcept nogil:
    """Start of a citation marker whose "]" is at j, or -1. A "[" that is a byte of a CSI
    sequence (after an ESC, or its final byte) begins none."""
    cdef Py_ssize_t lo = j - (MAX_HANDLE_BYTES + 5), i = j - 1
    if lo < 0:
        lo = 0
    while i >= lo and has(d[i], F_HANDLE):
        i -= 1
    if i < lo or d[i] != b'[' or j - (i + 5) < 1 or j - (i + 5) > MAX_HANDLE_BYTES:
        return -1
    if memcmp(d + i + 1, b"src:", 4) != 0:
        return -1
    if (i > 0 and d[i - 1] == 0x1B) or csi_start(d, i) >= 0:
        return -1
    return i


cdef bint title_before(const byte_t* d, Py_ssize_t j) noexcept nogil:
    """Is d[j] the dot of a title abbreviation ("Mr. Smith")? Titles: Mr Mrs Ms Dr Prof."""
    cdef Py_ssize_t k = j, n
    while k > 0 and j - k <= 4 and has(d[k - 1], F_W) and csi_start(d, k - 1) < 0:
        k -= 1
    n = j - k
    if n == 2:
        return (memcmp(d + k, b"Mr", 2) == 0 or memcmp(d + k, b"Ms", 2) == 0
                or memcmp(d + k, b"Dr", 2) == 0)
    if n == 3:
        return memcmp(d + k, b"Mrs", 3) == 0
    if n == 4:
        return memcmp(d + k, b"Prof", 4) == 0
    return False


cdef bint sentence_initial(const byte_t* d, Py_ssize_t p) noexcept nogil:
    cdef Py_ssize_t j = p - 1, k
    cdef byte_t b
    while j >= 0:
        b = d[j]
        if b == b'\n':
            return True
        if 0x40 <= b <= 0x7E:
            k = csi_start(d, j)
            if k >= 0:  # a CSI sequence is control bytes: passed over like SEP
                j = k - 1
                continue
        if has(b, F_SEP | F_OPENER):
            j -= 1
            continue
        if b == b']':
            k = citation_start_ending_at(d, j)
            if k >= 0:
                j = k - 1
                continue
            return False
        if b == b'.' and title_before(d, j):
            return False
        return has(b, F_TERM)
    return True


# ---- the token layer ---------------------------------------------------------------------------

cdef inline int emit(Rows* out, int kind, Py_ssize_t s, Py_ssize_t e, int vk) noexcept nogil:
    return rows_push(out, <uint8_t>kind, s, e, -1, -1, s, e, <uint8_t>vk)


cdef inline int emit_kv(Rows* out, Py_ssize_t p, KeyValue* kv) noexcept nogil:
    return rows_push(out, K_KV, p, kv.end, kv.key_start, kv.key_end, kv.value.start,
                     kv.value.stop, <uint8_t>kv.value.kind)




cdef inline Py_ssize_t find_either(const byte_t* d, Py_ssize_t p, Py_ssize_t end, byte_t a,
                                   byte_t b) noexcept nogil:
    """The first position in [p, end) holding a or b, or end; eight bytes at a time (the
    lowest flagged byte of has_zero_byte is always a true match)."""
    cdef uint64_t x, hit
    while p + 8 <= end:
        x = load8(d + p)
        hit = has_zero_byte(x ^ (ONES * a)) | has_zero_byte(x ^ (ONES * b))
        if hit:
            return p + (pg_ctz64(hit) >> 3)
        p += 8
    while p < end and d[p] != a and d[p] != b:
        p += 1
    return p


cdef struct Shape:
    Py_ssize_t end          # of the maximal run of word bytes
    bint any_digit
    bint all_digit
    bint any_under
    bint all_under
    bint any_upper
    bint two_uppers         # at least two upper-case letters
    bint any_lower
    bint all_lower
    bint all_hex
    bint ascii              # no byte >= 0x80


cdef inline Py_ssize_t skip_seps(const byte_t* d, Py_ssize_t n, Py_ssize_t p) noexcept nogil:
    """End of the run of SEP bytes (0x00-0x20, 0x7f) at p, eight bytes at a time."""
    cdef uint64_t x, y, sep
    while p + 8 <= n:
        x = load8(d + p)
        y = x & ~HIGHS
        sep = (~(y + ONES * 0x5F) & ~x & HIGHS) | bytes_in(x, 0x7F, 0x7F)
        if sep != HIGHS:
            return p + (pg_ctz64(~sep & HIGHS) >> 3)
        p += 8
    while p < n and CLS[d[p]] & F_SEP:
        p += 1
    return p


cdef inline Py_ssize_t lower_run_end(const byte_t* d, Py_ssize_t n, Py_ssize_t p) noexcept nogil:
    """End of the run of a-z at p, as far as the next eight bytes tell (a longer run returns
    p + 8; the caller then sees a lower-case letter there, not a word boundary)."""
    cdef uint64_t rest
    if p + 8 <= n:
        rest = ~bytes_in(load8(d + p), 0x61, 0x7A) & HIGHS
        return p + (pg_ctz64(rest) >> 3) if rest else p + 8
    while p < n and CLS[d[p]] & F_LOWER:
        p += 1
    return p


cdef inline void word_shape(const byte_t* d, Py_ssize_t n, Py_ssize_t p, Shape* w) noexcept nogil:
    """The end of the run of word bytes at p and what it is made of, eight bytes at a time
    (masks instead of one unpredictable branch per byte). A letter's case is bit 5 of its
    byte, so one range test on the byte with that bit set finds letters of both cases."""
    cdef uint64_t x, letter, caseb, digit, under, word, keep, hexes, upper, lower, high
    cdef uint64_t any_digit = 0, any_under = 0, any_lower = 0, any_upper = 0, any_high = 0
    cdef uint64_t not_digit = 0, not_under = 0, not_lower = 0, not_hex = 0
    cdef int uppers = 0
    cdef uint32_t f
    cdef bint done = False
    while p + 8 <= n:
        x = load8(d + p)
        letter = bytes_in(x | (ONES * 0x20), 0x61, 0x7A)
        caseb = (x << 2) & HIGHS  # bit 5 of each byte, moved to bit 7
        lower = letter & caseb
        upper = letter & ~caseb
        digit = bytes_in(x, 0x30, 0x39)
        under = bytes_in(x, 0x5F, 0x5F)
        high = x & HIGHS
        word = letter | digit | under | high
        keep = HIGHS
        if word != HIGHS:
            keep = ~word & HIGHS
            keep = ((keep & (~keep + 1)) - 1) & HIGHS  # the bytes before the first non-word byte
            done = True
        hexes = digit | bytes_in(x | (ONES * 0x20), 0x61, 0x66)
        any_digit |= digit & keep
        any_under |= under & keep
        any_lower |= lower & keep
        any_high |= high & keep
        not_digit |= keep & ~digit
        not_under |= keep & ~under
        not_lower |= keep & ~lower
        not_hex |= keep & ~hexes
        upper &= keep
        if upper:
            uppers += 1 if (upper & (upper - 1)) == 0 else 2
            any_upper = 1
        if done:
            p += pg_ctz64(~word & HIGHS) >> 3
            break
        p += 8
    if not done:
        while p < n:
            f = CLS[d[p]]
            if not (f & F_W):
                break
            if f & F_DIGIT:
                any_digit = 1
            else:
                not_digit = 1
            if f & F_UNDERSCORE:
                any_under = 1
            else:
                not_under = 1
            if f & F_LOWER:
                any_lower = 1
            else:
                not_lower = 1
            if f & F_UPPER:
                any_upper = 1
                uppers += 1
            if not (f & F_HEX):
                not_hex = 1
            if d[p] >= 0x80:
                any_high = 1
            p += 1
    w.end = p
    w.any_digit = any_digit != 0
    w.all_digit = not_digit == 0
    w.any_under = any_under != 0
    w.all_under = not_under == 0
    w.any_upper = any_upper != 0
    w.two_uppers = uppers >= 2
    w.any_lower = any_lower != 0
    w.all_lower = not_lower == 0
    w.all_hex = not_hex == 0
    w.ascii = any_high == 0


cdef inline bint shape_in_block(Cursor* cur, Py_ssize_t p, Shape* w) noexcept nogil:
    """The shape of the word at p from the block's masks, when the word ends inside the
    block (else False: the caller measures it byte by byte)."""
    cdef Py_ssize_t o = p - cur.base
    cdef uint64_t rest = ~(cur.w >> o), m, u
    cdef int length
    if rest == 0:
        return False
    length = pg_ctz64(rest)
    if o + length >= 64:
        return False
    m = ((<uint64_t>1 << length) - 1) << o
    u = cur.upper & m
    w.end = p + length
    w.any_digit = (cur.digit & m) != 0
    w.all_digit = (cur.digit & m) == m
    w.any_under = (cur.under & m) != 0
    w.all_under = (cur.under & m) == m
    w.any_upper = u != 0
    w.two_uppers = (u & (u - 1)) != 0
    w.any_lower = (cur.lower & m) != 0
    w.all_lower = (cur.lower & m) == m
    w.all_hex = ((cur.digit | cur.hexl) & m) == m
    w.ascii = ((cur.lower | cur.upper | cur.digit | cur.under) & m) == m
    return True


cdef struct Pins:
    Py_ssize_t name_end     # the end of the last run of words joined by / or - read for a pin
    Py_ssize_t pin_at       # the "@" of its pin, or -1
    Py_ssize_t key_start    # grammar v8: where the pin's kv key starts (its first plain word)
    Py_ssize_t last_start   # where its last "/" part starts (== key_start: one part)
    Py_ssize_t value_start  # where its ref, the kv value, starts (after "@", ":" or "==")
    Py_ssize_t value_end    # and ends
    int value_kind
    Py_ssize_t req_end      # grammar v11: the end of the last requirement name read (m_requirement)
    Py_ssize_t req_at       # where the last requirement that matched starts (its kv row is written)


cdef inline Py_ssize_t chain_end(const byte_t* d, Py_ssize_t n, Py_ssize_t e) noexcept nogil:
    """e ends a word: the end of the chain of words joined by single "-" that it begins (the
    reference's _CHAIN)."""
    while e + 1 < n and d[e] == b'-' and has(d[e + 1], F_W):
        e = word_end(d, n, e + 1)
    return e


cdef inline bint is_ref_word(const byte_t* w, Py_ssize_t k) noexcept nogil:
    """Is w[:k] one of the reference's REF_WORDS?"""
    if k == 2:
        return memcmp(w, b"rc", 2) == 0
    if k == 3:
        return memcmp(w, b"lts", 3) == 0 or memcmp(w, b"dev", 3) == 0
    if k == 4:
        return (memcmp(w, b"next", 4) == 0 or memcmp(w, b"main", 4) == 0 or memcmp(w, b"beta", 4) == 0
                or memcmp(w, b"edge", 4) == 0 or memcmp(w, b"head", 4) == 0 or memcmp(w, b"HEAD", 4) == 0)
    if k == 5:
        return memcmp(w, b"alpha", 5) == 0 or memcmp(w, b"trunk", 5) == 0
    if k == 6:
        return (memcmp(w, b"latest", 6) == 0 or memcmp(w, b"master", 6) == 0 or memcmp(w, b"stable", 6) == 0
                or memcmp(w, b"canary", 6) == 0)
    if k == 7:
        return memcmp(w, b"nightly", 7) == 0 or memcmp(w, b"develop", 7) == 0
    return False


cdef inline Py_ssize_t ref_word(const byte_t* d, Py_ssize_t n, Py_ssize_t q) noexcept nogil:
    """End of the ref word at q (latest, main, ...: the reference's _REF_WORD), or -1: the whole
    word, and no "-", "." or "/" and a word byte after it."""
    cdef Py_ssize_t e
    if q >= n or not has(d[q], F_UPPER | F_LOWER):
        return -1
    e = word_end(d, n, q)
    if not is_ref_word(d + q, e - q):
        return -1
    if e + 1 < n and (d[e] == b'-' or d[e] == b'.' or d[e] == b'/') and has(d[e + 1], F_W):
        return -1
    return e


cdef inline Py_ssize_t skip_csis(const byte_t* d, Py_ssize_t n, Py_ssize_t q) noexcept nogil:
    """After the ANSI CSI sequences that start at q, if any (the reference's _skip_csis, grammar
    v8: a colour code between a pin's name, its "@" and its ref)."""
    cdef Py_ssize_t e
    while q + 1 < n and d[q] == 0x1B and d[q + 1] == b'[':
        e = m_csi(d, n, q)
        if e < 0:
            break
        q = e
    return q


cdef inline Py_ssize_t range_sign_end(const byte_t* d, Py_ssize_t n, Py_ssize_t q) noexcept nogil:
    """After the range sign at q, if any: ^ ~ >= <= > < = (grammar v8 added the last five)."""
    if q < n and (d[q] == b'^' or d[q] == b'~' or d[q] == b'='):
        return q + 1
    if q < n and (d[q] == b'<' or d[q] == b'>'):
        return q + 2 if q + 1 < n and d[q + 1] == b'=' else q + 1
    return q


cdef inline bint tag_ref(const byte_t* d, Py_ssize_t n, Py_ssize_t q) noexcept nogil:
    """A version (1.25, v4) or a ref word at q, after the ":" of an image tag or the "==" of a
    pip pin (grammar v8, the reference's _TAG_REF)."""
    if q < n and has(d[q], F_DIGIT):
        return True
    if q + 1 < n and (d[q] == b'v' or d[q] == b'V') and has(d[q + 1], F_DIGIT):
        return True
    return ref_word(d, n, q) >= 0


cdef inline Py_ssize_t digest_algorithm_end(const byte_t* d, Py_ssize_t n, Py_ssize_t q) noexcept nogil:
    """Where "sha1", "sha256", "sha384" or "sha512" at q ends (a pin's digest ref names its
    algorithm), or -1."""
    if not (q + 3 < n and d[q] == b's' and d[q + 1] == b'h' and d[q + 2] == b'a'):
        return -1
    q += 3
    if d[q] == b'1':
        return q + 1
    if q + 2 < n and ((d[q] == b'2' and d[q + 1] == b'5' and d[q + 2] == b'6')
                      or (d[q] == b'3' and d[q + 1] == b'8' and d[q + 2] == b'4')
                      or (d[q] == b'5' and d[q + 1] == b'1' and d[q + 2] == b'2')):
        return q + 3
    return -1


cdef inline bint pin_ref(const byte_t* d, Py_ssize_t n, Py_ssize_t q) noexcept nogil:
    """d[q - 1] is "@": a version (4.17.21, v4, ^4.17.21, ~1.2), a digest (sha256:...) or a ref
    word (latest, main) follows it (the reference's _PIN_REF), so the name before the "@" is a
    pin's (grammar v5 and v6)."""
    cdef Py_ssize_t v = range_sign_end(d, n, q)
    if v < n and has(d[v], F_DIGIT):
        return True
    if v + 1 < n and (d[v] == b'v' or d[v] == b'V') and has(d[v + 1], F_DIGIT):
        return True
    v = digest_algorithm_end(d, n, q)
    if v >= 0 and v + 1 < n and d[v] == b':' and has(d[v + 1], F_HEX):
        return True
    return ref_word(d, n, q) >= 0


cdef inline Py_ssize_t pin_value_end(const byte_t* d, Py_ssize_t n, Py_ssize_t q) noexcept nogil:
    """The end of a pin's ref at q, the value of its kv fact (grammar v8; the reference's
    _PIN_VALUE): a range sign, a digest's algorithm and ":", then words of 0-9 A-Z a-z _ joined
    by single . + or -. pin_ref(d, n, q) holds, so the first word is there."""
    cdef Py_ssize_t v
    q = range_sign_end(d, n, q)
    v = digest_algorithm_end(d, n, q)
    if v >= 0 and v < n and d[v] == b':':
        q = v + 1
    while q < n and has(d[q], F_KEY):
        q += 1
    while q + 1 < n and (d[q] == b'.' or d[q] == b'+' or d[q] == b'-') and has(d[q + 1], F_KEY):
        q += 2
        while q < n and has(d[q], F_KEY):
            q += 1
    return q


cdef inline int pin_row(Rows* out, Py_ssize_t p, Pins* pins) noexcept nogil:
    """Grammar v8: the kv fact of the pin whose name's first plain word or last "/" part starts
    at p, right after that word's identifier (the rows stay in (start, end, kind) order: its end
    is the ref's). The reference's rows added after _plain_word_fact."""
    if p < pins.pin_at and (p == pins.key_start or p == pins.last_start) and p != pins.req_at:
        return rows_push(out, K_KV, p, pins.value_end, p, pins.pin_at, pins.value_start,
                         pins.value_end, <uint8_t>pins.value_kind)
    return 0


cdef bint mention_lead(const byte_t* d, Py_ssize_t j) noexcept nogil:
    """Whether d[j], the byte right before an "@", leaves the "@" a mention's (the
    reference's _mention_lead, grammar v7): no word byte, a CSI final byte, a non-ASCII byte,
    or the last digit of a run of digits no ASCII letter or _ precedes."""
    cdef byte_t c = d[j]
    if not has(c, F_W) or c >= 0x80 or csi_start(d, j) >= 0:
        return True
    if not has(c, F_DIGIT):
        return False
    while j > 0 and has(d[j - 1], F_DIGIT):
        j -= 1
    return j == 0 or not has(d[j - 1], F_W) or d[j - 1] >= 0x80


cdef inline Py_ssize_t comparison_end(const byte_t* d, Py_ssize_t n, Py_ssize_t a) noexcept nogil:
    """After a requirement's comparison at a (!= ~= >= <= > <; the reference's _PIN_COMPARISON),
    or -1."""
    if a >= n:
        return -1
    if (d[a] == b'!' or d[a] == b'~') and a + 1 < n and d[a + 1] == b'=':
        return a + 2
    if d[a] == b'>' or d[a] == b'<':
        return a + 2 if a + 1 < n and d[a + 1] == b'=' else a + 1
    return -1


cdef inline Py_ssize_t req_op_end(const byte_t* d, Py_ssize_t n, Py_ssize_t a) noexcept nogil:
    """After a requirement's "==" or comparison at a (the reference's _REQ_OP), or -1."""
    if a < n and d[a] == b'=':
        return a + 2 if a + 1 < n and d[a + 1] == b'=' else -1
    return comparison_end(d, n, a)


cdef inline bint req_version(const byte_t* d, Py_ssize_t n, Py_ssize_t q) noexcept nogil:
    """A version at q: a digit, or v/V and a digit (the reference's _REQ_VERSION)."""
    if q < n and has(d[q], F_DIGIT):
        return True
    return q + 1 < n and (d[q] == b'v' or d[q] == b'V') and has(d[q + 1], F_DIGIT)


cdef Py_ssize_t spec_end(const byte_t* d, Py_ssize_t n, Py_ssize_t e) noexcept nogil:
    """The end of a specifier set whose first clause's version ends at e (the reference's
    _spec_end, grammar v11): each further clause is "," and blanks, or blanks, then a comparison
    and a version."""
    cdef Py_ssize_t q, o
    while True:
        q = e
        if q < n and d[q] == b',':
            q = skip_blanks(d, n, q + 1)
        elif q < n and has(d[q], F_BLANK):
            q = skip_blanks(d, n, q + 1)
        else:
            return e
        o = req_op_end(d, n, q)
        if o < 0 or not req_version(d, n, o):
            return e
        e = pin_value_end(d, n, o)


cdef bint m_requirement(const byte_t* d, Py_ssize_t n, Py_ssize_t p, Py_ssize_t* name_end,
                        Py_ssize_t* vs, Py_ssize_t* ve, int* vk) noexcept nogil:
    """A requirement at p, d[p] an ASCII letter (the reference's _match_requirement, grammar v11):
    sets name_end always, and the value's span and kind when there is one."""
    cdef Py_ssize_t q = p + 1, r, a, o
    while q < n and has(d[q], F_ALNUM):
        q += 1
    while True:
        r = q
        while r < n and (d[r] == b'.' or d[r] == b'_' or d[r] == b'-'):
            r += 1
        if r == q or r >= n or not has(d[r], F_ALNUM):
            break
        while r < n and has(d[r], F_ALNUM):
            r += 1
        q = r
    name_end[0] = q
    a = q
    if a < n and d[a] == b'[':
        r = a + 1
        while r < n and (has(d[r], F_ALNUM | F_BLANK) or d[r] == b'.' or d[r] == b'_' or d[r] == b'-'
                         or d[r] == b','):
            r += 1
        if r < n and d[r] == b']':
            a = r + 1
    o = req_op_end(d, n, a)
    if o < 0 or not req_version(d, n, o):
        return False
    vs[0] = o if (o - a == 2 and d[a] == b'=') else a
    ve[0] = spec_end(d, n, pin_value_end(d, n, o))
    vk[0] = bare_value_kind(d, vs[0], ve[0])
    return True


cdef Py_ssize_t plain_word_fact(const byte_t* d, Py_ssize_t n, Py_ssize_t p, Py_ssize_t we, byte_t prev,
                                Pins* pins) noexcept nogil:
    """End of the identifier the plain word d[p:we] (no fact by itself) begins, or -1 (the
    reference's _plain_word_fact, grammar v6): a part of a pin's name, a mention, a ref word."""
    cdef Py_ssize_t r, e, v, a, op = -1
    if p >= pins.name_end:
        if we < n and (d[we] == b'/' or d[we] == b'-' or d[we] == b'@' or d[we] == b'=' or d[we] == b':'
                       or d[we] == 0x1B or d[we] == b'<' or d[we] == b'>' or d[we] == b'!' or d[we] == b'~'):
            r = we
            while r + 1 < n and (d[r] == b'/' or d[r] == b'-') and has(d[r + 1], F_W):
                r = word_end(d, n, r + 1)
            pins.name_end = r
            v = -1
            a = skip_csis(d, n, r)
            if a < n:
                if d[a] == b'@':
                    v = skip_csis(d, n, a + 1)
                    v = v if pin_ref(d, n, v) else -1
                elif d[a] == b':':
                    v = skip_csis(d, n, a + 1)
                    v = v if tag_ref(d, n, v) else -1
                elif d[a] == b'=' and a + 1 < n and d[a + 1] == b'=':
                    v = skip_csis(d, n, a + 2)
                    v = v if tag_ref(d, n, v) else -1
                else:
                    # grammar v9: a requirement's comparison (the reference's _PIN_COMPARISON)
                    # is part of the pin's value
                    e = comparison_end(d, n, a)
                    if e >= 0 and tag_ref(d, n, e):
                        v = e
                        op = a
            pins.pin_at = r if v >= 0 else -1
            if pins.pin_at >= 0:
                pins.key_start = p
                pins.last_start = p
                e = r - 1
                while e > p:
                    if d[e] == b'/':
                        pins.last_start = e + 1
                        break
                    e -= 1
                pins.value_start = v if op < 0 else op
                pins.value_end = pin_value_end(d, n, v)
                if d[a] != b':':  # grammar v11: a specifier set's further clauses
                    pins.value_end = spec_end(d, n, pins.value_end)
                pins.value_kind = bare_value_kind(d, pins.value_start, pins.value_end)
        else:
            pins.name_end = we
            pins.pin_at = -1
    if p < pins.pin_at:
        return chain_end(d, n, we)
    if prev == b'@':
        if p < 2 or mention_lead(d, p - 2):
            return chain_end(d, n, we)
        e = ref_word(d, n, p)
        if e == we:
            return e
    return -1


cdef inline int classify_shape(const byte_t* d, Py_ssize_t p, Shape* w) noexcept nogil:
    """Kind of the plain word d[p:w.end] (the reference's _classify_word), from its shape."""
    cdef byte_t c = d[p]
    if w.all_digit:
        return K_NUMBER
    if w.any_digit or w.any_under:
        return 0 if w.all_under else K_IDENTIFIER
    if has(c, F_LOWER):
        if w.any_upper:
            return K_IDENTIFIER
        return K_NUMBER if is_number_word(d, p, w.end) else 0
    if not has(c, F_UPPER) or w.end - p < 2:
        return 0
    if not w.any_lower:
        return K_NAME
    if w.two_uppers:
        return K_IDENTIFIER
    if sentence_initial(d, p):
        # grammar v18: "Three tests fail." states a count as "3 tests fail" does
        return K_NUMBER if cardinal_value(d + p, w.end - p) >= 0 else 0
    return K_NAME


cdef inline bint may_hold_separator(Cursor* cur, Py_ssize_t p) noexcept nogil:
    """False when the run of path bytes at p ends inside the current block without a / or \\
    (so no path starts at p); True when it does hold one or runs past the block."""
    cdef Py_ssize_t o = p - cur.base
    cdef uint64_t run = ~(cur.path >> o)
    cdef int length
    if run == 0:
        return True
    length = pg_ctz64(run)
    if o + length >= 64:
        return True
    return ((cur.sep >> o) & ((<uint64_t>1 << length) - 1)) != 0


cdef inline Py_ssize_t path_run_in_block(Cursor* cur, Py_ssize_t p) noexcept nogil:
    """The length of the run of path bytes at p (word bytes and . - ~ @ + % / \\) when it ends
    inside the current block, else -1. An e-mail address or a hyphenated ID at p lies in it."""
    cdef Py_ssize_t o = p - cur.base
    cdef uint64_t run = ~(cur.path >> o)
    cdef int length
    if run == 0:
        return -1
    length = pg_ctz64(run)
    return length if o + length < 64 else -1


cdef inline bint may_hold_at(Cursor* cur, Py_ssize_t p) noexcept nogil:
    """False when the run of path bytes at p ends inside the block without an "@" (so no
    e-mail address starts at p)."""
    cdef Py_ssize_t length = path_run_in_block(cur, p)
    if length < 0:
        return True
    return ((cur.at >> (p - cur.base)) & ((<uint64_t>1 << length) - 1)) != 0


cdef inline bint may_hold_digit(Cursor* cur, Py_ssize_t p) noexcept nogil:
    """False when the run of path bytes at p ends inside the block without a digit (so no
    hyphenated ID starts at p)."""
    cdef Py_ssize_t length = path_run_in_block(cur, p)
    if length < 0:
        return True
    return ((cur.digit >> (p - cur.base)) & ((<uint64_t>1 << length) - 1)) != 0


cdef inline bint equals_after_blanks(const byte_t* d, Py_ssize_t n, Py_ssize_t q) noexcept nogil:
    """Is d[q] a blank that starts a run of blanks followed by "="?"""
    if q >= n or not has(d[q], F_BLANK):
        return False
    q = skip_blanks(d, n, q + 1)
    return q < n and d[q] == b'='


cdef int word_token(const byte_t* d, Py_ssize_t n, Py_ssize_t p, byte_t prev, Shape* shape,
                    Cursor* cur, Rows* out, Py_ssize_t* next_p, Pins* pins) noexcept nogil:
    """The token at a word byte p (a lexeme may start here). The word's shape and the bytes
    after it decide which of the reference's matchers can possibly match; only those run, in
    the reference's order. Sets next_p; returns -1 when a row could not be added."""
    cdef Shape* w = shape
    cdef Py_ssize_t e, t, we = w.end
    cdef byte_t c = d[p], b, b1
    cdef bint letter = has(c, F_UPPER | F_LOWER), ascii_word
    cdef int kind
    cdef KeyValue kv
    ascii_word = w.ascii
    b = d[we] if we < n else 0
    b1 = d[we + 1] if we + 1 < n else 0
    # A word followed by a SAFE_AFTER byte (not blanks then "=") cannot begin a URL, kv key,
    # path, UUID or dotted name: each needs one of : + . - = / \\ ~ @ % after the word, and a
    # number needs one of . , % to go on past an all-digit word. So it is a number, a digest
    # or a plain word, decided from its shape (a digit-led word with letters, "30s", and a
    # version "v2" still go through their matchers below).
    if has(b, F_SAFE_AFTER) and not (b == b',' and has(c, F_DIGIT)) and not equals_after_blanks(d, n, we):
        if has(c, F_DIGIT):
            if w.all_digit:
                next_p[0] = we
                return emit(out, K_NUMBER, p, we, V_NUMBER)
        elif not ((c == b'v' or c == b'V') and p + 1 < n and has(d[p + 1], F_DIGIT)):
            next_p[0] = we
            if w.all_hex and we - p >= 7 and w.any_digit:
                return emit(out, K_DIGEST, p, we, V_HEX)
            kind = classify_shape(d, p, w)
            if kind:
                return emit(out, kind, p, we, V_NUMBER if kind == K_NUMBER else V_RAW)
            e = plain_word_fact(d, n, p, we, prev, pins)
            if e >= 0:
                next_p[0] = e
                if emit(out, K_IDENTIFIER, p, e, V_RAW) < 0:
                    return -1
                return pin_row(out, p, pins)
            return 0
    if we < n:
        # a URL scheme is ASCII letters, digits and + . - followed by "://"
        if (letter and prev != b'+' and prev != b'-' and ascii_word and not w.any_under
                and ((b == b':' and b1 == b'/' and we + 2 < n and d[we + 2] == b'/')
                     or ((b == b'+' or b == b'.' or b == b'-') and (has(b1, F_SCHEME) or b1 == b':')))):
            e = m_url(d, n, p)
            if e >= 0:
                next_p[0] = e
                return emit(out, K_URL, p, e, V_RAW)
        # a key is ASCII, followed by . - and more key, "=", ": " or blanks and "="
        if (letter or c == b'_') and prev != b'-' and ascii_word:
            t = skip_blanks(d, n, we) if has(b, F_BLANK) else we
            if ((((b == b'.' or b == b'-') and has(b1, F_KEY)) or (b == b':' and has(b1, F_BLANK))
                    or (t < n and d[t] == b'=')) and m_key_value(d, n, p, we, &kv)):
                next_p[0] = kv.resume
                return emit_kv(out, p, &kv)
        # a path continues past the word through path punctuation (or is a drive "C:\\")
        if (not has(prev, F_PATH_PUNCT) and (has(b, F_PATH_PUNCT) or (letter and we == p + 1 and b == b':'))
                and (b == b':' or may_hold_separator(cur, p))):
            e = m_path(d, n, p, cur)
            if e >= 0:
                next_p[0] = e
                return emit(out, K_PATH, p, e, V_RAW)
        # an e-mail address: an ASCII local part runs on through . % + - to "@"; it starts at
        # the start of the local part (not after - + %)
        # (the byte after the joiner must go on: not so at the end of a sentence, "word. ")
        if (ascii_word and (b == b'@' or b == b'.' or b == b'-' or b == b'+' or b == b'%')
                and (has(b1, F_LOCAL) or b1 == b'@') and prev != b'-' and prev != b'+' and prev != b'%'
                and may_hold_at(cur, p)):
            e = m_email(d, n, p, we)
            if e >= 0:
                next_p[0] = e
                return emit(out, K_IDENTIFIER, p, e, V_HEX)
        # grammar v10 (red team 113 F02), v12 (red team 116 F08): an address glued to a non-ASCII
        # character of the word (请联系alice@acme.io, Contact:\u00a0alice@acme.io, Owner·alice@acme.io);
        # its local part is the ASCII run that ends the word, up to "@" or a joiner
        if not ascii_word and (b == b'@' or b == b'.' or b == b'-' or b == b'+' or b == b'%'):
            t = glued_email_start(d, n, p, we)
            if t >= 0:
                e = m_email(d, n, t, t)
                if e >= 0:
                    next_p[0] = e
                    return emit(out, K_IDENTIFIER, t, e, V_HEX)
    if w.all_hex:
        if we - p == 8 and b == b'-':
            e = m_uuid(d, n, p)
            if e >= 0:
                next_p[0] = e
                return emit(out, K_DIGEST, p, e, V_HEX)
        if we - p >= 7 and w.any_digit and not w.all_digit:
            next_p[0] = we
            return emit(out, K_DIGEST, p, we, V_HEX)
    if has(c, F_DIGIT):
        e = m_number(d, n, p)
        if e >= 0:
            next_p[0] = e
            return emit(out, K_NUMBER, p, e, V_NUMBER)
    else:
        # a hyphenated lower-case ID: the first run is a-z 0-9 only, then "-" or "."; it never
        # starts right after a "-" that follows a word byte
        if (has(c, F_LOWER) and (b == b'-' or b == b'.') and has(b1, F_LOWER | F_DIGIT)
                and ascii_word and not w.any_upper
                and not w.any_under
                and not (prev == b'-' and p >= 2 and has(d[p - 2], F_W) and csi_start(d, p - 2) < 0)
                and may_hold_digit(cur, p)):
            e = m_hyphen_id(d, n, p, we, w.any_digit)
            if e >= 0:
                next_p[0] = e
                return emit(out, K_IDENTIFIER, p, e, V_RAW)
        if (c == b'v' or c == b'V') and p + 1 < n and has(d[p + 1], F_DIGIT):
            e = m_version(d, n, p)
            if e >= 0:
                next_p[0] = e
                return emit(out, K_NUMBER, p, e, V_NUMBER)
        if b == b'.' and has(b1, F_W):
            e = m_dotted(d, n, p)
            if e >= 0:
                next_p[0] = e
                return emit(out, K_IDENTIFIER, p, e, V_RAW)
    next_p[0] = we
    kind = classify_shape(d, p, w)
    if kind == K_NUMBER:
        we = next_p[0] = compound_cardinal_end(d, n, p, we)
    if not kind:
        e = plain_word_fact(d, n, p, we, prev, pins)
        if e >= 0:
            next_p[0] = e
            if emit(out, K_IDENTIFIER, p, e, V_RAW) < 0:
                return -1
            return pin_row(out, p, pins)
    if kind:
        return emit(out, kind, p, we, V_NUMBER if kind == K_NUMBER else V_RAW)
    return 0



# ---- 64-byte block masks: where the token loop has anything to do -----------------------------
# SEP bytes, inert punctuation and the inside of a word never start a lexeme, so the token loop
# only visits word starts and the eight punctuation bytes that do: [ " - + . / ~ \\. Their
# positions come from one mask per 64-byte block (SSE2 where the compiler has it, a table
# otherwise), and the loop jumps from one to the next with a count-trailing-zeros.

cdef extern from *:
    """
    #include <stdint.h>
    #if defined(__SSE2__) && !defined(PG_NO_SIMD)
    #include <emmintrin.h>
    static inline uint32_t pg_w16(__m128i x) {
        __m128i y = _mm_or_si128(x, _mm_set1_epi8(0x20));
        __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(y, _mm_set1_epi8(0x60)),
                                       _mm_cmplt_epi8(y, _mm_set1_epi8(0x7B)));
        __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8(0x2F)),
                                      _mm_cmplt_epi8(x, _mm_set1_epi8(0x3A)));
        __m128i under = _mm_cmpeq_epi8(x, _mm_set1_epi8(0x5F));
        return (uint32_t)(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(letter, digit), under))
                          | _mm_movemask_epi8(x));
    }
    #endif
    /* what the bytes of a word are made of: a-z, A-Z, 0-9, _ and the hex letters a-f A-F */
    static inline void pg_shape_masks(const unsigned char* p, const uint32_t* cls,
                                      uint64_t* lower, uint64_t* upper, uint64_t* digit,
                                      uint64_t* under, uint64_t* hexl) {
        uint64_t lo = 0, up = 0, dg = 0, us = 0, hx = 0;
    #if defined(__SSE2__) && !defined(PG_NO_SIMD)
        for (int k = 0; k < 4; k++) {
            __m128i v = _mm_loadu_si128((const __m128i*)(p + 16 * k));
            __m128i y = _mm_or_si128(v, _mm_set1_epi8(0x20));
            __m128i l = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(0x60)), _mm_cmplt_epi8(v, _mm_set1_epi8(0x7B)));
            __m128i u = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(0x40)), _mm_cmplt_epi8(v, _mm_set1_epi8(0x5B)));
            __m128i g = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(0x2F)), _mm_cmplt_epi8(v, _mm_set1_epi8(0x3A)));
            __m128i h = _mm_and_si128(_mm_cmpgt_epi8(y, _mm_set1_epi8(0x60)), _mm_cmplt_epi8(y, _mm_set1_epi8(0x67)));
            lo |= (uint64_t)(uint32_t)_mm_movemask_epi8(l) << (16 * k);
            up |= (uint64_t)(uint32_t)_mm_movemask_epi8(u) << (16 * k);
            dg |= (uint64_t)(uint32_t)_mm_movemask_epi8(g) << (16 * k);
            us |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x5F))) << (16 * k);
            hx |= (uint64_t)(uint32_t)_mm_movemask_epi8(h) << (16 * k);
        }
    #else
        for (int k = 0; k < 64; k++) {
            unsigned c = p[k];
            lo |= (uint64_t)(c >= 'a' && c <= 'z') << k;
            up |= (uint64_t)(c >= 'A' && c <= 'Z') << k;
            dg |= (uint64_t)(c >= '0' && c <= '9') << k;
            us |= (uint64_t)(c == '_') << k;
            hx |= (uint64_t)((c | 0x20) >= 'a' && (c | 0x20) <= 'f') << k;
        }
    #endif
        *lower = lo; *upper = up; *digit = dg; *under = us; *hexl = hx;
    }
    /* bit i of *w: p[i] is a word byte; of *s: one of [ " - + . / ~ \\ ; of *x: one of . \\
       (after which, as after a word byte, nothing starts; not @ since grammar v4); of *b: [ */
    static inline void pg_block_masks(const unsigned char* p, const uint32_t* cls,
                                      uint32_t wflag, uint32_t sflag, uint32_t xflag,
                                      uint32_t ppflag, uint32_t sepflag,
                                      uint64_t* w, uint64_t* s, uint64_t* x, uint64_t* b,
                                      uint64_t* pp, uint64_t* sep, uint64_t* at) {
        uint64_t wm = 0, sm = 0, xm = 0, bm = 0, ppm = 0, sepm = 0, atm = 0;
    #if defined(__SSE2__) && !defined(PG_NO_SIMD)
        for (int k = 0; k < 4; k++) {
            __m128i v = _mm_loadu_si128((const __m128i*)(p + 16 * k));
            __m128i dot = _mm_cmpeq_epi8(v, _mm_set1_epi8('.'));
            __m128i bsl = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\\\'));
            __m128i lbr = _mm_cmpeq_epi8(v, _mm_set1_epi8('['));
            __m128i at = _mm_cmpeq_epi8(v, _mm_set1_epi8('@'));
            __m128i st = _mm_or_si128(_mm_or_si128(dot, bsl), lbr);
            st = _mm_or_si128(st, _mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
            st = _mm_or_si128(st, _mm_cmpeq_epi8(v, _mm_set1_epi8('-')));
            st = _mm_or_si128(st, _mm_cmpeq_epi8(v, _mm_set1_epi8('+')));
            st = _mm_or_si128(st, _mm_cmpeq_epi8(v, _mm_set1_epi8('/')));
            st = _mm_or_si128(st, _mm_cmpeq_epi8(v, _mm_set1_epi8('~')));
            __m128i minus = _mm_cmpeq_epi8(v, _mm_set1_epi8('-'));
            __m128i slash = _mm_cmpeq_epi8(v, _mm_set1_epi8('/'));
            __m128i ppv = _mm_or_si128(_mm_or_si128(dot, bsl), _mm_or_si128(at, _mm_or_si128(minus, slash)));
            ppv = _mm_or_si128(ppv, _mm_cmpeq_epi8(v, _mm_set1_epi8('~')));
            ppv = _mm_or_si128(ppv, _mm_cmpeq_epi8(v, _mm_set1_epi8('+')));
            ppv = _mm_or_si128(ppv, _mm_cmpeq_epi8(v, _mm_set1_epi8('%')));
            ppm |= (uint64_t)(uint32_t)_mm_movemask_epi8(ppv) << (16 * k);
            sepm |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_or_si128(slash, bsl)) << (16 * k);
            wm |= (uint64_t)pg_w16(v) << (16 * k);
            sm |= (uint64_t)(uint32_t)_mm_movemask_epi8(st) << (16 * k);
            xm |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_or_si128(dot, bsl)) << (16 * k);
            bm |= (uint64_t)(uint32_t)_mm_movemask_epi8(lbr) << (16 * k);
            atm |= (uint64_t)(uint32_t)_mm_movemask_epi8(at) << (16 * k);
        }
    #else
        for (int k = 0; k < 64; k++) {
            uint32_t f = cls[p[k]];
            wm |= (uint64_t)((f & wflag) != 0) << k;
            sm |= (uint64_t)((f & sflag) != 0) << k;
            xm |= (uint64_t)((f & xflag) != 0) << k;
            bm |= (uint64_t)(p[k] == '[') << k;
            atm |= (uint64_t)(p[k] == '@') << k;
            ppm |= (uint64_t)((f & ppflag) != 0) << k;
            sepm |= (uint64_t)((f & sepflag) != 0) << k;
        }
    #endif
        *w = wm;
        *s = sm;
        *x = xm;
        *b = bm;
        *pp = ppm;
        *sep = sepm;
        *at = atm;
    }
    """
    void pg_shape_masks(const byte_t* p, const uint32_t* cls, uint64_t* lower, uint64_t* upper,
                        uint64_t* digit, uint64_t* under, uint64_t* hexl) noexcept nogil
    void pg_block_masks(const byte_t* p, const uint32_t* cls, uint32_t wflag, uint32_t sflag,
                        uint32_t xflag, uint32_t ppflag, uint32_t sepflag, uint64_t* w,
                        uint64_t* s, uint64_t* x, uint64_t* b, uint64_t* pp, uint64_t* sep,
                        uint64_t* at) noexcept nogil

cdef extern from *:
    """
    /* The same masks from 32 bytes at a time, where the CPU has AVX2: this module is built for
       any x86-64 CPU, so the function is compiled for AVX2 alone and called only after
       pg_detect_avx2() said yes. Computing the masks was an eighth of the scan's instructions. */
    #if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__)) && !defined(PG_NO_SIMD)
    #include <immintrin.h>
    #define PG_AVX2_MASKS 1
    typedef struct {
        uint64_t w, s, x, b, pp, sep, lower, upper, digit, under, hexl, at;
    } pg_block_t;
    __attribute__((target("avx2"))) static void pg_block_masks_avx2(const unsigned char* p, pg_block_t* m) {
        uint64_t w = 0, s = 0, x = 0, b = 0, pp = 0, sep = 0, lo = 0, up = 0, dg = 0, us = 0, hx = 0, am = 0;
        for (int k = 0; k < 2; k++) {
            __m256i v = _mm256_loadu_si256((const __m256i*)(p + 32 * k));
            __m256i y = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
            /* signed compares: bytes >= 0x80 are negative, so never letters or digits */
            __m256i l = _mm256_and_si256(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(0x60)), _mm256_cmpgt_epi8(_mm256_set1_epi8(0x7B), v));
            __m256i u = _mm256_and_si256(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(0x40)), _mm256_cmpgt_epi8(_mm256_set1_epi8(0x5B), v));
            __m256i g = _mm256_and_si256(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(0x2F)), _mm256_cmpgt_epi8(_mm256_set1_epi8(0x3A), v));
            __m256i h = _mm256_and_si256(_mm256_cmpgt_epi8(y, _mm256_set1_epi8(0x60)), _mm256_cmpgt_epi8(_mm256_set1_epi8(0x67), y));
            __m256i un = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0x5F));
            __m256i dot = _mm256_cmpeq_epi8(v, _mm256_set1_epi8('.'));
            __m256i bsl = _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\\\'));
            __m256i lbr = _mm256_cmpeq_epi8(v, _mm256_set1_epi8('['));
            __m256i at = _mm256_cmpeq_epi8(v, _mm256_set1_epi8('@'));
            __m256i minus = _mm256_cmpeq_epi8(v, _mm256_set1_epi8('-'));
            __m256i slash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8('/'));
            __m256i plus = _mm256_cmpeq_epi8(v, _mm256_set1_epi8('+'));
            __m256i tilde = _mm256_cmpeq_epi8(v, _mm256_set1_epi8('~'));
            __m256i dbs = _mm256_or_si256(dot, bsl);
            __m256i common = _mm256_or_si256(_mm256_or_si256(dbs, minus), _mm256_or_si256(_mm256_or_si256(slash, plus), tilde));
            __m256i st = _mm256_or_si256(_mm256_or_si256(common, lbr), _mm256_cmpeq_epi8(v, _mm256_set1_epi8('"')));
            __m256i ppv = _mm256_or_si256(_mm256_or_si256(common, at), _mm256_cmpeq_epi8(v, _mm256_set1_epi8('%')));
            int sh = 32 * k;
            uint64_t lm = (uint32_t)_mm256_movemask_epi8(l), um = (uint32_t)_mm256_movemask_epi8(u);
            uint64_t gm = (uint32_t)_mm256_movemask_epi8(g), unm = (uint32_t)_mm256_movemask_epi8(un);
            lo |= lm << sh;
            up |= um << sh;
            dg |= gm << sh;
            us |= unm << sh;
            w |= (lm | um | gm | unm | (uint32_t)_mm256_movemask_epi8(v)) << sh;
            hx |= (uint64_t)(uint32_t)_mm256_movemask_epi8(h) << sh;
            s |= (uint64_t)(uint32_t)_mm256_movemask_epi8(st) << sh;
            x |= (uint64_t)(uint32_t)_mm256_movemask_epi8(dbs) << sh;
            b |= (uint64_t)(uint32_t)_mm256_movemask_epi8(lbr) << sh;
            am |= (uint64_t)(uint32_t)_mm256_movemask_epi8(at) << sh;
            pp |= (uint64_t)(uint32_t)_mm256_movemask_epi8(ppv) << sh;
            sep |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_or_si256(slash, bsl)) << sh;
        }
        m->w = w; m->s = s; m->x = x; m->b = b; m->pp = pp; m->sep = sep; m->lower = lo;
        m->upper = up; m->digit = dg; m->under = us; m->hexl = hx; m->at = am;
    }
    static int pg_detect_avx2(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") != 0;  /* also checks the OS saves ymm state */
    }
    #else
    #define PG_AVX2_MASKS 0
    typedef struct {
        uint64_t w, s, x, b, pp, sep, lower, upper, digit, under, hexl, at;
    } pg_block_t;
    static void pg_block_masks_avx2(const unsigned char* p, pg_block_t* m) { (void)p; (void)m; }
    static int pg_detect_avx2(void) { return 0; }
    #endif
    """
    ctypedef struct pg_block_t:
        uint64_t w
        uint64_t s
        uint64_t x
        uint64_t b
        uint64_t pp
        uint64_t sep
        uint64_t lower
        uint64_t upper
        uint64_t digit
        uint64_t under
        uint64_t hexl
        uint64_t at
    void pg_block_masks_avx2(const byte_t* p, pg_block_t* m) noexcept nogil
    int pg_detect_avx2() noexcept nogil

# 1 when the block masks come from the AVX2 function (see _set_block_masks, for the tests)
cdef int USE_AVX2_MASKS = pg_detect_avx2()
HAVE_AVX2_MASKS = USE_AVX2_MASKS == 1


def _set_block_masks(str which):
    """Choose how block masks are computed: "avx2" (if the CPU has it) or "baseline". For the
    tests, which check both against the reference; returns the previous choice."""
    global USE_AVX2_MASKS
    previous = "avx2" if USE_AVX2_MASKS else "baseline"
    if which == "avx2":
        if not HAVE_AVX2_MASKS:
            raise ValueError("this CPU or build has no AVX2 block masks")
        USE_AVX2_MASKS = 1
    elif which == "baseline":
        USE_AVX2_MASKS = 0
    else:
        raise ValueError(f"unknown block mask implementation {which!r}")
    return previous


cdef extern from *:
    """
    /* bit i set: p[i] is a quote mark " ' ` */
    static inline uint64_t pg_quote_mask(const unsigned char* p, const uint32_t* cls, uint32_t qflag) {
        uint64_t m = 0;
    #if defined(__SSE2__) && !defined(PG_NO_SIMD)
        for (int k = 0; k < 4; k++) {
            __m128i x = _mm_loadu_si128((const __m128i*)(p + 16 * k));
            __m128i e = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\''))),
                _mm_cmpeq_epi8(x, _mm_set1_epi8('`')));
            m |= (uint64_t)(uint32_t)_mm_movemask_epi8(e) << (16 * k);
        }
    #else
        for (int k = 0; k < 64; k++)
            m |= (uint64_t)((cls[p[k]] & qflag) != 0) << k;
    #endif
        return m;
    }
    """
    uint64_t pg_quote_mask(const byte_t* p, const uint32_t* cls, uint32_t qflag) noexcept nogil


cdef inline void load_quote_block(const byte_t* d, Py_ssize_t n, Py_ssize_t base, Cursor* cur) noexcept nogil:
    cdef byte_t tail[64]
    cur.base = base
    if base + 64 <= n:
        cur.bits = pg_quote_mask(d + base, CLS, F_QUOTE_EVENT)
    else:
        memset(tail, 0, 64)
        memcpy(tail, d + base, n - base)
        cur.bits = pg_quote_mask(tail, CLS, F_QUOTE_EVENT)


cdef inline Py_ssize_t next_quote_event(const byte_t* d, Py_ssize_t n, Py_ssize_t p, Cursor* cur) noexcept nogil:
    """The first position >= p holding " ' `, or n."""
    cdef uint64_t bits
    if p >= n:
        return n
    if p < cur.base or p >= cur.base + 64:
        load_quote_block(d, n, p, cur)
    bits = cur.bits & (~(<uint64_t>0) << (p - cur.base))
    while bits == 0:
        if cur.base + 64 >= n:
            return n
        load_quote_block(d, n, cur.base + 64, cur)
        bits = cur.bits
    return cur.base + pg_ctz64(bits)


cdef struct Cursor:
    Py_ssize_t base     # the block covers d[base:base + 64]
    uint64_t bits       # positions of the block still to visit
    uint64_t path       # path bytes: word bytes and . - ~ @ + % / \\
    uint64_t sep        # / and \\
    uint64_t w          # word bytes
    uint64_t lower      # a-z
    uint64_t upper      # A-Z
    uint64_t digit      # 0-9
    uint64_t under      # _
    uint64_t hexl       # a-f A-F
    uint64_t at         # @


cdef inline void load_block(const byte_t* d, Py_ssize_t n, Py_ssize_t base, Cursor* cur) noexcept nogil:
    cdef uint64_t w, s, x, b, pp, sep, prev_w, prev_ns, after_ns, dot, after_dot, after_dot2
    cdef byte_t tail[64]
    cdef const byte_t* block = d + base
    cdef pg_block_t m
    if base + 64 > n:
        # the last block: pad with NUL, which is SEP (neither a word byte nor a starter)
        memset(tail, 0, 64)
        memcpy(tail, d + base, n - base)
        block = tail
    if USE_AVX2_MASKS:
        pg_block_masks_avx2(block, &m)
        w, s, x, b, pp, sep = m.w, m.s, m.x, m.b, m.pp, m.sep
        cur.lower, cur.upper, cur.digit, cur.under, cur.hexl = m.lower, m.upper, m.digit, m.under, m.hexl
        cur.at = m.at
    else:
        pg_block_masks(block, CLS, F_W, F_STARTER, F_NO_START_PUNCT, F_PATH_PUNCT, F_PSEP,
                       &w, &s, &x, &b, &pp, &sep, &cur.at)
        pg_shape_masks(block, CLS, &cur.lower, &cur.upper, &cur.digit, &cur.under, &cur.hexl)
    cur.path = w | pp
    cur.sep = sep
    cur.w = w
    prev_w = 1 if base > 0 and has(d[base - 1], F_W) else 0
    prev_ns = 1 if base > 0 and has(d[base - 1], F_NO_START) else 0
    # positions right after a word byte, . or \\: no lexeme starts there but a citation
    after_ns = ((w | x) << 1) | prev_ns
    # but after a run of two or more dots a lexeme may start, not at a dot (grammar v17, red
    # team 130a F01: 4e3c2a1..8b9d0f7, 120..140); x is . and \\, sep / and \\, so x & ~sep is .
    dot = x & ~sep
    after_dot = (dot << 1) | (1 if base > 0 and d[base - 1] == b'.' else 0)
    after_dot2 = (dot << 2) | ((after_dot & 1) << 1) | (1 if base > 1 and d[base - 2] == b'.' else 0)
    after_ns &= ~(after_dot & after_dot2 & ~dot)
    cur.base = base
    cur.bits = (((w & ~((w << 1) | prev_w)) | s) & ~after_ns) | b


cdef inline bint after_dots(const byte_t* d, Py_ssize_t p) noexcept nogil:
    """Does a run of two or more dots end at p, and p is no dot (grammar v17: a lexeme may start
    there, the reference's _start_ok)? p < n."""
    return p >= 2 and d[p - 1] == b'.' and d[p - 2] == b'.' and d[p] != b'.'


cdef struct DotChain:
    Py_ssize_t end      # the end of the chain read last (its first SEP byte, or n)
    Py_ssize_t last     # where its last two dots in a row start, from where it was read on; -1


cdef inline bint last_dot_run(const byte_t* d, Py_ssize_t n, Py_ssize_t p, DotChain* ch) noexcept nogil:
    """Is the run of two or more dots that ends at p the last of its chain (the bytes up to the
    next SEP byte; the reference's _DotChains)? A lexeme starts after that one only (red team
    131, F01: after every run of "a..a..a..", each start read to the chain's end, quadratic).
    Each chain read once, from its first position asked (the token loop only moves forward)."""
    cdef Py_ssize_t q
    if p >= ch.end:
        q = p
        ch.last = -1
        while q < n and not (CLS[d[q]] & F_SEP):
            if d[q] == b'.' and q + 1 < n and d[q + 1] == b'.':
                ch.last = q
            q += 1
        ch.end = q
    return ch.last < p


cdef inline Py_ssize_t next_position(const byte_t* d, Py_ssize_t n, Py_ssize_t p, Cursor* cur) noexcept nogil:
    """The first position >= p where a lexeme may start or a word begins, or n. The token
    loop only moves forward, so p is never before the current block."""
    cdef uint64_t bits
    if p >= n:
        return n
    if p >= cur.base + 64:
        load_block(d, n, p, cur)
    bits = cur.bits & (~(<uint64_t>0) << (p - cur.base))
    while bits == 0:
        if cur.base + 64 >= n:
            return n
        load_block(d, n, cur.base + 64, cur)
        bits = cur.bits
    return cur.base + pg_ctz64(bits)


cdef inline bint wide_at(const byte_t* d, Py_ssize_t n, Py_ssize_t p) noexcept nogil:
    """Is d[p:p + 3] a full-width at sign, U+FF20 or U+FE6B (the reference's WIDE_ATS)?"""
    return (p + 2 < n and d[p] == 0xEF and ((d[p + 1] == 0xBC and d[p + 2] == 0xA0)
                                            or (d[p + 1] == 0xB9 and d[p + 2] == 0xAB)))


cdef inline Py_ssize_t next_wide_at(const byte_t* d, Py_ssize_t n, Py_ssize_t p) noexcept nogil:
    """The first full-width at sign at or after p, or -1."""
    cdef const void* hit
    while p < n:
        hit = memchr(d + p, 0xEF, <size_t>(n - p))
        if hit == NULL:
            return -1
        p = <Py_ssize_t>(<const byte_t*>hit - d)
        if wide_at(d, n, p):
            return p
        p += 1
    return -1


cdef byte_t[4] LEAD_BYTES
LEAD_BYTES[0] = 0xEF
LEAD_BYTES[1] = 0xD9
LEAD_BYTES[2] = 0xDB
LEAD_BYTES[3] = 0xE0


cdef inline int foreign_digit(const byte_t* d, Py_ssize_t n, Py_ssize_t p) noexcept nogil:
    """The value (0-9) of a non-ASCII decimal digit at d[p], or -1 (grammar v13, the reference's
    _FOREIGN_DIGIT): full-width U+FF10-U+FF19 (EF BC 90-99), Arabic-Indic U+0660-U+0669
    (D9 A0-A9), Extended Arabic-Indic U+06F0-U+06F9 (DB B0-B9), Devanagari U+0966-U+096F
    (E0 A5 A6-AF). Its length is 2 bytes when d[p] < 0xE0, else 3."""
    cdef byte_t c = d[p], b
    if c == 0xD9 or c == 0xDB:
        if p + 1 < n:
            b = d[p + 1]
            if c == 0xD9:
                if 0xA0 <= b <= 0xA9:
                    return b - 0xA0
            elif 0xB0 <= b <= 0xB9:
                return b - 0xB0
    elif c == 0xEF:
        if p + 2 < n and d[p + 1] == 0xBC and 0x90 <= d[p + 2] <= 0x99:
            return d[p + 2] - 0x90
    elif c == 0xE0:
        if p + 2 < n and d[p + 1] == 0xA5 and 0xA6 <= d[p + 2] <= 0xAF:
            return d[p + 2] - 0xA6
    return -1


cdef inline Py_ssize_t foreign_digit_bytes(byte_t lead) noexcept nogil:
    """The length of the non-ASCII decimal digit (foreign_digit) whose first byte is ``lead``."""
    return 2 if lead < 0xE0 else 3


cdef Py_ssize_t fold_digits_into(const byte_t* s, Py_ssize_t n, byte_t* out) noexcept nogil:
    """Copy s[:n] to out with each non-ASCII decimal digit as its ASCII digit (grammar v13, the
    reference's fold_digits); returns the length written, never more than n. out may be s."""
    cdef Py_ssize_t i = 0, m = 0
    cdef int v
    cdef byte_t c
    while i < n:
        c = s[i]
        if c >= 0xD9:
            v = foreign_digit(s, n, i)
            if v >= 0:
                out[m] = <byte_t>(0x30 + v)
                m += 1
                i += foreign_digit_bytes(c)
                continue
        out[m] = c
        m += 1
        i += 1
    return m


cdef struct Leads:
    Py_ssize_t at[4]    # the next 0xEF, 0xD9, 0xDB, 0xE0 at or after the last ask (n: none)


cdef inline void leads_init(Leads* ls) noexcept nogil:
    cdef int k
    for k in range(4):
        ls.at[k] = -1


cdef inline Py_ssize_t next_lead(const byte_t* d, Py_ssize_t n, Py_ssize_t p, Leads* ls) noexcept nogil:
    """The first byte at or after p that may start a full-width at sign or a digit of grammar
    v13 (0xEF, 0xD9, 0xDB, 0xE0), or n. One memchr per lead byte, each only ever moving on, so
    the asks of one pass over d cost O(n) in all."""
    cdef const void* hit
    cdef Py_ssize_t best = n
    cdef int k
    for k in range(4):
        if ls.at[k] < p:
            hit = memchr(d + p, LEAD_BYTES[k], <size_t>(n - p)) if p < n else NULL
            ls.at[k] = <Py_ssize_t>(<const byte_t*>hit - d) if hit != NULL else n
        if ls.at[k] < best:
            best = ls.at[k]
    return best


cdef Py_ssize_t first_token_rewrite(const byte_t* d, Py_ssize_t n) noexcept nogil:
    """The first full-width at sign (grammar v9) or non-ASCII decimal digit (grammar v13) in
    d[:n], or -1: where the token layer's text first differs from the text."""
    cdef Py_ssize_t p = 0
    cdef Leads ls
    leads_init(&ls)
    while True:
        p = next_lead(d, n, p, &ls)
        if p >= n:
            return -1
        if wide_at(d, n, p) or foreign_digit(d, n, p) >= 0:
            return p
        p += 1


cdef inline offset_t unfold(offset_t c, const Py_ssize_t* at, const Py_ssize_t* extra,
                            Py_ssize_t k) noexcept nogil:
    """An offset c of the folded text as an offset of the text: c plus the bytes lost by the k'
    folded digits before it, k' the number of at[:k] below c (a binary search; the reference's
    _unfold)."""
    cdef Py_ssize_t lo = 0, hi = k, mid
    if c < 0:
        return c
    while lo < hi:
        mid = (lo + hi) >> 1
        if at[mid] < c:
            lo = mid + 1
        else:
            hi = mid
    return <offset_t>(c + extra[lo])


cdef int token_spans(const byte_t* d, Py_ssize_t n, Rows* out) noexcept nogil:
    """The token layer over d[:n] as the reference's _as_token_text and _folded_token_text read
    it: each full-width at sign as two blank bytes and an "@" (grammar v9), each non-ASCII
    decimal digit as its ASCII digit (grammar v13), in a copy made only when the text holds
    either; the rows' offsets are mapped back to the text's own. Returns -1 when a row could
    not be added (out of memory or over the limit)."""
    cdef Py_ssize_t p = first_token_rewrite(d, n), m, k = 0, lost = 0, r0, i, j
    cdef Leads ls
    cdef byte_t* copy
    cdef Py_ssize_t* at = NULL
    cdef Py_ssize_t* extra = NULL
    cdef int rc, v
    cdef byte_t c
    cdef Row* row
    if p < 0:
        return token_spans_of(d, n, out)
    copy = <byte_t*>malloc(<size_t>(n if n else 1))
    if copy == NULL:
        out.no_memory = True
        return -1
    memcpy(copy, d, <size_t>p)
    m = p
    # first pass: count the digits (a bound for the offset tables)
    leads_init(&ls)
    i = p
    while True:
        i = next_lead(d, n, i, &ls)
        if i >= n:
            break
        if foreign_digit(d, n, i) >= 0:
            k += 1
            i += foreign_digit_bytes(d[i])
        else:
            i += 1
    if k:
        at = <Py_ssize_t*>malloc(<size_t>k * sizeof(Py_ssize_t))
        extra = <Py_ssize_t*>malloc(<size_t>(k + 1) * sizeof(Py_ssize_t))
        if at == NULL or extra == NULL:
            free(at)
            free(extra)
            free(copy)
            out.no_memory = True
            return -1
        extra[0] = 0
    k = 0
    i = p
    leads_init(&ls)
    while i < n:
        # the bytes up to the next lead byte as they are
        j = next_lead(d, n, i, &ls)
        if j > i:
            memcpy(copy + m, d + i, <size_t>(j - i))
            m += j - i
            i = j
            if i >= n:
                break
        c = d[i]
        if c >= 0xD9:
            if wide_at(d, n, i):
                copy[m] = 0
                copy[m + 1] = 0
                copy[m + 2] = b'@'
                m += 3
                i += 3
                continue
            v = foreign_digit(d, n, i)
            if v >= 0:
                at[k] = m
                lost += foreign_digit_bytes(c) - 1
                k += 1
                extra[k] = lost
                copy[m] = <byte_t>(0x30 + v)
                m += 1
                i += foreign_digit_bytes(c)
                continue
        copy[m] = c
        m += 1
        i += 1
    r0 = out.n
    rc = token_spans_of(copy, m, out)
    if k:
        for i in range(r0, out.n):
            row = &out.rows[i]
            row.start = unfold(row.start, at, extra, k)
            row.end = unfold(row.end, at, extra, k)
            row.key_start = unfold(row.key_start, at, extra, k)
            row.key_end = unfold(row.key_end, at, extra, k)
            row.value_start = unfold(row.value_start, at, extra, k)
            row.value_end = unfold(row.value_end, at, extra, k)
    free(at)
    free(extra)
    free(copy)
    return rc


cdef int token_spans_of(const byte_t* d, Py_ssize_t n, Rows* out) noexcept nogil:
    """Returns -1 when a row could not be added (out of memory or over the limit)."""
    cdef Py_ssize_t p = 0, q, e, hs = 0, he = 0, fresh = -1, rs = 0, rne = 0, rvs = 0, rve = 0
    cdef int rvk = 0
    cdef bint req
    cdef byte_t c, prev, b
    cdef uint32_t f
    cdef Shape w
    cdef KeyValue kv
    cdef Cursor cur
    cdef DotChain chain
    cdef uint64_t rest
    cdef Pins pins
    pins.name_end = 0
    pins.pin_at = -1
    pins.key_start = -1
    pins.last_start = -1
    pins.value_start = -1
    pins.value_end = -1
    pins.value_kind = V_RAW
    pins.req_end = 0
    pins.req_at = -1
    cur.base = -64
    cur.bits = 0
    chain.end = -1
    chain.last = -1
    while True:
        if p != fresh:
            # SEP bytes, inert punctuation and word insides are skipped: nothing starts there
            p = next_position(d, n, p, &cur)
            if p >= n:
                break
            if d[p] != b'[' and after_dots(d, p) and not last_dot_run(d, n, p, &chain):
                # (the block masks let a lexeme start after every run of two or more dots; only
                # after its chain's last does one: red team 131, F01. A citation is read before
                # that, wherever it stands, as the reference reads it: below)
                p += 1
                continue
        else:
            # right after a CSI sequence, which counts as control bytes: whatever the byte
            # before, a lexeme may start here (the block masks do not know; visit it)
            if p >= n:
                break
            if p >= cur.base + 64:
                load_block(d, n, p, &cur)
        c = d[p]
        f = CLS[c]
        # A word byte here starts a word: the block masks leave out positions after a word
        # byte or . \\ @ (where nothing starts), so no check of the byte before is needed.
        if f & F_W:
            if f & F_LOWER:
                # The common case, decided here without word_token: a lower-case word followed
                # by a byte that rules out every lexeme but a plain word (see the reference's
                # _NOTHING_HERE for why this is exact). It is a number word or nothing.
                rest = ~(cur.lower >> (p - cur.base))
                if rest and p - cur.base + pg_ctz64(rest) < 64:
                    q = p + pg_ctz64(rest)
                else:
                    q = lower_run_end(d, n, p)
                f = CLS[d[q]] if q < n else F_SAFE_AFTER
                # (not after an "@": a mention, or a pin's ref word, grammar v6)
                if f & F_SAFE_AFTER and not (p > 0 and p != fresh and d[p - 1] == b'@'):
                    # after blanks an "=" would make the word a kv key
                    e = q
                    if f & F_BLANK:
                        e = q + 1
                        if e < n and CLS[d[e]] & F_BLANK:
                            e = skip_blanks(d, n, e)
                    if e == q or e >= n or d[e] != b'=':
                        if is_number_word(d, p, q) and emit(out, K_NUMBER, p, q, V_NUMBER) < 0:
                            return -1
                        p = q
                        continue
            prev = d[p - 1] if p > 0 and p != fresh else b' '
            if not shape_in_block(&cur, p, &w):
                word_shape(d, n, p, &w)
            req = False
            if has(c, F_UPPER | F_LOWER) and p >= pins.req_end and not p < pins.pin_at:
                # grammar v11 (red team 116 F07): a requirement's kv fact, whatever the name's
                # words are; its name ends at the word's end, or goes on over . or -, before a
                # [ or a comparison (so only then is it read; the reference reads it at every
                # letter, to the same effect: the scan never comes back inside the word)
                # (a "." or "-" that no letter, digit or other joiner follows ends the name there:
                # "word. " reads nothing, as the reference finds)
                b = d[w.end] if w.end < n else 0
                if ((b == b'[' or b == b'=' or b == b'!' or b == b'~' or b == b'<' or b == b'>')
                        or ((b == b'.' or b == b'-') and w.end + 1 < n
                            and (has(d[w.end + 1], F_ALNUM) or d[w.end + 1] == b'.' or d[w.end + 1] == b'_'
                                 or d[w.end + 1] == b'-'))):
                    req = m_requirement(d, n, p, &pins.req_end, &rvs, &rve, &rvk)
                    if req:
                        pins.req_at = p
                        rs = p
                        rne = pins.req_end
            if word_token(d, n, p, prev, &w, &cur, out, &p, &pins) < 0:
                return -1
            # (after the rows of the token at rs: they end inside the name, the kv at the value's end)
            if req and rows_push(out, K_KV, rs, rve, rs, rne, rvs, rve, <uint8_t>rvk) < 0:
                return -1
            continue
        prev = d[p - 1] if p > 0 and p != fresh else b' '
        if c == b'[':
            if p > 0 and d[p - 1] == 0x1B:
                # an ANSI CSI sequence, before a citation (grammar v4, red team 95 F09)
                e = m_csi(d, n, p - 1)
                if e >= 0:
                    p = fresh = e
                    continue
            e = m_citation(d, n, p, &hs, &he)
            if e >= 0:
                if rows_push(out, K_CITATION, p, e, -1, -1, hs, he, V_RAW) < 0:
                    return -1
                p = e
                continue
        if p > 0 and has(prev, F_NO_START) and not (after_dots(d, p) and last_dot_run(d, n, p, &chain)):
            p += 1
            continue
        # punctuation starts: paths, flags, signed numbers, JSON keys
        if (c == b'.' or c == b'/' or c == b'~' or c == b'\\') and not has(prev, F_PATH_PUNCT):
            e = m_path(d, n, p, &cur)
            if e >= 0:
                if emit(out, K_PATH, p, e, V_RAW) < 0:
                    return -1
                p = e
                continue
        if c == b'+' or c == b'-' or c == b'.':
            if c == b'-':
                if m_flag_value(d, n, p, &kv):
                    if emit_kv(out, p, &kv) < 0:
                        return -1
                    p = kv.resume
                    continue
                e = m_flag(d, n, p)
                if e >= 0:
                    if emit(out, K_IDENTIFIER, p, e, V_RAW) < 0:
                        return -1
                    p = e
                    continue
            e = m_number(d, n, p)
            if e >= 0:
                if emit(out, K_NUMBER, p, e, V_NUMBER) < 0:
                    return -1
                p = e
                continue
            # a dot-file name: .env.production, .bashrc (stop 39, red team 94 F04)
            if c == b'.' and p + 1 < n and has(d[p + 1], F_UPPER | F_LOWER):
                e = word_end(d, n, p + 1)
                while e + 1 < n and d[e] == b'.' and has(d[e + 1], F_W):
                    e = word_end(d, n, e + 1)
                if emit(out, K_IDENTIFIER, p, e, V_RAW) < 0:
                    return -1
                p = e
                continue
        if c == b'"' and m_json_key_value(d, n, p, &kv):
            if emit_kv(out, p, &kv) < 0:
                return -1
            p = kv.resume
            continue
        p += 1
    return 0


# ---- the quote layer ---------------------------------------------------------------------------

cdef inline Py_ssize_t line_end(const byte_t* d, Py_ssize_t n, Py_ssize_t ls) noexcept nogil:
    cdef const void* hit
    if ls >= n:
        return n
    hit = memchr(d + ls, b'\n', <size_t>(n - ls))
    return n if hit == NULL else <Py_ssize_t>(<const byte_t*>hit - d)


# Red team 50, f05: a run of k backticks quotes up to the next run of exactly k on its line, and
# an opener with no such run searched to the end of the line. A line holds ~sqrt(2n) runs of
# distinct lengths (1, 2, 3, ... apart), none closed, so the search was O(n^1.5) (25.6 MB: 86 s).
# The double and single quotes' "dead" flags do not carry over: one failed length says nothing
# of the next. So the first failed search on a line (which has read the rest of the line anyway)
# is followed by one more pass that notes, per run length, where the line's last run of that
# length starts: a later opener of length k at p has a closer iff that start is after p. One
# without is refused at once; one with is searched as before, and that search reads only bytes
# the scan then skips. Every byte is read a bounded number of times, and a line whose openers
# all close (ordinary text) never builds the memo.
#
# The memo maps a length to a position without hashing (which crafted lengths could defeat):
# lengths below ``cap`` index an array, longer ones sit in a list searched in full. With
# cap * (cap + 1) >= T (the bytes noted), fewer than T / cap <= cap + 1 runs are that long, so
# all the searches of that list together are O(T); the memory is O(sqrt(T)).

cdef enum:
    MEMO_STACK = 256    # Py_ssize_t slots on the stack: a memo for a line remainder below 8,192 bytes


cdef struct RunMemo:
    Py_ssize_t* last        # last[k], 0 < k < cap: start of the last run of k backticks, or 0
    Py_ssize_t* long_len    # the distinct lengths >= cap, ...
    Py_ssize_t* long_last   # ... and where the last run of each starts
    Py_ssize_t cap          # 0 until the memo is built
    Py_ssize_t n_long
    Py_ssize_t* heap        # the memo's buffer when the stack's was too small, else NULL


cdef int run_memo_build(const byte_t* d, Py_ssize_t p, Py_ssize_t le, RunMemo* memo,
                        Py_ssize_t* stack) noexcept nogil:
    """Note the backtick runs of d[p:le] (p is not inside a run). Fails only for want of
    memory: -1, nothing allocated (memo.heap stays NULL). On success the caller frees
    memo.heap (NULL when ``stack``, MEMO_STACK slots, held it)."""
    cdef Py_ssize_t t = le - p, cap = 64, room, slots, q, k, a
    cdef const void* hit
    cdef Py_ssize_t* buf = stack
    while cap < t // cap:
        cap *= 2
    room = t // cap + 1  # runs of >= cap backticks, one byte between each: at most this many
    slots = cap + 2 * room
    memo.heap = NULL
    if slots > MEMO_STACK:
        buf = <Py_ssize_t*>malloc(<size_t>slots * sizeof(Py_ssize_t))
        if buf == NULL:
            return -1
        memo.heap = buf
    memset(buf, 0, <size_t>cap * sizeof(Py_ssize_t))
    memo.last = buf
    memo.long_len = buf + cap
    memo.long_last = buf + cap + room
    memo.cap = cap
    memo.n_long = 0
    q = p
    while q < le:
        hit = memchr(d + q, b'`', <size_t>(le - q))
        if hit == NULL:
            break
        q = <Py_ssize_t>(<const byte_t*>hit - d)
        k = q
        while k < le and d[k] == b'`':
            k += 1
        k -= q
        if k < cap:
            memo.last[k] = q
        else:
            a = 0
            while a < memo.n_long and memo.long_len[a] != k:
                a += 1
            if a == memo.n_long:
                memo.long_len[a] = k
                memo.n_long += 1
            memo.long_last[a] = q
        q += k
    return 0


cdef inline bint run_memo_closes(const RunMemo* memo, Py_ssize_t k, Py_ssize_t p) noexcept nogil:
    """Does a run of exactly k backticks start after p, among the runs the memo noted?"""
    cdef Py_ssize_t a
    if k < memo.cap:
        return memo.last[k] > p
    for a in range(memo.n_long):
        if memo.long_len[a] == k:
            return memo.long_last[a] > p
    return False


cdef int inline_quotes(const byte_t* d, Py_ssize_t n, Py_ssize_t ls, Py_ssize_t le,
                       Rows* out, Cursor* cur) noexcept nogil:
    """The inline quotes of the line d[ls:le] (le is at its \\n or n), appended to out. -1 when
    a row cannot be added or the memo's memory cannot be had: out's flag says which."""
    cdef Py_ssize_t i = ls, j, k, m
    cdef bint double_dead = False, single_dead = False, found
    cdef byte_t c
    cdef int rc = 0
    cdef RunMemo memo
    cdef Py_ssize_t memo_stack[MEMO_STACK]
    memset(&memo, 0, sizeof(RunMemo))  # cap 0: not built; heap NULL: nothing to free
    while True:
        i = next_quote_event(d, n, i, cur)
        if i >= le:
            break
        c = d[i]
        if c == b'`':
            k = i
            while k < le and d[k] == b'`':
                k += 1
            k -= i
            if memo.cap and not run_memo_closes(&memo, k, i):
                i += k  # red team 50, f05: no run of k backticks after this one on the line
                continue
            j = i + k
            found = False
            while j < le:
                if d[j] != b'`':
                    j += 1
                    continue
                m = j
                while m < le and d[m] == b'`':
                    m += 1
                if m - j == k:
                    found = True
                    break
                j = m
            if not found:
                # the first failed search on the line: note the runs after this one, so that
                # no later opener searches to the end of the line again (red team 50, f05).
                # Once the memo is built a search runs only where it succeeds: this is
                # reached at most once per line, and memo.heap is never overwritten.
                if run_memo_build(d, i + k, le, &memo, memo_stack) < 0:
                    out.no_memory = True
                    rc = -1
                    break
                i += k
                continue
            if rows_push(out, K_QUOTE, i, j + k, -1, -1, i + k, j, V_RAW) < 0:
                rc = -1
                break
            i = j + k
        elif c == b'"':
            if double_dead:
                i += 1
                continue
            j = i + 1
            found = False
            while True:
                j = find_either(d, j, le, b'"', b'\\')
                if j >= le:
                    break
                if d[j] == b'"':
                    found = True
                    break
                if j + 1 < le:  # a backslash escapes the next byte
                    j += 2
                    continue
                break
            if not found:
                double_dead = True
                i += 1
                continue
            if j > i + 1:
                if rows_push(out, K_QUOTE, i, j + 1, -1, -1, i + 1, j, V_RAW) < 0:
                    rc = -1
                    break
            i = j + 1
        else:
            if (single_dead or (i > 0 and has(d[i - 1], F_W)) or i + 1 >= le
                    or has(d[i + 1], F_SEP) or d[i + 1] == b'\''):
                i += 1
                continue
            found = False
            j = i + 2
            while j < le:
                if (d[j] == b'\'' and not has(d[j - 1], F_SEP)
                        and (j + 1 >= le or not has(d[j + 1], F_W))):
                    found = True
                    break
                j += 1
            if not found:
                single_dead = True
                i += 1
                continue
            if rows_push(out, K_QUOTE, i, j + 1, -1, -1, i + 1, j, V_RAW) < 0:
                rc = -1
                break
            i = j + 1
    if memo.heap != NULL:  # rarely: a line remainder of 8,192 bytes or more with an unclosed backtick run
        free(memo.heap)
    return rc


cdef Py_ssize_t fence_run(const byte_t* d, Py_ssize_t ls, Py_ssize_t le, Py_ssize_t* run_start) noexcept nogil:
    """Length of the backtick run of a fence line (<= 3 spaces, then >= 3 backticks), or 0."""
    cdef Py_ssize_t q = ls, s
    while q < le and q - ls < 3 and d[q] == b' ':
        q += 1
    s = q
    while q < le and d[q] == b'`':
        q += 1
    if q - s < 3:
        return 0
    run_start[0] = s
    return q - s


cdef inline void close_fence(Rows* out, Py_ssize_t slot, Py_ssize_t end, Py_ssize_t value_start,
                             Py_ssize_t value_end) noexcept nogil:
    # the placeholder row of a fence closed at ``end``: its quote, or dropped when the fence
    # holds nothing (an empty fence quotes nothing)
    if value_end > value_start:
        out.rows[slot].kind = K_QUOTE
        out.rows[slot].end = end
        out.rows[slot].value_start = value_start
        out.rows[slot].value_end = value_end
    else:
        out.n = slot


cdef Py_ssize_t fence_value_end(const byte_t* d, Py_ssize_t vs, Py_ssize_t body_end) noexcept nogil:
    cdef Py_ssize_t e = body_end
    if e > vs and d[e - 1] == b'\n':
        e -= 1
        if e > vs and d[e - 1] == b'\r':
            e -= 1
    return e


cdef inline Py_ssize_t fence_line_start(const byte_t* d, Py_ssize_t pos, Py_ssize_t first) noexcept nogil:
    """The start of the line whose first quote mark is d[first], if that line may be a fence
    line (the mark is a backtick after at most three spaces), else -1. pos starts a line at or
    before it."""
    cdef Py_ssize_t j = first
    if d[first] != b'`':
        return -1
    while j > pos and d[j - 1] == b' ' and first - j < 3:
        j -= 1
    if j == pos or d[j - 1] == b'\n':
        return j
    return -1


cdef Py_ssize_t tilde_line(const byte_t* d, Py_ssize_t n, Py_ssize_t p) noexcept nogil:
    """The start of the first line at or after p (a line start) that opens with at most three
    spaces and three tildes, a tilde fence line (CommonMark; red team 126, F05), or n."""
    cdef const byte_t* hit
    cdef Py_ssize_t q = p, j
    while q + 3 <= n:
        hit = <const byte_t*>memchr(d + q, b'~', n - q)
        if hit == NULL:
            return n
        q = hit - d
        if q + 3 > n:
            return n
        if d[q + 1] == b'~' and d[q + 2] == b'~':
            j = q
            while j > p and d[j - 1] == b' ' and q - j < 3:
                j -= 1
            if j == 0 or d[j - 1] == b'\n':
                return j
            while q < n and d[q] == b'~':
                q += 1
        else:
            q += 1
    return n


cdef bint tilde_underline(const byte_t* d, Py_ssize_t ls, Py_ssize_t rs, Py_ssize_t k, Py_ssize_t le) noexcept nogil:
    """Is the line of tildes ``[ls, le)`` (its ``k`` tildes at ``rs``) a heading's underline, no
    fence: tildes and blanks only, right under a line that holds a character other than blanks,
    backticks and tildes, and no shorter (in characters) than that line without its trailing
    blanks ("Title" / "~~~~~", reStructuredText; red team 128, F13) -- _scanner_py._tilde_underline."""
    cdef Py_ssize_t q, s, e, chars = 0
    cdef bint other = False
    cdef byte_t c
    for q in range(rs + k, le):
        if not (has(d[q], F_BLANK) or d[q] == b'\r'):
            return False
    if ls == 0:
        return False
    e = ls - 1
    s = e
    while s > 0 and d[s - 1] != b'\n':
        s -= 1
    while e > s and (d[e - 1] == b' ' or d[e - 1] == b'\t' or d[e - 1] == b'\r'):
        e -= 1
    if e > s and (d[e - 1] == b':' or d[e - 1] == b'.' or d[e - 1] == b'!' or d[e - 1] == b'?'):
        return False  # (a line that ends a sentence or introduces what follows: red team 129, F02)
    for q in range(s, e):
        c = d[q]
        if (c & 0xC0) != 0x80:
            chars += 1
        if c != b' ' and c != b'\t' and c != b'\r' and c != b'`' and c != b'~':
            other = True
    return other and k >= chars


cdef int quote_spans(const byte_t* d, Py_ssize_t n, Rows* out) noexcept nogil:
    """The quote layer. Only the lines holding a quote mark matter: a fence line holds
    backticks, and a line without quote marks holds no quote and neither opens nor closes a
    fence. So the loop goes from quote mark to quote mark (each taking its whole line), not
    from line to line; most lines are never looked at."""
    cdef Py_ssize_t pos = 0, ls, le, q, k, rs = 0, slot = -1, fence_k = 0, fence_vs = 0, ve, first, tl = -1
    cdef bint is_fence, tilde_fence = False
    cdef Cursor cur
    cur.base = -64
    cur.bits = 0
    while True:
        # pos starts a line, and every line before it is done
        first = next_quote_event(d, n, pos, &cur)
        if tl < pos:
            tl = tilde_line(d, n, pos)
        if tl < n and tl <= first:
            # a line of tildes before the next quote mark's line (or that line itself): a tilde
            # fence opens with any info string and closes a tilde fence with blanks after it
            le = line_end(d, n, tl)
            q = tl
            while q < le and d[q] == b' ':
                q += 1
            rs = q
            while q < le and d[q] == b'~':
                q += 1
            k = q - rs
            is_fence = slot < 0 and not tilde_underline(d, tl, rs, k, le)
            if slot >= 0 and tilde_fence and k >= fence_k:
                is_fence = True
                for q in range(rs + k, le):
                    if not (has(d[q], F_BLANK) or d[q] == b'\r'):
                        is_fence = False
                        break
            if is_fence and slot < 0:
                if rows_push(out, 0, rs, rs, -1, -1, 0, 0, V_RAW) < 0:
                    return -1
                slot = out.n - 1
                fence_k = k
                tilde_fence = True
                fence_vs = le + 1 if le < n else n
            elif is_fence:
                close_fence(out, slot, rs + k, fence_vs, fence_value_end(d, fence_vs, tl))
                slot = -1
            elif first < le and inline_quotes(d, n, first, le, out, &cur) < 0:
                return -1
            if le >= n:
                break
            pos = le + 1
            continue
        if first >= n:
            break
        # a fence line starts with at most three spaces and backticks, so only a line whose
        # first quote mark is such a backtick needs its start
        ls = fence_line_start(d, pos, first)
        le = line_end(d, n, first)
        if slot < 0:
            k = fence_run(d, ls, le, &rs) if ls >= 0 else 0
            is_fence = k > 0
            if is_fence:
                for q in range(rs + k, le):
                    if d[q] == b'`':
                        is_fence = False
                        break
            if is_fence:
                # a placeholder row: the fence starts before the quotes inside it
                if rows_push(out, 0, rs, rs, -1, -1, 0, 0, V_RAW) < 0:
                    return -1
                slot = out.n - 1
                fence_k = k
                tilde_fence = False
                fence_vs = le + 1 if le < n else n
            elif inline_quotes(d, n, first, le, out, &cur) < 0:
                return -1
        else:
            k = fence_run(d, ls, le, &rs) if ls >= 0 and not tilde_fence else 0
            is_fence = k >= fence_k and k > 0
            if is_fence:
                for q in range(rs + k, le):
                    if not (has(d[q], F_BLANK) or d[q] == b'\r'):
                        is_fence = False
                        break
            if is_fence:
                close_fence(out, slot, rs + k, fence_vs, fence_value_end(d, fence_vs, ls))
                slot = -1
            elif inline_quotes(d, n, first, le, out, &cur) < 0:
                return -1
        if le >= n:
            break
        pos = le + 1
    if slot >= 0:  # an unclosed fence runs to the end of the text
        ve = fence_value_end(d, fence_vs, n)
        if ve > fence_vs:
            out.rows[slot].kind = K_QUOTE
            out.rows[slot].end = n
            out.rows[slot].value_start = fence_vs
            out.rows[slot].value_end = ve
        else:
            out.n = slot
    return 0


cdef inline bint row_before(Row* a, Row* b) noexcept nogil:
    if a.start != b.start:
        return a.start < b.start
    if a.end != b.end:
        return a.end < b.end
    return a.kind < b.kind


# ---- Python entry points -----------------------------------------------------------------------

cdef struct RowFact:
    # 48 bytes: the passes over it are memory-bound on a large text (37.6k rows)
    uint64_t hash           # of the whole fact: flag, key and normalised value
    const byte_t* key       # the config key (flag 1) or the kind's name (flag 0)
    const byte_t* value     # the normalised value: in the text, or in the scratch arena
    uint32_t klen           # (a text fingerprinted here is shorter than 4 GiB: see text_too_long)
    uint32_t vlen
    uint32_t text           # its text in the batch, whose columns get its fingerprints
    uint32_t frame          # while its batch is hashed: its value frame; the fact frame
                            # follows, then (flag 1) the key frame
    uint8_t flag
    uint8_t kind


cdef struct TextFp:
    uint64_t* fp_key        # the text's fp_key column; fp_value and fp_fact follow, stride apart
    Py_ssize_t stride       # 2 * its rows (uint64 words a column)
    Py_ssize_t r0           # its first row in the batch


cdef enum:
    # distinct facts are framed and hashed in batches, so frames and digests stay in cache
    # and their memory does not grow with the text
    FP_BATCH_FACTS = 512
    FP_BATCH_FRAMES = 3 * FP_BATCH_FACTS
    FP_BATCH_BYTES = 48 * 1024


cdef struct FpScratch:
    RowFact* facts              # per row: its key, normalised value and hash
    Py_ssize_t cap_facts
    uint32_t* first             # per row: the first row of the same fact (itself if none before)
    Py_ssize_t cap_first
    uint32_t* distinct          # the first rows, in order
    Py_ssize_t cap_distinct
    TextFp* texts               # per text of the batch: where its fingerprints go
    Py_ssize_t cap_texts
    uint64_t* table             # per slot: the hash's high half | first row + 1; 0 if empty
    Py_ssize_t cap_table
    Py_ssize_t table_size       # its slots (a power of two, >= 2 rows)
    byte_t* arena               # normalised values that differ from the text (numbers, hex)
    Py_ssize_t cap_arena
    Py_ssize_t arena_used
    byte_t* frames              # one batch's framed records, then 64 zero bytes (see hash_many)
    Py_ssize_t cap_frames
    const byte_t* frame_data[FP_BATCH_FRAMES]
    offset_t frame_len[FP_BATCH_FRAMES]
    byte_t digests[FP_BATCH_FRAMES * 32]
    uint32_t batch_rows[FP_BATCH_FACTS]


cdef class _Scratch:
    """The work space of one call, reused across calls: the two layers' row vectors and the
    fingerprinting buffers. Fresh memory costs a page fault per 4 KiB touched, which was a
    large share of the scan time. A pool keeps a few; very large ones are freed, not kept."""
    cdef Rows tokens
    cdef Rows quotes
    cdef Rows merged  # extract_columns_many: the rows of all its texts
    cdef FpScratch fp

    def __cinit__(self):
        memset(&self.tokens, 0, sizeof(Rows))
        memset(&self.quotes, 0, sizeof(Rows))
        memset(&self.merged, 0, sizeof(Rows))
        self.fp.facts = NULL
        self.fp.first = NULL
        self.fp.distinct = NULL
        self.fp.texts = NULL
        self.fp.table = NULL
        self.fp.arena = NULL
        self.fp.frames = NULL
        self.fp.cap_facts = self.fp.cap_first = self.fp.cap_distinct = self.fp.cap_texts = self.fp.cap_table = self.fp.cap_arena = self.fp.cap_frames = 0

    def __dealloc__(self):
        free(self.tokens.rows)
        free(self.quotes.rows)
        free(self.merged.rows)
        free(self.fp.facts)
        free(self.fp.first)
        free(self.fp.distinct)
        free(self.fp.texts)
        free(self.fp.table)
        free(self.fp.arena)
        free(self.fp.frames)

    cdef Py_ssize_t nbytes(self):
        return ((self.tokens.cap + self.quotes.cap + self.merged.cap) * sizeof(Row)
                + self.fp.cap_facts * sizeof(RowFact) + self.fp.cap_texts * sizeof(TextFp)
                + (self.fp.cap_first + self.fp.cap_distinct) * sizeof(uint32_t) + self.fp.cap_table * sizeof(uint64_t)
                + self.fp.cap_arena + self.fp.cap_frames)


cdef enum:
    SCRATCH_POOL_SIZE = 4
    SCRATCH_KEEP_BYTES = 32 * 1024 * 1024

_scratch_pool = []


cdef inline void reset_rows(Rows* rows, Py_ssize_t limit) noexcept nogil:
    rows.n = 0
    rows.limit = limit
    rows.room = 0  # the first row sets it
    rows.over_limit = False
    rows.no_memory = False


cdef _Scratch _take_scratch(Py_ssize_t max_spans):
    cdef _Scratch s
    try:
        s = _scratch_pool.pop()  # atomic under the GIL, so threads never share a vector
    except IndexError:
        s = _Scratch()
    reset_rows(&s.tokens, max_spans)
    # the fence placeholder may briefly need one row beyond the limit
    reset_rows(&s.quotes, max_spans + 1)
    return s


cdef void _give_scratch(_Scratch s) noexcept:
    if s.nbytes() <= SCRATCH_KEEP_BYTES and len(_scratch_pool) < SCRATCH_POOL_SIZE:
        _scratch_pool.append(s)


def scan(data, max_spans):
    """The grounded spans of UTF-8 ``data``: eight columns ``(kind, start, end, key_start,
    key_end, value_start, value_end, value_kind)`` sorted by ``(start, end, kind)``.

    Raises ``LimitExceededError`` when there are more than ``max_spans`` spans.
    """
    data = byte_data(data)
    cdef Py_ssize_t limit = span_limit(max_spans)
    cdef const byte_t[::1] view = data
    cdef const byte_t* d = &view[0] if view.shape[0] else <const byte_t*>b""
    cdef Py_ssize_t n = view.shape[0], total
    cdef int rc_tokens = 0
    cdef _Scratch scratch = _take_scratch(limit)
    cdef Rows* tokens = &scratch.tokens
    cdef Rows* quotes = &scratch.quotes
    try:
        with nogil:
            rc_tokens = token_spans(d, n, tokens)
            if rc_tokens == 0:
                quote_spans(d, n, quotes)
        if tokens.no_memory or quotes.no_memory:
            raise MemoryError("out of memory while scanning for grounded spans")
        total = tokens.n + quotes.n
        if tokens.over_limit or quotes.over_limit or total > limit:
            raise LimitExceededError(
                f"text has more than {limit} grounded spans (max_spans); split it or raise the limit"
            )
        # one allocation for all columns: fewer, larger blocks are what the allocator reuses
        # without returning them to the kernel, so the next call takes no page faults
        block = np.empty(50 * total, dtype=np.uint8)
        ints = block[: 48 * total].view(np.int64)
        start = ints[0:total]
        end = ints[total : 2 * total]
        key_start = ints[2 * total : 3 * total]
        key_end = ints[3 * total : 4 * total]
        value_start = ints[4 * total : 5 * total]
        value_end = ints[5 * total : 6 * total]
        kind = block[48 * total : 49 * total]
        value_kind = block[49 * total :]
        if total:
            _merge_into(tokens, quotes, kind, start, end, key_start, key_end, value_start, value_end,
                        value_kind)
        return kind, start, end, key_start, key_end, value_start, value_end, value_kind
    finally:
        _give_scratch(scratch)


cdef void _merge_into(Rows* tokens, Rows* quotes, uint8_t[::1] kind, int64_t[::1] start,
                      int64_t[::1] end, int64_t[::1] key_start, int64_t[::1] key_end,
                      int64_t[::1] value_start, int64_t[::1] value_end,
                      uint8_t[::1] value_kind) noexcept:
    with nogil:
        merge_rows(tokens, quotes, &kind[0], &start[0], &end[0], &key_start[0], &key_end[0],
                   &value_start[0], &value_end[0], &value_kind[0])


cdef inline void put_row(Row* row, Py_ssize_t i, uint8_t* kind, int64_t* start, int64_t* end,
                         int64_t* key_start, int64_t* key_end, int64_t* value_start,
                         int64_t* value_end, uint8_t* value_kind) noexcept nogil:
    kind[i] = row.kind
    start[i] = row.start
    end[i] = row.end
    key_start[i] = row.key_start
    key_end[i] = row.key_end
    value_start[i] = row.value_start
    value_end[i] = row.value_end
    value_kind[i] = row.value_kind


cdef void merge_rows(Rows* tokens, Rows* quotes, uint8_t* kind, int64_t* start, int64_t* end,
                     int64_t* key_start, int64_t* key_end, int64_t* value_start,
                     int64_t* value_end, uint8_t* value_kind) noexcept nogil:
    """The two sorted row lists, merged into the output columns. Quote rows are few, so the
    token rows before the next quote row are copied on a single comparison of starts."""
    cdef Py_ssize_t a = 0, b = 0, i = 0, na = tokens.n, nb = quotes.n
    cdef Row* ta = tokens.rows
    cdef Row* qb = quotes.rows
    cdef offset_t next_quote
    while b < nb:
        next_quote = qb[b].start
        while a < na and ta[a].start < next_quote:
            put_row(&ta[a], i, kind, start, end, key_start, key_end, value_start, value_end, value_kind)
            a += 1
            i += 1
        if a < na and row_before(&ta[a], &qb[b]):
            put_row(&ta[a], i, kind, start, end, key_start, key_end, value_start, value_end, value_kind)
            a += 1
        else:
            put_row(&qb[b], i, kind, start, end, key_start, key_end, value_start, value_end, value_kind)
            b += 1
        i += 1
    while a < na:
        put_row(&ta[a], i, kind, start, end, key_start, key_end, value_start, value_end, value_kind)
        a += 1
        i += 1


# ---- UTF-8 validation --------------------------------------------------------------------------

cdef extern from *:
    """
    /* i advanced over whole 64-byte blocks of ASCII (no byte >= 0x80) */
    static inline Py_ssize_t pg_ascii_end(const unsigned char* p, Py_ssize_t i, Py_ssize_t n) {
    #if defined(__SSE2__) && !defined(PG_NO_SIMD)
        while (i + 64 <= n) {
            __m128i a = _mm_or_si128(_mm_loadu_si128((const __m128i*)(p + i)), _mm_loadu_si128((const __m128i*)(p + i + 16)));
            __m128i b = _mm_or_si128(_mm_loadu_si128((const __m128i*)(p + i + 32)), _mm_loadu_si128((const __m128i*)(p + i + 48)));
            if (_mm_movemask_epi8(_mm_or_si128(a, b)))
                break;
            i += 64;
        }
    #endif
        return i;
    }
    """
    Py_ssize_t pg_ascii_end(const byte_t* p, Py_ssize_t i, Py_ssize_t n) noexcept nogil


cdef inline bint cont(byte_t c) noexcept nogil:
    return (c & 0xC0) == 0x80


cdef Py_ssize_t utf8_error(const byte_t* d, Py_ssize_t n) noexcept nogil:
    """Offset of the first ill-formed sequence (Unicode table 3-7, as Python decodes), or -1."""
    cdef Py_ssize_t i = 0
    cdef byte_t c, c1
    while i < n:
        # ASCII, the common case: once 16 bytes are, 64 at a time, then 16 (text that is
        # mostly not ASCII pays only the first check per character)
        if i + 16 <= n and ((load8(d + i) | load8(d + i + 8)) & HIGHS) == 0:
            i = pg_ascii_end(d, i + 16, n)
            while i + 16 <= n and ((load8(d + i) | load8(d + i + 8)) & HIGHS) == 0:
                i += 16
        if i >= n:
            break
        c = d[i]
        if c < 0x80:
            i += 1
            continue
        if 0xC2 <= c <= 0xDF:
            if i + 1 >= n or not cont(d[i + 1]):
                return i
            i += 2
        elif 0xE0 <= c <= 0xEF:
            if i + 2 >= n:
                # a truncated sequence is still reported at its first byte
                return i
            c1 = d[i + 1]
            if c == 0xE0:
                if not (0xA0 <= c1 <= 0xBF):
                    return i
            elif c == 0xED:
                if not (0x80 <= c1 <= 0x9F):
                    return i
            elif not cont(c1):
                return i
            if not cont(d[i + 2]):
                return i
            i += 3
        elif 0xF0 <= c <= 0xF4:
            if i + 3 >= n:
                return i
            c1 = d[i + 1]
            if c == 0xF0:
                if not (0x90 <= c1 <= 0xBF):
                    return i
            elif c == 0xF4:
                if not (0x80 <= c1 <= 0x8F):
                    return i
            elif not cont(c1):
                return i
            if not cont(d[i + 2]) or not cont(d[i + 3]):
                return i
            i += 4
        else:
            return i
    return -1


def utf8_error_offset(data):
    """Offset of the first byte that is not part of valid UTF-8, or -1 if ``data`` is valid."""
    cdef const byte_t* d
    cdef Py_ssize_t n, r
    # every extract() validates its text: bytes need no buffer export
    data = byte_data(data)
    d = <const byte_t*>PyBytes_AS_STRING(data)
    n = PyBytes_GET_SIZE(data)
    if n == 0:
        return -1
    if n < 4096:
        return utf8_error(d, n)  # shorter than the cost of releasing the GIL
    with nogil:
        r = utf8_error(d, n)
    return r


cdef Py_ssize_t first_foreign_digit(const byte_t* d, Py_ssize_t n) noexcept nogil:
    """The first non-ASCII decimal digit of grammar v13 in d[:n], or -1."""
    cdef Py_ssize_t p = 0
    cdef Leads ls
    leads_init(&ls)
    while True:
        p = next_lead(d, n, p, &ls)
        if p >= n:
            return -1
        if foreign_digit(d, n, p) >= 0:
            return p
        p += 1


def fold_digits(data):
    """``data`` (bytes) with each non-ASCII decimal digit of grammar v13 as its ASCII digit; the
    same object when it holds none (the reference's fold_digits)."""
    cdef const byte_t* d
    cdef Py_ssize_t n, i, m
    cdef byte_t* w
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    d = <const byte_t*>PyBytes_AS_STRING(data)
    n = PyBytes_GET_SIZE(data)
    with nogil:
        i = first_foreign_digit(d, n)
    if i < 0:
        return data
    out = PyBytes_FromStringAndSize(NULL, n)
    w = <byte_t*>PyBytes_AS_STRING(out)
    memcpy(w, d, <size_t>i)
    with nogil:
        m = i + fold_digits_into(d + i, n - i, w + i)
    return out[:m]


# ---- framing of facts for fingerprinting -------------------------------------------------------

cdef void lower_ascii(byte_t* s, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if has(s[i], F_UPPER):
            s[i] += 32


cdef Py_ssize_t normalize_number(const byte_t* s, Py_ssize_t n, byte_t* out) noexcept nogil:
    """Write the normalised number (see _scanner_py.normalize_number) to out; returns its
    length, never more than n."""
    cdef Py_ssize_t m = 0, i = 0, body, j = 0
    cdef bint negative, hexlit, zero = True
    cdef int v
    if n >= 3 and has(s[0], F_UPPER) and is_cardinal(s, n):
        # grammar v18: a capitalised cardinal's value is the lower-case word ("Three": "three")
        memcpy(out, s, n)
        out[0] += 32
        return n
    while j < n:
        # grammar v13: a non-ASCII decimal digit is the ASCII digit it is
        if s[j] >= 0xD9:
            v = foreign_digit(s, n, j)
            if v >= 0:
                out[m] = <byte_t>(0x30 + v)
                m += 1
                j += foreign_digit_bytes(s[j])
                continue
        if s[j] != b',':
            out[m] = s[j]
            m += 1
        j += 1
    if m and out[0] == b'+':
        i = 1
    negative = i < m and out[i] == b'-'
    if negative:
        i += 1
    body = i
    hexlit = m - body >= 2 and out[body] == b'0' and (out[body + 1] == b'x' or out[body + 1] == b'X')
    if hexlit:
        lower_ascii(out + body, m - body)
        j = body + 2
        while j < m and has(out[j], F_HEX):
            if out[j] != b'0':
                zero = False
            j += 1
    else:
        j = body
        while j < m and (out[j] == b'.' or has(out[j], F_DIGIT)):
            if out[j] != b'0' and out[j] != b'.':
                zero = False
            j += 1
    if negative and not zero:
        out[0] = b'-'
        memmove(out + 1, out + body, m - body)
        return 1 + m - body
    memmove(out, out + body, m - body)
    return m - body


cdef inline byte_t* put_len(byte_t* w, Py_ssize_t length) noexcept nogil:
    cdef int k
    cdef unsigned long long v = <unsigned long long>length
    for k in range(8):
        w[k] = <byte_t>(v & 0xFF)
        v >>= 8
    return w + 8


cdef enum FrameError:
    FRAME_OK = 0
    BAD_KIND = 1
    BAD_VALUE_KIND = 2
    BAD_VALUE_SPAN = 3
    BAD_KEY_SPAN = 4


cdef FrameError check_rows(const uint8_t[::1] k, const int64_t[::1] ks, const int64_t[::1] ke,
                           const int64_t[::1] vs, const int64_t[::1] ve, const uint8_t[::1] vk,
                           Py_ssize_t size, Py_ssize_t* bad_row, Py_ssize_t* bound,
                           Py_ssize_t* kv_rows) noexcept nogil:
    """Validate every row; count the buffer bytes the frames need at most."""
    cdef Py_ssize_t i, total = 0, kvs = 0, klen
    for i in range(k.shape[0]):
        bad_row[0] = i
        if k[i] < 1 or k[i] > 9:
            return BAD_KIND
        if vk[i] > 2:
            return BAD_VALUE_KIND
        if not (0 <= vs[i] <= ve[i] <= size):
            return BAD_VALUE_SPAN
        if ks[i] == -1 and ke[i] == -1:
            klen = 10  # no kind name is longer
        elif 0 <= ks[i] <= ke[i] <= size:
            klen = ke[i] - ks[i]
            kvs += 1
        else:
            return BAD_KEY_SPAN
        # value frame 9 + v, fact frame 18 + k + v, key frame 10 + k (kv rows only)
        total += 37 + 2 * klen + 2 * (ve[i] - vs[i])
    bound[0] = total
    kv_rows[0] = kvs
    return FRAME_OK


cdef bint _within_byte_range(object column) except -1:
    """Are the values of a kind column all in 0..255 (so a uint8 cast keeps them)?"""
    if type(column) is cnp.ndarray and cnp.PyArray_TYPE(<cnp.ndarray>column) == cnp.NPY_UINT8:
        return True
    values = np.asarray(column)
    if values.size == 0:
        return True
    if values.dtype.kind not in "iub":
        return False  # floats and the rest: the reference converts them as it says
    return bool(values.min() >= 0 and values.max() <= 255)


def frame_facts(data, kind, key_start, key_end, value_start, value_end, value_kind, *,
                scratch=None):
    """The framed records of the spans in one buffer (see ``_scanner_py.frame_facts`` for the
    layout): spans 2i and 2i+1 of ``(buffer, starts, ends)`` are row i's value and fact
    frames; then come the key frames of the kv rows (rows with a key span), in row order.

    ``scratch``, a ``(uint8 array, int64 array)`` pair, is written into instead of fresh
    arrays when it is large enough (the results are then views of it): reusing it saves the
    page faults of fresh memory on every call."""
    data = byte_data(data)
    if not (_within_byte_range(kind) and _within_byte_range(value_kind)):
        # a cast to uint8 would wrap a kind of 257 round to 1: the reference names the row
        return _frame_facts_py(data, kind, key_start, key_end, value_start, value_end, value_kind)
    cdef const byte_t[::1] view = data
    # private copies: the rows are checked in one pass and written in another, without the GIL
    # in both, so a column another thread changes between them, or one that is a view of
    # ``scratch``, which the second pass writes, would be written unchecked (red team 39, 06
    # and 10: a heap overflow). Not a hot path: the gate's extraction frames in C.
    cdef const uint8_t[::1] k = np.array(kind, dtype=np.uint8, order="C", copy=True)
    cdef const int64_t[::1] ks = np.array(key_start, dtype=np.int64, order="C", copy=True)
    cdef const int64_t[::1] ke = np.array(key_end, dtype=np.int64, order="C", copy=True)
    cdef const int64_t[::1] vs = np.array(value_start, dtype=np.int64, order="C", copy=True)
    cdef const int64_t[::1] ve = np.array(value_end, dtype=np.int64, order="C", copy=True)
    cdef const uint8_t[::1] vk = np.array(value_kind, dtype=np.uint8, order="C", copy=True)
    cdef Py_ssize_t rows = k.shape[0], size = view.shape[0], i, klen, vlen, bound = 0
    cdef Py_ssize_t bad = 0, kvs = 0, kv_slot
    cdef FrameError err
    cdef const byte_t* d = &view[0] if size else <const byte_t*>b""
    cdef const byte_t* key
    cdef byte_t* w
    cdef byte_t* vstart
    cdef byte_t flag
    if not (ks.shape[0] == rows and ke.shape[0] == rows and vs.shape[0] == rows
            and ve.shape[0] == rows and vk.shape[0] == rows):
        raise SpanError("fact columns differ in length")
    with nogil:
        err = check_rows(k, ks, ke, vs, ve, vk, size, &bad, &bound, &kvs)
    if err == BAD_KIND:
        raise SpanError(f"row {bad} has an unknown kind {k[bad]}")
    if err == BAD_VALUE_KIND:
        raise SpanError(f"row {bad} has an unknown value kind {vk[bad]}")
    if err == BAD_VALUE_SPAN:
        raise SpanError(f"row {bad} has a value span [{vs[bad]}, {ve[bad]}) outside the text")
    if err == BAD_KEY_SPAN:
        raise SpanError(f"row {bad} has a key span [{ks[bad]}, {ke[bad]}) outside the text")
    if (scratch is not None and scratch[0].shape[0] >= bound
            and scratch[1].shape[0] >= 2 * (2 * rows + kvs)):
        buf = scratch[0][:bound]
        starts = scratch[1][: 2 * rows + kvs]
        ends = scratch[1][2 * rows + kvs : 2 * (2 * rows + kvs)]
    else:
        buf = np.empty(bound, dtype=np.uint8)
        starts = np.empty(2 * rows + kvs, dtype=np.int64)
        ends = np.empty(2 * rows + kvs, dtype=np.int64)
    cdef uint8_t[::1] bv = buf
    cdef int64_t[::1] st = starts
    cdef int64_t[::1] en = ends
    if bv.shape[0] < bound or st.shape[0] < 2 * rows + kvs or en.shape[0] < 2 * rows + kvs:
        # (the buffers' own lengths, not what an ndarray subclass in scratch says it holds)
        raise InvalidArgumentError("scratch is smaller than its shape says", argument="scratch")
    cdef byte_t* base = &bv[0] if bound else NULL
    cdef const char* names[10]
    cdef Py_ssize_t name_len[10]
    for i in range(1, 10):
        names[i] = <const char*>(<bytes>KIND_NAMES[i])
        name_len[i] = len(KIND_NAMES[i])
    with nogil:
        w = base
        kv_slot = 2 * rows
        for i in range(rows):
            if ks[i] < 0:
                key = <const byte_t*>names[k[i]]
                klen = name_len[k[i]]
                flag = 0
            else:
                key = d + ks[i]
                klen = ke[i] - ks[i]
                flag = 1
            # value frame: "V" len value (normalised in place)
            st[2 * i] = w - base
            w[0] = b'V'
            vstart = w + 9
            vlen = ve[i] - vs[i]
            if vk[i] == V_NUMBER:
                vlen = normalize_number(d + vs[i], vlen, vstart)
            elif vk[i] == V_HEX:
                vlen = fold_digits_into(d + vs[i], vlen, vstart)
                lower_ascii(vstart, vlen)
            else:
                memcpy(vstart, d + vs[i], vlen)
            put_len(w + 1, vlen)
            w = vstart + vlen
            en[2 * i] = w - base
            # fact frame: "F" flag len key len value
            st[2 * i + 1] = w - base
            w[0] = b'F'
            w[1] = flag
            w = put_len(w + 2, klen)
            memcpy(w, key, klen)
            w += klen
            w = put_len(w, vlen)
            memcpy(w, vstart, vlen)
            w += vlen
            en[2 * i + 1] = w - base
            if flag:
                # key frame: "K" flag len key
                st[kv_slot] = w - base
                w[0] = b'K'
                w[1] = flag
                w = put_len(w + 2, klen)
                memcpy(w, key, klen)
                w += klen
                en[kv_slot] = w - base
                kv_slot += 1
    used = (w - base) if bound else 0
    return buf[:used], starts, ends


KIND_NAMES = {
    K_NUMBER: b"number",
    K_IDENTIFIER: b"identifier",
    K_PATH: b"path",
    K_URL: b"url",
    K_DIGEST: b"digest",
    K_KV: b"kv",
    K_QUOTE: b"quote",
    K_CITATION: b"citation",
    K_NAME: b"name",
}


# ---- extraction: scan, frame and fingerprint in one call ----------------------------------------
# extract_columns() is provgate.extract's hot path: the scan, then per distinct fact its framed
# records and their BLAKE3 digests, all without the GIL and without a Python object per row.
# Facts repeat a lot (in the benchmark window 37.6k rows are 12k distinct facts), so rows are
# first deduplicated on (key, normalised value) in a hash table, and each distinct fact is
# framed and hashed once. BLAKE3 itself comes from the hashing module chosen by
# provgate._hashing (its C_API capsule), so the AVX2 build is used where the CPU has it.

from cpython.pycapsule cimport PyCapsule_GetPointer

ctypedef int (*hash_many_t)(const byte_t* const* data, const offset_t* lengths, offset_t n,
                            const byte_t* key, byte_t* out, const byte_t* readable_end) noexcept nogil

cdef hash_many_t HASH_MANY = NULL
cdef bint HASH_MANY_LOOKED_UP = False


cdef hash_many_t hash_many_function() except? NULL:
    """The native BLAKE3 of provgate._hashing, or NULL when hashing runs in the reference."""
    global HASH_MANY, HASH_MANY_LOOKED_UP
    if not HASH_MANY_LOOKED_UP:
        from provgate import _hashing  # late: the hashing switch imports after this module

        capsule = _hashing.C_API
        if capsule is not None:
            HASH_MANY = <hash_many_t>PyCapsule_GetPointer(capsule, b"provgate._ext.hashing.hash_many")
        HASH_MANY_LOOKED_UP = True
    return HASH_MANY


cdef int grow(void** p, Py_ssize_t* cap, Py_ssize_t need, Py_ssize_t item) noexcept nogil:
    """At least need items of item bytes at p[0] (old contents are not kept); -1 when out of
    memory."""
    cdef void* q
    if need <= cap[0]:
        return 0
    free(p[0])
    p[0] = NULL
    cap[0] = 0
    q = malloc(need * item if need > 0 else 1)
    if q == NULL:
        return -1
    p[0] = q
    cap[0] = need
    return 0


cdef inline uint64_t rotl64(uint64_t x, int r) noexcept nogil:
    return (x << r) | (x >> (64 - r))


cdef inline uint32_t load4(const byte_t* p) noexcept nogil:
    cdef uint32_t x
    memcpy(&x, p, 4)
    return x


cdef inline uint64_t short_word(const byte_t* p, Py_ssize_t n) noexcept nogil:
    """The 1 to 7 bytes at p as one integer, without reading past them: two overlapping
    4-byte loads, or for 1 to 3 bytes the first, middle and last. Strings of one length are
    equal exactly when their words are."""
    if n >= 4:
        return load4(p) | (<uint64_t>load4(p + n - 4) << 32)
    return p[0] | (<uint64_t>p[n >> 1] << 8) | (<uint64_t>p[n - 1] << 16)


cdef inline uint64_t hash_bytes(const byte_t* p, Py_ssize_t n, uint64_t h) noexcept nogil:
    """A 64-bit hash for the dedup table only (collisions cost a comparison, nothing else)."""
    cdef uint64_t w = 0
    while n > 8:
        h = (rotl64(h, 23) ^ load8(p)) * NW_MUL1
        p += 8
        n -= 8
    if n == 8:
        w = load8(p)
    elif n > 0:
        w = short_word(p, n)
    h = (rotl64(h, 23) ^ w ^ (<uint64_t>n << 59)) * NW_MUL1
    h ^= h >> 32
    h *= NW_MUL2
    return h ^ (h >> 29)


cdef inline bint same_bytes(const byte_t* a, const byte_t* b, Py_ssize_t n) noexcept nogil:
    # values are mostly short: a few loads instead of a call to memcmp
    if n > 16:
        return memcmp(a, b, n) == 0
    if n >= 8:
        return load8(a) == load8(b) and load8(a + n - 8) == load8(b + n - 8)
    if n > 0:
        return short_word(a, n) == short_word(b, n)
    return True


cdef inline byte_t* put_bytes(byte_t* w, const byte_t* src, Py_ssize_t n) noexcept nogil:
    """Copy n bytes to w (short ones as overlapping fixed-size moves, not a call to memcpy);
    returns the end of the copy."""
    cdef Py_ssize_t i
    if n > 16:
        memcpy(w, src, n)
    elif n >= 8:
        memcpy(w, src, 8)
        memcpy(w + n - 8, src + n - 8, 8)
    elif n >= 4:
        memcpy(w, src, 4)
        memcpy(w + n - 4, src + n - 4, 4)
    else:
        for i in range(n):
            w[i] = src[i]
    return w + n


cdef extern from *:
    """
    static inline unsigned long long pg_bswap64(unsigned long long x) { return __builtin_bswap64(x); }
    """
    uint64_t bswap64 "pg_bswap64"(uint64_t x) noexcept nogil


cdef inline uint64_t load_be64(const byte_t* p) noexcept nogil:
    return bswap64(load8(p))


cdef extern from *:
    """
    #define pg_prefetch(p) __builtin_prefetch(p)
    #define PG_HIGH32 0xFFFFFFFF00000000ULL
    #define PG_LOW32 0x00000000FFFFFFFFULL
    """
    void prefetch "pg_prefetch"(const void* p) noexcept nogil
    const uint64_t HIGH32 "PG_HIGH32"
    const uint64_t LOW32 "PG_LOW32"


cdef enum:
    PREFETCH_ROWS = 16  # how far ahead the dedup loop asks for its hash table slot


cdef inline bint same_fact(const RowFact* a, const RowFact* b) noexcept nogil:
    return (a.hash == b.hash and a.flag == b.flag and a.vlen == b.vlen and a.klen == b.klen
            and (a.kind == b.kind if a.flag == 0 else same_bytes(a.key, b.key, a.klen))
            and same_bytes(a.value, b.value, a.vlen))


cdef inline Py_ssize_t frame_bytes(const RowFact* f) noexcept nogil:
    return (9 + f.vlen) + (18 + f.klen + f.vlen) + (10 + f.klen if f.flag else 0)


cdef inline byte_t* put_frames(byte_t* w, RowFact* f, Py_ssize_t frame, FpScratch* s) noexcept nogil:
    """The value, fact and (kv) key frames of f at w (_scanner_py.frame_facts' layout),
    registered as batch frames frame, frame + 1 (, frame + 2); returns their end."""
    f.frame = <uint32_t>frame
    s.frame_data[frame] = w
    w[0] = b'V'
    w = put_bytes(put_len(w + 1, f.vlen), f.value, f.vlen)
    s.frame_len[frame] = w - s.frame_data[frame]
    s.frame_data[frame + 1] = w
    w[0] = b'F'
    w[1] = f.flag
    w = put_bytes(put_len(w + 2, f.klen), f.key, f.klen)
    w = put_bytes(put_len(w, f.vlen), f.value, f.vlen)
    s.frame_len[frame + 1] = w - s.frame_data[frame + 1]
    if f.flag:
        s.frame_data[frame + 2] = w
        w[0] = b'K'
        w[1] = 1
        w = put_bytes(put_len(w + 2, f.klen), f.key, f.klen)
        s.frame_len[frame + 2] = w - s.frame_data[frame + 2]
    return w


cdef inline void put_digest(uint64_t* fp, const byte_t* dv) noexcept nogil:
    """A fingerprint: the first 16 digest bytes as two big-endian words."""
    fp[0] = load_be64(dv)
    fp[1] = load_be64(dv + 8)


cdef inline bint text_too_long(Py_ssize_t n) noexcept nogil:
    """Past 4 GiB a key or value length would not fit RowFact's 32 bits: such a text is
    fingerprinted through _extract_columns_with_python_hashing (the same columns)."""
    return <uint64_t>n > LOW32


cdef inline uint64_t* row_fp(FpScratch* s, Py_ssize_t row, Py_ssize_t* stride) noexcept nogil:
    """The fp_key pair of a batch row in its text's columns; its fp_value and fp_fact pairs
    are stride and 2 * stride words on."""
    cdef TextFp* t = &s.texts[s.facts[row].text]
    stride[0] = t.stride
    return t.fp_key + 2 * (row - t.r0)


cdef int hash_batch(FpScratch* s, Py_ssize_t facts, Py_ssize_t frames, Py_ssize_t used,
                    const byte_t* key, hash_many_t hash_many, const uint64_t* kind_fps) noexcept nogil:
    """Hash one batch of framed facts and write their fingerprints at their rows; -1 when out
    of memory."""
    cdef Py_ssize_t j, stride
    cdef uint32_t r
    cdef const byte_t* dv
    cdef RowFact* f
    cdef uint64_t* fp
    memset(s.frames + used, 0, 64)
    if hash_many(s.frame_data, s.frame_len, frames, key, s.digests, s.frames + used + 64) < 0:
        return -1
    for j in range(facts):
        r = s.batch_rows[j]
        f = &s.facts[r]
        fp = row_fp(s, r, &stride)
        dv = s.digests + 32 * f.frame
        put_digest(fp + stride, dv)
        put_digest(fp + 2 * stride, dv + 32)
        if f.flag:
            put_digest(fp, dv + 64)
        else:
            fp[0] = kind_fps[2 * f.kind]
            fp[1] = kind_fps[2 * f.kind + 1]
    return 0


cdef Py_ssize_t arena_bytes(const Rows* rows) noexcept nogil:
    """What fp_rows may write to the arena for these rows: their normalised values (a
    number's is never longer than it, a digest's as long)."""
    cdef Py_ssize_t i, need = 0
    for i in range(rows.n):
        if rows.rows[i].value_kind != V_RAW:
            need += rows.rows[i].value_end - rows.rows[i].value_start
    return need


cdef int fp_reserve(FpScratch* s, Py_ssize_t rows, Py_ssize_t texts, Py_ssize_t arena_need) noexcept nogil:
    """Room to fingerprint ``rows`` rows of ``texts`` texts whose normalised values take at
    most ``arena_need`` bytes; -1 when out of memory (or past 2**32 rows: row indices are 32
    bits, and a text of 4 Gi spans is beyond any memory anyway)."""
    cdef Py_ssize_t table_size = 16
    if <uint64_t>rows >= LOW32:
        return -1
    while table_size < 2 * rows:
        table_size *= 2
    s.table_size = table_size
    s.arena_used = 0
    if (grow(<void**>&s.facts, &s.cap_facts, rows, sizeof(RowFact)) < 0
            or grow(<void**>&s.first, &s.cap_first, rows, sizeof(uint32_t)) < 0
            or grow(<void**>&s.distinct, &s.cap_distinct, rows, sizeof(uint32_t)) < 0
            or grow(<void**>&s.texts, &s.cap_texts, texts, sizeof(TextFp)) < 0
            or grow(<void**>&s.table, &s.cap_table, table_size, sizeof(uint64_t)) < 0
            or grow(<void**>&s.arena, &s.cap_arena, arena_need + 1, 1) < 0
            or grow(<void**>&s.frames, &s.cap_frames, FP_BATCH_BYTES + 64, 1) < 0):
        return -1
    return 0


cdef void fp_rows(FpScratch* s, const byte_t* d, Py_ssize_t text, Py_ssize_t r0, Py_ssize_t rows,
                  const uint8_t* kind, const int64_t* ks, const int64_t* ke, const int64_t* vs,
                  const int64_t* ve, const uint8_t* vk, uint64_t* fp_key) noexcept nogil:
    """Each row's key, normalised value and hash, for the ``rows`` rows of text number ``text``
    ``d`` (its columns, ``rows`` long, as extract_columns lays them out: fp_key, then fp_value
    and fp_fact, ``(rows, 2)`` each), as the rows ``r0`` on of the batch. Within fp_reserve's
    room, so it cannot fail."""
    cdef Py_ssize_t i, vlen, apos = s.arena_used
    cdef uint64_t kh
    cdef RowFact* f = s.facts + r0
    s.texts[text].fp_key = fp_key
    s.texts[text].stride = 2 * rows
    s.texts[text].r0 = r0
    for i in range(rows):
        f.kind = kind[i]
        f.text = <uint32_t>text
        if ks[i] >= 0:
            f.flag = 1
            f.key = d + ks[i]
            f.klen = <uint32_t>(ke[i] - ks[i])
            kh = hash_bytes(f.key, f.klen, 0x6B6579)
        else:
            f.flag = 0
            f.key = <const byte_t*>KIND_NAME_PTRS[f.kind]
            f.klen = <uint32_t>KIND_NAME_LENS[f.kind]
            kh = f.kind
        vlen = ve[i] - vs[i]
        if vk[i] == V_NUMBER:
            vlen = normalize_number(d + vs[i], vlen, s.arena + apos)
            f.value = s.arena + apos
            apos += vlen
        elif vk[i] == V_HEX:
            vlen = fold_digits_into(d + vs[i], vlen, s.arena + apos)
            lower_ascii(s.arena + apos, vlen)
            f.value = s.arena + apos
            apos += vlen
        else:
            f.value = d + vs[i]
        f.vlen = <uint32_t>vlen
        f.hash = hash_bytes(f.value, f.vlen, kh * NW_MUL2 + f.flag)
        f += 1
    s.arena_used = apos


cdef int fp_finish(FpScratch* s, Py_ssize_t rows, const byte_t* key, const uint64_t* kind_fps,
                   hash_many_t hash_many) noexcept nogil:
    """The fingerprints of the batch's rows (fp_rows made their facts), written at their
    rows; -1 when out of memory.

    The frames are those of _scanner_py.frame_facts (value "V", fact "F", key "K"), hashed
    once per distinct (flag, key, normalised value); a kind's own key fingerprint is
    kind_fps[2 * kind : 2 * kind + 2]."""
    cdef Py_ssize_t i, j, mask, slot, distinct = 0, stride, gstride
    cdef Py_ssize_t facts = 0, frames = 0, used = 0, need
    cdef uint64_t t, tag
    cdef uint64_t* fp
    cdef uint64_t* gp
    cdef RowFact* f
    # 1. the first row of each fact, from a table of hash tags (a probe looks at a row only
    # when its tag matches); slots are fetched a few rows ahead, they are cache misses
    memset(s.table, 0, s.table_size * sizeof(uint64_t))
    mask = s.table_size - 1
    for i in range(rows):
        if i + PREFETCH_ROWS < rows:
            prefetch(&s.table[s.facts[i + PREFETCH_ROWS].hash & mask])
        f = &s.facts[i]
        tag = f.hash & HIGH32
        slot = <Py_ssize_t>(f.hash & mask)
        while True:
            t = s.table[slot]
            if t == 0:
                s.table[slot] = tag | <uint64_t>(i + 1)
                s.first[i] = <uint32_t>i
                s.distinct[distinct] = <uint32_t>i
                distinct += 1
                break
            if (t & HIGH32) == tag and same_fact(&s.facts[(t & LOW32) - 1], f):
                s.first[i] = <uint32_t>((t & LOW32) - 1)
                break
            slot = (slot + 1) & mask
    # 2. frame and hash each fact once, at its first row, a batch at a time
    for j in range(distinct):
        i = s.distinct[j]
        f = &s.facts[i]
        need = frame_bytes(f)
        if facts == FP_BATCH_FACTS or (facts and used + need > s.cap_frames - 64):
            if hash_batch(s, facts, frames, used, key, hash_many, kind_fps) < 0:
                return -1
            facts = frames = used = 0
        if need > s.cap_frames - 64 and grow(<void**>&s.frames, &s.cap_frames, need + 64, 1) < 0:
            return -1  # one fact larger than a batch (a long quote): a buffer of its own
        put_frames(s.frames + used, f, frames, s)
        s.batch_rows[facts] = <uint32_t>i
        facts += 1
        frames += 2 + f.flag
        used += need
    if facts and hash_batch(s, facts, frames, used, key, hash_many, kind_fps) < 0:
        return -1
    # 3. every other row copies its first row's fingerprints (a first row copies its own:
    # cheaper than a branch that goes either way)
    for i in range(rows):
        fp = row_fp(s, i, &stride)
        gp = row_fp(s, s.first[i], &gstride)
        fp[0] = gp[0]
        fp[1] = gp[1]
        fp[stride] = gp[gstride]
        fp[stride + 1] = gp[gstride + 1]
        fp[2 * stride] = gp[2 * gstride]
        fp[2 * stride + 1] = gp[2 * gstride + 1]
    return 0


# the kind names, from C (KIND_NAMES keeps the bytes alive)
cdef const char* KIND_NAME_PTRS[10]
cdef Py_ssize_t KIND_NAME_LENS[10]


cdef void _init_kind_names() except *:
    cdef int k
    KIND_NAME_PTRS[0] = b""
    KIND_NAME_LENS[0] = 0
    for k in range(1, 10):
        KIND_NAME_PTRS[k] = <const char*>(<bytes>KIND_NAMES[k])
        KIND_NAME_LENS[k] = len(KIND_NAMES[k])


_init_kind_names()

# fingerprint key -> (10, 2) uint64: the key fingerprint of each kind's own name (row 0 unused)
_kind_key_fingerprints = {}


cdef object kind_key_fingerprints(bytes key):
    fps = _kind_key_fingerprints.get(key)
    if fps is None:
        from provgate import _hashing

        frames = [b"K\x00" + len(KIND_NAMES[k]).to_bytes(8, "little") + KIND_NAMES[k] for k in range(1, 10)]
        fps = np.zeros((10, 2), dtype=np.uint64)
        fps[1:] = _hashing.hash_buffers(frames, key=key).view(">u8")[:, :2]
        if len(_kind_key_fingerprints) < 16:
            _kind_key_fingerprints[key] = fps
    return fps


cdef void fp_columns(FpScratch* s, const byte_t* d, Py_ssize_t text, char* base, Py_ssize_t r0,
                     Py_ssize_t rows) noexcept nogil:
    """:func:`fp_rows` of text number ``text``'s ``rows`` rows laid out at ``base`` as
    extract_columns lays them out (98 bytes a row, column by column), as the rows ``r0`` on
    of the batch."""
    fp_rows(s, d, text, r0, rows, <uint8_t*>(base + 96 * rows), <int64_t*>(base + 16 * rows),
            <int64_t*>(base + 24 * rows), <int64_t*>(base + 32 * rows), <int64_t*>(base + 40 * rows),
            <uint8_t*>(base + 97 * rows), <uint64_t*>(base + 48 * rows))


cdef object column(object owner, void* data, Py_ssize_t n, int width, int typenum):
    """A read-only numpy view of n rows (of width items) at data, kept alive by owner."""
    cdef cnp.npy_intp dims[2]
    dims[0] = n
    dims[1] = width
    arr = cnp.PyArray_SimpleNewFromData(1 if width == 1 else 2, dims, typenum, data)
    cnp.set_array_base(arr, owner)
    cnp.PyArray_CLEARFLAGS(<cnp.ndarray>arr, cnp.NPY_ARRAY_WRITEABLE)
    return arr


def _no_columns():
    cols = tuple(np.empty(0, dtype=t) for t in (np.uint8,) + (np.int64,) * 6 + (np.uint8,))
    cols += tuple(np.empty((0, 2), dtype=np.uint64) for _ in range(3))
    for c in cols:
        c.flags.writeable = False
    return cols


_NO_COLUMNS = _no_columns()


def extract_columns(data, max_spans, key):
    """The fact table columns of UTF-8 ``data`` (not validated here): ``(kind, start, end,
    key_start, key_end, value_start, value_end, value_kind, fp_key, fp_value, fp_fact)`` as
    read-only arrays, the eight of :func:`scan` and the fingerprints of ``provgate.facts``
    (``(n, 2)`` uint64, keyed BLAKE3 with ``key``, 32 bytes). All eleven share one buffer.

    Raises ``LimitExceededError`` when there are more than ``max_spans`` spans.
    """
    data = byte_data(data)
    cdef Py_ssize_t limit = span_limit(max_spans)
    if type(key) is not bytes or len(<bytes>key) != 32:
        raise ValueError("key must be 32 bytes")
    cdef hash_many_t hash_many = hash_many_function()
    if hash_many == NULL:
        return _extract_columns_with_python_hashing(data, limit, key)
    cdef const byte_t[::1] view
    cdef const byte_t* d
    cdef Py_ssize_t n, total
    if type(data) is bytes:
        d = <const byte_t*>PyBytes_AS_STRING(data)
        n = PyBytes_GET_SIZE(data)
    else:
        view = data
        n = view.shape[0]
        d = &view[0] if n else <const byte_t*>b""
    if text_too_long(n):
        return _extract_columns_with_python_hashing(data, limit, key)
    kind_fps_array = kind_key_fingerprints(key)
    cdef const uint64_t* kind_fps = <const uint64_t*>cnp.PyArray_DATA(<cnp.ndarray>kind_fps_array)
    cdef const byte_t* key_ptr = <const byte_t*>PyBytes_AS_STRING(key)
    cdef _Scratch scratch = _take_scratch(limit)
    cdef Rows* tokens = &scratch.tokens
    cdef Rows* quotes = &scratch.quotes
    cdef char* base
    cdef int rc = 0
    try:
        with nogil:
            if token_spans(d, n, tokens) == 0:
                quote_spans(d, n, quotes)
        if tokens.no_memory or quotes.no_memory:
            raise MemoryError("out of memory while scanning for grounded spans")
        total = tokens.n + quotes.n
        if tokens.over_limit or quotes.over_limit or total > limit:
            raise LimitExceededError(
                f"text has more than {limit} grounded spans (max_spans); split it or raise the limit"
            )
        if total == 0:
            return _NO_COLUMNS  # read-only, so one set serves every call
        # one buffer for all eleven columns: 6 int64, 3 (n, 2) uint64, 2 uint8 (98 bytes a row)
        owner = np.empty(98 * total, dtype=np.uint8)
        base = <char*>cnp.PyArray_DATA(<cnp.ndarray>owner)
        with nogil:
            if total:
                merge_rows(tokens, quotes, <uint8_t*>(base + 96 * total), <int64_t*>base,
                           <int64_t*>(base + 8 * total), <int64_t*>(base + 16 * total),
                           <int64_t*>(base + 24 * total), <int64_t*>(base + 32 * total),
                           <int64_t*>(base + 40 * total), <uint8_t*>(base + 97 * total))
                rc = fp_reserve(&scratch.fp, total, 1, arena_bytes(tokens) + arena_bytes(quotes))
                if rc == 0:
                    fp_columns(&scratch.fp, d, 0, base, 0, total)
                    rc = fp_finish(&scratch.fp, total, key_ptr, kind_fps, hash_many)
        if rc < 0:
            raise MemoryError("out of memory while fingerprinting grounded spans")
        return columns_of(owner, base, total)
    finally:
        _give_scratch(scratch)


cdef int merge_appended(Rows* tokens, Rows* quotes, Rows* out) noexcept nogil:
    """:func:`merge_rows` appended to a row vector; -1 when out of memory."""
    cdef Py_ssize_t a = 0, b = 0, na = tokens.n, nb = quotes.n, i
    cdef Row* ta = tokens.rows
    cdef Row* qb = quotes.rows
    cdef Row* o
    cdef Py_ssize_t need = out.n + na + nb
    if rows_reserve(out, need) < 0:
        return -1
    o = out.rows + out.n
    while b < nb:
        while a < na and ta[a].start < qb[b].start:
            o[0] = ta[a]
            o += 1
            a += 1
        if a < na and row_before(&ta[a], &qb[b]):
            o[0] = ta[a]
            a += 1
        else:
            o[0] = qb[b]
            b += 1
        o += 1
    if a < na:
        memcpy(o, ta + a, (na - a) * sizeof(Row))
    out.n = need
    return 0


def extract_columns_many(datas, max_spans, key):
    """:func:`extract_columns` of each of ``datas`` (a list or tuple of bytes), in one call:
    the texts are scanned one by one (each on its own: the same rows as alone) without the
    GIL, and their facts fingerprinted together, so the hashing lanes stay full and the fixed
    cost of a call is paid once (a gate check scans dozens of short changed blocks). All
    the texts' columns share one buffer, which lives while any of them does
    (``provgate.facts.extract_many`` calls this per 64 KiB of text). The first text over
    ``max_spans`` raises ``LimitExceededError``, as calling extract_columns in order would.
    """
    cdef Py_ssize_t limit = span_limit(max_spans)
    if type(key) is not bytes or len(<bytes>key) != 32:
        raise ValueError("key must be 32 bytes")
    cdef tuple items = byte_items(datas, "datas", False)
    cdef hash_many_t hash_many = hash_many_function()
    if hash_many == NULL:
        # (not ``d``: a comprehension's name that the function declares ``const byte_t*``
        # is that C pointer, and each text went back to Python cut at its first NUL byte)
        return [_extract_columns_with_python_hashing(text, limit, key) for text in items]
    cdef Py_ssize_t n_texts = len(items), t, r0, n, i, failed = -1
    if n_texts == 0:
        return []
    # the texts' bytes are read in place: items holds them (immutable bytes) for the call
    ptrs_owner = pointers_of(items)
    lens_owner = lengths_of(items)
    cdef size_t* ptrs = <size_t*>cnp.PyArray_DATA(<cnp.ndarray>ptrs_owner)
    cdef offset_t* lens = <offset_t*>cnp.PyArray_DATA(<cnp.ndarray>lens_owner)
    for t in range(n_texts):
        if text_too_long(lens[t]):
            return [_extract_columns_with_python_hashing(text, limit, key) for text in items]
    row_start_owner = np.empty(n_texts + 1, dtype=np.int64)
    cdef int64_t* row_start = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>row_start_owner)
    kind_fps_array = kind_key_fingerprints(key)
    cdef const uint64_t* kind_fps = <const uint64_t*>cnp.PyArray_DATA(<cnp.ndarray>kind_fps_array)
    cdef const byte_t* key_ptr = <const byte_t*>PyBytes_AS_STRING(key)
    cdef _Scratch scratch = _take_scratch(limit)
    cdef Rows* tokens = &scratch.tokens
    cdef Rows* quotes = &scratch.quotes
    cdef Rows* merged = &scratch.merged
    reset_rows(merged, PY_SSIZE_T_MAX)
    cdef int rc = 0
    cdef bint over = False
    cdef char* dst
    cdef char* base
    cdef const byte_t* d
    cdef Py_ssize_t rows, arena_need = 0
    try:
        with nogil:
            for t in range(n_texts):
                row_start[t] = merged.n
                d = <const byte_t*>ptrs[t]
                reset_rows(tokens, limit)
                reset_rows(quotes, limit + 1)
                if token_spans(d, lens[t], tokens) == 0:
                    quote_spans(d, lens[t], quotes)
                if tokens.no_memory or quotes.no_memory:
                    failed = t
                    break
                if tokens.over_limit or quotes.over_limit or tokens.n + quotes.n > limit:
                    failed = t
                    over = True
                    break
                arena_need += arena_bytes(tokens) + arena_bytes(quotes)
                if merge_appended(tokens, quotes, merged) < 0:
                    failed = t
                    break
            row_start[n_texts] = merged.n
        if failed >= 0:
            if over:
                raise LimitExceededError(
                    f"text has more than {limit} grounded spans (max_spans); split it or raise the limit"
                )
            raise MemoryError("out of memory while scanning for grounded spans")
        rows = merged.n
        # each text's eleven columns (98 bytes a row, as extract_columns lays them out) in its
        # own part of one buffer, written in place: the scan columns from the rows, then the
        # fingerprints of all the texts' facts together
        owner = np.empty(98 * rows + 1, dtype=np.uint8)
        dst = <char*>cnp.PyArray_DATA(<cnp.ndarray>owner)
        with nogil:
            rc = fp_reserve(&scratch.fp, rows, n_texts, arena_need)
            if rc == 0:
                for t in range(n_texts):
                    r0 = row_start[t]
                    n = row_start[t + 1] - r0
                    base = dst + 98 * r0
                    for i in range(n):
                        put_row(&merged.rows[r0 + i], i, <uint8_t*>(base + 96 * n), <int64_t*>base,
                                <int64_t*>(base + 8 * n), <int64_t*>(base + 16 * n),
                                <int64_t*>(base + 24 * n), <int64_t*>(base + 32 * n),
                                <int64_t*>(base + 40 * n), <uint8_t*>(base + 97 * n))
                    fp_columns(&scratch.fp, <const byte_t*>ptrs[t], t, base, r0, n)
                if rows:
                    rc = fp_finish(&scratch.fp, rows, key_ptr, kind_fps, hash_many)
        if rc < 0:
            raise MemoryError("out of memory while fingerprinting grounded spans")
        out = []
        for t in range(n_texts):
            r0 = row_start[t]
            n = row_start[t + 1] - r0
            out.append(columns_of(owner, dst + 98 * r0, n) if n else _NO_COLUMNS)
        return out
    finally:
        _give_scratch(scratch)


cdef tuple columns_of(object owner, char* base, Py_ssize_t total):
    """The eleven read-only columns of ``total`` rows laid out at ``base`` (98 bytes a row,
    column by column), inside ``owner``'s buffer."""
    return (
        column(owner, base + 96 * total, total, 1, cnp.NPY_UINT8),
        column(owner, base, total, 1, cnp.NPY_INT64),
        column(owner, base + 8 * total, total, 1, cnp.NPY_INT64),
        column(owner, base + 16 * total, total, 1, cnp.NPY_INT64),
        column(owner, base + 24 * total, total, 1, cnp.NPY_INT64),
        column(owner, base + 32 * total, total, 1, cnp.NPY_INT64),
        column(owner, base + 40 * total, total, 1, cnp.NPY_INT64),
        column(owner, base + 97 * total, total, 1, cnp.NPY_UINT8),
        column(owner, base + 48 * total, total, 2, cnp.NPY_UINT64),
        column(owner, base + 64 * total, total, 2, cnp.NPY_UINT64),
        column(owner, base + 80 * total, total, 2, cnp.NPY_UINT64),
    )


def _extract_columns_with_python_hashing(data, max_spans, key):
    """extract_columns when provgate._hashing runs in the reference (a partial build): the
    native scan and framing, hashed through provgate._hashing."""
    from provgate import _hashing

    cols = scan(data, max_spans)
    kind, _, _, ks, ke, vs, ve, vk = cols
    n = kind.shape[0]
    buf, starts, ends = frame_facts(data, kind, ks, ke, vs, ve, vk)
    words = _hashing.hash_spans(buf, starts, ends, key=key).view(">u8")
    fp_value = np.ascontiguousarray(words[0 : 2 * n : 2, :2], dtype=np.uint64)
    fp_fact = np.ascontiguousarray(words[1 : 2 * n : 2, :2], dtype=np.uint64)
    fp_key = kind_key_fingerprints(key)[kind]
    fp_key[ks >= 0] = words[2 * n :, :2]
    out = tuple(np.array(c) for c in cols) + (fp_key, fp_value, fp_fact)
    for c in out:
        c.flags.writeable = False
    return out


# ---- a fact table read back from the store: could a scan have made it? ----------------------------

cdef inline bint _plain_column(object column, int type_num, Py_ssize_t n):
    return (type(column) is cnp.ndarray and (<cnp.ndarray>column).ndim == 1
            and cnp.PyArray_TYPE(<cnp.ndarray>column) == type_num and (<cnp.ndarray>column).shape[0] == n
            and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>column) and cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>column))


cdef inline bint _after(const int64_t* start, const int64_t* end, const uint8_t* kind, Py_ssize_t a,
                        Py_ssize_t b) noexcept nogil:
    """Does row a sort after row b by (start, end, kind)?"""
    if start[a] != start[b]:
        return start[a] > start[b]
    if end[a] != end[b]:
        return end[a] > end[b]
    return kind[a] > kind[b]


def first_invalid_row(size, kind, start, end, key_start, key_end, value_start, value_end, value_kind, max_kind,
                      max_value_kind, kv_kind):
    """The specification is ``provgate._scanner_py.first_invalid_row``: one pass over the rows
    per check in C (the store's cached tables are checked on every load; the reference's numpy
    expressions cost about 60 us a table). Columns of other dtypes or layouts are checked by
    the reference."""
    cdef Py_ssize_t n = kind.shape[0] if type(kind) is cnp.ndarray and (<cnp.ndarray>kind).ndim == 1 else -1
    if not (n >= 0 and type(size) is int and -0x8000000000000000 <= size <= 0x7FFFFFFFFFFFFFFF
            and type(max_kind) is int and type(max_value_kind) is int
            and type(kv_kind) is int and _plain_column(kind, cnp.NPY_UINT8, n)
            and _plain_column(value_kind, cnp.NPY_UINT8, n) and _plain_column(start, cnp.NPY_INT64, n)
            and _plain_column(end, cnp.NPY_INT64, n) and _plain_column(key_start, cnp.NPY_INT64, n)
            and _plain_column(key_end, cnp.NPY_INT64, n) and _plain_column(value_start, cnp.NPY_INT64, n)
            and _plain_column(value_end, cnp.NPY_INT64, n) and 0 <= max_kind <= 255 and 0 <= max_value_kind <= 255
            and 0 <= kv_kind <= 255):
        return _first_invalid_row_py(size, kind, start, end, key_start, key_end, value_start, value_end, value_kind,
                                     max_kind, max_value_kind, kv_kind)
    cdef const uint8_t* k = <const uint8_t*>cnp.PyArray_DATA(<cnp.ndarray>kind)
    cdef const uint8_t* vk = <const uint8_t*>cnp.PyArray_DATA(<cnp.ndarray>value_kind)
    cdef const int64_t* s = <const int64_t*>cnp.PyArray_DATA(<cnp.ndarray>start)
    cdef const int64_t* e = <const int64_t*>cnp.PyArray_DATA(<cnp.ndarray>end)
    cdef const int64_t* ks = <const int64_t*>cnp.PyArray_DATA(<cnp.ndarray>key_start)
    cdef const int64_t* ke = <const int64_t*>cnp.PyArray_DATA(<cnp.ndarray>key_end)
    cdef const int64_t* vs = <const int64_t*>cnp.PyArray_DATA(<cnp.ndarray>value_start)
    cdef const int64_t* ve = <const int64_t*>cnp.PyArray_DATA(<cnp.ndarray>value_end)
    cdef int64_t text_size = size
    cdef int top_kind = max_kind, top_value_kind = max_value_kind, kv = kv_kind
    # the first failing row of each check, in the reference's order of checks
    cdef Py_ssize_t first[6]
    cdef Py_ssize_t i, least
    cdef int c
    cdef bint no_key
    for c in range(6):
        first[c] = -1
    with nogil:
        for i in range(n):
            if first[0] < 0 and (k[i] < 1 or k[i] > top_kind):
                first[0] = i
            if first[1] < 0 and vk[i] > top_value_kind:
                first[1] = i
            if first[2] < 0 and (s[i] < 0 or e[i] <= s[i] or e[i] > text_size):
                first[2] = i
            if first[3] < 0 and (vs[i] < s[i] or ve[i] < vs[i] or ve[i] > e[i]):
                first[3] = i
            if first[4] < 0:
                no_key = ks[i] == -1 and ke[i] == -1
                if (no_key or ks[i] < s[i] or ke[i] < ks[i] or ke[i] > e[i]) if k[i] == kv else not no_key:
                    first[4] = i
            if first[5] < 0 and i > 0 and _after(s, e, k, i - 1, i):
                first[5] = i  # some row is out of order: where, is found below
        if first[5] >= 0:
            # the first position a stable sort moves: the first row with a later row before it
            least = n - 1
            first[5] = -1
            i = n - 2
            while i >= 0:
                if _after(s, e, k, i, least):
                    first[5] = i
                else:
                    least = i
                i -= 1
    for c, what in enumerate(("unknown kind", "unknown value kind", "span outside the text",
                              "value outside its span", "key does not match its kind", "rows out of order")):
        if first[c] >= 0:
            return first[c], what
    return None


# ---- citation-marker names of a fact table -------------------------------------------------------

cdef inline bint _is_column(object column, int type_num):
    return (type(column) is cnp.ndarray and (<cnp.ndarray>column).ndim == 1
            and cnp.PyArray_TYPE(<cnp.ndarray>column) == type_num and cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>column))


cdef bint _span_columns_ok(object data, object kind, object value_start, object value_end, object wanted) except -1:
    return (type(data) is bytes and _is_column(kind, cnp.NPY_UINT8) and _is_column(value_start, cnp.NPY_INT64)
            and _is_column(value_end, cnp.NPY_INT64) and type(wanted) is int and 0 <= wanted <= 255
            and (<cnp.ndarray>value_start).shape[0] == (<cnp.ndarray>kind).shape[0]
            and (<cnp.ndarray>value_end).shape[0] == (<cnp.ndarray>kind).shape[0])


def span_values(data, kind, value_start, value_end, wanted):
    """The distinct value texts of the rows of kind ``wanted``, decoded, in order of first
    appearance; the specification is ``provgate._scanner_py.span_values``. One pass over the
    kind column in C, a str made only for each wanted row."""
    if not _span_columns_ok(data, kind, value_start, value_end, wanted):
        check_span_columns(data, kind, value_start, value_end, wanted)  # raises what the reference refuses
        # numpy's own views of what passed through an ndarray subclass's attributes, which may
        # say another dtype or length than the data has (red team 39, 05), checked again
        kind, value_start, value_end = np.asarray(kind), np.asarray(value_start), np.asarray(value_end)
        if not _span_columns_ok(data, kind, value_start, value_end, wanted):
            check_span_columns(data, kind, value_start, value_end, wanted)  # raises
            raise TypeError("kind, value_start and value_end must be 1-D numpy arrays of one length")
    cdef cnp.ndarray k_arr = kind, s_arr = value_start, e_arr = value_end
    # strided reads: a table's columns may be views
    cdef Py_ssize_t n = k_arr.shape[0], row
    cdef Py_ssize_t k_stride = k_arr.strides[0], s_stride = s_arr.strides[0], e_stride = e_arr.strides[0]
    cdef const char* kp = <const char*>cnp.PyArray_DATA(k_arr)
    cdef const char* sp = <const char*>cnp.PyArray_DATA(s_arr)
    cdef const char* ep = <const char*>cnp.PyArray_DATA(e_arr)
    cdef const char* d = PyBytes_AS_STRING(data)
    cdef Py_ssize_t size = PyBytes_GET_SIZE(data)
    cdef uint8_t target = wanted
    cdef int64_t a, b
    cdef dict names = {}
    for row in range(n):
        if (<const uint8_t*>(kp + row * k_stride))[0] != target:
            continue
        a = (<const int64_t*>(sp + row * s_stride))[0]
        b = (<const int64_t*>(ep + row * e_stride))[0]
        if not (0 <= a <= b <= size):
            raise InvalidArgumentError(f"the value span of row {row}, [{a}, {b}), is outside the {size} bytes of data",
                                       argument="value_start")
        names[PyUnicode_DecodeUTF8(d + a, b - a, NULL)] = None
    return tuple(names)
