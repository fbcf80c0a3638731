"""Export a session as readable Markdown or as JSON (the turns exactly as stored, plus the summary).

Both formats stream turn by turn to a text stream. :func:`write_export` writes a file atomically
and private (0600): transcripts hold code and sometimes secrets. Everything written passes through
the redactor first (by default the config's and the built-in rules), so a session recorded before
redaction existed does not carry its credentials into an export.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TextIO

from zett_tui.config.redaction import configured_redactor
from zett_tui.core.inert_text import one_line
from zett_tui.core.paths import write_private
from zett_tui.core.redact import redact_data
from zett_tui.sessions.image_files import image_path
from zett_tui.sessions.index import SessionSummary
from zett_tui.sessions.read_notices import ReadNotices, report_lines
from zett_tui.sessions.reader import Notices, iter_records
from zett_tui.sessions.recorded_turns import iter_turns
from zett_tui.sessions.turn_views import (
    NoteBlock,
    ReasoningBlock,
    SubagentView,
    TextBlock,
    ToolView,
    TurnView,
)

Redact = Callable[[str], str]

TITLE_CHARS = 100
#: Tool output longer than this many lines is shown up to here; the rest folds into <details>.
SHOWN_OUTPUT_LINES = 40
_NOTE_LABELS = {
    "steer": "**You, during the turn:**",
    "agent": "*Note to the agent:*",
    "checkpoint": "*Earlier conversation summarised:*",
    "stop": "⚠",
    "decision": "*Your answer:*",
    "changes": "*Files:*",
    "search": "*Web search:*",
}
_STATUS_WORDS = {"A": " (new)", "D": " (deleted)", "T": " (type changed)"}


def _time(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M %Z").strip() if value is not None else "unknown"


def fence(text: str, info: str = "") -> str:
    """``text`` in a code fence longer than any run of backticks inside it."""
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    marker = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"{marker}{info}\n{body}{marker}\n"


def _inline_code(text: str) -> str:
    marker = "``" if "`" in text else "`"
    return f"{marker} {text} {marker}" if "`" in text else f"{marker}{text}{marker}"


#: What a row says of a call the user said no to (its answer's line follows, with the note).
DECLINED = "**declined by you**"


def _tool_markdown(tool: ToolView) -> str:
    outcomes = {None: "no result (interrupted)", True: "ok", False: "failed"}
    outcome = DECLINED if tool.declined else outcomes[tool.ok]
    head = f"**Tool** `{tool.name}`"
    if tool.key_arg:
        head += f" {_inline_code(tool.key_arg)}"
    parts = [f"{head} — {outcome}\n"]
    if tool.argument_error:
        parts.append(f"\n> arguments could not be read: {tool.argument_error}\n")
    if tool.subagent is not None:
        parts.append(_subagent_markdown(tool.subagent))
    if tool.output:
        lines = tool.output.splitlines(keepends=True)
        parts.append("\n" + fence("".join(lines[:SHOWN_OUTPUT_LINES]), "text"))
        hidden = len(lines) - SHOWN_OUTPUT_LINES
        if hidden > 0:
            parts.append(f"\n<details><summary>… {hidden} more lines</summary>\n\n")
            parts.append(fence("".join(lines[SHOWN_OUTPUT_LINES:]), "text"))
            parts.append("\n</details>\n")
    return "".join(parts)


def _subagent_markdown(child: SubagentView) -> str:
    """A ``task`` call's subagent: its kind, outcome and tokens, and each tool call it made (the
    answers given to it follow the ``task`` row as decision lines)."""
    rows = [f"\n> Subagent `{child.agent_type}` ({child.status}, {child.tokens} tokens)\n"]
    outcomes = {None: "no result", True: "ok", False: "failed"}
    for index, (name, key_arg, ok) in enumerate(child.tools):
        outcome = DECLINED if index in child.declined else outcomes[ok]
        rows.append(f"> - `{name}` {_inline_code(key_arg) if key_arg else ''} — {outcome}\n")
    return "".join(rows)


def _changes_markdown(note: NoteBlock) -> str:
    """ "N files changed, +A -R" and one list item per file with its counts."""
    text = note.text.split(" (/diff", 1)[0]  # the hint names chat commands an export cannot run
    rows = [f"**{text}**\n"]
    if note.files:
        rows.append("\n")
    for path, added, removed, status in note.files:
        rows.append(f"- {_inline_code(path)} +{added} -{removed}{_STATUS_WORDS.get(status, '')}\n")
    return "".join(rows)


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines()) + "\n"


def turn_markdown(turn: TurnView, images: ImageLinks | None = None) -> str:
    """One turn: ``## You``, then ``## zett (model)`` with reasoning, answer, tools, in order.
    ``images``: the prompt's images as Markdown images linking into an export's image folder."""
    if turn.continues:  # carries on the turn before: its prompt is shown there
        parts = ["*(/continue: the turn above carried on)*\n"]
    else:
        parts = ["## You\n\n", (turn.prompt.strip() or "(no text)") + "\n"]
    linked = [images.link(label, stored) for label, stored in turn.prompt_image_files] if images else []
    if any(linked):
        parts.append(
            "\n"
            + "\n".join(
                link or f"*(image {label!r} not kept)*"
                for link, (label, _) in zip(linked, turn.prompt_image_files, strict=True)
            )
            + "\n"
        )
    elif turn.prompt_images:
        parts.append(f"\n*({turn.prompt_images} image{'s' if turn.prompt_images != 1 else ''} attached)*\n")
    parts.append(f"\n## zett ({turn.model})\n" if turn.model else "\n## zett\n")
    for block in turn.blocks:
        parts.append("\n")
        if isinstance(block, TextBlock):
            parts.append(block.text.rstrip("\n") + "\n")
        elif isinstance(block, ReasoningBlock):
            parts.append(
                "<details><summary>Reasoning</summary>\n\n" + block.text.strip() + "\n\n</details>\n"
            )
        elif isinstance(block, ToolView):
            parts.append(_tool_markdown(block))
        elif isinstance(block, NoteBlock) and block.kind == "changes":
            parts.append(_changes_markdown(block))
        elif isinstance(block, NoteBlock):
            label = _NOTE_LABELS.get(block.kind, f"*{block.kind}:*")
            parts.append(_quote(f"{label} {block.text}"))
    if turn.rewound:
        parts.append("\n" + _quote("**Rewound:** /rewind took this turn out of the model's context."))
    if turn.failed:
        parts.append("\n" + _quote(f"**Turn failed:** {turn.error or 'unknown error'}"))
    elif turn.cancelled:
        parts.append("\n" + _quote("**Turn cancelled** before zett finished."))
    elif turn.interrupted:
        parts.append("\n" + _quote("**Turn cut off:** zett was stopped before this turn ended."))
    elif turn.status != "completed":
        parts.append("\n" + _quote(f"**Turn status:** {turn.status}"))
    return "".join(parts)


class ImageLinks:
    """The images an export links to: ``folder_name/<file>`` beside the Markdown file. Collects
    which stored images it linked, for the caller to copy (``export_file.copy_images``)."""

    def __init__(self, source: Path, folder_name: str) -> None:
        self.source = source
        self.folder_name = folder_name
        self.used: list[Path] = []

    def link(self, label: str, stored: str | None) -> str | None:
        path = image_path(self.source, stored)
        if path is None or not path.is_file():
            return None
        if path not in self.used:
            self.used.append(path)
        alt = label.replace("]", "").replace("[", "")
        return f"![{alt}]({self.folder_name}/{path.name})"


def write_markdown(
    summary: SessionSummary,
    out: TextIO,
    notices: Notices,
    redact: Redact | None = None,
    images: ImageLinks | None = None,
) -> int:
    """Write the whole session as Markdown; returns the number of turns written. ``images``: link
    the prompts' images into an image folder beside the export (the caller copies them)."""
    redact = redact or configured_redactor()
    head = [f"# {one_line(summary.title, TITLE_CHARS)}\n\n", f"- **Session:** `{summary.session_id}`\n"]
    if summary.cwd:
        branch = f" (branch `{summary.branch}`)" if summary.branch else ""
        head.append(f"- **Folder:** `{summary.cwd}`{branch}\n")
    if summary.model:
        head.append(f"- **Model:** {summary.model}\n")
    head.append(
        f"- **Started:** {_time(summary.started_at)} · **Last activity:** {_time(summary.last_activity)}\n"
    )
    out.write(redact("".join(head)))
    written = 0
    for turn in iter_turns(summary.path, notices):
        out.write("\n---\n\n")
        out.write(redact(turn_markdown(turn, images)))
        written += 1
    if notices:
        out.write("\n---\n\n*Parts of the session file could not be read:*\n\n")
        for line in report_lines(notices):
            out.write(redact(f"- {line}\n"))
    return written


