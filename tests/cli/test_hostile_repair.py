"""Issue 11, the runtime and command-line defects: each reproduction of
../shared/reference/hostile-input-findings.md, run as a real process, now holds.

H1 symlink bypass, H2 stdin read once, H4 escaped error lines, H6 devices and FIFOs as -o, M1 big
numbers and deep nesting, M2 a lone tool call, a closed or full stdout, a deleted working
folder, temporary files after SIGTERM and SIGKILL, a FIFO or a 200 MB file as --config, "line
None". Large inputs are generated here, never committed.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT, apc_env, write_tree

CALL = {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
HISTORY = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
]
PROJECT = {"AGENTS.md": "# Demo\n", ".apc/project.json": '{"name": "d", "apc": "0.1.0"}\n'}
GUARD = 120  # seconds: a hang guard, never a speed assertion


def apc(
    *args: str | Path, cwd: Path, input: bytes | None = None, stdout: Any = subprocess.PIPE
) -> subprocess.CompletedProcess[bytes]:
    env = apc_env(no_color=False)
    return subprocess.run(
        [sys.executable, "-m", "apc_tools", *map(str, args)],
        cwd=cwd,
        env=env,
        input=input,
        stdout=stdout,
        stderr=subprocess.PIPE,
        timeout=GUARD,
        check=False,
    )


def shell(script: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """``script`` in sh, with ``APC`` naming this checkout's command line."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "APC": f"{sys.executable} -m apc_tools"}
    return subprocess.run(
        ["sh", "-c", script], cwd=cwd, env=env, capture_output=True, timeout=GUARD, check=False
    )


def one_error_line(done: subprocess.CompletedProcess[bytes]) -> str:
    """Exit 2 with exactly one ``apc: error:`` line and no traceback: that line."""
    err = done.stderr.decode()
    assert done.returncode == 2, (done.returncode, err)
    assert "Traceback" not in err and err.count("\n") == 1 and err.startswith("apc: error: "), err
    return err


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """``proj/`` (an APC project), ``out/`` and ``h.json`` / ``h.jsonl`` beside it."""
    write_tree(tmp_path / "proj", PROJECT)
    (tmp_path / "out").mkdir()
    (tmp_path / "h.json").write_text(json.dumps(HISTORY))
    (tmp_path / "h.jsonl").write_text("".join(json.dumps(r) + "\n" for r in HISTORY))
    return tmp_path


def closed(records: list[dict[str, Any]]) -> bool:
    return any(r.get("role") == "tool" and r.get("tool_call_id") == "c1" for r in records)


# --------------------------------------------------------------------------------------------
# H1: a symlink into the project


@pytest.mark.parametrize("inside", ["AGENTS.md", ".apc/project.json", ".apc/agents/reviewer.md"])
def test_h1_out_through_a_symlink_into_the_project_is_refused(work: Path, inside: str) -> None:
    target = work / "proj" / inside
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        target.write_text("---\nname: reviewer\n---\n")
    before = target.read_bytes()
    (work / "out" / "fixed.json").symlink_to(target)
    err = one_error_line(apc("repair", "../h.json", "-o", "fixed.json", cwd=work / "out"))
    assert "refusing to write fixed.json" in err and "project tree" in err
    assert target.read_bytes() == before
    assert [p.name for p in target.parent.iterdir() if p.name.endswith(".apc-tmp")] == []


def test_h1_in_place_through_a_symlink_into_the_project_is_refused(work: Path) -> None:
    inside = work / "proj" / "sessions.json"
    inside.write_text(json.dumps(HISTORY))
    (work / "out" / "h.json").symlink_to(inside)
    err = one_error_line(apc("repair", "h.json", "--in-place", cwd=work / "out"))
    assert "project tree" in err
    assert json.loads(inside.read_text()) == HISTORY


# --------------------------------------------------------------------------------------------
# H2: a history on a pipe is read once


@pytest.mark.parametrize("name", ["h.json", "h.jsonl"])
@pytest.mark.parametrize("source", ["-", "/dev/stdin"])
def test_h2_history_from_a_pipe(work: Path, name: str, source: str) -> None:
    data = (work / name).read_bytes()
    done = apc("repair", source, "-o", "out/fixed", input=data, cwd=work)
    assert done.returncode == 0, done.stderr
    text = (work / "out" / "fixed").read_text()
    records = (
        json.loads(text)
        if name.endswith(".json")
        else [json.loads(x) for x in text.split("\n") if x]
    )
    assert records[:2] == HISTORY and closed(records)
    assert b"RPR001" in done.stdout


