"""BSC: API keys and tokens, with the shared secret detectors.

Scanned in contract files, in agent-tool configuration (:data:`AGENT_CONFIG`: the files agents
read at run time, where keys get pasted: Continue's config, `.mcp.json` and the other MCP
server lists, `.claude/settings*.json`, `.codex/auth.json`, ...), in every blob another detector
flagged (a session, a runtime path), and in every text blob with ``--secrets all`` (the
policy's ``boundary.secrets``). In agent configuration the values of an MCP server's ``env``
and ``headers`` blocks are also judged by their name (``"BRAVE_API_KEY": "<literal>"``). The
message names the detector and shows at most a public token prefix: never the secret.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from apc_tools.boundary import escapes, paths
from apc_tools.boundary.model import BlobView, Detection, rule
from apc_tools.core import detect
from apc_tools.findings import Severity

SECRET = rule(
    "BSC001",
    "committed-secret",
    Severity.ERROR,
    "An API key, token, private key or password (or an OAuth credential file known by its "
    "shape: a token with its expiry, an `oauth_token` under a host key, an `accessToken` with "
    "a tenant URL) in a contract file, in agent-tool configuration (`.mcp.json`, "
    "`.continue/config.*`, `.claude/settings*.json`, `oauth_creds.json`, "
    "`github-copilot/hosts.json`, ...), in any file of a committed agent home folder or one "
    "another boundary rule flags, or (with `--secrets all`) in any committed file.",
    "A committed secret is leaked to everyone who can read the repository and its history. "
    "Revoke and rotate it first, then remove it (`git rm --cached`, or edit the file) and, if "
    "it was pushed, rewrite the branch. Reference secrets by name (`${env:API_KEY}`).",
    'env: {"API_KEY": "${env:API_KEY}"}',
    'env: {"API_KEY": "sk-proj-<48 random characters>"}',
)
RULES = (SECRET,)

# Agent-tool configuration, always scanned for secrets (case-folded globs, like the path rules).
_CONFIG = "agent configuration"
AGENT_CONFIG: tuple[paths.PathRule, ...] = tuple(
    paths.PathRule(glob, tool, _CONFIG)
    for glob, tool in (
        ("**/.continue/config.json", "Continue"),
        ("**/.continue/config.yaml", "Continue"),
        ("**/.continue/config.yml", "Continue"),
        ("**/.continue/*/*.yaml", "Continue"),  # hub blocks: models/, mcpServers/, assistants/
        ("**/.continue/*/*.json", "Continue"),
        ("**/.codex/auth.json", "Codex"),
        ("**/.codex/config.toml", "Codex"),
        ("**/.claude.json", "Claude Code"),
        ("**/.claude/settings*.json", "Claude Code"),
        ("**/.mcp.json", "Claude Code"),
        ("**/.cursor/mcp.json", "Cursor"),
        ("**/.vscode/mcp.json", "VS Code"),
        ("**/.gemini/settings.json", "Gemini CLI"),
        ("**/opencode.json", "OpenCode"),
        ("**/opencode.jsonc", "OpenCode"),
        ("**/.roo/mcp.json", "Roo Code"),
        ("**/cline_mcp_settings.json", "Cline"),
        ("**/.kiro/settings/mcp.json", "Kiro"),
        ("**/.amazonq/mcp.json", "Amazon Q"),
        ("**/claude_desktop_config.json", "Claude Desktop"),
        ("**/.windsurf/mcp_config.json", "Windsurf"),
        ("**/.codeium/windsurf/mcp_config.json", "Windsurf"),
        # Agent tools' credential stores and the configs keys get pasted into (issue 29).
        ("**/oauth_creds.json", "Gemini CLI / Qwen Code"),
        ("**/mcp-oauth-tokens.json", "Gemini CLI / Qwen Code"),
        ("**/.qwen/settings.json", "Qwen Code"),
        ("**/.gemini/antigravity/mcp_config.json", "Antigravity"),
        ("**/.crush.json", "Crush"),
        ("**/crush.json", "Crush"),
        ("**/.copilot/config.json", "GitHub Copilot CLI"),
        ("**/.copilot/settings.json", "GitHub Copilot CLI"),
        ("**/.copilot/mcp-config.json", "GitHub Copilot CLI"),
        ("**/github-copilot/*.json", "GitHub Copilot"),
        ("**/.augment/session.json", "Augment Auggie"),
        ("**/.augment/settings.json", "Augment Auggie"),
        ("**/amp/secrets.json", "Amp"),
        ("**/amp/settings.json", "Amp"),
        ("**/opencode/auth.json", "OpenCode"),
        ("**/.claude-code-router/config.json", "Claude Code Router"),
    )
)
CONFIG_TABLE = paths.compile_table(AGENT_CONFIG)


# The generic keyword rule (and the named values of agent configuration) has no literal it
# cannot match without: the prefilter is off where secrets are scanned (contract files, agent
# configuration, flagged paths, every blob with ``--secrets all``).
NEEDLES: tuple[bytes, ...] | None = None


def is_agent_config(low: str) -> bool:
    """Is the case-folded path ``low`` a file of agent-tool configuration?"""
    return paths.match_table(CONFIG_TABLE, low) is not None


# "Authorization: Bearer <token>" and "bearer <token>": gated by randomness, so an example
# ("Bearer YOUR_TOKEN", "Bearer <token>", "Bearer ${TOKEN}") never counts.
BEARER = re.compile(r"(?i)\bbearer[ \t]+([A-Za-z0-9._~+/=-]{20,400})(?![A-Za-z0-9._~+/=-])")


# A keyword rule hit whose key names a digest ("tracing_api_key_hash": "<sha256>") is a hash of
# a secret, not the secret: real SDK fixtures carry such digests.
DIGEST_KEY = re.compile(
    r"(?i)(?:hash|digest|checksum|sha\d*|fingerprint|etag)[\"'`]?[ \t]*[:=][ \t]*[\"'`]?\Z"
)


def _what(detector: str) -> str:
    if detector == "bearer-token":
        return "a bearer token"
    if detector.startswith("shape:"):
        return detector[len("shape:") :]
    return detect.describe(detector)


def _digest(text: str, hit: detect.Hit) -> bool:
    return hit.detector == "generic-secret" and bool(
        DIGEST_KEY.search(text, max(0, hit.start - 80), hit.start)
    )


def _bearer(text: str) -> Iterator[detect.Hit]:
    if "earer" not in text:
        return
    for found in BEARER.finditer(text):
        value = found.group(1)
        if detect.looks_random(value, min_length=20):
            yield detect.Hit("bearer-token", found.start(1), found.end(1))


JSON_SUFFIXES = frozenset((".json", ".jsonl", ".jsonc", ".json5", ".ndjson"))

# The blocks of an MCP server (or a tool's own config) whose values are credentials by name.
ENV_BLOCKS = frozenset({"env", "environment", "headers", "http_headers", "env_vars"})
_MAX_NODES = 5000


def _named_values(value: Any) -> Iterator[tuple[str, str]]:
    """(name, value) of every string in an ``env``/``headers`` block of a parsed config
    (bounded: at most :data:`_MAX_NODES` values are visited)."""
    queue: list[tuple[Any, bool]] = [(value, False)]
    for seen, (node, in_block) in enumerate(queue):
        if seen > _MAX_NODES:
            return
        if isinstance(node, dict):
            for key, child in node.items():
                if in_block and isinstance(child, str):
                    yield str(key), child
                elif isinstance(child, dict | list):
                    queue.append((child, str(key).casefold() in ENV_BLOCKS))
        elif isinstance(node, list):
            queue.extend((child, False) for child in node if isinstance(child, dict | list))


def _parsed(text: str) -> Any:
    """The JSON document ``text`` (None when it is not one: nothing is found in it)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _config_hits(text: str, undone: escapes.Unescaped | None) -> Iterator[tuple[detect.Hit, str]]:
    """Literal credentials in the env/headers blocks of a JSON agent config (by name)."""
    if not any(f'"{key}"' in text for key in ENV_BLOCKS):
        return
    for name, value in _named_values(_parsed(text)):
        why = detect.literal_secret(name, value)
        if why is None:
            continue
        quoted = json.dumps(value)[1:-1]
        at = text.find(quoted)
        if at >= 0:
            yield detect.Hit(why, at, at + len(quoted)), quoted
        elif undone is not None and (at := undone.text.find(value)) >= 0:  # written escaped
            yield detect.Hit(why, *undone.original(at, at + len(value))), value


