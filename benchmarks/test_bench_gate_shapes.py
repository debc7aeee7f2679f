"""Edits whose shape once made a check superlinear (red team 41), at two sizes each, so that
their growth is measured: a size twice the other should take about twice as long.

    PYTHONPATH=src:benchmarks python -m pytest benchmarks/test_bench_gate_shapes.py

- ``unresolved_markers``: one assistant block citing N markers that name no stored handle
  (rejected by I3; the blocks citing each name were searched name by name: 16,000 took 3 s).
- ``summary_chain``: N summaries, each deriving from the text handle of the one before, the
  first from a logged read (I4 followed the whole chain again under each summary: 4,000 took
  2.2 s).
- ``cited_handles``: one summary citing N distinct sources (deduplicated through a list: 32,000
  took 7.7 s).
- ``summary_of_many_sources``: one summary deriving from N sources, each of its facts a
  ``key=value`` pair one of them states as ``key: value`` (grounded by the pair, not
  literally; each fact was looked up in the sources' sets one by one: 16,000 took 4.4 s).
- ``summary_stating_what_no_source_holds``: one summary deriving from N sources, stating N / 2
  lines ``v{i} is {i}`` whose facts no source's set holds: ``v{i}`` occurs literally in source
  ``i``, ``{i}`` (not a multiple of 7) in none at token boundaries (red team 41, "v1 is 1": each
  such fact was searched for in the sources one by one, its rows times their bytes: 16,000
  sources took 3.7 s).
- ``summary_superseding_many_reads``: one summary replacing N reads, with a supersession edge
  over each (red team 49, F03: each edge worked out the summary's origins and their newest
  again, quadratic in N: 4,000 took 12 s in I4, against 0.4 s with eviction records).
- ``summary_superseding_reads_of_many_files``: N files read twice each, an assistant turn per
  file citing its newer read, and one summary of the newer reads superseding each file's older
  read (red team 57, F02: every pre block's citations were asked once per file, and in a
  session the summary's origins scanned once per file: 4,000 took 2.9 s in I4, 11.5 s with the
  session's log).
- ``summary_of_left_reads_superseding_many_files``: the same, once the newer reads have left
  the window: the summary is dated by its sources (red team 64, F01: the sources read as no
  known file, and the newest of them per file, were worked out once per file, each a walk of
  all N sources: 4,000 took 8.3 s).
- ``resummaries_superseding_reads``: N per-file summaries of newer reads that left the window,
  each re-summarized in place from its own block handle and superseding its file's older read
  (red team 64, F03: each summary's dating mapped every derived pre block to its text handle
  again: 4,000 took 20 s).
- ``summary_superseding_a_summary_chain``: the ``summary_chain`` window and a newer read, and
  a summary of that read with an edge over every link's block handle (red team 64, F04: each
  edge walked the chain below its link again: 8,000 took 6.5 s).
- ``summaries_of_shared_documents``: N summaries of two facts each, every one derived from the
  same 20 documents of 5,000 facts and its own turn (red team 42, C1: the union of each
  summary's sets, sorted anew per summary, took 4.3 s for 200).
- ``rewrite_dropping_quotations`` and ``rewrite_reflowing_quotations``: a rewrite of one block
  of N quotations that drops each (their marks removed: rejected by I2) or wraps each onto two
  lines (lossless). Each dropped quotation is looked for, re-wrapped, in the rewritten text
  (stop 39): one search each made 8,000 take 0.8 s.
- ``summary_of_many_grep_reads``: one summary deriving from N reads of grep output
  (``src/modI.py:L: error``), naming each path and its line apart (red team 99, F08: each path
  and number left over walked every source of the block: 2,000 reads took 3.9 s refused).
- ``summary_of_invented_quotations``: a summary of a log of 20,000 lines quoting N two-word
  phrases the log does not hold (refused; red team 99, F12: each was looked for, re-wrapped,
  over the whole log before the 64-look bound counted it: 2,000 took 5 s with a log of 40,000
  lines).
- ``summary_of_invented_quotations_in_a_growing_log``: the same with a log of 40 lines a
  quotation (~2 MB at N = 1,000, ~4 MB at 2,000). Each literal search of a phrase read the
  whole log while its 4-gram bitmap was a fixed 65,536 bits, full past ~1 MB (2,000 quotations
  of a 4 MB log took 1.4 s); the bitmap now grows with the log, and the shape grows linearly.
- ``rewrite_reflowing_tool_calls``: a re-flow of one block of N tool-call lines whose quoted
  values and code spans it wraps (lossless; stop 40, red team 95, F04).
- ``summary_table_of_numbers`` and ``summary_of_one_long_sentence``: a summary of a config's
  newer read stating N numbers in a markdown table, or in one sentence, beside the older read
  kept (red team 96, F07: I4's prose rule walked each cell up to its table's header, and read
  each number's sentence back to its start: 4,000 took 3.7 s and 10 s).
- ``rewrite_adding_names``: a rewrite of one block of N lines, each now naming a capitalised
  word its pre version holds lower-cased (refused: the names are new; red team 100, F07: each
  name was looked for, with the words around it, by a find over the whole pre version: 32,000
  took 10 s).
- ``summaries_of_a_config_whose_keys_changed``: a config of N keys read twice, every value
  changed, summarized as N one-key summaries of the newer read, the older read evicted on the
  record (red team 64, F02: I4 scanned each summary for every stale key's name and asked it
  every one of the 2N old and new values: 4,000 took 8.5 s in I4).

and a session at two ages (``test_session_age``): the check of cycle N + 1 of a session that
read one file again every cycle, folding each read into one running summary (red team 41,
04: I4 re-read every logged read of the file and rebuilt its stale values in every check,
3.1 ms a check at cycle 100, 56 ms at cycle 3,200). Its check should cost the same at both
ages. And the resume of a session at two ages (``test_resume_pinning_session``): a session that
pinned a user turn every cycle, resumed from the audit log (red team 64, F06: every record held
the session's whole pin set, 194 MB of pins at 2,000 cycles, resumed in 1.7 s). Its resume
should take about twice as long at twice the age.
"""

