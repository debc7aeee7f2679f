"""Batch quote search, native: exact and whitespace-normalised substring search of many
needles in many haystacks in one call, without the GIL.

The specification (results, whitespace set, errors) is ``provgate._search_py``; this module
must return identical arrays and raise the same exceptions with the same messages (batches
are checked here in C with the reference's messages, the rest by the reference's own
validators).

The search is the two-way algorithm of Crochemore and Perrin (J. ACM 38(3), 1991), written
here from the paper's description: a critical factorisation of the needle from its two maximal
suffixes, then a left-to-right scan of the right part and a right-to-left scan of the left part
at each alignment. It runs in O(n + m) time and O(1) space on every input, so a hostile quote
(``"a" * 10_000 + "b"`` against ``"a" * 10**7``) cannot make it quadratic. Whenever the first
compared byte mismatches, the next alignment at which it can match is found with ``memchr``,
which skips most of an ordinary text at memory speed.

Whitespace-normalised search never normalises a haystack when it can avoid it: a needle
whose longest whitespace-free run (or a run with a digit) is missing from the original bytes
cannot occur, and otherwise each occurrence of that run is verified outwards over the
original bytes (``verify_around``), which gives original offsets directly. Only when that
verification would cost more than a linear budget (a run that occurs everywhere) or the needle
is all whitespace are the needed haystacks normalised, once each per call, into a scratch
buffer owned by a numpy array, searched, and the first match mapped back by one walk.

Items that share one haystack (the same bytes object), enough of them (``worth_a_pass``), are
searched together in one pass over it instead (``search_group``, below): exact search, longest
prefix, and the whitespace search over the haystack normalised once. The results are the same
arrays; only the cost changes, from (needles) x (haystack) to about the haystack plus the
candidates, each needle's candidates bounded so that none costs much more than its own scan.
"""

import numpy as np

cimport numpy as cnp
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.object cimport PyObject
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.unicode cimport PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_KIND
from libc.stdint cimport INT64_MAX, uint64_t
from libc.string cimport memchr, memcmp, memcpy, memset

from _byte_batches cimport byte_items, lengths_of, pointers_of
from _types cimport byte_t, offset_t
from _whitespace cimport whitespace_length

from provgate._search_py import (ASIDE_OPENERS, UNIT_ASCII_SPELLINGS, UNIT_DASHES, UNIT_GAP_BYTES, UNIT_LOWER_CASE_ONLY, WHITESPACE,
                                 WHITESPACE_CODEPOINTS)
from provgate._search_py import PAIRED_STOP, check_diff_place, check_diff_runs, check_max_spans, check_pair, check_start
from provgate.errors import InvalidArgumentError

cnp.import_array()

IMPLEMENTATION = "native"

# How rare a byte is expected to be in agent context (prose, code, logs, JSON, config): the
# bytes below from most to least common; every other byte ranks rarest. A rough ordering from
# general knowledge of English text and source code. It only decides which needle byte the
# memchr skip looks for, so it affects speed, never results.
_COMMON_FIRST = (
    b" etaoinsrhldcumfpgwybvk\n.,_-\"':=/0123456789()"
    b"ITSACMEPRDNBLFOHWG{}[];x\t*#<>jqz\xc3\xe2\x80UVYKJQXZ@$%&+|!?\\^~`"
)
cdef byte_t BYTE_RANK[256]
cdef int _b
for _b in range(256):
    BYTE_RANK[_b] = 255
for _b in range(len(_COMMON_FIRST)):
    BYTE_RANK[_COMMON_FIRST[_b]] = _b

# 1 for ASCII whitespace, 2 for the first byte of a multi-byte whitespace sequence (which the
# following bytes decide), 0 for bytes that never begin whitespace
cdef byte_t WHITESPACE_LEAD[256]
for _b in range(256):
    WHITESPACE_LEAD[_b] = 1 if _b in (0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20) else 2 if _b in (0xC2, 0xE1, 0xE2, 0xE3) else 0


# ---- two-way search ----------------------------------------------------------------------------

cdef struct Factorization:
    offset_t ell       # the left part of the needle is x[0 .. ell] (ell may be -1: empty)
    offset_t period    # shift after a full match
    bint periodic      # the left part repeats within the period: the search keeps a memory


cdef offset_t maximal_suffix(const byte_t* x, offset_t m, bint reverse, offset_t* period) noexcept nogil:
    """Start - 1 of the lexicographically maximal suffix of x (order reversed if ``reverse``),
    and its period."""
    cdef offset_t ms = -1, j = 0, k = 1, p = 1
    cdef byte_t a, b
    while j + k < m:
        a = x[j + k]
        b = x[ms + k]
        if (a > b) if reverse else (a < b):
            # the candidate suffix stays maximal; the period grows to the whole compared part
            j += k
            k = 1
            p = j - ms
        elif a == b:
            if k != p:
                k += 1
            else:
                j += p
                k = 1
        else:
            # a larger suffix starts at j
            ms = j
            j = ms + 1
            k = 1
            p = 1
    period[0] = p
    return ms


cdef void factorize(const byte_t* x, offset_t m, Factorization* f) noexcept nogil:
    cdef offset_t p, q
    cdef offset_t i = maximal_suffix(x, m, False, &p)
    cdef offset_t j = maximal_suffix(x, m, True, &q)
    if i > j:
        f.ell = i
        f.period = p
    else:
        f.ell = j
        f.period = q
    # period + ell + 1 <= m: the period of the right part is at most its length
    if memcmp(x, x + f.period, <size_t>(f.ell + 1)) == 0:
        f.periodic = True
    else:
        f.periodic = False
        f.period = max(f.ell + 1, m - f.ell - 1) + 1


cdef offset_t two_way(const byte_t* x, offset_t m, const Factorization* f, offset_t rare,
                      const byte_t* y, offset_t n, offset_t limit, offset_t* positions,
                      offset_t* count) noexcept nogil:
    """First offset of x in y (or -1); ``count`` receives the number of (overlapping)
    occurrences, the search stopping at the ``limit``-th (``limit`` >= 1). Unless
    ``positions`` is NULL, their offsets go there (room for ``limit``): one pass that keeps
    two-way's memory from match to match, where a search restarted after each match costs
    the needle's length per occurrence (red team 82, F02).

    ``rare`` is an index into x. Between matches (memory = -1) an alignment j can only match
    if y[j + rare] == x[rare], so the next such j is found with memchr; skipping alignments
    that cannot match and forgetting nothing (memory is already -1) keeps two-way's result
    and its linear bound."""
    cdef offset_t ell = f.ell, per = f.period
    cdef offset_t j = 0, i, memory = -1, first = -1, found = 0
    cdef bint matched
    cdef byte_t probe = x[rare]
    cdef const byte_t* hit
    while j <= n - m:
        if memory < 0 and y[j + rare] != probe:
            # alignments j+1 .. n-m put their probe byte at j+1+rare .. n-m+rare
            hit = <const byte_t*>memchr(y + j + 1 + rare, probe, <size_t>(n - m - j))
            if hit == NULL:
                break
            j = (hit - y) - rare
        i = (ell if ell > memory else memory) + 1
        while i < m and x[i] == y[i + j]:
            i += 1
        if i >= m:
            i = ell
            if f.periodic:
                while i > memory and x[i] == y[i + j]:
                    i -= 1
                matched = i <= memory
            else:
                while i >= 0 and x[i] == y[i + j]:
                    i -= 1
                matched = i < 0
            if matched:
                if found == 0:
                    first = j
                if positions != NULL:
                    positions[found] = j
                found += 1
                if found >= limit:
                    break
            j += per
            memory = m - per - 1 if f.periodic else -1
        else:
            j += i - ell
            memory = -1
    count[0] = found
    return first


cdef offset_t rarest_index(const byte_t* x, offset_t m) noexcept nogil:
    """The index of the needle byte expected to be rarest in text (see BYTE_RANK)."""
    cdef offset_t i, best = 0
    cdef byte_t best_rank = BYTE_RANK[x[0]]
    for i in range(1, m):
        if BYTE_RANK[x[i]] > best_rank:
            best_rank = BYTE_RANK[x[i]]
            best = i
    return best


cdef offset_t find_bytes(const byte_t* x, offset_t m, const byte_t* y, offset_t n,
                         bint first_only, offset_t* count) noexcept nogil:
    cdef Factorization f
    if m > n:
        count[0] = 0
        return -1
    factorize(x, m, &f)
    return two_way(x, m, &f, rarest_index(x, m), y, n, 1 if first_only else INT64_MAX, NULL, count)


# ---- whitespace normalisation ------------------------------------------------------------------

cdef offset_t normalize_into(const byte_t* src, offset_t n, byte_t* dst) noexcept nogil:
    """Write the normalised src to dst (room for n bytes); return its length.

    Branch-free for ASCII: every byte is written (a whitespace byte as a space), and the
    output position advances unless this byte and the previous one are both whitespace. Only
    a lead byte of a multi-byte whitespace sequence takes a branch, and it is rare in text."""
    cdef offset_t i = 0, k = 0, w
    cdef byte_t b, lead, ws, prev_ws = 0
    while i < n:
        b = src[i]
        lead = WHITESPACE_LEAD[b]
        if lead == 2:
            w = whitespace_length(src + i, n - i)
            if w:
                dst[k] = 0x20
                k += 1 - prev_ws
                prev_ws = 1
                i += w
                continue
        ws = lead & 1
        # a space where ws is 1, else the byte itself
        dst[k] = b ^ ((b ^ 0x20) & (0 - ws))
        k += 1 - (ws & prev_ws)
        prev_ws = ws
        i += 1
    return k


cdef void map_to_original(const byte_t* src, offset_t n, const offset_t* targets, offset_t nt,
                          offset_t* out) noexcept nogil:
    """out[t] = the original offset where normalised byte targets[t] begins (the normalised
    length maps to n). targets ascend."""
    cdef offset_t i = 0, k = 0, t, w
    for t in range(nt):
        while k < targets[t]:
            if not WHITESPACE_LEAD[src[i]]:
                i += 1
                k += 1
                continue
            w = whitespace_length(src + i, n - i)
            if w:
                i += w
                while i < n:
                    w = whitespace_length(src + i, n - i)
                    if w == 0:
                        break
                    i += w
            else:
                i += 1
            k += 1
        out[t] = i


cdef bint chunks_present(const byte_t* x, offset_t m, const byte_t* y, offset_t n) noexcept nogil:
    """False when the needle cannot have a normalised occurrence in y.

    Every normalised occurrence of x contains each run of x without whitespace (a *chunk*)
    verbatim, in the original haystack too: normalising never touches those bytes. So if the
    longest chunk, or a chunk with a digit (numbers are what drifts), is missing from y, there
    is no occurrence. True means "maybe"; the normalised search decides."""
    cdef offset_t i = 0, s, w, best_start = 0, best_len = 0, ignored
    cdef bint digit
    while i < m:
        w = whitespace_length(x + i, m - i)
        if w:
            i += w
            continue
        s = i
        digit = False
        while i < m and whitespace_length(x + i, m - i) == 0:
            digit = digit or (0x30 <= x[i] <= 0x39)
            i += 1
        if digit and find_bytes(x + s, i - s, y, n, True, &ignored) < 0:
            return False
        if i - s > best_len:
            best_start = s
            best_len = i - s
    return best_len == 0 or find_bytes(x + best_start, best_len, y, n, True, &ignored) >= 0


