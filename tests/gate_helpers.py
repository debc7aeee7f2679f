"""Builders shared by the gate tests: blocks, stores holding the seeds' sources, and
assertions that name the violation they expect (invariant, block, key/value, handle, reason)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from blake3 import blake3

from provgate import gate as gate_module
from provgate.gate import Gate
from provgate.store import SourceStore
from provgate.verdict import Verdict, Violation


def blk(
    id: str,
    role: str,
    text: str,
    handles: Iterable[str] = (),
    *,
    derived_from: Iterable[str] | None = None,
    pinned: bool = False,
    ts: float | None = None,
    resource: str | None = None,
) -> dict[str, Any]:
    """One block in the edit format; ``derived_from`` given means a derived block."""
    out: dict[str, Any] = {
        "id": id,
        "role": role,
        "text": text,
        "handles": list(handles),
        "derived": derived_from is not None,
        "derived_from": list(derived_from or ()),
        "pinned": pinned,
        "ts": ts,
    }
    if resource is not None:
        out["resource"] = resource
    return out


def tool(id: str, handle: str, text: str, **kw: Any) -> dict[str, Any]:
    """A tool output whose text IS its source text (the usual primary block)."""
    return blk(id, "tool", text, [handle], **kw)


def summary(id: str, text: str, derived_from: Iterable[str], **kw: Any) -> dict[str, Any]:
    return blk(id, "summary", text, derived_from=list(derived_from), **kw)


def store_with(sources: dict[str, str], path: Any = ":memory:") -> SourceStore:
    store = SourceStore(path)
    for handle, text in sources.items():
        store.put(handle, text)
    return store


def gate_for(sources: dict[str, str], **kw: Any) -> Gate:
    return Gate(store_with(sources), **kw)


def of(verdict: Verdict, invariant: str) -> list[Violation]:
    return [v for v in verdict.violations if v.invariant == invariant]


def describe(verdict: Verdict) -> str:
    return json.dumps(verdict.to_json(), indent=1, default=str)


def assert_accepted(verdict: Verdict, classification: str | None = None) -> None:
    assert verdict.accepted, describe(verdict)
    assert verdict.violations == (), describe(verdict)
    if classification is not None:
        assert verdict.classification == classification, describe(verdict)


def find(verdict: Verdict, invariant: str, **fields: Any) -> Violation:
    """The violation of ``invariant`` whose fields (and evidence items, ``evidence__x=``)
    match; fails with the whole verdict when there is none."""
    assert not verdict.accepted, describe(verdict)
    assert verdict.classification == "rejected", describe(verdict)
    for v in of(verdict, invariant):
        ok = True
        for name, want in fields.items():
            if name.startswith("evidence__"):
                got = v.evidence.get(name[len("evidence__"):])
            else:
                got = getattr(v, name)
            if got != want:
                ok = False
                break
        if ok:
            return v
    raise AssertionError(f"no {invariant} violation with {fields}:\n{describe(verdict)}")


def invariants(verdict: Verdict) -> set[str]:
    return {v.invariant for v in verdict.violations}


def blake3_of(data: bytes) -> str:
    return "blake3:" + blake3(data).hexdigest()


def byte_span(text: str, needle: str) -> tuple[int, int]:
    """UTF-8 byte offsets of the first ``needle`` in ``text``."""
    i = text.index(needle)
    start = len(text[:i].encode("utf-8"))
    return start, start + len(needle.encode("utf-8"))


def pointer_to(block: str, handle: str, source: str, needle: str, *, algo: str = "blake3") -> dict[str, Any]:
    """A byte-exact pointer from ``block`` to the first ``needle`` in ``source``."""
    import hashlib

    start, end = byte_span(source, needle)
    data = source.encode("utf-8")[start:end]
    digest = blake3(data).hexdigest() if algo == "blake3" else hashlib.sha256(data).hexdigest()
    return {"block": block, "handle": handle, "start": start, "end": end, "hash": f"{algo}:{digest}"}


def audit_count(store: SourceStore) -> int:
    return sum(1 for _ in store.iter_audit())


def store_state(store: SourceStore) -> tuple[list[tuple[str, str]], int]:
    """Every source (handle, digest) and the audit length: what bad input must not change."""
    return [(h, store.digest(h)) for h in store], audit_count(store)


def record_extractions(monkeypatch: Any) -> list[bytes]:
    """Every text the gate scans for facts from now on (one by one or many at once), in order."""
    calls: list[bytes] = []
    one, many = gate_module.extract, gate_module.extract_many
    monkeypatch.setattr(gate_module, "extract", lambda data, *a, **k: calls.append(bytes(data)) or one(data, *a, **k))
    monkeypatch.setattr(gate_module, "extract_many",
                        lambda datas, *a, **k: calls.extend(map(bytes, datas)) or many(datas, *a, **k))
    return calls


def comparable(verdict: Verdict) -> dict[str, Any]:
    """A verdict's JSON (window included) without what differs between two gates judging the
    same edit (timings, cycle numbers, the window digests of the audit record)."""
    out = verdict.to_json(include_window=True)
    for volatile in ("timings_ms", "cycle", "pre_digest", "post_digest"):
        out.pop(volatile, None)
    return out


# a default `git log -3` (commit, Author, Date, message on lines of their own): red team 141's
# source for counted rows (F09) and git log records re-paired (F17)
GIT_LOG_THREE_COMMITS = """$ git log -3
commit 4f1e2d3c5b6a79808f7e6d5c4b3a29181716151a
Author: Jane Doe <jane@example.com>
Date:   Tue Mar 5 14:02:11 2024 +0100

    Fix retry backoff in http client

commit 9c8b7a6f5e4d3c2b1a09f8e7d6c5b4a392817263
Author: Bob Smith <bob@example.com>
Date:   Mon Mar 4 09:15:42 2024 +0100

    Add Redis cache layer

commit 1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d
Author: Jane Doe <jane@example.com>
Date:   Fri Mar 1 17:30:00 2024 +0100

    Bump numpy to 1.26.4
"""


# pytest -v of a run with three failures (red teams 141 and 142: the outcome-count and
# whole-run-claim tests)
PYTEST_VERBOSE = (
    "$ pytest -v tests/\n============================= test session starts ==============================\n"
    "platform linux -- Python 3.11.6, pytest-7.4.3, pluggy-1.3.0 -- /usr/bin/python3\n"
    "rootdir: /home/user/app\ncollected 120 items\n\n"
    "tests/test_api.py::test_list_users PASSED                                [  0%]\n"
    "tests/test_api.py::test_create_user FAILED                               [  1%]\n"
    "tests/test_api.py::test_delete_user FAILED                               [  2%]\n"
    "tests/test_models.py::test_user_repr PASSED                              [  3%]\n"
    "tests/test_api.py::test_update_user FAILED                               [  4%]\n\n"
    "=========================== short test summary info ============================\n"
    "FAILED tests/test_api.py::test_create_user - assert 500 == 201\n"
    "FAILED tests/test_api.py::test_delete_user - KeyError: 'id'\n"
    "FAILED tests/test_api.py::test_update_user - AttributeError: 'NoneType' object has no attribute 'name'\n"
    "======================== 3 failed, 117 passed in 12.34s ========================\n"
)
