"""The scan's fast rejects (one alternation for several needles, the keyword-hint test of the
window before a generic-secret match, the needles and hint words found by automata) change no
hit: every detector's hits equal those of the plain scan (a substring test per needle,
``before`` run on every match) over the shared corpus, texts built around the hard cases
(keywords spelled with characters that only ``(?i)`` folds: the long s, the Kelvin sign, the
dotted capital I) and generated texts, with the automata and without them."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apc_tools.core import detect
from apc_tools.core.detect import Detector, Hit
from tests.conftest import CORPUS, needs_shared

EVERY = (
    *detect.SECRET_DETECTORS,
    detect.GENERIC_SECRET,
    *detect.LOCAL_PATH_DETECTORS,
    detect.MARKER_DETECTOR,
    *detect.TRANSCRIPT_DETECTORS,
)


def plain_scan(detector: Detector, text: str) -> Iterable[Hit]:
    """The scan without the fast rejects (what ``detect._scan`` was before them)."""
    if detector.needles and not any(needle in text for needle in detector.needles):
        return
    for match in detector.pattern.finditer(text):
        start = match.start()
        if start and text[start - 1] in detector.not_after:
            continue
        if detector.before and not detector.before.search(text, max(0, start - 48), start):
            continue
        window = max(0, start - detect.BEFORE_WINDOW)
        if detector.not_before and detector.not_before.search(text, window, start):
            continue
        group = detector.group or next(
            (i for i in range(1, (match.lastindex or 0) + 1) if match.group(i) is not None), 0
        )
        value = match.group(group)
        if detector.gate is None or detector.gate(value):
            yield Hit(detector.name, match.start(group) - detector.lead, match.end(group))


def plain_find_secrets(text: str) -> list[Hit]:
    """``find_secrets`` made of plain scans (every pattern searched across the whole text)."""
    hits = [hit for d in detect.SECRET_DETECTORS for hit in plain_scan(d, text)]
    if any(word in text.lower() for word in detect._KEYWORD_HINTS):
        hits += plain_scan(detect.GENERIC_SECRET, text)
    return detect._without_overlaps(hits)


def without_automata(text: str) -> list[Hit]:
    """``find_secrets`` as it runs where ``ahocorasick_rs`` is not installed."""
    kept = detect._finders[:]
    detect._finders[:] = [None]
    try:
        return detect.find_secrets(text)
    finally:
        detect._finders[:] = kept


def assert_same(text: str) -> None:
    for detector in EVERY:
        assert list(detect._scan(detector, text)) == list(plain_scan(detector, text)), detector.name
    # each prefixed token format tried only where its needle occurs, found by one automaton
    # for all needles (ahocorasick_rs, a default dependency) and without it; with it, the generic
    # rule searched only in the lines of an ASCII text that hold a hint word
    plain = plain_find_secrets(text)
    assert detect._fast_finders() is not None, "ahocorasick_rs: a default dependency"
    assert detect.find_secrets(text) == plain
    assert without_automata(text) == plain
    for detector in (d for d in EVERY if d.prefixed):  # what the needle-led scan relies on
        for match in detector.pattern.finditer(text):
            assert match.group(0).startswith(detector.needles), detector.name


def test_needle_alternation_is_the_substring_test() -> None:
    several = [d for d in EVERY if len(d.needles) > 1]
    assert several, "no detector with several needles"
    for detector in several:
        assert detector.needle_re is not None
        for needle in detector.needles:
            assert detect._has_needle(detector, f"x{needle}y")
            assert not detect._has_needle(detector, f"x{needle[:-1]} {needle[-1]}y")
    for detector in (d for d in EVERY if len(d.needles) < 2):
        assert detector.needle_re is None


def test_corpus_hits_are_unchanged() -> None:
    needs_shared(CORPUS)
    seen = 0
    for path in sorted(p for p in CORPUS.rglob("*") if p.is_file()):
        if "transcripts" in path.parts or path.stat().st_size > 2_000_000:
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        assert_same(text)
        seen += 1
    assert seen > 1000


SECRET = "Zq8vT2mK9pLx4RwN7bYc"  # random-looking: the generic rule reports it


@pytest.mark.parametrize(
    "text",
    [
        f"password = {SECRET}",
        f'"api_key": "{SECRET}"',
        f"PASSWORD={SECRET}",
        f"my_secret_value_name_here_x: {SECRET}",
        f"token{'a' * 30}: {SECRET}",  # the longest name tail the rule allows
        f"token{'a' * 31}: {SECRET}",  # one too long
        f"{'x' * 60}\ncredentials: '{SECRET}'",
        # Characters `(?i)` folds onto the keyword's letters but str.lower does not map there:
        # the window is not ASCII, so `before` decides as it always did.
        f"paſſword: {SECRET}",
        f"Kelvin-KEY = {SECRET}",
        f"credentİal: {SECRET}",
        f"tokén: {SECRET}",
        f"no keyword here: {SECRET} but a key elsewhere",
        f"https://example.com/{SECRET} and a token",
        "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5" + " gho_ github_pat_",
        "AKIAZ7Q3M5N8P2R4T6W9 ASIA",
        # a keyword on one line, the value on the next (the window crosses the line break)
        f"token\n: {SECRET}",
        f"token{' ' * 40}\n= {SECRET}",
        f"token{' ' * 44}\n= {SECRET}",  # the keyword just out of the window
        f"é{' ' * 46}: {SECRET}",  # a non-ASCII window without a keyword
        f"key: {SECRET}\r\npassword={SECRET}\r\n",
        f"x={SECRET}{SECRET}token: {SECRET}",  # a match swallowing the keyword's line start
        # hint words on neighbouring lines, the first and the last line, a line between
        f"token: {SECRET}\nkey={SECRET}\n\npassword: '{SECRET}'\nplain: {SECRET}\npwd={SECRET}",
        f"{SECRET}:token {SECRET}=x\r\nsecret_key: {SECRET}x{SECRET}",
        f"{'key ' * 30}: {SECRET}\n" * 3,
        "sk-ant-sk-" + "A1b2C3d4" * 6 + " sk-sk-" + "A1b2C3d4" * 6,
        "xoxoxb-1234567890-" + "aB3dE5fG7hJ9kL1m",  # needles overlapping themselves
        "-----BEGIN -----BEGIN RSA PRIVATE KEY-----\n" + "A" * 64,
        "eyJeyJ" + "hbGciOiJIUzI1NiJ9" + ".eyJ" + "zdWIiOiIxMjM0NTY3In0" + "." + SECRET * 2,
    ],
)
def test_edge_cases_give_the_same_hits(text: str) -> None:
    assert_same(text)
    assert_same(text * 3)


def test_what_is_no_secret_is_the_same_with_and_without_the_automata() -> None:
    # issue 32 item 4: the key-name rules (not_before) run in the one place both paths share
    from tests.core.test_false_secrets import CASES

    for _what, false, twin in CASES:
        for text in (false, twin, f"{false}\n{twin}\n"):
            assert_same(text)


KEYWORDS = ["password", "PassWd", "pwd", "SECRET", "token", "api-key", "ApiKey", "access_key"]
PIECES = st.sampled_from(
    [
        *KEYWORDS,
        "paſſword",
        "KEY",
        "İ",
        " ",
        "\t",
        "\n",
        ":",
        "=",
        '"',
        "'",
        "_",
        "-",
        "://user:",
        "@host",
        SECRET,
        "sk-",
        "ghp_",
        "eyJ",
        "x" * 20,
        "é",
        "\r\n",
        "sk-ant-",
        "xox",
        "github_pat_",
        "-----BEGIN ",
        "://",
        "A1b2C3d4" * 5,
        " " * 40,
    ]
)


@given(st.lists(PIECES | st.text(max_size=8), max_size=40).map("".join))
def test_generated_texts_give_the_same_hits(text: str) -> None:
    assert_same(text)


@pytest.mark.parametrize(
    "text", [f"password = {SECRET}", f"paſſword: {SECRET}", f"token{'a' * 30}: {SECRET}"]
)
def test_the_window_test_keeps_real_hits(text: str) -> None:
    """The edge cases above are not vacuous: these are generic secrets, the long s too."""
    assert [h.detector for h in detect._scan(detect.GENERIC_SECRET, text)] == ["generic-secret"]
