"""A closed pipe ends zett quietly: ``zett sessions list | head -1`` prints no traceback; a closed
standard descriptor at start is said in a line; an internal error is a line, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from zett_tui.core import paths


def test_a_reader_that_stops_early_leaves_no_traceback(project_dir: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "zett_tui", "sessions", "list", "--all"],
        cwd=project_dir,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before zett writes a byte
    err = process.stderr.read().decode()
    assert process.wait(timeout=30) == 0
    assert "Traceback" not in err and "BrokenPipe" not in err and "internal error" not in err, err


def zett_with_closed(fd: int, *arguments: str) -> subprocess.CompletedProcess[str]:
    """``zett ARGUMENTS`` started with standard descriptor ``fd`` closed (``>&-`` in a shell)."""
    return subprocess.run(
        [sys.executable, "-m", "zett_tui", *arguments],
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: os.close(fd),
    )


@pytest.mark.parametrize(
    "arguments",
    [("-p", "hi", "--model", "demo"), ("sessions", "list"), ("acp",)],
    ids=["p", "sessions", "acp"],
)
def test_a_closed_standard_output_is_said_on_standard_error(arguments: tuple[str, ...]) -> None:
    done = zett_with_closed(1, *arguments)
    assert done.returncode == 2
    assert done.stderr.strip() == "zett: standard output is closed: nowhere to write to"
    assert not list(paths.sessions_dir().glob("*.jsonl"))  # nothing ran


def test_a_closed_standard_error_is_said_on_standard_output() -> None:
    done = zett_with_closed(2, "-p", "hi", "--model", "demo")
    assert done.returncode == 2
    assert done.stdout.strip() == "zett: standard error is closed: nowhere to write to"


def test_a_closed_standard_input_reads_as_empty() -> None:
    done = zett_with_closed(0, "-p", "hi", "--model", "demo")
    assert done.returncode == 0, done.stderr
    assert "demo model" in done.stdout


@pytest.mark.parametrize("standard_input", ["/dev/null", "a file"])
def test_zett_acp_reading_what_the_loop_cannot_wait_on_ends_with_it(
    tmp_path: Path, standard_input: str
) -> None:
    """``zett acp < /dev/null`` (epoll refuses it) or ``< file``: read to the end and done, the
    ``initialize`` in the file answered, not a process left waiting for ever."""
    source = Path(standard_input) if standard_input == "/dev/null" else tmp_path / "requests.jsonl"
    if standard_input != "/dev/null":
        request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
        source.write_text(json.dumps(request) + "\n")
    with source.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "zett_tui", "acp"],
            env=dict(os.environ),
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [answer["id"] for answer in answers] == ([] if standard_input == "/dev/null" else [1])


def test_an_internal_error_before_the_log_is_set_up_prints_no_traceback() -> None:
    script = (
        "import sys\n"
        "from zett_tui import cli\n"
        "def broken(arguments, env):\n"
        "    raise RuntimeError('the secret sk-ant-api03-' + 'x' * 40)\n"
        "cli._run = broken\n"
        "raise SystemExit(cli.main(['sessions', 'list']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=dict(os.environ), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "sk-ant" not in done.stderr, done.stderr
    assert done.stderr.startswith("zett: internal error (RuntimeError); details in")
    logged = paths.log_file().read_text()
    assert "RuntimeError" in logged and "Traceback" in logged
    assert "sk-ant-api03-xxxx" not in logged  # redacted as the app's log is
