"""Values stated per file, in the forms red team 137 found unscoped (F07, F12; docs/gate.md, I1
"values stated for one file").

Of config/a.yaml's ``retries: 3`` and config/b.yaml's ``retries: 5``, a summary giving each file
the other's value was accepted when it wrote the file's path from a drive or a URL, nested the
values under a list item of the name, put the files as a table's columns, keyed a JSON object by
them, wrote no separator ("retries 5"), listed values "respectively", put the key first
("retries: a.yaml=5") or the name in parentheses after the pair; and a base name two reads share
("app.yaml" of dev/ and prod/) scoped nothing, so a third file's value was accepted for it. Each
lie has an honest twin that stays accepted."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find, store_with, summary, tool

from provgate.gate import Gate, _file_scopes, _resource_name, _resource_names

A = "retries: 3\ntimeout: 30\nhost: db.internal\n"
B = "retries: 5\ntimeout: 30\nhost: db.internal\n"
# (the paths the summaries write, as tools list them: a path no source writes is I1's to refuse)
LS = ("$ find . -name '*.yaml'\n./config/a.yaml\n./config/b.yaml\nold/config/a.yaml\n"
      "C:\\repo\\config\\a.yaml C:\\repo\\config\\b.yaml C:/repo/config/a.yaml C:/repo/config/b.yaml\n"
      "/home/dev/repo/config/a.yaml ~/repo/config/b.yaml\n"
      "https://github.com/acme/app/blob/main/config/a.yaml https://github.com/acme/app/blob/main/config/b.yaml\n")
SOURCES = {"tool:read_a": A, "tool:read_b": B, "tool:ls": LS}
READS = [
    tool("ra", "tool:read_a", A, resource="file:config/a.yaml"),
    tool("rb", "tool:read_b", B, resource="file:config/b.yaml"),
    tool("ls", "tool:ls", LS),
]
ALL = ["tool:read_a", "tool:read_b", "tool:ls"]


def summarize(text: str, reads: list[dict] = READS, sources: dict[str, str] = SOURCES, derived_from=ALL):
    return Gate(store_with(sources)).check(reads, [summary("s", text, derived_from)], operator="summarize")


def swapped(text: str) -> str:
    """``text`` with the files' values swapped (3 <-> 5)."""
    return text.replace("3", "\0").replace("5", "3").replace("\0", "5")


# honest: each file its own value (the lie is each swapped)
HONEST = {
    "windows_path": "C:\\repo\\config\\a.yaml sets retries=3; C:\\repo\\config\\b.yaml sets retries=5.\n",
    "windows_forward": "C:/repo/config/a.yaml sets retries=3; C:/repo/config/b.yaml sets retries=5.\n",
    "absolute_path": "/home/dev/repo/config/a.yaml sets retries=3; ~/repo/config/b.yaml sets retries=5.\n",
    "url": ("https://github.com/acme/app/blob/main/config/a.yaml sets retries=3; "
            "https://github.com/acme/app/blob/main/config/b.yaml sets retries=5.\n"),
    "nested_list": "- config/a.yaml\n  - retries: 3\n- config/b.yaml\n  - retries: 5\n",
    "nested_list_bold": "* **config/a.yaml**:\n   * retries = 3\n   * timeout = 30\n* **config/b.yaml**:\n   * retries = 5\n",
    "nested_list_text": "- `config/a.yaml`\n    retries: 3\n\n- `config/b.yaml`\n    retries: 5\n",
    "table_columns": "| key | config/a.yaml | config/b.yaml |\n|---|---|---|\n| retries | 3 | 5 |\n| timeout | 30 | 30 |\n",
    "table_columns_code": "| Setting | `config/a.yaml` | `config/b.yaml` |\n| :-- | --: | --: |\n| `retries` | 3 | 5 |\n",
    "json": '{"config/a.yaml": {"retries": 3}, "config/b.yaml": {"retries": 5}}\n',
    "json_pretty": '{\n  "config/a.yaml": {\n    "retries": 3,\n    "timeout": 30\n  },\n  "config/b.yaml": {\n    "retries": 5\n  }\n}\n',
    "json_string_values": '{"config/a.yaml": {"retries": "3"}, "config/b.yaml": {"retries": "5"}}\n',
    "no_separator": "config/a.yaml: retries 3. config/b.yaml: retries 5.\n",
    "respectively": "config/a.yaml and config/b.yaml set retries to 3 and 5 respectively.\n",
    "respectively_pairs": "config/a.yaml and config/b.yaml set retries=3 and retries=5, respectively.\n",
    "key_first": "retries: config/a.yaml=3, config/b.yaml=5\n",
    "file_in_parentheses": "retries=3 (config/a.yaml), retries=5 (config/b.yaml)\n",
    "heading_then_prose": "## config/a.yaml\nThis file retries 3 times.\n## config/b.yaml\nThis file retries 5 times.\n",
}


