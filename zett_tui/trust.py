"""Workspace trust: a project's ``.zett/`` settings and extensions load only once the user trusts it.

What a project folder would load is ``.zett/config.toml`` and every file under
``.zett/extensions/`` (``__pycache__`` aside). Their paths and contents are hashed together
(SHA-256); the trust store (``data_dir()/trust.json``, 0600) keeps, per folder, the hash the user
decided on and whether they trusted it. Any change to those files changes the hash, so zett asks
again; a refusal is remembered the same way, so zett does not ask at every start.

Not covered, on purpose: ``AGENTS.md``. It is instructions for the model, not code or settings;
everything the model does with it still goes through zett's approvals, which a project cannot
change, and any file the model reads can carry the same text. Asking about it would put a trust
question in front of nearly every repository and teach people to say yes without reading.

No Textual here: the app asks (``zett_tui.ui.workspace_trust``), this module knows the answer.
"""

from __future__ import annotations

import json
import logging
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from zett_tui import paths
from zett_tui.config import PROJECT_DIR_NAME, project_root

log = logging.getLogger(__name__)

TRUST_FILE_NAME = "trust.json"
_STORE_VERSION = 1


class TrustState(StrEnum):
    TRUSTED = "trusted"
    NEW = "new"
    """Never decided."""
    CHANGED = "changed"
    """Decided on other contents (trusted or not): ask again."""
    DECLINED = "declined"
    """The user chose not to trust exactly these contents."""


@dataclass(frozen=True)
class ProjectFiles:
    """What one project folder's ``.zett/`` would load, and its hash."""

    root: Path
    """The folder that holds ``.zett/`` (resolved)."""
    files: tuple[str, ...]
    """Paths relative to ``root``, sorted: ``.zett/config.toml``, ``.zett/extensions/lint.py``..."""
    digest: str
    """SHA-256 over every (path, content) pair."""

    @property
    def config_file(self) -> Path:
        return self.root / PROJECT_DIR_NAME / "config.toml"

    def config_text(self) -> str | None:
        """The config file as text (best effort, for showing it), or None when there is none."""
        try:
            return self.config_file.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            return None

    def code_to_run(self) -> list[str]:
        """One line per extension the config names: its name, where the code is, its options.

        Best effort over the raw file, for the question; ``load_settings`` does the real checking.
        """
        text = self.config_text()
        try:
            document = tomllib.loads(text) if text else {}
        except tomllib.TOMLDecodeError:
            return ["(.zett/config.toml is not valid TOML; zett would report it and skip it)"]
        tables = document.get("extensions")
        lines: list[str] = []
        for name, table in (tables if isinstance(tables, dict) else {}).items():
            if not isinstance(table, dict):
                continue
            line = _describe_extension(str(name), table)
            if line:
                lines.append(line)
        return lines


def _describe_extension(name: str, table: Mapping[str, Any]) -> str:
    if table.get("enabled") is False:
        return f"{name}: turned off"
    if isinstance(table.get("path"), str):
        where = f"imports {table['path']}"
    elif isinstance(table.get("file"), str):
        where = f"runs {PROJECT_DIR_NAME}/extensions/{table['file']}"
        if isinstance(table.get("class"), str):
            where += f", class {table['class']}"
    else:
        where = "settings for a bundled extension"
    options = table.get("options")
    if isinstance(options, dict) and options:
        where += " with " + json.dumps(options, default=str, ensure_ascii=False)
    return f"{name}: {where}"


def find_project(cwd: Path, env: Mapping[str, str]) -> ProjectFiles | None:
    """The project folder above ``cwd`` and what it would load; None when there is nothing to load."""
    root = project_root(cwd, env)
    if root is None:
        return None
    return project_files(root)


def project_files(root: Path) -> ProjectFiles | None:
    """What ``root/.zett/`` would load, hashed now; None when it holds nothing that loads."""
    root = root.resolve()
    entries = _collect(root)
    if not entries:
        return None
    import hashlib  # only for a project that has something to load

    digest = hashlib.sha256()
    for relative, content in entries:
        name = relative.encode("utf-8", errors="surrogateescape")
        digest.update(len(name).to_bytes(8, "big") + name + len(content).to_bytes(8, "big") + content)
    return ProjectFiles(root, tuple(relative for relative, _ in entries), digest.hexdigest())


def _collect(root: Path) -> list[tuple[str, bytes]]:
    zett = root / PROJECT_DIR_NAME
    entries: list[tuple[str, bytes]] = []
    config = zett / "config.toml"
    if config.is_file():
        entries.append((config.relative_to(root).as_posix(), _read(config)))
    extensions = zett / "extensions"
    seen: set[str] = set()
    for folder, folders, files in os.walk(extensions, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:  # a symlink loop: each real folder once
            folders.clear()
            continue
        seen.add(real)
        folders[:] = sorted(name for name in folders if name != "__pycache__")
        for name in files:
            path = Path(folder) / name
            if path.is_file():
                entries.append((path.relative_to(root).as_posix(), _read(path)))
    return sorted(entries)


def _read(path: Path) -> bytes:
    """The bytes, or a marker that changes when the file becomes readable."""
    try:
        return path.read_bytes()
    except OSError as error:
        return f"<unreadable: {error.strerror or error}>".encode()


# -- the trust store ------------------------------------------------------------------------------


def store_path() -> Path:
    return paths.data_dir() / TRUST_FILE_NAME


def project_trusted(cwd: Path, env: Mapping[str, str]) -> bool:
    """True when the project above ``cwd`` may load its files: it has none, or the user trusts it."""
    project = find_project(cwd, env)
    return project is None or trust_state(project) is TrustState.TRUSTED


def trust_state(project: ProjectFiles, *, store: Path | None = None) -> TrustState:
    decision = _read_store(store or store_path()).get(str(project.root))
    if not isinstance(decision, dict):
        return TrustState.NEW
    if decision.get("digest") != project.digest:
        return TrustState.CHANGED
    return TrustState.TRUSTED if decision.get("trusted") is True else TrustState.DECLINED


def remember(project: ProjectFiles, *, trusted: bool, store: Path | None = None) -> None:
    """Record the user's decision on exactly these contents (0600, written atomically)."""
    path = store or store_path()
    folders = _read_store(path)
    folders[str(project.root)] = {"digest": project.digest, "trusted": trusted, "files": list(project.files)}
    paths.write_private_text(
        path, json.dumps({"version": _STORE_VERSION, "folders": folders}, indent=2) + "\n"
    )


def still_trusted(root: Path, *, store: Path | None = None) -> bool:
    """Hash ``root/.zett/`` again now: True only when the user trusted exactly what is there."""
    project = project_files(root)
    return project is not None and trust_state(project, store=store) is TrustState.TRUSTED


def _read_store(path: Path) -> dict[str, Any]:
    """The decisions by folder; an unreadable or damaged store means no decisions (zett asks again)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        log.warning("trust store %s is unreadable; every project folder counts as untrusted", path)
        return {}
    folders = document.get("folders") if isinstance(document, dict) else None
    return dict(folders) if isinstance(folders, dict) else {}


def untrusted_notice(project: ProjectFiles, state: TrustState) -> str:
    """The line that says a project's settings and extensions were left out, and how to change that."""
    files = ", ".join(project.files)
    if state is TrustState.DECLINED:
        why = "you chose not to trust this folder; in zett, /extensions trust asks again"
    else:
        why = (
            "this folder is not trusted yet" if state is TrustState.NEW else "they changed since you decided"
        )
        why += "; start zett here to review and trust them"
    return f"Not loaded from {project.root}: {files} ({why})."
