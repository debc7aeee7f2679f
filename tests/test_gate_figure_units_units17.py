"""Units of mass, volume and length, and what hides a unit from the reader (red team 137, F06;
docs/gate.md, I1 "units"). ``Weight 30 kg.`` summarized ``Weight 30 mg.`` (or ``30 \u338e``) was
accepted: no mass unit was read. Each unit of mass, volume and length is now its own name, so a
changed unit of one dimension is refused as minutes -> hours is. ``Set timeout 30 minutes.``
summarized ``30 <X> hours`` was accepted for a minus sign, an arrow, the other dashes, a Greek
question mark (NFKC ``;``) and ``=`` between the figure and its unit, and a summary's table header
(``| timeout (hours) |`` over ``| 30 |``) gave its column no unit."""

from __future__ import annotations

import numpy as np
import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

from provgate import _search_py
from provgate._search import unit_leads
from provgate.gate import _unit_grounded

# (source, an honest summary, its lie twin: the same figure in another unit of one dimension)
HONEST_AND_LIE = [
    # the red team's cases
    pytest.param("Weight 30 kg.\n", "Weight 30 kilograms.\n", "Weight 30 mg.\n", id="kg to mg"),
    pytest.param("Weight 30 kg.\n", "The weight is 30 kg.\n", "Weight 30 \u338e.\n", id="kg to the squared mg"),
    # mass
    pytest.param("Weight 30 kg.\n", "Weight 30 kgs.\n", "Weight 30 g.\n", id="kg to g"),
    pytest.param("Weight 30 kg.\n", "Weight 30 \u338f.\n", "Weight 30 lbs.\n", id="kg to lbs"),
    pytest.param("Dose 500 mg daily.\n", "Dose 500 milligrams daily.\n", "Dose 500 mcg daily.\n", id="mg to mcg"),
    pytest.param("Dose 500 mcg daily.\n", "Dose 500 \u00b5g daily.\n", "Dose 500 mg daily.\n", id="mcg to mg"),
    pytest.param("Dose 500 mg daily.\n", "Dose 500 mg daily.\n", "Dose 500 \u03bcg daily.\n", id="mg to Greek mu g"),
    pytest.param("Pack 12 oz.\n", "Pack 12 ounces.\n", "Pack 12 lb.\n", id="oz to lb"),
    pytest.param("Load 30 t.\n", "Load 30 tonnes.\n", "Load 30 kg.\n", id="t to kg"),
    pytest.param("Load 30 tonnes.\n", "Load 30 tonnes.\n", "Load 30 tons.\n", id="tonnes to tons"),
    # a metric ton is a tonne, any other ton a short one (red team 139, F05)
    pytest.param("Load 5 t sand.\n", "Load 5 metric tons of sand.\n", "Load 5 tons of sand.\n", id="t as metric tons"),
    pytest.param("Load 5 tons.\n", "Load 5 tons.\n", "Load 5 metric tons.\n", id="tons to metric tons"),
    # volume
    pytest.param("Add 30 ml water.\n", "Add 30 millilitres water.\n", "Add 30 L water.\n", id="ml to L"),
    pytest.param("Tank 30 L.\n", "Tank holds 30 litres.\n", "Tank holds 30 ml.\n", id="L to ml"),
    # microlitres (red team 139, F09: "10 \u00b5L" was no unit, so "10 mL" of it was grounded)
    pytest.param("Sample 10 \u00b5L.\n", "Sample 10 microlitres.\n", "Sample 10 mL.\n", id="uL to mL"),
    pytest.param("Sample 10 \u03bcl.\n", "Sample 10 \u00b5L.\n", "Sample 10 L.\n", id="Greek mu l to L"),
    pytest.param("Sample 10 mL.\n", "Sample 10 ml.\n", "Sample 10 \u00b5L.\n", id="mL to uL"),
    # length
    pytest.param("Length 30 cm.\n", "Length 30 centimetres.\n", "Length 30 mm.\n", id="cm to mm"),
    pytest.param("Length 30 cm.\n", "Length 30 cm.\n", "Length 30 m.\n", id="cm to m"),
    pytest.param("Height 30 ft.\n", "Height 30 feet.\n", "Height 30 inches.\n", id="ft to inches"),
    pytest.param("Drive 30 miles.\n", "Drive 30 mile.\n", "Drive 30 km.\n", id="miles to km"),
    pytest.param("Ran 30 metres.\n", "Ran 30 meters.\n", "Ran 30 yards.\n", id="metres to yards"),
    pytest.param("Pore 30 \u00b5m.\n", "Pore 30 microns.\n", "Pore 30 mm.\n", id="um to mm"),
]


@pytest.mark.parametrize(("source", "honest", "lie"), HONEST_AND_LIE)
def test_a_changed_unit_of_mass_volume_or_length_is_refused(source, honest, lie):
    assert_accepted(_summarize(source, honest))
    figure = next(w for w in lie.split() if w[:1].isdigit())
    find(_summarize(source, lie), "I1", value=figure, evidence__change="unit_changed")


# "m" is minutes or metres: a summary's "m" is grounded by either, "metre" by "m"; "m" -> "min"
# stays refused (docs/gate.md, its limit), and "m" grounds no other length
@pytest.mark.parametrize(("source", "summary", "grounded"), [
    ("Ran 5 m.\n", "Ran 5 metres.\n", True),
    ("Ran 5 metres.\n", "Ran 5 m.\n", True),
    ("Waited 5 minutes.\n", "Waited 5 m.\n", True),
    ("Waited 5 m.\n", "Waited 5 min.\n", False),
    ("Ran 5 m.\n", "Ran 5 km.\n", False),
    ("Ran 5 metres.\n", "Ran 5 cm.\n", False),
])
def test_m_is_minutes_or_metres(source, summary, grounded):
    verdict = _summarize(source, summary)
    if grounded:
        assert_accepted(verdict)
    else:
        find(verdict, "I1", value="5", evidence__change="unit_changed")


