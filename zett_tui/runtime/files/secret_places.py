"""Where secrets live on this machine: credential stores, zett's own folders, process environments.

One list, so that every check that must treat them specially (the read gate, and anything else
that hides or asks about them) names the same places. Each place is given by its real path
(``os.path.realpath``: a ``~/.ssh`` that is a link to ``/vault/ssh`` is ``/vault/ssh``), computed
when asked, so a changed ``HOME`` or ``XDG_*`` counts at once.

A process's environment is reached as ``/proc/<pid>/environ`` (also ``/proc/self/environ``,
``/proc/<pid>/task/<tid>/environ``, ``/dev/fd/..`` tricks: all of them resolve to one of the
first two shapes), so it is recognised by the shape of the real path.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from zett_tui.core import paths

__all__ = ["CREDENTIAL_STORES", "SecretPlace", "secret_place_of", "secret_places"]

#: Paths under the home folder that hold credentials, and what they hold.
CREDENTIAL_STORES: tuple[tuple[str, str], ...] = (
    (".ssh", "SSH keys"),
    (".aws", "AWS credentials"),
    (".gnupg", "GnuPG keys"),
    (".config/gcloud", "Google Cloud credentials"),
    (".azure", "Azure credentials"),
    (".kube", "Kubernetes credentials"),
    (".docker/config.json", "Docker registry credentials"),
    (".netrc", "stored passwords (.netrc)"),
    (".git-credentials", "git credentials"),
)
ENVIRON_WHAT = "a process's environment (API keys, tokens)"


@dataclass(frozen=True, slots=True)
class SecretPlace:
    """A folder or file that holds secrets: its real path and what it holds, in words."""

    root: Path
    what: str


def secret_places() -> list[SecretPlace]:
    """The credential stores under the home folder and zett's own folders (not environments)."""
    places = [SecretPlace(_real(Path.home() / relative), what) for relative, what in CREDENTIAL_STORES]
    places += [
        SecretPlace(_real(paths.config_dir()), "zett's settings (API keys)"),
        SecretPlace(_real(paths.data_dir()), "zett's sessions and history"),
        SecretPlace(_real(paths.state_dir()), "zett's logs and prompt history"),
    ]
    return places


def secret_place_of(real: Path, places: Sequence[SecretPlace] | None = None) -> SecretPlace | None:
    """The secret place the real path ``real`` lies in (or is), or None.

    ``places`` is ``secret_places()`` computed once by a caller that asks about many paths.
    """
    if _is_environ(real):
        return SecretPlace(real, ENVIRON_WHAT)
    text = str(real)
    for place in secret_places() if places is None else places:
        root = str(place.root)
        if text == root or text.startswith(root.rstrip("/") + "/"):
            return place
    return None


def _is_environ(real: Path) -> bool:
    parts = real.parts
    if len(parts) < 4 or parts[:2] != ("/", "proc") or parts[-1] != "environ":
        return False
    return len(parts) == 4 or (len(parts) == 6 and parts[3] == "task")


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))
