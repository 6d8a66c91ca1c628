"""The tree-level (Merkle) verdict cache of ``--tracked``: a whole subtree answered at once.

A git tree id names every path and blob below it, so what the scan finds under a folder is a
pure function of (the folder's path, its tree id, the scan's settings). :class:`Trees` keeps,
per such triple, the *raw* findings (before the policy's disable/allow/severity, the baseline
and the dedupe, which the engine applies afterwards to everything, unchanged) and the number of
files scanned there. A warm run finds HEAD's root tree and lists nothing, applies no path rule
and reads no object. After a change the root misses: its entries are read (one round trip per
level to the scan's ``cat-file --batch``, which then reads the changed blobs too) and each child
tree looked up (one ``get_many`` per level); only the misses are descended. Each missed tree is
read beside an earlier tree at its path (the one this work tree's last run stored for the root,
then the trees of the same names below). Both are cut into raw entries (:func:`split_tree`, one
regular-expression pass) and compared as bytes (:meth:`Trees._quick`): a file both hold
unchanged (same mode, name and id) keeps the earlier tree's stored findings, and a child tree
both hold unchanged is taken from the earlier tree's verdict (which keeps its stored child
trees' files) as if it hit, unlooked-up; only the trees and files that differ are parsed. A
tree not in git's common form (another mode spelling, a name that case-folds to a sibling's or
to a home folder's) or under an exclude glob is parsed entry by entry instead
(:meth:`Trees._items`, the same verdicts). Only the changed and new files go through the
per-blob pipeline, which keeps per-blob verdicts only in folders never stored
(:meth:`Trees.unstored`). When a level misses many trees (a cold run, a new policy) one
``ls-tree -r -t`` lists the whole tree instead (tree ids included).

The key holds, beside the path and the tree id: the per-blob scan context
(:func:`.verdicts.context`: secret scope, inline allow, read limit, content globs, zstd,
Python) and every field of the :class:`~.policy.Settings` in a canonical text (exclude globs,
BPA globs, selection, ...); :func:`apc_tools.core.cache.key` adds apc's version and code
digest. Findings are stored without their commit and restored with the scan's.

The one rule that reads across paths is a committed tool home folder (:func:`.paths.home_folders`:
a file under ``X/.claude/`` is flagged when ``X/.claude/projects/`` exists, paths case-folded, so
``X/.CLAUDE/projects/`` counts for ``X/.claude/agents/``). Whether ``X/<home>/`` is a home
depends only on the paths below ``X``. Every home folder's path starts with a dot-folder
(``.claude``, ``.qwen``, ``.config/github-copilot``, the general rule's ``.<tool>``), so a tree
whose path has no dot-folder component is a function of its own content; a tree whose path has
one is never stored, so it is listed in full whenever its parent is read
and the engine's :func:`.paths.home_folders` sees every path that can matter (its blobs still
use the per-blob cache). The entries read level by level are handed on in the order
``ls-tree -r`` gives them: of two nested homes the first found applies.

Off (the plain per-blob scan): PATH arguments, ``--no-cache``, a partial clone, an unborn HEAD,
and any mode but ``--tracked``. Anything unexpected while descending (a tree git cannot give, a
malformed entry) also falls back to the plain listing.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from apc_tools.boundary.paths import HOME_SEGMENTS
from apc_tools.boundary.verdicts import findings_of
from apc_tools.core import git as gitio
from apc_tools.core.cache import UNDECODABLE, Cache, text_keyer
from apc_tools.core.git import Entry, Repo, TreeReader
from apc_tools.findings import Finding

TREES = "boundary-tree"
# The first segment of each home folder's path (".claude", ".config", ...: each a dot-folder,
# which tests/boundary/test_subtrees.py holds). A tree
# whose path has a component that is one of these, or any dot-folder (the general home rule:
# a dot-folder holding an agent home's mark), is never stored.
HOME_NAMES = tuple(sorted(HOME_SEGMENTS))
MAX_DESCENT = 256  # trees to read at one level: beyond, one whole listing is cheaper
FEW = 8  # ... and beyond these many, when they are most of the trees of their level


def head_tree(repo: Repo) -> tuple[str, str] | None:
    """(commit, root tree id) of HEAD in one git call; None before the first commit."""
    try:
        out = gitio.run(repo.root, ["rev-parse", "HEAD^{commit}", "HEAD^{tree}", "--"])
    except gitio.GitError:
        return None
    parts = [p for p in out.decode("ascii", "replace").split() if p != "--"]
    if len(parts) != 2 or len(parts[0]) != len(parts[1]):
        return None
    return parts[0], parts[1]


def read_trees(reader: TreeReader, oids: Sequence[str]) -> dict[str, bytes]:
    """One level of the descent's trees (:class:`apc_tools.core.git.TreeReader`)."""
    return reader.read(oids)


