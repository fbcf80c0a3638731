"""An untrusted folder is read only inside itself: AGENTS.md, and ``.zett/`` before and after trust.

Every attack is made for real: symlinks to a private key under a fake HOME and to
``/proc/self/environ``, named pipes (``os.mkfifo``), sparse multi-gigabyte files, link loops, a
folder of ten times the entries zett looks at. What was read is measured from the kernel's own count of bytes this
process read (``/proc/self/io``), so no reading path can escape the measurement, and a named
pipe is watched by a thread that would release (and report) a reader stuck on it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from zett_agent.extensions.agents_md import AgentsMdExtension
from zett_agent.messages import SystemMessage

from tests.fakes.host import Collector, make_host
from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import notices, screen_text, submit, wait_for, wait_ready
from zett_tui.config import trust
from zett_tui.config.settings import ExtensionConfig
from zett_tui.core import paths
from zett_tui.core.contained_read import NotRead, read_contained
from zett_tui.entry.startup import prepare_launch
from zett_tui.runtime.events import Notice
from zett_tui.runtime.extensions.loader import ExtensionLoadError, load_module_from_file
from zett_tui.runtime.extensions.registry import load_extensions
from zett_tui.runtime.project_instructions import ProjectInstructionsExtension, project_folder
from zett_tui.ui.app import ZettApp
from zett_tui.ui.modals.choice_dialog import ChoiceDialog

assert hashlib  # imported before any measurement: a first import reads files too

PRIVATE_KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAcanarycanary\n"
OUTSIDE_LINK = "is a link to a file outside the project"
CONFIG = '[ui]\ntheme = "project-theme"\n'
#: What trust may read in all, with room for the trust store and Python's own small reads.
TRUST_READ_BOUND = trust.MAX_READ_BYTES + 256 * 1024


@pytest.fixture
def home(isolated_dirs: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake HOME holding a private key (and the isolated config, data and state folders)."""
    isolated_dirs.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HOME", str(isolated_dirs))
    (isolated_dirs / "key.pem").write_text(PRIVATE_KEY)
    return isolated_dirs


def environ_canary() -> str:
    """The longest entry of this process's real ``/proc/self/environ`` (what a link would leak)."""
    entries = Path("/proc/self/environ").read_bytes().split(b"\0")
    return max(entries, key=len).decode("utf-8", errors="replace")