def _escaped_hits(undone: escapes.Unescaped | None) -> Iterator[tuple[detect.Hit, str]]:
    """Secrets that only the JSON-unescaped text shows (one spans a decoded escape), at their
    raw offsets, with the decoded value."""
    if undone is None:
        return
    text = undone.text
    found = [h for h in detect.find_secrets(text) if not _digest(text, h)]
    for hit in [*found, *_bearer(text)]:
        if undone.covers_escape(hit.start, hit.end):
            start, end = undone.original(hit.start, hit.end)
            yield detect.Hit(hit.detector, start, end), text[hit.start : hit.end]


# OAuth credential files by shape, whatever tool wrote them: a token beside its expiry
# (Gemini CLI and Qwen Code's oauth_creds.json: access_token, refresh_token, expiry_date), an
# oauth_token under a host key (GitHub Copilot's hosts.json / apps.json: {"github.com":
# {"oauth_token": ...}}), an accessToken beside a tenant URL (Augment's session.json).
TOKEN_KEYS = frozenset(
    {"access_token", "refresh_token", "accesstoken", "refreshtoken", "id_token", "idtoken"}
)
EXPIRY_KEYS = frozenset(
    {
        "expiry",
        "expiry_date",
        "expirydate",
        "expires",
        "expires_at",
        "expiresat",
        "expires_in",
        "expiresin",
        "expiration",
        "token_expiry",
    }
)
TENANT_KEYS = frozenset({"tenanturl", "tenant_url"})
_SHAPE_WORDS = ("access_token", "refresh_token", "accessToken", "refreshToken", "oauth_token")
_SHAPE_MAX = 1 << 20  # characters of a document parsed for its shape


