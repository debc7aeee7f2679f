"""Per-block passes over a window, native; the specification is ``provgate._blockscan_py``.

A ``Block`` is a slotted dataclass, so each field lives at a fixed offset in the object. The
offsets are read once, at import, from the class's member descriptors; a block whose type is
exactly ``Block`` is then read by pointer, with no attribute look-up and no tuple per block
(the reference's ``attrgetter`` does both, about 200 ns a block). Any other ``Block`` (a
subclass may override a field with a property) is read through ``getattr``, as the reference
reads it. These passes handle Python objects only, so they run with the GIL held.
"""

from types import MemberDescriptorType

from cpython.dict cimport PyDict_GetItem, PyDict_GetItemWithError, PyDict_SetItem
from cpython.float cimport PyFloat_FromDouble
from cpython.list cimport PyList_AsTuple, PyList_New, PyList_SET_ITEM
from cpython.long cimport PyLong_AsDouble
from cpython.object cimport (PyObject, PyObject_GenericSetAttr, PyObject_GetAttr, PyObject_RichCompareBool, Py_EQ,
                             Py_TYPE)
from cpython.ref cimport Py_INCREF
from cpython.set cimport PySet_Contains
from cpython.tuple cimport PyTuple_GET_ITEM
from libc.math cimport isfinite
from libc.string cimport memchr

from provgate._blockscan_py import (SHAPE_FIELDS, check_blocks, check_digest_list, check_match, check_parallel,
                                   check_position)
from provgate.window import _BLOCK_FIELDS, MAX_HANDLE_BYTES, MAX_ID_CHARS, MAX_TS, ROLES, Block, duplicate_id_error

__all__ = ["IMPLEMENTATION", "SHAPE_FIELDS", "bad_derived", "block_texts", "by_provenance", "holding",
           "holding_or_found_by_text", "matched_by_id", "provenance_changed", "same_blocks_as", "same_shape_as", "stamps_changed", "texts_changed",
           "window_blocks"]

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
    N_SHAPE = 8  # len(SHAPE_FIELDS), asserted below
    # the places in SHAPE_FIELDS of the id and the provenance fields
    ID = 0
    HANDLES = 1
    DERIVED = 2
    DERIVED_FROM = 3
    RESOURCE = 5
    TS = 6
    ROLE = 7

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
assert SHAPE_FIELDS[TS] == "ts" and SHAPE_FIELDS[ROLE] == "role"
_text_offset = _slot_offset("text")
cdef bint _shape_by_offset = True  # every shape field a plain slot (_same_shape reads them by pointer)
for _k in range(N_SHAPE):
    _shape_offsets[_k] = _slot_offset(SHAPE_FIELDS[_k])
    if _shape_offsets[_k] < 0:
        _shape_by_offset = False


cdef inline PyObject* _slot(object block, Py_ssize_t offset) noexcept:
    """The borrowed value of a Block slot (NULL if the slot is empty)."""
    return (<PyObject**>((<char*><PyObject*>block) + offset))[0]


cdef extern from *:
    """
    #define pg_prefetch(p) __builtin_prefetch((const void*)(p))
    """
    void prefetch "pg_prefetch"(const void* p) noexcept nogil

cdef enum:
    # how many blocks ahead a pass asks for a block's memory: the blocks of a window the
    # caller built a while ago are far apart and out of the CPU caches, and a pass that only
    # compares pointers would otherwise wait for each block in turn (texts_changed on a
    # 562-block window: ~70 us cold, ~11 us warm)
    PREFETCH_AHEAD = 8


cdef inline void _prefetch_block(PyObject* block) noexcept:
    """Ask for the first two cache lines of a block (its type and its first fields, the text
    among them); a hint only: it reads nothing and cannot fail."""
    prefetch(block)
    prefetch((<const char*>block) + 64)


cdef tuple _blocks_tuple(object blocks):
    """``blocks`` as a tuple (a list is copied: a getattr on a Block subclass could change
    it under the loop), every item checked to be a Block, with the reference's messages."""
    if type(blocks) is not tuple and type(blocks) is not list:
        check_blocks(blocks)  # raises for anything else that is not a tuple or list
    cdef tuple items = blocks if type(blocks) is tuple else tuple(blocks)
    cdef Py_ssize_t i, n = len(items)
    for i in range(min(n, PREFETCH_AHEAD)):
        _prefetch_block(PyTuple_GET_ITEM(items, i))
    for i in range(n):
        if i + PREFETCH_AHEAD < n:
            _prefetch_block(PyTuple_GET_ITEM(items, i + PREFETCH_AHEAD))
        if <PyObject*>Py_TYPE(items[i]) != _block_type_ptr and not isinstance(items[i], _block_type):
            check_blocks(items)  # raises, naming the item
    return items