def bytes_read() -> int:
    """Bytes this process has read through read-like system calls so far (every thread, every API)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


@contextlib.contextmanager
def measured() -> Iterator[list[int]]:
    """``with measured() as read:`` ... ``read[0]`` is the bytes read inside the block."""
    result = [0]
    before = bytes_read()
    yield result
    result[0] = bytes_read() - before


@contextlib.contextmanager
def pipe_watch(fifo: Path, timeout: float = 10.0) -> Iterator[None]:
    """Fail (instead of hanging) when something inside the block waits on the named pipe ``fifo``.

    A writer can open a pipe without blocking only while a reader has it open: once ``timeout``
    has passed, this opens the write end whenever a reader waits (which releases it with an end
    of file), and the test fails.
    """
    done = threading.Event()
    stuck: list[bool] = []

    def watch() -> None:
        wait = timeout
        while not done.wait(wait):
            wait = 0.05  # past the bound: release every reader that comes, until the block ends
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                continue  # no reader: nobody is waiting on it
            stuck.append(True)
            os.close(fd)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
    assert not stuck, f"something opened {fifo} and waited on it"


def system_text(model: ScriptedModel, request: int = 0) -> str:
    messages = model.requests[request].messages
    return "\n".join(
        m.content for m in messages if isinstance(m, SystemMessage) and isinstance(m.content, str)
    )


def warnings_of(sink: Collector) -> list[str]:
    return [notice.text for notice in sink.of(Notice) if notice.level == "warning"]


class ExtensionsNotes:
    """A ``ProjectInstructionsExtension`` on ``project`` that keeps what it tells the user."""

    def __init__(self, directory: Path, **kwargs: object) -> None:
        self.told: list[str] = []
        self.extension = ProjectInstructionsExtension(
            directory, notify=lambda text, level: self.told.append(text), **kwargs
        )

    def instructions(self) -> str:
        return self.extension.instructions()


# -- AGENTS.md: the model's first request ----------------------------------------------------------


async def test_the_first_request_has_the_projects_instructions_and_nothing_from_outside(
    home: Path, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project_dir / ".git").mkdir()  # the work tree: zett runs in a subfolder of it
    (project_dir / "AGENTS.md").symlink_to(home / "key.pem")
    sub = project_dir / "sub"
    (sub / "work").mkdir(parents=True)
    (sub / "AGENTS.md").symlink_to("/proc/self/environ")
    (sub / "work" / "AGENTS.md").write_text("Use tabs in sub/work.\n")
    (project_dir.parent / "AGENTS.md").write_text("Instructions from the folder above the repository.\n")
    monkeypatch.chdir(sub / "work")

    model = ScriptedModel(text_step("ok"), text_step("ok again"))
    host = await make_host(model, cwd=sub / "work")
    first, second = Collector(), Collector()
    await host.run_turn("hello", first)
    await host.run_turn("and again", second)
    await host.aclose()

    sent = system_text(model)
    assert "# Project instructions" in sent and "Use tabs in sub/work." in sent
    for request in (0, 1):
        text = system_text(model, request)
        assert "PRIVATE KEY" not in text and "canarycanary" not in text
        assert environ_canary() not in text
        assert "folder above the repository" not in text
    assert warnings_of(first) == [
        f"AGENTS.md {OUTSIDE_LINK}; not read.",
        f"sub/AGENTS.md {OUTSIDE_LINK}; not read.",
    ]
    assert warnings_of(second) == []  # once per session


async def test_the_instructions_message_keeps_zett_agents_shape_and_place(project_dir: Path) -> None:
    (project_dir / "AGENTS.md").write_text("  Run the tests with pytest.\n\n")
    ours = ProjectInstructionsExtension(project_dir).instructions()
    assert ours == AgentsMdExtension(project_dir, include_parents=False).instructions()
    assert ours.startswith("# Project instructions\n")

    model = ScriptedModel(text_step("ok"))
    host = await make_host(model)
    await host.run_turn("hi", Collector())
    await host.aclose()
    messages = model.requests[0].messages
    assert isinstance(messages[0], SystemMessage) and messages[0].content == host.options.system_prompt
    assert isinstance(messages[1], SystemMessage) and messages[1].content == ours  # right after the prompt


def _outside_file(home: Path, project: Path) -> None:
    (project / "AGENTS.md").symlink_to(home / "key.pem")


def _relative_escape(home: Path, project: Path) -> None:
    (project / "AGENTS.md").symlink_to(os.path.relpath(home / "key.pem", project))


def _environ(home: Path, project: Path) -> None:
    (project / "AGENTS.md").symlink_to("/proc/self/environ")


def _fifo(home: Path, project: Path) -> None:
    os.mkfifo(project / "AGENTS.md")


def _folder(home: Path, project: Path) -> None:
    (project / "AGENTS.md").mkdir()


def _loop(home: Path, project: Path) -> None:
    (project / "AGENTS.md").symlink_to("loop.md")
    (project / "loop.md").symlink_to("AGENTS.md")


def _dangling(home: Path, project: Path) -> None:
    (project / "AGENTS.md").symlink_to(home / "gone.md")


def _device(home: Path, project: Path) -> None:
    try:
        os.mknod(project / "AGENTS.md", stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero's numbers
    except PermissionError:
        pytest.skip("no permission to make a device node here")


def _linked_folder(home: Path, project: Path) -> None:
    (home / "elsewhere").mkdir()
    (home / "elsewhere" / "AGENTS.md").write_text(PRIVATE_KEY)
    (project / "sub").mkdir()
    (project / "sub" / "AGENTS.md").symlink_to(home / "elsewhere" / "AGENTS.md")


def _not_utf8(home: Path, project: Path) -> None:
    (project / "AGENTS.md").write_bytes(b"caf\xe9 " + PRIVATE_KEY.encode())


@pytest.mark.parametrize(
    ("attack", "told"),
    [
        (_outside_file, f"AGENTS.md {OUTSIDE_LINK}; not read."),
        (_relative_escape, f"AGENTS.md {OUTSIDE_LINK}; not read."),
        (_environ, f"AGENTS.md {OUTSIDE_LINK}; not read."),
        (_fifo, "AGENTS.md is a named pipe, not a file; not read."),
        (_folder, "AGENTS.md is a folder, not a file; not read."),
        (_loop, "AGENTS.md is a link that loops back on itself; not read."),
        (_dangling, "AGENTS.md is a link to a file that does not exist; not read."),
        (_device, "AGENTS.md is a device, not a file; not read."),
        (_not_utf8, "AGENTS.md is not UTF-8 text; not read."),
    ],
)
def test_an_instruction_file_that_is_not_the_projects_own_text_is_skipped_and_named(
    home: Path, project_dir: Path, attack, told: str
) -> None:
    attack(home, project_dir)
    notes = ExtensionsNotes(project_dir)
    fifo = project_dir / "AGENTS.md"
    with pipe_watch(fifo) if stat.S_ISFIFO(os.lstat(fifo).st_mode) else contextlib.nullcontext():
        text = notes.instructions()
        notes.instructions()  # every request reads again; the user is told once
    assert text == ""
    assert notes.told == [told]


def test_a_subfolder_linked_outside_the_project_gives_nothing(home: Path, project_dir: Path) -> None:
    _linked_folder(home, project_dir)
    (project_dir / ".git").mkdir()
    notes = ExtensionsNotes(project_dir / "sub")
    assert notes.instructions() == ""
    assert notes.told == [f"sub/AGENTS.md {OUTSIDE_LINK}; not read."]


def test_a_huge_instruction_file_is_read_only_as_far_as_the_cap(project_dir: Path) -> None:
    path = project_dir / "AGENTS.md"
    path.write_text("Rule one: small commits.\n" + "x" * 40_000)
    with open(path, "r+b") as handle:
        handle.truncate(5 << 30)  # 5 GB, sparse
    extension = ProjectInstructionsExtension(project_dir)
    with measured() as read:
        text = extension.instructions()
    assert read[0] <= 4 * extension.max_chars + 4 + 64 * 1024
    assert "Rule one: small commits." in text
    assert text.endswith("[... truncated at 32000 characters; read the file for the rest]")


def test_a_character_cut_by_the_byte_limit_is_not_taken_for_bad_text(project_dir: Path) -> None:
    (project_dir / "AGENTS.md").write_text("a" + "😀" * 40_000)  # the byte limit falls inside one
    notes = ExtensionsNotes(project_dir)
    text = notes.instructions()
    assert notes.told == [] and "a😀😀" in text and "truncated at 32000 characters" in text


def test_the_users_own_instructions_come_first_and_may_be_a_link(home: Path, project_dir: Path) -> None:
    dotfiles = home / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "AGENTS.md").write_text("Answer in British English.\n")
    paths.config_dir().mkdir(parents=True)
    (paths.config_dir() / "AGENTS.md").symlink_to(dotfiles / "AGENTS.md")
    (project_dir / "AGENTS.md").write_text("Project rule.\n")
    text = ExtensionsNotes(project_dir).instructions()
    assert text.index("Answer in British English.") < text.index("Project rule.")


def test_the_users_own_file_still_must_be_a_file(home: Path, project_dir: Path) -> None:
    paths.config_dir().mkdir(parents=True)
    own = paths.config_dir() / "AGENTS.md"
    os.mkfifo(own)
    notes = ExtensionsNotes(project_dir)
    with pipe_watch(own):
        assert notes.instructions() == ""
    assert notes.told == [f"{own} is a named pipe, not a file; not read."]


def test_the_project_ends_at_the_work_tree_the_user_owns_and_below_home(home: Path, tmp_path: Path) -> None:
    repo = home / "code" / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / ".git").mkdir()
    assert project_folder((repo / "src").resolve(), home.resolve()) == repo.resolve()

    loose = home / "code" / "loose"
    loose.mkdir()
    (home / ".git").mkdir()  # a dotfiles repository in the home folder is not every folder's project
    (home / "AGENTS.md").write_text("home instructions")
    assert project_folder(loose.resolve(), home.resolve()) == loose.resolve()
    assert "home instructions" not in ExtensionsNotes(loose, home=home).instructions()

    shared = tmp_path / "shared"
    (shared / "mine").mkdir(parents=True)
    (shared / ".git").mkdir()
    (shared / "AGENTS.md").write_text("planted by someone else")
    os.chown(shared / ".git", 54321, 54321)  # a .git someone else owns, as git's safe.directory
    if os.lstat(shared / ".git").st_uid == os.geteuid():
        pytest.skip("cannot give a folder away here")
    assert project_folder((shared / "mine").resolve(), home.resolve()) == (shared / "mine").resolve()
    assert "planted" not in ExtensionsNotes(shared / "mine", home=home).instructions()


# -- .zett/ before the trust answer ----------------------------------------------------------------


def _zett_extensions_to_usr_share(home: Path, zett: Path) -> str:
    (zett / "extensions").symlink_to("/usr/share")
    return ".zett/extensions: is a link to a folder outside the project"


def _zett_itself_to_usr_share(home: Path, zett: Path) -> str:
    # .zett is made by the fixture; replace it with a link
    for child in zett.iterdir():
        child.unlink()
    zett.rmdir()
    zett.symlink_to("/usr/share")
    return ".zett: is a link to a folder outside the project"


def _huge_config(home: Path, zett: Path) -> str:
    with open(zett / "config.toml", "r+b") as handle:
        handle.truncate(2 << 30)  # 2 GB, sparse
    return ".zett/config.toml: is 2 GB, over the 1 MB zett reads of a project's files in all"


def _fifo_config(home: Path, zett: Path) -> str:
    (zett / "config.toml").unlink()
    os.mkfifo(zett / "config.toml")
    return ".zett/config.toml: is a named pipe, not a file"


def _config_to_key(home: Path, zett: Path) -> str:
    (zett / "config.toml").unlink()
    (zett / "config.toml").symlink_to(home / "key.pem")
    return f".zett/config.toml: {OUTSIDE_LINK}"


def _extension_to_environ(home: Path, zett: Path) -> str:
    (zett / "extensions").mkdir()
    (zett / "extensions" / "steal.py").symlink_to("/proc/self/environ")
    return f".zett/extensions/steal.py: {OUTSIDE_LINK}"


def _file_loop(home: Path, zett: Path) -> str:
    (zett / "extensions").mkdir()
    (zett / "extensions" / "a.py").symlink_to("b.py")
    (zett / "extensions" / "b.py").symlink_to("a.py")
    return ".zett/extensions/a.py: is a link that loops back on itself"


def _folder_loop(home: Path, zett: Path) -> str:
    (zett / "extensions").mkdir()
    (zett / "extensions" / "x").symlink_to("y")
    (zett / "extensions" / "y").symlink_to("x")
    return ".zett/extensions/x: is a link that loops back on itself"


def _extensions_dir_loop(home: Path, zett: Path) -> str:
    (zett / "extensions").symlink_to("extensions")
    return ".zett/extensions: is a link that loops back on itself"


def _device_extension(home: Path, zett: Path) -> str:
    (zett / "extensions").mkdir()
    try:
        os.mknod(zett / "extensions" / "zero.py", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    except PermissionError:
        pytest.skip("no permission to make a device node here")
    return ".zett/extensions/zero.py: is a device, not a file"


def _many_files(home: Path, zett: Path) -> str:
    folder = zett / "extensions"
    folder.mkdir()
    for index in range(10 * trust.MAX_ENTRIES):  # listing them all would fail the count below
        os.close(os.open(folder / f"f{index:06}.py", os.O_WRONLY | os.O_CREAT, 0o644))
    return ".zett/extensions: holds more entries than zett looks at before you trust it (2000)"


def _too_many_read(home: Path, zett: Path) -> str:
    folder = zett / "extensions"
    folder.mkdir()
    for index in range(trust.MAX_FILES + 10):
        (folder / f"f{index:04}.py").write_text("X = 1\n")
    return ".zett/extensions/f0255.py: is past the 256 files zett reads before you trust a folder"


def _over_the_total(home: Path, zett: Path) -> str:
    folder = zett / "extensions"
    folder.mkdir()
    for name in ("a.py", "b.py"):
        (folder / name).write_bytes(b"#" * (600 * 1024))
    return ".zett/extensions/b.py: is 600 KB, over the 1 MB zett reads of a project's files in all"


def _too_deep(home: Path, zett: Path) -> str:
    folder = zett / "extensions"
    for level in range(trust.MAX_DEPTH + 2):
        folder = folder / f"d{level}"
    folder.mkdir(parents=True)
    (folder / "deep.py").write_text("X = 1\n")
    nested = "/".join(f"d{level}" for level in range(trust.MAX_DEPTH + 1))
    return f".zett/extensions/{nested}: is nested more than 8 folders deep"


ZETT_ATTACKS = [
    _zett_extensions_to_usr_share,
    _zett_itself_to_usr_share,
    _huge_config,
    _fifo_config,
    _config_to_key,
    _extension_to_environ,
    _file_loop,
    _folder_loop,
    _extensions_dir_loop,
    _device_extension,
    _many_files,
    _too_many_read,
    _over_the_total,
    _too_deep,
]


def counting_listings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the folder entries ``os.scandir`` hands out from now on (``[0]``)."""
    count = [0]
    real_scandir = os.scandir

    @contextlib.contextmanager
    def scandir(path: object) -> Iterator[Iterator[os.DirEntry[str]]]:
        with real_scandir(path) as listing:  # type: ignore[call-overload]

            def entries() -> Iterator[os.DirEntry[str]]:
                for entry in listing:
                    count[0] += 1
                    yield entry

            yield entries()

    monkeypatch.setattr(os, "scandir", scandir)
    return count


