"""`provgate check`: exit 0 accepted, 1 rejected, 2 unusable input with a JSON error object on
stderr, and nothing written to the store on exit 2. Run in-process through
``provgate.cli.main(argv)`` and as ``python -m provgate`` in a subprocess."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import provgate
import provgate.cli as cli
from gate_helpers import blk, store_state, store_with, tool
from provgate.store import SourceStore
from store_helpers import row_counts

ROOT = Path(__file__).resolve().parent.parent
CONF_H, CONF = "tool:call_8841", "retries=3\ntimeout=30s\n"


def accepted_edit() -> dict:
    pre = [tool("b1", CONF_H, CONF), blk("b2", "assistant", "The client retries 3 times [src:call_8841].\n")]
    return {"format": "provgate.edit/1", "operator": "reorder", "pre": pre, "post": pre[::-1],
            "sources": {CONF_H: CONF}}


def rejected_edit() -> dict:
    edit = accepted_edit()
    edit["operator"] = "rewrite"
    edit["post"] = [tool("b1", CONF_H, CONF.replace("retries=3", "retries=5")), edit["pre"][1]]
    return edit


def reclassifiable_edit() -> dict:
    # a rewrite that adds a grounded line of the block's own source: I2 only
    pre = [blk("b1", "tool", "retries=3\n", [CONF_H])]
    return {"operator": "rewrite", "pre": pre, "post": [blk("b1", "tool", CONF, [CONF_H])], "sources": {CONF_H: CONF}}


@pytest.fixture()
def store_path(tmp_path) -> Path:
    path = tmp_path / "store.sqlite3"
    with store_with({"tool:existing": "kept\n"}, path) as store:
        from provgate.gate import Gate

        Gate(store).check([tool("t", "tool:existing", "kept\n")], [tool("t", "tool:existing", "kept\n")],
                          operator="reorder")
    return path


def state(path: Path):
    with SourceStore(path) as store:
        return store_state(store)


def write(tmp_path: Path, doc, name: str = "edit.json") -> Path:
    p = tmp_path / name
    if isinstance(doc, bytes):
        p.write_bytes(doc)
    elif isinstance(doc, str):
        p.write_text(doc, encoding="utf-8")
    else:
        p.write_text(json.dumps(doc), encoding="utf-8")
    return p


def run_main(argv, capsys, stdin: bytes | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    try:
        code = cli.main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's own exits (--help, --version, bad arguments)
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def run_sub(argv, stdin: bytes | None = None, env_extra: dict | None = None):
    # the same provgate as this test process: the installed one in CI, the source tree in a
    # development run that sets PYTHONPATH itself
    env = dict(os.environ)
    env.pop("PROVGATE_STORE", None)
    env.update(env_extra or {})
    r = subprocess.run([sys.executable, "-m", "provgate", *map(str, argv)], input=stdin, capture_output=True,
                       env=env, timeout=120)
    return r.returncode, r.stdout.decode("utf-8"), r.stderr.decode("utf-8")


def error_of(err: str) -> dict:
    """The JSON error object: the last line of stderr (argparse may print its usage first)."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    obj = json.loads(lines[-1])
    assert set(obj) == {"error"}
    assert {"type", "message"} <= set(obj["error"]) <= {"type", "message", "field", "reason"}
    return obj["error"]


def only_json_error(err: str) -> dict:
    """For input errors stderr is exactly one JSON object."""
    assert len(err.strip().splitlines()) == 1, err
    return error_of(err)


# -- exit 0 and 1 -----------------------------------------------------------------------------


@pytest.mark.parametrize("runner", ["main", "subprocess"])
def test_accepted_exits_0_with_the_verdict_on_stdout(tmp_path, store_path, capsys, runner):
    argv = ["check", write(tmp_path, accepted_edit()), "--store", store_path]
    code, out, err = run_main(argv, capsys) if runner == "main" else run_sub(argv)
    assert code == 0, err
    verdict = json.loads(out)
    assert verdict["accepted"] is True and verdict["classification"] == "structural"
    assert err == ""
    handles, audits = state(store_path)
    assert dict(handles)[CONF_H].startswith("blake3:") and audits == 2