def canonical(value: object) -> object:
    """``value`` as JSON data in one order (a frozenset's order differs from run to run)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: canonical(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return canonical(value.value)
    if isinstance(value, Mapping):
        return [[str(k), canonical(v)] for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))]
    if isinstance(value, (set, frozenset)):
        return sorted((canonical(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def settings_text(settings: object) -> str:
    return json.dumps(canonical(settings), sort_keys=True, separators=(",", ":"))


def home_component(path: str) -> bool:
    """A component of ``path`` is a dot-folder (every home folder's path starts with one:
    ``.claude``, ``.config`` ...; and the general rule's homes are dot-folders or below one)."""
    low = path.casefold()
    return low.startswith(".") or "/." in low


def collisions(names: Iterable[tuple[str, str]]) -> set[str]:
    """The paths among ``names`` ((folder, path) pairs) whose name case-folds to another's in
    the same folder: ``docs/`` beside ``Docs/``. The home folder rule matches case-folded
    paths, so a home in ``A/.claude/`` applies to ``a/.claude/``: neither tree is a function
    of its own content, nor is anything below them."""
    seen: dict[tuple[str, str], str] = {}
    out: set[str] = set()
    for folder, path in names:
        key = (folder, path.rpartition("/")[2].casefold())
        other = seen.setdefault(key, path)
        if other != path:
            out.update((other, path))
    return out


def _parents(path: str) -> Iterable[str]:
    """The folders holding ``path``, innermost first, ending with the root ("")."""
    while path:
        path = path.rpartition("/")[0]
        yield path


# A stored subtree: its files, its raw findings, and the files of each of its direct child
# trees that is stored too (name -> files), which a later change run answers unread.
Stored = tuple[int, list[Finding], dict[str, int]]


def dump(
    files: int, findings: Sequence[Finding], children: Mapping[str, int] | None = None
) -> bytes:
    rows = [
        [f.path, f.rule, f.severity.value, f.message, f.line, f.column, f.identity]
        for f in findings
    ]
    value = [files, rows, dict(children)] if children else [files, rows]
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "surrogatepass")


def load(value: bytes, commit: str | None) -> Stored | None:
    """(files, findings, child tree files) of a stored subtree; None when the value is not
    one (never trusted)."""
    try:
        files, rows, *rest = json.loads(value.decode("utf-8", "surrogatepass"))
        if not isinstance(files, int) or isinstance(files, bool) or files < 0:
            return None
        children = rest[0] if rest else {}
        if len(rest) > 1 or not isinstance(children, dict):
            return None
        for name, count in children.items():
            if not name or "/" in name or not isinstance(count, int) or isinstance(count, bool):
                return None
            if count < 0 or count > files:
                return None
        out = findings_of(rows, commit)
    except UNDECODABLE:
        return None
    return files, out, children


def _mode(raw: bytes) -> str:
    """The mode as ``ls-tree`` prints it (git's ``canon_mode``: 100644, 100755, 120000,
    040000, 160000)."""
    mode = int(raw, 8)
    kind = mode & 0o170000
    if kind == 0o100000:
        return "100755" if mode & 0o100 else "100644"
    if kind == 0o120000:
        return "120000"
    if kind == 0o040000:
        return "040000"
    return "160000"


class Malformed(Exception):
    """A tree object this reader does not take (the scan lists the plain way instead)."""


