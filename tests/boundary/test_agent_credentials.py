"""Issue 29 rule 4: credentials of agent tools are secrets wherever the tool keeps them.

OAuth credential files are known by their shape, whatever the token looks like: a token with
its expiry (Gemini CLI and Qwen Code's ``oauth_creds.json``: ``access_token``,
``refresh_token``, ``expiry_date``, qwen-code@013e660 packages/core/src/config/storage.ts
OAUTH_FILE; the shape of digen21/qwen-hack@204bdb3), an ``oauth_token`` under a host key
(GitHub Copilot's ``hosts.json`` / ``apps.json``, the shape of Albrtito/dotfiles@a56f22d), an
``accessToken`` beside a tenant URL (Augment's ``session.json``, pratikmankawde/Storyteller
@9a95398). Token formats: GitHub ``gho_``/``ghu_`` in tool configs, Amp's ``sgamp_`` keys under
a key name holding a URL (``"apiKey@https://ampcode.com/"``, hackclub/club-dashboard@bd17989),
Google OAuth ``ya29.``/``1//`` tokens, model provider keys (``hf_``, ``gsk_``). Every file of a
committed home folder (its shared settings too) and every agent-tool config is scanned by
default. A sequential placeholder in documentation (``sk-1234567890abcdef...``) is no secret.
Every token is made at test time; each secret case has a clean twin that passes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apc_tools.findings import Severity
from tests.boundary.helpers import commit, findings, remove, repo, token


def _errors(tmp_path: Path, files: dict[str, str | bytes], **options: object) -> set[str]:
    found = findings(repo(tmp_path, files), **options)
    return {f.path for f in found if f.rule == "BSC001" and f.severity is Severity.ERROR}


def _hex(length: int, seed: int) -> str:
    return token("", length, seed=seed).lower().encode().hex()[:length]


OAUTH_SECRET = {
    "access_token": token("", 86, seed=31),
    "token_type": "Bearer",
    "refresh_token": token("", 86, seed=32),
    "resource_url": "portal.qwen.ai",
    "expiry_date": 1775511001480,
}
OAUTH_DOC = {**OAUTH_SECRET, "access_token": "<ACCESS_TOKEN>", "refresh_token": "${REFRESH}"}
HOSTS = {"github.com": {"user": "someone", "oauth_token": _hex(40, 33)}}
HOSTS_DOC = {"github.com": {"user": "someone", "oauth_token": "YOUR_OAUTH_TOKEN"}}
AUGMENT = {"accessToken": _hex(64, 34), "tenantURL": "https://d2.api.augmentcode.com/"}
AUGMENT_DOC = {"accessToken": "<token>", "tenantURL": "https://d2.api.augmentcode.com/"}

# (path, secret content, clean twin): each an agent-tool credential store or config, scanned
# by default; the values that carry no known token format are caught by the file's shape.
CASES = [
    ("tools/qwen/oauth_creds.json", json.dumps(OAUTH_SECRET), json.dumps(OAUTH_DOC)),
    ("setup/github-copilot/hosts.json", json.dumps(HOSTS), json.dumps(HOSTS_DOC)),
    (
        "cfg/github-copilot/apps.json",
        json.dumps({"github.com:Iv1.b507a08c87ecfe98": {"oauth_token": token("ghu_", 36, 35)}}),
        json.dumps({"github.com:Iv1.b507a08c87ecfe98": {"oauth_token": "${GH_TOKEN}"}}),
    ),
    ("backup/.augment/session.json", json.dumps(AUGMENT), json.dumps(AUGMENT_DOC)),
    (
        "home/.local/share/amp/secrets.json",
        json.dumps({"apiKey@https://ampcode.com/": token("sgamp_user_01J", 70, 36)}),
        json.dumps({"apiKey@https://ampcode.com/": "${AMP_API_KEY}"}),
    ),
    (
        ".crush.json",
        json.dumps({"providers": {"hf": {"api_key": token("hf_", 34, 37)}}}),
        json.dumps({"providers": {"hf": {"api_key": "$HF_TOKEN"}}}),
    ),
    (
        ".copilot/config.json",
        json.dumps({"copilot_tokens": {"https://github.com:u": token("gho_", 36, 38)}}),
        json.dumps({"trusted_folders": []}),
    ),
    (
        ".qwen/settings.json",
        json.dumps({"security": {"auth": {"apiKey": token("gsk_", 52, 39)}}}),
        json.dumps({"security": {"auth": {"apiKey": "${GROQ_API_KEY}"}}}),
    ),
]


@pytest.mark.parametrize(("path", "secret", "clean"), CASES, ids=[c[0] for c in CASES])
def test_agent_credentials_are_secrets_by_default(
    tmp_path: Path, path: str, secret: str, clean: str
) -> None:
    assert _errors(tmp_path, {path: secret}) == {path}
    assert _errors(tmp_path / "twin", {path: clean}) == set()


def test_an_oauth_shape_is_a_secret_in_any_file_with_secrets_all(tmp_path: Path) -> None:
    files = {"fixtures/google-login.json": json.dumps(OAUTH_SECRET)}
    assert _errors(tmp_path, files, secrets="all") == {"fixtures/google-login.json"}
    twin = {"fixtures/google-login.json": json.dumps(OAUTH_DOC)}
    assert _errors(tmp_path / "t", twin, secrets="all") == set()


def test_a_key_name_holding_a_url_with_any_value(tmp_path: Path) -> None:
    """No known format, judged by its name ("apiKey@https://...", the generic keyword rule)."""
    value = "Zx8Qp2Lm9Vn4Rt7Wk3Hs6Jd1Fg5Bc0Ny"
    files = {"notes/keys.json": json.dumps({"apiKey@https://models.example.net/v1": value})}
    assert _errors(tmp_path, files, secrets="all") == {"notes/keys.json"}
    twin = {"notes/keys.json": json.dumps({"apiKey@https://models.example.net/v1": "${KEY}"})}
    assert _errors(tmp_path / "t", twin, secrets="all") == set()


def test_google_oauth_tokens_by_format(tmp_path: Path) -> None:
    text = f"refresh: 1//0{token('', 60, 41)}\naccess: ya29.{token('', 120, 42)}\n"
    assert _errors(tmp_path, {"ops/login.txt": text}, secrets="all") == {"ops/login.txt"}
    twin = "refresh: 1//0<your refresh token>\naccess: ya29.<access token>\n"
    assert _errors(tmp_path / "t", {"ops/login.txt": twin}, secrets="all") == set()
    # base64 that happens to hold "/1//0" (a recorded video in an SDK cassette: pydantic-ai)
    video = f"data: {token('', 40, 44)}/1//0{token('', 60, 45)}+{token('', 40, 46)}==\n"
    assert _errors(tmp_path / "v", {"cassettes/video.yaml": video}, secrets="all") == set()


def test_every_file_of_a_home_folder_is_scanned_for_secrets(tmp_path: Path) -> None:
    """A home's shared settings are not runtime state, but a key pasted there is a secret: the
    settings.json of a home (known by its oauth_creds.json) is scanned by default; the same
    file outside a home is not agent configuration and is scanned only with --secrets all."""
    settings = json.dumps({"provider": {"api_key": "Zx8Qp2Lm9Vn4Rt7Wk3Hs6Jd1Fg5Bc0Ny"}})
    home = {".newagent/settings.json": settings, ".newagent/oauth_creds.json": "{}\n"}
    assert _errors(tmp_path, home) == {".newagent/settings.json"}
    alone = {".newagent/settings.json": settings}
    assert _errors(tmp_path / "t", alone) == set()


SEQUENTIAL = [
    "sk-1234567890abcdef1234567890abcdef",
    "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789",
    "ghp_1234567890abcdefghijklmnopqrstuvwxyz",
]


@pytest.mark.parametrize("placeholder", SEQUENTIAL)
def test_a_sequential_placeholder_in_docs_is_no_secret(tmp_path: Path, placeholder: str) -> None:
    doc = f"Never hard-code the key:\n\n    OPENAI_API_KEY={placeholder}\n"
    files = {"docs/setup.md": doc, "AGENTS.md": f"# Agents\n\nkey = {placeholder}\n"}
    assert _errors(tmp_path, files, secrets="all") == set()
    real = token(placeholder.split("_")[0] + "_" if "_" in placeholder else "sk-proj-", 40, 43)
    files = {"docs/setup.md": doc.replace(placeholder, real)}
    assert _errors(tmp_path / "t", files, secrets="all") == {"docs/setup.md"}


@pytest.mark.parametrize("mode", ["tracked", "history"])
def test_the_cached_verdict_knows_whether_the_file_is_in_a_home(
    tmp_path: Path, xdg: Path, mode: str
) -> None:
    """The same settings.json (same blob, same path) is scanned for secrets inside a home and
    not outside one: the result cache keys the verdict on that, so removing the home's mark
    is seen by a warm run (and adding it back too)."""
    settings = json.dumps({"provider": {"api_key": "Zx8Qp2Lm9Vn4Rt7Wk3Hs6Jd1Fg5Bc0Ny"}})
    root = repo(tmp_path, {".newagent/settings.json": settings, "src/a.py": "x = 1\n"})
    assert _bsc(root, mode) == set()
    commit(root, {".newagent/oauth_creds.json": "{}\n"})
    assert _bsc(root, mode) == {".newagent/settings.json"}
    remove(root, ".newagent/oauth_creds.json")
    assert _bsc(root, "tracked") == set()


def _bsc(root: Path, mode: str) -> set[str]:
    return {f.path for f in findings(root, mode=mode) if f.rule == "BSC001"}
