"""Citation markers: which stored handles a ``[src:NAME]`` marker cites.

``NAME`` is a handle when the store holds one by exactly that name (``[src:tool:call_8841]``);
otherwise it is a handle's name without its kind prefix, as in the seeds
(``[src:call_8841]`` cites ``tool:call_8841``). A name that matches handles of several kinds
is ambiguous: all of them are returned, so the caller can report it rather than pick one.
"""

from __future__ import annotations

from typing import Any


def marker_handles(store: Any, name: str) -> tuple[str, ...]:
    """The stored handles ``[src:NAME]`` cites: none, one, or several (ambiguous). A handle is
    stored when the store has a source row by that name, whether or not its bytes can still
    be read: a damaged source is cited, and reading it fails closed, rather than the marker
    silently naming another handle by the kind-prefix rule (red team 33, 02)."""
    return tuple(store.handles_cited_as(name))
