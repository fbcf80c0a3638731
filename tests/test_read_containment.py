"""Reads are contained: the file tools read outside the project only with the user's yes.

Attacks run for real (real files, real symlinks, a real FIFO, the real ``/proc/self/environ``)
through the host with a scripted model, in every permission mode and in ``zett -p``. Each one
asserts on what the model was sent next: the outside content (a canary string) never reaches
it unless the user (or ``--allow-read``) said yes, and the "yes" cases show the canary does
arrive then, so the assertions can fail.
"""

from __future__ import annotations

import asyncio
import io
import os
import re
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.host import Collector, make_host
from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.test_dialogs import dialog_closed, focused_id, open_dialog, shown
from tests.ui_helpers import idle, make_app, notices, ready_app, submit, wait_for
from zett_tui.entry.headless import HeadlessUsageError, headless_request, run_headless
from zett_tui.entry.launch import LaunchSettings
from zett_tui.runtime.events import DecisionRequested, ToolFinished
from zett_tui.runtime.files.contained_tools import printable, search_start
from zett_tui.runtime.files.read_access import ReadAccess, ReadGrant
from zett_tui.runtime.files.read_gate import READ_ACCESS_EVENT
from zett_tui.runtime.modes import PermissionMode
from zett_tui.ui.modals.choice_dialog import ChoiceDialog

OUTSIDE_TEXT = "OUTSIDE-CANARY-7f3a"
OUTSIDE_NAME = "name-canary-91bd.txt"
SSH_KEY = "SSH-KEY-CANARY-c0de"
ENVIRON = "ENVIRON-CANARY-5e11"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16 + b"IMAGE-CANARY"
BAD_NAME = b"bad\xffname.txt"
MODES = [PermissionMode.ASK, PermissionMode.ACCEPT_EDITS, PermissionMode.PLAN, PermissionMode.AUTO]


@dataclass
class World:
    project: Path
    outside: Path
    home: Path

    @property
    def secret(self) -> Path:
        return self.outside / OUTSIDE_NAME


@pytest.fixture
def world(tmp_path: Path, project_dir: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / OUTSIDE_NAME).write_text(f"{OUTSIDE_TEXT}\n")
    (outside / "picture.png").write_bytes(PNG)
    home = tmp_path / "fakehome"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(f"{SSH_KEY}\n")
    (home / "notes.txt").write_text("a note at home\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ZETT_TEST_CANARY", ENVIRON)  # so /proc/self/environ holds a canary
    (project_dir / "inside.txt").write_text("inside hello\n")
    (project_dir / "linked").symlink_to(outside)  # a symlinked folder
    (project_dir / "notes.txt").symlink_to(outside / OUTSIDE_NAME)  # a symlinked file
    (project_dir / "env").symlink_to("/proc/self/environ")
    (project_dir / "keys").symlink_to(home / ".ssh")
    os.mkfifo(project_dir / "pipe")
    (project_dir / os.fsdecode(BAD_NAME)).write_text("hello bad name\n")
    return World(project_dir, outside, home)


def unwrapped(shown: str) -> str:
    """A dialog's text without spaces, line breaks and its border: a path as long as pytest's
    ``tmp_path`` (which varies with the user name and the xdist worker) wraps in the dialog."""
    return re.sub(r"[\s│█]", "", shown)


def sent_to_model(model: ScriptedModel) -> str:
    """Everything the model was sent (tool results included), as one text."""
    return "\n".join(repr(message.content) for request in model.requests for message in request.messages)


@dataclass
class Outcome:
    decisions: list[DecisionRequested]
    results: list[ToolFinished]
    sent: str
    finished: str


Answering = Callable[[DecisionRequested], str]


async def run_calls(
    calls: list[tuple[str, dict[str, Any]]],
    *,
    mode: PermissionMode = PermissionMode.ASK,
    answer: str | Answering = "deny",
) -> Outcome:
    """Run ``calls`` (one model step each) through a real host; answer read dialogs with ``answer``."""
    steps = [tool_step(f"c{i}", name, args) for i, (name, args) in enumerate(calls, 1)]
    model = ScriptedModel(*steps, text_step("done"))
    host = await make_host(model)
    host.set_mode(mode)
    sink = Collector()
    turn = asyncio.create_task(host.run_turn("go", sink))
    decisions: list[DecisionRequested] = []
    try:
        while not turn.done():
            getter = asyncio.ensure_future(sink.decisions.get())
            await asyncio.wait({turn, getter}, timeout=20, return_when=asyncio.FIRST_COMPLETED)
            if not getter.done():
                getter.cancel()
                continue
            decision = getter.result()
            decisions.append(decision)
            assert decision.kind == READ_ACCESS_EVENT, decision
            choice = answer(decision) if callable(answer) else answer
            assert host.answer(
                decision, {"tool_call_id": decision.payload["tool_call_id"], "decision": choice}
            )
        finished = await asyncio.wait_for(turn, 20)
    finally:
        await host.aclose()
    return Outcome(decisions, sink.of(ToolFinished), sent_to_model(model), finished.status)


