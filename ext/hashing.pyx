"""Bulk span hashing (hot path 1), baseline build: runs on every x86-64 CPU (SSE2).

See provgate._hashing_py for the specification and provgate._hashing for how the build
(this one or hashing_avx2) is chosen.
"""

include "_blake3.pxi"
include "_blake3_api.pxi"

INSTRUCTION_SET = "baseline"

cdef extern from *:
    """
    static int pg_cpu_supports_avx2(void) {
    #if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") != 0;  /* also checks the OS saves ymm state */
    #else
        return 0;
    #endif
    }
    """
    int pg_cpu_supports_avx2() noexcept nogil


def cpu_supports_avx2():
    """True when this CPU and OS can run the hashing_avx2 build."""
    return pg_cpu_supports_avx2() != 0
