"""More attacks on what runs *later*: names planted below the project's root, by links, by a
process that outlives its command; trust that must cover the bytes it was given for; the
placeholder a crash leaves. Each plants through the real sandbox, then runs what would run later.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.test_later_attacks import evil_git_dir, git, marker
from tests.test_sandbox_shell import Place, place, run_in, shell_for  # noqa: F401  (the fixture)

# -- names that run later, below the root -------------------------------------------------------------

NESTED_PLANTS = {
    "src/.envrc": "mkdir -p src && echo 'touch {marker}' > src/.envrc",
    "a/b/c/d/.git": "mkdir -p a/b/c/d && cd a/b/c/d && {evil}",
    "build/.git": "mkdir -p build && cd build && {evil}",
    "old/sub/.vscode": "mkdir -p old/sub/.vscode && echo '{{}}' > old/sub/.vscode/tasks.json",
    "pkg/.hg": "mkdir -p pkg/.hg && printf '[hooks]\\npre-status = touch {marker}\\n' > pkg/.hg/hgrc",
    "x/.mcp.json": "mkdir -p x && echo '{{}}' > x/.mcp.json",
    "x/.nvim.lua": "mkdir -p x && echo 'os.execute(\"touch {marker}\")' > x/.nvim.lua",
}


@pytest.mark.parametrize("name", sorted(NESTED_PLANTS))
async def test_a_name_that_runs_later_cannot_be_created_in_a_subfolder(place: Place, name: str) -> None:
    for folder in ("old/sub", "a/b/c/d"):  # folders that existed before the command
        (place.project / folder).mkdir(parents=True, exist_ok=True)
    shell = shell_for(place)
    await run_in(shell, "true")  # a first command: the folders are known
    command = NESTED_PLANTS[name].format(marker=marker(place), evil=evil_git_dir(place, ".git"))
    run = await run_in(shell, command)
    assert not (place.project / name).exists(), run
    block = shell.blocked(run, command)
    assert block is not None and block.kind == "later" and name in block.reason
    if name.endswith(".git"):
        git(place.project / Path(name).parent, "status")
        assert not marker(place).exists()


async def test_a_later_name_added_into_an_existing_nested_one_is_moved_out(place: Place) -> None:
    deep = place.project / "a" / "b" / "c" / "d" / ".vscode"
    deep.mkdir(parents=True)
    (deep / "settings.json").write_text("{}")
    shell = shell_for(place)
    await run_in(shell, "true")
    run = await run_in(shell, "echo '{}' > a/b/c/d/.vscode/tasks.json")
    assert not (deep / "tasks.json").exists()
    assert [name for name, _ in run.refused] == ["a/b/c/d/.vscode"]


async def test_ordinary_files_in_subfolders_stay(place: Place) -> None:
    shell = shell_for(place)
    await run_in(shell, "true")
    run = await run_in(shell, "mkdir -p a/b/c/d && echo x > a/b/c/d/conftest.py && echo y > a/Makefile")
    assert not run.refused and (place.project / "a/b/c/d/conftest.py").exists()


# -- the .git placeholder after a crash ---------------------------------------------------------------

CRASHING_SESSION = """
import asyncio, os, signal, sys
from pathlib import Path
from zett_tui.runtime.shell.sandbox import ShellSandbox
shell = ShellSandbox(Path(sys.argv[1]), output_dir=Path(sys.argv[2]))
shell.start()
run = asyncio.run(shell.run("true", 30))
assert os.path.isdir(os.path.join(sys.argv[1], ".git")), run
os.kill(os.getpid(), signal.SIGKILL)
"""


def crash_a_session(place: Place) -> None:
    import sys

    done = subprocess.run(
        [sys.executable, "-c", CRASHING_SESSION, str(place.project), str(place.base / "out")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == -9, done.stderr
    assert (place.project / ".git").is_dir()


def test_the_placeholder_a_crashed_session_left_goes_at_the_next_start(place: Place) -> None:
    crash_a_session(place)
    shell = shell_for(place)
    assert not (place.project / ".git").exists()
    shell.close()


async def test_a_live_session_s_placeholder_stays_while_another_starts_and_ends(place: Place) -> None:
    first = shell_for(place)
    await run_in(first, "true")
    assert (place.project / ".git").is_dir()
    second = shell_for(place)
    assert (place.project / ".git").is_dir()  # the first one's commands stand on it
    second.close()
    assert (place.project / ".git").is_dir()
    run = await run_in(first, "mkdir .git/hooks")
    assert run.exit_code != 0
    first.close()
    assert not (place.project / ".git").exists()


def test_a_real_git_is_never_taken_for_a_placeholder(place: Place) -> None:
    crash_a_session(place)
    subprocess.run(["git", "init", "-q", str(place.project)], check=True)
    shell_for(place).close()
    assert (place.project / ".git" / "HEAD").is_file()
