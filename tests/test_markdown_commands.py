"""Markdown commands: names from paths, front matter, $ARGUMENTS/$1..$9, and hostile files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zett_tui.config import trust
from zett_tui.config.trust import project_files, remember
from zett_tui.core import paths
from zett_tui.workspace.extension_folders import load_workspace_files
from zett_tui.workspace.front_matter import FrontMatterError, split_front_matter
from zett_tui.workspace.markdown_commands import Origin, expand, load_commands


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def names(folder: Path) -> tuple[list[str], list[str]]:
    commands, problems = load_commands([Origin("user", folder)])
    return [command.name for command in commands], [str(problem) for problem in problems]


def test_arguments_fill_the_placeholders_split_like_a_shell() -> None:
    body = "Fix $1 in $2 ($ARGUMENTS); $9 is empty"
    assert (
        expand(body, 'issue-7 "src/a b.py"') == 'Fix issue-7 in src/a b.py (issue-7 "src/a b.py");  is empty'
    )


def test_an_argument_holding_a_placeholder_is_not_expanded_again() -> None:
    assert expand("say $1 and $2", "$2 two") == "say $2 and two"


def test_an_unmatched_quote_splits_on_blanks() -> None:
    assert expand("$1|$2", "it's fine") == "it's|fine"


def test_a_body_without_placeholders_gets_the_arguments_appended() -> None:
    assert expand("Review the diff.", "carefully") == "Review the diff.\n\nARGUMENTS: carefully"
    assert expand("Review the diff.", "") == "Review the diff."


def test_front_matter_fields_and_body() -> None:
    document = split_front_matter(
        '---\ndescription: "Run the tests"\nargument-hint: [file]\nallowed-tools:\n  - Bash\n---\nRun $1\n'
    )
    assert document.fields["description"] == "Run the tests"
    assert document.fields["argument-hint"] == "[file]"
    assert document.body == "Run $1"


@pytest.mark.parametrize("text", ["---\ndescription: x\nRun", "---\nnot a key value line\n---\nbody"])
def test_bad_front_matter_is_an_error(text: str) -> None:
    with pytest.raises(FrontMatterError):
        split_front_matter(text)


def test_subfolders_give_namespaced_names_and_front_matter_the_description(tmp_path: Path) -> None:
    write(
        tmp_path / "review.md",
        "---\ndescription: Review the change\nargument-hint: [PR]\nmodel: x:y\n---\nGo",
    )
    write(tmp_path / "frontend" / "test.md", "# Test the frontend\n\nnpm test $1")
    write(tmp_path / "notes.txt", "not a command")
    commands, problems = load_commands([Origin("user", tmp_path)])
    assert problems == []
    by_name = {command.name: command for command in commands}
    assert sorted(by_name) == ["frontend:test", "review"]
    assert by_name["review"].description == "Review the change"
    assert by_name["review"].argument_hint == "[PR]" and by_name["review"].model == "x:y"
    assert by_name["frontend:test"].description == "Test the frontend"  # the first line without front matter


def test_hostile_files_are_one_problem_each_and_the_rest_load(tmp_path: Path) -> None:
    outside = write(tmp_path / "secret.txt", "private key")
    folder = tmp_path / "commands"
    write(folder / "good.md", "fine")
    (folder / "leak.md").symlink_to(outside)
    write(folder / "huge.md", "x" * (65 * 1024))
    write(folder / "latin.md", b"caf\xe9")
    write(folder / "bad front.md", "hello")
    write(folder / "broken.md", "---\ndescription: never closed\n")
    os.mkfifo(folder / "pipe.md")
    write(tmp_path / "elsewhere" / "x.md", "from outside")
    (folder / "linked").symlink_to(tmp_path / "elsewhere")
    loaded, problems = names(folder)
    assert loaded == ["good"]
    reasons = {Path(line.split(": ", 1)[0]).name: line.split(": ", 1)[1] for line in problems}
    assert set(reasons) == {
        "leak.md",
        "huge.md",
        "latin.md",
        "bad front.md",
        "broken.md",
        "pipe.md",
        "linked",
    }
    assert "folder outside its folder" in reasons["linked"]
    assert "outside" in reasons["leak.md"]
    assert "64 KB" in reasons["huge.md"]
    assert "UTF-8" in reasons["latin.md"]
    assert "letters, digits" in reasons["bad front.md"]
    assert "closing ---" in reasons["broken.md"]


def test_a_project_command_folder_linking_out_of_the_project_does_not_load(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    write(elsewhere / "x.md", "hidden")
    project = tmp_path / "repo"
    (project / ".zett").mkdir(parents=True)
    (project / ".zett" / "commands").symlink_to(elsewhere)
    commands, problems = load_commands([Origin("project", project / ".zett" / "commands", inside=project)])
    assert commands == [] and "outside the project" in str(problems[0])


def test_the_first_folder_wins_a_name(tmp_path: Path) -> None:
    write(tmp_path / "user" / "deploy.md", "mine")
    write(tmp_path / "project" / "deploy.md", "theirs")
    commands, problems = load_commands(
        [Origin("user", tmp_path / "user"), Origin("project", tmp_path / "project", inside=tmp_path)]
    )
    assert [command.body for command in commands] == ["mine"]
    assert "already defined" in str(problems[0])


def test_project_commands_load_only_once_the_project_is_trusted(project_dir: Path) -> None:
    write(project_dir / ".zett" / "commands" / "build.md", "build it")
    write(project_dir / ".claude" / "commands" / "lint.md", "lint it")
    write(paths.config_dir() / "commands" / "mine.md", "my own")
    env = dict(os.environ)
    untrusted = load_workspace_files(project_dir, env)
    assert [command.name for command in untrusted.commands] == ["mine"]
    project = project_files(project_dir)
    assert project is not None and ".claude/commands/lint.md" in project.files  # what the question shows
    remember(project, trusted=True)
    trusted = load_workspace_files(project_dir, env)
    assert sorted(command.name for command in trusted.commands) == ["build", "lint", "mine"]
    assert {command.origin.kind for command in trusted.commands} == {"user", "project"}
    write(project_dir / ".claude" / "commands" / "new.md", "added after the trust")
    assert [command.name for command in load_workspace_files(project_dir, env).commands] == [
        "mine"
    ]  # asks again


def test_a_file_past_what_the_trust_question_read_does_not_load(
    project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trust, "MAX_FILES", 2)
    for name in ("a", "b", "c"):
        write(project_dir / ".zett" / "commands" / f"{name}.md", f"command {name}")
    project = project_files(project_dir)
    assert project is not None and len(project.files) == 2 and project.left_out
    remember(project, trusted=True)
    files = load_workspace_files(project_dir, dict(os.environ))
    assert [command.name for command in files.commands] == ["a", "b"]
    assert any(
        "c.md" in str(problem) and "not among the files you trusted" in str(problem)
        for problem in files.problems
    )


def test_a_file_name_with_control_characters_or_bad_bytes_is_shown_safely(tmp_path: Path) -> None:
    folder = tmp_path / "commands"
    write(folder / "clear\x1b[2J.md", "x")
    write(Path(os.fsdecode(bytes(folder) + b"/caf\xe9.md")), "x")
    loaded, problems = names(folder)
    assert loaded == []
    assert len(problems) == 2
    for line in problems:
        line.encode("utf-8")  # no lone surrogates
        assert all(char.isprintable() for char in line) and "letters, digits" in line
