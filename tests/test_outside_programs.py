"""What a sandboxed command may write, as ``outside_programs`` answers it, with many folders known.

A long ``zett acp`` (and a test process) registers a folder per project it has served: the answer
for a path must stay exact however many are known, and a lookup must not walk them all.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zett_tui.core import outside_programs


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outside_programs, "_registered", {})


def test_inside_a_registered_folder_is_writable_and_a_lookalike_neighbour_is_not(
    tmp_path: Path, fresh_registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    projects = [tmp_path / f"p{n}" for n in range(2000)]
    for project in projects:
        (project / "bin").mkdir(parents=True)
    outside_programs.register_writable(projects)
    outside_programs.register_writable(projects[:10])  # again: kept once
    assert outside_programs.writable_roots().count(projects[3].resolve()) == 1
    (tmp_path.parent / f"{tmp_path.name}-neighbour").mkdir(exist_ok=True)
    assert outside_programs.is_writable_by_sandbox(projects[1999] / "bin")
    assert outside_programs.is_writable_by_sandbox(projects[0])
    assert outside_programs.is_writable_by_sandbox(tmp_path / "p12" / "bin" / "git")
    assert not outside_programs.is_writable_by_sandbox(tmp_path.parent / f"{tmp_path.name}-neighbour")
    assert not outside_programs.is_writable_by_sandbox("/usr/bin")
    link = tmp_path.parent / f"{tmp_path.name}-link"
    link.unlink(missing_ok=True)
    link.symlink_to(projects[5])
    assert outside_programs.is_writable_by_sandbox(link / "bin")  # after its links


def test_a_lookup_does_not_compare_the_path_with_every_known_folder(
    tmp_path: Path, fresh_registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every git zett runs builds a safe PATH: with thousands of folders known, comparing each PATH
    entry with each folder took most of a checkpoint's time (13% of the test suite's CPU)."""
    monkeypatch.chdir(tmp_path)
    outside_programs.register_writable(tmp_path / f"p{n}" for n in range(2000))
    compared: list[Path] = []
    original = Path.is_relative_to

    def counting(self: Path, other: str | os.PathLike[str]) -> bool:
        compared.append(self)
        return original(self, other)

    monkeypatch.setattr(Path, "is_relative_to", counting)
    path = os.pathsep.join(["/usr/local/bin", "/usr/bin", "/bin", str(tmp_path / "p7" / "bin")])
    assert outside_programs.safe_path(path) == "/usr/local/bin:/usr/bin:/bin"
    assert len(compared) < 100
