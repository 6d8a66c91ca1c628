"""Glob matching with ``**`` (any number of folders), as Cursor rules and policy files use it.

Globs come from files a pull request controls (rule ``globs``, policy ``exclude`` and ``allow``,
``.apc/.gitignore``), so matching must stay cheap whatever the pattern. Globs are therefore never
compiled into backtracking regexes (``(?:[^/]+/)*`` repeated 200 times backtracks
exponentially). A pattern is split into folder segments; ``**`` segments are matched by dynamic
programming over (pattern segment, path segment) pairs, each pair decided once, and one segment
against one name by the greedy wildcard algorithm with a single backtrack point. Matching a path
of ``n`` characters against a pattern of ``m`` characters costs at most ``O(n * m)``: no input
makes it exponential.

Tokens inside a segment: ``*`` (any run of characters but ``/``), ``?`` (one character),
``[abc]``, ``[a-z]``, ``[!x]`` (one character of a class), ``{a,b}`` (alternatives, brace flavour
only, at most :data:`MAX_ALTERNATIVES` expansions per pattern), ``\\x`` (a literal ``x``,
gitignore flavour only). ``**`` alone in a segment spans folders (zero or more); elsewhere it is a
plain ``*``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate

MAX_ALTERNATIVES = 64
STAR = "*"
ANY = "?"
DOUBLE = "**"
PLUS = "**/+"  # a trailing `/**`: one or more folder segments (below the folder, not itself)

# A token is STAR, ANY, a one-character literal string, or a (negated, members) class.
Token = str | tuple[bool, frozenset[str]]
Segment = tuple["Tokens", ...]  # alternatives, each a token sequence
Part = Segment | str  # a Segment, DOUBLE or PLUS


def _class(body: str, i: int) -> tuple[tuple[bool, frozenset[str]], int] | None:
    """The character class opening at ``body[i] == '['``, and the index after it; None when
    there is no closing ``]`` (the ``[`` is then a literal)."""
    j = i + 1
    negated = j < len(body) and body[j] in "!^"
    if negated:
        j += 1
    start = j
    if j < len(body) and body[j] == "]":  # a leading ] is a member
        j += 1
    end = body.find("]", j)
    if end < 0:
        return None
    inner = body[start:end]
    members: set[str] = set()
    k = 0
    while k < len(inner):
        if k + 2 < len(inner) and inner[k + 1] == "-":
            low, high = ord(inner[k]), ord(inner[k + 2])
            if high - low <= 0x400:  # a bounded range; a wider one keeps its ends only
                members.update(chr(c) for c in range(low, high + 1))
            else:
                members.update((inner[k], inner[k + 2]))
            k += 3
        else:
            members.add(inner[k])
            k += 1
    return (negated, frozenset(members)), end + 1


def _tokens(text: str, escapes: bool) -> tuple[Token, ...]:
    out: list[Token] = []
    last_close = text.rfind("]")  # no class can open after it (no rescan per `[`)
    i = 0
    while i < len(text):
        char = text[i]
        if char == "*":
            if not out or out[-1] != STAR:  # runs of stars are one star
                out.append(STAR)
            i += 1
        elif char == "?":
            out.append(ANY)
            i += 1
        elif char == "\\" and escapes and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
        elif char == "[" and i < last_close and (found := _class(text, i)) is not None:
            out.append(found[0])
            i = found[1]
        else:
            out.append(char)
            i += 1
    return tuple(out)


def _expand_braces(text: str, limit: int) -> list[str]:
    """``a{b,c}d`` -> ``abd``, ``acd`` (not nested; at most ``limit`` results, else literal)."""
    results = [""]
    last_close = text.rfind("}")  # no group can open after it (no rescan per `{`)
    i = 0
    while i < len(text):
        end = text.find("}", i + 1) if text[i] == "{" and i < last_close else -1
        if end < 0:
            results = [r + text[i] for r in results]
            i += 1
            continue
        options = text[i + 1 : end].split(",")
        if len(results) * len(options) > limit:
            return [text]
        results = [r + o for r in results for o in options]
        i = end + 1
    return results


class Tokens:
    """One segment alternative, matched as a bit-parallel NFA: bit ``i`` of the state is "the
    first ``i`` tokens have matched"; each character of a name costs a few integer operations,
    so a name of ``n`` characters costs ``O(n)`` steps whatever the pattern (no backtracking)."""

    def __init__(self, tokens: tuple[Token, ...]) -> None:
        self.tokens = tokens
        self.size = len(tokens)
        self.fixed = sum(1 for t in tokens if t != STAR)  # characters a match consumes at least
        self.star = sum(1 << i for i, t in enumerate(tokens) if t == STAR)
        self.literal = (
            "".join(t for t in tokens if isinstance(t, str))
            if all(isinstance(t, str) and t not in (STAR, ANY) for t in tokens)
            else None
        )
        self.positions: dict[str, list[int]] = {}
        for i, t in enumerate(tokens):
            if isinstance(t, str) and t not in (STAR, ANY):
                self.positions.setdefault(t, []).append(i)
        self.masks: dict[str, int] = {}
        # Compiled on the first match that needs it (a rule glob checked against no file of
        # its name or suffix never is: re.compile was a third of the dead-glob check).
        self._regex: re.Pattern[str] | bool | None = False

    @property
    def regex(self) -> re.Pattern[str] | None:
        """The segment as a linear-time regex (:func:`_safe_regex`), or None."""
        if self._regex is False:
            self._regex = _safe_regex(self.tokens)
        return self._regex  # type: ignore[return-value]

    def _accept(self, char: str) -> int:
        """The tokens that may consume ``char`` (a star consumes anything and stays)."""
        mask = self.masks.get(char)
        if mask is None:
            mask = self.star
            for i in self.positions.get(char, ()):
                mask |= 1 << i
            for i, t in enumerate(self.tokens):
                if t == ANY or (isinstance(t, tuple) and (char in t[1]) != t[0]):
                    mask |= 1 << i
            self.masks[char] = mask
        return mask

    def match(self, name: str) -> bool:
        if self.literal is not None:
            return name == self.literal
        if self.fixed > len(name):  # also keeps huge patterns away from the loop below
            return False
        regex = self.regex
        if regex is not None:
            return regex.fullmatch(name) is not None
        star = self.star
        state = 1 | ((1 & star) << 1)
        for char in name:
            consumed = state & self._accept(char)
            state = ((consumed & ~star) << 1) | (consumed & star)
            state |= (state & star) << 1
            if not state:
                return False
        return bool(state >> self.size & 1)


def _safe_regex(tokens: tuple[Token, ...]) -> re.Pattern[str] | None:
    """The segment as a regex when that cannot backtrack beyond linear time: at most one star
    (a fullmatch with one ``.*`` has one choice point), so the common ``*.ts`` runs in C. Other
    segments use the bit-parallel NFA."""
    if sum(1 for t in tokens if t == STAR) > 1:
        return None
    out: list[str] = []
    for t in tokens:
        if t == STAR:
            out.append(".*")
        elif t == ANY:
            out.append(".")
        elif isinstance(t, tuple):
            negated, members = t
            body = "".join(re.escape(m) for m in sorted(members))
            out.append(
                f"[{'^' if negated else ''}{body}]" if body else ("." if negated else "(?!)")
            )
        else:
            out.append(re.escape(t))
    return re.compile("".join(out), re.DOTALL)


def match_tokens(tokens: tuple[Token, ...], name: str) -> bool:
    """Whether ``name`` (no ``/``) matches ``tokens``."""
    return Tokens(tokens).match(name)


def _match_segment(segment: Segment, name: str) -> bool:
    return any(alt.match(name) for alt in segment)


@dataclass(frozen=True)
class Glob:
    """A compiled glob: folder segments, each :data:`DOUBLE`, :data:`PLUS` or a Segment."""

    parts: tuple[Part, ...]
    fixed: int = field(init=False)  # folder segments a matching path has at least
    literal_path: str | None = field(init=False)  # the one path it matches, when no wildcard
    literal_name: str | None = field(init=False)  # the one file name it matches, when fixed
    needle: str = field(init=False)  # a run of characters every matching path contains
    suffix: str = field(init=False)  # characters every matching path ends with (``.ts``)
    # ``**/<name>`` (the commonest rule glob): the name's segment, matched against a path's
    # last name alone (``**`` takes any folders before it, none too); else None
    anywhere: Segment | None = field(init=False)

    def __post_init__(self) -> None:
        names = [_literal(p) for p in self.parts]
        fixed = [n for n in names if n is not None]
        whole = "/".join(fixed) if len(fixed) == len(names) else None
        object.__setattr__(self, "literal_path", whole)
        object.__setattr__(self, "literal_name", names[-1] if names else None)
        object.__setattr__(self, "needle", max(fixed, key=len, default=""))
        object.__setattr__(self, "suffix", _literal_suffix(self.parts[-1]) if self.parts else "")
        object.__setattr__(self, "fixed", sum(1 for p in self.parts if p not in (DOUBLE,)))
        last = self.parts[-1] if len(self.parts) == 2 and self.parts[0] == DOUBLE else None
        object.__setattr__(self, "anywhere", None if isinstance(last, str) else last)

    def match(self, path: str) -> bool:
        if self.literal_path is not None:
            return path == self.literal_path
        if self.needle not in path or not path.endswith(self.suffix):
            return False
        if self.anywhere is not None:  # what _match_parts decides for (DOUBLE, segment)
            return _match_segment(self.anywhere, path[path.rfind("/") + 1 :])
        names = tuple(path.split("/"))
        if self.fixed > len(names):  # also keeps huge patterns away from the table below
            return False
        return _match_parts(self.parts, names)

    @property
    def cost(self) -> int:
        """Work units per path character of one :meth:`match` (for a :class:`Budget`)."""
        return len(self.parts)


def _literal_suffix(part: Part) -> str:
    """The literal characters that end every name ``part`` matches (``*.ts`` -> ``.ts``)."""
    if isinstance(part, str) or len(part) != 1:
        return ""
    tail: list[str] = []
    for token in reversed(part[0].tokens):
        if not isinstance(token, str) or token in (STAR, ANY):
            break
        tail.append(token)
    return "".join(reversed(tail))


def _literal(part: Part) -> str | None:
    """The one name a part matches, or None for ``**`` and wildcards."""
    if isinstance(part, str) or len(part) != 1:
        return None
    return part[0].literal


def _match_parts(parts: tuple[Part, ...], names: tuple[str, ...]) -> bool:
    """Dynamic programming over (pattern segment, path segment): each pair is decided once."""
    width = len(names) + 1
    # reach[j]: pattern parts[:i] can match names[:j]
    reach = [False] * width
    reach[0] = True
    for part in parts:
        nxt = [False] * width
        if part in (DOUBLE, PLUS):
            seen = False
            for j in range(width):
                if part == DOUBLE:
                    seen = seen or reach[j]
                nxt[j] = seen
                if part == PLUS:
                    seen = seen or reach[j]
        else:
            for j in range(1, width):
                if reach[j - 1] and _match_segment(part, names[j - 1]):  # type: ignore[arg-type]
                    nxt[j] = True
        reach = nxt
        if not any(reach):
            return False
    return reach[-1]


def build(body: str, *, braces: bool, escapes: bool) -> tuple[Part, ...]:
    """Split ``body`` at ``/`` into parts; repeated ``**`` segments collapse into one."""
    parts: list[Part] = []
    for raw in body.split("/"):
        if raw == DOUBLE:
            if not parts or parts[-1] != DOUBLE:
                parts.append(DOUBLE)
            continue
        texts = _expand_braces(raw, MAX_ALTERNATIVES) if braces else [raw]
        parts.append(tuple(Tokens(_tokens(t, escapes)) for t in texts))
    return tuple(parts)


@lru_cache(maxsize=4096)
def compile_glob(pattern: str) -> Glob:
    """Compile a rule/policy glob over POSIX paths: ``**`` spans folders, ``*`` does not.

    A pattern without a slash matches the file name in any folder (``*.ts`` == ``**/*.ts``); a
    trailing slash means everything below (``vendor/`` == ``vendor/**``).
    """
    pat = pattern.strip().lstrip("/")
    if pat.startswith("./"):
        pat = pat[2:]
    if "/" not in pat.rstrip("/"):
        pat = "**/" + pat
    if pat.endswith("/"):
        pat += DOUBLE
    return Glob(with_plus(build(pat, braces=True, escapes=False)))


def with_plus(parts: tuple[Part, ...]) -> tuple[Part, ...]:
    """A trailing ``/**`` matches what is below the folder, not the folder itself."""
    if len(parts) > 1 and parts[-1] == DOUBLE:
        return (*parts[:-1], PLUS)
    return parts


def glob_match(pattern: str, path: str) -> bool:
    return compile_glob(pattern).match(path)


def any_match(pattern: str, paths: Iterable[str]) -> bool:
    glob = compile_glob(pattern)
    return any(glob.match(p) for p in paths)


class Budget:
    """Work a caller may still spend on glob matching (a backstop against globs x files work).
    One unit is one path character tested against one glob segment: a match costs at most
    ``len(path) * len(glob.parts)`` units."""

    def __init__(self, units: int) -> None:
        self.left = units

    def spend(self, units: int) -> bool:
        self.left -= units
        return self.left >= 0


class FileIndex:
    """Files indexed for "does any file match this glob?": a literal glob is a set lookup, a
    glob with a fixed file name looks only at files of that name; other globs test each file
    holding the glob's longest literal segment, paid from a :class:`Budget` in file order.

    The candidates of a name or segment, the running sum of their lengths and which of them
    end with a suffix are kept, so a glob costs a bisection plus a :meth:`Glob.match` per
    candidate with its suffix (testing every file per glob was most of the dead-glob check);
    the answer and the units spent are the plain loop's (tests/core/test_globs_fast.py)."""

    def __init__(self, files: Iterable[str]) -> None:
        self.files = list(files)
        self.paths = frozenset(self.files)
        self.by_name: dict[str, list[str]] = {}
        for path in self.files:
            self.by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
        self._lists: dict[tuple[bool, str], tuple[list[str], list[int]]] = {}
        self._ends: dict[tuple[bool, str, str], list[int]] = {}

    def _candidates(self, glob: Glob) -> tuple[list[str], list[int], list[int]]:
        """The files ``glob`` is tested against in order, the running sum of their lengths,
        and the indexes of those ending with its suffix."""
        by_name = glob.literal_name is not None
        word = glob.literal_name if glob.literal_name is not None else glob.needle
        got = self._lists.get((by_name, word))
        if got is None:
            paths = self.by_name.get(word, []) if by_name else [f for f in self.files if word in f]
            got = self._lists[(by_name, word)] = (paths, list(accumulate(len(p) for p in paths)))
        paths, sums = got
        ends = self._ends.get((by_name, word, glob.suffix))
        if ends is None:
            suffix = glob.suffix
            ends = [i for i, p in enumerate(paths) if p.endswith(suffix)]
            self._ends[(by_name, word, glob.suffix)] = ends
        return paths, sums, ends

    def any_match(self, glob: Glob, budget: Budget) -> bool | None:
        """Whether a file matches ``glob``; None when the budget cannot pay for the answer.

        Each candidate costs ``len(path) * glob.cost`` units, spent before it is tested (the
        budget runs out at the first candidate the units left cannot pay)."""
        if glob.literal_path is not None:
            return glob.literal_path in self.paths
        if budget.left <= 0:
            return None
        paths, sums, ends = self._candidates(glob)
        cost, left = glob.cost, budget.left
        for i in ends:  # only these can match (Glob.match tests the suffix first)
            if sums[i] * cost > left:
                break  # the budget runs out at or before this candidate
            if glob.match(paths[i]):
                budget.left = left - sums[i] * cost
                return True
        total = sums[-1] * cost if sums else 0
        if total <= left:
            budget.left = left - total
            return False
        out = bisect_right(sums, left // cost)  # the first candidate the budget cannot pay
        budget.left = left - sums[out] * cost
        return None
