"""The plain-scalar fast path (text that cannot start a null, bool or number form) resolves
every scalar as the full YAML 1.2 core schema resolution does."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apc_tools.core import parse


def full_resolution(value: str) -> Any:
    """resolve_plain without the fast path: every form tried in turn."""
    if parse._NULL.match(value):
        return None
    if value in parse._BOOL:
        return parse._BOOL[value]
    long = len(value) > parse.MAX_INT_CHARS
    if long and (parse._INT.match(value) or parse._OCT.match(value) or parse._HEX.match(value)):
        raise parse.NumberTooLong(value)
    if parse._INT.match(value):
        return int(value)
    if parse._OCT.match(value):
        return int(value[2:], 8)
    if parse._HEX.match(value):
        return int(value[2:], 16)
    if parse._FLOAT.match(value):
        return float(value)
    if parse._INF.match(value):
        return float("-inf") if value.startswith("-") else float("inf")
    if parse._NAN.match(value):
        return float("nan")
    return value


def same(value: str) -> None:
    try:
        want: Any = full_resolution(value)
    except parse.NumberTooLong:
        with pytest.raises(parse.NumberTooLong):
            parse.resolve_plain(value)
        return
    got = parse.resolve_plain(value)
    assert type(got) is type(want)
    if isinstance(want, float) and math.isnan(want):
        assert math.isnan(got)
    else:
        assert got == want


FORMS = [
    "",
    "~",
    "null",
    "Null",
    "NULL",
    "nULL",
    "true",
    "True",
    "TRUE",
    "false",
    "False",
    "FALSE",
    "yes",
    "no",
    "on",
    "off",
    "0",
    "-0",
    "+12",
    "0o17",
    "0x1F",
    "1.5",
    ".5",
    "-.5e3",
    "1e9",
    ".inf",
    "-.Inf",
    "+.INF",
    ".nan",
    ".NaN",
    "null\n",
    "12\n",
    "1_000",
    "text",
    "Title: x",
    "7" * 1001,
    "0x" + "f" * 1000,
    "0o" + "7" * 1000,
    "2024-01-01",
    "@x",
    "ñ",
    "\u0663",
]


@pytest.mark.parametrize("value", FORMS)
def test_known_forms(value: str) -> None:
    same(value)


@given(
    st.text(
        alphabet=st.sampled_from("~nNtTfFrueals+-.0123456789oxXeEIiaAbB_ \n\u0663"), max_size=12
    )
)
def test_generated_scalars(value: str) -> None:
    same(value)


@given(st.text(max_size=20))
def test_any_text(value: str) -> None:
    same(value)


def full_split(text: str) -> parse.Frontmatter:
    """split_frontmatter without the fast path for a text that does not open with ``---``."""
    lines = text.splitlines()
    if not lines or not parse._FENCE.match(lines[0]):
        return parse.Frontmatter(None, 1, text, 1)
    return parse.split_frontmatter(text)


@pytest.mark.parametrize(
    "text", ["", "\n", "--", "-- -\n", "---", "---\n", "--- \t\nx: 1\n---\nbody", "# T\n---\n"]
)
def test_frontmatter_split_known(text: str) -> None:
    assert parse.split_frontmatter(text) == full_split(text)


@given(st.lists(st.sampled_from(["---", "--", "-", " ", "\t", "\n", "\r\n", "\r", "x: 1", "\x85"])))
def test_frontmatter_split_generated(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert parse.split_frontmatter(text) == full_split(text)
