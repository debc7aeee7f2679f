"""The blockquote and fence forms take the gap the inline form takes around the group (red team
86, F09): ``> … [src:a].``, ``> … ([src:a])``, ``[src:a], as documented.`` below a ``>`` line,
``Source: [src:a]`` below a fenced block each left a bare marker, which passes however drifted the
block above was; ``> — [src:a]`` quoted the dash, so the honest quote failed.

Each case runs on the native scanner and the reference; the end-to-end cases check that the
honest block is exact and the drifted one fails, on both.
"""

from __future__ import annotations

import numpy as np
import pytest
from budget import examples
from conftest import IMPLEMENTATIONS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_citations import _load, _only_with_native, parse

from provgate import _citations_py, reconstruct
from provgate.reconstruct import verify_citations
from provgate.store import SourceStore


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    return _load(request.param)


BQ = "> The retry limit is 9 per hour."
FENCE = "```\nThe retry limit is 9 per hour.\n```\n"
LINE = "The retry limit is 9 per hour."

CASES = [
    # after the group on a `>` line: the gap, or anything (what follows a group is not read)
    (BQ + " [src:a].", [("blockquote", LINE, ["a"])], []),
    (BQ + " ([src:a])", [("blockquote", LINE, ["a"])], []),
    (BQ + " *[src:a]*", [("blockquote", LINE, ["a"])], []),
    (BQ + " **[src:a]**.", [("blockquote", LINE, ["a"])], []),
    (BQ + "\u00a0[src:a]\u3000", [("blockquote", LINE, ["a"])], []),
    (BQ + " [src:a], as documented.", [("blockquote", LINE, ["a"])], []),
    (BQ + " \u2014 [src:a]", [("blockquote", LINE, ["a"])], []),  # (an attribution dash after text)
    (BQ + " -- [src:a]", [("blockquote", LINE, ["a"])], []),
    # clause punctuation and closing emphasis before the group stay quoted
    ("> *retry 9 times* [src:a]", [("blockquote", "*retry 9 times*", ["a"])], []),
    ("> retry 9 times, [src:a]", [("blockquote", "retry 9 times,", ["a"])], []),
    ("> retry 9 times) [src:a]", [("blockquote", "retry 9 times)", ["a"])], []),
    ("> use foo_ [src:a]", [("blockquote", "use foo_", ["a"])], []),
    ("> 3-5 [src:a]", [("blockquote", "3-5", ["a"])], []),  # (a dash inside a word is text)
    ("> a = b - [src:a]", [("blockquote", "a = b", ["a"])], []),
    # an attribution line below a `>` line: `>` line or lazy line, gap and a dash around the group
    (BQ + "\n([src:a])", [("blockquote", LINE, ["a"])], []),
    (BQ + "\n[src:a].", [("blockquote", LINE, ["a"])], []),
    (BQ + "\n\u2014 [src:a]", [("blockquote", LINE, ["a"])], []),
    (BQ + "\n\u2013 [src:a]", [("blockquote", LINE, ["a"])], []),
    (BQ + "\n- [src:a]", [("blockquote", LINE, ["a"])], []),
    (BQ + "\n-- [src:a]", [("blockquote", LINE, ["a"])], []),
    (BQ + "\n\u2014[src:a]", [("blockquote", LINE, ["a"])], []),
    (BQ + "\n(\u2014 [src:a])", [("blockquote", LINE, ["a"])], []),
    (BQ + "\n*\u2014 [src:a]*", [("blockquote", LINE, ["a"])], []),
    (BQ + "\n[src:a], as documented.", [("blockquote", LINE, ["a"])], []),
    (BQ + "\n> ([src:a])", [("blockquote", LINE, ["a"])], []),
    (BQ + "\n> \u2014 [src:a]", [("blockquote", LINE, ["a"])], []),
    (BQ + "\n> > ([src:a])", [("blockquote", LINE, ["a"])], []),
    ("> > one\n> > \u2014 [src:a]", [("blockquote", "one", ["a"])], []),
    (BQ + "\r\n\u2014 [src:a]\r\n", [("blockquote", LINE, ["a"])], []),
    # a dash that is not an attribution dash, words before the group on a lazy line: quoted
    (BQ + "\n--- [src:a]", [("blockquote", LINE, ["a"])], []),  # (-, a gap character: an attribution line)
    (BQ + "\nSource: [src:a]", [("blockquote", LINE + "\nSource:", ["a"])], []),
    ("> >= 5 ([src:a])", [("blockquote", ">= 5", ["a"])], []),
    # a line of only the group and its gap, with no text above: nothing
    ("> ([src:a])", [], ["a"]),
    ("> \u2014 [src:a]", [], ["a"]),
    # a group after another marker on its line carries no block; the first one does
    (BQ + " [src:a], [src:b]", [("blockquote", LINE, ["a", "b"])], []),  # (a marker list is one group)
    (BQ + "\n[src:a]. [src:b]", [("blockquote", LINE, ["a"])], ["b"]),
    ("> one [src:a]\n> two (\u2014 [src:b])", [("blockquote", "one", ["a"]), ("blockquote", "two", ["b"])], []),
    # an inline quotation still comes first
    (BQ + ' "x" [src:a].', [("double", "x", ["a"])], []),
    # a blank line still ends the paragraph
    (BQ + "\n\n([src:a])", [], ["a"]),
    # the line right below a fenced block: the gap, a dash, words before or after the group
    (FENCE + "([src:a])", [("fence", LINE, ["a"])], []),
    (FENCE + "[src:a].", [("fence", LINE, ["a"])], []),
    (FENCE + "\u2014 [src:a]", [("fence", LINE, ["a"])], []),
    (FENCE + "Source: [src:a]", [("fence", LINE, ["a"])], []),
    (FENCE + "[src:a], as documented.", [("fence", LINE, ["a"])], []),
    (FENCE + "It's from [src:a] (the users' guide)", [("fence", LINE, ["a"])], []),
    (FENCE + "See `make` [src:a]", [("backtick", "make", ["a"])], []),  # (an inline quotation first)
    # ... but words holding a double quotation mark may be the quotation the group attributes:
    # unreadable, never the block (which would let a drifted "…" pass with an honest block)
    (FENCE + 'He said "retry 9 times" per [src:a]', [("unreadable", 'retry 9 times" per', ["a"])], []),
    (FENCE + "\u201cretry 9 times\u201d per [src:a]", [("unreadable", "retry 9 times\u201d per", ["a"])], []),
    (FENCE + "\u00ab retry \u00bb, see [src:a]", [("unreadable", "", ["a"])], []),
    (FENCE + '"x" y" [src:a]', [("unreadable", 'x" y', ["a"])], []),  # (an unreadable inline one stays)
    # not right below the closing line, or after another marker on the line: no block
    (FENCE + "\n([src:a])", [], ["a"]),
    (FENCE + "[src:a], [src:b]", [("fence", LINE, ["a", "b"])], []),
    ("```\n```\nSource: [src:a]", [], ["a"]),
]


