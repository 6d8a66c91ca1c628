"""The published JSON Schemas: well-formed, versioned, and saying yes and no where they should."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from apc_tools.cli import main
from apc_tools.core.schemas import (
    SchemaError,
    extension_keys,
    known_keys,
    load_schema,
    recommended_keys,
    schema_errors,
    schema_names,
    schema_text,
    schema_warnings,
    validator,
)
from tests.conftest import CORPUS, needs_shared

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "schemas"
OURS = ["agent", "mcps", "plan", "policy", "project", "rule", "skill", "skill-agentskills"]
ID_RE = re.compile(
    r"^https://apc-tools\.dev/schemas/v(?P<major>[0-9]+)/(?P<name>[a-z-]+)\.schema\.json$"
)


def where(errors: list[SchemaError]) -> list[tuple[str, str]]:
    return [(e.json_path, e.validator) for e in errors]


# --- shape of every schema ---------------------------------------------------------------------


def test_names_are_the_files_sorted() -> None:
    on_disk = sorted(p.name.removesuffix(".schema.json") for p in SCHEMA_DIR.glob("*.schema.json"))
    assert schema_names() == on_disk
    assert set(OURS) <= set(schema_names())


@pytest.mark.parametrize("name", schema_names())
def test_schema_is_valid_draft_2020_12_with_id_title_version(name: str) -> None:
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    match = ID_RE.match(schema["$id"])
    assert match and match["name"] == name
    assert schema["title"] and schema["description"]
    version = schema.get("x-apc-schema-version")
    assert (version and re.fullmatch(r"\d+\.\d+\.\d+", version)) or "/schemas/1" in schema["$id"]


@pytest.mark.parametrize("name", schema_names())
def test_schema_text_is_the_shipped_file(name: str) -> None:
    text = schema_text(name)
    assert text == (SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8")
    assert json.loads(text) == load_schema(name)


@pytest.mark.parametrize("name", OURS)
def test_own_examples_have_no_errors(name: str) -> None:
    examples = load_schema(name)["examples"]
    assert examples
    for example in examples:
        assert schema_errors(name, example) == []


def test_unknown_schema_name_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no schema 'nope'"):
        schema_text("nope")


def test_validator_is_compiled_once() -> None:
    assert validator("agent") is validator("agent")
    assert isinstance(validator("agent"), Draft202012Validator)


def test_load_schema_returns_a_private_copy() -> None:
    load_schema("rule")["properties"].clear()
    assert "globs" in load_schema("rule")["properties"]
    assert known_keys("rule") == {"description", "globs", "alwaysApply"}


# --- positive instances ------------------------------------------------------------------------

VALID: list[tuple[str, Any]] = [
    ("project", {"name": "P", "apc": "0.1.0", "version": "0.1.0", "created": "2026-05-08"}),
    ("project", {"name": "P", "apf": "0.1.0", "apx": None, "apx_id": "ea6f1d58bbd4"}),
    ("project", {"name": "P", "apc": "0.1.0", "agents": {"imported": ["ana", "bo_b"]}}),
    ("agent", {"name": "martin", "model": "inherit", "description": "Sales."}),
    (
        "agent",
        {
            "name": "sofia",
            "model": "ollama:llama3.2:3b",
            "description": "Support.",
            "skills": ["a", "b"],
            "is_background": False,
            "color": "blue",
            "emoji": "x",
            "vibe": "calm",
            "language": "es-AR",
            "role": "r",
            "tools": "Read, Grep",
            "type": "specialist",
            "is_master": True,
            "custom": 1,
        },
    ),
    ("agent", {"name": "a", "model": "inherit", "description": "d", "skills": None}),
    ("skill", {"name": "pdf", "description": "d", "homepage": "h", "version": 2}),
    ("skill", {"name": "pdf", "description": "d", "allowed-tools": ["Read", "Bash(git:*)"]}),
    ("skill", {"name": "a1-b2-c3", "description": "d", "user-invocable": "yes"}),
    ("skill-agentskills", {"name": "x", "description": "d"}),
    (
        "skill-agentskills",
        {
            "name": "pdf-processing",
            "description": "d",
            "license": "MIT",
            "compatibility": "c" * 500,
            "metadata": {"author": "me", "version": "1.0"},
            "allowed-tools": "Bash(git:*) Read",
        },
    ),
    ("skill-agentskills", {"name": "n" * 64, "description": "d" * 1024}),
    ("rule", {"description": "TS", "globs": "**/*.ts, **/*.tsx", "alwaysApply": False}),
    ("rule", {"description": None, "globs": None, "alwaysApply": True}),
    ("rule", {"globs": ["src/**/*.ts"]}),
    ("rule", {}),
    ("plan", {"title": "T", "status": "active", "owner": "sofia", "updated": "2026-06-08"}),
    ("plan", {}),
    ("mcps", {"mcpServers": {}}),
    (
        "mcps",
        {
            "mcpServers": {
                "fs": {"command": "npx", "args": ["-y", "x"], "enabled": True},
                "web": {
                    "url": "https://x.example/mcp",
                    "headers": {"A": "${env:TOKEN}"},
                    "type": "http",
                    "disabled": False,
                    "timeout": 30,
                },
            }
        },
    ),
    ("policy", {"version": 1}),
    (
        "policy",
        {
            "version": 1,
            "profile": "agentskills",
            "strict": True,
            "severity": {"APC001": "warning"},
            "disable": ["BND002"],
            "allow": {"BND001": [".specstory/history/**"]},
            "baseline": "b.json",
            "exclude": ["vendor/**"],
            "boundary": {
                "secrets": "all",
                "builtin_allow": False,
                "max_blob_bytes": 1048576,
                "paths": {"BPA": ["**/.mytool/**"], "BTR": ["rec/**"], "BDB": ["*.store"]},
            },
            "x-editor": "ok",
        },
    ),
]


@pytest.mark.parametrize(("name", "instance"), VALID)
def test_valid_instance_has_no_errors(name: str, instance: Any) -> None:
    assert schema_errors(name, instance) == []


# --- negative instances ------------------------------------------------------------------------

INVALID: list[tuple[str, Any, list[tuple[str, str]]]] = [
    ("policy", {"version": 1, "boundary": {"secrets": "some"}}, [("$.boundary.secrets", "enum")]),
    (
        "policy",
        {"version": 1, "boundary": {"paths": {"XYZ": []}}},
        [("$.boundary.paths.XYZ", "additionalProperties")],
    ),
    (
        "baseline",
        {"version": 1, "findings": [{"path": "a"}]},
        [("$.findings[0].fingerprint", "required"), ("$.findings[0].rule", "required")],
    ),
    ("project", {"apc": "0.1.0"}, [("$.name", "required")]),
    ("project", {"name": "P"}, [("$.apc", "required")]),
    ("project", {"name": "", "apc": "0.1.0"}, [("$.name", "minLength")]),
    ("project", {"name": "P", "apc": "0.1.0", "apx_id": "XYZ"}, [("$.apx_id", "pattern")]),
    ("project", {"name": "P", "apc": "0.1.0", "apx": "maybe"}, [("$.apx", "enum")]),
    ("project", {"name": "P", "apc": 1}, [("$.apc", "type")]),
    ("project", ["name"], [("$", "type")]),
    ("agent", {"name": "a", "description": "d"}, [("$.model", "required")]),
    (
        "agent",
        {"model": "inherit"},
        [("$.description", "required"), ("$.name", "required")],
    ),
    ("agent", {"name": "a", "model": "", "description": "d"}, [("$.model", "minLength")]),
    ("agent", {"name": "a", "model": "m", "description": "  "}, [("$.description", "pattern")]),
    (
        "agent",
        {"name": "a", "model": "m", "description": "d", "skills": 3},
        [("$.skills", "anyOf")],
    ),
    (
        "agent",
        {"name": "a", "model": "m", "description": "d", "is_background": "yes"},
        [("$.is_background", "type")],
    ),
    ("skill", {"description": "d"}, [("$.name", "required")]),
    ("skill", {"name": "Bad", "description": "d"}, [("$.name", "pattern")]),
    ("skill", {"name": "x", "description": "d" * 1025}, [("$.description", "maxLength")]),
    (
        "skill-agentskills",
        {"name": "x", "description": "d", "homepage": "h"},
        [("$.homepage", "additionalProperties")],
    ),
    ("skill-agentskills", {"name": "x"}, [("$.description", "required")]),
    ("skill-agentskills", {"name": "a--b", "description": "d"}, [("$.name", "pattern")]),
    ("skill-agentskills", {"name": "-a", "description": "d"}, [("$.name", "pattern")]),
    ("skill-agentskills", {"name": "a-", "description": "d"}, [("$.name", "pattern")]),
    ("skill-agentskills", {"name": "a_b", "description": "d"}, [("$.name", "pattern")]),
    ("skill-agentskills", {"name": "n" * 65, "description": "d"}, [("$.name", "maxLength")]),
    ("skill-agentskills", {"name": "x", "description": ""}, [("$.description", "minLength")]),
    (
        "skill-agentskills",
        {"name": "x", "description": "d", "compatibility": "c" * 501},
        [("$.compatibility", "maxLength")],
    ),
    (
        "skill-agentskills",
        {"name": "x", "description": "d", "allowed-tools": 3},
        [("$.allowed-tools", "anyOf")],
    ),
    ("skill-agentskills", {"name": 123, "description": "d"}, [("$.name", "type")]),
    ("rule", {"alwaysApply": "true"}, [("$.alwaysApply", "type")]),
    ("rule", {"globs": {"a": 1}}, [("$.globs", "anyOf")]),
    ("rule", {"description": ["a"]}, [("$.description", "type")]),
    ("plan", {"owner": "Sofia"}, [("$.owner", "pattern")]),
    ("plan", {"updated": 20260608}, [("$.updated", "type")]),
    ("mcps", {}, [("$.mcpServers", "required")]),
    ("mcps", {"mcpServers": []}, [("$.mcpServers", "type")]),
    ("mcps", {"mcpServers": {"a": {"args": []}}}, [("$.mcpServers.a.command", "required")]),
    (
        "mcps",
        {"mcpServers": {"a": {"command": "x", "args": "-y"}}},
        [("$.mcpServers.a.args", "type")],
    ),
    (
        "mcps",
        {"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}},
        [("$.mcpServers.a.env.K", "type")],
    ),
    (
        "mcps",
        {"mcpServers": {"a": {"url": "u", "enabled": "no"}}},
        [("$.mcpServers.a.enabled", "type")],
    ),
    ("policy", {}, [("$.version", "required")]),
    ("policy", {"version": 2}, [("$.version", "const")]),
    ("policy", {"version": 1, "profile": "strict"}, [("$.profile", "enum")]),
    ("policy", {"version": 1, "alow": {}}, [("$.alow", "additionalProperties")]),
    ("policy", {"version": 1, "severity": {"APC001": "fatal"}}, [("$.severity.APC001", "enum")]),
    (
        "policy",
        {"version": 1, "severity": {"apc1": "error"}},
        [("$.severity.apc1", "propertyNames")],
    ),
    ("policy", {"version": 1, "disable": ["APC001", "APC001"]}, [("$.disable", "uniqueItems")]),
    ("policy", {"version": 1, "allow": {"BND001": "docs/**"}}, [("$.allow.BND001", "type")]),
]


@pytest.mark.parametrize(("name", "instance", "expected"), INVALID)
def test_invalid_instance_errors_where_expected(
    name: str, instance: Any, expected: list[tuple[str, str]]
) -> None:
    assert where(schema_errors(name, instance)) == expected


def test_agentskills_profile_rejects_homepage_default_warns() -> None:
    skill = {"name": "apc-context", "description": "d", "homepage": "https://x"}
    strict = schema_errors("skill-agentskills", skill)
    assert [(e.path, e.key, e.message) for e in strict] == [
        ((), "homepage", "unknown key 'homepage'")
    ]
    assert schema_errors("skill", skill) == []
    warned = schema_warnings("skill", skill)
    assert [(e.key, e.validator, e.message) for e in warned] == [
        ("homepage", "x-apc-unknown-keys", "unknown key 'homepage'")
    ]


def test_missing_required_key_message_names_the_key() -> None:
    (error,) = schema_errors("skill", {"description": "d"})
    assert error == SchemaError((), "name", "missing required key 'name'", "required")


def test_several_unknown_keys_are_one_error_each_sorted() -> None:
    errors = schema_errors("skill-agentskills", {"name": "x", "description": "d", "b": 1, "a": 2})
    assert [(e.key, e.message) for e in errors] == [
        ("a", "unknown key 'a'"),
        ("b", "unknown key 'b'"),
    ]


def test_one_error_per_location_best_match() -> None:
    # 'name' violates pattern and maxLength at once: one error, the most relevant.
    errors = schema_errors("skill-agentskills", {"name": "X" * 70, "description": "d"})
    assert len(errors) == 1 and errors[0].path == ("name",)


def test_messages_do_not_echo_values() -> None:
    secret = "sk-live-" + "A" * 40
    instance = {"mcpServers": {"a": {"command": "x", "args": secret, "env": {"K": [secret]}}}}
    errors = schema_errors("mcps", instance)
    assert len(errors) == 2
    assert all(secret not in e.message for e in errors)


def test_json_path_quotes_odd_keys() -> None:
    (error,) = schema_errors("mcps", {"mcpServers": {"my server": {"command": "x", "args": 1}}})
    assert error.json_path == '$.mcpServers["my server"].args'
    assert error.path == ("mcpServers", "my server", "args")


def test_error_order_is_deterministic() -> None:
    instance = {"version": 3, "severity": {"x": 1}, "zz": 1, "aa": 2, "disable": "APC001"}
    first = schema_errors("policy", instance)
    assert first == schema_errors("policy", dict(reversed(list(instance.items()))))
    assert [e.json_path for e in first] == [
        "$.aa",
        "$.disable",
        "$.severity.x",
        "$.version",
        "$.zz",
    ]


# --- warning level ---------------------------------------------------------------------------


def test_recommended_keys_are_warnings_not_errors() -> None:
    project = {"name": "P", "apc": "0.1.0"}
    assert schema_errors("project", project) == []
    assert recommended_keys("project") == ("version", "created")
    assert [(e.key, e.validator) for e in schema_warnings("project", project)] == [
        ("created", "x-apc-recommended"),
        ("version", "x-apc-recommended"),
    ]


def test_preferred_forms_are_warnings() -> None:
    skill = {
        "name": "x",
        "description": "d",
        "allowed-tools": ["Read"],
        "compatibility": "",
        "metadata": {"n": 1, "s": "ok"},
    }
    assert schema_errors("skill-agentskills", skill) == []
    warned = schema_warnings("skill-agentskills", skill)
    assert [(e.json_path, e.validator) for e in warned] == [
        ("$.allowed-tools", "x-apc-preferred"),
        ("$.compatibility", "x-apc-preferred"),
        ("$.metadata.n", "x-apc-preferred"),
    ]
    assert "space-separated string" in warned[0].message


def test_no_warning_where_there_is_an_error() -> None:
    assert (
        schema_warnings("skill-agentskills", {"name": "x", "description": "d", "allowed-tools": 3})
        == []
    )


def test_extension_keys_are_known_not_unknown() -> None:
    agent = {"name": "a", "model": "m", "description": "d", "role": "r", "is_master": True}
    assert {"role", "is_master", "type"} <= extension_keys("agent")
    assert extension_keys("agent") <= known_keys("agent")
    assert schema_warnings("agent", agent) == []
    assert extension_keys("skill-agentskills") == frozenset()


# --- real files --------------------------------------------------------------------------------


def test_spec_example_project_and_mcps_are_valid() -> None:
    example = CORPUS / "agentprojectcontext__agentprojectcontext/examples/my-first-project/.apc"
    needs_shared(example)
    project = json.loads((example / "project.json").read_text(encoding="utf-8"))
    mcps = json.loads((example / "mcps.json").read_text(encoding="utf-8"))
    assert schema_errors("project", project) == []
    assert schema_warnings("project", project) == []
    assert schema_errors("mcps", mcps) == []


def test_spec_repo_dogfood_project_lacks_spec_version() -> None:
    path = CORPUS / "agentprojectcontext__agentprojectcontext/.apc/project.json"
    needs_shared(path)
    errors = schema_errors("project", json.loads(path.read_text(encoding="utf-8")))
    assert where(errors) == [("$.apc", "required")]


# --- robustness --------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=20,
)


@given(name=st.sampled_from(OURS), instance=JSON_VALUES)
def test_schema_checks_never_raise(name: str, instance: Any) -> None:
    errors = schema_errors(name, instance)
    warnings = schema_warnings(name, instance)
    assert all(isinstance(e, SchemaError) and e.message for e in [*errors, *warnings])
    assert len({e.json_path for e in errors}) == len(errors)


# --- command line ------------------------------------------------------------------------------


def test_cli_lists_schema_names() -> None:
    result = CliRunner().invoke(main, ["schema"])
    assert result.exit_code == 0
    assert result.output.split() == schema_names()


@pytest.mark.parametrize("name", OURS)
def test_cli_prints_schema(name: str) -> None:
    result = CliRunner().invoke(main, ["schema", name])
    assert result.exit_code == 0
    assert result.output == schema_text(name)
    assert json.loads(result.output)["$id"].endswith(f"/{name}.schema.json")


def test_cli_unknown_schema_exits_2() -> None:
    result = CliRunner().invoke(main, ["schema", "nope"])
    assert result.exit_code == 2
    assert "no schema 'nope'" in result.output


# --- the compiled validator (jsonschema_rs) equals jsonschema ----------------------------------


ODD_VALUES = st.sampled_from(
    [None, True, False, 0, 1, 1.0, 1.5, -1, "", "x", "APC001", [], {}, ["a"]]
)
BY_TYPE: dict[str, st.SearchStrategy[Any]] = {
    "boolean": st.booleans(),
    "integer": st.integers(-2, 2),
    "number": st.floats(-2, 2),
    "null": st.none(),
    "string": st.from_regex(r"[a-zA-Z0-9_ -]{0,12}", fullmatch=True),
    "array": st.lists(st.text(max_size=5), max_size=3),
    "object": st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=2),
}


def instances_for(schema: Any, root: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Instances near the schema: mostly valid values (its patterns, enum values, examples,
    boundary lengths, required keys present) with an odd value here and there, so that a
    document that is valid but for one detail comes out often."""
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        schema = root["$defs"][schema["$ref"].rsplit("/", 1)[-1]]
    if not isinstance(schema, dict) or depth > 3:
        return ODD_VALUES
    good = leaf_strategies(schema) + [
        instances_for(sub, root, depth + 1) for sub in schema.get("anyOf", [])
    ]
    if schema.get("properties") or isinstance(schema.get("additionalProperties"), dict):
        good += object_strategies(schema, root, depth)
    if isinstance(schema.get("items"), dict):
        good.append(st.lists(instances_for(schema["items"], root, depth + 1), max_size=3))
    return st.one_of(*(good * 4), ODD_VALUES) if good else ODD_VALUES