def test_the_verdict_is_printed_whatever_the_stream_encoding(tmp_path, store_path):
    # red team 83, F02: with PYTHONIOENCODING=ascii a verdict naming a non-ASCII text could not
    # be written after the audit record was committed, and the command exited 2 ("unusable
    # input, nothing written"); the verdict goes out as UTF-8 bytes
    # (a fact value of a violation, not the window: --window prints null for a rejected edit,
    # red team 134, F17)
    edit = rejected_edit()
    edit["post"][0]["text"] = edit["post"][0]["text"] + "mode=tr\u00e8s\n"
    argv = ["check", write(tmp_path, edit), "--store", store_path, "--window"]
    code, out, err = run_sub(argv, env_extra={"PYTHONIOENCODING": "ascii"})
    assert code == 1, err
    verdict = json.loads(out)
    assert verdict["accepted"] is False and "tr\u00e8s" in out and verdict["window"] is None


@pytest.mark.parametrize("runner", ["main", "subprocess"])
def test_rejected_exits_1_with_the_violations(tmp_path, store_path, capsys, runner):
    argv = ["check", write(tmp_path, rejected_edit()), "--store", store_path]
    code, out, err = run_main(argv, capsys) if runner == "main" else run_sub(argv)
    assert code == 1, err
    verdict = json.loads(out)
    assert verdict["accepted"] is False and verdict["classification"] == "rejected"
    found = {(v["invariant"], v["key"], v["value"]) for v in verdict["violations"]}
    assert {("I2", "retries", "5"), ("I2", "retries", "3"), ("I1", "retries", "5")} <= found
    assert state(store_path)[1] == 2  # a rejection is a verdict too: audited


def test_policy_reclassify(tmp_path, store_path, capsys):
    path = write(tmp_path, reclassifiable_edit())
    code, out, _ = run_main(["check", path, "--store", store_path], capsys)
    assert code == 1 and json.loads(out)["violations"][0]["invariant"] == "I2"
    code, out, _ = run_main(["check", path, "--store", store_path, "--policy", "reclassify", "--window"], capsys)
    verdict = json.loads(out)
    assert code == 0 and verdict["reclassified"] is True and verdict["classification"] == "lossy"
    assert verdict["window"][0]["derived"] is True and verdict["window"][0]["derived_from"] == [CONF_H]


def test_retention_floor_option(tmp_path, store_path, capsys):
    edit = accepted_edit()
    edit["operator"] = "rewrite"
    edit["post"] = [edit["pre"][0], blk("b2", "assistant", "The client retries 3 times.\n")]
    path = write(tmp_path, edit)
    code, out, _ = run_main(["check", path, "--store", store_path], capsys)
    assert code == 1 and any(v["invariant"] == "I5" for v in json.loads(out)["violations"])
    code, out, _ = run_main(["check", path, "--store", store_path, "--retention-floor", "0"], capsys)
    assert code == 0, out


@pytest.mark.parametrize("runner", ["main", "subprocess"])
def test_stdin_via_dash(store_path, capsys, monkeypatch, runner):
    data = json.dumps(rejected_edit()).encode()
    argv = ["check", "-", "--store", store_path]
    code, out, err = run_main(argv, capsys, data, monkeypatch) if runner == "main" else run_sub(argv, data)
    assert code == 1, err
    assert json.loads(out)["operator"] == "rewrite"


def test_create_makes_a_new_store(tmp_path, capsys):
    target = tmp_path / "new" / "store.sqlite3"
    target.parent.mkdir()
    code, out, _ = run_main(["check", write(tmp_path, accepted_edit()), "--store", target, "--create"], capsys)
    assert code == 0 and target.exists()
    assert state(target) == ([(CONF_H, SourceStore(target).digest(CONF_H))], 1)


def test_the_store_defaults_to_provgate_store(tmp_path, store_path):
    code, out, err = run_sub(["check", write(tmp_path, accepted_edit())], env_extra={"PROVGATE_STORE": str(store_path)})
    assert code == 0, err
    assert state(store_path)[1] == 2


# -- exit 2: unusable input, a JSON error on stderr, nothing written ---------------------------

