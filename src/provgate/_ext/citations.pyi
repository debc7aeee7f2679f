"""Native citation scanner (ext/citations.pyx); the specification is ``provgate._citations_py``."""

from typing import Final, Literal

import numpy as np
import numpy.typing as npt

IMPLEMENTATION: Final[Literal["native"]]
FORMS: Final[tuple[str, ...]]

_Rows = npt.NDArray[np.int64]

def scan(data: bytes) -> tuple[_Rows, _Rows, _Rows, _Rows]: ...
def near_markers(data: bytes) -> _Rows: ...
