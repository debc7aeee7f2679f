"""Import switch for the per-block passes over a window; see ``provgate._blockscan_py`` for the spec."""

from provgate._switch import load

_impl, IMPLEMENTATION = load("blockscan", "_blockscan_py")

SHAPE_FIELDS = _impl.SHAPE_FIELDS
block_texts = _impl.block_texts
texts_changed = _impl.texts_changed
same_shape_as = _impl.same_shape_as
same_blocks_as = _impl.same_blocks_as
provenance_changed = _impl.provenance_changed
stamps_changed = _impl.stamps_changed
holding = _impl.holding
holding_or_found_by_text = _impl.holding_or_found_by_text
matched_by_id = _impl.matched_by_id
by_provenance = _impl.by_provenance
by_resource = _impl.by_resource
bad_derived = _impl.bad_derived
window_blocks = _impl.window_blocks

__all__ = ["IMPLEMENTATION", "SHAPE_FIELDS", "bad_derived", "block_texts", "by_provenance", "by_resource", "holding", "holding_or_found_by_text", "matched_by_id", "provenance_changed", "same_blocks_as", "same_shape_as", "stamps_changed", "texts_changed", "window_blocks"]