UNUSABLE = [
    ("invalid-json", b'{"operator": "prune", "pre": [', None, "invalid JSON"),
    # red team 134, F07: these named no field
    ("invalid-utf8", b'{"operator": "prune", "pre": [], "post": [], "x": "\xff"}', "x", "UTF-8"),
    ("nan", b'{"operator": "prune", "pre": [{"id": "a", "role": "user", "text": "x", "ts": NaN}], "post": []}',
     "pre[0].ts", "NaN"),
    ("duplicate-key", b'{"operator": "prune", "operator": "rewrite", "pre": [], "post": []}', "operator", "twice"),
    # red team 83, F09: the field was "text", not where it is
    ("duplicate-key-in-a-block", (b'{"operator": "rewrite", "pre": [], "post": [{"id": "a", "role": "user", '
                                  b'"text": "x"}, {"id": "b", "role": "user", "text": "x", "text": "y"}]}'),
     "post[1].text", "post[1].text: JSON object has the key 'text' twice"),
    ("wrong-type", {"operator": "prune", "pre": [], "post": [{"id": "a", "role": "user", "text": "x",
                                                                "handles": ["h", 5]}]},
     "post[0].handles[1]", "expected a string, got integer"),
    ("unknown-operator", {"operator": "merge", "pre": [], "post": []}, "operator", "unknown operator 'merge'"),
    ("unknown-major-version", {"format": "provgate.edit/2", "operator": "prune", "pre": [], "post": []}, "format",
     "unsupported format"),
    ("duplicate-id", {"operator": "prune", "pre": [], "post": [blk("a", "user", "x"), blk("a", "user", "y")]},
     "post[1].id", "duplicate block id"),
    ("bad-sources-with-good-ones", {"operator": "prune", "pre": [], "post": [],
                                    "sources": {"tool:new": "fresh\n", "tool:bad": 5}}, "sources['tool:bad']",
     "expected a string"),
    ("surrogate-text-with-sources", '{"operator": "prune", "pre": [], "post": [{"id": "a", "role": "user", '
                                    '"text": "\\udc80"}], "sources": {"tool:new": "fresh\\n"}}', "post[0].text",
     "surrogate"),
    ("conflicting-source", {"operator": "prune", "pre": [], "post": [],
                            "sources": {"tool:new": "fresh\n", "tool:existing": "changed\n"}},
     "sources['tool:existing']", "immutable"),
]


@pytest.mark.parametrize("name, doc, field, words", UNUSABLE, ids=[u[0] for u in UNUSABLE])
@pytest.mark.parametrize("runner", ["main", "subprocess"])
def test_unusable_input_exits_2_names_the_problem_and_writes_nothing(tmp_path, store_path, capsys, runner, name,
                                                                      doc, field, words):
    before = state(store_path)
    argv = ["check", write(tmp_path, doc), "--store", store_path]
    code, out, err = run_main(argv, capsys) if runner == "main" else run_sub(argv)
    assert code == 2, (out, err)
    assert out == ""
    e = only_json_error(err)
    assert words in e["message"]
    assert e.get("field") == field
    assert state(store_path) == before


@pytest.mark.parametrize("runner", ["main", "subprocess"])
def test_a_missing_store_without_create_exits_2_and_creates_nothing(tmp_path, capsys, runner):
    target = tmp_path / "nowhere.sqlite3"
    argv = ["check", write(tmp_path, accepted_edit()), "--store", target]
    code, out, err = run_main(argv, capsys) if runner == "main" else run_sub(argv)
    assert code == 2 and out == ""
    e = only_json_error(err)
    assert e["type"] == "missing_store" and e["field"] == "--store" and "--create" in e["message"]
    assert not target.exists()
    assert list(tmp_path.iterdir()) == [tmp_path / "edit.json"]


@pytest.mark.parametrize("create", [True, False])
def test_a_store_in_a_missing_directory_exits_2_naming_the_field(tmp_path, capsys, create):
    # red team 50, f09: with --create the store's FileNotFoundError reached main as an os_error
    # without "field", where every other bad --store names it
    target = tmp_path / "no_such_dir" / "x.sqlite3"
    argv = ["check", write(tmp_path, accepted_edit()), "--store", target, *(["--create"] if create else [])]
    code, out, err = run_main(argv, capsys)
    assert code == 2 and out == ""
    e = only_json_error(err)
    assert e["type"] == "missing_store" and e["field"] == "--store" and "no_such_dir" in e["message"]
    assert not (tmp_path / "no_such_dir").exists()


