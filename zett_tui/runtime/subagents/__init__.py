"""Delegation: the ``task`` tool runs a child agent (a subagent) under the parent's gates.

``types``: which kinds of child exist (built-in ``general`` and ``explore``, and the user's and a
trusted project's Markdown files). ``runner``: one child's run, its events passed to the parent's
UI. ``extension``: the ``task`` tool, and what a child may and may not call.
"""
