"""The README's first command runs examples/end_to_end.py; it must keep working."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_end_to_end_example_runs_and_reports_success():
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "end_to_end.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for reason in ("span_mismatch", "out_of_range", "unknown_handle", "nominal"):
        assert f"reason={reason}" in out
    assert "'retries=3'" in out
    # the gate, compaction, citation checks and report stages
    assert "changed retries=3 to retries=5: REJECTED" in out
    assert "I4: silent merge" in out
    assert "I3: block 's1' (derived_from) references 'tool:call_9999'" in out
    assert "keeping the newer read with a supersedes edge: accepted" in out
    assert "gate: accepted (lossy)" in out and "linked blocks byte-identical and pinned: True" in out
    assert "presence 100%, accuracy 67%" in out and "not_found  'keep retries at 5'" in out
    assert "session example" in out
    assert "every step behaved as described" in out
