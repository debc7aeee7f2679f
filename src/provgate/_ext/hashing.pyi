"""Bulk span hashing, native baseline build (ext/hashing.pyx); same API as provgate._hashing_py."""

from collections.abc import Sequence
from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt

DIGEST_SIZE: Final[int]
KEY_SIZE: Final[int]
IMPLEMENTATION: Final[Literal["native"]]
# a capsule named HASH_MANY_CAPSULE_NAME holding the C function hash_many (for native modules)
C_API: Final[Any]
HASH_MANY_CAPSULE_NAME: Final[str]
INSTRUCTION_SET: Final[Literal["baseline"]]

def hash_spans(
    data: bytes | bytearray | memoryview,
    starts: npt.ArrayLike,
    ends: npt.ArrayLike,
    *,
    key: bytes | bytearray | memoryview | None = None,
) -> npt.NDArray[np.uint8]: ...
def hash_buffers(
    buffers: Sequence[Any],
    *,
    key: bytes | bytearray | memoryview | None = None,
) -> npt.NDArray[np.uint8]: ...
def cpu_supports_avx2() -> bool: ...
