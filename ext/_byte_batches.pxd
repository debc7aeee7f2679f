# Gathering a batch of bytes objects for a loop without the GIL, shared by the modules that
# search many byte strings at once (search, matching). Called with the GIL held; the caller
# keeps ``items`` (a tuple of bytes) alive for as long as the addresses are used.
cimport numpy as cnp
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE

from _types cimport offset_t

import numpy as np


cdef inline bytes byte_data(object data):
    """``provgate._batch.bytes_like`` at C speed for bytes (the usual argument); anything
    else goes to it, so both implementations answer with one function."""
    if type(data) is bytes:
        return <bytes>data
    from provgate._batch import bytes_like  # (a .pxd's imports do not run)
    return bytes_like(data)


cdef inline tuple byte_items(object values, str name, bint non_empty):
    """``provgate._batch.check_byte_items`` at C speed, with its messages: ``values`` as a
    private tuple (its buffers outlive a loop without the GIL)."""
    cdef Py_ssize_t i
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"{name} must be a list or tuple of bytes, not {type(values).__name__}")
    cdef tuple items = tuple(values)
    for i in range(len(items)):
        value = items[i]
        if type(value) is not bytes:
            raise TypeError(f"{name}[{i}] must be bytes, not {type(value).__name__}")
        if non_empty and PyBytes_GET_SIZE(value) == 0:
            from provgate.errors import InvalidArgumentError  # (a .pxd's imports do not run)
            raise InvalidArgumentError(f"{name}[{i}] is empty; an empty needle occurs everywhere", argument=name)
    return items


cdef inline cnp.ndarray pointers_of(tuple items):
    """Addresses of the bytes objects' buffers, as uintp."""
    cdef Py_ssize_t k, n = len(items)
    cdef cnp.ndarray out = np.empty(n, dtype=np.uintp)
    cdef size_t* p = <size_t*>cnp.PyArray_DATA(out)
    for k in range(n):
        p[k] = <size_t>PyBytes_AS_STRING(items[k])
    return out


cdef inline cnp.ndarray lengths_of(tuple items):
    """Lengths of the bytes objects, as int64."""
    cdef Py_ssize_t k, n = len(items)
    cdef cnp.ndarray out = np.empty(n, dtype=np.int64)
    cdef offset_t* p = <offset_t*>cnp.PyArray_DATA(out)
    for k in range(n):
        p[k] = PyBytes_GET_SIZE(items[k])
    return out
