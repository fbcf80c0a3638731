"""The typed settings of zett and which keys exist (``SCHEMA``).

``settings`` reads the layers (files, environment, flags), ``layers`` checks each value against
``SCHEMA`` here and combines them; the checks of one value (``convert_*``) are in ``converters``.
Nothing here reads files or imports Textual.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from zett_tui.checkpoints.bounds import (
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_FILES,
    DEFAULT_MAX_NEW_BYTES,
    CheckpointBounds,
)
from zett_tui.config.converters import (
    convert_api_key,
    convert_base_url,
    convert_bool,
    convert_class_name,
    convert_context_window,
    convert_env_name,
    convert_extension_file,
    convert_file_count,
    convert_import_path,
    convert_megabytes,
    convert_model,
    convert_notify,
    convert_options,
    convert_pattern,
    convert_reasoning_effort,
    convert_sandbox_env_name,
    convert_sandbox_hidden_path,
    convert_sandbox_mode,
    convert_small_count,
    convert_theme,
)
from zett_tui.config.hooks import HOOK_EVENTS, HOOK_KEYS, HookConfig
from zett_tui.config.mcp_servers import (
    MCP_SERVER_FIELDS,
    SERVER_NAME,
    SERVER_NAME_RULE,
    McpServerConfig,
)
from zett_tui.config.toml_keys import Key
from zett_tui.providers.build import BUILTIN_PROVIDERS


@dataclass(frozen=True)
class EndpointConfig:
    """An OpenAI-compatible server defined by name in ``[endpoints.NAME]``, used as ``NAME:model``."""

    base_url: str
    """Where the server listens: an ``http://`` or ``https://`` URL such as ``http://127.0.0.1:8080/v1``."""
    api_key: str | None = field(default=None, repr=False)
    """The key itself (never in a repr). Accepted from the user config only; prefer ``api_key_env``."""
    api_key_env: str | None = None
    """The name of the environment variable holding the key. With neither key setting the server
    is meant to need no key."""
    reasoning_effort: str | None = None
    """This server's default effort, one of ``REASONING_EFFORTS``; ``off`` suits non-reasoning models."""
    send_prompt_cache_key: bool = False
    """Send the session's prompt cache key; many local servers reject the unknown field."""
    context_window: int | None = None
    """The server's context window in tokens (what it loads the model with); None: guessed from
    the model name. Compaction and the context meter use it."""
    vision: bool | None = None
    """Whether the server's model reads images; None: the server says (llama.cpp), else the model
    name decides. ``false`` stops a prompt with an image before anything is sent."""


@dataclass(frozen=True)
class UISettings:
    """How the terminal interface looks and behaves."""

    theme: str | None = None
    """A theme name; None (or ``"auto"`` in a file) follows the terminal background."""
    bell: bool = True
    """Ring the terminal bell when a dialog opens, so a hidden tmux pane still gets attention."""
    notify: str = "auto"
    """``auto``: when a dialog opens or a turn ends while you are elsewhere (the terminal is not
    focused, or zett's tmux pane is not in view), a desktop notification and the terminal title say
    so; ``off``: neither."""
    animations: bool = True
    """Spinners and other motion; turn off on slow links or for screen readers."""
    image_previews: bool = False
    """Show a small preview (coloured cells, two pixels each) under each image sent."""
    terminal_scroll: bool = True
    """Let the terminal move the transcript's rows when it scrolls (scrolling margins), drawing only
    the rows brought in: a fraction of the output, over SSH too. ``false``: every row is drawn
    again, for a terminal that leaves stale rows."""


@dataclass(frozen=True)
class SandboxSettings:
    """The ``[sandbox]`` table: how the agent's shell commands are confined (user config only)."""

    mode: str = "auto"
    """``auto``: every command runs in the sandbox where one can start; ``off``: no sandbox (every
    command then asks, in every mode)."""
    network: bool = False
    """Commands inside the sandbox may use the network."""
    env: tuple[str, ...] = ()
    """Names of environment variables passed into the sandbox besides the built-in short list."""
    hidden: tuple[str, ...] = ()
    """More places commands must not see (files or folders, ``~/`` allowed), besides the built-in
    credential stores."""


_MB = 1024 * 1024


