"""What a failed shell command's output says about the sandbox: whether it probably stopped it, and why.

The sandbox itself (``sandbox.ShellSandbox``) runs the command; this module only reads what came
of it (the output, the exit, the command's words) and words the guess for the user and the model:
a refused write, the network being off, a hidden credential place, or names that run later which
the command created (moved out of the project by ``left_behind``). No Textual here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from zett_tui.core.contained_read import is_inside

__all__ = ["FinishedRun", "SandboxBlock", "block_of", "blocked_by_sandbox", "refused_block"]


class FinishedRun(Protocol):
    """What these guesses read of one finished command (``sandbox.ShellRun``)."""

    @property
    def exit_code(self) -> int: ...
    @property
    def timed_out(self) -> bool: ...
    @property
    def composed(self) -> str: ...
    @property
    def isolated(self) -> bool: ...
    @property
    def network(self) -> bool: ...
    @property
    def refused(self) -> tuple[tuple[str, Path], ...]: ...


#: A refused write: a read-only mount, or renaming or removing one (``.git`` and the other names
#: that run later are mount points inside the sandbox).
_WRITE_SIGNS = ("read-only file system", "device or resource busy")
_NETWORK_SIGNS = (
    "network is unreachable",
    "could not resolve host",
    "temporary failure in name resolution",
    "name or service not known",
    "no address associated with hostname",
    "nodename nor servname",
    "connection refused",
    "couldn't connect to server",
    "failed to establish a new connection",
    "no route to host",
    "enetunreach",
    "econnrefused",
    "eai_again",
    "enotfound",
    "getaddrinfo",
)


@dataclass(frozen=True, slots=True)
class SandboxBlock:
    """Why a failed command looks stopped by the sandbox: ``write``, ``network`` or ``hidden``."""

    kind: str
    #: What points to it: the words in the output, or the hidden path the command names.
    evidence: str

    @property
    def reason(self) -> str:
        """One sentence, worded as the guess it is."""
        return self.explained(read_only=False)

    def explained(self, *, read_only: bool) -> str:
        """:attr:`reason`, for a run with the project ``read_only`` (Plan Mode, a read-only subagent)."""
        if self.kind == "write":
            what = (
                "the project is read-only inside it, and commands write only in a private /tmp"
                if read_only
                else "it lets commands write only in the project folder and a private /tmp"
            )
            return f"The sandbox probably stopped this command: {what} (“{self.evidence}”)."
        if self.kind == "later":
            return (
                f"The sandbox does not let commands create {self.evidence}: something outside the "
                "sandbox runs or loads it later. zett moved what the command made out of the project."
            )
        if self.kind == "network":
            return f"The sandbox probably stopped this command: the network is off inside it (“{self.evidence}”)."
        return f"The sandbox probably stopped this command: it hides {self.evidence} from commands."


def refused_block(refused: Sequence[tuple[str, Path]]) -> SandboxBlock:
    """The block for a command that created names that run later (moved to the paths given)."""
    names = ", ".join(f"{name} (moved to {target})" for name, target in refused)
    return SandboxBlock("later", names)


def _sign(text: str, signs: Sequence[str]) -> str | None:
    lowered = text.lower()
    for sign in signs:
        index = lowered.find(sign)
        if index >= 0:
            return text[index : index + len(sign)]
    return None


def _home_form(path: Path, home: Path) -> str | None:
    return "~/" + path.relative_to(home).as_posix() if path != home and is_inside(path, home) else None


def blocked_by_sandbox(
    run: FinishedRun, command: str, *, hidden: Sequence[Path] = (), home: Path | None = None
) -> SandboxBlock | None:
    """A guess that the sandbox stopped ``run``: a failed, isolated run whose output (or command)
    shows a refused write, the network being off, or a hidden credential place. None otherwise."""
    if not run.isolated or run.timed_out or run.exit_code == 0:
        return None
    output = run.composed
    written = _sign(output, _WRITE_SIGNS)
    if written:
        return SandboxBlock("write", written)
    if not run.network:
        unreachable = _sign(output, _NETWORK_SIGNS)
        if unreachable:
            return SandboxBlock("network", unreachable)
    base = home if home is not None else Path.home()
    real_home = Path(os.path.realpath(base))
    for secret in hidden:
        forms = [str(secret)]
        short = _home_form(secret, real_home)
        if short is not None:
            relative = short.removeprefix("~/")
            forms += [short, f"$HOME/{relative}", "${HOME}/" + relative, str(base / relative)]
        if any(form in command or form in output for form in forms):
            return SandboxBlock("hidden", short or str(secret))
    return None


def block_of(run: FinishedRun, command: str, hidden: Callable[[], Sequence[Path]]) -> SandboxBlock | None:
    """Why the sandbox stopped ``run`` (or moved what it made), or None. ``hidden`` gives the
    credential places; it is called only for a failed, isolated run (most commands succeed)."""
    if run.refused:
        return refused_block(run.refused)
    if not run.isolated or run.timed_out or run.exit_code == 0:
        return None
    return blocked_by_sandbox(run, command, hidden=hidden())
