"""A check judges with every pin its record adds (red team 75, F01): the same edit checked twice
without a commit gets one verdict, whatever the window holds of pinned texts - copies under other
handles, pages re-rendered, blocks a legacy record's pinned handle holds - and whatever the edit
cites, summarizes or evicts."""

from __future__ import annotations

from blake3 import blake3
from gate_helpers import comparable, store_with
from hypothesis import given, settings
from hypothesis import strategies as st

from provgate.gate import Gate
from provgate.handles import block_text_handle
from provgate.window import Block, Window

_TURN = "Deploy only to staging and keep mode=safe for now.\n"
# the pinned text as it is, and as a framework shows it again: a trailing blank, CRLF, blank
# lines after it, the final line break dropped, an ideographic space for the first one
_SHOWN = [_TURN, _TURN + "\n\n", _TURN.rstrip("\n") + " \n", _TURN.replace("\n", "\r\n"), _TURN.rstrip("\n"),
          _TURN.replace(" ", "\u3000", 1)]
_HANDLES = ["doc:u3", "user:p0", "user:p1", "tool:p2", "msg:p3"]
_SOURCES = {"tool:c1": "mode=safe\nretries=3\n", "doc:u3": _TURN,
            **{h: f"header {h}\n{_TURN}\n\ntrailer\n" for h in _HANDLES[1:]}}
_WORDS = "alpha beta gamma delta talk about the plan and weather then lunch again " * 2


def _text_handle(text: str) -> str:
    return block_text_handle(blake3(text.encode()).digest())


_PAGE = st.tuples(st.sampled_from(range(len(_SHOWN))), st.sampled_from([None, *_HANDLES]),
                  st.sampled_from(["assistant", "tool", "user", "system"]), st.booleans())
_NAME = st.sampled_from([h.split(":")[1] for h in _HANDLES] + ["c1"])


def _session(legacy, pages, notes, cited, summarized, evict, keep, recap=(None, False, ()), *, whole_rounds=False):
    """A gate (its rounds of taking up pins followed up block by block, or worked out whole),
    and an edit: (gate, pre, post, evicted). ``recap``: a summary pre holds and post carries
    over (the handle it derives from, or None for none), whether post adds a turn with its words
    (red team 79, F04), and the names it cites."""
    store = store_with(_SOURCES)
    if legacy:  # a record written before text pins: doc:u3 pinned, its text not
        store._append_gate_audit([{"session": "twice", "cycle": 1, "pins": {"handles": ["doc:u3"], "ids": []}}])
    g = Gate(store, session="twice")
    if whole_rounds:
        g._incremental_pins = False
    pre = [Block(f"n{k}", role, _SHOWN[shown], () if handle is None else (handle,), pinned=flag)
           for k, (shown, handle, role, flag) in enumerate(pages)]
    pre += [Block(f"a{k}", "assistant", f"Note {k} " + " ".join(f"[src:{m}]" for m in names) + f". {_WORDS}\n")
            for k, names in enumerate(notes)]
    pre.append(Block("z", "user", "go on\n"))
    # post: some pages kept (a flag may be dropped), the rest evicted by the records asked for,
    # and one summary of the notes chosen, citing what it cites
    post = [Block(b.id, b.role, b.text, b.handles, pinned=b.pinned and keep[k % 5])
            for k, b in enumerate(pre[:len(pages)]) if keep[k % 5]]
    members = [b for k, b in enumerate(pre[len(pages):-1]) if summarized[k % 3]]
    for b in members:
        store.put(_text_handle(b.text), b.text, kind="block")
    evicted = list(dict.fromkeys(evict))
    evicted += [b.id for b in pre[:len(pages)] if not b.handles and b not in post]
    if members:
        post.append(Block("s1", "summary", "Earlier: " + " ".join(f"[src:{m}]" for m in cited) + " S.\n",
                          derived=True, derived_from=tuple(_text_handle(b.text) for b in members)))
    post += [b for b in pre[len(pages):-1] if b not in members]
    source, echoed, recap_cites = recap
    if source is not None:
        text = "Recap " + " ".join(f"[src:{m}]" for m in recap_cites) + " staging only.\n"
        pre.insert(-1, Block("d0", "summary", text, derived=True, derived_from=(source,)))
        post.append(pre[-2])
        if echoed:
            post.append(Block("m0", "assistant", text))
    post.append(pre[-1])
    return g, Window(pre), Window(post), evicted


_EDITS = {"legacy": st.booleans(), "pages": st.lists(_PAGE, min_size=1, max_size=6),
          "notes": st.lists(st.lists(_NAME, max_size=3), min_size=1, max_size=3),
          "cited": st.lists(_NAME, max_size=3), "summarized": st.lists(st.booleans(), min_size=3, max_size=3),
          "evict": st.lists(st.sampled_from(_HANDLES), max_size=4),
          "keep": st.lists(st.booleans(), min_size=5, max_size=5),
          "recap": st.tuples(st.sampled_from([None, *_HANDLES]), st.booleans(), st.lists(_NAME, max_size=2))}


@settings(max_examples=120, deadline=None)
@given(**_EDITS)
def test_the_same_edit_checked_twice_gets_one_verdict(**edit):
    g, pre, post, evicted = _session(**edit)
    first = g.check(pre, post, operator="summarize", evicted=evicted)
    second = g.check(pre, post, operator="summarize", evicted=evicted)
    assert comparable(first) == comparable(second)


