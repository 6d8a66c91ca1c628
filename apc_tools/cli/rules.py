"""``apc rules``: list the rules of the catalog, or explain one."""

from __future__ import annotations

import click

from apc_tools.cli.common import echo, fail


@click.command()
@click.argument("rule_id", required=False)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text")
@click.option("--fixable", is_flag=True, help="Only the rules that --fix repairs (safe, unsafe).")
def rules(rule_id: str | None, fmt: str, fixable: bool) -> None:
    """List the rules, or explain one (with a passing and a failing example).

    `apc rules --format markdown` prints the whole rules reference (docs/rules.md).
    """
    from apc_tools.catalog import registry
    from apc_tools.report.rules_doc import explain_rule, list_rules
    from apc_tools.report.rules_doc import fixable as only_fixable

    reg = only_fixable(registry()) if fixable else registry()
    if rule_id is not None:
        key = rule_id.upper()
        if key not in reg:
            fail(f"no rule {rule_id!r}; `apc rules` lists them")
        echo(explain_rule(reg[key], fmt))
        return
    text = list_rules(reg, fmt)
    echo(text, nl=not text.endswith("\n"))
