"""One run, two outputs: `--report-file FORMAT:PATH` writes the same result in a second format."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import BAD_SKILL, apc
from tests.conftest import write_tree

BROKEN_HISTORY = [
    {"role": "user", "content": "list the files"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
        ],
    },
    {"role": "user", "content": "hello?"},
]


def broken_tree(root: Path) -> Path:
    return write_tree(root, {"AGENTS.md": "# A\n", "skills/x/SKILL.md": BAD_SKILL})


def test_annotations_on_stdout_and_sarif_and_gitlab_files_from_one_run(tmp_path: Path) -> None:
    broken_tree(tmp_path)
    reports = ("sarif:out/apc.sarif", "gitlab:gl.json", "json:report.json")
    args = [arg for value in reports for arg in ("--report-file", value)]
    done = apc("validate", ".", "--format", "github", *args, cwd=tmp_path)
    assert done.returncode == 2  # out/ does not exist: the file cannot be written
    assert "apc: error: --report-file out/apc.sarif" in done.stderr
    (tmp_path / "out").mkdir()
    done = apc("validate", ".", "--format", "github", *args, cwd=tmp_path)
    assert done.returncode == 1
    annotations = [line for line in done.stdout.splitlines() if line.startswith("::")]
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    sarif = json.loads((tmp_path / "out/apc.sarif").read_text(encoding="utf-8"))
    gitlab = json.loads((tmp_path / "gl.json").read_text(encoding="utf-8"))
    results = sarif["runs"][0]["results"]
    assert len(annotations) == len(report["findings"]) == len(results) == len(gitlab) >= 1
    assert [f["fingerprint"] for f in report["findings"]] == [i["fingerprint"] for i in gitlab]
    assert "\x1b[" not in (tmp_path / "out/apc.sarif").read_text(encoding="utf-8")


def test_a_text_report_file_is_never_coloured(tmp_path: Path) -> None:
    broken_tree(tmp_path)
    done = apc(
        "validate", ".", "--report-file", "text:r.txt", cwd=tmp_path, env={"FORCE_COLOR": "1"}
    )
    assert done.returncode == 1 and "\x1b[" in done.stdout
    text = (tmp_path / "r.txt").read_text(encoding="utf-8")
    assert "\x1b[" not in text and "skills/x/SKILL.md:3:1" in text


def test_bad_values_are_usage_errors(tmp_path: Path) -> None:
    broken_tree(tmp_path)
    for value in ("sarif", "xml:a.xml", "sarif:", ":a.sarif"):
        done = apc("validate", ".", "--report-file", value, cwd=tmp_path)
        assert done.returncode == 2, value
        assert "--report-file" in done.stderr and "Traceback" not in done.stderr
    assert not any(tmp_path.glob("*.sarif"))


def test_repair_writes_its_report_file_too(tmp_path: Path) -> None:
    history = tmp_path / "h.jsonl"
    history.write_text("".join(json.dumps(r) + "\n" for r in BROKEN_HISTORY), encoding="utf-8")
    done = apc("repair", str(history), "--check", "--report-file", "json:r.json", cwd=tmp_path)
    assert done.returncode == 1
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    [finding] = report["findings"]
    assert (finding["rule"], finding["line"]) == ("WIR001", 2)
    assert done.stdout.startswith(f"{history}:2: error WIR001")
