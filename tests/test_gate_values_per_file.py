"""Values stated per file (docs/gate.md, I1 "values stated for one file"; red team 135, F10).

A summary of two files' reads was grounded against both files together, so a value stated for
one file was accepted when the other file held it: "config/a.yaml sets retries=5; config/b.yaml
sets retries=3" of a.yaml's ``retries: 3`` and b.yaml's ``retries: 5``. A key=value stated within
a file's scope (the clause its name opens, its list item or table row, the section under a
heading naming it) must be a value that file's reads hold for the key. Each lie has an honest
twin that stays accepted."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find, of, store_with, summary, tool

from provgate.gate import Gate, _file_scopes, _resource_name, _resource_names

A = "retries: 3\ntimeout: 30\nhost: db.internal\n"
B = "retries: 5\ntimeout: 30\nhost: db.internal\n"
SOURCES = {"tool:read_a": A, "tool:read_b": B}
READS = [
    tool("ra", "tool:read_a", A, resource="file:config/a.yaml"),
    tool("rb", "tool:read_b", B, resource="file:config/b.yaml"),
]
BOTH = ["tool:read_a", "tool:read_b"]


def summarize(text: str, reads: list[dict] = READS, sources: dict[str, str] = SOURCES, derived_from=BOTH):
    gate = Gate(store_with(sources))
    return gate.check(reads, [summary("s", text, derived_from)], operator="summarize")


def rewrite(before: str, after: str):
    gate = Gate(store_with(SOURCES))
    return gate.check([*READS, summary("s", before, BOTH)], [*READS, summary("s", after, BOTH)], operator="rewrite")


# (lie: each file given the other's value; honest: each file its own)
FORMS = {
    "sentence": ("config/a.yaml sets retries=5; config/b.yaml sets retries=3.\n",
                 "config/a.yaml sets retries=3; config/b.yaml sets retries=5.\n"),
    "sentence_and": ("config/a.yaml sets retries to 5 and config/b.yaml sets retries to 3.\n",
                     "config/a.yaml sets retries to 3 and config/b.yaml sets retries to 5.\n"),
    "in_file_comma": ("In config/a.yaml, retries is 5. In config/b.yaml, retries is 3.\n",
                      "In config/a.yaml, retries is 3. In config/b.yaml, retries is 5.\n"),
    "sentence_comma": ("config/a.yaml sets retries=5, config/b.yaml sets retries=3.\n",
                       "config/a.yaml sets retries=3, config/b.yaml sets retries=5.\n"),
    "list": ("- config/a.yaml: retries: 5\n- config/b.yaml: retries: 3\n",
             "- config/a.yaml: retries: 3\n- config/b.yaml: retries: 5\n"),
    "list_bold": ("* **config/a.yaml** - retries=5, timeout=30\n* **config/b.yaml** - retries=3, timeout=30\n",
                  "* **config/a.yaml** - retries=3, timeout=30\n* **config/b.yaml** - retries=5, timeout=30\n"),
    "table": ("| file | retries | timeout |\n|---|---|---|\n| config/a.yaml | 5 | 30 |\n| config/b.yaml | 3 | 30 |\n",
              "| file | retries | timeout |\n|---|---|---|\n| config/a.yaml | 3 | 30 |\n| config/b.yaml | 5 | 30 |\n"),
    "headings": ("## config/a.yaml\n\nretries: 5\ntimeout: 30\n\n## config/b.yaml\n\nretries: 3\n",
                 "## config/a.yaml\n\nretries: 3\ntimeout: 30\n\n## config/b.yaml\n\nretries: 5\n"),
    "heading_list": ("# Configs\n## `config/a.yaml`\n- retries = 5\n## `config/b.yaml`\n- retries = 3\n",
                     "# Configs\n## `config/a.yaml`\n- retries = 3\n## `config/b.yaml`\n- retries = 5\n"),
    "name_lines": ("**config/a.yaml**:\n  retries=5\n**config/b.yaml**:\n  retries=3\n",
                   "**config/a.yaml**:\n  retries=3\n**config/b.yaml**:\n  retries=5\n"),
    "said_of_after": ("Retries is 5 in config/a.yaml. Retries is 3 in config/b.yaml.\n",
                      "Retries is 3 in config/a.yaml. Retries is 5 in config/b.yaml.\n"),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_value_stated_for_the_file_that_does_not_hold_it_is_refused(form):
    lie, _ = FORMS[form]
    verdict = summarize(lie)
    found = find(verdict, "I1", block="s", value="5", evidence__change="value_of_another_file")
    assert found.evidence["resource"] == ["file:config/a.yaml"]
    assert found.evidence["file_values"] == ["3"]
    assert found.evidence["value_from"] == ["tool:read_b"]
    assert "config/a.yaml" in found.message and "retries" in found.key.lower()
    find(verdict, "I1", block="s", value="3", evidence__change="value_of_another_file")


@pytest.mark.parametrize("form", sorted(FORMS))
def test_each_file_given_its_own_value_is_accepted(form):
    _, honest = FORMS[form]
    assert_accepted(summarize(honest))


def test_one_value_swapped_is_refused_alone():
    verdict = summarize("config/a.yaml sets retries=3; config/b.yaml sets retries=3.\n")
    found = find(verdict, "I1", block="s", key="retries", value="3", evidence__change="value_of_another_file")
    assert found.evidence["resource"] == ["file:config/b.yaml"]
    assert found.evidence["file_values"] == ["5"]
    assert len(of(verdict, "I1")) == 1


def test_each_summary_of_an_edit_is_held_to_its_files():
    # (the second summary is read after the first one's values were looked for in its files)
    gate = Gate(store_with(SOURCES))
    honest, lie = FORMS["sentence"][1], FORMS["sentence"][0]
    verdict = gate.check(READS, [summary("s1", honest, BOTH), summary("s2", lie, BOTH)], operator="summarize")
    find(verdict, "I1", block="s2", value="5", evidence__change="value_of_another_file")
    assert not [v for v in of(verdict, "I1") if v.block == "s1"]
    assert_accepted(Gate(store_with(SOURCES)).check(
        READS, [summary("s1", honest, BOTH), summary("s2", honest, BOTH)], operator="summarize"))


@pytest.mark.parametrize("text", [
    # a value both files hold alike
    "config/a.yaml sets timeout=30; config/b.yaml sets timeout=30.\n",
    "- config/a.yaml: host: db.internal\n- config/b.yaml: host: db.internal\n",
    # no file named: grounded in the sources together, as before
    "retries=3 in a file and retries=5 in the other; timeout=30 in each.\n",
    "| retries |\n|---|\n| 3 |\n| 5 |\n",
    # files named in passing
    "Read config/a.yaml and config/b.yaml. Retries differ: retries=3 and retries=5.\n",
    "After reading config/a.yaml, the agent found retries=5 in the other file.\n",
    "The files config/a.yaml and config/b.yaml set retries=3 and retries=5.\n",
    "Compared with config/b.yaml, retries=3 here.\n",
    "Compared with config/b.yaml, config/a.yaml sets retries=3.\n",
    "config/a.yaml (unlike config/b.yaml, with retries=5) sets retries=3.\n",
    # values before "from b.yaml" said of either file; values after a name in mid-clause of none
    "config/a.yaml overrides retries=5 from config/b.yaml with retries=3.\n",
    "retries=5 in config/b.yaml and retries=3 in config/a.yaml.\n",
    # a key the named file does not set
    "config/a.yaml sets timeout=30, as does the deploy file (with host: db.internal).\n",
])
def test_honest_summaries_naming_files_are_accepted(text):
    assert_accepted(summarize(text))


def test_a_file_whose_name_is_part_of_another_is_not_named():
    data = "retries: 3\n"
    other = "retries: 5\n"
    sources = {"tool:read_a": data, "tool:read_b": other}
    reads = [tool("ra", "tool:read_a", data, resource="file:data.yaml"),
             tool("rb", "tool:read_b", other, resource="file:a.yaml")]
    # "data.yaml" names data.yaml, not a.yaml: its retries=3 is data.yaml's own
    assert_accepted(summarize("data.yaml sets retries=3; a.yaml sets retries=5.\n", reads, sources))
    # ...and the lie is still found for both
    verdict = summarize("data.yaml sets retries=5; a.yaml sets retries=3.\n", reads, sources)
    assert find(verdict, "I1", value="5", evidence__change="value_of_another_file").evidence["resource"] == ["file:data.yaml"]
    assert find(verdict, "I1", value="3", evidence__change="value_of_another_file").evidence["resource"] == ["file:a.yaml"]
    # a backup, a longer path, a name glued to more is another file
    names = _resource_names({r: _resource_name(r) for r in ["file:config/a.yaml", "file:config/b.yaml"]})
    for text in (b"config/a.yaml.bak sets retries=5.\n", b"old/config/a.yaml sets retries=5.\n",
                 b"config/a.yaml_v2 sets retries=5.\n", b"my-config/a.yaml sets retries=5.\n"):
        assert _file_scopes(text, names) == [], text
    assert _file_scopes(b"config/a.yaml. It sets retries=5.\n", names) == []
    assert _file_scopes(b"(config/a.yaml) sets retries=5.\n", names) == [
        (frozenset({"file:config/a.yaml"}), [(b"retries", b"5")])]


def test_a_value_from_a_source_without_a_file_is_refused_for_the_file():
    out = "$ env | grep RETRIES\nretries=5\n"
    sources = {"tool:read_a": A, "tool:env": out}
    reads = [READS[0], tool("env", "tool:env", out)]
    verdict = summarize("config/a.yaml sets retries=5.\n", reads, sources, ["tool:read_a", "tool:env"])
    found = find(verdict, "I1", value="5", evidence__change="value_of_another_file")
    assert found.evidence["value_from"] == ["tool:env"]
    assert_accepted(summarize("config/a.yaml sets retries=3; the environment sets retries=5.\n", reads, sources,
                              ["tool:read_a", "tool:env"]))


def test_two_reads_of_one_file_each_ground_its_values():
    new = "retries: 4\ntimeout: 30\nhost: db.internal\n"
    sources = {**SOURCES, "tool:read_a2": new}
    reads = [*READS, tool("ra2", "tool:read_a2", new, resource="file:config/a.yaml")]
    handles = [*BOTH, "tool:read_a2"]
    assert_accepted(summarize("config/a.yaml sets retries=4 (it was retries=3); config/b.yaml sets retries=5.\n",
                              reads, sources, handles))
    verdict = summarize("config/a.yaml sets retries=5.\n", reads, sources, handles)
    found = find(verdict, "I1", value="5", evidence__change="value_of_another_file")
    assert found.evidence["file_values"] == ["3", "4"]


def test_a_rewrite_of_the_block_is_held_to_each_file():
    # a summary's swapped table put as headings by a rewrite: refused (the table was accepted
    # before the rule; its rewrite is a new text of the block, held to each file)
    find(rewrite(FORMS["table"][0], FORMS["headings"][0]), "I1", value="5", evidence__change="value_of_another_file")
    assert_accepted(rewrite(FORMS["sentence"][1], FORMS["sentence"][1] + "Both were read.\n"), "lossless")


def test_a_source_read_with_a_url_is_named_by_it():
    a, b = "retries=3\n", "retries=5\n"
    sources = {"tool:get_a": a, "tool:get_b": b}
    reads = [tool("ga", "tool:get_a", a, resource="url:https://example.com/a.conf"),
             tool("gb", "tool:get_b", b, resource="url:https://example.com/b.conf")]
    handles = ["tool:get_a", "tool:get_b"]
    verdict = summarize("https://example.com/a.conf sets retries=5.\n", reads, sources, handles)
    find(verdict, "I1", value="5", evidence__change="value_of_another_file")
    assert_accepted(summarize("https://example.com/a.conf sets retries=3.\n", reads, sources, handles))


def test_a_summary_of_reads_that_left_the_window_names_them_from_the_log():
    # (reads whose output names their file: a summary of a summary names them from the text)
    a, b = "# config/a.yaml\nretries: 3\n", "# config/b.yaml\nretries: 5\n"
    gate = Gate(store_with({"tool:read_a": a, "tool:read_b": b}))
    reads = [tool("ra", "tool:read_a", a, resource="file:config/a.yaml"),
             tool("rb", "tool:read_b", b, resource="file:config/b.yaml")]
    first = [summary("s0", "Read both configs.\n", BOTH)]
    assert_accepted(gate.check(reads, first, operator="summarize", commit=True))
    verdict = gate.check(first, [summary("s1", "config/a.yaml sets retries=5; config/b.yaml sets retries=3.\n", BOTH)],
                         operator="summarize")
    find(verdict, "I1", value="5", evidence__change="value_of_another_file")
    assert_accepted(gate.check(first, [summary("s1", FORMS["sentence"][1], BOTH)], operator="summarize"))


# -- red team 137, F08: honest summaries of a file's value after its read, and of what overrides it

DIFF = ("diff --git a/config/a.yaml b/config/a.yaml\n--- a/config/a.yaml\n+++ b/config/a.yaml\n"
        "@@ -1 +1 @@\n-retries: 3\n+retries: 5\n")
ENV = "$ env | grep RETRIES\nRETRIES=5\n"


def with_source(handle: str, text: str):
    """(reads, sources, derived_from) of the two files' reads and ``text`` under ``handle``."""
    return [*READS, tool("x", handle, text)], {**SOURCES, handle: text}, [*BOTH, handle]