@contextlib.contextmanager
def watching_pipes(project: Path) -> Iterator[None]:
    config = project / ".zett" / "config.toml"
    is_pipe = os.path.lexists(config) and stat.S_ISFIFO(os.lstat(config).st_mode)
    with pipe_watch(config) if is_pipe else contextlib.nullcontext():
        yield


@pytest.mark.parametrize("attack", ZETT_ATTACKS, ids=lambda attack: attack.__name__.strip("_"))
def test_before_the_answer_zett_reads_only_a_bounded_part_of_the_project(
    home: Path, project_dir: Path, attack
) -> None:
    zett = project_dir / ".zett"
    zett.mkdir()
    (zett / "config.toml").write_text(CONFIG)
    expected = attack(home, zett)

    with pytest.MonkeyPatch.context() as patch, watching_pipes(project_dir), measured() as read:
        listed = counting_listings(patch)
        project = trust.find_project(project_dir, {"HOME": str(home)})
    assert read[0] <= TRUST_READ_BOUND
    assert listed[0] <= trust.MAX_ENTRIES + 1  # folder entries looked at, the 20,000 included
    assert project is not None
    lines = project.left_out_lines()
    assert any(expected in line for line in lines), lines
    assert all(line.endswith("; not read") for line in lines)
    assert len(project.files) <= trust.MAX_FILES
    assert all(not name.endswith(("steal.py", "zero.py")) for name in project.files)
    notice = trust.untrusted_notice(project, trust.TrustState.NEW)
    assert "Left out, not read:" in notice and expected.split(": ", 1)[1] in notice

    with watching_pipes(project_dir):
        launch = prepare_launch(cwd=project_dir, env={"HOME": str(home)}, ask_trust=True)
    assert launch.project_trust is not None  # zett starts, and the question still comes
    assert launch.project_trust.digest == project.digest  # what was left out is in the hash


