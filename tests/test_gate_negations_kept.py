"""A lossless rewrite keeps what a block denies (docs/gate.md, I2 — "negations"): a block
rewritten in place says "not" as often as its pre version did. A negation is no fact, so the
fact diff alone accepted ``Do not run "make deploy"`` -> ``Do run "make deploy"`` as lossless.
The suite runs once each way (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import re

import pytest
from budget import examples
from gate_helpers import assert_accepted, blk, find, store_with
from hypothesis import given, settings
from hypothesis import strategies as st

from provgate.gate import Gate, _negation_in_changed_stretch


def _rewrite(before: str, after: str, *, role: str = "user", policy: str = "reject"):
    handle = f"{role}:1"
    store = store_with({handle: before})
    pre = [blk("b1", role, before, [handle])]
    post = [blk("b1", role, after, [handle])]
    return Gate(store).check(pre, post, operator="rewrite", policy=policy)


@pytest.mark.parametrize("before, after, word, change", [
    ('Do not run "make deploy" today.', 'Do run "make deploy" today.', "not", "negation_dropped"),
    ('Please run "make deploy" after the tests pass.', 'Please do not run "make deploy" after the tests pass.',
     "not", "negation_added"),
    ("Run the migration on db-01 first.", "Never run the migration on db-01 first.", "Never", "negation_added"),
    ("Don't restart api-7 before noon.", "Do restart api-7 before noon.", "n't", "negation_dropped"),
    ("Don\u2019t restart api-7 before noon.", "Do restart api-7 before noon.", "n\u2019t", "negation_dropped"),
    ("You cannot delete /var/lib/pg.", "You can delete /var/lib/pg.", "cannot", "negation_dropped"),
    ("Nothing was deleted from /srv/data.", "Everything was deleted from /srv/data.", "Nothing",
     "negation_dropped"),
    ("Do **not** push to main.", "Do **now** push to main.", "not", "negation_dropped"),
    ("The job ran without retries=3.", "The job ran with retries=3.", "without", "negation_dropped"),
    ("No backups are taken of /srv/data.", "Backups are taken of /srv/data.", "No", "negation_dropped"),
])
def test_a_rewrite_adding_or_dropping_a_negation_is_refused(before, after, word, change):
    v = _rewrite(before, after)
    found = find(v, "I2", block="b1", key="negation", value=word, evidence__change=change)
    text = after if change == "negation_added" else before
    start, end = found.evidence["span"]
    assert text.encode()[start:end].decode() == word


@pytest.mark.parametrize("role", ["tool", "assistant"])
def test_the_rule_holds_for_every_role(role):
    v = _rewrite("The rollout did not finish: 3 of 5 pods ready.\n",
                 "The rollout did finish: 3 of 5 pods ready.\n", role=role)
    find(v, "I2", key="negation", value="not")


@pytest.mark.parametrize("before, after", [
    ("Do not run the migration.", "Don't run the migration."),  # one negation either way
    ("You cannot delete it.", "You can't delete it."),
    ("Do not push to main.", "Do not push to main, ever."),
    ("Do not\npush to main.", "Do not push to main."),  # whitespace only
    ("Do not push to main.\n", "Do  not   push to main.\n"),
    # a change far from the block's negations reads none of them
    ("Never push to main. The notes on nodes are in /srv/docs.", "Never push to main. The notes on nodes are in /srv/docs!"),
    # words holding the letters of a negation are none
    ("Another note on the node is known.", "Another note on the node: known."),
    ("The notice went to nobody@example.com", "The notice went to nobody@example.com."),
])
def test_a_rewrite_keeping_its_negations_is_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


@pytest.mark.parametrize("before, after", [
    # a sentence added whole says nothing of the others
    ("Deployed v2.4.1 to eu-west-1.", "Deployed v2.4.1 to eu-west-1. Nothing else changed."),
    ("Deployed v2.4.1 to eu-west-1.\n", "Deployed v2.4.1 to eu-west-1.\nNo errors were logged.\n"),
    # sentences moved whole
    ("Do not push to main. Run the tests on ci-3.", "Run the tests on ci-3. Do not push to main."),
    ("Never restart db-01.\nCheck the logs of api-7.\n", "Check the logs of api-7.\nNever restart db-01.\n"),
])
def test_a_sentence_added_or_moved_whole_is_no_negation_changed(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


@pytest.mark.parametrize("before, after, change", [
    # a negation cut, and a sentence with one added to keep the count
    ('Do not run "make deploy" today.', 'Do run "make deploy" today. Nothing else changed.', "negation_dropped"),
    # a prohibition cut whole is a negation lost
    ("Restart api-7 at noon.\nNever restart db-01.\n", "Restart api-7 at noon.\n", "negation_dropped"),
    # a negation added to a sentence the rewrite keeps, words added around it
    ("Please run the migration on db-01.", "Please make sure you never run the migration on db-01.",
     "negation_added"),
])
def test_a_negation_changed_beside_a_sentence_added_or_cut_is_refused(before, after, change):
    find(_rewrite(before, after), "I2", block="b1", key="negation", evidence__change=change)


def test_reclassify_accepts_the_rewrite_as_lossy():
    v = _rewrite("Do not restart api-7 before noon.", "Do restart api-7 before noon.", policy="reclassify")
    assert v.accepted and v.reclassified and v.classification == "lossy"


def test_reclassify_does_not_pass_a_quotation_turned_against_its_source():
    # as a derived block the text quotes "make deploy" without the negation its source puts
    # before it (I1, docs/gate.md "quoted polarity"), and I1 is never reclassified
    v = _rewrite('Do not run "make deploy" today.', 'Do run "make deploy" today.', policy="reclassify")
    assert not v.accepted and not v.reclassified
    find(v, "I2", key="negation", value="not")


def test_a_negation_moved_into_another_block_of_the_rewrite_is_refused_in_both():
    store = store_with({"user:1": "Deploy to eu-west-1.", "user:2": "Do not deploy to us-east-1."})
    pre = [blk("a", "user", "Deploy to eu-west-1.", ["user:1"]),
           blk("b", "user", "Do not deploy to us-east-1.", ["user:2"])]
    post = [blk("a", "user", "Do not deploy to eu-west-1.", ["user:1"]),
            blk("b", "user", "Do deploy to us-east-1.", ["user:2"])]
    v = Gate(store).check(pre, post, operator="rewrite")
    find(v, "I2", block="a", key="negation", evidence__change="negation_added")
    find(v, "I2", block="b", key="negation", evidence__change="negation_dropped")


# the reference the widened window must agree with: every negation of each whole text counted
_WHOLE_WORD = re.compile(rb"(?<![0-9a-z_\x80-\xff])(?:not|no|nor|never|neither|none|nothing|nobody|nowhere|cannot|without)"
                         rb"(?![0-9a-z_])|(?<=[a-z])n(?:'|\xe2\x80\x99)t(?![0-9a-z_])")


def _whole_count(text: bytes) -> int:
    return len(_WHOLE_WORD.findall(text.lower()))


_PIECES = ["not", "no", "Not", "NO", "never", "nor", "neither", "none", "nothing", "nobody", "nowhere",
           "cannot", "without", "don't", "can\u2019t", "n't", "know", "note", "node", "nothingness", "snot",
           "canno", "t", "'", "\u2019", "do", "run", "x", "_", "-", ".", "é", "1", " ", " ", "\n", "**"]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30), st.lists(st.sampled_from(_PIECES), max_size=6),
       st.integers(0, 30), st.integers(0, 6))
def test_no_negation_in_the_changed_stretch_means_the_same_count(pieces, inserted, at, cut):
    pre = "".join(pieces).encode()
    post = "".join(pieces[:at] + inserted + pieces[at + cut:]).encode()
    if not _negation_in_changed_stretch(pre, post):
        assert _whole_count(pre) == _whole_count(post)


def _long_log(middle: str) -> str:
    lines = [f"step {n}: copied shard-{n} to /srv/data ok" for n in range(400)]
    lines[200] = middle
    return "\n".join(lines) + "\n"


def test_a_long_block_is_read_where_it_changed():
    before = _long_log("WARNING: do not restart db-01 during the copy")
    assert len(before.encode()) > 2 * 8192
    find(_rewrite(before, _long_log("WARNING: do restart db-01 during the copy"), role="tool"),
         "I2", key="negation", value="not", evidence__change="negation_dropped")
    # a change elsewhere in the block, its negation kept
    after = before.replace("step 7: copied", "step 7:  copied")
    assert_accepted(_rewrite(before, after.replace("shard-9 to", "shard-9  to"), role="tool"), "lossless")


def _unbalanced_over_whole_texts(pre: bytes, post: bytes):
    """The rule restated over whole texts, no stretch found first: every sentence of each text,
    those equal either end (whitespace aside) passed over, the rest aligned word for word."""
    from collections import Counter

    from provgate.gate import (
        _SENTENCE_END,
        _kept_words,
        _negation_words,
        _sentence_words,
    )

    def sentences(text):
        ends = [m.end() for m in _SENTENCE_END.finditer(text)]
        if not ends or ends[-1] < len(text):
            ends.append(len(text))
        return list(zip([0, *ends[:-1]], ends))

    a, b = sentences(pre), sentences(post)
    lo = 0
    while lo < min(len(a), len(b)) and pre[slice(*a[lo])].split() == post[slice(*b[lo])].split():
        lo += 1
    hi = 0
    while (hi < min(len(a), len(b)) - lo
           and pre[slice(*a[len(a) - 1 - hi])].split() == post[slice(*b[len(b) - 1 - hi])].split()):
        hi += 1
    standing = {_sentence_words(post[s:e]) for s, e in b}  # (every sentence of post, for a repeat cut)
    a, b = a[lo:len(a) - hi], b[lo:len(b) - hi]
    pre_words = [_sentence_words(pre[s:e]) for s, e in a]
    post_words = [_sentence_words(post[s:e]) for s, e in b]
    pre_negs = [len(_negation_words(pre.lower(), s, e)) for s, e in a]
    post_negs = [len(_negation_words(post.lower(), s, e)) for s, e in b]
    kept = _kept_words([w for ws in pre_words for w in ws], [w for ws in post_words for w in ws])
    kept_post = {k for k in kept if k >= 0}
    pre_whole, post_whole, at = [], [], 0
    for ws in pre_words:
        pre_whole.append(bool(ws) and all(k < 0 for k in kept[at:at + len(ws)]))
        at += len(ws)
    at = 0
    for ws in post_words:
        post_whole.append(bool(ws) and not any(k in kept_post for k in range(at, at + len(ws))))
        at += len(ws)
    moved = (Counter(ws for ws, w in zip(pre_words, pre_whole) if w)
             & Counter(ws for ws, w in zip(post_words, post_whole) if w))
    n_pre = 0
    for ws, w, n in zip(pre_words, pre_whole, pre_negs):
        if w and moved[ws] > 0:
            moved[ws] -= 1
        elif not (w and n and ws in standing):  # (a repeat cut while post says it word for word)
            n_pre += n
    n_post = sum(n for w, n in zip(post_whole, post_negs) if not w)
    return None if n_pre == n_post else (n_pre, n_post)


_SENTENCE_PIECES = ["Do", "not", "run", "it", "never", "don't", "Nothing", "else", "changed", "v1.2", "ok",
                    ".", ". ", "! ", "? ", "...", "\n", "\n\n", " ", "  ", ", ", "a.b", "x" * 9]


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(st.sampled_from(_SENTENCE_PIECES), max_size=40), st.lists(st.sampled_from(_SENTENCE_PIECES), max_size=8),
       st.integers(0, 40), st.integers(0, 8), st.sampled_from([" ", ""]))
def test_the_changed_sentences_judge_as_the_whole_texts_do(pieces, inserted, at, cut, joiner):
    from provgate.gate import _negations_unbalanced

    pre = joiner.join(pieces).encode()
    post = joiner.join(pieces[:at] + inserted + pieces[at + cut:]).encode()
    found = _negations_unbalanced(pre, post)
    expected = _unbalanced_over_whole_texts(pre, post)
    assert (None if found is None else found[:2]) == expected


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=60), st.binary(max_size=20), st.binary(max_size=60))
def test_common_ends_by_numpy_and_by_slices_agree(head, middle, tail):
    from provgate import gate as gate_module

    pre, post = head + middle + tail, head + tail
    by_slices = gate_module._common_ends(pre, post)
    saved = gate_module._COMPARED_BY_NUMPY
    gate_module._COMPARED_BY_NUMPY = -1
    try:
        by_numpy = gate_module._common_ends(pre, post)
    finally:
        gate_module._COMPARED_BY_NUMPY = saved
    assert by_slices == by_numpy
    h, t = by_slices
    assert pre[:h] == post[:h] and pre[len(pre) - t:] == post[len(post) - t:]
    assert h + t <= min(len(pre), len(post))
    assert h == min(len(pre), len(post)) or pre[h] != post[h]


def test_a_long_line_with_no_sentence_end_is_read_a_bounded_number_of_times(monkeypatch):
    from provgate import gate as gate_module

    read = []
    real = gate_module._negation_words
    monkeypatch.setattr(gate_module, "_negation_words",
                        lambda text, start, end: read.append(end - start) or real(text, start, end))
    words = " ".join(f"w{n}" for n in range(40_000))
    before = f"{words} do not restart db-01 {words}"
    after = f"{words} do restart db-01 {words}"
    find(_rewrite(before, after, role="tool"), "I2", key="negation", value="not")
    # (each text read whole at most twice: its changed stretch, then its one changed sentence)
    assert sum(read) <= 2 * (len(before) + len(after)) + 64


@pytest.mark.parametrize("before, after", [
    ("ls: cannot access '/srv/x': \x1b[31mNo such file or directory\x1b[0m\n",
     "ls: cannot access '/srv/x': No such file or directory\n"),
    ("\x1b[1mnot\x1b[0m ready: db-01\n", "not ready: db-01\n"),
    ("build \x1b[32mok\x1b[0m, tests \x1b[31mnever\x1b[0m ran on ci-3\n", "build ok, tests never ran on ci-3\n"),
])
def test_colour_codes_stripped_keep_the_negations(before, after):
    # the final byte of a colour code is a letter: "\x1b[31mNo" holds the negation "No"
    assert_accepted(_rewrite(before, after, role="tool"), "lossless")


def test_a_negation_dropped_with_its_colour_code_is_refused():
    find(_rewrite("db-01: \x1b[31mnot\x1b[0m ready\n", "db-01: ready\n", role="tool"), "I2", key="negation")


# red team 114, F03: a "not" a reader sees, written with an invisible mark inside it or a
# look-alike letter, was no negation to the count, and dropped it passed as lossless
@pytest.mark.parametrize("hidden", ["n\u200bot", "no\u200dt", "n\u2060ot", "no\u00adt", "\ufeffnot",
                                    "n\u043et", "\uff4e\uff4f\uff54",
                                    "n\u03bft", "NO\u0422"])
def test_a_negation_written_as_a_reader_sees_it_is_counted(hidden):
    before = f"Do {hidden} run the migration on db-01.\n"
    found = find(_rewrite(before, "Do run the migration on db-01.\n"), "I2", key="negation",
                 evidence__change="negation_dropped")
    # the evidence names the span of the block's own text
    start, end = found.evidence["span"]
    assert before.encode()[start:end].decode() == hidden
    assert found.value.lower() == "not"


# red team 114, F07: honest normalisation refused as a negation added or dropped
@pytest.mark.parametrize("before, after", [
    ("Do \uff4e\uff4f\uff54 push to main.", "Do not push to main."),  # NFKC
    ("Don\uff07t push to main.", "Don't push to main."),
    ("Do n\u200bot push to main.", "Do not push to main."),  # an invisible mark taken out
    ("Do not push to main.", "Do n\u043et push to main."),  # (a look-alike: what a reader sees is the same)
    # a repeat deduplicated: post still says it word for word
    ("Do not push to main. Do not push to main.", "Do not push to main."),
    ("Do not push to main.\nRun the tests.\nDo not push to main.\n", "Do not push to main.\nRun the tests.\n"),
    ("Never force-push. Check CI. never force-push!", "Never force-push. Check CI."),
])
def test_a_rewrite_normalising_letters_or_dropping_a_repeat_is_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


@pytest.mark.parametrize("before, after", [
    # a repeat flipped, in either place, is no deduplication
    ("Do not push to main. Do not push to main.", "Do push to main. Do not push to main."),
    ("Do not push to main. Do not push to main.", "Do not push to main. Do push to main."),
    # a sentence cut whole that post does not say word for word is counted
    ("Do not push to main. Do not push to dev.", "Do not push to main."),
    ("Do not push to main. Do not push to main.", "Do not push to main, push to dev."),
])
def test_a_repeat_flipped_or_a_near_repeat_cut_is_refused(before, after):
    find(_rewrite(before, after), "I2", key="negation")


# red team 116, F20: a refusal or prohibition rewritten away kept every negation
@pytest.mark.parametrize("before, after, word", [
    ('Stop running "make deploy" today.', 'Keep running "make deploy" today.', "Stop"),
    ('I decline "make deploy" today.', 'I approve "make deploy" today.', "decline"),
    ('I refuse to run "make deploy" today.', 'I agree to run "make deploy" today.', "refuse"),
    ('Avoid "make deploy" today.', 'Prefer "make deploy" today.', "Avoid"),
    ('The user banned "rm -rf" here.', 'The user allowed "rm -rf" here.', "banned"),
])
def test_a_refusal_rewritten_away_is_refused(before, after, word):
    find(_rewrite(before, after), "I2", key="negation", value=word, evidence__change="negation_dropped")


@pytest.mark.parametrize("before, after", [
    ('Stop running "make deploy" today.', 'Stop running "make deploy" now.'),
    ('Please stop the server now.', 'Now please stop the server.'),
    ('The stopwatch says 3 s.', 'The stopwatch reads 3 s.'),  # (a word inside another is none)
])
def test_a_refusal_kept_is_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


# red team 118, F17: a blank put inside a word or taken from between two makes other words, no
# re-spacing: "nowhere" -> "now here" dropped the negation and passed as only re-spaced
@pytest.mark.parametrize("before, after, word, change", [
    ("The key is nowhere in the config.", "The key is now here in the config.", "nowhere", "negation_dropped"),
    ("There is nothing to delete on db-01.", "There is no thing to delete on db-01.", None, None),
    ("Do not push to main.", "Do notpush to main.", "not", "negation_dropped"),
    ("Push now here to main.", "Push nowhere to main.", "nowhere", "negation_added"),
])
def test_a_respacing_that_makes_other_words_is_read(before, after, word, change):
    v = _rewrite(before, after)
    if word is None:  # ("no thing" keeps a negation: read, and accepted)
        assert_accepted(v, "lossless")
    else:
        find(v, "I2", block="b1", key="negation", value=word, evidence__change=change)


@pytest.mark.parametrize("before, after", [
    ("Do not push to main, ever.", "Do not push to main , ever ."),  # blanks beside punctuation
    ("Do not\npush to main.", "Do not push\nto main."),  # re-wrapped
    ("  Never restart db-01.\n", "Never restart db-01.\n\n"),  # re-indented
])
def test_a_respacing_that_keeps_every_word_is_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


# red team 118, F21 (and F20's variant): one negation over a list of quotations said once an
# item, or as neither / nor, denies what it denied; a negation the restatement adds over words
# no quotation holds, or a quotation read the other way, is still a negation added
_LIST_DENIED = 'Do not run "make deploy" or "make release".'


@pytest.mark.parametrize("before, after", [
    (_LIST_DENIED, 'Never run "make deploy"; never run "make release".'),
    (_LIST_DENIED, 'Neither "make deploy" nor "make release" should be run.'),
    (_LIST_DENIED, '"make deploy" must not be run, nor "make release".'),
    ('Never run "make deploy"; never run "make release".', _LIST_DENIED),
])
def test_a_negation_over_a_list_said_once_an_item_is_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


@pytest.mark.parametrize("before, after, invariant", [
    # a negation added over words no quotation holds
    (_LIST_DENIED + " Check the logs.", 'Never run "make deploy"; never run "make release". Never check the logs.',
     "I2"),
    (_LIST_DENIED + " Wait.", 'Never run "make deploy"; never wait or run "make release".', "I2"),
    # a quotation read the other way
    ('Run "make deploy" or "make release".', 'Never run "make deploy"; never run "make release".', "I1"),
    ('Run "make deploy". Do not run "make release".', 'Never run "make deploy"; never run "make release".', "I1"),
])
def test_a_negation_over_a_list_said_once_an_item_with_more_is_refused(before, after, invariant):
    v = _rewrite(before, after)
    assert not v.accepted
    find(v, invariant, block="b1")


# eng-pol8's leftovers: a contracted negation written without its apostrophe is counted as one
@pytest.mark.parametrize("before, after", [
    ("Dont push to main.", "Do not push to main."),
    ("Do not push to main.", "Dont push to main."),
    ("You cant delete it.", "You cannot delete it."),
    ('Dont run "make deploy".', 'Do not run "make deploy".'),
])
def test_a_bare_contraction_spelled_out_is_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


@pytest.mark.parametrize("before, after, word, change", [
    ("Dont push to main.", "Do push to main.", "Dont", "negation_dropped"),
    ("You cant delete it.", "You can delete it.", "cant", "negation_dropped"),
    ("Push to main.", "Dont push to main.", "Dont", "negation_added"),
])
def test_a_bare_contraction_dropped_or_added_is_refused(before, after, word, change):
    find(_rewrite(before, after), "I2", block="b1", key="negation", value=word, evidence__change=change)


# red team 118, F12: a rewrite keeping its count of negations that moves one from some words to
# others (unquoted commands swapped across the negation) is refused; one that moves sentences
# whole, splits, merges or rewords them keeps each word on its side
@pytest.mark.parametrize("before, after", [
    ("Run make test. Never run make deploy.", "Never run make test. Run make deploy."),
    ("Never restart db-01. Restart api-7 if it hangs.", "Restart db-01 if it hangs. Never restart api-7."),
    ("Use dry-run mode. Don't use force mode.", "Use force mode. Don't use dry-run mode."),
    ("Run make test\nNever run make deploy\n", "Never run make test\nRun make deploy\n"),
    ("- run make test\n- never run make deploy\n", "- never run make test\n- run make deploy\n"),
    ("Run make test. Never run this: make deploy.", "Never run this: make test. Run make deploy."),
])
def test_a_negation_moved_to_other_words_is_refused(before, after):
    find(_rewrite(before, after), "I2", block="b1", key="negation", evidence__change="negation_moved")


@pytest.mark.parametrize("before, after", [
    ("Run make test. Never run make deploy.", "Never run make deploy. Run make test."),
    ("Run make test. Never run make deploy.", "Run make test; never run make deploy."),
    ("Run make test. Never run make deploy.", "Run make test, but never run make deploy."),
    ("Run make test. Never run make deploy.", "Run make test.\nNever run make deploy.\n"),
    ("Do not deploy on Friday. Deploy on Monday.", "Deploy on Monday, not on Friday."),
    ("Deploy on Monday, not on Friday.", "Deploy on Monday. Do not deploy on Friday."),
    # a line of prose wrapped mid-sentence is no unit: re-wrapped beside a change, nothing moved
    ("Run the tests and do\nnot deploy the app. It is v1.", "Run the tests and do not\ndeploy the app. It is v1!"),
])
def test_a_negation_kept_over_its_words_is_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


# red team 120, F14: unquoted commands swapped across a contrast (a comma and "but", "yet",
# "while") or across lines each kept with its words were one unit and moved nothing
@pytest.mark.parametrize("before, after", [
    ("Run make test, but never run make deploy.", "Never run make test, but run make deploy."),
    ("Build and test, but never deploy on Fridays.", "Deploy and test, but never build on Fridays."),
    ("Run make test, yet never run make deploy.", "Never run make test, yet run make deploy."),
    ("Run make test\nnever run make deploy", "Never run make test\nrun make deploy"),
    ("Run make test\r\nnever run make deploy", "Never run make test\r\nrun make deploy"),
    ("- Run make test, but never run make deploy.", "- Never run make test, but run make deploy."),
])
def test_a_negation_moved_across_a_contrast_or_a_kept_line_is_refused(before, after):
    find(_rewrite(before, after), "I2", block="b1", key="negation", evidence__change="negation_moved")


@pytest.mark.parametrize("before, after", [
    ("Run make test, but never run make deploy.", "Run make test,\nbut never run make deploy."),
    ("Run make test, but never run make deploy.", "Run make test but never run make deploy."),
    ("Run make test, but never run make deploy.", "Never run make deploy, but run make test."),
    ("Build and test, but never deploy on Fridays.", "Build and test, but do not deploy on Fridays."),
    ("Never deploy on Fridays, but deploy on Mondays.", "Deploy on Mondays, but never on Fridays."),
    ("Run make test\nnever run make deploy", "Run make test\ndo not run make deploy"),
    # a re-wrap moving only the negation leaves it at the end of the line before: no line kept
    ("You should\nnever run make deploy on Fridays", "You should never\nrun make deploy on Fridays"),
    ("You should never\nrun make deploy on Fridays", "You should\nnever run make deploy on Fridays"),
    ("Do not run make deploy until\nthe tests pass, but run make test first.",
     "Do not run make deploy\nuntil the tests pass, but run make test first."),
])
def test_a_negation_kept_over_its_words_across_a_contrast_or_a_line_is_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


# red team 123, F08: unquoted acts swapped across "although", "though", "whereas", a dash, a
# colon, a bracket or an "and" that a denial follows were one unit and moved nothing
@pytest.mark.parametrize("before, after", [
    ("Restart the api although you must not restart the db.", "Restart the db although you must not restart the api."),
    ("Restart the api whereas you must not restart the db.", "Restart the db whereas you must not restart the api."),
    ("Restart the api, even though you must not restart the db.",
     "Restart the db, even though you must not restart the api."),
    ("Restart the api - do not restart the db.", "Restart the db - do not restart the api."),
    ("Restart the api -- do not restart the db.", "Restart the db -- do not restart the api."),
    ("Restart the api \u2013 do not restart the db.", "Restart the db \u2013 do not restart the api."),
    ("Restart the api \u2014 do not restart the db.", "Restart the db \u2014 do not restart the api."),
    ("Restart the api\u2014do not restart the db.", "Restart the db\u2014do not restart the api."),
    ("Restart the api: do not restart the db.", "Restart the db: do not restart the api."),
    ("Restart the api (but never restart the db).", "Restart the db (but never restart the api)."),
    ("Restart the api (never the db) today.", "Restart the db (never the api) today."),
    ("Restart the api and do not restart the db.", "Restart the db and do not restart the api."),
    ("Restart the api and never restart the db.", "Restart the db and never restart the api."),
    ("Restart the api and you must not restart the db.", "Restart the db and you must not restart the api."),
    ("Restart the api and don't restart the db.", "Restart the db and don't restart the api."),
])
def test_a_negation_moved_across_an_aside_a_dash_or_an_and_is_refused(before, after):
    find(_rewrite(before, after), "I2", block="b1", key="negation", evidence__change="negation_moved")


@pytest.mark.parametrize("before, after", [
    # clauses reordered: each act keeps its denial
    ("Restart the api although you must not restart the db.", "Although you must not restart the db, restart the api."),
    ("Restart the api whereas you must not restart the db.", "You must not restart the db whereas you restart the api."),
    ("Restart the api - do not restart the db.", "Do not restart the db - restart the api."),
    ("Restart the api - do not restart the db.", "Restart the api\u2014do not restart the db."),
    ("Restart the api: do not restart the db.", "Do not restart the db: restart the api."),
    ("Restart the api (but never restart the db).", "Never restart the db, but restart the api."),
    ("Restart the api and do not restart the db.", "Do not restart the db and restart the api."),
    ("Restart the api and do not restart the db.", "Do not restart the db; restart the api."),
    # a colon or an "and" no denial opens stays in its unit
    ("Never run this: make deploy.", "Never run this command: make deploy."),
    ("Never stop and restart the db.", "Never stop the db and restart it."),
    ("Never restart the db and the api.", "Never restart the api and the db."),
    ("Do not - under any circumstances - run make deploy.", "Do not run make deploy under any circumstances."),
    ("Do not run make deploy (in prod) on Fridays.", "Do not run make deploy in prod on Fridays."),
])
def test_a_negation_kept_over_its_words_across_an_aside_a_dash_or_an_and_is_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


# red team 125, F01: an aside right after the denial (a dash pair, an em dash pair, a bracket,
# "even though") cut the denial off from the act it denies, so the acts swapped moved nothing
@pytest.mark.parametrize("before, after", [
    ("Never \u2014 under any circumstances \u2014 restart the db. Restart the api.",
     "Never \u2014 under any circumstances \u2014 restart the api. Restart the db."),
    ("Never - under any circumstances - restart the db. Restart the api.",
     "Never - under any circumstances - restart the api. Restart the db."),
    ("Do not (under any circumstances) restart the db. Restart the api.",
     "Do not (under any circumstances) restart the api. Restart the db."),
    ("Don't (ever) restart the db. Restart the api.", "Don't (ever) restart the api. Restart the db."),
    ("You must not\u2014ever\u2014restart the db. Restart the api.",
     "You must not\u2014ever\u2014restart the api. Restart the db."),
    ("Do not, even though it is slow, restart the db. Restart the api.",
     "Do not, even though it is slow, restart the api. Restart the db."),
    ("Do not restart -- or even stop -- the db. Restart the api.",
     "Do not restart -- or even stop -- the api. Restart the db."),
    # an aside that holds the denial is a piece of its own, the words around it one
    ("Restart the api - never the db - today.", "Restart the db - never the api - today."),
])
def test_a_negation_moved_past_an_aside_after_the_denial_is_refused(before, after):
    find(_rewrite(before, after), "I2", block="b1", key="negation", evidence__change="negation_moved")


@pytest.mark.parametrize("before, after", [
    ("Restart the api (do not restart the db).", "Do not restart the db; restart the api."),
    ("Never \u2014 under any circumstances \u2014 restart the db. Restart the api.",
     "Never restart the db under any circumstances. Restart the api."),
    ("Do not (ever) restart the db. Restart the api.", "Restart the api. Do not ever restart the db."),
    ("Do not, even though it is slow, restart the db. Restart the api.",
     "Restart the api. Even though it is slow, do not restart the db."),
    ("Restart the api - never the db - today.", "Today, restart the api (never the db)."),
])
def test_a_negation_kept_over_its_act_past_an_aside_is_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


# red team 125, F13: a colon or "and" opening a clause of its own subject that denies, or a
# denial phrase ("under no circumstances", "please, never"), cut nothing: the swap moved nothing
@pytest.mark.parametrize("before, after", [
    ("Restart the api: the db must not be restarted.", "Restart the db: the api must not be restarted."),
    ("Restart the api and the db must not be restarted.", "Restart the db and the api must not be restarted."),
    ("Restart the api and the db shouldn't be restarted.", "Restart the db and the api shouldn't be restarted."),
    ("Restart the api and under no circumstances restart the db.",
     "Restart the db and under no circumstances restart the api."),
    ("Restart the api: under no circumstances restart the db.", "Restart the db: under no circumstances restart the api."),
    ("Restart the api and please, never restart the db.", "Restart the db and please, never restart the api."),
    ("Restart the api and at no time restart the db.", "Restart the db and at no time restart the api."),
])
def test_a_negation_moved_across_a_clause_of_its_own_that_denies_is_refused(before, after):
    find(_rewrite(before, after), "I2", block="b1", key="negation", evidence__change="negation_moved")


@pytest.mark.parametrize("before, after", [
    ("Restart the api: the db must not be restarted.", "The db must not be restarted; restart the api."),
    ("Restart the api and under no circumstances restart the db.",
     "Under no circumstances restart the db, but restart the api."),
    ("Never run this: the db is not ready.", "Never run this, as the db is not ready."),
    ("Do not restart the db and the api is not ready either.", "The api is not ready either; do not restart the db."),
])
def test_a_negation_kept_over_its_words_across_a_clause_of_its_own_is_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


# red team 126, F01: a bracket nested in a bracketed aside ended the aside at its own ')', so the
# words after it joined the denial and the act after the outer ')' was read as a plain piece
@pytest.mark.parametrize("before, after", [
    ("Do not (under any (really, any) circumstances) restart the db. Restart the api.",
     "Do not (under any (really, any) circumstances) restart the api. Restart the db."),
    ("Never (not even (once)) restart the db. Restart the api.",
     "Never (not even (once)) restart the api. Restart the db."),
])
def test_a_negation_moved_past_a_nested_bracket_aside_is_refused(before, after):
    find(_rewrite(before, after), "I2", block="b1", key="negation", evidence__change="negation_moved")


@pytest.mark.parametrize("before, after", [
    ("Do not (under any (really, any) circumstances) restart the db. Restart the api.",
     "Restart the api. Do not (under any (really, any) circumstances) restart the db."),
    ("Never (not even (once)) restart the db. Restart the api.",
     "Restart the api. Never (not even (once)) restart the db."),
])
def test_a_negation_kept_over_its_act_past_a_nested_bracket_aside_is_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")
