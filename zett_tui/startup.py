"""From flags, config and environment to ``LaunchSettings``: which model, which notices. No Textual.

The provider SDK is not imported here: the model is built later by ``LaunchSettings.model_factory``,
in the app's warm-up, after the first frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from zett_tui.config import describe_config_locations, load_settings
from zett_tui.config_schema import Settings
from zett_tui.launch import LaunchSettings
from zett_tui.logs import setup_logging
from zett_tui.models import (
    DEMO_CHOICE,
    EndpointSettings,
    ModelChoice,
    ModelSpecError,
    build_model,
    default_model_choice,
    missing_credentials,
    reasoning_effort_for,
)
from zett_tui.redact import redactor_from_environment
from zett_tui.sessions.index import SessionSummary


class StartupError(Exception):
    """Something the user asked for on the command line cannot work; the message says what to do."""


NO_MODEL_HELP = (
    "No model is configured, so zett is running its offline demo model. To use a real one, set "
    "ANTHROPIC_API_KEY or OPENAI_API_KEY, or run zett --model PROVIDER:MODEL "
    "(anthropic, openai, ollama, or an OpenAI-compatible endpoint from your config)."
)


def endpoint_settings(settings: Settings) -> dict[str, EndpointSettings]:
    return {
        name: EndpointSettings(
            name=name,
            base_url=endpoint.base_url,
            api_key=endpoint.api_key,
            api_key_env=endpoint.api_key_env,
            reasoning_effort=endpoint.reasoning_effort,
            send_prompt_cache_key=endpoint.send_prompt_cache_key,
        )
        for name, endpoint in settings.endpoints.items()
    }


def prepare_launch(
    *,
    cwd: Path,
    env: Mapping[str, str],
    model: str | None = None,
    reasoning_effort: str | None = None,
    theme: str | None = None,
    resume: str | None = None,
    continue_last: bool = False,
) -> LaunchSettings:
    """Decide the model and collect what the user should be told when the app opens.

    Raises:
        StartupError: for a model given on the command line that cannot be used.
    """
    flags = {"model": model, "reasoning_effort": reasoning_effort, "theme": theme}
    settings, problems = load_settings(cwd=cwd, env=env, flags=flags)
    flag_problems = [problem for problem in problems if problem.message.endswith("(command-line flag)")]
    if flag_problems:
        raise StartupError(flag_problems[0].message.removesuffix(" (command-line flag)"))
    redact = redactor_from_environment(env, settings.redact_patterns)
    setup_logging(redact)
    endpoints = endpoint_settings(settings)
    notices: list[tuple[str, str]] = [("warning", f"Config: {problem}") for problem in problems]

    choice = _choose_model(settings, endpoints, env, cwd, from_flag=model is not None, notices=notices)
    try:
        effort = reasoning_effort_for(choice, endpoints, settings.reasoning_effort)
    except ModelSpecError as error:
        if reasoning_effort is not None:
            raise StartupError(str(error)) from error
        notices.append(("warning", f"Config: {error}"))
        effort = reasoning_effort_for(choice, endpoints)

    def model_factory() -> object:
        return build_model(choice, endpoints, env)

    def explain(error: BaseException) -> str:
        from zett_tui.runtime.errors import describe_error_for

        return describe_error_for(error, choice, endpoints, env)

    resumed = find_session_to_resume(cwd, resume, continue_last) if (resume or continue_last) else None
    return LaunchSettings(
        session_id=resumed.session_id if resumed else None,
        resume_path=resumed.path if resumed else None,
        model_label=choice.label,
        model_factory=model_factory,
        is_demo=choice.is_demo,
        reasoning_effort=str(effort),
        cwd=cwd,
        notices=notices,
        bell=settings.ui.bell,
        theme=settings.ui.theme,
        animations=settings.ui.animations,
        redact=redact,
        describe_error=explain,
    )


def _choose_model(
    settings: Settings,
    endpoints: Mapping[str, EndpointSettings],
    env: Mapping[str, str],
    cwd: Path,
    *,
    from_flag: bool,
    notices: list[tuple[str, str]],
) -> ModelChoice:
    try:
        choice = default_model_choice(settings.model, endpoints, env)
    except ModelSpecError as error:
        if from_flag:
            raise StartupError(str(error)) from error
        notices.append(("error", f"{error} Using the offline demo model instead."))
        return DEMO_CHOICE
    if choice is None:
        notices.append(("info", NO_MODEL_HELP + "\n" + describe_config_locations(cwd)))
        return DEMO_CHOICE
    problem = missing_credentials(choice, endpoints, env)
    if problem is None:
        return choice
    if from_flag:
        raise StartupError(problem)
    notices.append(("error", f"{problem} Using the offline demo model for now."))
    return DEMO_CHOICE


def find_session_to_resume(cwd: Path, resume: str | None, continue_last: bool) -> SessionSummary:
    """The session ``--resume ID`` or ``--continue`` names.

    Raises:
        StartupError: no such session, an ambiguous prefix (listing the matches), or a session
            another zett is writing.
    """
    from zett_tui.sessions.ids import SessionLookupError, resolve_session_id
    from zett_tui.sessions.index import SessionIndex

    index = SessionIndex()
    if continue_last:
        here = index.list_sessions(cwd=cwd)
        if not here:
            raise StartupError(
                f"there is no earlier session in {cwd}; `zett sessions list --all` shows every folder."
            )
        found = here[0]
    else:
        try:
            found = resolve_session_id(resume or "", index.list_sessions())
        except SessionLookupError as error:
            raise StartupError(str(error)) from error
    if found.in_use:
        raise StartupError(
            f"session {found.session_id} is open in another zett (pid {found.in_use_by}); "
            "close it there first, or `zett sessions show` it to read it."
        )
    return found
