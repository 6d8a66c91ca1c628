"""Content detectors shared by the contract checks and the boundary gate.

Detectors are data (ARCHITECTURE habit 5): a name, a compiled pattern, a description and, where a
format alone is not enough, a gate on the matched value that keeps placeholders out
(``your-api-key-here``, ``<TOKEN>``, ``${env:X}``, ``-----BEGIN PRIVATE KEY----- ...``). Each hit is
a :class:`Hit` (detector name, start and end offset in the text). Callers turn offsets into
``line:column`` with :class:`LineIndex` and show at most :func:`redact` of the value: a finding
never carries the secret itself.

Nothing here raises on any text, and no text makes a scan super-linear: no pattern has two
adjacent quantifiers over overlapping characters, every token format starts with a lookbehind
for a token boundary (so a run of ``eyJeyJeyJ...`` or ``github_pat_github_pat_...`` offers one
start, not one per repetition), and repeated groups are bounded. tests/core/test_hang_guards.py
runs every pattern against pathological input under a hang guard.
"""

from __future__ import annotations

import base64
import json
import math
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby, pairwise
from typing import NamedTuple

Gate = Callable[[str], bool]


@dataclass(frozen=True)
class Detector:
    """One kind of content: ``pattern`` finds it, ``group`` holds the value, ``gate`` confirms."""

    name: str
    pattern: re.Pattern[str]
    description: str
    group: int = 0
    gate: Gate | None = None
    before: re.Pattern[str] | None = None  # must match the text just before the match
    # must not match the text just before the match (a name that says the value is public, or
    # is an attribute of a credential rather than the credential: ``PublicKeyToken=``,
    # ``tokenUrl=``)
    not_before: re.Pattern[str] | None = None
    not_after: frozenset[str] = frozenset()  # characters that may not come right before
    lead: int = 0  # characters before the match that belong to the hit (a drive letter)
    # Literal strings one of which every match contains: a text holding none of them is
    # skipped without running the pattern (a fast reject; the pattern alone decides a match).
    needles: tuple[str, ...] = ()
    # The needles as one alternation (several needles: one regex pass beats a substring test
    # per needle, e.g. the six GitHub prefixes); None for one needle or none. Equivalent to
    # ``any(needle in text for needle in needles)``: a literal alternation without flags.
    needle_re: re.Pattern[str] | None = None
    # Lowercase words one of which the text just before a match (``before``'s window, the
    # :data:`BEFORE_WINDOW` characters before it) holds whenever ``before`` can match there and
    # that window is ASCII: a window without any is skipped without running ``before``.
    before_hints: tuple[str, ...] = ()
    # Every match starts with one of ``needles`` (a literal prefix): the pattern is tried only
    # where a needle occurs (:func:`_scan`), not searched for across the whole text.
    prefixed: bool = False


@dataclass(frozen=True)
class Hit:
    """A detector matched ``text[start:end]`` (the value itself, for secrets)."""

    detector: str
    start: int
    end: int


# --------------------------------------------------------------------------- value shape gates

_PLACEHOLDER_WORDS = re.compile(
    r"your|example|placeholder|changeme|change[_-]me|dummy|fake|sample|redacted|insert|"
    r"replace|xxxx|\*\*\*|\.\.\.|…|password|passwd|secret|token|apikey|api[_-]key|"
    r"lorem|foobar|todo|test|demo|mock",
    re.IGNORECASE,
)
# ${env:NAME}, ${NAME}, {{ NAME }}, $NAME, %NAME%, <NAME> (the insides exclude the opening
# characters, so a run of "${${${" is not rescanned from each start)
_PLACEHOLDER_REF = re.compile(
    r"\$\{[^${}\n]*\}|\{\{[^{}\n]*\}\}|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%|<[^<>\n]*>"
)
# Words of any script (``ВАШ_ПАРОЛЬ`` is "your password" as much as ``YOUR_PASSWORD`` is).
_WORDS_ONLY = re.compile(r"[^\W\d_]+(?:[-_. ][^\W\d_]+)*")
# Code, not a value: a member access (process.env.KEY!, payload?.data?.toString, self::KEY,
# obj->key), a call, a URL, a CONSTANT_NAME_42.
_CODE_LIKE = re.compile(
    r"[(){}\[\]]|://|^[A-Za-z_$][\w$]*(?:(?:\?\.|!\.|\.|::|->)[A-Za-z_$][\w$-]*)+[!?;]?$"
    r"|^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$"
)
# A human-made password such as "securepass123" or "Welcome2024!": one word, then digits.
_WORD_DIGITS = re.compile(r"(?<![A-Za-z])[A-Za-z]+[0-9]{1,8}[!@#$%^&*.?]?")
# a path of words (``Desktop/Title/H1``, a design token's name): each segment letters, then
# digits at most; a generated value's segments mix them
# (the look-behind: a search starts only where a word does, so a long run of letters is read once)
_WORD_PATH = re.compile(r"(?<![A-Za-z0-9/])[A-Za-z]+[0-9]{0,8}(?:/[A-Za-z]+[0-9]{0,8})+")


def entropy(value: str) -> float:
    """Shannon entropy in bits per character (0.0 for the empty string)."""
    if not value:
        return 0.0
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in Counter(value).values())


def strip_placeholders(value: str) -> str:
    """``value`` without ``${env:X}``, ``${X}``, ``{{ X }}``, ``$X``, ``%X%`` and ``<X>`` parts."""
    return _PLACEHOLDER_REF.sub("", value)


def is_placeholder(value: str) -> bool:
    """True for values that stand for a secret rather than being one, or that are no secret
    at all: a well-formed identifier of a public thing (:func:`is_public_value`)."""
    bare = strip_placeholders(value).strip(" \t\"'`,;")
    if len(bare) < 4 or len(set(bare)) <= 2:
        return True
    if _PLACEHOLDER_WORDS.search(bare):
        return True
    if _WORDS_ONLY.fullmatch(bare) or _CODE_LIKE.search(bare):
        return True
    return is_public_value(bare)


