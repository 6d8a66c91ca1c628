"""The exact fast paths of core/parse.py (issue 19): ``split_frontmatter`` without splitting
every line, and the simple-document reader of ``load_yaml`` / ``load_frontmatter_yaml``
without libyaml's events. Each must give what the general code gives, to the data types, the
key order, every ``line:column`` and every problem, or decline; these tests compare the two on
every file of the shared corpus, on hand-written hard cases and on generated documents."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apc_tools.core import parse
from tests.conftest import CORPUS, needs_shared


@contextmanager
def general_code() -> Iterator[None]:
    """The general code only (the fast paths off), as before them."""
    saved = parse._FAST_PATHS
    parse._FAST_PATHS = False
    try:
        yield
    finally:
        parse._FAST_PATHS = saved


def typed(value: Any) -> Any:
    """``value`` with every type made visible (True == 1 == 1.0 in Python) and NaN comparable."""
    if isinstance(value, dict):
        return ("dict", [(key, typed(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("list", [typed(item) for item in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def reading(located: parse.Located) -> tuple[Any, ...]:
    """Everything a Located holds, in order (positions maps with their insertion order)."""
    return (
        typed(located.data),
        list(located.values.items()),
        list(located.keys.items()),
        located.problems,
    )


def same_yaml(text: str, line_offset: int = 1) -> bool:
    """load_yaml and load_frontmatter_yaml read ``text`` as the general code does; True when
    the simple reader took it (so that the tests can show they exercise it)."""
    fast_yaml = parse.load_yaml(text, line_offset=line_offset)
    fast_front = parse.load_frontmatter_yaml(text, line_offset=line_offset)
    with general_code():
        slow_yaml = parse.load_yaml(text, line_offset=line_offset)
        slow_front = parse.load_frontmatter_yaml(text, line_offset=line_offset)
    assert reading(fast_yaml) == reading(slow_yaml), text
    assert reading(fast_front) == reading(slow_front), text
    return not isinstance(parse._load_simple(text, line_offset), int)


def same_split(text: str) -> None:
    fast = parse.split_frontmatter(text)
    with general_code():
        slow = parse.split_frontmatter(text)
    assert fast == slow, text


def corpus_texts() -> list[tuple[Path, str]]:
    needs_shared(CORPUS)
    texts = []
    for path in sorted(CORPUS.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            texts.append((path, data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "replace")))
    return texts


# --------------------------------------------------------------------------- the corpus


def test_corpus_splits_the_same() -> None:
    texts = corpus_texts()
    opened = 0
    for _, text in texts:
        same_split(text)
        opened += text.startswith("---")
    assert opened > 900  # the corpus's frontmatter files went through the fast split


def test_corpus_frontmatter_reads_the_same() -> None:
    simple = total = 0
    for _path, text in corpus_texts():
        front = parse.split_frontmatter(text)
        if front.yaml is None:
            continue
        total += 1
        simple += same_yaml(front.yaml, front.yaml_line)
    # Most front matters of the corpus are simple (about 630 of 932): the reader is exercised.
    assert total > 900
    assert simple > total // 2, (simple, total)


def test_corpus_yaml_files_read_the_same() -> None:
    compared = 0
    for path, text in corpus_texts():
        if path.suffix in (".yaml", ".yml"):
            same_yaml(text)
            compared += 1
    assert compared > 10


def test_corpus_lenient_shortcut_is_taken_and_the_same() -> None:
    """The Cursor globs (``globs: **/*.ts``) skip the strict reading that must fail; the
    result (a YML005 warning and the glob as text) is the general code's."""
    shortcut = 0
    for _, text in corpus_texts():
        front = parse.split_frontmatter(text)
        if front.yaml is None:
            continue
        declined = parse._load_simple(front.yaml, front.yaml_line)
        if isinstance(declined, int) and parse._surely_not_strict(front.yaml, declined):
            shortcut += 1
            got = parse.load_frontmatter_yaml(front.yaml, line_offset=front.yaml_line)
            assert any(p.rule is parse.YAML_LENIENT for p in got.problems)
    assert shortcut > 100


# --------------------------------------------------------------------------- hard cases

SCALARS = [
    # null, bool, int, float forms of the YAML 1.2 core schema and their near misses
    *("~", "null", "Null", "NULL", "nULL", "none", "None"),
    *("true", "True", "TRUE", "tRUE", "false", "False", "FALSE", "yes", "no", "on", "off", "y"),
    *("Yes", "NO", "On", "OFF", "n", "Y"),
    *("0", "7", "-7", "+7", "007", "0o7", "0o8", "0x1F", "0xG", "0b101", "1_000", "1,000"),
    *("1.5", "-1.5", ".5", "5.", "1e3", "1E-3", "1.0e+3", "1e", "e3", ".", "-", "+"),
    *(".inf", "-.inf", "+.Inf", ".INF", "inf", ".nan", ".NaN", ".NAN", "nan", "-.nan"),
    *("2024-01-02", "2024-01-02T03:04:05Z", "2001-12-14 21:59:43.10 -5", "12:30:45", "1:20"),
    "9" * 1001,
    "0x" + "f" * 1001,
    # text, with what may sit inside a plain scalar
    *("hello", "hello world", "a  b", "C# and F#", "a#b", "http://x.com/a?b=c", "a:b", "a, b"),
    *("a [b] {c}", "it's", 'say "hi"', "50%", "a@b", "a `b`", "a*b", "a&b", "a!b", "a|b"),
    *("a>b", "a - b", "a -b", "a ? b", "...", "a...", "x---", "é", "日本語", "emoji 🙂"),
    *("nbsp\u00a0inside", "nbsp end\u00a0", "\u3000ideographic", "a\\b", "a\\nb"),
    # what declines (or is an error) as a plain scalar
    *("a: b", "a:", "a #b", "#a", "&a b", "*a", "*", "**/*.ts", "*.mdc, src/*", "!tag x"),
    *("!!str 1", "!!int 1", "!!python/object:os.system a", "|", ">", "|-", "%x", "@x", "`x`"),
    *("[a, b]", "{a: b}", "[unclosed", "- a", "-a", "? a", ":a", ",a", "]", "}"),
    # quoted
    *('""', '"a"', '" a "', '"a: b #c"', '"\\"q\\""', '"back\\\\slash"', '"line\\nfeed"'),
    *('"tab\\there"', '"\\x41"', '"\\u00e9"', '"\\/"', '"\\ "', '"\\e"', '"unclosed', '"a"b'),
    *('"a" #c', "''", "'a'", "' a '", "'it''s'", "'a''''b'", "'unclosed", "'a'b", "'\\n'"),
]

KEYS = [
    *("name", "description", "allowed-tools", "a.b", "a_b", "_x", "x1", "A", "key-"),
    *("true", "True", "null", "Null", "NULL", "false", "yes", "on", "y", "n", "nan", "e1"),
    *("1", "1.5", "0x1", "~", "-a", ".a", "é", "a b", '"q"', "'q'", "a:b", "k" * 1030),
]


def test_every_scalar_form_reads_the_same() -> None:
    for value in SCALARS:
        for text in (
            f"k: {value}\n",
            f"k:   {value}   \n",
            f"a: 1\nk: {value}\nz: 2\n",
            f"k:\n  - {value}\n  - x\n",
            f"k:\n- {value}\n",
            f"- {value}\n",
            f"{value}\n",
            f"k: {value}",
        ):
            same_yaml(text, 1)
            same_yaml(text, 7)


def test_every_key_form_reads_the_same() -> None:
    for key in KEYS:
        for text in (f"{key}: v\n", f"a: 1\n{key}:\nb: 2\n", f"{key}:\n  - x\n"):
            same_yaml(text)


HARD = [
    "",
    "\n",
    "\n\n\n",
    "   \n  \n",
    "name: a\n",
    "name: a",
    "\n\nname: a\n\n",
    "  \nname: a\n",
    # duplicates
    "name: a\nname: b\n",
    "name: a\ndescription: b\nname: c\n",
    "tools:\n  - a\ntools: b\n",
    # tabs, trailing spaces, CR
    "name:\ta\n",
    "name: a\t\n",
    "name: a\tb\n",
    "\tname: a\n",
    "name: a   \n",
    "name:    \n",
    "name: a\r\ndescription: b\r\n",
    "name: a\rdescription: b\r",
    # comments
    "# c\nname: a\n",
    "name: a # c\n",
    "name: a #c\n",
    "name: a\n# c\n",
    "name:\n# c\n  - a\n",
    'name: "a" # c\n',
    # empty values, lists
    "name:\n",
    "name:\ndescription: b\n",
    "name:\n\ndescription: b\n",
    "tools:\n  - a\n  - b\nname: c\n",
    "tools:\n- a\n- b\nname: c\n",
    "tools:\n  - a\n\n  - b\n",
    "tools:\n  - a\n    - b\n",
    "tools:\n    - a\n  - b\n",
    "tools:\n  -\n",
    "tools:\n  - \n",
    "tools:\n  -a\n",
    "tools:\n  -  a  \n",
    "tools:\n  - a\n  b\n",
    "tools:\n  - a: b\n",
    "tools:\n  - - a\n",
    "name: a\n  - b\n",
    "- a\n- b\n",
    "name: a\n- b\n",
    # nested, multi-line, block scalars
    "name:\n  first: a\n",
    "description: a\n  continued\n",
    "description: a\n\n  continued after a blank\n",
    "description: |\n  text\n",
    "description: >-\n  text\n",
    'description: "a\n  b"\n',
    "description: 'a\n  b'\n",
    # keys with dots, dashes, unicode; odd keys
    "a.b: 1\nc-d: 2\n_e: 3\n",
    "é: a\n",
    "name : a\n",
    "name:a\n",
    "name::\n",
    "? name\n: a\n",
    "<<: a\n",
    # documents and directives
    "---\nname: a\n",
    "name: a\n---\nname: b\n",
    "name: a\n...\n",
    "%YAML 1.2\n---\nname: a\n",
    # characters libyaml reads differently
    "name: a\x85b\n",
    "name: a\u2028b\n",
    "name: a\u2029b\n",
    "name: a\x0bb\n",
    "name: a\x0cb\n",
    "name: a\x1cb\n",
    "name: a\x7fb\n",
    "name: a\x00b\n",
    "name: a\ufeffb\n",
    "\ufeffname: a\n",
    "name: a\ufffe\n",
    "name: a\ud800\n",
    "name: \U0001f600\n",
    # anchors, aliases, tags, flow
    "name: &x a\nother: *x\n",
    "name: !custom a\n",
    "globs: **/*.ts\n",
    "globs: *.mdc\n",
    "globs: *a\n",
    "globs: *\n",
    "description: Rules: TypeScript\nglobs: **/*.ts\n",
    "name: a\nglobs: **/*.ts\nalwaysApply: false\n",
    "name: a\nname: b\nglobs: **/*.ts\n",
    "true: a\nglobs: **/*.ts\n",
    "globs: **/*.ts\ntools: [Bash(git add:*)]\n",
    "tools: [Bash(git add:*)]\nglobs: **/*.ts\n",
    "globs: **/*.{ts,tsx}\ndescription: [a, b]\n",
    "globs: **/*.ts\nglobs: *.md\n",
    'globs: **/*.ts\ndescription: "q"\n',
    'globs: **/*.ts\ndescription: say "hi" \\ back\n',
    "globs: **/*.ts\ndescription: a: b\n",
    "globs: **/*.ts\n\tx: 1\n",
    "globs: *.ts\nbroken: [\n",
    # very long lines and many lines
    "description: " + "word " * 5000 + "end\n",
    'description: "' + "q" * 20000 + '"\n',
    "k" * 1000 + ": v\n",
    "k" * 1030 + ": v\n",
    "".join(f"key{n}: value {n}\n" for n in range(3000)),
    "tools:\n" + "".join(f"  - tool{n}\n" for n in range(3000)),
]