@pytest.mark.parametrize("attack", [_huge_config, _fifo_config, _config_to_key])
def test_a_config_left_out_of_the_question_is_not_read_after_trust_either(
    home: Path, project_dir: Path, attack
) -> None:
    zett = project_dir / ".zett"
    zett.mkdir()
    (zett / "config.toml").write_text(CONFIG)
    (home / "key.pem").write_text('[ui]\ntheme = "from-the-key-file"\n')  # would load if read
    reason = attack(home, zett).split(": ", 1)[1].split(",")[0]  # "is 2 GB", "is a named pipe"
    with watching_pipes(project_dir):
        project = trust.find_project(project_dir, {"HOME": str(home)})
    assert project is not None
    trust.remember(project, trusted=True)

    env = {"HOME": str(home)}
    with watching_pipes(project_dir):
        prepare_launch(cwd=project_dir, env=env)  # the first one imports what startup needs
        with measured() as read:
            launch = prepare_launch(cwd=project_dir, env=env)
    assert read[0] <= TRUST_READ_BOUND
    assert launch.theme is None
    assert any(".zett/config.toml" in text and reason in text for _, text in launch.notices), launch.notices


def test_an_ordinary_project_keeps_its_hash_and_reads_everything(project_dir: Path) -> None:
    zett = project_dir / ".zett"
    (zett / "extensions" / "lib").mkdir(parents=True)
    (zett / "config.toml").write_text(CONFIG)
    (zett / "extensions" / "proj.py").write_text("X = 1\n")
    (zett / "extensions" / "lib" / "helper.py").write_text("Y = 2\n")
    (zett / "extensions" / "shared.py").symlink_to("lib/helper.py")  # a link inside is fine
    project = trust.project_files(project_dir)
    assert project is not None and project.left_out == ()
    assert project.files == (
        ".zett/config.toml",
        ".zett/extensions/lib/helper.py",
        ".zett/extensions/proj.py",
        ".zett/extensions/shared.py",
    )
    digest = hashlib.sha256()  # the formula before left-out entries existed: old decisions still hold
    for name in project.files:
        raw, content = name.encode(), (project_dir / name).read_bytes()
        digest.update(len(raw).to_bytes(8, "big") + raw + len(content).to_bytes(8, "big") + content)
    assert project.digest == digest.hexdigest()


