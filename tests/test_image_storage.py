"""Stored images: the history database names each image's file instead of holding its base64,
old rows with base64 still load, a rebuilt history keeps them, and deleting a session deletes the
images that no remaining session names (a fork's and a sibling's stay)."""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from zett_agent.messages import ImageBytesSource, ImageContent, TextContent, UserMessage

from tests.fakes.host import Collector
from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.test_images_in import png_bytes
from zett_tui.core.images import limits_for, prepare_image
from zett_tui.sessions.index import SessionSummary

#: The history of the two turns without the image is about 12 kB (system prompts, answers).
HISTORY_WITHOUT_IMAGE = 20_000


def noisy_png() -> bytes:
    """A PNG whose base64 cannot hide in a small row (random pixels do not compress)."""
    import io

    from PIL import Image

    image = Image.frombytes("RGB", (200, 200), os.urandom(200 * 200 * 3))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def summary_of(session_file: Path, session_id: str) -> SessionSummary:
    moment = datetime.now(UTC)
    return SessionSummary(session_id, "t", None, None, None, moment, moment, 1, "completed", session_file, 0)


def history_bytes(history: Path) -> int:
    with sqlite3.connect(history) as connection:
        (size,) = connection.execute(
            "SELECT coalesce(sum(length(message_json)), 0) FROM raw_messages"
        ).fetchone()
    return int(size)


def sent_image_data(model: ScriptedModel, request: int = 0) -> list[bytes]:
    found: list[bytes] = []
    for message in model.requests[request].messages:
        for part in (
            message.content if isinstance(message, UserMessage) and isinstance(message.content, list) else ()
        ):
            if isinstance(part, ImageContent) and isinstance(part.source, ImageBytesSource):
                found.append(part.source.data)
    return found


def age(folder: Path) -> None:
    """Make the stored images look older than the cleanup's grace period."""
    for path in folder.iterdir():
        os.utime(path, (1_000_000, 1_000_000))


async def test_the_history_names_the_image_file_and_the_model_still_gets_the_bytes(
    hosts: Any, tmp_path: Path
) -> None:
    project = tmp_path / "work"
    project.mkdir()
    (project / "noise.png").write_bytes(noisy_png())
    sessions, history = tmp_path / "sessions", tmp_path / "history.sqlite3"
    host = await hosts(
        ScriptedModel(text_step("noise"), text_step("still noise")),
        cwd=project,
        sessions_dir=sessions,
        history_db=history,
    )
    await host.run_turn("what is @noise.png", Collector())
    await host.run_turn("and again?", Collector())
    expected = prepare_image("noise.png", noisy_png_of(project), limits_for("scripted")).data
    model = host.model
    assert sent_image_data(model, 1) == [expected]  # the second request: loaded from the history
    await host.aclose()
    assert len(expected) > 100_000
    assert history_bytes(history) < HISTORY_WITHOUT_IMAGE  # a reference, not the base64
    (stored,) = (sessions / "images").iterdir()
    assert stored.read_bytes() == expected


def noisy_png_of(project: Path) -> bytes:
    return (project / "noise.png").read_bytes()


async def test_an_old_row_with_base64_still_loads(tmp_path: Path) -> None:
    from zett_tui.runtime.history_images import HistoryImages
    from zett_tui.runtime.history_open import history_database
    from zett_tui.runtime.history_store import HistoryStore

    history = tmp_path / "history.sqlite3"
    data = png_bytes()
    message = UserMessage(content=[TextContent("see"), ImageContent(ImageBytesSource(data, "image/png"))])
    old = HistoryStore(history_database(history), redact=str)  # as before: bytes in the row
    await old.append("s1", "r1", message)
    await old.close()
    store = HistoryStore(history_database(history), redact=str, images=HistoryImages(tmp_path / "images"))
    try:
        view = await store.load("s1")
    finally:
        await store.close()
    (record,) = view.raw_tail
    (_text, image) = record.message.content
    assert image.source.data == data


