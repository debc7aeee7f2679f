"""Import switch for batch quote search; see ``provgate._search_py`` for the spec."""

from provgate._search_py import (
    SUMMARY_LEAD_DATE_TIME,
    SUMMARY_LEAD_RUN_OUTCOME,
    WHITESPACE_RUN,
)
from provgate._switch import load

_impl, IMPLEMENTATION = load("search", "_search_py")

find_exact = _impl.find_exact
find_whitespace = _impl.find_whitespace
whitespace_spans = _impl.whitespace_spans
exact_spans = _impl.exact_spans
longest_prefix = _impl.longest_prefix
marks_held = _impl.marks_held
diff_runs = _impl.diff_runs
normalize_whitespace = _impl.normalize_whitespace
unit_leads = _impl.unit_leads
summary_leads = _impl.summary_leads
aside_leads = _impl.aside_leads
bare_name_line_leads = _impl.bare_name_line_leads
paired_leads = _impl.paired_leads
paired_tokens = _impl.paired_tokens
version_word_leads = _impl.version_word_leads
WHITESPACE = _impl.WHITESPACE
WHITESPACE_CODEPOINTS = _impl.WHITESPACE_CODEPOINTS

__all__ = [
    "IMPLEMENTATION",
    "SUMMARY_LEAD_DATE_TIME",
    "SUMMARY_LEAD_RUN_OUTCOME",
    "WHITESPACE",
    "WHITESPACE_CODEPOINTS",
    "WHITESPACE_RUN",
    "aside_leads",
    "bare_name_line_leads",
    "diff_runs",
    "exact_spans",
    "find_exact",
    "find_whitespace",
    "longest_prefix",
    "marks_held",
    "normalize_whitespace",
    "paired_leads",
    "paired_tokens",
    "summary_leads",
    "unit_leads",
    "version_word_leads",
    "whitespace_spans",
]
