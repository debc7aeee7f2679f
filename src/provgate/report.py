"""The session report: what the gate did over a session, read back from the audit log.

``session_report(store)`` reads every audit record (one per gated edit, written by
:class:`provgate.gate.Gate`), groups them by session, and for the selected sessions computes,
per cycle and in total: citation-marker retention (per cycle and cumulative - the seed's
100% -> 71% -> 12% curve, or a flat line when the gate holds the floor), accepted and rejected
edits by invariant, silent merges caught (I4), fact drift caught (I2 introduced / dropped
facts and value changes, I1 ungrounded facts), evictions, reclassifications and the gate's
latency percentiles. ``docs/report.md`` defines every figure.

Everything is computed from the audit log alone, so a report can be made later, by another
process, for sessions of gates that no longer exist. Records are read tolerantly: a field an
older provgate did not write, or one of the wrong type, is *unknown* (shown as ``?``), never a
crash and never a guessed zero; a record that is not a JSON object is listed as skipped.

``run_report`` is the command line's logic (``provgate report``); matplotlib is imported only
when a plot is asked for.
"""

from __future__ import annotations

import json
import math
import os
import reprlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from provgate.errors import InvalidArgumentError, OptionalDependencyError, ProvgateError
from provgate.verdict import INVARIANTS

REPORT_FORMAT = "provgate.report/1"
# Records written without a session id (older gates) are grouped under the key None, which no
# session id can be, and shown under this name: a real session may be named "(none)" too (red
# team 82, F06: the two were merged into one session). Select the group with ``[None]``.
NO_SESSION = "(none)"
ALL_SESSIONS = "all"
# The gate's default floor (provgate.gate.DEFAULT_RETENTION_FLOOR; a test keeps them equal).
# Repeated here so that reading a report does not load the gate and its native modules.
DEFAULT_RETENTION_FLOOR = 0.95
PERCENTILES = (50, 90, 99)
# Lines of "what was caught" printed under a session's table; the JSON has all of them.
MAX_DETAIL_LINES = 20
# Known sessions named in an "unknown session" message.
MAX_SESSIONS_LISTED = 20

EXIT_OK, EXIT_UNUSABLE = 0, 2


# -- reading one record ---------------------------------------------------------------------------


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _count(v: Any) -> int | None:
    """A non-negative int, or None (unknown)."""
    return v if _is_int(v) and v >= 0 else None


def _text(v: Any) -> str | None:
    """A string that encodes as UTF-8, or None (unknown): JSON may escape a lone surrogate
    ("\\ud800"), which no report can print or put in strict JSON (red team 82, F05: an intact
    record's operator "prune\\ud800" crashed ``provgate report`` with an internal error)."""
    if not isinstance(v, str):
        return None
    try:
        v.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return v


def _real(v: Any) -> float | None:
    """A finite non-negative number, or None (unknown)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        v = float(v)
    except OverflowError:  # an int beyond any float
        return None
    return v if math.isfinite(v) and v >= 0 else None


def _violation_kind(v: Mapping[str, Any]) -> str:
    """What one violation of the audit log is, in the report's terms (see docs/report.md)."""
    inv = v.get("invariant")
    ev = v.get("evidence")
    ev = ev if isinstance(ev, Mapping) else {}
    if inv == "I4":
        # the evidence shapes are the gate's (gate.py): each rule names what it found its own way
        if "kept" in ev and ("newest" in ev or "newest_held" in ev):
            # an older read kept while the newest read is gone (a block holding several reads
            # the session's log orders apart is named by the handle of the newest it held)
            return "silent_merge"
        if "newer_value" in ev or ("newer" in ev and "span" in ev):
            # a key's older value kept alone: compared by key (the newer value), or by dotted
            # path (the newer read and the stale value's span; red team 82, F03: filed as a
            # supersession); a backwards edge names a "newer" block too, but no span
            return "stale_value"
        if v.get("key") == "resource":
            return "unrecorded_drop"  # an older read dropped with no edge or record
        return "supersession"  # a supersession edge that is backwards or names no block
    if inv == "I2":
        change = ev.get("change")
        if change in ("introduced", "dropped"):
            return str(change)
        return "other"
    if inv == "I1":
        if "searched" in ev and v.get("key") is not None:
            return "ungrounded"
        return "other"
    return "other"


@dataclass(frozen=True, slots=True)
class ValueChange:
    """A key with a fact dropped and a fact introduced in one lossless edit (``retries``
    3 -> 5): the seed's rewrite-induced fact drift."""

    key: str
    old: tuple[str, ...]
    new: tuple[str, ...]
    block: str | None

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "old": list(self.old), "new": list(self.new), "block": self.block}

    def describe(self) -> str:
        return f"{self.key} {', '.join(self.old)} -> {', '.join(self.new)}"


@dataclass(frozen=True, slots=True)
class Caught:
    """One violation worth naming under the table: a silent merge, a stale value, an
    ungrounded fact (the messages come from the gate)."""

    kind: str
    invariant: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "invariant": self.invariant, "message": self.message}


@dataclass(frozen=True, slots=True)
class CycleRow:
    """One gated edit of a session, as the audit log recorded it.

    ``index`` is the row's position in the session (1-based, log order); ``cycle`` is the
    cycle number the gate wrote. A value of ``None`` whose field is named in ``unknown`` was
    missing or malformed in the record; ``None`` elsewhere means "undefined" (``retention``:
    pre had no citation markers).
    """

    index: int
    seq: int | None
    cycle: int | None
    operator: str | None
    accepted: bool | None
    classification: str | None
    reclassified: bool | None
    retention: float | None
    cumulative_retention: float | None
    violations: dict[str, int] | None
    violations_omitted: int | None
    silent_merges: int | None
    stale_values: int | None
    facts_introduced: int | None
    facts_dropped: int | None
    value_changes: tuple[ValueChange, ...]
    ungrounded: int | None
    evicted_handles: int | None
    evicted_facts: int | None
    total_ms: float | None
    ts: float | None
    retention_floor: float | None
    caught: tuple[Caught, ...]
    unknown: tuple[str, ...]

    @property
    def merges(self) -> int | None:
        """Silent merges caught in this edit: I4 violations that reduced two reads of one
        resource, or two values of one key, to the older one."""
        if self.silent_merges is None or self.stale_values is None:
            return None
        return self.silent_merges + self.stale_values

    @property
    def drift(self) -> bool | None:
        """Was fact drift caught in this edit (a fact introduced or dropped by a lossless
        operator, or an ungrounded fact)?"""
        parts = (self.facts_introduced, self.facts_dropped, self.ungrounded)
        if any(p for p in parts if p):
            return True
        return None if any(p is None for p in parts) else False

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "seq": self.seq,
            "cycle": self.cycle,
            "operator": self.operator,
            "accepted": self.accepted,
            "classification": self.classification,
            "reclassified": self.reclassified,
            "retention": self.retention,
            "cumulative_retention": self.cumulative_retention,
            "violations_by_invariant": self.violations,
            "violations_omitted": self.violations_omitted,
            "silent_merges": self.merges,
            "i4": {"silent_merge": self.silent_merges, "stale_value": self.stale_values},
            "drift": {
                "introduced": self.facts_introduced,
                "dropped": self.facts_dropped,
                "value_changes": [c.to_json() for c in self.value_changes],
                "ungrounded": self.ungrounded,
            },
            "evicted_handles": self.evicted_handles,
            "evicted_facts": self.evicted_facts,
            "gate_ms": self.total_ms,
            "ts": self.ts,
            "retention_floor": self.retention_floor,
            "caught": [c.to_json() for c in self.caught],
            "unknown": list(self.unknown),
        }