@pytest.mark.parametrize("where", ["post", "sources"])
def test_a_text_over_the_span_limit_with_create_exits_2_naming_it_and_creates_no_store(tmp_path, capsys, where):
    # red team 83, F03: the gate scans such a text before it writes, but --create had made the
    # store file by then, and the error named no field
    from provgate.facts import DEFAULT_MAX_SPANS

    huge = "1 " * (DEFAULT_MAX_SPANS + 8)
    doc = {"operator": "rewrite", "pre": [], "post": [tool("b1", "tool:c1", huge if where == "post" else "x")]}
    if where == "sources":
        doc["sources"] = {"tool:c1": huge}
    target = tmp_path / "new.sqlite3"
    code, out, err = run_main(["check", write(tmp_path, doc), "--store", target, "--create"], capsys)
    assert code == 2 and out == ""
    e = only_json_error(err)
    assert e["type"] == "LimitExceededError" and "grounded spans" in e["message"]
    assert e["field"] == ("post[0].text" if where == "post" else "sources['tool:c1']")
    assert not target.exists()


@pytest.mark.parametrize("where", ["text", "handle"])
def test_a_lone_surrogate_with_create_exits_2_and_creates_no_store(tmp_path, capsys, where):
    # red team F11: a surrogate in a block text was found only where the gate encodes it, after
    # --create had made the store file
    block = {"id": "b1", "role": "tool", "text": "retries=3\\ud800", "handles": ["tool:c1"]} if where == "text" else \
        {"id": "b1", "role": "tool", "text": "retries=3", "handles": ["tool:\\ud800"]}
    doc = '{"operator": "rewrite", "pre": [], "post": [' + json.dumps(block).replace("\\\\", "\\") + ']}'
    target = tmp_path / "new.sqlite3"
    code, out, err = run_main(["check", write(tmp_path, doc), "--store", target, "--create"], capsys)
    assert code == 2 and out == ""
    e = only_json_error(err)
    assert "surrogate" in e["message"] and e["field"].startswith("post[0].")
    assert not target.exists()


@pytest.mark.parametrize("option, field", [(["--retention-floor", "nan"], "--retention-floor"),
                                           (["--retention-floor", "2"], "--retention-floor"),
                                           (["--retention-floor", "-1"], "--retention-floor"),
                                           (["--session="], "--session"), (["--session", "x" * 257], "--session"),
                                           (["--session", "a\udc80"], "--session")])
def test_a_bad_option_exits_2_naming_it_and_creates_no_store(tmp_path, capsys, option, field):
    # red team 2, G07: these were an internal_error naming nothing, after --create made the store
    target = tmp_path / "new.sqlite3"
    code, out, err = run_main(["check", write(tmp_path, accepted_edit()), "--store", target, "--create", *option],
                              capsys)
    assert code == 2 and out == ""
    e = only_json_error(err)
    assert e["type"] == "usage" and e["field"] == field
    assert not target.exists()


# Red team 7, s01: "exit 2 ... nothing written to the store". A --session that is not UTF-8 (argv
# bytes reach Python as a lone surrogate) was refused only by the audit record, after the check
# had stored the edit's inline sources and a fact table; the error named record['session'].
@pytest.mark.parametrize("runner", ["main", "subprocess"])
def test_a_session_that_is_not_utf8_exits_2_naming_it_before_anything_is_written(tmp_path, store_path, capsys,
                                                                                 runner):
    big = "".join(f"key{i}=value{i}\n" for i in range(200))  # a check of it persists a fact table
    edit = accepted_edit()
    edit["sources"]["tool:big"] = big
    edit["pre"].append(tool("b3", "tool:big", big))
    edit["post"] = [*edit["pre"][:2][::-1], tool("b3", "tool:big", big.replace("key5=value5\n", ""))]
    edit["operator"] = "rewrite"
    path = write(tmp_path, edit)
    before = row_counts(store_path)
    if runner == "main":
        code, out, err = run_main(["check", path, "--store", store_path, "--session", "agent-\udcff"], capsys)
    else:
        r = subprocess.run([os.fsencode(sys.executable), b"-m", b"provgate", b"check", os.fsencode(path), b"--store",
                            os.fsencode(store_path), b"--session", b"agent-\xff"], capture_output=True, timeout=120,
                           check=False)
        code, out, err = r.returncode, r.stdout.decode(), r.stderr.decode()
    assert code == 2 and out == ""
    e = only_json_error(err)
    assert e["field"] == "--session" and "surrogate" in e["message"]
    assert row_counts(store_path) == before


