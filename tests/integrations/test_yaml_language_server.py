"""The `$schema` line `apc init` writes resolves in a real editor's language server (issue 17:
it named a URL that does not resolve, so editors showed an error on line 1).

The YAML language server (npm `yaml-language-server`, what VS Code's YAML extension, Neovim and
Helix run) is installed once into a cache outside the checkout (keyed by version, like the click
folders of tests/cli/test_click_versions.py) and driven over stdio with the Language Server
Protocol: it opens the `.apc-tools.yaml` that `apc init` wrote and publishes its diagnostics.
No network is used but the npm registry for the install; the schema store is off.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest

from apc_tools.contract.scaffold import SCHEMA_COPY, init_project
from tests.cli.test_click_versions import cache_root

VERSION = "2.0.0"
TIMEOUT = 60.0


def server_script() -> Path:
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("node and npm are needed for the YAML language server")
    folder = cache_root() / f"yaml-language-server-{VERSION}"
    script = folder / "node_modules" / "yaml-language-server" / "bin" / "yaml-language-server"
    if script.is_file():
        return script
    folder.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=".yls-", dir=folder.parent))
    npm = ["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(partial)]
    done = subprocess.run(
        [*npm, f"yaml-language-server@{VERSION}"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"npm could not install yaml-language-server:\n{done.stderr}"
    try:
        partial.rename(folder)
    except OSError:
        shutil.rmtree(partial, ignore_errors=True)
    return script


class Server:
    """A yaml-language-server process and just enough of a client to open documents."""

    SETTINGS: ClassVar[dict[str, Any]] = {"validate": True, "schemaStore": {"enable": False}}

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen(
            ["node", str(server_script()), "--stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 1
        self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "capabilities": {"workspace": {"configuration": True}},
            },
        )
        self.notify("initialized", {})
        self.notify("workspace/didChangeConfiguration", {"settings": {"yaml": self.SETTINGS}})

    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            length = 0
            while (line := stream.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if not line:
                return
            self.inbox.put(json.loads(stream.read(length)))

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self._send({"method": method, "params": params})

    def request(self, method: str, params: dict[str, Any]) -> Any:
        ident = self.next_id
        self.next_id += 1
        self._send({"id": ident, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == ident and "method" not in m).get("result")

    def wait(self, wanted: Any) -> dict[str, Any]:
        """The next message ``wanted`` accepts, answering the server's own requests meanwhile."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            message = self.inbox.get(timeout=max(0.0, deadline - time.monotonic()))
            if "method" in message and "id" in message:  # a request from the server
                result: Any = None
                if message["method"] == "workspace/configuration":
                    items = message["params"]["items"]
                    result = [self.SETTINGS if i.get("section") == "yaml" else None for i in items]
                self._send({"id": message["id"], "result": result})
                continue
            if wanted(message):
                return message

    def diagnostics(self, path: Path) -> list[dict[str, Any]]:
        uri = path.as_uri()
        self.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": uri,
                    "languageId": "yaml",
                    "version": 1,
                    "text": path.read_text(encoding="utf-8"),
                }
            },
        )
        found = self.wait(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
            )
        )
        return found["params"]["diagnostics"]  # type: ignore[no-any-return]

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()


@pytest.fixture
def server(tmp_path: Path) -> Any:
    started = Server(tmp_path)
    yield started
    started.close()


def test_the_policy_apc_init_writes_validates_against_its_schema(
    tmp_path: Path, server: Server
) -> None:
    clean, broken, orphan = (tmp_path / name for name in ("clean", "broken", "orphan"))
    for root in (clean, broken, orphan):
        init_project(root)
    with (broken / ".apc-tools.yaml").open("a", encoding="utf-8") as policy:
        policy.write("strict: sometimes\nnot_a_key: 1\n")
    (orphan / SCHEMA_COPY).unlink()

    assert server.diagnostics(clean / ".apc-tools.yaml") == []
    messages = [d["message"] for d in server.diagnostics(broken / ".apc-tools.yaml")]
    assert any("not_a_key" in m and "not allowed" in m for m in messages), messages
    assert any("boolean" in m.lower() for m in messages), messages  # strict: true or false
    missing = [d["message"] for d in server.diagnostics(orphan / ".apc-tools.yaml")]
    assert any(SCHEMA_COPY in m for m in missing), missing  # the test can fail: no schema file
