"""``Verdict.from_json`` reads back what ``Verdict.to_json`` writes (red team 134, F10: there was no
reader, so the verdict ``provgate check`` prints, or a worker sends as JSON, could not become a
``Verdict`` again). Lossy, as documented: timings rounded to 4 decimals, and the window only with
``include_window``."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from provgate.errors import EditFormatError
from provgate.gate import Gate
from provgate.store import SourceStore
from provgate.verdict import CLASSIFICATIONS, INVARIANTS, Verdict, Violation
from provgate.window import Window

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
ident = st.text(st.characters(whitelist_categories=("Ll", "Nd")), min_size=1, max_size=6)
json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), text)
violations = st.builds(Violation, invariant=st.sampled_from(INVARIANTS), message=text,
                       block=st.none() | ident, handle=st.none() | ident.map(lambda s: f"tool:{s}"),
                       key=st.none() | ident, value=st.none() | text | st.integers(-99, 99),
                       evidence=st.dictionaries(ident, json_scalar, max_size=3))
blocks = st.builds(lambda i, t, h: {"id": f"b{i}", "role": "tool", "text": t, "handles": [f"tool:{h}"]},
                   st.integers(0, 5), text, ident)
windows = st.lists(blocks, max_size=4, unique_by=lambda b: b["id"]).map(Window)
verdicts = st.builds(
    Verdict, accepted=st.booleans(), classification=st.sampled_from(CLASSIFICATIONS),
    operator=st.sampled_from(("prune", "rewrite", "summarize", "evict")),
    violations=st.lists(violations, max_size=4).map(tuple),
    facts=st.dictionaries(st.sampled_from(("pre", "post", "introduced", "dropped")), st.integers(0, 10**6)),
    retention=st.none() | st.floats(0, 1), cycle=st.integers(0, 10**9),
    timings_ms=st.dictionaries(ident, st.integers(0, 10**7).map(lambda n: n / 10**4)), window=windows,
    reclassified=st.booleans(), pre_digest=ident.map(lambda s: f"blake3:{s}"), post_digest=ident)


@settings(max_examples=150, deadline=None)
@given(verdicts)
def test_to_json_round_trips_through_from_json(v):
    obj = json.loads(json.dumps(v.to_json(include_window=True)))
    back = Verdict.from_json(obj)
    assert back == v  # (timings of 4 decimals, which to_json keeps exactly)
    assert back.to_json(include_window=True) == obj


@settings(max_examples=50, deadline=None)
@given(verdicts)
def test_without_the_window_the_rest_round_trips(v):
    back = Verdict.from_json(json.loads(json.dumps(v.to_json())))
    assert back.window == Window(())
    assert back.to_json() == v.to_json()


def test_a_gate_verdict_round_trips():
    s = SourceStore(":memory:")
    s.put("tool:a", "retries=3\n")
    v = Gate(s).check([{"id": "b", "role": "tool", "text": "retries=3\n", "handles": ["tool:a"]}],
                      [{"id": "b", "role": "tool", "text": "retries=5\n", "handles": ["tool:a"]}], operator="rewrite")
    obj = json.loads(json.dumps(v.to_json(include_window=True)))
    back = Verdict.from_json(obj)
    assert not back.accepted and back.violations == v.violations and back.window == v.window
    assert back.to_json(include_window=True) == obj


GOOD = {"accepted": True, "classification": "structural", "operator": "prune", "reclassified": False, "cycle": 1,
        "violations": [], "facts": {"pre": 1}, "retention": None, "timings_ms": {"total": 1.5},
        "pre_digest": "blake3:x", "post_digest": "blake3:y", "window": None}


@pytest.mark.parametrize("obj, field", [
    ([], "verdict"),
    ({k: v for k, v in GOOD.items() if k != "accepted"}, "verdict.accepted"),
    ({**GOOD, "accepted": 1}, "verdict.accepted"),
    ({**GOOD, "classification": "fine"}, "verdict.classification"),
    ({**GOOD, "cycle": True}, "verdict.cycle"),
    ({**GOOD, "cycle": "1"}, "verdict.cycle"),
    ({**GOOD, "violations": [{"invariant": "I9", "message": "m"}]}, "verdict.violations[0].invariant"),
    ({**GOOD, "facts": {"pre": 1.5}}, "verdict.facts.pre"),
    ({**GOOD, "retention": "0.9"}, "verdict.retention"),
    ({**GOOD, "timings_ms": {"total": None}}, "verdict.timings_ms.total"),
    ({**GOOD, "window": {"id": "b"}}, "verdict.window"),
])
def test_a_malformed_verdict_is_refused_naming_the_field(obj, field):
    with pytest.raises(EditFormatError) as info:
        Verdict.from_json(obj)
    assert info.value.field == field


def test_an_honest_verdict_object_is_read():
    v = Verdict.from_json(GOOD)
    assert v.accepted and v.cycle == 1 and v.window == Window(()) and v.timings_ms == {"total": 1.5}
