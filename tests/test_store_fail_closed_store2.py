"""Fail-closed leftovers of the store and the CLI (red team 134): commands that open a store
leave nothing beside it that was not there before (F02), sessions that cannot name one are
refused with an error that says what was given (F09b), and an interrupt after the commit says
exactly what is recorded and what stdout holds (F03)."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
from pathlib import Path

import pytest
from gate_helpers import store_state, tool
from store_helpers import modes, run_where_permissions_bind

from provgate import cli
from provgate.errors import InvalidArgumentError
from provgate.gate import Gate
from provgate.report import report_from_records, session_report
from provgate.store import SourceStore

CONF_H, CONF = "tool:a", "retries=3\n"
EDIT = {"format": "provgate.edit/1", "operator": "reorder", "pre": [tool("b1", CONF_H, CONF)],
        "post": [tool("b1", CONF_H, CONF)], "sources": {CONF_H: CONF}}


def listing(directory: Path) -> dict[str, str]:
    """Every name in the directory, with a digest of each file's bytes."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(directory.iterdir())}


def run(argv, capsys) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def store_dir(tmp_path) -> Path:
    """A directory holding a store (closed: no -wal or -shm beside it), and the inputs beside it."""
    d = tmp_path / "stores"
    d.mkdir()
    (tmp_path / "edit.json").write_text(json.dumps(EDIT))
    (tmp_path / "answer.txt").write_text('It said "retries=3" [src:a].\n')
    with SourceStore(d / "s.db") as store:
        Gate(store, session="S").check_edit(cli_edit(), commit=True)
    assert sorted(p.name for p in d.iterdir()) == ["s.db"]
    return d


def cli_edit():
    from provgate.window import parse_edit

    return parse_edit(json.dumps(EDIT).encode())


# F02: nothing left beside the store -----------------------------------------------------------

@pytest.mark.parametrize("command", ["verify", "report"])
def test_a_read_only_command_leaves_no_wal_or_shm_beside_a_store(store_dir, tmp_path, capsys, command):
    # the read-only open (mode=ro) created s.db-wal and s.db-shm and could not remove them
    before = listing(store_dir)
    argv = ["verify", tmp_path / "answer.txt"] if command == "verify" else ["report", "--session", "S"]
    code, _, err = run([*argv, "--store", store_dir / "s.db"], capsys)
    assert code in (0, 1), err
    assert listing(store_dir) == before


@pytest.mark.parametrize("command", ["verify", "report"])
def test_a_refused_foreign_wal_database_is_left_as_it_was(tmp_path, capsys, command):
    d = tmp_path / "other"
    d.mkdir()
    conn = sqlite3.connect(d / "app.db")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t(x)")
    conn.commit()
    conn.close()
    (tmp_path / "answer.txt").write_text("nothing quoted\n")
    before = listing(d)
    argv = ["verify", tmp_path / "answer.txt"] if command == "verify" else ["report"]
    code, _, err = run([*argv, "--store", d / "app.db"], capsys)
    assert code == 2 and "another application" in json.loads(err)["error"]["message"]
    assert listing(d) == before


def test_a_newer_schema_refused_read_only_is_left_as_it_was(store_dir, capsys):
    conn = sqlite3.connect(store_dir / "s.db")
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    before = listing(store_dir)
    code, _, err = run(["report", "--store", store_dir / "s.db"], capsys)
    assert code == 2 and json.loads(err)["error"]["type"] == "StoreSchemaError"
    assert listing(store_dir) == before


def test_honest_twin_a_read_only_open_keeps_the_files_of_a_writer_that_has_the_store_open(store_dir, capsys):
    # the files are removed only when no other connection has the store open: a writer's are
    # its own, and what it acknowledges after the reader closed stays durable
    with SourceStore(store_dir / "s.db") as writer:
        writer.put("tool:before", "one\n")
        code, _, err = run(["report", "--store", store_dir / "s.db", "--session", "S"], capsys)
        assert code == 0, err
        assert {"s.db-wal", "s.db-shm"} <= set(listing(store_dir))
        writer.put("tool:after", "two\n")
    with SourceStore(store_dir / "s.db", read_only=True) as reader:
        assert reader.get("tool:before") == "one\n" and reader.get("tool:after") == "two\n"
        assert reader.verify() == []
    assert sorted(listing(store_dir)) == ["s.db"]


def test_honest_twin_a_read_only_store_object_reads_what_a_later_writer_commits(store_dir):
    with SourceStore(store_dir / "s.db", read_only=True) as reader:
        assert len(list(reader.iter_audit())) == 1
        with SourceStore(store_dir / "s.db") as writer:
            writer.put("tool:new", "new\n")
        assert reader.get("tool:new") == "new\n"
    assert sorted(listing(store_dir)) == ["s.db"]
    with SourceStore(store_dir / "s.db", read_only=True) as again:
        assert again.get("tool:new") == "new\n"