from __future__ import annotations

import json

import pytest
from blake3 import blake3

from provgate.gate import Gate
from provgate.store import SourceStore


def _word(i: int) -> str:
    """A distinct word without digits or capitals for each ``i`` (a text that states no fact)."""
    s, i = "", i + 1
    while i:
        i, r = divmod(i - 1, 26)
        s = "bcdfghjklmnpqrstvwxzaeiouy"[r] + s
    return s


def _unresolved_markers(n: int):
    pre = [{"id": "a", "role": "assistant", "text": "hi\n"}]
    post = [{"id": "a", "role": "assistant", "text": "".join(f"x [src:nope{i}]\n" for i in range(n))}]
    return {}, pre, post, "rewrite", False


def _summary_chain(n: int):
    sources = {"tool:r1": "retries=3\n"}
    pre = [{"id": "r1", "role": "tool", "text": "retries=3\n", "handles": ["tool:r1"], "resource": "file:a", "ts": 1.0}]
    prev = "tool:r1"
    for i in range(n):
        text = f"Summary {_word(i)} of the earlier notes.\n"
        pre.append({"id": f"s{i}", "role": "summary", "text": text, "derived": True, "derived_from": [prev]})
        prev = "block:" + blake3(text.encode()).hexdigest()[:32]
        sources[prev] = text
    post = pre[:-1] + [dict(pre[-1], text=pre[-1]["text"] + "Nothing else.\n")]
    return sources, pre, post, "summarize", True


def _cited_handles(n: int):
    sources = {f"tool:c{i}": f"note {_word(i)}\n" for i in range(n)}
    pre = [{"id": "a", "role": "assistant", "text": "hi\n"}]
    text = "Notes: " + " ".join(f"[src:c{i}]" for i in range(n)) + "\n"
    post = [*pre, {"id": "s", "role": "summary", "text": text, "derived": True,
                   "derived_from": [f"tool:c{i}" for i in range(n)]}]
    return sources, pre, post, "summarize", True


