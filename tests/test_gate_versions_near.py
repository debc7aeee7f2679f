"""Red team 133, F04 and F05: versions in near forms (docs/gate.md, I1 short forms).

F04 (fail-open): a version a summary writes after a package's name, with brackets, a colon, a
table's cell or words between, was grounded by any version its sources glue to any name
(``requests (2.0.7)`` of pip's ``requests-2.31.0 urllib3-2.0.7``); and a dotted number a version
word stands before (``version 1.2``, ``Release 1.2``) was grounded by a measure (``took 1.2
seconds``) where ``v1.2`` was refused. F05 (false refusals): the versions pip glues to a name
were refused in the forms a summary writes them (``idna 3.6``, ``h11 0.14.0``, ``zope.interface
6.1``, ``six 1.16.0``, ``requests==2.31.0``), and ``Pushed 1.2`` of ``tag v1.2 pushed``."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, gate_for, tool
from test_grammar_v4 import _summarize

PIP = "Successfully installed requests-2.31.0 urllib3-2.0.7 charset-normalizer-3.3.2 idna-3.6\n"
DURATION = "The build took 1.2 seconds.\n"
HOST = "host 10.0.0.12 is up\n"
TAG = "tag v1.2 pushed\n"
ZOPE = "Successfully installed zope.interface-6.1 click-8.1.7\n"
SIX = "Successfully installed six-1.16.0 click-8.1.7\n"

LIES = [
    # F04: versions swapped between pip's packages, written with something between name and version
    (PIP, "Installed requests (2.0.7) and urllib3 (2.31.0).\n", "2.0.7"),
    (PIP, "Installed requests: 2.0.7, urllib3: 2.31.0.\n", "2.0.7"),
    (PIP, "The requests package is at 2.0.7 and urllib3 at 2.31.0.\n", "2.0.7"),
    (PIP, "| requests | 2.0.7 |\n| urllib3 | 2.31.0 |\n", "2.0.7"),
    (PIP, "| Package | Version |\n|---|---|\n| urllib3 | 2.31.0 |\n", "2.31.0"),
    (PIP, "Installed idna (2.0.7).\n", "2.0.7"),
    (PIP, "Installed idna 3.3.2.\n", "3.3.2"),
    # F04: a version word before a measure's or an address's number
    (DURATION, "Built version 1.2.\n", "1.2"),
    (DURATION, "Release 1.2 built.\n", "1.2"),
    (DURATION, "Built RELEASE: 1.2.\n", "1.2"),
    (HOST, "Server version 10.0.0.12.\n", "10.0.0.12"),
    ('{"timeout": "1.2"}\n', "Version 1.2 is out.\n", "1.2"),
    ('{"timeout_rev": "1.2"}\n', "Version 1.2 is out.\n", "1.2"),
    # F05's loosenings stay closed: another version, a measure of a v-version's number, a name
    # pip does not glue, a number word that is no package written before a version
    (PIP, "Installed idna 3.7.\n", "3.7"),
    (PIP, "requests==2.0.7 installed.\n", "2.0.7"),
    (SIX, "six==1.17.0\n", "1.17.0"),
    (SIX, "Installed six packages.\n", "six"),
    (TAG, "Deploy took 1.2 seconds.\n", "1.2"),
    (TAG, "Error rate 1.2%.\n", "1.2%"),
    (ZOPE, "Installed zope.interfaces 6.1.\n", "zope.interfaces"),
]

HONEST = [
    # F04's forms, honest: the version pip glues to the name written before it
    (PIP, "Installed requests (2.31.0) and urllib3 (2.0.7).\n"),
    (PIP, "Installed requests: 2.31.0, urllib3: 2.0.7.\n"),
    (PIP, "The requests package is at 2.31.0 and urllib3 at 2.0.7.\n"),
    (PIP, "| requests | 2.31.0 |\n| urllib3 | 2.0.7 |\n"),
    (PIP, "| requests | 2.31.0 |\n| idna | 3.6 |\n"),  # (a one-dot version in a cell)
    (PIP, "Installed requests 2.31.0 and charset-normalizer v3.3.2.\n"),
    # a version word before a number its sources hold as a version
    (PIP, "Installed idna version 3.6.\n"),
    ("Released version 1.2 today.\n", "Upgraded to version 1.2.\n"),
    ("requests 2.31.0 installed\n", "requests version 2.31.0\n"),
    (TAG, "Pushed version 1.2.\n"),
    (DURATION, "The build took 1.2 seconds.\n"),  # (a measure written as one)
    # (a key's quotes between the version word and the number: a JSON's, a TOML's; a key ending "_VERSION")
    ('{"name": "app", "version": "1.2"}\n', "The app is at version 1.2.\n"),
    ('{"name": "app", "version": "1.2"}\n', "The app is at v1.2.\n"),
    ('version = "1.2"\n', "Bumped to version 1.2.\n"),
    ("APP_VERSION='1.2'\n", "Release 1.2 is built.\n"),
    # F05: pip's glue, and a v-version written bare
    (PIP, "Installed idna 3.6.\n"),
    ("Successfully installed idna-3.6\n", "Installed idna 3.6.\n"),
    (PIP, "requests==2.31.0 installed.\n"),
    (TAG, "Pushed 1.2\n"),
    (TAG, "Pushed v1.2\n"),
]

PIP_NAMES = [("pkg10", "10.10.10"), ("boto3", "1.34.0"), ("h11", "0.14.0"), ("s3transfer", "0.10.0"),
             ("pkg1", "1.2.3"), ("idna", "3.6"), ("six", "1.16.0"), ("pyasn1", "0.5.1"),
             ("types-requests", "2.31.0.20240106"), ("zope.interface", "6.1"), ("oauthlib", "3.2.2"),
             ("charset-normalizer", "3.3.2")]


@pytest.mark.parametrize("source, text, value", LIES)
def test_a_version_in_a_near_form_that_its_sources_do_not_give_is_refused(source, text, value):
    verdict = _summarize(source, text)
    assert not verdict.accepted
    assert any(v.invariant == "I1" and v.value == value for v in verdict.violations), verdict.summary()


@pytest.mark.parametrize("source, text", HONEST)
def test_a_version_in_a_near_form_that_its_sources_give_is_grounded(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("name, version", PIP_NAMES)
@pytest.mark.parametrize("form", ["Installed {name} {version}.\n", "{name}=={version}\n", "{name} ({version}) installed.\n"])
def test_each_version_pip_glues_to_its_name_grounds_that_name_and_version(name, version, form):
    """F05: a name ending in digits (h11, pkg10), a dotted name, a name that reads as a number
    word (six), a one-dot version, and pip's glue read as a pin (``==``)."""
    source = f"Successfully installed {name}-{version} click-8.1.7\n"
    assert_accepted(_summarize(source, form.format(name=name, version=version)))


