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
sends commits (nothing on stdin). The hook reads the ``git push`` command line of the process
that runs it (Linux: ``/proc``) the way git's option parser does (:func:`parse_push`: unique
prefixes of the installed git's long options, ``--no-`` forms, bundled short options and
values) and exits 2, naming the refs, when that push sends commits of more than one ref (two
refspecs, ``--all``, ``--branches``, ``--mirror``, ``--tags``, a glob, matching ``:``, several
``remote.NAME.push`` refspecs, ``remote.NAME.mirror`` or ``push.default=matching``). The tags
the push sends (the pushed ref itself, named ones, ``--tags``, ``--mirror``, ``--follow-tags``
or ``push.followTags``) are scanned with ``--tag``: their messages and a tree or blob they tag.
Where it cannot read the command line it warns on stderr (the hook is verbose, so pre-commit
shows it) that only the first ref was scanned, and exits 2 when the configuration alone makes
the push send other refs. Without any push variables (``pre-commit run --hook-stage pre-push``
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


def push_command() -> tuple[list[str] | None, str]:
    """(the arguments after ``push`` of the ``git push`` that runs this hook, or None when it
    cannot be read; why not)."""
    pid: int | None = os.getppid()
    for _ in range(ANCESTORS):
        if not pid or pid <= 1:
            break
        argv = _cmdline(pid)
        if argv is None:
            return None, f"/proc/{pid}/cmdline cannot be read"
        if os.path.basename(argv[0]) in ("git", "git.exe"):
            after = _after_push(argv[1:])
            return after, "" if after is not None else "git runs the hook, but not as `git push`"
        pid = _parent(pid)
    return None, "no `git push` among the processes that run the hook"


def _after_push(args: list[str]) -> list[str] | None:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in GIT_VALUE_OPTIONS else 1
    return args[i + 1 :] if i < len(args) and args[i] == "push" else None


# `git push`'s long options as `git push --git-completion-helper-all` lists them (git 2.39,
# plus --branches of git 2.46): a trailing `=` takes a value; after `--`, the negations
FALLBACK_OPTIONS = (
    "--verbose --quiet --repo= --all --branches --mirror --delete --tags --dry-run --porcelain "
    "--force --force-with-lease --force-if-includes --recurse-submodules= --thin "
    "--receive-pack= --exec= --set-upstream --progress --prune --no-verify --follow-tags "
    "--signed --atomic --push-option= --ipv4 --ipv6 --verify -- --no-verbose --no-quiet "
    "--no-repo --no-all --no-branches --no-mirror --no-delete --no-tags --no-dry-run "
    "--no-porcelain --no-force --no-force-with-lease --no-force-if-includes "
    "--no-recurse-submodules --no-thin --no-receive-pack --no-exec --no-set-upstream "
    "--no-progress --no-prune --no-follow-tags --no-signed --no-atomic --no-push-option "
    "--no-ipv4 --no-ipv6"
)
# the short options of builtin/push.c: `-o` takes a value, the others none
SHORT_OPTIONS = {"v": "verbose", "q": "quiet", "d": "delete", "n": "dry-run", "f": "force"}
SHORT_OPTIONS |= {"u": "set-upstream", "4": "ipv4", "6": "ipv6", "o": "push-option"}
FLAGS = ("all", "branches", "mirror", "tags", "delete", "follow-tags")


@dataclass(frozen=True)
class LongOption:
    option: str  # the option it sets (`no-verify` for `--verify`, `all` for `--no-all`)
    on: bool  # False: the negation
    value: bool  # takes a value (as `--NAME=V` or the next argument)


def long_options(listing: str = FALLBACK_OPTIONS) -> dict[str, LongOption]:
    """The long options of a ``--git-completion-helper-all`` listing, by name."""
    words = listing.split()
    cut = words.index("--") if "--" in words else len(words)
    names = {w[2:].rstrip("=") for w in words[:cut] if w.startswith("--")}
    out: dict[str, LongOption] = {}
    for word in words[:cut]:
        name = word[2:].rstrip("=")
        if not name:
            continue
        if f"no-{name}" in names:  # `--verify` undoes the option `--no-verify`
            out[name] = LongOption(f"no-{name}", False, False)
        else:
            out[name] = LongOption(name, True, word.endswith("="))
    for word in words[cut + 1 :]:
        name = word[2:]
        if name.startswith("no-") and name[3:] in out:
            out[name] = LongOption(name[3:], False, False)
    return out


def git_push_options(root: Path) -> dict[str, LongOption]:
    """The long options of the installed git's ``push``, as its option parser knows them (the
    list git's own completion reads), or those of :data:`FALLBACK_OPTIONS`."""
    try:
        listing = gitio.run(root, ["push", "--git-completion-helper-all"]).decode()
    except (gitio.GitError, UnicodeDecodeError):
        listing = ""
    options = long_options(listing) if "--all" in listing.split() else {}
    return options or long_options()


@dataclass(frozen=True)
class PushLine:
    """A ``git push`` command line as git's option parser reads it."""

    positional: tuple[str, ...]  # the repository, then the refspecs
    flags: frozenset[str]  # those of FLAGS that are on
    follow_tags: bool | None  # --follow-tags / --no-follow-tags (None: push.followTags)


def _long(arg: str, options: Mapping[str, LongOption]) -> tuple[LongOption, bool]:
    """The option ``--NAME[=V]`` names, a unique prefix too (as git's parse-options accepts
    it), and whether the value is in ``arg``; Refused for an unknown or ambiguous one (git
    would not have pushed)."""
    name, eq, _ = arg[2:].partition("=")
    if name in options:
        return options[name], bool(eq)
    found = {options[n] for n in options if n.startswith(name)} if name else set()
    if len(found) == 1:
        return found.pop(), bool(eq)
    why = "ambiguous" if found else "unknown"
    raise Refused(f"cannot read the `git push` command line: {why} option {arg.split('=')[0]}")


def parse_push(args: Sequence[str], options: Mapping[str, LongOption] | None = None) -> PushLine:
    """``args`` (what follows ``push``) read the way git's option parser reads them: options
    anywhere, unique prefixes of long options, ``--no-`` forms, bundled short options, values
    after ``=``, glued (``-ovalue``) or in the next argument, ``--`` and ``--end-of-options``."""
    options = long_options() if options is None else options
    positional: list[str] = []
    flags: dict[str, bool] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg in ("--", "--end-of-options"):
            positional += args[i:]
            break
        if arg.startswith("--"):
            option, inline = _long(arg, options)
            if option.value and not inline:
                i += 1  # the value is the next argument
            if option.option in FLAGS:
                flags[option.option] = option.on
        elif arg.startswith("-") and arg != "-":
            for j, char in enumerate(arg[1:], start=1):
                if char not in SHORT_OPTIONS:
                    why = f"unknown option -{char}"
                    raise Refused(f"cannot read the `git push` command line: {why}")
                if char == "o":
                    i += 0 if arg[j + 1 :] else 1  # `-oVALUE` or `-o VALUE`
                    break
                if SHORT_OPTIONS[char] in FLAGS:
                    flags[SHORT_OPTIONS[char]] = True
        else:
            positional.append(arg)
    on = frozenset(name for name, value in flags.items() if value and name != "follow-tags")
    return PushLine(tuple(positional), on, flags.get("follow-tags"))


def push_sources(
    args: Sequence[str], options: Mapping[str, LongOption] | None = None
) -> tuple[list[str], tuple[str, ...]]:
    """(the source side of each refspec, the ref folders a push of many refs sends wholesale:
    ``refs/heads/``, ``refs/tags/``) of the ``git push`` arguments ``args``."""
    line = parse_push(args, options)
    if "delete" in line.flags:
        return [], ()  # deletions send no commits
    many = {folder for flag in line.flags for folder in PUSH_MANY.get(f"--{flag}", ())}
    sources: list[str] = []
    specs = list(line.positional[1:])
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


def _true(root: Path, key: str) -> bool:
    try:
        out = gitio.run(root, ["config", "--type=bool", "--get", key])
    except gitio.GitError:
        return False
    return out.decode().strip() == "true"


def configured_push(root: Path, remote: str | None) -> tuple[list[str], set[str]]:
    """(sources, ref folders) that a ``git push`` naming no refspec sends by configuration:
    ``remote.NAME.mirror``, ``remote.NAME.push`` refspecs, ``push.default=matching``."""
    sources: list[str] = []
    many: set[str] = set()
    if remote is None:
        return sources, many
    if _true(root, f"remote.{remote}.mirror"):
        return sources, {HEADS, TAGS}
    for spec in _configured(root, f"remote.{remote}.push"):
        more, glob = push_sources(["push", remote, spec])
        sources += more
        many.update(glob)
    if not sources and not many and _configured(root, "push.default")[-1:] == ["matching"]:
        many.add(HEADS)
    return sources, many


def _kind(root: Path, ref: str) -> tuple[str, str] | None:
    """(object id, type) of what ``ref`` names, or None."""
    try:
        oid = gitio.run(root, ["rev-parse", "--verify", "-q", "--end-of-options", ref])
        sha = oid.decode().strip()
        kind = gitio.run(root, ["cat-file", "-t", sha]).decode().strip()
    except (gitio.GitError, UnicodeDecodeError):
        return None
    return sha, kind


@dataclass(frozen=True)
class Sent:
    """What the ``git push`` sends beside the ref pre-commit named."""

    others: tuple[str, ...]  # refs that send commits the scanned ref does not hold
    tags: tuple[str, ...]  # tags whose messages (and tagged trees or blobs) must be scanned


def sent_refs(root: Path, push: Push, args: list[str]) -> Sent:
    """The refs of the ``git push ARGS`` beyond ``push``: those that send commits ``push`` does
    not hold (whatever pre-commit left out; every branch and tag for a push of many), and the
    tags it sends (named, ``--tags``, ``--mirror``, a glob, ``--follow-tags`` or
    ``push.followTags``: the annotated tags of commits the pushed one holds)."""
    options = git_push_options(root)
    line = parse_push(args, options)
    sources, folders = push_sources(args, options)
    many = set(folders)
    if not sources and not many and "delete" not in line.flags:
        sources, many = configured_push(root, push.remote)
    kinds: dict[str, str] = {}  # ref -> the type of the object it names
    if many:
        listed = _git(root, "for-each-ref", "--format=%(objecttype) %(refname)", *sorted(many))
        for entry in listed.splitlines():
            kind, _, ref = entry.partition(" ")
            kinds[ref] = kind
            sources.append(ref)
    others: list[str] = []
    tags: list[str] = []
    for source in dict.fromkeys(sources):
        kind = kinds.get(source) or (_kind(root, source) or ("", ""))[1]
        if not kind:
            raise Refused(f"cannot resolve {source!r} of the push")
        if kind in ("tag", "tree", "blob"):
            tags.append(source)  # its message, or the tree or blob it names
            if kind != "tag":
                continue  # no commits
        sha = _commit(root, source)
        if sha is None:
            continue  # a tag of a tree or a blob: no commits
        if push.tip and _rev_list(root, "-n1", sha, "--not", push.tip, *push.excludes):
            others.append(source)
    follow = line.follow_tags
    if follow is None:
        follow = _true(root, "push.followTags")
    if follow and push.tip and "delete" not in line.flags:
        listed = _git(
            root, "for-each-ref", f"--merged={push.tip}", "--format=%(objecttype) %(refname)", TAGS
        )
        for entry in listed.splitlines():
            kind, _, ref = entry.partition(" ")
            if kind == "tag":  # an annotated tag (a lightweight one has no message)
                tags.append(ref)
    return Sent(tuple(others), tuple(dict.fromkeys(tags)))


def plan(root: Path, env: Mapping[str, str], extra: Sequence[str]) -> tuple[list[str] | None, str]:
    push = read_push(root, env)
    args, note = scan_args(root, push, extra)
    if not env.get("PRE_COMMIT_REMOTE_NAME"):
        return args, note
    tags: list[str] = []  # the pushed ref itself may be an annotated tag (`git push origin v1`)
    for named in (env.get("PRE_COMMIT_LOCAL_BRANCH", ""), env.get("PRE_COMMIT_TO_REF", "")):
        own = _kind(root, named) if named and not named.startswith("-") else None
        if own is not None and own[1] == "tag":
            tags = [named]
            break
    command, why = push_command()
    if command is None:  # what the configuration alone makes a push send is still known
        sent = sent_refs(root, push, [push.remote] if push.remote else [])
        if sent.others:
            raise Refused(
                f"cannot read the `git push` command line ({why}), and a push to "
                f"{push.remote} sends several refs by this repository's configuration "
                f"(remote.{push.remote}.mirror, remote.{push.remote}.push or push.default="
                f"matching): {', '.join(sent.others)} would not be scanned; push each ref on "
                f"its own (`git push {push.remote} REF`)"
            )
        note += (
            f"\nwarning: cannot read the `git push` command line ({why}): only {push.ref}, the "
            "first ref pre-commit passes, was scanned; any other ref this push sends was NOT "
            "scanned: push one ref at a time (`git push REMOTE REF`)"
        )
    else:
        sent = sent_refs(root, push, command)
        if sent.others:
            raise Refused(
                f"this push also sends {', '.join(sent.others)}, and pre-commit gives its hooks "
                f"only the first ref ({push.ref}): push each ref on its own "
                f"(`git push {push.remote or 'REMOTE'} REF`), so each is scanned"
            )
    tags = list(dict.fromkeys([*tags, *sent.tags]))
    if tags and push.tip is not None and (args is None or "--range" in args):
        if args is None:  # the remote has the commits: the tags alone
            args = ["boundary", "--range", f"{push.tip}..{push.tip}", *extra]
        args[1:1] = [part for tag in tags for part in ("--tag", tag)]
        note += f"; and the tag{'s' if len(tags) > 1 else ''} {', '.join(tags)}"
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
    for line in note.split("\n"):  # a note, then any warning
        sys.stderr.write(f"{PREFIX}: {escape(line)}\n")
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
