"""Skills: folders holding a ``SKILL.md`` (front matter ``name`` and ``description``, instructions
in the body, other files beside it), found in the user's and a trusted project's skill folders.

Only a skill's name and description reach the model up front; its body (and the list of its
files) when the model loads it (``zett_tui.runtime.skills_extension``). Each ``SKILL.md`` is read
as the Markdown commands are (``contained_folder``): a regular file inside its folder, at most
64 KB, UTF-8; any that does not load is one ``Problem``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from zett_tui.core.contained_read import NotRead, resolve
from zett_tui.workspace.contained_folder import Problem, read_text, real_folder
from zett_tui.workspace.front_matter import FrontMatterError, split_front_matter
from zett_tui.workspace.markdown_commands import NAME_PART, Origin

SKILL_FILE = "SKILL.md"
#: At most this many skill folders are looked at in one skills folder.
MAX_SKILLS = 200
#: At most this many of a skill's other files are listed for the model.
MAX_LISTED_FILES = 100
_DESCRIPTION_CHARS = 1024


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    body: str
    folder: Path
    """The skill's real folder: the model reads its files from here."""
    origin: Origin

    def files(self) -> list[str]:
        """The skill's other files, relative to its folder (sorted, links out of it left out)."""
        found: list[str] = []
        for directory, folders, names in os.walk(self.folder):
            folders[:] = sorted(name for name in folders if not name.startswith("."))
            for name in sorted(names):
                path = Path(directory) / name
                if name.startswith(".") or path == self.folder / SKILL_FILE:
                    continue
                try:
                    resolve(path, inside=self.folder)
                except (FileNotFoundError, NotRead):
                    continue
                found.append(path.relative_to(self.folder).as_posix())
                if len(found) >= MAX_LISTED_FILES:
                    return found
        return found


def load_skills(folders: Iterable[Origin]) -> tuple[list[Skill], list[Problem]]:
    """The skills of ``folders`` in order (the first of a name wins; a later one is a problem)."""
    skills: dict[str, Skill] = {}
    problems: list[Problem] = []
    for origin in folders:
        root = real_folder(origin.folder, inside=origin.inside, problems=problems)
        if root is None:
            continue
        try:
            names = sorted(entry.name for entry in os.scandir(root) if not entry.name.startswith("."))
        except OSError as error:
            problems.append(Problem(origin.folder, f"cannot be read ({error.strerror or error})"))
            continue
        if len(names) > MAX_SKILLS:
            problems.append(
                Problem(origin.folder, f"holds more than {MAX_SKILLS} entries; the rest was not read")
            )
            names = names[:MAX_SKILLS]
        for name in names:
            skill = _load_one(origin, root, name, problems)
            if skill is None:
                continue
            if skill.name in skills:
                first = skills[skill.name].folder
                problems.append(
                    Problem(
                        origin.folder / name / SKILL_FILE,
                        f"skill {skill.name!r} is already defined in {first}",
                    )
                )
                continue
            skills[skill.name] = skill
    return list(skills.values()), problems


def _load_one(origin: Origin, root: Path, name: str, problems: list[Problem]) -> Skill | None:
    shown = origin.folder / name / SKILL_FILE
    try:
        folder = resolve(root / name, inside=root)
    except FileNotFoundError:
        return None
    except NotRead as why:
        problems.append(Problem(origin.folder / name, str(why).replace("the project", "its folder")))
        return None
    if not folder.is_dir() or not os.path.lexists(folder / SKILL_FILE):
        return None
    refused = origin.untrusted(shown)
    if refused is not None:
        problems.append(refused)
        return None
    try:
        document = split_front_matter(read_text(folder / SKILL_FILE, inside=folder))
    except (NotRead, FrontMatterError) as why:
        problems.append(Problem(shown, str(why)))
        return None
    skill_name = document.fields.get("name", "").strip()
    description = " ".join(document.fields.get("description", "").split())
    description = "".join(char for char in description if char.isprintable())[:_DESCRIPTION_CHARS]
    if not skill_name or not description:
        problems.append(Problem(shown, "its front matter needs a name and a description"))
        return None
    if not NAME_PART.match(skill_name):
        problems.append(
            Problem(shown, f"skill name {skill_name[:40]!r} can only have letters, digits, '-', '_' and '.'")
        )
        return None
    if not document.body.strip():
        problems.append(Problem(shown, "has no instructions below its front matter"))
        return None
    return Skill(skill_name, description, document.body, folder, origin)


def skill_prompt(skill: Skill, arguments: str) -> str:
    """What ``/NAME args`` sends: a request to load and follow the skill, then the arguments."""
    request = f"\n\n{arguments.strip()}" if arguments.strip() else ""
    return (
        f'Use the skill "{skill.name}": load it with load_skill first, then follow its instructions.{request}'
    )
