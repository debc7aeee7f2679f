"""An audit record is checked, indexed and stored as the JSON written for it (red team 122,
F01/F02): a ``dict`` subclass whose ``__iter__`` hid a key the session resume follows, or whose
``get("session")`` disagreed with its items, was appended (the check read the live object,
``json.dumps`` its ``items()``); the first reordered a session's reads past I4, the second wrote
a row ``verify()`` then called damaged and a resume skipped."""

from __future__ import annotations

import pytest

from provgate.errors import InvalidArgumentError
from provgate.store import GATE_SESSION_KEYS, SourceStore


class Hiding(dict):
    """Hides the keys a session's resume follows from iteration (``in``, set.intersection)."""

    def __iter__(self):
        return (k for k in dict.keys(self) if k not in GATE_SESSION_KEYS)

    def keys(self):
        return list(iter(self))


class Lying(dict):
    """Says it names no session; its items (what json.dumps writes) name one."""

    def get(self, key, default=None):
        return None if key == "session" else dict.get(self, key, default)

    def __getitem__(self, key):
        return None if key == "session" else dict.__getitem__(self, key)


class Doubled(dict):
    """items() gives one key twice: the JSON would hold it twice, its readers keep one."""

    def items(self):
        return [("session", ""), *dict.items(self)]


READS = {"file:app.ini": [["tool:new", None, None], ["tool:old", None, None]]}


def _records(store):
    return [(seq, r) for seq, r in store.iter_audit()]


@pytest.mark.parametrize("many", [False, True])
@pytest.mark.parametrize("cls,record,key", [
    (Hiding, {"session": "S", "reads": READS}, "reads"),
    (Lying, {"session": "S", "pins": {"handles": ["doc:policy"], "ids": ["p"]}}, "pins"),
])
def test_a_dict_subclass_naming_a_session_with_a_resume_key_is_refused_writing_nothing(tmp_path, many, cls, record, key):
    with SourceStore(tmp_path / "s.sqlite3") as store:
        store.append_audit({"session": "S", "note": "kept"})
        before = _records(store)
        with pytest.raises(InvalidArgumentError, match=f"holds \\['{key}'\\]") as err:
            if many:
                store.append_audit_many([{"session": "S", "note": "first"}, cls(record)])
            else:
                store.append_audit(cls(record))
        assert err.value.argument == (f"records[1].{key}" if many else f"record.{key}")
        assert _records(store) == before
        assert [r for _, r in store.iter_audit_of_session("S")] == [{"session": "S", "note": "kept"}]
        assert store.verify() == []


def test_a_dict_subclass_is_indexed_under_the_session_its_json_names(tmp_path):
    # F02's other half: the session column comes from the JSON written, not from get()
    with SourceStore(tmp_path / "s.sqlite3") as store:
        seq = store.append_audit(Lying({"session": "S", "note": "x"}))
        assert list(store.iter_audit_of_session("S")) == [(seq, {"session": "S", "note": "x"})]
        assert store.verify() == []


def test_a_dict_subclass_whose_items_give_a_key_twice_is_refused(tmp_path):
    with SourceStore(tmp_path / "s.sqlite3") as store:
        with pytest.raises(InvalidArgumentError, match="a key given twice"):
            store.append_audit(Doubled({"session": "S", "note": "x"}))
        assert _records(store) == []


def test_a_nested_subclass_is_stored_as_its_json(tmp_path):
    with SourceStore(tmp_path / "s.sqlite3") as store:
        seq = store.append_audit({"session": "S", "nested": Hiding({"reads": 1, "other": 2})})
        assert dict(store.iter_audit())[seq] == {"session": "S", "nested": {"reads": 1, "other": 2}}
        assert store.verify() == []


def test_a_plain_dict_is_written_as_before(tmp_path):
    with SourceStore(tmp_path / "s.sqlite3") as store:
        record = {"session": "S", "accepted": True, "t": (1, 2), "nested": {"cycle": 3}}
        seq = store.append_audit(record)
        assert list(store.iter_audit_of_session("S")) == [(seq, {**record, "t": [1, 2]})]
        with pytest.raises(InvalidArgumentError, match="only a Gate writes them"):
            store.append_audit({"session": "S", "reads": READS})
        with pytest.raises(InvalidArgumentError, match="must be a dict"):
            store.append_audit([("session", "S")])
        assert store.verify() == []
