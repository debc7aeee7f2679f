"""Red team 86, F02 and F10: a closing mark that the scanner read as something else than the
end of the quotation a marker group claims.

F02: a `"` right after a digit is a unit (`27"`) only when no quotation mark of any kind
stands since the search bound and no quotation is left open in the text before it; `„…9"`,
`«…9"`, `'…9"` and a quotation opened in the paragraph before were inch marks, bare markers
that pass.

F10: the Swedish `”…”` and Finnish `»…»`/`›…›` fallback pairs the same marks left to right by
the rules of a straight quote; it took the nearest earlier mark, so an inch mark `27”` or a
path `Menü » Datei` inside the quotation cut it to its tail and the drifted head passed.
"""

from __future__ import annotations

import pytest
from conftest import IMPLEMENTATIONS
from test_citations import _load, parse

from provgate import reconstruct
from provgate.reconstruct import verify_citations
from provgate.store import SourceStore


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    return _load(request.param)


UNREADABLE = [("unreadable", "", ["a"])]  # (its span starts at a ", “ or backtick only)

CASES = [
    # F02: a quotation of another style, or a straight one opened before the bound, ends in `9"`
    ('\u201eDas Limit ist 9" [src:a]', UNREADABLE, []),
    ('\u00abThe retry limit is 9" [src:a]', UNREADABLE, []),
    ('\u00bbThe retry limit is 9" [src:a]', UNREADABLE, []),
    ('\u2039The retry limit is 9" [src:a]', UNREADABLE, []),
    ('\u203aThe retry limit is 9" [src:a]', UNREADABLE, []),
    ('\u2018The retry limit is 9" [src:a]', UNREADABLE, []),
    ('\u201aThe retry limit is 9" [src:a]', UNREADABLE, []),
    ('\u201dThe retry limit is 9" [src:a]', UNREADABLE, []),
    ("'The retry limit is 9\" [src:a]", UNREADABLE, []),
    ("He said\u2014'The retry limit is 9\" [src:a]", UNREADABLE, []),
    ('\u300cThe retry limit is 9" [src:a]', UNREADABLE, []),
    ('\u300eThe retry limit is 9" [src:a]', UNREADABLE, []),
    ('\u201fThe retry limit is 9" [src:a]', UNREADABLE, []),
    ('\u301dThe retry limit is 9" [src:a]', UNREADABLE, []),
    ('\uff02The retry limit is 9" [src:a]', UNREADABLE, []),
    ("`x` is 9\" [src:a]", [("unreadable", "x` is 9", ["a"])], []),
    ('\u201cThe retry limit is 9" [src:a]', [("unreadable", "The retry limit is 9", ["a"])], []),
    # ... a straight one opened in the paragraph before, or before the previous group
    ('"The retry\n\nlimit is 9" [src:a]', UNREADABLE, []),
    ('\u201eThe retry\n\nlimit is 9" [src:a]', UNREADABLE, []),
    ('\u00abThe retry\n\nlimit is 9" [src:a]', UNREADABLE, []),
    ('"The limit [src:b] is 9" [src:a]', [("unreadable", "", ["b"]), ("unreadable", "", ["a"])], []),  # (b inside it)
    # a closed pair of any style in the paragraph refuses the unit too: it fails closed
    ('\u00abA\u00bb and 27" [src:a]', UNREADABLE, []),
    # ... and so does an odd " (an earlier unit, too) or a stray » in the text before
    ('The 24" one.\n\nThe 27" [src:a]', UNREADABLE, []),
    ('Men\u00fc \u00bb Datei\n\nThe 27" [src:a]', UNREADABLE, []),
    # still a unit: no quotation mark since the bound and none left open before it; an
    # apostrophe (a ' or ’ after an ASCII letter or digit) is none
    ('The monitor is 27" [src:a].', [], ["a"]),
    ("It's 27\" [src:a]", [], ["a"]),
    ("It\u2019s 27\" [src:a]", [], ["a"]),
    ("the users' 27\" [src:a]", [], ["a"]),
    ('"A" [src:b] and 27" [src:a]', [("double", "A", ["b"])], ["a"]),
    ('The 24" [src:b] and the 27" [src:a]', [], ["b", "a"]),  # (a unit before a group is no opener)
    ('The 24" [src:b].\n\nThe 27" [src:c].\n\nThe 32" [src:a]', [], ["b", "c", "a"]),
    ('The 24" [src:b] and "the 27" [src:a]', [("double", "the 27", ["a"])], ["b"]),
    ('"A" and \u00abB\u00bb.\n\nThe 27" [src:a]', [], ["a"]),
    ('\u201eA\u201c und \u300cB\u300d.\n\nThe 27" [src:a]', [], ["a"]),
    # F10: the same marks since the bound, paired left to right; an inner one that cannot open
    # or close, or a closing mark with none open, leaves the quotation unreadable
    ("\u201dRetry 9 times on the 27\u201d screen.\u201d [src:a]", UNREADABLE, []),
    ("\u00bbDas Limit ist 9, klicke auf Men\u00fc \u00bb Datei.\u00bb [src:a]", UNREADABLE, []),
    ("\u203aThe retry limit is 9 in Settings \u203a Network.\u203a [src:a]", UNREADABLE, []),
    ("27\u201d screen, \u201dThe retry limit is 3 per hour.\u201d [src:a]", UNREADABLE, []),
    ("\u201da\u201db\u201d [src:a]", UNREADABLE, []),
    ("\u201d a\u201d [src:a]", UNREADABLE, []),
    # honest Swedish and Finnish quotations stay exact
    ("\u201dThe retry limit is 3 per hour.\u201d [src:a]", [("curly", "The retry limit is 3 per hour.", ["a"])], []),
    ("\u00bbThe retry limit is 3 per hour.\u00bb [src:a]", [("guillemet", "The retry limit is 3 per hour.", ["a"])], []),
    ("\u203aThe retry limit is 3 per hour.\u203a [src:a]", [("guillemet", "The retry limit is 3 per hour.", ["a"])], []),
    ("\u201da\u201d b \u201dc\u201d [src:a]", [("curly", "c", ["a"])], []),
    ("\u201dA \u201cB\u201d C\u201d [src:a]", [("curly", "A \u201cB\u201d C", ["a"])], []),
    # after a closed English, German, Polish or French pair in the paragraph (red team 86, F04's
    # note: unreadable while any “ „ or « stood since the bound)
    # (the closed pair, in the quotation's sentence, is carried too: red team 87, F02)
    ("\u201cA\u201d then \u201dThe retry limit is 3 per hour.\u201d [src:a]",
     [("curly", "A", ["a"]), ("curly", "The retry limit is 3 per hour.", ["a"])], []),
    ("\u201eA\u201d then \u201dB\u201d [src:a]", [("curly", "A", ["a"]), ("curly", "B", ["a"])], []),
    ("\u00abA\u00bb puis \u00bbLa limite est 3.\u00bb [src:a]", [("guillemet", "La limite est 3.", ["a"])], []),
    ("\u2039A\u203a then \u203aB\u203a [src:a]", [("guillemet", "B", ["a"])], []),
    # ... but not after one still open, nor a closed pair that leaves the closing mark none
    ("\u201ca\u201d b\u201d [src:a]", [("unreadable", "a\u201d b", ["a"])], []),
    ("\u201ca \u201d b\u201d [src:a]", [("unreadable", "a \u201d b", ["a"])], []),
    ("\u201cA \u201dB\u201d C\u201d [src:a]", [("unreadable", "A \u201dB\u201d C", ["a"])], []),
]


