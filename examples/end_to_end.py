"""provgate end to end, stage 1: a durable source store and pointers that fail closed.

    python examples/end_to_end.py

1. An agent's tool calls, documents and user turns are put into the durable store.
2. The agent cites exact spans of them with content-addressed pointers, which travel
   through the context window as plain JSON.
3. Compaction summarises the window. A compactor that re-derives pointer offsets against its
   own summary (the seed's failure) produces pointers that still look valid. provgate refuses
   to resolve them, and says why, instead of returning plausible wrong bytes.

Exits 0 when every step behaved as described, 1 otherwise.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import tempfile
from pathlib import Path

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


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="provgate-example-") as tmp:
        path = Path(tmp) / "store.sqlite3"
        with SourceStore(path) as store:
            ingest(store)
            cited = cite(store)
            ok = resolve_all(store, cited)
            ok &= show_fail_closed(store, cited)
        ok &= reopen(path, cited)
    say("done: every step behaved as described." if ok else "FAILED: see above.")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
