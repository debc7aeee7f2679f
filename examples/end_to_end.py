"""provgate end to end: the durable store, fail-closed pointers, the gate, compaction,
citation checks and the session report.

    python examples/end_to_end.py

1. An agent's tool calls, documents and user turns are put into the durable store.
2. The agent cites exact spans of them with content-addressed pointers, which travel
   through the context window as plain JSON.
3. Compaction summarises the window. A compactor that re-derives pointer offsets against its
   own summary (the seed's failure) produces pointers that still look valid. provgate refuses
   to resolve them, and says why, instead of returning plausible wrong bytes.
4. ... (steps 1-5: the store and pointers; steps 6-9: the gate at the commit point of every
   context edit, a compaction pass that keeps provenance, the answer's citations checked byte
   for byte, and the session report from the audit log.)

Exits 0 when every step behaved as described, 1 otherwise.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import tempfile
from pathlib import Path

from provgate import Gate, Window, approx_tokens, compact, session_report, verify_citations
from provgate.digests import compute_digest
from provgate.errors import ProvenanceResolutionError
from provgate.pointers import Pointer
from provgate.store import SourceStore

CONFIG_FILE = """\
# /srv/payments/client.conf
endpoint=https://payments.internal.example.com/v3
retries=3
backoff_ms=250
timeout_s=30
"""

DOC_7 = """\
Runbook: payment client rollout (doc_7)

Before enabling the new client, confirm that the retry budget is unchanged from the
previous release. The client must never retry more than three times per request, because
the upstream processor treats a fourth attempt as a duplicate charge.
Rollback: set enabled=false and redeploy; no data migration is needed.
"""

USER_TURN = "Please keep retries at 3 — the processor double-charges on a 4th attempt."

# What an LLM compactor wrote in place of the three sources after a few cycles.
SUMMARY = (
    "[summary of tool:call_8841, doc:doc_7, user:u3] The payment client talks to the v3 "
    "endpoint with retries=3 and a 30 s timeout. Per the runbook, the client must never retry "
    "more than three times per request. The user asked to keep the retry budget. "
    "Details in tool:call_9999."
)


def say(text: str = "") -> None:
    print(text)


def ingest(store: SourceStore) -> None:
    say("1. Ingest: every source goes into the durable store once, content-addressed (BLAKE3).")
    sources = [
        ("tool:call_8841", CONFIG_FILE, "tool_output"),
        ("doc:doc_7", DOC_7, "document"),
        ("user:u3", USER_TURN, "user_turn"),
    ]
    for handle, text, kind in sources:
        digest = store.put(handle, text, kind=kind)
        say(f"   put {handle:<15} {len(text.encode()):4d} bytes  {digest[:23]}…")
    say(f"   the store at {store.path} now holds {len(store)} sources")
    say()


def byte_span(text: str, needle: str) -> tuple[int, int]:
    """UTF-8 byte offsets of ``needle`` in ``text`` (the unit pointers use)."""
    start = text.encode().index(needle.encode())
    return start, start + len(needle.encode())


def cite(store: SourceStore) -> list[tuple[Pointer, str]]:
    """Pointers to the facts the agent relies on, each with the text it must resolve to."""
    say("2. Cite: pointers name exact byte spans of the ORIGINAL sources, with digests.")
    retries = store.pointer("tool:call_8841", *byte_span(CONFIG_FILE, "retries=3"), label="client.conf#L3")
    rule = "The client must never retry more than three times per request"
    i = DOC_7.index(rule)  # a Python str index: pointer_from_str_indices converts to bytes
    runbook = store.pointer_from_str_indices("doc:doc_7", i, i + len(rule), label="doc_7#L4-5")
    user = store.pointer("user:u3", *byte_span(USER_TURN, "keep retries at 3"), label="u3")
    cited = [(retries, "retries=3"), (runbook, rule), (user, "keep retries at 3")]
    for p, _ in cited:
        say(f"   {p.label:<15} -> {p.handle}[{p.start}:{p.end}]  span {p.span_digest[:19]}…")
    say("   as JSON in the window: " + json.dumps(retries.to_json())[:96] + "…")
    say()
    return cited


def resolve_all(store: SourceStore, cited: list[tuple[Pointer, str]]) -> bool:
    say("3. Resolve: each pointer, read back from its JSON, is checked against the store's copy.")
    ok = True
    for p, expected in cited:
        text = store.resolve(Pointer.from_json(json.loads(json.dumps(p.to_json()))))
        say(f"   {p.label:<15} = {text!r}")
        ok &= text == expected
    say()
    return ok


def reanchor(pointer: Pointer, needle: str) -> Pointer:
    """What a careless compactor does: keep handle and label, recompute offsets and the span
    digest against its own summary. The result looks exactly like a real pointer."""
    start, end = byte_span(SUMMARY, needle)
    return dataclasses.replace(
        pointer, start=start, end=end, span_digest=compute_digest(SUMMARY.encode()[start:end])
    )


def compaction_failures(cited: list[tuple[Pointer, str]]) -> list[tuple[str, Pointer, str]]:
    """Pointers as a compactor leaves them, each with the reason provgate must give."""
    (retries, _), (runbook, _), _ = cited
    return [
        (
            "doc_7 quote re-anchored onto the summary",
            reanchor(runbook, "the client must never retry more than three times per request"),
            "span_mismatch",
        ),
        ("config pointer re-anchored past the source's end", reanchor(retries, "retries=3 and a 30 s"), "out_of_range"),
        (
            "summary cites a tool call never persisted",
            dataclasses.replace(retries, handle="tool:call_9999", label="call_9999"),
            "unknown_handle",
        ),
        ("pointer marked as into the summary (nominal)", dataclasses.replace(retries, nominal=True), "nominal"),
    ]


def show_fail_closed(store: SourceStore, cited: list[tuple[Pointer, str]]) -> bool:
    say("4. Compact: the summary keeps every label, but pointers derived from it fail closed.")
    say(f"   summary: {SUMMARY[:88]}…")
    ok = True
    for what, bad, expected in compaction_failures(cited):
        say(f"   {what} ({bad.label} -> {bad.handle}[{bad.start}:{bad.end}]):")
        if bad.span_digest == compute_digest(SUMMARY.encode()[bad.start : bad.end]):
            wrong = SUMMARY.encode()[bad.start : bad.end].decode()
            say(f"      resolved against the summary it would quote {wrong!r}")
            if wrong not in store.get(bad.handle):
                say(f"      which {bad.handle} does not contain byte for byte: plausible, fluent, wrong")
        try:
            store.resolve(bad)
        except ProvenanceResolutionError as exc:
            say(f"      provgate refuses: reason={exc.reason}")
            ok &= exc.reason == expected
        else:
            say("      RESOLVED (this must not happen)")
            ok = False
    say()
    return ok


def reopen(path: Path, cited: list[tuple[Pointer, str]]) -> bool:
    say("5. The store outlives the window: reopened from disk, the original pointers still resolve.")
    with SourceStore(path) as store:
        ok = all(store.resolve(p) == expected for p, expected in cited)
        problems = store.verify()
        say(f"   {len(cited)} pointers resolved byte-exactly; store check: {problems or 'healthy'}")
    say()
    return ok and not problems


# -- the gate ---------------------------------------------------------------------------------

CONFIG_REREAD = CONFIG_FILE.replace("retries=3", "retries=4")  # after a concurrent edit

ANSWER = (
    'The client is configured with "retries=3" [src:call_8841], and the runbook says '
    '"The client must never retry more than three times per request" [src:doc_7]. '
    'The user asked to "keep retries at 5" [src:u3].\n'
)


def window() -> list[dict]:
    """The agent's working set: three sources (one a read of a file) and its own analysis."""
    return [
        {"id": "b1", "role": "tool", "text": CONFIG_FILE, "handles": ["tool:call_8841"], "ts": 100.0,
         "resource": "file:/srv/payments/client.conf"},
        {"id": "b2", "role": "tool", "text": DOC_7, "handles": ["doc:doc_7"], "ts": 110.0},
        {"id": "b3", "role": "user", "text": USER_TURN, "handles": ["user:u3"], "ts": 120.0, "pinned": True},
        {"id": "b4", "role": "assistant", "ts": 130.0,
         "text": "The client retries 3 times [src:call_8841]; the runbook caps it at three [src:doc_7].\n"},
    ]


