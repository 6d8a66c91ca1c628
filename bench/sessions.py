"""Benchmark `apc repair` on a Claude Code session against a plain JSON round trip of it.

Generates a Claude Code project session (``--records`` JSONL records, default 100,000: user
prompts, assistant text, one record per ``tool_use`` block, ``tool_result`` records, progress
and file-history-snapshot records, all chained by ``parentUuid``) ending with an unanswered call
(the crash case), then times, each in its own process, best of ``--repeat``:

* ``apc repair FILE -o OUT`` (the whole process: start, fingerprint, read, plan, write);
* plain: a line-by-line ``json.loads`` / ``json.dumps`` copy of the same file.

Target: apc <= 2x plain (wall and CPU).

    python bench/sessions.py                    # 100k records
    python bench/sessions.py --records 10000    # quick
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from installed import compile_apc
from repair import PLAIN_JSONL, best

ENVELOPE = {
    "isSidechain": False,
    "userType": "external",
    "cwd": "/home/dev/project",
    "sessionId": "0b5e3c0a-2f7e-4c51-9a43-7d1f5f0e9a11",
    "version": "2.0.64",
    "gitBranch": "main",
}


def _record(kind: str, uuid: str, parent: str | None, message: dict[str, Any]) -> dict[str, Any]:
    return {
        "parentUuid": parent,
        **ENVELOPE,
        "type": kind,
        "message": message,
        "uuid": uuid,
        "timestamp": "2026-01-01T10:00:00.000Z",
    }


def records(count: int) -> Iterator[dict[str, Any]]:
    """A chained session of ``count`` records whose last record is an unanswered tool_use."""
    parent: str | None = None
    made = turn = 0
    while made < count - 1:
        turn += 1
        uid = f"u-{turn}"
        batch: list[dict[str, Any]] = [
            {"type": "file-history-snapshot", "messageId": uid, "snapshot": {}},
            _record("user", uid, parent, {"role": "user", "content": f"step {turn}: fix it"}),
        ]
        parent = uid
        for n in range(2):
            call = f"toolu_{turn}_{n}"
            a = _record(
                "assistant",
                f"a-{turn}-{n}",
                parent,
                {
                    "id": f"msg_{turn}",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [
                        {"type": "tool_use", "id": call, "name": "Read", "input": {"path": "a"}}
                    ],
                    "stop_reason": "tool_use",
                    "usage": {"input_tokens": 10, "output_tokens": 5},
                },
            )
            r = _record(
                "user",
                f"r-{turn}-{n}",
                a["uuid"],
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": call, "content": "x" * 80}],
                },
            )
            batch += [a, r]
            parent = r["uuid"]
        for record in batch:
            if made == count - 1:
                break
            made += 1
            yield record
    yield _record(
        "assistant",
        "a-last",
        parent,
        {
            "id": "msg_last",
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "toolu_last", "name": "Bash", "input": {"command": "ls"}}
            ],
        },
    )


def generate(folder: Path, count: int) -> Path:
    path = folder / f"session-{count}.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for record in records(count):
            fh.write(json.dumps(record, separators=(",", ":")) + "\n")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    compile_apc()
    with tempfile.TemporaryDirectory(prefix="apc-bench-sessions-") as tmp:
        folder = Path(tmp)
        source = generate(folder, args.records)
        out = folder / "out.jsonl"
        plain = best(
            [sys.executable, "-c", PLAIN_JSONL, str(source), str(out)], args.repeat, folder
        )
        apc = best(
            [sys.executable, "-m", "apc_tools", "repair", str(source), "-o", str(out)],
            args.repeat,
            folder,
        )
        added = out.read_bytes()[source.stat().st_size :]
        size = source.stat().st_size / 2**20
    assert b"toolu_last" in added, "the dangling call was not closed"
    print(f"{args.records:,} records, {size:.1f} MiB")
    print(f"plain: {plain[0]:.2f}s wall, {plain[1]:.2f}s cpu, {plain[2]:.0f}MB")
    print(f"apc:   {apc[0]:.2f}s wall, {apc[1]:.2f}s cpu, {apc[2]:.0f}MB")
    print(f"apc/plain: wall {apc[0] / plain[0]:.2f}x, cpu {apc[1] / plain[1]:.2f}x (target <= 2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
