"""Backstop for H3: every regex in apc_tools, and the glob and gitignore matchers, finish on
pathological input (a generous hang guard, never a speed assertion).

The patterns are found, not listed: every module of the package is imported and each
module-level ``re.Pattern`` (directly, inside a detector, or in a tuple, list or mapping) is
exercised with the attack strings of tests/hang_guard.py. A pattern added later is guarded
without anyone remembering to add it here.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterator, Mapping
from dataclasses import fields, is_dataclass
from typing import Any

import pytest

import apc_tools
from apc_tools.contract.checks.rule_files import GLOB_BUDGET
from apc_tools.core import gitignore
from apc_tools.core.globs import Budget, FileIndex, compile_glob, glob_match
from apc_tools.core.schemas import load_schema, schema_names
from tests.hang_guard import exercise, exercise_window, run_guarded


def _patterns_in(name: str, value: Any, depth: int = 0) -> Iterator[tuple[str, re.Pattern[str]]]:
    if isinstance(value, re.Pattern):
        yield name, value
    elif depth > 3 or isinstance(value, (str, bytes, type)):
        return
    elif is_dataclass(value):
        for f in fields(value):
            yield from _patterns_in(f"{name}.{f.name}", getattr(value, f.name), depth + 1)
    elif isinstance(value, (tuple, list, frozenset, set)):
        for index, item in enumerate(value):
            yield from _patterns_in(f"{name}[{index}]", item, depth + 1)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _patterns_in(f"{name}[{key!r}]", item, depth + 1)


def module_patterns() -> dict[str, re.Pattern[str]]:
    """Every module-level compiled pattern of apc_tools, by where it lives (each once)."""
    found: dict[str, re.Pattern[str]] = {}
    seen: set[int] = set()
    for info in pkgutil.walk_packages(apc_tools.__path__, "apc_tools."):
        if info.name.endswith("__main__"):  # runs the command line when imported
            continue
        module = importlib.import_module(info.name)
        for attr, value in vars(module).items():
            for name, pattern in _patterns_in(f"{info.name}.{attr}", value):
                if id(pattern) not in seen:  # text and bytes patterns alike
                    seen.add(id(pattern))
                    found[name] = pattern
    return found


def _schema_regexes(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("pattern"), str):
            yield node["pattern"]
        yield from node.get("patternProperties", {})
        for key, value in node.items():
            if not key.startswith("x-"):  # x-apc-messages: {"pattern": "<message>"}
                yield from _schema_regexes(value)
    elif isinstance(node, list):
        for value in node:
            yield from _schema_regexes(value)


def schema_patterns() -> dict[str, re.Pattern[str]]:
    """The ``pattern`` and ``patternProperties`` regexes of the published schemas: applied to
    values from the checked files (core/schemas.py compiles them with ``re``)."""
    found: dict[str, re.Pattern[str]] = {}
    for name in schema_names():
        for regex in _schema_regexes(load_schema(name)):
            found.setdefault(f"schema {name}: {regex}", re.compile(regex))
    return found


PATTERNS = {**module_patterns(), **schema_patterns()}


def test_the_enumeration_finds_the_patterns_it_must_guard() -> None:
    names = set(PATTERNS)
    for expected in (
        "apc_tools.core.detect.SECRET_DETECTORS[7].pattern",  # private key
        "apc_tools.core.detect.SECRET_DETECTORS[8].pattern",  # JWT
        "apc_tools.core.detect._ROLE_LINE",
        "apc_tools.core.parse._TOP_LINE",
        "apc_tools.contract.checks.agents_md._INLINE_TARGET",
    ):
        assert expected in names
    assert len(PATTERNS) >= 40
    assert any(name.startswith("schema ") for name in names)


# A detector's ``before`` is only searched in the 48 characters before a candidate match
# (detect._scan): it is guarded the way it is used.
WINDOWED = {name for name in PATTERNS if name.endswith(".before")}


# Patterns apc only ever matches at the start of a blob (``.match``, never searched): guarded
# the way they are used.
ANCHORED = {"apc_tools.boundary.disguise._YAML_LIST"}


def exercise_anchored(pattern: re.Pattern[bytes]) -> None:
    from tests.hang_guard import pathological_inputs

    twin = re.compile(pattern.pattern.decode("latin-1"), pattern.flags & ~re.ASCII)
    for text in pathological_inputs(twin):
        pattern.match(text.encode("latin-1", "replace"))


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_pattern_finishes_on_pathological_input(name: str) -> None:
    if name in ANCHORED:
        run_guarded(exercise_anchored, PATTERNS[name])
        return
    run_guarded(exercise_window if name in WINDOWED else exercise, PATTERNS[name])


# --------------------------------------------------------------------------- globs

HOSTILE_GLOBS = (
    "a/" + "**/" * 200 + "Q",  # A43, A44: exponential as nested (?:[^/]+/)*
    "**/" * 400 + "Q",  # A45
    "*a" * 300 + "b",  # many stars in one segment
    "/".join(["*"] * 300) + "/Q",
    "{" + ",".join("a" * 50 for _ in range(100)) + "}" * 10,
    "[" * 500 + "a",
    "**" + "*?" * 300 + "Q",
)
HOSTILE_PATHS = (
    "a/b/c/d/e/f.txt",
    "/".join(["a"] * 2000),
    "a" * 100_000,
    "/".join(["a" * 50] * 300),
)


def _match_all_globs() -> None:
    for pattern in HOSTILE_GLOBS:
        for path in HOSTILE_PATHS:
            glob_match(pattern, path)


def test_glob_matcher_finishes_on_hostile_globs() -> None:
    run_guarded(_match_all_globs)


def test_hostile_globs_do_not_match_what_they_should_not() -> None:
    assert not glob_match(HOSTILE_GLOBS[0], "a/b/c/d/e/f.txt")
    assert glob_match(HOSTILE_GLOBS[0], "a/b/c/Q")
    assert glob_match("*a" * 30 + "b", "a" * 30 + "b")


def _gitignore_all() -> None:
    lines = "\n".join(HOSTILE_GLOBS) + "\n" + "x" + " " * 100_000 + "y\n"
    patterns = gitignore.parse_lines(lines * 20)
    for path in HOSTILE_PATHS:
        gitignore.is_ignored(patterns, path)
    gitignore.missing_defaults(lines)


def test_gitignore_matcher_finishes_on_hostile_lines() -> None:
    run_guarded(_gitignore_all)


def _index_many_globs() -> None:
    files = [f"src/d{i % 100}/f{i}.ts" for i in range(10_000)]
    index = FileIndex(files)
    budget = Budget(GLOB_BUDGET)
    for i in range(20_000):
        index.any_match(compile_glob(f"src/**/nothing{i}*.ts"), budget)


def test_many_dead_globs_against_many_files_finish() -> None:
    run_guarded(_index_many_globs)


def test_a_yaml_list_head_refuses_a_file_of_crlf_comment_lines_at_once() -> None:
    """A real shell profile of ``#...\r\n`` lines (8 KiB, from a dotfile repository) took 36 s
    to refuse: a comment could end before or after its CR (exponential). Each line now has one
    reading."""
    from apc_tools.boundary.disguise import _YAML_LIST

    data = b"#\tcomment line of a profile\r\n" * 400 + b"export PATH=x\r\n"
    run_guarded(lambda: _YAML_LIST.match(data), limit=10)
