"""The ``zett`` command: argument parsing and start-up decisions. No Textual import here.

Every failure the user can cause (bad flags, bad config, unknown model, missing key) is one line
on stderr or one notice in the app, never a traceback.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from zett_tui import __version__

log = logging.getLogger("zett_tui.cli")

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zett",
        description="A terminal coding assistant. Run it in your project folder.",
        epilog="Models: anthropic:MODEL, openai:MODEL, ollama:MODEL, ENDPOINT:MODEL (from config.toml), demo.",
    )
    parser.add_argument("--version", action="version", version=f"zett {__version__}")
    parser.add_argument("-m", "--model", metavar="PROVIDER:MODEL", help="the model to use (default: from config)")
    parser.add_argument(
        "--reasoning-effort",
        metavar="LEVEL",
        help="off, minimal, low, medium, high, xhigh, max or ultra",
    )
    parser.add_argument("--demo", action="store_true", help="use the offline demo model (no key needed)")
    parser.add_argument("--theme", metavar="NAME", help="a Textual theme name")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        return _run(arguments, os.environ)
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # the last line of defence: a short line, details in the log
        log.critical("zett failed", exc_info=True)
        from zett_tui import paths

        print(f"zett: internal error ({type(error).__name__}); details in {paths.log_file()}", file=sys.stderr)
        return EXIT_FAILED


def _run(arguments: list[str], env: Mapping[str, str]) -> int:
    options = build_parser().parse_args(arguments)
    from zett_tui.startup import StartupError, prepare_launch

    try:
        launch = prepare_launch(
            cwd=Path.cwd(),
            env=env,
            model=options.model if not options.demo else "demo",
            reasoning_effort=options.reasoning_effort,
            theme=options.theme,
        )
    except StartupError as error:
        print(f"zett: {error}", file=sys.stderr)
        return EXIT_USAGE
    from zett_tui.ui.app import ZettApp

    app = ZettApp(launch)
    session_id = app.run()
    code = app.return_code or EXIT_OK
    if session_id and _session_was_recorded(session_id):
        print(f"To resume this session: zett --resume {session_id}")
    return code


def _session_was_recorded(session_id: str) -> bool:
    from zett_agent.extensions.jsonl import JSONLExtension

    from zett_tui import paths

    return JSONLExtension(paths.sessions_dir()).session_path(session_id).exists()


if __name__ == "__main__":
    raise SystemExit(main())
