"""The offline demo model: shows what a zett turn looks like with no key and no network.

It follows the zett-agent model protocol (a ``retry`` attribute and ``stream(request)`` ending in
exactly one ``ModelEvent.completed``), so the real agent loop, tools, approvals and transcript are
exercised, only the "thinking" is canned:

1. On a new user message it streams a short reasoning segment and a sentence, then calls one
   read-only tool the app registers: ``read_file`` on the folder's README when there is one,
   otherwise ``glob`` with ``*``. When the message mentions *shell*, *run* or *bash* and the
   ``bash`` tool is offered, it proposes ``ls -la`` instead, so a newcomer sees an approval dialog.
2. When the last message is that tool's result, it streams a Markdown answer (heading, list,
   table, fenced Python code) that names what the tool found, and says plainly that it is a demo.

Text is streamed in small pieces with a short pause between them, so streaming is visible.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from zett_agent.messages import AnyMessage, AssistantMessage, ToolCall, ToolMessage
from zett_agent.model import (
    ModelEvent,
    ModelRequest,
    ModelResponse,
    ModelUsage,
    RetryOptions,
    ToolCallDelta,
)

__all__ = ["DEMO_NOTICE", "DemoModel"]

#: Said at the end of every answer, so nobody mistakes the demo for a real model.
DEMO_NOTICE = (
    "This is zett's offline demo model; set ANTHROPIC_API_KEY or OPENAI_API_KEY, "
    "or run `zett --model ...` to use a real model."
)
_SHELL_WORDS = re.compile(r"\b(shell|run|bash)\b", re.IGNORECASE)
_README_NAMES = ("README.md", "README.rst", "README.txt", "README", "readme.md")
_PROJECT_MARKERS = (
    ("pyproject.toml", "a Python project"),
    ("setup.py", "a Python project"),
    ("package.json", "a JavaScript/TypeScript project"),
    ("Cargo.toml", "a Rust project"),
    ("go.mod", "a Go project"),
    ("pom.xml", "a Java project"),
    ("Gemfile", "a Ruby project"),
)
_MAX_NAMES = 5
_CODE_SAMPLE = """\
```python
from pathlib import Path

for entry in sorted(Path(".").iterdir()):
    kind = "folder" if entry.is_dir() else "file"
    print(f"{kind:6}  {entry.name}")
```"""


@dataclass(frozen=True)
class _Findings:
    """What the demo learned from the tool results of this turn."""

    tool: str
    names: tuple[str, ...] = ()
    total: int = 0
    headings: tuple[str, ...] = ()
    failed: str = ""


class DemoModel:
    """A canned, offline stand-in for a real model (see the module docstring).

    Args:
        delay: Seconds to pause before each streamed piece; 0 streams as fast as possible.
        chunk_size: Roughly how many characters each streamed piece holds.
    """

    retry = RetryOptions(max_retries=0)
    provider_name = "demo"
    model = "demo"

    def __init__(self, *, delay: float = 0.015, chunk_size: int = 10) -> None:
        if delay < 0 or chunk_size < 1:
            raise ValueError("delay must be >= 0 and chunk_size >= 1")
        self.delay = delay
        self.chunk_size = chunk_size

    async def aclose(self) -> None:
        """Nothing to release; present so the app can close every model the same way."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Look with a tool on a new message; answer once the tool result is back."""
        results = _trailing_tool_results(request.messages)
        if results:
            async for event in self._answer(request, _read_findings(results)):
                yield event
            return
        prompt = _last_user_text(request.messages)
        call = _choose_tool(prompt, {tool.name for tool in request.tools})
        if call is None:
            async for event in self._answer(request, None):
                yield event
            return
        async for event in self._look(request, prompt, call):
            yield event

    # -- the two steps -------------------------------------------------------------------------------

    async def _look(self, request: ModelRequest, prompt: str, call: ToolCall) -> AsyncIterator[ModelEvent]:
        quoted = _shorten(prompt, 60) or "(an empty message)"
        reasoning = (
            f"The user wrote: “{quoted}”. I am the offline demo, so I will show how a turn works: "
            f"use the `{call.name}` tool, then answer from what it returns."
        )
        if call.name == "bash":
            text = (
                "You mentioned running something, so I'll propose a harmless shell command, "
                "`ls -la`. zett asks for your approval before any command runs."
            )
        elif call.name == "read_file":
            text = f"Let me read `{call.arguments['path']}` in this folder first."
        else:
            text = "Let me look at what is in this folder first."
        async for event in self._stream_reasoning(reasoning):
            yield event
        async for event in self._stream_text(text):
            yield event
        arguments = json.dumps(call.arguments)
        yield ModelEvent.tool_call(ToolCallDelta(index=0, id_delta=call.id, name_delta=call.name))
        for piece in _pieces(arguments, self.chunk_size):
            await self._pause()
            yield ModelEvent.tool_call(ToolCallDelta(index=0, arguments_delta=piece))
        message = AssistantMessage(
            content=text, reasoning=reasoning, tool_calls=(call,), provider="demo", model="demo"
        )
        yield ModelEvent.completed(
            ModelResponse(
                message, finish_reason="tool_calls", usage=_usage(request, text + arguments, reasoning)
            )
        )

    async def _answer(self, request: ModelRequest, findings: _Findings | None) -> AsyncIterator[ModelEvent]:
        reasoning = (
            f"The `{findings.tool}` result is back. I will summarise it in Markdown and say that I am a demo."
            if findings
            else "No tools are available, so I will answer directly and say that I am a demo."
        )
        text = _compose_answer(findings, Path.cwd())
        async for event in self._stream_reasoning(reasoning):
            yield event
        async for event in self._stream_text(text):
            yield event
        message = AssistantMessage(content=text, reasoning=reasoning, provider="demo", model="demo")
        yield ModelEvent.completed(
            ModelResponse(message, finish_reason="stop", usage=_usage(request, text, reasoning))
        )

    # -- streaming -----------------------------------------------------------------------------------

    async def _pause(self) -> None:
        await asyncio.sleep(self.delay)

    async def _stream_reasoning(self, text: str) -> AsyncIterator[ModelEvent]:
        for piece in _pieces(text, self.chunk_size):
            await self._pause()
            yield ModelEvent.reasoning(piece)

    async def _stream_text(self, text: str) -> AsyncIterator[ModelEvent]:
        for piece in _pieces(text, self.chunk_size):
            await self._pause()
            yield ModelEvent.text(piece)


