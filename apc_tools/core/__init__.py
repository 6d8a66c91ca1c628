"""The shared floor below the contract and the boundary gate.

Safe file reading (:mod:`files`), positional YAML/JSON/frontmatter parsing (:mod:`parse`), the
published JSON Schemas (:mod:`schemas`), the policy file (:mod:`policy`), globs (:mod:`globs`),
content detectors (:mod:`detect`), gitignore semantics (:mod:`gitignore`) and git (:mod:`git`).
Nothing here knows what a contract file means; ``contract`` and ``boundary`` build on it.
"""
