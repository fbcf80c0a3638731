"""What the command line decided for one interactive run; handed to the app. No Textual import."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class LaunchSettings:
    """Everything the app needs to start; the model itself is built later, off the first frame."""

    model_label: str
    model_factory: Callable[[], Any]
    is_demo: bool = False
    reasoning_effort: str = "medium"
    session_id: str | None = None
    #: The transcript file of a resumed session, shown as it was.
    resume_path: Path | None = None
    #: Show ``resume_path`` without a model: another zett is writing that session.
    read_only: bool = False
    cwd: Path = field(default_factory=Path.cwd)
    #: (level, text) lines shown in the transcript at start: config problems, how to set a key.
    notices: list[tuple[str, str]] = field(default_factory=list)
    bell: bool = True
    theme: str | None = None
    #: "dark" or "light" as the terminal answered before the app started (OSC 11); None: unknown.
    terminal_background: str | None = None
    animations: bool = True
    redact: Callable[[str], str] | None = None
    #: Turns a failure into one human line naming the provider, its key variable and address.
    describe_error: Callable[[BaseException], str] | None = None
    #: Extra keyword arguments for the host (tests pass paths here).
    host_overrides: dict[str, Any] = field(default_factory=dict)
    #: The ``[extensions.NAME]`` tables (``config_schema.ExtensionConfig``) the host loads.
    extensions: tuple[Any, ...] = ()
    #: A project folder whose ``.zett/`` waits for the user's trust (``trust.ProjectFiles``): the app asks.
    project_trust: Any = None
    #: Reads the settings again, once the user trusted the project folder; None: it cannot.
    reload: Callable[[], LaunchSettings] | None = None
    #: The model's context window in tokens; None: guessed from ``model_label``.
    context_window: int | None = None
    #: What ``/model`` offers and how to build each (a ``model_catalog.ModelCatalog``); None: no switching.
    model_catalog: Any = None
    #: How shell commands are confined (``config_schema.SandboxSettings``); None: the defaults.
    sandbox: Any = None