# Red team 7, s08: ordinary mistakes are unusable input naming the option, not the "internal
# error" kept for bugs: --store naming a directory, a device or nothing at all ("" used to fall
# back to $PROVGATE_STORE or the default store), and --max-input-bytes out of range.
@pytest.mark.parametrize("command", ["check", "verify", "report"])
@pytest.mark.parametrize("store", ["directory", os.devnull, ""])
def test_a_store_option_that_names_no_store_file_exits_2_naming_it(tmp_path, store_path, capsys, monkeypatch,
                                                                 command, store):
    if store == "directory":
        store = tmp_path / "adir"
        store.mkdir()
    monkeypatch.setenv("PROVGATE_STORE", str(store_path))  # "" must not fall back to it
    before = row_counts(store_path)
    argv = {"check": ["check", write(tmp_path, accepted_edit())], "verify": ["verify", write(tmp_path, "hi\n", "a.txt")],
            "report": ["report"]}[command]
    code, out, err = run_main([*argv, "--store", store, *(["--create"] if command == "check" else [])], capsys)
    assert code == 2 and out == ""
    e = only_json_error(err)
    assert e["field"] == "--store" and e["type"] != "internal_error", e
    assert row_counts(store_path) == before


@pytest.mark.parametrize("command", ["check", "verify"])
@pytest.mark.parametrize("value", ["-1", str(sys.maxsize), "9" * 25])
def test_a_max_input_bytes_out_of_range_exits_2_naming_it(tmp_path, store_path, capsys, command, value):
    before = row_counts(store_path)
    path = write(tmp_path, accepted_edit()) if command == "check" else write(tmp_path, "hi\n", "a.txt")
    code, out, err = run_main([command, path, "--store", store_path, "--max-input-bytes", value], capsys)
    assert code == 2 and out == ""
    e = only_json_error(err)
    assert e["field"] == "--max-input-bytes" and e["type"] == "usage", e
    assert row_counts(store_path) == before


def test_a_large_max_input_bytes_reads_only_what_there_is(tmp_path, store_path, capsys):
    # a read of max_input_bytes + 1 at once allocated it up front: 1 TiB was a MemoryError
    code, _, err = run_main(["check", write(tmp_path, accepted_edit()), "--store", store_path,
                             "--max-input-bytes", 1 << 40], capsys)
    assert code == 0, err


def test_a_missing_input_file_exits_2(tmp_path, store_path, capsys):
    before = state(store_path)
    code, out, err = run_main(["check", tmp_path / "absent.json", "--store", store_path], capsys)
    assert code == 2 and only_json_error(err)["type"] == "missing_input"
    code, out, err = run_main(["check", tmp_path, "--store", store_path], capsys)
    assert code == 2 and "directory" in only_json_error(err)["message"]
    assert state(store_path) == before


@pytest.mark.parametrize("runner", ["main", "subprocess"])
def test_a_100_mb_input_is_refused_by_size_before_parsing(tmp_path, store_path, capsys, monkeypatch, runner):
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:  # sparse: the size is what the CLI must look at
        fh.truncate(100 * 1024 * 1024)
    before = state(store_path)
    parsed = []
    if runner == "main":
        import provgate.window as window_module

        monkeypatch.setattr(window_module, "parse_edit", lambda *a: parsed.append(1))
    argv = ["check", big, "--store", store_path]
    code, out, err = run_main(argv, capsys) if runner == "main" else run_sub(argv)
    assert code == 2 and out == ""
    e = only_json_error(err)
    assert e["type"] == "input_too_large" and str(100 * 1024 * 1024) in e["message"]
    assert parsed == []
    assert state(store_path) == before


def test_oversized_stdin_is_refused(store_path, capsys, monkeypatch):
    data = json.dumps(accepted_edit()).encode()
    before = state(store_path)
    code, out, err = run_main(["check", "-", "--store", store_path, "--max-input-bytes", len(data) - 1], capsys, data,
                              monkeypatch)
    assert code == 2 and only_json_error(err)["type"] == "input_too_large"
    code, out, err = run_main(["check", "-", "--store", store_path, "--max-input-bytes", len(data)], capsys, data,
                              monkeypatch)
    assert code == 0, err
    assert state(store_path)[1] == before[1] + 1


