"""Asides and bracket labels the unit reader of a summary's brackets and asides takes since red
team 133 (F06), and a source's unit after a run of brackets read to its end (red team 130b, F05).
docs/gate.md, I1 "units": "brackets and asides on a summary's side".

F06: a summary of "Wait 30 minutes before retrying." that wrote the figure's unit behind an aside
the reader did not know (emphasis, an ellipsis, a semicolon's aside, guillemets, angle brackets) or
in a bracket label dressed with marks ("(h.)", "(**h**)", "(~h)", "(approx. h)", "{h}") was
accepted: the figure had no unit and was grounded. F05: a source's figure whose unit stands after
a nested aside or a long run of brackets ("every 30 (see note (2)) minutes") grounded no unit, so
its honest summary "every 30 minutes" was refused."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

from provgate import gate
from provgate.gate import (
    _bracketed_units,
    _figures_bracketed,
    _run_read_unit,
    _run_read_units_of_figure,
)

SOURCE = "Wait 30 minutes before retrying."

# (the aside or label between the figure and "before retrying", the unit the gate reads there)
F06_LIES = [
    (" *approx* hours ", "h"), (" **approx** hours ", "h"), (" \u2026 hours ", "h"), (" ... hours ", "h"),
    (" ; approx ; hours ", "h"), (" \u00abapprox\u00bb hours ", "h"), (" \u27e8approx\u27e9 hours ", "h"),
    (" \u300capprox\u300d hours ", "h"), (" {h} ", "h"), (" {approx} {h} ", "h"), (" (h.) ", "h"),
    (" (**h**) ", "h"), (" (~h) ", "h"), (" (\u2248h) ", "h"), (" (approx. h) ", "h"), (" (approx h) ", "h"),
    (" {~h} ", "h"), (" (`s`) ", "s"),
]


@pytest.mark.parametrize(("aside", "unit"), F06_LIES, ids=[a.strip() for a, _ in F06_LIES])
def test_a_unit_behind_an_aside_or_in_a_dressed_label_is_held_to_the_sources(aside, unit):
    found = find(_summarize(SOURCE, f"Wait 30{aside}before retrying."), "I1", value="30",
                 evidence__change="unit_changed")
    assert found.evidence["unit"] == unit
    assert found.evidence["sources_unit"] == ["min"]


@pytest.mark.parametrize("aside", [a.replace("hours", "minutes").replace("h", "min").replace("`s`", "`min`")
                                   for a, _ in F06_LIES if "approx h" not in a and "approx. h" not in a and "`" not in a]
                         + [" (approx. min) ", " (default) minutes ", " (see below) minutes ", " minutes ",
                            " **minutes** "])
def test_the_same_asides_around_the_sources_unit_are_accepted(aside):
    assert_accepted(_summarize(SOURCE, f"Wait 30{aside}before retrying."))


def test_a_count_of_times_written_apart_is_no_percentage():
    """red team 133, F06: "3 x faster" grounded "3 (%) faster"."""
    found = find(_summarize("It is 3 x faster.", "It is 3 (%) faster."), "I1", value="3", evidence__change="unit_changed")
    assert found.evidence["unit"] == "%" and found.evidence["sources_unit"] == ["times"]
    for honest in ("It is 3 x faster.", "It is 3 (x) faster.", "It is 3 \u00d7 as fast."):
        assert_accepted(_summarize("It is 3 x faster.", honest))
    assert_accepted(_summarize("It is 3 times faster.", "It is 3 x faster."))
    assert_accepted(_summarize("A 3 x 4 grid of 3 m.", "A 3 x 4 grid of 3 m."))  # (a product: no count read)


@pytest.mark.parametrize("text", [
    "Released 2024-01-30 (see notes).", "Ran 30 ... 40 minutes.", "Ran **30** minutes; then 5 hours.",
    "ID 30_approx_h ok, wait 30 minutes", "Wait 30 minutes; retries 3; hours later ok", "Items 30 *new* hours 5",
    "Ran 30 minutes; 5 (a) ok.", "Ran 30 (ca. min).", "Version 30 (a) (b) (c) (d) released.",
])
def test_dates_ids_ranges_and_marks_copied_are_accepted(text):
    assert_accepted(_summarize(f"{text} Done.", f"{text} Done."))


# red team 130b, F05: the source's run read to its end, a unit's word after it
F05_SOURCES = [
    ("The backup runs every 30 (see note (2)) minutes.", "The backup runs every 30 minutes.", "30", "h"),
    ("Set the timeout to 30 (default: 10 (v1) or 20 (v2)) seconds.", "Set the timeout to 30 seconds.", "30", "min"),
    ("Each shard holds 64 (the default (as of v3)) GB.", "Each shard holds 64 GB.", "64", "TB"),
    ("Retry after 5 (or, with the flag (--slow), 10) seconds.", "Retry after 5 seconds.", "5", "minutes"),
    ("Wait 30 (a) (b) (c) (d) minutes.", "Wait 30 minutes.", "30", "hours"),
    ("Allocate 30 (thirty)\n(see the table) GB.", "Allocate 30 GB.", "30", "MB"),
]


@pytest.mark.parametrize(("source", "summary", "figure", "other"), F05_SOURCES)
def test_a_source_unit_after_a_run_read_to_its_end_grounds_the_summarys(source, summary, figure, other):
    assert_accepted(_summarize(source, summary))
    # (and no other unit: the lie of the same shape is refused)
    unit_word = summary.rsplit(" ", 1)[1].rstrip(".")
    lie = summary.replace(f"{figure} {unit_word}", f"{figure} {other}")
    assert lie != summary
    find(_summarize(source, lie), "I1", value=figure, evidence__change="unit_changed")


def test_a_source_run_not_read_to_its_end_still_grounds_no_unit():
    # (unclosed brackets: no run read; a bracket held three deep: unknown, as before)
    for source in ("Wait 30 " + "((((" * 15000 + " minutes.", "Wait 30 (a (b (c))) minutes."):
        found = find(_summarize(source, "Wait 30 minutes."), "I1", value="30", evidence__change="unit_changed")
        assert found.evidence["sources_unit"] == ["(unknown)"]
    # (a summary's run stays unknown: the same run before another unit is refused, and a source's
    # plain unit grounds no summary's run)
    find(_summarize("Wait 30 (a) (b) (c) (d) minutes.", "Wait 30 (e) (f) (g) (h) hours."), "I1", value="30")
    find(_summarize("Wait 30 (see (1)) minutes.", "Wait 30 hours."), "I1", value="30")
    assert_accepted(_summarize("Wait 30 (see (1)) minutes.", "Wait 30 (see (1)) minutes."))


def test_the_readers():
    assert _figures_bracketed(b"Wait 30 *approx* hours") == {b"30": {b"h"}}
    assert _figures_bracketed(b"Wait 30 \xe2\x80\xa6 hours") == {b"30": {b"h"}}
    assert _figures_bracketed(b"Wait 30 ; approx ; hours") == {b"30": {b"h"}}
    assert _figures_bracketed(b"Wait 30 (approx. h)") == {b"30": {b"h"}}
    assert _figures_bracketed(b"Wait 30 {a} [b.] {h}") == {b"30": {b"b", b"h"}}
    assert _bracketed_units(b"It is 3 x faster", 7) == {b"times"}  # (read of a source: "x" is no aside's lead)
    assert _figures_bracketed(b"Ran **30** minutes") == {}
    assert _figures_bracketed(b"A 3 x 4 grid") == {}
    assert _figures_bracketed(b"Wait 30 * 60 seconds") == {}  # (a product: no emphasis)
    assert _bracketed_units(b"30 (default) minutes", 2) == {b"min"}
    text = b"every 30 (see note (2)) minutes"
    assert _run_read_unit(text, 8) == b"min"
    assert _run_read_unit(b"every 30 (a (b (c))) minutes", 8) is None  # (held three deep: not read to its end)
    assert _run_read_unit(b"every 30 minutes", 8) is None  # (no run)
    assert _run_read_units_of_figure(text, b"30") == {b"min"}
    assert _run_read_units_of_figure(b"every 30 (a) minutes", b"30") == set()  # (read by _unit_at: no unknown)


def test_long_runs_of_the_new_asides_are_read_within_reach(monkeypatch):
    """Each figure's asides read once on each side, each reading bounded (a work count, not a time)."""
    calls = []
    real = gate._bracketed_units
    monkeypatch.setattr(gate, "_bracketed_units", lambda text, end, labels=True: calls.append(end) or real(text, end, labels))
    for tail in (" *a*" * 20000 + " hours.", " \u2026" * 20000, " ; a ;" * 10000, " {h}" * 20000, " (~h)" * 20000,
                 " *" * 30000, " \u00ab" * 30000):
        _summarize("Wait 30 minutes.", "Wait 30" + tail)
    assert len(calls) <= 2 * 7
