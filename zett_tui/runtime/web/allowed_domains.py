"""The domains ``web_fetch`` may reach without asking: for this session, or always in a project.

"Always" is kept in ``permissions/<digest>.web.json`` under zett's data folder (the digest of the
project's real path, as the shell and MCP rules): outside the project, so a cloned repository
cannot allow its own domains. A file that cannot be read allows nothing; the reason is kept in
``problem`` and the file is moved aside (``.corrupt``) on the next save. A domain covers that
exact host name only (``docs.python.org`` does not allow ``python.org`` nor ``evil.docs.python.org``).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable
from pathlib import Path

from zett_tui.core import paths

_VERSION = 1


class SavedDomains:
    """The domains allowed "always" in one project folder."""

    def __init__(self, project_root: Path, *, directory: Path | None = None) -> None:
        self.project_root = project_root.resolve()
        digest = hashlib.sha256(str(self.project_root).encode("utf-8")).hexdigest()[:16]
        self.path = (directory or paths.data_dir() / "permissions") / f"{digest}.web.json"
        self.problem: str | None = None
        self._lock = threading.Lock()

    def allowed(self) -> frozenset[str]:
        with self._lock:
            return self._read()

    def allow(self, domain: str) -> None:
        """Allow ``domain`` from now on in this project; ``OSError`` when the file cannot be written."""
        with self._lock:
            current = self._read()
            if self.problem is not None and self.path.exists():
                self.path.replace(self.path.with_name(self.path.name + ".corrupt"))
            domains = sorted(current | {domain})
            document = {"version": _VERSION, "project": str(self.project_root), "domains": domains}
            paths.write_private_text(self.path, json.dumps(document, indent=2) + "\n")
            self.problem = None

    def remove(self, domain: str) -> bool:
        """Stop allowing ``domain`` "always"; False when it was not allowed. ``OSError`` when the
        file cannot be written."""
        with self._lock:
            current = self._read()
            if domain not in current or self.problem is not None:
                return False
            document = {
                "version": _VERSION,
                "project": str(self.project_root),
                "domains": sorted(current - {domain}),
            }
            paths.write_private_text(self.path, json.dumps(document, indent=2) + "\n")
            return True

    def _read(self) -> frozenset[str]:
        self.problem = None
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return frozenset()
        except OSError as error:
            self.problem = f"the saved web permissions in {self.path} could not be read ({error})"
            return frozenset()
        try:
            document = json.loads(text)
            domains = document["domains"] if isinstance(document, dict) else None
            if not isinstance(domains, list) or not all(isinstance(d, str) for d in domains):
                raise ValueError("'domains' is not a list of names")
        except (ValueError, KeyError) as error:
            self.problem = f"the saved web permissions in {self.path} could not be read ({error}); none apply"
            return frozenset()
        return frozenset(d.lower() for d in domains)


class DomainPermissions:
    """What ``web_fetch`` may reach without asking: the flags' or tests' domains, the session's
    "yes", and the project's saved "always"."""

    def __init__(self, saved: SavedDomains | None, given: Iterable[str] = ()) -> None:
        self.saved = saved
        self.given = frozenset(domain.lower().rstrip(".") for domain in given)
        self._sessions: dict[str, set[str]] = {}

    def allows(self, session_id: str, domain: str) -> bool:
        if domain in self.given or domain in self._sessions.get(session_id, set()):
            return True
        return self.saved is not None and domain in self.saved.allowed()

    def allow_for_session(self, session_id: str, domain: str) -> None:
        self._sessions.setdefault(session_id, set()).add(domain)

    def forget(self, domain: str) -> bool:
        """Ask about ``domain`` again: its "always" removed, and every session's "yes"."""
        for allowed in self._sessions.values():
            allowed.discard(domain)
        return self.saved is not None and self.saved.remove(domain)
