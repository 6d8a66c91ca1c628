"""The shared content detectors: live formats found, placeholders not, never a crash.

Token-shaped strings are assembled at run time so this file itself holds no secret-looking text.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apc_tools.core import detect
from tests.conftest import CORPUS, needs_shared

R36 = "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"  # 36 mixed characters
LIVE = {
    "openai-api-key": "sk-" + "proj-" + R36 + R36,
    "anthropic-api-key": "sk-" + "ant-api03-" + R36 + R36,
    "github-token": "gh" + "p_" + R36,
    "aws-access-key-id": "AK" + "IA" + "Z7QK3LM9XW2PB4TY",
    "slack-token": "xo" + "xb-" + "123456789012-" + "aB3dE5fG7hJ9kL1m",
    "google-api-key": "AI" + "za" + R36[:35],
    "stripe-live-key": "sk" + "_live_" + R36[:24],
    "jwt": "eyJ" + "hbGciOiJIUzI1NiJ9" + ".eyJ" + "zdWIiOiIxMjM0NTY3In0" + "." + R36[:30],
}
PEM = (
    "-----BEGIN RSA " + "PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEA7Vq3m8TzB2xP4kLwNn9sYc1aRf6HhJd0uGtZeQbXyVo2iKlM\n"
    "p5rS7tU9vW1xY3zA5bC7dE9fG1hJ3kL5mN7pQ9rS1tU3vW5xY7zA9bC1dE3fG5hJ\n"
    "-----END RSA " + "PRIVATE KEY-----\n"
)
PLACEHOLDERS = [
    'API_KEY: "secret-api-key"',
    'api_key = "your-api-key-here"',
    'token: "xxx"',
    "TOKEN=<TOKEN>",
    'OPENAI_API_KEY: "${env:OPENAI_API_KEY}"',
    "password: ${DB_PASSWORD}",
    "-----BEGIN PRIVATE KEY----- ... -----END PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----\n    ...\n    -----END PRIVATE KEY-----",
    'password: "securepass123"',
    "privateKey: process.env.HEDERA_OPERATOR_KEY!,",
    "AK" + "IAIOSFODNN7EXAMPLE",
    "postgres://user:password@localhost:5432/db",
    "https://user:${DB_PASS}@db.example.com/x",
    "sk-" + "x" * 40,
    'token_endpoint: "https://slack.com/api/oauth.v2.access"',
]


@pytest.mark.parametrize("name", sorted(LIVE))
def test_live_formats_are_found_at_their_offsets(name: str) -> None:
    secret = LIVE[name]
    text = f"prefix line\nvalue = {secret} trailing\n"
    hits = detect.find_secrets(text)
    assert [(h.detector, text[h.start : h.end]) for h in hits] == [(name, secret)]
    assert detect.line_column(text, hits[0].start) == (2, 9)


def test_private_key_with_material_is_found_placeholder_is_not() -> None:
    hits = detect.find_secrets("key:\n" + PEM)
    assert [h.detector for h in hits] == ["private-key"]
    assert detect.line_column("key:\n" + PEM, hits[0].start) == (2, 1)


@pytest.mark.parametrize("text", PLACEHOLDERS)
def test_placeholders_are_not_secrets(text: str) -> None:
    assert detect.find_secrets(text) == []


def test_generic_assignment_of_random_value_is_found() -> None:
    text = 'db:\n  password: "Zq8xP2mL9vRt4kWn"\n'
    hits = detect.find_secrets(text)
    assert [(h.detector, text[h.start : h.end]) for h in hits] == [
        ("generic-secret", "Zq8xP2mL9vRt4kWn")
    ]


def test_password_in_url_is_found_and_only_the_password_is_the_hit() -> None:
    text = "DATABASE_URL=postgres://admin:" + "s3cr3tP4ss" + "@db:5432/app"
    hits = detect.find_secrets(text)
    assert [(h.detector, text[h.start : h.end]) for h in hits] == [
        ("url-credentials", "s3cr3tP4ss")
    ]


def test_specific_format_wins_over_generic_rule() -> None:
    text = f'token = "{LIVE["github-token"]}"'
    assert [h.detector for h in detect.find_secrets(text)] == ["github-token"]


def test_token_inside_a_longer_word_is_not_a_token() -> None:
    assert detect.find_secrets("xsk-" + R36 + R36) == []


def test_local_paths() -> None:
    text = "a /Users/ana/src b /home/bob/x c C:\\Users\\eve d ~/x /Users/Shared/x /usr/home/x/"
    found = [(h.detector, text[h.start : h.end]) for h in detect.find_local_paths(text)]
    assert found == [
        ("macos-home-path", "/Users/ana/"),
        ("linux-home-path", "/home/bob/"),
        ("windows-user-path", "C:\\Users\\"),
    ]


@pytest.mark.parametrize("marker", detect.MARKERS)
def test_every_marker_is_found_verbatim(marker: str) -> None:
    text = f"line one\n  {marker} and more\n"
    hits = detect.find_markers(text)
    assert [(text[h.start : h.end], detect.line_column(text, h.start)) for h in hits] == [
        (marker, (2, 3))
    ]


def test_redact_never_returns_the_secret() -> None:
    secret = LIVE["github-token"]
    assert detect.redact(secret) == secret[:4] + "…"
    assert detect.redact("short-pass") == "…"


def test_literal_secret_under_credential_names() -> None:
    assert detect.literal_secret("API_KEY", "q8Zr2LxK9vTn4WbP7cYs") == "literal-credential"
    assert detect.literal_secret("API_KEY", "${env:API_KEY}") is None
    assert detect.literal_secret("API_KEY", "${env:A}${B}") is None
    assert detect.literal_secret("Authorization", "Bearer ${env:TOKEN}") is None
    assert detect.literal_secret("Authorization", "Bearer q8Zr2LxK9vTn4WbP") == (
        "literal-credential"
    )
    assert detect.literal_secret("LOG_LEVEL", "debug-verbose-mode") is None
    assert detect.literal_secret("X", LIVE["github-token"]) == "github-token"
    assert detect.literal_secret("TOKEN_FILE", "/run/secrets/token") is None


@given(st.text())
def test_detectors_never_raise(text: str) -> None:
    for hit in (
        *detect.find_secrets(text),
        *detect.find_local_paths(text),
        *detect.find_markers(text),
    ):
        assert 0 <= hit.start <= hit.end <= len(text)
        detect.line_column(text, hit.start)
        detect.redact(text[hit.start : hit.end])


@given(st.text(), st.text())
def test_literal_secret_never_raises(name: str, value: str) -> None:
    detect.literal_secret(name, value)


def _corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.rglob("*") if p.is_file())


def test_corpus_placeholders_are_not_secrets() -> None:
    needs_shared(CORPUS)
    flagged = []
    for path in _corpus_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        flagged += [f"{path.relative_to(CORPUS)}:{h.detector}" for h in detect.find_secrets(text)]
    assert flagged == []


def test_hint_only_for_public_prefixes() -> None:
    assert detect.hint("github-token", LIVE["github-token"]) == "ghp_…"
    assert detect.hint("generic-secret", "Zq8xP2mL9vRt4kWn") == ""
    assert detect.hint("url-credentials", "s3cr3tP4ss-long-enough") == ""


@pytest.mark.parametrize(
    "text",
    [
        "sk-" + "something-very-long-package-name-for-the-docs",
        "gh" + "p_" + "abcdefghijklmnopqrstuvwxyzabcdefghij",
        "xo" + "xb-" + "your-slack-bot-token-here",
    ],
)
def test_token_shapes_that_are_words_are_not_tokens(text: str) -> None:
    assert detect.find_secrets(text) == []
