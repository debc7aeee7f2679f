"""Where a read-only store error points (red team 134): F15, a store on a read-only mount was
"cannot open the store file" (InvalidArgumentError, the CLI's bad_store), not StoreReadOnlyError
saying the file system is read-only; F12, through a symlink, the read-only directory named was the
link's, not the target's, beside which SQLite makes the -wal and -shm. A read-only mount needs
root to make, so SQLite's refusal and the mount's flag are simulated here."""

from __future__ import annotations

import sqlite3

import pytest
from store_helpers import read_only_directory_connections

import provgate.store as store_mod
from provgate.errors import InvalidArgumentError, StoreReadOnlyError
from provgate.store import SourceStore


def _cantopen_connections(monkeypatch):
    def connect(*args, **kwargs):
        exc = sqlite3.OperationalError("unable to open database file")
        exc.sqlite_errorcode, exc.sqlite_errorname = 14, "SQLITE_CANTOPEN"
        raise exc

    monkeypatch.setattr(sqlite3, "connect", connect)


def test_a_store_on_a_read_only_mount_is_a_read_only_store(tmp_path, monkeypatch):
    path = tmp_path / "db"
    SourceStore(str(path)).close()
    _cantopen_connections(monkeypatch)
    monkeypatch.setattr(store_mod, "_read_only_mount", lambda directory: directory == str(tmp_path))
    for read_only in (False, True):
        with pytest.raises(StoreReadOnlyError, match="mounted read-only") as info:
            SourceStore(str(path), read_only=read_only)
        assert info.value.directory is True and info.value.path == str(path)


def test_honest_control_cantopen_on_a_writable_mount_is_still_the_path(tmp_path, monkeypatch):
    path = tmp_path / "db"
    SourceStore(str(path)).close()
    assert not store_mod._read_only_mount(str(tmp_path))  # (the real check: tmp is writable)
    _cantopen_connections(monkeypatch)
    with pytest.raises(InvalidArgumentError) as info:
        SourceStore(str(path))
    assert not isinstance(info.value, StoreReadOnlyError) and "cannot open the store file" in str(info.value)


def test_a_read_only_directory_through_a_symlink_names_the_target_directory(tmp_path, monkeypatch):
    a, b = tmp_path / "A", tmp_path / "B"
    a.mkdir()
    b.mkdir()
    SourceStore(str(b / "db")).close()
    (a / "link").symlink_to("../B/db")
    read_only_directory_connections(monkeypatch)
    with pytest.raises(StoreReadOnlyError) as info:
        SourceStore(str(a / "link"), read_only=True)
    assert info.value.directory is True
    assert f"its directory {str(b)!r}" in str(info.value) and f"{str(a)!r}" not in str(info.value)


def test_honest_control_a_plain_path_names_its_own_directory(tmp_path, monkeypatch):
    SourceStore(str(tmp_path / "db")).close()
    read_only_directory_connections(monkeypatch)
    with pytest.raises(StoreReadOnlyError) as info:
        SourceStore(str(tmp_path / "db"), read_only=True)
    assert f"its directory {str(tmp_path)!r}" in str(info.value)
