"""No command zett started outlives zett, even when zett is killed with SIGKILL.

A killed process runs no clean-up, so this rests on the sandbox: bubblewrap runs each command in a
pid namespace of its own and dies with its parent (``--die-with-parent``); when it goes, the
kernel ends everything in that namespace, background children included.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

MARK = "37.5123"

HOST_SCRIPT = textwrap.dedent(
    f"""
    import asyncio, sys
    sys.path.insert(0, {str(Path(__file__).resolve().parent.parent)!r})
    from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
    from zett_tui.runtime.host import AgentHost, HostOptions
    from zett_tui.runtime.modes import PermissionMode

    async def main():
        command = "(sleep {MARK} &) ; sleep {MARK}"
        model = ScriptedModel(tool_step("c1", "bash", {{"command": command}}), text_step("done"))
        host = AgentHost(HostOptions(model_factory=lambda: model, model_label="scripted",
                                     permission_mode=PermissionMode.AUTO))
        await host.start()
        await host.run_turn("go", lambda event: None)

    asyncio.run(main())
    """
)


def _sleepers() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if arguments[:2] == [b"sleep", MARK.encode()]:
            found.append(int(entry.name))
    return found


def _wait(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_a_command_and_its_background_child_die_when_zett_is_killed(project_dir: Path) -> None:
    zett = subprocess.Popen([sys.executable, "-c", HOST_SCRIPT], cwd=project_dir, env=dict(os.environ))
    try:
        assert _wait(lambda: len(_sleepers()) >= 2, 20), "the command never started"
        os.kill(zett.pid, signal.SIGKILL)
        zett.wait(timeout=5)
        assert _wait(lambda: not _sleepers(), 1.0), f"still running a second after zett: {_sleepers()}"
    finally:
        if zett.poll() is None:
            zett.kill()
        for pid in _sleepers():
            os.kill(pid, signal.SIGKILL)