def write_json(summary: SessionSummary, out: TextIO, notices: Notices, redact: Redact | None = None) -> int:
    """Write ``{"summary", "turns": [records as stored, redacted], "notices"}``; returns the turn count.

    With :class:`ReadNotices`, ``notices`` holds the ones it kept and ``"damaged_lines"`` counts
    every damaged line: ``{"skipped": ..., "read_in_part": ...}``."""
    redact = redact or configured_redactor()
    out.write('{"summary": ')
    out.write(json.dumps(redact_data(summary.to_json(), redact), ensure_ascii=False))
    out.write(',\n"turns": [')
    written = 0
    for record in iter_records(summary.path, notices):
        out.write(",\n" if written else "\n")
        out.write(json.dumps(redact_data(record.data, redact), ensure_ascii=False))
        written += 1
    out.write('\n],\n"notices": ')
    listed = [{"line": notice.line_no, "reason": notice.reason} for notice in notices]
    out.write(json.dumps(redact_data(listed, redact), ensure_ascii=False))
    if isinstance(notices, ReadNotices):
        counted = {"skipped": notices.skipped_lines, "read_in_part": notices.partial_lines}
        out.write(f',\n"damaged_lines": {json.dumps(counted)}')
    out.write("}\n")
    return written


def write_export(path: Path, write: Callable[[TextIO], int]) -> int:
    """Run ``write`` into a private temporary file beside ``path`` and rename it into place."""
    return write_private(path, write)