# --------------------------------------------------------------------------- public values
# A value that is a well-formed identifier of a public thing is not a secret (issue 32 item 4):
# a file path or URL path, a public blockchain address, an unsigned token. Each is recognised
# by its structure, never by a list of values.

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")  # an Ethereum-style account or contract address
_LINE_SUFFIX = re.compile(r"(?::\d{1,7}){1,2}\Z")  # file.go:137, file.py:12:5
_EXTENSION = re.compile(r"[^\W_][\w-]{0,80}\.[A-Za-z][A-Za-z0-9]{0,5}")  # name.ext


def _path_part(part: str) -> bool:
    """A path segment that is a name (``api``, ``v1``, ``{id}``, ``oss.go``,
    ``serviceAccountKey.json``), not a run of random characters."""
    if not part or part in (".", "..", "~"):
        return True
    if _EXTENSION.fullmatch(part):
        part = part.rsplit(".", 1)[0]
    bare = part.strip("{}<>:*")
    if not bare or re.fullmatch(r"[a-z0-9]{1,3}|\d{1,12}", bare):
        return True
    words = _SEPARATORS.split(bare)
    plain = all(w.islower() or w.isupper() or w.istitle() for w in words if w)
    return bool(
        (plain and _WORDS_ONLY.fullmatch(bare))
        or _WORD_DIGITS.fullmatch(bare)
        or is_name(bare)
        or (len(bare) <= 24 and not _looks_generated(bare))
    )


def _looks_generated(part: str) -> bool:
    """A segment with the letter/digit mix of generated text (``K7MDENG``, ``bPxRfiCY``)."""
    return any(c.isdigit() for c in part) or _class_changes(part) >= 2


def is_path(value: str) -> bool:
    """A file path or URL path: ``./serviceAccountKey.json``, ``~/.config/x``,
    ``/api/v1/auth/login``, ``lib/oss/oss.go:137``, ``C:\\keys\\app.pem``; every segment a
    name. Base64 holds ``/`` too, but not a leading ``./`` or ``~/``, and its segments are
    runs of random characters."""
    value = _LINE_SUFFIX.sub("", value)
    if re.match(r"[A-Za-z]:[\\/]|\\\\", value):  # C:\x, \\server\share
        parts = re.split(r"[\\/]+", value[2:])
    elif value.startswith(("./", "../", "~/")):
        parts = value.split("/")[1:]
    elif value.startswith("/") or ("/" in value and _EXTENSION.fullmatch(value.rsplit("/")[-1])):
        parts = value.strip("/").split("/")
    elif _EXTENSION.fullmatch(value) and not value[-1].isdigit():
        parts = [value]  # a bare file name: credentials.json, service-account.pem
    else:
        return False
    return all(_path_part(p) for p in parts)


def _unsigned_jwt(value: str) -> bool:
    """A JSON Web Token whose header says ``"alg": "none"``: it carries no signature, so it
    proves nothing and grants nothing on its own (RFC 7519 section 6, "Unsecured JWTs")."""
    head = value.split(".", 1)[0]
    if not head.startswith("eyJ") or "." not in value or len(head) > 2000:
        return False
    try:
        decoded = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)).decode("utf-8")
        header = json.loads(decoded)
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(header, dict) and str(header.get("alg", "")).lower() == "none"


def is_public_value(value: str) -> bool:
    """True for a value that is a well-formed identifier of a public thing, not a secret: a
    file or URL path (:func:`is_path`), a ``0x`` address of 40 hex digits (an account or
    contract: public by design; a private key is 64 hex digits), an unsigned JWT."""
    return bool(_ADDRESS.fullmatch(value)) or is_path(value) or _unsigned_jwt(value)


# --------------------------------------------------------------------------- names
# An identifier made of words (``scram-sha-256``, ``unused-under-sigv4``, ``s3_credentials``,
# ``nullFloat64ToInt64``): an algorithm, a variable, a label, not a generated value. Random
# text rarely splits into pronounceable words with digits only at their ends (measured on
# random base62/base64 values: under 0.5% of 12 characters, under 0.01% from 24).
_PIECE = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]+|[A-Z]|\d+")
_SEPARATORS = re.compile(r"[-_.]+")
_VOWEL = re.compile(r"[aeiouAEIOU]")
_CLUSTER = re.compile(r"[^aeiouAEIOU]{4}")


def _wordlike(piece: str) -> bool:
    return bool(_VOWEL.search(piece)) and not _CLUSTER.search(piece)


def _words_in(part: str) -> int | None:
    """How many words the separator-free ``part`` is made of (camelCase humps, digits at a
    word's end), or None when it is not made of words."""
    if not (part.isascii() and part.isalnum()):
        return None
    pieces = _PIECE.findall(part)
    words = [p for p in pieces if not p.isdigit()]
    for at, piece in enumerate(pieces):
        after = pieces[at + 1] if at + 1 < len(pieces) else ""
        if piece.isdigit():  # digits end a word: Int64To, sha256, not 3dE5
            if len(piece) > 5 or (after and not (after[0].isupper() and after[1:2].islower())):
                return None
        elif len(words) == 1:
            if len(piece) > 5 and not _wordlike(piece):
                return None
        elif len(piece) == 1 or (piece.isupper() and len(piece) > 4) or not _wordlike(piece):
            return None
    return len(words)


def is_name(value: str) -> bool:
    """True when ``value`` is an identifier of at least two words (see above)."""
    words = 0
    for part in _SEPARATORS.split(value):
        if part:
            found = _words_in(part)
            if found is None:
                return False
            words += found
    return words >= 2


