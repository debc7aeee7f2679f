"""A quote of a summary's words is no citation (red team 122, F04): ``verify_quote``,
``verify_citations`` and ``provgate verify`` graded a quote of a source stored with kind
``window_summary`` (as ``compact`` keeps an evicted summary, under its ``block:`` handle)
``exact`` / accurate, exit 0, while ``store.resolve`` refused any pointer into it as nominal.
Such a source is graded ``nominal`` now: not ok, not accurate, exit 1."""

from __future__ import annotations

import json

import pytest
from blake3 import blake3

import provgate.cli as cli
from provgate.handles import block_text_handle
from provgate.reconstruct import (
    GRADE_EXACT,
    SourceCache,
    verify_citations,
    verify_quote,
)
from provgate.store import DERIVED_KIND, SourceStore

CONF = "retries=3\ntimeout_s=30\n"
SUMMARY = "The payment client retries 5 times and never times out."
GRADE_NOMINAL = "nominal"  # (provgate.reconstruct.GRADE_NOMINAL)
H = block_text_handle(blake3(SUMMARY.encode()).digest())


@pytest.fixture()
def store_path(tmp_path):
    path = tmp_path / "s.sqlite3"
    with SourceStore(str(path)) as st:
        st.put("tool:call_8841", CONF, kind="tool_output")
        st.put(H, SUMMARY, kind=DERIVED_KIND)
    return path


@pytest.mark.parametrize("quote", ["retries 5 times", "never times out", "not in it at all"])
def test_a_quote_of_a_summary_s_words_is_nominal_not_exact(store_path, quote):
    with SourceStore(str(store_path)) as st:
        for cache in (None, SourceCache(st)):
            check = verify_quote(st, H, quote, cache=cache)
            assert check.grade == GRADE_NOMINAL and not check.ok
            assert check.pointer is None and check.start is None
            assert "summary's words" in check.describe()
            assert check.to_json()["grade"] == "nominal"


def test_an_honest_quote_of_a_primary_source_is_still_exact(store_path):
    with SourceStore(str(store_path)) as st:
        check = verify_quote(st, "tool:call_8841", "retries=3")
        assert check.grade == GRADE_EXACT and check.ok
        assert st.resolve(check.pointer) == "retries=3"


def test_verify_citations_counts_a_summary_citation_inaccurate(store_path):
    with SourceStore(str(store_path)) as st:
        lie = verify_citations(st, f'The client "retries 5 times" [src:{H}].\n')
        assert lie.accuracy_rate == 0.0 and lie.presence_rate == 1.0 and not lie.ok
        assert lie.totals()["by_grade"]["nominal"] == 1
        assert lie.citations[0].grade == "nominal" and not lie.citations[0].accurate
        honest = verify_citations(st, 'The client sets "retries=3" [src:call_8841].\n')
        assert honest.accuracy_rate == 1.0 and honest.ok


def test_a_marker_naming_a_summary_and_a_source_takes_the_source_s_exact_grade(tmp_path):
    # [src:x] names both tool:x (a source) and note:x (a summary's words): the best grade wins
    with SourceStore(str(tmp_path / "s.sqlite3")) as st:
        st.put("tool:x", CONF)
        st.put("note:x", "retries=3 and more\n", kind=DERIVED_KIND)
        both = verify_citations(st, 'It sets "retries=3" [src:x].\n')
        assert both.citations[0].marker.ambiguous
        assert both.citations[0].grade == "exact" and both.ok
        only_summary = verify_citations(st, 'It says "and more" [src:x].\n')
        assert only_summary.citations[0].grade == "not_found" and not only_summary.ok
        assert sorted(c.grade for c in only_summary.citations[0].checks) == ["nominal", "not_found"]


def test_provgate_verify_exits_1_on_a_summary_citation_and_0_on_an_honest_one(tmp_path, store_path, capsys):
    lie, honest = tmp_path / "lie.txt", tmp_path / "honest.txt"
    lie.write_text(f'The client "retries 5 times" [src:{H}].\n')
    honest.write_text('The client sets "retries=3" [src:call_8841].\n')
    assert cli.main(["verify", "--store", str(store_path), str(lie)]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is False and out["totals"]["accurate"] == 0 and out["totals"]["by_grade"]["nominal"] == 1
    assert cli.main(["verify", "--store", str(store_path), str(honest)]) == 0


def test_a_bare_marker_naming_only_a_summary_is_not_present(store_path):
    # red team 124, F06: a bare marker of a window_summary handle counted as present, exit 0
    with SourceStore(str(store_path)) as st:
        report = verify_citations(st, f"The client is robust [src:{H}].")
        assert report.totals()["bare_markers_present"] == 0 and not report.ok
        honest = verify_citations(st, "The client retries [src:tool:call_8841].")
        assert honest.totals()["bare_markers_present"] == 1 and honest.ok
        both = verify_citations(st, f"The client retries [src:tool:call_8841] [src:{H}].")
        assert both.totals()["bare_markers"] == 2 and not both.ok
