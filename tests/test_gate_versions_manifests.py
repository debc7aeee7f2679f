"""Red team 137, F04: versions a manifest, a lockfile or a package tool's listing binds to names
(package.json, pyproject/poetry, Cargo.toml, go.mod, a conda environment.yml, pip list, pip
show, package-lock.json, poetry.lock, Cargo.lock) swapped between the names in a summary, where
each swapped version occurs verbatim in the source: accepted, as only ``name==1.2``, pip's
``name-1.2.3``, npm's ``name@1.2`` and an image's ``name:1.2`` bound a version to a name. Now each
of these forms binds as ``==`` does (:func:`provgate.gate._manifest_versions`), so the swaps are
refused by :meth:`provgate.gate._Check._check_versions_owned`, and the honest pairs, in prose,
lists and tables, with a manifest's own fields (the project's version, engines, scripts, ports),
stay accepted. docs/gate.md, I1 short forms."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted
from test_grammar_v4 import _summarize

from provgate import gate
from provgate.facts import extract

PACKAGE_JSON = """{
  "name": "web-app",
  "version": "1.0.0",
  "private": true,
  "scripts": {
    "dev": "vite --port 5173",
    "build": "tsc && vite build",
    "test": "vitest run"
  },
  "engines": {
    "node": ">=18"
  },
  "dependencies": {
    "lodash": "4.17.21",
    "react": "18.2.0",
    "axios": "~1.6.2"
  },
  "devDependencies": {
    "typescript": "^5.3",
    "vite": "5.0.10"
  }
}
"""
PACKAGE_JSON_CARET = '{\n  "dependencies": {\n    "lodash": "^4.17",\n    "react": "^18.2"\n  }\n}\n'
PYPROJECT = """[tool.poetry]
name = "svc"
version = "0.3.1"

[tool.poetry.dependencies]
python = "^3.11"
numpy = "1.26.2"
pandas = {version = "2.1.3", extras = ["performance"]}
requests = "^2.31"
"""
CARGO_TOML = """[package]
name = "server"
version = "0.1.0"
edition = "2021"

[dependencies]
serde = "1.0"
tokio = { version = "1.35", features = ["full"] }

[dependencies.axum]
version = "0.7.2"
"""
GO_MOD = """module example.com/api

go 1.21

require (
\tgithub.com/pkg/errors v0.9.1
\tgolang.org/x/net v0.17.0
\tgithub.com/redis/go-redis/v9 v9.3.0
)
"""
CONDA_ENV = """name: ml
channels:
  - conda-forge
dependencies:
  - python=3.11
  - numpy=1.26
  - pandas=2.1
  - pip:
    - requests==2.31.0
"""
PIP_LIST = "Package    Version\n---------- -------\nnumpy      1.26.2\npandas     2.1.3\npip        23.3.1\n"
PIP_LIST_OUTDATED = ("Package Version Latest Type\n------- ------- ------ -----\n"
                     "numpy   1.26.2  2.0.0  wheel\npandas  2.1.3   2.2.0  wheel\n")
CONDA_LIST = """# packages in environment at /opt/conda/envs/ml:
#
# Name                    Version                   Build  Channel
_libgcc_mutex             0.1                        main
numpy                     1.26.2          py311h64a7726_0    conda-forge
pandas                    2.1.3           py311h320fe9a_0    conda-forge
"""
PIP_SHOW = """Name: numpy
Version: 1.26.2
Summary: Fundamental package for array computing in Python
Home-page: https://numpy.org
Requires:
Required-by: pandas
---
Name: pandas
Version: 2.1.3
Summary: Powerful data structures for data analysis, time series, and statistics
Requires: numpy, python-dateutil, pytz, tzdata
Required-by:
"""
PIP_LIST_JSON = '[{"name": "numpy", "version": "1.26.2"}, {"name": "pandas", "version": "2.1.3"}]\n'
PACKAGE_LOCK = """{
  "name": "web-app",
  "version": "1.0.0",
  "lockfileVersion": 3,
  "requires": true,
  "packages": {
    "": {
      "name": "web-app",
      "version": "1.0.0",
      "dependencies": {
        "lodash": "^4.17.21",
        "react": "^18.2.0"
      }
    },
    "node_modules/js-tokens": {
      "version": "4.0.0",
      "license": "MIT"
    },
    "node_modules/lodash": {
      "version": "4.17.21",
      "license": "MIT"
    },
    "node_modules/react": {
      "version": "18.2.0",
      "dependencies": {
        "loose-envify": "^1.1.0"
      },
      "engines": {
        "node": ">=0.10.0"
      }
    }
  }
}
"""
POETRY_LOCK = """[[package]]
name = "numpy"
version = "1.26.2"
description = "Fundamental package for array computing in Python"
optional = false
python-versions = ">=3.9"

