"""A capital's lower-case b (``Kb``, ``Mb``, ``Gb``, ``Tb``): bits or bytes in a source, bits in a
block that comes from one (red team 137, F05; docs/gate.md, I1 "units"). eng-units15 read every
such spelling as bits, so tools that write ``Mem: 16Gb`` or ``model.bin 350Mb`` for bytes could no
longer be summarized in bytes: "16 gigabytes", "16GB", "16gb", "350MB", "350 megabytes" were
refused. A source's ``Gb`` now grounds a summary's bytes and its bits; a summary's ``Gb`` is
grounded by a source's bits or its own ``Gb`` only, so the lie eng-units15 fixed (``30GB`` ->
``30Gb``) stays refused, and so does ``200 gigabytes`` -> ``200Gb`` (fail closed: documented). In
a rate (``30Mb/s``) the spelling is bits on both sides, as units15 read it: a link's ``1000Mb/s``
is not ``1000 MB/s``."""

from __future__ import annotations

import numpy as np
import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _rewrite, _summarize

from provgate import _search_py
from provgate._search import unit_leads
from provgate.gate import _unit_grounded

# (source, an honest summary in bytes or bits, its lie twin: the same figure in another unit)
HONEST_AND_LIE = [
    # the red team's cases (F05)
    pytest.param("Mem: 16Gb total\n", "The host has 16 gigabytes of memory.\n",
                 "The host has 16 megabytes of memory.\n", id="16Gb as gigabytes"),
    pytest.param("Mem: 16Gb total\n", "Memory: 16GB.\n", "Memory: 16MB.\n", id="16Gb as 16GB"),
    pytest.param("Mem: 16Gb total\n", "16gb memory\n", "16tb memory\n", id="16Gb as 16gb"),
    pytest.param("model.bin 350Mb\n", "The model file is 350MB.\n", "The model file is 350GB.\n", id="350Mb as 350MB"),
    pytest.param("model.bin 350 Mb\n", "The model file is 350 megabytes.\n", "The model file is 350 kilobytes.\n",
                 id="350 Mb as megabytes"),
    # the other capitals, apart from the figure
    pytest.param("Mem: 16 Kb\n", "Mem: 16 kilobytes\n", "Mem: 16 megabytes\n", id="Kb as kilobytes"),
    pytest.param("Disk: 16 Tb\n", "Disk: 16 terabytes\n", "Disk: 16 gigabytes\n", id="Tb as terabytes"),
    # and still its bits
    pytest.param("Disk: 16 Tb\n", "Disk: 16 terabits\n", "Disk: 16 gigabits\n", id="Tb as terabits"),
    pytest.param("model.bin 350 Mb\n", "The model file is 350 megabits.\n", "The model file is 350 kilobits.\n",
                 id="350 Mb as megabits"),
    pytest.param("Link 10Gb\n", "Link 10 gigabits\n", "Link 10 megabits\n", id="10Gb as gigabits"),
]


@pytest.mark.parametrize(("source", "honest", "lie"), HONEST_AND_LIE)
def test_a_sources_capital_b_grounds_bytes_and_bits_in_a_summary(source, honest, lie):
    assert_accepted(_summarize(source, honest))
    find(_summarize(source, lie), "I1")


# (source, a summary's "Gb" where the source gives bytes: the lie units15 fixed; the unit the lie
# states; the honest twin in bytes)
BITS_IN_A_SUMMARY = [
    pytest.param("Limit 30 GB.\n", "Limit 30 Gb.\n", "Gb", "Limit 30 gigabytes.\n", id="GB to Gb"),
    # (fail closed: an honest "200 gigabytes" -> "200 Gb" is refused alike, docs/gate.md)
    pytest.param("Disk 200 gigabytes.\n", "Disk 200 Gb.\n", "Gb", "Disk 200GB.\n",
                 id="gigabytes to Gb"),
    pytest.param("Cache 64 megabytes.\n", "Cache 64 Mb.\n", "Mb", "Cache 64MB.\n",
                 id="megabytes to Mb"),
    pytest.param("Mem: 16 kilobytes.\n", "Mem: 16 Kb.\n", "Kb", "Mem: 16kB.\n",
                 id="kilobytes to Kb"),
]


