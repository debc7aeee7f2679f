"""R and a pinned page shown again re-rendered (docs/gate.md R, "A pinned page re-rendered").

A framework that re-renders its window each pass (CRLF line ends, trailing blanks, a final line
break dropped) shows a pinned page again under its pinned handle with other bytes and, often,
without its flag. The gate pins bytes, so such a page was no pinned text any more: it counted as
a sibling (another page of the pinned output) and a summary of its own text passed, although the
structural fast path's whitespace normalisation calls the two texts the same block (red team 42,
R1). Now a block carrying a pinned handle whose text is a pinned text after that normalisation
is the pinned block: kept byte-identical to the bytes pre holds and flagged, or evicted with a
record; summarized, from its handle or from the handle of its text, it is refused - in the
live session, in a resumed one, and compact() plans it pinned.
"""

from __future__ import annotations

import pytest
from blake3 import blake3
from compaction_helpers import filler, memory_store
from gate_helpers import assert_accepted, blk, find, store_with, summary, tool
from hypothesis import given
from hypothesis import strategies as st

from provgate.compaction import compact
from provgate.errors import EditFormatError
from provgate.gate import Gate
from provgate.handles import block_text_handle
from provgate.window import Block, Window

PAGE = "retries=3\nmode=fast\n"
RENDERINGS = {
    "crlf": "retries=3\r\nmode=fast\r\n",
    "trailing blanks": "retries=3  \nmode=fast\t\n",
    "final line break dropped": "retries=3\nmode=fast",
    "blank lines around": "\n\nretries=3\nmode=fast\n\n\n",
}
OTHER_PAGE = "workers=8\nqueue=deep\n"
SRC = {"tool:a": PAGE + OTHER_PAGE}
SAID = "Retries are 3, mode fast.\n"
U = blk("u", "user", "go on\n")
U_BLOCK = Block("u", "user", "go on\n")


def text_handle(text: str) -> str:
    return block_text_handle(blake3(text.encode("utf-8")).digest())


def pinned_gate(rendering: str, path=":memory:", session=None) -> Gate:
    """A gate whose first check committed the page pinned; the store holds the re-rendered page
    under the handle of its text (as compact() stores a summarized block's text)."""
    store = store_with({**SRC, text_handle(rendering): rendering}, path)
    g = Gate(store, session=session)
    window = [tool("p", "tool:a", PAGE, pinned=True), U]
    assert_accepted(g.check(window, window, operator="reorder", commit=True), "structural")
    return g


renderings = pytest.mark.parametrize("rendering", list(RENDERINGS.values()), ids=list(RENDERINGS))


@renderings
def test_a_re_rendered_pinned_page_summarized_from_its_own_text_is_refused(rendering):
    g = pinned_gate(rendering)
    pre = [tool("p", "tool:a", rendering), U]
    made = summary("s", SAID, [text_handle(rendering)])
    v = g.check(pre, [made, U], operator="summarize", evicted=["tool:a"])
    find(v, "R", block="s", handle=text_handle(rendering))
    # and without the record: the pinned block is neither kept nor evicted
    v = g.check(pre, [made, U], operator="summarize")
    find(v, "R", block="p")
    find(v, "R", block="s")
    # from its handle it was refused before too
    find(g.check(pre, [summary("s", SAID, ["tool:a"]), U], operator="summarize", evicted=["tool:a"]),
         "R", block="s", handle="tool:a")


@renderings
def test_a_re_rendered_pinned_page_is_refused_in_a_resumed_session(tmp_path, rendering):
    live = pinned_gate(rendering, tmp_path / "s.sqlite3", "rr")
    resumed = Gate(live.store, session="rr")
    pre = [tool("p", "tool:a", rendering), U]
    made = summary("s", SAID, [text_handle(rendering)])
    for g in (live, resumed):
        find(g.check(pre, [made, U], operator="summarize", evicted=["tool:a"]), "R", block="s")
    # a gate resumed from the records those checks wrote holds it too, as do its records
    again = Gate(live.store, session="rr")
    find(again.check(pre, [made, U], operator="summarize", evicted=["tool:a"]), "R", block="s")
    assert again.pins == live.pins
    # (the normalised texts it pins too, from the records' pins)
    assert again._pinned_norms == live._pinned_norms == {text_handle(PAGE.rstrip("\n"))}


