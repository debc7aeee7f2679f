"""Red team 130a, F05: the short forms an agent writes of a value its sources hold whole are
grounded (I1), each lie of the same form refused: a commit's digest by its first seven or more
hex digits, a path by its last segments (with its line), a version with or without its "v" or
glued to its package's name (docs/gate.md, I1's looser readings)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted
from test_grammar_v4 import _summarize

GIT_LOG = ("commit 3f9a2c1e8b7d6f5a4e3d2c1b0a9f8e7d6c5b4a39\nAuthor: Jane Doe <jane.doe@example.com>\n\n"
           "    Fix PROJ-1234: retry on 503 in src/net/client.py:118\n")
DIFF = ("diff --git a/config/settings.py b/config/settings.py\nindex 4e3c2a1..8b9d0f7 100644\n"
        "--- a/config/settings.py\n+++ b/config/settings.py\n@@ -42,7 +42,7 @@ DATABASES = {\n")
PIP = ("Collecting requests<3,>=2.28\n  Downloading requests-2.31.0-py3-none-any.whl (62 kB)\n"
       "Successfully installed certifi-2024.2.2 idna-3.6 requests-2.31.0\n")
TRACEBACK = ('Traceback (most recent call last):\n  File "/srv/app/orders/repository.py", line 212, in save_order\n'
             "    session.commit()\n")
TABLE = "| Service | Host | Port | Version |\n|---|---|---|---|\n| auth | auth-1.prod.internal | 8081 | 3.2.1 |\n"
TAGGED = "Deployed auth v3.2.1 to prod.\n"

DIGITS_SHA = "commit 8436682f5a4e3d2c1b0a9f8e7d6c5b4a39e8b7d6\n    Bump urllib3-2.0.7 and boto3-1.34.0\n"
UUID = "owner 550e8400-e29b-41d4-a716-446655440000\n"
FILE_SHA256 = "sha256 3f9a2c1e8b7d6f5a4e3d2c1b0a9f8e7d6c5b4a39aa11bb22cc33dd44ee55ff66 app.tar.gz\n"
PIP_TWO = "Successfully installed requests-2.31.0 charset-normalizer-3.3.2\n"
DURATION = "The job took 1.2 seconds.\n"
HOST = "host 10.0.0.12 is up\n"

HONEST = [
    (DIGITS_SHA, "Commit 8436682 bumped urllib3.\n"),  # a short digest of digits only (red team 131, F05)
    (DIGITS_SHA, "urllib3 2.0.7 and boto3 1.34.0 are bumped.\n"),  # a name ending in a digit
    (GIT_LOG, "Commit 3f9a2c1 fixed PROJ-1234.\n"),
    (GIT_LOG, "Commit `3f9a2c1e8b7d` fixed PROJ-1234.\n"),
    (GIT_LOG, "The retry fix is in client.py:118.\n"),
    (GIT_LOG, "The retry fix is in net/client.py:118.\n"),
    (TRACEBACK, "save_order failed at orders/repository.py:212.\n"),
    (TRACEBACK, "save_order failed in repository.py, line 212.\n"),
    (DIFF, "config/settings.py changed.\n"),
    (PIP, "requests 2.31.0 was installed.\n"),
    (PIP, "certifi 2024.2.2 was installed.\n"),
    (TABLE, "auth runs v3.2.1 on port 8081.\n"),
    (TAGGED, "auth 3.2.1 is deployed.\n"),
    # red team 131, F04: a version stays grounded by a figure that reads as one, and by the
    # version its source glues to the name written before it
    (PIP_TWO, "Installed requests 2.31.0 and charset-normalizer 3.3.2.\n"),
    (PIP_TWO, "Installed charset-normalizer v3.3.2 and requests version 2.31.0.\n"),
    ("Released version 1.2 today.\n", "Upgraded to v1.2.\n"),
    ("image nginx:1.25 pulled\n", "The proxy runs v1.25.\n"),
    ("release 10.0.0.12 shipped\n", "The server runs v10.0.0.12.\n"),
    ("auth-3.2.1 built in 4.2 s\n", "auth v3.2.1 is built.\n"),
]

LIES = [
    # red team 131, F03: a short digest is an object name's prefix (40 or 64 hex digits), not any
    # hex run's: a UUID's first part, a file's sha256 cut to 40 digits
    (UUID, "Commit 550e840 is the owner.\n", "550e840"),
    (FILE_SHA256, "Commit 3f9a2c1e8b7d6f5a4e3d2c1b0a9f8e7d6c5b4a39 built it.\n",
     "3f9a2c1e8b7d6f5a4e3d2c1b0a9f8e7d6c5b4a39"),
    (DIGITS_SHA, "Commit 8436683 bumped urllib3.\n", "8436683"),
    (DIGITS_SHA, "urllib4 2.0.7 is bumped.\n", "urllib4"),
    (DIGITS_SHA, "urllib3 2.0.8 is bumped.\n", "2.0.8"),
    (GIT_LOG, "Commit 3f9a2c2 fixed PROJ-1234.\n", "3f9a2c2"),  # a digit changed
    (GIT_LOG, "Commit 9a2c1e8 fixed PROJ-1234.\n", "9a2c1e8"),  # inside the digest, no prefix of it
    (GIT_LOG, "Commit 3f9a2c1e8b7e fixed PROJ-1234.\n", "3f9a2c1e8b7e"),
    (GIT_LOG, "The retry fix is in server.py:118.\n", "server.py"),
    (GIT_LOG, "The retry fix is in ient.py.\n", "ient.py"),  # no segment of the path
    (TRACEBACK, "save_order failed at orders/repository.py:213.\n", "orders/repository.py:213"),
    (TRACEBACK, "save_order failed at billing/repository.py:212.\n", "billing/repository.py:212"),
    (DIFF, "config/setting.py changed.\n", "config/setting.py"),
    (PIP, "requests 2.31.1 was installed.\n", "2.31.1"),
    (PIP, "requests 2.31 was installed.\n", "2.31"),  # a prefix of the version, no version
    (TABLE, "auth runs v3.2.2 on port 8081.\n", "v3.2.2"),
    (TAGGED, "auth 3.2.11 is deployed.\n", "3.2.11"),
    # red team 131, F04: a "v" version of a measured figure or an IPv4 address; versions swapped
    # between the packages pip glues them to
    (DURATION, "Upgraded to v1.2.\n", "v1.2"),
    (HOST, "The server runs v10.0.0.12.\n", "v10.0.0.12"),
    (PIP_TWO, "Installed requests 3.3.2 and charset-normalizer 2.31.0.\n", "3.3.2"),
    (PIP_TWO, "Installed requests v3.3.2.\n", "v3.3.2"),
    (PIP_TWO, "Installed charset-normalizer v2.31.0.\n", "v2.31.0"),
    (PIP_TWO, "Installed Charset_Normalizer 2.31.0.\n", "2.31.0"),  # the names pip compares alike
    (DIGITS_SHA, "urllib3 1.34.0 and boto3 2.0.7 are bumped.\n", "1.34.0"),
]


@pytest.mark.parametrize("source, text", HONEST)
def test_a_short_form_of_a_value_the_source_holds_is_grounded(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("source, text, value", LIES)
def test_a_short_form_of_a_value_the_source_does_not_hold_is_refused(source, text, value):
    verdict = _summarize(source, text)
    assert not verdict.accepted
    assert any(v.invariant == "I1" and v.value == value for v in verdict.violations), verdict.summary()


def test_each_source_is_read_once_for_every_short_form_of_a_block(monkeypatch):
    """A summary of many short forms none of which its source holds reads the source's hex runs
    and versions once, not once a form (a per-form search was rows x bytes)."""
    from provgate import gate

    reads = {"hex": 0, "version": 0}

    class Counting:
        def __init__(self, pattern, name):
            self.pattern, self.name = pattern, name

        def finditer(self, data):
            reads[self.name] += 1
            return self.pattern.finditer(data)

    monkeypatch.setattr(gate, "_HEX_RUN", Counting(gate._HEX_RUN, "hex"))
    monkeypatch.setattr(gate, "_VERSION_TOKEN", Counting(gate._VERSION_TOKEN, "version"))
    source = "".join(f"commit {n:040x} released v1.{n}.0\n" for n in range(1, 400))
    text = "".join(f"Commit {n:07x}f shipped 9.{n}.1.\n" for n in range(1, 400))
    verdict = _summarize(source, text)
    assert not verdict.accepted
    assert reads == {"hex": 1, "version": 1}
