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