def test_h2_history_from_stdin_to_stdout(work: Path) -> None:
    done = apc("repair", "-", input=(work / "h.jsonl").read_bytes(), cwd=work)
    assert done.returncode == 0, done.stderr
    assert closed([json.loads(x) for x in done.stdout.decode().splitlines()])
    assert b"<stdin>" in done.stderr  # the report names stdin


def test_h2_in_place_on_stdin_is_refused(work: Path) -> None:
    err = one_error_line(apc("repair", "-", "--in-place", input=b"[]", cwd=work))
    assert "stdin" in err


def test_h2_history_from_a_fifo(work: Path) -> None:
    fifo = work / "h.fifo"
    os.mkfifo(fifo)
    data = (work / "h.jsonl").read_bytes()

    def feed() -> None:
        with fifo.open("wb") as fh:
            fh.write(data)

    writer = threading.Thread(target=feed)
    writer.start()
    done = apc("repair", fifo, "-o", "out/fixed.jsonl", cwd=work)
    writer.join(GUARD)
    assert done.returncode == 0, done.stderr
    assert closed([json.loads(x) for x in (work / "out/fixed.jsonl").read_text().splitlines()])


# --------------------------------------------------------------------------------------------
# H6: -o onto a device or a FIFO


def test_h6_out_dev_null_and_dash_give_only_the_report(work: Path) -> None:
    null = apc("repair", "h.json", "-o", "/dev/null", cwd=work)
    assert null.returncode == 0 and b"RPR001" in null.stdout, null.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    dash = apc("repair", "h.json", "-o", "-", "--format", "json", cwd=work)
    assert dash.returncode == 0 and closed(json.loads(dash.stdout))
    assert json.loads(dash.stderr)["summary"]["warning"] == 1


def test_h6_a_fifo_with_a_reader_is_written_through(work: Path) -> None:
    fifo = work / "out" / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader is there before apc starts
    try:
        done = apc("repair", "h.json", "-o", fifo, cwd=work)
        got = os.read(reader, 1 << 16)  # the small history fits in the pipe's buffer
    finally:
        os.close(reader)
    assert done.returncode == 0, done.stderr
    assert closed(json.loads(got))
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_h6_a_fifo_without_a_reader_is_refused_not_replaced(work: Path) -> None:
    fifo = work / "out" / "pipe"
    os.mkfifo(fifo)
    err = one_error_line(apc("repair", "h.json", "-o", fifo, cwd=work))
    assert "no process reads the FIFO" in err
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
def test_h6_a_copy_of_dev_null_stays_a_device(work: Path) -> None:
    device = work / "out" / "null"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    done = apc("repair", "h.json", "-o", device, cwd=work)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISCHR(device.lstat().st_mode)


def test_h6_a_socket_is_refused(work: Path) -> None:
    import socket

    path = work / "out" / "sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        err = one_error_line(apc("repair", "h.json", "-o", path, cwd=work))
    assert "not a regular file" in err


# --------------------------------------------------------------------------------------------
# M1: big numbers and deep nesting


BIG = "9" * 5000
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("value", [BIG, DEEP], ids=["5000-digits", "100000-deep"])
def test_m1_jsonl_line_is_an_error_or_skipped(work: Path, value: str) -> None:
    bad = '{"role": "user", "content": "x", "n": ' + value + "}\n"
    (work / "bad.jsonl").write_text(bad + (work / "h.jsonl").read_text())
    err = one_error_line(apc("repair", "bad.jsonl", "-o", "out/x.jsonl", cwd=work))
    assert "bad.jsonl:1:" in err
    skipped = apc("repair", "bad.jsonl", "--skip-bad-lines", "-o", "out/x.jsonl", cwd=work)
    assert skipped.returncode == 0 and b"RIO001" in skipped.stdout, skipped.stderr
    assert b"Traceback" not in skipped.stderr


@pytest.mark.parametrize("value", [BIG, DEEP], ids=["5000-digits", "100000-deep"])
@pytest.mark.parametrize("check", [False, True])
def test_m1_json_array_record_is_an_error(work: Path, value: str, check: bool) -> None:
    (work / "bad.json").write_text('[{"role": "user", "content": "x", "n": ' + value + "}]")
    args = ["--check"] if check else ["-o", "out/x.json"]
    err = one_error_line(apc("repair", "bad.json", *args, cwd=work))
    assert "bad.json:1:" in err


def test_m1_tool_input_nested_990_levels(work: Path) -> None:
    inner = "{}"
    for _ in range(990):
        inner = '{"a": ' + inner + "}"
    record = json.dumps({"role": "assistant", "content": None, "tool_calls": [CALL]})
    (work / "d.json").write_text(f'[{json.dumps(HISTORY[0])}, {record[:-1]}, "x": {inner}}}]')
    for args in (["-o", "out/x.json"], ["--check"]):
        done = apc("repair", "d.json", *args, cwd=work)
        assert done.returncode in (0, 1, 2) and b"Traceback" not in done.stderr, done.stderr


