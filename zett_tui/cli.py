"""The ``zett`` command: argument parsing and start-up decisions. No Textual import here.

Every failure the user can cause (bad flags, bad config, unknown model, missing key) is one line
on stderr or one notice in the app, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO, cast

from zett_tui import __version__
from zett_tui.core import long_lived_objects
from zett_tui.entry.standard_streams import STANDARD_NAMES, fill_closed_descriptors
from zett_tui.terminal import first_frame, typeahead

if TYPE_CHECKING:
    from zett_tui.entry.headless import HeadlessRequest
    from zett_tui.terminal.background import BackgroundQuery
    from zett_tui.terminal.early_echo import EarlyEcho

log = logging.getLogger("zett_tui.cli")

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zett",
        description="A terminal coding assistant. Run it in your project folder.",
        epilog="Models: anthropic:MODEL, openai:MODEL, ollama:MODEL, ENDPOINT:MODEL (from config.toml),\n"
        "demo.\n\n"
        "Sessions: zett sessions list | show ID | export ID | rm ID (zett sessions --help)\n\n"
        "Editors: zett acp speaks the Agent Client Protocol for Zed, JetBrains and Toad (zett acp --help)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"zett {__version__}")
    parser.add_argument(
        "-m", "--model", metavar="PROVIDER:MODEL", help="the model to use (default: from config)"
    )
    parser.add_argument(
        "--reasoning-effort",
        metavar="LEVEL",
        help="off, minimal, low, medium, high, xhigh, max or ultra",
    )
    parser.add_argument("--demo", action="store_true", help="use the offline demo model (no key needed)")
    parser.add_argument("--theme", metavar="NAME", help="a Textual theme name")
    resume = parser.add_mutually_exclusive_group()
    resume.add_argument(
        "-c", "--continue", dest="continue_last", action="store_true", help="resume the latest session here"
    )
    resume.add_argument(
        "-r",
        "--resume",
        metavar="ID",
        nargs="?",
        const="",
        help="resume a session (any unique prefix of its id); without an id, choose one in the session browser",
    )
    opening = parser.add_mutually_exclusive_group()
    opening.add_argument(
        "--read-only",
        dest="open_as",
        action="store_const",
        const="view",
        help="with --resume: only look at it",
    )
    opening.add_argument(
        "--fork", dest="open_as", action="store_const", const="fork", help="with --resume: go on in a copy"
    )
    scripting = parser.add_argument_group(
        "non-interactive mode", "Also used when standard input is not a terminal: echo QUESTION | zett"
    )
    scripting.add_argument(
        "-p",
        "--print",
        dest="prompt",
        metavar="PROMPT",
        help="run one turn without the app, print the answer and exit; '-' reads the prompt from standard "
        "input, and input piped in with a PROMPT is added after it",
    )
    scripting.add_argument(
        "--output", choices=("text", "json"), help="the answer as text (default), or one JSON event per line"
    )
    scripting.add_argument("--allow-edits", action="store_true", help="apply file changes inside the project")
    scripting.add_argument(
        "--allow-shell",
        metavar="PREFIX",
        action="append",
        default=[],
        help="run shell commands that start with these words, e.g. 'pytest' or 'git diff' (repeatable)",
    )
    scripting.add_argument(
        "--allow-read",
        metavar="PATH",
        action="append",
        default=[],
        help="let the file tools read this file or folder outside the project (repeatable; a credential "
        "store such as ~/.ssh only when named itself)",
    )
    scripting.add_argument(
        "--allow-mcp",
        metavar="SERVER[__TOOL]",
        action="append",
        default=[],
        help="let the model call this MCP server's tools, or the one tool SERVER__TOOL (repeatable)",
    )
    scripting.add_argument(
        "--allow-web",
        metavar="DOMAIN",
        action="append",
        default=[],
        help="let web_fetch read pages of this exact host name, e.g. docs.python.org (repeatable; "
        "without it no page is fetched in non-interactive mode)",
    )
    return parser


def build_sessions_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zett sessions",
        description="Browse, show, export and remove sessions (with no COMMAND: the list).",
    )
    # no COMMAND: the list (``_sessions``), as ``claude``'s and ``codex``'s session commands show one
    commands = parser.add_subparsers(dest="command", required=False, metavar="COMMAND")
    listing = commands.add_parser("list", help="sessions started in this folder (--all: every folder)")
    listing.add_argument("--all", action="store_true", help="every folder")
    listing.add_argument("--json", action="store_true", help="one JSON document")
    show = commands.add_parser("show", help="one session's details and turns")
    show.add_argument("id")
    remove = commands.add_parser("rm", help="delete a session's transcript and history")
    remove.add_argument("id")
    remove.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    export = commands.add_parser("export", help="export a session as Markdown or JSON")
    export.add_argument("id")
    export.add_argument("-o", "--output", type=Path, help="write to this file (default: standard output)")
    export.add_argument("--format", choices=("md", "json"), default=None, help="default: from -o, else md")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    closed = fill_closed_descriptors()  # before any file is opened: it would take a closed one's number
    if closed & {1, 2}:
        missing = " and ".join(f"standard {STANDARD_NAMES[fd]}" for fd in sorted(closed & {1, 2}))
        open_one = sys.stderr if 2 not in closed else sys.stdout
        with contextlib.suppress(OSError, ValueError):
            print(f"zett: {missing} is closed: nowhere to write to", file=open_one)
        return EXIT_USAGE
    long_lived_objects.pause_collection()  # until the app is warm, or now for anything else
    try:
        code = _run(arguments, os.environ)
        sys.stdout.flush()  # here, where a closed pipe is caught, not at the interpreter's exit
        return code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `zett sessions list | head -1`: the reader has all it wanted
        _quiet_stdout()
        return EXIT_OK
    except Exception as error:  # the last line of defence: a short line, details in the log
        from zett_tui.core.redacted_log import ensure_redacted_log

        ensure_redacted_log()  # not set up yet (``zett sessions``...): the traceback would be printed
        log.critical("zett failed", exc_info=True)
        from zett_tui.core import paths

        print(
            f"zett: internal error ({type(error).__name__}); details in {paths.log_file()}", file=sys.stderr
        )
        return EXIT_FAILED
    finally:
        typeahead.release()
        long_lived_objects.resume_collection()


def _quiet_stdout() -> None:
    """Point standard output at /dev/null, so the interpreter's last flush of a closed pipe cannot
    print "Exception ignored ... BrokenPipeError" on the way out."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _run(arguments: list[str], env: Mapping[str, str]) -> int:
    if arguments[:1] == ["acp"]:
        return _acp(arguments[1:], env)
    if arguments[:1] == ["sessions"]:
        long_lived_objects.resume_collection()
        return _sessions(build_sessions_parser().parse_args(arguments[1:]))
    options = build_parser().parse_args(arguments)
    from zett_tui.entry.headless import HeadlessUsageError, headless_request

    choose_session = options.resume == ""  # a bare --resume: the session browser opens at start
    if choose_session:
        options.resume = None
    try:
        request = headless_request(options, sys.stdin, sys.stderr)
    except HeadlessUsageError as error:
        print(f"zett: {error}", file=sys.stderr)
        return EXIT_USAGE
    if choose_session and (request is not None or options.open_as):
        print(
            "zett: --resume needs a session id here (any unique prefix; `zett sessions` lists them)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    open_as = options.open_as or (_ask_how_to_open(options) if request is None else None)
    query: BackgroundQuery | None = None
    echo: EarlyEcho | None = None
    if request is None:  # the app will open: keep what is typed from now on for it
        typeahead.hold(sys.stdin)
        if options.theme is None:  # asked now, read after the imports: the round trip overlaps them
            from zett_tui.terminal.background import BackgroundQuery

            query = BackgroundQuery.send(env)
        # the prompt box, before the imports; what is typed meanwhile shows in it
        if first_frame.draw(sys.stdout.fileno(), typeahead.peek(), env) and typeahead.holding():
            from zett_tui.terminal.early_echo import EarlyEcho

            echo = EarlyEcho.start(sys.stdin.fileno(), first_frame.show_typed, query)
    try:
        return _launch(options, env, request, open_as, query, echo, choose_session=choose_session)
    finally:
        if echo is not None:
            echo.stop()  # before the query's answer: the thread may be reading it
        first_frame.erase()  # the app never started: what is printed goes where the shell was
        if query is not None:
            query.answer(timeout=0)  # not read yet (a configured theme, a failed start): put away, no wait


def _launch(
    options: argparse.Namespace,
    env: Mapping[str, str],
    request: HeadlessRequest | None,
    open_as: str | None,
    query: BackgroundQuery | None,
    echo: EarlyEcho | None = None,
    *,
    choose_session: bool = False,
) -> int:
    from zett_tui.entry.startup import StartupError, prepare_launch

    try:
        launch = prepare_launch(
            cwd=Path.cwd(),
            env=env,
            model=options.model if not options.demo else "demo",
            reasoning_effort=options.reasoning_effort,
            theme=options.theme,
            resume=options.resume,
            continue_last=options.continue_last,
            ask_trust=request is None,  # the app asks; zett -p says what it left out
            open_as=open_as,
        )
    except StartupError as error:
        first_frame.erase()
        print(f"zett: {error}", file=sys.stderr)
        return EXIT_USAGE
    if request is not None:
        from zett_tui.entry.headless import run_from_cli

        long_lived_objects.resume_collection()
        return run_from_cli(launch, request)
    from zett_tui.ui.app import ZettApp

    if echo is not None:
        echo.stop()  # the keys typed from now on are the app's terminal driver's to read
    if query is not None:
        # Read before the app takes the terminal, whatever chose the theme (ZETT_THEME, a config
        # file): an answer left unread would reach the prompt as typed text.
        background = query.answer()
        if launch.theme is None:  # no theme chosen: follow the terminal's background
            launch = replace(launch, terminal_background=background)
    app = ZettApp(launch, open_sessions=choose_session)
    first_frame.hand_over()
    session_id = app.run()
    code = app.return_code or EXIT_OK
    if session_id and _session_was_recorded(session_id):
        print(f"To resume this session: zett --resume {session_id}")
    return code


def _acp(arguments: list[str], env: Mapping[str, str]) -> int:
    """``zett acp``: the Agent Client Protocol on stdin/stdout, for an editor to start."""
    parser = argparse.ArgumentParser(
        prog="zett acp",
        description="Speak the Agent Client Protocol on standard input and output (for Zed, JetBrains, "
        "Toad...). Takes the same model settings as zett: --model, ZETT_MODEL, config.toml.",
    )
    parser.add_argument("--model", help="the model, as for zett --model")
    parser.add_argument("--reasoning-effort", dest="reasoning_effort", help="as for zett --reasoning-effort")
    options = parser.parse_args(arguments)
    from zett_tui.acp.fast_start import run

    long_lived_objects.resume_collection()
    return run(options.model, options.reasoning_effort, env)


def _ask_how_to_open(options: argparse.Namespace) -> str | None:
    """When the session asked for is busy in another zett, ask on the terminal: view, fork or stop."""
    if not (options.resume or options.continue_last) or not sys.stdin.isatty():
        return None
    from zett_tui.entry.startup import SessionInUse, find_session_to_resume

    try:
        find_session_to_resume(Path.cwd(), options.resume, options.continue_last)
    except SessionInUse as busy:
        print(
            f"zett: session {busy.summary.session_id} is open in another zett (pid {busy.summary.in_use_by})."
        )
        try:
            answer = input("[v]iew it read-only, [f]ork it into a new session, or [q]uit? ").strip().lower()
        except EOFError:
            return None
        return {"v": "view", "f": "fork"}.get(answer[:1])
    except Exception:  # any other problem is reported by prepare_launch itself
        return None
    return None


def _sessions(options: argparse.Namespace) -> int:
    from zett_tui.core.inert_text import InertWriter
    from zett_tui.sessions import cli as commands

    out, err = sys.stdout, sys.stderr
    # What a session holds came from a model and its tools: never an escape sequence to the terminal.
    shown, said = cast("TextIO", InertWriter(out)), cast("TextIO", InertWriter(err))
    if options.command in (None, "list"):
        listing = options.command is not None
        all_folders, as_json = listing and options.all, listing and options.json
        return commands.list_sessions(all_folders, as_json, None, shown, err=said)
    if options.command == "show":
        return commands.show_session(options.id, shown, err=said)
    if options.command == "rm":
        confirm = _confirm_on_tty if sys.stdin.isatty() else None  # None: it says to add --yes
        return commands.remove_session(options.id, out, err, options.yes, confirm=confirm)
    fmt = options.format or ("json" if options.output and options.output.suffix == ".json" else "md")
    return commands.export_session(options.id, fmt, options.output, out, err=err)


def _confirm_on_tty(question: str) -> bool:
    if not sys.stdin.isatty():
        return False
    try:
        return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:
        return False


def _session_was_recorded(session_id: str) -> bool:
    from zett_agent.extensions.jsonl import JSONLExtension

    from zett_tui.core import paths

    return JSONLExtension(paths.sessions_dir()).session_path(session_id).exists()


def run() -> NoReturn:
    """The ``zett`` command and ``python -m zett_tui``: :func:`main` in a process of its own, which
    ends without walking its heap."""
    code = main()
    long_lived_objects.leave_heap_to_the_exit()
    raise SystemExit(code)


if __name__ == "__main__":
    run()
