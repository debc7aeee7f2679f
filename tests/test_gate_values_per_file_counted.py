"""Values stated per file with the key as the figure's noun (red team 139, F08; docs/gate.md, I1
"values stated for one file"). Of config/a.yaml's ``retries: 3`` / ``workers: 4`` and
config/b.yaml's ``retries: 5`` / ``workers: 8``, "config/a.yaml (5 retries) and config/b.yaml (3
retries)", "config/a.yaml: 8 workers; ..." and "config/a.yaml runs 8 workers, ..." were accepted,
each value swapped: a figure before a word was read as no pair. A figure before a key of the file,
as its noun, is that key's value now; a word that is no key of the file binds nothing."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find, store_with, summary, tool

from provgate.gate import Gate

A = "retries: 3\ntimeout: 30\nworkers: 4\n"
B = "retries: 5\ntimeout: 30\nworkers: 8\n"
SOURCES = {"tool:a": A, "tool:b": B}
READS = [tool("a", "tool:a", A, resource="file:config/a.yaml"), tool("b", "tool:b", B, resource="file:config/b.yaml")]


def summarize(text: str):
    return Gate(store_with(SOURCES)).check(READS, [summary("s", text, list(SOURCES))], operator="summarize")


# (an honest summary; its lie twin, each file given the other's value; the key and the lie's first value)
FORMS = [
    pytest.param("config/a.yaml (3 retries) and config/b.yaml (5 retries).\n",
                 "config/a.yaml (5 retries) and config/b.yaml (3 retries).\n", "retries", "5", id="in brackets"),
    pytest.param("config/a.yaml: 4 workers; config/b.yaml: 8 workers.\n",
                 "config/a.yaml: 8 workers; config/b.yaml: 4 workers.\n", "workers", "8", id="after a colon"),
    pytest.param("config/a.yaml runs 4 workers, config/b.yaml runs 8 workers.\n",
                 "config/a.yaml runs 8 workers, config/b.yaml runs 4 workers.\n", "workers", "8", id="after a verb"),
    # (a count spelled out: red team 140, F05)
    pytest.param("config/a.yaml (three retries) and config/b.yaml (five retries).\n",
                 "config/a.yaml (five retries) and config/b.yaml (three retries).\n", "retries", "5", id="in words"),
    pytest.param("config/a.yaml runs four workers, config/b.yaml runs eight workers.\n",
                 "config/a.yaml runs eight workers, config/b.yaml runs four workers.\n", "workers", "8",
                 id="in words after a verb"),
    pytest.param("- config/a.yaml: 3 retries, 4 workers\n- config/b.yaml: 5 retries, 8 workers\n",
                 "- config/a.yaml: 5 retries, 4 workers\n- config/b.yaml: 3 retries, 8 workers\n", "retries", "5",
                 id="list items"),
]


@pytest.mark.parametrize(("honest", "lie", "key", "value"), FORMS)
def test_a_figure_counting_a_key_is_the_files_value(honest, lie, key, value):
    assert_accepted(summarize(honest))
    find(summarize(lie), "I1", block="s", key=key, value=value, evidence__change="value_of_another_file")


@pytest.mark.parametrize("text", [
    # a word that is no key of the file, after a figure either file holds
    "config/a.yaml waits 30 seconds; config/b.yaml waits 30 seconds too.\n",
    # the same value in both files
    "config/a.yaml: 30 timeout; config/b.yaml: 30 timeout.\n",
    # each file's own count, one file named inside the other's clause
    "config/a.yaml has 3 retries (config/b.yaml has 5 retries).\n",
    # a figure of another key before a word that is none
    "config/a.yaml keeps 3 retries over 30 seconds; config/b.yaml keeps 5 retries.\n",
])
def test_a_figure_before_a_word_that_binds_nothing_is_let_be(text):
    assert_accepted(summarize(text))