@pytest.mark.parametrize("text,carried,bare", CASES)
def test_units_and_same_marks(impl, text, carried, bare):
    assert parse(impl, text)[:2] == (carried, bare)


SOURCE = {
    "a": "Das Limit ist 3 pro Stunde. The retry limit is 3 per hour. Retry 3 times on the 27\u201d screen. "
    "Klicke auf Men\u00fc \u00bb Datei. Settings \u203a Network.",
}

# (honest answer, its drifted twin): the honest one is exact or a bare marker of a stored
# handle, which passes; the drifted one must fail
END_TO_END = [
    ('\u201eDas Limit ist 3" [src:a]', '\u201eDas Limit ist 9" [src:a]', False),
    ("'The retry limit is 3\" [src:a]", "'The retry limit is 9\" [src:a]", False),
    ('"The retry\n\nlimit is 3" [src:a]', '"The retry\n\nlimit is 9" [src:a]', False),
    ("\u201dRetry 3 times on the 27\u201d screen.\u201d [src:a]", "\u201dRetry 9 times on the 27\u201d screen.\u201d [src:a]",
     False),
    ("\u00bbKlicke auf Men\u00fc \u00bb Datei.\u00bb [src:a]", "\u00bbKlicke auf Men\u00fc \u00bb Date1.\u00bb [src:a]", False),
    ("\u201dThe retry limit is 3 per hour.\u201d [src:a]", "\u201dThe retry limit is 9 per hour.\u201d [src:a]", True),
    ("\u00bbThe retry limit is 3 per hour.\u00bb [src:a]", "\u00bbThe retry limit is 9 per hour.\u00bb [src:a]", True),
    ("\u201cA\u201d. Then \u201dThe retry limit is 3 per hour.\u201d [src:a]",
     "\u201cA\u201d. Then \u201dThe retry limit is 9 per hour.\u201d [src:a]", True),
]


@pytest.mark.parametrize("honest,drifted,honest_ok", END_TO_END)
def test_drift_fails_end_to_end(impl, monkeypatch, honest, drifted, honest_ok):
    monkeypatch.setattr(reconstruct._citations, "scan", impl.scan)
    store = SourceStore(":memory:")
    for name, text in SOURCE.items():
        store.put(name, text)
    report = verify_citations(store, honest)
    assert report.ok is honest_ok
    if honest_ok:
        assert [c.best.grade for c in report.citations] == ["exact"]
    else:  # (unreadable: a quotation nobody can read is never a pass)
        assert [c.quotation.form for c in report.citations] == ["unreadable"]
    drifted_report = verify_citations(store, drifted)
    assert not drifted_report.ok
    assert [c.quotation.form for c in drifted_report.citations] == [c.quotation.form for c in report.citations]
    assert not drifted_report.bare_markers


def test_a_unit_alone_is_still_a_bare_marker(impl, monkeypatch):
    monkeypatch.setattr(reconstruct._citations, "scan", impl.scan)
    store = SourceStore(":memory:")
    store.put("a", "The monitor is 27 inches.")
    report = verify_citations(store, 'The monitor is 27" [src:a].')
    assert report.ok and not report.citations and [m.name for m in report.bare_markers] == ["a"]
