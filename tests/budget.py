"""How many examples the heaviest property tests draw.

CI runs the whole suite within its time budget, so these defaults are what one CI run affords;
every CI run draws new examples, so coverage grows run by run. A stop's parity run draws more:
`PROVGATE_EXAMPLES_SCALE=5` multiplies the examples of every test that asks for `examples(n)`.
"""

from __future__ import annotations

import os

SCALE = float(os.environ.get("PROVGATE_EXAMPLES_SCALE", "1"))
if not SCALE > 0:
    raise ValueError(f"PROVGATE_EXAMPLES_SCALE must be a positive number, not {SCALE!r}")


def examples(n: int) -> int:
    """n examples at the default scale, at least one at any scale."""
    return max(1, round(n * SCALE))
