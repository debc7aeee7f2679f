"""Every public provgate error round-trips through pickle with its fields (red team 134, F04):
six classes with required keyword-only fields failed ``pickle.loads`` with a TypeError, and a
ProcessPoolExecutor worker raising one broke the whole pool. The classes are found by
introspecting ``provgate.errors`` and ``provgate.__all__``, so a new one is covered by itself."""

from __future__ import annotations

import concurrent.futures as cf
import inspect
import multiprocessing
import pickle

import pytest

import provgate
from provgate import errors
from provgate.store import SourceStore


def _classes() -> list[type]:
    found = {obj for _, obj in inspect.getmembers(errors, inspect.isclass)
             if issubclass(obj, BaseException) and obj.__module__ == errors.__name__}
    for name in provgate.__all__:
        obj = getattr(provgate, name, None)
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            found.add(obj)
    return sorted(found, key=lambda c: c.__name__)


def _sample(cls: type) -> BaseException:
    """An instance with every keyword-only field given a value of its own (not the default)."""
    kwargs = {}
    for p in inspect.signature(cls.__init__).parameters.values():
        if p.kind is not p.KEYWORD_ONLY:
            continue
        ann = str(p.annotation)
        if "tuple" in ann:
            kwargs[p.name] = (("b1", 3),)
        elif "bool" in ann:
            kwargs[p.name] = True
        elif "int" in ann and "str" not in ann:
            kwargs[p.name] = 7
        else:
            kwargs[p.name] = f"{p.name}-value"
    return cls(f"a message of {cls.__name__}", **kwargs)


def _fields(exc: BaseException) -> dict:
    out = {"type": type(exc), "args": exc.args, "str": str(exc), "dict": dict(exc.__dict__)}
    for key in ("name", "path", "errno", "strerror", "filename"):
        if hasattr(exc, key):
            out[key] = getattr(exc, key)
    return out


def test_the_introspection_finds_the_classes_that_did_not_pickle():
    names = {c.__name__ for c in _classes()}
    assert {"ProvenanceResolutionError", "StoreReadOnlyError", "StoreIOError", "CompactionBudgetError",
            "SummarizerError", "OptionalDependencyError", "ProvgateError"} <= names


@pytest.mark.parametrize("cls", _classes(), ids=lambda c: c.__name__)
def test_every_error_round_trips_through_pickle_with_its_fields(cls):
    exc = _sample(cls)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(exc, protocol=protocol))
        assert _fields(back) == _fields(exc)
        assert isinstance(back, cls)


def test_kw_fields_survive_pickle():
    exc = errors.StoreIOError("disk full", path="/x/db", code="SQLITE_FULL")
    back = pickle.loads(pickle.dumps(exc))
    assert (back.path, back.code, str(back)) == ("/x/db", "SQLITE_FULL", "disk full")
    dep = pickle.loads(pickle.dumps(errors.OptionalDependencyError("no matplotlib", package="matplotlib",
                                                                   extra="plot")))
    assert (dep.package, dep.extra, dep.name) == ("matplotlib", "plot", "matplotlib")
    busy = pickle.loads(pickle.dumps(errors.StoreBusyError(16, "busy")))
    assert (busy.errno, busy.strerror) == (16, "busy")


def _put_read_only(path: str) -> None:
    s = SourceStore(path, read_only=True)
    try:
        s.put("tool:x", "x")
    finally:
        s.close()


def test_a_worker_pool_gets_the_worker_error_not_a_broken_pool(tmp_path):
    path = str(tmp_path / "db")
    SourceStore(path).close()
    ctx = multiprocessing.get_context("fork")
    with cf.ProcessPoolExecutor(1, mp_context=ctx) as pool:
        futures = [pool.submit(_put_read_only, path) for _ in range(2)]
        for f in futures:
            with pytest.raises(errors.StoreReadOnlyError) as info:
                f.result(timeout=120)
            assert info.value.path == path
        assert pool.submit(len, "abc").result(timeout=120) == 3  # (the pool still works)
