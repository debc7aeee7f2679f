"""Native helpers for source-fact matching; the specification is ``provgate._matching_py``."""

from typing import Any

import numpy as np
import numpy.typing as npt

IMPLEMENTATION: str

def collect(
    automaton: Any, data: bytes | bytearray | memoryview, pattern_bytes: npt.NDArray[np.int64], edges: bytes,
    max_matches: int,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
def occurs_at_boundaries(
    needles: list[bytes] | tuple[bytes, ...], haystacks: list[bytes] | tuple[bytes, ...], *,
    groups: list[list[int]] | None = ..., needle_group: npt.NDArray[np.integer[Any]] | None = ...,
    modes: list[int] | tuple[int, ...] | npt.NDArray[np.integer[Any]] | None = ...,
) -> npt.NDArray[np.bool_]: ...
def denied_quotes(data: bytes | bytearray | memoryview, kind: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64],
                  quote_kind: int) -> npt.NDArray[np.int64]: ...