def _class_changes(value: str) -> int:
    """How often the character class (lower, upper, digit, other) changes along ``value``."""

    def kind(c: str) -> str:
        return "d" if c.isdigit() else "u" if c.isupper() else "l" if c.islower() else "o"

    return sum(1 for a, b in pairwise(value) if kind(a) != kind(b))


_BASE64 = re.compile(r"[A-Za-z0-9+/]{8,}={0,2}|[A-Za-z0-9_-]{8,}={0,2}")


def _base64_words(value: str) -> bool:
    """True when ``value`` is base64 of a placeholder or a phrase of words (an example's
    ``bXlzZWNyZXRwYXNzd29yZA==`` is "mysecretpassword", not a random secret)."""
    if len(value) % 4 == 1 or not _BASE64.fullmatch(value):
        return False
    padded = value.replace("-", "+").replace("_", "/") + "=" * (-len(value) % 4)
    try:
        decoded = base64.b64decode(padded, validate=True).decode("ascii")
    except (ValueError, UnicodeDecodeError):
        return False
    if not decoded.isprintable():
        return False
    bare = decoded.strip()
    return is_placeholder(bare) or bool(_WORDS_ONLY.fullmatch(bare) or _WORD_DIGITS.fullmatch(bare))


_RUN = "0123456789abcdefghijklmnopqrstuvwxyz"
_STEPS = frozenset(pairwise(_RUN)) | {("9", "0"), ("0", "a")}


def is_sequential(value: str) -> bool:
    """A documentation placeholder typed along the keyboard or the alphabet, not generated:
    ``1234567890abcdef1234567890abcdef``, ``abcdefghijklmnop``. True when at least 70% of the
    neighbouring characters (case-folded, letters and digits) step by one (``3`` -> ``4``,
    ``9`` -> ``0``, ``0`` -> ``a``, ``e`` -> ``f``); a generated value steps about once in 36."""
    chars = [c for c in value.lower() if c in _RUN]
    if len(chars) < 8:
        return False
    steps = sum(1 for pair in pairwise(chars) if pair in _STEPS)
    if steps >= 0.7 * (len(chars) - 1) or _in_runs(chars) >= 0.5 * len(chars):
        return True
    # two runs woven together: 1a2b3c4d-5e6f-7a8b-... (each of the two strands steps)
    return all(_in_runs(chars[i::2]) >= 0.5 * len(chars[i::2]) for i in (0, 1))


def _in_runs(chars: list[str]) -> int:
    """How many of ``chars`` lie in runs of three or more that step by one up or down
    (``abc123def456``, Telegram's documented ``123456:ABC-DEF1234ghIkl-zyx57...``): an
    illustrative value typed by hand; a generated one has almost none."""
    steps = [1 if pair in _STEPS else -1 if pair[::-1] in _STEPS else 0 for pair in pairwise(chars)]
    total = 0
    for step, group in groupby(steps):
        pairs = len(list(group))
        if step and pairs >= 2:  # a run of n pairs covers n + 1 characters
            total += pairs + 1
    return total