@dataclass(frozen=True)
class CheckpointSettings:
    """The ``[checkpoints]`` table: what ``/rewind`` can take back (user config only)."""

    max_file_mb: float = DEFAULT_MAX_FILE_BYTES / _MB
    """Files larger than this many megabytes are not recorded (``/rewind`` names them)."""
    max_files: int = DEFAULT_MAX_FILES
    """A folder with more files to record than this gets no checkpoints (said in one line)."""
    max_new_mb: float = DEFAULT_MAX_NEW_BYTES / _MB
    """A checkpoint that would read more megabytes of new or changed files than this is not taken,
    and checkpoints stop for the session (said in one line)."""

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * _MB)

    @property
    def bounds(self) -> CheckpointBounds:
        """What one checkpoint may record, as the store takes it."""
        return CheckpointBounds(
            max_file_bytes=self.max_file_bytes,
            max_files=self.max_files,
            max_new_bytes=int(self.max_new_mb * _MB),
        )


@dataclass(frozen=True)
class WebSettings:
    """The ``[web]`` table: what the model may read from the web (user config only)."""

    fetch: bool = True
    """Offer the ``web_fetch`` tool (it asks before each new domain); false: no tool fetches a page."""
    search: bool = False
    """Offer Anthropic models their provider's hosted web search (the provider runs it)."""


@dataclass(frozen=True)
class SubagentSettings:
    """The ``[subagents]`` table: how the ``task`` tool's subagents run."""

    max_parallel: int = 4
    """How many subagents run at once; more ``task`` calls in one step wait for a slot."""
    max_depth: int = 1
    """How deep delegation goes: 1, the main agent's subagents cannot start their own."""


@dataclass(frozen=True)
class ExtensionConfig:
    """One ``[extensions.NAME]`` table: your own extension, or a switch and options for a bundled one."""

    name: str
    """The table's ``NAME``; for a bundled extension, its name (``tool_output``, ``git_status``...)."""
    source: str = "user"
    """``bundled`` (one of zett's own, by name), ``user`` or ``project``: the config file that says
    where the code comes from."""
    import_path: str | None = None
    """``package.module:Class``, imported from the Python path (``path = ...`` in the file)."""
    file: Path | None = None
    """The extension file: ``file = "name.py"`` resolved in the ``extensions/`` folder beside the
    config file that names it (the config directory's, or the project's ``.zett/extensions/``)."""
    class_name: str | None = None
    """The class in ``file``; None when the file defines exactly one extension class."""
    enabled: bool | None = None
    """None when the tables do not say: yours are on, a bundled one has its own default."""
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Keyword arguments for the class (read-only mapping)."""
    config_file: Path | None = None
    """The config file that says where the code comes from, for messages and the trust check."""

    @property
    def origin(self) -> str:
        """Where the code comes from, as ``/extensions`` shows it."""
        if self.import_path:
            return self.import_path
        if self.file is not None:
            return f"{self.file}" + (f" ({self.class_name})" if self.class_name else "")
        return "bundled"


@dataclass(frozen=True)
class Settings:
    """Everything zett reads from config files, the environment and command-line flags."""

    model: str | None = None
    """``provider:model``, ``ENDPOINT:model`` or ``demo``; None until the user configures one."""
    reasoning_effort: str | None = None
    """Default reasoning effort, one of ``REASONING_EFFORTS``; None leaves it to the endpoint or runtime."""
    endpoints: Mapping[str, EndpointConfig] = field(default_factory=lambda: MappingProxyType({}))
    """OpenAI-compatible servers by name (read-only mapping)."""
    models: tuple[str, ...] = ()
    """Model specs ``/model`` lists besides the detected ones (favourites). The user's and the
    project's lists add up."""
    ui: UISettings = UISettings()
    """Look and feel."""
    redact_patterns: tuple[str, ...] = ()
    """Extra regexes whose matches never reach a file, added to the built-in credential patterns.
    The user's and the project's lists add up: a project cannot remove the user's patterns."""
    extensions: tuple[ExtensionConfig, ...] = ()
    """The ``[extensions.NAME]`` tables, the user's first, each in file order."""
    sandbox: SandboxSettings = SandboxSettings()
    """How shell commands are confined; from the user's config only."""
    checkpoints: CheckpointSettings = CheckpointSettings()
    """What the checkpoints record; from the user's config only."""
    web: WebSettings = WebSettings()
    """What the model may read from the web; from the user's config only."""
    subagents: SubagentSettings = SubagentSettings()
    """How subagents run (``[subagents]``)."""
    mcp_servers: tuple[McpServerConfig, ...] = ()
    """The ``[mcp_servers.NAME]`` tables (``zett_tui.config.mcp_servers``), the user's first."""
    hooks: tuple[HookConfig, ...] = ()
    """The ``[[hooks.EVENT]]`` tables (``zett_tui.config.hooks``), the user's first, each in file order."""
    no_color: bool = False
    """The ``NO_COLOR`` environment variable is set to something: show no colour."""
    sources: tuple[Path, ...] = ()
    """The config files that were read and applied, lowest layer first (for ``/config`` and debugging)."""


