"""Import switch for whitespace-normalised text equality; see ``provgate._textnorm_py`` for the spec."""

from provgate._switch import load

_impl, IMPLEMENTATION = load("textnorm", "_textnorm_py")

blank_before_line_break = _impl.blank_before_line_break
same_after_normalisation = _impl.same_after_normalisation
same_without_spaces = _impl.same_without_spaces
same_words = _impl.same_words

__all__ = ["IMPLEMENTATION", "blank_before_line_break", "same_after_normalisation", "same_without_spaces", "same_words"]
