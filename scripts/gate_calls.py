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
from pathlib import Path

from _standard_session import EDITS, ROOT, standard_session


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, default=ROOT, help="the checkout whose src/ to count (default: this one)")
    args = parser.parse_args()
    edit_of, session_gate = standard_session(args.src)

    counts = []
    for name in EDITS:
        edit = edit_of(name)
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