cdef inline offset_t whitespace_ending_at(const byte_t* y, offset_t q) noexcept nogil:
    """Length of the whitespace sequence y[q - len : q], or 0. The sequences never overlap
    and no byte of one can start another, so reading them backwards finds the same ones."""
    if q >= 1 and WHITESPACE_LEAD[y[q - 1]] == 1:
        return 1
    if q >= 2 and y[q - 2] == 0xC2 and (y[q - 1] == 0x85 or y[q - 1] == 0xA0):
        return 2
    if q >= 3 and whitespace_length(y + q - 3, 3) == 3:
        return 3
    return 0


cdef inline bint straddles(const byte_t* y, offset_t n, offset_t b) noexcept nogil:
    """A whitespace sequence begins before offset b and ends after it."""
    if b <= 0 or b >= n:
        return False
    if whitespace_length(y + b - 1, n - b + 1) >= 2:
        return True
    return b >= 2 and whitespace_length(y + b - 2, n - b + 2) == 3


cdef bint verify_around(const byte_t* x, offset_t mm, offset_t c0, offset_t chunk, const byte_t* y,
                        offset_t n, offset_t p, offset_t* start, offset_t* end, offset_t* work) noexcept nogil:
    """Whether the normalised needle x (length mm) occurs in the normalised view of y with its
    chunk x[c0 : c0 + chunk] at the original offset p; if so, the original [start, end).

    Walks outwards from the chunk over the ORIGINAL bytes: a space of x must meet a whole run
    of whitespace (consumed to its maximal extent), any other byte of x must meet the same
    byte, one that neither begins nor ends a whitespace sequence. Every whitespace sequence
    touching a matched byte is thereby seen (or straddles the chunk's edges, checked first),
    so this accepts exactly the normalised occurrences."""
    cdef offset_t k, q, w
    if straddles(y, n, p) or straddles(y, n, p + chunk):
        return False
    k = c0
    q = p
    while k > 0:
        k -= 1
        if x[k] == 0x20:
            w = whitespace_ending_at(y, q)
            if w == 0:
                return False
            while w:
                q -= w
                work[0] += w
                w = whitespace_ending_at(y, q)
        else:
            if q == 0 or y[q - 1] != x[k] or whitespace_ending_at(y, q):
                return False
            q -= 1
            work[0] += 1
    start[0] = q
    k = c0 + chunk
    q = p + chunk
    while k < mm:
        if x[k] == 0x20:
            w = whitespace_length(y + q, n - q) if q < n else 0
            if w == 0:
                return False
            while w:
                q += w
                work[0] += w
                w = whitespace_length(y + q, n - q) if q < n else 0
        else:
            if q >= n or y[q] != x[k] or whitespace_length(y + q, n - q):
                return False
            q += 1
            work[0] += 1
        k += 1
    end[0] = q
    return True


cdef bint anchored_search(const byte_t* x, offset_t mm, const byte_t* y, offset_t n,
                          offset_t* first_start, offset_t* first_end, offset_t* count) noexcept nogil:
    """Normalised search of the normalised needle x in y WITHOUT normalising y: find each
    occurrence of x's longest chunk (a run without spaces) in the original bytes and verify
    around it. Returns False, results unset, when x has no chunk or the verification work
    exceeds a linear budget (a chunk occurring everywhere); the caller then normalises."""
    cdef offset_t i = 0, s, c0 = 0, chunk = 0, j = 0, k, p, rare, ignored, found = 0
    cdef offset_t work = 0, budget = 8 * (n + mm) + 4096, st, en
    cdef Factorization f
    while i < mm:
        if x[i] == 0x20:
            i += 1
            continue
        s = i
        while i < mm and x[i] != 0x20:
            i += 1
        if i - s > chunk:
            c0 = s
            chunk = i - s
    if chunk == 0:
        return False
    first_start[0] = -1
    first_end[0] = -1
    if chunk > n:
        count[0] = 0
        return True
    factorize(x + c0, chunk, &f)
    rare = rarest_index(x + c0, chunk)
    while j <= n - chunk:
        k = two_way(x + c0, chunk, &f, rare, y + j, n - j, 1, NULL, &ignored)
        if k < 0:
            break
        p = j + k
        work += chunk + 1
        if verify_around(x, mm, c0, chunk, y, n, p, &st, &en, &work):
            if found == 0:
                first_start[0] = st
                first_end[0] = en
            found += 1
        if work > budget:
            return False
        j = p + 1
    count[0] = found
    return True


# ---- many needles in one haystack --------------------------------------------------------------
#
# A batch that searches many needles in the same haystack (a long answer quoting one large
# source) would cost (needles) x (haystack) item by item. Such a group is searched in ONE pass
# instead: every needle is keyed by its first min(len, 8) bytes in a hash table, the pass looks
# up the haystack's window at each offset for each key length present, and each needle whose key
# matches is compared there in full (exact search: counts an occurrence; longest prefix: measures
# how far the needle agrees). The results are the item-by-item ones by construction: every offset
# at which a needle occurs is an offset at which its key occurs. What a needle costs in that pass
# (one unit per candidate offset plus one per 8 bytes compared) is bounded: the haystack's bytes
# are counted first, a needle is priced by its rarest byte's count (what its own memchr-skipping
# search costs), and one that exceeds half its price or a quarter (prefix: an eighth) of the
# haystack's length in units (a key that occurs everywhere) is taken out of the table and searched
# on its own, skipping to that rarest byte; a needle holding a byte the haystack lacks never
# enters, and a group whose prices together are below the pass's cost is searched item by item,
# so a group never costs much more than item by item (search_group).

cdef enum:
    # groups with fewer needles, or less haystack times needles, are searched item by item
    # (a pass and its tables cost more)
    MANY_NEEDLES = 8
    PASS_MIN_BYTES = 32768
    KEY_BYTES = 8
    # exact search keys a needle of 16 bytes or more by its first 16 bytes (hashed into one
    # word): in text, far fewer offsets begin with 16 given bytes than with 8
    LONG_KEY = 16
    # batches up to this size look for a shared haystack in a table on the stack (any_shared)
    SMALL_BATCH = 256

cdef uint64_t KEY_MASK[KEY_BYTES + 1]   # KEY_MASK[L]: the first L bytes of a word read by memcpy
cdef byte_t _ones[KEY_BYTES]
for _b in range(KEY_BYTES + 1):
    for _k in range(KEY_BYTES):
        _ones[_k] = 0xFF if _k < _b else 0
    memcpy(&KEY_MASK[_b], _ones, KEY_BYTES)


cdef inline uint64_t window(const byte_t* y, offset_t avail) noexcept nogil:
    """The first min(avail, 8) bytes at y as a word (the rest zero), byte order as memcpy."""
    cdef uint64_t v = 0
    memcpy(&v, y, <size_t>(KEY_BYTES if avail >= KEY_BYTES else avail))
    return v


cdef inline uint64_t long_key(const byte_t* x) noexcept nogil:
    """The first LONG_KEY bytes at x as one word (a hash: a match is verified from byte 0)."""
    cdef uint64_t u, w
    memcpy(&u, x, 8)
    memcpy(&w, x + 8, 8)
    return (u * 0xC2B2AE3D27D4EB4FULL) ^ ((w << 31) | (w >> 33)) ^ w


cdef inline offset_t common_prefix(const byte_t* a, const byte_t* b, offset_t limit) noexcept nogil:
    """How many leading bytes of a and b agree, at most ``limit``."""
    cdef offset_t i = 0
    cdef uint64_t u, w
    while i + 8 <= limit:
        memcpy(&u, a + i, 8)
        memcpy(&w, b + i, 8)
        if u != w:
            break
        i += 8
    while i < limit and a[i] == b[i]:
        i += 1
    return i


cdef struct KeyTable:
    # open addressing with linear probing; capacity a power of two, at most 1/8 full: most
    # offsets of a haystack are no key, and a sparse table answers that with one probe
    uint64_t* key
    byte_t* length     # key length 1..8 or LONG_KEY, 0 = empty slot
    offset_t* value    # a chain head (member index) or a first offset; -1 = none
    uint64_t* pairs    # 65536 bits: the first two bytes of some key of 2 bytes or more
    byte_t* single     # 256 bytes: the key of 1 byte
    offset_t mask
    int shift


cdef inline offset_t key_slot(const KeyTable* t, uint64_t v, offset_t L) noexcept nogil:
    return <offset_t>(((v + <uint64_t>L * 0x9E3779B97F4A7C15ULL) * 0xBF58476D1CE4E5B9ULL) >> t.shift)


cdef inline offset_t key_find(const KeyTable* t, uint64_t v, offset_t L) noexcept nogil:
    cdef offset_t s = key_slot(t, v, L)
    while t.length[s]:
        if t.length[s] == L and t.key[s] == v:
            return s
        s = (s + 1) & t.mask
    return -1


cdef inline offset_t key_add(KeyTable* t, uint64_t v, offset_t L) noexcept nogil:
    """The slot of the key, claimed (value -1) if new. The caller sized the table."""
    cdef offset_t s = key_slot(t, v, L)
    while t.length[s]:
        if t.length[s] == L and t.key[s] == v:
            return s
        s = (s + 1) & t.mask
    t.length[s] = <byte_t>L
    t.key[s] = v
    t.value[s] = -1
    return s


cdef inline void key_filter_add(KeyTable* t, const byte_t* x, offset_t L) noexcept nogil:
    """Note in the filters that a key of L bytes begins x."""
    cdef offset_t p
    if L == 1:
        t.single[x[0]] = 1
    else:
        p = x[0] | (x[1] << 8)
        t.pairs[p >> 6] |= (<uint64_t>1) << (p & 63)


cdef inline bint pair_may_start(const KeyTable* t, const byte_t* y) noexcept nogil:
    """Whether some key of 2 bytes or more begins with y[0], y[1] (two readable bytes)."""
    cdef offset_t p = y[0] | (y[1] << 8)
    return (t.pairs[p >> 6] >> (p & 63)) & 1


