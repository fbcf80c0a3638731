"""Extensions: bundled, by import path and by file; turned off; failing to load or in a hook; trust."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import textwrap
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from zett_agent.extensions.base import AgentExtension
from zett_agent.messages import SystemMessage

from tests.fakes.host import Collector, make_host
from tests.fakes.scripted_model import ScriptedModel, failing_step, text_step, tool_step
from tests.ui_helpers import (
    dialog_armed,
    make_app,
    notices,
    ready_app,
    screen_text,
    submit,
    wait_for,
    wait_ready,
)
from zett_tui.config import trust
from zett_tui.config.settings import ExtensionConfig, load_settings
from zett_tui.core import paths
from zett_tui.entry.startup import prepare_launch
from zett_tui.runtime.events import Notice, ToolFinished
from zett_tui.runtime.extensions.guard import GuardedExtension
from zett_tui.runtime.host import AgentHost
from zett_tui.ui.app import ZettApp
from zett_tui.ui.modals.choice_dialog import ChoiceButton

HERE = "tests.test_extensions"

# -- extensions the tests load by import path -------------------------------------------------------


class Noting(AgentExtension):
    """Adds its ``note`` to every model request; counts the runs it saw."""

    def __init__(self, note: str = "noted") -> None:
        self.note = note
        self.runs = 0

    async def before_run(self, context: Any) -> None:
        self.runs += 1

    async def on_model_request(self, context: Any, request: Any, call_next: Any) -> AsyncIterator[Any]:
        request = replace(request, messages=[SystemMessage(content=self.note), *request.messages])
        async for event in call_next(request):
            yield event


class RaisesInBeforeModel(AgentExtension):
    def __init__(self) -> None:
        self.calls = 0

    async def before_model(self, context: Any, request: Any) -> None:
        self.calls += 1
        raise ValueError("no model for you")


class RaisesBeforeCallNext(AgentExtension):
    async def on_model_request(self, context: Any, request: Any, call_next: Any) -> AsyncIterator[Any]:
        raise KeyError("settings")
        yield  # an async generator that never gets here


class RaisesMidStream(AgentExtension):
    async def on_model_request(self, context: Any, request: Any, call_next: Any) -> AsyncIterator[Any]:
        seen = 0
        async for event in call_next(request):
            seen += 1
            if seen == 2:
                raise ZeroDivisionError("mid-stream")
            yield event


class BrokenToolCall(AgentExtension):
    async def on_tool_call(self, context: Any, call: Any, call_next: Any) -> Any:
        return len(None)  # type: ignore[arg-type]  # a bug: TypeError


class RefusesReads(AgentExtension):
    async def on_tool_call(self, context: Any, call: Any, call_next: Any) -> Any:
        if call.name == "read_file":
            raise RuntimeError("reading is not allowed in this repository")
        return await call_next()


class NotAnExtension:
    pass


# -- helpers ----------------------------------------------------------------------------------------


async def started(model: ScriptedModel, *configs: ExtensionConfig) -> AgentHost:
    return await make_host(model, extensions=configs)


def by_path(name: str, class_name: str, **options: Any) -> ExtensionConfig:
    return ExtensionConfig(name, "user", import_path=f"{HERE}:{class_name}", options=options)


def inner(host: AgentHost, name: str) -> Any:
    [entry] = [entry for entry in host.extension_report.loaded if entry.name == name]
    assert isinstance(entry.instance, GuardedExtension)
    return entry.instance.inner


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


NOTE_EXTENSION = """
    from dataclasses import replace

    from zett_agent.extensions import AgentExtension
    from zett_agent.messages import SystemMessage


    class {name}(AgentExtension):
        def __init__(self, note="from a file"):
            self.note = note

        async def on_model_request(self, context, request, call_next):
            request = replace(request, messages=[SystemMessage(content=self.note), *request.messages])
            async for event in call_next(request):
                yield event
