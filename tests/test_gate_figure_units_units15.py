"""A figure's unit written past punctuation, as a symbol, or as bits (red team 135, F06; docs/gate.md,
I1 "units"). The unit reader read no unit after "30 ;; hours", "30 : hours", "30 \u2014 hours" or
"30\u2013hours", nor a squared unit symbol ("30 \u33b3"), a prime or a double prime ("30 \u2032", "30
\u2033"), nor "gigabits" and "bits"; and it read "Gb" as "GB". A summary's figure with no unit was
grounded by the source's figure in any unit, and bits by bytes: "Set timeout 30 minutes"
summarized "Set timeout 30 ;; hours" was accepted. Each lie below is refused as a unit change, on
a summary (I1) and on a rewrite under the block's id (I2); each honest twin, the same unit written
another way, stays accepted."""

from __future__ import annotations

import numpy as np
import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _rewrite, _summarize

from provgate import _search_py
from provgate._search import unit_leads
from provgate.gate import _as_read, _unit_at

# (source, the lie's text, the unit the lie states, the honest twin's text)
PAIRS = [
    # punctuation between the figure and its unit
    pytest.param("Set timeout 30 minutes.", "Set timeout 30 ;; hours.", "h", "Set timeout 30 ;; minutes.", id="two semicolons"),
    pytest.param("Set timeout 30 minutes.", "Set timeout 30 ; hours.", "h", "Set timeout 30 ; min.", id="a semicolon"),
    pytest.param("Set timeout 30 minutes.", "Set timeout 30 : hours.", "h", "Set timeout 30 : minutes.", id="a colon"),
    pytest.param("Set timeout 30 minutes.", "Set timeout 30: hours.", "h", "Set timeout 30: minutes.", id="a glued colon"),
    pytest.param("Set timeout 30 seconds.", "Set timeout 30 :: ms.", "ms", "Set timeout 30 :: s.", id="two colons"),
    pytest.param("Set timeout 30 minutes.", "Set timeout 30 \u2014 hours.", "h", "Set timeout 30 \u2014 minutes.",
                 id="an em dash"),
    pytest.param("Set timeout 30 minutes.", "Set timeout 30 \u2013 hours.", "h", "Set timeout 30 \u2013 min.",
                 id="an en dash"),
    pytest.param("Set timeout 30 minutes.", "Set a 30\u2011hour timeout.", "h", "Set a 30-minute timeout.",
                 id="a non-breaking hyphen"),
    # unit symbols
    pytest.param("Set timeout 30 seconds.", "Set timeout 30 \u33b3.", "ms", "Set timeout 30 s.", id="squared ms"),
    pytest.param("Set timeout 30 ms.", "Set timeout 30 \u33b2.", "us", "Set timeout 30 \u33b3.", id="squared us"),
    pytest.param("Set timeout 30 \u33b3.", "Set timeout 30 s.", "s", "Set timeout 30 ms.", id="a source's squared ms"),
    pytest.param("Limit 30 \u3387.", "Limit 30 megabytes.", "mb", "Limit 30 gigabytes.", id="squared GB"),
    pytest.param("Set timeout 30 minutes.", "Set timeout 30 \u2033.", "dprime", "Set timeout 30 min.",
                 id="a double prime"),
    pytest.param("Set timeout 30 \u2032.", "Set timeout 30 \u2033.", "dprime", "Set timeout 30 \u2032.", id="prime to double"),
    # bits and bytes
    pytest.param("Limit 30 GB.", "Limit 30 gigabits.", "gbit", "Limit 30 gigabytes.", id="gigabits"),
    pytest.param("Link 30 Gb.", "Link 30 gigabytes.", "gb", "Link 30 gigabits.", id="Gb is bits"),
    pytest.param("Link 30 Gb/s.", "Link 30 gigabytes/s.", "gb/s", "Link 30 gigabits/s.", id="Gb/s is bits"),
    pytest.param("Limit 30 bytes.", "Limit 30 bits.", "bit", "Limit 30 B.", id="bits"),
    pytest.param("Link 30 megabits.", "Link 30 megabytes.", "mb", "Link 30 megabit.", id="megabits"),
]


