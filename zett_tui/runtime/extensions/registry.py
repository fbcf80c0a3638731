"""From ``[extensions.NAME]`` tables to extension instances, and a record of what loaded from where.

Each configured extension is imported (``path = "package.module:Class"``) or loaded from its file
(``file = "name.py"``), built with its ``options`` as keyword arguments, and wrapped in a
``GuardedExtension``. Anything that goes wrong (the module is missing or does not compile, the
class is not there or is no ``AgentExtension``, the options do not fit) becomes one
``LoadProblem`` naming the extension and the error; zett carries on without it.

A project's extensions are checked against the trust store once more right here, so files
changed after the user trusted the folder do not load (a ``/new`` session reloads them), and a
project's extension file loads only when it is one of the files the user trusted: inside the
project, read for the hash, not left out (a ``.zett/extensions/x.py`` linked to a file
elsewhere does not load, even in a trusted folder). What runs is the very bytes that were hashed,
compiled from them: never the file read again later, never Python's ``__pycache__``. The same
holds for a user's extension file that lies where sandboxed commands write (the project): it
loads only as the bytes the user allowed (``config.pinned_files``).
"""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from zett_agent.extensions.base import AgentExtension

from zett_tui.config.project_folder import PROJECT_DIR_NAME
from zett_tui.config.schema import ExtensionConfig
from zett_tui.core import paths
from zett_tui.runtime.extensions.catalog import BUNDLED_EXTENSIONS, BundledExtension
from zett_tui.runtime.extensions.guard import GuardedExtension
from zett_tui.runtime.extensions.loader import ExtensionLoadError, load_class_from_file, load_module_from_file

log = logging.getLogger(__name__)

Report = Callable[[str], None]


@dataclass(frozen=True)
class LoadedExtension:
    """One extension in the agent: its configured name, where it came from, and the instance."""

    name: str
    source: str
    """``bundled``, ``user`` or ``project``."""
    origin: str
    """The file it was loaded from, or its import path."""
    instance: AgentExtension

    @property
    def failure(self) -> str | None:
        """Why it was switched off during this session, or None while it runs."""
        return self.instance.failure if isinstance(self.instance, GuardedExtension) else None


@dataclass(frozen=True)
class LoadProblem:
    """A configured extension that could not be loaded; zett runs without it."""

    name: str
    source: str
    origin: str
    error: str

    def __str__(self) -> str:
        return f"Extension {self.name} ({self.source}, {self.origin}) was not loaded: {self.error}"


@dataclass
class ExtensionReport:
    """What ``/extensions`` shows: in the order they run, what was left out, and why."""

    loaded: list[LoadedExtension] = field(default_factory=list)
    problems: list[LoadProblem] = field(default_factory=list)
    turned_off: list[ExtensionConfig] = field(default_factory=list)


def bundled_path(bundled: BundledExtension) -> Path:
    return paths.bundled_dir("extensions") / f"{bundled.file_stem}.py"


def bundled_class(name: str) -> Any:
    """The class of one of zett's own extensions, by its config name."""
    bundled = BUNDLED_EXTENSIONS[name]
    return load_class_from_file(bundled_path(bundled), bundled.class_name)


def bundled_entry(name: str, instance: AgentExtension) -> LoadedExtension:
    return LoadedExtension(name, "bundled", str(bundled_path(BUNDLED_EXTENSIONS[name])), instance)


def is_turned_on(name: str, configs: Iterable[ExtensionConfig]) -> bool:
    """Whether a bundled extension runs: its default unless a table says otherwise (the last one wins)."""
    enabled = BUNDLED_EXTENSIONS[name].on_by_default
    for config in configs:
        if config.name == name and config.enabled is not None:
            enabled = config.enabled
    return enabled


def load_extensions(
    configs: Sequence[ExtensionConfig], *, report: Report, taken_names: Iterable[str] = ()
) -> ExtensionReport:
    """Build every configured extension that is turned on; ``report`` hears of hook failures later.

    ``taken_names`` are the names of the extensions already in the agent: zett-agent needs every
    name to be unique, so a clash is renamed to the configured name, or refused.
    """
    result = ExtensionReport()
    taken = set(taken_names)
    trusted_roots: dict[Path, bool] = {}
    for config in configs:
        bundled = BUNDLED_EXTENSIONS.get(config.name) if config.source == "bundled" else None
        if bundled is not None and bundled.built_by_host:
            if config.enabled is False:
                result.turned_off.append(config)
            continue  # the host builds these itself
        on = is_turned_on(config.name, configs) if bundled is not None else config.enabled is not False
        if not on:
            result.turned_off.append(config)
            continue
        origin = str(bundled_path(bundled)) if bundled is not None else config.origin
        source = "bundled" if bundled is not None else config.source
        try:
            if config.source == "project":
                trusted = _check_project_file(config, trusted_roots)
            else:
                trusted = _check_pinned_file(config)
            instance = _build(config, bundled, trusted)
            _give_unique_name(instance, config.name, taken)
        except _Refused as refusal:
            result.problems.append(LoadProblem(config.name, source, origin, str(refusal)))
            continue
        except (Exception, SystemExit) as error:  # importing and building run the extension's code
            log.warning("extension %s did not load", config.name, exc_info=True)
            result.problems.append(LoadProblem(config.name, source, origin, _describe(error)))
            continue
        taken.add(instance.name)
        guarded = GuardedExtension(instance, config.name, report)
        result.loaded.append(LoadedExtension(config.name, source, origin, guarded))
    return result


