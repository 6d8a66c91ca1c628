#!/usr/bin/env python3
"""`apc lsp`: the time to the ``initialize`` answer, and from a change to its diagnostics, on the
1,696-file benchmark corpus (the tree bench/validate_corpus.py stages).

A real client (pygls's LanguageClient) starts ``python -m apc_tools lsp`` over stdio, with its
own ``XDG_CACHE_HOME`` (the user's cache is never used):

* **initialize**: from the spawn of the process to the ``initialize`` answer, ``--starts``
  times (each a new process), in an empty folder;
* **first open**: the staged tree is the workspace folder; one file is opened and the time to
  its first diagnostics is the cold validation of the whole tree (the cache empty);
* **change**: ``--changes`` edits, each a full-document ``didChange`` of one of a few agent,
  skill, Cursor rule and AGENTS.md files (open in the editor), alternating between two texts
  with different findings; the time is from the notification sent to the
  ``publishDiagnostics`` of that file at that version. The server's debounce is its default
  (``apc_tools.lsp.server.DEBOUNCE``) unless ``--debounce`` says otherwise; each change is
  sent after the previous diagnostics arrived and a pause longer than the debounce (typing
  bursts are coalesced by the debounce: one run for the burst); the server's own CPU time
  (``/proc``) per change is printed too, the figure a loaded machine changes least.

``--before DIR`` (a checkout or an unpacked copy of another apc, e.g. ``main``) measures that
build beside this one in the same run, each measure interleaved (a start of one, then of the
other; a change sent to one server, then the same change to the other), so that the machine's
load weighs on both alike; ``--rounds N`` repeats the whole measure.

Targets (issue 34): initialize <= 300 ms; change -> diagnostics p95 <= 150 ms.

    python bench/lsp_latency.py [--corpus DIR] [--starts N] [--changes N] [--debounce S]
        [--before DIR] [--rounds N] [--json OUT]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lsprotocol import types as t
from pygls.lsp.client import LanguageClient
from timing import child_env, load
from validate_corpus import DEFAULT_CORPUS, stage

ROOT = Path(__file__).resolve().parent.parent
INIT_TARGET = 0.300
CHANGE_TARGET = 0.150


class Client:
    def __init__(self) -> None:
        self.client = LanguageClient("apc-bench", "1")
        self.seen: dict[str, int | None] = {}
        self.event = asyncio.Event()

        @self.client.feature(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: t.PublishDiagnosticsParams) -> None:
            self.seen[params.uri] = params.version
            self.event.set()

    async def start(self, folder: Path, env: dict[str, str], debounce: float | None) -> float:
        """Spawn the server in ``folder`` and initialize it: the seconds to its answer."""
        started = time.perf_counter()
        await self.client.start_io(
            sys.executable, "-m", "apc_tools", "lsp", env=env, cwd=str(folder)
        )
        options = {} if debounce is None else {"debounce": debounce}
        await self.client.initialize_async(
            t.InitializeParams(
                capabilities=t.ClientCapabilities(),
                root_uri=folder.as_uri(),
                workspace_folders=[t.WorkspaceFolder(uri=folder.as_uri(), name=folder.name)],
                initialization_options=options,
            )
        )
        took = time.perf_counter() - started
        self.client.initialized(t.InitializedParams())
        return took

    async def wait(self, key: str, version: int) -> None:
        while self.seen.get(key) != version:
            self.event.clear()
            await asyncio.wait_for(self.event.wait(), 60)

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


def cpu_seconds(pid: int) -> float:
    """User + system CPU of process ``pid`` so far (Linux /proc; 0.0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pick_files(tree: Path) -> list[Path]:
    """Two files of each kind a user edits that have findings (so every change publishes):
    subagents, skills, Cursor rules, AGENTS.md."""
    sys.path.insert(0, str(ROOT))
    from apc_tools.contract.validate import validate

    found = {tree / f.path for f in validate([], cwd=tree).findings}
    kinds = [
        sorted(tree.glob("*/.claude/agents/*.md")),
        sorted(tree.glob("*/.claude/skills/*/SKILL.md")),
        sorted(tree.glob("*/.cursor/rules/*.mdc")),
        sorted(tree.glob("**/AGENTS.md")),
    ]
    return [path for group in kinds for path in [p for p in group if p in found][:2]]


def pid_of(client: Client) -> int:
    server = client.client._server
    return server.pid if server is not None else 0


async def measure(
    tree: Path, args: argparse.Namespace, envs: dict[str, dict[str, str]]
) -> dict[str, dict[str, object]]:
    """Each build's start-ups, first open and changes, interleaved (module docstring)."""
    empty = Path(tempfile.mkdtemp(prefix="apc-lsp-empty-"))
    got: dict[str, dict[str, Any]] = {name: {"initialize": [], "changes": []} for name in envs}
    for _ in range(args.starts):
        for name, env in envs.items():
            client = Client()
            got[name]["initialize"].append(await client.start(empty, env, args.debounce))
            await client.stop()

    files = pick_files(tree)
    texts = {p: p.read_text(encoding="utf-8") for p in files}
    clients: dict[str, Client] = {}
    for name, env in envs.items():  # one after the other: the first open validates the tree
        client = clients[name] = Client()
        await client.start(tree, env, args.debounce)
        first = time.perf_counter()
        for path in files:
            client.client.text_document_did_open(
                t.DidOpenTextDocumentParams(
                    t.TextDocumentItem(path.as_uri(), "markdown", 1, texts[path])
                )
            )
        await client.wait(files[0].as_uri(), 1)
        got[name]["first_open"] = time.perf_counter() - first
    await asyncio.sleep(1.0)
    pause = max(0.1, 2 * (args.debounce if args.debounce is not None else 0.05))
    cpu_before = {name: cpu_seconds(pid_of(client)) for name, client in clients.items()}
    for index in range(args.changes):
        path = files[index % len(files)]
        version = 2 + index // len(files)
        # a line added at the end, then removed: what typing does to the buffer
        text = texts[path] + ("\nA new line.\n" if index % 2 == 0 else "")
        for name, client in clients.items():
            sent = time.perf_counter()
            client.client.text_document_did_change(
                t.DidChangeTextDocumentParams(
                    t.VersionedTextDocumentIdentifier(version=version, uri=path.as_uri()),
                    [t.TextDocumentContentChangeWholeDocument(text=text)],
                )
            )
            await client.wait(path.as_uri(), version)
            got[name]["changes"].append(time.perf_counter() - sent)
            await asyncio.sleep(pause)
    for name, client in clients.items():
        spent = cpu_seconds(pid_of(client)) - cpu_before[name]
        got[name]["cpu_per_change"] = spent / max(1, args.changes)
        await client.stop()
    return got


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def report(name: str, got: dict[str, Any]) -> None:
    starts, changes = got["initialize"], got["changes"]
    init_median, init_p95 = statistics.median(starts), quantile(starts, 0.95)
    p50, p95 = quantile(changes, 0.50), quantile(changes, 0.95)
    print(f"[{name}]")
    print(
        f"  initialize: median {init_median * 1000:.0f} ms, p95 {init_p95 * 1000:.0f} ms, "
        f"max {max(starts) * 1000:.0f} ms over {len(starts)} starts "
        f"(target {INIT_TARGET * 1000:.0f} ms: {'met' if init_p95 <= INIT_TARGET else 'MISSED'})"
    )
    print(f"  first open (cold validation of the tree): {got['first_open'] * 1000:.0f} ms")
    print(
        f"  change -> diagnostics: p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
        f"max {max(changes) * 1000:.0f} ms over {len(changes)} changes "
        f"(target p95 {CHANGE_TARGET * 1000:.0f} ms: {'met' if p95 <= CHANGE_TARGET else 'MISSED'})"
    )
    print(f"  server CPU per change (user+sys): {got['cpu_per_change'] * 1000:.0f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--changes", type=int, default=60)
    parser.add_argument("--debounce", type=float, default=None)
    parser.add_argument("--before", type=Path, default=None, help="another apc's checkout")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    builds = {"this checkout": ROOT}
    if args.before is not None:
        if not (args.before / "apc_tools" / "__init__.py").is_file():
            parser.error(f"--before {args.before}: no apc_tools package there")
        builds = {"before": args.before.resolve(), "after (this checkout)": ROOT}
    rounds = []
    with tempfile.TemporaryDirectory(prefix="apc-lsp-bench-") as tmp:
        tree = Path(tmp) / "tree"
        counts = stage(args.corpus, tree)
        print(f"tree: {sum(counts.values())} files staged from {args.corpus}")
        for index in range(args.rounds):
            envs = {
                name: child_env(
                    {
                        "XDG_CACHE_HOME": str(Path(tmp) / f"xdg-{index}-{n}"),
                        "PYTHONPATH": str(root),
                        "PYTHONDONTWRITEBYTECODE": None,  # as installed: bytecode kept
                    }
                )
                for n, (name, root) in enumerate(builds.items())
            }
            before = load()
            got = asyncio.run(measure(tree, args, envs))
            after = load()
            print(f"round {index + 1}: load at start {before}; at end {after}")
            for name, one in got.items():
                report(name, one)
            rounds.append({"load": [before, after], "builds": got})
    if args.json:
        args.json.write_text(json.dumps(rounds, indent=2))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "0")
    raise SystemExit(main())
