"""Entries that the pre-commit hooks and the GitHub Action call beside ``apc`` itself.

``python -m apc_tools.hooks pre-push [ARGS...]``: the ``apc-boundary-push`` hook. It scans every
commit the push sends, never the tree at HEAD: the commits reachable from the pushed commit and
from no ref of the remote (``git rev-list TIP --not FROM --remotes=REMOTE``). pre-commit passes
the push in variables (its ``hook_impl.py``, ``_pre_push_ns``, and ``run.py``): for the first
ref of the push that sends commits, ``PRE_COMMIT_FROM_REF``/``PRE_COMMIT_TO_REF`` (what the
remote has, what is pushed) and ``PRE_COMMIT_LOCAL_BRANCH``, ``PRE_COMMIT_REMOTE_BRANCH``,
``PRE_COMMIT_REMOTE_NAME``, ``PRE_COMMIT_REMOTE_URL``; when that ref's new commits reach a root
commit (an orphan branch, the first push to an empty remote) it sets no FROM/TO, only the branch
and remote names, and the pushed commit is the local ref's. Those commits become one ``apc
boundary`` run:

- one base commit below them (the usual push): ``--range BASE..TIP``, exactly the pushed
  commits (several bases: the base whose range is smallest; it may hold commits the remote
  already has, never fewer than the push sends);
- a root commit among them: ``--history``, every commit of the repository (which holds them);
- nothing new (the remote has every commit): nothing to scan.

pre-commit reads git's list of pushed refs itself and hands its hooks only the first ref that
sends commits. The hook reads the ``git push`` command line of the process that runs it (Linux:
``/proc``) and exits 2, naming the refs, when that push sends commits of more than one ref (two
refspecs, ``--all``, ``--branches``, ``--mirror``, ``--tags``, a glob, matching ``:``, several
``remote.NAME.push`` refspecs or ``push.default=matching``); where it cannot read the command
line it says so on stderr. Without any push variables (``pre-commit run --hook-stage pre-push``
by hand) it scans what a push of HEAD would send: HEAD's commits that no remote has.

``python -m apc_tools.hooks github-summary REPORT.json SARIF RANGE [SCOPE]``: the Markdown step
summary of the GitHub Action (action/apc-check.sh) for a JSON report, on stdout, with a note when
the SARIF file left results out (code scanning's limit per run).

``python -m apc_tools.hooks event-field EVENT.json KEY.PATH``: one string of the Action's event
payload, followed by a ``.`` (so that the shell keeps a trailing newline); "" when the key is
absent or not a string. An event file that is not one JSON object in UTF-8 (truncated, a
byte-order mark, an array, a key given twice, nesting past the parser's depth) exits 2 with
the reason on stdout, never a traceback: the Action refuses to guess what the event meant.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from apc_tools.core import git as gitio

USAGE = (
    "usage: python -m apc_tools.hooks pre-push [APC-BOUNDARY-OPTIONS...]\n"
    "       python -m apc_tools.hooks github-summary REPORT.json SARIF-FILE [RANGE [SCOPE]]\n"
    "       python -m apc_tools.hooks event-field EVENT.json KEY.PATH\n"
)
SHA = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")
GLOB = re.compile(r"[*?\[\\]")
PREFIX = "apc-boundary-push"
# `git push` options that take their value as the next argument (git's builtin/push.c)
PUSH_VALUE_OPTIONS = frozenset(
    {"-o", "--push-option", "--repo", "--receive-pack", "--exec", "--recurse-submodules"}
)
HEADS, TAGS = "refs/heads/", "refs/tags/"
# `git push` options that push many refs, and the refs each sends: `--tags` sends tags only, so
# a local branch that is not pushed is no reason to refuse (it was, before)
PUSH_MANY: dict[str, tuple[str, ...]] = {
    "--all": (HEADS,),
    "--branches": (HEADS,),
    "--tags": (TAGS,),
    "--mirror": (HEADS, TAGS),
}
GIT_VALUE_OPTIONS = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"}
)
ANCESTORS = 12  # how far up the process tree to look for `git push`


class Refused(Exception):
    """The hook cannot tell what the push sends, or the push sends more than it can scan."""


@dataclass(frozen=True)
class Push:
    """What the hook was told about the push."""

    tip: str | None  # the pushed commit
    ref: str  # the local ref (or revision) pushed, for messages
    excludes: tuple[str, ...]  # `rev-list` arguments after --not: what the remote has
    remote: str | None  # a configured remote's name


def _git(root: Path, *args: str) -> str:
    try:
        return gitio.run(root, args).decode("utf-8", "surrogateescape")
    except gitio.GitError as exc:
        raise Refused(f"git {args[0]} failed: {exc}") from None


def _commit(root: Path, rev: str) -> str | None:
    """The commit ``rev`` names, or None."""
    try:
        out = gitio.run(
            root, ["rev-parse", "--verify", "-q", "--end-of-options", f"{rev}^{{commit}}"]
        )
    except gitio.GitError:
        return None
    sha = out.decode().strip()
    return sha if SHA.match(sha) else None


def _remotes(root: Path) -> set[str]:
    return set(_git(root, "remote").split())


def read_push(root: Path, env: Mapping[str, str]) -> Push:
    """The pushed commit and what the remote already has, from pre-commit's variables."""
    start, end = env.get("PRE_COMMIT_FROM_REF", ""), env.get("PRE_COMMIT_TO_REF", "")
    local = env.get("PRE_COMMIT_LOCAL_BRANCH", "")
    remote = env.get("PRE_COMMIT_REMOTE_NAME", "")
    for name, value in (("PRE_COMMIT_FROM_REF", start), ("PRE_COMMIT_TO_REF", end)):
        if value and not SHA.match(value):
            raise Refused(f"{name} is not a commit id: {value!r}")
    if end:
        tip, ref = _commit(root, end), local or end
        if tip is None:
            raise Refused(f"the pushed commit {end} is not in this repository")
    elif local:
        tip, ref = _commit(root, local), local
        if tip is None:
            raise Refused(f"cannot resolve the pushed ref {local!r} to a commit")
    elif remote:
        raise Refused("pre-commit named the remote but not the pushed ref")
    else:  # by hand: what a push of HEAD would send to any remote
        return Push(_commit(root, "HEAD"), "HEAD", ("--remotes",), None)
    excludes: list[str] = []
    if start and _commit(root, start):
        excludes.append(start)
    configured = remote if remote and not GLOB.search(remote) and remote in _remotes(root) else None
    if configured:
        excludes.append(f"--remotes={configured}")
    return Push(tip, ref, tuple(excludes), configured)


