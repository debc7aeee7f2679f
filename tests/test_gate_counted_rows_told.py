"""A count of a listing's rows in a state, told wrong, is refused (docs/gate.md, I1 "counted
rows told"; red team 142, F06): the counted-rows grounding grounds a count by all the rows of
its noun's shape, so "All 3 pods are Running" of 2 Running and 1 CrashLoopBackOff passed, and
a wrong count whose figure stood elsewhere in the sources was never asked. Lie/honest pairs
over the same outputs: the lie refused, honest summaries of the same rows accepted."""

from __future__ import annotations

import pytest
from gate_helpers import GIT_LOG_THREE_COMMITS as GIT_LOG
from gate_helpers import assert_accepted, find
from test_gate_counted_rows import GIT_STATUS, KUBECTL
from test_grammar_v4 import _summarize

from provgate.gate import _listed_row_counts

DOCKER = """$ docker ps -a
CONTAINER ID   IMAGE                COMMAND                  CREATED        STATUS                     PORTS                    NAMES
a3f5c2e1b9d0   postgres:16          "docker-entrypoint.s…"   2 hours ago    Up 2 hours                 0.0.0.0:5432->5432/tcp   db
7e8d9c0b1a2f   redis:7-alpine       "docker-entrypoint.s…"   2 hours ago    Up 2 hours                 6379/tcp                 cache
c4b3a2918f7e   myapp:latest         "python -m app"          5 minutes ago  Exited (1) 3 minutes ago                            api
"""

# (source, lie, the value refused)
LIES = [
    (KUBECTL, "All 3 pods are Running.", "3"),
    (KUBECTL, "1 of 3 pods is running.", "1"),
    (KUBECTL, "Only one pod is running.", "one"),
    (KUBECTL, "Two of three pods are in CrashLoopBackOff.", "Two"),
    (KUBECTL, "Two pods are Pending and one is Running.", "Two"),
    (GIT_STATUS, "Two modified files and two untracked files.", "two"),
    (GIT_STATUS, "There are three modified files and one untracked file.", "three"),
    (GIT_STATUS, "2 files are untracked.", "2"),
    (GIT_LOG, "Last 4 commits: 4f1e2d3, 9c8b7a6, 1a2b3c4.", "4"),
    (GIT_LOG, "The five most recent commits are by Jane Doe and Bob Smith.", "five"),
    # ("most recent" and "newest" read as "last": a count of the log's whole, red team 142 F09/F06)
    (GIT_LOG, "The 4 most recent commits are 4f1e2d3, 9c8b7a6 and 1a2b3c4.", "4"),
    (GIT_LOG, "The four most recent commits: 4f1e2d3 (Jane Doe), 9c8b7a6 (Bob Smith), 1a2b3c4 (Jane Doe).", "four"),
    (GIT_LOG, "The 4 newest commits are 4f1e2d3, 9c8b7a6 and 1a2b3c4.", "4"),
    (GIT_LOG, "The newest 5 commits are by Jane Doe and Bob Smith.", "5"),
    (GIT_LOG, "The 5 latest commits are 4f1e2d3, 9c8b7a6 and 1a2b3c4.", "5"),
    (KUBECTL, "Two of three pods are in CrashLoopBackOff and one pod is Running.", "one"),
    # docker ps' rows by the first word of STATUS (Up: running; Exited: stopped), its nouns
    # read too; a state after the noun with no verb or in the past tense (red team 142, F06's limits)
    (DOCKER, "All 3 containers are up.", "3"),
    (DOCKER, "All three containers are running.", "three"),
    (DOCKER, "3 containers are up: db, cache and api.", "3"),
    (DOCKER, "Two containers exited.", "Two"),
    (DOCKER, "1 of 3 containers is running.", "1"),
    (DOCKER, "2 containers have stopped; only db is up.", "2"),
    (DOCKER, "3 containers running, none exited.", "3"),
    (KUBECTL, "All 3 pods were running.", "3"),
    (KUBECTL, "3 pods running, none crashing.", "3"),
    (KUBECTL, "All 3 pods are up.", "3"),
    # a word between the count and the noun: the rows whose names start with it (api-...)
    (KUBECTL, "Two api pods are running.", "Two"),
    (KUBECTL, "Both api pods are Running.", "Both"),
    (KUBECTL, "2 api pods are in CrashLoopBackOff.", "2"),
]

