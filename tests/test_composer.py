"""The composer through the real app: / completion, the @ file finder, large pastes, Ctrl+G, Ctrl+P, F1."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.command import CommandPalette
from textual.widgets import OptionList

from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import (
    answers,
    idle,
    make_app,
    notices,
    prompts,
    ready_app,
    screen_text,
    wait_for,
)
from zett_tui.ui.app import ZettApp
from zett_tui.ui.widgets.completion_menu import CompletionMenu


def menu(app: ZettApp) -> CompletionMenu:
    return app.chat.query_one(CompletionMenu)


def menu_labels(app: ZettApp) -> list[str]:
    return [item.label for item in menu(app).items] if menu(app).is_open else []


def sent_prompt(model: ScriptedModel, request: int = 0) -> str:
    """The text of the last user message in one request the model received."""
    from zett_agent.messages import UserMessage

    [*_, last] = [message for message in model.requests[request].messages if isinstance(message, UserMessage)]
    assert isinstance(last.content, str)
    return last.content


async def type_text(pilot: Any, text: str) -> None:
    await pilot.press(*["space" if char == " " else char for char in text])


# -- slash completion --------------------------------------------------------------------------


async def test_slash_shows_matching_commands_tab_completes_and_enter_runs() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(110, 30)) as pilot:
        await type_text(pilot, "/he")
        await wait_for(pilot, lambda: "/help" in menu_labels(app))
        [item] = [item for item in menu(app).items if item.label == "/help"]
        assert item.detail == "List the commands and keys"
        assert "List the commands and keys" in screen_text(app)
        await pilot.press("tab")
        assert app.chat.composer.text == "/help"
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(text.startswith("Commands:") for text in notices(app)))
        assert app.chat.composer.text == "" and not menu(app).is_open
        assert prompts(app) == []


async def test_enter_on_a_partial_name_completes_it_and_arguments_get_a_space() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(110, 30)) as pilot:
        await type_text(pilot, "/ren")
        await wait_for(pilot, lambda: menu_labels(app)[:1] == ["/rename"])
        assert menu(app).items[0].hint == "TITLE"
        await pilot.press("enter")
        assert app.chat.composer.text == "/rename "  # completed, not run: it needs a title
        assert not menu(app).is_open
        assert not any("Usage: /rename" in text for text in notices(app))


async def test_up_down_move_in_the_menu_and_commands_added_later_appear() -> None:
    from zett_tui.ui.chat.commands.registry import REGISTRY, slash_command

    @slash_command("zz-late", "A command registered after start-up")
    def late(chat: Any, arguments: str) -> None:
        return None

    try:
        app = make_app(ScriptedModel())
        async with ready_app(app, size=(110, 30)) as pilot:
            await type_text(pilot, "/")
            await wait_for(pilot, lambda: len(menu_labels(app)) == len(REGISTRY))
            assert "/zz-late" in menu_labels(app)
            await pilot.press("down", "down")
            assert menu(app).index == 2
            await pilot.press("up")
            assert menu(app).index == 1
            assert app.chat.composer.text == "/"  # Up/Down moved in the menu, not through history
    finally:
        del REGISTRY["zz-late"]


async def test_a_command_recalled_from_history_opens_no_menu_so_up_keeps_browsing() -> None:
    app = make_app(ScriptedModel(text_step("ok")))
    async with ready_app(app, size=(110, 30)) as pilot:
        for prompt in ("first", "/help"):
            await type_text(pilot, prompt)
            await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        composer = app.chat.composer
        await pilot.press("up")
        assert composer.text == "/help" and not menu(app).is_open
        await pilot.press("up")
        assert composer.text == "first"
        await pilot.press("down", "down")
        assert composer.text == ""


async def test_escape_closes_the_menu_and_does_not_stop_the_running_turn() -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("streaming a long answer", gate=gate))
    app = make_app(model)
    async with ready_app(app, size=(110, 30)) as pilot:
        app.chat.composer.load_text("go")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.chat.turns.busy and bool(answers(app)))
        await type_text(pilot, "/he")
        await wait_for(pilot, lambda: menu(app).is_open)
        await pilot.press("escape")
        assert not menu(app).is_open
        assert app.chat.turns.busy, "Esc closed the menu and must not also stop the turn"
        assert app.chat.composer.text == "/he"
        await type_text(pilot, "l")  # the query changed: the menu opens again
        await wait_for(pilot, lambda: menu(app).is_open)
        await pilot.press("escape")
        await pilot.press("escape")  # the menu is closed now, so Esc stops the turn
        await wait_for(pilot, lambda: not app.chat.turns.busy)
        assert answers(app)[0].status != "completed"
        gate.set()


async def test_unknown_command_is_sent_to_the_suggestions_not_the_model() -> None:
    model = ScriptedModel()
    app = make_app(model)
    async with ready_app(app, size=(110, 30)) as pilot:
        await type_text(pilot, "/hlp")
        assert not menu(app).is_open  # nothing starts with or contains "hlp"
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("Unknown command /hlp" in text for text in notices(app)))
        assert "/help" in next(text for text in notices(app) if "Unknown command" in text)
        assert model.requests == []


# -- @ file finder -----------------------------------------------------------------------------


def make_tree(root: Path, count: int) -> list[str]:
    """``count`` files in 100 packages of 7 modules each, plus a few ignored ones."""
    paths = []
    for number in range(count):
        folder = f"pkg{number % 100}/mod{number % 7}"
        if number < 700:
            (root / folder).mkdir(parents=True, exist_ok=True)
        relative = f"{folder}/file_{number}.py"
        os.close(os.open(root / relative, os.O_CREAT | os.O_WRONLY, 0o644))
        paths.append(relative)
    (root / "pkg3" / "mod1").mkdir(parents=True, exist_ok=True)
    (root / "pkg3" / "mod1" / "needle_target_module.py").write_text("x = 1\n")
    (root / "build").mkdir()
    (root / "build" / "needle_target_copy.py").write_text("ignored\n")
    (root / "debug.log").write_text("ignored\n")
    (root / ".gitignore").write_text("build/\n*.log\n")
    return paths


async def test_at_finds_a_file_among_50000_and_inserts_its_path(project_dir: Path) -> None:
    make_tree(project_dir, 50_000)
    subprocess.run(["git", "init", "-q"], cwd=project_dir, check=True)
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(110, 30)) as pilot:
        await type_text(pilot, "look at @")
        composer = app.chat.composer
        await wait_for(pilot, lambda: composer.project_files.index is not None, timeout=20)
        assert len(composer.project_files.index or []) == 50_002  # .gitignore and needle_target_module
        await type_text(pilot, "ndltrgt")
        await wait_for(pilot, lambda: menu_labels(app)[:1] == ["pkg3/mod1/needle_target_module.py"])
        assert not any("build/" in label for label in menu_labels(app))
        await pilot.press("tab")
        assert composer.text == "look at @pkg3/mod1/needle_target_module.py "  # the @ attaches it
        assert not menu(app).is_open


async def test_ignored_files_are_not_offered_without_git(project_dir: Path) -> None:
    make_tree(project_dir, 300)
    (project_dir / "node_modules" / "lib").mkdir(parents=True)
    (project_dir / "node_modules" / "lib" / "needle_target_vendored.js").write_text("")
    (project_dir / "my notes").mkdir()
    (project_dir / "my notes" / "needle target plan.md").write_text("")
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(110, 30)) as pilot:
        await type_text(pilot, "@needle")
        await wait_for(pilot, lambda: len(menu_labels(app)) == 2)
        assert sorted(menu_labels(app)) == [
            "my notes/needle target plan.md",
            "pkg3/mod1/needle_target_module.py",
        ]
        await pilot.press("escape")
        assert not menu(app).is_open and app.chat.composer.text == "@needle"
        app.chat.composer.load_text("see @needletargetplan")
        app.chat.composer.move_cursor((0, len("see @needletargetplan")))
        await wait_for(pilot, lambda: menu_labels(app)[:1] == ["my notes/needle target plan.md"])
        await pilot.press("enter")  # Enter inserts the file while the menu is open; quoted for the space
        assert app.chat.composer.text == 'see @"my notes/needle target plan.md" '


async def test_at_inside_an_email_address_opens_nothing() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(110, 30)) as pilot:
        await type_text(pilot, "mail me@host")
        await pilot.pause(0.1)
        assert not menu(app).is_open


# -- large pastes ------------------------------------------------------------------------------

PASTED = "".join(f"line {n}\twith a tab and trailing spaces   \n" for n in range(239)) + "last line é ✓"


async def test_a_large_paste_shows_compactly_and_is_sent_intact() -> None:
    model = ScriptedModel(text_step("Got it."))
    app = make_app(model)
    async with ready_app(app, size=(110, 30)) as pilot:
        await type_text(pilot, "review ")
        app.post_message(events.Paste(PASTED))
        composer = app.chat.composer
        await wait_for(pilot, lambda: "[Pasted" in composer.text)
        assert composer.text == "review [Pasted 240 lines #1]"
        assert "[Pasted 240 lines #1]" in screen_text(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        assert sent_prompt(model) == "review " + PASTED
        await pilot.press("up")  # history keeps the short form, and it still expands
        assert composer.text == "review [Pasted 240 lines #1]"
        assert composer.pastes.expand(composer.text) == "review " + PASTED


async def test_deleting_the_placeholder_drops_the_paste_and_small_pastes_go_in_as_text() -> None:
    model = ScriptedModel(text_step("ok"))
    app = make_app(model)
    async with ready_app(app, size=(110, 30)) as pilot:
        composer = app.chat.composer
        app.post_message(events.Paste(PASTED))
        await wait_for(pilot, lambda: composer.text == "[Pasted 240 lines #1]")
        await pilot.press("backspace")  # one key removes the whole placeholder
        assert composer.text == ""
        app.post_message(events.Paste("two\nlines"))
        await wait_for(pilot, lambda: composer.text == "two\nlines")
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        assert sent_prompt(model) == "two\nlines"


async def test_an_edited_placeholder_no_longer_expands() -> None:
    model = ScriptedModel(text_step("ok"))
    app = make_app(model)
    async with ready_app(app, size=(110, 30)) as pilot:
        composer = app.chat.composer
        app.post_message(events.Paste(PASTED))
        await wait_for(pilot, lambda: composer.text == "[Pasted 240 lines #1]")
        await pilot.press("left", "backspace")  # "[Pasted 240 lines #]": broken, so plain text
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        assert sent_prompt(model) == "[Pasted 240 lines #]"


# -- Ctrl+G ------------------------------------------------------------------------------------


def editor_script(folder: Path, body: str) -> Path:
    """A tiny 'editor': a shell script that gets the file name as $1."""
    script = folder / "fake-editor.sh"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def run_directly(command: list[str]) -> int:
    return subprocess.call(command)


async def test_ctrl_g_edits_the_prompt_with_pastes_expanded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = tmp_path / "seen.txt"
    script = editor_script(
        tmp_path,
        f'cp "$1" "{seen}"\nstat -c %a "$1" > "{seen}.mode"\n'
        f'printf "rewritten by the editor\\n" > "$1"\ncat "{seen}" >> "$1"\n',
    )
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(script))
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(110, 30)) as pilot:
        composer = app.chat.composer
        composer.run_editor = run_directly
        await type_text(pilot, "before ")
        app.post_message(events.Paste(PASTED))
        await wait_for(pilot, lambda: "[Pasted" in composer.text)
        await pilot.press("ctrl+g")
        assert seen.read_text() == "before " + PASTED  # the editor got the full text
        assert Path(f"{seen}.mode").read_text().strip() == "600"
        assert composer.text == "rewritten by the editor\nbefore [Pasted 240 lines #1]"


async def test_ctrl_g_keeps_the_prompt_when_the_editor_fails_or_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failing = editor_script(tmp_path, 'echo changed > "$1"\nexit 3\n')
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(failing))
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(110, 30)) as pilot:
        composer = app.chat.composer
        composer.run_editor = run_directly
        await type_text(pilot, "keep me")
        await pilot.press("ctrl+g")
        assert composer.text == "keep me"
        assert any("exited with code 3" in str(note.message) for note in app._notifications)
        monkeypatch.setenv("VISUAL", "no-such-editor-zett --wait")
        await pilot.press("ctrl+g")
        assert composer.text == "keep me"
        assert any("'no-such-editor-zett' was not found" in str(note.message) for note in app._notifications)


async def test_ctrl_g_without_a_terminal_to_hand_over_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISUAL", str(editor_script(tmp_path, 'echo changed > "$1"\n')))
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(110, 30)) as pilot:  # the headless driver cannot suspend
        await type_text(pilot, "keep me")
        await pilot.press("ctrl+g")
        assert app.chat.composer.text == "keep me"
        assert any("cannot be handed to an editor" in str(note.message) for note in app._notifications)


# -- Ctrl+P and F1 -----------------------------------------------------------------------------


def palette_prompts(app: ZettApp) -> list[str]:
    options = app.screen.query_one(OptionList)
    return [str(options.get_option_at_index(index).prompt) for index in range(options.option_count)]


async def test_ctrl_p_lists_the_commands_and_runs_one() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(110, 40)) as pilot:
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await wait_for(pilot, lambda: any("/help" in prompt for prompt in palette_prompts(app)))
        listed = "\n".join(palette_prompts(app))
        for entry in ("/help", "/new", "/sessions", "/theme", "/quit", "Edit the prompt in $EDITOR"):
            assert entry in listed
        titles = [prompt.splitlines()[0] for prompt in palette_prompts(app)]
        assert "Theme" not in titles and "Quit" not in titles  # /theme and /quit stand for them
        # Textual's developer entries (Screenshot saved silently to a folder nobody named)
        assert not {"Keys", "Maximize", "Minimize", "Screenshot"} & set(titles)
        await type_text(pilot, "help")
        await wait_for(pilot, lambda: "/help" in palette_prompts(app)[0])
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(text.startswith("Commands:") for text in notices(app)))
        assert app.screen is app.chat


async def test_palette_prefills_a_command_that_needs_an_argument() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(110, 40)) as pilot:
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await type_text(pilot, "rename")
        await wait_for(pilot, lambda: bool(palette_prompts(app)) and "/rename" in palette_prompts(app)[0])
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is app.chat and app.chat.composer.text == "/rename ")
        assert not any("Usage: /rename" in text for text in notices(app))


async def test_f1_shows_the_commands_and_the_keys_from_the_bindings() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(110, 40)) as pilot:
        await pilot.press("f1")
        await wait_for(pilot, lambda: any(text.startswith("Commands:") for text in notices(app)))
        [help_text] = [text for text in notices(app) if text.startswith("Commands:")]
        assert "/help" in help_text and "/sessions" in help_text
        for description in (
            "Edit the prompt in $VISUAL or $EDITOR",
            "Open the command palette",
            "Insert a new line",
            "Tell the running turn",  # steer
            "Queue the prompt for after the turn",
            "Take the last queued prompt back",
            "Esc Esc",
        ):
            assert description in help_text
        assert "f1" in help_text.lower()


async def test_prompts_are_recalled_in_the_next_session_and_kept_redacted() -> None:
    from tests.fakes.scripted_model import text_step
    from tests.ui_helpers import answers, idle, make_app, submit, wait_for
    from zett_tui.core import paths

    secret = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
    first = make_app(ScriptedModel(text_step("ok")))
    async with ready_app(first) as pilot:
        await submit(pilot, f"remember {secret}")
        await wait_for(pilot, lambda: idle(first) and bool(answers(first)))
    stored = paths.prompt_history_file().read_text()
    assert secret not in stored and "remember" in stored
    second = make_app(ScriptedModel())
    async with ready_app(second) as pilot:
        await wait_for(pilot, lambda: bool(second.chat.composer.prompt_history.entries))
        await pilot.press("up")
        assert second.chat.composer.text.startswith("remember [REDACTED")
