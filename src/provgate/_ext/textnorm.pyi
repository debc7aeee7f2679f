"""Native whitespace-normalised text equality; the specification is ``provgate._textnorm_py``."""

import numpy as np
import numpy.typing as npt

IMPLEMENTATION: str

def blank_before_line_break(text: str) -> bool: ...
def same_after_normalisation(
    a: list[str] | tuple[str, ...], b: list[str] | tuple[str, ...]
) -> npt.NDArray[np.bool_]: ...
def same_without_spaces(
    a: list[bytes] | tuple[bytes, ...], b: list[bytes] | tuple[bytes, ...]
) -> npt.NDArray[np.bool_]: ...
def same_words(
    a: list[bytes] | tuple[bytes, ...], b: list[bytes] | tuple[bytes, ...]
) -> npt.NDArray[np.bool_]: ...
