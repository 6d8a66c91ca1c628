"""The gate fails closed (issue 14): apc sees every blob the range, push or tree holds, or it
exits 2 and says what it could not see and how to get it; no program that git configuration
names ever runs; everything a push carries is read; one function decides the trusted inputs.

Every test builds real git repositories in temporary folders: shallow clones of a merged side
branch, blob-filtered partial clones over ``file://``, hostile configuration at repository,
global and ``include.path`` level, replace refs, grafts, signed commits, symlinks, tags.
"""

from __future__ import annotations

import base64
import gzip
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from apc_tools.boundary.sources import COMMIT_MESSAGE
from apc_tools.boundary.trusted import gate_inputs
from apc_tools.core import git as gitio
from apc_tools.findings import CannotRun, Finding
from tests.boundary.helpers import CLAUDE, commit, findings, init, remove, repo, token
from tests.conftest import GIT_ENV, git, run_apc, stored_object

CLEAN = {"README.md": "# project\n"}


def apc(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_apc(cwd, *args, env=env)


def clone(origin: Path, target: Path, *options: str) -> Path:
    subprocess.run(
        ["git", "clone", "-q", "--no-local", *options, f"file://{origin}", str(target)],
        check=True,
        capture_output=True,
        env={**os.environ, **GIT_ENV},
    )
    return target


def rules(found: list[Finding]) -> set[tuple[str, str]]:
    return {(f.rule, f.path) for f in found}


# =========================================================================== item 1: shallow


def side_branch_project(tmp_path: Path) -> tuple[Path, str]:
    """main: base, then a merge of a side branch that added a session and removed it again
    (with more commits after it, so a shallow clone cuts the side branch). Returns (origin,
    base)."""
    origin = repo(tmp_path, CLEAN, name="origin")
    git(origin, "checkout", "-q", "-b", "side")
    commit(origin, {"notes/s.jsonl": CLAUDE}, "side: add notes")
    remove(origin, "notes/s.jsonl", message="side: drop notes")
    for i in range(3):
        commit(origin, {f"side{i}.txt": f"{i}\n"}, f"side {i}")
    git(origin, "checkout", "-q", "main")
    base = commit(origin, {"main.txt": "1\n"}, "main work")
    git(origin, "merge", "-q", "--no-ff", "--no-edit", "side")
    return origin, base


def test_range_refuses_a_side_branch_cut_by_the_shallow_boundary(tmp_path: Path) -> None:
    origin, base = side_branch_project(tmp_path)
    # The full history has the leak: the gate must see it.
    full = clone(origin, tmp_path / "full")
    assert ("BTR001", "notes/s.jsonl") in rules(
        findings(full, mode="range", rev_range=f"{base}..HEAD")
    )
    # Depth 2: the merge, its first parent (the base) and the side branch's tip, cut there.
    shallow = clone(origin, tmp_path / "shallow", "--depth", "2")
    assert git(shallow, "rev-parse", "--verify", "-q", f"{base}^{{commit}}").strip() == base
    with pytest.raises(CannotRun, match=r"shallow boundary.*--unshallow.*fetch-depth: 0"):
        findings(shallow, mode="range", rev_range=f"{base}..HEAD")
    done = apc(shallow, "boundary", "--range", f"{base}..HEAD")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "shallow boundary" in done.stderr and "git fetch --unshallow" in done.stderr
    checked = apc(shallow, "check", "--range", f"{base}..HEAD")
    assert checked.returncode == 2 and "shallow boundary" in checked.stderr
    # Once the history is fetched, the range is read whole and the leak is found.
    git(shallow, "fetch", "-q", "--unshallow")
    assert ("BTR001", "notes/s.jsonl") in rules(
        findings(shallow, mode="range", rev_range=f"{base}..HEAD")
    )


def test_a_range_inside_the_fetched_part_of_a_shallow_clone_is_read(tmp_path: Path) -> None:
    origin = repo(tmp_path, CLEAN, name="origin")
    commit(origin, {"a.txt": "1\n"}, "two")
    base = commit(origin, {"b.txt": "2\n"}, "three")
    commit(origin, {"s.jsonl": CLAUDE}, "four")
    shallow = clone(origin, tmp_path / "shallow", "--depth", "3")
    assert ("BTR001", "s.jsonl") in rules(
        findings(shallow, mode="range", rev_range=f"{base}..HEAD")
    )


def test_grafts_cannot_cut_the_range(tmp_path: Path) -> None:
    origin, base = side_branch_project(tmp_path)
    side_tip = git(origin, "rev-parse", "side").strip()
    (origin / ".git" / "info").mkdir(exist_ok=True)
    (origin / ".git" / "info" / "grafts").write_text(f"{side_tip}\n")  # "no parents"
    assert git(origin, "rev-list", "--count", f"{base}..HEAD").strip() == "2"  # grafts are live
    assert ("BTR001", "notes/s.jsonl") in rules(
        findings(origin, mode="range", rev_range=f"{base}..HEAD")
    )
    # The same cut made with a replace ref (`git replace --graft`) is ignored too.
    (origin / ".git" / "info" / "grafts").unlink()
    git(origin, "replace", "--graft", side_tip)
    assert git(origin, "rev-list", "--count", f"{base}..HEAD").strip() == "2"
    assert ("BTR001", "notes/s.jsonl") in rules(
        findings(origin, mode="range", rev_range=f"{base}..HEAD")
    )


# =========================================================================== item 2: partial


def partial_origin(tmp_path: Path) -> Path:
    origin = repo(tmp_path, {**CLEAN, "src/app.py": "print('hi')\n"}, name="origin")
    git(origin, "config", "uploadpack.allowFilter", "true")
    git(origin, "config", "uploadpack.allowAnySHA1InWant", "true")
    commit(origin, {"big/data.jsonl": CLAUDE + "x" * 4000 + "\n"}, "add a session")
    return origin


def present(root: Path, oid: str) -> bool:
    done = subprocess.run(
        ["git", "cat-file", "-e", oid],
        cwd=root,
        env={**os.environ, "GIT_NO_LAZY_FETCH": "1"},
        capture_output=True,
    )
    return done.returncode == 0


@pytest.mark.parametrize("mode", ["tracked", "range", "history"])
def test_blob_none_clone_is_exit_2_naming_the_count_and_the_fix(tmp_path: Path, mode: str) -> None:
    origin = partial_origin(tmp_path)
    part = clone(origin, tmp_path / "partial", "--no-checkout", "--filter=blob:none")
    oid = git(part, "rev-parse", "HEAD:big/data.jsonl").strip()
    options: dict[str, object] = {"mode": mode}
    if mode == "range":
        options["rev_range"] = "HEAD~1..HEAD"
    count = {"tracked": 3, "range": 1, "history": 3}[mode]
    pattern = rf"{count} blobs? .*missing from this partial clone.*--filter.*--refetch --no-filter"
    with pytest.raises(CannotRun, match=pattern):
        findings(part, **options)
    assert not present(part, oid)  # GIT_NO_LAZY_FETCH: nothing was fetched
    args = {"tracked": [], "range": ["--range", "HEAD~1..HEAD"], "history": ["--history"]}[mode]
    done = apc(part, "boundary", *args)
    assert done.returncode == 2 and f"{count} blob" in done.stderr, done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_blob_limit_clone_refuses_only_what_is_missing_and_the_fix_works(tmp_path: Path) -> None:
    origin = partial_origin(tmp_path)
    part = clone(origin, tmp_path / "partial", "--no-checkout", "--filter=blob:limit=1k")
    small = git(part, "rev-parse", "HEAD:README.md").strip()
    assert present(part, small)
    with pytest.raises(CannotRun, match=r"1 blob \(first: big/data\.jsonl.*partial clone"):
        findings(part)
    checked = apc(part, "check")
    assert checked.returncode == 2 and "1 blob" in checked.stderr
    # The fix the message names: fetch every blob (from the local origin), then scan.
    git(part, "fetch", "-q", "--refetch", "--no-filter", "origin")
    assert ("BTR001", "big/data.jsonl") in rules(findings(part))


def test_a_promisor_remote_that_is_a_command_never_runs(tmp_path: Path) -> None:
    """GIT_NO_LAZY_FETCH stays on: a partial clone whose promisor remote is an ``ext::``
    command (which a lazy fetch would run) is exit 2 and the command never runs."""
    origin = partial_origin(tmp_path)
    part = clone(origin, tmp_path / "partial", "--no-checkout", "--filter=blob:none")
    mark = tmp_path / "fetched"
    script = tmp_path / "remote.sh"
    script.write_text(f'#!/bin/sh\ntouch "{mark}"\nexit 1\n')
    script.chmod(0o755)
    git(part, "config", "remote.origin.url", f"ext::{script}")
    git(part, "config", "protocol.ext.allow", "always")
    lazy = subprocess.run(
        ["git", "cat-file", "-p", "HEAD:README.md"], cwd=part, capture_output=True, env=os.environ
    )
    assert lazy.returncode != 0 and mark.exists()  # a lazy fetch runs the command
    mark.unlink()
    for args in (["boundary"], ["boundary", "--history"], ["check", "--range", "HEAD~1..HEAD"]):
        done = apc(part, *args)
        assert done.returncode == 2 and "partial clone" in done.stderr, (args, done.stderr)
    assert not mark.exists()


def test_a_blob_over_the_read_cap_is_a_finding_not_exit_2(tmp_path: Path) -> None:
    origin = partial_origin(tmp_path)
    commit(origin, {"big/dump.jsonl": CLAUDE + "x" * 300_000 + "\n"}, "a large session")
    part = clone(origin, tmp_path / "partial", "--no-checkout", "--filter=blob:limit=1m")
    cap = tmp_path / "cap.yaml"
    cap.write_text("version: 1\nboundary:\n  max_blob_bytes: 100000\n")
    found = findings(part, config=cap)
    assert ("BIO001", "big/dump.jsonl") in rules(found)  # read in part: its head was scanned
    assert ("BTR001", "big/dump.jsonl") in rules(found)


def test_the_batch_reader_stays_alive_past_a_missing_object(tmp_path: Path) -> None:
    origin = partial_origin(tmp_path)
    part = clone(origin, tmp_path / "partial", "--no-checkout", "--filter=blob:limit=1k")
    readme = git(part, "rev-parse", "HEAD:README.md").strip()
    app = git(part, "rev-parse", "HEAD:src/app.py").strip()
    big = git(part, "rev-parse", "HEAD:big/data.jsonl").strip()
    unknown = "0" * 40
    with gitio.BlobReader(gitio.open_repo(part)) as reader:
        answers = list(reader.read_many([readme, big, app, unknown, readme], 1 << 20))
    assert [oid for oid, _ in answers] == [readme, big, app, unknown, readme]
    assert [blob.missing for _, blob in answers] == [False, True, False, True, False]
    assert answers[2][1].data == b"print('hi')\n"
    assert not present(part, big)


def test_the_base_policy_missing_from_a_partial_clone_is_exit_2(tmp_path: Path) -> None:
    origin = partial_origin(tmp_path)
    commit(origin, {".apc-tools.yaml": "version: 1\nexclude: ['big/**']\n"}, "policy")
    commit(origin, {"c.txt": "c\n"}, "more")
    part = clone(origin, tmp_path / "partial", "--no-checkout", "--filter=blob:none")
    for run in (
        apc(part, "boundary", "--range", "HEAD~1..HEAD"),
        apc(part, "check", "--range", "HEAD~1..HEAD"),
    ):
        assert run.returncode == 2, run.stdout + run.stderr
        assert ".apc-tools.yaml (at " in run.stderr and "not in this clone" in run.stderr


def test_a_tree_filtered_clone_is_exit_2_not_a_traceback(tmp_path: Path) -> None:
    origin = partial_origin(tmp_path)
    part = clone(origin, tmp_path / "partial", "--no-checkout", "--filter=tree:0")
    done = apc(part, "boundary", "--history")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "partial clone" in done.stderr and "Traceback" not in done.stderr


# =========================================================================== item 5: config

SIGNATURES = {
    "openpgp": "-----BEGIN PGP SIGNATURE-----\n\niQEzBAABCAAdFiEE\n-----END PGP SIGNATURE-----",
    "x509": "-----BEGIN SIGNED MESSAGE-----\nMIAGCSqGSIb3DQEH\n-----END SIGNED MESSAGE-----",
    "ssh": "-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAQAA\n-----END SSH SIGNATURE-----",
}
PROGRAM_KEYS = (
    "gpg.program",
    "gpg.openpgp.program",
    "gpg.x509.program",
    "gpg.ssh.program",
    "gpg.ssh.defaultKeyCommand",
    "core.fsmonitor",
    "core.pager",
    "pager.log",
    "pager.diff",
    "diff.external",
    "diff.evil.textconv",
    "filter.evil.clean",
    "filter.evil.smudge",
    "filter.evil.process",
    "core.sshCommand",
    "core.askPass",
    "credential.helper",
    "core.editor",
    "sequence.editor",
    "core.alternateRefsCommand",
)


def marker_programs(folder: Path, marks: Path) -> dict[str, str]:
    """One script per configuration key; each writes a marker file named after its key."""
    folder.mkdir()
    marks.mkdir()
    out: dict[str, str] = {}
    for key in PROGRAM_KEYS:
        script = folder / f"{key}.sh"
        script.write_text(f'#!/bin/sh\necho "$@" > "{marks}/{key}"\nexit 1\n')
        script.chmod(0o755)
        out[key] = str(script)
    return out


def hostile_config(programs: dict[str, str], allowed: Path) -> str:
    """A git configuration that checks every signature it shows and names a marker program
    for every key that runs one."""
    sections: dict[str, list[str]] = {
        "[log]": ["showSignature = true", "showRoot = false"],
        "[core]": ["useReplaceRefs = true"],
    }
    for key, script in programs.items():
        parts = key.split(".")
        title = f'[{parts[0]} "{parts[1]}"]' if len(parts) == 3 else f"[{parts[0]}]"
        sections.setdefault(title, []).append(f"{parts[-1]} = {script}")
    sections.setdefault('[gpg "ssh"]', []).append(f"allowedSignersFile = {allowed}")
    return "".join(t + "\n" + "".join(f"\t{e}\n" for e in es) for t, es in sections.items())


def signed_commit(root: Path, parent: str, kind: str, files: dict[str, str], message: str) -> str:
    """A commit whose header carries a ``gpgsig`` of ``kind``, made with hash-object."""
    commit(root, files, "unsigned")
    tree = git(root, "rev-parse", "HEAD^{tree}").strip()
    signature = "\n ".join(SIGNATURES[kind].split("\n"))
    body = (
        f"tree {tree}\nparent {parent}\n"
        "author A <a@example.com> 1767225600 +0000\n"
        "committer A <a@example.com> 1767225600 +0000\n"
        f"gpgsig {signature}\n\n{message}\n"
    )
    oid = stored_object(root, body, "commit")
    git(root, "update-ref", "HEAD", oid)
    git(root, "reset", "-q", "--hard", oid)
    return oid


@pytest.fixture
def signed_repo(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    root = repo(tmp_path, {**CLEAN, ".gitattributes": "* diff=evil filter=evil\n"}, name="signed")
    base = git(root, "rev-parse", "HEAD").strip()
    tip = base
    for i, kind in enumerate(SIGNATURES):
        tip = signed_commit(root, tip, kind, {f"s{i}.jsonl": CLAUDE}, f"signed {kind}")
    git(root, "tag", "-a", "v1", "-m", "release\n\n" + SIGNATURES["openpgp"])
    yield root, base


@pytest.mark.parametrize("level", ["repository", "global", "include"])
def test_no_program_from_git_configuration_ever_runs(
    tmp_path: Path, signed_repo: tuple[Path, str], level: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, base = signed_repo
    marks = tmp_path / "marks"
    programs = marker_programs(tmp_path / "bin", marks)
    allowed = tmp_path / "allowed_signers"
    allowed.write_text("a@example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFake\n")
    config = hostile_config(programs, allowed)
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    (home / ".gitconfig").write_text("")
    if level == "repository":
        with (root / ".git" / "config").open("a") as out:
            out.write(config)
    elif level == "global":
        (home / ".gitconfig").write_text(config)
    else:
        (tmp_path / "evil.inc").write_text(config)
        git(root, "config", "include.path", str(tmp_path / "evil.inc"))
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    # The hostile configuration is live: plain git runs the signature program.
    subprocess.run(
        ["git", "log", "-3", "--format=%H"], cwd=root, capture_output=True, env={**os.environ}
    )
    # (The first signature program git runs exits without reading: git may stop there.)
    assert any(mark.name.startswith("gpg.") for mark in marks.iterdir())
    for mark in marks.iterdir():
        mark.unlink()
    found = {
        "tracked": findings(root),
        "staged": findings(root, mode="staged", paths=(root / "s0.jsonl",)),
        "range": findings(root, mode="range", rev_range=f"{base}..HEAD"),
        "history": findings(root, mode="history"),
    }
    for mode, got in found.items():
        assert ("BTR001", "s0.jsonl") in rules(got), mode
    assert ("BTR001", "s2.jsonl") in rules(found["range"])
    for args in (
        ["boundary", "--range", f"{base}..HEAD"],
        ["boundary", "--history"],
        ["check", "--range", f"{base}..HEAD"],
    ):
        done = apc(root, *args, env=env)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
    assert sorted(p.name for p in marks.iterdir()) == []


def test_log_show_root_false_cannot_hide_a_root_commit(tmp_path: Path) -> None:
    root = repo(tmp_path, {"s.jsonl": CLAUDE})
    root_commit = git(root, "rev-parse", "HEAD").strip()
    remove(root, "s.jsonl")
    git(root, "config", "log.showRoot", "false")
    assert "s.jsonl" not in git(root, "log", "--raw", "--diff-filter=A", "--format=%H")
    found = [f for f in findings(root, mode="history") if f.rule == "BTR001"]
    assert [(f.path, f.commit) for f in found] == [("s.jsonl", root_commit)]


def test_replace_refs_cannot_swap_out_the_commit_that_adds_a_session(tmp_path: Path) -> None:
    root = repo(tmp_path, CLEAN)
    base = git(root, "rev-parse", "HEAD").strip()
    leaky = commit(root, {"s.jsonl": CLAUDE}, "add notes")
    tip = remove(root, "s.jsonl")
    # A clean commit with the same parent, put in place of the leaky one through refs/replace/.
    git(root, "checkout", "-q", base)
    clean = commit(root, {"ok.txt": "ok\n"}, "add notes")
    git(root, "checkout", "-q", "main")
    git(root, "replace", leaky, clean)
    assert "s.jsonl" not in git(root, "log", "--raw", "--format=%H", f"{base}..{tip}")
    for mode, extra in (("range", {"rev_range": f"{base}..HEAD"}), ("history", {})):
        found = rules(findings(root, mode=mode, **extra))
        assert ("BTR001", "s.jsonl") in found, mode


def test_a_replace_ref_cannot_swap_a_session_blob_for_a_clean_one(tmp_path: Path) -> None:
    root = repo(tmp_path, {"notes.jsonl": CLAUDE, "ok.txt": "ok\n"})
    session = git(root, "rev-parse", "HEAD:notes.jsonl").strip()
    git(root, "replace", "-f", session, git(root, "rev-parse", "HEAD:ok.txt").strip())
    assert git(root, "cat-file", "blob", session) == "ok\n"  # what git shows by default
    for mode in ("tracked", "history"):
        assert ("BTR001", "notes.jsonl") in rules(findings(root, mode=mode)), mode
    assert ("BTR001", "notes.jsonl") in rules(
        findings(root, mode="staged", paths=(root / "notes.jsonl",))
    )


# =========================================================================== item 6: read all


def link(root: Path, path: str, target: str) -> None:
    where = root / path
    where.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, where)


def test_symlink_targets_go_through_the_secret_and_local_path_detectors(tmp_path: Path) -> None:
    root = init(tmp_path / "repo")
    ghp = token("ghp_", 36)
    link(root, "notes-link", ghp)
    link(root, ".apc/memory.md", f"https://user:{token('ghp_', 36, seed=9)}@git.example.com/x")
    link(root, "AGENTS.md", "/home/ana/src/notes/AGENTS.md")
    link(root, "docs/readme-link", "/home/ana/readme.md")  # not a contract file: no BLP
    commit(root, {}, "links")
    found = findings(root)
    got = rules(found)
    assert {("BSC001", "notes-link"), ("BSC001", ".apc/memory.md"), ("BLP001", "AGENTS.md")} <= got
    assert ("BLP001", "docs/readme-link") not in got
    assert all(
        f.message.startswith("symlink target: ") for f in found if f.rule in ("BSC001", "BLP001")
    )
    assert all(ghp not in f.message for f in found)
    # The same in range and history modes, and through the command line.
    for mode, extra in (("range", {"rev_range": "HEAD~1..HEAD"}), ("history", {})):
        if mode == "range":
            commit(root, {"x.txt": "x\n"}, "more")
            os.unlink(root / "notes-link")
            link(root, "notes-link", token("ghp_", 36, seed=11))
            commit(root, {}, "new link")
        assert ("BSC001", "notes-link") in rules(findings(root, mode=mode, **extra)), mode
    done = apc(root, "boundary")
    assert done.returncode == 1 and "notes-link" in done.stdout and ghp not in done.stdout
    # What pre-commit scans: a link staged, not yet committed.
    link(root, "more/key-link", token("sk-proj-", 48, seed=5))
    git(root, "add", "more/key-link")
    assert ("BSC001", "more/key-link") in rules(findings(root, mode="staged"))


def test_commit_messages_are_scanned_in_range_and_history(tmp_path: Path) -> None:
    root = repo(tmp_path, CLEAN)
    base = git(root, "rev-parse", "HEAD").strip()
    pasted = commit(root, {"a.txt": "a\n"}, "fix it\n\n" + CLAUDE)
    keyed = commit(root, {"b.txt": "b\n"}, f"deploy with {token('ghp_', 36)}")
    for mode, extra in (("range", {"rev_range": f"{base}..HEAD"}), ("history", {})):
        found = findings(root, mode=mode, **extra)
        at = {(f.rule, f.commit) for f in found if f.path == COMMIT_MESSAGE}
        assert ("BTR001", pasted) in at and ("BSC001", keyed) in at, mode
    assert not [f for f in findings(root) if f.path == COMMIT_MESSAGE]  # the tree at HEAD only
    # A PATH narrows the scan to files: messages have no path.
    assert not [
        f
        for f in findings(root, mode="range", rev_range=f"{base}..HEAD", paths=(root / "a.txt",))
        if f.path == COMMIT_MESSAGE
    ]
    done = apc(root, "boundary", "--range", f"{base}..HEAD")
    assert done.returncode == 1 and "(commit message)" in done.stdout


def test_a_wrapped_session_under_a_commit_subject_is_found(tmp_path: Path) -> None:
    """A message is a subject line, then a body: a base64 (or base64-of-gzip) session in the
    body, which the wrappers read only at the top of what they are given, is a leak too."""
    root = repo(tmp_path, CLEAN)
    base = git(root, "rev-parse", "HEAD").strip()
    wrapped = base64.encodebytes(gzip.compress(CLAUDE.encode(), mtime=0)).decode()
    plain = base64.encodebytes(CLAUDE.replace("5d2c", "6e3d").encode()).decode()
    git(root, "commit", "-q", "--allow-empty", "-m", "notes", "-m", wrapped)
    git(root, "checkout", "-q", "-b", "side", base)
    commit(root, {"side.txt": "side\n"}, "side work")
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "-m", f"Merge side\n\n{plain}", "side")
    git(root, "commit", "-q", "--allow-empty", "-m", "clean", "-m", "a plain body\n\nmore")
    found = findings(root, mode="history")  # one finding per commit (a range shows the first)
    hits = [f for f in found if f.path == COMMIT_MESSAGE]
    assert {f.rule for f in hits} == {"BTR001"}
    assert len({f.commit for f in hits}) == 2  # "notes" and the merge, not "clean"
    merge = findings(root, mode="range", rev_range="HEAD~2..HEAD~1")
    assert [f.rule for f in merge if f.path == COMMIT_MESSAGE] == ["BTR001"]
    done = apc(root, "boundary", "--range", f"{base}..HEAD")
    assert done.returncode == 1 and "(commit message)" in done.stdout


def test_tag_messages_and_objects_reachable_only_through_a_tag(tmp_path: Path) -> None:
    root = repo(tmp_path, CLEAN)
    base = git(root, "rev-parse", "HEAD").strip()
    commit(root, {"a.txt": "a\n"}, "work")
    git(root, "tag", "-a", "v1", "-m", f"release, token {token('ghp_', 36)}")
    git(root, "tag", "-a", "v1-signed", "v1", "-m", "a tag of a tag\n\n" + CLAUDE)
    # A tree and a blob that no commit holds, kept alive only by tags.
    session = stored_object(root, CLAUDE)
    tree = session
    for kind, name in (
        ("blob", "x.jsonl"),
        ("tree", "-w"),
        ("tree", "projects"),
        ("tree", ".claude"),
    ):
        mode = "100644" if kind == "blob" else "040000"
        tree = subprocess.run(
            ["git", "mktree"],
            cwd=root,
            input=f"{mode} {kind} {tree}\t{name}\n",
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    git(root, "tag", "-a", "hidden-tree", tree, "-m", "a tree")
    git(root, "tag", "-a", "hidden-blob", session, "-m", "a blob")
    found = rules(findings(root, mode="history"))
    assert {
        ("BSC001", "(tag message refs/tags/v1)"),
        ("BTR001", "(tag message refs/tags/v1-signed)"),
        ("BPA002", ".claude/projects/-w/x.jsonl"),
        ("BTR001", ".claude/projects/-w/x.jsonl"),
        ("BTR001", "(tag refs/tags/hidden-blob)"),
    } <= found
    ranged = rules(findings(root, mode="range", rev_range=f"{base}..v1-signed"))
    assert {("BSC001", "(tag message v1)"), ("BTR001", "(tag message v1-signed)")} <= ranged


@pytest.mark.parametrize("spec", ["..HEAD", "HEAD..", " ..HEAD"])
@pytest.mark.parametrize("command", ["boundary", "check"])
def test_a_range_with_an_empty_side_is_refused(tmp_path: Path, spec: str, command: str) -> None:
    """`--range "$BASE..$HEAD"` with an unset variable: git would read HEAD..HEAD, nothing."""
    root = repo(tmp_path, CLEAN)
    commit(root, {"s.jsonl": CLAUDE}, "leak")
    done = apc(root, command, "--range", spec)
    assert done.returncode == 2, done.stdout
    assert "must both be named" in done.stderr


def test_refs_straight_at_a_blob_or_a_tree_are_read_by_history(tmp_path: Path) -> None:
    """A lightweight tag (or any ref) can name a blob or a tree, no tag object between:
    `git push origin refs/tags/x` sends it all the same."""
    root = repo(tmp_path, CLEAN)

    blob = stored_object(root, CLAUDE.replace("5d2c", "77aa"))
    git(root, "tag", "light-blob", blob)
    git(root, "update-ref", "refs/notes/blob", stored_object(root, CLAUDE.replace("5d2c", "88bb")))
    listing = f"100644 blob {stored_object(root, CLAUDE.replace('5d2c', '99cc'))}\tnotes.txt\n"
    tree = subprocess.run(
        ["git", "mktree"], cwd=root, input=listing, capture_output=True, text=True, check=True
    ).stdout.strip()
    git(root, "tag", "light-tree", tree)
    found = rules(findings(root, mode="history"))
    assert {
        ("BTR001", "(tag refs/tags/light-blob)"),
        ("BTR001", "(tag refs/notes/blob)"),
        ("BTR001", "notes.txt"),
    } <= found
    done = apc(root, "boundary", "--history")
    assert done.returncode == 1 and "(tag refs/tags/light-blob)" in done.stdout


# =========================================================================== item 9: inputs


def test_one_function_decides_policy_and_baseline_for_boundary_and_check(tmp_path: Path) -> None:
    root = repo(tmp_path, {**CLEAN, ".apc-tools.yaml": "version: 1\nbaseline: ok.json\n"})
    base = git(root, "rev-parse", "HEAD").strip()
    # The pull request accepts its own leak in the baseline and relaxes the policy.
    commit(root, {"s.jsonl": CLAUDE}, "leak")
    assert apc(root, "boundary", "--write-baseline").returncode == 0
    relaxed = "version: 1\nbaseline: ok.json\ndisable: [BTR001]\nexclude: ['s.jsonl']\n"
    commit(root, {".apc-tools.yaml": relaxed}, "relax")
    repository = gitio.open_repo(root)
    settings, baseline = gate_inputs(repository, base)
    assert settings.baseline == "ok.json" and not settings.exclude and baseline == ()
    here, accepted = gate_inputs(repository, None)  # outside range mode: the root files
    assert here.exclude == ("s.jsonl",) and "BTR001" in here.disabled
    assert [e.path for e in accepted] == ["s.jsonl"]
    assert apc(root, "boundary").returncode == 0  # the relaxed files rule the tracked scan
    # Range mode: the base commit's policy and baseline, for both commands.
    for args in (["boundary", "--range", f"{base}..HEAD"], ["check", "--range", f"{base}..HEAD"]):
        done = apc(root, *args)
        assert done.returncode == 1 and "BTR001" in done.stdout, (args, done.stdout, done.stderr)
    # An explicit --config wins over the base commit's policy; the baseline stays the base's.
    other = tmp_path / "policy.yaml"
    other.write_text("version: 1\ndisable: [BTR001]\n")
    settings, baseline = gate_inputs(repository, base, other)
    assert "BTR001" in settings.disabled and baseline == ()