class _Refused(Exception):
    """A configured extension cannot be used; the message says why in the user's terms."""


def _check_project_file(config: ExtensionConfig, cache: dict[Path, Any]) -> bytes | None:
    """Refuse a project's extension unless the folder is trusted as it is now, and its file is
    one the user trusted: read for the hash, inside the project (not left out of it). The bytes
    that were hashed: they are what runs (None for an import path)."""
    from zett_tui.config.trust import TrustState, project_files, trust_state

    if config.config_file is None:
        raise _Refused("it names no project config file")
    root = config.config_file.parent.parent
    if root not in cache:
        project = project_files(root)
        trusted = project is not None and trust_state(project) is TrustState.TRUSTED
        cache[root] = project if trusted else None
    project = cache[root]
    if project is None:
        raise _Refused("the project's .zett/ files changed since you trusted them; start zett again")
    if config.file is None:
        return None  # an import path: nothing is read from the project folder
    relative = config.file.relative_to(root).as_posix()
    reasons = dict(project.left_out)
    if relative in reasons:
        raise _Refused(f"{relative} {reasons[relative]}; not loaded")
    for folder in (f"{PROJECT_DIR_NAME}/extensions", PROJECT_DIR_NAME):
        if folder in reasons:
            raise _Refused(f"{folder} {reasons[folder]}; not loaded")
    source = project.content(relative)
    if source is None and not os.path.lexists(config.file):
        raise _Refused("no such file")
    if source is None:
        raise _Refused(f"{relative} is not among the files you trusted; not loaded")
    return bytes(source)


def _check_pinned_file(config: ExtensionConfig) -> bytes | None:
    """The bytes the user allowed when the user's extension file lies where sandboxed commands
    write (``config.pinned_files``); None when it does not (it loads as usual)."""
    from zett_tui.config.pinned_files import NotPinned, pinned_bytes

    if config.file is None or config.source == "bundled":
        return None
    try:
        return pinned_bytes(config.file)
    except NotPinned as refusal:
        raise _Refused(str(refusal)) from None
    except OSError:
        return None  # missing or unreadable: the loader says so in its own words


def _build(
    config: ExtensionConfig, bundled: BundledExtension | None, trusted: bytes | None = None
) -> AgentExtension:
    cls = _extension_class(config, bundled, trusted)
    if not (isinstance(cls, type) and issubclass(cls, AgentExtension)):
        raise _Refused(f"{cls!r} is not an AgentExtension subclass")
    try:
        instance = cls(**config.options)
    except TypeError as error:
        raise _Refused(f"its options do not fit {cls.__name__}: {error}") from error
    if not isinstance(instance, AgentExtension):
        raise _Refused(f"{cls.__name__}() did not make an AgentExtension")
    return instance


def _extension_class(
    config: ExtensionConfig, bundled: BundledExtension | None, trusted: bytes | None = None
) -> Any:
    if bundled is not None:
        return _loaded_class(bundled_path(bundled), bundled.class_name, "bundled")
    if config.import_path is not None:
        module_name, _, attribute = config.import_path.partition(":")
        found: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            found = getattr(found, part, None)
            if found is None:
                raise _Refused(f"module {module_name} has no {attribute}")
        return found
    if config.file is None:
        raise _Refused("the config names no path or file")
    inside = config.config_file.parent.parent if config.source == "project" and config.config_file else None
    if config.class_name is not None:
        return _loaded_class(config.file, config.class_name, config.source, inside, trusted)
    return _only_extension_class(_loaded_module(config.file, config.source, inside, trusted))


def _loaded_module(
    path: Path, namespace: str, inside: Path | None = None, source: bytes | None = None
) -> ModuleType:
    try:
        return load_module_from_file(path, namespace=namespace, inside=inside, source=source)
    except ExtensionLoadError as error:
        raise _Refused(_describe(error.__cause__) if error.__cause__ else _after_path(error)) from error


def _loaded_class(
    path: Path, class_name: str, namespace: str, inside: Path | None = None, source: bytes | None = None
) -> Any:
    module = _loaded_module(path, namespace, inside, source)
    try:
        return getattr(module, class_name)
    except AttributeError:
        raise _Refused(f"{path.name} has no class {class_name!r}") from None


def _only_extension_class(module: ModuleType) -> type[AgentExtension]:
    """The one ``AgentExtension`` subclass a file defines (imported ones do not count)."""
    defined = [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, AgentExtension)
        and value.__module__ == module.__name__
    ]
    if len(defined) == 1:
        return defined[0]
    names = ", ".join(cls.__name__ for cls in defined)
    found = (
        f"defines {len(defined)} extension classes ({names})"
        if defined
        else "defines no AgentExtension subclass"
    )
    raise _Refused(f'{found}; name the one to load with class = "..."')


def _give_unique_name(instance: AgentExtension, configured: str, taken: set[str]) -> None:
    name = instance.name
    if not isinstance(name, str) or not name.strip():
        raise _Refused("its name is not a non-empty string")
    if not isinstance(instance.priority, int | float) or isinstance(instance.priority, bool):
        raise _Refused(f"its priority must be a number, not {instance.priority!r}")
    if name not in taken:
        return
    if configured in taken:
        raise _Refused(f"the name {name!r} (and {configured!r}) is already taken by another extension")
    instance.name = configured


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def _after_path(error: ExtensionLoadError) -> str:
    """The loader's message without the path in front (the problem already names the origin)."""
    text = str(error)
    return text.split(": ", 1)[1] if ": " in text else text
