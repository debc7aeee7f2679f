"""The gate API: check() and commit(), the Verdict and its JSON form, the durable audit log,
bad input that raises before anything is written, sessions (cycles, caches) and threads."""

from __future__ import annotations

import json
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from blake3 import blake3
from hypothesis import given, settings
from hypothesis import strategies as st

from gate_helpers import (
    assert_accepted,
    audit_count,
    blk,
    comparable,
    find,
    gate_for,
    store_state,
    store_with,
    summary,
    tool,
)
from provgate.errors import EditFormatError, ProvenanceInvariantError, StoreCorruptionError
from provgate.gate import Gate, _Side, check, commit
from provgate.handles import block_text_handle
from provgate.store import SourceStore
from provgate.verdict import CLASSIFICATIONS, INVARIANTS, Verdict, Violation
from provgate.window import Block, Supersession, Window, parse_edit

CONF_H, CONF = "tool:call_1", "retries=3\ntimeout=30s\n"
HTTP_H, HTTP = "tool:call_2", "GET /v2/orders -> 200 in 250ms; 12 rows\n"
SOURCES = {CONF_H: CONF, HTTP_H: HTTP}
NOTE = "It retries 3 times [src:call_1]; 12 rows came back [src:call_2].\n"


def window() -> list[dict]:
    return [tool("t1", CONF_H, CONF), blk("a1", "assistant", NOTE), tool("t2", HTTP_H, HTTP)]


def good() -> tuple[list, list, dict]:
    pre = window()
    return pre, [pre[1], pre[2]], {"operator": "prune", "evicted": [CONF_H]}


def bad() -> tuple[list, list, dict]:
    pre = window()
    return pre, [tool("t1", CONF_H, CONF.replace("retries=3", "retries=5")), pre[1], pre[2]], {"operator": "rewrite"}


# -- check and commit -------------------------------------------------------------------------


def test_module_level_check_and_commit():
    store = store_with(SOURCES)
    pre, post, kw = good()
    v = check(pre, post, store=store, **kw)
    assert isinstance(v, Verdict) and v.accepted and bool(v)
    committed = commit(pre, post, store=store, **kw)
    assert isinstance(committed, Window)
    assert committed == Window(post)
    pre, post, kw = bad()
    with pytest.raises(ProvenanceInvariantError) as info:
        commit(pre, post, store=store, **kw)
    verdict = info.value.verdict
    assert isinstance(verdict, Verdict) and not verdict.accepted
    find(verdict, "I2", key="retries", value="5")
    assert "I2" in str(info.value) and "rejected" in str(info.value)


def test_commit_returns_the_reclassified_window():
    src = {CONF_H: CONF}
    pre = [blk("t1", "tool", "retries=3\n", [CONF_H])]
    post = [blk("t1", "tool", CONF, [CONF_H])]
    with pytest.raises(ProvenanceInvariantError):
        commit(pre, post, operator="rewrite", store=store_with(src))
    w = commit(pre, post, operator="rewrite", store=store_with(src), policy="reclassify")
    assert w.get("t1").derived and w.get("t1").derived_from == (CONF_H,)


def test_gate_commit_and_commit_edit():
    g = gate_for(SOURCES)
    pre, post, kw = good()
    assert g.commit(pre, post, **kw) == Window(post)
    edit = parse_edit({"pre": bad()[0], "post": bad()[1], "operator": "rewrite"})
    with pytest.raises(ProvenanceInvariantError) as info:
        g.commit_edit(edit)
    assert info.value.verdict.classification == "rejected"


def test_check_accepts_python_objects_as_well_as_json_dicts():
    g = gate_for(SOURCES)
    pre, post, kw = good()
    as_objects = g.check(Window(pre), [Block.from_json(b) for b in post], operator="prune", evicted=(CONF_H,))
    as_dicts = g.check(pre, post, **kw)
    assert as_objects.accepted == as_dicts.accepted is True
    # supersession edges as tuples, dicts or objects
    for edge in [("t2", CONF_H), {"block": "t2", "handle": CONF_H}, Supersession("t2", CONF_H)]:
        assert g.check(pre, post, operator="prune", supersedes=[edge]).accepted


# -- the verdict ------------------------------------------------------------------------------

TIMING_PHASES = {"hash", "structure", "pins", "facts", "I3", "I1", "I2", "I4", "I5", "P", "R", "total", "audit"}


@pytest.mark.parametrize("which", [good, bad])
def test_verdict_json_has_every_documented_field_and_serialises(which):
    pre, post, kw = which()
    v = gate_for(SOURCES).check(pre, post, **kw)
    out = v.to_json()
    text = json.dumps(out, allow_nan=False)
    assert json.loads(text) == out
    assert {"accepted", "classification", "operator", "reclassified", "cycle", "violations", "facts", "retention",
            "timings_ms", "pre_digest", "post_digest"} <= set(out)
    assert out["classification"] in CLASSIFICATIONS
    assert out["operator"] == kw["operator"]
    assert {"pre", "post", "introduced", "dropped", "superseded", "evicted"} <= set(out["facts"])
    assert all(isinstance(n, int) for n in out["facts"].values())
    assert TIMING_PHASES <= set(out["timings_ms"])
    assert all(t >= 0 for t in out["timings_ms"].values())
    assert out["pre_digest"].startswith("blake3:") and out["post_digest"].startswith("blake3:")
    assert "window" not in out
    assert v.to_json(include_window=True)["window"] == Window(post).to_json()
    for viol in out["violations"]:
        assert set(viol) == {"invariant", "block", "handle", "key", "value", "evidence", "message"}
        assert viol["invariant"] in INVARIANTS
    assert out["violations_by_invariant"] == v.by_invariant()
    assert sum(out["violations_by_invariant"].values()) == len(out["violations"])
    assert (out["violations"] == []) == out["accepted"]