# --------------------------------------------------------------------------------------------
# M2: the only record is an assistant tool call


@pytest.mark.parametrize("name", ["only.json", "only.jsonl"])
def test_m2_a_lone_tool_call_is_closed_never_dropped(work: Path, name: str) -> None:
    record = {"role": "assistant", "content": None, "tool_calls": [CALL]}
    text = json.dumps([record]) if name.endswith(".json") else json.dumps(record) + "\n"
    (work / name).write_text(text)
    done = apc("repair", name, "--in-place", cwd=work)
    assert done.returncode == 0, done.stderr
    out = (work / name).read_text()
    records = (
        json.loads(out) if name.endswith(".json") else [json.loads(x) for x in out.splitlines()]
    )
    assert records[0] == record and closed(records)


# --------------------------------------------------------------------------------------------
# Output that cannot be written: EPIPE, ENOSPC, a closed stdout; naming the right file


def test_closed_stdout_for_the_history(work: Path) -> None:
    done = shell("exec $APC repair h.json >&-", work)
    err = one_error_line(done)
    assert "stdout is closed" in err


def test_reader_gone_exits_quietly(work: Path) -> None:
    records = [{"role": "user", "content": "x" * 100}] * 50_000  # 5 MB: more than a pipe holds
    (work / "big.json").write_text(json.dumps(records))
    shell("($APC repair big.json 2>err.txt; echo $? >rc.txt) | head -c 10 >/dev/null", work)
    assert (work / "rc.txt").read_text().strip() == "1"  # as click does for EPIPE
    assert (work / "err.txt").read_bytes() == b""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["h.json"], "cannot write the history to stdout"),
        (["h.json", "-o", "out/x.json"], "cannot write to stdout"),
        (["h.json", "-o", "/dev/full"], "cannot write /dev/full"),
    ],
)
def test_full_output_names_the_output_not_the_input(
    work: Path, args: list[str], names: str
) -> None:
    with open("/dev/full", "wb") as full:
        err = one_error_line(apc("repair", *args, cwd=work, stdout=full))
    assert names in err and "h.json" not in err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_validate_to_a_full_stdout(work: Path) -> None:
    with open("/dev/full", "wb") as full:
        assert "cannot write to stdout" in one_error_line(
            apc("validate", "proj", cwd=work, stdout=full)
        )


@pytest.mark.parametrize("command", ["repair ../h.json -o ../out/x.json", "validate ../proj"])
def test_deleted_working_folder(work: Path, command: str) -> None:
    (work / "gone").mkdir()
    done = shell(f"cd gone && rmdir ../gone && exec $APC {command}", work)
    err = one_error_line(done)
    assert "working folder" in err


# --------------------------------------------------------------------------------------------
# Temporary files: SIGTERM cleans up, a SIGKILL leftover is swept by the next run


def slow_repair(work: Path) -> tuple[subprocess.Popen[bytes], Any, Path]:
    """A repair reading a FIFO that stays open: it waits, its temporary file written."""
    fifo = work / "in.jsonl"
    os.mkfifo(fifo)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "apc_tools", "repair", str(fifo), "-o", "out/x.jsonl"],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    writer = fifo.open("wb")
    line = json.dumps({"role": "user", "content": "y" * 300}) + "\n"
    writer.write(line.encode() * 5000)  # past the layout and wire detection windows
    writer.flush()
    deadline = time.monotonic() + GUARD
    while not temporaries(work / "out") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert temporaries(work / "out"), "the repair never started writing"
    return proc, writer, fifo


def temporaries(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.name.endswith(".apc-tmp"))


def test_sigterm_removes_the_temporary_file(work: Path) -> None:
    proc, writer, _ = slow_repair(work)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=GUARD)
    writer.close()
    assert proc.returncode == 128 + signal.SIGTERM
    assert b"Traceback" not in err
    assert temporaries(work / "out") == [] and not (work / "out" / "x.jsonl").exists()


def test_sigkill_leftover_is_swept_by_the_next_run(work: Path) -> None:
    proc, writer, fifo = slow_repair(work)
    proc.kill()
    proc.communicate(timeout=GUARD)
    writer.close()
    (left,) = temporaries(work / "out")
    old = time.time() - 3600
    os.utime(left, (old, old))  # a leftover of an earlier run
    fifo.unlink()
    done = apc("repair", "h.jsonl", "-o", "out/x.jsonl", cwd=work)
    assert done.returncode == 0, done.stderr
    assert temporaries(work / "out") == []