HONEST = [
    (KUBECTL, "Two of three pods are Running."),
    (KUBECTL, "2 of 3 pods are running; api-7d9f8b6c5-z9m1q is in CrashLoopBackOff with 14 restarts."),
    (KUBECTL, "Two pods are Running and one pod is in CrashLoopBackOff."),
    (KUBECTL, "One pod (api-7d9f8b6c5-z9m1q) is in CrashLoopBackOff; the other two are Running."),
    (KUBECTL, "3 pods are listed in prod: two Running, one crash-looping."),
    (KUBECTL, "2 pods are ready; 1 pod is not ready and keeps restarting."),
    (KUBECTL, "2 pods are Running and 1 pod is crash-looping."),
    (KUBECTL, "Of the api pods, one pod is running and one is in CrashLoopBackOff."),
    (GIT_STATUS, "Two modified files (src/cache.py, tests/test_cache.py) and one untracked file (notes.txt)."),
    (GIT_STATUS, "The branch is 2 commits ahead of origin; 2 modified files, 1 untracked file."),
    (GIT_STATUS, "2 files are modified and 1 file is untracked."),
    (GIT_LOG, "Last 3 commits: 4f1e2d3, 9c8b7a6, 1a2b3c4."),
    (GIT_LOG, "The last three commits are by Jane Doe and Bob Smith."),
    (GIT_LOG, "The 3 latest commits are 4f1e2d3, 9c8b7a6 and 1a2b3c4."),
    (GIT_LOG, "The 3 most recent commits are 4f1e2d3, 9c8b7a6 and 1a2b3c4."),
    (GIT_LOG, "The three most recent commits: 4f1e2d3 (Jane Doe), 9c8b7a6 (Bob Smith), 1a2b3c4 (Jane Doe)."),
    (GIT_LOG, "The 3 newest commits are 4f1e2d3, 9c8b7a6 and 1a2b3c4."),
    (GIT_LOG, "3 latest commits: 4f1e2d3, 9c8b7a6, 1a2b3c4."),
    (GIT_LOG, "Here are the three most recent commits, by Jane Doe and Bob Smith."),
    (GIT_LOG, "The latest three commits are by Jane Doe and Bob Smith."),
    (GIT_LOG, "git log shows 3 commits."),
    (DOCKER, "Two containers are up (db and cache); api exited with code 1."),
    (DOCKER, "2 of 3 containers are Up; one container is Exited (1)."),
    (DOCKER, "2 of 3 containers are up; api exited with code 1."),
    (DOCKER, "db and cache are up; api exited 3 minutes ago."),
    (DOCKER, "db and cache are up, api exited"),
    (DOCKER, "3 containers listed: 2 up, 1 exited."),
    (DOCKER, "2/3 containers up"),
    (DOCKER, "Two containers are running and one has exited."),
    (DOCKER, "Two containers running (db, cache), one container exited with code 1 (api)."),
    (DOCKER, "2 containers up, 1 exited."),
    (DOCKER, "One container has stopped: api exited (1) 3 minutes ago; the other two are up."),
    (DOCKER, "None of the 3 containers is paused; api exited."),
    (DOCKER, "All 3 containers were created from local images; 2 are up."),
    (KUBECTL, "Two pods were running and one was crash-looping."),
    (KUBECTL, "2 pods running, 1 in CrashLoopBackOff."),
    (KUBECTL, "2 Running pods, 1 in CrashLoopBackOff."),
    (KUBECTL, "2/3 pods are Running."),
    (KUBECTL, "3 pods listed, 2 running."),
    (KUBECTL, "At least 1 pod is running."),
    (KUBECTL, "One api pod is Running, the other is in CrashLoopBackOff."),
    (KUBECTL, "Two api pods: one Running, one in CrashLoopBackOff; the worker pod is Running."),
    (KUBECTL, "1 worker pod is running; of the 2 api pods, 1 is running."),
    (KUBECTL, "Two healthy pods are running."),
    (KUBECTL, "Both worker and api pods exist; 2 pods are running."),
]


@pytest.mark.parametrize("source, lie, value", LIES)
def test_a_wrong_count_of_a_listing_s_rows_is_refused(source, lie, value):
    find(_summarize(source, lie), "I1", value=value)


@pytest.mark.parametrize("source, honest", HONEST)
def test_the_honest_counts_of_the_same_listings_stay_accepted(source, honest):
    assert_accepted(_summarize(source, honest))


def test_the_rows_a_status_column_shows_by_state():
    kubectl = _listed_row_counts(KUBECTL.encode())
    assert (kubectl[b"status running"], kubectl[b"status running of 3"], kubectl[b"status crashloopbackoff"]) == (
        {2}, {2}, {1})
    docker = _listed_row_counts(DOCKER.encode())
    assert (docker[b"status up"], docker[b"status exited of 3"], docker[b"row"]) == ({2}, {1}, {3})
    # a row whose cell is not under the column: the table's states are not read
    assert b"status" not in _listed_row_counts(b"NAME   STATUS\npod-a  Running\nlong-pod-name Running\n")


def test_docker_s_running_and_stopped_rows_and_a_paused_one_either_way():
    docker = _listed_row_counts(DOCKER.encode())
    assert (docker[b"status any up of 3"], docker[b"status any down of 3"]) == ({2}, {1})
    paused = DOCKER.replace("Up 2 hours                 6379", "Up 2 hours (Paused)        6379")
    assert _listed_row_counts(paused.encode())[b"status any up"] == {1, 2}
    assert_accepted(_summarize(paused, "Two containers are up (one of them paused); api exited."))
    assert_accepted(_summarize(paused, "One container is running, one is paused and one exited."))
    find(_summarize(paused, "All 3 containers are up."), "I1", value="3")


def test_a_kubectl_table_s_rows_by_their_names_first_part():
    kubectl = _listed_row_counts(KUBECTL.encode())
    assert (kubectl[b"named api"], kubectl[b"status running named api"], kubectl[b"status running named worker"]) == (
        {2}, {1}, {1})


def test_a_status_table_of_many_rows_is_read_in_one_pass():
    rows = _listed_row_counts(("NAME   STATUS\n" + "pod-a  Running\n" * 20_000).encode())
    assert rows[b"status running of 20000"] == {20_000}


def test_a_count_a_source_says_itself_stays_accepted():
    # (git status's "ahead ... by N commits" beside a shorter log: the branch's commits, not the log's rows)
    source = GIT_LOG + GIT_STATUS.replace("by 2 commits", "by 5 commits")
    assert_accepted(_summarize(source, "The last 5 commits are not pushed yet; the log shows 4f1e2d3, 9c8b7a6 and "
                                       "1a2b3c4."))
