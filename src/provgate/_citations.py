"""Import switch for the citation scanner; see ``provgate._citations_py`` for the spec."""

from provgate._switch import load

_impl, IMPLEMENTATION = load("citations", "_citations_py")

scan = _impl.scan
near_markers = _impl.near_markers
FORMS = _impl.FORMS

__all__ = ["FORMS", "IMPLEMENTATION", "near_markers", "scan"]
