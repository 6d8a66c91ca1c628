"""The published JSON Schemas (draft 2020-12) and how apc-tools applies them.

The schemas live in the repository's top-level ``schemas/`` folder, which ships inside the wheel
as the ``apc_tools.schemas`` package, and are read from that package's folders (where the import
system finds it, as :mod:`importlib.resources` would: importing that module cost a run 8 ms),
never fetched.
Each one carries a versioned ``$id``, ``title``, ``description`` and ``x-apc-schema-version``.

Severity is encoded in the schema itself:

* standard keywords (``required``, ``type``, ``pattern``, ``additionalProperties: false``...) are
  error-level: :func:`schema_errors` reports them;
* ``x-apc-recommended`` (keys whose absence is a warning), ``x-apc-preferred`` (a subschema the
  value should also satisfy: the spec's form where readers accept more) and
  ``x-apc-unknown-keys: "warning"`` (keys not in ``properties`` are warnings) are warning-level:
  :func:`schema_warnings` reports them;
* ``x-apc-extension`` lists known extension keys (info level): :func:`extension_keys`;
* ``x-apc-messages`` maps a keyword to the message used when that keyword fails at that schema
  node (``{length}`` is replaced by the length of the offending value).

Messages never echo the offending value (it may be a secret): they name the key and the
constraint.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

SUFFIX = ".schema.json"
PathPart = str | int

_TYPE_WORDS = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "boolean": "true or false",
    "integer": "an integer",
    "number": "a number",
    "null": "empty",
}


@dataclass(frozen=True)
class SchemaError:
    """One schema problem.

    ``path`` is the JSON path (keys and list indexes) to the offending value. When the problem is
    about a key of a mapping (``required``, ``additionalProperties``, ``propertyNames``,
    ``x-apc-recommended``, ``x-apc-unknown-keys``), ``path`` is the mapping and ``key`` the key
    concerned (missing for ``required``/``x-apc-recommended``, present otherwise). ``validator``
    is the JSON Schema keyword that failed.
    """

    path: tuple[PathPart, ...]
    key: str | None
    message: str
    validator: str

    @property
    def json_path(self) -> str:
        """The location as a JSONPath string, including ``key``: ``$.mcpServers.x.env``."""
        parts = [*self.path, *([self.key] if self.key is not None else [])]
        return "$" + "".join(_json_path_part(p) for p in parts)


def _json_path_part(part: PathPart) -> str:
    if isinstance(part, int):
        return f"[{part}]"
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", part):
        return f".{part}"
    return "[" + json.dumps(part) + "]"


# --- loading -----------------------------------------------------------------------------------


@cache
def _files() -> dict[str, str]:
    """Each published schema's name (without :data:`SUFFIX`) and the path of its file: the
    ``apc_tools.schemas`` package's folders as the import system finds them (an installed
    wheel, a source checkout or an editable install), the first folder first."""
    from importlib.util import find_spec

    spec = find_spec("apc_tools.schemas")
    out: dict[str, str] = {}
    for folder in (spec.submodule_search_locations or ()) if spec else ():
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for entry in names:
            if entry.endswith(SUFFIX):
                out.setdefault(entry[: -len(SUFFIX)], os.path.join(folder, entry))
    return out


@cache
def _names() -> tuple[str, ...]:
    return tuple(sorted(_files()))


def schema_names() -> list[str]:
    """Names of the published schemas, sorted, without the ``.schema.json`` suffix."""
    return list(_names())


def schema_text(name: str) -> str:
    """The text of schema ``name`` exactly as shipped. ``ValueError`` for an unknown name."""
    if name not in _names():
        raise ValueError(f"no schema {name!r}; known: {', '.join(_names())}")
    with open(_files()[name], encoding="utf-8") as handle:
        return handle.read()


def load_schema(name: str) -> dict[str, Any]:
    """Schema ``name`` as a fresh dict (callers may change it)."""
    loaded: dict[str, Any] = json.loads(schema_text(name))
    return loaded


@cache
def validator(name: str) -> Any:
    """A compiled, cached ``jsonschema.Draft202012Validator`` for schema ``name``."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(_frozen_schema(name))


@cache
def _frozen_schema(name: str) -> Mapping[str, Any]:
    """The shared parsed schema (never handed out: :func:`load_schema` gives copies)."""
    return load_schema(name)


def known_keys(name: str) -> frozenset[str]:
    """The top-level keys schema ``name`` declares in ``properties``."""
    return frozenset(_frozen_schema(name).get("properties", {}))