[[package]]
name = "pandas"
version = "2.1.3"
description = "Powerful data structures for data analysis, time series, and statistics"
optional = false
python-versions = ">=3.9"
"""
CARGO_LOCK = """[[package]]
name = "serde"
version = "1.0.193"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "tokio"
version = "1.35.1"
source = "registry+https://github.com/rust-lang/crates.io-index"
"""
PIPFILE_LOCK = """{
    "default": {
        "numpy": {
            "hashes": [
                "sha256:06fa1ed84aa60ea6ef9f91ba57b5ed963c3729534e6e54055fc151fad0423f0a",
                "sha256:174a8880739c16c925799c018f3f55b8130c1f7c8e75ab0a6fa9d41cab092fd6"
            ],
            "markers": "python_version >= '3.9'",
            "version": "==1.26.2"
        },
        "pandas": {
            "hashes": [
                "sha256:0296a66200dee556850d99b24c54c7dfa53a3264b1ca6f440e42bad424caea03"
            ],
            "version": "==2.1.3"
        }
    }
}
"""

# (source, honest summary, its lie twin, a value the lie must be refused for)
PAIRS = [
    # package.json: dependencies, dev dependencies, a caret's line, in prose, a list and a table
    (PACKAGE_JSON, "lodash 4.17.21 and react 18.2.0\n", "lodash 18.2.0 and react 4.17.21\n", "18.2.0"),
    (PACKAGE_JSON, "Dependencies:\n- lodash: 4.17.21\n- react: 18.2.0\n- axios: ~1.6.2\n",
     "Dependencies:\n- lodash: 18.2.0\n- react: 4.17.21\n", "18.2.0"),
    (PACKAGE_JSON, "| package | version |\n|---|---|\n| lodash | 4.17.21 |\n| vite | 5.0.10 |\n",
     "| package | version |\n|---|---|\n| lodash | 5.0.10 |\n| vite | 4.17.21 |\n", "5.0.10"),
    (PACKAGE_JSON, "Dev: typescript ^5.3 and vite 5.0.10.\n", "Dev: typescript 5.0.10 and vite 5.3.\n", "5.0.10"),
    (PACKAGE_JSON, "The project web-app 1.0.0 needs node >=18; its dev script runs vite --port 5173.\n",
     "The project web-app 4.17.21 needs node >=18.\n", "4.17.21"),
    (PACKAGE_JSON_CARET, "lodash ^4.17 and react ^18.2\n", "lodash 18.2 and react 4.17\n", "18.2"),
    (PACKAGE_JSON_CARET, "lodash 4.17 and react 18.2\n", "react 4.17\n", "4.17"),
    # pyproject (poetry): a plain string, an inline table, python's own line
    (PYPROJECT, "svc 0.3.1 needs python ^3.11, numpy 1.26.2, pandas 2.1.3 and requests ^2.31.\n",
     "svc needs numpy 2.1.3 and pandas 1.26.2.\n", "2.1.3"),
    (PYPROJECT, "Runs on python 3.11 with requests 2.31.\n", "Runs on python 2.31 with requests 3.11.\n", "2.31"),
    # Cargo.toml: a string, an inline table, a dependency's own table
    (CARGO_TOML, "server 0.1.0 (edition 2021) uses serde 1.0, tokio 1.35 with full features and axum 0.7.2.\n",
     "server uses serde 1.35 and tokio 1.0.\n", "1.35"),
    (CARGO_TOML, "axum 0.7.2\n", "axum 0.1.0\n", "0.1.0"),
    # go.mod: the module's last segment, a major version's suffix passed over
    (GO_MOD, "Requires github.com/pkg/errors v0.9.1, golang.org/x/net v0.17.0 and go-redis v9.3.0 (go 1.21).\n",
     "Requires errors v0.17.0 and net v0.9.1.\n", "v0.17.0"),
    (GO_MOD, "go-redis v9.3.0\n", "go-redis v0.9.1\n", "v0.9.1"),
    # a conda environment.yml
    (CONDA_ENV, "Env ml: python 3.11, numpy 1.26, pandas 2.1, requests 2.31.0 via pip.\n",
     "Env ml: numpy 2.1 and pandas 1.26.\n", "2.1"),
    # pip list, with --outdated's latest column, and conda list
    (PIP_LIST, "numpy 1.26.2 and pandas 2.1.3 (pip 23.3.1)\n", "numpy 2.1.3 and pandas 1.26.2\n", "2.1.3"),
    (PIP_LIST_OUTDATED, "numpy 1.26.2 (2.0.0 available) and pandas 2.1.3 (latest 2.2.0)\n",
     "numpy 2.2.0 and pandas 2.0.0\n", "2.2.0"),
    (CONDA_LIST, "numpy 1.26.2 and pandas 2.1.3 from conda-forge\n", "numpy 2.1.3 and pandas 1.26.2\n", "2.1.3"),
    # pip show's records, pip list --format=json's objects
    (PIP_SHOW, "numpy 1.26.2 (required by pandas 2.1.3)\n", "numpy 2.1.3, required by pandas 1.26.2\n", "2.1.3"),
    (PIP_LIST_JSON, "| package | version |\n|---|---|\n| numpy | 1.26.2 |\n| pandas | 2.1.3 |\n",
     "| package | version |\n|---|---|\n| numpy | 2.1.3 |\n| pandas | 1.26.2 |\n", "2.1.3"),
    # lockfiles: package-lock's entries, poetry.lock's and Cargo.lock's records, Pipfile.lock's objects
    (PACKAGE_LOCK, "Locked: lodash 4.17.21, react 18.2.0, js-tokens 4.0.0.\n",
     "Locked: lodash 18.2.0, react 4.17.21.\n", "18.2.0"),
    (PACKAGE_LOCK, "react 18.2.0 needs node >=0.10.0 and loose-envify ^1.1.0.\n", "react 4.0.0\n", "4.0.0"),
    (POETRY_LOCK, "The lock pins numpy 1.26.2 and pandas 2.1.3, both for python >=3.9.\n",
     "The lock pins numpy 2.1.3 and pandas 1.26.2.\n", "2.1.3"),
    (CARGO_LOCK, "serde 1.0.193 and tokio 1.35.1\n", "serde 1.35.1 and tokio 1.0.193\n", "1.35.1"),
    (PIPFILE_LOCK, "Locked: numpy ==1.26.2, pandas 2.1.3\n", "Locked: numpy 2.1.3, pandas 1.26.2\n", "2.1.3"),
]


@pytest.mark.parametrize("source, honest, lie, value", PAIRS)
def test_a_version_a_manifest_binds_to_its_name_is_grounded(source, honest, lie, value):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("source, honest, lie, value", PAIRS)
def test_a_version_a_manifest_binds_to_another_name_is_refused(source, honest, lie, value):
    verdict = _summarize(source, lie)
    assert not verdict.accepted
    # (a list's "lodash: 18.2.0" is a kv fact, refused as such before the versions are read)
    assert any(v.invariant == "I1" and value in (v.value or "") for v in verdict.violations), verdict.summary()


@pytest.mark.parametrize("source, text", [
    # a manifest's own fields named honestly: the project's version, engines, scripts, ports
    (PACKAGE_JSON, "web-app is at version 1.0.0.\n"),
    (PACKAGE_JSON, "Version 1.0.0; engines: node >=18.\n"),
    (PACKAGE_JSON, "Scripts: dev (vite --port 5173), build (tsc && vite build), test (vitest run).\n"),
    (PYPROJECT, "svc, version 0.3.1, requires python ^3.11.\n"),
    (CARGO_TOML, "Edition 2021; package version 0.1.0.\n"),
    (GO_MOD, "Module example.com/api targets go 1.21.\n"),
    # a comparison binds no version: "node 20.11.0" of node --version beside engines' ">=18.17.0"
    ('{\n  "engines": {\n    "node": ">=18.17.0"\n  }\n}\nv20.11.0\n', "node 20.11.0 satisfies >=18.17.0\n"),
    # a quoted number of a workflow's key is that key's, and binds no other name
    ("- name: Set up Python\n  uses: actions/setup-python@v5\n  with:\n    python-version: '3.11'\n",
     "Sets up python 3.11 with setup-python v5.\n"),
    # a .env's key=value is no conda pin: its values bind nothing
    ("numpy==1.26.2\nRATIO=0.75\nLIMIT=2.5\n", "numpy 1.26.2; ratio 0.75, limit 2.5\n"),
])
def test_a_manifests_other_fields_named_honestly_are_accepted(source, text):
    assert_accepted(_summarize(source, text))


def test_a_scoped_or_unpaired_key_binds_no_name():
    """A scoped package's last part is no name (``@types/node`` is no ``node``: the whole scoped
    name is bound, red team 139, F10), a record's name
    is paired with no version past a blank line or another record's name, and an object's
    version key is not read past a nested object."""
    def pairs(text: str) -> set[tuple[bytes, bytes]]:
        return {(name, version) for name, version, *_ in gate._manifest_versions(gate._Facts(extract(text)))}

    assert pairs('{"devDependencies": {"@types/node": "^20.11.5"}}') == {(b"@types/node", b"20.11.5")}
    assert pairs('{\n  "node_modules/@babel/core": {\n    "version": "7.23.6"\n  }\n}') == set()
    assert pairs("Name: numpy\n\nVersion: 1.26.2\n") == set()
    assert pairs("name: a\nname: b\nversion: 1.2.3\n") == {(b"b", b"1.2.3")}
    assert pairs('"dependencies": {\n "lodash": {\n "version": "4.17.21"\n }\n}') == {(b"lodash", b"4.17.21")}
    assert pairs('"version": "1.0.0", "node": ">=18.17", "host": "10.0.0.12"') == set()


# red team 139, F10: other ecosystems' manifests and lockfiles, and scoped names
PNPM_LOCK = """lockfileVersion: '6.0'
dependencies:
  lodash:
    specifier: ^4.17.21
    version: 4.17.21
  react:
    specifier: ^18.2.0
    version: 18.2.0(react-dom@18.2.0)
  '@angular/core':
    specifier: 17.0.8
    version: 17.0.8
