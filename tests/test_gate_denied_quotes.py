"""Found claims of denied quotations (red team 138, F16): a summary does not claim found what
its sources report none found of, whether the quotation holds one token (a name, identifier or
path, whose fingerprint grounded it) or its command is echoed above the output (``$ rg A src/``,
whose undenied words made the sources read both ways). And the unquoted claim of a search that
found nothing (``MAX_RETRIES is defined in src/`` of grep's exit code 1). Lie/honest pairs."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, gate_for, summary, tool

from provgate.gate import _on_command_line

RG_NONE = 'No matches found for "MAX_RETRIES" in src/\n'
RG_NONE_ECHOED = '$ rg MAX_RETRIES src/\nNo matches found for "MAX_RETRIES" in src/\n'
RG_HIT_ECHOED = "$ rg MAX_RETRIES src/\nsrc/retry.py:3:MAX_RETRIES = 5\n"
LEAKS_NONE = 'No secrets found in "Dockerfile"\n'
LEAKS_NONE_ECHOED = '$ gitleaks detect --source config.yaml\nNo secrets found in "config.yaml"\n'
RG_EXIT_1 = "$ rg MAX_RETRIES src/\n[exit code: 1]\n"
GREP_NO_MATCHES = "$ grep -rn MAX_RETRIES src/\n[exit code: 1] (no matches)\n"


def check(sources: dict[str, str], text: str):
    gate = gate_for(sources)
    pre = [tool(f"t{i}", h, t) for i, (h, t) in enumerate(sources.items())]
    return gate.check(pre, [summary("s", text, list(sources))], operator="summarize")


def assert_found_claim_refused(verdict, value: str) -> None:
    found = [v for v in verdict.violations if v.invariant == "I1" and v.value == value]
    assert found and not verdict.accepted, verdict.violations
    v = found[0]
    assert v.block == "s" and repr(value) in v.message and v.evidence["change"] == "negation_dropped", v


@pytest.mark.parametrize("sources, lie, value", [
    # (a) one token quoted: its identifier or file name grounded it by fingerprint
    ({"g": RG_NONE}, 'Found "MAX_RETRIES" in src/.', "MAX_RETRIES"),
    ({"g": 'No matches found for "MAX_RETRIES"\n'}, 'Matches were found for "MAX_RETRIES".', "MAX_RETRIES"),
    ({"s": LEAKS_NONE}, 'Secrets were found in "Dockerfile".', "Dockerfile"),
    ({"s": "$ gitleaks detect --source Dockerfile\nNo leaks found in \"Dockerfile\"\n"},
     'gitleaks flagged "Dockerfile".', "Dockerfile"),
    # (b) the command echoed above its output: its words, undenied, made the sources read both ways
    ({"g": RG_NONE_ECHOED}, 'Found "MAX_RETRIES" in src/.', "MAX_RETRIES"),
    ({"s": LEAKS_NONE_ECHOED}, 'Secrets were found in "config.yaml".', "config.yaml"),
    ({"g": "me@box:~/repo$ rg MAX_RETRIES src/\nNo matches found for \"MAX_RETRIES\" in src/\n"},
     'Found "MAX_RETRIES" in src/.', "MAX_RETRIES"),
    ({"g": "\u23fa Bash(rg MAX_RETRIES src/)\n  No matches found for \"MAX_RETRIES\" in src/\n"},
     'Found "MAX_RETRIES" in src/.', "MAX_RETRIES"),
    # (a code span names what was found as a quotation does)
    ({"g": RG_NONE_ECHOED}, "Found `MAX_RETRIES` in src/.", "MAX_RETRIES"),
])
def test_found_claim_of_a_denied_quotation_is_refused(sources, lie, value):
    assert_found_claim_refused(check(sources, lie), value)


@pytest.mark.parametrize("sources, honest", [
    ({"s": LEAKS_NONE}, 'No secrets were found in "Dockerfile".'),
    ({"s": LEAKS_NONE_ECHOED}, 'No secrets were found in "config.yaml".'),
    ({"s": LEAKS_NONE_ECHOED}, 'gitleaks scanned "config.yaml" and found no secrets.'),
    ({"g": RG_NONE_ECHOED}, 'rg found nothing for "MAX_RETRIES" in src/.'),
    ({"g": RG_NONE_ECHOED}, "`rg` didn't match \"MAX_RETRIES\" anywhere in src/."),
    ({"g": RG_NONE_ECHOED}, "Ran `rg MAX_RETRIES src/`; it found no matches."),
    ({"g": RG_NONE_ECHOED}, 'Were matches found for "MAX_RETRIES"?'),
    ({"g": RG_EXIT_1}, "rg found no match for MAX_RETRIES"),
    # a quotation grounded by a real match line
    ({"g": RG_HIT_ECHOED}, 'Found "MAX_RETRIES" in src/retry.py.'),
    ({"g": RG_HIT_ECHOED}, "Found `MAX_RETRIES` in src/retry.py."),
    # a command whose own output does not deny it: what it shows stands
    ({"a": "$ cat Dockerfile\nFROM python:3.12\n$ gitleaks detect\nNo secrets found in \"Dockerfile\"\n"},
     'Found a FROM python:3.12 line in "Dockerfile".'),
    ({"a": "$ cat Dockerfile\nFROM python:3.12\n", "b": LEAKS_NONE}, 'Found a FROM python:3.12 line in "Dockerfile".'),
])
def test_honest_twin_is_accepted(sources, honest):
    assert_accepted(check(sources, honest))


@pytest.mark.parametrize("source", [RG_EXIT_1, GREP_NO_MATCHES, "$ grep -rn MAX_RETRIES src/\nexit status 1\n"])
def test_unquoted_definition_claim_of_a_search_that_found_nothing_is_refused(source):
    verdict = check({"g": source}, "MAX_RETRIES is defined in src/.")
    assert not verdict.accepted
    assert any(v.key == "outcome" and "MAX_RETRIES is defined" in v.value for v in verdict.violations), verdict.violations


@pytest.mark.parametrize("sources, honest", [
    ({"g": RG_EXIT_1 + "$ rg MAX_RETRIES lib/\nlib/a.py:3:MAX_RETRIES = 5\n"}, "MAX_RETRIES is defined in lib/a.py."),
    ({"g": "$ grep -rn MAX_RETRIES src/\nsrc/a.py:3:MAX_RETRIES = 5\n[exit code: 0]\n"},
     "MAX_RETRIES is defined in src/a.py."),
    ({"g": RG_EXIT_1, "h": "src/b.py:1:TIMEOUT = 3\n"}, "TIMEOUT is defined in src/b.py."),
])
def test_definition_shown_by_a_search_is_accepted(sources, honest):
    assert_accepted(check(sources, honest))


@pytest.mark.parametrize("text, on", [
    ("$ rg A src/", True), ("  user@host:~/repo$ rg A", True), ("% grep A", True), ("PS C:\\repo> rg A", True),
    ("\u23fa Bash(rg A src/)", True), ('{"command": "rg A src/"}', True),
    ('No matches found for "A"', False), ("src/a.py:3:A = 5", False), ("Cost: $ 5 for A", False),
])
def test_command_lines(text, on):
    data = text.encode()
    assert _on_command_line(data, data.index(b"A")) is on


def test_a_long_line_is_read_from_its_last_bytes_only():
    # (a 1 MB line: the look back is bounded, the occurrence read as on no command line)
    data = b"$ rg " + b"x " * 500_000 + b"A"
    assert _on_command_line(data, len(data) - 1) is False


def test_many_quotations_are_read_in_one_pass_a_source():
    # (past eight distinct quotations, one Aho-Corasick pass a source: the same verdicts)
    names = [f"NAME_{i}" for i in range(12)]
    source = "".join(f"$ rg {n} src/\nNo matches found for \"{n}\" in src/\n" for n in names[:11])
    source += f"$ rg {names[11]} src/\nsrc/a.py:1:{names[11]} = 1\n"
    lie = " ".join(f'Found "{n}" in src/.' for n in names)
    verdict = check({"g": source}, lie)
    assert {v.value for v in verdict.violations if v.invariant == "I1"} == set(names[:11])
    honest = " ".join(f'No matches were found for "{n}".' for n in names[:11]) + f' Found "{names[11]}" in src/a.py.'
    assert_accepted(check({"g": source}, honest))