@pytest.mark.parametrize("text, carried, bare", CASES)
def test_blocks_take_the_gap(impl, text, carried, bare):
    got_carried, got_bare, _ = parse(impl, text)
    assert [tuple(c) for c in got_carried] == [tuple(c) for c in carried]
    assert got_bare == bare


UNMARKED = [
    # the text a blockquote citation claims is not unmarked; the lines after it are
    (BQ + " [src:a], as documented.\n> more\n", [("blockquote", "more")]),
    (BQ + "\n> \u2014 [src:a]\n> more\n", [("blockquote", "more")]),
    ("> one\n> two ([src:a])\n", []),
    # a bare group after another marker leaves no unmarked text of its own
    ("> one [src:a] two [src:b]\n> three\n", [("blockquote", "three")]),
    # a double quotation after the group below a fence is unmarked
    (FENCE + '[src:a] says "x"\n', [("double", "x")]),
]


@pytest.mark.parametrize("text, unmarked", UNMARKED)
def test_unmarked_beside_the_blocks(impl, text, unmarked):
    assert parse(impl, text)[2] == unmarked


SOURCE = "The retry limit is 3 per hour."

ANSWERS = [
    "> {q} [src:a].",
    "> {q} ([src:a])",
    "> {q} *[src:a]*",
    "> {q} [src:a], as documented.",
    "> {q} \u2014 [src:a]",
    "> {q}\n([src:a])",
    "> {q}\n[src:a].",
    "> {q}\n\u2014 [src:a]",
    "> {q}\n[src:a], as documented.",
    "> {q}\n> ([src:a])",
    "> {q}\n> \u2014 [src:a]",
    "> {q}\n> -- [src:a]",
    "```\n{q}\n```\n([src:a])",
    "```\n{q}\n```\n[src:a].",
    "```\n{q}\n```\nSource: [src:a]",
    "```\n{q}\n```\n\u2014 [src:a]",
    "```\n{q}\n```\n[src:a], as documented.",
]


