"""Native batch quote search (ext/search.pyx); the specification is ``provgate._search_py``."""

from collections.abc import Sequence
from typing import Final, Literal

import numpy as np
import numpy.typing as npt

IMPLEMENTATION: Final[Literal["native"]]
WHITESPACE: Final[tuple[bytes, ...]]
WHITESPACE_CODEPOINTS: Final[tuple[int, ...]]

_Int64 = npt.NDArray[np.int64]

def find_exact(needles: Sequence[bytes], haystacks: Sequence[bytes]) -> tuple[_Int64, _Int64]: ...
def find_whitespace(needles: Sequence[bytes], haystacks: Sequence[bytes]) -> tuple[_Int64, _Int64, _Int64]: ...
def whitespace_spans(needle: bytes, haystack: bytes, max_spans: int) -> _Int64: ...
def exact_spans(needle: bytes, haystack: bytes, start: int, max_spans: int) -> _Int64: ...
def longest_prefix(needles: Sequence[bytes], haystacks: Sequence[bytes]) -> tuple[_Int64, _Int64]: ...
def normalize_whitespace(data: bytes) -> bytes: ...
