"""Masking one page of a paged output (red team 133, F11; docs/gate.md "A page of a paged output"):
an output paged into blocks that share its handle (`tool:pg` in q1 and q2). A record of that handle
records nothing while a block carrying it stands, yet a page masked (or removed) beside a kept page
is still in the store under the handle the kept page carries: it leaves on that record when every
post block carrying the handle is kept byte-identical and the page's text is an excerpt of the
handle's stored source. Lies stay refused: no record, a kept page changed in the same edit, a page
the store does not hold, a pinned page, a page under another handle not evicted. Each on the path
the run selects (PROVGATE_NO_EXTENSIONS), the sessions live and resumed from the audit log."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, blk, of, store_with, tool

from provgate.gate import Gate
from provgate.store import SourceStore

P1, P2 = "line one of a long log\nretries=3 port 8080\n", "line three\ntimeout=30\n"
SOURCES = {"tool:pg": P1 + P2, "user:u": "go\n", "tool:x": "other\n"}
U = blk("u", "user", "go\n", ["user:u"])
Q1, Q2 = tool("q1", "tool:pg", P1), tool("q2", "tool:pg", P2)
PH1 = blk("q1", "tool", "Old environment output: (2 lines omitted)\n")
PH2 = blk("q2", "tool", "Old environment output: (2 lines omitted)\n")
VOID = "the eviction record of 'tool:pg' records nothing"


def check(pre: list, post: list, operator: str = "prune", evicted=("tool:pg",), gate: Gate | None = None):
    return (gate or Gate(store_with(SOURCES))).check(pre, post, operator=operator, evicted=list(evicted))


@pytest.mark.parametrize("operator", ["prune", "evict", "rewrite"])
def test_one_page_masked_beside_the_other_is_accepted(operator):
    v = check([U, Q1, Q2], [U, PH1, Q2], operator)
    assert_accepted(v)
    assert [b.text for b in v.window] == [U["text"], PH1["text"], P2]
    assert_accepted(check([U, Q1, Q2], [U, Q1, PH2], operator))


@pytest.mark.parametrize("operator", ["prune", "evict"])
def test_one_page_removed_whole_on_the_record_of_its_handle_is_accepted(operator):
    assert_accepted(check([U, Q1, Q2], [U, Q2], operator))


def test_a_page_evicted_by_its_id_is_refused_and_told_to_name_its_handles():
    v = check([U, Q1, Q2], [U, Q2], "evict", evicted=["q1"])
    assert not v.accepted
    assert any("it is the id of a pre block carrying handles ['tool:pg']" in x.message for x in of(v, "I3"))


@pytest.mark.parametrize("post", ["masked", "removed"])
def test_a_page_leaving_with_no_record_is_refused(post):
    v = check([U, Q1, Q2], [U, PH1, Q2] if post == "masked" else [U, Q2], evicted=())
    assert not v.accepted and of(v, "I2")
    assert any(x.value == "3" and x.block == "q1" for x in of(v, "I2"))


@pytest.mark.parametrize("kept", ["value changed", "value added", "cut", "new id"])
def test_a_page_masked_while_the_kept_page_changes_is_refused(kept):
    q2 = {"value changed": dict(Q2, text=P2.replace("30", "60")), "value added": dict(Q2, text=P2 + "retries=4\n"),
          "cut": dict(Q2, text="line three\n"), "new id": dict(Q2, id="q3")}[kept]
    v = check([U, Q1, Q2], [U, PH1, q2])
    assert not v.accepted
    # page 1's facts are not covered: the record names a handle a changed block carries
    dropped = [x for x in of(v, "I2") if x.block == "q1" and "dropped" in x.message]
    assert dropped and all(VOID in x.message for x in dropped)
    assert "a page of an output leaves on the record" in dropped[0].message


@pytest.mark.parametrize("post", ["masked", "removed"])
def test_a_page_the_store_does_not_hold_is_refused(post):
    fake = dict(Q1, text="line one of a long log\nretries=7 port 9090\n")
    v = check([U, fake, Q2], [U, PH1, Q2] if post == "masked" else [U, Q2])
    assert not v.accepted
    assert {x.value for x in of(v, "I2") if x.block == "q1"} >= {"7", "9090"}
    # the honest page in its place: accepted
    assert_accepted(check([U, Q1, Q2], [U, PH1, Q2] if post == "masked" else [U, Q2]))


def test_a_page_with_another_handle_not_evicted_is_refused():
    v = check([U, dict(Q1, handles=["tool:pg", "tool:x"]), Q2], [U, PH1, Q2])
    assert not v.accepted and of(v, "I2")


def test_a_page_placeholder_with_a_made_up_count_is_refused():
    v = check([U, Q1, Q2], [U, dict(PH1, text="Old environment output: (5 lines omitted)\n"), Q2])
    assert not v.accepted and of(v, "I1")


@pytest.mark.parametrize("post", ["masked", "removed"])
def test_a_pinned_page_is_held_to_r(post):
    pinned = dict(Q1, pinned=True)
    v = check([U, pinned, Q2], [U, PH1, Q2] if post == "masked" else [U, Q2])
    assert not v.accepted and of(v, "R")


@pytest.mark.parametrize("resumed", [False, True], ids=["live", "resumed"])
def test_pages_masked_in_turn_over_cycles(tmp_path, resumed):
    path = str(tmp_path / "s.sqlite3")
    gate = Gate(store_with(SOURCES, path), session="S")
    window = gate.commit([U, Q1, Q2], [U, Q1, Q2], operator="reorder")
    v = gate.check(window, [U, PH1, Q2], operator="prune", evicted=["tool:pg"], commit=True)
    assert_accepted(v)
    window = list(v.window)
    if resumed:
        gate = Gate(SourceStore(path), session="S")
    # page 2 changed later: refused; dropped with no record: refused; masked in turn: accepted
    changed = gate.check(window, [U, window[1], dict(Q2, text=P2.replace("30", "60"))], operator="rewrite")
    assert not changed.accepted and of(changed, "I1")
    gone = gate.check(window, [U, window[1]], operator="prune")
    assert not gone.accepted and of(gone, "I2")
    assert_accepted(gate.check(window, [U, window[1], PH2], operator="prune", evicted=["tool:pg"]))
    assert_accepted(gate.check(window, [U, window[1]], operator="evict", evicted=["tool:pg"]))


# Red team 135 F04: an output paged by byte count cuts a word or number at each page break. The page
# is tested as a plain excerpt of its source (linear), not at token boundaries: _bounded_in restarted
# its search after every occurrence that cut a number, so a periodic output's page cost O(page x
# occurrences), and such an honest page could never leave on the record.
def _periodic(n: int) -> tuple[str, int]:
    """A periodic output of ~n bytes and a page break that cuts a number ("n=12|345")."""
    text = "n=12345 " * (n // 8) + "\nretries=3\n"
    return text, (len(text) // 2) // 8 * 8 + 4


def _paged_check(text: str, cut: int, page1: str, post: str):
    store = store_with({"tool:pg": text, "user:u": "go\n"})
    q1, q2 = tool("q1", "tool:pg", page1), tool("q2", "tool:pg", text[cut:])
    ph = blk("q1", "tool", "Old environment output: (1 lines omitted)\n")  # the page holds no newline
    return Gate(store).check([U, q1, q2], [U, ph, q2] if post == "masked" else [U, q2],
                             operator="prune", evicted=["tool:pg"])


@pytest.mark.parametrize("post", ["masked", "removed"])
def test_a_page_cut_mid_number_leaves_on_the_record(post):
    text, cut = _periodic(4000)
    assert text[cut - 1].isdigit() and text[cut].isdigit()  # the break cuts a number
    assert_accepted(_paged_check(text, cut, text[:cut], post))
    # a cut page the store does not hold (one value changed inside it): refused, its value named
    lie = text[:cut - 44] + "n=12399 " + text[cut - 36:cut]
    assert len(lie) == cut and lie.count("n=12399 ") == 1
    v = _paged_check(text, cut, lie, post)
    assert not v.accepted
    assert "12399" in {x.value for x in of(v, "I2") if x.block == "q1"}


class _CountingBytes(bytes):
    """A stored source that counts the searches made in it."""
    searches = 0

    def find(self, *args):
        type(self).searches += 1
        return super().find(*args)

    def __contains__(self, part):
        type(self).searches += 1
        return super().__contains__(part)


@pytest.mark.parametrize("size", [8_000, 64_000])
def test_a_periodic_page_is_searched_once_whatever_its_size(monkeypatch, size):
    text, cut = _periodic(size)
    real = Gate.source_bytes

    def counting(self, handle):
        data = real(self, handle)
        return _CountingBytes(data) if handle == "tool:pg" else data

    monkeypatch.setattr(Gate, "source_bytes", counting)
    _CountingBytes.searches = 0
    v = _paged_check(text, cut, text[:cut], "removed")
    # one search of the source per check, not one per occurrence of the page (~size / 16 before)
    assert 1 <= _CountingBytes.searches <= 2
    assert_accepted(v)
