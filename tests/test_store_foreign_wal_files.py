"""A store whose -wal/-shm this process cannot write (another user's read-only open, provgate
report or verify, created them in a shared directory and SQLite kept them) is refused with an
error naming those files, not one that blames the store file, which is writable (red team 134,
F02). Permissions must bind the child process (capsh drops root's DAC capabilities)."""

from __future__ import annotations

import sqlite3
import sys

import pytest
from store_helpers import (
    PERMISSIONS_DO_NOT_BIND,
    modes,
    permissions_bind_argv,
    run_where_permissions_bind,
)

from provgate.store import SourceStore

PUT = ("from provgate.store import SourceStore\n"
       "from provgate.errors import StoreReadOnlyError\n"
       "try:\n"
       "    SourceStore({path!r}).put('tool:new', 'x')\n"
       "    print('put ok')\n"
       "except StoreReadOnlyError as e:\n"
       "    print('StoreReadOnlyError', e)\n")


def _store_with_wal_files(tmp_path):
    path = tmp_path / "db"
    with SourceStore(str(path)) as s:
        s.put("tool:a", "retries=3\n")
    # another user's read-only open creates them, and cannot remove them (a SourceStore of this
    # user removes the ones it made: they are made here as a connection of SQLite's own, mode=ro,
    # as one that may not write the file is)
    reader = sqlite3.connect(path.as_uri() + "?mode=ro", uri=True)
    reader.execute("SELECT count(*) FROM sources").fetchone()
    reader.close()
    assert (tmp_path / "db-wal").exists() and (tmp_path / "db-shm").exists()
    return path


def _put(path):
    return run_where_permissions_bind([sys.executable, "-c", PUT.format(path=str(path))])


def test_unwritable_wal_files_are_named(tmp_path):
    if permissions_bind_argv() is None:
        pytest.skip(PERMISSIONS_DO_NOT_BIND)
    path = _store_with_wal_files(tmp_path)
    with modes((tmp_path / "db-wal", 0o444), (tmp_path / "db-shm", 0o444)):
        r = _put(path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("StoreReadOnlyError"), r.stdout
    assert "db-shm" in r.stdout and "the file is writable by it" in r.stdout
    with SourceStore(str(path), read_only=True) as s:
        assert list(s) == ["tool:a"]


def test_honest_control_writable_wal_files_let_the_owner_write(tmp_path):
    if permissions_bind_argv() is None:
        pytest.skip(PERMISSIONS_DO_NOT_BIND)
    path = _store_with_wal_files(tmp_path)
    r = _put(path)
    assert r.returncode == 0 and r.stdout.strip() == "put ok", (r.stdout, r.stderr)


def test_a_read_only_store_file_is_still_blamed_on_the_file(tmp_path):
    if permissions_bind_argv() is None:
        pytest.skip(PERMISSIONS_DO_NOT_BIND)
    path = _store_with_wal_files(tmp_path)
    with modes((path, 0o444), (tmp_path / "db-wal", 0o444), (tmp_path / "db-shm", 0o444)):
        r = _put(path)
    assert r.stdout.startswith("StoreReadOnlyError") and "db-shm" not in r.stdout, r.stdout
