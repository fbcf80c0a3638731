"""``zett acp``: zett as an Agent Client Protocol agent over stdio, for editors (Zed, JetBrains,
Toad, Neovim plugins). Built on the official SDK (PyPI ``agent-client-protocol``); each session
is a ``runtime.session.SessionCore`` like ``zett -p``'s, with the editor answering its questions.
"""
