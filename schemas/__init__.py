"""The published JSON Schemas of apc-tools (draft 2020-12), shipped as data of this package.

In the repository they live in the top-level ``schemas/`` folder; installed, they are the package
``apc_tools.schemas``. Read them with ``importlib.resources.files("apc_tools.schemas")`` or with
``apc schema NAME``.
"""
