"""A figure keeps its unit (docs/gate.md, I2 "figures traded" and I1 "units"; red team 115, F03 and
F07). A number is a fact and the word after it is not, so ``Wait 30 seconds`` -> ``Wait 30 minutes``
kept every fact, as a rewrite and as a summary, and ``Timeout is 30 s and retry is 5 min`` with
the two durations traded kept every figure in a context of its own. The suite runs once each way
(PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, blk, find, gate_for, tool
from test_grammar_v4 import _rewrite, _summarize

from provgate import gate
from provgate._search import unit_leads
from provgate.gate import (
    _UNITS,
    _extra_leads,
    _figures_with_units,
    _key_units_of_figure,
    _same_unit,
    _unit_at,
    _unit_leads,
    _units_of_figure,
)


def _with_units(text: bytes) -> dict[bytes, set[bytes]]:
    return _figures_with_units(text, unit_leads(text).tolist())


@pytest.mark.parametrize("before, after, pre_unit, post_unit", [
    ("Wait 30 seconds then retry.", "Wait 30 minutes then retry.", "s", "min"),
    ("The volume holds 12 GB of logs.", "The volume holds 12 TB of logs.", "gb", "tb"),
    ("p99 latency is 250 ms on db-01.", "p99 latency is 250 s on db-01.", "ms", "s"),
    ("Keep backups for 7 days.", "Keep backups for 7 weeks.", "d", "w"),
])
def test_a_unit_changed_beside_a_kept_figure_is_refused_on_a_rewrite(before, after, pre_unit, post_unit):
    found = find(_rewrite(before, after), "I2", evidence__change="unit_changed")
    assert (found.evidence["pre_unit"], found.evidence["post_unit"]) == (pre_unit, post_unit)


@pytest.mark.parametrize("before, after", [
    ("Wait 30 seconds then retry.", "Wait 30 s then retry."),  # one unit, two spellings
    ("Wait 30 seconds then retry.", "Wait 30 secs, then retry."),
    ("The volume holds 12 gb of logs.", "The volume holds 12 gigabytes of logs."),
    ("Wait 30 seconds then retry.", "Wait 30 then retry."),  # a unit dropped is not asked
    ("Run 3 of them on 2 hosts.", "Run 3 of them on 2 hosts!"),  # no unit at all
])
def test_a_unit_written_another_way_or_dropped_is_accepted_on_a_rewrite(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


@pytest.mark.parametrize("before, after, value, change", [
    ("Timeout is 30 s and retry is 5 min.", "Timeout is 5 min and retry is 30 s.", "30", "traded_in_place"),
    # (the figures kept in order, only their units traded)
    ("Timeout is 30 s and retry is 30 min.", "Timeout is 30 min and retry is 30 s.", "30", "unit_changed"),
    ("Server v1.2.3, client v2.0.1.", "Server v2.0.1, client v1.2.3.", "v1.2.3", "traded_in_place"),
])
def test_figures_traded_with_their_units_or_v_prefix_are_refused(before, after, value, change):
    find(_rewrite(before, after), "I2", value=value, evidence__change=change)


def test_a_statement_moved_whole_with_its_unit_is_accepted():
    assert_accepted(_rewrite("Timeout is 30 s. Retry after 5 min.", "Retry after 5 min. Timeout is 30 s."), "lossless")


@pytest.mark.parametrize("source, text, unit", [
    ("Wait 30 seconds then retry.", "The user asked to wait 30 minutes before retrying.", "min"),
    ("The volume holds 12 GB of logs.", "About 12 TB of logs are kept.", "tb"),
])
def test_a_summary_changing_a_figures_unit_is_refused(source, text, unit):
    found = find(_summarize(source, text), "I1", block="s", evidence__change="unit_changed")
    assert found.evidence["unit"] == unit


@pytest.mark.parametrize("source, text", [
    ("Wait 30 seconds then retry.", "Wait 30 s before retrying."),
    ("Wait 30 seconds, or 5 minutes at most.", "Waits of 30 seconds, up to 5 min."),
    ("Run it 30 times.", "It ran 30 times."),  # (no unit: "times" is none)
    ("Retry 30 then stop.", "Retry 30 seconds then stop."),  # the source gives the figure no unit
])
def test_a_summary_keeping_the_unit_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


def test_figures_with_units():
    assert _with_units(b"Wait 30 seconds, 5 min, 1.5 GB and 12 apples; 7\tdays") == {
        b"30": {b"s"}, b"5": {b"min"}, b"1.5": {b"gb"}, b"7": {b"d"}}
    assert _with_units(b"v2 s") == {}  # (a figure inside a word is none)
    assert _with_units(b"1,000.5 ms and 3. s") == {b"1000.5": {b"ms"}}  # (as a number)
    assert _with_units(b"no figures here") == {}
    # a non-ASCII byte before the figure does not make it part of a word
    assert _with_units("\u224830 seconds".encode()) == {b"30": {b"s"}}


@pytest.mark.parametrize("text, end, unit", [
    (b"30 seconds", 2, b"s"), (b"30  Seconds.", 2, b"s"), (b"30\tms)", 2, b"ms"),
    ("30 \u00b5s".encode(), 2, b"us"), ("30 \u03bcs".encode(), 2, b"us"),
    (b"30 min\xe2\x80\xa6", 2, b"min"),  # (an ellipsis after the unit ends its word)
    (b"250   ms", 3, b"ms"),  # (an aligned column)
    (b"30\nseconds", 2, b"s"), (b"**30** minutes", 6, b"min"), (b"30-minute", 2, b"min"),
    (b"30 *minutes*", 2, b"min"), (b"30 \x1b[1mminutes\x1b[0m", 2, b"min"),
    ("30 \u200bminutes".encode(), 2, b"min"), ("30 m\u0456nutes".encode(), 2, b"min"),  # (a Cyrillic i)
    (b"40 MB/s", 2, b"mb/s"), (b"100 req/s", 3, b"req/s"), (b"100 requests per minute", 3, b"req/min"),  # (F13)
    (b"5 %", 1, b"%"), ("80 \u00b0C".encode(), 2, b"degc"), (b"30 m", 2, b"m"),
    (b"30" + b" " * 25 + b"s", 2, None),  # (more gap than a unit is read across)
    (b"30\n\nseconds", 2, None),  # (a paragraph's end)
    (b"2 US regions", 1, None), (b"3 D render", 1, None), (b"5 M users", 1, None), (b"30 Sec", 2, b"s"),  # (F18)
    (b"30s", 2, None), (b"30 s2", 2, None), (b"30 sec_x", 2, None), (b"30 apples", 2, None), (b"30 ", 2, None),
])
def test_unit_at_reads_the_unit_right_after_a_figure(text, end, unit):
    assert _unit_at(text, end) == unit


def test_every_unit_spelling_is_found_by_unit_leads():
    # (a spelling whose first byte unit_leads skips would never be read in a summary)
    for spelling in _UNITS:
        assert unit_leads(b"30 " + spelling).tolist() == [1], spelling


def test_a_summary_changing_the_unit_of_a_figure_after_a_non_ascii_sign_is_refused():
    found = find(_summarize("Wait \u224830 seconds then retry.", "Wait \u224830 minutes then retry."), "I1",
                 block="s", evidence__change="unit_changed")
    assert found.evidence["unit"] == "min"


# red team 115, F04: statements, list items or table rows reordered whole, their figures between
# the same words, were refused as traded; the digits of the names beside them are context too
@pytest.mark.parametrize("before, after", [
    ("db-01 has 12 GB, db-02 has 34 GB.", "db-02 has 34 GB, db-01 has 12 GB."),
    ("- db-01: 12 GB\n- db-02: 34 GB\n", "- db-02: 34 GB\n- db-01: 12 GB\n"),
    ("| db-01 | 12 |\n| db-02 | 34 |\n", "| db-02 | 34 |\n| db-01 | 12 |\n"),
])
def test_rows_reordered_whole_are_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


@pytest.mark.parametrize("before, after", [
    ("db-01 has 12 GB, db-02 has 34 GB.", "db-01 has 34 GB, db-02 has 12 GB."),
    ("- db-01: 12 GB\n- db-02: 34 GB\n", "- db-01: 34 GB\n- db-02: 12 GB\n"),
    ("| db-01 | 12 |\n| db-02 | 34 |\n", "| db-01 | 34 |\n| db-02 | 12 |\n"),
])
def test_figures_traded_between_named_rows_are_refused(before, after):
    find(_rewrite(before, after), "I2", evidence__change="traded_in_place")


# red team 116: a unit changed where the rule did not look (F01: the statement moved, the figure
# repeated, two blocks merged; F02: the figure written as another number; F03/F04: markup, a
# line break, colour codes, invisible or look-alike letters around it; F05: units off the list)
@pytest.mark.parametrize("before, after", [
    ("Timeout is 30 s. Retry after 5 min.", "Retry after 5 min. Timeout is 30 min."),
    ("Wait 30 seconds then retry.", "Wait 30 minutes then retry (30 at most)."),
    ("Wait 30\nseconds then retry.", "Wait 30\nminutes then retry."),
    ("Wait **30** seconds then retry.", "Wait **30** minutes then retry."),
    ("p99    250   ms\np50     12   ms\n", "p99    250   s\np50     12   ms\n"),
    ("Use a 30-minute timeout.", "Use a 30-hour timeout."),
    ("Throughput 40 MB/s.", "Throughput 40 MB/min."),
    ("Limit 100 requests per minute.", "Limit 100 requests per hour."),
    ("Max temp 80 \u00b0C.", "Max temp 80 \u00b0F."),
    ("Error budget 5 %.", "Error budget 5 ms."),
    ("Latency 30 millis.", "Latency 30 micros."),
    ("Wait 30 m.", "Wait 30 h."),
])
def test_a_unit_changed_anywhere_in_a_rewritten_block_is_refused(before, after):
    find(_rewrite(before, after), "I2", evidence__change="unit_changed")


@pytest.mark.parametrize("source, text", [
    ("Timeout 1,000 ms.", "Timeout 1000 s."),
    ("Wait 30 seconds then retry.", "Wait **30** minutes, then retry."),
    ("Wait 30 seconds then retry.", "Wait `30` minutes, then retry."),
    ("Wait 30 seconds then retry.", "Wait 30 *minutes*, then retry."),
    ("Wait 30 seconds then retry.", "Wait 30 \x1b[1mminutes\x1b[0m, then retry."),
    ("Wait 30 seconds then retry.", "Wait 30 \u200bminutes, then retry."),
    ("Wait 30 seconds then retry.", "Wait 30 m\u0456nutes, then retry."),
    ("Wait 30\nseconds then retry.", "Wait 30 minutes."),
    ("Wait **30** seconds then retry.", "Wait 30 minutes."),
    ("Wait 30 \x1b[1mseconds\x1b[0m then retry.", "Wait 30 minutes."),  # (colour codes in the source)
    ("Use a 30-second timeout.", "Use a 30 minute timeout."),
    ("Limit 100 req/s.", "Limit 100 req/min."),
])
def test_a_summary_changing_a_unit_however_written_is_refused(source, text):
    find(_summarize(source, text), "I1", block="s", evidence__change="unit_changed")


@pytest.mark.parametrize("before, after", [
    ("Timeout is 30 s. Retry after 5 min.", "Retry after 5 min. Timeout is 30 s."),
    ("Wait 30 seconds then retry.", "Wait 30 seconds then retry (30 at most)."),
    ("Wait 30\nseconds then retry.", "Wait 30\ns then retry."),
    ("Use a 30-minute timeout.", "Use a timeout of 30 minutes."),
])
def test_a_rewrite_keeping_its_units_is_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


@pytest.mark.parametrize("source, text", [
    ("Timeout 1,000 ms.", "Timeout 1000 ms."),
    ("Wait 30 seconds then retry.", "Wait **30** seconds, then retry."),
    ("Wait 30\nseconds then retry.", "Wait 30 seconds."),
    ("Use a 30-second timeout.", "Use a 30 second timeout."),
    ("Wait 30 \x1b[1mseconds\x1b[0m then retry.", "Wait 30 s."),
])
def test_a_summary_keeping_a_unit_however_written_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


def test_a_merge_changing_a_unit_is_refused():
    first, second = "Wait 30 seconds then retry.", "Disk holds 12 GB."
    pre = [tool("a", "tool:c1", first), tool("b", "tool:c2", second)]

    def merged(text):
        return gate_for({"tool:c1": first, "tool:c2": second}).check(
            pre, [blk("a", "tool", text, ["tool:c1", "tool:c2"])], operator="rewrite")

    find(merged("Wait 30 minutes then retry. Disk holds 12 GB."), "I2", evidence__change="unit_changed")
    assert_accepted(merged("Wait 30 seconds then retry. Disk holds 12 GB."), "lossless")


def _count_calls(monkeypatch, **functions: str) -> dict[str, int]:
    """Count the calls of the gate module's ``functions`` (label -> the function's name)."""
    from provgate import gate as gate_module

    calls = dict.fromkeys(functions, 0)
    for label, name in functions.items():
        real = getattr(gate_module, name)

        def counted(*args, _label=label, _real=real):
            calls[_label] += 1
            return _real(*args)

        monkeypatch.setattr(gate_module, name, counted)
    return calls


def test_a_source_is_read_once_for_many_figures(monkeypatch):
    # red team 116, F16: one search of the source a figure was quadratic in a long summary
    calls = _count_calls(monkeypatch, search="_units_of_figure", **{"pass": "unit_leads"})
    source = " ".join(f"step {n} took {n} ms." for n in range(200))
    find(_summarize(source, " ".join(f"Step {n}: {n} s." for n in range(200))), "I1", block="s",
         evidence__change="unit_changed")
    assert calls == {"search": 0, "pass": 2}  # (the summary's texts, then the source, once each)
    calls.update(search=0, **{"pass": 0})
    assert_accepted(_summarize(source, "Step 7: 7 ms."))
    assert calls == {"search": 1, "pass": 1}  # (a figure or few: searched for, no pass over the source)


def test_a_sources_keys_are_read_once_for_many_figures(monkeypatch):
    # the keys' units (red team 117, F06) are read as F16 asks: a few figures searched for, more
    # in one pass over the source (a summary of 300 figures searched 300 times was quadratic)
    from provgate import gate as gate_module

    calls = _count_calls(monkeypatch, search="_key_units_of_figure", **{"pass": "_key_units_of_figures"})
    source = "\n".join(f"step_{n}_ms: {n}" for n in range(300)) + "\n"
    honest = " ".join(f"Step {n}: {n} ms." for n in range(300))
    # (a figure of more than _KEY_LOOKS occurrences, "1" of "step_1_ms", "step_21_ms"..., goes to
    # the pass before _FEW_FIGURES are searched: red team 119, F23)
    assert_accepted(_summarize(source, honest))
    assert 1 <= calls["search"] <= gate_module._FEW_FIGURES and calls["pass"] == 1
    calls.update(search=0, **{"pass": 0})
    find(_summarize(source, honest.replace("299 ms", "299 s")), "I1", block="s", value="299",
         evidence__change="unit_changed")
    assert 1 <= calls["search"] <= gate_module._FEW_FIGURES and calls["pass"] == 1


@pytest.mark.parametrize("operator", ["rewrite", "prune"])
def test_a_new_block_a_lossless_edit_adds_keeps_units_and_polarity(operator):
    # red team 116, F14: only derived blocks were asked, so a new cited turn escaped both rules
    source = 'Wait 30 seconds then retry. Do not run "make deploy" today.'
    pre = [tool("t", "tool:c1", source)]

    def added(text):
        return gate_for({"tool:c1": source}).check(pre, [pre[0], blk("a", "assistant", text)], operator=operator)

    find(added("Note: wait 30 minutes [src:tool:c1]."), "I1", block="a", evidence__change="unit_changed")
    find(added('The user asked to run "make deploy" today [src:tool:c1].'), "I1", block="a",
         evidence__change="negation_dropped")
    assert_accepted(added('Note: wait 30 s, and do not run "make deploy" today [src:tool:c1].'))


# red team 117: stop 47's unit reader read too much into a figure (F13, F20, F23)

@pytest.mark.parametrize("before, after", [
    ("Rate limit: 100 req/min.", "Rate limit: 100 requests/min."),
    ("Rate limit: 100 req/min.", "Rate limit: 100 requests per minute."),
    ("Throughput 5 ops/s.", "Throughput 5 operations/s."),
    ("Throughput 5 ops/s.", "Throughput 5 op/s."),
    ("Ingest 40 events/s.", "Ingest 40 evts/s."),
    ("Alert at 3 errors/min.", "Alert at 3 errors per minute."),
])
def test_a_rate_is_a_count_per_its_unit_whatever_word_names_what_it_counts(before, after):
    # F13: what a rate counts is one name however it is abbreviated
    assert_accepted(_rewrite(before, after), "lossless")
    assert_accepted(_summarize(before, after))


@pytest.mark.parametrize("before, after, value", [
    ("Rate limit: 100 req/min.", "Rate limit: 100 req/s.", "100"),
    ("Rate limit: 100 requests/min.", "Rate limit: 100 errors/min.", "100"),  # (what it counts changed)
    ("Rate limit: 100 req/min.", "Rate limit: 100 requests per second.", "100"),
    ("Copy at 40 MB/s.", "Copy at 40 GB/s.", "40"),
])
def test_a_rate_per_another_unit_or_of_another_unit_is_refused(before, after, value):
    find(_rewrite(before, after), "I2", value=value, evidence__change="unit_changed")
    find(_summarize(before, after), "I1", value=value, evidence__change="unit_changed")


@pytest.mark.parametrize("before, after", [
    ("retries: 3\nbackoff: 3 seconds\nretention: 30 days\n", "retries: 3\ndays of retention: 30\nbackoff: 3 seconds\n"),
    ("retries: 3\nbackoff: 3 seconds\nretention: 30 days\n", "- retries: 3\n- days kept: 30\n- backoff: 3 seconds\n"),
    ("workers: 8\ndisk: 8 GB\nused: 80 %\n", "workers: 8\n% disk used: 80\ndisk: 8 GB\n"),
    ("retries 3\n- seconds to wait 5\n", "- seconds to wait 5\nretries 3\n"),
])
def test_the_first_word_of_the_next_row_or_item_is_no_unit(before, after):
    # F20: a figure ending a line took the next line's label as its unit
    assert_accepted(_rewrite(before, after), "lossless")
    assert_accepted(_summarize(before, after))


@pytest.mark.parametrize("text, figure, unit", [
    (b"Wait 30\nseconds then retry.", b"30", b"s"),  # prose wrapped onto the next line
    (b"Wait 30\nminutes [src:tool:c1].", b"30", b"min"),  # a citation's colon is no label's
    (b"retries: 3\ndays of retention: 30", b"3", None),
    (b"retries: 3\ndays = 30", b"3", None),
    (b"- retries: 3\n- days kept: 30", b"3", None),
    (b"retries 3\n+ days kept 30", b"3", None),
])
def test_a_unit_across_a_line_break_is_read_only_in_prose(text, figure, unit):
    assert _unit_at(text, text.index(figure) + len(figure)) == unit


@pytest.mark.parametrize("source, text", [
    ("Timeout 1,5 s.", "Timeout 1,5 min."),
    ("Latenz: 2,5 ms", "Latenz: 2,5 s"),
    ("Retry delays: 5,10,30 seconds.", "Retry delays: 5,10,30 minutes."),
])
def test_a_decimal_comma_or_a_list_keeps_its_unit(source, text):
    # F23: every comma was dropped (1,000 is 1000), so 1,5 was read as 15, a figure the source
    # never writes: nothing grounded its unit, and the changed one passed
    find(_summarize(source, text), "I1", evidence__change="unit_changed")
    find(_rewrite(source, text), "I2", evidence__change="unit_changed")


def test_only_a_thousands_separator_is_dropped_from_a_figure():
    assert _with_units(b"Wait 1,000 ms or 1,5 s or 5,10,30 seconds or 12,345.5 GB.") == {
        b"1000": {b"ms"}, b"1,5": {b"s"}, b"5,10,30": {b"s"}, b"12345.5": {b"gb"}}
    assert_accepted(_summarize("Wait 1,000 ms.", "Wait 1000 ms."))
    assert_accepted(_summarize("Timeout 1,5 s.", "Timeout 1,5 seconds."))


@pytest.mark.parametrize("source", [
    "Retrying in \x1b[1m30\x1b[0m seconds.",
    "Retrying in \x1b[1m30 seconds\x1b[0m.",
    "Retrying in 30\x1b[0m seconds.",
    "Retry after <b>30</b> seconds.",
    "<tr><td>retry after</td><td>30</td><td>seconds</td></tr>",
    # red team 118, F18: tput sgr0's character-set escape, an OSC 8 hyperlink, thin spaces
    "Retrying in \x1b[1m30\x1b(B\x1b[m seconds.",
    "Retry after \x1b]8;;http://x\x1b\\30\x1b]8;;\x1b\\ seconds.",
    "Retry after \x1b]8;;http://x\x0730\x1b]8;;\x07 seconds.",
    "Retry after 30&thinsp;seconds.",
    "Retry after 30&#8239;seconds.",
])
def test_a_coloured_or_tagged_figure_keeps_its_unit(source):
    # red team 117, F21: the code's "m" or the tag's ">" glued to the figure hid its unit
    find(_summarize(source, "Retry after 30 minutes."), "I1", value="30", evidence__change="unit_changed")
    assert_accepted(_summarize(source, "Retry after 30 seconds."))
    find(_rewrite(source, source.replace("seconds", "minutes")), "I2", value="30", evidence__change="unit_changed")
    assert_accepted(_rewrite(source, source.replace("seconds", "s")), "lossless")


def test_as_read_drops_colour_codes_and_blanks_tags():
    from provgate.gate import _as_read

    assert _as_read(b"in \x1b[1;33m30\x1b[0m s") == b"in 30 s"
    assert _as_read(b"<td>30</td><td>s</td>") == b" 30  s "
    assert _as_read(b"if i < 10 and j<k: wait") == b"if i < 10 and j<k: wait"
    text = b"plain 30 seconds"
    assert _as_read(text) is text


@pytest.mark.parametrize("source, lie, honest", [
    ("Sessions expire after 30 idle minutes.", "Sessions expire after 30 idle hours.", "Sessions expire after 30 minutes idle."),
    ("Keep audit logs for 30 calendar days.", "Keep audit logs for 30 calendar years.", "Audit logs are kept 30 days."),
    ("Wait 30 seconds before retrying.", "Wait 30 more minutes before retrying.", "Wait 30 more seconds before retrying."),
    ("| timeout | 30 | seconds |\n", "| timeout | 30 | minutes |\n", "| timeout | 30 | s |\n"),
])
def test_a_unit_behind_one_word_or_a_table_cell_border_is_read(source, lie, honest):
    # red team 117, F06: a word or a cell border between the figure and its unit hid the unit
    find(_summarize(source, lie), "I1", value="30", evidence__change="unit_changed")
    find(_rewrite(source, lie), "I2", value="30", evidence__change="unit_changed")
    assert_accepted(_summarize(source, honest))
    assert_accepted(_rewrite(source, honest), "lossless")


@pytest.mark.parametrize("text, figure, unit", [
    (b"30 idle minutes", b"30", b"min"), (b"30 more GB", b"30", b"gb"), (b"| 30 | seconds |", b"30", b"s"),
    (b"5 new hosts", b"5", None), (b"3 of 5 min", b"3", None), (b"2 x 30 s", b"2", None),
    (b"30 more s", b"30", None),  # (one letter after a word is no unit: "s" or "m" are too often words)
    (b"3 retries, 30 s", b"3", None), (b"30 idle minutes/s", b"30", b"min"),
])
def test_one_word_before_a_unit(text, figure, unit):
    assert _unit_at(text, text.index(figure) + len(figure)) == unit


@pytest.mark.parametrize("source, lie", [
    ("Max temperature 40 \u2103.", "Max temperature 40 \u2109."),
    ("Error budget 5 \u2030.", "Error budget 5 %."),
    ("Wait 30 seconds before retrying.", "Wait 30&nbsp;minutes before retrying."),
    ("Route length 5 km.", "Route length 5 miles."),
    ("Rate limit: 100 per hour.", "Rate limit: 100 per day."),
])
def test_more_unit_spellings_are_read(source, lie):
    # red team 117, F07
    value = next(w for w in lie.replace("&", " ").split() if w[0].isdigit())
    find(_summarize(source, lie), "I1", value=value, evidence__change="unit_changed")
    find(_rewrite(source, lie), "I2", value=value, evidence__change="unit_changed")
    assert_accepted(_rewrite(source, source.replace(" km", " kilometres").replace("per hour", "per h")
                             .replace("seconds", "secs").replace("\u2030", " \u2030").replace("\u2103", " \u2103")))


@pytest.mark.parametrize("source, lie, honest", [
    ("Max temperature 40 degrees C.", "Max temperature 40 degrees F.", "Max temperature 40 \u00b0C."),
    ("Bake at 200 degrees Celsius.", "Bake at 200 degrees Fahrenheit.", "Bake at 200 deg C."),
    ("Keep it under 40 \u2103.", "Keep it under 40 degrees F.", "Keep it under 40 degrees celsius."),
])
def test_degrees_with_their_scale_are_a_unit(source, lie, honest):
    # red team 117, F07: "degrees C" was no unit, so C -> F passed
    find(_summarize(source, lie), "I1", evidence__change="unit_changed")
    find(_rewrite(source, lie), "I2", evidence__change="unit_changed")
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("text, unit", [
    (b"30 degrees C", b"degc"), (b"30 deg f.", b"degf"), (b"30 degrees Celsius", b"degc"), (b"30 Fahrenheit", b"degf"),
    (b"30 more degrees F", b"degf"), (b"30 degrees", None), (b"30 degrees Cx", None), (b"30 degrees to the left", None),
])
def test_the_scale_of_degrees(text, unit):
    assert _unit_at(text, 2) == unit


def test_degrees_alone_name_no_scale():
    # an angle, or a temperature of either scale: a summary naming no scale, or one, is left be
    assert_accepted(_summarize("Rotate the panel 90 degrees.", "The panel is rotated 90 degrees."))
    assert_accepted(_summarize("Rotate the panel 90 degrees.", "The panel is rotated 90 \u00b0."))


@pytest.mark.parametrize("source, lie, honest", [
    ('{"timeout_ms": 300, "retries": 3}\n', "The timeout is 300 seconds.", "The timeout is 300 ms."),
    ("timeout (seconds): 30\n", "Timeout: 30 minutes.", "Timeout: 30 s."),
    ("TIMEOUT_SECONDS=30\nRETRIES=3\n", "It waits 30 minutes.", "It waits 30 seconds and retries 3 times."),
    ("timeoutMs: 1,500\n", "The timeout is 1500 seconds.", "The timeout is 1,500 milliseconds."),
    ("cache ttl [h] = 2\n", "The cache ttl is 2 days.", "The cache ttl is 2 hours."),
])
def test_a_unit_a_key_or_header_gives_the_figure_is_kept(source, lie, honest):
    # red team 117, F06: a unit written before the figure, in its key or header, was not read
    find(_summarize(source, lie), "I1", evidence__change="unit_changed")
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("text, figure, units", [
    (b'{"timeout_ms": 300}', b"300", {b"ms"}), (b"timeout (seconds): 30\n", b"30", {b"s"}),
    (b"TIMEOUT_S=30", b"30", {b"s"}), (b"timeoutMs: 300", b"300", {b"ms"}), (b"max_size_mb: 1,000", b"1000", {b"mb"}),
    (b"plan_b: 3", b"3", set()), (b"retries: 3", b"3", set()), (b"a_ms: 3000", b"300", set()),
    (b"angle_deg: 30", b"30", set()), (b"timeout_ms:\n300", b"300", set()), (b"x_ms = 2.5", b"2", set()),
])
def test_the_units_keys_give(text, figure, units):
    assert _key_units_of_figure(text, figure) == units


def test_a_count_of_repeats_given_a_unit_is_refused():
    # red team 118, F08: "3 times" had no unit, so giving it one ("3 s") was left be
    source = "Retry 3 times, then wait 5 s."
    find(_rewrite(source, "Retry 3 s, then wait 5 s."), "I2", value="3", evidence__change="unit_changed")
    find(_summarize(source, "Then wait 3 s again."), "I1", value="3", evidence__change="unit_changed")
    assert_accepted(_rewrite(source, "Retry 3 times; then wait 5 s."), "lossless")
    assert_accepted(_summarize(source, "It retries 3 times and waits 5 seconds."))


def test_a_unit_moved_from_one_figure_to_another_is_refused_on_a_rewrite():
    # red team 116, F01: a unit dropped from one figure and added to another, each left be alone
    found = find(_rewrite("Retry 3 times, wait 5 s.", "Retry 3 s, wait 5 times."), "I2", value="3",
                 evidence__change="unit_changed")
    assert (found.evidence["pre_unit"], found.evidence["post_unit"]) == ("times", "s")  # (a count: red team 118, F08)
    # moved between two mentions of one figure, or dropped, or added alone: left be
    assert_accepted(_rewrite("Sleep 5, that is 5 s.", "Sleep 5 s, that is 5."), "lossless")
    assert_accepted(_rewrite("Retry 3 times, wait 5 s.", "Retry 3 times, wait 5."), "lossless")
    assert_accepted(_rewrite("Retry 3 times, wait 5.", "Retry 3 times, wait 5 s."), "lossless")


# red team 118, F27: a rate written as one word ("rps", "qps") or "/" right after the figure
# ("100/h", "$5/month") is read with its period, as "100 req/s" and "$5 per month" are
@pytest.mark.parametrize("source, text, unit", [
    ("Limit: 100 req/min.", "Limit: 100 rps.", "req/s"),
    ("Limit: 100 req/min.", "Limit: 100 qps.", "query/s"),
    ("Rate limit: 100 requests/min.", "Rate limit: 100/h.", "count/h"),
    ("Cost: $5/month.", "Cost: $5/day.", "$ count/d"),
    ("Cost: $5 per month.", "Cost: $5/day.", "$ count/d"),
    ("Rate limit: 100/min.", "Rate limit: 100 requests per hour.", "req/h"),
])
def test_a_summary_changing_a_rates_period_is_refused(source, text, unit):
    found = find(_summarize(source, text), "I1", block="s", evidence__change="unit_changed")
    assert found.evidence["unit"] == unit


@pytest.mark.parametrize("before, after, pre_unit, post_unit", [
    ("Limit: 100 req/min.", "Limit: 100 rps.", "req/min", "req/s"),
    ("Limit: 100 requests/min.", "Limit: 100/h.", "req/min", "count/h"),
    ("Cost: $5/month.", "Cost: $5/day.", "$ count/mo", "$ count/d"),
])
def test_a_rates_period_changed_is_refused_on_a_rewrite(before, after, pre_unit, post_unit):
    found = find(_rewrite(before, after), "I2", evidence__change="unit_changed")
    assert (found.evidence["pre_unit"], found.evidence["post_unit"]) == (pre_unit, post_unit)


@pytest.mark.parametrize("source, text", [
    ("Limit: 100 req/min.", "Limit: 100 rpm."),
    ("Limit: 100 requests/s.", "Limit: 100 rps."),
    ("Limit: 100 queries/s.", "Limit: 100 qps."),
    ("Cost: $5 per month.", "Cost: $5/month."),
    ("Cost: $5/month.", "Cost: $5 per month."),
    # a rate of nothing named is any rate of its period: what it counts dropped or named
    ("Rate limit: 100 requests/min.", "Rate limit: 100/min."),
    ("Rate limit: 100/min.", "Rate limit: 100 requests per minute."),
    ("Use 1/2 of the 10 GB disk.", "Use half of the 10 GB disk, 1/2."),  # (no unit after "/")
])
def test_a_rate_written_another_way_is_accepted(source, text):
    assert_accepted(_summarize(source, text))
    assert_accepted(_rewrite(source, text), "lossless")


# red team 118, F09: a unit in brackets or a markdown link's text is read
@pytest.mark.parametrize("after", ["Wait 5 [minutes].", "Wait 5 [minutes](#units).", "Wait 5 [ min ]."])
def test_a_unit_in_brackets_is_read(after):
    found = find(_rewrite("Wait 5 seconds.", after), "I2", evidence__change="unit_changed")
    assert (found.evidence["pre_unit"], found.evidence["post_unit"]) == ("s", "min")
    found = find(_summarize("Wait 5 seconds.", after), "I1", block="s", evidence__change="unit_changed")
    assert found.evidence["unit"] == "min"


@pytest.mark.parametrize("after", ["Wait 5 [seconds].", "Wait 5 [s](#units).", "Wait [5] seconds."])
def test_the_unit_kept_in_brackets_is_accepted(after):
    assert_accepted(_rewrite("Wait 5 seconds.", after), "lossless")
    assert_accepted(_summarize("Wait 5 seconds.", after))


def test_unit_at_reads_rates_and_brackets():
    assert _unit_at(b"100/h", 3) == b"count/h"
    assert _unit_at(b"$5 / month", 2) == b"$ count/mo"
    assert _unit_at(b"100 rps", 3) == b"req/s"
    assert _unit_at(b"5 [minutes]", 1) == b"min"
    assert _unit_at(b"1/2 s", 1) is None and _unit_at(b"10/apples", 2) is None and _unit_at(b"10/ms2", 2) is None


# red team 118, F24: a unit glued to its figure ("30s", "100ms", "99.9%", "3x") is part of the
# grammar's number, so a summary writing the unit apart (or gluing it) stated a number no source
# held; a figure is now grounded by its number with the same unit however it is written
@pytest.mark.parametrize("source, text", [
    ("Timeout: 30s", "Timeout: 30 seconds."),
    ("Uptime 99.9 percent.", "Uptime 99.9%."),
    ("Backoff: 100ms, 200ms, 400ms.", "Backoff: 100 ms, 200 ms, 400 ms."),
    ("Processed 12\u202f500 rows", "Processed 12,500 rows"),  # (a narrow no-break space groups)
    ("Processed 12\u00a0500 rows", "Processed 12500 rows"),
    ("Run 3x per day", "Run 3 times per day"),
    ("Took 2 hrs.", "Took 2h."),
    ("Timeout: 30s", "The timeout is 30."),  # (the unit dropped, no word after the figure)
])
def test_a_summary_writing_a_glued_unit_apart_is_grounded(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("source, text, value", [
    ("Timeout: 30s", "Timeout: 30 minutes.", "30"),
    ("Backoff: 100ms, 200ms.", "Backoff: 100 s, 200 ms.", "100"),
    ("Run 3x per day", "Run 3 times per week", "3"),
    ("Processed 12\u202f500 rows", "Processed 12,600 rows", "12600"),
    # red team 120, F01: a plain blank between figures is as often a list; F06: "3x" alone a ratio
    ("Open ports: 80 443.", "Open port: 80443.", "80443"),
    ("Open ports: 80 443.", "Open port: 80,443.", "80443"),
    ("Digits: 3 141.", "Digits: 3,141.", "3141"),
    ("Speedup: 3x.", "Retried 3 times.", "3"),
    ("Took 2 hrs.", "Took 2d.", "2d"),
    ("Timeout: 30s", "Retry 30 retries.", "30"),  # (a word after it: no unit dropped)
])
def test_a_glued_unit_changed_is_still_refused(source, text, value):
    find(_summarize(source, text), "I1", block="s", value=value)


@pytest.mark.parametrize("source, text", [
    ("Revenue change this quarter: -12%.", "Revenue grew 12 % this quarter."),
    ("Revenue change this quarter: -12 percent.", "Revenue grew 12% this quarter."),
    ("Offset: -30s", "Offset: 30 seconds."),
    ("Offset: \u221230s", "Offset: 30 seconds."),
])
def test_a_signed_figure_grounds_no_unsigned_one_written_another_way(source, text):
    find(_summarize(source, text), "I1", block="s")


# red team 119, F05: a count in "times" is grounded by the figure a source writes bare, whatever
# unit another mention of that figure has; "N times a day" is the rate "N times per day"
@pytest.mark.parametrize("source, text", [
    ("retries=3, backoff 3 s\n", "Retries 3 times with a 3 s backoff."),
    ("Retries: 3\nTimeout: 3 s\n", "It will retry 3 times; timeout 3 s."),
    ("Backups run 5 times a day.", "Backups: 5 times per day."),
    ("Backups run 5 times a day.", "Backups: 5 times/day."),
    ("Backups: 5 times per day.", "Backups run 5 times a day."),
    ("Backups: 5 times/day.", "Backups run 5 times every day."),
])
def test_a_count_of_a_figure_written_bare_or_a_count_a_period_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


def test_a_count_of_a_figure_written_bare_on_a_rewrite_is_accepted():
    assert_accepted(_rewrite("Retries: 3. Timeout: 3 s.", "Retries: 3 times. Timeout: 3 s."), "lossless")
    assert_accepted(_rewrite("Backups run 5 times a day.", "Backups run 5 times per day."), "lossless")


@pytest.mark.parametrize("source, text, unit", [
    ("Backups run 5 times a day.", "Backups run 5 times an hour.", "times/h"),
    ("Backups: 5 times per day.", "Backups run 5 times a week.", "times/w"),
    ("Backoff 3 s.", "Retries 3 times.", "times"),  # (no bare 3 in the source)
    ("timeout_ms: 3, backoff 3 s\n", "Retries 3 times.", "times"),  # (3 has a key's unit)
])
def test_a_count_no_bare_figure_grounds_or_its_period_changed_is_refused(source, text, unit):
    found = find(_summarize(source, text), "I1", block="s", evidence__change="unit_changed")
    assert found.evidence["unit"] == unit


def test_a_counts_period_changed_is_refused_on_a_rewrite():
    found = find(_rewrite("Backups run 5 times a day.", "Backups run 5 times an hour."), "I2",
                 evidence__change="unit_changed")
    assert (found.evidence["pre_unit"], found.evidence["post_unit"]) == ("times/d", "times/h")
    assert _unit_at(b"5 times a day", 1) == b"times/d" and _unit_at(b"5 Times Each Week", 1) == b"times/w"
    assert _unit_at(b"5 times a lot", 1) == b"times" and _unit_at(b"5 times", 1) == b"times"


# red team 119, F27: "(s)" glued to a label's word is its plural, not the key unit seconds; the
# word is the unit where it spells one
@pytest.mark.parametrize("source, honest, lie", [
    ("Retention day(s): 7\n", "Retention: 7 days.", "Retention: 7 weeks."),
    ("Backoff minute(s): 5\n", "Backoff: 5 minutes.", "Backoff: 5 seconds."),
    ("Window hour(s): 2\n", "Window: 2 hours.", "Window: 2 days."),
    ("Attempt(s): 3\nTimeout (s): 3\n", "Tried 3 times, timeout 3 s.", "Timeout: 3 min."),
    ("ttl [h] = 2\n", "The ttl is 2 hours.", "The ttl is 2 s."),
])
def test_a_plural_marker_is_no_unit_and_a_header_unit_is_kept(source, honest, lie):
    assert_accepted(_summarize(source, honest))
    find(_summarize(source, lie), "I1", block="s", evidence__change="unit_changed")


@pytest.mark.parametrize("text, figure, units", [
    # (a duration's glued "(s)" is its seconds, fail closed: red team 120, F19)
    (b"Retention day(s): 7", b"7", {b"d"}), (b"Attempt(s): 3", b"3", set()), (b"timeout(s): 5", b"5", {b"s"}),
    (b"timeout (s): 5", b"5", {b"s"}), (b"ttl [h] = 2", b"2", {b"h"}), (b"Size (GB): 20", b"20", {b"gb"}),
])
def test_the_units_of_a_plural_or_a_bracketed_header(text, figure, units):
    assert _key_units_of_figure(text, figure) == units


# red team 119, F06: a key's suffix that is no unit there: "_min" a minimum (minutes only against a
# period stated), "_per_hour" a rate's period
@pytest.mark.parametrize("source, honest, lie", [
    ("Sizes are in MB.\nmemory_min: 512\n", "memory_min is 512 MB.", None),
    ("All sizes in GB.\ndisk_min: 20\n", "disk_min: 20 GB.", None),
    ("timeout_min: 5\n", "The timeout is 5 minutes.", "The timeout is 5 s."),
    ("rate_per_hour: 100\n", "Rate: 100 per hour.", "Rate: 100 per minute."),
    ("max_requests_per_minute: 60\n", "At most 60 requests/min.", "At most 60 requests/s."),
    ("maxRequestsPerSecond: 60\n", "At most 60 requests/s.", "At most 60 requests/h."),
    ("timeout_ms: 300\n", "Timeout: 300 ms.", "Timeout: 300 s."),
])
def test_a_keys_minimum_or_rate_suffix_is_read_as_such(source, honest, lie):
    assert_accepted(_summarize(source, honest))
    if lie is not None:
        find(_summarize(source, lie), "I1", block="s", evidence__change="unit_changed")


def test_a_figure_of_many_occurrences_reads_its_keys_in_one_pass(monkeypatch):
    # red team 119, F23: a key was looked for at each occurrence of the figure (100,000 "1"s: 1 s)
    from provgate import gate as gate_module

    calls = _count_calls(monkeypatch, look="_key_unit_before", **{"pass": "_key_units_of_figures"})
    assert_accepted(_summarize("1 " * 20000, "Wait 1 s."))
    assert calls["look"] <= gate_module._KEY_LOOKS and calls["pass"] == 1
    calls.update(look=0, **{"pass": 0})
    assert_accepted(_summarize("a_b: 1 " * 20000, "Wait 1 s."))
    assert calls["look"] <= gate_module._KEY_LOOKS and calls["pass"] == 1
    calls.update(look=0, **{"pass": 0})
    find(_summarize("n: 1 " * 20000 + "\ntimeout_ms: 1\n", "Wait 1 s."), "I1", block="s",
         evidence__change="unit_changed")  # (the key past the occurrences looked at is read)
    assert calls["look"] <= gate_module._KEY_LOOKS and calls["pass"] == 1


@pytest.mark.parametrize("text", [
    b'{"timeout_ms": 300, "retries": 3}', b"timeout (seconds): 30\nttl [h] = 2\nRetention day(s): 7\n",
    b"TIMEOUT_S=30 timeoutMs: 1,500 rate_per_hour: 100 memory_min: 512 angle_deg: 30 Attempt(s): 3",
    b"max_requests_per_minute: 60, plan_b: 3, x_ms = 2.5, a_ms: 3000, \"ttl_h\": '4'",
    b"offset_ms: -300\ntimeout_ms:\n  400\n{\"a_ms\": [500]}\nt_s => 30\nu_ms:\n600\n",
    b"t_ms: 300, 400, -500\nr: 3, 4\nv_s = [1, 2 ,3]\nw_ms:\n  7, 8\nx_ms: " + b", ".join(b"%d" % i for i in range(100)),
    b"".join(b"k%d_ms: %d\nv%d = %d s\n" % (i, i, i, i) for i in range(50)),
    # (YAML sequences: red team 120, F13)
    b"timeout_ms:\n  - 300\n  - 400\n  - '500'\nr:\n  - 3\n  - 4\nd_s:\n- 7\n- 8 h\n- 9\nq_ms: 1\n- 2\n",
    b"a_ms:\n  - 1\n  - 2, 3\n  - 4\nb_s:\n  - 5 x\n  - 6\nc_h:\n" + b"".join(b"  - %d\n" % i for i in range(60)),
    # (comment and blank lines, a micro sign: red team 123, F12)
    b"a_ms:\n  # per stage\n  - 300\n  - 400\nb_s:\n\n  - 5\n  # x\n\n  - 6\nc_h:  # c\n  7\nd_\xc2\xb5s: 8\ne: #9\n  - 10\n",
    b"url: http://a#b\n  - 11\nx: 1\n# y\n  - 12\nz_ms: 5\n# note\n  - 13\n",
    b"a_ms:\n  - 1  # one\n  - 2 # two\n\n  # three\n  - '3'  # x\nb_s:\n  - 4 #5\n  - 6\n",
])
def test_the_two_passes_over_keys_agree(monkeypatch, text):
    from provgate import gate as gate_module

    monkeypatch.setattr(gate_module, "_KEYS_DENSE", 0)  # (one look a ":")
    looked = gate_module._key_units_of_figures(text)
    monkeypatch.setattr(gate_module, "_KEYS_DENSE", 10**9)  # (one search of key and figure)
    assert gate_module._key_units_of_figures(text) == looked
    assert looked == {f: u for f in looked if (u := gate_module._key_units_of_figure(text, f))}


# red team 119, F04: a temperature's scale in more spellings ("deg. F", "degrees (F)", "° F", the
# ordinal sign "ºF") and kelvin
@pytest.mark.parametrize("source, lie", [
    ("Max temp: 30 degrees C.", "Max temp: 30 deg. F."),
    ("Max temp: 30 degrees C.", "Max temp: 30 degrees (F)."),
    ("Max temp: 30 \u00b0C.", "Max temp: 30 \u00b0 F."),
    ("Max temp: 30 \u00b0C.", "Max temp: 30 \u00baF."),
    ("Max temp: 30 degrees C.", "Max temp: 30 kelvin."),
])
def test_a_temperatures_scale_changed_in_more_spellings_is_refused(source, lie):
    find(_summarize(source, lie), "I1", block="s", evidence__change="unit_changed")
    find(_rewrite(source, lie), "I2", evidence__change="unit_changed")


@pytest.mark.parametrize("source, honest", [
    ("Max temp: 30 degrees C.", "Max temp: 30 \u00b0C."),
    ("Max temp: 30 degrees C.", "Max temp: 30 deg. C."),
    ("Max temp: 30 \u00b0C.", "Max temp: 30 \u00b0 C."),
    ("Max temp: 30 \u00b0C.", "Max temp: 30 degrees (C)."),
    ("Max temp: 300 kelvin.", "Max temp: 300 kelvins."),
    ("Rotate it 30 deg. Fine.", "Rotate it 30 deg. Then check."),  # (no scale: a word after the dot)
])
def test_a_temperatures_scale_kept_in_more_spellings_is_accepted(source, honest):
    assert_accepted(_summarize(source, honest))
    assert_accepted(_rewrite(source, honest), "lossless")


# red team 119, F13: entities read as a browser shows them (numeric ones generally, blank names in
# any case) and terminal sequences of every kind, so a unit behind one is read
_HIDDEN_BLANKS = ["&#32;", "&#x20;", "&hairsp;", "&#x200A;", "&NBSP;", "&#00160;", "&numsp;", "&#8198;",
                  "\x1b= ", " \x1bP1$r0m\x1b\\", " \x1b]8;;https://x.example/" + "a" * 2100 + "\x1b\\"]


@pytest.mark.parametrize("blank", _HIDDEN_BLANKS)
def test_a_unit_behind_an_entity_or_a_terminal_sequence_is_read(blank):
    source = f"Retrying in 30{blank}seconds."
    find(_rewrite(source, source.replace("seconds", "minutes")), "I2", value="30", evidence__change="unit_changed")
    find(_summarize(source, "Retrying in 30 minutes."), "I1", value="30", evidence__change="unit_changed")
    assert_accepted(_summarize(source, "Retrying in 30 s."))
    assert_accepted(_rewrite(source, source.replace("seconds", "s")), "lossless")


def test_as_read_reads_entities_and_terminal_sequences():
    from provgate.gate import _as_read

    assert _as_read(b"30&#32;s &#109;in &amp; &#0; &#xD800; &bogus;") == b"30 s min &amp; &#0; &#xD800; &bogus;"
    assert _as_read(b"a\x1b7b\x1b(Bc\x1bP1$r\x1b\\d\x1b]0;t\x07e") == b"abcde"
    assert _as_read(b"x\x1b]unterminated 30 s") == b"xunterminated 30 s"  # (no string end: its two bytes alone)


# red team 119, F14: more key and header forms: a table's header column, "=>", a negative value,
# YAML's value on the next (indented) line, a JSON list
@pytest.mark.parametrize("source, lie, honest", [
    ("| service | timeout (s) |\n|---|---|\n| api | 30 |\n", "The api timeout is 30 min.", "The api timeout is 30 s."),
    ("| service | ms |\n|:--|--:|\n| api | 250 |\n", "The api takes 250 s.", "The api takes 250 ms."),
    ("timeout_seconds => 30\n", "Timeout 30 min.", "Timeout 30 seconds."),
    ("offset_ms: -300\n", "Offset -300 s.", "Offset -300 ms."),
    ("timeout_ms:\n  300\n", "Timeout 300 s.", "Timeout 300 ms."),
    ('{"timeout_ms": [300]}', "Timeout 300 s.", "Timeout 300 ms."),
])
def test_more_key_and_header_forms_give_their_unit(source, lie, honest):
    find(_summarize(source, lie), "I1", block="s", evidence__change="unit_changed")
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("text, units", [
    (b"| service | timeout (s) |\n|---|---|\n| api | 30 |\n| web | 40 |\n", {b"30": {b"s"}, b"40": {b"s"}}),
    (b"service | size_mb\n--- | ---\napi | 1,000\n\nafter | 7\n", {b"1000": {b"mb"}}),
    (b"| name | retries |\n|---|---|\n| api | 3 |\n", {}),  # (no unit in the header)
    (b"Timeout (s)\n---\n30\n", {}),  # (a heading, no table)
    (b"| a | t (s) |\n|---|---|\n| x | 30 ms |\n", {}),  # (a cell of more than a figure)
])
def test_header_units(text, units):
    from provgate.gate import _header_units

    assert _header_units(text) == units


def test_a_later_figure_of_a_list_after_a_key_keeps_its_unit():
    # red team 119, F14: "timeout_ms: 300, 400" -> "400 s" was accepted
    find(_summarize("timeout_ms: 300, 400\n", "Timeouts: 300 ms and 400 s."), "I1", block="s", value="400",
         evidence__change="unit_changed")
    assert_accepted(_summarize("timeout_ms: 300, 400\n", "Timeouts: 300 ms and 400 ms."))
    assert _key_units_of_figure(b"timeout_ms: [300, -400]", b"400") == {b"ms"}
    assert _key_units_of_figure(b"retries: 3, 4", b"4") == set()
    assert _key_units_of_figure(b"a_ms: 1\n2, 3", b"3") == set()  # (a list on the next line is none)


# red team 120, F02: a bare figure grounds a count only where a word before it names what the
# block counts ("workers=5" grounds no "Retries 5 times"); F19: a unit in brackets glued to its
# key ("delay(ms): 300"), and a duration's glued "(s)" ("timeout(s) = 30"), are the key's unit
@pytest.mark.parametrize("source, text, value", [
    ("retries=3, workers=5, backoff 5 s\n", "Retries 5 times with a 5 s backoff.", "5"),
    ("timeout 30 s; nodes: 30\n", "Retries 30 times.", "30"),
    ("delay(ms): 300\n", "The delay is 300 s.", "300"),
    ("latency(ms): 250\n", "Latency: 250 s.", "250"),
    ("timeout(s) = 30\n", "Timeout: 30 minutes.", "30"),
])
def test_a_count_or_a_glued_key_unit_changed_is_refused(source, text, value):
    find(_summarize(source, text), "I1", block="s", value=value)


@pytest.mark.parametrize("source, text", [
    ("retries=3, backoff 3 s\n", "Retries 3 times with a 3 s backoff."),
    ("Retries: 3\nTimeout: 3 s\n", "It will retry 3 times; timeout 3 s."),
    ("max_retries=3, backoff 3 s\n", "Retry 3 times."),
    ("delay(ms): 300\n", "The delay is 300 ms."),
    ("Retention day(s): 7\n", "Retention: 7 days."),
    ("Attempt(s): 3\n", "Tried 3 times."),
])
def test_a_count_named_or_a_glued_key_unit_kept_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


# red team 120, F10: a rate of nothing named ("100/h") is no byte rate ("100 GB/h"), nor the
# reverse, and a plural noun after it names what it counts ("100/min errors" is no "100 req/min")
@pytest.mark.parametrize("source, text, unit", [
    ("Transfer: 100 GB/h.", "Handles 100/h requests.", "req/h"),
    ("Transfer: 100 GB/h.", "Handles 100/h.", "count/h"),
    ("Limit: 100 req/min.", "Limit: 100/min errors.", "error/min"),
    ("Limit: 100/min.", "Copies 100 MB/min.", "mb/min"),
])
def test_a_rate_of_nothing_named_grounds_no_measure_nor_another_count(source, text, unit):
    found = find(_summarize(source, text), "I1", block="s", evidence__change="unit_changed")
    assert found.evidence["unit"] == unit


@pytest.mark.parametrize("before, after, pre_unit, post_unit", [
    ("Transfer: 100 GB/h.", "Transfer: 100/h requests.", "gb/h", "req/h"),
    ("Limit: 100 req/min.", "Limit: 100/min errors.", "req/min", "error/min"),
])
def test_a_rate_of_nothing_named_changing_what_it_counts_is_refused_on_a_rewrite(before, after, pre_unit, post_unit):
    found = find(_rewrite(before, after), "I2", evidence__change="unit_changed")
    assert (found.evidence["pre_unit"], found.evidence["post_unit"]) == (pre_unit, post_unit)


@pytest.mark.parametrize("source, text", [
    ("Rate limit: 100 requests/min.", "Rate limit: 100/min."),
    ("Rate limit: 100 req/min.", "Rate limit: 100/min requests."),
    ("Rate limit: 100/min.", "Rate limit: 100/min always."),  # (no noun after it)
    ("Backups: 5/day.", "Backups run 5 times a day."),  # (a count of repeats is a count)
])
def test_a_rate_of_nothing_named_keeping_what_it_counts_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


def test_unit_at_reads_the_noun_a_rate_of_nothing_named_counts():
    assert _unit_at(b"100/h requests", 3) == b"req/h"
    assert _unit_at(b"100/min errors", 3) == b"error/min"
    assert _unit_at(b"100/min for each", 3) == b"count/min"
    assert _unit_at(b"100/min GB", 3) == b"count/min"


# red team 120, F11: a currency's sign before a figure is part of its unit: a count made money
# ("5/month" -> "$5/month"), money made a count, or one currency made another is refused
@pytest.mark.parametrize("source, text, unit", [
    ("Seats: 5/month.", "Cost: $5/month.", "$ count/mo"),
    ("Cost: $5/month.", "Seats: 5/month.", "count/mo"),
])
def test_a_currency_added_removed_or_changed_on_a_figure_is_refused(source, text, unit):
    found = find(_summarize(source, text), "I1", block="s", evidence__change="unit_changed")
    assert found.evidence["unit"] == unit
    found = find(_rewrite(source, text), "I2", evidence__change="unit_changed")
    assert found.evidence["post_unit"] == unit


def test_a_currency_changed_is_refused():
    # ("\u20ac5" is the grammar's identifier: refused as a fact no source holds, and as a unit)
    assert not _summarize("Cost: $5 per month.", "Cost: \u20ac5/month.").accepted
    assert not _rewrite("Cost: $5 per month.", "Cost: \u20ac5 per month.").accepted
    assert not _summarize("Cost: \u00a35 per month.", "Cost: $5 per month.").accepted
    assert _same_unit(b"$ count/mo", b"$ req/mo") and not _same_unit(b"$ count/mo", "\u20ac count/mo".encode())
    assert not _same_unit(b"$ count/mo", b"count/mo") and not _same_unit(b"count/mo", b"$ count/mo")


@pytest.mark.parametrize("source, text", [
    ("Cost: $5 per month.", "Cost: $5/month."),
    ("Cost: \u20ac5 per month.", "Cost: \u20ac5/month."),
])
def test_a_currency_kept_on_a_figure_is_accepted(source, text):
    assert_accepted(_rewrite(source, text), "lossless")
    assert_accepted(_summarize(source, text))


# red team 123, F17: the currency's code or name after a rate's figure is its sign before it
@pytest.mark.parametrize("source", ["Price: 5 USD/month.", "Price: 5 dollars/month."])
def test_a_currency_named_after_a_rate_is_its_sign(source):
    assert_accepted(_summarize(source, "Price: $5/month."))
    assert not _summarize(source, "Price: $5/day.").accepted
    assert not _summarize(source.replace("USD", "EUR").replace("dollars", "euros"), "Price: $5/month.").accepted
    assert _same_unit(b"$ count/mo", b"usd/mo") and _same_unit(b"dollars/mo", b"$ count/mo")
    assert not _same_unit(b"$ count/mo", b"eur/mo") and not _same_unit(b"$ count/mo", b"usd/d")


def test_unit_at_reads_a_currency_before_the_figure():
    assert _unit_at(b"$5/month", 2) == b"$ count/mo"
    assert _unit_at("\u20ac5 per month".encode(), 4) == "\u20ac count/mo".encode()
    assert _unit_at(b"x5/month", 2) == b"count/mo" and _unit_at(b"$5", 2) is None


# red team 120, F13: a YAML sequence under a unit key ("timeout_ms:\n  - 300\n  - 400") gives each
# item the key's unit, as the JSON list and "k: 300, 400" do
@pytest.mark.parametrize("source, text, value", [
    ("timeout_ms:\n  - 300\n  - 400\n", "Timeout: 400 s.", "400"),
    ("timeout_ms:\n  - 300\n", "Timeout: 300 s.", "300"),
    ("timeout_ms:\n- 300\n- 400\n- 500\n", "Timeouts of 300 ms, 400 ms and 500 s.", "500"),
    ("retry:\n  delay_s:\n    - 5\n    - \"10\"\n", "Retry delays: 5 s, then 10 minutes.", "10"),
])
def test_a_yaml_sequence_under_a_unit_key_keeps_its_unit(source, text, value):
    find(_summarize(source, text), "I1", block="s", value=value, evidence__change="unit_changed")


@pytest.mark.parametrize("source, text", [
    ("timeout_ms:\n  - 300\n  - 400\n", "Timeout: 400 ms."),
    ("timeout_ms:\n  - 300\n  - 400\n", "Timeouts: 300 ms, then 400 ms."),
    ("timeouts:\n  - 300\n  - 400\n", "Timeout: 400 s."),  # (the key names no unit)
])
def test_a_yaml_sequence_under_a_key_keeping_its_unit_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


def test_the_units_a_yaml_sequence_under_a_key_gives():
    assert _key_units_of_figure(b"timeout_ms:\n  - 300\n  - 400\n", b"400") == {b"ms"}
    assert _key_units_of_figure(b"timeout_ms:\n  - 300\n", b"300") == {b"ms"}
    assert _key_units_of_figure(b"timeout_ms: 300\n- 400\n", b"400") == set()  # (no sequence of the key's)
    assert _key_units_of_figure(b"timeout_ms:\n  - 300 s\n  - 400\n", b"400") == set()  # (an item with more)
    assert _key_units_of_figure(b"x: 10 - 5\n", b"5") == set()


# red team 120, F18: a footnote's bracket between a figure and its unit ("5 [1] minutes") is passed
# over to the unit after it; a bracket that holds a unit ("5 [minutes]", "5 [s]") is still read
@pytest.mark.parametrize("after", ["Wait 5 [1] minutes.", "Wait 5 [^1] minutes.", "Wait 5 [a] minutes.",
                                   "Wait 5 [12]\tminutes.", "Wait 5 [^note] min."])
def test_a_unit_after_a_footnote_is_read(after):
    before = after.replace("minutes", "seconds").replace(" min.", " s.")  # (the footnote kept)
    found = find(_rewrite(before, after), "I2", evidence__change="unit_changed")
    assert (found.evidence["pre_unit"], found.evidence["post_unit"]) == ("s", "min")
    found = find(_summarize("Wait 5 seconds [1].", after), "I1", block="s", evidence__change="unit_changed")
    assert found.evidence["unit"] == "min"


@pytest.mark.parametrize("source, text", [
    ("Wait 5 seconds [1].", "Wait 5 [1] seconds."),
    ("Wait 5 [1] seconds.", "Wait 5 seconds [1]."),
    ("Wait 5 [1] seconds.", "Wait 5 s."),  # (a summary may drop the footnote)
])
def test_a_unit_after_a_footnote_kept_is_accepted(source, text):
    assert_accepted(_summarize(source, text))
    if "[1]" in text:
        assert_accepted(_rewrite(source, text), "lossless")


def test_unit_at_passes_over_a_footnote_only():
    assert _unit_at(b"5 [1] minutes", 1) == b"min" and _unit_at(b"5 [^a] ms", 1) == b"ms"
    assert _unit_at(b"5 [s]", 1) == b"s" and _unit_at(b"5 [minutes]", 1) == b"min"
    assert _unit_at(b"5 [s] minutes", 1) == b"s"  # (a bracket that spells a unit is that unit)
    assert _unit_at(b"5 [1234] minutes", 1) is None and _unit_at(b"5 [1]", 1) is None
    text = b"Wait 5 [1] minutes, 7 [a] days, 8 [^2] h; x[9] [b]"
    assert _figures_with_units(text, _unit_leads(text)) == {b"5": {b"min"}, b"7": {b"d"}, b"8": {b"h"}}


# red team 120, F12: "K" apart from a figure with no word after it ("300 K") is kelvin's symbol or
# a thousand: its own unit, kelvin written another way and never a scale of degrees; "100 K
# users" and a glued "100K" are no such unit
@pytest.mark.parametrize("source, lie", [
    ("Keep it at 30 degrees C.", "Keep it at 30 K."),
    ("Max temp: 300 K.", "Max temp: 300 degrees C."),
    ("Max temp: 300 K", "Max temp: 300 \u00b0F."),
    ("Max temp: 300 kelvin.", "Max temp: 300 \u00b0C."),
    # red team 123, F20: the kelvin sign, and the one-character degree units
    ("The cryostat holds 300 \u212a.", "The cryostat holds 300 \u00b0C."),
    ("Keep it at 30 \u2103.", "Keep it at 30 \u2109."),
    ("Keep it at 30 \u2103.", "Keep it at 30 K."),
])
def test_a_figure_in_k_grounds_no_degrees_nor_the_reverse(source, lie):
    find(_summarize(source, lie), "I1", block="s", evidence__change="unit_changed")
    find(_rewrite(source, lie), "I2", evidence__change="unit_changed")


@pytest.mark.parametrize("source, honest", [
    ("Keep it at 300 kelvin.", "Keep it at 300 K."),
    ("Keep it at 300 K.", "Keep it at 300 kelvin."),
    ("Max temp: 300 K.", "The max temp is 300 K and falling."),
    ("We have 100 K users.", "We have 100 K customers."),  # (a noun after it: no unit)
    ("The cryostat holds 300 \u212a.", "The cryostat holds 300 K."),
    ("Keep it at 30 \u2103.", "Keep it at 30 \u00b0C."),
])
def test_a_figure_in_k_kept_is_accepted(source, honest):
    assert_accepted(_summarize(source, honest))
    assert_accepted(_rewrite(source, honest), "lossless")


def test_unit_at_reads_k_only_apart_and_before_no_word():
    assert _unit_at(b"300 K.", 3) == b"K" and _unit_at(b"300 K", 3) == b"K" and _unit_at(b"300 K and up", 3) == b"K"
    assert _unit_at(b"100 K users", 3) is None and _unit_at(b"100 k.", 3) is None
    assert _same_unit(b"K", b"kelvin") and not _same_unit(b"K", b"degc") and not _same_unit(b"K", b"kb")
    text = b"Max 300 K; 100 K users; 5K"
    assert _figures_with_units(text, _unit_leads(text)) == {b"300": {b"K"}}


# red team 120, F17 (its unit half): a glued "x" with a period after it ("5x per day", "5x a day")
# is the count rate "5 times a day"; a glued "m" after a key naming a duration ("Timeout: 30m")
# is minutes (elsewhere still metres or minutes, no unit re-spelled)
@pytest.mark.parametrize("source, text", [
    ("Backups run 5 times a day.", "Backups run 5x per day."),
    ("Backups run 5 times a day.", "Backups run 5x a day."),
    ("Backups run 5x a day.", "Backups run 5 times per day."),
    ("Timeout: 30m.", "Timeout: 30 minutes."),
    ("connect_timeout = '30m'\n", "The connect timeout is 30 min."),
    ("Timeout: 30 minutes.", "Timeout: 30m."),
])
def test_a_glued_count_rate_or_a_durations_minutes_respelled_is_grounded(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("source, text", [
    ("Backups run 5 times a day.", "Backups run 5x per week."),
    ("Backups run 5 times a day.", "Backups run 5x."),  # (a ratio, no count)
    ("Timeout: 30m.", "Timeout: 30 hours."),
    ("Distance: 30m.", "Distance: 30 minutes."),  # (no duration's key: metres or minutes)
    ("Timeout: 30 meters.", "Timeout: 30m."),
])
def test_a_glued_count_rate_or_minutes_changed_is_refused(source, text):
    assert not _summarize(source, text).accepted


# red team 121, F01/F02/F14: a bare figure grounds a count in "times" only as the value of a key
# (or before a noun) whose words name a count of repeats, whole words or a key's parts split at
# "_", "-" and camel case (no 4-letter prefix: "timeout", "node_count", "password_length"), or the
# key the block's count qualifies; the subject before the key, a neighbouring key, a delay of
# retries ("retry_delay") never ground it
@pytest.mark.parametrize("source, text, value", [
    ("retries=3\ntimeout=30\nbackoff 30 s\n", "Retries 30 times.", "30"),
    ("retries=3\nnode_count=8\nbackoff 8 s\n", "Retries 8 times.", "8"),
    ("retries=3\npassword_length=12\nbackoff 12 s\n", "Retries 12 times.", "12"),
    ("retries=3\nloopback_port=8080\nbackoff 8080 ms\n", "Retries 8080 times.", "8080"),
    ("retries=3\ntime_zone_offset=2\nbackoff 2 s\n", "Retries 2 times.", "2"),
    ("retries=3\nround_robin_weight=7\nbackoff 7 s\n", "Retries 7 times.", "7"),
    ("alpha: workers=5, backoff 5 s\n", "Alpha retries 5 times.", "5"),
    ("payments: workers=4, timeout 4 s\n", "Payments retries 4 times.", "4"),
    ("retries=3, retry_delay=5, backoff 5 s\n", "Retries 5 times with a 5 s backoff.", "5"),
    ("Retries=3 on 5 workers, backoff 5 s.\n", "Retries 5 times.", "5"),
    ("The retry queue has 8 workers; backoff 8 s.\n", "Retries 8 times.", "8"),
    ("retries=3, workers=5, backoff 5 s\n", "Each worker retries 5 times.", "5"),
    ("retries=3, workers=5, backoff 5 s\n", "Workers: 5. Retries 5 times.", "5"),
    ("Workers per retry: 5, backoff 5 s\n", "Retries 5 times.", "5"),
    ("timeout=30, backoff 30 s\n", "The timeout is 30 times.", "30"),  # (a duration's key is no count)
    ("backoff limit (s): 5\n", "Retried 5 times.", "5"),  # (a key with a unit in brackets is no count)
])
def test_a_count_grounded_only_by_a_key_naming_repeats_lies_refused(source, text, value):
    find(_summarize(source, text), "I1", block="s", value=value, evidence__change="unit_changed")


@pytest.mark.parametrize("source, text", [
    ("retries=3, backoff 3 s\n", "Retries 3 times with a 3 s backoff."),
    ("spec:\n  backoffLimit: 3\n  activeDeadlineSeconds: 3\n", "The job is retried 3 times."),
    ("flaky_reruns: 3\nrerun_delay: 3 s\n", "Flaky tests are retried 3 times, 3 s apart."),
    ("max_restarts: 3\nbackoff: 3 s\n", "The pod is restarted up to 3 times, 3 s apart."),
    ('{"max_retries": 4, "timeout_s": 4}', "It retries 4 times; timeout 4 s."),
    ("MAX_RETRY_COUNT=2\nSLEEP=2 s\n", "Retried 2 times."),
    ("Retries per job: 6, backoff 6 s\n", "Each job retries 6 times."),
    ("polls=5, interval 5 s\n", "Polls 5 times, 5 s apart."),  # (the key the count qualifies)
    ("It makes 3 attempts, 3 s apart.\n", "It tries 3 times."),  # (a noun of repeats after it)
])
def test_a_count_grounded_by_a_key_naming_repeats_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("key, counts", [
    (b"retries", True), (b"max_retries", True), (b"backoffLimit", True), (b"MAX_RETRIES", True),
    (b"flaky_reruns", True), (b"retry_count", True), (b"Retry time(s)", True), (b"Attempt(s)", True),
    (b"retry_delay", False), (b"timeout", False), (b"node_count", False), (b"password_length", False),
    (b"loopback_port", False), (b"round_robin_weight", False), (b"alpha: workers", False), (b"time", False),
    (b"Workers per retry", False), (b"Retries per job", True),
])
def test_the_keys_that_name_a_count_of_repeats(key, counts):
    from provgate.gate import _key_parts, _names_repeats

    parts = _key_parts(key)
    assert bool(parts) and _names_repeats(parts) is counts
    assert _key_parts(b"backoff limit (s)") == [] and _key_parts(b"retry_wait(ms)") == []


def test_counts_and_bare_figures_are_each_read_once(monkeypatch):
    # red team 121, F11: each figure searched the whole summary (and the source) for its count's
    # words, O(figures x text); now each text is read once whatever the number of figures
    calls = _count_calls(monkeypatch, said="_counted_words", bare="_bare_counts")
    n = 300
    source = "\n".join(f"job{i}: workers={i + 10}, backoff {i + 10} s" for i in range(n))
    summary = "\n".join(f"job{i} retries {i + 10} times." for i in range(n))
    find(_summarize(source, summary), "I1", block="s", evidence__change="unit_changed")
    assert calls == {"said": 1, "bare": 1}
    calls.update(said=0, bare=0)
    source = "\n".join(f"job{i}: max_retries={i + 10}, backoff {i + 10} s" for i in range(n))
    assert_accepted(_summarize(source, summary))
    assert calls == {"said": 1, "bare": 1}


# red team 121, F10: a glued "x" after a verb of repeating ("retried 3x") or before a comparative
# ("2x faster") is the count or multiplier "N times" is; one after a verb of change is a ratio
# even with a period ("grew 3x per week"), and "Speedup: 3x" still none (red team 120, F06)
@pytest.mark.parametrize("source, text", [
    ("The job was retried 3x before failing.", "The job was retried 3 times before failing."),
    ("Data is replicated 3x across zones.", "Data is replicated 3 times across zones."),
    ("Backups run 3x weekly.", "Backups run 3 times weekly."),
    ("The cache made reads 2x faster.", "The cache made reads 2 times faster."),
    ("Backups: 3x per day.", "Backups 3 times per day."),
])
def test_a_glued_x_counting_repeats_or_multiplying_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("source, text", [
    ("Throughput grew 3x per week.", "Retried 3 times per week."),
    ("Throughput grew 3x.", "Retried 3 times."),
    ("Speedup: 3x.", "Retried 3 times."),
    ("Latency went up 4x per day.", "Backups run 4 times per day."),
])
def test_a_glued_x_of_a_ratio_grounds_no_count(source, text):
    find(_summarize(source, text), "I1", block="s")


# red team 121, F07: "age(s)", "time(s)" are plurals (ages, occurrences), no seconds; a duration
# key's "(s)" stays seconds, but a unit written after its figure wins ("45 (minutes)")
@pytest.mark.parametrize("source, text", [
    ("| Name | Age(s) |\n|---|---|\n| Bob | 30 |\n", "Bob is 30 years old."),
    ("Patient age(s): 30\n", "Patient age: 30 years."),
    ("Retry time(s): 3\n", "Retries 3 times."),
    ("Job runtime(s): 45 (minutes)\n", "Jobs run for 45 minutes."),
    ("timeout(s) = 30\n", "Timeout: 30 s."),
])
def test_a_plural_key_or_a_unit_after_the_figure_is_read_before_a_durations_seconds(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("source, text, value", [
    ("timeout(s) = 30\n", "Timeout: 30 minutes.", "30"),
    ("Job runtime(s): 45 (minutes)\n", "Jobs run for 45 seconds.", "45"),
    # red team 121, F08: a micro sign in the bracket, a key-value table row, a key in prose, a
    # unit named "in ms" before the ":"
    ("latency(\u00b5s): 250\n", "Latency: 250 ms.", "250"),
    ("latency(\u03bcs): 250\n", "Latency: 250 ms.", "250"),
    ("| key | value |\n|---|---|\n| delay(ms) | 300 |\n", "Delay: 300 s.", "300"),
    ("| delay(ms) | 300 |\n", "Delay: 300 s.", "300"),
    ("The delay(ms) is 300.\n", "The delay is 300 s.", "300"),
    ("Delay(s) in ms: 300\n", "Delay: 300 s.", "300"),
    ("Timeout in seconds: 30\n", "Timeout: 30 ms.", "30"),
])
def test_a_keys_unit_in_a_bracket_a_row_or_prose_is_kept(source, text, value):
    find(_summarize(source, text), "I1", block="s", value=value, evidence__change="unit_changed")


@pytest.mark.parametrize("source, text", [
    ("latency(\u00b5s): 250\n", "Latency: 250 \u00b5s."),
    ("| key | value |\n|---|---|\n| delay(ms) | 300 |\n", "Delay: 300 ms."),
    ("The delay(ms) is 300.\n", "The delay is 300 ms."),
    ("Delay(s) in ms: 300\n", "Delay: 300 ms."),
    ("| host | 300 |\n", "Host count: 300 s."),  # (a row whose key names no unit gives none)
    ("| min | 3 |\n| max | 9 |\n", "Latency: min 3 ms, max 9 ms."),  # (a unit's word alone: a statistic)
    ("Nodes in US: 5\n", "There are 5 nodes in the US, 5 ms apart."),  # ("US" is no microseconds)
])
def test_a_keys_unit_in_a_bracket_a_row_or_prose_kept_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


def test_the_key_units_of_prose_and_rows():
    from provgate.gate import _key_units_of_figures, _row_key_units

    assert _key_units_of_figure(b"The delay(ms) is 300.", b"300") == {b"ms"}
    assert _key_units_of_figure(b"The delay is 300.", b"300") == set()  # (no bracket: no key)
    assert _key_units_of_figure(b"Size in GB: 20", b"20") == {b"gb"}
    assert _key_units_of_figures(b"a delay(ms) of 300, Size in GB: 20") == {b"300": {b"ms"}, b"20": {b"gb"}}
    assert _row_key_units(b"| delay(ms) | 300 |\n| name | 5 |\n| 7 | 8 |") == {b"300": {b"ms"}}


# red team 121, F13: a no-break or thin space between two figures is as often a list's separator
# (HTML's "&nbsp;" decoded); a single group joins only after the narrow no-break space locales
# group with, before a word or unit it counts, or where the text groups a figure of more groups
# with the same blank
@pytest.mark.parametrize("source, text", [
    ("Open ports: 80\u00a0443.", "Open port: 80443."),
    ("Ports: 80\u2009443", "Port: 80,443."),
    ("Open ports: 80\u00a0443 and 22.", "Open port: 80,443."),  # (a function word after it)
    ("Open ports: 80\u00a0443; rows: 1\u2009250\u2009000.", "Open port: 80,443."),  # (another blank groups)
])
def test_two_figures_a_no_break_space_separates_are_no_grouped_number(source, text):
    find(_summarize(source, text), "I1", block="s")


@pytest.mark.parametrize("source, text", [
    ("Processed 12\u00a0500 rows", "Processed 12,500 rows"),
    ("Rows: 12\u202f500.", "Rows: 12,500."),
    ("Rows: 12\u00a0500\u00a0000.", "Rows: 12,500,000."),
    ("Rows: 12\u00a0500. Bytes: 1\u00a0250\u00a0000.", "Rows: 12,500."),
    ("Processed 12\u2009500 rows and 3 files.", "Processed 12,500 rows."),
])
def test_a_figure_a_no_break_space_groups_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


# red team 123, F02: a count's head after a word of waiting is that wait's maximum
# ("backoff_max", "retry_interval_max"), a key's "time" a duration unless "times"/"time(s)"
@pytest.mark.parametrize("source, text, value", [
    ("retries: 3\nbackoff_max: 30\nrequest timeout: 30 s\n", "Retries up to 30 times.", "30"),
    ("retries: 3\nbackoffMax: 30\nrequest timeout: 30 s\n", "Retries up to 30 times.", "30"),
    ("retries: 3\nretry_interval_max: 30\nrequest timeout: 30 s\n", "Retries up to 30 times.", "30"),
    ("retries: 3\nretry_max_time: 120\ndeadline 120 s\n", "Retries up to 120 times.", "120"),
    ("retries: 3\nretry_time: 10\nbackoff: 10 s\n", "Retries 10 times.", "10"),
    ("reconnect_time: 10\nidle timeout 10 s\n", "Reconnects 10 times.", "10"),
])
def test_a_waits_maximum_or_time_key_grounds_no_count(source, text, value):
    find(_summarize(source, text), "I1", block="s", value=value, evidence__change="unit_changed")


@pytest.mark.parametrize("source, text", [
    ("max_retries: 30\ntimeout 30 s\n", "Retries up to 30 times."),
    ("Retry time(s): 3\nbackoff 3 s\n", "Retries 3 times."),
    ("RETRY_TIMES = 3\nbackoff 3 s\n", "Retries 3 times."),
    ("spec:\n  backoffLimit: 3\n  activeDeadlineSeconds: 3\n", "The job is retried 3 times."),
])
def test_a_count_key_beside_a_wait_is_still_a_count(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("key, counts", [
    (b"backoff_max", False), (b"backoffMax", False), (b"retry_interval_max", False), (b"retry_max_time", False),
    (b"retry_time", False), (b"reconnect_time", False), (b"retry_times", True), (b"Retry time(s)", True),
    (b"backoffLimit", True), (b"retry_total", True),
])
def test_the_keys_of_a_waits_maximum_name_no_count(key, counts):
    from provgate.gate import _key_parts, _names_repeats

    assert _names_repeats(_key_parts(key)) is counts


# red team 123, F04: an "x" after a verb of repeating that a noun, a determiner or a comparative
# follows multiplies it or is a ratio, no count
@pytest.mark.parametrize("source, text", [
    ("We ran 8x H100 for the training job.", "We ran the training job 8 times on H100."),
    ("We deployed 4x m5.large behind the balancer.", "We deployed 4 times behind the balancer."),
    ("Parquet files are stored 3x smaller than CSV.", "Parquet files are stored 3 times."),
    ("Memory copied 2x the buffer size.", "Memory was copied 2 times."),
    ("We ran 8x nodes overnight.", "We ran 8 times overnight."),
])
def test_a_glued_x_multiplying_what_follows_a_repeat_verb_grounds_no_count(source, text):
    find(_summarize(source, text), "I1", block="s")


@pytest.mark.parametrize("source, text", [
    ("The job was retried 3x before failing.", "The job was retried 3 times before failing."),
    ("The job was retried 3x.", "The job was retried 3 times."),
    ("Backups run 3x weekly.", "Backups run 3 times weekly."),
    ("The task ran 3x a day.", "The task ran 3 times a day."),
    ("It was retried 3x, then gave up.", "It was retried 3 times."),
])
def test_a_glued_x_after_a_repeat_verb_at_a_clauses_end_still_counts(source, text):
    assert_accepted(_summarize(source, text))


# red team 123, F16: the count a glued "x" states is a unit its source gives the figure, beside
# the figure's other units
@pytest.mark.parametrize("source, text", [
    ("The job was retried 3x and took 3 s.", "The job was retried 3 times."),
    ("The job was retried 3x; timeout 3 s.", "The job was retried 3 times with a 3 s timeout."),
    ("Backups: 5x per day, 5 s each.", "Backups run 5 times per day."),
])
def test_a_glued_x_count_beside_another_unit_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("source, text", [
    ("Speedup: 3x; the job took 3 s.", "The job was retried 3 times."),
    ("Throughput grew 3x and took 3 s.", "The job was retried 3 times."),
    ("We ran 8x H100 for 8 s.", "We ran it 8 times."),
    ("Backups: 5x per day, 5 s each.", "Backups run 5 times per hour."),
])
def test_a_glued_x_ratio_beside_another_unit_grounds_no_count(source, text):
    find(_summarize(source, text), "I1", block="s")


# red team 123, F05: a count written without a ":"/"=" key (a flag, a call's argument, a key-value
# table row, prose's verb), or a key matched to the summary's verb by their shared stem, grounds
# "N times" beside the figure's other units; a wait, a worker or a delay still grounds none
@pytest.mark.parametrize("source, text", [
    ("curl --retry 3 --retry-delay 3 https://x\nEach delay is 3 s.\n", "curl retries 3 times, 3 s apart."),
    ("@retry(times=3)\n# backoff 3 s\n", "The call is retried 3 times."),
    ("Retry(total=3, backoff_factor=3)\ntimeout 3 s\n", "The call is retried 3 times."),
    ("@retry(stop=stop_after_attempt(3))\nwait 3 s\n", "It is attempted up to 3 times."),
    ("The client retries up to 3 and backs off 3 s.\n", "The client retries up to 3 times."),
    ("Retry count 3, delay 3 s\n", "Retries 3 times."),
    ("| key | value |\n|---|---|\n| retries | 3 |\n| delay | 3 s |\n", "Retries 3 times."),
    ("runs: 3\nduration: 3 s\n", "The job ran 3 times."),
    ("executions: 3\nduration: 3 s\n", "It was executed 3 times."),
    ("Failures: 3\nbackoff: 3 s\n", "The job failed 3 times."),
])
def test_a_count_written_without_a_key_or_by_its_verbs_stem_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("source, text, value", [
    ("curl --retry 3 --retry-delay 5 https://x\nEach delay is 5 s.\n", "curl retries 5 times.", "5"),
    ("run --workers 5 --retry 3\nbackoff 5 s\n", "Retries 5 times.", "5"),
    ("@retry(times=3, delay=5)\n# backoff 5 s\n", "The call is retried 5 times.", "5"),
    ("retry(delay=5)\n# backoff 5 s\n", "The call is retried 5 times.", "5"),
    ("Retry(backoff_max=5)\ntimeout 5 s\n", "The call is retried 5 times.", "5"),
    ("time.sleep(5)\nbackoff 5 s\n", "The call is retried 5 times.", "5"),
    ("| key | value |\n|---|---|\n| workers | 5 |\n| delay | 5 s |\n", "Retries 5 times.", "5"),
    ("| retry_delay | 5 |\n| timeout | 5 s |\n", "Retries 5 times.", "5"),
    ("The pool retries 5 jobs and backs off 5 s.\n", "The pool retries 5 times.", "5"),
    ("Retries after 5 s.\n", "Retries 5 times.", "5"),
    ("timeout: 30\nbackoff 30 s\n", "The job ran 30 times.", "30"),
    ("retries=3\nnode_count=8\nbackoff 8 s\n", "Retries 8 times.", "8"),
])
def test_a_wait_a_worker_or_a_delay_written_without_a_key_grounds_no_count(source, text, value):
    find(_summarize(source, text), "I1", block="s", value=value)


# (and a table's header column over a bare figure, an ordinal "attempt 3 of 3": red team 123, F05)
@pytest.mark.parametrize("source, text", [
    ("| job | retries | delay |\n|---|---|---|\n| sync | 3 | 3 s |\n", "The sync job retries 3 times."),
    ("attempt 3 of 3 failed after 3 s\n", "The job was attempted 3 times."),
])
def test_a_count_in_a_header_column_or_an_ordinal_of_attempts_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("source, text, value", [
    ("| job | workers | delay |\n|---|---|---|\n| sync | 5 | 5 s |\n", "The sync job retries 5 times.", "5"),
    ("| job | retry_delay | timeout |\n|---|---|---|\n| sync | 5 | 5 s |\n", "The sync job retries 5 times.", "5"),
    ("attempt 2 of 5 failed after 5 s\n", "The job was attempted 5 times.", "5"),
])
def test_a_header_column_of_no_repeats_or_an_attempts_total_grounds_no_count(source, text, value):
    find(_summarize(source, text), "I1", block="s", value=value)


# red team 123, F12: a micro sign in a key's suffix ("latency_\u00b5s"), a YAML sequence whose first item
# follows a comment or blank line, and a footnote's bracket of words ("5 [see note] minutes")
@pytest.mark.parametrize("source, text, value", [
    ("latency_\u00b5s: 250\n", "Latency: 250 ms.", "250"),
    ("latency_\u03bcs: 250\n", "Latency: 250 ms.", "250"),
    ("timeout_ms:\n  # per stage\n  - 300\n  - 400\n", "Timeout: 400 s.", "400"),
    ("timeout_ms:\n  # per stage\n  - 300\n  - 400\n", "Timeout: 300 s.", "300"),
    ("timeout_ms:\n\n  - 300\n  - 400\n", "Timeout: 400 s.", "400"),
    ("timeout_ms:  # per stage\n  - 300\n  - 400\n", "Timeout: 400 s.", "400"),
    ("timeout_ms:\n  - 300\n  # the second\n\n  - 400\n", "Timeout: 400 s.", "400"),
    ("timeout_ms:\n  # per stage\n  300\n", "Timeout: 300 s.", "300"),
    ("timeout_ms:\n  - 300  # stage 1\n  - 400  # stage 2\n", "Timeout: 400 s.", "400"),
    ("Wait 5 seconds.\n", "Wait 5 [see note] minutes.", "5"),
    ("Wait 5 seconds.\n", "Wait 5 [sic] minutes.", "5"),
])
def test_a_micro_key_a_commented_sequence_or_a_bracket_of_words_keeps_its_unit(source, text, value):
    find(_summarize(source, text), "I1", block="s", value=value, evidence__change="unit_changed")


@pytest.mark.parametrize("source, text", [
    ("latency_us: 250\n", "Latency: 250 us."),
    ("latency_\u00b5s: 250\n", "Latency: 250 \u00b5s."),
    ("latency_\u03bcs: 250\n", "Latency: 250 us."),
    ("timeout_ms:\n  # per stage\n  - 300\n  - 400\n", "Timeouts: 300 ms, then 400 ms."),
    ("timeout_ms:\n\n  - 300\n  - 400\n", "Timeout: 400 ms."),
    ("timeouts:\n  # per stage\n  - 300\n  - 400\n", "Timeout: 400 s."),  # (the key names no unit)
    ("url: http://a#b\n  - 300\n", "Timeout: 300 s."),  # (a "#" in a word is no comment)
    ("Wait 5 [see note] minutes.\n", "Wait 5 minutes."),
    ("Wait 5 seconds [see note].\n", "Wait 5 [see note] seconds."),
])
def test_a_micro_key_a_commented_sequence_or_a_bracket_of_words_kept_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


# red team 125, F09: "usec", "µsec" and "nsec" (a key's suffix or a unit after a figure) are
# microseconds and nanoseconds, and a micro sign glued to a key ("latencyµs") its suffix
@pytest.mark.parametrize("source, text, value", [
    ("latency_\u00b5sec: 250\n", "Latency: 250 ms.", "250"),
    ("latency_usec: 250\n", "Latency: 250 ms.", "250"),
    ("latency_nsec: 250\n", "Latency: 250 ms.", "250"),
    ("latency\u00b5s: 250\n", "Latency: 250 ms.", "250"),
    ("latency\u03bcs: 250\n", "Latency: 250 ms.", "250"),
    ("Latency was 250 usec.\n", "Latency was 250 ms.", "250"),
    ("Latency was 250 \u00b5sec.\n", "Latency was 250 ms.", "250"),
])
def test_a_usec_or_nsec_key_or_a_glued_micro_sign_keeps_its_unit(source, text, value):
    find(_summarize(source, text), "I1", block="s", value=value, evidence__change="unit_changed")


@pytest.mark.parametrize("source, text", [
    ("latency_\u00b5sec: 250\n", "Latency: 250 \u00b5s."),
    ("latency_usec: 250\n", "Latency: 250 microseconds."),
    ("latency_nsec: 250\n", "Latency: 250 ns."),
    ("latency\u00b5s: 250\n", "Latency: 250 us."),
    ("Latency was 250 usec.\n", "Latency was 250 \u00b5s."),
    ("Latency was 250 \u00b5sec.\n", "Latency was 250 usec."),
])
def test_a_usec_or_nsec_key_or_a_glued_micro_sign_kept_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


def test_the_units_of_a_usec_key_and_a_glued_micro_sign():
    assert _key_units_of_figure("latency_\u00b5sec: 250\n".encode(), b"250") == {b"us"}
    assert _key_units_of_figure(b"latency_usec: 250\n", b"250") == {b"us"}
    assert _key_units_of_figure(b"latency_nsec: 250\n", b"250") == {b"ns"}
    assert _key_units_of_figure("latency\u00b5s: 250\n".encode(), b"250") == {b"us"}
    assert _unit_at("250 \u00b5sec".encode(), 3) == b"us" and _unit_at(b"250 nsecs", 3) == b"ns"


def test_the_units_of_a_micro_key_a_commented_sequence_and_a_bracket_of_words():
    assert _key_units_of_figure("latency_\u00b5s: 250\n".encode(), b"250") == {b"us"}
    assert _key_units_of_figure(b"timeout_ms:\n  # per stage\n\n  - 300\n  - 400\n", b"400") == {b"ms"}
    assert _key_units_of_figure(b"timeout_ms: 5\n# note\n  - 300\n", b"300") == set()  # (no key's ":" above)
    assert _key_units_of_figure(b"timeout_ms: # 300\n", b"300") == set()  # (a figure in the comment)
    assert _unit_at(b"5 [see note] minutes", 1) == b"min" and _unit_at(b"5 [sic] s", 1) == b"s"
    assert _unit_at(b"5 [ms] later", 1) == b"ms" and _unit_at(b"5 [ms, p99] later", 1) == b"ms"  # (a unit's bracket, as before)
    assert _unit_at(b"5 [second try] minutes", 1) == b"s"  # (a bracket whose first word spells a unit: that unit, as before)
    text = b"Wait 5 [see note] minutes, 7 [citation needed] days"
    assert _figures_with_units(text, _unit_leads(text)) == {b"5": {b"min"}, b"7": {b"d"}}


# red team 125, F06: a bracket after a figure that names a unit further in ("5 [in ms]") gives the
# figure that unit; a bracket of words too long to be a note, with no unit, the unit after it
_BRACKET_NOTE = "Wait 5 [a very long editorial note that goes on and on] minutes.\n"


@pytest.mark.parametrize("source, text, value", [
    ("The p99 latency was 5 [in ms] on Monday.\n", "The p99 latency was 5 s on Monday.", "5"),
    ("The p99 latency was 5 [unit: ms] on Monday.\n", "The p99 latency was 5 s on Monday.", "5"),
    ("Latency: 250 [in \u00b5s]\n", "Latency: 250 ms.", "250"),
    (_BRACKET_NOTE, "Wait 5 seconds.", "5"),
])
def test_a_unit_named_inside_a_bracket_of_words_is_kept(source, text, value):
    found = find(_summarize(source, text), "I1", block="s", value=value, evidence__change="unit_changed")
    assert found.evidence["unit"] in ("s", "ms")


@pytest.mark.parametrize("source, text", [
    ("The p99 latency was 5 [in ms] on Monday.\n", "The p99 latency was 5 ms on Monday."),
    ("The p99 latency was 5 [unit: ms] on Monday.\n", "The p99 latency was 5 ms on Monday."),
    ("Latency: 250 [in \u00b5s]\n", "Latency: 250 \u00b5s."),
    (_BRACKET_NOTE, "Wait 5 minutes."),
    ("Wait 5 [see note] minutes.\n", "Wait 5 minutes."),
])
def test_a_unit_named_inside_a_bracket_of_words_grounds_the_same_unit(source, text):
    assert_accepted(_summarize(source, text))


def test_the_unit_a_bracket_of_words_names():
    assert _unit_at(b"5 [in ms] on", 1) == b"ms" and _unit_at(b"5 [unit: ms] x", 1) == b"ms"
    assert _unit_at("5 [in \u00b5s]".encode(), 1) == b"us" and _unit_at(b"5 [approx MB]", 1) == b"mb"
    assert _unit_at(_BRACKET_NOTE.encode(), 6) == b"min"  # (too long for a note, no unit: the one after it)
    assert _unit_at(b"5 [see note] minutes", 1) == b"min" and _unit_at(b"5 [MB/s] x", 1) == b"mb/s"  # (as before)
    assert _unit_at(b"5 [second try] minutes", 1) == b"s" and _unit_at(b"5 [x]", 1) is None
    text = b"Wait 5 [in ms], 7 [unit: h] and 9 [see note] days"
    assert _figures_with_units(text, _unit_leads(text)) == {b"5": {b"ms"}, b"7": {b"h"}, b"9": {b"d"}}


# red team 126, F08: a ROUND bracket that is the figure's unit label ("5 (in ms)", "5 (ms)", "30
# (unit: seconds)") gives the figure that unit, as "[in ms]" does; an aside of words whose first
# word spells no unit ("5 (see below) minutes") is passed over to the unit after it; other round
# brackets, asides and citations, give no unit, as before
@pytest.mark.parametrize("source, text, value", [
    ("The p99 latency was 5 (in ms) on Monday.\n", "The p99 latency was 5 s on Monday.", "5"),
    ("The p99 latency was 5 (ms) on Monday.\n", "The p99 latency was 5 s on Monday.", "5"),
    ("Timeout: 30 (unit: seconds).\n", "Timeout: 30 minutes.", "30"),
    ("Throughput: 40 (in MB/s) per node.\n", "Throughput: 40 GB/s per node.", "40"),
    ("Latency: 250 (in \u00b5s)\n", "Latency: 250 ms.", "250"),
    ("Wait 5 (see below) minutes.\n", "Wait 5 seconds.", "5"),
    ("Timeout is 30 (thirty) seconds.\n", "Timeout is 30 minutes.", "30"),  # (an aside: no label)
    ("Rate: 40 (requests per minute).\n", "Rate: 40 requests per second.", "40"),
])
def test_a_unit_named_by_a_round_bracket_is_kept(source, text, value):
    find(_summarize(source, text), "I1", block="s", value=value, evidence__change="unit_changed")
    find(_rewrite(source, text), "I2", value=value, evidence__change="unit_changed")


@pytest.mark.parametrize("source, text", [
    ("The p99 latency was 5 (in ms) on Monday.\n", "The p99 latency was 5 ms on Monday."),
    ("The p99 latency was 5 (ms) on Monday.\n", "The p99 latency was 5 milliseconds on Monday."),
    ("Timeout: 30 (unit: seconds).\n", "Timeout: 30 s."),
    ("Wait 5 (see below) minutes.\n", "Wait 5 minutes."),
    # (asides and citations: no unit read from them, the honest summaries as before)
    ("Retries: 5 (see below).\n", "Retries: 5."),
    ("The job ran 3 (over two hours) times.\n", "The job ran 3 times."),
    ("See section 3 (b) for 5 ms of latency.\n", "Section 3 (b): 5 ms of latency."),
    ("We had 5 (in total) failures.\n", "We had 5 failures."),
    ("Error 404 (Not Found) after 30 s.\n", "After 30 s: error 404."),
    ("Timeout is 30 (thirty) seconds.\n", "Timeout is 30 seconds."),
    ("HTTP 200 (OK) in 35 ms.\n", "HTTP 200 OK in 35 ms."),
    ("CPU: 4 (cores), memory: 512 (MB).\n", "4 cores and 512 MB of memory."),
    ("Python 3 (3.11.4) is installed.\n", "Python 3.11.4 is installed."),
    ("Ran 120 tests (3 failed) in 4.2 s.\n", "120 tests ran in 4.2 s; 3 failed."),
    ("Latency: 5 (p50), 9 (p99) ms.\n", "Latency p50 5 ms, p99 9 ms."),
])
def test_a_round_bracket_grounds_the_same_unit_and_asides_stay_accepted(source, text):
    assert_accepted(_summarize(source, text))


def test_the_unit_a_round_bracket_names():
    assert _unit_at(b"5 (in ms) on", 1) == b"ms" and _unit_at(b"5 (unit: seconds).", 1) == b"s"
    assert _unit_at(b"5 (ms)", 1) == b"ms" and _unit_at(b"5 (measured in ms)", 1) == b"ms"
    assert _unit_at(b"5 (see below) minutes", 1) == b"min" and _unit_at(b"5 (see below).", 1) is None
    # (a one-letter bracket is a list mark as often; a bracket of more than the unit, no label)
    # (and a bracket of words, one of which spells a unit, has that unit: red team 127, F04)
    assert _unit_at(b"3 (b) x", 1) is None and _unit_at(b"5 (ms, p99)", 1) == b"ms"
    assert _unit_at(b"3 (over two hours) jobs", 1) == b"h" and _unit_at(b"404 (Not Found)", 3) is None
    # (a unit of one letter, "min", "us" or "second" among other words only after a label's word)
    assert _unit_at(b"40 (p99, in s).", 2) == b"s" and _unit_at(b"40 (p99 s).", 2) is None
    assert _unit_at(b"5 (for us) x", 1) is None and _unit_at(b"5 (min. wait) x", 1) is None
    # (a label's word spells a unit, or is a rate: "(thirty)" is an aside, passed over)
    assert _unit_at(b"30 (thirty) seconds", 2) == b"s" and _unit_at(b"5 (OK) s", 1) == b"s"
    assert _unit_at(b"40 (req/s)", 2) == b"req/s" and _unit_at(b"40 (requests per minute)", 2) == b"req/min"
    text = b"Wait 5 (in ms), 7 (unit: h) and 9 (see note) days"
    assert _figures_with_units(text, _unit_leads(text)) == {b"5": {b"ms"}, b"7": {b"h"}, b"9": {b"d"}}


# red team 123, F06: a figure a no-break, narrow no-break or thin space follows (or, in a list,
# precedes) is a figure of its source, with the unit or word after the space, as after a blank;
# the figures a no-break space groups (red team 121, F13) are the one number only
@pytest.mark.parametrize("source, text", [
    ("Disk: 12\u00a0GB\n", "Disk: 12 GB."),
    ("Latency: 12\u202fms\n", "Latency: 12 ms."),
    ("CPU: 12\u00a0%\n", "CPU: 12%."),
    ("The job had 3\u00a0retries and 3\u00a0s backoff.\n", "The job had 3 retries."),
    ("Replicas: 12\u00a0\nZones: 3\n", "Replicas: 12."),
    ("Open ports: 80\u00a0443\n", "Open ports: 80 and 443."),
    ("Disk: 12\u2009GB\n", "Disk: 12 GB."),
    ("Wait 30\u00a0seconds.\n", "Wait 30 s."),
    ("Node\u00a0db-01 has 12\u00a0GB\u00a0free\n", "db-01 has 12 GB free."),
    ("Total: 1\u00a0234\u00a0567 rows\n", "Total: 1,234,567 rows."),
    # (red team 125, F05: a figure the spaces group, a unit after it, is that one number with the unit)
    ("Disk: 1\u00a0234\u00a0GB\n", "Disk: 1,234 GB."),
    ("Disk: 1\u00a0234 GB\n", "Disk: 1,234 GB."),
    ("Disk: 1\u202f234\u202fGB\n", "Disk: 1234 GB."),
    ("Disk: 1\u00a0234\u00a0567\u00a0GB\n", "Disk: 1,234,567 GB."),
    ("Balance: 12\u00a0500\u00a0\u20ac\n", "Balance: 12,500 \u20ac."),
    ("Sizes: 1234\u00a0567 GB\n", "Sizes: 567 GB."),  # (four digits before: no grouping, a list)
    # (a v-version is the version written bare: red team 133, F05, "Pushed 1.2" of "tag v1.2 pushed")
    ("Version v1.2\u00a0released\n", "Release 1.2 is out."),
])
def test_a_figure_beside_a_no_break_space_is_grounded(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("source, text, value", [
    ("Wait 30\u00a0seconds.\n", "Wait 30 minutes.", "30"),          # (its unit kept)
    ("Latency: 12\u202fms\n", "Latency: 12 s.", "12"),
    ("Disk: 12\u00a0GB\n", "Disk: 12 TB.", "12"),
    ("Disk: 12\u00a0GB\n", "Disk: 13 GB.", "13"),
    ("Total: 1\u00a0234\u00a0567 rows\n", "Total: 234 rows.", "234"),  # (a group of a figure of thousands)
    ("Total: 12\u00a0500 rows\n", "Total: 12 rows.", "12"),
    ("Open ports: 80\u00a0443\n", "Open ports: 80443.", "80443"),
    ("Temp: -5\u00a0\u00b0C\n", "Temp: 5 \u00b0C.", "5"),                # (a signed figure's number)
    ("Build b1.2\u00a0released\n", "Release 1.2 is out.", "1.2"),     # (glued to a word)
    # (red team 125, F05: the last group of a figure the spaces group, a unit after it, is no figure)
    ("Disk: 1\u00a0234\u00a0GB\n", "Disk: 234 GB.", "234"),
    ("Disk: 1\u202f234\u202fGB\n", "Disk: 234 GB.", "234"),
    ("Disk: 1\u2009234\u2009GB\n", "Disk: 234 GB.", "234"),
    ("Disk: 1\u00a0234 GB\n", "Disk: 234 GB.", "234"),
    ("Disk: 1\u00a0234\u00a0567\u00a0GB\n", "Disk: 234,567 GB.", "234567"),
    ("Balance: 12\u00a0500\u00a0\u20ac\n", "Balance: 500 \u20ac.", "500"),
    ("Cost: 12\u00a0500\u00a0\u00a3\n", "Cost: 500 \u00a3.", "500"),
    ("Disk: 1\u00a0234\u00a0GB\n", "Disk: 1,234 MB.", "1234"),
])
def test_a_figure_beside_a_no_break_space_changed_is_refused(source, text, value):
    find(_summarize(source, text), "I1", block="s", value=value)


@pytest.mark.parametrize("source", [
    "Wait 30\u00a0seconds. The job ran 5 minutes on 30 nodes.\n",   # (30 grounded by the nodes: its unit is read)
    "Wait 30\u202fs. The job ran 5 minutes on 30 nodes.\n",
    "Wait 30\u2009seconds. " + " ".join(f"{i}\u00a0GB" for i in range(40, 80)) + " on 30 nodes.\n",  # (among many figures)
])
def test_a_unit_after_a_no_break_space_is_kept(source):
    found = find(_summarize(source, "Wait 30 minutes."), "I1", block="s", value="30", evidence__change="unit_changed")
    assert found.evidence["unit"] == "min"


# red team 125, F10: the figure space (U+2007, made to glue a figure) and the medium mathematical
# space (U+205F) are read as the no-break spaces are
@pytest.mark.parametrize("source, text", [
    ("Disk: 12\u2007GB\n", "Disk: 12 GB."),
    ("Disk: 12\u205fGB\n", "Disk: 12 GB."),
    ("Wait 30\u2007seconds.\n", "Wait 30 s."),
    ("Disk: 1\u2007234\u2007GB\n", "Disk: 1,234 GB."),
])
def test_a_figure_beside_a_figure_space_is_grounded(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("source, text, value", [
    ("Disk: 12\u2007GB\n", "Disk: 12 TB.", "12"),
    ("Disk: 12\u205fGB\n", "Disk: 13 GB.", "13"),
    ("Disk: 1\u2007234\u2007GB\n", "Disk: 234 GB.", "234"),
])
def test_a_figure_beside_a_figure_space_changed_is_refused(source, text, value):
    find(_summarize(source, text), "I1", block="s", value=value)


def test_a_unit_after_a_figure_space_is_kept():
    found = find(_summarize("Wait 30\u2007seconds. The job ran 5 minutes on 30 nodes.\n", "Wait 30 minutes."), "I1",
                 block="s", value="30", evidence__change="unit_changed")
    assert found.evidence["unit"] == "min"


def test_the_figures_and_words_beside_a_no_break_space():
    from provgate.gate import _no_break_words, _respelled_units

    assert _respelled_units("Disk: 12\u00a0GB, 3\u202fms, 80\u00a0443, 7\u00a0\n".encode()) == {
        b"12": {b"gb"}, b"3": {b"ms"}, b"80": {None}, b"443": {None}, b"7": {None}}
    assert _respelled_units("Rows: 1\u00a0234\u00a0567, v2\u00a0x, a-5\u00a0s".encode()) == {b"1234567": {None}}
    assert _no_break_words(b"Disk: 12 GB") == set() and _no_break_words("12\u00a0GB".encode())
    assert _no_break_words(("x" * 200 + "\u00a0GB").encode()) == set()  # (a word past the reach)
    assert _unit_at("30\u00a0seconds".encode(), 2) == b"s" and _unit_at("12\u202fms".encode(), 2) == b"ms"
    text = "Wait 30\u00a0seconds, 12\u2009GB, 1\u00a0234\u00a0567 rows".encode()
    assert _figures_with_units(text, _unit_leads(text)) == {b"30": {b"s"}, b"12": {b"gb"}}
    # (red team 125, F05: the figure the spaces group, not its last group, has the unit)
    text = "Disk: 1\u00a0234\u00a0GB, 1\u202f234\u202f567 ms".encode()
    assert _figures_with_units(text, _unit_leads(text)) == {b"1234": {b"gb"}, b"1234567": {b"ms"}}
    assert _respelled_units(text) == {b"1234": {None, b"gb"}, b"1234567": {None, b"ms"}}


# red team 126, F02: each group of a long run of groups was read back to the run's start and
# forward to its end (2,000 groups in 2.9 s); a run of more than _MAX_GROUPS groups is no figure


def test_a_figure_of_eight_groups_is_read_whole_and_a_longer_run_is_no_figure():
    from provgate import gate as gate_module

    nb = "\u00a0".encode()
    eight = nb.join([b"1"] + [b"234"] * 7)  # 1 234 ... 234: eight groups
    text = b"Rows: " + eight + b" rows."
    last = text.rindex(nb) + len(nb)
    assert gate_module._grouped_figure_start(text, last) == len(b"Rows: ")
    nine = nb.join([b"1"] + [b"234"] * 8)
    text = b"Ids: " + nine + b" ok."
    assert gate_module._grouped_figure_start(text, text.rindex(nb) + len(nb)) == -1
    assert gate_module._grouped_figure_start(text, text.index(nb) + len(nb)) == -1  # (its run is too long)
    # the same with the three-byte narrow no-break space
    nnb = "\u202f".encode()
    text = b"Ids: " + nnb.join([b"123"] * 9) + b" ok."
    assert gate_module._grouped_figure_start(text, text.index(nnb) + len(nnb)) == -1
    text = b"Rows: " + nnb.join([b"123"] * 8) + b" rows."
    assert gate_module._grouped_figure_start(text, text.rindex(nnb) + len(nnb)) == len(b"Rows: ")


class _CountingPattern:
    """A compiled pattern that counts the bytes its match calls may read."""

    def __init__(self, pattern):
        self.pattern, self.calls, self.span = pattern, 0, 0

    def match(self, text, pos=0, endpos=None):
        self.calls += 1
        self.span += (len(text) if endpos is None else min(endpos, len(text))) - pos
        return self.pattern.match(text, pos, *(() if endpos is None else (endpos,)))

    def __getattr__(self, name):
        return getattr(self.pattern, name)


@pytest.mark.parametrize("n", [100, 400, 1600])
def test_a_long_run_of_groups_is_read_in_linear_time(monkeypatch, n):
    """Counted, not timed: the run's figures are each read within a bounded window."""
    from provgate import gate as gate_module

    counting = _CountingPattern(gate_module._BLANK_GROUPED)
    monkeypatch.setattr(gate_module, "_BLANK_GROUPED", counting)
    source = "Sizes: " + "\u00a0".join(["123"] * n) + "\u00a0GB.\n"
    v = _summarize(source, "Sizes: 123 GB.\n")
    assert v is not None
    assert counting.calls <= 2 * n and counting.span <= 64 * counting.calls


