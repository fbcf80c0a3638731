"""Settings: defaults < user config.toml < project .zett/config.toml < environment < command-line flags.

``load_settings`` never raises for bad input: every file, variable or flag that cannot be used is
skipped and reported as one ``ConfigProblem`` naming the file, the line and the key. The model
and the per-key rules live in ``config.schema``; this module finds and reads the sources, and
knows TOML text well enough to point at a key's line. Changing one value in place (keeping the
user's comments) is ``config.toml_edit``, on tomlkit.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zett_tui.config.schema import (
    ALL_KEYS,
    BARE_KEY,
    EXTENSION_ORIGIN_KEYS,
    ConfigProblem,
    EndpointConfig,
    ExtensionConfig,
    Key,
    Layer,
    Settings,
    UISettings,
    assemble,
    resolve_setting,
)
from zett_tui.config.toml_edit import set_toml_value
from zett_tui.config.values import InvalidValue
from zett_tui.core import paths
from zett_tui.core.contained_read import PROJECT_FILES_MAX_BYTES, NotRead, read_whole_contained
from zett_tui.providers.build import REASONING_EFFORTS

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

PROJECT_DIR_NAME = ".zett"
ENV_SETTINGS: Mapping[str, Key] = {
    "ZETT_MODEL": ("model",),
    "ZETT_REASONING_EFFORT": ("reasoning_effort",),
    "ZETT_THEME": ("ui", "theme"),
}
"""Environment variables that set a key; ``ZETT_NO_BELL`` and ``NO_COLOR`` are handled apart."""
_TRUE_WORDS = ("1", "true", "yes", "on")
_FALSE_WORDS = ("0", "false", "no", "off")


class ConfigSaveError(Exception):
    """``save_user_setting`` could not save; the message is fit to show the user."""


def load_settings(
    *,
    cwd: Path,
    env: Mapping[str, str],
    flags: Mapping[str, object] | None = None,
    user_config: Path | None = None,
    project_trusted: bool = False,
) -> tuple[Settings, list[ConfigProblem]]:
    """Read every layer; return the settings and what was wrong (each bad item skipped).

    ``project_trusted=False`` leaves the project's ``.zett/config.toml`` out entirely: the app
    passes the answer of ``zett_tui.config.trust`` (a cloned repository's settings and extensions apply
    only once the user trusts that folder).
    """
    sources: list[Path] = []
    user_path = user_config if user_config is not None else paths.config_file()
    layers = [_file_layer(user_path, sources, "user")]
    project_path = find_project_config(cwd, home=_home(env))
    if project_path is not None and project_trusted:
        project = _file_layer(project_path, sources, "project", inside=project_path.parent.parent)
        layers.append(_refuse_in_project(project, layers[0], user_path))
    layers += [_env_layer(env), _flag_layer(flags or {})]
    return assemble(layers, no_color=bool(env.get("NO_COLOR")), sources=tuple(sources))


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


def project_root(cwd: Path, env: Mapping[str, str]) -> Path | None:
    """The folder whose ``.zett/`` is this project's (what ``load_settings`` reads), or None."""
    found = find_project_config(cwd, home=_home(env))
    return found.parent.parent if found is not None else None


def describe_config_locations(cwd: Path | None = None) -> str:
    """Where settings come from, for the "no model configured" help."""
    user_path = paths.config_file()
    folder = Path.cwd() if cwd is None else cwd
    project = find_project_config(folder, home=_home(os.environ))
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


def save_user_setting(path: Path, dotted_key: str, value: str | bool | int) -> None:
    """Set one key in the user config file, keeping the rest of the file and its comments.

    The new text must parse back to the old settings plus this one, or nothing is written.
    Raises ``ConfigSaveError`` with a message fit for the user.
    """
    key: Key = tuple(dotted_key.split("."))
    setting = resolve_setting(key)
    if setting is None or setting.item_list:
        raise ConfigSaveError(f"{dotted_key} is not a setting that can be saved")
    try:
        setting.convert(value)
    except InvalidValue as error:
        raise ConfigSaveError(f"{dotted_key}: {error}") from None
    try:
        read = _read_toml(path)
    except _UnusableFile as error:
        where = f"{path}:{error.line}" if error.line else str(path)
        raise ConfigSaveError(f"{where}: {error.message}; fix it before saving {dotted_key}") from None
    try:
        new_text = set_toml_value(read[0] if read else "", key, value)
    except ValueError as error:
        raise ConfigSaveError(f"{path}: cannot save {dotted_key}: {error}") from None
    if _starts_with_bom(path):
        new_text = "\ufeff" + new_text
    try:
        paths.write_private_text(path.resolve(), new_text)  # through a symlink: dotfile repos stay linked
    except OSError as error:
        raise ConfigSaveError(f"{path}: cannot write: {error.strerror or error}") from None