cdef tuple _parallel_tuple(tuple blocks, object other, str name):
    if type(other) is not tuple and type(other) is not list:
        check_parallel(blocks, other, name)  # raises for anything that is not a tuple or list
    # the copy's length is the one the loops index by: a list subclass's __len__ may say one
    # thing and its __iter__ give another (red team 39, 04)
    cdef tuple copy = other if type(other) is tuple else tuple(other)
    if len(copy) != len(blocks):
        check_parallel(blocks, copy, name)  # raises, naming the argument
    return copy


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


cdef tuple _matched(object blocks, object match, object other):
    """(blocks, match, other) as tuples, every match entry vetted as None or an index of other."""
    cdef tuple items = _blocks_tuple(blocks)
    cdef tuple matched = _parallel_tuple(items, match, "match")
    cdef tuple others = _blocks_tuple(other)
    cdef Py_ssize_t j, n_other = len(others)
    cdef object bound = n_other  # (one int object for the loop's compares, not one per entry)
    for j in range(len(items)):
        entry = matched[j]
        if entry is not None and (type(entry) is not int or not 0 <= <object>entry < bound):
            check_match(matched, n_other)  # raises, naming the entry
    return items, matched, others


cdef enum:
    # what _changed compares between a block and its match
    PROVENANCE_CHANGED, STAMPS_CHANGED


cdef list _changed(object blocks, object match, object other, int what):
    """The positions of matched blocks that differ from their match as ``what`` says: see
    provenance_changed and stamps_changed."""
    cdef tuple items, matched, others
    items, matched, others = _matched(blocks, match, other)
    cdef Py_ssize_t j
    cdef list out = []
    for j in range(len(items)):
        entry = matched[j]
        if entry is None:
            continue
        block = items[j]
        theirs = others[<Py_ssize_t>entry]
        if what == PROVENANCE_CHANGED:
            mine_derived = _shape_field(block, DERIVED)
            mine_from = _shape_field(block, DERIVED_FROM)
            if (not _equal(_shape_field(block, HANDLES), _shape_field(theirs, HANDLES))
                    or not _equal(mine_derived, _shape_field(theirs, DERIVED))
                    or not _equal(mine_from, _shape_field(theirs, DERIVED_FROM))
                    or not _equal(_shape_field(block, ROLE), _shape_field(theirs, ROLE))
                    or (mine_derived and not mine_from)):
                out.append(j)
        else:
            if block is theirs or not _equal(_shape_field(block, ID), _shape_field(theirs, ID)):
                continue
            resource = _shape_field(block, RESOURCE)
            if not _equal(resource, _shape_field(theirs, RESOURCE)) or (
                    resource is not None and not _equal(_shape_field(block, TS), _shape_field(theirs, TS))):
                out.append(j)
    return out


def provenance_changed(blocks, match, other):
    return _changed(blocks, match, other, PROVENANCE_CHANGED)


def stamps_changed(blocks, match, other):
    return _changed(blocks, match, other, STAMPS_CHANGED)


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


def holding_or_found_by_text(blocks, handles, roles):
    cdef tuple items = _blocks_tuple(blocks)
    for name, value in (("handles", handles), ("roles", roles)):
        if not isinstance(value, (set, frozenset)):
            raise TypeError(f"{name} must be a set or frozenset, not {type(value).__name__}")
    cdef bint exact = ((type(handles) is set or type(handles) is frozenset)
                       and (type(roles) is set or type(roles) is frozenset))
    cdef Py_ssize_t i, k, n = len(items)
    cdef tuple names
    cdef list out = []
    for i in range(n):
        block = items[i]
        mine = _shape_field(block, HANDLES)
        if not exact or type(mine) is not tuple:  # anything unusual: exactly as the reference
            if not mine or _shape_field(block, ROLE) in roles or not handles.isdisjoint(mine):
                out.append(i)
            continue
        names = <tuple>mine
        if len(names) == 0 or PySet_Contains(roles, _shape_field(block, ROLE)) == 1:
            out.append(i)
            continue
        for k in range(len(names)):
            if PySet_Contains(handles, names[k]) == 1:
                out.append(i)
                break
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


# ---- a window's blocks from JSON objects ----------------------------------------------------------

cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object)
    Py_ssize_t PyUnicode_GET_LENGTH(object)
    void* PyUnicode_DATA(object)
    void PyObject_GC_UnTrack(void*)
    ctypedef struct PyTypeObject
    object PyType_GenericAlloc(PyTypeObject* type, Py_ssize_t nitems)

