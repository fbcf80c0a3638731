"""Which kind of disk or database fault an error is: what the history store rides out, and what it raises.

Shared by the store (a write that fails is kept and retried when it is a fault, raised when it is a
bug) and by the check of the file at start (``history_damage``: only a damaged file is set aside).
No Textual here.
"""

from __future__ import annotations

import errno
import sqlite3

_SQLITE_KINDS = {
    13: "full",  # SQLITE_FULL
    8: "read-only",  # SQLITE_READONLY
    3: "read-only",  # SQLITE_PERM
    23: "read-only",  # SQLITE_AUTH
    14: "read-only",  # SQLITE_CANTOPEN
    5: "locked",  # SQLITE_BUSY
    6: "locked",  # SQLITE_LOCKED
    11: "damaged",  # SQLITE_CORRUPT
    26: "damaged",  # SQLITE_NOTADB
    10: "io",  # SQLITE_IOERR
}
_OS_KINDS = {
    errno.ENOSPC: "full",
    errno.EDQUOT: "full",
    errno.EROFS: "read-only",
    errno.EACCES: "read-only",
    errno.EPERM: "read-only",
    errno.EIO: "io",
    # A folder that is gone, was never there, or sits on a mount whose server went away.
    errno.ENOENT: "io",
    errno.ENOTDIR: "io",
    errno.ENOTCONN: "io",
    errno.ESTALE: "io",
    errno.ENODEV: "io",
    errno.ENXIO: "io",
}


def storage_fault(error: BaseException) -> str | None:
    """``full``, ``read-only``, ``locked``, ``damaged`` or ``io`` when ``error`` (or what it wraps)
    is a disk or database fault; None for anything else, which is a bug and is raised."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        item = pending.pop()
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, sqlite3.Error):
            return sqlite_fault(item)
        if isinstance(item, OSError) and item.errno in _OS_KINDS:
            return _OS_KINDS[item.errno]
        orig = getattr(item, "orig", None)  # SQLAlchemy's DBAPIError
        pending += [orig if isinstance(orig, BaseException) else None, item.__cause__, item.__context__]
    return None


def sqlite_fault(error: sqlite3.Error) -> str | None:
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int) and (code & 0xFF) in _SQLITE_KINDS:
        return _SQLITE_KINDS[code & 0xFF]
    text = str(error).lower()
    for words, kind in (
        (("disk is full",), "full"),
        (("readonly", "read-only", "unable to open"), "read-only"),
        (("locked",), "locked"),
        (("malformed", "not a database"), "damaged"),
    ):
        if any(word in text for word in words):
            return kind
    return "io" if isinstance(error, sqlite3.OperationalError) else None
