"""Red team 116, F15 (false refusals of grammar v9/v11): a summary naming one clause of a
specifier set (``Requires django<4.2`` of ``django>=3.2,<4.2``) is grounded by the set
(docs/gate.md, I1, "a clause of a specifier set"), and a rewrite that only re-spaces a comparison
(``if i<10:`` -> ``if i < 10:``) drops no fact (docs/gate.md, I2). The gate cases run on the
implementation provgate loads (the suite runs again with PROVGATE_NO_EXTENSIONS=1); the helpers
are compared on their own below."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _rewrite, _summarize

from provgate.facts import extract
from provgate.gate import _comparison_clauses, _respaced_comparison

SOURCE = "requirements.txt:\ndjango>=3.2,<4.2\nrequests>=2.0,!=2.31.0\nflask==2.3.2\nlodash@>=4.17.0 <5\n"


@pytest.mark.parametrize("text", [
    "Requires django<4.2",
    "django>=3.2 and django<4.2 are required",
    "Requires django>=3.2",  # (the first clause: grounded as the source's text before too)
    "Requires django<4.2,>=3.2",  # (a set is a set)
    "Requires requests!=2.31.0",
    "Requires flask==2.3.2",
    "Needs lodash@<5",
])
def test_a_summary_naming_clauses_of_a_specifier_set_is_grounded(text):
    assert_accepted(_summarize(SOURCE, text + " [src:tool:c1]."), "lossy")


@pytest.mark.parametrize("text, key, value", [
    ("Requires django<5", "django", "<5"),
    ("Requires django>4.2", "django", ">4.2"),
    ("Requires django<=4.2", "django", "<=4.2"),
    ("Requires django>=4.2", "django", ">=4.2"),
    ("Requires requests==2.31.0", "requests", "2.31.0"),  # (the source excludes that version)
    ("Requires flask<2.3.2", "flask", "<2.3.2"),
    ("Requires django>=3.2,<5", "django", ">=3.2,<5"),
    ("Requires requests<4.2", "requests", "<4.2"),  # (another name's clause)
])
def test_a_clause_no_set_of_that_name_holds_stays_refused(text, key, value):
    find(_summarize(SOURCE, text + " [src:tool:c1]."), "I1", block="s", key=key, value=value)


@pytest.mark.parametrize("before, after", [
    ("if i<10: pass", "if i < 10: pass"),
    ("Use retries<=3.", "Use retries <= 3."),
    ("Use retries<=3.", "Use retries<= 3."),
    ("django>=3.2,<4.2", "django >= 3.2, < 4.2"),
    ("while n>0 and n<100: n -= 1", "while n > 0 and n < 100: n -= 1"),
])
def test_a_rewrite_that_only_respaces_a_comparison_is_accepted(before, after):
    assert_accepted(_rewrite(before, after))


@pytest.mark.parametrize("before, after", [
    ("if i<10: pass", "if i > 10: pass"),
    ("if i<10: pass", "if i <= 10: pass"),
    ("if i<10: pass", "if j < 10: pass"),
    ("Use retries<=3.", "Use retries < = 3."),
    ("django>=3.2,<4.2", "django >= 3.2, > 4.2"),
    ("django>=3.2,<4.2", "django >= 3.2"),
])
def test_a_rewrite_that_changes_a_comparison_stays_refused(before, after):
    find(_rewrite(before, after), "I2", evidence__change="dropped")


def _row(text: str, kind: str):
    table = extract(text)
    return table, next(r for r in range(len(table)) if table.span(r).kind.name.lower() == kind)


@pytest.mark.parametrize("text, clauses", [
    ("django>=3.2,<4.2", {b">=3.2", b"<4.2"}),
    ("Django>=3.2, <4.2, !=4.0.1", {b">=3.2", b"<4.2", b"!=4.0.1"}),
    ("lodash@>=4.17.0 <5", {b">=4.17.0", b"<5"}),
    ("i<10", {b"<10"}),
    ("flask==2.3.2", None),  # (a pin's version: a clause only where the sources are read)
    ("retries=3", None),
])
def test_comparison_clauses(text, clauses):
    table, r = _row(text, "kv")
    got = _comparison_clauses(table, r)
    assert (None if got is None else set(got)) == clauses


def test_comparison_clauses_of_a_pin_when_asked():
    table, r = _row("flask==2.3.2", "kv")
    assert _comparison_clauses(table, r, pins=True) == frozenset({b"==2.3.2"})


@pytest.mark.parametrize("post, kept", [
    (b"if i < 10: pass", True),
    (b"if i  <  10: pass", True),
    (b"if ii < 10: pass", False),
    (b"if i < 100: pass", False),
    (b"if i > 10: pass", False),
    (None, False),
])
def test_respaced_comparison(post, kept):
    table, r = _row("if i<10: pass", "kv")
    assert _respaced_comparison(table, r, post) is kept
    ident = next(k for k in range(len(table)) if table.span(k).kind.name.lower() == "identifier")
    assert _respaced_comparison(table, ident, post) is kept


def test_a_rewrite_reordering_many_requirements_reads_its_text_once():
    # red team 120, F07: each comparison compiled a pattern and searched the whole post text for
    # it (a rewrite of n requirements quadratic); the text is unspaced once and searched by find
    from provgate.gate import _operators_unspaced

    n = 300
    before = "\n".join(f"p{i}>=1,<2" for i in range(n))
    after = "\n".join(f"p{i} <2, >= 1" for i in range(n))
    _operators_unspaced.cache_clear()
    assert_accepted(_rewrite(before, after), "lossless")
    info = _operators_unspaced.cache_info()
    assert info.misses == 1 and info.hits >= n - 1  # (asked a row, the text unspaced once)
    # and a clause changed among them is still refused
    find(_rewrite(before, after.replace("p7 <2", "p7 >2")), "I2")


def test_comparisons_not_found_are_looked_up_in_an_index_after_a_few_searches(monkeypatch):
    # red team 121, F12: each comparison not in the post text (its clauses reordered) was a
    # search of the whole text, a rewrite of n requirements quadratic; past a few searches the
    # name is looked up among the text's word starts, indexed once
    import provgate.gate as gate_module

    n = 400
    before = "\n".join(f"p{i}>=1,<2" for i in range(n))
    after = "\n".join(f"p{i}<2,>=1" for i in range(n))
    gate_module._comparison_finder.cache_clear()
    built = []
    real = gate_module._NAME_RUN

    class Counting:
        def match(self, *a):
            return real.match(*a)

        def finditer(self, *a):
            built.append(1)
            return real.finditer(*a)

    monkeypatch.setattr(gate_module, "_NAME_RUN", Counting())
    assert_accepted(_rewrite(before, after), "lossless")
    assert built == [1]  # (one index of the one post text, for the n comparisons)
    find(_rewrite(before, after.replace("p7<2,>=1", "p7<3,>=1")), "I2")


def test_the_index_and_the_search_find_the_same_comparisons():
    import random

    from provgate.gate import _FINDS_BEFORE_INDEX, _ComparisonFinder

    rng = random.Random(121)
    pieces = ["p1", "p12", "a.b", "x-y", "_z", ">=", "<", "==", ",", "1", "2.0", " ", "\n", "(", ")", ";", ".", "-"]
    for _ in range(300):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 60))).encode()
        asks = ["".join(rng.choice(pieces[:10]) for _ in range(rng.randint(1, 5))).encode()
                for _ in range(_FINDS_BEFORE_INDEX + 20)]
        searched, indexed = _ComparisonFinder(text), _ComparisonFinder(text)
        indexed.asked = _FINDS_BEFORE_INDEX + 1  # (indexes at its first ask)
        for compact in asks:
            searched.asked = 0  # (never indexes)
            assert searched.holds(compact) == indexed.holds(compact), (text, compact)