def test_a_live_writers_temporary_file_is_not_swept(work: Path) -> None:
    proc, writer, _ = slow_repair(work)
    try:
        (live,) = temporaries(work / "out")
        old = time.time() - 3600
        os.utime(live, (old, old))  # old, but locked by a running repair
        done = apc("repair", "h.jsonl", "-o", "out/x.jsonl", cwd=work)
        assert done.returncode == 0, done.stderr
        assert live.exists()
    finally:
        writer.close()
        proc.communicate(timeout=GUARD)
    assert proc.returncode == 0 and temporaries(work / "out") == []


# --------------------------------------------------------------------------------------------
# --config: the same checks and messages as apc validate; FIFOs and huge files


def config_errors(work: Path, config: Path) -> tuple[str, str]:
    validate = one_error_line(apc("validate", "proj", "--config", config, cwd=work))
    repair = one_error_line(
        apc("repair", "h.json", "-o", "out/x.json", "--config", config, cwd=work)
    )
    assert not (work / "out" / "x.json").exists()
    return validate, repair


def test_config_missing_and_invalid_as_validate_says(work: Path) -> None:
    validate, repair = config_errors(work, Path("missing.yaml"))
    assert validate == repair and "missing.yaml" in repair
    (work / "bad.yaml").write_text("version: 9\n")
    validate, repair = config_errors(work, Path("bad.yaml"))
    assert validate == repair and "bad.yaml" in repair


def test_config_fifo_is_refused_without_hanging(work: Path) -> None:
    os.mkfifo(work / "cfg.yaml")
    validate, repair = config_errors(work, Path("cfg.yaml"))
    assert validate == repair and "not a regular file" in repair


def test_config_of_200_mb_is_refused_unread(work: Path) -> None:
    huge = work / "huge.yaml"
    with huge.open("wb") as fh:
        fh.truncate(200 * 1024 * 1024)  # sparse: no disk used
    validate, repair = config_errors(work, huge.relative_to(work))
    assert validate == repair and "larger than" in repair


def test_config_applies_to_repair_findings(work: Path) -> None:
    (work / "off.yaml").write_text("version: 1\ndisable: [RPR001]\n")
    off = apc("repair", "h.json", "-o", "out/x.json", "--config", "off.yaml", cwd=work)
    assert off.returncode == 0 and b"RPR001" not in off.stdout, off.stderr
    assert closed(json.loads((work / "out" / "x.json").read_text()))
    (work / "error.yaml").write_text("version: 1\nseverity: {RPR001: error}\n")
    loud = apc("repair", "h.json", "-o", "out/y.json", "--config", "error.yaml", cwd=work)
    assert loud.returncode == 1 and b"error RPR001" in loud.stdout


def test_policy_error_never_says_line_none(work: Path) -> None:
    (work / "nul.yaml").write_bytes(b"version: 1\n\x00\n")
    validate, repair = config_errors(work, Path("nul.yaml"))
    assert "line None" not in validate + repair


# --------------------------------------------------------------------------------------------
# H4: every apc: error line is escaped


def test_h4_duplicate_key_cannot_inject_a_workflow_command(work: Path) -> None:
    key = '"a\\n::error file=AGENTS.md,line=1::INJECTED"'
    (work / "proj" / ".apc-tools.yaml").write_text(f"version: 1\n{key}: 1\n{key}: 2\n")
    validate = apc("validate", "proj", "--format", "github", cwd=work)
    config = Path("proj/.apc-tools.yaml")
    repair = apc("repair", "h.json", "-o", "out/x.json", "--config", config, cwd=work)
    for done in (validate, repair):
        err = one_error_line(done)
        assert "duplicate key 'a\\x0a::error file=AGENTS.md,line=1::INJECTED'" in err
        assert not any(line.startswith("::") for line in err.splitlines())


def test_h4_hostile_file_name_in_an_error_line(work: Path) -> None:
    name = "x\n::error::boom\x1b]0;t\x07.json"
    done = apc("repair", name, "-o", "out/x.json", cwd=work)
    err = one_error_line(done)
    assert "\\x0a::error::boom\\x1b]0;t\\x07" in err and "\x1b" not in err


def test_click_usage_errors_are_escaped_too(work: Path) -> None:
    hostile = "d\n::error::x\x1b[31m"
    (work / hostile).mkdir()
    for args in (["repair", hostile], ["repair", "h.json", "--format", hostile], [hostile]):
        done = apc(*args, cwd=work)
        err = done.stderr.decode()
        assert done.returncode == 2 and "Error:" in err, err
        assert "\x1b" not in err and not any(x.startswith("::") for x in err.splitlines())
