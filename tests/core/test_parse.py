"""Frontmatter splitting and safe YAML/JSON parsing with positions."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apc_tools.core.parse import (
    FM_UNCLOSED,
    JSON_DUPLICATE_KEY,
    JSON_SYNTAX,
    YAML_ALIAS,
    YAML_DUPLICATE_KEY,
    YAML_LENIENT,
    YAML_SYNTAX,
    YAML_TAG,
    load_frontmatter_yaml,
    load_json,
    load_yaml,
    split_frontmatter,
)


def ids(located: object) -> list[tuple[str, int | None, int | None]]:
    return [(p.rule.id, p.line, p.column) for p in located.problems]  # type: ignore[attr-defined]


def test_split_frontmatter_lines_and_crlf() -> None:
    front = split_frontmatter("---\r\nname: a\r\n---\r\n# Body\r\n")
    assert front.yaml == "name: a\n"
    assert front.yaml_line == 2
    assert front.body == "# Body"
    assert front.body_line == 4


def test_split_frontmatter_without_fences_is_all_body() -> None:
    front = split_frontmatter("# Title\n---\n")
    assert front.yaml is None and front.body.startswith("# Title")


def test_unclosed_frontmatter_is_a_problem_at_line_1() -> None:
    front = split_frontmatter("---\nname: a\n# body\n")
    assert front.yaml is None
    assert [(p.rule, p.line) for p in front.problems] == [(FM_UNCLOSED, 1)]


def test_triple_dash_inside_a_value_does_not_close() -> None:
    front = split_frontmatter('---\nname: a\ndescription: "x --- y"\n---\nbody\n')
    located = load_frontmatter_yaml(front.yaml or "", line_offset=front.yaml_line)
    assert located.data == {"name": "a", "description": "x --- y"}


def test_positions_are_file_lines_and_1_based_columns() -> None:
    located = load_frontmatter_yaml("name: a\nskills:\n  - x\n  - y\n", line_offset=2)
    assert located.values[("name",)].line == 2 and located.values[("name",)].column == 7
    assert located.keys[("skills",)].line == 3 and located.keys[("skills",)].column == 1
    assert located.values[("skills", 1)].line == 5 and located.values[("skills", 1)].column == 5


def test_yaml_syntax_error_position() -> None:
    located = load_yaml("a: 1\nb: [x,\n", line_offset=10)
    assert located.data is None
    assert ids(located)[0][0] == YAML_SYNTAX.id
    assert ids(located)[0][1] == 12


def test_duplicate_keys_reported_at_the_duplicate() -> None:
    located = load_yaml("a: 1\nb: 2\na: 3\n")
    assert located.data == {"a": 1, "b": 2}
    assert ids(located) == [(YAML_DUPLICATE_KEY.id, 3, 1)]


def test_custom_tags_never_construct_objects() -> None:
    located = load_yaml("a: !!python/object/apply:os.system ['echo hi']\nb: !custom x\n")
    assert [p.rule for p in located.problems] == [YAML_TAG, YAML_TAG]
    assert located.data["b"] == "x"


def test_billion_laughs_is_refused_quickly_without_expansion() -> None:
    doc = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    for i in range(1, 10):
        prev, name = chr(96 + i), chr(97 + i)
        doc += f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]\n"
    start = time.process_time()
    located = load_yaml(doc)
    elapsed = time.process_time() - start
    assert any(p.rule is YAML_ALIAS for p in located.problems)
    # never expanded: the result holds the 9 literal strings and None for each alias
    assert located.data["a"] == ["lol"] * 9 and located.data["j"] == [None] * 9
    assert elapsed >= 0  # no timing assertion: the structural check above is the proof


def test_yaml_1_2_core_scalars() -> None:
    located = load_yaml("a: yes\nb: true\nc: 2026-05-08\nd: 0x1f\ne: 1.5\nf: ~\ng: '1'\n")
    assert located.data == {
        "a": "yes",
        "b": True,
        "c": "2026-05-08",
        "d": 31,
        "e": 1.5,
        "f": None,
        "g": "1",
    }


def test_cursor_unquoted_glob_and_colon_are_lenient_warnings() -> None:
    located = load_frontmatter_yaml(
        "description: Rules: for TS\nglobs: **/*.ts, src/**/*.tsx\nalwaysApply: false\n",
        line_offset=2,
    )
    assert located.data == {
        "description": "Rules: for TS",
        "globs": "**/*.ts, src/**/*.tsx",
        "alwaysApply": False,
    }
    assert sorted(ids(located)) == [(YAML_LENIENT.id, 2, 14), (YAML_LENIENT.id, 3, 8)]


def test_lenient_reading_does_not_hide_other_errors() -> None:
    located = load_frontmatter_yaml("globs: **/*.ts\nother: [broken\n", line_offset=2)
    assert located.data is None
    assert ids(located)[0][0] == YAML_SYNTAX.id


def test_json_positions_and_duplicates() -> None:
    located = load_json('{\n  "name": "x",\n  "list": [1, {"k": true}],\n  "name": "y"\n}\n')
    assert located.data == {"name": "x", "list": [1, {"k": True}]}
    assert located.keys[("list",)].line == 3 and located.keys[("list",)].column == 3
    assert located.values[("list", 1, "k")].line == 3
    assert ids(located) == [(JSON_DUPLICATE_KEY.id, 4, 3)]


def test_json_syntax_error_has_line_and_column() -> None:
    located = load_json('{\n  "a": 1,\n}\n')
    assert ids(located) == [(JSON_SYNTAX.id, 3, 1)]


def test_json_deep_nesting_is_a_problem_not_a_crash() -> None:
    located = load_json("[" * 100_000 + "]" * 100_000)
    assert located.data is None and located.problems


def test_yaml_deep_nesting_is_a_problem_not_a_crash() -> None:
    located = load_yaml("a: " + "[" * 5000 + "]" * 5000 + "\n")
    assert located.data is None and located.problems


@given(st.text(max_size=400))
def test_frontmatter_parser_never_raises_on_any_text(text: str) -> None:
    front = split_frontmatter(text)
    if front.yaml is not None:
        load_frontmatter_yaml(front.yaml, line_offset=front.yaml_line)
    load_json(text)


yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(yaml_values)
def test_yaml_round_trip_of_arbitrary_values(value: object) -> None:
    import json

    text = json.dumps({"v": value}, ensure_ascii=False)  # JSON is YAML 1.2 (flow style)
    located = load_yaml(text)
    if any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F or ord(c) > 0xFFFD for c in text):
        return  # YAML forbids some characters that JSON allows; they must only not crash
    assert located.problems == []
    assert located.data == {"v": value}


# --- issue 7 item 5: libyaml alone does not decide that YAML is broken ------------------------
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("t: [Bash(git add:*), Read]\n", ["Bash(git add:*)", "Read"]),
        ("t: [N:M Sparsity]\n", ["N:M Sparsity"]),
        ("t: [http://x.com]\n", ["http://x.com"]),
        ("t: {a: [b:c], d: {e: f:g}}\n", {"a": ["b:c"], "d": {"e": "f:g"}}),
    ],
)
def test_colon_inside_flow_collection_is_read_as_the_pure_parser_reads_it(
    text: str, value: object
) -> None:
    doc = load_yaml(text)
    assert doc.ok and doc.data == {"t": value}
    assert doc.at(("t",)) is not None  # positions come from the pure parser's marks


def test_error_both_parsers_confirm_is_still_reported() -> None:
    doc = load_yaml("t: [a, b\nu: c\n")
    assert not doc.ok and doc.problems[0].rule.id == "YML001"