def test_violation_json_round_trips():
    v = gate_for(SOURCES).check(*bad()[:2], operator="rewrite")
    for viol in v.violations:
        assert Violation.from_json(json.loads(json.dumps(viol.to_json()))) == viol


def test_summary_line():
    g = gate_for(SOURCES)
    assert g.check(*good()[:2], **good()[2]).summary() == "accepted (lossless)"
    s = g.check(*bad()[:2], **bad()[2]).summary()
    assert s.startswith("rejected: ") and "I2×" in s and "I1×" in s


def test_window_digests_cover_text_and_metadata():
    g = gate_for(SOURCES)
    pre, post, kw = good()
    a = g.check(pre, post, **kw)
    b = gate_for(SOURCES).check(pre, post, **kw)
    assert (a.pre_digest, a.post_digest) == (b.pre_digest, b.post_digest)
    assert a.pre_digest != a.post_digest
    pinned = [post[0], post[1] | {"pinned": True}]
    assert g.check(pre, pinned, **kw).post_digest != a.post_digest
    retexted = [post[0] | {"text": NOTE + " "}, post[1]]
    assert g.check(pre, retexted, **kw).post_digest != a.post_digest


# -- the audit log ----------------------------------------------------------------------------


def test_every_verdict_is_appended_to_the_audit_log_durably(tmp_path):
    path = tmp_path / "store.sqlite3"
    store = store_with(SOURCES, path)
    g = Gate(store, session="session-7")
    verdicts = [g.check(*good()[:2], **good()[2]), g.check(*bad()[:2], **bad()[2]),
                g.check(*good()[:2], **good()[2])]
    store.close()
    reopened = SourceStore(path)
    records = [r for _, r in reopened.iter_audit()]
    assert len(records) == 3
    for rec, v in zip(records, verdicts):
        assert rec["session"] == "session-7"
        assert rec["cycle"] == v.cycle
        assert rec["operator"] == v.operator
        assert rec["accepted"] == v.accepted and rec["classification"] == v.classification
        assert rec["pre_digest"] == v.pre_digest and rec["post_digest"] == v.post_digest
        assert rec["violations"] == [x.to_json() for x in v.violations]
        assert rec["facts"] == v.facts
        assert rec["retention"] == v.retention
        assert set(rec["timings_ms"]) >= TIMING_PHASES - {"audit"}
    assert [r["cycle"] for r in records] == [1, 2, 3]
    reopened.close()


def test_audit_can_be_switched_off():
    g = gate_for(SOURCES, audit=False)
    g.check(*good()[:2], **good()[2])
    assert audit_count(g.store) == 0


def test_sessions_are_told_apart_in_the_audit_log():
    store = store_with(SOURCES)
    a, b = Gate(store), Gate(store)
    a.check(*good()[:2], **good()[2])
    b.check(*good()[:2], **good()[2])
    sessions = [r["session"] for _, r in store.iter_audit()]
    assert len(set(sessions)) == 2 and sessions == [a.session, b.session]


def test_inline_sources_are_ingested_before_the_check():
    doc = {"operator": "prune", "pre": good()[0], "post": good()[1], "evicted": [CONF_H], "sources": SOURCES}
    store = SourceStore(":memory:")
    v = Gate(store).check_edit(parse_edit(doc))
    assert_accepted(v, "lossless")
    assert sorted(store) == sorted(SOURCES) and store.get(CONF_H) == CONF
    assert audit_count(store) == 1
    # the same content again is fine; handles are immutable
    assert Gate(store).check_edit(parse_edit(doc)).accepted


# -- bad input raises and writes nothing ------------------------------------------------------


def _bad_inputs():
    pre, post, _ = good()
    return [
        ("unknown operator", lambda g: g.check(pre, post, operator="merge"), "operator"),
        ("wrong block type", lambda g: g.check(pre, [post[0], "b"], operator="prune"), "post[1]"),
        ("wrong handle type", lambda g: g.check(pre, [post[0] | {"handles": [1]}], operator="prune"),
         "post[0].handles[0]"),
        ("duplicate ids", lambda g: g.check(pre, [post[0], post[0]], operator="prune"), "post[1].id"),
        ("evicted as a string", lambda g: g.check(pre, post, operator="prune", evicted=CONF_H), "evicted"),
        ("bad edge", lambda g: g.check(pre, post, operator="prune", supersedes=[{"block": "t2"}]),
         "supersedes[0].handle"),
        ("bad pointer", lambda g: g.check(pre, post, operator="prune",
                                          pointers=[{"block": "t2", "handle": HTTP_H, "start": 5, "end": 1,
                                                     "hash": "blake3:" + "0" * 64}]), "pointers[0].end"),
        ("lone surrogate in text", lambda g: g.check(pre, [post[0] | {"text": "a\udfffb"}], operator="prune"),
         "post[0].text"),
        ("pre not a list", lambda g: g.check("text", post, operator="prune"), "pre"),
        ("conflicting inline source", lambda g: g.check_edit(parse_edit(
            {"operator": "prune", "pre": pre, "post": post, "sources": {"tool:new": "new\n", CONF_H: "different\n"}})),
         f"sources[{CONF_H!r}]"),
        ("surrogate blocks inline sources", lambda g: g.check_edit(parse_edit(
            {"operator": "prune", "pre": pre, "post": [post[0] | {"text": "\ud800"}],
             "sources": {"tool:new": "new\n"}})), "post[0].text"),
    ]