@pytest.mark.parametrize(("source", "lie", "unit", "honest"), BITS_IN_A_SUMMARY)
def test_a_summarys_capital_b_is_bits_and_no_sources_bytes_ground_it(source, lie, unit, honest):
    found = find(_summarize(source, lie), "I1", value=lie.split()[1], evidence__change="unit_changed")
    assert found.evidence["unit"] == unit
    assert_accepted(_summarize(source, honest))


GLUED_BITS_IN_A_SUMMARY = [
    ("Limit 30GB.\n", "Limit 30Gb.\n"),
    ("Disk 200 gigabytes.\n", "Disk 200Gb.\n"),
    ("Limit 30MB.\n", "Limit 30Mb.\n"),
    ("Limit 30KB.\n", "Limit 30Kb.\n"),
]


@pytest.mark.parametrize(("source", "lie"), GLUED_BITS_IN_A_SUMMARY)
def test_a_summarys_glued_capital_b_is_no_sources_bytes(source, lie):
    find(_summarize(source, lie), "I1", value=lie.split()[1].rstrip("."))
    assert_accepted(_summarize(source, source))


def test_a_summarys_capital_b_is_grounded_by_bits_and_by_itself():
    assert_accepted(_summarize("Mem: 16 gigabits total. Swap: 2 Gb.\n", "Mem: 16 Gb total. Swap: 2 Gb.\n"))
    assert_accepted(_summarize("Link 10 gigabits\n", "Link 10Gb\n"))
    assert_accepted(_summarize("Mem: 16Gb total\n", "16Gb memory\n"))


# a rate's capital b is bits, in a source as in a summary (units15's reading kept: "Speed:
# 1000Mb/s", ethtool's, is a link's megabits, and "1000 MB/s" of it an eightfold lie)
RATES = [
    pytest.param("Speed: 1000Mb/s\n", "The link runs at 1000 megabits/s.\n", "The link runs at 1000 megabytes/s.\n",
                 id="glued, megabytes"),
    pytest.param("Speed: 1000Mb/s\n", "The link runs at 1000Mb/s.\n", "The link runs at 1000MB/s.\n", id="glued, MB/s"),
    pytest.param("Link: 30 Mb/s\n", "Link: 30 megabits/sec\n", "Link: 30 megabytes/sec\n", id="apart"),
    pytest.param("Link: 30 Mb/s\n", "Link: 30 megabits per sec\n", "Link: 30 mb/s\n", id="apart, mb/s"),
]


@pytest.mark.parametrize(("source", "honest", "lie"), RATES)
def test_a_rates_capital_b_is_bits_on_both_sides(source, honest, lie):
    assert_accepted(_summarize(source, honest))
    find(_summarize(source, lie), "I1")


def test_a_summarys_rate_in_capital_b_is_no_sources_bytes():
    found = find(_summarize("Link: 30 megabytes/s, 2 Mb.\n", "Link: 30 Mb/s, 2 Mb.\n"), "I1", value="30",
                 evidence__change="unit_changed")
    assert found.evidence["unit"] == "Mb/s"
    assert_accepted(_summarize("Link: 30 megabits/s, 2 Mb.\n", "Link: 30 Mb/s, 2 Mb.\n"))


def test_a_rate_of_nothing_named_is_no_rate_of_capital_b():
    """"100/h" counts nothing: a source's "100 Gb/h" measures (red team 120, F10's rule)."""
    find(_summarize("Read 100 Gb/h\n", "Read 100/h\n"), "I1", value="100", evidence__change="unit_changed")


