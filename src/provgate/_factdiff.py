"""Import switch for fact-table diffing (hot path 3); see ``provgate._factdiff_py`` for the spec."""

from provgate._switch import load

_impl, IMPLEMENTATION = load("factdiff", "_factdiff_py")

sort_fingerprints = _impl.sort_fingerprints
diff_sorted = _impl.diff_sorted
diff = _impl.diff
unique_counts = _impl.unique_counts
grounding_index = _impl.grounding_index
grounding_index_many = _impl.grounding_index_many
unique_inverse = _impl.unique_inverse
apply_delta = _impl.apply_delta
absent_from_all = _impl.absent_from_all
positions = _impl.positions
place_rows = _impl.place_rows
draw_rows = _impl.draw_rows
index_counts = _impl.index_counts
undrawn_values = _impl.undrawn_values
undrawn_values_of_kinds = _impl.undrawn_values_of_kinds
ungrounded_rows = _impl.ungrounded_rows
SortedFingerprints = _impl.SortedFingerprints

__all__ = ["IMPLEMENTATION", "SortedFingerprints", "absent_from_all", "apply_delta", "diff", "diff_sorted", "draw_rows", "grounding_index", "grounding_index_many", "index_counts", "place_rows", "positions", "sort_fingerprints", "undrawn_values", "undrawn_values_of_kinds", "ungrounded_rows", "unique_counts", "unique_inverse"]