class _Cumulative:
    """The committed window's retention: the product of the retention of accepted cycles,
    each capped at 1 (as the gate keeps it in ``Gate.history``): markers a cycle adds do not
    make up for markers an earlier one dropped, so it never passes 100% (red team 132, F02b: a
    session at 271% could lose 60% of its markers and still show above 100%). Undefined until
    the first accepted cycle with a defined retention; unknown from the first record that
    leaves it open."""

    def __init__(self) -> None:
        self.value: float | None = None
        self.known = True

    def add(self, accepted: bool | None, retention: float | None, retention_known: bool) -> None:
        if not self.known or accepted is False:
            return
        if retention_known and retention is None:
            return  # undefined retention leaves the committed ratio as it was
        if accepted is None or not retention_known:
            self.known = False
            self.value = None
            return
        self.value = (1.0 if self.value is None else self.value) * min(1.0, retention)  # type: ignore[type-var]
        if not math.isfinite(self.value):  # beyond any float: unknown, never "Infinity"
            self.known = False
            self.value = None


def _read_row(index: int, seq: int | None, rec: Mapping[str, Any], cumulative: _Cumulative) -> CycleRow:
    unknown: list[str] = []
    if not _text(rec.get("session")):
        unknown.append("session")
    cycle = _count(rec.get("cycle"))
    if cycle is None:
        unknown.append("cycle")
    operator = _text(rec.get("operator"))
    if operator is None:
        unknown.append("operator")
    accepted = rec.get("accepted") if isinstance(rec.get("accepted"), bool) else None
    if accepted is None:
        unknown.append("accepted")
    classification = _text(rec.get("classification"))
    if classification is None:
        unknown.append("classification")
    reclassified = rec.get("reclassified") if isinstance(rec.get("reclassified"), bool) else None
    if reclassified is None:
        unknown.append("reclassified")
    raw_retention = rec.get("retention", ...)
    retention_known = raw_retention is None or _real(raw_retention) is not None
    retention = _real(raw_retention) if raw_retention is not None else None
    if not retention_known:
        unknown.append("retention")
    cumulative.add(accepted, retention, retention_known)
    if not cumulative.known:
        unknown.append("cumulative_retention")

    # violations: counts per invariant, and what they were (all or nothing: a list with an
    # unreadable entry would give counts that look exact and are not)
    raw_list = rec.get("violations")
    vlist: list[Mapping[str, Any]] | None = None
    if isinstance(raw_list, list) and all(isinstance(v, Mapping) and _text(v.get("invariant")) is not None
                                          for v in raw_list):
        vlist = list(raw_list)
    by_inv: dict[str, int] | None = None
    raw_by = rec.get("violations_by_invariant")
    if isinstance(raw_by, Mapping) and all(_text(k) is not None and _count(n) is not None for k, n in raw_by.items()):
        by_inv = {k: int(n) for k, n in raw_by.items() if n}
    elif vlist is not None:
        by_inv = {}
        for v in vlist:
            by_inv[v["invariant"]] = by_inv.get(v["invariant"], 0) + 1
    if vlist is None:
        unknown.append("violations")
        if by_inv == {}:
            vlist = []  # the record's counts say there was no violation: nothing to classify
    if by_inv is None:
        unknown.append("violations_by_invariant")

    facts = rec.get("facts") if isinstance(rec.get("facts"), Mapping) else {}
    omitted = _count(facts.get("violations_omitted"))
    if vlist is not None:
        kinds = [_violation_kind(v) for v in vlist]
        silent = kinds.count("silent_merge")
        stale = kinds.count("stale_value")
        ungrounded = kinds.count("ungrounded")
        caught = tuple(
            Caught(k, str(v["invariant"]), _message(v.get("message", "")))
            for v, k in zip(vlist, kinds)
            if k in ("silent_merge", "stale_value", "ungrounded")
        )
        value_changes = _value_changes(vlist, kinds)
        intro_v, drop_v = kinds.count("introduced"), kinds.count("dropped")
    else:
        silent = stale = ungrounded = None
        caught, value_changes = (), ()
        intro_v = drop_v = None
    # Fact counts are exact even where the violation list was cut at the gate's cap; the
    # violations are the fallback for records without them.
    introduced = _count(facts.get("introduced"))
    dropped = _count(facts.get("dropped"))
    if introduced is None:
        introduced = intro_v
    if dropped is None:
        dropped = drop_v
    for name, value in (("facts.introduced", introduced), ("facts.dropped", dropped)):
        if value is None:
            unknown.append(name)
    if vlist is None:
        unknown.extend(("silent_merges", "ungrounded"))
    evicted_facts = _count(facts.get("evicted"))
    if evicted_facts is None:
        unknown.append("facts.evicted")
    evicted_handles = _count(rec.get("evicted_handles"))
    if evicted_handles is None:
        unknown.append("evicted_handles")
    timings = rec.get("timings_ms") if isinstance(rec.get("timings_ms"), Mapping) else {}
    total_ms = _real(timings.get("total"))
    if total_ms is None:
        unknown.append("timings_ms.total")
    ts = _real(rec.get("ts"))
    if ts is None:
        unknown.append("ts")
    floor = _real(rec.get("retention_floor"))  # written by newer gates; else read from I5 evidence
    if floor is None and vlist is not None:
        for v in vlist:
            ev = v.get("evidence")
            if v.get("invariant") == "I5" and isinstance(ev, Mapping) and _real(ev.get("floor")) is not None:
                floor = _real(ev.get("floor"))
                break
    return CycleRow(
        index=index, seq=seq, cycle=cycle, operator=operator, accepted=accepted,
        classification=classification, reclassified=reclassified, retention=retention,
        cumulative_retention=cumulative.value if cumulative.known else None, violations=by_inv,
        violations_omitted=omitted, silent_merges=silent, stale_values=stale,
        facts_introduced=introduced, facts_dropped=dropped, value_changes=value_changes,
        ungrounded=ungrounded, evicted_handles=evicted_handles, evicted_facts=evicted_facts,
        total_ms=total_ms, ts=ts, retention_floor=floor, caught=caught, unknown=tuple(dict.fromkeys(unknown)),
    )


