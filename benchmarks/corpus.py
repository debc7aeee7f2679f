"""The standard benchmark corpus: deterministic, realistic agent context windows.

Every benchmark of provgate runs on windows made here, so figures are comparable across
modules and releases. A window looks like the working set of a long-running coding agent:

- a pinned system prompt and a pinned first user turn (the task);
- then steps of: an assistant turn (analysis that restates facts of earlier tool outputs and
  cites them with ``[src:call_N]`` markers, or a short unmarked remark), zero to two tool outputs
  (source files in Python / JavaScript / Go, JSON API payloads, logs, config files in ini /
  YAML / env syntax, shell output, retrieved prose documents), and now and then a user turn;
- now and then a file is read again after a concurrent edit changed one value (the seed's
  "overlapping reads of one file" scenario): ``CorpusWindow.rereads`` lists those pairs.

About 40% of the blocks are retrieval-linked: tool outputs, documents and user turns carry one
handle (``tool:call_N``, ``doc:doc_N``, ``user:uN``) and their text IS the source text
(``CorpusWindow.sources[handle] == block["text"]``). About 1% of the bytes are citation
markers inside assistant turns. A marker names a handle without its kind prefix, as in the
seed (``[src:call_8841]`` cites ``tool:call_8841``); :func:`marker_handle` maps one to the
other. Block timestamps increase monotonically. Every block text ends with a newline, so
concatenating blocks never fuses two tokens.

Generation is a pure function of ``seed``: one ``random.Random(seed)``, no clock, no OS entropy,
no iteration over sets or hashed dicts. Generation never looks at the requested size except to
stop, so the window of ``N`` tokens is a prefix (block for block) of the window of ``M > N``
tokens with the same seed.

The edit generators (:func:`prune_edit`, :func:`rewrite_edit`, :func:`summarize_edit`,
:func:`drift_edit`) return ``provgate.edit/1`` dicts for the gate benchmarks. The first three
are meant to be accepted by a correct gate, ``drift_edit`` to be rejected (I2: ``retries=3``
silently becomes ``retries=5``; no config in the corpus ever says ``retries=5``).

Edit format v1 (JSON-compatible)::

    {"format": "provgate.edit/1", "operator": "prune" | "rewrite" | "summarize" | ...,
     "pre": [block, ...], "post": [block, ...], "evicted": [handle, ...],
     "supersedes": [{"block": post_block_id, "handle": older_handle}],
     "pointers": [{"block": id, "handle": h, "start": int, "end": int, "hash": "blake3:<hex>"}],
     "sources": {handle: text}}
    block = {"id": "b12", "role": "system" | "user" | "assistant" | "tool" | "summary",
             "text": str, "handles": [...], "derived": bool, "derived_from": [...],
             "pinned": bool, "ts": float | None, "resource": str (optional)}

The first read of a source file, and its re-read in ``rereads``, carry
``"resource": "file:<path>"``.

Pointer offsets are UTF-8 byte offsets into the source, end exclusive.
"""

from __future__ import annotations

import json
import math
import random
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone

import numpy as np
from blake3 import blake3

STANDARD_SIZES: dict[str, int] = {"50k": 50_000, "200k": 200_000, "1M": 1_000_000}
BYTES_PER_TOKEN = 4
EDIT_FORMAT = "provgate.edit/1"

# share of the window's bytes spent on citation markers
MARKER_BYTE_SHARE = 0.01
# the corpus never writes this retries value, so drift_edit's change is always a new fact
DRIFTED_RETRIES = "5"
_RETRIES_VALUES = ("2", "3", "4", "6", "8")

_T0 = datetime(2026, 11, 12, 8, 0, 0, tzinfo=timezone.utc).timestamp()

_MARKER_PREFIXES = (("call_", "tool:"), ("doc_", "doc:"), ("u", "user:"))
MARKER_RE = re.compile(r"\[src:([A-Za-z0-9_]+)\]")


def marker_name(handle: str) -> str:
    """The name a ``[src:…]`` marker uses for ``handle`` (the handle without its kind prefix)."""
    return handle.split(":", 1)[1]


def marker_handle(name: str) -> str:
    """The handle a marker name cites: ``call_12`` -> ``tool:call_12``, ``doc_3`` -> ``doc:doc_3``,
    ``u4`` -> ``user:u4``."""
    for prefix, kind in _MARKER_PREFIXES:
        if name.startswith(prefix) and name[len(prefix) :].isdigit():
            return kind + name
    raise ValueError(f"not a corpus marker name: {name!r}")


@dataclass
class CorpusWindow:
    """One generated window. ``blocks`` are edit-format block dicts; treat them as read-only
    (the edit generators copy them)."""

    blocks: list[dict]
    sources: dict[str, str]
    data: bytes
    block_starts: np.ndarray
    block_ends: np.ndarray
    tokens: int
    seed: int
    # content kind of each block: python, js, go, json, log, ini, yaml, env, shell, prose,
    # system, user, assistant
    kinds: list[str] = field(default_factory=list)
    # handle -> fact strings that occur verbatim, as whole tokens, in that source
    facts: dict[str, list[str]] = field(default_factory=dict)
    # (older handle, newer handle): two reads of one file with different content
    rereads: list[tuple[str, str]] = field(default_factory=list)

    def block_index(self, block_id: str) -> int:
        for i, b in enumerate(self.blocks):
            if b["id"] == block_id:
                return i
        raise KeyError(block_id)


# ---------------------------------------------------------------------------------------------
# vocabulary

