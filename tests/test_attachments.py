"""``@path`` attaches a file (or a folder's listing) to the prompt, contained like the read tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.ui_helpers import idle, make_app, notices, ready_app, screen_text, submit, wait_for
from zett_tui.runtime.files.attachments import MAX_FILE_BYTES, attach_mentions, mentioned_paths, preview_chips
from zett_tui.runtime.files.read_access import ReadAccess


def test_mentions_are_words_starting_with_at_and_quoted_paths_keep_their_spaces() -> None:
    prompt = 'see @src/app.py, and @"my notes.md" but not me@example.com or a@b'
    assert mentioned_paths(prompt) == ["src/app.py", "my notes.md"]


def test_a_file_in_the_project_is_attached_with_its_content(project_dir: Path) -> None:
    (project_dir / "app.py").write_text("def main():\n    return 42\n")
    result = attach_mentions("explain @app.py please", ReadAccess(project_dir), project_dir)
    assert [attachment.chip for attachment in result.attached] == ["app.py (2 lines)"]
    assert result.message.startswith("explain @app.py please\n\n")
    assert '<file path="app.py">\ndef main():\n    return 42\n\n</file>' in result.message
    assert result.left_out == []


def test_a_folder_attaches_its_listing(project_dir: Path) -> None:
    (project_dir / "docs" / "guide").mkdir(parents=True)
    (project_dir / "docs" / "index.md").write_text("# Docs\n")
    result = attach_mentions("what is in @docs", ReadAccess(project_dir), project_dir)
    [attachment] = result.attached
    assert attachment.chip == "docs/ (2 entries)"
    assert '<folder path="docs/">\nguide/\nindex.md\n</folder>' in result.message


def test_outside_the_project_nothing_is_read_and_the_user_is_told(project_dir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere" / "secret.txt"
    outside.parent.mkdir()
    outside.write_text("TOP SECRET")
    (project_dir / "link.txt").symlink_to(outside)  # a link inside the project is decided on its real path
    prompt = f"read @{outside} and @link.txt"
    result = attach_mentions(prompt, ReadAccess(project_dir), project_dir)
    assert result.attached == [] and result.message == prompt
    assert "TOP SECRET" not in result.message
    assert len(result.left_out) == 2
    assert all(
        "outside the project folder" in line and "zett will ask you" in line for line in result.left_out
    )


def test_a_credential_store_asks_even_when_the_project_is_the_home_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home-project"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    monkeypatch.setenv("HOME", str(home))
    result = attach_mentions("look at @.ssh and @.ssh/id_ed25519", ReadAccess(home), home)
    assert result.attached == [] and "PRIVATE KEY" not in result.message
    assert len(result.left_out) == 2 and all("always asks" in line for line in result.left_out)


def test_a_large_file_is_cut_and_a_binary_one_is_left_out(project_dir: Path) -> None:
    (project_dir / "big.log").write_text("x" * (MAX_FILE_BYTES * 2))
    (project_dir / "image.bin").write_bytes(b"\x89PNG\0\0\0data")
    result = attach_mentions("@big.log @image.bin", ReadAccess(project_dir), project_dir)
    [big] = result.attached
    assert len(big.content) < MAX_FILE_BYTES + 200 and "more bytes not attached" in big.content
    assert result.left_out == ["@image.bin is not attached: it is not text (a binary file)"]


def test_an_at_word_that_is_no_path_is_sent_as_typed(project_dir: Path) -> None:
    prompt = "ping @alice about @dataclass"
    result = attach_mentions(prompt, ReadAccess(project_dir), project_dir)
    assert result.message == prompt and result.attached == [] and result.left_out == []


async def test_the_model_gets_the_file_and_the_transcript_shows_what_was_attached(project_dir: Path) -> None:
    from zett_agent.messages import UserMessage

    (project_dir / "notes.md").write_text("remember the milk\n")
    model = ScriptedModel(text_step("Milk, noted."))
    app = make_app(model, cwd=project_dir)
    async with ready_app(app) as pilot:
        app.chat.composer.load_text("summarize @notes.md now")
        await pilot.press("end", "enter")
        await wait_for(pilot, lambda: idle(app) and bool(model.requests))
        [*_, sent] = [m for m in model.requests[0].messages if isinstance(m, UserMessage)]
        assert isinstance(sent.content, str)
        assert "remember the milk" in sent.content and sent.content.startswith("summarize @notes.md now")
        assert "📎 attached notes.md (1 line)" in notices(app)


async def test_the_prompt_box_shows_a_chip_for_what_an_at_will_attach(
    project_dir: Path, tmp_path: Path
) -> None:
    (project_dir / "notes.md").write_text("remember the milk\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("not yours")
    app = make_app(ScriptedModel(), cwd=project_dir)
    async with ready_app(app) as pilot:
        composer = app.chat.composer
        composer.load_text(f"compare @notes.md with @{outside} for @alice")
        await pilot.pause()
        shown = screen_text(app)
        assert "📎 notes.md" in shown
        assert "⚠ not attached: " in shown and "@alice" not in composer.border_subtitle
        composer.load_text("nothing attached")
        await pilot.pause()
        assert "📎" not in screen_text(app)


async def test_a_resumed_session_shows_the_prompt_as_typed_not_the_attached_file(project_dir: Path) -> None:
    from tests.fakes.host import Collector, make_host
    from zett_tui.entry.startup import find_session_to_resume

    (project_dir / "notes.md").write_text("remember the milk\n")
    host = await make_host(ScriptedModel(text_step("Milk, noted.")))
    await host.run_turn("summarize @notes.md now", Collector())
    await host.aclose()
    found = find_session_to_resume(project_dir, None, continue_last=True)
    app = make_app(ScriptedModel(), session_id=host.session_id, resume_path=found.path)
    async with ready_app(app):
        assert [block.plain_text() for block in app.chat.transcript.blocks[:1]] == ["summarize @notes.md now"]
        assert "remember the milk" not in screen_text(app)


# -- what the user allowed for the session ---------------------------------------------------------


def test_a_file_the_user_allowed_for_the_session_is_attached_and_says_so(
    project_dir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere" / "notes.txt"
    outside.parent.mkdir()
    outside.write_text("SHARED NOTES\n")
    (outside.parent / "other.txt").write_text("NOT GRANTED\n")
    access = ReadAccess(project_dir)
    access.grant(outside)  # the read dialog's "Allow for this session", for this file only
    result = attach_mentions(f"use @{outside} and @{outside.parent}/other.txt", access, project_dir)
    [attachment] = result.attached
    assert "SHARED NOTES" in result.message and "NOT GRANTED" not in result.message
    assert attachment.chip == f"{outside} (1 line; outside the project, allowed this session)"
    assert preview_chips(f"@{outside} @{outside.parent}/other.txt", access, project_dir) == [
        f"📎 {outside} (outside the project, allowed this session)",
        f"⚠ not attached: {outside.parent}/other.txt",
    ]


def test_a_session_grant_of_a_folder_never_reaches_a_credential_store_or_a_process_environment(
    tmp_path: Path, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home-folder"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    (home / "todo.txt").write_text("buy milk\n")
    (home / "env").symlink_to("/proc/self/environ")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ZETT_TEST_CANARY", "ENVIRON-CANARY")
    access = ReadAccess(project_dir)
    access.grant(home)  # "for this session" on a glob of the home folder
    prompt = "see @~/todo.txt @~/.ssh/id_ed25519 @~/.ssh @~/env @/proc/self/environ @~"
    result = attach_mentions(prompt, access, project_dir)
    assert "buy milk" in result.message
    assert "PRIVATE KEY" not in result.message and "ENVIRON-CANARY" not in result.message
    assert [attachment.path for attachment in result.attached] == ["~/todo.txt", "~/"]
    assert ".ssh" not in result.attached[1].content  # not even named in the folder's listing
    assert len(result.left_out) == 4 and all("always asks" in line for line in result.left_out)
    chips = preview_chips(prompt, access, project_dir)
    assert [chip.startswith("📎") for chip in chips] == [True, False, False, False, False, True]


async def test_after_yes_for_this_session_the_prompt_box_and_the_model_get_the_file(
    project_dir: Path, tmp_path: Path
) -> None:
    from zett_agent.messages import UserMessage

    from tests.test_dialogs import dialog_closed, open_dialog

    outside = tmp_path / "shared" / "spec.md"
    outside.parent.mkdir()
    outside.write_text("SPEC-CANARY: the limit is 42\n")
    model = ScriptedModel(
        tool_step("c1", "read_file", {"path": str(outside)}),
        text_step("Read it."),
        text_step("The limit is 42."),
    )
    app = make_app(model, cwd=project_dir)
    async with ready_app(app, size=(120, 40)) as pilot:
        composer = app.chat.composer
        await submit(pilot, "read the spec")
        dialog = await open_dialog(pilot)
        composer.load_text(f"and now @{outside}")  # drafted while the question is open
        await pilot.pause()
        assert composer.border_subtitle == f"⚠ not attached: {outside}"  # nothing allowed yet
        await pilot.press("down", "enter")  # Allow for this session
        await dialog_closed(pilot, dialog)
        await wait_for(pilot, lambda: idle(app))
        assert composer.border_subtitle == f"📎 {outside} (outside the project, allowed this session)"
        assert "📎" in screen_text(app)
        await pilot.press("end", "enter")
        await wait_for(pilot, lambda: idle(app) and len(model.requests) == 3)
        [*_, sent] = [m for m in model.requests[2].messages if isinstance(m, UserMessage)]
        assert isinstance(sent.content, str) and "SPEC-CANARY" in sent.content
        assert f"📎 attached {outside} (1 line; outside the project, allowed this session)" in notices(app)
        assert not any("is not attached" in line for line in notices(app))