def looks_random(value: str, min_length: int = 12) -> bool:
    """True when ``value`` has the shape of a generated credential (not a word, not a name,
    not the base64 of a word or phrase)."""
    if len(value) < min_length or is_placeholder(value) or _WORD_DIGITS.fullmatch(value):
        return False
    if _WORD_PATH.fullmatch(value):
        return False
    if is_sequential(value) or is_name(value):
        return False
    if _base64_words(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    mixed_case = any(c.islower() for c in value) and any(c.isupper() for c in value)
    if not (has_digit and has_alpha) and not (mixed_case and len(value) >= 24):
        return False
    return _class_changes(value) >= 3 and entropy(value) >= 3.0


def _token_gate(prefix_len: int) -> Gate:
    """Gate for prefixed token formats: the part after the prefix must look generated."""

    def gate(value: str) -> bool:
        body = value[prefix_len:]
        if len(set(body)) < 8 or _PLACEHOLDER_WORDS.search(body) or entropy(body) < 3.0:
            return False
        if is_sequential(body):  # sk-1234567890abcdef... in a "never hard-code this" example
            return False
        # generated, not a kebab-case name: digits in it and frequent class changes
        return any(c.isdigit() for c in body) and _class_changes(body) >= 4

    return gate


# The signature of the jwt.io example token, quoted in many docs.
_JWT_EXAMPLES = frozenset({"SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"})


def _jwt_gate(value: str) -> bool:
    if value.rsplit(".", 1)[-1] in _JWT_EXAMPLES or _unsigned_jwt(value):
        return False
    return _token_gate(0)(value)


# Names that say what they hold is public: .NET's ``PublicKeyToken=``, Supabase's
# ``NEXT_PUBLIC_SUPABASE_ANON_KEY=``, Stripe's ``publishableKey:``. A provider's secret format
# (``sk-``, ``ghp_``...) is a secret under any name; a JWT or a generic value under such a
# name is what the name says.
_PUBLIC_NAME = r"(?:(?<![A-Za-z])|(?<=[a-z])(?=[A-Z]))(?i:public|publishable|anon)"
# The name of an attribute of a credential, not the credential: its URL, path, file, id,
# name, type, header, or a digest of it (``tokenUrl``, ``api_key_file``, ``credential_id``,
# ``token_hash``). Vault's ``secret_id`` is a credential itself: not an attribute.
_ATTRIBUTES = (
    "url", "uri", "endpoint", "path", "file", "filename", "dir", "address", "name", "type",
    "header", "hash", "digest", "checksum", "fingerprint",
)  # fmt: skip
_ATTRIBUTE = (
    r"(?:(?:[_.-](?i:" + "|".join(_ATTRIBUTES) + r")"
    r"|(?<=[a-z0-9])(?:" + "|".join(w.capitalize() + "|" + w.upper() for w in _ATTRIBUTES) + r"))"
    r"|(?<![Ss][Ee][Cc][Rr][Ee][Tt])(?:[_.-](?i:id)|(?<=[a-z0-9])(?:Id|ID)))s?"
)
_NAME_END = r"[\"'`]?[ \t]{0,4}\Z"
# A quoted map key that is a qualified type or resource name, not a variable: a table of
# CloudFormation types to schema digests (``"AWS::ApiGateway::ApiKey": "48205d4f..."``), of
# aliases to ids (``"alias/aws/secretsmanager": "<uuid>"``). No ``:`` or ``@`` in a segment,
# so a key holding the URL it is for (``"apiKey@https://..."``) is still a key name.
_QUALIFIED_KEY = (
    r"[\"'`][A-Za-z0-9_.-]{1,60}(?:(?:::|/)[A-Za-z0-9_.-]{1,60}){1,8}[\"'`][ \t]{0,4}\Z"
)
# Before a generic value (the match starts at its ``:`` or ``=``): the whole key name.
_NOT_SECRET_KEY = re.compile(
    r"(?:"
    + _PUBLIC_NAME
    + r"[A-Za-z0-9_.-]{0,40}|"
    + _ATTRIBUTE
    + r")"
    + _NAME_END
    + "|"
    + _QUALIFIED_KEY
)
# Before a token (the match starts at the token): the key name and its assignment.
_PUBLIC_KEY = re.compile(
    _PUBLIC_NAME + r"[A-Za-z0-9_.-]{0,40}" + _NAME_END[:-2] + r"[:=][ \t]{0,4}[\"'`]?\Z"
)


# The detectors a public name overrides (a provider's own format is a secret under any name).
_NAMED_FORMATS = frozenset({"jwt", "generic-secret"})


def names_no_secret(name: str) -> bool:
    """True for a key name that says its value is public (``PublicKeyToken``,
    ``SUPABASE_ANON_KEY``) or is an attribute of a credential (``tokenUrl``, ``api_key_file``,
    ``credential_id``) rather than the credential itself."""
    return _NOT_SECRET_KEY.search(name) is not None


def _url_password_gate(value: str) -> bool:
    return not is_placeholder(value) and len(value) >= 6


# --------------------------------------------------------------------------- secret detectors

# Token formats start with a lookbehind for a token boundary: without it a run such as
# ``eyJeyJ...`` or ``github_pat_github_pat_...`` would make each repetition a start that scans
# the rest of the run (quadratic). ``not_after`` repeats the check for patterns without it.
_B = r"(?<![A-Za-z0-9_-])"  # no token character before
_E = r"(?![A-Za-z0-9_-])"  # no token character after
_TOKEN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"


def _d(
    name: str,
    regex: str,
    description: str,
    group: int = 0,
    gate: Gate | None = None,
    *,
    before: str | None = None,
    not_before: re.Pattern[str] | None = None,
    not_after: str = "",
    lead: int = 0,
    needles: tuple[str, ...] = (),
    before_hints: tuple[str, ...] = (),
    prefixed: bool = False,
) -> Detector:
    alternation = "|".join(re.escape(n) for n in needles) if len(needles) > 1 else None
    return Detector(
        name,
        re.compile(regex),
        description,
        group,
        gate,
        re.compile(before) if before else None,
        not_before,
        frozenset(not_after),
        lead,
        needles,
        re.compile(alternation) if alternation else None,
        before_hints,
        prefixed and bool(needles),
    )


SECRET_DETECTORS: tuple[Detector, ...] = (
    _d(
        "anthropic-api-key",
        _B + r"sk-ant-[a-z]+[0-9]*-[A-Za-z0-9_-]{32,}" + _E,
        "Anthropic API key (sk-ant-...)",
        gate=_token_gate(7),
        not_after=_TOKEN_CHARS,
        needles=("sk-ant-",),
        prefixed=True,
    ),
    _d(
        "openai-api-key",
        _B + r"sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}" + _E,
        "OpenAI API key (sk-..., sk-proj-...)",
        gate=_token_gate(3),
        not_after=_TOKEN_CHARS,
        needles=("sk-",),
        prefixed=True,
    ),
    _d(
        "github-token",
        _B + r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})" + _E,
        "GitHub token (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)",
        gate=_token_gate(4),
        not_after=_TOKEN_CHARS,
        needles=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        prefixed=True,
    ),
    _d(
        "aws-access-key-id",
        _B + r"A[KS]IA[A-Z0-9]{16}(?![A-Z0-9])",
        "AWS access key id (AKIA..., ASIA...)",
        gate=lambda v: "EXAMPLE" not in v and len(set(v[4:])) >= 6,
        not_after=_TOKEN_CHARS,
        needles=("AKIA", "ASIA"),
        prefixed=True,
    ),
    _d(
        "slack-token",
        _B + r"xox[abpre]-[0-9]+-[A-Za-z0-9-]{10,}" + _E,
        "Slack token (xoxb-, xoxp-, xoxa-, xoxr-)",
        gate=_token_gate(5),
        not_after=_TOKEN_CHARS,
        needles=("xox",),
        prefixed=True,
    ),
    _d(
        "google-api-key",
        _B + r"AIza[0-9A-Za-z_-]{35}" + _E,
        "Google API key (AIza...)",
        gate=_token_gate(4),
        not_after=_TOKEN_CHARS,
        needles=("AIza",),
        prefixed=True,
    ),
    _d(
        "stripe-live-key",
        _B + r"sk_live_[0-9A-Za-z]{20,}" + _E,
        "Stripe live secret key (sk_live_...)",
        gate=_token_gate(8),
        not_after=_TOKEN_CHARS,
        needles=("sk_live_",),
        prefixed=True,
    ),
    _d(
        "google-oauth-token",
        # An OAuth access token (ya29.) or refresh token (1//) of a Google account: what Gemini
        # CLI, Qwen Code's Google login and other Google OAuth clients keep in oauth_creds.json.
        # Not inside base64 (a "/1//0..." run of an encoded video is no token): no base64
        # character on either side.
        r"(?<![A-Za-z0-9_+/=-])(?:ya29\.[A-Za-z0-9_-]{30,}|1//0[A-Za-z0-9_-]{30,})"
        r"(?![A-Za-z0-9_+/=-])",
        "Google OAuth token (ya29. access token, 1// refresh token)",
        gate=_token_gate(4),
        not_after=_TOKEN_CHARS,
        needles=("ya29.", "1//0"),
        prefixed=True,
    ),
    _d(
        "sourcegraph-amp-token",
        # Amp (Sourcegraph) access keys (sgamp_user_..., secrets.json) and Sourcegraph tokens
        # (sgp_<hex>, sgp_local_<hex>).
        _B + r"(?:sgamp_[A-Za-z0-9_]{20,}|sgp_(?:local_)?[A-Za-z0-9_]{32,})" + _E,
        "Amp / Sourcegraph access token (sgamp_, sgp_)",
        gate=_token_gate(4),
        not_after=_TOKEN_CHARS,
        needles=("sgamp_", "sgp_"),
        prefixed=True,
    ),
    _d(
        "ai-provider-key",
        # Keys of model providers that agent tools are configured with: Hugging Face (hf_),
        # Groq (gsk_), xAI (xai-), Perplexity (pplx-), Tavily (tvly-), Replicate (r8_).
        _B + r"(?:hf_[A-Za-z0-9]{30,}|gsk_[A-Za-z0-9]{40,}|xai-[A-Za-z0-9]{60,}|"
        r"pplx-[A-Za-z0-9]{40,}|tvly-(?:dev-)?[A-Za-z0-9]{28,}|r8_[A-Za-z0-9]{30,})" + _E,
        "model provider API key (hf_, gsk_, xai-, pplx-, tvly-, r8_)",
        gate=_token_gate(3),
        not_after=_TOKEN_CHARS,
        needles=("hf_", "gsk_", "xai-", "pplx-", "tvly-", "r8_"),
        prefixed=True,
    ),
    _d(
        "private-key",
        # One white-space run, then at most 8 header lines (Proc-Type, DEK-Info), each followed
        # by its own white-space run: no two adjacent runs can share characters.
        r"-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:\s|\\[rn])*(?:[A-Za-z-]{1,40}: [^\n]{0,200}\n(?:\s|\\[rn])*){0,8}[A-Za-z0-9+/]{40,}",
        "PEM private key with key material",
        needles=("-----BEGIN ",),
        prefixed=True,
    ),
    _d(
        "jwt",
        _B + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}" + _E,
        "JSON Web Token",
        gate=_jwt_gate,
        not_before=_PUBLIC_KEY,
        not_after=_TOKEN_CHARS,
        needles=("eyJ",),
        prefixed=True,
    ),
    _d(
        "url-credentials",
        r"://[^\s/:@'\"<>()\[\]]{1,100}:([^\s/@'\"<>()\[\]]{1,200})@[A-Za-z0-9.-]",
        "password in a URL (scheme://user:password@host)",
        group=1,
        gate=_url_password_gate,
        before=r"[A-Za-z][A-Za-z0-9+.-]{0,20}\Z",
        needles=("://",),
        prefixed=True,
    ),
)

