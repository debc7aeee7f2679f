"""Per-block passes over a window, the pure-Python reference (the executable specification).

Every check reads each post block's text, and an edit in place (a window made from the pre
window, same ids in the same order) is only known to be one after every block's metadata was
compared with the pre block at its position. These are the gate's passes over *all* blocks,
so they run on every edit, however small; the native module ``provgate._ext.blockscan`` does
them without building a tuple per block. It must agree exactly with the functions here.

``SHAPE_FIELDS`` are the block fields the gate's metadata indexes are built from, ``ts``,
which orders the reads of a resource, and ``role``, who said a text (text aside: the texts are
compared by digest). Two windows
have the same shape when block ``i`` of one equals block ``i`` of the other in every one of
these fields (``same_shape_as``): an edit between them changed texts at most.

``provenance_changed(blocks, match, other)`` gives the positions ``j`` of blocks matched to a
block of ``other`` (``match[j]`` an index of ``other``; ``None``: not matched) whose provenance
fields ``(handles, derived, derived_from, role)`` differ from that block's, or that are tagged
derived without a ``derived_from`` handle: the blocks whose text is unchanged but whose
provenance the gate must look at again.

``stamps_changed(blocks, match, other)`` gives the positions ``j`` of matched blocks with the
id of their match whose ``resource`` differs from the match's, or whose ``ts`` does while they
are a read (a resource, the same as the match's): the reads an edit re-stamped.

``matched_by_id(blocks, digests, id_pos, other_digests)`` pairs each block with the block of
another window that has its id AND its text: ``match[j]`` is ``id_pos[blocks[j].id]`` when that
id is in ``id_pos`` (a mapping from the other window's ids to its positions) and
``other_digests`` at that position equals ``digests[j]`` (the text digests of ``blocks``), else
None; it returns ``(match, the positions j whose match is None)``. A position in ``id_pos``
that is not an int index of ``other_digests`` raises (``TypeError`` for a non-int, bool
included, else ``InvalidArgumentError``), naming the id.

Indexes of one window's provenance: ``holding(blocks, handles)`` gives the positions of the
blocks naming one of ``handles`` (a set or frozenset of str) in their ``handles``;
``holding_or_found_by_text(blocks, handles, roles)`` the positions of those and of the blocks
that carry no handle or whose ``role`` is in ``roles`` (a set or frozenset of str), in order;
``by_provenance(blocks)`` maps each handle to the positions of the blocks it grounds (their
``derived_from`` for a derived block, else their ``handles``), in first-appearance order;
``bad_derived(blocks)`` gives the positions of derived blocks without a ``derived_from``;
``by_resource(blocks)`` maps each resource (a block's ``resource`` that is not None) to the
positions of the blocks that are reads of it, in first-appearance order.

Arguments: ``blocks`` (and ``other``) is a tuple or list of :class:`provgate.window.Block`;
``texts`` and ``digests`` are lists or tuples as long as ``blocks``. A wrong container type or an item that is
not a ``Block`` raises ``TypeError`` naming it; a length mismatch raises
``InvalidArgumentError``; so does a ``match`` entry that is neither ``None`` nor an index of
``other`` (``TypeError`` for a non-int, bool included).
"""

from __future__ import annotations

from itertools import compress, count
from operator import attrgetter, eq, is_not
from typing import Any, Mapping, Sequence

from provgate.errors import InvalidArgumentError
from provgate.window import Block, duplicate_id_error

IMPLEMENTATION = "reference"

SHAPE_FIELDS = ("id", "handles", "derived", "derived_from", "pinned", "resource", "ts", "role")

_TEXT = attrgetter("text")
_SHAPE = attrgetter(*SHAPE_FIELDS)
_PROVENANCE = attrgetter("handles", "derived", "derived_from", "role")


def window_blocks(items: Any, path: str) -> tuple[tuple[Block, ...], dict[str, int]]:
    """The blocks of a window made from ``items`` (an iterable of :class:`Block` and JSON
    objects, each object parsed by ``Block.from_json`` as ``{path}[{i}]``), and their positions
    by id; a second block with an id raises ``duplicate_id_error``. This is what
    ``Window(items)`` does; the native module makes the usual JSON object's block (a ``dict``
    with ASCII ids and handles) without the per-field checks' Python calls, and hands every
    other item to ``Block.from_json``, so both raise the same error for the same input."""
    blocks: list[Block] = []
    by_id: dict[str, int] = {}
    for i, block in enumerate(items):
        if not isinstance(block, Block):
            block = Block.from_json(block, f"{path}[{i}]")
        if block.id in by_id:
            raise duplicate_id_error(path, i, block.id, by_id[block.id])
        by_id[block.id] = i
        blocks.append(block)
    return tuple(blocks), by_id


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


def same_shape_as(blocks: Sequence[Block], other: Sequence[Block]) -> bool:
    """Do ``blocks`` and ``other`` have the same length and, block by block, equal
    ``SHAPE_FIELDS``?"""
    check_blocks(blocks)
    check_blocks(other)
    return len(blocks) == len(other) and all(map(eq, map(_SHAPE, blocks), map(_SHAPE, other)))


def same_blocks_as(blocks: Sequence[Block], other: Sequence[Block]) -> bool:
    """Are ``blocks`` and ``other`` equal block for block, in every field (texts included)?"""
    check_blocks(blocks)
    check_blocks(other)
    return tuple(blocks) == tuple(other)


