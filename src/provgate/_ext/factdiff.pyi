"""Native fact-table diffing; the specification is ``provgate._factdiff_py``."""

from typing import Any

import numpy as np
import numpy.typing as npt

IMPLEMENTATION: str

_Index = npt.NDArray[np.int64]

def check_fingerprints(fp: Any, name: str, *, contiguous: bool = ...) -> npt.NDArray[np.uint64]: ...
def sort_fingerprints(fp: npt.NDArray[np.uint64]) -> _Index: ...
def diff_sorted(
    a: npt.NDArray[np.uint64], b: npt.NDArray[np.uint64]
) -> tuple[_Index, _Index, _Index, _Index]: ...
def diff(a: npt.NDArray[np.uint64], b: npt.NDArray[np.uint64]) -> tuple[_Index, _Index, _Index, _Index]: ...
