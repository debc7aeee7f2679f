"""Per-block passes over a window, the pure-Python reference (the executable specification).

Every check reads each post block's text, and an edit in place (a window made from the pre
window, same ids in the same order) is only known to be one after every block's metadata was
compared with the pre block at its position. These are the gate's passes over *all* blocks,
so they run on every edit, however small; the native module ``provgate._ext.blockscan`` does
them without building a tuple per block. It must agree exactly with the functions here.

``SHAPE_FIELDS`` are the block fields the gate's metadata indexes are built from (text aside:
the texts are compared by digest). Two windows have the same shape when block ``i`` of one
equals block ``i`` of the other in every one of these fields.

Arguments: ``blocks`` is a tuple or list of :class:`provgate.window.Block`; ``texts`` and
``shape`` are lists or tuples as long as ``blocks``. A wrong container type or an item that is
not a ``Block`` raises ``TypeError`` naming it; a length mismatch raises
``InvalidArgumentError``.
"""

from __future__ import annotations

from itertools import compress, count
from operator import attrgetter, eq, is_not
from typing import Any, Sequence

from provgate.errors import InvalidArgumentError
from provgate.window import Block

IMPLEMENTATION = "reference"

SHAPE_FIELDS = ("id", "handles", "derived", "derived_from", "pinned", "resource")

_TEXT = attrgetter("text")
_SHAPE = attrgetter(*SHAPE_FIELDS)


def check_blocks(blocks: Any) -> None:
    if not isinstance(blocks, (tuple, list)):
        raise TypeError(f"blocks must be a tuple or list of Block, not {type(blocks).__name__}")
    for i, block in enumerate(blocks):
        if not isinstance(block, Block):
            raise TypeError(f"blocks[{i}] must be a Block, not {type(block).__name__}")


def check_parallel(blocks: Any, other: Any, name: str) -> None:
    check_blocks(blocks)
    if not isinstance(other, (tuple, list)):
        raise TypeError(f"{name} must be a tuple or list, not {type(other).__name__}")
    if len(other) != len(blocks):
        raise InvalidArgumentError(
            f"{name} must have one item per block, got {len(other)} for {len(blocks)} blocks", argument=name
        )


def block_texts(blocks: Sequence[Block]) -> list[str]:
    """Every block's text, in order."""
    check_blocks(blocks)
    return list(map(_TEXT, blocks))


def texts_changed(blocks: Sequence[Block], texts: Sequence[str]) -> tuple[list[str], list[int]]:
    """Every block's text, and the positions ``i`` whose text is not the very object
    ``texts[i]`` (an identity test: a window made from another holds the other's text objects
    wherever it did not change them; equal texts that are other objects are reported too)."""
    check_parallel(blocks, texts, "texts")
    mine = list(map(_TEXT, blocks))
    return mine, list(compress(count(), map(is_not, mine, texts)))


def shape_of(blocks: Sequence[Block]) -> list[tuple[Any, ...]]:
    """Per block, its ``SHAPE_FIELDS`` values as a tuple."""
    check_blocks(blocks)
    return list(map(_SHAPE, blocks))


def same_shape(blocks: Sequence[Block], shape: Sequence[tuple[Any, ...]]) -> bool:
    """Does every block's ``SHAPE_FIELDS`` tuple equal ``shape[i]`` (as ``shape_of`` gives it)?"""
    check_parallel(blocks, shape, "shape")
    return all(map(eq, map(_SHAPE, blocks), shape))
