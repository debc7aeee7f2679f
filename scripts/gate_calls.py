"""Count the Python calls of one session check of each standard edit, on a tree of your choice.

    python scripts/gate_calls.py [--src TREE]

Prints ``prune=N(A) rewrite=N(A) summarize=N(A) drift=N(R)``: the function calls cProfile
counts in one check of each edit (benchmarks/corpus.py, the 200k-token window) on a session
gate that has committed the edit's pre window, as ``test_session`` in
benchmarks/test_bench_gate.py does; A or R is the verdict. The counts do not move with the
machine's load, so they show what a change added to every check where timings cannot (a
generator over a window's blocks is hundreds of calls). Run it on two trees (``--src``) to
compare code; the counts can differ by a few dozen between runs of one tree (set and dict
orders of a fresh process).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, default=ROOT, help="the checkout whose src/ to count (default: this one)")
    args = parser.parse_args()
    sys.path[:0] = [str(args.src / "src"), str(ROOT / "benchmarks")]

    from corpus import drift_edit, make_window, prune_edit, rewrite_edit, summarize_edit

    from provgate.gate import Gate
    from provgate.store import SourceStore
    from provgate.window import Edit, Window, parse_edit

    makers = {"prune": prune_edit, "rewrite": rewrite_edit, "summarize": summarize_edit, "drift": drift_edit}
    window = make_window(200_000, seed=0)
    store = SourceStore(tempfile.mkdtemp() + "/store.sqlite3")
    for handle, text in window.sources.items():
        store.put(handle, text)
    for make in makers.values():
        for handle, text in make(window)["sources"].items():
            if handle not in window.sources:
                store.put(handle, text)

    def session_gate(edit: Edit) -> Gate:
        earlier = Window([*edit.pre, {"id": "zz_prev", "role": "assistant", "text": "earlier remark, since pruned\n"}])
        gate = Gate(store, audit=False)
        assert gate.check_edit(Edit("prune", earlier, edit.pre, evicted=("zz_prev",))).accepted
        return gate

    counts = []
    for name, make in makers.items():
        obj = make(window)
        obj.pop("sources")
        edit = parse_edit(obj)
        session_gate(edit).check_edit(edit)  # (the store's durable fact cache filled once)
        gate = session_gate(edit)
        profile = cProfile.Profile()
        profile.enable()
        verdict = gate.check_edit(edit)
        profile.disable()
        counts.append(f"{name}={pstats.Stats(profile).total_calls}({'A' if verdict.accepted else 'R'})")
    print(" ".join(counts))


if __name__ == "__main__":
    main()