"""
YARN_LOCK = """# yarn lockfile v1

lodash@^4.17.20, lodash@^4.17.21:
  version "4.17.21"
  resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz"

react@^18.2.0:
  version "18.2.0"

"@types/node@^20.10.0":
  version "20.10.0"
"""
YARN_BERRY_LOCK = '"lodash@npm:^4.17.21":\n  version: 4.17.21\n\n"react@npm:^18.2.0":\n  version: 18.2.0\n'
GEMFILE_LOCK = """GEM
  remote: https://rubygems.org/
  specs:
    actioncable (7.1.2)
      actionpack (= 7.1.2)
      nio4r (~> 2.0)
    nokogiri (1.15.5-x86_64-linux)
      racc (~> 1.4)
    rack (3.0.8)
    rails (7.1.2)

BUNDLED WITH
   2.4.10
"""
PODFILE_LOCK = "PODS:\n  - Alamofire (5.8.1)\n  - SnapKit (5.6.0)\n\nCOCOAPODS: 1.14.3\n"
COMPOSER_JSON = '{"require": {"php": "^8.1", "laravel/framework": "^10.10", "guzzlehttp/guzzle": "^7.2"}}'
POM_XML = """<project>
  <artifactId>demo</artifactId>
  <version>0.0.1</version>
  <dependencies>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>2.0.9</version></dependency>
    <dependency>
      <groupId>junit</groupId>
      <artifactId>junit</artifactId>
      <version>4.13.2</version>
    </dependency>
  </dependencies>