_KEYWORD = (
    r"(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|"
    r"client[_-]?secret|auth[_-]?token|credentials?)"
)
# The generic rule runs only on a text that names a secret somewhere (a plain substring test on
# the lowercased text: much cheaper than a case-insensitive regex search). Every alternative of
# _KEYWORD holds one of these words, so an ASCII window before a match without any of them
# cannot satisfy ``before`` (in ASCII, ``(?i)`` matches exactly what ``str.lower`` maps).
_KEYWORD_HINTS = ("pass", "pwd", "secret", "token", "key", "credential")

GENERIC_SECRET = _d(
    "generic-secret",
    # A value ends at a JSON-escaped control character (``\n``, ``\t``): in a JSON string
    # ``"total_tokens: 9229\ntool_uses: 3"`` the value is ``9229``, not ``9229\ntool_uses:``.
    r"[:=][ \t]{0,4}(?:\"((?:[^\"\s\\]|\\[^nrtbfu\s]){12,200})\""
    # An unquoted value right before ``(`` is the name of a function being called: code.
    r"|'((?:[^'\s\\]|\\[^nrtbfu\s]){12,200})'|(?>([^\s\"'`,;(){}\[\]\\]{12,200}))(?!\())",
    "a password, secret, token or API key assigned a literal, random-looking value",
    gate=looks_random,
    not_before=_NOT_SECRET_KEY,
    # The key may name the server it is for ("apiKey@https://ampcode.com/": Amp's secrets.json).
    before=r"(?i)"
    + _KEYWORD
    + r"[A-Za-z0-9_.-]{0,30}(?:@[a-z][a-z0-9+.-]{0,15}://[^\s\"'`]{1,60})?"
    r"[\"'`]?[ \t]{0,4}\Z",
    before_hints=_KEYWORD_HINTS,
)


def _names_a_secret(text: str) -> bool:
    low = text.lower()
    return any(word in low for word in _KEYWORD_HINTS)


# --------------------------------------------------------------------------- local paths

LOCAL_PATH_DETECTORS: tuple[Detector, ...] = (
    _d(
        "macos-home-path",
        r"/Users/(?!Shared/)[A-Za-z0-9._-]+/",
        "machine-local path under /Users/<name>/",
        not_after=_TOKEN_CHARS + ".~/",
        needles=("/Users/",),
    ),
    _d(
        "linux-home-path",
        r"/home/[A-Za-z0-9._-]+/",
        "machine-local path under /home/<name>/",
        not_after=_TOKEN_CHARS + ".~/",
        needles=("/home/",),
    ),
    _d(
        "windows-user-path",
        r":(?:\\\\|\\|/)[Uu]sers(?:\\\\|\\|/)",
        r"machine-local path under C:\Users\ ",
        before=r"(?<![A-Za-z0-9_])[A-Za-z]\Z",
        lead=1,
        needles=("sers",),
    ),
)

