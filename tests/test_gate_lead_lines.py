"""The line reader git's --stat rows, git blame's lines and npm's summary lines share
(:func:`provgate.gate._lead_line_matches`): a pattern matched once from the start of each line
holding a lead, at most a given number of matches, given up past ``_LINE_LEAD_MISSES`` lines
holding the lead that it does not match, and, for lines that stand together (git blame's), at
the first such line after a match. The rules reading those tools are tested with lie/honest pairs
in tests/test_gate_other_tools_pairs.py; these pin the bounds they share."""

from __future__ import annotations

import re

from provgate.gate import (
    _LINE_LEAD_MISSES,
    _blame_rows,
    _lead_line_matches,
    _npm_count_lines,
)

ROW = re.compile(rb"row (\d+)")


def _read(data: bytes, **kw: object) -> list[bytes]:
    return [m[1] for m in _lead_line_matches(data, b"row", ROW, **kw)]  # type: ignore[arg-type]


def test_each_line_holding_the_lead_is_matched_once_from_its_start() -> None:
    assert _read(b"row 1 row 2\n  row 3\nrow 4") == [b"1", b"4"]  # ("  row 3": not from its start)
    assert _read(b"no lead here\nrow 5\n") == [b"5"]


def test_the_matches_are_bounded() -> None:
    data = b"".join(b"row %d\n" % n for n in range(10))
    assert _read(data, most=3) == [b"0", b"1", b"2"]
    assert _read(data, most=0) == []


def test_past_the_misses_bound_the_rest_is_left_unread() -> None:
    misses = b"a row without a number\n"
    assert _read(misses * _LINE_LEAD_MISSES + b"row 7\n") == [b"7"]
    assert _read(misses * (_LINE_LEAD_MISSES + 1) + b"row 7\n") == []
    # (the misses are counted over the whole read, matches between them or not)
    assert _read(b"row 1\n" + misses * (_LINE_LEAD_MISSES + 1) + b"row 7\n") == [b"1"]


def test_lines_read_together_end_at_the_first_miss_after_a_match() -> None:
    data = b"a row of prose\nrow 1\nrow 2\na row of prose\nrow 3\n"
    assert _read(data, together=True) == [b"1", b"2"]
    assert _read(data) == [b"1", b"2", b"3"]


def test_git_blame_lines_are_read_together() -> None:
    blame = (b"a1b2c3d4 (Jane Doe 2024-03-05 12) TIMEOUT = 30\n"
             b"e5f6a7b8 (Bob Smith 2024-03-06 13) MAX_RETRIES = 5\n")
    read = _blame_rows(b"see the log (below)\n" + blame + b"note (a prose line)\n" + blame.replace(b"Bob", b"Ann"))
    assert read is not None
    assert [author for author, _, _ in read.lines] == [b"Jane Doe", b"Bob Smith"]


def test_npm_reads_each_lead_to_its_own_misses_bound_and_one_bound_of_lines() -> None:
    prose = b"the packages were fine\n" * (_LINE_LEAD_MISSES + 1)
    assert [m[0] for m in _npm_count_lines(prose + b"added 3 packages\n3 vulnerabilities (1 low, 2 high)\n")] == [
        b"3 vulnerabilities (1 low, 2 high)"]
    lines = b"added 3 packages\n" * 100
    assert len(list(_npm_count_lines(lines + b"2 vulnerabilities\n"))) == 64
