"""Red team 136, F07 and F02: versions a source pins given to another name in a summary, in the
forms red team 135's rule (:meth:`provgate.gate._Check._check_versions_owned`) did not read.

F07: a version of one dot (``numpy==2.1``), a pre-release (``numpy==1.26.0rc1``), or one tagged
by ``@`` or ``:`` (``lodash@4.17``, ``nginx:1.25``) was never asked, so ``numpy 1.26 and pandas
2.1`` of ``numpy==2.1`` / ``pandas==1.26`` was grounded by the verbatim numbers. A one-dot number
is read as a version only after a name its sources bind to versions (so "took 1.2 s" and
"ratio 0.75" stay measures). F02: a version on another line than its name (``numpy\\n2.1.3``,
``- numpy:\\n  2.1.3``, a table's cell under a name's header) was never looked up by name.
docs/gate.md, I1 short forms."""

from __future__ import annotations

import pytest
from budget import examples
from gate_helpers import assert_accepted
from hypothesis import given, settings
from hypothesis import strategies as st
from test_grammar_v4 import _summarize

from provgate import gate

ONE_DOT = "numpy==2.1\npandas==1.26\n"
PRE_RELEASE = "numpy==1.26.0rc1\npandas==2.1.0b2\n"
ALPHA = "Django==5.0a1\nflask==3.0\n"
DJANGO = "django==4.2\nflask==3.0\n"
NPM = "npm i lodash@4.17 react@18.2\n"
NPM_FULL = "npm i lodash@4.17.21 react@18.2.0\n"
IMAGES = "image: nginx:1.25\nimage: redis:7.2\n"
PINS = "numpy==1.26.2\npandas==2.1.3\n"
PIP = "Successfully installed requests-2.31.0 urllib3-2.0.7\n"

LIES = [
    # F07: one-dot and pre-release versions, and versions tagged by @ or :, swapped
    (ONE_DOT, "Pinned numpy 1.26 and pandas 2.1.\n", "1.26"),
    (PRE_RELEASE, "Pinned numpy 2.1.0b2.\n", "2.1.0b2"),
    (PRE_RELEASE, "numpy 2.1.0b2 and pandas 1.26.0rc1\n", "1.26.0rc1"),
    (ALPHA, "flask 5.0a1 and Django 3.0\n", "5.0a1"),
    (DJANGO, "django 3.0 and flask 4.2\n", "3.0"),
    (NPM, "Installed lodash 18.2 and react 4.17.\n", "18.2"),
    (NPM_FULL, "Installed lodash 18.2.0 and react 4.17.21.\n", "18.2.0"),
    (IMAGES, "Runs nginx 7.2 and redis 1.25.\n", "7.2"),
    # near forms of a one-dot version
    (ONE_DOT, "numpy (1.26) and pandas (2.1)\n", "1.26"),
    (ONE_DOT, "numpy version: 1.26\n", "1.26"),
    (ONE_DOT, "numpy == 1.26\n", "1.26"),
    (ONE_DOT, "numpy is at 1.26 now.\n", "1.26"),
    (ONE_DOT, "**numpy** 1.26\n", "1.26"),
    (ONE_DOT, "| numpy | 1.26 |\n", "1.26"),
    # F02: the name on the line above, a list's value indented under its name, a column's header
    (PINS, "numpy\n2.1.3\n", "2.1.3"),
    (PINS, "- numpy:\n  2.1.3\n- pandas:\n  1.26.2\n", "2.1.3"),
    (PINS, "Pinned pandas 2.1.3 and numpy\n2.1.3 in the lockfile.\n", "2.1.3"),
    (PIP, "- requests:\n  2.0.7\n", "2.0.7"),
    (ONE_DOT, "- numpy:\n  1.26\n", "1.26"),
    (PINS, "| numpy | pandas |\n|---|---|\n| 2.1.3 | 1.26.2 |\n", "2.1.3"),
    (ONE_DOT, "| numpy | pandas |\n|---|---|\n| 1.26 | 2.1 |\n", "1.26"),
    (PINS, "| | numpy | pandas |\n|---|---|---|\n| pinned | 2.1.3 | 1.26.2 |\n", "2.1.3"),
    # a one-dot version pip glues to another name, grounded by a verbatim number elsewhere; a
    # log's key:value swapped (bound as a tag is)
    ("Successfully installed idna-3.6\nPython 3.7 found\n", "Installed idna 3.7.\n", "3.7"),
    ("loss:0.25 acc:0.91\n", "loss 0.91 and acc 0.25\n", "0.91"),
]