def show(verdict, expect_accepted: bool, what: str) -> bool:
    status = "accepted" if verdict.accepted else "REJECTED"
    say(f"   {what}: {status} ({verdict.classification}) in {verdict.timings_ms['total']:.2f} ms")
    for v in verdict.violations[:3]:
        say(f"      {v.invariant}: {v.message[:110]}")
    return verdict.accepted is expect_accepted


def gate_edits(store: SourceStore, gate: Gate) -> bool:
    say("6. Gate: every context edit passes the commit point; edits that break provenance are refused.")
    pre = window()
    ok = True
    drift = [dict(pre[0], text=CONFIG_FILE.replace("retries=3", "retries=5")), *pre[1:]]
    ok &= show(gate.check(pre, drift, operator="rewrite"), False,
               "a 'formatting' rewrite that changed retries=3 to retries=5")
    ok &= show(gate.check(pre, drift, operator="rewrite", policy="reclassify"), False,
               "   ... even reclassified as lossy, the new value is grounded nowhere")
    pruned = [pre[0], pre[2], pre[3]]
    ok &= show(gate.check(pre, pruned, operator="prune"), False, "a prune that drops doc_7 silently")
    ok &= show(gate.check(pre, pruned, operator="prune", evicted=["doc:doc_7"]), True,
               "the same prune with an eviction record")
    summary = {"id": "s1", "role": "summary", "derived": True, "derived_from": ["tool:call_8841", "tool:call_9999"],
               "text": "The client retries 3 times [src:call_8841], per the runbook [src:doc_7].\n"}
    ok &= show(gate.check(pre, [summary, pre[1], pre[2]], operator="summarize"), False,
               "a summary derived from a tool call that was never persisted")
    store.put("tool:call_8850", CONFIG_REREAD, kind="tool_output")
    reread = {"id": "b5", "role": "tool", "text": CONFIG_REREAD, "handles": ["tool:call_8850"], "ts": 140.0,
              "resource": "file:/srv/payments/client.conf"}
    merged = [dict(pre[0], handles=["tool:call_8841", "tool:call_8850"]), *pre[1:]]
    # (on a gate of their own: a session that has seen the re-read holds every later edit to
    # its retries=4, and step 7 compacts a window of this session that never read it again)
    other = Gate(store, audit=False)
    ok &= show(other.check([*pre, reread], merged, operator="prune"), False,
               "a prune that merged two reads of client.conf into the older one")
    kept_newer = [*pre[1:], reread]
    ok &= show(other.check([*pre, reread], kept_newer, operator="prune",
                           supersedes=[{"block": "b5", "handle": "tool:call_8841"}]), True,
               "keeping the newer read with a supersedes edge")
    say()
    return ok


