"""The gate's result cache (boundary/verdicts.py over core/cache.py): every verdict the same
cold, warm and with ``--no-cache``; a warm run reads from the cache (git's own trace shows no
``cat-file``); each input of the key, changed, misses; an unusable cache changes nothing.

Real repositories, real SQLite files; each test has its own ``XDG_CACHE_HOME``.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from apc_tools.boundary import Options, scan, subtrees, verdicts
from apc_tools.core import cache as store
from apc_tools.core.cache import Cache
from apc_tools.findings import CannotRun
from apc_tools.report.json_out import render_json
from tests.boundary.cases import case_repo
from tests.boundary.helpers import commit, init, token
from tests.boundary.test_corpus import corpus_files
from tests.conftest import TRANSCRIPTS, git, needs_shared
from tests.test_cases import CASES, case_spec

BOUNDARY_CASES = sorted(
    case
    for kind in ("valid", "invalid")
    for family in (CASES / kind).iterdir()
    for case in family.iterdir()
    if (case / "case.json").is_file() and case_spec(case).get("command") == "boundary"
)
ROOT = Path(__file__).resolve().parents[2]


class Runs:
    """Scans of one repository, each with the git commands it started (GIT_TRACE)."""

    def __init__(
        self, root: Path, trace_dir: Path, monkeypatch: pytest.MonkeyPatch, **defaults: Any
    ) -> None:
        self.root = root
        self.defaults = defaults
        self.trace_dir = trace_dir
        self.monkeypatch = monkeypatch
        self.count = 0
        self.commands: list[str] = []

    def __call__(self, **options: Any) -> str:
        """The JSON report (or the reason the scan cannot run: exit 2)."""
        self.count += 1
        trace = self.trace_dir / f"trace-{self.count}"
        self.monkeypatch.setenv("GIT_TRACE", str(trace))
        try:
            return render_json(scan(Options(cwd=self.root, **self.defaults, **options)).result)
        except CannotRun as exc:
            return f"cannot run: {exc}"
        finally:
            self.monkeypatch.delenv("GIT_TRACE")
            text = trace.read_text(errors="replace") if trace.exists() else ""
            self.commands = [
                line.split("trace: ", 1)[1]
                for line in text.splitlines()
                if "trace: built-in: git" in line
            ]

    def started(self, command: str) -> bool:
        """``read``: a ``cat-file --batch`` (blobs, commit and tag objects read whole)."""
        if command == "read":
            return any(line.endswith("git cat-file --batch") for line in self.commands)
        return any(f"git {command}" in line for line in self.commands)


@pytest.fixture
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    made: list[Runs] = []

    def make(root: Path, **defaults: Any) -> Runs:
        folder = tmp_path / f"traces-{len(made)}"
        folder.mkdir()
        made.append(Runs(root, folder, monkeypatch, **defaults))
        return made[-1]

    yield make


def per_blob(root: Path) -> dict[str, Any]:
    """Scan options that keep a per-blob verdict for every file: a PATH argument (the whole
    tree's ``--tracked`` scan keeps a file's verdict in its folder's, boundary/subtrees.py,
    and stores per-blob ones only in folders never stored whole)."""
    return {"paths": (root,)}


def entries(namespace: str = verdicts.BLOBS) -> int:
    with Cache.open(namespace) as cache:
        return cache.count()


def db_file(xdg: Path) -> Path:
    return xdg / "apc-tools" / "results" / "cache.sqlite3"


# --------------------------------------------------------------------------- every case


@pytest.mark.parametrize("case", BOUNDARY_CASES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_boundary_case_same_cold_warm_and_uncached(
    case: Path, tmp_path: Path, xdg: Path, runs: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, args, _ = case_repo(case, tmp_path, monkeypatch)
    scans = runs(root)
    uncached = scans(cache=False, **args)
    assert not db_file(xdg).exists()  # --no-cache wrote nothing
    cold = scans(**args)
    warm = scans(**args)
    assert cold == uncached
    assert warm == uncached
    missing = uncached.startswith("cannot run")
    if not missing and args.get("mode", "tracked") in ("tracked", "history"):
        assert not scans.started("read"), scans.commands  # all of it from the cache


def test_transcript_corpus_same_cold_warm_and_uncached(
    tmp_path: Path, xdg: Path, runs: Any
) -> None:
    needs_shared(TRANSCRIPTS)
    root = init(tmp_path / "corpus")
    for kind, name, original in corpus_files():
        for rel in (f"{kind}/{name}", original):
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(TRANSCRIPTS / kind / name, target)
    git(root, "add", "-A", "-f")
    git(root, "commit", "-q", "-m", "corpus")
    scans = runs(root)
    uncached = scans(cache=False)
    cold = scans()
    assert scans.started("read")
    written = entries()
    warm = scans()
    assert not scans.started("read")
    assert entries() == written  # nothing new: every verdict was read back
    assert json.loads(uncached)["summary"]["error"] > 100
    assert cold == warm == uncached
    # every finding keeps its fingerprint (the hash of what matched, never the match)
    assert [f["fingerprint"] for f in json.loads(warm)["findings"]] == [
        f["fingerprint"] for f in json.loads(uncached)["findings"]
    ]


# --------------------------------------------------------------------------- what is stored


def test_no_secret_is_stored(tmp_path: Path, xdg: Path, runs: Any) -> None:
    secret = token("ghp_", 36)
    root = init(tmp_path / "repo")
    commit(root, {"AGENTS.md": f"# Agents\n\nUse {secret} to push.\n", "a.py": "x = 1\n"})
    scans = runs(root)
    report = scans(secrets="all")
    assert "BSC001" in report
    data = b"".join(p.read_bytes() for p in db_file(xdg).parent.iterdir())
    assert secret.encode() not in data
    assert secret[4:20].encode() not in data
    assert scans(secrets="all") == report  # and the fingerprint comes back the same


def test_clean_blobs_are_verdicts_too(tmp_path: Path, xdg: Path, runs: Any) -> None:
    root = init(tmp_path / "repo")
    commit(root, {f"src/m{i}.py": f"x = {i}\n" for i in range(20)})
    scans = runs(root, **per_blob(root))
    scans()
    assert entries() == 20
    scans()
    assert not scans.started("read")


def test_history_warm_run_lists_and_reads_nothing_again(
    tmp_path: Path, xdg: Path, runs: Any
) -> None:
    root = init(tmp_path / "repo")
    sessions = sorted((TRANSCRIPTS / "claude-code-jsonl").glob("*")) if TRANSCRIPTS.is_dir() else []
    session = sessions[0] if sessions else None
    for i in range(30):
        files: dict[str, str | bytes] = {f"f{i % 7}.txt": f"line {i}\n"}
        if i == 12 and session is not None:
            files["notes/s.jsonl"] = session.read_bytes()
        commit(root, files, f"commit {i}\n\nbody {i}")
    git(root, "tag", "-a", "v1", "-m", "release one")
    scans = runs(root)
    uncached = scans(mode="history", cache=False)
    cold = scans(mode="history")
    assert scans.started("diff-tree") and scans.started("read")
    warm = scans(mode="history")
    assert not scans.started("diff-tree"), scans.commands
    assert not scans.started("read"), scans.commands
    assert cold == warm == uncached
    assert entries(verdicts.LISTING) == 30 + 2  # each commit's listing; the tag's type, target
    commit(root, {"f1.txt": "changed\n"}, "one more")
    again = scans(mode="history")
    assert again == scans(mode="history", cache=False)
    assert entries(verdicts.LISTING) == 31 + 2


def _no_judging(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every call of the gate's judging (blobs.judge_entries and blobs.judge_messages)."""
    from apc_tools.boundary import blobs

    calls: list[str] = []
    for name in ("judge_entries", "judge_messages"):
        real = getattr(blobs, name)

        def spy(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            calls.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(blobs, name, spy)
    return calls


def test_a_history_rerun_is_answered_whole_and_misses_on_any_change(
    tmp_path: Path, xdg: Path, runs: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same commits, settings and apc: the raw findings of the whole scan, nothing judged
    again; a new commit, a new annotated tag, other settings, a damaged value: judged."""
    root = init(tmp_path / "repo")
    for i in range(6):
        commit(root, {f"f{i % 3}.txt": f"line {i}\n"}, f"commit {i}\n\nbody {i}")
    commit(root, {"notes/AGENTS.md": f"# A\n\n{token('ghp_', 36)}\n"}, "a token")
    scans = runs(root)
    calls = _no_judging(monkeypatch)
    expected = scans(mode="history", cache=False)
    assert "BSC001" in expected
    assert scans(mode="history") == expected
    calls.clear()
    assert scans(mode="history") == expected and calls == []  # answered whole
    options = {"mode": "range", "rev_range": "HEAD~3..HEAD"}
    ranged = scans(cache=False, **options)
    assert scans(**options) == ranged
    calls.clear()
    assert scans(**options) == ranged and calls == []
    git(root, "tag", "-a", "v1", "-m", f"release {token('ghp_', 36, seed=2)}")
    calls.clear()
    tagged = scans(mode="history")
    assert calls, "a new tag: judged again"
    assert tagged == scans(mode="history", cache=False) and tagged != expected
    commit(root, {"f9.txt": "more\n"}, "one more")
    calls.clear()
    assert scans(mode="history") == scans(mode="history", cache=False) and calls
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\nboundary:\n  secrets: all\n")
    calls.clear()
    assert scans(mode="history", config=policy) == scans(mode="history", config=policy, cache=False)
    assert calls
    db = sqlite3.connect(db_file(xdg))
    with db:
        db.execute("UPDATE entries SET value = x'7b6e6f74'")  # every row: "{not"
    db.close()
    calls.clear()
    assert scans(mode="history") == scans(mode="history", cache=False) and calls
    for value in (b"{not", b"[1]", b'[["a","BPA001","bad",1,1,"",null]]', b"{}"):
        assert verdicts.load_run(value) is None


def test_range_mode_same_cold_warm(tmp_path: Path, xdg: Path, runs: Any) -> None:
    root = init(tmp_path / "repo")
    commit(root, {"a.txt": "a\n"})
    for i in range(5):
        commit(root, {f"b{i}.txt": f"{token('ghp_', 36, seed=i)}\n"}, f"c{i}")
    scans = runs(root)
    options = {"mode": "range", "rev_range": "HEAD~5..HEAD", "secrets": "all"}
    uncached = scans(cache=False, **options)
    assert "BSC001" in uncached
    assert scans(**options) == uncached
    assert scans(**options) == uncached
    assert not scans.started("diff-tree --stdin")  # the listing; the policy check remains


# --------------------------------------------------------------------------- the key


def _policy(tmp_path: Path, text: str) -> Path:
    path = tmp_path / f"policy-{abs(hash(text))}.yaml"
    path.write_text(text)
    return path


KEY_VARIANTS: dict[str, Any] = {
    "secrets all": {"secrets": "all"},
    "no inline allow": {"inline_allow": False},
    "read limit": {"policy": "version: 1\nboundary:\n  max_blob_bytes: 65536\n"},
    "BTR glob": {"policy": "version: 1\nboundary:\n  paths:\n    BTR: ['**/*.log']\n"},
    "BDB glob": {"policy": "version: 1\nboundary:\n  paths:\n    BDB: ['**/*.bin']\n"},
}


def _key_repo(tmp_path: Path) -> Path:
    root = init(tmp_path / "repo")
    commit(
        root,
        {
            "AGENTS.md": "# Agents\n\nBe brief.\n",
            "notes/run.log": "started\nfinished\n",
            "data/x.bin": b"\x00\x01binary",
            "src/a.py": "x = 1  # apc: allow BMK001\n",
        },
    )
    return root


@pytest.mark.parametrize("variant", list(KEY_VARIANTS))
def test_each_scan_input_of_the_key_misses_when_changed(
    variant: str, tmp_path: Path, xdg: Path, runs: Any
) -> None:
    root = _key_repo(tmp_path)
    scans = runs(root, **per_blob(root))
    scans()
    before = entries()
    scans()
    assert entries() == before and not scans.started("read")  # the same inputs hit
    options = dict(KEY_VARIANTS[variant])
    if "policy" in options:
        options["config"] = _policy(tmp_path, options.pop("policy"))
    changed = scans(**options)
    assert scans.started("read")
    assert entries() == before + 4  # every blob missed (a new key each)
    assert changed == scans(cache=False, **options)


def test_the_path_is_part_of_the_key(tmp_path: Path, xdg: Path, runs: Any) -> None:
    """The same blob at another path (contract file, agent configuration, suffix, name, the
    policy's globs all follow from it) is another verdict."""
    root = init(tmp_path / "repo")
    secret = token("ghp_", 36)
    commit(root, {"docs/guide.txt": f"token {secret}\n"})
    scans = runs(root)
    first = scans()
    assert "BSC001" not in first  # secrets are looked for in contract files only
    git(root, "mv", "docs/guide.txt", "AGENTS.md")
    git(root, "commit", "-q", "-m", "rename")
    moved = scans()
    assert scans.started("read")
    assert "BSC001" in moved
    assert moved == scans(cache=False)


def test_a_path_rule_hit_is_part_of_the_key(tmp_path: Path, xdg: Path, runs: Any) -> None:
    root = init(tmp_path / "repo")
    commit(root, {"notes/plain.txt": "nothing here\n"})
    scans = runs(root, **per_blob(root))
    scans()
    before = entries()
    policy = _policy(tmp_path, "version: 1\nboundary:\n  paths:\n    BPA: ['notes/**']\n")
    hit = scans(config=policy)
    assert scans.started("read") and entries() == before + 1
    assert hit == scans(config=policy, cache=False)


def test_content_is_part_of_the_key(tmp_path: Path, xdg: Path, runs: Any) -> None:
    root = init(tmp_path / "repo")
    commit(root, {"a.txt": "one\n", "b.txt": "two\n"})
    scans = runs(root, **per_blob(root))
    scans()
    commit(root, {"a.txt": "one, changed\n"})
    scans()
    assert entries() == 3  # the new blob only


def test_the_zstd_decompressor_is_part_of_the_key(
    tmp_path: Path, xdg: Path, runs: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from apc_tools.boundary import disguise

    root = init(tmp_path / "repo")
    commit(root, {"a.txt": "one\n"})
    scans = runs(root, **per_blob(root))
    scans()
    monkeypatch.setattr(disguise, "zstd_module", lambda: None)
    scans()
    assert scans.started("read") and entries() == 2


def test_apc_version_is_part_of_the_key(
    tmp_path: Path, xdg: Path, runs: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = init(tmp_path / "repo")
    commit(root, {"a.txt": "one\n"})
    scans = runs(root, **per_blob(root))
    scans()
    monkeypatch.setattr(store, "__version__", "99.0.0")
    scans()
    assert scans.started("read") and entries() == 2


def test_a_damaged_value_is_not_trusted(tmp_path: Path, xdg: Path, runs: Any) -> None:
    root = init(tmp_path / "repo")
    commit(root, {"AGENTS.md": f"# A\n\n{token('ghp_', 36)}\n"})
    scans = runs(root)
    first = scans()
    db = sqlite3.connect(db_file(xdg))
    with db:
        db.execute("UPDATE entries SET value = x'7b7b6e6f74206a736f6e'")  # "{{not json"
    db.close()
    assert scans() == first
    assert scans.started("read")


# --------------------------------------------------------------------------- an unusable cache


def _unusable(kind: str, xdg: Path, tmp_path: Path) -> None:
    path = db_file(xdg)
    path.parent.mkdir(parents=True, exist_ok=True)
    for one in path.parent.iterdir():
        if one.is_dir():
            shutil.rmtree(one)
        else:
            one.unlink()
    if kind == "corrupt":
        path.write_bytes(b"not a database at all " * 100)
    elif kind == "folder":
        path.mkdir()
    elif kind == "symlink":
        (tmp_path / "target").write_bytes(b"")
        path.symlink_to(tmp_path / "target")


@pytest.mark.parametrize("kind", ["corrupt", "folder", "symlink"])
def test_an_unusable_cache_changes_nothing(kind: str, tmp_path: Path, xdg: Path, runs: Any) -> None:
    root = _key_repo(tmp_path)
    scans = runs(root)
    expected = scans(cache=False, secrets="all")
    _unusable(kind, xdg, tmp_path)
    assert scans(secrets="all") == expected
    assert scans(secrets="all") == expected


def test_cli_with_an_unusable_cache_has_no_traceback(tmp_path: Path, xdg: Path) -> None:
    root = _key_repo(tmp_path)
    _unusable("corrupt", xdg, tmp_path)
    env = {**os.environ, "XDG_CACHE_HOME": str(xdg)}
    done = subprocess.run(
        [sys.executable, "-m", "apc_tools", "boundary", "--format", "json"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


# --------------------------------------------------------------------------- bypass


@pytest.mark.parametrize("how", ["flag", "env"])
def test_no_cache_and_apc_no_cache_write_nothing(
    how: str, tmp_path: Path, xdg: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _key_repo(tmp_path)
    env = {**os.environ, "XDG_CACHE_HOME": str(xdg)}
    args = [sys.executable, "-m", "apc_tools"]
    for command in (["boundary", "--history"], ["boundary"], ["check"], ["validate"]):
        extra = ["--no-cache"] if how == "flag" else []
        if how == "env":
            env[store.NO_CACHE_ENV] = "1"
        done = subprocess.run(
            [*args, *command, *extra], cwd=root, env=env, capture_output=True, text=True
        )
        assert done.returncode in (0, 1), done.stderr
        assert "Traceback" not in done.stderr
    assert not xdg.exists()


def test_the_cli_fills_and_reads_the_cache(tmp_path: Path, xdg: Path) -> None:
    root = _key_repo(tmp_path)
    env = {**os.environ, "XDG_CACHE_HOME": str(xdg)}
    outputs = []
    for extra in (["--no-cache"], [], []):
        done = subprocess.run(
            [sys.executable, "-m", "apc_tools", "boundary", "--format", "json", *extra],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] == outputs[2]
    # the whole tree's scan keeps its folders' verdicts (the root, each folder, the pointer to
    # the last root: boundary/subtrees.py)
    folders = len(git(root, "ls-tree", "-r", "-t", "-d", "HEAD").splitlines())
    assert entries(subtrees.TREES) == folders + 2


def test_concurrent_scans_share_the_cache(tmp_path: Path, xdg: Path) -> None:
    root = init(tmp_path / "repo")
    commit(root, {f"src/m{i}.py": f"x = {i}\n" * (i + 1) for i in range(300)})
    env = {**os.environ, "XDG_CACHE_HOME": str(xdg)}
    # a PATH: the per-blob verdicts (the whole tree's scan keeps its folders', test_subtrees)
    command = [sys.executable, "-m", "apc_tools", "boundary", "--format", "json", "."]
    expected = subprocess.run(
        [*command, "--no-cache"], cwd=root, env=env, capture_output=True, text=True
    ).stdout
    procs = [
        subprocess.Popen(
            command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(3)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert out == expected
    filled = entries()
    assert filled >= 300
    trace = tmp_path / "trace"
    again = subprocess.run(
        command, cwd=root, env={**env, "GIT_TRACE": str(trace)}, capture_output=True, text=True
    )
    assert again.stdout == expected
    assert "cat-file --batch\n" not in trace.read_text()  # all 300 verdicts were kept
    assert entries() == filled


def test_a_quiet_blob_at_a_flagged_path_still_reports_the_path(
    tmp_path: Path, xdg: Path, runs: Any
) -> None:
    """The warm loop skips a blob only when every path of it is answered empty and no path rule
    hits any of them: one blob at a plain path and at a runtime path, a session, a symlink and a
    submodule, answered warm as cold."""
    root = init(tmp_path / "repo")
    body = "nothing here\n"
    commit(root, {"src/a.txt": body, ".aider.input.history": body, "src/b.py": "x = 1\n"})
    os.symlink("a.txt", root / "src" / "link")
    git(root, "add", "-A")
    git(root, "update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},vendor/sub")
    git(root, "commit", "-q", "-m", "link and submodule")
    scans = runs(root)
    cold = scans()
    warm = scans()
    assert not scans.started("read")  # answered wholly from the cache
    assert warm == cold == scans(cache=False)
    found = {(f["rule"], f["path"]) for f in json.loads(warm)["findings"]}
    assert ("BPA002", ".aider.input.history") in found
    assert any(path == "vendor/sub" for _, path in found)