@pytest.mark.parametrize("name, version", PIP_NAMES)
def test_another_packages_version_after_a_glued_name_is_refused(name, version):
    """The lie beside each of F05's honest forms: click's version written as this name's."""
    source = f"Successfully installed {name}-{version} click-8.1.7\n"
    verdict = _summarize(source, f"Installed {name} (8.1.7) and click {version}.\n")
    assert not verdict.accepted
    assert any(v.invariant == "I1" and v.value in ("8.1.7", version) for v in verdict.violations), verdict.summary()


def test_the_version_word_rule_names_the_word_and_leaves_a_block_without_one_unread(monkeypatch):
    from provgate import gate

    verdict = _summarize(DURATION, "Built version 1.2.\n")
    [v] = [v for v in verdict.violations if v.value == "1.2"]
    assert "as a version" in v.message and v.evidence["word"] == "version"
    matched = []
    pattern = gate._SAID_VERSION

    class Counting:
        def match(self, data, pos):
            matched.append(pos)
            return pattern.match(data, pos)

    monkeypatch.setattr(gate, "_SAID_VERSION", Counting())
    # (no lead of a version word: the pattern is matched nowhere)
    assert_accepted(_summarize(DURATION, "The build took 1.2 seconds.\n"))
    assert matched == []


NODE = "Using node v18.17.0\n"
PIP_TWO = "Successfully installed requests-2.31.0 urllib3-2.0.7\n"


