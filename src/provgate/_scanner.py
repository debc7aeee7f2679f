"""Import switch for grounded-span scanning (hot path 2); see ``provgate._scanner_py`` for the
specification and ``docs/grammar.md`` for the grammar."""

from provgate._switch import load

_impl, IMPLEMENTATION = load("scanner", "_scanner_py")

scan = _impl.scan
utf8_error_offset = _impl.utf8_error_offset
frame_facts = _impl.frame_facts
extract_columns = _impl.extract_columns
extract_columns_many = _impl.extract_columns_many
span_values = _impl.span_values
first_invalid_row = _impl.first_invalid_row
fold_digits = _impl.fold_digits

__all__ = ["IMPLEMENTATION", "extract_columns", "extract_columns_many", "first_invalid_row", "fold_digits", "frame_facts", "scan", "span_values", "utf8_error_offset"]
