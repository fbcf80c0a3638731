"""What could not be read from a session file: every damaged line counted, a few kept in detail.

A session file can hold millions of damaged lines (a disk that returned garbage, a file
overwritten by something else). Keeping a notice per line would cost more memory than the file,
and showing one per line would bury the turns that could be read. :class:`ReadNotices` is the
sink the reader reports to: it counts every damaged line (skipped, or read in part), keeps the
first :data:`DETAIL_LIMIT` notices it is given with their line numbers and reasons (the first
lines of the file read forwards, the last ones read backwards, as a resume reads), and notices
about the whole file (it cannot be opened, a read failed) apart from them. What the user sees is
:meth:`ReadNotices.lines`: the file-level notices and one summary line; :meth:`ReadNotices.log`
puts the details in zett's log.

The reader asks :attr:`ReadNotices.wants_detail` before working out why a line is damaged: once
the details are full, a line that cannot be a turn is only counted.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

#: Notices kept in detail (line number and reason), and file-level notices kept.
DETAIL_LIMIT = 10


@dataclass(frozen=True, slots=True)
class ReadNotice:
    """A part of a session file that could not be used, and why. ``line_no`` 0 means the whole file.

    ``damage`` says what became of a damaged line: ``skipped`` (none of it is shown) or
    ``partial`` (shown with something left out or replaced); None for a notice about the file.
    """

    path: Path
    line_no: int
    reason: str
    damage: Literal["skipped", "partial"] | None = None

    def __str__(self) -> str:
        where = f"{self.path.name}:{self.line_no}" if self.line_no else self.path.name
        return f"{where}: {self.reason}"


class ReadNotices:
    """A bounded record of what could not be read (see the module docstring).

    ``len()`` is how many problems were found (damaged lines and notices about the file), not how
    many are kept; iterating gives the kept ones.
    """

    def __init__(self, detail_limit: int = DETAIL_LIMIT) -> None:
        self.detail_limit = detail_limit
        #: The first line notices given, in the order they came (last first when read backwards).
        self.details: list[ReadNotice] = []
        self.file_notices: list[ReadNotice] = []
        self.skipped_lines = 0
        #: Lines kept with something left out or replaced (undecodable bytes, a bad message).
        self.partial_lines = 0
        self.first_line = 0
        self.last_line = 0
        self.path: Path | None = None
        self._line = -1
        self._line_skipped = False
        self._more_file_notices = 0

    @property
    def wants_detail(self) -> bool:
        """Whether the reason for the next damaged line would be kept."""
        return len(self.details) < self.detail_limit

    @property
    def damaged_lines(self) -> int:
        return self.skipped_lines + self.partial_lines

    def __len__(self) -> int:
        return self.damaged_lines + len(self.file_notices) + self._more_file_notices

    def __iter__(self) -> Iterator[ReadNotice]:
        """The notices kept: about the whole file first, then the line details."""
        yield from self.file_notices
        yield from sorted(self.details, key=lambda notice: notice.line_no)

    def append(self, notice: ReadNotice) -> None:
        if self.path is None:
            self.path = notice.path
        if notice.damage is None:
            if len(self.file_notices) < self.detail_limit:
                self.file_notices.append(notice)
            else:
                self._more_file_notices += 1
            return
        self._count(notice.line_no, notice.damage == "skipped")
        if len(self.details) < self.detail_limit:
            self.details.append(notice)

    def skip_line(self, path: Path, line_no: int) -> None:
        """Count a skipped line without its reason (the details are full)."""
        if self.path is None:
            self.path = path
        self._count(line_no, True)

    def skip_lines(self, path: Path, count: int, first: int, last: int) -> None:
        """Count ``count`` skipped lines between line ``first`` and line ``last`` (reasons unknown)."""
        if self.path is None:
            self.path = path
        self.skipped_lines += count
        self.first_line = first if not self.first_line else min(self.first_line, first)
        self.last_line = max(self.last_line, last)

    def _count(self, line_no: int, skipped: bool) -> None:
        # A line's notices arrive together (reading forwards or backwards), so a change of line
        # number starts a new line; a line first read in part and then skipped counts as skipped.
        if line_no != self._line:
            self._line, self._line_skipped = line_no, skipped
            if skipped:
                self.skipped_lines += 1
            else:
                self.partial_lines += 1
            self.first_line = line_no if not self.first_line else min(self.first_line, line_no)
            self.last_line = max(self.last_line, line_no)
        elif skipped and not self._line_skipped:
            self._line_skipped = True
            self.partial_lines -= 1
            self.skipped_lines += 1

    def summary(self) -> str | None:
        """One line about the damaged lines ("x.jsonl: 837,803 damaged lines skipped (lines 2 to
        837,900); the rest is here"), or None when no line was damaged."""
        if not self.damaged_lines:
            return None
        parts = []
        if self.skipped_lines:
            plural = "s" if self.skipped_lines != 1 else ""
            parts.append(f"{self.skipped_lines:,} damaged line{plural} skipped")
        if self.partial_lines:
            plural = "s" if self.partial_lines != 1 else ""
            parts.append(f"{self.partial_lines:,} damaged line{plural} read in part")
        name = f"{self.path.name}: " if self.path is not None else ""
        if self.first_line == self.last_line:
            where = f"line {self.first_line:,}"
        else:
            where = f"lines {self.first_line:,} to {self.last_line:,}"
        return f"{name}{' and '.join(parts)} ({where}); the rest is here"

    def lines(self, details_in: str | None = None) -> list[str]:
        """What to tell the user: each file-level notice, then the summary (a handful of lines);
        ``details_in`` names where :meth:`log` put the details."""
        said = [str(notice) for notice in self.file_notices]
        if self._more_file_notices:
            said.append(f"… and {self._more_file_notices:,} more problems reading the file")
        summary = self.summary()
        if summary is not None:
            said.append(f"{summary} (details in {details_in})" if details_in else summary)
        return said

    def detail_lines(self) -> list[str]:
        """The kept details, by line number: ``line 12: not valid JSON ...``."""
        return [
            f"line {notice.line_no}: {notice.reason}"
            for notice in sorted(self.details, key=lambda notice: notice.line_no)
        ]

    def log(self, logger: logging.Logger) -> None:
        """Write what was found to ``logger``: the file-level notices, the summary and the details."""
        summary = self.summary()
        for notice in self.file_notices:
            logger.warning("%s", notice)
        if summary is None:
            return
        logger.warning(
            "%s. %d of them in detail: %s", summary, len(self.details), "; ".join(self.detail_lines())
        )


#: Where the reader reports: a plain list keeps every notice (a few lines read on purpose), a
#: :class:`ReadNotices` counts them and keeps a few (whole files).
Notices = list[ReadNotice] | ReadNotices


def report_lines(notices: Notices) -> list[str]:
    """What could not be read, a line each (``line 12: reason``), for an export or a terminal: for a
    :class:`ReadNotices` that counted more lines than it kept, its summary first; then each notice
    kept."""
    listed = [
        f"line {notice.line_no}: {notice.reason}" if notice.line_no else notice.reason for notice in notices
    ]
    if isinstance(notices, ReadNotices) and notices.damaged_lines > len(notices.details):
        listed.insert(0, f"{notices.summary()}; the first reasons follow")
    return listed
