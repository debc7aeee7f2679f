"""A store whose writes wait for a commit: ``provgate check`` runs its check on one of these,
without the store's write lock, and then commits what the check wrote in one short transaction
(red team 124, F04: the lock was held through the session's resume and every rule, and another
writer of the store, an agent putting a tool call's result, waited for the whole check and failed
with StoreBusyError past its busy timeout).

:class:`StagedStore` is the caller's :class:`~provgate.store.SourceStore` itself (it shares the
object's state: its connections, its path, its limits), with every write kept in memory instead:
an edit's inline sources (``put_many``), which every read of this object then answers as stored
(the gate's I3 sees them as the check would after a put: after every source the store holds,
in the order put), the fact cache and the audit records. :meth:`StagedStore.commit` writes them,
in the order made, inside the caller's transaction.

What a verdict relied on that another writer can change is what the check asked the store:
sources are never changed or removed, only added, so an answer can change only by a source
stored since the check began (its ``basis``: the number of the newest stored source, read
before the check) that it names. The staged store records every question (the handles asked
by handle, found or not; the names a ``[src:NAME]`` marker was looked up by; the contents
compared by digest); :meth:`StagedStore.answers_hold` asks, under the write lock, whether any
source stored since the basis is one of those handles, has one of those names or one of those
contents, and whether the head of the gate's session in the audit log (its count of records and
the newest one) is the one the check began with. If not, the verdict stands and is committed; if
so, or if it cannot tell (the check asked something any new source may change, a row it cannot
read), the check is made again (red team 127, F03: any put of another process, however
unrelated, made the check run again, and after two the check held the lock throughout).
:meth:`StagedStore.handles_added_since` answers as of the basis: a source stored after it is
seen only by the questions that name it, which the commit then finds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from provgate.digests import compute_digest
from provgate.errors import LimitExceededError, StoreCorruptionError, UnknownHandleError
from provgate.handles import check_handle
from provgate.store import (
    _MAX_SEQ,
    MAX_KIND_BYTES,
    SourceInfo,
    SourceStore,
    _canonical_digest,
    _check_block_handle,
    _check_short_text,
    _check_ts,
    _in_snapshot,
    _unknown_message,
)

__all__ = ["StagedStore", "store_basis"]


def _name_of(handle: str) -> str | None:
    """The name a marker ``[src:NAME]`` may give ``handle`` (as the store's index reads it)."""
    return handle.partition(":")[2] if ":" in handle else None


def store_basis(store: SourceStore, session: str | None) -> tuple[int, int, int]:
    """``(newest source's number, session's records, session's newest record)``: what another
    writer changes when it adds a source or records a check of ``session``; read in one
    snapshot."""

    def read(conn: Any) -> tuple[int, int, int]:
        newest = conn.execute("SELECT max(seq) FROM sources").fetchone()[0] or 0
        if session is None:
            head: tuple[int, int] = (0, 0)
        elif store._schema_version >= 2:
            head = conn.execute("SELECT records, last_seq FROM audit_session_heads WHERE session = ?",
                                (session,)).fetchone() or (0, 0)
        else:  # (no heads before schema 2: every record counts)
            head = conn.execute("SELECT count(*), coalesce(max(seq), 0) FROM audit").fetchone()
        return (int(newest), int(head[0]), int(head[1]))

    return store._read(lambda conn: _in_snapshot(conn, read))


def _put_cached_facts(store: SourceStore, entries: list[tuple[str, str, bytes]]) -> None:
    """As the gate caches fact tables (Gate._persist_fact_tables): a table a row of SQLite's
    own limit refuses is left uncached, each other one still cached (a failed write inside the
    commit is a savepoint of it, undone alone)."""
    try:
        store.put_cached_facts_many(entries)
    except LimitExceededError:
        for entry in entries:
            try:
                store.put_cached_facts_many([entry])
            except LimitExceededError:
                pass


class StagedStore(SourceStore):
    """``store`` with its writes staged: see the module docstring. Not thread-safe beyond what
    one check needs (``provgate check`` runs one)."""

    __slots__ = ("_asked", "_basis", "_calls", "_contents_asked", "_names_asked", "_opaque", "_staged",
                 "_staged_base")
    # (the check reads the session's head itself, and answers_hold compares it before the commit)
    _gate_syncs_session = False

    def __init__(self, store: SourceStore, basis: int | None = None) -> None:
        """``basis``: the newest stored source's number before the check began
        (:func:`store_basis`); None reads the store as it is (and :meth:`answers_hold` cannot
        tell)."""
        # the store's own state, shared (its connections, limits, schema); what is staged is kept
        # in this object's slots, apart from it
        self.__dict__ = store.__dict__
        self._staged: dict[str, tuple[str, bytes, str | None, float | None]] = {}
        self._basis = basis
        self._staged_base: int | None = basis  # the newest stored source's number when staging began
        self._calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        # what the check asked the store (see the module docstring): handles asked by handle,
        # names asked by name, contents compared by digest; opaque: a question any new source
        # may answer otherwise (the whole store's handles or count)
        self._asked: set[str] = set()
        self._names_asked: set[str] = set()
        self._contents_asked: set[str] = set()
        self._opaque = False

    # -- writes: kept ------------------------------------------------------------------------------

    def _write(self, fn: Any) -> Any:
        raise AssertionError("a staged store writes nothing before its commit (a write not staged)")

    def _remember_written(self, written: Mapping[str, str]) -> None:
        pass  # (nothing is written before the commit; the real store remembers it then)

    def put(self, handle: str, content: str | bytes, *, kind: str | None = None, ts: float | None = None) -> str:
        return self.put_many({handle: content}, kind=kind, ts=ts)[check_handle(handle)]

    def put_many(self, sources: Any, *, kind: str | None = None, ts: float | None = None,
                 kinds: Mapping[str, str | None] | None = None) -> dict[str, str]:
        """Checked as the store checks a put (the commit's put checks again, against the rows
        then stored), and kept; a handle staged already with other content is refused."""
        items = list(sources.items()) if isinstance(sources, Mapping) else [tuple(p) for p in sources]
        kind = _check_short_text(kind, "kind", MAX_KIND_BYTES, optional=True)
        ts = _check_ts(ts)
        own = {check_handle(h): _check_short_text(k, "kind", MAX_KIND_BYTES, optional=True)
               for h, k in (kinds or {}).items()}
        rows: dict[str, tuple[str, bytes, str | None, float | None]] = {}
        for handle, content in items:
            handle = check_handle(handle)
            data = self._content_bytes(content)
            digest = compute_digest(data)
            _check_block_handle(handle, digest)
            known = rows.get(handle) or self._staged.get(handle)
            if known is not None and known[0] != digest:
                from provgate.errors import HandleConflictError

                raise HandleConflictError(f"handle {handle!r} is given twice, with {known[0]} and {digest} "
                                          "(handles are immutable)")
            rows[handle] = (digest, data, own.get(handle, kind), ts)
        if rows and self._staged_base is None:
            self._staged_base = SourceStore.handles_added_since(self, None)[0]
        for handle, row in rows.items():
            self._staged.setdefault(handle, row)
        self._asked.update(rows)  # (another writer's source of the same handle would meet it at the commit)
        self._calls.append(("put_many", (dict(sources) if isinstance(sources, Mapping) else items,),
                            {"kind": kind, "ts": ts, **({"kinds": dict(kinds)} if kinds else {})}))
        return {h: row[0] for h, row in rows.items()}

    def put_cached_facts_many(self, entries: Iterable[tuple[str, str, bytes]]) -> None:
        self._calls.append(("put_cached_facts_many", (list(entries),), {}))

    def _append_gate_audit(self, records: list[dict[str, Any]]) -> list[int]:
        # checked now as the store checks them (an unwritable record fails the check, as it did)
        for i, record in enumerate(records):
            self._audit_row(record, f"records[{i}]", gate=True)
        self._calls.append(("_append_gate_audit", (list(records),), {}))
        return [0] * len(records)

    def commit(self, store: SourceStore) -> None:
        """Write what was staged to ``store`` (inside the caller's transaction), in the order made."""
        for name, args, kwargs in self._calls:
            if name == "put_cached_facts_many":
                _put_cached_facts(store, args[0])
            else:
                getattr(store, name)(*args, **kwargs)

    def answers_hold(self, store: SourceStore, session: str | None, basis: tuple[int, int, int]) -> bool:
        """Under the caller's write lock: whether every answer the check was given is still the
        store's, ``basis`` being :func:`store_basis` before the check began (the one this object
        was made with). False when the session's head moved (another check of the session took
        a cycle), when a source stored since the basis is a handle the check asked (found or
        not, or one it staged), has a name a marker was looked up by (a handle named exactly,
        or its name after the kind prefix), or holds a content the check compared, and whenever
        it cannot tell (no basis, a question of the whole store, a row it cannot read)."""
        now = store_basis(store, session)
        if now == basis:
            return True
        if now[1:] != basis[1:] or self._basis is None or self._basis != basis[0] or self._opaque:
            return False
        try:
            latest, added = SourceStore.handles_added_since(store, basis[0])
            if latest != now[0] or not added:  # (sources are only added: anything else, re-check)
                return False
            asked, names = self._asked, self._names_asked
            for handle in added:
                if handle in asked or handle in names or (":" in handle and _name_of(handle) in names):
                    return False
            if self._contents_asked:
                contents = self._contents_asked
                if any(d in contents for d in SourceStore.digests_many(store, added).values()):
                    return False
        except StoreCorruptionError:
            return False  # (the check made again meets the damage if it reads it)
        return True

    # -- reads: the store's, and what is staged after every stored source ----------------------
    # Each records what it was asked (answers_hold). Not recorded: the fact cache (a function of
    # a content's digest, whoever writes it) and the session's records (its head is compared).

    def _seq_of(self, handle: str) -> int:
        return (self._staged_base or 0) + 1 + list(self._staged).index(handle)

    def _read_verified(self, handle: str) -> tuple[str, bytes]:
        self._asked.add(handle)
        if handle in self._staged:
            return self._staged[handle][:2]
        return super()._read_verified(handle)

    def _read_verified_kind(self, handle: str) -> tuple[str, bytes, Any]:
        self._asked.add(handle)
        if handle in self._staged:
            digest, data, kind, _ = self._staged[handle]
            return digest, data, kind
        return super()._read_verified_kind(handle)

    def get_bytes_many(self, handles: Iterable[str], *, missing: str = "raise") -> dict[str, bytes]:
        wanted = self._handle_list(handles)
        self._asked.update(wanted)
        found = super().get_bytes_many([h for h in wanted if h not in self._staged], missing="skip" if
                                       missing in ("raise", "skip") else missing)
        absent = [h for h in wanted if h not in found and h not in self._staged]
        if absent and missing == "raise":
            raise UnknownHandleError(_unknown_message(absent))
        return {h: (self._staged[h][1] if h in self._staged else found[h]) for h in wanted
                if h in self._staged or h in found}

    def resolves(self, handle: str) -> bool:
        handle = check_handle(handle)
        self._asked.add(handle)
        return handle in self._staged or super().resolves(handle)

    def unresolved(self, handles: Iterable[str]) -> list[str]:
        wanted = self._handle_list(handles)
        self._asked.update(wanted)
        return [h for h in super().unresolved(wanted) if h not in self._staged]

    def handles_named(self, name: str) -> list[str]:
        name = check_handle(name)
        self._names_asked.add(name)
        return super().handles_named(name) + [h for h in self._staged if _name_of(h) == name]

    def __iter__(self) -> Any:
        self._opaque = True
        return super().__iter__()

    def __len__(self) -> int:
        self._opaque = True
        return super().__len__()

    def _handles_added_since_basis(self, seq: int | None) -> tuple[int, list[str]]:
        """The store's answer as of the basis: a source another writer stored since is left out
        (the questions that name it find it, and the commit then makes the check again)."""
        basis = self._basis
        if basis is None:
            return super().handles_added_since(seq)
        if seq is None:
            return basis, []
        if type(seq) is int and basis <= seq <= _MAX_SEQ:
            return seq, []
        latest, added = super().handles_added_since(seq)  # (refuses a seq that is no seq)
        if latest > basis:
            later = set(super().handles_added_since(basis)[1])
            latest, added = basis, [h for h in added if h not in later]
        return latest, added

    def handles_added_since(self, seq: int | None) -> tuple[int, list[str]]:
        latest, added = self._handles_added_since_basis(seq)
        if not self._staged:
            return latest, added
        last = self._seq_of(next(reversed(self._staged)))
        if seq is None:
            return max(latest, last), added
        return max(latest, last), added + [h for h in self._staged if self._seq_of(h) > seq]

    def handles_cited_as_many(self, names: Iterable[str]) -> dict[str, list[str]]:
        wanted = self._handle_list(names)
        self._names_asked.update(wanted)
        found = super().handles_cited_as_many(wanted)
        if not self._staged:
            return found
        for name, handles in found.items():
            if name in self._staged:
                found[name] = [name]  # (a handle named exactly wins over names, as the store's query has it)
            elif handles != [name]:
                handles.extend(h for h in self._staged if _name_of(h) == name)
        return found

    def info(self, handle: str) -> SourceInfo:
        handle = check_handle(handle)
        self._asked.add(handle)
        if handle in self._staged:
            digest, data, kind, ts = self._staged[handle]
            return SourceInfo(handle=handle, digest=digest, size=len(data), kind=kind, ts=ts, seq=self._seq_of(handle))
        return super().info(handle)

    def info_many(self, handles: Iterable[str]) -> dict[str, SourceInfo]:
        wanted = self._handle_list(handles)
        self._asked.update(wanted)
        found = super().info_many([h for h in wanted if h not in self._staged])
        return {h: (self.info(h) if h in self._staged else found[h]) for h in wanted
                if h in self._staged or h in found}

    def digests_many(self, handles: Iterable[str]) -> dict[str, str]:
        wanted = self._handle_list(handles)
        self._asked.update(wanted)
        found = super().digests_many([h for h in wanted if h not in self._staged])
        return {h: (self._staged[h][0] if h in self._staged else found[h]) for h in wanted
                if h in self._staged or h in found}

    def unmatched_contents(self, expected: Mapping[str, bytes]) -> list[str]:
        unmatched = super().unmatched_contents(expected)
        self._contents_asked.update(_canonical_digest(d) for d in expected)  # (checked by the store's)
        if not self._staged or not unmatched:
            return unmatched
        staged = {_canonical_digest(d): data for d, data, _, _ in self._staged.values()}
        wanted = {_canonical_digest(d): b for d, b in expected.items()}
        return [d for d in unmatched if staged.get(d) != wanted.get(d)]
