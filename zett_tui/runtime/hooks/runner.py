"""A session's hooks: which ones an event runs, running them together, and reporting failures once.

``SessionHooks.run(event, fields, names)`` starts every hook of ``event`` whose matcher takes one
of ``names`` at the same time, waits for all of them (each within its own timeout) and returns
what they say together (``protocol.EventOutcome``). A hook that fails (cannot start, times out,
exits with another code than 0 or 2, says something zett cannot use) is reported once per
session through ``report`` and counts as having said nothing: the turn goes on.

A project's hooks run only while the folder is trusted *as it is now*: before each run its
``.zett/`` files and the scripts its hooks name are hashed again (``config.trust.still_trusted``).
A model that edits ``.zett/hooks/check.sh`` (or the config) in the middle of a session changes the
hash, and from then on the project's hooks stay off until the user trusts the folder again.
That check and the run it allows happen while no tool call of zett's runs (``RunGuard``): a
write in the same parallel batch cannot land between the hash and the hook.

A hook of the user's own config that names a file inside the project (``./check.sh``) runs only
while that file holds the bytes the user allowed (``config.pinned_files``, ``/extensions allow``):
a change, also one made in an earlier session, keeps it off until the user allows the new bytes.
(Fingerprints taken at the session's start were not enough: the next session took a planted
script as it found it.) The same guard keeps tool calls apart from those checks.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from zett_tui.config.hooks import HookConfig, files_named
from zett_tui.core.outside_programs import safe_environment
from zett_tui.runtime.hooks.named_files import fingerprints, project_files
from zett_tui.runtime.hooks.process import run_command
from zett_tui.runtime.hooks.protocol import CLAUDE_PERMISSION_MODES, EventOutcome, HookReply, interpret

log = logging.getLogger(__name__)

Report = Callable[[str, str], None]
"""(text, level) -> the user hears it (the host's notices)."""


class RunGuard:
    """Tool calls run together; a project's hooks run alone, while no tool call runs.

    Counters on one event loop, no lock: a state change wakes every waiter (``_changed``), which
    looks again. A hook that waits keeps new tool calls from starting, so it is not starved."""

    def __init__(self) -> None:
        self._tools = 0
        self._hook = False
        self._hooks_waiting = 0
        self._changed = asyncio.Event()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def _until(self, ready: Callable[[], bool]) -> None:
        while not ready():
            await self._changed.wait()

    @contextlib.asynccontextmanager
    async def tool(self) -> AsyncIterator[None]:
        await self._until(lambda: not self._hook and not self._hooks_waiting)
        self._tools += 1
        try:
            yield
        finally:
            self._tools -= 1
            self._notify()

    @contextlib.asynccontextmanager
    async def hook(self) -> AsyncIterator[None]:
        self._hooks_waiting += 1
        try:
            await self._until(lambda: not self._hook and not self._tools)
        finally:
            self._hooks_waiting -= 1
            self._notify()  # a tool call that waited behind this hook looks again
        self._hook = True
        try:
            yield
        finally:
            self._hook = False
            self._notify()


class SessionHooks:
    """The configured hooks of one host's session."""

    def __init__(
        self,
        hooks: Sequence[HookConfig],
        *,
        cwd: Path,
        report: Report,
        session_id: Callable[[], str],
        transcript_path: Callable[[], Path | None] = lambda: None,
        mode: Callable[[], str] = lambda: "ask",
        environ: Mapping[str, str] | None = None,
        is_trusted: Callable[[Path], bool] | None = None,
    ) -> None:
        self.hooks = tuple(hooks)
        self.cwd = cwd
        self._report = report
        self._session_id = session_id
        self._transcript_path = transcript_path
        self._mode = mode
        self._environ = environ
        self._is_trusted = is_trusted or _still_trusted
        #: Each hook's first failure this session (said once; ``/extensions`` shows it).
        self.failures: dict[HookConfig, str] = {}
        #: Project folders whose files changed since they were trusted: their hooks stay off.
        self._untrusted: set[Path] = set()
        #: The project files each of the user's hooks runs, as they were at the session's start
        #: (``prepare``).
        self._named: dict[HookConfig, dict[Path, str | None]] = {}
        #: User hooks whose project files are not as allowed (said once until they are again).
        self._changed: set[HookConfig] = set()
        #: Keeps checked hooks apart from tool calls (None: no hook may depend on project files).
        self.guard = RunGuard() if any(map(self._checked, self.hooks)) else None

    async def prepare(self) -> None:
        """Fingerprint the project files the user's hooks name (off the event loop), before the
        agent can change any of them: the host calls this in ``start``."""

        def taken() -> dict[HookConfig, dict[Path, str | None]]:
            named = {
                hook: project_files(hook.command, self.cwd) for hook in self.hooks if hook.source != "project"
            }
            return {hook: fingerprints(paths) for hook, paths in named.items() if paths}

        if any(hook.source != "project" for hook in self.hooks):
            self._named = await asyncio.to_thread(taken)

    def __bool__(self) -> bool:
        return bool(self.hooks)

    def is_off(self, hook: HookConfig) -> bool:
        """A project's hook whose folder changed since it was trusted, or a user's hook whose project
        files changed during the session: it does not run."""
        if hook.source == "project":
            return self._folder_of(hook) in self._untrusted
        return hook in self._changed

    def _checked(self, hook: HookConfig) -> bool:
        """Whether a hook's run may depend on project files that are checked before it (decided
        from its words alone, without touching the disk)."""
        return hook.source == "project" or bool(files_named(hook.command))

    def has(self, event: str) -> bool:
        return any(hook.event == event for hook in self.hooks)

    def matching(self, event: str, names: Sequence[str] = ()) -> list[HookConfig]:
        return [hook for hook in self.hooks if hook.event == event and (not names or hook.matches(names))]

    async def run(self, event: str, fields: Mapping[str, Any], names: Sequence[str] = ()) -> EventOutcome:
        """Run the hooks of ``event`` that match ``names`` (all of them when empty)."""
        matching = self.matching(event, names)
        if not matching:
            return EventOutcome()
        if self.guard is not None and any(map(self._checked, matching)):
            async with self.guard.hook():
                return await self._run_all(event, fields, matching)
        return await self._run_all(event, fields, matching)

    @contextlib.asynccontextmanager
    async def tool_running(self) -> AsyncIterator[None]:
        """Around a tool call's run: a project's hooks wait for it (and it for them)."""
        if self.guard is None:
            yield
            return
        async with self.guard.tool():
            yield

    async def _run_all(
        self, event: str, fields: Mapping[str, Any], matching: list[HookConfig]
    ) -> EventOutcome:
        hooks = [hook for hook in matching if await self._may_run(hook)]
        if not hooks:
            return EventOutcome()
        payload = {**self._common(event), **fields}
        replies = await asyncio.gather(*(self._run_one(hook, payload) for hook in hooks))
        for reply in replies:
            if reply.failure:
                self._fail(reply.hook, reply.failure)
            for message in (reply.message,) if reply.message else ():
                self._report(f"{reply.hook.label}: {message}", "info")
        return EventOutcome(list(replies))

    def _common(self, event: str) -> dict[str, Any]:
        transcript = self._transcript_path()
        return {
            "session_id": self._session_id(),
            "transcript_path": str(transcript) if transcript is not None else "",
            "cwd": str(self.cwd),
            "hook_event_name": event,
            "permission_mode": CLAUDE_PERMISSION_MODES.get(self._mode(), "default"),
        }

    async def _run_one(self, hook: HookConfig, payload: Mapping[str, Any]) -> HookReply:
        folder = self._folder_of(hook)
        # PATH without the folders a sandboxed command may write (``<project>/.venv/bin``), and
        # Python's bytecode cache out of the project: a hook never runs what a command planted.
        environ = safe_environment(os.environ if self._environ is None else self._environ)
        environ["CLAUDE_PROJECT_DIR"] = environ["ZETT_PROJECT_DIR"] = str(folder)
        data = json.dumps({**payload, "cwd": str(folder)}, ensure_ascii=False, default=str).encode()
        try:
            result = await run_command(hook.command, data, cwd=folder, env=environ, timeout=hook.timeout)
        except OSError as error:
            return HookReply(hook, failure=f"could not start: {error.strerror or error}")
        return interpret(hook, result)

    def _folder_of(self, hook: HookConfig) -> Path:
        """Where a hook runs: a project's hooks in the folder that holds its ``.zett``, the user's in
        zett's working folder."""
        if hook.source == "project" and hook.config_file is not None:
            return hook.config_file.parent.parent
        return self.cwd

    async def _may_run(self, hook: HookConfig) -> bool:
        if hook.source != "project":
            return await self._files_unchanged(hook)
        root = self._folder_of(hook)
        if root in self._untrusted:
            return False
        if await asyncio.to_thread(self._is_trusted, root):
            return True
        self._untrusted.add(root)
        self._report(
            f"Project hooks of {root} are off: its .zett/ files or the scripts its hooks run changed "
            "since you trusted them. Review them with /extensions trust.",
            "warning",
        )
        return False

    async def _files_unchanged(self, hook: HookConfig) -> bool:
        """A user's hook runs only while the project files it names hold the bytes the user allowed."""
        from zett_tui.config.pinned_files import unpinned

        named = self._named.get(hook)
        if not named or not (refused := await asyncio.to_thread(unpinned, list(named))):
            self._changed.discard(hook)
            return True
        if hook not in self._changed:
            self._changed.add(hook)
            names = ", ".join(str(path) for path in refused)
            self._report(
                f"{hook.label} ({hook.where}) is off: {names} lies where sandboxed commands write and "
                "is not as you allowed it, and a hook runs outside the sandbox. Look at it, then "
                "/extensions allow.",
                "warning",
            )
        return False

    def files_to_allow(self) -> list[Path]:
        """The project files the user's hooks name (for ``/extensions allow``)."""
        return [path for named in self._named.values() for path in named]

    def _fail(self, hook: HookConfig, failure: str) -> None:
        log.warning("%s (%s) %s", hook.label, hook.where, failure)
        if hook in self.failures:
            return
        self.failures[hook] = failure
        self._report(
            f"{hook.label} ({hook.where}) {failure}; zett carried on without it (said once per session).",
            "error",
        )


def _still_trusted(root: Path) -> bool:
    from zett_tui.config.trust import still_trusted

    return still_trusted(root)
