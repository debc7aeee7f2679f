"""The ``provgate`` command line.

    provgate check EDIT.json [--store PATH] [--policy reject|reclassify]
    provgate verify --store PATH ANSWER.txt
    provgate report [--store PATH] [--json] [--plot FILE.png]
    provgate --version

Exit status: 0 accepted (or all citations accurate), 1 rejected (or a citation that is not
accurate), 2 unusable input — with a JSON error object on stderr that names what is wrong, and nothing
written to the store. A store this process may not write is ``read_only_store`` (field ``--store``):
``verify`` and ``report`` open the store read-only and never write to it (a store of an older
schema is read as it is, not upgraded), so they work on a read-only store file; ``check`` writes
(its audit record) and needs write access; a store in a read-only directory cannot be opened at all.
A write the disk refuses (full, failing) is ``StoreIOError``, rolled back.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, BinaryIO

from provgate import __version__
from provgate.errors import (
    ProvgateError,
    StoreBusyError,
    StoreClosedError,
    StoreCorruptionError,
    StoreIOError,
    StoreReadOnlyError,
    StoreSchemaError,
)

EXIT_OK, EXIT_REJECTED, EXIT_UNUSABLE = 0, 1, 2
DEFAULT_MAX_INPUT_BYTES = 64 << 20
# verify lists this many of each kind of entry by default: a citation's JSON is about 1 KB, and
# a 63 MB answer of citations printed 3 GB of it from 24 GB of memory (red team 90, F07)
DEFAULT_MAX_LISTED = 1000


def _listed(value: str) -> int | None:
    """--max-listed: a count >= 0, or 'all'."""
    if value == "all":
        return None
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a count or 'all', not {value!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a count >= 0, not {n}")
    return n
# the largest --max-input-bytes: inputs are read in chunks, so the bound is only what an index can hold
MAX_INPUT_BYTES_LIMIT = sys.maxsize - 1
_READ_CHUNK = 1 << 20


class _Run:
    """What one ``main`` call has committed, and SIGINT's handling around the commit (red team
    134, F03). ``code`` is the committed verdict's exit status (None: nothing committed yet).
    While ``deferring``, a SIGINT is held in ``pending`` and raised once the commit is whole and
    ``code`` is set, so an interrupt never falls between the store's COMMIT and the record of it."""

    def __init__(self) -> None:
        self.code: int | None = None
        self.accepted = False
        self.deferring = False
        self.pending = False
        # a SIGINT held through the commit: the verdict is recorded, and is printed whole all the
        # same; stderr then says the interrupt came after the commit
        self.late = False
        # the verdict's bytes for stdout, and how many of them stdout took (before an interrupt)
        self.verdict_bytes = 0
        self.written = 0

    def on_sigint(self, signum: int, frame: Any) -> None:
        if self.deferring:
            self.pending = True
            return
        raise KeyboardInterrupt

    def committed(self, accepted: bool) -> None:
        """The verdict is in the store: from here an interrupt is 'interrupted after commit'. One
        held through the commit is not raised: the check is done and recorded, and what is left,
        printing the verdict, is printed whole (red team 134, F03: stdout was pointed at the null
        device and stderr said stdout 'may not hold it whole' while it held none of it); a
        SIGINT from here on cuts the printing (a reader that stopped reading must not hang us)."""
        self.accepted = accepted
        self.code = EXIT_OK if accepted else EXIT_REJECTED
        self.deferring = False
        if self.pending:
            self.pending = False
            self.late = True

    def allow(self) -> None:
        """The commit was not made (the transaction rolled back): an interrupt held is raised now."""
        self.deferring = False
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt


_RUN = _Run()