# -- reading the request --------------------------------------------------------------------------


def _trailing_tool_results(messages: Sequence[AnyMessage]) -> list[ToolMessage]:
    """The tool results at the end of the conversation, i.e. the answers to the last tool call."""
    results: list[ToolMessage] = []
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            break
        results.append(message)
    return list(reversed(results))


def _last_user_text(messages: Sequence[AnyMessage]) -> str:
    for message in reversed(messages):
        if message.role.value in ("user", "agent"):
            text = getattr(message, "text", None)
            if isinstance(text, str):
                return text
            content = getattr(message, "content", "")
            return content if isinstance(content, str) else ""
    return ""


def _find_readme(folder: Path) -> str | None:
    for name in _README_NAMES:
        try:
            if (folder / name).is_file():
                return name
        except OSError:
            continue
    return None


def _choose_tool(prompt: str, tools: set[str]) -> ToolCall | None:
    """The read-only look the demo takes (or the harmless command it proposes), if a tool allows it."""
    call_id = f"call_demo_{uuid.uuid4().hex[:12]}"
    if "bash" in tools and _SHELL_WORDS.search(prompt):
        return ToolCall(call_id, "bash", {"command": "ls -la"})
    readme = _find_readme(Path.cwd()) if "read_file" in tools else None
    if readme is not None:
        return ToolCall(call_id, "read_file", {"path": readme, "line_count": 60})
    if "glob" in tools:
        return ToolCall(call_id, "glob", {"pattern": "*"})
    return None


def _names_from_listing(output: str) -> list[str]:
    """Entry names from ``ls -la`` output (the last column), without ``.`` and ``..``."""
    names: list[str] = []
    for line in output.splitlines():
        fields = line.split(maxsplit=8)
        if len(fields) == 9 and fields[8] not in (".", ".."):
            names.append(fields[8].split(" -> ")[0])
    return names


def _read_findings(results: Sequence[ToolMessage]) -> _Findings:
    result = results[0]
    text = result.text
    if not result.success:
        return _Findings(
            tool=result.name, failed=_shorten(text.splitlines()[0] if text else "it failed", 160)
        )
    if result.name == "read_file":
        headings = tuple(
            line.lstrip("#").strip()
            for line in text.splitlines()
            if line.startswith("#") and line.lstrip("#").strip()
        )
        return _Findings(tool="read_file", headings=headings, total=len(text.splitlines()))
    if result.name == "bash":
        names = [name for name in _names_from_listing(text) if not name.startswith(".zett-tool-output")]
        return _Findings(tool="bash", names=tuple(names), total=len(names))
    names = [line.strip() for line in text.splitlines() if line.strip()]
    return _Findings(tool=result.name, names=tuple(names), total=len(names))


# -- writing the answer ------------------------------------------------------------------------------


def _code(name: str) -> str:
    """``name`` as inline code that Markdown cannot break."""
    return f"`{name.replace('`', '')}`"


