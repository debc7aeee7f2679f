"""Windows, stores and summarizers shared by the compaction tests."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from blake3 import blake3

from provgate.pointers import Pointer
from provgate.store import SourceStore
from provgate.window import Block, Citation, Window

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "benchmarks") not in sys.path:
    sys.path.insert(0, str(ROOT / "benchmarks"))

import corpus  # noqa: E402

MARKER = re.compile(r"\[src:[^\]\s\[]+\]")

FILLER = "the team kept the service stable while the queue drained and the cache warmed up again. "


def filler(words: int) -> str:
    base = FILLER.split()
    return " ".join(base[i % len(base)] for i in range(words)) + "\n"


def small_window() -> tuple[Window, dict[str, str]]:
    """A pinned system prompt and task, three tool outputs and the assistant turns that cite
    them, one unmarked remark. Texts of tool blocks are their sources."""
    sources = {
        "doc:sys": "you are a careful coding agent.\n",
        "user:u1": "please fix the retry loop in client.conf\n",
        "tool:call_1": "retries=3\ntimeout=30s\n" + filler(60),
        "tool:call_2": "endpoint=https://api.example.com/v3\nbackoff_ms=250\n" + filler(80),
        "tool:call_3": "max_conns=12\nidle_s=90\n" + filler(70),
    }
    blocks = [
        Block("b0", "system", sources["doc:sys"], ("doc:sys",), pinned=True, ts=1.0),
        Block("b1", "user", sources["user:u1"], ("user:u1",), pinned=True, ts=2.0),
        Block("b2", "tool", sources["tool:call_1"], ("tool:call_1",), ts=3.0),
        Block("b3", "assistant", "the client sets retries=3 [src:call_1] and " + filler(40), ts=4.0),
        Block("b4", "tool", sources["tool:call_2"], ("tool:call_2",), ts=5.0),
        Block("b5", "assistant", "it backs off for backoff_ms=250 [src:call_2] then " + filler(50), ts=6.0),
        Block("b6", "assistant", filler(30), ts=7.0),
        Block("b7", "tool", sources["tool:call_3"], ("tool:call_3",), ts=8.0),
        Block("b8", "assistant", "the pool allows max_conns=12 [src:call_3] while " + filler(45), ts=9.0),
    ]
    return Window(blocks), sources


def memory_store(sources: dict[str, str]) -> SourceStore:
    store = SourceStore(":memory:")
    for h, text in sources.items():
        store.put(h, text)
    return store


def markers_only(request) -> str:
    """An honest summarizer: keeps every citation marker of its input, states no fact."""
    found = MARKER.findall(request.text)
    return "summary of earlier turns: " + " ".join(found) + "\n"


def citation(block_id: str, handle: str, source: str, needle: str) -> Citation:
    data = source.encode("utf-8")
    start = data.index(needle.encode("utf-8"))
    end = start + len(needle.encode("utf-8"))
    return Citation(block_id, handle, start, end, "blake3:" + blake3(data[start:end]).hexdigest())


def resolve_citation(store: SourceStore, c: Citation) -> bytes:
    """A citation resolved through the store's fail-closed resolver, byte-exactly."""
    p = Pointer(handle=c.handle, start=c.start, end=c.end, span_digest=c.hash, source_digest=store.digest(c.handle))
    return store.resolve_bytes(p)


def audit_count(store: SourceStore) -> int:
    return sum(1 for _ in store.iter_audit())


def store_state(store: SourceStore) -> tuple[list[str], int]:
    return list(store), audit_count(store)


def corpus_blocks(tokens: int, seed: int = 0) -> tuple[list[Block], dict[str, str], "corpus.CorpusWindow"]:
    cw = corpus.make_window(tokens, seed=seed)
    return list(Window(cw.blocks)), dict(cw.sources), cw


def corpus_citations(cw, blocks: list[Block]) -> list[Citation]:
    """One byte-exact citation per marked assistant turn, into the first source it cites."""
    out = []
    for b in blocks:
        if b.role != "assistant":
            continue
        m = re.search(r"\[src:([A-Za-z0-9_]+)\]", b.text)
        if not m:
            continue
        h = corpus.marker_handle(m.group(1))
        src = cw.sources[h]
        fact = next((f for f in cw.facts[h] if f in src), None)
        if fact is not None:
            out.append(citation(b.id, h, src, fact))
    return out
