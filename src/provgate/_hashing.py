"""Import switch for bulk span hashing (hot path 1); see ``provgate._hashing_py`` for the spec."""

from provgate._switch import load

_impl, IMPLEMENTATION = load("hashing", "_hashing_py")

hash_spans = _impl.hash_spans
hash_buffers = _impl.hash_buffers

__all__ = ["IMPLEMENTATION", "hash_buffers", "hash_spans"]