def _message(v: Any) -> str:
    """A violation's message as printed: "?" for a string that cannot be (see :func:`_text`)."""
    text = _text(v) if isinstance(v, str) else str(v)  # (str() of anything else escapes its strings)
    return "?" if text is None else text


def _value_changes(vlist: list[Mapping[str, Any]], kinds: list[str]) -> tuple[ValueChange, ...]:
    """Keys with both a dropped and an introduced fact in one edit, in order of first sight."""
    old: dict[str, list[str]] = {}
    new: dict[str, list[str]] = {}
    block: dict[str, str | None] = {}
    for v, kind in zip(vlist, kinds):
        key, value = v.get("key"), v.get("value")
        if kind not in ("introduced", "dropped") or _text(key) is None or _text(value) is None:
            continue
        side = new if kind == "introduced" else old
        if value not in side.setdefault(key, []):
            side[key].append(value)
        if kind == "introduced" or key not in block:
            block[key] = _text(v.get("block"))
    keys = [k for k in dict.fromkeys([*old, *new]) if old.get(k) and new.get(k)]
    return tuple(ValueChange(k, tuple(old[k]), tuple(new[k]), block.get(k)) for k in keys)


# -- aggregating --------------------------------------------------------------------------------


def percentile(values: Sequence[float], p: float) -> float | None:
    """Nearest-rank percentile: the smallest observed value with at least ``p`` percent of the
    values at or below it (always a value that was measured; ``None`` for no values)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100.0 * len(ordered)))
    return ordered[rank - 1]


def _sum_known(values: Iterable[int | None]) -> tuple[int, int]:
    """(sum of the known values, how many were unknown)."""
    total = unknown = 0
    for v in values:
        if v is None:
            unknown += 1
        else:
            total += v
    return total, unknown


def _totals(rows: Sequence[CycleRow]) -> dict[str, Any]:
    accepted = [r for r in rows if r.accepted is True]
    rejected = [r for r in rows if r.accepted is False]
    by_inv_rejected: dict[str, int] = {}
    by_inv_accepted: dict[str, int] = {}
    violations: dict[str, int] = {}
    for r in rows:
        for inv, n in (r.violations or {}).items():
            violations[inv] = violations.get(inv, 0) + n
            if r.accepted is False:
                by_inv_rejected[inv] = by_inv_rejected.get(inv, 0) + 1
            elif r.accepted is True:
                by_inv_accepted[inv] = by_inv_accepted.get(inv, 0) + 1
    merges, merges_unknown = _sum_known(r.merges for r in rows)
    merge_edits = sum(1 for r in rows if r.merges)
    introduced, intro_unknown = _sum_known(r.facts_introduced for r in rows)
    dropped, drop_unknown = _sum_known(r.facts_dropped for r in rows)
    ungrounded, ungr_unknown = _sum_known(r.ungrounded for r in rows)
    drift_edits = sum(1 for r in rows if r.drift)
    changes = [dict(c.to_json(), index=r.index, cycle=r.cycle) for r in rows for c in r.value_changes]
    evictions, evict_unknown = _sum_known(r.evicted_handles for r in accepted)
    evicted_rejected, _ = _sum_known(r.evicted_handles for r in rejected)
    evicted_facts, _ = _sum_known(r.evicted_facts for r in accepted)
    latencies = [r.total_ms for r in rows if r.total_ms is not None]
    operators: dict[str, int] = {}
    for r in rows:
        name = r.operator or "?"
        operators[name] = operators.get(name, 0) + 1
    n = len(rows)
    return {
        "cycles": n,
        "accepted": len(accepted),
        "rejected": len(rejected),
        "verdict_unknown": n - len(accepted) - len(rejected),
        "reclassified": sum(1 for r in rows if r.reclassified),
        "operators": operators,
        "rejected_by_invariant": _ordered(by_inv_rejected),
        "accepted_with_violations_by_invariant": _ordered(by_inv_accepted),
        "violations_by_invariant": _ordered(violations),
        "violations_omitted": sum(r.violations_omitted or 0 for r in rows),
        "silent_merges": {"caught": merges, "edits": merge_edits,
                          "rate": merge_edits / n if n else None, "records_unknown": merges_unknown},
        "fact_drift": {"edits": drift_edits, "introduced": introduced, "dropped": dropped,
                       "value_changes": changes, "ungrounded": ungrounded,
                       "records_unknown": max(intro_unknown, drop_unknown, ungr_unknown)},
        "evictions": {"records": evictions, "facts": evicted_facts, "in_rejected_edits": evicted_rejected,
                      "records_unknown": evict_unknown},
        "latency_ms": _latency(latencies),
    }


def _ordered(counts: Mapping[str, int]) -> dict[str, int]:
    """Invariants in the gate's order (I1..I5, P, R), then anything else a record named."""
    out = {k: counts[k] for k in INVARIANTS if counts.get(k)}
    out.update((k, n) for k, n in sorted(counts.items()) if k not in out and n)
    return out


def _latency(values: Sequence[float]) -> dict[str, Any]:
    out: dict[str, Any] = {"n": len(values)}
    for p in PERCENTILES:
        out[f"p{p}"] = percentile(values, p)
    out["max"] = max(values) if values else None
    return out