_VERBS = (
    "load", "parse", "fetch", "build", "render", "validate", "resolve", "flush", "retry",
    "compute", "merge", "sync", "open", "close", "update", "delete", "create", "handle",
    "dispatch", "encode", "decode", "compact", "prune", "index", "scan", "emit", "sample",
    "check", "apply", "commit", "restore", "register", "schedule", "drain", "spawn", "verify",
)
_NOUNS = (
    "user", "session", "request", "config", "cache", "token", "buffer", "record", "block",
    "window", "source", "handle", "pointer", "digest", "span", "event", "job", "worker", "queue",
    "table", "batch", "chunk", "payload", "response", "header", "policy", "store", "snapshot",
    "manifest", "lease", "shard", "segment", "cursor", "invoice", "account", "report", "metric",
)
_ADJS = ("max", "min", "default", "initial", "idle", "stale", "retry", "read", "write", "flush")
_PKGS = (
    "core", "server", "storage", "ingest", "agent", "tools", "billing", "auth", "search",
    "sched", "metrics", "gateway", "compactor", "indexer", "notify",
)
_PROJECTS = ("atlas", "harbor", "quill", "lumen", "ferry", "orbit", "cinder", "maple")
_HOSTS = ("api.internal.example", "auth.example.com", "store.example.net", "metrics.example.org")
_LEVELS = ("INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR")
_ERRORS = ("TimeoutError", "ConnectionResetError", "KeyError", "ValueError", "PermissionError")
_PEOPLE = ("José Álvarez", "Zoë Martin", "Jürgen Weiß", "Ana Lúcia", "Søren Dahl", "Priya Nair")
_WORDS = (
    "the", "a", "of", "and", "to", "in", "is", "that", "for", "on", "with", "as", "by", "this",
    "be", "are", "from", "at", "or", "an", "it", "not", "which", "when", "each", "every",
    "service", "system", "request", "value", "client", "server", "data", "file", "change",
    "deploy", "release", "team", "owner", "policy", "limit", "budget", "latency", "throughput",
    "memory", "disk", "network", "region", "cluster", "node", "replica", "leader", "follower",
    "write", "read", "path", "backup", "restore", "failover", "migration", "schema", "table",
    "query", "index", "cache", "entry", "eviction", "timeout", "retry", "backoff", "error",
    "warning", "alert", "page", "incident", "review", "approval", "rollout", "canary",
    "traffic", "quota", "tenant", "account", "invoice", "payment", "refund", "ledger", "audit",
    "log", "trace", "span", "metric", "dashboard", "threshold", "window", "interval", "batch",
    "queue", "worker", "job", "schedule", "cron", "lease", "lock", "token", "secret", "key",
    "rotation", "certificate", "expiry", "should", "must", "may", "will", "can", "never",
    "always", "only", "after", "before", "during", "until", "while", "because", "so", "then",
    "first", "second", "next", "last", "new", "old", "current", "previous", "stable", "fast",
    "slow", "safe", "unsafe", "large", "small", "high", "low", "primary", "secondary",
    "configured", "measured", "observed", "reported", "expected", "required", "optional",
    "naïve", "café", "façade", "coördinated", "déjà", "vu", "résumé", "über", "piñata",
)
_PROSE_PUNCT = (", ", ", ", " — ", "; ")


def _camel(*parts: str) -> str:
    return parts[0] + "".join(p.capitalize() for p in parts[1:])


def _pascal(*parts: str) -> str:
    return "".join(p.capitalize() for p in parts)


# ---------------------------------------------------------------------------------------------
# generator


