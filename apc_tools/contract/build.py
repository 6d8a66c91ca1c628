"""Build the immutable :class:`~apc_tools.contract.model.Contract` from a parsed project."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from apc_tools.contract.model import (
    _SEAL,
    Agent,
    Contract,
    McpServer,
    Plan,
    ProjectMeta,
    RuleFile,
    Skill,
    SourceFile,
    freeze,
)
from apc_tools.contract.project import Doc, Project


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def as_list(value: Any) -> tuple[str, ...]:
    """A comma-separated string or a list (agents' ``skills``, rules' ``globs``)."""
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, list):
        return tuple(str(v).strip() for v in value if str(v).strip())
    return ()


def _project_meta(doc: Doc | None) -> ProjectMeta | None:
    if doc is None:
        return None
    data = doc.data
    agents = data.get("agents")
    imported = as_list(agents.get("imported")) if isinstance(agents, Mapping) else ()
    return ProjectMeta(
        name=_str(data.get("name")),
        spec_version=_str(data.get("apc")) or _str(data.get("apf")),
        version=_str(data.get("version")),
        created=_str(data.get("created")),
        description=_str(data.get("description")),
        apx=_str(data.get("apx")),
        apx_id=_str(data.get("apx_id")),
        imported_agents=imported,
        fields=freeze(dict(data)),
    )


def _agent(doc: Doc) -> Agent:
    data = doc.data
    background = data.get("is_background")
    return Agent(
        slug=doc.stem,
        path=doc.rel,
        name=_str(data.get("name")),
        model=_str(data.get("model")),
        description=_str(data.get("description")),
        skills=as_list(data.get("skills")),
        is_background=background if isinstance(background, bool) else None,
        body=doc.body,
        fields=freeze(dict(data)),
    )


def _skill(doc: Doc) -> Skill:
    path = PurePosixPath(doc.rel)
    name = path.parent.name if doc.kind == "skill" else path.stem
    return Skill(
        name=name,
        path=doc.rel,
        layout="folder" if doc.kind == "skill" else "flat",
        description=_str(doc.data.get("description")),
        fields=freeze(dict(doc.data)),
    )


def _rule_file(doc: Doc) -> RuleFile:
    always = doc.data.get("alwaysApply")
    return RuleFile(
        path=doc.rel,
        description=_str(doc.data.get("description")),
        globs=as_list(doc.data.get("globs")),
        always_apply=always if isinstance(always, bool) else None,
        body=doc.body,
    )


def _plan(doc: Doc) -> Plan:
    data = doc.data
    return Plan(
        path=doc.rel,
        title=_str(data.get("title")),
        status=_str(data.get("status")),
        owner=_str(data.get("owner")),
        updated=None if data.get("updated") is None else str(data.get("updated")),
    )


def _string_map(value: Any) -> Mapping[str, str]:
    if not isinstance(value, Mapping):
        return freeze({})
    return freeze({str(k): str(v) for k, v in value.items()})


def _mcp_servers(doc: Doc | None) -> tuple[McpServer, ...]:
    servers = doc.data.get("mcpServers") if doc is not None else None
    if not isinstance(servers, Mapping):
        return ()
    out = []
    for name, spec in servers.items():
        if not isinstance(spec, Mapping):
            continue
        args = spec.get("args")
        enabled = spec.get("enabled", True) is not False and spec.get("disabled") is not True
        out.append(
            McpServer(
                name=str(name),
                command=_str(spec.get("command")),
                args=tuple(str(a) for a in args) if isinstance(args, list) else (),
                env=_string_map(spec.get("env")),
                url=_str(spec.get("url")),
                headers=_string_map(spec.get("headers")),
                enabled=enabled,
            )
        )
    return tuple(out)


def build_contract(project: Project) -> Contract:
    """Freeze a parsed project into the Contract (only files of this project, not nested ones)."""
    docs = project.docs
    apc = [d for d in docs if d.rel.startswith(".apc/")]
    project_doc = next((d for d in apc if d.kind == "project"), None)
    mcps_doc = next((d for d in apc if d.kind == "mcps"), None)
    return Contract(
        root=project.root,
        project=_project_meta(project_doc),
        agents=tuple(_agent(d) for d in apc if d.kind == "agent"),
        skills=tuple(_skill(d) for d in apc if d.kind in ("skill", "skill-flat")),
        rules=tuple(_rule_file(d) for d in apc if d.kind == "rule"),
        plans=tuple(_plan(d) for d in apc if d.kind == "plan"),
        mcp_servers=_mcp_servers(mcps_doc),
        memory_files=tuple(d.rel for d in apc if d.kind == "memory"),
        agents_md=tuple(d.rel for d in docs if d.kind == "agents-md"),
        sources=tuple(SourceFile(d.rel, d.sha256) for d in sorted(docs, key=lambda d: d.rel)),
        _seal=_SEAL,
    )
