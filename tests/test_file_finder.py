"""The composer's pure parts: file listing and fuzzy matching, paste placeholders, completion
contexts, and the external editor's command and temporary file."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from zett_tui.ui.chat.completion import CompletionContext, find_context
from zett_tui.ui.external_editor import edit_text, editor_command
from zett_tui.ui.pastes import PasteStore
from zett_tui.workspace.file_finder import (
    FileIndex,
    ProjectFiles,
    is_ignored,
    list_project_files,
    parse_gitignore,
    quote_path,
    walk_files,
)

# -- listing -----------------------------------------------------------------------------------


def touch(root: Path, *relatives: str) -> None:
    for relative in relatives:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")


def test_gitignore_rules_follow_the_simple_git_semantics() -> None:
    rules = parse_gitignore("# comment\n*.log\n!keep.log\n/dist\nbuild/\ndocs/*.tmp\n\n")
    assert is_ignored(rules, "a.log", False) and is_ignored(rules, "deep/b.log", False)
    assert not is_ignored(rules, "keep.log", False)  # a later negation wins
    assert is_ignored(rules, "dist", True) and not is_ignored(rules, "src/dist", True)  # anchored
    assert is_ignored(rules, "build", True) and is_ignored(rules, "src/build", True)
    assert not is_ignored(rules, "build", False)  # "build/" is for folders only
    assert is_ignored(rules, "docs/x.tmp", False) and not is_ignored(rules, "x.tmp", False)


#: Patterns whose meaning the old hand-written matcher got wrong or did not know.
GIT_PATTERNS = "docs/*.tmp\n**/logs\nsrc/**/gen\n*.py[co]\n\\#notes\nbuild/*\n!build/keep\n/only-top\n"
GITIGNORE_CASES = [
    ("docs/x.tmp", False),
    ("docs/deep/x.tmp", False),  # ``*`` does not cross a ``/``
    ("logs", True),
    ("a/b/logs", True),
    ("src/gen", True),
    ("src/a/b/gen", True),
    ("other/gen", True),
    ("m.pyc", False),
    ("m.py", False),
    ("#notes", False),
    ("build/out.js", False),
    ("build/keep", False),
    ("only-top", False),
    ("sub/only-top", False),
]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_gitignore_rules_match_what_git_itself_ignores(tmp_path: Path) -> None:
    """Outside a repository the walk decides with ``pathspec``: it must agree with git's own
    ``check-ignore`` on the same patterns."""
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text(GIT_PATTERNS)
    rules = parse_gitignore(GIT_PATTERNS)
    for relative, is_dir in GITIGNORE_CASES:
        asked = relative + "/" if is_dir else relative
        git = subprocess.run(["git", "check-ignore", "-q", "--no-index", asked], cwd=tmp_path, check=False)
        assert is_ignored(rules, relative, is_dir) == (git.returncode == 0), relative


def test_the_walk_honours_gitignore_and_skips_bulky_folders(tmp_path: Path) -> None:
    touch(
        tmp_path,
        "src/app.py",
        "src/app.pyc",
        "notes/keep.md",
        "dist/bundle.js",
        "node_modules/x/index.js",
        ".venv/lib/site.py",
        "src/__pycache__/app.cpython-311.pyc",
        ".git/HEAD",
    )
    (tmp_path / ".gitignore").write_text("*.pyc\n/dist\n")
    assert sorted(walk_files(tmp_path)) == [".gitignore", "notes/keep.md", "src/app.py"]
    assert len(list(walk_files(tmp_path, max_files=2))) == 2
    assert list(walk_files(tmp_path, lambda: True)) == []  # cancelled before the first folder


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_in_a_git_repository_git_decides_what_is_ignored(tmp_path: Path) -> None:
    touch(tmp_path, "tracked.py", "new file.txt", "skip/me.txt", "sub/deep/ignored.bin", "gone.py")
    (tmp_path / ".gitignore").write_text("skip/\n")
    (tmp_path / "sub" / ".gitignore").write_text("*.bin\n")  # nested rules: only git knows these
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "tracked.py", "gone.py"], cwd=tmp_path, check=True)
    (tmp_path / "gone.py").unlink()  # still in the index, not on disk: not offered
    assert sorted(list_project_files(tmp_path)) == [
        ".gitignore",
        "new file.txt",
        "sub/.gitignore",
        "tracked.py",
    ]


def test_the_listing_is_rebuilt_only_when_stale() -> None:
    now = [100.0]
    calls = []

    def lister(root: Path, cancelled: object) -> list[str]:
        calls.append(root)
        return ["a.py"]

    files = ProjectFiles(Path("/project"), max_age=5.0, lister=lister, clock=lambda: now[0])
    assert files.stale
    files.rebuild()
    assert not files.stale and files.index is not None and files.index.paths == ["a.py"]
    now[0] += 6
    assert files.stale
    assert files.rebuild(lambda: True) is None and files.index.paths == ["a.py"]  # cancelled: kept
    assert len(calls) == 2


# -- matching ----------------------------------------------------------------------------------

PATHS = [
    "README.md",
    "src/zett/ui/widgets/composer.py",
    "src/zett/ui/widgets/completion_menu.py",
    "src/zett/ui/composer_notes.md",
    "tests/test_composer.py",
    "docs/components/overview/selection/reference.md",
    "src/zett/ui/app.py",
    "src/zett/app/config.py",
    "My Documents/Read Me.txt",
]


def best(index: FileIndex, query: str, count: int = 1) -> list[str]:
    return [match.path for match in index.search(query, limit=count)]


def test_fuzzy_matching_prefers_the_file_name_and_contiguous_runs() -> None:
    index = FileIndex(PATHS)
    assert best(index, "composer.py", 2) == ["src/zett/ui/widgets/composer.py", "tests/test_composer.py"]
    assert best(index, "compmenu") == ["src/zett/ui/widgets/completion_menu.py"]
    assert best(index, "ui/app") == ["src/zett/ui/app.py"]
    assert best(index, "readme", 2) == ["README.md", "My Documents/Read Me.txt"]  # case-insensitive
    assert best(index, "zqx") == []
    assert set(best(index, "", 100)) == set(PATHS)


def test_typing_narrows_the_previous_search_and_backspace_widens_it_again() -> None:
    index = FileIndex(PATHS)
    assert len(index.search("co", limit=100)) > len(index.search("com", limit=100))
    assert best(index, "comp", 100) != []
    assert best(index, "wdg", 100) == [
        "src/zett/ui/widgets/composer.py",
        "src/zett/ui/widgets/completion_menu.py",
    ]
    assert "README.md" in best(index, "r", 100)  # not narrowed from "wdg"


def test_positions_mark_the_matched_characters() -> None:
    [match] = FileIndex(["src/ui/composer.py"]).search("comp")
    assert "".join(match.path[position] for position in match.positions) == "comp"
    assert match.positions[0] == len("src/ui/")


def test_a_common_letter_over_many_paths_returns_the_best_short_list() -> None:
    paths = [f"pkg{n % 50}/module_{n}.py" for n in range(20_000)] + ["e.py"]
    index = FileIndex(paths)
    found = index.search("e", limit=10)
    assert found[0].path == "e.py" and len(found) == 10


def test_paths_with_spaces_or_quotes_are_quoted_when_inserted() -> None:
    assert quote_path("src/app.py") == "src/app.py"
    assert quote_path("My Documents/a b.txt") == '"My Documents/a b.txt"'
    assert quote_path('say "hi".txt') == '"say \\"hi\\".txt"'


# -- completion contexts -----------------------------------------------------------------------


def test_contexts_for_commands_and_files() -> None:
    assert find_context(["/he"], (0, 3)) == CompletionContext("command", "he", (0, 0), (0, 3))
    assert find_context(["/"], (0, 1)) == CompletionContext("command", "", (0, 0), (0, 1))
    assert find_context(["/help me"], (0, 8)) is None  # arguments: no menu
    assert find_context(["/etc/hosts"], (0, 10)) is None and find_context(["//x"], (0, 3)) is None
    assert find_context(["/he", "more"], (0, 3)) is None  # only a one-line prompt is a command
    assert find_context(["see @src/ap now"], (0, 11)) == CompletionContext("file", "src/ap", (0, 4), (0, 11))
    assert find_context(["see @src/ap"], (0, 7)) == CompletionContext("file", "sr", (0, 4), (0, 11))
    assert find_context(["mail me@host"], (0, 12)) is None
    assert find_context(["a", "@x"], (1, 2)) == CompletionContext("file", "x", (1, 0), (1, 2))


# -- pastes ------------------------------------------------------------------------------------


def test_pastes_collapse_expand_and_compact_again() -> None:
    store = PasteStore(max_lines=10, max_chars=1000)
    big = "".join(f"row {n}\t \n" for n in range(30))
    assert store.is_large(big) and not store.is_large("one\ntwo") and store.is_large("x" * 1001)
    first = store.add(big)
    second = store.add("y" * 2000)
    assert (first, second) == ("[Pasted 30 lines #1]", "[Pasted 2,000 chars #2]")
    prompt = f"a {first} b {second}"
    assert store.expand(prompt) == f"a {big} b {'y' * 2000}"
    assert store.compact(store.expand(prompt) + " edited") == prompt + " edited"
    assert store.expand("[Pasted 31 lines #1]") == "[Pasted 31 lines #1]"  # edited: not the paste
    assert store.span_ending_at(prompt, 2 + len(first)) == (2, 2 + len(first))
    assert store.span_starting_at(prompt, 2) == (2, 2 + len(first))
    assert store.span_ending_at(prompt, 3) is None
    store.keep_only([f"only {second}"])
    assert store.text_of(1) is None and store.text_of(2) == "y" * 2000


def test_pasted_line_endings_become_newlines_and_nothing_else_changes() -> None:
    store = PasteStore()
    placeholder = store.add("a\r\nb\rc\t  \n" * 20)
    assert store.expand(placeholder) == "a\nb\nc\t  \n" * 20
    assert placeholder == "[Pasted 60 lines #1]"


def test_a_paste_that_looks_like_a_placeholder_is_not_expanded_twice() -> None:
    store = PasteStore()
    inner = store.add("z" * 2000)
    outer = store.add(("see " + inner + "\n") * 11)
    assert store.expand(outer) == ("see " + inner + "\n") * 11


# -- external editor ---------------------------------------------------------------------------


def test_the_editor_comes_from_visual_then_editor_then_vi() -> None:
    assert editor_command({"VISUAL": "code --wait", "EDITOR": "nano"}) == ["code", "--wait"]
    assert editor_command({"VISUAL": " ", "EDITOR": "nano -w"}) == ["nano", "-w"]
    assert editor_command({}) == ["vi"]
    assert editor_command({"EDITOR": "'/opt/my editor/bin/ed' -x"}) == ["/opt/my editor/bin/ed", "-x"]


def test_edit_text_uses_a_private_file_and_removes_it(tmp_path: Path) -> None:
    seen: dict[str, object] = {}
    editor = tmp_path / "ed.sh"
    editor.write_text("#!/bin/sh\n")
    editor.chmod(0o700)

    def run(command: list[str]) -> int:
        path = Path(command[-1])
        seen["command"] = command[:-1]
        seen["mode"] = stat.S_IMODE(path.stat().st_mode)
        seen["text"] = path.read_text()
        path.write_text("new text\n")
        seen["path"] = path
        return 0

    outcome = edit_text("old\ttext  ", run, {"EDITOR": f"{editor} -n"})
    assert outcome.text == "new text"  # the newline the editor added is dropped
    assert seen["command"] == [str(editor), "-n"] and seen["mode"] == 0o600 and seen["text"] == "old\ttext  "
    assert isinstance(seen["path"], Path) and not seen["path"].exists()
    kept = edit_text("ends with newline\n", lambda command: 0, {"EDITOR": str(editor)})
    assert kept.text == "ends with newline\n"


def test_edit_text_reports_a_failed_or_missing_editor(tmp_path: Path) -> None:
    editor = tmp_path / "ed.sh"
    editor.write_text("#!/bin/sh\n")
    editor.chmod(0o700)
    failed = edit_text("x", lambda command: 2, {"EDITOR": str(editor)})
    assert failed.text is None and "code 2" in failed.problem
    missing = edit_text("x", lambda command: 0, {"EDITOR": "zett-no-such-editor"})
    assert missing.text is None and "'zett-no-such-editor' was not found" in missing.problem

    def crash(command: list[str]) -> int:
        raise PermissionError(13, "Permission denied")

    broken = edit_text("x", crash, {"EDITOR": str(editor)})
    assert broken.text is None and "Permission denied" in broken.problem
    assert not any(name.startswith("zett-prompt-") for name in os.listdir(Path(editor).parent))
