"""Quoted polarity at fenced blocks (docs/gate.md, I1 — "quoted polarity"): red team 130b's
findings on the fence reader, F01 F02 F06 F03. Each lie is refused and its honest control
accepted; the suite runs once each way (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted
from test_gate_quoted_polarity_pol20 import FENCE, _refused, _summarize

_ASKED = "Run this:\n" + FENCE


# red team 130b, F01: after a block, in a sentence apart from it, any word after "that" outside
# the block's nouns was read as another thing; after an act of running it is the block's word
@pytest.mark.parametrize("line", [
    "Done. Never run that deploy script.", "Warning: it wipes prod. Never run that deploy script.",
    "OK. Never run that sudo command.", "Easy. Do not run that make target.", "Then wait. Don't execute that terraform apply.",
    "Careful! Never run that rm command!", "Note; Nobody should run that helm upgrade.",
    "It wipes prod; never run that deploy script.", "Done. Never run this deploy script.",
    "Done. Never run these make commands.", "Done. Never run the above deploy script.", "Done. Never run that raw.",
    "Done. Never run that unreviewed.", "Done. Never run that live.", "Done. Never run that outside CI.",
    "Done. Never run that unattended.", "Done. Never paste that curl pipe.", "OK. You must never run those kubectl things."])
def test_a_word_after_the_pointer_after_an_act_of_running_is_the_block(line):
    _refused(_ASKED + line + "\n")


@pytest.mark.parametrize("line", [
    "Then wait. Do not restart that service.", "Good. Never run that other script, though.",
    "Done. Never run that old branch again.", "Easy. Never run those earlier commands.",
    "OK. Never run that database by hand.", "Done. Do not rerun that other job."])
def test_another_thing_after_the_pointer_after_an_act_of_running_is_accepted(line):
    assert_accepted(_summarize(_ASKED + line + "\n"))


# red team 130b, F02: a hard-wrapped denial whose first line holds the negation's own auxiliary
# ("Do not") or the copula of a judgement ("is not acceptable", "Nobody is") was read as a line
# with a verb of its own, the lower line read alone
@pytest.mark.parametrize("source", [
    "Do not ever in production\nrun this:", "Do not on prod hosts\nrun the following:", "Do not without review\nexecute this:",
    "Do NOT, whatever happens\nrun this:", "It is not acceptable in production\nto run this:",
    "It is forbidden in production\nto run this:", "You are not allowed in prod\nto run the following:",
    "Do not on a Friday\nrun this.", "Nobody is allowed\nto run this:", "It is not safe\nto run this:",
    "It is dangerous\nto run this:", "Users are not permitted\nto run the following:", "Nobody is\nallowed to run the following:",
    "Never in production\nrun this:"])
def test_a_wrapped_denial_whose_first_line_holds_its_own_auxiliary_denies(source):
    _refused(source + "\n" + FENCE)


@pytest.mark.parametrize("source", [
    "Never commit secrets\nrun this to check:", "If the build is not green\nrun this:", "Never deploy on Fridays\nthen run this:",
    "It is not slow\nrun this:", "Do not panic\nrun this:", "Do the setup first\nrun this:", "It is safe\nto run this:",
    "You are allowed\nto run the following:", "Make sure it is not running\nthen run this:"])
def test_a_line_with_a_verb_of_its_own_over_a_request_is_accepted(source):
    assert_accepted(_summarize(source + "\n" + FENCE))


# red team 130b, F06: a gerund subject allowed with a later limit that denies it elsewhere ("...,
# never on prod") was allowed outright (a negation after the judging word denied nothing)
@pytest.mark.parametrize("line", [
    "Running this is safe only in a sandbox, never on prod.", "Running this is allowed only on staging, never on prod.",
    "Running this is fine locally but never on prod.", "Running this is OK on dev, not on prod.",
    "Running this is permitted in CI, not by hand.", "Running this is okay once, never twice.",
    "Running this is safe if you are not on prod.", "Running this is allowed unless you are on prod.",
    "It is fine to run this on dev but never on prod.", "It is safe to run this locally, never on prod."])
def test_an_allowed_act_with_a_denied_limit_denies_the_block(line):
    _refused(line + "\n" + FENCE)
    _refused(_ASKED + line.replace("this", "that") + "\n")


@pytest.mark.parametrize("line", [
    "Running the following is safe, it never deletes data.", "Running this is recommended, not optional.",
    "Running this is safe, not dangerous.", "Running this is fine; it does not touch prod.",
    "Running this is safe and never deletes data.", "It is fine to run this, it never fails.",
    "It is safe to run this, and it does not need root.", "Running these is fine unless you're not on the VPN."])
def test_an_allowed_act_with_a_negation_of_another_verb_is_accepted(line):
    assert_accepted(_summarize(line + "\n" + FENCE))


# red team 130b, F03: a sentence over 256 bytes that the bounded read cuts was refused when it held
# any negation and any pointer word; up to 4 KB it is read as a short one is
_MID = ("on every host in the shared production and staging clusters that the platform team operates for the payments, "
        "search, billing, notifications and analytics groups, and on every laptop that holds credentials for them, "
        "whatever the ticket or the person asking says")


@pytest.mark.parametrize("line", [
    "Run this " + _MID + ", since it does not touch any data.", "Don't worry if a host times out: run this " + _MID + ".",
    "Run this " + _MID + ", it never fails.", "Never commit secrets, " + _MID + ", and run this:",
    "Run this " + _MID + ":", "Run this, " + "it is not slow, " * 55 + "and it is safe:",
    "Check the config first; if not, run this " + _MID + "."])
def test_a_long_honest_sentence_with_an_unrelated_negation_is_accepted(line):
    assert len(line) > 256
    assert_accepted(_summarize(line + "\n" + FENCE))


@pytest.mark.parametrize("line", [
    "Never run this " + _MID + ".", "Never run this " + _MID + ", it wipes the data.", "Do not, " + _MID + ", run this:",
    "You must never, " + _MID + ", run this:",
    "It is dangerous to run this " + _MID + ".", "Running this " + _MID + " is forbidden.",
    "Never run " + "the script that the team wrote for the old cluster and " * 8 + "this.",
    "Never run this " + _MID + " " + _MID + " " + _MID + " " + _MID + " " + _MID + " " * 30 + _MID * 12 + "."])
def test_a_long_denying_sentence_is_still_refused(line):
    assert len(line) > 256
    _refused(line + "\n" + FENCE)


@pytest.mark.parametrize("line", [
    # red team 131b, F01: a thing no block is the phrase's own only when it ends the phrase ("that
    # host script" is a script), after any act, the act up to four words before the pointer
    "Done. Never run that host script.", "Done. Never run that database migration.", "Done. Never run that cluster upgrade.",
    "Done. Never run that env setup.", "Done. Never run that original command.", "Done. Never run those database scripts.",
    "Done. Never run that old.", "Done. Never use that deploy script.", "Done. Never apply that terraform plan.",
    "Done. Never deploy that build.", "Done. Never install that package.", "Done. Never run even that deploy script.",
    "Done. Never run any of that deploy script.", "Done. Never run, or even paste, that deploy script.",
])
def test_a_thing_named_after_the_pointer_that_goes_on_denies_the_block(line):
    _refused("Run this:\n" + FENCE + line + "\n")


@pytest.mark.parametrize("line", [
    "Then wait. Do not restart that service.", "Easy. Never commit those files.", "OK. Don't delete that branch.",
    "Good. Never run that other script, though.", "Done. Never run that branch on prod.", "Done. Don't touch that host again.",
])
def test_a_thing_that_ends_its_phrase_after_the_pointer_is_another(line):
    assert_accepted(_summarize("Run this:\n" + FENCE + line + "\n"))


@pytest.mark.parametrize("line", [
    # red team 131b, F03: an allowed act limited by a negation before any word but a verb of its
    # own or a judging word is denied somewhere (only an adverbial's first word was read)
    "Running this is fine on staging, never production.", "Running this is fine in test but not prod.",
    "Running this is safe on dev but never unreviewed.", "Running this is fine locally but never unsupervised.",
    "Running this is OK on weekdays, never Fridays.", "It is fine to run this on dev, never production.",
])
def test_an_allowed_act_limited_by_any_negated_word_is_denied(line):
    _refused(line + "\n" + FENCE)


@pytest.mark.parametrize("line", [
    "Running this is safe and never deletes data.", "Running this is recommended, not optional.",
    "Running this is allowed even if you are not an admin.", "Running this is safe, it never touches prod.",
])
def test_an_allowed_act_with_a_negated_verb_or_judgement_is_accepted(line):
    assert_accepted(_summarize(line + "\n" + FENCE))


@pytest.mark.parametrize("line", [
    # red team 131b, F02: an auxiliary or copula with only negations and adverbs after it on its
    # line goes on to the next
    "Staff are no longer\nallowed to run this:", "Nobody has been\nauthorized to run this:",
    "Nobody has ever been\nallowed to run this:", "Guests have not been\npermitted to run this:",
    "Interns are not yet\nallowed to run this:", "Users are no more\nallowed to run this:",
])
def test_a_denial_wrapped_after_its_auxiliary_denies_the_block(line):
    _refused(line + "\n" + FENCE)