@pytest.mark.parametrize("name, call, field", _bad_inputs(), ids=[n for n, _, _ in _bad_inputs()])
def test_bad_input_raises_edit_format_error_and_writes_nothing(tmp_path, name, call, field):
    path = tmp_path / "store.sqlite3"
    g = Gate(store_with(SOURCES, path))
    g.check(*good()[:2], **good()[2])  # one audit record already there
    before = store_state(g.store)
    with pytest.raises(EditFormatError) as info:
        call(g)
    assert info.value.field == field
    assert store_state(g.store) == before
    assert len(g.history) == 1
    g.store.close()
    assert store_state(SourceStore(path)) == before


def test_invalid_policy_and_floor_are_value_errors_and_write_nothing():
    g = gate_for(SOURCES)
    before = store_state(g.store)
    for kw in ({"policy": "lenient"}, {"retention_floor": 2.0}):
        with pytest.raises(ValueError):
            g.check(*good()[:2], operator="prune", **kw)
    assert store_state(g.store) == before
    for kw in ({"policy": "x"}, {"retention_floor": -1}, {"session": ""}, {"session": 5}):
        with pytest.raises(ValueError):
            Gate(g.store, **kw)


# -- sessions and caches ----------------------------------------------------------------------


def test_cycles_count_up_per_gate_and_fresh_gates_start_at_one():
    g = gate_for(SOURCES)
    assert [g.check(*good()[:2], **good()[2]).cycle for _ in range(3)] == [1, 2, 3]
    assert [h.cycle for h in g.history] == [1, 2, 3]
    assert check(*good()[:2], store=g.store, **good()[2]).cycle == 1
    assert g.history[0].to_json()["classification"] == "lossless"


def test_history_records_rejections_with_their_invariants():
    g = gate_for(SOURCES)
    g.check(*bad()[:2], **bad()[2])
    h = g.history[0]
    assert not h.accepted and h.classification == "rejected"
    assert h.violations["I2"] >= 1 and h.violations["I1"] == 1
    assert h.check_ms >= 0


def test_caches_never_serve_a_stale_verdict():
    g = gate_for(SOURCES)
    pre = window()
    assert g.check(pre, pre, operator="rewrite").accepted
    # one block changes: only its verdict changes, and back again
    changed = [pre[0], blk("a1", "assistant", NOTE.replace("12 rows", "13 rows")), pre[2]]
    v = g.check(pre, changed, operator="rewrite")
    find(v, "I2", block="a1", key="number", value="13")
    assert g.check(pre, pre, operator="rewrite").accepted
    # the same text under another handle is grounded against that handle, not a cached one
    other = {CONF_H: CONF, HTTP_H: HTTP, "tool:call_3": "nothing here\n"}
    g2 = gate_for(other)
    s_ok = [summary("s1", "12 rows [src:call_2]\n", [HTTP_H])]
    s_bad = [summary("s1", "12 rows [src:call_3]\n", ["tool:call_3"])]
    assert g2.check(pre, s_ok, operator="summarize", evicted=[CONF_H, "a1"]).accepted
    find(g2.check(pre, s_bad, operator="summarize", evicted=[CONF_H, HTTP_H, "a1"]), "I1", value="12")


def test_a_small_cache_budget_gives_the_same_verdicts():
    big, tiny = gate_for(SOURCES), Gate(store_with(SOURCES), cache_bytes=1)
    for make in (good, bad, good, bad):
        pre, post, kw = make()
        a, b = big.check(pre, post, **kw), tiny.check(pre, post, **kw)
        assert _comparable(a) == _comparable(b)


