"""Values stated per file in the forms the binding did not read (docs/gate.md, I1 "values stated
for one file"): a figure counting a key the file writes in another case or number (red team 140,
F14: ``Retries: 3`` / ``retry: 3`` and "5 retries"), a key said once and then its value for each
file after ``in`` (red team 139, F08: "Retries: 5 in config/a.yaml, 3 in config/b.yaml."), and a
figure converted or rounded from the file's value (red team 140, F05: "timeout 0.75 min" of
``timeout: 45s``). Each swap between two files was accepted; each is refused now, and the same
forms with each file's own value stay accepted."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find, store_with, summary, tool

from provgate.gate import Gate


def summarize(a: str, b: str, text: str):
    sources = {"tool:a": a, "tool:b": b}
    reads = [tool("a", "tool:a", a, resource="file:config/a.yaml"),
             tool("b", "tool:b", b, resource="file:config/b.yaml")]
    return Gate(store_with(sources)).check(reads, [summary("s", text, list(sources))], operator="summarize")


A = "retries: 3\ntimeout: 30\nworkers: 4\n"
B = "retries: 5\ntimeout: 30\nworkers: 8\n"

# (file a, file b, an honest summary, its lie twin with each file given the other's value, the
# key and the lie's first value as refused)
FORMS = [
    pytest.param("Retries: 3\n", "Retries: 5\n", "config/a.yaml (3 retries) and config/b.yaml (5 retries).\n",
                 "config/a.yaml (5 retries) and config/b.yaml (3 retries).\n", "Retries", "5", id="capitalised key"),
    pytest.param("retry: 3\n", "retry: 5\n", "config/a.yaml (3 retries) and config/b.yaml (5 retries).\n",
                 "config/a.yaml (5 retries) and config/b.yaml (3 retries).\n", "retry", "5", id="singular key"),
    pytest.param("WORKERS=4\n", "WORKERS=8\n", "config/a.yaml runs 4 workers, config/b.yaml runs 8 workers.\n",
                 "config/a.yaml runs 8 workers, config/b.yaml runs 4 workers.\n", "WORKERS", "8", id="upper-case key"),
    pytest.param("worker: 4\n", "worker: 8\n", "config/a.yaml: 4 workers; config/b.yaml: 8 workers.\n",
                 "config/a.yaml: 8 workers; config/b.yaml: 4 workers.\n", "worker", "8", id="singular key, plural noun"),
    pytest.param(A, B, "Retries: 3 in config/a.yaml, 5 in config/b.yaml.\n",
                 "Retries: 5 in config/a.yaml, 3 in config/b.yaml.\n", "Retries", "5", id="key, colon, values in files"),
    pytest.param(A, B, "retries is 3 in config/a.yaml and 5 in config/b.yaml\n",
                 "retries is 5 in config/a.yaml and 3 in config/b.yaml\n", "retries", "5", id="key is, values in files"),
    pytest.param(A, B, "Workers are 4 for config/a.yaml; 8 for config/b.yaml.\n",
                 "Workers are 8 for config/a.yaml; 4 for config/b.yaml.\n", "Workers", "8", id="key are, values for files"),
    pytest.param("timeout: 30s\n", "timeout: 45s\n", "config/a.yaml: timeout 0.5 min; config/b.yaml: timeout 0.75 min.\n",
                 "config/a.yaml: timeout 0.75 min; config/b.yaml: timeout 0.5 min.\n", "timeout", "0.75",
                 id="converted figure"),
    pytest.param("timeout: 1500ms\n", "timeout: 800ms\n", "config/a.yaml has a timeout of 1.5s; config/b.yaml has a timeout of 0.8s.\n",
                 "config/a.yaml has a timeout of 0.8s; config/b.yaml has a timeout of 1.5s.\n", "timeout", "0.8s",
                 id="converted figure, unit glued"),
    pytest.param("timeout: 30s\n", "timeout: 45s\n", "Timeout is 0.5 min in config/a.yaml and 0.75 min in config/b.yaml.\n",
                 "Timeout is 0.75 min in config/a.yaml and 0.5 min in config/b.yaml.\n", "Timeout", "0.75",
                 id="key first, converted figures"),
    pytest.param("timeout: 1520ms\n", "timeout: 810ms\n", "config/a.yaml: timeout of ~1.5 s; config/b.yaml: timeout of ~0.8 s.\n",
                 "config/a.yaml: timeout of ~0.8 s; config/b.yaml: timeout of ~1.5 s.\n", "timeout", "~0.8",
                 id="rounded figure"),
]


@pytest.mark.parametrize(("a", "b", "honest", "lie", "key", "value"), FORMS)
def test_a_value_in_another_spelling_is_still_the_files(a, b, honest, lie, key, value):
    assert_accepted(summarize(a, b, honest))
    find(summarize(a, b, lie), "I1", block="s", key=key, value=value, evidence__change="value_of_another_file")


@pytest.mark.parametrize(("a", "b", "text"), [
    # a key both files set to one value, said once for both
    pytest.param(A, B, "Timeout is 30 in config/a.yaml and 30 in config/b.yaml.\n", id="shared value"),
    pytest.param("timeout: 30s\n", "timeout: 30s\n", "config/a.yaml: timeout 0.5 min; config/b.yaml: timeout 0.5 min.\n",
                 id="shared value converted"),
    # a file named once
    pytest.param(A, B, "Retries: 3 in config/a.yaml.\n", id="one file"),
    pytest.param("Retries: 3\n", "Retries: 5\n", "config/a.yaml keeps 3 retries.\n", id="one file, capitalised"),
    pytest.param("timeout: 30s\n", "timeout: 45s\n", "config/a.yaml: timeout 0.5 min.\n", id="one file, converted"),
    # a value said "in" something that is no file of the block
    pytest.param(A, B, "Retries is 3 in config/a.yaml and 5 in the environment of config/b.yaml.\n",
                 id="in no file"),
    # a word that is no key of either file, in another number
    pytest.param(A, B, "config/a.yaml waits 30 seconds; config/b.yaml waits 30 seconds too.\n", id="no key"),
    # a converted figure neither file holds is left to grounding, not read as another file's
    pytest.param("timeout: 30s\n", "timeout: 45s\n", "config/a.yaml: timeout 0.5 min (30 s); config/b.yaml: 45 s.\n",
                 id="own value beside its conversion"),
])
def test_honest_forms_stay_accepted(a, b, text):
    assert_accepted(summarize(a, b, text))
