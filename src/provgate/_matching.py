"""Import switch for source-fact matching (part of hot path 2); see ``provgate._matching_py``."""

from provgate._switch import load

_impl, IMPLEMENTATION = load("matching", "_matching_py")

collect = _impl.collect
denied_quotes = _impl.denied_quotes
occurs_at_boundaries = _impl.occurs_at_boundaries

__all__ = ["IMPLEMENTATION", "collect", "denied_quotes", "occurs_at_boundaries"]