def test_a_source_whose_facts_left_the_cache_is_read_again():
    # the gate remembers a handle's digest for good but its facts only within the cache
    # budget: grounding against a source whose facts were dropped reads them again (this
    # once raised UnboundLocalError on the second round)
    sources = {f"tool:{c}": f"retries={i}\ntimeout={i}0s\n" for i, c in enumerate("abcdef")}
    tiny = Gate(store_with(sources), cache_bytes=1)
    pre = [blk("u", "user", "hello there\n")]
    for k in range(12):
        c = "abcdef"[k % 6]
        text = f"Retries {k % 6}" + " again" * (k // 6) + ".\n"  # a new text each round
        assert tiny.check(pre, [pre[0], summary(f"s{k}", text, [f"tool:{c}"])], operator="summarize").accepted
        wrong = f"Retries {k % 6 + 1}" + " again" * (k // 6) + ".\n"
        find(tiny.check(pre, [pre[0], summary(f"s{k}", wrong, [f"tool:{c}"])], operator="summarize"), "I1")
    assert len(tiny._facts) < len(sources) == len(tiny._handle_key)  # facts were dropped, keys kept


@pytest.mark.parametrize("damage", ["other text", "garbage", "fingerprint", "removed"])
def test_a_fresh_gate_never_trusts_a_wrong_cached_source_table(tmp_path, damage):
    # a fresh gate loads the cached tables of a window's sources together; one made from
    # other text (a valid blob), one that fails its checks (a fingerprint changed after the
    # blob was made: the store's digest of the entry matches, the blob's own checksum does
    # not, so the store's check does not make the blob's redundant) or one missing is scanned again,
    # gives the verdict an intact cache gives, and is cached correctly for the next gate
    from provgate.facts import extract
    from provgate.gate import _CACHE_VERSION

    path = str(tmp_path / "s.sqlite3")
    store = SourceStore(path)
    for h, t in SOURCES.items():
        store.put(h, t)
    pre, post, kw = bad()
    first = Gate(store).check(pre, post, **kw)
    find(first, "I2", value="3")
    digest = store.digest(CONF_H)
    intact = store.get_cached_facts(digest, _CACHE_VERSION)
    assert intact is not None
    if damage == "other text":
        blob = extract(CONF.replace("retries=3", "retries=4")).to_bytes()
    elif damage == "garbage":
        blob = b"\x00" * 40
    elif damage == "fingerprint":
        rows = len(extract(CONF))
        changed = bytearray(intact)
        changed[-32 - 16 * rows] ^= 0x01  # the first fp_fact of the body's last column
        blob = bytes(changed)
    else:
        blob = None
    conn = __import__("sqlite3").connect(path)
    if blob is None:
        conn.execute("DROP TRIGGER IF EXISTS fact_cache_no_delete")
        conn.execute("DELETE FROM fact_cache WHERE digest = ?", (digest,))
        conn.commit()
    conn.close()
    if blob is not None:
        store.put_cached_facts(digest, _CACHE_VERSION, blob)
    again = Gate(store).check(pre, post, **kw)
    assert _comparable(again) == _comparable(first)
    assert store.get_cached_facts(digest, _CACHE_VERSION) == intact  # recomputed and overwritten


# -- threads ----------------------------------------------------------------------------------


def _comparable(v: Verdict) -> dict:
    out = v.to_json(include_window=True)
    for volatile in ("timings_ms", "cycle"):
        out.pop(volatile)
    return out


def _edits() -> list[tuple[list, list, dict]]:
    pre = window()
    out = [good(), bad()]
    out.append((pre, [pre[2], pre[0], pre[1]], {"operator": "reorder"}))
    out.append((pre, [summary("s1", "Retries 3 [src:call_1], 12 rows [src:call_2].\n", [CONF_H, HTTP_H])],
                {"operator": "summarize", "evicted": ["a1"]}))
    out.append((pre, [summary("s1", "Retries 4.\n", [CONF_H, HTTP_H])], {"operator": "summarize"}))
    out.append((pre, [pre[0], pre[1]], {"operator": "prune"}))
    out.append((pre, pre, {"operator": "rewrite", "pointers": [
        {"block": "t1", "handle": CONF_H, "start": 0, "end": 9, "hash": "blake3:" + "0" * 64}]}))
    return out


def test_threads_checking_on_one_gate_get_the_sequential_verdicts():
    edits = _edits() * 6
    expected = [_comparable(gate_for(SOURCES).check(pre, post, **kw)) for pre, post, kw in edits]
    g = gate_for(SOURCES)
    start = threading.Barrier(6)

    def run(i: int):
        if i < 6:
            start.wait()
        pre, post, kw = edits[i]
        return _comparable(g.check(pre, post, **kw))

    with ThreadPoolExecutor(max_workers=6) as pool:
        got = list(pool.map(run, range(len(edits))))
    assert got == expected
    assert len(g.history) == len(edits)
    assert audit_count(g.store) == len(edits)


def test_the_gate_caches_stay_within_budget_and_keep_what_one_check_inserted():
    from provgate.gate import _Cache

    cache = _Cache(100)
    cache.put_many([(k, str(k), 10) for k in range(8)])  # 80 of 100
    assert len(cache) == 8 and cache.get(0) == "0"
    cache.put_many([(k, str(k), 10) for k in range(8, 12)])  # 120: the oldest go, down to <= 50
    assert all(cache.get(k) == str(k) for k in range(8, 12))  # this call's entries all stay
    assert cache.get(0) is None and len(cache) < 12
    cache.put(5, "five", 10)  # re-inserting replaces the value and its cost
    assert cache.get(5) == "five"
    big = _Cache(1)
    big.put_many([("a", 1, 50), ("b", 2, 50)])  # one call larger than the budget keeps both
    assert big.get("a") == 1 and big.get("b") == 2
    big.put("c", 3, 50)
    assert big.get("c") == 3 and big.get("a") is None


def test_a_fresh_gate_never_vouches_for_a_source_whose_stored_bytes_are_damaged(tmp_path):
    # red team 3, H04: a fresh gate took a window block's text for its source's bytes (the same
    # digest) without reading the store, and accepted I3 and P for a source the store refuses
    from store_helpers import flip_byte_after

    path = str(tmp_path / "s.sqlite3")
    text = "ZQXJ-config-marker retries=3\ntimeout=30\n"
    with SourceStore(path) as s:
        s.put("tool:c1", text)
        s.put("tool:c2", HTTP)
    pre = [tool("t1", "tool:c1", text), tool("t2", "tool:c2", HTTP)]
    post = [*pre, summary("s1", "Config: retries=3, timeout=30.\n", ["tool:c1"])]
    with SourceStore(path) as s:
        assert Gate(s).check(pre, post, operator="summarize").accepted
    flip_byte_after(path, b"ZQXJ-config-marker", skip=0)
    with SourceStore(path) as s:
        with pytest.raises(StoreCorruptionError, match="tool:c1"):
            Gate(s).check(pre, post, operator="summarize")


# -- a check whose audit record cannot be written (red team 26, w03) ---------------------------


def _session_state(gate: Gate) -> tuple:
    return (gate.history, gate.pins, {r: list(line) for r, line in gate._read_log.items()}, dict(gate._read_of),
            set(gate._read_names), gate._cumulative, gate._pinned_norms)


def _without_clock(record: dict) -> dict:
    return {k: v for k, v in record.items() if k not in ("ts", "timings_ms")}


def _audit_without_clock(store: SourceStore) -> list[dict]:
    return [_without_clock(r) for _, r in store.iter_audit()]


@pytest.mark.parametrize("failing", ["_append_gate_audit", "put_cached_facts_many"])
def test_a_check_whose_audit_record_cannot_be_written_leaves_no_trace_in_the_session(tmp_path, monkeypatch, failing):
    # Gate.check raised a read-only store's error after recording the cycle in the gate's
    # history, pins and read log: the session's next cycle number, pins and reads then
    # differed from what the audit log (and so a resumed session) holds
    from provgate.errors import StoreReadOnlyError

    first_pre = [tool("t1", CONF_H, CONF, ts=1.0, resource="file:conf")]
    # an accepted check that pins (a block with a handle, one without), logs a read, moves the
    # cumulative retention, and scans a source for a summary grounded in it (its fact table is
    # persisted before the audit record is appended)
    pre = [tool("t1", CONF_H, CONF, ts=1.0, resource="file:conf", pinned=True),
           tool("t2", HTTP_H, HTTP, ts=2.0, resource="file:http"),
           blk("n", "user", "keep this note\n", pinned=True), blk("a1", "assistant", NOTE)]
    post = [*pre, summary("s1", "The orders call returned 12 rows [src:call_2].\n", [HTTP_H])]
    stores = [store_with(SOURCES, tmp_path / f"{name}.sqlite3") for name in ("failing", "twin")]
    gates = [Gate(s, session="s") for s in stores]
    for g in gates:
        assert_accepted(g.check(first_pre, first_pre, operator="reorder", commit=True))
    failing_gate, twin = gates
    before = _session_state(failing_gate)
    audit_before = _audit_without_clock(stores[0])

    refused: list[str] = []

    def refuse(*args, **kwargs):
        refused.append(failing)
        raise StoreReadOnlyError(f"store {stores[0].path!r} is read-only", path=stores[0].path)

    with monkeypatch.context() as m:
        m.setattr(stores[0], failing, refuse)
        with pytest.raises(StoreReadOnlyError):
            failing_gate.check(pre, post, operator="summarize", commit=True)
        assert refused == [failing]
        assert _session_state(failing_gate) == before  # no cycle, pin, read or retention of it
        assert _audit_without_clock(stores[0]) == audit_before
    # the same check again, now that the store takes it, is what it is on a gate that never
    # failed: cycle 2, the same pins, reads and audit record
    verdicts = [g.check(pre, post, operator="summarize", commit=True) for g in gates]
    assert [v.cycle for v in verdicts] == [2, 2] and verdicts[0].accepted
    assert _without_clock(verdicts[0].to_json()) == _without_clock(verdicts[1].to_json())
    assert _session_state(failing_gate)[1:] == _session_state(twin)[1:]
    # (and the check did add to each part of the session, so the test above is not vacuous)
    assert all(now != then for now, then in zip(_session_state(twin)[1:], before[1:]))
    assert [(c.cycle, c.accepted, c.retention) for c in failing_gate.history] == \
           [(c.cycle, c.accepted, c.retention) for c in twin.history]
    assert _audit_without_clock(stores[0]) == _audit_without_clock(stores[1])
    resumed = Gate(stores[0], session="s")
    assert resumed.pins == failing_gate.pins and resumed._read_log == failing_gate._read_log
    assert resumed._pinned_norms == failing_gate._pinned_norms
    for s in stores:
        s.close()


# -- a window's text counts taken from the window it was rewritten from --------------------------

_WINDOWS: list[Window] = []  # (a side holds its window weakly: these live for the test)


def _side_of(digests: list[bytes]) -> _Side:
    window = Window([{"id": f"b{i}", "role": "user", "text": "x"} for i in range(len(digests))])
    _WINDOWS.append(window)
    return _Side(window, ["x"] * len(digests), digests)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=12), st.data())
