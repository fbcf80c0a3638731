"""Images in: ``@shot.png`` attaches the image itself, scaled to the provider's limits, sent as
real image content; the session stores each image once, beside its lines; resume and export."""

from __future__ import annotations

import base64
import io
import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from zett_agent.messages import ImageBytesSource, ImageContent, UserMessage

from tests.fakes.host import Collector
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.test_providers_wire import CHOICES, NO_RETRY, QUICK_TIMEOUTS, settings_for
from zett_tui.core.images import LIMITS, ImageRejected, limits_for, prepare_image
from zett_tui.providers.build import build_model
from zett_tui.runtime.events import Notice, TurnFinished
from zett_tui.sessions.export_file import export_to_file
from zett_tui.sessions.index import SessionSummary
from zett_tui.sessions.recorded_turns import iter_turns


def png_bytes(
    size: tuple[int, int] = (64, 48), colour: tuple[int, int, int, int] = (200, 30, 30, 255)
) -> bytes:
    out = io.BytesIO()
    Image.new("RGBA", size, colour).save(out, "PNG")
    return out.getvalue()


def noisy_jpeg(size: tuple[int, int] = (4000, 3000)) -> bytes:
    """A photograph-like JPEG: noise does not compress, so scaling is really needed."""
    image = Image.frombytes("RGB", size, os.urandom(size[0] * size[1] * 3))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=95)
    return out.getvalue()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    (root / "shot.png").write_bytes(png_bytes())
    (root / "photo.jpg").write_bytes(noisy_jpeg())
    (root / "fake.png").write_bytes(b"this is not an image at all")
    (root / "with space.png").write_bytes(png_bytes((10, 10)))
    monkeypatch.chdir(root)
    return root


async def labelled_host(hosts: Any, factory: Any, label: str, **options: Any) -> Any:
    """A started host whose model is labelled ``label`` (the label decides the image limits)."""
    from zett_tui.runtime.host import AgentHost, HostOptions

    host = AgentHost(HostOptions(model_factory=factory, model_label=label, **options))
    hosts.built.append(host)
    await host.start()
    return host


def sent_images(model: ScriptedModel) -> list[ImageContent]:
    message = [m for m in model.requests[0].messages if isinstance(m, UserMessage)][-1]
    return [part for part in message.parts if isinstance(part, ImageContent)]


# -- scaling ------------------------------------------------------------------------------------------


def test_a_large_jpeg_is_scaled_and_stays_a_jpeg_under_the_byte_limit() -> None:
    limits = LIMITS["anthropic"]
    image = prepare_image("photo.jpg", noisy_jpeg(), limits)
    assert image.media_type == "image/jpeg" and max(image.width, image.height) == limits.max_edge
    assert len(image.data) <= limits.max_bytes and image.scaled
    assert Image.open(io.BytesIO(image.data)).size == (image.width, image.height)


def test_metadata_does_not_leave_with_the_image() -> None:
    out = io.BytesIO()
    exif = Image.Exif()
    exif[0x010E] = "secret location note"  # ImageDescription
    Image.new("RGB", (50, 50)).save(out, "JPEG", exif=exif)
    image = prepare_image("p.jpg", out.getvalue(), LIMITS["openai"])
    assert b"secret location note" not in image.data


def test_what_is_not_an_image_is_refused_with_a_clear_reason() -> None:
    with pytest.raises(ImageRejected, match="not an image"):
        prepare_image("fake.png", b"GIF89a but not really", LIMITS["openai"])


# -- through the host, with the scripted model ------------------------------------------------------


async def test_at_mentions_attach_the_images_themselves(hosts: Any, project: Path) -> None:
    model = ScriptedModel(text_step("I see a red square."))
    host = await hosts(model, cwd=project)
    sink = Collector()
    finished = await host.run_turn(
        'what is in @shot.png and @photo.jpg and @fake.png and @"with space.png"?', sink
    )
    assert finished.status == "completed"
    images = sent_images(model)
    assert [part.alt_text for part in images] == ["shot.png", "photo.jpg", "with space.png"]
    sources = [part.source for part in images]
    assert all(isinstance(source, ImageBytesSource) for source in sources)
    assert sources[0].media_type == "image/png"  # type: ignore[union-attr]
    photo = Image.open(io.BytesIO(sources[1].data))  # type: ignore[union-attr]
    assert max(photo.size) <= limits_for("scripted").max_edge
    lines = [notice.text for notice in sink.of(Notice)]
    assert any(line.startswith("🖼 shot.png (64×48") for line in lines)
    assert any("photo.jpg" in line and "scaled from 4000×3000" in line for line in lines)
    assert any("@fake.png is not attached" in line and "not an image" in line for line in lines)


async def test_a_model_without_vision_gets_nothing_and_a_clear_line(hosts: Any, project: Path) -> None:
    model = ScriptedModel(text_step("never"))
    host = await labelled_host(hosts, lambda: model, "openai:gpt-3.5-turbo", cwd=project)
    sink = Collector()
    finished = await host.run_turn("look at @shot.png", sink)
    assert finished.status == "failed" and "does not read images" in (finished.error or "")
    assert model.requests == []


