# The Python boundary of bulk span hashing: check every argument exactly as the reference
# (provgate._hashing_py) does, gather pointers and lengths with the GIL held while keeping
# their owners alive, then hash everything without the GIL (hash_inputs, _blake3.pxi).

from cpython.buffer cimport PyBUF_FULL_RO, PyBuffer_IsContiguous, PyBuffer_Release, PyObject_GetBuffer
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_GET_SIZE
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport calloc, free, malloc

from _types cimport span_index_t

import numpy as np

from provgate.errors import SpanError

DIGEST_SIZE = OUT_LEN
KEY_SIZE = KEY_LEN
IMPLEMENTATION = "native"

cdef object _INT64_MAX = np.iinfo(np.int64).max
cdef object _NATIVE_INT32 = np.dtype(np.int32)
cdef object _NATIVE_INT64 = np.dtype(np.int64)


cdef int acquire_bytes(object obj, Py_buffer* view, const byte_t** data, offset_t* length,
                       str what, offset_t index=-1) except -1:
    """Point data/length at obj's bytes. Returns 1 when view now holds an export that the
    caller must release with PyBuffer_Release, 0 when there is none (bytes).

    Errors name the argument as what, or what[index] when index >= 0.
    """
    if index >= 0 and not PyBytes_CheckExact(obj):
        # the name is needed only for an error, and formatting it per buffer costs
        what = f"{what}[{index}]"
    if isinstance(obj, str):
        raise TypeError(f"{what} must be bytes-like, not str (encode it as UTF-8 first)")
    if PyBytes_CheckExact(obj):
        # immutable and kept alive by the caller's reference: no export needed
        data[0] = <const byte_t*>PyBytes_AS_STRING(obj)
        length[0] = PyBytes_GET_SIZE(obj)
        return 0
    try:
        # the flags memoryview() uses, so the same objects are accepted as in the reference
        PyObject_GetBuffer(obj, view, PyBUF_FULL_RO)
    except TypeError:
        raise TypeError(f"{what} must be bytes, bytearray or memoryview, not {type(obj).__name__}") from None
    if not PyBuffer_IsContiguous(view, b'C'):
        PyBuffer_Release(view)
        raise TypeError(f"{what} must be a C-contiguous buffer")
    data[0] = <const byte_t*>view.buf
    length[0] = view.len
    return 1


cdef int key_words_of(object key, word_t* words) except -1:
    """IV for the hash mode, the key's eight little-endian words for keyed mode."""
    cdef bytes key_bytes
    cdef const byte_t* p
    cdef int i
    if key is None:
        for i in range(8):
            words[i] = IV[i]
        return 0
    if isinstance(key, str) or not isinstance(key, (bytes, bytearray, memoryview)):
        raise TypeError(f"key must be {KEY_LEN} bytes, not {type(key).__name__}")
    key_bytes = bytes(key)
    if len(key_bytes) != KEY_LEN:
        raise ValueError(f"key must be exactly {KEY_LEN} bytes, got {len(key_bytes)}")
    p = key_bytes
    for i in range(8):
        words[i] = load_le32(p + 4 * i)
    return 0


