"""gate.py is one long module of rules: a name defined twice at its top level silently replaces
the first definition for every rule that reads it (stop 51: a new ``_CLAUSE_BREAK`` of the
pointer-claim rule replaced the polarity rule's, and 45 polarity tests failed; ``_BLANK_RUN``
nearly did the same; stop 59: two merges each added an ``_OUTCOME_STEMS``, one str and one
bytes, and every summarize check raised). Every top-level name is defined once, in every
module of the package."""

from __future__ import annotations

import ast
import collections
from pathlib import Path

import pytest

import provgate


@pytest.mark.parametrize("module", sorted(Path(provgate.__file__).parent.glob("*.py")), ids=lambda p: p.name)
def test_no_top_level_name_of_a_module_is_defined_twice(module):
    tree = ast.parse(module.read_text(encoding="utf-8"))
    names: collections.Counter[str] = collections.Counter()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] += 1
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] += 1
    assert [name for name, count in names.items() if count > 1] == []