def _shorten(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _plural(count: int, one: str, many: str = "") -> str:
    return f"{count} {one if count == 1 else many or one + 's'}"


def _kind_of(folder: Path, name: str) -> str:
    try:
        return "folder" if (folder / name).is_dir() else "file"
    except OSError:
        return "entry"


def _project_kind(names: Sequence[str]) -> str:
    present = set(names)
    for marker, kind in _PROJECT_MARKERS:
        if marker in present:
            return f"{kind} (there is a {_code(marker)})"
    return "a folder of files (no project file I recognise)"


def _compose_answer(findings: _Findings | None, folder: Path) -> str:
    place = _code(folder.name or str(folder))
    if findings is None:
        heading = "## Hello from zett"
        points = [
            "- I can read, search and edit files, and run commands with your approval.",
            "- Each tool call shows up in the transcript as it happens.",
        ]
        table = [
            "| Tool | What it does |",
            "|---|---|",
            "| `read_file` | reads a file |",
            "| `grep` | searches file contents |",
            "| `bash` | runs a command, after you approve it |",
        ]
    elif findings.failed:
        heading = "## The tool did not run"
        points = [
            f"- `{findings.tool}` reported: {findings.failed}",
            "- If you declined an approval, that is the approval dialog doing its job: nothing ran.",
        ]
        table = ["| Tool | Outcome |", "|---|---|", f"| `{findings.tool}` | failed or declined |"]
    elif findings.tool == "read_file":
        shown = findings.headings[:_MAX_NAMES]
        heading = f"## What the README in {place} says"
        listed = ", ".join(f"**{_shorten(title, 40)}**" for title in shown) or "no headings"
        points = [
            f"- It has **{_plural(findings.total, 'line')}**; its headings include {listed}.",
            "- I read it with `read_file`, a read-only tool, so nothing changed on disk.",
            "- Ask me to explain a file, or say *run* to see a command approval.",
        ]
        table = ["| Heading | Position |", "|---|---|"] + [
            f"| {_shorten(title, 40).replace('|', '/')} | {index} |"
            for index, title in enumerate(shown, start=1)
        ]
        if not shown:
            table.append("| (none) | · |")
    else:
        shown = findings.names[:_MAX_NAMES]
        how = "`ls -la` in the shell" if findings.tool == "bash" else "`glob` and the pattern `*`"
        heading = f"## What is in {place}"
        if findings.total:
            listed = ", ".join(_code(name) for name in shown) + (" …" if findings.total > len(shown) else "")
            points = [
                f"- **{_plural(findings.total, 'entry', 'entries')}**, including {listed}.",
                f"- It looks like {_project_kind(findings.names)}.",
                f"- I listed it with {how}.",
            ]
        else:
            points = [f"- The folder looks empty: {how} found nothing.", "- Create a file and ask me again."]
        table = ["| Entry | Kind |", "|---|---|"] + [
            f"| {_code(name)} | {_kind_of(folder, name)} |" for name in shown
        ]
        if not shown:
            table.append("| (nothing) | · |")
    return "\n".join(
        [
            heading,
            "",
            *points,
            "",
            *table,
            "",
            "Here is a small Python script that lists a folder the same way:",
            "",
            _CODE_SAMPLE,
            "",
            DEMO_NOTICE,
            "",
        ]
    )


def _pieces(text: str, size: int) -> list[str]:
    """Split ``text`` into pieces of about ``size`` characters, preferably after a space."""
    pieces: list[str] = []
    current = ""
    for token in re.findall(r"\S+\s*|\s+", text):
        if current and len(current) + len(token) > size:
            pieces.append(current)
            current = ""
        current += token
        while len(current) > size * 3:
            pieces.append(current[:size])
            current = current[size:]
    if current:
        pieces.append(current)
    return pieces


def _usage(request: ModelRequest, output: str, reasoning: str) -> ModelUsage:
    """Plausible token counts: about four characters a token, tool definitions included."""
    prompt_chars = sum(len(_message_text(message)) for message in request.messages)
    prompt_chars += sum(len(tool.description) + len(json.dumps(tool.parameters)) for tool in request.tools)
    reasoning_tokens = len(reasoning) // 4
    return ModelUsage(
        input_tokens=max(1, prompt_chars // 4),
        output_tokens=max(1, len(output) // 4) + reasoning_tokens,
        reasoning_tokens=reasoning_tokens,
        cache_reported=False,
    )


def _message_text(message: AnyMessage) -> str:
    text = getattr(message, "text", None)
    if isinstance(text, str):
        return text
    content = getattr(message, "content", "")
    return content if isinstance(content, str) else ""
