"""The subtree (Merkle) verdict cache of ``--tracked`` (boundary/subtrees.py): a warm run
answers HEAD's root tree whole (no listing, no object read); after a change only the changed
trees and blobs are read; every answer is the one a cold run and ``--no-cache`` give; each input
of the key (settings, path prefix) misses when changed; a committed tool home folder (the one
rule that reads across paths, case-folded) is never answered at tree level.

Real repositories, real SQLite files, git's own trace; each test has its own ``XDG_CACHE_HOME``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from apc_tools.boundary import Options, blobs, scan, subtrees, verdicts
from apc_tools.boundary.policy import Settings
from apc_tools.core import cache as store
from apc_tools.core import git as gitio
from apc_tools.core.cache import Cache
from apc_tools.core.selection import Selection
from apc_tools.findings import CannotRun
from apc_tools.report.json_out import render_json
from tests.boundary.cases import case_repo
from tests.boundary.helpers import commit, init, remove, token
from tests.boundary.test_cache_verdicts import BOUNDARY_CASES
from tests.boundary.test_corpus import corpus_files
from tests.conftest import TRANSCRIPTS, git, needs_shared

ROOT = Path(__file__).resolve().parents[2]
MARKER = "[Request interrupted by user]"


@pytest.fixture
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    monkeypatch.delenv(store.NO_CACHE_ENV, raising=False)
    return folder


@pytest.fixture(params=["descend", "whole"])
def how(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways of listing a changed tree: level by level, and one whole ``ls-tree``."""
    if request.param == "whole":
        monkeypatch.setattr(subtrees, "MAX_DESCENT", 0)
    else:
        monkeypatch.setattr(subtrees, "MAX_DESCENT", 1 << 30)
        monkeypatch.setattr(subtrees, "FEW", 1 << 30)
    return str(request.param)


