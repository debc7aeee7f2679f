"""Helpers shared by the store tests: snapshots, raw SQLite access, on-disk corruption,
and the worker bodies of the multi-process tests (importable, so spawn can run them)."""

from __future__ import annotations

import functools
import os
import random
import sqlite3
import threading
import traceback
from contextlib import contextmanager
from pathlib import Path

from provgate.store import SourceStore


def snapshot(store: SourceStore) -> tuple[list[str], int, dict[str, str]]:
    """Everything a failed operation must leave untouched."""
    handles = list(store)
    return handles, len(store), {h: store.digest(h) for h in handles}


def raw_query(path: str | Path, sql: str, params: tuple = ()) -> list[tuple]:
    conn = sqlite3.connect(str(path))
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def row_counts(path: str | Path) -> dict[str, int]:
    """The rows of every table of a store file: a failed operation must leave them as they were."""
    return {t: raw_query(path, f"SELECT count(*) FROM {t}")[0][0] for t in ("content", "sources", "audit", "fact_cache")}


def version_1_store(path, records: list[bytes], digests: list[str] | None = None, *, handle: str = "tool:a") -> None:
    """A store as provgate's schema version 1 wrote it (no session column), holding
    ``records`` as audit records (under ``digests``, by default their own) and one source,
    ``retries=3`` under ``handle``."""
    from provgate.digests import compute_digest
    from provgate.store import _SCHEMA_V1, APPLICATION_ID

    conn = sqlite3.connect(str(path), isolation_level=None)
    try:
        conn.execute("BEGIN")
        for statement in _SCHEMA_V1:
            conn.execute(statement)
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute("PRAGMA user_version = 1")
        body = b"retries=3\n"
        conn.execute("INSERT INTO content VALUES (?, ?, ?)", (compute_digest(body), len(body), body))
        conn.execute("INSERT INTO sources (handle, digest) VALUES (?, ?)", (handle, compute_digest(body)))
        for k, data in enumerate(records):
            digest = digests[k] if digests is not None else compute_digest(data)
            conn.execute("INSERT INTO audit (record, digest) VALUES (?, ?)", (data, digest))
        conn.execute("COMMIT")
    finally:
        conn.close()


def integrity(path: str | Path) -> list[str]:
    return [row[0] for row in raw_query(path, "PRAGMA integrity_check")]


def flip_byte_after(path: str | Path, marker: bytes, skip: int = 0) -> int:
    """Flip one byte of the store file, ``skip`` bytes after the unique ``marker``.

    The store must be closed (so the WAL was checkpointed into the file). Returns the offset.
    """
    data = bytearray(Path(path).read_bytes())
    at = data.find(marker)
    assert at >= 0, "marker not found in the store file"
    assert data.find(marker, at + 1) < 0, "marker is not unique in the store file"
    offset = at + skip
    data[offset] ^= 0x01
    Path(path).write_bytes(bytes(data))
    return offset


def repoint_index_entry(path: str | Path, index: str, key: bytes, rowid: int) -> None:
    """Make the entry of ``key`` in ``index`` lead to row ``rowid`` instead: one byte of one index
    cell, the damage red team 50 (f01) made, which SQLite's reads do not notice.

    The store must be closed; the index must fit in its root page, and its entries' rowids and
    ``rowid`` must be small (each a one-byte integer in the cell, right after the key's bytes:
    a key of several columns is their bytes one after the other)."""
    offset = _index_key_offset(path, index, key) + len(key)
    data = bytearray(Path(path).read_bytes())
    assert 1 < data[offset] < 0x80 and 1 <= rowid < 0x80, "the entry's rowid is not a one-byte integer"
    data[offset] = rowid
    Path(path).write_bytes(bytes(data))


def change_index_key(path: str | Path, index: str, key: bytes, at: int, byte: bytes) -> None:
    """Replace byte ``at`` of the entry of ``key`` in ``index`` with ``byte``: a damaged key, which
    SQLite returns to a lookup that reads the column from the index (red team 81, F08). The same
    conditions as :func:`repoint_index_entry`."""
    offset = _index_key_offset(path, index, key) + at
    data = bytearray(Path(path).read_bytes())
    data[offset] = byte[0]
    Path(path).write_bytes(bytes(data))


def _index_key_offset(path: str | Path, index: str, key: bytes) -> int:
    """The offset in the file of ``key``, once in the root page of ``index`` (checkpointed first)."""
    conn = sqlite3.connect(str(path))
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (index,)).fetchone()
        (page_size,) = conn.execute("PRAGMA page_size").fetchone()
    finally:
        conn.close()
    page = Path(path).read_bytes()[(root - 1) * page_size : root * page_size]
    at = page.find(key)
    assert at >= 0 and page.find(key, at + 1) < 0, "the key is not once in the index's root page"
    return (root - 1) * page_size + at


