"""The agent's shell commands run inside zett-agent's sandbox: what they may touch, and how they run.

A list of dangerous words cannot say what a command will do (``$(echo rm) -rf``, ``python -c``,
a symlink...), so the operating system decides instead. On Linux each command runs behind
bubblewrap (on macOS, Seatbelt), with this policy:

- the project folder and a private ``/tmp`` are writable, and the existing package caches builds
  need (pip, uv, npm, cargo, go); the rest of the file system is read-only, and ``.git/hooks``,
  ``.git/config`` and the shell's start-up files stay read-only inside the project too;
- credential stores (``secret_places``: ``~/.ssh``, ``~/.aws``... and zett's own config, data and
  state folders, plus a few more below) are not visible at all;
- the network is off unless ``[sandbox] network = true`` or the user allows it for one command;
- the environment is a short list of names builds need (never a provider key).

``ShellSandbox`` checks once whether a sandbox can start here and runs one command the way
zett-agent's ``bash`` tool does (the same preview, errors and timeout; the whole process group
stopped on timeout or cancel), except that a truncated command's full streams are written straight
to zett's tool-output folder, redacted, never into the project. The bubblewrap argument vector is
prepared in a thread after each command and checked before the next one uses it (``wrap_ahead``),
so resolving the policy (a scan of the project) is off the event loop and, mostly, off the
critical path. Whether the sandbox stopped a failed command is guessed from its output by
``sandbox_blocks``. No Textual here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import IO

from zett_agent.sandbox import (
    PassthroughSandbox,
    Sandbox,
    SandboxedCommand,
    SandboxError,
    SandboxPolicy,
    create_sandbox,
)
from zett_agent.tools.output import shell_preview

from zett_tui.config.schema import SandboxSettings
from zett_tui.core import paths
from zett_tui.core.outside_programs import register_writable, writable_roots
from zett_tui.core.paths import ensure_private_dir
from zett_tui.core.redact import redact_file
from zett_tui.runtime.shell.left_behind import LeftBehind
from zett_tui.runtime.shell.live_output import Report, wait_watching
from zett_tui.runtime.shell.project_sandbox import (
    PlaceholderLease,
    ProjectSandbox,
    bound_paths,
    project_sandbox,
)
from zett_tui.runtime.shell.sandbox_blocks import SandboxBlock, block_of
from zett_tui.runtime.shell.sandbox_policy import (
    hidden_paths,
    outside_environment,
    sandbox_environment,
    sandbox_policy,
    tool_caches,
)
from zett_tui.runtime.shell.stopping import stop_command_tree, stop_group
from zett_tui.runtime.shell.wrap_ahead import MANY_STAMPS, PreparedWrap, still_or_anew

__all__ = [
    "ShellRun",
    "ShellSandbox",
    "Where",
]

log = logging.getLogger(__name__)

#: What ``unavailable_reason`` says with ``[sandbox] mode = "off"``.
TURNED_OFF = 'turned off in your config ([sandbox] mode = "off")'


class Where(StrEnum):
    """Where one command runs."""

    SANDBOX = "sandbox"  # inside, with the network as configured
    NETWORK = "network"  # inside, with the network on (the user allowed it once)
    OUTSIDE = "outside"  # no sandbox at all (the user allowed it once, or none can start)


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


# -- running one command --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShellRun:
    """What one command did: the bash tool's composed output, its exit, and where it ran."""

    exit_code: int
    timed_out: bool
    composed: str
    where: Where
    #: A real sandbox confined it (False outside it, and where none can start).
    isolated: bool
    network: bool
    kept: tuple[Path, ...] = field(default=())
    #: Names that run later (``left_behind.LATER_NAMES``) the command created, and where zett
    #: moved each (out of the project).
    refused: tuple[tuple[str, Path], ...] = field(default=())

    def result(self, timeout_seconds: int, note: str = "") -> str:
        """The tool result, exactly as zett-agent's ``bash`` gives it: the output, or a
        ``RuntimeError`` for a timeout or a non-zero exit. ``note`` (one line from zett) comes right
        after an error's first line, or after the output."""
        if self.timed_out:
            plural = "" if timeout_seconds == 1 else "s"
            raise RuntimeError(
                _with_note(f"Command timed out after {timeout_seconds} second{plural}", note, self.composed)
            )
        if self.exit_code != 0:
            raise RuntimeError(_with_note(f"Command exited with code {self.exit_code}", note, self.composed))
        if note:
            return f"{self.composed}\n{note}" if self.composed else note
        return self.composed


