"""Build the native hot paths.

Every ``ext/<name>.pyx`` becomes ``provgate._ext.<name>``. The Cython compiler directives live
here and nowhere else. ``PROVGATE_BOUNDSCHECK=1`` builds a checked variant (bounds checks on)
so the test suite can also run against it. ``PROVGATE_BUILD_ONLY=a,b`` limits a development
build to some modules.
"""

import os
import platform
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).parent
EXT_DIR = HERE / "ext"

CHECKED = os.environ.get("PROVGATE_BOUNDSCHECK", "") not in ("", "0")

COMPILER_DIRECTIVES = {
    "language_level": 3,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
    "boundscheck": CHECKED,
    "embedsignature": True,
}

BASE_COMPILE_ARGS = ["-O3"]
# Modules compiled twice with different instruction sets; the import switch picks one at
# run time after asking the CPU, so a build never runs AVX2 code on a machine without it.
X86_64 = platform.machine().lower() in ("x86_64", "amd64")
EXTRA_COMPILE_ARGS = {
    # elsewhere the module still builds, with portable vectors, and the CPU check says no
    "hashing_avx2": ["-mavx2"] if X86_64 else [],
}


def extensions():
    only = {n for n in os.environ.get("PROVGATE_BUILD_ONLY", "").split(",") if n}
    sources = sorted(EXT_DIR.glob("*.pyx"))
    if not sources:
        # without them the package would install and quietly run the pure-Python references
        raise SystemExit(f"provgate: no native sources in {EXT_DIR}: this source tree or sdist is incomplete")
    exts = []
    for pyx in sources:
        name = pyx.stem
        if only and name not in only:
            continue
        exts.append(
            Extension(
                f"provgate._ext.{name}",
                [str(pyx.relative_to(HERE))],
                include_dirs=[numpy.get_include(), str(EXT_DIR)],
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                extra_compile_args=BASE_COMPILE_ARGS + EXTRA_COMPILE_ARGS.get(name, []),
            )
        )
    return exts


# The modules are independent, so translating and compiling them one after another would leave
# every core but one idle for the whole build (most of CI's install time); both steps take one
# module per core. ``PROVGATE_BUILD_JOBS`` overrides the count (1 builds serially).
BUILD_JOBS = int(os.environ.get("PROVGATE_BUILD_JOBS", "0") or 0) or os.cpu_count() or 1

setup(
    ext_modules=cythonize(
        extensions(),
        include_path=[str(EXT_DIR)],
        compiler_directives=COMPILER_DIRECTIVES,
        # cythonize only compares timestamps, so a checked build needs its own C files
        build_dir="build/cython-checked" if CHECKED else "build/cython",
        nthreads=BUILD_JOBS if BUILD_JOBS > 1 else 0,
    ),
    options={"build_ext": {"parallel": BUILD_JOBS}},
)
