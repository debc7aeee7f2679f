"""The users, hosts, ports and paths a text's URLs state (gate._url_parts, which I1 grounds a
summary's "deploy@10.0.0.12", "port 5432" or "/v1/users/42" in): read only from the rows whose value holds a
"://" of the text, they are those a match of every URL and kv row finds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from provgate import gate as gate_module
from provgate.facts import extract


def _every_row(text: str) -> set[bytes]:
    """The definition: each URL or kv row's value matched for an authority."""
    table = extract(text)
    found: set[bytes] = set()
    for r in range(len(table)):
        if table.kind[r] not in (gate_module._KIND_URL, gate_module._KIND_KV):
            continue
        m = gate_module._URL_AUTHORITY.match(table.value_bytes(r))
        if m is not None:
            found.update(piece for piece in m.groups() if piece)
            if m.group(1) and m.group(2):
                found.add(m.group(1) + b"@" + m.group(2))
            path = table.value_bytes(r)[m.end():].split(b"#", 1)[0]
            if len(path) > 1 and path.startswith(b"/"):
                found.update((path, path.split(b"?", 1)[0]))
    return found


PIECES = st.sampled_from(["DATABASE_URL=postgres://app@10.0.0.5:5432/db", "ssh://deploy@10.0.0.12:22/srv",
                          "https://example.com/x", "url: http://[::1]:8080/", "retries=3", "host=db.internal",
                          "x=://", "a=b://c", " ", "\n", "://", "see http://h:1 ", "k = 'ftp://u@h'", "p: 5432",
                          "mailto:x@y", "s3://bucket/key", "GET https://h/v1/u?x=1#top ", "git+ssh://git@github.com:22/o/r.git"])


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=12))
def test_the_url_parts_are_those_every_row_gives(pieces):
    text = "".join(pieces)
    assert gate_module._url_parts(gate_module._Facts(extract(text))) == _every_row(text)


def test_the_url_parts_of_a_text():
    facts = gate_module._Facts(extract("DATABASE_URL=postgres://app@10.0.0.5:5432/db\nretries=3\n"))
    assert gate_module._url_parts(facts) == {b"app", b"10.0.0.5", b"5432", b"app@10.0.0.5", b"/db"}
    assert gate_module._url_parts(gate_module._Facts(extract("retries=3 host=db.internal"))) == set()
