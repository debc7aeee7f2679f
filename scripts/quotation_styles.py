"""Generate answers that quote a source in every quotation style, check them end to end.

    python scripts/quotation_styles.py [--seed N] [--answers N] [--src TREE]

Each answer quotes a few words of a made-up source (words and numbers) inline (straight,
curly, single, German, French, Finnish, Swiss, Japanese quotation marks, backticks, with one
of the gaps docs/reconstruction.md allows before the marker), as a blockquote (nested or not)
or as a fenced block, and cites it with ``[src:…]``. Each answer is checked twice with
``verify_citations``: as written, and with one digit of the quote changed (or a word added).
Prints how many honest quotes were not graded exact (by what they got: ``bare``, a marker with
no quotation, which passes unchecked, or a grade) and how many drifted quotes passed (graded
exact, or a bare marker). Run it on two trees (``--src``) to compare scanners.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORDS = ["the", "retry", "limit", "is", "per", "hour", "after", "attempts", "worker", "started", "disk", "full", "on",
         "data", "config", "value", "timeout", "seconds", "users", "files"]  # fmt: skip
STYLES = [('"', '"'), ("\u201c", "\u201d"), ("\u00ab ", " \u00bb"), ("\u00bb", "\u00ab"), ("\u300c", "\u300d"), ("'", "'"),
          ("\u2018", "\u2019"), ("\u201e", "\u201c"), ("\u201a", "\u2019"), ("`", "`"), ("\u2039", "\u203a")]  # fmt: skip
GAPS = [" ", "", ". ", ", ", "; ", ": ", "\u00a0", "\u200b", " (", "! ", "\n", "\u3002", "\uff0c", "\u200f", " \u2014 ", "\u2026 ", " [src:other], ", " [src:other]; "]
LEADS = [
    "He said ",
    "",
    "Note: ",
    "(",
    "the log: ",
    "It's the users' view: ",
    "\u201cSee\u201d [src:zz] and ",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--answers", type=int, default=6000)
    parser.add_argument(
        "--src",
        type=Path,
        default=ROOT,
        help="the checkout whose src/ to run (default: this one)",
    )
    args = parser.parse_args()
    sys.path.insert(0, str(args.src / "src"))
    from provgate import SourceStore
    from provgate.reconstruct import verify_citations

    rnd = random.Random(args.seed)
    store = SourceStore(":memory:")
    missed: Counter[str] = Counter()
    passed_drifted = 0
    for i in range(args.answers):
        words = [
            str(rnd.randint(0, 999)) if rnd.random() < 0.25 else rnd.choice(WORDS)
            for _ in range(rnd.randint(20, 60))
        ]
        source, handle = " ".join(words), f"s{i}"
        store.put(handle, source)
        a = rnd.randrange(len(words))
        quote = " ".join(words[a : a + rnd.randint(1, 6)])
        kind, lead = rnd.random(), rnd.choice(LEADS)
        if kind < 0.7:  # the answer is before + quote + after
            (o, c), gap = rnd.choice(STYLES), rnd.choice(GAPS)
            before, after = f"{lead}{o}", f"{c}{gap}[src:{handle}]"
        elif kind < 0.85:
            before, after = rnd.choice(["> ", "> > ", ">> "]), f" [src:{handle}]"
        else:
            before, after = "```\n", f"\n```\n[src:{handle}]"
        digits = [k for k, ch in enumerate(quote) if ch.isdigit()]
        if digits:
            k = rnd.choice(digits)
            drifted = quote[:k] + str((int(quote[k]) + 1) % 10) + quote[k + 1 :]
        else:
            drifted = quote + "x"
        report = verify_citations(store, before + quote + after)
        mine = [c for c in report.citations if c.marker.name == handle]
        if not (len(mine) == 1 and mine[0].grade == "exact"):
            missed["bare" if not mine else mine[0].grade] += 1
        if drifted in source:
            continue
        report = verify_citations(store, before + drifted + after)
        mine = [c for c in report.citations if c.marker.name == handle]
        bare = [m for m in report.bare_markers if m.name == handle]
        if (mine and all(c.grade == "exact" for c in mine)) or (bare and not mine):
            passed_drifted += 1
    print(
        f"answers={args.answers} honest_not_exact={sum(missed.values())} {dict(missed)} drifted_passed={passed_drifted}"
    )


if __name__ == "__main__":
    main()
