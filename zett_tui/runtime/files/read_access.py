"""Which real paths the model's file tools may read without asking, and what a "yes" covers.

Every decision is made on the real path (``os.path.realpath``: every symlink, ``..``,
``/proc/self``, ``/dev/fd/N`` followed), never on the path the model wrote:

- inside the project folder (its real path), reads are free;
- anything else needs a grant: the user's "yes" in the dialog (once, or for the session), or
  ``--allow-read PATH`` in ``zett -p``;
- a grant of a path covers that path and, when it is a folder, everything below it, **except**
  the secret places (``secret_places``: credential stores, zett's own folders, any process's
  ``environ``), which a grant covers only when it was made for that place itself or something
  inside it. A "yes" for ``~`` or ``/`` does not reach ``~/.ssh``; a "yes" for ``~/.ssh`` does.
  The same holds inside the project: ``~/.ssh`` asks even when the project is the home folder.
- ``exempt`` paths (the session's plan file, zett's tool-output folder: files zett itself tells
  the model to read) are free like the project.

No I/O beyond ``realpath``; no asking here: ``read_gate`` asks and keeps the session's grants.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from zett_tui.core.contained_read import is_inside
from zett_tui.runtime.files.secret_places import SecretPlace, secret_place_of, secret_places

__all__ = ["ReadAccess", "ReadGrant", "ReadVerdict", "is_inside", "real_path"]


def real_path(path: str | Path, cwd: Path) -> Path:
    """The real path a file tool would open for ``path`` (``~`` expanded, relative to ``cwd``)."""
    candidate = Path(os.path.expanduser(os.fspath(path)))
    if not candidate.is_absolute():
        candidate = cwd / candidate
    return Path(os.path.realpath(candidate))


@dataclass(frozen=True, slots=True)
class ReadGrant:
    """Permission to read the real path ``path`` and, if it is a folder, what is below it."""

    path: Path

    def covers(self, real: Path, place: SecretPlace | None) -> bool:
        """Whether this grant covers ``real`` (which lies in the secret ``place``, if any)."""
        if not is_inside(real, self.path):
            return False
        # A grant from above never reaches into a secret place: only one made inside it does.
        return place is None or is_inside(self.path, place.root)


@dataclass(frozen=True, slots=True)
class ReadVerdict:
    """What the access rules say about one real path."""

    real: Path
    allowed: bool
    inside_project: bool
    #: The secret place it lies in: asks even under a broad grant.
    place: SecretPlace | None
    #: Allowed only by a grant (the user's "yes" for the session, ``--allow-read``, a "once").
    granted: bool = False

    @property
    def why(self) -> str:
        """Why it asks, in words (empty when it is allowed)."""
        if self.allowed:
            return ""
        if self.place is not None:
            return f"it holds {self.place.what}; this always asks, even after a broad “yes”"
        return "it is outside the project folder"


@dataclass
class ReadAccess:
    """The rules for one project: its real root, the grants made so far, the exempt paths."""

    project_root: Path
    grants: list[ReadGrant] = field(default_factory=list)
    exempt: Callable[[Path], bool] = field(default=lambda _real: False)

    def __post_init__(self) -> None:
        self.project_root = Path(os.path.realpath(self.project_root))

    def verdict(
        self, real: Path, extra: Sequence[ReadGrant] = (), places: Sequence[SecretPlace] | None = None
    ) -> ReadVerdict:
        """Whether the real path ``real`` may be read now (``extra``: grants for this call only)."""
        place = secret_place_of(real, places)
        inside = is_inside(real, self.project_root)
        if self.exempt(real):
            return ReadVerdict(real, True, inside, None)
        if inside and place is None:
            return ReadVerdict(real, True, inside, place)
        granted = any(grant.covers(real, place) for grant in (*self.grants, *extra))
        return ReadVerdict(real, granted, inside, place, granted=granted)

    def allows(self, real: Path, extra: Sequence[ReadGrant] = ()) -> bool:
        return self.verdict(real, extra).allowed

    def checker(self, extra: Sequence[ReadGrant] = ()) -> Callable[[Path], bool]:
        """``allows`` for many paths in a row (a glob walk): the secret places are found once."""
        places = secret_places()
        return lambda real: self.verdict(real, extra, places).allowed

    def grant(self, real: Path) -> ReadGrant:
        """Keep a grant for ``real`` (and what is below it) from now on."""
        grant = ReadGrant(real)
        if grant not in self.grants:
            self.grants.append(grant)
        return grant

    @classmethod
    def from_paths(cls, project_root: Path, allowed: Iterable[str | Path], cwd: Path) -> ReadAccess:
        """The rules with a grant for each of ``allowed`` (``--allow-read``), resolved from ``cwd``."""
        return cls(project_root, [ReadGrant(real_path(path, cwd)) for path in allowed])


def scope_of_grant(real: Path, *, is_folder: bool, place: SecretPlace | None) -> str:
    """What "for this session" covers, in words for the dialog and the transcript."""
    what = "this folder and everything in it" if is_folder else "this file only"
    if place is None and is_folder:
        return f"{what} (credential stores and process environments inside it still ask)"
    return what
