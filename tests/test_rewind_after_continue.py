"""``/rewind`` right after ``zett --continue`` offers the resumed session's turns, also while the
host that keeps their checkpoints is still starting (it said "Nothing to rewind")."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.ui_helpers import dialog_armed, idle, make_app, notices, ready_app, submit, wait_for
from zett_tui.runtime.modes import PermissionMode


async def test_rewind_while_the_resumed_session_is_still_starting_waits_for_it(project_dir: Path) -> None:
    import threading

    model = ScriptedModel(
        tool_step("w1", "write_file", {"path": "created.txt", "content": "new\n"}), text_step("Made it.")
    )
    first = make_app(model, host_overrides={"permission_mode": PermissionMode.AUTO})
    async with ready_app(first) as pilot:
        await submit(pilot, "make a file")
        await wait_for(pilot, lambda: idle(first) and bool(first.chat.host.checkpoints.last_record))
        host = first.chat.host
        session_id, path = host.session_id, host.recorder.session_path(host.session_id)
    release = threading.Event()

    def slow_model() -> ScriptedModel:
        release.wait(20)
        return ScriptedModel(text_step("unused"))

    again = make_app(ScriptedModel(), factory=slow_model, session_id=session_id, resume_path=path)
    async with again.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: hasattr(again, "chat") and again.chat.composer.display)
        await submit(pilot, "/rewind")
        await wait_for(pilot, lambda: any("still starting" in text for text in notices(again)))
        release.set()
        dialog = await dialog_armed(pilot)
        assert "make a file" in str(dialog.query("ChoiceButton").first().label)
        assert not any("Nothing to rewind" in text for text in notices(again))
