"""Every error provgate raises. All derive from :class:`ProvgateError`."""

from __future__ import annotations

from typing import Any


def _rebuild(cls: type, args: tuple[Any, ...]) -> BaseException:
    """An error of ``cls`` with ``args``, made without calling its ``__init__`` (whose
    keyword-only fields pickle restores from the state instead)."""
    exc = cls.__new__(cls)
    exc.args = args
    return exc


class ProvgateError(Exception):
    """Base class of every provgate error. Every one round-trips through pickle with its fields
    (a worker pool's worker raising one: red team 134, F04). BaseException's own pickling calls
    ``cls(*args)``, which a class with required keyword-only fields refused (TypeError), and a
    ProcessPoolExecutor then broke the whole pool; the fields are restored from the state."""

    def __reduce__(self) -> tuple[Any, ...]:
        state = dict(self.__dict__)
        if isinstance(self, ImportError):  # (name and path are ImportError's own, not in __dict__)
            state.setdefault("name", self.name)
            state.setdefault("path", self.path)
        if isinstance(self, OSError):  # (as are OSError's: StoreIOError, StoreBusyError)
            for key in ("errno", "strerror", "filename", "filename2"):
                if getattr(self, key) is not None:
                    state.setdefault(key, getattr(self, key))
        return (_rebuild, (type(self), self.args), state or None)


class InvalidHandleError(ProvgateError, ValueError):
    """A handle is empty, too long, not a ``str``, or contains NUL or a lone surrogate."""


class InvalidContentError(ProvgateError, ValueError):
    """Content is of the wrong type, not valid UTF-8, contains a lone surrogate, or is too large."""


class HandleConflictError(ProvgateError):
    """A handle was put again with different content; handles are immutable."""


class UnknownHandleError(ProvgateError, KeyError):
    """A handle does not resolve in the durable store."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class StoreCorruptionError(ProvgateError):
    """Bytes read from the store do not hash to the digest recorded for them."""


class InvalidDigestError(ProvgateError, ValueError):
    """A digest string is malformed or names an unsupported algorithm."""


class ProvenanceResolutionError(ProvgateError):
    """A pointer cannot be resolved byte-exactly against its original source.

    ``reason`` is one of ``unknown_handle``, ``source_changed``, ``out_of_range``,
    ``span_mismatch``, ``nominal`` (the pointer points into a summary, not a source).
    """

    def __init__(self, message: str, *, reason: str, pointer: Any = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.pointer = pointer


class SpanError(ProvgateError, ValueError):
    """Span offsets are out of range, inverted, or of the wrong type."""


class LimitExceededError(ProvgateError, ValueError):
    """An input exceeds a documented cap (pattern count, pattern length, match count, size);
    ``field`` names the offending field of an edit when there is one (``sources['tool:x']``)."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class EditFormatError(ProvgateError, ValueError):
    """An edit, window or block is malformed; ``field`` names the offending field."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class ProvenanceInvariantError(ProvgateError):
    """A context edit violates a provenance invariant; ``verdict`` carries the evidence."""

    def __init__(self, message: str, *, verdict: Any = None) -> None:
        super().__init__(message)
        self.verdict = verdict


class InvalidArgumentError(ProvgateError, ValueError):
    """An argument other than a handle, content or digest (``kind``, ``ts``, an audit record,
    a cache version, a limit) has the wrong type or value; ``argument`` names it."""

    def __init__(self, message: str, *, argument: str | None = None) -> None:
        super().__init__(message)
        self.argument = argument


class StoreReadOnlyError(InvalidArgumentError):
    """The store cannot be written (and, for a store in a read-only directory, not even
    read): it was opened with ``read_only=True``, the file is read-only to this process, the
    file system is mounted read-only, or its directory is not writable and SQLite cannot create
    the ``-wal`` and ``-shm`` files it needs beside a WAL store to read it at all (or, opened
    read-only, the journal a stopped writer left must first be rolled back). ``path`` is the
    store file; ``argument`` is ``"path"`` (a subclass of :class:`InvalidArgumentError`, which
    a path the store cannot open already raises). ``directory`` is True when the directory is
    what is read-only."""

    def __init__(self, message: str, *, path: str, directory: bool = False) -> None:
        super().__init__(message, argument="path")
        self.path = path
        self.directory = directory


class StoreSchemaError(ProvgateError):
    """The file is not a provgate store, or it was written by a newer provgate schema."""


class StoreClosedError(ProvgateError, ValueError):
    """The store was closed, or is an in-memory store used in a child after ``fork()``."""


class StoreBusyError(ProvgateError, TimeoutError):
    """Other writers held the store's write lock for longer than the retry budget allows."""


class StoreIOError(ProvgateError, OSError):
    """The disk refused a read or write of the store (SQLite's SQLITE_IOERR or SQLITE_FULL: a
    full disk or file system, a file-size limit, a failing device). A write that met it was
    rolled back whole: nothing of it is in the store, which works again once the disk does.
    ``path`` is the store file; ``code`` SQLite's name of the error (``SQLITE_FULL``,
    ``SQLITE_IOERR_WRITE``, ...)."""

    def __init__(self, message: str, *, path: str, code: str | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.code = code


class PointerFormatError(EditFormatError):
    """A pointer or its JSON form is malformed; ``field`` names the offending field."""


class CompactionError(ProvgateError):
    """A compaction cannot be planned or carried out as asked."""


class CompactionBudgetError(CompactionError, ValueError):
    """The token budget is smaller than the pinned blocks alone, which may not be evicted.

    ``pinned`` lists ``(block id, tokens)`` of every pinned block, ``pinned_tokens`` their sum.
    """

    def __init__(self, message: str, *, budget_tokens: int, pinned_tokens: int,
                 pinned: tuple[tuple[str, int], ...]) -> None:
        super().__init__(message)
        self.budget_tokens = budget_tokens
        self.pinned_tokens = pinned_tokens
        self.pinned = pinned


class SummarizerError(CompactionError):
    """The caller's summarizer raised, or returned what cannot be a summary.

    ``summarizer`` names the callable, ``group`` the summary it was asked for, ``reason`` is one
    of ``raised``, ``not_text``, ``empty``, ``invalid_text``, ``unchanged``, ``over_allowance``.
    """

    def __init__(self, message: str, *, summarizer: str, group: str, reason: str) -> None:
        super().__init__(message)
        self.summarizer = summarizer
        self.group = group
        self.reason = reason


class OptionalDependencyError(ProvgateError, ImportError):
    """A feature needs a package that is only installed with an optional extra
    (``pip install "provgate[EXTRA]"``); ``package`` and ``extra`` name them."""

    def __init__(self, message: str, *, package: str, extra: str) -> None:
        super().__init__(message, name=package)
        self.package = package
        self.extra = extra
