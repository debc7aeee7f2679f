"""I4: a read keeps the resource the session's read log files its handle under (lead 5, L4b).

The rules on a window's reads group them by their ``resource`` tags. A read retagged between two
gated checks (by the agent, outside the gate) left its resource's line: an edit that kept the
older read alone and evicted the newer one passed as lossless, though the log held both reads
of ``cfg.yaml``."""

from __future__ import annotations

import pytest
from gate_helpers import (
    assert_accepted,
    blk,
    comparable,
    find,
    store_with,
    summary,
    tool,
)

from provgate.gate import Gate

R1, R2 = "tool:r1", "tool:r2"
S1, S2 = "retries=3\ntimeout=30\n", "retries=5\ntimeout=30\n"


def _window(resource_a: str = "cfg.yaml", resource_b: str = "cfg.yaml") -> list[dict]:
    return [tool("a", R1, S1, ts=100, resource=resource_a), tool("b", R2, S2, ts=200, resource=resource_b)]


def _session(path=":memory:", session: str | None = None) -> Gate:
    store = store_with({R1: S1, R2: S2}, path)
    g = Gate(store, session=session) if session else Gate(store)
    w0 = _window()
    assert_accepted(g.check(w0, w0, operator="prune", commit=True))
    return g


@pytest.mark.parametrize("retagged", ["a", "b"])
@pytest.mark.parametrize("resource", ["other.yaml"])
def test_a_read_retagged_outside_the_gate_is_refused_naming_where_the_log_files_it(retagged, resource):
    g = _session()
    w1 = _window(**{f"resource_{retagged}": resource})
    handle = R1 if retagged == "a" else R2
    # the older read kept alone, the newer evicted on the record: a silent merge
    v = g.check(w1, [w1[0]], operator="evict", evicted=[R2])
    found = find(v, "I4", block=retagged, handle=handle, key="resource", value=resource)
    assert found.evidence == {"filed": "cfg.yaml", "resource": resource}
    assert "files its source" in found.message and "'cfg.yaml'" in found.message
    # a summary stating the stale value alone
    find(g.check(w1, [summary("s", "retries=3, timeout=30\n", [R1, R2])], operator="summarize"),
         "I4", block=retagged, key="resource")
    # and an edit that rewrites another block: the window's tags are wrong whatever it does
    # (an edit judged from digests alone, touching no read, is not asked: it moves no read)
    turn, reworded = blk("u", "user", "Check the config.\n"), blk("u", "user", "Check  the config.\n")
    find(g.check([*w1, turn], [*w1, reworded], operator="rewrite"), "I4", block=retagged, key="resource")
    assert_accepted(g.check([*w1, turn], [turn, *w1], operator="reorder"))


def test_the_same_edits_are_judged_as_without_the_retag():
    g = _session()
    w0 = _window()
    # control: the same silent merge on the window as logged is refused by the merge rule
    find(g.check(w0, [w0[0]], operator="evict", evicted=[R2]), "I4", block="a", handle=R2)
    # and honest edits on it are accepted: keep the newer read, evict the older one
    assert_accepted(g.check(w0, [w0[1]], operator="evict", evicted=[R1]))
    assert_accepted(g.check(w0, list(reversed(w0)), operator="reorder"))


def test_the_refusal_is_the_same_in_a_check_and_its_retry_and_from_a_resumed_gate(tmp_path):
    path = tmp_path / "store.db"
    g = _session(path, session="l4b")
    w1 = _window(resource_b="other.yaml")
    verdicts = [g.check(w1, [w1[0]], operator="evict", evicted=[R2]) for _ in range(2)]
    resumed = Gate(g.store, session="l4b")
    verdicts.append(resumed.check(w1, [w1[0]], operator="evict", evicted=[R2]))
    assert not verdicts[0].accepted
    assert comparable(verdicts[0]) == comparable(verdicts[1]) == comparable(verdicts[2])


def test_a_second_view_of_a_read_tagged_as_a_part_of_its_resource_is_not_a_retag():
    # the window still shows the handle as a read of the resource the log files it under, so
    # that resource's line holds it (red team 67 tags a preview of the output as a page)
    g = _session()
    w0 = _window()
    preview = tool("ex", R2, "timeout=30\n", resource="cfg.yaml#L2")
    assert_accepted(g.check([*w0, preview], [*w0, preview], operator="reorder"))
    # and the silent merge is still seen through the resource's own line
    find(g.check([*w0, preview], [w0[0], preview], operator="evict", evicted=[R2]), "I4", block="a", handle=R2)


