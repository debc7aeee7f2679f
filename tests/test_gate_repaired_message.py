"""Red team 131, F07: a refusal of figures re-paired with names (I2) names one pair of the trade,
and the same pair in every process and on both paths: the figures a name lost and gained were
read in the order of a set, which is the string hashes' of the process (PYTHONHASHSEED), so
native and reference (and two runs of one) named other pairs of one trade, verdicts equal. Each
check here runs in a child process with another hash seed, once with the native extensions and
once without (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[1] / "src")

# docker ps with the container ids swapped between the rows (c5.py's sw31): each id's figures
# (1.25 / 7.2, "2 h" / 1) are four, so the trade has several pairs it may name
DOCKER = ("CONTAINER ID   IMAGE        STATUS\n1a2b3c4d5e6f   nginx:1.25   Up 2 hours\n"
          "7f8e9d0c1b2a   redis:7.2    Exited (1)")
DOCKER_SWAPPED = ("CONTAINER ID   IMAGE        STATUS\n7f8e9d0c1b2a   nginx:1.25   Up 2 hours\n"
                  "1a2b3c4d5e6f   redis:7.2    Exited (1)")
# two names, each with three figures, swapped whole between the clauses
CLAUSES = "db-01 has 12 GB, 4 cores and 2 disks; db-02 has 34 GB, 8 cores and 6 disks."
CLAUSES_SWAPPED = "db-02 has 12 GB, 4 cores and 2 disks; db-01 has 34 GB, 8 cores and 6 disks."

CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from provgate import SourceStore
from provgate.gate import Gate
out = []
for before, after in json.loads(sys.stdin.read()):
    store = SourceStore(":memory:")
    store.put("tool:c1", before)
    block = lambda text: {"id": "t", "role": "tool", "text": text, "handles": ["tool:c1"]}
    verdict = Gate(store).check([block(before)], [block(after)], operator="rewrite")
    out.append([verdict.accepted, [[v.invariant, v.message] for v in verdict.violations]])
print(json.dumps(out))
"""


def _verdicts(cases: list[tuple[str, str]], seed: str, native: bool) -> list:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    env.pop("PROVGATE_NO_EXTENSIONS", None)
    if not native:
        env["PROVGATE_NO_EXTENSIONS"] = "1"
    done = subprocess.run([sys.executable, "-c", CHILD, SRC], input=json.dumps(cases), env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


LIES = [(DOCKER, DOCKER_SWAPPED), (CLAUSES, CLAUSES_SWAPPED)]
HONEST = [
    ("db-01 has 12 GB, 4 cores and 2 disks.", "db-01 has 12 GB, 4 cores and 2 disks."),
    (DOCKER, DOCKER.replace("   ", "  ")),  # realigned, each row kept
]


@pytest.fixture(scope="module")
def runs() -> dict[tuple[str, bool], list]:
    """Every case's verdict in a child process a hash seed and path (one child each: 6 in all)."""
    return {(seed, native): _verdicts(LIES + HONEST, seed, native) for seed in ("1", "2", "3")
            for native in (True, False)}


def test_a_re_paired_refusal_names_the_same_pair_in_every_process_and_on_both_paths(runs):
    first = runs[("1", True)]
    for (before, _), (accepted, violations) in zip(LIES, first):
        assert accepted is False, before
        assert any(inv == "I2" and "re-paired the figures" in msg for inv, msg in violations), violations
    for key, verdicts in runs.items():
        assert verdicts[:len(LIES)] == first[:len(LIES)], key


def test_the_honest_controls_are_accepted_in_every_process(runs):
    for key, verdicts in runs.items():
        for (before, _), (accepted, violations) in zip(HONEST, verdicts[len(LIES):]):
            assert accepted is True and violations == [], (key, before, violations)