def test_text_counts_taken_from_a_rewritten_window_are_its_own(texts, data):
    # _Side.inherit's counts against counting: a few positions rewritten, to texts the window
    # holds (repeated or not) or new ones, with the old window's positions index made or not
    pre = _side_of([bytes([t]) for t in texts])
    differing = sorted(data.draw(st.sets(st.integers(0, len(texts) - 1), min_size=1, max_size=3)))
    post_digests = list(pre.digests)
    for j in differing:
        post_digests[j] = bytes([data.draw(st.integers(0, 9))])
    differing = [j for j in differing if post_digests[j] != pre.digests[j]]
    pre.text_counts()
    if data.draw(st.booleans()):
        pre.positions(pre.digests[0])
    post = _side_of(post_digests)
    post.inherit(pre, differing)
    fresh = _side_of(post_digests)
    assert post._text_counts == Counter(post_digests) and all(post._text_counts.values())
    for d in map(bytes, ([t] for t in range(10))):
        assert list(post.positions(d)) == list(fresh.positions(d)) == [j for j, x in enumerate(post_digests) if x == d]
    _WINDOWS.clear()


def test_a_session_chain_keeps_its_windows_indexes_true():
    # each next edit leaves its post window the indexes of its pre window (Gate's in-place
    # path, _Check._pass_on): text counts, and the reads while no read's text changed; every
    # step, whatever the verdict, they are what counting the window finds
    g = Gate(store_with({"tool:t1": "alpha 1\n", "tool:t2": "beta 2\n", "tool:r1": "retries=3\n",
                         "tool:r2": "retries=5\n"}), audit=False)
    blocks = [tool("t1", "tool:t1", "alpha 1\n"), tool("t2", "tool:t2", "beta 2\n"),
              tool("r1", "tool:r1", "retries=3\n", ts=1.0, resource="file:app.ini"),
              tool("r2", "tool:r2", "retries=5\n", ts=2.0, resource="file:app.ini"),
              blk("a1", "assistant", "alpha 1 [src:t1]\n"), blk("a2", "assistant", "alpha 1 [src:t1]\n")]
    window = Window(blocks)
    steps = [(5, "beta 2 [src:t2]\n"), (5, "alpha 1 [src:t1]\n"), (3, "retries=3\n"), (4, "beta 2 [src:t2]\n"),
             (3, "retries=5\n"), (5, "alpha 1 and beta 2 [src:t1] [src:t2]\n")]
    taken = {"counts": 0, "reads": 0}
    for j, text in steps:
        nxt = Window([*window.blocks[:j], {**window.blocks[j].to_json(), "text": text}, *window.blocks[j + 1:]])
        g.check(window, nxt, operator="rewrite", commit=True)
        side = g.side(nxt, "post", {})
        if side._text_counts is not None:
            assert side._text_counts == Counter(side.digests)
            taken["counts"] += 1
        if side._reads is not None:
            d = side.digests
            assert side._reads == {r: p for r, p in side.by_resource().items() if len({d[i] for i in p}) > 1}
            taken["reads"] += 1
        window = nxt
    assert taken["counts"] >= 4 and taken["reads"] >= 2


