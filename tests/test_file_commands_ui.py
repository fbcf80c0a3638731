"""Markdown commands and skills through the real app: typed, completed, listed, sent to the model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandPalette
from zett_agent.messages import SystemMessage

from tests.fakes.scripted_model import ScriptedModel, last_tool_result, text_step, tool_step
from tests.test_composer import menu, menu_labels, palette_prompts, sent_prompt, type_text
from tests.ui_helpers import (
    answers,
    dialog_armed,
    idle,
    make_app,
    notices,
    prompts,
    screen_text,
    submit,
    wait_for,
    wait_ready,
)
from zett_tui.config.trust import project_files, remember
from zett_tui.core import paths


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``~/.agents/skills`` is read from HOME: keep it inside the test."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    return home


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def user_command(name: str, text: str) -> Path:
    return write(paths.config_dir() / "commands" / name, text)


def skill(folder: Path, name: str, description: str, body: str) -> Path:
    return write(folder / name / "SKILL.md", f"---\nname: {name}\ndescription: {description}\n---\n{body}\n")


def system_text(model: ScriptedModel, request: int = 0) -> str:
    return "\n".join(str(m.content) for m in model.requests[request].messages if isinstance(m, SystemMessage))


async def test_a_markdown_command_sends_its_expanded_text_as_the_prompt(command_host: Any) -> None:
    user_command("fix.md", "---\ndescription: Fix an issue\nargument-hint: ISSUE FILE\n---\nFix #$1 in $2.")
    model = ScriptedModel(text_step("on it"))
    chat = await command_host(model)
    await chat.offer_workspace_files()
    await chat.command('/fix 42 "src/my file.py"')
    assert chat.sent == ["Fix #42 in src/my file.py."]
    assert sent_prompt(model) == "Fix #42 in src/my file.py."


async def test_completion_help_and_palette_list_the_command_with_its_origin() -> None:
    user_command("frontend/test.md", "---\ndescription: Test the frontend\n---\nnpm test")
    app = make_app(ScriptedModel())
    async with app.run_test(size=(110, 40)) as pilot:
        await wait_ready(pilot)
        await type_text(pilot, "/fron")
        await wait_for(pilot, lambda: "/frontend:test" in menu_labels(app))
        [item] = [item for item in menu(app).items if item.label == "/frontend:test"]
        assert item.detail == "Test the frontend (user command)"
        await pilot.press("escape")
        app.chat.composer.load_text("")
        await submit(pilot, "/help")
        [text] = [t for t in notices(app) if t.startswith("Commands:")]
        assert "/frontend:test" in text.split("From files")[1]
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await type_text(pilot, "frontend")
        await wait_for(pilot, lambda: any("/frontend:test" in prompt for prompt in palette_prompts(app)))


async def test_a_command_named_like_a_built_in_is_reported_and_the_built_in_wins(command_host: Any) -> None:
    user_command("help.md", "Do something else")
    model = ScriptedModel()
    chat = await command_host(model)
    await chat.offer_workspace_files()
    assert any("/help (user command) is not offered" in text for text, _level in chat.said)
    assert "help" not in chat.commands.added()  # nor listed as a command from a file
    [listing] = await chat.command("/help")
    assert "/quit" in listing and "/help" in listing
    assert chat.sent == [] and model.requests == []


async def test_broken_files_are_one_line_each_and_zett_starts() -> None:
    user_command("good.md", "fine")
    (paths.config_dir() / "commands" / "bad.md").write_bytes(b"\xff\xfe")
    user_command("odd name!.md", "x")
    app = make_app(ScriptedModel())
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_ready(pilot)
        lines = [text for text in notices(app) if "bad.md" in text or "odd name!.md" in text]
        assert len(lines) == 2 and all("\n" not in line for line in lines)
        await submit(pilot, "/extensions")
        await wait_for(pilot, lambda: any("Markdown commands and skills:" in t for t in notices(app)))
        [listing] = [t for t in notices(app) if "Markdown commands and skills:" in t]
        assert "/good" in listing and "user command" in listing and "bad.md" in listing


async def test_an_untrusted_projects_commands_and_skills_do_not_load(project_dir: Path) -> None:
    write(project_dir / ".zett" / "commands" / "build.md", "build it")
    skill(project_dir / ".claude" / "skills", "deploy", "Deploy the site", "Run the deploy")
    app = make_app(ScriptedModel())
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_ready(pilot)
        assert app.chat.commands.get("build") is None and app.chat.commands.get("deploy") is None
        await submit(pilot, "/build")
        assert any("Unknown command /build" in text for text in notices(app))
        await submit(pilot, "/extensions")
        await wait_for(pilot, lambda: any("Not loaded on purpose:" in t for t in notices(app)))
        [listing] = [t for t in notices(app) if "Not loaded on purpose:" in t]
        assert ".zett/commands: not loaded, this folder is not trusted (/extensions trust" in listing
        assert ".claude/skills: not loaded" in listing


async def test_a_claude_only_repository_is_asked_about_and_its_files_load_once_trusted(
    project_dir: Path,
) -> None:
    from dataclasses import replace

    from zett_tui.entry.startup import prepare_launch
    from zett_tui.ui.app import ZettApp

    write(project_dir / ".claude" / "commands" / "lint.md", "lint $1")
    skill(project_dir / ".claude" / "skills", "deploy", "Deploy the site", "Run the deploy")
    launch = prepare_launch(cwd=project_dir, env={}, ask_trust=True)
    assert launch.project_trust is not None  # no .zett/ here, and still a question
    app = ZettApp(replace(launch, model_factory=ScriptedModel, model_label="scripted:test", bell=False))
    async with app.run_test(size=(110, 40)) as pilot:
        await dialog_armed(pilot)
        text = screen_text(app)
        assert ".claude/commands/lint.md" in text and ".claude/skills/deploy/SKILL.md" in text
        await pilot.press("2")
        await wait_ready(pilot)
        assert app.chat.commands.get("deploy") is not None
        await submit(pilot, "/lint src")
        await wait_for(pilot, lambda: prompts(app) == ["lint src"])


async def test_a_trusted_projects_command_is_marked_as_the_projects(project_dir: Path) -> None:
    write(project_dir / ".zett" / "commands" / "build.md", "---\ndescription: Build\n---\nbuild $ARGUMENTS")
    project = project_files(project_dir)
    assert project is not None
    remember(project, trusted=True)
    model = ScriptedModel(text_step("built"))
    app = make_app(model)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_ready(pilot)
        command = app.chat.commands.get("build")
        assert command is not None and command.description == "Build (project command)"
        await submit(pilot, "/build all")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        assert sent_prompt(model) == "build all"


async def test_the_model_sees_skills_loads_one_and_may_read_its_files(own_home: Path) -> None:
    folder = own_home / ".agents" / "skills"
    skill(folder, "release-notes", "Write release notes from the git log", "Read template.md, then write.")
    write(folder / "release-notes" / "template.md", "## Added\n")
    model = ScriptedModel(
        tool_step("c1", "load_skill", {"name": "release-notes"}),
        tool_step("c2", "read_file", {"path": str(folder / "release-notes" / "template.md")}),
        text_step("done"),
    )
    app = make_app(model)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_ready(pilot)
        await submit(pilot, "/release-notes for 1.2")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        assert "release-notes: Write release notes from the git log" in system_text(model)
        assert "Read template.md, then write." not in system_text(model)  # the body only when loaded
        assert sent_prompt(model).startswith('Use the skill "release-notes"')
        assert sent_prompt(model).endswith("for 1.2")
        loaded = last_tool_result(model.requests[1])
        assert "Read template.md, then write." in loaded and "template.md" in loaded
        assert "## Added" in last_tool_result(model.requests[2])  # the user's skill folder is readable
        await submit(pilot, "/skills")
        await wait_for(pilot, lambda: any(t.startswith("Skills") for t in notices(app)))
        [listing] = [t for t in notices(app) if t.startswith("Skills")]
        assert "/release-notes" in listing and "user skill" in listing


async def test_a_link_out_of_a_skill_folder_is_not_readable_without_asking(
    own_home: Path, tmp_path: Path
) -> None:
    folder = own_home / ".agents" / "skills"
    skill(folder, "notes", "Notes", "Read secret.txt")
    secret = write(tmp_path / "outside" / "secret.txt", "TOKEN=abc")
    (folder / "notes" / "secret.txt").symlink_to(secret)
    model = ScriptedModel(tool_step("c1", "read_file", {"path": str(folder / "notes" / "secret.txt")}))
    app = make_app(model)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_ready(pilot)
        await submit(pilot, "read it")
        dialog = await dialog_armed(pilot)
        assert "secret.txt" in screen_text(app) and dialog is app.screen  # the read gate asks
        assert len(model.requests) == 1


async def test_a_command_runs_as_a_prompt_under_plan_mode(project_dir: Path) -> None:
    from zett_tui.runtime.modes import PermissionMode

    user_command("scaffold.md", "Create $1")
    model = ScriptedModel(
        tool_step("c1", "write_file", {"path": str(project_dir / "new.py"), "content": "x = 1\n"}),
        text_step("planned instead"),
    )
    app = make_app(model)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_ready(pilot)
        assert app.chat.host is not None
        app.chat.host.set_mode(PermissionMode.PLAN)
        await submit(pilot, "/scaffold new.py")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        assert sent_prompt(model) == "Create new.py"
        assert not (project_dir / "new.py").exists()
        assert "Plan Mode" in last_tool_result(model.requests[1])


async def test_the_trust_question_shows_the_command_files_and_trusting_offers_them(project_dir: Path) -> None:
    from dataclasses import replace

    from zett_tui.entry.startup import prepare_launch
    from zett_tui.ui.app import ZettApp

    write(project_dir / ".claude" / "commands" / "ship.md", "ship $1")
    (project_dir / ".zett").mkdir()
    launch = prepare_launch(cwd=project_dir, env={}, ask_trust=True)
    assert launch.project_trust is not None
    app = ZettApp(replace(launch, model_factory=ScriptedModel, model_label="scripted:test", bell=False))
    async with app.run_test(size=(110, 40)) as pilot:
        await dialog_armed(pilot)
        await wait_for(pilot, lambda: ".claude/commands/ship.md" in screen_text(app))
        await pilot.press("2")
        await wait_ready(pilot)
        await submit(pilot, "/ship v2")
        # trusting reads the settings again, so the model is the configured one (the demo), not ours
        await wait_for(pilot, lambda: prompts(app) == ["ship v2"])


async def test_a_failure_while_loading_is_one_line_and_zett_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    from zett_tui.ui.chat import workspace_commands

    def broken(*_args: object) -> None:
        raise PermissionError("config folder unreadable")

    monkeypatch.setattr(workspace_commands, "load_workspace_files", broken)
    app = make_app(ScriptedModel())
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_ready(pilot)
        assert any(
            t == "Could not load the Markdown commands and skills: config folder unreadable"
            for t in notices(app)
        )


async def test_zett_p_expands_a_command_and_offers_skills(own_home: Path) -> None:
    from tests.test_headless import run

    user_command("explain.md", "Explain $1 briefly.")
    (paths.config_dir() / "commands" / "bad.md").write_bytes(b"\xff")
    skill(own_home / ".agents" / "skills", "tidy", "Tidy the imports", "Sort them.")
    model = ScriptedModel(text_step("ok"), text_step("ok"))
    result = await run(model, "/explain main.py")
    assert result.code == 0 and sent_prompt(model) == "Explain main.py briefly."
    assert "tidy: Tidy the imports" in system_text(model)
    assert "bad.md: is not valid UTF-8" in result.err
    await run(model, "/tidy")
    assert sent_prompt(model, 1).startswith('Use the skill "tidy"')


# -- a command's own model ------------------------------------------------------------------------


async def test_a_commands_model_answers_its_turn_and_the_sessions_model_the_next() -> None:
    from tests.test_models_switch import Models, catalog, status_text

    user_command("quick.md", "---\nmodel: scripted:fast\n---\nSummarize $1.")
    session = ScriptedModel(text_step("from the session's model"))
    fast = ScriptedModel(text_step("from the fast model"))
    app = make_app(session, model_catalog=catalog(Models(scripted_fast=[fast])))
    async with app.run_test(size=(130, 40)) as pilot:
        await wait_ready(pilot)
        await submit(pilot, "/quick README.md")
        await wait_for(pilot, lambda: idle(app) and len(fast.requests) == 1)
        assert "scripted:test" in status_text(app)  # the session did not switch
        await submit(pilot, "and now?")
        await wait_for(pilot, lambda: idle(app) and len(session.requests) == 1)
        labels = [block.label for block in answers(app)]
        assert fast.closed and not session.closed  # built for the one turn, closed after it
    assert sent_prompt(fast) == "Summarize README.md."
    assert sent_prompt(session) == "and now?"
    assert labels == ["scripted:fast", "scripted:test"]


async def test_a_bare_model_name_is_a_model_of_the_provider_in_use(command_host: Any) -> None:
    from tests.test_models_switch import Models, catalog

    user_command("deep.md", "---\nmodel: bigmodel\n---\nThink hard.")
    big = ScriptedModel(text_step("thought"))
    chat = await command_host(ScriptedModel(), model_catalog=catalog(Models(scripted_bigmodel=[big])))
    await chat.offer_workspace_files()
    assert await chat.command("/deep") == []
    assert len(big.requests) == 1 and sent_prompt(big) == "Think hard."


@pytest.mark.parametrize(
    ("model", "why"),
    [
        ("haiku", "'haiku' is Claude Code's short name; give the model's full name"),
        ("anthropic:claude-haiku-5", "ANTHROPIC_API_KEY"),
        ("demo:x", "The demo model takes no model name"),
    ],
)
async def test_a_model_the_provider_cannot_serve_is_one_line_and_the_sessions_model_answers(
    model: str, why: str, command_host: Any
) -> None:
    from tests.test_models_switch import Models, catalog

    user_command("quick.md", f"---\nmodel: {model}\n---\nDo it.")
    session = ScriptedModel(text_step("done"))
    chat = await command_host(session, model_catalog=catalog(Models()))
    await chat.offer_workspace_files()
    [line] = await chat.command("/quick")
    assert len(session.requests) == 1
    assert line.startswith(f"/quick: model {model!r} cannot be used (") and why in line
    assert line.endswith("); scripted:test answers it.") and "\n" not in line
    assert sent_prompt(session) == "Do it."


def test_the_rules_for_a_bare_name_follow_the_provider_in_use() -> None:
    from zett_tui.providers.build import ModelChoice, ModelSpecError
    from zett_tui.providers.catalog import ModelCatalog
    from zett_tui.providers.command_model import select_command_model

    def catalog_on(provider: str) -> ModelCatalog:
        keys = {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}
        return ModelCatalog({}, keys, current=ModelChoice(provider, "m"), builder=lambda choice: None)

    anthropic_turn = select_command_model("claude-haiku-5", catalog_on("anthropic"))
    assert anthropic_turn is not None and anthropic_turn.choice.spec == "anthropic:claude-haiku-5"
    ollama_turn = select_command_model("qwen3:8b", catalog_on("ollama"))
    assert ollama_turn is not None and ollama_turn.choice.spec == "ollama:qwen3:8b"
    assert select_command_model("m", catalog_on("ollama")) is None  # the model in use already
    for provider, name, why in (
        ("anthropic", "gpt-5.5", "Anthropic serves claude-... models, not 'gpt-5.5'"),
        ("openai", "claude-haiku-5", "OpenAI serves gpt-... and o... models, not 'claude-haiku-5'"),
        ("demo", "claude-haiku-5", "the offline demo model, which serves no other model"),
    ):
        with pytest.raises(ModelSpecError, match=why.replace(".", r"\.")):
            select_command_model(name, catalog_on(provider))


async def test_zett_p_runs_a_command_with_its_model_or_says_in_one_line_why_not() -> None:
    import io

    from tests.test_models_switch import Models, catalog
    from zett_tui.entry.headless import run_headless
    from zett_tui.entry.launch import LaunchSettings

    async def run(model: ScriptedModel, prompt: str, models: Models) -> str:
        launch = LaunchSettings("scripted:test", lambda: model, cwd=Path.cwd(), model_catalog=catalog(models))
        err = io.StringIO()
        assert await run_headless(launch, prompt, out=io.StringIO(), err=err, handle_signals=False) == 0
        return err.getvalue()

    user_command("quick.md", "---\nmodel: scripted:fast\n---\nQuick: $1")
    user_command("alias.md", "---\nmodel: sonnet\n---\nAlias: $1")
    fast = ScriptedModel(text_step("fast answer"))
    session = ScriptedModel(text_step("session answer"))
    await run(session, "/quick x", Models(scripted_fast=[fast]))
    assert sent_prompt(fast) == "Quick: x" and session.requests == []
    err = await run(session, "/alias y", Models())
    assert sent_prompt(session) == "Alias: y"
    assert "/alias: model 'sonnet' cannot be used ('sonnet' is Claude Code's short name" in err


async def test_a_command_with_its_own_model_is_not_steered_into_a_running_turn() -> None:
    import asyncio

    from tests.test_models_switch import Models, catalog
    from tests.test_steer_and_queue import a_turn_running

    user_command("quick.md", "---\nmodel: scripted:fast\n---\nQuick: $1")
    gate = asyncio.Event()
    session = ScriptedModel(text_step("Working on it.", gate=gate))
    fast = ScriptedModel(text_step("fast answer"))
    app = make_app(session, model_catalog=catalog(Models(scripted_fast=[fast])))
    async with app.run_test(size=(130, 40)) as pilot:
        await wait_ready(pilot)
        await a_turn_running(pilot, gate, "long work")
        await submit(pilot, "/quick x")
        await wait_for(pilot, lambda: any("runs with its own model" in text for text in notices(app)))
        assert app.chat.composer.text == "/quick x"  # back in the prompt, to send once idle
        gate.set()
        await wait_for(pilot, lambda: idle(app))
        assert fast.requests == [] and len(session.requests) == 1
        assert "Quick: x" not in "\n".join(str(m.content) for m in session.requests[0].messages)
