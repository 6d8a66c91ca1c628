"""Ready to publish (issue 17): the sdist holds what its tests need, the metadata a package index
shows is complete, and the long description (the README) has no link that breaks there.

The sdist is built with `python -m build --sdist` (an isolated build environment with the
build requirement of pyproject.toml, from the package index) from a copy of the files git
tracks, as a clean clone would build it. `.ci/run` runs the tests from the unpacked sdist and
`twine check --strict` on what it builds.
"""

from __future__ import annotations

import email.parser
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from apc_tools import __version__
from tests.conftest import REPO_ROOT, checkout_files

NOT_IN_SDIST = (".ci/",)
"""What the sdist leaves out: CI's own script, never needed by the tests."""


def tracked_files() -> list[str]:
    """The files of the checkout: tracked, and untracked ones git does not ignore (what the
    next commit would hold, as the hook tests' snapshot)."""
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("needs a git checkout of apc-tools (the files git tracks)")
    return checkout_files(REPO_ROOT)


def build(kind: str, tmp: Path) -> Path:
    """``python -m build --<kind>`` (sdist, wheel) of a copy of the checkout's files in
    ``tmp``; the folder of what it built."""
    src = tmp / "src"
    for rel in tracked_files():
        source = REPO_ROOT / rel
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the work tree, still in the index
        target = src / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
    done = subprocess.run(
        [sys.executable, "-m", "build", f"--{kind}", "-o", str(tmp / "dist"), str(src)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return tmp / "dist"


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> tarfile.TarFile:
    [built] = build("sdist", tmp_path_factory.mktemp("sdist")).glob("apc_tools-*.tar.gz")
    assert built.name == f"apc_tools-{__version__}.tar.gz"
    return tarfile.open(built)


def members(archive: tarfile.TarFile) -> dict[str, tarfile.TarInfo]:
    top = f"apc_tools-{__version__}/"
    return {m.name.removeprefix(top): m for m in archive.getmembers() if m.name.startswith(top)}


def test_the_sdist_holds_every_tracked_file_but_ci_scripts(sdist: tarfile.TarFile) -> None:
    inside = members(sdist)
    wanted = {rel for rel in tracked_files() if not rel.startswith(NOT_IN_SDIST)}
    assert wanted - inside.keys() == set()
    for needed in (
        "tests/conftest.py",
        "docs/rules.md",
        "sample_repo/AGENTS.md",
        "LICENSE",
        ".github/workflows/release.yml",  # tests/test_release_workflow.py reads it
    ):
        assert needed in inside, needed


def test_the_sdist_holds_regular_files_only(sdist: tarfile.TarFile) -> None:
    """No symlink (a link in the tree became a copy of its target, /etc/hostname of the build
    machine for one test case) and no caches."""
    inside = members(sdist)
    assert [n for n, m in inside.items() if not (m.isfile() or m.isdir())] == []
    assert not [n for n in inside if "__pycache__" in n or n.endswith(".pyc")]
    assert not [n for n in inside if n.startswith((".venv/", "build/", "dist/", ".hypothesis/"))]


def test_metadata_a_package_index_shows(sdist: tarfile.TarFile) -> None:
    handle = sdist.extractfile(f"apc_tools-{__version__}/PKG-INFO")
    assert handle is not None
    meta = email.parser.BytesParser().parse(handle)
    assert Version(meta["Metadata-Version"]) >= Version("2.4")  # License-Expression
    assert meta["License-Expression"] == "MIT" and meta.get_all("License-File") == ["LICENSE"]
    assert meta["Description-Content-Type"] == "text/markdown"
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert set(urls) >= {"Repository", "Documentation", "Issues", "Changelog"}
    assert all(u.startswith("https://github.com/apc-tools/apc-tools") for u in urls.values())
    classifiers = meta.get_all("Classifier")
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert not any(c.startswith("License ::") for c in classifiers)  # PEP 639: the expression
    assert "pre-commit" in meta["Keywords"].split(",")


def test_the_build_requirement_accepts_the_license_expression() -> None:
    """`license = "MIT"` (an SPDX expression) needs setuptools 77; 68-76 refuse the build."""
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert isinstance(config["project"]["license"], str)
    [setuptools] = [Requirement(r) for r in config["build-system"]["requires"]]
    assert setuptools.name == "setuptools"
    assert not setuptools.specifier.contains("76.1.0") and setuptools.specifier.contains("77.0.3")


README_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)")
BLOB = "https://github.com/apc-tools/apc-tools/blob/main/"


def test_the_long_description_links_are_absolute_and_name_real_files() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    links = README_LINK.findall(readme) + re.findall(r"^\[[^\]]+\]:\s*(\S+)", readme, re.M)
    assert links, "the README names its docs"
    assert [link for link in links if not link.startswith("https://")] == []
    for link in links:
        if link.startswith(BLOB):
            assert (REPO_ROOT / link.removeprefix(BLOB)).is_file(), link
    named = {p.name for p in (REPO_ROOT / "docs").glob("*.md")}
    linked = {link.removeprefix(BLOB + "docs/") for link in links if "/docs/" in link}
    assert named - linked == set()  # every doc is reachable from the package index page


def test_the_changelog_has_the_version() -> None:
    changelog = (REPO_ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(__version__)}\]", changelog, re.M)
    assert "## [Unreleased]" in changelog
