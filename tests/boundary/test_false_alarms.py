"""Issue 15 item 4: ordinary files are not called leaks (each case with its leaking twin)."""

from __future__ import annotations

import json
from pathlib import Path

from apc_tools.core import detect
from tests.boundary.helpers import findings, repo, token


def test_a_json_escaped_newline_ends_a_value() -> None:
    # a Claude Code Task tool result, as it sits inside a JSON string of a session export
    text = json.dumps({"text": "done\n<usage>total_tokens: 9229\ntool_uses: 3\nduration_ms: 41"})
    assert "\\n" in text
    assert detect.find_secrets(text) == []


def test_a_real_value_before_an_escaped_newline_is_still_found() -> None:
    secret = "Zq8rT2mX9vK4wL7pN3bY"
    text = json.dumps({"note": f"password: {secret}\nnext line"})
    (hit,) = detect.find_secrets(text)
    assert text[hit.start : hit.end] == secret


def test_quoted_value_with_an_escaped_quote_is_still_one_value() -> None:
    text = 'secret = "aB3kL9mQ2\\"xZ7pW4rT8vN"'
    assert [h.detector for h in detect.find_secrets(text)] == ["generic-secret"]


def test_base64_of_a_phrase_is_not_a_random_secret() -> None:
    for value in (
        "bXlzZWNyZXRwYXNzd29yZA==",
        "aGVsbG8gd29ybGQgZm9yIGFsbA==",
        "c2VjdXJlcGFzczEyMw==",
    ):
        assert not detect.looks_random(value), value
        assert detect.find_secrets(f'password: "{value}"') == []


def test_a_path_of_words_is_not_a_random_secret() -> None:
    # a design token's name in a Copilot agent (github/awesome-copilot, aem-frontend-specialist)
    assert detect.find_secrets('Figma Token: "Desktop/Title/H1"') == []
    assert detect.find_secrets("token: Mobile/Heading/H2 Bold") == []
    # a generated value with a slash in it is still one
    value = "q3J9xL2v/R8mT5wK1nB7"
    assert [h.detector for h in detect.find_secrets(f'token: "{value}"')] == ["generic-secret"]


def test_base64_of_random_bytes_is_still_a_secret() -> None:
    value = "q3J9xL2vR8mT5wK1nB7cZ4hY6fA0"
    assert detect.looks_random(value)
    assert [h.detector for h in detect.find_secrets(f'password: "{value}"')] == ["generic-secret"]


def test_session_usage_lines_give_no_secret_finding(tmp_path: Path) -> None:
    usage = "total_tokens: 9229\ntool_uses: 3\nduration_ms: 1200"
    records = [
        {
            "type": "user",
            "sessionId": "s1",
            "parentUuid": None,
            "uuid": f"u{i}",
            "message": {"role": "user", "content": [{"type": "tool_result", "content": usage}]},
        }
        for i in range(25)
    ]
    body = "".join(json.dumps(r) + "\n" for r in records)
    leak = body.replace("9229", "9229", 1) + json.dumps({"k": f"token: {token('', 24)}"}) + "\n"
    found = findings(repo(tmp_path, {"clean/s.jsonl": body, "leak/s.jsonl": leak}))
    assert {f.rule for f in found if f.path == "clean/s.jsonl"} == {"BTR001"}
    assert "BSC001" in {f.rule for f in found if f.path == "leak/s.jsonl"}
