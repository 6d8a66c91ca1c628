"""Let git scan the bytes first: which blobs the content detectors must see at all.

Every content detector declares the literals it cannot match without (:data:`DECLARED`: the
modules' ``NEEDLES``). A text blob that holds none of them, at a path no rule reads whatever
the content (``_must_read`` in :mod:`.blobs`: contract files, agent configuration, a path a
path rule flags, the policy's BTR/BDB globs, notebooks, Markdown/text/HTML exports, symlinks),
yields nothing but its path findings, so it is never read into Python.

Two ways to find the candidates:

- :func:`git_candidates`: when the entries are a whole tree (``--tracked``: the commit's tree;
  ``--staged``: the index), one ``git grep -L -I -F`` over that tree lists the text blobs that
  hold no needle; every other blob (binary, holding a needle, or not listed) is a candidate.
  git calls a blob binary by its ``diff`` attribute before its bytes, so when any attribute
  source could set ``diff`` (:func:`_attributes_mention_diff`), the paths where it is set
  (``git check-attr``) are candidates too. Listed blobs above the read limit are candidates
  (their BIO001 comes from reading): their sizes come from ``cat-file --batch-check``.
- :func:`needs_content`: otherwise (``--range``, ``--history``, a few blobs), the same test
  on the bytes already read (saves the detectors' time, not the read).

``APC_PREFILTER=0`` turns both off (a test and debug switch: the proof in
tests/boundary/test_prefilter_proof.py runs the boundary corpus both ways).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from apc_tools.boundary import (
    disguise,
    inputs,
    local_paths,
    markers,
    model,
    secrets,
    stores,
    transcripts,
)
from apc_tools.core import git as gitio
from apc_tools.core.git import Entry, GitError, Repo

ENV = "APC_PREFILTER"
# Below this many wanted blobs, reading them is cheaper than a git grep over a whole tree; and
# a tree more than this many times the wanted blobs is not worth grepping for them.
MIN_GREP_BLOBS = 500
MAX_TREE_RATIO = 4
# Below this many blobs to read, the bytes test is not set up: importing the automata and
# building them (~1.3 ms) costs more than the detectors it would spare on so few blobs (a
# 10-file change of the 50,000-file bench: the blob stage 2.3 ms without it, 3.2 ms with it).
MIN_MATCHER_BLOBS = 16

# Each content detector's literals (None: it has none, so the prefilter is off for every blob
# it runs on). Binary blobs are always read (the stores, the compressed and UTF-16/32 forms).
DECLARED: Mapping[str, tuple[bytes, ...] | None] = {
    "BMK markers": markers.NEEDLES,
    "BTR sessions (JSON records and documents, text formats)": transcripts.NEEDLES,
    "wrappers (base64, notebooks, YAML sessions, compressed magic)": disguise.NEEDLES,
    "byte-order marks (decoded before the detectors run)": model.NEEDLES,
    "BIO003 LFS pointers": inputs.NEEDLES,
    "BDB stores (binary)": stores.NEEDLES,
    "BLP local paths (contract files only: always read)": local_paths.NEEDLES,
    "BSC secrets (contract, agent config, flagged paths; every blob with --secrets all)": (
        secrets.NEEDLES
    ),
}
# The detectors that run on every text blob at an ordinary path (BSC and BLP run only on blobs
# that are read anyway, unless --secrets all, which turns the prefilter off).
EVERYWHERE = (
    markers.NEEDLES,
    transcripts.NEEDLES,
    disguise.NEEDLES,
    model.NEEDLES,
    inputs.NEEDLES,
)
ALWAYS_SUFFIXES = frozenset((*transcripts.ALWAYS_SUFFIXES, *disguise.ALWAYS_SUFFIXES))
BINARY_SNIFF = model.BINARY_SNIFF


def mode() -> str:
    """``APC_PREFILTER``: "0" off (every wanted blob through every detector, as before the
    prefilter), "git" the git grep pass for whole trees (else the bytes test), anything else
    (the default) the bytes test where a fast matcher imports."""
    value = os.environ.get(ENV, "1").strip().casefold()
    return "off" if value == "0" else "git" if value == "git" else "bytes"


def needles() -> tuple[bytes, ...]:
    """Every literal of :data:`EVERYWHERE`, once each (never empty, no NUL, no newline)."""
    out = tuple(dict.fromkeys(n for group in EVERYWHERE for n in group))
    bad = [n for n in out if not n or b"\0" in n or b"\n" in n]
    if bad:  # pragma: no cover - a declaration error, caught by the tests
        raise ValueError(f"needles git grep -F cannot take: {bad!r}")
    return out


NEEDLES = needles()


def suffix_of(path: str) -> str:
    """The suffix as :class:`~.model.BlobView` computes it (case-folded, "" for none)."""
    name = path.casefold().rpartition("/")[2]
    stem, dot, ext = name.rpartition(".")
    return f".{ext}" if dot and stem.strip(".") else ""


def always_suffix(path: str) -> bool:
    return suffix_of(path) in ALWAYS_SUFFIXES


def needs_content(data: bytes, complete: bool, matcher: Matcher | None = None) -> bool:
    """Must the content detectors see these bytes (of a blob at an ordinary path)? Yes when
    read only in part (BIO001), binary (a NUL in the first 8000 bytes) or holding a needle."""
    if not complete or b"\0" in data[:BINARY_SNIFF]:
        return True
    return (matcher or plain_matcher)(data)


Matcher = Callable[[bytes], bool]


def plain_matcher(data: bytes) -> bool:
    """A needle in ``data`` (one ``in`` per needle: correct, but slower than the detectors'
    own early exits, so the scan uses it only through :func:`fast_matcher`)."""
    return any(needle in data for needle in NEEDLES)


def fast_matcher() -> Matcher | None:
    """Aho-Corasick passes over the bytes (``ahocorasick_rs``, optional), or None: 94 ``in``
    tests cost more than the detectors they would spare, so without it the detectors run as
    before (their own literal tests come first).

    The needles are searched in :func:`needle_groups`, one automaton each, leftmost-first: an
    automaton of at most 64 patterns whose matches are leftmost-first gets the Rust crate's
    SIMD prefilter (Teddy), and the three passes together cost under half of one automaton
    over all 94 needles (measured on the 50,000-file bench: 0.45 s against 1.1 s). Which
    needle matched, and where, is never used: only whether any did."""
    try:
        import ahocorasick_rs  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    first = ahocorasick_rs.MATCHKIND_LEFTMOST_FIRST
    finds = [
        ahocorasick_rs.BytesAhoCorasick(list(group), matchkind=first).find_matches_as_indexes
        for group in needle_groups(NEEDLES)
    ]

    if len(finds) == 3:  # today's needles: no generator per blob
        one, two, three = finds

        def matcher(data: bytes) -> bool:
            return bool(one(data) or two(data) or three(data))

        return matcher

    def any_matcher(data: bytes) -> bool:
        return any(find(data) for find in finds)

    return any_matcher


GROUP_MAX = 64  # the crate's SIMD prefilter takes at most this many patterns


def needle_groups(needles: Sequence[bytes]) -> list[tuple[bytes, ...]]:
    """``needles`` cut into groups that together hold each once: the short ones (under four
    bytes, which match most often, so they are tried first), those starting with a quote (JSON
    keys), the rest; a group above :data:`GROUP_MAX` is halved."""
    short = tuple(n for n in needles if len(n) < 4)
    quoted = tuple(n for n in needles if len(n) >= 4 and n.startswith(b'"'))
    rest = tuple(n for n in needles if len(n) >= 4 and not n.startswith(b'"'))
    out: list[tuple[bytes, ...]] = []
    for group in (short, quoted, rest):
        while len(group) > GROUP_MAX:
            out.append(group[:GROUP_MAX])
            group = group[GROUP_MAX:]
        if group:
            out.append(group)
    return out


# --------------------------------------------------------------------------- one git grep


@dataclass(frozen=True)
class Unit:
    """The whole tree the entries come from: a commit (``--tracked``) or the index."""

    commit: str | None  # None: the index (``--staged``)
    size: int = 0  # entries of the commit's tree (the index is counted when it is grepped)


def git_candidates(
    repo: Repo,
    unit: Unit,
    by_oid: Mapping[str, Sequence[Entry]],
    wanted: Sequence[str],
    must_read: Callable[[Entry], bool],
    limit: int,
) -> set[str] | None:
    """The blobs of ``wanted`` the content detectors must see, or None (all of them) when git
    cannot tell safely (an error, a conflicted index, too few blobs to pay for it)."""
    if len(wanted) < MIN_GREP_BLOBS:
        return None
    try:
        if unit.commit is None:
            index, unmerged = _index_paths(repo)
            if unmerged:  # which stage git greps is not ours to guess
                return None
            size = len(index)
        else:
            size = unit.size
        if size > MAX_TREE_RATIO * len(wanted):
            return None
        risky = _attributes_mention_diff(repo, by_oid)  # before git reads them
        clean = _clean_paths(repo, unit)
        if clean and risky:
            clean -= _diff_set(repo, clean)
        skip = {
            oid for oid in wanted if all(e.path in clean and not must_read(e) for e in by_oid[oid])
        }
        if skip:
            skip -= _larger_than(repo, skip, limit)
        if unit.commit is None and skip:
            # The index can change under a running scan: keep only what still holds.
            now, unmerged = _index_paths(repo)
            if unmerged:
                return None
            skip = {o for o in skip if all(now.get(e.path) == o for e in by_oid[o])}
    except (GitError, OSError, ValueError):
        return None
    return {o for o in wanted if o not in skip}


def _grep_args(unit: Unit) -> list[str]:
    return [
        "grep",
        "-L",  # the files without a match
        "-I",  # binary files are never listed (so they stay candidates)
        "-F",
        "-z",
        "--no-color",
        "--no-textconv",  # never a program the config names
        "--full-name",
        "--no-recurse-submodules",
        "-f",
        "-",
        *(["--cached"] if unit.commit is None else [unit.commit]),
        "--",
    ]


def _clean_paths(repo: Repo, unit: Unit) -> set[str]:
    """The paths of the unit whose blob is text (to git) and holds no needle."""
    out = gitio.run_status(
        repo.root, _grep_args(unit), stdin=b"\n".join(NEEDLES) + b"\n", ok=(0, 1)
    )
    prefix = f"{unit.commit}:" if unit.commit else ""
    paths: set[str] = set()
    for token in out.split(b"\0"):
        if not token:
            continue
        name = os.fsdecode(token)
        if prefix:
            if not name.startswith(prefix):
                raise ValueError(f"unexpected git grep output {name!r}")
            name = name[len(prefix) :]
        paths.add(name)
    return paths


ATTR_FILE = ".gitattributes"
MAX_ATTR_FILE = 8 << 20


def _attributes_mention_diff(repo: Repo, by_oid: Mapping[str, Sequence[Entry]]) -> bool:
    """Could any attribute source git reads give a path a ``diff`` attribute (which decides
    binary-ness before the bytes)? ``$GIT_DIR/info/attributes``, any ``.gitattributes`` of
    the index, of the scanned tree, or on disk in a folder of a scanned path: True when one
    mentions ``diff`` at all (a macro must name it too; the built-in ``binary`` unsets it,
    which only makes a blob binary, a candidate)."""
    info = os.fsdecode(gitio.run(repo.root, ["rev-parse", "--git-path", "info/attributes"]))
    where = info.strip()
    files = [where if os.path.isabs(where) else str(repo.root / where)]
    folders = {""}
    oids: set[str] = set()
    for oid, group in by_oid.items():
        for entry in group:
            folder, _, name = entry.path.rpartition("/")
            while folder not in folders:
                folders.add(folder)
                folder = folder.rpartition("/")[0]
            if name == ATTR_FILE:
                oids.add(oid)
    files += [str(repo.root / f / ATTR_FILE) if f else str(repo.root / ATTR_FILE) for f in folders]
    for path in files:
        try:
            found = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            continue
        if not stat.S_ISREG(found.st_mode) or found.st_size > MAX_ATTR_FILE:
            # a FIFO would block git itself; a link or a huge file: not worth judging
            raise ValueError(f"{path}: not a plain attributes file")
        with open(path, "rb") as handle:
            if b"diff" in handle.read(MAX_ATTR_FILE + 1).lower():
                return True
    for path, oid in _index_paths(repo)[0].items():
        if path.rpartition("/")[2] == ATTR_FILE:
            oids.add(oid)
    blobs = gitio.read_objects(repo, sorted(oids))
    return any(b"diff" in data.lower() for _, data in blobs.values()) or len(blobs) < len(oids)


def _diff_set(repo: Repo, paths: set[str]) -> set[str]:
    """The paths whose ``diff`` attribute is set or has a value, as git reads it from the work
    tree and from the index (both: ``grep`` reads one, ``check-attr --cached`` the other)."""
    request = b"".join(os.fsencode(p) + b"\0" for p in sorted(paths))
    found: set[str] = set()
    for extra in ([], ["--cached"]):
        out = gitio.run_status(
            repo.root, ["check-attr", "-z", "--stdin", *extra, "diff"], stdin=request
        )
        tokens = out.split(b"\0")
        for path, _attr, value in zip(tokens[0::3], tokens[1::3], tokens[2::3], strict=False):
            if value not in (b"unspecified", b"unset"):
                found.add(os.fsdecode(path))
    return found


def _larger_than(repo: Repo, oids: set[str], limit: int) -> set[str]:
    """Which of ``oids`` are larger than ``limit`` bytes (or whose size git does not give)."""
    order = sorted(oids)
    out = gitio.run(
        repo.root,
        ["cat-file", "--batch-check=%(objectname) %(objectsize)"],
        stdin="".join(o + "\n" for o in order).encode("ascii"),
    )
    sizes: dict[str, int] = {}
    for line in out.decode("ascii", "replace").splitlines():
        parts = line.split(" ")
        if len(parts) == 2 and parts[1].isdigit():
            sizes[parts[0]] = int(parts[1])
    return {o for o in order if sizes.get(o, limit + 1) > limit}


def _index_paths(repo: Repo) -> tuple[dict[str, str], bool]:
    """path -> blob id of the index, and whether any entry is unmerged (a stage above 0)."""
    out = gitio.run(repo.root, ["ls-files", "-s", "-z", "--full-name"])
    found: dict[str, str] = {}
    unmerged = False
    for token in out.split(b"\0"):
        meta, _, name = token.partition(b"\t")
        if not meta:
            continue
        _mode, oid, stage = meta.decode("ascii").split(" ")
        unmerged = unmerged or stage != "0"
        found[os.fsdecode(name)] = oid
    return found, unmerged
