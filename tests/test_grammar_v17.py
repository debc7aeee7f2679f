"""Grammar v17 (EXTRACTOR_VERSION 17): a lexeme may start right after a run of two or more dots
(red team 130a F01, HIGH fail-open).

Nothing started right after a ``.`` (the rule that keeps the parts of a dotted name from being
facts of their own), so the value after ``..`` or ``...`` was no fact: the second SHA of a git
range (``index 4e3c2a1..8b9d0f7``, ``git log 3f9a2c1..9b8e7f6``), the end of a line or port range
(``lines 118..131``, ``ports 8000..8100``), the later version of ``v2.14.3...v2.15.0``, the figure
of ``Downloading...87%`` and the SHA of ``HEAD~3..a1b2c3d``; a summary or a rewrite that changed
it was accepted, while the same change to the range's first element was refused. Now a run of
two or more dots is a separator: a lexeme may start right after it (not at a further dot of the
run), and a single ``.`` keeps its meaning (``v1.2``, ``file.tar.gz``, ``a.b.c``, ``3.14``).
Scanner cases run on both implementations (``impl``); the gate cases run on the one provgate
loads (the suite runs again with PROVGATE_NO_EXTENSIONS=1). docs/grammar.md ("The token layer")
has the rule."""

from __future__ import annotations

import pytest
from conftest import IMPLEMENTATIONS, load_implementation
from gate_helpers import assert_accepted, find
from hypothesis import given
from hypothesis import strategies as st
from scanner_helpers import DIFFERENTIAL, assert_same_columns, columns, spans
from test_grammar_v4 import _rewrite, _summarize

from provgate import _scanner_py
from provgate.facts import EXTRACTOR_VERSION


@pytest.fixture(params=IMPLEMENTATIONS, scope="module")
def impl(request):
    return load_implementation("scanner", "_scanner_py", request.param)


def test_extractor_version_is_17():
    # cached fact tables are keyed by it: v17 must not read older tables, which lack these facts
    assert EXTRACTOR_VERSION >= 17


def _facts(impl, text):
    return [(kind, literal, value) for kind, literal, _, value in spans(impl, text)]


# -- the scanner ----------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    # red team 130a F01's forms: each element of the range is a fact
    ("4e3c2a1..8b9d0f7", [("digest", "4e3c2a1", "4e3c2a1"), ("digest", "8b9d0f7", "8b9d0f7")]),
    ("index 4e3c2a1..8b9d0f7 100644",
     [("digest", "4e3c2a1", "4e3c2a1"), ("digest", "8b9d0f7", "8b9d0f7"), ("number", "100644", "100644")]),
    ("lines 120..140", [("number", "120", "120"), ("number", "140", "140")]),
    ("ports 8000..8100", [("number", "8000", "8000"), ("number", "8100", "8100")]),
    ("Downloading...42%", [("number", "42%", "42%")]),
    ("v1.2.3...v1.3.0", [("number", "v1.2.3", "v1.2.3"), ("number", "v1.3.0", "v1.3.0")]),
    ("HEAD~3..a1b2c3d", [("name", "HEAD", "HEAD"), ("number", "3", "3"), ("digest", "a1b2c3d", "a1b2c3d")]),
    ("1.5..2.5", [("number", "1.5", "1.5"), ("number", "2.5", "2.5")]),
    ("range(1..10)", [("number", "1", "1"), ("number", "10", "10")]),
    ("L120..L140", [("identifier", "L120", "L120"), ("identifier", "L140", "L140")]),
    ("x...-5", [("number", "-5", "-5")]),
    ("a....7", [("number", "7", "7")]),  # any run of two or more dots
    ("k..key=5", [("kv", "key=5", "5")]),
    ("ok..bar.baz", [("identifier", "bar.baz", "bar.baz")]),
    ("foo...A1B2", [("identifier", "A1B2", "A1B2")]),
    # a capitalised word after an ellipsis starts a sentence (the dot is a terminator): no name
    ("Loading...Done", []),
    ("wait..no", []),
])
def test_a_lexeme_starts_after_a_run_of_dots(impl, text, expected):
    assert _facts(impl, text) == expected


@pytest.mark.parametrize("text, expected", [
    # a single dot keeps its meaning: the parts of a dotted name, a version, a decimal
    ("v1.2 file.tar.gz a.b.c 3.14",
     [("number", "v1.2", "v1.2"), ("identifier", "file.tar.gz", "file.tar.gz"), ("number", "3.14", "3.14")]),
    ("os.path.join", [("identifier", "os.path.join", "os.path.join")]),
    ("python3.11 and libssl.so.1.1",
     [("identifier", "python3.11", "python3.11"), ("identifier", "libssl.so.1.1", "libssl.so.1.1")]),
    # no lexeme starts at a further dot of the run: no number .5, no dot-file name .env
    ("x...5", [("number", "5", "5")]),
    ("x...env", []),
    # paths are matched from the start of their run of path bytes, as before
    ("see ../src/a.py", [("path", "../src/a.py", "../src/a.py")]),
    ("a..b/c.txt", [("path", "a..b/c.txt", "a..b/c.txt")]),
    # the ellipsis character is a word byte run, as every non-ASCII byte: one identifier
    ("Downloading\u202687%", [("identifier", "Downloading\u202687", "Downloading\u202687")]),
])
def test_a_single_dot_and_the_other_forms_are_unchanged(impl, text, expected):
    assert _facts(impl, text) == expected