# red team 125, F13: a text dense in figures with a no-break space before the unit ("v12: 12\u00a0ms")
# decoded and translated each figure's tail twice (8x base's slope). The blanks are replaced in the
# bytes first: no character of such a tail is translated, and each figure is read at most twice.
# (Work counted, not time: the characters _unit_at translates and its calls.)
class _CountingTable(dict):
    looked_up = 0

    def __getitem__(self, key):
        type(self).looked_up += 1
        return super().__getitem__(key)


def _work_of(monkeypatch, text: bytes):
    from provgate import gate

    _CountingTable.looked_up = 0
    monkeypatch.setattr(gate, "_UNIT_SIGNS", _CountingTable(gate._UNIT_SIGNS))
    calls = []
    unit_at = gate._unit_at
    monkeypatch.setattr(gate, "_unit_at", lambda t, end, *rest: calls.append(end) or unit_at(t, end, *rest))
    found = gate._respelled_units(text)
    return found, _CountingTable.looked_up, len(calls)


@pytest.mark.parametrize("blank", ["\u00a0", "\u202f", "\u2009", "\u2007", "\u205f"])
def test_no_break_figures_are_read_without_decoding_their_tails(monkeypatch, blank):
    n = 400
    text = " ".join(f"v{i}: {i}{blank}ms" for i in range(n)).encode() + b"\n"
    found, translated, calls = _work_of(monkeypatch, text)
    assert all(found[b"%d" % i] == {b"ms"} for i in range(n))
    assert translated == 0  # (was ~96 characters a figure, twice)
    assert calls <= 2 * n + 2
    # (the counter counts: a tail with another character is still decoded and translated)
    found, translated, _ = _work_of(monkeypatch, "Max: 300\u00a0\u212a.\n".encode())
    assert translated > 0 and found[b"300"] == {b"K"}