def _summarize_two(text: str):
    g = gate_for({"tool:c1": PIP_TWO, "tool:c2": NODE})
    s = {"id": "s", "role": "summary", "text": text, "derived": True, "derived_from": ["tool:c1", "tool:c2"]}
    return g.check([tool("t1", "tool:c1", PIP_TWO), tool("t2", "tool:c2", NODE)], [s], operator="summarize")


@pytest.mark.parametrize("text", [
    "Installed requests 2.31.0 and node 18.17.0.\n",
    "Installed requests under node 18.17.0.\n",  # (the glued name before it, the source's name just before)
    "Installed requests with node version 18.17.0.\n",
])
def test_a_version_the_name_just_before_it_is_written_with_in_a_source_is_grounded(text):
    """A version after a name no source glues, that a source writes just before it ("node
    v18.17.0"), is that name's, not the glued name's further back on the line."""
    assert_accepted(_summarize_two(text))


@pytest.mark.parametrize("text, value", [
    ("Installed requests 2.31.0 and node 2.0.7.\n", "2.0.7"),
    ("The requests package is at 2.0.7 under node v18.17.0.\n", "2.0.7"),
])
def test_a_version_no_source_writes_after_the_name_just_before_it_is_refused(text, value):
    verdict = _summarize_two(text)
    assert not verdict.accepted
    assert any(v.invariant == "I1" and v.value == value for v in verdict.violations), verdict.summary()


# red team 135, F07: `node --version` prints its version alone on its line, no name before it
NODE_VERSION = "$ node --version\nv18.17.0\n"


def _summarize_version_line(text: str):
    g = gate_for({"tool:c1": PIP_TWO, "tool:c2": NODE_VERSION})
    s = {"id": "s", "role": "summary", "text": text, "derived": True, "derived_from": ["tool:c1", "tool:c2"]}
    return g.check([tool("t1", "tool:c1", PIP_TWO), tool("t2", "tool:c2", NODE_VERSION)], [s], operator="summarize")


@pytest.mark.parametrize("text", [
    "Installed requests 2.31.0 and node 18.17.0.\n",
    "Installed requests 2.31.0. Node is at 18.17.0.\n",
    "Installed requests 2.31.0 on node v18.17.0.\n",
])
def test_a_version_its_sources_write_apart_from_every_glued_name_is_no_swap(text):
    """A version the sources write as a version and glue to no name ("v18.17.0" of node
    --version) is grounded after a glued name further back on the line: no glued name's version
    was given to another."""
    assert_accepted(_summarize_version_line(text))


@pytest.mark.parametrize("text, value", [
    ("Installed requests 2.31.0 and node 2.0.7.\n", "2.0.7"),  # (urllib3's, glued)
    ("Installed requests (2.0.7).\n", "2.0.7"),
    ("Installed requests 18.17.0.\n", "18.17.0"),  # (node's, given to the glued name just before it)
    ("Installed requests (18.17.0).\n", "18.17.0"),
    ("Installed requests version 18.17.0.\n", "18.17.0"),
    ("Installed urllib3: 18.17.0.\n", "18.17.0"),
])
def test_a_version_apart_from_the_glued_names_given_to_one_of_them_is_refused(text, value):
    verdict = _summarize_version_line(text)
    assert not verdict.accepted
    assert any(v.invariant == "I1" and v.value == value for v in verdict.violations), verdict.summary()