@pytest.mark.parametrize("dots", ["..", "...", "...."])
def test_the_run_of_dots_at_every_offset_of_a_block(impl, dots):
    # the native scanner finds starts with 64-byte block masks: the dots may straddle a block's
    # edge (the bytes before the block are read apart), so the range is tried at every offset
    for pad in range(140):
        text = " " * pad + "4e3c2a1" + dots + "8b9d0f7 and 120" + dots + "140"
        assert _facts(impl, text) == [
            ("digest", "4e3c2a1", "4e3c2a1"), ("digest", "8b9d0f7", "8b9d0f7"),
            ("number", "120", "120"), ("number", "140", "140"),
        ], pad


_V17_PIECES = st.sampled_from([
    ".", "..", "...", "....", "\u2026", " ", "\n", "-", "+", "/", "\\", "@", "=", ":", "~", "%", '"', "[src:x]",
    "\x1b[0m", "4e3c2a1", "8b9d0f7", "120", "3.14", "v1.2.3", "abc", "Abc", "HEAD", "key=5", "x.y", "a1b2c3d",
    ".env", "../a/b.py", "--flag", "\u0663\u0664",
])
v17_text = st.lists(_V17_PIECES, max_size=40).map("".join)


@DIFFERENTIAL
@given(v17_text, st.integers(0, 70))
def test_differential_v17_pieces(impl, text, pad):
    data = (" " * pad + text).encode()
    assert_same_columns(columns(impl, data), _scanner_py.scan(data, 10**7, shortcut=False), data)


@DIFFERENTIAL
@given(v17_text)
def test_the_shortcut_agrees_on_v17_pieces(text):
    data = text.encode()
    assert_same_columns(_scanner_py.scan(data, 10**7, shortcut=True), _scanner_py.scan(data, 10**7, shortcut=False), data)


# -- the gate -------------------------------------------------------------------------------------

DIFF = (
    "diff --git a/config/settings.py b/config/settings.py\nindex 4e3c2a1..8b9d0f7 100644\n"
    "--- a/config/settings.py\n+++ b/config/settings.py\n"
)
LOG = "Comparing changes: git log --oneline 3f9a2c1..9b8e7f6 shows 2 commits (PROJ-1234, OPS-77).\n"
RANGES = "Blame for src/net/client.py lines 118..131 (retry loop); ports 8000..8100 reserved.\n"
VERSIONS = "Changelog v2.14.3...v2.15.0: 14 commits, 3 contributors.\n"
PROGRESS = "Downloading model weights...87% (1.2 GB of 1.4 GB)\n"
HEAD = "Run git diff HEAD~3..a1b2c3d to see it.\n"

# (source, a summary that changes the value after the dots, the value)
RT130A_F01_SUMMARIES = [
    (DIFF, "The blob changed 4e3c2a1..8b9d0f8.", "8b9d0f8"),
    (LOG, "git log 3f9a2c1..9b8e7f7 shows 2 commits.", "9b8e7f7"),
    (RANGES, "The retry loop is src/net/client.py lines 118..151.", "151"),
    (RANGES, "Ports 8000..9100 are reserved.", "9100"),
    (VERSIONS, "Changelog v2.14.3...v2.16.0 has 14 commits.", "v2.16.0"),
    (PROGRESS, "Downloading model weights...97%.", "97%"),
    (HEAD, "Diff HEAD~3..a1b2c3e.", "a1b2c3e"),
]

# (source, the changed text of a rewrite of the whole block, the value)
RT130A_F01_REWRITES = [
    (DIFF, "8b9d0f7", "8b9d0f8", "8b9d0f8"),
    # (here the range is the value of the kv fact --oneline, which v16 read whole as well)
    (LOG, "9b8e7f6", "9b8e7f7", "3f9a2c1..9b8e7f7"),
    (RANGES, "118..131", "118..151", "151"),
    (RANGES, "8000..8100", "8000..9100", "9100"),
    (VERSIONS, "v2.15.0", "v2.16.0", "v2.16.0"),
    (PROGRESS, "87%", "97%", "97%"),
    (HEAD, "a1b2c3d", "a1b2c3e", "a1b2c3e"),
]


@pytest.mark.parametrize("source, lie, value", RT130A_F01_SUMMARIES, ids=[v for _, _, v in RT130A_F01_SUMMARIES])
def test_rt130a_f01_a_changed_value_after_dots_is_refused_in_a_summary(source, lie, value):
    find(_summarize(source, lie), "I1", block="s", value=value)


