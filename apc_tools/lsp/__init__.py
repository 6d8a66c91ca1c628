"""`apc lsp`: a Language Server Protocol server over stdio (pygls, lsprotocol), giving the
editor the same findings, fixes and rule explanations as `apc validate`, as the user types.

pygls and lsprotocol are the optional extra ``apc-tools[lsp]``: this module imports neither, so
`apc lsp` without them can say how to install them. The library never imports this package
(tests/test_architecture.py); it prints nothing: stdout is the LSP stream.
"""

from __future__ import annotations

from importlib.util import find_spec

INSTALL = 'apc lsp needs the lsp extra (pygls, lsprotocol): pip install "apc-tools[lsp]"'


def missing() -> str | None:
    """Why the server cannot start here (its libraries are not installed), or None."""
    for name in ("pygls", "lsprotocol"):
        try:
            found = find_spec(name)
        except (ImportError, ValueError):
            found = None
        if found is None:
            return f"{INSTALL} ({name} is not installed)"
    return None


def serve() -> int:
    """Run the server until the client says exit (its libraries must be installed)."""
    from apc_tools.lsp.early import serve as run

    return run()
