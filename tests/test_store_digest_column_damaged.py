"""A put onto a source row whose digest column was damaged into another well-formed digest raises
StoreCorruptionError, as docs/store.md says, not HandleConflictError (red team 134, F06: the
conflict's advice, a new handle, let the damage go unnoticed). A real conflict on an intact row is
still HandleConflictError."""

from __future__ import annotations

from pathlib import Path

import pytest

from provgate.errors import HandleConflictError, StoreCorruptionError
from provgate.store import SourceStore

TEXT = "retries=3\ntimeout=30s\n"
HANDLE = "tool:call_8841"


def _stored(tmp_path):
    path = tmp_path / "db"
    with SourceStore(str(path)) as s:
        digest = s.put(HANDLE, TEXT)
    return path, digest


def _damage_digest_column(path: Path, digest: str) -> None:
    data = bytearray(path.read_bytes())
    hexd = digest.split(":")[1].encode()
    at = data.find(hexd, data.find(HANDLE.encode()))  # the sources row's copy of the digest
    assert at >= 0
    data[at + 10] = ord("0") if data[at + 10] != ord("0") else ord("1")
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["put", "put_many"])
def test_a_put_onto_a_damaged_digest_column_is_corruption(tmp_path, how):
    path, digest = _stored(tmp_path)
    _damage_digest_column(path, digest)
    with SourceStore(str(path)) as s:
        assert s.verify()  # the damage is there
        with pytest.raises(StoreCorruptionError, match=HANDLE):
            if how == "put":
                s.put(HANDLE, TEXT)
            else:
                s.put_many({HANDLE: TEXT, "tool:other": "x"})
        assert not s.resolves("tool:other")  # the batch was refused whole


@pytest.mark.parametrize("how", ["put", "put_many"])
def test_honest_control_different_content_on_an_intact_row_is_a_conflict(tmp_path, how):
    path, _ = _stored(tmp_path)
    with SourceStore(str(path)) as s:
        with pytest.raises(HandleConflictError):
            if how == "put":
                s.put(HANDLE, "retries=5\n")
            else:
                s.put_many({HANDLE: "retries=5\n"})
        assert s.put(HANDLE, TEXT) and s.verify() == []
