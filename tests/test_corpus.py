"""The benchmark corpus is deterministic, has the documented shape, and its edits are honest."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from blake3 import blake3

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import corpus  # noqa: E402

WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") | frozenset(range(0x80, 0x100))
JOINERS = frozenset(b".,-:/@")
BACKTICKED = re.compile(r"`([^`]+)`")


def at_token_boundaries(data: bytes, s: int, e: int) -> bool:
    def is_word(i: int) -> bool:
        return data[i] in WORD

    left = s == 0 or (not is_word(s - 1) and not (data[s - 1] in JOINERS and s >= 2 and is_word(s - 2)))
    right = e == len(data) or (not is_word(e) and not (data[e] in JOINERS and e + 1 < len(data) and is_word(e + 1)))
    return left and right


def occurs_as_token(source: str, fact: str) -> bool:
    data, needle = source.encode(), fact.encode()
    i = data.find(needle)
    while i >= 0:
        if at_token_boundaries(data, i, i + len(needle)):
            return True
        i = data.find(needle, i + 1)
    return False


@pytest.fixture(scope="module")
def w50():
    return corpus.make_window(corpus.STANDARD_SIZES["50k"], seed=0)


@pytest.fixture(scope="module")
def w200():
    return corpus.make_window(corpus.STANDARD_SIZES["200k"], seed=0)


def digest_of(w) -> str:
    return hashlib.sha256(json.dumps(w.blocks, sort_keys=True).encode() + w.data).hexdigest()


# ---- determinism ------------------------------------------------------------------------------


def test_same_seed_same_window(w50):
    again = corpus.make_window(50_000, seed=0)
    assert again.blocks == w50.blocks
    assert again.data == w50.data
    assert again.sources == w50.sources
    assert np.array_equal(again.block_starts, w50.block_starts)


def test_other_seed_other_window(w50):
    other = corpus.make_window(50_000, seed=1)
    assert other.data != w50.data


def test_independent_of_hash_randomisation(w50):
    # string hashing is randomised per process; the corpus must not depend on it
    code = (
        "import sys, json, hashlib; sys.path.insert(0, sys.argv[1]); import corpus;"
        "w = corpus.make_window(50_000, seed=0);"
        "print(hashlib.sha256(json.dumps(w.blocks, sort_keys=True).encode() + w.data).hexdigest())"
    )
    digests = set()
    for hashseed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hashseed)
        out = subprocess.run([sys.executable, "-c", code, str(ROOT / "benchmarks")], env=env,
                             capture_output=True, text=True, check=True)
        digests.add(out.stdout.strip())
    assert digests == {digest_of(w50)}


def test_smaller_window_is_a_prefix(w50, w200):
    assert w200.blocks[: len(w50.blocks)] == w50.blocks
    assert w200.data.startswith(w50.data)


# ---- shape ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["50k", "200k"])
def test_size_and_spans(name, w50, w200):
    w = {"50k": w50, "200k": w200}[name]
    target = corpus.STANDARD_SIZES[name]
    assert target <= w.tokens <= target * 1.05
    assert w.tokens == len(w.data) // corpus.BYTES_PER_TOKEN
    assert w.block_starts.dtype == np.int64 and w.block_ends.dtype == np.int64
    assert len(w.block_starts) == len(w.blocks) == len(w.kinds)
    assert w.block_starts[0] == 0 and w.block_ends[-1] == len(w.data)
    assert np.array_equal(w.block_starts[1:], w.block_ends[:-1])
    for b, s, e in zip(w.blocks, w.block_starts, w.block_ends):
        assert w.data[s:e] == b["text"].encode("utf-8")


def test_200k_mix(w200):
    n = len(w200.blocks)
    assert 420 <= n <= 620
    assert 1300 <= len(w200.data) / n <= 1900
    linked = sum(1 for b in w200.blocks if b["handles"]) / n
    assert 0.33 <= linked <= 0.47
    marker_bytes = sum(len(m.group(0)) for b in w200.blocks for m in corpus.MARKER_RE.finditer(b["text"]))
    assert 0.007 <= marker_bytes / len(w200.data) <= 0.013
    assert {"python", "js", "go", "json", "log", "ini", "yaml", "env", "shell", "prose", "user",
            "assistant", "system"} <= set(w200.kinds)
    text = w200.data.decode("utf-8")
    assert any(ord(c) > 0xFFFF for c in text), "no astral character in the 200k window"
    assert any(0x80 <= ord(c) <= 0xFFFF for c in text)
    assert w200.rereads


def test_block_fields_and_order(w200):
    ids = [b["id"] for b in w200.blocks]
    assert len(set(ids)) == len(ids)
    ts = [b["ts"] for b in w200.blocks]
    assert all(a < b for a, b in zip(ts, ts[1:]))
    for b in w200.blocks:
        assert set(b) - {"resource"} == {"id", "role", "text", "handles", "derived", "derived_from", "pinned", "ts"}
        assert "resource" not in b or (b["role"] == "tool" and b["resource"].startswith("file:"))
        assert b["role"] in ("system", "user", "assistant", "tool")
        assert b["derived"] is False and b["derived_from"] == []
        assert b["text"].endswith("\n")
        assert len(b["handles"]) <= 1
    assert w200.blocks[0]["role"] == "system" and w200.blocks[0]["pinned"]


def test_linked_blocks_are_their_sources(w200):
    for b in w200.blocks:
        for h in b["handles"]:
            assert w200.sources[h] == b["text"]
    linked = {h for b in w200.blocks for h in b["handles"]}
    assert linked == set(w200.sources)


def test_markers_cite_known_sources(w200):
    cited = 0
    for b in w200.blocks:
        for m in corpus.MARKER_RE.finditer(b["text"]):
            assert b["role"] == "assistant"
            assert corpus.marker_handle(m.group(1)) in w200.sources
            cited += 1
    assert cited > 300


def test_marker_names_round_trip():
    for h in ("tool:call_8841", "doc:doc_7", "user:u3"):
        assert corpus.marker_handle(corpus.marker_name(h)) == h
    for bad in ("call_x", "file_3", "u", "doc_"):
        with pytest.raises(ValueError):
            corpus.marker_handle(bad)


def test_facts_are_whole_tokens_of_their_source(w200):
    assert set(w200.facts) == set(w200.sources)
    for h, facts in w200.facts.items():
        assert facts
        for f in facts:
            assert occurs_as_token(w200.sources[h], f), (h, f)


def test_assistant_quotes_are_source_facts(w200):
    for b in w200.blocks:
        if b["role"] != "assistant":
            continue
        for m in re.finditer(r"`([^`]+)` \[src:([A-Za-z0-9_]+)\]", b["text"]):
            assert m.group(1) in w200.facts[corpus.marker_handle(m.group(2))]


def test_rereads_differ_in_one_value(w200):
    for older, newer in w200.rereads:
        a, b = w200.sources[older], w200.sources[newer]
        assert a != b
        assert a.splitlines()[0] == b.splitlines()[0]  # same file
        changed = [(x, y) for x, y in zip(a.splitlines(), b.splitlines()) if x != y]
        assert len(changed) == 1 and "retries" in changed[0][0].lower()
        assert w200.block_index(next(x["id"] for x in w200.blocks if newer in x["handles"])) > \
            w200.block_index(next(x["id"] for x in w200.blocks if older in x["handles"]))


def test_no_config_says_retries_5(w200):
    assert not re.search(r"(?im)retries\s*[=:]\s*5\b", w200.data.decode())


@pytest.mark.parametrize("bad", [0, -5])
def test_bad_sizes(bad):
    with pytest.raises(ValueError):
        corpus.make_window(bad)


@pytest.mark.parametrize("bad", ["1000", 1000.0, True, None])
def test_bad_size_types(bad):
    with pytest.raises(TypeError):
        corpus.make_window(bad)


def test_bad_seed_type():
    with pytest.raises(TypeError):
        corpus.make_window(1000, seed="0")


def test_tiny_window_still_valid():
    w = corpus.make_window(10)
    assert len(w.blocks) >= 1 and w.data.endswith(b"\n")


# ---- edits ------------------------------------------------------------------------------------


def check_edit_common(edit, w):
    assert edit["format"] == corpus.EDIT_FORMAT
    assert json.loads(json.dumps(edit)) == edit
    assert edit["pre"] == w.blocks and edit["pre"] is not w.blocks
    # (a summarize edit adds the texts of the turns it summarizes, under their block handles)
    assert {h: t for h, t in edit["sources"].items() if h in w.sources} == w.sources
    turns = {b["text"] for b in w.blocks if not b["handles"]}
    assert all(h.startswith("block:") and t in turns for h, t in edit["sources"].items() if h not in w.sources)
    ids = [b["id"] for b in edit["post"]]
    assert len(set(ids)) == len(ids)
    ts = [b["ts"] for b in edit["post"]]
    assert all(a < b for a, b in zip(ts, ts[1:]))
    pre_by_id = {b["id"]: b for b in w.blocks}
    for b in w.blocks:  # pinned blocks survive byte-identical
        if b["pinned"]:
            assert pre_by_id[b["id"]] in edit["post"]
    for b in edit["post"]:
        for m in corpus.MARKER_RE.finditer(b["text"]):
            assert corpus.marker_handle(m.group(1)) in w.sources


def test_edits_do_not_mutate_the_window(w50):
    before = copy.deepcopy(w50.blocks)
    edits = [corpus.prune_edit(w50), corpus.rewrite_edit(w50), corpus.summarize_edit(w50), corpus.drift_edit(w50)]
    assert w50.blocks == before
    edits[0]["pre"][0]["handles"].append("x")
    edits[0]["post"][0]["handles"].append("y")
    assert w50.blocks == before


def test_edits_are_deterministic(w50):
    for make in (corpus.prune_edit, corpus.rewrite_edit, corpus.summarize_edit):
        assert make(w50, seed=3) == make(w50, seed=3)
        assert make(w50, seed=3)["post"] != make(w50, seed=4)["post"]


def test_prune(w200):
    edit = corpus.prune_edit(w200, keep=0.6, seed=0)
    check_edit_common(edit, w200)
    assert edit["operator"] == "prune"
    pre_by_id = {b["id"]: b for b in w200.blocks}
    post_ids = [b["id"] for b in edit["post"]]
    assert 0.55 <= len(post_ids) / len(w200.blocks) <= 0.65
    # post is pre minus some blocks, in order, unchanged
    assert post_ids == [b["id"] for b in w200.blocks if b["id"] in set(post_ids)]
    assert all(b == pre_by_id[b["id"]] for b in edit["post"])
    dropped = [b for b in w200.blocks if b["id"] not in set(post_ids)]
    assert all(b["role"] in ("tool", "assistant") and not b["pinned"] for b in dropped)
    # a dropped block without a handle is recorded by its id
    assert edit["evicted"] == [h for b in dropped for h in (b["handles"] or [b["id"]])]
    # every dropped assistant turn only cited evicted sources
    evicted = set(edit["evicted"])
    for b in dropped:
        if b["role"] == "assistant":
            assert set(corpus._cited_handles(b["text"])) <= evicted
    # never the older of two reads alone
    kept_handles = {h for b in edit["post"] for h in b["handles"]}
    edges = {(e["block"], e["handle"]) for e in edit["supersedes"]}
    for older, newer in w200.rereads:
        assert not (older in kept_handles and newer not in kept_handles)
        if newer in kept_handles and older not in kept_handles:
            newer_id = next(b["id"] for b in edit["post"] if newer in b["handles"])
            assert (newer_id, older) in edges
    for e in edit["supersedes"]:
        assert e["block"] in set(post_ids)


def test_prune_keep_extremes(w50):
    assert len(corpus.prune_edit(w50, keep=1.0)["post"]) == len(w50.blocks)
    with pytest.raises(ValueError):
        corpus.prune_edit(w50, keep=1.5)
    with pytest.raises(ValueError):
        corpus.summarize_edit(w50, fraction=-0.1)


def test_rewrite_changes_only_whitespace(w200):
    edit = corpus.rewrite_edit(w200, fraction=0.1, seed=0)
    check_edit_common(edit, w200)
    assert edit["operator"] == "rewrite"
    assert [b["id"] for b in edit["post"]] == [b["id"] for b in w200.blocks]
    changed = 0
    for pre, post in zip(w200.blocks, edit["post"]):
        assert {k: v for k, v in pre.items() if k != "text"} == {k: v for k, v in post.items() if k != "text"}
        if pre["text"] != post["text"]:
            changed += 1
            assert not pre["pinned"]
            assert pre["text"].split() == post["text"].split()
            assert [ln.strip() for ln in pre["text"].splitlines() if ln.strip()] == \
                   [ln.strip() for ln in post["text"].splitlines() if ln.strip()]
    assert changed == round(0.1 * len(w200.blocks))


def test_summarize(w200):
    edit = corpus.summarize_edit(w200, fraction=0.3, seed=0)
    check_edit_common(edit, w200)
    assert edit["operator"] == "summarize"
    summaries = [b for b in edit["post"] if b["role"] == "summary"]
    assert summaries
    pre_ids = {b["id"] for b in w200.blocks}
    kept = [b for b in edit["post"] if b["id"] in pre_ids]
    replaced = len(w200.blocks) - len(kept)
    assert abs(replaced - round(0.3 * len(w200.blocks))) <= 2
    assert len(kept) + len(summaries) == len(edit["post"])
    in_reread = {h for pair in w200.rereads for h in pair}
    for b in w200.blocks:
        if b["id"] not in {k["id"] for k in kept}:
            assert not b["pinned"] and b["role"] != "system" and not set(b["handles"]) & in_reread
    for s in summaries:
        assert s["derived"] is True and s["handles"] == [] and s["derived_from"]
        assert set(s["derived_from"]) <= set(edit["sources"])
        union = "".join(edit["sources"][h] for h in s["derived_from"])
        quoted = BACKTICKED.findall(s["text"])
        assert quoted
        for fact in quoted:
            assert any(occurs_as_token(edit["sources"][h], fact) for h in s["derived_from"]), fact
            assert fact in union
        cited = corpus._cited_handles(s["text"])
        assert cited and set(cited) <= set(s["derived_from"])
    assert len(edit["pointers"]) == len(summaries)
    for p in edit["pointers"]:
        src = w200.sources[p["handle"]].encode()
        assert 0 <= p["start"] < p["end"] <= len(src)
        assert p["hash"] == "blake3:" + blake3(src[p["start"] : p["end"]]).hexdigest()
        block = next(b for b in summaries if b["id"] == p["block"])
        assert p["handle"] in block["derived_from"]
        assert src[p["start"] : p["end"]].decode() in BACKTICKED.findall(block["text"])


def test_drift(w200):
    edit = corpus.drift_edit(w200, seed=0)
    check_edit_common(edit, w200)
    assert edit["operator"] == "rewrite"
    diffs = [(a, b) for a, b in zip(w200.blocks, edit["post"]) if a != b]
    assert len(diffs) == 1
    pre, post = diffs[0]
    assert "retries=3" in pre["text"] and "retries=5" in post["text"]
    assert pre["text"].replace("retries=3", "retries=5", 1) == post["text"]
    assert "retries=5" not in w200.data.decode()


def test_drift_needs_a_config(w50):
    w = corpus.make_window(10)
    with pytest.raises(ValueError):
        corpus.drift_edit(w)
    assert corpus.drift_edit(w50)  # the 50k window always has the retries=3 config


def test_edits_parse_as_edit_format_v1(w50):
    from provgate.window import Edit

    for make in (corpus.prune_edit, corpus.rewrite_edit, corpus.summarize_edit, corpus.drift_edit):
        raw = make(w50)
        edit = Edit.from_json(raw)
        assert edit.operator == raw["operator"]
        assert len(edit.post) == len(raw["post"])


def test_rereads_name_one_resource(w200):
    by_handle = {b["handles"][0]: b for b in w200.blocks if b["handles"]}
    assert w200.rereads
    for older, newer in w200.rereads:
        assert by_handle[older]["resource"] == by_handle[newer]["resource"]
        assert by_handle[older]["text"] != by_handle[newer]["text"]
        assert by_handle[older]["ts"] < by_handle[newer]["ts"]


def test_summarize_keeps_the_way_back_to_each_turn(w200):
    # a summarized block without a handle is named by its summary under its block handle, and
    # its text is among the edit's sources (I1 after a lossy operator)
    from provgate.handles import block_text_handle

    edit = corpus.summarize_edit(w200, fraction=0.3, seed=0)
    kept = {b["id"] for b in edit["post"]}
    named = {h for b in edit["post"] if b["derived"] for h in b["derived_from"]}
    gone = [b for b in w200.blocks if b["id"] not in kept and not b["handles"]]
    assert gone
    for b in gone:
        h = block_text_handle(blake3(b["text"].encode("utf-8")).digest())
        assert h == corpus.block_text_handle(b["text"]) and h in named and edit["sources"][h] == b["text"]
