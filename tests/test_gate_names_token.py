"""The gate's marker resolutions are re-vetted against the store only when its sources token
moved (Gate.forget_stale_names, SourceStore._sources_token): a source stored between two
checks by this store object, by another thread's connection of it, by another store object or
another process on the same file must still make ``[src:x]`` ambiguous in the next check, and a
check after which nothing was stored must not query the sources again."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest
from gate_helpers import assert_accepted, find, tool

from provgate.errors import HandleConflictError
from provgate.gate import Gate
from provgate.store import SourceStore

T = tool("t", "tool:x", "port=8080\n")
U = tool("u", "tool:y", "host=alpha\n")
CITES_X = [T, U, {"id": "s", "role": "summary", "text": "Port 8080 [src:x].\n", "derived": True,
                  "derived_from": ["tool:x"]}]
CITES_Y = [T, U, {"id": "s", "role": "summary", "text": "Host alpha [src:y].\n", "derived": True,
                  "derived_from": ["tool:y"]}]


def _store(tmp_path, name="s.sqlite3") -> SourceStore:
    store = SourceStore(tmp_path / name)
    store.put("tool:x", "port=8080\n")
    store.put("tool:y", "host=alpha\n")
    return store


def _resolved_x_then(gate: Gate, store_doc_x) -> None:
    """The gate resolves [src:x] to tool:x, doc:x is stored by ``store_doc_x``, and the same edit
    is checked again: refused as ambiguous (I3)."""
    assert_accepted(gate.check([T, U], CITES_X, operator="summarize"))
    store_doc_x()
    find(gate.check([T, U], CITES_X, operator="summarize"), "I3", handle="x")


def test_a_source_stored_through_the_same_store_object(tmp_path):
    store = _store(tmp_path)
    _resolved_x_then(Gate(store, audit=False), lambda: store.put("doc:x", "an unrelated document\n"))


def test_a_source_stored_in_a_batch_through_the_same_store_object(tmp_path):
    store = _store(tmp_path)
    _resolved_x_then(Gate(store, audit=False), lambda: store.put_many({"doc:x": "an unrelated document\n"}))


def test_a_source_stored_by_another_thread_of_the_same_store_object(tmp_path):
    store = _store(tmp_path)

    def other_thread():
        th = threading.Thread(target=store.put, args=("doc:x", "an unrelated document\n"))
        th.start()
        th.join()

    _resolved_x_then(Gate(store, audit=False), other_thread)


def test_a_source_stored_by_another_store_object(tmp_path):
    store = _store(tmp_path)

    def other_object():
        with SourceStore(tmp_path / "s.sqlite3") as other:
            other.put("doc:x", "an unrelated document\n")

    _resolved_x_then(Gate(store, audit=False), other_object)


def test_a_source_stored_by_another_process(tmp_path):
    store = _store(tmp_path)
    code = ("import sys; from provgate.store import SourceStore; "
            "s = SourceStore(sys.argv[1]); s.put('doc:x', 'an unrelated document\\n'); s.close()")

    def other_process():
        subprocess.run([sys.executable, "-c", code, str(tmp_path / "s.sqlite3")], check=True)

    _resolved_x_then(Gate(store, audit=False), other_process)


def test_an_in_memory_store(tmp_path):
    store = SourceStore(":memory:")
    store.put("tool:x", "port=8080\n")
    store.put("tool:y", "host=alpha\n")
    _resolved_x_then(Gate(store, audit=False), lambda: store.put("doc:x", "an unrelated document\n"))


def test_a_failed_put_moves_the_token_all_the_same(tmp_path):
    """A put that raises (a handle conflict) wrote nothing; the token moves anyway (counted
    whatever the outcome), which only costs the next check one query."""
    store = _store(tmp_path)
    before = store._sources_token()
    with pytest.raises(HandleConflictError):
        store.put("tool:x", "another content\n")
    assert store._sources_token() != before


@pytest.mark.parametrize("audit", [False, True])
def test_no_source_stored_no_query(tmp_path, monkeypatch, audit):
    """The skip itself: nothing stored between two checks, the second asks the store for no new
    source (the audit record the first one wrote is no source); a source stored, it asks."""
    store = _store(tmp_path)
    gate = Gate(store, audit=audit)
    assert_accepted(gate.check([T, U], CITES_Y, operator="summarize"))
    asked = []
    real = store.handles_added_since
    monkeypatch.setattr(store, "handles_added_since", lambda seq: asked.append(seq) or real(seq))
    assert_accepted(gate.check([T, U], CITES_Y, operator="summarize"))
    assert asked == []
    store.put("tool:z", "other\n")
    assert_accepted(gate.check([T, U], CITES_Y, operator="summarize"))
    assert len(asked) == 1


def test_a_blocks_cited_handles_are_asked_again_once_the_gate_forgot_a_name(tmp_path):
    # (_Check.cited keeps a block's answer while the gate's names epoch stands: a name the gate
    # forgets between two calls of one check, a source stored meanwhile, is resolved again)
    from provgate import gate as gate_module
    from provgate.window import Edit, Window

    store = _store(tmp_path)
    gate = Gate(store, audit=False)
    assert_accepted(gate.check([T, U], CITES_X, operator="summarize"))
    check = gate_module._Check(gate, Edit("summarize", Window([T, U]), Window(CITES_X)), 0.95, gate._sticky)
    assert check.run("reject", 0).accepted
    assert check.cited(2) == check.cited(2) == ("tool:x",)
    store.put("doc:x", "an unrelated document\n")
    assert check.cited(2) == ("tool:x",)  # (nothing forgotten yet: the check's answer stands)
    gate.forget_stale_names()
    assert check.cited(2) == ()  # ([src:x] names tool:x and doc:x now: ambiguous, it cites none)