def test_a_store_that_is_not_a_provgate_store_exits_2(tmp_path, capsys):
    foreign = tmp_path / "foreign.sqlite3"
    foreign.write_bytes(b"this is not sqlite at all" * 100)
    code, out, err = run_main(["check", write(tmp_path, accepted_edit()), "--store", foreign], capsys)
    assert code == 2 and out == ""
    error_of(err)
    assert foreign.read_bytes() == b"this is not sqlite at all" * 100


# -- arguments, --version, --help -------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    ["check"], ["check", "a.json", "--policy", "lenient"], ["check", "a.json", "--bogus"], ["frobnicate"],
    ["check", "a.json", "--retention-floor", "high"], ["check", "a.json", "--max-input-bytes", "lots"],
])
def test_bad_arguments_exit_2_with_a_json_error(argv, capsys):
    code, out, err = run_main(argv, capsys)
    assert code == 2 and out == ""
    assert error_of(err)["type"] == "usage"


def test_no_command_exits_2_with_help(capsys):
    code, out, err = run_main([], capsys)
    assert code == 2 and "check" in err


@pytest.mark.parametrize("runner", ["main", "subprocess"])
def test_version(capsys, runner):
    code, out, err = run_main(["--version"], capsys) if runner == "main" else run_sub(["--version"])
    assert code == 0
    assert out.strip() == f"provgate {provgate.__version__}"


@pytest.mark.parametrize("command", ["check", "verify", "report"])
def test_version_on_every_command(command, capsys):
    # red team 83, F05: only the top level had it; `provgate check --version` asked for EDIT.json
    code, out, err = run_main([command, "--version"], capsys)
    assert code == 0, err
    assert out.strip() == f"provgate {provgate.__version__}"


def _commands() -> list[str]:
    import argparse

    parser = cli.build_parser()
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sorted(name for s in subs for name in s.choices)


def test_check_is_a_command():
    assert "check" in _commands()


@pytest.mark.parametrize("command", [None, *_commands()])
def test_help_on_every_command(command, capsys):
    argv = ["--help"] if command is None else [command, "--help"]
    code, out, err = run_main(argv, capsys)
    assert code == 0 and out.startswith("usage: provgate")
    if command == "check":
        for option in ("--store", "--create", "--policy", "--retention-floor", "--window", "--max-input-bytes"):
            assert option in out


def test_help_in_a_subprocess():
    code, out, _ = run_sub(["check", "--help"])
    assert code == 0 and "EDIT.json" in out


def test_an_internal_error_is_exit_2_never_accepted(tmp_path, store_path, capsys, monkeypatch):
    import provgate.gate as gate_module

    def boom(self, edit, **kw):
        raise RuntimeError("bug")

    monkeypatch.setattr(gate_module.Gate, "check_edit", boom)
    code, out, err = run_main(["check", write(tmp_path, accepted_edit()), "--store", store_path], capsys)
    assert code == 2 and out == ""
    assert only_json_error(err)["type"] == "internal_error"


# -- --session: one gate session across processes ---------------------------------------------

DOC_H, DOC = "doc:doc_7", "Backups are kept for 35 days in region eu-west-1.\n"


def test_session_cycles_carry_over_between_invocations(tmp_path, store_path, capsys):
    path = write(tmp_path, accepted_edit())
    cycles = []
    for _ in range(3):
        code, out, _ = run_main(["check", path, "--store", store_path, "--session", "agent-42"], capsys)
        assert code == 0
        cycles.append(json.loads(out)["cycle"])
    assert cycles == [1, 2, 3]
    code, out, _ = run_main(["check", path, "--store", store_path, "--session", "other"], capsys)
    assert json.loads(out)["cycle"] == 1
    with SourceStore(store_path) as store:
        sessions = [r.get("session") for _, r in store.iter_audit()]
    assert sessions.count("agent-42") == 3 and sessions.count("other") == 1


