"""Running git for the checkpoint store: a scrubbed environment, nothing from the project.

The project is treated as hostile. Its ``.git`` (config, hooks, attributes, fsmonitor) must never
run anything or change a byte: every command runs with the user's ``GIT_*`` variables dropped,
no global or system config, hooks pointed at ``/dev/null``, no fsmonitor and no line-ending
conversion. The store's ``info/attributes`` turns every filter, ``eol`` and ``ident`` off (it beats
the project's ``.gitattributes``), so blobs are the files' bytes; files are written back by zett
itself, never by ``checkout``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from zett_tui.core.outside_programs import find_program, safe_environment

GIT = "/usr/bin/git"

#: ``-c`` settings given to every command: nothing of the project or the user may run.
SAFE_CONFIG = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.symlinks=true",
    "core.quotePath=false",
    "core.untrackedCache=false",
    "core.splitIndex=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "commit.gpgSign=false",
    "index.threads=1",
)


class GitMissing(RuntimeError):
    """There is no git to keep checkpoints with."""


class GitFailed(RuntimeError):
    """A git command of the store failed; ``str`` is its first line of complaint."""


class GitTooSlow(GitFailed):
    """A git command of the store ran past its time and was stopped."""


def git_path() -> str | None:
    """The git the store runs (``/usr/bin/git``, else the first on PATH outside every folder a
    sandboxed command may write: ``outside_programs``), or None."""
    if os.access(GIT, os.X_OK):
        return GIT
    return find_program("git")


def scrubbed_environment(git_dir: Path, work_tree: Path | None, index_file: Path | None) -> dict[str, str]:
    """The environment of a store command: the user's own ``GIT_*`` removed, the store's set."""
    env = {key: value for key, value in safe_environment().items() if not key.startswith("GIT_")}
    env.update(
        {
            "GIT_DIR": str(git_dir),
            "GIT_CONFIG_GLOBAL": "/dev/null",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_OPTIONAL_LOCKS": "0",
            "GIT_AUTHOR_NAME": "zett",
            "GIT_AUTHOR_EMAIL": "zett@localhost",
            "GIT_COMMITTER_NAME": "zett",
            "GIT_COMMITTER_EMAIL": "zett@localhost",
            "GIT_ATTR_NOSYSTEM": "1",
            "LC_ALL": "C",
        }
    )
    if work_tree is not None:
        env["GIT_WORK_TREE"] = str(work_tree)
    if index_file is not None:
        env["GIT_INDEX_FILE"] = str(index_file)
    return env


def run_git(
    git_dir: Path,
    work_tree: Path,
    args: Sequence[str],
    *,
    index_file: Path | None = None,
    stdin: bytes | None = None,
    extra_env: Mapping[str, str] | None = None,
    check: bool = True,
    bare: bool = False,
    complaints: list[str] | None = None,
    accept: tuple[int, ...] = (0,),
    timeout: float | None = None,
) -> bytes:
    """Run one git command of the store in ``work_tree``; its stdout. Raises ``GitFailed``.

    ``bare``: no work tree (creating the store); the command runs in ``git_dir``'s parent.
    ``complaints``: given, git's stderr lines are added to it.
    ``accept``: the exit codes that are not a failure (``check=False``: every one).
    ``timeout``: seconds, after which git is killed and ``GitTooSlow`` raised.
    """
    git = git_path()
    if git is None:
        raise GitMissing("git is not installed")
    env = scrubbed_environment(git_dir, None if bare else work_tree, index_file)
    if extra_env:
        env.update(extra_env)
    command = [git]
    for setting in SAFE_CONFIG:
        command += ["-c", setting]
    command += list(args)
    try:
        done = subprocess.run(
            command,
            cwd=git_dir.parent if bare else work_tree,
            env=env,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            check=False,
            timeout=timeout,
        )
    except FileNotFoundError as error:
        raise GitMissing(str(error)) from error
    except subprocess.TimeoutExpired as error:
        raise GitTooSlow(f"git took more than {timeout:g} s") from error
    if complaints is not None:
        complaints.extend(done.stderr.decode("utf-8", "replace").splitlines())
    if check and done.returncode not in accept:
        complaint = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitFailed(complaint[0] if complaint else f"git {args[0]} exited with {done.returncode}")
    return done.stdout