ANALYSIS = (
    "Step {n}: I compared the client configuration with the runbook. The client retries 3 times "
    "[src:call_8841] and the runbook caps retries at three per request [src:doc_7], so the two "
    "agree; the endpoint is the v3 one and nothing in this step changes the retry budget. I will "
    "keep reading the rollout notes before proposing any change to the client.\n"
)


def compaction_pass(store: SourceStore, gate: Gate) -> bool:
    say("7. Compact: plan, summarize (the caller's model; a stand-in here), gate - preserve-or-evict.")
    blocks = window()
    for n in range(1, 7):  # the agent's running analysis fills the window
        blocks.append({"id": f"a{n}", "role": "assistant", "text": ANALYSIS.format(n=n), "ts": 140.0 + n})
    pre = Window(blocks)

    def stand_in_summarizer(request) -> str:
        # an LLM call in real use. It may only restate what the sources say, and it keeps a
        # marker on every claim: I5 counts markers per fact, cycle after cycle
        return ("Analysis so far: the client retries 3 times [src:call_8841] (retries=3 [src:call_8841], "
                "backoff_ms=250 [src:call_8841], timeout 30 s [src:call_8841]); the runbook caps retries at "
                "three [src:doc_7] because a fourth attempt [src:doc_7] double-charges.\n")

    tokens = sum(approx_tokens(b.text) for b in pre)
    result = compact(pre, stand_in_summarizer, store=store, gate=gate, budget_tokens=int(tokens * 1.1))
    plan = result.plan
    summarized = [b for g in plan.summarize for b in g.blocks]
    say(f"   fill {plan.fill:.0%} of the budget -> {result.fill:.0%}")
    say(f"   summarized (no source of their own): {summarized}")
    say(f"   kept verbatim, pinned (retrieval-linked: never rewritten): {list(plan.preserve)}")
    say(f"   gate: {result.verdict.summary()}")
    kept = {b.id: b for b in result.window}
    preserved = all(kept[i].text == pre.get(i).text and kept[i].pinned for i in plan.preserve if i in kept)
    say(f"   linked blocks byte-identical and pinned: {preserved}")
    say()
    return result.verdict.accepted and preserved and bool(summarized)


def check_answer(store: SourceStore) -> bool:
    say("8. Verify: an answer's quoted citations, checked byte for byte against the cited sources.")
    report = verify_citations(store, ANSWER)
    totals = report.to_json()["totals"]
    say(f"   citations {totals['citations']}: presence {totals['presence_rate']:.0%}, "
        f"accuracy {totals['accuracy_rate']:.0%}")
    for c in report.citations:
        say(f"      {c.grade:<10} {c.quotation.text[:60]!r} [src:{c.marker.name}]")
    say()
    return totals["presence_rate"] == 1.0 and 0 < totals["accuracy_rate"] < 1


def show_report(store: SourceStore, session: str) -> bool:
    say("9. Report: the session, cycle by cycle, from the durable audit log.")
    report = session_report(store, session=session)
    table = report.format_table()
    for line in table.splitlines()[:16]:
        say("   " + line)
    say()
    return "rejected" in table


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="provgate-example-") as tmp:
        path = Path(tmp) / "store.sqlite3"
        with SourceStore(path) as store:
            ingest(store)
            cited = cite(store)
            ok = resolve_all(store, cited)
            ok &= show_fail_closed(store, cited)
        ok &= reopen(path, cited)
        with SourceStore(path) as store:
            gate = Gate(store, session="example")
            ok &= gate_edits(store, gate)
            ok &= compaction_pass(store, gate)
            ok &= check_answer(store)
            ok &= show_report(store, "example")
    say("done: every step behaved as described." if ok else "FAILED: see above.")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
