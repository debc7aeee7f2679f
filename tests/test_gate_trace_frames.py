"""A stack frame keeps its function with its own file and line (docs/gate.md, I1 "stack frames
re-paired"; red team 142, F10). A traceback's functions and files were each grounded wherever
they stood, so a summary giving a function another frame's file ("load_config in main.py",
"TypeError in main (server.js:42)") was accepted. Lie/honest pairs on Python, Node, Java, Go
and Rust traces; honest summaries as agents write them stay accepted. The suite runs once each
way (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_gate_id_records import TRACEBACK
from test_grammar_v4 import _summarize

from provgate.gate import _frames_told, _trace_frames

PYTHON = TRACEBACK  # (the traceback red team 141 and 142 summarized: main.py's frames over config.py's)
NODE = """/app/src/server.js:42
    const port = config.server.port;
                              ^
TypeError: Cannot read properties of undefined (reading 'port')
    at startServer (/app/src/server.js:42:31)
    at main (/app/src/index.js:12:5)
    at Object.<anonymous> (/app/src/index.js:20:1)
"""
JAVA = """Exception in thread "main" java.lang.IllegalStateException: pool exhausted
\tat com.acme.db.ConnectionPool.acquire(ConnectionPool.java:88)
\tat com.acme.orders.OrderRepository.save(OrderRepository.java:41)
\tat com.acme.orders.OrderService.placeOrder(OrderService.java:23)
"""
GO = """panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x49a3c2]

goroutine 1 [running]:
main.(*Server).loadConfig(0x0)
\t/app/config.go:14 +0x22
main.main()
\t/app/main.go:9 +0x1d
exit status 2
"""
RUST = """thread 'main' panicked at src/config.rs:12:5:
called `Option::unwrap()` on a `None` value
stack backtrace:
   0: rust_begin_unwind
             at /rustc/07dca489ac2d933c78d3c5158e3f43beefeb02ce/library/std/src/panicking.rs:645:5
   1: app::config::read_port
             at ./src/config.rs:12:5
   2: app::main
             at ./src/main.rs:4:16