class UsageError(Exception):
    """Unusable input detected by the command line itself (missing file, too large, …)."""

    def __init__(self, message: str, *, kind: str = "usage", field: str | None = None,
                 reason: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.field = field
        self.reason = reason


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on bad arguments already; make it print the same JSON error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # stderr stays one JSON object; the usage is in the message's hint, and the argument it
        # is about in its field (red team 134, F07)
        _print_error(UsageError(f"{message} (see {self.prog} --help)", kind="usage", field=_argument_of(message)))
        raise SystemExit(EXIT_UNUSABLE)


def _argument_of(message: str) -> str | None:
    """The argument an argparse error is about: ``argument --policy: invalid choice`` (the first
    of its names), ``the following arguments are required: EDIT.json``, ``unrecognized
    arguments: --x``."""
    import re

    for pattern in (r"^argument ([^:/ ]+)", r"^the following arguments are required: ([^, ]+)",
                    r"^unrecognized arguments: (\S+)"):
        found = re.match(pattern, message)
        if found:
            return found.group(1)
    return None


def _print_error(exc: BaseException) -> None:
    kind = getattr(exc, "kind", None) or type(exc).__name__
    obj: dict[str, Any] = {"error": {"type": kind, "message": str(exc)}}
    field = getattr(exc, "field", None)
    if field is not None:
        obj["error"]["field"] = field
    reason = getattr(exc, "reason", None)
    if reason is not None:
        obj["error"]["reason"] = reason
    try:
        sys.stderr.write(json.dumps(obj, ensure_ascii=False) + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        # stderr is closed, /dev/full, a full disk: the message is lost, never the exit status,
        # which the caller returns as it is (red team 134, F11: the write raised inside main's
        # handler, and every exit 2 became Python's exit 1, "rejected"); stderr is pointed at
        # the null device so that the interpreter's flush at exit cannot fail again
        _to_null(sys.stderr)


def _to_null(stream: Any) -> None:
    """Point ``stream``'s file descriptor at the null device (when it has one), so that what
    its buffer still holds is dropped by the flush at exit instead of failing (or blocking) again."""
    import os

    try:
        fd = stream.fileno() if stream is not None else None
    except (OSError, ValueError, AttributeError):
        fd = None
    if fd is None:
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except OSError:
        pass


def _check_max_input_bytes(value: int) -> int:
    if not 0 <= value <= MAX_INPUT_BYTES_LIMIT:
        raise UsageError(f"--max-input-bytes must be an integer in 0..{MAX_INPUT_BYTES_LIMIT}, got {value}",
                         kind="usage", field="--max-input-bytes")
    return value


def _read_limited(stream: BinaryIO, max_bytes: int) -> bytes:
    """At most ``max_bytes + 1`` bytes of ``stream``, read in chunks: a single read of that many
    would allocate it up front, whatever the input's size."""
    chunks: list[bytes] = []
    left = max_bytes + 1
    while left > 0:
        chunk = stream.read(min(left, _READ_CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _read_input(name: str, max_bytes: int, field: str | None = None) -> bytes:
    """Read a file (or stdin for ``-``) without ever holding more than ``max_bytes + 1``;
    ``field`` is the argument's name in errors (``EDIT.json``)."""
    max_bytes = _check_max_input_bytes(max_bytes)
    if name == "-":
        if sys.stdin is None:  # (the process was started with stdin closed)
            raise UsageError("input '-' is stdin, which is closed", kind="missing_input", field=field)
        stream: BinaryIO = sys.stdin.buffer
        data = _read_limited(stream, max_bytes)
    else:
        path = Path(name)
        if not path.exists():
            raise UsageError(f"input file {name!r} does not exist", kind="missing_input", field=field)
        if path.is_dir():
            raise UsageError(f"input {name!r} is a directory, not a file", kind="missing_input", field=field)
        size = path.stat().st_size
        if size > max_bytes:
            raise UsageError(f"input {name!r} is {size} bytes, above the limit of {max_bytes} bytes "
                             "(--max-input-bytes)", kind="input_too_large")
        with path.open("rb") as fh:
            data = _read_limited(fh, max_bytes)
    if len(data) > max_bytes:
        raise UsageError(f"input is larger than the limit of {max_bytes} bytes (--max-input-bytes)",
                         kind="input_too_large")
    return data


def _open_store(path: str | None, *, create: bool, read_only: bool = False) -> Any:
    """``read_only``: the command only reads the store (verify, report), which is opened so that
    nothing is written to it, not even the upgrade of an older schema (red team 82, F04); it has
    no --create, so its messages point at --store and $PROVGATE_STORE instead (red team 33, 07)."""
    import stat

    from provgate.errors import InvalidArgumentError
    from provgate.store import SourceStore, default_store_path

    if path is None:  # no --store: $PROVGATE_STORE if set and not empty, else the default path
        target = default_store_path()
    elif not path:
        raise UsageError("--store is an empty path; name the store file (or leave --store out for "
                         "$PROVGATE_STORE or the default store)", kind="usage", field="--store")
    else:
        target = Path(path)
    if str(target) != ":memory:" and target.is_dir():
        raise UsageError(f"store {str(target)!r} is a directory, not a store file", kind="bad_store", field="--store")
    if str(target) != ":memory:" and target.exists() and not stat.S_ISREG(target.stat().st_mode):
        raise UsageError(f"store {str(target)!r} is not a regular file (a device, FIFO or socket cannot hold a store)",
                         kind="bad_store", field="--store")
    if str(target) != ":memory:" and not target.exists() and not create:
        hint = ("this command only reads a store: check --store or $PROVGATE_STORE" if read_only
                else "pass --create to make a new one")
        raise UsageError(f"store {str(target)!r} does not exist ({hint})", kind="missing_store", field="--store")
    if path is not None and str(target) != ":memory:" and not target.exists() and not target.parent.is_dir():
        # --create makes the store file, never its directory (a typo should not make a tree); the
        # store's FileNotFoundError reached main as an os_error without the field (red team 50, f09)
        raise UsageError(f"the directory of the store {str(target)!r} does not exist: {str(target.parent)!r} "
                         "(--create makes a store file, not its directory)", kind="missing_store", field="--store")
    if str(target) != ":memory:" and not create and target.is_file() and target.stat().st_size == 0:
        # not a store: check would write a new schema into it, and makes a store only when asked
        # to; verify and report only read one
        hint = "this command only reads a store" if read_only else "pass --create to make one there"
        raise UsageError(f"store {str(target)!r} is an empty file, not a provgate store ({hint})", kind="missing_store",
                         field="--store")
    if not read_only and str(target) != ":memory:" and target.is_file() and not _writable_file(target):
        # check writes its verdict: SQLite would open the file read-only, create the -wal and -shm
        # files beside it, refuse the first write, and leave them, since only a connection that
        # can lock the file for writing removes them (red team 134, F02)
        raise StoreReadOnlyError(f"store {str(target)!r} is read-only to this process (the file is not writable by it, "
                                 "or its file system is mounted read-only): check records its verdict in the "
                                 "store and needs write access to the file; `provgate verify` and `provgate "
                                 "report` read it as it is", path=str(target))
    try:
        return SourceStore(str(target), read_only=read_only)
    except InvalidArgumentError as exc:  # the path, refused by the store itself (a race with the checks above)
        if exc.argument != "path" or isinstance(exc, StoreReadOnlyError):  # (main names a read-only store)
            raise
        raise UsageError(str(exc), kind="bad_store", field="--store") from None


def _writable_file(path: Path) -> bool:
    """Whether this process may write the file (its effective ids; a read-only mount too)."""
    import os

    return os.access(path, os.W_OK, effective_ids=os.access in os.supports_effective_ids)


def _cmd_check(args: argparse.Namespace) -> int:
    from provgate.errors import InvalidArgumentError
    from provgate.gate import check_session
    from provgate.window import encode_text, parse_edit

    if not 0.0 <= args.retention_floor <= 1.0:  # NaN fails both
        raise UsageError(f"--retention-floor must be a number in [0, 1], got {args.retention_floor!r}",
                         kind="usage", field="--retention-floor")
    if args.session_floor is not None and not 0.0 <= args.session_floor <= 1.0:  # NaN fails both
        raise UsageError(f"--session-floor must be a number in [0, 1], got {args.session_floor!r}",
                         kind="usage", field="--session-floor")
    if args.session is not None:
        # before anything is read or written: a name that is not UTF-8 (argv bytes arrive as
        # lone surrogates) could otherwise fail only at the audit record, after the check's writes;
        # and "all", the report's every session, is reserved (red team 122, F08)
        try:
            check_session(args.session, "--session")
        except InvalidArgumentError as exc:
            raise UsageError(str(exc), kind="usage", field="--session") from None
    _check_durable_store(args.store)
    data = _read_input(args.edit, args.max_input_bytes, "EDIT.json")
    edit = parse_edit(data)  # everything about the input is validated before the store is opened
    for side, window in (("pre", edit.pre), ("post", edit.post)):
        for i, block in enumerate(window):
            # block texts are checked for lone surrogates where the gate encodes them, which is
            # after the store is opened (and, with --create, made)
            encode_text(block.text, f"{side}[{i}].text")
    _scan_large_texts(edit)
    store = _open_store(args.store, create=args.create)
    try:
        verdict = _check_and_commit(store, edit, args)
    finally:
        store.close()
    code = EXIT_OK if verdict.accepted else EXIT_REJECTED
    # the verdict is durable in the audit log now: it is written as UTF-8 bytes, which every
    # verdict's text is, whatever encoding the stream was given (PYTHONIOENCODING=ascii made the
    # write fail after the commit and the command exit 2, "nothing written": red team 83, F02)
    out = verdict.to_json(include_window=args.window)
    if args.window and not verdict.accepted:
        # "the window to commit": a rejected edit has none; its post window here was taken for one
        # by an integrator that did not read `accepted` (red team 134, F17)
        out["window"] = None
    text = json.dumps(out, ensure_ascii=False, indent=2) + "\n"
    try:
        _write_stdout_utf8(text)
    except (OSError, ValueError) as exc:
        # stdout closed, a full device, a closed pipe: the verdict is recorded all the same, so
        # the exit status is still the verdict's, never 2 ("nothing written"), which an agent
        # retrying on 2 would record twice (red team 122, F05); stderr says what happened
        _stdout_failed(exc, verdict.accepted, code)
        return code
    if _RUN.late:
        # everything is done and said: stdout holds the whole verdict, the status is its own;
        # stderr only tells the interrupt's sender that it came too late to stop the check
        _print_error(UsageError(
            f"interrupted (SIGINT) after commit: the interrupt came once the verdict ({_verdict_word(verdict.accepted)}, "
            f"exit {code}) was recorded in the store's audit log, so the check was completed, not stopped; stdout "
            "holds the whole verdict; the check is not to be repeated", kind="interrupted_after_commit",
            reason="interrupted"))
    return code


def _verdict_word(accepted: bool) -> str:
    return "accepted" if accepted else "rejected"


# checks made without the store's write lock before one is made under it (_check_and_commit)
_UNLOCKED_CHECKS = 2


def _check_and_commit(store: Any, edit: Any, args: argparse.Namespace) -> Any:
    """The check, without the store's write lock, and then its commit, under the lock, in one
    short transaction: the edit's inline sources, the fact cache and the audit record together,
    or, when anything raises (a damaged source the check must read, a disk refusing the audit
    record, a lock held too long), nothing, as exit 2 promises (red team 122, F03). The check
    runs on a StagedStore, which keeps those writes in memory (its reads see the staged sources
    as stored), so another writer of the store (an agent putting a tool call's result, another
    check) is never made to wait for a check, only for a commit (red team 124, F04: the lock
    was held from the session's resume through every rule). Under the lock the commit first
    asks whether what the check read may have changed since it began: whether another check of
    the session recorded a verdict (it took the next cycle), or a source stored since is one the
    check asked about (a handle it read or found unstored, a name a marker was looked up by, a
    content it compared: StagedStore.answers_hold). A source no question of the check names is
    no change to its verdict, which is committed (red team 127, F03: any put of another process
    made the check run again, and after two the check held the lock throughout, so the put of
    an agent storing tool results while checks run failed past its busy timeout). If the
    answers may have changed, or it cannot tell, the verdict may be stale (a source now resolves
    a marker, another check of the session took the next cycle), and the check is made again:
    without the lock once more, and then, if that one's answers moved too, under the lock, on
    the store as it is (a verdict is never committed on an answer another writer changed since
    the check began)."""
    from provgate._staged import StagedStore, store_basis
    from provgate.gate import Gate

    def check(target: Any) -> Any:
        gate = Gate(target, policy=args.policy, retention_floor=args.retention_floor, session=args.session,
                    session_floor=args.session_floor)
        # exit 0 is a command-line agent's commit point: an accepted edit's post pins stick
        return gate.check_edit(edit, commit=True)

    # a SIGINT from the moment the commit is decided until it is made is held (_RUN), and raised
    # once the commit is recorded as made, or undone (red team 134, F03)
    for _ in range(_UNLOCKED_CHECKS):
        basis = store_basis(store, args.session)  # (before the session is resumed)
        staged = StagedStore(store, basis[0])
        verdict = check(staged)
        committed = False
        try:
            with store._one_transaction():
                if staged.answers_hold(store, args.session, basis):
                    _RUN.deferring = True
                    staged.commit(store)
                    committed = True
        except BaseException:
            committed = False  # (the COMMIT itself raised: rolled back)
            raise
        finally:
            if not committed:
                _RUN.allow()
        if committed:
            _RUN.committed(verdict.accepted)
            return verdict
        # (nothing written: the transaction held no write, and the staged check is dropped)
    # other writers changed what every check made without the lock read: the last one is made
    # under it, where nothing can move (as every check was made before red team 124, F04)
    done = False
    try:
        with store._one_transaction():
            verdict = check(store)
            _RUN.deferring = True
            done = True
    except BaseException:
        done = False  # (the check or the COMMIT raised: rolled back)
        raise
    finally:
        if not done:
            _RUN.allow()
    _RUN.committed(verdict.accepted)
    return verdict


def _check_durable_store(path: str | None) -> None:
    """check records its verdict, the session's state and the edit's inline sources in the
    store, and exit 0 is a command-line agent's commit point: an in-memory store (for tests)
    would keep none of it past this process, and --session would resume nothing, silently (red
    team 122, F07)."""
    from provgate.store import default_store_path

    target = str(default_store_path()) if path is None else path
    if target == ":memory:":
        where = "--store" if path is not None else "$PROVGATE_STORE"
        raise UsageError(f"store ':memory:' ({where}) is an in-memory store, for tests: check records its verdict, "
                         "the session and the edit's sources in the store, and an in-memory one keeps nothing past "
                         "this command; name a store file", kind="bad_store", field="--store")


def _stdout_failed(exc: BaseException, accepted: bool, code: int, *, reason: str | None = None) -> None:
    """After the verdict was committed, stdout refused it: say so on stderr (the error shape, a
    type of its own), and point stdout at the null device so that the interpreter's own flush
    at exit, of what the stream still holds, cannot fail again (and exit 120)."""
    verdict = _verdict_word(accepted)
    cause = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if reason == "interrupted":
        # (what stdout took is known to the byte only up to the write the interrupt cut, which
        # may have taken some bytes more; never the whole verdict, which it would have returned)
        if not _RUN.verdict_bytes:
            taken = "stdout holds none of it"
        elif _RUN.written >= _RUN.verdict_bytes:
            taken = "stdout holds the whole verdict"
        else:
            taken = (f"stdout took {_RUN.written} of its {_RUN.verdict_bytes} bytes (the write the interrupt cut may "
                     "have taken a few more): what it holds is not the whole verdict")
        message = (f"interrupted after commit: the verdict ({verdict}, exit {code}) is recorded in the store's audit "
                   f"log, and the check was completed; the interrupt cut its printing: {taken} ({cause}); the "
                   "check is not to be repeated: `provgate report` reads it back")
    else:
        message = (f"the verdict ({verdict}, exit {code}) is recorded in the store's audit log, but stdout could "
                   f"not take it ({cause}); the check is not to be repeated: `provgate report` reads it back")
    _to_null(sys.stdout)
    # (stderr gone too: _print_error drops the message, the exit status still says the verdict)
    _print_error(UsageError(message, kind="stdout_failed", reason=reason))


def _scan_large_texts(edit: Any) -> None:
    """Scan every text of the edit long enough to exceed the scanner's span limit before the
    store is opened: the gate scans them before it writes, but with --create the store file was
    made first, and the error named no field (red team 83, F03). A shorter text cannot hold
    that many spans; a text that long is rare, and the gate scans it again."""
    from provgate.errors import LimitExceededError
    from provgate.facts import extract
    from provgate.gate import _PREFLIGHT_CHARS

    texts = [(f"{side}[{i}].text", b.text) for side, window in (("pre", edit.pre), ("post", edit.post))
             for i, b in enumerate(window)]
    texts += [(f"sources[{handle!r}]", text) for handle, text in edit.sources.items()]
    for field, text in texts:
        if len(text) >= _PREFLIGHT_CHARS:
            try:
                extract(text)
            except LimitExceededError as exc:
                raise UsageError(f"{field}: {exc}", kind="LimitExceededError", field=field) from None


def _write_stdout_utf8(text: str) -> None:
    if sys.stdout is None:  # (the process was started with stdout closed)
        raise OSError("stdout is closed")
    stream = getattr(sys.stdout, "buffer", None)
    if stream is None:  # (a text stream without bytes underneath, as tests capture it)
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    stream.flush()
    data = text.encode("utf-8")
    _RUN.verdict_bytes = len(data)
    # (to the unbuffered file under the buffer, where a write returns what the device took, so
    # that an interrupt can be told how much of the verdict stdout holds)
    _write_all(getattr(stream, "raw", stream), data, _RUN)


def _write_all(stream: Any, data: bytes, progress: Any = None) -> None:
    """Every byte of ``data``, or an OSError: a blocking write cut by EPIPE after some progress
    (a reader that closed the pipe part-way) returns a short count instead of raising, and the
    truncated output passed for written (red team 134, F14); the write of the rest raises."""
    import errno

    view = memoryview(data)
    while view:
        n = stream.write(view)
        if not n:  # (None from a non-blocking stream that would block, or 0: no progress)
            raise OSError(errno.EPIPE, "the output stream took no more bytes")
        view = view[n:]
        if progress is not None:
            progress.written += n
    stream.flush()


def _cmd_verify(args: argparse.Namespace) -> int:
    from provgate.reconstruct import run_verify

    data = _read_input(args.answer, args.max_input_bytes, "ANSWER.txt")
    store = _open_store(args.store, create=False, read_only=True)
    try:
        obj, code = run_verify(store, data, limit=args.max_listed)
    finally:
        store.close()
    _write_out(sys.stdout, json.dumps(obj, ensure_ascii=False, indent=2) + "\n", "stdout")
    return code


def _write_out(stream: Any, text: str, name: str) -> None:
    """verify's and report's output (they write nothing to the store): a closed stream is exit 2
    with the error's shape, not an internal error (red team 122, F05)."""
    if stream is None:
        raise UsageError(f"{name} is closed: the output has nowhere to go", kind="output_closed")
    raw = getattr(stream, "buffer", None)
    try:
        if raw is None:  # (a text stream without bytes underneath, as tests capture it)
            stream.write(text)
            return
        data = text.encode(getattr(stream, "encoding", None) or "utf-8", getattr(stream, "errors", None) or "strict")
        stream.flush()
        _write_all(raw, data)
    except OSError as exc:
        # a closed pipe, also part-way through (F14): exit 2 naming the stream; what the stream's
        # buffer still holds goes to the null device, so the flush at exit cannot fail again
        _to_null(stream)
        raise UsageError(f"{name} could not take the output ({type(exc).__name__}: {exc}); it may be cut short",
                         kind="output_closed", field=name) from None


def _cmd_report(args: argparse.Namespace) -> int:
    from provgate.errors import InvalidArgumentError
    from provgate.gate import check_session
    from provgate.report import run_report

    for name in args.session or ():
        if name == "all":
            continue  # every session (alone), or a session an older version let be named so
        try:
            check_session(name, "--session")
        except InvalidArgumentError as exc:
            raise UsageError(str(exc), kind="usage", field="--session") from None
    if args.plot is not None:
        _check_plot_is_not_the_store(args.plot, args.store)
    store = _open_store(args.store, create=False, read_only=True)
    try:
        session = None if not args.session else (args.session[0] if len(args.session) == 1 else args.session)
        text, code = run_report(store, session=session, as_json=args.json, plot=args.plot)
    finally:
        store.close()
    _write_out(*((sys.stdout, text + "\n", "stdout") if code == EXIT_OK else (sys.stderr, text + "\n", "stderr")))
    return code


def _check_plot_is_not_the_store(plot: str, store: str | None) -> None:
    """report reads the store and never writes to it: a --plot naming the store file (or its
    -wal, -shm or -journal file), by its name, a symbolic or a hard link, is refused before the
    store is opened (red team 122, F11; report.refuse_store_file)."""
    from provgate.errors import InvalidArgumentError
    from provgate.report import refuse_store_file
    from provgate.store import default_store_path

    try:
        refuse_store_file(str(default_store_path()) if store is None else store, plot)
    except InvalidArgumentError as exc:
        raise UsageError(str(exc), kind="usage", field="--plot") from None


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="provgate", description="Gate LLM-agent context edits on provenance.")
    parser.add_argument("--version", action="version", version=f"provgate {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    check = sub.add_parser("check", help="check one edit (JSON) and print the verdict",
                           description="Check one context edit against I1-I5, P and R. Prints the verdict as "
                           "JSON; exit 0 accepted, 1 rejected, 2 unusable input.")
    check.add_argument("edit", metavar="EDIT.json", help="the edit in provgate.edit/1 format, or - for stdin")
    check.add_argument("--store", metavar="PATH", default=None,
                       help="the durable source store (default: $PROVGATE_STORE, else the per-user default path)")
    check.add_argument("--create", action="store_true", help="create the store if it does not exist")
    check.add_argument("--policy", choices=("reject", "reclassify"), default="reject",
                       help="what to do with a lossless edit that changed facts (default: reject)")
    check.add_argument("--retention-floor", type=float, default=0.95, metavar="F",
                       help="citation-marker retention floor per cycle (default: 0.95)")
    check.add_argument("--session", metavar="ID", help="continue a gate session recorded in the store's audit log "
                       "(cycle numbers, cumulative retention and sticky pins carry over)")
    check.add_argument("--session-floor", type=float, default=None, metavar="F",
                       help="also refuse an edit that takes the session's cumulative citation-marker retention "
                       "below F (default: off; each edit is held to --retention-floor)")
    check.add_argument("--window", action="store_true", help="include the window to commit in the output "
                       "(\"window\": null when the edit is rejected: there is nothing to commit)")
    check.add_argument("--max-input-bytes", type=int, default=DEFAULT_MAX_INPUT_BYTES, metavar="N",
                       help=f"refuse larger inputs (default: {DEFAULT_MAX_INPUT_BYTES})")
    check.set_defaults(func=_cmd_check)

    verify = sub.add_parser("verify", help="check the quoted citations of an answer against their sources",
                            description="Find every quotation carrying a [src:…] marker in an answer and check it "
                            "byte-exactly against the cited source. Prints citation presence vs accuracy as JSON; "
                            "exit 0 all accurate, 1 any inaccurate, 2 unusable input.")
    verify.add_argument("answer", metavar="ANSWER.txt", help="the answer text (UTF-8), or - for stdin")
    verify.add_argument("--store", metavar="PATH", default=None,
                        help="the durable source store (default: $PROVGATE_STORE, else the per-user default path)")
    verify.add_argument("--max-input-bytes", type=int, default=DEFAULT_MAX_INPUT_BYTES, metavar="N",
                        help=f"refuse larger inputs (default: {DEFAULT_MAX_INPUT_BYTES})")
    verify.add_argument("--max-listed", type=_listed, default=DEFAULT_MAX_LISTED, metavar="N",
                        help="list at most N citations, bare markers, unmarked quotes and malformed markers each; "
                        "'omitted' counts the rest, the totals count everything "
                        f"(default: {DEFAULT_MAX_LISTED}; 'all' for no limit)")
    verify.set_defaults(func=_cmd_verify)

    report = sub.add_parser("report", help="per-cycle session report from the audit log",
                            description="Citation retention per cycle, rejections by invariant, silent merges and "
                            "fact drift caught, evictions and gate latency, from the store's audit log.")
    report.add_argument("--store", metavar="PATH", default=None,
                        help="the durable source store (default: $PROVGATE_STORE, else the per-user default path)")
    report.add_argument("--session", metavar="ID", action="append",
                        help="a session id, or 'all' (default: the most recent session); repeat for several")
    report.add_argument("--json", action="store_true", help="print JSON instead of a table")
    report.add_argument("--plot", metavar="FILE.png", help="draw the retention curve and rejections per cycle "
                        "(needs the plot extra: pip install \"provgate[plot]\")")
    report.set_defaults(func=_cmd_report)
    for command in (check, verify, report):  # (--version on every command, as --help: red team 83, F05)
        command.add_argument("--version", action="version", version=f"provgate {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    """The command line. A SIGINT is exit 2 with an ``interrupted`` JSON error when nothing was
    committed. Once ``check`` committed its verdict the check is complete and recorded, and the
    exit status is the verdict's: a SIGINT held through the commit lets the verdict be printed
    whole, with an ``interrupted_after_commit`` notice on stderr; one that cuts the printing is a
    ``stdout_failed`` error (``reason: interrupted``) saying how many of the verdict's bytes stdout
    took. Either way the check is not to be repeated (red team 134, F03)."""
    import signal
    import threading

    global _RUN
    _RUN = _Run()
    previous = None
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        previous = signal.signal(signal.SIGINT, _RUN.on_sigint)
    try:
        return _main(argv)
    except KeyboardInterrupt as exc:
        if _RUN.code is not None:
            _stdout_failed(exc, _RUN.accepted, _RUN.code, reason="interrupted")
            return _RUN.code
        _print_error(UsageError("interrupted (SIGINT) before anything was committed: nothing was written to the "
                                "store", kind="interrupted"))
        return EXIT_UNUSABLE
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_UNUSABLE
    try:
        return int(args.func(args))
    except StoreReadOnlyError as exc:
        # the store (--store, or $PROVGATE_STORE / the default path without it) may not be
        # written, or, in a read-only directory, not even read: raised when it is opened, or by
        # check's first write, which SQLite rolled back
        _print_error(UsageError(str(exc), kind="read_only_store", field="--store"))
        return EXIT_UNUSABLE
    except (StoreSchemaError, StoreCorruptionError, StoreIOError, StoreBusyError, StoreClosedError) as exc:
        # the store's own refusals name it, as read_only_store does (red team 134, F07)
        _print_error(UsageError(str(exc), kind=type(exc).__name__, field="--store"))
        return EXIT_UNUSABLE
    except (UsageError, ProvgateError) as exc:
        _print_error(exc)
        return EXIT_UNUSABLE
    except OSError as exc:
        _print_error(UsageError(f"{exc.strerror or exc}: {exc.filename or ''}".strip(": "), kind="os_error"))
        return EXIT_UNUSABLE
    except Exception as exc:  # a bug must never read as "accepted" (0) or "rejected" (1)
        _print_error(UsageError(f"internal error: {type(exc).__name__}: {exc}", kind="internal_error"))
        return EXIT_UNUSABLE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
