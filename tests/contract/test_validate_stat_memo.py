"""The stat memo of `apc validate`'s whole-run lookup (contract/warm.py): a contract file whose
stat signature (mode, size, mtime, ctime, inode, device) is the recorded one is not read, its
recorded content hash stands for it; any other is read and hashed. Never recorded: a file
changed in the last ``RACY_NS`` before the run began listing (racy git), a link, an unreadable
file. Every edit below is detected and answered as the reference run answers it.

Real git repositories and files, real SQLite caches (one ``XDG_CACHE_HOME`` per test). The
margin is shortened to 50 ms (and the tests wait past it) so that files are trusted at all.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apc_tools.contract import listing, warm
from apc_tools.contract.project import owner
from apc_tools.core.cache import Cache
from apc_tools.core.selection import Selection
from apc_tools.report.json_out import dumps_indented
from tests.contract.test_validate_whole_run import (
    _fresh_and_right,
    _git,
    _hit,
    _reference,
    _repo,
    _run,
)

MARGIN = 50_000_000


@pytest.fixture
def trusting(monkeypatch: pytest.MonkeyPatch, xdg: Path) -> None:
    monkeypatch.setattr(warm, "RACY_NS", MARGIN)


def _settle() -> None:
    time.sleep(2 * MARGIN / 1e9)


def _gathered(root: Path) -> listing.Gathered:
    with Cache.open(warm.NAMESPACE) as opened:
        layout = listing.layout_of([root], root, report=root)
        made = warm.gather(layout, selection=Selection((), ()), store=opened)
    assert made is not None
    return made[1]


def _trusted_then_fresh(root: Path) -> None:
    """Settle, run (records the memo), check the next gathering reads nothing, then the edits
    the caller makes are checked by _fresh_and_right."""
    _settle()
    _run([root], root)
    _run([root], root)
    got = _gathered(root)
    assert got.data == {}  # nothing read: every contract file vouched for by its signature
    assert len(got.trusted) == len(got.kinds[os.fspath(root)])


def test_an_unchanged_tree_reads_no_contract_file(tmp_path: Path, trusting: None) -> None:
    root = _repo(tmp_path / "repo")
    _trusted_then_fresh(root)
    assert _hit([root], root)
    assert _run([root], root) == _reference([root], root)


def test_an_edit_keeping_size_and_mtime_is_detected(tmp_path: Path, trusting: None) -> None:
    root = _repo(tmp_path / "repo")
    _trusted_then_fresh(root)
    skill = root / ".claude/skills/pdf/SKILL.md"
    before = os.stat(skill)
    text = skill.read_text("utf-8")
    skill.write_text(text.replace("name: pdf", "name: PDF"), "utf-8")  # same size
    os.utime(skill, ns=(before.st_atime_ns, before.st_mtime_ns))  # the old mtime back
    after = os.stat(skill)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert after.st_ctime_ns != before.st_ctime_ns
    assert (os.fspath(root), ".claude/skills/pdf/SKILL.md") in _gathered(root).data
    edited = _fresh_and_right(root)
    assert "SKL" in edited


def test_a_racy_edit_right_after_a_run_is_detected(
    tmp_path: Path, xdg: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real margin: a file written just before the run is never recorded, so an edit in
    the same clock tick (same size, mtime put back) is read next time."""
    root = _repo(tmp_path / "repo")
    skill = root / ".claude/skills/pdf/SKILL.md"
    first = _run([root], root)
    got = _gathered(root)
    assert got.memos[os.fspath(root)]["e"] == {}  # everything is too new to be recorded
    before = os.stat(skill)
    skill.write_text(skill.read_text("utf-8").replace("name: pdf", "name: PDF"), "utf-8")
    os.utime(skill, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert _run([root], root) == _reference([root], root) != first


def test_content_add_delete_rename_and_policy(tmp_path: Path, trusting: None) -> None:
    root = _repo(tmp_path / "repo")
    _trusted_then_fresh(root)
    rule = root / ".cursor/rules/python.mdc"
    rule.write_text(rule.read_text("utf-8").replace("Use type hints.", ""), "utf-8")
    _fresh_and_right(root)
    _trusted_then_fresh(root)
    (root / ".claude/agents").mkdir(parents=True)
    (root / ".claude/agents/rev.md").write_text("---\nname: rev\n---\nReview.\n", "utf-8")
    _fresh_and_right(root)
    _trusted_then_fresh(root)
    (root / ".claude/agents/rev.md").rename(root / ".claude/agents/review.md")
    _fresh_and_right(root)
    _trusted_then_fresh(root)
    (root / ".claude/agents/review.md").unlink()  # back to the first tree: its result answers
    assert _hit([root], root)
    assert _run([root], root) == _reference([root], root)
    (root / "docs/guide.md").unlink()
    _git(root, "add", "-A")
    _fresh_and_right(root)
    _trusted_then_fresh(root)
    (root / ".apc-tools.yaml").write_text("version: 1\nseverity:\n  AGM003: info\n", "utf-8")
    _fresh_and_right(root)


def test_a_symlink_retargeted_is_read_again(tmp_path: Path, trusting: None) -> None:
    root = _repo(tmp_path / "repo")
    (root / "docs/a.md").write_text("---\nname: a\ndescription: first\n---\nA.\n", "utf-8")
    (root / "docs/b.md").write_text("---\nname: b\ndescription: other\n---\nB.\n", "utf-8")
    (root / ".claude/agents").mkdir(parents=True)
    link = root / ".claude/agents/a.md"
    link.symlink_to("../../docs/a.md")
    _trusted_then_fresh_links(root)
    link.unlink()
    link.symlink_to("../../docs/b.md")
    _fresh_and_right(root)


def _trusted_then_fresh_links(root: Path) -> None:
    _settle()
    _run([root], root)
    got = _gathered(root)
    assert (os.fspath(root), ".claude/agents/a.md") in got.data  # a link is always read
    assert ".claude/agents/a.md" not in got.memos[os.fspath(root)]["e"]


def test_a_marketplace_text_change_changes_the_kinds(tmp_path: Path, trusting: None) -> None:
    root = _repo(tmp_path / "repo")
    market = root / ".claude-plugin/marketplace.json"
    market.parent.mkdir()
    market.write_text(json.dumps({"plugins": [{"source": "./one"}]}), "utf-8")
    for name in ("one", "two"):
        (root / name / "agents").mkdir(parents=True)
        (root / name / "agents/x.md").write_text("---\nname: x\n---\nX.\n", "utf-8")
    _trusted_then_fresh(root)
    assert _gathered(root).memos[os.fspath(root)].get("k") is not None  # kinds kept too
    kinds = _gathered(root).kinds[os.fspath(root)]
    assert "one/agents/x.md" in kinds and "two/agents/x.md" not in kinds
    market.write_text(json.dumps({"plugins": [{"source": "./two"}]}), "utf-8")
    _fresh_and_right(root)
    kinds = _gathered(root).kinds[os.fspath(root)]
    assert "two/agents/x.md" in kinds and "one/agents/x.md" not in kinds


def test_a_gemini_settings_or_manifest_change_changes_the_kinds(
    tmp_path: Path, trusting: None
) -> None:
    """`.gemini/settings.json` (context.fileName) and `gemini-extension.json` (contextFileName)
    decide which files are context files: an edit of either is seen by a warm run."""
    root = _repo(tmp_path / "repo")
    settings = root / ".gemini/settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"context": {"fileName": ["ONE.md"]}}), "utf-8")
    (root / "ext").mkdir()
    manifest = root / "ext/gemini-extension.json"
    manifest.write_text(json.dumps({"name": "e", "version": "1", "contextFileName": "A.md"}))
    for rel in ("ONE.md", "TWO.md", "ext/A.md", "ext/B.md"):
        (root / rel).write_text("# Context\n\n@missing.md\n", "utf-8")
    _trusted_then_fresh(root)
    kinds = _gathered(root).kinds[os.fspath(root)]
    assert {r for r, k in kinds.items() if k == "gemini-md"} == {"ONE.md", "ext/A.md"}
    settings.write_text(json.dumps({"context": {"fileName": "TWO.md"}}), "utf-8")
    manifest.write_text(json.dumps({"name": "e", "version": "1", "contextFileName": "B.md"}))
    _fresh_and_right(root)
    kinds = _gathered(root).kinds[os.fspath(root)]
    assert {r for r, k in kinds.items() if k == "gemini-md"} == {"TWO.md", "ext/B.md"}


def test_a_damaged_memo_is_ignored(tmp_path: Path, trusting: None) -> None:
    root = _repo(tmp_path / "repo")
    _trusted_then_fresh(root)
    with Cache.open(warm.NAMESPACE) as opened:
        opened.put_many({warm._memo_key(os.fspath(root)): b'{"e": {"AGENTS.md": [1]}, "k": 3}'})
    assert _run([root], root) == _reference([root], root)
    assert _hit([root], root)


@given(
    st.lists(
        st.lists(st.sampled_from(["a", "b", "ab", ".apc", "x.md", "a0", "a-"]), min_size=1),
        unique_by=tuple,
    )
)
def test_files_are_grouped_by_their_deepest_project(parts: list[list[str]]) -> None:
    from apc_tools.contract.project import project_roots

    files = sorted({"/".join(p) for p in parts})
    roots = project_roots(files)
    expected: dict[str, list[str]] = {r: [] for r in roots}
    for rel in files:
        expected[owner(rel, set(roots))].append(rel)
    assert listing._grouped(files, roots) == expected


json_values: st.SearchStrategy[object] = st.deferred(
    lambda: (
        st.none()
        | st.booleans()
        | st.integers()
        | st.text()
        | st.lists(json_values, max_size=4)
        | st.dictionaries(st.text(), json_values, max_size=4)
    )
)


@given(json_values)
def test_the_json_report_text_is_json_dumps_indent_2(value: object) -> None:
    assert dumps_indented(value) == json.dumps(value, indent=2)


def test_the_code_digest_lists_every_source_and_follows_an_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """core.cache._code: every ``.py`` of the package, by content: a copy elsewhere (other
    paths, inodes, times) has the same digest; an edit changes it even with its mtime put
    back; a wheel's RECORD stands for a file only while the file is unchanged since."""
    from apc_tools import __version__
    from apc_tools.core import cache

    package = Path(cache.__file__).resolve().parent.parent
    assert cache._sources(str(package)) == sorted(
        p.relative_to(package).as_posix() for p in package.rglob("*.py")
    )
    copies = [tmp_path / name / "apc_tools" for name in ("one", "two")]
    for copy in copies:
        for rel in cache._sources(str(package)):
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            (copy / rel).write_bytes((package / rel).read_bytes())

    def digest(copy: Path) -> bytes:
        monkeypatch.setattr(cache, "__file__", str(copy / "core" / "cache.py"))
        monkeypatch.setattr(cache, "_code_digest", None)
        return cache._code()

    one, two = copies
    old = digest(one)
    _settle()
    assert digest(one) == old == digest(two)
    target = one / "findings.py"
    before = os.stat(target)
    target.write_bytes(target.read_bytes().replace(b"error", b"errox", 1))
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert digest(one) != old
    # a RECORD (as pip writes it last) that holds another digest for findings.py: believed
    # for a file older than it, not for one edited after it
    record = two.parent / f"apc_tools-{__version__}.dist-info" / "RECORD"
    record.parent.mkdir()
    size = (two / "findings.py").stat().st_size
    record.write_text(f"apc_tools/findings.py,sha256={'A' * 43},{size}\n")
    assert digest(two) != old  # (what RECORD says stands for the file's bytes)
    _settle()
    (two / "findings.py").write_bytes((two / "findings.py").read_bytes())  # edited after
    assert digest(two) == old


def test_git_is_asked_unless_no_repository_can_hold_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """project.maybe_in_git: False only where git itself finds no work tree."""
    from apc_tools.contract.project import maybe_in_git
    from apc_tools.core import git

    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_IMPLICIT_WORK_TREE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GIT_SSL_CAINFO", "/nonexistent")  # no bearing on discovery
    plain = tmp_path / "plain" / "deep"
    plain.mkdir(parents=True)
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    _git(repo, "init", "-q")
    link = tmp_path / "plain" / "into-repo"
    link.symlink_to(repo / "sub")
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    for folder in (plain, repo / "sub", link, bare, tmp_path / "absent"):
        if not maybe_in_git(folder):
            assert git.toplevel(folder) is None, folder
    if git.toplevel(tmp_path) is None:  # the test folder itself is in no repository
        assert not maybe_in_git(plain)
    assert maybe_in_git(repo / "sub") and maybe_in_git(link) and maybe_in_git(bare)
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    assert maybe_in_git(plain)
    assert git.toplevel(plain) is not None  # what the variable does: why git is asked
