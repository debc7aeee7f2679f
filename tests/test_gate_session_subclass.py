"""A Gate over a SourceStore subclass catches up with the session's other writers as over a plain
SourceStore (red team 134, F16: ``type(store) is SourceStore`` turned the catch-up off for every
subclass, so two workers of one session gave out the same cycle numbers and a pin one committed
was not seen by the other: a rewrite of the pinned turn was accepted). The CLI's StagedStore,
which reads the session's head itself, still says it does not sync."""

from __future__ import annotations

import pytest

from provgate import Gate
from provgate._staged import StagedStore
from provgate.store import SourceStore


class MeteredStore(SourceStore):
    """An integrator's store (metrics, logging): changes nothing."""


TOOL = {"id": "t", "role": "tool", "text": "retries=3\ntimeout=30s\n", "handles": ["tool:t"]}
TURN = {"id": "u", "role": "user", "text": "Never change the retry count.", "handles": ["user:u"]}


def _two_workers(tmp_path, cls):
    path = str(tmp_path / "db")
    a, b = cls(path), cls(path)
    a.put("tool:t", TOOL["text"])
    a.put("user:u", TURN["text"])
    return a, b


@pytest.mark.parametrize("cls", [SourceStore, MeteredStore])
def test_a_pin_committed_by_one_worker_binds_the_other(tmp_path, cls):
    a, b = _two_workers(tmp_path, cls)
    try:
        gb, ga = Gate(b, session="S"), Gate(a, session="S")
        v1 = ga.check([TOOL, TURN], [TOOL, dict(TURN, pinned=True)], operator="rewrite", commit=True)
        assert v1.accepted and v1.cycle == 1
        # the lie: worker B's compactor lost the flag and rewords the pinned turn
        v2 = gb.check([TOOL, TURN], [TOOL, dict(TURN, text="Do not change the retry count.")],
                      operator="rewrite", commit=True)
        assert not v2.accepted and "R" in {x.invariant for x in v2.violations}
        assert v2.cycle == 2
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize("cls", [SourceStore, MeteredStore])
def test_honest_control_the_other_worker_keeps_the_pinned_turn(tmp_path, cls):
    a, b = _two_workers(tmp_path, cls)
    try:
        gb, ga = Gate(b, session="S"), Gate(a, session="S")
        assert ga.check([TOOL, TURN], [TOOL, dict(TURN, pinned=True)], operator="rewrite", commit=True).accepted
        held = [TOOL, dict(TURN, pinned=True)]
        v2 = gb.check(held, held, operator="rewrite", commit=True)
        assert v2.accepted and v2.cycle == 2
        assert sorted(r["cycle"] for _, r in a.iter_audit()) == [1, 2]
    finally:
        a.close()
        b.close()


def test_the_staged_store_still_reads_the_head_itself(tmp_path):
    with SourceStore(str(tmp_path / "db")) as s:
        assert MeteredStore._gate_syncs_session is True and s._gate_syncs_session is True
        assert StagedStore(s)._gate_syncs_session is False
        assert Gate(MeteredStore(str(tmp_path / "db")))._tracks is True
        assert Gate(StagedStore(s))._tracks is False
