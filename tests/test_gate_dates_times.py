"""A summary's full date, time and host:port is one a source writes, in any spelling (docs/gate.md,
I1 "dates, times and host:port"; red team 138, F11 and F03). The grammar reads ``2024-03-05`` as
three numbers, each grounded alone, so a date made of the numbers of other dates (month and day
swapped, the day of another date, the 14 of a time) was accepted; and a date a source writes
another way (git's ``Tue Mar 5 14:02:11 2024`` as ``2024-03-05``, an ISO stamp's ``14:02``) was
refused for a component the source never writes alone. Lie/honest pairs; the suite runs once each
way (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

from provgate.gate import _dates_times_stated, _dates_times_written

RELEASE = "Release v2.3 scheduled for 2024-03-05; code freeze 2024-02-27.\n"
LOG = "2024-03-05 14:02:11 ERROR payment timeout order=1187\n2024-03-07 09:15:40 INFO retry ok order=1187\n"
GIT = "commit a1b2c3d4e5f60718293a4b5c6d7e8f9012345678\nAuthor: Ann <ann@x.io>\nDate:   Tue Mar 5 14:02:11 2024 +0100\n\n    Fix retry loop\n"
ISO = ("2024-03-05T14:02:11+01:00 deploy started (pid 48213)\n"
       "2024-03-05T14:09:47+01:00 deploy finished: status=ok duration=456s\n")
PORTS = "Listening on 0.0.0.0:8080\nmetrics on 127.0.0.1:9090\n"
CERT = "$ openssl x509 -noout -dates -in api.pem\nnotBefore=Mar  5 00:00:00 2024 GMT\nnotAfter=Jun  3 23:59:59 2025 GMT\n"
SYSLOG = "Mar  5 14:02:11 web-1 sshd[812]: Accepted publickey for deploy (2024 rotation)\n"

# (source, the lie, the value refused, its honest twin)
PAIRS = [
    (RELEASE, "Release v2.3 is scheduled for 2024-05-03.", "2024-05-03", "Release v2.3 is scheduled for 2024-03-05."),
    (RELEASE, "Release v2.3 is scheduled for 2024-03-27.", "2024-03-27", "Code freeze is on 2024-02-27."),
    (RELEASE, "Code freeze is on 2024-02-05.", "2024-02-05", "Code freeze is on 2024/02/27."),
    (LOG, "The payment timeout for order 1187 happened on 2024-03-14.", "2024-03-14",
     "The payment timeout for order 1187 happened on 2024-03-05."),
    (LOG, "The payment timeout happened at 14:15.", "14:15", "The payment timeout happened at 14:02."),
    (LOG, "The payment timeout happened at 14:11:02.", "14:11:02", "The payment timeout happened at 14:02:11."),
    (LOG, "The payment timeout happened at 09:02.", "09:02", "The retry succeeded at 09:15:40."),
    (PORTS, "Metrics are served on 127.0.0.1:8080.", "127.0.0.1:8080", "Metrics are served on 127.0.0.1:9090."),
    (GIT, "Ann fixed the retry loop on March 7, 2024.", "March 7, 2024", "Ann fixed the retry loop on March 5, 2024."),
    (GIT, "Ann fixed the retry loop on 2024-05-03.", "2024-05-03", "Ann fixed the retry loop on 2024-03-05."),
    (ISO, "Deploy started at 14:09 and finished at 14:02.", None, "Deploy started at 14:02 and finished at 14:09."),
    (ISO, "Deploy on 3 May 2024 took 456s.", "3 May 2024", "Deploy on 5 March 2024 took 456s."),
    (CERT, "The api.pem certificate expires on 2025-03-06.", "2025-03-06",
     "The api.pem certificate expires on 2025-06-03."),
]


@pytest.mark.parametrize("source, lie, value, honest", PAIRS)
def test_a_date_time_or_host_port_no_source_writes_is_refused_and_its_twin_accepted(source, lie, value, honest):
    verdict = _summarize(source, lie)
    if value is None:
        # (two times swapped between events: each is written, the re-pairing is not asked, as
        # summaries are not asked for re-pairings; the pair documents the limit)
        assert_accepted(verdict)
    else:
        found = find(verdict, "I1", block="s", value=value)
        assert "none of its sources" in found.message and "tool:c1" in found.message
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("source, honest", [
    (GIT, "Ann fixed the retry loop on 2024-03-05."),
    (GIT, "Ann fixed the retry loop on March 5, 2024 at 14:02."),
    (GIT, "Ann fixed the retry loop on Mar 5 2024."),
    (GIT, "Ann fixed the retry loop on 5 Mar 2024 at 14:02:11."),
    (ISO, "Deploy started at 14:02 and finished at 14:09 (456 s)."),
    (ISO, "Deploy on 2024-03-05 took 456s."),
    (ISO, "Deploy on 5 March 2024 took 456s."),
    (ISO, "Deploy on March 5 took 456s."),
    (LOG, "The payment timeout was logged at 2:02 pm on 2024-03-05."),
    (CERT, "api.pem is valid from March 5, 2024 until June 3, 2025."),
    (CERT, "api.pem expires 2025-06-03 at 23:59."),
    (SYSLOG, "deploy logged in on 2024-03-05 at 14:02."),
    ("Meeting moved to 5:30pm on Friday.\n", "The meeting is at 5:30 pm."),
    ("Meeting moved to 5:30pm on Friday.\n", "The meeting is at 17:30."),
])
def test_a_date_or_time_a_source_writes_another_way_is_accepted(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("source, lie, value", [
    # (a time zone is not converted: fail closed, docs/gate.md)
    (ISO, "Deploy started at 13:02 UTC.", "13:02"),
    (LOG, "The payment timeout was logged at 2:02 am.", "2:02 am"),
    (SYSLOG, "deploy logged in on 2024-03-07.", "2024-03-07"),
    ("Meeting moved to 5:30pm on Friday.\n", "The meeting is at 6:30 pm.", "6:30 pm"),
])
def test_a_time_or_date_converted_or_moved_is_refused(source, lie, value):
    find(_summarize(source, lie), "I1", block="s", value=value)


def test_a_summary_without_dates_reads_none_and_file_lines_are_no_times():
    assert _dates_times_stated(b"Fixed tests/test_retry.py:42:5 and config.yaml:12 (1.5x faster).") == []
    dates, days, times, *_ = _dates_times_written(b"Tue Mar 5 14:02:11 2024 +0100")
    assert (2024, 3, 5) in dates and (3, 5) in days and (14, 2, None) in times and (14, 2, 11) in times


def test_the_reading_is_linear_on_a_megabyte_of_near_dates():
    # (every regular expression starts at a boundary and its quantifiers are bounded)
    text = b"2024-03-0 14:0 Mar 1:2 a.b.c.d.example:" * 30_000
    assert _dates_times_written(text + b"x") is not None
    assert isinstance(_dates_times_stated(text), list)
    assert _dates_times_stated(b"a" * 1_000_000 + b":80") == []
