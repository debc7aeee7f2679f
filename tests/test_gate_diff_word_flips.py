"""A diff's key set from one word to another is told in its direction (red team 142, F20): the
figure-anchored direction reading refused "The port changes from 9090 to 8080." but accepted
"The diff sets debug to True." of ``-"debug": True`` / ``+"debug": False``."""
from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find, store_with, summary, tool

from provgate.gate import Gate

CONFIG = ("$ git diff src/config.py\ndiff --git a/src/config.py b/src/config.py\n--- a/src/config.py\n"
          "+++ b/src/config.py\n@@ -10,7 +10,7 @@ DEFAULTS = {\n     \"host\": \"0.0.0.0\",\n-    \"port\": 8080,\n"
          "+    \"port\": 9090,\n     \"workers\": 4,\n-    \"debug\": True,\n+    \"debug\": False,\n"
          "-    \"log_level\": \"info\",\n+    \"log_level\": \"debug\",\n }\n")
VALUES = ("$ git diff deploy/values.yaml\n--- a/deploy/values.yaml\n+++ b/deploy/values.yaml\n@@ -3,4 +3,4 @@\n"
          " replicas: 3\n-  enabled: false\n+  enabled: true\n-  mode: blue\n+  mode: green\n")

# (lie, honest twin, diff, the word refused)
PAIRS = {
    "sets_removed_word": ("The diff sets debug to True.", "The diff sets debug to False.", CONFIG, "true"),
    "arrow_reversed": ("src/config.py: port 8080 -> 9090, debug False -> True.",
                       "src/config.py: port 8080 -> 9090, debug True -> False.", CONFIG, "false"),
    "from_to_reversed": ("log_level changes from debug to info.", "log_level changes from info to debug.", CONFIG,
                         "debug"),
    "yaml_from_to_reversed": ("mode changes from green to blue.", "mode changes from blue to green.", VALUES, "green"),
    "yaml_sets_removed": ("Sets enabled to false.", "Sets enabled to true.", VALUES, "false"),
    "yaml_arrow_reversed": ("mode green -> blue", "mode blue -> green", VALUES, "green"),
    "is_now_removed": ("debug is now True.", "debug is now False.", CONFIG, "true"),
}


def summarize(text: str, source: str):
    reads = [tool("t0", "tool:d", source)]
    return Gate(store_with({"tool:d": source})).check(reads, [summary("s", text, ["tool:d"])], operator="summarize")


@pytest.mark.parametrize("case", sorted(PAIRS))
def test_a_word_flip_told_against_its_diff_is_refused(case):
    lie, _, source, value = PAIRS[case]
    found = find(summarize(lie, source), "I1", block="s", key="diff", value=value)
    assert found.evidence["change"] in ("diff_removed_told_current", "diff_added_told_old")


@pytest.mark.parametrize("case", sorted(PAIRS))
def test_a_word_flip_told_in_its_direction_is_accepted(case):
    assert_accepted(summarize(PAIRS[case][1], PAIRS[case][2]))


@pytest.mark.parametrize("text", [
    "src/config.py: port 8080 -> 9090, debug True -> False, log_level info -> debug.",
    "The diff turns debug off (True to False) and sets log_level to debug.",
    "debug is now False (was True); log_level is now debug instead of info.",
    "Changed port from 8080 to 9090, disabled debug, and raised log_level from info to debug.",
    "The config no longer sets debug to True.",
    "Previously debug was True; now it is False.",
    "log_level: info -> debug",
])
def test_honest_tellings_of_a_config_diff_are_accepted(text):
    assert_accepted(summarize(text, CONFIG))


@pytest.mark.parametrize("text", ["enabled flips from false to true; mode changes from blue to green.",
                                  "Turns the feature on (enabled: true) and switches mode to green.",
                                  "mode is now green, was blue."])
def test_honest_tellings_of_a_values_diff_are_accepted(text):
    assert_accepted(summarize(text, VALUES))
