"""Write ``store_schema2.sqlite3``: a store as provgate's schema version 2 wrote it, for the tests
of the in-place upgrade to schema 3 (tests/test_store_kind_checksum.py).

It must be run with a provgate whose store is at schema version 2, that is the code before
schema 3 (commit e949e4d of the main repository, or any earlier one with schema 2):

    git clone -q <repo> /tmp/v2 && git -C /tmp/v2 checkout -q e949e4d
    PROVGATE_NO_EXTENSIONS=1 PYTHONPATH=/tmp/v2/src python tests/data/make_schema2_store.py tests/data/store_schema2.sqlite3

The file is committed; this script says how it was made and can make it again. What it holds is
listed in ``SOURCES`` and ``RECORDS``, which the tests import to compare with what they read.
"""

from __future__ import annotations

import os
import sys

# handle -> (text, kind, ts): every shape of kind and ts a put can store, among them a summary's
# words under its block handle with kind window_summary (what compact() stores as it evicts it)
SUMMARY = "The client retries 3 times and times out after 30s.\n"
SOURCES: dict[str, tuple[str, str | None, float | None]] = {
    "tool:call_1": ("retries=3\ntimeout=30s\n", "tool_output", 1763000000.0),
    "tool:call_2": ("retries=5\ntimeout=30s\n", None, None),
    "block:SUMMARY": (SUMMARY, "window_summary", 1763000000.25),
    "doc:neg_zero": ("a document stamped -0.0\n", "document", -0.0),
    "user:u1": ("ping ü€𝄞\n", "user_turn", 1763000000123.0),
    "tool:tiny": ("tiny\n", "tool_output", 5e-324),
    "tool:huge": ("huge\n", "kind with spaces ü", -1.7976931348623157e308),
    "tool:same_text": ("retries=3\ntimeout=30s\n", "tool_output", 2.5),  # content shared with tool:call_1
}
RECORDS = [
    {"session": "S", "cycle": 0, "accepted": True},
    {"accepted": False},
    {"session": "S", "cycle": 1, "accepted": True},
]
FACTS = ("v1", b"a cached fact table")


def block_handle(text: str) -> str:
    from blake3 import blake3

    from provgate.handles import block_text_handle

    return block_text_handle(blake3(text.encode("utf-8")).digest())


def main(out: str) -> None:
    from provgate.store import SCHEMA_VERSION, SourceStore

    if SCHEMA_VERSION != 2:
        raise SystemExit(f"this provgate writes schema version {SCHEMA_VERSION}; run it with a schema 2 provgate")
    if os.path.exists(out):
        os.remove(out)
    with SourceStore(out) as store:
        for handle, (text, kind, ts) in SOURCES.items():
            if handle == "block:SUMMARY":
                handle = block_handle(text)
            store.put(handle, text, kind=kind, ts=ts)
        for record in RECORDS:
            store.append_audit(record)
        store.put_cached_facts(store.digest("tool:call_1"), *FACTS)
        assert store.verify() == []
    # closing the last connection checkpointed the WAL into the file and removed it


if __name__ == "__main__":
    main(sys.argv[1])