@pytest.mark.parametrize("text", HARD)
def test_hard_documents_read_the_same(text: str) -> None:
    same_yaml(text, 1)
    same_yaml(text, 2)


def test_the_reader_takes_the_simple_documents() -> None:
    """It is used (not always declining) and declines what it must."""
    taken = {
        "name: a\ndescription: b c\n",
        'name: a\ndescription: "b: c # d"\n',
        "name: 'it''s'\ntools:\n  - a\n  - 'b'\n",
        "tools:\n- a\n",
        "",
    }
    for text in taken:
        assert not isinstance(parse._load_simple(text, 1), int), text
    for text in ("name: a\nname: b\n", "name: a # c\n", "name: &x a\n", "name: a\tb\n"):
        assert isinstance(parse._load_simple(text, 1), int), text


FRONTMATTER = [
    "",
    "---",
    "--- ",
    "---\n",
    "---\r\n",
    "---\r",
    "---\n---\n",
    "---\n---",
    "---\n...\n",
    "---\nname: a\n---\n",
    "---\nname: a\n---\nbody\n",
    "---\nname: a\n---\nbody",
    "---\nname: a\n---\n\n\nbody\n\n",
    "---\nname: a\n--- \t\nbody\n",
    "---\nname: a\n---x\nbody\n",
    "---\nname: a\n ---\nbody\n",
    "---\nname: a\n----\nbody\n---\n",
    "---\nname: a\n....\n...\nbody\n",
    "---\nname: a\n...\nbody\n---\n",
    "---\nname: a\n",
    "---\nname: a\nno close\n",
    "---\nname: a\n\n",
    "--- \t\nname: a\n---\n",
    "---x\nname: a\n---\n",
    "----\nname: a\n---\n",
    "--\nname: a\n",
    "---\r\nname: a\r\n---\r\nbody\r\nmore\r\n",
    "---\rname: a\r---\rbody\r",
    "---\r\nname: a\r---\nbody\r\n\r\n",
    "---\n\r\n---\n",
    "---\nname: a\n---\nbody\n---\nrule above\n---\n",
    "---\nname: a\n---\n# Title\n\n---\n\ntext\n",
    "---\nname: a\n\x0b---\nbody\n",
    "---\nname: a\n---\nbody\x0cpage\n",
    "---\nname: a\x1c---\nbody\n",
    "---\nname: a\n---\nbody\x1d\x1e\n",
    "---\nname: a\x85---\x85body\n",
    "---\nname: a\u2028---\u2029body\n",
    "---\nname: é\n---\nbody 日本語\n",
    "---\nname: a\n---\n" + "long line " * 10000 + "\n",
    "---\n" + "k: v\n" * 5000 + "---\nbody\n",
    "---\n" + "k: v\n" * 5000,
    "text\n---\nname: a\n---\n",
]


