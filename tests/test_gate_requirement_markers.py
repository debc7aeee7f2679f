"""An environment marker keeps its string comparisons (red team 118, F22; docs/gate.md,
"Requirements"): ``requests[socks]==2.31.0 ; sys_platform == 'linux'`` -> ``… sys_platform !=
'linux'`` was accepted as a rewrite and as a summary, the requirement pattern wanting a digit after
the comparison. A version compared in a marker (``python_version < '3.8'``) was read already. Run
natively and with PROVGATE_NO_EXTENSIONS=1 (the suite runs once each way)."""

from __future__ import annotations

import pytest
from gate_helpers import find
from test_gate_requirement_extras import rewrite, summarize

from provgate.gate import _requirements


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
