"""Agent session files (Claude Code, Codex, Gemini CLI), repaired add-only by each tool's rules.

One module per tool: :mod:`.claude_code`, :mod:`.codex`, :mod:`.gemini_cli`. Each provides
``plan(session, options) -> Plan`` (what to insert, what to report) and
``project(session) -> Projection`` (the records the tool would send, for ``--check``).
"""