@pytest.mark.parametrize("text", FRONTMATTER)
def test_hard_frontmatter_splits_the_same(text: str) -> None:
    same_split(text)


# --------------------------------------------------------------------------- generated

_PLAIN_WORDS = st.sampled_from(
    ["a", "b", "word", "C#", "x:y", "a,b", "[x]", "{y}", "it's", "é", "🙂", "1", "0o7", "1e3"]
)


def _plain_text() -> st.SearchStrategy[str]:
    return st.lists(_PLAIN_WORDS, min_size=1, max_size=4).map(" ".join)


_VALUE = st.one_of(
    st.sampled_from(SCALARS),
    _plain_text(),
    _plain_text().map(lambda text: f'"{text}"'),
    _plain_text().map(lambda text: f"'{text}'"),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=12),
    st.text(alphabet="ab :#-\"'\\\t*&![]{},|>~.0123456789eExo+", max_size=10),
)
_KEY = st.one_of(
    st.sampled_from(["name", "description", "tools", "model", "globs", "a.b", "c-d"]),
    st.sampled_from(KEYS[:40]),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,6}", fullmatch=True),
)
_GAP = st.sampled_from([" ", " ", " ", "  ", "   ", "\t", ""])
_TAIL = st.sampled_from(["", "", "", " ", "  ", "\t", " # c"])