def test_a_tail_with_no_break_blanks_reads_as_decoded():
    # (the blanks replaced in the bytes read as a plain blank did, decoded or not)
    for text in ("30\u00a0seconds", "30\u202f\u00b5s", "5\u00a0\u2103", "40\u2009MB/s", "30\u00a0\u00a0min",
                 "12\u2007GB", "7\u205fms", "9\u00a0[see note]\u00a0minutes", "4\u00a0(in\u00a0ms)"):
        end = len(text) - len(text.lstrip("0123456789"))
        plain = text.replace("\u00a0", " ").replace("\u202f", " ").replace("\u2009", " ").replace(
            "\u2007", " ").replace("\u205f", " ")
        assert _unit_at(text.encode(), end) == _unit_at(plain.encode(), end) is not None, text
    # (a tail cut inside a blank's bytes is read to the blank's end)
    text = ("5" + "\u202f" * 40 + "ms").encode()
    assert _unit_at(text, 1) == _unit_at(("5" + " " * 40 + "ms").encode(), 1)


@pytest.mark.parametrize("source, text", [
    ("Memory: 2 (min) / 4 (max) GB per pod.\n", "Memory: 2 GB minimum, 4 GB maximum per pod.\n"),
    ("Latency: 12 (min) / 40 (avg) / 95 (max) ms.\n", "Latency is 12 ms at least and 95 ms at most.\n"),
])
def test_a_bare_min_in_round_brackets_is_a_minimum_as_often_as_minutes(source, text):
    # red team 127, F02: the round-bracket labels of red team 126 F08 read "(min)" as minutes,
    # and a table's minimum restated in its own unit was refused; a bare "(min)" is no label
    assert_accepted(_summarize(source, text))
    assert_accepted(_rewrite(source, source.replace(" / ", " | ")))


