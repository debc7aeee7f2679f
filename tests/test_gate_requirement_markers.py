"""An environment marker keeps its string comparisons (red team 118, F22; docs/gate.md,
"Requirements"): ``requests[socks]==2.31.0 ; sys_platform == 'linux'`` -> ``… sys_platform !=
'linux'`` was accepted as a rewrite and as a summary, the requirement pattern wanting a digit after
the comparison. A version compared in a marker (``python_version < '3.8'``) was read already. Run
natively and with PROVGATE_NO_EXTENSIONS=1 (the suite runs once each way)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_gate_requirement_extras import rewrite, summarize

from provgate.gate import _marked_requirements, _requirements


def changed(v) -> list:
    return [x for x in v.violations if (x.evidence or {}).get("change") == "requirement_changed"]


LIES = [  # (source, lie, the marker variable's key)
    ("requests[socks]==2.31.0 ; sys_platform == 'linux'\n", "requests[socks]==2.31.0 ; sys_platform != 'linux'\n",
     "sys-platform"),
    ('pywin32==306; platform_system == "Windows"\n', 'pywin32==306; platform_system != "Windows"\n',
     "platform-system"),
    ('pywin32==306; platform_system == "Windows"\n', 'pywin32==306; platform_system == "Linux"\n',
     "platform-system"),
    ("uvloop==0.19.0; sys_platform != 'win32'\n", "uvloop==0.19.0; sys_platform == 'win32'\n", "sys-platform"),
    ("x==1; 'linux' in sys_platform\n", "x==1; 'linux' not in sys_platform\n", "sys-platform"),
    ("x==1; platform_machine == 'x86_64'\n", "x==1; platform_machine == 'aarch64'\n", "platform-machine"),
    ("x==1; os_name == 'nt'\n", "x==1; os_name != 'nt'\n", "os-name"),
    ("x==1; implementation_name == 'cpython'\n", "x==1; implementation_name != 'cpython'\n", "implementation-name"),
    ("x==1; extra == 'socks'\n", "x==1; extra != 'socks'\n", "extra"),
]


@pytest.mark.parametrize("source, lie, key", LIES)
def test_a_marker_string_comparison_changed_is_refused(source, lie, key):
    v = rewrite(source, lie)
    assert not v.accepted
    find(v, "I2", block="b1", key=key, evidence__change="requirement_changed")
    v = summarize(source, "Needs " + lie)
    assert not v.accepted
    find(v, "I1", block="s1", key=key, evidence__change="requirement_changed")


HONEST = [
    ("requests[socks]==2.31.0 ; sys_platform == 'linux'\n", "requests[socks]==2.31.0; sys_platform == 'linux'\n"),
    ("requests[socks]==2.31.0 ; sys_platform == 'linux'\n", 'requests[socks]==2.31.0 ; sys_platform=="linux"\n'),
    ('pywin32==306; platform_system == "Windows"\n', "pywin32==306; 'Windows' == platform_system\n"),
    ("x==1; 'linux' in sys_platform\n", "x==1;  'linux'  in  sys_platform\n"),
    ('pywin32==306; platform_system == "Windows"\n', "pywin32==306; platform.system == 'Windows'\n"),  # (legacy)
]


@pytest.mark.parametrize("source, text", HONEST)
def test_a_marker_kept_is_accepted(source, text):
    v = rewrite(source, text)
    assert not changed(v), v.violations
    v = summarize(source, "Needs " + text)
    assert not changed(v), v.violations


@pytest.mark.parametrize("source, text", [
    ('pywin32==306; platform_system == "Windows"\n', "Needs pywin32==306 on Windows.\n"),   # (the marker left out)
    ('pywin32==306; platform_system == "Windows"\n', "Needs pywin32==306.\n"),
    ('if name == "main": run()\n', 'if name != "main": run()\n'),   # (no marker variable: the facts' to judge)
])
def test_the_marker_rule_refuses_no_omission_nor_other_code(source, text):
    assert not changed(summarize(source, text))


def test_markers_are_read_from_either_side():
    assert _requirements(b"x; sys_platform == 'linux'") == {(b"sys-platform", b"", b"==", b"linux"): "sys_platform == 'linux'"}
    assert _requirements(b"x; 'linux' == sys_platform") == {(b"sys-platform", b"", b"==", b"linux"): "'linux' == sys_platform"}
    assert _requirements(b"x; 'a' < os_name")[(b"os-name", b"", b">", b"a")] == "'a' < os_name"
    # "'linux' in sys_platform" is no "sys_platform in 'linux'"
    assert set(_requirements(b"x; 'linux' in sys_platform")) != set(_requirements(b"x; sys_platform in 'linux'"))
    assert _requirements(b'if x == "foo": pass') == {}
    # (a version compared is the requirement pattern's, read once)
    assert _requirements(b"x; python_version < '3.9'") == {(b"python-version", b"", b"<", b"3.9"): "python_version < '3.9'"}


# red team 120, F05 and F08: a marker is read whole and joined to its own requirement ----------------

TWO = "requests==2.31.0; sys_platform == 'linux'\npywin32==306; sys_platform == 'win32'\n"


def assert_marker_moved_refused(source: str, lie: str) -> None:
    """Refused for its marker, as I2 rewritten and as I1 summarized."""
    v = rewrite(source, lie)
    assert not v.accepted
    assert marked(v) and {x.invariant for x in marked(v)} == {"I2"}, v.violations
    v = summarize(source, lie)
    assert not v.accepted
    assert marked(v) and {x.invariant for x in marked(v)} == {"I1"}, v.violations


def marked(v) -> list:
    return [x for x in changed(v) if "marker" in (x.evidence or {})]


@pytest.mark.parametrize("source, lie", [
    (TWO, "requests==2.31.0; sys_platform == 'win32'\npywin32==306; sys_platform == 'linux'\n"),   # F05
    (TWO, "pywin32==306; sys_platform == 'linux'\nrequests==2.31.0; sys_platform == 'win32'\n"),   # (and reordered)
    ("a==1; sys_platform == 'linux'\na==2; sys_platform == 'win32'\n",
     "a==2; sys_platform == 'linux'\na==1; sys_platform == 'win32'\n"),       # (the versions swapped instead)
    ("foo==1; python_version < '3.8' and sys_platform == 'linux'\n",
     "foo==1; python_version < '3.8' or sys_platform == 'linux'\n"),          # F08: and -> or
    ("foo==1; python_version < '3.8' or sys_platform == 'linux'\n",
     "foo==1; python_version < '3.8' and sys_platform == 'linux'\n"),         # or -> and
    ("foo==1; (python_version < '3.8' or os_name == 'nt') and sys_platform == 'linux'\n",
     "foo==1; python_version < '3.8' or os_name == 'nt' and sys_platform == 'linux'\n"),   # a bracket dropped
    ("foo; python_version >= '3.8' and extra == 'a'\n", "foo; python_version >= '3.8' or extra == 'a'\n"),
])
def test_a_marker_moved_between_requirements_or_regrouped_is_refused(source, lie):
    assert_marker_moved_refused(source, lie)


@pytest.mark.parametrize("source, text", [
    (TWO, "requests==2.31.0 ; sys_platform=='linux'\npywin32==306 ; sys_platform=='win32'\n"),     # re-spaced
    (TWO, "pywin32==306; sys_platform == 'win32'\nrequests==2.31.0; sys_platform == 'linux'\n"),   # reordered
    (TWO, 'requests==2.31.0;sys_platform=="linux"\npywin32==306;sys_platform=="win32"\n'),        # quotes
    (TWO, "requests==2.31.0; 'linux' == sys_platform\npywin32==306; sys_platform == 'win32'\n"),   # mirrored
    ("foo==1; python_version < '3.8' and sys_platform == 'linux'\n",
     "foo==1; sys_platform == 'linux' and python_version < '3.8'\n"),         # clauses of one `and` reordered
    ("foo==1; python_version < '3.8' and sys_platform == 'linux'\n",
     "foo==1; (python_version < '3.8') and (sys_platform == 'linux')\n"),     # brackets that group nothing
    ("foo==1; (a_x == 'b' or os_name == 'nt') and sys_platform == 'linux'\n".replace("a_x", "extra"),
     "foo==1; sys_platform == 'linux' and (os_name == 'nt' or extra == 'b')\n"),
])
def test_a_marker_kept_with_its_requirement_is_accepted(source, text):
    assert_accepted(rewrite(source, text))
    assert_accepted(summarize(source, text))


def test_a_summary_keeping_one_requirement_whole_is_accepted():
    assert_accepted(summarize(TWO, "Only requests==2.31.0; sys_platform == 'linux' is needed here.\n"))
    assert_accepted(summarize(TWO, "pywin32==306; sys_platform == 'win32'\n"))
    # (a marker with fewer clauses of its requirement: a lossy edit's)
    assert_accepted(summarize("requests>=2.31,<3; sys_platform == 'linux'\n",
                              "requests>=2.31; sys_platform == 'linux'\n"))
    v = summarize("requests>=2.31,<3; sys_platform == 'linux'\n", "requests>=2.31; sys_platform == 'win32'\n")
    assert not v.accepted


def test_marked_requirements_are_read_whole():
    key = _marked_requirements(b"foo==1; python_version < '3.8' and sys_platform == 'linux'\n")
    assert list(key) == [(b"foo", b"", ((b"==", b"1"),), b"(python-version < '3.8' and sys-platform == 'linux')")]
    assert set(_marked_requirements(b"foo==1; sys_platform=='linux' and python_version<\"3.8\"")) == set(key)
    assert set(_marked_requirements(b"foo==1; python_version < '3.8' or sys_platform == 'linux'")) != set(key)
    # (the grouping is the tree: `a or b and c` is `a or (b and c)`, not `(a or b) and c`)
    grouped = _marked_requirements(b"x==1; (os_name == 'nt' or extra == 'a') and sys_platform == 'linux'")
    assert set(grouped) != set(_marked_requirements(b"x==1; os_name == 'nt' or extra == 'a' and sys_platform == 'linux'"))
    assert set(_marked_requirements(b"x==1; os_name == 'nt' or (extra == 'a' and sys_platform == 'linux')")) == set(
        _marked_requirements(b"x==1; os_name == 'nt' or extra == 'a' and sys_platform == 'linux'"))
    # a pyproject list's item ends at its string's quote; prose after a marker is no part of it
    found = _marked_requirements(b'deps = [\n  "pywin32>=306; sys_platform == \'win32\'",\n]\n')
    assert list(found.values()) == ["pywin32>=306; sys_platform == 'win32'"]
    found = _marked_requirements(b"Needs requests; os_name == 'nt' and then some.")
    assert list(found.values()) == ["requests; os_name == 'nt'"]
    assert _marked_requirements(b"a; b == 'c'") == {} and _marked_requirements(b"x==1\ny==2") == {}


# red team 123, F10: a marker written as a TOML inline table's key beside its version (Poetry,
# a Pipfile; Poetry's "python" and "platform" constraints) is tied to the table's key, the package
POETRY = ("[tool.poetry.dependencies]\n"
          "requests = { version = \"2.31.0\", markers = \"python_version >= '3.8'\" }\n"
          "urllib3 = { version = \"1.26.18\", markers = \"python_version < '3.8'\" }\n")
PIPFILE = ("[packages]\n"
           "requests = {version = \"==2.31.0\", markers = \"python_version >= '3.8'\"}\n"
           "urllib3 = {version = \"==1.26.18\", markers = \"python_version < '3.8'\"}\n")
STANDARD = ("[tool.poetry.dependencies.requests]\nversion = \"2.31.0\"\nmarkers = \"python_version >= '3.8'\"\n\n"
            "[tool.poetry.dependencies.urllib3]\nversion = \"1.26.18\"\nmarkers = \"python_version < '3.8'\"\n")
CONSTRAINTS = ("[tool.poetry.dependencies]\n"
               "foo = [\n    {version = \"<=1.9\", python = \">=3.6,<3.8\"},\n    {version = \"^2.0\", python = \">=3.8\"}\n]\n")

REORDERED = ("[tool.poetry.dependencies]\n"
             "requests = { version = \"2.31.0\", python = \">=3.8,<4.0\" }\n"
             "urllib3 = { version = \"1.26.18\", python = \"<3.8\" }\n")


def test_a_python_constraint_changed_in_a_table_is_refused():
    # (red team 125, F12's control: the clause set is compared, not dropped)
    v = rewrite(REORDERED, REORDERED.replace('">=3.8,<4.0"', '"<3.10,>=3.8"'))
    assert not v.accepted
    find(v, "I2", block="b1", evidence__change="requirement_changed")


def test_a_python_constraint_is_keyed_as_a_set_of_clauses():
    from provgate.gate import _constraint_set

    assert _constraint_set(b">=3.8,<4.0") == _constraint_set(b"<4.0, >=3.8") == _constraint_set(b"<4,>=3.8.0")
    assert _constraint_set(b">=2.7,<2.8 || >=3.4") == _constraint_set(b">=3.4 || <2.8,>=2.7")
    assert _constraint_set(b">=3.8,<4.0") != _constraint_set(b">=3.8,<3.10")
    assert _constraint_set(b">=3.8,<4.0") != _constraint_set(b">=3.8 || <4.0")  # (an "or" is no "and")
    assert _constraint_set(b"linux") == b"linux" and _constraint_set(b"^3.8") == b"^3.8"
    # (red team 127, F05: clauses joined by blanks, "|" for "||", and "^"/"~" alternatives are
    # sets too; clauses swapped across alternatives, a hyphen range's ends swapped, are not)
    assert _constraint_set(b">=3.8 <4.0 || >=2.7 <3.0") == _constraint_set(b"<4.0 >=3.8 | <3.0,>=2.7")
    assert _constraint_set(b">= 3.8 < 4.0") == _constraint_set(b">=3.8,<4.0") != _constraint_set(b">=3.8 || <4.0")
    assert _constraint_set(b"^2.7 || ^3.8") == _constraint_set(b"^3.8||^2.7") != _constraint_set(b"^2.7 || ~3.8")
    assert _constraint_set(b">=3.8 <3.0 || >=2.7 <4.0") != _constraint_set(b">=3.8 <4.0 || >=2.7 <3.0")
    assert _constraint_set(b"1.2 - 2.0") != _constraint_set(b"2.0 - 1.2")

# red team 126, F11: Poetry's "||" alternatives are a set of sets: reordered, the same
ALTERNATIVES = ("[tool.poetry.dependencies]\n"
                "requests = { version = \"2.31.0\", python = \">=3.8,<4.0 || >=2.7,<3.0\" }\n")


@pytest.mark.parametrize("written", [
    ">=2.7,<3.0 || >=3.8,<4.0",          # the alternatives reordered
    "<4.0,>=3.8 || >=2.7,<3.0",          # the clauses reordered inside one alternative
    "<3.0,>=2.7||<4.0, >=3.8",           # both, re-spaced
    ">=2.7,<3.0 | >=3.8,<4.0",           # Poetry's single "|" (red team 127, F05)
    "<4.0 >=3.8 | <3.0 >=2.7",           # clauses joined by blanks, reordered (F05)
])
def test_poetry_alternatives_reordered_are_accepted(written):
    for edit in (rewrite, summarize):
        assert_accepted(edit(ALTERNATIVES, ALTERNATIVES.replace(">=3.8,<4.0 || >=2.7,<3.0", written)))


@pytest.mark.parametrize("written", [
    ">=3.8,<3.0 || >=2.7,<4.0",          # clauses swapped across the alternatives
    ">=2.7,<4.0 || >=3.8,<3.0",          # the same, reordered
    ">=3.8,<4.0 || >=2.6,<3.0",          # the second alternative changed
    ">=3.8,<3.0 | >=2.7,<4.0",           # swapped across "|" alternatives (red team 127, F05)
    ">=3.8 <3.0 || >=2.7 <4.0",          # swapped across alternatives of clauses joined by blanks
])
def test_poetry_alternatives_changed_are_refused(written):
    lie = ALTERNATIVES.replace(">=3.8,<4.0 || >=2.7,<3.0", written)
    v = rewrite(ALTERNATIVES, lie)
    assert not v.accepted
    find(v, "I2", block="b1", evidence__change="requirement_changed")
    v = summarize(ALTERNATIVES, lie)
    assert not v.accepted
    assert [x for x in changed(v) if x.invariant == "I1"], v.violations


def test_poetry_alternatives_are_keyed_as_a_set_of_clause_sets():
    from provgate.gate import _requirement_stated

    key, = _requirements(b'python = ">=3.8,<4.0 || >=2.7,<3.0"')
    assert (key,) == tuple(_requirements(b'python = ">=2.7, <3.0 || <4,>=3.8.0"'))
    assert key != next(iter(_requirements(b'python = ">=3.8,<3.0 || >=2.7,<4.0"')))
    # (a lossy edit may name one alternative's clauses, never clauses of two, nor drop an "||")
    one, = _requirements(b"python>=2.7,<3.0")
    mixed, = _requirements(b"python>=3.8,<3.0")
    assert _requirement_stated(one, {key}, True) and not _requirement_stated(one, {key}, False)
    assert not _requirement_stated(mixed, {key}, True)
    assert not _requirement_stated(key, {one}, True)


# red team 125, F07: a Pipfile's marker variables as keys, and an inline table across lines
PIPFILE_KEYS = ("[packages]\n"
                "requests = {version = \"==2.31.0\", sys_platform = \"== 'win32'\"}\n"
                "urllib3 = {version = \"==1.26.18\", sys_platform = \"!= 'win32'\"}\n")
MULTI_LINE = ("[tool.poetry.dependencies]\n"
              "requests = {\n  version = \"2.31.0\",\n  markers = \"python_version >= '3.8'\"\n}\n"
              "urllib3 = {\n  version = \"1.26.18\",\n  markers = \"python_version < '3.8'\"\n}\n")


def _swapped(text: str, a: str, b: str) -> str:
    return text.replace(a, "\0").replace(b, a).replace("\0", b)


@pytest.mark.parametrize("source, lie", [
    (POETRY, _swapped(POETRY, ">= '3.8'", "< '3.8'")),
    (PIPFILE, _swapped(PIPFILE, ">= '3.8'", "< '3.8'")),
    (CONSTRAINTS, _swapped(CONSTRAINTS, '">=3.6,<3.8"', '">=3.8"')),                 # Poetry's python constraints
    (STANDARD, _swapped(STANDARD, ">= '3.8'", "< '3.8'")),                            # standard tables
    (PIPFILE_KEYS, _swapped(PIPFILE_KEYS, "== 'win32'", "!= 'win32'")),                # a Pipfile's marker keys
    (PIPFILE_KEYS.replace("sys_platform", "os_name").replace("\"==1.26.18\"", "\"==1.26.18\", python_version = \">= '3'\""),
     _swapped(PIPFILE_KEYS.replace("sys_platform", "os_name").replace(
         "\"==1.26.18\"", "\"==1.26.18\", python_version = \">= '3'\""), "== 'win32'", "!= 'win32'")),
    (MULTI_LINE, _swapped(MULTI_LINE, ">= '3.8'", "< '3.8'")),                      # a table across lines
    ("[packages]\nfoo = {version = \"*\", platform = \"linux\"}\nbar = {version = \"*\", platform = \"darwin\"}\n",
     "[packages]\nfoo = {version = \"*\", platform = \"darwin\"}\nbar = {version = \"*\", platform = \"linux\"}\n"),
])
def test_a_marker_moved_between_table_requirements_is_refused(source, lie):
    assert_marker_moved_refused(source, lie)


@pytest.mark.parametrize("source, text, edits", [
    (POETRY, ("[tool.poetry.dependencies]\n"                                          # rows and keys reordered
              "urllib3 = { markers = \"python_version < '3.8'\", version = \"1.26.18\" }\n"
              "requests = { version = \"2.31.0\", markers = \"python_version >= '3.8'\" }\n"), (rewrite, summarize)),
    (POETRY, POETRY.replace(" = { ", "={").replace(" }", "}"), (rewrite, summarize)),   # re-spaced
    (STANDARD, "\n\n".join(STANDARD.split("\n\n")[::-1]) + "\n", (rewrite, summarize)),  # tables reordered
    (PIPFILE, PIPFILE.replace(" = {", " = { ").replace("'\"}", "'\" }"), (rewrite, summarize)),
    (CONSTRAINTS, CONSTRAINTS.replace("    {version = \"<=1.9\", python = \">=3.6,<3.8\"},\n", "")
     .replace("{version = \"^2.0\", python = \">=3.8\"}", "{version = \"^2.0\", python = \">=3.8\"},\n"
              "    {version = \"<=1.9\", python = \">=3.6,<3.8\"}"), (summarize,)),  # the array reordered
    (POETRY, "requests 2.31.0 is for python >= 3.8; urllib3 1.26.18 for python < 3.8.\n", (summarize,)),  # prose
    (POETRY, "urllib3 = { version = \"1.26.18\", markers = \"python_version < '3.8'\" }\n", (summarize,)),  # one kept
    (PIPFILE_KEYS, "\n".join(PIPFILE_KEYS.splitlines()[::-1][:-1]) + "\n[packages]\n", (summarize,)),  # rows reordered
    (PIPFILE_KEYS, PIPFILE_KEYS.replace(" = {", " = { ").replace("'\"}", "'\" }"), (rewrite, summarize)),  # re-spaced
    (MULTI_LINE, "\n".join(MULTI_LINE.split("\n")[5:]) + "\n".join(MULTI_LINE.split("\n")[:5]) + "\n", (summarize,)),
    (MULTI_LINE, MULTI_LINE.replace(",\n  markers", ", markers"), (rewrite, summarize)),
    # (red team 125, F12: Poetry's python constraint is a set of clauses: reordered, the same)
    (REORDERED, REORDERED.replace('">=3.8,<4.0"', '"<4.0,>=3.8"'), (rewrite, summarize)),
    (REORDERED, REORDERED.replace('">=3.8,<4.0"', '"<4.0, >=3.8"'), (rewrite, summarize)),
])
def test_a_marker_kept_with_its_table_requirement_is_accepted(source, text, edits):
    for edit in edits:
        assert_accepted(edit(source, text))


# red team 126, F07: every PEP 508 variable as a Pipfile's key on its own (implementation_name
# swapped between two packages was accepted: read only beside a key of "python" or "platform")
PIPFILE_VARIABLES = [  # (the key, its value in requests' table, in urllib3's)
    ("implementation_name", "== 'cpython'", "== 'pypy'"),
    ("implementation_version", ">= '3.11'", "< '3.11'"),
    ("platform_python_implementation", "== 'CPython'", "== 'PyPy'"),
    ("os_name", "== 'nt'", "!= 'nt'"),
    ("extra", "== 'socks'", "== 'security'"),
    ("platform_release", "== '5.10'", "== '6.1'"),
    ("dependency_groups", "== 'dev'", "== 'test'"),
]


def _pipfile_of(key: str, a: str, b: str) -> str:
    return (f"[packages]\nrequests = {{version = \"==2.31.0\", {key} = \"{a}\"}}\n"
            f"urllib3 = {{version = \"==1.26.18\", {key} = \"{b}\"}}\n")


@pytest.mark.parametrize("key, a, b", PIPFILE_VARIABLES)
def test_a_pipfile_marker_key_of_any_variable_moved_is_refused(key, a, b):
    assert_marker_moved_refused(_pipfile_of(key, a, b), _pipfile_of(key, b, a))


@pytest.mark.parametrize("key, a, b", PIPFILE_VARIABLES)
def test_a_pipfile_marker_key_of_any_variable_kept_is_accepted(key, a, b):
    source = _pipfile_of(key, a, b)
    assert_accepted(rewrite(source, source.replace(" = {", " = { ").replace("\"}", "\" }")))  # re-spaced
    assert_accepted(summarize(source, "\n".join(source.splitlines()[::-1][:-1]) + "\n[packages]\n"))  # reordered
    # (the key is read: the table is keyed by its marker, not only its version)
    from provgate.gate import _table_marked_requirements

    found = _table_marked_requirements(source.encode())
    assert len(found) == 2 and all(marker for *_, marker in found), found


def test_the_table_marker_prefilter_finds_every_key_however_spaced():
    # (the "=" after a key searched for first, the hint around it: no key missed)
    from provgate.gate import _TABLE_MARKED_HINT, _may_hold_table_markers

    keys = [key for key, _, _ in PIPFILE_VARIABLES] + ["markers", "python", "platform", "python_version",
                                                       "python_full_version", "sys_platform", "platform_machine"]
    for key in keys:
        for gap in ("", " ", "  ", "\t", " \t ", "        "):
            text = f'x = 1\nrequests = {{version = "*", {key}{gap}={gap}"== \'a\'"}}\n'.encode()
            assert _TABLE_MARKED_HINT.search(text) and _may_hold_table_markers(text), text
    assert not _may_hold_table_markers(b'[x]\nbufferSize     = 65536\nname = "python"\nextra_x = "1"\n')


def test_the_table_marker_words_prefilter_lets_every_hinted_key_by():
    # (each key the hint reads holds one of the words searched for first, whatever its quotes
    # and blanks; a summary's "[src:...]" and aligned "=" without one are let go on the words)
    from provgate.gate import (
        _TABLE_MARKED_HINT,
        _TABLE_MARKED_HINT_WORDS,
        _may_hold_table_markers,
    )

    keys = ["markers", "python", "python_full", "python_version", "python_full_version", "platform",
            "platform_release", "sys_platform", "os_name", "implementation_name", "implementation_version",
            "extra", "dependency_groups"]
    for key in keys:
        assert any(word in key.encode() for word in _TABLE_MARKED_HINT_WORDS), key
        for quote in ("", "'", '"'):
            text = f'[packages]\nx = {{version = "*", {quote}{key}{quote}  = "== \'a\'"}}\n'.encode()
            assert _TABLE_MARKED_HINT.search(text) and _may_hold_table_markers(text), text
    text = b'[packages]\nx = {version = "*", "extras"  = ["socks"]}\n'
    assert _TABLE_MARKED_HINT.search(text) and _may_hold_table_markers(text)
    assert not _may_hold_table_markers(b"Noted: `maxRetries     = 2`, `limit=50` [src:call_1].")


def test_a_pipfile_extras_key_is_no_marker():
    # ("extras" is the package's extras, not the marker variable of PEP 751's lock files)
    from provgate.gate import _table_marked_requirements

    assert _table_marked_requirements(b'[packages]\nrequests = {version = "==2.31.0", extras = ["socks"]}\n') == {}


def test_table_marked_requirements_are_keyed_by_the_tables_key():
    from provgate.gate import _marked_requirements_of, _table_marked_requirements

    found = _table_marked_requirements(POETRY.encode())
    assert set(found) == {(b"requests", b"", ((b"==", b"2.31"),), b"python-version >= '3.8'"),
                          (b"urllib3", b"", ((b"==", b"1.26.18"),), b"python-version < '3.8'")}
    # (a Pipfile's "==" and Poetry's bare version are one; a PEP 508 line's key is the same)
    assert set(_table_marked_requirements(PIPFILE.encode())) == set(found)
    assert set(_marked_requirements_of(b"requests==2.31.0; python_version >= '3.8'\n")) < set(found)
    found = _table_marked_requirements(b'bar = { version = "~1.2", extras = ["socks", "Security"], platform = "linux" }')
    assert list(found) == [(b"bar", b"security,socks", ((b"~", b"1.2"),), b"platform 'linux'")]
    assert _table_marked_requirements(b'requests = { version = "2.31.0" }\nx = {markers = "nonsense"}\n') == {}
    assert set(_table_marked_requirements(STANDARD.encode())) == set(_table_marked_requirements(POETRY.encode()))
    # (a Pipfile's marker key is that marker; a table across lines is the one-line table)
    assert set(_marked_requirements_of(b"requests==2.31.0; sys_platform == 'win32'\n")) < set(
        _table_marked_requirements(PIPFILE_KEYS.encode()))
    assert set(_table_marked_requirements(MULTI_LINE.encode())) == set(_table_marked_requirements(POETRY.encode()))
    # (a table of no section of packages, and the project's own python, are none)
    assert _table_marked_requirements(b'[other.x]\nmarkers = "os_name == \'nt\'"\n'
                                      b'[tool.poetry.dependencies]\npython = "^3.8"\n') == {}


def _package_tables(header: str, first: str, second: str) -> str:
    return (f"{header.format('requests')}\nversion = \"==2.31.0\"\nos_name = \"== '{first}'\"\n\n"
            f"{header.format('urllib3')}\nversion = \"==2.0.7\"\nos_name = \"== '{second}'\"\n")


@pytest.mark.parametrize("header", ["[packages.{}]", "[packages.{}]  # http", "[packages . {}]", "[ packages .{} ]"])
def test_a_marker_swapped_between_package_tables_is_refused_whatever_the_header(header):
    # TOML allows blanks around a header's dots and a comment after it (red team 127, F10: the
    # tables went unread, and the swap was accepted)
    source = _package_tables(header, "posix", "nt")
    lie = _package_tables(header, "nt", "posix")
    assert not rewrite(source, lie).accepted
    assert not summarize(source, lie).accepted
    blocks = source.split("\n\n")
    assert_accepted(rewrite(source, blocks[1] + "\n" + blocks[0].rstrip("\n") + "\n"))


@pytest.mark.parametrize("key", ['"os_name"', "'os_name'", '"sys_platform"'])
def test_a_marker_under_a_quoted_key_swapped_is_refused(key):
    # a TOML key may be quoted ("os_name" = ...): red team 127, F01, such keys went unread
    def tables(first: str, second: str) -> str:
        return (f'[packages]\nrequests = {{version = "==2.31.0", {key} = "== \'{first}\'"}}\n'
                f'urllib3 = {{version = "==2.0.7", {key} = "== \'{second}\'"}}\n')

    source, lie = tables("posix", "nt"), tables("nt", "posix")
    assert not rewrite(source, lie).accepted
    assert not summarize(source, lie).accepted
    lines = source.splitlines(keepends=True)
    assert_accepted(rewrite(source, lines[0] + lines[2] + lines[1]))


# red team 127, F09: a package table without a marker was no requirement, so a marker moved onto
# it from another package's table (urllib3 Windows-only, requests everywhere), or two such tables'
# extras swapped, was accepted as a rewrite and as a summary; the requirements.txt twin was refused
MOVES = [  # (source, lie)
    ("[packages]\nrequests = {version = \"==2.31.0\", os_name = \"== 'nt'\"}\nurllib3 = {version = \"==2.0.7\"}\n",
     "[packages]\nrequests = {version = \"==2.31.0\"}\nurllib3 = {version = \"==2.0.7\", os_name = \"== 'nt'\"}\n"),
    ("[packages]\nrequests = {version = \"==2.31.0\", markers = \"os_name == 'nt'\"}\nurllib3 = {version = \"==2.0.7\"}\n",
     "[packages]\nrequests = {version = \"==2.31.0\"}\nurllib3 = {version = \"==2.0.7\", markers = \"os_name == 'nt'\"}\n"),
    ("[tool.poetry.dependencies]\nrequests = { version = \"2.31.0\", python = \"<3.8\" }\nurllib3 = { version = \"2.0.7\" }\n",
     "[tool.poetry.dependencies]\nrequests = { version = \"2.31.0\" }\nurllib3 = { version = \"2.0.7\", python = \"<3.8\" }\n"),
    ("[packages.requests]\nversion = \"==2.31.0\"\nsys_platform = \"== 'win32'\"\n\n[packages.urllib3]\nversion = \"==2.0.7\"\n",
     "[packages.requests]\nversion = \"==2.31.0\"\n\n[packages.urllib3]\nversion = \"==2.0.7\"\nsys_platform = \"== 'win32'\"\n"),
    ("[packages]\nrequests = {\n  version = \"==2.31.0\",\n  os_name = \"== 'nt'\"\n}\nurllib3 = {\n  version = \"==2.0.7\"\n}\n",
     "[packages]\nrequests = {\n  version = \"==2.31.0\"\n}\nurllib3 = {\n  version = \"==2.0.7\",\n  os_name = \"== 'nt'\"\n}\n"),
]


@pytest.mark.parametrize("source, lie", MOVES)
def test_a_marker_moved_onto_a_table_without_one_is_refused(source, lie):
    assert_marker_moved_refused(source, lie)


STRINGS = ("[tool.poetry.dependencies]\npython = \"^3.8\"\nrequests = { version = \"2.31.0\", python = \"<3.8\" }\n"
           "urllib3 = \"2.0.7\"\n")


def test_a_marker_moved_onto_a_package_written_as_a_string_is_refused():
    # (a package written as a string under a section of packages is its requirement too: the
    # summary making urllib3's string a table with requests' python was accepted)
    lie = STRINGS.replace('{ version = "2.31.0", python = "<3.8" }', '"2.31.0"').replace(
        'urllib3 = "2.0.7"', 'urllib3 = { version = "2.0.7", python = "<3.8" }')
    v = summarize(STRINGS, lie)
    assert not v.accepted
    assert {x.invariant for x in marked(v)} == {"I1"}, v.violations
    assert not rewrite(STRINGS, lie).accepted


EXTRAS = ("[packages]\nrequests = {version = \"==2.31.0\", extras = [\"socks\"]}\n"
          "uvicorn = {version = \"==0.23.0\", extras = [\"standard\"]}\nurllib3 = {version = \"==2.0.7\"}\n")


@pytest.mark.parametrize("lie", [
    _swapped(EXTRAS, '["socks"]', '["standard"]'),                                       # swapped
    EXTRAS.replace(', extras = ["standard"]', "").replace('"==2.0.7"}', '"==2.0.7", extras = ["standard"]}'),  # moved
    EXTRAS.replace('"==2.0.7"}', '"==2.0.7", extras = ["socks"]}'),                       # added
])
def test_extras_moved_between_tables_without_markers_are_refused(lie):
    v = rewrite(EXTRAS, lie)
    assert not v.accepted
    find(v, "I2", block="b1", evidence__change="requirement_changed")
    v = summarize(EXTRAS, lie)
    assert not v.accepted
    find(v, "I1", block="s1", evidence__change="requirement_changed")


@pytest.mark.parametrize("source, text, edits", [
    (MOVES[0][0], "\n".join(MOVES[0][0].splitlines()[::-1][:-1]) + "\n[packages]\n", (summarize,)),  # rows reordered
    (MOVES[0][0], MOVES[0][0].replace('{version = "==2.31.0", os_name = "== \'nt\'"}',
                                      '{os_name = "== \'nt\'", version = "==2.31.0"}'), (rewrite, summarize)),  # keys
    (MOVES[2][0], MOVES[2][0].replace("{ version", "{version").replace('" }', '"}'), (rewrite, summarize)),  # re-spaced
    (MOVES[3][0], "\n\n".join(MOVES[3][0].split("\n\n")[::-1]) + "\n", (rewrite, summarize)),  # tables reordered
    (MOVES[0][0], MOVES[0][0] + "# pinned for the proxy\n", (rewrite, summarize)),          # tables unchanged
    (MOVES[0][0], MOVES[0][0].replace(', os_name = "== \'nt\'"', ""), (summarize,)),       # a marker dropped
    (EXTRAS, "\n".join(EXTRAS.splitlines()[::-1][:-1]) + "\n[packages]\n", (rewrite, summarize)),
    (EXTRAS, EXTRAS.replace('{version = "==0.23.0", extras = ["standard"]}',
                            '{extras = ["standard"], version = "==0.23.0"}'), (rewrite, summarize)),
    (EXTRAS, 'uvicorn = {version = "==0.23.0", extras = ["standard"]} serves the app.\n', (summarize,)),  # one kept
    (STRINGS, "\n".join(STRINGS.splitlines()[::-1][:-1]) + "\n[tool.poetry.dependencies]\n", (summarize,)),
    (STRINGS, STRINGS.replace('urllib3 = "2.0.7"', "urllib3 = '2.0.7'  # pinned"), (rewrite, summarize)),
])
def test_tables_without_markers_kept_are_accepted(source, text, edits):
    for edit in edits:
        assert_accepted(edit(source, text))


def test_package_tables_are_read_with_a_marker_or_none():
    from provgate.gate import _marked_requirements_of, _package_tables

    source, _ = MOVES[0]
    assert set(_package_tables(source.encode())) == {
        (b"requests", b"", ((b"==", b"2.31"),), b"os-name == 'nt'"), (b"urllib3", b"", ((b"==", b"2.0.7"),), b"")}
    assert set(_package_tables(MOVES[3][0].encode())) == {
        (b"requests", b"", ((b"==", b"2.31"),), b"sys-platform == 'win32'"), (b"urllib3", b"", ((b"==", b"2.0.7"),), b"")}
    assert set(_package_tables(EXTRAS.encode())) == {
        (b"requests", b"socks", ((b"==", b"2.31"),), b""), (b"uvicorn", b"standard", ((b"==", b"0.23"),), b""),
        (b"urllib3", b"", ((b"==", b"2.0.7"),), b"")}
    # (a table of no package: no key of one, nor a section of packages; a table without a marker is
    # read from a block only where its text may hold one, from a text compared with always)
    assert _package_tables(b'point = {x = 1, y = 2}\n[tool.black.x]\nline = 3\n') == {}
    # (a package written as a string, under a section of packages only)
    assert set(_package_tables(b'[packages]\nrequests = "*"\n"zope.interface" = "==5.0"  # c\n[tool.x]\nb = "1"\n')) == {
        (b"requests", b"", (), b""), (b"zope-interface", b"", ((b"==", b"5"),), b"")}
    assert (b"urllib3", b"", ((b"==", b"2.0.7"),), b"") in _package_tables(STRINGS.encode())
    plain = b'[packages]\nurllib3 = {version = "==2.0.7"}\n'
    assert _marked_requirements_of(plain) == {}
    assert list(_marked_requirements_of(plain, True)) == [(b"urllib3", b"", ((b"==", b"2.0.7"),), b"")]


# red team 127, F05: Poetry's "^"/"~" alternatives reordered are the same constraint (refused as
# an ungrounded kv: the requirement pattern reads comparisons only); changed, they are another
CARET = "[tool.poetry.dependencies]\npython = \"{}\"\nrequests = {{ version = \"2.31.0\", python = \"{}\" }}\n"


@pytest.mark.parametrize("source, written", [
    ("^2.7 || ^3.8", "^3.8 || ^2.7"),
    ("~2.7 || ~3.8", "~3.8||~2.7"),
    ("^2.7,!=2.7.5 || ^3.8,!=3.8.1", "^3.8, !=3.8.1 | !=2.7.5 ^2.7"),   # clauses reordered, "|"
    (">=2.7,<3.0 || ^3.8", "^3.8 || <3.0,>=2.7"),                         # comparisons beside a caret
])
def test_poetry_caret_alternatives_reordered_are_accepted(source, written):
    for edit in (rewrite, summarize):
        assert_accepted(edit(CARET.format(source, source), CARET.format(written, written)))


@pytest.mark.parametrize("source, written", [
    ("^2.7 || ^3.8", "^3.8 || ^2.6"),                                     # a version changed
    ("^2.7 || ^3.8", "~3.8 || ^2.7"),                                     # a caret made a tilde
    ("^2.7 || ^3.8", "^3.8, ^2.7"),                                       # an "or" made an "and"
    ("^2.7 || ^3.8", "^3.8 || ^2.7 || ^3.6"),                             # an alternative added
    ("^2.7,!=2.7.5 || ^3.8,!=3.8.1", "^2.7,!=3.8.1 || ^3.8,!=2.7.5"),     # clauses swapped across
    (">=2.7,<3.0 || ^3.8", "^3.8 || <3.1,>=2.7"),
])
def test_poetry_caret_alternatives_changed_are_refused(source, written):
    for edit in (rewrite, summarize):
        v = edit(CARET.format(source, source), CARET.format(written, source))
        assert not v.accepted
        v = edit(CARET.format(source, source), CARET.format(source, written))
        assert not v.accepted


def test_poetry_caret_alternatives_are_keyed_as_a_set_of_clause_sets():
    from provgate.gate import _requirement_spans

    key, = _requirements(b'python = "^2.7 || ^3.8"')
    assert key == (b"python", b"", b"||", b"^2.7", b"||", b"^3.8")
    assert set(_requirements(b"python = '~3.8|^2.7'")) != {key} and set(_requirements(b'python = "^3.8 | ^2.7"')) == {key}
    # (one span, the whole constraint; the comparisons the pattern reads inside it are no other)
    text = b'python = ">=2.7,<3.0 || ^3.8"\n'
    assert _requirement_spans(text) == [(0, len(text) - 1, (b"python", b"", b"||", b"<3,>=2.7", b"||", b"^3.8"))]
    # (a constraint of comparisons only is the pattern's; a caret beside a markdown table's "|" is none)
    assert _requirement_spans(b'python = ">=3.8 || >=2.7"')[0][1] == 25
    assert _requirements(b"| ~5 min | ^2 |\n| a = 1 | b |\n") == {}


def test_blank_joined_alternatives_are_read_in_one_way():
    # red team 129, F10: the blanks between two clauses could be the separator's or the next
    # clause's, so a line of n clauses failing at its end (no closing quote) was tried 2^n ways
    # (12 s at 78 bytes, n = 22). The separator now takes them all, atomically. A hang guard,
    # not a speed target: at n = 60 the old pattern would run for centuries, the new one takes
    # about a millisecond; a child process is given five minutes.
    import subprocess
    import sys

    code = ("from provgate.gate import _constraint_alternatives\n"
            "print(_constraint_alternatives(b'python = \"^1' + b'  1' * 60 + b' |x\\n'))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-400:]
    # and the forms it reads are read as before
    from provgate.gate import _CONSTRAINT_ALTERNATIVES

    for line, value in [(b'python = "^2.7  ||  ^3.8"', b"^2.7  ||  ^3.8"), (b'python = "^2.7 | ^3.8"', b"^2.7 | ^3.8"),
                        (b'python = ">=3.8 <4.0 || >=2.7,<3.0"', b">=3.8 <4.0 || >=2.7,<3.0"),
                        (b'python = " >= 3.8 , < 4.0 "', b">= 3.8 , < 4.0")]:
        assert _CONSTRAINT_ALTERNATIVES.search(line).group(3) == value


@pytest.mark.parametrize("text, hinted", [
    (b'requests = { version = "2.31.0", markers = "python_version >= \'3.8\'" }\n', True),
    (b"[packages.requests]\nmarkers = \"os_name == 'nt'\"\n", True),
    # (a hint follows an "=": without one, the words alone hint nothing, however many "[" cite)
    (b"The markers of [src:u1] name python and platform; extra [src:u2].\n", False),
    (b"{ markers: python_version }\n", False),
])
def test_table_markers_are_hinted_only_after_an_equals_sign(text, hinted):
    from provgate.gate import _may_hold_table_markers

    assert _may_hold_table_markers(text) is hinted
