"""``Violation.from_json`` checks what it reads (red team 122, F14): it raised a raw
``KeyError`` or ``TypeError`` and built violations of wrong types, where the package's other
readers refuse with an ``EditFormatError`` naming the field."""

from __future__ import annotations

import json

import pytest

from provgate.errors import EditFormatError, ProvgateError
from provgate.verdict import Violation

GOOD = {"invariant": "I1", "message": "block 'b' asserts kv 'retries=5'", "block": "b", "handle": None,
        "key": "retries", "value": "5", "evidence": {"span": [0, 9]}}


def test_a_violation_round_trips_and_ignores_unknown_fields():
    v = Violation.from_json(GOOD)
    assert Violation.from_json(json.loads(json.dumps(v.to_json()))) == v
    assert Violation.from_json({**GOOD, "extra": 1}) == v
    assert Violation.from_json({"invariant": "P", "message": "m"}).evidence == {}


@pytest.mark.parametrize("obj, field", [
    ([], "violation"),
    ("x", "violation"),
    ({}, "violation.invariant"),
    ({"invariant": "I1"}, "violation.message"),
    ({**GOOD, "invariant": 5}, "violation.invariant"),
    ({**GOOD, "invariant": "I9"}, "violation.invariant"),
    ({**GOOD, "message": None}, "violation.message"),
    ({**GOOD, "block": 3}, "violation.block"),
    ({**GOOD, "handle": ["h"]}, "violation.handle"),
    ({**GOOD, "key": {}}, "violation.key"),
    ({**GOOD, "value": [1]}, "violation.value"),
    ({**GOOD, "evidence": "x"}, "violation.evidence"),
    ({**GOOD, "evidence": [1, 2]}, "violation.evidence"),
])
def test_a_malformed_violation_is_refused_naming_the_field(obj, field):
    with pytest.raises(EditFormatError) as caught:
        Violation.from_json(obj)
    assert caught.value.field == field and isinstance(caught.value, ProvgateError)
    assert field in str(caught.value)
