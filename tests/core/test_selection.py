"""--select / --ignore selectors (apc_tools.core.selection)."""

from __future__ import annotations

import pytest

from apc_tools.core.selection import Selection, parse_selectors


def test_parse_splits_commas_and_uppercases() -> None:
    assert parse_selectors(["btr, SKL006", "", "all"]) == ("BTR", "SKL006", "ALL")


@pytest.mark.parametrize("bad", ["BTR-002", "B*", "TOOLONG1", "1BTR", "BTR0001"])
def test_parse_rejects_what_is_not_an_id_or_prefix(bad: str) -> None:
    with pytest.raises(ValueError, match="not a rule id or prefix"):
        parse_selectors([bad])


def test_the_longest_matching_selector_decides() -> None:
    both = Selection(select=("BTR",), ignore=("BTR002",))
    assert both.keeps("BTR001") and not both.keeps("BTR002") and not both.keeps("SKL006")
    narrow = Selection(select=("BTR002",), ignore=("BTR",))
    assert narrow.keeps("BTR002") and not narrow.keeps("BTR001")
    tie = Selection(select=("BTR",), ignore=("BTR",))
    assert not tie.keeps("BTR001")
    assert Selection().keeps("ANY001") and Selection(ignore=("ALL",)).keeps("X001") is False


def test_only_a_named_selector_reenables_a_disabled_rule() -> None:
    disabled = frozenset({"SKL006", "BTR002", "AGM006"})
    assert Selection(select=("SKL", "BTR002")).enabled(disabled) == {"AGM006"}
    assert Selection(select=("ALL",)).enabled(disabled) == disabled
    assert Selection(select=("SKL",), ignore=("SKL006",)).enabled(disabled) == disabled