@st.composite
def _line(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 9))
    if kind <= 4:
        return f"{draw(_KEY)}:{draw(_GAP)}{draw(_VALUE)}{draw(_TAIL)}"
    if kind == 5:
        return f"{draw(_KEY)}:{draw(_TAIL)}"
    if kind <= 7:
        indent = draw(st.sampled_from(["", "  ", "  ", "    ", " "]))
        return f"{indent}-{draw(_GAP)}{draw(_VALUE)}{draw(_TAIL)}"
    if kind == 8:
        return draw(st.sampled_from(["", "", "  ", "# comment", "  continued", "---", "..."]))
    return draw(st.text(alphabet="ab: -#\t'\"*&!|>[]{}", max_size=10))


_DOCUMENT = st.lists(_line(), max_size=12).map("\n".join)
_ENDING = st.sampled_from(["", "\n", "\n\n"])


@given(_DOCUMENT, _ENDING, st.integers(0, 5))
def test_generated_documents_read_the_same(document: str, ending: str, offset: int) -> None:
    same_yaml(document + ending, offset)


@st.composite
def _simple_document(draw: st.DrawFn) -> str:
    """Documents the reader mostly takes: distinct keys, clean values, lists under empty keys."""
    keys = draw(st.lists(st.from_regex(r"[a-z_][a-z0-9_.-]{0,8}", fullmatch=True), unique=True))
    lines = []
    for key in keys:
        if draw(st.booleans()):
            value = draw(st.one_of(_plain_text(), _plain_text().map(lambda text: f'"{text}"')))
            lines.append(f"{key}: {value}")
        else:
            lines.append(f"{key}:")
            indent = draw(st.sampled_from(["", "  ", "    "]))
            lines += [f"{indent}- {item}" for item in draw(st.lists(_plain_text(), max_size=3))]
        if draw(st.integers(0, 4)) == 0:
            lines.append("")
    return "\n".join(lines) + "\n"


