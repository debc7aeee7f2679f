"""A figure's unit behind a run of round brackets its reader stops in is unknown, not none (red team
129, F06; docs/gate.md, I1 "units"). The unit reader (_unit_at, _round_unit) reads at most three
brackets, each of 80 bytes or less holding no other, after at most eight blanks, within a 192-byte
tail, and a bracket first on the next line as a label only. A summary that wrote its figure's unit
past one of those bounds ("Wait 30 (a) (b) (c) (d) hours" of "Wait 30 minutes") gave the figure no
unit, and a figure with none was grounded by the source's figure in any unit. The run is read to its
end: a unit's word after it (or a unit's label in it the reader did not reach) makes the figure's
unit unknown, grounded only by the same figure read so."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _rewrite, _summarize

from provgate import gate
from provgate.gate import (
    _UNIT_UNKNOWN,
    _extra_leads,
    _figures_with_units,
    _unit_at,
    _unit_leads,
    _units_of_figure,
    _unknown_as,
)

SOURCE = "Wait 30 minutes before retrying."

# each form of F06 (the unit after the run "hours"; the source's "minutes")
RUNS = [
    pytest.param(" (a) (b) (c) (d) ", id="four brackets"),
    pytest.param(" (approximately, give or take a little, depending on the load of the region and the hour of day) ",
                 id="a bracket over 80 bytes"),
    pytest.param("\n(approx.) ", id="an aside first on the next line"),
    pytest.param("\n   (approx.) ", id="an aside first on the next line, indented"),
    pytest.param("         (approx.) ", id="nine blanks"),
    pytest.param("                    (approx.) ", id="twenty blanks"),
    pytest.param(" (" + "a" * 60 + ") (" + "b" * 60 + ") (" + "c" * 60 + ") ", id="past the 192-byte tail"),
    pytest.param(" (see (1)) ", id="a bracket holding another"),
    pytest.param(" **(approx.)** ", id="markdown's marks"),
    pytest.param("\u00a0(a) (b) (c) (d) ", id="a no-break space"),
    pytest.param(" (a) \x1b[1m(b) (c) (d) ", id="a colour code"),
    pytest.param(" (a)\n(b) (c) (d) ", id="a line break between brackets"),
]


@pytest.mark.parametrize("run", RUNS)
def test_a_unit_written_past_the_bracket_run_of_a_summary_is_unknown_and_refused(run):
    found = find(_summarize(SOURCE, f"Wait 30{run}hours before retrying."), "I1", value="30",
                 evidence__change="unit_changed")
    # (unknown, and the unit's word the reader saw after the run: red team 130b, F08)
    assert found.evidence["unit"] == "(unknown h)" and found.evidence["sources_unit"] == ["min"]


@pytest.mark.parametrize("run", RUNS)
def test_a_unit_written_past_the_bracket_run_of_a_source_grounds_that_unit_only(run):
    if "\u00a0" in run:  # (the grammar reads "30\u00a0" as no number: its own I1 refusal, no unit's)
        find(_summarize(f"Wait 30{run}minutes before retrying.", "Wait 30 hours before retrying."), "I1", value="30")
        return
    found = find(_summarize(f"Wait 30{run}minutes before retrying.", "Wait 30 hours before retrying."), "I1",
                 value="30", evidence__change="unit_changed")
    assert found.evidence["sources_unit"] == ["(unknown min)", "min"]
    # (the run read to its end, the unit written right after the figure is grounded: red team
    # 130b, F05, it was refused; a run not read to its end grounds none, test_gate_unit_asides2.py)
    assert_accepted(_summarize(f"Wait 30{run}minutes before retrying.", "Wait 30 minutes before retrying."))


@pytest.mark.parametrize("run", RUNS)
def test_a_unit_changed_behind_the_same_run_on_both_sides_is_refused(run):
    """Unknown is not grounded by unknown when the reader saw each side's unit after the run:
    red team 130b, F08, "Wait 30 (a) (b) (c) (d) minutes." summarized "Wait 30 (e) (f) (g) (h)
    hours." was accepted."""
    source = f"Wait 30{run}minutes before retrying."
    if "\u00a0" in run:  # (the grammar reads "30\u00a0" as no number)
        return
    find(_summarize(source, f"Wait 30{run}hours before retrying."), "I1", value="30", evidence__change="unit_changed")
    find(_rewrite(source + "\n", f"Wait 30{run}hours before retrying.\n"), "I2", value="30")


