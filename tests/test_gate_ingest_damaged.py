"""An edit's inline source that the store already holds is acknowledged by the bytes on disk, as a
repeated put is (red team 134, F01: Gate._ingest compared digests only, so ``provgate check`` and
``Gate.check_edit`` acknowledged an inline source onto a damaged stored copy, exit 0, while
``put``/``put_many`` of the same source raised StoreCorruptionError)."""

from __future__ import annotations

import json

import pytest
from gate_helpers import audit_count, tool
from store_helpers import flip_byte_after

from provgate import Gate, cli, parse_edit
from provgate.errors import StoreCorruptionError
from provgate.store import SourceStore

TEXT = "retries=3\ntimeout=30s\n"
HANDLE = "tool:call_8841"


def _edit(sources):
    b = tool("b1", HANDLE, TEXT)
    return {"operator": "rewrite", "pre": [b], "post": [b], "sources": sources}


def _store(tmp_path, *, damaged):
    path = tmp_path / "db"
    with SourceStore(str(path)) as s:
        s.put(HANDLE, TEXT)
    if damaged:
        flip_byte_after(path, TEXT.encode(), skip=8)  # '3' -> '2' on disk
    return str(path)


def test_an_inline_source_onto_a_damaged_stored_copy_is_refused(tmp_path):
    with SourceStore(_store(tmp_path, damaged=True)) as s:
        with pytest.raises(StoreCorruptionError):  # what put does (the reference behaviour)
            s.put(HANDLE, TEXT)
        gate = Gate(s, session="S")
        with pytest.raises(StoreCorruptionError, match=HANDLE):
            gate.check_edit(parse_edit(json.dumps(_edit({HANDLE: TEXT}))))
        assert audit_count(s) == 0


def test_honest_control_an_inline_source_onto_an_intact_copy_is_accepted(tmp_path):
    with SourceStore(_store(tmp_path, damaged=False)) as s:
        v = Gate(s, session="S").check_edit(parse_edit(json.dumps(_edit({HANDLE: TEXT}))))
        assert v.accepted and v.cycle == 1
        assert s.get(HANDLE) == TEXT and audit_count(s) == 1


def test_the_command_line_exits_2_and_records_nothing(tmp_path, capsys):
    path = _store(tmp_path, damaged=True)
    edit = tmp_path / "e.json"
    edit.write_text(json.dumps(_edit({HANDLE: TEXT})))
    assert cli.main(["check", str(edit), "--store", path, "--session", "S"]) == 2
    err = json.loads(capsys.readouterr().err)["error"]
    assert err["type"] == "StoreCorruptionError" and HANDLE in err["message"]
    with SourceStore(path, read_only=True) as s:
        assert audit_count(s) == 0


def test_honest_control_the_command_line_accepts_an_intact_copy(tmp_path):
    path = _store(tmp_path, damaged=False)
    edit = tmp_path / "e.json"
    edit.write_text(json.dumps(_edit({HANDLE: TEXT})))
    assert cli.main(["check", str(edit), "--store", path, "--session", "S"]) == 0
    with SourceStore(path, read_only=True) as s:
        assert audit_count(s) == 1