async def test_a_reference_whose_file_is_gone_becomes_a_line_of_text(tmp_path: Path) -> None:
    from zett_tui.runtime.history_images import HistoryImages
    from zett_tui.runtime.history_open import history_database
    from zett_tui.runtime.history_store import HistoryStore

    images = tmp_path / "images"
    store = HistoryStore(history_database(tmp_path / "h.sqlite3"), redact=str, images=HistoryImages(images))
    try:
        image = ImageContent(ImageBytesSource(png_bytes(), "image/png"), alt_text="shot.png")
        await store.append("s1", "r1", UserMessage(content=[TextContent("see"), image]))
        for path in images.iterdir():
            path.unlink()
        view = await store.load("s1")
    finally:
        await store.close()
    (_text, gone) = view.raw_tail[0].message.content
    assert isinstance(gone, TextContent) and "shot.png" in gone.text and "no longer stored" in gone.text


async def test_a_history_rebuilt_from_the_transcript_keeps_the_image(hosts: Any, tmp_path: Path) -> None:
    project = tmp_path / "work"
    project.mkdir()
    (project / "shot.png").write_bytes(png_bytes())
    sessions, history = tmp_path / "sessions", tmp_path / "history.sqlite3"
    host = await hosts(
        ScriptedModel(text_step("red")), cwd=project, sessions_dir=sessions, history_db=history
    )
    await host.run_turn("what is @shot.png", Collector())
    session_id = host.session_id
    await host.aclose()
    history.unlink()  # lost: the resumed session rebuilds it from its lines

    model = ScriptedModel(text_step("still red"))
    await (
        await hosts(model, cwd=project, sessions_dir=sessions, history_db=history, session_id=session_id)
    ).run_turn("and now?", Collector())
    assert sent_image_data(model) == [prepare_image("shot.png", png_bytes(), limits_for("scripted")).data]


async def test_deleting_a_session_deletes_only_the_images_no_other_session_names(
    hosts: Any, tmp_path: Path
) -> None:
    from zett_tui.sessions.fork import fork_session
    from zett_tui.sessions.manage import delete_session

    project = tmp_path / "work"
    project.mkdir()
    (project / "shared.png").write_bytes(png_bytes(colour=(1, 2, 3, 255)))
    (project / "own.png").write_bytes(png_bytes(colour=(9, 9, 9, 255)))
    (project / "forked.png").write_bytes(png_bytes(colour=(5, 5, 5, 255)))
    sessions, history = tmp_path / "sessions", tmp_path / "history.sqlite3"
    options = {"cwd": project, "sessions_dir": sessions, "history_db": history}

    async def session(prompt: str) -> tuple[str, Path]:
        host = await hosts(ScriptedModel(text_step("ok")), **options)
        await host.run_turn(prompt, Collector())
        await host.aclose()
        return host.session_id, next(path for path in sessions.glob("*.jsonl") if path not in known)

    known: list[Path] = []
    first, first_file = await session("see @shared.png and @own.png and @forked.png")
    known.append(first_file)
    second, second_file = await session("see @shared.png")
    known.append(second_file)
    fork_file = await fork_session(
        summary_of(first_file, first), "fork-1", sessions_directory=sessions, history_database=history
    )
    folder = sessions / "images"
    names = {path.name for path in folder.iterdir()}
    assert len(names) == 3
    age(folder)

    deletion = await delete_session(summary_of(first_file, first), history, checkpoints_root=tmp_path / "c")
    assert deletion.images_removed == ()  # the fork names all three
    assert {path.name for path in folder.iterdir()} == names

    await delete_session(summary_of(fork_file, "fork-1"), history, checkpoints_root=tmp_path / "c")
    left = {path.name for path in folder.iterdir()}
    assert len(left) == 1  # the second session's shared.png stays; own.png and forked.png go
    assert left <= {name for name in names if name in second_file.read_text()}

    await delete_session(summary_of(second_file, second), history, checkpoints_root=tmp_path / "c")
    assert list(folder.iterdir()) == []


