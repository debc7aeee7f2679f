"""Import switch for bulk span hashing (hot path 1); see ``provgate._hashing_py`` for the spec.

The native module comes in two builds of one source: ``hashing`` (any x86-64 CPU) and
``hashing_avx2`` (compiled with ``-mavx2``). The AVX2 build is imported only after the
baseline build has asked the CPU, because merely running its code on a CPU without AVX2 can
kill the process with SIGILL.
"""

import importlib
import warnings

from provgate._switch import load

_impl, IMPLEMENTATION = load("hashing", "_hashing_py")

# "avx2" or "baseline" for the native builds, None for the reference
INSTRUCTION_SET = None
if IMPLEMENTATION == "native":
    INSTRUCTION_SET = _impl.INSTRUCTION_SET
    if _impl.cpu_supports_avx2():
        try:
            _impl = importlib.import_module("provgate._ext.hashing_avx2")
            INSTRUCTION_SET = _impl.INSTRUCTION_SET
        except ImportError as exc:
            warnings.warn(
                f"provgate: the AVX2 build of hashing is unavailable ({exc}); using the baseline build",
                RuntimeWarning,
                stacklevel=2,
            )

hash_spans = _impl.hash_spans
hash_buffers = _impl.hash_buffers

# For other native modules only: a capsule holding the chosen build's C function
# hash_many (see ext/_blake3_api.pxi), so they can hash without the GIL and without Python
# objects per call. None when hashing runs in the reference (there is no C to call).
C_API = _impl.C_API if IMPLEMENTATION == "native" else None

__all__ = ["C_API", "IMPLEMENTATION", "INSTRUCTION_SET", "hash_buffers", "hash_spans"]
