"""How much do extracted facts see of the SummEdits edits? A report, not a test.

SummEdits rows pair a real document with an ``original_summary`` (consistent) and a
``summary`` that is either consistent (``label`` 1) or edited to be inconsistent (``label`` 0;
``edit_types`` says how). For each row this script extracts the fact tables of the summary,
the original summary and the document, and counts:

- **fact set changed**: the summary's set of ``(key, value)`` fingerprints differs from the
  original summary's. For ``entity_modification`` edits (label 0) that is a detection; for
  consistent summaries (label 1) it is the false-alarm side.
- **ungrounded**: summary facts (citation markers aside) that the document does not back,
  three ways, from strict to lenient:
  ``fact`` — the ``(key, value)`` fingerprint is not among the document's facts;
  ``value`` — the value fingerprint is not among the document's values or kv keys (how the
  gate first looks); ``text`` — and the literal (a quote's inside, else the span text) does not
  occur in the document text either (the gate's fallback).

Run:  PYTHONPATH=src python scripts/summedits_report.py [path/to/summedits_evaluation.jsonl]
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from provgate.facts import EXTRACTOR_VERSION, Kind, extract  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "testdata" / "summedits" / "summedits_evaluation.jsonl"


def fingerprint_set(fp: np.ndarray) -> set[tuple[int, int]]:
    return {(int(hi), int(lo)) for hi, lo in fp}


def main(path: Path) -> None:
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    doc_cache: dict[str, tuple] = {}
    changed = collections.Counter()  # (group) -> rows whose fact set changed
    totals = collections.Counter()
    ungrounded_rows = collections.Counter()  # (label, how) -> summaries with >= 1 ungrounded fact
    ungrounded_facts = collections.Counter()  # (label, how) -> facts
    facts_per_label = collections.Counter()
    ungrounded_kinds = collections.Counter()  # (label, kind) -> facts ungrounded by text
    changed_kinds = collections.Counter()  # kind -> entity_modification rows where that kind changed

    for r in rows:
        label = r["label"]
        summary = extract(r["summary"])
        original = extract(r["original_summary"])
        s_facts, o_facts = fingerprint_set(summary.fp_fact), fingerprint_set(original.fp_fact)
        is_change = s_facts != o_facts
        groups = []
        if label == 0 and "entity_modification" in r["edit_types"]:
            groups.append("label 0, entity_modification")
        if label == 0:
            groups.append("label 0, any edit")
        if label == 1:
            groups.append("label 1 (consistent)")
        for g in groups:
            totals[g] += 1
            changed[g] += is_change
        if is_change and "label 0, entity_modification" in groups:
            diff = s_facts ^ o_facts
            kinds = {
                Kind(int(t.kind[i])).name.lower()
                for t in (summary, original)
                for i in range(len(t))
                if (int(t.fp_fact[i, 0]), int(t.fp_fact[i, 1])) in diff
            }
            for k in kinds:
                changed_kinds[k] += 1

        doc = doc_cache.get(r["doc"])
        if doc is None:
            table = extract(r["doc"])
            kv = table.kind == Kind.KV
            vocab = fingerprint_set(np.concatenate([table.fp_value, table.fp_key[kv]]))
            doc = doc_cache[r["doc"]] = (fingerprint_set(table.fp_fact), vocab, r["doc"])
        doc_facts, doc_vocab, doc_text = doc
        counts = collections.Counter()
        for i in range(len(summary)):
            if summary.kind[i] == Kind.CITATION:
                continue
            facts_per_label[label] += 1
            f = (int(summary.fp_fact[i, 0]), int(summary.fp_fact[i, 1]))
            v = (int(summary.fp_value[i, 0]), int(summary.fp_value[i, 1]))
            if f in doc_facts:
                continue
            counts["fact"] += 1
            if v in doc_vocab:
                continue
            counts["value"] += 1
            span = summary.span(i)
            needle = span.value if span.kind == Kind.QUOTE else span.text
            if needle in doc_text:
                continue
            counts["text"] += 1
            ungrounded_kinds[(label, span.kind.name.lower())] += 1
        for how in ("fact", "value", "text"):
            ungrounded_facts[(label, how)] += counts[how]
            ungrounded_rows[(label, how)] += counts[how] > 0

    n_label = collections.Counter(r["label"] for r in rows)
    print(f"SummEdits evaluation split: {len(rows)} rows, extractor version {EXTRACTOR_VERSION}\n")
    print("Fact set of the summary differs from the original summary's")
    print(f"  {'rows':32} {'changed':>8} {'of':>5} {'share':>7}")
    for g in ("label 0, entity_modification", "label 0, any edit", "label 1 (consistent)"):
        print(f"  {g:32} {changed[g]:8d} {totals[g]:5d} {changed[g] / totals[g]:7.1%}")
    print("\n  kinds among the changed facts of detected entity_modification rows:")
    print("   ", ", ".join(f"{k} {v}" for k, v in changed_kinds.most_common()))

    print("\nSummary facts the document does not back (citation markers aside)")
    print(f"  {'':22} {'facts':>6} | {'summaries with >= 1 ungrounded':^36} | {'ungrounded facts':^26}")
    print(f"  {'':22} {'':>6} | {'by fact':>10} {'by value':>12} {'by text':>11} | {'by fact':>8} {'by value':>8} {'by text':>7}")
    for label, name in ((0, "label 0 (inconsistent)"), (1, "label 1 (consistent)")):
        cells = [ungrounded_rows[(label, how)] / n_label[label] for how in ("fact", "value", "text")]
        nf = [ungrounded_facts[(label, how)] for how in ("fact", "value", "text")]
        print(
            f"  {name:22} {facts_per_label[label]:6d} | {cells[0]:10.1%} {cells[1]:12.1%} {cells[2]:11.1%} |"
            f" {nf[0]:8d} {nf[1]:8d} {nf[2]:7d}"
        )
    for label in (0, 1):
        kinds = sorted(((k, v) for (lab, k), v in ungrounded_kinds.items() if lab == label), key=lambda kv: -kv[1])
        print(f"  ungrounded by text, label {label}: " + ", ".join(f"{k} {v}" for k, v in kinds))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DATA)
