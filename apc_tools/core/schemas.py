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
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

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


def load_plugin_schema() -> Mapping[str, Any]:
    """The shared parsed plugin manifest schema (read only)."""
    return _frozen_schema("plugin")


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

    The compiled validator (jsonschema_rs) judges, and explains a failure of the plain
    keywords itself; jsonschema (~100 ms to import, in every process that needs it) validates
    where jsonschema_rs is not installed or cannot take the instance, and explains the
    failures of ``anyOf``, ``oneOf`` and ``not``; tests/core/test_schemas.py holds both
    explanations equal (:func:`jsonschema_errors`).
    """
    compiled = _compiled(name)
    if compiled is not None and _takes(instance):
        try:
            if compiled.is_valid(instance):
                return []
            faults = _faults(_frozen_schema(name), instance, compiled.iter_errors(instance))
        except _UNTAKEN:
            faults = None
        if faults:
            return _best(faults, _relevance)
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
    if not isinstance(preferred, Mapping) or _holds(preferred, instance):
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


# --- the compiled validator -------------------------------------------------------------------
# jsonschema-rs (``jsonschema_rs``, a default dependency where it has a wheel) answers "is it
# valid?" with a compiled validator per schema (~1 µs for a small document, against jsonschema's
# ~160 µs and ~100 ms of import), and its errors (keyword, instance path, schema path) explain a
# failure in the words jsonschema would (below). Without it, or for an instance it cannot take
# (a key that is not a string, a value JSON has no form for: NaN, a non-finite float, a
# structure nested past its limit), jsonschema validates and explains, as it always did.
# tests/core/test_schemas.py holds both equal; tests/core/test_schemas_fallback.py runs apc
# where jsonschema_rs cannot be imported.


def _retrieve(uri: str) -> Any:
    """Never fetch a schema: every reference of the published schemas is local."""
    raise ValueError(f"apc-tools fetches no schema ({uri})")


def _compile(schema: Mapping[str, Any]) -> Any | None:
    """A jsonschema_rs validator of ``schema``, or None (not installed, or it refuses it)."""
    try:
        import jsonschema_rs  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    try:
        return jsonschema_rs.Draft202012Validator(
            cast(Any, schema), validate_formats=False, retriever=_retrieve
        )
    except Exception:  # a schema it cannot compile: jsonschema judges it
        return None


@cache
def _compiled(name: str) -> Any | None:
    """The compiled validator of published schema ``name`` (made once, on first use)."""
    return _compile(_frozen_schema(name))


_SUBSCHEMAS: dict[int, tuple[Mapping[str, Any], Any | None]] = {}


def _compiled_part(schema: Mapping[str, Any]) -> Any | None:
    """The compiled validator of a subschema of a published schema (an ``x-apc-preferred``),
    kept by identity (the frozen schemas are never freed)."""
    kept = _SUBSCHEMAS.get(id(schema))
    if kept is None or kept[0] is not schema:
        kept = _SUBSCHEMAS[id(schema)] = (schema, _compile(schema))
    return kept[1]


_UNTAKEN = (ValueError, TypeError, OverflowError, RecursionError)


def _takes(instance: Any) -> bool:
    """Can jsonschema_rs judge ``instance`` as jsonschema would? Only JSON's own values: it
    refuses keys that are not strings, but reads NaN and infinities as other values."""
    try:
        json.dumps(instance, allow_nan=False, check_circular=False)
    except _UNTAKEN:
        return False
    return True


def _holds(schema: Mapping[str, Any], instance: Any) -> bool:
    """Is ``instance`` valid under the (standalone) subschema ``schema``?"""
    compiled = _compiled_part(schema)
    if compiled is not None and _takes(instance):
        try:
            return bool(compiled.is_valid(instance))
        except _UNTAKEN:
            pass
    from jsonschema import Draft202012Validator

    return bool(Draft202012Validator(schema).is_valid(instance))


# What jsonschema's iter_errors yields for the keywords below, as the few attributes
# schema_errors reads of an error (_pick, _convert, relevance), made from jsonschema_rs's
# errors. A failing keyword whose error jsonschema composes of the errors below it (anyOf,
# oneOf, not: best_match descends into its context), or one not listed, leaves the document to
# jsonschema. The errors of one location are put in jsonschema's order (it visits a schema's
# keywords in their order, depth first), so that the first most relevant one wins a tie, as in
# jsonschema's max.

_WEAK = frozenset({"anyOf", "oneOf"})  # jsonschema.exceptions.WEAK_MATCHES (STRONG: none)
_LEAVES = frozenset(
    {
        "type",
        "required",
        "additionalProperties",
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
    order: tuple[int, ...]
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


def _is_type(instance: Any, kind: str) -> bool:
    """JSON Schema's types as jsonschema's type checker has them (for relevance only)."""
    if kind == "integer":
        if isinstance(instance, float):
            return instance.is_integer()
        return isinstance(instance, int) and not isinstance(instance, bool)
    if kind == "number":
        return isinstance(instance, int | float) and not isinstance(instance, bool)
    expected = _TYPES.get(kind)
    return expected is not None and isinstance(instance, expected)


_TYPES: dict[str, type | tuple[type, ...]] = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}


def _relevance(fault: _Fault) -> tuple[Any, ...]:
    """``jsonschema.exceptions.relevance`` of a fault."""
    return (
        -len(fault.path),
        fault.path,
        fault.validator not in _WEAK,
        False,
        not fault.matches_type(),
    )


def _faults(root: Mapping[str, Any], instance: Any, errors: Iterable[Any]) -> list[_Fault] | None:
    """jsonschema_rs's ``errors`` of ``instance`` as jsonschema's, in jsonschema's order; None
    where one of them is not a keyword explained here."""
    found: list[_Fault] = []
    for error in errors:
        key = error.kind.name == "propertyNames"  # jsonschema: the key's own error, at the mapping
        if key:
            error = error.kind.error
        keyword = error.kind.name
        steps = tuple(error.schema_path)
        path = tuple(error.instance_path)
        value = error.instance
        # jsonschema_rs leaves an empty key out of the instance path: the value must be there
        there = _at(instance, path)
        if there is _MISSING or (value not in there if key else there != value):
            return None
        if keyword == "falseSchema" and steps[-1:] == ("additionalProperties",) and path:
            # additionalProperties: false, without properties: the mapping holds an unknown key
            keyword, path = "additionalProperties", path[:-1]
            value = _at(instance, path)
        node = _node(root, steps[:-1])
        if keyword not in _LEAVES or steps[-1:] != (keyword,) or node is None:
            return None
        evaluation = tuple(error.evaluation_path)
        order = _order(root, evaluation)
        found.append(_Fault(keyword, node[keyword], value, node, path, evaluation, order))
    found.sort(key=lambda fault: fault.order)
    return found


_MISSING = object()


def _at(instance: Any, path: tuple[PathPart, ...]) -> Any:
    """The value at instance path ``path``, or :data:`_MISSING`."""
    for part in path:
        if not isinstance(instance, Mapping | list):
            return _MISSING
        holder: Any = instance
        try:
            instance = holder[part]
        except (KeyError, IndexError, TypeError):
            return _MISSING
    return instance


def _node(root: Mapping[str, Any], steps: tuple[PathPart, ...]) -> Mapping[str, Any] | None:
    """The schema node at ``steps`` (a schema path without ``$ref``), or None."""
    node: Any = root
    for step in steps:
        found = _at(node, (step,))
        if found is _MISSING:
            return None
        node = found
    return node if isinstance(node, Mapping) else None


def _order(root: Mapping[str, Any], steps: tuple[PathPart, ...]) -> tuple[int, ...]:
    """Where jsonschema meets the keyword at evaluation path ``steps``: at each schema node,
    the place of the step among the node's keys (``then``/``else`` at their ``if``, a
    ``$ref`` followed to its target)."""
    node: Any = root
    out: list[int] = []
    for step in steps:
        if isinstance(node, Mapping):
            keys = list(node)
            seat = "if" if step in ("then", "else") and "if" in node else step
            out.append(keys.index(seat) if seat in node else len(keys))
            node = node.get(step) if isinstance(step, str) else None
            if step == "$ref" and isinstance(node, str):
                node = _local(root, node)
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            out.append(step)
            node = node[step]
        else:
            out.append(0)
    return tuple(out)


def _local(root: Mapping[str, Any], ref: str) -> Any:
    """The target of a local ``$ref`` (``#/$defs/x``), or None."""
    if not ref.startswith("#"):
        return None
    target: Any = root
    for part in filter(None, ref[1:].split("/")):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, Mapping) or part not in target:
            return None
        target = target[part]
    return target
