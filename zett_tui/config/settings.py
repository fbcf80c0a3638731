"""Settings: defaults < user config.toml < project .zett/config.toml < environment < command-line flags.

``load_settings`` never raises for bad input: every file, variable or flag that cannot be used is
skipped and reported as one ``ConfigProblem`` naming the file, the line and the key. The model
and the per-key rules live in ``schema``; this module finds and reads the sources (``toml_file``
reads one, ``toml_lines`` finds a key's line). Saving a value is ``saving.save_user_setting``,
named here too.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from zett_tui.config.hooks import hook_entry_lines
from zett_tui.config.layers import Layer, assemble
from zett_tui.config.project_folder import MCP_JSON_NAME, PROJECT_DIR_NAME, home_folder, project_root
from zett_tui.config.saving import ConfigSaveError, save_user_setting
from zett_tui.config.schema import (
    ALL_KEYS,
    EXTENSION_ORIGIN_KEYS,
    ConfigProblem,
    EndpointConfig,
    ExtensionConfig,
    Settings,
    UISettings,
    resolve_setting,
)
from zett_tui.config.toml_file import UnusableFile, read_toml
from zett_tui.config.toml_keys import Key
from zett_tui.config.toml_lines import TomlOutline
from zett_tui.core import paths
from zett_tui.providers.efforts import REASONING_EFFORTS

__all__ = [
    "REASONING_EFFORTS",
    "ConfigProblem",
    "ConfigSaveError",
    "EndpointConfig",
    "ExtensionConfig",
    "Settings",
    "UISettings",
    "describe_config_locations",
    "find_project_config",
    "load_settings",
    "project_root",
    "save_user_setting",
]

ENV_SETTINGS: Mapping[str, Key] = {
    "ZETT_MODEL": ("model",),
    "ZETT_REASONING_EFFORT": ("reasoning_effort",),
    "ZETT_THEME": ("ui", "theme"),
    "ZETT_NOTIFY": ("ui", "notify"),
}
"""Environment variables that set a key; ``ZETT_NO_BELL`` and ``NO_COLOR`` are handled apart."""
_TRUE_WORDS = ("1", "true", "yes", "on")
_FALSE_WORDS = ("0", "false", "no", "off")


def load_settings(
    *,
    cwd: Path,
    env: Mapping[str, str],
    flags: Mapping[str, object] | None = None,
    user_config: Path | None = None,
    project_trusted: bool = False,
) -> tuple[Settings, list[ConfigProblem]]:
    """Read every layer; return the settings and what was wrong (each bad item skipped).

    ``project_trusted=False`` leaves the project's ``.zett/config.toml`` and ``.mcp.json`` out
    entirely: the app passes the answer of ``zett_tui.config.trust`` (a cloned repository's
    settings, extensions and MCP servers apply only once the user trusts that folder).
    """
    sources: list[Path] = []
    user_path = user_config if user_config is not None else paths.config_file()
    layers = [_file_layer(user_path, sources, "user")]
    root = project_root(cwd, env) if project_trusted else None
    if root is not None:
        project_path = root / PROJECT_DIR_NAME / "config.toml"
        project = _file_layer(project_path, sources, "project", inside=root)
        layers.append(_refuse_in_project(project, layers[0], user_path))
    layers += [_env_layer(env), _flag_layer(flags or {})]
    settings, problems = assemble(layers, no_color=bool(env.get("NO_COLOR")), sources=tuple(sources))
    if root is not None:
        settings = _with_mcp_json(settings, root, problems)
    return settings, problems


def _with_mcp_json(settings: Settings, root: Path, problems: list[ConfigProblem]) -> Settings:
    """``settings`` with the trusted project's ``.mcp.json`` servers after zett's own (which win a
    name: ``config.project_mcp_json``); each problem with it added to ``problems``."""
    from zett_tui.config.project_mcp_json import mcp_json_servers
    from zett_tui.config.trust import TrustState, project_files, trust_state

    project = project_files(root)  # the bytes that were hashed, read within the trust bounds
    if project is None or not project.mentions(MCP_JSON_NAME):
        return settings
    if trust_state(project) is not TrustState.TRUSTED:  # changed since the caller asked: not these bytes
        problems.append(
            ConfigProblem(
                root / MCP_JSON_NAME, None, None, "changed since you trusted the folder; not loaded"
            )
        )
        return settings
    servers, lines = mcp_json_servers(project, taken={server.name for server in settings.mcp_servers})
    problems.extend(_mcp_json_problem(root / MCP_JSON_NAME, line) for line in lines)
    if not servers:
        return settings
    return replace(settings, mcp_servers=(*settings.mcp_servers, *servers))


def find_project_config(cwd: Path, *, home: Path | None = None) -> Path | None:
    """``.zett/config.toml`` in the nearest folder at or above ``cwd`` that has a ``.zett`` folder.

    The search stops below the home directory (``~/.zett`` is not a project) and at the root.
    The returned file may not exist yet.
    """
    start = Path(os.path.abspath(cwd))
    stop = Path(os.path.abspath(home)) if home is not None else None
    for folder in (start, *start.parents):
        if folder == stop:
            return None
        try:
            if (folder / PROJECT_DIR_NAME).is_dir():
                return folder / PROJECT_DIR_NAME / "config.toml"
        except OSError:
            continue
    return None


def describe_config_locations(cwd: Path | None = None) -> str:
    """Where settings come from, for the "no model configured" help."""
    user_path = paths.config_file()
    folder = Path.cwd() if cwd is None else cwd
    project = find_project_config(folder, home=home_folder(os.environ))
    if project is None:
        project_line = f"{folder / PROJECT_DIR_NAME / 'config.toml'} (create .zett/ there to use one)"
    else:
        project_line = f"{project}{'' if project.exists() else ' (not created yet)'}"
    user_line = f"{user_path}{'' if user_path.exists() else ' (not created yet)'}"
    return (
        f"User settings:    {user_line}\n"
        f"Project override: {project_line}\n"
        "Environment variables win over both: ZETT_MODEL, ZETT_REASONING_EFFORT, ZETT_THEME.\n"
        'For example: model = "anthropic", "ollama:qwen3", or "demo" to try zett without a key.'
    )


def _file_layer(path: Path, sources: list[Path], source: str, *, inside: Path | None = None) -> Layer:
    """The checked values of one TOML file; empty when the file is missing or unusable as a whole.

    ``inside``: the project folder a project's file must really be in (see ``toml_file.read_toml``).
    """
    layer = Layer(path=path, source=source)
    try:
        read = read_toml(path, inside=inside)
    except UnusableFile as error:
        layer.problems.append(
            ConfigProblem(path, error.line, None, f"{error.message}; the whole file was ignored")
        )
        return layer
    if read is not None:
        text, document = read
        sources.append(path)
        layer.line_of = TomlOutline.of(text).line_of
        layer.hook_lines = hook_entry_lines(text)
        layer.read_document(document)
    return layer


def _mcp_json_problem(path: Path, line: str) -> ConfigProblem:
    """``PATH: text`` or ``PATH:LINE: text`` (how ``read_mcp_json`` words a problem) as a
    ``ConfigProblem`` of that file, so it is told apart from the others (``is_about_mcp``)."""
    rest = line.removeprefix(str(path))
    number, colon, text = rest.removeprefix(":").partition(": ")
    if colon and number.isdigit():
        return ConfigProblem(path, int(number), None, text)
    return ConfigProblem(path, None, None, rest.removeprefix(": "))


def is_about_mcp(problem: ConfigProblem) -> bool:
    """Whether ``problem`` kept an MCP server from loading (``[mcp_servers.NAME]`` or ``.mcp.json``)."""
    about_table = (problem.key or "").startswith("mcp_servers")
    return about_table or (problem.path is not None and problem.path.name == MCP_JSON_NAME)


def _refuse_in_project(project: Layer, user: Layer, user_path: Path) -> Layer:
    """Drop what a cloned repository must not decide: keys, and where the user's own endpoints point."""
    for key in list(project.values):
        setting = resolve_setting(key)
        if setting is not None and setting.user_only:
            why = "it could loosen the sandbox" if key[0] == "sandbox" else "it could send your key elsewhere"
            project.drop(key, f"not allowed in a project file ({why}); set it in {user_path}")
        elif key[-1] == "base_url" and key[:-1] in user.declared:
            project.drop(
                key, f"a project file cannot move an endpoint that {user_path} defines; use another name"
            )
        elif key[0] == "extensions" and key[-1] in EXTENSION_ORIGIN_KEYS and key[:-1] in user.declared:
            project.drop(
                key,
                f"a project file cannot change where an extension {user_path} defines comes from; "
                "use another name",
            )
    return project