def extension_keys(name: str) -> frozenset[str]:
    """Top-level keys schema ``name`` accepts as extensions (``x-apc-extension``): info level."""
    return frozenset(_frozen_schema(name).get("x-apc-extension", ()))


def recommended_keys(name: str) -> tuple[str, ...]:
    """Top-level keys whose absence is a warning (``x-apc-recommended``)."""
    return tuple(_frozen_schema(name).get("x-apc-recommended", ()))


# --- errors ------------------------------------------------------------------------------------


def schema_errors(name: str, instance: Any) -> list[SchemaError]:
    """Error-level problems of ``instance`` against schema ``name``: one per location.

    A location is ``path`` plus ``key``. Where several keywords fail at one location (an invalid
    key whose value is also wrong, a value breaking two constraints), the most relevant one
    (jsonschema's ``relevance``, as ``best_match`` uses) is reported. Sorted by location.

    jsonschema (~100 ms to import, in every process that needs it) explains a failure only when
    the failure lies under a keyword :func:`_faults` does not explain itself (a failing
    ``anyOf``, ``oneOf`` or ``not``, a keyword the fast check does not know); tests/core/
    test_schemas.py holds both explanations equal (:func:`jsonschema_errors`).
    """
    root = _frozen_schema(name)
    if _valid(root, root, instance):
        return []
    try:
        faults = list(_faults(root, root, instance, (), ()))
        if faults:
            return _best(faults, _relevance)
    except (_Unsupported, TypeError):
        pass  # jsonschema says it (or raises) the way it always did
    return jsonschema_errors(name, instance)


def jsonschema_errors(name: str, instance: Any) -> list[SchemaError]:
    """:func:`schema_errors` explained by jsonschema itself (the reference of the fast
    explanation)."""
    from jsonschema.exceptions import relevance

    return _best(validator(name).iter_errors(instance), relevance)


def _best(errors: Iterable[Any], relevance: Any) -> list[SchemaError]:
    """The most relevant converted error per location, sorted by location."""
    groups: dict[tuple[PathPart, ...], list[tuple[Any, SchemaError]]] = {}
    for raw in errors:
        error = _pick(raw)
        for converted in _convert(error):
            groups.setdefault(_where(converted), []).append((error, converted))
    best = (max(items, key=lambda item: relevance(item[0]))[1] for items in groups.values())
    return sorted(best, key=_sort_key)


def _pick(error: Any) -> Any:
    """Descend into anyOf/oneOf with best_match unless the schema node has its own message."""
    if error.context and _custom_message(error.schema, error.validator) is None:
        from jsonschema.exceptions import best_match

        return best_match([error])
    return error


def _convert(error: Any) -> Iterator[SchemaError]:
    path = tuple(error.absolute_path)
    if "propertyNames" in error.absolute_schema_path:
        message = _custom_message(error.schema, error.validator) or "is not an allowed key"
        key = str(error.instance)
        yield SchemaError(path, key, f"invalid key {key!r}: {message}", "propertyNames")
    elif error.validator == "required":
        for key in _missing(error):
            message = _custom_message(error.schema, "required") or f"missing required key {key!r}"
            yield SchemaError(path, key, message, "required")
    elif error.validator == "additionalProperties":
        for key in _additional(error.instance, error.schema):
            yield SchemaError(path, key, f"unknown key {key!r}", "additionalProperties")
    else:
        yield SchemaError(path, None, _value_message(error, path), str(error.validator))


def _missing(error: Any) -> list[str]:
    instance = error.instance if isinstance(error.instance, Mapping) else {}
    return [k for k in error.validator_value if k not in instance]


def _additional(instance: Any, schema: Mapping[str, Any]) -> list[str]:
    if not isinstance(instance, Mapping):
        return []
    declared = schema.get("properties", {})
    patterns = [re.compile(p) for p in schema.get("patternProperties", {})]
    return [
        str(k)
        for k in instance
        if k not in declared and not any(p.search(str(k)) for p in patterns)
    ]


def _custom_message(schema: Any, keyword: str) -> str | None:
    if not isinstance(schema, Mapping):
        return None
    message = schema.get("x-apc-messages", {}).get(keyword)
    return message if isinstance(message, str) else None


def _label(path: tuple[PathPart, ...]) -> str:
    if not path:
        return "the document"
    last = path[-1]
    if isinstance(last, int):
        return f"item {last + 1} of {_label(path[:-1])}"
    return repr(last)