def test_the_contained_reader_refuses_before_opening(home: Path, project_dir: Path) -> None:
    with pytest.raises(NotRead, match="outside the project"):
        read_contained(Path("/proc/self/environ"), inside=project_dir, max_bytes=10)
    (project_dir / "k").symlink_to(home / "key.pem")
    with pytest.raises(NotRead, match=OUTSIDE_LINK):
        read_contained(project_dir / "k", inside=project_dir, max_bytes=10)
    assert read_contained(project_dir / "k", inside=None, max_bytes=10).data == PRIVATE_KEY.encode()[:10]
    with pytest.raises(FileNotFoundError):
        read_contained(project_dir / "absent", inside=project_dir, max_bytes=10)


# -- the trust question and /extensions say what was left out -------------------------------------


async def test_the_question_and_extensions_list_name_what_was_left_out(home: Path, project_dir: Path) -> None:
    zett = project_dir / ".zett"
    zett.mkdir()
    (zett / "config.toml").write_text(CONFIG)
    (zett / "extensions").symlink_to("/usr/share")
    launch = prepare_launch(cwd=project_dir, env={"HOME": str(home)}, ask_trust=True)
    model = ScriptedModel()
    app = ZettApp(replace(launch, model_factory=lambda: model, model_label="scripted:test", bell=False))
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceDialog))
        await wait_for(pilot, lambda: "Left out (1)" in screen_text(app))
        shown = screen_text(app)
        assert ".zett/extensions: is a link to a folder outside the project; not read" in shown
        # A dialog takes keys a moment after it is drawn (keys before that go to the prompt).
        await wait_for(pilot, lambda: getattr(app.screen, "armed", True))
        await pilot.press("enter")  # not trusted
        await wait_ready(pilot)
        await submit(pilot, "/extensions")
        await wait_for(pilot, lambda: notices(app)[-1].startswith("Extensions, outermost first"))
        listing = notices(app)[-1]
    assert "left out: .zett/extensions: is a link to a folder outside the project; not read" in listing