def _env_layer(env: Mapping[str, str]) -> Layer:
    layer = Layer()
    for variable, key in ENV_SETTINGS.items():
        raw = env.get(variable, "")
        setting = resolve_setting(key)
        if raw.strip() and setting is not None:
            layer.key_names[key] = variable
            layer.take(setting, key, raw)
    no_bell = env.get("ZETT_NO_BELL", "").strip().lower()
    if no_bell in _TRUE_WORDS:
        layer.values["ui", "bell"] = False
    elif no_bell and no_bell not in _FALSE_WORDS:
        layer.key_names["ui", "bell"] = "ZETT_NO_BELL"
        layer.report(("ui", "bell"), f"expected 1 or 0, got {no_bell!r}")
    return layer


_FLAG_ALIASES: Mapping[str, Key] = {
    name.rsplit(".", 1)[-1]: tuple(name.split(".")) for name in ALL_KEYS if name.startswith("ui.")
}
"""``theme`` for ``ui.theme``: the ``[ui]`` keys are unique enough to go without their table."""


def _flag_layer(flags: Mapping[str, object]) -> Layer:
    """Flags are keyed by dotted setting name (``model``, ``ui.theme`` or just ``theme``); None: not given."""
    layer = Layer(note=" (command-line flag)")
    for name, value in flags.items():
        if value is None:
            continue
        key: Key = _FLAG_ALIASES.get(name) or tuple(name.split("."))
        setting = resolve_setting(key)
        if setting is None:
            layer.report(key, "unknown setting")
        else:
            layer.take(setting, key, value)
    return layer
