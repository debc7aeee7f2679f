"""Grounded-span scanner, native (ext/scanner.pyx); same API as provgate._scanner_py."""

from typing import Final, Literal

import numpy as np
import numpy.typing as npt

IMPLEMENTATION: Final[Literal["native"]]
NUMBER_WORDS: Final[frozenset[bytes]]
KIND_NAMES: Final[dict[int, bytes]]
# the block masks can come from AVX2 code on this CPU (chosen at import)
HAVE_AVX2_MASKS: Final[bool]

def scan(
    data: bytes | bytearray | memoryview, max_spans: int
) -> tuple[
    npt.NDArray[np.uint8],  # kind
    npt.NDArray[np.int64],  # start
    npt.NDArray[np.int64],  # end
    npt.NDArray[np.int64],  # key_start (-1: the key is the kind's name)
    npt.NDArray[np.int64],  # key_end
    npt.NDArray[np.int64],  # value_start
    npt.NDArray[np.int64],  # value_end
    npt.NDArray[np.uint8],  # value_kind
]: ...
def utf8_error_offset(data: bytes | bytearray | memoryview) -> int: ...
def extract_columns(
    data: bytes | bytearray | memoryview, max_spans: int, key: bytes
) -> tuple[npt.NDArray[np.uint8 | np.int64 | np.uint64], ...]: ...  # the 8 of scan, then fp_key, fp_value, fp_fact
def extract_columns_many(
    datas: list[bytes] | tuple[bytes, ...], max_spans: int, key: bytes
) -> list[tuple[npt.NDArray[np.uint8 | np.int64 | np.uint64], ...]]: ...
def _extract_columns_with_python_hashing(
    data: bytes | bytearray | memoryview, max_spans: int, key: bytes
) -> tuple[npt.NDArray[np.uint8 | np.int64 | np.uint64], ...]: ...
def frame_facts(
    data: bytes | bytearray | memoryview,
    kind: npt.ArrayLike,
    key_start: npt.ArrayLike,
    key_end: npt.ArrayLike,
    value_start: npt.ArrayLike,
    value_end: npt.ArrayLike,
    value_kind: npt.ArrayLike,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
def _set_block_masks(which: Literal["avx2", "baseline"]) -> str: ...  # for the tests
def span_values(
    data: bytes, kind: npt.NDArray[np.uint8], value_start: npt.NDArray[np.int64], value_end: npt.NDArray[np.int64],
    wanted: int,
) -> tuple[str, ...]: ...
def first_invalid_row(
    size: int, kind: npt.NDArray[np.uint8], start: npt.NDArray[np.int64], end: npt.NDArray[np.int64],
    key_start: npt.NDArray[np.int64], key_end: npt.NDArray[np.int64], value_start: npt.NDArray[np.int64],
    value_end: npt.NDArray[np.int64], value_kind: npt.NDArray[np.uint8], max_kind: int, max_value_kind: int,
    kv_kind: int,
) -> tuple[int, str] | None: ...
def fold_digits(raw: bytes) -> bytes: ...