def _starts_with_bom(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(3) == b"\xef\xbb\xbf"
    except OSError:
        return False


def _home(env: Mapping[str, str]) -> Path | None:
    if env.get("HOME"):
        return Path(env["HOME"])
    try:
        return Path.home()
    except RuntimeError:
        return None


class _UnusableFile(Exception):
    def __init__(self, line: int | None, message: str):
        super().__init__(message)
        self.line = line
        self.message = message


def _file_layer(path: Path, sources: list[Path], source: str, *, inside: Path | None = None) -> Layer:
    """The checked values of one TOML file; empty when the file is missing or unusable as a whole.

    ``inside``: the project folder a project's file must really be in (see ``_read_toml``).
    """
    layer = Layer(path=path, source=source)
    try:
        read = _read_toml(path, inside=inside)
    except _UnusableFile as error:
        layer.problems.append(
            ConfigProblem(path, error.line, None, f"{error.message}; the whole file was ignored")
        )
        return layer
    if read is not None:
        text, document = read
        sources.append(path)
        layer.line_of = TomlOutline.of(text).line_of
        layer.read_document(document)
    return layer


def _read_toml(path: Path, *, inside: Path | None = None) -> tuple[str, dict[str, Any]] | None:
    """The text and the parsed document, or None when the file does not exist; else ``_UnusableFile``.

    With ``inside`` (a project's file) it is read only as a regular file whose real path is in
    that folder, and only up to ``PROJECT_FILES_MAX_BYTES``: what the trust question hashed.
    """
    try:
        if inside is not None:
            try:
                raw = read_whole_contained(path, inside=inside, max_bytes=PROJECT_FILES_MAX_BYTES)
            except NotRead as why:
                raise _UnusableFile(None, str(why)) from None
        else:
            raw = path.read_bytes()
        raw = raw.removeprefix(b"\xef\xbb\xbf")
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise _UnusableFile(None, "is a folder, not a file") from None
    except PermissionError:
        raise _UnusableFile(None, "cannot be read: permission denied") from None
    except OSError as error:
        raise _UnusableFile(None, f"cannot be read: {error.strerror or error}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - raw.rfind(b"\n", 0, error.start)
        message = f"not UTF-8 text (byte 0x{raw[error.start]:02x} at column {column}); save it as UTF-8"
        raise _UnusableFile(line, message) from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise _UnusableFile(*_decode_error_position(str(error), text)) from None


_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")
_AT_END = re.compile(r"\s*\(at end of document\)$")


def _decode_error_position(message: str, text: str) -> tuple[int | None, str]:
    """Line and reason from ``tomllib``'s "Invalid value (at line 3, column 9)"."""
    found = _POSITION.search(message)
    if found:
        return int(found.group(1)), f"not valid TOML: {message[: found.start()]} (column {found.group(2)})"
    found = _AT_END.search(message)
    if found:
        last_line = max(1, text.count("\n") + (0 if text.endswith("\n") else 1))
        return last_line, f"not valid TOML: {message[: found.start()]} (at the end of the file)"
    return None, f"not valid TOML: {message}"


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


# --- TOML text: the line of each key (neither tomllib nor tomlkit gives positions) ---

_SCALAR = re.compile(r"[^,\]}#\r\n]*")


@dataclass
class TomlOutline:
    """The lines of keys and headers in a valid TOML text, found by a small scanner."""

    lines: dict[Key, int] = field(default_factory=dict)
    """First line where each key or table (and each prefix of a dotted key) appears."""

    @classmethod
    def of(cls, text: str) -> TomlOutline:
        """Best effort: positions only make messages better, so a scanner mistake costs them, not the app."""
        scanner = _Scanner(text)
        with contextlib.suppress(Exception):
            scanner.run()
        return scanner.outline

    def line_of(self, key: Key) -> int | None:
        """The line of ``key``, else of the nearest enclosing table that has one."""
        for length in range(len(key), 0, -1):
            line = self.lines.get(key[:length])
            if line is not None:
                return line
        return None


class _ScanError(Exception):
    pass


class _Scanner:
    """Walks a TOML text that ``tomllib`` already accepted, noting where every key is."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.line_starts = [0, *(index + 1 for index, char in enumerate(text) if char == "\n")]
        self.outline = TomlOutline()

    def run(self) -> None:
        table: Key = ()
        while self.pos < len(self.text):
            self.skip_blank()
            if self.peek() in ("#", "\n", "\r", ""):
                self.next_line()
            elif self.peek() == "[":
                table = self.header()
            else:
                start = self.pos
                key = self.key()
                self.expect("=")
                self.value((*table, *key), self.line_at(start))
                self.next_line()

    def header(self) -> Key:
        start = self.pos
        is_array = self.text.startswith("[[", start)
        self.pos += 2 if is_array else 1
        key = self.key()
        self.expect("]]" if is_array else "]")
        self.note(key, self.line_at(start))
        self.next_line()
        return key

    def key(self) -> tuple[str, ...]:
        parts: list[str] = []
        while True:
            self.skip_blank()
            start = self.pos
            if self.peek() == '"':
                self.basic_string()
                parts.append(tomllib.loads(f"k = {self.text[start : self.pos]}")["k"])
            elif self.peek() == "'":
                self.literal_string()
                parts.append(self.text[start + 1 : self.pos - 1])
            else:
                bare = BARE_KEY.match(self.text, self.pos)
                if bare is None:
                    raise _ScanError(self.pos)
                parts.append(bare.group())
                self.pos = bare.end()
            self.skip_blank()
            if self.peek() != ".":
                return tuple(parts)
            self.pos += 1

    def value(self, key: Key, line: int) -> None:
        start = self.pos
        if self.text.startswith(('"""', "'''"), start):
            self.multiline_string(self.text[start : start + 3])
        elif self.peek() == '"':
            self.basic_string()
        elif self.peek() == "'":
            self.literal_string()
        elif self.peek() == "[":
            self.array(key)
        elif self.peek() == "{":
            self.inline_table(key)
        else:
            scalar = _SCALAR.match(self.text, start)
            length = len(scalar.group().rstrip()) if scalar else 0
            if not length:
                raise _ScanError(start)
            self.pos += length
        self.note(key, line)

    def array(self, key: Key) -> None:
        self.pos += 1
        index = 0
        while True:
            self.skip_space()
            if self.peek() == "]":
                self.pos += 1
                return
            self.value((*key, index), self.line_at(self.pos))
            index += 1
            self.skip_space()
            if self.peek() == ",":
                self.pos += 1
            elif self.peek() != "]":
                raise _ScanError(self.pos)

    def inline_table(self, key: Key) -> None:
        self.pos += 1
        while True:
            self.skip_space()
            if self.peek() == "}":
                self.pos += 1
                return
            start = self.pos
            inner = self.key()
            self.expect("=")
            self.value((*key, *inner), self.line_at(start))
            self.skip_space()
            if self.peek() == ",":
                self.pos += 1
            elif self.peek() != "}":
                raise _ScanError(self.pos)

    def basic_string(self) -> None:
        self.pos += 1
        while self.peek() not in ('"', "\n", ""):
            self.pos += 2 if self.peek() == "\\" else 1
        if self.peek() != '"':
            raise _ScanError(self.pos)
        self.pos += 1

    def literal_string(self) -> None:
        end = self.text.find("'", self.pos + 1)
        if end < 0 or "\n" in self.text[self.pos : end]:
            raise _ScanError(self.pos)
        self.pos = end + 1

    def multiline_string(self, delimiter: str) -> None:
        self.pos += 3
        while not self.text.startswith(delimiter, self.pos):
            if self.pos >= len(self.text):
                raise _ScanError(self.pos)
            self.pos += 2 if delimiter == '"""' and self.peek() == "\\" else 1
        while self.peek() == delimiter[0]:  # up to two quotes may end the content before the delimiter
            self.pos += 1

    def note(self, key: Key, line: int) -> None:
        for length in range(1, len(key) + 1):
            self.outline.lines.setdefault(key[:length], line)

    def expect(self, token: str) -> None:
        self.skip_blank()
        if not self.text.startswith(token, self.pos):
            raise _ScanError(self.pos)
        self.pos += len(token)
        self.skip_blank()

    def peek(self) -> str:
        return self.text[self.pos : self.pos + 1]

    def skip_blank(self) -> None:
        while self.peek() in (" ", "\t"):
            self.pos += 1

    def skip_space(self) -> None:
        """Blanks, newlines and comments, as allowed inside arrays."""
        while True:
            self.skip_blank()
            if self.peek() == "#":
                end = self.text.find("\n", self.pos)
                self.pos = len(self.text) if end < 0 else end
            elif self.peek() in ("\n", "\r"):
                self.pos += 1
            else:
                return

    def next_line(self) -> None:
        end = self.text.find("\n", self.pos)
        self.pos = len(self.text) if end < 0 else end + 1

    def line_at(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)
