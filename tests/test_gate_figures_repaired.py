"""Figures re-paired with names (docs/gate.md, I2 "figures traded inside a block"; red team 116,
F06). A trade was asked only where the figures changed order between two words both texts hold,
so swapping the names instead (``db-01 has 12 GB, db-02 has 34 GB`` -> ``db-02 has 12 GB, db-01
has 34 GB``), or moving the statements along with the trade, kept every fact and every context
and was accepted as lossless. Each figure is now paired with the names of its statement unit.
The rule is pure Python over the scanner's rows; run the file once each way
(PROVGATE_NO_EXTENSIONS=1) for both paths."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _rewrite

import provgate.gate as gate_module
from provgate.facts import extract
from provgate.gate import (
    _NAMED_FIGURES,
    _NAMES_A_UNIT,
    _figures_by_name,
    _repaired_figures,
    _word_bounds,
)

_DB = "db-01 has 12 GB, db-02 has 34 GB."
_LIST = "- timeout: 30 s\n- retry: 5 min\n"
_TABLE = "| db-01 | 12 |\n| db-02 | 34 |\n"
_SENT = "Timeout is 30 s. Retry after 5 min."


@pytest.mark.parametrize("before, after", [
    (_DB, "db-02 has 12 GB, db-01 has 34 GB."),  # names swapped, figures in order
    (_LIST, "- retry: 30 s\n- timeout: 5 min\n"),
    (_TABLE, "| db-02 | 12 |\n| db-01 | 34 |\n"),
    (_SENT, "Retry after 30 s. Timeout is 5 min."),  # statements moved, figures traded
    ("Primary db-01 holds 12 GB; replica db-02 holds 34 GB.", "Primary db-02 holds 12 GB; replica db-01 holds 34 GB."),
    ("| name | size |\n|---|---|\n| alpha | 12 |\n| beta | 34 |\n| gamma | 56 |\n",
     "| name | size |\n|---|---|\n| gamma | 12 |\n| beta | 34 |\n| alpha | 56 |\n"),
    ("db-01 has 12 GB.\ndb-02 has 34 GB.\n", "db-02 has 34 GB.\ndb-01 has 12 GB.\n".replace("34", "X").replace(
        "12", "34").replace("X", "12")),  # rows moved and names kept, figures traded
    # a name in a clause of its own before its figure's (only commas between) is that clause's
    ("db-01, 12 GB; db-02, 34 GB.", "db-02, 12 GB; db-01, 34 GB."),
    # a figure repeated (or a repeat dropped) beside the trade: the counts differ, the figures not
    (_DB, "db-02 has 12 GB, db-01 has 34 GB; 12 GB is low."),
    ("db-01 has 12 GB, db-02 has 34 GB. 12 GB is low.", "db-02 has 12 GB, db-01 has 34 GB. Low."),
    # a figure is its fact: written another way and traded is traded
    ("db-01 has 1,000 GB, db-02 has 2,000 GB.", "db-02 has 1000 GB, db-01 has 2000 GB."),
    # red team 118: two clauses joined by "and" (F03) or with the figures in parentheses (F06);
    # the names of a measurement's sides (F04)
    ("The primary has 12 GB free and the replica has 34 GB free.",
     "The replica has 12 GB free and the primary has 34 GB free."),
    ("Primary (12 GB) and replica (34 GB).", "Replica (12 GB) and primary (34 GB)."),
    ("Latency before: 120 ms; after: 34 ms.", "Latency after: 120 ms; before: 34 ms."),
    ("Bandwidth up: 12 Mbps; down: 340 Mbps.", "Bandwidth down: 12 Mbps; up: 340 Mbps."),
    ("Traffic in: 12 MB, out: 34 MB.", "Traffic out: 12 MB, in: 34 MB."),
])
def test_figures_re_paired_with_names_are_refused(before, after):
    found = find(_rewrite(before, after), "I2", evidence__change="traded_in_place")
    assert found.key == "number"


def test_the_re_pairing_names_the_names_and_figures():
    found = find(_rewrite(_DB, "db-02 has 12 GB, db-01 has 34 GB."), "I2", evidence__change="traded_in_place")
    assert found.evidence["names"] == ["01", "02"]
    assert found.evidence["figures"] == ["12 gb", "34 gb"]


@pytest.mark.parametrize("before, after", [
    # reordered whole
    (_DB, "db-02 has 34 GB, db-01 has 12 GB."),
    (_LIST, "- retry: 5 min\n- timeout: 30 s\n"),
    (_TABLE, "| db-02 | 34 |\n| db-01 | 12 |\n"),
    (_SENT, "Retry after 5 min. Timeout is 30 s."),
    # reworded, each figure kept with its subject
    (_DB, "12 GB are on db-01, 34 GB are on db-02."),
    (_DB, "On db-01: 12 GB; on db-02: 34 GB."),
    (_SENT, "The timeout: 30 s. Retry after 5 min."),
    (_SENT, "Retry after 5 min. The timeout: 30 s."),
    # merged into one statement, or split from one
    ("db-01 has 12 GB. db-02 has 34 GB.", "db-01 has 12 GB and db-02 has 34 GB."),
    ("db-01 and db-02 have 12 GB and 34 GB.", "db-01 has 12 GB. db-02 has 34 GB."),
    ("db-01 has 1,000 GB, db-02 has 2,000 GB.", "db-01 has 1000 GB, db-02 has 2000 GB."),
    ("Reads take 12 ms on db-01, writes take 34 ms on db-02.", "On db-01 reads take 12 ms, on db-02 writes take 34 ms."),
    ("The timeout is 30 s, after which we retry in 5 min.", "We retry 5 min after a timeout of 30 s."),
    ("db-01, 12 GB; db-02, 34 GB.", "db-02, 34 GB; db-01, 12 GB."),
    ("db-01, db-02: 12 GB, 34 GB.", "db-01 has 12 GB, db-02 has 34 GB."),
    ("db-01 has 12 GB, db-02 has 34 GB.", "db-01, db-02: 12 GB, 34 GB."),
    # a name clause is not joined past a unit of too many figures
    ("db-01, 1 2 3 4 5 ms, 12 GB; db-02, 34 GB.", "db-01, 1 2 3 4 5 ms, 12 GB; db-02, 34 GB!"),
    (_DB, "db-01 has 12 GB, db-02 has 34 GB; 12 GB is low."),
    (_DB, "db-02 has 34 GB; 12 GB is on db-01, and 12 GB is low."),
    # words that name nothing moved between the statements
    ("db-01 has the 12 GB, db-02 has a 34 GB disk.", "db-01 has a 12 GB, db-02 has the 34 GB disk."),
    # a unit of more figures than _NAMED_FIGURES names none (a line of measurements)
    ("p50 1 ms, p90 2 ms, p99 3 ms\n", "p50 1 ms, p90 2 ms, p99 3 ms.\n"),
    # clauses joined by "and" reordered, or each kept with its own figures
    ("The primary has 12 GB free and the replica has 34 GB free.",
     "The replica has 34 GB free and the primary has 12 GB free."),
    ("Alice has 3 cats and 2 dogs.", "Alice has 2 dogs and 3 cats."),
    # "and" right after a figure joins figures, not clauses (the suite's grammar v8 rewrite)
    ("Pinned lodash@4.17.21 and react@18.2.0 in the lockfile.", "Pinned react@18.2.0 and lodash@4.17.21 in the lockfile."),
    ("Retry between 3 and 5 times.", "Retry 3 to 5 times."),
    ("Latency before: 120 ms; after: 34 ms.", "Latency after: 34 ms; before: 120 ms."),
    ("Latency before: 120 ms; after: 34 ms.", "Before, latency was 120 ms; after, 34 ms."),
])
def test_figures_kept_with_their_names_are_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


def _names(text: str) -> dict[bytes, set[bytes]]:
    data = text.encode()
    table = extract(data)  # (the scanner's rows, either path)
    rows = [r for r in range(len(table.kind)) if table.kind[r] == gate_module._KIND_NUMBER]
    return _figures_by_name(table, rows, _word_bounds(data))


def test_each_figure_is_paired_with_the_names_of_its_own_unit():
    names = _names(_DB)
    assert {unit for _, unit in names[b"01"]} == {b"gb"} and len(names[b"01"]) == len(names[b"02"]) == 1
    assert names[b"01"] != names[b"02"]
    assert b"has" not in names  # (_NO_NAME)
    assert _repaired_figures(names, _names("db-02 has 12 GB, db-01 has 34 GB.")) is not None
    assert _repaired_figures(names, _names("db-02 has 34 GB, db-01 has 12 GB.")) is None


def test_a_unit_names_at_most_so_many_words_and_figures():
    # the pairs a unit makes are bounded, so a side is linear in its text
    long_unit = " ".join(f"word{k}" for k in range(10 * _NAMES_A_UNIT)) + " holds 7 GB."
    assert len(_names(long_unit)) == _NAMES_A_UNIT
    many = "row " + ", ".join(f"{k} ms" for k in range(_NAMED_FIGURES + 1)) + "\n"
    many = many.replace(", ", " ")
    assert _names(many) == {}
    # (nor does a name clause before such a unit join the next one's)
    assert b"01" not in _names("db-01, 1 ms 2 ms 3 ms 4 ms 5 ms, 12 GB\n")
    assert b"01" in _names("db-01, 12 GB\n")


def test_one_reading_a_side_a_rewritten_block(monkeypatch):
    calls = []
    real = gate_module._figures_by_name
    monkeypatch.setattr(gate_module, "_figures_by_name", lambda *a: calls.append(1) or real(*a))
    n = 300
    before = "".join(f"| host-{k} | {k} |\n" for k in range(n))
    after = before + "(all hosts listed)\n"  # (reworded: a line added)
    assert_accepted(_rewrite(before, after), "lossless")
    # (pre and post, at most once each a pass, however many rows: the numbers, then the exact
    # values with them, red team 130a F04: "host-0" is an identifier)
    assert 2 <= len(calls) <= 4
    calls.clear()
    lie = before.replace("| host-0 |", "| host-X |").replace("| host-1 |", "| host-0 |").replace("| host-X |", "| host-1 |")
    find(_rewrite(before, lie), "I2", evidence__change="traded_in_place")
    assert len(calls) == 2


def test_a_block_of_one_figure_is_not_read_for_names(monkeypatch):
    # (two figures trade, or none: the next edit of a session rewords turns of one figure)
    calls = []
    real = gate_module._figures_by_name
    monkeypatch.setattr(gate_module, "_figures_by_name", lambda *a: calls.append(1) or real(*a))
    assert_accepted(_rewrite("db-01 has 12 GB.", "db-01 has 12 GB now."), "lossless")
    assert calls == []
    find(_rewrite(_DB, "db-02 has 12 GB, db-01 has 34 GB."), "I2", evidence__change="traded_in_place")
    assert len(calls) == 2


# red team 118, F07: three names or more rotated with their figures trade no pair, but each
# name's loss is another's gain (a cycle of the figures)
@pytest.mark.parametrize("before, after", [
    ("Primary: 12 GB; replica: 34 GB; standby: 56 GB.", "Standby: 12 GB; primary: 34 GB; replica: 56 GB."),
    ("Primary: 12 GB; replica: 34 GB; standby: 56 GB.", "Replica: 12 GB; standby: 34 GB; primary: 56 GB."),
    ("- alpha: 1 s\n- beta: 2 s\n- gamma: 3 s\n- delta: 4 s\n", "- beta: 1 s\n- gamma: 2 s\n- delta: 3 s\n- alpha: 4 s\n"),
    ("| alpha | 12 |\n| beta | 34 |\n| gamma | 56 |\n", "| gamma | 12 |\n| alpha | 34 |\n| beta | 56 |\n"),
])
def test_names_rotated_with_their_figures_are_refused(before, after):
    found = find(_rewrite(before, after), "I2", evidence__change="traded_in_place")
    assert "rotated" in found.message


@pytest.mark.parametrize("before, after", [
    # the statements reordered whole, reworded, or the rows moved with their figures
    ("Primary: 12 GB; replica: 34 GB; standby: 56 GB.", "Standby: 56 GB; primary: 12 GB; replica: 34 GB."),
    ("Primary: 12 GB; replica: 34 GB; standby: 56 GB.", "The replica has 34 GB; the standby 56 GB; the primary 12 GB."),
    ("| alpha | 12 |\n| beta | 34 |\n| gamma | 56 |\n", "| gamma | 56 |\n| alpha | 12 |\n| beta | 34 |\n"),
])
def test_statements_rotated_with_their_figures_are_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


def test_a_rotation_is_found_as_names_of_distinct_statements():
    before = _names("Primary: 12 GB; replica: 34 GB; standby: 56 GB.")
    name, lost, gained, other = _repaired_figures(before, _names("Standby: 12 GB; primary: 34 GB; replica: 56 GB."))
    assert len({name, other}) == 2 and lost != gained
    assert lost in before[name] and gained not in before[name] and lost not in before[other]
    assert _repaired_figures(before, _names("Standby: 56 GB; primary: 12 GB; replica: 34 GB.")) is None
    # (six names, each with the next one's figure)
    g = {f"n{k}".encode(): {(str(k).encode(), b"")} for k in range(6)}
    h = {f"n{k}".encode(): {(str((k + 1) % 6).encode(), b"")} for k in range(6)}
    name, lost, gained, other = _repaired_figures(g, h)
    assert name != other and g[name] == {lost} and h[other] == {lost}


# red team 118, F05: a table row of more than _NAMED_FIGURES figures is named by its first cell
_ROWS = "| host | disk | cpu | mem | net | io |\n|---|---|---|---|---|---|\n" \
        "| primary | 12 GB | 4 | 2 | 8 | 16 |\n| replica | 34 GB | 8 | 4 | 16 | 32 |\n| standby | 56 GB | 1 | 3 | 5 | 7 |\n"


@pytest.mark.parametrize("after", [
    _ROWS.replace("| primary |", "| X |").replace("| replica |", "| primary |").replace("| X |", "| replica |"),
    _ROWS.replace("| primary |", "| X |").replace("| replica |", "| primary |").replace("| standby |", "| replica |")
    .replace("| X |", "| standby |"),  # (three rows' names rotated)
    _ROWS.replace("| primary | 12 GB | 4 | 2 | 8 | 16 |", "| db primary | 12 GB | 4 | 2 | 8 | 16 |")
    .replace("| replica |", "| X |").replace("| db primary |", "| replica |").replace("| X |", "| db primary |"),
])
def test_table_rows_of_many_figures_swapping_names_are_refused(after):
    found = find(_rewrite(_ROWS, after), "I2", evidence__change="traded_in_place")
    assert "the table row of " in found.message


@pytest.mark.parametrize("after", [
    _ROWS.split("\n", 2)[0] + "\n" + _ROWS.split("\n", 2)[1] + "\n" + "\n".join(reversed(_ROWS.split("\n", 2)[2].strip("\n").split("\n"))) + "\n",
    _ROWS + "\n(hosts listed)\n",
    _ROWS.replace("| primary |", "| Primary |"),
])
def test_table_rows_of_many_figures_moved_whole_are_accepted(after):
    assert_accepted(_rewrite(_ROWS, after), "lossless")


def test_a_table_rows_first_cell_names_its_figures_as_one():
    names = _names(_ROWS)
    assert len(names[b"primary"]) == len(names[b"replica"]) == 1 and names[b"primary"] != names[b"replica"]
    assert b"host" not in names and b"gb" not in names
    # (prose of many figures, and a row whose first cell is a figure, name none)
    assert _names("primary has 1 GB 2 GB 3 GB 4 GB 5 GB\n") == {}
    assert _names("| 1 | primary | 2 | 3 | 4 | 5 |\n") == {}


# red team 119, F07: before/after/in/out/over/under name a side only as labels; as prepositions
# before a figure ("retry after 30 s; time out in 60 s") they name nothing
@pytest.mark.parametrize("before, after", [
    ("Retry after 30 s; time out in 60 s.", "Time out after 60 s; retry in 30 s."),
    ("Restarted after 12 s; recovered in 34 s.", "Recovered after 34 s; restarted in 12 s."),
    ("Page after 5 min; escalate in 30 min.", "Escalate after 30 min; page in 5 min."),
])
def test_prepositions_before_figures_name_nothing(before, after):
    assert_accepted(_rewrite(before, after), "lossless")
    # (the statements' own names still pair: "retry" and "time" swapped is refused)
    find(_rewrite("Retry after 30 s; time out in 60 s.", "Retry in 60 s; time out after 30 s."), "I2",
         evidence__change="traded_in_place")


@pytest.mark.parametrize("before, after", [
    ("Latency before: 120 ms; after: 34 ms.", "Latency after: 120 ms; before: 34 ms."),
    ("| before | 120 ms |\n| after | 34 ms |\n", "| after | 120 ms |\n| before | 34 ms |\n"),
    ("before 120 ms\nafter 34 ms\n", "after 120 ms\nbefore 34 ms\n"),
    ("- in 12 MB\n- out 34 MB\n", "- out 12 MB\n- in 34 MB\n"),
    # red team 120, F09: a dash between the label and its figure
    ("Latency before - 120 ms; after - 34 ms.", "Latency after - 120 ms; before - 34 ms."),
    ("Latency before -- 120 ms; after -- 34 ms.", "Latency after -- 120 ms; before -- 34 ms."),
    # red team 121, F09: an arrow or an approximation sign, a currency or "~" before the figure
    ("Latency before -> 120 ms; after -> 34 ms.", "Latency after -> 120 ms; before -> 34 ms."),
    ("before \u2192 120 ms; after \u2192 34 ms", "after \u2192 120 ms; before \u2192 34 ms"),
    ("before \u2248 120 ms; after \u2248 34 ms", "after \u2248 120 ms; before \u2248 34 ms"),
    ("Cost before - $120; after - $34.", "Cost after - $120; before - $34."),
    ("before - ~120 ms; after - ~34 ms", "after - ~120 ms; before - ~34 ms"),
    # red team 123, F09: "~", "⇒", "≃", "is" between, a currency's code before the figure
    ("before ~ 120 ms; after ~ 34 ms", "after ~ 120 ms; before ~ 34 ms"),
    ("before \u21d2 120 ms; after \u21d2 34 ms", "after \u21d2 120 ms; before \u21d2 34 ms"),
    ("before \u2243 120 ms; after \u2243 34 ms", "after \u2243 120 ms; before \u2243 34 ms"),
    ("Latency before is 120 ms; after is 34 ms.", "Latency after is 120 ms; before is 34 ms."),
    ("Cost before - USD 120; after - USD 34.", "Cost after - USD 120; before - USD 34."),
])
def test_sides_as_labels_swapped_are_refused(before, after):
    find(_rewrite(before, after), "I2", evidence__change="traded_in_place")


def test_labels():
    from provgate.gate import _labels

    text = b"retry after 30 s; before: 1 ms\nin 5 s | out | x"
    at = {w: text.find(w) for w in (b"after", b"before", b"in", b"out")}
    assert not _labels(text, at[b"after"], at[b"after"] + 5)
    assert _labels(text, at[b"before"], at[b"before"] + 6)  # (":")
    assert _labels(text, at[b"in"], at[b"in"] + 2)  # (first on its line)
    assert _labels(text, at[b"out"], at[b"out"] + 3)  # (a cell)
    for sep in ("- ", "-> ", "=> ", "\u2192 ", "\u2248 ", "- $", "- ~", "\u2014 \u20ac"):
        assert _labels(f"x after {sep}34 ms".encode(), 2, 7), sep
    for sep in ("- p50 ", "-> the ", "\u2192 x"):
        assert not _labels(f"x after {sep}34 ms".encode(), 2, 7), sep


# red team 119, F01: an "and" after a figure and its unit joins figures only where the next
# figure's word follows it; a name after it starts a clause. F16: more conjunctions break clauses
@pytest.mark.parametrize("before, after", [
    ("Primary: 12 GB and replica: 34 GB.", "Replica: 12 GB and primary: 34 GB."),
    ("The primary is at 12 GB and the replica is at 34 GB.", "The replica is at 12 GB and the primary is at 34 GB."),
    ("CPU is 12% and memory is 34%.", "Memory is 12% and CPU is 34%."),
    ("The primary holds 12 and the replica holds 34.", "The replica holds 12 and the primary holds 34."),
    ("Alert above 90% and below 10%.", "Alert below 90% and above 10%."),
    ("The primary has 12 GB free whilst the replica has 34 GB free.",
     "The replica has 12 GB free whilst the primary has 34 GB free."),
    ("The primary has 12 GB free although the replica has 34 GB free.",
     "The replica has 12 GB free although the primary has 34 GB free."),
    ("The primary has 12 GB free yet the replica has 34 GB free.",
     "The replica has 12 GB free yet the primary has 34 GB free."),
    ("The primary has 12 GB free & the replica has 34 GB free.",
     "The replica has 12 GB free & the primary has 34 GB free."),
])
def test_names_swapped_across_a_conjunction_are_refused(before, after):
    find(_rewrite(before, after), "I2", evidence__change="traded_in_place")


@pytest.mark.parametrize("before, after", [
    ("Pinned lodash@4.17.21 and react@18.2.0 in the lockfile.", "Pinned react@18.2.0 and lodash@4.17.21 in the lockfile."),
    ("Primary: 12 GB and replica: 34 GB.", "Replica: 34 GB and primary: 12 GB."),
    ("CPU is 12% whilst memory is 34%.", "Memory is 34% whilst CPU is 12%."),
])
def test_figures_joined_or_clauses_reordered_whole_are_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


# red team 120, F15: a GitHub table may omit its outer pipes; a header and a delimiter row with a
# "|" make it a table, whose rows are then named by their first cell as "| ... |" rows are
_BARE_ROWS = "host | disk | cpu | mem | net | io\n---|---|---|---|---|---\n" \
             "primary | 12 GB | 4 | 2 | 8 | 16\nreplica | 34 GB | 8 | 4 | 16 | 32\nstandby | 56 GB | 1 | 3 | 5 | 7\n"


def _swapped(text: str, a: str, b: str) -> str:
    return text.replace(f"\n{a} |", "\nX |").replace(f"\n{b} |", f"\n{a} |").replace("\nX |", f"\n{b} |")


@pytest.mark.parametrize("before", [
    _BARE_ROWS,
    _BARE_ROWS.replace("---|---|---|---|---|---", "| --- | :---: | --- | --- | --- | ---: |"),
])
def test_table_rows_without_outer_pipes_swapping_names_are_refused(before):
    found = find(_rewrite(before, _swapped(before, "primary", "replica")), "I2", evidence__change="traded_in_place")
    assert "the table row of " in found.message


@pytest.mark.parametrize("after", [
    _BARE_ROWS.replace("primary | 12 GB | 4 | 2 | 8 | 16\nreplica | 34 GB | 8 | 4 | 16 | 32\n",
                       "replica | 34 GB | 8 | 4 | 16 | 32\nprimary | 12 GB | 4 | 2 | 8 | 16\n"),
    _BARE_ROWS + "\n(hosts listed)\n",
])
def test_table_rows_without_outer_pipes_moved_whole_are_accepted(after):
    assert_accepted(_rewrite(_BARE_ROWS, after), "lossless")


def test_only_a_table_with_a_delimiter_row_names_rows_without_outer_pipes():
    names = _names(_BARE_ROWS)
    assert len(names[b"primary"]) == len(names[b"replica"]) == 1 and names[b"primary"] != names[b"replica"]
    # (lines with a "|" and no delimiter row, or after a markdown rule "---" with no "|", are no table)
    assert _names("primary | 12 GB | 4 | 2 | 8 | 16\nreplica | 34 GB | 8 | 4 | 16 | 32\n") == {}
    assert _names("host | disk\n---\nprimary | 12 GB | 4 | 2 | 8 | 16\n") == {}
    # (the table ends at the first line without a "|")
    assert _names(_BARE_ROWS + "\nprimary 1 GB 2 GB 3 GB 4 GB 5 GB | x\n").keys() == names.keys()
    assert gate_module._pipeless_table_bodies(b"a | b\n--|--\n1 | 2\n3 | 4\n\n5 | 6\n") == [(12, 24)]
