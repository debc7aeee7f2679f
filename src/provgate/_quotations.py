"""Import switch for the quotations a polarity rule asks; see ``provgate._quotations_py`` for the spec."""

from provgate._switch import load

_impl, IMPLEMENTATION = load("quotations", "_quotations_py")

asked_quotations = _impl.asked_quotations
asks_outside_code_spans = _impl.asks_outside_code_spans

__all__ = ["IMPLEMENTATION", "asked_quotations", "asks_outside_code_spans"]