@renderings
def test_the_re_rendered_page_kept_byte_identical_and_flagged_or_evicted_on_the_record_is_accepted(rendering):
    g = pinned_gate(rendering)
    pre = [tool("p", "tool:a", rendering), U]
    # the bytes the framework handed over, kept as they are and pinned
    assert_accepted(g.check(pre, [tool("p", "tool:a", rendering, pinned=True), U], operator="reorder"), "structural")
    assert_accepted(g.check(pre, [U, tool("p", "tool:a", rendering, pinned=True)], operator="reorder"), "structural")
    # evicted with a record of its handle
    assert_accepted(g.check(pre, [U], operator="evict", evicted=["tool:a"], commit=True), "lossless")
    # and the pinned page stays pinned in every later pass: no summary of it then either
    for derived_from in ([text_handle(rendering)], ["tool:a"], [text_handle(PAGE)]):
        find(g.check([U], [U, summary("s", SAID, derived_from)], operator="summarize"), "R", block="s")


@renderings
def test_the_re_rendered_page_is_held_as_a_copy_of_the_pinned_bytes_is(rendering):
    g = pinned_gate(rendering)
    pre = [tool("p", "tool:a", rendering), U]
    # kept without the flag: the pin was removed, as for a copy of the pinned bytes
    find(g.check(pre, pre, operator="reorder"), "R", block="p")
    find(g.check([tool("p", "tool:a", PAGE), U], [tool("p", "tool:a", PAGE), U], operator="reorder"), "R", block="p")
    # rewritten, or dropped off the record, it is the pinned block changed or lost
    find(g.check(pre, [tool("p", "tool:a", "retries=3\nmode=slow\n", pinned=True), U], operator="rewrite"),
         "R", block="p")
    find(g.check(pre, [U], operator="prune"), "R", block="p")


@renderings
def test_a_flagged_pinned_block_is_held_to_its_bytes_and_a_copy_is_let_go_by_the_page_in_either_rendering(rendering):
    g = pinned_gate(rendering)
    # the flagged page itself re-rendered by the edit is a change of a pinned block (R compares
    # bytes: the whitespace normalisation does not count there)
    flagged = [tool("p", "tool:a", PAGE, pinned=True), U]
    find(g.check(flagged, [tool("p", "tool:a", rendering, pinned=True), U], operator="rewrite"), "R", block="p")
    # a block held as the pinned page re-rendered (flag lost) is let go while post keeps that
    # text flagged, in either rendering: the pinned page is there; a block holding the pinned
    # bytes themselves, only while post keeps those bytes flagged
    for before, after in ((rendering, PAGE), (rendering, rendering), (PAGE, PAGE)):
        pre = [tool("p", "tool:a", before), U]
        assert_accepted(g.check(pre, [tool("p", "tool:a", after, pinned=True), U], operator="rewrite"))
        # but a summary of it, from the handle of its text, summarizes the pinned text
        beside = [tool("p", "tool:a", after, pinned=True), summary("s", SAID, [text_handle(before)]), U]
        find(g.check(pre, beside, operator="summarize"), "R", block="s", handle=text_handle(before))
    # the pinned bytes shown without the flag and re-rendered by the edit are the pinned block
    # changed, as with the flag (red team 44, F3: accepted as structural)
    find(g.check([tool("p", "tool:a", PAGE), U], [tool("p", "tool:a", rendering, pinned=True), U],
                 operator="rewrite"), "R", block="p")


def test_a_re_rendered_page_kept_flagged_holds_the_pinned_source_for_a_new_citation():
    # a turn citing the pinned source while the pinned page stays is a reference; the page
    # re-rendered is that page, so the source is still held (before, it was read as a sibling:
    # the pinned bytes gone, the citation restated them, R)
    rendering = RENDERINGS["crlf"]
    g = pinned_gate(rendering)
    pre = [tool("p", "tool:a", rendering), U]
    turn = blk("t", "assistant", "The client retries as the page says [src:a].\n")
    post = [tool("p", "tool:a", rendering, pinned=True), U, turn]
    assert_accepted(g.check(pre, post, operator="rewrite"))