HONEST = [
    (ONE_DOT, "Pinned numpy 2.1 and pandas 1.26.\n"),
    (PRE_RELEASE, "numpy 1.26.0rc1 and pandas 2.1.0b2\n"),
    (ALPHA, "Django 5.0a1 and flask 3.0\n"),
    ("Successfully installed idna-3.6\nPython 3.7 found\n", "Installed idna 3.6 on Python 3.7.\n"),
    ("loss:0.25 acc:0.91\n", "loss 0.25 and acc 0.91\n"),
    (DJANGO, "django 4.2 and flask 3.0\n"),
    (NPM, "Installed lodash 4.17 and react 18.2.\n"),
    (NPM_FULL, "Installed lodash 4.17.21 and react 18.2.0.\n"),
    (IMAGES, "Runs nginx 1.25 and redis 7.2.\n"),
    (ONE_DOT, "numpy (2.1) and pandas (1.26)\n"),
    (ONE_DOT, "numpy version: 2.1\n"),
    (ONE_DOT, "numpy is at 2.1 now.\n"),
    (ONE_DOT, "| numpy | 2.1 |\n| pandas | 1.26 |\n"),
    (PINS, "numpy\n1.26.2\n"),
    (PINS, "- numpy:\n  1.26.2\n- pandas:\n  2.1.3\n"),
    (PINS, "Pinned numpy 1.26.2 and pandas\n2.1.3 in the lockfile.\n"),
    (PIP, "- requests:\n  2.31.0\n"),
    (PINS, "| numpy | pandas |\n|---|---|\n| 1.26.2 | 2.1.3 |\n"),
    (ONE_DOT, "| numpy | pandas |\n|---|---|\n| 2.1 | 1.26 |\n"),
    # a one-dot number after a pinned name that is a measure, or after a name bound to nothing
    (ONE_DOT + "The build took 1.26 seconds.\n", "numpy 2.1 built; the build took 1.26 seconds.\n"),
    (ONE_DOT + "ratio 1.26\n", "numpy 2.1, ratio 1.26\n"),
    (ONE_DOT + "numpy import: 1.26 s\n", "numpy 2.1; numpy import 1.26 s\n"),
    # a paragraph's end between a name and a number binds none
    (ONE_DOT + "speedup 1.26\n", "Pinned numpy.\n\n1.26 is the speedup.\n"),
    # a scoped package's last part is no package, a version word no name, a tag its image's only
    ("npm i @types/node@20.11.5\n$ node --version\nv18.17.0\n", "node 18.17.0 with @types/node 20.11.5\n"),
    ("version:1.2.3\nSuccessfully installed numpy-1.26.2\n", "Installed numpy version 1.26.2.\n"),
    ("FROM python:3.11\n$ python --version\nPython 3.11.4\n", "Python 3.11.4 in the python:3.11 image.\n"),
    ("ssh deploy@10.0.0.12\nSuccessfully installed requests-2.31.0\n", "deploy at 10.0.0.12 has requests 2.31.0.\n"),
]


@pytest.mark.parametrize("source, text, value", LIES)
def test_a_version_its_sources_bind_to_another_name_is_refused(source, text, value):
    verdict = _summarize(source, text)
    assert not verdict.accepted
    assert any(v.invariant == "I1" and v.value == value for v in verdict.violations), verdict.summary()


@pytest.mark.parametrize("source, text", HONEST)
def test_a_version_beside_the_name_its_sources_bind_it_to_is_grounded(source, text):
    assert_accepted(_summarize(source, text))


def test_a_block_of_measures_builds_no_reader_of_its_sources(monkeypatch):
    """One-dot numbers with a unit or a percent sign glued to them, or no name bound before them,
    ask the sources nothing (the standard summarize's ``DEFAULT_TIMEOUT = 5.0``, ``14.33s``)."""
    def refuse(*_args, **_kwargs):
        raise AssertionError("read the sources' bound names for a block of measures")

    monkeypatch.setattr(gate, "_AbbreviationSources", refuse)
    source = ONE_DOT + "3 runs, 1.2 s each, coverage 87.5%, DEFAULT_TIMEOUT = 5.0, 14.33s\n"
    assert_accepted(_summarize(source, "3 runs, 1.2 s each, at 87.5% coverage; `DEFAULT_TIMEOUT = 5.0`, `14.33s`.\n"))


def test_a_header_is_looked_for_a_bounded_way_up():
    # (a table cell's header is looked for within _HEADER_REACH bytes: a long table's cell far
    # below its header is read by its row only, and a 1 MB table is read once, not once a row)
    rows = "".join(f"| {n}.0 | 1.{n} |\n" for n in range(300))
    data = ("| numpy | pandas |\n|---|---|\n" + rows).encode()
    first = data.index(b"| 0.0 |") + 2
    assert gate._column_header(data, first) == b"numpy"
    assert gate._column_header(data, len(data) - len(b"299.0 | 1.299 |\n")) is None


@settings(max_examples=examples(800), deadline=None)
@given(st.text(alphabet="0123456789..vVxarcb%+=@- \n", max_size=40))
def test_numbers_apart_are_the_regexs_matches_outside_versions(text):
    # the one-dot numbers the version walk collects are _NUMBER_APART's matches where no
    # version stands (one walk over the digits for both)
    from provgate.gate import _NUMBER_APART, _VERSION_APART, _versions_apart

    data = text.encode()
    numbers: list[int] = []
    versions = _versions_apart(data, None, numbers)
    assert [m.span() for m in versions] == [m.span() for m in _VERSION_APART.finditer(data)]
    taken = [m.span() for m in versions]
    expected = [m.span() for m in _NUMBER_APART.finditer(data)
                if not any(a < m.end() and m.start() < b for a, b in taken)]
    assert [m.span() for at in numbers if (m := _NUMBER_APART.match(data, at)) is not None] == expected