def test_a_min_after_in_is_still_a_label_of_minutes():
    find(_summarize("Backoff: 5 (in min) between tries.\n", "Backoff: 5 s between tries.\n"), "I1")
    assert_accepted(_summarize("Backoff: 5 (in min) between tries.\n", "Backoff: 5 minutes between tries.\n"))


@pytest.mark.parametrize("bracket", ["(!)", "(*)", "[*]", "(\u2020)", "()", "[]", "(ok?)", "(tr\u00e8s)", "(a)",
                                     "(min. wait)"])
def test_any_short_bracket_between_a_figure_and_its_unit_is_passed_over(bracket):
    # red team 127, F06: a bracket that was no letters-only aside left the summary's figure with
    # no unit, so "5 (!) hours" of "Wait 5 minutes" was accepted; an aside of any bytes is
    # passed over to the unit after it, on both sides
    find(_summarize("Wait 5 minutes before the retry.\n", f"Wait 5 {bracket} hours.\n"), "I1")
    find(_rewrite("Wait 5 minutes before the retry.\n", f"Wait 5 {bracket} hours before the retry.\n"), "I2")
    assert_accepted(_summarize("Wait 5 minutes before the retry.\n", f"Wait 5 {bracket} minutes.\n"))
    assert_accepted(_summarize(f"Wait 5 {bracket} minutes before the retry.\n", "Wait 5 minutes.\n"))