@dataclass(frozen=True)
class ConfigProblem:
    """One thing wrong with one setting; the setting was skipped and the app goes on."""

    path: Path | None
    """The file, or None for an environment variable or a command-line flag."""
    line: int | None
    """1-based line in ``path`` when known."""
    key: str | None
    """The dotted key (``endpoints.local.base_url``) or the environment variable's name."""
    message: str
    """What is wrong and, where possible, how to fix it."""

    def __str__(self) -> str:
        parts: list[str] = []
        if self.path is not None:
            parts.append(f"{self.path}:{self.line}" if self.line is not None else str(self.path))
        if self.key:
            parts.append(self.key)
        parts.append(self.message)
        return ": ".join(parts)


Converter = Callable[[object], object]


@dataclass(frozen=True)
class Setting:
    """How one key's value is checked and combined."""

    convert: Converter
    """Returns the value to use or raises ``InvalidValue``; for ``item_list`` it checks one item."""
    user_only: bool = False
    """Refused in a project file: a cloned repository must not be able to send the user's key elsewhere."""
    item_list: bool = False
    """The value is an array: a bad item is dropped alone, and each layer's items add to the lower ones."""


@dataclass(frozen=True)
class NamedTables:
    """A table of tables that the user names, all sharing one schema: ``[endpoints.NAME]``."""

    schema: Mapping[str, Setting]
    name_pattern: re.Pattern[str]
    name_rule: str
    reserved: tuple[str, ...] = ()
    """Names (compared in lower case) that would be shadowed by something built in."""


@dataclass(frozen=True)
class HookTables:
    """``[[hooks.EVENT]]``: arrays of tables, checked as a whole by ``config.hooks.read_hooks``."""


Schema = Mapping[str, "Setting | NamedTables | HookTables | Schema"]


EXTENSION_SCHEMA: Mapping[str, Setting] = {
    "path": Setting(convert_import_path),
    "file": Setting(convert_extension_file),
    "class": Setting(convert_class_name),
    "enabled": Setting(convert_bool),
    "options": Setting(convert_options),
}
"""``path`` or ``file`` (with an optional ``class``) say where the code is; a bundled one has neither."""

EXTENSION_ORIGIN_KEYS = ("path", "file", "class")
"""The keys that say where an extension's code comes from."""

ENDPOINT_SCHEMA: Mapping[str, Setting] = {
    "base_url": Setting(convert_base_url),
    "api_key": Setting(convert_api_key, user_only=True),
    "api_key_env": Setting(convert_env_name, user_only=True),
    "reasoning_effort": Setting(convert_reasoning_effort),
    "send_prompt_cache_key": Setting(convert_bool),
    "context_window": Setting(convert_context_window),
    "vision": Setting(convert_bool),
}

UI_SCHEMA: Mapping[str, Setting] = {
    "theme": Setting(convert_theme),
    "bell": Setting(convert_bool),
    "notify": Setting(convert_notify),
    "animations": Setting(convert_bool),
    "image_previews": Setting(convert_bool),
    "terminal_scroll": Setting(convert_bool),
}

SANDBOX_SCHEMA: Mapping[str, Setting] = {
    "mode": Setting(convert_sandbox_mode, user_only=True),
    "network": Setting(convert_bool, user_only=True),
    "env": Setting(convert_sandbox_env_name, user_only=True, item_list=True),
    "hidden": Setting(convert_sandbox_hidden_path, user_only=True, item_list=True),
}
"""All user-only: a cloned repository must not be able to loosen the sandbox."""

CHECKPOINTS_SCHEMA: Mapping[str, Setting] = {
    "max_file_mb": Setting(convert_megabytes, user_only=True),
    "max_files": Setting(convert_file_count, user_only=True),
    "max_new_mb": Setting(convert_megabytes, user_only=True),
}
"""User-only: a cloned repository must not be able to keep its files out of the checkpoints."""