# -- reads that must ask, in every mode -----------------------------------------------------------

ASKING_READS = {
    "symlinked file": ("read_file", {"path": "notes.txt"}, OUTSIDE_TEXT),
    "dot-dot": ("read_file", {"path": f"../outside/{OUTSIDE_NAME}"}, OUTSIDE_TEXT),
    "absolute": ("read_file", {"path": "{outside}/" + OUTSIDE_NAME}, OUTSIDE_TEXT),
    "through a symlinked folder": ("read_file", {"path": f"linked/{OUTSIDE_NAME}"}, OUTSIDE_TEXT),
    "ssh key under HOME": ("read_file", {"path": "~/.ssh/id_rsa"}, SSH_KEY),
    "ssh key through a link": ("read_file", {"path": "keys/id_rsa"}, SSH_KEY),
    "proc self environ": ("read_file", {"path": "/proc/self/environ"}, ENVIRON),
    "a link to proc self environ": ("read_file", {"path": "env"}, ENVIRON),
    "dev fd tricks": ("read_file", {"path": "/dev/fd/../../proc/self/environ"}, ENVIRON),
    "glob inside a symlinked folder": ("glob", {"pattern": "linked/*"}, OUTSIDE_NAME),
    "glob outside by dot-dot": ("glob", {"pattern": "../outside/**/*"}, OUTSIDE_NAME),
    "grep outside absolute": (
        "grep",
        {"pattern": "CANARY", "file_pattern": "{outside}/*"},
        OUTSIDE_TEXT,
    ),
    "view_image outside": ("view_image", {"path": "{outside}/picture.png"}, "IMAGE-CANARY"),
}


def _arguments(arguments: dict[str, Any], world: World) -> dict[str, Any]:
    return {key: value.format(outside=world.outside) for key, value in arguments.items()}


@pytest.mark.parametrize("mode", MODES, ids=[mode.value for mode in MODES])
@pytest.mark.parametrize("case", list(ASKING_READS), ids=list(ASKING_READS))
async def test_a_read_outside_asks_in_every_mode_and_no_keeps_it_from_the_model(
    world: World, mode: PermissionMode, case: str
) -> None:
    tool, arguments, canary = ASKING_READS[case]
    outcome = await run_calls([(tool, _arguments(arguments, world))], mode=mode, answer="deny")
    assert outcome.finished == "completed"
    [decision] = outcome.decisions
    assert decision.payload["tool"] == tool
    assert Path(decision.payload["path"]).is_absolute()
    assert not Path(decision.payload["path"]).is_relative_to(world.project)
    [result] = outcome.results
    # "refused" at the runtime's level; the chat, which sent the "deny", shows it as "declined"
    assert result.state == "refused" and "was not allowed to read" in result.output
    assert canary not in outcome.sent


@pytest.mark.parametrize(
    "case", ["symlinked file", "dot-dot", "glob inside a symlinked folder", "view_image outside"]
)
async def test_yes_once_lets_that_read_through(world: World, case: str) -> None:
    tool, arguments, canary = ASKING_READS[case]
    outcome = await run_calls([(tool, _arguments(arguments, world))], answer="once")
    assert len(outcome.decisions) == 1
    assert canary in outcome.sent


async def test_the_dialog_says_what_the_model_asked_and_where_it_really_leads(world: World) -> None:
    outcome = await run_calls([("read_file", {"path": "env"})])
    [decision] = outcome.decisions
    payload = decision.payload
    assert payload["requested"] == "env"
    assert payload["path"] == f"/proc/{os.getpid()}/environ"
    assert payload["secret"] and "environment" in payload["secret"]
    assert "always asks" in payload["reason"]
    assert payload["session_scope"] == "this file only"


