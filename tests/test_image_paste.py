"""Pasting an image into the prompt: a dropped path (escaped spaces, quotes), a path outside the
project (asks first), Backspace taking it back, and the clipboard readers."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from PIL import Image
from textual import events
from zett_agent.messages import ImageContent, UserMessage

from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.test_dialogs import open_dialog
from tests.ui_helpers import idle, make_app, ready_app, wait_for
from zett_tui.terminal.clipboard_image import NO_IMAGE, ClipboardImage, read_clipboard_image


def png(size: tuple[int, int] = (40, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (0, 120, 255)).save(out, "PNG")
    return out.getvalue()


def sent_images(model: ScriptedModel) -> list[ImageContent]:
    message = [m for m in model.requests[-1].messages if isinstance(m, UserMessage)][-1]
    return [part for part in message.parts if isinstance(part, ImageContent)]


async def test_a_dropped_path_with_escaped_spaces_attaches_the_image(project_dir: Path) -> None:
    shot = project_dir / "Screen Shot 1.png"
    shot.write_bytes(png())
    model = ScriptedModel(text_step("A blue box."))
    app = make_app(model)
    async with ready_app(app, size=(120, 30)) as pilot:
        composer = app.chat.composer
        composer.load_text("what is this? ")
        composer.move_cursor(composer.document.end)
        app.post_message(events.Paste(str(shot).replace(" ", "\\ ")))
        await wait_for(pilot, lambda: "[Image #" in composer.text)
        assert composer.text.startswith("what is this? [Image #") and "Screen Shot 1.png]" in composer.text
        await wait_for(pilot, lambda: "🖼 Screen Shot 1.png (40×30" in str(composer.border_subtitle))
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app) and bool(model.requests))
        (image,) = sent_images(model)
        assert image.alt_text == "Screen Shot 1.png"


async def test_backspace_takes_a_pasted_image_back_before_sending(project_dir: Path) -> None:
    (project_dir / "a.png").write_bytes(png())
    model = ScriptedModel(text_step("No image."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        composer = app.chat.composer
        composer.focus()
        app.post_message(events.Paste(f"'{project_dir / 'a.png'}'"))
        await wait_for(pilot, lambda: "[Image #" in composer.text)
        await pilot.press("backspace", "backspace")  # the space after it, then the whole token
        assert composer.text == "" and not composer.border_subtitle
        composer.insert("just text")
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app) and bool(model.requests))
        assert sent_images(model) == []


async def test_a_pasted_path_outside_the_project_asks_first(project_dir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere" / "shot.png"
    outside.parent.mkdir()
    outside.write_bytes(png())
    model = ScriptedModel(text_step("ok"))
    app = make_app(model)
    async with ready_app(app, size=(120, 35)) as pilot:
        composer = app.chat.composer
        composer.focus()
        app.post_message(events.Paste(str(outside)))
        await open_dialog(pilot)
        await pilot.press("enter")  # "Read it once"
        await wait_for(pilot, lambda: "[Image #" in composer.text)


# -- the clipboard ----------------------------------------------------------------------------------


def test_wayland_clipboard_image_is_read_with_wl_paste() -> None:
    calls: list[list[str]] = []

    def run(command: list[str]) -> bytes | None:
        calls.append(command)
        return b"text/plain\nimage/png\n" if "--list-types" in command else b"PNGDATA"

    found = read_clipboard_image({"WAYLAND_DISPLAY": "wayland-0"}, which=lambda name: name, run=run)
    assert found == ClipboardImage(b"PNGDATA", "image/png")
    assert calls[1] == ["wl-paste", "--no-newline", "--type", "image/png"]


def test_x11_clipboard_without_an_image_pastes_text_as_usual() -> None:
    found = read_clipboard_image(
        {"DISPLAY": ":0"}, which=lambda name: name, run=lambda command: b"UTF8_STRING\nTARGETS\n"
    )
    assert found == NO_IMAGE


def test_it_says_what_is_missing(monkeypatch: Any) -> None:
    no_tool = read_clipboard_image({"DISPLAY": ":0"}, which=lambda name: None, run=lambda c: None)
    assert isinstance(no_tool, str) and "xclip" in no_tool
    over_ssh = read_clipboard_image({"SSH_TTY": "/dev/pts/1", "DISPLAY": ":0"}, which=lambda n: n)
    assert isinstance(over_ssh, str) and "SSH" in over_ssh
    headless = read_clipboard_image({}, which=lambda n: n, platform="linux")
    assert isinstance(headless, str) and "no graphical session" in headless


async def test_an_image_sent_during_a_turn_waits_for_a_turn_of_its_own(project_dir: Path) -> None:
    import asyncio

    (project_dir / "late.png").write_bytes(png())
    gate = asyncio.Event()
    model = ScriptedModel(text_step("working on it", gate=gate), text_step("I see it."))
    app = make_app(model)
    async with ready_app(app, size=(120, 30)) as pilot:
        composer = app.chat.composer
        composer.load_text("first")
        composer.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.chat.turns.busy)
        app.post_message(events.Paste(str(project_dir / "late.png")))
        await wait_for(pilot, lambda: "[Image #" in composer.text)
        await pilot.press("enter")  # not a steering message: those carry text only
        gate.set()
        await wait_for(pilot, lambda: idle(app) and len(model.requests) == 2)
        assert [part.alt_text for part in sent_images(model)] == ["late.png"]