def test_sticky_pins_hold_in_a_later_process_of_the_same_session(tmp_path, store_path, capsys):
    # the compaction seed's second pass: pass 1 preserves the pinned span, pass 2 (another
    # process, pin flag lost) summarizes it
    first = {"operator": "reorder", "pre": [tool("d7", DOC_H, DOC, pinned=True)],
             "post": [tool("d7", DOC_H, DOC, pinned=True)], "sources": {DOC_H: DOC}}
    second = {"operator": "summarize", "pre": [tool("d7", DOC_H, DOC)],
              "post": [blk("s1", "summary", "Backups: 35 days.\n") | {"derived": True, "derived_from": [DOC_H]}]}
    p1, p2 = write(tmp_path, first, "first.json"), write(tmp_path, second, "second.json")
    assert run_main(["check", p1, "--store", store_path, "--session", "s"], capsys)[0] == 0
    code, out, _ = run_main(["check", p2, "--store", store_path, "--session", "s"], capsys)
    assert code == 1
    r = {(v["block"], v["handle"]) for v in json.loads(out)["violations"] if v["invariant"] == "R"}
    assert ("s1", DOC_H) in r  # the summary of the pinned source
    # without the session, the later process cannot know about the pin
    assert run_main(["check", p2, "--store", store_path], capsys)[0] == 0


# -- a read-only store (red team 26, w03): exit 2 naming --store, not an internal_error ---------


def _no_new_sources_edit() -> dict:
    kept = [tool("t", "tool:existing", "kept\n")]
    return {"operator": "reorder", "pre": kept, "post": kept}


def _assert_read_only_store_error(err: str, store, *, directory: bool = False) -> None:
    e = only_json_error(err)
    assert e["type"] == "read_only_store" and e["field"] == "--store", e
    assert str(store) in e["message"] and "read-only" in e["message"] and "write access" in e["message"], e
    if directory:
        assert str(Path(store).parent) in e["message"], e


@pytest.mark.parametrize("edit", [accepted_edit, _no_new_sources_edit], ids=["inline sources", "audit record only"])
def test_check_on_a_read_only_store_exits_2_naming_store_and_writes_nothing(tmp_path, store_path, capsys,
                                                                          monkeypatch, edit):
    # as root too: SQLite opens the store read-only (mode=ro); the chmod variant is below
    from store_helpers import read_only_connections

    before = row_counts(store_path)
    path = write(tmp_path, edit())
    read_only_connections(monkeypatch)
    code, out, err = run_main(["check", path, "--store", store_path], capsys)
    assert code == 2 and out == ""
    _assert_read_only_store_error(err, store_path)
    monkeypatch.undo()
    assert row_counts(store_path) == before


@pytest.mark.parametrize("create", [False, True])
def test_check_on_a_store_in_a_read_only_directory_exits_2_naming_store(tmp_path, store_path, capsys, monkeypatch,
                                                                       create):
    # the extended code SQLite raises when it cannot create the -wal and -shm files, injected
    # (as root too)
    from store_helpers import read_only_directory_connections

    before = row_counts(store_path)
    path = write(tmp_path, accepted_edit())
    read_only_directory_connections(monkeypatch)
    code, out, err = run_main(["check", path, "--store", store_path, *(["--create"] if create else [])], capsys)
    assert code == 2 and out == ""
    _assert_read_only_store_error(err, store_path, directory=True)
    monkeypatch.undo()
    assert row_counts(store_path) == before


# -- a write the disk refuses (red team 81, F04): exit 2 naming StoreIOError, not an internal_error --


def _big_source_edit() -> dict:
    big = "".join(f"key{i}=value{i}\n" for i in range(2000))  # ~30 KB: storing it needs new pages
    edit = accepted_edit()
    edit["sources"]["tool:big"] = big
    edit["pre"].append(tool("b3", "tool:big", big))
    edit["post"] = edit["pre"][::-1]
    return edit


@pytest.mark.parametrize(("edit", "disk", "code"), [
    (_big_source_edit, "full_disk_connections", "SQLITE_FULL"),
    (accepted_edit, "failing_commit_connections", "SQLITE_IOERR_WRITE"),
    (_no_new_sources_edit, "failing_commit_connections", "SQLITE_IOERR_WRITE"),
], ids=["full disk", "failed write of inline sources", "failed write of the audit record"])
def test_check_onto_a_disk_that_refuses_the_write_exits_2_naming_it_and_writes_nothing(tmp_path, store_path, capsys,
                                                                                      monkeypatch, edit, disk, code):
    import store_helpers

    before = row_counts(store_path)
    path = write(tmp_path, edit())
    getattr(store_helpers, disk)(monkeypatch)
    code_, out, err = run_main(["check", path, "--store", store_path], capsys)
    assert code_ == 2 and out == ""
    e = only_json_error(err)
    assert e["type"] == "StoreIOError", e
    assert str(store_path) in e["message"] and code in e["message"] and "rolled back" in e["message"], e
    monkeypatch.undo()
    assert row_counts(store_path) == before


