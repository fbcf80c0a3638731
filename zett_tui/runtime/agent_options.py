"""What the host needs to build an agent (:class:`HostOptions`), apart from the host itself.

The modules the host builds from these options (the extension stack, the subagents' wiring and
types, the skills) read them too; with the options in the host's own module each of them imported
the host back, a circle of six modules.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from zett_agent.extensions.base import AgentExtension
from zett_agent.model import AgentModel, ReasoningEffort

from zett_tui.checkpoints.bounds import CheckpointBounds
from zett_tui.config.hooks import HookConfig
from zett_tui.config.schema import ExtensionConfig, SandboxSettings
from zett_tui.providers.errors import describe_error
from zett_tui.runtime.modes import PermissionMode
from zett_tui.runtime.recorder import Redactor
from zett_tui.runtime.subagents.runner import DEFAULT_DEPTH, DEFAULT_PARALLEL
from zett_tui.runtime.subagents.types import AgentType
from zett_tui.runtime.turn_model import TurnModel
from zett_tui.runtime.web.extension import WebOptions

if TYPE_CHECKING:
    from zett_tui.runtime.mcp.manager import McpManager

__all__ = ["SYSTEM_PROMPT", "HostOptions", "ModelFactory", "with_agents"]

ModelFactory = Callable[[], AgentModel]

SYSTEM_PROMPT = """\
You are zett, a coding assistant working in the user's terminal, in their project folder.
Answer in Markdown. Be direct and concise. Read files before changing them, prefer small
focused edits, and explain what you changed. Shell commands and edits need the user's approval;
when one is refused, take the user's note into account instead of retrying the same thing."""


@dataclass
class HostOptions:
    """What the host needs to build an agent. Paths default to zett's data directory."""

    model_factory: ModelFactory
    model_label: str
    session_id: str | None = None
    cwd: Path = field(default_factory=Path.cwd)
    reasoning_effort: ReasoningEffort = ReasoningEffort.MEDIUM
    sessions_dir: Path | None = None
    history_db: Path | None = None
    tool_output_dir: Path | None = None
    redact: Redactor | None = None
    extra_extensions: Sequence[AgentExtension] = ()
    #: Folders outside the project the model may read without a question (the user's skills).
    readable_folders: Sequence[Path] = ()
    #: The ``[extensions.NAME]`` tables of the user's config (and of a trusted project's).
    extensions: Sequence[ExtensionConfig] = ()
    system_prompt: str = SYSTEM_PROMPT
    permission_mode: PermissionMode = PermissionMode.ASK
    #: Turns a failure into one human line; startup passes one that knows the provider and key names.
    describe_error: Callable[[BaseException], str] = describe_error
    #: The model's context window in tokens; None: looked up from ``model_label`` (``context_window``).
    context_window: int | None = None
    #: The ``[sandbox]`` table of the user's config: how shell commands are confined.
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    #: Where the checkpoint stores live (``zett_tui.checkpoints``); None: under the data folder.
    checkpoints_dir: Path | None = None
    #: What one checkpoint may record: the size of a file, the number of files, the new bytes.
    checkpoint_bounds: CheckpointBounds = field(default_factory=CheckpointBounds)
    #: The process's MCP servers (``runtime.mcp.manager.McpManager``), started and stopped by
    #: whoever made it (the app, ``zett -p``); None: no MCP tools.
    mcp_manager: McpManager | None = None
    #: The ``[[hooks.EVENT]]`` commands of the user's config (and of a trusted project's).
    hooks: Sequence[HookConfig] = ()
    #: The ``web_fetch`` tool: domains allowed without asking (``--allow-web``), bounds.
    web: WebOptions = field(default_factory=WebOptions)
    #: Each image sent is shown with a small preview under its line (``[ui] image_previews``).
    image_previews: bool = False
    #: Custom subagents (``workspace.agent_files``), besides the built-in ``general`` and ``explore``.
    agent_types: Sequence[AgentType] = ()
    #: How many subagents run at once, and how deep delegation goes (1: children cannot delegate).
    subagent_parallel: int = DEFAULT_PARALLEL
    subagent_depth: int = DEFAULT_DEPTH
    #: The model a subagent's ``model`` names, and the line to say (``turn_model.model_for_command``);
    #: None: every subagent answers with the session's model.
    model_for: Callable[[str], tuple[TurnModel | None, str]] | None = None


def with_agents(options: HostOptions, agents: Sequence[AgentType]) -> HostOptions:
    """``options`` with the custom subagents of the user's and a trusted project's files."""
    return dataclasses.replace(options, agent_types=(*options.agent_types, *agents))