@dataclass(frozen=True)
class SessionSummary:
    """The cycles of one session and what they add up to (``session`` is None for the records
    written without a session id)."""

    session: str | None
    rows: tuple[CycleRow, ...]
    totals: dict[str, Any]
    retention_floor: float | None
    notes: tuple[str, ...]
    # the first cycle after which the cumulative retention was below that cycle's floor, as
    # {"cycle", "seq", "cumulative", "floor"}; None if it never was (red team 132, F02)
    below_floor: dict[str, Any] | None = None

    @property
    def first_seq(self) -> int | None:
        return self.rows[0].seq if self.rows else None

    @property
    def last_seq(self) -> int | None:
        return self.rows[-1].seq if self.rows else None

    @property
    def final_cumulative(self) -> float | None:
        return self.rows[-1].cumulative_retention if self.rows else None

    def to_json(self) -> dict[str, Any]:
        ts = [r.ts for r in self.rows if r.ts is not None]
        return {
            "session": self.session,
            "first_seq": self.first_seq,
            "last_seq": self.last_seq,
            "first_ts": min(ts) if ts else None,
            "last_ts": max(ts) if ts else None,
            "retention_floor": self.retention_floor,
            "retention": {
                "first": next((r.retention for r in self.rows if r.retention is not None), None),
                "min": min((r.retention for r in self.rows if r.retention is not None), default=None),
                "final_cumulative": self.final_cumulative,
                "cumulative_below_floor": None if self.below_floor is None else dict(self.below_floor),
            },
            **self.totals,
            "notes": list(self.notes),
            "per_cycle": [r.to_json() for r in self.rows],
        }


def _summarize(session: str | None, records: list[tuple[int | None, Mapping[str, Any]]]) -> SessionSummary:
    cumulative = _Cumulative()
    rows = tuple(_read_row(i + 1, seq, rec, cumulative) for i, (seq, rec) in enumerate(records))
    notes: list[str] = []
    cycles = [r.cycle for r in rows]
    if any(c is None for c in cycles):
        notes.append(f"{sum(c is None for c in cycles)} record(s) carry no cycle number")
    elif cycles != list(range(1, len(cycles) + 1)):
        notes.append("cycle numbers are not 1..N in log order: the session id was used by more than one "
                     "gate, or records are missing; rows are listed in log order")
    partial = [r.index for r in rows if r.unknown]
    if partial:
        fields = sorted({f for r in rows for f in r.unknown})
        notes.append(f"{len(partial)} record(s) lack or have malformed fields ({', '.join(fields)}): shown as '?'")
    omitted = sum(r.violations_omitted or 0 for r in rows)
    if omitted:
        notes.append(f"{omitted} violation(s) were not stored (the gate keeps at most 1000 per edit); "
                     "counts by invariant and the details below cover the stored ones")
    floors = {r.retention_floor for r in rows if r.retention_floor is not None}
    floor = floors.pop() if len(floors) == 1 else None
    if len(floors) > 1:
        notes.append("the retention floor changed within the session")
    below = _below_floor(rows)
    if below is not None:
        notes.append(f"cumulative retention fell below the floor: {_pct(below['cumulative'])} after cycle "
                     f"{'?' if below['cycle'] is None else below['cycle']} (floor {_pct(below['floor'])}); the "
                     "floor holds each edit, so n accepted edits may keep as little as floor^n of the markers")
    return SessionSummary(session, rows, _totals(rows), floor, tuple(notes), below)


def _below_floor(rows: Sequence[CycleRow]) -> dict[str, Any] | None:
    """The first row whose cumulative retention is below its floor (the record's, else the
    gate's default): I5 holds each edit to the floor, not the session, so markers dropped a
    few per edit decay as floor^n with every edit accepted (red team 132, F02: 47.5% after 21
    accepted edits); the report says where the session went below."""
    for r in rows:
        if r.cumulative_retention is None or "cumulative_retention" in r.unknown:
            continue
        floor = r.retention_floor if r.retention_floor is not None else DEFAULT_RETENTION_FLOOR
        if r.cumulative_retention < floor:
            return {"cycle": r.cycle, "seq": r.seq, "cumulative": r.cumulative_retention, "floor": floor}
    return None


@dataclass(frozen=True)
class SessionReport:
    """The report over one or more sessions of an audit log.

    ``selection`` is ``"latest"`` (no session asked for: the most recent one, the session of
    the last audit record), ``"all"``, or ``"sessions"`` (the ids asked for, in that order).
    ``known_sessions`` lists every session in the log, most recent last.
    """

    sessions: tuple[SessionSummary, ...]
    selection: str
    known_sessions: tuple[dict[str, Any], ...]
    records: int
    skipped: tuple[dict[str, Any], ...]
    store: str | None = None
    overall: dict[str, Any] | None = None

    @property
    def empty(self) -> bool:
        """No usable audit record at all."""
        return not self.known_sessions

    def session(self, session_id: str | None) -> SessionSummary:
        for s in self.sessions:
            if s.session == session_id:
                return s
        raise KeyError(session_id)

    def selection_note(self) -> str:
        n = len(self.known_sessions)
        if self.selection == "latest":
            if n == 1:
                return "the most recent session (the only one in the log)"
            return f"the most recent session of {n} (--session ID for another, --session all for every one)"
        if self.selection == "all":
            return f"all {n} session(s) in the log"
        return f"{len(self.sessions)} session(s) asked for, of {n} in the log"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": REPORT_FORMAT,
            "store": self.store,
            "selection": {"mode": self.selection, "note": self.selection_note(),
                          "sessions": [s.session for s in self.sessions]},
            "records": self.records,
            "skipped_records": [dict(s) for s in self.skipped],
            "known_sessions": [dict(s) for s in self.known_sessions],
            "sessions": [s.to_json() for s in self.sessions],
        }
        if self.overall is not None:
            out["overall"] = self.overall
        return out

    def format_table(self) -> str:
        return _format_report(self)

    def plot(self, path: str | os.PathLike[str]) -> Path:
        """Draw the retention curve and the rejections per cycle into a PNG file (needs the
        ``plot`` extra: matplotlib)."""
        return plot_report(self, path)


# -- building the report ---------------------------------------------------------------------------


