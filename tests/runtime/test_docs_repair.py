"""docs/repair.md: the runnable example for a runtime that repairs before every request runs."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import REPO_ROOT

MARK = "<!-- runnable example: tests/runtime/test_docs_repair.py -->"


def runnable_example() -> str:
    text = (REPO_ROOT / "docs" / "repair.md").read_text(encoding="utf-8")
    assert text.count(MARK) == 1, "docs/repair.md must hold exactly one marked example"
    match = re.search(re.escape(MARK) + r"\n```python\n(.*?)\n```\n", text, re.S)
    assert match, "the marker must be followed by a ```python block"
    return match.group(1)


def test_the_documented_example_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-c", runnable_example()],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("record 2: closed-call: ")
    assert "RPR001" in lines[-1] and "session.jsonl:2" in lines[-1]
