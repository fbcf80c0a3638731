"""The on-disk session layer: no Textual here.

- ``naming``: session id ↔ file name (zett-agent's JSONLExtension naming), refusing unsafe ids.
- ``reader``: streaming, damage-tolerant reading of session JSONL files (``ReadNotice`` per problem).
- ``index``: ``SessionIndex`` / ``SessionSummary``, a fast cached listing of every session.
- ``ids``: resolve what the user typed (an id or a unique prefix) to one session.
- ``transcript``: ``TurnView`` display models, including the last N turns of a long session.
- ``search``: full-text, case-insensitive substring search yielding ``SearchHit``s as it goes.
- ``export``: Markdown and JSON export.
- ``lock``: ``SessionLock``, one writing process per session; ``claim_session`` before writing.
- ``meta``, ``manage``, ``permissions``: titles (``/rename``), deletion, private file modes.
- ``commands``: the ``zett sessions ...`` subcommands as pure functions.
"""
