"""The warm path's shortcuts give what the long way gives: the path tables' quick rejection,
the committed-home scan over one joined text, and the listing decoded at once."""

from __future__ import annotations

import os
import random
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from apc_tools.boundary import paths
from apc_tools.core import git as gitio
from tests.boundary.helpers import commit, init
from tests.conftest import git


def _slow_match(table: paths.Compiled, low: str) -> paths.PathRule | None:
    """match_table without the quick rejection: every candidate rule tested."""
    parts = low.split("/")
    for index in table.candidates(parts):
        needle, glob, rule = table.rules[index]
        if needle in low and paths.segments_match(glob, tuple(parts)):
            return rule
    return None


def _pieces(table: paths.Compiled) -> list[str]:
    """Segments and needles of the table's rules, and their neighbours."""
    out = {"src", "lib", "a.py", "x", ""}
    for needle, glob, _ in table.rules:
        out.add(needle)
        for segment in glob:
            out.add(segment.replace("*", "x").replace("?", "y").strip("[]{}"))
            out.add(segment.replace("*", ""))
    return sorted(out)


@pytest.mark.parametrize("name", ["TOOL_TABLE", "APC_TABLE", "extra"])
def test_quick_rejection_never_drops_a_match(name: str) -> None:
    table = (
        paths.extra_rules(["notes/**", "*.trace", "build/*/log-*.txt", "**/x/**"], "policy")
        if name == "extra"
        else getattr(paths, name)
    )
    pieces = _pieces(table)
    rng = random.Random(19)
    matched = 0
    for _ in range(20000):
        low = "/".join(rng.choice(pieces) for _ in range(rng.randint(1, 5))).casefold()
        want = _slow_match(table, low)
        assert paths.match_table(table, low) == want, low
        matched += want is not None
    assert matched > 500  # the walk reaches the rules, not only the rejection


def test_an_empty_table_matches_nothing() -> None:
    empty = paths.extra_rules([], "policy")
    assert paths.match_table(empty, ".claude/projects/x.jsonl") is None
    assert list(paths.detect_path("notes/a.txt", empty)) == []


def _slow_homes(listed: list[str]) -> dict[str, paths.HomeFolder]:
    """paths.home_folders the long way: each path's segments against each row's folder (and
    mark), then the general rule's marks, in the order of the listing."""
    hits: list[tuple[int, int, str, paths.HomeFolder]] = []
    for i, path in enumerate(listed):
        parts = path.casefold().split("/")
        for rank, (needle, home, mark) in enumerate(paths.NEEDLES):
            want = needle.rstrip("/").split("/")
            for at in range(len(parts)):  # the first place in the path only
                if parts[at : at + len(want)] == want and (mark or at + len(want) < len(parts)):
                    prefix = "/".join(parts[:at] + home.folder.split("/")) + "/"
                    hits.append((i, rank, prefix, replace(home, found=mark)))
                    break
        for rank, mark in enumerate(paths.GENERIC_MARKS, len(paths.NEEDLES)):
            if len(parts) >= 2 and parts[-1] == mark:
                folder, name = "/".join(parts[:-1]), parts[-2]
                under = ("/" + folder).endswith(tuple(f"/{p}{name}" for p in paths.HOME_PARENTS))
                if name.startswith(".") or under:
                    hits.append(
                        (i, rank, folder + "/", replace(paths.generic_home(name), found=mark))
                    )
    found: dict[str, paths.HomeFolder] = {}
    for _, _, prefix, home in sorted(hits, key=lambda h: (h[0], h[1])):
        if home.tool == "an agent tool" and any(prefix.startswith(p) for p in found):
            continue
        found.setdefault(prefix, home)
    return found