# red team 127, F04: round brackets after a figure in forms the labels of red team 126 F08 did not
# read (a citation's digits, an aside with a digit or a letter not ASCII, two brackets, a label of
# more words or a stop after its unit, a bracket after three blanks or on the next line) left the
# figure with no unit, so any unit was grounded. One reading now: the unit after a bracket, else
# the bracket's label or its first word that spells a unit
@pytest.mark.parametrize("source, lie, honest, rewritten", [
    ("Wait 5 (1) minutes before retrying.\n", "Wait 5 (1) hours before retrying.\n", "Wait 5 (1) minutes.\n",
     "Wait 5 (1) hours before retrying.\n"),
    ("Wait 5 (see note 3) minutes before retrying.\n", "Wait 5 hours before retrying.\n", "Wait 5 minutes.\n",
     "Wait 5 (see note 3) hours before retrying.\n"),
    ("wait 30 (tr\u00e8s) seconds\n", "wait 30 minutes\n", "wait 30 seconds\n", "wait 30 (tr\u00e8s) minutes\n"),
    ("wait 30 (approx.) (seconds)\n", "wait 30 minutes\n", "wait 30 seconds\n", "wait 30 (approx.) (minutes)\n"),
    ("timeout = 30 (unit = seconds)\n", "timeout = 30 minutes\n", "timeout = 30 s\n", "timeout = 30 (unit = hours)\n"),
    ("timeout 30 (in units of seconds)\n", "timeout 30 minutes\n", "timeout 30 seconds\n",
     "timeout 30 (in units of minutes)\n"),
    ("timeout 30 (all values in seconds)\n", "timeout 30 minutes\n", "timeout 30 seconds\n",
     "timeout 30 (all values in minutes)\n"),
    ("timeout 30 (seconds.)\n", "timeout 30 minutes\n", "timeout 30 seconds\n", "timeout 30 (minutes.)\n"),
    ("timeout 30 (secs; approx)\n", "timeout 30 minutes\n", "timeout 30 seconds\n", "timeout 30 (mins; approx)\n"),
    ("wait 30\n(seconds)\n", "wait 30 minutes\n", "wait 30 seconds\n", "wait 30\n(minutes)\n"),
    ("wait 30   (seconds)\n", "wait 30 minutes\n", "wait 30 seconds\n", "wait 30   (minutes)\n"),
    ("Latency: 40 (p99, in ms).\n", "Latency: 40 s (p99).\n", "Latency: 40 ms (p99).\n", "Latency: 40 (p99, in s).\n"),
])
def test_a_round_bracket_of_any_form_gives_the_figure_its_unit(source, lie, honest, rewritten):
    value = "5" if "5 (" in source else "40" if "40" in source else "30"
    find(_summarize(source, lie), "I1", block="s", value=value, evidence__change="unit_changed")
    find(_rewrite(source, rewritten), "I2", value=value, evidence__change="unit_changed")
    assert_accepted(_summarize(source, honest))
    assert_accepted(_rewrite(source, source.replace(" (", "  (", 1)))  # (a blank more: the same unit)