@pytest.mark.parametrize("run", RUNS)
def test_the_same_run_with_the_unit_kept_on_both_sides_is_accepted(run):
    text = f"Wait 30{run}minutes before retrying."
    assert_accepted(_summarize(text, text))
    assert_accepted(_rewrite(text + "\n", text + "\nDone.\n"), "lossless")


def test_a_label_the_reader_did_not_reach_is_unknown_too():
    # (nine blanks, then the unit's label: "(seconds)" is read as one where the reader reaches it)
    find(_summarize("Wait 30         (seconds) before retrying.", "Wait 30 minutes before retrying."), "I1", value="30")
    find(_summarize("Wait 30 (a) (b) (c) (in seconds) before retrying.", "Wait 30 minutes before retrying."), "I1",
         value="30")
    assert_accepted(_summarize("Wait 30 (a) (b) (c) (in seconds) before retrying.",
                               "Wait 30 (a) (b) (c) (in seconds) before retrying."))


@pytest.mark.parametrize("source, text", [
    ("Step 3 (takes 5 minutes): build the image.", "Step 3 takes 5 minutes: build the image."),
    ("attempt 3 (of 5) failed after 10 s", "Attempt 3 of 5 failed after 10 s."),
    ("Retries: 5 (see below).\nWait 30 minutes between them.", "5 retries, 30 minutes apart."),
    ("Node 3 (16 GB RAM) failed after 20 minutes.", "Node 3 has 16 GB of RAM; it failed after 20 minutes."),
    ("Use 8 (p99: 40 ms) threads.", "Use 8 threads; p99 is 40 ms."),
    ("Steps: 3\n(a) build\n(b) test\n", "3 steps: build and test.\n"),
    ("Latency 30 (p99)\nhours of uptime: 5", "p99 latency was 30 ms; 5 hours of uptime."),
    ("Use 2 (or 3) GB of memory.", "Use 2 or 3 GB of memory."),
    ("Found 12 (in 3 s) errors.", "Found 12 errors in 3 s."),
    ("Step 3 (a) (b) (c) (d) is done; it took 20 minutes.", "Step 3 is done; it took 20 minutes."),
    ("Release 2 (see (1)) shipped after 300 hours of work.", "Release 2 shipped after 300 hours of work."),
    ("Wait 30 (see (1)) minutes before retrying.", "Wait before retrying."),
])
def test_honest_asides_after_a_figure_are_accepted(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("before, after", [
    ("Use 8 (p99: 40 ms) threads.\n", "Use 8 threads (p99: 40 ms).\n"),
    ("Node 3 (16 GB RAM) failed after 20 minutes.\n", "Node 3 failed after 20 minutes (16 GB RAM).\n"),
    ("Retry 3 (each after 5 s) times.\n", "Retry 3 times (each after 5 s).\n"),
    ("Set workers to 4 (one per 2 GB of RAM).\n", "Set workers to 4, one per 2 GB of RAM.\n"),
    ("Step 2 (takes 10 minutes): build.\n", "Step 2: build (takes 10 minutes).\n"),
    ("Wait 30\n(see the note on seconds below)\n", "Wait 30.\n(see the note on seconds below)\n"),
    ("Release 2 (about 300 hours of work) shipped.\n", "Release 2 shipped (about 300 hours of work).\n"),
])
def test_the_rewrites_red_team_129_found_accepted_stay_accepted(before, after):
    assert_accepted(_rewrite(before, after))


@pytest.mark.parametrize("text, unit", [
    ("5 (a) (b) (c) (d) ms.", _unknown_as(b"ms")),
    ("5 (see (1)) ms.", _unknown_as(b"ms")),
    ("5 (a ((b)) c) ms.", _UNIT_UNKNOWN),  # (a bracket held in one held in another: unknown, read no further)
    ("5 (" + "(" * 40 + ")" * 40 + ") items.", _UNIT_UNKNOWN),
    ("5 (a (b) (c) (d) ms", _UNIT_UNKNOWN),  # (brackets not paired on the line)
    ("5 " + "(a) " * 300 + "ms.", _UNIT_UNKNOWN),  # (past _ROUND_RUN_REACH: unknown)
    ("5 " + "(a) " * 200, None),  # (the run ends with the text: no unit after it)
    ("5 (a) (b) (c) (d) items.", None),
    ("5 (a b c d ms", None),  # (not closed on its line: no bracket)
    ("5 (a) (b " + "c" * 2000 + "\nms", _UNIT_UNKNOWN),  # (its line closes past reach)
    ("5 (a\n) ms.", None),
    ("5\n\n(approx.) ms.", None),  # (two line breaks: a paragraph, not the figure's)
    ("5 (a) (b) (c) (d)\nms: 3", None),  # (the next row's key)
    ("5 (a) (b) (c) ms.", b"ms"),  # (what the reader reaches is read as before)
])
def test_the_run_is_read_to_its_end_within_bounds(text, unit):
    data = text.encode()
    assert _unit_at(data, 1, True) == unit
    if unit is not None and unit != b"ms":
        assert _unit_at(data, 1) is None  # (the other rules read no unit, as before)
        assert 0 in _unit_leads(data)
        assert _figures_with_units(data, _unit_leads(data)) == {b"5": {unit}}
        assert _units_of_figure(data, b"5") == {unit}


def test_each_figure_before_a_run_is_read_once(monkeypatch):
    # (work counted, not time: one run read a figure before it, and none where no "(" follows)
    text = ("x " + "1 (a) (b) (c) (d) (e) " * 500 + "ms").encode()
    calls = []
    real = gate._round_run_unit
    monkeypatch.setattr(gate, "_round_run_unit", lambda t, e, *rest: calls.append(e) or real(t, e, *rest))
    found = _figures_with_units(text, _unit_leads(text))
    assert found.keys() == {b"1"} and all(u.startswith(b"(unknown") for u in found[b"1"]) and len(calls) == 500
    assert len(_extra_leads(text)) == 500


@pytest.mark.parametrize("text", [
    "x " + "1\n(s\n" * 300,  # (red team 129, F08: each "(" first on the next line was read, 4x base's check)
    "x " + "1 (s\n" * 300,
    "x " + "1\n  (s\n" * 300,
])
def test_a_bracket_its_line_ends_in_is_neither_a_lead_nor_read(text, monkeypatch):
    # work counted, not time: a bracket not closed on its line in its first 80 bytes ends no unit
    # (_unit_at reads none there), so a source searched for the figure reads no tail at it
    data = text.encode()
    assert _extra_leads(data) == []
    calls = []
    real = gate._unit_at
    monkeypatch.setattr(gate, "_unit_at", lambda t, e, *rest: calls.append(e) or real(t, e, *rest))
    assert _units_of_figure(data, b"1") == set() and calls == []
    assert real(data, 3, True) is None


def test_a_run_read_whole_by_the_reader_is_not_read_again(monkeypatch):
    # (work counted: up to three brackets on the figure's line, _round_unit's, are not searched for labels)
    calls = []
    real = gate._ROUND_LABEL_AT
    monkeypatch.setattr(gate, "_ROUND_LABEL_AT", type("P", (), {
        "match": staticmethod(real.match),
        "finditer": staticmethod(lambda *a: calls.append(a) or real.finditer(*a))})())
    assert _unit_at(b"5 (a) (b) (c) items and more.", 1, True) is None and calls == []
    assert _unit_at(b"5 (a) (b) (c) (d) items and more.", 1, True) is None and len(calls) == 1


@pytest.mark.parametrize("source, lie, honest", [
    ("Max temp: 300 (K).", "Max temp: 300 \u00b0C.", "Max temp: 300 K."),
    ("Max temp: 300 (in K).", "Max temp: 300 \u00b0F.", "Max temp: 300 kelvin."),
    ("Cost: 30 ($) a seat.", "Cost: 30 \u20ac a seat.", "Cost: $30 a seat."),
    ("Cost: 30 (\u20ac) a seat.", "Cost: 30 \u00a3 a seat.", "Cost: 30 \u20ac a seat."),
    ("Cost: 30 (in \u00a3) a seat.", "Cost: 30 (\u20ac) a seat.", "Cost: 30 (\u00a3) a seat."),
])
def test_a_one_byte_unit_or_a_sign_as_a_bracket_label_is_the_figure_unit(source, lie, honest):
    # red team 129, F14: "(K)" (kelvin's symbol, or a thousand: _K, as "300 K" is read) and a currency's
    # sign were no label (a bare unit of one byte is a list's mark, "(s)", "(b)"), so the figure had no
    # unit and any unit was grounded
    find(_summarize(source, lie), "I1", evidence__change="unit_changed")
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("text", ["Item 300 (k) done.", "Step 3 (s) done.", "Run 30 $ commands."])
def test_a_list_mark_or_a_shell_sign_is_no_label(text):
    data = text.encode()
    end = data.index(b" (") if b" (" in data else data.index(b" $")
    assert _unit_at(data, end, True) is None


def test_a_range_with_a_minimum_and_a_maximum_reads_as_the_range_without_them():
    # red team 127, F02's flip side: "(min)" after a figure is a minimum as often as minutes, so it is
    # no unit; "5 (min) to 60 (max) seconds" gives 5 the unit "5 to 60 seconds" gives it (none: a
    # range's unit after its second figure is not read for the first, a limit of its own, docs/gate.md),
    # and 60 its seconds. The run after 5 is read whole ("(min)", then "to"): no unit is unknown there
    text = b"Backoff: 5 (min) to 60 (max) seconds between retries."
    bare = b"Backoff: 5 to 60 seconds between retries."
    assert _unit_at(text, 10, True) is None and _unit_at(bare, 10, True) is None
    assert _unit_at(text, text.index(b"60") + 2, True) == b"s"
    source = text.decode()
    find(_summarize(source, "Backoff ends at 60 minutes."), "I1", value="60", evidence__change="unit_changed")
    assert_accepted(_summarize(source, "Backoff starts at 5 seconds and ends at 60 seconds."))
    assert_accepted(_summarize("Memory: 2 (min) / 4 (max) GB per pod.", "2 GB minimum, 4 GB maximum per pod."))


def test_a_word_digits_before_a_bracket_run_make_no_lead():
    # (a bracket holding another after "sha256" is a call, no figure's run: the benchmark's rewrite
    # made 15 such leads, and merging them into the native ones cost ~0.1 ms; no rule reads a glued figure)
    text = b"digest = hashlib.sha256(job_id.encode()).hexdigest()\nx = int64 (a (b))\n"
    assert _extra_leads(text) == []
    assert _extra_leads(b"Wait 30 (see (1)) hours.") == [6]


def _round_leads_by_definition(text: bytes) -> list[int]:
    """The round-bracket leads of :func:`_extra_leads` as first written: every match of the
    whole bracket pattern over the text, then the figure before it looked for (the function
    now looks for the figure first and reads the bracket only after one)."""
    if b"(" not in text:
        return []
    read = text.lower()
    pattern = (gate._ROUND_AFTER_DIGIT_NOT_ASCII if not text.isascii() or b"\x1b" in text
               else gate._ROUND_AFTER_DIGIT)
    out = []
    for m in pattern.finditer(read):
        j = m.start()
        while j and text[j - 1] in gate._ROUND_RUN_GAP_BYTES:
            j -= 1
        if not j or not 48 <= text[j - 1] <= 57:
            continue
        k = j - 1
        while k and text[k - 1] in gate._FIGURE_BYTES:
            k -= 1
        if k and text[k - 1] in gate._GLUED_BEFORE_FIGURE:
            continue
        out.append(j - 1)
    return out


def test_the_figure_is_looked_for_before_the_bracket_is_read_with_the_same_leads():
    """_extra_leads finds the bytes before a bracket first, then the figure, then reads the
    bracket: the leads are those of the whole pattern over the text (4,000 random texts of
    figures after words, dots or marks, gaps of blanks, marks and breaks, and brackets; without
    "[", a no-break space or a "K", a text has only round-bracket leads)."""
    import random
    rng = random.Random(130)
    before = ["", "", "x", "sha", "_", "__", " ", "\n", "v", "1.", "a-", "*", "`"]
    figures = ["3", "30", "256", "1.5", "2,000"]
    gaps = ["", " ", "*", "**", "_", "__", "`", "~", "|", "-", "\n", " *", "  ", " " * 9, " " * 10, "\r\n", " \n ", "x"]
    brackets = ["(s)", "(approx.)", "(min)", "($)", "(a)", "(see (1))", "(in ms)", "(", "(x", "(seconds)", "(é)",
                "(\x1b[1m)", "(" + "y" * 90 + ")"]
    after = ["", " seconds", " hours", " GB", "\n", " ms", " (b)", "\nminutes"]
    found = 0
    for _ in range(4000):
        text = "".join(rng.choice(before) + rng.choice(figures) + rng.choice(gaps) + rng.choice(brackets)
                       + rng.choice(after) + rng.choice([" ", "\n", ". ", ""]) for _ in range(rng.randint(1, 4))).encode()
        expected = _round_leads_by_definition(text)
        assert _extra_leads(text) == expected, text
        assert _extra_leads(text, True) == expected[:1], text
        found += bool(expected)
    assert found > 1000  # (the texts do hold leads: the comparison is not of empty lists)