@pytest.mark.parametrize(("source", "lie", "unit", "honest"), PAIRS)
def test_a_summary_writing_another_unit_is_refused_and_its_twin_accepted(source, lie, unit, honest):
    found = find(_summarize(source, lie), "I1", value="30", evidence__change="unit_changed")
    assert found.evidence["unit"] == unit
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize(("source", "lie", "unit", "honest"), PAIRS)
def test_a_rewrite_writing_another_unit_is_refused(source, lie, unit, honest):
    find(_rewrite(source + "\n", lie + "\n"), "I2", value="30")


GLUED = [
    ("Limit 30GB.", "Limit 30Gb."),
    ("Limit 30MB.", "Limit 30Mb."),
    ("Limit 30KB.", "Limit 30Kb."),
    ("Limit 30Mb/s.", "Limit 30MB/s."),
]


@pytest.mark.parametrize(("source", "lie"), GLUED)
def test_bits_glued_to_a_figure_are_no_bytes(source, lie):
    """"30GB" summarized "30Gb" was grounded: a glued unit was read lower-cased."""
    assert not _summarize(source, lie).accepted
    assert_accepted(_summarize(source, source))


def test_a_figure_glued_to_lower_case_gb_is_read_as_bytes():
    assert_accepted(_summarize("Limit 30GB.", "Limit 30gb."))


HONEST = [
    # a clause's or sentence's end is no gap: the words after it are no unit
    ("Set timeout 30 minutes.", "The timeout was 30, hours went by."),
    ("Set timeout 30 minutes.", "The timeout was 30. Hours went by."),
    # a range's dash: the unit is the second figure's
    ("Wait 30\u201340 minutes.", "Wait 30\u201340 minutes."),
    # a ratio and a clock time stay no figure with a unit
    ("Ratio 16:9 at 12:30 h.", "Ratio 16:9 at 12:30 h."),
    # a key-value list with its keys after colons
    ("retries: 3\nmin: 5\n", "retries: 3, min: 5"),
    ("Error at line 30: s is undefined.", "Line 30: s is undefined."),
    ("He was in his 30\u2019s.", "He was in his 30\u2019s."),
]


@pytest.mark.parametrize(("source", "summary"), HONEST)
def test_honest_text_stays_accepted(source, summary):
    assert_accepted(_summarize(source, summary))


def test_a_range_keeps_its_unit_on_the_second_figure():
    find(_summarize("Wait 30\u201340 minutes.", "Wait 30\u201340 hours."), "I1", value="40",
         evidence__change="unit_changed")


@pytest.mark.parametrize("text", [b"Wait 30\xe2\x80\x94hours", b"Wait 30\xe2\x80\x91minute", b"Wait 30 ;; hours",
                                  b"Wait 30 : s", b"Wait 30 \xe3\x8e\xb3", b"Wait 30 gigabits", b"Wait 30\xe2\x80\x99s",
                                  b"Wait 30, hours", b"16:9 and 12:30 h", b"1:m"])
def test_the_leads_of_native_and_reference_agree(text):
    assert np.array_equal(unit_leads(text), _search_py.unit_leads(text))


@pytest.mark.parametrize(("text", "unit"), [
    (b"30 ;; hours", b"h"), (b"30 : hours", b"h"), (b"30\xe2\x80\x94hours", b"h"), (b"30 \xe2\x80\x93 min", b"min"),
    (b"30 \xe3\x8e\xb3", b"ms"), (b"30 \xe3\x8e\xb2", b"us"), (b"30 \xe2\x80\xb2", b"prime"), (b"30 \xe2\x80\xb3", b"dprime"),
    (b"30 Gb", b"gbit"), (b"30 GB", b"gb"), (b"30 gb", b"gb"), (b"30 kB", b"kb"), (b"30 Kb", b"kbit"),
    (b"30 gigabits", b"gbit"), (b"30 bits", b"bit"),
    (b"30, hours", None), (b"30. Hours", None), (b"30\xe2\x80\x9340 minutes", None), (b"30 \xe3\x8f\x94", None),
])
def test_the_unit_read_after_a_figure(text, unit):
    read = _as_read(text)
    assert _unit_at(read, 2, True) == unit
