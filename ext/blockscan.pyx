"""Per-block passes over a window, native; the specification is ``provgate._blockscan_py``.

A ``Block`` is a slotted dataclass, so each field lives at a fixed offset in the object. The
offsets are read once, at import, from the class's member descriptors; a block whose type is
exactly ``Block`` is then read by pointer, with no attribute look-up and no tuple per block
(the reference's ``attrgetter`` does both, about 200 ns a block). Any other ``Block`` (a
subclass may override a field with a property) is read through ``getattr``, as the reference
reads it. These passes handle Python objects only, so they run with the GIL held.
"""

from types import MemberDescriptorType

from cpython.object cimport PyObject, PyObject_GetAttr, PyObject_RichCompareBool, Py_EQ, Py_TYPE
from cpython.ref cimport Py_INCREF
from cpython.list cimport PyList_New, PyList_SET_ITEM

from provgate._blockscan_py import (SHAPE_FIELDS, check_blocks, check_digest_list, check_match, check_parallel,
                                   check_position)
from provgate.window import Block

__all__ = ["IMPLEMENTATION", "SHAPE_FIELDS", "bad_derived", "block_texts", "by_provenance", "holding",
           "matched_by_id", "provenance_changed", "same_shape_as", "texts_changed"]

IMPLEMENTATION = "native"

cdef extern from "Python.h":
    ctypedef struct PyMemberDef:
        int type
        Py_ssize_t offset
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member
    enum:
        T_OBJECT_EX

cdef enum:
    N_SHAPE = 6  # len(SHAPE_FIELDS), asserted below
    # the places in SHAPE_FIELDS of the id and the provenance fields
    ID = 0
    HANDLES = 1
    DERIVED = 2
    DERIVED_FROM = 3
    RESOURCE = 5

cdef object _block_type = Block
cdef PyObject* _block_type_ptr = <PyObject*>Block
# byte offsets of the text and the shape fields in a Block; -1: read through getattr
cdef Py_ssize_t _text_offset = -1
cdef Py_ssize_t _shape_offsets[N_SHAPE]
cdef tuple _shape_names = tuple(SHAPE_FIELDS)
_text_name = "text"


cdef Py_ssize_t _slot_offset(str name) except -2:
    """The offset of slot ``name`` in a Block, or -1 when it is not a plain object slot."""
    descriptor = Block.__dict__.get(name)
    if type(descriptor) is not MemberDescriptorType:
        return -1
    cdef PyMemberDef* member = (<PyMemberDescrObject*>descriptor).d_member
    if member.type != T_OBJECT_EX:
        return -1
    return member.offset


assert len(SHAPE_FIELDS) == N_SHAPE
assert SHAPE_FIELDS[ID] == "id" and SHAPE_FIELDS[HANDLES] == "handles" and SHAPE_FIELDS[DERIVED] == "derived"
assert SHAPE_FIELDS[DERIVED_FROM] == "derived_from" and SHAPE_FIELDS[RESOURCE] == "resource"
_text_offset = _slot_offset("text")
for _k in range(N_SHAPE):
    _shape_offsets[_k] = _slot_offset(SHAPE_FIELDS[_k])


cdef inline PyObject* _slot(object block, Py_ssize_t offset) noexcept:
    """The borrowed value of a Block slot (NULL if the slot is empty)."""
    return (<PyObject**>((<char*><PyObject*>block) + offset))[0]


cdef tuple _blocks_tuple(object blocks):
    """``blocks`` as a tuple (a list is copied: a getattr on a Block subclass could change
    it under the loop), every item checked to be a Block, with the reference's messages."""
    if type(blocks) is not tuple and type(blocks) is not list:
        check_blocks(blocks)  # raises for anything else that is not a tuple or list
    cdef tuple items = blocks if type(blocks) is tuple else tuple(blocks)
    cdef Py_ssize_t i
    for i in range(len(items)):
        if <PyObject*>Py_TYPE(items[i]) != _block_type_ptr and not isinstance(items[i], _block_type):
            check_blocks(items)  # raises, naming the item
    return items


cdef tuple _parallel_tuple(tuple blocks, object other, str name):
    if type(other) is not tuple and type(other) is not list or len(other) != len(blocks):
        check_parallel(blocks, other, name)  # raises, naming the argument
    return other if type(other) is tuple else tuple(other)


cdef inline object _shape_field(object block, int k):
    """Field ``SHAPE_FIELDS[k]`` of ``block``."""
    return _field(block, _shape_offsets[k], _shape_names[k])


cdef inline bint _equal(object a, object b) except -1:
    # identity first: an unchanged field is usually the very object (ids, flags, None)
    return a is b or PyObject_RichCompareBool(a, b, Py_EQ)


cdef object _field(object block, Py_ssize_t offset, object name):
    """Field ``name`` of ``block``: by pointer for an exact Block, else through getattr (which
    also raises for an empty slot, as the reference would)."""
    cdef PyObject* value
    if offset >= 0 and <PyObject*>Py_TYPE(block) == _block_type_ptr:
        value = _slot(block, offset)
        if value != NULL:
            return <object>value
    return PyObject_GetAttr(block, name)


