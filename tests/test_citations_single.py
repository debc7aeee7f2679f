"""Single quotes ('…', ‘…’): word characters by code point, the pairing by readings, mixed
single pairs (red team 86, F01, F03, F04, F11).

Each scanner case runs on the native scanner and the reference; the end-to-end cases run
``verify_citations`` on each implementation (the scanner swapped in), an honest quote graded
exact and the same quote with one digit changed never passing.
"""

from __future__ import annotations

import time

import pytest
from conftest import IMPLEMENTATIONS
from test_citations import _load, parse

from provgate import _citations
from provgate.reconstruct import verify_citations
from provgate.store import SourceStore


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    return _load(request.param)


U = "The retry limit is 3 per hour."
D = "The retry limit is 9 per hour."

CASES = [
    # F01: a ' after punctuation, a space or a letter of a script that writes no apostrophes
    # opens; `_` is emphasis, never part of a word
    (f"He said\u2014'{D}' [src:a]", [("single", D, ["a"])], []),
    (f"\u4ed6\u8bf4'{D}' [src:a]", [("single", D, ["a"])], []),
    (f"Il a dit :\u00a0'{D}' [src:a]", [("single", D, ["a"])], []),
    (f"_'{D}'_ [src:a]", [("single", D, ["a"])], []),
    ("\u4ed6\u8bf4'\u9650\u5236\u662f9\u6b21' [src:a]", [("single", "\u9650\u5236\u662f9\u6b21", ["a"])], []),
    ("x\u00d7'a b' [src:a]", [("single", "a b", ["a"])], []),  # × and ÷ are symbols
    ("\u2018a\u2019 \u00bf'b c' [src:a]", [("single", "b c", ["a"])], []),  # U+00BF: punctuation
    # ...while an apostrophe between letters of an alphabetic script stays in the quotation
    ("'l'\u00e9t\u00e9 dure 9 mois' [src:a]", [("single", "l'\u00e9t\u00e9 dure 9 mois", ["a"])], []),
    ("'\u043f'\u044f\u0442\u044c 9' [src:a]", [("single", "\u043f'\u044f\u0442\u044c 9", ["a"])], []),
    ("'\u1f00'\u1f01 9' [src:a]", [("single", "\u1f00'\u1f01 9", ["a"])], []),  # U+1Fxx: Greek
    ("\u2018\u0436\u2019\u0436 9\u2019 [src:a]", [("curly_single", "\u0436\u2019\u0436 9", ["a"])], []),
    # the fail-safe: with no opener, a mark read inside a word only because of a character that
    # is not ASCII makes the quotation unreadable, not a bare marker (Greek ano teleia U+0387
    # counts as a letter by the block rule)
    ("\u03b5\u03af\u03c0\u03b5\u0387'\u03a4\u03bf 9' [src:a]", [("unreadable", "", ["a"])], []),
    ("the caf\u00e9's owners' [src:a]", [("unreadable", "", ["a"])], []),
    ("the users' [src:a]", [], ["a"]),  # ASCII on both sides: an apostrophe, a bare marker
    ("the users\u2019 [src:a]", [], ["a"]),
    ("don't tell the users' [src:a]", [], ["a"]),
    # F03: a single quotation of mixed styles is unreadable
    (f"\u2018{D}' [src:a]", [("unreadable", "", ["a"])], []),
    (f"\u201a{D}' [src:a]", [("unreadable", "", ["a"])], []),
    (f"'{D}\u2019 [src:a]", [("unreadable", "", ["a"])], []),
    (f"\u201d{D}' [src:a]", [("unreadable", "", ["a"])], []),
    (f"\u2019{D}\u2019 [src:a]", [("unreadable", "", ["a"])], []),  # Swedish ’…’
    (f"\u2019{D}' [src:a]", [("unreadable", "", ["a"])], []),
    ("don\u2019t tell the users' [src:a]", [], ["a"]),
    ("it's the users\u2019 [src:a]", [], ["a"]),
    # F04: a word-initial apostrophe or a closed pair before the quotation is not its opener
    (f"Back in the '90s it was different. The docs say '{U}' [src:a]", [("single", U, ["a"])], []),
    (f"Tell 'em: '{U}' [src:a]", [("single", U, ["a"])], []),
    (f"Wait 'til noon; '{U}' [src:a]", [("single", U, ["a"])], []),
    (f"'Tis true: '{U}' [src:a]", [("single", U, ["a"])], []),
    ("It's 'fine' and 'Users' sessions expire' [src:a]", [("single", "Users' sessions expire", ["a"])], []),
    ("Rock 'n' roll. 'Users' sessions expire' [src:a]", [("single", "Users' sessions expire", ["a"])], []),
    ("a 'b' c 'Users' sessions expire' [src:a]", [("single", "Users' sessions expire", ["a"])], []),
    (
        "\u2018a\u2019 then \u2018Users\u2019 sessions expire.\u2019 [src:a]",
        [("curly_single", "Users\u2019 sessions expire.", ["a"])],
        [],
    ),
    ("'Open' then 'Save 3' [src:a]", [("single", "Save 3", ["a"])], []),
    # nesting still pairs; the longest reading of a word-initial apostrophe inside is kept
    ("'He said 'no' and 'yes' today' [src:a]", [("single", "He said 'no' and 'yes' today", ["a"])], []),
    ("'Rock 'n' roll is 9' [src:a]", [("single", "Rock 'n' roll is 9", ["a"])], []),
    ("'90s music was 'great' and 9' [src:a]", [("single", "90s music was 'great' and 9", ["a"])], []),
    # F11: two readings (a possessive or dropped g, and a word-initial apostrophe after it) are
    # unreadable, never the tail after the apostrophe
    ("'The users' limit was 9 in the '90s' [src:a]", [("unreadable", "", ["a"])], []),
    ("'Users' sessions last 99 minutes or 'til logout.' [src:a]", [("unreadable", "", ["a"])], []),
    ("'I'm goin' home 'cause it's 9' [src:a]", [("unreadable", "", ["a"])], []),
    ("\u2018The users\u2019 limit was 9 in the \u201890s\u2019 [src:a]", [("unreadable", "", ["a"])], []),
    ("Tell 'em 'Users' sessions expire' [src:a]", [("unreadable", "", ["a"])], []),
    # no reading pairs every mark: unreadable, not the nearest or the earliest opener
    ("He said 'yes. Then: 'The limit is 3.' [src:a]", [("unreadable", "", ["a"])], []),
    ("'Marx' theory is 9' [src:a]", [("unreadable", "", ["a"])], []),
]


