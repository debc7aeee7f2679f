"""Quoted polarity at fenced blocks and "blocked" (docs/gate.md, I1 — "quoted polarity"):
red team 125 F04 and red team 126 F04, F05, F06, F12. Each lie is refused and its honest
control accepted; the suite runs once each way (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import pytest
from conftest import IMPLEMENTATIONS, load_implementation
from gate_helpers import assert_accepted, blk, find, store_with, summary
from hypothesis import given, settings
from hypothesis import strategies as st
from scanner_helpers import assert_same_columns, columns, spans

from provgate import _scanner_py
from provgate.gate import Gate, _clause_negated


def _summarize(source: str, text: str):
    store = store_with({"src:1": source})
    pre = [blk("b1", "user", source, ["src:1"])]
    return Gate(store).check(pre, [summary("s1", text, ["src:1"])], operator="summarize")


def _refused(source: str, text: str, value: str = "make deploy") -> None:
    find(_summarize(source, text), "I1", block="s1", value=value, evidence__change="negation_dropped")


# red team 126, F05: a fence whose info string holds blanks, "=" or "{" was governed by no sentence
@pytest.mark.parametrize("opening", ["```bash title=deploy.sh", "```sh {.line-numbers}", "``` bash"])
@pytest.mark.parametrize("before", ["Never run this.", "Never run this:"])
def test_a_fence_with_an_info_string_is_governed(opening, before):
    fence = opening + "\nmake deploy\n```\n"
    _refused(before + "\n" + fence, before.replace("Never run", "Run") + "\n" + fence)
    assert_accepted(_summarize("Run this:\n" + fence, "Run this:\n" + fence))


@pytest.mark.parametrize("text, negated", [
    (b"Never run this:\n```bash title=deploy.sh\nmake deploy\n```\n", True),
    (b"Never run this.\n```sh {.line-numbers}\nmake deploy\n```\n", True),
    (b"Run this:\n```bash title=deploy.sh\nmake deploy\n```\n", False),
    # (a backtick in a backtick fence's info string: no fence, CommonMark)
    (b"Never run this.\n```a`b\nmake deploy\n```\n", False),
])
def test_clause_negated_reads_a_fence_with_an_info_string(text, negated):
    assert _clause_negated(text, text.index(b"make")) is negated


# red team 125, F04: only the quotation starting at a governed fence's first line was governed
_TWO_LINES = "```\nmake build\nmake deploy\n```\n"


@pytest.mark.parametrize("source", [
    "Never run this:\n" + _TWO_LINES,
    "Never run this.\n" + _TWO_LINES,
    _TWO_LINES + "Never run the above.\n",
    "Never run this:\n```bash title=x\nmake build\n  make deploy --now\n```\n",
])
def test_a_later_line_of_a_governed_fence_is_governed(source):
    _refused(source, "Run `make deploy` now.")
    _refused(source, "Run `make build` now.", "make build")


@pytest.mark.parametrize("source", [
    "Run this:\n" + _TWO_LINES,
    _TWO_LINES + "Run the above.\n",
    # a closed fence governs nothing after its closing line
    "Never run this:\n```\nmake build\n```\nmake deploy\n",
    "Never run this.\n```\nmake build\n```\n\nThen:\n```\nmake deploy\n```\n",
])
def test_a_later_line_of_a_fence_nothing_denies_is_accepted(source):
    assert_accepted(_summarize(source, "Run `make deploy` now."))


@pytest.mark.parametrize("text, negated", [
    (b"Never run this:\n```\nmake build\nmake deploy\n```\n", True),
    (b"```\nmake build\nmake deploy\n```\nDon't run them.\n", True),
    (b"Run this:\n```\nmake build\nmake deploy\n```\n", False),
    (b"Never run this:\n```\nmake build\n```\nmake deploy\n", False),
])
def test_clause_negated_reads_a_later_line_of_a_fence(text, negated):
    assert _clause_negated(text, text.index(b"make deploy")) is negated


# red team 126, F12: coordinated adverbs, a comma aside or a colon before "blocked" left it unread
@pytest.mark.parametrize("source", [
    "`make deploy` remains completely and indefinitely blocked.",
    "`make deploy` is completely, utterly blocked.",
    "`make deploy` is firmly or permanently blocked.",
    "The `make deploy` target is, for now, blocked.",
    "`make deploy` is, as of today, blocked by the release freeze.",
    "`make deploy`: blocked until further notice.",
    "`make deploy` is strangely blocked.",
])
def test_a_command_blocked_past_adverbs_or_an_aside_is_prohibited(source):
    _refused(source, "Run `make deploy`.")


@pytest.mark.parametrize("source", [
    "`make deploy` is, for now, the way to ship.",
    "`make deploy` is occasionally blocked by flaky tests, so retry it.",
    "`make deploy` was briefly and partially blocked until yesterday.",
    "`make deploy`: blocked on PR 12, run it after the merge.",
    "`make deploy` is quickly and fully done.",
])
def test_a_command_no_standing_block_names_is_asked(source):
    assert_accepted(_summarize(source, "Run `make deploy`."))


# red team 126, F04: a sentence pointing at a fence governed it only with at most six words after
# the pointer, no bracket, no quantifier and no comma in a passive; read by its structure now
_FENCE = "```\nmake deploy\n```\n"


@pytest.mark.parametrize("before", [
    "Never run this (it wipes prod).",
    "Never run this on db.prod.internal.",
    "Never run this on the production cluster during business hours.",
    "Never run this command on prod, it wipes the db.",
    "Never run this; it wipes prod.",
    "Never run any of these.",
    "Do not run either of the following.",
    "Never run the next block.",
    "This is not to be run.",
    "Under no circumstances should this be run.",
    "This should never, ever be run.",
    "Never run or share this.",
    "None of these should be run.",
    "Never run this before the backup.",
])
def test_a_fence_a_longer_or_quantified_prohibition_before_it_denies(before):
    _refused(before + "\n" + _FENCE, "Run this.\n" + _FENCE)


@pytest.mark.parametrize("after", [
    "Never run that (it wipes prod).",
    "Never run any of the above.",
    "None of the above should be run.",
    "You should never, ever run that on a shared host.",
    # item 6 of eng-pol18: a subject that denies carries across the clause that qualifies it
    "Nobody who has access should run that.",
])
def test_a_fence_a_longer_or_quantified_prohibition_after_it_denies(after):
    _refused(_FENCE + after + "\n", _FENCE + "Run the above.\n")


@pytest.mark.parametrize("source", [
    "Run this (it fixes prod).\n" + _FENCE,
    "Run this on db.prod.internal.\n" + _FENCE,
    "Run this on the production cluster during business hours.\n" + _FENCE,
    "Run any of these.\n" + _FENCE,
    "This is to be run.\n" + _FENCE,
    "This should always be run.\n" + _FENCE,
    "Don't skip this; it fixes prod.\n" + _FENCE,
    "Following the upgrade, don't forget to run this.\n" + _FENCE,
    "Never run this twice (it is not idempotent).\n" + _FENCE,
    "Why not run any of these?\n" + _FENCE,
    "Do not hesitate to run this on prod.\n" + _FENCE,
    _FENCE + "Nobody has run that (yet).\n",
    _FENCE + "Anyone who has access should run that.\n",
    _FENCE + "This has not been run yet, so run it now.\n",
    # what is done before or after the block is another act
    "Nothing else needs to run before this.\n" + _FENCE,
    _FENCE + "No need to run anything else after that.\n",
])
def test_a_fence_a_longer_sentence_that_asks_for_it_is_accepted(source):
    assert_accepted(_summarize(source, "Run this:\n" + _FENCE))


# red team 126, F06: a colon or "and" was not cut where the denial is "can't" / "won't", the
# subject has four words, a comma follows "and", or a word stands before the denial phrase
def _rewrite(before: str, after: str):
    store = store_with({"user:1": before})
    pre = [blk("b1", "user", before, ["user:1"])]
    post = [blk("b1", "user", after, ["user:1"])]
    return Gate(store).check(pre, post, operator="rewrite", policy="reject")


@pytest.mark.parametrize("before", [
    "Restart the api: the db can't be restarted.",
    "Restart the api: the db won't be restarted.",
    "Restart the api: the db cannot be restarted.",
    "Restart the api: the db can\u2019t be restarted.",
    "Restart the api: the primary postgres db must not be restarted.",
    "Restart the api: the primary postgres db there must not be restarted.",
    "Restart the api and, please, never restart the db.",
    "Restart the api and for no reason restart the db.",
    "Restart the api and by no means restart the db.",
])
def test_a_negation_swapped_across_a_clause_that_denies_is_refused(before):
    after = before.replace("api", "API").replace("db", "api").replace("API", "db")
    find(_rewrite(before, after), "I2", block="b1", key="negation", evidence__change="negation_moved")


@pytest.mark.parametrize("before, after", [
    ("Restart the api: the db can't be restarted.", "The db can't be restarted; restart the api."),
    ("Restart the api: the primary postgres db must not be restarted.",
     "The primary postgres db must not be restarted; restart the api."),
    ("Restart the api and, please, never restart the db.", "Never restart the db, but restart the api."),
    ("Restart the api and for no reason restart the db.", "For no reason restart the db; restart the api."),
    ("Never stop and restart the db. Restart the api.", "Restart the api. Never stop and restart the db."),
])
def test_a_negation_kept_across_a_clause_that_denies_is_accepted(before, after):
    assert_accepted(_rewrite(before, after), "lossless")


# red team 126, F05: a "~~~" fence was no fence of the quote layer, so nothing governed it
_TILDE = "~~~\nmake deploy\n~~~\n"


@pytest.mark.parametrize("source, text", [
    ("Never run this.\n" + _TILDE, "Run this.\n" + _TILDE),
    ("Never run this:\n" + _TILDE, "Run this:\n" + _TILDE),
    (_TILDE + "Never run the above.\n", _TILDE + "Run the above.\n"),
    ("Never run this:\n~~~~ bash {.x} `y`\nmake deploy\n```\n~~~~\n", "Run this:\n" + _TILDE),
])
def test_a_tilde_fence_a_sentence_denies_is_governed(source, text):
    _refused(source, text)
    assert_accepted(_summarize(source.replace("Never run", "Run"), text))


_FENCE_PIECES = ["~~~", "~~~~", "~~", " ~~~", "    ~~~", "```", "````", "~~~ bash `x`", "``` a`b", '"q"', "'q'",
                 "`c`", "make deploy", " ", "\r", "\n", "\n", "\n", "x=1"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_FENCE_PIECES), max_size=40).map("".join))
def test_the_quote_layer_reads_tilde_fences_alike_natively_and_in_reference(text):
    data = text.encode()
    native = load_implementation("scanner", "_scanner_py", IMPLEMENTATIONS[0])
    assert_same_columns(columns(native, data), _scanner_py.scan(data, 10**7, shortcut=False), data)


@pytest.mark.parametrize("impl_name", IMPLEMENTATIONS)
@pytest.mark.parametrize("text, value", [
    ("~~~\nmake deploy\n~~~\nx", "make deploy"),
    ("~~~ bash `y`\nmake deploy\n```\n~~~~\n", "make deploy\n```"),
    ("~~~~\n~~~\nmake deploy\n~~~~", "~~~\nmake deploy"),
    ("```\n~~~\nmake deploy\n```", "~~~\nmake deploy"),
])
def test_the_quote_layer_reads_a_tilde_fence_as_one_quotation(impl_name, text, value):
    impl = load_implementation("scanner", "_scanner_py", impl_name)
    found = spans(impl, text)
    assert [v for k, _, _, v in found if k == "quote"][:1] == [value]


# the whitespace normalisation finds the quote layer's fence lines, tilde fences too: a line
# inside one keeps its trailing blanks (a fence's value is its lines verbatim)
@pytest.mark.parametrize("impl_name", IMPLEMENTATIONS)
@pytest.mark.parametrize("a, b, equal", [
    ("~~~\nmake deploy  \n~~~\n", "~~~\nmake deploy\n~~~\n", False),
    ("~~~ bash `x`\nmake deploy  \n~~~", "~~~ bash `x`\nmake deploy\n~~~", False),
    ("~~~\nmake deploy\n~~~  \nafter  ", "~~~\nmake deploy\n~~~\nafter", True),
    ("~~~~\n~~~\nx  \n~~~~", "~~~~\n~~~\nx\n~~~~", False),
    ("```\n~~~\n```\nx  ", "```\n~~~\n```\nx", True),
    ("~~\nx  ", "~~\nx", True),
])
def test_the_normalisation_keeps_a_tilde_fence_verbatim(impl_name, a, b, equal):
    impl = load_implementation("textnorm", "_textnorm_py", impl_name)
    assert bool(impl.same_after_normalisation([a], [b])[0]) is equal
    assert bool(impl.same_after_normalisation([b], [a])[0]) is equal
