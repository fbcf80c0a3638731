"""The branch a project is on, for the session index and the status line."""

from __future__ import annotations

from pathlib import Path


def git_branch(cwd: Path) -> str | None:
    """The checked-out branch, read from ``.git/HEAD`` (no subprocess); None outside a repository."""
    from zett_tui.core.contained_read import NotRead, read_contained

    for folder in (cwd, *cwd.parents):
        head = folder / ".git" / "HEAD"
        if head.is_file():
            try:  # a cloned repository's HEAD may be a link to /proc/self/environ, or 5 GB long
                data = read_contained(head, inside=folder, max_bytes=256).data
            except (OSError, NotRead):
                return None
            text = data.decode("utf-8", errors="replace").strip()
            prefix = "ref: refs/heads/"
            return text[len(prefix) :] if text.startswith(prefix) else text[:12]
        dot_git = folder / ".git"
        if dot_git.is_dir() and not dot_git.is_symlink() and not any(dot_git.iterdir()):
            continue  # zett's empty placeholder in a project without a repository (git passes it over)
        if dot_git.exists():
            return None
    return None
