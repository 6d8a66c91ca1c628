"""An in-memory project for property tests: texts parsed and checked without touching disk."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path

from apc_tools.contract.project import Project, classify
from apc_tools.contract.validate import check_project, parse_doc
from apc_tools.core.files import TextFile
from apc_tools.findings import Finding

ROOT = Path("/nonexistent/apc-tools-property-root")


def memory_project(
    texts: Mapping[str, str], *, profile: str = "default", extra_files: Iterable[str] = ()
) -> Project:
    """A Project of ``texts`` (relative path -> text; the kind comes from the path)."""
    project = Project(ROOT, "", profile, files=frozenset([*texts, *extra_files]), tracked=None)
    for rel, text in texts.items():
        kind = classify(rel)
        assert kind is not None, rel
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        doc, _ = parse_doc(kind, rel, TextFile(rel, text, digest, False))
        project.docs.append(doc)
    return project


def check_texts(texts: Mapping[str, str], **options: object) -> tuple[Project, list[Finding]]:
    """Parse ``texts`` into a project and run every check on it."""
    project = memory_project(texts, **options)  # type: ignore[arg-type]
    return project, check_project(project)