def parse_tree(data: bytes, raw_len: int) -> list[tuple[str, bytes, str]]:
    """(mode, name, oid) of each entry of a tree object (``<mode> SP <name> NUL <raw oid>``)."""
    out: list[tuple[str, bytes, str]] = []
    at, end = 0, len(data)
    while at < end:
        space = data.find(b" ", at)
        nul = data.find(b"\0", space + 1)
        if space < 0 or nul < 0 or nul + 1 + raw_len > end:
            raise Malformed("truncated tree entry")
        name = data[space + 1 : nul]
        if not name or b"/" in name or name in (b".", b".."):
            raise Malformed("a tree entry name git would refuse")
        try:
            mode = _mode(data[at:space])
        except ValueError:
            raise Malformed("a tree entry mode that is not octal") from None
        out.append((mode, name, data[nul + 1 : nul + 1 + raw_len].hex()))
        at = nul + 1 + raw_len
    return out


# A tree entry in the form git writes (``<mode> SP <name> NUL <raw id>``): one of the five
# modes git writes today, a name git takes (no "/", not "." nor ".."). :func:`split_tree`
# cuts a tree into such entries in one pass of the regular expression engine.
TREE_MODES = {b"100644": "100644", b"100755": "100755", b"120000": "120000", b"40000": "040000"}
TREE_MODES[b"160000"] = "160000"
_MODES = b"(?:" + b"|".join(TREE_MODES) + b")"
_NAME = rb"(?!\.\.?\x00)[^\x00/]+"
_ENTRY: dict[int, re.Pattern[bytes]] = {}
_NAMES: dict[int, re.Pattern[bytes]] = {}
TREE_ENTRY = b"40000 "  # how a tree's entry starts
HOME_BYTES = frozenset(n.encode("ascii") for n in HOME_NAMES)


def _home_name(name: bytes) -> bool:
    """The name case-folds to one of :data:`HOME_NAMES`."""
    if name.isascii():
        return name.lower() in HOME_BYTES
    return os.fsdecode(name).casefold() in HOME_NAMES


def _patterns(raw_len: int) -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    entry = _ENTRY.get(raw_len)
    if entry is None:
        tail = rb"\x00.{%d}" % raw_len
        entry = _ENTRY[raw_len] = re.compile(_MODES + b" " + _NAME + tail, re.DOTALL)
        _NAMES[raw_len] = re.compile(_MODES + b" (" + _NAME + b")" + tail, re.DOTALL)
    return entry, _NAMES[raw_len]


def split_tree(data: bytes, raw_len: int) -> list[bytes] | None:
    """The entries of a tree object, each its raw bytes (``<mode> SP <name> NUL <raw id>``),
    in order; None when one is not in the form git writes (:data:`TREE_MODES`, a name git
    takes: :func:`parse_tree` then reads the tree, or refuses it). The matches cover every
    byte, so they are the entries :func:`parse_tree` cuts: a mode ends at the first space,
    a name at the first NUL, an id is ``raw_len`` bytes."""
    entries = _patterns(raw_len)[0].findall(data)
    return entries if sum(map(len, entries)) == len(data) else None


def tree_names(data: bytes, raw_len: int) -> list[bytes]:
    """The names of the entries of a tree :func:`split_tree` took, in order."""
    return _patterns(raw_len)[1].findall(data)


def _in_order(trees: Mapping[str, list[Entry | str]]) -> list[Entry]:
    """The entries of the trees read, in the order ``ls-tree -r`` lists them (each tree's
    entries as stored, a tree's own entries where it stands): the committed home folders are
    found in that order, and of two nested ones the first found is the one applied."""
    out: list[Entry] = []
    stack: list[Iterator[Entry | str]] = [iter(trees[""])]
    while stack:
        for item in stack[-1]:
            if isinstance(item, Entry):
                out.append(item)
            elif item in trees:  # a tree read (one that hit is left out)
                stack.append(iter(trees[item]))
                break
        else:
            stack.pop()
    return out


def _trees_of(entries: Iterable[bytes]) -> dict[bytes, str]:
    """name -> id of the trees among raw tree entries (:func:`split_tree`)."""
    out: dict[bytes, str] = {}
    for entry in entries:
        if entry.startswith(TREE_ENTRY):
            head, _, raw = entry.partition(b"\0")
            out[head[len(TREE_ENTRY) :]] = raw.hex()
    return out