@pytest.mark.parametrize("text", [
    "config/a.yaml now sets retries=5 (was 3), matching config/b.yaml.\n",
    "- config/a.yaml: retries=5 after the edit\n- config/b.yaml: retries=5\n",
])
def test_a_value_a_diff_of_the_file_writes_is_the_files(text):
    assert_accepted(summarize(text, *with_source("tool:diff", DIFF)))
    # (a diff of another file writes no value for config/a.yaml)
    other = DIFF.replace("config/a.yaml", "config/c.yaml")
    find(summarize(text, *with_source("tool:diff", other)), "I1", value="5", evidence__change="value_of_another_file")


def test_a_tool_output_naming_several_files_gives_each_the_lines_after_its_name():
    grep = "config/a.yaml:1:retries: 3\nconfig/b.yaml:1:retries: 5\n"
    assert_accepted(summarize("config/a.yaml sets retries=3.\n", *with_source("tool:grep", grep)))
    find(summarize("config/a.yaml sets retries=5.\n", *with_source("tool:grep", grep)),
         "I1", value="5", evidence__change="value_of_another_file")
    # (a file the block does not read ends the stretch too: config/c.yaml's 5 is not config/a.yaml's)
    grep = "config/a.yaml:1:retries: 3\nconfig/c.yaml:1:retries: 5\n"
    find(summarize("config/a.yaml sets retries=5.\n", *with_source("tool:grep", grep)),
         "I1", value="5", evidence__change="value_of_another_file")