def _summary_of_many_sources(n: int):
    sources = {f"tool:c{i}": f"v{i}: {i * 7}\n" for i in range(n)}
    pre = [{"id": f"t{i}", "role": "tool", "text": text, "handles": [h]} for i, (h, text) in enumerate(sources.items())]
    post = [{"id": "s", "role": "summary", "text": "".join(f"v{i}={i * 7}\n" for i in range(n)), "derived": True,
             "derived_from": list(sources)}]
    return sources, pre, post, "summarize", True


def _summary_stating_what_no_source_holds(n: int):
    sources = {f"tool:c{i}": f"v{i}: {i * 7}\n" for i in range(n)}
    pre = [{"id": f"t{i}", "role": "tool", "text": text, "handles": [h]} for i, (h, text) in enumerate(sources.items())]
    post = [{"id": "s", "role": "summary", "text": "".join(f"v{i} is {i}\n" for i in range(n // 2)), "derived": True,
             "derived_from": list(sources)}]
    return sources, pre, post, "summarize", False


def _summary_superseding_many_reads(n: int):
    sources = {f"tool:x{i}": f"item {_word(i)} value={i}\n" for i in range(n)}
    pre = [{"id": f"b{i}", "role": "tool", "text": text, "handles": [h]} for i, (h, text) in enumerate(sources.items())]
    post = [{"id": "s", "role": "summary", "text": "All items were read.\n", "derived": True,
             "derived_from": list(sources)}]
    return sources, pre, post, "summarize", True, {"supersedes": [{"block": "s", "handle": h} for h in sources]}


def _summary_superseding_reads_of_many_files(n: int):
    sources = {f"tool:o{k}": f"f{k}_retries={k}\n" for k in range(n)}
    sources.update({f"tool:n{k}": f"f{k}_retries={k + 1}\n" for k in range(n)})
    pre = [{"id": f"{age}{k}", "role": "tool", "text": sources[f"tool:{age}{k}"], "handles": [f"tool:{age}{k}"],
            "resource": f"file:f{k}", "ts": ts} for age, ts in (("o", 100.0), ("n", 200.0)) for k in range(n)]
    turns = [{"id": f"a{k}", "role": "assistant", "text": f"File {k} now retries {k + 1} times [src:n{k}].\n"}
             for k in range(n)]
    post = [{"id": "s", "role": "summary", "text": "".join(f"f{k}_retries={k + 1} [src:n{k}]\n" for k in range(n)),
             "derived": True, "derived_from": [f"tool:n{k}" for k in range(n)]}, *turns]
    return (sources, pre + turns, post, "summarize", True,
            {"supersedes": [{"block": "s", "handle": f"tool:o{k}"} for k in range(n)]})


def _older_reads_of_files(n: int) -> tuple[dict[str, str], list[dict]]:
    """N files each read twice (tool:o{k}, then tool:n{k} with a changed value): the sources,
    and the older reads as the window shows them (the newer ones have left it)."""
    sources = {f"tool:o{k}": f"f{k}_retries={k}\n" for k in range(n)}
    sources.update({f"tool:n{k}": f"f{k}_retries={k + 1}\n" for k in range(n)})
    olds = [{"id": f"o{k}", "role": "tool", "text": sources[f"tool:o{k}"], "handles": [f"tool:o{k}"],
             "resource": f"file:f{k}", "ts": 100.0} for k in range(n)]
    return sources, olds


def _summary_of_left_reads_superseding_many_files(n: int):
    sources, pre = _older_reads_of_files(n)
    post = [{"id": "s", "role": "summary", "text": "".join(f"f{k}_retries={k + 1}\n" for k in range(n)),
             "derived": True, "derived_from": [f"tool:n{k}" for k in range(n)]}]
    return (sources, pre, post, "summarize", True,
            {"supersedes": [{"block": "s", "handle": f"tool:o{k}"} for k in range(n)]})


def _resummaries_superseding_reads(n: int):
    sources, olds = _older_reads_of_files(n)
    sums = [{"id": f"m{k}", "role": "summary", "text": f"Now f{k}_retries={k + 1}\n", "derived": True,
             "derived_from": [f"tool:n{k}"]} for k in range(n)]
    texts = ["block:" + blake3(m["text"].encode()).hexdigest()[:32] for m in sums]
    sources.update({h: m["text"] for h, m in zip(texts, sums)})
    post = [{"id": f"m{k}", "role": "summary", "text": f"So now f{k}_retries={k + 1}\n", "derived": True,
             "derived_from": [texts[k], f"tool:n{k}"]} for k in range(n)]
    return (sources, olds + sums, post, "summarize", True,
            {"supersedes": [{"block": f"m{k}", "handle": f"tool:o{k}"} for k in range(n)]})


def _summary_superseding_a_summary_chain(n: int):
    sources, chain, _, _, _ = _summary_chain(n)
    links = [h for h in sources if h.startswith("block:")]
    sources["tool:r2"] = "retries=4\n"
    newer = {"id": "r2", "role": "tool", "text": "retries=4\n", "handles": ["tool:r2"], "resource": "file:a", "ts": 2.0}
    post = [*chain, {"id": "S", "role": "summary", "text": "Now retries=4\n", "derived": True,
                     "derived_from": ["tool:r2"]}]
    return (sources, [*chain, newer], post, "summarize", True,
            {"supersedes": [{"block": "S", "handle": h} for h in links]})


_DOCS = 20


def _summaries_of_shared_documents(n: int):
    sources = {f"doc:d{i}": "".join(f"opt{i}_{k}={k}\n" for k in range(5000)) for i in range(_DOCS)}
    docs = list(sources)
    pre = [{"id": f"d{i}", "role": "tool", "text": sources[h], "handles": [h]} for i, h in enumerate(docs)]
    post = list(pre)
    for m in range(n):
        turn = f"Turn {_word(m)} set opt3_{m}={m}\n"
        handle = "block:" + blake3(turn.encode()).hexdigest()[:32]
        sources[handle] = turn
        post.append({"id": f"s{m}", "role": "summary", "text": f"Turn {_word(m)}: opt3_{m}={m}\n", "derived": True,
                     "derived_from": [*docs, handle]})
    return sources, pre, post, "summarize", True


def _summaries_of_a_config_whose_keys_changed(n: int):
    old = "".join(f"opt_{_word(i)}={i}\n" for i in range(n))
    new = "".join(f"opt_{_word(i)}={i + 100000}\n" for i in range(n))
    sources = {"tool:r1": old, "tool:r2": new}
    pre = [{"id": "r1", "role": "tool", "text": old, "handles": ["tool:r1"], "resource": "file:app.conf", "ts": 100.0},
           {"id": "r2", "role": "tool", "text": new, "handles": ["tool:r2"], "resource": "file:app.conf", "ts": 200.0}]
    post = [{"id": f"s{i}", "role": "summary", "text": f"Section {_word(i)}: opt_{_word(i)}={i + 100000}\n",
             "derived": True, "derived_from": ["tool:r2"]} for i in range(n)]
    return sources, pre, post, "summarize", True, {"evicted": ["tool:r1"]}


def _summary_repeating_a_quote(n: int):
    # red team 90, F04: one quote N times, which the source holds at a boundary once and N times
    # inside longer tokens; each copy was searched over every occurrence (18 s for 832 KB)
    source = "xalpha betax " * n + "\nalpha beta\n"
    sources = {"tool:c": source}
    pre = [{"id": "t", "role": "tool", "text": source, "handles": ["tool:c"]}]
    post = [*pre, {"id": "s", "role": "summary", "text": " ".join('"alpha beta"' for _ in range(n)) + ".\n", "derived": True,
                   "derived_from": ["tool:c"]}]
    return sources, pre, post, "summarize", True


def _rewrite_dropping_quotations(n: int):
    # stop 39: each quotation a rewrite drops is looked for, re-wrapped, in the rewritten text;
    # one search each made N dropped quotations of a long block quadratic (0.8 s for 8,000)
    text = "".join(f'Item {_word(i)}: ask "the engineer {_word(i)}" now.\n' for i in range(n))
    pre = [{"id": "t", "role": "tool", "text": text, "handles": ["doc:d"]}]
    post = [{"id": "t", "role": "tool", "text": text.replace('"', ""), "handles": ["doc:d"]}]
    return {"doc:d": text}, pre, post, "rewrite", False


def _rewrite_reflowing_quotations(n: int):
    # stop 39 (red team 90, F02): a re-flow that wraps every quotation of a long block is lossless
    text = "".join(f'Item {_word(i)}: ask "the engineer {_word(i)}" now.\n' for i in range(n))
    pre = [{"id": "t", "role": "tool", "text": text, "handles": ["doc:d"]}]
    post = [{"id": "t", "role": "tool", "text": text.replace('engineer ', "engineer\n"), "handles": ["doc:d"]}]
    return {"doc:d": text}, pre, post, "rewrite", True


def _summary_of_many_grep_reads(n: int):
    # red team 99, F08 (stop 40): each path and line a summary names apart was looked up in
    # every source of its block
    sources = {f"tool:g{i}": f"src/mod{i}.py:{i + 10}: error E{i}\n" for i in range(n)}
    pre = [{"id": f"t{i}", "role": "tool", "text": text, "handles": [h]} for i, (h, text) in enumerate(sources.items())]
    text = "Errors: " + ", ".join(f"src/mod{i}.py (line {i + 10})" for i in range(n)) + ".\n"
    post = [{"id": "s", "role": "summary", "text": text, "derived": True, "derived_from": list(sources)}]
    return sources, pre, post, "summarize", True


def _summary_of_invented_quotations(n: int):
    # red team 99, F12 (stop 40): every quotation left over counts toward the wrapped-quotation
    # look-up bound, found in a source or not
    log = "".join(f"{i:06d} worker {_word(i)} finished batch {i} in {i % 97} ms\n" for i in range(20_000))
    text = " ".join(f'"{_word(i)} zebra{i}"' for i in range(n)) + "\n"
    pre = [{"id": "t", "role": "tool", "text": log, "handles": ["tool:log"]}]
    post = [*pre, {"id": "s", "role": "summary", "text": text, "derived": True, "derived_from": ["tool:log"]}]
    return {"tool:log": log}, pre, post, "summarize", False


def _summary_of_invented_quotations_in_a_growing_log(n: int):
    # the occurs_at_boundaries prefilter's bitmap grows with its haystack (ext/_boundaries.pxd):
    # a fixed 2**16 bits filtered nothing in a log of 2 MB or more
    log = "".join(f"{i:06d} worker {_word(i)} finished batch {i} in {i % 97} ms\n" for i in range(40 * n))
    text = " ".join(f'"{_word(i)} zebra{i}"' for i in range(n)) + "\n"
    pre = [{"id": "t", "role": "tool", "text": log, "handles": ["tool:log"]}]
    post = [*pre, {"id": "s", "role": "summary", "text": text, "derived": True, "derived_from": ["tool:log"]}]
    return {"tool:log": log}, pre, post, "summarize", False


def _rewrite_reflowing_tool_calls(n: int):
    # stop 40 (red team 95, F04): the facts inside each wrapped quotation are looked for in the
    # other side's text in one pass, not one search each
    text = "".join(f'Run `get_{_word(i)}(repo="acme/{_word(i)}", number={i})` and set t{_word(i)}="{i} s".\n'
                   for i in range(n))
    pre = [{"id": "a", "role": "assistant", "text": text, "handles": []}]
    post = [{"id": "a", "role": "assistant", "text": text.replace(", number", ",\nnumber").replace(' s"', '\ns"'),
             "handles": []}]
    return {}, pre, post, "rewrite", True


def _newer_read_summarized(text: str):
    """A config read twice (retries and timeout 3, then 5), the older read kept, the newer one
    summarized as ``text``."""
    older, newer = "retries=3\ntimeout=3\n", "retries=5\ntimeout=5\n"
    sources = {"tool:r1": older, "tool:r4": newer}
    pre = [{"id": "t1", "role": "tool", "text": older, "handles": ["tool:r1"], "resource": "file:app.ini", "ts": 110.0},
           {"id": "t4", "role": "tool", "text": newer, "handles": ["tool:r4"], "resource": "file:app.ini", "ts": 140.0}]
    post = [pre[0], {"id": "s", "role": "summary", "text": text, "derived": True, "derived_from": ["tool:r4"]}]
    return sources, pre, post, "summarize", True


def _summary_table_of_numbers(n: int):
    # red team 96, F07 (stop 39): each cell of a markdown table walked the table up to its
    # header (I4's prose rule): 4,000 rows took 3.7 s
    return _newer_read_summarized("| retries | timeout |\n|---|---|\n" + "| 5 | 5 |\n" * n + "[src:r4]\n")


def _summary_of_one_long_sentence(n: int):
    # red team 96, F07: a sentence of N numbers ("etc." joined them into one) was read back to
    # its start for each number: 4,000 took 10 s
    return _newer_read_summarized("Retries and the timeout are now " + "5, " * n + "etc. [src:r4]\n")


def _rewrite_adding_names(n: int):
    # red team 100, F07: each name new to a rewritten block was looked for, with the words
    # around it, by a find over its whole pre version (refused: the names are new): 32,000
    # took 10 s
    pre = "".join(f"the word q{_word(i)} here.\n" for i in range(n))
    post = "".join(f"met Q{_word(i)} here.\n" for i in range(n))
    return {}, [{"id": "a", "role": "assistant", "text": pre, "handles": []}], \
        [{"id": "a", "role": "assistant", "text": post, "handles": []}], "rewrite", False


SHAPES = {"unresolved_markers": (_unresolved_markers, 4000), "summary_chain": (_summary_chain, 2000),
          "cited_handles": (_cited_handles, 2000), "summary_of_many_sources": (_summary_of_many_sources, 2000),
          "summary_stating_what_no_source_holds": (_summary_stating_what_no_source_holds, 4000),
          "summaries_of_shared_documents": (_summaries_of_shared_documents, 100),
          "summary_superseding_many_reads": (_summary_superseding_many_reads, 1000),
          "summary_superseding_reads_of_many_files": (_summary_superseding_reads_of_many_files, 1000),
          "summary_of_left_reads_superseding_many_files": (_summary_of_left_reads_superseding_many_files, 500),
          "resummaries_superseding_reads": (_resummaries_superseding_reads, 500),
          "summary_superseding_a_summary_chain": (_summary_superseding_a_summary_chain, 2000),
          "summaries_of_a_config_whose_keys_changed": (_summaries_of_a_config_whose_keys_changed, 1000),
          "summary_repeating_a_quote": (_summary_repeating_a_quote, 8000),
          "rewrite_dropping_quotations": (_rewrite_dropping_quotations, 4000),
          "rewrite_reflowing_quotations": (_rewrite_reflowing_quotations, 4000),
          "summary_of_many_grep_reads": (_summary_of_many_grep_reads, 1000),
          "rewrite_reflowing_tool_calls": (_rewrite_reflowing_tool_calls, 1000),
          "summary_of_invented_quotations": (_summary_of_invented_quotations, 1000),
          "summary_of_invented_quotations_in_a_growing_log": (_summary_of_invented_quotations_in_a_growing_log, 1000),
          "summary_table_of_numbers": (_summary_table_of_numbers, 4000),
          "summary_of_one_long_sentence": (_summary_of_one_long_sentence, 4000),
          "rewrite_adding_names": (_rewrite_adding_names, 4000)}
# shapes whose every round checks summaries no round checked before: the gate's grounding
# cache would otherwise answer I1 from the first round
NEW_TEXT_EACH_ROUND = {"summary_of_many_sources", "summary_stating_what_no_source_holds", "summary_of_invented_quotations",
                       "summary_of_invented_quotations_in_a_growing_log",
                       "summaries_of_shared_documents", "summary_repeating_a_quote"}


@pytest.mark.parametrize("scale", [1, 2])
@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.benchmark(group="gate-shapes")
def test_shape(benchmark, tmp_path, shape, scale):
    make, n = SHAPES[shape]
    sources, pre, post, operator, accepted, *records = make(n * scale)  # (records: supersedes, evicted)
    records = records[0] if records else {}
    store = SourceStore(str(tmp_path / "store.sqlite3"))
    store.put_many(list(sources.items()))
    gate = Gate(store, audit=False)
    gate.check(pre, pre, operator="reorder", commit=True)  # the session has seen (and logged) pre

    rounds = iter(range(5))

    def this_round():
        if shape not in NEW_TEXT_EACH_ROUND:
            return (post,), {}
        note = f"Round {_word(next(rounds))}.\n"
        return ([dict(b, text=b["text"] + note) if b.get("derived") else b for b in post],), {}

    verdict = benchmark.pedantic(lambda edited: gate.check(pre, edited, operator=operator, **records), setup=this_round,
                                 rounds=5, iterations=1)
    assert verdict.accepted is accepted, verdict.summary()
    benchmark.extra_info.update(n=n * scale, phases_ms={k: round(v, 2) for k, v in verdict.timings_ms.items()})
    store.close()


def _fold_reads(gate: Gate, store: SourceStore, n: int) -> list[dict]:
    """Cycles 1..n of the session of ``test_session_age``; returns the window after cycle n."""
    window = [{"id": "s", "role": "summary", "text": "Nothing yet.\n", "derived": True, "derived_from": []}]
    for k in range(1, n + 1):
        pre, post, evicted = _fold_cycle(store, window, k)
        verdict = gate.check(pre, post, operator="summarize", evicted=evicted, commit=True)
        assert verdict.accepted, verdict.summary()
        window = post
    return window


def _fold_cycle(store: SourceStore, window: list[dict], k: int) -> tuple[list[dict], list[dict], list[str]]:
    """Cycle k: the file read again (a new handle, a new value), the read folded into the
    summary, which derives from it and the read before; the read before that evicted."""
    h, text = f"tool:r{k}", f"retries={k}\ntimeout=30\n"
    store.put(h, text)
    read = {"id": f"r{k}", "role": "tool", "text": text, "handles": [h], "resource": "file:a.ini", "ts": float(k)}
    post = [{"id": "s", "role": "summary", "text": f"retries={k}\n", "derived": True,
             "derived_from": [h] + ([f"tool:r{k - 1}"] if k > 1 else [])}]
    return [*window, read], post, [f"tool:r{k - 2}"] if k > 2 else []


@pytest.mark.parametrize("scale", [1, 2])
@pytest.mark.benchmark(group="gate-session-age")
def test_session_age(benchmark, tmp_path, scale):
    n = 500 * scale
    store = SourceStore(str(tmp_path / "store.sqlite3"))
    gate = Gate(store, audit=False)
    window = _fold_reads(gate, store, n)
    pre, post, evicted = _fold_cycle(store, window, n + 1)

    verdict = benchmark.pedantic(lambda: gate.check(pre, post, operator="summarize", evicted=evicted),
                                 rounds=15, iterations=1, warmup_rounds=1)
    assert verdict.accepted, verdict.summary()
    benchmark.extra_info.update(cycles=n, phases_ms={k: round(v, 2) for k, v in verdict.timings_ms.items()})
    store.close()


def _pinned_turn(k: int) -> dict:
    return {"id": f"u{k}", "role": "user", "text": f"Requirement {_word(k)} holds.\n", "handles": [f"user:u{k}"],
            "pinned": True}


def _pinning_cycle(window: list[dict], k: int) -> tuple[list[dict], list[dict], list[str]]:
    """A turn pinned, the one ten cycles older evicted on the record: (pre, post, evicted)."""
    pre = [*window, _pinned_turn(k)]
    return pre, [b for b in pre if b["id"] != f"u{k - 10}"], [f"user:u{k - 10}"] if k >= 10 else []


def _pinning_cycles(gate: Gate, n: int) -> list[dict]:
    """``n`` pinning cycles committed; the window they leave (about eleven blocks)."""
    window = [{"id": "sys", "role": "system", "text": "You are helpful.\n"}]
    for k in range(n):
        pre, window, evicted = _pinning_cycle(window, k)
        verdict = gate.check(pre, window, operator="evict", evicted=evicted, commit=True)
        assert verdict.accepted, verdict.summary()
    return window


@pytest.mark.parametrize("scale", [1, 2])
@pytest.mark.benchmark(group="gate-session-pins")
def test_check_of_a_pinning_session(benchmark, tmp_path, scale):
    # red team 64, F05: every check walked the session's sticky pins (two a cycle), so the
    # check of an eleven-block window took 9.6 ms at cycle 4,000
    n = 1000 * scale
    store = SourceStore(str(tmp_path / "store.sqlite3"))
    store.put_many([(f"user:u{k}", _pinned_turn(k)["text"]) for k in range(n + 1)])
    gate = Gate(store, audit=False)
    pre, post, evicted = _pinning_cycle(_pinning_cycles(gate, n), n)

    verdict = benchmark.pedantic(lambda: gate.check(pre, post, operator="evict", evicted=evicted),
                                 rounds=15, iterations=1, warmup_rounds=1)
    assert verdict.accepted, verdict.summary()
    benchmark.extra_info.update(cycles=n, pins=len(gate.pins[0]))
    store.close()


@pytest.mark.parametrize("scale", [1, 2])
@pytest.mark.benchmark(group="gate-resume-age")
def test_resume_pinning_session(benchmark, tmp_path, scale):
    n = 500 * scale
    store = SourceStore(str(tmp_path / "store.sqlite3"))
    store.put_many([(f"user:u{k}", _pinned_turn(k)["text"]) for k in range(n)])
    gate = Gate(store, session="pins")
    _pinning_cycles(gate, n)

    resumed = benchmark.pedantic(lambda: Gate(store, session="pins"), rounds=5, iterations=1, warmup_rounds=1)
    assert resumed.pins == gate.pins
    benchmark.extra_info.update(cycles=n, pin_bytes=sum(len(json.dumps(r["pins"]))
                                                        for _, r in store.iter_audit_of_session("pins")))
    store.close()


@pytest.mark.parametrize("scale", [1, 2])
@pytest.mark.benchmark(group="gate-pin-chain")
def test_check_of_a_chain_of_re_rendered_pages(benchmark, tmp_path, scale):
    # red team 78, F01: N pages, each a pinned text re-rendered carrying the handle of the page
    # before it; a check takes up the pins its record adds, and each round of that reaches one
    # page more, over the whole window: quadratic (a documented limit; a closure that bounded the
    # rounds over-pinned, red team 79). Each round of the benchmark is a session's first sight of
    # the pages (a fresh gate)
    n = 300 * scale
    turn_text = "Deploy only to staging and keep mode=safe for now.\n"
    handles = [f"tool:h{i}" for i in range(n + 1)]
    store = SourceStore(str(tmp_path / "store.sqlite3"))
    store.put_many([*((h, f"page {i}\n") for i, h in enumerate(handles)), ("user:u0", turn_text)])
    turn = {"id": "u0", "role": "user", "text": turn_text, "handles": ["user:u0"], "pinned": True}
    go_on = {"id": "z", "role": "user", "text": "go on\n"}
    pages = [{"id": "b0", "role": "tool", "text": turn_text, "handles": [handles[0]]}]
    pages += [{"id": f"b{i}", "role": "tool", "text": turn_text.rstrip("\n") + " " * i + "\n",
               "handles": [handles[i - 1], handles[i]]} for i in range(1, n + 1)]

    def first_sight():
        gate = Gate(store, audit=False)
        assert gate.check([turn, go_on], [go_on], operator="evict", evicted=["user:u0"], commit=True).accepted
        return (gate,), {}

    verdict = benchmark.pedantic(lambda gate: gate.check([*pages, go_on], [go_on], operator="evict", evicted=handles),
                                 setup=first_sight, rounds=7, iterations=1)
    assert verdict.accepted, verdict.summary()
    benchmark.extra_info.update(pages=n, phases_ms={k: round(v, 2) for k, v in verdict.timings_ms.items()})
    store.close()