def test_a_session_chain_passes_on_its_windows_digests_end_to_end():
    # a pinned text makes each check search pre's digests end to end (_Side.holding_text); an
    # edit in place leaves post that buffer with its changed digests spliced in (_pass_on):
    # every step, whatever the verdict, it is post's digests joined
    g = Gate(store_with({"tool:t1": "alpha 1\n", "tool:t2": "beta 2\n"}), audit=False)
    blocks = [blk("u1", "user", "keep this exactly\n", pinned=True), tool("t1", "tool:t1", "alpha 1\n"),
              tool("t2", "tool:t2", "beta 2\n"), blk("a1", "assistant", "alpha 1 [src:t1]\n"),
              blk("a2", "assistant", "beta 2 [src:t2]\n")]
    window = Window(blocks)
    steps = [(3, "alpha 1, again [src:t1]\n"), (4, "beta 2 [src:t2]\n"), (3, "beta 2 [src:t2]\n"),
             (0, "keep this, changed\n"), (4, "alpha 1 [src:t1]\n"), (3, "alpha 1 [src:t1] beta 2 [src:t2]\n")]
    taken = 0
    for j, text in steps:
        nxt = Window([*window.blocks[:j], {**window.blocks[j].to_json(), "text": text}, *window.blocks[j + 1:]])
        g.check(window, nxt, operator="rewrite", commit=True)
        side = g.side(nxt, "post", {})
        if side._text_handles is not None:
            assert side._text_handles == b"".join(side.digests)
            taken += 1
        window = nxt
    assert taken >= 4


# red team 50, f07: a session record whose pins are not of the form a gate writes (appended by
# other code through SourceStore.append_audit, or rewritten with its checksum) made the resume
# raise a raw TypeError, or pass the pins over: the session then ran without them
@pytest.mark.parametrize("field,record", [
    ("pins.handles", {"pins": {"handles": 5}}),
    ("pins.ids", {"pins": {"handles": ["tool:a"], "ids": None}}),
    ("pins", {"pins": "tool:a"}),
    ("pins.handles", {"pins": {"handles": ["tool:a", 7], "ids": []}}),
    ("pins.normalised", {"pins": {"handles": [], "ids": [], "texts": True, "normalised": "block:00"}}),
    ("reads", {"reads": [["tool:a", 1.0]]}),
    ("refused_summaries", {"refused_summaries": {"blake3:" + "0" * 64: ["tool:a"]}}),
])
def test_a_resume_refuses_a_record_whose_pins_it_cannot_read_naming_it(tmp_path, field, record):
    with SourceStore(tmp_path / "s.sqlite3") as store:
        store.put("tool:a", "retries=3\n")
        store._append_gate_audit([{"session": "s", "cycle": 1, "pins": {"handles": ["tool:a"], "ids": ["b1"], "texts": True}}])
        seq = store._append_gate_audit([{"session": "s", "cycle": 2, **record}])[0]
        with pytest.raises(StoreCorruptionError, match=f"audit record {seq} of session 's': its '{field}' is not"):
            Gate(store, session="s")
        store._append_gate_audit([{"session": "t", "cycle": 1}])  # a record without pins was written before them
        assert Gate(store, session="t").pins == (frozenset(), frozenset())