cdef enum:
    N_FIELDS = 9  # len(_BLOCK_FIELDS), asserted below

# byte offsets of every field of a Block in _BLOCK_FIELDS order; all >= 0, or blocks are made
# through object.__setattr__ (as the reference makes them)
cdef Py_ssize_t _field_offsets[N_FIELDS]
cdef bint _by_offset = True
cdef tuple _field_names = tuple(_BLOCK_FIELDS)
cdef object _roles = ROLES
cdef Py_ssize_t _max_id = MAX_ID_CHARS, _max_handle = MAX_HANDLE_BYTES
cdef object _empty = ()
assert len(_BLOCK_FIELDS) == N_FIELDS and type(ROLES) is frozenset
# a Block is made as object.__new__ makes it (the type's allocation; neither __new__ nor __init__ runs)
assert Block.__new__ is object.__new__
for _k in range(N_FIELDS):
    _field_offsets[_k] = _slot_offset(_BLOCK_FIELDS[_k])
    if _field_offsets[_k] < 0:
        _by_offset = False


cdef inline bint _plain_name(object value, Py_ssize_t limit) noexcept:
    """An exact, non-empty ASCII str of at most ``limit`` characters without NUL: a valid id or
    handle (ASCII has no surrogate, and its UTF-8 length is its length)."""
    if type(value) is not str or not PyUnicode_IS_ASCII(value):
        return False
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(value)
    return 0 < n <= limit and memchr(PyUnicode_DATA(value), 0, n) == NULL


cdef object _plain_handles(PyObject* value):
    """A JSON list or tuple of plain handles as a tuple (``()`` when absent: the default);
    ``False`` when the value needs the reference's checks."""
    if value == NULL:
        return _empty
    cdef object seq = <object>value
    cdef Py_ssize_t k, n
    if type(seq) is list:
        n = len(<list>seq)
        for k in range(n):
            if not _plain_name((<list>seq)[k], _max_handle):
                return False
        handles = PyList_AsTuple(seq)
        PyObject_GC_UnTrack(<PyObject*>handles)  # strings only: it can be in no reference cycle
        return handles
    if type(seq) is tuple:
        n = len(<tuple>seq)
        for k in range(n):
            if not _plain_name((<tuple>seq)[k], _max_handle):
                return False
        return seq
    return False


cdef inline object _flag(PyObject* value):
    """A JSON boolean (False when absent), or None when it needs the reference's checks."""
    if value == NULL:
        return False
    if <object>value is True or <object>value is False:
        return <object>value
    return None


cdef double _TS_LIMIT = <double>MAX_TS  # 2**53, exactly a double


cdef object _plain_block(dict obj):
    """The Block ``Block.from_json(obj)`` makes when every field has its usual form (exact
    types, ASCII ids and handles, a float or int ts), else None: the caller then asks
    Block.from_json itself, which also raises the error of an invalid object."""
    cdef PyObject* p
    cdef double ts_value
    p = PyDict_GetItemWithError(obj, "id")
    if p == NULL or not _plain_name(<object>p, _max_id):
        return None
    block_id = <object>p
    p = PyDict_GetItemWithError(obj, "role")
    if p == NULL or type(<object>p) is not str or PySet_Contains(_roles, <object>p) != 1:
        return None
    role = <object>p
    p = PyDict_GetItemWithError(obj, "text")
    if p == NULL or type(<object>p) is not str:
        return None
    text = <object>p
    handles = _plain_handles(PyDict_GetItemWithError(obj, "handles"))
    if handles is False:
        return None
    derived_from = _plain_handles(PyDict_GetItemWithError(obj, "derived_from"))
    if derived_from is False:
        return None
    derived = _flag(PyDict_GetItemWithError(obj, "derived"))
    pinned = _flag(PyDict_GetItemWithError(obj, "pinned"))
    if derived is None or pinned is None:
        return None
    p = PyDict_GetItemWithError(obj, "ts")
    if p == NULL or <object>p is None:
        ts = None
    elif type(<object>p) is float:
        # a stamp at or beyond +-2**53 (or not finite) is the reference's to judge: window.MAX_TS
        # (red team 49, F05)
        if not isfinite(<double><object>p) or not -_TS_LIMIT < <double><object>p < _TS_LIMIT:
            return None
        ts = <object>p
    elif type(<object>p) is int:
        ts_value = PyLong_AsDouble(<object>p)  # raises OverflowError beyond a double
        # an int beyond 2**53 rounds to a double no smaller than 2**53: such an int, and 2**53
        # itself, go to the reference, which compares the int as given (window.MAX_TS)
        if not -_TS_LIMIT < ts_value < _TS_LIMIT:
            return None
        ts = PyFloat_FromDouble(ts_value)
    else:
        return None
    p = PyDict_GetItemWithError(obj, "resource")
    if p == NULL or <object>p is None:
        resource = None
    elif _plain_name(<object>p, _max_handle):
        resource = <object>p
    else:
        return None
    block = PyType_GenericAlloc(<PyTypeObject*>_block_type, 0)  # object.__new__(Block), without the call
    values = (block_id, role, text, handles, derived, derived_from, pinned, ts, resource)
    cdef Py_ssize_t k
    cdef PyObject** slot
    for k in range(N_FIELDS):
        if _by_offset:
            slot = <PyObject**>((<char*><PyObject*>block) + _field_offsets[k])
            value = values[k]
            Py_INCREF(value)
            slot[0] = <PyObject*>value
        else:
            PyObject_GenericSetAttr(block, _field_names[k], values[k])
    # Its fields are strings, tuples of strings, bools, a float or None: the block can be in no
    # reference cycle, so the cycle collector need not track it. An agent's every edit builds
    # two windows of hundreds of blocks; tracked, they made the collector's passes (which
    # visit every tracked object that survived them) a third of a next edit's time.
    PyObject_GC_UnTrack(<PyObject*>block)
    return block