def test_a_re_rendered_copy_beside_the_flagged_page_in_the_first_pass():
    # the pass that sees the pin: the flagged page's text and handle are pinned from it on, so a
    # re-rendered copy under that handle is the pinned page too, as a copy of its bytes is
    rendering = RENDERINGS["crlf"]
    g = Gate(store_with({**SRC, text_handle(rendering): rendering}))
    p, q = tool("p", "tool:a", PAGE, pinned=True), tool("q", "tool:a", rendering)
    v = g.check([p, q, U], [p, summary("s", SAID, [text_handle(rendering)]), U], operator="summarize")
    assert [(x.invariant, x.block, x.handle) for x in v.violations] == [("R", "s", text_handle(rendering))]
    # kept beside the flagged page (which lets it go, as it lets a copy of its bytes go), or
    # evicted with the page's record, it is accepted
    assert_accepted(g.check([p, q, U], [p, q, U], operator="reorder"), "structural")
    assert_accepted(g.check([p, q, U], [U], operator="evict", evicted=["tool:a"]), "lossless")
    # without the flagged page in post it is held: kept, it must carry the flag
    find(g.check([p, q, U], [q, U], operator="prune", evicted=["p"]), "R", block="q")


def test_a_sibling_page_is_still_no_pinned_block():
    # only a pinned text re-rendered is held: another page under the pinned handle stays free
    g = pinned_gate(RENDERINGS["crlf"])
    sibling = tool("s", "tool:a", OTHER_PAGE.replace("\n", "\r\n"))
    g.store.put(text_handle(sibling["text"]), sibling["text"])
    pre = [sibling, U]
    assert_accepted(g.check(pre, pre, operator="reorder"), "structural")
    made = summary("m", "Workers are 8.\n", [text_handle(sibling["text"])])
    assert_accepted(g.check(pre, [made, U], operator="summarize", evicted=["tool:a"]), "lossy")


def test_a_re_rendered_pinned_text_under_no_pinned_handle_is_no_pinned_block():
    # the normalised text is no pin of its own: a block under another handle that normalises to
    # a pinned text is judged as any block (a copy of the exact bytes would be held)
    rendering = RENDERINGS["crlf"]
    g = pinned_gate(rendering)
    g.store.put("tool:b", rendering)
    pre = [tool("b", "tool:b", rendering), U]
    assert_accepted(g.check(pre, pre, operator="reorder"), "structural")
    assert_accepted(g.check(pre, [summary("s", SAID, ["tool:b"]), U], operator="summarize", evicted=["tool:b"]),
                    "lossy")


def test_records_written_before_normalised_pins_are_read_and_the_pin_is_taken_up_again(tmp_path):
    # an older record holds the pinned page's handles and text handle, not its normalised text:
    # it is read as before, and the gate pins the normalised text once it meets the page's bytes
    rendering = RENDERINGS["crlf"]
    store = store_with({**SRC, text_handle(rendering): rendering}, tmp_path / "s.sqlite3")
    store._append_gate_audit([{"session": "old", "cycle": 1, "accepted": True, "retention": None,
                        "pins": {"handles": sorted(["tool:a", text_handle(PAGE)]), "ids": [], "texts": True}}])
    old = Gate(store, session="old")
    assert old.pins[0] == {"tool:a", text_handle(PAGE)}
    kept = [tool("p", "tool:a", PAGE, pinned=True), U]
    assert_accepted(old.check(kept, kept, operator="reorder", commit=True), "structural")
    pre = [tool("p", "tool:a", rendering), U]
    made = summary("s", SAID, [text_handle(rendering)])
    find(old.check(pre, [made, U], operator="summarize", evicted=["tool:a"]), "R", block="s")
    find(Gate(store, session="old").check(pre, [made, U], operator="summarize", evicted=["tool:a"]), "R", block="s")


# compact() ---------------------------------------------------------------------------------------

BIG_PAGE = PAGE + filler(60)
BIG_RENDERING = BIG_PAGE.replace("\n", "  \r\n")


def _compact(window: Window, later: bool, budget: int) -> tuple:
    store = memory_store({"tool:a": BIG_PAGE})
    g = Gate(store)
    if later:
        first = Window([Block("p0", "tool", BIG_PAGE, ("tool:a",), pinned=True), Block("u", "user", "go on\n")])
        assert_accepted(g.check(first, first, operator="reorder", commit=True))
    requests = []

    def summarize(request):
        requests.append(request)
        return "Earlier: " + " ".join(f"[src:{m}]" for m in request.markers) + " S.\n"

    result = compact(window, summarize, store=store, budget_tokens=budget, task="recall", gate=g)
    assert result.verdict.accepted, result.verdict.summary()
    # the committed window passes an unchanged check in the next pass
    assert_accepted(g.check(result.window, result.window, operator="reorder"), "structural")
    return result, [[b.id for b in r.blocks] for r in requests]


