"""Red team 139: honest summaries the version-owning rules of stop 59 refused, each beside a
lie twin that stays refused (docs/gate.md, I1 short forms).

F03: a one-dot number bound to a name only by a form red team 137 added (a comma, a dash, an
arrow, a "~", a possessive, "was", "is now at", "X of NAME", "respectively") is read as a
version only when the sources write it as some name's version: a benchmark's scores of pinned
packages are no versions, a pinned version given to another name still is.
F01: a key naming a version (Chart.yaml's appVersion, minSdkVersion) names no package.
F02: a manifest's own version said after a dependency's name is the project's, unless the
dependency is bound right before it."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted
from test_grammar_v4 import _summarize

from provgate import gate
from provgate.facts import extract

REQUIREMENTS = "numpy==1.26\npandas==2.1\npolars==0.19\n"
RESULTS = ('[\n {"library": "numpy", "mean_s": 1.3, "speedup": 1.0, "score": 7.5},\n'
           ' {"library": "pandas", "mean_s": 3.2, "speedup": 0.4, "score": 6.1},\n'
           ' {"library": "polars", "mean_s": 0.8, "speedup": 1.6, "score": 8.9}\n]\n')
BENCH = REQUIREMENTS + RESULTS

# (honest: scores no source writes as a version; lie: pandas's pinned 2.1 given to numpy)
F03_FORMS = [
    ("Scores: numpy, 7.5; pandas, 6.1; polars, 8.9.\n", "Versions: numpy, 2.1; pandas, 6.1.\n"),
    ("numpy - 7.5, pandas - 6.1, polars - 8.9 (scores)\n", "numpy - 2.1, pandas - 6.1\n"),
    ("Speedups: polars, 1.6; pandas, 0.4\n", "Pins: polars, 2.1; pandas, 0.4\n"),
    ("polars's 1.6 speedup and pandas's 0.4\n", "numpy's 2.1 release\n"),
    ("polars and pandas scored 8.9 and 6.1 respectively\n", "numpy and pandas are at 2.1 and 1.26 respectively\n"),
    ("polars and pandas took 0.8 and 3.2 respectively\n", "polars and numpy took 0.8 and 2.1 respectively\n"),
    ("8.9 of polars vs 6.1 of pandas\n", "2.1 of numpy vs 6.1 of pandas\n"),
    ("polars was 0.8\n", "numpy was 2.1\n"),
    ("polars is now at 8.9\n", "numpy is now at 2.1\n"),
    ("polars \u2192 8.9\n", "numpy \u2192 2.1\n"),
    ("polars ~0.8\n", "numpy ~2.1\n"),
]


@pytest.mark.parametrize("honest, lie", F03_FORMS)
def test_f03_a_score_no_source_writes_as_a_version_is_no_version(honest, lie):
    assert_accepted(_summarize(BENCH, honest))
    verdict = _summarize(BENCH, lie)
    assert not verdict.accepted
    assert any(v.invariant == "I1" and v.value == "2.1" for v in verdict.violations), verdict.summary()


def test_f03_the_line_of_a_pinned_version_stays_a_version():
    # (1.26 of pandas==1.26.2 is read as a version, so given to numpy it is a swap)
    source = "numpy==2.1.3\npandas==1.26.2\nscore 1.26\n"
    assert_accepted(_summarize(source, "pandas, 1.26.2; numpy, 2.1.3\n"))
    verdict = _summarize(source, "numpy, 1.26\n")
    assert not verdict.accepted
    assert any(v.invariant == "I1" and v.value == "1.26" for v in verdict.violations), verdict.summary()


CHART = ('apiVersion: v2\nname: mychart\ndescription: A Helm chart for Kubernetes\ntype: application\n'
         'version: 0.1.0\nappVersion: "1.16.0"\n')
MOBILE = '{"name": "mobile", "minSdkVersion": "21.0.0", "version": "2.0.0"}\n'


@pytest.mark.parametrize("source, honest, lie, value", [
    (CHART, "mychart 0.1.0, app version 1.16.0\n", "mychart 1.16.0\n", "1.16.0"),
    (CHART, "The mychart chart ships app version 1.16.0.\n", "The mychart 1.16.0 chart ships app version 0.1.0.\n",
     "1.16.0"),
    (CHART, "mychart: version 0.1.0, app version 1.16.0\n", "mychart: version 1.16.0\n", "1.16.0"),
    (MOBILE, "mobile 2.0.0, min sdk version 21.0.0\n", "mobile 21.0.0\n", "21.0.0"),
])
def test_f01_a_key_naming_a_version_names_no_package(source, honest, lie, value):
    assert_accepted(_summarize(source, honest))
    verdict = _summarize(source, lie)
    assert not verdict.accepted
    assert any(v.invariant == "I1" and v.value == value for v in verdict.violations), verdict.summary()


def test_f01_version_keys_bind_no_name_and_the_record_its_own():
    def bound(text: str) -> set[tuple[bytes, bytes, bool]]:
        return {(n, v, project) for n, v, _, project in gate._manifest_versions(gate._Facts(extract(text)))}

    assert bound(CHART) == {(b"mychart", b"0.1.0", True)}
    assert bound(MOBILE) == {(b"mobile", b"2.0.0", True)}
    # (a lockfile's first record is no project's own)
    assert bound('[[package]]\nname = "numpy"\nversion = "1.26.2"\n') == {(b"numpy", b"1.26.2", False)}


PACKAGE_JSON = ('{\n  "name": "web-app",\n  "version": "1.0.0",\n'
                '  "dependencies": {"lodash": "4.17.21", "react": "18.2.0"},\n'
                '  "devDependencies": {"vite": "5.0.10"}\n}\n')
POETRY = '[tool.poetry]\nname = "svc"\nversion = "0.4.2"\n\n[tool.poetry.dependencies]\nnumpy = "1.26.2"\n'


@pytest.mark.parametrize("source, honest", [
    (PACKAGE_JSON, "web-app uses react and vite and is at 1.0.0.\n"),
    (PACKAGE_JSON, "Uses react and vite; version 1.0.0.\n"),
    (PACKAGE_JSON, "Built with vite, the project is at 1.0.0.\n"),
    (PACKAGE_JSON, "Depends on react 18.2.0 and lodash 4.17.21. Current version: 1.0.0.\n"),
    (POETRY, "Uses numpy; version 0.4.2.\n"),
])
def test_f02_the_projects_own_version_after_a_dependency_is_the_projects(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("source, lie, value", [
    (PACKAGE_JSON, "web-app uses react and vite 1.0.0.\n", "1.0.0"),
    (PACKAGE_JSON, "Installed vite@1.0.0.\n", "1.0.0"),
    (PACKAGE_JSON, "vite is at 1.0.0.\n", "1.0.0"),
    (POETRY, "Uses numpy 0.4.2.\n", "0.4.2"),
])
def test_f02_the_projects_version_bound_to_a_dependency_is_refused(source, lie, value):
    verdict = _summarize(source, lie)
    assert not verdict.accepted
    assert any(v.invariant == "I1" and v.value == value for v in verdict.violations), verdict.summary()
