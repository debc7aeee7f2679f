"""The native modules at their boundaries with inputs that lie (red team 39): an object whose
``__class__`` says ``str``, a list whose ``__len__``, ``__iter__`` or ``__getitem__`` answers
differently each time, an ndarray subclass whose ``dtype`` or ``shape`` is not its data's, a
column changed by another thread or aliased by the output buffer. The native code checked one
answer and read another, without the GIL: a crash, or a read past a buffer. Each case runs in a
child process (a crash must fail this test, not end the run), against both implementations;
what each must do is a clear error or a result, and for the native module the error named."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from conftest import IMPLEMENTATIONS

MODULES = {  # import line per implementation: (native, reference)
    "textnorm": ("from provgate._ext import textnorm as m", "from provgate import _textnorm_py as m"),
    "blockscan": ("from provgate._ext import blockscan as m", "from provgate import _blockscan_py as m"),
    "matching": ("from provgate._ext import matching as m", "from provgate import _matching_py as m"),
    "factdiff": ("from provgate._ext import factdiff as m", "from provgate import _factdiff_py as m"),
    "scanner": ("from provgate._ext import scanner as m", "from provgate import _scanner_py as m"),
    "quotations": ("from provgate._ext import quotations as m", "from provgate import _quotations_py as m"),
}


def outcome(module: str, impl: str, body: str) -> str:
    """What ``body`` printed, run against ``impl`` of ``module`` in a child process (which
    must exit normally); ``report(f)`` prints ``ok <result>`` or ``<ExceptionType>``."""
    code = "\n".join([
        "import sys, threading", "import numpy as np",
        MODULES[module][0 if impl == "native" else 1],
        "def report(f):",
        "    try:",
        "        print('ok', f())",
        "    except Exception as e:",
        "        print(type(e).__name__, e)",
        textwrap.dedent(body),
    ])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, f"{impl} exited {done.returncode}: {done.stderr[-600:]}"
    return done.stdout.strip()


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_textnorm_reads_only_real_strings_from_its_own_copy(impl):
    out = outcome("textnorm", impl, """
        class Fake:
            __class__ = property(lambda self: str)  # isinstance(Fake(), str) is True
        report(lambda: m.same_after_normalisation([Fake()], ["x"]))

        class Shifty(list):  # str items when checked, others when read
            calls = 0
            def __iter__(self):
                Shifty.calls += 1
                return list.__iter__(self) if Shifty.calls == 1 else iter([12345, 3.5, None, b"x"])
        report(lambda: m.same_after_normalisation(Shifty(["x"] * 4), ["x"] * 4))

        class Shorter(list):  # fewer items when read
            calls = 0
            def __iter__(self):
                Shorter.calls += 1
                return list.__iter__(self) if Shorter.calls == 1 else iter(["hello"])
        report(lambda: m.same_after_normalisation(["hello"] * 2000, Shorter(["hello"] * 2000)))
    """).splitlines()
    if impl == "native":
        # (each list is iterated once, into the copy that is checked and read: what a second
        # iteration would give is never asked; stop 54, the checks moved into Cython)
        assert out[0] == "TypeError a[0] must be str, not Fake"
        assert out[1].startswith("ok [ True") and out[2].startswith("ok [ True"), out
    else:
        assert [line.split()[0] for line in out] == ["AttributeError", "AttributeError", "ok"]


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_quotations_read_the_columns_as_they_are(impl):
    out = outcome("quotations", impl, """
        class Liar(np.ndarray):  # int64 data that says it is uint8
            dtype = property(lambda self: np.dtype(np.uint8))
        kinds = np.ones(4, dtype=np.int64).view(Liar)
        spans = np.zeros(4, dtype=np.int64)
        report(lambda: m.asked_quotations([b'"a b"'], [kinds], [spans], [spans], 1))

        class Shifty(list):  # a text when checked, a long one when read
            calls = 0
            def __iter__(self):
                Shifty.calls += 1
                return list.__iter__(self) if Shifty.calls == 1 else iter([b"x" * 100])
        one = np.ones(1, dtype=np.uint8)
        report(lambda: m.asked_quotations(Shifty([b'"a b"']), [one], [np.array([1])], [np.array([4])], 1)[1].tolist())
    """).splitlines()
    if impl == "native":
        # the C type of the data, not the attribute; the snapshot it checked is what it read
        assert out == ["TypeError asked_quotations: a malformed batch", "ok [0]"]
    else:
        # (the reference reads the data as it is, through Python objects: no buffer read)
        assert out[0].split()[0] in ("ok", "TypeError") and out[1] == "ok [0]"


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_blockscan_indexes_the_copy_it_checked(impl):
    out = outcome("blockscan", impl, """
        from provgate.window import Block
        blocks = [Block(id=f"b{i}", role="user", text=f"text {i}") for i in range(2000)]
        class Liar(list):
            def __len__(self):
                return 2000  # one item per block, it says; it holds one
        report(lambda: len(m.texts_changed(blocks, Liar(["only"]))[1]))
        report(lambda: m.provenance_changed(blocks, Liar([0]), blocks))
    """).splitlines()
    if impl == "native":
        assert out == ["InvalidArgumentError texts must have one item per block, got 1 for 2000 blocks",
                       "InvalidArgumentError match must have one item per block, got 1 for 2000 blocks"]
    else:
        assert out == ["ok 1", "ok []"]


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_matching_unpacks_an_automatons_hits_as_python_does(impl):
    out = outcome("matching", impl, """
        from provgate._matching_py import build_automaton
        _, edges = build_automaton([b"abc"])
        class Auto:
            def __init__(self, hit):
                self.hit = hit
            def __len__(self):
                return 1
            def iter(self, haystack):
                return iter([self.hit])
        for hit in [(3,), (3, 0, "extra")]:
            report(lambda: m.collect(Auto(hit), b"abc def", np.array([3], dtype=np.int64), edges, 100))
    """).splitlines()
    assert [line.split()[0] for line in out] == ["ValueError", "ValueError"]


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_factdiff_reads_an_ndarray_subclass_as_numpy_sees_its_data(impl):
    out = outcome("factdiff", impl, """
        class LyingDtype(np.ndarray):
            @property
            def dtype(self):
                return np.dtype(np.uint64)  # really uint8
        fp = np.arange(400000, dtype=np.uint8).reshape(200000, 2).view(LyingDtype)
        report(lambda: len(m.sort_fingerprints(fp)))
        report(lambda: len(m.unique_counts(fp)[0]))
        report(lambda: m.diff(fp, fp)[0].shape)
        index = m.SortedFingerprints(np.array([[1, 2], [3, 4]], dtype=np.uint64))
        report(lambda: m.positions(index, [fp]).shape)
        report(lambda: m.absent_from_all(np.array([[1, 2]], dtype=np.uint64), [fp]))
    """).splitlines()
    if impl == "native":
        assert out == ["TypeError fp must have dtype uint64 (native byte order), not uint8"] * 2 + [
            "TypeError a must have dtype uint64 (native byte order), not uint8",
            "TypeError queries[0] must have dtype uint64 (native byte order), not uint8",
            "TypeError sets[0] must have dtype uint64 (native byte order), not uint8"]
    else:
        assert all(line.split()[0] in ("ok", "TypeError", "InvalidArgumentError") for line in out), out


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_factdiff_reads_each_query_array_once_from_its_own_copy(impl):
    out = outcome("factdiff", impl, """
        index = m.SortedFingerprints(np.array([[1, 2], [3, 4]], dtype=np.uint64))
        good = np.array([[1, 2]], dtype=np.uint64)
        class Flip(list):  # a checked array, then a byte string read as rows
            calls = 0
            def __getitem__(self, k):
                Flip.calls += 1
                return good if Flip.calls % 2 == 1 else np.zeros(1000, dtype=np.uint8)
        report(lambda: m.positions(index, Flip([good])).tolist())

        qs = [np.array([[1, 2], [3, 4], [5, 6]], dtype=np.uint64) for _ in range(8)]
        kinds = [np.zeros(3, dtype=np.uint8) for _ in range(8)]
        class Odd(list):  # iterates nothing, or ints, the second time
            def __init__(self, items, later):
                super().__init__(items)
                self.later, self.calls = later, 0
            def __iter__(self):
                self.calls += 1
                return list.__iter__(self) if self.calls == 1 else iter(self.later)
        for later in ([], [12345] * 8):
            left = np.array([100, 100], dtype=np.int64)
            report(lambda: int(m.draw_rows(index, left, Odd(qs, later), kinds, 9)[0].sum()))

        class Liar(list):
            def __len__(self):
                return 5000  # holds one set
        report(lambda: m.absent_from_all(np.array([[1, 2], [3, 4]], dtype=np.uint64),
                                         Liar([np.array([[1, 2]], dtype=np.uint64)])).tolist())
    """).splitlines()
    assert out[0] == "ok [0]"
    if impl == "native":
        assert out[1:] == ["ok 16", "ok 16", "ok [False, True]"]  # (2 of each 3 rows drawn)
    else:
        assert [line.split()[0] for line in out[1:]] == ["IndexError", "AttributeError", "IndexError"]


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_span_values_reads_columns_as_numpy_sees_their_data(impl):
    out = outcome("scanner", impl, """
        class LyingShape(np.ndarray):
            @property
            def shape(self):
                return (2000,)  # really 1 row
        vs = np.zeros(1, dtype=np.int64).view(LyingShape)
        ve = np.full(1, 5, dtype=np.int64).view(LyingShape)
        report(lambda: m.span_values(b"hello world", np.full(2000, 7, dtype=np.uint8), vs, ve, 7))
    """)
    expected = "InvalidArgumentError value_start has 1 rows for 2000 kinds" if impl == "native" else "IndexError"
    assert out.startswith(expected)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_frame_facts_writes_what_it_checked(impl):
    out = outcome("scanner", impl, """
        R = 2000
        columns = dict(kind=np.full(R, 1, dtype=np.uint8), value_kind=np.zeros(R, dtype=np.uint8),
                       ks=np.full(R, -1, dtype=np.int64), ke=np.full(R, -1, dtype=np.int64),
                       vs=np.zeros(R, dtype=np.int64))
        def frame(ve, **kw):
            c = columns
            buf, starts, ends = m.frame_facts(b"7" * 64, c["kind"], c["ks"], c["ke"], c["vs"], ve,
                                              c["value_kind"], **kw)
            return len(buf), len(starts), int(ends[-1])
        # value_end a view of the offsets the write loop writes into scratch
        idx = np.zeros(4 * R, dtype=np.int64)
        ve = idx[2 * R: 3 * R]
        ve[:] = 1
        report(lambda: frame(ve, scratch=(np.zeros(60 * R, dtype=np.uint8), idx)))
        # value_end changed by another thread between the check and the write
        ve = np.ones(R, dtype=np.int64)
        stop = False
        def flip():
            while not stop:
                ve[R - 1] = 1
                ve[R - 1] = 1 << 36
        t = threading.Thread(target=flip)
        t.start()
        seen = set()
        try:
            for _ in range(200):
                try:
                    seen.add(frame(ve)[0])
                except Exception as e:
                    seen.add(type(e).__name__)
        finally:
            stop = True
            t.join()
        print(sorted(map(str, seen)))
    """).splitlines()
    assert out[0] == "ok (70000, 4000, 70000)"
    assert set(eval(out[1])) <= {"70000", "SpanError"}
