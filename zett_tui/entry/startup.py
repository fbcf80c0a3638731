"""From flags, config and environment to ``LaunchSettings``: which model, which notices. No Textual.

The provider SDK is not imported here: the model is built later by ``LaunchSettings.model_factory``,
in the app's warm-up, after the first frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from zett_tui.config.schema import Settings
from zett_tui.config.settings import describe_config_locations, is_about_mcp, load_settings
from zett_tui.config.trust import ProjectFiles, TrustState, find_project, trust_state, untrusted_notice
from zett_tui.core.logs import setup_logging
from zett_tui.core.redact import redactor_from_environment
from zett_tui.entry.launch import LaunchSettings
from zett_tui.providers.build import (
    DEMO_CHOICE,
    EndpointSettings,
    ModelChoice,
    ModelSpecError,
    build_model,
    default_model_choice,
    missing_credentials,
    reasoning_effort_name_for,
)
from zett_tui.providers.catalog import ModelCatalog

if TYPE_CHECKING:  # the session index is imported only to resume one
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
            context_window=endpoint.context_window,
            vision=endpoint.vision,
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
    ask_trust: bool = False,
    open_as: str | None = None,
) -> LaunchSettings:
    """Decide the model and collect what the user should be told when the app opens.

    A project's ``.zett/`` settings and extensions are read only when the user trusted that folder.
    Otherwise ``ask_trust`` (the app) hands the folder on for the app to ask about; without it
    (``zett -p``) a notice says what was left out.

    Raises:
        StartupError: for a model given on the command line that cannot be used.
    """
    flags = {"model": model, "reasoning_effort": reasoning_effort, "theme": theme}
    project, trusted, trust_notice = _project_trust(cwd, env, ask_trust)
    settings, problems = load_settings(cwd=cwd, env=env, flags=flags, project_trusted=trusted)
    flag_problems = [problem for problem in problems if problem.message.endswith("(command-line flag)")]
    if flag_problems:
        raise StartupError(flag_problems[0].message.removesuffix(" (command-line flag)"))
    redact = redactor_from_environment(env, settings.redact_patterns, settings.endpoints.values())
    setup_logging(redact)
    endpoints = endpoint_settings(settings)
    notices: list[tuple[str, str]] = [("warning", f"Config: {problem}") for problem in problems]
    if trust_notice:
        notices.append(("warning", trust_notice))

    choice = _choose_model(settings, endpoints, env, cwd, from_flag=model is not None, notices=notices)
    try:
        effort = reasoning_effort_name_for(choice, endpoints, settings.reasoning_effort)
    except ModelSpecError as error:
        if reasoning_effort is not None:
            raise StartupError(str(error)) from error
        notices.append(("warning", f"Config: {error}"))
        effort = reasoning_effort_name_for(choice, endpoints)

    def model_factory() -> object:
        return build_model(choice, endpoints, env, openai_responses=settings.web.search)

    def explain(error: BaseException) -> str:
        from zett_tui.providers.errors import describe_error_for

        return describe_error_for(error, choice, endpoints, env)

    catalog = ModelCatalog(
        endpoints,
        env,
        current=choice,
        configured=settings.model,
        favourites=settings.models,
        default_effort=settings.reasoning_effort,
        openai_responses=settings.web.search,
    )
    resumed = (
        find_session_to_resume(cwd, resume, continue_last, allow_busy=open_as is not None)
        if (resume or continue_last)
        else None
    )
    read_only = open_as == "view"
    if resumed is not None and open_as == "fork":
        resumed = fork_for_launch(resumed)
    return LaunchSettings(
        context_window=catalog.context_window(choice),
        model_catalog=catalog,
        session_id=resumed.session_id if resumed else None,
        resume_path=resumed.path if resumed else None,
        read_only=read_only,
        model_label=choice.label,
        model_factory=model_factory,
        is_demo=choice.is_demo,
        reasoning_effort=effort,
        cwd=cwd,
        notices=notices,
        bell=settings.ui.bell,
        notify=settings.ui.notify,
        theme=settings.ui.theme,
        animations=settings.ui.animations,
        image_previews=settings.ui.image_previews,
        terminal_scroll=settings.ui.terminal_scroll,
        redact=redact,
        describe_error=explain,
        extensions=settings.extensions,
        sandbox=settings.sandbox,
        checkpoint_bounds=settings.checkpoints.bounds,
        web_fetch=settings.web.fetch,
        web_search=settings.web.search,
        subagents=settings.subagents,
        mcp_servers=settings.mcp_servers,
        hooks=settings.hooks,
        mcp_problems=tuple(str(problem) for problem in problems if is_about_mcp(problem)),
        project_trust=project,
        reload=lambda: prepare_launch(
            cwd=cwd, env=env, model=model, reasoning_effort=reasoning_effort, theme=theme
        ),
    )


def _project_trust(
    cwd: Path, env: Mapping[str, str], ask: bool
) -> tuple[ProjectFiles | None, bool, str | None]:
    """(the project folder for the app to ask about or None, whether its files load, a notice)."""
    project = find_project(cwd, env)
    state = trust_state(project) if project is not None else TrustState.TRUSTED
    if project is None or state is TrustState.TRUSTED:
        return None, True, None
    if ask and state is not TrustState.DECLINED:
        return project, False, None
    return None, False, untrusted_notice(project, state)


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


class SessionInUse(StartupError):
    """The session asked for is being written by another zett; it can be viewed or forked."""

    def __init__(self, summary: SessionSummary) -> None:
        self.summary = summary
        super().__init__(
            f"session {summary.session_id} is open in another zett (pid {summary.in_use_by}); "
            "add --read-only to look at it, or --fork to carry on in a new session with a copy."
        )


def fork_for_launch(found: SessionSummary) -> SessionSummary:
    """Copy ``found`` into a new session and return the copy's summary."""
    import asyncio
    from dataclasses import replace

    from zett_tui.core import paths
    from zett_tui.runtime.host import new_session_id
    from zett_tui.sessions.fork import fork_session

    new_id = new_session_id()
    path = asyncio.run(
        fork_session(
            found, new_id, sessions_directory=paths.sessions_dir(), history_database=paths.history_db()
        )
    )
    return replace(found, session_id=new_id, path=path, in_use_by=None)


def find_session_to_resume(
    cwd: Path, resume: str | None, continue_last: bool, *, allow_busy: bool = False
) -> SessionSummary:
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
    if found.in_use and not allow_busy:
        raise SessionInUse(found)
    return found