async def test_more_images_than_the_provider_takes_sends_nothing(hosts: Any, project: Path) -> None:
    for index in range(9):
        (project / f"s{index}.png").write_bytes(png_bytes((8, 8)))
    model = ScriptedModel(text_step("never"))
    host = await hosts(model, cwd=project)  # a local model: at most 8 images a prompt
    finished = await host.run_turn(" ".join(f"@s{index}.png" for index in range(9)), Collector())
    assert finished.status == "failed" and "more than this provider takes" in (finished.error or "")
    assert model.requests == []


async def test_an_image_outside_the_project_is_not_read_without_asking(hosts: Any, project: Path) -> None:
    outside = project.parent / "elsewhere.png"
    outside.write_bytes(png_bytes())
    model = ScriptedModel(text_step("ok"))
    host = await hosts(model, cwd=project)
    sink = Collector()
    await host.run_turn(f"look at @{outside}", sink)
    assert sent_images(model) == []
    assert any("is not attached" in notice.text for notice in sink.of(Notice))


# -- the session file -------------------------------------------------------------------------------


async def test_ten_images_are_stored_once_each_beside_the_lines(
    hosts: Any, project: Path, tmp_path: Path
) -> None:
    for index in range(10):
        (project / f"shot{index}.png").write_bytes(png_bytes((300, 200), (index * 20, 50, 90, 255)))
    prompt = " ".join(f"@shot{index}.png" for index in range(10))
    sessions = tmp_path / "sessions"
    model = ScriptedModel(text_step("ten"), text_step("again"))
    host = await labelled_host(
        hosts, lambda: model, "anthropic:claude-test", cwd=project, sessions_dir=sessions
    )
    await host.run_turn(prompt, Collector())
    await host.run_turn("the same again: " + prompt, Collector())
    await host.aclose()
    session_file = next(sessions.glob("*.jsonl"))
    stored = sorted((sessions / "images").iterdir())
    assert len(stored) == 10  # once each, though sent twice
    assert session_file.stat().st_size < 8_000  # two turns of ten images, no base64 in the lines
    text = session_file.read_text()
    assert "__kcs_bytes__" not in text and all(path.name in text for path in stored)
    turns = list(iter_turns(session_file, []))
    assert [label for label, _ in turns[0].prompt_image_files] == [f"shot{index}.png" for index in range(10)]


async def test_resume_keeps_the_image_in_context_and_export_puts_it_beside(
    hosts: Any, project: Path, tmp_path: Path
) -> None:
    sessions, history = tmp_path / "sessions", tmp_path / "history.sqlite3"
    first = ScriptedModel(text_step("a red square"))
    host = await hosts(first, cwd=project, sessions_dir=sessions, history_db=history)
    await host.run_turn("what is @shot.png", Collector())
    session_id = host.session_id
    await host.aclose()

    second = ScriptedModel(text_step("still red"))
    resumed = await hosts(
        second, cwd=project, sessions_dir=sessions, history_db=history, session_id=session_id
    )
    await resumed.run_turn("and now?", Collector())
    earlier = next(m for m in second.requests[0].messages if isinstance(m, UserMessage))
    images = [part for part in earlier.parts if isinstance(part, ImageContent)]
    assert (
        len(images) == 1
        and images[0].source.data
        == prepare_image(  # type: ignore[union-attr]
            "shot.png", png_bytes(), limits_for("scripted")
        ).data
    )

    session_file = next(sessions.glob("*.jsonl"))
    moment = datetime.now(UTC)
    summary = SessionSummary(
        session_id, "t", None, None, None, moment, moment, 2, "completed", session_file, 0
    )
    target = tmp_path / "out" / "export.md"
    target.parent.mkdir()
    export_to_file(summary, "md", target)
    markdown = target.read_text()
    (linked,) = (tmp_path / "out" / "export-images").iterdir()
    assert f"![shot.png](export-images/{linked.name})" in markdown
    assert linked.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    from zett_tui.sessions.cli import export_session

    cli_target = tmp_path / "cli" / "s.md"
    cli_target.parent.mkdir()
    assert (
        export_session(session_id, "md", cli_target, io.StringIO(), err=io.StringIO(), directory=sessions)
        == 0
    )
    assert f"![shot.png](s-images/{linked.name})" in cli_target.read_text()
    assert (tmp_path / "cli" / "s-images" / linked.name).read_bytes() == linked.read_bytes()


# -- the providers receive real image content ------------------------------------------------------


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


def received_images(body: dict[str, Any], protocol: str) -> list[tuple[str, bytes]]:
    found: list[tuple[str, bytes]] = []
    for message in body["messages"]:
        content = message.get("content")
        if protocol == "ollama":
            found.extend(("image/?", base64.b64decode(item)) for item in message.get("images") or [])
            continue
        for part in content if isinstance(content, list) else []:
            if protocol == "anthropic" and part.get("type") == "image":
                source = part["source"]
                found.append((source["media_type"], base64.b64decode(source["data"])))
            elif part.get("type") == "image_url":
                url = part["image_url"]["url"]
                head, data = url.split(",", 1)
                found.append((head.removeprefix("data:").removesuffix(";base64"), base64.b64decode(data)))
    return found


