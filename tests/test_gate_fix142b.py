"""Honest summaries of agent tool output red team 142 found refused (docs/gate.md, I1): the short
names a Java or Node trace's qualified names stand for (F11), and each one's lie twin, which
stays refused."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, find
from test_grammar_v4 import _summarize

JAVA = ('Exception in thread "main" java.lang.NullPointerException: Cannot invoke "String.length()" because '
        '"name" is null\n'
        "\tat com.acme.UserService.validate(UserService.java:57)\n"
        "\tat com.acme.UserController.create(UserController.java:23)\n"
        "\tat com.acme.App.main(App.java:11)\n")
NODE = ("/app/src/server.js:42\n    const port = config.server.port;\n                              ^\n"
        "TypeError: Cannot read properties of undefined (reading 'port')\n"
        "    at startServer (/app/src/server.js:42:31)\n    at main (/app/src/index.js:12:5)\n")
TWO_SERVICES = ("\tat com.acme.UserService.validate(UserService.java:57)\n"
                "\tat com.acme.OrderService.save(OrderService.java:88)\n")
BACKUP = "$ ls\nconfig.yaml.bak\nold.settings.py\napp.config.js\n"


# -- a qualified name's trailing or leading segments (red team 142, F11)

@pytest.mark.parametrize(("source", "honest"), [
    pytest.param(JAVA, "NullPointerException in UserService.validate (UserService.java:57): name is null.\n",
                 id="simple class and method names"),
    pytest.param(JAVA, "The app crashed with a NullPointerException because name is null.\n", id="exception"),
    pytest.param(JAVA, "UserService.validate throws on a null name; it is called from UserController.create.\n",
                 id="two frames"),
    pytest.param(JAVA, "The UserService class fails to validate the name; App.main is the entry point.\n",
                 id="a class named alone"),
    pytest.param(JAVA, "A java.lang NullPointerException in com.acme.UserService.\n", id="package and class"),
    pytest.param(NODE, "config.server is undefined, so reading .port fails in startServer (server.js:42).\n",
                 id="leading segments and the attribute"),
    pytest.param(NODE, "The TypeError comes from config.server being undefined.\n", id="member chain prefix"),
])
def test_a_part_of_a_qualified_name_is_grounded(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize(("source", "lie", "value"), [
    pytest.param(TWO_SERVICES, "UserService.save fails.\n", "UserService.save", id="segments of two names re-paired"),
    pytest.param(TWO_SERVICES, "OrderService.validate fails.\n", "OrderService.validate", id="re-paired the other way"),
    pytest.param(JAVA, "The app crashed with an IllegalStateException.\n", "IllegalStateException",
                 id="a class no source writes"),
    pytest.param(JAVA, "UserService.create throws on a null name.\n", "UserService.create", id="another method"),
    pytest.param(JAVA, "acme.UserController.validate throws.\n", "acme.UserController.validate",
                 id="segments not in one name"),
    pytest.param(NODE, "config.client is undefined.\n", "config.client", id="a segment not written"),
    pytest.param(NODE, "Reading .host fails.\n", ".host", id="another attribute"),
    pytest.param(BACKUP, "config.yaml is in the directory.\n", "config.yaml", id="a file name of a backup's"),
    pytest.param(BACKUP, "settings.py is in the directory.\n", "settings.py", id="a file name's tail"),
    pytest.param(BACKUP, "app.config is in the directory.\n", "app.config", id="a file name's stem"),
])
def test_a_name_no_qualified_name_holds_is_refused(source, lie, value):
    find(_summarize(source, lie), "I1", value=value)


# -- a container image reference of a source's columns or of a registry-qualified one (red team 142, F17)

IMAGES = ("$ docker images\nREPOSITORY                 TAG       IMAGE ID       CREATED        SIZE\n"
          "ghcr.io/acme/api           1.2.0     3f2a1b0c9d8e   2 hours ago    182MB\n"
          "redis                      7-alpine  1a2b3c4d5e6f   3 weeks ago    41MB\n")
BUILD = ("$ docker build -t myapp:1.2.0 .\n"
         " => [1/6] FROM docker.io/library/python:3.11-slim@sha256:7b2f0c1e          2.1s\n"
         " => => naming to docker.io/library/myapp:1.2.0                             0.0s\n")
PULL = ("$ docker pull docker.io/library/redis:7-alpine\n7-alpine: Pulling from library/redis\n"
        "Status: Downloaded newer image for redis:7-alpine\n")


@pytest.mark.parametrize(("source", "honest"), [
    pytest.param(IMAGES, "ghcr.io/acme/api:1.2.0 is 182MB.\n", id="repository and tag columns"),
    pytest.param(IMAGES, "The local image acme/api:1.2.0 is 182MB; redis:7-alpine is 41MB.\n", id="short name"),
    pytest.param(IMAGES, "Two images are present: ghcr.io/acme/api:1.2.0 (182MB) and redis:7-alpine (41MB).\n",
                 id="both rows"),
    pytest.param(BUILD, "The image is based on python:3.11-slim.\n", id="short name of a qualified FROM"),
    pytest.param(BUILD, "Built myapp:1.2.0 from docker.io/library/python:3.11-slim.\n", id="qualified, no digest"),
    pytest.param(PULL, "Pulled redis:7-alpine from docker.io.\n", id="registry"),
])
def test_an_image_reference_its_source_writes_is_grounded(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize(("source", "lie", "value"), [
    pytest.param(IMAGES, "ghcr.io/acme/api:7-alpine is 182MB.\n", "ghcr.io/acme/api:7", id="another row's tag"),
    pytest.param(IMAGES, "ghcr.io/acme/api:1.3.0 is 182MB.\n", "ghcr.io/acme/api:1", id="a tag not written"),
    pytest.param(IMAGES, "redis:1.2.0 is 41MB.\n", "1.2.0", id="another row's tag on a short name"),
    pytest.param(BUILD, "The image is based on python:3.12-slim.\n", "3.12-slim", id="another base tag"),
    pytest.param(PULL, "Pulled redis:7-alpine from quay.io.\n", "quay.io", id="another registry"),
])
def test_an_image_reference_no_source_writes_is_refused(source, lie, value):
    find(_summarize(source, lie), "I1", value=value)


# -- a seven-digit commit of an eight-digit abbreviation (red team 142, F16)

BLAME = ("$ git blame -L 10,13 src/http/client.py\n"
         "4f1e2d3c (Jane Doe  2024-03-05 14:02:11 +0100 11) BACKOFF_BASE = 0.5\n"
         "9c8b7a6f (Bob Smith 2024-03-04 09:15:42 +0100 12) MAX_RETRIES = 5\n")
ONELINE = "$ git log --oneline --abbrev=8\n4f1e2d3c Fix retry backoff\n9c8b7a6f Add Redis cache layer\n"
SERIALS = "serial 12345678\nrequest 550e8400-e29b-41d4-a716-446655440000\nsha256:7b2f0c1e9\n"


@pytest.mark.parametrize(("source", "honest"), [
    pytest.param(BLAME, "MAX_RETRIES (line 12) came from Bob Smith in 9c8b7a6.\n", id="blame"),
    pytest.param(BLAME, "Line 11 is from 4f1e2d3 (Jane Doe, 2024-03-05).\n", id="blame other"),
    pytest.param(ONELINE, "4f1e2d3 fixes the retry backoff.\n", id="log --abbrev=8"),
    pytest.param(ONELINE, "9c8b7a6f adds the Redis cache layer.\n", id="as written"),
])
def test_a_short_digest_of_a_longer_abbreviation_is_grounded(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize(("source", "lie", "value"), [
    pytest.param(BLAME, "MAX_RETRIES came from 9c8b7a7.\n", "9c8b7a7", id="a digit changed"),
    pytest.param(ONELINE, "1f1e2d3 fixes the retry backoff.\n", "1f1e2d3", id="another commit"),
    pytest.param(SERIALS, "Commit 550e840 did it.\n", "550e840", id="a UUID's first part"),
    pytest.param(SERIALS, "Commit 7b2f0c1 did it.\n", "7b2f0c1", id="a sha256 digest's"),
])
def test_a_short_digest_no_abbreviation_begins_is_refused(source, lie, value):
    find(_summarize(source, lie), "I1", value=value)


# -- a command's flag, then the verb of its outcome (red team 142, F15)

CARGO = "$ cargo build --release\n   Compiling myapp v0.3.1\n    Finished release [optimized] target(s) in 1m 12s\n"
NPM = "$ npm ci --silent\nadded 312 packages in 8s\n"
JOBS = "$ make --jobs 4 --output json\nok\n"


@pytest.mark.parametrize(("source", "honest"), [
    pytest.param(CARGO, "cargo build --release succeeded.\n", id="succeeded"),
    pytest.param(CARGO, "cargo build --release finished in 1m 12s.\n", id="finished"),
    pytest.param(NPM, "npm ci --silent completed: 312 packages added.\n", id="completed"),
    pytest.param(NPM, "Running npm ci --silent added 312 packages in 8s.\n", id="added"),
])
def test_a_flag_then_an_outcome_verb_is_grounded(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize(("source", "lie", "value"), [
    pytest.param(JOBS, "make --jobs 8 ran.\n", "8", id="another value of a flag"),
    pytest.param(JOBS, "make --output yaml was used.\n", "yaml", id="another word value"),
    pytest.param(CARGO, "cargo build --locked succeeded.\n", "succeeded", id="a flag not written"),
])
def test_a_flag_given_a_value_is_still_grounded_as_one(source, lie, value):
    find(_summarize(source, lie), "I1", value=value)
