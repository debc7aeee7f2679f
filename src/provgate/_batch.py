"""Batch arguments shared by the batch calls of several hot paths.

Lists of byte strings (needles, haystacks) are checked by :func:`check_byte_items`, so every
batch call refuses the same input with the same message.

A batch call that checks many items (queries, needles) each against its OWN subset of many
members (sets, haystacks) takes ``groups`` — a list of member-index lists — and
``item_group`` — the group of each item. One call then serves many blocks with different
sources. Without both, every item is checked against every member (one group of all).
Both the native modules and the references validate through :func:`check_grouping`, so they
refuse the same input with the same message (the native modules flatten the usual valid form,
lists of int lists and an int64 C-contiguous ``item_group``, in C first: ``ext/_grouping.pxd``).
"""

from __future__ import annotations

from itertools import accumulate, chain
from typing import Any

import numpy as np

from provgate.errors import InvalidArgumentError


def bytes_like(data: Any) -> bytes:
    """``data`` as exact bytes: bytes as they are; a bytes subclass, bytearray or memoryview
    copied (whatever its shape or format); anything else (None, str, a numpy array) is a
    TypeError. The one data argument check of the references (scanner, matching) and of the
    native modules (``ext/_byte_batches.pxd`` ``byte_data``, typed ``bytes``: a subclass passed
    through would be a raw TypeError there and accepted here)."""
    if type(data) is bytes:
        return data
    if isinstance(data, (bytes, bytearray, memoryview)):
        return memoryview(data).tobytes()  # not bytes(data): a subclass's __bytes__ is its own
    raise TypeError(f"data must be bytes-like, not {type(data).__name__}")


def check_byte_items(values: Any, name: str, *, non_empty: bool = False) -> tuple[bytes, ...]:
    """``values`` as a tuple (a private copy a native loop can rely on), after checking it is a
    list or tuple of ``bytes``; with ``non_empty``, an empty item is refused as well (an empty
    needle occurs everywhere)."""
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"{name} must be a list or tuple of bytes, not {type(values).__name__}")
    for i, value in enumerate(values):
        if type(value) is not bytes:
            raise TypeError(f"{name}[{i}] must be bytes, not {type(value).__name__}")
        if non_empty and not value:
            raise InvalidArgumentError(f"{name}[{i}] is empty; an empty needle occurs everywhere", argument=name)
    return tuple(values)


def check_grouping(groups: Any, item_group: Any, n_items: int, n_members: int, *, items: str,
                   members: str, group_name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate and flatten: ``(offsets, member_index, item_group)`` as int64 arrays, where the
    members of group ``g`` are ``member_index[offsets[g]:offsets[g + 1]]``. ``items``,
    ``members`` and ``group_name`` name the arguments in error messages."""
    if groups is None and item_group is None:
        return (np.array([0, n_members], dtype=np.int64), np.arange(n_members, dtype=np.int64),
                np.zeros(n_items, dtype=np.int64))
    if groups is None or item_group is None:
        raise TypeError(f"groups and {group_name} go together: pass both or neither")
    if not isinstance(groups, (list, tuple)):
        raise TypeError(f"groups must be a list or tuple of lists of {members} indices, not {type(groups).__name__}")
    # the common, valid case at C speed (a check grounds hundreds of blocks in one call);
    # the loop below runs only to name the first bad entry
    if not set(map(type, groups)) <= {list, tuple}:
        g = next(g for g, group in enumerate(groups) if not isinstance(group, (list, tuple)))
        raise TypeError(f"groups[{g}] must be a list or tuple of {members} indices, not {type(groups[g]).__name__}")
    flat_list = list(chain.from_iterable(groups))
    if not (set(map(type, flat_list)) <= {int} and (not flat_list or (min(flat_list) >= 0 and max(flat_list) < n_members))):
        for g, group in enumerate(groups):
            for k, m in enumerate(group):
                if type(m) is not int:
                    raise TypeError(f"groups[{g}][{k}] must be an int, not {type(m).__name__}")
                if not 0 <= m < n_members:
                    raise InvalidArgumentError(f"groups[{g}][{k}] = {m} is not an index of {members} "
                                               f"(there are {n_members})", argument="groups")
    flat = np.array(flat_list, dtype=np.int64)
    offsets = np.fromiter(accumulate(map(len, groups), initial=0), dtype=np.int64, count=len(groups) + 1)
    if not isinstance(item_group, np.ndarray) or item_group.dtype.kind not in "iu" or item_group.ndim != 1:
        raise TypeError(f"{group_name} must be a 1-D numpy array of integers")
    if len(item_group) != n_items:
        raise InvalidArgumentError(f"{group_name} must have one entry per item of {items}: "
                                   f"{len(item_group)} for {n_items}", argument=group_name)
    if n_items and (int(item_group.min()) < 0 or int(item_group.max()) >= len(groups)):
        bad = int(np.flatnonzero((item_group < 0) | (item_group >= len(groups)))[0])
        raise InvalidArgumentError(f"{group_name}[{bad}] = {int(item_group[bad])} is not an index of groups "
                                   f"(there are {len(groups)})", argument=group_name)
    return offsets, flat, np.ascontiguousarray(item_group, dtype=np.int64)