# -- red team 64, F06: a record holds the pins its check added, not the session's whole set ----

_PAGE, _RENDERED = "retries=3\nmode=fast\n", "retries=3\r\nmode=fast\r\n"


def _turn(k: int) -> dict:
    # every fourth turn without a handle: it is pinned by its text, and its id kept (Gate.pins)
    return blk(f"u{k}", "user", f"Requirement {k} holds.\n", () if k % 4 == 3 else [f"user:u{k}"], pinned=True)


def _pinning_session(store: SourceStore, session: str, cycles: int) -> tuple[Gate, list, list[tuple[set, set]]]:
    """A session that pins a user turn a cycle and evicts the one five cycles older on the record
    (red team 64's F05/F06 shape), with a pinned page shown re-rendered (a rendering, normalised
    pins) and a refused summary of an evicted pinned turn: the live gate, its last window, and
    the (handles, ids) each check added to the session."""
    g = Gate(store, session=session)
    window = [blk("sys", "system", "You are helpful.\n"), tool("p", "tool:a", _PAGE, pinned=True)]
    added = []
    for k in range(cycles):
        before = g.pins
        pre = window + [_turn(k)]
        if k == 7:  # the page shown again re-rendered, without its flag: kept so, and flagged
            pre = [tool("p", "tool:a", _RENDERED) if b["id"] == "p" else b for b in pre]
            window = [tool("p", "tool:a", _RENDERED, pinned=True) if b["id"] == "p" else b for b in window]
        if k == 9:  # a summary of an evicted pinned turn, refused (and not committed)
            assert not g.check(pre, [*pre, summary("s", "Requirement 1 holds.\n", ["user:u1"])],
                               operator="summarize").accepted
            added.append((g.pins[0] - before[0], g.pins[1] - before[1]))
            before = g.pins
        gone = pre[-6] if k >= 5 else None
        post = [b for b in pre if b is not gone]
        evicted = [] if gone is None else (gone["handles"] or [gone["id"]])
        v = g.check(pre, post, operator="evict", evicted=evicted, commit=True)
        added.append((g.pins[0] - before[0], g.pins[1] - before[1]))
        if v.accepted:
            window = post
    return g, window, added


def _pinned_state(g: Gate) -> tuple:
    return (g.pins, g._pinned_norms, g._pinned_renderings, g._legacy_pins, g._refused_summaries)


def _probe_verdicts(g: Gate, window: list, cycles: int) -> list[dict]:
    """What the session's sticky pins decide: the next cycle, a summary of an evicted pinned turn
    (with and without a handle), the re-rendered page summarized from its own text, and a
    rewrite of a kept pinned turn."""
    nxt = window + [_turn(cycles)]
    rendered_text = block_text_handle(blake3(_RENDERED.encode()).digest())
    edits = [
        (nxt, [b for b in nxt if b is not nxt[-6]], {"operator": "evict", "evicted": nxt[-6]["handles"] or [nxt[-6]["id"]]}),
        (window, [*window, summary("s", "Requirement 2 holds.\n", ["user:u2"])], {"operator": "summarize"}),
        (window, [*window, summary("s", "Requirement 3 holds.\n",
                                   [block_text_handle(blake3(b"Requirement 3 holds.\n").digest())])],
         {"operator": "summarize"}),
        ([b for b in window if b["id"] != "p"] + [tool("p", "tool:a", _RENDERED)],
         [b for b in window if b["id"] != "p"] + [summary("s", "Retries are 3.\n", [rendered_text])],
         {"operator": "summarize", "evicted": ["tool:a"]}),
        (window, [{**b, "text": b["text"].replace("holds", "is void")} if b["id"] == window[-1]["id"] else b
                  for b in window], {"operator": "rewrite"}),
    ]
    return [comparable(g.check(pre, post, **kw)) for pre, post, kw in edits]


def _pinning_store(tmp_path, cycles: int) -> SourceStore:
    store = SourceStore(tmp_path / "s.sqlite3")
    store.put_many([("tool:a", _PAGE), *((f"user:u{k}", _turn(k)["text"]) for k in range(cycles + 1))])
    return store


