"""A list item opened by a task list's checkbox or an emoji/symbol bullet starts with its first
word, as after a plain ``- `` (docs/gate.md, I1 "item first words"; stop 66): ``✅ Queue
drained`` and ``- [x] Restart the workers`` summarizing an incident note were refused for
``Queue`` and ``Restart``. Lie/honest pairs over the same source: the forms agents write
accepted; after an emoji, an invented word or a name no source writes asked (a checkbox's item reads
as a plain bullet's); a wrong figure inside an item asked."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

INCIDENT = """The deploy failed because the database migration timed out.
The cache layer was disabled during the incident.
Alice restarted the workers and the queue drained.
"""

HONEST = [
    "✅ Queue drained\n❌ Deploy failed",
    "Next steps:\n- [ ] Re-run the migration\n- [x] Restart the workers",
    "⚠️ Cache disabled\n• Queue drained\n→ Deploy failed",
    "✓ Queue drained\n✗ Deploy failed\n▶ Cache disabled",
    "🔴 Deploy failed\n🟢 Queue drained",
    "- ✅ **Queue** drained\n- ❌ **Deploy** failed",
    "* [X] Alice restarted the workers\n* [ ] Re-enable the cache layer",
    "1. [x] Restart the workers\n2. [ ] Investigate the migration timeout",
]

# (lie, the value refused)
LIES = [
    ("✅ Frobnicator restarted", "Frobnicator"),
    ("✅ Bob restarted the workers", "Bob"),
    ("- [x] Restart the workers 7 times", "7"),
    ("🔴 Deploy failed after 3 retries", "3"),
]


@pytest.mark.parametrize("honest", HONEST)
def test_an_item_s_first_word_after_a_checkbox_or_symbol_is_no_name(honest):
    assert_accepted(_summarize(INCIDENT, honest))


@pytest.mark.parametrize("lie, value", LIES)
def test_an_invented_word_or_figure_in_such_an_item_is_asked(lie, value):
    verdict = _summarize(INCIDENT, lie)
    assert not verdict.accepted
    assert find(verdict, "I1", value=value) is not None


# "TL;DR", a summary's lead (docs/gate.md, I1; stop 66): its words asserted nothing
TLDR_HONEST = [
    "TL;DR: the deploy failed; the migration timed out.",
    "**TL;DR**: the deploy failed.",
    "tl;dr the deploy failed.",
    "TLDR: the deploy failed.",
]
TLDR_LIES = [
    ("TL;DR: 7 retries", "7"),
    ("The DR site failed over.", "DR"),  # (the word outside the lead is a name as any)
]


@pytest.mark.parametrize("honest", TLDR_HONEST)
def test_a_tldr_lead_asserts_no_name(honest):
    assert_accepted(_summarize(INCIDENT, honest))


@pytest.mark.parametrize("lie, value", TLDR_LIES)
def test_what_a_tldr_lead_leads_is_asked(lie, value):
    verdict = _summarize(INCIDENT, lie)
    assert find(verdict, "I1", value=value) is not None


# a count of the block's own list over it (docs/gate.md, I1; stop 66): the list's length
THREE = "\n- deploy failed\n- cache disabled\n- queue drained"
OWN_COUNT_HONEST = [
    "Summary (3 points):" + THREE,
    "Here are the 3 key points:" + THREE,
    "Here are 3 main points:" + THREE,
    "Here are the three key points:" + THREE,
    "**Top 3 takeaways:**" + THREE,
    "The 3 highlights:\n\n- deploy failed\n  (migration timeout)\n- cache disabled\n- queue drained\n\nThat is all.",
]
OWN_COUNT_LIES = [
    ("Here are the 4 key points:" + THREE, "4"),
    ("Summary (2 points):" + THREE, "2"),
    ("The 3 failing tests:" + THREE, "3"),  # (another noun: a total of the source's)
    ("Here are the 3 key points: the deploy failed.", "3"),  # (no list follows)
    ("Here are the 3 key points:" + THREE + "\n- workers restarted", "3"),
]


@pytest.mark.parametrize("honest", OWN_COUNT_HONEST)
def test_a_count_of_the_block_s_own_list_is_its_length(honest):
    assert_accepted(_summarize(INCIDENT, honest))


@pytest.mark.parametrize("lie, value", OWN_COUNT_LIES)
def test_a_count_the_list_does_not_hold_is_asked(lie, value):
    verdict = _summarize(INCIDENT, lie)
    assert find(verdict, "I1", value=value) is not None