async def test_once_asks_again_next_time_and_session_does_not(world: World) -> None:
    read = ("read_file", {"path": "notes.txt"})
    once = await run_calls([read, read], answer="once")
    assert len(once.decisions) == 2
    session = await run_calls([read, read], answer="session")
    assert len(session.decisions) == 1
    assert session.sent.count(OUTSIDE_TEXT) >= 2


async def test_a_session_grant_of_home_does_not_reach_the_credential_stores(world: World) -> None:
    answers: list[str] = []

    def answer(decision: DecisionRequested) -> str:
        answers.append(decision.payload["path"])
        return "session" if decision.payload["path"] == str(world.home) else "deny"

    outcome = await run_calls(
        [
            ("glob", {"pattern": f"{world.home}/*"}),  # asks: the whole home folder, for the session
            ("read_file", {"path": f"{world.home}/notes.txt"}),  # covered now
            ("glob", {"pattern": f"{world.home}/**/*"}),  # covered, but not into ~/.ssh
            ("grep", {"pattern": "CANARY", "file_pattern": f"{world.home}/**/*"}),
            ("read_file", {"path": "~/.ssh/id_rsa"}),  # asks again, even so
        ],
        answer=answer,
    )
    assert answers == [str(world.home), str(world.home / ".ssh" / "id_rsa")]
    assert "a note at home" in outcome.sent
    assert SSH_KEY not in outcome.sent and "id_rsa" not in outcome.sent.replace(
        str(world.home / ".ssh" / "id_rsa"), ""
    )
    first_glob = outcome.results[0].output
    assert str(world.home / "notes.txt") in first_glob and ".ssh" in first_glob  # named, not entered


# -- searches inside the project: contained without asking --------------------------------------


@pytest.mark.parametrize("mode", MODES, ids=[mode.value for mode in MODES])
@pytest.mark.parametrize(
    "call",
    [
        ("glob", {"pattern": "**/*"}),
        ("glob", {"pattern": "*/*"}),
        ("glob", {"pattern": "*"}),
        ("grep", {"pattern": "CANARY"}),
        ("grep", {"pattern": "CANARY", "file_pattern": "*/*"}),
        ("grep", {"pattern": "CANARY", "file_pattern": "*"}),
    ],
    ids=["glob-recursive", "glob-into-links", "glob-top", "grep-recursive", "grep-into-links", "grep-top"],
)
async def test_a_search_of_the_project_never_leaks_what_is_behind_its_links(
    world: World, mode: PermissionMode, call: tuple[str, dict[str, Any]]
) -> None:
    outcome = await asyncio.wait_for(run_calls([call], mode=mode), 30)  # the FIFO must not hang it
    assert outcome.decisions == []
    [result] = outcome.results
    assert result.state == "done"
    for canary in (OUTSIDE_TEXT, OUTSIDE_NAME, SSH_KEY, ENVIRON, "id_rsa"):
        assert canary not in outcome.sent
    assert "linked" in result.output.splitlines()[-1]  # named in the last line as left out
    if call[0] == "glob" and call[1]["pattern"] != "*/*":
        assert "inside.txt" in result.output.splitlines()


async def test_glob_and_grep_show_a_name_that_is_not_utf8_escaped(world: World) -> None:
    outcome = await run_calls([("glob", {"pattern": "**/*"}), ("grep", {"pattern": "hello"})])
    glob_result, grep_result = (result.output for result in outcome.results)
    assert "bad\\xffname.txt" in glob_result.splitlines()
    assert "bad\\xffname.txt:1: hello bad name" in grep_result
    assert "inside.txt:1: inside hello" in grep_result
    assert all(result.state == "done" for result in outcome.results)


async def test_a_fifo_is_refused_by_read_file_at_once(world: World) -> None:
    outcome = await asyncio.wait_for(run_calls([("read_file", {"path": "pipe"})]), 20)
    [result] = outcome.results
    assert result.state == "failed" and "named pipe" in result.output


async def test_results_match_zett_agents_glob_and_grep_inside_the_project(project_dir: Path) -> None:
    from zett_agent.tools import coding

    (project_dir / "src" / "pkg").mkdir(parents=True)
    (project_dir / "src" / "a-b.py").write_text("x = 1\n")
    (project_dir / "src" / "pkg" / "m.py").write_text("def f():\n    return 1\n")
    (project_dir / ".hidden.py").write_text("y = 2\n")
    outcome = await run_calls(
        [
            ("glob", {"pattern": "**/*.py"}),
            ("glob", {"pattern": "src/**"}),
            ("grep", {"pattern": "return|=", "file_pattern": "**/*.py"}),
            ("glob", {"pattern": "**/*", "max_results": 2}),
        ]
    )
    theirs = [
        await coding.glob({"pattern": "**/*.py"}),
        await coding.glob({"pattern": "src/**"}),
        await coding.grep({"pattern": "return|=", "file_pattern": "**/*.py"}),
        await coding.glob({"pattern": "**/*", "max_results": 2}),
    ]
    assert [result.output for result in outcome.results] == theirs


