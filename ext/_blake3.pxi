# BLAKE3 (hash and keyed_hash modes, 32-byte output) for many inputs at once.
#
# Written from the public BLAKE3 specification (O'Connor, Aumasson, Neves, Wilcox-O'Hearn,
# 2020): the compression function of section 2.2, chunk chaining and the binary tree of
# parent nodes of section 2.3, the flags of table 3. No BLAKE3 source code was copied.
#
# Speed comes from compressing eight independent blocks at once ("lanes"): a chunk from one
# input, a chunk from another, a parent node from a third. The state is sixteen rows of
# eight words; each row is one GCC/Clang vector, so a -mavx2 build holds a row in one ymm
# register and a baseline x86-64 build in two SSE2 registers. (Plain loops over lanes were
# measured first: gcc scalarized the state array and did not vectorize them, 6x slower.)
#
# Everything here is C data and nogil code; the Python boundary is in _blake3_api.pxi.
# Included (not cimported) by hashing.pyx and hashing_avx2.pyx: one source, two builds.

from libc.stdint cimport int32_t, uint8_t, uint64_t
from libc.string cimport memcpy, memmove, memset

from _types cimport byte_t, offset_t, word_t

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    #if defined(__GNUC__) && !defined(__clang__)
    /* baseline builds warn that returning a 32-byte vector has no fixed ABI without AVX;
       these helpers are static inline, so no such value ever crosses a call boundary */
    #pragma GCC diagnostic ignored "-Wpsabi"
    #endif
    /* One row of the lane-parallel state: the same word of eight independent compressions. */
    typedef uint32_t pg_lanes_t __attribute__((vector_size(32)));
    /* The same at any address and aliasing anything. Loads and stores go through this type,
       not memcpy: gcc split a memcpy into two 16-byte stores followed by one 32-byte load of
       the same bytes, which stalls on store forwarding (it cost a third of the time). */
    typedef uint32_t pg_lanes_any_t __attribute__((vector_size(32), aligned(1), may_alias));
    static inline pg_lanes_t pg_lanes_load(const void *p) { return *(const pg_lanes_any_t *)p; }
    static inline void pg_lanes_store(void *p, const pg_lanes_t *v) { *(pg_lanes_any_t *)p = *v; }
    static inline pg_lanes_t pg_lanes_splat(uint32_t x) {
        pg_lanes_t v = {x, x, x, x, x, x, x, x}; return v;
    }
    #if defined(__clang__)
    #define PG_SHUFFLE(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
    #else
    #define PG_SHUFFLE(a, b, ...) __builtin_shuffle(a, b, (pg_lanes_t){__VA_ARGS__})
    #endif
    /* Rotations of every word right by 16 and by 8 bits. Both move whole bytes, so with
       SSSE3/AVX2 one byte shuffle (pshufb) does what otherwise takes two shifts and an or. */
    #if defined(__SSSE3__)
    typedef uint8_t pg_bytes_t __attribute__((vector_size(32)));
    #if defined(__clang__)
    #define PG_BYTE_SHUFFLE(x, ...) ((pg_lanes_t)__builtin_shufflevector((pg_bytes_t)(x), (pg_bytes_t)(x), __VA_ARGS__))
    #else
    #define PG_BYTE_SHUFFLE(x, ...) ((pg_lanes_t)__builtin_shuffle((pg_bytes_t)(x), (pg_bytes_t){__VA_ARGS__}))
    #endif
    #define PG_ROTR16(x) PG_BYTE_SHUFFLE(x, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, \
        18, 19, 16, 17, 22, 23, 20, 21, 26, 27, 24, 25, 30, 31, 28, 29)
    #define PG_ROTR8(x) PG_BYTE_SHUFFLE(x, 1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12, \
        17, 18, 19, 16, 21, 22, 23, 20, 25, 26, 27, 24, 29, 30, 31, 28)
    #else
    #define PG_ROTR16(x) (((x) >> 16) | ((x) << 16))
    #define PG_ROTR8(x) (((x) >> 8) | ((x) << 24))
    #endif
    /* In-place 8x8 transpose of 32-bit words: interleave pairs of words, then pairs of pairs,
       then 128-bit halves. 24 shuffles instead of 64 word-sized loads and stores. */
    static inline void pg_transpose8(pg_lanes_t *r) {
        pg_lanes_t a[8], b[8];
        int i;
        for (i = 0; i < 8; i += 2) {
            a[i] = PG_SHUFFLE(r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
            a[i + 1] = PG_SHUFFLE(r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
        }
        for (i = 0; i < 8; i += 4) {
            b[i] = PG_SHUFFLE(a[i], a[i + 2], 0, 1, 8, 9, 4, 5, 12, 13);
            b[i + 1] = PG_SHUFFLE(a[i], a[i + 2], 2, 3, 10, 11, 6, 7, 14, 15);
            b[i + 2] = PG_SHUFFLE(a[i + 1], a[i + 3], 0, 1, 8, 9, 4, 5, 12, 13);
            b[i + 3] = PG_SHUFFLE(a[i + 1], a[i + 3], 2, 3, 10, 11, 6, 7, 14, 15);
        }
        for (i = 0; i < 4; i++) {
            r[i] = PG_SHUFFLE(b[i], b[i + 4], 0, 1, 2, 3, 8, 9, 10, 11);
            r[i + 4] = PG_SHUFFLE(b[i], b[i + 4], 4, 5, 6, 7, 12, 13, 14, 15);
        }
    }
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    #define PG_LITTLE_ENDIAN 1
    #else
    #define PG_LITTLE_ENDIAN 0
    #endif
    static inline uint32_t pg_load_le32(const uint8_t *p) {
        return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
    }
    /* 64 bytes from pg_keep_mask + 64 - n keep the first n bytes of a block and zero the rest */
    static const uint8_t pg_keep_mask[128] = { [0 ... 63] = 0xFF };
    /* rows[w] = word w of the 64-byte block of every lane, bytes masked by masks[lane] */
    static inline void pg_load_message_rows(const uint8_t *const *blocks, const uint8_t *const *masks,
                                            uint32_t (*rows)[8]) {
        int half, l, w;
        if (PG_LITTLE_ENDIAN) {
            pg_lanes_t r[8];
            for (half = 0; half < 2; half++) {
                for (l = 0; l < 8; l++)
                    r[l] = pg_lanes_load(blocks[l] + 32 * half) & pg_lanes_load(masks[l] + 32 * half);
                pg_transpose8(r);
                for (w = 0; w < 8; w++) pg_lanes_store(rows[8 * half + w], &r[w]);
            }
        } else {
            uint8_t bytes[64];
            for (l = 0; l < 8; l++) {
                for (w = 0; w < 64; w++) bytes[w] = blocks[l][w] & masks[l][w];
                for (w = 0; w < 16; w++) rows[w][l] = pg_load_le32(bytes + 4 * w);
            }
        }
    }
    /* the 32 little-endian bytes of lane l (rows[w][l] for w < 8) to outs[l], for l < count */
    static inline void pg_store_lane_outputs(uint32_t (*rows)[8], uint8_t *const *outs, int count) {
        int l, w;
        if (PG_LITTLE_ENDIAN) {
            pg_lanes_t r[8];
            for (w = 0; w < 8; w++) r[w] = pg_lanes_load(rows[w]);
            pg_transpose8(r);
            for (l = 0; l < count; l++) pg_lanes_store(outs[l], &r[l]);
        } else {
            for (l = 0; l < count; l++)
                for (w = 0; w < 8; w++)
                    for (int k = 0; k < 4; k++) outs[l][4 * w + k] = (uint8_t)(rows[w][l] >> (8 * k));
        }
    }
    """
    # Cython sees an unsigned int; C sees a vector, and + ^ >> << | act lane by lane.
    ctypedef unsigned int lanes_t "pg_lanes_t"
    lanes_t lanes_load "pg_lanes_load"(const word_t* p) noexcept nogil
    void lanes_store "pg_lanes_store"(word_t* p, const lanes_t* v) noexcept nogil
    lanes_t lanes_splat "pg_lanes_splat"(word_t x) noexcept nogil
    lanes_t rotr16 "PG_ROTR16"(lanes_t x) noexcept nogil
    lanes_t rotr8 "PG_ROTR8"(lanes_t x) noexcept nogil
    const byte_t* keep_mask "pg_keep_mask"
    void load_message_rows "pg_load_message_rows"(const byte_t** blocks, const byte_t** masks,
                                                 word_t (*rows)[8]) noexcept nogil
    word_t load_le32 "pg_load_le32"(const byte_t* p) noexcept nogil
    void store_lane_outputs "pg_store_lane_outputs"(word_t (*rows)[8], byte_t** outs, int count) noexcept nogil

cdef enum:
    LANES = 8                 # must match the vector width above (8 x 32 bits)
    BLOCK_LEN = 64
    CHUNK_LEN = 1024
    BLOCKS_PER_CHUNK = 16
    OUT_LEN = 32
    KEY_LEN = 32
    MSG_WORDS = 16
    ROUNDS = 7

# Domain separation flags (specification, table 3).
cdef enum:
    CHUNK_START = 1 << 0
    CHUNK_END = 1 << 1
    PARENT = 1 << 2
    ROOT = 1 << 3
    KEYED_HASH = 1 << 4

cdef word_t IV[8]
IV[:] = [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
         0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19]

# The message permutation is applied between rounds; precomputing which original word each
# round reads lets the rounds index the message instead of shuffling it six times per block.
cdef int MSG_PERMUTATION[MSG_WORDS]
MSG_PERMUTATION[:] = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8]
cdef int MSG_SCHEDULE[ROUNDS][MSG_WORDS]


cdef void _build_msg_schedule() noexcept:
    cdef int r, i
    for i in range(MSG_WORDS):
        MSG_SCHEDULE[0][i] = i
    for r in range(1, ROUNDS):
        for i in range(MSG_WORDS):
            MSG_SCHEDULE[r][i] = MSG_SCHEDULE[r - 1][MSG_PERMUTATION[i]]


_build_msg_schedule()


cdef inline void mix(lanes_t* v, int a, int b, int c, int d,
                     const word_t* mx, const word_t* my) noexcept nogil:
    # the quarter-round G of the specification, on eight lanes at once; rotations by 12 and
    # 7 are spelled out because a helper taking a vector by value trips gcc's ABI note
    v[a] = v[a] + v[b] + lanes_load(mx)
    v[d] = rotr16(v[d] ^ v[a])
    v[c] = v[c] + v[d]
    v[b] = v[b] ^ v[c]
    v[b] = (v[b] >> 12) | (v[b] << 20)
    v[a] = v[a] + v[b] + lanes_load(my)
    v[d] = rotr8(v[d] ^ v[a])
    v[c] = v[c] + v[d]
    v[b] = v[b] ^ v[c]
    v[b] = (v[b] >> 7) | (v[b] << 25)


cdef void compress_lanes(word_t (*cv)[LANES], const word_t (*msg)[LANES],
                         const word_t* counter_lo, const word_t* counter_hi,
                         const word_t* block_len, const word_t* flags) noexcept nogil:
    """Eight compressions at once; replaces cv with the first eight output words of each.

    That is both the chaining value for the next block or parent and, for a ROOT
    compression, the 32-byte digest. Row i of every array holds word i of the eight lanes.
    """
    cdef lanes_t v[16]
    cdef const int* s
    cdef int r, i
    for i in range(8):
        v[i] = lanes_load(cv[i])
    for i in range(4):
        v[8 + i] = lanes_splat(IV[i])
    v[12] = lanes_load(counter_lo)
    v[13] = lanes_load(counter_hi)
    v[14] = lanes_load(block_len)
    v[15] = lanes_load(flags)
    for r in range(ROUNDS):
        s = MSG_SCHEDULE[r]
        # columns
        mix(v, 0, 4, 8, 12, msg[s[0]], msg[s[1]])
        mix(v, 1, 5, 9, 13, msg[s[2]], msg[s[3]])
        mix(v, 2, 6, 10, 14, msg[s[4]], msg[s[5]])
        mix(v, 3, 7, 11, 15, msg[s[6]], msg[s[7]])
        # diagonals
        mix(v, 0, 5, 10, 15, msg[s[8]], msg[s[9]])
        mix(v, 1, 6, 11, 12, msg[s[10]], msg[s[11]])
        mix(v, 2, 7, 8, 13, msg[s[12]], msg[s[13]])
        mix(v, 3, 4, 9, 14, msg[s[14]], msg[s[15]])
    for i in range(8):
        v[i] = v[i] ^ v[i + 8]
        lanes_store(cv[i], &v[i])


# A job is one run of compressions that chain into each other: a chunk (1 to 16 blocks) or
# a parent node (one block: the two child chaining values side by side).
# Packed into 32 bytes: small-span batches make one per span, and they are streamed twice.
ctypedef struct Job:
    const byte_t* data        # the job's input bytes
    byte_t* out               # 32 bytes: the chaining value, or the digest for the root
    uint64_t counter          # chunk index within its input; 0 for parents
    int32_t length            # 0..CHUNK_LEN for a chunk (0 only for an empty input), 64 for a parent
    uint8_t mode_flags        # on every block: KEYED_HASH and/or PARENT
    uint8_t start_flags       # extra on the first block: CHUNK_START for chunks
    uint8_t end_flags         # extra on the last block: CHUNK_END for chunks, ROOT for the root


cdef inline int blocks_in(offset_t length) noexcept nogil:
    # an empty input is still one (empty) block
    if length <= BLOCK_LEN:
        return 1
    return <int>((length + BLOCK_LEN - 1) // BLOCK_LEN)


cdef inline void copy_short(byte_t* dst, const byte_t* src, offset_t n) noexcept nogil:
    # n < 64 bytes as two overlapping fixed-size copies, which compile to a few moves where
    # memcpy(n) is a library call; for small spans that call was a fifth of the time
    cdef offset_t i
    if n >= 32:
        memcpy(dst, src, 32)
        memcpy(dst + n - 32, src + n - 32, 32)
    elif n >= 16:
        memcpy(dst, src, 16)
        memcpy(dst + n - 16, src + n - 16, 16)
    elif n >= 8:
        memcpy(dst, src, 8)
        memcpy(dst + n - 8, src + n - 8, 8)
    elif n >= 4:
        memcpy(dst, src, 4)
        memcpy(dst + n - 4, src + n - 4, 4)
    else:
        for i in range(n):
            dst[i] = src[i]


cdef byte_t ZERO_BLOCK[BLOCK_LEN]   # what idle lanes compress; static, so all zeros


cdef void compress_job_group(const Job* jobs, int count, int n_blocks, const word_t* key_words,
                             const byte_t* readable_end) noexcept nogil:
    """Run up to LANES jobs of the same block count side by side and write their outputs.

    readable_end, when not NULL, ends one buffer that holds every job's data: a short final
    block is then read in place and masked, instead of copied into a zeroed block.
    """
    cdef word_t cv[8][LANES]
    cdef word_t msg[MSG_WORDS][LANES]
    cdef word_t counter_lo[LANES]
    cdef word_t counter_hi[LANES]
    cdef word_t block_len[LANES]
    cdef word_t flags[LANES]
    cdef const byte_t* blocks[LANES]
    cdef const byte_t* masks[LANES]
    cdef byte_t* outs[LANES]
    cdef byte_t padded[LANES][BLOCK_LEN]   # a short final block, zero-filled as specified
    cdef const Job* job
    cdef offset_t at, remaining
    cdef int lane, i, b
    cdef word_t f
    for lane in range(LANES):
        for i in range(8):
            cv[i][lane] = key_words[i]
        if lane < count:
            counter_lo[lane] = <word_t>jobs[lane].counter
            counter_hi[lane] = <word_t>(jobs[lane].counter >> 32)
        else:
            # an idle lane computes on zeros; its result is never stored
            counter_lo[lane] = 0
            counter_hi[lane] = 0
            block_len[lane] = 0
            flags[lane] = 0
            blocks[lane] = ZERO_BLOCK
        masks[lane] = keep_mask
    for b in range(n_blocks):
        at = <offset_t>b * BLOCK_LEN
        if b < n_blocks - 1:
            # a full block inside the chunk; from the third block on only the pointers move
            for lane in range(count):
                blocks[lane] = jobs[lane].data + at
            if b <= 1:
                for lane in range(count):
                    flags[lane] = jobs[lane].mode_flags | (jobs[lane].start_flags if b == 0 else 0)
                    block_len[lane] = BLOCK_LEN
        else:
            for lane in range(count):
                job = &jobs[lane]
                f = job.mode_flags | job.end_flags
                if b == 0:
                    f = f | job.start_flags
                remaining = job.length - at
                if remaining < BLOCK_LEN:
                    if readable_end != NULL and readable_end - (job.data + at) >= BLOCK_LEN:
                        blocks[lane] = job.data + at
                        masks[lane] = keep_mask + BLOCK_LEN - remaining
                    else:
                        memset(padded[lane], 0, BLOCK_LEN)
                        copy_short(padded[lane], job.data + at, remaining)
                        blocks[lane] = padded[lane]
                else:
                    blocks[lane] = job.data + at
                block_len[lane] = <word_t>remaining
                flags[lane] = f
        load_message_rows(blocks, masks, msg)
        compress_lanes(cv, msg, counter_lo, counter_hi, block_len, flags)
    for lane in range(count):
        outs[lane] = jobs[lane].out
    store_lane_outputs(cv, outs, count)


cdef void compress_jobs(const Job* jobs, offset_t n_jobs, int n_blocks, const word_t* key_words,
                        const byte_t* readable_end) noexcept nogil:
    cdef offset_t done = 0
    while done < n_jobs:
        compress_job_group(jobs + done, <int>min(<offset_t>LANES, n_jobs - done), n_blocks, key_words,
                           readable_end)
        done += LANES


# How the work for a batch of inputs is laid out; sizes come from plan_batch, memory from
# the caller (with the GIL, so allocation failure is a MemoryError there).
ctypedef struct Plan:
    offset_t n_inputs
    offset_t bucket_start[BLOCKS_PER_CHUNK + 2]   # chunk jobs grouped by block count 1..16
    offset_t n_chunk_jobs
    offset_t n_trees          # inputs longer than one chunk
    offset_t n_cv_slots       # chunk chaining values of those inputs, 32 bytes each


ctypedef struct Tree:
    offset_t input_index
    offset_t cv_first         # index of its first chaining value slot
    offset_t width            # nodes on the current level


# Inputs are hashed in windows of consecutive inputs, so the scratch space stays small
# enough to live in cache and to be reused without page faults however many spans a call
# has. Only a single input of more than WINDOW_CHUNKS chunks makes a window bigger.
cdef enum:
    WINDOW_INPUTS = 1024
    WINDOW_CHUNKS = 4096


cdef inline offset_t chunks_in(offset_t length) noexcept nogil:
    if length <= CHUNK_LEN:
        return 1
    return (length + CHUNK_LEN - 1) // CHUNK_LEN


cdef offset_t window_end(const offset_t* lengths, offset_t start, offset_t n) noexcept nogil:
    """The end of the window of inputs that begins at start."""
    cdef offset_t i = start
    cdef offset_t chunks = 0
    cdef offset_t c
    while i < n and i - start < WINDOW_INPUTS:
        c = chunks_in(lengths[i])
        if i > start and chunks + c > WINDOW_CHUNKS:
            break
        chunks += c
        i += 1
    return i


cdef void capacity_for(offset_t total_chunks, offset_t largest_chunks, offset_t n_inputs,
                       Plan* capacity) noexcept nogil:
    """Scratch space enough for every window of a batch, field by field.

    A window holds at most WINDOW_CHUNKS chunks unless its first input alone has more
    (window_end), never more than the whole batch, and at most WINDOW_INPUTS trees.
    """
    capacity.n_chunk_jobs = min(total_chunks, max(<offset_t>WINDOW_CHUNKS, largest_chunks))
    capacity.n_cv_slots = capacity.n_chunk_jobs
    capacity.n_trees = min(n_inputs, <offset_t>WINDOW_INPUTS)


cdef void plan_capacity(const offset_t* lengths, offset_t n, Plan* capacity) noexcept nogil:
    cdef offset_t i, c
    cdef offset_t total = 0
    cdef offset_t largest = 0
    for i in range(n):
        c = chunks_in(lengths[i])
        total += c
        largest = max(largest, c)
    capacity_for(total, largest, n, capacity)


cdef void plan_batch(const offset_t* lengths, offset_t n, Plan* plan) noexcept nogil:
    cdef offset_t counts[BLOCKS_PER_CHUNK + 1]
    cdef offset_t i, length, n_chunks, tail
    cdef int k
    memset(counts, 0, sizeof(counts))
    plan.n_inputs = n
    plan.n_trees = 0
    plan.n_cv_slots = 0
    for i in range(n):
        length = lengths[i]
        if length <= CHUNK_LEN:
            counts[blocks_in(length)] += 1
        else:
            n_chunks = chunks_in(length)
            tail = length - (n_chunks - 1) * CHUNK_LEN
            counts[BLOCKS_PER_CHUNK] += n_chunks - 1
            counts[blocks_in(tail)] += 1
            plan.n_trees += 1
            plan.n_cv_slots += n_chunks
    plan.bucket_start[0] = 0
    plan.bucket_start[1] = 0
    for k in range(1, BLOCKS_PER_CHUNK + 1):
        plan.bucket_start[k + 1] = plan.bucket_start[k] + counts[k]
    plan.n_chunk_jobs = plan.bucket_start[BLOCKS_PER_CHUNK + 1]


cdef inline void set_chunk_job(Job* job, const byte_t* data, offset_t length, uint64_t counter,
                               word_t mode, word_t root, byte_t* out) noexcept nogil:
    job.data = data
    job.length = <int32_t>length
    job.counter = counter
    job.mode_flags = <uint8_t>mode
    job.start_flags = CHUNK_START
    job.end_flags = <uint8_t>(CHUNK_END | root)
    job.out = out


cdef void hash_batch(const byte_t* const* data, const offset_t* lengths, const Plan* plan,
                     const word_t* key_words, word_t mode, byte_t* out,
                     Job* chunk_jobs, Job* parent_jobs, Tree* trees, byte_t* cvs,
                     const byte_t* readable_end) noexcept nogil:
    """BLAKE3 of every input into out (n_inputs x 32 bytes), using the planned scratch.

    readable_end: the end of the one buffer all inputs lie in, or NULL (see compress_job_group).
    chunk_jobs holds plan.n_chunk_jobs, parent_jobs plan.n_cv_slots // 2, trees
    plan.n_trees, cvs plan.n_cv_slots * 32 bytes.
    """
    cdef offset_t fill[BLOCKS_PER_CHUNK + 2]
    cdef offset_t i, c, length, n_chunks, tail, n_parents, t, pair, width, n_trees
    cdef const byte_t* base
    cdef byte_t* slots
    cdef Tree* tree
    cdef Job* job
    cdef int k
    memcpy(fill, plan.bucket_start, sizeof(fill))
    n_trees = 0
    slots = cvs
    for i in range(plan.n_inputs):
        base = data[i]
        length = lengths[i]
        if length <= CHUNK_LEN:
            # a single chunk is its own root
            k = blocks_in(length)
            set_chunk_job(&chunk_jobs[fill[k]], base, length, 0, mode, ROOT, out + i * OUT_LEN)
            fill[k] += 1
            continue
        n_chunks = chunks_in(length)
        tree = &trees[n_trees]
        n_trees += 1
        tree.input_index = i
        tree.cv_first = (slots - cvs) // OUT_LEN
        tree.width = n_chunks
        for c in range(n_chunks - 1):
            job = &chunk_jobs[fill[BLOCKS_PER_CHUNK]]
            fill[BLOCKS_PER_CHUNK] += 1
            set_chunk_job(job, base + c * CHUNK_LEN, CHUNK_LEN, <uint64_t>c, mode, 0, slots)
            slots += OUT_LEN
        tail = length - (n_chunks - 1) * CHUNK_LEN
        k = blocks_in(tail)
        set_chunk_job(&chunk_jobs[fill[k]], base + (n_chunks - 1) * CHUNK_LEN, tail,
                      <uint64_t>(n_chunks - 1), mode, 0, slots)
        fill[k] += 1
        slots += OUT_LEN

    for k in range(1, BLOCKS_PER_CHUNK + 1):
        compress_jobs(chunk_jobs + plan.bucket_start[k],
                      plan.bucket_start[k + 1] - plan.bucket_start[k], k, key_words, readable_end)

    # The tree of parents, one level at a time across all inputs, so that the parents of
    # different inputs share lanes. Pairing neighbours left to right and carrying an odd
    # last node up unchanged builds exactly the specification's tree, whose left subtree
    # always holds the largest power of two of chunks that leaves at least one for the right.
    # Parents are written over the level they were computed from: pair j reads slots 2j and
    # 2j+1 and writes slot j, and a group of lanes reads all its inputs before writing.
    while True:
        n_parents = 0
        for t in range(n_trees):
            tree = &trees[t]
            width = tree.width
            if width < 2:
                continue
            slots = cvs + tree.cv_first * OUT_LEN
            for pair in range(width // 2):
                job = &parent_jobs[n_parents]
                n_parents += 1
                job.data = slots + pair * 2 * OUT_LEN
                job.length = BLOCK_LEN
                job.counter = 0
                job.mode_flags = <uint8_t>(mode | PARENT)
                job.start_flags = 0
                if width == 2:
                    job.end_flags = ROOT
                    job.out = out + tree.input_index * OUT_LEN
                else:
                    job.end_flags = 0
                    job.out = slots + pair * OUT_LEN
        if n_parents == 0:
            break
        compress_jobs(parent_jobs, n_parents, 1, key_words, NULL)
        for t in range(n_trees):
            tree = &trees[t]
            width = tree.width
            if width < 2:
                continue
            if width % 2 == 1:
                slots = cvs + tree.cv_first * OUT_LEN
                memmove(slots + (width // 2) * OUT_LEN, slots + (width - 1) * OUT_LEN, OUT_LEN)
            tree.width = (width + 1) // 2


# The scratch space of one call, allocated (with the GIL) for its largest window.
ctypedef struct Scratch:
    Job* chunk_jobs
    Job* parent_jobs
    Tree* trees
    byte_t* cvs


cdef void hash_inputs(const byte_t* const* data, const offset_t* lengths, offset_t n,
                      const word_t* key_words, word_t mode, byte_t* out, const Scratch* scratch,
                      const byte_t* readable_end) noexcept nogil:
    """BLAKE3 of every input into out (n x 32 bytes), window by window."""
    cdef Plan plan
    cdef offset_t start = 0
    cdef offset_t end
    while start < n:
        end = window_end(lengths, start, n)
        plan_batch(lengths + start, end - start, &plan)
        hash_batch(data + start, lengths + start, &plan, key_words, mode, out + start * OUT_LEN,
                   scratch.chunk_jobs, scratch.parent_jobs, scratch.trees, scratch.cvs, readable_end)
        start = end