def _credential_values(value: Any) -> Iterator[tuple[str, str]]:
    """(what, token) for each token of an OAuth credential shape in a parsed JSON document
    (bounded: at most :data:`_MAX_NODES` containers are visited)."""
    queue: list[tuple[Any, str]] = [(value, "")]
    for seen, (node, key) in enumerate(queue):
        if seen > _MAX_NODES:
            return
        if isinstance(node, list):
            queue.extend((c, key) for c in node if isinstance(c, dict | list))
            continue
        if not isinstance(node, dict):
            continue
        names = {str(k).casefold(): k for k in node}
        strings = {n: node[k] for n, k in names.items() if isinstance(node[k], str)}
        tokens = [n for n in strings if n in TOKEN_KEYS]
        if tokens and (EXPIRY_KEYS & names.keys() or len(tokens) > 1):
            yield from (("OAuth credentials (a token with its expiry)", strings[n]) for n in tokens)
        elif "accesstoken" in strings and TENANT_KEYS & names.keys():
            yield "a session token with its tenant URL", strings["accesstoken"]
        if "oauth_token" in strings and ("." in key or ":" in key):
            yield f"an OAuth token under the host key {key!r}", strings["oauth_token"]
        queue.extend((c, str(k)) for k, c in node.items() if isinstance(c, dict | list))


def _shape_hits(text: str) -> Iterator[detect.Hit]:
    """Tokens of OAuth credential files, judged by the document's shape, not their format."""
    if len(text) > _SHAPE_MAX or not any(w in text for w in _SHAPE_WORDS):
        return
    for what, value in _credential_values(_parsed(text)):
        if len(value) < 16 or detect.is_placeholder(value) or detect.is_sequential(value):
            continue
        quoted = json.dumps(value)[1:-1]
        at = text.find(quoted)
        if at >= 0:
            yield detect.Hit(f"shape:{what}", at, at + len(quoted))


def detect_secrets(blob: BlobView, config: bool = False) -> Iterator[Detection]:
    """BSC001 for each secret in the blob; ``config``: a file of :data:`AGENT_CONFIG`."""
    if blob.binary:
        return
    text = blob.text
    hits = [h for h in detect.find_secrets(text) if not _digest(text, h)]
    taken = [(h.start, h.end) for h in hits]
    hits += [h for h in _bearer(text) if not any(s < h.end and h.start < e for s, e in taken)]
    # JSON string escapes decoded (issue 30 item 16): a JSON file whole, other text near \u, \/
    whole = config or blob.suffix in JSON_SUFFIXES
    parts = escapes.windows(text, whole)
    undone = parts[0][1] if whole and parts else None
    decoded: dict[int, str] = {}
    for offset, part in parts:
        for found, value in _escaped_hits(part):
            hit = detect.Hit(found.detector, found.start + offset, found.end + offset)
            if not any(s < hit.end and hit.start < e for s, e in ((h.start, h.end) for h in hits)):
                hits.append(hit)
                decoded[hit.start] = value
    if config:
        taken = [(h.start, h.end) for h in hits]
        for hit, value in _config_hits(text, undone):
            if not any(s < hit.end and hit.start < e for s, e in taken):
                hits.append(hit)
                decoded[hit.start] = value
    taken = [(h.start, h.end) for h in hits]
    hits += [h for h in _shape_hits(text) if not any(s < h.end and h.start < e for s, e in taken)]
    for hit in sorted(hits, key=lambda h: h.start):
        value = decoded.get(hit.start) or text[hit.start : hit.end]
        shown = detect.hint(hit.detector, value)
        what = _what(hit.detector)
        hint = f' ("{shown}")' if shown else ""
        where = " in agent configuration" if config else ""
        message = f"{what}{hint}{where}: revoke and rotate it, then remove it from the repository"
        yield blob.detection(SECRET, message, hit.start, value)