# a rewrite under the block's id: its unit changed is refused where a summary's is; a rewrite
# keeps its names' counts, so an honest respelling is still refused for the name it drops (its
# own rule, not the unit's): the honest twin only raises no unit change
REWRITES = [
    pytest.param("Mem: 16 Gb total. Swap: 2 Gb.", "Mem: 16 gigabytes total. Swap: 2 Gb.",
                 "Mem: 16 megabytes total. Swap: 2 Gb.", id="Gb to gigabytes"),
    pytest.param("Mem: 16 Gb total. Swap: 2 Gb.", "Mem: 16 gb total. Swap: 2 Gb.",
                 "Mem: 16 tb total. Swap: 2 Gb.", id="Gb to gb"),
    pytest.param("Mem: 16 Gb total. Swap: 2 Gb.", "Mem: 16 gigabits total. Swap: 2 Gb.",
                 "Mem: 16 megabits total. Swap: 2 Gb.", id="Gb to gigabits"),
    pytest.param("Link: 30 Mb/s, 2 Mb.", "Link: 30 megabits/s, 2 Mb.", "Link: 30 megabytes/s, 2 Mb.",
                 id="Mb/s to megabits/s"),
]


@pytest.mark.parametrize(("source", "honest", "lie"), REWRITES)
def test_a_rewrite_keeps_a_capital_bs_units(source, honest, lie):
    find(_rewrite(source + "\n", lie + "\n"), "I2", value=lie.split()[1], evidence__change="unit_changed")
    verdict = _rewrite(source + "\n", honest + "\n")
    assert not [v for v in verdict.violations if v.evidence.get("change") == "unit_changed"], verdict.violations


REWRITE_LIES = [
    pytest.param("Mem: 16 GB total. Swap: 2 Gb.", "Mem: 16 Gb total. Swap: 2 Gb.", id="GB to Gb"),
    pytest.param("Mem: 16 gigabytes total. Swap: 2 Gb.", "Mem: 16 Gb total. Swap: 2 Gb.", id="gigabytes to Gb"),
    pytest.param("Link: 30 megabytes/s, 2 Mb.", "Link: 30 Mb/s, 2 Mb.", id="megabytes/s to Mb/s"),
]


@pytest.mark.parametrize(("source", "lie"), REWRITE_LIES)
def test_a_rewrites_capital_b_is_no_bytes_before_it(source, lie):
    find(_rewrite(source + "\n", lie + "\n"), "I2", evidence__change="unit_changed")
    assert_accepted(_rewrite("Mem: 16 gigabits total. Swap: 2 Gb.\n", "Mem: 16 Gb total. Swap: 2 Gb.\n"))


@pytest.mark.parametrize(("stated", "given", "grounded"), [
    (b"gb", b"Gb", True), (b"gbit", b"Gb", True), (b"Gb", b"Gb", True), (b"Gb", b"gbit", True),
    (b"Gb", b"gb", False), (b"mb", b"Gb", False), (b"Mb", b"Gb", False), (b"tbit", b"Gb", False),
    (b"kb", b"Kb", True), (b"kbit", b"Kb", True), (b"Kb", b"kb", False), (b"tb", b"Tb", True),
    # rates: bits either side
    (b"mbit/s", b"Mb/s", True), (b"Mb/s", b"mbit/s", True), (b"Mb/s", b"Mb/s", True),
    (b"mb/s", b"Mb/s", False), (b"Mb/s", b"mb/s", False), (b"count/s", b"Mb/s", False), (b"Mb/s", b"count/s", False),
    # a unit read after a run of brackets (unknown)
    (b"(unknown gb)", b"(unknown Gb)", True), (b"(unknown Gb)", b"(unknown gb)", False),
    # units with no capital b
    (b"gb", b"gb", True), (b"gb", b"gbit", False), (b"s", b"ms", False), (b"bit", b"b", False),
])
def test_which_units_ground_which(stated, given, grounded):
    assert _unit_grounded(stated, given) is grounded


@pytest.mark.parametrize("text", [b"Mem: 16Gb total", b"model.bin 350 Mb", b"Link: 30 Mb/s", b"Speed: 1000Mb/s",
                                  b"16 Kb and 2 Tb", b"Disk 200 Gb."])
def test_the_leads_of_native_and_reference_agree(text):
    assert np.array_equal(unit_leads(text), _search_py.unit_leads(text))