def _verify(which: str, answer: str, monkeypatch):
    store = SourceStore(":memory:")
    store.put("a", SOURCE)
    with monkeypatch.context() as m:
        if which == "reference":
            m.setattr(reconstruct, "_citations", _citations_py)
        else:
            m.setattr(reconstruct, "_citations", _load("native"))
        return verify_citations(store, answer)


@pytest.mark.parametrize("which", IMPLEMENTATIONS)
@pytest.mark.parametrize("shape", ANSWERS)
def test_the_honest_block_is_exact_and_the_drifted_one_fails(which, shape, monkeypatch):
    honest = _verify(which, shape.format(q=SOURCE), monkeypatch)
    assert honest.ok and [c.grade for c in honest.citations] == ["exact"] and not honest.bare_markers
    drifted = _verify(which, shape.format(q=SOURCE.replace("3", "9")), monkeypatch)
    assert not drifted.ok and [c.grade for c in drifted.citations] == ["not_found"] and not drifted.bare_markers


@pytest.mark.parametrize("which", IMPLEMENTATIONS)
def test_a_drifted_quotation_before_a_group_below_a_fence_fails(which, monkeypatch):
    # the group may attribute the quotation on its line, not the block: checking the honest block
    # instead would let the drifted quotation pass
    report = _verify(which, "```\nThe retry limit is 3 per hour.\n```\nHe said \u201c9 per hour\u201d per [src:a]",
                     monkeypatch)
    assert not report.ok and not report.bare_markers


@_only_with_native
@pytest.mark.parametrize(
    "line",
    ["> " + "x" * 40_000 + " [src:a]\n",
     "> x\n" + "x" * 20_000 + " [src:a]," * 2_000,
     "```\nx\n```\n" + "Source " * 4_000 + "[src:a] " * 2_000,
     "> x\n" + "-." * 20_000 + "[src:a]",
     "w w [src:a] " * 3_333,
     "`x` `y` w [src:a] " * 2_222,
     "w [src:a]: w [src:b] " * 2_000 + "\n> x\n"],
    ids=["long line", "many groups on a lazy line", "many groups below a fence", "long gap and dashes",
         "many groups after words", "many groups past code spans", "colons between groups"],
)
def test_blocks_of_adversarial_shapes_scan_alike(line):
    # the shapes benchmarks/test_bench_reconstruct.py times at 4 MB (linear time belongs there)
    data = line.encode()
    for x, y in zip(_load("native").scan(data), _load("reference").scan(data)):
        assert np.array_equal(x, y)


# the pieces of the blocks' attribution lines, for the comparison of native with the reference
BLOCK_PIECES = [
    "> ", ">", "> > ", ">>", "   >", "\n", "\r\n", "\n\n", "```", "\n```\n", "~~~", "[src:a]", "[src:b] [src:c]",
    " ", "\t", "word", "(", ")", "*", "_", ".", ",", ":", "!", "-", "--", "---", "\u2014", "\u2013", "=", "5",
    "\u00a0", "\u2009", "\u3000", "\u200b", '"', "\u201c", "\u201d", "\u201e", "\u00ab", "\u00bb", "\u2039",
    "\u300c", "\u300f", "'", "\u2019", "`", "Source: ", " as documented.",
]  # fmt: skip


@_only_with_native
@settings(max_examples=examples(800), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(
    st.lists(st.sampled_from(BLOCK_PIECES), max_size=50).map(lambda p: "".join(p).encode()),
    st.lists(st.sampled_from([p.encode() for p in BLOCK_PIECES] + [b"\xe2", b"\xe2\x80", b"\xc2", b"\x94"]),
             max_size=50).map(b"".join),
))
def test_native_equals_reference_on_attribution_lines(data):
    native, reference = _load("native"), _load("reference")
    for x, y in zip(native.scan(data), reference.scan(data)):
        assert np.array_equal(x, y)
