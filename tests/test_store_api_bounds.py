"""The store's API refuses what the edit format and the gate refuse (red team 134, F09): a source's
ts beyond +-2**53 (a time.time_ns() stamp: two reads 1 ns apart were stored with one float ts, the
collapse docs/format.md refuses a block's ts for), and an audit record filed under the reserved
session name "all" (the report's word for every session)."""

from __future__ import annotations

import pytest

from provgate.errors import InvalidArgumentError
from provgate.store import SourceStore


@pytest.mark.parametrize("ts", [1763000000123456789, 2**53 + 1, -(2**53) - 1, 1e300, -1e17])
@pytest.mark.parametrize("how", ["put", "put_many"])
def test_a_ts_beyond_2_53_is_refused(ts, how):
    with SourceStore(":memory:") as s:
        with pytest.raises(InvalidArgumentError, match=r"2\*\*53") as info:
            if how == "put":
                s.put("tool:r1", "a", ts=ts)
            else:
                s.put_many({"tool:r1": "a"}, ts=ts)
        assert info.value.argument == "ts" and len(s) == 0


@pytest.mark.parametrize("ts", [2**53, -(2**53), 1763000000.123, 0, 9007199254740992.0])
def test_honest_control_a_ts_within_2_53_is_kept(ts):
    with SourceStore(":memory:") as s:
        s.put("tool:r1", "a", ts=ts)
        assert s.info("tool:r1").ts == float(ts)


def test_an_audit_record_under_session_all_is_refused():
    with SourceStore(":memory:") as s:
        with pytest.raises(InvalidArgumentError, match="reserved") as info:
            s.append_audit({"session": "all", "note": "x"})
        assert info.value.argument == "record.session"
        with pytest.raises(InvalidArgumentError):
            s.append_audit_many([{"session": "S"}, {"session": "all"}])
        assert list(s.iter_audit()) == []  # the batch was refused whole


def test_honest_control_other_session_names_are_filed():
    with SourceStore(":memory:") as s:
        seqs = [s.append_audit({"session": name}) for name in ("All", "all-agents", "S")]
        assert [r["session"] for _, r in s.iter_audit()] == ["All", "all-agents", "S"] and len(seqs) == 3


def test_a_pointer_label_with_a_lone_surrogate_is_refused():
    import json

    from provgate import Pointer
    from provgate.errors import PointerFormatError

    with SourceStore(":memory:") as s:
        s.put("tool:a", "retries=3\n")
        j = s.pointer("tool:a", 0, 7).to_json()
    with pytest.raises(PointerFormatError) as info:
        Pointer.from_json(dict(j, label="doc\udc80"))
    assert info.value.field == "label"
    # honest control: a label of any valid text is kept, and its JSON writes as UTF-8
    p = Pointer.from_json(dict(j, label="doc_7#L120-140 ü 𝄞"))
    assert json.dumps(p.to_json(), ensure_ascii=False).encode("utf-8") and p.label == "doc_7#L120-140 ü 𝄞"