WEB_SCHEMA: Mapping[str, Setting] = {
    "fetch": Setting(convert_bool, user_only=True),
    "search": Setting(convert_bool, user_only=True),
}
"""User-only: a cloned repository must not turn on what the user turned off."""

SUBAGENTS_SCHEMA: Mapping[str, Setting] = {
    "max_parallel": Setting(convert_small_count, user_only=True),
    "max_depth": Setting(convert_small_count, user_only=True),
}
"""User-only: a cloned repository must not be able to fan the model out or let it recurse."""

SCHEMA: Schema = {
    "model": Setting(convert_model),
    "models": Setting(convert_model, item_list=True),
    "reasoning_effort": Setting(convert_reasoning_effort),
    "redact_patterns": Setting(convert_pattern, item_list=True),
    "ui": UI_SCHEMA,
    "sandbox": SANDBOX_SCHEMA,
    "checkpoints": CHECKPOINTS_SCHEMA,
    "web": WEB_SCHEMA,
    "subagents": SUBAGENTS_SCHEMA,
    "endpoints": NamedTables(
        ENDPOINT_SCHEMA,
        name_pattern=re.compile(r"[A-Za-z0-9_-]+"),
        name_rule="an endpoint name may use letters, digits, '-' and '_' (it goes before ':' in model)",
        reserved=BUILTIN_PROVIDERS,
    ),
    "extensions": NamedTables(
        EXTENSION_SCHEMA,
        name_pattern=re.compile(r"[A-Za-z0-9_-]+"),
        name_rule="an extension name may use letters, digits, '-' and '_'",
    ),
    "mcp_servers": NamedTables(
        {
            key: Setting(convert, item_list=item_list)
            for key, (convert, item_list) in MCP_SERVER_FIELDS.items()
        },
        name_pattern=SERVER_NAME,
        name_rule=SERVER_NAME_RULE,
    ),
    "hooks": HookTables(),
}


def resolve_setting(key: Key) -> Setting | None:
    """The ``Setting`` at ``key`` (``("endpoints", "x", "base_url")`` works for any name), or None."""
    node: Setting | NamedTables | HookTables | Schema = SCHEMA
    for part in key:
        if isinstance(node, HookTables):
            return None
        if isinstance(node, NamedTables):
            if (
                not isinstance(part, str)
                or not node.name_pattern.fullmatch(part)
                or part.lower() in node.reserved
            ):
                return None
            node = node.schema
        elif isinstance(node, Setting) or not isinstance(part, str) or part not in node:
            return None
        else:
            node = node[part]
    return node if isinstance(node, Setting) else None


def _leaf_names(schema: Schema, prefix: str = "") -> list[str]:
    names: list[str] = []
    for name, node in schema.items():
        if isinstance(node, Setting):
            names.append(prefix + name)
        elif isinstance(node, NamedTables):
            names.extend(_leaf_names(node.schema, f"{prefix}{name}.<name>."))
        elif isinstance(node, HookTables):
            names.extend(f"{prefix}{name}.{event}.{key}" for event in HOOK_EVENTS for key in HOOK_KEYS)
        else:
            names.extend(_leaf_names(node, f"{prefix}{name}."))
    return names


ALL_KEYS: tuple[str, ...] = tuple(_leaf_names(SCHEMA))
"""Every dotted key a file may set, with ``<name>`` for user-named tables."""


def unknown_key_message(key: Key, siblings: Mapping[str, object]) -> str:
    """``unknown key; did you mean 'model'?``: a close sibling first, else the same name elsewhere."""
    name = str(key[-1])
    if len(key) > 1 and isinstance(SCHEMA.get(name), Setting):
        return (
            "a top-level setting: move it above the first [table] header (keys below a header belong to it)"
        )
    close = difflib.get_close_matches(name, list(siblings), n=1)
    if close:
        return f"unknown key; did you mean {close[0]!r}?"
    by_last_part = {name.rsplit(".", 1)[-1]: name for name in ALL_KEYS}
    close = difflib.get_close_matches(name, list(by_last_part), n=1)
    if close:
        return f"unknown key; did you mean {by_last_part[close[0]]!r}?"
    return f"unknown key (known here: {', '.join(siblings)})"
