"""What a launch asks of the agent host: the one place launch settings become host options.

It lives with the entry points because ``LaunchSettings`` is theirs; the runtime below knows only
``HostOptions`` and never imports an entry point.
"""

from __future__ import annotations

from typing import Any

from zett_agent.model import ReasoningEffort

from zett_tui.entry.launch import LaunchSettings
from zett_tui.runtime.agent_options import HostOptions
from zett_tui.runtime.web.extension import WebOptions


def options_from_launch(launch: LaunchSettings, **overrides: Any) -> HostOptions:
    """The host options a launch asks for (the app's warm-up and ``zett -p`` share this)."""
    settings: dict[str, Any] = {
        "model_factory": launch.model_factory,
        "model_label": launch.model_label,
        "session_id": launch.session_id,
        "cwd": launch.cwd,
        "reasoning_effort": ReasoningEffort(launch.reasoning_effort),
        "redact": launch.redact,
        "context_window": launch.context_window,
        "extensions": launch.extensions,
        "hooks": launch.hooks,
        "image_previews": launch.image_previews,
    }
    if launch.sandbox is not None:
        settings["sandbox"] = launch.sandbox
    if launch.checkpoint_bounds is not None:
        settings["checkpoint_bounds"] = launch.checkpoint_bounds
    if not launch.web_fetch or launch.web_search:
        settings["web"] = WebOptions(enabled=launch.web_fetch, search=launch.web_search)
    if launch.subagents is not None:
        settings["subagent_parallel"] = launch.subagents.max_parallel
        settings["subagent_depth"] = launch.subagents.max_depth
    if launch.model_catalog is not None:
        settings["model_for"] = _subagent_models(launch)
    if launch.describe_error is not None:
        settings["describe_error"] = launch.describe_error
    settings.update(overrides)
    settings.update(launch.host_overrides)
    return HostOptions(**settings)


def _subagent_models(launch: LaunchSettings) -> Any:
    """What a subagent's ``model`` front matter names, as a Markdown command's ``model`` is read."""
    from zett_tui.runtime.turn_model import model_for_command

    def model_for(wanted: str) -> Any:
        return model_for_command("agent", wanted, launch.model_catalog, launch.model_label)

    return model_for
