"""The release workflow (.github/workflows/release.yml, issue 17): a valid GitHub Actions
workflow (check-jsonschema's vendored schema of workflows, no network) that builds, checks and
tests on every run, and publishes with trusted publishing only from a `v*` tag push, and whose
steps docs/releasing.md describes."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from ruamel.yaml import YAML

from tests.conftest import REPO_ROOT

WORKFLOW = REPO_ROOT / ".github" / "workflows" / "release.yml"


def load() -> dict:  # type: ignore[type-arg]
    return YAML(typ="safe").load(WORKFLOW.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_it_is_a_valid_workflow() -> None:
    checker = Path(sys.executable).parent / "check-jsonschema"
    done = subprocess.run(
        [str(checker), "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_build_checks_and_tests_before_anything_is_published() -> None:
    flow = load()
    assert flow["on"]["push"] == {"tags": ["v*"]} and "workflow_dispatch" in flow["on"]
    assert flow["permissions"] == {"contents": "read"}
    build = flow["jobs"]["build"]
    script = "\n".join(step.get("run", "") for step in build["steps"])
    for command in ("python -m build", "twine check --strict dist/*", "python -m pytest"):
        assert command in script, command
    assert "tar -xzf dist/*.tar.gz" in script  # the tests run from the unpacked sdist
    assert "tag $GITHUB_REF_NAME does not match apc_tools.__version__" in script
    assert "id-token" not in str(build)


def test_only_a_tag_push_publishes_with_trusted_publishing() -> None:
    publish = load()["jobs"]["publish"]
    assert publish["needs"] == "build"
    assert publish["if"] == "github.event_name == 'push' && startsWith(github.ref, 'refs/tags/v')"
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    [uploader] = [s for s in publish["steps"] if s.get("uses", "").startswith("pypa/")]
    assert uploader["uses"] == "pypa/gh-action-pypi-publish@release/v1"
    assert "with" not in uploader  # no password, no token: PyPI trusts the workflow


def test_the_docs_describe_it() -> None:
    docs = (REPO_ROOT / "docs" / "releasing.md").read_text(encoding="utf-8")
    for needed in (
        ".github/workflows/release.yml",
        "trusted publisher",
        "environment `pypi`",
        "twine check --strict",
        "git tag v",
    ):
        assert needed in docs, needed


def _release_check(root: Path, repository: str) -> subprocess.CompletedProcess[str]:
    script = root / ".github" / "scripts" / "release_metadata.py"
    env = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": repository}
    return subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60
    )


def test_a_release_checks_its_urls_and_that_the_readme_is_the_published_one(
    tmp_path: Path,
) -> None:
    """Issue 32 item 5: the metadata must be right for the first release. A tag push runs
    release_metadata.py before the build: the README that still says "not published yet" fails
    it, as do URLs under another repository; the published README passes."""
    steps = load()["jobs"]["build"]["steps"]
    [check] = [s for s in steps if "release_metadata.py" in s.get("run", "")]
    assert check["if"] == "startsWith(github.ref, 'refs/tags/')"
    root = tmp_path / "repo"
    (root / ".github" / "scripts").mkdir(parents=True)
    script = REPO_ROOT / ".github" / "scripts" / "release_metadata.py"
    (root / ".github" / "scripts" / "release_metadata.py").write_bytes(script.read_bytes())
    (root / "pyproject.toml").write_bytes((REPO_ROOT / "pyproject.toml").read_bytes())
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    (root / "README.md").write_text(readme, encoding="utf-8")
    urls = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]
    repository = urls["Repository"].removeprefix("https://github.com/")
    today = _release_check(root, repository)
    assert today.returncode == 1 and "not published yet" in today.stdout, today.stdout
    published = "\n".join(
        line
        for line in readme.splitlines()
        if "published" not in line and "tag does not" not in line
    )
    (root / "README.md").write_text(published, encoding="utf-8")
    assert _release_check(root, repository).returncode == 0
    fork = _release_check(root, "someone/fork-of-apc")
    assert fork.returncode == 1
    assert f"Repository = {urls['Repository']} is not under" in fork.stdout, fork.stdout