cdef class _TableMemory:
    """The arrays behind a KeyTable for up to ``entries`` keys (numpy owns the memory)."""
    cdef cnp.ndarray key, length, value, pairs, single
    cdef KeyTable table

    def __cinit__(self, offset_t entries):
        cdef offset_t cap = 16
        cdef int bits = 4
        while cap < 8 * entries:
            cap *= 2
            bits += 1
        self.key = np.empty(cap, dtype=np.uint64)
        self.length = np.zeros(cap, dtype=np.uint8)
        self.value = np.empty(cap, dtype=np.int64)
        self.pairs = np.zeros(65536 // 64, dtype=np.uint64)
        self.single = np.zeros(256, dtype=np.uint8)
        self.table.pairs = <uint64_t*>cnp.PyArray_DATA(self.pairs)
        self.table.single = <byte_t*>cnp.PyArray_DATA(self.single)
        self.table.key = <uint64_t*>cnp.PyArray_DATA(self.key)
        self.table.length = <byte_t*>cnp.PyArray_DATA(self.length)
        self.table.value = <offset_t*>cnp.PyArray_DATA(self.value)
        self.table.mask = cap - 1
        self.table.shift = 64 - bits


cdef struct Member:
    # one needle of a group, its results and its chain link, in one place (one cache line or
    # two) for the scan
    const byte_t* x
    offset_t m
    offset_t first
    offset_t result
    offset_t work
    offset_t next
    offset_t gave_up
    offset_t cap       # the work after which it gives up (group_caps)
    offset_t rare      # exact search: the index of its byte rarest in the haystack


cdef void multi_scan(KeyTable* t, const byte_t* y, offset_t n, offset_t g, Member* mem,
                     bint prefix_mode, bint long_keys) noexcept nogil:
    """One pass of the g needles over y. A needle's key is its first LONG_KEY bytes if it has
    that many and ``long_keys``, else its first min(len, 8) bytes. Exact mode: ``first`` is
    the first offset of a needle, ``result`` its number of (overlapping) occurrences. Prefix
    mode: ``result`` is the longest prefix of the needle that occurs at an offset where its key
    occurs, ``first`` the first such offset (0 and -1 when its key never occurs). ``gave_up``:
    the needle exceeded its budget and its results are void."""
    cdef offset_t k, L, q, avail, s, li, n_lengths = 0
    cdef offset_t lengths[KEY_BYTES]
    cdef bint present[KEY_BYTES + 1]
    cdef bint any_long = False
    cdef uint64_t v
    cdef Member* a
    for L in range(KEY_BYTES + 1):
        present[L] = False
    for k in range(g):
        a = &mem[k]
        if long_keys and a.m >= LONG_KEY:
            s = key_add(t, long_key(a.x), LONG_KEY)
            any_long = True
            key_filter_add(t, a.x, LONG_KEY)
        else:
            L = a.m if a.m < KEY_BYTES else KEY_BYTES
            s = key_add(t, window(a.x, L) & KEY_MASK[L], L)
            present[L] = True
            key_filter_add(t, a.x, L)
        a.next = t.value[s]
        t.value[s] = k
        a.first = -1
        a.result = 0
        a.work = 0
        a.gave_up = 0
    for L in range(KEY_BYTES, 1, -1):
        if present[L]:
            lengths[n_lengths] = L
            n_lengths += 1
    for q in range(n):
        avail = n - q
        if avail >= KEY_BYTES:
            memcpy(&v, y + q, KEY_BYTES)  # (a constant size: one load)
        else:
            v = window(y + q, avail)
        if present[1] and t.single[y[q]]:
            s = key_find(t, v & KEY_MASK[1], 1)
            if s >= 0:
                walk_chain(t, mem, s, 1, y, q, n, prefix_mode)
        if avail < 2 or not pair_may_start(t, y + q):
            continue
        if any_long and avail >= LONG_KEY:
            s = key_find(t, long_key(y + q), LONG_KEY)
            if s >= 0:
                walk_chain(t, mem, s, 0, y, q, n, prefix_mode)  # (a hash: nothing known equal)
        for li in range(n_lengths):
            L = lengths[li]
            if L > avail:
                continue
            s = key_find(t, v & KEY_MASK[L], L)
            if s >= 0:
                walk_chain(t, mem, s, L, y, q, n, prefix_mode)


cdef inline void walk_chain(KeyTable* t, Member* mem, offset_t s, offset_t L, const byte_t* y, offset_t q,
                            offset_t n, bint prefix_mode) noexcept nogil:
    """Compare each needle of slot s's chain at offset q (multi_scan); its first L bytes are
    known to be equal there."""
    cdef offset_t prev = -1, k = t.value[s], nk, m, e, limit, avail = n - q
    cdef bint drop
    cdef Member* a
    while k >= 0:
        a = &mem[k]
        nk = a.next
        m = a.m
        drop = False
        if prefix_mode:
            limit = m if m < avail else avail
            e = L + common_prefix(a.x + L, y + q + L, limit - L)
            a.work += 1 + ((e - L) >> 3)
            if L == 0 and e < LONG_KEY:
                pass  # the hashed long key matched by chance: no offset where the key occurs
            elif e > a.result:
                a.result = e
                a.first = q
            drop = e == m  # its first whole occurrence: nothing longer to find
        elif m <= avail:
            e = L + common_prefix(a.x + L, y + q + L, m - L)
            # (a long key that matched costs as its first 16 bytes known equal would)
            a.work += 1 + ((e - (LONG_KEY if L == 0 and e >= LONG_KEY else L)) >> 3)
            if e == m:
                if a.first < 0:
                    a.first = q
                a.result += 1
        else:
            drop = True  # it no longer fits in what is left
        if not drop and a.work > a.cap:
            a.gave_up = 1
            drop = True
        if drop:
            if prev < 0:
                t.value[s] = nk
            else:
                mem[prev].next = nk
        else:
            prev = k
        k = nk


cdef void short_prefixes(KeyTable* t, const byte_t* y, offset_t n, offset_t g, const size_t* xp,
                         const offset_t* xl, const byte_t* wanted, offset_t* length, offset_t* at) noexcept nogil:
    """For each wanted needle k, whose key (first min(len, 8) bytes) never occurs in y: the
    longest of its prefixes of 1 .. key length - 1 bytes that occurs, and its first offset (0
    and -1 when none). Every such prefix of every wanted needle is one key of the table, whose
    value becomes the first offset where it occurs. The keys are closed under taking prefixes,
    so at each offset the lookups stop at the first length that is not a key."""
    cdef offset_t k, L, top, q, avail, s, longest = 0, unset = 0
    cdef uint64_t v
    for k in range(g):
        if not wanted[k]:
            continue
        top = xl[k] if xl[k] < KEY_BYTES else KEY_BYTES
        v = window(<const byte_t*>xp[k], top)
        for L in range(1, top):
            s = key_add(t, v & KEY_MASK[L], L)
            if t.value[s] == -1:
                t.value[s] = -2  # not seen yet
                unset += 1
        if top - 1 > longest:
            longest = top - 1
    q = 0
    while q < n and unset > 0:
        avail = n - q
        v = window(y + q, avail)
        for L in range(1, longest + 1):
            if L > avail:
                break
            s = key_find(t, v & KEY_MASK[L], L)
            if s < 0:
                break
            if t.value[s] == -2:
                t.value[s] = q
                unset -= 1
        q += 1
    for k in range(g):
        if not wanted[k]:
            continue
        length[k] = 0
        at[k] = -1
        top = xl[k] if xl[k] < KEY_BYTES else KEY_BYTES
        v = window(<const byte_t*>xp[k], top)
        for L in range(top - 1, 0, -1):
            s = key_find(t, v & KEY_MASK[L], L)
            if t.value[s] >= 0:
                length[k] = L
                at[k] = t.value[s]
                break


cdef bint any_shared(const size_t* hp, offset_t items) noexcept nogil:
    """Whether some address occurs MANY_NEEDLES times among hp[:items] (items <= SMALL_BATCH):
    counted in a table on the stack, so the usual small batch pays no numpy call."""
    cdef size_t address[4 * SMALL_BATCH]
    cdef offset_t seen[4 * SMALL_BATCH]
    cdef offset_t i, s, slots = 32
    cdef int bits = 5
    while slots < 4 * items:  # at most 1/4 full
        slots *= 2
        bits += 1
    for s in range(slots):
        seen[s] = 0
    for i in range(items):
        s = <offset_t>(((<uint64_t>hp[i]) * 0x9E3779B97F4A7C15ULL) >> (64 - bits))
        while seen[s] and address[s] != hp[i]:
            s = (s + 1) & (slots - 1)
        address[s] = hp[i]
        seen[s] += 1
        if seen[s] >= MANY_NEEDLES:
            return True
    return False


cdef inline bint worth_a_pass(offset_t g, offset_t n) noexcept nogil:
    """Whether g needles of one haystack of n bytes are searched in one pass: the table costs
    about as much as searching 8 needles item by item, or 32 KB of haystack."""
    return g >= MANY_NEEDLES and g * n >= PASS_MIN_BYTES


cdef list large_groups(cnp.ndarray h_ptr, cnp.ndarray h_len, offset_t items):
    """The items whose haystack (the same bytes object: the same address) is shared by enough
    items (worth_a_pass): one int64 array of item indices per haystack, ascending."""
    if items < MANY_NEEDLES or (items <= SMALL_BATCH and not any_shared(
            <const size_t*>cnp.PyArray_DATA(h_ptr), items)):
        return []
    cdef cnp.ndarray order = np.argsort(h_ptr, kind="stable").astype(np.int64)
    cdef const offset_t* po = index_ptr(order)
    cdef const size_t* hp = <const size_t*>cnp.PyArray_DATA(h_ptr)
    cdef list runs = []
    cdef offset_t i = 0, j
    while i < items:
        j = i + 1
        while j < items and hp[po[j]] == hp[po[i]]:
            j += 1
        if worth_a_pass(j - i, index_ptr(h_len)[po[i]]):
            runs.append(order[i:j])
        i = j
    return runs


cdef cnp.ndarray grouped_mask(list runs, offset_t items):
    """1 for the items of the runs (uint8), or None when there are none."""
    if not runs:
        return None
    cdef cnp.ndarray mask = np.zeros(items, dtype=np.uint8)
    for run in runs:
        mask[run] = 1
    return mask


cdef int search_runs(list runs, cnp.ndarray x_ptr, cnp.ndarray x_len, cnp.ndarray y_ptr, cnp.ndarray y_len,
                     bint prefix_mode, cnp.ndarray first, cnp.ndarray result, cnp.ndarray border) except -1:
    """search_group for each run of items (large_groups): needle i at x_ptr[i] (x_len[i]
    bytes), its haystack at y_ptr[i]; results scattered to first[i], result[i]."""
    cdef cnp.ndarray run, r_first, r_result, m_ptr, m_len
    cdef offset_t head
    for run in runs:
        m_ptr = x_ptr[run]
        m_len = x_len[run]
        r_first = np.empty(len(run), dtype=np.int64)
        r_result = np.empty(len(run), dtype=np.int64)
        head = index_ptr(run)[0]
        search_group(<const size_t*>cnp.PyArray_DATA(m_ptr), index_ptr(m_len), len(run),
                     <const byte_t*>(<const size_t*>cnp.PyArray_DATA(y_ptr))[head], index_ptr(y_len)[head],
                     prefix_mode, index_ptr(r_first), index_ptr(r_result), index_ptr(border))
        first[run] = r_first
        result[run] = r_result
    return 0


cdef void byte_counts(const byte_t* y, offset_t n, offset_t* counts) noexcept nogil:
    """counts[b] = the occurrences of byte b in y. Four tables, so that in a run of one byte
    an increment does not wait for the previous one."""
    cdef offset_t c0[256]
    cdef offset_t c1[256]
    cdef offset_t c2[256]
    cdef offset_t c3[256]
    cdef offset_t i = 0, b
    for b in range(256):
        c0[b] = 0
        c1[b] = 0
        c2[b] = 0
        c3[b] = 0
    while i + 4 <= n:
        c0[y[i]] += 1
        c1[y[i + 1]] += 1
        c2[y[i + 2]] += 1
        c3[y[i + 3]] += 1
        i += 4
    while i < n:
        c0[y[i]] += 1
        i += 1
    for b in range(256):
        counts[b] = c0[b] + c1[b] + c2[b] + c3[b]


cdef inline void search_alone(const Member* a, const byte_t* y, offset_t n, bint prefix_mode, offset_t* border,
                              offset_t* first, offset_t* result) noexcept nogil:
    """One member searched on its own: exact search skips with memchr on its byte rarest in
    this haystack (a.rare), longest prefix by prefix_scan."""
    cdef Factorization f
    if prefix_mode:
        result[0] = prefix_scan(a.x, a.m, y, n, border, first)
    else:
        factorize(a.x, a.m, &f)
        first[0] = two_way(a.x, a.m, &f, a.rare, y, n, INT64_MAX, NULL, result)


cdef int search_group(const size_t* member_ptr, const offset_t* member_len, offset_t g,
                      const byte_t* y, offset_t n, bint prefix_mode, offset_t* first, offset_t* result,
                      offset_t* border) except -1:
    """The g needles of one haystack in one pass (multi_scan), the ones that gave up item by
    item. Prefix mode keys needles of LONG_KEY bytes or more by that many first; those whose
    long key never occurs take a second pass with 8-byte keys, and the needles whose 8-byte
    key never occurs are answered by short_prefixes. ``border`` has room for the longest
    needle.

    First the haystack's bytes are counted (byte_counts). An exact needle holding a byte the
    haystack lacks does not occur; a prefix ends before its first such byte (the needle is cut
    there). The count of a needle's rarest byte (exact; prefix: of its first byte) prices its
    own search, a memchr over the haystack and a verification per occurrence of that byte; a
    needle gives up in the pass once its work exceeds half that price (or a quarter of the
    haystack), so that, giving up, it costs at most about 1.5 times its own search. If too few
    needles remain for a pass (worth_a_pass), or their prices together are less than the pass
    would cost, they are searched on their own."""
    cdef offset_t counts[256]
    cdef cnp.ndarray members = np.empty(g * sizeof(Member), dtype=np.uint8)
    cdef cnp.ndarray needle_of = np.empty(g, dtype=np.int64)
    cdef cnp.ndarray cut = np.empty(g, dtype=np.int64)
    cdef cnp.ndarray wanted = np.zeros(g, dtype=np.uint8)
    cdef cnp.ndarray again = np.empty(g, dtype=np.int64)
    cdef Member* mem = <Member*>cnp.PyArray_DATA(members)
    cdef offset_t* pk = index_ptr(needle_of)
    cdef offset_t* pcut = index_ptr(cut)
    cdef byte_t* pwant = byte_ptr(wanted)
    cdef offset_t* pagain = index_ptr(again)
    cdef offset_t k, r, i, m, rare, price, cap, shorts = 0, n_again = 0, g2 = 0, total_price = 0
    cdef offset_t starts = 0, lookups = 0, pass_cost
    cdef uint64_t key_lengths = 0
    cdef byte_t opens[256]
    cdef const byte_t* x
    cdef bint one_pass
    cdef _TableMemory memory, short_memory, again_memory
    cdef cnp.ndarray again_members
    cdef Member* sub
    with nogil:
        byte_counts(y, n, counts)
        memset(opens, 0, 256)
        for k in range(g):
            x = <const byte_t*>member_ptr[k]
            m = member_len[k]
            rare = 0
            if prefix_mode:
                i = 0
                while i < m and counts[x[i]]:
                    i += 1
                m = i  # no occurrence reaches the first byte y lacks
                pcut[k] = m
                if m == 0:
                    result[k] = 0
                    first[k] = -1
                    continue
            else:
                for i in range(1, m):
                    if counts[x[i]] < counts[x[rare]]:
                        rare = i
                if m > n or counts[x[rare]] == 0:
                    first[k] = -1
                    result[k] = 0
                    continue
            # a memchr restart and a verification per occurrence of the byte it skips to (exact:
            # its rarest; prefix_scan: its first)
            price = (n >> 8) + 4 * counts[x[rare]]
            cap = ((n + m) >> (3 if prefix_mode else 2)) + 64
            if (price >> 1) + 64 < cap:
                cap = (price >> 1) + 64
            total_price += price
            # what the pass looks up: a key length per offset that opens like a key
            key_lengths |= (<uint64_t>1) << (0 if m >= LONG_KEY else (m if m < KEY_BYTES else KEY_BYTES))
            opens[x[0]] = 1
            mem[g2].x = x
            mem[g2].m = m
            mem[g2].rare = rare
            mem[g2].cap = cap
            pk[g2] = k
            g2 += 1
        # the pass costs about a unit per two offsets, plus a unit per table look-up: one per
        # key length at each offset that opens with a key's first byte (red team 37, 04: keys
        # of eight lengths, all opening with a byte at every other offset, made the pass 7x
        # dearer than item by item). Prefix mode: up to three passes, the last with several
        # look-ups an offset, measured at about 4 units an offset. Worth it only when the
        # needles' own searches cost more.
        for i in range(256):
            if opens[i]:
                starts += counts[i]
        while key_lengths:
            lookups += key_lengths & 1
            key_lengths >>= 1
        pass_cost = (n >> 1) + starts * lookups
        if prefix_mode and pass_cost < 4 * n:
            pass_cost = 4 * n
        one_pass = worth_a_pass(g2, n) and total_price >= pass_cost
        if not one_pass:
            for r in range(g2):
                search_alone(&mem[r], y, n, prefix_mode, border, &first[pk[r]], &result[pk[r]])
    if not one_pass:
        return 0
    memory = _TableMemory(g2)
    with nogil:
        multi_scan(&memory.table, y, n, g2, mem, prefix_mode, True)
        for r in range(g2):
            if prefix_mode and not mem[r].gave_up and mem[r].result == 0 and mem[r].m >= LONG_KEY:
                pagain[n_again] = r
                n_again += 1
    if n_again:
        # the needles whose 16-byte key never occurs, again with 8-byte keys
        again_memory = _TableMemory(n_again)
        again_members = np.empty(n_again * sizeof(Member), dtype=np.uint8)
        sub = <Member*>cnp.PyArray_DATA(again_members)
        with nogil:
            for r in range(n_again):
                sub[r] = mem[pagain[r]]
            multi_scan(&again_memory.table, y, n, n_again, sub, True, False)
            for r in range(n_again):
                mem[pagain[r]] = sub[r]
    with nogil:
        for r in range(g2):
            k = pk[r]
            if mem[r].gave_up:
                search_alone(&mem[r], y, n, prefix_mode, border, &first[k], &result[k])
                continue
            first[k] = mem[r].first
            result[k] = mem[r].result
            if prefix_mode and result[k] == 0:
                pwant[k] = 1
                shorts += 1
    if shorts:
        short_memory = _TableMemory(shorts * (KEY_BYTES - 1))
        with nogil:
            short_prefixes(&short_memory.table, y, n, g, member_ptr, pcut, pwant, result, first)
    return 0


# ---- gathering (GIL held) ----------------------------------------------------------------------

cdef tuple check_batch(object needles, object haystacks):
    """``_search_py.check_batch``."""
    cdef tuple n = byte_items(needles, "needles", True)
    cdef tuple h = byte_items(haystacks, "haystacks", False)
    if len(n) != len(h):
        raise InvalidArgumentError(
            f"needles and haystacks must have the same length ({len(n)} != {len(h)})", argument="haystacks"
        )
    return n, h



cdef inline const byte_t* data_of(bytes b):
    return <const byte_t*>PyBytes_AS_STRING(b)


cdef inline offset_t* index_ptr(cnp.ndarray arr):
    return <offset_t*>cnp.PyArray_DATA(arr)


cdef inline byte_t* byte_ptr(cnp.ndarray arr):
    return <byte_t*>cnp.PyArray_DATA(arr)


# ---- Python API --------------------------------------------------------------------------------

def find_exact(needles, haystacks):
    cdef tuple keep_n, keep_h
    keep_n, keep_h = check_batch(needles, haystacks)  # tuples: the buffers outlive the loop
    cdef offset_t items = len(keep_n)
    cdef cnp.ndarray first = np.empty(items, dtype=np.int64)
    cdef cnp.ndarray count = np.empty(items, dtype=np.int64)
    cdef cnp.ndarray n_ptr = pointers_of(keep_n), h_ptr = pointers_of(keep_h)
    cdef cnp.ndarray n_len = lengths_of(keep_n), h_len = lengths_of(keep_h)
    cdef const size_t* np_ = <const size_t*>cnp.PyArray_DATA(n_ptr)
    cdef const size_t* hp = <const size_t*>cnp.PyArray_DATA(h_ptr)
    cdef const offset_t* nl = index_ptr(n_len)
    cdef const offset_t* hl = index_ptr(h_len)
    cdef offset_t* pf = index_ptr(first)
    cdef offset_t* pc = index_ptr(count)
    cdef offset_t i
    cdef list runs = large_groups(h_ptr, h_len, items)
    cdef cnp.ndarray mask = grouped_mask(runs, items)
    cdef const byte_t* grouped = byte_ptr(mask) if mask is not None else NULL
    with nogil:
        for i in range(items):
            if grouped == NULL or not grouped[i]:
                pf[i] = find_bytes(<const byte_t*>np_[i], nl[i], <const byte_t*>hp[i], hl[i], False, &pc[i])
    if runs:
        search_runs(runs, n_ptr, n_len, h_ptr, h_len, False, first, count, np.empty(1, dtype=np.int64))
    return first, count


def normalize_whitespace(data):
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    cdef bytes keep = data
    cdef offset_t n = PyBytes_GET_SIZE(keep), k
    cdef cnp.ndarray out = np.empty(n, dtype=np.uint8)
    cdef const byte_t* src = data_of(keep)
    cdef byte_t* dst = byte_ptr(out)
    with nogil:
        k = normalize_into(src, n, dst)
    return out[:k].tobytes()


# unit_leads (the reference's _UNIT_LEAD): the gap bytes, and the units' ASCII spellings
cdef bint UNIT_GAP[256]
for _b in range(256):
    UNIT_GAP[_b] = _b in UNIT_GAP_BYTES
cdef enum:
    MAX_UNIT_GAP = 24      # the most gap bytes read between a figure and its unit
    MAX_RATE_WORD = 16     # the longest word read before a rate's "/" or "per"
    MAX_SPELLINGS = 256
    MAX_SPELLING = 16
cdef byte_t SPELLING[MAX_SPELLINGS][MAX_SPELLING]
cdef offset_t SPELLING_LEN[MAX_SPELLINGS]
cdef bint SPELLING_LETTERS[MAX_SPELLINGS]
cdef bint SPELLING_LOWER_ONLY[MAX_SPELLINGS]
cdef offset_t N_SPELLINGS = len(UNIT_ASCII_SPELLINGS)
# the dashes, minus signs, arrows and ";" look-alikes that glued to a figure ask a closer look
cdef enum:
    MAX_DASHES = 64
cdef byte_t DASH[MAX_DASHES][4]
cdef offset_t DASH_LEN[MAX_DASHES]
cdef offset_t N_DASHES = len(UNIT_DASHES)
assert N_DASHES <= MAX_DASHES and all(2 <= len(x) <= 4 for x in UNIT_DASHES)
for _b, _dash in enumerate(UNIT_DASHES):
    DASH_LEN[_b] = len(_dash)
    for _i, _c in enumerate(_dash):
        DASH[_b][_i] = _c
cdef bint SPELLING_FIRST[256]  # (lower-case) a spelling's first byte: most words start with none
for _b in range(256):
    SPELLING_FIRST[_b] = any(x[0] == _b for x in UNIT_ASCII_SPELLINGS)
assert N_SPELLINGS <= MAX_SPELLINGS and all(len(x) <= MAX_SPELLING for x in UNIT_ASCII_SPELLINGS)
for _b, _spelling in enumerate(UNIT_ASCII_SPELLINGS):
    SPELLING_LEN[_b] = len(_spelling)
    SPELLING_LETTERS[_b] = _spelling.isalpha()
    SPELLING_LOWER_ONLY[_b] = _spelling in UNIT_LOWER_CASE_ONLY
    for _i, _c in enumerate(_spelling):
        SPELLING[_b][_i] = _c


cdef inline bint is_letter(byte_t c) noexcept nogil:
    return 0x61 <= (c | 0x20) <= 0x7A


cdef inline bint is_word_byte(byte_t c) noexcept nogil:
    return is_letter(c) or 0x30 <= c <= 0x39 or c == 0x5F


cdef inline bint is_blank(byte_t c) noexcept nogil:
    return c == 0x20 or c == 0x09


cdef bint spelled(const byte_t* w, offset_t length, bint letters_only) noexcept nogil:
    """Is ``w[:length]`` (any case) one of the units' ASCII spellings (of letters only)?"""
    cdef offset_t k, t
    cdef byte_t c = w[0]
    if not SPELLING_FIRST[(c | 0x20) if is_letter(c) else c]:
        return False
    for k in range(N_SPELLINGS):
        if SPELLING_LEN[k] != length or (letters_only and not SPELLING_LETTERS[k]):
            continue
        for t in range(length):
            c = w[t]
            if is_letter(c) and not SPELLING_LOWER_ONLY[k]:
                c = c | 0x20
            if c != SPELLING[k][t]:
                break
        else:
            return True
    return False


cdef offset_t letters_from(const byte_t* s, offset_t n, offset_t at, offset_t most) noexcept nogil:
    """The end of the run of at most ``most`` + 1 ASCII letters at ``at``."""
    while at < n and most >= 0 and is_letter(s[at]):
        at += 1
        most -= 1
    return at


cdef bint spelling_at(const byte_t* s, offset_t n, offset_t r, offset_t least) noexcept nogil:
    """Is a unit's spelling of letters (``least`` of them or more, a whole word) at ``r``?"""
    cdef offset_t w = letters_from(s, n, r, MAX_SPELLING)
    return (w - r >= least and w - r <= MAX_SPELLING and (w >= n or not is_word_byte(s[w]))
            and spelled(s + r, w - r, True))


cdef inline offset_t past_blanks(const byte_t* s, offset_t n, offset_t r) noexcept nogil:
    """The offset of the first byte at or after ``r`` that is no blank."""
    while r < n and is_blank(s[r]):
        r += 1
    return r


cdef bint dash_at(const byte_t* s, offset_t n, offset_t g) noexcept nogil:
    """Does one of the reference's UNIT_DASHES start at ``g``?"""
    cdef offset_t k
    for k in range(N_DASHES):
        if g + DASH_LEN[k] <= n and memcmp(s + g, DASH[k], DASH_LEN[k]) == 0:
            return True
    return False


cdef bint unit_after(const byte_t* s, offset_t n, offset_t i) noexcept nogil:
    """Does a unit follow the digit at ``i`` (the module doc of the reference)?"""
    cdef offset_t g = i + 1, lines = 0, w, r
    cdef byte_t c
    # a rate of nothing named: blanks as written, "/", blanks, a spelling of letters ("100/h",
    # "$5/month": red team 118, F27)
    r = g
    r = past_blanks(s, n, r)
    if r < n and s[r] == 0x2F:
        r += 1
        r = past_blanks(s, n, r)
        if spelling_at(s, n, r, 1):
            return True
    if g < n and s[g] >= 0xC0 and dash_at(s, n, g):
        return True  # (a dash, a minus or an arrow glued to the figure, "30\u2014hours": a closer look)
    if not UNIT_GAP[s[g]]:
        return False  # (a unit glued to the figure is part of the number's fact)
    while g < n and UNIT_GAP[s[g]] and g - i <= MAX_UNIT_GAP:
        lines += s[g] == 0x0A
        g += 1
    # (a run longer than the most stops on a gap byte)
    if g >= n or UNIT_GAP[s[g]] or lines > 1:
        return False
    c = s[g]
    if c == 0x1B or c >= 0x80:
        return True
    if c == 0x25:
        return g + 1 >= n or not is_word_byte(s[g + 1])
    w = letters_from(s, n, g, MAX_RATE_WORD)
    if w == g or w - g > MAX_RATE_WORD:
        return False
    if (w >= n or not is_word_byte(s[w])) and spelled(s + g, w - g, False):
        return True
    if w - g >= 2 and w < n and is_blank(s[w]):
        # one word before the unit ("30 idle minutes"): blanks, a spelling of two letters or more
        r = w
        r = past_blanks(s, n, r)
        if spelling_at(s, n, r, 2):
            return True
    # a rate: the word, "/" or "per" (blanks as written), a unit's spelling
    r = w
    r = past_blanks(s, n, r)
    if r < n and s[r] == 0x2F:
        r += 1
        r = past_blanks(s, n, r)
    elif (r > w and r + 3 < n and (s[r] | 0x20) == 0x70 and (s[r + 1] | 0x20) == 0x65
          and (s[r + 2] | 0x20) == 0x72 and is_blank(s[r + 3])):
        r += 3
        r = past_blanks(s, n, r)
    else:
        return False
    return spelling_at(s, n, r, 1)


cdef inline bint may_hold_a_digit(const byte_t* s) noexcept nogil:
    """Might the 8 bytes at ``s`` hold an ASCII digit? Each byte xor 0x30 is below 10 for a digit,
    which the subtraction flags in its top bit (a borrow only ever flags bytes above a digit, so
    a block with no digit is never flagged)."""
    cdef uint64_t x
    memcpy(&x, s, 8)
    x ^= 0x3030303030303030ULL
    return ((x - 0x0A0A0A0A0A0A0A0AULL) & ~x & 0x8080808080808080ULL) != 0


cdef offset_t unit_leads_into(const byte_t* s, offset_t n, offset_t* out, offset_t room) noexcept nogil:
    """Write the first ``room`` offsets of unit_leads into ``out``; return how many there are.
    Eight bytes at a time where no digit stands (most of a text), a byte at a time elsewhere."""
    cdef offset_t i = 0, j, k = 0
    while i < n - 1:
        if i + 8 <= n and not may_hold_a_digit(s + i):
            i += 8
            continue
        for j in range(i, min(i + 8, n - 1)):
            if 0x30 <= s[j] <= 0x39 and not 0x30 <= s[j + 1] <= 0x39 and unit_after(s, n, j):
                if k < room:
                    out[k] = j
                k += 1
        i += 8
    return k


cdef enum:
    FEW_UNIT_LEADS = 256  # held on the stack: a text with more is read twice


ctypedef offset_t (*leads_into_t)(const byte_t* s, offset_t n, offset_t* out, offset_t room) noexcept nogil


cdef object leads_of(object data, leads_into_t leads_into):
    """The offsets ``leads_into`` finds in ``data`` (bytes), as an int64 array."""
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    cdef bytes keep = data
    cdef offset_t n = PyBytes_GET_SIZE(keep), k
    cdef const byte_t* src = data_of(keep)
    # (most texts hold a few: a buffer sized for the most a text could hold is an mmap of a
    # long text's size, which cost more than the pass)
    cdef offset_t few[FEW_UNIT_LEADS]
    with nogil:
        k = leads_into(src, n, few, FEW_UNIT_LEADS)
    cdef cnp.ndarray out = np.empty(k, dtype=np.int64)
    cdef offset_t* dst = index_ptr(out)
    if k <= FEW_UNIT_LEADS:
        memcpy(dst, few, k * sizeof(offset_t))
    else:
        with nogil:
            leads_into(src, n, dst, k)
    return out


def unit_leads(data):
    return leads_of(data, unit_leads_into)


cdef bint ASIDE_OPENER[256]
memset(ASIDE_OPENER, 0, sizeof(ASIDE_OPENER))
for _b in ASIDE_OPENERS:
    ASIDE_OPENER[_b] = True


cdef offset_t aside_leads_into(const byte_t* s, offset_t n, offset_t* out, offset_t room) noexcept nogil:
    """Write the first ``room`` offsets of aside_leads into ``out``; return how many there are."""
    cdef offset_t i = 0, j, k = 0
    while i < n:
        if i + 8 <= n and not may_hold_a_digit(s + i):
            i += 8
            continue
        if 0x30 <= s[i] <= 0x39:
            j = i + 1
            while j < n and j - i - 1 < 9 and (s[j] == 0x20 or s[j] == 0x09):
                j += 1
            if j - i - 1 <= 8 and j < n and (ASIDE_OPENER[s[j]] or ((s[j] == 0x2D or s[j] == 0x2E)
                                                            and j + 1 < n and s[j + 1] == s[j])):
                if k < room:
                    out[k] = i + 1
                k += 1
        i += 1
    return k


def aside_leads(data):
    return leads_of(data, aside_leads_into)


cdef inline bint word_byte(byte_t c) noexcept nogil:
    return 0x30 <= c <= 0x39 or 0x41 <= c <= 0x5A or 0x61 <= c <= 0x7A or c == 0x5F


cdef inline bint name_byte(byte_t c) noexcept nogil:
    """A byte of a file name's run: an ASCII letter, digit, ``_``, ``.``, ``~`` or ``-``."""
    return word_byte(c) or c == 0x2E or c == 0x7E or c == 0x2D


cdef offset_t bare_name_line_leads_into(const byte_t* s, offset_t n, offset_t* out, offset_t room) noexcept nogil:
    """Write the first ``room`` offsets of bare_name_line_leads into ``out``; return how many
    there are. From each colon (``memchr``) that 1 to 7 digits follow: the run of name bytes
    before it, if no ``/`` or ``\\`` stands before the run and the run ends in a word byte, a
    ``.`` and an extension. A run ends at a colon, so each byte is read back at most once."""
    cdef offset_t e = 0, i, d, x, digits, k = 0
    cdef const byte_t* hit
    cdef bint extension
    while e < n:
        hit = <const byte_t*>memchr(s + e, 0x3A, <size_t>(n - e))
        if hit == NULL:
            break
        e = hit - s
        digits = 0
        while e + 1 + digits < n and ascii_digit(s[e + 1 + digits]):
            digits += 1
        if 1 <= digits <= 7 and not (e + 2 + digits < n and s[e + 1 + digits] == 0x2E
                                     and ascii_digit(s[e + 2 + digits])):
            i = e
            while i > 0 and name_byte(s[i - 1]):
                i -= 1
            if i < e and (i == 0 or (s[i - 1] != 0x2F and s[i - 1] != 0x5C)):
                d = e - 1
                while d > i and s[d] != 0x2E:
                    d -= 1
                x = e - d - 1
                extension = s[d] == 0x2E and 1 <= x <= 8 and d > i and word_byte(s[d - 1]) and is_letter(s[d + 1])
                if extension:
                    for d in range(d + 2, e):
                        if not (ascii_digit(s[d]) or is_letter(s[d])):
                            extension = False
                            break
                if extension:
                    if k < room:
                        out[k] = i
                    k += 1
        e += 1
    return k


def bare_name_line_leads(data):
    return leads_of(data, bare_name_line_leads_into)


cdef inline bint word_is(const byte_t* s, offset_t n, offset_t i, const char* w, offset_t m) noexcept nogil:
    """Do the ``m`` bytes at ``i`` spell the lower-case letters ``w`` in any case, a whole word
    (no ASCII letter, digit or ``_`` after them)? (A byte | 0x20 is a lower-case letter only
    when the byte is that letter in either case.)"""
    cdef offset_t k
    if i + m > n or (i + m < n and word_byte(s[i + m])):
        return False
    for k in range(m):
        if (s[i + k] | 0x20) != <byte_t>w[k]:
            return False
    return True


cdef offset_t version_word_leads_into(const byte_t* s, offset_t n, offset_t* out, offset_t room) noexcept nogil:
    """Write the first ``room`` offsets of version_word_leads into ``out``; return how many there
    are. Read back from each digit that no digit stands before (eight bytes at a time where no
    digit stands: most of a text): past blanks, one of ``:=#``, blanks and a ``.``, the version
    word that ends there, if any, is a lead (its digit is past it: the leads come in order)."""
    cdef offset_t i = 0, j, e, w, k = 0
    while i < n:
        if i + 8 <= n and not may_hold_a_digit(s + i):
            i += 8
            continue
        if 0x30 <= s[i] <= 0x39 and i > 0 and not 0x30 <= s[i - 1] <= 0x39:
            e = i
            while e > 0 and (s[e - 1] == 0x20 or s[e - 1] == 0x09):
                e -= 1
            if e > 0 and (s[e - 1] == 0x3A or s[e - 1] == 0x3D or s[e - 1] == 0x23):
                e -= 1
                while e > 0 and (s[e - 1] == 0x20 or s[e - 1] == 0x09):
                    e -= 1
            if e > 0 and s[e - 1] == 0x2E:
                e -= 1
            # (the word ends before what was read back, which is not empty: "ver1" is no word)
            if e < i:
                w = -1
                if e >= 7 and (word_is(s, n, e - 7, "version", 7) or word_is(s, n, e - 7, "release", 7)):
                    w = e - 7
                elif e >= 3 and (word_is(s, n, e - 3, "ver", 3) or word_is(s, n, e - 3, "rel", 3)
                                 or word_is(s, n, e - 3, "rev", 3) or word_is(s, n, e - 3, "tag", 3)):
                    w = e - 3
                if w >= 0 and (w == 0 or not word_byte(s[w - 1])):
                    if k < room:
                        out[k] = w
                    k += 1
        i += 1
    return k


# paired_leads' shapes (_search_py.PAIRED_SHAPES): 0 a digit, a a letter or _, a blank the bytes
# between a value and its word, a line break a clause's end, any other byte itself
cdef byte_t PAIRED_SHAPE[256]
for _c in range(256):
    PAIRED_SHAPE[_c] = (0x30 if 0x30 <= _c <= 0x39 else 0x61 if (0x41 <= _c <= 0x5A or 0x61 <= _c <= 0x7A or _c == 0x5F)
                        else 0x20 if _c in b" \t`*\"'()" else 0x0A if _c in b",;[]" else _c)


cdef offset_t paired_leads_into(const byte_t* s, offset_t n, offset_t* out, offset_t room) noexcept nogil:
    """Write the first ``room`` offsets of paired_leads into ``out``; return how many there are.
    One pass, each byte's shape read from a table; a digit or a letter with no blank after it
    (most of a text) is no lead."""
    cdef offset_t i, j, k = 0
    cdef byte_t a, b, c, d, e
    for i in range(n - 2):
        a = PAIRED_SHAPE[s[i]]
        if a != 0x30 and a != 0x61:
            continue
        b = PAIRED_SHAPE[s[i + 1]]
        if b != 0x20 and not (a == 0x30 and b == 0x3A):
            continue
        c = PAIRED_SHAPE[s[i + 2]]
        d = PAIRED_SHAPE[s[i + 3]] if i + 3 < n else 0
        e = PAIRED_SHAPE[s[i + 4]] if i + 4 < n else 0
        if a == 0x30:
            if not ((b == 0x20 and c == 0x61) or (b == 0x20 and c == 0x20 and d == 0x61)
                    or (b == 0x3A and c == 0x20 and d == 0x61) or (b == 0x3A and c == 0x20 and d == 0x20 and e == 0x61)):
                continue
            # (the digits must follow a letter, _ or one of -#:+/. : digits alone are a count)
            j = i
            while j >= 0 and 0x30 <= s[j] <= 0x39:
                j -= 1
            if j < 0 or not (PAIRED_SHAPE[s[j]] == 0x61 or s[j] == 0x2D or s[j] == 0x23 or s[j] == 0x3A
                             or s[j] == 0x2B or s[j] == 0x2F or s[j] == 0x2E):
                continue
        elif not ((c == 0x30) or (c == 0x20 and d == 0x30) or (c == 0x2F) or (c == 0x20 and d == 0x2F)
                  or (c == 0x61 and d == 0x30) or (c == 0x20 and d == 0x61 and e == 0x30)):
            continue
        if k < room:
            out[k] = i
        k += 1
    return k


def paired_leads(data):
    return leads_of(data, paired_leads_into)

def version_word_leads(data):
    return leads_of(data, version_word_leads_into)


# paired_tokens' bytes (_search_py.PAIRED_TOKEN): 1 a token's byte (a letter, a digit, _ or .), 2 a
# letter too, 4 a digit too
cdef byte_t PAIRED_TOKEN_BYTE[256]
for _c in range(256):
    PAIRED_TOKEN_BYTE[_c] = (5 if 0x30 <= _c <= 0x39 else 3 if (0x41 <= _c <= 0x5A or 0x61 <= _c <= 0x7A)
                             else 1 if _c == 0x5F or _c == 0x2E else 0)
cdef Py_ssize_t PAIRED_STOP_LONGEST = max(map(len, PAIRED_STOP))


def paired_tokens(data, Py_ssize_t start, Py_ssize_t end, list blank):
    """The reference's regex and paired_token, one pass: at each place a run of token bytes that
    holds a digit is one token (the regex's first branch, the run whole), else a letter starts a
    word of letters and apostrophes. A run found to hold no digit is remembered, so the places
    after a word inside it are not scanned again (linear)."""
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    cdef const byte_t* s = <const byte_t*> PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef Py_ssize_t p, r, a, b, k, length, nb = len(blank), bi = 0, no_digit_until = -1
    cdef bint digit
    cdef char word[8]
    cdef list found = []
    start = 0 if start < 0 else n if start > n else start
    end = 0 if end < 0 else n if end > n else end
    p = start
    while p < end:
        if not PAIRED_TOKEN_BYTE[s[p]]:
            p += 1
            continue
        digit = False
        if p >= no_digit_until:
            r = p
            while r < end and PAIRED_TOKEN_BYTE[s[r]]:
                digit = digit or PAIRED_TOKEN_BYTE[s[r]] == 5
                r += 1
            if not digit:
                no_digit_until = r
        if digit:
            a, b = p, r
        elif PAIRED_TOKEN_BYTE[s[p]] == 3:
            a, b = p, p + 1
            while b < end and (PAIRED_TOKEN_BYTE[s[b]] == 3 or s[b] == 0x27):
                b += 1
        else:
            p += 1
            continue
        p = b
        while bi < nb and blank[bi][1] <= a:
            bi += 1
        if bi < nb and blank[bi][0] < b:
            continue
        if digit:
            while s[b - 1] == 0x2E:  # (the run holds a digit: the dots stripped stop there)
                b -= 1
            if b - a >= 2:
                found.append((a, PyBytes_FromStringAndSize(<const char*> s + a, b - a)))
            continue
        length = b - a
        while length and s[a + length - 1] == 0x27:
            length -= 1
        if length < 3:
            continue
        if length <= PAIRED_STOP_LONGEST:
            if bytes(s[a:a + length]).lower() in PAIRED_STOP:
                continue
        # (the suffix read lower case: only its last three bytes and the first four are needed)
        if length >= 6 and lower_is(s + a + length - 3, b"ing", 3):
            length -= 3
        elif length >= 5 and (lower_is(s + a + length - 2, b"ed", 2) or lower_is(s + a + length - 2, b"es", 2)):
            length -= 2
        elif length >= 4 and lower_is(s + a + length - 1, b"s", 1):
            length -= 1
        if length > 4:
            length = 4
        for k in range(length):
            word[k] = s[a + k] | 0x20 if 0x41 <= s[a + k] <= 0x5A else s[a + k]
        found.append((a, PyBytes_FromStringAndSize(word, length)))
    return found


cdef inline bint lower_is(const byte_t* s, const char* lower, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(n):
        if (s[k] | 0x20 if 0x41 <= s[k] <= 0x5A else s[k]) != <byte_t> lower[k]:
            return False
    return True


cdef enum:
    FEW_MARKS = 32  # marks read a batch at a time from the stack (a caller asks a few)


def marks_held(data, marks):
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    if type(marks) is not tuple:
        raise TypeError(f"marks must be a tuple of bytes, not {type(marks).__name__}")
    cdef tuple keep = marks  # (a tuple: its marks stay alive while they are read without the GIL)
    cdef bytes text = data
    cdef Py_ssize_t k = len(keep), i, start = 0, batch
    for i in range(k):
        mark = keep[i]
        if type(mark) is not bytes:
            raise TypeError(f"marks[{i}] must be bytes, not {type(mark).__name__}")
        if PyBytes_GET_SIZE(mark) == 0:
            raise InvalidArgumentError(f"marks[{i}] is empty; an empty mark occurs everywhere", argument="marks")
    cdef offset_t n = PyBytes_GET_SIZE(text), count
    cdef const byte_t* y = data_of(text)
    cdef const byte_t* pointer[FEW_MARKS]
    cdef offset_t length[FEW_MARKS]
    cdef bint found[FEW_MARKS]
    cdef list out = []
    while start < k:
        batch = min(<Py_ssize_t>FEW_MARKS, k - start)
        for i in range(batch):
            pointer[i] = <const byte_t*>PyBytes_AS_STRING(keep[start + i])
            length[i] = PyBytes_GET_SIZE(keep[start + i])
        with nogil:
            for i in range(batch):
                found[i] = find_bytes(pointer[i], length[i], y, n, True, &count) >= 0
        for i in range(batch):
            out.append(True if found[i] else False)
        start += batch
    return out


def find_whitespace(needles, haystacks):
    cdef tuple keep_n, keep_h
    keep_n, keep_h = check_batch(needles, haystacks)
    cdef offset_t items = len(keep_n), i, total_n = 0
    for i in range(items):
        total_n += PyBytes_GET_SIZE(keep_n[i])
    cdef cnp.ndarray start = np.full(items, -1, dtype=np.int64)
    cdef cnp.ndarray end = np.full(items, -1, dtype=np.int64)
    cdef cnp.ndarray count = np.zeros(items, dtype=np.int64)
    cdef cnp.ndarray fallback = np.zeros(items, dtype=np.uint8)
    cdef cnp.ndarray n_norm = np.empty(max(total_n, 1), dtype=np.uint8)
    cdef cnp.ndarray n_at = np.empty(items, dtype=np.int64)
    cdef cnp.ndarray n_mm = np.empty(items, dtype=np.int64)
    cdef cnp.ndarray n_ptr = pointers_of(keep_n), h_ptr = pointers_of(keep_h)
    cdef cnp.ndarray n_len = lengths_of(keep_n), h_len = lengths_of(keep_h)
    cdef const size_t* np_ = <const size_t*>cnp.PyArray_DATA(n_ptr)
    cdef const size_t* hp = <const size_t*>cnp.PyArray_DATA(h_ptr)
    cdef const offset_t* nl = index_ptr(n_len)
    cdef const offset_t* hl = index_ptr(h_len)
    cdef byte_t* pf = byte_ptr(fallback)
    cdef byte_t* nb = byte_ptr(n_norm)
    cdef offset_t* pat = index_ptr(n_at)
    cdef offset_t* pmm = index_ptr(n_mm)
    cdef offset_t* p_start = index_ptr(start)
    cdef offset_t* p_end = index_ptr(end)
    cdef offset_t* p_count = index_ptr(count)
    cdef offset_t at = 0
    cdef bint any_fallback = False
    cdef cnp.ndarray mask = grouped_mask(large_groups(h_ptr, h_len, items), items)
    cdef const byte_t* grouped = byte_ptr(mask) if mask is not None else NULL
    with nogil:
        for i in range(items):
            pat[i] = at
            pmm[i] = normalize_into(<const byte_t*>np_[i], nl[i], nb + at)
            at += nl[i]
            if grouped != NULL and grouped[i]:
                pf[i] = 1  # searched with the other items of its haystack, in one pass
                any_fallback = True
                continue
            # most misses end at the chunk test; the rest are searched around their longest chunk
            if not chunks_present(<const byte_t*>np_[i], nl[i], <const byte_t*>hp[i], hl[i]):
                continue
            if not anchored_search(nb + pat[i], pmm[i], <const byte_t*>hp[i], hl[i],
                                   &p_start[i], &p_end[i], &p_count[i]):
                pf[i] = 1
                any_fallback = True
    if any_fallback:
        _normalised_fallback(keep_h, fallback, n_norm, n_at, n_mm, start, end, count)
    return start, end, count


cdef int _normalised_fallback(tuple keep_h, cnp.ndarray fallback, cnp.ndarray n_norm, cnp.ndarray n_at,
                              cnp.ndarray n_mm, cnp.ndarray start, cnp.ndarray end, cnp.ndarray count) except -1:
    """The items the anchored search gave up on: normalise each distinct haystack they need
    once, search the normalised needle in it and map the first match back."""
    cdef offset_t items = len(keep_h), i, total_h = 0
    cdef byte_t* pf = byte_ptr(fallback)
    cdef dict slot_of = {}
    cdef list distinct = []
    cdef cnp.ndarray slot = np.full(items, -1, dtype=np.int64)
    cdef offset_t* ps = index_ptr(slot)
    for i in range(items):
        if not pf[i]:
            continue
        h = keep_h[i]
        d = slot_of.get(id(h))
        if d is None:
            d = slot_of[id(h)] = len(distinct)
            distinct.append(h)
            total_h += PyBytes_GET_SIZE(h)
        ps[i] = d
    cdef tuple keep_d = tuple(distinct)
    cdef offset_t nd = len(keep_d), d_i, s_i, k, at
    cdef cnp.ndarray h_norm = np.empty(max(total_h, 1), dtype=np.uint8)
    cdef cnp.ndarray h_off = np.empty(nd, dtype=np.int64)
    cdef cnp.ndarray h_nlen = np.empty(nd, dtype=np.int64)
    cdef cnp.ndarray d_ptr = pointers_of(keep_d), d_len = lengths_of(keep_d)
    cdef cnp.ndarray h_ptr = pointers_of(keep_h), h_len = lengths_of(keep_h)
    cdef const size_t* dp = <const size_t*>cnp.PyArray_DATA(d_ptr)
    cdef const offset_t* dl = index_ptr(d_len)
    cdef const size_t* hp = <const size_t*>cnp.PyArray_DATA(h_ptr)
    cdef const offset_t* hl = index_ptr(h_len)
    cdef offset_t* ho = index_ptr(h_off)
    cdef offset_t* hn = index_ptr(h_nlen)
    cdef byte_t* hb = byte_ptr(h_norm)
    cdef const byte_t* nb = byte_ptr(n_norm)
    cdef const offset_t* pat = index_ptr(n_at)
    cdef const offset_t* pmm = index_ptr(n_mm)
    cdef offset_t* p_start = index_ptr(start)
    cdef offset_t* p_end = index_ptr(end)
    cdef offset_t* p_count = index_ptr(count)
    cdef offset_t targets[2]
    cdef offset_t mapped[2]
    cdef cnp.ndarray run, r_first, r_count, found, wanted, order, mapped_all, x_ptr, x_len
    cdef offset_t head, nf
    # the haystacks many items need: their items are searched together (search_group)
    cdef cnp.ndarray per_slot = np.bincount(slot[slot >= 0], minlength=nd)
    cdef cnp.ndarray large = (per_slot >= MANY_NEEDLES) & (per_slot * d_len >= PASS_MIN_BYTES)
    cdef list runs = []
    if large.any():
        runs = [np.flatnonzero(slot == d_i) for d_i in np.flatnonzero(large).tolist()]
        for run in runs:
            slot[run] = -1  # (the per-item loop below skips them)
    with nogil:
        at = 0
        for d_i in range(nd):
            ho[d_i] = at
            hn[d_i] = normalize_into(<const byte_t*>dp[d_i], dl[d_i], hb + at)
            at += dl[d_i]
        for i in range(items):
            s_i = ps[i]
            if s_i < 0:
                continue
            k = find_bytes(nb + pat[i], pmm[i], hb + ho[s_i], hn[s_i], False, &p_count[i])
            if k >= 0:
                targets[0] = k
                targets[1] = k + pmm[i]
                map_to_original(<const byte_t*>hp[i], hl[i], targets, 2, mapped)
                p_start[i] = mapped[0]
                p_end[i] = mapped[1]
            else:
                p_start[i] = -1
                p_end[i] = -1
    for run in runs:
        head = index_ptr(run)[0]
        d_i = slot_of[id(keep_h[head])]
        x_ptr = (n_at[run] + <size_t>nb).astype(np.uintp)
        x_len = n_mm[run]
        r_first = np.empty(len(run), dtype=np.int64)
        r_count = np.empty(len(run), dtype=np.int64)
        search_group(<const size_t*>cnp.PyArray_DATA(x_ptr), index_ptr(x_len), len(run), hb + ho[d_i],
                     hn[d_i], False, index_ptr(r_first), index_ptr(r_count), NULL)
        count[run] = r_count
        found = np.flatnonzero(r_first >= 0)
        nf = len(found)
        if nf == 0:
            continue
        # every first match and its end, mapped back in one walk over the original (ascending)
        wanted = np.concatenate((r_first[found], r_first[found] + n_mm[run][found]))
        order = np.argsort(wanted, kind="stable")
        mapped_all = np.ascontiguousarray(wanted[order])
        map_to_original(<const byte_t*>hp[head], hl[head], index_ptr(mapped_all), 2 * nf, index_ptr(mapped_all))
        wanted[order] = mapped_all
        start[run[found]] = wanted[:nf]
        end[run[found]] = wanted[nf:]
    return 0


def whitespace_spans(needle, haystack, max_spans):
    check_pair(needle, haystack)
    cdef offset_t limit = check_max_spans(max_spans)
    cdef bytes keep_n = needle, keep_h = haystack
    cdef offset_t m = PyBytes_GET_SIZE(keep_n), n = PyBytes_GET_SIZE(keep_h)
    cdef cnp.ndarray n_norm = np.empty(m, dtype=np.uint8)
    cdef cnp.ndarray h_norm = np.empty(max(n, 1), dtype=np.uint8)
    cdef const byte_t* src_n = data_of(keep_n)
    cdef const byte_t* src_h = data_of(keep_h)
    cdef byte_t* pn = byte_ptr(n_norm)
    cdef byte_t* ph = byte_ptr(h_norm)
    cdef offset_t mm, nn, found = 0, k
    cdef Factorization f
    with nogil:
        mm = normalize_into(src_n, m, pn)
        nn = normalize_into(src_h, n, ph)
    # at most one occurrence per normalised offset
    limit = min(limit, max(nn - mm + 1, 0))
    cdef cnp.ndarray starts = np.empty(limit, dtype=np.int64)
    cdef cnp.ndarray ends = np.empty(limit, dtype=np.int64)
    cdef offset_t* ps = index_ptr(starts)
    cdef offset_t* pe = index_ptr(ends)
    with nogil:
        if mm <= nn and limit > 0:
            factorize(pn, mm, &f)
            two_way(pn, mm, &f, rarest_index(pn, mm), ph, nn, limit, ps, &found)
            for k in range(found):
                pe[k] = ps[k] + mm
        # both lists ascend, so each maps back in one walk over the original
        map_to_original(src_h, n, ps, found, ps)
        map_to_original(src_h, n, pe, found, pe)
    spans = np.empty((found, 2), dtype=np.int64)
    spans[:, 0] = starts[:found]
    spans[:, 1] = ends[:found]
    return spans


cdef offset_t prefix_scan(const byte_t* x, offset_t m, const byte_t* y, offset_t n,
                          offset_t* border, offset_t* at) noexcept nogil:
    """Length of the longest prefix of x that occurs in y, and (in ``at``) its first offset.

    Knuth-Morris-Pratt: after reading y[i], q is the longest prefix of x ending at y[i], so
    the largest q ever reached is the answer, and the first i reaching it ends its first
    occurrence. One pass, O(n + m). ``border`` has room for m entries."""
    cdef offset_t i, k = 0, q = 0, best = 0, best_end = -1
    cdef byte_t head = x[0]
    cdef const byte_t* hit
    border[0] = 0
    for i in range(1, m):
        while k > 0 and x[i] != x[k]:
            k = border[k - 1]
        if x[i] == x[k]:
            k += 1
        border[i] = k
    i = 0
    while i < n:
        if q == 0 and y[i] != head:
            # in state 0 only the needle's first byte moves the automaton
            hit = <const byte_t*>memchr(y + i, head, <size_t>(n - i))
            if hit == NULL:
                break
            i = hit - y
        while q > 0 and y[i] != x[q]:
            q = border[q - 1]
        if y[i] == x[q]:
            q += 1
        if q > best:
            best = q
            best_end = i
            if best == m:
                break
        i += 1
    at[0] = best_end - best + 1 if best > 0 else -1
    return best


def exact_spans(needle, haystack, start, max_spans):
    check_pair(needle, haystack)
    cdef offset_t begin = check_start(start)
    cdef offset_t limit = check_max_spans(max_spans)
    cdef bytes keep_n = needle, keep_h = haystack
    cdef offset_t m = PyBytes_GET_SIZE(keep_n), n = PyBytes_GET_SIZE(keep_h), found = 0, k
    cdef const byte_t* pn = data_of(keep_n)
    cdef const byte_t* ph = data_of(keep_h)
    cdef Factorization f
    begin = min(begin, n)
    # at most one occurrence per offset from begin
    limit = min(limit, max(n - begin - m + 1, 0))
    cdef cnp.ndarray starts = np.empty(limit, dtype=np.int64)
    cdef offset_t* ps = index_ptr(starts)
    if limit > 0:
        with nogil:
            factorize(pn, m, &f)
            two_way(pn, m, &f, rarest_index(pn, m), ph + begin, n - begin, limit, ps, &found)
            for k in range(found):
                ps[k] += begin
    return starts[:found]


def longest_prefix(needles, haystacks):
    cdef tuple keep_n, keep_h
    keep_n, keep_h = check_batch(needles, haystacks)
    cdef offset_t items = len(keep_n), i, longest = 1
    for i in range(items):
        longest = max(longest, PyBytes_GET_SIZE(keep_n[i]))
    cdef cnp.ndarray length = np.empty(items, dtype=np.int64)
    cdef cnp.ndarray at = np.empty(items, dtype=np.int64)
    cdef cnp.ndarray border = np.empty(longest, dtype=np.int64)
    cdef cnp.ndarray n_ptr = pointers_of(keep_n), h_ptr = pointers_of(keep_h)
    cdef cnp.ndarray n_len = lengths_of(keep_n), h_len = lengths_of(keep_h)
    cdef const size_t* np_ = <const size_t*>cnp.PyArray_DATA(n_ptr)
    cdef const size_t* hp = <const size_t*>cnp.PyArray_DATA(h_ptr)
    cdef const offset_t* nl = index_ptr(n_len)
    cdef const offset_t* hl = index_ptr(h_len)
    cdef offset_t* pl = index_ptr(length)
    cdef offset_t* pa = index_ptr(at)
    cdef offset_t* pb = index_ptr(border)
    cdef list runs = large_groups(h_ptr, h_len, items)
    cdef cnp.ndarray mask = grouped_mask(runs, items)
    cdef const byte_t* grouped = byte_ptr(mask) if mask is not None else NULL
    with nogil:
        for i in range(items):
            if grouped == NULL or not grouped[i]:
                pl[i] = prefix_scan(<const byte_t*>np_[i], nl[i], <const byte_t*>hp[i], hl[i], pb, &pa[i])
    if runs:
        search_runs(runs, n_ptr, n_len, h_ptr, h_len, True, at, length, border)
    return length, at


# ---- summary_leads: what a summary may state that the summary rules read -----------------------

cdef enum:
    SUMMARY_LEAD_DATE_TIME = 1
    SUMMARY_LEAD_RUN_OUTCOME = 2

# (the bytes a lead is looked for at, by kind: a digit, "-" or "/" for a date or time; a run
# outcome's word at its rarest letter, in either case: the p of pass, the f of fail, the k of
# skip, the x of xit, the r of arn and the first r of rror; any byte from 0x80. Most of a
# summary's bytes are none of these: a look at every first letter, a, r and s among them, cost
# twice as much)
cdef enum:
    AT_NONE = 0
    AT_DIGIT = 1
    AT_DATE_SEPARATOR = 2
    AT_HIGH = 3
    AT_P = 4
    AT_F = 5
    AT_R = 6
    AT_K = 7
    AT_X = 8

cdef byte_t SUMMARY_LEAD_AT[256]
for _b in range(256):
    SUMMARY_LEAD_AT[_b] = (AT_DIGIT if 0x30 <= _b <= 0x39 else AT_DATE_SEPARATOR if _b in (0x2D, 0x2F)
                           else AT_HIGH if _b >= 0x80 else AT_P if _b in (0x50, 0x70) else AT_F if _b in (0x46, 0x66)
                           else AT_R if _b in (0x52, 0x72) else AT_K if _b in (0x4B, 0x6B)
                           else AT_X if _b in (0x58, 0x78) else AT_NONE)


cdef inline bint ascii_digit(byte_t c) noexcept nogil:
    return 0x30 <= c <= 0x39


cdef inline bint spelled_at(const byte_t* s, offset_t n, offset_t i, const char* w, offset_t m) noexcept nogil:
    """Do the ``m`` bytes at ``i`` spell the lower-case letters ``w``, in any case?"""
    cdef offset_t k
    if i < 0 or i + m > n:
        return False
    for k in range(m):
        if (s[i + k] | 0x20) != <byte_t>w[k]:
            return False
    return True


cdef inline bint four_digits(const byte_t* s, offset_t n, offset_t i) noexcept nogil:
    return (i + 4 <= n and ascii_digit(s[i]) and ascii_digit(s[i + 1]) and ascii_digit(s[i + 2])
            and ascii_digit(s[i + 3]))


cdef inline bint date_time_at(const byte_t* s, offset_t n, offset_t i) noexcept nogil:
    """Does a date or time shape start at the digit at ``i``: 0:0, 0 A, 0 0000, 0, 0000?"""
    if i + 2 >= n:
        return False
    cdef byte_t after = s[i + 1]
    if after == 0x3A:
        return ascii_digit(s[i + 2])
    if after == 0x20:
        return 0x41 <= s[i + 2] <= 0x5A or four_digits(s, n, i + 2)
    if after == 0x2C:
        return s[i + 2] == 0x20 and four_digits(s, n, i + 3)
    return False


cdef inline bint date_at(const byte_t* s, offset_t n, offset_t i) noexcept nogil:
    """Does -0-, -00-, /0/ or /00/ start at the separator at ``i``?"""
    cdef byte_t c = s[i]
    if i + 2 >= n or not ascii_digit(s[i + 1]):
        return False
    return s[i + 2] == c or (i + 3 < n and ascii_digit(s[i + 2]) and s[i + 3] == c)


cdef int summary_leads_of(const byte_t* s, offset_t n) noexcept nogil:
    cdef int found = 0
    cdef offset_t i = 0
    cdef byte_t at
    while i < n:
        at = SUMMARY_LEAD_AT[s[i]]
        if at == AT_NONE:
            i += 1
            continue
        if at == AT_DIGIT:
            if not found & SUMMARY_LEAD_DATE_TIME and date_time_at(s, n, i):
                found |= SUMMARY_LEAD_DATE_TIME
        elif at == AT_DATE_SEPARATOR:
            if not found & SUMMARY_LEAD_DATE_TIME and date_at(s, n, i):
                found |= SUMMARY_LEAD_DATE_TIME
        elif not found & SUMMARY_LEAD_RUN_OUTCOME:
            if (at == AT_HIGH
                    or at == AT_P and spelled_at(s, n, i, b"pass", 4)
                    or at == AT_F and spelled_at(s, n, i, b"fail", 4)
                    or at == AT_R and (spelled_at(s, n, i, b"rror", 4) or spelled_at(s, n, i - 1, b"arn", 3))
                    or at == AT_K and spelled_at(s, n, i - 1, b"skip", 4)
                    or at == AT_X and spelled_at(s, n, i, b"xit", 3)):
                found |= SUMMARY_LEAD_RUN_OUTCOME
        if found == SUMMARY_LEAD_DATE_TIME | SUMMARY_LEAD_RUN_OUTCOME:
            break
        i += 1
    return found


def summary_leads(data):
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    cdef bytes text = data
    cdef const byte_t* s = data_of(text)
    cdef offset_t n = PyBytes_GET_SIZE(text)
    cdef int found
    with nogil:
        found = summary_leads_of(s, n)
    return found



# ---- diff runs (the gate's diff-direction rule; the spec is ``_search_py.diff_runs``) ---------


cdef extern from "Python.h":
    bint PyUnicode_CheckExact(PyObject* o)
    bint PyLong_CheckExact(PyObject* o)


cdef inline bint small_int(object value, Py_ssize_t below):
    """Is ``value`` an int from 0 to ``below`` - 1 (without raising on a huge one)?"""
    return type(value) is int and 0 <= value < below


cdef inline int same_token(list line, Py_ssize_t i, list tokens, Py_ssize_t j) except -1:
    """``line[i] == tokens[j]``, as the reference reads it."""
    if i >= PyList_GET_SIZE(line) or j >= PyList_GET_SIZE(tokens):
        raise IndexError("list index out of range")  # (a token's __eq__ shortened a list)
    cdef PyObject* x = PyList_GET_ITEM(line, i)
    cdef PyObject* y = PyList_GET_ITEM(tokens, j)
    cdef Py_ssize_t length
    cdef int kind
    if PyUnicode_CheckExact(x) and PyUnicode_CheckExact(y):
        # (two str, the gate's tokens: equal ones have one kind and length, PEP 393)
        if x == y:
            return 1
        length = PyUnicode_GET_LENGTH(<object>x)
        kind = PyUnicode_KIND(<object>x)
        if length != PyUnicode_GET_LENGTH(<object>y) or kind != PyUnicode_KIND(<object>y):
            return 0
        return memcmp(PyUnicode_DATA(<object>x), PyUnicode_DATA(<object>y), <size_t>length * kind) == 0
    held_x = <object>x  # (held: another object's __eq__ runs Python code)
    held_y = <object>y
    return 1 if held_x == held_y else 0


def diff_runs(lines, line_sides, places, tokens, p, reach, limit, best):
    cdef Py_ssize_t side
    if not (type(lines) is list and type(line_sides) is list and type(tokens) is list and type(best) is list
            and (type(places) is list or type(places) is tuple) and len(best) == 3
            and type(reach) is int and reach >= 0 and type(limit) is int and limit >= 0
            and type(p) is int and 0 <= p < len(tokens)):
        check_diff_runs(lines, line_sides, places, tokens, p, reach, limit, best)
        raise AssertionError("check_diff_runs passed what diff_runs refuses")
    cdef Py_ssize_t best_length[3]
    cdef Py_ssize_t best_start[3]
    cdef Py_ssize_t best_end[3]
    cdef bint changed[3]
    for side in range(3):
        held = best[side]
        if not (type(held) is tuple and len(held) == 3 and small_int(held[0], 1 << 62)
                and small_int(held[1], 1 << 62) and small_int(held[2], 1 << 62)):
            check_diff_runs(lines, line_sides, places, tokens, p, reach, limit, best)
            raise AssertionError("check_diff_runs passed a best diff_runs refuses")
        best_length[side] = held[0]
        changed[side] = False
    cdef list line_list = lines, side_list = line_sides, token_list = tokens
    cdef Py_ssize_t n = PyList_GET_SIZE(token_list)
    cdef Py_ssize_t at_p = p
    cdef Py_ssize_t span = min(reach, n)
    cdef Py_ssize_t count = min(limit, len(places))
    cdef Py_ssize_t j, k, at, size, left, right, length
    cdef list line
    for j in range(count):
        place = places[j]
        if not (type(place) is tuple and PyTuple_GET_SIZE(place) == 2 and small_int(<object>PyTuple_GET_ITEM(place, 0), len(lines))
                and small_int(<object>PyTuple_GET_ITEM(place, 1), 1 << 62)):
            check_diff_place(j, place, lines, line_sides)
            raise AssertionError("check_diff_place passed a place diff_runs refuses")
        k = <object>PyTuple_GET_ITEM(place, 0)
        at = <object>PyTuple_GET_ITEM(place, 1)
        if k >= PyList_GET_SIZE(side_list) or type(<object>PyList_GET_ITEM(line_list, k)) is not list \
                or at >= PyList_GET_SIZE(<object>PyList_GET_ITEM(line_list, k)) \
                or not small_int(<object>PyList_GET_ITEM(side_list, k), 3):
            check_diff_place(j, place, lines, line_sides)
            raise AssertionError("check_diff_place passed a place diff_runs refuses")
        line = <list>PyList_GET_ITEM(line_list, k)  # (held: the loop may run a token's __eq__)
        size = PyList_GET_SIZE(line)
        side = <object>PyList_GET_ITEM(side_list, k)
        left = 0
        while left < span and at - left > 0 and at_p - left > 0 and same_token(
                line, at - left - 1, token_list, at_p - left - 1):
            left += 1
        right = 0
        while right < span and at + right + 1 < size and at_p + right + 1 < n and same_token(
                line, at + right + 1, token_list, at_p + right + 1):
            right += 1
        length = left + right + 1
        if length > best_length[side]:
            best_length[side] = length
            best_start[side] = at_p - left
            best_end[side] = at_p + right + 1
            changed[side] = True
    for side in range(3):
        if changed[side]:
            best[side] = (best_length[side], best_start[side], best_end[side])
