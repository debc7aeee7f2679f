"""What the gate answers: a :class:`Verdict` with every :class:`Violation` and its evidence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from provgate.errors import EditFormatError
from provgate.window import Window, type_name

INVARIANTS = ("I1", "I2", "I3", "I4", "I5", "P", "R")
CLASSIFICATIONS = ("structural", "lossless", "lossy", "rejected")


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken invariant, with what is needed to show it to a human or an agent."""

    invariant: str
    message: str
    block: str | None = None
    handle: str | None = None
    key: str | None = None
    value: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "invariant": self.invariant,
            "block": self.block,
            "handle": self.handle,
            "key": self.key,
            "value": self.value,
            "evidence": self.evidence,
            "message": self.message,
        }

    @classmethod
    def from_json(cls, obj: Any, path: str = "violation") -> Violation:
        """The violation of ``to_json()``'s object, checked as the package's other readers check
        theirs: a wrong type or a missing field is an :class:`EditFormatError` naming the field
        (``path.field``), never a raw ``KeyError`` or a violation of wrong types (red team 122,
        F14). Unknown fields are ignored."""
        if not isinstance(obj, dict):
            raise _invalid(path, f"expected an object, got {type_name(obj)}")
        for required in ("invariant", "message"):
            if required not in obj:
                raise _invalid(f"{path}.{required}", "required field is missing")
        if obj["invariant"] not in INVARIANTS:
            raise _invalid(f"{path}.invariant", f"must be one of {', '.join(INVARIANTS)}, not {obj['invariant']!r}")
        if not isinstance(obj["message"], str):
            raise _invalid(f"{path}.message", f"expected a string, got {type_name(obj['message'])}")
        for name in ("block", "handle", "key"):
            if obj.get(name) is not None and not isinstance(obj[name], str):
                raise _invalid(f"{path}.{name}", f"expected a string or null, got {type_name(obj[name])}")
        value = obj.get("value")
        if value is not None and not isinstance(value, (str, int, float)):
            raise _invalid(f"{path}.value", f"expected a string, a number or null, got {type_name(value)}")
        evidence = obj.get("evidence")
        if evidence is not None and not isinstance(evidence, dict):
            raise _invalid(f"{path}.evidence", f"expected an object or null, got {type_name(evidence)}")
        return cls(invariant=obj["invariant"], message=obj["message"], block=obj.get("block"),
                   handle=obj.get("handle"), key=obj.get("key"), value=value, evidence=dict(evidence or {}))