def test_the_library_read_only_open_of_a_foreign_database_leaves_nothing(tmp_path):
    conn = sqlite3.connect(tmp_path / "app.db")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t(x)")
    conn.commit()
    conn.close()
    before = listing(tmp_path)
    from provgate.errors import StoreSchemaError

    with pytest.raises(StoreSchemaError):
        SourceStore(tmp_path / "app.db", read_only=True)
    assert listing(tmp_path) == before


def test_check_on_a_store_file_it_may_not_write_is_refused_before_opening_it(store_dir, tmp_path):
    # SQLite opened the file read-only, made the -wal and -shm, refused the audit record, and
    # left them: the message was right, the directory was not
    before = listing(store_dir)
    with modes((store_dir / "s.db", 0o444)):
        r = run_where_permissions_bind([sys.executable, "-m", "provgate", "check", str(tmp_path / "edit.json"),
                                        "--store", str(store_dir / "s.db")])
        assert r.returncode == 2, r.stderr
        e = json.loads(r.stderr)["error"]
        assert e["type"] == "read_only_store" and e["field"] == "--store" and "read-only" in e["message"]
        assert listing(store_dir) == before
        # honest twin: verify reads the read-only store
        r = run_where_permissions_bind([sys.executable, "-m", "provgate", "report", "--store",
                                        str(store_dir / "s.db"), "--session", "S"])
        assert r.returncode == 0, r.stderr


def test_honest_twin_check_on_a_writable_store_commits_and_leaves_only_the_store(store_dir, tmp_path, capsys):
    code, out, err = run(["check", tmp_path / "edit.json", "--store", store_dir / "s.db", "--session", "S"], capsys)
    assert code == 0 and json.loads(out)["accepted"] is True, err
    assert sorted(listing(store_dir)) == ["s.db"]


# F09b: sessions that cannot name a session ---------------------------------------------------

@pytest.mark.parametrize(("session", "said"), [
    (3, "not int 3"), (["S"], "not list ['S']"), (True, "not bool True"), (b"S", "not bytes b'S'"),
    ("", "an empty str"), ("a\x00b", "NUL"), ("\udc80", "lone surrogate U+DC80"),
    ("x" * 1_000_000, "1000000 characters long"),
])
def test_a_gate_refuses_a_session_saying_what_was_given_and_writes_nothing(store_dir, session, said):
    with SourceStore(store_dir / "s.db") as store:
        before = store_state(store)
        with pytest.raises(InvalidArgumentError) as info:
            Gate(store, session=session)
        assert info.value.argument == "session" and said in str(info.value)
        assert len(str(info.value)) < 300  # (a million characters are not echoed)
        assert store_state(store) == before


def test_honest_twin_a_gate_session_of_any_valid_text_is_recorded(store_dir):
    class Name(str):
        def __eq__(self, other):  # a subclass's own methods play no part in the record
            return True

        __hash__ = str.__hash__

    with SourceStore(store_dir / "s.db") as store:
        for name in ("naïve 𝄞 session", "x" * 256, Name("sub")):
            gate = Gate(store, session=name)
            assert type(gate.session) is str
            gate.check_edit(cli_edit(), commit=True)
            assert [r["session"] for _, r in store.iter_audit_of_session(str(name))] == [str(name)]


@pytest.mark.parametrize(("session", "said"), [
    (3, "got int 3"), (True, "got bool True"), ({"S": 1}, "got dict"),
    (["S", 3], "session[1] is int 3"), ([None, ""], "session[1] is an empty str"),
    (("S", ["T"]), "session[1] is list"),
])
def test_the_report_refuses_a_selection_naming_the_bad_item(session, said):
    records = [(1, {"session": "S", "cycle": 1, "accepted": True})]
    for report in (lambda: report_from_records(records, session=session),
                   lambda: session_report(_Records(records), session=session)):
        with pytest.raises(InvalidArgumentError) as info:
            report()
        assert info.value.argument == "session" and said in str(info.value), str(info.value)


def test_the_report_names_an_unknown_huge_session_without_echoing_it():
    records = [(1, {"session": "S", "cycle": 1, "accepted": True})]
    with pytest.raises(InvalidArgumentError) as info:
        report_from_records(records, session="x" * 1_000_000)
    assert "unknown session" in str(info.value) and len(str(info.value)) < 300
    with pytest.raises(InvalidArgumentError) as info:
        report_from_records(records, session=[f"s{i}" for i in range(10_000)])
    assert "and 9980 more" in str(info.value) and len(str(info.value)) < 1000
    # honest twin
    assert report_from_records(records, session=["S"]).sessions[0].session == "S"


class _Records:
    def __init__(self, records):
        self.records = records
        self.path = None

    def iter_audit(self):
        return iter(self.records)


