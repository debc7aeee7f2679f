"""Bulk span hashing (hot path 1), AVX2 build: the same source as hashing.pyx, compiled with
-mavx2 (setup.py). Import it only after hashing.cpu_supports_avx2() said yes: on a CPU
without AVX2 any of its code may raise SIGILL.
"""

include "_blake3.pxi"
include "_blake3_api.pxi"

INSTRUCTION_SET = "avx2"
