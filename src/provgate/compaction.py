"""Compaction policies: plan which blocks to summarize, preserve or evict, then gate the result.

The seed (``compaction-provenance-loss.md``) names two policies at the retrieval-linked
boundary:

- **preserve-or-evict** - a retrieval-linked block (one with handles into the store, or one a
  pointer cites) is never rewritten: it is kept verbatim and pinned, or dropped whole with an
  eviction record. Every surviving pointer stays byte-valid. The safe default.
- **rewrite-and-relabel** - a linked block may be summarized; the summary is a derived block and
  the pointers it inherits become *nominal* (``Pointer(nominal=True)``): they may carry recall,
  and resolving one for reconstruction raises ``ProvenanceResolutionError(reason="nominal")``.

Which one applies is the downstream ``task``: ``"reconstruction"`` (quote, verify, expand, cite
exact text) or ``"recall"`` (answer from gist); unknown (``None``) is reconstruction.

:func:`plan_compaction` decides, deterministically, from per-block metadata and token counts
(it reads no source text; when it must evict, it looks for citation markers in assistant turns
and summaries); :func:`compact` runs plan -> the caller's summarizer -> :class:`~provgate.gate.Gate`
and returns the committed window. The library never calls a model. Passes are idempotent with
respect to preservation: what pass *n* preserved is pinned in the window it commits and in the
gate's sticky pins, and the planner never summarizes a pinned block (``docs/compaction.md``).
"""

from __future__ import annotations

import math
import numbers
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter
from typing import Any

from blake3 import blake3

from provgate._hashing import hash_buffers
from provgate._textsize import utf8_lengths
from provgate.errors import (
    CompactionBudgetError,
    EditFormatError,
    HandleConflictError,
    InvalidArgumentError,
    InvalidContentError,
    OptionalDependencyError,
    ProvenanceInvariantError,
    ProvgateError,
    SummarizerError,
)
from provgate.gate import Gate, normalize_whitespace, top_cycle
from provgate.handles import (
    BLOCK_HANDLE_PREFIX,
    block_text_handle,
    is_text_handle,
    stored_text_handle,
)
from provgate.pointers import Pointer
from provgate.store import DERIVED_KIND
from provgate.window import Block, Citation, Window

TASKS = ("reconstruction", "recall")
RECONSTRUCTION = "reconstruction"
RECALL = "recall"

DEFAULT_THRESHOLD = 0.85
# Compacting to just under the threshold would trigger the next pass after a few turns; the
# target leaves room (hysteresis). As a fraction of the threshold, so a custom threshold keeps it.
DEFAULT_TARGET_OF_THRESHOLD = 0.7
DEFAULT_SUMMARY_RATIO = 0.25
DEFAULT_MIN_SUMMARY_TOKENS = 64
DEFAULT_MAX_GROUP_TOKENS = 8192
# Budgets are token counts of one window; anything above this is a unit mistake (bytes?).
MAX_BUDGET_TOKENS = 1 << 40

BYTES_PER_TOKEN = 4
_MARKER_START = "[src:"
_HANDLES = attrgetter("handles")
_CITING_ROLES = frozenset({"assistant", "summary"})
ON_REJECT = ("raise", "keep", "evict")

# Source kind given to the window texts a summary is derived from when they have no handle.
BLOCK_SOURCE_KIND = "window_block"


# -- token counting ---------------------------------------------------------------------------


def approx_tokens(text: str) -> int:
    """The default token estimate: UTF-8 bytes / 4, rounded up.

    Four bytes per token is the usual rule of thumb for English with BPE tokenizers (the
    benchmark corpus defines its "200k-token" window the same way). It is an estimate, not a
    count: code, JSON and numbers tokenize denser (about 3 bytes per token), and scripts outside
    Latin (CJK: about one token per 3-byte character) denser still, so it can undercount by a
    quarter or more there; pass ``count_tokens="tiktoken"`` or your model's counter when the
    budget is tight. See ``docs/compaction.md``.
    """
    if not isinstance(text, str):
        raise InvalidArgumentError(f"approx_tokens takes a str, not {type(text).__name__}", argument="text")
    if text.isascii():  # O(1) for str: the length is the byte count
        return (len(text) + BYTES_PER_TOKEN - 1) // BYTES_PER_TOKEN
    return (int(utf8_lengths((text,))[0]) + BYTES_PER_TOKEN - 1) // BYTES_PER_TOKEN


TokenCounter = Callable[[str], int]


@dataclass(frozen=True, slots=True)
class _Counter:
    name: str
    fn: TokenCounter
    trusted: bool  # our own counters return valid ints; a caller's is checked on every call


_APPROX = _Counter("approx-utf8-bytes/4", approx_tokens, True)
_TIKTOKEN_DEFAULT_ENCODING = "o200k_base"
_tiktoken_lock = threading.Lock()
_tiktoken_encodings: dict[str, Any] = {}


def _tiktoken_counter(spec: str) -> _Counter:
    name = spec.partition(":")[2] or _TIKTOKEN_DEFAULT_ENCODING
    with _tiktoken_lock:
        enc = _tiktoken_encodings.get(name)
        if enc is None:
            try:
                import tiktoken  # optional: never a dependency of provgate
            except ImportError:
                raise _missing_tiktoken() from None
            try:
                enc = tiktoken.get_encoding(name)
            except Exception as exc:  # unknown name, or its BPE file cannot be fetched offline
                raise InvalidArgumentError(
                    f"count_tokens={spec!r}: tiktoken could not load the encoding {name!r}: {exc}",
                    argument="count_tokens",
                ) from exc
            _tiktoken_encodings[name] = enc
    return _Counter(f"tiktoken:{name}", lambda text: len(enc.encode_ordinary(text)), True)


def _missing_tiktoken() -> OptionalDependencyError:
    return OptionalDependencyError(
        "count_tokens='tiktoken' needs the package tiktoken, which is not installed "
        "(pip install tiktoken), or pass count_tokens=None for the built-in estimate or a "
        "callable str -> int", package="tiktoken", extra="tiktoken")


def _resolve_counter(count_tokens: Any) -> _Counter:
    if count_tokens is None or (isinstance(count_tokens, str) and count_tokens == "approx"):
        return _APPROX
    if isinstance(count_tokens, str):
        if count_tokens == "tiktoken" or count_tokens.startswith("tiktoken:"):
            return _tiktoken_counter(count_tokens)
        raise InvalidArgumentError(
            f"count_tokens must be None, 'approx', 'tiktoken', 'tiktoken:<encoding>' or a callable "
            f"str -> int, got {count_tokens!r}", argument="count_tokens")
    if not callable(count_tokens):
        raise InvalidArgumentError(
            f"count_tokens must be None, 'approx', 'tiktoken' or a callable str -> int, not "
            f"{type(count_tokens).__name__}", argument="count_tokens")
    return _Counter(_callable_name(count_tokens), count_tokens, False)


def _count(counter: _Counter, text: str, where: str) -> int:
    try:
        n = counter.fn(text)
    except ProvgateError:
        raise
    except Exception as exc:
        raise InvalidArgumentError(f"count_tokens ({counter.name}) raised on {where}: {exc!r}",
                                   argument="count_tokens") from exc
    if not counter.trusted and (isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0):
        raise InvalidArgumentError(
            f"count_tokens ({counter.name}) returned {n!r} for {where}; it must return an int >= 0",
            argument="count_tokens")
    return int(n)


def _callable_name(fn: Any) -> str:
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    if name is None:
        name = type(fn).__qualname__
    module = getattr(fn, "__module__", None)
    return f"{module}.{name}" if module and module != "builtins" else str(name)


