"""`apc validate`: discover, read, parse, check, apply the policy; and build the Contract.

The flow is the one of ARCHITECTURE.md habit 1: a loader yields each file's parsed data or its
problems, pure checks build findings, the caller renders them. A bad file becomes a finding and
the run goes on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from apc_tools.contract.build import build_contract
from apc_tools.contract.checks import CHECKS, PROJECT_CHECKS
from apc_tools.contract.model import Contract
from apc_tools.contract.project import (
    JSON_KINDS,
    MARKDOWN_KINDS,
    Doc,
    Project,
    classify,
    display_root,
    list_files,
    owner,
    project_roots,
)
from apc_tools.core import files as io
from apc_tools.core.parse import (
    FM_BOM,
    YAML_NOT_MAPPING,
    Located,
    Problem,
    load_frontmatter_yaml,
    load_json,
    split_frontmatter,
)
from apc_tools.core.policy import Policy, load_policy
from apc_tools.findings import CannotRun, Finding, Result

PROFILES = ("default", "agentskills")


def _problem_findings(doc_path: str, problems: Iterable[Problem]) -> list[Finding]:
    return [p.rule.finding(doc_path, p.message, p.line, p.column) for p in problems]


def parse_doc(kind: str, rel: str, text_file: io.TextFile) -> tuple[Doc, list[Finding]]:
    """Parse one contract file by kind; parse problems come back as findings."""
    doc = Doc(kind, text_file.path, rel, text_file.text, text_file.sha256)
    found: list[Finding] = []
    if text_file.had_bom and kind in MARKDOWN_KINDS:
        found.append(FM_BOM.finding(doc.path, "file starts with a UTF-8 byte-order mark", 1, 1))
    if not text_file.text.strip():
        found.append(io.IO_EMPTY.finding(doc.path, "file is empty"))
        return doc, found
    if kind in MARKDOWN_KINDS:
        front = split_frontmatter(text_file.text)
        found += _problem_findings(doc.path, front.problems)
        doc.body, doc.body_line = front.body, front.body_line
        if front.yaml is not None:
            doc.has_frontmatter = True
            doc.meta = load_frontmatter_yaml(front.yaml, line_offset=front.yaml_line)
            found += _problem_findings(doc.path, doc.meta.problems)
            found += _not_mapping(doc, doc.meta)
    elif kind in JSON_KINDS:
        doc.meta = load_json(text_file.text)
        found += _problem_findings(doc.path, doc.meta.problems)
        found += _not_mapping(doc, doc.meta)
    return doc, found


def _not_mapping(doc: Doc, meta: Located) -> list[Finding]:
    if meta.data is None or isinstance(meta.data, dict):
        return []
    pos = meta.at(())
    what = "JSON object" if doc.kind in JSON_KINDS else "mapping of keys to values"
    return [
        YAML_NOT_MAPPING.finding(
            doc.path,
            f"expected a {what}, found {type(meta.data).__name__}",
            pos.line if pos else None,
            pos.column if pos else None,
        )
    ]


def load_project(
    root: Path,
    rels: Sequence[str],
    *,
    display: str,
    profile: str,
    all_files: frozenset[str],
    tracked: frozenset[str] | None,
) -> tuple[Project, list[Finding]]:
    """Read and parse the contract files ``rels`` (relative to ``root``) of one project."""
    project = Project(root, display, profile, files=all_files, tracked=tracked)
    found: list[Finding] = []
    for rel in rels:
        kind = classify(rel)
        if kind is None:
            continue
        shown = project.display_path(rel)
        read = io.read_text(root / rel, root, shown)
        if isinstance(read, Finding):
            found.append(read)
            project.unread.append(rel)
            continue
        doc, problems = parse_doc(kind, rel, read)
        project.docs.append(doc)
        found += problems
    return project, found


def check_project(project: Project) -> list[Finding]:
    found: list[Finding] = []
    for doc in project.docs:
        for check in CHECKS.get(doc.kind, ()):
            found.extend(check(doc, project))
    for project_check in PROJECT_CHECKS:
        found.extend(project_check(project))
    return found


def _projects_in(
    tree: Path, cwd: Path, profile: str, policy: Policy | None = None
) -> tuple[list[Project], list[Finding], int]:
    files, tracked = list_files(tree)
    if policy is not None and policy.exclude:
        files = [f for f in files if not policy.excluded(f)]
    roots = project_roots(files)
    grouped: dict[str, list[str]] = {r: [] for r in roots}
    for rel in files:
        grouped[owner(rel, roots)].append(rel)
    projects: list[Project] = []
    found: list[Finding] = []
    count = 0
    for rel_root, members in grouped.items():
        cut = len(rel_root) + 1 if rel_root else 0
        local = [m[cut:] for m in members]
        sub_tracked = (
            None
            if tracked is None
            else frozenset(t[cut:] for t in tracked if not rel_root or t.startswith(rel_root + "/"))
        )
        root = tree / rel_root if rel_root else tree
        project, problems = load_project(
            root,
            local,
            display=display_root(root, cwd),
            profile=profile,
            all_files=frozenset(local),
            tracked=sub_tracked,
        )
        projects.append(project)
        found += problems
        count += len(project.docs) + len(project.unread)
    return projects, found, count


def find_root(start: Path) -> Path:
    """The nearest ancestor (or ``start``) that holds ``.apc/``; else the nearest with AGENTS.md."""
    start = start.resolve()
    folder = start if start.is_dir() else start.parent
    chain = [folder, *folder.parents]
    for candidate in chain:
        if (candidate / ".apc").is_dir():
            return candidate
    for candidate in chain:
        if (candidate / "AGENTS.md").is_file() or (candidate / ".git").exists():
            return candidate
    return folder


def _validate_files(
    root: Path, paths: Sequence[Path], cwd: Path, profile: str, policy: Policy
) -> tuple[list[Finding], int]:
    """Check single files with their project as context; report only on those files."""
    projects, found, _ = _projects_in(root, cwd, profile, policy)
    for project in projects:
        found += check_project(project)
    wanted: set[str] = set()
    lone: list[Finding] = []
    for path in paths:
        rel = path.resolve().relative_to(root).as_posix()
        owning = owner(rel, project_roots([rel]))
        if classify(rel[len(owning) + 1 :] if owning else rel) is None:
            lone += _validate_lone(path, cwd, profile)
        else:
            wanted.add(display_root(path.resolve(), cwd))
    return [f for f in found if f.path in wanted] + lone, len(paths)


def _validate_lone(path: Path, cwd: Path, profile: str) -> list[Finding]:
    """A file outside the usual places: validated by its name (SKILL.md, *.mdc, agent .md)."""
    kind = "rule" if path.suffix == ".mdc" else "skill" if path.name == "SKILL.md" else None
    if kind is None:
        raise CannotRun(
            f"{path}: not a contract file apc knows (AGENTS.md, SKILL.md, .apc/..., "
            ".claude/agents/*.md, .cursor/rules/*.mdc)"
        )
    root = path.parent.resolve()
    shown = display_root(path.resolve(), cwd)
    project = Project(root, "", profile, files=frozenset({path.name}), tracked=None)
    # Parsed by the kind its name gives (load_project classifies by location, which would
    # skip e.g. a `rules/x.mdc` outside `.cursor/rules/`).
    read = io.read_text(root / path.name, root, shown)
    if isinstance(read, Finding):
        return [read]
    doc, found = parse_doc(kind, path.name, read)
    project.docs.append(doc)
    return found + check_project(project)


def validate(
    paths: Sequence[Path],
    *,
    profile: str | None = None,
    config_path: Path | None = None,
    cwd: Path | None = None,
) -> Result:
    """Validate folders (every project inside) and single files; return sorted findings.

    The policy file is ``config_path`` or ``.apc-tools.yaml`` at the first folder given (or the
    project root of the first file). ``profile`` None means the policy's, else "default".
    """
    if profile is not None and profile not in PROFILES:
        raise CannotRun(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    cwd = (cwd or Path.cwd()).resolve()
    for path in paths:
        if not path.exists() and not path.is_symlink():
            raise CannotRun(f"{path}: no such file or folder")
    dirs = [p.resolve() for p in paths if p.is_dir()]
    base = dirs[0] if dirs else find_root(paths[0])
    policy = load_policy(config_path, base)
    profile = profile or policy.profile or "default"
    found: list[Finding] = []
    count = 0
    singles: dict[Path, list[Path]] = {}
    for path in paths:
        if path.is_dir():
            projects, problems, seen = _projects_in(path.resolve(), cwd, profile, policy)
            found += problems
            count += seen
            for project in projects:
                found += check_project(project)
        else:
            singles.setdefault(find_root(path), []).append(path)
    for root, members in singles.items():
        more, seen = _validate_files(root, members, cwd, profile, policy)
        found += more
        count += seen
    applied = policy.apply(found, display_root(base, cwd))
    return Result.of(applied, count, strict=policy.strict)


def load_contract(start: Path, *, profile: str = "default") -> Contract | None:
    """The immutable Contract of the project containing ``start`` (None outside a project).

    Only this function builds a Contract. It is built from the files as read, whatever their
    findings; callers that need a clean contract validate first.
    """
    root = find_root(start)
    if not (root / ".apc").is_dir() and not (root / "AGENTS.md").is_file():
        return None
    files, tracked = list_files(root)
    roots = project_roots(files)
    mine = [f for f in files if owner(f, roots) == ""]
    project, _ = load_project(
        root, mine, display="", profile=profile, all_files=frozenset(mine), tracked=tracked
    )
    return build_contract(project)


__all__ = ["PROFILES", "Policy", "load_contract", "parse_doc", "validate"]