def check_match(match: Any, n_other: int) -> None:
    for j, m in enumerate(match):
        if m is None:
            continue
        if type(m) is not int:
            raise TypeError(f"match[{j}] must be an int or None, not {type(m).__name__}")
        if not 0 <= m < n_other:
            raise InvalidArgumentError(f"match[{j}] = {m} is not an index of other (there are {n_other})",
                                       argument="match")


def check_position(i: Any, n_other: int, block_id: str) -> None:
    if type(i) is not int:
        raise TypeError(f"id_pos[{block_id!r}] must be an int position, not {type(i).__name__}")
    if not 0 <= i < n_other:
        raise InvalidArgumentError(f"id_pos[{block_id!r}] = {i} is not an index of other_digests "
                                   f"(there are {n_other})", argument="id_pos")


def check_digest_list(other_digests: Any) -> None:
    if not isinstance(other_digests, (tuple, list)):
        raise TypeError(f"other_digests must be a tuple or list, not {type(other_digests).__name__}")


def matched_by_id(blocks: Sequence[Block], digests: Sequence[bytes], id_pos: Mapping[str, int],
                  other_digests: Sequence[bytes]) -> tuple[list[int | None], list[int]]:
    """Each block's position in the other window when it has the same id and the same text
    digest there, else None; and the positions left unmatched (module docstring)."""
    check_parallel(blocks, digests, "digests")
    check_digest_list(other_digests)
    get = id_pos.get
    match: list[int | None] = []
    for block, digest in zip(blocks, digests):
        i = get(block.id)
        if i is not None:
            check_position(i, len(other_digests), block.id)
            theirs = other_digests[i]
            if theirs is digest or theirs == digest:
                match.append(i)
                continue
        match.append(None)
    return match, [j for j, m in enumerate(match) if m is None]


def _matched_pairs(blocks: Sequence[Block], match: Sequence[int | None], other: Sequence[Block]) -> list[tuple[int, Block, Block]]:
    """``(j, blocks[j], other[match[j]])`` for every matched position, the arguments checked."""
    check_parallel(blocks, match, "match")
    check_blocks(other)
    check_match(match, len(other))
    return [(j, block, other[m]) for j, (block, m) in enumerate(zip(blocks, match)) if m is not None]


def provenance_changed(blocks: Sequence[Block], match: Sequence[int | None], other: Sequence[Block]) -> list[int]:
    """Positions of matched blocks whose provenance differs from their match's, or that are
    derived without a derived_from handle (module docstring)."""
    out = []
    for j, block, theirs in _matched_pairs(blocks, match, other):
        mine = _PROVENANCE(block)
        if mine != _PROVENANCE(theirs) or (mine[1] and not mine[2]):
            out.append(j)
    return out


def stamps_changed(blocks: Sequence[Block], match: Sequence[int | None], other: Sequence[Block]) -> list[int]:
    """Positions of blocks matched to a block of ``other`` with the same id whose ``resource``
    differs from that block's, or whose ``ts`` differs while either of the two is a read (has a
    resource): a read kept under its id must keep what and when it read (module docstring)."""
    out = []
    for j, block, theirs in _matched_pairs(blocks, match, other):
        if block.id != theirs.id:
            continue
        if block.resource != theirs.resource or (block.ts != theirs.ts and block.resource is not None):
            out.append(j)
    return out


def holding(blocks: Sequence[Block], handles: set[str] | frozenset[str]) -> list[int]:
    """Positions of the blocks naming one of ``handles`` in their ``handles``."""
    check_blocks(blocks)
    if not isinstance(handles, (set, frozenset)):
        raise TypeError(f"handles must be a set or frozenset, not {type(handles).__name__}")
    return [i for i, block in enumerate(blocks) if not handles.isdisjoint(block.handles)]


def holding_or_found_by_text(blocks: Sequence[Block], handles: set[str] | frozenset[str],
                             roles: set[str] | frozenset[str]) -> list[int]:
    """Positions of the blocks naming one of ``handles``, carrying no handle, or of a role in
    ``roles``: the blocks R asks whether they are a pinned text re-rendered (gate._TURNS)."""
    check_blocks(blocks)
    for name, value in (("handles", handles), ("roles", roles)):
        if not isinstance(value, (set, frozenset)):
            raise TypeError(f"{name} must be a set or frozenset, not {type(value).__name__}")
    return [i for i, block in enumerate(blocks)
            if not block.handles or block.role in roles or not handles.isdisjoint(block.handles)]


def by_provenance(blocks: Sequence[Block]) -> dict[str, list[int]]:
    """Handle -> positions of the blocks it grounds (derived_from of a derived block, else
    handles)."""
    check_blocks(blocks)
    groups: dict[str, list[int]] = {}
    for j, block in enumerate(blocks):
        for h in block.derived_from if block.derived else block.handles:
            groups.setdefault(h, []).append(j)
    return groups


def by_resource(blocks: Sequence[Block]) -> dict[str, list[int]]:
    """Resource -> positions of the blocks that are reads of it."""
    check_blocks(blocks)
    groups: dict[str, list[int]] = {}
    for j, block in enumerate(blocks):
        if block.resource is not None:
            groups.setdefault(block.resource, []).append(j)
    return groups


def bad_derived(blocks: Sequence[Block]) -> list[int]:
    """Positions of derived blocks that name no derived_from handle."""
    check_blocks(blocks)
    return [j for j, block in enumerate(blocks) if block.derived and not block.derived_from]