</project>
"""
CSPROJ = """<ItemGroup>
  <PackageReference Include="Newtonsoft.Json" Version="13.0.3" />
  <PackageReference Version="3.1.1" Include="Serilog" />
</ItemGroup>
"""
PACKAGES_CONFIG = '<packages>\n  <package id="NUnit" version="3.14.0" targetFramework="net48" />\n  <package id="Moq" version="4.20.70" />\n</packages>\n'
SCOPED_PACKAGE_JSON = ('{"name": "web", "version": "1.0.0", "dependencies": {"@angular/core": "17.0.8", '
                       '"@types/node": "20.10.0", "rxjs": "7.8.1"}}')

CARGO_BUILD = ("$ cargo build --release\n   Compiling libc v0.2.153\n   Compiling serde v1.0.197\n"
               "   Compiling tokio v1.36.0\n   Compiling myapp v0.3.1 (/home/user/myapp)\n"
               "    Finished release [optimized] target(s) in 1m 12s\n")
CARGO_UPDATE = ("$ cargo update\n    Updating crates.io index\n    Updating serde v1.0.196 -> v1.0.197\n"
                "    Updating tokio v1.35.1 -> v1.36.0\n")

OTHER_PAIRS = [
    # cargo's build log (red team 141, F18)
    (CARGO_BUILD, "Release build of myapp 0.3.1 (tokio 1.36.0, serde 1.0.197) finished in 1m 12s.\n",
     "Release build of myapp 1.36.0 finished in 1m 12s.\n", "1.36.0"),
    (CARGO_BUILD, "Compiled tokio 1.36.0 and serde 1.0.197.\n", "Compiled tokio 0.3.1 and serde 1.0.197.\n", "0.3.1"),
    (CARGO_UPDATE, "serde went from 1.0.196 to 1.0.197.\n", "tokio went from 1.0.196 to 1.0.197.\n", "1.0.196"),
    (PNPM_LOCK, "pnpm-lock: lodash 4.17.21, react 18.2.0, @angular/core 17.0.8\n",
     "pnpm-lock: lodash 18.2.0 and react 4.17.21\n", "18.2.0"),
    (PNPM_LOCK, "@angular/core 17.0.8\n", "@angular/core 18.2.0\n", "18.2.0"),
    (YARN_LOCK, "lodash 4.17.21, react 18.2.0 and @types/node 20.10.0\n", "lodash 18.2.0 and react 4.17.21\n", "18.2.0"),
    (YARN_LOCK, "@types/node 20.10.0\n", "@types/node 4.17.21\n", "4.17.21"),
    (YARN_BERRY_LOCK, "lodash 4.17.21 and react 18.2.0\n", "lodash 18.2.0 and react 4.17.21\n", "18.2.0"),
    (GEMFILE_LOCK, "rails 7.1.2 (actioncable 7.1.2), rack 3.0.8, nokogiri 1.15.5\n",
     "rails 3.0.8 and rack 7.1.2\n", "3.0.8"),
    (PODFILE_LOCK, "Alamofire 5.8.1 and SnapKit 5.6.0\n", "Alamofire 5.6.0 and SnapKit 5.8.1\n", "5.6.0"),
    (COMPOSER_JSON, "laravel/framework ^10.10 and guzzlehttp/guzzle ^7.2 on php ^8.1\n",
     "laravel/framework ^7.2 and guzzlehttp/guzzle ^10.10\n", "7.2"),
    (POM_XML, "demo 0.0.1 uses slf4j-api 2.0.9 and junit 4.13.2\n", "slf4j-api 4.13.2 and junit 2.0.9\n", "4.13.2"),
    (CSPROJ, "Newtonsoft.Json 13.0.3 and Serilog 3.1.1\n", "Newtonsoft.Json 3.1.1 and Serilog 13.0.3\n", "3.1.1"),
    (PACKAGES_CONFIG, "NUnit 3.14.0 and Moq 4.20.70\n", "NUnit 4.20.70 and Moq 3.14.0\n", "4.20.70"),
    (SCOPED_PACKAGE_JSON, "@angular/core 17.0.8, @types/node 20.10.0 and rxjs 7.8.1 in web 1.0.0\n",
     "@angular/core 20.10.0 and @types/node 17.0.8\n", "20.10.0"),
]


@pytest.mark.parametrize("source, honest, lie, value", OTHER_PAIRS)
def test_another_ecosystems_version_bound_to_its_name_is_grounded(source, honest, lie, value):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("source, honest, lie, value", OTHER_PAIRS)
def test_another_ecosystems_version_given_to_another_name_is_refused(source, honest, lie, value):
    verdict = _summarize(source, lie)
    assert not verdict.accepted
    assert any(v.invariant == "I1" and value in (v.value or "") for v in verdict.violations), verdict.summary()


@pytest.mark.parametrize("source, text", [
    # a scoped name is bound whole: node's own version beside @types/node's is no swap
    (SCOPED_PACKAGE_JSON + "\n$ node --version\nv18.17.0\n", "node 18.17.0 with @types/node 20.10.0\n"),
    # a gem's constraint ("(= 7.1.2)", "(~> 2.0)") binds nothing, a platform's tail is passed over
    (GEMFILE_LOCK, "actionpack 7.1.2 via actioncable; nio4r ~> 2.0; bundled with 2.4.10\n"),
    # a Maven parent's artifact is bound to its own version only
    ("<parent><artifactId>spring-boot-starter-parent</artifactId><version>3.2.0</version></parent>\n" + POM_XML,
     "spring-boot-starter-parent 3.2.0, demo 0.0.1\n"),
    # the pom's own artifact is the project's: its version after a dependency's name is its own
    ("<parent><artifactId>spring-boot-starter-parent</artifactId><version>3.2.0</version></parent>\n" + POM_XML,
     "demo uses junit and is at 0.0.1.\n"),
])
def test_another_ecosystems_other_fields_named_honestly_are_accepted(source, text):
    assert_accepted(_summarize(source, text))


def test_other_ecosystems_bind_only_their_forms():
    """A YAML key binds its own mapping's first version key only (not a nested mapping's, not
    past its mapping's end), a gem's constraint binds nothing, a path's inner segment is no scope."""
    def pairs(text: str) -> set[tuple[bytes, bytes]]:
        return {(name, version) for name, version, *_ in gate._manifest_versions(gate._Facts(extract(text)))}

    assert pairs("a:\n  b:\n    version: 1.2.3\n") == {(b"b", b"1.2.3")}
    assert pairs("a:\n  x: 1\nversion: 1.2.3\n") == set()
    assert pairs("  specs:\n    rails (7.1.2)\n      actionpack (= 7.1.2)\n") == {(b"rails", b"7.1.2")}
    assert gate._slashed_name(b"github.com/angular/core", 19, 23) is None
    assert gate._slashed_name(b"use @angular/core", 13, 17) == b"@angular/core"
