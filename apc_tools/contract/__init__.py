"""The portable contract: discover, parse with positions, validate, and build the Contract.

Only :mod:`apc_tools.contract.model` may be imported by :mod:`apc_tools.runtime`.
"""
