"""Writing a history back in its input's own style; unchanged records as the text read."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from apc_tools.runtime.io.layout import History, Layout, RawText, Record, Style
from apc_tools.runtime.io.style import _dumps, _pad

# --------------------------------------------------------------------------------------------
# Writing


def _member(key: str, value: Any, style: Style, depth: int) -> str:
    key_text = json.dumps(key, ensure_ascii=style.ensure_ascii)
    return key_text + style.key_sep + _value(value, style, depth)


def _value(value: Any, style: Style, depth: int) -> str:
    if style.indent is None:
        return _dumps(value, None, style.item_sep, style.key_sep, style.ensure_ascii)
    text = _dumps(value, style.indent, ",", style.key_sep, style.ensure_ascii)
    return text.replace("\n", "\n" + _pad(style, depth)) if depth else text


def _record(record: Record, style: Style, depth: int) -> str:
    if type(record) is RawText:
        return record.replace("\r\n", "\n") if style.newline != "\n" else record
    if style.inline_records:
        return _dumps(record, None, style.item_sep, style.key_sep, style.ensure_ascii)
    return _value(record, style, depth)


LayoutSource = Layout | Callable[[], Layout]


def render_history(
    layout: LayoutSource,
    records: Iterable[Record],
    before: Sequence[tuple[str, Any]] = (),
    after: Callable[[], Sequence[tuple[str, Any]]] = tuple,
) -> Iterator[str]:
    """Yield the text of a history in ``layout``, one chunk per record (streaming).

    ``layout`` may be a callable (``lambda: reader.layout``): it is asked again for each record,
    because a reader settles the style while it reads. ``after`` is called once the records are
    exhausted (the keys after the list are read last).
    """
    current: Callable[[], Layout] = layout if callable(layout) else (lambda: layout)
    kind = current().kind
    if kind == "jsonl":
        chunks = _render_jsonl(current, records)
    else:
        chunks = _render_json(current, records, before, after)
    yield from chunks


def _lines(text: str, style: Style) -> str:
    """``text`` with the style's line ending (the renderers write "\n")."""
    return text if style.newline == "\n" else text.replace("\n", style.newline)


def _render_jsonl(current: Callable[[], Layout], records: Iterable[Record]) -> Iterator[str]:
    for record in records:
        style = current().style
        if type(record) is RawText:
            yield record + "\n" if style.newline == "\n" else _lines(record + "\n", style)
            continue
        text = _dumps(record, None, style.item_sep, style.key_sep, style.ensure_ascii) + "\n"
        yield _lines(text, style)


def _render_json(
    current: Callable[[], Layout],
    records: Iterable[Record],
    before: Sequence[tuple[str, Any]],
    after: Callable[[], Sequence[tuple[str, Any]]],
) -> Iterator[str]:
    depth = 1 if current().kind == "array" else 2
    count = 0
    known: Layout | None = None  # the layout sep and lead were computed for
    sep = lead = ""
    for record in records:
        layout = current()
        style = layout.style
        if not count:
            yield _lines(_open_list(layout, before), style)
        if layout is not known:  # the reader settles the style while it reads
            known = layout
            sep = "," if style.indent is not None else style.item_sep
            lead = "\n" + _pad(style, depth) if style.indent is not None else ""
        if type(record) is RawText and style.newline == "\n":
            yield sep + lead + record if count else lead + record
        else:
            yield _lines((sep + lead if count else lead) + _record(record, style, depth), style)
        count += 1
    layout = current()
    style = layout.style
    head = "" if count else _open_list(layout, before)
    close = ("\n" + _pad(style, depth - 1) if style.indent is not None and count else "") + "]"
    if layout.kind == "object":
        rest = [_member(k, v, style, 1) for k, v in after()]
        if rest:
            close += "," if style.indent is not None else style.item_sep
        close += _join_members(rest, style, 1)
        close += ("\n" if style.indent is not None else "") + "}"
    yield _lines(head + close + ("\n" if style.final_newline else ""), style)


def _open_list(layout: Layout, before: Sequence[tuple[str, Any]]) -> str:
    """Everything up to and including the list's '['."""
    if layout.kind == "array":
        return "["
    style = layout.style
    members = [_member(k, v, style, 1) for k, v in before]
    key = json.dumps(layout.key, ensure_ascii=style.ensure_ascii)
    members.append(key + style.key_sep + "[")
    return "{" + _join_members(members, style, 1)


def _join_members(members: list[str], style: Style, depth: int) -> str:
    if style.indent is None:
        return style.item_sep.join(members)
    lead = "\n" + _pad(style, depth)
    return ",".join(lead + m for m in members)


def write_history(history: History) -> str:
    """The whole text of an in-memory history, written like its input."""
    chunks = render_history(history.layout, history.records, history.before, lambda: history.after)
    return "".join(chunks)
