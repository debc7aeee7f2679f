"""Native per-block passes over a window; the specification is ``provgate._blockscan_py``."""

from collections.abc import Sequence
from typing import Any

from provgate.window import Block

IMPLEMENTATION: str
SHAPE_FIELDS: tuple[str, ...]

def block_texts(blocks: Sequence[Block]) -> list[str]: ...
def texts_changed(blocks: Sequence[Block], texts: Sequence[str]) -> tuple[list[str], list[int]]: ...
def shape_of(blocks: Sequence[Block]) -> list[tuple[Any, ...]]: ...
def same_shape(blocks: Sequence[Block], shape: Sequence[tuple[Any, ...]]) -> bool: ...
