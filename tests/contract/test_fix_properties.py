"""The safe fixes on generated contract files: each file is generated in its broken form and in
the form the fix must produce (the same bytes but for the repair), so the property is exact:
after `--fix` every file equals its repaired form, the fixed rules no longer fire, nothing new
appears, and a second run changes nothing."""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apc_tools.contract.fix import fix_paths
from apc_tools.contract.validate import validate
from apc_tools.core.gitignore import SAFE_DEFAULTS, missing_defaults
from tests.conftest import write_tree

SAFE_RULES = {"YML005", "FMT002", "GIG001", "GIG002", "PRJ002", "PRJ003"}

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 .,()'-", max_size=12).map(
    str.strip
)
START = st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True)
class Pair:
    bad: bytes
    good: bytes


@st.composite
def agents(draw: st.DrawFn) -> tuple[str, Pair]:
    """An APC agent: maybe a BOM, LF or CRLF, a description needing the lenient reading (an
    inner `: `) or not, comments and a body that must stay as they are."""
    slug = draw(st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    parts = [p for p in draw(st.lists(WORD, min_size=1, max_size=4)) if p]
    description = draw(START) + (": ".join(parts) if parts else "")
    description = description.rstrip(" :")
    lenient = ": " in description
    comment = draw(st.sampled_from(["", "# the reviewer" + eol]))
    body = draw(st.sampled_from(["# Agent" + eol, "Text: with a colon." + eol, ""]))
    bom = draw(st.booleans())

    def render(value: str) -> bytes:
        text = (
            f"---{eol}{comment}name: {slug}{eol}model: inherit{eol}description: {value}{eol}"
            f"---{eol}{body}"
        )
        return text.encode()

    good = render(json.dumps(description) if lenient else description)
    bad = render(description)
    return f".apc/agents/{slug}.md", Pair((b"\xef\xbb\xbf" if bom else b"") + bad, good)


@st.composite
def gitignores(draw: st.DrawFn) -> Pair:
    kept = draw(st.lists(st.sampled_from(SAFE_DEFAULTS), unique=True))
    own = draw(st.lists(st.sampled_from(["node_modules/", "# mine", "", "*.log"]), max_size=3))
    lines = draw(st.permutations([*kept, *own]))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = eol.join(lines) + draw(st.sampled_from([eol, ""]))
    missing = missing_defaults(text)
    if not missing:
        return Pair(text.encode(), text.encode())
    eol = "\r\n" if "\r\n" in text else "\n"  # a file with no line break gets LF
    lead = eol if text and not text.endswith("\n") else ""
    return Pair(text.encode(), (text + lead + eol.join(missing) + eol).encode())


@st.composite
def project_jsons(draw: st.DrawFn) -> Pair:
    key = draw(st.sampled_from(["apc", "apf", None]))
    indent = draw(st.sampled_from([None, 2, 4]))
    rest = {"name": "demo", "version": "0.1.0", "created": "2026-05-08"}
    first = draw(st.booleans())

    def dump(data: dict[str, str]) -> bytes:
        return (json.dumps(data, indent=indent) + "\n").encode()

    if key is None:
        good = {"apc": "0.1.0", **rest}
        bad_text = dump(rest)
        if indent is None:  # one line: the key goes first, one space after its comma
            return Pair(bad_text, bad_text.replace(b"{", b'{"apc": "0.1.0", ', 1))
        return Pair(bad_text, dump(good))
    data = {key: "0.1.0", **rest} if first else {**rest, key: "0.1.0"}
    good_data = {("apc" if k == "apf" else k): v for k, v in data.items()}
    return Pair(dump(data), dump(good_data))


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    agent=agents(),
    gitignore=st.one_of(st.none(), gitignores()),
    project_json=project_jsons(),
)
def test_safe_fixes_repair_exactly_what_they_fix(
    agent: tuple[str, Pair], gitignore: Pair | None, project_json: Pair
) -> None:
    agent_path, agent_pair = agent
    files: dict[str, Pair] = {
        "AGENTS.md": Pair(b"# Demo\n", b"# Demo\n"),
        ".apc/project.json": project_json,
        agent_path: agent_pair,
    }
    created = ("\n".join(SAFE_DEFAULTS) + "\n").encode()
    if gitignore is not None:
        files[".apc/.gitignore"] = gitignore
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "p"
        write_tree(root, {rel: pair.bad for rel, pair in files.items()})
        before = validate([], cwd=root)
        fix_paths([], cwd=root)
        for rel, pair in files.items():
            assert (root / rel).read_bytes() == pair.good, rel
        if gitignore is None:
            assert (root / ".apc/.gitignore").read_bytes() == created
        after = validate([], cwd=root)
        assert not [f for f in after.findings if f.rule in SAFE_RULES]
        assert {(f.rule, f.path) for f in after.findings} <= {
            (f.rule, f.path) for f in before.findings
        }
        again = fix_paths([], cwd=root)
        assert again.files == []


FRAGMENTS = st.sampled_from(
    [
        "---",
        "...",
        "name: Other",
        "name: 'x''y'",
        'name: "a\\"b"',
        "name: |",
        "  block",
        "description: a: b",
        "description: >-",
        "description: [a, b]",
        "globs: **/*.ts",
        "# comment",
        "\tname: tab",
        "name: &a x",
        "key: *a",
        "model: inherit",
        "\u2028",
        "\x0c",
        "\r",
        "",
        "  - item",
        "{name: flow}",
    ]
)
JSON_FRAGMENTS = st.sampled_from(
    ['{"name": "d", "apf": "0.1.0"}', '{"apf": 1}', '{"name": "\u2028", "apf": "x"}', "{", "[]"]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(FRAGMENTS, max_size=8),
    eol=st.sampled_from(["\n", "\r\n", "\r"]),
    bom=st.booleans(),
    project_json=JSON_FRAGMENTS,
)
def test_hostile_frontmatter_never_breaks_the_fixer(
    lines: list[str], eol: str, bom: bool, project_json: str
) -> None:
    """Whatever the file holds, --fix --unsafe-fixes raises nothing, and a file it rewrites
    validates with no finding it did not have before (a file that did not parse is left)."""
    text = ("\ufeff" if bom else "") + eol.join(["---", *lines, "---", "body"])
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "p"
        write_tree(
            root,
            {
                "AGENTS.md": "# Demo\n",
                ".apc/project.json": project_json,
                ".apc/agents/rev.md": text.encode("utf-8"),
            },
        )
        before = {(f.rule, f.path) for f in validate([], cwd=root).findings}
        outcome = fix_paths([], unsafe=True, cwd=root)
        after = {(f.rule, f.path) for f in validate([], cwd=root).findings}
        assert after <= before
        for fixed in outcome.files:
            assert not {r for r, p in before if p == fixed.display} & {
                "YML001",
                "YML002",
                "YML003",
                "YML004",
                "YML006",
                "FMT001",
                "JSN001",
                "JSN002",
            }
        assert fix_paths([], unsafe=True, cwd=root).files == []