@pytest.mark.parametrize("text,carried,bare", CASES)
def test_single_quote_pairing(impl, text, carried, bare):
    got_carried, got_bare, _ = parse(impl, text)
    assert got_carried == carried
    assert got_bare == bare


SOURCE = (
    "The retry limit is 3 per hour. Users' sessions expire after 15 minutes. "
    "The users' limit was 3 in the '90s. Users' sessions last 15 minutes or 'til logout. "
    "\u2018a\u2019 then Users\u2019 sessions expire after 15 minutes."
)

# (answer with the honest quotation, the same with one digit changed)
END_TO_END = [
    (f"He said\u2014'{U}' [src:a]", f"He said\u2014'{D}' [src:a]"),
    (f"\u4ed6\u8bf4'{U}' [src:a]", f"\u4ed6\u8bf4'{D}' [src:a]"),
    (f"Il a dit :\u00a0'{U}' [src:a]", f"Il a dit :\u00a0'{D}' [src:a]"),
    (f"_'{U}'_ [src:a]", f"_'{D}'_ [src:a]"),
    (f"Back in the '90s it was different. The docs say '{U}' [src:a]", f"Back in the '90s it was different. The docs say '{D}' [src:a]"),
    (f"Tell 'em: '{U}' [src:a]", f"Tell 'em: '{D}' [src:a]"),
    (
        "It's 'fine' and 'Users' sessions expire after 15 minutes' [src:a]",
        "It's 'fine' and 'Users' sessions expire after 16 minutes' [src:a]",
    ),
    (
        "\u2018a\u2019 then \u2018Users\u2019 sessions expire after 15 minutes.\u2019 [src:a]",
        "\u2018a\u2019 then \u2018Users\u2019 sessions expire after 16 minutes.\u2019 [src:a]",
    ),
]

# drifted answers the scanner cannot read: they fail (they passed as a bare marker or with only
# a tail checked)
DRIFTED_ONLY = [
    f"\u2018{D}' [src:a]",
    f"\u201a{D}' [src:a]",
    f"'{D}\u2019 [src:a]",
    f"\u201d{D}' [src:a]",
    "\u4ed6\u8bf4'\u9650\u5236\u662f9\u6b21' [src:a]",
    "'The users' limit was 9 in the '90s' [src:a]",
    "'Users' sessions last 99 minutes or 'til logout.' [src:a]",
]


@pytest.fixture
def store():
    s = SourceStore(":memory:")
    s.put("a", SOURCE)
    yield s
    s.close()


@pytest.fixture
def scanner(monkeypatch, impl):
    monkeypatch.setattr(_citations, "scan", impl.scan)
    return impl


@pytest.mark.parametrize("honest,drifted", END_TO_END)
def test_honest_single_quote_is_exact_and_drift_fails(store, scanner, honest, drifted):
    report = verify_citations(store, honest)
    assert report.ok
    assert [c.best.grade for c in report.citations] == ["exact"]
    assert not report.bare_markers
    report = verify_citations(store, drifted)
    assert not report.ok
    assert len(report.citations) == 1 and not report.bare_markers


@pytest.mark.parametrize("answer", DRIFTED_ONLY)
def test_unreadable_single_quote_fails(store, scanner, answer):
    report = verify_citations(store, answer)
    assert not report.ok
    assert len(report.citations) == 1 and not report.bare_markers


def test_scan_time_stays_linear(impl):
    """Two passes over the marks since the bound, per closing mark: a paragraph of pairs,
    possessives and elisions before one closing ``'`` costs what its length costs."""
    def cost(n):
        data = ("It's 'fine' and 'Users' x '90s " * n + "'a' [src:a]").encode()
        t = time.perf_counter()
        impl.scan(data)
        return time.perf_counter() - t

    small, large = cost(2_000), cost(16_000)
    assert large < 8 * small * 4 + 0.05
