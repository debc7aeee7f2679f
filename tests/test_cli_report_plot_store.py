"""`provgate report --plot` never writes over the store it reads (red team 122, F11): a plot file
naming the store (the same name, a symbolic or a hard link, its -wal file) was overwritten with
the PNG, every source and audit record lost, exit 0. Refused now, exit 2 naming --plot."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from gate_helpers import tool
from store_helpers import row_counts

from provgate import cli
from provgate.store import SourceStore


@pytest.fixture()
def store(tmp_path):
    path = tmp_path / "s.png"  # (a store may have any name)
    b = tool("b", "tool:a", "retries=3\n")
    edit = tmp_path / "e.json"
    edit.write_text(json.dumps({"operator": "rewrite", "pre": [b], "post": [b], "sources": {"tool:a": "retries=3\n"}}))
    assert cli.main(["check", str(edit), "--store", str(path), "--create", "--session", "S"]) == 0
    return path


@pytest.mark.parametrize("how", ["same name", "symlink", "hard link", "relative name", "wal"])
def test_a_plot_naming_the_store_is_refused_and_the_store_kept(tmp_path, store, capsys, monkeypatch, how):
    capsys.readouterr()
    before, data = row_counts(store), store.read_bytes()
    plot = {"same name": store, "symlink": tmp_path / "alias.png", "hard link": tmp_path / "hard.png",
            "relative name": "s.png", "wal": tmp_path / "s.png-wal"}[how]
    if how == "symlink":
        os.symlink(store, plot)
    elif how == "hard link":
        os.link(store, plot)
    elif how == "relative name":
        monkeypatch.chdir(tmp_path)
    code = cli.main(["report", "--store", str(store), "--session", "S", "--plot", str(plot)])
    err = capsys.readouterr().err
    assert code == 2
    e = json.loads(err.strip().splitlines()[-1])["error"]
    assert e["field"] == "--plot" and "written over the store" in e["message"], e
    assert store.read_bytes() == data and row_counts(store) == before
    with SourceStore(str(store), read_only=True) as st:
        assert st.verify() == [] and st.get("tool:a") == "retries=3\n"


def test_a_plot_beside_the_store_is_written(tmp_path, store, capsys):
    import matplotlib  # noqa: F401  (the test extra installs it: the plot path is tested, never skipped)
    capsys.readouterr()
    plot = tmp_path / "curve.png"
    code = cli.main(["report", "--store", str(store), "--session", "S", "--plot", str(plot)])
    assert code == 0, capsys.readouterr().err
    assert plot.read_bytes()[:4] == b"\x89PNG"
    with SourceStore(str(store), read_only=True) as st:
        assert st.get("tool:a") == "retries=3\n"


def test_a_plot_linked_to_the_wal_of_a_store_named_by_a_link_is_refused(tmp_path, store, capsys):
    # red team 124, F07: SQLite keeps the -wal beside the file the link resolves to; the side
    # files were looked for beside the link's name, and the PNG written over the WAL
    link = tmp_path / "link.sqlite3"
    os.symlink(store, link)
    wal = tmp_path / "wal.png"
    os.symlink(str(store) + "-wal", wal)
    capsys.readouterr()
    code = cli.main(["report", "--store", str(link), "--session", "S", "--plot", str(wal)])
    e = json.loads(capsys.readouterr().err.strip().splitlines()[-1])["error"]
    assert code == 2 and e["field"] == "--plot" and "-wal" in e["message"], e
    wal_file = Path(str(store) + "-wal")
    assert not wal_file.exists() or wal_file.read_bytes()[:4] != b"\x89PNG"