class Spy:
    """What a scan asked of git: the commands (GIT_TRACE), the trees read one by one and the
    blobs read (recorded on their way to the real git)."""

    def __init__(self, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.tmp = tmp
        self.monkeypatch = monkeypatch
        self.count = 0
        self.commands: list[str] = []
        self.trees: list[str] = []
        self.blobs: list[str] = []
        real_trees = subtrees.read_trees
        real_read = blobs.LazyReader.read_many

        def read_trees(reader: gitio.TreeReader, oids: Sequence[str]) -> Any:
            self._trees += oids
            return real_trees(reader, oids)

        def read_many(reader: Any, oids: Sequence[str], *args: Any) -> Any:
            self._blobs += list(oids)
            return real_read(reader, oids, *args)

        self._trees: list[str] = []
        self._blobs: list[str] = []

        monkeypatch.setattr(subtrees, "read_trees", read_trees)
        monkeypatch.setattr(blobs.LazyReader, "read_many", read_many)

    def __call__(self, root: Path, **options: Any) -> str:
        self.count += 1
        self._trees, self._blobs = [], []
        trace = self.tmp / f"trace-{self.count}"
        self.monkeypatch.setenv("GIT_TRACE", str(trace))
        try:
            return render_json(scan(Options(cwd=root, **options)).result)
        except CannotRun as exc:
            return f"cannot run: {exc}"
        finally:
            self.monkeypatch.delenv("GIT_TRACE")
            self.trees, self.blobs = list(self._trees), list(self._blobs)  # this scan only
            text = trace.read_text(errors="replace") if trace.exists() else ""
            self.commands = [
                line.split("trace: ", 1)[1]
                for line in text.splitlines()
                if "trace: built-in: git" in line
            ]

    def ran(self, command: str) -> bool:
        return any(f"git {command}" in line for line in self.commands)


@pytest.fixture
def spy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Spy:
    folder = tmp_path / "traces"
    folder.mkdir()
    return Spy(folder, monkeypatch)


def cold(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **options: Any) -> str:
    """A run from an empty cache (its own folder) of the same tree."""
    folder = tmp_path / f"cold-{len(list(tmp_path.glob('cold-*')))}"
    before = os.environ["XDG_CACHE_HOME"]
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    try:
        return render_json(scan(Options(cwd=root, **options)).result)
    finally:
        monkeypatch.setenv("XDG_CACHE_HOME", before)


def uncached(root: Path, **options: Any) -> str:
    return render_json(scan(Options(cwd=root, cache=False, **options)).result)


def rows() -> int:
    with Cache.open(subtrees.TREES) as cache:
        return cache.count()


def tree_id(root: Path, path: str = "") -> str:
    return git(root, "rev-parse", f"HEAD:{path}").strip()


def blob_id(root: Path, path: str) -> str:
    return git(root, "rev-parse", f"HEAD:{path}").strip()


def project(root: Path) -> Path:
    """A small tree with findings in several folders (none a tool home folder)."""
    init(root)
    files: dict[str, str | bytes] = {
        "AGENTS.md": f"# Agents\n\nUse {token('ghp_', 36)} to push.\n",
        "src/app/main.py": "print('hello')\n",
        "src/app/util.py": "x = 1\n",
        "src/lib/deep/er/mod.py": "y = 2\n",
        "docs/guide.md": f"Claude Code writes {MARKER} on Esc.\n",
        "docs/more/notes.txt": "plain\n",
        "pkg/AGENTS.md": f"# Pkg\n\nThe token {token('ghp_', 36, seed=3)}\n",
        ".aider.chat.history.md": "# aider chat started at 2026-01-01 10:00:00\n",
        "data/blob.bin": b"\x00\x01\x02binary",
    }
    files.update({f"many/f{i}.txt": f"file {i}\n" for i in range(30)})
    commit(root, files, "project")
    return root


# --------------------------------------------------------------------------- warm


def test_a_warm_run_lists_nothing_and_reads_nothing(tmp_path: Path, xdg: Path, spy: Spy) -> None:
    root = project(tmp_path / "repo")
    expected = uncached(root)
    first = spy(root)
    assert spy.trees  # a cold run of a small tree reads it level by level
    assert first == expected
    stored = rows()
    # every folder, the root, and the work tree's pointer to its last root (the next
    # change's earlier tree)
    assert stored == len(git(root, "ls-tree", "-r", "-t", "-d", "HEAD").splitlines()) + 2
    warm = spy(root)
    assert warm == expected
    assert not spy.ran("ls-tree"), spy.commands
    assert not spy.ran("cat-file"), spy.commands
    assert spy.trees == [] and spy.blobs == []
    assert rows() == stored


def test_the_report_counts_the_files_of_the_trees_that_hit(
    tmp_path: Path, xdg: Path, spy: Spy
) -> None:
    import json

    root = project(tmp_path / "repo")
    spy(root)
    report = json.loads(spy(root))
    assert report["summary"]["files"] == len(git(root, "ls-files").splitlines())


# --------------------------------------------------------------------------- after a change


def test_a_change_reads_only_the_changed_trees_and_blobs(
    tmp_path: Path, xdg: Path, spy: Spy
) -> None:
    root = project(tmp_path / "repo")
    spy(root)
    commit(root, {"src/lib/deep/er/mod.py": f"y = 3  # {MARKER}\n"}, "edit")
    changed = spy(root)
    assert changed == uncached(root)
    assert not spy.ran("ls-tree"), spy.commands
    folders = ("", "src", "src/lib", "src/lib/deep", "src/lib/deep/er")
    want = [tree_id(root, p) for p in folders]
    earlier = [git(root, "rev-parse", f"HEAD~1:{p}").strip() for p in folders]
    assert sorted(spy.trees) == sorted(want + earlier)  # and the same trees before the change
    assert spy.blobs == [blob_id(root, "src/lib/deep/er/mod.py")]
    again = spy(root)
    assert again == changed and spy.trees == [] and spy.blobs == []


def _steps(root: Path) -> Iterator[str]:
    """A series of changes (each committed), named."""
    commit(root, {"src/app/main.py": f"print('{MARKER}')  # in code\n"})
    yield "edit a file"
    commit(root, {"src/new/AGENTS.md": f"# New\n\n{token('ghp_', 36, seed=9)}\n"})
    yield "add a file in a new folder"
    remove(root, "docs/more/notes.txt")
    yield "delete a folder's only file"
    git(root, "mv", "src/app/util.py", "src/app/renamed.py")
    git(root, "commit", "-q", "-m", "rename a file")
    yield "rename a file"
    (root / "moved").mkdir()
    git(root, "mv", "pkg", "moved/pkg")
    git(root, "commit", "-q", "-m", "rename a folder")
    yield "rename a folder"
    shutil.copytree(root / "moved", root / "copy")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the same tree at two paths")
    yield "copy a folder (same tree id, another prefix)"
    commit(root, {"again/AGENTS.md": (root / "AGENTS.md").read_text()})
    yield "the same blob at two paths"
    (root / "links").mkdir()
    os.symlink("../AGENTS.md", root / "links" / "agents")
    os.symlink(f"/home/dev/{token('ghp_', 36, seed=5)}", root / "links" / "target")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "symlinks")
    yield "symlinks"
    git(root, "update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},vendor/deep/sub")
    git(root, "commit", "-q", "-m", "a submodule")
    yield "a submodule"
    remove(root, "AGENTS.md", "again/AGENTS.md")
    yield "delete files at the root"
    commit(root, {".aider.chat.history.md": "# aider chat started at 2026-02-02 10:00:00\n"})
    yield "edit a path-rule file at the root"


def test_after_each_change_warm_equals_cold_and_uncached(
    tmp_path: Path, xdg: Path, spy: Spy, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path / "repo")
    assert spy(root) == uncached(root)
    for step in _steps(root):
        warm = spy(root)
        assert warm == uncached(root), step
        assert warm == cold(root, tmp_path, monkeypatch), step
        assert spy(root) == warm, step  # and the next run answers it whole
        assert spy.trees == [] and spy.blobs == [], step


def test_a_folder_copied_is_another_prefix(tmp_path: Path, xdg: Path, spy: Spy) -> None:
    """The same tree id at two paths: the copy's findings carry the copy's paths."""
    root = project(tmp_path / "repo")
    spy(root)
    shutil.copytree(root / "pkg", root / "other")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "copy")
    assert tree_id(root, "pkg") == tree_id(root, "other")
    report = spy(root)
    assert '"path": "other/AGENTS.md"' in report and '"path": "pkg/AGENTS.md"' in report
    assert report == uncached(root)