"""


def system_notes(model: ScriptedModel, index: int = 0) -> list[str]:
    return [str(m.content) for m in model.requests[index].messages if isinstance(m, SystemMessage)]


# -- loading ----------------------------------------------------------------------------------------


async def test_bundled_extensions_load_through_the_registry_and_are_recorded() -> None:
    host = await started(ScriptedModel(text_step("ok")))
    await host.aclose()
    loaded = host.extension_report.loaded
    assert [(entry.name, entry.source) for entry in loaded] == [
        ("plan_guard", "bundled"),
        ("edit_approval", "bundled"),
        ("tool_output", "bundled"),
    ]
    assert all(Path(entry.origin).is_file() for entry in loaded)
    assert host.agent is not None
    names = [extension.name for extension in host.agent.extensions]
    assert names.index("PlanGuardExtension") < names.index("EditApprovalExtension")
    assert "ToolOutputOutsideProject" in names
    assert host.extension_report.problems == []


async def test_extension_by_import_path_gets_its_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "site"
    write(package / "zett_ext_by_path.py", NOTE_EXTENSION.format(name="ByPath"))
    monkeypatch.syspath_prepend(str(package))
    model = ScriptedModel(text_step("ok"))
    config = ExtensionConfig("mine", "user", import_path="zett_ext_by_path:ByPath", options={"note": "hello"})
    host = await started(model, config)
    finished = await host.run_turn("hi", Collector())
    await host.aclose()
    assert finished.status == "completed"
    assert "hello" in system_notes(model)
    entry = host.extension_report.loaded[-1]
    assert (entry.name, entry.source, entry.origin) == ("mine", "user", "zett_ext_by_path:ByPath")


async def test_extension_by_file_in_the_config_folder_from_config_toml() -> None:
    write(paths.config_dir() / "extensions" / "noter.py", NOTE_EXTENSION.format(name="FileNoter"))
    write(paths.config_file(), '[extensions.noter]\nfile = "noter.py"\noptions = { note = "configured" }\n')
    settings, problems = load_settings(cwd=Path.cwd(), env={})
    assert problems == []
    model = ScriptedModel(text_step("ok"))
    host = await started(model, *settings.extensions)
    await host.run_turn("hi", Collector())
    await host.aclose()
    assert "configured" in system_notes(model)
    entry = host.extension_report.loaded[-1]
    assert (entry.name, entry.source) == ("noter", "user")
    assert entry.origin == str(paths.config_dir() / "extensions" / "noter.py")


async def test_turned_off_extensions_do_not_load() -> None:
    write(
        paths.config_file(),
        f"""
        [extensions.noter]
        path = "{HERE}:Noting"
        enabled = false

        [extensions.tool_output]
        enabled = false
        """,
    )
    settings, problems = load_settings(cwd=Path.cwd(), env={})
    assert problems == []
    host = await started(ScriptedModel(text_step("ok")), *settings.extensions)
    await host.aclose()
    assert host.agent is not None
    names = {extension.name for extension in host.agent.extensions}
    assert "Noting" not in names and "ToolOutputOutsideProject" not in names
    assert {config.name for config in host.extension_report.turned_off} == {"noter", "tool_output"}


@pytest.mark.parametrize("name", ["edit_approval", "plan_guard"])
def test_safety_extensions_cannot_be_turned_off(name: str) -> None:
    write(paths.config_file(), f"model = 'demo'\n\n[extensions.{name}]\nenabled = false\n")
    settings, problems = load_settings(cwd=Path.cwd(), env={})
    [problem] = problems
    assert (problem.line, problem.key) == (3, f"extensions.{name}")
    assert problem.message.startswith("cannot be turned off: it is what")
    assert settings.extensions == ()


@pytest.mark.parametrize(
    ("table", "line", "key", "message"),
    [
        ('[extensions.x]\npath = "no colon"\n', 2, "extensions.x.path", "expected 'package.module:Class'"),
        ('[extensions.x]\nfile = "../up.py"\n', 2, "extensions.x.file", "expected a file name such as"),
        ("[extensions.x]\nenabled = true\n", 1, "extensions.x", 'needs path = "package.module:Class"'),
        ('[extensions.x]\npath = "a:B"\nfile = "b.py"\n', 1, "extensions.x", "give either path"),
        ('[extensions.tool_output]\npath = "a:B"\n', 1, "extensions.tool_output", "is a bundled extension"),
        ('[extensions.x]\npath = "a:B"\nopts = 1\n', 3, "extensions.x.opts", "did you mean 'options'?"),
    ],
)
def test_config_problems_name_the_line_and_key(table: str, line: int, key: str, message: str) -> None:
    write(paths.config_file(), table)
    _, problems = load_settings(cwd=Path.cwd(), env={})
    assert [(p.line, p.key) for p in problems] == [(line, key)]
    assert message in problems[0].message


async def test_extensions_that_cannot_load_are_reported_and_zett_carries_on() -> None:
    broken = write(paths.config_dir() / "extensions" / "broken.py", "def oops(:\n")
    configs = [
        ExtensionConfig("missing", "user", import_path="zett_no_such_module:Thing"),
        ExtensionConfig("broken", "user", file=broken),
        by_path("noclass", "NoSuchClass"),
        by_path("notext", "NotAnExtension"),
        by_path("badopts", "Noting", colour="red"),
        by_path("fine", "Noting"),
    ]
    model = ScriptedModel(text_step("still here"))
    host = await started(model, *configs)
    finished = await host.run_turn("hi", Collector())
    await host.aclose()
    assert finished.status == "completed" and finished.answer == "still here"
    problems = {problem.name: problem for problem in host.extension_report.problems}
    assert set(problems) == {"missing", "broken", "noclass", "notext", "badopts"}
    assert "ModuleNotFoundError" in problems["missing"].error
    assert "SyntaxError" in problems["broken"].error and problems["broken"].origin == str(broken)
    assert "has no NoSuchClass" in problems["noclass"].error
    assert "not an AgentExtension" in problems["notext"].error
    assert "colour" in problems["badopts"].error
    assert str(problems["missing"]).startswith(
        "Extension missing (user, zett_no_such_module:Thing) was not loaded:"
    )
    assert [entry.name for entry in host.extension_report.loaded][-1] == "fine"


async def test_a_second_instance_of_one_class_gets_its_configured_name() -> None:
    host = await started(ScriptedModel(text_step("ok")), by_path("one", "Noting"), by_path("two", "Noting"))
    await host.aclose()
    assert host.agent is not None
    names = [extension.name for extension in host.agent.extensions]
    assert "Noting" in names and "two" in names


# -- hooks that raise -------------------------------------------------------------------------------


async def test_a_hook_that_raises_is_reported_once_and_switched_off() -> None:
    model = ScriptedModel(text_step("first answer"), text_step("second answer"))
    host = await started(model, by_path("boom", "RaisesInBeforeModel"))
    sink = Collector()
    first = await host.run_turn("one", sink)
    second = await host.run_turn("two", sink)
    await host.aclose()
    assert (first.status, first.answer, second.answer) == ("completed", "first answer", "second answer")
    [notice] = sink.of(Notice)
    assert notice.level == "error"
    assert notice.text.startswith("Extension boom raised in before_model: ValueError: no model for you.")
    assert inner(host, "boom").calls == 1
    assert host.extension_report.loaded[-1].failure == "raised in before_model: ValueError: no model for you"


async def test_model_middleware_that_raises_before_call_next_is_skipped() -> None:
    model = ScriptedModel(text_step("answer"))
    host = await started(model, by_path("early", "RaisesBeforeCallNext"))
    sink = Collector()
    finished = await host.run_turn("hi", sink)
    await host.aclose()
    assert (finished.status, finished.answer) == ("completed", "answer")
    assert len(model.requests) == 1
    assert "raised in on_model_request: KeyError" in sink.of(Notice)[0].text


async def test_model_middleware_that_raises_mid_stream_loses_nothing() -> None:
    text = "abcdefghijklmnopqrstuvwxyz0123456789"
    model = ScriptedModel(text_step(text, chunk=8))
    host = await started(model, by_path("middle", "RaisesMidStream"))
    sink = Collector()
    finished = await host.run_turn("hi", sink)
    await host.aclose()
    assert (finished.status, finished.answer, sink.text) == ("completed", text, text)
    assert len(model.requests) == 1
    assert "ZeroDivisionError: mid-stream" in sink.of(Notice)[0].text


async def test_the_runtimes_own_error_is_never_swallowed() -> None:
    model = ScriptedModel(failing_step(ConnectionResetError("peer went away")))
    host = await started(model, by_path("noter", "Noting"))
    sink = Collector()
    finished = await host.run_turn("hi", sink)
    await host.aclose()
    assert finished.status == "failed"
    assert sink.of(Notice) == []
    assert host.extension_report.loaded[-1].failure is None


async def test_a_broken_tool_middleware_is_switched_off_and_the_call_runs(project_dir: Path) -> None:
    (project_dir / "notes.txt").write_text("remember the milk\n")
    model = ScriptedModel(tool_step("c1", "read_file", {"path": "notes.txt"}), text_step("milk"))
    host = await started(model, by_path("bug", "BrokenToolCall"))
    sink = Collector()
    finished = await host.run_turn("read it", sink)
    await host.aclose()
    [done] = sink.of(ToolFinished)
    assert done.state == "done" and "remember the milk" in done.output
    assert finished.answer == "milk"
    assert "Extension bug raised in on_tool_call: TypeError" in sink.of(Notice)[0].text


async def test_a_tool_middleware_may_still_refuse_a_call_on_purpose(project_dir: Path) -> None:
    (project_dir / "notes.txt").write_text("secret\n")
    model = ScriptedModel(tool_step("c1", "read_file", {"path": "notes.txt"}), text_step("understood"))
    host = await started(model, by_path("guard", "RefusesReads"))
    sink = Collector()
    finished = await host.run_turn("read it", sink)
    await host.aclose()
    [refused] = sink.of(ToolFinished)
    assert refused.state == "failed" and "not allowed in this repository" in refused.output
    assert "secret" not in refused.output
    assert finished.status == "completed"
    assert sink.of(Notice) == [] and host.extension_report.loaded[-1].failure is None


_HOOK_ARGUMENTS: dict[str, tuple[Any, ...]] = {
    "on_tool": (None,),
    "on_state": (None,),
    "on_message": (None,),
    "before_run": (None,),
    "after_run": (None, None),
    "on_success": (None, None),
    "on_error": (None, RuntimeError("x")),
    "before_turn": (None,),
    "after_turn": (None, None),
    "before_model": (None, None),
    "after_model": (None, None),
    "before_tool": (None, None),
    "after_tool": (None, None, None, None),
    "on_compact": (None,),
    "on_event": (None, None),
}


def test_the_guard_covers_every_hook_of_the_runtime() -> None:
    hooks = {
        name
        for name in dir(AgentExtension)
        if not name.startswith("_") and callable(getattr(AgentExtension, name, None))
    }
    assert hooks == {*_HOOK_ARGUMENTS, "accept", "on_tool_call", "on_model_request"}
    assert not hooks - set(vars(GuardedExtension))


@pytest.mark.parametrize("hook", sorted(_HOOK_ARGUMENTS))
async def test_every_lifecycle_hook_is_delegated_and_its_error_contained(hook: str) -> None:
    seen: list[str] = []

    class Recording(AgentExtension):
        pass

    async def record(*arguments: Any) -> None:
        seen.append(hook)
        raise ValueError(hook)

    extension = Recording()
    setattr(extension, hook, record)
    reports: list[str] = []
    guard = GuardedExtension(extension, "rec", reports.append)
    await getattr(guard, hook)(*_HOOK_ARGUMENTS[hook])
    await getattr(guard, hook)(*_HOOK_ARGUMENTS[hook])  # switched off: not called again
    assert seen == [hook]
    assert reports == [
        f"Extension rec raised in {hook}: ValueError: {hook}. It is off for the rest of this "
        "session; zett carries on without it."
    ]


def test_accept_errors_are_contained() -> None:
    class Accepting(AgentExtension):
        def accept(self, config: Any, event: Any) -> bool:
            raise AttributeError("no")

    reports: list[str] = []
    guard = GuardedExtension(Accepting(), "acc", reports.append)
    assert guard.accept(None, None) is False  # type: ignore[arg-type]
    assert guard.failure == "raised in accept: AttributeError: no" and len(reports) == 1


# -- the worked example -----------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
async def test_git_status_example_adds_a_note_in_a_repository_only(project_dir: Path) -> None:
    config = ExtensionConfig("git_status", "bundled", enabled=True, options={"max_lines": 5})
    outside = ScriptedModel(text_step("ok"))
    host = await started(outside, config)
    await host.run_turn("hi", Collector())
    await host.aclose()
    assert not any("Git status" in note for note in system_notes(outside))

    subprocess.run(["git", "init", "-q"], cwd=project_dir, check=True)
    (project_dir / "new.txt").write_text("x\n")
    model = ScriptedModel(text_step("ok"))
    host = await started(model, config)
    await host.run_turn("hi", Collector())
    await host.aclose()
    [note] = [note for note in system_notes(model) if "Git status" in note]
    assert "?? new.txt" in note
    assert host.extension_report.loaded[-1].source == "bundled"


async def test_git_status_example_checks_its_options() -> None:
    host = await started(
        ScriptedModel(text_step("ok")),
        ExtensionConfig("git_status", "bundled", enabled=True, options={"max_lines": 0}),
    )
    await host.aclose()
    [problem] = host.extension_report.problems
    assert problem.name == "git_status" and "ValueError: max_lines must be" in problem.error


# -- workspace trust --------------------------------------------------------------------------------

PROJECT_CONFIG = """
[ui]
theme = "project-theme"

