"""Skills: SKILL.md front matter, hostile skill folders, and what load_skill returns."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zett_tui.config.trust import project_files, remember
from zett_tui.runtime.skills_extension import SkillsExtension
from zett_tui.workspace.extension_folders import load_workspace_files
from zett_tui.workspace.markdown_commands import Origin
from zett_tui.workspace.skills import load_skills


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def skill_file(folder: Path, name: str, *, description: str = "Does a thing", body: str = "Do it.") -> Path:
    return write(folder / name / "SKILL.md", f"---\nname: {name}\ndescription: {description}\n---\n{body}\n")


def test_a_skill_has_its_name_description_body_and_files(tmp_path: Path) -> None:
    write(
        tmp_path / "pdf" / "SKILL.md",
        "---\nname: pdf\ndescription: >\n  Fill in PDF forms\n  and extract text\n---\nRun scripts/fill.py\n",
    )
    write(tmp_path / "pdf" / "scripts" / "fill.py", "print()")
    write(tmp_path / "pdf" / ".hidden", "x")
    [skill], problems = load_skills([Origin("user", tmp_path)])
    assert problems == []
    assert (skill.name, skill.description) == ("pdf", "Fill in PDF forms and extract text")
    assert skill.body.strip() == "Run scripts/fill.py"
    assert skill.files() == ["scripts/fill.py"]
    loaded = SkillsExtension([skill]).body_of("pdf")
    assert "Run scripts/fill.py" in loaded and str(skill.folder / "scripts" / "fill.py") in loaded
    assert "pdf: Fill in PDF forms" in SkillsExtension([skill]).catalog()
    with pytest.raises(ValueError, match="no skill 'nope'"):
        SkillsExtension([skill]).body_of("nope")


def test_hostile_skill_folders_are_one_problem_each(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    skill_file(outside, "stolen")
    write(outside / "key.pem", "PRIVATE")
    folder = tmp_path / "skills"
    skill_file(folder, "good")
    (folder / "linked").symlink_to(outside / "stolen")
    write(folder / "leak" / "SKILL.md", "").unlink()
    (folder / "leak" / "SKILL.md").symlink_to(outside / "key.pem")
    write(folder / "huge" / "SKILL.md", "---\nname: huge\ndescription: d\n---\n" + "x" * 70_000)
    write(folder / "latin" / "SKILL.md", b"---\nname: latin\ndescription: caf\xe9\n---\nbody")
    write(folder / "nameless" / "SKILL.md", "---\ndescription: no name\n---\nbody")
    skill_file(folder, "odd", description="d").write_text("---\nname: ../../etc\ndescription: d\n---\nb")
    write(folder / "empty" / "SKILL.md", "---\nname: empty\ndescription: d\n---\n\n")
    write(folder / "notaskill" / "README.md", "just a folder")
    skills, problems = load_skills([Origin("user", folder)])
    assert [skill.name for skill in skills] == ["good"]
    lines = [str(problem) for problem in problems]
    assert len(lines) == 7, lines
    for name in ("linked", "leak", "huge", "latin", "nameless", "odd", "empty"):
        assert any(f"/{name}" in line for line in lines), name
    assert all("\n" not in line for line in lines)


def test_project_skills_load_only_when_trusted(
    project_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (project_dir / ".zett").mkdir()
    skill_file(project_dir / ".agents" / "skills", "deploy")
    skill_file(project_dir / ".claude" / "skills", "review")
    env = dict(os.environ)
    assert load_workspace_files(project_dir, env).skills == []
    project = project_files(project_dir)
    assert project is not None
    assert ".agents/skills/deploy/SKILL.md" in project.files
    remember(project, trusted=True)
    skills = load_workspace_files(project_dir, env).skills
    assert sorted(skill.name for skill in skills) == ["deploy", "review"]
    assert {skill.origin.kind for skill in skills} == {"project"}


def test_a_skill_named_like_a_command_or_built_in_is_not_offered_as_one(tmp_path: Path) -> None:
    from zett_tui.ui.chat.commands.builtin import builtin_commands
    from zett_tui.ui.chat.commands.registry import CommandList
    from zett_tui.ui.chat.workspace_commands import slash_commands
    from zett_tui.workspace.extension_folders import WorkspaceFiles
    from zett_tui.workspace.markdown_commands import load_commands

    skill_file(tmp_path / "skills", "help")
    skill_file(tmp_path / "skills", "deploy")
    write(tmp_path / "commands" / "deploy.md", "deploy by hand")
    skills, _ = load_skills([Origin("user", tmp_path / "skills")])
    commands, _ = load_commands([Origin("user", tmp_path / "commands")])
    offered, taken = slash_commands(WorkspaceFiles(commands, skills, []))
    assert offered["deploy"].source == "user command" and "a command has that name" in taken[0]
    clashes = CommandList(builtin_commands).add(offered)
    assert [clash.name for clash in clashes] == ["help"]


def test_control_characters_in_a_description_are_dropped(tmp_path: Path) -> None:
    skill_file(tmp_path, "colour", description="\x1b[31mred\x07 text")
    [skill], _ = load_skills([Origin("user", tmp_path)])
    assert skill.description == "[31mred text"
