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
def unique_counts(fp: npt.NDArray[np.uint64]) -> tuple[npt.NDArray[np.uint64], _Index]: ...
def grounding_index(fp_value: npt.NDArray[np.uint64], fp_fact: npt.NDArray[np.uint64], fp_key: npt.NDArray[np.uint64],
                    kind: npt.NDArray[np.uint8], kv_kind: int) -> SortedFingerprints: ...
def grounding_index_many(
    columns: list[tuple[Any, Any, Any, Any]] | tuple[tuple[Any, Any, Any, Any], ...], kv_kind: int,
) -> list[SortedFingerprints]: ...
def unique_inverse(fp: npt.NDArray[np.uint64]) -> tuple[npt.NDArray[np.uint64], _Index, _Index]: ...
def apply_delta(
    values: npt.NDArray[np.uint64], counts: Any, removed: npt.NDArray[np.uint64], removed_counts: Any,
    added: npt.NDArray[np.uint64], added_counts: Any,
) -> tuple[npt.NDArray[np.uint64], _Index]: ...
class SortedFingerprints:
    def __init__(self, fp: npt.NDArray[np.uint64]) -> None: ...
    def __len__(self) -> int: ...
    def to_array(self) -> npt.NDArray[np.uint64]: ...

def absent_from_all(
    queries: npt.NDArray[np.uint64], sets: list[Any] | tuple[Any, ...], *,
    groups: list[list[int]] | None = ..., query_group: npt.NDArray[np.integer[Any]] | None = ...,
) -> npt.NDArray[np.bool_]: ...
def ungrounded_rows(
    tables: list[Any] | tuple[Any, ...], sets: list[Any] | tuple[Any, ...],
    haystacks: list[bytes] | tuple[bytes, ...], *, groups: list[list[int]] | tuple[list[int], ...],
    haystack_groups: list[list[int]] | tuple[list[int], ...], skip_kind: int, pair_kind: int, quote_kind: int,
    number_kind: int | None = ..., url_kind: int | None = ..., hints: dict[str, int] | None = ...,
) -> tuple[_Index, _Index]: ...
def _automaton_passes() -> tuple[int, int]: ...
def positions(
    index: SortedFingerprints,
    queries: list[npt.NDArray[np.uint64]] | tuple[npt.NDArray[np.uint64], ...],
) -> _Index: ...
def place_rows(
    index: SortedFingerprints,
    queries: list[npt.NDArray[np.uint64]] | tuple[npt.NDArray[np.uint64], ...],
    codes: list[int] | tuple[int, ...],
) -> tuple[_Index, _Index, npt.NDArray[np.uint8]]: ...
def draw_rows(
    index: SortedFingerprints,
    left: _Index,
    queries: list[npt.NDArray[np.uint64]] | tuple[npt.NDArray[np.uint64], ...],
    kinds: list[npt.NDArray[np.uint8]] | tuple[npt.NDArray[np.uint8], ...],
    skip_kind: int,
) -> tuple[npt.NDArray[np.bool_], _Index]: ...
def index_counts(
    queries: list[npt.NDArray[np.uint64]] | tuple[npt.NDArray[np.uint64], ...],
    kinds: list[npt.NDArray[np.uint8]] | tuple[npt.NDArray[np.uint8], ...],
    skip_kind: int,
) -> tuple[SortedFingerprints, _Index]: ...
def undrawn_values(
    tables: list[Any] | tuple[Any, ...], drawn: npt.NDArray[np.bool_], kind: int,
) -> tuple[_Index, list[bytes]]: ...
def undrawn_values_of_kinds(
    tables: list[Any] | tuple[Any, ...], drawn: npt.NDArray[np.bool_], kinds: tuple[int, ...],
) -> list[tuple[_Index, list[bytes]]]: ...