def window_blocks(items, str path):
    cdef list blocks = []
    cdef dict by_id = {}
    cdef Py_ssize_t i = 0
    cdef PyObject* first
    for item in items:
        block = None
        if type(item) is dict:
            try:
                block = _plain_block(<dict>item)
            except OverflowError:
                block = None  # an int ts beyond a float: the reference's message
        elif <PyObject*>Py_TYPE(item) == _block_type_ptr or isinstance(item, _block_type):
            block = item
        if block is None:
            block = Block.from_json(item, f"{path}[{i}]")
        block_id = _field(block, _field_offsets[0], "id")
        first = PyDict_GetItem(by_id, block_id)
        if first != NULL:
            raise duplicate_id_error(path, i, block_id, <object>first)
        PyDict_SetItem(by_id, block_id, i)
        blocks.append(block)
        i += 1
    return tuple(blocks), by_id


# ---- two windows compared block by block ---------------------------------------------------------

cdef bint _same_shape(object block, object theirs) except -1:
    cdef int k
    cdef PyObject* a
    cdef PyObject* b
    # two exact Blocks: an unchanged field is usually the very object in both (ids, flags, ts,
    # None), told by its pointer without a reference taken; any other pair is compared as
    # _equal compares it (a field read through _shape_field, which also raises for an empty slot)
    cdef bint by_slot = (_shape_by_offset and <PyObject*>Py_TYPE(block) == _block_type_ptr
                         and <PyObject*>Py_TYPE(theirs) == _block_type_ptr)
    for k in range(N_SHAPE):
        if by_slot:
            a = _slot(block, _shape_offsets[k])
            if a != NULL and a == _slot(theirs, _shape_offsets[k]):
                continue
        if not _equal(_shape_field(block, k), _shape_field(theirs, k)):
            return False
    return True


cdef bint _same_block(object block, object theirs) except -1:
    """Every field equal: slot by slot for two exact Blocks, else the dataclass's own == (a
    subclass, or an empty slot, for which == raises as the reference's would)."""
    cdef int k
    cdef PyObject* a
    cdef PyObject* b
    if _by_offset and <PyObject*>Py_TYPE(block) == _block_type_ptr and <PyObject*>Py_TYPE(theirs) == _block_type_ptr:
        for k in range(N_FIELDS):
            a = _slot(block, _field_offsets[k])
            b = _slot(theirs, _field_offsets[k])
            if a == NULL or b == NULL:
                break
            if not _equal(<object>a, <object>b):
                return False
        else:
            return True
    return PyObject_RichCompareBool(block, theirs, Py_EQ)


cdef bint _all_pairs_same(object blocks, object other, bint every_field) except -1:
    cdef tuple items = _blocks_tuple(blocks)
    cdef tuple others = _blocks_tuple(other)
    if len(others) != len(items):
        return False
    cdef Py_ssize_t i
    for i in range(len(items)):
        block = items[i]
        theirs = others[i]
        if block is theirs:
            continue
        if not (_same_block(block, theirs) if every_field else _same_shape(block, theirs)):
            return False
    return True


def same_shape_as(blocks, other):
    return _all_pairs_same(blocks, other, False)


def same_blocks_as(blocks, other):
    return _all_pairs_same(blocks, other, True)