def leaf_strategies(schema: dict[str, Any]) -> list[st.SearchStrategy[Any]]:
    kinds = schema.get("type", [])
    found = [BY_TYPE[k] for k in ([kinds] if isinstance(kinds, str) else kinds)]
    values = [*schema.get("enum", []), *schema.get("examples", [])]
    values += [schema["const"]] if "const" in schema else []
    if values:
        found.append(st.sampled_from(values))
    if "pattern" in schema:
        found.append(st.from_regex(schema["pattern"], fullmatch=True))
    if "maxLength" in schema or "minLength" in schema:
        top = schema.get("maxLength", 3)
        found.append(st.sampled_from([0, 1, top, top + 1]).map(lambda n: "a" * n))
    return found


def object_strategies(
    schema: dict[str, Any], root: dict[str, Any], depth: int
) -> list[st.SearchStrategy[Any]]:
    props, extra = schema.get("properties", {}), schema.get("additionalProperties")
    values = {k: instances_for(v, root, depth + 1) for k, v in props.items()}
    required = [k for k in schema.get("required", []) if k in values]
    then = schema.get("then", {}).get("required", [])
    must = {k: values[k] for k in [*required, *then] if k in values}
    rest = {k: v for k, v in values.items() if k not in must}
    extra_values = instances_for(extra, root, depth + 1) if isinstance(extra, dict) else ODD_VALUES
    names = st.sampled_from(["zz", "x-tool", "APC001", "bad id", "Name", "srv"])
    extras = st.one_of(st.just({}), st.just({}), st.dictionaries(names, extra_values, max_size=2))
    merge = lambda a, b: {**b, **a}  # noqa: E731
    complete = st.builds(merge, st.fixed_dictionaries(must, optional=rest), extras)
    partial = st.builds(merge, st.fixed_dictionaries({}, optional=values), extras)
    return [complete, complete, partial]


