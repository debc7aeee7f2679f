"""A store object writes to the one file it opened, whatever happens to the working directory or
to the path afterwards.

Red team 134, F13: a relative path was made absolute again by every new connection, so after an
``os.chdir`` another thread's ``put`` was acknowledged into another directory's store (or made a
stray empty file there). Red team 134, F05: after the store file was deleted, renamed or replaced,
every write was acknowledged into a file nobody could open again."""

from __future__ import annotations

import os
import threading

import pytest

from provgate import Gate
from provgate.errors import StoreIOError
from provgate.store import SourceStore


def _in_thread(fn):
    out = {}

    def run():
        try:
            out["value"] = fn()
        except Exception as exc:  # noqa: BLE001 - handed back to the test
            out["error"] = exc

    t = threading.Thread(target=run)
    t.start()
    t.join()
    return out


def _block(handle, text):
    return [{"id": "b", "role": "tool", "text": text, "handles": [handle]}]


# ------------------------------------------------------------------ F13: relative path and chdir

def test_a_thread_put_after_chdir_goes_to_the_store_opened(tmp_path, monkeypatch):
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    monkeypatch.chdir(work)
    SourceStore("store.sqlite3").close()  # the workspace holds a store of that name too
    monkeypatch.chdir(home)
    s = SourceStore("store.sqlite3")
    try:
        s.put("tool:t1", "retries=3\n")
        monkeypatch.chdir(work)
        out = _in_thread(lambda: s.put("tool:t2", "timeout=30s\n"))
        assert "error" not in out, out
        assert s.resolves("tool:t2")
        assert s.path == "store.sqlite3"  # (the path as given is kept, for messages)
    finally:
        s.close()
    with SourceStore(str(home / "store.sqlite3"), read_only=True) as mine:
        assert sorted(mine) == ["tool:t1", "tool:t2"]
    with SourceStore(str(work / "store.sqlite3"), read_only=True) as theirs:
        assert list(theirs) == []


def test_a_thread_after_chdir_to_an_empty_directory_leaves_nothing_there(tmp_path, monkeypatch):
    home, other = tmp_path / "home", tmp_path / "other"
    home.mkdir()
    other.mkdir()
    monkeypatch.chdir(home)
    with SourceStore("store.sqlite3") as s:
        monkeypatch.chdir(other)
        out = _in_thread(lambda: s.put("tool:t2", "timeout=30s\n"))
        assert "error" not in out, out
        assert s.get("tool:t2") == "timeout=30s\n"
    assert os.listdir(other) == []


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_a_forked_child_after_chdir_writes_the_store_opened(tmp_path, monkeypatch):
    home, other = tmp_path / "home", tmp_path / "other"
    home.mkdir()
    other.mkdir()
    monkeypatch.chdir(home)
    with SourceStore("store.sqlite3") as s:
        s.put("tool:t1", "x")
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 1
            try:
                os.chdir(other)
                s.put("tool:child", "from the child\n")
                code = 0
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert s.get("tool:child") == "from the child\n"
    assert os.listdir(other) == []


# ------------------------------------------------------------------ F05: the file deleted or replaced

def _remove_store_files(directory):
    for name in os.listdir(directory):
        os.remove(os.path.join(directory, name))


def test_a_put_after_the_file_was_deleted_is_refused(tmp_path):
    path = str(tmp_path / "agent.sqlite3")
    s = SourceStore(path)
    try:
        s.put("tool:t1", "retries=3\n")
        _remove_store_files(tmp_path)
        with pytest.raises(StoreIOError, match="deleted or renamed") as info:
            s.put("tool:t2", "timeout=30s\n")
        assert info.value.path == path
        with pytest.raises(StoreIOError):
            s.put_many([("tool:t3", "a"), ("tool:t4", "b")])
        with pytest.raises(StoreIOError):
            s.append_audit({"session": "S", "accepted": True})
        # another thread's new connection is refused as well
        out = _in_thread(lambda: s.put("tool:t5", "c"))
        assert isinstance(out.get("error"), StoreIOError), out
    finally:
        s.close()


def test_a_put_after_the_file_was_renamed_is_refused(tmp_path):
    path = tmp_path / "agent.sqlite3"
    with SourceStore(str(path)) as s:
        s.put("tool:t1", "retries=3\n")
        os.rename(path, tmp_path / "moved.sqlite3")
        with pytest.raises(StoreIOError, match="deleted or renamed"):
            s.put("tool:t2", "timeout=30s\n")


def test_a_put_after_the_file_was_replaced_is_refused(tmp_path):
    path = tmp_path / "agent.sqlite3"
    with SourceStore(str(path)) as s:
        s.put("tool:t1", "retries=3\n")
        with SourceStore(str(tmp_path / "new.sqlite3")) as other:
            other.put("tool:new", "n")
        os.replace(tmp_path / "new.sqlite3", path)
        with pytest.raises(StoreIOError, match="replaced by another file"):
            s.put("tool:t2", "timeout=30s\n")


def test_a_gate_check_after_the_file_was_deleted_is_refused(tmp_path):
    s = SourceStore(str(tmp_path / "agent.sqlite3"))
    try:
        s.put("tool:t2", "timeout=30s\n")
        _remove_store_files(tmp_path)
        g = Gate(s, session="S")
        with pytest.raises(StoreIOError):
            g.check(_block("tool:t2", "timeout=30s\n"), _block("tool:t2", "timeout=30s\n"), operator="rewrite")
    finally:
        s.close()


def test_honest_control_writes_to_an_untouched_store_are_acknowledged(tmp_path):
    path = str(tmp_path / "agent.sqlite3")
    with SourceStore(path) as s:
        s.put("tool:t1", "retries=3\n")
        s.put_many([("tool:t2", "a")])
        # another file coming and going beside it changes nothing
        (tmp_path / "other").write_text("x")
        os.remove(tmp_path / "other")
        out = _in_thread(lambda: s.put("tool:t3", "b"))
        assert "error" not in out, out
        v = Gate(s, session="S").check(_block("tool:t1", "retries=3\n"), _block("tool:t1", "retries=3\n"),
                                       operator="rewrite")
        assert v.accepted and v.cycle == 1
    with SourceStore(path, read_only=True) as s:
        assert sorted(s) == ["tool:t1", "tool:t2", "tool:t3"]
        assert len(list(s.iter_audit())) == 1
