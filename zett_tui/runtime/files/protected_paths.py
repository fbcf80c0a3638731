"""Where a resolved path lies for zett's checks: inside the project, and whether it is protected.

Protected means a change there changes what runs next without another question, so it asks in
every mode (also after "apply all for the session") and ``zett -p`` never applies it:

- anything under a ``.git`` folder (hooks, ``config`` with its fsmonitor/pager/alias commands,
  ``info/attributes``...), in the project or in a repository nested in it;
- the project's ``.zett`` folder (its extensions and settings);
- any other name that something outside the sandbox runs or loads later
  (``runtime.shell.left_behind.LATER_NAMES``: ``.envrc``, ``.mcp.json``, ``.vscode/``, ``.hg/``,
  ``.claude/``...), in any folder of the project: what a sandboxed command may not leave behind,
  an auto-approved edit may not write either;
- zett's user config folder, and the saved shell rules under its data folder.

Callers pass the real path (``Path.resolve()``: symlinks and ``..`` followed), so a link inside
the project that points elsewhere counts where it points. The folder names are compared
case-insensitively: ``.GIT`` is the same folder on macOS and Windows file systems, and asking
about such a name on Linux costs nothing.
"""

from __future__ import annotations

from pathlib import Path

from zett_tui.core import paths
from zett_tui.core.contained_read import is_inside

__all__ = ["is_inside", "protected_reason"]

_PROTECTED_FOLDERS = {".git": "git's own files (hooks, config)", ".zett": "zett's project settings"}


def _later_names() -> dict[str, str]:
    from zett_tui.runtime.shell.left_behind import LATER_NAMES

    return {
        name.casefold(): f"{name}, which something outside the sandbox runs or loads later"
        for name in LATER_NAMES
        if name.casefold() not in _PROTECTED_FOLDERS
    }


def protected_reason(path: Path, project_root: Path) -> str | None:
    """Why a change at the resolved ``path`` must always ask, or None."""
    root = project_root.resolve()
    for folder, reason in _zett_folders():
        if is_inside(path, folder):
            return reason
    if is_inside(path, root):
        later = _later_names()
        for part in path.relative_to(root).parts:
            folder_reason = _PROTECTED_FOLDERS.get(part.casefold()) or later.get(part.casefold())
            if folder_reason is not None:
                return folder_reason
    return None


def _zett_folders() -> list[tuple[Path, str]]:
    return [
        (paths.config_dir().resolve(), "zett's user settings"),
        ((paths.data_dir() / "permissions").resolve(), "zett's saved shell rules"),
    ]