@pytest.mark.parametrize("form", sorted(HONEST))
def test_a_files_value_in_its_form_is_accepted(form):
    assert_accepted(summarize(HONEST[form]))


@pytest.mark.parametrize("form", sorted(HONEST))
def test_each_file_given_the_others_value_is_refused(form):
    verdict = summarize(swapped(HONEST[form]))
    found = find(verdict, "I1", block="s", key="retries", value="5", evidence__change="value_of_another_file")
    assert found.evidence["resource"] == ["file:config/a.yaml"]
    assert found.evidence["file_values"] == ["3"]
    assert found.evidence["value_from"] == ["tool:read_b"]
    find(verdict, "I1", block="s", key="retries", value="3", evidence__change="value_of_another_file")


DIFF = ("diff --git a/config/a.yaml b/config/a.yaml\n--- a/config/a.yaml\n+++ b/config/a.yaml\n"
        "@@ -1 +1 @@\n-retries: 3\n+retries: 5\n")
ENV = "$ env | grep RETRIES\nRETRIES=5\n"


def with_source(handle: str, text: str):
    return [*READS, tool("x", handle, text)], {**SOURCES, handle: text}, [*ALL, handle]


@pytest.mark.parametrize("text", [
    "- config/a.yaml\n  - retries: 5 (after the edit)\n- config/b.yaml\n  - retries: 5\n",
    '{"config/a.yaml": {"retries": 5}, "config/b.yaml": {"retries": 5}}\n',
    "| key | config/a.yaml | config/b.yaml |\n|---|---|---|\n| retries | 5 | 5 |\n",
    "retries: config/a.yaml=5 (edited), config/b.yaml=5\n",
])
def test_a_value_a_later_diff_of_the_file_writes_is_the_files(text):
    assert_accepted(summarize(text, *with_source("tool:diff", DIFF)))
    find(summarize(text, *with_source("tool:diff", DIFF.replace("config/a.yaml", "config/c.yaml"))),
         "I1", value="5", evidence__change="value_of_another_file")


@pytest.mark.parametrize("text", [
    # an override, an inherited value, a comparison
    "- config/a.yaml\n  - retries: 3\n  - effective retries: 5 (env RETRIES)\n",
    "- config/a.yaml\n  - retries 3, overridden by the environment's RETRIES=5\n",
    "config/a.yaml: retries 3, unlike config/b.yaml (retries 5).\n",
    "config/a.yaml sets retries=3 (config/b.yaml: retries=5).\n",
    "config/a.yaml inherits retries=5 from config/b.yaml.\n",
    "retries=5 (config/b.yaml) vs retries=3 (config/a.yaml)\n",
    # a word before a number that is no key of the file
    "config/a.yaml: 3 keys, line 5 sets retries 3.\n",
    # the items under another list item are not the file's
    "- config/a.yaml\n  - retries: 3\n- the environment\n  - RETRIES=5\n",
    # a table whose first column names no key, a JSON object the name does not key
    "| config/a.yaml | config/b.yaml |\n|---|---|\n| 5 files | 3 files |\n",
    # a relative path with more before it is another file, as before
    "old/config/a.yaml sets retries=5.\n",
])
def test_honest_text_around_the_new_forms_is_accepted(text):
    assert_accepted(summarize(text, *with_source("tool:env", ENV)))


def test_a_nested_item_naming_another_file_ends_the_items_of_the_one_above():
    names = _resource_names({r: _resource_name(r) for r in ("file:config/a.yaml", "file:config/b.yaml")})
    a, b = frozenset({"file:config/a.yaml"}), frozenset({"file:config/b.yaml"})
    assert _file_scopes(b"- config/a.yaml\n  - retries: 3\n  - config/b.yaml\n    - retries: 5\n", names) == [
        (a, [(b"retries", b"3")]), (b, [(b"retries", b"5")])]
    # (a path one directory deeper, relative, names neither)
    assert _file_scopes(b"- x/config/a.yaml\n  - retries: 5\n", names) == []


def test_a_json_object_is_read_to_its_end_only():
    names = _resource_names({r: _resource_name(r) for r in ("file:config/a.yaml", "file:config/b.yaml")})
    text = b'{"config/a.yaml": {"retries": 3, "db": {"pool": 4}}, "retries": 5}\n'
    assert _file_scopes(text, names) == [(frozenset({"file:config/a.yaml"}), [(b"retries", b"3"), (b"pool", b"4")])]


# -- F12: a base name two reads share names one of them