def compiled(name: str) -> Any:
    from apc_tools.core.schemas import _compiled

    found = _compiled(name)
    assert found is not None, "jsonschema_rs is a default dependency (pyproject.toml)"
    return found


@pytest.mark.parametrize("name", OURS)
def test_compiled_validator_equals_jsonschema(name: str) -> None:
    from apc_tools.core.schemas import _frozen_schema

    root = _frozen_schema(name)
    fast = compiled(name)

    @settings(max_examples=min(settings().max_examples, 500))
    @given(instance=instances_for(root, root) | JSON_VALUES)
    def check(instance: Any) -> None:
        assert fast.is_valid(instance) is validator(name).is_valid(instance)
        assert (schema_errors(name, instance) == []) is validator(name).is_valid(instance)

    check()


@pytest.mark.parametrize("name", OURS)
def test_compiled_explanation_equals_jsonschema(name: str) -> None:
    """schema_errors explains a failure from jsonschema_rs's errors where it can
    (core.schemas._faults): the same errors, messages and order as jsonschema's own
    explanation, on instances near each schema (mostly valid but for one detail) and odd JSON
    values."""
    from apc_tools.core.schemas import _faults, _frozen_schema, jsonschema_errors

    root = _frozen_schema(name)
    fast = compiled(name)
    explained = 0

    @settings(max_examples=min(settings().max_examples, 500))
    @given(instance=instances_for(root, root) | JSON_VALUES)
    def check(instance: Any) -> None:
        nonlocal explained
        assert schema_errors(name, instance) == jsonschema_errors(name, instance)
        explained += bool(_faults(root, instance, fast.iter_errors(instance)))

    check()
    assert explained  # jsonschema_rs's errors did the work, not only the fallback


