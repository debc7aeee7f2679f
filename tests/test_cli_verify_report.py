"""`provgate verify` and `provgate report` end to end: exit codes, output, unusable input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import provgate.cli as cli
from provgate.gate import Gate
from provgate.store import SourceStore

CONF = "endpoint=https://payments.internal.example.com/v3\nretries=3\ntimeout_s=30\n"
DOC = "The client must never retry more than three times per request.\n"


@pytest.fixture()
def store_path(tmp_path) -> Path:
    path = tmp_path / "store.sqlite3"
    with SourceStore(str(path)) as s:
        s.put("tool:call_8841", CONF)
        s.put("doc:doc_7", DOC)
    return path


def run(argv, capsys) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_verify_all_accurate_exits_0(tmp_path, store_path, capsys):
    answer = tmp_path / "a.txt"
    answer.write_text('It sets "retries=3" [src:call_8841]; "never retry more than three times" [src:doc_7].\n')
    code, out, err = run(["verify", "--store", store_path, answer], capsys)
    assert code == 0, err
    report = json.loads(out)
    assert report["totals"]["citations"] == 2 and report["totals"]["accurate"] == 2


def test_verify_high_presence_low_accuracy_exits_1(tmp_path, store_path, capsys):
    answer = tmp_path / "a.txt"
    # both markers name stored handles (presence 100%), one quote changed a number (accuracy 50%)
    answer.write_text('"retries=5" [src:call_8841] and "never retry more than three times" [src:doc_7]\n')
    code, out, _ = run(["verify", "--store", store_path, answer], capsys)
    totals = json.loads(out)["totals"]
    assert code == 1
    assert totals["presence_rate"] == 1.0 and totals["accuracy_rate"] == 0.5


def test_verify_lists_at_most_max_listed_entries_of_each_kind(tmp_path, store_path, capsys):
    """A citation's JSON is about 1 KB: an answer of 63 MB of citations printed 3 GB of it from
    24 GB of memory (red team 90, F07). verify lists 1,000 of each kind by default and counts the
    rest under ``omitted``; the totals and the exit code are of everything."""
    answer = tmp_path / "a.txt"
    answer.write_text('"retries=3" [src:call_8841] ' * 1500 + '"retries=5" [src:call_8841] [src:doc_7]\n')
    code, out, err = run(["verify", "--store", store_path, answer], capsys)
    report = json.loads(out)
    assert code == 1, err  # (the drifted last quotation is past the listed ones, and still fails the report)
    assert report["totals"]["citations"] == 1502 and report["totals"]["accurate"] == 1500
    assert len(report["citations"]) == 1000 and report["omitted"] == {"citations": 502}
    code, out, _ = run(["verify", "--store", store_path, "--max-listed", "2", answer], capsys)
    report = json.loads(out)
    assert code == 1 and len(report["citations"]) == 2 and report["omitted"] == {"citations": 1500}
    assert [c["quote"] for c in report["citations"]] == ["retries=3", "retries=3"]
    code, out, _ = run(["verify", "--store", store_path, "--max-listed", "all", answer], capsys)
    report = json.loads(out)
    assert len(report["citations"]) == 1502 and "omitted" not in report
    assert report["citations"][-1]["grade"] == "not_found"
    for bad in ("-1", "many"):
        with pytest.raises(SystemExit) as exited:
            run(["verify", "--store", store_path, "--max-listed", bad, answer], capsys)
        assert exited.value.code == 2


def test_verify_reads_stdin(store_path, capsys, monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'"retries=3" [src:call_8841]\n')))
    code, out, _ = run(["verify", "--store", store_path, "-"], capsys)
    assert code == 0 and json.loads(out)["totals"]["accurate"] == 1


@pytest.mark.parametrize("content, kind", [
    (b"\xff\xfe not utf-8", "InvalidContentError"),
])
def test_verify_unusable_answer_exits_2(tmp_path, store_path, capsys, content, kind):
    answer = tmp_path / "a.txt"
    answer.write_bytes(content)
    before = SourceStore(str(store_path)).verify()
    code, out, err = run(["verify", "--store", store_path, answer], capsys)
    assert code == 2 and out == ""
    assert json.loads(err)["error"]["type"] == kind
    assert SourceStore(str(store_path)).verify() == before


def test_verify_missing_store_or_answer_exits_2(tmp_path, store_path, capsys):
    answer = tmp_path / "a.txt"
    answer.write_text("x\n")
    code, _, err = run(["verify", "--store", tmp_path / "nope.sqlite3", answer], capsys)
    assert code == 2 and json.loads(err)["error"]["type"] == "missing_store"
    assert "--create" not in json.loads(err)["error"]["message"]  # (red team 33, 07)
    assert not (tmp_path / "nope.sqlite3").exists()
    code, _, err = run(["verify", "--store", store_path, tmp_path / "missing.txt"], capsys)
    assert code == 2 and json.loads(err)["error"]["type"] == "missing_input"


@pytest.mark.parametrize("command", [["verify"], ["report"], ["check"]])
def test_an_empty_file_as_the_store_is_refused_and_left_empty(tmp_path, capsys, command):
    # red team 3, H03: opening it wrote a provgate schema into it (verify and report only read)
    empty = tmp_path / "empty.sqlite3"
    empty.write_bytes(b"")
    answer = tmp_path / "a.txt"
    answer.write_text('{"operator": "prune", "pre": [], "post": []}' if command == ["check"] else "x\n")
    argv = [*command, "--store", empty] + ([] if command == ["report"] else [answer])
    if command == ["check"]:
        argv = ["check", answer, "--store", empty]
    code, _, err = run(argv, capsys)
    assert code == 2 and json.loads(err)["error"]["type"] == "missing_store"
    assert empty.read_bytes() == b""
    # only check has --create to point at (red team 33, 07: verify's hint named a flag it refuses)
    assert ("--create" in json.loads(err)["error"]["message"]) is (command == ["check"])


def test_verify_refuses_an_oversized_answer(tmp_path, store_path, capsys):
    answer = tmp_path / "a.txt"
    answer.write_bytes(b"x" * 2048)
    code, _, err = run(["verify", "--store", store_path, "--max-input-bytes", "1024", answer], capsys)
    assert code == 2 and json.loads(err)["error"]["type"] == "input_too_large"


def _gate_two_cycles(store_path: Path, session: str) -> None:
    with SourceStore(str(store_path)) as s:
        g = Gate(s, session=session)
        pre = [{"id": "t1", "role": "tool", "text": CONF, "handles": ["tool:call_8841"]}]
        assert g.check(pre, pre, operator="reorder").accepted
        drift = [dict(pre[0], text=CONF.replace("retries=3", "retries=5"))]
        assert not g.check(pre, drift, operator="rewrite").accepted


def test_report_table_and_json(store_path, capsys):
    _gate_two_cycles(store_path, "s1")
    code, out, _ = run(["report", "--store", store_path], capsys)
    assert code == 0 and "session s1" in out and "rewrite" in out and "rejected" in out
    code, out, _ = run(["report", "--store", store_path, "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["sessions"][0]["session"] == "s1"


def test_report_plot_writes_a_png(tmp_path, store_path, capsys):
    _gate_two_cycles(store_path, "s1")
    png = tmp_path / "curve.png"
    code, _, err = run(["report", "--store", store_path, "--plot", png], capsys)
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_unusable_input_exits_2(tmp_path, store_path, capsys):
    code, _, err = run(["report", "--store", store_path], capsys)  # no audit records yet
    assert code == 2 and json.loads(err)["error"]["type"] == "no_audit_records"
    _gate_two_cycles(store_path, "s1")
    code, _, err = run(["report", "--store", store_path, "--session", "nope"], capsys)
    assert code == 2 and json.loads(err)["error"]["type"] == "unknown_session"
    code, _, err = run(["report", "--store", tmp_path / "missing.sqlite3"], capsys)
    assert code == 2 and json.loads(err)["error"]["type"] == "missing_store"


@pytest.mark.parametrize("command", ["verify", "report"])
def test_help(command, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main([command, "--help"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith("usage: provgate " + command)


# -- a read-only store (red team 26, w03) --------------------------------------------------------
#
# verify and report only read: they work on a store this process may not write. A store in a
# read-only directory cannot be read at all (SQLite must create its -wal and -shm files): exit 2
# naming --store, not an internal_error.

ANSWER = 'The client retries "retries=3" [src:call_8841].\n'


def _read_only_argv(tmp_path, command: str) -> list:
    if command == "verify":
        answer = tmp_path / "answer.txt"
        answer.write_text(ANSWER, encoding="utf-8")
        return ["verify", answer]
    return ["report", "--json"]


def _assert_read_only_store_error(err: str, store, *, directory: bool) -> None:
    e = json.loads(err)["error"]
    assert e["type"] == "read_only_store" and e["field"] == "--store", e
    assert str(store) in e["message"] and "read-only" in e["message"] and "write access" in e["message"], e
    if directory:
        assert str(Path(store).parent) in e["message"], e


@pytest.mark.parametrize("command", ["verify", "report"])
def test_verify_and_report_read_a_read_only_store(tmp_path, store_path, capsys, monkeypatch, command):
    # as root too: SQLite opens the store read-only (mode=ro); the chmod variant is below
    from store_helpers import read_only_connections, row_counts

    _gate_two_cycles(store_path, "s1")
    before = row_counts(store_path)
    expected = run([*_read_only_argv(tmp_path, command), "--store", store_path], capsys)
    assert expected[0] == 0, expected
    read_only_connections(monkeypatch)
    assert run([*_read_only_argv(tmp_path, command), "--store", store_path], capsys) == expected
    monkeypatch.undo()
    assert row_counts(store_path) == before


@pytest.mark.parametrize("command", ["verify", "report"])
def test_verify_and_report_on_a_store_in_a_read_only_directory_exit_2_naming_store(tmp_path, store_path, capsys,
                                                                                 monkeypatch, command):
    # the extended code SQLite raises when it cannot create the -wal and -shm files, injected
    # (as root too)
    from store_helpers import read_only_directory_connections

    _gate_two_cycles(store_path, "s1")
    argv = [*_read_only_argv(tmp_path, command), "--store", store_path]
    read_only_directory_connections(monkeypatch)
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    _assert_read_only_store_error(err, store_path, directory=True)


_V1_RECORD = json.dumps({"session": "S", "cycle": 1, "accepted": True, "classification": "structural",
                         "operator": "reorder", "reclassified": False, "retention": None, "violations": [],
                         "violations_by_invariant": {}, "timings_ms": {"total": 1.0}}).encode()


@pytest.mark.parametrize("command", ["verify", "report"])
def test_verify_and_report_read_a_version_1_store_and_leave_it_byte_identical(tmp_path, capsys, command):
    # red team 82, F04: they upgraded it in place (schema 2, WAL mode, its audit records
    # updated), after which a provgate of version 1 could no longer append to it
    from store_helpers import raw_query, version_1_store

    store = tmp_path / "old.sqlite3"
    version_1_store(store, [_V1_RECORD])
    answer = tmp_path / "answer.txt"
    answer.write_text('It sets "retries=3" [src:a].\n', encoding="utf-8")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    argv = ["verify", answer] if command == "verify" else ["report", "--json"]
    code, out, err = run([*argv, "--store", store], capsys)
    assert code == 0 and err == "", err
    if command == "verify":
        assert json.loads(out)["totals"]["accurate"] == 1
    else:
        assert [(s["session"], len(s["per_cycle"])) for s in json.loads(out)["sessions"]] == [("S", 1)]
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # no -journal, -wal or -shm either
    assert raw_query(store, "PRAGMA user_version") == [(1,)]


def test_verify_and_report_under_real_file_permissions(tmp_path, store_path):
    # a chmod 0444 store is read, one of schema version 1 too (red team 82, F04: it was refused,
    # as opening it would upgrade it); a store in a 0555 directory is refused naming --store; in
    # a process that permissions bind (as root: under capsh, the DAC capabilities dropped)
    import sys

    from store_helpers import (
        PERMISSIONS_DO_NOT_BIND,
        modes,
        permissions_bind_argv,
        row_counts,
        run_where_permissions_bind,
        version_1_store,
    )

    if permissions_bind_argv() is None:
        pytest.skip(PERMISSIONS_DO_NOT_BIND)
    _gate_two_cycles(store_path, "s1")
    rodir = tmp_path / "rodir"
    rodir.mkdir()
    in_rodir = rodir / "store.sqlite3"
    in_rodir.write_bytes(store_path.read_bytes())  # (closed: the WAL was checkpointed into it)
    old = tmp_path / "old.sqlite3"
    version_1_store(old, [_V1_RECORD], handle="tool:call_8841")  # (the source ANSWER cites)
    before = row_counts(store_path), row_counts(in_rodir), old.read_bytes()
    commands = {c: [str(a) for a in _read_only_argv(tmp_path, c)] for c in ("verify", "report")}
    with modes((store_path, 0o444), (old, 0o444), (rodir, 0o555)):
        results = {(c, str(store)): run_where_permissions_bind([sys.executable, "-m", "provgate", *argv, "--store",
                                                                str(store)])
                   for c, argv in commands.items() for store in (store_path, old, in_rodir)}
    for (command, store), r in results.items():
        if store != str(in_rodir):
            assert r.returncode == 0 and r.stderr == "", (command, store, r.stderr)
            assert json.loads(r.stdout), command
        else:
            assert r.returncode == 2 and r.stdout == "", (command, r.stderr)
            _assert_read_only_store_error(r.stderr, store, directory=True)
    assert (row_counts(store_path), row_counts(in_rodir), old.read_bytes()) == before
