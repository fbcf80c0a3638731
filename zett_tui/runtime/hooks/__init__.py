"""Hooks: the user's shell commands at points of a session (``config.hooks`` says which).

``process`` runs one command, ``protocol`` is what it reads and what its answer means (Claude
Code's shapes), ``runner`` runs an event's hooks for a session, ``extension`` hooks them into the
agent; the host runs ``SessionStart`` and ``UserPromptSubmit`` itself. No Textual here.
"""