async def test_an_image_a_history_row_still_names_is_kept(hosts: Any, tmp_path: Path) -> None:
    """A session whose lines are gone but whose history rows remain keeps its image."""
    from zett_tui.sessions.image_cleanup import remove_unreferenced_images

    project = tmp_path / "work"
    project.mkdir()
    (project / "shot.png").write_bytes(png_bytes())
    sessions, history = tmp_path / "sessions", tmp_path / "history.sqlite3"
    host = await hosts(ScriptedModel(text_step("ok")), cwd=project, sessions_dir=sessions, history_db=history)
    await host.run_turn("see @shot.png", Collector())
    await host.aclose()
    folder = sessions / "images"
    age(folder)
    names = [path.name for path in folder.iterdir()]
    for path in sessions.glob("*.jsonl"):
        path.unlink()
    assert remove_unreferenced_images(names, sessions, history) == []
    assert remove_unreferenced_images(names, sessions, None) == [folder / names[0]]


def test_a_name_that_is_not_a_stored_image_is_never_removed(tmp_path: Path) -> None:
    from zett_tui.sessions.image_cleanup import remove_unreferenced_images

    (tmp_path / "images").mkdir()
    victim = tmp_path / "keep.txt"
    victim.write_text("x")
    assert remove_unreferenced_images(["../keep.txt", "keep.txt"], tmp_path, None) == []
    assert victim.exists()


async def test_zett_sessions_rm_says_which_images_went_with_the_session(hosts: Any, tmp_path: Path) -> None:
    import asyncio
    import io

    from zett_tui.sessions.cli import remove_session

    project = tmp_path / "work"
    project.mkdir()
    (project / "shot.png").write_bytes(png_bytes())
    sessions, history = tmp_path / "sessions", tmp_path / "history.sqlite3"
    host = await hosts(ScriptedModel(text_step("ok")), cwd=project, sessions_dir=sessions, history_db=history)
    await host.run_turn("see @shot.png", Collector())
    await host.aclose()
    age(sessions / "images")
    out, err = io.StringIO(), io.StringIO()
    code = await asyncio.to_thread(
        remove_session, host.session_id[:12], out, err, True, directory=sessions, history_database=history
    )
    assert code == 0, err.getvalue()
    assert "and 1 stored image no other session uses" in out.getvalue()
    assert list((sessions / "images").iterdir()) == []


async def test_an_image_named_only_by_a_set_aside_turn_journal_is_kept(hosts: Any, tmp_path: Path) -> None:
    from zett_tui.sessions.image_cleanup import remove_unreferenced_images

    project = tmp_path / "work"
    project.mkdir()
    (project / "shot.png").write_bytes(png_bytes())
    sessions = tmp_path / "sessions"
    host = await hosts(ScriptedModel(text_step("ok")), cwd=project, sessions_dir=sessions)
    await host.run_turn("see @shot.png", Collector())
    await host.aclose()
    age(sessions / "images")
    (session_file,) = sessions.glob("*.jsonl")
    session_file.rename(session_file.with_name(session_file.stem + ".live-damaged"))
    names = [path.name for path in (sessions / "images").iterdir()]
    assert remove_unreferenced_images(names, sessions, None) == []


def test_a_tool_results_image_is_stored_by_reference_and_read_back(tmp_path: Path) -> None:
    """view_image and MCP tools answer with images too: the same files, the same references."""
    from zett_agent.messages import ToolMessage

    from zett_tui.runtime.history_images import HistoryImages

    images = HistoryImages(tmp_path / "images")
    data = png_bytes()
    result = ToolMessage(
        tool_call_id="c1",
        name="view_image",
        content=[TextContent("here"), ImageContent(ImageBytesSource(data, "image/png"))],
    )
    stored = images.stored_form(result)
    assert stored is not result and len(stored.content[1].source.data) < 100
    assert images.stored_form(stored) is stored  # a reference is not stored again
    assert images.loaded_form(stored).content[1].source.data == data
    plain = ToolMessage(tool_call_id="c2", name="grep", content="no image")
    assert images.stored_form(plain) is plain and images.loaded_form(plain) is plain
