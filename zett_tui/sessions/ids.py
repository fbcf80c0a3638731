"""Find a session from what the user typed: a full id or a unique prefix of one."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from zett_tui.sessions.index import SessionSummary

#: Shortest id prefix shown in lists; longer where needed to tell two sessions apart.
SHORT_ID_LENGTH = 8
_LISTED = 5


class SessionLookupError(LookupError):
    """The user's session id did not select exactly one session."""


class UnknownSession(SessionLookupError):
    def __init__(self, prefix: str, near: list[SessionSummary]) -> None:
        self.prefix = prefix
        self.near = near
        message = f"no session matches {prefix!r}"
        if near:
            message += "; did you mean:\n" + _describe(near)
        else:
            message += " (`zett sessions list --all` shows every session)"
        super().__init__(message)


class AmbiguousSession(SessionLookupError):
    def __init__(self, prefix: str, matches: list[SessionSummary]) -> None:
        self.prefix = prefix
        self.matches = matches
        more = len(matches) - _LISTED
        message = f"{prefix!r} matches {len(matches)} sessions; type more of the id:\n" + _describe(
            matches[:_LISTED]
        )
        if more > 0:
            message += f"\n  … and {more} more"
        super().__init__(message)


def _describe(summaries: Sequence[SessionSummary]) -> str:
    return "\n".join(f"  {summary.session_id}  {summary.title[:60]}" for summary in summaries)


def resolve_session_id(prefix: str, summaries: Sequence[SessionSummary]) -> SessionSummary:
    """The one session whose id is ``prefix`` or starts with it.

    An exact id wins over longer ids that start with it. Raises :class:`UnknownSession` with
    the closest ids (difflib) or :class:`AmbiguousSession` with the candidates, newest first.
    """
    wanted = prefix.strip()
    if not wanted:
        raise UnknownSession(prefix, [])
    exact = [summary for summary in summaries if summary.session_id == wanted]
    if len(exact) == 1:
        return exact[0]
    matches = exact or [summary for summary in summaries if summary.session_id.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise AmbiguousSession(wanted, matches)
    by_id = {summary.session_id: summary for summary in summaries}
    candidates = [identifier[: max(len(wanted), SHORT_ID_LENGTH)] for identifier in by_id]
    close = difflib.get_close_matches(wanted, candidates, n=_LISTED, cutoff=0.6)
    near = [
        summary for summary in summaries if summary.session_id[: max(len(wanted), SHORT_ID_LENGTH)] in close
    ]
    raise UnknownSession(wanted, near[:_LISTED])


def short_ids(summaries: Sequence[SessionSummary], minimum: int = SHORT_ID_LENGTH) -> dict[str, str]:
    """For each session id, its shortest prefix (at least ``minimum`` long) that no other id shares.

    UUIDv7 ids of sessions started close together share a long time prefix, so a fixed-length
    prefix would not be unique.
    """
    ids = sorted({summary.session_id for summary in summaries})
    result: dict[str, str] = {}
    for position, identifier in enumerate(ids):
        neighbours = ids[max(0, position - 1) : position] + ids[position + 1 : position + 2]
        shared = max((_common_prefix(identifier, other) for other in neighbours), default=0)
        result[identifier] = identifier[: max(minimum, shared + 1)]
    return result


def short_id_for(session_id: str, summaries: Sequence[SessionSummary], minimum: int = SHORT_ID_LENGTH) -> str:
    """``session_id``'s shortest prefix (at least ``minimum`` long) that none of ``summaries`` shares:
    the form the status line shows, which ``--resume`` and ``zett sessions`` accept. The session
    itself need not be among ``summaries`` (one with no recorded turn yet)."""
    others = {summary.session_id for summary in summaries} - {session_id}
    shared = max((_common_prefix(session_id, other) for other in others), default=0)
    return session_id[: max(minimum, shared + 1)]


def _common_prefix(left: str, right: str) -> int:
    length = 0
    for a, b in zip(left, right, strict=False):
        if a != b:
            break
        length += 1
    return length