def _invalid(field_path: str, message: str) -> EditFormatError:
    return EditFormatError(f"{field_path}: {message}", field=field_path)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The gate's answer for one edit.

    ``window`` is what to commit when ``accepted``: the post window, with blocks re-tagged as
    derived when the edit was reclassified as lossy. ``facts`` counts pre, post, introduced,
    dropped, superseded and evicted facts; ``retention`` is the cycle's citation-marker
    retention (``None`` when pre had no markers to retain); ``timings_ms`` gives each phase.
    """

    accepted: bool
    classification: str
    operator: str
    violations: tuple[Violation, ...]
    facts: dict[str, int]
    retention: float | None
    cycle: int
    timings_ms: dict[str, float]
    window: Window
    reclassified: bool = False
    pre_digest: str = ""
    post_digest: str = ""

    def __bool__(self) -> bool:
        return self.accepted

    def by_invariant(self) -> dict[str, int]:
        counts = dict.fromkeys(INVARIANTS, 0)
        for v in self.violations:
            counts[v.invariant] = counts.get(v.invariant, 0) + 1
        return {k: n for k, n in counts.items() if n}

    def to_json(self, *, include_window: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "accepted": self.accepted,
            "classification": self.classification,
            "operator": self.operator,
            "reclassified": self.reclassified,
            "cycle": self.cycle,
            "violations": [v.to_json() for v in self.violations],
            "violations_by_invariant": self.by_invariant(),
            "facts": dict(self.facts),
            "retention": self.retention,
            "timings_ms": {k: round(v, 4) for k, v in self.timings_ms.items()},
            "pre_digest": self.pre_digest,
            "post_digest": self.post_digest,
        }
        if include_window:
            out["window"] = self.window.to_json()
        return out

    @classmethod
    def from_json(cls, obj: Any, path: str = "verdict") -> Verdict:
        """The verdict of ``to_json()``'s object (red team 134, F10: there was no reader), checked
        as :meth:`Violation.from_json` checks its own (an :class:`EditFormatError` naming
        ``path.field``). ``to_json(include_window=True)`` round-trips: ``from_json(v.to_json(
        include_window=True)).to_json(include_window=True)`` is that object again. What
        ``to_json`` leaves out stays out: ``timings_ms`` are rounded to 4 decimals, and without
        ``include_window`` (or with ``"window": null``, what ``provgate check --window`` prints
        for a rejected edit) the window is empty. ``violations_by_invariant`` is derived from the
        violations, and unknown fields are ignored."""
        if not isinstance(obj, dict):
            raise _invalid(path, f"expected an object, got {type_name(obj)}")

        def field(name: str, types: tuple[type, ...], what: str, *, required: bool = True,
                  nullable: bool = False, default: Any = None) -> Any:
            if name not in obj:
                if required:
                    raise _invalid(f"{path}.{name}", "required field is missing")
                return default
            value = obj[name]
            if value is None and nullable:
                return None
            if not isinstance(value, types) or (bool not in types and isinstance(value, bool)):
                raise _invalid(f"{path}.{name}", f"expected {what}, got {type_name(value)}")
            return value

        accepted = field("accepted", (bool,), "a boolean")
        classification = field("classification", (str,), "a string")
        if classification not in CLASSIFICATIONS:
            raise _invalid(f"{path}.classification",
                           f"must be one of {', '.join(CLASSIFICATIONS)}, not {classification!r}")
        operator = field("operator", (str,), "a string")
        reclassified = field("reclassified", (bool,), "a boolean", required=False, default=False)
        cycle = field("cycle", (int,), "an integer")
        violations = tuple(Violation.from_json(v, f"{path}.violations[{i}]")
                           for i, v in enumerate(field("violations", (list,), "an array")))
        facts = field("facts", (dict,), "an object")
        for key, n in facts.items():
            if not isinstance(n, int) or isinstance(n, bool):
                raise _invalid(f"{path}.facts.{key}", f"expected an integer, got {type_name(n)}")
        retention = field("retention", (int, float), "a number or null", nullable=True)
        timings = field("timings_ms", (dict,), "an object", required=False, default={})
        for key, ms in timings.items():
            if not isinstance(ms, (int, float)) or isinstance(ms, bool):
                raise _invalid(f"{path}.timings_ms.{key}", f"expected a number, got {type_name(ms)}")
        window = field("window", (list,), "an array of blocks or null", required=False, nullable=True)
        return cls(accepted=accepted, classification=classification, operator=operator, violations=violations,
                   facts=dict(facts), retention=None if retention is None else float(retention), cycle=cycle,
                   timings_ms={k: float(v) for k, v in timings.items()},
                   window=Window.from_json(window, f"{path}.window") if window is not None else Window(()),
                   reclassified=reclassified,
                   pre_digest=field("pre_digest", (str,), "a string", required=False, default=""),
                   post_digest=field("post_digest", (str,), "a string", required=False, default=""))

    def summary(self) -> str:
        """One line for logs and error messages."""
        if self.accepted:
            return f"accepted ({self.classification}{', reclassified' if self.reclassified else ''})"
        parts = ", ".join(f"{k}×{n}" for k, n in self.by_invariant().items())
        first = self.violations[0].message if self.violations else ""
        return f"rejected: {parts}; first: {first}"
