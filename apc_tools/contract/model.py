"""The validated, immutable contract.

Everything here is frozen: dataclasses with ``frozen=True``, tuples, and read-only mappings
(:class:`types.MappingProxyType` over private copies). A :class:`Contract` can only be built by
the contract loader (:func:`apc_tools.contract.validate.load_contract`), which passes the private
seal; constructing one anywhere else raises ``TypeError``. The runtime module consumes this object
and nothing else from the contract package.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

_SEAL = object()

Frozen = Any  # a frozen JSON-like value: str, int, float, bool, None, tuple, MappingProxyType


def freeze(value: Any) -> Frozen:
    """A deep read-only copy of a JSON-like value (dict -> mapping proxy, list -> tuple)."""
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def _empty() -> Mapping[str, Frozen]:
    return MappingProxyType({})


@dataclass(frozen=True)
class SourceFile:
    """A file the contract was built from: path relative to the root (POSIX) and its SHA-256."""

    path: str
    sha256: str


@dataclass(frozen=True)
class ProjectMeta:
    name: str | None
    spec_version: str | None
    version: str | None = None
    created: str | None = None
    description: str | None = None
    apx: str | None = None
    apx_id: str | None = None
    imported_agents: tuple[str, ...] = ()
    fields: Mapping[str, Frozen] = field(default_factory=_empty)


@dataclass(frozen=True)
class Agent:
    slug: str
    path: str
    name: str | None
    model: str | None
    description: str | None
    skills: tuple[str, ...] = ()
    is_background: bool | None = None
    body: str = ""
    fields: Mapping[str, Frozen] = field(default_factory=_empty)


@dataclass(frozen=True)
class Skill:
    name: str
    path: str
    layout: str  # "flat" (.apc/skills/<name>.md) or "folder" (<name>/SKILL.md)
    description: str | None = None
    fields: Mapping[str, Frozen] = field(default_factory=_empty)


@dataclass(frozen=True)
class RuleFile:
    path: str
    description: str | None
    globs: tuple[str, ...]
    always_apply: bool | None
    body: str = ""


@dataclass(frozen=True)
class Plan:
    path: str
    title: str | None
    status: str | None
    owner: str | None
    updated: str | None


@dataclass(frozen=True)
class McpServer:
    name: str
    command: str | None
    args: tuple[str, ...]
    env: Mapping[str, str]
    url: str | None
    headers: Mapping[str, str]
    enabled: bool


@dataclass(frozen=True)
class Contract:
    """The project's contract as validated. Obtainable only from the contract loader."""

    root: Path
    project: ProjectMeta | None
    agents: tuple[Agent, ...]
    skills: tuple[Skill, ...]
    rules: tuple[RuleFile, ...]
    plans: tuple[Plan, ...]
    mcp_servers: tuple[McpServer, ...]
    memory_files: tuple[str, ...]
    agents_md: tuple[str, ...]
    sources: tuple[SourceFile, ...]
    _seal: object = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self._seal is not _SEAL:
            raise TypeError(
                "a Contract is built only by apc_tools.contract.validate.load_contract()"
            )

    @property
    def apx_id(self) -> str | None:
        return self.project.apx_id if self.project else None

    def agent(self, slug: str) -> Agent | None:
        return next((a for a in self.agents if a.slug == slug), None)

    def runtime_dir(self, home: Path) -> Path | None:
        """Where APX keeps this project's runtime state (``~/.apx/projects/<apx_id>``), if known."""
        return home / ".apx" / "projects" / self.apx_id if self.apx_id else None

    def contains(self, path: Path) -> bool:
        """True when ``path`` (resolved) lies inside the project tree."""
        root = self.root.resolve()
        target = path.resolve()
        return target == root or root in target.parents