@pytest.mark.parametrize("later", [False, True], ids=["first pass", "later pass"])
def test_compact_does_not_summarize_a_re_rendered_copy_beside_the_pinned_page(later):
    # before, the planner summarized q from its own text (the flagged page carries tool:a, so q
    # was a sibling it may summarize), and the gate let it through
    window = Window([Block("a1", "assistant", filler(80)), Block("p", "tool", BIG_PAGE, ("tool:a",), pinned=True),
                     Block("q", "tool", BIG_RENDERING, ("tool:a",)), Block("a2", "assistant", filler(80)),
                     Block("u", "user", "go on\n")])
    result, summarized = _compact(window, later, 450)
    assert summarized == [["a1", "a2"]]
    assert {"p", "q"} <= set(result.plan.pinned)
    assert result.window.get("q").text == BIG_RENDERING and result.window.get("q").pinned


def test_compact_plans_the_re_rendered_pinned_page_pinned_in_a_later_pass():
    # the flag lost with the re-rendering: the planner kept the page unflagged, which the gate
    # now refuses (the pinned block kept without its pin); it is planned pinned, and kept flagged
    window = Window([Block("a1", "assistant", filler(80)), Block("p", "tool", BIG_RENDERING, ("tool:a",)),
                     Block("a2", "assistant", filler(80)), Block("u", "user", "go on\n")])
    result, summarized = _compact(window, True, 300)
    assert all("p" not in ids for ids in summarized)
    assert "p" in result.plan.pinned
    assert result.window.get("p").text == BIG_RENDERING and result.window.get("p").pinned


# red team 44 ----------------------------------------------------------------------------------

TURN = "Never change retries=3 on the prod cluster.\n"
TURN_RENDERINGS = {"final line break dropped": TURN.rstrip("\n"), "crlf": TURN.replace("\n", "\r\n"),
                   "trailing blanks": TURN.replace("\n", "  \n")}
turn_renderings = pytest.mark.parametrize("rendering", list(TURN_RENDERINGS.values()), ids=list(TURN_RENDERINGS))


def turn_gate(rendering: str, path=":memory:", session=None) -> Gate:
    g = Gate(store_with({text_handle(rendering): rendering}, path), session=session)
    window = [blk("u1", "user", TURN, pinned=True), U]
    assert_accepted(g.check(window, window, operator="reorder", commit=True), "structural")
    return g


@turn_renderings
def test_a_re_rendered_pinned_turn_without_handles_is_the_pinned_turn(tmp_path, rendering):
    # F1: a turn without handles is its text; re-rendered and shown without its flag it was
    # summarized from its own text and accepted, while the same turn under user:u1 was refused
    live = turn_gate(rendering, tmp_path / "s.sqlite3", "t")
    pre = [blk("u1", "user", rendering), U]
    made = summary("s", "The user spoke about the cluster.\n", [text_handle(rendering)])
    for g in (live, Gate(live.store, session="t")):
        find(g.check(pre, [made, U], operator="summarize", evicted=["u1"]), "R", block="s",
             handle=text_handle(rendering))
        find(g.check(pre, pre, operator="reorder"), "R", block="u1")  # kept, it must carry the flag
        assert_accepted(g.check(pre, [blk("u1", "user", rendering, pinned=True), U], operator="reorder"),
                        "structural")
        assert_accepted(g.check(pre, [U], operator="evict", evicted=["u1"]), "lossless")


def test_a_handleless_block_with_other_text_stays_free():
    g = turn_gate(TURN_RENDERINGS["crlf"])
    other = blk("u2", "user", "Deploy on Friday.\r\n")
    g.store.put(text_handle(other["text"]), other["text"])
    pre = [other, U]
    assert_accepted(g.check(pre, pre, operator="reorder"), "structural")
    assert_accepted(g.check(pre, [summary("s", "A deploy day was set.\n", [text_handle(other["text"])]), U],
                            operator="summarize", evicted=["u2"]), "lossy")