def _value_message(error: Any, path: tuple[PathPart, ...]) -> str:
    length = len(error.instance) if isinstance(error.instance, str | list | dict) else 0
    custom = _custom_message(error.schema, error.validator)
    if custom is not None:
        return custom.replace("{length}", str(length))
    return f"{_label(path)} {_describe(error.validator, error.validator_value, error.instance)}"


def _describe(keyword: str, expected: Any, instance: Any) -> str:
    """The constraint as words, without echoing the value."""
    if keyword == "type":
        kinds = [expected] if isinstance(expected, str) else list(expected)
        wanted = " or ".join(_TYPE_WORDS.get(k, k) for k in kinds)
        return f"must be {wanted} (got {_type_of(instance)})"
    if keyword == "minLength":
        return "must not be empty" if expected == 1 else f"must be at least {expected} characters"
    if keyword == "maxLength":
        return f"must be at most {expected} characters (it has {len(instance)})"
    if keyword == "pattern":
        return f"does not match the pattern {expected}"
    if keyword == "enum":
        return "must be one of: " + ", ".join(json.dumps(v) for v in expected)
    if keyword == "const":
        return f"must be {json.dumps(expected)}"
    if keyword == "uniqueItems":
        return "has duplicate items"
    if keyword in ("minItems", "maxItems", "minimum", "maximum"):
        return f"fails {keyword} {expected}"
    return f"does not satisfy the schema keyword {keyword!r}"


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, Mapping):
        return "mapping"
    if isinstance(value, list | tuple):
        return "list"
    return {"str": "string", "int": "integer", "float": "number"}.get(
        type(value).__name__, type(value).__name__
    )


def _sort_key(error: SchemaError) -> tuple[Any, ...]:
    parts = tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in _where(error))
    return (parts, error.validator, error.message)


# --- warnings ----------------------------------------------------------------------------------


def schema_warnings(
    name: str, instance: Any, errors: Iterable[SchemaError] | None = None
) -> list[SchemaError]:
    """Warning-level problems: missing ``x-apc-recommended`` keys, values that fail their
    ``x-apc-preferred`` subschema, and keys not declared where ``x-apc-unknown-keys`` is
    ``"warning"``. Follows ``properties``, ``additionalProperties``, ``items`` and local
    ``$ref``. A location that has a schema error gets no warning; pass ``errors`` (the result of
    :func:`schema_errors` for the same instance) to save computing them again."""
    root = _frozen_schema(name)
    errors = schema_errors(name, instance) if errors is None else errors
    taken = {_where(e) for e in errors}
    found = {(w.path, w.key, w.validator): w for w in _walk(root, root, instance, ())}
    return sorted((w for w in found.values() if _where(w) not in taken), key=_sort_key)


def _where(error: SchemaError) -> tuple[PathPart, ...]:
    return (*error.path, *([error.key] if error.key is not None else []))


def _walk(
    root: Mapping[str, Any], schema: Any, instance: Any, path: tuple[PathPart, ...]
) -> list[SchemaError]:
    if not isinstance(schema, Mapping):
        return []
    schema = _resolve(root, schema)
    found = [*_preferred(schema, instance, path)]
    if isinstance(instance, Mapping):
        found += _mapping_warnings(schema, instance, path)
        for key, value in instance.items():
            found += _walk(root, _child(schema, str(key)), value, (*path, str(key)))
    elif isinstance(instance, list) and isinstance(schema.get("items"), Mapping):
        for index, value in enumerate(instance):
            found += _walk(root, schema["items"], value, (*path, index))
    return found