cdef tuple _texts(tuple items, tuple before):
    """(the blocks' texts, the positions whose text is not the object at that position of
    ``before``; empty when ``before`` is None)."""
    cdef Py_ssize_t i, n = len(items)
    cdef list out = PyList_New(n)
    cdef list differ = []
    for i in range(n):
        text = _field(items[i], _text_offset, _text_name)
        Py_INCREF(text)
        PyList_SET_ITEM(out, i, text)
        if before is not None and text is not before[i]:
            differ.append(i)
    return out, differ


def block_texts(blocks):
    return _texts(_blocks_tuple(blocks), None)[0]


def texts_changed(blocks, texts):
    cdef tuple items = _blocks_tuple(blocks)
    return _texts(items, _parallel_tuple(items, texts, "texts"))


def matched_by_id(blocks, digests, id_pos, other_digests):
    cdef tuple items = _blocks_tuple(blocks)
    cdef tuple mine = _parallel_tuple(items, digests, "digests")
    if type(other_digests) is not tuple and type(other_digests) is not list:
        check_digest_list(other_digests)  # raises
    cdef tuple theirs = other_digests if type(other_digests) is tuple else tuple(other_digests)
    get = id_pos.get
    cdef Py_ssize_t j, n = len(items), n_other = len(theirs), i
    cdef list match = [None] * n
    cdef list pending = []
    for j in range(n):
        block_id = _shape_field(items[j], ID)
        found = get(block_id)
        if found is not None:
            if type(found) is not int or not 0 <= <object>found < n_other:
                check_position(found, n_other, block_id)  # raises, naming the id
            i = found
            if _equal(theirs[i], mine[j]):
                match[j] = found
                continue
        pending.append(j)
    return match, pending


def same_shape_as(blocks, other):
    cdef tuple items = _blocks_tuple(blocks)
    cdef tuple others = _blocks_tuple(other)
    if len(others) != len(items):
        return False
    cdef Py_ssize_t i, k, n = len(items)
    for i in range(n):
        block = items[i]
        theirs = others[i]
        if block is theirs:
            continue
        for k in range(N_SHAPE):
            if not _equal(_shape_field(block, k), _shape_field(theirs, k)):
                return False
    return True


def provenance_changed(blocks, match, other):
    cdef tuple items = _blocks_tuple(blocks)
    cdef tuple matched = _parallel_tuple(items, match, "match")
    cdef tuple others = _blocks_tuple(other)
    cdef Py_ssize_t j, n = len(items), n_other = len(others), m
    for j in range(n):
        entry = matched[j]
        if entry is not None and (type(entry) is not int or not 0 <= <object>entry < n_other):
            check_match(matched, n_other)  # raises, naming the entry
    cdef list out = []
    for j in range(n):
        entry = matched[j]
        if entry is None:
            continue
        m = entry
        block = items[j]
        theirs = others[m]
        mine_derived = _shape_field(block, DERIVED)
        mine_from = _shape_field(block, DERIVED_FROM)
        if (not _equal(_shape_field(block, HANDLES), _shape_field(theirs, HANDLES))
                or not _equal(mine_derived, _shape_field(theirs, DERIVED))
                or not _equal(mine_from, _shape_field(theirs, DERIVED_FROM))
                or (mine_derived and not mine_from)):
            out.append(j)
    return out


def holding(blocks, handles):
    cdef tuple items = _blocks_tuple(blocks)
    cdef bint exact = type(handles) is set or type(handles) is frozenset
    if not exact and not isinstance(handles, (set, frozenset)):
        raise TypeError(f"handles must be a set or frozenset, not {type(handles).__name__}")
    cdef Py_ssize_t i, k, n = len(items)
    cdef tuple names
    cdef list out = []
    for i in range(n):
        mine = _shape_field(items[i], HANDLES)
        if exact and type(mine) is tuple:
            names = <tuple>mine
            for k in range(len(names)):
                if names[k] in handles:
                    out.append(i)
                    break
        elif not handles.isdisjoint(mine):  # anything unusual: exactly as the reference
            out.append(i)
    return out


cdef inline int _add_position(dict groups, object key, Py_ssize_t j) except -1:
    """Append position ``j`` to ``key``'s list in ``groups`` (a new list for a new key)."""
    positions = groups.get(key)
    if positions is None:
        groups[key] = [j]
    else:
        (<list>positions).append(j)
    return 0


def by_provenance(blocks):
    cdef tuple items = _blocks_tuple(blocks)
    cdef Py_ssize_t j, n = len(items)
    cdef dict groups = {}
    for j in range(n):
        block = items[j]
        for h in _shape_field(block, DERIVED_FROM if _shape_field(block, DERIVED) else HANDLES):
            _add_position(groups, h, j)
    return groups


def by_resource(blocks):
    cdef tuple items = _blocks_tuple(blocks)
    cdef Py_ssize_t j, n = len(items)
    cdef dict groups = {}
    for j in range(n):
        resource = _shape_field(items[j], RESOURCE)
        if resource is not None:
            _add_position(groups, resource, j)
    return groups


def bad_derived(blocks):
    cdef tuple items = _blocks_tuple(blocks)
    cdef Py_ssize_t j, n = len(items)
    cdef list out = []
    for j in range(n):
        block = items[j]
        if _shape_field(block, DERIVED) and not _shape_field(block, DERIVED_FROM):
            out.append(j)
    return out