def _check_selection(session: Any) -> tuple[str, list[str | None] | None]:
    if session is None:
        return "latest", None
    if isinstance(session, str):
        # a str subclass is taken as its characters: its own __eq__ could make any name 'all'
        # (red team 137, F11; the Gate and the CLI took it so already)
        session = str.__str__(session)
        if not session:
            raise InvalidArgumentError("session must be a non-empty session id, 'all', or a list of ids",
                                       argument="session")
        return ("all", None) if session == ALL_SESSIONS else ("sessions", [session])
    # None in a list is the records without a session id (None alone: the most recent session)
    if isinstance(session, (list, tuple)) and session:
        for i, s in enumerate(session):
            # the first id that cannot name a session, by its index (red team 134, F09b: the
            # message quoted the whole list, a million ids of it too)
            if s is not None and not (isinstance(s, str) and s):
                what = "an empty str" if isinstance(s, str) else f"{type(s).__name__} {_shown_value(s)}"
                raise InvalidArgumentError(f"session[{i}] is {what}, not a session id (a non-empty str, or None for "
                                           "the records without a session id)", argument="session")
        return "sessions", list(dict.fromkeys(None if s is None else str.__str__(s) for s in session))
    raise InvalidArgumentError(
        f"session must be None (the most recent), 'all', a session id or a non-empty list of ids "
        f"(None in it: the records without a session id); got {type(session).__name__} {_shown_value(session)}",
        argument="session")


def _shown_value(value: Any) -> str:
    """A repr of ``value`` of at most about 60 characters, whatever its size (a repr escapes lone
    surrogates, so the message always encodes; a str subclass is shown as its characters)."""
    return _SHORT_REPR.repr(str.__str__(value) if isinstance(value, str) else value)


_SHORT_REPR = reprlib.Repr()
_SHORT_REPR.maxstring = _SHORT_REPR.maxother = 60
_SHORT_REPR.maxlist = _SHORT_REPR.maxtuple = _SHORT_REPR.maxdict = _SHORT_REPR.maxset = 6


def report_from_records(
    records: Iterable[Any], *, session: str | Sequence[str | None] | None = None, store: str | None = None
) -> SessionReport:
    """The report over audit records given directly: ``(seq, record)`` pairs as
    ``SourceStore.iter_audit()`` yields them. See :func:`session_report`."""
    mode, wanted = _check_selection(session)
    by_session: dict[str | None, list[tuple[int | None, Mapping[str, Any]]]] = {}
    skipped: list[dict[str, Any]] = []
    total = 0
    for item in records:
        total += 1
        if isinstance(item, tuple) and len(item) == 2 and (_is_int(item[0]) or item[0] is None):
            seq, rec = item
        else:
            seq, rec = None, item
        if not isinstance(rec, Mapping):
            skipped.append({"seq": seq, "reason": f"not a JSON object but {_json_type(rec)}"})
            continue
        if rec.get("continues") is True:
            continue  # (the pins and reads of the record before it, too many for one row: no cycle)
        name = rec.get("session")
        key = name if _text(name) else None
        # re-inserting moves a session to the end: the dict ends ordered by last activity
        rows = by_session.pop(key, [])
        rows.append((seq, rec))
        by_session[key] = rows
    known = tuple(
        {"session": name, "cycles": len(rows), "first_seq": rows[0][0], "last_seq": rows[-1][0]}
        for name, rows in by_session.items()
    )
    if mode == "latest":
        chosen = list(by_session)[-1:]
    elif mode == "all":
        chosen = list(by_session)
    else:
        missing = [s for s in wanted or () if s not in by_session]
        if missing:
            raise InvalidArgumentError(_unknown_sessions_message(missing, list(by_session)), argument="session")
        chosen = list(wanted or ())
    summaries = tuple(_summarize(name, by_session[name]) for name in chosen)
    overall = None
    if len(summaries) > 1:
        overall = _totals([r for s in summaries for r in s.rows])
    return SessionReport(summaries, mode, known, total, tuple(skipped), store, overall)


def session_report(store: Any, *, session: str | Sequence[str | None] | None = None) -> SessionReport:
    """The session report of ``store``'s audit log.

    ``session``: ``None`` for the most recent session (the session of the last audit record),
    ``"all"`` for every session, a session id, or a list of ids (a session literally named
    ``"all"`` is selected with ``["all"]``, the records without a session id with ``[None]``). An id the log does not hold raises
    ``InvalidArgumentError`` listing the known sessions. An empty log gives an empty report
    (``report.empty``). A corrupted audit record raises ``StoreCorruptionError`` (the store's
    verified read): a report never rests on records it could not verify.
    """
    _check_selection(session)  # bad arguments fail before the log is read
    return report_from_records(store.iter_audit(), session=session, store=getattr(store, "path", None))


def _json_type(v: Any) -> str:
    if isinstance(v, list):
        return "an array"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if v is None:
        return "null"
    return type(v).__name__


# the records without a session id where a real session "(none)" may be listed beside them
_NO_SESSION_ID = f"{NO_SESSION} (no session id)"


def _shown(session: str | None) -> str:
    """How a session is named in the table and the plot."""
    return NO_SESSION if session is None else session


def _unknown_sessions_message(missing: list[str | None], known: list[str | None]) -> str:
    shown = missing[:MAX_SESSIONS_LISTED]
    what = ", ".join(_NO_SESSION_ID if s is None else _shown_value(s) for s in shown)
    if len(missing) > len(shown):
        what += f" and {len(missing) - len(shown)} more"
    if not known:
        return f"unknown session {what}: the audit log holds no session"
    recent = known[::-1][:MAX_SESSIONS_LISTED]
    more = f" and {len(known) - len(recent)} more" if len(known) > len(recent) else ""
    return (f"unknown session {what}; the audit log holds {len(known)} session(s), most recent first: "
            f"{', '.join(_NO_SESSION_ID if s is None else s for s in recent)}{more}")


# -- plain-text table --------------------------------------------------------------------------------


def _pct(v: float | None, known: bool = True) -> str:
    if not known:
        return "?"
    return "n/a" if v is None else f"{v * 100:.1f}%"


def _n(v: int | None) -> str:
    return "?" if v is None else str(v)


def _ms(v: float | None) -> str:
    if v is None:
        return "?"
    return f"{v:.2f}" if v < 100 else f"{v:.0f}"


