# ``groups`` / ``item_group`` of the native batch calls (provgate._batch.check_grouping):
# validated and flattened in C when they are valid and already in the usual types, which is
# every call the gate makes (a handful of numpy calls there cost more than a small batch's
# search). Anything else goes to the Python function, which raises with the message both
# implementations share, or converts.
cimport numpy as cnp

from _types cimport offset_t


cdef inline tuple checked_grouping(object groups, object item_group, Py_ssize_t n_items, Py_ssize_t n_members,
                                   str items, str members, str group_name):
    # imported here: a .pxd's module-level imports do not run in the module that cimports it
    from provgate._batch import check_grouping
    return check_grouping(groups, item_group, n_items, n_members, items=items, members=members,
                          group_name=group_name)


cdef inline tuple flat_grouping(object groups, object item_group, Py_ssize_t n_items, Py_ssize_t n_members,
                                str items, str members, str group_name):
    """``(offsets, member_index, item_group)`` as int64 arrays, as ``check_grouping``."""
    cdef Py_ssize_t g, i, k = 0, total = 0, n_groups, m
    cdef object group, member
    cdef cnp.ndarray offsets, flat, item_arr
    cdef offset_t* p_offsets
    cdef offset_t* p_flat
    cdef const offset_t* p_items
    if (groups is None or item_group is None or (type(groups) is not list and type(groups) is not tuple)
            or type(item_group) is not cnp.ndarray):
        return checked_grouping(groups, item_group, n_items, n_members, items, members, group_name)
    item_arr = item_group
    n_groups = len(groups)
    for g in range(n_groups):
        group = groups[g]
        if type(group) is not list and type(group) is not tuple:
            break
        total += len(group)
    else:
        if (cnp.PyArray_NDIM(item_arr) == 1 and cnp.PyArray_TYPE(item_arr) == cnp.NPY_INT64
                and cnp.PyArray_IS_C_CONTIGUOUS(item_arr) and cnp.PyArray_ISNOTSWAPPED(item_arr)
                and cnp.PyArray_DIMS(item_arr)[0] == n_items):
            offsets = cnp.PyArray_EMPTY(1, [n_groups + 1], cnp.NPY_INT64, 0)
            flat = cnp.PyArray_EMPTY(1, [total], cnp.NPY_INT64, 0)
            p_offsets = <offset_t*>cnp.PyArray_DATA(offsets)
            p_flat = <offset_t*>cnp.PyArray_DATA(flat)
            p_offsets[0] = 0
            for g in range(n_groups):
                for member in groups[g]:
                    if type(member) is not int:
                        break
                    try:
                        m = member
                    except OverflowError:
                        break
                    if m < 0 or m >= n_members:
                        break
                    p_flat[k] = m
                    k += 1
                else:
                    p_offsets[g + 1] = k
                    continue
                break
            else:
                p_items = <const offset_t*>cnp.PyArray_DATA(item_arr)
                for i in range(n_items):
                    if p_items[i] < 0 or p_items[i] >= n_groups:
                        break
                else:
                    return offsets, flat, item_arr
    return checked_grouping(groups, item_group, n_items, n_members, items, members, group_name)
