"""Exact values re-paired in a rewrite (docs/gate.md, I2 "figures traded inside a block"; red
team 130a, F04). The in-place trade rule read only numbers as figures, so a lossless rewrite
that swapped two hosts between "primary" and "replica", two pod names between their statuses,
gcc's error and warning locations, two ``path:line`` between error and warning, or two UUIDs
between owner and guest kept every fact and was accepted; the same swap of a number was refused.
Identifiers, paths, digests and URLs are now figures of a second pass of the same rule. The
rule is pure Python over the scanner's rows; run the file once each way
(PROVGATE_NO_EXTENSIONS=1) for both paths."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _rewrite

from provgate.facts import extract
from provgate.gate import _exact_values, _figures_by_context, _word_bounds


def _sw(text: str, a: str, b: str) -> str:
    return text.replace(a, "\0").replace(b, a).replace("\0", b)


_PODS = ("NAME                          READY   STATUS             RESTARTS   AGE\n"
         "api-7d9f8b6c5-x2kqp           1/1     Running            0          3h\n"
         "api-7d9f8b6c5-zz81m           0/1     CrashLoopBackOff   17         3h\n")
_GCC = ("src/parser/lexer.c:412:17: error: 'tok_len' undeclared (first use in this function)\n"
        "src/parser/lexer.c:530:5: warning: implicit declaration of function 'emit_token'\n")
_UUIDS = "owner 7f3e9c2a-4b1d-4e8f-9a6c-2d5b8e1f0c34\nguest 0a1b2c3d-4b1d-4e8f-9a6c-2d5b8e1f0c99\n"
_HOSTS = "db-01 healthy\ndb-02 degraded\n"
_ROLES = "The primary is db-01 and the replica is db-02.\n"
_FILES = "Error in src/app/a.py:12\nWarning in src/app/b.py:40\n"
_SHAS = "deployed 3f9a2c1e8b7d\nrolled back 9b8e7f6a5c4d\n"
_URLS = "Prod is https://prod.acme.io/api and staging is https://staging.acme.io/api.\n"
_MAILS = "owner: alice@acme.io, reviewer: bob@acme.io\n"
_CSV = "region,orders,revenue_usd,refund_rate\nus-east-1,18231,412883.50,2.4%\neu-west-1,9120,198002.75,3.1%\n"


@pytest.mark.parametrize("before, after, kind", [
    (_ROLES, _sw(_ROLES, "db-01", "db-02"), "identifier"),                  # roles swapped
    (_HOSTS, _sw(_HOSTS, "db-01", "db-02"), "identifier"),                  # statuses swapped
    (_PODS, _sw(_PODS, "x2kqp", "zz81m"), "identifier"),                    # the crashing pod renamed
    (_GCC, _sw(_GCC, "412:17", "530:5"), "path"),                           # error / warning locations
    (_FILES, _sw(_FILES, "a.py:12", "b.py:40"), "path"),
    (_UUIDS, _sw(_UUIDS, "7f3e9c2a", "0a1b2c3d").replace("0c34", "X").replace("0c99", "0c34").replace("X", "0c99"),
     "digest"),                                                             # owner / guest
    (_SHAS, _sw(_SHAS, "3f9a2c1e8b7d", "9b8e7f6a5c4d"), "digest"),
    (_URLS, _sw(_URLS, "prod.acme.io", "staging.acme.io"), "url"),
    (_MAILS, _sw(_MAILS, "alice", "bob"), "identifier"),
    # (regions swapped between rows: the numbers' names, "us", "east", traded first)
    (_CSV, _sw(_CSV, "us-east-1", "eu-west-1"), "number"),
    # the rows reordered as well as the values re-paired
    (_HOSTS, "db-01 degraded\ndb-02 healthy\n", "identifier"),
    (_ROLES, "The replica is db-01 and the primary is db-02.\n", "identifier"),
])
def test_exact_values_re_paired_in_a_rewrite_are_refused(before, after, kind):
    assert after != before
    found = find(_rewrite(before, after), "I2", evidence__change="traded_in_place")
    assert found.key == kind


@pytest.mark.parametrize("before, after", [
    # reworded around the values, none moved
    (_ROLES, "db-01 is the primary; db-02 is the replica.\n"),
    (_ROLES, "Primary: db-01. Replica: db-02.\n"),
    (_HOSTS, "db-01 is healthy\ndb-02 is degraded\n"),
    (_FILES, "An error in src/app/a.py:12, a warning in src/app/b.py:40.\n"),
    # whole lines / rows reordered, each value with its row
    (_HOSTS, "db-02 degraded\ndb-01 healthy\n"),
    (_PODS, _PODS.split("\n")[0] + "\n" + _PODS.split("\n")[2] + "\n" + _PODS.split("\n")[1] + "\n"),
    (_PODS, "\n".join(reversed(_PODS.rstrip("\n").split("\n"))) + "\n"),
    (_GCC, "\n".join(reversed(_GCC.rstrip("\n").split("\n"))) + "\n"),
    (_UUIDS, "guest 0a1b2c3d-4b1d-4e8f-9a6c-2d5b8e1f0c99\nowner 7f3e9c2a-4b1d-4e8f-9a6c-2d5b8e1f0c34\n"),
    (_CSV, "\n".join(reversed(_CSV.rstrip("\n").split("\n"))) + "\n"),     # (the header last)
    (_CSV, "\n".join(_CSV.rstrip("\n").split("\n")[1:] + _CSV.split("\n")[:1]) + "\n"),
    (_ROLES, "The replica is db-02 and the primary is db-01.\n"),
    (_MAILS, "reviewer: bob@acme.io, owner: alice@acme.io\n"),
    # reformatted: a list, a table, re-indented
    (_HOSTS, "- db-01 healthy\n- db-02 degraded\n"),
    (_HOSTS, "| host | state |\n|---|---|\n| db-01 | healthy |\n| db-02 | degraded |\n"),
    (_GCC, "Compiler output:\n" + "".join("    " + line + "\n" for line in _GCC.rstrip("\n").split("\n"))),
    (_UUIDS, "- owner 7f3e9c2a-4b1d-4e8f-9a6c-2d5b8e1f0c34\n- guest 0a1b2c3d-4b1d-4e8f-9a6c-2d5b8e1f0c99\n"),
    # names joined by a number glued to them, reordered (the number pass's own case)
    ("Pinned lodash@4.17.21 and react@18.2.0 in the lockfile.", "Pinned react@18.2.0 and lodash@4.17.21 in the lockfile."),
    # a list of values with no words of their own, reordered
    ("Hosts: db-01, db-02, db-03.\n", "Hosts: db-03, db-01, db-02.\n"),
])
def test_exact_values_kept_in_their_statements_are_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


def test_the_number_pass_reports_first():
    # (one trade a block: a number traded is reported as before, the exact values not read again)
    found = find(_rewrite("OPS-881 open\nOPS-882 closed\n", "OPS-882 open\nOPS-881 closed\n"), "I2",
                 evidence__change="traded_in_place")
    assert found.key == "number"
    found = find(_rewrite("db-01 has 12 GB, db-02 has 34 GB.", "db-02 has 12 GB, db-01 has 34 GB."), "I2",
                 evidence__change="traded_in_place")
    assert found.key == "number"


def test_exact_values_are_the_outermost_value_rows_by_start():
    data = b"see https://x.io/db-01 and src/a.py:12 on db-02 (3f9a2c1e8b7d), 12 GB, tok_len"
    table = extract(data)
    rows = _exact_values(table).tolist()
    values = [table.span(r).value for r in rows]
    assert values == ["https://x.io/db-01", "src/a.py:12", "db-02", "3f9a2c1e8b7d", "tok_len"]
    starts = [int(table.start[r]) for r in rows]
    assert starts == sorted(starts)
    with_numbers = [table.span(r).value for r in _exact_values(table, True).tolist()]
    assert "12" in with_numbers and set(values) <= set(with_numbers)


def test_an_exact_values_context_is_its_line_with_no_unit():
    data = b"region,orders,revenue_usd,refund_rate\nus-east-1,18231\n"
    table = extract(data)
    rows = _exact_values(table).tolist()
    found = _figures_by_context(table, rows, [table.value_bytes(r) for r in rows], _word_bounds(data), True)
    figures = {f for counts, _ in found.values() for f in counts}
    assert b"refund_rate" in figures  # (not "refund_rate us": "us" of the next line is no unit)
    assert (b"", b"", b"18231", b"") in found  # (the row's words only)
    # (the numbers' contexts as before: across lines, with units)
    numbers = _figures_by_context(extract(b"wait 30\ns more"), [0], [b"30"], _word_bounds(b"wait 30\ns more"))
    assert next(iter(numbers.values()))[0] == {b"30 s": 1}


# a whitespace-aligned row holds more figures than its names are read for, and its figures move
# with the words beside them: two rows that traded one figure each, all else kept, traded it
_NETSTAT = ("tcp   0  0 127.0.0.1:5432   0.0.0.0:*   LISTEN   1423/postgres\n"
            "tcp6  0  0 :::8080          :::*        LISTEN   2871/java\n")
_PS = ("USER  PID  %CPU %MEM    VSZ   RSS TTY STAT START TIME COMMAND\n"
       "app  4121  87.9 12.1 2345 998 ? Sl 09:12 41:07 python worker.py\n"
       "app  4188   0.3  1.2  456 101 ? S  09:12  0:01 python beat.py\n")


@pytest.mark.parametrize("before, after", [
    (_NETSTAT, _sw(_NETSTAT, "1423/postgres", "2871/java")),        # programs swapped between ports
    (_NETSTAT, _sw(_NETSTAT, "5432", "8080")),                       # ports swapped between programs
    (_PS, _sw(_PS, "4121", "4188")),                                 # the busy worker's PID given to beat
])
def test_figures_traded_between_rows_of_many_figures_are_refused(before, after):
    assert after != before
    find(_rewrite(before, after), "I2", evidence__change="traded_in_place")


@pytest.mark.parametrize("before, after", [
    (_NETSTAT, "\n".join(reversed(_NETSTAT.rstrip("\n").split("\n"))) + "\n"),   # rows reordered whole
    (_NETSTAT, "Listening sockets:\n" + "".join("  " + line + "\n" for line in _NETSTAT.rstrip("\n").split("\n"))),
    (_PS, _PS.split("\n")[0] + "\n" + _PS.split("\n")[2] + "\n" + _PS.split("\n")[1] + "\n"),
    # two lines of two figures regrouped by measurement (read only from three figures a line)
    ("db-01 has 12 GB and 4 cores\ndb-02 has 34 GB and 8 cores\n",
     "Disks: 12 GB on db-01, 34 GB on db-02\nCores: 4 on db-01, 8 on db-02\n"),
    ("a 1 2 3 x\nb 4 5 6 y\n", "b 4 5 6 y\n(then)\na 1 2 3 x\n"),
])
def test_rows_of_many_figures_kept_whole_are_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


def test_figure_lines_reads_lines_of_three_figures_or_more():
    from provgate.gate import _ROW_TRADE_LEAST, _ROW_TRADE_MOST, _figure_lines

    data = b"a 1 2 3\nb 4 5\nc " + b" ".join(str(k).encode() for k in range(_ROW_TRADE_MOST + 1)) + b"\nd 6 7 8 9\n"
    table = extract(data)
    lines = _figure_lines(table, _exact_values(table, True))
    assert sorted(len(line) for line in lines) == [3, 4]  # (not 2 figures, nor more than the most)
    assert _ROW_TRADE_LEAST == 3


# red team 130a, F06: an unfenced diff rewritten with its "-" / "+" markers swapped reverses the
# change and kept every fact (the marker is no part of one)
_DIFF = ("diff --git a/config/settings.py b/config/settings.py\nindex 4e3c2a1..8b9d0f7 100644\n"
         "--- a/config/settings.py\n+++ b/config/settings.py\n@@ -42,7 +42,7 @@ DATABASES = {\n"
         "         'HOST': 'db-primary.internal',\n-        'PORT': 5432,\n+        'PORT': 6432,\n"
         "         'CONN_MAX_AGE': 600,\n")


@pytest.mark.parametrize("after", [
    _DIFF.replace("-        'PORT': 5432,\n+        'PORT': 6432,", "+        'PORT': 5432,\n-        'PORT': 6432,"),
    _DIFF.replace("-        'PORT': 5432,", "+        'PORT': 5432,").replace("+        'PORT': 6432,", "-        'PORT': 6432,"),
    _DIFF.replace("-        'PORT': 5432,\n+        'PORT': 6432,", "+        'PORT': 6432,\n+        'PORT': 5432,"),
    _DIFF.replace("--- a/config/settings.py\n+++ b/config/settings.py", "+++ a/config/settings.py\n--- b/config/settings.py"),
    "The change:\n" + "".join("    " + line + "\n" for line in _DIFF.replace(
        "-        'PORT': 5432,\n+        'PORT': 6432,", "+        'PORT': 5432,\n-        'PORT': 6432,").split("\n")[:-1]),
])
def test_diff_markers_flipped_in_a_rewrite_are_refused(after):
    find(_rewrite(_DIFF, after), "I2", evidence__change="diff_marker_flipped")


@pytest.mark.parametrize("after", [
    "The change to the settings:\n" + _DIFF,                                             # reworded around
    "".join("    " + line + "\n" for line in _DIFF.split("\n")[:-1]),                    # re-indented
    "".join("> " + line + "\n" for line in _DIFF.split("\n")[:-1]),                      # quoted
    _DIFF + "(PORT moves to the pooler)\n",
])
def test_diffs_rewritten_with_their_markers_are_accepted(after):
    assert_accepted(_rewrite(_DIFF, after), "lossless")


def test_diff_markers_read_only_marked_lines():
    from provgate.gate import _diff_markers

    found = _diff_markers(_DIFF.encode() + b"-x\n+x\n")
    assert found[b"'PORT': 5432,"] == {b"-"} and found[b"'PORT': 6432,"] == {b"+"}
    assert found[b"a/config/settings.py"] == {b"---"} and found[b"b/config/settings.py"] == {b"+++"}
    assert found[b"x"] == {b"-", b"+"}  # (a line removed and added: either marker kept is no flip)
    assert b"'HOST': 'db-primary.internal'," not in found  # (a context line)


@pytest.mark.parametrize("before, after", [
    # red team 131, F02: a wrapped list sorted again moves its figures along the lines, each to
    # another place in its line: no trade of two lines (a limit: the hosts' list "db-01 db-03
    # db-05" / "db-02 db-04 db-06" sorted is still refused, by the trade of names in place)
    ("ports: 8001 8003 8005\n       8002 8004 8006\n", "ports: 8001 8002 8003\n       8004 8005 8006\n"),
    ("a1.txt c3.txt e5.txt\nb2.txt d4.txt f6.txt\n", "a1.txt b2.txt c3.txt\nd4.txt e5.txt f6.txt\n"),
])
def test_a_wrapped_list_sorted_again_is_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")
