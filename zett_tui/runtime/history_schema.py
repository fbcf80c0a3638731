"""zett-agent's history tables as its storage creates them: made here on a file that has none, and
checked on one that has some, so that a session needs no SQLAlchemy for them.

zett-agent's SQLAlchemy storage creates its tables at its first statement and adds what a database
from an older version lacks (a column, indexes). zett makes every turn's statements itself
(``history_sqlite``), so SQLAlchemy (~0.5 s of CPU to import, ~21 MB) would be imported only for
that. A file with every table, column and index below is used as it is; a file with none of the
tables gets them here, from the statements SQLAlchemy emits for zett-agent's models
(``tests/test_upstream_contracts.py`` compares both files' schemas); anything in between is an older
or foreign database and is left to zett-agent's storage, which upgrades it.

No SQLAlchemy and no zett-agent here: ``sqlite3`` only.
"""

from __future__ import annotations

import sqlite3
from typing import Literal

__all__ = ["CREATE_STATEMENTS", "TABLES", "create_if_empty", "schema_state"]

#: Each table's columns and its named indexes, as zett-agent's models declare them.
TABLES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "agent_sessions": (
        frozenset({"id", "parent_session_id", "session_type", "title", "agent_name", "created_at", "updated_at"}),
        frozenset({"ix_agent_sessions_activity", "ix_agent_sessions_agent_name", "ix_agent_sessions_parent_session_id"}),
    ),
    "raw_messages": (
        frozenset(
            {
                "id", "session_id", "request_id", "sequence", "role", "content", "tool_name", "message_json",
                "metadata_json", "tags_json", "started_at", "completed_at", "duration_ns",
                "reasoning_started_at", "reasoning_completed_at", "reasoning_duration_ns",
                "content_started_at", "content_completed_at", "content_duration_ns", "input_tokens",
                "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens",
                "created_at", "updated_at",
            }
        ),
        frozenset({"ix_raw_messages_request_id", "ix_raw_messages_session_id", "ux_raw_session_sequence"}),
    ),
    "session_snapshots": (
        frozenset(
            {"id", "session_id", "version", "compacted_through_sequence", "message_json", "created_at", "updated_at"}
        ),
        frozenset({"ix_session_snapshots_session_id", "ux_snapshot_session_version"}),
    ),
}  # fmt: skip

#: What SQLAlchemy's ``create_all`` runs for zett-agent's models on SQLite, in its order.
CREATE_STATEMENTS = (
    "CREATE TABLE agent_sessions ( id VARCHAR(36) NOT NULL, parent_session_id VARCHAR(36), "
    "session_type INTEGER DEFAULT '0' NOT NULL, title VARCHAR(200), agent_name VARCHAR(64), "
    "created_at DATETIME NOT NULL, updated_at DATETIME NOT NULL, PRIMARY KEY (id) )",
    "CREATE INDEX ix_agent_sessions_parent_session_id ON agent_sessions (parent_session_id)",
    "CREATE INDEX ix_agent_sessions_activity ON agent_sessions (updated_at, id)",
    "CREATE INDEX ix_agent_sessions_agent_name ON agent_sessions (agent_name)",
    "CREATE TABLE raw_messages ( id VARCHAR(36) NOT NULL, session_id VARCHAR(36) NOT NULL, "
    "request_id VARCHAR(36) NOT NULL, sequence INTEGER NOT NULL, role INTEGER NOT NULL, content TEXT NOT NULL, "
    "tool_name VARCHAR(200), message_json TEXT NOT NULL, metadata_json TEXT NOT NULL, tags_json TEXT NOT NULL, "
    "started_at DATETIME NOT NULL, completed_at DATETIME NOT NULL, duration_ns INTEGER NOT NULL, "
    "reasoning_started_at DATETIME, reasoning_completed_at DATETIME, reasoning_duration_ns INTEGER, "
    "content_started_at DATETIME, content_completed_at DATETIME, content_duration_ns INTEGER, "
    "input_tokens INTEGER, output_tokens INTEGER, cache_read_tokens INTEGER, cache_write_tokens INTEGER, "
    "reasoning_tokens INTEGER, created_at DATETIME NOT NULL, updated_at DATETIME NOT NULL, PRIMARY KEY (id) )",
    "CREATE INDEX ix_raw_messages_request_id ON raw_messages (request_id)",
    "CREATE UNIQUE INDEX ux_raw_session_sequence ON raw_messages (session_id, sequence)",
    "CREATE INDEX ix_raw_messages_session_id ON raw_messages (session_id)",
    "CREATE TABLE session_snapshots ( id VARCHAR(36) NOT NULL, session_id VARCHAR(36) NOT NULL, "
    "version INTEGER NOT NULL, compacted_through_sequence INTEGER NOT NULL, message_json TEXT NOT NULL, "
    "created_at DATETIME NOT NULL, updated_at DATETIME NOT NULL, PRIMARY KEY (id) )",
    "CREATE INDEX ix_session_snapshots_session_id ON session_snapshots (session_id)",
    "CREATE UNIQUE INDEX ux_snapshot_session_version ON session_snapshots (session_id, version)",
)

SchemaState = Literal["current", "empty", "other"]


def schema_state(connection: sqlite3.Connection) -> SchemaState:
    """``current``: every table with every column and index; ``empty``: none of the tables;
    ``other``: anything else (an older version's database, or not zett-agent's)."""
    found = 0
    current = True
    for table, (columns, indexes) in TABLES.items():
        has = {str(row[1]) for row in connection.execute(f"PRAGMA table_info({table})")}
        if not has:
            current = False
            continue
        found += 1
        named = {str(row[1]) for row in connection.execute(f"PRAGMA index_list({table})")}
        current = current and columns <= has and indexes <= named
    if current:
        return "current"
    return "empty" if found == 0 else "other"


def create_if_empty(connection: sqlite3.Connection) -> SchemaState:
    """Create the tables when the file has none of them; returns the state found before. Only an
    empty file takes the write lock (looked at again under it, so that two processes starting at once
    create the tables once); a current one is only read, so a read-only history can still be read.
    The first look is one read transaction: its statements, read one by one, could otherwise see
    the tables before another process's creation and their indexes after it."""
    connection.execute("BEGIN")
    try:
        state = schema_state(connection)
    finally:
        connection.execute("COMMIT")
    if state != "empty":
        return state
    connection.execute("BEGIN IMMEDIATE")
    try:
        state = schema_state(connection)
        if state == "empty":
            for statement in CREATE_STATEMENTS:
                connection.execute(statement)
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
    return state
