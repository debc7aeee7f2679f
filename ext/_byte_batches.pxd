# Gathering a batch of bytes objects for a loop without the GIL, shared by the modules that
# search many byte strings at once (search, matching). Called with the GIL held; the caller
# keeps ``items`` (a tuple of bytes) alive for as long as the addresses are used.
cimport numpy as cnp
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE

from _types cimport offset_t

import numpy as np


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
