# Shared C types for the native hot paths: one place, so every module agrees on widths.
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

ctypedef uint8_t byte_t       # one byte of UTF-8 text or of a digest
ctypedef uint32_t word_t      # a BLAKE3 word
ctypedef int64_t offset_t     # a byte offset into a buffer (numpy int64 on the Python side)
ctypedef uint64_t fp_word_t   # one half (hi or lo) of a 128-bit fingerprint

# Span offsets arrive from callers as int32 or int64 numpy arrays.
ctypedef fused span_index_t:
    int32_t
    int64_t
