"""zett side by side with other terminal coding agents, one run, the same scripted server.

Run: ``python -m benchmarks.bench_peers --zettcode PATH --vibe PATH`` (each optional: the path of
that program's executable, installed in a venv of its own, see README "Benchmarks"; ``--runs``,
default 3; ``--against TREE``: zett from another checkout too, in turn with this one). It prints
medians and the machine's load average before and after.

Every program is spawned in a pseudo-terminal (120x36, read through pyte, ``bench_app.Pty``; with
``--terminal tmux``, in a tmux pane read by a control-mode client, ``tmux_terminal.TmuxPty``: tmux
parses the output as a terminal does, in C, instead of this process) with a
home folder of its own, configured to use one OpenAI-compatible server on 127.0.0.1
(``tests.fakes.llm_server`` in its own process, its CPU not counted) that answers every prompt with
the 58 KB Markdown answer (``bench_transcript.make_answer``, ~7,300 deltas of 8 characters). The
bare Textual app (``benchmarks/minimal_app.py``) is the baseline for what needs no model.

1. **launch -> prompt**: from the spawn until the program's prompt line is on screen.
2. **launch -> first key**: a key written right after the spawn, until the prompt line shows it;
   "lost" when it has not shown 5 s after the prompt did. Then, once the prompt is on screen
   and quiet (zett and ZettCode: once the status line says idle / ready), a key until it shows,
   Backspace until it is gone, and so on: ``QUIET_KEYS`` keys a run, median and p95.
3. **58 KB answer**: from Enter until the answer's last words are on screen; zett and ZettCode
   also from Enter until their status line says idle / ready again.
4. **PSS** after that answer once the screen is quiet (``/proc/PID/smaps_rollup``; the bare app
   with nothing typed), summed over the program's process tree (mistral-vibe 3.0.3 is a Rust
   UI running a Python app server).
5. **idle CPU per 10 s**: the process tree's CPU time over 10 s of no input, after 1 s of quiet.
6. **key echo while streaming**: in a spawn of its own, Enter sends the prompt; once the turn has
   started (the status line no longer says idle / ready; mistral-vibe, which has none: its prompt
   line is cleared, so its keys start while the request is sent), a key (then a backspace) every 50 ms until the prompt line shows it
   (then no longer shows it), each one timed, until the answer's last words are on screen or the
   status line says idle again (at most
   ``ECHO_KEYS`` keys a run: ZettCode's answer takes a minute). The baseline is the bare Textual
   app with zett-agent consuming the same answer and drawing none of it
   (``benchmarks/minimal_streaming_app.py``), typed at the same way from Enter until its status
   line says idle again. Median and p95 over every key of every run.
   Also printed: what the program wrote to the terminal meanwhile (KiB a second) and the share of
   that time this process spent parsing it (pyte, pure Python, ~2-3 us a byte): it shares the two
   cores with the program. An echo is timed by when its bytes arrived (a thread of ``Pty`` reads
   them as they come), not by when this process had parsed everything written before it; until
   stop 42 it was, and a program that writes more paid for this process's parsing as well.
7. **key echo while a paced answer streams**: the same, against a second server sending the same
   answer at a model's pace (``--paced-rate`` deltas of ``PACED_CHUNK`` characters a second, about a
   token each: 100 by default, as hosted models stream), so every program types its
   ``ECHO_KEYS`` keys while its answer arrives as a real one would. Figure 6 (the flood: the
   whole answer as fast as the server can send it) compares programs at different moments:
   zett draws it in under a second, so all its keys are typed while its process is saturated,
   while a peer that needs a minute for it gets most of its keys typed between deltas.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.bench_app import (
    MINIMAL,
    MINIMAL_STREAMING,
    START_KEY,
    TICKS_PER_SECOND,
    ZETT,
    Pty,
    ServerProcess,
    isolated_env,
    spawned,
)
from benchmarks.bench_startup import pss_kib
from benchmarks.bench_transcript import make_answer

IDLE_WINDOW = 10.0
PROMPT = "the long answer, please"
#: After the prompt shows, how long a key typed at spawn may still take to appear before it counts as lost.
KEY_GRACE = 5.0
#: ZettCode needs ~1 min for the answer on a quiet machine, several under load.
ANSWER_TIMEOUT = 900.0
#: The answer's end, as looked for on screen (these characters occur once in it).
LAST_CHARACTERS = 26
#: Typed once the prompt is on screen and the screen is quiet, then erased, QUIET_KEYS times in
#: all, one every QUIET_EVERY seconds (one key a run was too few for a median of a few ms).
LATER_KEY = "Q"
QUIET_KEYS = 20
QUIET_EVERY = 0.15
#: While the answer streams: a key (then a backspace) this often, at most ECHO_KEYS a run.
ECHO_EVERY = 0.05
ECHO_KEYS = 60
#: A typed key not shown after this long counts as lost (and ends that run's typing).
ECHO_TIMEOUT = 5.0
#: The paced stream's deltas: characters each (about one token) and how many a second by default.
PACED_CHUNK = 4
PACED_RATE = 100.0
#: What runs and reads each program: ``Pty`` (pyte, in this process) or ``TmuxPty`` (``--terminal tmux``).
TERMINAL: list[type[Pty]] = [Pty]


def _screen_text(pty: Pty) -> str:
    """The screen without any white space: a sentence wrapped anywhere (mid-word too) still matches."""
    return "".join("".join(line.split()) for line in pty.screen.display)


def _line_prompt(marker: str, placeholders: tuple[str, ...]) -> Callable[[Pty], str | None]:
    """The prompt of a program whose input line starts with ``marker`` (the last such line)."""

    def read(pty: Pty) -> str | None:
        for line in reversed(pty.screen.display):
            if line.startswith(marker):
                text = line[len(marker) :].strip()
                return "" if text.startswith(placeholders) else text
        return None

    return read


@dataclass
class Program:
    """How to start one program, read its prompt and tell it is done, in a home of its own."""

    name: str
    executable: str
    args: list[str]
    prompt: Callable[[Pty], str | None]
    configure: Callable[[Path, ServerProcess], dict[str, str]]
    #: The status line says the answer is over (zett only: Enter -> idle).
    idle: Callable[[Pty], bool] | None = None
    #: The program draws the answer (the bare streaming app does not: its status line is read).
    shows_answer: bool = True


def _base_env(home: Path) -> dict[str, str]:
    keep = {name: os.environ[name] for name in ("PATH", "LANG", "LC_ALL") if name in os.environ}
    return {**keep, "HOME": str(home), "TERM": "xterm-256color", "COLORTERM": "truecolor"}


def _zett_env(home: Path, server: ServerProcess) -> dict[str, str]:
    return isolated_env(home, server)


def _zettcode_env(home: Path, server: ServerProcess) -> dict[str, str]:
    (home / ".zettcode").mkdir(parents=True, exist_ok=True)
    (home / ".zettcode" / "config.toml").write_text(
        f'[[models]]\nmodel = "gpt-test"\ntoken = "sk-bench-dummy"\nbase_url = "{server.openai_base_url}"\n\n'
        "[update]\nenabled = false\n"
    )
    return _base_env(home)


def _vibe_env(home: Path, server: ServerProcess) -> dict[str, str]:
    (home / ".vibe").mkdir(parents=True, exist_ok=True)
    (home / ".vibe" / "config.toml").write_text(
        'active_model = "local"\n\n[[providers]]\nname = "fake"\n'
        f'api_base = "{server.openai_base_url}"\napi_key_env_var = ""\n\n'
        '[[models]]\nname = "gpt-test"\nprovider = "fake"\nalias = "local"\n'
    )
    return _base_env(home)


def _minimal_env(home: Path, server: ServerProcess) -> dict[str, str]:
    return isolated_env(home, server)


def _zett_tree_env(tree: Path) -> Callable[[Path, ServerProcess], dict[str, str]]:
    """zett from another tree (``--against``): its folder first on the path."""

    def configure(home: Path, server: ServerProcess) -> dict[str, str]:
        return {**isolated_env(home, server), "PYTHONPATH": str(tree)}

    return configure


def programs(zettcode: str | None, vibe: str | None, against: Path | None = None) -> list[Program]:
    found = [
        Program("zett", sys.executable, ZETT, lambda pty: pty.composer(), _zett_env, Pty.idle),
    ]
    if against is not None:
        found.append(
            Program(
                f"zett ({against.name})",
                sys.executable,
                ZETT,
                lambda pty: pty.composer(),
                _zett_tree_env(against.resolve()),
                Pty.idle,
            )
        )
    if zettcode:
        found.append(
            Program(
                "ZettCode",
                zettcode,
                [],
                _line_prompt("› ", ("Ask ZettCode",)),
                _zettcode_env,
                lambda pty: "● ready" in pty.status(),
            )
        )
    if vibe:
        found.append(Program("mistral-vibe", vibe, [], _line_prompt("> ", ()), _vibe_env))
    return found


BARE = Program("bare Textual app", sys.executable, MINIMAL, lambda pty: pty.composer(), _minimal_env)
#: The bare app with zett-agent consuming the answer, drawing none of it: the echo baseline.
BARE_STREAMING = Program(
    "bare Textual app",
    sys.executable,
    MINIMAL_STREAMING,
    lambda pty: pty.composer(),
    _minimal_env,
    Pty.idle,
    shows_answer=False,
)


def wait(pty: Pty, condition: Callable[[], bool], timeout: float) -> float | None:
    return pty.wait(condition, timeout)


def launch(
    program: Program, home: Path, server: ServerProcess, cwd: Path, samples: dict[str, list[float]]
) -> None:
    """Figures 1 and 2."""
    env = program.configure(home, server)
    with spawned(program.args, env, cwd, program.executable, TERMINAL[0]) as pty:
        pty.child.send(START_KEY)
        frame = wait(pty, lambda: program.prompt(pty) is not None, 60)
        if frame is None:
            print(f"  {program.name}: no prompt:\n" + "\n".join(pty.screen.display), file=sys.stderr)
            return
        samples.setdefault(f"{program.name}.frame", []).append(frame - pty.started)
        shown = wait(pty, lambda: START_KEY in (program.prompt(pty) or ""), KEY_GRACE)
        if shown is not None:
            samples.setdefault(f"{program.name}.key", []).append(shown - pty.started)
        else:
            samples.setdefault(f"{program.name}.key_lost", []).append(1.0)
        if program.idle is not None:  # zett: its agent is ready (warm-up imports done)
            wait(pty, lambda: program.idle(pty), 60)  # type: ignore[misc]
        pty.settle(quiet=0.5)
        for _ in range(QUIET_KEYS):  # the key, then Backspace, then the key... each timed
            key, expected = (LATER_KEY, LATER_KEY) if not program.prompt(pty) else ("\x7f", "")
            pty.child.send(key)
            typed = time.perf_counter()
            later = wait(pty, lambda expected=expected: (program.prompt(pty) or "") == expected, 30)  # type: ignore[misc]
            if later is None:
                samples.setdefault(f"{program.name}.later_key_lost", []).append(1.0)
                break
            samples.setdefault(f"{program.name}.later_key", []).append(later - typed)
            pty.idle_for(QUIET_EVERY)


def answer(
    program: Program, home: Path, server: ServerProcess, cwd: Path, samples: dict[str, list[float]], last: str
) -> None:
    """Figures 3, 4 and 5."""
    env = program.configure(home, server)
    with spawned(program.args, env, cwd, program.executable, TERMINAL[0]) as pty:
        if wait(pty, lambda: program.prompt(pty) is not None, 60) is None:
            print(f"  {program.name}: no prompt:\n" + "\n".join(pty.screen.display), file=sys.stderr)
            return
        if program.idle is not None:
            wait(pty, lambda: program.idle(pty), 60)  # type: ignore[misc]
        pty.settle(quiet=1.0)
        pty.child.send(PROMPT + "\r")
        sent = time.perf_counter()
        shown = wait(pty, lambda: last in _screen_text(pty), ANSWER_TIMEOUT)
        if shown is None:
            print(f"  {program.name}: the answer's end never showed", file=sys.stderr)
            return
        samples.setdefault(f"{program.name}.answer", []).append(shown - sent)
        if program.idle is not None:
            idle = wait(pty, lambda: program.idle(pty), 60)  # type: ignore[misc]
            if idle is not None:
                samples.setdefault(f"{program.name}.answer_idle", []).append(idle - sent)
        pty.settle(quiet=1.0, timeout=60)
        footprint(pty, program.name, samples)


def echo_while_streaming(
    program: Program,
    home: Path,
    server: ServerProcess,
    cwd: Path,
    samples: dict[str, list[float]],
    last: str,
    figure: str = "echo",
) -> None:
    """Figures 6 and 7: keys typed while the answer streams, each until the prompt line shows it
    (the samples are ``NAME.FIGURE``)."""
    env = program.configure(home, server)
    with spawned(program.args, env, cwd, program.executable, TERMINAL[0]) as pty:
        if wait(pty, lambda: program.prompt(pty) is not None, 60) is None:
            print(f"  {program.name}: no prompt:\n" + "\n".join(pty.screen.display), file=sys.stderr)
            return
        if program.idle is not None:
            wait(pty, lambda: program.idle(pty), 60)  # type: ignore[misc]
        pty.settle(quiet=1.0)
        pty.child.send(PROMPT + "\r")
        idle = program.idle
        if idle is not None:  # its status line says when the turn starts and ends
            started = wait(pty, lambda: not idle(pty), 30)
        else:  # no status line to read: from the prompt sent (its line cleared) until the last words show
            started = wait(pty, lambda: not program.prompt(pty), 30)

        def streaming() -> bool:
            if idle is not None and idle(pty):
                return False
            return not program.shows_answer or last not in _screen_text(pty)

        if started is None:
            print(f"  {program.name}: the answer never started", file=sys.stderr)
            return
        if program.prompt(pty):  # the prompt line still shows what was sent: wait until it is cleared
            wait(pty, lambda: not program.prompt(pty), 10)
        typed = 0
        output, parsing, typing = pty.bytes_read, pty.parse_seconds, time.perf_counter()
        while streaming() and typed < ECHO_KEYS:
            key, expected = (LATER_KEY, LATER_KEY) if not program.prompt(pty) else ("\x7f", "")
            written = time.perf_counter()
            pty.child.send(key)
            shown = wait(pty, lambda expected=expected: (program.prompt(pty) or "") == expected, ECHO_TIMEOUT)  # type: ignore[misc]
            if shown is None:
                samples.setdefault(f"{program.name}.{figure}_lost", []).append(1.0)
                return
            samples.setdefault(f"{program.name}.{figure}", []).append(shown - written)
            typed += 1
            pty.idle_for(max(0.0, written + ECHO_EVERY - time.perf_counter()))
        seconds = max(time.perf_counter() - typing, 1e-3)
        samples.setdefault(f"{program.name}.{figure}_output", []).append(
            (pty.bytes_read - output) / 1024 / seconds
        )
        samples.setdefault(f"{program.name}.{figure}_parsing", []).append(
            (pty.parse_seconds - parsing) / seconds
        )


def process_tree(pid: int) -> list[int]:
    """``pid`` and every process below it (mistral-vibe is a Rust UI over a Python app server)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def tree_ticks(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        total += int(fields[11]) + int(fields[12])
    return total


def footprint(pty: Pty, name: str, samples: dict[str, list[float]]) -> None:
    """PSS and idle CPU of the program's whole process tree."""
    pids = process_tree(pty.child.pid)
    pss = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            pss += pss_kib(pid)
    samples.setdefault(f"{name}.pss", []).append(pss / 1024)
    samples.setdefault(f"{name}.processes", []).append(len(pids))
    pty.idle_for(1.0)
    ticks = tree_ticks(pids)
    pty.idle_for(IDLE_WINDOW)
    samples.setdefault(f"{name}.idle", []).append((tree_ticks(pids) - ticks) / TICKS_PER_SECOND)


def bare(home: Path, server: ServerProcess, cwd: Path, samples: dict[str, list[float]]) -> None:
    launch(BARE, home / "launch", server, cwd, samples)
    with spawned(BARE.args, BARE.configure(home / "idle", server), cwd, terminal=TERMINAL[0]) as pty:
        pty.wait(lambda: pty.first_frame is not None, 30)
        pty.settle()
        footprint(pty, BARE.name, samples)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def report(samples: dict[str, list[float]], names: list[str], paced_rate: float) -> None:
    def cell(key: str, unit: str) -> str:
        values = samples.get(key)
        lost = len(samples.get(key + "_lost", []))
        if lost:
            return f"lost {lost} of {lost + len(values or [])}"
        if not values:
            return "-"
        value = statistics.median(values)
        if unit.startswith("echo"):
            return f"{value * 1000:.0f} / {percentile(values, 0.95) * 1000:.0f} ms ({len(values)} keys)"
        if unit == "rate":
            return (
                f"{value:.0f} KiB/s, parsed in {statistics.median(samples[key[:-7] + '_parsing']) * 100:.0f}%"
            )
        if unit == "n":
            return f"{value:.0f}"
        return f"{value:.0f} MB" if unit == "MB" else f"{value:.3f} s" if unit == "s" else f"{value:.2f} s"

    rows = [
        ("launch -> prompt", "frame", "s"),
        ("launch -> first typed key shown", "key", "s"),
        ("a key typed at the quiet prompt -> shown, median / p95", "later_key", "echo"),
        ("58 KB answer: Enter -> last line shown", "answer", "s"),
        ("58 KB answer: Enter -> status says ready/idle", "answer_idle", "s"),
        ("PSS after the answer (bare app: idle)", "pss", "MB"),
        ("processes", "processes", "n"),
        (f"CPU per {IDLE_WINDOW:.0f} s idle", "idle", "cpu"),
        ("key echo while streaming, median / p95 (bare app: + zett-agent)", "echo", "echo"),
        (
            f"the same, the answer paced at {paced_rate:.0f} deltas of {PACED_CHUNK} characters a second",
            "echo_paced",
            "echo",
        ),
        (
            "the program's output while typed at (flood), and this process's share parsing it",
            "echo_output",
            "rate",
        ),
        ("the same, the paced answer", "echo_paced_output", "rate"),
    ]
    table = [("figure", *names)]
    table += [(label, *(cell(f"{name}.{key}", unit) for name in names)) for label, key, unit in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        print(" | ".join(text.ljust(width) for text, width in zip(row, widths, strict=True)).rstrip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--zettcode", help="the zettcode executable (ZettCode 0.2.0 in a venv of its own)")
    parser.add_argument("--vibe", help="the vibe executable (mistral-vibe 3.0.3, Python 3.12+)")
    parser.add_argument(
        "--against", type=Path, help="another zett tree (a checkout), measured in turn with this one"
    )
    parser.add_argument(
        "--echo-only",
        action="store_true",
        help="only figures 6 and 7, key echo while streaming (a few minutes)",
    )
    parser.add_argument(
        "--paced-rate",
        type=float,
        default=PACED_RATE,
        help=f"figure 7's deltas a second ({PACED_CHUNK} characters each; 0: no figure 7)",
    )
    parser.add_argument(
        "--terminal",
        choices=("pyte", "tmux"),
        default="pyte",
        help="read each program through pyte in this process (default) or a tmux pane (tmux parses)",
    )
    args = parser.parse_args()
    if args.terminal == "tmux":
        from benchmarks.tmux_terminal import TmuxPty, available

        if not available():
            parser.error("--terminal tmux: tmux is not installed")
        TERMINAL[0] = TmuxPty
    load_before = os.getloadavg()
    work = Path(tempfile.mkdtemp(prefix="zett-bench-peers-"))
    text = make_answer()
    last = "".join(text.split())[-LAST_CHARACTERS:]
    server = ServerProcess(work / "server", text)
    paced = (
        ServerProcess(work / "server-paced", text, chunk=PACED_CHUNK, delay=1 / args.paced_rate)
        if args.paced_rate > 0
        else None
    )
    cwd = work / "project"
    cwd.mkdir()
    samples: dict[str, list[float]] = {}
    started = time.perf_counter()
    chosen = programs(args.zettcode, args.vibe, args.against)
    try:
        for run in range(args.runs):
            for program in chosen:
                if not args.echo_only:
                    launch(program, work / f"home-{program.name}-launch-{run}", server, cwd, samples)
                    answer(program, work / f"home-{program.name}-answer-{run}", server, cwd, samples, last)
                echo_home = work / f"home-{program.name}-echo-{run}"
                echo_while_streaming(program, echo_home, server, cwd, samples, last)
                if paced is not None:
                    paced_home = work / f"home-{program.name}-paced-{run}"
                    echo_while_streaming(program, paced_home, paced, cwd, samples, last, "echo_paced")
            if not args.echo_only:
                bare(work / f"home-bare-{run}", server, cwd, samples)
            echo_home = work / f"home-bare-echo-{run}"
            echo_while_streaming(BARE_STREAMING, echo_home, server, cwd, samples, last)
            if paced is not None:
                paced_home = work / f"home-bare-paced-{run}"
                echo_while_streaming(BARE_STREAMING, paced_home, paced, cwd, samples, last, "echo_paced")
            print(f"  run {run + 1}/{args.runs} done", file=sys.stderr)
    finally:
        server.close()
        if paced is not None:
            paced.close()
        shutil.rmtree(work, ignore_errors=True)
    load_after = os.getloadavg()
    print(
        f"zett bench_peers: {os.cpu_count()} CPUs, read through {args.terminal}, "
        f"{time.perf_counter() - started:.0f} s, medians of "
        f"{args.runs}; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after"
    )
    report(samples, [program.name for program in chosen] + [BARE.name], args.paced_rate)


if __name__ == "__main__":
    main()