@pytest.mark.parametrize("source, old, new, value", RT130A_F01_REWRITES, ids=[v for *_, v in RT130A_F01_REWRITES])
def test_rt130a_f01_a_changed_value_after_dots_is_refused_in_a_rewrite(source, old, new, value):
    assert old in source
    find(_rewrite(source, source.replace(old, new)), "I2", value=value)


def test_rt130a_f01_control_the_first_element_was_and_is_refused():
    find(_summarize(DIFF, "The blob changed 4e3c2a2..8b9d0f7."), "I1", block="s", value="4e3c2a2")
    find(_rewrite(DIFF, DIFF.replace("4e3c2a1", "4e3c2a2")), "I2", value="4e3c2a2")


@pytest.mark.parametrize("source, text", [
    (DIFF, "The blob changed 4e3c2a1..8b9d0f7."),  # the range quoted exactly
    (DIFF, "The blob changed from 4e3c2a1 to 8b9d0f7."),
    (DIFF, "The index line reads `index 4e3c2a1..8b9d0f7 100644`."),
    (DIFF, "The blob changed 4e3c2a1...8b9d0f7."),
    (LOG, "git log 3f9a2c1..9b8e7f6 shows 2 commits."),
    # a range restated in words or with a hyphen: each end is grounded by the source's range
    (RANGES, "The retry loop is src/net/client.py lines 118..131."),
    (RANGES, "The retry loop is src/net/client.py lines 118 to 131."),
    (RANGES, "The retry loop is in src/net/client.py, lines 118 through 131."),
    (RANGES, "The retry loop is src/net/client.py lines 118-131."),
    (RANGES, "Ports 8000 to 8100 are reserved."),
    (RANGES, "Ports 8000-8100 are reserved."),
    (VERSIONS, "Changelog v2.14.3...v2.15.0 has 14 commits."),
    (VERSIONS, "From v2.14.3 to v2.15.0 there were 14 commits by 3 contributors."),
    (PROGRESS, "Model weights download at 87% (1.2 GB of 1.4 GB)."),
    (PROGRESS, "Downloading model weights...87%."),
    (HEAD, "Diff HEAD~3..a1b2c3d."),
    (HEAD, "The diff ends at a1b2c3d."),
])
def test_rt130a_f01_an_honest_restatement_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("source", [DIFF, LOG, RANGES, VERSIONS, PROGRESS, HEAD])
def test_rt130a_f01_an_honest_rewrite_is_accepted(source):
    assert_accepted(_rewrite(source, source.replace("\n", "\n\n")))


# -- the last run of its chain (red team 131, F01) ------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    # a lexeme starts after the last run of two or more dots of its chain (the bytes up to the
    # next blank or control byte) only: a start after every run of "a..a..a.." read each to the
    # chain's end, in quadratic time
    ("1..2..3", [("number", "1", "1"), ("number", "3", "3")]),
    ("1..2..3 4..5", [("number", "1", "1"), ("number", "3", "3"), ("number", "4", "4"), ("number", "5", "5")]),
    ("118..131,140..150", [("number", "118", "118"), ("number", "140", "140"), ("number", "150", "150")]),
    ("a..b..4e3c2a1", [("digest", "4e3c2a1", "4e3c2a1")]),
    ("4e3c2a1..8b9d0f7\n9b8e7f6..3f9a2c1", [("digest", "4e3c2a1", "4e3c2a1"), ("digest", "8b9d0f7", "8b9d0f7"),
                                          ("digest", "9b8e7f6", "9b8e7f6"), ("digest", "3f9a2c1", "3f9a2c1")]),
])
def test_a_lexeme_starts_after_the_last_run_of_dots_of_its_chain(impl, text, expected):
    assert _facts(impl, text) == expected


def test_a_chain_is_read_once_for_its_runs_of_dots(monkeypatch):
    """The reference reads each chain's rest once, however many runs of dots it holds (the
    native scanner's last_dot_run keeps the same one chain; its hang guard is below)."""
    reads = []
    real = _scanner_py._CHAIN_REST

    class Counting:
        def match(self, data, p):
            reads.append(p)
            return real.match(data, p)

    monkeypatch.setattr(_scanner_py, "_CHAIN_REST", Counting())
    _scanner_py.scan(b"a.." * 2000 + b" " + b"1..2" * 3, 10**6)
    assert len(reads) == 2  # (one chain of 2,000 runs, one of five)


def test_a_chain_of_many_runs_of_dots_is_scanned_in_linear_time():
    # red team 131, F01: "a.." x 200,000 (600 KB) took 55 s native and 226 s reference. A hang
    # guard, not a speed target: linear, 3 MB take well under a second native; a child process
    # is given five minutes for both scanners
    import subprocess
    import sys

    code = ("from provgate import _scanner_py\nfrom provgate.facts import extract\n"
            "for unit in (b'a..', b'1..', b'ab...cd-', b'x...y'):\n"
            "    extract(unit * 1_000_000)\n"
            "    _scanner_py.scan(unit * 50_000, 10**7)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-400:]
