"""A path's line anchor written ``config.py:19`` (a short path and a colon) or as a range,
``Lines 19-27 of src/config.py``, is a place its sources name, as ``config.py line 19`` is
(docs/gate.md, I1 "line numbers bound"; red team 142, F04: a traceback's main.py lines given
to config.py in those forms were accepted). Lie/honest pairs over the same traceback."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_gate_id_records import TRACEBACK
from test_grammar_v4 import _summarize

PYTEST = """tests/test_api.py::test_create_user FAILED
    def test_create_user(client):
>       assert resp.status_code == 201
E       assert 500 == 201

tests/test_api.py:42: AssertionError
FAILED tests/test_api.py::test_create_user - assert 500 == 201
"""


@pytest.mark.parametrize("source, lie, value", [
    (TRACEBACK, "load_config (config.py:19) raised FileNotFoundError.", "config.py:19"),
    (TRACEBACK, "The missing file is opened at config.py:27.", "config.py:27"),
    (TRACEBACK, "Lines 19-27 of src/config.py open the file.", "Lines 19-27"),
    (TRACEBACK, "main (main.py:8) calls load_config.", "main.py:8"),
    (PYTEST, "The assertion at test_api.py:41 fails with 500 != 201.", "test_api.py:41"),
])
def test_a_line_given_another_files_or_none_is_refused(source, lie, value):
    find(_summarize(source, lie), "I1", value=value)


@pytest.mark.parametrize("source, honest", [
    (TRACEBACK, "load_config (config.py:8) raised FileNotFoundError."),
    (TRACEBACK, "main() at main.py:19 calls load_config, which fails at src/config.py:8 opening the file."),
    (TRACEBACK, "The entry point (main.py:27) calls main (main.py:19), then load_config at config.py:8."),
    (TRACEBACK, "Lines 19-27 of src/main.py lead to load_config, which fails opening the file."),
    (TRACEBACK, "FileNotFoundError: /etc/app/config.yaml is missing (config.py:8)."),
    (PYTEST, "test_create_user fails at tests/test_api.py:42: the API returned 500 instead of 201."),
    (PYTEST, "The assertion at test_api.py:42 fails: 500 != 201."),
])
def test_the_honest_anchors_stay_accepted(source, honest):
    assert_accepted(_summarize(source, honest))


def test_many_anchors_are_read_in_one_pass():
    # (30,000 anchors, 210 KB: a pass per anchor over the block or its sources would not end;
    # a megabyte cost CI 13 s, nearly all of it the grounding stages' rows, not this rule)
    text = "a.py:1 " * 30_000 + "config.py:19."
    find(_summarize(TRACEBACK, text), "I1")