@pytest.mark.parametrize("turn", ["but", "while", "whereas", "however", "although", "unlike"])
def test_a_files_clause_ends_at_a_comma_before_a_turn(turn):
    honest = f"config/a.yaml sets retries=3, {turn} the environment's RETRIES=5 overrides it.\n"
    assert_accepted(summarize(honest, *with_source("tool:env", ENV)))
    lie = f"config/a.yaml sets retries=5, {turn} the environment's RETRIES=3 overrides it.\n"
    find(summarize(lie, *with_source("tool:env", ENV)), "I1", value="5", evidence__change="value_of_another_file")


def test_a_comma_alone_does_not_end_a_files_clause():
    find(summarize("config/a.yaml sets timeout=30, retries=5.\n", *with_source("tool:env", ENV)),
         "I1", value="5", evidence__change="value_of_another_file")


@pytest.mark.parametrize("word", ["effective", "actual", "runtime", "env"])
def test_a_value_said_to_be_in_effect_is_not_the_files(word):
    honest = f"- config/a.yaml: retries=3, {word} retries=5 (env RETRIES)\n"
    assert_accepted(summarize(honest, *with_source("tool:env", ENV)))
    lie = f"- config/a.yaml: retries=5, {word} retries=5 (env RETRIES)\n"
    find(summarize(lie, *with_source("tool:env", ENV)), "I1", value="5", evidence__change="value_of_another_file")
    # (the word must be whole: "ineffective" says nothing of an override)
    find(summarize("- config/a.yaml: an ineffective retries=5\n", *with_source("tool:env", ENV)),
         "I1", value="5", evidence__change="value_of_another_file")


def test_a_path_written_from_dot_slash_names_the_file():
    # (red team 137, F07: the paths as a find lists them)
    found = with_source("tool:ls", "$ find . -name '*.yaml'\n./config/a.yaml\n./config/b.yaml\n")
    find(summarize("./config/a.yaml sets retries=5; ./config/b.yaml sets retries=3.\n", *found),
         "I1", value="5", evidence__change="value_of_another_file")
    assert_accepted(summarize("./config/a.yaml sets retries=3; ./config/b.yaml sets retries=5.\n", *found))
    names = _resource_names({r: _resource_name(r) for r in ("file:config/a.yaml", "file:config/b.yaml")})
    assert _file_scopes(b"x/config/a.yaml sets retries=5.\n", names) == []
    assert _file_scopes(b"../config/a.yaml sets retries=5.\n", names) == []
