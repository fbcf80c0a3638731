"""The project's files for the composer's ``@`` finder: listing (respecting ``.gitignore``) and fuzzy
matching fast enough to run on every keystroke over 50,000 paths. No Textual here.

Listing uses a hardened ``git ls-files`` (``safe_git``) inside a repository (fast, exact ``.gitignore`` semantics) and otherwise
walks the tree, honouring the ``.gitignore`` at the root (matched by ``pathspec``, as git would).

Matching is a subsequence match: each character of the query must appear in the path, in order.
The filter runs as one compiled regular expression per path (C speed); only a short list of the most
promising candidates is scored in Python, preferring matches in the file name, contiguous runs and
matches at the start of a word, then shorter paths.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import compress, islice, repeat
from operator import itemgetter
from pathlib import Path

import pathspec

from zett_tui.workspace.safe_git import run_safe_git

#: Folders that a walk never enters (a git listing already leaves out what .gitignore hides).
SKIPPED_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".tox"})
#: A walk stops after this many files, so starting zett in a huge folder stays usable.
MAX_FILES = 200_000
#: How many candidates are scored in full; the rest are ranked only by cheap tiers.
SHORTLIST = 1500
#: Characters before a match that make it the start of a word.
_WORD_STARTS = frozenset("/_-. ")

#: Asked now and then during a long listing: True stops it.
Cancelled = Callable[[], bool]


def never() -> bool:
    return False


# -- listing -------------------------------------------------------------------------------------


def list_project_files(root: Path, cancelled: Cancelled = never, *, max_files: int = MAX_FILES) -> list[str]:
    """Relative paths (with ``/``) of the files under ``root`` that are not ignored."""
    listed = _git_files(root)
    if listed is None:
        listed = list(walk_files(root, cancelled, max_files=max_files))
    return listed[:max_files]


def _git_files(root: Path) -> list[str] | None:
    """The files git knows or would add under ``root``; None when git is missing or this is no repo
    zett may run git on (``safe_git``: nothing of the project's git configuration runs)."""
    result = run_safe_git(root, ["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
    if result is None:
        return None
    if result.returncode != 0:
        return None
    names = os.fsdecode(result.stdout).split("\0")
    # A path can appear twice (an unmerged file is listed once per stage); files deleted from the
    # work tree but still in the index are dropped, since inserting them would point nowhere.
    unique = dict.fromkeys(name for name in names if name)
    return [name for name in unique if os.path.lexists(os.path.join(root, name))]


class IgnoreRules:
    """The patterns of a ``.gitignore`` with git's own semantics (``pathspec``'s ``GitIgnoreSpec``:
    anchoring, ``**``, folder-only patterns, negation where the last match wins, escapes)."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._spec = pathspec.GitIgnoreSpec.from_lines(lines)

    def __bool__(self) -> bool:
        return len(self._spec) > 0

    def ignores(self, relative: str, is_dir: bool) -> bool:
        return self._spec.match_file(f"{relative}/" if is_dir else relative)


def parse_gitignore(text: str) -> IgnoreRules:
    """The rules of a ``.gitignore`` (a later rule wins)."""
    return IgnoreRules(text.splitlines())


def is_ignored(rules: IgnoreRules, relative: str, is_dir: bool) -> bool:
    """Whether ``relative`` (a ``/``-separated path from the root) is ignored by ``rules``."""
    return rules.ignores(relative, is_dir)


def walk_files(root: Path, cancelled: Cancelled = never, *, max_files: int = MAX_FILES) -> Iterator[str]:
    """Files under ``root`` (not following symlinked folders), skipping ignored and bulky folders.
    Stops early when ``cancelled()`` turns true (checked once per folder)."""
    try:
        rules = parse_gitignore((root / ".gitignore").read_text(encoding="utf-8", errors="replace"))
    except OSError:
        rules = IgnoreRules(())
    count = 0
    pending = [""]
    while pending and not cancelled():
        prefix = pending.pop()
        try:
            entries = sorted(os.scandir(os.path.join(root, prefix) if prefix else root), key=lambda e: e.name)
        except OSError:
            continue
        subfolders = []
        for entry in entries:
            relative = f"{prefix}{entry.name}"
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir and entry.name in SKIPPED_DIRS:
                continue
            if rules and is_ignored(rules, relative, is_dir):
                continue
            if is_dir:
                subfolders.append(relative + "/")
                continue
            yield relative
            count += 1
            if count >= max_files:
                return
        pending.extend(reversed(subfolders))


# -- matching ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileMatch:
    path: str
    score: float
    #: Indices in ``path`` of the characters that matched the query (for highlighting).
    positions: tuple[int, ...]


def _subsequence_pattern(query: str) -> re.Pattern[str]:
    """``[^a]*a[^b]*b…``: with ``match`` this is one linear pass, with no backtracking."""
    parts = [f"[^{re.escape(char)}]*{re.escape(char)}" for char in query]
    return re.compile("".join(parts), re.DOTALL)


@dataclass
class FileIndex:
    """Paths prepared once for fast repeated searches; remembers the last search to narrow the next.

    The paths are kept sorted by length, so every list of hits is already shortest first and
    "the shortest N" is a slice.
    """

    paths: list[str]
    _lower: list[str] = field(init=False, repr=False)
    _names: list[str] = field(init=False, repr=False)
    _last: tuple[str, list[int]] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.paths = sorted(self.paths, key=lambda path: (len(path), path))
        self._lower = [path.lower() for path in self.paths]
        self._names = [path.rpartition("/")[2] for path in self._lower]

    def __len__(self) -> int:
        return len(self.paths)

    def forget_last_search(self) -> None:
        self._last = None

    def search(self, query: str, limit: int = 50) -> list[FileMatch]:
        """The best ``limit`` paths for ``query``, best first; with no query, the shortest paths."""
        needle = "".join(query.lower().split())
        if not needle:
            return [FileMatch(path, 0.0, ()) for path in self.paths[:limit]]
        hits = self._filter(needle)
        shortlist = self._shortlist(needle, hits)
        scored = [(score_path(needle, self._lower[index], self._names[index]), index) for index in shortlist]
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [
            FileMatch(self.paths[index], score, match_positions(needle, self._lower[index]))
            for score, index in scored[:limit]
        ]

    def _filter(self, needle: str) -> list[int]:
        """Indices of the paths that contain ``needle`` as a subsequence (narrowing the last search)."""
        if self._last is not None and needle.startswith(self._last[0]):
            candidates: Sequence[int] = self._last[1]
        else:
            candidates = range(len(self._lower))
        texts = _pick(self._lower, candidates)
        if len(needle) == 1:
            found: Iterable[object] = map(str.__contains__, texts, repeat(needle))
        else:
            found = map(_subsequence_pattern(needle).match, texts)
        hits = list(compress(candidates, found))
        self._last = (needle, hits)
        return hits

    def _shortlist(self, needle: str, hits: list[int]) -> list[int]:
        """At most ``SHORTLIST`` hits, shortest first within each tier: the query in the file
        name, then anywhere in the path as one piece, then scattered. Lazy: a common query stops
        after the first tier has enough."""
        if len(hits) <= SHORTLIST:
            return hits
        in_name = self._tier(self._names, hits, needle, SHORTLIST)
        if len(in_name) == SHORTLIST:
            return in_name
        taken = set(in_name)
        rest = [index for index in hits if index not in taken] if in_name else hits
        in_path = self._tier(self._lower, rest, needle, SHORTLIST - len(in_name))
        picked = in_name + in_path
        if len(picked) < SHORTLIST:
            taken.update(in_path)
            picked += list(islice((index for index in rest if index not in taken), SHORTLIST - len(picked)))
        return picked

    @staticmethod
    def _tier(texts: list[str], indices: list[int], needle: str, count: int) -> list[int]:
        """The first ``count`` of ``indices`` whose text contains ``needle`` (C-level iterators)."""
        contains = map(str.__contains__, map(texts.__getitem__, indices), repeat(needle))
        return list(islice(compress(indices, contains), count))


def _pick(items: list[str], indices: Sequence[int]) -> Sequence[str]:
    if isinstance(indices, range) and indices == range(len(items)):
        return items
    if not indices:
        return ()
    if len(indices) == 1:
        return (items[indices[0]],)
    return itemgetter(*indices)(items)


def score_path(needle: str, path: str, name: str) -> float:
    """Higher is better. ``path`` and ``name`` (its last part) are lower-case; ``needle`` matches
    ``path`` as a subsequence. Three bands that never overlap: the query whole in the file name
    (300 and up), whole elsewhere in the path (200 and up), scattered (below 100)."""
    depth_penalty = path.count("/") * 0.5 + len(path) * 0.05
    found = name.find(needle)
    if found >= 0:
        score = 300.0 + (40 if found == 0 else 20 if name[found - 1] in _WORD_STARTS else 0)
        stem = name.rpartition(".")[0] or name
        if needle in (name, stem):
            score += 50
        return score - depth_penalty
    found = path.find(needle)
    if found >= 0:
        return 200.0 + (20 if found == 0 or path[found - 1] in _WORD_STARTS else 0) - depth_penalty
    return _scattered_score(needle, path, len(path) - len(name)) - depth_penalty


def _scattered_score(needle: str, path: str, name_start: int) -> float:
    """0 to 100 for a scattered match: contiguous runs, word starts, and characters in the file name
    (all in the name, covering most of it, is best). The match is placed as late as it can start,
    so it prefers the file name over folders."""
    positions = _latest_positions(needle, path)
    bonus = 0
    previous = -2
    for position in positions:
        if position == previous + 1:
            bonus += 3
        if position == 0 or path[position - 1] in _WORD_STARTS:
            bonus += 3
        if position >= name_start:
            bonus += 2
        previous = position
    score = 80.0 * bonus / (8 * len(needle))
    if positions[0] >= name_start:
        score += 20.0 * len(needle) / (len(path) - name_start)
    return score


def _latest_positions(needle: str, path: str) -> list[int]:
    """Positions of ``needle`` in ``path``, matched from the end backwards (right-most match)."""
    positions = []
    end = len(path)
    for char in reversed(needle):
        end = path.rfind(char, 0, end)
        positions.append(end)
    positions.reverse()
    return positions


def match_positions(needle: str, path: str) -> tuple[int, ...]:
    """Which characters to highlight: a substring in the file name, else in the path, else scattered."""
    name_start = path.rfind("/") + 1
    found = path.find(needle, name_start)
    if found < 0:
        found = path.find(needle)
    if found >= 0:
        return tuple(range(found, found + len(needle)))
    return tuple(_latest_positions(needle, path))


# -- a cached listing ----------------------------------------------------------------------------


@dataclass
class ProjectFiles:
    """The listing of one project, rebuilt when older than ``max_age`` seconds."""

    root: Path
    max_age: float = 5.0
    lister: Callable[[Path, Cancelled], list[str]] = list_project_files
    clock: Callable[[], float] = time.monotonic
    index: FileIndex | None = None
    built_at: float = 0.0

    @property
    def stale(self) -> bool:
        return self.index is None or self.clock() - self.built_at > self.max_age

    def rebuild(self, cancelled: Cancelled = never) -> FileIndex | None:
        """Blocking: list the files again (call from a thread); None (and nothing kept) if cancelled."""
        started = self.clock()
        paths = self.lister(self.root, cancelled)
        if cancelled():
            return None
        index = FileIndex(paths)
        self.index, self.built_at = index, started
        return index


def quote_path(path: str) -> str:
    """The path as inserted into the prompt: quoted when it has spaces (or quotes) in it."""
    if not any(char.isspace() for char in path) and '"' not in path:
        return path
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def paths_of(matches: Iterable[FileMatch]) -> list[str]:
    return [match.path for match in matches]