@given(_simple_document(), st.integers(0, 5))
def test_generated_simple_documents_read_the_same(document: str, offset: int) -> None:
    same_yaml(document, offset)


_FRONT_LINE = st.one_of(
    st.sampled_from(["---", "--- ", "---\t", "...", "....", "----", " ---", "---x", "", "a: b"]),
    st.text(alphabet="-. \tab", max_size=6),
)
_BREAK = st.sampled_from(
    # the line boundaries str.splitlines knows, \n the most often
    ["\n", "\n", "\n", "\r\n", "\r", *"\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"]
)


@given(st.lists(st.tuples(_FRONT_LINE, _BREAK), max_size=10), st.booleans())
def test_generated_frontmatter_splits_the_same(lines: list[tuple[str, str]], end: bool) -> None:
    text = "".join(line + brk for line, brk in lines)
    if not end and lines:
        text = text[: -len(lines[-1][1])]
    same_split(text)
    same_split("---\n" + text)


def test_the_refused_characters_are_the_complement_of_the_accepted_ones() -> None:
    """``_NOT_SIMPLE_CHAR`` lists what the simple reader refuses; it is exactly every code point
    outside the printable set YAML and libyaml read as they are (written that way, the class
    took milliseconds to compile at each start)."""
    import re

    accepted = re.compile(
        "[\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
    )
    refused = parse._NOT_SIMPLE_CHAR
    wrong = [
        c for c in range(0x110000) if bool(refused.match(chr(c))) == bool(accepted.match(chr(c)))
    ]
    assert wrong == []
