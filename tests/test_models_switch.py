"""Switching models mid-session (/model), reasoning effort (/effort), answer labels, the context meter."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from zett_agent.messages import SystemMessage
from zett_agent.model import ReasoningEffort

from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import answers, idle, make_app, notices, ready_app, submit, wait_for
from zett_tui.config.settings import load_settings
from zett_tui.core import paths
from zett_tui.entry.startup import prepare_launch
from zett_tui.providers.build import EndpointSettings, ModelChoice, parse_model_spec
from zett_tui.providers.catalog import ModelCatalog, list_ollama_models, parse_ollama_tags
from zett_tui.providers.context_window import (
    DEFAULT_CONTEXT_WINDOW,
    OLLAMA_CONTEXT_WINDOW,
    context_window_for,
    describe_context,
)
from zett_tui.ui.app import ZettApp
from zett_tui.ui.modals.model_picker import ModelPicker

ENDPOINTS = {"scripted": EndpointSettings("scripted", "http://127.0.0.1:9/v1", reasoning_effort="medium")}
#: Nothing listens on port 1: the Ollama probe is refused at once.
NO_OLLAMA = {"OLLAMA_HOST": "127.0.0.1:1"}


class Models:
    """Hands out scripted models by spec, in order, and keeps every one it built."""

    def __init__(self, **by_spec: list[ScriptedModel]) -> None:
        self.waiting = {spec.replace("_", ":"): list(models) for spec, models in by_spec.items()}
        self.built: list[ScriptedModel] = []

    def __call__(self, choice: ModelChoice) -> ScriptedModel:
        model = self.waiting[choice.spec].pop(0)
        self.built.append(model)
        return model


def catalog(builder: Callable[[ModelChoice], Any], **kwargs: Any) -> ModelCatalog:
    return ModelCatalog(
        ENDPOINTS,
        kwargs.pop("env", NO_OLLAMA),
        current=parse_model_spec("scripted:test", ENDPOINTS),
        builder=builder,
        **kwargs,
    )


def status_text(app: ZettApp) -> str:
    return app.chat.status.render().plain


def user_texts(model: ScriptedModel, index: int = -1) -> list[str]:
    messages = model.requests[index].messages
    return [str(message.content) for message in messages if not isinstance(message, SystemMessage)]


async def turn(pilot: Any, app: ZettApp, prompt: str, done: Callable[[], bool]) -> None:
    await submit(pilot, prompt)
    await wait_for(pilot, lambda: idle(app) and done())


async def command(pilot: Any, app: ZettApp, text: str, expect: str) -> str:
    """Run a slash command and return the new notice that starts with ``expect``."""
    seen = len(notices(app))

    def said() -> list[str]:
        return [n for n in notices(app)[seen:] if n.startswith(expect)]

    await submit(pilot, text)
    await wait_for(pilot, lambda: bool(said()))
    return said()[0]


# -- switching --------------------------------------------------------------------------------------


async def test_model_switches_mid_session_and_keeps_the_conversation() -> None:
    first = ScriptedModel(text_step("first answer"))
    second = ScriptedModel(text_step("second answer"))
    app = make_app(first, model_catalog=catalog(Models(scripted_other=[second])))
    async with ready_app(app, size=(140, 40)) as pilot:
        await turn(pilot, app, "hello", lambda: len(first.requests) == 1)
        said = await command(pilot, app, "/model scripted:other", "Switched to")
        assert first.closed and not second.closed  # the old provider is closed once the switch is made
        await turn(pilot, app, "again", lambda: len(second.requests) == 1)
        host = app.chat.host
        assert host is not None
        assert "scripted:other" in status_text(app)
        lines = host.recorder.session_path(host.session_id).read_text().splitlines()  # type: ignore[union-attr]
    assert said == (
        "Switched to scripted:other (reasoning effort medium); the conversation carries on with it."
    )
    assert len(first.requests) == 1
    assert user_texts(second) == ["hello", "first answer", "again"]
    recorded = [json.loads(line)["metadata"]["zett"]["model"] for line in lines]
    assert recorded == ["scripted:test", "scripted:other"]


async def test_an_answer_is_labelled_only_when_its_model_differs_from_the_one_before() -> None:
    models = Models(
        scripted_other=[ScriptedModel(text_step("b"), text_step("c"))],
        scripted_test=[ScriptedModel(text_step("d"))],
    )
    app = make_app(ScriptedModel(text_step("a")), model_catalog=catalog(models))
    async with ready_app(app, size=(140, 40)) as pilot:
        await turn(pilot, app, "one", lambda: len(answers(app)) == 1)
        await command(pilot, app, "/model scripted:other", "Switched to")
        await turn(pilot, app, "two", lambda: len(answers(app)) == 2)
        await turn(pilot, app, "three", lambda: len(answers(app)) == 3)
        await command(pilot, app, "/model scripted:test", "Switched to scripted:test")
        await command(pilot, app, "/model scripted:test", "Already using")
        await turn(pilot, app, "four", lambda: len(answers(app)) == 4)
        labels = [block.label for block in answers(app)]
    assert labels == [None, "scripted:other", None, "scripted:test"]


async def test_a_resumed_session_labels_its_past_answers_by_the_same_rule() -> None:
    models = Models(scripted_other=[ScriptedModel(text_step("b"), text_step("c"))])
    app = make_app(ScriptedModel(text_step("a")), model_catalog=catalog(models))
    async with ready_app(app, size=(140, 40)) as pilot:
        await turn(pilot, app, "one", lambda: len(answers(app)) == 1)
        await command(pilot, app, "/model scripted:other", "Switched to")
        await turn(pilot, app, "two", lambda: len(answers(app)) == 2)
        await turn(pilot, app, "three", lambda: len(answers(app)) == 3)
        host = app.chat.host
        assert host is not None and host.recorder is not None
        session_id, path = host.session_id, host.recorder.session_path(host.session_id)
        await app.chat.shutdown()  # as quitting does: the session is released

    later = ScriptedModel(text_step("d"))
    resumed = make_app(later, session_id=session_id, resume_path=path)
    async with ready_app(resumed, size=(140, 40)) as pilot:
        past = [block.label for block in answers(resumed)]
        await turn(pilot, resumed, "four", lambda: len(answers(resumed)) == 4)
        labels = [block.label for block in answers(resumed)]
    assert past == ["scripted:test", "scripted:other", None]
    assert labels == [*past, "scripted:test"]  # zett was started with the first model again
    assert user_texts(later)[:6] == ["one", "a", "two", "b", "three", "c"]


async def test_a_model_that_cannot_be_used_is_explained_and_nothing_switches(command_host: Any) -> None:
    first = ScriptedModel(text_step("still here"))

    def broken(choice: ModelChoice) -> ScriptedModel:
        raise RuntimeError("provider exploded")

    chat = await command_host(first, model_catalog=catalog(broken))
    [unknown] = await chat.command("/model nonsense")
    [no_key] = await chat.command("/model anthropic")
    [failed] = await chat.command("/model scripted:other")
    [same] = await chat.command("/model scripted:test")
    await chat.turn("hello")
    assert len(first.requests) == 1 and not first.closed
    assert "use anthropic:MODEL, openai:MODEL" in unknown and unknown.startswith("Unknown model")
    assert no_key.startswith("anthropic:")
    assert "ANTHROPIC_API_KEY is not set" in no_key and "The model was not switched" in no_key
    assert failed.startswith("Could not switch to scripted:other: ") and "provider exploded" in failed
    assert same == "Already using scripted:test."
    assert chat.labels == [] and chat.posted == []  # the status line and the app were told nothing
    assert chat.host.model_label == "scripted:test"
    assert chat.launch.model_catalog.current.spec == "scripted:test"


async def test_the_picker_lists_the_models_and_switches_to_the_chosen_one() -> None:
    second = ScriptedModel(text_step("from the picker"))
    models = Models(scripted_other=[second])
    app = make_app(ScriptedModel(), model_catalog=catalog(models, favourites=("scripted:other",)))
    async with ready_app(app, size=(140, 40)) as pilot:
        await submit(pilot, "/model")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker))
        picker = app.screen
        assert isinstance(picker, ModelPicker)
        rows = [(option.spec, option.current) for option in picker.rows]
        assert rows == [
            ("scripted:test", True),
            ("scripted:other", False),
            ("scripted:", False),
            ("demo", False),
        ]
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: any(n.startswith("Switched to scripted:other") for n in notices(app)))
        await turn(pilot, app, "hi", lambda: len(second.requests) == 1)
        # An endpoint row asks for the model name: the command is put in the prompt to be completed.
        await submit(pilot, "/model")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker))
        await pilot.press("down", "enter")  # the list is now: scripted:other (in use), scripted:, demo
        await wait_for(pilot, lambda: app.chat.composer.text == "/model scripted:")
        assert answers(app)[-1].label == "scripted:other"


async def test_switching_is_refused_without_a_catalog(command_host: Any) -> None:
    chat = await command_host(ScriptedModel())
    [said] = await chat.command("/model demo")
    assert said == "Switching models is not available in this session."


# -- reasoning effort -------------------------------------------------------------------------------


async def test_effort_changes_the_next_request_and_is_kept_per_model(command_host: Any) -> None:
    first = ScriptedModel(text_step("1"), text_step("2"))
    other = ScriptedModel(text_step("3"))
    back = ScriptedModel(text_step("4"), text_step("5"))
    chat = await command_host(
        first, model_catalog=catalog(Models(scripted_other=[other], scripted_test=[back]))
    )
    await chat.turn("default")
    [shown] = await chat.command("/effort")
    [bad] = await chat.command("/effort extreme")
    [high] = await chat.command("/effort high")
    await chat.turn("hard one")
    [switched] = await chat.command("/model scripted:other")
    await chat.turn("on the other")
    [back_again] = await chat.command("/model scripted:test")
    await chat.turn("back")
    [off] = await chat.command("/reasoning none")
    await chat.turn("quick")
    assert shown.startswith("Reasoning effort for scripted:test: medium.")
    assert bad.startswith("Unknown reasoning effort")
    assert "use one of: off, minimal, low, medium" in bad
    assert high == "Reasoning for scripted:test: effort high, from now on."
    assert switched.startswith("Switched to scripted:other")
    efforts = [request.reasoning_effort for request in (*first.requests, *other.requests, *back.requests)]
    assert efforts == [
        ReasoningEffort.MEDIUM,
        ReasoningEffort.HIGH,
        ReasoningEffort.MEDIUM,  # the other model keeps its configured effort
        ReasoningEffort.HIGH,  # and coming back brings the chosen one back
        ReasoningEffort.OFF,
    ]
    assert back_again.startswith("Switched to scripted:test") and "reasoning effort high" in back_again
    assert off == "Reasoning for scripted:test: no reasoning is asked for, from now on."
    assert [type(message).__name__ for message in chat.posted] == [
        "EffortChosen",
        "ModelChosen",
        "ModelChosen",
        "EffortChosen",
    ]  # what a new session (/new) starts with: the app's choices


# -- the context meter -------------------------------------------------------------------------------


async def test_the_status_line_shows_how_full_the_context_is() -> None:
    model = ScriptedModel(text_step("answer"))
    app = make_app(model, context_window=1000)
    async with ready_app(app, size=(200, 40)) as pilot:
        before = status_text(app)
        await turn(pilot, app, "hello", lambda: len(model.requests) == 1)
        after = status_text(app)
    assert "ctx ≈" in before and "of 1k" in before  # an estimate until a call reports usage
    assert "ctx 2% of 1k" in after  # the scripted usage: 12 in + 5 out


def test_context_windows_and_the_meter_text() -> None:
    assert context_window_for("claude-sonnet-5") == 200_000
    assert context_window_for("anthropic:claude-opus-4-1") == 200_000
    assert context_window_for("gpt-5.5") == 400_000
    assert context_window_for("openai:gpt-4o-mini") == 128_000
    assert context_window_for("openrouter:anthropic/claude-3.7-sonnet") == 200_000
    assert context_window_for("qwen3:8b", "ollama") == OLLAMA_CONTEXT_WINDOW
    assert context_window_for("ollama:qwen3:8b") == OLLAMA_CONTEXT_WINDOW
    assert context_window_for("mystery-model") == DEFAULT_CONTEXT_WINDOW
    assert context_window_for("claude-sonnet-5", configured=64_000) == 64_000
    assert describe_context(46_000, 200_000, estimated=False) == "ctx 23% of 200k"
    assert describe_context(12, 200_000, estimated=True) == "ctx ≈<1% of 200k"
    assert describe_context(0, 128_000, estimated=True) == "ctx ≈0% of 128k"
    assert describe_context(500_000, 400_000, estimated=False) == "ctx >100% of 400k"
    assert describe_context(1, 1_047_576, estimated=False) == "ctx <1% of 1M"
    assert describe_context(1, 32_768, estimated=False) == "ctx <1% of 32.8k"


# -- the list of models --------------------------------------------------------------------------------


def test_the_catalog_offers_what_is_configured_once_each() -> None:
    endpoints = {**ENDPOINTS, "lab": EndpointSettings("lab", "http://10.0.0.2/v1", api_key_env="LAB_KEY")}
    offered = ModelCatalog(
        endpoints,
        {"OPENAI_API_KEY": "sk-test"},
        current=parse_model_spec("openai", endpoints),
        configured="scripted:big",
        favourites=("anthropic:claude-opus-5", "openai:gpt-5.5", "lab:qwen3", "not a spec:"),
    ).options(ollama_models=["qwen3:8b"])
    assert [(option.spec, option.current) for option in offered] == [
        ("openai:gpt-5.5", True),
        ("scripted:big", False),
        ("anthropic:claude-opus-5", False),
        ("lab:qwen3", False),
        ("ollama:qwen3:8b", False),
        ("lab:", False),
        ("scripted:", False),
        ("demo", False),
    ]
    details = {option.spec: option.detail for option in offered}
    assert details["anthropic:claude-opus-5"] == "needs ANTHROPIC_API_KEY, not set"
    assert details["lab:qwen3"] == "needs LAB_KEY, not set"
    assert details["lab:"].startswith("endpoint at http://10.0.0.2/v1")
    assert next(option for option in offered if option.spec == "lab:").needs_model_name


def test_ollama_is_asked_only_when_it_is_on_this_machine(llm_server: Any) -> None:
    def url(env: dict[str, str]) -> str | None:
        return ModelCatalog({}, env).local_ollama_url()

    assert url({}) == "http://127.0.0.1:11434"
    assert url({"OLLAMA_HOST": "localhost:9999"}) == "http://localhost:9999"
    assert url({"OLLAMA_HOST": "[::1]:9999"}) == "http://[::1]:9999"
    assert url({"OLLAMA_HOST": "gpu-box.lan:11434"}) is None
    assert list_ollama_models(llm_server.base_url) == []  # it answers, with no models
    assert list_ollama_models("http://127.0.0.1:1") == []  # nobody listens
    tags = {"models": [{"name": "qwen3:8b"}, {"model": "llama3.2"}, {"name": "qwen3:8b"}, {"name": " "}, 7]}
    assert parse_ollama_tags(tags) == ["qwen3:8b", "llama3.2"]
    assert parse_ollama_tags(["not", "a", "table"]) == []


# -- configuration -------------------------------------------------------------------------------------


def test_favourite_models_and_an_endpoint_window_are_read_from_the_config(tmp_path: Path) -> None:
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        'models = ["openai:gpt-5.5", "lab:qwen3", ":broken"]\n'
        "[endpoints.lab]\n"
        'base_url = "http://127.0.0.1:8000/v1"\n'
        "context_window = 32768\n"
        "[endpoints.tiny]\n"
        'base_url = "http://127.0.0.1:8001/v1"\n'
        "context_window = 100\n",
        encoding="utf-8",
    )
    settings, problems = load_settings(cwd=tmp_path, env={"HOME": str(tmp_path)}, user_config=config)
    assert settings.models == ("openai:gpt-5.5", "lab:qwen3")
    assert settings.endpoints["lab"].context_window == 32768
    assert settings.endpoints["tiny"].context_window is None
    assert [problem.key for problem in problems] == ["models", "endpoints.tiny.context_window"]
    assert "expected at least 1024 tokens" in problems[1].message

    launch = prepare_launch(cwd=tmp_path, env={"HOME": str(tmp_path)}, model="lab:qwen3")
    assert launch.context_window == 32768
    assert isinstance(launch.model_catalog, ModelCatalog)
    assert launch.model_catalog.favourites == ("openai:gpt-5.5", "lab:qwen3")
    assert launch.model_catalog.current.spec == "lab:qwen3"


@pytest.mark.parametrize("spec", ["demo", "scripted:other"])
def test_a_selection_carries_what_the_host_needs(spec: str) -> None:
    built: list[ModelChoice] = []

    def build(choice: ModelChoice) -> ScriptedModel:
        built.append(choice)
        return ScriptedModel()

    selection = catalog(build).select(spec)
    assert selection.choice.spec == spec
    selection.factory()
    assert built == [selection.choice]
    assert selection.context_window == DEFAULT_CONTEXT_WINDOW
    expected = ReasoningEffort.MEDIUM
    assert selection.reasoning_effort is expected
    assert selection.describe_error(RuntimeError("boom"))


async def test_a_new_session_starts_with_the_model_and_effort_chosen_while_the_launch_stays_as_launched() -> (
    None
):
    """Issue 11, point 3: /model and /effort used to rewrite two copies of the launch settings by
    hand; they are the app's SessionChoices now, and LaunchSettings is frozen."""
    import dataclasses

    first = ScriptedModel(text_step("first answer"))
    second, third = ScriptedModel(), ScriptedModel(text_step("in the new session"))
    app = make_app(first, model_catalog=catalog(Models(scripted_other=[second, third])))
    async with ready_app(app, size=(140, 40)) as pilot:
        await command(pilot, app, "/model scripted:other", "Switched to")
        await command(pilot, app, "/effort high", "Reasoning for")
        launched = app.launch
        old_chat = app.chat
        await submit(pilot, "/new")
        await wait_for(pilot, lambda: app.chat is not old_chat and app.chat.host is not None)
        assert app.chat.launch.model_label == "scripted:other"
        assert app.chat.launch.reasoning_effort == "high"
        assert app.chat.host.reasoning_effort.value == "high"
        assert "scripted:other" in status_text(app)
        await turn(pilot, app, "hello", lambda: len(third.requests) == 1)
    assert app.launch is launched and launched.model_label == "scripted:test"
    with pytest.raises(dataclasses.FrozenInstanceError):
        launched.model_label = "changed"  # type: ignore[misc]
