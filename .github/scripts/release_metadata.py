"""The release's metadata names the repository it is released from, and its long description
(the README, shown on PyPI) no longer says that nothing is published.

Run by .github/workflows/release.yml on a tag push, before anything is built:
``python .github/scripts/release_metadata.py`` with GitHub's ``GITHUB_SERVER_URL`` and
``GITHUB_REPOSITORY``. Every ``[project.urls]`` entry of pyproject.toml must be under
``$GITHUB_SERVER_URL/$GITHUB_REPOSITORY`` (a release from a fork or a renamed repository would
otherwise publish links to a repository that is not its own), and the README must carry none of
the sentences of the pre-release state (docs/releasing.md, "Each release", step 2). Exit 1 with
one line per problem; 0 when the release may go on. Standard library only.
"""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

# sentences only the pre-release README says (the published form replaces them)
UNRELEASED = ("not published yet", "this tag does not exist", "the published form, for later")


def problems(root: Path, server: str, repository: str) -> list[str]:
    found: list[str] = []
    home = f"{server.rstrip('/')}/{repository}"
    meta = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    urls = meta.get("project", {}).get("urls", {})
    if not urls:
        found.append("pyproject.toml has no [project.urls]")
    for name, url in sorted(urls.items()):
        if url != home and not url.startswith(home + "/"):
            found.append(
                f"[project.urls] {name} = {url} is not under {home}, the repository released from"
            )
    readme = (root / "README.md").read_text(encoding="utf-8")
    for number, line in enumerate(readme.splitlines(), 1):
        for phrase in UNRELEASED:
            if phrase in line.lower():
                found.append(
                    f"README.md:{number}: still says {phrase!r}: switch it to the published form "
                    "(docs/releasing.md)"
                )
    return found


def main() -> int:
    server = os.environ.get("GITHUB_SERVER_URL", "")
    repository = os.environ.get("GITHUB_REPOSITORY", "")
    if not server or not repository:
        print("GITHUB_SERVER_URL and GITHUB_REPOSITORY must be set (GitHub Actions sets both)")
        return 1
    found = problems(Path(__file__).resolve().parents[2], server, repository)
    for line in found:
        print(f"::error::{line}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
