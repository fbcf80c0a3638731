"""``zett -p PROMPT``: one turn without the app, for scripts and pipes.

The answer streams to standard output (or JSON events, see ``headless_output``); nothing waits
for a dialog: ``runtime.unattended`` answers every runtime question from the flags. The turn is
recorded in the session's JSONL file like any other, also when it fails or is cancelled.

Exit codes: 0 the turn completed (also when the data folder could not be written: the answer was
given, and one ``zett:`` warning on standard error says what was not saved); 1 it failed or the model could not start (the reason is one
line on standard error); 2 a usage error; 128 + the signal on SIGINT (130), SIGTERM (143) or
SIGHUP (129), after cancelling the turn so it is recorded as cancelled; 141 when standard output
was closed (``| head``), the turn is then cancelled too.

This module is imported by the command line on every start, so it imports the runtime lazily.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import select
import signal
import stat
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, BinaryIO, Literal, TextIO

if TYPE_CHECKING:
    from zett_tui.entry.headless_output import HeadlessOutput
    from zett_tui.entry.launch import LaunchSettings
    from zett_tui.runtime.agent_options import HostOptions
    from zett_tui.runtime.decisions import Reply, Request
    from zett_tui.runtime.events import DecisionRequested, TurnFinished
    from zett_tui.runtime.unattended import AutoAnswer, UnattendedPolicy

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 128 + 13
#: Signals that cancel the turn; the exit code is 128 + the signal number.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, *((signal.SIGHUP,) if hasattr(signal, "SIGHUP") else ()))

#: Piped input beyond this is refused rather than sent to the model.
MAX_STDIN_BYTES = 4 * 1024 * 1024
#: After this long with nothing on a pipe, say what zett is waiting for.
STDIN_HINT_SECONDS = 3.0

Output = Literal["text", "json"]


class HeadlessUsageError(Exception):
    """The command line asks for something the non-interactive mode cannot do."""


@dataclass(frozen=True)
class HeadlessRequest:
    prompt: str
    output: Output = "text"
    allow_edits: bool = False
    allow_shell: list[str] = field(default_factory=list)
    allow_read: list[str] = field(default_factory=list)
    allow_mcp: list[str] = field(default_factory=list)
    allow_web: list[str] = field(default_factory=list)


# -- from the command line ------------------------------------------------------------------------


def headless_request(
    options: argparse.Namespace, stdin: TextIO | None, err: TextIO | None = None
) -> HeadlessRequest | None:
    """The non-interactive run the flags ask for, or None to open the app.

    It runs with ``-p``, and also without it when standard input is not a terminal (the prompt is
    then read from it: ``echo question | zett``).

    Raises:
        HeadlessUsageError: an empty prompt, input too large, a prefix ``--allow-shell`` cannot
            take, or a ``-p``-only flag without ``-p``.
    """
    flag: str | None = getattr(options, "prompt", None)
    interactive = flag is None and stdin is not None and _isatty(stdin)
    if interactive:
        used = [
            name
            for name, value in (
                ("--output", options.output),
                ("--allow-edits", options.allow_edits),
                ("--allow-shell", options.allow_shell),
                ("--allow-read", getattr(options, "allow_read", None)),
                ("--allow-mcp", getattr(options, "allow_mcp", None)),
                ("--allow-web", getattr(options, "allow_web", None)),
            )
            if value
        ]
        if used:
            raise HeadlessUsageError(f"{', '.join(used)} only apply with -p PROMPT (non-interactive mode)")
        return None
    if options.allow_shell:
        from zett_tui.runtime.unattended import ShellAllowList

        try:
            ShellAllowList(options.allow_shell)
        except ValueError as error:
            raise HeadlessUsageError(str(error)) from error
    allow_read = list(getattr(options, "allow_read", None) or [])
    for path in allow_read:
        if not os.path.exists(os.path.expanduser(path)):
            raise HeadlessUsageError(f"--allow-read {path}: no such file or folder")
    prompt = read_prompt(flag, stdin, err=err)
    return HeadlessRequest(
        prompt=prompt,
        output=options.output or "text",
        allow_edits=bool(options.allow_edits),
        allow_shell=list(options.allow_shell or []),
        allow_read=allow_read,
        allow_mcp=list(getattr(options, "allow_mcp", None) or []),
        allow_web=_allowed_domains(getattr(options, "allow_web", None) or []),
    )


def _allowed_domains(given: Sequence[str]) -> list[str]:
    """The ``--allow-web`` host names, checked: a bare host name, not a URL or a pattern."""
    import re

    domains = []
    for entry in given:
        domain = entry.strip().rstrip(".").lower()
        if not re.fullmatch(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*", domain):
            raise HeadlessUsageError(
                f"--allow-web {entry}: give a host name such as docs.python.org (not a URL or a pattern)"
            )
        domains.append(domain)
    return domains


def read_prompt(flag: str | None, stdin: TextIO | None, *, err: TextIO | None = None) -> str:
    """The prompt from ``-p`` and standard input.

    ``-p TEXT`` alone is the prompt; with input piped in as well (``cat f | zett -p explain``)
    the input follows the text as context. ``-p -``, or no ``-p`` at all, reads the whole prompt
    from standard input.
    """
    if flag is None or flag == "-":
        prompt = _read_stdin(stdin, wait_hint=None)
        if not prompt.strip():
            raise HeadlessUsageError(
                "the prompt is empty: pipe one in, or give it with -p PROMPT "
                "(zett in a terminal opens the app)"
            )
        return prompt
    if not flag.strip():
        raise HeadlessUsageError("the prompt given with -p is empty")
    piped = _read_stdin(stdin, wait_hint=err) if _has_piped_input(stdin) else ""
    return f"{flag}\n\n{piped}" if piped.strip() else flag


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (ValueError, OSError):
        return False


def _has_piped_input(stdin: TextIO | None) -> bool:
    """True for a pipe, a socket or a redirected file; False for a terminal or /dev/null."""
    if stdin is None or _isatty(stdin):
        return False
    try:
        mode = os.fstat(stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode) or stat.S_ISSOCK(mode)


def _read_stdin(stdin: TextIO | None, *, wait_hint: TextIO | None) -> str:
    if stdin is None:
        return ""
    if wait_hint is not None:
        _hint_when_silent(stdin, wait_hint)
    raw: BinaryIO | None = getattr(stdin, "buffer", None)
    try:
        data = raw.read(MAX_STDIN_BYTES + 1) if raw is not None else stdin.read(MAX_STDIN_BYTES + 1).encode()
    except OSError as error:
        raise HeadlessUsageError(f"cannot read standard input: {error}") from error
    if len(data) > MAX_STDIN_BYTES:
        raise HeadlessUsageError(f"standard input is larger than {MAX_STDIN_BYTES // (1024 * 1024)} MiB")
    return data.decode("utf-8", errors="replace")


def _hint_when_silent(stdin: TextIO, err: TextIO) -> None:
    """Say what zett waits for when a pipe stays silent (an inherited, never-closed stdin)."""
    try:
        ready, _, _ = select.select([stdin], [], [], STDIN_HINT_SECONDS)
    except (OSError, ValueError, TypeError):
        return
    if not ready:
        err.write("zett: waiting for standard input (or run it with </dev/null)\n")
        err.flush()


def run_from_cli(launch: LaunchSettings, request: HeadlessRequest) -> int:
    """Run the request on the real standard streams; returns the exit code."""
    with contextlib.suppress(AttributeError, ValueError):
        sys.stdout.reconfigure(errors="replace")  # type: ignore[union-attr]
    code = asyncio.run(
        run_headless(
            launch,
            request.prompt,
            output=request.output,
            allow_edits=request.allow_edits,
            allow_shell=request.allow_shell,
            allow_read=request.allow_read,
            allow_mcp=request.allow_mcp,
            allow_web=request.allow_web,
            out=sys.stdout,
            err=sys.stderr,
        )
    )
    if code == EXIT_BROKEN_PIPE:
        # Python would complain about the closed pipe again when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return code


# -- the run --------------------------------------------------------------------------------------


async def run_headless(
    launch: LaunchSettings,
    prompt: str,
    *,
    output: Output = "text",
    allow_edits: bool = False,
    allow_shell: Sequence[str] = (),
    allow_read: Sequence[str] = (),
    allow_mcp: Sequence[str] = (),
    allow_web: Sequence[str] = (),
    out: TextIO,
    err: TextIO,
    handle_signals: bool = True,
) -> int:
    """Run one turn for ``prompt`` with no one to ask; returns the exit code."""
    from zett_tui.entry.headless_output import JsonOutput, TextOutput
    from zett_tui.runtime.unattended import ShellAllowList, UnattendedPolicy

    try:
        shell = ShellAllowList(allow_shell)
    except ValueError as error:
        err.write(f"zett: {error}\n")
        return EXIT_USAGE
    policy = UnattendedPolicy(
        allow_edits=allow_edits,
        shell=shell,
        project_root=launch.cwd,
        allow_read=tuple(allow_read),
        allow_mcp=tuple(allow_mcp),
        allow_web=tuple(allow_web),
    )
    writer: HeadlessOutput = JsonOutput(out, err) if output == "json" else TextOutput(out, err)
    configured = {server.name for server in launch.mcp_servers}
    for entry in allow_mcp:
        if entry.split("__", 1)[0] not in configured:
            writer.warning(f"--allow-mcp {entry}: no MCP server {entry.split('__', 1)[0]!r} is configured")

    fallback = demo_fallback_reason(launch)
    for _level, text in launch.notices:
        if fallback is None or "demo model" not in text:
            writer.warning(text)
    if fallback is not None:
        writer.failed_to_start(fallback)
        return EXIT_FAILED

    work = asyncio.create_task(_run_turn(launch, prompt, policy, writer))
    stopped_by: list[int] = []

    def stop(code: int) -> None:
        if not stopped_by:
            stopped_by.append(code)
            work.cancel()

    writer.on_broken = lambda: stop(EXIT_BROKEN_PIPE)
    installed = _install_signal_handlers(stop) if handle_signals else []
    try:
        return await work
    except asyncio.CancelledError:
        if not stopped_by:
            raise
        writer.event(_cancelled())
        return stopped_by[0]
    finally:
        loop = asyncio.get_running_loop()
        for signum in installed:
            loop.remove_signal_handler(signum)


def demo_fallback_reason(launch: LaunchSettings) -> str | None:
    """Why the offline demo model stands in for a model that cannot be used, or None.

    The app falls back to the demo with a notice; a script would get canned answers and exit 0,
    so here that is a failure. Asking for the demo (``--demo``, ``--model demo``) is not.
    """
    if not launch.is_demo:
        return None
    reasons = [text for _level, text in launch.notices if "demo model" in text]
    if not reasons:
        return None
    kept = [sentence for sentence in _sentences(reasons[0]) if "demo model" not in sentence]
    detail = " ".join(kept)
    return "no usable model (non-interactive mode does not fall back to the demo; --demo runs it)" + (
        f". {detail}" if detail else ""
    )


def _sentences(text: str) -> list[str]:
    first_line = text.splitlines()[0] if text.strip() else ""
    parts = [part.strip() for part in first_line.replace(". ", ".\n").splitlines()]
    return [part for part in parts if part]


def _cancelled() -> TurnFinished:
    from zett_tui.runtime.events import TurnFinished

    return TurnFinished("cancelled")


def _install_signal_handlers(stop: Callable[[int], None]) -> list[int]:
    """Cancel the turn on the first stop signal; a second one finds the default handler again."""
    loop = asyncio.get_running_loop()
    installed: list[int] = []

    def handler(signum: int) -> None:
        for number in installed:
            loop.remove_signal_handler(number)
        installed.clear()
        stop(128 + signum)

    for signum in STOP_SIGNALS:
        try:
            loop.add_signal_handler(signum, handler, int(signum))
        except (NotImplementedError, RuntimeError, ValueError):
            continue
        installed.append(int(signum))
    return installed


async def _run_turn(
    launch: LaunchSettings, prompt: str, policy: UnattendedPolicy, writer: HeadlessOutput
) -> int:
    from zett_tui.entry.bootstrap import StartFailed, load_files, open_session
    from zett_tui.runtime.events import DecisionRequested, UIEvent
    from zett_tui.runtime.mcp.lifetime import started_for_one_turn
    from zett_tui.runtime.modes import PermissionMode
    from zett_tui.runtime.session import SessionCore
    from zett_tui.runtime.turn_model import TurnModel, model_for_command
    from zett_tui.workspace.extension_folders import command_named_in, expand_prompt

    files = await load_files(launch, writer.warning)
    command = command_named_in(prompt, files)
    turn_model: TurnModel | None = None
    if command is not None and command.model:  # the command's own model answers, as in the chat
        turn_model, model_problem = model_for_command(
            command.name, command.model, launch.model_catalog, launch.model_label
        )
        if model_problem:
            writer.warning(model_problem)
    prompt = expand_prompt(prompt, files)
    mcp = await started_for_one_turn(launch.mcp_servers, writer.warning)
    try:
        # always "ask": every change and command becomes a decision the flags answer
        host = await open_session(launch, files, mcp=mcp, permission_mode=PermissionMode.ASK)
    except StartFailed as error:
        writer.failed_to_start(f"could not start the model: {error}")
        if mcp is not None:
            await asyncio.to_thread(mcp.stop)
        return EXIT_FAILED
    core: SessionCore | None = None
    try:
        policy.sandbox_missing = (
            host.shell_sandbox.unavailable_reason
            if host.shell_sandbox is not None
            else "the agent has no shell sandbox"
        )
        writer.session(host.session_id, launch.model_label, resumed=launch.resume_path is not None)
        asker = FlagAsker(policy, writer)
        core = SessionCore(host, asker, describe_answer=asker.record_line)

        def show(event: UIEvent) -> None:
            if not isinstance(event, DecisionRequested):
                writer.event(event)

        core.listeners.append(show)
        finished = await core.prompt(prompt, model=turn_model)
        return EXIT_OK if finished.status == "completed" else EXIT_FAILED
    finally:
        if core is not None:
            await core.aclose()  # a turn still running is cancelled and recorded first
        else:
            await host.aclose()
        if mcp is not None:
            await asyncio.to_thread(mcp.stop)


@dataclass
class FlagAsker:
    """``zett -p``'s answers (``runtime.decisions.Asker``): the flags decide at once, and the
    output says what was allowed or refused and why."""

    policy: UnattendedPolicy
    writer: HeadlessOutput
    #: The last answer given, for its line in the session (``record_line``).
    last: AutoAnswer | None = None

    async def ask(self, request: Request) -> Reply:
        answer = self.last = self.policy.decide(request)
        self.writer.answered(answer, request.session_id)
        return answer.reply

    def record_line(self, decision: DecisionRequested, reply: Reply) -> str | None:
        """The session keeps what the flags decided and why (nobody was asked): the line the
        output said, after ``zett -p``."""
        answer = self.last
        if answer is None or answer.reply is not reply:
            return None
        return f"{'✓' if answer.allowed else '✗'} zett -p {answer.describe()}"


def host_options(launch: LaunchSettings, mcp_manager: Any = None) -> HostOptions:
    """The host the chat screen's warm-up builds, always in the "ask" permission mode.

    In that mode every file change and every shell command becomes a decision, which
    ``UnattendedPolicy`` answers from the flags; only a shell rule the user saved in the app lets
    a command run unasked, and the host then says so in a notice.
    """
    from zett_tui.entry.host_options import options_from_launch
    from zett_tui.runtime.modes import PermissionMode

    return options_from_launch(launch, permission_mode=PermissionMode.ASK, mcp_manager=mcp_manager)
