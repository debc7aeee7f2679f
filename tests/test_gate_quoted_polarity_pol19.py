"""Quoted polarity at fenced blocks (docs/gate.md, I1 — "quoted polarity"): red team 128's
regressions in grammar v14's structural fence reader, F08 F01 F02 F13 F11 F09. Each lie is
refused and its honest control accepted; the suite runs once each way (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import pytest
from conftest import IMPLEMENTATIONS, load_implementation
from gate_helpers import assert_accepted, blk, find, store_with, summary
from hypothesis import given, settings
from hypothesis import strategies as st
from scanner_helpers import assert_same_columns, columns, spans

from provgate import _scanner_py, _textnorm_py
from provgate import gate as gate_module
from provgate.gate import Gate, _fence_blocks

FENCE = "```\nmake deploy\n```\n"
RUN = "Run `make deploy` now."


def _summarize(source: str, text: str):
    store = store_with({"src:1": source})
    pre = [blk("b1", "user", source, ["src:1"])]
    return Gate(store).check(pre, [summary("s1", text, ["src:1"])], operator="summarize")


def _refused(source: str, text: str = RUN, value: str = "make deploy") -> None:
    find(_summarize(source, text), "I1", block="s1", value=value, evidence__change="negation_dropped")


def _sentences_read(monkeypatch) -> list[int]:
    """The length of each sentence the fence reader reads (``_fence_instruction_negated``), from
    now on: work counted, not timed."""
    read: list[int] = []
    real = gate_module._fence_instruction_negated

    def counting(sentence, pointer, depth, **options):
        read.append(len(sentence))
        return real(sentence, pointer, depth, **options)

    monkeypatch.setattr(gate_module, "_fence_instruction_negated", counting)
    return read


# red team 128, F08: the line over a fence with no line break in its last 256 bytes was read
# whole, and its pointer words and dots read in quadratic work; the work is counted, not timed
@pytest.mark.parametrize("line", ["this " * 4000, "x" + "." * 16000 + "y", "run it and " * 2000])
def test_the_line_over_a_fence_is_read_in_bounded_work(monkeypatch, line):
    read = _sentences_read(monkeypatch)
    assert_accepted(_summarize(line + "\n" + FENCE, RUN))
    assert read, "the line over the fence was not read"
    assert max(read) <= 256, max(read)


@pytest.mark.parametrize("filler", ["this " * 100, "x" + "." * 400 + " "])
def test_a_long_line_over_a_fence_still_denies_at_its_end(filler):
    # (the end of the line is what is read: a denial there still governs the fence)
    _refused(filler + "Never run this.\n" + FENCE)
    assert_accepted(_summarize(filler + "Run this.\n" + FENCE, RUN))


# red team 128, F01: a hyphenated verb before the pointer was one word and no act
@pytest.mark.parametrize("before", ["Never re-run this.", "Do not re-run the following.", "Never force-push this.",
                                    "Don't re-deploy this.", "Never copy-paste this.", "Never dry-run this.",
                                    "Never re-execute this.", "Never auto-run this.", "This must never be re-run."])
def test_a_hyphenated_verb_before_a_fence_denies_it(before):
    _refused(before + "\n" + FENCE)


@pytest.mark.parametrize("after", ["Never re-run the above.", "Don't copy-paste that.", "Never force-push that."])
def test_a_hyphenated_verb_after_a_fence_denies_it(after):
    _refused(FENCE + after + "\n")


@pytest.mark.parametrize("source", ["Re-run this.\n" + FENCE, "Copy-paste the following.\n" + FENCE,
                                    FENCE + "Then re-run the above.\n", "A well-known fix:\n" + FENCE])
def test_a_hyphenated_verb_that_asks_for_a_fence_is_accepted(source):
    assert_accepted(_summarize(source, RUN))


# red team 128, F02: "do" was the act only right before the pointer
@pytest.mark.parametrize("source", ["Don't do the following.\n" + FENCE, "Never do the steps below.\n" + FENCE,
                                    "Do not do the next steps.\n" + FENCE, "Never do any of these.\n" + FENCE,
                                    FENCE + "Never do the above.\n", FENCE + "Don't do the steps above.\n"])
def test_do_before_what_points_at_a_fence_is_the_act(source):
    _refused(source)


@pytest.mark.parametrize("source", ["Do the following.\n" + FENCE, FENCE + "Do the above.\n",
                                    "You do not need to worry, just run this.\n" + FENCE])
def test_do_that_asks_for_a_fence_is_accepted(source):
    assert_accepted(_summarize(source, RUN))


# red team 128, F11: a pointer word after a preposition ("for this", "on this branch") was read
# as the block; F09: after "but" / "except" / "other than" the command below, or "after running
# this", and a necessity denied before a passive
@pytest.mark.parametrize("source", [
    "No need to use Docker for this.\n" + FENCE, "Do not deploy from this laptop.\n" + FENCE,
    "Never push to main in this repo.\n" + FENCE, "Never run tests on this branch.\n" + FENCE,
    "Don't run anything but this.\n" + FENCE, "Never run anything other than the command below.\n" + FENCE,
    "Don't run anything except the command below.\n" + FENCE, "Nobody has had issues after running this.\n" + FENCE,
    "Nothing else needs to run before the command below.\n" + FENCE,
    FENCE + "No need to run anything else after the command above.\n", FENCE + "Don't run anything but the above.\n",
    "This doesn't need to be run as root.\n" + FENCE, "This need not be run on macOS.\n" + FENCE,
    "This doesn't have to be run in a venv.\n" + FENCE, "None of this needs to be run as root.\n" + FENCE,
    "This is not required to be run as root.\n" + FENCE])
def test_a_pointer_that_names_no_object_of_a_denied_act_is_accepted(source):
    assert_accepted(_summarize(source, RUN))


# red team 129, F04: a pointer alone after a preposition is the block again ("Do not run anything in
# this.", "Never run anything from the above." were accepted once the preposition's object was
# read as another thing): so a denial of another act done for or with the block denies it, a
# false refusal that fails closed (the preposition cannot tell "use sudo for this" from "run
# anything in this"); a word naming another thing after the pointer still names no block
@pytest.mark.parametrize("source", [
    "Don't use sudo for this.\n" + FENCE, "Never restart the db for this.\n" + FENCE,
    "Don't call support about this.\n" + FENCE, "Don't use sudo with this.\n" + FENCE,
    "You can't use npm for this; use yarn.\n" + FENCE, FENCE + "Don't use sudo for that.\n",
    FENCE + "Don't deploy anything else with that.\n",
    "Do not run anything in this.\n" + FENCE, "Never run the script in this.\n" + FENCE,
    FENCE + "Never run the commands in that.\n", FENCE + "Never run anything from the above.\n"])
def test_a_pointer_alone_after_a_preposition_is_the_block(source):
    _refused(source)


@pytest.mark.parametrize("source", [
    "Never run the commands in this block.\n" + FENCE, "Never run the code in this snippet.\n" + FENCE,
    "Never run any of these.\n" + FENCE, "Never run this on prod.\n" + FENCE, "Never run this command.\n" + FENCE,
    "Never run anything in the following script.\n" + FENCE, "This must never be run as root.\n" + FENCE,
    "This must not be run on macOS.\n" + FENCE, "Never run the command below.\n" + FENCE,
    FENCE + "Never run the command above.\n", FENCE + "Never run the steps in that block.\n",
    "Never use this.\n" + FENCE])
def test_a_pointer_at_the_block_after_a_preposition_or_a_noun_still_denies(source):
    _refused(source)


# red team 128, F13: a heading's underline of tildes ("Title" / "~~~~~", reStructuredText) opened a
# fence to the end of the text; grammar v15 reads a line of tildes only, under a line of text
# no longer than it, as an underline, and "~~~" under a longer line still opens a fence
@pytest.mark.parametrize("impl_name", IMPLEMENTATIONS)
@pytest.mark.parametrize("text, quotes", [
    ("Release notes\n~~~~~~~~~~~~~\nRun make build.\n", []),
    ("Notes \n~~~~~  \nRun make build.\n", []),
    ("Übersicht\n~~~~~~~~~\nRun make build.\n", []),
    ("Release notes\r\n~~~~~~~~~~~~~\r\nRun make build.\r\n", []),
    ("Run this:\n~~~\nmake deploy\n~~~\n", ["make deploy"]),
    ("Title\n~~~~~ sh\nmake deploy\n~~~~~\n", ["make deploy"]),
    ("\n~~~~~\nmake deploy\n~~~~~\n", ["make deploy"]),
    ("~~~~~\nmake deploy\n~~~~~\n", ["make deploy"]),
    ("```\nx\n```\n~~~\nmake deploy\n~~~\n", ["x", "make deploy"]),
    ("Title\n~~~~~\nRun this:\n~~~\nmake deploy\n~~~\n", ["make deploy"]),
    # red team 129, F02 (grammar v16): under a line that ends a sentence or introduces what
    # follows, tildes as many as its characters or more still open a fence
    ("Never run:\n~~~~~~~~~~\nmake deploy\n~~~~~~~~~~\n", ["make deploy"]),
    ("Never run this:\n~~~~~~~~~~~~~~~~\nmake deploy\n~~~~~~~~~~~~~~~~\n", ["make deploy"]),
    ("Do not run.\n~~~~~~~~~~~~\nmake deploy\n~~~~~~~~~~~~\n", ["make deploy"]),
    ("Run it?\n~~~~~~~\nmake deploy\n~~~~~~~\n", ["make deploy"]),
    ("Careful!  \n~~~~~~~~~~\nmake deploy\n~~~~~~~~~~\n", ["make deploy"]),
])
def test_a_tilde_underline_under_a_line_of_text_opens_no_fence(impl_name, text, quotes):
    impl = load_implementation("scanner", "_scanner_py", impl_name)
    assert [v for k, _, _, v in spans(impl, text) if k == "quote"] == quotes
    data = text.encode()
    assert len(_fence_blocks(data)) == len(quotes)


@pytest.mark.parametrize("impl_name", IMPLEMENTATIONS)
@pytest.mark.parametrize("a, b, equal", [
    ("Release notes\n~~~~~~~~~~~~~\nRun make build.   \nThen wait.  \n",
     "Release notes\n~~~~~~~~~~~~~\nRun make build.\nThen wait.\n", True),
    ("Release notes  \n~~~~~~~~~~~~~\nRun make build.   \n", "Release notes\n~~~~~~~~~~~~~\nRun make build.\n", True),
    ("Run this:\n~~~\nmake deploy  \n~~~\n", "Run this:\n~~~\nmake deploy\n~~~\n", False),
    ("Never run:\n~~~~~~~~~~\nmake deploy  \n~~~~~~~~~~\n", "Never run:\n~~~~~~~~~~\nmake deploy\n~~~~~~~~~~\n", False),
])
def test_the_normalisation_reads_a_tilde_underline_as_the_quote_layer_does(impl_name, a, b, equal):
    impl = load_implementation("textnorm", "_textnorm_py", impl_name)
    assert bool(impl.same_after_normalisation([a], [b])[0]) is equal
    assert bool(impl.same_after_normalisation([b], [a])[0]) is equal


_UNDERLINE_PIECES = ["Title", "Run this:", "x", "Ü", "  ", "\t", "\r", "\n", "~~~", "~~~~~", "~~~~~~~~~~~~~", "```",
                     " sh", "`y`", "make deploy"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_UNDERLINE_PIECES), max_size=30).map("".join))
def test_tilde_underlines_are_read_alike_natively_and_in_reference(text):
    data = text.encode()
    native = load_implementation("scanner", "_scanner_py", IMPLEMENTATIONS[0])
    assert_same_columns(columns(native, data), _scanner_py.scan(data, 10**7, shortcut=False), data)
    norm = load_implementation("textnorm", "_textnorm_py", IMPLEMENTATIONS[0])
    stripped = "\n".join(line.rstrip(" \t") for line in text.split("\n"))
    assert bool(norm.same_after_normalisation([text], [stripped])[0]) == bool(
        _textnorm_py.same_after_normalisation([text], [stripped])[0])


def _rewrite(source: str, text: str):
    store = store_with({"src:1": source})
    return Gate(store).check([blk("b1", "user", source, ["src:1"])], [blk("b1", "user", text, ["src:1"])],
                             operator="rewrite")


def test_a_rewrite_dropping_trailing_blanks_under_a_tilde_underline_is_accepted():
    pre = "Release notes\n~~~~~~~~~~~~~\nRun make build.   \nThen wait 5 minutes.  \n"
    assert_accepted(_rewrite(pre, pre.replace("   \n", "\n").replace("  \n", "\n")))


@pytest.mark.parametrize("source", ["Never run this:\n~~~\nmake deploy\n~~~\n",
                                    "Deploying\n~~~~~~~~~\nNever run this:\n~~~\nmake deploy\n~~~\n",
                                    "Deploying\n~~~~~~~~~\nNever run `make deploy` on Fridays.\n"])
def test_a_denied_command_under_or_in_a_tilde_block_is_still_refused(source):
    _refused(source)


# red team 128, F05: the closing fence after a block was the next fence line within 16 KiB, so a
# shorter or other fence line inside it (a markdown example) or a longer block closed nothing
@pytest.mark.parametrize("block", ["````\n```\nmake deploy\n```\n````\n", "~~~markdown\n```sh\nmake deploy\n```\n~~~\n",
                                   "```\nmake deploy\n~~~\n```\n", "```\nmake deploy\n" + "echo ok\n" * 3000 + "```\n"])
def test_a_sentence_after_a_block_with_fence_lines_inside_denies_it(block):
    _refused(block + "Never run the above.\n")
    assert_accepted(_summarize(block + "Run the above.\n", RUN))


# red team 128, F04: a line ending in ":" was read as its last clause alone, a hard-wrapped
# sentence as its last line alone, and the line after a block as its first sentence alone
@pytest.mark.parametrize("source", [
    "Never run this. Here it is:\n" + FENCE, "Do not run the following on prod. Example:\n" + FENCE,
    "Never run the following; it wipes prod:\n" + FENCE, "Never run the following on the production\ncluster.\n" + FENCE,
    "Never run the following on the production\ncluster:\n" + FENCE, "Do not, under any circumstances, run\nthis.\n" + FENCE,
    FENCE + "It wipes prod. Never run the above.\n", FENCE + "Careful! Never run the above.\n"])
def test_a_denial_earlier_on_the_line_or_wrapped_over_two_lines_denies_the_block(source):
    _refused(source)


@pytest.mark.parametrize("source", [
    "Run this. Here it is:\n" + FENCE, "Never run this. Use the following:\n" + FENCE,
    "Don't panic. Here is the fix:\n" + FENCE, "Never deploy on Fridays.\nrun the following first:\n" + FENCE,
    "Run the following on the production\ncluster.\n" + FENCE, FENCE + "It is safe. Run the above.\n",
    FENCE + "Run the above. Never run it twice.\n"])
def test_a_line_or_wrapped_sentence_that_asks_for_the_block_is_accepted(source):
    assert_accepted(_summarize(source, RUN))


# red team 128, F03: shapes of a denial at a fence read as governing nothing
@pytest.mark.parametrize("source", [
    "Running this is not allowed.\n" + FENCE, "Running the following is strictly forbidden.\n" + FENCE,
    "Running this is dangerous.\n" + FENCE, FENCE + "Running that is forbidden.\n",
    "What follows must never be run.\n" + FENCE, "Never run what follows.\n" + FENCE,
    "Do not run the commands that follow.\n" + FENCE, "Never run, edit or share this.\n" + FENCE,
    "Don't run, or even paste, this.\n" + FENCE, FENCE + "Never run, edit or share that.\n",
    "Never run this \u2014 think twice.\n" + FENCE, "Never run this, think twice.\n" + FENCE,
    "(Never run this.)\n" + FENCE, "[Never run this.]\n" + FENCE, FENCE + "(Do not run the above.)\n"])
def test_a_denial_shaped_otherwise_at_a_fence_denies_it(source):
    _refused(source)


@pytest.mark.parametrize("source", [
    "Running this is safe.\n" + FENCE, "Running this is not dangerous.\n" + FENCE,
    "Running the following is recommended.\n" + FENCE, "Run what follows.\n" + FENCE,
    "Run the commands that follow.\n" + FENCE, "Build, test and run this.\n" + FENCE,
    "Don't run it yet, read this first.\n" + FENCE, "Never mind, run this.\n" + FENCE,
    "Think twice, then run this.\n" + FENCE, "(Run this.)\n" + FENCE, FENCE + "(Run the above.)\n",
    "Never run this twice.\n" + FENCE, "Do not panic, or worry, just run this.\n" + FENCE])
def test_a_request_shaped_otherwise_at_a_fence_is_accepted(source):
    assert_accepted(_summarize(source, RUN))


@pytest.mark.parametrize("source", [
    "It's unsafe to run this.\n" + FENCE, "It would be wrong to run this.\n" + FENCE,
    "You'd be crazy to run this.\n" + FENCE, "Run this? Never.\n" + FENCE, "Should you run this? No.\n" + FENCE,
    "Run this on prod? Absolutely not.\n" + FENCE, FENCE + "Should you run the above? Never.\n",
    "Don't hurt prod by running this.\n" + FENCE, "Don't harm the cluster by running this.\n" + FENCE])
def test_an_unwise_act_an_answered_question_or_a_harm_forbidden_denies_the_block(source):
    _refused(source)


@pytest.mark.parametrize("source", [
    "It's safe to run this.\n" + FENCE, "It's not dangerous to run this.\n" + FENCE,
    "Run this? Yes.\n" + FENCE, "Why not run this? It is safe.\n" + FENCE,
    "You won't hurt anything by running this.\n" + FENCE, "It won't hurt to run this.\n" + FENCE])
def test_a_safe_act_or_a_question_answered_yes_is_accepted(source):
    assert_accepted(_summarize(source, RUN))


# red team 128, F10 (a denied necessity before the act) and F12 (a): a form feed or a vertical
# tab after a closing fence closed the gate's block where the scanner's went on
@pytest.mark.parametrize("source", [
    "You don't need to run this as root.\n" + FENCE, "You don't have to run this as root.\n" + FENCE,
    "No need to run this as root.\n" + FENCE, "It's not necessary to run this as root.\n" + FENCE])
def test_a_necessity_denied_before_the_act_is_accepted(source):
    assert_accepted(_summarize(source, RUN))


@pytest.mark.parametrize("source", [
    "You need to never run this.\n" + FENCE, "You have to not run this.\n" + FENCE,
    "Never run this:\n```\nmake build\n```\x0c\nmake deploy\n```\n",
    "Never run this:\n```\nmake build\n``` \x0b\nmake deploy\n```\n"])
def test_a_necessity_of_a_denial_or_a_block_past_a_form_feed_is_denied(source):
    _refused(source)


def test_the_gate_reads_a_closing_fence_as_the_scanner_does():
    data = b"```\nmake build\n```\x0c\nmake deploy\n```\n"
    assert [data[s:e] for s, e in _fence_blocks(data)] == [b"make build\n```\x0c\nmake deploy\n"]
    assert [v for k, _, _, v in spans(_scanner_py, data) if k == "quote"] == ["make build\n```\x0c\nmake deploy"]


# red team 129, F01: a word of necessity anywhere before the act was read as a necessity denied
# ("have", "has", "required", "necessary" in another clause), and the denial governed nothing;
# only a necessity itself negated ("need not", "don't need", "no need", "not required", "None of
# this needs") forbids nothing
@pytest.mark.parametrize("source", [
    "If you have root, remember not to run this.\n" + FENCE,
    "Users who have prod access are asked not to run this.\n" + FENCE,
    "It is necessary never to run this.\n" + FENCE, "It's required not to run this.\n" + FENCE,
    "Anyone who has access: this must never be run.\n" + FENCE,
    "This has never needed to be run and must never be run.\n" + FENCE])
def test_a_necessity_that_is_not_denied_leaves_the_denial(source):
    _refused(source)


# red team 129, F02: a denial over a tilde fence of as many tildes as its characters governs it
@pytest.mark.parametrize("source", [
    "Never run:\n~~~~~~~~~~\nmake deploy\n~~~~~~~~~~\n", "Do not run:\n~~~~~~~~~~~~\nmake deploy\n~~~~~~~~~~~~\n",
    "Never run this:\n~~~~~~~~~~~~~~~~\nmake deploy\n~~~~~~~~~~~~~~~~\n"])
def test_a_denial_over_a_long_tilde_fence_governs_it(source):
    _refused(source)
