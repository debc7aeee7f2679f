"""Import switch for UTF-8 text sizes; see ``provgate._textsize_py`` for the spec."""

from provgate._switch import load

_impl, IMPLEMENTATION = load("textsize", "_textsize_py")

utf8_lengths = _impl.utf8_lengths

__all__ = ["IMPLEMENTATION", "utf8_lengths"]