def test_compact_keeps_a_re_rendered_pinned_turn_without_handles_over_two_passes():
    # F1 through compact(): an honest framework re-renders its window between two compactions;
    # the planner summarized the pinned turn from its own text and the gate accepted it
    long_turn = "Never change retries=3 on prod.\n" + filler(40)
    store = memory_store({})
    g = Gate(store)
    asked: list[str] = []

    def summarize(request):
        asked.extend(b.id for b in request.blocks)
        return "Earlier: " + " ".join(f"[src:{m}]" for m in request.markers) + " S.\n"

    first = Window([Block("a0", "assistant", filler(80)), Block("t", "user", long_turn, pinned=True),
                    Block("u", "user", "go on\n")])
    r1 = compact(first, summarize, store=store, budget_tokens=150, gate=g, task="recall")
    assert r1.verdict.accepted, r1.verdict.summary()
    rendered = long_turn.replace("\n", "\r\n")
    second = Window([Block("t", "user", rendered) if b.id == "t" else b for b in r1.window]
                    + [Block("a9", "assistant", filler(80))])
    asked.clear()
    r2 = compact(second, summarize, store=store, budget_tokens=150, gate=g, task="recall")
    assert r2.verdict.accepted, r2.verdict.summary()
    assert "t" not in asked and "t" in r2.plan.pinned
    assert r2.window.get("t").text == rendered and r2.window.get("t").pinned


@renderings
def test_the_pinned_bytes_shown_without_the_flag_are_held_to_them_in_every_pass(tmp_path, rendering):
    # F3: a block holding the pinned bytes (not a rendering) is let go only by a flagged block
    # keeping those bytes; a block the gate found re-rendered is let go by the page in either
    # rendering - in later passes too, where its bytes are a pinned text, and when resumed
    live = pinned_gate(rendering, tmp_path / "s.sqlite3", "rr")
    # the page re-rendered, committed flagged as it is: its bytes are pinned from here on
    pre = [tool("p", "tool:a", rendering), U]
    assert_accepted(live.check(pre, [tool("p", "tool:a", rendering, pinned=True), U], operator="reorder",
                               commit=True), "structural")
    for g in (live, Gate(live.store, session="rr")):
        find(g.check([tool("p", "tool:a", PAGE), U], [tool("p", "tool:a", rendering, pinned=True), U],
                     operator="rewrite"), "R", block="p")
        assert_accepted(g.check([tool("p", "tool:a", rendering), U], [tool("p", "tool:a", PAGE, pinned=True), U],
                                operator="rewrite"))
        # the pinned page beside a re-rendered copy: the copy flagged does not keep the page
        both = [tool("p", "tool:a", PAGE), tool("q", "tool:a", rendering), U]
        find(g.check(both, [tool("q", "tool:a", rendering, pinned=True), U], operator="dedupe"), "R", block="p")
        assert_accepted(g.check(both, [tool("p", "tool:a", PAGE, pinned=True), U], operator="dedupe"))
        # (the resumed gate knows which pinned text was a rendering from the records' pins)
        assert g._pinned_renderings == {text_handle(rendering)}


def test_a_pinned_turn_shown_without_its_flag_and_re_rendered_by_the_edit_is_refused():
    g = turn_gate(TURN_RENDERINGS["crlf"])
    find(g.check([blk("u1", "user", TURN), U], [blk("u1", "user", TURN_RENDERINGS["crlf"], pinned=True), U],
                 operator="rewrite"), "R", block="u1")


@pytest.mark.parametrize("blank", ["  \n", "", "\n\n"], ids=["spaces", "empty", "blank lines"])
def test_a_blank_page_is_no_rendering_of_a_pinned_text(tmp_path, blank):
    # F4: a blank pinned page (tool:z) made every blank block under any pinned handle the
    # pinned page: a blank second page of tool:c kept unflagged was refused
    store = store_with({"tool:z": "\n", "tool:c": "retries=3\n"}, tmp_path / "s.sqlite3")
    live = Gate(store, session="b")
    first = [tool("z", "tool:z", "\n", pinned=True), tool("c", "tool:c", "retries=3\n", pinned=True), U]
    assert_accepted(live.check(first, first, operator="reorder", commit=True), "structural")
    pre = [tool("c", "tool:c", "retries=3\n", pinned=True), tool("c2", "tool:c", blank), U]
    for g in (live, Gate(store, session="b")):
        assert_accepted(g.check(pre, pre, operator="reorder"), "structural")
        # beside a flagged blank block too
        both = [tool("z", "tool:z", "\n", pinned=True), *pre]
        assert_accepted(g.check(both, both, operator="reorder"), "structural")


