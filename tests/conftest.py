"""Shared fixtures. Hot-path tests take an implementation fixture that runs them twice:
once against the compiled module and once against the pure-Python reference."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest
from hypothesis import settings

# No per-example deadline: CI's machine may be slow or shared for a moment, and a test that
# fails for the clock fails for nothing the code did (speed lives in benchmarks/). Each test's
# own @settings keep this for what they leave unset.
settings.register_profile("provgate", deadline=None)
settings.load_profile("provgate")

ROOT = Path(__file__).resolve().parent.parent
TESTDATA = ROOT.parent / "shared" / "testdata"

NO_EXTENSIONS = os.environ.get("PROVGATE_NO_EXTENSIONS", "") not in ("", "0")
# With PROVGATE_NO_EXTENSIONS=1 only the reference exists to test; the native parameter is
# then not generated at all (not skipped), and test_native_loaded checks the switch instead.
IMPLEMENTATIONS = ["reference"] if NO_EXTENSIONS else ["native", "reference"]


def load_implementation(native_name: str, reference_name: str, which: str):
    if which == "native":
        return importlib.import_module(f"provgate._ext.{native_name}")
    return importlib.import_module(f"provgate.{reference_name}")


@pytest.fixture(scope="session")
def testdata() -> Path:
    assert TESTDATA.is_dir(), f"shared test data missing at {TESTDATA}"
    return TESTDATA