# -- view_image and the network -------------------------------------------------------------------


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    received: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            with connection:
                received.append(connection.recv(4096))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], received
    stop.set()
    thread.join(2)
    server.close()


@pytest.mark.parametrize("mode", MODES, ids=[mode.value for mode in MODES])
async def test_view_image_never_fetches_a_url(
    world: World, mode: PermissionMode, listener: tuple[int, list[bytes]]
) -> None:
    port, received = listener
    outcome = await run_calls(
        [
            ("view_image", {"path": f"http://127.0.0.1:{port}/x.png?key=sk-leak"}),
            ("view_image", {"path": f"HTTPS://127.0.0.1:{port}/y.png"}),
        ],
        mode=mode,
        answer="once",
    )
    assert outcome.decisions == []
    assert all(r.state == "failed" and "zett does not fetch URLs" in r.output for r in outcome.results)
    assert received == []


# -- zett -p --------------------------------------------------------------------------------------


async def headless(model: ScriptedModel, **options: Any) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    launch = LaunchSettings(model_label="scripted", model_factory=lambda: model, cwd=Path.cwd())
    code = await run_headless(launch, "go", out=out, err=err, handle_signals=False, **options)
    return code, err.getvalue()


@pytest.mark.parametrize(
    ("arguments", "canary", "allow_read", "allowed"),
    [
        ({"path": "notes.txt"}, OUTSIDE_TEXT, [], False),
        ({"path": "../outside/" + OUTSIDE_NAME}, OUTSIDE_TEXT, [], False),
        ({"path": "notes.txt"}, OUTSIDE_TEXT, ["../outside"], True),
        ({"path": "~/.ssh/id_rsa"}, SSH_KEY, ["~"], False),
        ({"path": "keys/id_rsa"}, SSH_KEY, ["/"], False),
        ({"path": "~/.ssh/id_rsa"}, SSH_KEY, ["~/.ssh"], True),
        ({"path": "/proc/self/environ"}, ENVIRON, ["/"], False),
        ({"path": "env"}, ENVIRON, ["/proc"], False),
    ],
    ids=[
        "link-refused",
        "dotdot-refused",
        "allow-read-folder",
        "ssh-under-allow-read-home",
        "ssh-link-under-allow-read-root",
        "ssh-exactly-allowed",
        "environ-under-allow-read-root",
        "environ-link-under-allow-read-proc",
    ],
)
async def test_print_mode_reads_outside_only_with_allow_read(
    world: World, arguments: dict[str, Any], canary: str, allow_read: list[str], allowed: bool
) -> None:
    model = ScriptedModel(tool_step("c1", "read_file", arguments), text_step("done"))
    code, err = await headless(model, allow_read=allow_read)
    assert code == 0
    assert (canary in sent_to_model(model)) is allowed
    if not allowed:
        assert "refused read of" in err


async def test_print_mode_contains_glob_and_grep_without_asking(world: World) -> None:
    model = ScriptedModel(
        tool_step("c1", "glob", {"pattern": "**/*"}),
        tool_step("c2", "grep", {"pattern": "CANARY|hello", "file_pattern": "*/*"}),
        tool_step("c3", "glob", {"pattern": "linked/*"}),
        text_step("done"),
    )
    code, err = await asyncio.wait_for(headless(model), 30)
    assert code == 0
    sent = sent_to_model(model)
    assert "bad\\\\xffname.txt" in sent  # repr() doubles the backslash
    for canary in (OUTSIDE_TEXT, OUTSIDE_NAME, SSH_KEY, ENVIRON):
        assert canary not in sent
    assert "refused read of" in err and "--allow-read" in err


def test_allow_read_of_a_missing_path_is_a_usage_error(project_dir: Path) -> None:
    from zett_tui.cli import build_parser

    options = build_parser().parse_args(["-p", "hi", "--allow-read", "no/such/place"])
    with pytest.raises(HeadlessUsageError, match="--allow-read no/such/place"):
        headless_request(options, io.StringIO(""))
    options = build_parser().parse_args(["-p", "hi", "--allow-read", ".", "--allow-read", "/"])
    request = headless_request(options, io.StringIO(""))
    assert request is not None and request.allow_read == [".", "/"]


