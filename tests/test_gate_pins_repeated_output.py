"""R and a tool output whose bytes a later, separate tool call repeats (red team 132, F03).

compact() preserves a linked block "kept verbatim and pinned from now on"; a later tool call (an
unchanged file read again, `pip show` run again) returns the same bytes under its own handle,
which the store holds with exactly those bytes. That block is a new observation of the same
content, not an echo of the pinned block: it keeps the pinned bytes without the flag, so the
pinned read may be deduplicated (edge and record, or edge only) or masked (evicted on the
record). Before, every such edit was refused R ("pinned block 'c9' is kept but its pin was
removed", c9 never flagged) for the rest of the session. The observation is still held to R
as the pinned text otherwise (rewritten, summarized, dropped off the record, cited once gone),
and a copy that is no such observation (a handle the store does not hold, or holds with other
bytes, the pinned block's own handle, a turn) is held as before (docs/gate.md R, "A tool output
observed again"). Each case runs on the live gate and on a gate resumed from the store; the
suite runs on both paths (PROVGATE_NO_EXTENSIONS=1 for the reference)."""
from __future__ import annotations

import pytest
from blake3 import blake3
from gate_helpers import (
    assert_accepted,
    blk,
    comparable,
    find,
    store_with,
    summary,
    tool,
)

from provgate import Gate, Window, compact
from provgate.handles import block_text_handle

FILE = "# src/pay/client.py\nRETRIES = 3\nTIMEOUT_S = 30\n"
CHANGED = FILE.replace("RETRIES = 3", "RETRIES = 4")
NOTE = "Step 2: RETRIES is 3 [src:c1].\n"
DEDUPE = {"operator": "dedupe", "supersedes": [{"block": "c9", "handle": "tool:c1"}], "evicted": ["tool:c1"]}
EDGE_ONLY = {"operator": "dedupe", "supersedes": [{"block": "c9", "handle": "tool:c1"}]}
MASK = {"operator": "prune", "evicted": ["tool:c1"]}
HONEST = {"dedupe, edge and record": DEDUPE, "dedupe, edge only": EDGE_ONLY, "mask, evicted on the record": MASK}


def _text(text):
    return block_text_handle(blake3(text.encode()).digest())


def _session(tmp_path, c9_source=FILE, c9_handles=("tool:c9",), role="tool", twin=False):
    """c1 (a read of the file) pinned and committed; the window then gets c9, the file read again
    under ``c9_handles`` (stored with ``c9_source``, or not stored when None), as ``role``."""
    store = store_with({"tool:c1": FILE}, tmp_path / ("twin.sqlite3" if twin else "s.sqlite3"))
    if c9_source is not None:
        for h in c9_handles:
            store.put(h, c9_source)
    g = Gate(store, session="S")
    if twin:
        g._incremental_pins = False
    c1 = tool("c1", "tool:c1", FILE, pinned=True)
    note = blk("a2", "assistant", NOTE, [])
    assert_accepted(g.check([c1, note], [c1, note], operator="reorder", commit=True))
    c9 = {"id": "c9", "role": role, "text": FILE, "handles": list(c9_handles)}
    return g, [c1, note, c9]


def _rs(verdict):
    return [(v.invariant, v.block) for v in verdict.violations if v.invariant == "R"]


@pytest.mark.parametrize("form", list(HONEST))
def test_the_pinned_read_is_deduplicated_or_masked_while_the_read_again_stands(tmp_path, form):
    g, window = _session(tmp_path)
    _, note, c9 = window
    assert_accepted(g.check(window, [note, c9], **HONEST[form]))
    # resumed from the store, the same
    assert_accepted(Gate(g.store, session="S").check(window, [note, c9], **HONEST[form]))


