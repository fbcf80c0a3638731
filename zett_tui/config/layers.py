"""One layer of settings (a file, the environment, the flags) and how the layers combine.

A ``Layer`` takes each value through the schema's ``Setting`` and keeps what it could not use as a
``ConfigProblem``; ``assemble`` puts the layers over each other (a higher one wins key by key,
list items add up) into the typed ``Settings``. Nothing here reads files or imports Textual.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from zett_tui.config.converters import InvalidValue, describe_value
from zett_tui.config.hooks import HookConfig, read_hooks
from zett_tui.config.mcp_servers import McpServerConfig, server_from_fields
from zett_tui.config.schema import (
    EXTENSION_ORIGIN_KEYS,
    SCHEMA,
    CheckpointSettings,
    ConfigProblem,
    EndpointConfig,
    ExtensionConfig,
    HookTables,
    NamedTables,
    SandboxSettings,
    Schema,
    Setting,
    Settings,
    SubagentSettings,
    UISettings,
    WebSettings,
    resolve_setting,
    unknown_key_message,
)
from zett_tui.config.toml_keys import Key, format_key
from zett_tui.runtime.extensions.catalog import BUNDLED_EXTENSIONS


def _no_line(key: Key) -> int | None:
    return None


@dataclass
class Layer:
    """The checked values one source (a file, the environment, the flags) contributes, and its problems."""

    path: Path | None = None
    """The file, or None for the environment and flags."""
    source: str = ""
    """``user`` or ``project`` for a config file."""
    line_of: Callable[[Key], int | None] = _no_line
    """Finds a key's line in ``path``."""
    note: str = ""
    """Added to every message, e.g. `` (command-line flag)``."""
    key_names: dict[Key, str] = field(default_factory=dict)
    """Names to show instead of the dotted key, e.g. an environment variable's."""
    values: dict[Key, Any] = field(default_factory=dict)
    """Checked values by full key."""
    declared: dict[Key, tuple[Path | None, int | None]] = field(default_factory=dict)
    """Each named table this layer opens (``("endpoints", "x")``) and where."""
    rejected: set[Key] = field(default_factory=set)
    """Keys that were present but refused, and already reported."""
    problems: list[ConfigProblem] = field(default_factory=list)
    hooks: list[HookConfig] = field(default_factory=list)
    """The file's ``[[hooks.EVENT]]`` tables that passed the checks."""
    hook_lines: Mapping[tuple[str, int], int] = field(default_factory=dict)
    """The line of each ``[[hooks.EVENT]]`` header (``config.hooks.hook_entry_lines``)."""

    def report(self, key: Key, message: str, *, at: Key | None = None) -> None:
        """Record a problem with ``key``, pointing at the line of ``at`` (default: ``key``)."""
        name = self.key_names.get(key) or format_key(key) or None
        self.problems.append(ConfigProblem(self.path, self.line_of(at or key), name, message + self.note))

    def drop(self, key: Key, message: str) -> None:
        """Refuse a value that was already taken."""
        self.values.pop(key, None)
        self.rejected.add(key)
        self.report(key, message)

    def read_document(self, document: Mapping[str, Any]) -> None:
        self._walk(document, SCHEMA, ())

    def take(self, setting: Setting, key: Key, value: object) -> None:
        """Check one value in; when it is wrong, report it and leave the lower layers' value."""
        if not setting.item_list:
            try:
                self.values[key] = setting.convert(value)
            except InvalidValue as error:
                self.rejected.add(key)
                self.report(key, str(error))
            return
        if not isinstance(value, list | tuple):
            self.rejected.add(key)
            self.report(key, f"expected an array, got {describe_value(value)}")
            return
        items: list[object] = []
        for index, item in enumerate(value):
            try:
                items.append(setting.convert(item))
            except InvalidValue as error:
                self.report(key, f"item {index + 1}: {error}; that item was ignored", at=(*key, index))
        self.values[key] = tuple(items)

    def _walk(self, table: Mapping[str, Any], schema: Schema, prefix: Key) -> None:
        for name, value in table.items():
            key = (*prefix, name)
            node = schema.get(name)
            if node is None:
                self.report(key, unknown_key_message(key, schema))
            elif isinstance(node, Setting):
                self.take(node, key, value)
            elif isinstance(node, HookTables):
                self._read_hooks(value)
            elif not isinstance(value, dict):
                self.report(key, f"expected a table, got {describe_value(value)}")
            elif isinstance(node, NamedTables):
                self._walk_named(value, node, key)
            else:
                self._walk(value, node, key)

    def _read_hooks(self, table: object) -> None:
        def report(key: Key, message: str) -> None:
            line = None
            if len(key) > 2 and isinstance(key[2], int):
                line = self.hook_lines.get((str(key[1]), key[2]))
            if line is None:
                line = self.line_of(key[:2])
            self.problems.append(ConfigProblem(self.path, line, format_key(key), message + self.note))

        self.hooks += read_hooks(
            table, source=self.source or "user", config_file=self.path, lines=self.hook_lines, report=report
        )

    def _walk_named(self, tables: Mapping[str, Any], node: NamedTables, prefix: Key) -> None:
        for name, value in tables.items():
            key = (*prefix, name)
            if not node.name_pattern.fullmatch(name):
                self.report(key, f"ignored: {node.name_rule}")
            elif name.lower() in node.reserved:
                self.report(
                    key, f"ignored: {name!r} is built in, so '{name}:MODEL' would never reach it; rename it"
                )
            elif not isinstance(value, dict):
                self.report(key, f"expected a table, got {describe_value(value)}")
            else:
                self.declared[key] = (self.path, self.line_of(key))
                self._walk(value, node.schema, key)