def _utc(ts: float | None) -> str:
    if ts is None:
        return "?"
    try:
        return datetime.fromtimestamp(ts, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    except (OverflowError, OSError, ValueError):  # a finite time no calendar date has
        return "?"


def _time_span(first: float, last: float) -> str:
    a, b = _utc(first), _utc(last)
    if a == b:
        return a
    if a[:10] == b[:10]:
        return f"{a[:-4]} .. {b[11:]}"  # one day: the date once
    return f"{a} .. {b}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _verdict(r: CycleRow) -> str:
    if r.classification is not None:
        return r.classification + ("*" if r.reclassified else "")
    return {True: "accepted", False: "rejected", None: "?"}[r.accepted]


def _violations(r: CycleRow) -> str:
    if r.violations is None:
        return "?"
    if not r.violations:
        return "-"
    return " ".join(inv if n == 1 else f"{inv}×{n}" for inv, n in _ordered(r.violations).items())


def _render(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool], indent: str = "  ") -> list[str]:
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        parts = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)]
        return (indent + "  ".join(parts)).rstrip()

    return [line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)]


_CYCLE_HEADERS = ("cycle", "operator", "verdict", "retention", "cumul.", "violations", "merges",
                  "+facts", "-facts", "ungr.", "evict", "gate ms")
_CYCLE_RIGHT = (True, False, False, True, True, False, True, True, True, True, True, True)
_LEGEND = (
    "retention: citation-marker retention of the edit (n/a: pre had no markers); cumul.: product over "
    "accepted cycles, each at most 100%;",
    "merges: silent merges caught (I4); +facts/-facts: facts introduced/dropped by a lossless operator (I2);",
    "ungr.: ungrounded facts (I1); evict: eviction records; *: reclassified as lossy; ?: not in the record",
)


def _cycle_cells(r: CycleRow) -> list[str]:
    return [
        _n(r.cycle) if r.cycle is not None else f"?#{r.index}",
        r.operator or "?",
        _verdict(r),
        _pct(r.retention, "retention" not in r.unknown),
        _pct(r.cumulative_retention, "cumulative_retention" not in r.unknown),
        _violations(r),
        _n(r.merges),
        _n(r.facts_introduced),
        _n(r.facts_dropped),
        _n(r.ungrounded),
        _n(r.evicted_handles),
        _ms(r.total_ms),
    ]


def _invariant_counts(counts: Mapping[str, int]) -> str:
    """``I2 (2 edits), I4 (1 edit)``: how many rejected edits violated each invariant."""
    return ", ".join(f"{inv} ({_plural(n, 'edit')})" for inv, n in counts.items()) or "none"


def _session_lines(s: SessionSummary) -> list[str]:
    t = s.totals
    rows = s.rows
    ts = [r.ts for r in rows if r.ts is not None]
    out: list[str] = []
    span = f"audit records {s.first_seq}..{s.last_seq}" if s.first_seq is not None else "audit records"
    when = f", {_time_span(min(ts), max(ts))}" if ts else ""
    out.append(f"session {_NO_SESSION_ID if s.session is None else s.session}  ({_plural(t['cycles'], 'cycle')}, {span}{when})")
    verdicts = f"{t['accepted']} accepted ({t['reclassified']} reclassified), {t['rejected']} rejected"
    if t["verdict_unknown"]:
        verdicts += f", {t['verdict_unknown']} unknown"
    facts: list[tuple[str, str]] = [("edits", verdicts)]
    facts.append(("rejected for", _invariant_counts(t["rejected_by_invariant"])))
    first = next((r for r in rows if r.retention is not None), None)
    last = rows[-1] if rows else None
    if last is not None and "cumulative_retention" in last.unknown:
        retention = "cumulative unknown (a record lacks its verdict or retention)"
    elif last is None or last.cumulative_retention is None:
        retention = "n/a (no cycle had citation markers to retain)"
    else:
        start = _pct(first.retention) if first is not None else "n/a"
        retention = (f"{start} at first, {_pct(last.cumulative_retention)} cumulative after "
                     f"{_plural(t['cycles'], 'cycle')}")
    floor = (f"floor {_pct(s.retention_floor)}" if s.retention_floor is not None
             else f"floor not recorded (gate default {_pct(DEFAULT_RETENTION_FLOOR)})")
    if s.below_floor is not None:
        floor += f"; below it cumulatively after cycle {'?' if s.below_floor['cycle'] is None else s.below_floor['cycle']}"
    facts.append(("retention", f"{retention}; {floor}"))
    sm = t["silent_merges"]
    merges = f"{sm['caught']} caught in {sm['edits']} of {t['cycles']} edits"
    if sm["records_unknown"]:
        merges += f" ({sm['records_unknown']} record(s) unknown)"
    facts.append(("silent merges", merges))
    fd = t["fact_drift"]
    drift = (f"caught in {_plural(fd['edits'], 'edit')}: {fd['introduced']} introduced, {fd['dropped']} dropped "
             f"({_plural(len(fd['value_changes']), 'value change')}), {fd['ungrounded']} ungrounded")
    if fd["records_unknown"]:
        drift += f" ({fd['records_unknown']} record(s) unknown)"
    facts.append(("fact drift", drift))
    ev = t["evictions"]
    facts.append(("evictions", f"{_plural(ev['records'], 'eviction record')} ({_plural(ev['facts'], 'fact')}) in accepted edits"
                  + (f", {ev['in_rejected_edits']} in rejected ones" if ev["in_rejected_edits"] else "")))
    lat = t["latency_ms"]
    if lat["n"]:
        latency = (f"p50 {_ms(lat['p50'])}  p90 {_ms(lat['p90'])}  p99 {_ms(lat['p99'])}  "
                   f"max {_ms(lat['max'])} ms  ({lat['n']} checks)")
    else:
        latency = "no timings recorded"
    facts.append(("gate latency", latency))
    width = max(len(k) for k, _ in facts)
    out.extend(f"  {k.ljust(width)}  {v}" for k, v in facts)
    out.append("")
    out.extend(_render(_CYCLE_HEADERS, [_cycle_cells(r) for r in rows], _CYCLE_RIGHT))
    details = _details(s)
    if details:
        out.append("")
        out.append("  caught:")
        out.extend(f"    {d}" for d in details[:MAX_DETAIL_LINES])
        if len(details) > MAX_DETAIL_LINES:
            out.append(f"    ... and {len(details) - MAX_DETAIL_LINES} more (--json lists every one)")
    for note in s.notes:
        out.append(f"  note: {note}")
    return out


