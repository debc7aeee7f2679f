"""A file named by a tail of its read's path (docs/gate.md, I1 "a name the block's own reads
give their resource"; red team 137, F09).

A read file's tool output holds its contents, not its path; the read's ``resource`` says the
path, and grounded a summary naming the whole path only. Summaries shorten paths to the file's
name or a shorter path ("a.yaml", "dev/app.yaml", "./config/a.yaml"), which were refused as
identifiers and paths no source holds. A tail at a ``/`` of the path (or the path after ``./``)
of a read the block derives from is now its name; a tail cut inside a name, another directory,
a root, or a name no read's resource or text holds stays refused. Each lie has an honest twin."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find, store_with, summary, tool

from provgate.gate import (
    Gate,
    _file_scopes,
    _resource_name,
    _resource_name_text,
    _resource_names,
)

A = "retries: 3\n"
B = "retries: 5\n"
TWO_FILES = {"tool:read_a": ("file:config/a.yaml", A), "tool:read_b": ("file:config/b.yaml", B)}
TWO_DIRS = {"tool:dev": ("file:config/dev/app.yaml", A), "tool:prod": ("file:config/prod/app.yaml", B)}


def summarize(text: str, reads: dict[str, tuple[str | None, str]] = TWO_FILES):
    gate = Gate(store_with({h: t for h, (_, t) in reads.items()}))
    pre = [tool(f"r{i}", h, t, **({"resource": r} if r else {})) for i, (h, (r, t)) in enumerate(reads.items())]
    return gate.check(pre, [summary("s", text, list(reads))], operator="summarize")


# (lie: a name that is no tail of a read's path; honest: the tail a summary writes)
PAIRS = {
    "base_name": ("a.yaml retries=3, c.yaml retries=5\n", "a.yaml retries=3, b.yaml retries=5\n", "c.yaml"),
    "cut_inside_a_directory": ("onfig/a.yaml sets retries=3.\n", "config/a.yaml sets retries=3.\n", "onfig/a.yaml"),
    "cut_inside_a_directory_short": ("g/a.yaml sets retries=3.\n", "a.yaml sets retries=3.\n", "g/a.yaml"),
    "another_directory": ("prod/a.yaml sets retries=3.\n", "config/a.yaml sets retries=3.\n", "prod/a.yaml"),
    "dot_slash_of_a_tail": ("./a.yaml sets retries=3.\n", "./config/a.yaml sets retries=3.\n", "./a.yaml"),
    "rooted_tail": ("/config/a.yaml sets retries=3.\n", "./config/a.yaml sets retries=3.\n", "/config/a.yaml"),
    "rooted_name": ("/a.yaml sets retries=3.\n", "a.yaml sets retries=3.\n", "/a.yaml"),
    "longer_name": ("config/a.yaml.bak sets retries=3.\n", "config/a.yaml sets retries=3.\n", "config/a.yaml.bak"),
}


@pytest.mark.parametrize("form", sorted(PAIRS))
def test_a_name_no_read_path_ends_with_is_refused(form):
    lie, _, value = PAIRS[form]
    violation = find(summarize(lie), "I1", block="s", value=value)
    assert value in violation.message and "tool:read_a" in violation.message


@pytest.mark.parametrize("form", sorted(PAIRS))
def test_a_tail_of_a_read_path_is_grounded(form):
    _, honest, _ = PAIRS[form]
    assert_accepted(summarize(honest))


def test_shorter_paths_of_two_directories_are_grounded_and_a_third_is_not():
    assert_accepted(summarize("dev/app.yaml sets retries=3; prod/app.yaml sets retries=5.\n", TWO_DIRS))
    assert_accepted(summarize("Both app.yaml files set retries (3 in dev, 5 in prod).\n", TWO_DIRS))
    find(summarize("dev/app.yaml sets retries=3; test/app.yaml sets retries=5.\n", TWO_DIRS),
         "I1", block="s", value="test/app.yaml")


def test_a_base_name_is_grounded_by_a_resource_only():
    # (the same texts without resources: nothing names the files)
    untagged = {h: (None, t) for h, (_, t) in TWO_FILES.items()}
    find(summarize("a.yaml retries=3, b.yaml retries=5\n", untagged), "I1", block="s", value="a.yaml")
    assert_accepted(summarize("a.yaml retries=3, b.yaml retries=5\n"))


def test_a_tail_of_a_read_the_block_does_not_derive_from_is_refused():
    reads = [tool("ra", "tool:read_a", A, resource="file:config/a.yaml"),
             tool("rb", "tool:read_b", B, resource="file:config/b.yaml")]

    def summarize_a(text: str):
        gate = Gate(store_with({"tool:read_a": A, "tool:read_b": B}))
        return gate.check(reads, [summary("s", text, ["tool:read_a"]), reads[1]], operator="summarize")

    find(summarize_a("b.yaml sets retries=3.\n"), "I1", block="s", value="b.yaml")
    assert_accepted(summarize_a("a.yaml sets retries=3.\n"))


def test_values_swapped_between_two_shorter_paths_are_refused():
    # (tails grounded, a value stated for one is that file's: accepted once the tails were names)
    lie = summarize("dev/app.yaml sets retries=5; prod/app.yaml sets retries=3.\n", TWO_DIRS)
    found = find(lie, "I1", block="s", value="5", evidence__change="value_of_another_file")
    assert found.evidence["resource"] == ["file:config/dev/app.yaml"]
    assert_accepted(summarize("dev/app.yaml sets retries=3; prod/app.yaml sets retries=5.\n", TWO_DIRS))


def test_values_swapped_between_dot_slash_paths_and_base_names_are_refused():
    for lie, honest in [("./config/a.yaml sets retries=5; ./config/b.yaml sets retries=3.\n",
                         "./config/a.yaml sets retries=3; ./config/b.yaml sets retries=5.\n"),
                        ("a.yaml sets retries=5; b.yaml sets retries=3.\n",
                         "a.yaml sets retries=3; b.yaml sets retries=5.\n")]:
        find(summarize(lie), "I1", block="s", value="5", evidence__change="value_of_another_file")
        assert_accepted(summarize(honest))


def test_tails_shared_by_two_files_name_either():
    names = _resource_names({r: _resource_name(r) for r in ("file:x/config/app.yaml", "file:y/config/app.yaml")})
    # (a name both files end may name either: a value neither holds is no value of it, F12)
    both = frozenset(("file:x/config/app.yaml", "file:y/config/app.yaml"))
    assert names[b"config/app.yaml"] == (both, True) and names[b"app.yaml"] == (both, True)
    names = _resource_names({r: _resource_name(r) for r in ("file:config/dev/app.yaml", "file:config/prod/app.yaml")})
    assert names[b"dev/app.yaml"] == (frozenset({"file:config/dev/app.yaml"}), False)
    # a tail inside another file's path is no place of it ("config/dev/app.yaml" names dev's once)
    assert [r for r, _ in _file_scopes(b"config/dev/app.yaml: retries=3\n", names)] == [
        frozenset({"file:config/dev/app.yaml"})]


def test_the_names_of_a_resource():
    assert _resource_name_text("file:config/a.yaml") == b"x config/a.yaml\nx a.yaml\nx ./config/a.yaml\n"
    assert _resource_name_text("file:./config/a.yaml") == b"x ./config/a.yaml\nx a.yaml\nx config/a.yaml\n"
    # a root has no "./" form; a page's tag its path without the page
    assert b"./" not in _resource_name_text("file:/srv/app/etc/passwd")
    assert b"x etc/passwd\n" in _resource_name_text("file:/srv/app/etc/passwd")
    assert b"x conf/app.ini\n" in _resource_name_text("file:conf/app.ini#L1-200")
    # a URL's path and a command's argument are no file read
    assert _resource_name_text("https://example.com/docs/api.html").count(b"\n") == 1
    assert _resource_name_text("cmd:cat config/a.yaml").count(b"\n") == 1
    # "//" makes no rooted tail
    assert b"x /a.yaml" not in _resource_name_text("file:config//a.yaml")


def test_a_path_of_many_directories_names_its_last_tails_only():
    deep = "file:" + "d/" * 500_000 + "a.yaml"
    text = _resource_name_text(deep)
    assert len(text) < 5 * len(deep)
    assert b"x a.yaml\n" in text
