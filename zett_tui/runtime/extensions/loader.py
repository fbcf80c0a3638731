"""Loads agent extensions from files: the bundled ones in ``extensions/``, the user's and a project's.

Bundled extensions are plain files, not an installed ``extensions`` package, so they load the way
a user's own extension file does. Each source gets its own module names, so a user's
``tool_output.py`` does not replace zett's. A project's files load only from inside the project
(``inside``); the user's own are the user's business.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import stat
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from zett_tui.core import paths
from zett_tui.core.contained_read import NotRead, describe_kind, resolve

_MODULE_PREFIX = "zett_extensions_"
#: The SHA-256 of the bytes a module loaded from ``source`` was compiled from.
_SOURCE_DIGEST = "__zett_source_sha256__"


class ExtensionLoadError(Exception):
    """An extension file or class could not be loaded; the message names it and says why."""


def load_module_from_file(
    path: Path, *, namespace: str = "", inside: Path | None = None, source: bytes | None = None
) -> ModuleType:
    """Import one extension file under a private module name (``namespace`` keeps sources apart).

    ``inside``: a project's extension must be a regular file whose real path is in that folder
    (a ``.zett/extensions/x.py`` linked to a file elsewhere is refused).
    ``source``: the bytes to run instead of what the file holds now (a project's extension runs
    the very bytes the user trusted, compiled here: Python's ``__pycache__``, which a sandboxed
    command can write with the source's time and size in its header, is never read).
    """
    if inside is not None:
        try:
            mode = os.stat(resolve(path, inside=inside)).st_mode
        except FileNotFoundError:
            raise ExtensionLoadError(f"{path}: no such file") from None
        except (NotRead, OSError) as why:
            raise ExtensionLoadError(f"{path}: {why}; not loaded") from None
        if not stat.S_ISREG(mode):
            raise ExtensionLoadError(f"{path}: {describe_kind(mode)}; not loaded")
    module_name = _MODULE_PREFIX + (f"{namespace}_" if namespace else "") + path.stem
    if source is not None:
        return _module_from_source(module_name, path, source)
    existing = sys.modules.get(module_name)
    if existing is not None and getattr(existing, "__file__", None) == str(path):
        return existing
    if not path.is_file():
        raise ExtensionLoadError(f"{path}: no such file")
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ExtensionLoadError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as error:  # SyntaxError too; a stray sys.exit() must not end zett
        sys.modules.pop(module_name, None)
        raise ExtensionLoadError(f"{path}: {type(error).__name__}: {error}") from error
    return module


def _module_from_source(module_name: str, path: Path, source: bytes) -> ModuleType:
    """``source`` compiled and run as the module ``module_name`` (reused while the bytes are the same)."""
    digest = hashlib.sha256(source).hexdigest()
    existing = sys.modules.get(module_name)
    if existing is not None and getattr(existing, _SOURCE_DIGEST, None) == digest:
        return existing
    spec = importlib.util.spec_from_loader(module_name, loader=None, origin=str(path))
    if spec is None:
        raise ExtensionLoadError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    module.__file__ = str(path)
    setattr(module, _SOURCE_DIGEST, digest)
    sys.modules[module_name] = module
    try:
        code = compile(source, str(path), "exec", dont_inherit=True)
        exec(code, module.__dict__)
    except (Exception, SystemExit) as error:
        sys.modules.pop(module_name, None)
        raise ExtensionLoadError(f"{path}: {type(error).__name__}: {error}") from error
    return module


def load_class_from_file(path: Path, class_name: str) -> Any:
    module = load_module_from_file(path)
    try:
        return getattr(module, class_name)
    except AttributeError:
        raise ExtensionLoadError(f"{path}: has no class {class_name!r}") from None


def load_bundled(file_stem: str, class_name: str) -> Any:
    """A class from one of zett's own extension files."""
    return load_class_from_file(paths.bundled_dir("extensions") / f"{file_stem}.py", class_name)