def test_check_on_a_read_only_store_under_real_file_permissions_exits_2_naming_store(tmp_path, store_path):
    # a chmod 0444 store, a store in a 0555 directory, and --create of a new store there, in a
    # process that permissions bind (as root: under capsh, the DAC capabilities dropped)
    from store_helpers import (
        PERMISSIONS_DO_NOT_BIND,
        modes,
        permissions_bind_argv,
        run_where_permissions_bind,
    )

    if permissions_bind_argv() is None:
        pytest.skip(PERMISSIONS_DO_NOT_BIND)
    rodir = tmp_path / "rodir"
    rodir.mkdir()
    in_rodir = rodir / "store.sqlite3"
    in_rodir.write_bytes(store_path.read_bytes())  # (closed: the WAL was checkpointed into it)
    path = write(tmp_path, accepted_edit())
    before = row_counts(store_path), row_counts(in_rodir)
    cases = [(store_path, [], False), (in_rodir, [], True), (rodir / "new.sqlite3", ["--create"], True)]
    with modes((store_path, 0o444), (rodir, 0o555)):
        results = [run_where_permissions_bind([sys.executable, "-m", "provgate", "check", str(path), "--store",
                                               str(store), *extra]) for store, extra, _ in cases]
    for (store, _, directory), r in zip(cases, results):
        assert r.returncode == 2 and r.stdout == "", (store, r.stderr)
        _assert_read_only_store_error(r.stderr, store, directory=directory)
    assert (row_counts(store_path), row_counts(in_rodir)) == before and not (rodir / "new.sqlite3").exists()


def _marker_session(tmp_path: Path, store_path: Path, capsys, *floor: str) -> list[int]:
    """Three CLI checks of one session, each a rewrite dropping one of the turn's ten markers:
    per cycle 90%, 89%, 88% (above --retention-floor 0.85), cumulative 90%, 80%, 70%."""
    sources = {f"tool:m{i}": f"metric_{i}={100 + i}\n" for i in range(10)}
    tools = [tool(f"t{i}", h, text) for i, (h, text) in enumerate(sources.items())]

    def turn(k):
        text = " ".join(f"metric_{i} is {100 + i}" + (f" [src:m{i}]" if i < k else "") + "." for i in range(10))
        return blk("a1", "assistant", text + "\n")

    codes = []
    for k in (10, 9, 8):
        edit = {"operator": "rewrite", "pre": [*tools, turn(k)], "post": [*tools, turn(k - 1)], "sources": sources}
        code, out, err = run_main(["check", write(tmp_path, edit), "--store", store_path, "--session", "s1",
                                   "--retention-floor", "0.85", *floor], capsys)
        assert code in (0, 1), err
        codes.append(code)
        if code == 1:
            violations = json.loads(out)["violations"]
            assert [v["invariant"] for v in violations] == ["I5"] and "session floor 0.75" in violations[0]["message"]
    return codes


def test_session_floor_option_refuses_the_cycle_taking_the_session_below_it(tmp_path, store_path, capsys):
    assert _marker_session(tmp_path, store_path, capsys, "--session-floor", "0.75") == [0, 0, 1]


def test_without_session_floor_the_same_session_is_accepted(tmp_path, store_path, capsys):
    assert _marker_session(tmp_path, store_path, capsys) == [0, 0, 0]


@pytest.mark.parametrize("value", ["nan", "1.5", "-0.1"])
def test_a_session_floor_out_of_range_exits_2_naming_it_and_creates_no_store(tmp_path, capsys, value):
    target = tmp_path / "new.sqlite3"
    code, out, err = run_main(["check", write(tmp_path, accepted_edit()), "--store", target, "--create",
                               "--session-floor", value], capsys)
    assert code == 2 and out == ""
    e = only_json_error(err)
    assert e["type"] == "usage" and e["field"] == "--session-floor" and value in e["message"]
    assert not target.exists()
