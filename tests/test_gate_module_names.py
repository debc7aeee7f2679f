"""gate.py is one long module of rules: a name defined twice at its top level silently replaces
the first definition for every rule that reads it (stop 51: a new ``_CLAUSE_BREAK`` of the
pointer-claim rule replaced the polarity rule's, and 45 polarity tests failed; ``_BLANK_RUN``
nearly did the same). Every top-level name is defined once."""

from __future__ import annotations

import ast
import collections
from pathlib import Path

import provgate.gate


def test_no_top_level_name_of_the_gate_is_defined_twice():
    tree = ast.parse(Path(provgate.gate.__file__).read_text(encoding="utf-8"))
    names: collections.Counter[str] = collections.Counter()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] += 1
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] += 1
    assert [name for name, count in names.items() if count > 1] == []