@pytest.mark.parametrize("source, text", [
    ("attempt 3 (of 5) failed at 12:07 (UTC) on host-1\n", "Attempt 3 of 5 failed at 12:07 UTC.\n"),
    ("Retries: 5 (see below).\n", "5 retries.\n"),
    ("Wait 5 (min. wait) minutes.\n", "Wait 5 minutes.\n"),
    ("Retry 3 (at most 5 min apart) times.\n", "Retry 3 times, at most 5 min apart.\n"),
    ("Port 5432 (in the db subnet) is open.\n", "Port 5432 is open.\n"),
    ("Steps: 3\n(a) build\n(b) test\n", "3 steps: build and test.\n"),
])
def test_a_round_bracket_that_names_no_unit_of_the_figure_leaves_honest_summaries(source, text):
    assert_accepted(_summarize(source, text))


_F08_LINES = (
    lambda i: f"attempt {i % 7} (of 5) failed at 12:{i % 60:02d} (UTC) on host-{i}\n",
    lambda i: f"{i} (see below) item {i} (approx) done\n",
    lambda i: f"y{i} = 2 (x + {i}) - 4 (z)\n",
)


@pytest.mark.parametrize("line", _F08_LINES)
def test_a_round_bracket_that_can_give_no_unit_is_no_lead(line, monkeypatch):
    # red team 127, F08: each "(" after a digit was a lead read by _unit_at (4-9x base's check on
    # logs, lists and formulas); one that holds no word a unit may be spelled with, nor has one after
    # it, is none. Work counted, not time: leads made and units read in a check
    text = "".join(line(i) for i in range(300))
    assert _extra_leads(text.encode()) == []
    assert _unit_leads(text.encode()) == unit_leads(text.encode()).tolist()
    calls = []
    real = gate._unit_at
    monkeypatch.setattr(gate, "_unit_at", lambda t, e: calls.append(e) or real(t, e))
    assert_accepted(_summarize(text, text))
    assert len(calls) <= 10  # (600 "(" after a figure each side; main read 1,200 tails)


