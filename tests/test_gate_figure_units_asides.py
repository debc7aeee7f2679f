"""A summary's figure whose unit only its brackets or asides may give is held to its sources' units
(red team 131, F09; red team 130b, F08, F09; docs/gate.md, I1 "units"). The unit reader (_unit_at)
reads a bare "(h)", "(s)", "(min)" as a list's mark or a minimum, a figure in brackets
("timeout (30) seconds") as no figure with a unit, and stops at any aside that is not a run of
round brackets ("{approx}", dashes, commas, a long "[...]"): the summary's figure had no unit, and a
figure with none was grounded by the source's in any unit. On the summary's side those units
(_bracketed_units) must be ones the sources give the figure where they give it any; a source's
aside grounds a unit its figure has no other."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

from provgate import gate
from provgate.gate import _bracketed_units, _figures_bracketed

LIES = [
    # red team 131, F09
    pytest.param("Wait 30(min) then retry", "Wait 30(h) then retry", "h", id="glued bracket unit"),
    pytest.param("timeout (30) seconds", "timeout (30) minutes", "min", id="figure in brackets"),
    pytest.param("Step T1(30) minutes", "Step T1(30) hours", "h", id="word-digit lead before the bracket"),
    pytest.param("Wait 30 ((min)) first", "Wait 30 ((h)) first", "h", id="nested bracket unit"),
    pytest.param("Wait 30 (a) (b) (c) (min) (d) seconds", "Wait 30 (a) (b) (c) (h) (d) seconds", "h",
                 id="unit inside a run, another after"),
    # red team 130b, F09
    pytest.param("Wait 30 seconds.", "Wait 30 (h).", "h", id="one-letter label"),
    pytest.param("Wait 30 (s) before retrying.", "Wait 30 (min) before retrying.", "min", id="(s) to (min)"),
    pytest.param("Set 30 (s).", "Set 30 (m).", "m", id="(s) to (m)"),
    pytest.param("Speed 30 (K).", "Speed 30 (M).", "M", id="(K) to (M)"),
    pytest.param("Speed 30 (K).", "Speed 30 [M].", "M", id="(K) to [M]"),
    pytest.param("Costs rose 30 (%).", "Costs rose 30 (x).", "times", id="(%) to (x)"),
    pytest.param("Costs 30 $ each.", "Costs 30 \u00a3 each.", "\u00a3", id="sign apart"),
    pytest.param("Costs 30 \u20ac.", "Costs 30 $.", "$", id="dollar apart"),
    # red team 130b, F08: a unit behind an aside that is not a run of round brackets
    # (where a bracket "(b)" or "(d)" stands in the run, its bare unit, bits or days, is refused first)
    *[pytest.param("Wait 30 minutes before retrying.", f"Wait 30{aside}hours before retrying.",
                   ("b", "h", "(unknown h)") if "(b) (c) (d) " in aside or "{b} {c} {d} " in aside else ("h",), id=name)
      for name, aside in [("braces", " {approx} "), ("four braces", " {a} {b} {c} {d} "), ("dashes", " -- approx. -- "),
                          ("em dashes", " \u2014 roughly \u2014 "), ("commas", ", roughly, "), ("comment", " /* approx */ "),
                          ("square and round", " [a] (b) [c] (d) "), ("a blank line", " (a)\n\n(b) "),
                          ("a long square bracket", " [" + "a" * 200 + "] "), ("escaped", " \\(a\\) \\(b\\) \\(c\\) \\(d\\) "),
                          ("a quote's mark", " > (a) (b) (c) (d) "), ("a carriage return", " (a)\r(b) (c) (d) "),
                          ("a vertical tab", " (a)\x0b(b) (c) (d) "), ("a form feed", " (a)\x0c(b) "),
                          ("a line separator", " (a)\u2028(b) "), ("an ideographic space", " (a) (b) (c) (d) \u3000"),
                          ("a backslash", " (a) (b) (c) (d) \\"), ("a quote", ' (a) (b) (c) (d) "'),
                          ("strike-through", " (a) (b) (c) (d) ~~x~~ "), ("a broken bracket", " (\n) ")]],
]


@pytest.mark.parametrize(("source", "summary", "unit"), LIES)
def test_a_unit_a_summary_writes_in_or_behind_its_brackets_is_its_sources(source, summary, unit):
    found = find(_summarize(source, summary), "I1", value="30", evidence__change="unit_changed")
    assert found.evidence["unit"] in ((unit,) if type(unit) is str else unit)


def test_a_source_aside_grounds_the_unit_after_it():
    """red team 130b, F08: "Wait 30 {approx} minutes." summarized "Wait 30 hours." was accepted."""
    found = find(_summarize("Wait 30 {approx} minutes.", "Wait 30 hours."), "I1", value="30",
                 evidence__change="unit_changed")
    assert found.evidence["sources_unit"] == ["min"]
    assert_accepted(_summarize("Wait 30 {approx} minutes.", "Wait 30 minutes."))


HONEST_ASIDES = ["30 minutes (on average)", "30 (thirty) minutes", "30 (the default) seconds", "30 (%)", "30 ($)",
                 "30 (EUR)", "30 (GB)", "f(30) (see docs)", "retries=30 (max)", "Step 3 (optional) (advanced) (slow) (beta)",
                 "Version 30 (a) (b) (c) (d) released.", "30 [sic] minutes", "30 (\u00bd) minutes", "Wait 30(min) then retry",
                 "timeout (30) seconds", "Step T1(30) minutes", "Wait 30 ((min)) first", "Wait 30 (a) (b) (c) (min) (d) seconds",
                 "Wait 30 {approx} minutes.", "Wait 30, roughly, minutes.", "Speed 30 (K).", "Costs 30 $ each."]


@pytest.mark.parametrize("text", HONEST_ASIDES)
def test_a_bracketed_figure_copied_is_accepted(text):
    assert_accepted(_summarize(f"Config: {text} Done.", f"Config: {text} Done."))


@pytest.mark.parametrize(("source", "summary"), [
    ("Wait 30 seconds.", "Wait 30 (seconds)."),
    ("Wait 30 (s).", "Wait 30 seconds."),
    ("Wait 30 minutes.", "Wait 30 (min)."),
    ("timeout 30 seconds", "timeout (30) seconds"),
    ("Wait 30 minutes before retrying.", "Wait 30 {approx} minutes before retrying."),
    # (red team 127, F02: a bare "(min)" beside "(max)" is a minimum; a source's bare label grounds
    # only a summary's bracket, never a unit written plainly)
    ("Memory: 2 (min) / 4 (max) GB", "Memory is 2 GB minimum and 4 GB maximum."),
    ("Version 30 released.", "Version 30 (b) released."),  # (a source with no unit for it: left be)
    ("In 2023, the job took 5 hours.", "In 2023, the job took 5 hours."),
    ("Latency 30 (p99)\nhours of uptime: 5", "Latency 30 (p99)\nhours of uptime: 5"),
])
def test_honest_bracketed_paraphrases_are_accepted(source, summary):
    assert_accepted(_summarize(source, summary))


def test_the_reader_of_brackets_and_asides():
    assert _figures_bracketed(b"Wait 30(h) then retry") == {b"30": {b"h"}}
    assert _figures_bracketed(b"timeout (30) minutes") == {b"30": {b"min"}}
    assert _figures_bracketed(b"Wait 30, roughly, hours") == {b"30": {b"h"}}
    assert _figures_bracketed(b"In 2023, two hours") == {}
    assert _figures_bracketed(b"30 minutes (on average)") == {}
    assert _bracketed_units(b"2 (min) / 4 (max) GB", 1, False) == set()  # (a label is no aside's unit)


def test_long_runs_of_brackets_and_asides_are_read_once_each_within_reach(monkeypatch):
    """Linear: each figure's brackets read once, each reading bounded (_ROUND_RUN_REACH bytes), on
    runs of thousands of brackets and asides (a work count, not a time)."""
    calls = []
    real = gate._bracketed_units
    monkeypatch.setattr(gate, "_bracketed_units", lambda text, end, labels=True: calls.append(end) or real(text, end, labels))
    figures = 3000
    summary = " ".join(f"Wait {n}" + " (a) {b} [c] -- d --," * 40 + " hours." for n in range(figures))
    source = " ".join(f"Wait {n} minutes." for n in range(figures))
    # (a run of asides past what is read: the unit unknown, refused)
    assert find(_summarize(source, summary), "I1", evidence__change="unit_changed").evidence["unit"] == "(unknown)"
    assert len(calls) <= 2 * figures
    # (one figure and 60 KB of brackets and asides, or of unclosed ones: read within reach)
    calls.clear()
    for tail in (" (a) {b}" * 8000 + " hours.", " (a" * 20000 + " hours.", " {" * 30000 + " hours.", ", a" * 20000):
        _summarize("Wait 30 minutes.", "Wait 30" + tail)
    assert len(calls) <= 2 * 4  # (each tail read once on the summary's side, once on the source's)
