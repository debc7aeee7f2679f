"""The public audit path cannot write what a gate session's resume follows (red team 93, F05):
code appending a record through ``SourceStore.append_audit`` that claimed the newer of two
reads was the older kept that order for the resumed session, and a summary kept the stale value
past I4. Such records are refused, naming the key; only a Gate writes them."""

from __future__ import annotations

import pytest
from gate_helpers import blk, find, store_with, summary, tool

from provgate.errors import InvalidArgumentError
from provgate.gate import Gate
from provgate.store import GATE_SESSION_KEYS, SourceStore

OLD, NEW = "retries=3\n", "retries=5\n"
USER = blk("u", "user", "Fix the retry loop.\n", ["user:u1"])
TURN = blk("a", "assistant", "ok\n")


@pytest.mark.parametrize("key", sorted(GATE_SESSION_KEYS))
@pytest.mark.parametrize("many", [False, True])
def test_a_session_record_holding_a_key_the_resume_follows_is_refused_naming_it(tmp_path, key, many):
    with SourceStore(tmp_path / "s.sqlite3") as store:
        store.append_audit({"session": "S", "note": "kept"})
        before = list(store.iter_audit())
        record = {"session": "S", key: 1}
        with pytest.raises(InvalidArgumentError, match=f"holds \\['{key}'\\]: a gate session's resume") as err:
            if many:
                store.append_audit_many([{"session": "S", "note": "first"}, record])
            else:
                store.append_audit(record)
        assert err.value.argument == (f"records[1].{key}" if many else f"record.{key}")
        assert list(store.iter_audit()) == before  # (all or none: nothing written)


def test_records_without_a_session_or_without_those_keys_are_written_as_before(tmp_path):
    with SourceStore(tmp_path / "s.sqlite3") as store:
        seqs = [store.append_audit({"cycle": 1, "reads": {}, "session": ""}),
                store.append_audit({"event": "setup", "pins": ["p"]}),
                store.append_audit({"session": "S", "accepted": True, "verdict": "x", "nested": {"cycle": 3}})]
        assert seqs == sorted(seqs) and [r for _, r in store.iter_audit()][2]["nested"] == {"cycle": 3}


def test_a_forged_record_cannot_reorder_a_session_s_reads(tmp_path):
    # red team 93, F05: a record appended before the session's first check, claiming the newer
    # read is the older, kept that order for the session
    path = str(tmp_path / "s.sqlite3")
    store = store_with({"tool:old": OLD, "tool:new": NEW, "user:u1": "Fix the retry loop.\n"}, path=path)
    forged = {"session": "S", "reads": {"file:app.ini": [["tool:new", None, None], ["tool:old", None, None]]}}
    with pytest.raises(InvalidArgumentError, match="only a Gate writes them"):
        store.append_audit(forged)
    g = Gate(store, session="S")
    old = tool("t_old", "tool:old", OLD, resource="file:app.ini")
    new = tool("t_new", "tool:new", NEW, resource="file:app.ini")
    post = [USER, old, summary("s", "The config sets retries=3.\n", ["tool:new"])]
    find(g.check([USER, old, new], post, operator="summarize"), "I4", key="retries", value="3")
    resumed = Gate(SourceStore(path), session="S")
    assert [h for h, _ in resumed._read_log["file:app.ini"]] == ["tool:old", "tool:new"]
    find(resumed.check([USER, old, new], post, operator="summarize"), "I4", key="retries", value="3")
