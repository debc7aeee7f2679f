"""Native UTF-8 text sizes; the specification is ``provgate._textsize_py``."""

import numpy as np
import numpy.typing as npt

IMPLEMENTATION: str

def utf8_lengths(texts: list[str] | tuple[str, ...]) -> npt.NDArray[np.int64]: ...