class _Project:
    """A fictional repository the agent works in: files, functions, constants."""

    def __init__(self, rng: random.Random) -> None:
        self.name = rng.choice(_PROJECTS)
        self.files: list[tuple[str, str]] = []  # (language, path)
        for _ in range(36):
            lang = rng.choice(("python", "python", "python", "js", "go"))
            pkg = rng.choice(_PKGS)
            stem = f"{rng.choice(_NOUNS)}_{rng.choice(_NOUNS)}" if rng.random() < 0.5 else rng.choice(_NOUNS)
            if lang == "python":
                path = f"src/{self.name}/{pkg}/{stem}.py"
            elif lang == "js":
                path = f"web/src/{pkg}/{_camel(*stem.split('_'))}.js"
            else:
                path = f"internal/{pkg}/{stem}.go"
            self.files.append((lang, path))
        self.configs = [
            f"config/{self.name}.ini",
            "config/worker.ini",
            f"deploy/{self.name}/values.yaml",
            "deploy/staging.yaml",
            ".env",
            "deploy/prod.env",
        ]
        self.docs = [
            "docs/runbook.md", "docs/architecture.md", "docs/oncall.md", "docs/storage.md",
            "docs/release-process.md", "docs/adr/0007-retry-policy.md", "docs/api.md",
        ]
        self.hosts = list(_HOSTS)


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.project = _Project(self.rng)
        self.ts = _T0
        self.call_no = self.rng.randint(1000, 8000)
        self.doc_no = 0
        self.user_no = 0
        self.file_texts: dict[str, tuple[str, str, str, list[str]]] = {}  # path -> (handle, lang, text, facts)
        self.reread_done: set[str] = set()

    # -- small values --------------------------------------------------------------------------
    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def hexd(self, nbytes: int) -> str:
        return f"{self.rng.getrandbits(nbytes * 8):0{nbytes * 2}x}"

    def iso(self, t: float) -> str:
        dt = datetime.fromtimestamp(t, timezone.utc)
        return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"

    def func(self) -> str:
        return f"{self.rng.choice(_VERBS)}_{self.rng.choice(_NOUNS)}"

    def const(self) -> str:
        return f"{self.rng.choice(_ADJS).upper()}_{self.rng.choice(_NOUNS).upper()}"

    def size_value(self) -> str:
        return self.rng.choice(("64MB", "128MB", "256MB", "512MB", "1GB", "2GB", "4096KB"))

    def duration(self) -> str:
        return self.rng.choice(("250ms", "500ms", "5s", "15s", "30s", "45s", "60s", "120s", "5m"))

    def target_size(self) -> int:
        # tool outputs: long-tailed, median ~3.2 KB, mean ~3.9 KB
        return int(min(16_000, max(250, self.rng.lognormvariate(math.log(3200), 0.65))))

    def sentence(self, facts: list[str] | None = None, fact_values: list[str] | None = None) -> str:
        rng = self.rng
        n = rng.randint(8, 22)
        words = [rng.choice(_WORDS) for _ in range(n)]
        if fact_values and rng.random() < 0.7:
            fv = rng.choice(fact_values)
            words.insert(rng.randint(1, len(words)), fv)
            if facts is not None:
                facts.append(fv)
        text = words[0].capitalize()
        for w in words[1:]:
            text += (rng.choice(_PROSE_PUNCT) if rng.random() < 0.08 else " ") + w
        return text + "."

    # -- tool outputs --------------------------------------------------------------------------
    def python_file(self, path: str, size: int) -> tuple[str, list[str]]:
        rng = self.rng
        pkg = path.split("/")[2] if path.count("/") >= 3 else "core"
        facts: list[str] = [path]
        lines = [f'"""{self.sentence()}"""', "", "from __future__ import annotations", ""]
        lines += ["import hashlib", "import logging", "import os", ""]
        imported = [self.func(), self.func()]
        lines.append(f"from {self.project.name}.{rng.choice(_PKGS)} import {imported[0]}, {imported[1]}")
        lines.append("")
        retries = rng.choice(_RETRIES_VALUES)
        consts = [
            f"MAX_RETRIES = {retries}",
            f"DEFAULT_TIMEOUT = {rng.choice(('5.0', '10.0', '30.0', '45.0', '2.5'))}",
            f'CACHE_DIR = "/var/cache/{self.project.name}/{pkg}"',
            f"{self.const()} = {rng.choice((16, 64, 128, 256, 1024, 4096, 65536))}",
            f'API_URL = "https://{rng.choice(self.project.hosts)}/v{rng.randint(1, 3)}/{rng.choice(_NOUNS)}s"',
        ]
        lines += consts
        facts += consts
        lines += ["", "log = logging.getLogger(__name__)", "", ""]
        cls = _pascal(rng.choice(_NOUNS), rng.choice(("store", "client", "manager", "index")))
        lines.append(f"class {cls}:")
        lines.append(f'    """{self.sentence()}"""')
        lines.append("")
        lines.append("    def __init__(self, root: str, *, retries: int = MAX_RETRIES) -> None:")
        lines.append("        self.root = root")
        lines.append("        self.retries = retries")
        facts.append(cls)
        size_so_far = sum(len(x) + 1 for x in lines)
        while size_so_far < size:
            name = self.func()
            facts.append(name)
            arg = rng.choice(_NOUNS) + "_id"
            body = [
                "",
                f"    def {name}(self, {arg}: str, *, limit: int = {rng.choice((10, 50, 100, 500, 1000))}) -> dict:",
                f'        """{self.sentence()}"""',
                f'        path = os.path.join(self.root, f"{{{arg}}}.json")',
            ]
            for _ in range(rng.randint(2, 7)):
                k = rng.random()
                if k < 0.2:
                    body.append("        for attempt in range(self.retries):")
                    body.append(f"            result = {imported[rng.randint(0, 1)]}(path, timeout=DEFAULT_TIMEOUT)")
                    body.append("            if result is not None:")
                    body.append("                break")
                elif k < 0.4:
                    lit = rng.choice((8192, 1 << 20, 300, 86400, 1500))
                    body.append(f"        if len({arg}) > {lit}:")
                    body.append(f'            raise ValueError(f"{rng.choice(_NOUNS)} too long: {{len({arg})}}")')
                elif k < 0.55:
                    body.append(f'        log.info("{rng.choice(_VERBS)} %s in %.1f ms", {arg}, elapsed_ms)')
                elif k < 0.7:
                    body.append(f"        digest = hashlib.sha256({arg}.encode()).hexdigest()")
                elif k < 0.85:
                    body.append(f"        # {self.sentence()}")
                else:
                    err = rng.choice(_ERRORS)
                    body.append("        try:")
                    body.append(f"            payload = self.{self.func()}(path)")
                    body.append(f"        except {err} as exc:")
                    body.append(f'            log.warning("{name} failed for %s: %s", {arg}, exc)')
                    body.append("            raise")
            body.append(f'        return {{"{arg}": {arg}, "path": path, "limit": limit}}')
            lines += body
            size_so_far += sum(len(x) + 1 for x in body)
        return self._file_output(path, lines), facts

    def js_file(self, path: str, size: int) -> tuple[str, list[str]]:
        rng = self.rng
        facts = [path]
        dep = _camel(rng.choice(_VERBS), rng.choice(_NOUNS))
        host = rng.choice(self.project.hosts)
        retries = rng.choice(_RETRIES_VALUES)
        consts = [
            f'const API_BASE = "https://{host}/v{rng.randint(1, 3)}";',
            f"const MAX_RETRIES = {retries};",
            f"const TIMEOUT_MS = {rng.choice((1000, 5000, 15000, 30000, 60000))};",
        ]
        lines = [f'import {{ {dep} }} from "./{rng.choice(_NOUNS)}.js";', ""] + consts + [""]
        facts += [c.rstrip(";") for c in consts]
        size_so_far = sum(len(x) + 1 for x in lines)
        while size_so_far < size:
            fn = _camel(rng.choice(_VERBS), rng.choice(_NOUNS))
            facts.append(fn)
            arg = _camel(rng.choice(_NOUNS), "id")
            body = [
                f"// {self.sentence()}",
                f"export async function {fn}({arg}, {{ timeoutMs = TIMEOUT_MS }} = {{}}) {{",
                f"  const url = `${{API_BASE}}/{rng.choice(_NOUNS)}s/${{{arg}}}`;",
                "  for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {",
                f'    const res = await fetch(url, {{ headers: {{ "X-Request-Id": "{self.hexd(8)}" }} }});',
                f"    if (res.status === {rng.choice((429, 503, 502))}) {{",
                f"      await sleep({rng.choice((100, 250, 500))} * 2 ** attempt);",
                "      continue;",
                "    }",
                f"    return {dep}(await res.json());",
                "  }",
                f'  throw new Error("{fn} failed after " + MAX_RETRIES + " attempts");',
                "}",
                "",
            ]
            lines += body
            size_so_far += sum(len(x) + 1 for x in body)
        lines.append(f"export default {{ {dep} }};")
        return self._file_output(path, lines), facts

    def go_file(self, path: str, size: int) -> tuple[str, list[str]]:
        rng = self.rng
        pkg = path.split("/")[1]
        facts = [path]
        typ = _pascal(rng.choice(_NOUNS), "store")
        retries = rng.choice(_RETRIES_VALUES)
        consts = [
            f"maxRetries     = {retries}",
            f"defaultTimeout = {rng.choice((5, 10, 30, 60))} * time.Second",
            f"bufferSize     = {rng.choice((4096, 8192, 65536))}",
        ]
        lines = [f"package {pkg}", "", "import (", '\t"context"', '\t"fmt"', '\t"time"', ")", "",
                 "const ("] + ["\t" + c for c in consts] + [")", ""]
        facts += consts
        lines += [f"// {typ} {self.sentence().lower()}", f"type {typ} struct {{", "\tdb   *sql.DB",
                  "\troot string", "}", ""]
        facts.append(typ)
        size_so_far = sum(len(x) + 1 for x in lines)
        while size_so_far < size:
            fn = _pascal(rng.choice(_VERBS), rng.choice(_NOUNS))
            facts.append(fn)
            body = [
                f"// {fn} {self.sentence().lower()}",
                f"func (s *{typ}) {fn}(ctx context.Context, id string) (*Record, error) {{",
                "\tctx, cancel := context.WithTimeout(ctx, defaultTimeout)",
                "\tdefer cancel()",
                "\tfor attempt := 0; attempt < maxRetries; attempt++ {",
                f'\t\trow := s.db.QueryRowContext(ctx, "SELECT payload FROM {rng.choice(_NOUNS)}s WHERE id = $1", id)',
                "\t\tvar rec Record",
                "\t\tif err := row.Scan(&rec.Payload); err == nil {",
                "\t\t\treturn &rec, nil",
                "\t\t}",
                f"\t\ttime.Sleep(time.Duration({rng.choice((50, 100, 200))}*(attempt+1)) * time.Millisecond)",
                "\t}",
                f'\treturn nil, fmt.Errorf("{fn.lower()}: %s not found after %d attempts", id, maxRetries)',
                "}",
                "",
            ]
            lines += body
            size_so_far += sum(len(x) + 1 for x in body)
        return self._file_output(path, lines), facts

    def _file_output(self, path: str, lines: list[str]) -> str:
        # half the reads look like `cat -n` (numbered lines, as coding agents see files)
        if self.rng.random() < 0.5:
            body = "\n".join(f"{i:>6}\t{line}" for i, line in enumerate(lines, 1))
            return f"$ cat -n {path}\n{body}\n"
        return f"==> {path} <==\n" + "\n".join(lines) + "\n"

    def json_payload(self, size: int) -> tuple[str, list[str]]:
        rng = self.rng
        noun = rng.choice(_NOUNS)
        host = rng.choice(self.project.hosts)
        rid = self.uuid()
        url = f"https://{host}/v2/{noun}s?limit={rng.choice((20, 50, 100))}"
        items = []
        obj: dict = {"request_id": rid, "status": "ok", "total": 0, "items": items}
        text = ""
        facts = [url, rid]
        while True:
            item = {
                "id": self.uuid(),
                "name": f"{rng.choice(_NOUNS)}-{rng.randint(1, 999)}",
                "owner": rng.choice(_PEOPLE),
                "created_at": self.iso(self.ts - rng.uniform(3600, 86400 * 30)),
                "size_bytes": rng.randint(100, 10_000_000),
                "sha256": self.hexd(32),
                "retries": int(rng.choice(_RETRIES_VALUES)),
                "region": rng.choice(("eu-west-1", "us-east-2", "ap-south-1")),
                "labels": {"tier": rng.choice(("gold", "silver")), "env": rng.choice(("prod", "staging"))},
            }
            items.append(item)
            obj["total"] = len(items)
            text = json.dumps(obj, indent=2, ensure_ascii=False)
            if len(text) >= size - 60:
                break
        for item in items[:4]:
            facts += [item["id"], item["name"], item["sha256"], f'"size_bytes": {item["size_bytes"]}']
        return f"$ curl -s {url}\n{text}\n", facts

    def log_output(self, size: int) -> tuple[str, list[str]]:
        rng = self.rng
        service = rng.choice(_PKGS)
        files = [p for lang, p in self.project.files if lang == "python"] or ["src/app/main.py"]
        t = self.ts - rng.uniform(60, 600)
        lines = [f"$ kubectl logs deploy/{self.project.name}-{service} --since=10m"]
        facts = [f"deploy/{self.project.name}-{service}"]
        size_so_far = len(lines[0]) + 1
        while size_so_far < size:
            t += rng.uniform(0.001, 2.0)
            req = self.hexd(6)
            src = f"{rng.choice(files)}:{rng.randint(12, 480)}"
            lvl = rng.choice(_LEVELS)
            k = rng.random()
            if k < 0.5:
                ms = rng.randint(2, 2400)
                msg = f"{rng.choice(_VERBS)} {rng.choice(_NOUNS)} job={self.uuid()} took {ms}ms"
                if rng.random() < 0.1:
                    facts += [f"job={msg.split('job=')[1].split()[0]}", f"{ms}ms"]
            elif k < 0.7:
                msg = f"cache hit ratio {rng.uniform(0.5, 0.999):.3f} size={self.size_value()}"
            elif k < 0.85:
                msg = f"retrying {rng.choice(_NOUNS)} attempt={rng.randint(1, 4)}/{rng.choice(_RETRIES_VALUES)} after {self.duration()}"
            else:
                msg = f"{rng.choice(_ERRORS)}: {rng.choice(_NOUNS)} {self.hexd(4)} not found ✗"
            line = f"{self.iso(t)} {lvl:<5} [{req}] {src} {msg}"
            if rng.random() < 0.05:
                facts += [req, src]
            lines.append(line)
            size_so_far += len(line.encode()) + 1
            if lvl == "ERROR" and rng.random() < 0.4:
                tb = [
                    "Traceback (most recent call last):",
                    f'  File "{rng.choice(files)}", line {rng.randint(10, 400)}, in {self.func()}',
                    f'  File "{rng.choice(files)}", line {rng.randint(10, 400)}, in {self.func()}',
                    f"{rng.choice(_ERRORS)}: deadline exceeded after {self.duration()}",
                ]
                lines += tb
                size_so_far += sum(len(x) + 1 for x in tb)
        if len(facts) < 3:
            facts += [req, src]
        return "\n".join(lines) + "\n", facts

    def config_output(self, path: str, size: int, *, force_retries3: bool = False) -> tuple[str, list[str]]:
        rng = self.rng
        facts = [path]
        retries = "3" if force_retries3 else rng.choice(_RETRIES_VALUES)
        if path.endswith(".ini"):
            lines = [f"$ cat {path}", "[service]", f"name={self.project.name}", f"retries={retries}",
                     f"timeout={self.duration()}", f"cache_size={self.size_value()}",
                     f"workers={rng.choice((2, 4, 8, 16))}", f"log_level={rng.choice(('info', 'debug', 'warning'))}"]
            facts += lines[3:7]
            while sum(len(x) + 1 for x in lines) < size:
                sec = rng.choice(_NOUNS)
                lines += ["", f"[{sec}]", f"endpoint=https://{rng.choice(self.project.hosts)}/{sec}",
                          f"pool_size={rng.choice((4, 8, 16, 32, 64))}", f"flush_interval={self.duration()}",
                          f"max_{rng.choice(_NOUNS)}s={rng.choice((100, 500, 1000, 5000))}",
                          f"buffer_size={self.size_value()}"]
                facts.append(lines[-3])
            return "\n".join(lines) + "\n", facts
        if path.endswith(".yaml"):
            lines = [f"$ cat {path}", "service:", f"  name: {self.project.name}", f"  retries: {retries}",
                     f"  timeout: {self.duration()}", f"  replicas: {rng.choice((2, 3, 5))}",
                     "resources:", f"  memory: {self.size_value()}", f"  cpu: {rng.choice(('250m', '500m', '2'))}"]
            facts += ["retries: " + retries, lines[4].strip(), lines[7].strip()]
            while sum(len(x) + 1 for x in lines) < size:
                sec = rng.choice(_NOUNS)
                lines += [f"{sec}:", f"  enabled: {rng.choice(('true', 'false'))}",
                          f"  ttl: {self.duration()}", f"  max_items: {rng.choice((100, 1000, 10000))}",
                          f"  url: https://{rng.choice(self.project.hosts)}/{sec}"]
                facts.append(lines[-2].strip())
            return "\n".join(lines) + "\n", facts
        lines = [f"$ cat {path}", f"APP_NAME={self.project.name}", f"MAX_RETRIES={retries}",
                 f"REQUEST_TIMEOUT={self.duration()}", f"CACHE_SIZE={self.size_value()}",
                 f"DATABASE_URL=postgres://{self.project.name}@db.internal:5432/{self.project.name}"]
        facts += lines[2:6]
        while sum(len(x) + 1 for x in lines) < size:
            suffix = rng.choice(("TTL", "LIMIT", "URL", "POOL", "TOKEN_ID"))
            key = f"{rng.choice(_NOUNS).upper()}_{suffix}"
            if suffix == "TTL":
                val = self.duration()
            elif suffix == "LIMIT":
                val = str(rng.choice((10, 100, 1000)))
            elif suffix == "URL":
                val = f"https://{rng.choice(self.project.hosts)}/{rng.choice(_NOUNS)}"
            elif suffix == "POOL":
                val = str(rng.choice((4, 8, 16)))
            else:
                val = self.hexd(10)
            lines.append(f"{key}={val}")
            if rng.random() < 0.2:
                facts.append(lines[-1])
        return "\n".join(lines) + "\n", facts

    def shell_output(self, size: int) -> tuple[str, list[str]]:
        rng = self.rng
        files = [p for _, p in self.project.files]
        k = rng.random()
        facts: list[str] = []
        if k < 0.35:
            lines = ["$ python -m pytest -q"]
            passed = 0
            while sum(len(x) + 1 for x in lines) < size - 200:
                f = rng.choice(files).replace("src/", "tests/").rsplit("/", 1)[0] + f"/test_{rng.choice(_NOUNS)}.py"
                res = "." * rng.randint(5, 40) + ("F" if rng.random() < 0.15 else "")
                passed += res.count(".")
                lines.append(f"{f} {res}")
            lines.append(f"FAILED tests/test_{rng.choice(_NOUNS)}.py::test_{self.func()} - AssertionError: assert {rng.randint(1, 99)} == {rng.randint(100, 999)}")
            dur = f"{rng.uniform(1, 90):.2f}s"
            lines.append(f"1 failed, {passed} passed in {dur}")
            facts += [f"{passed} passed", dur, lines[-2].split(" - ")[0].split()[1]]
        elif k < 0.65:
            lines = ["$ git log --oneline -n 40"]
            while sum(len(x) + 1 for x in lines) < size:
                sha = self.hexd(6)[:10]
                lines.append(f"{sha} {rng.choice(_VERBS).capitalize()} {rng.choice(_NOUNS)} {rng.choice(_WORDS)} {rng.choice(_WORDS)} (#{rng.randint(100, 4999)})")
                if rng.random() < 0.15:
                    facts.append(sha)
            if not facts:
                facts.append(lines[1].split()[0])
        else:
            term = rng.choice(("MAX_RETRIES", "timeout", "retries", "DEFAULT_TIMEOUT", "cache_size"))
            lines = [f"$ grep -rn {term} ."]
            while sum(len(x) + 1 for x in lines) < size:
                f = rng.choice(files)
                ln = rng.randint(3, 600)
                lines.append(f"./{f}:{ln}:    {term} = {rng.choice(_RETRIES_VALUES) if 'RETR' in term.upper() else self.duration()}")
                if rng.random() < 0.2:
                    facts.append(f"./{f}:{ln}")
            if not facts:
                facts.append(lines[1].split(":    ")[0])
        return "\n".join(lines) + "\n", facts

    def prose_doc(self, path: str, size: int) -> tuple[str, list[str]]:
        rng = self.rng
        facts = [path]
        values = [
            f"{rng.randint(2, 64)} replicas", self.duration(), self.size_value(),
            f"v{rng.randint(1, 4)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}",
            f"{rng.choice(self.project.files)[1]}:{rng.randint(10, 300)}",
            f"https://{rng.choice(self.project.hosts)}/{rng.choice(_NOUNS)}",
            f"{rng.randint(1, 99)}%", f"{rng.choice(_NOUNS)}_{rng.choice(_NOUNS)}",
            f"retries={rng.choice(_RETRIES_VALUES)}", f"INC-{rng.randint(1000, 9999)}",
        ]
        title = f"# {rng.choice(_NOUNS).capitalize()} {rng.choice(('runbook', 'design', 'notes', 'policy'))}"
        lines = [f"$ cat {path}", title, "", f"Owner: {rng.choice(_PEOPLE)} · last reviewed {self.iso(self.ts - 86400 * rng.randint(1, 200))[:10]}", ""]
        while sum(len(x.encode()) + 1 for x in lines) < size:
            if rng.random() < 0.15:
                lines += [f"## {rng.choice(_WORDS).capitalize()} {rng.choice(_NOUNS)}", ""]
            para = " ".join(self.sentence(facts, values) for _ in range(rng.randint(2, 6)))
            lines += [para, ""]
        return "\n".join(lines) + "\n", facts

    # -- turns ---------------------------------------------------------------------------------
    def user_turn(self, recent_facts: list[str]) -> tuple[str, list[str]]:
        rng = self.rng
        path = rng.choice(self.project.files)[1]
        templates = [
            f"Can you find out why {path} keeps timing out in staging? The deadline there is {self.duration()}.",
            f"Please keep the retry policy as it is (retries={rng.choice(_RETRIES_VALUES)}) and only fix the logging in {path}.",
            f"Looks good. Next, check the cache size in config/{self.project.name}.ini; ops says it should be {self.size_value()}.",
            f"I pushed a fix to {path} a minute ago, re-read it before you continue.",
            f"Why does the job {self.uuid()} show up twice in the worker logs? 🤔",
            "Summarize what you changed so far, with the exact file paths.",
        ]
        text = rng.choice(templates)
        facts = [tok.strip("().,?;") for tok in text.split() if ("/" in tok or any(c.isdigit() for c in tok))]
        facts = [f for f in facts if f and f in text]
        return text + "\n", facts or [path]

    def assistant_turn(self, cited: list[tuple[str, list[str]]]) -> str:
        """An assistant turn that restates one fact per cited source, each with a marker."""
        rng = self.rng
        leads = ("I read", "From the output", "Note", "So", "The relevant part", "Checked")
        sentences = []
        for handle, facts in cited:
            fact = rng.choice(facts)
            lead = rng.choice(leads)
            tail = rng.choice(("this matters for the fix", "that explains the retries",
                               "which matches what the user said", "so the timeout is not the cause",
                               "and the cache is not involved"))
            sentences.append(f"{lead}: `{fact}` [src:{marker_name(handle)}], {tail}.")
        filler = " ".join(self.sentence() for _ in range(rng.randint(0, 3)))
        text = " ".join(sentences)
        if filler:
            text += " " + filler
        if rng.random() < 0.3:
            text += f"\n\nNext I will run `{rng.choice(('pytest -q', 'git diff', 'grep -rn retries .'))}`."
        return text + "\n"

    def short_assistant_turn(self) -> str:
        return self.rng.choice((
            "Let me look at the worker logs next.",
            "Running the test suite again.",
            "I will read the configuration before changing anything.",
            "Checking the recent commits for related changes.",
            "That did not help; trying a different approach.",
            "Let me open the module that defines the client.",
        )) + "\n"