@pytest.mark.parametrize("session", ["", "a\udc80"])
def test_the_cli_refuses_a_bad_session_before_the_store_is_touched(store_dir, tmp_path, capsys, session):
    before = listing(store_dir)
    code, out, err = run(["check", tmp_path / "edit.json", "--store", store_dir / "s.db", "--session", session],
                         capsys)
    e = json.loads(err)["error"]
    assert code == 2 and out == "" and e["field"] == "--session"
    assert listing(store_dir) == before


# F03: an interrupt after the commit --------------------------------------------------------------

def _audits(path: Path) -> int:
    with SourceStore(path, read_only=True) as store:
        return len(list(store.iter_audit()))


def _rejected_edit(tmp_path: Path) -> Path:
    edit = json.loads(json.dumps(EDIT))
    edit["operator"] = "rewrite"
    edit["post"] = [tool("b1", CONF_H, "retries=5\n")]
    path = tmp_path / "rejected.json"
    path.write_text(json.dumps(edit))
    return path


def test_a_sigint_during_the_commit_prints_the_whole_verdict_and_says_it_came_late(store_dir, tmp_path, capsys,
                                                                                  monkeypatch):
    # stdout was pointed at the null device and stderr said stdout "may not hold it whole", while
    # the check was complete, recorded, and stdout held none of it
    import signal

    from provgate import _staged

    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        monkeypatch.setattr(signal, "getsignal", lambda _sig: signal.default_int_handler)
    real_commit = _staged.StagedStore.commit

    def commit_interrupted(self, store):
        os.kill(os.getpid(), signal.SIGINT)  # (held: the handler main installed records it)
        return real_commit(self, store)

    monkeypatch.setattr(_staged.StagedStore, "commit", commit_interrupted)
    db = store_dir / "s.db"
    code, out, err = run(["check", _rejected_edit(tmp_path), "--store", db, "--session", "S"], capsys)
    assert code == 1, err
    assert json.loads(out)["accepted"] is False  # the whole verdict
    e = json.loads(err)["error"]
    assert e["type"] == "interrupted_after_commit" and e["reason"] == "interrupted"
    assert "recorded" in e["message"] and "stdout holds the whole verdict" in e["message"]
    assert _audits(db) == 2


class _CutRaw:
    """A file whose first write takes 100 bytes and whose second is cut by an interrupt."""

    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, view) -> int:
        if self.data:
            raise KeyboardInterrupt
        self.data += bytes(view[:100])
        return 100

    def flush(self) -> None:
        pass

    def fileno(self) -> int:
        raise OSError("no descriptor")


class _CutStdout:
    def __init__(self) -> None:
        self.buffer = type("Buffer", (), {"raw": _CutRaw(), "flush": lambda self: None})()

    def flush(self) -> None:
        pass

    def fileno(self) -> int:
        raise OSError("no descriptor")


def test_a_sigint_that_cuts_the_printing_says_how_much_stdout_took(store_dir, tmp_path, capsys, monkeypatch):
    db = store_dir / "s.db"
    stdout = _CutStdout()
    monkeypatch.setattr(sys, "stdout", stdout)
    code = cli.main(["check", str(_rejected_edit(tmp_path)), "--store", str(db), "--session", "S"])
    err = capsys.readouterr().err
    assert code == 1, err  # the verdict's: it is recorded
    e = json.loads(err)["error"]
    assert e["type"] == "stdout_failed" and e["reason"] == "interrupted"
    total = e["message"].split(" of its ")[1].split(" bytes")[0]
    assert "stdout took 100 of its" in e["message"] and int(total) > 100
    assert "is recorded" in e["message"] and "not the whole verdict" in e["message"]
    assert len(stdout.buffer.raw.data) == 100
    assert _audits(db) == 2


def test_honest_twin_an_uninterrupted_check_prints_the_verdict_and_nothing_on_stderr(store_dir, tmp_path, capsys):
    db = store_dir / "s.db"
    code, out, err = run(["check", _rejected_edit(tmp_path), "--store", db, "--session", "S"], capsys)
    assert code == 1 and err == "" and json.loads(out)["accepted"] is False
    assert _audits(db) == 2


def test_the_report_takes_a_str_subclass_session_as_its_characters():
    """Red team 137, F11: the report compared a str subclass with its own __eq__, so an id whose
    __eq__ always holds selected every session ('all'); it is read as its characters, alone or
    in a list, as the Gate reads it."""
    class Name(str):
        def __eq__(self, other):
            return True

        __hash__ = str.__hash__

    records = [(1, {"session": "S", "cycle": 1, "accepted": True}),
               (2, {"session": "T", "cycle": 1, "accepted": True})]
    for selection in (Name("S"), [Name("S")]):
        for report in (lambda: report_from_records(records, session=selection),
                       lambda: session_report(_Records(records), session=selection)):
            got = report().to_json()
            assert [s["session"] for s in got["sessions"]] == ["S"], got
    with pytest.raises(InvalidArgumentError, match="unknown session"):
        report_from_records(records, session=Name("U"))