# -- the plan ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SummaryGroup:
    """Blocks to be replaced by one derived summary block.

    ``blocks`` are in window order; they are consecutive among the summarizable blocks but may
    skip over kept, preserved or pinned ones, which stay where they are. The summary takes
    ``id`` and the place of the first member. ``max_tokens`` is its allowance: the plan's
    expected fill assumes it, and :func:`compact` refuses a longer summary. ``linked`` lists the
    retrieval-linked members (only under the recall task: rewrite-and-relabel).
    """

    id: str
    blocks: tuple[str, ...]
    tokens: int
    max_tokens: int
    linked: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "blocks": list(self.blocks), "tokens": self.tokens,
                "max_tokens": self.max_tokens, "linked": list(self.linked)}


@dataclass(frozen=True, slots=True)
class CompactionPlan:
    """What :func:`plan_compaction` decided. Every block of the window is in exactly one of
    ``keep``, ``pinned``, ``preserve``, ``evict`` or one group of ``summarize``.

    - ``keep``: unchanged, not pinned by this plan;
    - ``pinned``: already pinned (flag, or the caller's sticky pins), kept verbatim, stays pinned;
    - ``preserve``: retrieval-linked, kept verbatim and pinned from now on (reconstruction);
    - ``summarize``: groups replaced by one derived summary each;
    - ``evict``: dropped whole; ``eviction_records`` are what the gate is told (the block's
      handles, or its id when it has none).

    ``tokens``/``fill`` are before the plan, ``expected_tokens``/``expected_fill`` after it,
    counting every summary at its full allowance (an upper bound). ``needed`` is false when the
    fill is below the threshold: then nothing is done. ``meets_target`` is false when the plan
    stops short of the target: the pinned blocks are too large, or only evicting blocks that
    carry citation markers would reach it (those go only as far as below the threshold).
    """

    task: str
    task_given: str | None
    budget_tokens: int
    threshold: float
    target: float
    counter: str
    tokens: int
    fill: float
    needed: bool
    keep: tuple[str, ...]
    pinned: tuple[str, ...]
    preserve: tuple[str, ...]
    summarize: tuple[SummaryGroup, ...]
    evict: tuple[str, ...]
    eviction_records: tuple[str, ...]
    expected_tokens: int
    expected_fill: float
    meets_target: bool
    block_tokens: Mapping[str, int] = field(repr=False, default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task, "task_given": self.task_given, "budget_tokens": self.budget_tokens,
            "threshold": self.threshold, "target": self.target, "counter": self.counter,
            "tokens": self.tokens, "fill": self.fill, "needed": self.needed,
            "keep": list(self.keep), "pinned": list(self.pinned), "preserve": list(self.preserve),
            "summarize": [g.to_json() for g in self.summarize], "evict": list(self.evict),
            "eviction_records": list(self.eviction_records), "expected_tokens": self.expected_tokens,
            "expected_fill": self.expected_fill, "meets_target": self.meets_target,
        }


