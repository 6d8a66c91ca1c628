"""Issue 32 item 4: public identifiers, paths, code, names, sample and unsigned values are not
secrets; a real-format secret in the same place still is (one twin per class).

Each class is a rule on the value's structure or on its key's name, never a list of values:
the cases below are shapes seen in public repositories (the issue's and fresh ones found by
code search), and the twins are synthetic values of the real format, made at test time from
a seeded generator (this file holds no secret-looking text).
"""

from __future__ import annotations

import base64
import json
import random
import string

import pytest

from apc_tools.core import detect

_RNG = random.Random(32)
B62 = string.ascii_letters + string.digits


def rand(n: int, alphabet: str = B62) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n))


def segment(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


HEX16 = rand(15, "0123456789abcdef") + "9"
UNSIGNED = segment({"alg": "none", "typ": "JWT"}) + "." + segment({"sub": "demo", "role": "x"})
SIGNED = segment({"alg": "HS256", "typ": "JWT"}) + "." + segment({"sub": "demo", "role": "x"})
SIGNATURE = rand(43, B62 + "-_")


def jwt() -> str:
    """A signed JWT of the real format, with a signature of its own."""
    return f"{SIGNED}.{rand(43, B62 + '-_')}"


BOT = "".join(_RNG.choice(string.digits) for _ in range(10)) + ":AA" + rand(33, B62 + "_-")

# (class, the false finding, its twin: a real-format secret in the same place)
CASES: list[tuple[str, str, str]] = [
    (
        "a .NET strong-name PublicKeyToken (a name that says public)",
        "Microsoft.TeamFoundation, Version=19.0.0.0, Culture=neutral, PublicKeyToken="
        + "b03f5f7f11d50a3a",
        "Microsoft.TeamFoundation, Version=19.0.0.0, Culture=neutral, AuthToken=" + HEX16,
    ),
    (
        "the manifest's publicKeyToken in quotes",
        "processorArchitecture='*' publicKeyToken='" + "6595b64144ccf1df' language='*'",
        "processorArchitecture='*' sessionToken='"
        + rand(15, "0123456789abcdef")
        + "7' language='*'",
    ),
    (
        "an OAuth token URL that is a URL path",
        'oauth2_scheme = OAuth2PasswordBearer(tokenUrl="/api/v1/auth/login")',
        f'oauth2_scheme = OAuth2PasswordBearer(token="{rand(28)}")',
    ),
    (
        "a URL path under a token name",
        'token = "/api/v1/auth/login"',
        f'token = "{rand(28)}"',
    ),
    (
        "Telegram's documented sample bot token (illustrative runs)",
        "TELEGRAM_BOT_TOKEN=" + "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11",
        "TELEGRAM_BOT_TOKEN=" + BOT,
    ),
    (
        "an abc123-style value in a bad example",
        'api_key = "' + "zyx987abc321qwe" + '"  # never do this',
        f'api_key = "{rand(20)}"  # never do this',
    ),
    (
        "two stepping runs woven together",
        'self.update_token = "' + "1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d" + '"',
        f'self.update_token = "{rand(8, "0123456789abcdef")}-{rand(4, "0123456789abcdef")}-4'
        + rand(3, "0123456789abcdef")
        + "-a"
        + rand(3, "0123456789abcdef")
        + "-"
        + rand(12, "0123456789abcdef")
        + '"',
    ),
    (
        "an unsigned JWT (alg none) under a token name",
        f'access_token = "{UNSIGNED}."',
        f'access_token = "{jwt()}"',
    ),
    (
        "an unsigned JWT with a dummy third part",
        f"session JWT: {UNSIGNED}.fixture0signature0only",
        f"session JWT: {jwt()}",
    ),
    (
        "a file path as a credentials value",
        "GOOGLE_APPLICATION_CREDENTIALS=./serviceAccountKey.json",
        f"GOOGLE_APPLICATION_CREDENTIALS={rand(32)}",
    ),
    (
        "a file path with a line number",
        "InvalidAccessKey: lib/oss/oss.go:137 GetInternalContent failed",
        f"InvalidAccessKey: {rand(24)} GetInternalContent failed",
    ),
    (
        "code: optional chaining",
        "const secret = event?.requestContext?.authorizer?.claims;",
        f"const secret = '{rand(24)}';",
    ),
    (
        "code: a function called",
        "CompletionTokens: nullFloat64ToInt64(d.CompletionTokens),",
        f"CompletionTokens: {rand(24)},",
    ),
    (
        "an algorithm name",
        "password_encryption = 'scram-sha-256'",
        f"password_encryption = '{rand(16)}'",
    ),
    (
        "an identifier made of words",
        'auth_token="unused-under-sigv4"',
        f'auth_token="{rand(24)}"',
    ),
    (
        "a variable name",
        "credentials=trusted_s3_mount_credentials or None",
        f"credentials={rand(28)} or None",
    ),
    (
        "a public contract address (0x and 40 hex digits)",
        "USDC_TOKEN=0x" + rand(40, "0123456789abcdef"),
        "PRIVATE_KEY=0x" + rand(64, "0123456789abcdef"),
    ),
    (
        "an attribute of a credential: its id",
        'credential_id="vcrd_' + rand(24) + '"',
        'credential="vcrd_' + rand(24) + '"',
    ),
    (
        "a map keyed by qualified type names (CloudFormation types to schema digests)",
        '{"AWS::ApiGateway::Account": "'
        + "9c1fb2d4e07a3b65"
        + '", "AWS::ApiGateway::ApiKey": "'
        + "48205d4ffd7feba3"
        + '"}',
        '{"AWS::ApiGateway::Account": "9c1fb2d4e07a3b65", "ApiKey": "' + rand(16) + '"}',
    ),
    (
        "a map keyed by alias paths",
        '"alias/aws/secretsmanager": "' + "fee5173a-3972-428e-ae73-cd4c2a371222" + '",',
        '"aws_secret": "fee5173a-3972-428e-ae73-' + rand(12, "0123456789abcdef") + '",',
    ),
    (
        "a JWT under a name that says it is public (Supabase's anon key)",
        f"NEXT_PUBLIC_SUPABASE_ANON_KEY={SIGNED}.{SIGNATURE}",
        f"SUPABASE_SERVICE_ROLE_KEY={jwt()}",
    ),
    (
        "words of another script in a URL's password",
        "DATABASE_URL=postgresql://postgres:" + "ВАШ_ПАРОЛЬ" + "@localhost:5432/code_agent",
        f"DATABASE_URL=postgresql://postgres:{rand(16)}@localhost:5432/code_agent",
    ),
]


@pytest.mark.parametrize(("what", "false", "twin"), CASES, ids=[c[0] for c in CASES])
def test_a_public_or_illustrative_value_is_not_a_secret(what: str, false: str, twin: str) -> None:
    assert detect.find_secrets(false) == [], what


@pytest.mark.parametrize(("what", "false", "twin"), CASES, ids=[c[0] for c in CASES])
def test_a_real_format_secret_in_the_same_place_still_is(what: str, false: str, twin: str) -> None:
    hits = detect.find_secrets(twin)
    assert any(len(twin[h.start : h.end]) >= 16 for h in hits), what


def test_a_provider_format_is_a_secret_under_a_public_name() -> None:
    key = "sk-" + "proj-" + rand(48)
    for text in (f"NEXT_PUBLIC_OPENAI_API_KEY={key}", f'"publicKey": "{key}"'):
        assert [h.detector for h in detect.find_secrets(text)] == ["openai-api-key"]
    # a PEM private key under a public-looking name is still a private key
    pem = "-----BEGIN " + "PRIVATE KEY-----\n" + rand(64) + "\n-----END " + "PRIVATE KEY-----"
    assert [h.detector for h in detect.find_secrets(f"PUBLIC_KEY={pem}")] == ["private-key"]


def test_vault_secret_id_is_a_credential_not_an_attribute() -> None:
    value = "Zq8rT2mX9vK4wL7pN3bYc5Df"
    assert [h.detector for h in detect.find_secrets(f"secret_id = {value}")] == ["generic-secret"]
    assert detect.find_secrets(f"token_id = {value}") == []


def test_literal_credentials_follow_the_name_rules() -> None:
    jwt = f"{SIGNED}.{SIGNATURE}"
    assert detect.literal_secret("SUPABASE_ANON_KEY", jwt) is None
    assert detect.literal_secret("SUPABASE_SERVICE_ROLE_KEY", jwt) == "jwt"
    value = "Zq8rT2mX9vK4wL7pN3bY"  # mixed, with digits: random-looking
    assert detect.literal_secret("TOKEN_URL", value) is None
    assert detect.literal_secret("API_TOKEN", value) == "literal-credential"
    assert detect.literal_secret("NEXT_PUBLIC_API_KEY", "sk-" + "proj-" + rand(48)) == (
        "openai-api-key"
    )


@pytest.mark.parametrize(
    "value",
    [
        "/api/v1/auth/login",
        "./serviceAccountKey.json",
        "../keys/service-account.pem",
        "~/.config/gcloud/application_default_credentials.json",
        "lib/oss/oss.go:137",
        "config/credentials.yml",
        "credentials.json",
        "C:\\keys\\app.pem",
        "/etc/ssl/private/server.key",
    ],
)
def test_paths_are_public_values(value: str) -> None:
    assert detect.is_path(value)
    assert not detect.looks_random(value)


@pytest.mark.parametrize("length", [20, 28, 40])
def test_base64_with_slashes_is_not_a_path(length: int) -> None:
    # the shape of an AWS secret access key: 40 characters of base64, slashes inside
    rng = random.Random(length)

    def part(n: int) -> str:
        return "".join(rng.choice(B62 + "+") for _ in range(n))

    value = part(6) + "/" + part(length - 16) + "/" + part(7)
    assert not detect.is_path(value)
    assert not detect.is_path("/" + value)


def test_names_keep_random_values_random() -> None:
    # measured on random base62 values: a name almost never (see detect.is_name)
    rng = random.Random(5)
    values = ["".join(rng.choice(B62) for _ in range(24)) for _ in range(2000)]
    assert sum(detect.is_name(v) for v in values) <= 2
    for name in (
        "scram-sha-256",
        "aes-256-gcm",
        "hmac-sha256",
        "nullFloat64ToInt64",
        "sk-tracing-123",
    ):
        assert detect.is_name(name), name
