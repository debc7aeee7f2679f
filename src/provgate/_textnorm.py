"""Import switch for whitespace-normalised text equality; see ``provgate._textnorm_py`` for the spec."""

from provgate._switch import load

_impl, IMPLEMENTATION = load("textnorm", "_textnorm_py")

same_after_normalisation = _impl.same_after_normalisation
same_without_spaces = _impl.same_without_spaces
same_words = _impl.same_words

__all__ = ["IMPLEMENTATION", "same_after_normalisation", "same_without_spaces", "same_words"]