def plan_compaction(
    window: Window,
    *,
    budget_tokens: int,
    threshold: float = DEFAULT_THRESHOLD,
    task: str | None = None,
    count_tokens: str | TokenCounter | None = None,
    target: float | None = None,
    pointers: Iterable[Citation | Mapping[str, Any]] = (),
    pinned_handles: Iterable[str] = (),
    pinned_ids: Iterable[str] = (),
    evict_pinned: bool = False,
    summary_ratio: float = DEFAULT_SUMMARY_RATIO,
    min_summary_tokens: int = DEFAULT_MIN_SUMMARY_TOKENS,
    max_group_tokens: int = DEFAULT_MAX_GROUP_TOKENS,
    _pinned_sources: Iterable[str] = (),
    _shared_handles: Iterable[str] = (),
    _read_places: Mapping[int, tuple[int, float | None]] | None = None,
) -> CompactionPlan:
    """Plan one compaction pass of ``window`` for a budget of ``budget_tokens``.

    Fill = tokens / budget. Below ``threshold`` nothing is done (``plan.needed`` is false).
    Otherwise the plan brings the fill down to ``target`` (default 0.7 x threshold):

    1. **summarize**, oldest first, groups of summarizable blocks (at most
       ``max_group_tokens`` each), each summary allowed ``max(min_summary_tokens,
       ceil(summary_ratio x group tokens))`` tokens - or, for a group holding citation markers
       of M tokens, ``M + ceil(summary_ratio x (group tokens - M))`` if that is more: a summary
       keeps every marker - until the target is reached. Summarizable:
       not pinned, and - under reconstruction - not retrieval-linked. Under recall, linked
       blocks are summarizable too (rewrite-and-relabel).
    2. if that is not enough, **evict**, oldest first: retrieval-linked blocks (their sources
       stay in the store), then the other unpinned blocks and summary groups, then - only with
       ``evict_pinned=True`` - pinned blocks; blocks without citation markers before any with
       markers, which go only as far as below the threshold. The newest of several differing
       reads of one resource is never summarized, and evicted only after its older reads.

    Retrieval-linked = has handles, or is the ``block`` of one of ``pointers`` (citations:
    ``Citation`` or their JSON objects). Pinned = ``pinned`` flag, or a handle in
    ``pinned_handles``, or (for a block without handles) its id in ``pinned_ids``, or the handle
    of its text (``block:…``) among ``pinned_handles`` (with or without handles of its own) or
    a pinned block's without handles - the gate's sticky pins, which :func:`compact` passes. Under reconstruction every surviving linked block
    is preserved and pinned. Raises :class:`~provgate.errors.CompactionBudgetError` when the
    pinned blocks alone exceed the budget and ``evict_pinned`` is false.

    ``_pinned_sources`` is :func:`compact`'s: handles whose stored bytes are a pinned text
    (:func:`_sources_of_pinned_texts`); no summary that derives from one is summarized again.
    ``_shared_handles`` is :func:`compact`'s too: the sticky handles of pinned blocks whose texts
    the session pins. A block carrying one is no pinned block by it (another page of a pinned
    output: the gate holds the pinned bytes, not their handle's other pages; the pinned page
    re-rendered is pinned by its text handle, which :func:`compact` adds), but no summary
    derives from it (R), so such a block is summarized (from its own text) only where a block
    pinned here carries the handle on, or leaves with its record; else it is kept or evicted.
    """
    blocks = _check_window(window)
    budget = _check_budget(budget_tokens)
    threshold = _check_fraction(threshold, "threshold")
    if target is None:
        target = threshold * DEFAULT_TARGET_OF_THRESHOLD
    else:
        target = _check_fraction(target, "target")
        if target > threshold:
            raise InvalidArgumentError(f"target ({target}) must not exceed threshold ({threshold})",
                                       argument="target")
    task_name = _check_task(task)
    counter = _resolve_counter(count_tokens)
    ratio = _check_ratio(summary_ratio)
    min_summary = _check_count(min_summary_tokens, "min_summary_tokens")
    max_group = _check_count(max_group_tokens, "max_group_tokens")
    if not isinstance(evict_pinned, bool):
        raise InvalidArgumentError(f"evict_pinned must be a bool, not {type(evict_pinned).__name__}",
                                   argument="evict_pinned")
    cited = _cited_blocks(pointers, blocks)
    pin_handles = _string_set(pinned_handles, "pinned_handles")
    pin_ids = _string_set(pinned_ids, "pinned_ids")

    n = len(blocks)
    ids = [b.id for b in blocks]
    # every text is checked, whatever counts its tokens: a lone surrogate is an invalid window
    # (red team 37, 06: with a tokenizer the window was planned, or a bare UnicodeEncodeError
    # came out of hashing a pinned text)
    try:
        sizes = utf8_lengths([b.text for b in blocks])
    except InvalidContentError:
        bad = next(i for i, b in enumerate(blocks) if _has_surrogate(b.text))
        raise EditFormatError(f"window[{bad}].text: contains a lone surrogate; text must be valid Unicode",
                              field=f"window[{bad}].text") from None
    if counter is _APPROX:
        tok = ((sizes + (BYTES_PER_TOKEN - 1)) // BYTES_PER_TOKEN).tolist()
    else:
        tok = [_count(counter, b.text, f"window[{i}]") for i, b in enumerate(blocks)]
    total = sum(tok)
    fill = total / budget
    common = dict(task=task_name, task_given=task, budget_tokens=budget, threshold=threshold, target=target,
                  counter=counter.name, tokens=total, fill=fill, block_tokens=dict(zip(ids, tok)))
    if fill < threshold:
        return CompactionPlan(**common, needed=False, keep=tuple(ids), pinned=(), preserve=(), summarize=(),
                              evict=(), eviction_records=(), expected_tokens=total, expected_fill=fill,
                              meets_target=True)

    if pin_handles or pin_ids:
        pin = [b.pinned or (not pin_handles.isdisjoint(b.handles) if b.handles else b.id in pin_ids)
               for b in blocks]
    else:
        pin = [b.pinned for b in blocks]
    # the gate protects a pinned block without handles through the handle of its text
    # (docs/gate.md R): a block with the same text would summarize it, so it is pinned too; and
    # a block holding a sticky pinned text is the pinned block whatever handles it carries (red
    # team 28, y04: a pinned turn later logged under a handle, or shown without the one it had)
    sticky_texts = {h for h in pin_handles if h.startswith(BLOCK_HANDLE_PREFIX)}
    # a copy without handles of any pinned block's text would be summarized from that text's
    # handle, which the gate refuses (red team 31, b04: an echo of a pinned user turn that
    # carries user:u3); a copy with handles of its own is free while the pinned block stays
    # (a copy is the same text: compared as strings, so only a sticky text needs every block's
    # text handle, made in one native call; a BLAKE3 call per block was half of a plan)
    window_texts = {b.text for b, p in zip(blocks, pin) if p}
    text_handles = block_source_handles(blocks) if sticky_texts else None
    if text_handles is not None:
        pin = [p or h in sticky_texts or (not b.handles and b.text in window_texts)
               for b, p, h in zip(blocks, pin, text_handles)]
    elif window_texts:
        pin = [p or (not b.handles and b.text in window_texts) for b, p in zip(blocks, pin)]
    pinned_tokens = sum(t for t, p in zip(tok, pin) if p)
    if pinned_tokens > budget and not evict_pinned:
        listed = tuple((ids[i], tok[i]) for i in range(n) if pin[i])
        raise CompactionBudgetError(
            f"the budget of {budget} tokens is smaller than the pinned blocks alone ({pinned_tokens} tokens "
            f"in {len(listed)} blocks), which cannot be summarized and may not be evicted without "
            f"evict_pinned=True; pinned: " + ", ".join(f"{bid} ({t} tokens)" for bid, t in listed),
            budget_tokens=budget, pinned_tokens=pinned_tokens, pinned=listed)
    recall = task_name == RECALL
    linked = [bool(b.handles) or b.id in cited for b in blocks] if cited else [bool(b.handles) for b in blocks]
    if recall:
        summ = [not p for p in pin]
    else:
        summ = [not p and not k for p, k in zip(pin, linked)]

    # The newest of several differing reads of one resource is kept verbatim while an older read
    # survives: summarizing or evicting it alone would leave only the stale value (the seed's
    # silent merge; the gate's I4). It may go only after every older read has gone.
    older_reads = _older_reads(blocks, _read_places or {})
    for i in older_reads:
        summ[i] = False
    shared = _string_set(_shared_handles, "_shared_handles") - pin_handles
    _keep_summaries_of_pinned(blocks, pin, summ, pin_handles.union(_pinned_sources, shared), text_handles)
    if shared:
        # a summary of a block that shares a pinned handle derives from the block's own text (a
        # summary deriving from the handle summarizes the pinned page, R), so the handle leaves
        # the window with it unless a pinned block carries it (kept, or evicted on its record)
        carried = {h for b, p in zip(blocks, pin) if p for h in b.handles}
        for i, b in enumerate(blocks):
            if summ[i] and not b.derived and any(h in shared and h not in carried for h in b.handles):
                summ[i] = False
    if not recall or evict_pinned:
        # a copy of a text this pass pins is no summary source either (red team 37): under
        # reconstruction a linked block is preserved and pinned in this pass, so a summary of a
        # copy without handles would derive from the text handle the session pins from then
        # on (01); with evict_pinned the pinned block may go, and a summary of a copy that has
        # handles would then stand in for the pinned bytes, which R refuses (02)
        # (texts compared by their UTF-8 sizes first: hashing every text of a window is most
        # of a plan, and equal texts have equal sizes)
        lengths = sizes.tolist()
        copied_lengths = set() if recall else {n for n, k in zip(lengths, linked) if k}
        if evict_pinned:
            copied_lengths.update(n for n, p in zip(lengths, pin) if p)
        asked = [i for i, ok in enumerate(summ) if ok and lengths[i] in copied_lengths
                 and (evict_pinned or not blocks[i].handles)]
        if asked:
            asked_lengths = {lengths[i] for i in asked}
            copied = set() if recall else {b.text for b, k, n in zip(blocks, linked, lengths) if k and n in asked_lengths}
            if evict_pinned:
                copied |= window_texts
            for i in asked:
                if blocks[i].text in copied:
                    summ[i] = False

    goal = math.floor(target * budget)
    expected = total
    # Evictions aim for the target only where they cost no citation marker. Blocks that carry
    # markers are evicted only as far as needed to get below the threshold, and when the pinned
    # blocks alone exceed the target nothing is evicted past the threshold either: missing the
    # target anyway, it would throw away the agent's recent context for nothing.
    below_threshold = max(goal, math.ceil(threshold * budget) - 1)
    evict_goal = goal if evict_pinned or pinned_tokens <= goal else below_threshold

    def allowance(members: list[int], tokens: int) -> int:
        # a summary keeps every citation marker of its input (I5): the markers are not shrunk
        # by the ratio, so a group that holds many gets room for them (red team 37's fuzz: an
        # honest summary keeping them all was refused as too long)
        plain = max(min_summary, math.ceil(tokens * ratio))
        markers = _marker_tokens([blocks[m] for m in members], counter)
        return max(plain, markers + math.ceil((tokens - markers) * ratio)) if markers else plain

    # 1. summarize, oldest first, only as much as the target needs
    groups: list[tuple[list[int], int, int]] = []  # (members, tokens, allowance)
    candidates = [i for i in range(n) if summ[i]]
    c = 0
    while expected > goal and c < len(candidates):
        members: list[int] = []
        gt = 0
        while c < len(candidates):
            j = candidates[c]
            if members and gt + tok[j] > max_group:
                break
            members.append(j)
            gt += tok[j]
            c += 1
            # the saving reached covers what is still needed: the group is big enough
            if gt - max(min_summary, math.ceil(gt * ratio)) >= expected - goal:
                break
        a = allowance(members, gt)
        if a < gt:
            groups.append((members, gt, a))
            expected -= gt - a
        i = j

    # 2. evict, oldest first within tiers: unpinned linked blocks (reconstruction; their sources
    #    stay in the store), then the other unpinned blocks and summary groups, then - if
    #    allowed - pinned blocks. Units without citation markers go through all tiers before
    #    any unit with markers: an uncited tool output can be fetched again by its handle, a
    #    dropped citation is gone from the agent's view, and the gate measures citation
    #    retention (I5) as markers per fact over the window.
    evicted = [False] * n
    group_of = [-1] * n
    for g, (members, _, _) in enumerate(groups):
        for m in members:
            group_of[m] = g
    group_gone = [False] * len(groups)
    if expected > evict_goal:
        marked: dict[int, bool] = {}

        def cites(b: Block) -> bool:
            # (only what the agent or a summarizer wrote is searched, which keeps the plan from
            # reading every source byte)
            return _citing(b) and _MARKER_START in b.text

        def has_markers(i: int) -> bool:
            hit = marked.get(i)
            if hit is None:
                g = group_of[i]
                hit = any(cites(blocks[m]) for m in groups[g][0]) if g >= 0 else cites(blocks[i])
                marked[i] = hit
            return hit

        # A block whose handle another block carries leaves only with it: the gate takes no
        # eviction record for a handle a post block still carries (it would drop that block's
        # facts unrecorded; docs/gate.md I2), so the pages of one output that shares a handle
        # go together, or none does (red team 40's compaction fuzz: a page evicted beside a
        # kept page of the same handle was refused, I2)
        shared: dict[str, list[int]] = {}
        every_handle = list(chain.from_iterable(map(_HANDLES, blocks)))
        if len(set(every_handle)) < len(every_handle):  # (the usual window has no shared handle)
            holders: dict[str, list[int]] = {}
            for k, b in enumerate(blocks):
                for h in b.handles:
                    holders.setdefault(h, []).append(k)
            shared = {h: held for h, held in holders.items() if len(held) > 1}

        def companions(unit: list[int]) -> list[int] | None:
            """The blocks that must leave with ``unit`` (carrying one of its handles, and not
            leaving or summarized already), or None when one of them may not go."""
            if not shared:
                return []
            inside = set(unit)
            out: list[int] = []
            todo = list(unit)
            while todo:
                m = todo.pop()
                for h in blocks[m].handles:
                    for j in shared.get(h, ()):
                        if j in inside or evicted[j] or group_of[j] >= 0:
                            continue
                        if pin[j] and not evict_pinned:
                            return None
                        inside.add(j)
                        out.append(j)
                        todo.append(j)
            for j in out:
                if j in older_reads and not all(evicted[o] or o in inside for o in older_reads[j]):
                    return None
            return out

        tiers = []
        if not recall:
            tiers.append([i for i in range(n) if linked[i] and not pin[i]])
        tiers.append([i for i in range(n) if not pin[i]])
        if evict_pinned:
            tiers.append([i for i in range(n) if pin[i]])
        for with_markers, stop in ((False, evict_goal), (True, below_threshold)):
            for tier in tiers:
                for i in tier:
                    if expected <= stop:
                        break
                    if evicted[i] or has_markers(i) != with_markers:
                        continue
                    if i in older_reads and not all(evicted[o] for o in older_reads[i]):
                        continue
                    g = group_of[i]
                    if g >= 0 and group_gone[g]:
                        continue
                    extra = companions([i] if g < 0 else groups[g][0])
                    if extra is None:
                        continue
                    if g < 0:
                        evicted[i] = True
                        expected -= tok[i]
                    else:
                        group_gone[g] = True
                        expected -= groups[g][2]
                        for m in groups[g][0]:
                            evicted[m] = True
                    for j in extra:
                        evicted[j] = True
                        expected -= tok[j]

    used_ids = set(ids)
    summarize: list[SummaryGroup] = []
    for g, (members, gt, a) in enumerate(groups):
        if group_gone[g]:
            continue
        member_ids = tuple(ids[m] for m in members)
        summarize.append(SummaryGroup(
            id=_group_id(member_ids, used_ids), blocks=member_ids, tokens=gt, max_tokens=a,
            linked=tuple(ids[m] for m in members if linked[m]) if recall else ()))
    keep: list[str] = []
    pinned: list[str] = []
    preserve: list[str] = []
    evict: list[str] = []
    records: dict[str, None] = {}
    for i, b in enumerate(blocks):
        if evicted[i]:
            evict.append(b.id)
            for h in b.handles or (b.id,):
                records[h] = None
        elif group_of[i] >= 0:
            continue
        elif pin[i]:
            pinned.append(b.id)
        elif linked[i] and not recall:
            preserve.append(b.id)
        else:
            keep.append(b.id)
    return CompactionPlan(
        **common, needed=True, keep=tuple(keep), pinned=tuple(pinned), preserve=tuple(preserve),
        summarize=tuple(summarize), evict=tuple(evict), eviction_records=tuple(records),
        expected_tokens=expected, expected_fill=expected / budget, meets_target=expected <= goal)


def _older_reads(blocks: Window, places: Mapping[int, tuple[int, float | None]]) -> dict[int, list[int]]:
    """For the newest read of each resource read more than once with differing content, the
    indices of its older reads. Newer = later ``ts`` when both have one, else later in the
    window; or, for reads the session's read log holds (``places``: ``Gate._read_places``),
    as the gate orders them. Reads with no order between them (the gate's top cycle: ts on
    some only, against their places) are each such a newest read, every other read of the
    resource its older ones: none is summarized, nor evicted while another stays."""
    reads: dict[str, list[int]] = {}
    for i, b in enumerate(blocks):
        if b.resource is not None:
            reads.setdefault(b.resource, []).append(i)
    out: dict[int, list[int]] = {}
    for idx in reads.values():
        if len(idx) < 2:
            continue
        # (a resource's reads are all placed by the log, or none)
        logged = all(i in places for i in idx)
        top = top_cycle(idx, (lambda i: places[i][1]) if logged else (lambda i: blocks[i].ts),
                        (lambda i: places[i][0]) if logged else int)
        if len(top) > 1:
            # reads with no order (ts on some only, against their places): each may be the
            # newest, and the gate refuses a pass that drops any of them (red team 98, F06: the
            # pass was refused, and compact() raised under every on_reject), so each is kept
            # as the newest is, while any other read of the resource survives
            # (one list for them all, the resource's reads: a read is among its own older ones,
            # which changes nothing, as it is never evicted while it stays; a list per read was
            # quadratic, red team 101, F10)
            for i in top:
                out[i] = idx
            continue
        newest = top[0]
        text = blocks[newest].text
        older = [i for i in idx if i != newest and blocks[i].text != text]
        if older:
            out[newest] = older
    return out


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _group_id(member_ids: tuple[str, ...], used: set[str]) -> str:
    """A summary id that is a pure function of what it summarizes, unique in the window."""
    digest = blake3("\x1f".join(member_ids).encode("utf-8", "surrogatepass")).hexdigest()
    base = f"summary-{digest[:16]}"
    sid, k = base, 1
    while sid in used:
        k += 1
        sid = f"{base}-{k}"
    used.add(sid)
    return sid


# -- argument checks --------------------------------------------------------------------------


def _check_window(window: Any) -> Window:
    if isinstance(window, Window):
        return window
    if isinstance(window, (list, tuple)):
        return Window.coerce(window, "window")  # malformed blocks: EditFormatError naming the field
    raise InvalidArgumentError(
        f"window must be a provgate Window (or a list of blocks), not {type(window).__name__}", argument="window")


def _check_budget(budget: Any) -> int:
    if isinstance(budget, bool) or not isinstance(budget, numbers.Integral):
        raise InvalidArgumentError(f"budget_tokens must be an int, not {type(budget).__name__}",
                                   argument="budget_tokens")
    budget = int(budget)
    if not 0 < budget <= MAX_BUDGET_TOKENS:
        raise InvalidArgumentError(f"budget_tokens must be between 1 and {MAX_BUDGET_TOKENS}, got {budget}",
                                   argument="budget_tokens")
    return budget


def _as_float(value: Any) -> float:
    """A real number as a float; NaN for one too large for a float (an int of 400 digits
    raised a bare OverflowError: red team 93, F08), which every range check refuses."""
    try:
        return float(value)
    except OverflowError:
        return math.nan


def _shown(value: Any) -> str:
    """A number for an error message, at most 80 characters (an int past Python's limit on
    the digits it converts is named by its size)."""
    try:
        shown = repr(value)
    except ValueError:
        return f"an int of {int(value).bit_length()} bits"
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _check_fraction(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidArgumentError(f"{name} must be a number in (0, 1], not {type(value).__name__}", argument=name)
    number = _as_float(value)
    if not (math.isfinite(number) and 0.0 < number <= 1.0):
        raise InvalidArgumentError(f"{name} must be in (0, 1], got {_shown(value)}", argument=name)
    return number


def _check_ratio(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (
            math.isfinite(_as_float(value)) and 0.0 < _as_float(value) < 1.0):
        raise InvalidArgumentError(f"summary_ratio must be a number in (0, 1), got {_shown(value)}",
                                   argument="summary_ratio")
    return float(value)


def _check_count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 < value <= MAX_BUDGET_TOKENS:
        raise InvalidArgumentError(f"{name} must be a positive int, got {value!r}", argument=name)
    return int(value)


def _check_task(task: Any) -> str:
    if task is None:
        return RECONSTRUCTION  # unknown downstream use: the safe default
    if not isinstance(task, str) or task not in TASKS:
        raise InvalidArgumentError(f"task must be None, 'reconstruction' or 'recall', got {task!r}",
                                   argument="task")
    return task


def _string_set(values: Any, name: str) -> frozenset[str]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise InvalidArgumentError(f"{name} must be a collection of str, not {type(values).__name__}",
                                   argument=name)
    out = frozenset(values)
    for v in out:
        if not isinstance(v, str):
            raise InvalidArgumentError(f"{name} must hold str, found {type(v).__name__}", argument=name)
    return out


def _coerce_citations(pointers: Any) -> tuple[Citation, ...]:
    if isinstance(pointers, (str, bytes, Mapping)) or not isinstance(pointers, Iterable):
        raise InvalidArgumentError(
            f"pointers must be a list of citations ({{block, handle, start, end, hash}}), not "
            f"{type(pointers).__name__}", argument="pointers")
    out = []
    for i, p in enumerate(pointers):
        if isinstance(p, Citation):
            out.append(p)
        elif isinstance(p, Mapping):
            out.append(Citation.from_json(p, f"pointers[{i}]"))
        else:
            raise InvalidArgumentError(
                f"pointers[{i}] must be a Citation or its JSON object, not {type(p).__name__} (a store "
                "Pointer names no block; cite it from a block with a Citation)", argument="pointers")
    return tuple(out)


def _cited_blocks(pointers: Any, window: Window) -> frozenset[str]:
    cites = _coerce_citations(pointers)
    for i, c in enumerate(cites):
        if window.get(c.block) is None:
            raise InvalidArgumentError(f"pointers[{i}] is cited from block {c.block!r}, which is not in the window",
                                       argument="pointers")
    return frozenset(c.block for c in cites)


# -- compact ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SummaryRequest:
    """What the summarizer is given for one summary (see ``docs/compaction.md``).

    ``blocks`` are the blocks to summarize, in window order; ``text`` is their texts, each
    ended by a newline and set apart by a blank line. The summary must be a non-empty ``str``
    of at most ``max_tokens`` tokens (as counted by the plan's counter, ``counter``) and must
    not be the input unchanged. It will be
    a derived block whose ``derived_from`` is ``derived_from``: every fact it states must occur
    in those sources or in a source it cites with a ``[src:…]`` marker (``markers`` are the
    marker names the input carries, each as often as the input has it; keep them all, or the
    gate's citation retention may fail: a summary citing a source fewer times than its input
    did loses citation markers, I5;
    ``withheld`` are the names the summary must not keep: they cite pinned sources the committed
    window will not hold, and a summary citing one restates it in its place, R).
    ``task`` is the downstream use; under ``"reconstruction"`` no retrieval-linked block is ever
    in ``blocks``; under ``"recall"`` ``linked`` names those that are (rewrite-and-relabel).
    """

    group: str
    blocks: tuple[Block, ...]
    max_tokens: int
    task: str
    derived_from: tuple[str, ...]
    linked: tuple[str, ...]
    counter: str
    withheld: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return request_text(self.blocks)

    @property
    def markers(self) -> tuple[str, ...]:
        # every occurrence, not each name once: a summary keeping each name once lost the
        # markers of a source two of its turns cited, and the gate refused it (red team 37)
        return _marker_names(self.blocks, self.withheld)


# The citation lexeme of docs/grammar.md: "[src:" then 1-256 bytes other than SEP, "[" and "]".
_MARKER = re.compile(r"\[src:([^\x00-\x20\x7f\[\]]{1,256})\]")


@dataclass(frozen=True)
class CompactionResult:
    """What :func:`compact` committed.

    ``window`` is the accepted post window (the input window when ``plan.needed`` is false);
    ``evicted`` the eviction records given to the gate; ``verdict`` the gate's final verdict
    (``None`` when nothing was to be done) and ``verdicts`` every verdict of this call (two when
    a rejected summary was dropped, ``on_reject="keep"`` or ``"evict"``); ``pointers`` the
    citations that survive (checked by the gate, invariant P) - pass them to the next pass;
    ``dropped_pointers`` those whose block was evicted; ``nominal`` maps each summary that
    rewrote retrieval-linked content (recall) to its nominal pointers; ``fallback`` lists the
    summary groups whose summary the gate rejected, kept verbatim or evicted instead;
    ``tokens``/``fill`` are measured on the committed window.
    """

    window: Window
    evicted: tuple[str, ...]
    verdict: Any
    plan: CompactionPlan
    pointers: tuple[Citation, ...] = ()
    dropped_pointers: tuple[Citation, ...] = ()
    nominal: Mapping[str, tuple[Pointer, ...]] = field(default_factory=dict)
    verdicts: tuple[Any, ...] = ()
    fallback: tuple[str, ...] = ()
    stored: tuple[str, ...] = ()
    tokens: int = 0
    fill: float = 0.0


def compact(
    window: Window,
    summarize: Callable[[SummaryRequest], str],
    *,
    store: Any,
    budget_tokens: int,
    gate: Any = None,
    task: str | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    target: float | None = None,
    count_tokens: str | TokenCounter | None = None,
    pointers: Iterable[Citation | Mapping[str, Any]] = (),
    evict_pinned: bool = False,
    summary_ratio: float = DEFAULT_SUMMARY_RATIO,
    min_summary_tokens: int = DEFAULT_MIN_SUMMARY_TOKENS,
    max_group_tokens: int = DEFAULT_MAX_GROUP_TOKENS,
    on_reject: str = "raise",
) -> CompactionResult:
    """Plan, summarize with the caller's ``summarize``, gate, and return what to commit.

    ``summarize(request: SummaryRequest) -> str`` is called once per summary group, in window
    order; it is any callable (an LLM call in real use). Its output is checked before anything
    is written: an exception, a non-``str``, an empty or whitespace-only text, a lone surrogate
    or NUL, the input returned unchanged, or more than ``request.max_tokens`` tokens raise
    :class:`~provgate.errors.SummarizerError` (the original exception chained) and nothing is
    written to the store and nothing is gated.

    The post window has, in window order: the kept and pinned blocks (pinned ones flagged
    ``pinned``), the preserved linked blocks flagged ``pinned``, one ``summary`` block per group
    at its first member's place (``derived``; ``derived_from`` = the handles of what it
    summarizes, minus pinned handles; a member with no handle of its own contributes the handle
    of its text, which is put into the store as ``block:<blake3 prefix>``), and nothing of the
    evicted blocks. Their eviction records are their handles; a block without handles is
    recorded by its id and by the handle of its text, which is stored the same way, so every
    evicted text stays retrievable. These puts happen after the summaries passed their checks
    and before the gate; they are content-addressed (a repeat is a no-op) and stay when the gate
    rejects the edit (the store is append-only, and they are exact copies of window text).

    The edit is judged by ``gate`` (a :class:`~provgate.gate.Gate` on ``store``; pass the same
    one every pass so its pins stay sticky; a fresh one is made when ``None``) with operator
    ``summarize`` (``evict`` when there is no summary). Rejected: ``on_reject="raise"`` raises
    :class:`~provgate.errors.ProvenanceInvariantError` carrying the verdict. Otherwise the
    summaries the verdict blames (all of them when a violation names no summary) are dropped
    and the edit is gated once more, raising if that is rejected too: ``on_reject="keep"``
    leaves their blocks as they were (the fill stays higher than planned: see ``result.fill``;
    docs/compaction.md lists two shapes the gate still refuses); ``on_reject="evict"`` evicts
    them with records (reaches the planned fill; their text leaves the window and stays in the
    store). Before that second check the gate is asked again which markers restate a pin: the
    rejected check pinned what its pre window held.
    """
    if not callable(summarize):
        raise InvalidArgumentError(f"summarize must be a callable (SummaryRequest -> str), not "
                                   f"{type(summarize).__name__}", argument="summarize")
    for attr in ("put", "digest", "resolves", "get_bytes"):
        if not callable(getattr(store, attr, None)):
            raise InvalidArgumentError(f"store must be a provgate SourceStore, not {type(store).__name__}",
                                       argument="store")
    if gate is None:
        gate = Gate(store)
    elif not isinstance(gate, Gate):
        raise InvalidArgumentError(f"gate must be a provgate Gate, not {type(gate).__name__}", argument="gate")
    elif gate.store is not store:
        raise InvalidArgumentError("gate judges against another store than the one given", argument="gate")
    if on_reject not in ON_REJECT:
        raise InvalidArgumentError(f"on_reject must be one of {ON_REJECT}, got {on_reject!r}", argument="on_reject")
    window = _check_window(window)
    cites = _coerce_citations(pointers)
    # a block without handles the session pinned is found by its text (its block: handle among
    # the sticky handles), as the gate finds it: an id names whatever block holds it now (red
    # team 27, x04: a renumbered window gives a pinned turn's old id to another block)
    sticky, _ = _sticky_pins(gate)
    # the texts of the window's flagged blocks are pinned from the gate's check of this very
    # pass (docs/gate.md, "Caches and sessions"): a copy of one is planned as pinned too
    sticky = sticky | set(block_source_handles([b for b in window if b.pinned]))
    # a block is pinned by a pinned text, not by a handle it shares with a pinned block (another
    # page of a pinned output: docs/gate.md R), except a handle of a record that never held the
    # pinned text (Gate._resume); a summary still derives from none of them
    legacy = gate._legacy_pins
    pin_handles = {h for h in sticky if h.startswith(BLOCK_HANDLE_PREFIX) or h in legacy}
    # ... and by its text re-rendered: a block carrying a pinned handle whose text is a pinned
    # text after the whitespace normalisation is the pinned page shown again (the gate holds it
    # to R: red team 42, R1), planned pinned by the handle of its text like a copy of the bytes
    # (every block with those bytes: one left unflagged beside the rendering evicted is a text
    # R reads as gone and I5 as held, red team 74, F01; so a tool's page with them is flagged,
    # red team 72, F04, a documented limit)
    # (with the pins the gate's check of this pass takes up from the window: the texts of the
    # blocks it holds pinned, and the handles of those it holds by their text alone; red team
    # 75, F01/F02)
    taken_up = gate._pins_taken_up(window)
    if taken_up is None:
        pin_handles |= gate._respaced_text_pins(window, sticky)
    else:
        sticky = sticky | taken_up[0]
        pin_handles |= taken_up[1]
    # handles whose stored bytes are a pinned text hold the pinned bytes as a pinned handle does
    bytes_sources = _sources_of_pinned_texts(store, window, sticky)
    plan = plan_compaction(
        window, budget_tokens=budget_tokens, threshold=threshold, task=task, count_tokens=count_tokens,
        target=target, pointers=cites, pinned_handles=pin_handles,
        _pinned_sources=bytes_sources, _shared_handles=(sticky - pin_handles) | bytes_sources,
        _read_places=gate._read_places(window),
        evict_pinned=evict_pinned, summary_ratio=summary_ratio, min_summary_tokens=min_summary_tokens,
        max_group_tokens=max_group_tokens)
    if not plan.needed:
        return CompactionResult(window=window, evicted=(), verdict=None, plan=plan, pointers=cites,
                                tokens=plan.tokens, fill=plan.fill)
    counter = _resolve_counter(count_tokens)

    # Marker names a summary must not keep, and handles it may not derive from: the gate's R
    # reads either as restating or summarizing a pinned block the committed window will not hold
    # (evicted in this pass or an earlier one). Asked of the gate itself on the committed window
    # without its summaries (Gate._pins_left): a copy of R's rules here disagreed with R in case
    # after case (red teams 40, 63, 66, 69-72), withholding a marker R lets a summary keep (I5
    # then refused the honest pass) or keeping one R refuses.
    leaving = set(plan.evict).union(*(g.blocks for g in plan.summarize))
    kept, records, *_ = _build(window, plan, {}, (), evict_dropped=False)
    pins_left = gate._pins_left(window, Window([b for b in kept if b.id not in leaving]), records)
    pinned_now = set(sticky) | {h for b in window if b.pinned for h in b.handles} | bytes_sources
    for bid in (*plan.pinned, *plan.preserve):
        pinned_now.update(window.get(bid).handles)  # type: ignore[union-attr]
    members_of = {g.id: tuple(window.get(bid) for bid in g.blocks) for g in plan.summarize}
    pinned_now |= pins_left.summarizing({h for members in members_of.values() for b in members
                                         for h in b.provenance})  # type: ignore[union-attr]

    def withheld(members: tuple[Block, ...]) -> tuple[str, ...]:
        cited = _marker_targets(gate, [b.text for b in members])
        gone = pins_left.restating(cited.values()) if cited else set()
        return tuple(n for n, h in cited.items() if h in gone)

    def summary_of(g: SummaryGroup, derived_from: tuple[str, ...]) -> str:
        members = members_of[g.id]
        request = SummaryRequest(group=g.id, blocks=members, max_tokens=g.max_tokens,  # type: ignore[arg-type]
                                 task=plan.task, derived_from=derived_from, linked=g.linked, counter=plan.counter,
                                 withheld=withheld(members))  # type: ignore[arg-type]
        return _call_summarizer(summarize, request, counter)

    # 1. every summary, checked, before anything is written
    summaries: dict[str, tuple[SummaryGroup, str, tuple[str, ...]]] = {}
    to_store: dict[str, Block] = {}
    for g in plan.summarize:
        derived_from, own_texts = _derivation(members_of[g.id], pinned_now)  # type: ignore[arg-type]
        summaries[g.id] = (g, summary_of(g, derived_from), derived_from)
        to_store.update(own_texts)

    # 2. build, store the texts it derives from or evicts, gate; on_reject="keep"/"evict" drop
    #    the summaries the gate blamed and try once more
    stored: dict[str, None] = {}
    verdicts = []
    fallback: list[str] = []
    live = dict(summaries)
    reasked: set[str] = set()  # (the summaries the fallback asked for again)
    while True:
        post, records, kept_cites, dropped, nominal, evicted_texts = _build(
            window, plan, live, cites, evict_dropped=on_reject == "evict")
        to_store.update(evicted_texts)
        for handle, block in to_store.items():
            if handle not in stored:
                # (a summary's words are a derived text: pointers into them are nominal). The
                # store refuses the words under another kind when one of them is DERIVED_KIND,
                # where it used to keep the first put's silently: an evicted summary stored as a
                # source is refused here, nothing evicted (red team 124, F05)
                try:
                    store.put(handle, block.text, kind=DERIVED_KIND if block.derived else BLOCK_SOURCE_KIND,
                              ts=block.ts)
                except HandleConflictError as exc:
                    # The same bytes evicted before under the other of compact()'s own kinds (a
                    # summary saying "Done." and, later, a turn saying "Done.", or the reverse:
                    # red team 126, F09) are those words already: kept as first stored, as
                    # before the refusal existed (a summary's kind is the stricter grade; a turn's
                    # evicted text is an original's). Only a kind the caller gave (an inline
                    # source, F05) stops the eviction.
                    if store.info(handle).kind in (DERIVED_KIND, BLOCK_SOURCE_KIND):
                        stored[handle] = None
                        continue
                    what = "summary" if block.derived else "block"
                    raise HandleConflictError(
                        f"compact(): the words of the {what} {block.id!r} it would evict are already stored under "
                        f"{handle!r} with another kind, so the record of the eviction would not say what they are; "
                        f"nothing was evicted ({exc})") from exc
                stored[handle] = None
        operator = "summarize" if live else "evict"
        # the pass commits the window of an accepted verdict (its pins stick now)
        verdict = gate.check(window, post, operator=operator, evicted=records, pointers=kept_cites, commit=True)
        verdicts.append(verdict)
        if verdict.accepted:
            break
        blamed_ids = {v.block for v in verdict.violations}
        # a summary asked for again may be refused itself, or cost what no one summary explains
        # (its markers dropped, I5): then the summaries asked for again go, and once more (red
        # team 76, F02)
        again = (len(verdicts) == 2 and bool(reasked)
                 and (blamed_ids <= reasked or not all(b in live for b in blamed_ids)))
        if on_reject == "raise" or not live or (len(verdicts) > 1 and not again):
            blamed = f" after dropping the rejected summaries {fallback} ({on_reject})" if fallback else ""
            raise ProvenanceInvariantError(
                f"compaction rejected by the gate{blamed}: {verdict.summary()}", verdict=verdict)
        if again:
            gone = [sid for sid in live if sid in reasked or sid in blamed_ids]
        elif all(b in live for b in blamed_ids):
            gone = [sid for sid in live if sid in blamed_ids]
        else:
            gone = list(live)  # a violation no single summary explains: keep none of them
        for sid in gone:
            del live[sid]
        fallback.extend(gone)
        if live:
            # the rejected check pinned what its pre window held, whatever its verdict: a summary
            # left that now summarizes a pin goes too, and one that keeps a marker now restating
            # one is asked again with the markers withheld now (red team 74, F02: R refused the
            # fallback pass for a marker withheld from no summary when they were made; red team
            # 75, F03: dropped, honest summaries took their blocks along)
            kept_now, records_now, *_ = _build(window, plan, live, cites, evict_dropped=on_reject == "evict")
            pins_left = gate._pins_left(window, Window([b for b in kept_now if b.id not in live]), records_now)
            stale = []
            for sid, (g, text, derived_from) in list(live.items()):
                if not pins_left.summarizing(derived_from):
                    if not pins_left.restating(_marker_targets(gate, [text]).values()):
                        continue
                    if len(verdicts) == 1:
                        try:
                            text = summary_of(g, derived_from)
                        except (SummarizerError, InvalidArgumentError):
                            # (the pass goes on without it: red team 76, F01; a token counter
                            # failing on the new text too, red team 77, F01)
                            text = None
                        if text is not None and not pins_left.restating(_marker_targets(gate, [text]).values()):
                            live[sid] = (g, text, derived_from)
                            reasked.add(sid)
                            continue
                stale.append(sid)
                del live[sid]
            fallback.extend(stale)
    window_out = verdict.window
    tokens = 0
    for b in window_out:
        before = window.get(b.id)
        same = before is not None and before.text == b.text
        tokens += plan.block_tokens[b.id] if same else _count(counter, b.text, f"block {b.id!r}")
    return CompactionResult(
        window=window_out, evicted=records, verdict=verdict, plan=plan, pointers=kept_cites,
        dropped_pointers=dropped, nominal=nominal, verdicts=tuple(verdicts), fallback=tuple(fallback),
        stored=tuple(stored), tokens=tokens, fill=tokens / plan.budget_tokens)


def _marker_targets(gate: Gate, texts: list[str]) -> dict[str, str]:
    """The marker names of ``texts`` that cite one stored handle, in order -> that handle."""
    names = dict.fromkeys(m.group(1) for text in texts for m in _MARKER.finditer(text))
    return {n: found[0] for n in names if len(found := gate.marker_handles(n)) == 1}


def _sticky_pins(gate: Gate) -> tuple[frozenset[str], frozenset[str]]:
    """The pins a gate session has seen (handles, and ids of blocks without handles).

    Pass n+1 must respect pass n's preservation even when a caller dropped the flags from the
    window; the gate remembers them (``Gate.pins``).
    """
    return gate.pins


def block_source_handle(block: Block) -> str:
    """The handle under which :func:`compact` stores the text of a summarized block that has no
    handle of its own: ``block:`` + the first 32 hex digits of the BLAKE3 of its UTF-8 text."""
    return block_text_handle(blake3(block.text.encode("utf-8")).digest())


def _keep_summaries_of_pinned(blocks: list[Block], pin: list[bool], summ: list[bool], pin_handles: set[str],
                              text_handles: list[str] | None) -> None:
    """Take out of ``summ`` every summary that derives from a pinned source: a pinned block's
    handles or text handle, or a sticky pin. It was made before the pin (the gate refuses one
    made after), and the gate lets it stay as it is; summarized again, its new summary would
    either name the pinned source (R) or drop a reference only it held (I1; red team 37, 01
    and 03). It is kept, or evicted. ``text_handles``: every block's, when the plan made them."""
    derived = [i for i, b in enumerate(blocks) if summ[i] and b.derived and b.derived_from]
    if not derived:
        return
    held = set(pin_handles)
    pinned_blocks = [b for b, p in zip(blocks, pin) if p]
    for b in pinned_blocks:
        held.update(b.handles)
    if text_handles is not None:
        held.update(h for h, p in zip(text_handles, pin) if p)
    elif pinned_blocks and any(h.startswith(BLOCK_HANDLE_PREFIX) for i in derived for h in blocks[i].derived_from):
        held.update(block_source_handles(pinned_blocks))  # (only pinned texts: a few, one native call)
    for i in derived:
        if not held.isdisjoint(blocks[i].derived_from):
            summ[i] = False


def _sources_of_pinned_texts(store: Any, window: Window, pin_handles: set[str]) -> set[str]:
    """The handles the window's blocks carry or derive from whose stored bytes are a pinned text.
    Once the pinned block is gone (evicted in this pass with ``evict_pinned``, or in an earlier
    one), the gate reads a summary of such a source as a summary of the pinned bytes (R): the
    summaries that name them are not summarized again (red team 37: a turn logged as user:u2
    with the words of a pinned turn, summarized in an earlier pass, summarized again once the
    pinned turn was evicted), and another block carrying one (a page of an output whose whole
    text a pinned block holds under a handle of its own) is planned as a block sharing a pinned
    handle (red team 40's compaction fuzz with copies, seed 2751: its summary derived from the
    handle once the pinned copy was evicted, and R refused the pass)."""
    # (pin_handles holds the texts of the window's flagged blocks too: compact adds them)
    texts = {h for h in pin_handles if h.startswith(BLOCK_HANDLE_PREFIX)}
    if not texts:
        return set()
    asked = {h for b in window for h in (b.derived_from if b.derived else b.handles)
             if not is_text_handle(h)} - pin_handles
    if not asked:
        return set()
    return {h for h, digest in store.digests_many(sorted(asked)).items() if stored_text_handle(digest) in texts}


def _citing(block: Block) -> bool:
    """Are ``[src:…]`` markers in ``block`` citations, which the gate's citation retention (I5)
    counts: the agent's own turns and summaries? In a tool output, a user's or the system's
    words they are data (docs/gate.md I5)."""
    return block.derived or block.role in _CITING_ROLES


def _marker_names(blocks: Iterable[Block], withheld: Iterable[str] = ()) -> tuple[str, ...]:
    """The names of the citation markers ``blocks`` hold, each as often as it occurs, in order
    (but those in ``withheld``); markers that are data (:func:`_citing`) are no citations."""
    # (findall: the names without a match object each, which were most of a plan's time)
    names = [n for b in blocks if _citing(b) and _MARKER_START in b.text for n in _MARKER.findall(b.text)]
    return tuple(n for n in names if n not in withheld) if withheld else tuple(names)


def _marker_tokens(blocks: list[Block], counter: _Counter) -> int:
    """Tokens of the citation markers ``blocks`` hold, joined by spaces (0 for none)."""
    names = _marker_names(blocks)
    if not names:
        return 0
    if counter is _APPROX:
        # "[src:" + name + "]" joined by single spaces: its UTF-8 bytes without building it
        size = len(" ".join(names).encode("utf-8")) + 6 * len(names)
        return (size + BYTES_PER_TOKEN - 1) // BYTES_PER_TOKEN
    return _count(counter, " ".join(f"[src:{n}]" for n in names), "a summary group's citation markers")


def block_source_handles(blocks: list[Block]) -> list[str]:
    """:func:`block_source_handle` of each of ``blocks``, hashed in one native call."""
    digests = hash_buffers([b.text.encode("utf-8") for b in blocks]).tobytes()
    return [block_text_handle(digests[32 * k:32 * k + 32]) for k in range(len(blocks))]


def _derivation(members: tuple[Block, ...], pinned: set[str]) -> tuple[tuple[str, ...], dict[str, Block]]:
    """``derived_from`` of a summary of ``members``, and the texts that must be stored for it."""
    out: dict[str, None] = {}
    own: dict[str, Block] = {}
    for b in members:
        hs = [h for h in b.provenance if h not in pinned]
        if not hs:
            # nothing else to derive from (an assistant turn; or only pinned handles): the text
            # itself becomes a source, content-addressed, so the summary is grounded in it
            h = block_source_handle(b)
            own[h] = b
            hs = [h]
        for h in hs:
            out[h] = None
    return tuple(out), own


def _call_summarizer(summarize: Callable[[SummaryRequest], str], request: SummaryRequest,
                     counter: _Counter) -> str:
    name = _callable_name(summarize)

    def fail(reason: str, message: str) -> SummarizerError:
        return SummarizerError(f"summarizer {name} {message} (summary {request.group!r} of blocks "
                               f"{list(b.id for b in request.blocks)})", summarizer=name, group=request.group,
                               reason=reason)

    try:
        text = summarize(request)
    except Exception as exc:
        raise fail("raised", f"raised {type(exc).__name__}: {exc}") from exc
    if not isinstance(text, str):
        raise fail("not_text", f"returned {type(text).__name__}, not str")
    if not text.strip():
        raise fail("empty", "returned an empty summary; to drop blocks, evict them")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise fail("invalid_text", f"returned text with a lone surrogate at index {exc.start}") from None
    if "\x00" in text:
        raise fail("invalid_text", f"returned text with a NUL character at index {text.index(chr(0))}")
    if _unchanged(text, request.blocks):
        raise fail("unchanged", "returned its input unchanged: no reduction, so the plan's fill cannot be met")
    n = _count(counter, text, f"the summary {request.group!r}")
    if n > request.max_tokens:
        raise fail("over_allowance", f"returned {n} tokens ({counter.name}); the plan allows "
                   f"{request.max_tokens} for this summary")
    return text


def request_text(blocks: Iterable[Block]) -> str:
    """The texts of the blocks a summarizer is given: each ended by a newline and set apart
    by a blank line. Joined bare, the last token of one block and the first of the next would
    fuse ("count=12" and "3 retries" into "count=123 retries"), and a summarizer that keeps
    what it reads would state a value no source holds (red team 11, x12)."""
    return "\n".join(t if t.endswith("\n") else t + "\n" for t in (b.text for b in blocks))


def _unchanged(text: str, blocks: tuple[Block, ...]) -> bool:
    got = normalize_whitespace(text)
    return got == normalize_whitespace(request_text(blocks)) or any(
        got == normalize_whitespace(sep.join(b.text for b in blocks)) for sep in ("", "\n"))


def _build(window: Window, plan: CompactionPlan, live: Mapping[str, tuple[SummaryGroup, str, tuple[str, ...]]],
           cites: tuple[Citation, ...], *, evict_dropped: bool):
    """The post window, eviction records, surviving / dropped citations, nominal pointers, and
    the evicted texts without a handle, which are stored so that nothing evicted is lost."""
    first: dict[str, str] = {}
    member_of: dict[str, str] = {}
    evict = set(plan.evict)
    for sid, (g, _, _) in live.items():
        first[g.blocks[0]] = sid
        for bid in g.blocks:
            member_of[bid] = sid
    # a summary the gate rejected takes its members with it (evict), or leaves them be (keep)
    if evict_dropped:
        for g in plan.summarize:
            if g.id not in live:
                evict.update(g.blocks)
    pin = set(plan.pinned) | set(plan.preserve)
    blocks: list[Block] = []
    records: dict[str, None] = {}
    evicted_texts: dict[str, Block] = {}
    for b in window:
        if b.id in evict:
            if b.handles:
                records.update(dict.fromkeys(b.handles))
            else:
                # the gate accounts a handle-less block by its id; the text's own handle keeps
                # it retrievable from the store like any evicted source
                h = block_source_handle(b)
                records[b.id] = None
                records[h] = None
                evicted_texts[h] = b
            continue
        sid = first.get(b.id)
        if sid is not None:
            g, text, derived_from = live[sid]
            members = [window.get(m) for m in g.blocks]
            ts = [m.ts for m in members if m.ts is not None]  # type: ignore[union-attr]
            blocks.append(Block(sid, "summary", text, (), True, derived_from, False, max(ts) if ts else None, None))
            continue
        if b.id in member_of:
            continue
        if b.id in pin and not b.pinned:
            b = Block(b.id, b.role, b.text, b.handles, b.derived, b.derived_from, True, b.ts, b.resource)
        blocks.append(b)
    kept: list[Citation] = []
    dropped: list[Citation] = []
    relabel: dict[str, list[Citation]] = {}
    for c in cites:
        if c.block in evict:
            dropped.append(c)
        elif c.block in member_of:
            relabel.setdefault(member_of[c.block], []).append(c)
        else:
            kept.append(c)
    nominal = _nominal_pointers(window, live, relabel)
    return Window(blocks), tuple(records), tuple(kept), tuple(dropped), nominal, evicted_texts


def _nominal_pointers(window: Window, live: Mapping[str, tuple[SummaryGroup, str, tuple[str, ...]]],
                      relabel: Mapping[str, list[Citation]]) -> dict[str, tuple[Pointer, ...]]:
    """Rewrite-and-relabel: a summary that replaced retrieval-linked content carries pointers
    to it only as nominal labels. Each points into the summary's own text (its whole span; its
    digests are the summary's), so it could never resolve against the source even with the flag
    stripped (``source_changed``), and with the flag it is refused as ``nominal``."""
    out: dict[str, tuple[Pointer, ...]] = {}
    for sid, (g, text, _) in live.items():
        handles: dict[str, None] = {}
        for bid in g.linked:
            for h in window.get(bid).handles:  # type: ignore[union-attr]
                handles[h] = None
        for c in relabel.get(sid, ()):
            handles[c.handle] = None
        if not handles:
            continue
        data = text.encode("utf-8")
        digest = "blake3:" + blake3(data).hexdigest()
        out[sid] = tuple(
            Pointer(handle=h, start=0, end=len(data), span_digest=digest, source_digest=digest,
                    label=f"{h} (nominal: summarized into {sid})", nominal=True)
            for h in handles)
    return out


__all__ = [
    "BLOCK_HANDLE_PREFIX",
    "CompactionPlan",
    "CompactionResult",
    "SummaryGroup",
    "SummaryRequest",
    "TASKS",
    "approx_tokens",
    "block_source_handle",
    "compact",
    "plan_compaction",
]
