"""``@path`` attaches a file (or a folder's listing) to the prompt, contained like the read tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import idle, make_app, notices, ready_app, screen_text, wait_for
from zett_tui.runtime.files.attachments import MAX_FILE_BYTES, attach_mentions, mentioned_paths
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
