"""Quoted polarity at fenced blocks (docs/gate.md, I1 — "quoted polarity"): red team 129's
findings on the fence reader, F03 F15 F11 F12 F13 F09 F01 F07. Each lie is refused and its honest
control accepted; the suite runs once each way (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, blk, find, store_with, summary
from test_gate_quoted_polarity_pol19 import _sentences_read

from provgate import gate as gate_module
from provgate.gate import Gate

FENCE = "```\nmake deploy\n```\n"
RUN = "Run `make deploy` now."


def _summarize(source: str, text: str = RUN):
    store = store_with({"src:1": source})
    pre = [blk("b1", "user", source, ["src:1"])]
    return Gate(store).check(pre, [summary("s1", text, ["src:1"])], operator="summarize")


def _refused(source: str, text: str = RUN, value: str = "make deploy") -> None:
    find(_summarize(source, text), "I1", block="s1", value=value, evidence__change="negation_dropped")


# red team 129, F03: the line over a fence is read in its last 256 bytes (red team 128, F08), so a
# denying sentence longer than that was read from its middle, its "Never" cut off; the sentence
# the read starts inside of is read back to its start
_LONG = ("on any of the shared production or staging clusters that the platform team operates for the payments, "
         "search, billing, notifications and analytics groups, or on any laptop that holds credentials for them, "
         "whatever the ticket or the person asking says")
_EXPLAINED = ("It is a long explanation of what happens to the shared clusters of the company when someone runs it, "
              "which is nothing good and nothing that anyone wants to see happen on a Friday afternoon at all.")


@pytest.mark.parametrize("line", [
    "Never run this " + _LONG + ".", "Never run the following " + _LONG + ":", "Do not run this " + _LONG + "!",
    "It is fine. Never run this " + _LONG + ".", "Never run this " + _LONG + ". Here it is:",
    "Never run this " + " ".join([_LONG] * 3) + ".", "Never run this " + _LONG[:150] + ". " + _EXPLAINED,
    "Note " * 14000 + "never run this.", "x" * 70000 + " never run this " + _LONG + "."])
def test_a_denying_sentence_longer_than_the_read_denies_the_block(line):
    assert len(line) > 256
    _refused(line + "\n" + FENCE)


@pytest.mark.parametrize("line", [
    "Run this " + _LONG + ".", "Run the following " + _LONG + ":", "It is safe. Run this " + _LONG + ".",
    "Never deploy on Fridays. Run this " + _LONG + ".",
    "Never deploy on Fridays. " + "Some background text about the clusters that matters. " * 6 + "Run this:",
    "Never deploy on Fridays. " + "Some background text about the clusters that matters. " * 6 + "To build, run this.",
    "x" * 70000])
def test_a_long_line_that_asks_for_the_block_is_accepted(line):
    assert len(line) > 256
    assert_accepted(_summarize(line + "\n" + FENCE))


def test_a_cut_sentence_is_read_in_bounded_work(monkeypatch):
    read = _sentences_read(monkeypatch)
    _refused("Never run this " + " ".join([_LONG] * 40) + ".\n" + FENCE)
    _refused("Note. Never run this " + _LONG[:200] + ". " + _EXPLAINED + "\n" + FENCE)
    assert read and max(read) <= 256, max(read)


# red team 129, F15: a hyphenated act ("re-run") was two words to the necessity rule, so "No need
# to re-run that." ended in "to re run" and denied the block; "needn't" right before the act too
@pytest.mark.parametrize("source", [
    FENCE + "No need to re-run that.\n", FENCE + "You needn't re-run that.\n",
    "No need to re-run this; once is enough:\n" + FENCE, "You don't need to re-run this.\n" + FENCE,
    FENCE + "You needn't run that again.\n", "You need not run this again.\n" + FENCE])
def test_a_necessity_denied_of_a_hyphenated_act_is_accepted(source):
    assert_accepted(_summarize(source))


@pytest.mark.parametrize("source", [
    "Never re-run this.\n" + FENCE, FENCE + "Never re-run the above.\n", "It's unsafe to re-run this.\n" + FENCE,
    "You need to never re-run this.\n" + FENCE, "Don't re-run this.\n" + FENCE,
    "You needn't run that, never run it.\n" + FENCE])
def test_a_denial_of_a_hyphenated_act_still_denies(source):
    _refused(source)


# red team 129, F11: a "No." answering a question about a harm, a need or an effect of the act
# was read as forbidding it; the act must be the question's main verb
@pytest.mark.parametrize("source", [
    "Is it risky to run this? No.\n" + FENCE, "Should you worry about running this? No.\n" + FENCE,
    "Does running this need a VPN? No.\n" + FENCE, "Will running this restart the db? No.\n" + FENCE,
    FENCE + "Did that break anything? No.\n", FENCE + "Will running that restart the db? Never.\n",
    "Does this need root? No.\n" + FENCE, "Do I need to run this? No, it is optional:\n" + FENCE,
    "Is running this risky? No.\n" + FENCE, "Does this need to be run as root? No.\n" + FENCE,
    "Is it dangerous to run this? No.\n" + FENCE, FENCE + "Did you run that? No.\n"])
def test_a_denial_answering_a_question_about_the_act_is_accepted(source):
    assert_accepted(_summarize(source))


@pytest.mark.parametrize("source", [
    "Run this? Never.\n" + FENCE, "Should you run this? No.\n" + FENCE, "Run this on prod? Absolutely not.\n" + FENCE,
    FENCE + "Should you run the above? Never.\n", "Is it safe to run this? No.\n" + FENCE,
    "Is running this safe? No.\n" + FENCE, "Running this on prod? No.\n" + FENCE, "Should this be run? No.\n" + FENCE,
    "Can I run this? No.\n" + FENCE, "Should anyone ever run this? No.\n" + FENCE,
    "Would it be wise to run this? No.\n" + FENCE, "Is it OK to run the following? Never.\n" + FENCE,
    "Can this be run on prod? No.\n" + FENCE, FENCE + "Is running that allowed? No.\n",
    "Am I allowed to run this? No.\n" + FENCE])
def test_a_denial_answering_a_question_that_asks_for_the_act_denies_it(source):
    _refused(source)


# red team 129, F12 and F07 (the gerund shapes): an act as the subject was judged by any negation
# after it, so a later, unrelated one flipped the word judging it; each judging word is read with
# the negation right before it
@pytest.mark.parametrize("source", [
    "Running the following is safe, it never deletes data.\n" + FENCE, "Running this is recommended, not optional.\n" + FENCE,
    "Running this is allowed even if you are not an admin.\n" + FENCE,
    "Running these is fine unless you're not on the VPN.\n" + FENCE, "Running this is not at all risky.\n" + FENCE,
    "Running this is safe; it is not destructive.\n" + FENCE, "Running this is not that dangerous.\n" + FENCE,
    FENCE + "Running that is fine, nothing breaks.\n", "Running this is not only safe but recommended.\n" + FENCE])
def test_an_act_judged_safe_with_an_unrelated_negation_is_accepted(source):
    assert_accepted(_summarize(source))


@pytest.mark.parametrize("source", [
    "Running this isn't safe.\n" + FENCE, "Running this is never safe.\n" + FENCE,
    "Running this is not really safe.\n" + FENCE, "Running this is neither safe nor allowed.\n" + FENCE,
    "Running this is no longer allowed.\n" + FENCE, "Running this is not recommended.\n" + FENCE,
    "Running this is not only dangerous but forbidden.\n" + FENCE, "Running this is forbidden, not optional.\n" + FENCE,
    "Running this is destructive and not reversible.\n" + FENCE, "Running this is safe but not recommended.\n" + FENCE,
    "Running this is not dangerous but it is not allowed either.\n" + FENCE])
def test_an_act_judged_unsafe_or_denied_an_allowance_is_denied(source):
    _refused(source)


# red team 129, F13: a line with no end mark over "run this:" (a heading, a list item, a condition)
# was joined to it as one hard-wrapped sentence and lent it its negation; F07: a wrap that opens
# upper-case or with a backtick, or spans three lines, was not joined
@pytest.mark.parametrize("source", [
    "Never commit secrets\nrun this to check:\n" + FENCE, "If the build is not green\nrun this:\n" + FENCE,
    "Never deploy on Fridays\nrun this on Mondays:\n" + FENCE, "Don't panic\nrun this:\n" + FENCE,
    "Never deploy on Fridays\nThe fix is below:\n" + FENCE, "When the tests are not passing\nrun this:\n" + FENCE,
    "Never push to main\nRun this instead:\n" + FENCE, "Run the following on the production\ncluster.\n" + FENCE])
def test_a_line_of_its_own_over_a_request_lends_it_no_negation(source):
    assert_accepted(_summarize(source))


@pytest.mark.parametrize("source", [
    "Never run the following on the production\ncluster.\n" + FENCE,
    "Never run the following on the production\nCluster.\n" + FENCE, "Never run the following on\n`prod-east`:\n" + FENCE,
    "Do not,\nunder any circumstances,\nrun this:\n" + FENCE, "Do not, under any circumstances, run\nthis.\n" + FENCE,
    "Under no circumstances\nrun this:\n" + FENCE, "You must never\nrun this:\n" + FENCE,
    "It is forbidden to\nrun this:\n" + FENCE, "Never use sudo or\nrun this:\n" + FENCE,
    "Nobody should ever\nrun this:\n" + FENCE, "Never let anyone\nrun this:\n" + FENCE])
def test_a_denial_wrapped_over_lines_denies_the_block(source):
    _refused(source)


# red team 129, F09: a sentence apart from the block (not the one next to it) whose "that" /
# "those" / "these" is the determiner of another noun denied the block
_ASKED = "Run this:\n" + FENCE


@pytest.mark.parametrize("source", [
    _ASKED + "Then wait. Do not restart that service.\n", _ASKED + "Easy. Never commit those files.\n",
    _ASKED + "OK. Don't delete that branch.\n", _ASKED + "Good. Never run that other script, though.\n",
    _ASKED + "Finished. Don't deploy that old branch.\n", _ASKED + "Done! Never run the old one instead of that.\n",
    _ASKED + "Done. Never push those changes to main.\n", "Do not commit these keys. To rotate them, run:\n" + FENCE])
def test_a_sentence_apart_from_the_block_about_another_thing_is_accepted(source):
    assert_accepted(_summarize(source))


@pytest.mark.parametrize("source", [
    FENCE + "It wipes prod. Never run that.\n", FENCE + "It wipes prod. Never run that again.\n",
    FENCE + "Careful. Never run that on prod.\n", FENCE + "Careful. Never run those commands.\n",
    FENCE + "Careful. Never run that thing.\n", FENCE + "Careful. That must never be run.\n",
    FENCE + "Careful. Never run that blindly.\n", FENCE + "Careful. Never run that unless you are root.\n",
    "Never run these commands. Here:\n" + FENCE, "Never run this on prod. Example:\n" + FENCE,
    FENCE + "Never run the old one instead of that. Never run that either.\n"])
def test_a_sentence_apart_from_the_block_pointing_at_it_still_denies(source):
    _refused(source)


# red team 129, F01's two remaining limits: a pointer opening a clause of its own after a comma
# took an act of the clause before it ("dry-run"), and a denied necessity freed an act that a
# later clause of the sentence denies
@pytest.mark.parametrize("source", [
    "Since it has no dry-run mode, this must never be run.\n" + FENCE,
    FENCE + "That need not be run, and must never be run.\n",
    "Since it has side effects, this must never be run!\n" + FENCE,
    "Since it has no undo, this should not be executed.\n" + FENCE,
    "This need not be run, and should never be run.\n" + FENCE,
    "You don't need to run this, and must never run it.\n" + FENCE,
    FENCE + "You needn't re-run that, and must never re-run it.\n"])
def test_a_denial_in_a_clause_of_its_own_after_a_necessity_or_a_comma_denies(source):
    _refused(source)


@pytest.mark.parametrize("source", [
    "This need not be run on macOS.\n" + FENCE, FENCE + "That need not be run again.\n",
    "Since it is idempotent, this can be run twice.\n" + FENCE, "Since it is safe, run this.\n" + FENCE,
    "This need not be run, and can be run at any time.\n" + FENCE, "If it fails, this can be run again.\n" + FENCE])
def test_a_necessity_denied_with_no_later_denial_is_accepted(source):
    assert_accepted(_summarize(source))


# red team 129, F07: "do" before adverbs alone and the pointer, "pipe" and "eval" as acts, and an
# act judged unwise read by the negation right before each judging word
@pytest.mark.parametrize("source", [
    "Don't do even this.\n" + FENCE, "Never pipe this to a shell.\n" + FENCE, FENCE + "Never pipe that into bash.\n",
    "Never eval this.\n" + FENCE, "It is dangerous, not to mention stupid, to run this.\n" + FENCE,
    "It is risky and not wise to run this.\n" + FENCE, "Don't ever do this.\n" + FENCE])
def test_the_shapes_of_red_team_129_f07_deny_the_block(source):
    _refused(source)


@pytest.mark.parametrize("source", [
    "It's not dangerous to run this.\n" + FENCE, "It isn't risky to run this.\n" + FENCE,
    "It is never wrong to run this.\n" + FENCE, "It would not be dangerous to run this.\n" + FENCE,
    "Pipe this to a shell.\n" + FENCE, "Do even this.\n" + FENCE, "Do you even need this? Yes:\n" + FENCE,
    "Don't worry, it is not dangerous to run this.\n" + FENCE])
def test_the_requests_shaped_as_red_team_129_f07_are_accepted(source):
    assert_accepted(_summarize(source))


# red team 129, F04 (its differential's shapes left on main): a pointer alone after a preposition
# with an adverbial after it ("in this as root", "in this at all") was read as another thing
@pytest.mark.parametrize("source", [
    "In prod, never run anything in this as root.\n" + FENCE, "Never run anything in this at all\n" + FENCE,
    "Never run anything in this for any reason\n" + FENCE, "Whatever you do, never run anything in this on prod!\n" + FENCE,
    "Please never run anything in this without review.\n" + FENCE, FENCE + "In prod, never run anything in this as root.\n"])
def test_a_pointer_alone_after_a_preposition_before_an_adverbial_is_the_block(source):
    _refused(source)


@pytest.mark.parametrize("source", [
    "Never run tests on this branch.\n" + FENCE, "Do not deploy from this laptop.\n" + FENCE,
    "Never push to main in this repo.\n" + FENCE, "No need to use Docker for this.\n" + FENCE,
    "Don't run tests in this repo as root; run:\n" + FENCE])
def test_a_pointer_before_another_thing_after_a_preposition_is_accepted(source):
    assert_accepted(_summarize(source))


# the fixes above checked for the lies they could free (each refused on main before them): a
# question of unknown shape still asks, a negation before a judging word with an aside between
# denies, a warning's noun after "that" is the block, a long sentence judging the act unwise is
# read, and a pointer after a comma takes the act before it unless a passive follows
@pytest.mark.parametrize("source", [
    "Should you ever, under any circumstances, run this? No.\n" + FENCE, "Is it okay if I run this? No.\n" + FENCE,
    "Do you want to run this? Never.\n" + FENCE, "Could we perhaps run this? No.\n" + FENCE,
    "Running this is not, under any circumstances, allowed.\n" + FENCE,
    "Running this is not something that is allowed.\n" + FENCE, FENCE + "It wipes prod. Never run that crap.\n",
    FENCE + "It wipes prod. Never run that garbage.\n", FENCE + "It wipes prod. Never run that bad boy.\n",
    FENCE + "It wipes prod. Never run that same script.\n", "It is dangerous to run this " + _LONG + ".\n" + FENCE,
    "Running this " + _LONG + " is forbidden.\n" + FENCE, "Do not run, this is dangerous:\n" + FENCE,
    "Do not run, this wipes prod.\n" + FENCE])
def test_the_lies_the_red_team_129_fixes_could_free_are_refused(source):
    _refused(source)


@pytest.mark.parametrize("source", [
    "Running this is not dangerous, and is safe.\n" + FENCE, "Do you mind running this? No.\n" + FENCE,
    "Is it a problem to run this? No.\n" + FENCE, "Will anything break if I run this? No.\n" + FENCE])
def test_the_honest_lines_near_those_lies_are_accepted(source):
    assert_accepted(_summarize(source))


def test_the_unwise_words_of_a_long_sentence_are_the_reader_s():
    words = gate_module._FENCE_UNWISE_WORD.pattern.split(b"(?:", 1)[1].split(b")", 1)[0].split(b"|")
    assert set(words) == set(gate_module._FENCE_UNWISE)


# red team 129, F07: "do so" ending its clause is the act on the block ("so" made "do" an auxiliary)
@pytest.mark.parametrize("source", [
    "Never do so: this wipes prod.\n" + FENCE, "Do not do so.\n" + FENCE, "Please don't do so:\n" + FENCE,
    FENCE + "Never do so.\n", FENCE + "It wipes prod. Don't do so.\n"])
def test_do_so_denied_at_a_fence_denies_it(source):
    _refused(source)


@pytest.mark.parametrize("source", [
    "If you haven't done so, run this:\n" + FENCE, "Feel free to do so: run this.\n" + FENCE, "To do so, run:\n" + FENCE,
    "Once you do so, this will deploy.\n" + FENCE, "If you wish to do so, run the following:\n" + FENCE,
    FENCE + "Please do so.\n", "Don't do so many things at once; run this:\n" + FENCE])
def test_do_so_asked_at_a_fence_is_accepted(source):
    assert_accepted(_summarize(source))
