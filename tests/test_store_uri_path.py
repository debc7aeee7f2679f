"""A store path is a file name, never a URI (red team 122, F10): a path beginning ``file:`` was
opened by SQLite as a URI (this SQLite is built with SQLITE_USE_URI, which ``uri=False`` does not
stop), so ``SourceStore("file:notes.sqlite3")`` wrote ``notes.sqlite3``, the read-only open
(which names the literal path) found nothing, and a query (``?mode=memory``) reached SQLite."""

from __future__ import annotations

import json
import os

import pytest
from gate_helpers import tool

import provgate.cli as cli
from provgate.store import SourceStore


@pytest.mark.parametrize("name", ["file:notes.sqlite3", "file:m.sqlite3?mode=memory", "a?b#c%20d.sqlite3",
                                  "file:x.sqlite3?immutable=1"])
def test_the_store_written_is_the_file_named(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    with SourceStore(name) as st:
        st.put("tool:a", "retries=3\n")
    assert sorted(os.listdir(tmp_path)) == [name]  # (closed: no -wal or -shm left beside it)
    assert os.path.getsize(tmp_path / name) > 0
    with SourceStore(name, read_only=True) as st:
        assert st.get("tool:a") == "retries=3\n"
    with SourceStore(str(tmp_path / name)) as st:
        assert st.get("tool:a") == "retries=3\n" and st.verify() == []


def test_an_empty_literal_file_named_like_a_uri_is_the_store_made(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file:b.sqlite3").write_bytes(b"")
    with SourceStore("file:b.sqlite3") as st:
        st.put("tool:b", "x")
    assert sorted(os.listdir(tmp_path)) == ["file:b.sqlite3"] and os.path.getsize("file:b.sqlite3") > 0


def test_the_command_line_finds_the_store_it_wrote(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    b = tool("b", "tool:a", "retries=3\n")
    edit = tmp_path / "e.json"
    edit.write_text(json.dumps({"operator": "rewrite", "pre": [b], "post": [b], "sources": {"tool:a": "retries=3\n"}}))
    assert cli.main(["check", str(edit), "--store", "file:notes.sqlite3", "--create", "--session", "S"]) == 0
    assert cli.main(["check", str(edit), "--store", "file:notes.sqlite3", "--session", "S"]) == 0
    assert cli.main(["report", "--store", "file:notes.sqlite3", "--session", "S", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"cycles"' in out or "cycle" in out
    assert "notes.sqlite3" not in os.listdir(tmp_path)