# --------------------------------------------------------------------------- interruption markers

MARKERS: tuple[str, ...] = (
    "not run: the turn was interrupted",
    "[Request interrupted by user",
    "<turn_aborted>",
    '"turn_aborted"',
    "[Response interrupted by",
    "[TASK RESUMPTION]",
    "[Tool execution was interrupted]",
    "The tool call was interrupted before a result was produced.",
    "[Tool result missing due to internal error]",
)
MARKER_DETECTOR = _d(
    "interruption-marker",
    "|".join(re.escape(m) for m in MARKERS),
    "a marker that agent runtimes write into a history when a turn is interrupted",
    needles=MARKERS,
)

# --------------------------------------------------------------------------- scanning


BEFORE_WINDOW = 80  # characters before a match that ``Detector.before`` looks at


def _has_needle(detector: Detector, text: str) -> bool:
    if detector.needle_re is not None:
        return detector.needle_re.search(text) is not None
    return not detector.needles or detector.needles[0] in text


def _scan(detector: Detector, text: str) -> Iterable[Hit]:
    if detector.prefixed:
        return _hits(detector, text, _prefixed_matches(detector, text))
    if not _has_needle(detector, text):
        return ()
    return _hits(detector, text, detector.pattern.finditer(text))


def _prefixed_matches(detector: Detector, text: str) -> Iterator[re.Match[str]]:
    """``detector.pattern.finditer(text)`` for a pattern whose every match starts with one of
    its needles: the pattern is tried at each place a needle occurs, in order, skipping the
    places inside the last match (where finditer would not look), so the matches are the same
    (``match(text, pos)`` sees the text before ``pos`` for a lookbehind, as a search does)."""
    needles = detector.needles
    if len(needles) == 1:
        needle = needles[0]
        at = text.find(needle)
        if at < 0:
            return
        places: Iterable[int] = _places(text, needle, at)
    else:
        if not _has_needle(detector, text):  # one pass of the needles' alternation
            return
        found = [(text.find(n), n) for n in needles]
        places = sorted(p for at, n in found if at >= 0 for p in _places(text, n, at))
    yield from _matches_at(detector, text, places)


def _matches_at(detector: Detector, text: str, places: Iterable[int]) -> Iterator[re.Match[str]]:
    """The matches of a prefixed detector's pattern tried at ``places`` (every place one of
    its needles occurs, in order), skipping the places inside the last match."""
    match = detector.pattern.match
    end = 0
    for at in places:
        if at < end:
            continue
        got = match(text, at)
        if got is not None:
            end = got.end()
            yield got


def _places(text: str, needle: str, at: int) -> Iterator[int]:
    """Every place ``needle`` occurs in ``text`` from ``at`` (its first), overlaps included."""
    while at >= 0:
        yield at
        at = text.find(needle, at + 1)


def _hits(detector: Detector, text: str, matches: Iterable[re.Match[str]]) -> Iterator[Hit]:
    before, hints = detector.before, detector.before_hints
    for match in matches:
        start = match.start()
        if start and text[start - 1] in detector.not_after:
            continue
        if before is not None:
            window = text[max(0, start - BEFORE_WINDOW) : start]
            if hints and window.isascii():
                low = window.lower()
                if not any(word in low for word in hints):
                    continue
            if not before.search(text, max(0, start - BEFORE_WINDOW), start):
                continue
        if detector.not_before is not None and detector.not_before.search(
            text, max(0, start - BEFORE_WINDOW), start
        ):
            continue
        group = detector.group or next(
            (i for i in range(1, (match.lastindex or 0) + 1) if match.group(i) is not None), 0
        )
        value = match.group(group)
        if detector.gate is None or detector.gate(value):
            yield Hit(detector.name, match.start(group) - detector.lead, match.end(group))


def _without_overlaps(hits: Iterable[Hit]) -> list[Hit]:
    """The hits, in order of priority, that overlap no earlier kept hit. Kept hits are disjoint
    and sorted by start, so only the neighbours of a new hit can overlap it (a bisection per
    hit, not a comparison with every kept one: 20,000 tokens in a file were quadratic)."""
    kept: list[Hit] = []
    starts: list[int] = []
    for hit in hits:
        at = bisect_right(starts, hit.start)
        if at and kept[at - 1].end > hit.start:
            continue
        if at < len(kept) and kept[at].start < hit.end:
            continue
        kept.insert(at, hit)
        starts.insert(at, hit.start)
    return kept


def find_secrets(text: str) -> list[Hit]:
    """Live-looking secrets in ``text``; specific formats win over the generic keyword rule."""
    fast = _fast_finders()
    if fast is not None:
        return _without_overlaps(_fast_secrets(text, *fast))
    hits = [hit for d in SECRET_DETECTORS for hit in _scan(d, text)]
    if _names_a_secret(text):
        hits += _scan(GENERIC_SECRET, text)
    return _without_overlaps(hits)


# The token formats' needles and the generic rule's hint words, each set searched in one pass
# by an Aho-Corasick automaton (``ahocorasick_rs``, a default dependency) instead of one
# substring search per needle; without it each detector searches for its own needles.
_SECRET_NEEDLES = tuple(sorted({n for d in SECRET_DETECTORS if d.prefixed for n in d.needles}))
# each needle's detectors and the detectors without needles, by their index in SECRET_DETECTORS
_BY_NEEDLE = {
    n: tuple(i for i, d in enumerate(SECRET_DETECTORS) if d.prefixed and n in d.needles)
    for n in _SECRET_NEEDLES
}
_UNPREFIXED = tuple(i for i, d in enumerate(SECRET_DETECTORS) if not d.prefixed)
Finder = Callable[..., list[tuple[int, int, int]]]
_finders: list[tuple[Finder, Finder, Finder] | None] = []


