"""The real corpus: every file of shared/corpus/transcripts/, committed into a test repository,
is found at the severity of its kind (docs/boundary.md has the table), both at its original
path and renamed; the clean parts of shared/corpus/ give no error."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from apc_tools.findings import Severity
from tests.boundary.helpers import findings, init
from tests.conftest import CORPUS, TRANSCRIPTS, git, needs_shared

# Corpus folder -> the rule and severity its files get (docs/boundary.md, "Severity per kind").
KIND = {
    "claude-code-jsonl": ("BTR001", Severity.ERROR),
    "codex-rollout-jsonl": ("BTR001", Severity.ERROR),
    "gemini-cli-session": ("BTR001", Severity.ERROR),
    "aider-chat-history": ("BTR001", Severity.ERROR),
    "cline-task": ("BTR001", Severity.ERROR),
    "specstory-history": ("BTR001", Severity.ERROR),
    "copilot-cli-events": ("BTR001", Severity.ERROR),
    "opencode-storage": ("BTR001", Severity.ERROR),
    "other-agent-sessions": ("BTR001", Severity.ERROR),
    "openai-chat-completions": ("BTR002", Severity.WARNING),
    "anthropic-messages": ("BTR002", Severity.WARNING),
    "openai-responses": ("BTR002", Severity.WARNING),
    "gemini-contents": ("BTR002", Severity.WARNING),
    "bedrock-converse": ("BTR002", Severity.WARNING),
}
# Files that only their path identifies (BPA002 at the original path, nothing once renamed),
# and the one file that is not runtime state at all: the .gitignore SpecStory writes.
PATH_ONLY = {"specstoryai__getspecstory__lore__fixtures__projA__.specstory__.project.json"}
NOT_STATE = {"specstoryai__getspecstory__.specstory__.gitignore"}
ROW = re.compile(r"^\| `(?P<file>[^`]+)` \| [^|]+ \| `[0-9a-f]+` \| `(?P<orig>[^`]+)` \|", re.M)


def corpus_files() -> list[tuple[str, str, str]]:
    """(kind folder, corpus file name, original path) for every data file."""
    table = {m["file"]: m["orig"] for m in ROW.finditer((TRANSCRIPTS / "SOURCES.md").read_text())}
    out = []
    for folder in sorted(p for p in TRANSCRIPTS.iterdir() if p.name in KIND):
        for item in sorted(folder.iterdir()):
            out.append((folder.name, item.name, table[f"{folder.name}/{item.name}"]))
    return out


def commit_all(root: Path) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "corpus")


def test_every_transcript_renamed_is_found_by_content(tmp_path: Path) -> None:
    needs_shared(TRANSCRIPTS)
    root = init(tmp_path / "renamed")
    files = corpus_files()
    assert len(files) == 101
    for kind, name, _ in files:
        (root / kind).mkdir(exist_ok=True)
        shutil.copyfile(TRANSCRIPTS / kind / name, root / kind / name)
    commit_all(root)
    found = findings(root)
    for kind, name, _ in files:
        got = {(f.rule, f.severity) for f in found if f.path == f"{kind}/{name}"}
        rule = {r for r, _ in got if r.startswith("BTR")}
        if name in PATH_ONLY | NOT_STATE:
            assert not rule, name
            continue
        assert KIND[kind] in got, (name, got)
        assert not any(s is Severity.ERROR for _, s in got) or KIND[kind][1] is Severity.ERROR


def test_every_transcript_at_its_original_path(tmp_path: Path) -> None:
    needs_shared(TRANSCRIPTS)
    for index, (kind, name, original) in enumerate(corpus_files()):
        root = init(tmp_path / f"r{index}")
        target = root / original
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(TRANSCRIPTS / kind / name, target)
        commit_all(root)
        got = {(f.rule, f.severity) for f in findings(root) if f.path == original}
        if name in NOT_STATE:
            assert not got, (name, got)
        elif name in PATH_ONLY:
            assert ("BPA002", Severity.ERROR) in got, (name, got)
        else:
            rule, severity = KIND[kind]
            by_path = ("BPA002", Severity.ERROR) in got
            assert (rule, severity) in got or (by_path and severity is Severity.ERROR), (
                name,
                got,
            )


# The clean corpus holds one real leak: a contributor committed their
# .claude/settings.local.json (Claude Code's personal permissions file).
KNOWN_LEAKS = {("BPA002", "VoltAgent__awesome-claude-code-subagents/.claude/settings.local.json")}


def test_clean_corpus_has_no_error(tmp_path: Path) -> None:
    needs_shared(CORPUS)
    root = init(tmp_path / "clean")
    for item in CORPUS.iterdir():
        if item.name == "transcripts":
            continue
        target = root / item.name
        if item.is_dir():
            shutil.copytree(item, target)
        else:
            shutil.copyfile(item, target)
    commit_all(root)
    found = findings(root)
    errors = {(f.rule, f.path) for f in found if f.severity is Severity.ERROR}
    assert errors == KNOWN_LEAKS
    assert len({f.path for f in found}) < 10