@pytest.mark.parametrize("provider", ["anthropic", "openai", "endpoint", "ollama"])
async def test_each_provider_receives_the_png_and_the_scaled_jpeg(
    provider: str, server: FakeLLMServer, hosts: Any, project: Path
) -> None:
    server.script(Reply.text("I see them."))
    choice = CHOICES[provider]
    endpoints, env = settings_for(server.base_url)
    label = {
        "anthropic": "anthropic:claude-test",
        "openai": "openai:gpt-4o",
        "endpoint": "local:qwen2.5-vl",
    }.get(provider, "ollama:llava")

    def factory() -> Any:
        return build_model(choice, endpoints, env, retry=NO_RETRY, timeout=QUICK_TIMEOUTS)

    host = await labelled_host(hosts, factory, label, cwd=project)
    sink = Collector()
    finished = await host.run_turn("compare @shot.png with @photo.jpg, skip @fake.png", sink)
    assert isinstance(finished, TurnFinished) and finished.status == "completed", finished.error
    (request,) = server.requests
    images = received_images(request.body, request.protocol)
    assert len(images) == 2
    png, jpeg = (Image.open(io.BytesIO(data)) for _, data in images)
    assert png.format == "PNG" and png.size == (64, 48)
    assert jpeg.format == "JPEG" and max(jpeg.size) == limits_for(label).max_edge
    if provider != "ollama":
        assert [media for media, _ in images] == ["image/png", "image/jpeg"]
    assert json.dumps(request.body).count("not an image") == 0


async def test_the_turn_in_progress_on_disk_names_its_image_too(
    hosts: Any, project: Path, tmp_path: Path
) -> None:
    import asyncio

    from zett_tui.sessions.naming import live_path

    sessions = tmp_path / "sessions"
    gate = asyncio.Event()
    model = ScriptedModel(text_step("a red square, as far as I can", gate=gate))
    host = await hosts(model, cwd=project, sessions_dir=sessions)
    turn = asyncio.create_task(host.run_turn("what is @shot.png", Collector()))
    session_file, live = sessions / "x", ""
    for _ in range(400):  # until the prompt's message is in the journal (after its head line)
        lives = list(sessions.glob("*.live*")) if sessions.exists() else []
        live = lives[0].read_text() if lives else ""
        if "image" in live.split("\n", 1)[-1]:
            session_file = lives[0]
            break
        await asyncio.sleep(0.05)
    gate.set()
    await asyncio.wait_for(turn, 20)
    assert "__kcs_bytes__" not in live and "__zett_image__" in live
    assert len(list((sessions / "images").iterdir())) == 1
    assert live_path(next(sessions.glob("*.jsonl"))).name == session_file.name


async def test_a_fork_keeps_the_image_in_its_lines_and_context(
    hosts: Any, project: Path, tmp_path: Path
) -> None:
    from zett_tui.sessions.fork import fork_session

    sessions, history = tmp_path / "sessions", tmp_path / "history.sqlite3"
    host = await hosts(
        ScriptedModel(text_step("red")), cwd=project, sessions_dir=sessions, history_db=history
    )
    await host.run_turn("what is @shot.png", Collector())
    original = host.session_id
    await host.aclose()
    session_file = next(sessions.glob("*.jsonl"))
    moment = datetime.now(UTC)
    summary = SessionSummary(original, "t", None, None, None, moment, moment, 1, "completed", session_file, 0)
    forked = await fork_session(summary, "fork-1", sessions_directory=sessions, history_database=history)
    (turn,) = iter_turns(forked, [])
    ((label, stored),) = turn.prompt_image_files
    assert label == "shot.png" and stored is not None and (sessions / "images" / stored).is_file()
    model = ScriptedModel(text_step("still red"))
    again = await hosts(model, cwd=project, sessions_dir=sessions, history_db=history, session_id="fork-1")
    await again.run_turn("and?", Collector())
    earlier = next(m for m in model.requests[0].messages if isinstance(m, UserMessage))
    assert any(isinstance(part, ImageContent) for part in earlier.parts)


async def test_a_pasted_image_token_sends_its_image_and_a_stale_one_says_so(
    hosts: Any, project: Path
) -> None:
    from zett_tui.runtime.image_prompt import PASTED

    token = PASTED.add(prepare_image("pasted.png", png_bytes(), limits_for("scripted")))
    model = ScriptedModel(text_step("one"))
    host = await hosts(model, cwd=project)
    sink = Collector()
    await host.run_turn(f"see {token} and [Image #99999: old.png]", sink)
    assert [part.alt_text for part in sent_images(model)] == ["pasted.png"]
    assert any("[Image #99999: old.png] is only text now" in notice.text for notice in sink.of(Notice))


def test_the_chip_for_an_image_mention_says_image(project: Path) -> None:
    from zett_tui.runtime.files.attachments import preview_chips
    from zett_tui.runtime.files.read_access import ReadAccess

    chips = preview_chips('see @shot.png and @"with space.png"', ReadAccess(project), project)
    assert chips == ["🖼 shot.png", "🖼 with space.png"]
