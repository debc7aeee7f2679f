"""Native: the quotations a polarity rule asks; the specification is ``provgate._quotations_py``."""

import numpy as np
import numpy.typing as npt

IMPLEMENTATION: str

def asked_quotations(
    datas: list[bytes] | tuple[bytes, ...],
    kinds: list[npt.NDArray[np.uint8]] | tuple[npt.NDArray[np.uint8], ...],
    starts: list[npt.NDArray[np.int64]] | tuple[npt.NDArray[np.int64], ...],
    ends: list[npt.NDArray[np.int64]] | tuple[npt.NDArray[np.int64], ...],
    quote_kind: int,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...

def asks_outside_code_spans(data: bytes, words: frozenset[bytes]) -> bool: ...
