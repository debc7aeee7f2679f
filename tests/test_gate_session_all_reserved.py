"""The session name "all" is reserved where a session is named (red team 122, F08, library half):
`provgate report --session all` and session_report(session="all") read it as every session, so a
session of that name could never be reported alone. check_session refuses it naming the argument;
an audit log an older version wrote under a session "all" stays readable (every session's report,
and session_report(session=["all"])), and the report does not crash on it."""

from __future__ import annotations

import json

import pytest
from gate_helpers import tool

import provgate.gate as gate_mod
from provgate import Gate, SourceStore, cli
from provgate.errors import InvalidArgumentError
from provgate.report import session_report
from provgate.window import Window


def _check_once(gate: Gate) -> None:
    gate.store.put("tool:a", "retries=3\n")
    block = tool("b", "tool:a", "retries=3\n")
    pre = Window.from_json([block])
    verdict = gate.check(pre, pre, operator="rewrite")
    assert verdict.accepted


@pytest.mark.parametrize("argument", [None, "--session"])
def test_check_session_refuses_all_naming_the_argument(argument):
    args = ("all",) if argument is None else ("all", argument)
    with pytest.raises(InvalidArgumentError) as err:
        gate_mod.check_session(*args)
    assert err.value.argument == (argument or "session") and "'all' is reserved" in str(err.value)
    # honest controls: other names, "all" inside one or in another case, are names
    for name in ("all ", "ALL", "all-1", "every", "a"):
        assert gate_mod.check_session(name) == name


def test_gate_refuses_the_session_all_before_writing_anything():
    store = SourceStore(":memory:")
    with pytest.raises(InvalidArgumentError) as err:
        Gate(store, session="all")
    assert err.value.argument == "session" and "reserved" in str(err.value)
    assert list(store.iter_audit()) == []
    assert Gate(store, session="allx").session == "allx"  # honest control


def _old_log(path, monkeypatch) -> None:
    """An audit log an older version wrote: a session "all" (check_session took it then), and
    a session "other" after it."""
    monkeypatch.setattr(gate_mod, "check_session", lambda session, argument="session": session)
    with SourceStore(str(path)) as store:
        for name in ("all", "all", "other"):
            _check_once(Gate(store, session=name))
    monkeypatch.undo()


def test_a_log_holding_an_old_session_all_stays_readable(tmp_path, monkeypatch, capsys):
    path = tmp_path / "s.sqlite3"
    _old_log(path, monkeypatch)
    with pytest.raises(InvalidArgumentError):
        gate_mod.check_session("all")  # (the real check is back)
    with SourceStore(str(path), read_only=True) as store:
        every = session_report(store, session="all")
        assert [(s.session, s.totals["cycles"]) for s in every.sessions] == [("all", 2), ("other", 1)]
        (alone,) = session_report(store, session=["all"]).sessions
        assert alone.session == "all" and [r.cycle for r in alone.rows] == [1, 2]
        assert session_report(store).sessions[0].session == "other"  # the most recent
    # the CLI: `report --session all` is every session, and exits 0
    code = cli.main(["report", "--store", str(path), "--session", "all", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    assert report["selection"]["mode"] == "all" and report["selection"]["sessions"] == ["all", "other"]
    # and `report --session all --session other` reads "all" as the old session's name, as before
    code = cli.main(["report", "--store", str(path), "--session", "all", "--session", "other", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["selection"]["sessions"] == ["all", "other"]
    # a new session is made under another name and reads its own records only
    with SourceStore(str(path)) as store:
        with pytest.raises(InvalidArgumentError, match="reserved"):
            Gate(store, session="all")
        gate = Gate(store, session="other")
        _check_once(gate)
        assert gate.history[-1].cycle == 2  # resumed "other" (1 cycle), not "all"'s 2
        assert [(s.session, s.totals["cycles"]) for s in session_report(store, session="all").sessions] == [
            ("all", 2), ("other", 2)]