_ALPHABET = "abcdefghij retries=3 timeout_s=30 ü€𝄞\n\x00"
_BASE = "".join(random.Random(0).choices(_ALPHABET, k=65_536))


def content_for(handle: str) -> str:
    """Deterministic, varied content for a handle (sizes 0 B to ~600 KiB, multibyte and NUL
    characters), so a checker can regenerate exactly what a writer put."""
    rng = random.Random(handle)
    size = 150_000 if rng.random() < 0.04 else rng.choice([0, 1, 40, 300, 4096, 20_000])
    offset = rng.randrange(len(_BASE))
    body = (_BASE * (size // len(_BASE) + 2))[offset : offset + size]
    return f"{handle}|{body}"


SHARED_HANDLES = [f"doc:shared_{i}" for i in range(10)]


def concurrent_writer(store_path: str, worker: int, threads: int, per_thread: int, results) -> None:
    """Worker process: ``threads`` threads put records; report acknowledged puts and errors.

    With the fork start method the parent's open store object is reused (its connections were
    inherited); with spawn the worker opens its own.
    """
    store = _INHERITED_STORE if _INHERITED_STORE is not None and os.getpid() != _INHERITED_PID else None
    own = store is None
    if own:
        store = SourceStore(store_path)
    acked: list[tuple[str, str]] = []
    errors: list[str] = []
    lock = threading.Lock()

    def run(t: int) -> None:
        try:
            for i in range(per_thread):
                handle = f"tool:w{worker}_t{t}_{i}"
                digest = store.put(handle, content_for(handle), kind="tool_output", ts=float(i))
                with lock:
                    acked.append((handle, digest))
                if i % 10 == 0:  # identical puts from every worker: must all be no-ops
                    shared = SHARED_HANDLES[i // 10 % len(SHARED_HANDLES)]
                    with lock:
                        acked.append((shared, store.put(shared, content_for(shared))))
                if i % 25 == 0:
                    store.append_audit({"worker": worker, "thread": t, "i": i})
        except BaseException:  # noqa: BLE001 - reported to the parent, which fails the test
            with lock:
                errors.append(traceback.format_exc())

    pool = [threading.Thread(target=run, args=(t,)) for t in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    if own:
        store.close()
    results.put((worker, acked, errors))


_INHERITED_STORE: SourceStore | None = None
_INHERITED_PID: int | None = None


def set_inherited_store(store: SourceStore | None) -> None:
    """Make a parent's open store visible to fork-started workers."""
    global _INHERITED_STORE, _INHERITED_PID
    _INHERITED_STORE = store
    _INHERITED_PID = os.getpid() if store is not None else None


# -- read-only stores ---------------------------------------------------------------------------
#
# File permissions do not bind root (CAP_DAC_OVERRIDE), and CI may run as root or not. Two ways
# to see a read-only store, so that some variant runs everywhere:
#
# - read_only_connections: every connection the store opens is opened read-only by SQLite itself
#   (URI mode=ro), which fails writes with the same SQLITE_READONLY a read-only file gives. Runs
#   everywhere, as root too; it does not model a read-only directory.
# - run_where_permissions_bind: a real chmod, with a subprocess that permissions bind: run as it
#   is when not root, and as root under capsh with the DAC capabilities dropped. Only root
#   without capsh cannot do it (PERMISSIONS_DO_NOT_BIND says why that variant skips).

DROPPED_CAPABILITIES = "cap_dac_override,cap_dac_read_search,cap_fowner"


def read_only_connections(monkeypatch) -> None:
    """Open every file connection read-only at the SQLite level (URI ``mode=ro``)."""
    from urllib.parse import quote

    real = sqlite3.connect

    def connect(database, *args, **kwargs):
        if str(database) == ":memory:" or (kwargs.get("uri") and "mode=ro" in str(database)):
            return real(database, *args, **kwargs)
        if kwargs.get("uri"):  # (the store names a file store by its file: URI)
            return real(f"{database}{'&' if '?' in str(database) else '?'}mode=ro", *args, **kwargs)
        uri = "file:" + quote(os.path.abspath(os.fspath(database))) + "?mode=ro"
        return real(uri, *args, **dict(kwargs, uri=True))

    monkeypatch.setattr(sqlite3, "connect", connect)


# the statements a connection runs before it reads the file (store._connect): they succeed
_SETUP_PRAGMAS = ("PRAGMA foreign_keys", "PRAGMA trusted_schema", "PRAGMA cell_size_check", "PRAGMA recursive_triggers")
SQLITE_READONLY_DIRECTORY = 1544


def read_only_directory_connections(monkeypatch, code: int = SQLITE_READONLY_DIRECTORY,
                                    name: str = "SQLITE_READONLY_DIRECTORY") -> None:
    """Fail every statement that touches the file as SQLite fails it for a WAL store whose
    directory this process cannot write (it must create the -wal and -shm files even to read):
    an OperationalError with that extended code, which ``mode=ro`` cannot produce."""
    real = sqlite3.connect

    class Refusing(sqlite3.Connection):
        def execute(self, sql, *args):
            if not sql.startswith(_SETUP_PRAGMAS):
                exc = sqlite3.OperationalError("attempt to write a readonly database")
                exc.sqlite_errorcode, exc.sqlite_errorname = code, name
                raise exc
            return super().execute(sql, *args)

    monkeypatch.setattr(sqlite3, "connect", lambda db, *a, **k: real(db, *a, **dict(k, factory=Refusing)))


def full_disk_connections(monkeypatch) -> None:
    """Hold every file connection's database at the pages it has (``PRAGMA max_page_count``, which
    never goes below them), so that SQLite itself fails a write that needs a new page with
    SQLITE_FULL, "database or disk is full", as on a full disk."""
    real = sqlite3.connect

    def connect(database, *args, **kwargs):
        conn = real(database, *args, **kwargs)
        conn.execute("PRAGMA max_page_count = 1")
        return conn

    monkeypatch.setattr(sqlite3, "connect", connect)


def failing_commit_connections(monkeypatch, code: int = 778, name: str = "SQLITE_IOERR_WRITE") -> None:
    """Fail every COMMIT as SQLite fails one the disk refuses (an OperationalError with that
    extended code): the write's rows are in its transaction, and must not reach the file."""
    real = sqlite3.connect

    class Failing(sqlite3.Connection):
        def execute(self, sql, *args):
            if sql == "COMMIT":
                exc = sqlite3.OperationalError("disk I/O error" if code & 0xFF == 10 else "database or disk is full")
                exc.sqlite_errorcode, exc.sqlite_errorname = code, name
                raise exc
            return super().execute(sql, *args)

    monkeypatch.setattr(sqlite3, "connect", lambda db, *a, **k: real(db, *a, **dict(k, factory=Failing)))


def length_limited_connections(monkeypatch, limit: int) -> None:
    """Lower SQLite's limit on a row (SQLITE_LIMIT_LENGTH, 10^9 by default) on every connection, so
    that a row near the limit costs kilobytes, not a gigabyte."""
    real = sqlite3.connect

    def connect(database, *args, **kwargs):
        conn = real(database, *args, **kwargs)
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, limit)
        return conn

    monkeypatch.setattr(sqlite3, "connect", connect)


def permissions_bind_argv() -> list[str] | None:
    """The argv prefix under which file permissions bind a child process: ``[]`` when not root,
    capsh dropping the DAC capabilities when root, None when root without capsh."""
    import shutil

    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return []
    capsh = shutil.which("capsh")
    if capsh is None or not _capsh_drops(capsh):
        return None
    return [capsh, f"--drop={DROPPED_CAPABILITIES}", "--"]


@functools.cache
def _capsh_drops(capsh: str) -> bool:
    """Whether capsh may drop the capabilities here (it needs CAP_SETPCAP)."""
    import subprocess

    run = subprocess.run([capsh, f"--drop={DROPPED_CAPABILITIES}", "--", "-c", "exit 0"], capture_output=True,
                         timeout=60, check=False)
    return run.returncode == 0


PERMISSIONS_DO_NOT_BIND = ("running as root without a capsh that can drop cap_dac_override: file permissions do "
                           "not bind this process or its children, so a chmod cannot make a store read-only here; "
                           "the read_only_connections (mode=ro) and read_only_directory_connections variants "
                           "cover the behaviour")


def run_where_permissions_bind(argv: list[str], *, cwd: str | os.PathLike[str] | None = None, timeout: float = 120):
    """Run ``argv`` (a python command line) as a process that file permissions bind."""
    import shlex
    import subprocess

    import provgate

    prefix = permissions_bind_argv()
    assert prefix is not None, PERMISSIONS_DO_NOT_BIND
    command = [*prefix, "-c", "exec " + shlex.join(argv)] if prefix else argv
    # the provgate this test runs (the source tree's, whatever the cwd), found first
    here = os.path.dirname(os.path.dirname(os.path.abspath(provgate.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])))
    env.pop("PROVGATE_STORE", None)
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=timeout, env=env, check=False)


@contextmanager
def modes(*changes: tuple[str | os.PathLike[str], int]):
    """chmod each path for the block, and put every mode back after it (tmp_path cleanup, and a
    non-root test process, need a writable directory again)."""
    before = [(path, os.stat(path).st_mode & 0o7777) for path, _ in changes]
    try:
        for path, mode in changes:
            os.chmod(path, mode)
        yield
    finally:
        for path, mode in reversed(before):
            os.chmod(path, mode)