def _resolve(root: Mapping[str, Any], schema: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = schema.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return schema
    target: Any = root
    for part in ref[2:].split("/"):
        target = target.get(part, {}) if isinstance(target, Mapping) else {}
    return target if isinstance(target, Mapping) else schema


def _child(schema: Mapping[str, Any], key: str) -> Any:
    declared = schema.get("properties", {})
    if key in declared:
        return declared[key]
    return schema.get("additionalProperties")


def _mapping_warnings(
    schema: Mapping[str, Any], instance: Mapping[str, Any], path: tuple[PathPart, ...]
) -> Iterable[SchemaError]:
    for key in schema.get("x-apc-recommended", ()):
        if key not in instance:
            message = f"missing recommended key {key!r}"
            yield SchemaError(path, key, message, "x-apc-recommended")
    if schema.get("x-apc-unknown-keys") == "warning":
        for key in _additional(instance, schema):
            yield SchemaError(path, key, f"unknown key {key!r}", "x-apc-unknown-keys")


def _preferred(
    schema: Mapping[str, Any], instance: Any, path: tuple[PathPart, ...]
) -> Iterable[SchemaError]:
    preferred = schema.get("x-apc-preferred")
    if not isinstance(preferred, Mapping) or _valid(preferred, preferred, instance):
        return
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    error = best_match(Draft202012Validator(preferred).iter_errors(instance))
    if error is None:
        return
    yield SchemaError(path, None, _should_message(schema, error, path), "x-apc-preferred")


def _should_message(schema: Mapping[str, Any], error: Any, path: tuple[PathPart, ...]) -> str:
    custom = _custom_message(schema, str(error.validator))
    if custom is not None:
        size = len(error.instance) if isinstance(error.instance, str | list | dict) else 0
        return custom.replace("{length}", str(size))
    described = _describe(str(error.validator), error.validator_value, error.instance)
    if described.startswith("must "):
        described = "should " + described[5:]
    return f"{_label(path)} {described}"


# --- fast validity check -----------------------------------------------------------------------
# jsonschema takes ~0.25 ms per small document (and ~150 ms to import), and nearly every file is
# valid. _valid() answers "is it valid?" for the keywords the schemas use, with jsonschema's
# semantics (bool is not a number, 1.0 is an integer, `pattern` is re.search, `format` is an
# annotation); jsonschema runs only to explain a failure. A keyword it does not know makes it
# defer to jsonschema. tests/test_schemas.py holds it equal to jsonschema's is_valid.


class _Unsupported(Exception):
    """A schema keyword the fast check does not implement."""


_ANNOTATIONS = frozenset(
    {
        "$schema",
        "$id",
        "$defs",
        "$comment",
        "title",
        "description",
        "examples",
        "default",
        "deprecated",
        "format",
        "then",
        "else",
        "readOnly",
        "writeOnly",
    }
)


def _valid(root: Mapping[str, Any], schema: Any, instance: Any) -> bool:
    """True when ``instance`` is valid; falls back to jsonschema for unknown keywords."""
    try:
        return _check(root, schema, instance)
    except _Unsupported:
        from jsonschema import Draft202012Validator

        return bool(Draft202012Validator(root).evolve(schema=schema).is_valid(instance))


def _check(root: Mapping[str, Any], schema: Any, instance: Any) -> bool:
    if isinstance(schema, bool):
        return schema
    for keyword, value in schema.items():
        check = _CHECKS.get(keyword)
        if check is not None:
            if not check(root, value, instance, schema):
                return False
        elif keyword not in _ANNOTATIONS and not keyword.startswith("x-"):
            raise _Unsupported(keyword)
    return True


def _is_type(instance: Any, kind: str) -> bool:
    if kind == "integer":
        if isinstance(instance, float):
            return instance.is_integer()
        return isinstance(instance, int) and not isinstance(instance, bool)
    if kind == "number":
        return isinstance(instance, int | float) and not isinstance(instance, bool)
    return isinstance(instance, _TYPES[kind])


_TYPES: dict[str, type | tuple[type, ...]] = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}


def _equal(one: Any, two: Any) -> bool:
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, list | tuple) and isinstance(two, list | tuple):
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return one.keys() == two.keys() and all(_equal(one[k], two[k]) for k in one)
    if isinstance(one, bool) or isinstance(two, bool):
        return isinstance(one, bool) and isinstance(two, bool) and one == two
    return bool(one == two)


@cache
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _resolve_ref(root: Mapping[str, Any], ref: str) -> Any:
    if not ref.startswith("#"):
        raise _Unsupported("$ref")
    target: Any = root
    for part in filter(None, ref[1:].split("/")):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, Mapping) or part not in target:
            raise _Unsupported("$ref")
        target = target[part]
    return target


def _extra_keys(schema: Mapping[str, Any], instance: Mapping[str, Any]) -> Iterator[Any]:
    declared = schema.get("properties", {})
    patterns = [_regex(p) for p in schema.get("patternProperties", {})]
    for key in instance:
        if key not in declared and not (
            isinstance(key, str) and any(p.search(key) for p in patterns)
        ):
            yield key


def _k_type(root: Any, value: Any, instance: Any, schema: Any) -> bool:
    kinds = [value] if isinstance(value, str) else value
    return any(_is_type(instance, k) for k in kinds)


def _k_properties(root: Any, value: Any, instance: Any, schema: Any) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(_check(root, sub, instance[k]) for k, sub in value.items() if k in instance)


