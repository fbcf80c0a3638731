"""What zett tells a user to look up in the README is there: every "the README's “Section”" in
zett's messages names a heading of README.md."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_headings() -> set[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return {match.group(1).strip() for match in re.finditer(r"^#+\s+(.+)$", text, re.MULTILINE)}


def test_every_readme_section_zett_names_exists() -> None:
    named: list[tuple[str, str]] = []
    for source in sorted((ROOT / "zett_tui").rglob("*.py")):
        text = source.read_text(encoding="utf-8")
        named += [(source.name, match) for match in re.findall(r"README's “([^”]+)”", text)]
    assert named, "no README section is named anywhere: the pattern above is out of date"
    headings = readme_headings()
    assert [(where, section) for where, section in named if section not in headings] == []


def test_every_command_line_option_is_in_the_readme() -> None:
    from zett_tui.cli import build_parser

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    options = [
        option
        for action in build_parser()._actions
        for option in action.option_strings
        if option.startswith("--") and option not in ("--help", "--version")
    ]
    assert "--read-only" in options
    assert [option for option in options if not re.search(rf"(?<![\w-]){option}(?![\w-])", readme)] == []


def test_the_readme_key_table_has_every_app_wide_key() -> None:
    from zett_tui.ui.app import ZettApp
    from zett_tui.ui.key_names import key_label

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = "\n".join(line for line in readme.splitlines() if line.startswith("| "))
    keys = [key_label(key) for binding in ZettApp.BINDINGS for key in binding.key.split(",")]
    assert "Ctrl+Q" in keys
    assert [key for key in keys if f"| {key} " not in table and f"| {key} /" not in table] == []