def _fast_finders() -> tuple[Finder, Finder, Finder] | None:
    """Every place of every token needle in bytes and in a text (character offsets), and the
    leftmost-first places of the hint words in bytes; None without ``ahocorasick_rs``. Made
    once."""
    if not _finders:
        try:
            import ahocorasick_rs  # type: ignore[import-not-found, unused-ignore]
        except ImportError:
            _finders.append(None)
        else:
            in_bytes = ahocorasick_rs.BytesAhoCorasick([n.encode() for n in _SECRET_NEEDLES])
            in_text = ahocorasick_rs.AhoCorasick(list(_SECRET_NEEDLES))
            hints = ahocorasick_rs.BytesAhoCorasick(
                [w.encode() for w in _KEYWORD_HINTS],
                matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_FIRST,
            )
            _finders.append(
                (
                    in_bytes.find_matches_as_indexes,
                    in_text.find_matches_as_indexes,
                    hints.find_matches_as_indexes,
                )
            )
    return _finders[0]


def _fast_secrets(text: str, in_bytes: Finder, in_text: Finder, hints: Finder) -> list[Hit]:
    """The hits of :func:`find_secrets` (before overlaps are dropped), found with the
    automata of :func:`_fast_finders`.

    Each token format is tried where its needles occur (every place of every needle, overlaps
    included: what :func:`_prefixed_matches` finds one needle at a time), found in one pass:
    over the bytes of an ASCII text (its byte offsets are its character offsets), else over
    the text. In an ASCII text the generic rule runs when a hint word occurs
    (``_names_a_secret``: the hint words are ASCII and so is the text, so its lowercased bytes
    hold one exactly where ``text.lower()`` does) and is searched only in the lines that hold
    one: ``before`` holds no line break, so a hit's keyword is on its line, and an ASCII
    keyword lowercases to a hint word there; no match holds a line break either (its value
    holds no white space), so ``finditer`` over a run of whole lines finds the matches the
    search over the whole text finds there. In any other text (``(?i)`` folds some non-ASCII
    characters onto the keyword's letters) it runs as without the automata."""
    ascii_text = text.isascii()
    data = text.encode("ascii") if ascii_text else b""
    places: dict[str, list[int]] = {}
    for index, start, _end in in_bytes(data, True) if ascii_text else in_text(text, True):
        places.setdefault(_SECRET_NEEDLES[index], []).append(start)
    hits: list[Hit] = []
    # the detectors to try, in their order (the order of priority): those without needles, and
    # those of the needles found (most texts hold none: no per-detector work for them)
    tried = set(_UNPREFIXED)
    for needle in places:
        tried.update(_BY_NEEDLE[needle])
    for index in sorted(tried):
        detector = SECRET_DETECTORS[index]
        if not detector.prefixed:
            hits += _scan(detector, text)
            continue
        mine = [p for n in detector.needles for p in places.get(n, ())]
        mine.sort()
        hits += _hits(detector, text, _matches_at(detector, text, mine))
    if not ascii_text:
        if _names_a_secret(text):
            hits += _scan(GENERIC_SECRET, text)
        return hits
    words = hints(data.lower())
    if not words:
        return hits
    finditer = GENERIC_SECRET.pattern.finditer
    start = end = -1  # the run of whole lines to search: text[start:end]
    for _index, at, _stop in words:
        if at <= end:  # on a line already in the run
            continue
        line = text.rfind("\n", 0, at) + 1
        if line != end + 1 and start >= 0:  # not the line right after the run: search the run
            hits += _hits(GENERIC_SECRET, text, finditer(text, start, end))
            start = -1
        if start < 0:
            start = line
        end = text.find("\n", at)
        if end < 0:
            end = len(text)
    if start >= 0:
        hits += _hits(GENERIC_SECRET, text, finditer(text, start, end))
    return hits


def find_local_paths(text: str) -> list[Hit]:
    """Machine-local absolute paths (``/Users/<name>/``, ``/home/<name>/``, ``C:\\Users\\``)."""
    return sorted(
        (hit for d in LOCAL_PATH_DETECTORS for hit in _scan(d, text)), key=lambda h: h.start
    )


def find_markers(text: str) -> list[Hit]:
    """Interruption markers (APC-NOTES section 3), verbatim."""
    return list(_scan(MARKER_DETECTOR, text))


# --------------------------------------------------------------------------- transcript content

_HUMAN = r"user|human"
_AI = r"assistant|ai|claude|chatgpt|gpt[-\w.]*|codex|gemini|copilot"
_ROLE_LINE = re.compile(
    r"^[ \t>*_#-]*(?:\*\*|__)?(?P<role>" + _HUMAN + "|" + _AI + r"|system)(?:\*\*|__)?[ \t]*"
    r"(?::|(?:\*\*|__)[ \t]*:|$)",
    re.IGNORECASE | re.MULTILINE,
)
_HUMAN_RE = re.compile(_HUMAN, re.IGNORECASE)
TRANSCRIPT_DETECTORS: tuple[Detector, ...] = (
    _d(
        "role-tagged JSON message",
        r'"role"\s*:\s*"(?:user|assistant|tool|model)"',
        "a chat message record as provider APIs and agent tools store it",
        needles=('"role"',),
    ),
    _d(
        "tool-call record",
        r'"type"\s*:\s*"(?:tool_use|tool_result|function_call|function_call_output)"'
        r'|"(?:tool_call_id|tool_calls|functionCall|functionResponse|tool_use_id)"\s*:',
        "a tool call or tool result record of a provider wire format",
        needles=(
            '"type"',
            '"tool_call_id"',
            '"tool_calls"',
            '"functionCall"',
            '"functionResponse"',
            '"tool_use_id"',
        ),
    ),
)