def corpus_documents(corpus: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Each front matter and JSON document (a mapping) of the corpus's agent files."""
    from apc_tools.core.parse import load_frontmatter_yaml, load_json, split_frontmatter

    for path in sorted(corpus.rglob("*")):
        if not path.is_file() or path.suffix not in (".md", ".mdc", ".json"):
            continue
        text = path.read_text("utf-8", errors="replace")
        if path.suffix == ".json":
            data = load_json(text).data
        else:
            front = split_frontmatter(text)
            data = (
                None
                if front.yaml is None
                else load_frontmatter_yaml(front.yaml, line_offset=0).data
            )
        if isinstance(data, dict):
            yield path, data


def test_compiled_explanation_on_the_corpus_documents() -> None:
    """Every front matter and JSON document of the corpus that fails a schema is explained
    the same with and without jsonschema (the corpus holds a skill description over the limit
    and a project.json without its spec version)."""
    from apc_tools.core.schemas import jsonschema_errors

    needs_shared(CORPUS)
    failed = 0
    for path, data in corpus_documents(CORPUS):
        for name in OURS:
            expected = jsonschema_errors(name, data)
            assert schema_errors(name, data) == expected, (path, name)
            failed += bool(expected)
    assert failed


def test_warnings_reuse_given_errors() -> None:
    skill = {"name": "x", "description": "d", "allowed-tools": 3, "compatibility": ""}
    errors = schema_errors("skill-agentskills", skill)
    assert [e.json_path for e in errors] == ["$.allowed-tools"]
    given_errors = schema_warnings("skill-agentskills", skill, errors)
    assert given_errors == schema_warnings("skill-agentskills", skill)
    assert [w.json_path for w in given_errors] == ["$.compatibility"]


def test_valid_documents_do_not_import_jsonschema() -> None:
    code = (
        "import sys\n"
        "from apc_tools.core.schemas import schema_errors, schema_warnings\n"
        "doc = {'name': 'x', 'description': 'd', 'metadata': {'a': 'b'}}\n"
        "assert schema_errors('skill-agentskills', doc) == []\n"
        "assert schema_warnings('skill-agentskills', doc) == []\n"
        "print('jsonschema' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stdout + done.stderr


def test_plain_failures_are_explained_without_jsonschema() -> None:
    """A missing key or a value over its limit (what the corpus's invalid documents hold) is
    explained without importing jsonschema (~100 ms in every process that needs it)."""
    code = (
        "import sys\n"
        "from apc_tools.core.schemas import schema_errors\n"
        "doc = {'name': 'x', 'description': 'd' * 2000}\n"
        "print([e.validator for e in schema_errors('skill', doc)])\n"
        "print([e.validator for e in schema_errors('project', {'name': 'x'})])\n"
        "print('jsonschema' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    lines = done.stdout.split("\n")
    assert lines[0] == "['maxLength']", done.stdout + done.stderr
    assert "required" in lines[1], done.stdout
    assert lines[2] == "False", done.stdout + done.stderr
