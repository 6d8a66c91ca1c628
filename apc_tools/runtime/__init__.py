"""Runtime state, which never lives in the repository (being written: see issue 3)."""