def test_a_resumed_session_after_many_pinning_cycles_is_the_live_one_and_records_hold_their_own_pins(tmp_path):
    cycles = 40
    with _pinning_store(tmp_path, cycles) as store:
        live, window, added = _pinning_session(store, "s", cycles)
        resumed = Gate(store, session="s")
        assert _pinned_state(resumed) == _pinned_state(live)
        assert live._pinned_renderings and len(live._pinned_norms) > cycles  # (the session reached them)
        assert _probe_verdicts(resumed, window, cycles) == _probe_verdicts(live, window, cycles)
        # every record holds what its check added to the session (the turn it pinned: its
        # handle and its text's, or its id), not the session's pins so far: a record's size does
        # not grow with the session's age (the log held O(K^2) pins, 194 MB at 2,000 cycles)
        records = [r for _, r in store.iter_audit_of_session("s")][:len(added)]
        assert len(records) == len(added)
        for record, (handles, ids) in zip(records, added):
            pins = record["pins"]
            assert pins["added"] is True and pins["texts"] is True
            assert pins["handles"] == sorted(handles) and pins["ids"] == sorted(ids)
            # (at most the page and a turn, each by its handle and its text, and the rendering)
            assert len(pins["handles"]) <= 5 and len(pins["ids"]) <= 1 and len(pins["normalised"]) <= 2
        assert sum(1 for r in records if not r["pins"]["handles"]) >= 1  # (a check adding none: empty lists)


@pytest.mark.parametrize("old", ["every record", "the older half", "legacy first record"])
def test_a_session_resumes_alike_from_records_holding_the_whole_pin_set(tmp_path, old):
    # records written before red team 64's F06 hold the session's whole pin set; a log of them,
    # or of them followed by records of what each check added, resumes to the same session
    cycles = 24
    with _pinning_store(tmp_path, cycles) as store:
        live, window, _ = _pinning_session(store, "s", cycles)
        records = [r for _, r in store.iter_audit_of_session("s")]
        if old == "legacy first record":  # (written before "texts", "normalised" and "renderings")
            records[0] = {**records[0], "pins": {"handles": records[0]["pins"]["handles"],
                                                 "ids": records[0]["pins"]["ids"]}}
        whole: dict[str, set] = {key: set() for key in ("handles", "ids", "normalised", "renderings")}
        legacy_ref: list[dict] = []  # the same log with every record holding the whole set
        for n, record in enumerate(records):
            for key, held in whole.items():
                held.update(record["pins"].get(key, ()))
            full = {**record, "session": "full", "pins": {**{k: sorted(v) for k, v in whole.items()}, "texts": True}}
            if old == "legacy first record" and n == 0:
                full["pins"] = record["pins"]
            legacy_ref.append(full)
            if old == "every record" or (old == "the older half" and n < len(records) // 2) or n == 0:
                mixed = {**full, "session": "mixed"}
            else:
                mixed = {**record, "session": "mixed"}
            store._append_gate_audit([mixed])
        for record in legacy_ref:
            store._append_gate_audit([record])
        full, mixed = Gate(store, session="full"), Gate(store, session="mixed")
        assert _pinned_state(mixed) == _pinned_state(full)
        if old != "legacy first record":
            assert _pinned_state(full) == _pinned_state(live)
        assert _probe_verdicts(mixed, window, cycles) == _probe_verdicts(full, window, cycles)


def test_a_phase_running_several_rules_reports_their_time_together(monkeypatch):
    # each rule's time replaced the one before in its phase: I1 reported its last rule only
    from types import SimpleNamespace

    from provgate import gate as gate_module

    ticks = iter(range(100))
    monkeypatch.setattr(gate_module.time, "perf_counter", lambda: float(next(ticks)))
    check = SimpleNamespace(timings={})
    for _ in range(3):
        gate_module._Check._timed(check, "I1", lambda: None)
    gate_module._Check._timed(check, "I2", lambda: None)
    assert check.timings == {"I1": 3000.0, "I2": 1000.0}


def test_a_checks_state_read_from_the_class_is_immutable_and_never_carried_to_the_next_check():
    # _Check keeps the state that starts as None, False, 0 or an empty frozenset on the class
    # (the next edit paid the instance dict's growth on every check): a mutable default there
    # would be one object shared by every check of every gate, and what one check put in it
    # would be read by the next
    from provgate import gate as gate_module
    from provgate.window import Edit

    immutable = (type(None), bool, int, float, str, frozenset, tuple)
    defaults = {name: value for name, value in vars(gate_module._Check).items()
                if not name.startswith("__") and not callable(value)
                and not isinstance(value, (property, staticmethod, classmethod))}
    assert defaults, "the class-level defaults were moved back to __init__: drop this test"
    assert {name: type(v).__name__ for name, v in defaults.items() if not isinstance(v, immutable)} == {}

    # a check that sets them (pins taken up, a violation counted past the limit) leaves the
    # class's values as they were, and the next check starts from them
    gate = gate_for({"tool:a": "retries=3\n"})
    pre = Window([tool("t", "tool:a", "retries=3\n"), blk("a", "assistant", "retries is 3. [src:a]")])
    post = Window([tool("t", "tool:a", "retries=3\n"), blk("a", "assistant", "retries is  3. [src:a]")])
    first = gate_module._Check(gate, Edit("rewrite", pre, post), 0.95, gate._sticky)
    assert first.run("reject", 0).accepted
    assert "_beyond_flags" in vars(first)  # (set by this check, on itself)
    first.dropped_violations += 2
    assert first.dropped_violations == 2 and gate_module._Check.dropped_violations == 0
    assert {name: getattr(gate_module._Check, name) for name in defaults} == defaults
    second = gate_module._Check(gate, Edit("rewrite", pre, post), 0.95, gate._sticky)
    assert second.dropped_violations == 0 and second._beyond_flags is None and second.touched is None
    assert gate.check(pre, post, operator="rewrite").accepted