@settings(max_examples=120, deadline=None)
@given(**_EDITS)
def test_rounds_followed_up_block_by_block_are_the_rounds_worked_out_whole(**edit):
    # (_Check._later_rounds, red team 78, F01: its verdicts and the pins it records are those of
    # the rounds each worked out over the whole window)
    g, pre, post, evicted = _session(**edit)
    twin, *_ = _session(**edit, whole_rounds=True)
    followed, whole = (gate.check(pre, post, operator="summarize", evicted=evicted) for gate in (g, twin))
    assert comparable(followed) == comparable(whole)
    assert g.pins == twin.pins
    assert (g._pinned_norms, g._pinned_renderings) == (twin._pinned_norms, twin._pinned_renderings)


def test_a_chain_of_re_rendered_pages_is_taken_up_whole():
    # red team 78, F01: pages each the pinned text re-rendered, each carrying the handle of the
    # page before it: each round of taking up reaches one page more, and each round worked out
    # over the whole window was quadratic in the chain (a bound with a one-pass closure over-pinned,
    # red team 79). The rounds are followed up block by block; the check takes the whole chain
    # up, as the rounds worked out whole do, and is the same when repeated.
    n = 12
    handles = [f"tool:h{i}" for i in range(n + 1)]
    store = store_with({**{h: f"page {i}\n" for i, h in enumerate(handles)}, "user:u0": _TURN})
    g = Gate(store, session="chain")
    turn, go_on = Block("u0", "user", _TURN, ("user:u0",), pinned=True), Block("z", "user", "go on\n")
    assert g.check(Window([turn, go_on]), Window([go_on]), operator="evict", evicted=["user:u0"], commit=True).accepted
    pages = [Block("b0", "tool", _TURN, (handles[0],))]
    pages += [Block(f"b{i}", "tool", _TURN.rstrip("\n") + " " * i + "\n", (handles[i - 1], handles[i]))
              for i in range(1, n + 1)]
    pre, post = Window([*pages, go_on]), Window([go_on])
    first = g.check(pre, post, operator="evict", evicted=handles)
    assert first.accepted, first.summary()
    assert comparable(first) == comparable(g.check(pre, post, operator="evict", evicted=handles))
    twin = Gate(store, session="chain-twin")
    twin._incremental_pins = False
    assert twin.check(Window([turn, go_on]), Window([go_on]), operator="evict", evicted=["user:u0"], commit=True).accepted
    assert comparable(twin.check(pre, post, operator="evict", evicted=handles)) == comparable(first)
    assert twin.pins == g.pins and twin._pinned_renderings == g._pinned_renderings
    # every page is held, the last of the chain too: kept without its flag, it is refused
    refused = g.check(pre, Window([pages[-1], go_on]), operator="evict", evicted=handles[:-2])
    assert any(v.invariant == "R" and v.block == f"b{n}" for v in refused.violations), refused.summary()


def test_a_block_carried_over_with_the_words_of_a_summary_refused_here_is_refused_here_too():
    # red team 78, F03: a check refused a new summary of a pinned turn and recorded the refusal;
    # checked again, the same edit also refused the block carried over with those words
    # (R x1, then R x2). The blocks the edit makes are judged first, and a refusal of this
    # check counts for the blocks carried over, as it will in the next one
    store = store_with({"doc:u0": _TURN})
    g = Gate(store, session="refused")
    turn = Block("u0", "user", _TURN, ("doc:u0",), pinned=True)
    recap = Block("c", "assistant", "Recap: staging only [src:u0].\n")
    go_on = Block("z", "user", "go on\n")
    made = Block("s", "assistant", "Recap: staging only [src:u0].\n", derived=True, derived_from=("doc:u0",))
    pre, post = Window([turn, recap, go_on]), Window([recap, go_on, made])
    first = g.check(pre, post, operator="summarize", evicted=["doc:u0"])
    assert comparable(first) == comparable(g.check(pre, post, operator="summarize", evicted=["doc:u0"]))
    assert [(v.invariant, v.block) for v in first.violations] == [("R", "s"), ("R", "c")]


def test_a_summary_carried_over_with_the_words_of_a_turn_refused_here_is_refused_by_one_rule():
    # red team 79, F04: a turn the edit makes, citing the pinned turn it evicts, is refused; the
    # summary carried over with its words was refused in that check as citing the pinned turn,
    # and checked again, as summarizing it: one verdict, two messages. The blocks the edit makes
    # are judged by both rules before those it carries over, so the first check already reads
    # the summary as the second does
    store = store_with({"doc:u0": _TURN})
    g = Gate(store, session="one-rule")
    recap = "Earlier the user said [src:u0] staging only.\n"
    turn = Block("u0", "user", _TURN, ("doc:u0",), pinned=True)
    kept = Block("d1", "summary", recap, derived=True, derived_from=("doc:u0",))
    pre = Window([turn, kept])
    post = Window([Block("m1", "assistant", recap), kept])
    first = g.check(pre, post, operator="summarize", evicted=["doc:u0"])
    assert comparable(first) == comparable(g.check(pre, post, operator="summarize", evicted=["doc:u0"]))
    refusals = [(v.block, v.message.split(" pinned")[0]) for v in first.violations if v.invariant == "R"]
    assert refusals == [("d1", "derived block 'd1' summarizes"), ("m1", "block 'm1' cites")], refusals
