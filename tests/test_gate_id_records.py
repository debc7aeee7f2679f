"""A record one event spreads over lines is one line of its values for the identifier
re-pairing rule (docs/gate.md, I1 "identifiers re-paired"; red team 141, F17, F11). A default
``git log`` or ``git show`` writes a commit over ~5 lines (``commit <sha>``, ``Author:``,
``Date:``, the message), so a summary giving one commit's author or message to another's SHA
met no partner on the SHA's line and was accepted; a Python traceback's exception line and its
frames are one event, so the missing file named beside a frame's function was refused. Lie/honest
pairs; the suite runs once each way (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import pytest
from gate_helpers import GIT_LOG_THREE_COMMITS as GIT_LOG
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

# two git show outputs in one source: each commit's record ends at its diff
GIT_SHOW = """$ git show 4f1e2d3 9c8b7a6
commit 4f1e2d3c5b6a79808f7e6d5c4b3a29181716151a
Author: Jane Doe <jane@example.com>
Date:   Tue Mar 5 14:02:11 2024 +0100

    Fix retry backoff in http client

diff --git a/src/http.py b/src/http.py
--- a/src/http.py
+++ b/src/http.py
@@ -10,7 +10,7 @@
-    delay = 1
+    delay = min(2 ** attempt, 30)
commit 9c8b7a6f5e4d3c2b1a09f8e7d6c5b4a392817263
Author: Bob Smith <bob@example.com>
Date:   Mon Mar 4 09:15:42 2024 +0100

    Add Redis cache layer

diff --git a/src/cache.py b/src/cache.py
"""
TRACEBACK = """Traceback (most recent call last):
  File "/app/src/main.py", line 27, in <module>
    main()
  File "/app/src/main.py", line 19, in main
    cfg = load_config(os.environ["APP_CONFIG"])
  File "/app/src/config.py", line 8, in load_config
    with open(path) as f:
FileNotFoundError: [Errno 2] No such file or directory: '/etc/app/config.yaml'
"""

# (source, the lie, the value refused, the partner named, its honest twin)
PAIRS = [
    (GIT_LOG, "The most recent commit is 9c8b7a6 by Jane Doe on 2024-03-05, fixing the retry backoff.",
     "9c8b7a6", "Jane", "The most recent commit is 4f1e2d3 by Jane Doe on 2024-03-05, fixing the retry backoff."),
    (GIT_LOG, "4f1e2d3 Fix retry backoff in http client (Bob Smith, Mar 5).", "4f1e2d3", "Bob",
     "4f1e2d3 Fix retry backoff in http client (Jane Doe, Mar 5)."),
    (GIT_LOG, "Bob Smith bumped numpy to 1.26.4 in 1a2b3c4.", "1a2b3c4", "Bob",
     "Jane Doe bumped numpy to 1.26.4 in 1a2b3c4."),
    (GIT_LOG, "Commit 9c8b7a6 fixed the retry backoff in the http client.", "9c8b7a6", "fixed",
     "Commit 4f1e2d3 fixed the retry backoff in the http client."),
    (GIT_LOG, "Commit 9c8b7a6f5e fixed the retry backoff.", "9c8b7a6f5e", "fixed",
     "Commit 4f1e2d3c5b fixed the retry backoff."),
    (GIT_SHOW, "Bob Smith's 4f1e2d3 fixed the retry backoff.", "4f1e2d3", "Bob",
     "Jane Doe's 4f1e2d3 fixed the retry backoff."),
    (GIT_SHOW, "9c8b7a6 by Bob Smith fixed the retry backoff.", "9c8b7a6", "fixed",
     "9c8b7a6 by Bob Smith added the Redis cache layer."),
]


@pytest.mark.parametrize(("source", "lie", "value", "partner", "honest"), PAIRS)
def test_a_commit_records_partner_given_to_another_commit_is_refused_and_its_twin_accepted(
        source, lie, value, partner, honest):
    found = find(_summarize(source, lie), "I1", block="s", value=value)
    assert found.evidence["change"] == "identifier_repaired"
    assert found.evidence["partner"] == partner
    assert found.evidence["other_line"].startswith("commit ")
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("honest", [
    ("The log: 4f1e2d3 (Jane Doe) fixes the retry backoff, 9c8b7a6 (Bob Smith) adds a Redis cache "
     "layer and 1a2b3c4 (Jane Doe) bumps numpy to 1.26.4."),
    "Jane Doe authored 4f1e2d3 and 1a2b3c4; Bob Smith added the Redis cache layer in 9c8b7a6.",
    "Commits 4f1e2d3 and 9c8b7a6 were by Jane Doe and Bob Smith respectively.",
    "The latest commit, 4f1e2d3c5b6a79808f7e6d5c4b3a29181716151a, is Jane Doe's retry backoff fix.",
    "- 9c8b7a6 Add Redis cache layer (Bob Smith, Mar 4)\n- 1a2b3c4 Bump numpy to 1.26.4 (Jane Doe, Mar 1)",
])
def test_honest_summaries_of_a_git_log_stay_accepted(honest):
    assert_accepted(_summarize(GIT_LOG, honest))


@pytest.mark.parametrize("honest", [
    ("The app crashed at startup with FileNotFoundError: /etc/app/config.yaml does not exist "
     "(load_config in src/config.py line 8, called from main at line 19)."),
    "The config file /etc/app/config.yaml is missing; load_config in src/config.py raised FileNotFoundError.",
    "FileNotFoundError: /etc/app/config.yaml does not exist.",
    "load_config in /app/src/config.py line 8 could not open /etc/app/config.yaml.",
])
def test_a_tracebacks_exception_reads_its_frames_words(honest):
    assert_accepted(_summarize(TRACEBACK, honest))


def test_a_tracebacks_frames_keep_their_own_lines():
    # (the exception line reads the frames' words; a frame's own partners stay its line's)
    found = find(_summarize(TRACEBACK, "/app/src/config.py line 19 raised FileNotFoundError."), "I1",
                 block="s", value="/app/src/config.py")
    assert found.evidence["change"] == "identifier_repaired"
    assert_accepted(_summarize(TRACEBACK, "/app/src/config.py line 8 raised FileNotFoundError."))


def test_a_tracebacks_frame_reads_its_exceptions_words():
    source = TRACEBACK.replace("FileNotFoundError: [Errno 2] No such file or directory:", "OSError: cannot read")
    assert_accepted(_summarize(source, "/app/src/config.py raised OSError for /etc/app/config.yaml."))
    assert_accepted(_summarize(source, "/app/src/config.py line 8 raised OSError."))
    find(_summarize(source, "/app/src/config.py line 19 raised OSError."), "I1", block="s", value="/app/src/config.py")