@pytest.mark.parametrize("form", list(HONEST))
def test_compact_s_pin_does_not_make_a_later_read_of_the_same_bytes_refused(tmp_path, form):
    # repro F03b: compact() under reconstruction preserves (pins) the linked read c1
    store = store_with({"tool:c1": FILE, "tool:c9": FILE}, tmp_path / "s.sqlite3")
    blocks = [tool("c1", "tool:c1", FILE, ts=10.0, resource="file:src/pay/client.py")]
    for i in range(2, 14):
        blocks.append(blk(f"a{i}", "assistant", f"Step {i}: RETRIES is 3 [src:c1]. " + "I went through the helpers "
                          "again to be sure nothing else touches the retry loop, and found nothing relevant. " * 2 + "\n",
                          []))
    g = Gate(store, session="agent")
    tok = sum(len(b["text"]) // 4 + 1 for b in blocks)
    res = compact(Window(blocks), lambda req: " ".join(f"Step {b.id[1:]}: RETRIES is 3 [src:c1]." for b in req.blocks)
                  + "\n", store=store, gate=g, budget_tokens=int(tok * 1.1))
    assert res.verdict.accepted and list(res.plan.preserve) == ["c1"]
    window = [b.to_json() for b in res.window]
    window.append(tool("c9", "tool:c9", FILE, ts=90.0, resource="file:src/pay/client.py"))
    post = [b for b in window if b["id"] != "c1"]
    for gate in (g, Gate(store, session="agent")):
        assert_accepted(gate.check(window, post, **HONEST[form]))


@pytest.mark.parametrize("resumed", [False, True], ids=["live", "resumed"])
def test_the_read_again_is_held_to_r_once_the_pinned_read_left(tmp_path, resumed):
    g, window = _session(tmp_path)
    _, note, c9 = window
    assert_accepted(g.check(window, [note, c9], **MASK, commit=True))
    # the pinned text stays pinned; the read's handle is no pin (its stored bytes are the text)
    assert _text(FILE) in g.pins[0] and "tool:c9" not in g.pins[0]
    gate = Gate(g.store, session="S") if resumed else g
    later = [note, c9]
    # honest: kept unflagged, flagged, or evicted on its record
    assert_accepted(gate.check(later, later, operator="reorder"))
    assert_accepted(gate.check(later, [note, {**c9, "pinned": True}], operator="reorder"))
    assert_accepted(gate.check(later, [note], operator="prune", evicted=["tool:c9"]))
    # lies: rewritten (no fact changed), dropped off the record, summarized, cited once gone
    reordered = {**c9, "text": "RETRIES = 3\nTIMEOUT_S = 30\n# src/pay/client.py\n"}
    assert "rewritten as 'c9'" in find(gate.check(later, [note, reordered], operator="rewrite"), "R", block="c9").message
    assert "neither kept" in find(gate.check(later, [note], operator="prune"), "R", block="c9").message
    find(gate.check(later, [note, summary("s9", "RETRIES is 3.\n", ["tool:c9"])], operator="summarize",
                    evicted=["tool:c9"]), "R", block="s9", handle="tool:c9")
    find(gate.check(later, [blk("a3", "assistant", "RETRIES is 3 [src:c9].\n", [])], operator="prune",
                    evicted=["tool:c9"]), "R", block="a3")


@pytest.mark.parametrize("resumed", [False, True], ids=["live", "resumed"])
def test_the_pinned_read_is_not_rewritten_or_summarized_because_a_read_again_stands(tmp_path, resumed):
    g, window = _session(tmp_path)
    c1, note, c9 = window
    gate = Gate(g.store, session="S") if resumed else g
    s1 = summary("s1", "RETRIES is 3.\n", ["tool:c1"])
    find(gate.check(window, [s1, note, c9], operator="summarize"), "R", block="s1", handle="tool:c1")
    find(gate.check(window, [s1, note, c9], operator="summarize", evicted=["tool:c1"]), "R", block="s1")
    cut = "# src/pay/client.py\nRETRIES = 3\n"
    for flag in (True, False):
        v = gate.check(window, [{**c1, "text": cut, "pinned": flag}, note, c9], operator="rewrite")
        assert _rs(v) == [("R", "c1")] and "rewritten as 'c1'" in v.violations[0].message
    # the pinned read kept without its flag is refused as before
    assert "pin was removed" in find(gate.check(window, [{**c1, "pinned": False}, note, c9], operator="reorder"),
                                     "R", block="c1").message


@pytest.mark.parametrize("copy", ["handle not stored", "handle stores other bytes", "the pinned block's handle",
                                  "its own handle and the pinned one", "a user turn", "an assistant turn"])
@pytest.mark.parametrize("resumed", [False, True], ids=["live", "resumed"])
def test_a_copy_that_is_no_new_observation_is_held_as_the_pinned_block(tmp_path, copy, resumed):
    kw = {"handle not stored": {"c9_source": None},
          "handle stores other bytes": {"c9_source": CHANGED},
          "the pinned block's handle": {"c9_handles": ("tool:c1",)},
          "its own handle and the pinned one": {"c9_handles": ("tool:c9", "tool:c1")},
          "a user turn": {"c9_handles": ("user:u9",), "role": "user"},
          "an assistant turn": {"role": "assistant"}}[copy]
    g, window = _session(tmp_path, **kw)
    _, note, c9 = window
    gate = Gate(g.store, session="S") if resumed else g
    v = gate.check(window, [note, c9], **MASK)
    assert ("R", "c9") in _rs(v)
    # the honest forms: the copy flagged, or it goes on the record too
    flagged = gate.check(window, [note, {**c9, "pinned": True}], **MASK)
    assert not _rs(flagged)


def test_a_pinned_block_that_left_is_not_called_kept(tmp_path):
    # the edge-only dedupe with a copy that holds the pinned text unflagged and is no new
    # observation: c1 is not in post, so the message names the block holding its text
    g, window = _session(tmp_path, c9_source=CHANGED)
    _, note, c9 = window
    v = g.check(window, [note, c9], **EDGE_ONLY)
    m = find(v, "R", block="c1").message
    assert "is kept" not in m and "'c9' holds its pinned text" in m and "flag 'c9' pinned" in m
    assert "pin was removed" in find(v, "R", block="c9").message


@pytest.mark.parametrize("resumed", [False, True], ids=["live", "resumed"])
def test_a_pinned_read_superseded_by_a_changed_read_leaves_on_the_record(tmp_path, resumed):
    # the related item of F03: an edge is I4's record that a newer read exists, no release of
    # the pin (docs/compaction.md, docs/gate.md R): refused with the edit to send, accepted with it
    g, _ = _session(tmp_path, c9_source=CHANGED)
    gate = Gate(g.store, session="S") if resumed else g
    c1 = tool("c1", "tool:c1", FILE, pinned=True, ts=1.0, resource="file:src/pay/client.py")
    note = blk("a2", "assistant", NOTE, [])
    c9 = tool("c9", "tool:c9", CHANGED, ts=9.0, resource="file:src/pay/client.py")
    v = gate.check([c1, note, c9], [note, c9], operator="prune", supersedes=EDGE_ONLY["supersedes"])
    assert _rs(v) == [("R", "c1")]
    assert "evicted=['tool:c1']" in v.violations[0].message
    assert_accepted(gate.check([c1, note, c9], [note, c9], operator="prune", supersedes=EDGE_ONLY["supersedes"],
                               evicted=["tool:c1"]))


@pytest.mark.parametrize("c9_source", [FILE, CHANGED], ids=["observed again", "other bytes stored"])
def test_the_twin_gate_that_works_every_round_out_whole_agrees(tmp_path, c9_source):
    (tmp_path / "live").mkdir()
    (tmp_path / "twin").mkdir()
    g, window = _session(tmp_path / "live", c9_source=c9_source)
    twin, _ = _session(tmp_path / "twin", c9_source=c9_source, twin=True)
    _, note, c9 = window
    for post, how in [([note, c9], MASK), ([note, c9], EDGE_ONLY),
                      ([summary("s1", "RETRIES is 3.\n", ["tool:c1"]), note, c9], {"operator": "summarize"})]:
        assert comparable(g.check(window, post, **how)) == comparable(twin.check(window, post, **how))
    assert comparable(g.check(window, [note, c9], **MASK, commit=True)) == \
        comparable(twin.check(window, [note, c9], **MASK, commit=True))
    assert g.pins == twin.pins


def test_the_pinned_read_and_the_read_again_do_not_leave_together_off_the_record(tmp_path):
    # in one edit: c1 evicted on the record while c9 is rewritten, summarized or dropped (the
    # pinned bytes would leave the window with no record of them); both evicted on the record
    # leave, and with c1 kept flagged c9 is any block (free, as a copy beside a flagged one was)
    g, window = _session(tmp_path)
    c1, note, c9 = window
    reordered = {**c9, "text": "RETRIES = 3\nTIMEOUT_S = 30\n# src/pay/client.py\n"}
    s9 = summary("s9", "RETRIES is 3.\n", ["tool:c9"])
    assert _rs(g.check(window, [note, reordered], operator="rewrite", evicted=["tool:c1"])) == [("R", "c9")]
    assert _rs(g.check(window, [note, s9], operator="summarize", evicted=["tool:c1", "tool:c9"])) == [("R", "s9")]
    assert _rs(g.check(window, [note], operator="prune", evicted=["tool:c1"])) == [("R", "c9")]
    assert_accepted(g.check(window, [note], operator="prune", evicted=["tool:c1", "tool:c9"]))
    assert_accepted(g.check(window, [c1, note, s9], operator="summarize", evicted=["tool:c9"]))


@pytest.mark.parametrize("resumed", [False, True], ids=["live", "resumed"])
def test_the_read_again_evicted_on_its_record_is_not_restated_later(tmp_path, resumed):
    # its handle is no pin, but its stored bytes are the pinned text: a later summary of it, or a
    # block citing it, restates the pinned read
    g, window = _session(tmp_path)
    _, note, c9 = window
    assert_accepted(g.check(window, [note, c9], **MASK, commit=True))
    assert_accepted(g.check([note, c9], [note], operator="prune", evicted=["tool:c9"], commit=True))
    gate = Gate(g.store, session="S") if resumed else g
    find(gate.check([note], [note, summary("s9", "RETRIES is 3.\n", ["tool:c9"])], operator="summarize"),
         "R", block="s9", handle="tool:c9")
    find(gate.check([note], [note, blk("a3", "assistant", "RETRIES is 3 [src:c9].\n", [])], operator="rewrite"),
         "R", block="a3")


@pytest.mark.parametrize("resumed", [False, True], ids=["live", "resumed"])
def test_a_later_read_of_a_pinned_text_is_told_that_the_text_is_pinned(tmp_path, resumed):
    # red team 133, F11 p2: c1 and its read again c9 both left on the record; a fresh read c10,
    # under its own stored handle, returns the pinned bytes and is summarized later. c10 was never
    # flagged: the message says its TEXT is pinned, and under which pinned handle, not that it is a
    # pinned block
    g, window = _session(tmp_path)
    _, note, c9 = window
    assert_accepted(g.check(window, [note, c9], **MASK, commit=True))
    assert_accepted(g.check([note, c9], [note], operator="prune", evicted=["tool:c9"], commit=True))
    g.store.put("tool:c10", FILE)
    c10 = tool("c10", "tool:c10", FILE)
    gate = Gate(g.store, session="S") if resumed else g
    v = gate.check([note, c10], [note, summary("s10", "RETRIES is 3 [src:c10].\n", ["tool:c10"])],
                   operator="summarize")
    m = find(v, "R", block="c10").message
    assert m.startswith("block 'c10' holds a pinned text (the bytes pinned under 'tool:c1'")
    assert "pinned for the rest of the session" in m and "neither kept byte-identical nor evicted" in m
    assert "pinned block 'c10'" not in m
    # honest: kept, or evicted on its own record
    assert_accepted(gate.check([note, c10], [note, c10], operator="reorder"))
    assert_accepted(gate.check([note, c10], [note], operator="prune", evicted=["tool:c10"]))


@pytest.mark.parametrize("resumed", [False, True], ids=["live", "resumed"])
def test_a_record_of_the_pinned_handle_a_read_again_still_carries_is_said_to_record_nothing(tmp_path, resumed):
    # red team 133, F11 p6: c9 carries its own tool:c9 and the pinned tool:c1; evicted=['tool:c1']
    # records nothing while c9 carries it. The message said "no eviction record" though the record
    # was sent; it now says why it records nothing and what to drop
    g, window = _session(tmp_path, c9_handles=("tool:c9", "tool:c1"))
    _, note, c9 = window
    gate = Gate(g.store, session="S") if resumed else g
    # the edit the message asks for: c9 under its own handle only, accepted (checked first: a
    # check takes up the pins of its pre window whatever its verdict, and c9 carrying the pinned
    # tool:c1 pins tool:c9 from then on)
    assert_accepted(gate.check(window, [note, {**c9, "handles": ["tool:c9"]}], **MASK))
    m = find(gate.check(window, [note, c9], **MASK), "R", block="c1").message
    assert "no eviction record" not in m
    assert "the eviction record of 'tool:c1' records nothing, as block 'c9' still carries that handle" in m
    assert "drop 'tool:c1' from 'c9'" in m
    # and the record void for a pinned block dropped while c9 keeps the handle with other text
    cut = {**c9, "text": "# src/pay/client.py\n"}
    m = find(gate.check(window, [note, cut], **MASK), "R", block="c1").message
    assert "neither kept byte-identical nor evicted with a record: the eviction record of 'tool:c1' records nothing" in m