def test_compact_reports_a_lone_surrogate_under_a_pinned_handle_as_an_invalid_window():
    # F5: the planner's search for re-rendered pinned pages ran before the window was
    # validated and raised a raw UnicodeEncodeError
    store = memory_store({"tool:a": PAGE})
    g = Gate(store)
    window = Window([Block("p", "tool", PAGE, ("tool:a",), pinned=True), U_BLOCK])
    assert_accepted(g.check(window, window, operator="reorder", commit=True))
    for handles in (("tool:a",), ()):
        bad = Window([Block("q", "tool", "x\ud800", handles), U_BLOCK])
        with pytest.raises(EditFormatError, match="lone surrogate"):
            compact(bad, lambda r: "S.", store=store, budget_tokens=1, gate=g)


FENCED = "Set these before deploy:\n```ini\nretries=3\nmode=fast\n```\n"


@pytest.mark.parametrize("rendering", [FENCED.replace("\n", "\r\n"), FENCED.replace("retries=3\n", "retries=3  \n"),
                                       FENCED.replace("\n", " \r\n").rstrip("\r\n")],
                         ids=["crlf", "trailing blanks in the fence", "both, final line break dropped"])
def test_a_re_rendered_pinned_page_holding_a_fence_is_the_pinned_page(tmp_path, rendering):
    # F2: the fast path keeps a fence's lines verbatim, so a pinned page holding a fence,
    # re-rendered with CRLF line ends, was a sibling summarized from its own text
    store = store_with({"tool:a": FENCED, text_handle(rendering): rendering}, tmp_path / "s.sqlite3")
    live = Gate(store, session="f")
    first = [tool("p", "tool:a", FENCED, pinned=True), U]
    assert_accepted(live.check(first, first, operator="reorder", commit=True), "structural")
    pre = [tool("p", "tool:a", rendering), U]
    made = summary("s", "Deploy settings were listed.\n", [text_handle(rendering)])
    for g in (live, Gate(store, session="f")):
        find(g.check(pre, [made, U], operator="summarize", evicted=["tool:a"]), "R", block="s")
        find(g.check(pre, pre, operator="reorder"), "R", block="p")
        assert_accepted(g.check(pre, [tool("p", "tool:a", rendering, pinned=True), U], operator="reorder"),
                        "structural")
    # a fence whose content differs (not only its line ends) is another page
    other = FENCED.replace("mode=fast", "mode=slow").replace("\n", "\r\n")
    store.put(text_handle(other), other)
    sibling = [tool("q", "tool:a", other), U]
    assert_accepted(live.check(sibling, sibling, operator="reorder"), "structural")


_LINE_STUFF = st.text(alphabet="ab =\r\t\n`", max_size=24)


@given(_LINE_STUFF, _LINE_STUFF)
def test_texts_the_fast_path_calls_the_same_are_one_rendering_for_the_pins(a, b):
    # the pin's normalisation must absorb the fast path's: a last line ending in CR and blanks
    # normalised apart from the same line with its blanks dropped, and compact() summarized a
    # pinned turn the gate had found re-rendered (red team 46, F1)
    from provgate.gate import _pin_normalised, normalize_whitespace

    for x, y in ((a, b), (a, a.rstrip(" ")), (a + "\r  \n", a + "\r  "), (a + "\r  ", a + "\r")):
        if normalize_whitespace(x) == normalize_whitespace(y):
            assert _pin_normalised(x) == _pin_normalised(y), (x, y)


def test_a_pinned_turn_re_rendered_with_a_carriage_return_and_blanks_on_its_last_line_stays_pinned():
    turn = "Never change retries=3 on prod.\n"
    g = Gate(store_with({}))
    window = [blk("u1", "user", turn, pinned=True), U]
    assert_accepted(g.check(window, window, operator="reorder", commit=True), "structural")
    for rendering in ("Never change retries=3 on prod.\r  \n", "Never change retries=3 on prod.\r  "):
        pre = [blk("m", "user", rendering), U]
        find(g.check(pre, pre, operator="reorder"), "R", block="m")
        g.store.put(text_handle(rendering), rendering)
        find(g.check(pre, [summary("s", SAID, [text_handle(rendering)]), U], operator="summarize", evicted=["m"]),
             "R", block="s")


