"""The conformance suite: every test here carries the ``conformance`` marker.

Two tiers. The *replay* tier checks committed observations (what each CLI loaded, recorded from
its request bodies) against ``apc validate`` and needs no CLI. The *full* tier runs the pinned
CLIs against the loopback mock; it is skipped when they are not installed, unless
``APC_CONFORMANCE=full`` (set by ``.ci/run`` after installing them), where a missing CLI fails;
``APC_CONFORMANCE=replay`` skips it even when they are installed (``.ci/run``'s main run: the
live tier runs once, from the unpacked sdist, on the other core).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conformance.installer import TIER_ENV, Binaries, binaries, cache_dir, replay_only

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.conformance)


@pytest.fixture(scope="session")
def clis() -> Binaries:
    """The pinned CLIs; skips (or, under APC_CONFORMANCE=full, fails) when not installed."""
    skipped = replay_only()
    if skipped:
        pytest.skip(skipped)
    found = binaries()
    if found is None:
        message = (
            f"the pinned CLIs are not installed in {cache_dir()} "
            "(python -m tests.conformance.installer)"
        )
        if os.environ.get(TIER_ENV) == "full":
            pytest.fail(message)
        pytest.skip(message)
    return found
