"""Time the gate's check of the standard edits, phase by phase, on a tree of your choice.

    python scripts/gate_phases.py [ROUNDS] [EDITS] [--src TREE]

Each round checks one edit (prune, rewrite, summarize, drift: benchmarks/corpus.py, the 200k
token window) on a new session gate that has committed the edit's pre window once, as
``test_session`` in benchmarks/test_bench_gate.py does; it prints the median and the minimum
of the check's wall time and the median of each phase (``Verdict.timings_ms``). Run it on two
trees in turn (``--src /path/to/other/checkout``), several times each, to compare code: one
run of each in a row says little on a shared machine.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from _standard_session import ROOT, standard_session


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rounds", nargs="?", type=int, default=30)
    parser.add_argument("edits", nargs="?", default="prune,rewrite,summarize,drift")
    parser.add_argument("--src", type=Path, default=ROOT, help="the checkout whose src/ to time (default: this one)")
    args = parser.parse_args()
    edit_of, session_gate = standard_session(args.src)

    for name in args.edits.split(","):
        edit = edit_of(name)
        times: list[float] = []
        phases: dict[str, list[float]] = {}
        for _ in range(args.rounds):
            gate = session_gate(edit)
            start = time.perf_counter()
            verdict = gate.check_edit(edit)
            times.append((time.perf_counter() - start) * 1e3)
            for phase, ms in verdict.timings_ms.items():
                phases.setdefault(phase, []).append(ms)
        print(f"{name} median {statistics.median(times):.2f} min {min(times):.2f}",
              " ".join(f"{phase}={statistics.median(ms):.2f}" for phase, ms in phases.items()))


if __name__ == "__main__":
    main()