cdef object as_offsets(object values, str what):
    """A C-contiguous int32 or int64 array of offsets, with the reference's checks."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise SpanError(f"{what} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        return np.empty(0, dtype=np.int64)
    if arr.dtype.kind not in "iu":
        raise SpanError(f"{what} must hold integers, got dtype {arr.dtype}")
    if arr.dtype.kind == "u" and arr.dtype.itemsize == 8 and int(arr.max()) > _INT64_MAX:
        raise SpanError(f"{what} holds an offset beyond int64")
    if arr.dtype != _NATIVE_INT32 and arr.dtype != _NATIVE_INT64:
        arr = arr.astype(np.int64)
    return np.ascontiguousarray(arr)


cdef offset_t check_spans(const span_index_t[::1] starts, const span_index_t[::1] ends,
                          offset_t size, offset_t* total_chunks, offset_t* largest_chunks) noexcept nogil:
    """The index of the first invalid span, or -1 and the chunk counts that size the scratch."""
    cdef offset_t i, start, end, c
    cdef offset_t total = 0
    cdef offset_t largest = 0
    for i in range(starts.shape[0]):
        start = starts[i]
        end = ends[i]
        if start < 0 or end < start or end > size:
            return i
        c = chunks_in(end - start)
        total += c
        largest = max(largest, c)
    total_chunks[0] = total
    largest_chunks[0] = largest
    return -1


cdef offset_t hash_checked_spans(const span_index_t[::1] starts, const span_index_t[::1] ends,
                               const byte_t* base, offset_t size, offset_t total_chunks,
                               offset_t largest_chunks, const word_t* key_words, word_t mode,
                               byte_t* out, const Scratch* scratch,
                               const byte_t** slice_data, offset_t* slice_lengths) noexcept nogil:
    """Hash spans that check_spans accepted, WINDOW_INPUTS at a time, so the table of pointers
    and lengths stays small however many spans there are.

    The offsets may belong to the caller and another thread may change them while the GIL is
    released, so each span is read once into the table and checked again against what
    check_spans saw: in the buffer, and within the chunk counts the scratch was sized for.
    Returns -1, or the index of a span that changed (nothing past it is hashed).
    """
    cdef offset_t n = starts.shape[0]
    cdef offset_t first = 0
    cdef offset_t chunks_seen = 0
    cdef offset_t count, j, start, end, c
    while first < n:
        count = min(<offset_t>WINDOW_INPUTS, n - first)
        for j in range(count):
            start = starts[first + j]
            end = ends[first + j]
            if start < 0 or end < start or end > size:
                return first + j
            c = chunks_in(end - start)
            chunks_seen += c
            if c > largest_chunks or chunks_seen > total_chunks:
                return first + j
            slice_data[j] = base + start
            slice_lengths[j] = end - start
        hash_inputs(slice_data, slice_lengths, count, key_words, mode, out + first * OUT_LEN,
                    scratch, base + size)
        first += count
    return -1


cdef object span_error(object starts, object ends, offset_t i, offset_t size):
    cdef object st = int(starts[i])
    cdef object en = int(ends[i])
    if st < 0:
        why = "negative start"
    elif en < st:
        why = "end before start"
    else:
        why = f"end beyond the buffer of {size} bytes"
    return SpanError(f"span {i} [{st}, {en}) is invalid: {why}")


cdef int allocate_scratch(Scratch* scratch, const Plan* capacity) except -1:
    # +1: malloc(0) may return NULL, which must not read as failure
    scratch.chunk_jobs = <Job*>malloc((capacity.n_chunk_jobs + 1) * sizeof(Job))
    scratch.parent_jobs = <Job*>malloc((capacity.n_cv_slots // 2 + 1) * sizeof(Job))
    scratch.trees = <Tree*>malloc((capacity.n_trees + 1) * sizeof(Tree))
    scratch.cvs = <byte_t*>malloc((capacity.n_cv_slots + 1) * OUT_LEN)
    if (scratch.chunk_jobs == NULL or scratch.parent_jobs == NULL or scratch.trees == NULL
            or scratch.cvs == NULL):
        raise MemoryError("not enough memory for the hashing scratch space")
    return 0


cdef void free_scratch(Scratch* scratch) noexcept:
    free(scratch.chunk_jobs)
    free(scratch.parent_jobs)
    free(scratch.trees)
    free(scratch.cvs)


def hash_spans(data, starts, ends, *, key=None):
    """BLAKE3 digests of ``data[starts[i]:ends[i]]`` as an ``(n, 32)`` uint8 array.

    ``key`` (32 bytes) selects BLAKE3's keyed mode. Raises ``TypeError`` for ``str`` or
    non-contiguous data, ``TypeError``/``ValueError`` for a bad key, and ``SpanError``
    naming the first span that is out of range, inverted, or malformed.
    """
    cdef Py_buffer view
    cdef const byte_t* base
    cdef offset_t size, n, bad
    cdef offset_t total_chunks = 0
    cdef offset_t largest_chunks = 0
    cdef bint exported
    cdef word_t key_words[8]
    cdef word_t mode
    cdef const int32_t[::1] s32
    cdef const int32_t[::1] e32
    cdef const int64_t[::1] s64
    cdef const int64_t[::1] e64
    cdef bint narrow
    cdef Plan capacity
    cdef Scratch scratch = Scratch(NULL, NULL, NULL, NULL)
    cdef const byte_t** slice_data = NULL
    cdef offset_t* slice_lengths = NULL
    cdef byte_t[:, ::1] out_view
    exported = acquire_bytes(data, &view, &base, &size, "data")
    try:
        key_words_of(key, key_words)
        mode = 0 if key is None else KEYED_HASH
        s = as_offsets(starts, "starts")
        e = as_offsets(ends, "ends")
        if s.shape[0] != e.shape[0]:
            raise SpanError(f"starts and ends differ in length: {s.shape[0]} != {e.shape[0]}")
        n = s.shape[0]
        out = np.empty((n, OUT_LEN), dtype=np.uint8)
        if n == 0:
            return out
        if s.dtype != e.dtype:
            s = s.astype(np.int64)
            e = e.astype(np.int64)
        narrow = s.dtype == _NATIVE_INT32
        if narrow:
            s32 = s
            e32 = e
            with nogil:
                bad = check_spans(s32, e32, size, &total_chunks, &largest_chunks)
        else:
            s64 = s
            e64 = e
            with nogil:
                bad = check_spans(s64, e64, size, &total_chunks, &largest_chunks)
        if bad >= 0:
            raise span_error(s, e, bad, size)
        capacity_for(total_chunks, largest_chunks, n, &capacity)
        allocate_scratch(&scratch, &capacity)
        slice_data = <const byte_t**>malloc(min(n, <offset_t>WINDOW_INPUTS) * sizeof(byte_t*))
        slice_lengths = <offset_t*>malloc(min(n, <offset_t>WINDOW_INPUTS) * sizeof(offset_t))
        if slice_data == NULL or slice_lengths == NULL:
            raise MemoryError("not enough memory for the span table")
        out_view = out
        with nogil:
            if narrow:
                bad = hash_checked_spans(s32, e32, base, size, total_chunks, largest_chunks, key_words,
                                         mode, &out_view[0, 0], &scratch, slice_data, slice_lengths)
            else:
                bad = hash_checked_spans(s64, e64, base, size, total_chunks, largest_chunks, key_words,
                                         mode, &out_view[0, 0], &scratch, slice_data, slice_lengths)
        if bad >= 0:
            raise SpanError(f"span {bad} changed while it was being hashed: "
                            "starts and ends must not be modified during the call")
        return out
    finally:
        free_scratch(&scratch)
        free(slice_data)
        free(slice_lengths)
        if exported:
            PyBuffer_Release(&view)


def hash_buffers(buffers, *, key=None):
    """BLAKE3 digests of each bytes-like object of ``buffers`` as an ``(n, 32)`` uint8 array.

    The buffers are hashed where they are, without concatenation. Errors as ``hash_spans``.
    """
    cdef word_t key_words[8]
    cdef Py_buffer* views = NULL
    cdef char* exported = NULL
    cdef const byte_t** buffer_data = NULL
    cdef offset_t* buffer_lengths = NULL
    cdef offset_t n, i
    cdef Plan capacity
    cdef Scratch scratch = Scratch(NULL, NULL, NULL, NULL)
    cdef byte_t[:, ::1] out_view
    cdef word_t mode
    if isinstance(buffers, (str, bytes, bytearray, memoryview)):
        raise TypeError("buffers must be a sequence of bytes-like objects, not a single buffer")
    key_words_of(key, key_words)
    mode = 0 if key is None else KEYED_HASH
    # our own tuple keeps every buffer alive even if the caller's list changes meanwhile
    items = tuple(buffers)
    n = len(items)
    out = np.empty((n, OUT_LEN), dtype=np.uint8)
    if n == 0:
        return out
    try:
        views = <Py_buffer*>malloc(n * sizeof(Py_buffer))
        exported = <char*>calloc(n, 1)
        buffer_data = <const byte_t**>malloc(n * sizeof(byte_t*))
        buffer_lengths = <offset_t*>malloc(n * sizeof(offset_t))
        if views == NULL or exported == NULL or buffer_data == NULL or buffer_lengths == NULL:
            raise MemoryError("not enough memory for the buffer table")
        for i in range(n):
            exported[i] = acquire_bytes(items[i], &views[i], &buffer_data[i], &buffer_lengths[i],
                                        "buffers", i)
        plan_capacity(buffer_lengths, n, &capacity)
        allocate_scratch(&scratch, &capacity)
        out_view = out
        with nogil:
            # separate objects: nothing may be read past the end of any of them (NULL)
            hash_inputs(buffer_data, buffer_lengths, n, key_words, mode, &out_view[0, 0], &scratch, NULL)
        return out
    finally:
        if exported != NULL:
            for i in range(n):
                if exported[i]:
                    PyBuffer_Release(&views[i])
        free(exported)
        free(views)
        free(buffer_data)
        free(buffer_lengths)
        free_scratch(&scratch)


# ---- for other native modules: one C function behind a capsule ---------------------------------
# The scanner frames fact records and hashes them inside one GIL-free pass (no Python objects
# per call); it reaches BLAKE3 through this function pointer, from whichever build of this
# module provgate._hashing chose (provgate._hashing.C_API).

from cpython.pycapsule cimport PyCapsule_New

ctypedef int (*hash_many_t)(const byte_t* const* data, const offset_t* lengths, offset_t n,
                            const byte_t* key, byte_t* out, const byte_t* readable_end) noexcept nogil


cdef int hash_many(const byte_t* const* data, const offset_t* lengths, offset_t n,
                   const byte_t* key, byte_t* out, const byte_t* readable_end) noexcept nogil:
    """BLAKE3 digests of n inputs into out (n x 32 bytes): keyed mode with the 32-byte key,
    or the plain hash when key is NULL. readable_end as for hash_inputs (NULL when the
    inputs are separate objects). Lengths must be >= 0 (the caller made them). Returns 0,
    or -1 when out of memory (nothing is hashed then)."""
    cdef word_t key_words[8]
    cdef word_t mode = 0
    cdef Plan capacity
    cdef Scratch scratch
    cdef int i
    if n <= 0:
        return 0
    for i in range(8):
        key_words[i] = load_le32(key + 4 * i) if key != NULL else IV[i]
    if key != NULL:
        mode = KEYED_HASH
    plan_capacity(lengths, n, &capacity)
    scratch.chunk_jobs = <Job*>malloc((capacity.n_chunk_jobs + 1) * sizeof(Job))
    scratch.parent_jobs = <Job*>malloc((capacity.n_cv_slots // 2 + 1) * sizeof(Job))
    scratch.trees = <Tree*>malloc((capacity.n_trees + 1) * sizeof(Tree))
    scratch.cvs = <byte_t*>malloc((capacity.n_cv_slots + 1) * OUT_LEN)
    if (scratch.chunk_jobs == NULL or scratch.parent_jobs == NULL or scratch.trees == NULL
            or scratch.cvs == NULL):
        free(scratch.chunk_jobs)
        free(scratch.parent_jobs)
        free(scratch.trees)
        free(scratch.cvs)
        return -1
    hash_inputs(data, lengths, n, key_words, mode, out, &scratch, readable_end)
    free(scratch.chunk_jobs)
    free(scratch.parent_jobs)
    free(scratch.trees)
    free(scratch.cvs)
    return 0


# the capsule's name is also its type: a hash_many_t
HASH_MANY_CAPSULE_NAME = "provgate._ext.hashing.hash_many"
C_API = PyCapsule_New(<void*>hash_many, b"provgate._ext.hashing.hash_many", NULL)