def test_each_round_bracket_a_unit_is_read_through_is_a_lead():
    # the leads (F08's filter) are all the figures whose unit a round bracket gives, and a source
    # searched for a figure (_units_of_figure) reads the unit _unit_at reads
    # (and, red team 129 F06, the unit a run of brackets leaves unknown: read as the rules that
    # ground a unit read it, after nine blanks, marks, an indented next line, brackets held in one)
    befores = ["5", "5 ", "5  ", "5   ", "5        ", "5\n", "5\r\n", "5 \n", "x ", "5         ", "5 **", "5\n  ",
               "5 (a) (b) (c) "]
    brackets = ["(of 5)", "(see below)", "(ms)", "(MS)", "(in ms)", "(x + 3)", "(UTC)", "(p99, in ms)", "(a)", "()",
                "(K)", "(min)", "(Secs; approx)", "(s\u0435conds)", "(tr\u00e8s)", "(in \u00b5s)", "(%)", "(50%)",
                "(degrees C)", "(requests per minute)", "(in handler_5)", "(two hours)", "(see (1))", "(" + "x" * 81 + ")",
                "($)", "(\u20ac)", "(in K)", "(k)", "(unit: $)"]
    afters = ["", " minutes", " item", " on host", " idle seconds", " (seconds)", "/h", " K", " - 4", "\nminutes",
              " [1] min", " \x1b[1mms", "\u00a0ms", " per hour", " Seconds", " degrees C", " times a day"]
    read = 0
    for before in befores:
        for bracket in brackets:
            for after in afters:
                text = (before + bracket + after + ".").encode()
                unit = _unit_at(text, 1, True)
                if before[0] == "5":
                    assert unit is None or 0 in _unit_leads(text), text
                    assert _units_of_figure(text, b"5") == ({unit} if unit is not None else set()), text
                    read += unit is not None
    assert read > 300
