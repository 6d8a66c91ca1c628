"""JSON Schema validation where ``jsonschema_rs`` does not install (no wheel for the machine):
jsonschema validates, with the same findings as the default install.

``jsonschema_rs`` is a default dependency (pyproject.toml, with an environment marker where no
wheel exists). Here one process runs with it and one where importing it fails (a module of that
name on ``PYTHONPATH`` that raises ImportError): the schema errors and warnings of the schema
tests' documents, of the corpus's front matter and JSON documents and of hypothesis-made
documents near each schema, and ``apc validate`` on the rule cases and the corpus, must be
identical.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CORPUS, REPO_ROOT

BLOCKED = "raise ImportError('jsonschema_rs is not installed here (the jsonschema fallback)')\n"

# Prints every schema error and warning of the documents, one line each; run in both processes.
FINDINGS = """
import sys
from pathlib import Path
from hypothesis import given, settings, HealthCheck
from apc_tools.core import schemas
from tests.core import test_schemas as t

print("compiled:", schemas._compiled("agent") is not None)
documents = [(name, doc) for name, doc in t.VALID] + [(name, doc) for name, doc, _ in t.INVALID]
corpus = Path(sys.argv[1])
for _, data in t.corpus_documents(corpus) if corpus.is_dir() else ():
    documents += [(name, data) for name in t.OURS]
for name in t.OURS:
    root = schemas._frozen_schema(name)
    made = []

    @settings(max_examples=60, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(instance=t.instances_for(root, root) | t.JSON_VALUES)
    def collect(instance):
        made.append(instance)

    collect()
    documents += [(name, doc) for doc in made]
for name, doc in documents:
    errors = schemas.schema_errors(name, doc)
    print(name, repr(errors), repr(schemas.schema_warnings(name, doc, errors)))
print("documents:", len(documents))
"""


@pytest.fixture(scope="module")
def blocked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("blocked")
    (folder / "jsonschema_rs").mkdir()
    (folder / "jsonschema_rs" / "__init__.py").write_text(BLOCKED)
    return folder


def run(args: list[str], cwd: Path, blocked: Path | None) -> subprocess.CompletedProcess[str]:
    path = [str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]
    if blocked is not None:
        path.insert(0, str(blocked))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def test_the_same_schema_findings_without_jsonschema_rs(blocked: Path) -> None:
    args = ["-c", FINDINGS, str(CORPUS)]
    fast = run(args, REPO_ROOT, blocked=None)
    pure = run(args, REPO_ROOT, blocked=blocked)
    assert fast.returncode == pure.returncode == 0, fast.stderr[-2000:] + pure.stderr[-2000:]
    assert fast.stdout.splitlines()[0] == "compiled: True"
    assert pure.stdout.splitlines()[0] == "compiled: False"
    assert pure.stdout.splitlines()[1:] == fast.stdout.splitlines()[1:]
    assert int(fast.stdout.rsplit("documents: ", 1)[1]) > 400
    assert "SchemaError(" in fast.stdout  # failures were explained, not only valid documents


@pytest.mark.parametrize("tree", ["cases", "corpus"])
def test_apc_validate_gives_the_same_report_without_jsonschema_rs(
    tree: str, blocked: Path, tmp_path: Path
) -> None:
    if tree == "corpus":
        if not CORPUS.is_dir():
            pytest.skip(f"the corpus is not at {CORPUS}")
        source = CORPUS
    else:
        source = REPO_ROOT / "tests" / "cases"
    work = tmp_path / tree  # outside any git work tree, as tests/test_cases.py copies a case
    shutil.copytree(source, work, symlinks=True)
    args = ["-m", "apc_tools", "validate", "--no-cache", "--format", "json", "."]
    fast = run(args, work, blocked=None)
    pure = run(args, work, blocked=blocked)
    assert fast.returncode == pure.returncode, fast.stderr[-2000:] + pure.stderr[-2000:]
    assert '"rule"' in fast.stdout, fast.stderr[-2000:]
    assert pure.stdout == fast.stdout