def assemble(
    layers: Sequence[Layer], *, no_color: bool, sources: tuple[Path, ...]
) -> tuple[Settings, list[ConfigProblem]]:
    """Lay the layers over each other, later ones winning, and build the settings."""
    merged: dict[Key, Any] = {}
    set_by: dict[Key, Layer] = {}
    declared: dict[Key, tuple[Path | None, int | None]] = {}
    rejected: set[Key] = set()
    problems: list[ConfigProblem] = []
    for layer in layers:
        for key, value in layer.values.items():
            setting = resolve_setting(key)
            if setting is not None and setting.item_list and key in merged:
                value = tuple(dict.fromkeys((*merged[key], *value)))
            merged[key] = value
            set_by[key] = layer
        for key, where in layer.declared.items():
            declared.setdefault(key, where)
        rejected |= layer.rejected
        problems.extend(layer.problems)
    endpoints: dict[str, EndpointConfig] = {}
    extensions: list[ExtensionConfig] = []
    mcp_servers: list[McpServerConfig] = []
    for table, (path, line) in declared.items():
        fields = {str(key[-1]): value for key, value in merged.items() if key[:-1] == table}
        if table[0] == "mcp_servers":
            server = _mcp_server(table, fields, set_by, rejected)
            if isinstance(server, McpServerConfig):
                mcp_servers.append(server)
            elif server:
                problems.append(ConfigProblem(path, line, format_key(table), server))
            continue
        if table[0] == "extensions":
            extension = _extension(table, fields, set_by, rejected)
            if isinstance(extension, ExtensionConfig):
                extensions.append(extension)
            elif extension:
                problems.append(ConfigProblem(path, line, format_key(table), extension))
            continue
        if "base_url" in fields:
            endpoints[str(table[-1])] = EndpointConfig(**fields)
        elif (*table, "base_url") not in rejected:
            message = 'missing base_url (e.g. base_url = "http://127.0.0.1:8080/v1"); endpoint ignored'
            problems.append(ConfigProblem(path, line, format_key(table), message))
    files = {layer.path: index for index, layer in enumerate(layers)}
    problems.sort(key=lambda problem: (files.get(problem.path, len(files)), problem.line or 0))
    settings = Settings(
        model=merged.get(("model",)),
        models=merged.get(("models",), ()),
        reasoning_effort=merged.get(("reasoning_effort",)),
        endpoints=MappingProxyType(endpoints),
        ui=UISettings(**{str(key[1]): value for key, value in merged.items() if key[0] == "ui"}),
        redact_patterns=merged.get(("redact_patterns",), ()),
        extensions=tuple(extensions),
        sandbox=SandboxSettings(
            **{str(key[1]): value for key, value in merged.items() if key[0] == "sandbox"}
        ),
        checkpoints=CheckpointSettings(
            **{str(key[1]): value for key, value in merged.items() if key[0] == "checkpoints"}
        ),
        web=WebSettings(**{str(key[1]): value for key, value in merged.items() if key[0] == "web"}),
        subagents=SubagentSettings(
            **{str(key[1]): value for key, value in merged.items() if key[0] == "subagents"}
        ),
        mcp_servers=tuple(mcp_servers),
        hooks=tuple(hook for layer in layers for hook in layer.hooks),
        no_color=no_color,
        sources=sources,
    )
    return settings, problems


def _mcp_server(
    table: Key, fields: Mapping[str, Any], set_by: Mapping[Key, Layer], rejected: set[Key]
) -> McpServerConfig | str | None:
    """One ``[mcp_servers.NAME]`` table, or what is wrong with it (None: already reported)."""
    name = str(table[-1])
    origin_layer = set_by.get((*table, "command")) or set_by.get((*table, "url"))
    config_file = origin_layer.path if origin_layer is not None else None
    source = (origin_layer.source if origin_layer is not None else "") or "user"
    return server_from_fields(
        name, fields, source=source, config_file=config_file, rejected=rejected, table=table
    )


def _extension(
    table: Key, fields: Mapping[str, Any], set_by: Mapping[Key, Layer], rejected: set[Key]
) -> ExtensionConfig | str | None:
    """One ``[extensions.NAME]`` table as an ``ExtensionConfig``, or what is wrong with it (None:
    already reported)."""
    name = str(table[-1])
    options = MappingProxyType(dict(fields.get("options", {})))
    bundled = BUNDLED_EXTENSIONS.get(name)
    if bundled is not None:
        if any(key in fields for key in EXTENSION_ORIGIN_KEYS):
            return f"{name!r} is a bundled extension ({bundled.summary}); give yours another name"
        if fields.get("enabled") is False and bundled.always_on:
            return f"cannot be turned off: {bundled.always_on}"
        if options and bundled.built_by_host:
            return f"{name!r} takes no options; the table was ignored"
        return ExtensionConfig(name, "bundled", enabled=fields.get("enabled"), options=options)
    if "path" in fields and ("file" in fields or "class" in fields):
        return 'give either path = "package.module:Class" or file = "name.py" (with class), not both'
    origin = "path" if "path" in fields else "file" if "file" in fields else None
    if origin is None:
        if any((*table, key) in rejected for key in EXTENSION_ORIGIN_KEYS):
            return None
        return (
            'needs path = "package.module:Class" or file = "name.py" (a file in the extensions/ folder '
            "beside this config file); extension ignored"
        )
    layer = set_by[(*table, origin)]
    folder = layer.path.parent / "extensions" if layer.path is not None else None
    return ExtensionConfig(
        name,
        layer.source or "user",
        import_path=fields.get("path"),
        file=folder / fields["file"] if origin == "file" and folder is not None else None,
        class_name=fields.get("class"),
        enabled=fields.get("enabled"),
        options=options,
        config_file=layer.path,
    )