def _k_pattern_properties(root: Any, value: Any, instance: Any, schema: Any) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(
        _check(root, sub, v)
        for pattern, sub in value.items()
        for k, v in instance.items()
        if isinstance(k, str) and _regex(pattern).search(k)
    )


def _k_additional(root: Any, value: Any, instance: Any, schema: Any) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(_check(root, value, instance[k]) for k in _extra_keys(schema, instance))


def _k_if(root: Any, value: Any, instance: Any, schema: Any) -> bool:
    branch = "then" if _check(root, value, instance) else "else"
    return branch not in schema or _check(root, schema[branch], instance)


def _canonical(value: Any) -> Hashable:
    """A hashable form equal for exactly the values :func:`_equal` calls equal (JSON equality:
    ``1 == 1.0``, ``true != 1``, key order ignored)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return (type(value).__name__, value)
    if isinstance(value, int | float):
        return ("number", value)  # 1 and 1.0 hash and compare equal
    if isinstance(value, list | tuple):
        return ("list", tuple(_canonical(v) for v in value))
    if isinstance(value, Mapping):
        return ("map", frozenset((k, _canonical(v)) for k, v in value.items()))
    return ("other", repr(value))


def _k_unique(root: Any, value: Any, instance: Any, schema: Any) -> bool:
    """Set lookups, not pairwise comparison: a policy's `disable` list of 60,000 entries took
    minutes (quadratic)."""
    if not value or not isinstance(instance, list):
        return True
    return len({_canonical(v) for v in instance}) == len(instance)


def _k_items(root: Any, value: Any, instance: Any, schema: Any) -> bool:
    if "prefixItems" in schema:
        raise _Unsupported("prefixItems")
    return not isinstance(instance, list) or all(_check(root, value, v) for v in instance)


def _when(kind: str, test: Any) -> Any:
    """A keyword check that applies only to instances of JSON type ``kind``."""
    return lambda root, value, instance, schema: (
        not _is_type(instance, kind) or bool(test(root, value, instance))
    )


_CHECKS: dict[str, Any] = {
    "type": _k_type,
    "properties": _k_properties,
    "patternProperties": _k_pattern_properties,
    "additionalProperties": _k_additional,
    "if": _k_if,
    "uniqueItems": _k_unique,
    "items": _k_items,
    "required": _when("object", lambda r, v, i: all(k in i for k in v)),
    "propertyNames": _when("object", lambda r, v, i: all(_check(r, v, k) for k in i)),
    "minProperties": _when("object", lambda r, v, i: len(i) >= v),
    "maxProperties": _when("object", lambda r, v, i: len(i) <= v),
    "pattern": _when("string", lambda r, v, i: _regex(v).search(i) is not None),
    "minLength": _when("string", lambda r, v, i: len(i) >= v),
    "maxLength": _when("string", lambda r, v, i: len(i) <= v),
    "minItems": _when("array", lambda r, v, i: len(i) >= v),
    "maxItems": _when("array", lambda r, v, i: len(i) <= v),
    "minimum": _when("number", lambda r, v, i: i >= v),
    "maximum": _when("number", lambda r, v, i: i <= v),
    "enum": lambda r, v, i, s: any(_equal(i, e) for e in v),
    "const": lambda r, v, i, s: _equal(i, v),
    "anyOf": lambda r, v, i, s: any(_check(r, sub, i) for sub in v),
    "allOf": lambda r, v, i, s: all(_check(r, sub, i) for sub in v),
    "oneOf": lambda r, v, i, s: sum(_check(r, sub, i) for sub in v) == 1,
    "not": lambda r, v, i, s: not _check(r, v, i),
    "$ref": lambda r, v, i, s: _check(r, _resolve_ref(r, v), i),
}


# --- fast explanation --------------------------------------------------------------------------
# What jsonschema's iter_errors yields for the keywords below, as the few attributes
# schema_errors reads of an error (_pick, _convert, relevance). A keyword whose error is
# jsonschema's own composition of the errors below it (anyOf, oneOf, not: best_match descends
# into its context) raises _Unsupported when it fails: jsonschema explains that document.
# Keywords are visited in the schema's order and subschemas descended as jsonschema does, so
# the errors of one location come in jsonschema's order (the first most relevant one wins a
# tie, as in jsonschema's max).

_WEAK = frozenset({"anyOf", "oneOf"})  # jsonschema.exceptions.WEAK_MATCHES (STRONG: none)
_LEAVES = frozenset(
    {
        "type",
        "required",
        "minProperties",
        "maxProperties",
        "pattern",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minimum",
        "maximum",
        "enum",
        "const",
    }
)


@dataclass(frozen=True)
class _Fault:
    """One error as jsonschema would yield it (the attributes schema_errors reads)."""

    validator: str
    validator_value: Any
    instance: Any
    schema: Mapping[str, Any]
    path: tuple[PathPart, ...]
    schema_path: tuple[PathPart, ...]
    context: tuple[()] = ()

    @property
    def absolute_path(self) -> tuple[PathPart, ...]:
        return self.path

    @property
    def absolute_schema_path(self) -> tuple[PathPart, ...]:
        return self.schema_path

    def matches_type(self) -> bool:
        """``ValidationError._matches_type``: the instance has a type the node's ``type``
        names (False without one)."""
        expected = self.schema.get("type")
        if expected is None:
            return False
        kinds = [expected] if isinstance(expected, str) else expected
        return any(_is_type(self.instance, kind) for kind in kinds)


def _relevance(fault: _Fault) -> tuple[Any, ...]:
    """``jsonschema.exceptions.relevance`` of a fault."""
    return (
        -len(fault.path),
        fault.path,
        fault.validator not in _WEAK,
        False,
        not fault.matches_type(),
    )


def _faults(
    root: Mapping[str, Any],
    schema: Any,
    instance: Any,
    path: tuple[PathPart, ...],
    at: tuple[PathPart, ...],
) -> Iterator[_Fault]:
    """The errors jsonschema's ``iter_errors`` yields for ``instance`` under ``schema`` (at
    instance path ``path``, schema path ``at``); _Unsupported where it does not know."""
    if isinstance(schema, bool):
        if not schema:
            raise _Unsupported("false")
        return
    for keyword, value in schema.items():
        here = (*at, keyword)
        if keyword == "required":
            if isinstance(instance, dict):
                for key in value:
                    if key not in instance:
                        yield _Fault(keyword, value, instance, schema, path, here)
        elif keyword in _LEAVES:
            if not _CHECKS[keyword](root, value, instance, schema):
                yield _Fault(keyword, value, instance, schema, path, here)
        elif keyword == "properties":
            if isinstance(instance, dict):
                for key, sub in value.items():
                    if key in instance:
                        yield from _faults(root, sub, instance[key], (*path, key), (*here, key))
        elif keyword == "patternProperties":
            if isinstance(instance, dict):
                for pattern, sub in value.items():
                    for key, item in instance.items():
                        if not isinstance(key, str):
                            raise _Unsupported(keyword)
                        if _regex(pattern).search(key):
                            yield from _faults(root, sub, item, (*path, key), (*here, pattern))
        elif keyword == "additionalProperties":
            if isinstance(instance, dict):
                if "patternProperties" in schema and not all(isinstance(k, str) for k in instance):
                    raise _Unsupported(keyword)
                extras = list(_extra_keys(schema, instance))
                if isinstance(value, dict):
                    for key in extras:
                        yield from _faults(root, value, instance[key], (*path, key), here)
                elif not value and extras:
                    yield _Fault(keyword, value, instance, schema, path, here)
        elif keyword == "propertyNames":
            if isinstance(instance, dict):
                for key in instance:
                    yield from _faults(root, value, key, path, here)
        elif keyword == "items":
            if "prefixItems" in schema or value is False:
                raise _Unsupported(keyword)
            if isinstance(instance, list):
                for index, item in enumerate(instance):
                    yield from _faults(root, value, item, (*path, index), here)
        elif keyword == "if":  # jsonschema puts neither "if" nor "$ref" in the schema path
            if _check(root, value, instance):
                if "then" in schema:
                    yield from _faults(root, schema["then"], instance, path, (*at, "then"))
            elif "else" in schema:
                yield from _faults(root, schema["else"], instance, path, (*at, "else"))
        elif keyword == "$ref":
            yield from _faults(root, _resolve_ref(root, value), instance, path, at)
        elif keyword == "allOf":
            for index, sub in enumerate(value):
                yield from _faults(root, sub, instance, path, (*here, index))
        elif keyword in _CHECKS:  # anyOf, oneOf, not: explained here only when they hold
            if not _CHECKS[keyword](root, value, instance, schema):
                raise _Unsupported(keyword)
        elif keyword not in _ANNOTATIONS and not keyword.startswith("x-"):
            raise _Unsupported(keyword)