def _rev_list(root: Path, *args: str) -> list[str]:
    return _git(root, "rev-list", *args, "--").split()


def scan_args(root: Path, push: Push, extra: Sequence[str]) -> tuple[list[str] | None, str]:
    """The ``apc`` arguments that scan every commit ``push`` sends (None: nothing to scan), and
    a note saying what is scanned."""
    if push.tip is None:
        return None, "no commit to push"
    revs = (push.tip, "--not", *push.excludes)
    new = _rev_list(root, *revs)
    if not new:
        return None, f"{push.ref}: the remote has every commit already"
    roots = _rev_list(root, "--max-parents=0", *revs)
    bases = [line[1:] for line in _rev_list(root, "--boundary", *revs) if line.startswith("-")]
    if roots or not bases:
        if _rev_list(root, "-n1", push.tip, "--not", "--all"):
            raise Refused(
                f"{push.ref} ({push.tip}) is on no branch or tag, so a scan of the history "
                "cannot reach it: create a branch for it and push that branch"
            )
        note = (
            f"{push.ref}: {len(new)} new commits reaching a root commit (a new history): "
            "scanning every commit of the repository"
        )
        return ["boundary", "--history", *extra], note
    sizes = {base: len(_rev_list(root, f"{base}..{push.tip}")) for base in bases}
    base = min(bases, key=lambda b: (sizes[b], b))
    note = (
        f"{push.ref}: scanning the {len(new)} commits being pushed ({base[:12]}..{push.tip[:12]})"
    )
    if sizes[base] > len(new):
        note += f", with {sizes[base] - len(new)} more the remote already has"
    return ["boundary", "--range", f"{base}..{push.tip}", *extra], note