[extensions.proj]
file = "proj.py"
options = { note = "from the project" }
"""


def make_project(project_dir: Path) -> None:
    write(project_dir / ".zett" / "config.toml", PROJECT_CONFIG)
    write(project_dir / ".zett" / "extensions" / "proj.py", NOTE_EXTENSION.format(name="ProjectNoter"))


def test_trust_is_keyed_to_a_hash_of_what_would_load(project_dir: Path) -> None:
    assert trust.project_files(project_dir) is None  # no .zett: nothing to trust
    make_project(project_dir)
    project = trust.project_files(project_dir)
    assert project is not None
    assert project.files == (".zett/config.toml", ".zett/extensions/proj.py")
    assert trust.trust_state(project) is trust.TrustState.NEW

    trust.remember(project, trusted=True)
    assert trust.trust_state(project) is trust.TrustState.TRUSTED
    assert stat.S_IMODE(trust.store_path().stat().st_mode) == 0o600
    stored = json.loads(trust.store_path().read_text())["folders"][str(project_dir.resolve())]
    assert stored["digest"] == project.digest and stored["trusted"] is True

    pycache = project_dir / ".zett" / "extensions" / "__pycache__" / "proj.cpython-311.pyc"
    write(pycache, "bytecode")
    assert trust.still_trusted(project_dir)  # Python's own cache is not what loads

    (project_dir / ".zett" / "extensions" / "helper.py").write_text("X = 1\n")
    changed = trust.project_files(project_dir)
    assert changed is not None and changed.digest != project.digest
    assert trust.trust_state(changed) is trust.TrustState.CHANGED
    trust.remember(changed, trusted=False)
    assert trust.trust_state(changed) is trust.TrustState.DECLINED


def test_an_untrusted_project_config_and_its_extensions_are_not_loaded(project_dir: Path) -> None:
    make_project(project_dir)
    launch = prepare_launch(cwd=project_dir, env={})
    assert launch.theme is None and launch.extensions == ()
    assert launch.project_trust is None  # zett -p: nobody to ask...
    assert any("Not loaded from" in text and ".zett/extensions/proj.py" in text for _, text in launch.notices)

    asked = prepare_launch(cwd=project_dir, env={}, ask_trust=True)
    assert asked.project_trust is not None and asked.extensions == ()  # ...the app asks
    assert not any("Not loaded from" in text for _, text in asked.notices)

    project = trust.project_files(project_dir)
    assert project is not None
    trust.remember(project, trusted=True)
    trusted = prepare_launch(cwd=project_dir, env={}, ask_trust=True)
    assert trusted.project_trust is None and trusted.theme == "project-theme"
    [extension] = trusted.extensions
    assert (extension.name, extension.source) == ("proj", "project")

    (project_dir / ".zett" / "extensions" / "proj.py").write_text("# changed\n")
    again = prepare_launch(cwd=project_dir, env={}, ask_trust=True)
    assert again.project_trust is not None and again.extensions == ()  # asked again


async def test_project_files_changed_after_the_trust_check_do_not_load(project_dir: Path) -> None:
    make_project(project_dir)
    project = trust.project_files(project_dir)
    assert project is not None
    trust.remember(project, trusted=True)
    launch = prepare_launch(cwd=project_dir, env={})
    (project_dir / ".zett" / "extensions" / "proj.py").write_text("import os  # something else now\n")
    host = await started(ScriptedModel(text_step("ok")), *launch.extensions)
    await host.aclose()
    [problem] = host.extension_report.problems
    assert problem.name == "proj" and "changed since you trusted them" in problem.error


# -- in the app -------------------------------------------------------------------------------------


def app_for_project(project_dir: Path, model: ScriptedModel) -> ZettApp:
    launch = prepare_launch(cwd=project_dir, env={}, ask_trust=True)
    return ZettApp(replace(launch, model_factory=lambda: model, model_label="scripted:test", bell=False))


async def test_the_app_asks_once_and_trusting_loads_the_project_at_once(project_dir: Path) -> None:
    make_project(project_dir)
    app = app_for_project(project_dir, ScriptedModel())
    async with app.run_test(size=(110, 40)) as pilot:
        await dialog_armed(pilot)
        dialog = app.screen
        await wait_for(pilot, lambda: "from the project" in screen_text(app))
        shown = screen_text(app)
        assert ".zett/extensions/proj.py" in shown and "runs .zett/extensions/proj.py" in shown
        assert dialog.focused is not None and dialog.focused.id == "choice-1"  # Enter does not trust
        assert isinstance(dialog.focused, ChoiceButton) and dialog.focused.choice.value == "distrust"
        await pilot.press("2")
        await wait_ready(pilot)
        host = app.chat.host
        assert host is not None
        entry = host.extension_report.loaded[-1]
        assert (entry.name, entry.source) == ("proj", "project")
        assert any(text.startswith("Trusted ") for text in notices(app))
        following = app.choices.next_launch(None)  # what /new builds
        assert following.project_trust is None and following.extensions  # a /new session keeps them
    project = trust.project_files(project_dir)
    assert project is not None and trust.trust_state(project) is trust.TrustState.TRUSTED


async def test_not_trusting_keeps_the_project_out_and_is_remembered(project_dir: Path) -> None:
    make_project(project_dir)
    app = app_for_project(project_dir, ScriptedModel())
    async with app.run_test(size=(110, 40)) as pilot:
        await dialog_armed(pilot)
        await pilot.press("enter")
        await wait_ready(pilot)
        host = app.chat.host
        assert host is not None
        assert all(entry.source != "project" for entry in host.extension_report.loaded)
        assert any(text.startswith("Not loaded: ") for text in notices(app))
    project = trust.project_files(project_dir)
    assert project is not None and trust.trust_state(project) is trust.TrustState.DECLINED
    assert prepare_launch(cwd=project_dir, env={}, ask_trust=True).project_trust is None  # not asked again


async def test_extensions_command_lists_what_runs_what_is_off_and_what_failed() -> None:
    model = ScriptedModel(text_step("ok"))
    configs = (
        by_path("boom", "RaisesInBeforeModel"),
        ExtensionConfig("missing", "user", import_path="zett_no_such_module:Thing"),
        ExtensionConfig("tool_output", "bundled", enabled=False),
    )
    app = make_app(model, extensions=configs)
    async with ready_app(app, size=(140, 40)) as pilot:
        assert any(
            "Extension missing (user, zett_no_such_module:Thing) was not loaded" in t for t in notices(app)
        )
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: any("raised in before_model" in text for text in notices(app)))
        await wait_for(pilot, lambda: not app.chat.turns.busy)
        await submit(pilot, "/extensions")
        await wait_for(pilot, lambda: notices(app)[-1].startswith("Extensions, outermost first"))
        listing = notices(app)[-1]
    assert "plan_guard" in listing and "edit_approval" in listing
    assert f"boom             user     {HERE}:RaisesInBeforeModel" in listing
    assert "OFF for this session: it raised in before_model: ValueError" in listing
    assert "tool_output      off      turned off by enabled = false" in listing
    assert "git_status       off" in listing
    assert "missing (user, zett_no_such_module:Thing): ModuleNotFoundError" in listing
    assert "This folder has no project settings, extensions, commands or MCP servers" in listing


async def test_extensions_trust_asks_again_and_applies_from_the_next_session(project_dir: Path) -> None:
    make_project(project_dir)
    project = trust.project_files(project_dir)
    assert project is not None
    trust.remember(project, trusted=False)
    app = app_for_project(project_dir, ScriptedModel())
    async with ready_app(app, size=(110, 40)) as pilot:
        assert any("you chose not to trust this folder" in text for text in notices(app))
        await submit(pilot, "/extensions trust")
        await dialog_armed(pilot)
        await pilot.press("2")
        await wait_for(pilot, lambda: any(text.startswith("Trusted ") for text in notices(app)))
        host = app.chat.host
        assert host is not None and all(entry.source != "project" for entry in host.extension_report.loaded)
        assert [config.name for config in app.choices.next_launch(None).extensions] == [
            "proj"
        ]  # what /new builds
    assert trust.trust_state(project) is trust.TrustState.TRUSTED


async def test_extensions_allow_pins_a_user_extension_that_lies_in_the_project(project_dir: Path) -> None:
    from zett_tui.config import pinned_files

    source = project_dir / "tools" / "hello_ext.py"
    source.parent.mkdir()
    source.write_text(
        "from zett_agent.extensions import AgentExtension\n\n\nclass Hello(AgentExtension):\n    pass\n"
    )
    linked = paths.config_dir() / "extensions" / "hello_ext.py"
    linked.parent.mkdir(parents=True)
    linked.symlink_to(source)
    app = make_app(ScriptedModel(), extensions=(ExtensionConfig("hello", "user", file=linked),))
    async with ready_app(app, size=(140, 40)) as pilot:
        assert any("is not one you allowed" in text and "/extensions allow" in text for text in notices(app))
        await submit(pilot, "/extensions allow")
        await wait_for(pilot, lambda: notices(app)[-1].startswith("Allowed these files"))
        assert str(source.resolve()) in notices(app)[-1]
        await submit(pilot, "/extensions allow")
        await wait_for(pilot, lambda: notices(app)[-1].startswith("Nothing to allow"))
    assert pinned_files.pinned_bytes(linked) == source.read_bytes()
