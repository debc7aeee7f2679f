"""A pip requirement in a markdown table's cell (red team 129, F05; docs/gate.md, "Requirements"):
tables2 read a single "|" as Poetry's "or", so on a table's row the requirement cell and the next
cell that opens with a comparison were one requirement of two alternatives (``| requests>=2.28 |
>=3.8 |`` -> requests ``>=2.28 || >=3.8``), and the table rewritten as a list, or its columns
swapped, stated a requirement its pre version did not. On a line that opens with ``|`` (after
blanks), a ``|`` with a blank on each side is a column edge; the row still binds the cell to the
comparisons of the cells after it (a key of its own), so a column moved between rows is refused,
as it was. An escaped ``\\|`` inside a cell is the cell's own "|" (GFM), Poetry's "or". Run natively
and with PROVGATE_NO_EXTENSIONS=1 (the suite runs once each way)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_gate_requirement_cost import _Counting
from test_gate_requirement_extras import rewrite, summarize

import provgate.gate as gate_module
from provgate.gate import (
    _requirement_readings,
    _requirement_spans,
    _requirement_stated,
    _requirements,
)

TABLE = "| requirement | python |\n|---|---|\n| requests>=2.28 | >=3.8 |\n| urllib3<2 | >=3.7 |\n"
SPECS = "| package | spec |\n|---|---|\n| requests>=2.28,<3 | pinned for py3.8 |\n| django>=3.2 | <4.0 |\n"
ESCAPED = "| package | notes |\n|---|---|\n| requests>=2.28 \\| >=3.0 | pinned |\n"   # one cell: "|" escaped
KEYED = "| package | spec |\n|---|---|\n| requests | >=2.28 \\| >=3.0 |\n"          # the name in a cell of its own


def changed(v) -> list:
    return [x for x in v.violations if (x.evidence or {}).get("change") == "requirement_changed"]


@pytest.mark.parametrize("source, text, edits", [
    (TABLE, "- requests>=2.28 (python >=3.8)\n- urllib3<2 (python >=3.7)\n", (rewrite,)),  # the finding: as a list
    (SPECS, "| spec | package |\n|---|---|\n| pinned for py3.8 | requests>=2.28,<3 |\n| <4.0 | django>=3.2 |\n",
     (rewrite, summarize)),                                                                # columns swapped
    (TABLE, TABLE.replace("| requests>=2.28 | >=3.8 |", "| requests>=2.28   |   >=3.8 |"), (rewrite, summarize)),
    (TABLE, TABLE.replace("| requests>=2.28 | >=3.8 |", "  |\trequests >= 2.28 |  >=3.8\t|"), (rewrite, summarize)),
    (TABLE, "| requirement | python |\n|---|---|\n| urllib3<2 | >=3.7 |\n| requests>=2.28 | >=3.8 |\n",
     (rewrite, summarize)),                                                                # rows swapped
    (TABLE, "| requirement |\n|---|\n| requests>=2.28 |\n| urllib3<2 |\n", (summarize,)),  # a column dropped
    (SPECS, "django>=3.2 is required.\n", (summarize,)),
    (ESCAPED, ESCAPED.replace("| pinned |", "|  pinned  |"), (rewrite, summarize)),        # an escaped "|" kept
    (ESCAPED, ESCAPED.replace("\\|", "||"), (rewrite, summarize)),                        # "\|" is "|" is "||"
    (ESCAPED, "requests>=2.28 is pinned.\n", (summarize,)),                                # one alternative
    (KEYED, KEYED.replace("| requests |", "| requests   |"), (rewrite, summarize)),
])
def test_a_requirement_in_a_table_kept_is_accepted(source, text, edits):
    for edit in edits:
        assert_accepted(edit(source, text))


@pytest.mark.parametrize("source, lie, edits", [
    # (the summary in prose: "|" is Poetry's "or", the python column read as an alternative: refused since tables2)
    (TABLE, "The project needs requests>=2.28 | >=3.7 and urllib3<2 | >=3.8.\n", (summarize,)),
    # (on a table's row: the python column moved between the rows; the row binds its cells)
    (TABLE, "| requests>=2.28 | >=3.7 |\n| urllib3<2 | >=3.8 |\n", (summarize, rewrite)),
    (TABLE, TABLE.replace(">=3.8", "\0").replace(">=3.7", ">=3.8").replace("\0", ">=3.7"), (summarize, rewrite)),
    # (a lie inside a table's cell)
    (TABLE, TABLE.replace("requests>=2.28", "requests>=2.30"), (summarize, rewrite)),
    (TABLE, TABLE.replace("requests>=2.28", "requests>2.28"), (summarize, rewrite)),
    (SPECS, SPECS.replace("django>=3.2 | <4.0", "django>=3.2 | <5.0"), (summarize, rewrite)),
    # (a cell's escaped "|" is Poetry's "or": made an "and", or an alternative changed)
    (ESCAPED, ESCAPED.replace(" \\| ", ", "), (summarize, rewrite)),
    (ESCAPED, ESCAPED.replace(">=3.0", ">=3.1"), (summarize, rewrite)),
    (ESCAPED, "requests>=2.28, >=3.0 is pinned.\n", (summarize,)),
    (KEYED, KEYED.replace(">=3.0", ">=3.1"), (summarize, rewrite)),
])
def test_a_requirement_in_a_table_changed_is_refused(source, lie, edits):
    for edit in edits:
        assert not edit(source, lie).accepted, edit.__name__


def test_the_finding_s_message_is_gone_and_the_lie_s_remains():
    # (the finding: I2 "states the requirement 'requests>=2.28', which neither its pre version nor
    # its sources state"; the prose lie keeps its message, of the requirement read with its "or")
    assert not changed(rewrite(TABLE, "- requests>=2.28 (python >=3.8)\n- urllib3<2 (python >=3.7)\n"))
    v = summarize(TABLE, "The project needs requests>=2.28 | >=3.7 and urllib3<2 | >=3.8.\n")
    find(v, "I1", block="s1", key="requests", evidence__change="requirement_changed")
    v = rewrite(TABLE, TABLE.replace("| requests>=2.28 | >=3.8 |", "| requests>=2.28 | >=3.7 |"))
    assert not v.accepted


def test_a_table_row_is_read_as_its_cells():
    row = _requirements(b"| requests>=2.28 | >=3.8 |\n")
    assert row == {(b"requests", b"", b">=", b"2.28"): "requests>=2.28",
                   (b"requests", b"", b">=", b"2.28", b"|", b">=3.8"): "| requests>=2.28 | >=3.8 |"}
    # (after blanks; a tab is a blank; each other cell's comparisons, blanks dropped, sorted)
    assert set(_requirements(b"  |\trequests>=2.28\t| >=3.8 | < 4 |")) == {
        (b"requests", b"", b">=", b"2.28"), (b"requests", b"", b">=", b"2.28", b"|", b"<4", b"|", b">=3.8")}
    # (not a table's row: Poetry's "or", as tables2 read it, and the row's reading apart, which
    # states it too: a row off a line start, red team 130a F02; a source states both)
    poetry = {(b"requests", b"", b"||", b">=2.28", b"||", b">=3.8")}
    cells = {(b"requests", b"", b">=", b"2.28"), (b"requests", b"", b">=", b"2.28", b"|", b">=3.8")}
    for text in (b"requests>=2.28 | >=3.8", b"x | requests>=2.28 | >=3.8 |", b"| a | b |\nrequests>=2.28 | >=3.8\n",
                 b"> | requests>=2.28 | >=3.8 |", b"The row `| requests>=2.28 | >=3.8 |` says so."):
        said, rows = _requirement_readings(text)
        assert set(said) == poetry and set(rows) == poetry, text
        assert {key for key, _ in rows[next(iter(poetry))]} == cells
        assert set(_requirements(text)) == poetry | cells
    # (on a table's row, "||" and a "|" without a blank each side stay Poetry's "or", inside one cell)
    assert set(_requirements(b"| requests>=2.28 || >=3.8 |")) == poetry
    assert set(_requirements(b"| requests>=2.28|>=3.8 |")) == poetry
    assert set(_requirements(b"| requests>=2.28 |>=3.8 |")) == poetry
    # (an escaped "|", the cell's own: Poetry's "or" wherever it stands)
    assert set(_requirements(b"| requests>=2.28 \\| >=3.8 |")) == poetry
    assert set(_requirements(b"requests>=2.28 \\| >=3.8")) == poetry
    # (the span is the cell's: the next cell's figures are no part of the requirement)
    text = b"| requests>=2.28 | >=3.8 |"
    assert _requirement_spans(text) == [(2, 16, (b"requests", b"", b">=", b"2.28"))]
    # (the cell alone is stated by its row, losslessly; the row by a row of more clauses, lossily)
    cell, whole = _requirements(text)
    known = set(_requirements(b"| requests>=2.28,<3 | >=3.8 |"))
    assert cell in set(_requirements(text)) and _requirement_stated(whole, known, True)
    assert not _requirement_stated(whole, known, False)
    assert not _requirement_stated(whole, set(_requirements(b"| requests>=2.28 | >=3.7 |")), True)


@pytest.mark.parametrize("make, cut", [
    (lambda n: b"| " + b"a>=1 | >=2 | " * n + b"\n", True),                        # one long row
    (lambda n: b"".join(b"| a%d>=1 | >=2 |\n" % i for i in range(n)), True),       # n rows
    (lambda n: b"| x |\n" + b"a>=1 | >=2 " * n + b"\n", False),                     # no row: "or"s
])
def test_a_row_is_cut_once_a_requirement(monkeypatch, make, cut):
    # (linear: the table's rows are found once a text, and a requirement cut at its column edge
    # is matched once more, at most: two tries a word start)
    counting = _Counting(gate_module._REQUIREMENT)
    monkeypatch.setattr(gate_module, "_REQUIREMENT", counting)
    for n in (50, 400):
        counting.calls = 0
        text = make(n)
        found = list(gate_module._requirement_matches(text))
        assert counting.calls <= 2 * n + 1
        assert len(found) == n
        assert all((b" | " in m.group(0)) != cut for m in found)


# red team 130a, F02 (a regression of tables3): a row restated off a line start -- quoted in a code
# span in a sentence, blockquoted, without outer pipes -- was read as Poetry's "or", which the
# table (a row, read as its cells) did not state. Off a table's row, the "or" is stated by the row's
# reading as well; a row re-paired stays refused wherever it stands.
QUOTED = "> " + TABLE.replace("\n", "\n> ")[:-2]            # the table blockquoted
BARE = "requirement | python\n---|---\nrequests>=2.28 | >=3.8\nurllib3<2 | >=3.7\n"   # no outer pipes
POETRY = "Needs requests>=2.28 | >=3.8.\n"                  # prose: Poetry's "or"


def _swap(text: str) -> str:
    return text.replace(">=3.8", "\0").replace(">=3.7", ">=3.8").replace("\0", ">=3.7")


@pytest.mark.parametrize("source, text, edits", [
    (TABLE, "The table row `| requests>=2.28 | >=3.8 |` says requests needs python >=3.8.\n", (summarize,)),
    (TABLE, "> | requests>=2.28 | >=3.8 |\n", (summarize,)),
    (TABLE, "requests>=2.28 | >=3.8\n", (summarize,)),
    (TABLE, QUOTED, (rewrite, summarize)),
    (TABLE, BARE, (rewrite, summarize)),
    (QUOTED, "| requests>=2.28 | >=3.8 |\n", (summarize,)),           # a quoted table's row at a line start
    (QUOTED, TABLE, (rewrite, summarize)),
    (POETRY, "Needs requests>=3.8 | >=2.28.\n", (rewrite, summarize)),  # Poetry's "or": alternatives reordered
    (POETRY, "| requests>=2.28 | >=3.8 |\n", (rewrite, summarize)),       # the same bytes read as a row (docs)
])
def test_a_row_off_a_line_start_kept_is_accepted(source, text, edits):
    for edit in edits:
        assert_accepted(edit(source, text))


@pytest.mark.parametrize("source, lie, edits", [
    (TABLE, "> | requests>=2.28 | >=3.7 |\n> | urllib3<2 | >=3.8 |\n", (summarize,)),
    (TABLE, "requests>=2.28 | >=3.7\nurllib3<2 | >=3.8\n", (summarize,)),
    (TABLE, _swap(QUOTED), (rewrite, summarize)),
    (TABLE, _swap(BARE), (rewrite, summarize)),
    (QUOTED, _swap(TABLE), (rewrite, summarize)),
    (QUOTED, _swap(QUOTED), (rewrite, summarize)),
    (POETRY, "Needs requests>=2.28 | >=3.9.\n", (rewrite, summarize)),
    (POETRY, "| requests>=3.8 | >=2.28 |\n", (summarize,)),               # reordered into a row: another row
])
def test_a_row_off_a_line_start_re_paired_is_refused(source, lie, edits):
    for edit in edits:
        v = edit(source, lie)
        assert not v.accepted, edit.__name__
    if source != POETRY:
        assert changed(v)   # (refused as a requirement changed, not by another rule)


# red team 130a, F07: markdown's emphasis around a requirement. The version pattern let a version
# end in "*" (PEP 440's "==2.*"), so "**requests>=2.28**" was the requirement "requests>=2.28**";
# "__" before a name kept it from being one ("__django", an identifier no source held). A version
# ends in "*" only as ".*"; a name may follow "_" or "__" that opens emphasis; a cell in bold on a
# table's row still binds the cells after it.
PINS = "requests>=2.28\nurllib3<2\ndjango>=3.2,<4.2\n"
WILD = "Install django==3.2.* and flask!=2.*\n"
PORTS = "REDIS_PORT=6380\n"


@pytest.mark.parametrize("source, text, edits", [
    (PINS, "The service needs **requests>=2.28** and **urllib3<2**.\n", (summarize,)),
    (PINS, "Pinned: *django>=3.2,<4.2*.\n", (summarize,)),
    (PINS, "Pinned: __django>=3.2,<4.2__.\n", (summarize,)),
    (PINS, "Pinned: _django>=3.2_ and ***requests>=2.28***.\n", (summarize,)),
    (TABLE, "| **requests>=2.28** | >=3.8 |\n", (summarize,)),
    (TABLE, "| **requests>=2.28** | **>=3.8** |\n", (summarize,)),
    (WILD, "django==3.2.* and flask!=2.* are pinned.\n", (summarize,)),   # PEP 440's wildcard kept
    (WILD, "**django==3.2.*** is pinned.\n", (summarize,)),
    (PORTS, "Redis listens on __port 6380__.\n", (summarize,)),
])
def test_a_requirement_in_emphasis_is_accepted(source, text, edits):
    for edit in edits:
        assert_accepted(edit(source, text))


@pytest.mark.parametrize("source, lie", [
    (PINS, "The service needs **requests>2.28**.\n"),
    (PINS, "Pinned: *django>=3.2,>4.2*.\n"),
    (PINS, "Pinned: __django>=3.2,>4.2__.\n"),
    (PINS, "Pinned: __django>=3.2,<4.3__.\n"),
    (PINS, "Pinned: _django>=3.3_.\n"),
    (TABLE, "| **requests>=2.28** | >=3.7 |\n"),            # the python column moved, the cell in bold
    (TABLE, "| **requests>=2.28** | **>=3.7** |\n"),
    (WILD, "django==3.* and flask!=2.* are pinned.\n"),
    (WILD, "**django==3.3.*** is pinned.\n"),
    (PORTS, "Redis listens on __port 6381__.\n"),
    ("class A:\n    def __new__(cls): pass\n", "A defines __init__.\n"),   # a dunder name is as written
    (PINS, "Set __max_retries to 5__.\n"),
])
def test_a_requirement_in_emphasis_changed_is_refused(source, lie):
    assert not summarize(source, lie).accepted


def test_a_version_ends_in_a_wildcard_not_in_emphasis():
    assert set(_requirements(b"**requests>=2.28**")) == {(b"requests", b"", b">=", b"2.28")}
    assert set(_requirements(b"__django>=3.2,<4.2__")) == {(b"django", b"", b"<", b"4.2", b">=", b"3.2")}
    assert set(_requirements(b"django==3.2.*")) == {(b"django", b"", b"==", b"3.2.*")}
    assert set(_requirements(b"django==3.2.***")) == {(b"django", b"", b"==", b"3.2.*")}
    assert set(_requirements(b"x__django>=3.2")) == {(b"x-django", b"", b">=", b"3.2")}   # "_" in a name: its own
    row = set(_requirements(b"| **requests>=2.28** | **>=3.8** |"))
    assert (b"requests", b"", b">=", b"2.28", b"|", b">=3.8") in row


# red team 130a, F08: a requirement tabulated as "| package | spec |" (the name in a cell of its
# own) was no requirement: the set's operator flipped, its bounds traded between packages were
# accepted. A row of two cells, a name and a cell opening with a comparison, reads as one
# requirement (a row of more cells does not: docs/gate.md).
PINNED = "requests>=2.28,<3.0\ndjango>=3.2,<4.2\n"
BY_NAME = "| package | spec |\n|---|---|\n| requests | >=2.28,<3.0 |\n| django | >=3.2,<4.2 |\n"


@pytest.mark.parametrize("source, text, edits", [
    (PINNED, BY_NAME, (summarize,)),
    (BY_NAME, BY_NAME.replace("| requests |", "|  requests   |"), (rewrite, summarize)),
    (BY_NAME, "requests>=2.28,<3.0 and django>=3.2 are needed.\n", (summarize,)),   # refused before: no requirement
    (PINNED, "| requests | >=2.28 |\n", (summarize,)),
    ("requests[socks]>=2.28\n", "| requests[socks] | >=2.28 |\n", (summarize,)),
    ("p95 latency 28 ms, limit 30 ms\n", "| latency | < 30 ms |\n", (summarize,)),    # no requirement's name
    (KEYED, KEYED.replace("| requests |", "| requests   |"), (summarize,)),
])
def test_a_name_in_its_own_cell_kept_is_accepted(source, text, edits):
    for edit in edits:
        assert_accepted(edit(source, text))


@pytest.mark.parametrize("source, lie, edits", [
    (PINNED, "| package | spec |\n|---|---|\n| requests | >=2.28,>3.0 |\n", (summarize,)),
    (PINNED, "| package | spec |\n|---|---|\n| requests | >=2.28,<4.2 |\n| django | >=3.2,<3.0 |\n", (summarize,)),
    (BY_NAME, BY_NAME.replace("<3.0", "\0").replace("<4.2", "<3.0").replace("\0", "<4.2"), (summarize, rewrite)),
    (KEYED, KEYED.replace(" \\| ", ", "), (summarize,)),               # an "or" made an "and" (a limit of tables3)
    ("requests[socks]>=2.28\nurllib3>=1.26\n", "| requests | >=2.28 |\n| urllib3[socks] | >=1.26 |\n", (summarize,)),
])
def test_a_name_in_its_own_cell_changed_is_refused(source, lie, edits):
    for edit in edits:
        v = edit(source, lie)
        assert not v.accepted, edit.__name__
        assert changed(v), edit.__name__


def test_a_row_of_a_name_and_a_specifier_set_is_one_requirement():
    assert set(_requirements(b"| requests | >=2.28,>3.0 |\n")) == {(b"requests", b"", b">", b"3", b">=", b"2.28")}
    assert set(_requirements(b"  | requests[socks] | ==2.31 |")) == {(b"requests", b"socks", b"==", b"2.31")}
    assert set(_requirements(b"| django | >=3.2 | <4.2 |\n")) == set()         # three cells: not read (a limit)
    assert set(_requirements(b"x | requests | >=2 |\n")) == set()               # no table's row
    assert set(_requirements(b"| a b | >=2 |\n")) == set()                      # two words: no name


@pytest.mark.parametrize("make", [
    lambda n: b"".join(b"| a%d | >=1 |\n" % i for i in range(n)),             # n rows of a name and a set
    lambda n: b"".join(b"> | a%d>=1 | >=2 |\n" % i for i in range(n)),         # n rows off a line start
    lambda n: b"".join(b"__a%d>=1__ | **b>=2**\n" % i for i in range(n)),     # emphasis
])
def test_the_readings_of_f02_f07_f08_stay_linear(monkeypatch, make):
    counting = _Counting(gate_module._REQUIREMENT)
    monkeypatch.setattr(gate_module, "_REQUIREMENT", counting)
    for n in (50, 400):
        counting.calls = 0
        found = _requirements(make(n))
        assert counting.calls <= 3 * n + 1
        assert len(found) >= n


# red team 130a, F03: the row bound a requirement's cell only to the comparisons of the cells right
# after it, so a python constraint moved between rows was accepted in a summary when another column
# stood between, the python column came first, an empty column was inserted, or the cell held a word.
# A row binds every other cell's comparisons to its requirement, whatever their order (docs/gate.md).
OWNED = "| requirement | owner | python |\n|---|---|---|\n| requests>=2.28 | api-team | >=3.8 |\n| urllib3<2 | infra | >=3.7 |\n"
FIRST = "| python | requirement |\n|---|---|\n| >=3.8 | requests>=2.28 |\n| >=3.7 | urllib3<2 |\n"


@pytest.mark.parametrize("source, lie", [
    (TABLE, _swap(TABLE)),                                                               # the control: adjacent
    (OWNED, _swap(OWNED)),                                                               # a column between
    (FIRST, _swap(FIRST)),                                                               # the python column first
    (TABLE, "| requirement | | python |\n|---|---|---|\n| requests>=2.28 | | >=3.7 |\n| urllib3<2 | | >=3.8 |\n"),
    (TABLE, "| requests>=2.28 | py >=3.7 |\n| urllib3<2 | py >=3.8 |\n"),                 # a word in the cell
    (TABLE, _swap(FIRST)),                                                               # columns swapped, re-paired
    (OWNED, "| >=3.8 | urllib3<2 |\n| >=3.7 | requests>=2.28 |\n"),                     # rows reordered, re-paired
    (TABLE, "| requests>=2.28 | >=3.8, <4 |\n"),                                         # a clause added to the cell
])
def test_a_row_re_paired_whatever_its_cells_order_is_refused(source, lie):
    for edit in (summarize, rewrite):
        v = edit(source, lie)
        assert not v.accepted, edit.__name__
        assert changed(v), edit.__name__


@pytest.mark.parametrize("source, text, edits", [
    # (columns swapped: summaries; a rewrite so is refused by the in-place trade rule, on main too)
    (TABLE, FIRST, (summarize,)),
    (FIRST, TABLE, (summarize,)),                                                        # refused on main
    (OWNED, TABLE, (summarize,)),                                                        # a column dropped
    (OWNED, FIRST, (summarize,)),
    (TABLE, OWNED.replace("api-team", "api").replace("infra", "ops"), (summarize,)),    # a column added
    (OWNED, "| urllib3<2 | infra | >=3.7 |\n| requests>=2.28 | api-team | >=3.8 |\n", (summarize, rewrite)),
    (OWNED, "requests>=2.28 needs python >=3.8; urllib3<2 needs >=3.7.\n", (summarize,)),  # rows -> prose
    (TABLE, "| requests>=2.28 | py >=3.8 |\n| urllib3<2 | py >=3.7 |\n", (summarize,)),   # a word in the cell
    (TABLE, "| requests>=2.28 | | >=3.8 |\n| urllib3<2 | | >=3.7 |\n", (summarize, rewrite)),
    ("| requests>=2.28 | >=3.8 | <4 |\n", "| requests>=2.28 | >=3.8 |\n", (summarize,)),   # a summary names fewer
])
def test_a_row_kept_whatever_its_cells_order_is_accepted(source, text, edits):
    for edit in edits:
        assert_accepted(edit(source, text))


def test_a_row_binds_each_other_cell():
    key = (b"requests", b"", b">=", b"2.28", b"|", b">=3.8")
    for row in (b"| requests>=2.28 | >=3.8 |", b"| >=3.8 | requests>=2.28 |", b"| requests>=2.28 | api | >=3.8 |",
                b"| requests>=2.28 | | >=3.8 |", b"| requests>=2.28 | py >= 3.8.0 |", b"| **>=3.8** | `requests>=2.28` |"):
        assert key in set(_requirements(row)), row
    # (each requirement of a row is bound to the other cells, another requirement's among them)
    assert set(_requirements(b"| requests>=2.28 | urllib3<2 |")) >= {
        (b"requests", b"", b">=", b"2.28", b"|", b"<2"), (b"urllib3", b"", b"<", b"2", b"|", b">=2.28")}
    # (no other cell with a comparison: the cell alone)
    assert set(_requirements(b"| requests>=2.28 | api-team | py3.8 |")) == {(b"requests", b"", b">=", b"2.28")}


@pytest.mark.parametrize("make", [
    lambda n: b"| " + b"".join(b"a%d>=1 | x | >=2 | " % i for i in range(n)) + b"\n",  # one long row
    lambda n: b"".join(b"| >=2 | a%d>=1 | x |\n" % i for i in range(n)),             # n rows
])
def test_a_row_s_cells_are_read_once(monkeypatch, make):
    # (linear: a row's cells are read once, however many requirements it holds; a row of more
    # cells with comparisons than the bound binds each requirement to all of them, one tuple)
    counting = _CountingFunction(gate_module._row_cell_text)
    monkeypatch.setattr(gate_module, "_row_cell_text", counting)
    for n in (50, 400):
        counting.calls = 0
        text = make(n)
        found = _requirements(text)
        assert counting.calls <= 3 * n + 1
        assert len(found) >= n


class _CountingFunction:
    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self, *args):
        self.calls += 1
        return self.fn(*args)