def _block(bid: str, role: str, text: str, handles: list[str], ts: float, *, pinned: bool = False) -> dict:
    return {"id": bid, "role": role, "text": text, "handles": handles, "derived": False,
            "derived_from": [], "pinned": pinned, "ts": ts}


def make_window(tokens: int, *, seed: int = 0) -> CorpusWindow:
    """Generate a window of about ``tokens`` tokens (``BYTES_PER_TOKEN`` bytes each)."""
    if isinstance(tokens, bool) or not isinstance(tokens, int):
        raise TypeError(f"tokens must be an int, not {type(tokens).__name__}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, not {type(seed).__name__}")
    if tokens <= 0:
        raise ValueError(f"tokens must be positive, got {tokens}")
    target = tokens * BYTES_PER_TOKEN
    g = _Gen(seed)
    rng = g.rng
    blocks: list[dict] = []
    kinds: list[str] = []
    sources: dict[str, str] = {}
    facts: dict[str, list[str]] = {}
    rereads: list[tuple[str, str]] = []
    total = 0
    marker_bytes = 0
    recent: list[str] = []  # linked handles not yet discussed, oldest first
    discussed: list[str] = []

    def add(role: str, text: str, handle: str | None, kind: str, fact_list: list[str] | None, *, pinned=False,
            resource: str | None = None):
        nonlocal total
        g.ts += rng.uniform(0.5, 40.0)
        handles = [handle] if handle else []
        blocks.append(_block(f"b{len(blocks)}", role, text, handles, round(g.ts, 3), pinned=pinned))
        if resource is not None:
            blocks[-1]["resource"] = resource
        kinds.append(kind)
        if handle:
            sources[handle] = text
            facts[handle] = _dedupe([f for f in fact_list or [] if f and f in text]) or [text.split()[-1]]
            recent.append(handle)
        total += len(text.encode("utf-8"))

    def next_call() -> str:
        g.call_no += rng.randint(1, 3)
        return f"tool:call_{g.call_no}"

    system = (
        f"You are a coding agent working in the {g.project.name} repository. Use the tools to read "
        "files, run commands and query services. Cite every fact you take from a tool output with "
        "its source marker. Never invent values; when two reads disagree, say so.\n"
    )
    add("system", system, "doc:doc_0", "system", ["coding agent"], pinned=True)
    recent.clear()  # the system prompt is not something the agent cites
    ut, uf = g.user_turn([])
    g.user_no += 1
    add("user", ut, f"user:u{g.user_no}", "user", uf, pinned=True)
    first_config = True

    while total < target:
        # assistant turn: discusses (cites) recent sources, or a short remark
        if recent and rng.random() < 0.62:
            budget = MARKER_BYTE_SHARE * (total + 900) - marker_bytes
            n_cite = max(1, min(6, round(budget / 15)))
            pool = recent[-6:] + discussed[-6:]
            cite = []
            for h in pool[::-1]:
                if h not in cite and facts.get(h):
                    cite.append(h)
                if len(cite) >= n_cite:
                    break
            text = g.assistant_turn([(h, facts[h]) for h in cite])
            marker_bytes += sum(len(m.group(0)) for m in MARKER_RE.finditer(text))
            discussed += [h for h in recent if h not in discussed][-12:]
            discussed = discussed[-24:]
            recent.clear()
            add("assistant", text, None, "assistant", None)
        else:
            add("assistant", g.short_assistant_turn(), None, "assistant", None)
        if total >= target:
            break
        r = rng.random()
        n_tools = 0 if r < 0.5 else (1 if r < 0.9 else 2)
        for _ in range(n_tools):
            size = g.target_size()
            k = rng.random()
            if first_config:
                path = g.project.configs[0]
                text, f = g.config_output(path, size, force_retries3=True)
                first_config = False
                add("tool", text, next_call(), "ini", f)
                continue
            reread_pool = [p for p in g.file_texts if p not in g.reread_done]
            if reread_pool and rng.random() < 0.025:
                path = rng.choice(sorted(reread_pool))
                old_handle, lang, old_text, old_facts = g.file_texts[path]
                new_text, new_facts = _concurrent_edit(old_text, old_facts, rng)
                if new_text != old_text:
                    h = next_call()
                    g.reread_done.add(path)
                    add("tool", new_text, h, lang, new_facts, resource=f"file:{path}")
                    rereads.append((old_handle, h))
                    continue
            if k < 0.34:
                lang, path = rng.choice(g.project.files)
                gen = {"python": g.python_file, "js": g.js_file, "go": g.go_file}[lang]
                text, f = gen(path, size)
                h = next_call()
                # the first read of a file names it, so a later re-read can be ordered against it
                # (I4); another independent read of the same path is left unnamed, since the
                # corpus does not model it as the same file changing
                first = path not in g.file_texts
                g.file_texts.setdefault(path, (h, lang, text, f))
                add("tool", text, h, lang, f, resource=f"file:{path}" if first else None)
            elif k < 0.46:
                text, f = g.json_payload(size)
                add("tool", text, next_call(), "json", f)
            elif k < 0.60:
                text, f = g.log_output(size)
                add("tool", text, next_call(), "log", f)
            elif k < 0.70:
                path = rng.choice(g.project.configs)
                kind = "ini" if path.endswith(".ini") else ("yaml" if path.endswith(".yaml") else "env")
                text, f = g.config_output(path, min(size, 2500))
                add("tool", text, next_call(), kind, f)
            elif k < 0.84:
                text, f = g.shell_output(size)
                add("tool", text, next_call(), "shell", f)
            else:
                g.doc_no += 1
                path = rng.choice(g.project.docs)
                text, f = g.prose_doc(path, size)
                pinned = rng.random() < 0.03
                add("tool", text, f"doc:doc_{g.doc_no}", "prose", f, pinned=pinned)
        if rng.random() < 0.08 and total < target:
            ut, uf = g.user_turn([])
            g.user_no += 1
            add("user", ut, f"user:u{g.user_no}", "user", uf)

    encoded = [b["text"].encode("utf-8") for b in blocks]
    lengths = np.fromiter((len(e) for e in encoded), dtype=np.int64, count=len(encoded))
    ends = np.cumsum(lengths, dtype=np.int64)
    starts = ends - lengths
    data = b"".join(encoded)
    # every referenced handle must be in sources (markers cite only generated sources)
    for b in blocks:
        for h in _cited_handles(b["text"]):
            if h not in sources:
                raise RuntimeError(f"corpus bug: block {b['id']} cites {h!r}, which has no source")
    return CorpusWindow(
        blocks=blocks, sources=sources, data=data, block_starts=starts, block_ends=ends,
        tokens=len(data) // BYTES_PER_TOKEN, seed=seed, kinds=kinds, facts=facts, rereads=rereads,
    )