# -- the rules on their own -----------------------------------------------------------------------


def test_a_grant_covers_what_is_below_it_but_never_a_secret_place(world: World) -> None:
    access = ReadAccess(world.project)
    root = ReadGrant(Path("/"))
    ssh_key = (world.home / ".ssh" / "id_rsa").resolve()
    assert access.allows(world.secret, [root])
    assert not access.allows(ssh_key, [root])
    assert not access.allows(ssh_key, [ReadGrant(world.home)])
    assert access.allows(ssh_key, [ReadGrant(world.home / ".ssh")])
    environ = Path(os.path.realpath("/proc/self/environ"))
    assert not access.allows(environ, [ReadGrant(Path("/proc"))])
    assert access.allows(environ, [ReadGrant(environ)])


def test_a_credential_store_inside_the_project_still_asks(world: World) -> None:
    access = ReadAccess(world.home)  # zett started in the home folder
    assert access.allows(world.home / "notes.txt")
    assert not access.allows((world.home / ".ssh" / "id_rsa").resolve())


def test_printable_escapes_undecodable_bytes_and_control_characters() -> None:
    assert printable(os.fsdecode(BAD_NAME)) == "bad\\xffname.txt"
    assert printable("two\nlines") == "two\\x0alines"
    assert search_start("../outside/**/*.py").start == Path.cwd().resolve() / ".." / "outside"


# -- the dialog -----------------------------------------------------------------------------------


async def test_the_dialog_shows_both_paths_and_yes_once_reads(world: World) -> None:
    model = ScriptedModel(tool_step("c1", "read_file", {"path": "notes.txt"}), text_step("Read it."))
    app = make_app(model)
    async with ready_app(app, size=(140, 40)) as pilot:
        await submit(pilot, "read the notes")
        dialog = await open_dialog(pilot)
        text = shown(app)
        assert "Let read_file read outside the project?" in text
        assert f"notes.txt->{world.secret}" in unwrapped(text)
        assert "outside the project folder" in text and "this file only" in text
        assert focused_id(dialog) == "choice-1"
        await pilot.press("enter")
        await dialog_closed(pilot, dialog)
        await wait_for(pilot, lambda: idle(app))
        assert any(f"✓ You let read_file read {world.secret}, once" in line for line in notices(app))
    assert OUTSIDE_TEXT in sent_to_model(model)


async def test_a_credential_store_dialog_opens_on_dont_read(world: World) -> None:
    model = ScriptedModel(tool_step("c1", "read_file", {"path": "keys/id_rsa"}), text_step("ok"))
    app = make_app(model)
    async with ready_app(app, size=(140, 40)) as pilot:
        await submit(pilot, "read the key")
        dialog = await open_dialog(pilot)
        text = shown(app)
        assert "SSH keys" in text and "always asks" in text
        assert f"keys/id_rsa->{world.home / '.ssh' / 'id_rsa'}" in unwrapped(text)
        assert isinstance(dialog, ChoiceDialog)
        assert focused_id(dialog) == "choice-1" and "Don't read" in str(dialog.focused.label)
        await pilot.press("enter")  # Don't read… → its note field
        await pilot.press("enter")  # sent without a note
        await dialog_closed(pilot, dialog)
        await wait_for(pilot, lambda: idle(app))
        assert any("✗ You did not let read_file read" in line for line in notices(app))
    assert SSH_KEY not in sent_to_model(model)


# -- a path swapped after the check ---------------------------------------------------------------


def test_a_file_swapped_for_a_link_after_the_check_is_not_read(world: World) -> None:
    from zett_tui.runtime.files import contained_tools

    target = world.project / "swapped.txt"
    target.write_text("fine\n")
    real = Path(os.path.realpath(target))
    access = ReadAccess(world.project)
    assert access.allows(real)
    target.unlink()
    target.symlink_to(world.secret)  # swapped between the check and the open
    with pytest.raises(contained_tools.NotReadable):
        contained_tools.read_file("swapped.txt", real, access.allows, 1, 200, 1)


