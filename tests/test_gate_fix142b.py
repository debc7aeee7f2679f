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