def test_one_new_handle_tagged_as_two_resources_in_one_window_is_filed_under_the_first():
    # a handle new to the log is filed under the first resource reading it in the window; the
    # other tag is a second view of the read while the first stays in the window
    store = store_with({R1: S1, R2: S2})
    g = Gate(store)
    w = [tool("a", R1, S1, ts=100, resource="cfg.yaml"), tool("b", R2, S2, ts=200, resource="cfg.yaml"),
         tool("b2", R2, S2, ts=200, resource="other.yaml")]
    assert_accepted(g.check(w, w, operator="reorder", commit=True))
    # with the first view gone, the second one is a retag of a logged read
    w2 = [w[0], w[2]]
    find(g.check(w2, [w2[0]], operator="evict", evicted=[R2]), "I4", block="b2", handle=R2, value="other.yaml")


def test_a_gate_without_the_log_has_only_the_window_to_go_by():
    # documented limit: a fresh gate (no session log) cannot know the tag was changed
    g = Gate(store_with({R1: S1, R2: S2}))
    w1 = _window(resource_a="other.yaml")
    assert_accepted(g.check(w1, [w1[0]], operator="evict", evicted=[R2]))


def _untagged(b: dict) -> dict:
    b = dict(b)
    b.pop("resource")
    return b


@pytest.mark.parametrize("change", ["untagged", "two handles"])
def test_a_read_untagged_or_given_a_second_handle_outside_the_gate_is_refused(change):
    # red team 116, F09: either way the newer read left its resource's line
    store = store_with({R1: S1, R2: S2, "tool:r3": "retries=5\n"})
    g = Gate(store)
    w0 = _window()
    assert_accepted(g.check(w0, w0, operator="prune", commit=True))
    b = _untagged(w0[1]) if change == "untagged" else dict(w0[1], resource="other.yaml", handles=[R2, "tool:r3"])
    w1 = [w0[0], b]
    found = find(g.check(w1, [w1[0]], operator="evict", evicted=list(b["handles"])), "I4", block="b", handle=R2,
                 key="resource")
    assert found.evidence["filed"] == "cfg.yaml"
    find(g.check(w1, [summary("s", "retries=3, timeout=30\n", [R1, *b["handles"]])], operator="summarize"),
         "I4", block="b", key="resource")
    # shown under its resource as well, the untagged copy is a second view of it
    assert_accepted(g.check([*w0, dict(_untagged(w0[1]), id="c")], [*w0, dict(_untagged(w0[1]), id="c")][::-1],
                            operator="reorder"))


@pytest.mark.parametrize("change", [
    {"text": S2.rstrip("\n")},  # a framework that strips tool output
    {"text": S2.replace("\n", "\r\n")},
    {"text": S2 + "\n"},
    {"handles": [R2, "tool:r3"]},
    {"role": "assistant"},
])
def test_an_untagged_read_re_rendered_re_roled_or_given_a_second_handle_is_refused(change):
    # red team 117, F09: the untagged rule asked byte-equal, one-handle tool blocks only
    store = store_with({R1: S1, R2: S2, "tool:r3": "retries=5\n"})
    g = Gate(store)
    w0 = _window()
    assert_accepted(g.check(w0, w0, operator="prune", commit=True))
    b = dict(_untagged(w0[1]), **change)
    w1 = [w0[0], b]
    found = find(g.check(w1, [w1[0]], operator="evict", evicted=list(b["handles"])), "I4", block="b", handle=R2,
                 key="resource")
    assert found.evidence["filed"] == "cfg.yaml"


def test_an_untagged_excerpt_or_summary_of_a_read_is_not_the_read():
    # an excerpt says less than the read, and a summary derives from it: neither is filed
    store = store_with({R1: S1, R2: S2})
    g = Gate(store)
    w0 = _window()
    assert_accepted(g.check(w0, w0, operator="prune", commit=True))
    excerpt = dict(_untagged(w0[1]), id="c", text="retries=5\n")
    assert_accepted(g.check([*w0, excerpt], [*w0, excerpt][::-1], operator="reorder"))
    derived = dict(summary("d", S2, [R2]))
    assert_accepted(g.check([*w0, derived], [*w0, derived][::-1], operator="reorder"))
