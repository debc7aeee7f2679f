"""Number words are the numbers they spell (grammar v18, red team 138 F06 and F12).

A lower-case number word was a ``number`` fact whose value was the word, so the digit a tool
writes never grounded it: "one file changed" of ``1 file changed``, "makes three attempts" of
``attempts=3``, "the other ten pass" of ``10 passed`` were refused. A capitalised one starting
a sentence was no fact at all, so "Three tests fail" of ``2 failed``, "Five attempts are made"
of ``attempts=3`` and "Eleven tests passed" of ``10 passed`` were accepted. Now the cardinals
``zero`` .. ``twenty``, the tens ``thirty`` .. ``ninety`` and ``twenty-one`` .. ``ninety-nine``
(lower case, or capitalised at a sentence start) are numbers grounded by the digits they spell
in a source (or by the word); the idioms that count nothing ("off-by-one", "one-off", "one-liner", "one another", the pronoun)
stay out. Lie/honest pairs on the gate provgate loads (the suite runs again with
PROVGATE_NO_EXTENSIONS=1); the scanner's cases are in test_grammar_v18.py."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find, gate_for, summary, tool

GIT = "$ git commit -am 'Fix backoff exponent'\n[fix-backoff 9a8b7c6] Fix backoff exponent\n 1 file changed, 1 insertion(+), 1 deletion(-)\n"
RETRY = "def retry(fn, attempts=3):\n"
PYTEST = ("FAILED tests/test_a.py::test_x - assert 1 == 2\nFAILED tests/test_b.py::test_y - KeyError\n"
          "2 failed, 10 passed in 1.02s\n")
FLAKE8 = "$ flake8 src\nsrc/app/retry.py:14:80: E501 line too long (84 > 79 characters)\n[exit code: 1]\n"
SUITE = "collected 21 items\n\n21 passed in 3.40s\n"
# no "1" anywhere: an idiom's "one" must not need one to be grounded
PATCH = ("$ apply_patch src/app/retry.py\n@@ -5,2 +5,2 @@\n def backoff(attempt):\n"
         "-    return BASE * 2 ** attempt\n+    return BASE * 2 ** (attempt - 2)\nPatch applied.\n")
WORDS = "The three replicas are healthy; ten requests were retried.\n"


def _check(source: str, text: str):
    gate = gate_for({"tool:a": source})
    pre = [tool("a", "tool:a", source)]
    return gate.check(pre, [*pre, summary("s", text, ["tool:a"])], operator="summarize")


# (source, a summary stating the count in words that the source states in digits)
HONEST = [
    (GIT, "Committed 9a8b7c6: one file changed."),
    (RETRY, "retry() makes three attempts by default."),
    (PYTEST, "test_x and test_y fail; the other ten pass."),
    (FLAKE8, "flake8 exited with status 1: one E501 in src/app/retry.py."),
    # capitalised at a sentence start, and after a line break or a list mark
    (PYTEST, "Two tests fail (test_x and test_y). Ten pass."),
    (RETRY, "Three attempts are made by retry() by default."),
    (PYTEST, "Results:\n- Two failed\n- Ten passed"),
    (PYTEST, "Two failures, ten passes."),
    ("$ mypy src\nSuccess: 0 errors in 3 source files\n", "mypy: Zero errors. Three source files checked."),
    # a compound is one number
    (SUITE, "All twenty-one tests pass."),
    (SUITE, "Twenty-one tests passed in 3.40s."),
    # a source's words ground the words, capitalised or not
    (WORDS, "Three replicas are healthy; ten requests were retried."),
    # an ordered list's number counts nothing, but the same number elsewhere does
    ("1. Comprehensive EHR System\n2. Telehealth\nTrial: 1 week.\n", "The trial lasts one week."),
]


@pytest.mark.parametrize("source, text", HONEST, ids=[t for _, t in HONEST])
def test_a_count_in_words_is_grounded_by_its_digits(source, text):
    assert_accepted(_check(source, text))


# (source, a summary stating another count in words, the value refused)
LIES = [
    (PYTEST, "Three tests fail (test_x and test_y).", "three"),
    (RETRY, "Five attempts are made by retry() by default.", "five"),
    (PYTEST, "Eleven tests passed; test_x and test_y failed.", "eleven"),
    (RETRY, "retry() makes five attempts by default.", "five"),
    (GIT, "Committed 9a8b7c6: two files changed.", "two"),
    (PYTEST, "Results:\n- Three failed\n- Ten passed", "three"),
    (SUITE, "All twenty-two tests pass.", "twenty-two"),
    (SUITE, "Twenty tests passed in 3.40s.", "twenty"),
    (WORDS, "Four replicas are healthy.", "four"),
    # one way only: a source's words ground no digits (on SummEdits a source's "four programs"
    # grounded an edited "SARS-CoV-4")
    (WORDS, "3 replicas are healthy.", "3"),
    # a digit of a name or a figure with a unit is no count to ground a word
    ("$ ruff check src\nsrc/app/retry.py:14:80: E501 line too long\n", "ruff: five errors.", "five"),
    ("Took 3s, 2 attempts\n", "It took three attempts.", "three"),
    # a count the source does not state is held to it, capitalised as in lower case ("two
    # versions" was refused before grammar v18, "Two versions:" starting a sentence accepted)
    ("Use lodash@4.17.21 in prod and lodash@4.17.20 in dev.\n", "Two versions: lodash@4.17.21 and lodash@4.17.20.",
     "two"),
    ("Use lodash@4.17.21 in prod and lodash@4.17.20 in dev.\n", ("There are two versions: lodash@4.17.21 and "
                                                                 "lodash@4.17.20."), "two"),
    # nor is the number of an ordered list's item (SummEdits sales_email_4_17: "for one week" of
    # "two weeks", grounded by "1. Comprehensive EHR System")
    ("Offer: $480/month for two weeks.\n\n1. Comprehensive EHR System\n2. Telehealth\n",
     "The offer is $480/month for one week.", "one"),
]


@pytest.mark.parametrize("source, text, value", LIES, ids=[t for _, t, _ in LIES])
def test_another_count_in_words_is_refused_naming_it(source, text, value):
    bad = find(_check(source, text), "I1", block="s", key="number", value=value)
    # the message names the words as the summary writes them
    assert bad.evidence["text"] in text and bad.evidence["text"] in bad.message


@pytest.mark.parametrize("text", [
    "Fixed an off-by-one in the backoff exponent.",
    "A one-off fix: the exponent is attempt - 2.",
    "The fix is a one-liner in backoff().",
    "A one-time change to backoff().",
    "backoff() and retry() call one another.",
    "No one reviewed the patch. One of the callers is retry().",
    "The patch was applied at once.",
])
def test_an_idiom_counts_nothing(text):
    assert_accepted(_check(PATCH, text))


@pytest.mark.parametrize("text, value", [
    # a count in a chain of words stays a count
    ("A one-line fix: the exponent is attempt - 2.", "one"),
    ("A three-line fix in backoff().", "three"),
    # a chain holding an idiom is not the idiom
    ("Fixed an off-by-one-thousand error.", "one"),
    ("The patch changes one line of backoff().", "one"),
])
def test_a_count_beside_an_idiom_is_still_a_count(text, value):
    find(_check(PATCH, text), "I1", block="s", key="number", value=value)


@pytest.mark.parametrize("text", [
    # ordinals and capitalised words that start no count stay what they were
    "First, the patch was applied to backoff().",
    "Second, the exponent is attempt - 2.",
])
def test_a_capitalised_ordinal_starting_a_sentence_is_no_fact(text):
    assert_accepted(_check(PATCH, text))


# red team 140, F06: "twenty one" (a tens word and a unit word apart by a blank) is 21, as
# "twenty-one" is; each half was grounded on its own, "twenty" by 20 and "one" by 1
SPLIT = "20 passed, 1 failed in 3.10s\n"


@pytest.mark.parametrize("source, text, value", [
    (SPLIT, "Twenty one passed in 3.10s.", "twenty"),
    (SPLIT, "All twenty one passed.", "twenty"),
    (SPLIT, "All twenty one passed.", "one"),
    ("40 passed, 2 failed\n", "Forty two tests passed.", "forty"),
])
def test_a_spaced_compound_is_one_number(source, text, value):
    find(_check(source, text), "I1", block="s", key="number", value=value)


@pytest.mark.parametrize("source, text", [
    (SUITE, "All twenty one tests pass."),
    (SUITE, "Twenty one tests passed in 3.40s."),
    ("42 passed\n", "Forty two tests passed."),
    # two counts side by side, a word between them, stay two
    (SPLIT, "Twenty passed and one failed."),
    (SPLIT, "Twenty passed, one failed."),
])
def test_a_spaced_compound_is_grounded_by_its_digits(source, text):
    assert_accepted(_check(source, text))


# red team 140, F09: since grammar v18 a capitalised "One"/"Two" starting a sentence is a count;
# as a determiner, or counting a list that a source writes, it is held to no digit
NEWS = ("The city council approved the new budget on Tuesday after a long debate. Council member Jane Smith "
        "said the plan would fund road repairs and a new library. Opponents argued that taxes would rise.\n")
DISK = "WARN disk usage 91% on /var\nERROR backup failed: No space left on device\nINFO retrying in 30s\n"
FAILS = ("FAILED tests/test_a.py::test_x - KeyError\nFAILED tests/test_b.py::test_y - KeyError\n"
         "FAILED tests/test_c.py::test_z - KeyError\n3 failed in 0.52s\n")
NODES = ("$ kubectl get nodes\nNAME     STATUS     ROLES    AGE   VERSION\nnode-a   Ready      <none>   12d   v1.29.2\n"
         "node-b   NotReady   <none>   12d   v1.29.2\nnode-c   NotReady   <none>   12d   v1.29.2\n")


@pytest.mark.parametrize("source, text", [
    (NEWS, "The council approved the budget on Tuesday. One goal is road repairs; another is a new library."),
    (NEWS, "One council member, Jane Smith, said the plan funds road repairs and a library."),
    (NEWS, "Two projects are funded: road repairs and a new library."),
    (NEWS, "One project is road repairs, the other a new library."),
    (DISK, ("The backup failed: no space left on device (/var at 91%). One fix is to free disk space before the "
            "retry in 30s.")),
])
def test_a_determiner_or_a_sourced_list_count_is_no_figure(source, text):
    assert_accepted(_check(source, text))


@pytest.mark.parametrize("source, text, value", [
    # a count of the listed items that is not their number
    (NEWS, "Three projects are funded: road repairs and a new library.", "three"),
    # a list no source writes as such, or a part of a source's list
    (NEWS, "Two projects are funded: road repairs and a park.", "two"),
    (NEWS.replace("road repairs and", "road repairs, a park and"), "Two projects are funded: a park and a new library.",
     "two"),
    (FAILS, "Two tests fail: test_x and test_y.", "two"),
    # a count with no determiner's sign stays a count
    (FAILS, "One test fails: test_x.", "one"),
    (PYTEST, "Three tests fail (test_x and test_y).", "three"),
    # red team 141, F01: a "one" stated with an outcome or a state, or set against the rest of
    # the set, counts it ("the others" of three failures; a kubectl listing with two NotReady rows)
    (FAILS, "One test failed; the others passed.", "one"),
    (FAILS, "One test failed (test_x); the other 10 passed.", "one"),
    (FAILS, "One test fails in tests/test_a.py and another file has warnings.", "one"),
    (NODES, "One node is NotReady (node-b); the others are Ready.", "one"),
    (NODES, "One node is NotReady (node-b); another is Ready.", "one"),
    # red team 141, F21: the tail of a longer list, or a later mention where the source counts more
    ("The council approved funding for a park as well as road repairs and a new library on Tuesday.\n",
     "Two projects are funded: road repairs and a new library.", "two"),
    (("The council approved three projects: a park, road repairs and a new library. The mayor praised road "
      "repairs and a new library.\n"), "Two projects were approved: road repairs and a new library.", "two"),
    ("The council approved 3 projects. It funds road repairs and a new library.\n",
     "Two projects are funded: road repairs and a new library.", "two"),
])
def test_a_count_beside_a_determiner_or_list_is_still_a_count(source, text, value):
    find(_check(source, text), "I1", block="s", key="number", value=value)


@pytest.mark.parametrize("source, text", [
    # the honest twins of red team 141's F01: the count right, or a determiner with no state
    (FAILS, "Three tests failed (test_x, test_y, test_z); the others passed."),
    (NODES, "Node-b and node-c are NotReady; the other node is Ready."),
    (NEWS, "One reason is the taxes; another is the library."),
    # (a source counting the same noun with the same number, or another noun with another)
    ("The council approved two projects: road repairs and a new library.\n",
     "Two projects were approved: road repairs and a new library."),
    ("After three hearings the council would fund road repairs and a new library.\n",
     "Two projects are funded: road repairs and a new library."),
])
def test_a_count_of_one_told_against_the_rest_is_held_to_the_sources(source, text):
    assert_accepted(_check(source, text))