# --------------------------------------------------------------------------- several refs


def _cmdline(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return [os.fsdecode(part) for part in raw.split(b"\0") if part] or None


def _parent(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()  # the name in parentheses may hold spaces
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None


def push_command() -> list[str] | None:
    """The arguments after ``push`` of the ``git push`` that runs this hook, or None when it
    cannot be read (no ``/proc``, or an alias)."""
    pid: int | None = os.getppid()
    for _ in range(ANCESTORS):
        if not pid or pid <= 1:
            return None
        argv = _cmdline(pid)
        if argv and os.path.basename(argv[0]) in ("git", "git.exe"):
            return _after_push(argv[1:])
        pid = _parent(pid)
    return None


def _after_push(args: list[str]) -> list[str] | None:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in GIT_VALUE_OPTIONS else 1
    return args[i + 1 :] if i < len(args) and args[i] == "push" else None


def push_sources(args: list[str]) -> tuple[list[str], tuple[str, ...]]:
    """(the source side of each refspec, the ref folders a push of many refs sends wholesale:
    ``refs/heads/``, ``refs/tags/``) of the ``git push`` arguments ``args``."""
    positional: list[str] = []
    many: set[str] = set()
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            positional += args[i + 1 :]
            break
        if arg in PUSH_VALUE_OPTIONS:
            i += 2
            continue
        if arg.startswith("-"):
            many.update(PUSH_MANY.get(arg, ()))
            if arg in ("-d", "--delete"):
                return [], ()  # deletions send no commits
        else:
            positional.append(arg)
        i += 1
    sources: list[str] = []
    specs = positional[1:]
    for i, spec in enumerate(specs):
        if spec == "tag" and i + 1 < len(specs):
            specs[i + 1] = TAGS + specs[i + 1]  # `git push REMOTE tag NAME`: refs/tags/NAME
            continue
        spec = spec.removeprefix("+")
        if spec.startswith("^"):
            continue  # a negative refspec excludes
        if spec == ":" or GLOB.search(spec.split(":", 1)[0]):
            many.update((HEADS, TAGS))
            continue
        source = spec.split(":", 1)[0]
        if source:
            sources.append(source)
    return sources, tuple(sorted(many))


def _configured(root: Path, key: str) -> list[str]:
    try:
        out = gitio.run(root, ["config", "--get-all", key])
    except gitio.GitError:
        return []
    return [line for line in out.decode("utf-8", "replace").splitlines() if line]


def other_refs(root: Path, push: Push, args: list[str]) -> list[str]:
    """The refs of the ``git push ARGS`` that send commits ``push`` does not hold (whatever
    pre-commit left out), as the push names them; every branch and tag for a push of many."""
    sources, folders = push_sources(args)
    many = set(folders)
    if not sources and not many and push.remote:
        for spec in _configured(root, f"remote.{push.remote}.push"):
            more, glob = push_sources(["push", push.remote, spec])
            sources += more
            many.update(glob)
        default = _configured(root, "push.default")
        if not sources and default[-1:] == ["matching"]:
            many.add(HEADS)
    if many:
        refs = _git(root, "for-each-ref", "--format=%(refname)", *sorted(many))
        sources += refs.split()
    others: list[str] = []
    for source in dict.fromkeys(sources):
        sha = _commit(root, source)
        if sha is None:
            if many:
                continue  # a tag of a tree or a blob: no commits
            raise Refused(f"cannot resolve {source!r} of the push to a commit")
        if push.tip and _rev_list(root, "-n1", sha, "--not", push.tip, *push.excludes):
            others.append(source)
    return others


def plan(root: Path, env: Mapping[str, str], extra: Sequence[str]) -> tuple[list[str] | None, str]:
    push = read_push(root, env)
    args, note = scan_args(root, push, extra)
    if env.get("PRE_COMMIT_REMOTE_NAME"):
        command = push_command()
        if command is None:
            note += (
                "; cannot read the `git push` command line, so refs pushed after the first are "
                "not known: push one ref at a time"
            )
        else:
            others = other_refs(root, push, command)
            if others:
                raise Refused(
                    f"this push also sends {', '.join(others)}, and pre-commit gives its hooks "
                    f"only the first ref ({push.ref}): push each ref on its own "
                    f"(`git push {push.remote or 'REMOTE'} REF`), so each is scanned"
                )
    return args, note


def github_summary(report_file: str, sarif_file: str, rev_range: str = "", scope: str = "") -> str:
    """The step summary; ``scope`` names what was scanned when ``rev_range`` alone would not
    (a whole history is scanned as the range from an empty root commit)."""
    from apc_tools.report.step_summary import render_step_summary

    report = json.loads(Path(report_file).read_text(encoding="utf-8"))
    if not scope:
        scope = f"the commits of `{rev_range}`" if rev_range else "the tree at HEAD"
    return render_step_summary(report, sarif_file, scope) + _sarif_cap(sarif_file)


def _sarif_cap(sarif_file: str) -> str:
    """A note when the SARIF run left results out (code scanning's limit per run)."""
    try:
        run = json.loads(Path(sarif_file).read_text(encoding="utf-8"))["runs"][0]
        props = run["properties"]
        omitted, total, limit = (
            props["resultsOmitted"],
            props["resultsTotal"],
            props["resultsLimit"],
        )
    except (OSError, ValueError, LookupError, TypeError):
        return ""
    if not isinstance(omitted, int) or omitted <= 0:
        return ""
    return (
        f"\nThe SARIF file holds the {limit} most severe of {total} findings: {omitted} were "
        f"left out (GitHub code scanning accepts at most {limit} results per run). The log "
        "and the JSON report (`apc check --format json`) list them all.\n"
    )


# --------------------------------------------------------------------------- the Action's event


class BadEvent(Exception):
    """The event file is not one JSON object the Action can trust."""


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise BadEvent(f"the key {key!r} is given twice (which one GitHub meant is unknown)")
        out[key] = value
    return out


def read_event(event_file: str) -> dict[str, object]:
    """The event payload GitHub wrote to ``event_file``: one JSON object in UTF-8."""
    try:
        raw = Path(event_file).read_bytes()
    except OSError as exc:
        raise BadEvent(f"cannot read it: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadEvent(f"not UTF-8 (byte {exc.start})") from None
    if text.startswith("\ufeff"):
        raise BadEvent("it begins with a byte-order mark (GitHub writes plain UTF-8 JSON)")
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates)
    except RecursionError:
        raise BadEvent("nested too deeply to parse") from None
    except ValueError as exc:  # JSONDecodeError
        raise BadEvent(f"not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise BadEvent(f"a JSON {type(value).__name__}, not an object")
    return value


def event_field(event_file: str, key: str) -> str:
    """The string at ``key`` (dotted) of the event payload; "" when absent or not a string; a
    NUL, which no shell variable can hold, spelled out."""
    value: object = read_event(event_file)
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if not isinstance(value, str):
        return ""
    return repr(value) if "\0" in value else value


def pre_push(extra: Sequence[str]) -> None:
    from apc_tools.cli import main as cli
    from apc_tools.report.escape import escape

    if extra[:1] == ["--"]:  # the entry's own `--`: what follows is the hook's `args:`
        extra = extra[1:]
    try:
        args, note = plan(Path.cwd(), os.environ, extra)
    except Refused as exc:
        sys.stderr.write(f"{PREFIX}: error: {escape(str(exc))}\n")
        sys.exit(2)
    sys.stderr.write(f"{PREFIX}: {escape(note)}\n")
    if args is None:
        sys.exit(0)
    cli(args, prog_name="apc")


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["pre-push"]:
        pre_push(args[1:])
    elif args[:1] == ["github-summary"] and len(args) in (3, 4, 5):
        sys.stdout.write(github_summary(*args[1:]))
    elif args[:1] == ["event-field"] and len(args) == 3:
        try:
            sys.stdout.write(event_field(args[1], args[2]) + ".")
        except BadEvent as exc:
            sys.stdout.write(f"the event file {args[1]} is not usable: {exc}")
            sys.exit(2)
    else:
        sys.stderr.write(USAGE)
        sys.exit(2)


if __name__ == "__main__":
    main()
