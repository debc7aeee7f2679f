"""The same content put again under another kind, one of them DERIVED_KIND, is refused (red team
124, F05): a summary's words stored first under their block handle with no kind (an edit's inline
source), then put by compact() with kind window_summary, were acknowledged, the kind stayed None,
a quote of the summary was graded `exact` and store.resolve returned it. Between other kinds (or
none) a repeated put is still a no-op keeping the first put's kind and ts (docs/store.md)."""

from __future__ import annotations

import pytest
from blake3 import blake3
from compaction_helpers import memory_store

from provgate import Gate, SourceStore
from provgate.compaction import compact
from provgate.errors import HandleConflictError, ProvenanceResolutionError
from provgate.handles import block_text_handle
from provgate.reconstruct import verify_quote
from provgate.store import DERIVED_KIND
from provgate.window import Block, Window

WORDS = "The client retries 5 times before failing.\n"
HANDLE = block_text_handle(blake3(WORDS.encode()).digest())


@pytest.fixture(params=["memory", "file"])
def store(request, tmp_path):
    st = SourceStore(":memory:" if request.param == "memory" else str(tmp_path / "s.sqlite3"))
    yield st
    st.close()


def _ways_and_stores() -> list:
    """(way, store kind) pairs: a write inside a transaction of its own only on a file store (an
    in-memory store has none to give: _one_transaction refuses it)."""
    return [(how, where) for how in WAYS for where in ("memory", "file") if not (how == "transaction" and where == "memory")]


@pytest.fixture
def opened(tmp_path):
    made = []

    def open_store(where: str) -> SourceStore:
        made.append(SourceStore(":memory:" if where == "memory" else str(tmp_path / "s.sqlite3")))
        return made[-1]

    yield open_store
    for st in made:
        st.close()


def _put(st, how, kind):
    if how == "put":
        return st.put(HANDLE, WORDS, kind=kind)
    if how == "put_many":
        return st.put_many({HANDLE: WORDS, "tool:other": "x=1\n"}, kind=kind)
    if how == "put_many_kinds":
        return st.put_many({HANDLE: WORDS, "tool:other": "x=1\n"}, kinds={HANDLE: kind})
    assert how == "transaction"
    with st._one_transaction():
        return st.put(HANDLE, WORDS, kind=kind)


WAYS = ["put", "put_many", "put_many_kinds", "transaction"]


@pytest.mark.parametrize("how, where", _ways_and_stores())
@pytest.mark.parametrize("first, second", [(None, DERIVED_KIND), (DERIVED_KIND, None),
                                           ("tool_output", DERIVED_KIND), (DERIVED_KIND, "window_block")])
def test_a_put_changing_the_kind_to_or_from_derived_is_refused(opened, how, where, first, second):
    store = opened(where)
    store.put(HANDLE, WORDS, kind=first)
    with pytest.raises(HandleConflictError) as err:
        _put(store, how, second)
    message = str(err.value)
    assert HANDLE in message and repr(first) in message and repr(second) in message
    # the row is as it was, and a batch that met the refusal wrote nothing else
    assert store.info(HANDLE).kind == first
    assert "tool:other" not in store


@pytest.mark.parametrize("how, where", _ways_and_stores())
@pytest.mark.parametrize("first, second", [(None, None), (DERIVED_KIND, DERIVED_KIND), (None, "window_block"),
                                           ("tool_output", None), ("tool_output", "window_block")])
def test_a_repeated_put_of_other_kinds_keeps_the_first_kind(opened, how, where, first, second):
    # honest control: docs/store.md "the kind and ts of the first put are kept"
    store = opened(where)
    store.put(HANDLE, WORDS, kind=first, ts=1.5)
    _put(store, how, second)
    info = store.info(HANDLE)
    assert info.kind == first and info.ts == 1.5