def test_a_folder_swapped_for_a_link_after_the_check_is_not_read(world: World) -> None:
    from zett_tui.runtime.files import contained_tools

    folder = world.project / "sub"
    folder.mkdir()
    (folder / OUTSIDE_NAME).write_text("fine\n")
    real = Path(os.path.realpath(folder / OUTSIDE_NAME))
    access = ReadAccess(world.project)
    (folder / OUTSIDE_NAME).unlink()
    folder.rmdir()
    folder.symlink_to(world.outside)
    with pytest.raises(contained_tools.NotReadable, match="changed while it was being opened"):
        contained_tools.read_file("sub/x", real, access.allows, 1, 200, 1)


# -- the gate for other tools and extensions ------------------------------------------------------


async def test_zett_agents_read_tool_is_gated_by_its_name(world: World) -> None:
    from zett_agent.extensions.file_system import ReadExtension

    model = ScriptedModel(tool_step("c1", "read", {"path": "notes.txt"}), text_step("done"))
    host = await make_host(model, extra_extensions=[ReadExtension()])
    sink = Collector()
    turn = asyncio.create_task(host.run_turn("go", sink))
    decision = await asyncio.wait_for(sink.decisions.get(), 10)
    assert decision.kind == READ_ACCESS_EVENT and decision.payload["tool"] == "read"
    host.answer(decision, {"tool_call_id": decision.payload["tool_call_id"], "decision": "deny"})
    await asyncio.wait_for(turn, 20)
    await host.aclose()
    assert OUTSIDE_TEXT not in sent_to_model(model)


async def test_an_extension_asks_through_require_read(world: World) -> None:
    from zett_agent.extensions.base import AgentExtension
    from zett_agent.tools.base import tool

    from zett_tui.runtime.files.read_gate import require_read

    class Peek(AgentExtension):
        """Adds a tool that reads two files at once, through zett's gate."""

        async def on_tool(self, context: Any) -> None:
            @tool
            async def peek(first: str, second: str) -> str:
                """Read the first line of two files.

                Guidelines:
                    - Use it to peek.
                """
                return "peeked"

            context.register_tool(peek)

        async def on_tool_call(self, context: Any, call: Any, call_next: Any) -> Any:
            if call.name != "peek":
                return await call_next()
            reals = await require_read(context, call, [call.arguments["first"], call.arguments["second"]])
            return " | ".join(real.read_text().strip() for real in reals)

    asked: list[str] = []

    def answer(decision: DecisionRequested) -> str:
        asked.append(decision.payload["path"])
        return "once" if decision.payload["path"] == str(world.secret) else "deny"

    model = ScriptedModel(
        tool_step("c1", "peek", {"first": "inside.txt", "second": "notes.txt"}),
        tool_step("c2", "peek", {"first": "notes.txt", "second": "keys/id_rsa"}),
        text_step("done"),
    )
    host = await make_host(model, extra_extensions=[Peek()])
    sink = Collector()
    turn = asyncio.create_task(host.run_turn("go", sink))
    while len(asked) < 3:
        decision = await asyncio.wait_for(sink.decisions.get(), 10)
        host.answer(
            decision, {"tool_call_id": decision.payload["tool_call_id"], "decision": answer(decision)}
        )
    await asyncio.wait_for(turn, 20)
    await host.aclose()
    assert asked == [str(world.secret), str(world.secret), str((world.home / ".ssh" / "id_rsa").resolve())]
    sent = sent_to_model(model)
    assert f"inside hello | {OUTSIDE_TEXT}" in sent
    assert SSH_KEY not in sent and "was not allowed to read" in sent


async def test_plan_mode_reads_its_own_plan_file_without_asking(world: World) -> None:
    model = ScriptedModel()
    host = await make_host(model)
    host.set_mode(PermissionMode.PLAN)
    plan_file = str(host.plan_guard.plan_file(host.session_id))
    model.add(
        tool_step("c1", "write_file", {"path": plan_file, "content": "PLAN-DRAFT-1\n"}),
        tool_step("c2", "read_file", {"path": plan_file}),
        tool_step("c3", "read_file", {"path": f"{Path(plan_file).parent}/../history.sqlite3"}),
        text_step("done"),
    )
    sink = Collector()
    turn = asyncio.create_task(host.run_turn("plan", sink))
    decision = await asyncio.wait_for(sink.decisions.get(), 10)  # only the data folder asks
    assert decision.payload["tool_call_id"] == "c3" and "zett's sessions" in decision.payload["secret"]
    host.answer(decision, {"tool_call_id": "c3", "decision": "deny"})
    await asyncio.wait_for(turn, 20)
    await host.aclose()
    assert "PLAN-DRAFT-1" in sent_to_model(model)
