"""What the command line decided for one interactive run; handed to the app. No Textual import."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zett_tui.checkpoints.bounds import CheckpointBounds
    from zett_tui.config.hooks import HookConfig
    from zett_tui.config.mcp_servers import McpServerConfig
    from zett_tui.config.schema import ExtensionConfig, SandboxSettings, SubagentSettings
    from zett_tui.config.trust import ProjectFiles
    from zett_tui.providers.catalog import ModelCatalog


@dataclass(frozen=True)
class LaunchSettings:
    """Everything the app needs to start; the model itself is built later, off the first frame.

    Frozen: what changes during a run (the model, the effort, the theme, a trusted folder's
    settings) is the app's ``SessionChoices`` (``ui/session_choices.py``), which builds the next
    session's settings with ``dataclasses.replace``.
    """

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
    #: ``[ui] notify``: "auto" (a notification and the title when the user is elsewhere) or "off".
    notify: str = "auto"
    theme: str | None = None
    #: "dark" or "light" as the terminal answered before the app started (OSC 11); None: unknown.
    terminal_background: str | None = None
    animations: bool = True
    #: ``[ui] image_previews``: a small preview under each image sent.
    image_previews: bool = False
    #: ``[ui] terminal_scroll``: the terminal moves the transcript's rows (``ui/speed/terminal_scroll``).
    terminal_scroll: bool = True
    redact: Callable[[str], str] | None = None
    #: Turns a failure into one human line naming the provider, its key variable and address.
    describe_error: Callable[[BaseException], str] | None = None
    #: Extra keyword arguments for the host (tests pass paths here).
    host_overrides: dict[str, Any] = field(default_factory=dict)
    #: The ``[extensions.NAME]`` tables the host loads.
    extensions: tuple[ExtensionConfig, ...] = ()
    #: A project folder whose ``.zett/`` waits for the user's trust: the app asks.
    project_trust: ProjectFiles | None = None
    #: Reads the settings again, once the user trusted the project folder; None: it cannot.
    reload: Callable[[], LaunchSettings] | None = None
    #: The model's context window in tokens as configured; None: asked of a local server where it
    #: can say, else guessed from the model (``providers.context_window``), and marked as a guess.
    context_window: int | None = None
    #: What ``/model`` offers and how to build each; None: no switching.
    model_catalog: ModelCatalog | None = None
    #: How shell commands are confined; None: the defaults.
    sandbox: SandboxSettings | None = None
    #: What one checkpoint may record (``[checkpoints]``); None: the defaults.
    checkpoint_bounds: CheckpointBounds | None = None
    #: ``[web] fetch``: offer the ``web_fetch`` tool.
    web_fetch: bool = True
    #: ``[web] search``: offer the provider's hosted web search (Anthropic).
    web_search: bool = False
    #: ``[subagents]``: how many run at once and how deep delegation goes; None: the defaults.
    subagents: SubagentSettings | None = None
    #: The MCP servers to start: the user's, and a trusted project's (``Settings.mcp_servers``).
    mcp_servers: tuple[McpServerConfig, ...] = ()
    #: The ``[[hooks.EVENT]]`` commands: the user's, and a trusted project's (``Settings.hooks``).
    hooks: tuple[HookConfig, ...] = ()
    #: One line per MCP server (or ``.mcp.json``) that did not load, naming the file: ``/extensions``.
    mcp_problems: tuple[str, ...] = ()
