"""Workspace trust: a project's settings, extensions, commands, skills and MCP servers load only once
the user trusts it.

What a project folder (``config.project_folder``: the nearest one with ``.zett/``, ``.mcp.json``,
``.claude/commands`` or a skill folder) would load is ``.zett/config.toml``, every file under
``.zett/extensions/`` and ``.zett/hooks/`` (``__pycache__`` aside), the project files its hook
commands name (``./scripts/check.sh``) and its MCP servers' commands and arguments name
(``python3 tools/server.py``: what runs outside the sandbox is trusted with what starts it),
``.mcp.json``, and the Markdown commands and ``SKILL.md``
files of its command and skill folders. Their paths and contents are hashed together
(SHA-256); the trust store (``data_dir()/trust.json``, 0600) keeps, per folder, the hash the user
decided on and whether they trusted it. Any change to those files changes the hash, so zett asks
again; a refusal is remembered the same way, so zett does not ask at every start.

Before the user answers, and after, only what lies inside the project folder is read, and only so
much (``_Collector``): a ``.zett/extensions`` that links to ``/usr/share``, a named pipe called
``config.toml``, a 2 GB file or a link loop is left out with its reason, which the question
shows; what was left out is part of the hash, and never loads.

Not covered, on purpose: ``AGENTS.md``. It is instructions for the model, not code or settings;
everything the model does with it still goes through zett's approvals, which a project cannot
change, and any file the model reads can carry the same text. Asking about it would put a trust
question in front of nearly every repository and teach people to say yes without reading. It is
read under the same containment, though (``zett_tui.runtime.project_instructions``).

No Textual here: the app asks (``zett_tui.ui.chat.trust_prompt``), this module knows the answer.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from zett_tui.config.hooks import describe_hooks, files_named, hook_commands
from zett_tui.config.mcp_servers import describe_mcp_servers
from zett_tui.config.project_folder import (
    MCP_JSON_NAME,
    PROJECT_AGENT_FOLDERS,
    PROJECT_COMMAND_FOLDERS,
    PROJECT_DIR_NAME,
    PROJECT_SKILL_FOLDERS,
    project_root,
)
from zett_tui.core import paths
from zett_tui.core.contained_read import (
    PROJECT_FILES_MAX_BYTES,
    NotRead,
    describe_kind,
    describe_size,
    read_whole_contained,
    resolve,
)

log = logging.getLogger(__name__)

__all__ = ["PROJECT_COMMAND_FOLDERS", "PROJECT_SKILL_FOLDERS"]  # where they were first defined

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
    """What one project folder would load, what was left out of it, and its hash."""

    root: Path
    """The project folder (resolved): the one that holds ``.zett/``, ``.mcp.json``, ``.claude/``..."""
    files: tuple[str, ...]
    """Paths relative to ``root``, sorted: ``.zett/config.toml``, ``.zett/extensions/lint.py``..."""
    digest: str
    """SHA-256 over every (path, content) pair, and over what was left out and why."""
    left_out: tuple[tuple[str, str], ...] = ()
    """(path relative to ``root``, why) for each entry that was not read: a link outside the
    project, a named pipe, a file over the size limit, more files than zett reads before asking."""
    contents: Mapping[str, bytes] = field(default_factory=dict, repr=False, compare=False)
    """Each file of ``files`` as it was read for the hash: what loads is what was trusted."""

    @property
    def config_file(self) -> Path:
        return self.root / PROJECT_DIR_NAME / "config.toml"

    @property
    def config_bytes(self) -> bytes | None:
        """``.zett/config.toml`` as it was read for the hash (None when it was not read)."""
        return self.content(f"{PROJECT_DIR_NAME}/config.toml")

    def mentions(self, relative: str) -> bool:
        """Whether ``relative`` was read for the hash or left out of it (it is there either way)."""
        return relative in self.contents or any(path == relative for path, _ in self.left_out)

    def content(self, relative: str) -> bytes | None:
        """The file at ``relative`` (``.mcp.json``) as it was hashed; None when it was not read."""
        return self.contents.get(relative)

    def config_text(self) -> str | None:
        """The config file as it was hashed, as text (for showing it), or None when it was not read."""
        if self.config_bytes is None:
            return None
        return self.config_bytes.decode("utf-8", errors="replace")

    def left_out_lines(self) -> list[str]:
        """One line per entry that was not read: ``.zett/extensions: is a link to a folder outside...``."""
        return [f"{relative}: {why}; not read" for relative, why in self.left_out]

    def code_to_run(self) -> list[str]:
        """One line per extension the config names (its name, where the code is, its options) and
        per MCP server of the config and of ``.mcp.json`` (exactly what it runs or reaches).

        Best effort over the raw files, for the question; ``load_settings`` does the real checking.
        """
        text = self.config_text()
        try:
            document = tomllib.loads(text) if text else {}
        except tomllib.TOMLDecodeError:
            document = {}
            lines = ["(.zett/config.toml is not valid TOML; zett would report it and skip it)"]
        else:
            lines = []
        tables = document.get("extensions")
        for name, table in (tables if isinstance(tables, dict) else {}).items():
            if not isinstance(table, dict):
                continue
            line = _describe_extension(str(name), table)
            if line:
                lines.append(line)
        servers = document.get("mcp_servers")
        servers = servers if isinstance(servers, dict) else {}
        lines.extend(describe_mcp_servers(servers))
        lines.extend(self._mcp_json_lines(taken=servers))
        if "hooks" in document:
            lines.extend(describe_hooks(document["hooks"]))
        return lines

    def _mcp_json_lines(self, *, taken: Mapping[str, Any]) -> list[str]:
        from zett_tui.config.project_mcp_json import mcp_json_servers

        if self.content(MCP_JSON_NAME) is None:
            return []  # not there, or left out (the question lists that apart)
        servers, problems = mcp_json_servers(self, taken=taken)
        lines = []
        for server in servers:
            verb = "connects to" if server.url is not None else "runs"
            lines.append(f"MCP server {server.name} ({MCP_JSON_NAME}): {verb} {server.launch_line()}")
        return lines + [problem.replace(f"{self.root}/", "", 1) for problem in problems]


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
    """The project folder at or above ``cwd`` and what it would load; None when there is nothing to load."""
    root = project_root(cwd, env)
    if root is None:
        return None
    return project_files(root)


def project_files(root: Path) -> ProjectFiles | None:
    """What the project folder ``root`` would load, hashed now; None when it holds nothing that loads.

    Reads at most ``MAX_READ_BYTES`` in ``MAX_FILES`` files after looking at ``MAX_ENTRIES``
    folder entries, and only what lies inside ``root`` (see ``_Collector``).
    """
    root = root.resolve()
    collected = _Collector(root)
    collected.run()
    if not collected.entries and not collected.left_out:
        return None
    import hashlib  # only for a project that has something to load

    digest = hashlib.sha256()
    for relative, content in collected.entries:
        name = relative.encode("utf-8", errors="surrogateescape")
        digest.update(len(name).to_bytes(8, "big") + name + len(content).to_bytes(8, "big") + content)
    for relative, why in collected.left_out:  # after the files: a folder without any keeps its old hash
        record = f"\0left out\0{relative}\0{why}".encode("utf-8", errors="surrogateescape")
        digest.update(len(record).to_bytes(8, "big") + record)
    return ProjectFiles(
        root,
        tuple(relative for relative, _ in collected.entries),
        digest.hexdigest(),
        tuple(collected.left_out),
        dict(collected.entries),
    )


#: At most this many bytes of a project's files are read before the user answers (and ever after:
#: a file left out for its size is not loaded either).
MAX_READ_BYTES = PROJECT_FILES_MAX_BYTES
#: At most this many files are read from a project.
MAX_FILES = 256
#: At most this many entries of ``.zett/extensions/`` (and the folders below it) are looked at.
MAX_ENTRIES = 2_000
#: Folders below ``.zett/extensions/`` deeper than this are left out.
MAX_DEPTH = 8


class _Collector:
    """Reads ``root/.zett/config.toml``, ``root/.mcp.json``, ``root/.zett/extensions/**`` and the
    command and skill folders within fixed bounds.

    Every path is resolved first: whatever lies outside ``root`` (``.zett/extensions ->
    /usr/share``, a file linked to ``~/key.pem``) is left out unread, and so is anything that is
    not a regular file (a named pipe would block the read for ever), a link loop, a file bigger
    than what is left of ``MAX_READ_BYTES``, files past ``MAX_FILES``, and a folder whose entries
    would take the count past ``MAX_ENTRIES`` (as a whole, so the hash does not depend on the
    order the file system lists them in). Each left-out entry is kept with its reason: the
    question says what was not read, and the hash covers it.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.entries: list[tuple[str, bytes]] = []
        self.left_out: list[tuple[str, str]] = []
        self._bytes_left = MAX_READ_BYTES
        self._files_left = MAX_FILES
        self._entries_left = MAX_ENTRIES
        self._seen: set[Path] = set()
        self.config_bytes: bytes | None = None

    def run(self) -> None:
        zett = self.root / PROJECT_DIR_NAME
        has_zett = self._is_folder(zett)
        if has_zett:
            self.config_bytes = self._read(zett / "config.toml")
        mcp_json = self._read(self.root / MCP_JSON_NAME)  # before the folders: they cannot crowd it out
        if has_zett:
            self._walk(zett / "extensions", depth=0)
            self._walk(zett / "hooks", depth=0)
            self._read_hook_scripts()
        self._read_server_scripts(mcp_json)
        in_zett = f"{PROJECT_DIR_NAME}/"
        for folder in (*PROJECT_COMMAND_FOLDERS, *PROJECT_AGENT_FOLDERS):  # subagents: Markdown too
            if has_zett or not folder.startswith(in_zett):
                self._walk(self.root / folder, depth=0, keep=lambda name: name.endswith(".md"))
        for folder in PROJECT_SKILL_FOLDERS:  # what zett reads of a skill: its SKILL.md
            if has_zett or not folder.startswith(in_zett):
                self._walk(self.root / folder, depth=0, keep=lambda name: name == "SKILL.md")
        self.entries.sort()
        self.left_out.sort()

    def _read_hook_scripts(self) -> None:
        """The files inside the project that the config's hook commands name (``./check.sh``,
        ``python3 scripts/lint.py``): a hook's script is trusted with the config that runs it.
        A word that names nothing inside the project (``jq``, ``/usr/bin/env``) is not a project file."""
        try:
            document = tomllib.loads(self.config_bytes.decode("utf-8")) if self.config_bytes else {}
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            return
        read = {relative for relative, _ in self.entries}
        for command in hook_commands(document.get("hooks")):
            for word in files_named(command):
                path = self.root / word
                real = Path(os.path.realpath(path))
                if real != self.root and not real.is_relative_to(self.root):
                    continue
                if not real.is_file() or self._relative(real) in read:
                    continue
                read.add(self._relative(real))
                self._read(real)

    def _read_server_scripts(self, mcp_json: bytes | None) -> None:
        """The files inside the project that the project's MCP servers run (``.mcp.json``'s and
        ``.zett/config.toml``'s ``command`` and ``args``: ``python3 tools/docs_server.py``), named
        from the folder each starts in (its ``cwd``, else the project folder): a server's script is
        trusted with the entry that starts it, so a command that rewrites it makes zett ask again."""
        from zett_tui.config.mcp_servers import McpServerConfig, read_mcp_json, server_from_fields

        servers: list[McpServerConfig] = []
        if mcp_json is not None:
            try:
                servers, _problems = read_mcp_json(mcp_json.decode("utf-8-sig"), self.root / MCP_JSON_NAME)
            except UnicodeDecodeError:
                servers = []
        try:
            document = tomllib.loads(self.config_bytes.decode("utf-8")) if self.config_bytes else {}
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            document = {}
        tables = document.get("mcp_servers")
        config_file = self.root / PROJECT_DIR_NAME / "config.toml"
        for name, table in tables.items() if isinstance(tables, dict) else ():
            if isinstance(table, dict):
                command, args, cwd = table.get("command"), table.get("args"), table.get("cwd")
                fields: dict[str, Any] = {
                    "command": command if isinstance(command, str) else "",
                    "args": [arg for arg in args if isinstance(arg, str)] if isinstance(args, list) else [],
                }
                if isinstance(cwd, str):
                    fields["cwd"] = cwd
                server = server_from_fields(str(name), fields, source="project", config_file=config_file)
                if isinstance(server, McpServerConfig):
                    servers.append(server)
        for server in servers:
            words = [server.command or "", *server.args]
            folder = server.cwd if server.cwd is not None else self.root
            self._read_named(
                (folder / word for text in words if text for word in files_named(text)), base=self.root
            )

    def _read_named(self, words: Iterable[str | Path], base: Path | None = None) -> None:
        """Read each word (a path from ``base``, the project by default) that names a regular file
        inside the project and was not read yet."""
        read = {relative for relative, _ in self.entries}
        for word in words:
            real = Path(os.path.realpath((base or self.root) / word))
            if real == self.root or not real.is_relative_to(self.root) or not real.is_file():
                continue
            if self._relative(real) in read:
                continue
            read.add(self._relative(real))
            self._read(real)

    def _is_folder(self, folder: Path) -> bool:
        """Whether ``folder`` is a folder inside ``root`` (left out with its reason when it leads outside)."""
        try:
            real = resolve(folder, inside=self.root)
        except FileNotFoundError:
            return False
        except NotRead as why:
            self._leave_out(folder, str(why))
            return False
        return real.is_dir()

    def _walk(self, folder: Path, *, depth: int, keep: Callable[[str], bool] | None = None) -> None:
        try:
            real = resolve(folder, inside=self.root)
        except FileNotFoundError:
            return
        except NotRead as why:
            self._leave_out(folder, str(why))
            return
        if real in self._seen:  # a link back to a folder already read: each real folder once
            return
        self._seen.add(real)
        try:
            mode = os.lstat(real).st_mode
        except OSError as error:
            self._leave_out(folder, f"cannot be read ({error.strerror or error})")
            return
        if not stat.S_ISDIR(mode):
            self._leave_out(folder, describe_kind(mode).replace("not a file", "not a folder"))
            return
        if depth > MAX_DEPTH:
            self._leave_out(folder, f"is nested more than {MAX_DEPTH} folders deep")
            return
        names = self._list(folder)
        if names is None:
            return
        for name in sorted(names):
            path = folder / name
            try:
                is_folder = os.path.isdir(resolve(path, inside=self.root))
            except FileNotFoundError:
                continue  # removed meanwhile
            except NotRead as why:
                self._leave_out(path, str(why))
                continue
            if is_folder:
                if name != "__pycache__":  # never read: an extension runs from the bytes hashed here
                    self._walk(path, depth=depth + 1, keep=keep)
            elif keep is None or keep(name):
                self._read(path)

    def _list(self, folder: Path) -> list[str] | None:
        """The folder's names, or None (left out) when they would take the count past the limit."""
        names: list[str] = []
        try:
            with os.scandir(folder) as listing:
                for entry in listing:  # read lazily: a folder of 100,000 files is not listed whole
                    if len(names) == self._entries_left:
                        self._entries_left = 0
                        self._leave_out(
                            folder,
                            f"holds more entries than zett looks at before you trust it ({MAX_ENTRIES}); "
                            "none of it was read",
                        )
                        return None
                    names.append(entry.name)
        except OSError as error:
            self._leave_out(folder, f"cannot be read ({error.strerror or error})")
            return None
        self._entries_left -= len(names)
        return names

    def _read(self, path: Path) -> bytes | None:
        if self._files_left == 0:
            self._leave_out(path, f"is past the {MAX_FILES} files zett reads before you trust a folder")
            return None
        try:
            content = read_whole_contained(
                path,
                inside=self.root,
                max_bytes=self._bytes_left,
                limit=f"the {describe_size(MAX_READ_BYTES)} zett reads of a project's files in all",
            )
        except FileNotFoundError:
            return None
        except NotRead as why:
            self._leave_out(path, str(why))
            return None
        self._files_left -= 1
        self._bytes_left -= len(content)
        self.entries.append((self._relative(path), content))
        return content

    def _leave_out(self, path: Path, why: str) -> None:
        log.warning("project file %s left out: %s", path, why)
        self.left_out.append((self._relative(path), why))

    def _relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()


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
    notice = f"Not loaded from {project.root}: {files or 'nothing readable'} ({why})."
    if project.left_out:
        notice += (
            " Left out, not read: " + "; ".join(f"{path} {reason}" for path, reason in project.left_out) + "."
        )
    return notice
