"""apc-tools: validate Agent Project Context, guard the runtime boundary, repair histories.

Importing this package is cheap on purpose: `apc --version` must not pull in jsonschema or
GitPython. Heavy modules are imported where they are used.
"""

__version__ = "0.1.0"