def test_hostile_names_and_sha256(tmp_path: Path, xdg: Path, spy: Spy, how: str) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main", "--object-format=sha256")
    odd = os.fsdecode(b"d\xe9j\xe0/n\xe9w\nline")
    (root / os.fsdecode(b"d\xe9j\xe0")).mkdir()
    (root / odd).write_text(f"{MARKER}\n")
    (root / "ok").mkdir()
    (root / "ok" / "a.txt").write_text("a\n")
    (root / "ok" / "AGENTS.md").write_text(f"# A\n\n{token('ghp_', 36)}\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "odd names")
    assert len(tree_id(root)) == 64
    first = spy(root)
    assert first == uncached(root)
    assert "BMK002" in first
    (root / os.fsdecode(b"d\xe9j\xe0") / "second").write_text(f"more {MARKER}\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a sibling of the odd name")
    changed = spy(root)
    assert changed == uncached(root)
    if how == "descend":
        assert tree_id(root, os.fsdecode(b"d\xe9j\xe0")) in spy.trees


# --------------------------------------------------------------------------- the key


VARIANTS: dict[str, dict[str, Any]] = {
    "secrets all": {"secrets": "all"},
    "no inline allow": {"inline_allow": False},
    "select": {"selection": Selection(select=("BPA",))},
    "exclude": {"policy": "version: 1\nexclude: ['pkg/**']\n"},
    "BPA glob": {"policy": "version: 1\nboundary:\n  paths:\n    BPA: ['many/f1*.txt']\n"},
    "BTR glob": {"policy": "version: 1\nboundary:\n  paths:\n    BTR: ['src/**/*.py']\n"},
    "disable": {"policy": "version: 1\ndisable: [BMK002, BSC001, BPA002]\n"},
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_each_setting_is_part_of_the_tree_key(
    variant: str, tmp_path: Path, xdg: Path, spy: Spy
) -> None:
    root = project(tmp_path / "repo")
    commit(root, {"src/app/util.py": f"token = '{token('ghp_', 36, seed=4)}'\n"})
    commit(root, {"docs/allowed.md": f"Claude writes {MARKER} <!-- apc: allow BMK002 -->\n"})
    base = spy(root)
    options = dict(VARIANTS[variant])
    if "policy" in options:
        path = tmp_path / "policy.yaml"
        path.write_text(options.pop("policy"))
        options["config"] = path
    expected = uncached(root, **options)
    assert expected != base  # the variant changes the verdict
    before = rows()
    assert spy(root, **options) == expected
    assert rows() > before  # new keys: nothing answered from the base settings' trees
    assert spy(root, **options) == expected and spy.trees == []
    assert spy(root) == base and spy.trees == []  # the base settings' trees still answer


def test_the_settings_text_is_the_same_in_every_process() -> None:
    """A frozenset's order changes with the hash seed; the key's text must not."""
    code = (
        "from apc_tools.boundary.policy import Settings\n"
        "from apc_tools.boundary.subtrees import settings_text\n"
        "print(settings_text(Settings(disabled=frozenset(f'R{i}' for i in range(50)),"
        " exclude=('b/**', 'a/**'))))\n"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        ).stdout
        for seed in (1, 2, 3)
    }
    assert len(outs) == 1
    assert subtrees.settings_text(Settings()) != subtrees.settings_text(Settings(exclude=("x/**",)))


def test_a_damaged_tree_value_is_not_trusted(tmp_path: Path, xdg: Path, spy: Spy) -> None:
    root = project(tmp_path / "repo")
    expected = spy(root)
    for value in (b"[1,[[1,2]]]", b"{not json", b"[-1,[]]", b'[3,[["a","BPA001","bad",1,1,""]]]'):
        assert subtrees.load(value, None) is None
    # the files of its child trees: a mapping of names (no "/") to counts it holds
    for value in (b'[3,[],{"a":4}]', b'[3,[],{"a/b":1}]', b'[3,[],{"":1}]', b"[3,[],[1]]"):
        assert subtrees.load(value, None) is None, value
    for value in (b'[3,[],{"a":true}]', b'[3,[],{"a":-1}]', b"[3,[],{},1]", b'[3,[],{"a":"1"}]'):
        assert subtrees.load(value, None) is None, value
    assert subtrees.load(b'[3,[],{"a":1,"b":2}]', None) == (3, [], {"a": 1, "b": 2})
    assert subtrees.load(subtrees.dump(3, [], {"a": 1}), None) == (3, [], {"a": 1})
    import sqlite3

    db = sqlite3.connect(xdg / "apc-tools" / "results" / "cache.sqlite3")
    with db:
        db.execute("UPDATE entries SET value = x'7b6e6f74'")  # every row: "{not"
    db.close()
    assert spy(root) == expected


# --------------------------------------------------------------------------- the earlier tree


def test_a_change_keeps_the_findings_of_the_unchanged_files_beside_it(
    tmp_path: Path, xdg: Path, spy: Spy
) -> None:
    """A file the changed folder shares with the folder before the change keeps that
    folder's findings for it, unread; no per-blob verdict is stored for either run."""
    root = project(tmp_path / "repo")
    commit(root, {"pkg/notes.md": f"Claude Code writes {MARKER}\n", "pkg/x.txt": "x\n"})
    spy(root)
    commit(root, {"pkg/x.txt": "x, changed\n"})
    changed = spy(root)
    assert changed == uncached(root) and '"path": "pkg/AGENTS.md"' in changed
    assert '"path": "pkg/notes.md"' in changed
    assert spy.blobs == [blob_id(root, "pkg/x.txt")]  # not pkg/AGENTS.md, not pkg/notes.md
    with Cache.open(verdicts.BLOBS) as blobs:
        assert blobs.count() == 0


def test_a_cold_run_keeps_per_blob_verdicts_only_under_a_home_folder(
    tmp_path: Path, xdg: Path, spy: Spy, how: str
) -> None:
    root = project(tmp_path / "repo")
    commit(root, {"dots/.claude/agents/a.md": "# agent\n", "dots/.claude/b.json": "{}\n"})
    assert spy(root) == uncached(root)
    with Cache.open(verdicts.BLOBS) as blobs:
        assert blobs.count() == 2  # the two files under dots/.claude/, none elsewhere
    commit(root, {"dots/c.txt": "c\n"})  # dots is read again: its home folder listed in full
    assert spy(root) == uncached(root)
    if how == "descend":  # (one whole listing keeps nothing of the earlier trees)
        assert spy.blobs == [blob_id(root, "dots/c.txt")]  # the home folder's: their verdicts
    commit(root, {"dots/same.md": "# agent\n"})  # a blob under the home folder, and outside
    assert spy(root) == uncached(root)
    assert blob_id(root, "dots/same.md") in spy.blobs  # read: no verdict kept at the new path


def test_the_earlier_tree_gone_or_its_pointer_damaged(tmp_path: Path, xdg: Path, spy: Spy) -> None:
    """The last run's root is a hint, never trusted: a value that is no tree id, or a tree
    this repository no longer has, and the changed trees are scanned whole."""
    import sqlite3

    root = project(tmp_path / "repo")
    spy(root)
    gone = tree_id(root)
    commit(root, {"src/app/main.py": f"print('{MARKER}')\n"})
    git(root, "reset", "-q", "--soft", "HEAD~1")
    git(root, "commit", "-q", "--amend", "-m", "rewritten")  # the first root: unreachable
    git(root, "reflog", "expire", "--expire=now", "--all")
    git(root, "gc", "-q", "--prune=now")
    assert subprocess.run(["git", "-C", str(root), "cat-file", "-e", gone]).returncode != 0
    assert spy(root) == uncached(root)
    assert gone in spy.trees  # asked for, and not there
    for value in (b"not a tree id at all, no, not one.......", b"zz", tree_id(root).encode()):
        commit(root, {"many/f1.txt": f"{value[:8]!r}\n"})
        db = sqlite3.connect(xdg / "apc-tools" / "results" / "cache.sqlite3")
        with db:  # every row that holds a tree id: the pointer
            db.execute("UPDATE entries SET value = ? WHERE length(value) = 40", (value,))
        db.close()
        assert spy(root) == uncached(root), value


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_changes_warm_equals_uncached(
    seed: int, tmp_path: Path, xdg: Path, spy: Spy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Random edits, additions, deletions, renames, case-colliding names, home folders,
    symlinks and an exclude glob, each committed: the change run (keeping the earlier
    trees' findings) equals ``--no-cache`` and a cold run, every time."""
    import random

    rng = random.Random(seed)
    root = project(tmp_path / "repo")
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\nexclude: ['many/f2*']\n")
    contents = [
        "plain\n",
        f"Claude Code writes {MARKER}\n",
        f"token {token('ghp_', 36, seed=seed)}\n",
        '{"type":"user","message":{"role":"user","content":"hi"},"sessionId":"s"}\n',
    ]
    folders = ["", "src/app", "src/App", "many", "docs/more", "x/.claude", "x/.claude/projects/p"]
    for step in range(12):
        files = git(root, "ls-files").split()
        kind = rng.choice(["edit", "add", "delete", "rename", "collide"])
        if kind == "collide":  # a name that case-folds to a sibling's
            folder, _, name = rng.choice(files).rpartition("/")
            commit(root, {f"{folder}/{name.upper()}".lstrip("/"): rng.choice(contents)})
        elif kind == "delete" and len(files) > 5:
            remove(root, rng.choice(files))
        elif kind == "rename":
            new = f"{rng.choice(folders)}/moved{step}.md".lstrip("/")
            (root / new).parent.mkdir(parents=True, exist_ok=True)
            git(root, "mv", "-f", rng.choice(files), new)
            git(root, "commit", "-q", "-m", f"step {step}")
        else:
            path = rng.choice(files) if kind == "edit" else None
            path = path or f"{rng.choice(folders)}/n{step}.{rng.choice(['md', 'txt', 'jsonl'])}"
            commit(root, {path.lstrip("/"): f"{step}: {rng.choice(contents)}"}, f"step {step}")
        for options in ({}, {"config": policy}):
            assert spy(root, **options) == uncached(root, **options), (step, kind, options)
            assert spy(root, **options) == cold(root, tmp_path, monkeypatch, **options), step


# --------------------------------------------------------------------------- home folders


def test_a_home_folder_is_never_answered_whole(tmp_path: Path, xdg: Path, spy: Spy) -> None:
    """A tree whose path has a home folder component is never stored: listed in full whenever
    its parent is read. The trees above it are stored (all a home folder depends on is below
    the folder that holds it)."""
    root = init(tmp_path / "repo")
    commit(
        root,
        {
            "src/a.py": "x = 1\n",
            "dots/.claude/agents/b.md": "# agent\n",
            "dots/.claude/settings.json": "{}\n",
            "other/x.txt": "x\n",
        },
    )
    spy(root)
    assert rows() == 5  # the root, src, other, dots, the pointer; not dots/.claude(/agents)
    warm = spy(root)
    assert warm == uncached(root) and spy.trees == [] and spy.blobs == []
    commit(root, {"dots/.Claude/projects/p/s.txt": "state\n"})
    changed = spy(root)
    assert changed == uncached(root) and '"path": "dots/.claude/agents/b.md"' not in changed
    assert '"path": "dots/.Claude/projects/p/s.txt"' in changed
    listed = {tree_id(root, p) for p in ("", "dots", "dots/.claude", "dots/.claude/agents")}
    listed |= {tree_id(root, p) for p in ("dots/.Claude", "dots/.Claude/projects")}
    listed.add(tree_id(root, "dots/.Claude/projects/p"))
    # and the stored trees before the change (not the home folder's: never stored)
    earlier = {git(root, "rev-parse", f"HEAD~1:{p}").strip() for p in ("", "dots")}
    assert listed | earlier == set(spy.trees)
    commit(root, {"other/y.txt": "y\n"})
    spy(root)
    assert tree_id(root, "dots/.claude") not in spy.trees  # dots answered whole


def test_nested_home_folders_apply_in_git_order(
    tmp_path: Path, xdg: Path, spy: Spy, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two nested homes (a `.codex/` holding `sessions/` inside a `.claude/` holding
    `projects/`): the one whose marker git lists first decides a file in both; a listing
    read level by level must find them in git's order, not by depth."""
    root = init(tmp_path / "repo")
    files = {
        "x/.claude/a/.codex/sessions/2026/s.jsonl": "{}\n",
        "x/.claude/a/.codex/config.toml": "model = 'x'\n",
        "x/.claude/projects/p.txt": "p\n",
        "x/.claude/notes.txt": "n\n",
        "src/a.py": "x = 1\n",
    }
    commit(root, files)
    first = spy(root)
    assert first == uncached(root)
    commit(root, {"x/.claude/more.txt": "m\n"})  # x is read again, its home folder in full
    changed = spy(root)
    assert changed == uncached(root) == cold(root, tmp_path, monkeypatch)
    assert '"path": "x/.claude/a/.codex/config.toml"' not in changed  # Codex's own config


HOME_CHANGES: dict[str, list[dict[str, str]]] = {
    # a case-folded marker in a sibling tree flags the other spelling's files
    "case-fold sibling": [
        {"x/.claude/agents/b.md": "# agent\n", "x/.claude/notes.txt": "n\n"},
        {"x/.CLAUDE/projects/p/s.txt": "state\n"},
    ],
    # ... and a folder above the home spelled two ways: `A/` beside `a/` (trees that are no
    # function of their own content: neither stored nor answered, nor anything below them)
    "case-fold parent": [
        {"a/.claude/agents/b.md": "# agent\n", "a/.claude/notes/n.txt": "n\n"},
        {"A/.claude/projects/p.txt": "state\n"},
    ],
    "case-fold grandparent": [
        {"w/a/.claude/agents/x.md": "# x\n", "w/a/.claude/notes.txt": "n\n"},
        {"w/A/.claude/projects/q.txt": "state\n"},
    ],
    "nested home": [
        {"a/b/c/.Codex/prompts/p.md": "# p\n", "a/b/c/.Codex/log.txt": "l\n"},
        {"a/b/c/.codex/SESSIONS/2026/r.txt": "r\n"},
    ],
    "gemini home at the root": [
        {".gemini/settings.json": "{}\n", ".gemini/history.txt": "h\n"},
        {".Gemini/tmp/x/chat.txt": "c\n"},
    ],
}


@pytest.mark.parametrize("case", list(HOME_CHANGES))
def test_a_home_folder_added_and_removed(
    case: str, tmp_path: Path, xdg: Path, spy: Spy, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, marker = HOME_CHANGES[case]
    root = init(tmp_path / "repo")
    commit(root, {"src/a.py": "x = 1\n", **first})
    before = spy(root)
    assert before == uncached(root) and "BPA002" not in before
    commit(root, marker)
    added = spy(root)
    assert added == uncached(root) == cold(root, tmp_path, monkeypatch)
    assert added.count('"BPA002"') > before.count('"BPA002"')
    flagged = list(first)[1]  # a file of the first spelling (not shared config): now flagged
    assert f'"path": "{flagged}"' in added
    remove(root, *marker)
    gone = spy(root)
    assert gone == uncached(root) == before
    assert spy(root) == gone


# --------------------------------------------------------------------------- off


def test_off_with_paths_no_cache_and_in_a_partial_clone(
    tmp_path: Path, xdg: Path, spy: Spy
) -> None:
    root = project(tmp_path / "repo")
    spy(root, paths=(root / "src",))
    assert rows() == 0  # PATH arguments: the plain listing
    spy(root, cache=False)
    assert rows() == 0
    spy(root, mode="staged")
    assert rows() == 0
    git(root, "config", "extensions.partialClone", "origin")
    git(root, "config", "remote.origin.promisor", "true")
    spy(root)
    assert rows() == 0


def test_an_unborn_head_is_an_empty_scan(tmp_path: Path, xdg: Path, spy: Spy) -> None:
    root = init(tmp_path / "repo")
    assert spy(root) == uncached(root)


# --------------------------------------------------------------------------- every case


@pytest.mark.parametrize("case", BOUNDARY_CASES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_boundary_case_after_a_change(
    case: Path, tmp_path: Path, xdg: Path, spy: Spy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each case tree scanned, then copied into a new folder with one of its files edited,
    then with its first file deleted: warm equals cold and ``--no-cache`` each time."""
    root, args, spec = case_repo(case, tmp_path, monkeypatch)
    if args.get("mode", "tracked") != "tracked" or "delete_blob" in spec:
        pytest.skip("not a --tracked scan of a whole clone")
    first = spy(root, **args)
    assert first == uncached(root, **args)
    files = sorted(p for p in git(root, "ls-files", "-z").split("\0") if p)
    regular = [p for p in files if (root / p).is_file() and not (root / p).is_symlink()]
    regular = [p for p in regular if not p.startswith(".apc-")]  # the policy, the baseline
    if not regular:
        pytest.skip("no file to change")
    for path in regular:
        target = root / "copy" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((root / path).read_bytes())
    with (root / regular[-1]).open("ab") as edited:
        edited.write(b"\nedited\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "copy and edit")
    assert spy(root, **args) == uncached(root, **args) == cold(root, tmp_path, monkeypatch, **args)
    remove(root, regular[0])
    assert spy(root, **args) == uncached(root, **args)
    assert spy(root, **args) == uncached(root, **args)


def test_transcript_corpus_after_a_change(
    tmp_path: Path, xdg: Path, spy: Spy, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs_shared(TRANSCRIPTS)
    root = init(tmp_path / "corpus")
    placed: list[str] = []
    for kind, name, original in corpus_files():
        for rel in (f"{kind}/{name}", original):
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(TRANSCRIPTS / kind / name, target)
            placed.append(rel)
    git(root, "add", "-A", "-f")
    git(root, "commit", "-q", "-m", "corpus")
    first = spy(root)
    assert first == uncached(root)
    assert spy(root) == first and spy.trees == [] and spy.blobs == []
    with (root / placed[0]).open("ab") as edited:
        edited.write(b"\n")
    shutil.copytree(root / placed[-1].partition("/")[0], root / "again" / "copy")
    git(root, "add", "-A", "-f")
    git(root, "commit", "-q", "-m", "edit and copy")
    assert spy(root) == uncached(root) == cold(root, tmp_path, monkeypatch)


def test_write_baseline_and_the_git_prefilter_from_the_tree_cache(
    tmp_path: Path, xdg: Path, spy: Spy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--write-baseline`` needs every finding: the trees that hit give theirs. The git
    prefilter (``APC_PREFILTER=git``) over a changed tree gives the same verdict."""
    root = project(tmp_path / "repo")
    baseline = root / ".apc-baseline.json"
    scan(Options(cwd=root, write_baseline=True, cache=False))
    expected = baseline.read_bytes()
    baseline.unlink()
    spy(root)
    outcome = scan(Options(cwd=root, write_baseline=True))
    assert outcome.baseline_entries > 3
    assert baseline.read_bytes() == expected
    baseline.unlink()
    monkeypatch.setenv("APC_PREFILTER", "git")
    commit(root, {f"many/g{i}.txt": f"g {i}\n" for i in range(40)})
    assert spy(root) == uncached(root)
    assert spy(root) == uncached(root) and spy.trees == []


def test_a_cold_run_lists_a_wide_tree_once(tmp_path: Path, xdg: Path, spy: Spy) -> None:
    """Most trees of a level missing (a cold run): one ``ls-tree -r -t``, not a read per tree;
    then a change in one folder of many reads that folder's trees only."""
    root = init(tmp_path / "repo")
    commit(root, {f"top/d{i}/f.txt": f"{i}\n" for i in range(subtrees.FEW * 3)})
    first = spy(root)
    assert spy.ran("ls-tree")
    assert sorted(spy.trees) == sorted([tree_id(root), tree_id(root, "top")])
    assert first == uncached(root)
    assert rows() == subtrees.FEW * 3 + 2 + 1  # and the pointer to the root
    commit(root, {"top/d3/f.txt": f"changed {MARKER}\n"})
    changed = spy(root)
    assert not spy.ran("ls-tree")
    folders = ("", "top", "top/d3")
    earlier = [git(root, "rev-parse", f"HEAD~1:{p}").strip() for p in folders]
    assert sorted(spy.trees) == sorted([*(tree_id(root, p) for p in folders), *earlier])
    assert changed == uncached(root)


def test_the_tree_reader_batches_and_skips_what_is_not_a_tree(tmp_path: Path) -> None:
    root = init(tmp_path / "repo")
    count = gitio.MAX_BATCH + 20
    commit(root, {f"d{i}/f.txt": f"{i}\n" for i in range(count)})
    trees = [tree_id(root, f"d{i}") for i in range(count)]
    blob = blob_id(root, "d0/f.txt")
    with gitio.TreeReader(gitio.open_repo(root)) as reader:
        first = reader.read([*trees, blob, "0" * 40])
        again = reader.read(trees[:2])  # the same process answers the next level
    assert sorted(first) == sorted(set(trees))
    assert first[trees[5]] == git_bytes(root, "cat-file", "tree", trees[5])
    assert again == {t: first[t] for t in trees[:2]}
    assert [name for _, name, _ in subtrees.parse_tree(first[trees[0]], 20)] == [b"f.txt"]


def git_bytes(root: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=True).stdout


def test_every_home_folder_name_starts_with_a_dot() -> None:
    """The earlier tree's files are kept without a home folder check unless their name starts
    with "." (subtrees.Trees._items): true of every home folder name."""
    assert subtrees.HOME_NAMES and all(n.startswith(".") for n in subtrees.HOME_NAMES)


# --------------------------------------------------------------------------- the raw diff


def _raw_entry(mode: bytes, name: bytes, oid: bytes) -> bytes:
    return mode + b" " + name + b"\0" + oid


RAW = bytes(range(20))  # an id holding a NUL, a space, a "/" byte: none of them ends it
ODD_TREES: dict[str, bytes] = {
    "common": _raw_entry(b"100644", b"a b", RAW) + _raw_entry(b"40000", b"d", b"\xff" * 20),
    "every mode": b"".join(
        _raw_entry(m, b"n%d" % i, RAW)
        for i, m in enumerate([b"100644", b"100755", b"120000", b"40000", b"160000"])
    ),
    "empty": b"",
    "an old git's mode": _raw_entry(b"100664", b"a", RAW),
    "a padded tree mode": _raw_entry(b"040000", b"d", RAW),
    "a mode octal in Python only": _raw_entry(b"0o100644", b"a", RAW),
    "a mode with a sign": _raw_entry(b"+100644", b"a", RAW),
    "a name with a slash": _raw_entry(b"100644", b"a/b", RAW),
    "a dot": _raw_entry(b"40000", b".", RAW),
    "two dots": _raw_entry(b"40000", b"..", RAW),
    "three dots": _raw_entry(b"100644", b"...", RAW),
    "a dot name": _raw_entry(b"100644", b".a", RAW),
    "no name": _raw_entry(b"100644", b"", RAW),
    "no mode": _raw_entry(b"", b"a", RAW),
    "a short id": _raw_entry(b"100644", b"a", RAW[:19]),
    "a long id": _raw_entry(b"100644", b"a", RAW) + b"x",
    "no NUL": b"100644 a" + RAW,
    "garbage between": _raw_entry(b"100644", b"a", RAW)
    + b"junk"
    + _raw_entry(b"100644", b"b", RAW),
}


@pytest.mark.parametrize("case", list(ODD_TREES))
def test_split_tree_cuts_what_parse_tree_cuts_or_leaves_it_to_it(case: str) -> None:
    """The raw cut (:func:`subtrees.split_tree`) of any tree bytes is None (then the parse
    decides: it reads the tree, or refuses it) or exactly the entries the parse reads, each
    its raw bytes."""
    data = ODD_TREES[case]
    cut = subtrees.split_tree(data, 20)
    try:
        parsed: list[tuple[str, bytes, str]] | None = subtrees.parse_tree(data, 20)
    except subtrees.Malformed:
        parsed = None
    if cut is None:
        assert case not in ("common", "every mode", "empty", "three dots", "a dot name")
        return
    assert parsed is not None
    assert b"".join(cut) == data
    assert [subtrees.split_tree(e, 20) for e in cut] == [[e] for e in cut]
    assert [(m, n, o) for m, n, o in parsed] == [
        (subtrees.TREE_MODES[e.split(b" ", 1)[0]], e[e.index(b" ") + 1 : -21], e[-20:].hex())
        for e in cut
    ]
    assert subtrees.tree_names(data, 20) == [n for _, n, _ in parsed]


def test_split_tree_of_every_tree_of_a_repository(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    commit(root, {os.fsdecode(b"odd/na\xefve \xe9 \n.txt"): "x\n", "odd/.b": "b\n"})
    folders = git(root, "ls-tree", "-r", "-t", "-d", "HEAD").splitlines()
    for oid in [tree_id(root), *(line.split()[2] for line in folders)]:
        data = git_bytes(root, "cat-file", "tree", oid)
        cut = subtrees.split_tree(data, 20)
        assert cut is not None and b"".join(cut) == data
        assert len(cut) == len(subtrees.parse_tree(data, 20))


def test_split_tree_finishes_on_pathological_bytes() -> None:
    """A hang guard (linear passes), never a speed assertion."""
    import time

    start = time.monotonic()
    for data in (
        b"1" * 200_000,
        b"100644 " + b"a" * 200_000,
        (b"100644 a\0" + RAW) * 20_000 + b"1",
    ):
        assert subtrees.split_tree(data, 20) is None
    assert time.monotonic() - start < 30


def _change_steps(root: Path) -> Iterator[tuple[str, list[str]]]:
    """Changes in a wide folder (each committed), named, with the files each must read."""
    os.chmod(root / "many" / "f3.txt", 0o755)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "mode")
    yield "a file whose mode only changes", ["many/f3.txt"]
    git(root, "mv", "many/f4.txt", "many/g4.txt")
    git(root, "commit", "-q", "-m", "rename")
    yield "a file renamed in its folder", ["many/g4.txt"]
    commit(root, {"many/f10a.txt": f"between {MARKER}\n"})
    yield "a name that sorts between two others", ["many/f10a.txt"]
    commit(root, {"many/f1": "a prefix of f1.txt and f10.txt\n"})
    yield "a name that is a prefix of others", ["many/f1"]
    commit(root, {"many/f1x/inner.txt": f"{token('ghp_', 36, seed=11)}\n"})
    yield "a folder whose name sorts among the files", ["many/f1x/inner.txt"]
    git(root, "rm", "-q", "-r", "docs/more")
    git(root, "commit", "-q", "-m", "delete a folder")
    yield "a folder deleted", []
    commit(root, {"docs/more/notes.txt": "plain\n"})
    yield "the same folder added again", []
    commit(root, {"many/.claude/projects/p/s.jsonl": "{}\n", "many/.claude/agents/a.md": "# a\n"})
    yield "a home folder appearing in a changed folder", []
    commit(root, {"many/f5.txt": "changed beside the home folder\n"})
    yield "a change beside a home folder", []
    commit(root, {"many/F6.TXT": "case-folds to a sibling\n"})
    yield "a name that case-folds to a sibling's", []
    remove(root, "many/F6.TXT")
    commit(root, {os.fsdecode("many/Straße.txt".encode()): "s\n"})
    yield "a name outside ASCII", []
    commit(root, {"many/STRASSE.TXT": f"{MARKER}\n"})
    yield "a name that case-folds to it outside ASCII", []
    git(root, "rm", "-q", "-r", "many")
    git(root, "commit", "-q", "-m", "delete the wide folder")
    yield "the wide folder deleted", []


def test_each_change_in_a_wide_folder_reads_only_what_changed(
    tmp_path: Path, xdg: Path, spy: Spy, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mode-only changes, renames, names sorting between or before others, a folder deleted
    and added again, a home folder appearing, case-folding names (ASCII and not): warm equals
    cold and ``--no-cache`` each time; level by level, only the changed files are read while
    the folder stays in git's common form."""
    root = project(tmp_path / "repo")
    spy(root)
    parsed: list[str] = []  # the trees read the per-entry way (not in the common form)
    real = subtrees.Trees._items

    def items(self: subtrees.Trees, path: str, *args: Any) -> Any:
        parsed.append(path)
        return real(self, path, *args)

    monkeypatch.setattr(subtrees.Trees, "_items", items)
    for step, reads in _change_steps(root):
        parsed.clear()
        warm = spy(root)
        assert warm == uncached(root) == cold(root, tmp_path, monkeypatch), step
        if how == "descend" and reads:
            assert sorted(spy.blobs) == sorted(blob_id(root, p) for p in reads), step
            assert parsed == [], step  # every changed tree compared as raw entries
        assert spy(root) == warm and spy.trees == [] and spy.blobs == [], step


def test_an_old_gits_mode_in_a_changed_tree(tmp_path: Path, xdg: Path, spy: Spy, how: str) -> None:
    """A tree written with a mode git no longer writes (100664, a padded 040000): read the
    per-entry way, the same verdict as ``--no-cache``."""
    root = project(tmp_path / "repo")
    spy(root)
    blob = blob_id(root, "many/f1.txt")
    sub = tree_id(root, "docs")
    odd = (
        _raw_entry(b"100664", b"a.txt", bytes.fromhex(blob))
        + _raw_entry(b"040000", b"docs", bytes.fromhex(sub))
        + _raw_entry(b"100644", b"z.md", bytes.fromhex(blob_id(root, "docs/guide.md")))
    )
    made = (
        subprocess.run(
            ["git", "-C", str(root), "hash-object", "-t", "tree", "-w", "--literally", "--stdin"],
            input=odd,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    listing = git(root, "ls-tree", "HEAD")
    entries = [line for line in listing.splitlines() if not line.endswith("\tmany")]
    entries.append(f"040000 tree {made}\tmany")
    top = subprocess.run(
        ["git", "-C", str(root), "mktree"],
        input="\n".join(entries) + "\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    head = git(root, "commit-tree", top, "-p", "HEAD", "-m", "old modes").strip()
    git(root, "reset", "-q", head)
    assert subtrees.split_tree(git_bytes(root, "cat-file", "tree", made), 20) is None
    assert spy(root) == uncached(root)
    assert spy(root) == uncached(root) and spy.trees == []


def test_trees_and_blobs_share_one_cat_file(tmp_path: Path, xdg: Path, spy: Spy) -> None:
    """A change run reads its trees and its changed blobs through one ``cat-file``."""
    root = project(tmp_path / "repo")
    spy(root)
    commit(root, {"src/app/main.py": f"print('{MARKER}')\n"})
    assert spy(root) == uncached(root)
    assert spy.trees and spy.blobs == [blob_id(root, "src/app/main.py")]
    assert [c for c in spy.commands if "cat-file" in c] == [
        c for c in spy.commands if c.endswith("cat-file --batch")
    ]
    assert sum("cat-file" in c for c in spy.commands) == 1, spy.commands


def test_a_change_asks_only_for_the_changed_trees(
    tmp_path: Path, xdg: Path, spy: Spy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tree the changed folder shares unchanged with the earlier one is taken from the
    earlier tree's verdict (its files and its findings), not looked up: only the changed trees
    and the earlier trees beside them are asked for."""
    root = init(tmp_path / "repo")
    files: dict[str, str | bytes] = {f"top/d{i}/f.txt": f"{i}\n" for i in range(12)}
    files["top/d5/AGENTS.md"] = f"# A\n\n{token('ghp_', 36, seed=2)}\n"
    files["top/d7/deep/notes.md"] = f"Claude Code writes {MARKER}\n"
    commit(root, files)
    first = spy(root)
    asked: list[str] = []
    real = subtrees.Trees._ask

    def ask(self: subtrees.Trees, trees: Any) -> Any:
        asked.extend(trees)
        return real(self, trees)

    monkeypatch.setattr(subtrees.Trees, "_ask", ask)
    commit(root, {"top/d3/f.txt": f"changed {MARKER}\n"})
    changed = spy(root)
    assert sorted(set(asked)) == ["", "top", "top/d3"]  # (each: the tree, then the earlier one)
    assert spy.blobs == [blob_id(root, "top/d3/f.txt")]
    assert changed == uncached(root) == cold(root, tmp_path, monkeypatch)
    assert '"path": "top/d5/AGENTS.md"' in changed and '"path": "top/d7/deep/notes.md"' in changed
    assert first != changed
    asked.clear()
    assert spy(root) == changed and asked == [""]


def test_a_change_in_many_folders_of_a_wide_one_is_read_level_by_level(
    tmp_path: Path, xdg: Path, spy: Spy
) -> None:
    """More than FEW folders changed among many: the trees taken from the earlier verdict
    count among the level's trees, so half of them is not "most of a level" (no whole
    listing)."""
    root = init(tmp_path / "repo")
    wide = subtrees.FEW * 4
    commit(root, {f"top/d{i}/f.txt": f"{i}\n" for i in range(wide)})
    spy(root)
    commit(root, {f"top/d{i}/f.txt": f"changed {i} {MARKER}\n" for i in range(0, wide, 2)})
    changed = spy(root)
    assert not spy.ran("ls-tree"), spy.commands
    assert len(spy.blobs) == wide // 2
    assert changed == uncached(root)
