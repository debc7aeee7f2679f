"""A negation's reach over a source's quotations (red team 100): every quotation of a list the
negation governs is denied (F01), so are words inside a denied quotation (F10), and a JSON
string that is "no" alone is an answer, no negation of the string after it (F08). Asked of both
implementations of ``denied_quotes`` and the literal search's ``QUOTE`` mode, and of the gate
(which runs on whichever implementation is loaded: the suite runs once each way)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from conftest import IMPLEMENTATIONS, NO_EXTENSIONS, load_implementation
from gate_helpers import assert_accepted, blk, find, store_with, summary, tool
from hypothesis import given, settings
from hypothesis import strategies as st

from provgate.errors import InvalidArgumentError
from provgate.gate import Gate

QUOTE = 4
RELAXED = 0


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    return load_implementation("matching", "_matching_py", request.param)


def denied_words(impl, text: str, words: list[str]) -> list[str]:
    """Which of ``words`` (each a quotation's first words in ``text``) ``denied_quotes`` denies."""
    data = text.encode()
    starts = np.array([data.index(w.encode()) for w in words], dtype=np.int64)
    rows = impl.denied_quotes(data, np.full(len(words), 7, np.uint8), starts, 7).tolist()
    return [words[r] for r in rows]


def quoted_in(impl, needle: str, haystack: str) -> bool:
    """Does ``needle`` occur in ``haystack`` as a quotation of it (``QUOTE`` mode)?"""
    return bool(impl.occurs_at_boundaries([needle.encode()], [haystack.encode()], modes=[QUOTE])[0])


@pytest.mark.parametrize("text, words, denied", [
    # red team 100, F01: each item of the list, by comma, "or", "and", "nor", ", or"
    ('Please do not "deploy to prod", "drop the users table".', ["deploy", "drop"], ["deploy", "drop"]),
    ('Never "deploy to prod" or "drop the users table".', ["deploy", "drop"], ["deploy", "drop"]),
    ('Do not "deploy", "drop the table", or "restart".', ["deploy", "drop", "restart"],
     ["deploy", "drop", "restart"]),
    ('Do not "deploy" and "restart".', ["deploy", "restart"], ["deploy", "restart"]),
    ("Don't 'deploy', 'restart'.", ["deploy", "restart"], ["deploy", "restart"]),
    ("Do not \u201cdeploy\u201d or \u201crestart\u201d.", ["deploy", "restart"], ["deploy", "restart"]),
    ('["Do not", "deploy to prod", "drop the table"]', ["deploy", "drop"], ["deploy", "drop"]),
    # red team 103, F03: "or even", "and also", and a semicolon, slash, bracket or dash before a
    # list word; alone, those open a correction, no list item (red team 104, F01)
    ('Never "deploy to prod" or even "drop the users table".', ["deploy", "drop"], ["deploy", "drop"]),
    ('Do not "deploy to prod" and also "drop the users table".', ["deploy", "drop"], ["deploy", "drop"]),
    ('Do not "deploy to prod" \u2014 or "drop the users table".', ["deploy", "drop"], ["deploy", "drop"]),
    ('Do not "deploy to prod"; or "drop the users table".', ["deploy", "drop"], ["deploy", "drop"]),
    ('Please do not "deploy to prod" (or "drop the users table").', ["deploy", "drop"], ["deploy", "drop"]),
    ('Do not "deploy"; "rollback" is the fix.', ["deploy", "rollback"], ["deploy"]),
    ('The default branch is not "master" ("main" is, since 2021).', ["master", "main"], ["master"]),
    ('The flag is not "--dry-run" \u2013 "--check" is the one to use.', ["--dry-run", "--check"], ["--dry-run"]),
    ('It is not "config/dev.yml" / "config/prod.yml" is what it reads.', ["config/dev", "config/prod"],
     ["config/dev"]),
    ('Do not "deploy" even "restart".', ["deploy", "restart"], ["deploy"]),  # (a filler joins only after or/and)
    # no list: a word other than the joiners, a sentence between, a list no negation opens
    ('Do not "deploy", then "restart".', ["deploy", "restart"], ["deploy"]),
    ('Do not "deploy". Then "restart".', ["deploy", "restart"], ["deploy"]),
    ('Run "deploy", "restart" or "drop".', ["deploy", "restart", "drop"], []),
    ('Pick a color "red" or "blue".', ["red", "blue"], []),
    # red team 100, F08: "no" quoted alone is an answer or a value
    ('{"prompt": "Overwrite?", "choices": ["yes", "no", "ask every time"]}', ["ask every"], []),
    ('{"dry_run": "no", "target env": "production"}', ["target env"], []),
    # ... but a string that ends in a negation still denies the next (red team 96, F10), and so
    # does a string that is "not" or "Never" alone (a line cut in two: fail closed)
    ('["always", "never", "on failure"]', ["on failure"], ["on failure"]),
    ('["Do not", "deploy to prod on Friday"]', ["deploy"], ["deploy"]),
    ('["Please do not ", "deploy to prod on Friday"]', ["deploy"], ["deploy"]),
    ('["not", "deploy to prod on Friday"]', ["deploy"], ["deploy"]),
    ('["no deploy", "ship"]', ["ship"], []),
    # red team 100, F10: a quotation inside a denied one is denied with it
    ("Do not \"set 'retries=5' now\".", ["retries"], ["retries"]),
    ("Do not \u201cset \u2018retries=5\u2019 now\u201d.", ["retries"], ["retries"]),
    ("Run \"set 'retries=5' now\".", ["retries"], []),
    ('Do not "deploy" "ship".', ["ship"], []),
    # red team 104, F04: and/or, &, or else, a spaced hyphen, a slash, between the quotations
    ('Do not "deploy to prod" and/or "drop the users table".', ["deploy", "drop"], ["deploy", "drop"]),
    ('Do not "deploy" or/and "restart".', ["deploy", "restart"], ["deploy", "restart"]),
    ('Never "deploy to prod" & "drop the users table".', ["deploy", "drop"], ["deploy", "drop"]),
    ('Never "deploy", "restart" & also "drop".', ["deploy", "restart", "drop"], ["deploy", "restart", "drop"]),
    ('Do not "deploy to prod" or else "drop the users table".', ["deploy", "drop"], ["deploy", "drop"]),
    ('Do not "deploy to prod" - "drop the users table".', ["deploy", "drop"], ["deploy", "drop"]),
    ('Do not "deploy to prod" -- "drop the users table".', ["deploy", "drop"], ["deploy", "drop"]),
    ('Do not "deploy to prod" / "drop the users table".', ["deploy", "drop"], ["deploy", "drop"]),
    ('Do not "deploy"/"restart"/"drop" in prod.', ["deploy", "restart", "drop"], ["deploy", "restart", "drop"]),
    ("Don't 'deploy' - or 'restart'.", ["deploy", "restart"], ["deploy", "restart"]),
    # ... a semicolon, bracket or dash alone too, unless the quotation after it opens a clause
    # of its own (a correction: red team 104, F01; red team 103, F05)
    ('Do not "deploy"; "restart".', ["deploy", "restart"], ["deploy", "restart"]),
    ('Do not "deploy" ("restart") on Friday.', ["deploy", "restart"], ["deploy", "restart"]),
    ('Do not "deploy" \u2014 "restart".', ["deploy", "restart"], ["deploy", "restart"]),
    ('Do not "deploy"; "rollback" instead.', ["deploy", "rollback"], ["deploy"]),
    ('It is not "config/dev.yml" - "config/prod.yml" was read.', ["config/dev", "config/prod"], ["config/dev"]),
    ('Do not "deploy", and "restart" is required after it.', ["deploy", "restart"], ["deploy"]),
    ('Do not use "master", "main" is the default.', ["master", "main"], []),
    ('Do not "master", "main" is the default.', ["master", "main"], ["master"]),
    ('Do not "deploy"; not "restart".', ["deploy", "restart"], ["deploy", "restart"]),
    ('Neither "deploy" nor "restart" is allowed.', ["deploy", "restart"], ["deploy", "restart"]),
    ('Do not "deploy" and "restart" is required.', ["deploy", "restart"], ["deploy", "restart"]),  # (no separator)
    # a list set out one item a line, under a header whose first words hold a negation, or one
    # that is a negation alone (red team 104, F04)
    ('Do not run:\n- "deploy to prod"\n- "drop the users table"\n', ["deploy", "drop"], ["deploy", "drop"]),
    ('**Never**:\n\n1. "deploy to prod"\n\n2. "drop the users table"', ["deploy", "drop"], ["deploy", "drop"]),
    ('Please do not\n  * "deploy"\n  * "restart" (slow)\n  * "drop"', ["deploy", "restart", "drop"],
     ["deploy", "restart", "drop"]),
    ("Don\u2019t:\r\n1) 'deploy'\r\n2) 'drop'", ["deploy", "drop"], ["deploy", "drop"]),
    ('Never:\n\u2022 \u201cdeploy\u201d\n\u2022 \u201cdrop\u201d', ["deploy", "drop"], ["deploy", "drop"]),
    # ... not under a header without one, one whose negation comes late, a list item "no", a
    # value "no", or an item that does not open with the quotation
    ('Run:\n- "deploy"\n- "drop"', ["deploy", "drop"], []),
    ('The following tests did not fail:\n- "test_a"\n- "test_b"', ["test_a", "test_b"], []),
    ('- no\n- "deploy to prod"', ["deploy"], []),
    ('Dry run: no\n- "deploy to prod"', ["deploy"], []),
    ('Do not:\n- run "deploy"\n- "drop"', ["deploy", "drop"], []),
    ('Do not "deploy"\n- "drop"', ["deploy", "drop"], ["deploy"]),
    ('Do not:\n-"deploy"', ["deploy"], []),
    # a verb of omission after the header's negation: the items are to be done
    ("Don't forget:\n- \"update the changelog\"\n- \"tag the release\"", ["update", "tag"], []),
    ('**Never skip**:\n1. "the smoke tests"', ["the smoke"], []),
    # a stressing word before the verb of omission (red team 108, F06: denied before)
    ('Do not ever forget these:\n1. "the smoke tests"', ["the smoke"], []),
    # a question or a condition over the list asks, prohibits nothing (red team 108, F06)
    ('Didn\'t work? Try:\n- "brew reinstall jq"', ["brew"], []),
    ('If you don\'t have jq, run:\n- "brew install jq"', ["brew"], []),
    ('Don\'t hesitate to run:\n- "make test"', ["make"], []),
    ('Don\'t leave out:\n- "the migration"', ["the migration"], []),
    ('Never run:\n- "rm -rf /"', ["rm"], ["rm"]),  # (the control)
    # a "no", its noun and a finding: a report of none found, no prohibition (stop 46; the
    # polarity rule reads the items as negated); without the finding, the noun's "no" governs
    ('No issues found in:\n- "src/app.py"\n- "src/db.py"', ["src/app", "src/db"], []),
    ('**No** errors were _detected_ in:\n- "src/app.py"', ["src/app"], []),
    ('No security issues were found in:\n- "src/app.py"', ["src/app"], []),
    ('NO ISSUES REPORTED FOR:\n- "src/app.py"', ["src/app"], []),
    ('No pushes to:\n- "main"\n- "release"', ["main", "release"], ["main", "release"]),
    ('No more than these four words found:\n- "main"', ["main"], ["main"]),
    ('No found:\n- "main"', ["main"], ["main"]),
    ('No one may run:\n- "make deploy"', ["make"], ["make"]),
])
def test_a_negation_denies_every_quotation_of_its_list(impl, text, words, denied):
    assert denied_words(impl, text, words) == denied


@pytest.mark.parametrize("needle, haystack, quoted", [
    # red team 100, F10: words inside a denied quotation are denied as the whole is
    ("to prod on Friday", 'Please do not "deploy to prod on Friday".', False),
    ("on Friday", "Please don't 'deploy to prod on Friday'.", False),
    ("to prod", "Please do not \u201cdeploy to prod now\u201d.", False),
    ("the users table", 'Do not "deploy", "drop the users table".', False),
    ("prod on Friday", '["Do not", "deploy to prod on Friday"]', False),
    ("app now", "Do not \"deploy the team's app now\".", False),
    ("retries=5", "Do not \"set 'retries=5' now\".", False),
    # red team 103, F06: past a plural possessive, past an inner quotation
    ("table now", "Do not \"drop the users' table now\".", False),
    ("table", "Do not \u201cdrop the users\u2019 table now\u201d.", False),
    ("now on Friday", "Do not \"set 'retries=5' now on Friday\".", False),
    ("now on", "Do not \u201cset \u2018retries=5\u2019 now on Friday\u201d.", False),
    ("the second item", 'Do not run:\n- "deploy"\n- "drop the second item"', False),
    # ... not words after it, inside a quotation no negation denies, or after a closing mark
    ("to prod on Friday", 'Please "deploy to prod on Friday".', True),
    ("to prod", 'Do not "deploy" to prod.', True),
    ("to prod", 'Say "no" to prod.', True),
    ("ask every time", '["yes", "no", "ask every time"]', True),
    ("every time", '["yes", "no", "ask every time"]', True),
    ("The build passed", 'Reply "yes" or "no".\nThe build passed.', True),
    ("on Friday", "Do not 'deploy' on Friday.", True),
    ("on Friday", "Don't \u2018deploy\u2019 on Friday.", True),
    ("table now", "Say 'hi'. Run \"drop the users' table now\".", True),
    ("on Friday", "Do not \"deploy\" 'the users' tables' on Friday.", True),
])
def test_words_inside_a_denied_quotation_are_no_quotation_of_it(impl, needle, haystack, quoted):
    assert quoted_in(impl, needle, haystack) is quoted
    assert impl.occurs_at_boundaries([needle.encode()], [haystack.encode()], modes=[RELAXED])[0]


def test_the_reach_is_bounded(impl):
    # each look-back stays within NEGATION_REACH (256) bytes of the words it starts from: a list
    # item or a quotation's tail too far from the negation is not denied (and the scan is linear)
    near = 'Do not "a' + "x" * 200 + ' tail"'
    far = 'Do not "a' + "x" * 300 + ' tail"'
    assert not quoted_in(impl, "tail", near)
    assert quoted_in(impl, "tail", far)
    listed = 'Do not "a"' + ', "b"' * 40 + ', "last"'
    assert denied_words(impl, listed, ["last"]) == ["last"]
    assert denied_words(impl, 'Do not "a"' + ', "b"' * 60 + ', "last"', ["last"]) == []
    # a list one item a line: its header and items within reach of the item asked of
    bullets = 'Do not run:\n' + '- "b"\n' * 40 + '- "last"'
    assert denied_words(impl, bullets, ["last"]) == ["last"]
    assert denied_words(impl, 'Do not run:\n' + '- "b"\n' * 50 + '- "last"', ["last"]) == []
    assert denied_words(impl, 'Do not run:' + " " * 300 + '\n- "last"', ["last"]) == []
    # the clause test looks for a quotation's closing mark within 256 bytes of its opening one:
    # not found, the quotation opens no clause and the separator joins it (fail closed)
    assert denied_words(impl, 'Do not "a"; "last' + "x" * 200 + '" is', ["last"]) == []
    assert denied_words(impl, 'Do not "a"; "last' + "x" * 300 + '" is', ["last"]) == ["last"]


_PIECES = ["not", "no", "never", "nor", "don't", "Do not", "or", "and", "color", "deploy", "to prod", "team's",
           '"', "'", "\u201c", "\u201d", "\u2018", "\u2019", ", ", ",", " ", "\n", "[", "]", "(", ")", ": ", "*",
           " - ", '", "', '" or "', '", or "', '" and "', "\u201d, \u201c", ".", "x" * 30,
           ";", "/", "even", "also", "\u2014", "\u2013",  # (red team 103, F03's joiners)
           # red team 104, F04's joiners, lists one item a line, clause words, possessives
           "and/or", "or/and", "&", "else", "-", "--", "\n- ", "\n* ", "\n1. ", "\n2) ", "\u2022", ":", "\n\n",
           "is", "instead", "users'", "s'", "\u2019s", "_not_", "Never:", "Do not run:", "12.", "\t", "\r\n",
           "forget", "_skip_",
           # red team 108, F06: questions, conditions, stressed omissions over a list
           "?", "If", "when", "ever", "_ever_", "hesitate", "leave", "Didn't work? Try:", "If you don't:",
           # stop 46: a report of none found ("No issues found in:")
           "No", "issues", "found", "_seen_", "were", "No issues found in:", "no errors detected"]


@pytest.mark.skipif(NO_EXTENSIONS, reason="compares the native module with the reference")
@settings(max_examples=400)
@given(st.lists(st.sampled_from(_PIECES), max_size=40), st.sampled_from([" ", ""]),
       st.randoms(use_true_random=False))
def test_denied_quotes_native_and_reference_agree(pieces, glue, rng: random.Random):
    data = glue.join(pieces).encode()
    starts = np.array(sorted(rng.sample(range(len(data) + 1), min(len(data) + 1, 12))), dtype=np.int64)
    kind = np.full(len(starts), 7, np.uint8)
    native = load_implementation("matching", "_matching_py", "native")
    reference = load_implementation("matching", "_matching_py", "reference")
    assert native.denied_quotes(data, kind, starts, 7).tolist() == reference.denied_quotes(data, kind, starts, 7).tolist()


def _summarized(source: str, text: str, *, tool_output: bool = False):
    handle = "tool:call_1" if tool_output else "user:u1"
    marker = "call_1" if tool_output else "u1"
    block = tool("t1", handle, source) if tool_output else blk("u1", "user", source, ["user:u1"])
    post = [block, summary("s1", text.format(m=marker), [handle])]
    return Gate(store_with({handle: source})).check([block], post, operator="summarize")


@pytest.mark.parametrize("source, text", [
    # red team 100, F01: the summary inverts the user's instruction for the second item
    ('Please do not "deploy to prod", "drop the users table".\n', 'The user asked to "drop the users table" [src:{m}].'),
    ('Never "deploy to prod" or "drop the users table".\n', 'The user asked to "drop the users table" [src:{m}].'),
    # red team 100, F10: the tail of the denied quotation
    ('Please do not "deploy to prod on Friday".\n', 'The release should go "to prod on Friday" [src:{m}].'),
    # red team 104, F04: the later items of a list joined by and/or, &, a slash, one a line
    ('Do not "deploy to prod" and/or "drop the users table".\n', 'The user asked to "drop the users table" [src:{m}].'),
    ('Never "deploy to prod" & "drop the users table".\n', 'The user asked to "drop the users table" [src:{m}].'),
    ('Do not "deploy to prod" / "drop the users table".\n', 'The user asked to "drop the users table" [src:{m}].'),
    ('Do not run:\n- "deploy to prod"\n- "drop the users table"\n',
     'The user asked to "drop the users table" [src:{m}].'),
    # red team 103, F06: the tail past a plural possessive
    ('Please do not "drop the users\' table on Friday".\n', 'The user wants the "table on Friday" gone [src:{m}].'),
])
def test_the_gate_refuses_a_quotation_a_source_denies_in_a_list_or_in_part(source, text):
    find(_summarized(source, text), "I1", block="s1", key="quote")


@pytest.mark.parametrize("source, text", [
    # red team 100, F08: the false refusals of the JSON ", " rule
    ('{"prompt": "Overwrite?", "choices": ["yes", "no", "ask every time"]}\n',
     'The choices include "ask every time" [src:{m}].'),
    ('{"dry_run": "no", "target env": "production"}\n', 'The "target env" key is production [src:{m}].'),
    # a list no negation opens, words after a denied quotation
    ('Run "deploy to prod", "drop the users table".\n', 'The user asked to "drop the users table" [src:{m}].'),
    # red team 104, F01: a correction after a separator alone stays quotable
    ('The default branch is not "master" ("main" is, since 2021).\n', 'The default branch is "main" [src:{m}].'),
    ('Do not "deploy"; "rollback" is the fix.\n', 'The fix is "rollback" [src:{m}].'),
    ('The flag is not "--dry-run" \u2013 "--check" is the one to use.\n', 'Use "--check" [src:{m}].'),
    # red team 103, F05: a quotation opening a clause after ", and"
    ('Do not "deploy", and "restart the service" is required.\n', 'Then "restart the service" [src:{m}].'),
    # a list one item a line under a header no negation opens
    ('Run:\n- "deploy to prod"\n- "drop the users table"\n', 'The user asked to "drop the users table" [src:{m}].'),
])
def test_the_gate_grounds_an_honest_quotation_beside_a_no(source, text):
    assert_accepted(_summarized(source, text, tool_output=True), "lossy")


@pytest.mark.parametrize("quote_kind", [True, 7.0, 256, -1, "7"])
def test_denied_quotes_refuses_a_quote_kind_that_is_no_byte_alike(impl, quote_kind):
    # red team 103, F09: the native twin took True as 1 where the reference refused it
    with pytest.raises(InvalidArgumentError, match="quote_kind"):
        impl.denied_quotes(b"x", np.zeros(0, np.uint8), np.zeros(0, np.int64), quote_kind)