@pytest.mark.parametrize("role", ["user", "system", "assistant"])
@pytest.mark.parametrize("rendering", ["final line break dropped", "crlf"])
def test_a_pinned_turn_logged_under_a_new_handle_and_re_rendered_is_the_pinned_turn(rendering, role):
    # red team 46, F3: each alone was held (the bytes under user:u3, red team 28 y04; the turn
    # re-rendered, red team 44 F1), both together were summarized away from user:u3; red team
    # 48: an assistant's turn so was still summarized away from its new handle
    turn = "Never change retries=3 on the prod cluster.\nUse mode=safe.\n"
    shown = turn.rstrip("\n") if rendering != "crlf" else turn.replace("\n", "\r\n")
    g = Gate(store_with({"msg:m3": shown}))
    window = [blk("t1", role, turn, pinned=True), U]
    assert_accepted(g.check(window, window, operator="reorder", commit=True), "structural")
    pre = [blk("m0", role, shown, ["msg:m3"]), U]
    find(g.check(pre, pre, operator="reorder"), "R", block="m0")
    find(g.check(pre, [summary("s", SAID, ["msg:m3"]), U], operator="summarize", evicted=["msg:m3"]),
         "R", block="s")


def test_a_tool_page_re_rendered_under_another_handle_is_another_source():
    # a turn is its text whatever handle it is logged under; a tool's output under another
    # handle is another source: only its exact bytes are held
    page = "retries=3\nmode=safe\n"
    shown = page.replace("\n", "\r\n")
    g = Gate(store_with({"tool:a": page, "tool:b": shown}))
    window = [blk("p", "tool", page, ["tool:a"], pinned=True), U]
    assert_accepted(g.check(window, window, operator="reorder", commit=True), "structural")
    pre = [blk("q", "tool", shown, ["tool:b"]), U]
    assert_accepted(g.check(pre, [summary("s", "retries=3", ["tool:b"]), U], operator="summarize",
                            evicted=["tool:b"]))


def _toggling_session(keep_sides: bool, asked: list[int] | None = None) -> list[tuple[bool, list[tuple[str, str]]]]:
    """A session whose page ``p`` was pinned by its flag, then shown unflagged (pinned by its
    text), beside a block ``q`` of the pinned output whose text turns, edit by edit, into the
    pinned page re-rendered and back; each edit rewrites an assistant turn and ``q`` in place,
    from the window the last check committed. ``keep_sides``: False forgets every window's side
    before each check (no answer carried from the last window). ``asked``: the number of
    candidates each look-up of normalised texts asked, appended."""
    g = Gate(store_with({"tool:a": PAGE + OTHER_PAGE}))
    if asked is not None:
        looked_up = g._normalised_text_handles
        g._normalised_text_handles = lambda texts, digest_of, positions: (
            asked.append(len(positions)), looked_up(texts, digest_of, positions))[1]

    def window(q_text: str, k: int, flag: bool = False) -> Window:
        return Window([tool("p", "tool:a", PAGE, pinned=flag), tool("q", "tool:a", q_text),
                       blk("a", "assistant", "Noted" + ", noted" * k + ".\n"), U])

    first = window(OTHER_PAGE, 0, flag=True)
    g.check(first, first, operator="reorder", commit=True)
    w = window(OTHER_PAGE, 0)
    g.check(first, w, operator="rewrite", commit=True)
    out = []
    for k, q_text in enumerate([OTHER_PAGE, RENDERINGS["crlf"], RENDERINGS["crlf"], OTHER_PAGE, OTHER_PAGE,
                                RENDERINGS["crlf"], OTHER_PAGE], 1):
        if not keep_sides:
            g._sides.clear()
        nxt = window(q_text, k)
        v = g.check(w, nxt, operator="rewrite", commit=True)
        out.append((v.accepted, sorted((x.invariant, x.block) for x in v.violations)))
        w = nxt
    return out


def test_the_re_rendered_pins_carried_from_the_last_window_are_those_found_anew():
    """The next edit's pre window is the window the last check's post became, rewritten in
    place: the re-rendered pinned pages found among its candidates are carried over and only
    the blocks whose texts changed are asked again (Gate._respaced, _Side.inherit). A block
    that became the pinned page re-rendered, or stopped being one, is found so exactly as a
    gate that carries nothing finds it."""
    asked: list[int] = []
    carried = _toggling_session(True, asked)
    assert carried == _toggling_session(False)
    # q is held to R exactly where pre showed it re-rendered (steps 3, 4 and 7)
    assert [k for k, (_, found) in enumerate(carried, 1) if ("R", "q") in found] == [3, 4, 7]
    # and the carried answer was used: past the first edits, only the two changed blocks were asked
    assert asked and max(asked[-6:]) <= 2