@pytest.mark.parametrize(
    "listed",
    [
        ["src/a.py", "README.md"],
        ["dot/.CLAUDE/Projects/-x/s.jsonl", "dot/.claude/settings.json"],
        ["a\n.codex/sessions/x", "b/.codex/sessions/y", ".gemini/tmp/z"],
        ["x.claude/projects/a", ".claude/projectsX/a", "ß/.claude/projects/a"],
        ["d/.config/github-copilot/hosts.json", ".QWEN/oauth_creds.json", ".qwen/settings.json"],
        ["x/.tool/installation_id", "installation_id", ".config/t/installation_id/x"],
        [".gemini/antigravity/installation_id", ".gemini/antigravity/brain/a.md"],
    ],
)
def test_home_folders_as_the_long_way(listed: list[str]) -> None:
    assert paths.home_folders(iter(listed)) == _slow_homes(listed)


@pytest.mark.parametrize("seed", range(40))
def test_home_folders_as_the_long_way_random(seed: int) -> None:
    """Random paths of home-like parts (nested homes, case variants, a needle twice in one
    path, newlines, ß): the same homes, found in the same order."""
    import random

    rng = random.Random(seed)
    parts = [
        ".claude",
        ".CLAUDE",
        ".codex",
        ".gemini",
        "projects",
        "Projects",
        "sessions",
        "tmp",
        "a",
        "ß",
        "x\ny",
        ".claude/projects",
        "b.claude",
        ".qwen",
        "oauth_creds.json",
        "installation_id",
        ".config",
        "github-copilot",
        ".local/share",
        "amp",
        ".crush",
        "windsurf/cascade",
        ".codeium",
    ]
    listed = list(
        dict.fromkeys(
            "/".join(rng.choice(parts) for _ in range(rng.randint(1, 7))) + f"/f{i}"
            for i in range(rng.randint(0, 60))
        )
    )
    got = paths.home_folders(iter(listed))
    want = _slow_homes(listed)
    assert list(got.items()) == list(want.items())


@pytest.mark.skipif(sys.platform == "win32", reason="bytes file names")
def test_the_listing_decodes_hostile_names_as_fsdecode(tmp_path: Path) -> None:
    root = init(tmp_path / "repo")
    names = ["plain.txt", "tab\there.txt", "new\nline.txt", "ünï.txt", "space name.md"]
    commit(root, dict.fromkeys(names, "x\n"))
    raw = os.fsencode(root) + b"/bad-\xff\xfe.txt"
    with open(raw, "wb") as handle:
        handle.write(b"y\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "bad name")
    repo = gitio.open_repo(root)
    tree = gitio.run(repo.root, ["ls-tree", "-r", "-z", "--full-tree", "HEAD"])
    want = []
    for token in tree.split(b"\0")[:-1]:
        meta, _, name = token.partition(b"\t")
        mode, _kind, oid = meta.decode().split(" ")
        want.append(gitio.Entry(mode, oid, os.fsdecode(name)))
    assert list(gitio.tree_entries(repo, "HEAD")) == want
    assert {e.path for e in gitio.index_entries(repo)} == {e.path for e in want}
    assert os.fsdecode(b"bad-\xff\xfe.txt") in {e.path for e in want}


def test_no_path_rule_agrees_with_detect_path() -> None:
    """The quick "no path rule" answer the scan takes for most paths is never wrong."""
    extra = paths.extra_rules(["notes/**", "*.trace"], "policy")
    pieces = sorted(
        {*_pieces(paths.TOOL_TABLE), *_pieces(paths.APC_TABLE), *_pieces(extra), ".apc"}
    )
    rng = random.Random(7)
    hits = 0
    for _ in range(20000):
        low = "/".join(rng.choice(pieces) for _ in range(rng.randint(1, 5))).casefold()
        for table in (None, extra):
            found = list(paths.detect_path(low, table))
            hits += bool(found)
            if paths.no_path_rule(low, table):
                assert not found, low
    assert hits > 500


def test_a_wild_rule_without_a_needle_is_never_rejected() -> None:
    table = paths.extra_rules(["*"], "policy")
    assert paths.match_table(table, "src/any.py") is not None
    assert not paths.no_path_rule("src/any.py", table)