# -- after trust: a project's extension file linked outside does not load -------------------------

EVIL_EXTENSION = """\
from pathlib import Path
Path({marker!r}).write_text("ran")
from zett_agent.extensions.base import AgentExtension
class Evil(AgentExtension):
    pass
"""


async def test_a_trusted_projects_extension_linked_outside_does_not_load(
    home: Path, project_dir: Path
) -> None:
    marker = home / "evil-ran"
    (home / "evil.py").write_text(EVIL_EXTENSION.format(marker=str(marker)))
    zett = project_dir / ".zett"
    (zett / "extensions").mkdir(parents=True)
    (zett / "config.toml").write_text('[extensions.evil]\nfile = "evil.py"\n')
    (zett / "extensions" / "evil.py").symlink_to(home / "evil.py")
    project = trust.find_project(project_dir, {"HOME": str(home)})
    assert project is not None
    assert project.left_out == ((".zett/extensions/evil.py", OUTSIDE_LINK),)
    trust.remember(project, trusted=True)  # the user trusts the folder anyway

    launch = prepare_launch(cwd=project_dir, env={"HOME": str(home)})
    [config] = launch.extensions
    report = load_extensions(launch.extensions, report=lambda text: None)
    assert report.loaded == []
    [problem] = report.problems
    assert problem.name == "evil" and OUTSIDE_LINK in problem.error
    assert not marker.exists()

    with pytest.raises(ExtensionLoadError, match=OUTSIDE_LINK):  # the loader refuses it on its own too
        load_module_from_file(config.file, namespace="project", inside=project_dir)
    assert not marker.exists()


async def test_the_users_own_extension_may_be_a_link_elsewhere(home: Path) -> None:
    marker = home / "mine-ran"
    (home / "mine.py").write_text(EVIL_EXTENSION.format(marker=str(marker)))
    folder = paths.config_dir() / "extensions"
    folder.mkdir(parents=True)
    (folder / "mine.py").symlink_to(home / "mine.py")
    config = ExtensionConfig("mine", "user", file=folder / "mine.py", config_file=paths.config_file())
    report = load_extensions([config], report=lambda text: None)
    assert [entry.name for entry in report.loaded] == ["mine"] and marker.exists()


def test_a_git_head_that_links_elsewhere_is_not_read_for_the_branch(tmp_path: Path) -> None:
    """The branch goes into every turn's record: a HEAD linked to an environment must give none."""
    from zett_tui.workspace.git_branch import git_branch

    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "HEAD").symlink_to("/proc/self/environ")
    assert git_branch(project) is None
    (project / ".git" / "HEAD").unlink()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/feature\n")
    assert git_branch(project) == "feature"
