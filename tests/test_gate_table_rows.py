"""A summary keeps each row of a source's table with its own figures (docs/gate.md, I1 "rows of
a table re-paired"; red team 141, F16). Every key and every figure of psql's, kubectl's, docker
ps's or ``ls -la``'s table is grounded somewhere in it, so a summary giving one row another row's
count, restarts, size or port kept every fact and was accepted. A clause naming one row's key
with another row's figure and none of its own is refused; a clause naming two rows (a list), a
figure below 10, or the row's own figures is not. Lie/honest pairs; the suite runs once each
way (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

from provgate.gate import _table_rows

SQL = ('$ psql -c "SELECT status, count(*) FROM orders GROUP BY status ORDER BY 2 DESC;"\n'
       "  status   | count\n-----------+-------\n shipped   |  1523\n pending   |   412\n"
       " cancelled |    37\n(3 rows)\n")
KUBECTL = ("$ kubectl get pods -n prod\n"
           "NAME                       READY   STATUS             RESTARTS       AGE\n"
           "api-7d9f8b6c5-x2k4p        1/1     Running            0              3d\n"
           "api-7d9f8b6c5-z9m1q        0/1     CrashLoopBackOff   14 (2m ago)    3d\n"
           "worker-5c6b7d8e9-abcde     1/1     Running            2 (1d ago)     5d\n")
LS = ("$ ls -la\ntotal 48\n"
      "drwxr-xr-x  6 user user 4096 Mar  5 14:02 .\n"
      "drwxr-xr-x 12 user user 4096 Mar  1 09:00 ..\n"
      "-rw-r--r--  1 user user  220 Mar  1 09:00 .env\n"
      "drwxr-xr-x  8 user user 4096 Mar  5 14:02 .git\n"
      "-rw-r--r--  1 user user 1067 Mar  1 09:00 README.md\n"
      "-rw-r--r--  1 user user  512 Mar  4 11:20 pyproject.toml\n"
      "drwxr-xr-x  4 user user 4096 Mar  5 13:58 src\n"
      "drwxr-xr-x  2 user user 4096 Mar  5 13:58 tests\n")
DOCKER = ("$ docker ps\n"
          "CONTAINER ID   IMAGE                COMMAND                  CREATED        STATUS                    "
          "PORTS                    NAMES\n"
          "a3f5c2e1b9d0   postgres:16          \"docker-entrypoint.s…\"   2 hours ago    Up 2 hours                "
          "0.0.0.0:5432->5432/tcp   db\n"
          "7e8d9c0b1a2f   redis:7-alpine       \"docker-entrypoint.s…\"   2 hours ago    Up 2 hours                "
          "6379/tcp                 cache\n"
          "c4b3a2918f7e   myapp:latest         \"python -m app\"          5 minutes ago  Exited (1) 3 minutes ago   "
          "                         api\n")
MARKDOWN = ("| service | p95 latency (ms) | errors |\n|---|---|---|\n| checkout | 120 | 14 |\n"
            "| search | 45 | 230 |\n")

# (source, the lie, the figure refused, its honest twin)
PAIRS = [
    (SQL, "Orders by status: shipped 412, pending 1523, cancelled 37.", "412",
     "Orders by status: shipped 1523, pending 412, cancelled 37."),
    (SQL, "37 orders are pending and 412 were cancelled.", "37",
     "412 orders are pending and 37 were cancelled."),
    (KUBECTL, "api-7d9f8b6c5-x2k4p is in CrashLoopBackOff with 14 restarts.", "14",
     "api-7d9f8b6c5-z9m1q is in CrashLoopBackOff with 14 restarts."),
    (LS, "README.md is 512 bytes and pyproject.toml 1067 bytes.", "512",
     "README.md is 1067 bytes and pyproject.toml 512 bytes."),
    (DOCKER, "Postgres is published on port 6379.", "6379", "Postgres is published on port 5432."),
    (DOCKER, "The cache container listens on 5432.", "5432", "The cache container listens on 6379."),
    (MARKDOWN, "search has a p95 latency of 120 ms.", "120", "search has a p95 latency of 45 ms."),
]


@pytest.mark.parametrize("source, lie, figure, honest", PAIRS)
def test_a_row_given_another_rows_figure_is_refused_and_its_twin_accepted(source, lie, figure, honest):
    found = find(_summarize(source, lie), "I1", block="s", value=figure)
    assert "tool:c1" in found.message and "another row" in found.message
    assert found.evidence["change"] == "table_row_repaired"
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("source, honest", [
    (SQL, "1523 orders shipped, 412 are pending and 37 were cancelled."),
    (SQL, "Most orders (1523) have shipped; 412 are pending and 37 cancelled."),
    (SQL, "The query returned 3 rows: shipped, pending and cancelled."),
    # (keys listed before their figures: respectively)
    (SQL, "Shipped and pending orders number 1523 and 412."),
    # (two rows named in one clause: a list, its figures may be either's)
    (SQL, "Shipped orders (1523) outnumber pending ones (412)."),
    (KUBECTL, ("Pod api-7d9f8b6c5-z9m1q is crash-looping (14 restarts, last 2m ago); api-7d9f8b6c5-x2k4p "
               "and worker-5c6b7d8e9-abcde are Running.")),
    # (a figure below 10 names no row: 2 restarts is worker's, 0 the api pod's)
    (KUBECTL, "worker-5c6b7d8e9-abcde restarted 2 times; it is 5d old."),
    (LS, ("The directory holds README.md (1067 bytes), pyproject.toml (512 bytes), .env (220 bytes) and "
          "the src and tests directories.")),
    (LS, "src and tests are directories (4096 bytes each)."),
    (DOCKER, ("db (postgres:16) is up on port 5432, cache (redis:7-alpine) on 6379; api (myapp:latest) "
              "exited with code 1.")),
    (DOCKER, "Redis listens on 6379/tcp and postgres on 5432."),
    (DOCKER, "Three containers: db, cache and api; api exited 3 minutes ago."),
    (MARKDOWN, "checkout: p95 120 ms with 14 errors; search: 45 ms, 230 errors."),
])
def test_a_rows_own_figures_or_a_list_of_rows_are_accepted(source, honest):
    assert_accepted(_summarize(source, honest))


def test_the_tables_read_and_their_keys():
    (sql,) = _table_rows(SQL.encode())[0]
    assert [sorted(k) for k, _ in sql] == [[b"shipped"], [b"pending"], [b"cancelled"]]
    assert [sorted(v) for _, v in sql] == [[b"1523"], [b"412"], [b"37"]]
    (docker,) = _table_rows(DOCKER.encode())[0]
    # (the container id, the image and its name, the container's name; the port's figures)
    assert {b"db", b"postgres", b"postgres:16"} <= docker[0][0] and docker[1][1] == {b"6379"}
    (kube,) = _table_rows(KUBECTL.encode())[0]
    assert [v for _, v in kube] == [frozenset(), frozenset({b"14"}), frozenset()]
    # (prose with figures, a header with one row: no table)
    assert _table_rows(b"NAME  AGE\nweb   12d\n\nWe shipped 412 orders and 37 were cancelled.\n") == ()


# red team 142, F07: the colon form ("shipped: 412") was cut at its colon, the key from its figure
@pytest.mark.parametrize("lie, honest", [
    ("shipped: 412, pending: 1523.", "shipped: 1523, pending: 412."),
    ("Orders by status - shipped: 412; pending: 1523; cancelled: 37.",
     "Orders by status - shipped: 1523; pending: 412; cancelled: 37."),
    ("Pending: 1523 orders.", "Pending: 412 orders."),
])
def test_a_row_given_another_rows_figure_after_a_colon_is_refused(lie, honest):
    find(_summarize(SQL, lie), "I1", value="412" if "412" in lie.split(",")[0] else "1523")
    assert_accepted(_summarize(SQL, honest))


@pytest.mark.parametrize("honest", [
    "Orders by status: shipped 1523, pending 412, cancelled 37.",
    "Counts: 1523 shipped, 412 pending and 37 cancelled.",
    "Most orders have shipped: 1523 of them; 412 are pending.",
])
def test_colon_forms_of_the_rows_own_figures_stay_accepted(honest):
    assert_accepted(_summarize(SQL, honest))
