"""project.json checks (PRJ001-PRJ008) through validate(), with positions."""

from __future__ import annotations

from pathlib import Path

import pytest

from apc_tools.contract.checks.project_json import is_iso8601
from tests.checks_base import BASE, run, where

P = ".apc/project.json"


def _project(text: str) -> dict[str, str | bytes]:
    return {P: text}


def test_missing_name_and_spec_version(tmp_path: Path) -> None:
    text = '{\n  "version": "0.1.0",\n  "created": "2026-05-08"\n}\n'
    found = run(tmp_path, _project(text))
    assert where(found, "PRJ001") == [(P, 1, 1)]
    assert where(found, "PRJ002") == [(P, 1, 1)]
    assert all(f.severity.value == "error" for f in found if f.rule in ("PRJ001", "PRJ002"))


def test_blank_name_points_at_the_value(tmp_path: Path) -> None:
    text = '{\n  "name":   "  ",\n  "apc": "0.1.0", "version": "1", "created": "2026-05-08"\n}'
    found = run(tmp_path, _project(text))
    assert where(found, "PRJ001") == [(P, 2, 13)]
    assert found[0].message.startswith("name: ")


def test_legacy_apf_is_a_warning_at_the_key(tmp_path: Path) -> None:
    text = '{"name": "d",\n "apf": "0.1.0", "version": "1", "created": "2026-05-08"}'
    found = run(tmp_path, _project(text))
    assert [(f.rule, f.severity.value, f.line, f.column) for f in found] == [
        ("PRJ003", "warning", 2, 2)
    ]
    assert "prefer" in found[0].message


def test_both_keys_suggest_dropping_apf(tmp_path: Path) -> None:
    text = '{"name": "d", "apc": "0.1.0", "apf": "0.1.0", "version": "1", "created": "2026-05-08"}'
    found = run(tmp_path, _project(text))
    assert [f.rule for f in found] == ["PRJ003"]
    assert "drop" in found[0].message


def test_spec_version_must_be_a_string(tmp_path: Path) -> None:
    text = '{"name": "d", "apc": 1, "version": "1", "created": "2026-05-08"}'
    assert where(run(tmp_path, _project(text)), "PRJ002") == [(P, 1, 22)]


def test_recommended_keys_are_warnings(tmp_path: Path) -> None:
    found = run(tmp_path, _project('{"name": "d", "apc": "0.1.0"}'))
    assert sorted((f.rule, f.severity.value) for f in found) == [
        ("PRJ004", "warning"),
        ("PRJ004", "warning"),
    ]
    assert sorted("created" in f.message for f in found) == [False, True]


def test_created_not_iso_8601(tmp_path: Path) -> None:
    text = '{"name": "d", "apc": "0.1.0", "version": "1",\n  "created": "May 8th, 2026"}'
    found = run(tmp_path, _project(text))
    assert [(f.rule, f.line, f.column) for f in found] == [("PRJ005", 2, 14)]


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("2026-05-08", True),
        ("2026-05-08T00:00:00Z", True),
        ("2026-05-07T18:18:04.123+02:00", True),
        ("2026-13-01", False),
        ("08/05/2026", False),
        ("", False),
    ],
)
def test_iso8601(value: str, ok: bool) -> None:
    assert is_iso8601(value) is ok


def test_known_fields_are_checked_against_the_schema(tmp_path: Path) -> None:
    text = (
        '{"name": "d", "apc": "0.1.0", "version": "1", "created": "2026-05-08",\n'
        ' "apx": "yes",\n'
        ' "apx_id": "EA6F1D58BBD4",\n'
        ' "agents": {"imported": ["reviewer", "Bad Slug"]}}\n'
    )
    found = run(tmp_path, _project(text))
    assert where(found, "PRJ006") == [(P, 2, 9), (P, 3, 12), (P, 4, 38)]
    assert "agents.imported[1]" in found[-1].message


def test_unknown_key_is_a_warning_at_the_key(tmp_path: Path) -> None:
    text = '{"name": "d", "apc": "0.1.0", "version": "1", "created": "2026-05-08",\n "owner": 1}'
    found = run(tmp_path, _project(text))
    assert [(f.rule, f.severity.value, f.line, f.column) for f in found] == [
        ("PRJ007", "warning", 2, 2)
    ]


def test_apx_written_file_is_accepted_with_warnings_only(tmp_path: Path) -> None:
    text = (
        '{"name": "d", "version": "0.1.0", "apf": "0.1.0", "created": "2026-05-08T00:00:00Z",'
        ' "apx": null, "apx_id": "ea6f1d58bbd4"}'
    )
    found = run(tmp_path, _project(text))
    assert [f.rule for f in found] == ["PRJ003"]


def test_apc_folder_without_project_json(tmp_path: Path) -> None:
    files = {k: v for k, v in BASE.items() if k != P}
    found = run(tmp_path, files, base=False)
    assert where(found, "PRJ008") == [(P, None, None)]
    assert "AGM001" not in {f.rule for f in found}


def test_non_object_project_json_is_reported_once_by_the_parser(tmp_path: Path) -> None:
    found = run(tmp_path, _project("[1, 2]"))
    assert [f.rule for f in found] == ["YML006"]
