"""The MCP tools the user allowed "always" in one project folder, kept beside its shell rules.

``mcp__SERVER__TOOL`` names in ``permissions/<digest>.mcp.json`` under zett's data folder (the
shell rules' file is ``<digest>.json``, the same digest of the project's real path): outside the
project, so a cloned repository cannot allow its own tools. A file that cannot be read or
understood allows nothing, and the reason is kept in ``problem``; it is moved aside
(``.corrupt``) on the next save. The file is read again when another zett changed it.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

from zett_tui.core import paths

_VERSION = 1


class McpRules:
    def __init__(self, project_root: Path, *, directory: Path | None = None) -> None:
        self.project_root = project_root.resolve()
        digest = hashlib.sha256(str(self.project_root).encode("utf-8")).hexdigest()[:16]
        self.path = (directory or paths.data_dir() / "permissions") / f"{digest}.mcp.json"
        self.problem: str | None = None
        self._allowed: frozenset[str] = frozenset()
        self._stamp: tuple[int, int] | None = None
        self._lock = threading.Lock()

    def allowed(self) -> frozenset[str]:
        with self._lock:
            self._refresh()
            return self._allowed

    def allow(self, key: str) -> None:
        """Allow ``key`` from now on in this project; ``OSError`` when the file cannot be written."""
        with self._lock:
            self._refresh()
            if self.problem is not None and self.path.exists():
                self.path.replace(self.path.with_name(self.path.name + ".corrupt"))
            allowed = self._allowed | {key}
            document = {"version": _VERSION, "project": str(self.project_root), "allowed": sorted(allowed)}
            paths.write_private_text(self.path, json.dumps(document, indent=2) + "\n")
            self._allowed, self.problem, self._stamp = frozenset(allowed), None, self._file_stamp()

    def _file_stamp(self) -> tuple[int, int] | None:
        try:
            info = self.path.stat()
        except OSError:
            return None
        return (info.st_mtime_ns, info.st_size)

    def _refresh(self) -> None:
        stamp = self._file_stamp()
        if stamp == self._stamp:
            return
        self._stamp, self._allowed, self.problem = stamp, frozenset(), None
        if stamp is None:
            return
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
            names = document["allowed"] if isinstance(document, dict) else None
            if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
                raise ValueError("'allowed' is not a list of tool names")
        except (OSError, ValueError, KeyError) as error:
            self.problem = f"the saved MCP permissions in {self.path} could not be read ({error}); none apply"
            return
        self._allowed = frozenset(names)
