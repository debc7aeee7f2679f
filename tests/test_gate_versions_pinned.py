"""Red team 135, F11: versions a source pins (``numpy==1.26.2``) or glues (pip's
``requests-2.31.0``) given to another name in a summary, where the swapped version occurs verbatim
in the sources (so grounding alone grounded it): refused as the glued forms' near swaps are
(:meth:`provgate.gate._Check._check_versions_owned`, docs/gate.md I1 short forms)."""

from __future__ import annotations

import pytest
from budget import examples
from gate_helpers import assert_accepted
from hypothesis import given, settings
from hypothesis import strategies as st
from test_grammar_v4 import _summarize

from provgate import gate

PINS = "numpy==1.26.2\npandas==2.1.3\n"
PIP_INSTALL = "pip install numpy==1.26.2 pandas==2.1.3\n"
PYTHON_PIP = "Python 3.11.4\nSuccessfully installed requests-2.31.0\n"
DOCKER = "FROM python:3.11.4-slim\nRUN pip install requests==2.31.0\n"
EXTRAS = "uvicorn[standard] == 0.24.0\nfastapi==0.104.1\n"

LIES = [
    (PINS, "Pinned numpy 2.1.3 and pandas 1.26.2.\n", "2.1.3"),
    (PIP_INSTALL, "Pinned numpy 2.1.3 and pandas 1.26.2.\n", "2.1.3"),
    (PINS, "Pinned numpy (2.1.3) and pandas (1.26.2).\n", "2.1.3"),
    (PINS, "numpy: 2.1.3, pandas: 1.26.2\n", "2.1.3"),
    (PINS, "| numpy | 2.1.3 |\n", "2.1.3"),
    (PINS, "Pinned numpy v2.1.3.\n", "v2.1.3"),
    (PYTHON_PIP, "requests 3.11.4 installed.\n", "3.11.4"),
    (PYTHON_PIP, "requests (3.11.4) installed.\n", "3.11.4"),
    (PYTHON_PIP, "requests version 3.11.4 installed.\n", "3.11.4"),
    (DOCKER, "The image uses python 2.31.0 and requests 3.11.4.\n", "3.11.4"),
    (EXTRAS, "uvicorn 0.104.1 and fastapi 0.24.0\n", "0.104.1"),
]

HONEST = [
    (PINS, "Pinned numpy 1.26.2 and pandas 2.1.3.\n"),
    (PIP_INSTALL, "Pinned numpy (1.26.2) and pandas (2.1.3).\n"),
    (PINS, "numpy: 1.26.2, pandas: 2.1.3\n"),
    (PINS, "| numpy | 1.26.2 |\n| pandas | 2.1.3 |\n"),
    (PINS, "numpy==1.26.2, pandas==2.1.3\n"),
    (PYTHON_PIP, "requests 2.31.0 installed on Python 3.11.4.\n"),
    (PYTHON_PIP, "Installed requests 2.31.0, running under 3.11.4.\n"),
    (PYTHON_PIP, "On Python 3.11.4, requests 2.31.0.\n"),
    (DOCKER, "The image uses python 3.11.4 and requests 2.31.0.\n"),
    (EXTRAS, "uvicorn 0.24.0 and fastapi 0.104.1\n"),
    ("Successfully installed requests-2.31.0\nserver at 10.0.0.12\n", "requests 2.31.0 talks to 10.0.0.12.\n"),
]


@pytest.mark.parametrize("source, text, value", LIES)
def test_a_version_its_sources_give_another_name_is_refused(source, text, value):
    verdict = _summarize(source, text)
    assert not verdict.accepted
    assert any(v.invariant == "I1" and v.value == value for v in verdict.violations), verdict.summary()


@pytest.mark.parametrize("source, text", HONEST)
def test_a_version_after_the_name_its_sources_pin_it_to_is_grounded(source, text):
    assert_accepted(_summarize(source, text))


def test_a_block_without_a_version_builds_no_reader_of_its_sources(monkeypatch):
    """The rule asks the sources nothing of a summary that writes no version (most edits')."""
    def refuse(*_args, **_kwargs):
        raise AssertionError("read the sources' glued names for a block without a version")

    monkeypatch.setattr(gate, "_AbbreviationSources", refuse)
    assert_accepted(_summarize(PINS, "Pinned numpy and pandas.\n"))


@settings(max_examples=examples(800), deadline=None)
@given(st.text(alphabet="0123456789..vVxa+=@- \n", max_size=40))
def test_versions_apart_are_the_regexs_matches(text):
    # _versions_apart matches the version pattern only where a digit, a dot and a digit stand (a
    # summarize's summaries searched from every byte cost 0.6 ms): it must find what finditer does
    from provgate.gate import _VERSION_APART, _versions_apart

    data = text.encode()
    assert [m.span() for m in _versions_apart(data)] == [m.span() for m in _VERSION_APART.finditer(data)]
