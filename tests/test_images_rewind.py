"""``/rewind`` with images: a rewound turn's image leaves the model's context (and comes back when
the rewind is undone), on resume too, while the session file and its export keep every image."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.host import Collector, HostFactory
from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.test_image_storage import sent_image_data
from tests.test_images_in import png_bytes
from zett_tui.core.images import limits_for, prepare_image


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    (root / "red.png").write_bytes(png_bytes(colour=(250, 0, 0, 255)))
    (root / "blue.png").write_bytes(png_bytes(colour=(0, 0, 250, 255)))
    monkeypatch.chdir(root)
    return root


def sent(name: str, project: Path) -> bytes:
    return prepare_image(name, (project / name).read_bytes(), limits_for("scripted")).data


async def two_image_turns_then_rewind_the_second(hosts: HostFactory, project: Path, *later: Any) -> Any:
    model = ScriptedModel(text_step("red"), text_step("blue"), *later)
    host = await hosts(model, cwd=project)
    await host.run_turn("what is @red.png", Collector())
    await host.run_turn("what is @blue.png", Collector())
    assert host.checkpoints is not None
    await host.checkpoints.rewind(host.checkpoints.records()[1], plan=None, conversation=True)
    return host, model


async def test_a_rewound_turns_image_leaves_the_context_and_an_undo_brings_it_back(
    hosts: HostFactory, project: Path
) -> None:
    host, model = await two_image_turns_then_rewind_the_second(
        hosts, project, text_step("only red"), text_step("both")
    )
    await host.run_turn("what did you see?", Collector())
    assert sent_image_data(model, 2) == [sent("red.png", project)]
    records = host.checkpoints.records()
    await host.checkpoints.rewind(records[2], plan=None, conversation=True)  # undo the rewind
    await host.run_turn("and now?", Collector())
    assert sent_image_data(model, 3) == [sent("red.png", project), sent("blue.png", project)]


async def test_after_resume_the_rewound_image_stays_out_and_the_export_keeps_both(
    hosts: HostFactory, project: Path, tmp_path: Path
) -> None:
    host, _ = await two_image_turns_then_rewind_the_second(hosts, project)
    session_id = host.session_id
    assert host.recorder is not None
    session_file = host.recorder.session_path(session_id)
    await host.aclose()
    model = ScriptedModel(text_step("red only"))
    again = await hosts(model, cwd=project, session_id=session_id)
    await again.run_turn("what did you see?", Collector())
    assert sent_image_data(model) == [sent("red.png", project)]
    await again.aclose()

    from zett_tui.sessions.cli import export_session

    target = tmp_path / "out" / "s.md"
    target.parent.mkdir()
    assert (
        export_session(
            session_id, "md", target, io.StringIO(), err=io.StringIO(), directory=session_file.parent
        )
        == 0
    )
    markdown = target.read_text()
    assert markdown.count("](s-images/") == 2  # the rewound turn's image is exported too
    assert len(list((tmp_path / "out" / "s-images").iterdir())) == 2
