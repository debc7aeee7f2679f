"""A requirement read through markup other than emphasis, and through emphasis on both sides of a
comparison wrapped apart from its version (red team 133, F03 and F03b; docs/gate.md,
"Requirements"): a markdown link on the name (``[requests](url)>=2.28``, also as a table's name
cell), inline HTML tags (``<code>requests</code>>=2.28``, ``requests <code>>=2.28</code>``), a
comparison written as an HTML entity (``requests&gt;=2.28``), strikethrough's and highlight's
``~~``/``==``, a backslash escaping the comparison (``requests\\>=2.28``), and
``requests **>=** *2.28*``: their flips were accepted in a summary, where the plain form's is
refused; and ``requests `>=` `2.28` `` summarized as ``requests>=2.28`` was refused. Each reads as
its plain form, on the source side and the block side alike. Run natively and with
PROVGATE_NO_EXTENSIONS=1 (the suite runs once each way)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted
from test_gate_requirement_cost import _Counting
from test_gate_requirement_extras import rewrite, summarize

import provgate.gate as gate_module
from provgate.gate import (
    _markup_blanked,
    _name_marks_blanked,
    _requirement_spans,
    _requirements,
)

REQ = (b"requests", b"", b">=", b"2.28")
URL = "https://pypi.org/project/requests/"


def changed(v) -> list:
    return [x for x in v.violations if (x.evidence or {}).get("change") == "requirement_changed"]


# (each form of the finding, its flip >= -> <: in "Pinned deps: X and flask.")
FLIPS = [
    (f"[requests]({URL})>=2.28", f"[requests]({URL})<2.28"),
    (f"[requests]({URL}) >= 2.28", f"[requests]({URL}) < 2.28"),
    ("[requests][pypi]>=2.28", "[requests][pypi]<2.28"),
    ("<code>requests</code>>=2.28", "<code>requests</code><2.28"),
    ("requests <code>>=2.28</code>", "requests <code><2.28</code>"),
    ("<b>requests</b>>=2.28", "<b>requests</b><2.28"),
    ('<a href="https://pypi.org/project/requests/">requests</a> >=2.28',
     '<a href="https://pypi.org/project/requests/">requests</a> <2.28'),
    ("requests >=<code>2.28</code>", "requests <<code>2.28</code>"),
    ("<b>requests</b> <b>>=</b> <i>2.28</i>", "<b>requests</b> <b><</b> <i>2.28</i>"),
    ("requests&gt;=2.28", "requests&lt;2.28"),
    ("requests &#62;= 2.28", "requests &#60; 2.28"),
    ("requests&GT;&equals;2.28", "requests&lt;2.28"),
    ("~~requests~~>=2.28", "~~requests~~<2.28"),
    ("requests ~~>=2.28~~", "requests ~~<2.28~~"),
    ("==requests==>=2.28", "==requests==<2.28"),
    ("requests\\>=2.28", "requests\\<2.28"),
    # (F03b: the comparison and the version each wrapped apart)
    ("**requests** **>=** **2.28**", "**requests** **<** **2.28**"),
    ("requests **>=** *2.28*", "requests **<** *2.28*"),
    ("requests _>=_ **2.28**", "requests _<_ **2.28**"),
    ("requests **~=** `2.28`", "requests **<** `2.28`"),
    ("requests **>=****2.28**", "requests **<****2.28**"),
]


@pytest.mark.parametrize("source, lie", FLIPS)
def test_a_requirement_through_markup_flipped_is_refused(source, lie):
    v = summarize(f"Pinned deps: {source} and flask.\n", f"Deps: {lie} and flask.\n")
    assert not v.accepted
    assert changed(v)   # (refused as a requirement changed, not by another rule)


@pytest.mark.parametrize("source, lie", [
    ("Requires <code>requests</code>>=2.28\n", "Requires <code>requests</code><2.28\n"),
    ("Requires requests&gt;=2.28\n", "Requires requests&lt;2.28\n"),
    ("Requires ~~requests~~>=2.28\n", "Requires ~~requests~~<2.28\n"),
    ("Requires requests **>=** *2.28*\n", "Requires requests **<** *2.28*\n"),
])
def test_a_requirement_through_markup_flipped_in_a_rewrite_is_refused(source, lie):
    v = rewrite(source, lie)
    assert not v.accepted
    assert changed(v)


TABLE = f"| package | constraint |\n|---|---|\n| [requests]({URL}) | >=2.28 |\n| flask | <3 |\n"


def test_a_linked_name_cell_flipped_is_refused():
    v = summarize(TABLE, TABLE.replace(">=2.28", "<2.28"))
    assert not v.accepted
    assert changed(v)
    assert_accepted(summarize(TABLE, "requests>=2.28 and flask<3\n"))   # (the row read as its requirement)


@pytest.mark.parametrize("source, text", [
    # (the finding's honest direction, F03b: marks removed, the requirement kept)
    ("Requires requests `>=` `2.28` for the client.\n", "Needs requests>=2.28.\n"),
    ("Requires requests **>=** *2.28* for the client.\n", "Needs requests>=2.28.\n"),
    ("Requires `requests` `>=` `2.28` for the client.\n", "Needs `requests>=2.28`.\n"),
    # (markup added or removed, the requirement kept)
    (f"Pinned deps: [requests]({URL})>=2.28 and flask.\n", "Deps: requests>=2.28 and flask.\n"),
    ("Pinned deps: <code>requests</code>>=2.28 and flask.\n", "Deps: `requests`>=2.28 and flask.\n"),
    ("Pinned deps: requests&gt;=2.28 and flask.\n", "Deps: requests>=2.28 and flask.\n"),
    ("Pinned deps: requests ~~>=2.28~~ and flask.\n", "Deps: requests>=2.28 and flask.\n"),
    ("Pinned deps: requests\\>=2.28 and flask.\n", "Deps: requests>=2.28 and flask.\n"),
    ("Pinned deps: requests>=2.28 and flask.\n", "Deps: **requests>=2.28** and flask.\n"),
    ("Pinned deps: requests===2.28 and flask.\n", "Deps: requests===2.28 and flask.\n"),
    # (a link to a package page in prose, HTML in prose, == and ** in code: as before)
    (f"See [requests]({URL}) for HTTP; pinned requests>=2.28.\n",
     f"Uses requests>=2.28 ([requests]({URL})).\n"),
    ("<b>Note</b>: requests>=2.28 is pinned, and a &lt; b holds.\n", "Note: requests>=2.28 is pinned.\n"),
    ("The check `a == b` and requests>=2.28.\n", "`a == b`; requests>=2.28.\n"),
    ("Solve x**2>=4 with requests>=2.28.\n", "x**2>=4; requests>=2.28.\n"),
    ("A ==highlight== and ~~struck~~ text with requests>=2.28.\n", "Text with requests>=2.28.\n"),
])
def test_a_requirement_through_markup_kept_is_accepted(source, text):
    assert_accepted(summarize(source, text))


@pytest.mark.parametrize("source, text", [
    ("Requires <code>requests</code>>=2.28\n", "Requires <code>requests</code> >= 2.28\n"),
    ("Requires requests&gt;=2.28\n", "Requires requests &gt;= 2.28\n"),
    ("Requires requests **>=** *2.28*\n", "Requires requests **>=** *2.28* !\n"),
])
def test_a_requirement_through_markup_respaced_in_a_rewrite_is_accepted(source, text):
    assert_accepted(rewrite(source, text))


def test_the_markup_reads_as_the_plain_form():
    for text in (f"[requests]({URL})>=2.28", "[**requests**][1] >= 2.28", "<code>requests</code>>=2.28",
                 "requests <code>>=2.28</code>", "<b>requests</b>>=2.28", "requests&gt;=2.28",
                 "requests &#x3E;&#61; 2.28", "~~requests~~>=2.28", "requests ~~>=2.28~~", "==requests==>=2.28",
                 "requests\\>=2.28", "**requests** **>=** **2.28**", "requests `>=` `2.28`",
                 "requests _>=_ **2.28**", "requests **>=****2.28**", f"| [requests]({URL}) | >=2.28 |"):
        raw = text.encode()
        assert set(_requirements(raw)) == {REQ}, text
        assert len(_name_marks_blanked(_markup_blanked(raw))) == len(raw)   # (offsets kept)
        if not text.startswith("|"):   # (a two-cell row is joined by the reading, not the spans: as before)
            assert {key for _, _, key in _requirement_spans(raw)} == {REQ}, text
    # (the span from the name to the last clause, of the text as written)
    assert _requirement_spans(b"x requests&gt;=2.28") == [(2, 10, REQ), (14, 19, REQ)]   # (the entity apart)
    # (pip's arbitrary equality is no highlight; a lone "=" or "~" no mark)
    assert set(_requirements(b"requests===2.28")) == {(b"requests", b"", b"===", b"2.28")}
    assert _name_marks_blanked(b"name=**>=2.28") == b"name=**>=2.28"
    # (a ">" that ends no inline tag is no mark; a tag is blanked whole)
    for text in (b"a -> >=3", b"x<<>=3", b"a<3 and b> >=4"):
        assert _name_marks_blanked(text) == text, text
    assert _name_marks_blanked(b'<a href="u">requests</a> >=2.28') == b'<a href="u">requests     >=2.28'
    assert set(_requirements(b"<tr><td>requests</td><td>&gt;=2.28</td></tr>")) == {REQ}
    # (markup with no requirement: none read)
    for text in (f"see [requests]({URL}) for HTTP", "<b>Note</b>: a &lt; b", "`a == b`", "x**2>=4", "==x== and ~~y~~"):
        assert set(_requirements(text.encode())) == set(), text


@pytest.mark.parametrize("make", [
    lambda n: b" ".join(b"[a%d](https://x.org/a%d)&gt;=<code>1</code>" % (i, i) for i in range(n)),  # one line
    lambda n: b"".join(b"| [a%d](u) | >=1 |\n" % i for i in range(n)),                              # n link rows
    lambda n: b"~~" * n + b">=1 " + b"==" * n + b">=2 " + b"&gt;" * n + b"2 " + b"</b>" * n + b"=3",  # long runs
    lambda n: b"*" * n + b"a" + b"=" * n + b">=1 \\" * n,
])
def test_the_markup_read_stays_linear(monkeypatch, make):
    counting = _Counting(gate_module._REQUIREMENT)
    monkeypatch.setattr(gate_module, "_REQUIREMENT", counting)
    for n in (50, 400):
        counting.calls = 0
        _requirements(make(n))
        assert counting.calls <= 3 * n + 1


@pytest.mark.parametrize("source, text", [
    # (the markup read as blanks holds no fact of the requirement: a link's target or a tag's
    # attribute no source has is refused as before, though the requirement is the source's)
    ("Requires requests>=2.28\n", "Requires [requests](https://evil.example/requests.tar.gz)>=2.28\n"),
    (f"Requires [requests]({URL})>=2.28\n", "Requires [requests](https://evil.example/r)>=2.28\n"),
    ("Requires requests>=2.28\n", '<a href="https://evil.example/x">requests</a> >=2.28\n'),
    ("Requires requests>=2.28\n", '<span title="port 8080">requests</span>>=2.28\n'),
])
def test_a_fact_inside_the_markup_of_a_requirement_is_not_grounded_by_it(source, text):
    for edit in (summarize, rewrite):
        v = edit(source, text)
        assert not v.accepted, edit.__name__
        assert not changed(v), edit.__name__   # (the requirement is the source's: another fact refused)


def test_the_spans_leave_out_the_markup_inside():
    text = f"x [requests]({URL})>=2.28".encode()
    start = text.index(b"requests")
    assert _requirement_spans(text) == [(start, start + 8, REQ), (text.index(b">="), len(text), REQ)]


# (red team 135, F09: a name followed by a long run of the marks read through, before its
# comparison, was read on from each "==" or tag's ">" inside the run: 4,000 "~~==" took 7 s in a
# summary, 5 s in a source. The marks read between a comparison and its version are at most
# gate._MARKS_AFTER_ITEMS, each whole, so a start reads a bounded run: linear)
LONG_RUNS = [b"~~==", b"==", b"<i>", b"<b> ", b"~~ ", b"\\", b"&gt;", b"[a](b)", b"&amp;"]


def test_the_marks_read_after_a_comparison_are_bounded():
    k = gate_module._MARKS_AFTER_ITEMS
    for mark in (b"~~", b"<i>", b"** ", b"`"):
        within, beyond = b">=" + (mark + b" ") * k + b"2.28", b">=" + (mark + b" ") * (k + 1) + b"2.28"
        assert gate_module._MARKS_AFTER_COMPARISON.match(within) is not None, mark
        assert gate_module._MARKED_REQUIREMENT_HINT.match(within) is not None, mark   # (the hint asks what is read)
        assert gate_module._MARKS_AFTER_COMPARISON.match(beyond) is None, mark
    # (so a start inside a long run reads at most k marks of it: from each start, a match of the
    # k marks before the version, or none)
    text = b"requests" + b"~~==" * 4000 + b">=2.28"
    hits = [m.span(1) for m in gate_module._MARKS_AFTER_COMPARISON.finditer(text)]
    assert all(b - a <= 4 * k for a, b in hits)


@pytest.mark.parametrize("mark", LONG_RUNS)
def test_a_long_run_of_marks_after_a_name_is_read_in_linear_work(monkeypatch, mark):
    counting = _Counting(gate_module._REQUIREMENT)
    monkeypatch.setattr(gate_module, "_REQUIREMENT", counting)
    for n in (400, 4000):
        counting.calls = 0
        text = b"requests" + mark * n + b">=2.28"
        _requirements(text)
        assert len(_name_marks_blanked(_markup_blanked(text))) == len(text)
        assert counting.calls <= 2 * n + 4
    # (the run in a summary and in a source: the verdicts as before)
    run = "requests" + mark.decode() * 4000 + ">=2.28"
    assert_accepted(summarize("Requires requests>=2.28\n", f"Requires {run}\n"))
    assert not summarize(f"Requires {run}\n", "Requires requests<2.28\n").accepted


@pytest.mark.parametrize("source, lie, honest", [
    # (a few marks between the comparison and its version are read, the flip refused, the
    # honest form accepted: the bound leaves them as before)
    ("Requires requests>=2.28\n", "Requires requests<=<i><b>~~**2.28**~~</b></i>\n",
     "Requires requests>=<i><b>~~**2.28**~~</b></i>\n"),
    ("Requires requests>=2.28\n", "Requires requests **<=** ~~ == `2.28`\n", "Requires requests **>=** ~~ == `2.28`\n"),
])
def test_a_requirement_with_a_few_marks_stays_read(source, lie, honest):
    v = summarize(source, lie)
    assert not v.accepted
    assert changed(v)
    assert_accepted(summarize(source, honest))


# (red team 135, F08: the comparison flipped behind markup not read was accepted: an HTML
# comment, a self-closing or void tag in a text with no closing tag, "&nbsp;", and a comparison
# with its "=" escaped too. Each now reads as its plain form; the honest forms are accepted)
F08_SOURCE = "Install with pip. Requirements: requests>=2.28 and urllib3<2.0\n"


@pytest.mark.parametrize("lie, honest", [
    ("requests<!-- --><=2.28", "requests<!-- note -->>=2.28"),
    ("requests<br/><=2.28", "requests<br/>>=2.28"),
    ("requests<br><=2.28", "requests<br> >=2.28"),
    ("requests&nbsp;<=2.28", "requests&nbsp;>=&nbsp;2.28"),
    ("requests&NBSP;&#160;<=2.28", "requests &nbsp; >=2.28"),
    ("requests\\<\\=2.28", "requests\\>\\=2.28"),
    ("requests \\~\\= 2.28", "requests \\>\\= 2.28"),
    # red team 136, F01: the same markup between the comparison and its version
    ("requests<=<!---->2.28", "requests>=<!---->2.28"),
    ("requests<=<br/>2.28", "requests>=<br/>2.28"),
    ("requests<= <!-- --> 2.28", "requests>= <!-- note --> 2.28"),
    ("requests<=<br/><br/><br/>2.28", "requests>=<br/><br/><br/>2.28"),
    ("requests<=&nbsp;2.28", "requests>=&nbsp;2.28"),
])
def test_a_requirement_behind_a_comment_void_tag_nbsp_or_escaped_comparison_flipped_is_refused(lie, honest):
    v = summarize(F08_SOURCE, f"Requires {lie} and urllib3<2.0\n")
    assert not v.accepted
    assert changed(v)
    assert_accepted(summarize(F08_SOURCE, f"Requires {honest} and urllib3<2.0\n"))
    assert set(_requirements(honest.encode())) == {REQ}


def test_the_f08_markup_reads_as_the_plain_form_and_keeps_offsets():
    for text in (b"requests<!-- x --><=2.28", b"requests<br/><=2.28", b"requests&nbsp;<=2.28", b"requests\\<\\=2.28"):
        read = _name_marks_blanked(_markup_blanked(text))
        assert len(read) == len(text)
        assert set(_requirements(text)) == {(b"requests", b"", b"<=", b"2.28")}, text
    # (no comparison before a digit: as before)
    for text in (b"a -> >=3", b"x<<>=3", b"<br/> a&nbsp;b", b"a\\=b", b"<!-- x --> ok"):
        assert set(_requirements(text)) == set(), text
    # (a comment's text holds no fact of the requirement: left out of its span)
    assert not summarize("Requires requests>=2.28\n", "Requires requests<!-- port 8080 -->>=2.28\n").accepted