DEV, PROD, OTHER = "retries: 3\n", "retries: 5\n", "retries: 7\n"
LS_SHARED = "$ ls config/*/ config/\nconfig/dev/app.yaml config/prod/app.yaml config/other.yaml\napp.yaml other.yaml\n"
SHARED = {"tool:dev": DEV, "tool:prod": PROD, "tool:other": OTHER, "tool:ls": LS_SHARED}
SHARED_READS = [tool("d", "tool:dev", DEV, resource="file:config/dev/app.yaml"),
                tool("p", "tool:prod", PROD, resource="file:config/prod/app.yaml"),
                tool("o", "tool:other", OTHER, resource="file:config/other.yaml"), tool("ls", "tool:ls", LS_SHARED)]


@pytest.mark.parametrize("text", [
    "In prod, app.yaml sets retries=5.\n",
    "In dev, app.yaml sets retries=3.\n",
    "- dev app.yaml: retries=3\n- prod app.yaml: retries=5\n",
    "app.yaml sets retries=3 in dev; other.yaml sets retries=7.\n",
])
def test_a_base_name_two_reads_share_is_given_the_value_of_either(text):
    assert_accepted(summarize(text, SHARED_READS, SHARED, list(SHARED)))


def test_a_base_name_two_reads_share_is_refused_a_value_neither_holds():
    verdict = summarize("app.yaml sets retries=7.\n", SHARED_READS, SHARED, list(SHARED))
    found = find(verdict, "I1", value="7", evidence__change="value_of_another_file")
    assert found.evidence["resource"] == ["file:config/dev/app.yaml", "file:config/prod/app.yaml"]
    assert found.evidence["file_values"] == ["3", "5"]
    assert found.evidence["value_from"] == ["tool:other"]


@pytest.mark.parametrize("honest", [
    "- dev app.yaml: retries=3\n- prod app.yaml: retries=5\n",
    "The prod `app.yaml` sets retries=5.\n",
    "prod/app.yaml sets retries=5; dev/app.yaml sets retries=3.\n",
])
def test_a_base_name_a_directory_qualifies_is_that_files(honest):
    assert_accepted(summarize(honest, SHARED_READS, SHARED, list(SHARED)))
    verdict = summarize(swapped(honest), SHARED_READS, SHARED, list(SHARED))
    found = find(verdict, "I1", value="3", evidence__change="value_of_another_file")
    assert found.evidence["resource"] == ["file:config/prod/app.yaml"]
    assert found.evidence["value_from"] == ["tool:dev"]


def test_a_word_before_a_base_name_that_names_no_one_directory_qualifies_nothing():
    # ("unlike dev" is a comparison: both names listed, the value either file's)
    assert_accepted(summarize("Unlike dev app.yaml, prod app.yaml sets retries=5.\n", SHARED_READS, SHARED, list(SHARED)))
    assert_accepted(summarize("- config app.yaml: retries=5\n", SHARED_READS, SHARED, list(SHARED)))


@pytest.mark.parametrize("honest, lie", [
    ("- config/a.yaml\n  - retries: 3\n  - the environment overrides it with RETRIES=5\n",
     "- config/a.yaml\n  - retries: 5\n  - the environment overrides it with RETRIES=5\n"),
    ("## config/a.yaml\nretries: 3, but the env sets RETRIES=5 at runtime\n",
     "## config/a.yaml\nretries: 5, but the env sets RETRIES=3 at runtime\n"),
    ("**config/a.yaml**:\n  retries=3\n  Effective: RETRIES=5 (env)\n",
     "**config/a.yaml**:\n  retries=5\n  Effective: RETRIES=5 (env)\n"),
])
def test_a_line_under_a_files_name_said_of_what_overrides_it_is_not_the_files(honest, lie):
    # (F08's rules for a clause, for the lines under a name: a line said of the environment, a
    # turn after a comma)
    assert_accepted(summarize(honest, *with_source("tool:env", ENV)))
    find(summarize(lie, *with_source("tool:env", ENV)), "I1", value="5", evidence__change="value_of_another_file")


@pytest.mark.parametrize("honest", [
    "[config/a.yaml](https://github.com/acme/app/blob/main/config/a.yaml) sets retries=3.\n",
    "- [`config/a.yaml`](https://github.com/acme/app/blob/main/config/a.yaml)\n  - retries: 3\n",
    "config/a.yaml (C:\\repo\\config\\a.yaml) sets retries=3.\n",
])
def test_a_files_name_and_its_url_or_path_right_after_it_are_one_name(honest):
    # (the URL a place of its own cut the clause the name opens before its values)
    assert_accepted(summarize(honest))
    find(summarize(swapped(honest)), "I1", value="5", evidence__change="value_of_another_file")