def _with_note(header: str, note: str, composed: str) -> str:
    return f"{header}\n{note}\n{composed}" if note else f"{header}\n{composed}"


SandboxFactory = Callable[[SandboxPolicy], Sandbox]


def _isolating_sandbox(policy: SandboxPolicy, project: Path) -> Sandbox:
    """The platform's sandbox; raises where none can start, never silently runs unconfined. On
    Linux: bubblewrap from a fixed, verified place, with ``.git`` and the other names that run
    later read-only (``left_behind``)."""
    if sys.platform.startswith("linux"):
        return project_sandbox(policy, project, writable_roots())
    return create_sandbox(policy, require_isolation=True)


class ShellSandbox:
    """One project's sandbox: whether one can start here, and running commands in it (or not).

    Call ``start`` once (it runs a probe; from a thread, it blocks for a few milliseconds).
    ``unavailable_reason`` is None when commands are confined, else why not (no user namespaces,
    ``[sandbox] mode = "off"``): every command then asks, and runs outside a sandbox.
    """

    def __init__(
        self,
        project: Path,
        settings: SandboxSettings | None = None,
        *,
        output_dir: Path,
        redact: Callable[[str], str] | None = None,
        environ: Mapping[str, str] | None = None,
        factory: SandboxFactory | None = None,
    ) -> None:
        self.project = _real(project)
        self.settings = settings or SandboxSettings()
        self.output_dir = output_dir
        self._redact = redact
        self._environ = os.environ if environ is None else environ
        self._factory = factory or (lambda policy: _isolating_sandbox(policy, self.project))
        self.unavailable_reason: str | None = "the sandbox has not been checked yet"
        #: By (network, read_only): the project is read-only for Plan Mode's commands.
        self._sandboxes: dict[tuple[bool, bool], Sandbox] = {}
        register_writable([self.project, *tool_caches(self._environ)])
        self._left_behind = LeftBehind(self.project, paths.state_dir() / "refused")
        self._placeholder = PlaceholderLease(self.project, paths.state_dir() / "locks")
        #: Held by a thread preparing the next wrap, and by ``close``.
        self._open = threading.Lock()
        self._closed = False
        self._hidden: list[Path] | None = None
        self._network_once: set[tuple[str, str]] = set()
        self._known_secrets = [str(value) for value in getattr(redact, "known_secrets", ()) or ()]
        #: The next command's wrap, prepared in a thread after the last one (``wrap_ahead``).
        self._ahead: asyncio.Future[PreparedWrap | None] | None = None
        self._prepared: PreparedWrap | None = None
        self._generation = 0

    # -- state ------------------------------------------------------------------------------------

    @property
    def available(self) -> bool:
        return self.unavailable_reason is None

    @property
    def network(self) -> bool:
        """The network is on inside the sandbox for every command (``[sandbox] network = true``)."""
        return self.settings.network

    @property
    def offers_network_once(self) -> bool:
        """An approval may let one command use the network (a sandbox runs, with the network off)."""
        return self.available and not self.network

    def hidden(self) -> list[Path]:
        """The built-in credential places and the user's own (``[sandbox] hidden``), worked out
        once (each is a real path: ~80 ``realpath`` calls)."""
        if self._hidden is None:
            own = [_real(Path(os.path.expanduser(place))) for place in self.settings.hidden]
            self._hidden = list(dict.fromkeys([*hidden_paths(), *own]))
        return list(self._hidden)

    def describe(self) -> str:
        """One line for ``/permissions`` and the start notice."""
        if not self.available:
            return f"Shell sandbox: OFF, {self.unavailable_reason}. Every shell command asks, in every mode."
        network = "on ([sandbox] network = true)" if self.network else "off (a dialog can allow it once)"
        return (
            "Shell sandbox: on. Commands write only in this project and a private /tmp (and the "
            f"package caches); credential folders are hidden; network {network}."
        )

    def where_it_runs(self, *, read_only: bool = False) -> str:
        """Where an approved command runs, in a few words for the approval dialog; ``read_only``:
        the project is read-only for it (Plan Mode), and without a sandbox it does not run."""
        if not self.available:
            if read_only:
                return f"nowhere: Plan Mode runs commands only in a read-only sandbox ({self.unavailable_reason})"
            return f"outside any sandbox: {self.unavailable_reason}"
        network = "network on" if self.network else "no network"
        if read_only:
            return f"in the sandbox, the project read-only (Plan Mode), {network}"
        return f"in the sandbox: writes only in the project, {network}"

    def allow_network_once(self, session_id: str, call_id: str) -> None:
        """The user let this one call use the network (asked in the approval dialog)."""
        self._network_once.add((session_id, call_id))

    def forget_network_once(self, session_id: str, call_id: str) -> None:
        self._network_once.discard((session_id, call_id))

    def take_network_once(self, session_id: str, call_id: str) -> bool:
        key = (session_id, call_id)
        if key in self._network_once:
            self._network_once.discard(key)
            return True
        return False

    # -- checking ---------------------------------------------------------------------------------

    def start(self) -> None:
        """Find out whether a sandbox starts here (blocking: call it from a thread). A ``.git``
        placeholder a crashed session left is removed first (``PlaceholderLease``)."""
        self._placeholder.take()
        if self.settings.mode == "off":
            self.unavailable_reason = TURNED_OFF
            return
        try:
            self._sandbox(network=self.network)
        except (SandboxError, ValueError, OSError) as error:
            self.unavailable_reason = _one_line(str(error)) or type(error).__name__
            log.warning("no shell sandbox: %s", self.unavailable_reason)
        else:
            self.unavailable_reason = None

    def _sandbox(self, *, network: bool, read_only: bool = False) -> Sandbox:
        sandbox = self._sandboxes.get((network, read_only))
        if sandbox is None:
            policy = sandbox_policy(
                self.project,
                network=network,
                hidden=self.hidden(),
                caches=tool_caches(self._environ),
                read_only=read_only,
            )
            sandbox = self._factory(policy)
            self._sandboxes[network, read_only] = sandbox
        return sandbox

    def close(self) -> None:
        """The session ends: the empty ``.git`` placeholder of a project without one goes (unless
        another session in the same folder still runs)."""
        with self._open:
            self._closed = True
            self._placeholder.give_back()

    # -- running ----------------------------------------------------------------------------------

    def blocked(self, run: ShellRun, command: str) -> SandboxBlock | None:
        """Why the sandbox probably stopped ``run`` (``sandbox_blocks``), or None."""
        return block_of(run, command, self.hidden)

    def invalidate_prepared(self) -> None:
        """Something other than a shell command may have changed the project (a file tool ran):
        the next command wraps afresh."""
        self._generation += 1
        self._prepared = None
        self._ahead = None

    def _prepare_next(self) -> None:
        """In a thread: keep the prepared wrap if it still holds, else prepare it anew."""
        sandbox = self._sandboxes.get((self.network, False))
        if sandbox is None or not self.available:
            return
        env = sandbox_environment(self._environ, self.settings.env, self._known_secrets)
        cwd, generation, current = os.getcwd(), self._generation, self._prepared

        def work() -> PreparedWrap | None:
            with self._open:  # a wrap places the .git placeholder: never after ``close`` took it
                if self._closed:
                    return None
                try:
                    return still_or_anew(
                        current, sandbox, network=self.network, cwd=cwd, env=env, generation=generation
                    )
                except Exception:  # a failed preparation only means the next command wraps afresh
                    log.debug("could not prepare the next command's sandbox", exc_info=True)
                    return None

        self._ahead = asyncio.get_running_loop().run_in_executor(None, work)

    async def _wrapped(
        self, sandbox: Sandbox, command: str, *, network: bool, env: dict[str, str]
    ) -> SandboxedCommand:
        """``command`` wrapped: the prepared vector where it still holds, else afresh (in a thread)."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            self._prepared = await ahead  # started when the last command ended: done or nearly
        prepared, cwd = self._prepared, os.getcwd()
        if prepared is not None and prepared.fits(
            network=network, cwd=cwd, env=env, generation=self._generation
        ):
            if len(prepared.stamps) > MANY_STAMPS:
                holds = await asyncio.to_thread(prepared.unchanged)
            else:
                holds = prepared.unchanged()
            if holds:
                return prepared.command(command)
        return await asyncio.to_thread(sandbox.wrap, command, cwd=cwd, env=env)

    async def run(
        self,
        command: str,
        timeout_seconds: int,
        *,
        where: Where = Where.SANDBOX,
        on_output: Report | None = None,
        read_only: bool = False,
        offline: bool = False,
    ) -> ShellRun:
        """Run ``command`` as zett-agent's ``bash`` would, in the sandbox or (``OUTSIDE``) not;
        ``on_output`` is given its last lines a few times a second while it runs (``live_output``).
        ``read_only``: the project is read-only too (Plan Mode). ``offline``: the network is off
        whatever ``[sandbox] network`` says (a read-only subagent's command).

        A name of ``left_behind.LATER_NAMES`` the command created is moved out of the project
        (``ShellRun.refused``).

        Raises ``asyncio.CancelledError`` after the whole process group has been stopped.
        """
        if where is not Where.OUTSIDE and not self.available:
            raise RuntimeError(f"no sandbox: {self.unavailable_reason}")
        network = (self.network or where is Where.NETWORK) and not offline
        sandbox: Sandbox
        if where is Where.OUTSIDE:
            sandbox = PassthroughSandbox(SandboxPolicy(inherit_environment=()))
            env = outside_environment(self._environ, self._known_secrets)
        else:
            if (network, read_only) not in self._sandboxes:
                await asyncio.to_thread(self._sandbox, network=network, read_only=read_only)
            sandbox = self._sandboxes[network, read_only]
            env = sandbox_environment(self._environ, self.settings.env, self._known_secrets)
        if where is Where.OUTSIDE:
            wrapped = sandbox.wrap(command, cwd=Path.cwd(), env=env)
        elif read_only:
            wrapped = await asyncio.to_thread(sandbox.wrap, command, cwd=os.getcwd(), env=env)
        else:
            wrapped = await self._wrapped(sandbox, command, network=network, env=env)
        watch = None
        if where is not Where.OUTSIDE and not read_only:
            bound = bound_paths(wrapped.argv) if isinstance(sandbox, ProjectSandbox) else None
            watch = self._left_behind.watch(bound)
        directory = Path(tempfile.mkdtemp(prefix="shell-", dir=ensure_private_dir(self.output_dir)))
        stdout_file, stderr_file = directory / "stdout.txt", directory / "stderr.txt"
        timed_out = False
        try:
            with _private_file(stdout_file) as stdout, _private_file(stderr_file) as stderr:
                process = await asyncio.create_subprocess_exec(
                    *wrapped.argv,
                    cwd=wrapped.cwd,
                    env=dict(wrapped.env),
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=stdout,
                    stderr=stderr,
                    start_new_session=True,
                    # No resource limits are asked for, and a preexec_fn (which would only turn
                    # core dumps off) makes Python fork the slow way: 4-5 ms a command.
                )
                try:
                    async with asyncio.timeout(timeout_seconds):
                        await wait_watching(process, stdout_file, stderr_file, on_output)
                except TimeoutError:
                    timed_out = True
                    stop_command_tree(process.pid)
                    await process.wait()
                except asyncio.CancelledError:
                    stop_command_tree(process.pid)
                    await process.wait()
                    raise
                else:
                    stop_group(process.pid)  # a background child must not outlive its command
            composed, kept = await self._compose(stdout_file, stderr_file)
        except BaseException:
            shutil.rmtree(directory, ignore_errors=True)
            self._prepare_next()
            raise
        refused = () if watch is None else tuple(await asyncio.to_thread(self._left_behind.move_made, watch))
        self._prepare_next()
        if not kept:
            shutil.rmtree(directory, ignore_errors=True)
        exit_code = process.returncode if process.returncode is not None else -1
        return ShellRun(exit_code, timed_out, composed, where, sandbox.isolated, network, kept, refused)

    async def _compose(self, stdout_file: Path, stderr_file: Path) -> tuple[str, tuple[Path, ...]]:
        """The bash tool's text; a truncated command's files are kept, redacted (off the loop)."""
        stdout, stdout_truncated = shell_preview(stdout_file)
        stderr, stderr_truncated = shell_preview(stderr_file)
        sections = [stdout] if stdout else []
        if stderr:
            sections.append(f"[stderr]\n{stderr}")
        composed = "\n".join(sections)
        if not (stdout_truncated or stderr_truncated):
            return composed, ()
        if self._redact is not None:
            redact = self._redact
            await asyncio.to_thread(_redact_files, (stdout_file, stderr_file), redact)
        composed += f"\n... [output truncated; full streams kept at {stdout_file} and {stderr_file}]"
        return composed, (stdout_file, stderr_file)


def _redact_files(files: Sequence[Path], redact: Callable[[str], str]) -> None:
    for path in files:
        redact_file(path, redact)


@contextlib.contextmanager
def _private_file(path: Path) -> Iterator[IO[bytes]]:
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as stream:
        yield stream


def _one_line(text: str) -> str:
    return " ".join(text.split())