class Evidence(NamedTuple):
    """One kind of transcript content: what it is, where it first occurs, how often."""

    what: str
    offset: int
    occurrences: int


def _chat_dump(text: str) -> tuple[int, int] | None:
    """(offset of the first role line, role lines) when both a person and a model speak."""
    lines = list(_ROLE_LINE.finditer(text))
    human = [m for m in lines if _HUMAN_RE.fullmatch(m.group("role"))]
    machine = [m for m in lines if not _HUMAN_RE.fullmatch(m.group("role"))]
    if len(lines) < 2 or not human or not machine:
        return None
    return lines[0].start("role"), len(lines)


def find_transcript_evidence(text: str) -> list[Evidence]:
    """Each kind of transcript content in ``text``: speaker-labelled chat lines, role-tagged JSON
    messages, tool-call records and interruption markers."""
    found: list[Evidence] = []
    dump = _chat_dump(text)
    if dump:
        found.append(Evidence("chat dump (speaker-labelled lines)", dump[0], dump[1]))
    for detector in (*TRANSCRIPT_DETECTORS, MARKER_DETECTOR):
        hits = list(_scan(detector, text))
        if hits:
            what = "interruption marker" if detector is MARKER_DETECTOR else detector.name
            found.append(Evidence(what, hits[0].start, len(hits)))
    return found


_SECRET_NAME = re.compile(
    r"(?i)pass(?:word|wd)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|"
    r"auth|credential|cookie|bearer|signature|(?:^|[_-])key$"
)
_PATH_STARTS = ("/", "~", "./", "../", "\\")
_AUTH_SCHEME = re.compile(r"^(?:bearer|basic|token|digest|apikey)\s+", re.IGNORECASE)


def is_secret_name(name: str) -> bool:
    """True for a key, header, flag or parameter name that usually holds a credential."""
    return bool(_SECRET_NAME.search(name))


def literal_secret(name: str, value: str) -> str | None:
    """Why ``value`` (stored under ``name``) is a literal secret: a detector name, or None.

    Placeholders (``${env:NAME}``, ``${NAME}``...) are stripped first; a value made only of them
    is never a secret. Under a credential-like ``name`` (``API_KEY``, ``Authorization``) any
    literal that is not a placeholder word counts; elsewhere only a known token format does.
    """
    bare = strip_placeholders(value)
    public = re.search(_PUBLIC_NAME, name) is not None  # a JWT under SUPABASE_ANON_KEY
    hits = [h for h in find_secrets(bare) if not (public and h.detector in _NAMED_FORMATS)]
    if hits:
        return hits[0].detector
    literal = _AUTH_SCHEME.sub("", bare.strip()).strip()
    if not is_secret_name(name) or names_no_secret(name):
        return None
    if len(literal) < 8 or literal.startswith(_PATH_STARTS):
        return None
    return None if is_placeholder(literal) else "literal-credential"


# --------------------------------------------------------------------------- positions, redaction


class LineIndex:
    """Offsets of ``text`` to 1-based ``(line, column)`` (columns count characters)."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


def line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based ``(line, column)`` of ``offset`` in ``text``."""
    return LineIndex(text).position(offset)


def redact(secret: str) -> str:
    """A hint safe to print: the first 4 characters of a long value and an ellipsis, or "…"."""
    return f"{secret[:4]}…" if len(secret) >= 16 else "…"


def redact_secrets(text: str, known: Iterable[str] = ()) -> str:
    """``text`` with every secret the detectors find in it, and every ``known`` secret value,
    replaced by its redacted hint (:func:`hint`, or "…"): for messages that echo file content
    (a link target, a key, a server name) so that no output ever carries a whole secret."""
    hits = find_secrets(text)
    if hits:
        out: list[str] = []
        last = 0
        for hit in hits:
            out += [text[last : hit.start], hint(hit.detector, text[hit.start : hit.end]) or "…"]
            last = hit.end
        text = "".join(out) + text[last:]
    for value in known:
        if value in text:
            text = text.replace(value, "…")
    return text


# Formats whose first characters are a public prefix (ghp_, sk-a, AKIA...): safe to show.
_PREFIXED = frozenset(
    {
        "anthropic-api-key",
        "openai-api-key",
        "github-token",
        "aws-access-key-id",
        "slack-token",
        "google-api-key",
        "stripe-live-key",
        "google-oauth-token",
        "sourcegraph-amp-token",
        "ai-provider-key",
        "jwt",
    }
)


def hint(detector_name: str, value: str) -> str:
    """A redacted hint for a finding: the public prefix of a token format, or "" otherwise.

    Generic passwords, URL passwords and key material get no hint at all: even four
    characters of a password are too many.
    """
    return redact(value) if detector_name in _PREFIXED else ""


def describe(detector_name: str) -> str:
    """The description of a detector by name (the name itself when unknown)."""
    every = (*SECRET_DETECTORS, GENERIC_SECRET, *LOCAL_PATH_DETECTORS, MARKER_DETECTOR)
    table = {d.name: d.description for d in every}
    table["literal-credential"] = "a literal value under a credential name"
    table["url-query-credential"] = "a credential in a URL query parameter"
    return table.get(detector_name, detector_name)


__all__ = [
    "GENERIC_SECRET",
    "LOCAL_PATH_DETECTORS",
    "MARKERS",
    "MARKER_DETECTOR",
    "SECRET_DETECTORS",
    "Detector",
    "Hit",
    "LineIndex",
    "describe",
    "entropy",
    "find_local_paths",
    "find_markers",
    "find_secrets",
    "hint",
    "is_name",
    "is_path",
    "is_placeholder",
    "is_public_value",
    "is_secret_name",
    "line_column",
    "literal_secret",
    "looks_random",
    "names_no_secret",
    "redact",
    "redact_secrets",
    "strip_placeholders",
]
