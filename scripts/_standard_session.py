"""The standard edits on a session gate, for the scripts that compare two checkouts' gate code
(gate_phases.py: its time; gate_calls.py: its Python calls).

``standard_session(src)`` puts ``src``'s ``src/`` and this checkout's ``benchmarks/`` first on
``sys.path`` (so the other checkout's gate is the one imported), fills a temporary store with
the 200k-token window's sources and every edit's, and returns ``(edit_of, session_gate)``:
``edit_of(name)`` is the parsed edit (prune, rewrite, summarize, drift), ``session_gate(edit)``
a new gate that has committed the edit's pre window once, as ``test_session`` in
benchmarks/test_bench_gate.py does.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EDITS = ("prune", "rewrite", "summarize", "drift")


def standard_session(src: Path) -> tuple[Callable[[str], Any], Callable[[Any], Any]]:
    sys.path[:0] = [str(src / "src"), str(ROOT / "benchmarks")]

    from corpus import drift_edit, make_window, prune_edit, rewrite_edit, summarize_edit

    from provgate.gate import Gate
    from provgate.store import SourceStore
    from provgate.window import Edit, Window, parse_edit

    makers = dict(zip(EDITS, (prune_edit, rewrite_edit, summarize_edit, drift_edit)))
    window = make_window(200_000, seed=0)
    store = SourceStore(tempfile.mkdtemp() + "/store.sqlite3")
    for handle, text in window.sources.items():
        store.put(handle, text)
    for make in makers.values():
        for handle, text in make(window)["sources"].items():
            if handle not in window.sources:
                store.put(handle, text)

    def edit_of(name: str) -> Edit:
        obj = makers[name](window)
        obj.pop("sources")
        return parse_edit(obj)

    def session_gate(edit: Edit) -> Gate:
        earlier = Window([*edit.pre, {"id": "zz_prev", "role": "assistant", "text": "earlier remark, since pruned\n"}])
        gate = Gate(store, audit=False)
        assert gate.check_edit(Edit("prune", earlier, edit.pre, evicted=("zz_prev",))).accepted
        return gate

    return edit_of, session_gate