def _details(s: SessionSummary) -> list[str]:
    lines: list[str] = []
    for r in s.rows:
        label = f"cycle {r.cycle}" if r.cycle is not None else f"row {r.index}"
        for c in r.value_changes:
            lines.append(f"{label}  value change   {c.describe()}" + (f" (block {c.block!r})" if c.block else ""))
        for c in r.caught:
            kind = {"silent_merge": "silent merge", "stale_value": "stale value", "ungrounded": "ungrounded"}[c.kind]
            lines.append(f"{label}  {kind:<13}  {c.message}")
    return lines


def _overview_lines(report: SessionReport) -> list[str]:
    headers = ("session", "cycles", "accepted", "rejected", "cumul.", "merges", "drift", "p50 ms", "last record")
    right = (False, True, True, True, True, True, True, True, True)
    rows = []
    for s in report.sessions:
        t = s.totals
        last = s.rows[-1] if s.rows else None
        rows.append([
            _shown(s.session), str(t["cycles"]), str(t["accepted"]), str(t["rejected"]),
            _pct(s.final_cumulative, last is None or "cumulative_retention" not in last.unknown),
            str(t["silent_merges"]["caught"]), str(t["fact_drift"]["edits"]),
            _ms(t["latency_ms"]["p50"]), _n(s.last_seq),
        ])
    return _render(headers, rows, right)


def _format_report(report: SessionReport) -> str:
    lines = [f"provgate session report: {report.selection_note()}"]
    where = f"store {report.store}, " if report.store else ""
    lines.append(f"{where}{report.records} audit record(s), {len(report.known_sessions)} session(s)")
    if report.skipped:
        seqs = ", ".join(_n(s["seq"]) for s in report.skipped[:10])
        more = f" and {len(report.skipped) - 10} more" if len(report.skipped) > 10 else ""
        lines.append(f"skipped {len(report.skipped)} record(s) that are not JSON objects: seq {seqs}{more}")
    if report.empty:
        lines.append("no usable audit records: the gate has not checked any edit with this store")
        return "\n".join(lines) + "\n"
    if len(report.sessions) > 1:
        lines.append("")
        lines.extend(_overview_lines(report))
        o = report.overall or {}
        if o:
            lat = o["latency_ms"]
            lines.append(f"  overall: {o['cycles']} edits, {o['accepted']} accepted, {o['rejected']} rejected; "
                         f"rejected for {_invariant_counts(o['rejected_by_invariant'])}")
            lines.append(f"  overall gate latency: p50 {_ms(lat['p50'])}  p90 {_ms(lat['p90'])}  "
                         f"p99 {_ms(lat['p99'])}  max {_ms(lat['max'])} ms  ({lat['n']} checks)")
    for s in report.sessions:
        lines.append("")
        lines.extend(_session_lines(s))
    lines.append("")
    lines.extend(f"  {line}" for line in _LEGEND)
    return "\n".join(lines) + "\n"


# -- plot ----------------------------------------------------------------------------------------------


def _import_matplotlib() -> tuple[Any, Any]:
    """The figure and Agg canvas classes. Using them directly (not pyplot) leaves the caller's
    global matplotlib backend and state untouched."""
    try:
        import matplotlib  # noqa: F401
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise OptionalDependencyError(
            'plotting the session report needs matplotlib, which provgate installs only with the '
            '"plot" extra: pip install "provgate[plot]"', package="matplotlib", extra="plot") from exc
    return Figure, FigureCanvasAgg


def refuse_store_file(store: str | None, target: str | os.PathLike[str]) -> None:
    """Refuse to write the plot ``target`` over the store file ``store`` it reports on, or its
    WAL, shared-memory or journal file, by any name (the same path, a symbolic or a hard link):
    ``report`` reads the store and promises never to write to it, and a PNG written over the
    store lost every source and audit record (red team 122, F11). Raises
    :class:`InvalidArgumentError` naming ``plot``."""
    if not store or store == ":memory:":
        return
    real = os.path.realpath(target)
    # (SQLite keeps the side files beside the file a link resolves to, not beside the link: red
    # team 124, F07, a plot linked to the resolved store's -wal was written over it)
    bases = dict.fromkeys((store, os.path.realpath(store)))
    for kept in (base + suffix for base in bases for suffix in ("", "-wal", "-shm", "-journal")):
        same = real == os.path.realpath(kept)
        if not same and os.path.exists(target) and os.path.exists(kept):
            try:
                same = os.path.samefile(target, kept)
            except OSError:
                same = False
        if same:
            raise InvalidArgumentError(f"the plot {str(target)!r} is the store file {kept!r} (or a link to it): "
                                       "it would be written over the store; name another file", argument="plot")