@dataclass
class Trees:
    """The subtree verdicts of one ``--tracked`` scan (see the module docstring)."""

    repo: Repo
    store: Cache
    scan_context: Sequence[str]
    settings: object
    commit: str
    root: str  # the root tree id
    found: list[Finding] = field(default_factory=list)  # restored from the trees that hit
    files: int = 0  # the files of the trees that hit
    hits: dict[str, int] = field(default_factory=dict)  # path of a tree that hit -> its files
    missed: dict[str, str] = field(default_factory=dict)  # path of a tree listed -> its id
    collided: set[str] = field(default_factory=set)  # paths of case-colliding names
    reused: Counter[str] = field(default_factory=Counter)  # folder -> files kept from before

    def eligible(self, path: str) -> bool:
        """May the tree at ``path`` be stored and answered whole? Not when its path has a
        home folder component, nor when it or a folder above it case-folds to a sibling's
        name (:func:`collisions`)."""
        if home_component(path):
            return False
        if not self.collided:
            return True
        return path not in self.collided and not any(a in self.collided for a in _parents(path))

    def __post_init__(self) -> None:
        self._key = text_keyer(TREES, *self.scan_context, settings_text(self.settings))
        self._exclude = bool(getattr(self.settings, "exclude", ()))

    def unstored(self) -> tuple[str, ...]:
        """The folders (``a/b/``) of the listed trees never stored (:meth:`eligible`): a file
        under one keeps a per-blob verdict of its own; elsewhere its folder's verdict keeps
        its findings, and an unchanged file is taken from there (:meth:`_items`). A file's
        folder is a listed tree, and a folder below one never stored is never stored."""
        return tuple(f"{p}/" for p in self.missed if p and not self.eligible(p))

    def key(self, path: str, oid: str) -> bytes:
        return self._key(f"{oid}\0{path}")

    def _ask(self, trees: Mapping[str, str]) -> dict[str, Stored]:
        """The stored summaries of ``trees`` (path -> id) found in the cache (a tree with a
        home folder component in its path is never stored, so never asked)."""
        keys = {p: self.key(p, o) for p, o in trees.items() if self.eligible(p)}
        values = self.store.get_many(list(keys.values())) if keys else {}
        out: dict[str, Stored] = {}
        for path, k in keys.items():
            value = values.get(k)
            # (no commit: a --tracked scan's findings carry none)
            loaded = None if value is None else load(value, None)
            if loaded is not None:
                out[path] = loaded
        return out

    def _take(self, path: str, loaded: Stored) -> None:
        files, found, _ = loaded
        self.hits[path] = files
        self.files += files
        self.found += found

    def _lookup(self, trees: Mapping[str, str]) -> dict[str, str]:
        """Look ``trees`` up, keep the hits; the misses (path -> id)."""
        known = self._ask(trees)
        for path, loaded in known.items():
            self._take(path, loaded)
        return {p: o for p, o in trees.items() if p not in known}

    def listing(self, blobs: gitio.BlobReader | None = None) -> list[Entry] | None:
        """The entries to scan: those outside every tree that hit (None: list the plain way).
        The trees are read through ``blobs`` (the scan's blob reader: its ``cat-file`` then
        reads the changed blobs too), else a reader of their own."""
        todo = self._lookup({"": self.root})
        if not todo:
            return []
        previous = self._previous_root()
        try:
            with TreeReader(self.repo, blobs) as reader:
                return self._descend(todo, reader, {"": previous} if previous else {})
        except (Malformed, gitio.GitError, ValueError):
            return None

    def _pointer(self) -> bytes:
        """The key of this work tree's last stored root tree id (a text no tree key has: a
        tree key starts with the tree's id)."""
        return self._key(f"\0previous root\0{os.fsdecode(self.repo.root)}")

    def _previous_root(self) -> str | None:
        """The root tree id this work tree's last run stored (None: none, or not an id)."""
        value = self.store.get(self._pointer())
        if value is None or len(value) != len(self.root):
            return None
        text = value.decode("ascii", "replace")
        if text == self.root or text.strip("0123456789abcdef"):
            return None
        return text

    def _descend(
        self, todo: dict[str, str], reader: TreeReader, old: dict[str, str]
    ) -> list[Entry] | None:
        """Read the missed trees level by level. ``old``: for a tree path, the id of an
        earlier tree at that path (the last run's root, then the trees of the same name in
        the earlier tree read beside it). Where that earlier tree's verdict is stored, each
        file entry the two trees share (same name, mode and id) keeps the earlier verdict's
        findings at its path and is not scanned again (see :meth:`_items`)."""
        raw_len = len(self.root) // 2
        met: dict[str, list[Entry | str]] = {}  # each tree read: its entries, its trees' paths
        asked = 1
        while todo:
            if len(todo) > MAX_DESCENT or (len(todo) > FEW and 2 * len(todo) > asked):
                return self._whole()  # most of a level missed: a cold run
            bases = {p: old[p] for p in todo if p in old}
            earlier = self._ask(bases)  # the stored verdicts of the earlier trees
            wanted = [*todo.values(), *(bases[p] for p in earlier)]
            objects = read_trees(reader, list(dict.fromkeys(wanted)))
            children: dict[str, str] = {}
            below: dict[str, str] = {}  # the next level's earlier trees
            taken = len(self.hits)
            for path, oid in todo.items():
                data = objects.get(oid)
                if data is None:
                    return None  # git cannot give the tree: the plain listing says why
                self.missed[path] = oid
                stored = earlier.get(path)
                before = objects.get(bases.get(path, "")) if stored is not None else None
                quick = self._quick(path, data, stored, before, raw_len, children, below)
                if quick is None:  # not the common form: every entry parsed and compared
                    was = self._earlier(stored, before, raw_len)
                    quick = self._items(path, parse_tree(data, raw_len), was, children, below)
                met[path] = quick
            # the next level's trees: those to look up, and those taken from earlier trees
            asked = len(children) + len(self.hits) - taken
            todo = self._lookup(children)
            old = below
        return _in_order(met)

    def _quick(
        self,
        path: str,
        data: bytes,
        stored: Stored | None,
        before: bytes | None,
        raw_len: int,
        children: dict[str, str],
        below: dict[str, str],
    ) -> list[Entry | str] | None:
        """What :meth:`_items` hands on for the tree ``data`` at ``path``, without parsing
        each entry: the tree and the earlier one (``before``, whose verdict ``stored`` holds)
        are cut into raw entries (:func:`split_tree`), and an entry byte-identical in both
        (same mode, name and id) that is a file is kept unread; only the trees and the other
        files are parsed. None (then :meth:`_items`) for a tree not in the common form: an
        entry :func:`split_tree` does not take, two names that case-fold alike (or one twice),
        a name that case-folds to a home folder's, and under an exclude glob."""
        if self._exclude:
            return None
        entries = split_tree(data, raw_len)
        if entries is None:
            return None
        names = tree_names(data, raw_len)
        joined = b"/".join(names)
        if joined.isascii():  # (casefold is lower() on ASCII)
            folded: set[bytes] | set[str] = set(joined.lower().split(b"/"))
            homes: frozenset[bytes] | tuple[str, ...] = HOME_BYTES
        else:
            folded, homes = set(os.fsdecode(joined).casefold().split("/")), HOME_NAMES
        if len(names) != len(entries) or len(folded) != len(names) or not folded.isdisjoint(homes):
            return None
        old: set[bytes] = set()
        if stored is not None and before is not None:
            earlier = split_tree(before, raw_len)
            if earlier is not None:  # (else: no earlier tree, as for one malformed)
                old = set(earlier)
        counts = stored[2] if old and stored is not None else {}
        base = os.fsencode(path) + b"/" if path else b""
        decode = os.fsdecode
        items: list[Entry | str] = []
        kept: list[bytes] = []  # the files kept from the earlier tree (their raw entries)
        same: list[tuple[str, str, int]] = []  # the trees kept: (name, path, files)
        trees_before: dict[bytes, str] | None = None
        for entry in entries:
            tree = entry.startswith(TREE_ENTRY)
            if entry in old:
                if not tree:
                    kept.append(entry)
                    continue
                if counts:  # a tree the earlier one holds unchanged, its files stored there
                    name = entry[len(TREE_ENTRY) : entry.index(b"\0")]
                    files = counts.get(decode(name))
                    full = decode(base + name)
                    if files is not None and self.eligible(full):
                        same.append((decode(name), full, files))
                        continue
            head, _, raw = entry.partition(b"\0")  # (a name holds no NUL; an id may)
            mode, _, name = head.partition(b" ")
            full = decode(base + name)
            if not tree:
                items.append(Entry(TREE_MODES[mode], raw.hex(), full))
                continue
            children[full] = raw.hex()
            items.append(full)
            if old and entry not in old:  # a changed tree: the next level reads it beside
                if trees_before is None:
                    trees_before = _trees_of(old)
                was = trees_before.get(name)
                if was is not None:
                    below[full] = was
        if kept:
            self.reused[path] += len(kept)
            self.files += len(kept)
        if (kept or same) and stored is not None:
            self._keep(path, kept, same, stored[1])
        return items

    def _keep(
        self,
        path: str,
        kept: list[bytes],
        same: list[tuple[str, str, int]],
        stored: list[Finding],
    ) -> None:
        """Take what the earlier tree at ``path`` holds for what this one shares with it: the
        findings at the files ``kept`` (their raw entries), and each child tree of ``same``
        (name, path, files) as if it hit, with the earlier tree's findings below it."""
        prefix = f"{path}/" if path else ""
        direct: dict[str, list[Finding]] = {}
        below: dict[str, list[Finding]] = {}
        for finding in stored:
            if not finding.path.startswith(prefix):
                continue  # (never stored so: a tree's findings are those below it)
            first, sep, _ = finding.path[len(prefix) :].partition("/")
            (below if sep else direct).setdefault(first, []).append(finding)
        for name, full, files in same:
            self._take(full, (files, below.get(name, []), {}))
        if kept and direct:
            names = {os.fsdecode(e.partition(b"\0")[0].partition(b" ")[2]) for e in kept}
            for name, found in direct.items():
                if name in names:
                    self.found += found

    @staticmethod
    def _earlier(
        stored: Stored | None, data: bytes | None, raw_len: int
    ) -> tuple[dict[bytes, tuple[str, str]], dict[str, list[Finding]]] | None:
        """An earlier tree's entries (name -> (mode, id)) and its stored findings by path;
        None when either is not at hand (not stored, not in this repository, malformed)."""
        if stored is None or data is None:
            return None
        try:
            entries = {name: (mode, oid) for mode, name, oid in parse_tree(data, raw_len)}
        except Malformed:
            return None
        found: dict[str, list[Finding]] = {}
        for finding in stored[1]:
            found.setdefault(finding.path, []).append(finding)
        return entries, found

    def _items(
        self,
        path: str,
        parsed: list[tuple[str, bytes, str]],
        was: tuple[dict[bytes, tuple[str, str]], dict[str, list[Finding]]] | None,
        children: dict[str, str],
        below: dict[str, str],
    ) -> list[Entry | str]:
        """The entries of the tree at ``path`` to hand on (its trees' paths, added to
        ``children``; its files, but those kept from the earlier tree ``was``).

        A file both trees hold unchanged (same name, mode and id) takes the earlier verdict's
        findings at its path: a file directly in a tree whose path has no home folder
        component is under no home folder, so its findings are a function of its path, mode
        and id (and the settings, part of the key). Not for a name that case-folds to a
        sibling's, nor one that case-folds to a home folder's name (listed the plain way)."""
        base = os.fsencode(path) + b"/" if path else b""
        decode = os.fsdecode
        folded = {decode(n).casefold() for _, n, _ in parsed}
        here = (
            set()
            if len(folded) == len(parsed)
            else collisions((path, decode(base + n)) for _, n, _ in parsed)
        )
        self.collided |= here
        earlier, found = was if was is not None else ({}, {})
        exclude = self._exclude
        items: list[Entry | str] = []
        kept = 0
        for mode, name, child in parsed:
            if mode == "040000":
                full = decode(base + name)
                children[full] = child
                items.append(full)
                before = earlier.get(name)
                if before is not None and before[0] == "040000":
                    below[full] = before[1]
                continue
            if earlier.get(name) == (mode, child) and (
                not _home_name(name)  # (".claude" ...)
            ):
                if not here and not exclude and not found:
                    kept += 1  # the common case: nothing at its path, nothing to check
                    continue
                full = decode(base + name)
                if full not in here:
                    if exclude and self.settings.excluded(full):  # type: ignore[attr-defined]
                        continue  # not scanned, not counted (as the engine's exclude does)
                    kept += 1
                    self.found += found.get(full, ())
                    continue
            items.append(Entry(mode, child, decode(base + name)))
        if kept:
            self.reused[path] += kept
            self.files += kept
        return items

    def _whole(self) -> list[Entry]:
        """Every entry of the root tree from one ``ls-tree -r -t`` (what descending found so
        far is dropped: asked again in one lookup), minus what lies under a tree that hits."""
        self.found, self.files, self.hits, self.reused = [], 0, {}, Counter()
        self.missed = {}
        self.missed[""] = self.root
        out = gitio.run(self.repo.root, ["ls-tree", "-r", "-t", "-z", "--full-tree", self.root])
        trees: dict[str, str] = {}
        entries: list[Entry] = []
        width = len(self.root)
        every: list[str] = []
        for meta, name in gitio._records(out):
            # "<mode> <type> <id>": the mode always six digits (git prints it "%06o")
            if meta[7] == "t":  # tree
                trees[name] = meta[-width:]
            else:
                entries.append(Entry(meta[:6], meta[-width:], name))
            every.append(name)
        # Two names of one folder that case-fold alike make two listed paths that do (and
        # only they can: casefold maps nothing to "/"), so most trees need no per-folder pass.
        if len({p.casefold() for p in every}) == len(every):
            self.collided = set()
        else:
            self.collided = collisions((p.rpartition("/")[0], p) for p in every)
        known = self._ask(trees)
        top = {p for p in known if not any(a in known for a in _parents(p))}
        for path, oid in trees.items():
            if path in top:
                self._take(path, known[path])
            elif not top or not any(a in top for a in _parents(path)):
                self.missed[path] = oid
        if not top:
            return entries
        return [e for e in entries if not any(a in top for a in _parents(e.path))]

    def save(self, found: Sequence[Finding], scanned: Sequence[Entry]) -> None:
        """Store every listed tree that holds no home folder path: its files (``scanned``:
        the listed entries left after the policy's exclude, and the trees that hit below it)
        and its findings (the new ones, ``found``, and those restored)."""
        if not self.missed or not self.store.enabled:
            return
        keep = {p: o for p, o in self.missed.items() if self.eligible(p)}
        if not keep:
            return
        per_folder = Counter(e.path.rpartition("/")[0] for e in scanned)
        totals = dict.fromkeys(keep, 0)
        for folder, count in per_folder.items():
            for at in (folder, *_parents(folder)):
                if at in totals:
                    totals[at] += count
        for folder, count in self.reused.items():
            for at in (folder, *_parents(folder)):
                if at in totals:
                    totals[at] += count
        for path, count in self.hits.items():
            for at in _parents(path):
                if at in totals:
                    totals[at] += count
        rows: dict[str, list[Finding]] = {p: [] for p in keep}
        for finding in (*found, *self.found):
            for at in _parents(finding.path):
                if at in rows:
                    rows[at].append(finding)
        # each stored tree's stored child trees and their files (the next change run takes
        # a child tree it shares with this one from here, unread: :meth:`_quick`)
        below: dict[str, dict[str, int]] = {p: {} for p in keep}
        for path, count in (*((p, totals[p]) for p in keep), *self.hits.items()):
            parent, _, name = path.rpartition("/")
            if path and parent in below:
                below[parent][name] = count
        values = {self.key(p, o): dump(totals[p], rows[p], below[p]) for p, o in keep.items()}
        if "" in keep:  # the next run's earlier root (see :meth:`_descend`)
            values[self._pointer()] = self.root.encode("ascii")
        self.store.put_many(values)
