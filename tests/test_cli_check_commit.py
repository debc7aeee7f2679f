"""`provgate check`'s exit status and the store agree (red team 122, F03, F05, F07):

- exit 2 writes nothing: the edit's inline sources, the fact cache and the audit record are
  committed in one transaction after the verdict (F03: the sources were committed first, and a
  check that then raised exited 2 with them stored);
- a verdict committed is reported by its own exit status even when stdout cannot take it,
  with stderr saying it is recorded (F05: exit 2, "nothing written", and an internal error
  with stdout closed);
- an in-memory store is refused by check, naming --store (F07: it kept nothing, silently).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from gate_helpers import tool
from store_helpers import row_counts

from provgate import cli
from provgate.errors import StoreIOError
from provgate.store import SourceStore

OLD = "retries=3\ntimeout=30\n"


def run_main(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_sh(command: str, env_extra: dict | None = None):
    env = dict(os.environ)
    env.pop("PROVGATE_STORE", None)
    env.update(env_extra or {})
    r = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env, timeout=120)
    return r.returncode, r.stdout, r.stderr


def error_of(err: str) -> dict:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    obj = json.loads(lines[0])
    assert set(obj) == {"error"} and {"type", "message"} <= set(obj["error"]) <= {"type", "message", "field", "reason"}
    return obj["error"]


def handles(path) -> list[str]:
    conn = sqlite3.connect(str(path))
    try:
        return [h for (h,) in conn.execute("SELECT handle FROM sources ORDER BY seq")]
    finally:
        conn.close()


def damaged_store(path: Path) -> None:
    """tool:old stored, then one byte of its content changed from outside (a flipped bit)."""
    with SourceStore(str(path)) as st:
        st.put("tool:old", OLD)
    conn = sqlite3.connect(str(path))
    trigger = conn.execute("SELECT sql FROM sqlite_master WHERE name='content_no_update'").fetchone()[0]
    conn.execute("DROP TRIGGER content_no_update")
    conn.execute("UPDATE content SET body = CAST(replace(CAST(body AS TEXT), '3', '4') AS BLOB)")
    conn.execute(trigger)
    conn.commit()
    conn.close()


def evict_edit(new_text: str = "workers=8\n") -> dict:
    old = tool("o", "tool:old", OLD)
    new = tool("n", "tool:new", new_text)
    return {"operator": "evict", "pre": [old, new], "post": [new], "evicted": ["tool:old"],
            "sources": {"tool:new": new_text}}


def kept_edit() -> dict:
    b = tool("b", "tool:a", "retries=3\n")
    return {"operator": "rewrite", "pre": [b], "post": [b], "sources": {"tool:a": "retries=3\n"}}


# -- F03: exit 2 writes nothing ----------------------------------------------------------------


def test_a_check_that_raises_after_reading_its_sources_exits_2_with_nothing_written(tmp_path, capsys):
    store = tmp_path / "s.sqlite3"
    damaged_store(store)
    edit = tmp_path / "e.json"
    edit.write_text(json.dumps(evict_edit()))
    before = row_counts(store)
    code, out, err = run_main(["check", edit, "--store", store], capsys)
    assert code == 2 and out == ""
    assert error_of(err)["type"] == "StoreCorruptionError"
    assert handles(store) == ["tool:old"] and row_counts(store) == before
    # the same in a process of its own
    code, _, err = run_sh(f"{sys.executable} -m provgate check {edit} --store {store}")
    assert code == 2 and error_of(err)["type"] == "StoreCorruptionError"
    assert row_counts(store) == before


def _store_and_evict_edit(tmp_path: Path) -> tuple[Path, Path, dict]:
    """A store holding the old read, the evicting edit's file, and the store's row counts."""
    store = tmp_path / "s.sqlite3"
    with SourceStore(str(store)) as st:
        st.put("tool:old", OLD)
    edit = tmp_path / "e.json"
    edit.write_text(json.dumps(evict_edit()))
    return store, edit, row_counts(store)


def test_an_audit_record_the_disk_refuses_exits_2_without_the_sources(tmp_path, capsys, monkeypatch):
    store, edit, before = _store_and_evict_edit(tmp_path)

    def refused(self, records):
        raise StoreIOError(f"store {self._path!r}: the disk refused the audit record; rolled back", path=self._path)

    monkeypatch.setattr(SourceStore, "_append_gate_audit", refused)
    code, out, err = run_main(["check", edit, "--store", store], capsys)
    assert code == 2 and out == "" and error_of(err)["type"] == "StoreIOError"
    monkeypatch.undo()
    assert row_counts(store) == before and "tool:new" not in handles(store)


def test_an_honest_check_commits_its_sources_and_its_record_together(tmp_path, capsys):
    store, edit, before = _store_and_evict_edit(tmp_path)
    code, out, err = run_main(["check", edit, "--store", store, "--session", "S"], capsys)
    assert code == 0, err
    assert json.loads(out)["accepted"] is True
    after = row_counts(store)
    assert handles(store) == ["tool:old", "tool:new"]
    assert after["audit"] == before["audit"] + 1 and after["sources"] == before["sources"] + 1
    with SourceStore(str(store)) as st:
        assert st.verify() == [] and len(list(st.iter_audit_of_session("S"))) == 1


def test_one_transaction_commits_all_or_nothing(tmp_path):
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        with pytest.raises(RuntimeError), st._one_transaction():
            st.put("tool:a", "a\n")
            st.append_audit({"note": "x"})
            assert st.get("tool:a") == "a\n"  # (its own writes are read inside)
            raise RuntimeError("the check raised")
        assert len(st) == 0 and list(st.iter_audit()) == []
        with st._one_transaction():
            st.put("tool:a", "a\n")
            with pytest.raises(Exception):
                st.put("tool:a", "other\n")  # (refused alone: its savepoint is undone)
            st.append_audit({"note": "x"})
        assert st.get("tool:a") == "a\n" and len(list(st.iter_audit())) == 1
    with SourceStore(":memory:") as mem:
        with pytest.raises(Exception, match="in-memory"):
            with mem._one_transaction():
                pass


# -- F05: a committed verdict keeps its exit status ---------------------------------------------


@pytest.mark.parametrize("redirect", ["1>&-", "1>/dev/full"], ids=["stdout closed", "stdout /dev/full"])
@pytest.mark.parametrize("edit,status", [(kept_edit, 0), ("rejected", 1)])
def test_a_verdict_stdout_cannot_take_exits_with_its_own_status_and_says_it_is_recorded(tmp_path, redirect, edit,
                                                                                         status):
    store = tmp_path / "s.sqlite3"
    doc = kept_edit()
    if edit == "rejected":
        doc["post"] = [tool("b", "tool:a", "retries=5\n")]
    path = tmp_path / "e.json"
    path.write_text(json.dumps(doc))
    code, _, err = run_sh(f"{sys.executable} -m provgate check {path} --store {store} --create --session S {redirect}")
    assert code == status, err
    e = error_of(err)
    assert e["type"] == "stdout_failed" and "is recorded in the store's audit log" in e["message"], e
    assert ("accepted" if status == 0 else "rejected") in e["message"]
    assert row_counts(store)["audit"] == 1  # recorded once: the status says not to repeat it


def test_a_verdict_written_to_stdout_exits_as_before(tmp_path):
    store = tmp_path / "s.sqlite3"
    path = tmp_path / "e.json"
    path.write_text(json.dumps(kept_edit()))
    code, out, err = run_sh(f"{sys.executable} -m provgate check {path} --store {store} --create")
    assert code == 0 and err == "" and json.loads(out)["accepted"] is True


def test_a_closed_stdin_or_stdout_of_a_reading_command_is_exit_2_not_an_internal_error(tmp_path):
    store = tmp_path / "s.sqlite3"
    with SourceStore(str(store)) as st:
        st.put("tool:a", "retries=3\n")
    for command, kind in ((f"check - --store {store} <&-", "missing_input"),
                          (f"verify --store {store} - <&-", "missing_input"),
                          (f"report --store {store} --session all >&-", None)):
        code, _, err = run_sh(f"{sys.executable} -m provgate {command}")
        e = error_of(err)
        assert code == 2 and e["type"] != "internal_error", (command, e)
        if kind:
            assert e["type"] == kind


# -- F07: no in-memory store for check ---------------------------------------------------------


@pytest.mark.parametrize("extra", [[], ["--session", "S"], ["--create", "--session", "S"]])
def test_check_refuses_an_in_memory_store_naming_store(tmp_path, capsys, extra):
    path = tmp_path / "e.json"
    path.write_text(json.dumps(kept_edit()))
    code, out, err = run_main(["check", path, "--store", ":memory:", *extra], capsys)
    assert code == 2 and out == ""
    e = error_of(err)
    assert e["field"] == "--store" and "in-memory" in e["message"] and e["type"] == "bad_store"


def test_check_refuses_an_in_memory_store_from_the_environment(tmp_path, capsys, monkeypatch):
    path = tmp_path / "e.json"
    path.write_text(json.dumps(kept_edit()))
    monkeypatch.setenv("PROVGATE_STORE", ":memory:")
    code, _, err = run_main(["check", path], capsys)
    assert code == 2 and error_of(err)["field"] == "--store" and "$PROVGATE_STORE" in error_of(err)["message"]


def test_verify_and_report_still_take_an_in_memory_store(tmp_path, capsys):
    answer = tmp_path / "a.txt"
    answer.write_text("No citations here.\n")
    code, _, err = run_main(["verify", "--store", ":memory:", answer], capsys)
    assert code == 0, err
    code, _, err = run_main(["report", "--store", ":memory:"], capsys)
    assert code in (0, 2) and "in-memory" not in err


# -- F08: a session named "all" cannot be reported alone ----------------------------------------


def test_check_refuses_the_session_name_all_and_takes_another(tmp_path, capsys):
    path = tmp_path / "e.json"
    path.write_text(json.dumps(kept_edit()))
    store = tmp_path / "s.sqlite3"
    code, out, err = run_main(["check", path, "--store", store, "--create", "--session", "all"], capsys)
    assert code == 2 and out == "" and error_of(err)["field"] == "--session" and "reserved" in error_of(err)["message"]
    assert not store.exists()
    code, out, err = run_main(["check", path, "--store", store, "--create", "--session", "allx"], capsys)
    assert code == 0, err
