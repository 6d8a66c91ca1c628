"""core.files: reading a contract file takes a buffer of its own size, and still reads a file
that changed since it was stat'ed to its end or past the cap (read_capped), with the same
answers from read_bytes as before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from apc_tools.core import files


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 70_000])
def test_the_stated_size_reads_the_whole_file(tmp_path: Path, size: int) -> None:
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    path = tmp_path / "f"
    path.write_bytes(data)
    assert files.read_capped(path, size, files.MAX_BYTES) == data


@pytest.mark.parametrize("hint", [0, 10, 99_999, 5_000_000])
def test_a_wrong_size_hint_still_reads_to_the_end(tmp_path: Path, hint: int) -> None:
    # the file grew or shrank between the stat and the read: the bytes read are its bytes
    data = os.urandom(200_000)
    path = tmp_path / "f"
    path.write_bytes(data)
    assert files.read_capped(path, hint, files.MAX_BYTES) == data


def test_a_file_past_the_cap_is_read_one_byte_past_it(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"a" * 5000)
    for hint in (0, 100, 5000):
        assert files.read_capped(path, hint, 1000) == b"a" * 1001
    assert files.read_capped(path, 5000, 5000) == b"a" * 5000
    assert files.read_capped(path, 5000, 4999) == b"a" * 5000


def test_read_bytes_gives_the_file_and_findings_as_before(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes(b"# hi\n")
    assert files.read_bytes(tmp_path / "a.md", tmp_path, "a.md") == b"# hi\n"
    (tmp_path / "big.md").write_bytes(b"x" * (files.MAX_BYTES + 1))
    big = files.read_bytes(tmp_path / "big.md", tmp_path, "big.md")
    assert isinstance(big, files.Finding) and big.rule == files.IO_TOO_LARGE.id
    (tmp_path / "edge.md").write_bytes(b"y" * files.MAX_BYTES)
    assert files.read_bytes(tmp_path / "edge.md", tmp_path, "edge.md") == b"y" * files.MAX_BYTES
    (tmp_path / "link.md").symlink_to("a.md")
    assert files.read_bytes(tmp_path / "link.md", tmp_path, "link.md") == b"# hi\n"
    (tmp_path / "dir.md").mkdir()
    folder = files.read_bytes(tmp_path / "dir.md", tmp_path, "dir.md")
    assert isinstance(folder, files.Finding) and folder.rule == files.IO_UNREADABLE.id
    os.mkfifo(tmp_path / "fifo.md")  # never opened: a FIFO is not a regular file
    fifo = files.read_bytes(tmp_path / "fifo.md", tmp_path, "fifo.md")
    assert isinstance(fifo, files.Finding) and fifo.rule == files.IO_UNREADABLE.id


def test_an_unreadable_file_is_a_finding(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads a file whatever its mode")
    path = tmp_path / "a.md"
    path.write_bytes(b"x")
    path.chmod(0)
    got = files.read_bytes(path, tmp_path, "a.md")
    assert isinstance(got, files.Finding) and got.rule == files.IO_UNREADABLE.id
    assert "a.md" in got.path
