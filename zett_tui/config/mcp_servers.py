"""The ``[mcp_servers.NAME]`` tables and Claude Code's ``.mcp.json``: which MCP servers zett starts.

A server is either a command zett starts and talks to over stdio (``command``, ``args``, ``env``,
``cwd``) or a URL (``url``, ``headers``) reached with streamable HTTP or, with
``transport = "sse"``, the older SSE transport. ``${VAR}`` in ``env``, ``headers`` and ``url`` is
kept as written here; ``resolved_*`` replace it from the environment in memory when zett connects,
so a key never lands in a settings object that is shown, logged or saved.

Nothing here reads the project's files by itself: a project's servers reach ``assemble`` only
through ``load_settings`` once the folder is trusted.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from zett_tui.config.converters import InvalidValue, describe_value
from zett_tui.config.project_folder import MCP_JSON_NAME

if TYPE_CHECKING:
    from zett_tui.config.toml_keys import Key

TRANSPORTS = ("stdio", "http", "sse")
DEFAULT_STARTUP_TIMEOUT = 30.0
DEFAULT_TOOL_TIMEOUT = 120.0
SERVER_NAME = re.compile(r"[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*")
"""Letters, digits, '-' and single '_': ``__`` separates server and tool in ``mcp__SERVER__TOOL``."""
SERVER_NAME_RULE = "a server name may use letters, digits, '-' and single '_' (tools are mcp__NAME__TOOL)"
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class MissingVariable(ValueError):
    """A ``${VAR}`` whose variable is not set; the message names it and the server."""


@dataclass(frozen=True)
class McpServerConfig:
    """One MCP server as configured; ``${VAR}`` unexpanded (see ``resolved_env`` and friends)."""

    name: str
    source: str = "user"
    """``user``, ``project`` (a trusted ``.zett/config.toml``) or ``.mcp.json``."""
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), repr=False)
    cwd: Path | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), repr=False)
    transport: str = "stdio"
    """``stdio`` for a command; ``http`` (streamable HTTP) or ``sse`` for a URL."""
    enabled: bool = True
    enabled_tools: tuple[str, ...] | None = None
    """Only these tools reach the model; None: all of them."""
    disabled_tools: tuple[str, ...] = ()
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    tool_timeout: float = DEFAULT_TOOL_TIMEOUT
    config_file: Path | None = None

    def launch_line(self) -> str:
        """Exactly what zett would run or reach, as written (``${VAR}`` unexpanded): for the trust
        question and ``/mcp``."""
        if self.url is not None:
            return f"{self.transport} {self.url}"
        line = shlex.join((self.command or "", *self.args))
        if self.env:
            line = " ".join(f"{key}={shlex.quote(value)}" for key, value in self.env.items()) + " " + line
        if self.cwd is not None:
            line += f"  (in {self.cwd})"
        return line

    @property
    def project_root(self) -> Path | None:
        """The project folder whose trust a server of ``.zett/config.toml`` or ``.mcp.json`` runs
        under (None for the user's own servers)."""
        if self.config_file is None:
            return None
        if self.source == ".mcp.json":
            return self.config_file.parent
        if self.source == "project":
            return self.config_file.parent.parent
        return None

    @property
    def runs_in(self) -> Path | None:
        """The folder the server's command starts in: its ``cwd``, else a project server's project
        folder (never whichever folder zett was started in: the files its command names are
        trusted as they lie there), else None (zett's own)."""
        return self.cwd if self.cwd is not None else self.project_root

    def offers(self, tool: str) -> bool:
        """Whether ``tool`` passes ``enabled_tools`` / ``disabled_tools``."""
        if self.enabled_tools is not None and tool not in self.enabled_tools:
            return False
        return tool not in self.disabled_tools

    def mask(self, text: str, environ: Mapping[str, str]) -> str:
        """``text`` (an error message, a log line) with every value a ``${VAR}`` of this server
        expands to put back as ``${VAR}``: an error that quotes the URL or a header keeps no key."""
        names = {
            match.group(1)
            for value in (*self.env.values(), *self.headers.values(), self.url or "")
            for match in _VARIABLE.finditer(value)
        }
        for name in sorted(names, key=lambda name: -len(environ.get(name, ""))):
            secret = environ.get(name, "")
            if len(secret) >= 4:
                text = text.replace(secret, f"${{{name}}}")
        return text

    def resolved_env(self, environ: Mapping[str, str]) -> dict[str, str]:
        return {key: expand(value, environ, self.name) for key, value in self.env.items()}

    def resolved_headers(self, environ: Mapping[str, str]) -> dict[str, str]:
        return {key: expand(value, environ, self.name) for key, value in self.headers.items()}

    def resolved_url(self, environ: Mapping[str, str]) -> str:
        return expand(self.url or "", environ, self.name)


def expand(text: str, environ: Mapping[str, str], server: str) -> str:
    """``text`` with each ``${VAR}`` replaced from ``environ``; an unset one raises ``MissingVariable``."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in environ:
            raise MissingVariable(f"MCP server {server!r}: ${{{name}}} is not set in the environment")
        return environ[name]

    return _VARIABLE.sub(value, text)


def convert_bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise InvalidValue(f"expected true or false, got {describe_value(value)}")
    return value


def _string(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidValue(f"expected {what}, got {describe_value(value)}")
    return value


def convert_command(value: object) -> str:
    return _string(value, "the program to start, such as 'uvx' or '/usr/bin/node'")


def convert_arg(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidValue(f"expected a string, got {describe_value(value)}")
    return value


def convert_string_table(value: object) -> dict[str, str]:
    """``env`` and ``headers``: names to string values. Values are never shown (they may be keys)."""
    if not isinstance(value, dict):
        raise InvalidValue(f"expected a table of names to strings, got {describe_value(value)}")
    for key, item in value.items():
        if not isinstance(item, str):
            raise InvalidValue(f"{key!r}: expected a string, got {describe_value(item, secret=True)}")
    return dict(value)


def convert_url(value: object) -> str:
    url = _string(value, "an http:// or https:// URL")
    scheme = urlsplit(_VARIABLE.sub("x", url)).scheme
    if scheme not in ("http", "https"):
        raise InvalidValue(f"expected an http:// or https:// URL, got a {scheme or 'schemeless'} URL")
    return url


def convert_transport(value: object) -> str:
    if value not in TRANSPORTS:
        raise InvalidValue(f"expected one of {', '.join(TRANSPORTS)}, got {describe_value(value)}")
    return str(value)


def convert_timeout(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 3600:
        raise InvalidValue(f"expected seconds between 0 and 3600, got {describe_value(value)}")
    return float(value)


def convert_tool_name(value: object) -> str:
    return _string(value, "a tool name")


def convert_cwd(value: object) -> str:
    return _string(value, "a folder")


MCP_SERVER_FIELDS: Mapping[str, tuple[Callable[[object], object], bool]] = {
    "command": (convert_command, False),
    "args": (convert_arg, True),
    "env": (convert_string_table, False),
    "cwd": (convert_cwd, False),
    "url": (convert_url, False),
    "headers": (convert_string_table, False),
    "transport": (convert_transport, False),
    "enabled": (convert_bool, False),
    "enabled_tools": (convert_tool_name, True),
    "disabled_tools": (convert_tool_name, True),
    "startup_timeout": (convert_timeout, False),
    "tool_timeout": (convert_timeout, False),
}
"""Each key's converter and whether it is an array (checked item by item); schema.py makes them
``Setting``s."""


def server_from_fields(
    name: str,
    fields: Mapping[str, Any],
    *,
    source: str,
    config_file: Path | None,
    rejected: set[Key] | None = None,
    table: Key = (),
) -> McpServerConfig | str | None:
    """Check that the fields make one server; the message says what is missing or clashes."""
    rejected = rejected or set()
    has_command, has_url = "command" in fields, "url" in fields
    if has_command and has_url:
        return "give either command (a program zett starts) or url (a server zett reaches), not both"
    if not has_command and not has_url:
        if (*table, "command") in rejected or (*table, "url") in rejected:
            return None
        return 'needs command = "program" (with args) or url = "https://..."; server ignored'
    transport = fields.get("transport")
    if has_command and transport not in (None, "stdio"):
        return f"transport {transport!r} needs a url, not a command"
    if has_url and transport == "stdio":
        return "transport 'stdio' needs a command, not a url"
    if has_url and ("env" in fields or "args" in fields or "cwd" in fields):
        return "env, args and cwd are for a command; a url server takes headers"
    if has_command and "headers" in fields:
        return "headers are for a url server; a command takes env"
    cwd = fields.get("cwd")
    cwd_path = Path(cwd).expanduser() if isinstance(cwd, str) else None
    if cwd_path is not None and not cwd_path.is_absolute() and config_file is not None:
        cwd_path = config_file.parent / cwd_path
    enabled_tools = fields.get("enabled_tools")
    return McpServerConfig(
        name=name,
        source=source,
        command=fields.get("command"),
        args=tuple(fields.get("args", ())),
        env=MappingProxyType(dict(fields.get("env", {}))),
        cwd=cwd_path,
        url=fields.get("url"),
        headers=MappingProxyType(dict(fields.get("headers", {}))),
        transport=transport or ("stdio" if has_command else "http"),
        enabled=fields.get("enabled", True),
        enabled_tools=tuple(enabled_tools) if enabled_tools is not None else None,
        disabled_tools=tuple(fields.get("disabled_tools", ())),
        startup_timeout=fields.get("startup_timeout", DEFAULT_STARTUP_TIMEOUT),
        tool_timeout=fields.get("tool_timeout", DEFAULT_TOOL_TIMEOUT),
        config_file=config_file,
    )


_MCP_JSON_TYPES = {"stdio": "stdio", "http": "http", "streamable-http": "http", "sse": "sse"}


def read_mcp_json(text: str, path: Path) -> tuple[list[McpServerConfig], list[str]]:
    """The servers of a Claude Code ``.mcp.json`` (``{"mcpServers": {NAME: {...}}}``) and one line
    per problem (naming the file and the server); a bad entry is skipped alone."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        return [], [f"{path}:{error.lineno}: not valid JSON: {error.msg}; no servers loaded from it"]
    except RecursionError:
        return [], [f"{path}: nested too deeply to read; no servers loaded from it"]
    entries = document.get("mcpServers") if isinstance(document, dict) else None
    if not isinstance(entries, dict):
        return [], [f'{path}: expected {{"mcpServers": {{...}}}}; no servers loaded from it']
    servers: list[McpServerConfig] = []
    problems: list[str] = []
    for name, entry in entries.items():
        where = f"{path}: mcpServers.{name}"
        if not SERVER_NAME.fullmatch(name):
            problems.append(f"{where}: ignored: {SERVER_NAME_RULE}")
            continue
        if not isinstance(entry, dict):
            problems.append(f"{where}: expected an object, got {describe_value(entry)}")
            continue
        fields: dict[str, Any] = {}
        kind = entry.get("type")
        try:
            if kind is not None:
                if kind not in _MCP_JSON_TYPES:
                    raise InvalidValue(f"type: expected stdio, http or sse, got {describe_value(kind)}")
                fields["transport"] = _MCP_JSON_TYPES[kind]
            for key, (convert, item_list) in MCP_SERVER_FIELDS.items():
                if key not in entry:
                    continue
                fields[key] = _json_field(key, entry[key], convert, item_list)
        except ValueError as error:
            problems.append(f"{where}: {error}; server ignored")
            continue
        server = server_from_fields(name, fields, source=MCP_JSON_NAME, config_file=path)
        if isinstance(server, McpServerConfig):
            servers.append(server)
        elif server:
            problems.append(f"{where}: {server}")
    return servers, problems


def _json_field(key: str, value: object, convert: Callable[[object], object], item_list: bool) -> object:
    """One field of a ``.mcp.json`` entry, checked; the error names the field."""
    try:
        if not item_list:
            return convert(value)
        if not isinstance(value, list):
            raise InvalidValue(f"expected an array, got {describe_value(value)}")
        return [convert(item) for item in value]
    except InvalidValue as error:
        raise InvalidValue(f"{key}: {error}") from None


def describe_mcp_servers(tables: Mapping[str, Any]) -> list[str]:
    """For the trust question: one line per server table with exactly what it would run or reach
    (best effort over the raw file; ``load_settings`` does the checking)."""
    lines: list[str] = []
    for name, table in tables.items():
        if not isinstance(table, dict):
            continue
        if table.get("enabled") is False:
            lines.append(f"MCP server {name}: turned off")
            continue
        try:
            fields = {
                key: convert(table[key]) if not item_list else [convert(item) for item in table[key]]
                for key, (convert, item_list) in MCP_SERVER_FIELDS.items()
                if key in table
            }
        except (ValueError, TypeError):
            lines.append(f"MCP server {name}: (not valid; zett would report it and skip it)")
            continue
        server = server_from_fields(str(name), fields, source="project", config_file=None)
        if isinstance(server, McpServerConfig):
            verb = "connects to" if server.url is not None else "runs"
            lines.append(f"MCP server {name}: {verb} {server.launch_line()}")
        else:
            lines.append(f"MCP server {name}: (not valid; zett would report it and skip it)")
    return lines
