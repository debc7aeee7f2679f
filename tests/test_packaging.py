"""The source distribution carries everything the native build reads.

setuptools packs the Cython output it is given, not the ``.pyx``, ``.pxd`` and ``.pxi`` files it
came from, so an sdist without ``MANIFEST.in`` would install with no native module at all (and
run the pure-Python references, several times slower). The manifest template is evaluated here
the way setuptools evaluates it, without building anything.
"""

from __future__ import annotations

from pathlib import Path

from setuptools._distutils import filelist as setuptools_filelist

ROOT = Path(__file__).resolve().parent.parent


def _manifest_files() -> set[str]:
    """The files MANIFEST.in selects, as setuptools selects them (paths from the root)."""
    files = setuptools_filelist.FileList()
    files.allfiles = [Path(f).relative_to(ROOT).as_posix() for f in setuptools_filelist.findall(str(ROOT))]
    for line in (ROOT / "MANIFEST.in").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            files.process_template_line(line)
    return set(files.files)


def test_the_sdist_carries_every_native_source():
    packed = _manifest_files()
    native = {p.relative_to(ROOT).as_posix() for p in (ROOT / "ext").iterdir() if p.suffix in (".pyx", ".pxd", ".pxi")}
    assert native, "no native sources found"
    assert native <= packed, sorted(native - packed)


def test_the_sdist_carries_the_typing_files():
    packed = _manifest_files()
    typing = {p.relative_to(ROOT).as_posix() for p in (ROOT / "src" / "provgate").rglob("*")
              if p.suffix == ".pyi" or p.name == "py.typed"}
    assert typing and typing <= packed, sorted(typing - packed)