"""

# (source, the lie, the function told, its honest twin)
PAIRS = [
    (PYTHON, "load_config in main.py raised FileNotFoundError.", "load_config",
     "load_config in config.py raised FileNotFoundError."),
    (PYTHON, "main() in src/config.py calls load_config.", "main", "main() in src/main.py calls load_config."),
    (PYTHON, "The crash is in `load_config` (main.py:19).", "load_config",
     "The crash is in `load_config` (config.py:8)."),
    (PYTHON, "FileNotFoundError at config.py:8 in main.", "main", "FileNotFoundError at config.py:8 in load_config."),
    (PYTHON, 'File "/app/src/main.py", line 19, in load_config', "load_config",
     'File "/app/src/config.py", line 8, in load_config'),
    (NODE, "TypeError in main (server.js:42).", "main", "TypeError in startServer (server.js:42)."),
    (NODE, "startServer in index.js:12 reads an undefined config.server.", "startServer",
     "startServer in server.js:42 reads an undefined config.server."),
    (NODE, "The TypeError is thrown by startServer at index.js:12.", "startServer",
     "The TypeError is thrown by startServer at server.js:42."),
    (JAVA, "IllegalStateException from acquire() in OrderRepository.java.", "acquire",
     "IllegalStateException from acquire() in ConnectionPool.java."),
    (JAVA, "OrderService.placeOrder (OrderRepository.java:41) failed with IllegalStateException.",
     "OrderService.placeOrder", "OrderService.placeOrder (OrderService.java:23) failed with IllegalStateException."),
    (GO, "The nil pointer dereference is in loadConfig (main.go:9).", "loadConfig",
     "The nil pointer dereference is in loadConfig (config.go:14)."),
    (RUST, "read_port in main.rs unwrapped a None value.", "read_port", "read_port in config.rs unwrapped a None value."),
]


@pytest.mark.parametrize(("source", "lie", "function", "honest"), PAIRS)
def test_a_function_told_with_another_frames_file_is_refused_and_its_twin_accepted(source, lie, function, honest):
    found = find(_summarize(source, lie), "I1", block="s")
    assert found.evidence["change"] == "frame_repaired"
    assert found.evidence["function"] == function
    assert function in found.message and found.evidence["path"] in found.message
    assert found.evidence["frame"] in found.message and found.evidence["other_frame"] in found.message
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize(("source", "honest"), [
    (PYTHON, "load_config in config.py raised FileNotFoundError; main() in main.py called it."),
    (PYTHON, "The app crashed with FileNotFoundError: /etc/app/config.yaml is missing."),
    (PYTHON, "The error surfaces in main.py via load_config, which could not open /etc/app/config.yaml."),
    (PYTHON, "main.py calls load_config, and config.py raises FileNotFoundError."),
    (PYTHON, "The call to load_config in main.py fails because /etc/app/config.yaml does not exist."),
    (PYTHON, "main (main.py:19) calls load_config (config.py:8), which raises FileNotFoundError."),
    (PYTHON, "Traceback: main.py line 19 in main -> config.py line 8 in load_config -> FileNotFoundError."),
    (PYTHON, "load_config at config.py:8 tried to open /etc/app/config.yaml."),
    (PYTHON, "The failure is in config.py; main and load_config are on the stack."),
    (NODE, "TypeError in startServer (server.js:42): reading 'port' of undefined; called from main (index.js:12)."),
    (NODE, "main (index.js:12) calls startServer (server.js:42), which reads config.server.port."),
    (NODE, "The server crashes at startup: config.server is undefined in server.js:42."),
    (NODE, "index.js:12 in main calls startServer."),
    (JAVA, "ConnectionPool.acquire (ConnectionPool.java:88) threw IllegalStateException: pool exhausted."),
    (JAVA, "The pool is exhausted: acquire in ConnectionPool.java, called from OrderRepository.save."),
    (GO, "A nil pointer dereference in loadConfig (config.go:14), called from main.main (main.go:9)."),
    (RUST, "app::config::read_port at src/config.rs:12 unwrapped a None value; main in main.rs called it."),
])
def test_honest_summaries_of_a_trace_stay_accepted(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("honest", [
    # (a plain word before a file with no line, or after a determiner, is read as a noun)
    "The request in main.py timed out.",
    "The main (index.js:12) entry point calls the server.",
])
def test_a_plain_word_is_a_function_only_in_a_frames_form(honest):
    source = NODE.replace("at startServer", "at request").replace("at main ", "at main ")
    assert_accepted(_summarize(source, honest.replace("main.py", "server.js")))


def test_the_frames_and_forms_read():
    names = set(_trace_frames(GO.encode()).by_name)
    assert {b"loadConfig", b"Server.loadConfig", b"main"} <= names
    assert list(_trace_frames(JAVA.encode()).by_file)[:1] == [b"ConnectionPool.java"]
    told = _frames_told(b"main() in src/config.py; TypeError in main (server.js:42); config.py:8 in load_config.")
    assert [(f, p, n) for _, _, f, p, n in told] == [(b"main", b"src/config.py", None), (b"main", b"server.js", b"42"),
                                                      (b"load_config", b"config.py", b"8")]


@pytest.mark.parametrize("data", [
    b"a" * 1_000_000 + b" in main.py",
    b"f(" * 500_000,
    b"x in " * 200_000,
    (b"main.py:1 in " * 80_000),
    b"a." * 500_000,
])
def test_the_forms_are_read_in_one_pass(data):
    # (an adversarial summary is read in linear time: the test would not finish otherwise)
    _frames_told(data)


@pytest.mark.parametrize("data", [
    b"    at " + b"a" * 1_000_000,
    b"main." * 200_000 + b"(\n\t/app/main.go:1",
    b"  0: " + b"a" * 1_000_000 + b"\n   at x.rs:1",
    b'File "' * 150_000,
])
def test_the_frames_are_read_in_one_pass(data):
    _trace_frames(data + b"\n.go: .rs: at ")