def test_a_put_marking_a_source_row_a_summary_is_refused_not_acknowledged(store):
    # the finding's sequence: after the refused put, the words are what the first put said
    # (a caller's plain source), and the put that would have said otherwise did not pass as done
    store.put(HANDLE, WORDS)
    with pytest.raises(HandleConflictError, match="window_summary"):
        store.put(HANDLE, WORDS, kind=DERIVED_KIND)
    # control: stored as a summary first, a quote of it is nominal and resolve refuses it
    other = SourceStore(":memory:")
    other.put(HANDLE, WORDS, kind=DERIVED_KIND)
    assert verify_quote(other, HANDLE, "retries 5 times").grade == "nominal"
    with pytest.raises(ProvenanceResolutionError):
        other.resolve(other.pointer(HANDLE, 11, 26))
    other.put(HANDLE, WORDS, kind=DERIVED_KIND)  # the same kind again: a no-op
    assert other.info(HANDLE).kind == DERIVED_KIND


def _summary_window(words):
    return Window([Block("s1", "assistant", words, derived=True, derived_from=("tool:c1",)),
                   Block("u1", "user", "Please continue with the deploy now. " * 10),
                   Block("a1", "assistant", "Working on it. " * 10)])


SUMMARY = "The client retries 3 times and times out after 30s. " * 20
SUMMARY_HANDLE = block_text_handle(blake3(SUMMARY.encode()).digest())


def test_compact_refuses_to_evict_a_summary_whose_words_are_stored_as_a_source():
    store = memory_store({"tool:c1": "retries=3\ntimeout=30s\n"})
    store.put(SUMMARY_HANDLE, SUMMARY)  # the summary's words, first put with no kind
    gate = Gate(store)
    window = _summary_window(SUMMARY)
    with pytest.raises(HandleConflictError) as err:
        compact(window, lambda request: "It retries 9999 times.", store=store, budget_tokens=200, gate=gate,
                on_reject="evict")
    message = str(err.value)
    assert "compact()" in message and "'s1'" in message and "summary" in message and "nothing was evicted" in message
    assert "window_summary" in message and SUMMARY_HANDLE in message
    assert store.info(SUMMARY_HANDLE).kind is None  # as the first put said; compact acknowledged nothing
    # (the first pass, whose summary lies, was refused; the fallback that evicts the summary met
    # the refused put before any check): no pass was accepted
    assert gate.history and not any(r.accepted for r in gate.history)


def test_compact_evicts_a_summary_stored_as_one_already():
    # honest control: the same words stored before with kind window_summary (an earlier pass,
    # or an edit's inline source with its kind): compact() evicts the summary as before
    store = memory_store({"tool:c1": "retries=3\ntimeout=30s\n"})
    store.put(SUMMARY_HANDLE, SUMMARY, kind=DERIVED_KIND)
    gate = Gate(store)
    result = compact(_summary_window(SUMMARY), lambda request: "It retries 9999 times.", store=store,
                     budget_tokens=200, gate=gate, on_reject="evict")
    assert result.verdict.accepted and "s1" in result.evicted
    assert store.info(SUMMARY_HANDLE).kind == DERIVED_KIND


@pytest.mark.parametrize("first_derived", [True, False], ids=["summary-then-turn", "turn-then-summary"])
def test_compact_evicts_a_text_an_earlier_pass_evicted_under_its_other_kind(first_derived):
    """Red team 126, F09: an evicted summary saying "Done." and, a pass later, an evicted turn
    saying "Done." (or the reverse) are one block handle with compact()'s two kinds. Both are
    compact()'s own evictions, so the words are stored already: the second pass evicts as before
    the refusal existed, the first kind kept (a caller's kind still stops it: the test above)."""
    filler = " ".join(f"word{i}" for i in range(60))
    store = memory_store({"tool:c1": "retries=3\ntimeout=30s\n"})
    gate = Gate(store)
    done = Block("d", "assistant", "Done.", derived=True, derived_from=("tool:c1",))
    turn = Block("t", "assistant", "Done.")
    handle = block_text_handle(blake3(b"Done.").digest())
    passes = [done, turn] if first_derived else [turn, done]
    for k, block in enumerate(passes):
        window = Window([block, Block(f"u{k}", "user", "Please continue. " + filler),
                         Block(f"a{k}", "assistant", "Working on it. " + filler)])
        result = compact(window, lambda request: "Done.", store=store, budget_tokens=100, gate=gate,
                         on_reject="evict")
        assert result.verdict.accepted and block.id in result.evicted
    assert store.info(handle).kind == (DERIVED_KIND if first_derived else "window_block")
