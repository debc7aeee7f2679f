"""Values stated per file, the regressions red team 139 found in stop 59 (F04, F06; docs/gate.md,
I1 "values stated for one file").

F04: of config/dev/app.yaml's ``retries: 3`` and config/prod/app.yaml's ``retries: 5``, a swap
that names the directory right after the shared base name ("app.yaml (dev)", "app.yaml in dev",
"app.yaml for prod"), in a possessive ("Dev's app.yaml") or as a line's label ("dev: app.yaml")
was accepted, either file holding each value. F06: "config/a.yaml: retries 7 -> 3" read 7, the
value the file held before, as the file's and was refused. Each lie has an honest twin that
stays accepted."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find, store_with, summary, tool

from provgate.gate import Gate

DEV, PROD = "retries: 3\n", "retries: 5\n"
LS = "$ ls config/*/\nconfig/dev/app.yaml config/prod/app.yaml\n"
SHARED = {"tool:dev": DEV, "tool:prod": PROD, "tool:ls": LS}
SHARED_READS = [tool("d", "tool:dev", DEV, resource="file:config/dev/app.yaml"),
                tool("p", "tool:prod", PROD, resource="file:config/prod/app.yaml"), tool("ls", "tool:ls", LS)]


def summarize(text: str, reads: list[dict], sources: dict[str, str]):
    return Gate(store_with(sources)).check(reads, [summary("s", text, list(sources))], operator="summarize")


def swapped(text: str) -> str:
    """``text`` with the files' values swapped (3 <-> 5)."""
    return text.replace("3", "\0").replace("5", "3").replace("\0", "5")


# -- F04: a directory word right after a shared base name, or before it in a possessive or a label

QUALIFIED = {
    "parenthesis_after": "app.yaml (dev) has retries=3; app.yaml (prod) has retries=5.\n",
    "in_after": "app.yaml in dev: retries=3; app.yaml in prod: retries=5.\n",
    "for_after": "app.yaml for prod sets retries=5, app.yaml for dev sets retries=3.\n",
    "of_the_after": "The app.yaml of the prod tree sets retries=5.\n",
    # (case-blind: "Dev" names dev/)
    "possessive_before": "Dev's app.yaml: retries=3. Prod's app.yaml: retries=5.\n",
    "label_before": "dev: app.yaml retries=3\nprod: app.yaml retries=5\n",
}


@pytest.mark.parametrize("form", sorted(QUALIFIED))
def test_a_shared_base_name_a_directory_word_qualifies_is_given_its_own_value(form):
    assert_accepted(summarize(QUALIFIED[form], SHARED_READS, SHARED))


@pytest.mark.parametrize("form", sorted(QUALIFIED))
def test_a_shared_base_name_a_directory_word_qualifies_is_refused_the_other_files_value(form):
    verdict = summarize(swapped(QUALIFIED[form]), SHARED_READS, SHARED)
    found = find(verdict, "I1", block="s", key="retries", value="3", evidence__change="value_of_another_file")
    assert found.evidence["resource"] == ["file:config/prod/app.yaml"]
    assert found.evidence["value_from"] == ["tool:dev"]


@pytest.mark.parametrize("text", [
    # a word after that names no one directory qualifies nothing: either file's value
    "app.yaml in config sets retries=5.\n",
    "app.yaml (both trees) sets retries=3.\n",
    "app.yaml for the service sets retries=5.\n",
])
def test_a_word_after_a_shared_base_name_naming_no_one_directory_qualifies_nothing(text):
    assert_accepted(summarize(text, SHARED_READS, SHARED))


# -- F06: a value before an arrow is what the file held, the one after it what it holds

A, B, DEFAULTS = "retries: 3\ntimeout: 30\n", "retries: 5\ntimeout: 30\n", "retries: 7\n"
FILES = {"tool:a": A, "tool:b": B, "tool:d": DEFAULTS}
FILE_READS = [tool("a", "tool:a", A, resource="file:config/a.yaml"),
              tool("b", "tool:b", B, resource="file:config/b.yaml"),
              tool("d", "tool:d", DEFAULTS, resource="file:config/defaults.yaml")]


@pytest.mark.parametrize(("honest", "lie"), [
    ("config/a.yaml: retries 7 -> 3 (vs. defaults)\n", "config/a.yaml: retries 7 -> 5 (vs. defaults)\n"),
    ("config/a.yaml: retries 7 → 3 (overrides config/defaults.yaml)\n",
     "config/a.yaml: retries 7 → 5 (overrides config/defaults.yaml)\n"),
    ("config/a.yaml sets retries=7 => 3.\n", "config/a.yaml sets retries=7 => 5.\n"),
    ("- config/a.yaml\n  - retries: 7 -> 3\n", "- config/a.yaml\n  - retries: 7 -> 5\n"),
])
def test_the_value_after_an_arrow_is_the_files_now(honest, lie):
    assert_accepted(summarize(honest, FILE_READS, FILES))
    found = find(summarize(lie, FILE_READS, FILES), "I1", block="s", key="retries", value="5",
                 evidence__change="value_of_another_file")
    assert found.evidence["resource"] == ["file:config/a.yaml"]
    assert found.evidence["value_from"] == ["tool:b"]


def test_a_value_before_an_arrow_is_not_read_as_the_files():
    # (the old value another file holds is no lie about this one; a new value no file holds for
    # the key is left to grounding, as before)
    assert_accepted(summarize("config/a.yaml: retries 5 -> 3.\n", FILE_READS, FILES))