@pytest.mark.parametrize(("stated", "given", "grounded"), [
    (b"m", b"metre", True), (b"metre", b"m", True), (b"m", b"min", True), (b"min", b"m", False),
    (b"metre", b"min", False), (b"min", b"metre", False), (b"kg", b"mg", False), (b"g", b"kg", False),
    (b"l", b"ml", False), (b"ug", b"mg", False),
])
def test_which_units_ground_which(stated, given, grounded):
    assert _unit_grounded(stated, given) is grounded


# what stands between a figure and its unit: the red team's marks (a minus sign, an arrow, a small
# em dash, a two-em dash, a Greek question mark, a hyphen bullet, a swung dash, a wave dash, "=")
GAPS = ["\u2212", "\u2192", "\ufe58", "\u2e3a", "\u037e", "\u2043", "\u2053", "\u301c", "="]


@pytest.mark.parametrize("gap", GAPS)
def test_a_unit_past_a_dash_arrow_or_equals_sign_is_read(gap):
    source = "Set timeout 30 minutes.\n"
    assert_accepted(_summarize(source, f"Set timeout 30 {gap} minutes.\n"))
    find(_summarize(source, f"Set timeout 30 {gap} hours.\n"), "I1", value="30", evidence__change="unit_changed")
    # (glued to the figure too)
    find(_summarize(source, f"Set timeout 30{gap}hours.\n"), "I1", value="30", evidence__change="unit_changed")


@pytest.mark.parametrize(("source", "summary"), [
    # a figure after the mark is no unit: a range or a change stays the figures it names
    ("Raised from 30 to 60 minutes.\n", "Raised 30 \u2192 60 minutes.\n"),
    ("Range 30 to 60 s.\n", "Range 30 \u2212 60 s.\n"),
    ("a=30 b=5 s\n", "a = 30 = b\n"),
])
def test_a_figure_after_the_mark_is_no_unit(source, summary):
    assert_accepted(_summarize(source, summary))


@pytest.mark.parametrize(("source", "honest", "lie"), [
    # the red team's case
    ("Set timeout 30 minutes.\n", "| timeout (minutes) |\n|---|\n| 30 |\n", "| timeout (hours) |\n|---|\n| 30 |\n"),
    ("Set timeout 30 minutes.\n", "| service | timeout (min) |\n|---|---|\n| api | 30 |\n",
     "| service | timeout (s) |\n|---|---|\n| api | 30 |\n"),
    # a source's table header grounds the summary's
    ("| timeout (s) |\n|---|\n| 30 |\n", "| timeout (seconds) |\n|---|\n| 30 |\n",
     "| timeout (hours) |\n|---|\n| 30 |\n"),
    ("Weight 30 kg.\n", "| item | weight (kg) |\n|---|---|\n| box | 30 |\n", "| item | weight (lb) |\n|---|---|\n| box | 30 |\n"),
])
def test_a_summarys_table_header_gives_its_column_a_unit(source, honest, lie):
    assert_accepted(_summarize(source, honest))
    find(_summarize(source, lie), "I1", value="30", evidence__change="unit_changed")


def test_a_summarys_header_unit_of_a_figure_its_source_writes_bare_is_left_be():
    # (as "timeout 30 hours" of "timeout=30" is: a figure with no unit in its sources grounds any)
    assert_accepted(_summarize("timeout=30\n", "| timeout (hours) |\n|---|\n| 30 |\n"))


@pytest.mark.parametrize(("source", "summary"), [
    # "in" is a preposition, no unit
    ("Took 30 s; 30 items.\n", "There were 30 in total.\n"),
    # a capital G, T or M after a figure is no gram, tonne or metre
    ("Latency 3 ms on 3 G.\n", "Latency 3 ms on 3 G.\n"),
    ("Took 5 s on 5 T4 nodes.\n", "Took 5 s on 5 T nodes.\n"),
    # nor "ML" (machine learning) a millilitre
    ("Took 3 ms; trained ML models.\n", "Trained 3 ML models in 3 ms.\n"),
])
def test_words_that_spell_no_unit_stay_none(source, summary):
    assert_accepted(_summarize(source, summary))


@pytest.mark.parametrize("text", [
    "Weight 30 kg.", "Dose 500 \u00b5g", "30\u2212hours", "30 \u2192 hours", "30\u037ehours", "30 = hours",
    "30\u301c60 s", "30\u2014hours", "30 g 5 t 6 L 7 ml", "30 =\n= ft", "30\xe2", "3\u2212",
])
def test_the_leads_of_native_and_reference_agree(text):
    data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    assert np.array_equal(unit_leads(data), _search_py.unit_leads(data))
    assert np.array_equal(unit_leads(data[:-1]), _search_py.unit_leads(data[:-1]))


def test_the_new_marks_ask_a_closer_look():
    assert _search_py.unit_leads("30\u2212hours".encode()).tolist() == [1]
    assert _search_py.unit_leads(b"30 = hours").tolist() == [1]
    assert _search_py.unit_leads(b"30 kg").tolist() == [1]
    assert _search_py.unit_leads(b"30 in total").tolist() == []
