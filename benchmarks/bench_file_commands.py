"""Markdown commands and skills: ``python -m benchmarks.bench_file_commands [--commands N] [--skills N]``.

Writes N command files (a quarter in subfolders, with front matter) into a user and a project
command folder, and N skill folders (each a ``SKILL.md`` and three other files) into a user and a
project skill folder, trusts the project, and prints the median of a few runs of
``load_workspace_files``: what the chat waits for, in a thread, after the trust question and before
the agent is built. Also the trust hash of that project (``project_files``), which start-up computes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _fill(root: Path, commands: int, skills: int) -> None:
    for index in range(commands):
        folder = f"group{index % 4}/" if index % 4 == 0 else ""
        text = f"---\ndescription: Command {index}\nargument-hint: [FILE]\n---\nDo task {index} on $1.\n" * 3
        _write(root / "config" / "zett" / "commands" / f"{folder}cmd{index}.md", text)
        _write(root / "project" / ".claude" / "commands" / f"{folder}pcmd{index}.md", text)
    for index in range(skills):
        for prefix, base in (
            ("", root / "home" / ".agents" / "skills"),
            ("p", root / "project" / ".zett" / "skills"),
        ):
            name = f"{prefix}skill-{index}"
            _write(
                base / name / "SKILL.md",
                f"---\nname: {name}\ndescription: Skill {index}\n---\n" + "step\n" * 200,
            )
            for other in ("template.md", "scripts/run.py", "reference/notes.md"):
                _write(base / name / other, "x\n" * 100)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commands", type=int, default=200)
    parser.add_argument("--skills", type=int, default=50)
    parser.add_argument("--runs", type=int, default=7)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        os.environ.update(
            XDG_CONFIG_HOME=str(root / "config"), XDG_DATA_HOME=str(root / "data"), HOME=str(root / "home")
        )
        from zett_tui.config.trust import project_files, remember
        from zett_tui.workspace.extension_folders import load_workspace_files

        _fill(root, options.commands, options.skills)
        project = root / "project"
        hashing: list[float] = []
        for _ in range(options.runs):
            started = time.perf_counter()
            files = project_files(project)
            hashing.append(time.perf_counter() - started)
        assert files is not None
        remember(files, trusted=True)
        loading: list[float] = []
        for _ in range(options.runs):
            started = time.perf_counter()
            loaded = load_workspace_files(project, dict(os.environ))
            loading.append(time.perf_counter() - started)
        print(
            f"{len(loaded.commands)} commands, {len(loaded.skills)} skills, {len(loaded.problems)} problems"
        )
        print(
            f"trust hash of the project ({len(files.files)} files): {statistics.median(hashing) * 1000:.1f} ms"
        )
        print(f"load_workspace_files (hash again + read all):  {statistics.median(loading) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