def _dedupe(items: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for x in items:
        seen.setdefault(x, None)
    return list(seen)


_CONST_LINE = re.compile(r"(MAX_RETRIES = |maxRetries     = |const MAX_RETRIES = )(\d+)")


def _concurrent_edit(text: str, facts: list[str], rng: random.Random) -> tuple[str, list[str]]:
    """Another writer changed the retry constant between two reads of one file."""
    m = _CONST_LINE.search(text)
    if not m:
        return text, facts
    old = m.group(2)
    new = rng.choice([v for v in _RETRIES_VALUES if v != old])
    new_text = text[: m.start(2)] + new + text[m.end(2) :]
    new_facts = [f.replace(m.group(0), m.group(1) + new) for f in facts]
    new_facts = [f for f in new_facts if f in new_text]
    return new_text, new_facts


# ---------------------------------------------------------------------------------------------
# edits


def _copy_block(b: dict) -> dict:
    c = dict(b)
    c["handles"] = list(b["handles"])
    c["derived_from"] = list(b["derived_from"])
    return c


def _edit(operator: str, window: CorpusWindow, post: list[dict], *, evicted=(), supersedes=(), pointers=()) -> dict:
    return {
        "format": EDIT_FORMAT,
        "operator": operator,
        "pre": [_copy_block(b) for b in window.blocks],
        "post": post,
        "evicted": list(evicted),
        "supersedes": list(supersedes),
        "pointers": list(pointers),
        "sources": dict(window.sources),
    }


def _cited_handles(text: str) -> list[str]:
    out = []
    for m in MARKER_RE.finditer(text):
        try:
            h = marker_handle(m.group(1))
        except ValueError:
            continue
        if h not in out:
            out.append(h)
    return out


def _check_fraction(name: str, value: float) -> None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not (0.0 <= value <= 1.0):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")


def prune_edit(window: CorpusWindow, keep: float = 0.6, *, seed: int = 0) -> dict:
    """A prune that keeps about ``keep`` of the blocks, as a careful pruner would.

    It drops tool outputs and assistant turns (never pinned blocks, the system prompt or user
    turns). An assistant turn with citation markers is dropped only when every source it cites is
    dropped too, so no surviving fact loses its source. Every dropped handle is listed in
    ``evicted`` (a dropped assistant turn, which has no handle, by its block id). For two reads
    of one file, the older is never kept alone: if the newer read is
    dropped the older goes too; if only the older is dropped, the newer gets a ``supersedes``
    edge.
    """
    _check_fraction("keep", keep)
    rng = random.Random(seed)
    blocks = window.blocks
    n_drop = round((1.0 - keep) * len(blocks))
    tools = [i for i, b in enumerate(blocks) if b["role"] == "tool" and not b["pinned"]]
    rng.shuffle(tools)
    drop: set[int] = set(tools[: round(0.55 * n_drop)])
    rest_tools = tools[round(0.55 * n_drop) :]
    while len(drop) < n_drop:
        dropped_handles = {h for i in drop for h in blocks[i]["handles"]}
        eligible = [
            i for i, b in enumerate(blocks)
            if i not in drop and b["role"] == "assistant" and not b["pinned"]
            and set(_cited_handles(b["text"])) <= dropped_handles
        ]
        rng.shuffle(eligible)
        need = n_drop - len(drop)
        drop.update(eligible[:need])
        if len(drop) < n_drop:
            if not rest_tools:
                break
            step = max(1, (n_drop - len(drop)) // 2)
            drop.update(rest_tools[:step])
            rest_tools = rest_tools[step:]
    index_of = {h: i for i, b in enumerate(blocks) for h in b["handles"]}
    supersedes = []
    for older, newer in window.rereads:
        io, inew = index_of[older], index_of[newer]
        if inew in drop and not blocks[io]["pinned"]:
            drop.add(io)
    # dropping an older read may have orphaned nothing, but a newer drop may cascade: recheck
    for older, newer in window.rereads:
        io, inew = index_of[older], index_of[newer]
        if io in drop and inew not in drop:
            supersedes.append({"block": blocks[inew]["id"], "handle": older})
    post = [_copy_block(b) for i, b in enumerate(blocks) if i not in drop]
    # a dropped block without a handle (an assistant turn) is recorded by its id
    evicted = [h for i in sorted(drop) for h in (blocks[i]["handles"] or [blocks[i]["id"]])]
    return _edit("prune", window, post, evicted=evicted, supersedes=supersedes)


def _reformat(text: str) -> str:
    """Change whitespace only: halve leading indentation (outside fenced code), else double
    the blank lines, else add a trailing newline. Never touches the inside of a line."""
    out = []
    in_fence = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            out.append(line)
            continue
        if in_fence:
            out.append(line)
            continue
        stripped = line.lstrip(" ")
        lead = len(line) - len(stripped)
        out.append(" " * (lead // 2) + stripped if lead >= 2 else line)
    new = "\n".join(out)
    if new == text:
        new = text.replace("\n\n", "\n\n\n")
    if new == text:
        new = text + "\n"
    return new


def rewrite_edit(window: CorpusWindow, fraction: float = 0.1, *, seed: int = 0) -> dict:
    """A lossless rewrite: ``fraction`` of the blocks (tool outputs and assistant turns, never
    pinned) get whitespace-only reformatting that keeps every fact."""
    _check_fraction("fraction", fraction)
    rng = random.Random(seed)
    blocks = window.blocks
    eligible = [i for i, b in enumerate(blocks) if b["role"] in ("tool", "assistant") and not b["pinned"]]
    chosen = set(rng.sample(eligible, min(len(eligible), round(fraction * len(blocks)))))
    post = []
    for i, b in enumerate(blocks):
        c = _copy_block(b)
        if i in chosen:
            c["text"] = _reformat(b["text"])
        post.append(c)
    return _edit("rewrite", window, post)


def _byte_span(source: str, fact: str) -> tuple[int, int]:
    i = source.index(fact)
    start = len(source[:i].encode("utf-8"))
    return start, start + len(fact.encode("utf-8"))


def summarize_edit(window: CorpusWindow, fraction: float = 0.3, *, seed: int = 0) -> dict:
    """A lossy summarize: runs of 2-5 consecutive blocks, ``fraction`` of all blocks in total,
    each replaced by one ``summary`` block (``derived``; ``derived_from`` = the handles of the
    run and those its markers cite, and the block handle of each member without a handle of
    its own, whose text the edit's ``sources`` add under it: the way back to a summarized
    assistant turn) made of short sentences that restate real facts of those sources verbatim
    in backticks, each followed by its ``[src:…]`` marker. Each summary also carries one
    byte-exact pointer into its first source. Pinned blocks, the system prompt and blocks
    involved in two reads of one file are never summarized."""
    _check_fraction("fraction", fraction)
    rng = random.Random(seed)
    blocks = window.blocks
    in_reread = {h for pair in window.rereads for h in pair}
    pinned = frozenset(h for b in blocks if b["pinned"] for h in b["handles"])
    eligible = [
        not b["pinned"] and b["role"] != "system" and not (set(b["handles"]) & in_reread)
        for b in blocks
    ]
    target = round(fraction * len(blocks))
    used = [False] * len(blocks)
    groups: list[tuple[int, int]] = []
    covered = 0
    starts = list(range(len(blocks)))
    rng.shuffle(starts)
    for s in starts:
        if covered >= target:
            break
        length = min(rng.randint(2, 5), target - covered)
        e = s
        while e < len(blocks) and e - s < length and eligible[e] and not used[e]:
            e += 1
        if e - s < min(2, length):
            continue
        handles = _group_handles(blocks[s:e], pinned)
        if not handles:
            continue
        for i in range(s, e):
            used[i] = True
        groups.append((s, e))
        covered += e - s
    groups.sort()
    post: list[dict] = []
    pointers = []
    turns: dict[str, str] = {}  # the summarized blocks without a handle, stored under their block handle
    gi = 0
    i = 0
    summary_no = 0
    while i < len(blocks):
        if gi < len(groups) and groups[gi][0] == i:
            s, e = groups[gi]
            handles = _group_handles(blocks[s:e], pinned)
            sid = f"s{summary_no}"
            summary_no += 1
            text, first = _summary_text(window, handles, rng)
            # a turn without a source stays reachable through its stored text (the gate's I1
            # after a lossy operator, as provgate's compact() does it)
            own = {block_text_handle(b["text"]): b["text"] for b in blocks[s:e] if not b["handles"]}
            turns.update(own)
            post.append({"id": sid, "role": "summary", "text": text, "handles": [], "derived": True,
                         "derived_from": handles + list(own), "pinned": False,
                         "ts": max(b["ts"] for b in blocks[s:e])})
            h, fact = first
            src = window.sources[h]
            start, end = _byte_span(src, fact)
            digest = blake3(src.encode("utf-8")[start:end]).hexdigest()
            pointers.append({"block": sid, "handle": h, "start": start, "end": end, "hash": f"blake3:{digest}"})
            i = e
            gi += 1
        else:
            post.append(_copy_block(blocks[i]))
            i += 1
    edit = _edit("summarize", window, post, pointers=pointers)
    edit["sources"].update(turns)
    return edit


def block_text_handle(text: str) -> str:
    """The handle a block's text is stored under when the block has no source of its own:
    ``block:`` and the first 32 hex digits of the BLAKE3 of its UTF-8 text (the definition of
    ``provgate.handles.block_text_handle``, restated so that the corpus stands alone)."""
    return "block:" + blake3(text.encode("utf-8")).digest()[:16].hex()


def _group_handles(group: list[dict], pinned: frozenset[str] = frozenset()) -> list[str]:
    """The handles a summary of ``group`` derives from: the blocks' own and those their markers
    cite, except pinned ones (a summary may cite a pinned block, never derive from it: R)."""
    out: list[str] = []
    for b in group:
        for h in b["handles"] + _cited_handles(b["text"]):
            if h not in out and h not in pinned:
                out.append(h)
    return out


_SUMMARY_LEADS = ("The output shows", "It sets", "Key values", "Noted", "It records", "Relevant")


def _summary_text(window: CorpusWindow, handles: list[str], rng: random.Random) -> tuple[str, tuple[str, str]]:
    sentences = []
    first = None
    for h in handles:
        pool = window.facts[h]
        chosen = rng.sample(pool, min(len(pool), rng.randint(1, 3)))
        if first is None:
            first = (h, chosen[0])
        quoted = ", ".join(f"`{f}`" for f in chosen)
        sentences.append(f"{rng.choice(_SUMMARY_LEADS)}: {quoted} [src:{marker_name(h)}].")
    assert first is not None
    return " ".join(sentences) + "\n", first


_DRIFT_RE = re.compile(r"(?m)^retries=3$")


def drift_edit(window: CorpusWindow, *, seed: int = 0) -> dict:
    """A ``rewrite`` that silently changes ``retries=3`` to ``retries=5`` in one config block
    (the seed's rewrite-induced fact drift); a correct gate rejects it (I2)."""
    rng = random.Random(seed)
    candidates = [i for i, b in enumerate(window.blocks) if _DRIFT_RE.search(b["text"]) and not b["pinned"]]
    if not candidates:
        raise ValueError("window has no unpinned block with a `retries=3` line")
    target = rng.choice(candidates)
    post = []
    for i, b in enumerate(window.blocks):
        c = _copy_block(b)
        if i == target:
            c["text"] = _DRIFT_RE.sub("retries=" + DRIFTED_RETRIES, b["text"], count=1)
        post.append(c)
    return _edit("rewrite", window, post)


def backtick_runs(n: int) -> bytes:
    """A hostile scanner input, not a window: runs of 1, 2, 3, ... backticks one blank apart on
    one line of ``n`` bytes, no run closed (red team 50, f05: scanned in O(n^1.5) before). The
    scanner's benchmark and its tests share it."""
    out, k, size = [], 1, 0
    while size < n:
        out.append("`" * k + " ")
        size += k + 1
        k += 1
    return "".join(out)[:n].encode()
