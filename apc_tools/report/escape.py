"""The one escaping function for everything apc prints: findings and ``apc: error:`` lines.

Paths, keys and messages come from files nobody checked. A control character in them could
move the cursor, recolour or retitle a terminal (ESC, OSC, BEL), hide text (bidirectional
overrides) or, after a line break, start a GitHub Actions workflow command (``::error``,
``::add-mask::``, ``::stop-commands::``): the runner reads those from stdout and stderr alike.
:func:`escape` shows every such character as a visible escape (``\\x1b``, ``\\x0a``,
``\\u202e``), so one message is always one line of inert text.
"""

from __future__ import annotations

import unicodedata

UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""Control, format (bidi overrides, zero-width), surrogate, line and paragraph separators."""


def escape(text: str) -> str:
    """``text`` with every control, format or undecodable character shown as an escape."""
    if text.isprintable():
        return text
    return "".join(escape_char(ch) for ch in text)


def escape_char(ch: str) -> str:
    """One character, as itself when it is safe to print, else as a visible escape."""
    if unicodedata.category(ch) not in UNSAFE_CATEGORIES:
        return ch
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte kept by os.fsdecode (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"
