"""Run the gate over every SummEdits evaluation row and print how its verdicts line up with the
human labels.

Each row becomes one ``summarize`` edit: the document is put in the store as ``doc:N``, ``pre``
is one tool block holding the document, ``post`` is one summary block derived from ``doc:N``.
A consistent summary (label 1) should be accepted, an inconsistent one (label 0) rejected.
The gate is lexical and model-free: it only sees grounded spans (numbers, names, identifiers,
quotes, ...) that occur in no source, so antonym swaps and negations are invisible to it by
design. Published balanced accuracy on the full benchmark, for comparison: GPT-4 0.821,
QAFactEval 0.655, SummaC 0.571, humans 0.909.

    PYTHONPATH=src python scripts/summedits_gate_report.py [--data PATH] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from provgate.gate import Gate
from provgate.store import SourceStore

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "testdata" / "summedits" / "summedits_evaluation.jsonl"
PUBLISHED = {"GPT-4": 0.821, "QAFactEval": 0.655, "SummaC": 0.571, "humans": 0.909}


def summary_edit(row_no: int, row: dict) -> tuple[str, list[dict], list[dict]]:
    handle = f"doc:{row_no}"
    pre = [{"id": "doc", "role": "tool", "text": row["doc"], "handles": [handle]}]
    post = [{"id": "summary", "role": "summary", "text": row["summary"], "derived": True, "derived_from": [handle]}]
    return handle, pre, post


def run(rows: list[dict]) -> dict:
    store = SourceStore(":memory:")
    gate = Gate(store, audit=False)
    confusion: Counter[tuple[int, bool]] = Counter()
    by_edit: dict[str, Counter[bool]] = defaultdict(Counter)
    by_domain: dict[str, Counter[tuple[int, bool]]] = defaultdict(Counter)
    reasons: Counter[str] = Counter()
    started = time.perf_counter()
    for i, row in enumerate(rows):
        handle, pre, post = summary_edit(i, row)
        store.put(handle, row["doc"])
        verdict = gate.check(pre, post, operator="summarize")
        label = int(row["label"])
        confusion[(label, verdict.accepted)] += 1
        by_domain[row["domain"]][(label, verdict.accepted)] += 1
        for kind in row["edit_types"] or ["(no edit type)"]:
            by_edit[kind][verdict.accepted] += 1
        for v in verdict.violations:
            reasons[f"{v.invariant}:{v.key}"] += 1
    elapsed = time.perf_counter() - started
    return {"confusion": confusion, "by_edit": by_edit, "by_domain": by_domain, "reasons": reasons,
            "seconds": elapsed, "rows": len(rows)}


def balanced_accuracy(confusion: Counter) -> tuple[float, float, float]:
    """(balanced accuracy, recall of consistent = accepted|1, recall of inconsistent = rejected|0)."""
    pos = confusion[(1, True)] + confusion[(1, False)]
    neg = confusion[(0, True)] + confusion[(0, False)]
    tpr = confusion[(1, True)] / pos if pos else float("nan")
    tnr = confusion[(0, False)] / neg if neg else float("nan")
    return (tpr + tnr) / 2, tpr, tnr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    result = run(rows)
    c = result["confusion"]
    bacc, tpr, tnr = balanced_accuracy(c)
    if args.json:
        print(json.dumps({
            "rows": result["rows"],
            "confusion": {f"label{k[0]}_{'accepted' if k[1] else 'rejected'}": n for k, n in sorted(c.items())},
            "balanced_accuracy": bacc, "consistent_accepted": tpr, "inconsistent_rejected": tnr,
            "by_edit_type": {k: {"accepted": v[True], "rejected": v[False]} for k, v in sorted(result["by_edit"].items())},
            "by_domain": {d: balanced_accuracy(v)[0] for d, v in sorted(result["by_domain"].items())},
            "seconds": result["seconds"],
        }, indent=2))
        return 0
    print(f"SummEdits evaluation split: {result['rows']} rows, gate time {result['seconds']:.2f} s")
    print()
    print(f"{'':24}{'accepted':>10}{'rejected':>10}")
    print(f"{'label 1 (consistent)':24}{c[(1, True)]:>10}{c[(1, False)]:>10}")
    print(f"{'label 0 (inconsistent)':24}{c[(0, True)]:>10}{c[(0, False)]:>10}")
    print()
    print(f"balanced accuracy {bacc:.3f}  (consistent accepted {tpr:.3f}, inconsistent rejected {tnr:.3f})")
    print("published: " + ", ".join(f"{k} {v:.3f}" for k, v in PUBLISHED.items()))
    print()
    print("rejection rate by edit type (an inconsistent summary may carry several):")
    for kind, counts in sorted(result["by_edit"].items()):
        n = counts[True] + counts[False]
        print(f"  {kind:30} {counts[False]:>4}/{n:<4} rejected ({counts[False] / n:.1%})")
    print()
    print("balanced accuracy by domain:")
    for domain, conf in sorted(result["by_domain"].items()):
        print(f"  {domain:14} {balanced_accuracy(conf)[0]:.3f}")
    print()
    print("most frequent violations (invariant:key):")
    for reason, n in result["reasons"].most_common(8):
        print(f"  {reason:24} {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