def plot_report(report: SessionReport, path: str | os.PathLike[str]) -> Path:
    """Draw the report's retention curves (per cycle and cumulative, with the floor) and the
    rejections per cycle (bars) into the PNG file ``path``."""
    target = Path(path)
    if target.suffix.lower() != ".png":
        raise InvalidArgumentError(f"the plot is written as PNG; give a file name ending in .png, not {str(target)!r}",
                                   argument="plot")
    if report.empty or not report.sessions:
        raise InvalidArgumentError("nothing to plot: the report holds no session", argument="plot")
    refuse_store_file(report.store, target)
    Figure, FigureCanvasAgg = _import_matplotlib()
    fig = Figure(figsize=(9.0, 6.5), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=(3, 2))
    longest = max(len(s.rows) for s in report.sessions)
    floors: set[float] = set()
    floor_known = True
    drawn = 0
    rejected_labelled = False
    for k, s in enumerate(report.sessions):
        color = f"C{k % 10}"
        if s.retention_floor is None:
            floor_known = False
        else:
            floors.add(s.retention_floor)
        if all(r.retention is None and r.cumulative_retention is None for r in s.rows):
            continue  # no citation markers in this session: no curve to draw
        drawn += 1
        xs = [r.index for r in s.rows]
        name = _shown(s.session) if len(report.sessions) > 1 else "cumulative (committed window)"
        cum = [math.nan if r.cumulative_retention is None else r.cumulative_retention * 100 for r in s.rows]
        per = [math.nan if r.retention is None else r.retention * 100 for r in s.rows]
        top.plot(xs, cum, "-o", color=color, label=f"{name} (cumulative)" if len(report.sessions) > 1 else name)
        top.plot(xs, per, ":", marker=".", color=color, alpha=0.8,
                 label=f"{_shown(s.session)} (per cycle)" if len(report.sessions) > 1 else "per cycle (edit as proposed)")
        rej = [(r.index, p) for r, p in zip(s.rows, per) if r.accepted is False and not math.isnan(p)]
        if rej:
            top.scatter([x for x, _ in rej], [p for _, p in rej], marker="x", color=color, s=40, zorder=3,
                        label=None if rejected_labelled else "rejected edit (as proposed)")
            rejected_labelled = True
    for f in sorted(floors):
        top.axhline(f * 100, color="0.35", linestyle="--", linewidth=1, label=f"floor {f * 100:.0f}%")
    if not floor_known and DEFAULT_RETENTION_FLOOR not in floors:
        top.axhline(DEFAULT_RETENTION_FLOOR * 100, color="0.35", linestyle="--", linewidth=1,
                    label=f"gate default floor {DEFAULT_RETENTION_FLOOR * 100:.0f}% (floor not in the log)")
    top.set_ylabel("citation-marker retention (%)")
    top.set_ylim(bottom=0)
    title = _shown(report.sessions[0].session) if len(report.sessions) == 1 else f"{len(report.sessions)} sessions"
    top.set_title(f"provgate: citation retention and rejections per cycle - {title}")
    top.grid(True, alpha=0.3)
    if not drawn:
        top.text(0.5, 0.5, "no cycle had citation markers to retain (retention n/a)", transform=top.transAxes,
                 ha="center", va="center")
    top.legend(loc="best", fontsize="small")

    # rejections per cycle: for each invariant, the rejected edits that violated it, side by
    # side (stacking would count an edit rejected for two invariants twice in one bar)
    by_inv: dict[str, dict[int, int]] = {}
    for s in report.sessions:
        for r in s.rows:
            if r.accepted is not False:
                continue
            for inv in (r.violations or {"?": 1}):
                at = by_inv.setdefault(inv, {})
                at[r.index] = at.get(r.index, 0) + 1
    xs = list(range(1, longest + 1))
    if by_inv:
        order = [i for i in INVARIANTS if i in by_inv] + sorted(i for i in by_inv if i not in INVARIANTS)
        width = 0.8 / len(order)
        for k, inv in enumerate(order):
            offset = (k - (len(order) - 1) / 2) * width
            color = f"C{(INVARIANTS.index(inv) + 3) % 10}" if inv in INVARIANTS else "0.5"
            bottom.bar([x + offset for x in xs], [by_inv[inv].get(x, 0) for x in xs], width=width,
                       color=color, label=inv)
        bottom.legend(title="violated", fontsize="small", loc="upper left")
    else:
        bottom.text(0.5, 0.5, "no edit was rejected", transform=bottom.transAxes, ha="center", va="center")
    bottom.set_ylabel("rejected edits")
    bottom.set_xlabel("cycle (position in the session)")
    bottom.set_xticks(xs if longest <= 30 else [x for x in xs if x % max(1, longest // 15) == 0])
    bottom.yaxis.get_major_locator().set_params(integer=True)
    bottom.grid(True, axis="y", alpha=0.3)
    fig.savefig(target, format="png")
    return target


# -- command line ----------------------------------------------------------------------------------------


def _error(kind: str, message: str, **extra: Any) -> str:
    return json.dumps({"error": {"type": kind, "message": message, **extra}}, ensure_ascii=False)


def run_report(
    store: Any,
    *,
    session: str | Sequence[str | None] | None = None,
    as_json: bool = False,
    plot: str | os.PathLike[str] | None = None,
) -> tuple[str, int]:
    """What ``provgate report`` prints, and its exit status.

    ``(text, 0)``: the table (or the JSON report with ``as_json``) for stdout. ``(text, 2)``:
    unusable input - no audit records, an unknown session, a bad ``--plot`` file name, a
    corrupted audit record, matplotlib missing for ``--plot`` - where ``text`` is the command
    line's JSON error object (``{"error": {"type", "message", ...}}``) for stderr.
    """
    try:
        _check_selection(session)
    except InvalidArgumentError as exc:
        return _error("usage", str(exc), field="--session"), EXIT_UNUSABLE
    try:
        report = session_report(store, session=session)
    except InvalidArgumentError as exc:  # the selection is well-formed, so: a session the log lacks
        return _error("unknown_session", str(exc), field="--session",
                      known_sessions=_known_session_ids(store)), EXIT_UNUSABLE
    except ProvgateError as exc:  # a corrupted or unreadable audit log
        return _error(type(exc).__name__, f"cannot read the audit log: {exc}"), EXIT_UNUSABLE
    if report.empty:
        skipped = f" ({len(report.skipped)} record(s) skipped: not JSON objects)" if report.skipped else ""
        where = f" in {report.store!r}" if report.store else ""
        return _error("no_audit_records", f"no audit records{where}{skipped}: the gate has not checked any edit "
                      "with this store (is --store the store the agent's gate writes to?)"), EXIT_UNUSABLE
    written: str | None = None
    if plot is not None:
        try:
            written = str(plot_report(report, plot))
        except OptionalDependencyError as exc:
            return _error("missing_extra", str(exc), field="--plot", extra=exc.extra), EXIT_UNUSABLE
        except InvalidArgumentError as exc:
            return _error("usage", str(exc), field="--plot"), EXIT_UNUSABLE
        except OSError as exc:
            return _error("os_error", f"cannot write the plot {str(plot)!r}: {exc.strerror or exc}",
                          field="--plot"), EXIT_UNUSABLE
    if as_json:
        obj = report.to_json()
        if written is not None:
            obj["plot"] = written
        return json.dumps(obj, ensure_ascii=False, indent=2), EXIT_OK
    text = report.format_table()
    if written is not None:
        text += f"\nplot written to {written}\n"
    return text.rstrip("\n"), EXIT_OK


def _known_session_ids(store: Any) -> list[str | None]:
    try:
        return [s["session"] for s in reversed(report_from_records(store.iter_audit(), session=ALL_SESSIONS).known_sessions)]
    except ProvgateError:
        return []


__all__ = [
    "ALL_SESSIONS",
    "NO_SESSION",
    "REPORT_FORMAT",
    "CycleRow",
    "SessionReport",
    "SessionSummary",
    "ValueChange",
    "percentile",
    "plot_report",
    "report_from_records",
    "run_report",
    "session_report",
]
