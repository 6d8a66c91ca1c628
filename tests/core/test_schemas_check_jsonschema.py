"""The published schemas work without apc: check-jsonschema (PyPI), the way docs/schemas.md
shows it, accepts sample_repo and rejects a broken copy of it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
# The awk line of docs/schemas.md: the YAML between the first two `---` lines.
FRONTMATTER_AWK = r"NR==1 && /^---\r?$/ {f=1; next} f && /^---\r?$/ {exit} f"


def frontmatter(md: Path, out: Path) -> Path:
    done = subprocess.run(["awk", FRONTMATTER_AWK, str(md)], capture_output=True, check=True)
    out.write_bytes(done.stdout)
    return out


def targets(project: Path, work: Path) -> list[tuple[str, Path]]:
    """(schema name, instance file) for every file of the sample's kinds."""
    apc = project / ".apc"
    pairs = [("project", apc / "project.json"), ("mcps", apc / "mcps.json")]
    kinds = {
        "agent": sorted((apc / "agents").glob("*.md")),
        "plan": sorted((apc / "plans").glob("*.md")),
        "rule": sorted((apc / "rules").glob("*.md*")),
        "skill": sorted((apc / "skills").glob("*/SKILL.md")),
    }
    for name, files in kinds.items():
        for i, md in enumerate(files):
            pairs.append((name, frontmatter(md, work / f"{name}-{i}.yaml")))
    return pairs


def check_jsonschema(schema: str, instance: Path) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("check-jsonschema")
    return subprocess.run(
        [str(exe), "--schemafile", str(SCHEMAS / f"{schema}.schema.json"), str(instance)],
        capture_output=True,
        text=True,
    )


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    copy = tmp_path / "sample"
    shutil.copytree(ROOT / "sample_repo", copy)
    return copy


def test_check_jsonschema_accepts_the_sample_project(sample: Path, tmp_path: Path) -> None:
    pairs = targets(sample, tmp_path)
    assert {name for name, _ in pairs} == {"project", "mcps", "agent", "plan", "rule", "skill"}
    for schema, instance in pairs:
        done = check_jsonschema(schema, instance)
        assert done.returncode == 0, (schema, instance.name, done.stdout + done.stderr)


def test_check_jsonschema_rejects_a_broken_copy(sample: Path, tmp_path: Path) -> None:
    apc = sample / ".apc"
    project = json.loads((apc / "project.json").read_text())
    del project["name"]
    (apc / "project.json").write_text(json.dumps(project))
    mcps = json.loads((apc / "mcps.json").read_text())
    first = next(iter(mcps["mcpServers"].values()))
    first["args"] = "not a list"
    (apc / "mcps.json").write_text(json.dumps(mcps))
    agent = apc / "agents" / "reviewer.md"
    agent.write_text(agent.read_text().replace("model:", "is_background: maybe\nmodel:", 1))
    verdicts = {
        (schema, instance.name): check_jsonschema(schema, instance).returncode
        for schema, instance in targets(sample, tmp_path)
    }
    assert verdicts[("project", "project.json")] == 1
    assert verdicts[("mcps", "mcps.json")] == 1
    broken_agent = [k for k, v in verdicts.items() if k[0] == "agent" and v == 1]
    assert len(broken_agent) == 1
    assert all(v == 0 for k, v in verdicts.items() if k[0] in {"plan", "rule", "skill"})
